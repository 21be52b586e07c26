"""Retrieval measures in the metric contract, adapted generically from
:data:`scorekit.retrieval.measures.FAMILIES` (one :class:`~scorekit.metrics.Metric` class per
measure family, so a family added there is registered here with no further edit).

A retrieval metric's per-item statistics are its per-query values (trec_eval's measures are means
over queries), so merging shards is concatenation and the score is the mean — every query in the
qrels counted, as ``trec_eval -c``. Parameters: ``k`` (the cutoff of ``ndcg@10``) and ``rel`` (the
relevance threshold of ``recall(rel=2)@10``).
"""

from __future__ import annotations

import numpy as np

from scorekit.metrics.base import Metric, Param, Stats
from scorekit.metrics.registry import register
from scorekit.retrieval import measures as M


class RetrievalMeasure(Metric):
    """Base of the generated retrieval metric classes: ``item_stats(judged)`` evaluates the
    measure on a :class:`~scorekit.retrieval.measures.Judged` table (one row per query)."""

    family = "retrieval"
    kind = "rate"
    higher_is_better = True
    corpus = False
    params = (Param("k", int, None, "rank cutoff (ndcg@10)"), Param("rel", int, 1, "relevance threshold"))
    signature_fields = ("k", "rel")
    measure_family = ""

    def key(self) -> str:
        k, rel = self.values["k"], self.values["rel"]
        name = self.name if rel in (None, 1) else f"{self.name}(rel={rel})"
        return name if k is None else f"{name}@{k}"

    def item_stats(self, judged: "M.Judged") -> Stats:
        values = M.FAMILIES[self.measure_family].fn(judged, self.values["k"])
        return Stats({"value": np.asarray(values, dtype=np.float64)})

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {self.key(): np.asarray(stats.columns.get("value", np.zeros(0)), dtype=np.float64)}

    def score(self, stats: Stats) -> dict[str, float]:
        v = np.asarray(stats.columns.get("value", np.zeros(0)), dtype=np.float64)
        return {self.key(): float(v.mean()) if len(v) else float("nan")}


def _doc(fam: str) -> str:
    fn = M.FAMILIES[fam].fn
    first = (fn.__doc__ or fam).strip().split("\n\n")[0]
    return " ".join(first.split())


def _make(fam: str) -> type[RetrievalMeasure]:
    cls = type(f"Retrieval_{fam}", (RetrievalMeasure,),
               {"name": fam, "measure_family": fam, "__doc__": _doc(fam), "__module__": __name__})
    return register(cls)


METRICS: dict[str, type[RetrievalMeasure]] = {fam: _make(fam) for fam in M.FAMILIES}
