"""N-gram counting shared by BLEU and CIDEr (tuples as keys, all orders in one Counter)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def ngram_counts(tokens: Sequence[str], max_n: int = 4) -> Counter:
    """Counts of every n-gram, 1 <= n <= max_n, keyed by tuple (orders never collide)."""
    counts: Counter = Counter(zip(tokens))
    for n in range(2, max_n + 1):
        if len(tokens) < n:
            break
        counts.update(zip(*(tokens[i:] for i in range(n))))
    return counts
