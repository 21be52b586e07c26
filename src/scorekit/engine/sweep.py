"""The magic-n sweep on Ray: documents are independent (every summariser, the random one
included, is seeded per document), so each task sweeps a shard of documents; the driver
concatenates the per-document values and computes the means, bootstrap CIs and the recommended
interval exactly as one process does (:func:`scorekit.summarization.sweep.finish_sweep`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

DOCS_PER_SHARD = 50


def _sweep_shard(documents, references, ids, kw: dict[str, Any], scorer=None):
    from scorekit.summarization.sweep import run_sweep

    res = run_sweep(documents, references, ids=ids, bertscorer=scorer, **{**kw, "n_resamples": 1})
    return res.values, res.short_documents, res.params, res.summaries


def sweep_sharded(engine, documents: Sequence[str], references: Sequence, *, ids: Sequence[str] | None = None,
                  bert: dict[str, Any] | None = None, docs_per_shard: int = DOCS_PER_SHARD, **kw: Any):
    """The Ray twin of :func:`run_sweep`; ``bert`` holds :func:`load_bertscorer`'s keyword
    arguments when BERTScore is swept (then shards run on an actor pool, one model per actor,
    :mod:`scorekit.engine.actors`)."""
    from scorekit.summarization.sweep import finish_sweep

    ids = list(ids) if ids is not None else [str(i + 1) for i in range(len(documents))]
    bounds = list(range(0, len(documents), docs_per_shard)) + [len(documents)]
    calls = [(list(documents[a:b]), list(references[a:b]), ids[a:b], kw) for a, b in zip(bounds, bounds[1:])]
    if bert is not None:
        from scorekit.engine.actors import map_with_scorer

        outs = map_with_scorer(engine, _sweep_shard, calls, bert, "sweep shards")
    else:
        task = engine.ray.remote(max_retries=engine.retries)(_sweep_shard)
        outs = engine.wait([task.remote(*c) for c in calls], desc="sweep shards")
    summarizers = list(outs[0][0])
    values = {s: {m: np.concatenate([o[0][s][m] for o in outs], axis=1) for m in outs[0][0][s]}
              for s in summarizers}
    short = {n: sum(o[1][n] for o in outs) for n in outs[0][1]}
    params = {**outs[0][2], "bootstrap": kw.get("n_resamples", 1000)}
    summaries = None
    if outs[0][3] is not None:
        summaries = {s: [sum((o[3][s][i] for o in outs), []) for i in range(len(outs[0][3][s]))]
                     for s in summarizers}
    return finish_sweep(params["n"], summarizers, ids, values, short, params, summaries)
