"""Meteor 1.5's English resources, read from what the user already has — never downloaded.

Where they come from (first found wins):

1. ``resources=PATH`` (CLI ``--meteor15-resources PATH``) or the environment variable
   ``SCOREKIT_METEOR15``: a Meteor 1.5 distribution directory (``meteor-1.5.jar`` and
   ``data/paraphrase-en.gz``), the jar itself (``paraphrase-en.gz`` beside it or in ``data/``), or
   a source checkout with ``resources/{function,synonym,nonbreaking}`` and
   ``data/paraphrase-en.gz``;
2. an installed pycocoevalcap: ``pycocoevalcap/meteor/meteor-1.5.jar`` (a zip file, read in place
   with :mod:`zipfile`) and ``pycocoevalcap/meteor/data/paraphrase-en.gz``.

Inside: ``function/english.words`` (function words), ``synonym/english.synsets`` and
``synonym/english.exceptions`` (WordNet 3.0 synsets and irregular forms), ``nonbreaking/
english.prefixes`` (the normaliser's non-breaking prefixes) and the paraphrase table (5.3 million
``probability / phrase / paraphrase`` triples). Each file is named in the signature by the first
12 hex digits of its SHA-256.

The paraphrase table (61 MB gzip) is compiled once into a trie of numpy arrays under
``$SCOREKIT_CACHE`` (default ``~/.cache/scorekit``)/``meteor15/<sha256>/`` and memory-mapped after
that; the cache is keyed by content, so a changed table gets a new one. When the cache folder is
not writable the table is compiled in memory on every run (slow, same numbers).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.util
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scorekit.errors import MissingDependencyError

ENV_VAR = "SCOREKIT_METEOR15"
MAX_PHRASE = 7            # longest phrase in Meteor's tables; the code below handles any length
CACHE_VERSION = 1
FILES = ("function/english.words", "synonym/english.synsets", "synonym/english.exceptions",
         "nonbreaking/english.prefixes")

NOT_FOUND = ("Meteor 1.5 resources not found: install pycocoevalcap (pip install pycocoevalcap; its "
             "meteor-1.5.jar and data/paraphrase-en.gz are read in place) or pass "
             "--meteor15-resources DIR / set {env}=DIR to a Meteor 1.5 distribution "
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
        assert self.folder is not None
        return (self.folder / name).read_bytes()


def _jar_in(folder: Path) -> Path | None:
    for name in ("meteor-1.5.jar",):
        if (folder / name).is_file():
            return folder / name
    jars = sorted(folder.glob("meteor*.jar"))
    return jars[0] if jars else None


def _para_near(folder: Path) -> Path | None:
    for cand in (folder / "data" / "paraphrase-en.gz", folder / "paraphrase-en.gz"):
        if cand.is_file():
            return cand
    return None


def _from_path(path: Path, origin: str) -> Sources:
    if not path.exists():
        raise _missing(f"{origin} {path} does not exist")
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise _missing(f"{origin} {path} is not a Meteor jar")
        para = _para_near(path.parent)
        if para is None:
            raise _missing(f"no paraphrase-en.gz beside {path}")
        return Sources(f"{origin} {path}", path, None, para)
    para = _para_near(path)
    if para is None:
        raise _missing(f"no data/paraphrase-en.gz in {origin} {path}")
    if (path / "resources" / FILES[1]).is_file():
        return Sources(f"{origin} {path}", None, path / "resources", para)
    jar = _jar_in(path)
    if jar is None:
        raise _missing(f"no meteor-1.5.jar or resources/ in {origin} {path}")
    return Sources(f"{origin} {path}", jar, None, para)


def locate(resources: str | os.PathLike | None = None) -> Sources:
    """Find the resources (see the module doc); raise a one-line MissingDependencyError."""
    if resources:
        return _from_path(Path(resources).expanduser(), "--meteor15-resources")
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
@dataclass
class Synonyms:
    """``SynonymDictionary``: word -> WordNet synset ids, irregular form -> base forms, and
    WordNet's morphy suffix rules (``morph``) for the stem synsets."""

    raw: dict[str, str]                          # word -> unparsed synset id line
    bases: dict[str, list[str]]
    _cache: dict[str, frozenset[int]] = field(default_factory=dict)

    _SUFX = ("s", "ses", "xes", "zes", "ches", "shes", "men", "ies", "s", "ies", "es", "es", "ed",
             "ed", "ing", "ing", "er", "est", "er", "est")
    _ADDR = ("", "s", "x", "z", "ch", "sh", "man", "y", "", "y", "e", "", "e", "", "e", "", "", "",
             "e", "e")

    def synsets(self, word: str) -> frozenset[int]:
        line = self.raw.get(word)
        if line is None:
            return frozenset()
        return frozenset(int(t) for t in line.split())

    def _morph(self, word: str) -> str:
        if word.endswith("ss") or len(word.encode("utf-16-le")) <= 4:
            return word
        for suf, add in zip(self._SUFX, self._ADDR):
            if word.endswith(suf):
                cand = word[: len(word) - len(suf)] + add
                if cand in self.raw:
                    return cand
        return ""

    def stem_synsets(self, word: str) -> frozenset[int]:
        bases = self.bases.get(word)
        if bases is not None:
            out: set[int] = set()
            for b in bases:
                out |= self.synsets(b)
            return frozenset(out)
        return self.synsets(self._morph(word))

    def all_synsets(self, word: str) -> frozenset[int]:
        """``getSynSets(w) ∪ getStemSynSets(w)``, what SynonymMatcher compares."""
        got = self._cache.get(word)
        if got is None:
            got = self._cache[word] = self.synsets(word) | self.stem_synsets(word)
        return got


