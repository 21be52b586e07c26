"""Meteor 1.5's English resources, read from what the user already has — never downloaded:
``resources=PATH`` (a distribution folder, the jar, or a source checkout with ``resources/``),
else ``$SCOREKIT_METEOR15``, else an installed pycocoevalcap's jar (a zip, read in place) and
``data/paraphrase-en.gz``; which files, and how the signature names them: docs/meteor.md
"Resources".

The paraphrase table (61 MB gzip) is compiled once into a trie of numpy arrays under
``$SCOREKIT_CACHE``/``meteor15/`` and memory-mapped after that, keyed by content; when the cache
folder is not writable it is compiled in memory on every run (slow, same numbers). The small tables
(function words, prefixes, the 147,000 synonym entries as sorted arrays) are cached the same way
in ``meteor15/small-<sha256>/``, keyed by the jar's (or the resource files') content.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.util
import json
import os
import shutil
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scorekit.cache import cache_root
from scorekit.errors import InputError, MissingDependencyError
from scorekit.generation.meteor15_text import java_tokens, parse_nonbreaking_prefixes

ENV_VAR = "SCOREKIT_METEOR15"
CACHE_VERSION = 1
FILES = ("function/english.words", "synonym/english.synsets", "synonym/english.exceptions",
         "nonbreaking/english.prefixes")

NOT_FOUND = ("Meteor 1.5 resources not found: install pycocoevalcap (pip install pycocoevalcap; its "
             "meteor-1.5.jar and data/paraphrase-en.gz are read in place) or pass "
             "-m \"meteor15(resources=DIR)\" / set {env}=DIR to a Meteor 1.5 distribution "
             "(meteor-1.5.jar and data/paraphrase-en.gz){why}")


def _missing(why: str = "") -> MissingDependencyError:
    return MissingDependencyError(NOT_FOUND.format(env=ENV_VAR, why=f" ({why})" if why else ""))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ----------------------------------------------------------------------------- locating
@dataclass(frozen=True)
class Sources:
    """Where each resource lives: small files as bytes readers, the paraphrase table as a path."""

    origin: str                       # what was found, for messages
    jar: Path | None                  # the jar (a zip) holding FILES, or None
    folder: Path | None               # a resources/ folder holding FILES, or None
    paraphrase: Path

    def read(self, name: str) -> bytes:
        if self.jar is not None:
            with zipfile.ZipFile(self.jar) as z:
                return z.read(name)
        return (self.folder / name).read_bytes()


def _from_path(path: Path, origin: str) -> Sources:
    where = f"{origin} {path}"
    if not path.exists():
        raise _missing(f"{where} does not exist")
    folder = path.parent if path.is_file() else path
    para = next((c for c in (folder / "data" / "paraphrase-en.gz", folder / "paraphrase-en.gz")
                 if c.is_file()), None)
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise _missing(f"{where} is not a Meteor jar")
        if para is None:
            raise _missing(f"no paraphrase-en.gz beside {path}")
        return Sources(where, path, None, para)
    if para is None:
        raise _missing(f"no data/paraphrase-en.gz in {where}")
    if (path / "resources" / FILES[1]).is_file():
        return Sources(where, None, path / "resources", para)
    jar = path / "meteor-1.5.jar"
    jar = jar if jar.is_file() else next(iter(sorted(path.glob("meteor*.jar"))), None)
    if jar is None:
        raise _missing(f"no meteor-1.5.jar or resources/ in {where}")
    return Sources(where, jar, None, para)


def locate(resources: str | os.PathLike | None = None) -> Sources:
    """Find the resources (see the module doc); raise a one-line MissingDependencyError."""
    if resources:
        return _from_path(Path(resources).expanduser(), "meteor15(resources=...)")
    env = os.environ.get(ENV_VAR)
    if env:
        return _from_path(Path(env).expanduser(), ENV_VAR)
    try:
        spec = importlib.util.find_spec("pycocoevalcap")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            folder = Path(loc) / "meteor"
            jar, para = folder / "meteor-1.5.jar", folder / "data" / "paraphrase-en.gz"
            if jar.is_file() and para.is_file():
                return Sources(f"pycocoevalcap {folder}", jar, None, para)
    raise _missing()


# ----------------------------------------------------------------------------- small tables
class Synonyms:
    """``SynonymDictionary``: word -> WordNet synset ids, irregular form -> base forms, and
    WordNet's morphy suffix rules (``morph``) for the stem synsets.

    The 147,000 words are a sorted byte-string array (``keys``) with their synset ids in
    ``ids[offsets[k]:offsets[k + 1]]``: compiled once into the cache and memory-mapped, so a run
    builds no 147,000-entry dictionary (0.06 s of a one-second run); the words of a batch are
    looked up together (:meth:`preload`)."""

    _SUFX = ("s", "ses", "xes", "zes", "ches", "shes", "men", "ies", "s", "ies", "es", "es", "ed",
             "ed", "ing", "ing", "er", "est", "er", "est")
    _ADDR = ("", "s", "x", "z", "ch", "sh", "man", "y", "", "y", "e", "", "e", "", "e", "", "", "",
             "e", "e")
    _LAST = frozenset(x[-1] for x in _SUFX)

    def __init__(self, keys: np.ndarray, ids: np.ndarray, offsets: np.ndarray,
                 bases: dict[str, list[str]]):
        # plain views of the memory maps: slicing an np.memmap costs a Python-level __getitem__
        self.keys, self.ids, self.offsets = np.asarray(keys), np.asarray(ids), np.asarray(offsets)
        self.bases = bases
        self._cache: dict[str, frozenset[int]] = {}

    @classmethod
    def parse(cls, syn: bytes, exc: bytes) -> "Synonyms":
        """From ``english.synsets`` (word line, synset-ids line, ...; a repeated word keeps its
        last line, as Meteor's HashMap) and ``english.exceptions`` (base line, forms line)."""
        lines = _lines(syn)
        raw = dict(zip(lines[0::2], lines[1::2]))
        words = sorted(w for w in raw if "\x00" not in w)   # code point order = UTF-8 byte order
        sets = [[int(t) for t in raw[w].split()] for w in words]
        offsets = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in sets], out=offsets[1:])
        ids = np.fromiter((i for x in sets for i in x), np.int64, int(offsets[-1]))
        keys = np.array([_utf8(w) for w in words], dtype=bytes) if words else np.zeros(0, "S1")
        bases: dict[str, list[str]] = {}
        el = _lines(exc)
        for base, forms in zip(el[0::2], el[1::2]):
            for form in java_tokens(forms):
                bases.setdefault(form, []).append(base)
        return cls(keys, ids, offsets, bases)

    def _find(self, words: list[str]) -> list[int]:
        """Each word's row in ``keys``, -1 when absent (one vectorised search)."""
        n = len(self.keys)
        if not words or not n:
            return [-1] * len(words)
        q = np.array([_utf8(w) for w in words], dtype=bytes)
        at = np.searchsorted(self.keys, q)
        at_c = np.minimum(at, n - 1)
        hit = (at < n) & (self.keys[at_c] == q)
        # byte strings in numpy drop trailing NULs: a word with a NUL is in no synset file
        return [int(k) if h and "\x00" not in w else -1 for w, k, h in zip(words, at_c.tolist(), hit.tolist())]

    def _sets(self, row: int) -> frozenset[int]:
        if row < 0:
            return frozenset()
        return frozenset(self.ids[self.offsets[row]:self.offsets[row + 1]].tolist())

    def _morph_candidates(self, word: str) -> list[str]:
        """``morph``'s tries in order: the word itself when it is short or ends in "ss", else
        each suffix rule that applies and then "" (the first one in the dictionary wins)."""
        if word.endswith("ss") or len(word.encode("utf-16-le", "surrogatepass")) <= 4:
            return [word]
        if word[-1] not in self._LAST:
            return [""]
        return [word[: len(word) - len(suf)] + add for suf, add in zip(self._SUFX, self._ADDR)
                if word.endswith(suf)] + [""]

    def preload(self, words) -> None:
        """Compute :meth:`all_synsets` of many words with three vectorised lookups."""
        todo = [w for w in dict.fromkeys(words) if w not in self._cache]
        if not todo:
            return
        own = self._find(todo)
        bases = self.bases
        cands = {w: (None if w in bases else self._morph_candidates(w)) for w in todo}
        lookups = list(dict.fromkeys(x for w in todo for x in (bases[w] if cands[w] is None else cands[w])))
        row = dict(zip(lookups, self._find(lookups)))
        for w, r in zip(todo, own):
            if cands[w] is None:                        # irregular form: its bases' synsets
                stem: frozenset[int] = frozenset().union(*(self._sets(row[b]) for b in bases[w]))
            else:   # the first candidate in the dictionary
                stem = self._sets(next((row[c] for c in cands[w] if row[c] >= 0), -1))
            self._cache[w] = self._sets(r) | stem

    def all_synsets(self, word: str) -> frozenset[int]:
        """``getSynSets(w) ∪ getStemSynSets(w)``, what SynonymMatcher compares."""
        if word not in self._cache:
            self.preload([word])
        return self._cache[word]


