"""English METEOR against nltk.translate.meteor_score (the oracle) on the same tokens, with nltk's
WordNet reader pointed at the same Debian WordNet 3.0 files scorekit reads directly."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from scorekit.errors import InputError, UnknownNameError
from scorekit.generation.meteor import meteor, meteor_batch, meteor_signature, score_from_counts
from scorekit.signature import parse_signature
from scorekit.text.wordnet import export_for_nltk

nltk = pytest.importorskip("nltk")
WN_DIR = Path("/usr/share/wordnet")
pytestmark = pytest.mark.skipif(not (WN_DIR / "index.noun").exists(), reason="wordnet-base not installed")



@pytest.fixture(scope="session")
def nltk_meteor(tmp_path_factory):
    """nltk's meteor_score, its WordNet read from a copy of Debian's files plus a lexnames file."""
    root = export_for_nltk(tmp_path_factory.mktemp("nltk_data"), WN_DIR)
    nltk.data.path.insert(0, str(root))
    from nltk.corpus import wordnet as wn
    from nltk.translate.meteor_score import meteor_score

    assert wn.synsets("dog")[0].name() == "dog.n.01"  # loads without omw-1.4: English needs none
    return meteor_score


# Caption-like words rich in stems, inflections, exception forms and WordNet synonyms; a few
# capitalised to exercise the lower-casing.
VOCAB = """a the an of on in with and is are was dog dogs Dog canine hound puppy run running runs ran
race sprint car cars automobile auto machine big large bigger biggest great small little tiny man
men woman women person people child children kid kids house home houses building walk walking walks
walked go went going see saw seen look looking looks watch happy glad beautiful pretty sea ocean beach
shore wave waves street road city town geese goose better good well best red Blue quick fast quickly
jump jumped leap sit sitting sat field grass ball play playing plays picture photo image tree trees
water river stream boat ship sky cloud mountain hill ride riding bike bicycle eat eating food table
stand standing near next young old boy boys girl girls""".split()


def _sentence(rng: random.Random, lo=0, hi=14):
    return [rng.choice(VOCAB) for _ in range(rng.randint(lo, hi))]


def _related(rng: random.Random, hyp: list[str]) -> list[str]:
    """A reference sharing words with the hypothesis, shuffled and with substitutions."""
    ref = [w if rng.random() < 0.6 else rng.choice(VOCAB) for w in hyp]
    rng.shuffle(ref) if rng.random() < 0.3 else None
    return ref + _sentence(rng, 0, 4) if ref else _sentence(rng, 1, 8)


def test_nltk_docstring_examples(nltk_meteor):
    h1 = "It is a guide to action which ensures that the military always obeys the commands of the party".split()
    h2 = "It is to insure the troops forever hearing the activity guidebook that party direct".split()
    refs = ["It is a guide to action that ensures that the military will forever heed Party commands".split(),
            "It is the guiding principle which guarantees the military forces always being under the command of the Party".split(),
            "It is the practical guide for the army always to heed the directions of the party".split()]
    assert round(meteor(h1, refs), 4) == 0.6944
    for h in (h1, h2):
        for r in [*[[x] for x in refs], refs]:
            assert meteor(h, r) == nltk_meteor(r, h)
    assert meteor(["non", "matching", "hypothesis"], [["this", "is", "a", "cat"]]) == 0.0


def test_random_corpus_equals_nltk_and_fires_every_stage(nltk_meteor):
    rng = random.Random(2024)
    preds, refs = [], []
    for _ in range(1500):
        hyp = _sentence(rng)
        preds.append(hyp)
        refs.append([_related(rng, hyp) for _ in range(rng.randint(1, 5))])
    ours = meteor_batch(preds, refs)
    theirs = np.array([nltk_meteor(r, p) for p, r in zip(preds, refs)])
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)

    # not vacuous: the stem stage and the synonym stage change many scores
    class NoSynonyms:
        synonyms = staticmethod(lambda w: frozenset((w,)))

    no_syn = meteor_batch(preds, refs, wordnet=NoSynonyms())
    assert (no_syn < ours).sum() > 50
    stem_only = [meteor(["dogs"], [["dog"]]), meteor(["running"], [["runs"]])]
    assert stem_only == [nltk_meteor([["dog"]], ["dogs"]), nltk_meteor([["runs"]], ["running"])] == [0.5, 0.5]
    assert meteor(["car"], [["auto"]]) == 0.5 == nltk_meteor([["auto"]], ["car"])
    # nltk's quirk, reproduced: the synonym stage looks up the *stem* ("automobil"), so it misses
    assert meteor(["automobile"], [["car"]]) == 0.0 == nltk_meteor([["car"]], ["automobile"])


words = st.sampled_from(VOCAB)


@given(hyp=st.lists(words, max_size=16),
       refs=st.lists(st.lists(words, max_size=16), min_size=1, max_size=5),
       alpha=st.sampled_from([0.9, 0.5, 0.75]), beta=st.sampled_from([3.0, 2.0]),
       gamma=st.sampled_from([0.5, 0.25]))
def test_hypothesis_equals_nltk(nltk_meteor, hyp, refs, alpha, beta, gamma):
    ours = meteor(hyp, refs, alpha=alpha, beta=beta, gamma=gamma)
    assert abs(ours - nltk_meteor(refs, hyp, alpha=alpha, beta=beta, gamma=gamma)) <= 1e-12


@given(hyp=st.lists(words, min_size=1, max_size=12), data=st.data())
def test_permuted_and_repeated_words_equal_nltk(nltk_meteor, hyp, data):
    """Repeated words and reorderings stress the greedy order (last hypothesis word first)."""
    ref = data.draw(st.permutations(hyp + hyp[: len(hyp) // 2]))
    assert meteor(hyp, [list(ref)]) == nltk_meteor([list(ref)], hyp)


def test_strings_are_whitespace_tokenised(nltk_meteor):
    assert meteor("A dog is running", ["the dogs ran", "a  dog\truns"]) == nltk_meteor(
        [["the", "dogs", "ran"], ["a", "dog", "runs"]], ["A", "dog", "is", "running"])


def test_formula_and_spec_numbers():
    # spec §2.2 prints P = 4/7, R = 4/6, 2 chunks of 4 matches: penalty 0.0625 (as printed) but
    # Fmean = 0.6557 and METEOR = 0.6148 — the spec's 0.64 / 0.60 are arithmetic slips.
    p, r = 4 / 7, 4 / 6
    assert round(p * r / (0.9 * p + 0.1 * r), 4) == 0.6557
    assert 0.5 * (2 / 4) ** 3 == 0.0625
    s = score_from_counts(4, 7, 6, 2)
    assert round(s, 4) == 0.6148
    assert score_from_counts(0, 3, 3, 0) == 0.0 and score_from_counts(1, 0, 3, 1) == 0.0


def test_empty_and_bad_inputs():
    assert meteor([], [["a", "dog"]]) == 0.0 and meteor("", ["a dog"]) == 0.0
    assert meteor_batch([["a"], ["b"]], [[["a"]], [[], ["b"]]]).tolist() == [0.5, 0.5]
    with pytest.raises(InputError, match="empty reference list"):
        meteor_batch([["a"]], [[]])
    with pytest.raises(InputError, match="2 predictions but 1"):
        meteor_batch(["a", "b"], [["a"]])
    with pytest.raises(InputError, match="item 0 prediction"):
        meteor_batch([[1, 2]], [["a"]])
    with pytest.raises(UnknownNameError, match="did you mean 'en'"):
        meteor("a", ["a"], lang="eng")


def test_signature():
    sig = parse_signature(meteor_signature(tokenizer="coco"))
    assert sig["task"] == "meteor" and sig["alpha"] == "0.9" and sig["synonyms"] == "wordnet-3.0"
    assert sig["tok"] == "coco" and sig["stem"].startswith("porter-nltk")
