"""#26: a topic measure's parameters are set in its name (``sc(threshold_edge=0.2)``), from its
``Param`` declarations, results keyed as written — equal to the formulas run with the same
parameters (``score_embeddings`` with :class:`SemanticParams`), on random topic sets with Korean
keywords in either normal form; derived SemDiv/Overall use their own parameters."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.errors import ScorekitError
from scorekit.topics import evaluate_topics
from scorekit.topics.coherence import topic_diversity
from scorekit.topics.semantic import SemanticParams, score_embeddings

WORDS = "car road engine bank loan code software 경제 시장 주식 학교 금리".split()


def random_set(seed, n):
    rng = np.random.default_rng(seed)
    topics = [list(rng.choice(WORDS, int(rng.integers(2, 6)), replace=False)) for _ in range(n)]
    return topics, [rng.normal(size=(len(t), 6)) for t in topics]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 7), thr=st.sampled_from([0.1, 0.2, 0.35]),
       gamma=st.sampled_from([0.5, 0.9]), sis=st.sampled_from([None, 0.3]), form=st.sampled_from(["NFC", "NFD"]))
def test_grammar_equals_the_formulas_with_the_same_parameters(seed, n, thr, gamma, sis, form):
    topics, vectors = random_set(seed, n)
    p = SemanticParams(threshold_edge=thr, damping=0.8, gamma_overlap=gamma, alpha_vd=0.3, beta_cd=0.7,
                       w_sc=0.5, w_sd=0.3, w_semdiv=0.1, w_sis=0.1)
    want = score_embeddings(topics, vectors, params=p, sis=sis).metrics
    ov = (f"overall(threshold_edge={thr},damping=0.8,gamma_overlap={gamma},alpha_vd=0.3,beta_cd=0.7,"
          f"w_sc=0.5,w_sd=0.3,w_semdiv=0.1,w_sis=0.1{'' if sis is None else f',sis={sis}'})")
    specs = [f"sc(threshold_edge={thr},damping=0.8)", f"sd(gamma_overlap={gamma})", "cd",
             f"semdiv(gamma_overlap={gamma},alpha_vd=0.3,beta_cd=0.7)", ov, "topic_diversity(topk=2)"]
    given_form = [[unicodedata.normalize(form, w) for w in t] for t in topics]
    r = evaluate_topics(given_form, word_vectors=vectors, metrics=specs)
    m = r.metrics
    assert list(m) == [specs[0], f"sd_avg(gamma_overlap={gamma})", f"vd(gamma_overlap={gamma})", "cd",
                       specs[3], ov, "topic_diversity(topk=2)"]
    for key, got in ((specs[0], "sc"), (f"sd_avg(gamma_overlap={gamma})", "sd_avg"), ("cd", "cd"),
                     (specs[3], "semdiv"), (ov, "overall")):
        w = want[got]
        assert (np.isnan(w) and np.isnan(m[key])) or m[key] == pytest.approx(w, abs=1e-12), key
    assert m["topic_diversity(topk=2)"] == topic_diversity(topics, 2)
    assert [row[specs[0]] for row in r.per_item] == pytest.approx(
        list(score_embeddings(topics, vectors, params=p).coherence.sc), abs=1e-12)
    for spec in specs:   # the signature pins each measure as written (canonical order of its Params)
        assert f"|{spec}:-|" in r.signature or f"|{spec}:-" in r.signature, spec


def test_defaults_written_or_not_give_the_same_numbers_and_keys():
    topics, vectors = random_set(3, 5)
    plain = evaluate_topics(topics, word_vectors=vectors)
    spelled = evaluate_topics(topics, word_vectors=vectors, metrics=["sc", "sd", "cd", "semdiv", "overall"])
    assert plain.metrics == spelled.metrics and plain.signature == spelled.signature
    assert plain.metrics == score_embeddings(topics, vectors).metrics   # the spec's defaults


def test_one_measure_alone_and_overall_with_its_own_parameters():
    topics, vectors = random_set(8, 4)
    r = evaluate_topics(topics, word_vectors=vectors, metrics=["overall(threshold_edge=0.2,sis=0.5)", "sc"])
    assert list(r.metrics) == ["overall(threshold_edge=0.2,sis=0.5)", "sc"]
    want = score_embeddings(topics, vectors, params=SemanticParams(threshold_edge=0.2), sis=0.5).metrics
    assert r.metrics["overall(threshold_edge=0.2,sis=0.5)"] == pytest.approx(want["overall"], abs=1e-12)
    assert r.metrics["sc"] == pytest.approx(score_embeddings(topics, vectors).metrics["sc"], abs=1e-12)
    assert "overall(threshold_edge=0.2,sis=0.5):-" in r.signature
    with pytest.raises(ScorekitError, match="must be in"):
        evaluate_topics(topics, word_vectors=vectors, metrics=["sd(gamma_overlap=2)"])
