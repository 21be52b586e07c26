"""Significance of a difference in a **corpus** score (BLEU, CIDEr, chrF), sacrebleu's way: the
score is recomputed from merged per-item statistics on every resample, never averaged over items.

* :func:`paired_bootstrap` — sacrebleu ``paired_bs``: B resamples of the item indices with
  replacement (``numpy.random.default_rng(seed).choice(n, (B, n))``), both systems scored on each;
  with ``d*_b = |score_sys(b) - score_base(b)|`` centred at its mean, p = (#{d*_b - mean(d*) >
  |score_sys - score_base|} + 1) / (B + 1); also the system's mean and 95% CI over the resamples.
* :func:`approximate_randomization` — sacrebleu ``paired_ar``: R trials, each swapping every
  item's statistics between the systems with probability 1/2 (``rng.integers(2, (R, n))``);
  p = (#{|score(A*) - score(B*)| > |score_sys - score_base|} + 1) / (R + 1).

Both take a :class:`scorekit.metrics.Metric` and two :class:`scorekit.metrics.Stats` with one row
per item, the same items in the same order. One departure from sacrebleu: equal scores give p = 1
(sacrebleu's strict ``>`` gives its smallest p, 1/(B+1), to a system compared with itself).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.metrics.base import Metric, Stats


@dataclass(frozen=True)
class CorpusTestResult:
    baseline: float
    system: float
    p_value: float
    method: str
    mean: float | None = None     # bootstrap: the system's mean score over resamples
    ci: float | None = None       # bootstrap: half-width of its 95% interval
    __test__ = False


def _p(null: np.ndarray, observed: float) -> float:
    # no observed difference: p = 1 (sacrebleu's strict ">" would give its smallest p, 1/(B+1))
    return 1.0 if observed == 0 else float((np.sum(null > observed) + 1) / (len(null) + 1))


def _start(metric: Metric, key: str, base: Stats, system: Stats, seed: int | None):
    """The number of items, the seeded generator and both systems' scores."""
    if len(base) != len(system):
        raise ScorekitError(f"paired test needs the same items: {len(base)} vs {len(system)}")
    if len(base) == 0:
        raise ScorekitError("paired test needs at least one item")
    rng = np.random.default_rng(seed)
    return len(base), rng, metric.score(base)[key], metric.score(system)[key]


def paired_bootstrap(metric: Metric, key: str, base: Stats, system: Stats, *, n_resamples: int = 1000,
                     seed: int | None = 12345) -> CorpusTestResult:
    n, rng, score_base, score_sys = _start(metric, key, base, system, seed)
    idxs = rng.choice(n, size=(n_resamples, n), replace=True)
    s_base = np.array([metric.score(base.take(i))[key] for i in idxs])
    s_sys = np.array([metric.score(system.take(i))[key] for i in idxs])
    diffs = np.abs(s_sys - s_base)
    p = _p(diffs - diffs.mean(), abs(score_base - score_sys))
    ci = float(1.96 * s_sys.std(ddof=1)) if n_resamples > 1 else 0.0   # sacrebleu estimate_ci
    return CorpusTestResult(score_base, score_sys, p, "paired-bootstrap", float(s_sys.mean()), ci)


def approximate_randomization(metric: Metric, key: str, base: Stats, system: Stats, *,
                              n_resamples: int = 10000, seed: int | None = 12345) -> CorpusTestResult:
    n, rng, score_base, score_sys = _start(metric, key, base, system, seed)
    pos = rng.integers(2, size=(n_resamples, n), dtype=bool)
    both, rows = Stats.concat([base, system]), np.arange(n)
    null = np.empty(n_resamples)
    for t, sel in enumerate(pos):
        a = metric.score(both.take(np.where(sel, rows, rows + n)))[key]
        b = metric.score(both.take(np.where(sel, rows + n, rows)))[key]
        null[t] = abs(a - b)
    return CorpusTestResult(score_base, score_sys, _p(null, abs(score_base - score_sys)), "approximate-randomization")

