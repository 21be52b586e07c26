"""#26: the topic measures run through the one driver — forked parts give the one-process numbers
(to 1e-12; in fact bit for bit) on random topic sets, with the corpus anchors and Korean keywords.
Ray runs the same driver (tests/engine/test_ray.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.engine.executors import Forked
from scorekit.topics import evaluate_topics

WORDS = "car road engine bank loan code software computer market stock 경제 시장 주식 학교".split()
CORPUS = ["car road engine", "bank loan code software", "computer software code", "market stock bank",
          "경제 시장 주식", "학교 시장", "car loan bank market", "engine computer road"]


def same(a, b):
    assert list(a.metrics) == list(b.metrics) and a.signature == b.signature
    for k, v in a.metrics.items():
        w = b.metrics[k]
        assert (np.isnan(v) and np.isnan(w)) or abs(v - w) <= 1e-12, k
    assert a.extra["pairs"] == b.extra["pairs"] and a.extra["notes"] == b.extra["notes"]
    for ra, rb in zip(a.per_item, b.per_item):
        assert ra.keys() == rb.keys()
        for k in ra:
            x, y = ra[k], rb[k]
            assert x == y or (isinstance(x, float) and np.isnan(x) and np.isnan(y)), k


def random_set(seed: int, n: int):
    rng = np.random.default_rng(seed)
    topics = [list(rng.choice(WORDS, int(rng.integers(2, 6)), replace=False)) for _ in range(n)]
    return topics, [rng.normal(size=(len(t), 8)) for t in topics]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 9), size=st.integers(1, 4), corpus=st.booleans())
def test_random_topic_sets_forked_equal_one_process(seed, n, size, corpus):
    topics, vectors = random_set(seed, n)
    ms = ["sc", "sd", "cd", "semdiv", "overall(sis=0.5)" if seed % 2 else "overall"]
    kw = dict(word_vectors=vectors, corpus=CORPUS if corpus else None,
              metrics=ms + (["coherence(topn=3)", "topic_diversity(topk=2)"] if corpus else []))
    one = evaluate_topics(topics, **kw)
    same(one, evaluate_topics(topics, engine=Forked(workers=2, items_per_shard=size), **kw))


def test_topn_cut_is_decided_by_the_whole_set_on_every_shard():
    """gensim cuts every topic to topn when the first topic is longer: a shard whose first topic
    is short must cut too."""
    topics = [["car", "road", "engine", "bank"], ["bank", "loan"], ["stock", "market"],
              ["code", "software", "computer", "market"]]
    vectors = [np.eye(len(t), 4) for t in topics]
    one = evaluate_topics(topics, word_vectors=vectors, corpus=CORPUS, metrics=["coherence(topn=3)"])
    forked = evaluate_topics(topics, word_vectors=vectors, corpus=CORPUS, metrics=["coherence(topn=3)"],
                             engine=Forked(workers=2, items_per_shard=2))
    same(one, forked)
    uncut = evaluate_topics(topics, word_vectors=vectors, corpus=CORPUS, metrics=["coherence"])   # topn 20
    assert uncut.per_item[3]["c_v"] != one.per_item[3]["c_v(topn=3)"]   # the cut changed topic 4


@pytest.mark.parametrize("form", ["NFC", "NFD"])
def test_korean_keywords_score_alike_in_either_normal_form(form):
    import unicodedata

    topics = [["경제", "시장", "주식"], ["학교", "시장"]]
    vectors = [np.arange(len(t) * 4, dtype=float).reshape(len(t), 4) + i for i, t in enumerate(topics)]
    given_form = [[unicodedata.normalize(form, w) for w in t] for t in topics]
    corpus = [unicodedata.normalize(form, d) for d in CORPUS]
    a = evaluate_topics(given_form, word_vectors=vectors, corpus=corpus, tokenizer="whitespace")
    b = evaluate_topics(topics, word_vectors=vectors, corpus=CORPUS, tokenizer="whitespace")
    assert a.metrics == b.metrics


def test_a_large_set_keeps_the_least_distinct_pairs_and_says_so():
    topics, vectors = random_set(5, 102)    # 5,151 pairs: more than the 5,000 a result lists
    topics = [[f"{w}{i}" for w in t] for i, t in enumerate(topics)]
    r = evaluate_topics(topics, word_vectors=vectors)
    assert r.extra["n_pairs"] == 102 * 101 // 2 and len(r.extra["pairs"]) == 5000
    assert any("the 5000 least distinct of 5151 kept" in n for n in r.extra["notes"])
    assert r.extra["pairs"] == sorted(r.extra["pairs"], key=lambda p: p["sd"])
