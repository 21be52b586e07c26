"""The direct WordNet 3.0 reader against nltk's WordNetCorpusReader on the same Debian files."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from scorekit.errors import MissingDependencyError
from scorekit.text.wordnet import _LEXNAMES as LEXNAMES, WordNet, export_for_nltk, get_wordnet

WN_DIR = Path("/usr/share/wordnet")
pytestmark = pytest.mark.skipif(not (WN_DIR / "index.noun").exists(), reason="wordnet-base not installed")

def nltk_wordnet_root(tmp_root: Path) -> Path:
    """Debian's WordNet laid out as an nltk_data folder (see export_for_nltk)."""
    return export_for_nltk(tmp_root, WN_DIR)


@pytest.fixture(scope="session")
def nltk_wn(tmp_path_factory):
    nltk = pytest.importorskip("nltk")
    root = nltk_wordnet_root(tmp_path_factory.mktemp("nltk_data"))
    nltk.data.path.insert(0, str(root))
    from nltk.corpus import wordnet as wn

    assert len(LEXNAMES) == 45
    assert [s.name() for s in wn.synsets("dog")][:1] == ["dog.n.01"]
    return wn


def nltk_synonyms(wn, word: str) -> frozenset[str]:
    """Exactly the set nltk.translate.meteor_score builds for a hypothesis word."""
    return frozenset(l.name() for s in wn.synsets(word) for l in s.lemmas() if "_" not in l.name()) | {word}


def vocabulary(reader: WordNet, seed: int = 7, frac: float = 0.01) -> list[str]:
    rng = random.Random(seed)
    words = set()
    for pos in "nvar":
        words.update(w for w in reader.index[pos] if rng.random() < frac)
        words.update(reader._exc[pos])  # every exception-list form (geese, better, ran, ...)
    base = sorted(words)
    for w in rng.sample(base, 1500):  # inflected forms exercise every detachment rule
        words.update(w + s for s in ("s", "es", "ed", "ing", "er", "est", "ies", "men"))
    words.update("running geese better best ran dogs churches aardwolves abaci went saw leaves axes "
                 "us Book DOGS Running hardrock '' - 1 .22".split())
    return sorted(words)


def test_synsets_and_synonyms_equal_nltk(nltk_wn):
    reader = WordNet(WN_DIR)
    words = vocabulary(reader)
    assert len(words) > 8000
    bad = []
    for w in words:
        ours = reader.synsets(w)
        theirs = [("a" if s.pos() == "s" else s.pos(), s.offset()) for s in nltk_wn.synsets(w)]
        if ours != theirs or reader.synonyms(w) != nltk_synonyms(nltk_wn, w):
            bad.append(w)
    assert bad == []


def test_lemma_names_equal_nltk(nltk_wn):
    reader = WordNet(WN_DIR)
    for word in ("big", "good", "dog", "run", "quickly", "beautiful", "able", "former"):
        for (pos, off), syn in zip(reader.synsets(word), nltk_wn.synsets(word)):
            assert reader.lemma_names(pos, off) == tuple(syn.lemma_names())


@pytest.mark.parametrize("form,pos,expected", [
    ("dogs", "n", ["dog"]), ("churches", "n", ["church"]), ("aardwolves", "n", ["aardwolf"]),
    ("abaci", "n", ["abacus"]), ("geese", "n", ["goose"]), ("better", "a", ["better", "good", "well"]),
    ("running", "v", ["run"]), ("book", "a", []), ("hardrock", "r", []),
])
def test_morphy(form, pos, expected, nltk_wn):
    assert get_wordnet(WN_DIR).morphy_forms(form, pos) == expected == nltk_wn._morphy(form, pos)


def test_synonyms_include_word_and_drop_compounds():
    syn = get_wordnet(WN_DIR).synonyms("car")
    assert {"car", "auto", "automobile", "machine"} <= syn
    assert not any("_" in s for s in syn)
    assert get_wordnet(WN_DIR).synonyms("qzxv") == {"qzxv"}


def test_missing_database_is_a_clear_error(tmp_path):
    with pytest.raises(MissingDependencyError, match="wordnet-base"):
        WordNet(tmp_path)