def _utf8(word: str) -> bytes:
    return word.encode("utf-8", "surrogatepass")


def _lines(data: bytes, encoding: str = "utf-8") -> list[str]:
    """BufferedReader.readLine(): \\n, \\r and \\r\\n all end a line."""
    text = data.decode(encoding, errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")[: None if not text.endswith("\n") else -1]


# ----------------------------------------------------------------------------- paraphrases
class ParaphraseTable:
    """The paraphrase table as a trie in arrays (exactly ``ParaphraseTransducer``'s content).

    Phrases (references and paraphrases alike) are paths in one trie over token ids; node 0 is
    the root, a node's ``depth`` is its phrase length. ``edge_keys`` (sorted) holds
    ``parent << bits | token`` for every edge, ``edge_child`` the child. Reference phrases with
    paraphrases are ``ref_nodes`` (sorted) with their paraphrase nodes in file order in
    ``ref_paras[ref_offsets[k]:ref_offsets[k + 1]]``.
    """

    def __init__(self, arrays: dict[str, np.ndarray], vocab: list[str], sha256: str):
        self.sha256 = sha256
        self.vocab = {w: i for i, w in enumerate(vocab)}
        self.bits = int(arrays["meta"][0])
        self.max_len = int(arrays["meta"][1])
        (self.edge_keys, self.edge_child, self.depth, self.ref_nodes, self.ref_offsets,
         self.ref_paras) = (arrays[k] for k in _NAMES[1:])

    def walk(self, flat: np.ndarray) -> np.ndarray:
        """Token ids (-1: unknown word or a sentence boundary) -> ``nodes[p, L-1]``, the trie node
        of the phrase of length L starting at p (-1 when it is no phrase of the table)."""
        n = len(flat)
        out = np.full((n, self.max_len), -1, dtype=np.int64)
        cur = np.zeros(n, dtype=np.int64)          # node of the phrase so far at each start
        alive = flat >= 0
        keys_arr = self.edge_keys
        for length in range(1, self.max_len + 1):
            starts = np.nonzero(alive)[0]
            if not len(starts):
                break
            starts = starts[starts + (length - 1) < n]
            tok = flat[starts + (length - 1)]
            starts, tok = starts[tok >= 0], tok[tok >= 0]
            keys = (cur[starts].astype(np.uint64) << np.uint64(self.bits)) | tok.astype(np.uint64)
            # each distinct edge looked up once, in ascending order (a sorted search walks the
            # big key array forwards instead of jumping about it)
            keys, inverse = np.unique(keys, return_inverse=True)
            at = np.searchsorted(keys_arr, keys)
            at_c = np.minimum(at, len(keys_arr) - 1)
            found = keys_arr[at_c] == keys
            child = np.where(found, np.asarray(self.edge_child[at_c], dtype=np.int64), -1)[inverse]
            hit = found[inverse]
            alive = np.zeros(n, dtype=bool)
            starts, child = starts[hit], child[hit]
            cur[starts] = child
            out[starts, length - 1] = child
            alive[starts] = True
        return out

    def paraphrases_of(self, nodes: np.ndarray) -> dict[int, np.ndarray]:
        """Reference node -> its paraphrase nodes in file order, for the given nodes that are
        reference phrases."""
        nodes = np.unique(nodes[nodes > 0])
        at = np.searchsorted(self.ref_nodes, nodes)
        at_c = np.minimum(at, len(self.ref_nodes) - 1)
        hit = self.ref_nodes[at_c] == nodes
        return {node: np.asarray(self.ref_paras[self.ref_offsets[k]:self.ref_offsets[k + 1]])
                for node, k in zip(nodes[hit].tolist(), at_c[hit].tolist())}


def _compile_paraphrases(path: Path) -> tuple[dict[str, np.ndarray], list[str]]:
    """``paraphrase-en.gz`` -> trie arrays and vocabulary (see ParaphraseTable). Lines are read
    as Java's BufferedReader does (UTF-8, \\n, \\r or \\r\\n), in triples: probability (ignored),
    phrase, paraphrase; tokens as StringTokenizer splits them."""
    phrase_id: dict[str, int] = {}
    ref_list, par_list = [], []
    with gzip.open(path, "rt", encoding="utf-8", errors="replace", newline=None) as f:
        while True:
            prob = f.readline()
            if not prob:
                break
            ref, par = f.readline().rstrip("\n"), f.readline().rstrip("\n")
            ref_list.append(phrase_id.setdefault(ref, len(phrase_id)))
            par_list.append(phrase_id.setdefault(par, len(phrase_id)))
    ref_idx = np.asarray(ref_list, dtype=np.int64)
    par_idx = np.asarray(par_list, dtype=np.int64)
    del ref_list, par_list
    phrases = list(phrase_id)
    del phrase_id
    vocab: dict[str, int] = {}
    plain = not any(c in p for p in phrases for c in "\t\r\f") and not any(
        p != p.strip(" ") or "  " in p for p in phrases)
    toks = [p.split(" ") if plain and p else java_tokens(p) for p in phrases]
    lengths = np.fromiter((len(t) for t in toks), np.int64, len(toks))
    max_len = int(lengths.max()) if len(lengths) else 1
    flat = np.fromiter((vocab.setdefault(w, len(vocab)) for t in toks for w in t), np.int64,
                       int(lengths.sum()))
    del toks
    bits = max(1, len(vocab).bit_length())
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    node_of = np.zeros(len(phrases), dtype=np.int64)   # empty phrases stay at the root
    keys_all, child_all, depth = [], [], [np.zeros(1, np.uint8)]
    next_id = 1
    for level in range(max_len):
        sel = np.nonzero(lengths > level)[0]
        tok = flat[offsets[sel] + level]
        keys = (node_of[sel].astype(np.uint64) << np.uint64(bits)) | tok.astype(np.uint64)
        uniq, inv = np.unique(keys, return_inverse=True)
        node_of[sel] = next_id + inv
        keys_all.append(uniq)
        child_all.append(np.arange(next_id, next_id + len(uniq), dtype=np.int64))
        depth.append(np.full(len(uniq), level + 1, np.uint8))
        next_id += len(uniq)
    if next_id.bit_length() + bits > 63:
        raise MissingDependencyError("paraphrase table too large for the trie encoding")
    keys = np.concatenate(keys_all)
    order = np.argsort(keys, kind="stable")
    ref_node, par_node = node_of[ref_idx], node_of[par_idx]
    order_e = np.argsort(ref_node, kind="stable")        # keeps file order within a phrase
    sorted_ref = ref_node[order_e]
    ref_nodes, first = np.unique(sorted_ref, return_index=True)
    arrays = {
        "meta": np.array([bits, max_len, CACHE_VERSION], dtype=np.int64),
        "edge_keys": keys[order],
        "edge_child": np.concatenate(child_all)[order].astype(np.int32),
        "depth": np.concatenate(depth),
        "ref_nodes": ref_nodes.astype(np.int64),
        "ref_offsets": np.concatenate([first, [len(sorted_ref)]]).astype(np.int64),
        "ref_paras": par_node[order_e].astype(np.int32),
    }
    return arrays, list(vocab)         # ids were given in insertion order


def _file_sha(path: Path, root: Path) -> str:
    """SHA-256 of a file, remembered per (path, size, mtime) so big files hash once."""
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    index = root / "meteor15" / "hashes.json"
    try:
        known = json.loads(index.read_text())
    except (OSError, ValueError):
        known = {}
    if key in known:
        return known[key]
    with open(path, "rb") as f:
        sha = known[key] = hashlib.file_digest(f, "sha256").hexdigest()
    try:
        index.parent.mkdir(parents=True, exist_ok=True)
        tmp = index.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(known))
        os.replace(tmp, index)
    except OSError:
        pass
    return sha


