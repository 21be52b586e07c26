"""Rank fusion: several runs -> one, with ranx's methods and normalisations (ranx ``fuse``; usage in
docs/retrieval.md, "Fusion").

Each run is first put in trec_eval's order (score descending, ties by docid descending) and
normalised per query; the fused score of a ``(query, document)`` pair combines the normalised
scores of the runs that retrieved it, run by run in the order given (so sums are the same
floating-point operations as ranx's):

* ``sum`` (CombSUM): Σ s_i; ``mnz`` (CombMNZ): Σ s_i · |runs that retrieved it|;
  ``anz`` (CombANZ): Σ s_i / |runs that retrieved it|; ``max`` / ``min`` / ``med``: over those runs;
  ``wsum``: Σ w_i s_i (``weights``); ``rrf``: Σ 1 / (k + rank_i), k = 60 by default.

Normalisations (per query, as ranx): ``min-max`` (s - min) / (max - min), ``max`` s / max,
``sum`` (s - min) / (Σ s - n·min), ``zmuv`` (z-score) (s - mean) / std, ``rank`` 1 - i / n
(i the 0-based rank), ``none``; every denominator is at least 1e-9 as in ranx.
:func:`optimize_fusion` chooses ``wsum``'s weights or ``rrf``'s k on training queries as ranx's
``optimize_fusion`` does.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Sequence
from contextlib import nullcontext
from itertools import product
from typing import IO, Any

import numpy as np
import pyarrow as pa

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.io.atomic import atomic_write
from scorekit.retrieval.data import Run, encode, to_arrow
from scorekit.retrieval.inputs import as_qrels, as_run

METHODS = {"sum": "CombSUM", "mnz": "CombMNZ", "anz": "CombANZ", "max": "CombMAX", "min": "CombMIN",
           "med": "CombMED", "wsum": "weighted sum", "rrf": "reciprocal rank fusion"}
NORMS = {"min-max": "min-max", "max": "max", "sum": "sum", "zmuv": "z-score (zero mean, unit variance)",
         "rank": "rank", "none": "none"}
_METHOD_ALIASES = {"combsum": "sum", "combmnz": "mnz", "combanz": "anz", "combmax": "max",
                   "combmin": "min", "combmed": "med", "weightedsum": "wsum", "reciprocalrankfusion": "rrf"}
_NORM_ALIASES = {"minmax": "min-max", "zscore": "zmuv", "z": "zmuv", "standard": "zmuv"}
_FLOOR = 1e-9


def _key(text: str) -> str:
    return re.sub(r"[_\- ]", "", str(text).lower())


def _normalise(text: str, names: dict, aliases: dict, what: str, shown: list[str]) -> str:
    k = _key(text)
    out = aliases.get(k, k if k in names else None)
    if out is None:
        raise UnknownNameError(what, str(text), list(names) + shown)
    return out


def normalise_method(method: str) -> str:
    return _normalise(method, METHODS, _METHOD_ALIASES, "fusion method", ["combsum", "combmnz", "combanz"])


def normalise_norm(norm: str | None) -> str:
    return "none" if norm is None else _normalise(norm, NORMS, _NORM_ALIASES, "normalisation", ["z-score"])


def _segments(starts: np.ndarray, n: int) -> np.ndarray:
    """Block index of every row (rows in ranked order)."""
    return np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))


def _normalised(run: Run, norm: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(row order, query code, 0-based rank, normalised score)`` in trec_eval order."""
    order, starts = run.ranked()
    n = len(run)
    rows = np.arange(n) if order is None else order
    score = run.score[rows]
    seg = _segments(starts, n)
    rank = np.arange(n) - starts[seg]
    sizes = np.diff(np.r_[starts, n]).astype(np.float64)
    if norm == "none":
        out = score.copy()
    elif norm == "rank":
        out = 1.0 - rank / sizes[seg]
    elif norm in ("min-max", "max", "sum"):
        lo = np.minimum.reduceat(score, starts) if n else score
        hi = np.maximum.reduceat(score, starts) if n else score
        if norm == "min-max":
            out = (score - lo[seg]) / np.maximum(hi - lo, _FLOOR)[seg]
        elif norm == "max":
            out = score / np.maximum(hi, _FLOOR)[seg]
        else:
            total = np.bincount(seg, weights=score, minlength=len(starts))
            out = (score - lo[seg]) / np.maximum(total - lo * sizes, _FLOOR)[seg]
    else:  # zmuv
        mean = np.bincount(seg, weights=score, minlength=len(starts)) / sizes
        dev = score - mean[seg]
        std = np.sqrt(np.bincount(seg, weights=dev * dev, minlength=len(starts)) / sizes)
        out = dev / np.maximum(std, _FLOOR)[seg]
    return rows, run.q[rows], rank, out


