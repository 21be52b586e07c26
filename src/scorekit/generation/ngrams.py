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
    _grams: list              # per order: (unique id rows (k, n), vocabulary list)

    def ngram(self, col: int) -> tuple[str, ...]:
        """The n-gram (token tuple) of a column."""
        offsets, vocab = self._grams
        n = int(self.order[col])
        rows = offsets[n][1]
        return tuple(vocab[t] for t in rows[col - offsets[n][0]])

    def ngrams(self) -> list[tuple[str, ...]]:
        offsets, vocab = self._grams
        out: list[tuple[str, ...]] = []
        for _, rows in offsets:
            out += [tuple(vocab[t] for t in r) for r in rows.tolist()]
        return out


def ngram_matrix(sentences: Sequence[Sequence[str]], max_n: int = 4) -> NgramMatrix:
    """The (sentences x n-grams) count matrix. Columns: order 1 first, then 2, ...; within an
    order, n-grams sorted by their token-id tuple (ids in order of first appearance). The
    column order is part of the result: CIDEr sums floats over columns in this order."""
    from itertools import chain

    from scipy import sparse

    n_sent = len(sentences)
    flat_toks = list(chain.from_iterable(sentences))
    tok2id: dict = dict.fromkeys(flat_toks)       # first-appearance order, at C speed
    for i, t in enumerate(tok2id):
        tok2id[t] = i
    n_tok = len(flat_toks)
    ids = np.fromiter(map(tok2id.__getitem__, flat_toks), dtype=np.int64, count=n_tok)
    del flat_toks
    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=n_sent)
    sent = np.repeat(np.arange(n_sent, dtype=np.int64), lengths)
    # tokens left in the sentence from each position, itself included
    remaining = np.cumsum(lengths)[sent] - np.arange(n_tok, dtype=np.int64)
    base = max(len(tok2id), 1)
    rows_all, cols_all, order_cols, grams = [], [], [], []
    offset = 0
    key = ids
    for n in range(1, max_n + 1):
        if base ** n < 2 ** 62:
            # packed key of the n-gram starting at each position: ids as base-`base` digits
            if n > 1:
                key = key[:-1] * base + ids[n - 1:]
            pos = np.flatnonzero(remaining[:len(key)] >= n)
            uniq, inv = np.unique(key[pos], return_inverse=True)
            uniq_rows = np.empty((len(uniq), n), dtype=np.int64)
            rest = uniq
            for k in range(n - 1, -1, -1):
                uniq_rows[:, k] = rest % base
                rest = rest // base
        else:  # huge vocabularies: unique over rows
            pos = np.flatnonzero(remaining >= n)
            gram_rows = np.stack([ids[pos + k] for k in range(n)], axis=1)
            uniq_rows, inv = np.unique(gram_rows, axis=0, return_inverse=True)
        rows_all.append(sent[pos])
        cols_all.append(offset + inv.ravel())
        order_cols.append(np.full(len(uniq_rows), n - 1, dtype=np.int64))
        grams.append((offset, uniq_rows))
        offset += len(uniq_rows)
    rows = np.concatenate(rows_all) if rows_all else np.zeros(0, np.int64)
    cols = np.concatenate(cols_all) if cols_all else np.zeros(0, np.int64)
    counts = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_sent, offset))
    counts.sum_duplicates()
    return NgramMatrix(counts, np.concatenate(order_cols) if order_cols else np.zeros(0, np.int64),
                       lengths, (grams, list(tok2id)))
