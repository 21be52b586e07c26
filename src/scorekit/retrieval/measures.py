"""Rank measures, array-wise, exactly as trec_eval computes them (spec: retrieval-metrics.md §4).

Every measure works on one :class:`Judged` table: the run's rows in trec_eval's order (score
descending, ties by docid descending), each with its query (an index into the qrels' queries),
its 0-based position and its relevance grade (0 when unjudged). Per-query sufficient statistics
are segment sums (``np.bincount`` with weights); the corpus score is their mean over *every* query
in the qrels (a query the run missed scores 0, as ``trec_eval -c``).

Names follow ranx; the trec_eval measure each one equals is given in its docstring. ``rel`` is the
relevance threshold: a document is relevant when its grade ``>= rel`` (trec_eval ``-l``). nDCG
ignores the threshold and uses the grades themselves as gains (negative grades gain 0), as
trec_eval does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError


@dataclass
class Judged:
    n_queries: int
    qi: np.ndarray        # query index per ranked row; each query's rows contiguous, best first
    pos: np.ndarray       # 0-based rank within the query
    rel: np.ndarray       # relevance grade of the row's document (0 if unjudged)
    n_rel: np.ndarray     # per query: number of judged documents with grade >= threshold
    ideal_qi: np.ndarray  # the qrels' positive grades, per query sorted descending
    ideal_pos: np.ndarray
    ideal_rel: np.ndarray
    threshold: int = 1

    @property
    def relevant(self) -> np.ndarray:
        return self.rel >= self.threshold


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


def hits(j: Judged, k: int | None) -> np.ndarray:
    """Number of relevant documents in the top k (per query)."""
    return _count(j, _top(j, k) & j.relevant)


def hit_rate(j: Judged, k: int) -> np.ndarray:
    """hit_rate@k = 1 if a relevant document is in the top k else 0 (trec_eval ``success_k``;
    spec §4.1)."""
    return (hits(j, k) > 0).astype(np.float64)


def precision(j: Judged, k: int) -> np.ndarray:
    """precision@k = |relevant in top k| / k — always k, even when fewer were retrieved
    (trec_eval ``P_k``)."""
    return hits(j, k) / float(k)


def recall(j: Judged, k: int | None) -> np.ndarray:
    """recall@k = |relevant in top k| / |relevant judged| (trec_eval ``recall_k``); 0 when the
    query has no relevant documents."""
    return _safe_div(hits(j, k), j.n_rel.astype(np.float64))


def r_precision(j: Judged, k: None = None) -> np.ndarray:
    """R-precision = |relevant in top R| / R, R = |relevant judged| (trec_eval ``Rprec``)."""
    top = j.pos < j.n_rel[j.qi]
    return _safe_div(_count(j, top & j.relevant), j.n_rel.astype(np.float64))


def reciprocal_rank(j: Judged, k: int | None) -> np.ndarray:
    """mrr / mrr@k per query: 1 / rank of the first relevant document in the top k, else 0
    (trec_eval ``recip_rank``; spec §4.2: MRR = (1/Q) Σ 1/rank_i)."""
    m = _top(j, k) & j.relevant
    qi, pos = j.qi[m], j.pos[m]
    first = _first_in_block(qi)
    out = np.zeros(j.n_queries)
    out[qi[first]] = 1.0 / (pos[first] + 1.0)
    return out


def average_precision(j: Judged, k: int | None) -> np.ndarray:
    """map / map@k per query: AP@k = (1/R) Σ_{relevant i <= k} P@i, with R = |relevant judged| —
    *all* relevant documents, not only those in the top k (trec_eval ``map`` / ``map_cut_k``;
    spec §4.3)."""
    m = _top(j, k) & j.relevant
    qi, pos = j.qi[m], j.pos[m]
    idx = np.arange(len(qi))
    first = _first_in_block(qi)
    block_start = np.maximum.accumulate(np.where(first, idx, 0)) if len(idx) else idx
    precision_at_hit = (idx - block_start + 1) / (pos + 1.0)
    ap_sum = np.bincount(qi, weights=precision_at_hit, minlength=j.n_queries)
    return _safe_div(ap_sum, j.n_rel.astype(np.float64))


def _dcg(n: int, qi: np.ndarray, pos: np.ndarray, gains: np.ndarray, k: int | None) -> np.ndarray:
    m = np.ones(len(pos), bool) if k is None else pos < k
    m &= gains != 0
    disc = gains[m] / np.log2(pos[m] + 2.0)
    return np.bincount(qi[m], weights=disc, minlength=n).astype(np.float64)


def _ndcg(j: Judged, k: int | None, gain: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    dcg = _dcg(j.n_queries, j.qi, j.pos, gain(j.rel), k)
    idcg = _dcg(j.n_queries, j.ideal_qi, j.ideal_pos, gain(j.ideal_rel), k)
    return _safe_div(dcg, idcg)


def linear_gain(rel: np.ndarray) -> np.ndarray:
    return np.maximum(rel, 0).astype(np.float64)


def exponential_gain(rel: np.ndarray) -> np.ndarray:
    return np.exp2(np.maximum(rel, 0).astype(np.float64)) - 1.0


def ndcg(j: Judged, k: int | None) -> np.ndarray:
    """ndcg@k = DCG@k / IDCG@k with DCG@k = Σ_{i<=k} rel_i / log2(i + 1) (linear gain, Järvelin &
    Kekäläinen; trec_eval ``ndcg_cut_k``, or ``ndcg`` without k). IDCG from the qrels' grades."""
    return _ndcg(j, k, linear_gain)


