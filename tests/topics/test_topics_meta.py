"""Meta-evaluation: correlations of per-topic metrics with ratings, discrimination, grid searches."""

import numpy as np
import pytest
import scipy.stats as st_

from scorekit.topics.meta import (
    GAMMAS, THRESHOLDS, correlate_metrics, discrimination_range, discrimination_ratio, gamma_grid,
    rater_reliability, threshold_grid,
)
from scorekit.topics.semantic import SemanticParams, semantic_coherence, semantic_distinctiveness_all


def test_discrimination_range_and_ratio():
    # the spec's "15.3% range vs 2.5% for the statistical method = 6.12x"
    assert discrimination_range([0.40, 0.553, 0.45]) == pytest.approx(15.3)
    assert discrimination_range([0.100, 0.125]) == pytest.approx(2.5)
    assert discrimination_ratio([0.40, 0.553], [0.100, 0.125]) == pytest.approx(6.12)
    assert np.isnan(discrimination_range([0.3]))
    assert discrimination_range([0.1, np.nan, 0.2]) == pytest.approx(10.0)


def test_correlate_metrics_uses_rated_topics_only():
    sc = np.array([0.1, 0.5, 0.2, 0.9, 0.4])
    rated = np.array([0, 1, 3, 4])
    rating = np.array([1.0, 3.0, 5.0, 2.0])
    rows = correlate_metrics({"sc": sc}, rating, rated, n_resamples=100)
    by = {r["method"]: r for r in rows}
    assert by["pearson"]["statistic"] == pytest.approx(st_.pearsonr(sc[rated], rating)[0])
    assert by["kendall"]["statistic"] == pytest.approx(st_.kendalltau(sc[rated], rating)[0])
    assert by["spearman"]["n"] == 4


def test_rater_reliability():
    assert rater_reliability(np.array([[1.0], [2.0]])) is None
    got = rater_reliability(np.array([[1, 2], [3, 3], [5, 4], [np.nan, 1]]))
    assert set(got) >= {"ICC(2,1)", "ICC(3,1)"}


def _data(seed=0, t=12, n=6, d=16):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(25)]
    topics = [list(rng.choice(vocab, n, replace=False)) for _ in range(t)]
    table = {w: rng.normal(size=d) + 1.5 for w in vocab}
    return topics, [np.stack([table[w] for w in tp]) for tp in topics], rng


def test_gamma_grid_matches_direct_computation():
    topics, vectors, rng = _data()
    centres = np.stack([v.mean(axis=0) for v in vectors])
    rated = np.arange(0, 12, 2)
    rating = rng.random(rated.size)
    rows = gamma_grid(centres, topics, rating=rating, rated=rated)
    assert [r.value for r in rows] == list(GAMMAS)
    for r in rows:
        d = semantic_distinctiveness_all(centres, topics, gamma=r.value)
        assert r.mean == pytest.approx(d.vd)
        assert r.correlation == pytest.approx(st_.pearsonr(d.per_topic[rated], rating)[0])
        assert r.discrimination == pytest.approx(100 * np.ptp(d.per_topic))
    assert sum(r.selected for r in rows) == 1
    best = max(rows, key=lambda r: r.correlation)
    assert best.selected


def test_threshold_grid_selects_largest_discrimination():
    topics, vectors, _ = _data(1)
    rows = threshold_grid(vectors)
    assert [r.value for r in rows] == list(THRESHOLDS)
    for r in rows:
        sc = semantic_coherence(vectors, params=SemanticParams(threshold_edge=r.value)).sc
        assert r.discrimination == pytest.approx(100 * np.ptp(sc))
        assert r.correlation is None
    assert max(rows, key=lambda r: r.discrimination).selected
