"""Retrieval measures in the metric contract, adapted generically from
:data:`scorekit.retrieval.measures.FAMILIES` (one :class:`~scorekit.metrics.Metric` class per
measure family, so a family added there is registered here with no further edit). These classes
are what ``scorekit retrieval``, :func:`scorekit.retrieval.evaluate` and ``compare`` compute
with, through the one driver, on a :class:`~scorekit.retrieval.evaluate.RetrievalBatch`.

A retrieval metric's per-item statistics are its per-query values, so merging shards is
concatenation and the score is the family's own aggregate over every query in the qrels, as
``trec_eval -c`` (the mean; geometric for gm_map; the sum for counts). Parameters: ``k`` (the
cutoff of ``ndcg@10``), ``rel`` (the relevance level of ``recall(rel=2)@10``) and the family's
own declared :class:`~scorekit.metrics.Param` where it has one (RBP's ``p``, set_F's ``beta``,
iprec's ``recall`` level), with its default and bounds — each only where the family's
declaration takes it (no ``k`` for bpref, no ``rel`` for nDCG; binary ``rbp`` needs ``rel``), so
:meth:`RetrievalMeasure.key` is the canonical name, which reads back as this family.
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
    kind = "rate"
    higher_is_better = True
    corpus = False
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
        v = np.asarray(stats.columns.get("value", np.zeros(0)), dtype=np.float64)
        return {self.key(): self.measure().aggregate(v) if len(v) else float("nan")}


def _doc(fam: str) -> str:
    fn = M.FAMILIES[fam].fn
    first = (fn.__doc__ or fam).strip().split("\n\n")[0]
    return " ".join(first.split())


K = Param("k", int, None, "rank cutoff (ndcg@10)", low=1)
REL = Param("rel", int, None, "relevance level (default: the evaluation's threshold)", low=1)


def _params(spec: "M.Family") -> tuple[Param, ...]:
    """The parameters the family declares: a cutoff where it takes one, a relevance level where
    it takes one, its own real parameter."""
    return (((K,) if spec.cutoff != "none" and not spec.param_at else ())
            + ((REL,) if spec.takes_rel else ()) + ((spec.param,) if spec.param is not None else ()))


def _make(fam: str) -> type[RetrievalMeasure]:
    spec = M.FAMILIES[fam]
    return type(f"Retrieval_{fam}", (RetrievalMeasure,),
                {"name": fam, "measure_family": fam, "__doc__": _doc(fam), "__module__": __name__,
                 "params": _params(spec),
                 "kind": spec.kind, "higher_is_better": spec.higher_is_better})


METRICS: dict[str, type[RetrievalMeasure]] = {fam: register(_make(fam)) for fam in M.FAMILIES}


def metric_class(fam: str) -> type[RetrievalMeasure]:
    """The class of a family (one added to FAMILIES after this import gets one, unregistered)."""
    return METRICS.get(fam) or _make(fam)
