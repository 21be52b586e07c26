"""Meta-evaluation of topic metrics (topic-metrics.md §5; docs/topics.md, "Spec quirks" 7-8):
agreement with human/LLM ratings (:func:`correlate_metrics`: Pearson, Spearman, Kendall τ-b with
seeded bootstrap CIs), rater reliability (:func:`rater_reliability`: the six Shrout-Fleiss ICCs),
the spec's undefined "판별력 / discrimination" read as ``100 * (max - min)`` of a metric over the
topics (:func:`discrimination_range`; "x times" the ratio of two), and the spec's two grid
searches (:func:`gamma_grid`: SD's γ over 0.5..0.9, best r selected; :func:`threshold_grid`:
``threshold_edge`` over 0.20..0.40, largest discrimination selected).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from scorekit.metrics.registry import declare
from scorekit.stats.correlation import METHODS, correlate, icc
from scorekit.topics.semantic import SemanticParams, semantic_coherence, semantic_distinctiveness_all

for _key, _doc in (("rating", "Human/LLM rating of the topic, as read from the ratings file."),
                   ("icc", "Intraclass correlations (Shrout-Fleiss ICC(1,1)..ICC(3,k)) of the raters; agreement."),
                   ("pearson", "Pearson correlation of a per-topic metric with the ratings."),
                   ("spearman", "Spearman correlation of a per-topic metric with the ratings."),
                   ("kendall", "Kendall tau-b of a per-topic metric with the ratings.")):
    declare("topics", _key, kind="score", doc=_doc)   # what the meta-evaluation writes

GAMMAS = (0.5, 0.6, 0.7, 0.8, 0.9)
THRESHOLDS = (0.20, 0.25, 0.30, 0.35, 0.40)


def discrimination_range(values: Sequence[float]) -> float:
    """``100 * (max - min)`` of the finite values (percentage points); NaN with fewer than two."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    return float(100.0 * (v.max() - v.min())) if v.size >= 2 else float("nan")


def discrimination_ratio(values: Sequence[float], baseline: Sequence[float]) -> float:
    """How many times wider ``values`` spread than ``baseline`` (the spec's "6.12x")."""
    a, b = discrimination_range(values), discrimination_range(baseline)
    return a / b if b and np.isfinite(b) else float("nan")


def correlate_metrics(per_topic: Mapping[str, np.ndarray], rating: np.ndarray, rated: np.ndarray, *,
                      methods: Sequence[str] = METHODS, n_resamples: int = 1000,
                      confidence: float = 0.95, seed: int = 42) -> list[dict[str, object]]:
    """One row per (metric, method): statistic, CI, p-value over the rated topics.

    ``per_topic[m]`` holds the metric for every topic; ``rated`` indexes the rated ones and
    ``rating`` their mean score. Topics where the metric is undefined (NaN) are left out.
    """
    rows = []
    for metric, values in per_topic.items():
        x = np.asarray(values, dtype=np.float64)[rated]
        ok = np.isfinite(x) & np.isfinite(rating)
        res = correlate(x[ok], rating[ok], methods, n_resamples=n_resamples,
                        confidence=confidence, seed=seed)
        for method, c in res.items():
            rows.append({"metric": metric, "method": method, "statistic": c.statistic,
                         "low": c.low, "high": c.high, "p_value": c.p_value, "n": c.n})
    return rows


def rater_reliability(matrix: np.ndarray) -> dict[str, float] | None:
    """ICCs of a complete ``(topics, raters)`` table with at least two raters, else None."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[1] < 2:
        return None
    complete = m[np.isfinite(m).all(axis=1)]
    return icc(complete) if complete.shape[0] >= 2 else None


@dataclass(frozen=True)
class GridRow:
    value: float
    correlation: float | None     # Pearson r with the mean rating (None without ratings)
    discrimination: float         # 100 * (max - min) of the per-topic metric
    mean: float                   # VD (γ grid) or mean SC (threshold grid)
    selected: bool = False

    def as_dict(self) -> dict[str, object]:
        return {"value": self.value, "r": self.correlation, "discrimination_pct": self.discrimination,
                "mean": self.mean, "selected": self.selected}


def _select(rows: list[GridRow], by_correlation: bool) -> list[GridRow]:
    key = [(r.correlation if by_correlation else r.discrimination) for r in rows]
    key = [k if k is not None and np.isfinite(k) else -np.inf for k in key]
    best = int(np.argmax(key)) if rows else -1
    return [replace(r, selected=(i == best and np.isfinite(key[best]))) for i, r in enumerate(rows)]


def _row(value: float, per_topic: np.ndarray, mean: float, rating, rated) -> GridRow:
    r = None if rating is None or rated is None else \
        float(correlate(per_topic[rated], rating, ("pearson",), n_resamples=0)["pearson"].statistic)
    return GridRow(float(value), r, discrimination_range(per_topic), mean)


def gamma_grid(topic_vectors: np.ndarray, topics: Sequence[Sequence[str]], *,
               rating: np.ndarray | None = None, rated: np.ndarray | None = None,
               gammas: Sequence[float] = GAMMAS) -> list[GridRow]:
    """The spec's γ_direct table (§5) over these topics."""
    dist = [semantic_distinctiveness_all(topic_vectors, topics, gamma=g) for g in gammas]
    return _select([_row(g, d.per_topic, d.vd, rating, rated) for g, d in zip(gammas, dist)],
                   by_correlation=rating is not None)


def threshold_grid(word_vectors: Sequence[np.ndarray], *, params=None,
                   rating: np.ndarray | None = None, rated: np.ndarray | None = None,
                   thresholds: Sequence[float] = THRESHOLDS) -> list[GridRow]:
    """The spec's threshold_edge table (§5): discrimination of per-topic SC per threshold."""
    params = params or SemanticParams()
    scs = [semantic_coherence(word_vectors, params=replace(params, threshold_edge=float(t))).sc
           for t in thresholds]
    return _select([_row(t, sc, float(sc.mean()), rating, rated) for t, sc in zip(thresholds, scs)],
                   by_correlation=False)


__all__ = ["GAMMAS", "THRESHOLDS", "GridRow", "correlate_metrics", "discrimination_range",
           "discrimination_ratio", "gamma_grid", "rater_reliability", "threshold_grid"]
