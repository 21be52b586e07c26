"""``evaluate(qrels, run, metrics)``: join a run with the qrels, compute per-query measures, mean.

The mean is over every query in the qrels; a query the run does not answer scores 0 on every
measure (``trec_eval -c``). Queries that appear only in the run are ignored with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorekit.errors import ScorekitError
from scorekit.result import Result
from scorekit.retrieval.data import Qrels, Run, take_ascending, to_arrow, to_numpy
from scorekit.retrieval.fingerprint import _P1, _P2, fingerprints
from scorekit.retrieval.inputs import as_qrels, as_run
from scorekit.retrieval.measures import DEFAULT_MEASURES, Judged, Measure
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
    """What every run is judged against; built once per qrels and threshold."""

    keys: np.ndarray          # sorted q * n_docs + d of the judged pairs
    rel: np.ndarray           # grades in ``keys`` order
    ideal: tuple[np.ndarray, np.ndarray, np.ndarray]


def _index(qrels: Qrels, threshold: int = 1) -> _QrelsIndex:
    """Sorted judged pairs and the ideal ranking (independent of the relevance level; the
    ``threshold`` argument is kept for callers that pass it)."""
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


def judge(qrels: Qrels, run: Run, threshold: int = 1, index: _QrelsIndex | None = None):
    """Join: ``(Judged, run-only query ids)``. Only judged rows are kept (any grade) — every
    measure needs just those plus their positions and each query's number of retrieved rows.

    Everything is a hash lookup or a gather, nothing is binary-searched: a row's block is its
    query code (blocks are in code order), so its rank is its ranked position less the block's
    start, and its grade comes from looking its (query, document) code pair up in the judged
    pairs."""
    index = index or _index(qrels, threshold)
    order, starts = run.ranked()
    qmap = _lookup(run.qids, qrels.qids)
    nd = max(len(qrels.docids), 1)
    # each row's document as a code into the qrels' documents (-1: judged for no query): one
    # hash lookup per row, or, when the reader gave codes, one per distinct document and a gather
    if run.coded:
        di = _lookup(run.docids, qrels.docids, np.int32)[run.d]
    else:
        di = _judged_docs(run, qrels, qmap)
    if order is not None:
        di = di[order]                                 # ranked order from here on
    space = (qrels.n_queries + 1) * (nd + 1)
    if len(index.keys) and _dense(space, len(di)):
        qi, pos, rel = _judge_dense(qrels, run, index, qmap, di, starts, nd, space)
    else:
        qi, pos, rel = _judge_sparse(qrels, run, index, qmap, di, order, starts, nd)
    run_only = [run.qids[int(i)].as_py() for i in np.flatnonzero(qmap < 0)]
    # blocks are in run query-code order: block b holds run query b's rows
    n_ret = np.zeros(qrels.n_queries, np.int64)
    sizes = np.diff(np.r_[starts, len(run)])
    answered = qmap[:len(sizes)] >= 0
    n_ret[qmap[:len(sizes)][answered]] = sizes[answered]
    j = Judged(qrels.n_queries, qi, pos.astype(np.int64, copy=False), rel, n_ret, qrels.q, qrels.rel,
               *index.ideal, threshold=threshold)
    return j, run_only


def _judged_docs(run: Run, qrels: Qrels, qmap: np.ndarray) -> np.ndarray:
    """Each row's document as an int32 code into the qrels' documents, -1 where the row's
    (query, document) pair is certainly not judged.

    A bitmap of the judged pairs, about 32 bits per pair, is indexed by the top bits of a hash
    of (qrels query, fingerprint of the document id) — the run's fingerprints are already made
    for its duplicate check: a row whose bit is clear is not judged, and only the rest (the
    judged rows and about one in thirty others) are looked up by their strings. Judging by
    pairs, not documents, matters when the documents recur across queries (10 M lines over a
    million-document collection: a fifth of the rows hold a document judged for some query, a
    hundredth for their own). When the bitmap would be large, or most rows pass it anyway,
    every row is looked up."""
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


def _canonical(measures) -> list[str]:
    out: list[str] = []
    for m in measures:
        name = (m[1] if isinstance(m, tuple) else m).name
        if name not in out:
            out.append(name)
    return out


def signature(measures: Sequence, threshold: int, **more: Any) -> str:
    """``measures``: Measures or ``(key, Measure)`` pairs; the signature lists canonical names."""
    return make_signature("retrieval", {
        "measures": _canonical(measures), "rel": threshold,
        "order": "score-desc,docid-desc", "missing": "zero", "mean": "qrels-queries", **more})


def _pairs(measures) -> list[tuple[str, Measure]]:
    return [m if isinstance(m, tuple) else (m.name, m) for m in measures]


def per_query_scores(qrels: Qrels, run: Run, measures: Sequence, threshold: int = 1,
                     index: _QrelsIndex | None = None) -> tuple[dict[str, np.ndarray], list[str]]:
    """Per-query values keyed by each measure's key (``(key, Measure)`` pairs, or Measures keyed
    by their canonical name); a measure written several ways is computed once."""
    j, run_only = judge(qrels, run, threshold, index)
    return score(j, measures), run_only


def score(j: Judged, measures: Sequence) -> dict[str, np.ndarray]:
    """Every measure's per-query values on one join (see :func:`per_query_scores`)."""
    done: dict[Measure, np.ndarray] = {}
    out = {}
    for key, m in _pairs(measures):
        if m not in done:
            done[m] = m(j)
        out[key] = done[m]
    return out


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


