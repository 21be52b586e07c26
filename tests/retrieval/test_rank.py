"""Run ranking (retrieval/data.py ``_rank_grouped``): every path gives trec_eval's order — query, score
descending, ties by docid descending — whatever the line order of the file."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from scorekit.retrieval import data
from scorekit.retrieval.data import _rank_grouped, to_arrow, to_numpy


def _expected(q, score, docs):
    table = pa.table({"q": to_arrow(q), "s": to_arrow(score), "d": docs})
    return to_numpy(pc.sort_indices(table, sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")]))


@pytest.mark.parametrize("packed", [True, False])  # one sort of packed keys, or the older paths
@pytest.mark.parametrize("n_queries", [3, 70_000])  # 16-bit radix path, and the pyarrow path above it
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("grouped", [False, True])  # shuffled lines, or query by query in parser blocks
def test_rank_equals_a_full_three_key_sort(n_queries, seed, packed, grouped, monkeypatch):
    if not packed:  # the packed keys need 16 bits for the score: huge inputs take the older paths
        monkeypatch.setattr(data, "_packed_order", lambda q, score: None)
    rng = np.random.default_rng(seed)
    n = max(3 * n_queries, 3000)
    q = rng.integers(0, n_queries, n).astype(np.int32)
    q[:n_queries] = np.arange(n_queries)  # every code used
    rng.shuffle(q)
    score = np.round(rng.normal(size=n), 1)  # many ties
    score[rng.random(n) < 0.05] = -0.0
    docs = pa.chunked_array([pa.array([f"d{i}" for i in rng.permutation(n)])])
    if grouped:   # file order: query by query, best first, ties in file order; several chunks
        by = np.lexsort((-score, q))
        q, score = q[by], score[by]
        whole = docs.chunk(0)
        docs = pa.chunked_array([whole.slice(0, n // 3), whole.slice(n // 3, n // 3), whole.slice(2 * (n // 3))])
    order, starts = _rank_grouped(q, score, docs)[:2]
    expected = _expected(q, score, docs)
    got = np.arange(n) if order is None else order
    # -0.0 == 0.0: equal scores, so only the docid decides; both orders must agree row for row
    assert np.array_equal(got, expected)
    qs = q[got]
    assert np.array_equal(starts, np.r_[0, np.flatnonzero(qs[1:] != qs[:-1]) + 1])


@pytest.mark.parametrize("seed", [0, 1])
def test_rank_scores_equal_in_their_top_bits(seed):
    # the packed sort keeps only the top bits of each score: scores a few ulps apart must still
    # come out in full score order, then docid order on exact ties
    rng = np.random.default_rng(seed)
    n, n_queries = 5000, 40
    q = rng.integers(0, n_queries, n).astype(np.int32)
    q[:n_queries] = np.arange(n_queries)
    base = rng.choice([1.0, -3.5, 1e6, 0.0], n)
    score = base + rng.integers(-4, 5, n) * np.spacing(np.abs(base) + 1e-300)
    docs = pa.chunked_array([pa.array([f"d{i}" for i in rng.permutation(n)])])
    order = _rank_grouped(q, score, docs)[0]
    got = np.arange(n) if order is None else order
    assert np.array_equal(got, _expected(q, score, docs))
