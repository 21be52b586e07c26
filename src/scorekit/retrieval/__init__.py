"""Retrieval evaluation with trec_eval semantics: ``evaluate(qrels, run, metrics)`` and
``compare(qrels, runs, metrics)`` (spec: retrieval-metrics.md)."""

from scorekit.retrieval.evaluate import evaluate

__all__ = ["evaluate", "compare"]


def __getattr__(name):
    if name == "compare":
        from scorekit.retrieval.compare import compare

        return compare
    raise AttributeError(name)