def fuse(runs: Sequence[Any], method: str = "rrf", norm: str | None = "min-max", *, k: int = 60,
         weights: Sequence[float] | None = None, name: str | None = None) -> Run:
    """Fuse two or more runs (paths, dicts, DataFrames, :class:`Run`) into one :class:`Run`.

    ``method``: ``sum`` (CombSUM), ``mnz`` (CombMNZ), ``anz``, ``max``, ``min``, ``med``,
    ``wsum`` (with ``weights``), ``rrf`` (with ``k``); ``norm``: ``min-max`` (default, as ranx),
    ``max``, ``sum``, ``zmuv`` (z-score), ``rank`` or ``none``. Queries are the union of the runs'.
    """
    method, norm = normalise_method(method), normalise_norm(norm)
    if len(runs) < 2:
        raise ScorekitError(f"fusion needs at least two runs, got {len(runs)}")
    if method == "wsum":
        if weights is None or len(weights) != len(runs):
            raise ScorekitError(f"wsum needs one weight per run ({len(runs)}), got "
                                f"{0 if weights is None else len(weights)}")
    elif weights is not None:
        raise ScorekitError(f"weights apply to the wsum method only, not {method}")
    if method == "rrf" and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0):
        raise ScorekitError(f"RRF's k must be a non-negative integer, got {k!r}")
    rs = [as_run(r) for r in runs]
    parts_q, parts_d, vals = [], [], []
    for r in rs:
        rows, q, rank, score = _normalised(r, norm)
        if method == "rrf":
            score = 1.0 / (k + rank + 1.0)
        parts_q.append(r.qids.take(to_arrow(q.astype(np.int32))))
        parts_d.append(r.docs.take(to_arrow(rows.astype(np.int64))))
        vals.append(score)
    qcode, qids = encode(pa.chunked_array(parts_q))
    dcode, docids = encode(pa.chunked_array([c for part in parts_d for c in part.chunks]))
    pair = qcode.astype(np.int64) * max(len(docids), 1) + dcode
    uniq, group = np.unique(pair, return_inverse=True)
    n_groups = len(uniq)
    bounds = np.cumsum([0] + [len(v) for v in vals])
    total = np.full(n_groups, {"max": -1e9, "min": 1e9}.get(method, 0.0))
    count = np.zeros(n_groups, np.int64)
    combine = {"max": np.maximum, "min": np.minimum}.get(method, np.add)   # med: below
    for i, v in enumerate(vals):
        g = group[bounds[i]:bounds[i + 1]]     # a run's (query, document) pairs are distinct
        count[g] += 1
        total[g] = combine(total[g], float(weights[i]) * v if method == "wsum" else v)
    # (ranx adds 0.0, or w_i * 0.0, for a run that misses the document: no change to the sum)
    if method == "mnz":
        total = total * count
    elif method == "anz":
        total = total / count
    elif method == "med":
        allv = np.concatenate(vals)
        order = np.lexsort((allv, group))
        sv = allv[order]
        start = np.r_[0, np.cumsum(count)[:-1]]
        lo = sv[start + (count - 1) // 2]
        hi = sv[start + count // 2]
        total = (lo + hi) / 2.0
    q, d = np.divmod(uniq, max(len(docids), 1))
    return Run.from_arrays(qids.take(to_arrow(q.astype(np.int32))), docids.take(to_arrow(d)), total,
                           name=name or method, source="<fused>")


# the methods with parameters to optimise, and ranx's grids for them
OPTIMIZABLE = ("wsum", "rrf")
RRF_GRID = (10, 100, 10)   # ranx optimize_rrf: min_k, max_k, step
MAX_WEIGHT_GRID = 10_000_000   # weight tuples weight_grid may enumerate (0.01 for 3 runs is 1e6)


def weight_grid(n_runs: int, step: float = 0.1) -> list[tuple[float, ...]]:
    """ranx's ``get_trial_configs``: every ``n_runs``-tuple of the multiples of ``step`` in
    [0, 1] (rounded to step's decimals) whose float sum is exactly 1.0, in ``product`` order."""
    if not 0 < step <= 1:
        raise ScorekitError(f"the weight step must be in (0, 1], got {step}")
    grid = (math.floor(1 / step) + 1) ** n_runs
    if grid > MAX_WEIGHT_GRID:   # --step 1e-9 enumerated 1e18 tuples: a hang, not an answer
        raise ScorekitError(f"the weight step {step} gives {grid:.3g} weight tuples for {n_runs} runs to search "
                            f"(at most {MAX_WEIGHT_GRID:.0e}); take a larger --step")
    digits = str(step)[::-1].find(".")
    values = [round(x, digits) for x in np.arange(0, 1 + step, step)]
    return [seq for seq in product(*[values] * n_runs) if sum(seq) == 1.0]


def optimize_fusion(qrels: Any, runs: Sequence[Any], method: str = "wsum", norm: str | None = "min-max",
                    metric: str = "ndcg", *, step: float = 0.1, rel_threshold: int = 1
                    ) -> tuple[dict[str, Any], list[tuple[Any, float]]]:
    """ranx ``optimize_fusion``: the parameters of ``method`` (``wsum``: ``{"weights": [...]}``,
    ``rrf``: ``{"k": k}``) that score best on ``qrels`` with ``metric`` (one measure, any
    syntax), and every candidate with its score in the order tried."""
    from scorekit.retrieval.evaluate import evaluate
    from scorekit.retrieval.names import parse_measures

    method, norm = normalise_method(method), normalise_norm(norm)
    if method not in OPTIMIZABLE:
        raise ScorekitError(f"{method} has no parameters to optimise (optimisable: {', '.join(OPTIMIZABLE)})")
    measures = parse_measures(metric)
    if len(measures) != 1:
        raise ScorekitError(f"optimise on one measure, got {len(measures)} ({metric!r})")
    key = measures[0][0]
    if len(runs) < 2:
        raise ScorekitError(f"fusion needs at least two runs, got {len(runs)}")
    q, rs = as_qrels(qrels), [as_run(r) for r in runs]
    lo, hi, by = RRF_GRID
    trials: list[Any] = weight_grid(len(rs), step) if method == "wsum" else [*range(lo, hi + 1, by)]
    best, best_score, report = None, 0.0, []
    for t in trials:
        fused = fuse(rs, method, norm, weights=list(t)) if method == "wsum" else fuse(rs, method, norm, k=t)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # queries outside the training qrels are not scored
            score = evaluate(q, fused, [key], rel_threshold, per_item=False).metrics[key]
        report.append((t, score))
        if score >= best_score:
            best, best_score = t, score
    if best is None:
        raise ScorekitError(f"no candidate scored >= 0 on {key}")
    return ({"weights": list(best)} if method == "wsum" else {"k": best}), report


def fusion_signature(method: str, norm: str | None, params: dict[str, Any],
                     optimized: str | None = None) -> str:
    """What pins a fused run: method, normalisation, its parameters (and what chose them)."""
    from scorekit.signature import Signature

    method, norm = normalise_method(method), normalise_norm(norm)
    fields: dict[str, Any] = {"method": method}
    if method != "rrf":   # RRF fuses the runs' ranks, which no normalisation changes
        fields["norm"] = norm
    if method == "wsum":
        fields["weights"] = ",".join(repr(float(w)) for w in params["weights"])
    elif method == "rrf":
        fields["k"] = params["k"]
    if optimized:
        fields["optimized"] = optimized
    return str(Signature("fuse", fields))


def fuse_runs(runs: Sequence[Any], method: str = "rrf", norm: str | None = "min-max", *, k: int = 60,
              weights: Sequence[float] | None = None, name: str | None = None, optimize_on: Any = None,
              metric: str = "ndcg", step: float = 0.1) -> tuple[Run, str, str | None]:
    """``scorekit fuse`` as one call: :func:`fuse`, with the method's parameters first chosen on
    the training judgements ``optimize_on`` (:func:`optimize_fusion` with ``metric``, ``step``)
    when given. Returns the fused run, its signature (:func:`fusion_signature`) and, after an
    optimisation, a line saying what was chosen."""
    method_name, chose = normalise_method(method), None
    optimized = None
    if optimize_on is not None:
        params, report = optimize_fusion(optimize_on, list(runs), method_name, norm, metric, step=step)
        weights, k = params.get("weights"), params.get("k", k)
        best = max(score for _, score in report)
        optimized = f"{metric}," + (f"step{step}" if method_name == "wsum" else "k10-100")
        chosen = f"weights {','.join(map(str, weights))}" if weights is not None else f"k {k}"
        chose = f"optimized {method_name} on {optimize_on}: {chosen} ({metric} {best:.4f}, {len(report)} candidates)"
    fused = fuse(list(runs), method, norm, k=k, weights=weights, name=name)
    return fused, fusion_signature(method_name, norm, {"weights": weights, "k": k}, optimized), chose


def _ranked_lines(run: Run) -> tuple[list[str], list[str], list[float], np.ndarray]:
    """Query ids, document ids and scores in trec_eval order, and each query's start."""
    order, starts = run.ranked()
    rows = np.arange(len(run)) if order is None else order
    q = run.qids.take(to_arrow(run.q[rows].astype(np.int32))).to_pylist()
    d = run.docs.take(to_arrow(rows.astype(np.int64))).to_pylist()
    return q, d, run.score[rows].tolist(), starts


def run_to_dict(run: Run) -> dict[str, dict[str, float]]:
    """``{qid: {docid: score}}`` with documents in trec_eval order."""
    out: dict[str, dict[str, float]] = {}
    for qi, di, si in zip(*_ranked_lines(run)[:3]):
        out.setdefault(qi, {})[di] = si
    return out


def write_trec(run: Run, path: str | os.PathLike | IO[str], tag: str | None = None) -> int:
    """Write a run as TREC lines ``qid Q0 docid rank score tag`` in trec_eval's order (rank 1 =
    best; ties by docid descending); scores printed exactly (shortest round-trip repr), to a file
    (written all or nothing) or an open text stream. Returns the number of lines."""
    tag = tag or run.name or "scorekit"
    if any(ch.isspace() for ch in tag):
        raise ScorekitError(f"run tag {tag!r} may not contain spaces")
    q, d, s, starts = _ranked_lines(run)
    n = len(run)
    rank = (np.arange(n) - starts[_segments(starts, n)] + 1).tolist()
    with (nullcontext(path) if hasattr(path, "write") else atomic_write(path)) as fh:
        step = 100_000
        for lo in range(0, n, step):
            fh.write("".join(f"{qi} Q0 {di} {ri} {si!r} {tag}\n"
                             for qi, di, ri, si in zip(q[lo:lo + step], d[lo:lo + step],
                                                       rank[lo:lo + step], s[lo:lo + step])))
    return n


__all__ = ["fuse", "optimize_fusion", "fusion_signature", "weight_grid", "write_trec", "run_to_dict",
           "METHODS", "NORMS", "OPTIMIZABLE"]
