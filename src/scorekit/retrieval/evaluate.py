"""``evaluate(qrels, run, metrics)``: join a run with the qrels, compute per-query measures, mean.

The measures are the generated metric classes (:mod:`scorekit.retrieval.metric`), computed by
the one driver (:mod:`scorekit.engine.driver`) on a :class:`RetrievalBatch` — in this process,
in forked query shards or on Ray, where a run given as files is hash-partitioned by query
(:class:`RunFiles`). The mean is over every query in the qrels; a query the run does not answer
scores 0 on every measure (``trec_eval -c``). Queries that appear only in the run are ignored
with a warning.
"""

from __future__ import annotations

import os
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorekit.engine import driver
from scorekit.engine.driver import Planned
from scorekit.errors import ScorekitError
from scorekit.result import Result
from scorekit.retrieval.data import Qrels, Run, take_ascending, to_arrow, to_numpy
from scorekit.retrieval.fingerprint import _P1, _P2, fingerprints
from scorekit.retrieval.inputs import as_qrels, as_run
from scorekit.retrieval.measures import DEFAULT_MEASURES, FAMILIES, Judged, Measure
from scorekit.retrieval.metric import metric_class
from scorekit.retrieval.names import parse_measures
from scorekit.signature import make_signature


class RetrievalWarning(UserWarning):
    """Something the user should know that does not stop the evaluation."""


def _lookup(values: pa.Array, within: pa.Array, dtype=np.int64) -> np.ndarray:
    """Index of each value in ``within`` (-1 where absent), by hash lookup."""
    idx = pc.index_in(values, value_set=within)
    return to_numpy(idx, fill=-1).astype(dtype, copy=False)


@dataclass
class _QrelsIndex:
    """What every run is judged against; built once per qrels."""

    keys: np.ndarray          # sorted q * n_docs + d of the judged pairs
    rel: np.ndarray           # grades in ``keys`` order
    ideal: tuple[np.ndarray, np.ndarray, np.ndarray]


def _index(qrels: Qrels) -> _QrelsIndex:
    """Sorted judged pairs and the ideal ranking (independent of the relevance level)."""
    nd = max(len(qrels.docids), 1)
    keys = qrels.q.astype(np.int64) * nd + qrels.d
    order = np.argsort(keys, kind="stable")
    pos_mask = qrels.rel > 0
    iq, ir = qrels.q[pos_mask], qrels.rel[pos_mask]
    io = np.lexsort((-ir, iq))
    iq, ir = iq[io], ir[io]
    starts = np.r_[0, np.nonzero(iq[1:] != iq[:-1])[0] + 1] if len(iq) else np.zeros(0, np.int64)
    ipos = np.arange(len(iq)) - np.repeat(starts, np.diff(np.r_[starts, len(iq)]))
    return _QrelsIndex(keys[order], qrels.rel[order], (iq, ipos, ir))


def _find(key: np.ndarray, keys: np.ndarray, space: int) -> np.ndarray:
    """Index of each ``key`` in the distinct ``keys`` (-1 where absent), all in ``[0, space)``:
    a direct table when the key space is small next to the lookups (one gather), else a hash
    lookup."""
    if space <= min(8 * len(key) + (1 << 20), 1 << 27):
        table = np.full(space, -1, np.int32 if len(keys) < 1 << 31 else np.int64)
        table[keys] = np.arange(len(keys), dtype=table.dtype)
        return table[key]
    return _lookup(to_arrow(key), to_arrow(keys))  # pa.array(numpy) would import pandas


def judge(qrels: Qrels, run: Run | None, threshold: int = 1, index: _QrelsIndex | None = None) -> Judged:
    """Join (None: no run line, every query unanswered). Only judged rows are kept (any grade) —
    every measure needs just those plus their positions and each query's number of retrieved rows.

    Everything is a hash lookup or a gather, nothing is binary-searched: a row's block is its
    query code (blocks are in code order), so its rank is its ranked position less the block's
    start, and its grade comes from looking its (query, document) code pair up in the judged
    pairs."""
    index = index or _index(qrels)
    if run is None:
        none = np.zeros(0, np.int64)
        return Judged(qrels.n_queries, none, none, none, np.zeros(qrels.n_queries, np.int64), qrels.q,
                      qrels.rel, *index.ideal, threshold=threshold)
    order, starts = run.ranked()
    qmap = _lookup(run.qids, qrels.qids)
    nd = max(len(qrels.docids), 1)
    # each row's document as a code into the qrels' documents (-1: judged for no query): one
    # hash lookup per row, or, when the reader gave codes, one per distinct document and a gather
    di = (_lookup(run.docids, qrels.docids, np.int32)[run.d] if run.coded
          else _judged_docs(run, qrels, qmap))
    if order is not None:
        di = di[order]                                 # ranked order from here on
    space = (qrels.n_queries + 1) * (nd + 1)
    if len(index.keys) and _dense(space, len(di)):
        qi, pos, rel = _judge_dense(qrels, run, index, qmap, di, starts, nd, space)
    else:
        qi, pos, rel = _judge_sparse(qrels, run, index, qmap, di, order, starts, nd)
    # blocks are in run query-code order: block b holds run query b's rows
    n_ret = np.zeros(qrels.n_queries, np.int64)
    sizes = np.diff(np.r_[starts, len(run)])
    answered = qmap[:len(sizes)] >= 0
    n_ret[qmap[:len(sizes)][answered]] = sizes[answered]
    return Judged(qrels.n_queries, qi, pos.astype(np.int64, copy=False), rel, n_ret, qrels.q, qrels.rel,
                  *index.ideal, threshold=threshold)


