"""SC / SD / VD / CD / SemDiv / Overall: the spec's toy numbers and the vectorised path against a
plain per-topic, per-pair implementation of the formulas."""

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, strategies as st

from scorekit.topics.semantic import (
    SemanticParams, content_diversity, hierarchical_overlap, overall_score, score_embeddings,
    semantic_coherence_from_parts, semantic_distinctiveness, semantic_diversity, vector_diversity,
)

TOY = [["computer", "software", "programming"], ["car", "engine", "vehicle"], ["book", "reading", "literature"]]


# --- the spec's toy example, fed its own intermediate values (topic-metrics.md §1-§4) -------------

def test_toy_sc():
    sc = semantic_coherence_from_parts([0.32, 0.35, 0.33], [0.91, 0.95, 0.88])
    assert round(sc, 4) == 0.3047


def test_toy_sd():
    oh = hierarchical_overlap(TOY[0], TOY[1])
    assert oh == 0.0
    assert semantic_distinctiveness(0.12, oh, gamma=0.7) == pytest.approx(0.88)


def test_toy_vd_cd_semdiv():
    vd = vector_diversity([0.88, 0.92, 0.85])
    assert round(vd, 3) == 0.883
    cd = content_diversity(TOY)
    assert cd == 0.0  # quirk: disjoint keyword sets give CD = 0
    # the spec carries the rounded VD (0.883) into SemDiv: 0.5*0.883 + 0.5*0 = 0.4415
    assert semantic_diversity(0.883, cd, alpha=0.5, beta=0.5) == pytest.approx(0.4415)
    # with the unrounded VD it would be 0.44167
    assert round(semantic_diversity(vd, cd), 4) == 0.4417


def test_toy_overall():
    overall = overall_score(0.3047, 0.883, 0.4415, 0.75)
    assert round(overall, 4) == 0.7134
    # the weights sum to 1.2; without SIS the lambda term is dropped
    assert overall_score(0.3047, 0.883, 0.4415) == pytest.approx(overall - 0.2 * 0.75)
    assert overall_score(1, 1, 1, 1) == pytest.approx(1.2)


def test_toy_whole_path_from_the_spec_similarity_matrix():
    # unit vectors whose Gram matrix is the spec's §1 similarity matrix
    gram = np.array([[1.0, 0.82, 0.76], [0.82, 1.0, 0.89], [0.76, 0.89, 1.0]])
    emb = np.linalg.cholesky(gram)
    scores = score_embeddings([TOY[0]], [emb])
    lam = scores.coherence.weights[0]
    cos = scores.coherence.cosines[0]
    np.testing.assert_allclose(lam, [0.32, 0.35, 0.33], atol=0.006)
    # the spec's step-3 cosines (0.91/0.95/0.88) are not consistent with its step-2 matrix:
    # cos(e_w, mean) = (1 + Σ_j s_wj) / 3 / |mean| gives 0.916 / 0.962 / 0.940
    centre_norm = np.sqrt(gram.sum()) / 3
    np.testing.assert_allclose(cos, gram.sum(axis=1) / 3 / centre_norm, atol=1e-12)
    np.testing.assert_allclose(cos, [0.916, 0.962, 0.940], atol=0.001)
    assert scores.coherence.sc[0] == pytest.approx(semantic_coherence_from_parts(lam, cos))
    assert scores.coherence.sc[0] == pytest.approx(0.3133, abs=1e-4)


def test_cd_counts_overlap():
    assert content_diversity([["a", "b"], ["b", "c"]]) == pytest.approx(1 - 3 / 4)
    assert content_diversity([["a", "b"], ["a", "b"]]) == pytest.approx(0.5)


# --- the vectorised path equals the formulas computed one topic / one pair at a time -------------

