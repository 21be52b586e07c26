"""The whole path with real all-MiniLM-L6-v2 embeddings (English and Korean keywords)."""

import itertools

import numpy as np
import pytest

from scorekit.errors import ScorekitError
from scorekit.topics import evaluate_topics
from scorekit.topics.embed import KeywordEmbedder
from scorekit.topics.semantic import hierarchical_overlap, semantic_distinctiveness

pytestmark = pytest.mark.slow  # loads the model (a few seconds)

EN = {"tech": ["computer", "software", "programming"], "cars": ["car", "engine", "vehicle"],
      "books": ["book", "reading", "literature"]}
KO = {"경제": ["경제", "시장", "주식", "금리"], "스포츠": ["축구", "야구", "선수", "경기"],
      "음식": ["김치", "비빔밥", "요리", "음식"], "혼합": ["시장", "선수", "요리", "경제"]}


@pytest.fixture(scope="module")
def embedder():
    # MiniLM sees Korean as jamo; these tests check the machinery, so the refusal is waived
    return KeywordEmbedder(allow_english_model=True)


def test_spec_toy_topic_with_real_embeddings(embedder):
    r = evaluate_topics(list(EN.values()), names=list(EN), metrics=["sc", "sd", "cd", "semdiv", "overall(sis=0.75)"])
    tech = r.per_item[0]
    # real PageRank weights of the spec's topic round to the spec's λ (0.32, 0.35, 0.33)
    assert [round(x, 2) for x in tech["pagerank"]] == [0.32, 0.35, 0.33]
    assert sum(tech["pagerank"]) == pytest.approx(1.0)
    assert r.metrics["cd"] == 0.0
    assert r.metrics["sd_avg"] == r.metrics["vd"]
    m = r.metrics
    assert m["overall(sis=0.75)"] == pytest.approx(0.4 * m["sc"] + 0.4 * m["sd_avg"] + 0.2 * m["semdiv"] + 0.2 * 0.75)
    assert "|overall(sis=0.75):model=all-MiniLM-L6-v2/pool=mean_tokens/trunc=256/dtype=fp32|" in r.signature


def test_korean_topics_whole_path_against_naive(embedder):
    names, topics = list(KO), list(KO.values())
    r = evaluate_topics(topics, names=names, allow_english_model=True)
    vec = {w: v for t in topics for w, v in zip(t, embedder.embed(t))}
    centres = [np.mean([vec[w] for w in t], axis=0) for t in topics]
    sds = {}
    for i, j in itertools.combinations(range(len(topics)), 2):
        c = centres[i] @ centres[j] / np.linalg.norm(centres[i]) / np.linalg.norm(centres[j])
        sds[(names[i], names[j])] = semantic_distinctiveness(c, hierarchical_overlap(topics[i], topics[j]))
    got = {(p["a"], p["b"]): p["sd"] for p in r.extra["pairs"]}
    assert got == pytest.approx(sds, abs=1e-6)
    assert r.metrics["vd"] == pytest.approx(np.mean(list(sds.values())), abs=1e-6)
    assert r.metrics["cd"] == pytest.approx(1 - 12 / 16)
    # the mixed topic overlaps the others and is the least distinct
    assert min(r.per_item, key=lambda row: row["sd"])["id"] == "혼합"
    assert any("SIS" in n for n in r.extra["notes"])


def test_unembeddable_keyword(embedder):
    with pytest.raises(ScorekitError, match="cannot be embedded"):
        embedder.embed(["ok", "\u0301"])  # a lone combining mark: the tokenizer drops it


def test_korean_keywords_are_refused_with_an_english_only_model():
    """The refusal names the parameter of the measures that would use the model, and the run's flag."""
    from scorekit.neural.hangul import EnglishModelError

    with pytest.raises(EnglishModelError, match="embedding model all-MiniLM-L6-v2 cannot read Hangul.*model=PATH"):
        KeywordEmbedder().embed(["바다", "파도", "해변"])
    with pytest.raises(EnglishModelError) as err:
        evaluate_topics(list(KO.values()), metrics=["sc(threshold_edge=0.2)", "cd", "overall"])
    msg = str(err.value)
    assert 'model=PATH on sc, overall: -m "sc(model=PATH),overall(model=PATH)"' in msg
    assert "--allow-english-model" in msg and "\n" not in msg


def test_a_layer_is_a_parameter_of_the_measure():
    """sc(num_layers=3) pools MiniLM's third layer: other numbers, the layer pinned; sc beside it
    keeps the last layer (two embeddings, one per configuration)."""
    r = evaluate_topics(list(EN.values()), metrics=["sc", "sc(num_layers=3)"])
    assert r.metrics["sc(num_layers=3)"] != r.metrics["sc"]
    assert "|sc(num_layers=3):model=all-MiniLM-L6-v2/pool=mean_tokens/trunc=256/dtype=fp32/layer=3|" in r.signature
    assert "|sc:model=all-MiniLM-L6-v2/pool=mean_tokens/trunc=256/dtype=fp32|" in r.signature
    assert r.metrics["sc"] == evaluate_topics(list(EN.values()), metrics=["sc"]).metrics["sc"]