def _judged_docs(run: Run, qrels: Qrels, qmap: np.ndarray) -> np.ndarray:
    """Each row's document as an int32 code into the qrels' documents, -1 where the row's
    (query, document) pair is certainly not judged: a bitmap of the judged pairs (~32 bits per
    pair) indexed by a hash of (qrels query, the document's fingerprint, made already for the
    duplicate check) passes only the judged rows and about one in thirty others to the string
    lookup. Pairs, not documents: documents recur across queries (10 M lines over a million
    documents: a fifth of the rows hold a document judged for some query, a hundredth for their
    own). When the bitmap would be large, or most rows pass it, every row is looked up."""
    n = len(run)
    bits = _prefilter_bits(len(qrels), n)
    if bits is None:
        return _lookup(run.docs, qrels.docids, np.int32)
    shift = np.uint64(64 - bits)
    seen = np.zeros(1 << bits, np.bool_)
    seen[_pair_hash(qrels.q, fingerprints(qrels.docids)[qrels.d]) >> shift] = True
    top = _pair_hash(qmap, run.fingerprints(), rows=run.q)
    top >>= shift
    cand = np.flatnonzero(seen[top])
    del top
    if 2 * len(cand) > n:
        return _lookup(run.docs, qrels.docids, np.int32)
    di = np.full(n, -1, np.int32)
    di[cand] = _lookup(take_ascending(run.docs, cand), qrels.docids, np.int32)
    return di


