"""Paired significance tests over per-query (per-item) scores, and Holm–Bonferroni correction.

All tests are two-sided and compare paired samples ``a`` and ``b`` (the same queries scored by
two systems) through the differences ``d = a - b``:

* ``"t"`` — Student's paired t-test: t = mean(d) / (sd(d) / sqrt(n)); p from t(n-1).
  Equal to ``scipy.stats.ttest_rel``.
* ``"wilcoxon"`` — Wilcoxon signed-rank (zero differences dropped, exact for small n without
  ties, normal approximation otherwise). Equal to ``scipy.stats.wilcoxon`` (its defaults).
* ``"randomization"`` — Fisher's randomization (sign-flip permutation) test on mean(d). When
  2^n <= n_resamples every sign pattern is enumerated (an exact test, equal to
  ``scipy.stats.permutation_test(..., permutation_type="samples")``); otherwise ``n_resamples``
  random sign vectors from ``numpy.random.default_rng(seed)`` with scipy's p-value formula
  p = 2 * min((#{T* <= T} + 1), (#{T* >= T} + 1)) / (R + 1), clipped to 1.
* ``"bootstrap"`` — paired bootstrap: resample queries with replacement, centre the resampled
  mean differences at 0 (the null) and count those at least as extreme as the observed mean:
  p = (#{|mean*(d) - mean(d)| >= |mean(d)|} + 1) / (B + 1)  (Efron & Tibshirani 1993, §16.4;
  Sakai 2006).

Identical samples (all d = 0) give statistic 0 and p = 1 for every test (scipy would return NaN
for t and the permutation test; "no difference" is the useful answer for comparing systems).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError

METHODS = ("t", "randomization", "wilcoxon", "bootstrap")
_ALIASES = {"student": "t", "ttest": "t", "t-test": "t", "paired-t": "t", "fisher": "randomization",
            "permutation": "randomization", "signed-rank": "wilcoxon", "paired-bootstrap": "bootstrap"}


@dataclass(frozen=True)
class TestResult:
    statistic: float
    p_value: float
    method: str

    __test__ = False  # not a pytest class


def _pair(a, b) -> np.ndarray:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ScorekitError(f"paired test needs two 1-d samples of equal length, got {a.shape} and {b.shape}")
    if a.size < 2:
        raise ScorekitError(f"paired test needs at least 2 paired items, got {a.size}")
    return a - b


def _p_two_sided(null: np.ndarray, observed: float, exact: bool) -> float:
    # scipy.stats.permutation_test's two-sided p-value, including its relative tolerance
    gamma = abs(1e-14 * observed) if observed else 1e-14
    adj = 0 if exact else 1
    less = (np.count_nonzero(null <= observed + gamma) + adj) / (null.size + adj)
    greater = (np.count_nonzero(null >= observed - gamma) + adj) / (null.size + adj)
    return float(min(1.0, 2.0 * min(less, greater)))


def _chunks(n_resamples: int, n: int):
    """``(lo, hi)`` row ranges of the resamples, about 2 M cells each (bounded memory)."""
    step = max(1, 2_000_000 // n)
    return ((lo, min(n_resamples, lo + step)) for lo in range(0, n_resamples, step))


def _randomization(d: np.ndarray, n_resamples: int, seed: int) -> TestResult:
    n, observed = d.size, float(d.mean())
    if n < 63 and 2 ** n <= n_resamples:
        codes = np.arange(2 ** n, dtype=np.int64)
        signs = 1.0 - 2.0 * ((codes[:, None] >> np.arange(n)) & 1)
        null = (signs @ d) / n
        return TestResult(observed, _p_two_sided(null, observed, exact=True), "randomization")
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    for lo, hi in _chunks(n_resamples, n):
        signs = rng.integers(0, 2, size=(hi - lo, n), dtype=np.int8) * 2 - 1
        null[lo:hi] = (signs @ d) / n
    return TestResult(observed, _p_two_sided(null, observed, exact=False), "randomization")


def normalise_method(method: str) -> str:
    m = method.strip().lower()
    m = _ALIASES.get(m, m)
    if m not in METHODS:
        raise UnknownNameError("significance test", method, METHODS)
    return m


def paired_test(a: np.ndarray, b: np.ndarray, method: str = "t", *, n_resamples: int = 10000,
                seed: int = 42) -> TestResult:
    """Two-sided paired test of ``a`` vs ``b`` (see the module docstring for each method)."""
    method = normalise_method(method)
    if n_resamples < 1:
        raise ScorekitError(f"n_resamples must be a positive integer, got {n_resamples}")
    d = _pair(a, b)
    if not np.any(d):
        return TestResult(0.0, 1.0, method)
    if method in ("t", "wilcoxon"):
        from scipy import stats

        res = stats.ttest_rel(d, np.zeros_like(d)) if method == "t" else stats.wilcoxon(d)
        return TestResult(float(res.statistic), float(res.pvalue), method)
    if method == "randomization":
        return _randomization(d, n_resamples, seed)
    # the paired bootstrap
    observed, rng, means = float(d.mean()), np.random.default_rng(seed), np.empty(n_resamples)
    for lo, hi in _chunks(n_resamples, d.size):
        means[lo:hi] = d[rng.integers(0, d.size, size=(hi - lo, d.size))].mean(axis=1)
    extreme = np.count_nonzero(np.abs(means - observed) >= abs(observed) - 1e-14 * abs(observed))
    return TestResult(observed, float((extreme + 1) / (n_resamples + 1)), "bootstrap")


def holm_bonferroni(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values: sort ascending, p'_(i) = max_{j<=i} min(1,
    (m - j + 1) p_(j)); returned in the input order (equal to statsmodels' ``multipletests(...,
    method="holm")``). NaN p-values are passed through and do not count towards m."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())   # (none: out stays all NaN)
    pv = p[ok]
    order = np.argsort(pv, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * pv[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    out[ok] = adjusted
    return out


def unpaired_test(a: np.ndarray, b: np.ndarray, *, n_resamples: int = 10000, seed: int = 42) -> TestResult:
    """Two-sided two-sample permutation test of mean(a) - mean(b), for samples that are not
    paired (two topic models' topics): the pooled values are relabelled at random ``n_resamples``
    times (``numpy.random.default_rng(seed)``) and p is scipy's two-sided p-value,
    p = 2 * min(#{T* <= T} + 1, #{T* >= T} + 1) / (R + 1), clipped to 1 (as ``"randomization"``;
    ``scipy.stats.permutation_test(..., permutation_type="independent")``)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1 or a.size < 1 or b.size < 1:
        raise ScorekitError(f"unpaired test needs two non-empty 1-d samples, got {a.shape} and {b.shape}")
    if n_resamples < 1:
        raise ScorekitError(f"n_resamples must be a positive integer, got {n_resamples}")
    observed = float(a.mean() - b.mean())
    pooled = np.concatenate([a, b])
    if np.all(pooled == pooled[0]):
        return TestResult(0.0, 1.0, "permutation")
    rng = np.random.default_rng(seed)
    perm = rng.permuted(np.broadcast_to(pooled, (n_resamples, pooled.size)), axis=1)
    null = perm[:, :a.size].mean(axis=1) - perm[:, a.size:].mean(axis=1)
    return TestResult(observed, _p_two_sided(null, observed, exact=False), "permutation")
