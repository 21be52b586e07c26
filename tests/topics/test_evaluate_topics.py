"""evaluate_topics without the model (given embeddings): Result shape, corpus anchors, ratings."""

import json

import numpy as np
import pytest
from gensim.corpora import Dictionary
from gensim.models.coherencemodel import CoherenceModel

from scorekit.io.topics import parse_ratings, parse_topics
from scorekit.topics import evaluate_topics
from scorekit.topics.coherence import tokenize_corpus

TOPICS = parse_topics('{"tech": ["Computer", "software", "code"], "cars": ["car", "engine", "road"],'
                      ' "money": ["bank", "loan", "code"], "경제": ["경제", "시장", "주식"]}')
CORPUS = ["The computer runs software code.", "A car engine on the road.", "The bank gave a loan.",
          "software code for the bank", "car loan from the bank", "경제 성장과 주식 시장", "주식 시장과 경제"]


def vectors(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(len(t), 12)) for t in TOPICS.topics]


def test_result_with_corpus_ratings_and_grid():
    ratings = parse_ratings("topic,a,b\ntech,4,5\ncars,3,4\nmoney,2,2\n경제,5,4\n", TOPICS)
    r = evaluate_topics(TOPICS.topics, names=TOPICS.names, word_vectors=vectors(), corpus=CORPUS,
                        ratings=ratings, grid=True, n_resamples=50)
    assert list(r.metrics) == ["sc", "sd_avg", "vd", "cd", "semdiv", "overall", "npmi", "c_v", "u_mass",
                               "topic_diversity"]
    assert r.metrics["cd"] == pytest.approx(1 - 11 / 12)          # "code" is shared
    assert r.metrics["topic_diversity"] == pytest.approx(11 / 12)
    texts = tokenize_corpus(CORPUS)
    lowered = [[w.lower() for w in t] for t in TOPICS.topics]
    for key, measure in (("npmi", "c_npmi"), ("c_v", "c_v"), ("u_mass", "u_mass")):
        cm = CoherenceModel(topics=lowered, texts=texts, dictionary=Dictionary(texts), coherence=measure,
                            processes=1)
        np.testing.assert_allclose([row[key] for row in r.per_item], cm.get_coherence_per_topic(), atol=1e-9)
    assert [row["rating"] for row in r.per_item] == [4.5, 3.5, 2.0, 4.5]
    meta = r.extra["meta"]
    assert len(meta["correlations"]) == 5 * 3 and "ICC(2,1)" in meta["icc"]
    assert len(meta["gamma_grid"]) == 5 and len(meta["threshold_grid"]) == 5
    assert r.extra["n_pairs"] == 6 and len(r.extra["pairs"]) == 6
    assert r.extra["pairs"] == sorted(r.extra["pairs"], key=lambda p: p["sd"])
    assert "|sc:model=given-vectors|" in r.signature and "corpus_tok:auto" in r.signature
    json.loads(r.to_json())                                       # JSON-clean (no NaN)


def test_oov_note_and_single_topic():
    r = evaluate_topics([["computer", "zebra"], ["car", "road"]], word_vectors=[np.eye(2), np.eye(2)],
                        corpus=CORPUS)
    assert any("zebra" in n for n in r.extra["notes"])
    r = evaluate_topics([["a", "b"]], word_vectors=[np.eye(2)])
    d = r.to_dict()
    assert d["metrics"]["vd"] is None and d["metrics"]["sc"] is not None