def _pair_hash(q: np.ndarray, fp: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """uint64 hash of (query code, document fingerprint) pairs, with good top bits; the query
    code of pair i is ``q[rows[i]]`` when ``rows`` is given (one gather of the premixed codes)."""
    # -1 (a query the qrels lack) wraps around: it is never a judged pair's code
    mixed = q.astype(np.int64).view(np.uint64) * _P1
    key = mixed if rows is None else mixed[rows]
    key ^= fp
    key *= _P2
    return key


def _prefilter_bits(n_judged: int, n_rows: int) -> int | None:
    """Bits of the judged pairs' bitmap, or None when it does not pay."""
    bits = max(int(32 * n_judged).bit_length(), 10)
    return None if bits > 24 or 16 * n_judged > n_rows else bits


def _dense(space: int, n_rows: int) -> bool:
    """Is a table of every (query, document) pair of the qrels small enough next to the run?"""
    return space <= min(4 * n_rows + (1 << 20), 1 << 28)


def _judge_dense(qrels: Qrels, run: Run, index: _QrelsIndex, qmap, di, starts, nd: int, space: int):
    """Every row looked up at once in a table of all (qrels query + 1, document + 1) pairs —
    row 0 / column 0 for a query or document the qrels lack — when that table is small next to
    the run (a re-ranking run, whose documents are nearly all judged for some query)."""
    it = np.int32 if space < 1 << 31 else np.int64
    table = np.full(space, -1, np.int32 if len(index.keys) < 1 << 31 else np.int64)
    kq, kd = np.divmod(index.keys, nd)
    table[(kq + 1) * (nd + 1) + kd + 1] = np.arange(len(index.keys), dtype=table.dtype)
    # per run query: the start of its table row (+1: document codes start at -1)
    base = ((np.where(qmap >= 0, qmap, -1) + 1) * (nd + 1) + 1).astype(it)
    sizes = np.diff(np.r_[starts, len(di)])
    key = np.repeat(base[:len(sizes)], sizes)        # ranked order: blocks in query-code order
    key += di
    at = table[key]
    del key
    rows = np.flatnonzero(at >= 0)
    block = np.searchsorted(starts, rows, side="right") - 1   # judged rows only: a few per query
    return qmap[block], rows - starts[block], index.rel[at[rows]]


def _judge_sparse(qrels: Qrels, run: Run, index: _QrelsIndex, qmap, di, order, starts, nd: int):
    """Only the rows whose document is judged for some query (often a few percent) go on to
    the pair lookup."""
    cand = np.flatnonzero(di >= 0)
    block = run.q[cand] if order is None else run.q[order[cand]]
    qi = qmap[block]
    keep = qi >= 0
    if not keep.all():
        cand, block, qi = cand[keep], block[keep], qi[keep]
    pos = cand - starts[block]
    key = qi * nd
    key += di[cand]
    if len(cand) and len(index.keys):
        at = _find(key, index.keys, qrels.n_queries * nd)
        hit = at >= 0
        return qi[hit], pos[hit], index.rel[at[hit]]
    return qi[:0], pos[:0], np.zeros(0, np.int64)


def _check_threshold(rel_threshold: Any) -> int:
    if isinstance(rel_threshold, bool) or not isinstance(rel_threshold, (int, np.integer)) or rel_threshold < 1:
        raise ScorekitError(f"relevance threshold must be a positive integer, got {rel_threshold!r}")
    return int(rel_threshold)


def signature(measures: Sequence[tuple[str, Measure]], threshold: int, batch: dict | None = None,
              **more: Any) -> str:
    """The one layout (:func:`scorekit.signature.make_signature`): the measures' canonical names,
    then how queries are judged and averaged — the default relevance level only when a measure
    uses it (graded measures such as nDCG, and measures with their own ``rel=``, do not:
    ``--rel-threshold`` changes none of their numbers) — then ``more`` (a comparison's test)."""
    uses_level = any(m.rel is None and FAMILIES[m.family].takes_rel for _, m in measures)
    return make_signature("retrieval", batch, metrics=[p.metric for p in retrieval_plan(measures)], semantics={
        **({"rel": threshold} if uses_level else {}), "order": "score-desc,docid-desc", "missing": "zero",
        "mean": "qrels-queries", **more})


def relstrings(j: Judged, n: int) -> list[str]:
    """trec_eval's ``relstring.n`` per qrels query: the first ``min(n, retrieved)`` documents in
    ranked order, one character each: the grade 0..9, ``>`` above 9, ``-`` for a document not in
    the query's qrels (RELVALUE_NONPOOL), ``.`` for a negative qrels grade (trec_eval makes every
    one RELVALUE_UNJUDGED, so its ``<`` never shows); ``''`` for a query the run misses."""
    length = np.minimum(j.n_ret, n)
    width = int(length.max()) if len(length) else 0
    chars = np.full((j.n_queries, max(width, 1)), ord("-"), np.uint8)
    top = j.pos < width
    rel = j.rel[top]
    chars[j.qi[top], j.pos[top]] = np.where(rel > 9, ord(">"), np.where(rel >= 0, ord("0") + np.clip(rel, 0, 9),
                                                                        ord(".")))
    return [chars[i, :length[i]].tobytes().decode("ascii") for i in range(j.n_queries)]


# --- the batch of the one driver ---------------------------------------------------------------

def _subset(q: Qrels, queries: np.ndarray) -> Qrels:
    """The judgements of ``queries`` (qrels query indices, ascending), as qrels of their own."""
    code = np.full(q.n_queries, -1, np.int32)
    code[queries] = np.arange(len(queries), dtype=np.int32)
    rows = np.flatnonzero(code[q.q] >= 0)
    return Qrels(q.qids.take(to_arrow(queries.astype(np.int64))), code[q.q[rows]], q.docids, q.d[rows], q.source,
                 rel=q.rel[rows])


@dataclass
class RetrievalBatch:
    """What the generated metric classes compute on through the one driver: a qrels and one run
    (None: no line). Its items are the qrels' queries, in order; :meth:`slice` cuts a query
    shard. The join (:func:`judge`) is made once, on first use, for every measure. A shard holds
    its run lines as ``parts`` (tables; on Ray, handles read with ``fetch``), joined on use."""

    qrels: Qrels
    run: Run | None
    threshold: int = 1
    index: _QrelsIndex | None = None    # the qrels' sorted pairs, shared by the runs compared
    parts: tuple = ()
    fetch: Callable = list
    _judged: Judged | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return self.qrels.n_queries

    def judged(self) -> Judged:
        if self._judged is None:
            tables = [t for t in self.fetch(self.parts) if t.num_rows]
            if tables:
                t = pa.concat_tables(tables)
                self.run = Run.from_arrays(t.column("qid"), t.column("docid"), to_numpy(t.column("score")),
                                           source=f"<run partition of {self.qrels.n_queries} queries>")
            self._judged = judge(self.qrels, self.run, self.threshold, self.index)
        return self._judged

    def slice(self, a: int, b: int) -> "RetrievalBatch":
        """Queries ``a..b-1`` with their run lines (queries only in the run are left out)."""
        qi = np.zeros(0, np.int64) if self.run is None else _lookup(self.run.qids, self.qrels.qids)[self.run.q]
        rows = np.flatnonzero((qi >= a) & (qi < b))
        return RetrievalBatch(_subset(self.qrels, np.arange(a, b)), None, self.threshold,
                              parts=(_lines(self.run, rows),) if len(rows) else ())

    def about(self) -> dict[str, Any]:
        """The run's name, source, lines and query ids (for the result)."""
        r = self.run
        return {"name": r.name, "source": r.source, "lines": len(r), "qids": r.qids}


def _partition_ids(qids: pa.Array, n_parts: int) -> np.ndarray:
    return np.fromiter((zlib.crc32(q.encode("utf-8")) % n_parts for q in qids.to_pylist()),
                       dtype=np.int64, count=len(qids))


def _lines(run: Run, rows: np.ndarray) -> pa.Table:
    return pa.table({"qid": run.qids.take(to_arrow(run.q[rows])), "docid": run.docs.take(to_arrow(rows)),
                     "score": run.score[rows]})


def _split_file(path: str, n_parts: int) -> tuple:
    """Read one file of a run and cut its lines into ``n_parts`` tables by a hash of the query
    id; last, ``(run name, lines, query ids)``."""
    run = as_run(path)
    part = _partition_ids(run.qids, n_parts)[run.q]
    order = np.argsort(part, kind="stable")
    bounds = np.searchsorted(part[order], np.arange(n_parts + 1))
    return (*(_lines(run, order[bounds[i]:bounds[i + 1]]) for i in range(n_parts)),
            (run.name, len(run), run.qids.to_pylist()))


@dataclass
class RunFiles:
    """A run given as several files; its shards (:meth:`shards`, the driver's hook) are hash
    partitions of the queries, as a query's lines may sit in every file. Each file is read on a
    worker (a bad line fails the job naming the file and line) and cut into ``n_parts`` tables by
    a CRC-32 of the query id (``map_split``); partition ``i`` is the qrels of its queries with
    its table from every file, joined and scored on a worker."""

    qrels: Qrels
    files: list[str]
    threshold: int = 1
    name: str | None = None
    source: str = ""
    n_parts: int | None = None
    read: dict[str, Any] = field(default_factory=dict)   # after :meth:`shards`: see :meth:`about`

    def __len__(self) -> int:
        return self.qrels.n_queries

    def shards(self, executor: Any, size: int | None) -> tuple[list[RetrievalBatch], np.ndarray]:
        """The partitions holding queries, and the qrels query of each of their rows in order."""
        n = self.n_parts or max(2, 2 * getattr(executor, "n_workers", 1))
        tables, meta = executor.map_split(_split_file, self.files, n, desc="read run files")
        self.read = {"name": self.name or next((m[0] for m in meta if m[0]), None), "source": self.source,
                     "lines": sum(m[1] for m in meta), "engine": getattr(executor, "name", "local"),
                     "qids": pa.array(list(dict.fromkeys(q for m in meta for q in m[2])), pa.string()),
                     "n_shards": len(self.files), "n_partitions": n}
        part = _partition_ids(self.qrels.qids, n)
        queries = [np.flatnonzero(part == i) for i in range(n)]
        shards = [RetrievalBatch(_subset(self.qrels, qs), None, self.threshold, parts=tuple(t[i] for t in tables),
                                 fetch=executor.fetch) for i, qs in enumerate(queries) if len(qs)]
        return shards, np.concatenate(queries)

    def about(self) -> dict[str, Any]:
        return self.read


def run_batch(q: Qrels, run: Any, threshold: int, engine: Any = None, name: str | None = None,
              index: _QrelsIndex | None = None) -> RetrievalBatch | RunFiles:
    """The driver's batch for one run: on Ray, a run given as files (a file, a folder or glob of
    shards, a list of them) is read on the workers (:class:`RunFiles`); else it is read here."""
    paths = [run] if isinstance(run, (str, os.PathLike)) else run if isinstance(run, (list, tuple)) else [None]
    if getattr(engine, "name", None) == "ray" and paths and all(isinstance(p, (str, os.PathLike)) for p in paths):
        from scorekit.io.records import expand

        return RunFiles(q, [str(p) for p in expand(paths, "--run")], threshold, name, ",".join(map(str, paths)))
    return RetrievalBatch(q, as_run(run, name=name), threshold, index)


def retrieval_plan(measures: Sequence[tuple[str, Measure]]) -> list[Planned]:
    """The one driver's plan for parsed measures (``(name as written, Measure)`` pairs): one
    generated metric class per distinct measure, reported under every name it was written as."""
    out: dict[tuple, Planned] = {}
    for key, m in measures:
        param = FAMILIES[m.family].param
        given = {"k": m.k, "rel": m.rel, **({param.name: m.param} if param is not None else {})}
        metric = metric_class(m.family)(**{k: v for k, v in given.items() if v is not None})
        planned = out.setdefault((m.family, tuple(metric.values.items())), Planned(metric, []))
        planned.keys.append((metric.key(), key))
    return list(out.values())


def evaluate_batch(batch: RetrievalBatch | RunFiles, measures: Sequence[tuple[str, Measure]], threshold: int,
                   engine: Any = None, *, per_item: bool = True) -> tuple[Result, dict[str, np.ndarray]]:
    """The result of one run's batch, and its per-query values, by the one driver on ``engine``."""
    scored = driver.run(retrieval_plan(measures), batch, engine)
    scores, metrics = ({k: got[k] for k, _ in measures} for got in (scored.per_item, scored.metrics))
    return build_result(batch.qrels, measures, threshold, metrics, scores, batch.about(), per_item=per_item), scores


def evaluate(qrels: Any, run: Any, metrics: str | Sequence[str] | None = None, rel_threshold: int = 1,
             *, name: str | None = None, per_item: bool = True, engine: Any = None) -> Result:
    """Evaluate one run. ``metrics``: names in ranx, ir_measures or trec_eval syntax
    (``"ndcg@10"``, ``"nDCG@10"``, ``"ndcg_cut_10"``, ``"R(rel=2)@100"``, ...), each with its own
    relevance level (default ``rel_threshold``); default ``ndcg@10, map@100, mrr, hit_rate@10,
    precision@10, recall@100``. Results are keyed by the names as written.

    ``qrels`` / ``run``: a TREC or JSON path, a dict, the spec's list form or a DataFrame (on Ray,
    also a folder, glob or list of run files, read on the workers). ``engine``: None (this
    process), ``"fork"`` (query shards over this machine's cores) or a started
    :class:`~scorekit.engine.ray_engine.RayEngine`; the numbers are the same. Returns a
    :class:`~scorekit.result.Result`; per-query values in ``per_item``.
    """
    threshold = _check_threshold(rel_threshold)
    measures = parse_measures(DEFAULT_MEASURES if metrics is None else metrics)
    batch = run_batch(as_qrels(qrels), run, threshold, engine, name)
    return evaluate_batch(batch, measures, threshold, engine, per_item=per_item)[0]


def build_result(q: Qrels, measures, threshold: int, metrics: dict[str, float], scores: dict[str, np.ndarray],
                 run: dict[str, Any], *, per_item: bool = True) -> Result:
    """``run``: the run's ``name``, ``source``, ``lines``, ``qids`` (and further inputs)."""
    more = dict(run)
    name, source, lines, run_qids = (more.pop(k) for k in ("name", "source", "lines", "qids"))
    run_only = [run_qids[int(i)].as_py() for i in np.flatnonzero(_lookup(run_qids, q.qids) < 0)]
    warns = []
    if run_only:
        shown = ", ".join(run_only[:5]) + (", …" if len(run_only) > 5 else "")
        msg = f"{source}: {len(run_only)} queries not in the qrels were ignored ({shown})"
        warns.append(msg)
        warnings.warn(msg, RetrievalWarning, stacklevel=4)
    qids = q.qids.to_pylist()
    rows = []
    if per_item:
        cols = {k: vals.tolist() for k, vals in scores.items()}
        rows = [{"id": qid, **{k: cols[k][i] for k in cols}} for i, qid in enumerate(qids)]
    answered = int(np.count_nonzero(_lookup(q.qids, run_qids) >= 0))
    return Result(
        task="retrieval",
        name=name,
        metrics=metrics,
        signature=signature(measures, threshold),
        per_item=rows,
        inputs={"qrels": q.source, "run": source, "n_queries": len(qids),
                "n_queries_answered": answered, "n_run_lines": lines, **more},
        extra={"warnings": warns, "run_only_queries": run_only[:100],
               "missing_queries": len(qids) - answered},
    )
