"""The metric contract every family follows (see ``docs/adding-a-metric.md``).

A metric is declared once, as a :class:`~scorekit.metrics.base.Metric` subclass registered in
:data:`~scorekit.metrics.registry.REGISTRY`: its name and typed parameters, its direction, the kind
of value it produces, a one-line doc, the signature fields it owns, and — computed — per-item
sufficient statistics, a merge and a final score. The CLI's ``--metrics`` help and choices, "did
you mean", the docs tables, the report's metadata, comparisons, the oracle test harness and the
Ray engine all read that registry.
"""

from scorekit.metrics.base import Metric, MetricInfo, Param, Stats, VALUE_KINDS
from scorekit.metrics.registry import (REGISTRY, MetricSpec, declare, describe, get_metric, register,
                                      split_name, split_specs)

__all__ = ["Metric", "MetricInfo", "Param", "Stats", "VALUE_KINDS", "REGISTRY", "describe",
           "get_metric", "register", "declare", "split_name", "split_specs", "MetricSpec"]