def ndcg_burges(j: Judged, k: int | None) -> np.ndarray:
    """ndcg_burges@k: the same with the exponential gain 2^rel - 1 (Burges et al.; the spec's
    §4.4 formula; ranx ``ndcg_burges``). Equal to ndcg@k for binary grades."""
    return _ndcg(j, k, exponential_gain)


@dataclass(frozen=True)
class Family:
    fn: Callable[[Judged, int | None], np.ndarray]
    cutoff: str  # "required" | "optional" | "none"
    trec_eval: str


FAMILIES: dict[str, Family] = {
    "hit_rate": Family(hit_rate, "required", "success_k"),
    "precision": Family(precision, "required", "P_k"),
    "recall": Family(recall, "required", "recall_k"),
    "r_precision": Family(r_precision, "none", "Rprec"),
    "mrr": Family(reciprocal_rank, "optional", "recip_rank"),
    "map": Family(average_precision, "optional", "map / map_cut_k"),
    "ndcg": Family(ndcg, "optional", "ndcg / ndcg_cut_k"),
    "ndcg_burges": Family(ndcg_burges, "optional", "(ranx ndcg_burges)"),
}

ALIASES = {"p": "precision", "hitrate": "hit_rate", "hit": "hit_rate", "hits": "hit_rate",
           "success": "hit_rate", "recip_rank": "mrr", "rprec": "r_precision",
           "rprecision": "r_precision", "ndcg_cut": "ndcg", "map_cut": "map", "r": "recall"}

DEFAULT_MEASURES = ("ndcg@10", "map@100", "mrr", "hit_rate@10", "precision@10", "recall@100")
_NAME = re.compile(r"^\s*([A-Za-z_ \-]+?)\s*(?:@\s*(\S+))?\s*$")


@dataclass(frozen=True)
class Measure:
    family: str
    k: int | None

    @property
    def name(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}"

    def __call__(self, j: Judged) -> np.ndarray:
        return FAMILIES[self.family].fn(j, self.k)


def known_names() -> list[str]:
    out = []
    for fam, spec in FAMILIES.items():
        out.append(fam if spec.cutoff == "none" else f"{fam}@k")
        if spec.cutoff == "optional":
            out.append(fam)
    return out


def parse_measure(text: str) -> Measure:
    """``"ndcg@10"`` -> Measure("ndcg", 10). Case-insensitive (``MAP@3``, ``Hit Rate@3``)."""
    m = _NAME.match(text)
    if not m:
        raise UnknownNameError("retrieval measure", text, known_names())
    fam = re.sub(r"[ \-]+", "_", m.group(1).strip().lower())
    fam = ALIASES.get(fam.replace("_", ""), ALIASES.get(fam, fam))
    if fam not in FAMILIES:
        raise UnknownNameError("retrieval measure", text.strip(), known_names() + list(FAMILIES))
    spec, raw_k = FAMILIES[fam], m.group(2)
    if raw_k is None:
        if spec.cutoff == "required":
            raise ScorekitError(f"measure {text.strip()!r} needs a cutoff, e.g. {fam}@10")
        return Measure(fam, None)
    if spec.cutoff == "none":
        raise ScorekitError(f"measure {fam!r} takes no cutoff (got {text.strip()!r})")
    try:
        k = int(raw_k)
    except ValueError:
        raise ScorekitError(f"cutoff in {text.strip()!r} must be a positive integer, got {raw_k!r}") from None
    if k <= 0:
        raise ScorekitError(f"cutoff in {text.strip()!r} must be a positive integer (k >= 1), got {k}")
    return Measure(fam, k)


def parse_measures(names) -> list[Measure]:
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    out: list[Measure] = []
    for n in names:
        meas = n if isinstance(n, Measure) else parse_measure(n)
        if meas not in out:
            out.append(meas)
    if not out:
        raise ScorekitError("no measures given (e.g. ndcg@10,map@100,mrr)")
    return out
