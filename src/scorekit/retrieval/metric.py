"""Retrieval measures in the metric contract: one :class:`~scorekit.metrics.Metric` class per
family of :data:`scorekit.retrieval.measures.FAMILIES`, generated from its declaration (so a family
added there is registered with no further edit) and computed by the one driver on a
:class:`~scorekit.retrieval.evaluate.RetrievalBatch`. A measure's per-item statistics are its
per-query values (merging shards is concatenation); the score is the family's own aggregate over
every qrels query, as ``trec_eval -c``. Parameters ``k``, ``rel`` and the family's own
:class:`~scorekit.metrics.Param`, each only where the declaration takes it, so
:meth:`RetrievalMeasure.key` is the canonical name.
"""

from __future__ import annotations

import numpy as np

import scorekit.retrieval.measures as M
from scorekit.metrics.base import Metric, Param, Stats
from scorekit.metrics.registry import register


class RetrievalMeasure(Metric):
    """Base of the generated retrieval metric classes: ``item_stats(batch)`` evaluates the
    measure on the batch's :class:`~scorekit.retrieval.measures.Judged` table (one value per
    query), joined once per batch for every measure."""

    family = "retrieval"
    measure_family = ""

    def __init__(self, **params):
        super().__init__(**params)
        self.measure()   # the family's declaration refuses what is no measure (rbp without rel)

    def measure(self) -> "M.Measure":
        spec = M.FAMILIES[self.measure_family]
        param = None if spec.param is None else self.values[spec.param.name]
        return M.Measure(self.measure_family, self.values.get("k"), self.values.get("rel"), param)

    def key(self) -> str:
        return self.measure().name

    def spec(self) -> str:
        """The canonical name in the name grammar: ``ndcg@10``, ``recall(rel=2)@10``."""
        return self.key()

    def item_stats(self, batch) -> Stats:
        return Stats({"value": np.asarray(self.measure()(batch.judged()), dtype=np.float64)})

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {self.key(): np.asarray(stats.columns.get("value", np.zeros(0)), dtype=np.float64)}

    def score(self, stats: Stats) -> dict[str, float]:
        v = self.item_scores(stats)[self.key()]
        return {self.key(): self.measure().aggregate(v) if len(v) else float("nan")}


K = Param("k", int, None, "rank cutoff (ndcg@10)", low=1)
REL = Param("rel", int, None, "relevance level (default: the evaluation's threshold)", low=1)


def _make(fam: str) -> type[RetrievalMeasure]:
    """The family's class: its function's first docstring paragraph; the parameters it declares
    (a cutoff, a relevance level, its own real parameter, each where it takes one)."""
    spec = M.FAMILIES[fam]
    params = (((K,) if spec.cutoff != "none" and not spec.param_at else ())
              + ((REL,) if spec.takes_rel else ()) + ((spec.param,) if spec.param is not None else ()))
    return type(f"Retrieval_{fam}", (RetrievalMeasure,),
                {"name": fam, "measure_family": fam, "__module__": __name__, "params": params,
                 "__doc__": " ".join((spec.fn.__doc__ or fam).strip().split("\n\n")[0].split()),
                 "kind": spec.kind, "higher_is_better": spec.higher_is_better})


METRICS: dict[str, type[RetrievalMeasure]] = {fam: register(_make(fam)) for fam in M.FAMILIES}


def metric_class(fam: str) -> type[RetrievalMeasure]:
    """The class of a family (one added to FAMILIES after this import gets one, unregistered)."""
    return METRICS.get(fam) or _make(fam)
