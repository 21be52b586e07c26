"""The one driver every family on the metric contract runs through, on any executor
(docs/scale-out.md, "One driver")::

    scored = run(plan, batch, executor)

``plan``: the metrics to compute, each with the result keys wanted and the names they are reported
under; ``batch``: the family's batch, which knows its length and how to :meth:`slice` itself (or
``batch.shards(executor, size) -> (shards, item of each row)``: retrieval's hash partitions);
``executor``: :mod:`scorekit.engine.executors`. Per-item statistics are computed shard by shard
(``Metric.needs_model`` metrics on ``map_model``, one model per worker, shards cut on the metric's
``shard_align`` pairs), merged once (``Stats.concat``) and scored once, so a corpus metric (BLEU,
CIDEr, chrF) has the same numbers on every executor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorekit.errors import MissingDependencyError
from scorekit.metrics.base import Metric, Stats

ITEMS_PER_SHARD = 2_000     # Ray's default shard (items); forked parts split by the cores


@dataclass
class Planned:
    """One metric of a plan: the built metric and ``{declared key: result key}`` for the keys
    wanted, as ``(declared key, result key)`` pairs (the result key is the name as the user wrote
    it, e.g. ``chrf(beta=3)``)."""

    metric: Metric
    keys: list[tuple[str, str]]
    optional: bool = False      # skipped (with its reason) when a dependency is missing


@dataclass
class Scored:
    metrics: dict[str, float] = field(default_factory=dict)          # result key -> corpus value
    per_item: dict[str, np.ndarray] = field(default_factory=dict)    # result key -> per-item values
    used: list[Metric] = field(default_factory=list)
    stats: dict[int, Stats] = field(default_factory=dict)           # id(planned metric) -> merged
    skipped: dict[str, str] = field(default_factory=dict)            # metric name -> reason


def plan(family: str, specs: Sequence[Any], common: dict[str, Any] | None = None, *,
         optional: bool = False, allow_english_model: bool = False) -> list[Planned]:
    """Metric specs of the name grammar (``"chrf(beta=3)"``, ``"bleu_4"``, or
    :class:`~scorekit.metrics.registry.MetricSpec`, with defaults another spec sets) -> the plan: one built
    metric per distinct (metric, parameters), each with the keys asked of it, keyed as written.
    ``common``: the batch-level parameters (language, tokenizer) every metric of the family
    takes; ``allow_english_model``: the run's ``--allow-english-model``, set on every metric
    (:attr:`~scorekit.metrics.base.Metric.allow_english_model`)."""
    from scorekit.errors import ScorekitError
    from scorekit.metrics.registry import MetricSpec, _typed, metric_class_for

    common = dict(common or {})
    out: dict[tuple, Planned] = {}
    labels: set[str] = set()
    for raw in specs:
        spec = MetricSpec.of(raw)
        cls = metric_class_for(family, spec.name)
        keys = list(cls.result_keys()) if spec.name == cls.name else [spec.name]
        args = _typed(cls, spec.params())
        metric = cls(**{k: v for k, v in common.items() if k in {p.name for p in cls.params}}, **args)
        if allow_english_model:
            metric.allow_english_model = True
        planned = out.setdefault(ident(metric), Planned(metric, [], optional or spec.optional))
        planned.optional = planned.optional and (optional or spec.optional)
        for key in keys:
            label = spec.label(key)
            if (key, label) in planned.keys:
                continue        # "bleu,bleu_4": the same key of the same metric, once
            if label in labels:
                raise ScorekitError(f"metric {label!r} asked twice with different parameters")
            labels.add(label)
            planned.keys.append((key, label))
    return list(out.values())


def ident(metric: Metric) -> tuple:
    """A built metric's identity: its class and parameter values (equal ones are computed once)."""
    return type(metric), tuple(sorted((k, repr(v)) for k, v in metric.values.items()))


