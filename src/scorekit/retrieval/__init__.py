"""Retrieval evaluation with trec_eval semantics: ``evaluate(qrels, run, metrics)`` and
``compare(qrels, runs, metrics)`` (spec: retrieval-metrics.md)."""

from scorekit.retrieval.evaluate import evaluate
from scorekit.retrieval.compare import Comparison, compare  # noqa: E402  (rebinds the name)

__all__ = ["evaluate", "compare", "Comparison"]
