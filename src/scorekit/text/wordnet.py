"""A small, fast WordNet 3.0 reader for METEOR's synonym stage (no nltk_data, no nltk reader;
docs/meteor.md, "WordNet without nltk_data").

It reads the Princeton database files Debian's ``wordnet-base`` installs in ``/usr/share/wordnet``
(or ``$SCOREKIT_WORDNET_DIR``) and reproduces what METEOR needs from ``nltk.corpus.wordnet``:
:meth:`WordNet.synsets` (``(pos, offset)`` pairs in nltk's order: the lower-cased word through
nltk's ``_morphy`` per part of speech n, v, a, r — the exception list entry, else one pass of each
detachment rule — keeping the forms the index lists), :meth:`WordNet.lemma_names` (as nltk's
``Synset.lemma_names()``, adjective markers such as ``(a)`` removed) and :meth:`WordNet.synonyms`
(what ``nltk.translate.meteor_score`` builds: the lemma names without ``_`` of all its synsets,
plus the word itself; cached per word). Data lines are parsed lazily, by byte offset.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from scorekit.errors import MissingDependencyError

DEFAULT_DIR = "/usr/share/wordnet"
POS_LIST = ("n", "v", "a", "r")  # nltk's POS_LIST order (satellites 's' live in index.adj as 'a')
_FILEMAP = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}

# nltk's Morphy detachment rules (WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS), same order.
SUBSTITUTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "n": (("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
# nltk strips an adjective's syntactic marker with exactly this pattern.
_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")


class WordNet:
    """WordNet 3.0 database files read directly; see the module docstring."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root or os.environ.get("SCOREKIT_WORDNET_DIR") or DEFAULT_DIR)
        missing = [f"{kind}.{name}" for name in _FILEMAP.values() for kind in ("index", "data")
                   if not (self.root / f"{kind}.{name}").is_file()]
        if missing:
            raise MissingDependencyError(
                f"WordNet 3.0 database not found in {self.root} (missing {', '.join(missing)}): "
                "install it with `apt-get install wordnet-base` or point SCOREKIT_WORDNET_DIR at a "
                "directory holding index.*, data.* and *.exc")
        self._data: dict[str, bytes] = {}
        self._names: dict[tuple[str, int], tuple[str, ...]] = {}
        self._syn_cache = _SynonymCache(self._compute_synonyms)
        #: ``synonyms`` as a C-level dict lookup once a word has been seen (the METEOR hot loop)
        self.synonym_lookup = self._syn_cache.__getitem__

    # -- loading ---------------------------------------------------------------------------
    def _lines(self, name: str) -> list[str]:
        path = self.root / name
        return path.read_text(encoding="utf-8").splitlines() if path.is_file() else []

    @functools.cached_property
    def index(self) -> dict[str, dict[str, str]]:
        """pos -> lemma -> the rest of its index line (licence header lines start with a space; a
        repeated lemma: the later line wins, as in nltk)."""
        return {pos: dict(line.partition(" ")[::2] for line in self._lines(f"index.{name}")
                          if line and line[0] != " ") for pos, name in _FILEMAP.items()}

    @functools.cached_property
    def _exc(self) -> dict[str, dict[str, list[str]]]:
        return {pos: {t[0]: t[1:] for t in map(str.split, self._lines(f"{name}.exc")) if t}
                for pos, name in _FILEMAP.items()}

    def _offsets(self, pos: str, form: str) -> list[int]:
        rest = self.index[pos].get(form)
        if rest is None:
            return []
        f = rest.split()  # pos n_synsets p_cnt ptr... n_senses tagsense_cnt offsets...
        n_synsets, p_cnt = int(f[1]), int(f[2])
        start = 3 + p_cnt + 2
        return [int(x) for x in f[start:start + n_synsets]]

    # -- morphy ----------------------------------------------------------------------------
    def morphy_forms(self, form: str, pos: str) -> list[str]:
        """nltk's ``WordNetCorpusReader._morphy(form, pos)``: base forms present in the index."""
        table, exceptions = self.index[pos], self._exc[pos]
        forms = exceptions[form] if form in exceptions else \
            [form[: -len(old)] + new for old, new in SUBSTITUTIONS[pos] if form.endswith(old)]
        return list(dict.fromkeys(f for f in [form, *forms] if f in table))

    def synsets(self, word: str) -> list[tuple[str, int]]:
        """``(pos, offset)`` of each synset ``nltk.corpus.wordnet.synsets(word)`` returns, in order."""
        word = word.lower()
        return [(pos, off) for pos in POS_LIST for form in self.morphy_forms(word, pos)
                for off in self._offsets(pos, form)]

    # -- data ------------------------------------------------------------------------------
    def lemma_names(self, pos: str, offset: int) -> tuple[str, ...]:
        key = (pos, offset)
        if (names := self._names.get(key)) is None:
            data = self._data.get(pos)
            if data is None:
                data = self._data[pos] = (self.root / f"data.{_FILEMAP[pos]}").read_bytes()
            end = data.index(b"\n", offset)
            fields = data[offset:end].split(b" ", 4 + 2 * 256)
            names = tuple(_MARKER.match(fields[4 + 2 * k].decode("utf-8")).group(1)
                          for k in range(int(fields[3], 16)))
            self._names[key] = names
        return names

    def synonyms(self, word: str) -> frozenset[str]:
        """METEOR's synonym set of ``word``: lemma names without ``_`` of its synsets, plus itself."""
        return self._syn_cache[word]

    def _compute_synonyms(self, word: str) -> frozenset[str]:
        out = {word}
        for pos, off in self.synsets(word):
            out.update(n for n in self.lemma_names(pos, off) if "_" not in n)
        return frozenset(out)


