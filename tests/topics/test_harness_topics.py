"""The topic measures (#26: on the metric contract) through the shared harness (tests/harness.py):
against a naive reference (networkx PageRank and the spec's formulas pair by pair,
tests/topics/test_semantic.py) and gensim's CoherenceModel; shards of a topic set merge to the
whole, NFD keywords and corpus score as NFC, empty and single-topic sets, stateful = functional.
English and Korean keywords."""

from __future__ import annotations

import dataclasses
import logging
import warnings

import numpy as np
import pytest
from hypothesis import strategies as st

from scorekit.metrics import REGISTRY
from scorekit.topics.batch import TopicBatch
from scorekit.topics.semantic import SemanticParams
from tests.harness import MetricCase, Shape, harness_test
from tests.topics.test_semantic import naive

logging.getLogger("gensim").setLevel(logging.ERROR)
WORDS = ["apple", "bank", "car", "data", "engine", "film", "경제", "시장", "주식", "영화", "배우", "음악"]


def _text(batch: TopicBatch, fn, everything: bool = True) -> TopicBatch:
    """Keywords rewritten (the topic model's side), and with ``everything`` the corpus too."""
    return TopicBatch([[fn(w) for w in t] for t in batch.topics], batch.word_vectors, batch.names,
                      None if batch.texts is None else [[fn(w) if everything else w for w in d] for d in batch.texts],
                      None if batch.corpus_topics is None else [[fn(w) for w in t] for t in batch.corpus_topics],
                      batch.first_in_vocab)


TOPICS = Shape("topic set", size=len, slice=lambda b, a, c: b.slice(a, c), text=_text)


@st.composite
def topic_sets(draw, corpus: bool = False):
    seed = draw(st.integers(0, 10**6))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, 6))
    topics = [list(rng.choice(WORDS, int(rng.integers(2, 6)), replace=False)) for _ in range(n)]
    base = rng.normal(size=6)
    table = {w: rng.normal(size=6) + base * rng.uniform(0, 2) for w in WORDS}
    vectors = [np.stack([table[w] for w in t]) for t in topics]
    texts = None
    if corpus:   # every word occurs; few word types, long documents (gensim's window quirks)
        texts = [list(rng.choice(WORDS, int(rng.integers(3, 30)))) for _ in range(int(rng.integers(2, 7)))]
        texts.append(list(WORDS))
    return TopicBatch(topics, vectors, texts=texts, corpus_topics=topics if corpus else None)


P = SemanticParams(threshold_edge=0.2, gamma_overlap=0.6, alpha_vd=0.3, beta_cd=0.7, w_sc=0.5, w_sd=0.3,
                   w_semdiv=0.2, w_sis=0.1)
PARAMS = {"sc": {"threshold_edge": 0.2}, "sd": {"gamma_overlap": 0.6}, "cd": {},
          "semdiv": {"gamma_overlap": 0.6, "alpha_vd": 0.3, "beta_cd": 0.7},
          "overall": {"threshold_edge": 0.2, "gamma_overlap": 0.6, "alpha_vd": 0.3, "beta_cd": 0.7, "w_sc": 0.5,
                      "w_sd": 0.3, "w_semdiv": 0.2, "w_sis": 0.1, "sis": 0.4}}


def semantic_oracle(keys, per_topic=None):
    def oracle(b):
        want, sc, _ = naive(b.topics, b.word_vectors, P, sis=0.4)
        items = {"sc": list(sc)} if per_topic == "sc" else {}
        return {k: want[k] for k in keys}, items
    return oracle


def coherence_oracle(b):
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    corpus, items = {}, {}
    for key, measure in (("npmi", "c_npmi"), ("c_v", "c_v"), ("u_mass", "u_mass")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cm = CoherenceModel(topics=b.topics, texts=b.texts, dictionary=Dictionary(b.texts), coherence=measure,
                                topn=3, processes=1)
            items[key] = list(cm.get_coherence_per_topic())
            corpus[key] = float(cm.get_coherence())
    return corpus, items


def diversity_oracle(b):   # OCTIS' TopicDiversity, k = 2
    top = [t[:2] for t in b.topics]
    return {"topic_diversity": len({w for t in top for w in t}) / sum(map(len, top))}, {}


def case(name, oracle, *, corpus=False, single_na=(), rel=1e-9, params=None):
    cls = REGISTRY.metric_class("topics", name)
    return MetricCase(cls, dict(PARAMS.get(name, {}) if params is None else params), batches=topic_sets(corpus),
                      shape=TOPICS, oracle=oracle, rel=rel, single_na=single_na, max_examples=10)


HARNESS_CASES = [
    case("sc", semantic_oracle(["sc"], "sc"), rel=1e-8),
    case("sd", semantic_oracle(["sd_avg", "vd"]), single_na=("sd_avg", "vd", "sd")),
    case("cd", semantic_oracle(["cd"])),
    case("semdiv", semantic_oracle(["semdiv"]), single_na=("semdiv",)),
    case("overall", semantic_oracle(["overall"]), single_na=("overall",), rel=1e-8),
    case("coherence", coherence_oracle, corpus=True, rel=1e-9, params={"topn": 3}),
    case("topic_diversity", diversity_oracle, params={"topk": 2}),
]
test_harness = harness_test(HARNESS_CASES)


def test_every_topic_measure_has_a_case():
    assert {c.cls for c in HARNESS_CASES} == set(REGISTRY.classes("topics"))


def test_nfd_keywords_against_an_nfc_corpus_find_their_words():
    import unicodedata

    b = TopicBatch([["경제", "시장"], ["주식", "영화"]], [np.eye(2), np.eye(2)[::-1]],
                   texts=[["경제", "시장", "주식"], ["영화", "주식"]])
    nfd = dataclasses.replace(b, topics=[[unicodedata.normalize("NFD", w) for w in t] for t in b.topics])
    m = REGISTRY.metric_class("topics", "coherence")()
    assert m(nfd) == m(b) and all(np.isfinite(v) for v in m(b).values())


@pytest.mark.parametrize("name", ["sc", "cd"])
def test_params_reach_the_measure(name):
    b = TopicBatch([["a", "b", "c"], ["b", "c", "d"]],
                   [np.eye(3), np.eye(3)[::-1] + 0.1])
    cls = REGISTRY.metric_class("topics", name)
    if name == "sc":
        assert cls(threshold_edge=-1.0)(b) != cls(threshold_edge=0.9)(b)
    else:
        assert cls()(b)["cd"] == pytest.approx(1 - 4 / 6)
