"""Semantic topic metrics of topic-metrics.md: SC, SD, VD, CD, SemDiv and the Overall score.

Implemented exactly as the spec writes them (every weight a parameter), over word-embedding
matrices, so the formulas are independent of the encoder:

* §1  ``SC(T) = (1/|W|) * Σ_w λ_w * cos(e_w, e_T)``, ``e_T`` the mean of the topic's word
  embeddings, ``λ`` the PageRank of the keyword similarity graph (edges where cos ≥
  ``threshold_edge`` = 0.3, damping 0.85; :mod:`scorekit.topics.pagerank`).
* §2  ``SD(Ti, Tj) = (1 - cos(e_Ti, e_Tj)) * (1 - γ * OH(Ti, Tj))``,
  ``OH = |Wi ∩ Wj| / min(|Wi|, |Wj|)``, γ = 0.7.
* §3  ``VD = mean_{i<j} SD(Ti, Tj)``; ``CD = 1 - |∪ Wi| / Σ |Wi|``;
  ``SemDiv = α * VD + β * CD`` (α = β = 0.5).
* §4  ``Overall = α * SC + β * SD_avg + γ * SemDiv + λ * SIS`` (0.4, 0.4, 0.2, 0.2), with SC the
  mean per-topic SC and ``SD_avg`` the mean pairwise SD.

Spec quirks are kept as written (docs/topics.md, "Spec quirks"): SC ≈ (weighted mean cosine) /
|W|, not a [0, 1] score; CD grows with keyword overlap; ``SD_avg`` is VD, so SD enters Overall
twice; the Overall weights sum to 1.2; SIS is an input, and without it Overall drops its term.
SC runs PageRank for all same-size topics as one tensor; SD for all pairs comes from two Gram
matrices (topic cosines, keyword-set intersections) computed block by block.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import declare, register
from scorekit.topics.batch import TopicBatch, TopicMetric, mean_or_nan
from scorekit.topics.pagerank import DAMPING, MAX_ITER, THRESHOLD_EDGE, TOL, keyword_weights


@dataclass(frozen=True)
class SemanticParams:
    """Every parameter of the spec's semantic metrics, with the spec's values as defaults."""

    threshold_edge: float = THRESHOLD_EDGE   # §2: similarity graph edge threshold
    damping: float = DAMPING                 # PageRank damping
    gamma_overlap: float = 0.7               # §2: γ_direct in SD
    alpha_vd: float = 0.5                    # §3: SemDiv weight of VD
    beta_cd: float = 0.5                     # §3: SemDiv weight of CD
    w_sc: float = 0.4                        # §4: Overall weight α of SC
    w_sd: float = 0.4                        # §4: Overall weight β of SD_avg
    w_semdiv: float = 0.2                    # §4: Overall weight γ of SemDiv
    w_sis: float = 0.2                       # §4: Overall weight λ of SIS
    sc_size_normalize: bool = True           # §1's 1/|W| factor (False: plain λ-weighted mean)
    pagerank_tol: float = TOL
    pagerank_max_iter: int = MAX_ITER

    @classmethod
    def of(cls, values: Mapping[str, object]) -> "SemanticParams":
        """The parameters ``values`` (a measure's) set; the rest default."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in names})


# --- the formulas on their intermediate values (the spec's toy examples feed these) -------------

def semantic_coherence_from_parts(weights: Sequence[float], cosines: Sequence[float], *,
                                  size_normalize: bool = True) -> float:
    """§1: ``(1/|W|) * Σ λ_w cos(e_w, e_T)`` from the λ and cosine of each keyword."""
    lam = np.asarray(weights, dtype=np.float64)
    cos = np.asarray(cosines, dtype=np.float64)
    if lam.shape != cos.shape or lam.ndim != 1 or lam.size == 0:
        raise ValueError("weights and cosines must be equal-length non-empty vectors")
    total = float(np.dot(lam, cos))
    return total / lam.size if size_normalize else total


def semantic_distinctiveness(similarity: float | np.ndarray, overlap: float | np.ndarray,
                             gamma: float = 0.7) -> float | np.ndarray:
    """§2: ``(1 - sim(e_Ti, e_Tj)) * (1 - γ * OH(Ti, Tj))`` (scalars or arrays)."""
    return (1.0 - np.asarray(similarity, dtype=np.float64)) * (1.0 - gamma * np.asarray(overlap, dtype=np.float64))


def hierarchical_overlap(words_i: Sequence[str], words_j: Sequence[str]) -> float:
    """§2: ``OH = |Wi ∩ Wj| / min(|Wi|, |Wj|)``."""
    a, b = set(words_i), set(words_j)
    return len(a & b) / min(len(a), len(b))


def vector_diversity(pair_sd: Sequence[float]) -> float:
    """§3: ``VD = (1 / C(n, 2)) * Σ_{i<j} SD(Ti, Tj)`` from the pairwise SD values."""
    sd = np.asarray(pair_sd, dtype=np.float64)
    return float(sd.mean()) if sd.size else float("nan")


def content_diversity(topics: Sequence[Sequence[str]]) -> float:
    """§3: ``CD = 1 - |∪ Wi| / Σ |Wi|`` — 0 when no keyword is shared (a spec quirk)."""
    total = sum(len(t) for t in topics)
    if total == 0:
        return float("nan")
    union = set().union(*map(set, topics))
    return 1.0 - len(union) / total


def semantic_diversity(vd: float, cd: float, *, alpha: float = 0.5, beta: float = 0.5) -> float:
    """§3: ``SemDiv = α * VD + β * CD``."""
    return alpha * vd + beta * cd


def overall_score(sc: float, sd_avg: float, semdiv: float, sis: float | None = None, *,
                  w_sc: float = 0.4, w_sd: float = 0.4, w_semdiv: float = 0.2,
                  w_sis: float = 0.2) -> float:
    """§4: ``α * SC + β * SD_avg + γ * SemDiv + λ * SIS``; without SIS the λ term is left out."""
    score = w_sc * sc + w_sd * sd_avg + w_semdiv * semdiv
    if sis is not None:
        score += w_sis * sis
    return score


# --- the vectorised whole path over embeddings ---------------------------------------------------

def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(norms, 1e-12)


@dataclass
class CoherenceDetail:
    """Per-topic SC with its parts: λ (PageRank weights) and cos(e_w, e_T) per keyword."""

    sc: np.ndarray                    # (T,)
    weights: list[np.ndarray]         # T arrays of |W_i| λ values
    cosines: list[np.ndarray]         # T arrays of |W_i| cosines
    topic_vectors: np.ndarray         # (T, d) e_T (means of the word embeddings)


def semantic_coherence(word_vectors: Sequence[np.ndarray], *, params: SemanticParams = SemanticParams()
                       ) -> CoherenceDetail:
    """§1 for many topics: ``word_vectors[i]`` is the ``(|W_i|, d)`` embedding matrix of topic i.

    Topics of equal size are stacked into one ``(T, n, d)`` tensor: one batched Gram product for
    the keyword similarities, one batched PageRank, one batched cosine to the topic mean.
    """
    t = len(word_vectors)
    if t == 0:
        raise ScorekitError("no topics to score")
    dim = word_vectors[0].shape[1]
    sc = np.empty(t)
    weights: list[np.ndarray] = [np.empty(0)] * t
    cosines: list[np.ndarray] = [np.empty(0)] * t
    topic_vectors = np.empty((t, dim))
    by_size: dict[int, list[int]] = {}
    for i, m in enumerate(word_vectors):
        if m.ndim != 2 or m.shape[1] != dim:
            raise ValueError(f"topic {i}: expected a (n, {dim}) matrix, got {m.shape}")
        by_size.setdefault(m.shape[0], []).append(i)
    for n, idx in by_size.items():
        emb = np.stack([np.asarray(word_vectors[i], dtype=np.float64) for i in idx])  # (B, n, d)
        unit = _unit(emb)
        sim = unit @ unit.transpose(0, 2, 1)                                         # (B, n, n)
        lam = keyword_weights(sim, threshold_edge=params.threshold_edge, damping=params.damping,
                              tol=params.pagerank_tol, max_iter=params.pagerank_max_iter)
        centre = emb.mean(axis=1)                                                    # e_T
        cos = np.einsum("bnd,bd->bn", unit, _unit(centre))
        scores = (lam * cos).sum(axis=1)
        sc[idx] = scores / n if params.sc_size_normalize else scores
        topic_vectors[idx] = centre
        for k, i in enumerate(idx):
            weights[i], cosines[i] = lam[k], cos[k]
    return CoherenceDetail(sc=sc, weights=weights, cosines=cosines, topic_vectors=topic_vectors)


@dataclass
class DistinctivenessDetail:
    """All-pairs SD summarised: the mean (VD = SD_avg), each topic's mean SD to the others and the
    least distinct pairs ``(i, j, sd, cos, oh)``."""

    vd: float
    per_topic: np.ndarray                          # (T,) mean SD of topic i to every other topic
    n_pairs: int
    lowest: list[tuple[int, int, float, float, float]] = field(default_factory=list)


def _incidence(topics: Sequence[Sequence[str]]):
    from scipy import sparse

    vocab: dict[str, int] = {}
    rows, cols = [], []
    for i, words in enumerate(topics):
        for w in set(words):
            rows.append(i)
            cols.append(vocab.setdefault(w, len(vocab)))
    data = np.ones(len(rows), dtype=np.float64)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(topics), max(len(vocab), 1)))


