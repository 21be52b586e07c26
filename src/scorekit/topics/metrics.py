"""Topic measures on the metric contract (topic-metrics.md), over a :class:`TopicBatch`: one item
per topic (its keywords, its keyword embeddings, and — for the corpus anchors — the reference
corpus shared by every topic).

Per-item statistics are per-topic quantities (SC with its PageRank weights and cosines, the topic
centroid, the keyword set, the gensim coherences), so shards of a topic set merge by concatenation
and every set-level measure (SD over all pairs, CD, topic diversity) is scored once from the
merged rows: the same numbers in one process, in forked parts and on Ray. SemDiv and Overall are
derived from the measures they combine (:meth:`combine`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from dataclasses import fields as dc_fields
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.metrics.base import Metric, Param, Stats
from scorekit.metrics.registry import declare, register
from scorekit.topics import semantic as S


@dataclass
class TopicBatch:
    """A topic set to score: keywords per topic, each topic's ``(|W|, d)`` keyword embeddings,
    topic names, and for the corpus anchors the tokenised reference corpus (``texts``), the
    topics as the corpus is matched (``corpus_topics``: lower-cased for the lower-casing
    tokenizers) and gensim's ``topn`` cut decided on the whole set (``topn_cut``)."""

    topics: list[list[str]]
    word_vectors: list[np.ndarray] | None = None
    names: list[str] | None = None
    texts: list[list[str]] | None = field(default=None, repr=False)
    corpus_topics: list[list[str]] | None = None
    topn: int | None = 20
    topn_cut: bool | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.topics = [list(t) for t in self.topics]
        self.names = list(self.names) if self.names is not None else [f"t{i + 1}" for i in range(len(self.topics))]
        if self.word_vectors is not None and len(self.word_vectors) != len(self.topics):
            raise ScorekitError("one embedding matrix per topic expected")
        if self.texts is not None and self.topn_cut is None and self.topics:
            from scorekit.topics.coherence import resolve_topics

            vocab = {tok for text in self.texts for tok in text}
            kept, _ = resolve_topics(self.corpus_topics or self.topics, vocab, None, self.names)
            self.topn_cut = self.topn is not None and len(kept[0]) > self.topn   # gensim: the first topic decides

    def __len__(self) -> int:
        return len(self.topics)

    def slice(self, a: int, b: int) -> "TopicBatch":
        return TopicBatch(self.topics[a:b], None if self.word_vectors is None else self.word_vectors[a:b],
                          self.names[a:b], self.texts, None if self.corpus_topics is None else self.corpus_topics[a:b],
                          self.topn, self.topn_cut)

    def centres(self) -> np.ndarray:
        """``e_T`` of every topic (the mean of its keyword embeddings), computed once."""
        if "centres" not in self._cache:
            self._cache["centres"] = S.topic_centres(self.vectors())
        return self._cache["centres"]

    def vectors(self) -> list[np.ndarray]:
        if self.word_vectors is None:
            raise ScorekitError("the semantic topic measures need keyword embeddings")
        return self.word_vectors


def _f(name: str) -> Any:
    return next(f.default for f in dc_fields(S.SemanticParams) if f.name == name)


THRESHOLD = Param("threshold_edge", float, _f("threshold_edge"), "keyword graph edge threshold on cosine",
                  low=-1, high=1)
DAMPING = Param("damping", float, _f("damping"), "PageRank damping", low=0, high=1)
SIZE_NORM = Param("sc_size_normalize", bool, True, "§1's 1/|W| factor (false: the plain lambda-weighted mean)")
PR_TOL = Param("pagerank_tol", float, _f("pagerank_tol"), "PageRank convergence tolerance", low=0)
PR_ITER = Param("pagerank_max_iter", int, _f("pagerank_max_iter"), "PageRank iteration limit", low=1)
GAMMA = Param("gamma_overlap", float, _f("gamma_overlap"), "SD's overlap weight gamma_direct", low=0, high=1)
ALPHA_VD = Param("alpha_vd", float, _f("alpha_vd"), "SemDiv weight of VD")
BETA_CD = Param("beta_cd", float, _f("beta_cd"), "SemDiv weight of CD")
W_SC, W_SD, W_SEMDIV, W_SIS = (Param(n, float, _f(n), d) for n, d in (
    ("w_sc", "Overall weight of SC"), ("w_sd", "Overall weight of SD_avg"), ("w_semdiv", "Overall weight of SemDiv"),
    ("w_sis", "Overall weight of SIS")))
