"""Weighted PageRank on a topic's keyword similarity graph (topic-metrics.md §1, λ_w).

The graph of one topic: nodes are its keywords; an undirected edge joins two keywords whose
cosine similarity is at least ``threshold_edge`` (0.3), weighted by that similarity; no self
loops. λ is PageRank on it with damping 0.85 — networkx's power iteration (:func:`pagerank_batch`),
so the scores equal ``networkx.pagerank``'s and sum to 1.
"""

from __future__ import annotations

import numpy as np

from scorekit.errors import ScorekitError

DAMPING = 0.85
THRESHOLD_EDGE = 0.3
TOL = 1.0e-6
MAX_ITER = 100


def similarity_graph(similarity: np.ndarray, threshold_edge: float = THRESHOLD_EDGE) -> np.ndarray:
    """Edge weights from a (…, n, n) similarity matrix: ``sim`` where ``sim >= threshold``, else 0;
    the diagonal (self loops) is always 0."""
    sim = np.asarray(similarity, dtype=np.float64)
    n = sim.shape[-1]
    weights = np.where(sim >= threshold_edge, sim, 0.0)
    weights[..., np.arange(n), np.arange(n)] = 0.0
    return weights


def pagerank_batch(weights: np.ndarray, *, damping: float = DAMPING, tol: float = TOL,
                   max_iter: int = MAX_ITER) -> np.ndarray:
    """PageRank of every node of ``T`` weighted graphs given as a ``(T, n, n)`` weight tensor.

    Per graph: ``x <- d * (x @ P + sum(x[dangling]) / n) + (1 - d) / n`` from ``x = 1/n``, with
    ``P`` the row-normalised weights; stop when ``sum |x - x_prev| < n * tol`` (networkx's rule).
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 3 or w.shape[1] != w.shape[2]:
        raise ValueError(f"expected a (T, n, n) weight tensor, got shape {w.shape}")
    if not 0.0 <= damping <= 1.0:
        raise ScorekitError(f"damping must be in [0, 1], got {damping}")
    t, n = w.shape[0], w.shape[1]
    if t == 0 or n == 0:
        return np.zeros((t, n))
    if np.any(w < 0):
        raise ScorekitError("PageRank edge weights must be non-negative")
    out_strength = w.sum(axis=2)                              # (T, n)
    dangling = out_strength == 0
    inv = np.divide(1.0, out_strength, out=np.zeros_like(out_strength), where=~dangling)
    transition = w * inv[:, :, None]                          # row-stochastic where not dangling
    x = np.full((t, n), 1.0 / n)
    result = np.empty((t, n))
    active = np.arange(t)
    teleport = 1.0 / n
    for _ in range(max_iter):
        xa = x[active]
        dangling_mass = np.where(dangling[active], xa, 0.0).sum(axis=1, keepdims=True)
        new = damping * (np.einsum("ti,tij->tj", xa, transition[active]) + dangling_mass * teleport) \
            + (1.0 - damping) * teleport
        err = np.abs(new - xa).sum(axis=1)
        done = err < n * tol
        result[active[done]] = new[done]
        x[active] = new
        active = active[~done]
        if active.size == 0:
            return result
    raise ScorekitError(f"PageRank did not converge in {max_iter} iterations (damping {damping}); "
                        "lower the damping or raise max_iter")


def pagerank(weights: np.ndarray, *, damping: float = DAMPING, tol: float = TOL,
             max_iter: int = MAX_ITER) -> np.ndarray:
    """PageRank of one weighted graph given as an ``(n, n)`` symmetric weight matrix."""
    w = np.asarray(weights, dtype=np.float64)
    return pagerank_batch(w[None], damping=damping, tol=tol, max_iter=max_iter)[0]


def keyword_weights(similarity: np.ndarray, *, threshold_edge: float = THRESHOLD_EDGE,
                    damping: float = DAMPING, tol: float = TOL, max_iter: int = MAX_ITER) -> np.ndarray:
    """λ_w for one topic ``(n, n)`` or a batch ``(T, n, n)`` of keyword similarity matrices."""
    graph = similarity_graph(similarity, threshold_edge)
    if graph.ndim == 2:
        return pagerank(graph, damping=damping, tol=tol, max_iter=max_iter)
    return pagerank_batch(graph, damping=damping, tol=tol, max_iter=max_iter)


__all__ = ["DAMPING", "THRESHOLD_EDGE", "keyword_weights", "pagerank", "pagerank_batch",
           "similarity_graph"]
