"""A 64-bit fingerprint of every string of an arrow string column, computed with numpy straight
from the column's offsets and bytes (no Python string, no gather, no hash table).

Equal strings always get equal fingerprints, so "no two rows share a fingerprint" proves "no
two rows share a string"; the converse is only probable (64 bits), so a caller that finds equal
fingerprints must confirm with the strings themselves. The run's duplicate check uses it: ten
million document ids are fingerprinted and sorted in well under a second, where a per-query
hash set of the strings needed a gather of every string into query order.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_MASK = np.array([0] + [(1 << (8 * k)) - 1 for k in range(1, 9)], np.uint64)  # k bytes
_P1 = np.uint64(0x9E3779B97F4A7C15)
_P2 = np.uint64(0xBF58476D1CE4E5B9)
_SHIFT = np.uint64(29)


def _chunk(arr: pa.Array, h: np.ndarray) -> None:
    """Fingerprints of one (string / binary) array into ``h`` (uint64, len(arr))."""
    n = len(arr)
    _, obuf, dbuf = arr.buffers()[:3]
    off = np.frombuffer(obuf, np.int32, count=n + 1, offset=arr.offset * 4)
    if dbuf is None or dbuf.size < 8:
        data = np.zeros(8, np.uint8)
        if dbuf is not None and dbuf.size:
            data[:dbuf.size] = np.frombuffer(dbuf, np.uint8)
    else:
        data = np.frombuffer(dbuf, np.uint8)
    last = data.size - 8
    # the 8 bytes starting at every byte offset, as little-endian uint64 (an unaligned view)
    words = np.ndarray((last + 1,), np.uint64, buffer=data, strides=(1,))
    start = off[:-1].astype(np.int64)
    length = off[1:] - off[:-1]
    h[:] = length
    h *= _P1
    # word 0: the first min(length, 8) bytes, for every row at once (ids are often that short)
    v = words[np.minimum(start, last)]
    end = np.flatnonzero(start > last)  # strings starting in the buffer's last 7 bytes
    if len(end):
        v[end] = words[last] >> ((start[end] - last).astype(np.uint64) << np.uint64(3))
    first = np.minimum(length, 8)
    lo, hi = int(first.min()), int(first.max())
    if lo < 8:
        v &= _MASK[lo] if lo == hi else _MASK[first]
    h ^= v
    h *= _P2
    del v
    if hi < 8 or int(length.max()) <= 8:
        h ^= h >> _SHIFT
        return
    # longer strings: the next full words, then the last 8 bytes when the length is not a
    # multiple of 8 (overlapping the previous word)
    full = length >> 3
    rows = None
    for j in range(1, int(full.max())):
        if rows is None and full.min() <= j:
            rows = np.flatnonzero(full > j)
        if rows is None:
            h ^= words[start + 8 * j]
            h *= _P2
        else:
            rows = rows[full[rows] > j]
            h[rows] = (h[rows] ^ words[start[rows] + 8 * j]) * _P2
    tail = (length > 8) & ((length & 7) > 0)
    if tail.all():
        h ^= words[start + length - 8]
        h *= _P2
    else:
        rows = np.flatnonzero(tail)
        if len(rows):
            h[rows] = (h[rows] ^ words[start[rows] + length[rows] - 8]) * _P2
    h ^= h >> _SHIFT


def fingerprints(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """uint64 fingerprint per row of a string column (equal strings -> equal values)."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    out = np.empty(sum(len(c) for c in chunks), np.uint64)
    at = 0
    for c in chunks:
        if c.type == pa.large_string() or c.type == pa.large_binary():
            c = c.cast(pa.binary() if c.type == pa.large_binary() else pa.string())
        if len(c):
            _chunk(c, out[at:at + len(c)])
        at += len(c)
    return out


def any_repeated_pair(q: np.ndarray, fp: np.ndarray) -> bool:
    """Could some ``(q, string)`` pair occur twice? False is certain; True must be confirmed."""
    key = q.astype(np.uint64)
    key *= _P1
    key ^= fp
    key *= _P2
    key ^= key >> _SHIFT
    key.sort()
    return bool(np.any(key[1:] == key[:-1]))
