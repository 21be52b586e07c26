"""The metric contract every family follows (docs/adding-a-metric.md): a metric is declared once,
as a :class:`~scorekit.metrics.base.Metric` subclass registered in
:data:`~scorekit.metrics.registry.REGISTRY`, which the CLI, the docs tables, the reports,
comparisons, the oracle test harness and the engines all read.
"""

from scorekit.metrics.base import Metric, MetricInfo, Param, Stats, VALUE_KINDS
from scorekit.metrics.registry import (REGISTRY, MetricSpec, declare, describe, get_metric, register,
                                      split_name, split_specs)

__all__ = ["Metric", "MetricInfo", "Param", "Stats", "VALUE_KINDS", "REGISTRY", "describe",
           "get_metric", "register", "declare", "split_name", "split_specs", "MetricSpec"]
