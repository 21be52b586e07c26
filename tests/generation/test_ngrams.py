"""The shared n-gram matrix (BLEU, CIDEr): every column and count against plain Counters, the
column order (by token-id tuple, ids in first-appearance order), and the hashing path for large
inputs equal to np.unique's sort."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.generation import ngrams
from scorekit.generation.ngrams import ngram_counts, ngram_matrix, sorted_codes

sentences = st.lists(st.lists(st.sampled_from(["a", "b", "c", "개", "고양이", "the", "."]), max_size=12), max_size=25)


def _expected(sents, max_n):
    ids: dict[str, int] = {}
    for s in sents:
        for t in s:
            ids.setdefault(t, len(ids))
    cols = sorted({g for s in sents for g in ngram_counts(s, max_n)}, key=lambda g: (len(g), [ids[t] for t in g]))
    return cols, [ngram_counts(s, max_n) for s in sents]


def _check(sents, max_n):
    m = ngram_matrix(sents, max_n)
    cols, rows = _expected(sents, max_n)
    assert m.ngrams() == cols
    assert m.order.tolist() == [len(g) - 1 for g in cols]
    assert m.lengths.tolist() == [len(s) for s in sents]
    dense = m.counts.toarray() if m.counts.shape[1] else np.zeros((len(sents), 0))
    for r, counter in enumerate(rows):
        assert {cols[c]: int(v) for c, v in enumerate(dense[r]) if v} == dict(counter)


@settings(max_examples=150, deadline=None)
@given(sentences, st.integers(1, 5))
def test_matrix_equals_counters(sents, max_n):
    _check(sents, max_n)


@settings(max_examples=150, deadline=None)
@given(sentences, st.integers(1, 5))
def test_hashing_path_equals_counters(sents, max_n):
    old = ngrams.HASH_MIN_KEYS
    ngrams.HASH_MIN_KEYS = 0          # every order through pyarrow's hashing
    try:
        _check(sents, max_n)
    finally:
        ngrams.HASH_MIN_KEYS = old


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**62), max_size=300), st.integers(1, 50))
def test_sorted_codes_is_np_unique(values, modulo):
    key = np.array([v % (modulo * 1_000_003) for v in values], dtype=np.int64)
    want_u, want_inv = np.unique(key, return_inverse=True)
    old = ngrams.HASH_MIN_KEYS
    for threshold in (0, 10**9):
        ngrams.HASH_MIN_KEYS = threshold
        try:
            u, inv = sorted_codes(key)
        finally:
            ngrams.HASH_MIN_KEYS = old
        assert np.array_equal(u, want_u) and np.array_equal(inv, want_inv.ravel())
        assert inv.dtype.kind == "i"


@pytest.mark.parametrize("n_sent", [0, 1, 3000])
def test_large_batch_both_paths_agree(n_sent):
    rng = np.random.default_rng(n_sent)
    vocab = [f"w{i}" for i in range(300)] + ["사과", "배"]
    sents = [[vocab[j] for j in rng.integers(0, len(vocab), rng.integers(0, 20))] for _ in range(n_sent)]
    a = ngram_matrix(sents)
    old = ngrams.HASH_MIN_KEYS
    ngrams.HASH_MIN_KEYS = 0
    try:
        b = ngram_matrix(sents)
    finally:
        ngrams.HASH_MIN_KEYS = old
    assert a.counts.shape == b.counts.shape and (a.counts != b.counts).nnz == 0
    assert np.array_equal(a.counts.indices, b.counts.indices) and a.ngrams() == b.ngrams()
    total = Counter(g for s in sents for g in ngram_counts(s).elements())
    assert int(a.counts.sum()) == sum(total.values())
