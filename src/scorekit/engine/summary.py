"""Given summaries on Ray: every metric of ``scorekit summary`` is per summary, so each task
scores a shard of summaries and the driver takes the means over the concatenated per-summary
values — the one-process numbers. With BERTScore the shards run on an actor pool, one model per
actor loaded once (:mod:`scorekit.engine.actors`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

ITEMS_PER_SHARD = 500


def _summary_shard(predictions, references, sources, ids, kw: dict[str, Any], scorer=None):
    from scorekit.summarization.metrics import summary_metrics

    res = summary_metrics(predictions, references, sources, ids=ids, bertscorer=scorer, **kw)
    return res.per_item, res.signature


def summary_sharded(engine, predictions: Sequence[str], references: Sequence, sources: Sequence[str] | None = None,
                    *, ids: Sequence[str] | None = None, bert: dict[str, Any] | None = None,
                    name: str | None = None, items_per_shard: int = ITEMS_PER_SHARD, **kw: Any):
    """The Ray twin of :func:`scorekit.summarization.metrics.summary_metrics`."""
    from scorekit.errors import ScorekitError
    from scorekit.result import Result

    if len(predictions) != len(references):
        raise ScorekitError(f"{len(predictions)} predictions but {len(references)} references")
    ids = list(ids) if ids is not None else [str(i + 1) for i in range(len(predictions))]
    bounds = list(range(0, len(predictions), items_per_shard)) + [len(predictions)]
    calls = [(list(predictions[a:b]), list(references[a:b]), None if sources is None else list(sources[a:b]),
              ids[a:b], kw) for a, b in zip(bounds, bounds[1:])]
    if bert is not None:
        from scorekit.engine.actors import map_with_scorer

        outs = map_with_scorer(engine, _summary_shard, calls, bert, "summary shards")
    else:
        task = engine.ray.remote(max_retries=engine.retries)(_summary_shard)
        outs = engine.wait([task.remote(*c) for c in calls], desc="summary shards")
    rows = [row for part, _ in outs for row in part]
    keys = [k for k in rows[0] if k != "id"] if rows else []
    metrics = {k: float(np.mean(np.array([r[k] for r in rows], dtype=np.float64))) for k in keys}
    return Result(task="summary", metrics=metrics, signature=outs[0][1], per_item=rows,
                  inputs={"n_items": len(rows), "engine": "ray"}, name=name)