def semantic_distinctiveness_all(topic_vectors: np.ndarray, topics: Sequence[Sequence[str]], *,
                                 gamma: float = 0.7, block: int = 1024,
                                 lowest: int = 0) -> DistinctivenessDetail:
    """§2-§3: SD for every pair i < j, from ``cos = U U^T`` (unit topic vectors) and
    ``|Wi ∩ Wj| = B B^T`` (keyword incidence), one block of rows at a time.

    ``lowest`` keeps the ``lowest`` least distinct pairs ``(i, j, sd, cos, oh)``.
    """
    tv = np.asarray(topic_vectors, dtype=np.float64)
    t = tv.shape[0]
    if t != len(topics):
        raise ValueError("one topic vector per topic expected")
    unit = _unit(tv)
    inc = _incidence(topics)
    sizes = np.array([len(set(w)) for w in topics], dtype=np.float64)
    per_topic_sum = np.zeros(t)
    total = 0.0
    cand: list[tuple[float, int, int, float, float]] = []
    for start in range(0, t, block):
        stop = min(start + block, t)
        cos = unit[start:stop] @ unit.T                                  # (b, T)
        inter = (inc[start:stop] @ inc.T).toarray()                      # (b, T)
        oh = inter / np.minimum(sizes[start:stop, None], sizes[None, :])
        sd = semantic_distinctiveness(cos, oh, gamma)
        rows = np.arange(start, stop)
        sd[rows - start, rows] = 0.0                                     # no self pairs
        per_topic_sum[start:stop] += sd.sum(axis=1)
        # strict upper triangle of this block: columns j > i
        upper = np.arange(t)[None, :] > rows[:, None]
        total += float(sd[upper].sum())
        if lowest:
            vals = np.where(upper, sd, np.inf).ravel()
            k = min(lowest, int(upper.sum()))
            if k:
                pick = np.argpartition(vals, k - 1)[:k]
                for flat in pick:
                    r, c = divmod(int(flat), t)
                    cand.append((float(vals[flat]), start + r, c, float(cos[r, c]), float(oh[r, c])))
    n_pairs = t * (t - 1) // 2
    vd = total / n_pairs if n_pairs else float("nan")
    per_topic = per_topic_sum / (t - 1) if t > 1 else np.full(t, np.nan)
    cand.sort()
    low = [(i, j, s, c, o) for s, i, j, c, o in cand[:lowest]]
    return DistinctivenessDetail(vd=vd, per_topic=per_topic, n_pairs=n_pairs, lowest=low)


