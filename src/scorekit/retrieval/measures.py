"""Rank measures, array-wise, exactly as their reference computes them (spec: retrieval-metrics.md §4).

Every measure works on one :class:`Judged` table: the run's *judged* rows (documents the qrels
grade for that query, any grade) in trec_eval's order (score descending, ties by docid
descending), each with its query (an index into the qrels' queries), its 0-based position and
its grade; plus per query the number of retrieved documents and the qrels' grades. Per-query
values are segment sums (``np.bincount`` with weights) and segment cumulative counts; the corpus
score aggregates them over *every* query in the qrels (a query the run missed scores as an empty
ranking, as ``trec_eval -c``).

Each measure carries its own relevance level ``rel`` (relevant: grade ``>= rel``, trec_eval
``-l``; ``None``: the evaluation's threshold) where its family takes one (:attr:`Family.rel`). As
in trec_eval, a negative grade marks a document that was pooled but not judged: never relevant,
never judged non-relevant (bpref, infAP).

:data:`FAMILIES` is the table every consumer reads: family -> function, cutoff kind, trec_eval
name, reference, aggregate over queries, direction and kind of value. Names in the three
syntaxes (ranx, ir_measures, trec_eval) are parsed in :mod:`scorekit.retrieval.names`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.metrics.base import Param

MIN_GEO_MEAN = 0.00001   # trec_eval's floor for gm_map
INFAP_EPSILON = 0.00001  # trec_eval's infAP smoothing
ERR_MAX_GRADE = 4        # gdeval's MAX_JUDGMENT


@dataclass
class Judged:
    n_queries: int
    qi: np.ndarray        # query index per judged row; each query's rows contiguous, best first
    pos: np.ndarray       # 0-based rank within the query's whole ranking
    rel: np.ndarray       # grade of the row's document in that query's qrels
    n_ret: np.ndarray     # per query: number of retrieved documents (0 when the run missed it)
    qrels_q: np.ndarray   # the qrels: query index per judgement
    qrels_rel: np.ndarray  # ... and its grade
    ideal_qi: np.ndarray  # the qrels' positive grades, per query sorted descending
    ideal_pos: np.ndarray
    ideal_rel: np.ndarray
    threshold: int = 1
    _cache: dict = field(default_factory=dict, repr=False)

    def _memo(self, key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def relevant(self, rel: int | None = None) -> np.ndarray:
        """Mask of the judged rows with grade >= rel (cached per level)."""
        t = self.threshold if rel is None else rel
        return self._memo(("relevant", t), lambda: self.rel >= t)

    def n_rel(self, rel: int | None = None) -> np.ndarray:
        """Per query: judged documents with grade >= rel (trec_eval ``num_rel``)."""
        t = self.threshold if rel is None else rel
        return self._memo(("n_rel", t),
                          lambda: _bsum(self.qrels_q[self.qrels_rel >= t], None, self.n_queries))

    def n_nonrel(self, rel: int | None = None) -> np.ndarray:
        """Per query: judged documents with 0 <= grade < rel."""
        t = self.threshold if rel is None else rel
        m = (self.qrels_rel >= 0) & (self.qrels_rel < t)
        return self._memo(("n_nonrel", t), lambda: _bsum(self.qrels_q[m], None, self.n_queries))

    def before(self, mask: np.ndarray) -> np.ndarray:
        """Per judged row: how many rows of ``mask`` precede it within its query."""
        excl = np.cumsum(mask, dtype=np.int64) - mask
        return excl - excl[self._memo(("block_start",), lambda: _block_start(self.qi))]


@dataclass(frozen=True)
class Measure:
    """One measure instance: family, cutoff ``k``, relevance level ``rel`` (None: the evaluation's
    threshold) and a real parameter ``param`` (RBP's persistence p, set_F's beta, the recall level
    of iprec_at_recall)."""

    family: str
    k: int | None = None
    rel: int | None = None
    param: float | None = None

    def __post_init__(self) -> None:
        spec = FAMILIES.get(self.family)
        if spec is None:
            raise ScorekitError(f"unknown retrieval measure family {self.family!r}")
        if self.param is None and spec.param is not None and spec.param.default is not None:
            object.__setattr__(self, "param", float(spec.param.default))   # one Measure per meaning
        if spec.rel == "none":
            object.__setattr__(self, "rel", None)   # the same measure at every level
        why = spec.problem(self.family, self.k, self.rel, self.param)
        if why:
            raise ScorekitError(f"measure {self.family}: {why}")

    @property
    def name(self) -> str:
        """Canonical name: ``family``, ``family(rel=2,p=0.9)``, ``family@k``, ``family@0.50``; it
        reads back (:func:`scorekit.retrieval.names.parse_measure`) as this very Measure."""
        spec = FAMILIES[self.family]
        args = [] if self.rel is None else [f"rel={self.rel}"]
        if self.param is not None and spec.param is not None and not spec.param_at:
            args.append(f"{spec.param.name}={_num(self.param)}")
        out = self.family + (f"({','.join(args)})" if args else "")
        if spec.param_at:
            lvl = float(self.param)
            return f"{out}@{lvl:.2f}" if round(lvl, 2) == lvl else f"{out}@{_num(lvl)}"
        return out if self.k is None else f"{out}@{self.k}"

    def __call__(self, j: Judged) -> np.ndarray:
        return FAMILIES[self.family].fn(j, self)

    def aggregate(self, values: np.ndarray) -> float:
        """The corpus value from the per-query values (trec_eval's ``all`` line with ``-c``)."""
        return AGGREGATES[FAMILIES[self.family].aggregate](values)


def _num(x: float) -> str:
    """The shortest text that reads back as ``x`` (``0.8``, ``2``, ``1e-05``)."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def outside_text(param: Param, value: float) -> str | None:
    """Why ``value`` is not a valid ``param`` (a finite number within its declared bounds), or None."""
    if not np.isfinite(value):
        return f"{param.name} must be a finite number, got {value!r}"
    if not param.outside(value):
        return None
    lo, hi = param.low, param.high
    if lo is not None and hi is not None:
        rng = f"between {lo:g} and {hi:g}" + (" (exclusive)" if param.strict else "")
    elif lo is not None:
        rng = ("positive" if lo == 0 else f"above {lo:g}") if param.strict else f">= {lo:g}"
    else:
        rng = f"< {hi:g}" if param.strict else f"<= {hi:g}"
    return f"{param.name} must be {rng}, got {value:g}"


def _positive_int(x: object) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 1


# --- helpers ---------------------------------------------------------------------------------

def _count(j: Judged, rows: np.ndarray) -> np.ndarray:
    """Per query: how many of the selected rows it has (a segment sum)."""
    return np.bincount(j.qi[rows], minlength=j.n_queries).astype(np.float64)


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _top(j: Judged, k: int | None) -> np.ndarray:
    return np.ones(len(j.pos), bool) if k is None else j.pos < k


def _first_in_block(qi: np.ndarray) -> np.ndarray:
    """Mask of the first row of each contiguous run of equal query indices."""
    first = np.ones(len(qi), bool)
    first[1:] = qi[1:] != qi[:-1]
    return first


def _block_start(qi: np.ndarray) -> np.ndarray:
    """Per row: the index of the first row of its run of equal query indices."""
    idx = np.arange(len(qi))
    return np.maximum.accumulate(np.where(_first_in_block(qi), idx, 0)) if len(idx) else idx


# --- trec_eval measures ----------------------------------------------------------------------

def hits(j: Judged, m: Measure) -> np.ndarray:
    """hits@k: the number of relevant documents in the top k (ranx ``hits``)."""
    return _count(j, _top(j, m.k) & j.relevant(m.rel))


def hit_rate(j: Judged, m: Measure) -> np.ndarray:
    """hit_rate@k = 1 if a relevant document is in the top k else 0 (trec_eval ``success_k``;
    spec §4.1)."""
    return (hits(j, m) > 0).astype(np.float64)


def precision(j: Judged, m: Measure) -> np.ndarray:
    """precision@k = |relevant in top k| / k — always k, even when fewer were retrieved
    (trec_eval ``P_k``)."""
    return hits(j, m) / float(m.k)


def recall(j: Judged, m: Measure) -> np.ndarray:
    """recall@k = |relevant in top k| / |relevant judged| (trec_eval ``recall_k``); 0 when the
    query has no relevant documents."""
    return _safe_div(hits(j, m), j.n_rel(m.rel))


def f1(j: Judged, m: Measure) -> np.ndarray:
    """f1@k = 2 P@k R@k / (P@k + R@k) (ranx ``f1``); 0 when both are 0."""
    h = hits(j, m)
    p, r = h / float(m.k), _safe_div(h, j.n_rel(m.rel))
    return _safe_div(2 * (p * r), p + r)


def r_precision(j: Judged, m: Measure) -> np.ndarray:
    """R-precision = |relevant in top R| / R, R = |relevant judged| (trec_eval ``Rprec``)."""
    n_rel = j.n_rel(m.rel)
    top = j.pos < n_rel[j.qi]
    return _safe_div(_count(j, top & j.relevant(m.rel)), n_rel)


def reciprocal_rank(j: Judged, m: Measure) -> np.ndarray:
    """mrr / mrr@k per query: 1 / rank of the first relevant document in the top k, else 0
    (trec_eval ``recip_rank``; spec §4.2: MRR = (1/Q) Σ 1/rank_i)."""
    sel = _top(j, m.k) & j.relevant(m.rel)
    qi, pos = j.qi[sel], j.pos[sel]
    first = _first_in_block(qi)
    out = np.zeros(j.n_queries)
    out[qi[first]] = 1.0 / (pos[first] + 1.0)
    return out


def average_precision(j: Judged, m: Measure) -> np.ndarray:
    """map / map@k per query: AP@k = (1/R) Σ_{relevant i <= k} P@i, with R = |relevant judged| —
    *all* relevant documents, not only those in the top k (trec_eval ``map`` / ``map_cut_k``;
    spec §4.3)."""
    sel = _top(j, m.k) & j.relevant(m.rel)
    qi, pos = j.qi[sel], j.pos[sel]
    precision_at_hit = (np.arange(len(qi)) - _block_start(qi) + 1) / (pos + 1.0)
    ap_sum = np.bincount(qi, weights=precision_at_hit, minlength=j.n_queries)
    return _safe_div(ap_sum, j.n_rel(m.rel))


def gm_map(j: Judged, m: Measure) -> np.ndarray:
    """Per query ln(max(AP, 0.00001)); the corpus value is exp of their mean — the geometric mean
    of AP (trec_eval ``gm_map``; a query the run missed counts as AP = 0)."""
    return np.log(np.maximum(average_precision(j, Measure("map", None, m.rel)), MIN_GEO_MEAN))


def bpref(j: Judged, m: Measure) -> np.ndarray:
    """bpref = (1/R) Σ_{relevant retrieved r} (1 - min(n ranked above r, R) / min(N, R)), n
    counting judged non-relevant documents (0 <= grade < rel), N all of them (trec_eval
    ``bpref``; the term is 1 when no judged non-relevant document is above r)."""
    rel = j.relevant(m.rel)
    nonrel = (j.rel >= 0) & ~rel
    above = j.before(nonrel)[rel].astype(np.float64)
    qi = j.qi[rel]
    n_rel, n_nonrel = j.n_rel(m.rel)[qi], j.n_nonrel(m.rel)[qi]
    term = np.ones(len(qi))
    some = above > 0
    term[some] = 1.0 - np.minimum(above[some], n_rel[some]) / np.minimum(n_nonrel[some], n_rel[some])
    return _safe_div(np.bincount(qi, weights=term, minlength=j.n_queries), j.n_rel(m.rel))


def inf_ap(j: Judged, m: Measure) -> np.ndarray:
    """Inferred AP (Yilmaz & Aslam; trec_eval ``infAP``): at each relevant document at 0-based
    rank i > 0, 1/(i+1) + i/(i+1) · (r + n + u)/i · (r + ε)/(r + n + 2ε), with r, n, u the
    relevant, judged non-relevant and pooled-unjudged (negative grade) documents above it; 1 at
    rank 0; summed and divided by R."""
    rel = j.relevant(m.rel)
    nonrel = (j.rel >= 0) & ~rel
    r_above = j.before(rel)[rel].astype(np.float64)
    n_above = j.before(nonrel)[rel].astype(np.float64)
    u_above = j.before(j.rel < 0)[rel].astype(np.float64)
    pos = j.pos[rel].astype(np.float64)
    term = np.ones(len(pos))
    nz = pos > 0
    fj, r, n, u = pos[nz], r_above[nz], n_above[nz], u_above[nz]
    term[nz] = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r + n + u) / fj) * (
        (r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON))
    return _safe_div(np.bincount(j.qi[rel], weights=term, minlength=j.n_queries), j.n_rel(m.rel))


def num_ret(j: Judged, m: Measure) -> np.ndarray:
    """Retrieved documents (trec_eval ``num_ret``; summed over queries)."""
    return j.n_ret.astype(np.float64)


def num_rel(j: Judged, m: Measure) -> np.ndarray:
    """Judged documents with grade >= rel (trec_eval ``num_rel``; summed over queries)."""
    return j.n_rel(m.rel).copy()


def num_rel_ret(j: Judged, m: Measure) -> np.ndarray:
    """Relevant retrieved documents (trec_eval ``num_rel_ret``; summed over queries)."""
    return _count(j, j.relevant(m.rel))


def set_p(j: Judged, m: Measure) -> np.ndarray:
    """num_rel_ret / num_ret (trec_eval ``set_P``)."""
    return _safe_div(num_rel_ret(j, m), num_ret(j, m))


def set_recall(j: Judged, m: Measure) -> np.ndarray:
    """num_rel_ret / num_rel (trec_eval ``set_recall``)."""
    return _safe_div(num_rel_ret(j, m), j.n_rel(m.rel))


def set_f(j: Judged, m: Measure) -> np.ndarray:
    """(β + 1) P R / (β P + R) over the whole retrieved set, β = 1 by default (trec_eval
    ``set_F``, its parameter used as written, not squared); 0 when nothing relevant is retrieved."""
    x = float(m.param)
    rr = num_rel_ret(j, m)
    p, r = _safe_div(rr, num_ret(j, m)), _safe_div(rr, j.n_rel(m.rel))
    out = np.zeros(j.n_queries)
    ok = rr > 0
    out[ok] = (x + 1.0) * p[ok] * r[ok] / (x * p[ok] + r[ok])
    return out


def _lround(x: np.ndarray) -> np.ndarray:
    """C's ``lround`` for non-negative doubles: halves away from zero (not numpy's to-even)."""
    fl = np.floor(x)
    return (fl + (x - fl >= 0.5)).astype(np.int64)


def _iprec(j: Judged, rel: int | None, levels: list[float], v10: bool) -> list[np.ndarray]:
    """Interpolated precision at each recall level L: the maximum precision at or after the c-th
    relevant document (the highest precision anywhere when c = 0), 0 when fewer than c relevant
    documents are retrieved; c = lround(L · R) (trec_eval 10) or int(L · R + 0.9) (trec_eval 9,
    pytrec_eval)."""
    r = j.relevant(rel)
    qi, pos = j.qi[r], j.pos[r]
    if not len(qi):
        return [np.zeros(j.n_queries) for _ in levels]
    first = _first_in_block(qi)
    seg = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    nth = np.arange(len(qi)) - starts[seg] + 1
    prec = nth / (pos + 1.0)
    # suffix maximum within each query, exactly: dense ranks of the values, made increasing
    # across queries (read backwards) by an integer offset per query
    uniq, inv = np.unique(prec, return_inverse=True)
    off = (seg[-1] - seg[::-1]).astype(np.int64) * len(uniq)
    suffix = uniq[(np.maximum.accumulate(inv[::-1] + off) - off)][::-1]
    qids = qi[starts]
    count = np.diff(np.r_[starts, len(qi)])
    n_rel = j.n_rel(rel)[qids]
    outs = []
    for level in levels:
        x = level * n_rel
        cut = _lround(x) if v10 else np.floor(x + 0.9).astype(np.int64)
        at = np.where(cut == 0, 0, cut - 1)
        ok = cut <= count
        out = np.zeros(j.n_queries)
        out[qids[ok]] = suffix[starts[ok] + at[ok]]
        outs.append(out)
    return outs


def iprec_at_recall(j: Judged, m: Measure) -> np.ndarray:
    """Interpolated precision at a recall level L, as trec_eval 10 (``iprec_at_recall_L``): the
    maximum precision at or after the c-th relevant document, c = lround(L · R) (the highest
    precision anywhere when c = 0; 0 when fewer than c relevant documents are retrieved)."""
    return _iprec(j, m.rel, [float(m.param)], v10=True)[0]


def iprec_v9(j: Judged, m: Measure) -> np.ndarray:
    """The same with trec_eval 9's cut-off c = int(L · R + 0.9), as pytrec_eval and ir_measures'
    ``IPrec`` compute it; equal to iprec_at_recall wherever the two cut-offs agree."""
    return _iprec(j, m.rel, [float(m.param)], v10=False)[0]


ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def eleven_pt_avg(j: Judged, m: Measure) -> np.ndarray:
    """The mean of iprec_at_recall (trec_eval 10's cut-offs) at the 11 recall levels 0, 0.1, …,
    1 (trec_eval ``11pt_avg``; summed from 1 down, as trec_eval sums)."""
    total = np.zeros(j.n_queries)
    for v in reversed(_iprec(j, m.rel, list(ELEVEN_POINTS), v10=True)):
        total += v
    return total / len(ELEVEN_POINTS)


# --- the other trec_eval 10 measures (its all_trec set) -----------------------------------

def _bsum(idx: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """Per query: the sum of ``weights`` over its rows (float even when there are none)."""
    return np.bincount(idx, weights=weights, minlength=n).astype(np.float64)


def _upto(qi: np.ndarray, pos: np.ndarray, weights: np.ndarray, q: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """For each pair (``q[i]``, ``cut[i]``): the sum of ``weights`` over the rows of query q with
    pos < cut ((query, position) pairs are unique). Each query's prefix sums run in rank order
    from 0 on a dense (query x position) table, so a query's value does not depend on the other
    queries in the batch (shards give the whole's numbers bit for bit); beyond 2**25 cells, global
    prefix sums looked up by binary search (the same to a few ulps)."""
    q = np.asarray(q, np.int64)
    cut = np.asarray(cut, np.int64)
    if not len(qi):
        return np.zeros(len(q))
    n_q = int(max(int(qi.max()), int(q.max()) if len(q) else 0)) + 1
    width = int(pos.max()) + 1
    if n_q * (width + 1) <= 1 << 25:
        table = np.zeros((n_q, width + 1))
        table[qi, np.asarray(pos, np.int64) + 1] = weights
        np.cumsum(table, axis=1, out=table)
        return table[q, np.clip(cut, 0, width)]
    span = int(pos.max()) + 2
    key = qi.astype(np.int64) * span + pos
    order = np.argsort(key, kind="stable")
    key = key[order]
    cs = np.r_[0.0, np.cumsum(np.asarray(weights, np.float64)[order])]
    lo = np.searchsorted(key, q * span, "left")
    hi = np.searchsorted(key, q * span + np.clip(cut, 0, span), "left")
    return cs[hi] - cs[lo]


def gm_bpref(j: Judged, m: Measure) -> np.ndarray:
    """Per query ln(max(bpref, 0.00001)); the corpus value is exp of their mean (trec_eval
    ``gm_bpref``)."""
    return np.log(np.maximum(bpref(j, Measure("bpref", None, m.rel)), MIN_GEO_MEAN))


def rprec_mult(j: Judged, m: Measure) -> np.ndarray:
    """Precision at c = int(x · R + 0.9) documents, x a multiple of R = |relevant judged|
    (trec_eval ``Rprec_mult_x``, x = 0.2, 0.4, …, 2.0 by default); 0 when c = 0."""
    n_rel = j.n_rel(m.rel)
    cut = np.floor(float(m.param) * n_rel + 0.9).astype(np.int64)
    q = np.arange(j.n_queries)
    hits_ = _upto(j.qi, j.pos, j.relevant(m.rel), q, cut)
    return _safe_div(hits_, cut.astype(np.float64))


UTILITY = (1.0, -1.0, 0.0, 0.0)   # trec_eval's default utility coefficients


def utility(j: Judged, m: Measure) -> np.ndarray:
    """Set utility p1 · a + p2 · b + p3 · c + p4 · d over the contingency table (a relevant
    retrieved, b non-relevant retrieved, c relevant not retrieved, d non-relevant not retrieved:
    0 here, as trec_eval without -N), with trec_eval's default coefficients 1, -1, 0, 0
    (``utility``; the corpus value is the mean)."""
    p1, p2, p3, p4 = UTILITY
    rr, ret, n_rel = num_rel_ret(j, m), j.n_ret.astype(np.float64), j.n_rel(m.rel)
    return p1 * rr + p2 * (ret - rr) + p3 * (n_rel - rr) + p4 * (0.0 + rr - ret - n_rel)


def bin_g(j: Judged, m: Measure) -> np.ndarray:
    """Binary G: Σ over relevant retrieved documents of 1 / log2(2 + the documents ranked above it
    that are not relevant, judged or not), divided by R (trec_eval ``binG``)."""
    r = j.relevant(m.rel)
    above = (j.pos[r] - j.before(r)[r]).astype(np.float64)
    term = 1.0 / np.log2(2.0 + above)
    return _safe_div(_bsum(j.qi[r], term, j.n_queries), j.n_rel(m.rel))


def _gains(j: Judged) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """trec_eval's default gains (the grade; 0 for unjudged and negative grades) of the judged
    rows with a positive gain: (query, position, gain)."""
    pos_ = j.rel > 0
    return j.qi[pos_], j.pos[pos_], j.rel[pos_].astype(np.float64)


def norm_gain(j: Judged, m: Measure) -> np.ndarray:
    """G (trec_eval ``G``): Σ over retrieved documents of gain / log2(2 + cost − gained), cost the
    ideal gains up to that rank (at least 1 per rank) and gained the run's gains up to it,
    divided by the total ideal gain; gains are the grades."""
    qi, pos, g = _gains(j)
    n_ideal = np.bincount(j.ideal_qi, minlength=j.n_queries)
    ig = j.ideal_rel.astype(np.float64)
    # cost up to rank p (inclusive) = (p + 1) + Σ_{t <= p, t < nI} (max(IG_t, 1) - 1)
    extra = _upto(j.ideal_qi, j.ideal_pos, np.maximum(ig, 1.0) - 1.0, qi, pos + 1)
    cost = (pos + 1.0) + extra
    gained = _upto(qi, pos, g, qi, pos + 1)
    term = g / np.log2(2.0 + cost - gained)
    total = _bsum(j.ideal_qi, ig, j.n_queries)
    out = _safe_div(_bsum(qi, term, j.n_queries), total)
    out[n_ideal == 0] = 0.0
    return out


def _disc(pos: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(pos + 2.0)


def ndcg_rel(j: Judged, m: Measure) -> np.ndarray:
    """nDCG averaged over the relevant documents (trec_eval ``ndcg_rel``): at each retrieved
    document with a positive gain, DCG / ideal DCG at its rank; each relevant document not
    retrieved counts DCG / ideal DCG over the whole ranking; divided by the number of positive
    grades."""
    qi, pos, g = _gains(j)
    n_ideal = np.bincount(j.ideal_qi, minlength=j.n_queries).astype(np.float64)
    iw = j.ideal_rel.astype(np.float64) * _disc(j.ideal_pos.astype(np.float64))
    dcg_at = _upto(qi, pos, g * _disc(pos.astype(np.float64)), qi, pos + 1)
    idcg_at = _upto(j.ideal_qi, j.ideal_pos, iw, qi, pos + 1)
    at_docs = _bsum(qi, dcg_at / idcg_at, j.n_queries)
    found = np.bincount(qi, minlength=j.n_queries).astype(np.float64)
    dcg_all = _bsum(qi, g * _disc(pos.astype(np.float64)), j.n_queries)
    idcg_all = _bsum(j.ideal_qi, iw, j.n_queries)
    total = at_docs + (n_ideal - found) * _safe_div(dcg_all, idcg_all)
    return np.where(total > 0, _safe_div(total, n_ideal), 0.0)


def rndcg(j: Judged, m: Measure) -> np.ndarray:
    """nDCG averaged at the R levels (trec_eval ``Rndcg``): at each rank where the ideal gain
    drops (the cumulative counts of the positive grades, highest first), plus at the end of the
    ranking when it runs at least two documents past the last positive grade; 0 when the query
    has no relevant document."""
    qi, pos, g = _gains(j)
    iq, ipos, ig = j.ideal_qi, j.ideal_pos, j.ideal_rel
    n_ideal = np.bincount(iq, minlength=j.n_queries)
    iw = ig.astype(np.float64) * _disc(ipos.astype(np.float64))
    dw = g * _disc(pos.astype(np.float64))
    last = np.ones(len(iq), bool)
    last[:-1] = (iq[1:] != iq[:-1]) | (ig[1:] != ig[:-1])
    tq, tcut = iq[last], ipos[last] + 1               # a drop after each level's last document
    ratio = _upto(qi, pos, dw, tq, tcut) / _upto(j.ideal_qi, j.ideal_pos, iw, tq, tcut)
    total = _bsum(tq, ratio, j.n_queries)
    count = np.bincount(tq, minlength=j.n_queries).astype(np.float64)
    tail = j.n_ret >= n_ideal + 2
    dcg_all = _bsum(qi, dw, j.n_queries)
    idcg_all = _bsum(iq, iw, j.n_queries)
    total += np.where(tail, _safe_div(dcg_all, idcg_all), 0.0)
    count += tail & (n_ideal > 0)
    out = _safe_div(total, count)
    out[j.n_rel(m.rel) == 0] = 0.0
    return out


def relative_p(j: Judged, m: Measure) -> np.ndarray:
    """Precision at k relative to the best possible: |relevant in top k| / min(k, R)
    (trec_eval ``relative_P_k``); 0 when R = 0."""
    return _safe_div(hits(j, m), np.minimum(float(m.k), j.n_rel(m.rel)))


def set_relative_p(j: Judged, m: Measure) -> np.ndarray:
    """num_rel_ret / min(num_ret, R) (trec_eval ``set_relative_P``)."""
    return _safe_div(num_rel_ret(j, m), np.minimum(j.n_ret.astype(np.float64), j.n_rel(m.rel)))


def set_map(j: Judged, m: Measure) -> np.ndarray:
    """num_rel_ret² / (num_ret · R): set precision times set recall (trec_eval ``set_map``)."""
    rr = num_rel_ret(j, m)
    return _safe_div(rr * rr, j.n_ret.astype(np.float64) * j.n_rel(m.rel))


def num_nonrel_judged_ret(j: Judged, m: Measure) -> np.ndarray:
    """Judged non-relevant documents retrieved, 0 <= grade < rel (trec_eval
    ``num_nonrel_judged_ret``; summed over queries)."""
    return _count(j, (j.rel >= 0) & ~j.relevant(m.rel))


def rbp_trec(j: Judged, m: Measure) -> np.ndarray:
    """trec_eval 10's ``rbp``: (1 - p) Σ_i g_i p^(i-1), p = 0.9 by default, with g the grade scaled
    to [0, 1] by the query's highest grade (when that exceeds 1); the relevance level plays no
    part."""
    p = float(m.param)
    top = np.zeros(j.n_queries)
    graded = j.qrels_rel >= 0
    np.maximum.at(top, j.qrels_q[graded], j.qrels_rel[graded].astype(np.float64))
    scale = np.where(top > 1, top, 1.0)
    sel = j.rel > 0
    g = j.rel[sel] / scale[j.qi[sel]]
    w = g * p ** j.pos[sel].astype(np.float64)
    return (1.0 - p) * _bsum(j.qi[sel], w, j.n_queries)


def rbp_resid(j: Judged, m: Measure) -> np.ndarray:
    """RBP's residual (trec_eval ``rbp_resid``): the weight RBP gives the unjudged retrieved
    documents (not in the qrels, or graded < 0) and the ranks past the end, p^n + (1 - p) Σ_unjudged
    p^(i-1) = 1 - (1 - p) Σ_judged p^(i-1); 0 when every retrieved document is judged."""
    p = float(m.param)
    judged_ = j.rel >= 0
    w = _bsum(j.qi[judged_], p ** j.pos[judged_].astype(np.float64), j.n_queries)
    some = j.n_ret > _count(j, judged_)
    return np.where(some, 1.0 - (1.0 - p) * w, 0.0)


def unj(j: Judged, m: Measure) -> np.ndarray:
    """Unjudged@k: the fraction of the top k that is unjudged (not in the qrels, or graded < 0),
    ranks past the end counting as judged (trec_eval ``unj_k``)."""
    judged_ = _count(j, _top(j, m.k) & (j.rel >= 0))
    return (np.minimum(j.n_ret, m.k) - judged_) / float(m.k)


def num_q(j: Judged, m: Measure) -> np.ndarray:
    """1 per query; summed, the number of queries averaged over: every query in the qrels
    (trec_eval ``num_q`` with -c)."""
    return np.ones(j.n_queries)


def _dcg(n: int, qi: np.ndarray, pos: np.ndarray, gains: np.ndarray, k: int | None) -> np.ndarray:
    sel = np.ones(len(pos), bool) if k is None else pos < k
    sel &= gains != 0
    disc = gains[sel] / np.log2(pos[sel] + 2.0)
    return np.bincount(qi[sel], weights=disc, minlength=n).astype(np.float64)


def linear_gain(rel: np.ndarray) -> np.ndarray:
    return np.maximum(rel, 0).astype(np.float64)


def exponential_gain(rel: np.ndarray) -> np.ndarray:
    return np.exp2(np.maximum(rel, 0).astype(np.float64)) - 1.0


def _ndcg(j: Judged, k: int | None, gain: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    dcg_ = _dcg(j.n_queries, j.qi, j.pos, gain(j.rel), k)
    idcg = _dcg(j.n_queries, j.ideal_qi, j.ideal_pos, gain(j.ideal_rel), k)
    return _safe_div(dcg_, idcg)


def ndcg(j: Judged, m: Measure) -> np.ndarray:
    """ndcg@k = DCG@k / IDCG@k with DCG@k = Σ_{i<=k} rel_i / log2(i + 1) (linear gain, Järvelin &
    Kekäläinen; trec_eval ``ndcg_cut_k``, or ``ndcg`` without k). IDCG from the qrels' grades."""
    return _ndcg(j, m.k, linear_gain)


def ndcg_burges(j: Judged, m: Measure) -> np.ndarray:
    """ndcg_burges@k: the same with the exponential gain 2^rel - 1 (Burges et al.; the spec's
    §4.4 formula; ranx ``ndcg_burges``, ir_measures ``nDCG(dcg='exp-log2')``). Equal to ndcg@k for
    binary grades."""
    return _ndcg(j, m.k, exponential_gain)


def dcg(j: Judged, m: Measure) -> np.ndarray:
    """dcg@k = Σ_{i<=k} rel_i / log2(i + 1), unnormalised (ranx ``dcg``)."""
    return _dcg(j.n_queries, j.qi, j.pos, linear_gain(j.rel), m.k)


def dcg_burges(j: Judged, m: Measure) -> np.ndarray:
    """dcg_burges@k = Σ_{i<=k} (2^rel_i - 1) / log2(i + 1) (ranx ``dcg_burges``)."""
    return _dcg(j.n_queries, j.qi, j.pos, exponential_gain(j.rel), m.k)


def err(j: Judged, m: Measure) -> np.ndarray:
    """ERR@k (Chapelle et al.), as gdeval: Σ_{i<=k} R_i / i · Π_{j<i} (1 - R_j) with
    R = (2^grade - 1) / 2^4; grades above 4 are refused, as gdeval refuses them."""
    sel = _top(j, m.k) & (j.rel > 0)
    g = j.rel[sel]
    if len(g) and int(g.max()) > ERR_MAX_GRADE:
        raise ScorekitError(f"ERR follows gdeval, whose grades go up to {ERR_MAX_GRADE}; "
                            f"the qrels have grade {int(g.max())}")
    qi, pos = j.qi[sel], j.pos[sel]
    start = _block_start(qi)
    decay = np.ones(len(qi))
    for grade in np.unique(g).tolist():
        hit = g == grade
        c = np.cumsum(hit, dtype=np.int64) - hit
        decay *= (1.0 - (2.0 ** grade - 1.0) / 2.0 ** ERR_MAX_GRADE) ** (c - c[start])
    r = (np.exp2(g.astype(np.float64)) - 1.0) / 2.0 ** ERR_MAX_GRADE
    return np.bincount(qi, weights=r * decay / (pos + 1.0), minlength=j.n_queries).astype(np.float64)


def _rbp(j: Judged, m: Measure, graded: bool) -> np.ndarray:
    p = float(m.param)
    sel = _top(j, m.k) & j.relevant(m.rel)
    gain = j.rel[sel].astype(np.float64) if graded else np.ones(int(sel.sum()))
    w = (1.0 - p) * p ** j.pos[sel].astype(np.float64)
    return np.bincount(j.qi[sel], weights=gain * w, minlength=j.n_queries).astype(np.float64)


def rbp(j: Judged, m: Measure) -> np.ndarray:
    """RBP(p, rel) = (1 - p) Σ_i g_i p^(i-1) (Moffat & Zobel) with g = 1 for a document graded
    >= rel, else 0 (ir_measures ``RBP(p=...,rel=...)``, cwl_eval)."""
    return _rbp(j, m, graded=False)


def rbp_graded(j: Judged, m: Measure) -> np.ndarray:
    """The same with g = the grade of a document graded >= the threshold (ranx ``rbp.P``;
    ir_measures ``RBP(p=...)`` without rel)."""
    return _rbp(j, m, graded=True)


def judged(j: Judged, m: Measure) -> np.ndarray:
    """Judged@k: the fraction of the top k (or of all retrieved, when fewer than k) that the
    qrels grade, any grade (ir_measures ``Judged@k``)."""
    den = j.n_ret.astype(np.float64) if m.k is None else np.minimum(j.n_ret, m.k).astype(np.float64)
    return _safe_div(_count(j, _top(j, m.k)), den)


# --- the table -------------------------------------------------------------------------------

AGGREGATES: dict[str, Callable[[np.ndarray], float]] = {
    "mean": lambda v: float(v.mean()) if len(v) else 0.0,
    "geometric": lambda v: float(np.exp(v.mean())) if len(v) else 0.0,
    "sum": lambda v: float(v.sum())}


_TREC_CUTS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")   # trec_eval's default cut-offs
_LEVELS = tuple(f"{x:.2f}" for x in ELEVEN_POINTS)
_P = Param("p", float, 0.8, "persistence", low=0.0, high=1.0, strict=True)
_P_TREC = Param("p", float, 0.9, "persistence", low=0.0, high=1.0, strict=True)
_RECALL = Param("recall", float, None, "recall level", low=0.0, high=1.0)


@dataclass(frozen=True)
class Family:
    """One measure family, declared once: everything that parses, computes, aggregates, reports
    and signs it comes from here.

    ``aliases``: the other spellings of the family in ranx, ir_measures and trec_eval (matched
    without case, ``_``, ``-`` and blanks; the family's own name always matches).
    ``param``: its real parameter (RBP's ``p``, set_F's ``beta``, a recall level) with default
    and bounds; ``param_at``: that parameter is written where a cut-off goes
    (``iprec_at_recall@0.5``). ``trec_cut``: trec_eval's name whose ``_v`` / ``-m name.v,v``
    suffix is the cut-off, or the parameter of a family without cut-off (``P_5``, ``P.5,10``,
    ``iprec_at_recall_0.50``, ``set_F.0.5``); ``trec_defaults``: the values trec_eval takes for a bare ``-m name``.
    ``summary_only``: trec_eval prints its ``all`` line only (no per-query lines).
    ``rel``: the relevance level it takes: ``"optional"`` (default: the evaluation's threshold),
    ``"required"`` (ir_measures' binary ``RBP(rel=1)``), ``"gains"`` (the grades are the gains: a
    level is refused) or ``"none"`` (no level changes it: num_ret, Judged; a level given, as
    ``num_ret-l2`` = trec_eval ``-l 2 -m num_ret``, is the same measure). ``rel_switch``: the family the
    spellings of this one name when ir_measures' ``rel=`` breaks that rule (``RBP(p=0.9)``
    without rel is ``rbp_graded``, ``NumRet(rel=2)`` is ``num_rel_ret``); ranx's ``-lN`` suffix
    never switches (ranx's ``rbp-l2`` is its graded rbp at level 2)."""

    fn: Callable[[Judged, Measure], np.ndarray]
    cutoff: str            # "required" | "optional" | "none"
    trec_eval: str         # trec_eval's name ("" when trec_eval has none)
    reference: str         # what it equals, checked in tests/retrieval
    aggregate: str = "mean"  # "mean" | "geometric" | "sum" over every qrels query
    higher_is_better: bool = True
    kind: str = "rate"     # "rate" (in [0, 1]) | "count" | "score"
    rel: str = "optional"  # "optional" | "required" | "gains" | "none"
    rel_switch: str = ""
    param: Param | None = None
    param_at: bool = False
    aliases: tuple[str, ...] = ()
    trec_cut: str = ""
    trec_defaults: tuple[str, ...] = ()
    summary_only: bool = False

    @property
    def takes_rel(self) -> bool:
        return self.rel in ("optional", "required")

    def problem(self, fam: str, k: object, rel: object, param: float | None) -> str | None:
        """Why ``Measure(fam, k, rel, param)`` is not a measure of this family, or None: the one
        check of the declaration, shared by the parser and every Measure built in code."""
        if self.param_at or self.cutoff == "none":
            if k is not None:
                return f"{fam} takes no cutoff"
        elif k is None and self.cutoff == "required":
            return f"needs a cutoff, e.g. {fam}@10"
        elif k is not None and not _positive_int(k):
            return f"the cutoff must be a positive integer, got {k!r}"
        if rel is not None and not _positive_int(rel):
            return f"the relevance level must be a positive integer, got {rel!r}"
        if rel is not None and self.rel == "gains":
            return f"{fam} uses the grades themselves as gains and takes no relevance level"
        if rel is None and self.rel == "required":
            other = f" (written without one, it names {self.rel_switch})" if self.rel_switch else ""
            return f"{fam} needs a relevance level, e.g. {fam}(rel=1){other}"
        if self.param is None:
            return None if param is None else f"{fam} takes no parameter, got {param!r}"
        if param is None:
            return f"needs a {self.param.doc or self.param.name}, e.g. {fam}@0.5" if self.param_at else None
        return outside_text(self.param, float(param))


FAMILIES: dict[str, Family] = {
    "hits": Family(hits, "optional", "", "ranx hits", kind="count"),
    "hit_rate": Family(hit_rate, "required", "success_k", "pytrec_eval success",
                       aliases=("hit",), trec_cut="success", trec_defaults=("1", "5", "10")),
    "precision": Family(precision, "required", "P_k", "pytrec_eval P", aliases=("P",), trec_cut="P",
                        trec_defaults=_TREC_CUTS),
    "recall": Family(recall, "optional", "recall_k", "pytrec_eval recall", aliases=("R",), trec_cut="recall"),
    "f1": Family(f1, "required", "", "ranx f1"),
    "r_precision": Family(r_precision, "none", "Rprec", "pytrec_eval Rprec", aliases=("Rprec",)),
    "mrr": Family(reciprocal_rank, "optional", "recip_rank", "pytrec_eval recip_rank",
                  aliases=("RR", "recip_rank", "reciprocal_rank")),
    "map": Family(average_precision, "optional", "map / map_cut_k", "pytrec_eval map, map_cut",
                  aliases=("AP", "average_precision"), trec_cut="map_cut", trec_defaults=_TREC_CUTS),
    "gm_map": Family(gm_map, "none", "gm_map", "pytrec_eval gm_map", aggregate="geometric", aliases=("gmap",),
                     summary_only=True),
    "bpref": Family(bpref, "none", "bpref", "pytrec_eval bpref"),
    "infap": Family(inf_ap, "none", "infAP", "pytrec_eval infAP"),
    "ndcg": Family(ndcg, "optional", "ndcg / ndcg_cut_k", "pytrec_eval ndcg_cut", rel="gains",
                   trec_cut="ndcg_cut", trec_defaults=_TREC_CUTS),
    "ndcg_burges": Family(ndcg_burges, "optional", "", "ranx ndcg_burges", rel="gains"),
    "dcg": Family(dcg, "optional", "", "ranx dcg", kind="score", rel="gains"),
    "dcg_burges": Family(dcg_burges, "optional", "", "ranx dcg_burges", kind="score", rel="gains"),
    "err": Family(err, "optional", "", "ir_measures ERR (gdeval)", rel="gains"),
    "rbp": Family(rbp, "optional", "", "ir_measures RBP(rel=...) (cwl_eval)", param=_P, rel="required",
                  rel_switch="rbp_graded"),
    "rbp_graded": Family(rbp_graded, "optional", "", "ranx rbp", param=_P),
    "judged": Family(judged, "optional", "", "ir_measures Judged", rel="none"),
    "set_p": Family(set_p, "none", "set_P", "pytrec_eval set_P"),
    "set_recall": Family(set_recall, "none", "set_recall", "pytrec_eval set_recall", aliases=("SetR",)),
    "set_f": Family(set_f, "none", "set_F", "pytrec_eval set_F", trec_cut="set_F",
                    param=Param("beta", float, 1.0, "weight of recall", low=0.0, strict=True)),
    "num_ret": Family(num_ret, "none", "num_ret", "pytrec_eval num_ret", aggregate="sum", kind="count", rel="none",
                      rel_switch="num_rel_ret"),
    "num_rel": Family(num_rel, "none", "num_rel", "pytrec_eval num_rel", aggregate="sum", kind="count"),
    "num_rel_ret": Family(num_rel_ret, "none", "num_rel_ret", "pytrec_eval num_rel_ret", aggregate="sum",
                          kind="count"),
    "iprec_at_recall": Family(iprec_at_recall, "none", "iprec_at_recall_L", "trec_eval 10 iprec_at_recall",
                              param=_RECALL, param_at=True, trec_cut="iprec_at_recall", trec_defaults=_LEVELS),
    "iprec_v9": Family(iprec_v9, "none", "", "pytrec_eval iprec_at_recall (trec_eval 9), ir_measures IPrec",
                       param=_RECALL, param_at=True, aliases=("iprec",)),
    # trec_eval 10's other all_trec measures
    "gm_bpref": Family(gm_bpref, "none", "gm_bpref", "pytrec_eval gm_bpref", aggregate="geometric",
                       summary_only=True),
    "rprec_mult": Family(rprec_mult, "none", "Rprec_mult_x", "pytrec_eval Rprec_mult",
                         param=Param("mult", float, None, "multiple of R", low=0.0), param_at=True,
                         trec_cut="Rprec_mult", trec_defaults=tuple(f"{x / 10:.2f}" for x in range(2, 21, 2))),
    "utility": Family(utility, "none", "utility", "pytrec_eval utility", kind="score"),
    "11pt_avg": Family(eleven_pt_avg, "none", "11pt_avg", "trec_eval 10 11pt_avg", aliases=("11-pt_avg",)),
    "bin_g": Family(bin_g, "none", "binG", "pytrec_eval binG"),
    "norm_gain": Family(norm_gain, "none", "G", "pytrec_eval G", rel="gains", aliases=("G",)),
    "ndcg_rel": Family(ndcg_rel, "none", "ndcg_rel", "pytrec_eval ndcg_rel", rel="gains"),
    "rndcg": Family(rndcg, "none", "Rndcg", "pytrec_eval Rndcg"),
    "relative_p": Family(relative_p, "required", "relative_P_k", "pytrec_eval relative_P", trec_cut="relative_P",
                         trec_defaults=_TREC_CUTS),
    "set_relative_p": Family(set_relative_p, "none", "set_relative_P", "pytrec_eval set_relative_P"),
    "set_map": Family(set_map, "none", "set_map", "pytrec_eval set_map"),
    "num_nonrel_judged_ret": Family(num_nonrel_judged_ret, "none", "num_nonrel_judged_ret",
                                    "pytrec_eval num_nonrel_judged_ret", aggregate="sum", kind="count",
                                    higher_is_better=False),
    "rbp_trec": Family(rbp_trec, "none", "rbp", "trec_eval 10 rbp", rel="gains", param=_P_TREC),
    "rbp_resid": Family(rbp_resid, "none", "rbp_resid", "trec_eval 10 rbp_resid", rel="none", param=_P_TREC,
                        higher_is_better=False),
    "unj": Family(unj, "required", "unj_k", "trec_eval 10 unj", trec_cut="unj", trec_defaults=("5", "10", "20"),
                  higher_is_better=False, rel="none"),
    "num_q": Family(num_q, "none", "num_q", "pytrec_eval num_q", aggregate="sum", kind="count",
                    summary_only=True, rel="none"),
}

DEFAULT_MEASURES = ("ndcg@10", "map@100", "mrr", "hit_rate@10", "precision@10", "recall@100")
