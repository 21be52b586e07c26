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
    # the signature lists each measure as written (canonical order of its Params) and pins what
    # its keywords were embedded with
    assert f"|metrics:{','.join(specs)}|" in r.signature
    for spec in specs:
        assert (f"|{spec}:" in r.signature) == (not spec.startswith(("cd", "topic_diversity"))), spec
        assert spec.startswith(("cd", "topic_diversity")) or f"|{spec}:model=given-vectors|" in r.signature, spec


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
    assert "|overall(threshold_edge=0.2,sis=0.5):model=given-vectors|" in r.signature
    with pytest.raises(ScorekitError, match="must be in"):
        evaluate_topics(topics, word_vectors=vectors, metrics=["sd(gamma_overlap=2)"])


# -- the keyword embedder: a parameter of the measures over embeddings, embedded once per model ------
class FakeEmbedder:
    """Stands for :class:`scorekit.topics.embed.KeywordEmbedder`: deterministic vectors per
    (model, num_layers), every construction and embedding recorded."""

    calls: list = []

    def __init__(self, model=None, *, num_layers=None, allow_english_model=False, option=""):
        self.key, self.allow, self.option = (model, num_layers), allow_english_model, option

    def table(self):
        rng = np.random.default_rng(abs(hash(self.key)) % 2**32)
        return {w: rng.normal(size=6) for w in WORDS}

    def topic_vectors(self, topics):
        FakeEmbedder.calls.append((self.key, self.allow, self.option))
        t = self.table()
        return [np.stack([t[w] for w in words]) for words in topics]

    def signature_params(self):
        return {"model": f"fake-{self.key[0]}", "pool": "mean_tokens"} | (
            {"layer": self.key[1]} if self.key[1] is not None else {})


@pytest.fixture
def fake(monkeypatch):
    import scorekit.topics.embed as embed

    FakeEmbedder.calls = []
    monkeypatch.setattr(embed, "KeywordEmbedder", FakeEmbedder)
    return FakeEmbedder


def test_each_embedder_configuration_is_embedded_once_and_pinned(fake):
    topics, _ = random_set(3, 5)
    specs = ["sc", "sd", "cd", "semdiv", "overall", "sc(model=m2)", "sd(model=m2,num_layers=2)",
             "overall(model=m2,sis=0.5)"]
    r = evaluate_topics(topics, metrics=specs)
    assert sorted((c[0] for c in fake.calls), key=repr) == sorted([(None, None), ("m2", None), ("m2", 2)], key=repr)
    for key in ((None, None), ("m2", None), ("m2", 2)):
        vectors = FakeEmbedder(key[0], num_layers=key[1]).topic_vectors(topics)
        want = score_embeddings(topics, vectors, sis=0.5).metrics
        if key == (None, None):
            assert r.metrics["sc"] == want["sc"] and r.metrics["overall"] == pytest.approx(
                score_embeddings(topics, vectors).metrics["overall"], abs=1e-12)
        elif key == ("m2", None):
            assert r.metrics["sc(model=m2)"] == want["sc"]
            assert r.metrics["overall(model=m2,sis=0.5)"] == pytest.approx(want["overall"], abs=1e-12)
        else:
            assert r.metrics["sd_avg(model=m2,num_layers=2)"] == pytest.approx(want["sd_avg"], abs=1e-12)
    assert r.metrics["sc(model=m2)"] != r.metrics["sc"]
    sig = r.signature
    # the canonical specs (parameters in declaration order); CD embeds nothing: no pins field
    assert "|metrics:sc,sd,cd,semdiv,overall,sc(model=m2),sd(model=m2,num_layers=2),overall(sis=0.5,model=m2)|" in sig
    assert "|cd:" not in sig
    assert "|sc:model=fake-None/pool=mean_tokens|" in sig
    assert "|sc(model=m2):model=fake-m2/pool=mean_tokens|" in sig
    assert "|sd(model=m2,num_layers=2):model=fake-m2/pool=mean_tokens/layer=2|" in sig


def test_the_default_run_embeds_once_and_a_corpus_measure_alone_embeds_nothing(fake):
    topics, _ = random_set(4, 4)
    evaluate_topics(topics)
    assert [c[0] for c in fake.calls] == [(None, None)]
    fake.calls.clear()
    r = evaluate_topics(topics, metrics=["cd", "topic_diversity"])
    assert fake.calls == [] and "model=" not in r.signature


def test_the_english_model_guard_is_set_for_the_run_and_named(fake):
    topics, _ = random_set(5, 3)
    evaluate_topics(topics, metrics=["sc(threshold_edge=0.2)", "overall"], allow_english_model=True)
    (key, allow, option), = fake.calls
    assert allow is True and option == 'model=PATH on sc, overall: -m "sc(model=PATH),overall(model=PATH)"'
    with pytest.raises(ScorekitError,
                       match=r"allow_english_model is set for the whole run, not per metric: --allow-english-model"):
        evaluate_topics(topics, metrics=["sc(allow_english_model=true)"])


def test_given_vectors_and_a_model_parameter_contradict(fake):
    topics, vectors = random_set(6, 3)
    with pytest.raises(ScorekitError, match=r"^sd: word_vectors are given, so no model embeds the keywords"):
        evaluate_topics(topics, word_vectors=vectors, metrics=["sc", "sd(num_layers=3)"])
    with pytest.raises(ScorekitError, match="must be in \\[0, 1000\\]"):
        evaluate_topics(topics, metrics=["sc(num_layers=-1)"])
    assert fake.calls == []


def test_forked_parts_give_the_numbers_of_one_process_with_two_embedders(fake):
    from scorekit.engine.executors import Forked

    topics, _ = random_set(7, 9)
    specs = ["sc", "sd(model=m2)", "overall(model=m2,num_layers=1)", "cd"]
    one = evaluate_topics(topics, metrics=specs)
    parts = evaluate_topics(topics, metrics=specs, engine=Forked(3, items_per_shard=2))
    assert one.metrics == parts.metrics and one.signature == parts.signature
    assert one.per_item == parts.per_item