@dataclass
class SemanticScores:
    """Model-level metrics plus the per-topic and per-pair details they came from."""

    metrics: dict[str, float]
    coherence: CoherenceDetail
    distinctiveness: DistinctivenessDetail
    cd: float
    sis: float | None
    params: SemanticParams
    notes: list[str]


def semantic_notes(sis: float | None, params: SemanticParams, n_topics: int) -> list[str]:
    """What a reader of the semantic measures must know: Overall without SIS, one topic."""
    notes = []
    if sis is None:
        notes.append("SIS is not defined by the spec and was not given (overall(sis=X)): overall = "
                     f"{params.w_sc}*sc + {params.w_sd}*sd_avg + {params.w_semdiv}*semdiv, "
                     "without the lambda*SIS term")
    if n_topics < 2:
        notes.append("one topic: SD, VD, SemDiv and Overall need at least two topics (reported as null)")
    return notes


def score_embeddings(topics: Sequence[Sequence[str]], word_vectors: Sequence[np.ndarray] | Mapping[str, np.ndarray],
                     *, params: SemanticParams = SemanticParams(), sis: float | None = None,
                     lowest_pairs: int = 0) -> SemanticScores:
    """Every semantic metric for a topic set, given each topic's word-embedding matrix (or a
    word -> vector mapping). Metric keys: ``sc``, ``sd_avg``, ``vd``, ``cd``, ``semdiv``, ``overall``."""
    if not topics:
        raise ScorekitError("the topic list is empty")
    if isinstance(word_vectors, Mapping):
        word_vectors = [np.stack([word_vectors[w] for w in words]) for words in topics]
    overall_m = Overall(**asdict(params), sis=sis)
    sc_m, sd_m = overall_m._part(SemanticCoherence), overall_m._part(SemanticDistinctiveness)
    cd_m, semdiv_m = ContentDiversity(), overall_m._part(SemanticDiversity)
    batch = TopicBatch(topics, list(word_vectors))
    sc_stats = sc_m.item_stats(batch)
    coh = CoherenceDetail(sc=sc_stats.columns["sc"], weights=sc_stats.columns["pagerank"],
                          cosines=sc_stats.columns["cos_to_topic"], topic_vectors=batch.centres())
    dist = sd_m.detail(sd_m.item_stats(batch), lowest=lowest_pairs)
    metrics = {**sc_m.score(sc_stats), "sd_avg": dist.vd, "vd": dist.vd, **cd_m.score(cd_m.item_stats(batch))}
    metrics["semdiv"] = semdiv_m.combine(metrics)
    metrics["overall"] = overall_m.combine(metrics)
    return SemanticScores(metrics=metrics, coherence=coh, distinctiveness=dist, cd=metrics["cd"], sis=sis,
                          params=params, notes=semantic_notes(sis, params, len(topics)))