def naive(topics, vectors, p: SemanticParams, sis=None):
    sc = []
    for words, emb in zip(topics, vectors):
        unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
        g = nx.Graph()
        g.add_nodes_from(range(len(words)))
        for i, j in itertools.combinations(range(len(words)), 2):
            s = float(unit[i] @ unit[j])
            if s >= p.threshold_edge:
                g.add_edge(i, j, weight=s)
        pr = nx.pagerank(g, alpha=p.damping)
        centre = emb.mean(axis=0)
        cos = [float(unit[i] @ centre / np.linalg.norm(centre)) for i in range(len(words))]
        sc.append(semantic_coherence_from_parts([pr[i] for i in range(len(words))], cos,
                                                size_normalize=p.sc_size_normalize))
    centres = [v.mean(axis=0) for v in vectors]
    sds = []
    for i, j in itertools.combinations(range(len(topics)), 2):
        c = centres[i] @ centres[j] / np.linalg.norm(centres[i]) / np.linalg.norm(centres[j])
        sds.append(semantic_distinctiveness(c, hierarchical_overlap(topics[i], topics[j]), p.gamma_overlap))
    vd = vector_diversity(sds)
    cd = content_diversity(topics)
    semdiv = semantic_diversity(vd, cd, alpha=p.alpha_vd, beta=p.beta_cd)
    overall = overall_score(float(np.mean(sc)), vd, semdiv, sis, w_sc=p.w_sc, w_sd=p.w_sd,
                            w_semdiv=p.w_semdiv, w_sis=p.w_sis)
    return {"sc": float(np.mean(sc)), "sd_avg": vd, "vd": vd, "cd": cd, "semdiv": semdiv, "overall": overall}, sc, sds


@st.composite
def topic_sets(draw):
    vocab = [f"w{i}" for i in range(draw(st.integers(4, 14)))] + ["경제", "시장", "주식"]
    n_topics = draw(st.integers(2, 6))
    topics = [draw(st.lists(st.sampled_from(vocab), min_size=2, max_size=6, unique=True)) for _ in range(n_topics)]
    seed = draw(st.integers(0, 10**6))
    return topics, vocab, seed


@given(topic_sets(), st.sampled_from([0.0, 0.3, 0.6]), st.sampled_from([0.5, 0.7, 0.9]),
       st.booleans(), st.one_of(st.none(), st.floats(0, 1)))
def test_vectorised_equals_naive(data, threshold, gamma, size_norm, sis):
    topics, vocab, seed = data
    rng = np.random.default_rng(seed)
    base = rng.normal(size=8)
    table = {w: rng.normal(size=8) + base * rng.uniform(0, 2) for w in vocab}
    vectors = [np.stack([table[w] for w in t]) for t in topics]
    p = SemanticParams(threshold_edge=threshold, gamma_overlap=gamma, sc_size_normalize=size_norm,
                       alpha_vd=0.3, beta_cd=0.7, w_sc=0.5, w_sd=0.3, w_semdiv=0.2, w_sis=0.1)
    got = score_embeddings(topics, vectors, params=p, sis=sis, lowest_pairs=100)
    want, sc, sds = naive(topics, vectors, p, sis)
    for k, v in want.items():
        assert got.metrics[k] == pytest.approx(v, abs=1e-10), k
    np.testing.assert_allclose(got.coherence.sc, sc, atol=1e-10)
    pairs = sorted(s for _, _, s, _, _ in got.distinctiveness.lowest)
    np.testing.assert_allclose(pairs, sorted(sds), atol=1e-10)
    # per topic: the mean SD to every other topic, from the naive pairs
    n = len(topics)
    sd = np.zeros((n, n))
    sd[np.triu_indices(n, 1)] = sds
    np.testing.assert_allclose(got.distinctiveness.per_topic, (sd + sd.T).sum(axis=1) / (n - 1), atol=1e-10)
    # a mapping word -> vector gives the same scores
    again = score_embeddings(topics, table, params=p, sis=sis)
    assert again.metrics == pytest.approx(got.metrics)


def test_blocks_do_not_change_the_result():
    from scorekit.topics.semantic import semantic_distinctiveness_all

    rng = np.random.default_rng(42)
    vocab = [f"w{i}" for i in range(30)]
    topics = [list(rng.choice(vocab, 5, replace=False)) for _ in range(50)]
    vecs = rng.normal(size=(50, 16))
    full = semantic_distinctiveness_all(vecs, topics, lowest=20)
    blocked = semantic_distinctiveness_all(vecs, topics, block=7, lowest=20)
    assert blocked.vd == pytest.approx(full.vd, abs=1e-12)
    np.testing.assert_allclose(blocked.per_topic, full.per_topic, atol=1e-12)
    assert [(i, j) for i, j, *_ in blocked.lowest] == [(i, j) for i, j, *_ in full.lowest]


def test_sis_note_and_single_topic():
    vecs = [np.eye(3)]
    s = score_embeddings([["a", "b", "c"]], vecs)
    assert any("SIS" in n for n in s.notes)
    assert np.isnan(s.metrics["vd"]) and np.isnan(s.metrics["overall"])
    s = score_embeddings([["a", "b"], ["c", "d"]], [np.eye(2), np.eye(2)[::-1]], sis=0.5)
    assert not any("SIS" in n for n in s.notes)