def shard_bounds(references: Sequence[Sequence[str]], size: int | None, align: int = 1) -> list[int]:
    """Item indices where shards start (and the end): about ``size`` items each, cut only where
    the number of (candidate, reference) pairs before the cut is a multiple of ``align``."""
    n = len(references)
    if not size or size >= n:
        return [0, n]
    cum = np.cumsum([len(r) for r in references])
    bounds = [0]
    while bounds[-1] < n:
        target = bounds[-1] + size
        if target >= n:
            bounds.append(n)
            break
        ok = np.flatnonzero((cum[target - 1:] % align) == 0)
        bounds.append(min(target + int(ok[0]) if len(ok) else n, n))
    return bounds


def _stats(batch: Any, metrics: Sequence[Metric], optional: Sequence[bool]) -> list[Any]:
    """Each metric's item statistics on one shard; a missing dependency of an optional metric is
    returned as its message (the driver skips that metric)."""
    out: list[Any] = []
    for m, opt in zip(metrics, optional):
        try:
            out.append(m.item_stats(batch))
        except MissingDependencyError as exc:
            if not opt:
                raise
            out.append(str(exc))
    return out


def _model_stats(state: tuple, batch: Any) -> list[Any]:
    return _stats(batch, *state)


def run(plan: Sequence[Planned], batch: Any, executor: Any = None, *,
        items_per_shard: int = ITEMS_PER_SHARD) -> Scored:
    """Compute ``plan`` on ``batch`` with ``executor`` (None: in this process)."""
    from scorekit.engine.executors import executor_for, shard_size

    ex = executor_for(executor)
    size = shard_size(ex, len(batch), items_per_shard)
    refs = getattr(batch, "references", None)    # pairs per item (caption shards align on them)
    for p in plan:
        p.metric.whole(batch)
    groups = [[p for p in plan if not p.metric.needs_model], [p for p in plan if p.metric.needs_model]]
    parts: dict[int, list[Any]] = {id(p): [] for p in plan}
    orders: dict[int, np.ndarray] = {}      # items in shard order -> the batch's order
    for model, group in enumerate(groups):
        if not group:
            continue
        metrics = [p.metric for p in group]
        optional = [p.optional for p in group]
        align = math.lcm(*[max(1, int(m.shard_align)) for m in metrics]) if model else 1
        if hasattr(batch, "shards") and not model:   # the family's own shard function
            shards, where = batch.shards(ex, size)
            orders.update({id(p): np.argsort(where) for p in group})
        else:
            bounds = shard_bounds([()] * len(batch) if refs is None else refs, size, align)
            shards = [batch if (a, b) == (0, len(batch)) else batch.slice(a, b) for a, b in zip(bounds, bounds[1:])]
        if model:
            # a worker's state: tuple((metrics, optional)) == (metrics, optional)
            outs = ex.map_model(tuple, ((metrics, optional),), _model_stats, shards,
                                desc="model shards")
        else:
            outs = ex.map(_stats, shards, args=(metrics, optional), desc="shards")
        for shard in outs:
            for p, s in zip(group, shard):
                parts[id(p)].append(s)
    scored = Scored()
    for p in plan:
        got = parts[id(p)]
        missing = [s for s in got if isinstance(s, str)]
        if missing:
            scored.skipped[p.metric.name] = missing[0]
            continue
        m = p.metric
        stats = got[0] if len(got) == 1 else m.merge(*got)   # one shard: its own columns (caches)
        if id(p) in orders:
            stats = stats.take(orders[id(p)])
        corpus, per = m.score(stats), m.item_scores(stats)
        for key, label in p.keys:
            if key in corpus:
                scored.metrics[label] = corpus[key]
                if key in per:      # a set-level measure (topics' CD) has no per-item value
                    scored.per_item[label] = np.asarray(per[key], dtype=np.float64)
        scored.used.append(m)
        scored.stats[id(m)] = stats
    return scored


__all__ = ["ITEMS_PER_SHARD", "Planned", "Scored", "plan", "run", "shard_bounds", "Stats"]
