"""N-gram counting shared by BLEU and CIDEr.

:func:`ngram_counts` counts one sentence (tuples as keys, all orders in one Counter).
:func:`ngram_matrix` counts many sentences at once, vectorised: tokens become integer ids, n-grams
become packed integer keys, and the result is a sparse (sentences x n-grams) count matrix — the
per-item sufficient statistics BLEU and CIDEr are built from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def ngram_counts(tokens: Sequence[str], max_n: int = 4) -> Counter:
    """Counts of every n-gram, 1 <= n <= max_n, keyed by tuple (orders never collide)."""
    counts: Counter = Counter(zip(tokens))
    for n in range(2, max_n + 1):
        if len(tokens) < n:
            break
        counts.update(zip(*(tokens[i:] for i in range(n))))
    return counts


@dataclass
class NgramMatrix:
    counts: "object"          # scipy.sparse.csr_matrix (sentences x n-grams), float64 counts
    order: np.ndarray         # 0-based order of each column
    lengths: np.ndarray       # tokens per sentence
    _grams: tuple             # (per order the token-id rows (k, n) of its columns, vocabulary list)

    def ngrams(self) -> list[tuple[str, ...]]:
        """The n-gram (token tuple) of every column, in column order."""
        per_order, vocab = self._grams
        return [tuple(vocab[t] for t in r) for rows in per_order for r in rows.tolist()]


# Above this many keys, distinct values are found by hashing (pyarrow, already a dependency)
# instead of np.unique's sort of every key. Below it the sort is cheaper than pyarrow's import
# and first compute call (0.1-0.4 s together on the 2-core VM; 2 M keys: sort 0.3-0.4 s, hash
# 0.13 s once warm; 4 M keys: 0.8-1.0 s against 0.35 s).
HASH_MIN_KEYS = 3_000_000


def sorted_codes(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` for int64 keys: the sorted distinct values and each
    key's index among them. Large inputs hash the keys (pyarrow ``dictionary_encode``) and sort
    only the distinct values, so the cost is one pass plus a sort of the vocabulary, not a sort
    of every key (captions repeat their n-grams: 10 M keys, 0.1-1 M distinct)."""
    if len(key) < HASH_MIN_KEYS:
        uniq, inv = np.unique(key, return_inverse=True)
        return uniq, inv.ravel()
    import pyarrow as pa
    import pyarrow.compute as pc

    pool = pa.system_memory_pool()   # malloc: freed at once, not kept by arrow's allocator
    enc = pc.dictionary_encode(pa.array(key, type=pa.int64(), memory_pool=pool), memory_pool=pool)
    codes = enc.indices.to_numpy(zero_copy_only=False)
    first_seen = enc.dictionary.to_numpy(zero_copy_only=False)
    order = np.argsort(first_seen)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return first_seen[order], rank[codes]


def ngram_matrix(sentences: Sequence[Sequence[str]], max_n: int = 4) -> NgramMatrix:
    """The (sentences x n-grams) count matrix. Columns: order 1 first, then 2, ...; within an
    order, n-grams sorted by their token-id tuple (ids in order of first appearance). The
    column order is part of the result: CIDEr sums floats over columns in this order.

    An n-gram is keyed by (rank of its first n-1 tokens among the (n-1)-grams, last token id):
    ranks follow the tuple order, so sorting these keys sorts the tuples, and keys stay below
    (number of tokens) x (vocabulary size), far inside int64."""
    from itertools import chain

    from scipy import sparse

    n_sent = len(sentences)
    flat_toks = list(chain.from_iterable(sentences))
    tok2id = {t: i for i, t in enumerate(dict.fromkeys(flat_toks))}   # first-appearance order
    n_tok = len(flat_toks)
    ids = np.fromiter(map(tok2id.__getitem__, flat_toks), dtype=np.int64, count=n_tok)
    del flat_toks
    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=n_sent)
    sent = np.repeat(np.arange(n_sent, dtype=np.int64), lengths)
    # tokens left in the sentence from each position, itself included
    remaining = np.cumsum(lengths)[sent] - np.arange(n_tok, dtype=np.int64)
    base = max(len(tok2id), 1)
    # CSR laid out directly, no COO conversion: row s holds its order-1 n-grams, then its
    # order-2 ones, ... each in position order (its n-grams of order n start at its first
    # len(s) - n + 1 positions), so every entry's slot is computed, not sorted into place
    per_order = [np.maximum(lengths - (n - 1), 0) for n in range(1, max_n + 1)]
    indptr = np.zeros(n_sent + 1, dtype=np.int64)
    np.cumsum(np.sum(per_order, axis=0) if per_order else np.zeros(n_sent, np.int64), out=indptr[1:])
    nnz = int(indptr[-1])
    starts = np.cumsum(lengths) - lengths
    slot_shift = indptr[:-1] - starts           # slot of position p's order-n n-gram: p + shift
    order_cols, grams = [], []
    # column ids stay below the number of entries plus the vocabulary
    indices = np.empty(nnz, dtype=np.int64 if nnz + base * max_n >= 2 ** 31 else np.int32)
    offset = 0
    rank_at = ids                  # order 1: every id occurs, so an id is its own rank
    uniq_rows = np.arange(base, dtype=np.int64)[:, None]
    for n in range(1, max_n + 1):
        if n == 1:
            inv, slots = ids, np.arange(n_tok, dtype=np.int64) + slot_shift[sent]
            if n_tok == 0:
                uniq_rows = uniq_rows[:0]
        else:
            pos = np.flatnonzero(remaining >= n)
            uniq, inv = sorted_codes(rank_at[pos] * base + ids[pos + (n - 1)])
            uniq_rows = np.concatenate([uniq_rows[uniq // base], (uniq % base)[:, None]], axis=1)
            if n < max_n:
                rank_at = np.full(n_tok, -1, dtype=np.int64)
                rank_at[pos] = inv
            slots = pos + slot_shift[sent[pos]]
        indices[slots] = offset + inv
        slot_shift += per_order[n - 1]
        order_cols.append(np.full(len(uniq_rows), n - 1, dtype=np.int64))
        grams.append(uniq_rows)
        offset += len(uniq_rows)
    indptr = indptr.astype(indices.dtype)
    counts = sparse.csr_matrix((np.ones(nnz), indices, indptr), shape=(n_sent, offset))
    counts.sum_duplicates()
    return NgramMatrix(counts, np.concatenate(order_cols) if order_cols else np.zeros(0, np.int64),
                       lengths, (grams, list(tok2id)))