def evaluate(qrels: Any, run: Any, metrics: str | Sequence[str] | None = None, rel_threshold: int = 1,
             *, name: str | None = None, per_item: bool = True) -> Result:
    """Evaluate one run. ``metrics``: names in ranx, ir_measures or trec_eval syntax
    (``"ndcg@10"``, ``"nDCG@10"``, ``"ndcg_cut_10"``, ``"R(rel=2)@100"``, ...), each with its own
    relevance level (default ``rel_threshold``); default ``ndcg@10, map@100, mrr, hit_rate@10,
    precision@10, recall@100``. Results are keyed by the names as written.

    ``qrels`` / ``run``: a TREC or JSON path, a dict, the spec's list form or a DataFrame.
    Returns a :class:`~scorekit.result.Result`; per-query values in ``per_item``.
    """
    threshold = _check_threshold(rel_threshold)
    measures = parse_measures(DEFAULT_MEASURES if metrics is None else metrics)
    q, r = as_qrels(qrels), as_run(run, name=name)
    scores, run_only = per_query_scores(q, r, measures, threshold)
    return build_result(q, r, measures, threshold, scores, run_only, per_item=per_item)


def aggregate(measures, scores: dict[str, np.ndarray]) -> dict[str, float]:
    """Corpus values: each measure's own aggregate (mean; geometric for gm_map; sum for counts)."""
    return {key: m.aggregate(scores[key]) for key, m in _pairs(measures)}


def build_result(q: Qrels, r: Run, measures, threshold: int, scores: dict[str, np.ndarray],
                 run_only: list[str], *, per_item: bool = True) -> Result:
    warns = []
    if run_only:
        shown = ", ".join(run_only[:5]) + (", …" if len(run_only) > 5 else "")
        msg = f"{r.source}: {len(run_only)} queries not in the qrels were ignored ({shown})"
        warns.append(msg)
        warnings.warn(msg, RetrievalWarning, stacklevel=3)
    qids = q.qids.to_pylist()
    rows = []
    if per_item:
        cols = {name: vals.tolist() for name, vals in scores.items()}
        rows = [{"id": qid, **{name: cols[name][i] for name in cols}} for i, qid in enumerate(qids)]
    answered = int(np.count_nonzero(_lookup(q.qids, r.qids) >= 0))
    return Result(
        task="retrieval",
        name=r.name,
        metrics=aggregate(measures, scores),
        signature=signature(measures, threshold),
        per_item=rows,
        inputs={"qrels": q.source, "run": r.source, "n_queries": len(qids),
                "n_queries_answered": answered, "n_run_lines": len(r)},
        extra={"warnings": warns, "run_only_queries": run_only[:100],
               "missing_queries": len(qids) - answered},
    )
