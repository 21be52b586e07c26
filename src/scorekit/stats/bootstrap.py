"""Percentile bootstrap confidence intervals for a mean (seeded, vectorised)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def bootstrap_mean_ci(values: Sequence[float] | np.ndarray, *, n_resamples: int = 1000,
                      confidence: float = 0.95, seed: int = 42) -> tuple[float, float, float]:
    """Return ``(mean, low, high)``: the sample mean and its percentile bootstrap CI.

    Resamples items with replacement ``n_resamples`` times; the interval is the
    ``(1-confidence)/2`` and ``(1+confidence)/2`` quantiles of the resampled means. One value (or
    all equal) gives a zero-width interval; an empty input gives NaNs.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    if x.size == 1:
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n_resamples, x.size))
    means = x[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return mean, float(low), float(high)
