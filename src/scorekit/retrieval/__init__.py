"""Retrieval evaluation with trec_eval semantics: ``evaluate(qrels, run, metrics)``,
``compare(qrels, runs, metrics)`` and ``fuse(runs, method, norm)`` (spec: retrieval-metrics.md)."""

from scorekit.retrieval.evaluate import evaluate
from scorekit.retrieval.compare import Comparison, compare  # noqa: E402  (rebinds the name)

__all__ = ["evaluate", "compare", "Comparison", "fuse"]


def __getattr__(name: str):
    # fusion is imported when first used: `scorekit retrieval` never needs it
    if name == "fuse":
        from scorekit.retrieval.fusion import fuse

        return fuse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
