"""Corpus-score significance: sacrebleu's paired bootstrap and approximate randomization on
merged per-item statistics."""

import numpy as np
import pytest

from scorekit.generation.chrf import ChrF
from scorekit.generation.cider import CIDErD
from scorekit.stats.corpus_tests import approximate_randomization, paired_bootstrap

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.significance import _paired_ar_test, _paired_bs_test  # noqa: E402

rng = np.random.default_rng(0)
VOCAB = "a man dog cat rides runs the wave park on in 고양이가 소파 위에서 잔다".split()


def sent(k):
    return " ".join(rng.choice(VOCAB, size=k))


REFS = [[sent(6)] for _ in range(40)]
BASE = [sent(5) for _ in range(40)]
SYS = [r[0] if i % 3 else sent(5) for i, r in enumerate(REFS)]


def _sacre(test, n):
    m = sacrebleu.CHRF()
    streams = [[r[0] for r in REFS]]
    bl_stats = m._extract_corpus_statistics(BASE, streams)
    info = {"chrF2": (bl_stats, m._aggregate_and_compute(bl_stats))}
    return test(info, "sys", SYS, streams, {"chrF2": m}, n_samples=n, seed=7)[1]["chrF2"]


def test_paired_bootstrap_equals_sacrebleu_on_chrf():
    m = ChrF()
    res = paired_bootstrap(m, "chrf", m.item_stats((BASE, REFS)), m.item_stats((SYS, REFS)),
                           n_resamples=300, seed=7)
    want = _sacre(_paired_bs_test, 300)
    assert res.system * 100 == pytest.approx(want.score, rel=1e-12)
    assert abs(res.p_value - want.p_value) <= 2 / 301   # only ties at the x100 scale may differ
    assert res.mean * 100 == pytest.approx(want.mean, rel=1e-6)


def test_approximate_randomization_equals_sacrebleu_on_chrf():
    m = ChrF()
    res = approximate_randomization(m, "chrf", m.item_stats((BASE, REFS)), m.item_stats((SYS, REFS)),
                                    n_resamples=300, seed=7)
    want = _sacre(_paired_ar_test, 300)
    assert abs(res.p_value - want.p_value) <= 2 / 301 and res.p_value < 0.05


def test_bootstrap_recomputes_the_corpus_score_like_a_direct_implementation():
    """CIDEr's idf is a corpus statistic: each resample's score must equal scoring the resampled
    texts from scratch."""
    preds, refs = ["a man rides a wave", "a dog runs", "a cat on a sofa", "the park"], \
        [["a man riding a wave"], ["the dog runs in the park"], ["a cat sleeps on a sofa"], ["a park"]]
    other = ["a man on a wave", "dog", "a cat sofa", "the park in"]
    m = CIDErD()
    sa, sb = m.item_stats((preds, refs)), m.item_stats((other, refs))
    res = paired_bootstrap(m, "cider_d", sa, sb, n_resamples=30, seed=1)
    idxs = np.random.default_rng(1).choice(4, size=(30, 4), replace=True)
    direct_a = np.array([m(([preds[i] for i in ix], [refs[i] for i in ix]))["cider_d"] for ix in idxs])
    direct_b = np.array([m(([other[i] for i in ix], [refs[i] for i in ix]))["cider_d"] for ix in idxs])
    d = np.abs(direct_b - direct_a)
    want = (np.sum(d - d.mean() > abs(res.baseline - res.system)) + 1) / 31
    assert res.p_value == want and res.mean == pytest.approx(direct_b.mean(), rel=1e-12)


def test_identical_systems_are_not_significant():
    m = ChrF()
    s = m.item_stats((BASE, REFS))
    assert paired_bootstrap(m, "chrf", s, s, n_resamples=200).p_value > 0.5
    assert approximate_randomization(m, "chrf", s, s, n_resamples=200).p_value == 1.0