PAIRS_KEPT = 5000   # the least distinct pairs a result lists

# --- the measures on the metric contract (over a TopicBatch; SemDiv and Overall derived: combine()) ---

def _p(name: str, doc: str, **kw: Any) -> Param:
    """The measures' parameter ``name``, typed and defaulted as in :class:`SemanticParams`."""
    f = next(f for f in fields(SemanticParams) if f.name == name)
    return Param(name, type(f.default), f.default, doc, **kw)


THRESHOLD = _p("threshold_edge", "keyword graph edge threshold on cosine", low=-1, high=1)
DAMPING = _p("damping", "PageRank damping", low=0, high=1)
SIZE_NORM = _p("sc_size_normalize", "§1's 1/|W| factor (false: the plain lambda-weighted mean)")
PR_TOL = _p("pagerank_tol", "PageRank convergence tolerance", low=0)
PR_ITER = _p("pagerank_max_iter", "PageRank iteration limit", low=1)
GAMMA = _p("gamma_overlap", "SD's overlap weight gamma_direct", low=0, high=1)
ALPHA_VD, BETA_CD, W_SC, W_SD, W_SEMDIV, W_SIS = (_p(n, d) for n, d in (
    ("alpha_vd", "SemDiv weight of VD"), ("beta_cd", "SemDiv weight of CD"),
    ("w_sc", "Overall weight of SC"), ("w_sd", "Overall weight of SD_avg"),
    ("w_semdiv", "Overall weight of SemDiv"), ("w_sis", "Overall weight of SIS")))