class _SynonymCache(dict):
    """word -> synonym set, computed on first lookup."""

    def __init__(self, compute):
        super().__init__()
        self.compute = compute

    def __missing__(self, word: str) -> frozenset[str]:
        syns = self[word] = self.compute(word)
        return syns


@functools.lru_cache(maxsize=4)
def _cached(root: str) -> WordNet:
    return WordNet(root)


def get_wordnet(root: str | os.PathLike | None = None) -> WordNet:
    """The shared reader for ``root`` (default ``$SCOREKIT_WORDNET_DIR`` or /usr/share/wordnet)."""
    return _cached(str(root or os.environ.get("SCOREKIT_WORDNET_DIR") or DEFAULT_DIR))


# The standard WordNet 3.0 lexnames file (lexicographer file number, name, syntactic category):
# Debian's wordnet-base lacks it, and nltk's WordNet reader refuses to load without it.
_LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location "
    "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process "
    "noun.quantity noun.relation noun.shape noun.state noun.substance noun.time verb.body "
    "verb.change verb.cognition verb.communication verb.competition verb.consumption verb.contact "
    "verb.creation verb.emotion verb.motion verb.perception verb.possession verb.social "
    "verb.stative verb.weather adj.ppl"
).split()
_LEX_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def export_for_nltk(nltk_data_root: str | os.PathLike, source: str | os.PathLike | None = None) -> Path:
    """Lay out Debian's WordNet 3.0 files as an nltk_data folder (``<root>/corpora/wordnet``,
    plus the ``lexnames`` file nltk needs) so nltk's reader — e.g. for comparing with nltk's
    METEOR — works without downloading nltk_data. Files are copied: nltk refuses symlinks that
    leave its data path. Returns ``nltk_data_root``; append it to ``nltk.data.path``."""
    import shutil

    src = Path(source or os.environ.get("SCOREKIT_WORDNET_DIR") or DEFAULT_DIR)
    if not (src / "index.noun").is_file():
        raise MissingDependencyError(f"WordNet 3.0 files not found in {src}: apt-get install wordnet-base")
    root = Path(nltk_data_root)
    dest = root / "corpora" / "wordnet"
    dest.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file():
            shutil.copy(f, dest / f.name)
    (dest / "lexnames").write_text(
        "".join(f"{i:02d}\t{n}\t{_LEX_CATEGORY[n.split('.')[0]]}\n" for i, n in enumerate(_LEXNAMES)))
    return root
