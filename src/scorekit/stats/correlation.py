"""Correlation with human/LLM ratings and inter-rater reliability (topic-metrics.md §5).

* :func:`pearson`, :func:`spearman` (Pearson of average ranks), :func:`kendall` (tau-b, tie
  corrected) — equal to ``scipy.stats.pearsonr`` / ``spearmanr`` / ``kendalltau`` statistics;
  the p-values are scipy's (two-sided).
* :func:`correlate`: all three, each with a seeded percentile bootstrap CI: ``n_resamples``
  resamples of the (x, y) pairs with replacement (``numpy.random.default_rng(seed)``), the CI is
  the ``(1 ± confidence)/2`` quantiles of the resampled statistics; resamples where a statistic
  is undefined (a constant resample) are left out. Vectorised over resamples.
* :func:`icc`: intraclass correlations of Shrout & Fleiss (1979) from the two-way ANOVA of an
  ``(n targets, k raters)`` table — ICC(1,1) one-way random; ICC(2,1) two-way random, absolute
  agreement; ICC(3,1) two-way mixed, consistency; and their k-rater averages ICC(1,k), ICC(2,k),
  ICC(3,k) (pingouin's ICC1 … ICC3k). The spec's "ICC = 0.89" names no form; we report all six and
  use ICC(2,1) as the headline (raters are a sample of possible raters; agreement, not only
  consistency, matters).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError

METHODS = ("pearson", "spearman", "kendall")


def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ScorekitError(f"correlation needs two equal-length vectors, got {a.shape} and {b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ScorekitError("correlation inputs must be finite numbers")
    return a, b


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair of (B, n) arrays; NaN where a row is constant."""
    xc, yc = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    # scale first (as scipy does) so huge/tiny magnitudes do not overflow
    xn, yn = np.linalg.norm(xc, axis=-1, keepdims=True), np.linalg.norm(yc, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = ((xc / xn) * (yc / yn)).sum(axis=-1)
    return np.clip(r, -1.0, 1.0)


def _rank_rows(x: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(x, axis=-1)  # average ranks for ties, as spearmanr


def _kendall_rows(x: np.ndarray, y: np.ndarray, chunk_elems: int = 4_000_000) -> np.ndarray:
    """Kendall tau-b of each row pair: ``Σ sign(dx) sign(dy) / sqrt(#untied-x * #untied-y)`` over
    pairs i < j (O(n²) per row, in chunks of rows)."""
    b, n = x.shape
    iu, ju = np.triu_indices(n, 1)
    out = np.empty(b)
    step = max(1, chunk_elems // max(iu.size, 1))
    for s in range(0, b, step):
        xs, ys = x[s:s + step], y[s:s + step]
        sx = np.sign(xs[:, iu] - xs[:, ju])
        sy = np.sign(ys[:, iu] - ys[:, ju])
        num = (sx * sy).sum(axis=1)
        den = np.sqrt(np.count_nonzero(sx, axis=1).astype(np.float64) * np.count_nonzero(sy, axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[s:s + step] = num / den
    return out


def _one(method: str, x, y) -> float:
    a, b = _pair(x, y)
    return float(_statistic_rows(method, a[None], b[None])[0]) if a.size >= 2 else float("nan")


pearson, spearman, kendall = (functools.partial(_one, m) for m in METHODS)


def _statistic_rows(method: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if method == "spearman":
        x, y, method = _rank_rows(x), _rank_rows(y), "pearson"
    return _pearson_rows(x, y) if method == "pearson" else _kendall_rows(x, y)


def _p_value(method: str, x: np.ndarray, y: np.ndarray) -> float:
    import warnings

    from scipy import stats

    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method]
    with warnings.catch_warnings(action="ignore"):
        try:
            return float(fn(x, y)[1])
        except ValueError:
            return float("nan")


@dataclass(frozen=True)
class Correlation:
    method: str
    statistic: float
    p_value: float
    low: float
    high: float
    n: int
    confidence: float


def correlate(x, y, methods: Sequence[str] = METHODS, *, n_resamples: int = 1000,
              confidence: float = 0.95, seed: int = 42) -> dict[str, Correlation]:
    """Each requested correlation of ``x`` with ``y`` with its bootstrap CI (see module doc)."""
    a, b = _pair(x, y)
    for m in methods:
        if m not in METHODS:
            raise UnknownNameError("correlation", m, METHODS)
    if not 0 < confidence < 1:
        raise ScorekitError(f"confidence must be between 0 and 1, got {confidence}")
    n, nan = a.size, float("nan")
    if n < 2:
        return {m: Correlation(m, nan, nan, nan, nan, n, confidence) for m in methods}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n)) if n_resamples > 0 else None
    q = [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]
    out: dict[str, Correlation] = {}
    for m in methods:
        stat = float(_statistic_rows(m, a[None], b[None])[0])
        low = high = nan
        if idx is not None:
            boot = _statistic_rows(m, a[idx], b[idx])
            boot = boot[np.isfinite(boot)]
            if boot.size:
                low, high = (float(v) for v in np.quantile(boot, q))
        out[m] = Correlation(m, stat, _p_value(m, a, b), low, high, n, confidence)
    return out


# --- intraclass correlation -------------------------------------------------------------------------

ICC_FORMS = ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)")


def icc(ratings) -> dict[str, float]:
    """All six Shrout-Fleiss ICCs of an ``(n targets, k raters)`` table (no missing values).

    With mean squares of the two-way ANOVA — rows ``MSR``, columns ``MSC``, residual ``MSE`` and
    within-target ``MSW``::

        ICC(1,1) = (MSR - MSW) / (MSR + (k-1) MSW)
        ICC(2,1) = (MSR - MSE) / (MSR + (k-1) MSE + k (MSC - MSE) / n)
        ICC(3,1) = (MSR - MSE) / (MSR + (k-1) MSE)
        ICC(1,k) = (MSR - MSW) / MSR
        ICC(2,k) = (MSR - MSE) / (MSR + (MSC - MSE) / n)
        ICC(3,k) = (MSR - MSE) / MSR
    """
    x = np.asarray(ratings, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ScorekitError(f"ICC needs at least 2 targets rated by at least 2 raters, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ScorekitError("ICC needs every target rated by every rater (missing values found)")
    n, k = x.shape
    grand = x.mean()
    ss_total = ((x - grand) ** 2).sum()
    ss_rows = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_err = ss_total - ss_rows - ss_cols
    msr = ss_rows / (n - 1)
    msc = ss_cols / (k - 1)
    mse = ss_err / ((n - 1) * (k - 1))
    msw = (ss_total - ss_rows) / (n * (k - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = [
            (msr - msw) / (msr + (k - 1) * msw),
            (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
            (msr - mse) / (msr + (k - 1) * mse),
            (msr - msw) / msr,
            (msr - mse) / (msr + (msc - mse) / n),
            (msr - mse) / msr,
        ]
    return {form: float(v) for form, v in zip(ICC_FORMS, vals)}


__all__ = ["Correlation", "ICC_FORMS", "METHODS", "correlate", "icc", "kendall", "pearson", "spearman"]