SIS = Param("sis", float, None, "the Semantic Integration Score (an input; without it Overall leaves its term out)")
# the keyword embedder of a measure over embeddings: computed once per (model, num_layers) that the
# measures of a run name, pinned in each one's signature (the encoder's name, pooling, window, dtype)
MODEL = Param("model", str, None, "local embedding model folder (default: the shipped all-MiniLM-L6-v2)")
NUM_LAYERS = Param("num_layers", int, None, "pool the states of this layer instead of the model's last",
                   low=0, high=1000)
EMBEDDER = (MODEL, NUM_LAYERS)


@register
class SemanticCoherence(TopicMetric):
    """Semantic coherence SC(T) = (1/|W|) sum_w lambda_w cos(e_w, e_T), lambda = keyword PageRank
    (§1); the model's SC is the mean over topics.

    Per topic also the PageRank weight (``pagerank``) and centroid cosine (``cos_to_topic``) of
    each keyword."""

    name = "sc"
    per_topic = True
    params = (THRESHOLD, DAMPING, SIZE_NORM, PR_TOL, PR_ITER) + EMBEDDER

    def item_stats(self, batch: Any) -> Stats:
        b = self.batch(batch)
        if not len(b):
            return Stats({"sc": np.zeros(0), "pagerank": [], "cos_to_topic": []})
        coh = semantic_coherence(b.vectors(self.embedder()), params=SemanticParams.of(self.values))
        b._cache.setdefault(("centres", self.embedder() if isinstance(b.word_vectors, dict) else None),
                            coh.topic_vectors)
        return Stats({"sc": coh.sc, "pagerank": coh.weights, "cos_to_topic": coh.cosines})


@register
class SemanticDistinctiveness(TopicMetric):
    """Semantic distinctiveness SD(Ti, Tj) = (1 - cos(e_Ti, e_Tj)) (1 - gamma OH(Ti, Tj)) over
    every topic pair (§2): ``sd_avg`` and ``vd`` the mean over pairs (§3, §4), per topic ``sd``
    the mean SD to the other topics."""

    name = "sd"
    keys = ("sd_avg", "vd", "sd")
    params = (GAMMA,) + EMBEDDER
    key_info = {"sd_avg": {"doc": "Mean pairwise semantic distinctiveness SD(Ti, Tj) (§2, §4)."},
                "vd": {"doc": "VD = mean over topic pairs of SD(Ti, Tj) (§3)."},
                "sd": {"doc": "Semantic distinctiveness of a topic: mean over the other topics of "
                              "SD(Ti, Tj) = (1 - cos(e_Ti, e_Tj)) (1 - 0.7 OH) (§2)."}}

    def item_stats(self, batch: Any) -> Stats:
        b = self.batch(batch)
        centres = b.centres(self.embedder()) if len(b) else np.zeros((0, 0))
        return Stats({"centre": centres, "keywords": list(b.topics)})

    def detail(self, stats: Stats, lowest: int = PAIRS_KEPT) -> DistinctivenessDetail:
        """Every pair's SD, summarised (at least the ``lowest`` least distinct pairs kept);
        computed once per statistics and gamma (score, item_scores and the pairs a result lists
        share it)."""
        cache = stats.__dict__.setdefault("_sd_details", {})
        gamma = self.values["gamma_overlap"]
        for (g, n), d in cache.items():
            if g == gamma and n >= lowest:
                return d
        cache[(gamma, lowest)] = semantic_distinctiveness_all(stats.columns["centre"], stats.columns["keywords"],
                                                              gamma=gamma, lowest=lowest)
        return cache[(gamma, lowest)]

    def score(self, stats: Stats) -> dict[str, float]:
        if not len(stats):
            return dict.fromkeys(self.keys, float("nan"))
        d = self.detail(stats)
        return {"sd_avg": d.vd, "vd": d.vd, "sd": mean_or_nan(d.per_topic)}

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {"sd": self.detail(stats).per_topic if len(stats) else np.zeros(0)}