SIS = Param("sis", float, None, "the Semantic Integration Score (an input; without it Overall leaves its term out)")


class TopicMetric(Metric):
    """Base of the topic measures: a batch is a :class:`TopicBatch` (or ``(topics, vectors)``)."""

    family = "topics"
    kind = "score"

    def batch(self, batch: Any) -> TopicBatch:
        if isinstance(batch, TopicBatch):
            return batch
        topics, vectors = batch
        return TopicBatch(topics, vectors)

    def semantic_params(self) -> S.SemanticParams:
        """The :class:`~scorekit.topics.semantic.SemanticParams` these values set (the rest default)."""
        names = {f.name for f in dc_fields(S.SemanticParams)}
        return S.SemanticParams(**{k: v for k, v in self.values.items() if k in names})

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {}   # set-level measures: no per-topic value


def _mean(x: np.ndarray) -> float:
    return float(np.mean(x)) if len(x) else float("nan")


@register
class SemanticCoherence(TopicMetric):
    """Semantic coherence SC(T) = (1/|W|) sum_w lambda_w cos(e_w, e_T), lambda = keyword PageRank
    (§1); the model's SC is the mean over topics.

    Per topic also the PageRank weight (``pagerank``) and centroid cosine (``cos_to_topic``) of
    each keyword."""

    name = "sc"
    params = (THRESHOLD, DAMPING, SIZE_NORM, PR_TOL, PR_ITER)

    def item_stats(self, batch: Any) -> Stats:
        b = self.batch(batch)
        if not len(b):
            return Stats({"sc": np.zeros(0), "pagerank": [], "cos_to_topic": []})
        coh = S.semantic_coherence(b.vectors(), params=self.semantic_params())
        b._cache.setdefault("centres", coh.topic_vectors)
        return Stats({"sc": coh.sc, "pagerank": coh.weights, "cos_to_topic": coh.cosines})

    def score(self, stats: Stats) -> dict[str, float]:
        return {"sc": _mean(stats.columns["sc"])}

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {"sc": np.asarray(stats.columns["sc"], dtype=np.float64)}


@register
class SemanticDistinctiveness(TopicMetric):
    """Semantic distinctiveness SD(Ti, Tj) = (1 - cos(e_Ti, e_Tj)) (1 - gamma OH(Ti, Tj)) over
    every topic pair (§2): ``sd_avg`` and ``vd`` the mean over pairs (§3, §4), per topic ``sd``
    the mean SD to the other topics."""

    name = "sd"
    keys = ("sd_avg", "vd", "sd")
    params = (GAMMA,)
    key_info = {"sd_avg": {"doc": "Mean pairwise semantic distinctiveness SD(Ti, Tj) (§2, §4)."},
                "vd": {"doc": "VD = mean over topic pairs of SD(Ti, Tj) (§3)."},
                "sd": {"doc": "Semantic distinctiveness of a topic: mean over the other topics of "
                              "SD(Ti, Tj) = (1 - cos(e_Ti, e_Tj)) (1 - 0.7 OH) (§2)."}}

    def item_stats(self, batch: Any) -> Stats:
        b = self.batch(batch)
        centres = b.centres() if len(b) else np.zeros((0, 0))
        return Stats({"centre": centres, "keywords": list(b.topics)})

    def detail(self, stats: Stats, lowest: int = 0) -> S.DistinctivenessDetail:
        """Every pair's SD, summarised (the ``lowest`` least distinct pairs kept)."""
        return S.semantic_distinctiveness_all(stats.columns["centre"], stats.columns["keywords"],
                                              gamma=self.values["gamma_overlap"], lowest=lowest)

    def score(self, stats: Stats) -> dict[str, float]:
        if not len(stats):
            return dict.fromkeys(self.keys, float("nan"))
        d = self.detail(stats)
        return {"sd_avg": d.vd, "vd": d.vd, "sd": _mean(d.per_topic)}

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {"sd": self.detail(stats).per_topic if len(stats) else np.zeros(0)}