_NAMES = ("meta", "edge_keys", "edge_child", "depth", "ref_nodes", "ref_offsets", "ref_paras")


def load_paraphrases(path: Path) -> ParaphraseTable:
    root = cache_root()
    sha = _file_sha(path, root)
    folder = root / "meteor15" / f"paraphrase-{sha[:32]}-v{CACHE_VERSION}"
    try:
        arrays = {k: np.load(folder / f"{k}.npy", mmap_mode="r") for k in _NAMES}
        vocab = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
        return ParaphraseTable(arrays, vocab, sha)
    except (OSError, ValueError):
        pass
    arrays, vocab = _compile_paraphrases(path)
    _save_cache(folder, arrays, {"vocab.txt": "\n".join(vocab)})
    return ParaphraseTable(arrays, vocab, sha)


def _save_cache(folder: Path, arrays: dict[str, np.ndarray], texts: dict[str, str]) -> None:
    """Build a cache folder aside and move it into place; a cache that cannot be written is
    only a slower next start."""
    try:
        tmp = folder.with_name(folder.name + f".{os.getpid()}.tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        for k, v in arrays.items():
            np.save(tmp / f"{k}.npy", v)
        for name, text in texts.items():
            (tmp / name).write_text(text, encoding="utf-8")
        try:
            os.replace(tmp, folder)           # another process may have won: keep theirs
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        pass


# ----------------------------------------------------------------------------- bundle
@dataclass
class Meteor15Resources:
    origin: str
    function_words: frozenset[str]
    nonbreaking: dict[str, int]
    synonyms: Synonyms
    paraphrase: ParaphraseTable
    hashes: dict[str, str]       # resource file -> sha256

    def fingerprint(self) -> str:
        """``name=sha256[:12]`` for every file, the signature's pin on the resources."""
        short = {"function/english.words": "function", "synonym/english.synsets": "synsets",
                 "synonym/english.exceptions": "exceptions",
                 "nonbreaking/english.prefixes": "nonbreaking", "paraphrase-en.gz": "paraphrase"}
        return ",".join(f"{short[k]}={v[:12]}" for k, v in self.hashes.items())


SMALL_VERSION = 1
_SYN_ARRAYS = ("syn_keys", "syn_ids", "syn_offsets")


def _parse_small(sources: Sources) -> tuple[frozenset[str], dict[str, int], Synonyms, dict[str, str]]:
    try:
        blobs = {name: sources.read(name) for name in FILES}
    except (KeyError, OSError, zipfile.BadZipFile) as exc:
        raise _missing(f"{sources.origin}: {exc}") from None
    hashes = {name: _sha(b) for name, b in blobs.items()}
    fw = frozenset(_lines(blobs["function/english.words"]))
    nbp = parse_nonbreaking_prefixes(blobs["nonbreaking/english.prefixes"].decode("utf-8", "replace"))
    syn = Synonyms.parse(blobs["synonym/english.synsets"], blobs["synonym/english.exceptions"])
    return fw, nbp, syn, hashes


def _small_folder(sources: Sources) -> Path | None:
    """The cache folder of the small tables, keyed by the SHA-256 of the jar (or of each file of
    a resources/ folder), which is itself remembered per (path, size, mtime)."""
    root = cache_root()
    try:
        if sources.jar is not None:
            key = _file_sha(sources.jar, root)
        else:
            key = _sha("|".join(_file_sha(sources.folder / n, root) for n in FILES).encode())
    except OSError:
        return None
    return root / "meteor15" / f"small-{key[:32]}-v{SMALL_VERSION}"


def _small_tables(sources: Sources) -> tuple[frozenset[str], dict[str, int], Synonyms, dict[str, str]]:
    """Function words, non-breaking prefixes, synonyms and the files' hashes: from the cache
    (memory-mapped arrays and one JSON file, a few milliseconds), else parsed from the files
    (0.1 s) and cached for next time. Same content either way."""
    folder = _small_folder(sources)
    if folder is not None:
        try:
            meta = json.loads((folder / "small.json").read_text(encoding="utf-8"))
            keys, ids, offsets = (np.load(folder / f"{k}.npy", mmap_mode="r") for k in _SYN_ARRAYS)
            syn = Synonyms(keys, ids, offsets, meta["bases"])
            return frozenset(meta["function_words"]), meta["nonbreaking"], syn, meta["hashes"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
    fw, nbp, syn, hashes = _parse_small(sources)
    if folder is not None:
        meta = {"function_words": sorted(fw), "nonbreaking": nbp, "bases": syn.bases, "hashes": hashes}
        _save_cache(folder, dict(zip(_SYN_ARRAYS, (syn.keys, syn.ids, syn.offsets))),
                    {"small.json": json.dumps(meta, ensure_ascii=False)})
    return fw, nbp, syn, hashes


@functools.lru_cache(maxsize=4)
def _load(sources: Sources) -> Meteor15Resources:
    fw, nbp, syn, hashes = _small_tables(sources)
    try:
        table = load_paraphrases(sources.paraphrase)
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        # the file is there but cut short or corrupt: say so, not "not found"
        raise InputError(f"damaged or truncated paraphrase table ({type(exc).__name__}: {exc}); replace it "
                         "with a complete copy (reinstall pycocoevalcap, or a Meteor 1.5 distribution's "
                         "data/paraphrase-en.gz)", sources.paraphrase) from None
    except OSError as exc:
        raise InputError(f"cannot read the paraphrase table ({exc.strerror or exc})", sources.paraphrase) from None
    hashes = {**hashes, "paraphrase-en.gz": table.sha256}
    return Meteor15Resources(sources.origin, fw, nbp, syn, table, hashes)


def load(resources: str | os.PathLike | None = None) -> Meteor15Resources:
    """Locate and load (memoised per location) Meteor 1.5's English resources."""
    return _load(locate(resources))
