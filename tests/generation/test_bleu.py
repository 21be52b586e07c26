"""BLEU against its three reference implementations on random captions (small vocabularies, so
n-grams collide), English and Korean (Kiwi tokens)."""

import math
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.generation import bleu as B

pycoco_bleu = pytest.importorskip("pycocoevalcap.bleu.bleu")
sacrebleu = pytest.importorskip("sacrebleu")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")

EN = ["a", "man", "dog", "the", "on", "riding", "red", "bike"]
KO = ["바다", "파도", "가", "하얀", "푸른", "해변", "에", "치다"]


def one_item(hyp, refs):
    """The statistics of one item, from the batch path every metric uses."""
    return B.bleu_stats_batch([hyp], [refs])[0]


def sent(vocab, min_size=0):
    return st.lists(st.sampled_from(vocab), min_size=min_size, max_size=12)


def corpus(vocab):
    item = st.tuples(sent(vocab), st.lists(sent(vocab, 1), min_size=1, max_size=5))
    return st.lists(item, min_size=1, max_size=12)


def close(a, b, tol=1e-9):
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


@pytest.mark.parametrize("vocab", [EN, KO], ids=["en", "ko"])
@given(data=st.data())
def test_coco_bleu_equals_pycocoevalcap(vocab, data):
    items = data.draw(corpus(vocab))
    gts = {i: [" ".join(r) for r in refs] for i, (_, refs) in enumerate(items)}
    res = {i: [" ".join(h)] for i, (h, _) in enumerate(items)}
    expected, expected_items = pycoco_bleu.Bleu(4).compute_score(gts, res, verbose=0)
    stats = B.bleu_stats_batch([h for h, _ in items], [r for _, r in items])
    got, got_items = B.coco_bleu(stats)
    assert all(close(a, b) for a, b in zip(got, expected))
    for k in range(4):
        assert all(close(got_items[i][k], expected_items[k][i]) for i in range(len(items)))


@pytest.mark.parametrize("vocab", [EN, KO], ids=["en", "ko"])
@given(data=st.data(), smooth=st.sampled_from(["exp", "floor", "add-k", "none"]),
       eff=st.booleans())
def test_corpus_bleu_equals_sacrebleu_on_tokens(vocab, data, smooth, eff):
    items = data.draw(corpus(vocab))
    n_refs = max(len(r) for _, r in items)
    hyps = [" ".join(h) for h, _ in items]
    streams = [[" ".join(r[j]) if j < len(r) else None for _, r in items] for j in range(n_refs)]
    expected = sacrebleu.corpus_bleu(hyps, streams, tokenize="none", smooth_method=smooth,
                                     use_effective_order=eff, force=True).score
    stats = B.merge(B.bleu_stats_batch([h for h, _ in items], [r for _, r in items]))
    assert close(B.sacrebleu_score(stats, smooth_method=smooth, effective_order=eff), expected)


@pytest.mark.parametrize("vocab", [EN, KO], ids=["en", "ko"])
@given(data=st.data(), smooth=st.sampled_from(["exp", "floor", "add-k", "none"]))
def test_breakdown_equals_sacrebleu_bleuscore(vocab, data, smooth):
    """precisions, BP, ratio and lengths are sacrebleu's BLEUScore fields."""
    items = data.draw(corpus(vocab))
    n_refs = max(len(r) for _, r in items)
    hyps = [" ".join(h) for h, _ in items]
    streams = [[" ".join(r[j]) if j < len(r) else None for _, r in items] for j in range(n_refs)]
    want = sacrebleu.corpus_bleu(hyps, streams, tokenize="none", smooth_method=smooth, force=True)
    got = B.sacrebleu_breakdown(B.merge(B.bleu_stats_batch([h for h, _ in items], [r for _, r in items])),
                                smooth_method=smooth)
    assert got["score"] == want.score and got["precisions"] == want.precisions
    assert (got["bp"], got["ratio"], got["sys_len"], got["ref_len"]) == (want.bp, want.ratio, want.sys_len,
                                                                         want.ref_len)


@given(st.lists(st.tuples(st.text("ab .,-&'\"가나", max_size=20),
                          st.lists(st.text("ab .,-&'\"가나", max_size=20), min_size=1, max_size=3)),
                min_size=1, max_size=8))
def test_corpus_bleu_13a_path_equals_sacrebleu(items):
    hyps = [h for h, _ in items]
    n_refs = max(len(r) for _, r in items)
    streams = [[r[j] if j < len(r) else None for _, r in items] for j in range(n_refs)]
    expected = sacrebleu.corpus_bleu(hyps, streams, force=True).score
    assert close(B.corpus_bleu(hyps, [r for _, r in items], tokenize="13a"), expected)


@pytest.mark.parametrize("vocab", [EN, KO], ids=["en", "ko"])
@given(data=st.data(), n=st.integers(1, 4))
def test_sentence_bleu_equals_nltk_method1(vocab, data, n):
    hyp = data.draw(sent(vocab))
    refs = data.draw(st.lists(sent(vocab, 1), min_size=1, max_size=4))
    weights = B.nltk_weights(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = nltk_bleu.sentence_bleu(refs, hyp, weights=weights,
                                           smoothing_function=nltk_bleu.SmoothingFunction().method1)
    got = B.nltk_sentence_bleu(one_item(hyp, refs), weights)
    assert close(got, expected)


def test_korean_kiwi_tokens():
    from scorekit.text.tokenizers import tokenize_batch

    hyp, ref = "파란 바다에 하얀 파도가 친다", "푸른 바다 위로 하얀 파도가 부서진다"
    h, r = tokenize_batch([hyp, ref], "kiwi")
    s = one_item(h, [r])
    # morphs match where whole eojeol do not: 바다, 하얀, 파도, 가
    assert s.correct[0] >= 4
    whitespace = one_item(hyp.split(), [ref.split()])
    assert s.correct[0] > whitespace.correct[0]
    gts, res = {0: [" ".join(r)]}, {0: [" ".join(h)]}
    assert close(B.coco_bleu([s])[0][0], pycoco_bleu.Bleu(4).compute_score(gts, res, verbose=0)[0][0])


def test_worked_example_and_edges():
    s = one_item("the cat sat on the mat".split(), ["the cat is on the mat".split()])
    assert s.correct == (5, 3, 1, 0) and s.total == (6, 5, 4, 3)
    assert B.nltk_sentence_bleu(one_item([], [["a"]])) == 0.0
    with pytest.raises(ValueError):
        one_item(["a"], [])