@register
class ContentDiversity(TopicMetric):
    """CD = 1 - |union of keywords| / sum |W_i| (§3; as written it grows with keyword overlap)."""

    name = "cd"
    kind = "rate"

    def item_stats(self, batch: Any) -> Stats:
        return Stats({"keywords": list(self.batch(batch).topics)})

    def score(self, stats: Stats) -> dict[str, float]:
        return {"cd": S.content_diversity(stats.columns["keywords"])}


@register
class SemanticDiversity(TopicMetric):
    """SemDiv = alpha VD + beta CD (§3), derived from VD and CD."""

    name = "semdiv"
    params = (GAMMA, ALPHA_VD, BETA_CD)

    def combine(self, values: dict[str, float]) -> float:
        return S.semantic_diversity(values["vd"], values["cd"], alpha=self.values["alpha_vd"],
                                    beta=self.values["beta_cd"])

    def parts(self, stats: Stats) -> dict[str, float]:
        return {**SemanticDistinctiveness(gamma_overlap=self.values["gamma_overlap"]).score(stats),
                **ContentDiversity().score(stats)}

    def item_stats(self, batch: Any) -> Stats:
        return SemanticDistinctiveness(gamma_overlap=self.values["gamma_overlap"]).item_stats(batch)

    def score(self, stats: Stats) -> dict[str, float]:
        return {"semdiv": self.combine(self.parts(stats)) if len(stats) else float("nan")}


@register
class Overall(TopicMetric):
    """Overall = 0.4 SC + 0.4 SD_avg + 0.2 SemDiv (+ 0.2 SIS when given) (§4), derived from them."""

    name = "overall"
    params = (THRESHOLD, DAMPING, SIZE_NORM, PR_TOL, PR_ITER, GAMMA, ALPHA_VD, BETA_CD, W_SC, W_SD, W_SEMDIV,
              W_SIS, SIS)

    def _part(self, cls: type[TopicMetric]) -> TopicMetric:
        return cls(**{p.name: self.values[p.name] for p in cls.params})

    def combine(self, values: dict[str, float]) -> float:
        v = self.values
        return S.overall_score(values["sc"], values["sd_avg"], values["semdiv"], v["sis"], w_sc=v["w_sc"],
                               w_sd=v["w_sd"], w_semdiv=v["w_semdiv"], w_sis=v["w_sis"])

    def item_stats(self, batch: Any) -> Stats:
        sc = self._part(SemanticCoherence).item_stats(batch)
        sd = self._part(SemanticDistinctiveness).item_stats(batch)
        return Stats({**sc.columns, **sd.columns})

    def score(self, stats: Stats) -> dict[str, float]:
        if not len(stats):
            return {"overall": float("nan")}
        sd = self._part(SemanticDiversity)
        values = {**self._part(SemanticCoherence).score(stats), **sd.parts(stats)}
        values["semdiv"] = sd.combine(values)
        return {"overall": self.combine(values)}


CORPUS_MEASURES = {"npmi": "c_npmi", "c_v": "c_v", "u_mass": "u_mass"}


