"""Metadata of the result keys ``scorekit topics`` writes: model-level metrics and the per-topic
values in its ``per_item`` rows (topic-metrics.md)."""

from __future__ import annotations

from scorekit.metrics.registry import declare

_F = "topics"
# key: (kind, higher is better, doc)
_DOCS = {
    "sc": ("score", True, "Semantic coherence SC(T) = (1/|W|) sum_w lambda_w cos(e_w, e_T), lambda = keyword PageRank (§1)."),
    "sd": ("score", True, "Semantic distinctiveness of a topic: mean over the other topics of "
                          "SD(Ti, Tj) = (1 - cos(e_Ti, e_Tj)) (1 - 0.7 OH) (§2)."),
    "sd_avg": ("score", True, "Mean pairwise semantic distinctiveness SD(Ti, Tj) (§2, §4)."),
    "vd": ("score", True, "VD = mean over topic pairs of SD(Ti, Tj) (§3)."),
    "cd": ("rate", True, "CD = 1 - |union of keywords| / sum |W_i| (§3; as written it grows with keyword overlap)."),
    "semdiv": ("score", True, "SemDiv = 0.5 VD + 0.5 CD (§3)."),
    "sis": ("score", True, "Semantic integration score, as given (§4)."),
    "overall": ("score", True, "Overall = 0.4 SC + 0.4 SD_avg + 0.2 SemDiv (+ 0.2 SIS when given) (§4)."),
    "npmi": ("score", True, "NPMI coherence (gensim c_npmi, window 10), -1..1."),
    "c_v": ("rate", True, "C_V coherence (gensim c_v, window 110), 0..1."),
    "u_mass": ("score", True, "UMass coherence (gensim u_mass, document co-occurrence), <= 0."),
    "topic_diversity": ("rate", True, "Topic diversity: distinct words in the top-k of every topic / (k x topics)."),
    "rating": ("score", True, "Human/LLM rating of the topic, as read from the ratings file."),
    "pagerank": ("rate", True, "PageRank weight of each keyword in the topic's similarity graph."),
    "cos_to_topic": ("score", True, "Cosine of each keyword to its topic centroid."),
    "icc": ("score", True, "Intraclass correlations (Shrout-Fleiss ICC(1,1)..ICC(3,k)) of the raters; agreement."),
    "pearson": ("score", True, "Pearson correlation of a per-topic metric with the ratings."),
    "spearman": ("score", True, "Spearman correlation of a per-topic metric with the ratings."),
    "kendall": ("score", True, "Kendall tau-b of a per-topic metric with the ratings."),
}
for _key, (_kind, _hib, _doc) in _DOCS.items():
    declare(_F, _key, kind=_kind, higher_is_better=_hib, doc=_doc)