@register
class ContentDiversity(TopicMetric):
    """CD = 1 - |union of keywords| / sum |W_i| (§3; as written it grows with keyword overlap)."""

    name = "cd"
    kind = "rate"

    def score(self, stats: Stats) -> dict[str, float]:
        return {"cd": content_diversity(stats.columns["keywords"])}


class _Derived(TopicMetric):
    """A measure combined (:meth:`combine`) from the values of the measures it is derived from,
    each built with this one's values of its parameters."""

    derived_from: tuple[type[TopicMetric], ...] = ()

    def item_stats(self, batch: Any) -> Stats:
        return Stats({k: v for cls in self.derived_from
                      for k, v in self._part(cls).item_stats(batch).columns.items()})

    def score(self, stats: Stats) -> dict[str, float]:
        if not len(stats):
            return {self.name: float("nan")}
        return {self.name: self.combine({k: v for cls in self.derived_from
                                         for k, v in self._part(cls).score(stats).items()})}


@register
class SemanticDiversity(_Derived):
    """SemDiv = alpha VD + beta CD (§3), derived from VD and CD."""

    name = "semdiv"
    params = (GAMMA, ALPHA_VD, BETA_CD) + EMBEDDER
    derived_from = (SemanticDistinctiveness, ContentDiversity)

    def combine(self, values: dict[str, float]) -> float:
        return semantic_diversity(values["vd"], values["cd"], alpha=self.values["alpha_vd"],
                                    beta=self.values["beta_cd"])


@register
class Overall(_Derived):
    """Overall = 0.4 SC + 0.4 SD_avg + 0.2 SemDiv (+ 0.2 SIS when given) (§4), derived from them."""

    name = "overall"
    params = (THRESHOLD, DAMPING, SIZE_NORM, PR_TOL, PR_ITER, GAMMA, ALPHA_VD, BETA_CD, W_SC, W_SD, W_SEMDIV,
              W_SIS, SIS) + EMBEDDER
    derived_from = (SemanticCoherence, SemanticDistinctiveness, ContentDiversity)

    def combine(self, values: dict[str, float]) -> float:
        """From SC, SD_avg and the parts of SemDiv (computed here, with this measure's weights)."""
        v = self.values
        semdiv = self._part(SemanticDiversity).combine(values)
        return overall_score(values["sc"], values["sd_avg"], semdiv, v["sis"], w_sc=v["w_sc"],
                             w_sd=v["w_sd"], w_semdiv=v["w_semdiv"], w_sis=v["w_sis"])


declare("topics", "pagerank", kind="rate",
        doc="PageRank weight of each keyword in the topic's similarity graph (SC's lambda).")
declare("topics", "cos_to_topic", kind="score",
        doc="Cosine of each keyword to its topic centroid (SC's cos(e_w, e_T)).")
declare("topics", "sis", kind="score", doc="Semantic integration score, as given (§4).")


__all__ = [
    "SemanticParams", "SemanticScores", "CoherenceDetail", "DistinctivenessDetail",
    "content_diversity", "hierarchical_overlap", "overall_score", "score_embeddings",
    "semantic_coherence", "semantic_coherence_from_parts", "semantic_distinctiveness",
    "semantic_distinctiveness_all", "semantic_diversity", "vector_diversity", "SemanticCoherence",
    "SemanticDistinctiveness", "ContentDiversity", "SemanticDiversity", "Overall", "EMBEDDER",
]
