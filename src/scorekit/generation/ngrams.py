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
    from scipy import sparse

    tok2id: dict[str, int] = {}
    setdefault = tok2id.setdefault
    flat = [setdefault(t, len(tok2id)) for s in sentences for t in s]
    ids = np.asarray(flat, dtype=np.int64)
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
    sent = np.repeat(np.arange(len(sentences), dtype=np.int64), lengths)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if len(lengths) else np.zeros(0, np.int64)
    remaining = lengths[sent] - (np.arange(len(ids)) - starts[sent]) if len(ids) else np.zeros(0, np.int64)
    base = max(len(tok2id), 1)
    rows_all, cols_all, order_cols, grams = [], [], [], []
    offset = 0
    for n in range(1, max_n + 1):
        pos = np.nonzero(remaining >= n)[0]
        if n == 1:
            gram_rows = ids[pos][:, None]
        else:
            gram_rows = np.stack([ids[pos + k] for k in range(n)], axis=1)
        if base ** n < 2 ** 62:
            key = np.zeros(len(pos), dtype=np.int64)
            for k in range(n):
                key = key * base + gram_rows[:, k]
            uniq, inv = np.unique(key, return_inverse=True)
            first = np.zeros(len(uniq), dtype=np.int64)
            first[inv] = np.arange(len(pos))
            uniq_rows = gram_rows[first] if len(pos) else np.zeros((0, n), np.int64)
        else:  # huge vocabularies: unique over rows
            uniq_rows, inv = np.unique(gram_rows, axis=0, return_inverse=True)
        inv = inv.ravel()
        rows_all.append(sent[pos])
        cols_all.append(offset + inv)
        order_cols.append(np.full(len(uniq_rows), n - 1, dtype=np.int64))
        grams.append((offset, uniq_rows))
        offset += len(uniq_rows)
    rows = np.concatenate(rows_all) if rows_all else np.zeros(0, np.int64)
    cols = np.concatenate(cols_all) if cols_all else np.zeros(0, np.int64)
    counts = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(sentences), offset))
    counts.sum_duplicates()
    vocab = [None] * len(tok2id)
    for t, i in tok2id.items():
        vocab[i] = t
    return NgramMatrix(counts, np.concatenate(order_cols) if order_cols else np.zeros(0, np.int64),
                       lengths, (grams, vocab))
