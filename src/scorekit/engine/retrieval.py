"""Retrieval on Ray: a run split over many files, evaluated exactly as one process would.

A query's lines may sit in several shards, and its measures need all of them (ranks), so the job
is a map and a reduce:

1. **map**, one task per run shard: read it with the project's reader (a bad line fails the job
   with the shard's path and line) and split its rows into ``P`` partitions by a hash of the
   query id (CRC-32, so every process agrees);
2. **reduce**, one task per partition: concatenate that partition from every shard and compute
   the per-query values of its queries against the qrels of the same partition — the very
   function the one-process path uses, so each query's values are bit for bit the same;
3. **driver**: the per-query values, put back in the qrels' query order, are aggregated as in one
   process (mean over every qrels query; a query the run misses scores 0).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from scorekit.result import Result


def _partition_ids(qids: pa.Array, n_parts: int) -> np.ndarray:
    return np.fromiter((zlib.crc32(q.encode("utf-8")) % n_parts for q in qids.to_pylist()),
                       dtype=np.int64, count=len(qids))


def _map_shard(path: str, n_parts: int) -> tuple:
    """``n_parts`` tables (the shard's rows of each partition), then ``(run name, n lines)``."""
    from scorekit.retrieval.inputs import as_run

    run = as_run(path)
    part_of_query = _partition_ids(run.qids, n_parts)
    part = part_of_query[run.q]
    qid = run.qids.take(pa.array(run.q))
    table = pa.table({"qid": qid, "docid": run.docs.combine_chunks() if run.docs.num_chunks != 1
                      else run.docs.chunk(0), "score": run.score})
    order = np.argsort(part, kind="stable")
    bounds = np.searchsorted(part[order], np.arange(n_parts + 1))
    table = table.take(pa.array(order))
    parts = tuple(table.slice(bounds[i], bounds[i + 1] - bounds[i]) for i in range(n_parts))
    return (*parts, (run.name, len(run)))


def _reduce_partition(index: int, qrels_part: pa.Table, metrics: list[str], threshold: int,
                      *parts: pa.Table) -> tuple[dict[str, list[float]], list[str], list[str]]:
    from scorekit.retrieval.data import Qrels, Run
    from scorekit.retrieval.evaluate import per_query_scores
    from scorekit.retrieval.names import parse_measures

    if qrels_part.num_rows == 0:
        return {}, [], [q for p in parts for q in set(p.column("qid").to_pylist())]
    table = pa.concat_tables(list(parts))
    qrels = Qrels.from_arrays(qrels_part.column("qid"), qrels_part.column("docid"),
                              qrels_part.column("rel").to_numpy(), source=f"<qrels partition {index}>")
    placeholder = table.num_rows == 0
    if placeholder:   # no run line for these queries: one line of a query no qrels has, so every
        # measure takes its value for an unanswered query (0, or num_rel's count) as one process does
        absent, judged = "none", set(qrels_part.column("qid").to_pylist())
        while absent in judged:     # a query id this partition's qrels lack (ids hold no NUL)
            absent += "_"
        table = pa.table({"qid": [absent], "docid": ["none"], "score": [0.0]})
    run = Run.from_arrays(table.column("qid"), table.column("docid"), table.column("score").to_numpy(),
                          source=f"<run partition {index}>")
    scores, run_only = per_query_scores(qrels, run, parse_measures(metrics), threshold)
    if placeholder:
        run_only = []
    return {k: v.tolist() for k, v in scores.items()}, qrels.qids.to_pylist(), run_only


def evaluate_sharded(engine, qrels: Any, run_shards: Sequence[str | Path], metrics=None,
                     rel_threshold: int = 1, *, name: str | None = None, n_parts: int | None = None) -> Result:
    """Evaluate one run given as several files on ``engine`` (a started RayEngine)."""
    from scorekit.retrieval.evaluate import _check_threshold, aggregate, signature
    from scorekit.retrieval.inputs import as_qrels
    from scorekit.retrieval.measures import DEFAULT_MEASURES
    from scorekit.retrieval.names import parse_measures

    threshold = _check_threshold(rel_threshold)
    wanted = DEFAULT_MEASURES if metrics is None else metrics
    measures = parse_measures(wanted)
    names = [key for key, _ in measures]
    q = as_qrels(qrels)
    n_parts = n_parts or max(2, 2 * engine.n_workers)
    shards = [str(p) for p in run_shards]

    ray = engine.ray
    map_task = ray.remote(max_retries=engine.retries, num_returns=n_parts + 1)(_map_shard)
    mapped = [map_task.remote(path, n_parts) for path in shards]
    meta = engine.wait([m[n_parts] for m in mapped], desc="read run shards")
    run_names = [m[0] for m in meta]
    n_lines = sum(m[1] for m in meta)

    qid_rows = q.qids.take(pa.array(q.q))
    qtable = pa.table({"qid": qid_rows, "docid": q.docids.take(pa.array(q.d)), "rel": q.rel})
    qpart = _partition_ids(q.qids, n_parts)[q.q]
    qparts = [qtable.filter(pa.array(qpart == i)) for i in range(n_parts)]

    reduce = ray.remote(max_retries=engine.retries)(_reduce_partition)
    refs = [reduce.remote(i, qparts[i], names, threshold, *[m[i] for m in mapped]) for i in range(n_parts)]
    outs = engine.wait(refs, desc="evaluate partitions")

    position = {qid: i for i, qid in enumerate(q.qids.to_pylist())}
    scores = {n: np.zeros(q.n_queries) for n in names}
    run_only: list[str] = []
    answered = np.zeros(q.n_queries, bool)
    for vals, qids, extra in outs:
        idx = np.array([position[x] for x in qids], dtype=np.int64)
        for n in names:
            if n in vals:
                scores[n][idx] = vals[n]
        run_only += extra
    rows = [{"id": qid, **{n: float(scores[n][i]) for n in names}} for qid, i in position.items()]
    run_name = name or next((n for n in run_names if n), None)
    return Result(
        task="retrieval", name=run_name,
        metrics=aggregate(measures, scores),
        signature=signature(measures, threshold),
        per_item=rows,
        inputs={"qrels": q.source, "run": shards, "n_queries": q.n_queries, "n_run_lines": n_lines,
                "engine": "ray", "n_shards": len(shards), "n_partitions": n_parts},
        extra={"warnings": [f"{len(run_only)} queries not in the qrels were ignored"] if run_only else [],
               "run_only_queries": sorted(set(run_only))[:100]},
    )