@register
class CorpusCoherence(TopicMetric):
    """gensim's CoherenceModel over the reference corpus (processes=1): NPMI (c_npmi, window
    10), C_V (window 110) and UMass (document co-occurrence), per topic and their mean (NaN when
    a topic has none, as gensim).

    Keywords absent from the corpus are left out of a topic, as gensim does."""

    name = "coherence"
    keys = ("npmi", "c_v", "u_mass")
    key_info = {"npmi": {"doc": "NPMI coherence (gensim c_npmi, window 10), -1..1."},
                "c_v": {"doc": "C_V coherence (gensim c_v, window 110), 0..1.", "kind": "rate"},
                "u_mass": {"doc": "UMass coherence (gensim u_mass, document co-occurrence), <= 0."}}

    def item_stats(self, batch: Any) -> Stats:
        from scorekit.topics.coherence import coherence

        b = self.batch(batch)
        if b.texts is None:
            raise ScorekitError("the corpus coherences need a reference corpus (--corpus)")
        cols: dict[str, Any] = {}
        missing: list[list[str]] = [[] for _ in b.topics]
        topics = b.corpus_topics or b.topics
        for key, measure in CORPUS_MEASURES.items():
            if not len(b):
                cols[key] = np.zeros(0)
                continue
            res = coherence(topics, b.texts, measure, topn=b.topn, names=b.names, cut=b.topn_cut)
            cols[key] = res.per_topic
            for i, words in res.dropped.items():
                missing[i] = words
        cols["dropped"] = missing
        return Stats(cols)

    def score(self, stats: Stats) -> dict[str, float]:
        return {k: _mean(stats.columns[k]) for k in self.keys}

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {k: np.asarray(stats.columns[k], dtype=np.float64) for k in self.keys}


@register
class TopicDiversity(TopicMetric):
    """Topic diversity: distinct words in the top-k of every topic / (k x topics) (Dieng et al.
    2020, as OCTIS)."""

    name = "topic_diversity"
    kind = "rate"
    params = (Param("topk", int, 10, "top-k words per topic", low=1),)

    def item_stats(self, batch: Any) -> Stats:
        return Stats({"keywords": list(self.batch(batch).topics)})

    def score(self, stats: Stats) -> dict[str, float]:
        from scorekit.topics.coherence import topic_diversity

        kw = stats.columns["keywords"]
        return {"topic_diversity": topic_diversity(kw, self.values["topk"]) if kw else float("nan")}


# What a topics result carries beside the measures: an input and the meta-evaluation against ratings.
declare("topics", "pagerank", kind="rate", doc="PageRank weight of each keyword in the topic's similarity graph (SC's lambda).")
for _key, _doc in (("cos_to_topic", "Cosine of each keyword to its topic centroid (SC's cos(e_w, e_T))."),
                   ("sis", "Semantic integration score, as given (§4)."),
                   ("rating", "Human/LLM rating of the topic, as read from the ratings file."),
                   ("icc", "Intraclass correlations (Shrout-Fleiss ICC(1,1)..ICC(3,k)) of the raters; agreement."),
                   ("pearson", "Pearson correlation of a per-topic metric with the ratings."),
                   ("spearman", "Spearman correlation of a per-topic metric with the ratings."),
                   ("kendall", "Kendall tau-b of a per-topic metric with the ratings.")):
    declare("topics", _key, kind="score", doc=_doc)


def semantic_metrics(params: S.SemanticParams = S.SemanticParams(), sis: float | None = None) -> list[TopicMetric]:
    """SC, SD, CD, SemDiv and Overall with ``params`` (the spec's values by default)."""
    p = {f.name: getattr(params, f.name) for f in dc_fields(S.SemanticParams)}
    out: list[TopicMetric] = []
    for cls in (SemanticCoherence, SemanticDistinctiveness, ContentDiversity, SemanticDiversity, Overall):
        names = {q.name for q in cls.params}
        out.append(cls(**{k: v for k, v in {**p, "sis": sis}.items() if k in names}))
    return out


__all__ = ["CORPUS_MEASURES", "ContentDiversity", "CorpusCoherence", "Overall", "SemanticCoherence",
           "SemanticDistinctiveness", "SemanticDiversity", "TopicBatch", "TopicDiversity", "TopicMetric",
           "semantic_metrics"]
