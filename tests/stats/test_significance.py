"""Paired tests equal scipy where scipy has the test; Holm equals its textbook definition."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.stats.significance import holm_bonferroni, paired_test

pairs = st.integers(3, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 8).map(lambda v: v / 8), min_size=n, max_size=n),
    st.lists(st.integers(0, 8).map(lambda v: v / 8), min_size=n, max_size=n)))


def _nonconstant(a, b):
    d = np.asarray(a) - np.asarray(b)
    return np.any(d) and np.ptp(d) > 0


@settings(max_examples=60)
@given(pairs)
def test_t_equals_scipy_ttest_rel(ab):
    a, b = ab
    if not _nonconstant(a, b):
        return
    ours, ref = paired_test(a, b, "t"), stats.ttest_rel(a, b)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-300)


@settings(max_examples=60)
@given(pairs)
def test_wilcoxon_equals_scipy(ab):
    a, b = ab
    if not np.any(np.asarray(a) - np.asarray(b)):
        return
    ours, ref = paired_test(a, b, "wilcoxon"), stats.wilcoxon(a, b)
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def _mean_diff(x, y, axis):
    return np.mean(x - y, axis=axis)


@settings(max_examples=30)
@given(st.integers(3, 10).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=n, max_size=n),
    st.lists(st.floats(0, 1, allow_nan=False), min_size=n, max_size=n))))
def test_exact_randomization_equals_scipy_permutation_test(ab):
    a, b = map(np.asarray, ab)
    if not np.any(a - b):
        return
    ours = paired_test(a, b, "randomization", n_resamples=10000)
    ref = stats.permutation_test((a, b), _mean_diff, permutation_type="samples", vectorized=True,
                                 n_resamples=10000)  # 2^n <= 10000: scipy enumerates too
    assert ours.statistic == pytest.approx(ref.statistic, abs=1e-15)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def test_sampled_randomization_and_bootstrap_are_seeded_and_near_the_exact_p():
    rng = np.random.default_rng(3)
    a = rng.random(40)
    b = a - 0.04 + rng.normal(0, 0.1, 40)
    t = stats.ttest_rel(a, b).pvalue
    r1 = paired_test(a, b, "randomization", n_resamples=20000, seed=7)
    r2 = paired_test(a, b, "randomization", n_resamples=20000, seed=7)
    assert r1 == r2
    assert r1.p_value == pytest.approx(t, abs=0.02)  # randomization ~ t for n=40
    boot = paired_test(a, b, "bootstrap", n_resamples=20000, seed=7)
    assert boot == paired_test(a, b, "bootstrap", n_resamples=20000, seed=7)
    assert boot.p_value == pytest.approx(t, abs=0.03)
    assert paired_test(a, b, "bootstrap", seed=8) != boot


def test_identical_systems_are_not_different():
    a = [0.1, 0.5, 0.9]
    for m in ("t", "randomization", "wilcoxon", "bootstrap"):
        assert paired_test(a, a, m).p_value == 1.0


def test_bad_arguments():
    with pytest.raises(UnknownNameError, match="did you mean 'wilcoxon'"):
        paired_test([1, 2], [2, 1], "wilcoxn")
    with pytest.raises(ScorekitError, match="equal length"):
        paired_test([1, 2, 3], [1, 2], "t")
    with pytest.raises(ScorekitError, match="at least 2"):
        paired_test([1], [2], "t")


def _holm_reference(p):
    """Textbook Holm: reject in ascending order while p_(i) <= alpha / (m - i); the adjusted
    p-value is the smallest alpha at which H_(i) is rejected."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adj = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


@settings(max_examples=60)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=12))
def test_holm_equals_definition(p):
    assert holm_bonferroni(p) == pytest.approx(_holm_reference(p), abs=1e-15)


def test_holm_worked_example():
    # m = 4: sorted 0.01, 0.02, 0.03, 0.04 -> 0.04, 0.06, 0.06, 0.06
    np.testing.assert_allclose(holm_bonferroni([0.03, 0.01, 0.04, 0.02]), [0.06, 0.04, 0.06, 0.06])
    # rejection decisions match the sequential procedure at alpha = 0.05
    for p in itertools.permutations([0.001, 0.013, 0.02, 0.5]):
        assert sorted(holm_bonferroni(list(p)) < 0.05) == sorted(np.array(_holm_reference(list(p))) < 0.05)
