"""PageRank keyword weights equal networkx.pagerank (weighted, undirected, dangling nodes)."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from scorekit.errors import ScorekitError
from scorekit.topics.pagerank import keyword_weights, pagerank, pagerank_batch, similarity_graph


def nx_reference(sim: np.ndarray, threshold: float, damping: float = 0.85) -> np.ndarray:
    n = sim.shape[0]
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if sim[i, j] >= threshold:
                g.add_edge(i, j, weight=float(sim[i, j]))
    pr = nx.pagerank(g, alpha=damping, weight="weight")
    return np.array([pr[i] for i in range(n)])


def random_similarity(seed: int, n: int, dim: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, dim)) + rng.normal(size=dim) * rng.uniform(0, 2)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x @ x.T


@given(st.integers(0, 10**6), st.integers(1, 12), st.integers(2, 16),
       st.sampled_from([0.0, 0.2, 0.3, 0.5, 0.9, 1.1]), st.sampled_from([0.5, 0.85, 0.95]))
def test_equals_networkx(seed, n, dim, threshold, damping):
    sim = random_similarity(seed, n, dim)
    ours = keyword_weights(sim, threshold_edge=threshold, damping=damping)
    ref = nx_reference(sim, threshold, damping)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)
    assert ours.sum() == pytest.approx(1.0, abs=1e-12)


def test_isolated_and_all_dangling_nodes():
    # node 3 has no edge above the threshold: it is dangling and gets the teleport share
    sim = np.array([[1, .8, .7, .1], [.8, 1, .6, .0], [.7, .6, 1, .2], [.1, .0, .2, 1]])
    np.testing.assert_allclose(keyword_weights(sim), nx_reference(sim, 0.3), atol=1e-12)
    # no edge at all: uniform
    np.testing.assert_allclose(keyword_weights(np.eye(5)), np.full(5, 0.2), atol=1e-15)


def test_batch_equals_single():
    sims = np.stack([random_similarity(s, 7, 5) for s in range(20)])
    batch = keyword_weights(sims)
    for k in range(20):
        np.testing.assert_array_equal(batch[k], keyword_weights(sims[k]))


def test_spec_toy_similarity_matrix():
    # topic-metrics.md §1 step 2: the spec prints λ = 0.32 / 0.35 / 0.33 for this matrix;
    # true PageRank is 0.321 / 0.345 / 0.334 (0.345 rounds to 0.34: the spec rounds loosely)
    sim = np.array([[1.0, 0.82, 0.76], [0.82, 1.0, 0.89], [0.76, 0.89, 1.0]])
    lam = keyword_weights(sim)
    np.testing.assert_allclose(lam, [0.32, 0.35, 0.33], atol=0.006)
    np.testing.assert_allclose(lam, nx_reference(sim, 0.3), atol=1e-12)
    assert lam.sum() == pytest.approx(1.0)


def test_graph_has_no_self_loops_and_thresholds_inclusively():
    w = similarity_graph(np.array([[1.0, 0.3], [0.3, 1.0]]), 0.3)
    assert w.tolist() == [[0.0, 0.3], [0.3, 0.0]]


def test_bad_inputs():
    with pytest.raises(ScorekitError):
        pagerank(np.array([[0, -1.0], [-1.0, 0]]))
    with pytest.raises(ScorekitError, match="did not converge"):
        pagerank_batch(np.ones((1, 3, 3)) - np.eye(3), damping=1.0, max_iter=1, tol=0)
