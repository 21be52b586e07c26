"""Retrieval evaluation with trec_eval semantics: ``evaluate(qrels, run, metrics)``,
``compare(qrels, runs, metrics)`` and ``fuse(runs, method, norm)`` (spec: retrieval-metrics.md)."""

from scorekit.retrieval.evaluate import evaluate
from scorekit.retrieval.compare import Comparison, compare  # noqa: E402  (rebinds the name)
from scorekit.retrieval.fusion import fuse  # noqa: E402

__all__ = ["evaluate", "compare", "Comparison", "fuse"]