def _lines(data: bytes, encoding: str = "utf-8") -> list[str]:
    """BufferedReader.readLine(): \\n, \\r and \\r\\n all end a line."""
    text = data.decode(encoding, errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[: None if not text.endswith(("\n", "\r")) else -1]


def _parse_synonyms(syn: bytes, exc: bytes) -> Synonyms:
    from scorekit.generation.meteor15_text import java_tokens

    lines = _lines(syn)
    raw = dict(zip(lines[0::2], lines[1::2]))
    bases: dict[str, list[str]] = {}
    el = _lines(exc)
    for base, forms in zip(el[0::2], el[1::2]):
        for form in java_tokens(forms):
            bases.setdefault(form, []).append(base)
    return Synonyms(raw, bases)


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
        self.edge_keys = arrays["edge_keys"]
        self.edge_child = arrays["edge_child"]
        self.depth = arrays["depth"]
        self.ref_nodes = arrays["ref_nodes"]
        self.ref_offsets = arrays["ref_offsets"]
        self.ref_paras = arrays["ref_paras"]

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
            pos = starts + (length - 1)
            ok = pos < n
            starts, pos = starts[ok], pos[ok]
            tok = flat[pos]
            ok = tok >= 0
            starts, tok = starts[ok], tok[ok]
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
        out = {}
        for node, k in zip(nodes[hit].tolist(), at_c[hit].tolist()):
            out[node] = np.asarray(self.ref_paras[self.ref_offsets[k]:self.ref_offsets[k + 1]])
        return out


def _compile_paraphrases(path: Path) -> tuple[dict[str, np.ndarray], list[str]]:
    """``paraphrase-en.gz`` -> trie arrays and vocabulary (see ParaphraseTable). Lines are read
    as Java's BufferedReader does (UTF-8, \\n, \\r or \\r\\n), in triples: probability (ignored),
    phrase, paraphrase; tokens as StringTokenizer splits them."""
    from scorekit.generation.meteor15_text import java_tokens

    phrase_id: dict[str, int] = {}
    ref_list: list[int] = []
    par_list: list[int] = []
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
    vocab_list = [""] * len(vocab)
    for w, i in vocab.items():
        vocab_list[i] = w
    return arrays, vocab_list


def cache_root() -> Path:
    env = os.environ.get("SCOREKIT_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "scorekit"


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
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    sha = h.hexdigest()
    known[key] = sha
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
    try:
        tmp = folder.with_name(folder.name + f".{os.getpid()}.tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        for k, v in arrays.items():
            np.save(tmp / f"{k}.npy", v)
        (tmp / "vocab.txt").write_text("\n".join(vocab), encoding="utf-8")
        if folder.exists():
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.replace(tmp, folder)
    except OSError:
        pass
    return ParaphraseTable(arrays, vocab, sha)


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


@functools.lru_cache(maxsize=4)
def _load(sources: Sources) -> Meteor15Resources:
    from scorekit.generation.meteor15_text import parse_nonbreaking_prefixes

    try:
        blobs = {name: sources.read(name) for name in FILES}
    except (KeyError, OSError, zipfile.BadZipFile) as exc:
        raise _missing(f"{sources.origin}: {exc}") from None
    hashes = {name: _sha(b) for name, b in blobs.items()}
    fw = frozenset(_lines(blobs["function/english.words"]))
    nbp = parse_nonbreaking_prefixes(blobs["nonbreaking/english.prefixes"].decode("utf-8", "replace"))
    syn = _parse_synonyms(blobs["synonym/english.synsets"], blobs["synonym/english.exceptions"])
    try:
        table = load_paraphrases(sources.paraphrase)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise _missing(f"{sources.paraphrase}: {exc}") from None
    hashes["paraphrase-en.gz"] = table.sha256
    return Meteor15Resources(sources.origin, fw, nbp, syn, table, hashes)


def load(resources: str | os.PathLike | None = None) -> Meteor15Resources:
    """Locate and load (memoised per location) Meteor 1.5's English resources."""
    return _load(locate(resources))
