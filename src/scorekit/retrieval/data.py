"""Qrels and runs as columnar arrays (spec: retrieval-metrics.md §3 "샘플 데이터").

A :class:`Qrels` or :class:`Run` holds one row per judged / retrieved document, with the query and
document ids dictionary-encoded (``int32`` codes into a pyarrow string dictionary), so ten million
lines cost a few arrays and no Python object per line. Every way in (TREC files, JSON, dicts, the
spec's list form, DataFrames) builds one of these through ``from_arrays``, which is also where the
checks that need the whole table live (duplicate ``(qid, docid)`` pairs, NaN/inf scores). Errors
name the source and, when the source is a file, the line (``line_of(row)``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorekit.errors import InputError
from scorekit.io.ids import clean_id_column
from scorekit.retrieval.fingerprint import any_repeated_pair, fingerprints

LineOf = Callable[[int], int | None]


_NUMPY = {pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
          pa.uint32(): np.uint32, pa.uint64(): np.uint64, pa.float32(): np.float32,
          pa.float64(): np.float64}


def to_numpy(values: pa.Array | pa.ChunkedArray, fill=None) -> np.ndarray:
    """Numeric arrow data as numpy (nulls -> ``fill``) without pyarrow's ``to_numpy``/``scalar``,
    which import pandas (a third of a second on every CLI call)."""
    if isinstance(values, pa.ChunkedArray):
        dtype = _NUMPY.get(values.type)
        if dtype is None or values.num_chunks == 0:
            parts = [to_numpy(c, fill) for c in values.chunks]
            return np.concatenate(parts) if parts else np.zeros(0, dtype or np.float64)
        # one output filled chunk by chunk: no list of per-chunk copies to concatenate (fresh
        # memory is what costs most here)
        out = np.empty(len(values), dtype)
        at = 0
        for c in values.chunks:
            out[at:at + len(c)] = to_numpy(c, fill)
            at += len(c)
        return out
    dtype = _NUMPY.get(values.type)
    if dtype is None:
        return np.asarray(values.to_pylist())
    validity, buf = values.buffers()[:2]
    out = np.frombuffer(buf, dtype=dtype, count=len(values), offset=values.offset * np.dtype(dtype).itemsize)
    if values.null_count:
        if fill is None:
            raise ValueError("nulls in a numeric column")
        bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
        out = np.where(bits[values.offset:values.offset + len(values)].astype(bool), out, fill)
    return out


_ARROW = {np.dtype(v): k for k, v in _NUMPY.items()}


def to_arrow(values: np.ndarray) -> pa.Array:
    """Zero-copy numpy -> arrow for numeric arrays (``pa.array`` would import pandas)."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(_ARROW[values.dtype], len(values), [None, pa.py_buffer(values)])


def _no_line(row: int) -> int | None:
    return None


def _clean_ids(qid, docid, source: str, line_of: LineOf):
    """Ids normalised like text (NFC, invisible characters removed; a NUL byte refused): see
    :mod:`scorekit.io.ids`. ASCII columns come back untouched after one look at their bytes."""
    return (clean_id_column(qid, "query id", source, line_of),
            clean_id_column(docid, "document id", source, line_of))


def _duplicate_error(t: "_Rows", row: int, docid: str, what: str, count: int) -> InputError:
    qid = t.qids[int(t.q[row])].as_py()
    more = f" ({count} duplicate pairs in all)" if count > 1 else ""
    return InputError(f"duplicate document {docid!r} for query {qid!r} in one {what}{more}",
                      t.source, t.line_of(row))


def encode(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Dictionary-encode strings: ``(int32 codes per row, unique values)`` (first-seen order)."""
    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    if pa.types.is_dictionary(values.type):
        # one dictionary per CSV block: unify (cheap for few distinct values) and stack codes
        encoded = values.unify_dictionaries()
    else:
        if values.type != pa.string() and values.type != pa.large_string():
            values = pc.cast(values, pa.string())
        # pyarrow keeps one growing dictionary across the chunks: the last chunk's is the whole one
        encoded = pc.dictionary_encode(values)
    if encoded.num_chunks == 0:
        return np.zeros(0, np.int32), pa.array([], pa.string())
    codes = np.concatenate([to_numpy(c.indices) for c in encoded.chunks])
    return codes.astype(np.int32, copy=False), encoded.chunks[-1].dictionary


def _duplicates(q: np.ndarray, d: np.ndarray, n_docs: int) -> tuple[int | None, int]:
    """``(first row repeating an earlier (q, d) pair, number of such rows)``, or ``(None, 0)``.

    One sort of the packed keys; numpy's stable sort (timsort) is fast here because runs and
    qrels usually come query by query, so the keys arrive as long sorted stretches."""
    key = q.astype(np.int64) * max(n_docs, 1) + d
    sk = np.sort(key, kind="stable")
    if not np.any(sk[1:] == sk[:-1]):
        return None, 0
    order = np.argsort(key, kind="stable")
    sk = key[order]
    dup = order[np.nonzero(sk[1:] == sk[:-1])[0] + 1]
    return int(dup.min()), len(dup)


class _Rows:
    def __len__(self) -> int:
        return len(self.q)

    @property
    def n_queries(self) -> int:
        return len(self.qids)


@dataclass
class _Table(_Rows):
    qids: pa.Array            # unique query ids (dictionary)
    q: np.ndarray             # int32 code per row into ``qids``
    docids: pa.Array          # unique document ids (dictionary)
    d: np.ndarray             # int32 code per row into ``docids``
    source: str = "<input>"
    line_of: LineOf = field(default=_no_line, repr=False)

    def _check_duplicates(self, what: str) -> None:
        row, count = _duplicates(self.q, self.d, len(self.docids))
        if row is not None:
            raise _duplicate_error(self, row, self.docids[int(self.d[row])].as_py(), what, count)


@dataclass
class Qrels(_Table):
    """Relevance judgements ``qid -> docid -> rel`` (integer grades; negative = non-relevant)."""

    rel: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @classmethod
    def from_arrays(cls, qid, docid, rel, *, source: str = "<qrels>", line_of: LineOf = _no_line) -> "Qrels":
        qid, docid = _clean_ids(qid, docid, source, line_of)
        q, qids = encode(qid)
        d, docids = encode(docid)
        rel = np.asarray(rel)
        if rel.dtype.kind == "f":
            bad = np.nonzero(~np.isfinite(rel) | (rel != np.round(rel)))[0]
            if len(bad):
                r = int(bad[0])
                raise InputError(f"relevance must be an integer, found {rel[r]!r}", source, line_of(r))
        elif rel.dtype.kind not in "iub":
            raise InputError("relevance must be an integer", source)
        out = cls(qids, q, docids, d, source, line_of, rel.astype(np.int64))
        if len(out) == 0:
            raise InputError("no relevance judgements (empty qrels)", source)
        out._check_duplicates("qrels")
        return out


@dataclass
class Run(_Rows):
    """A ranking ``qid -> docid -> score``; documents are ordered by score, ties by docid (desc).

    Document ids are held as one arrow string column (``docs``: encoding ten million distinct ids
    costs more than all the measures need from them) or, for a run drawing from a small pool (a
    re-ranking run), as the TREC reader's int32 codes into the unique ids (``d``, ``docids``),
    the string column built only if asked for; the join and the duplicate check use the codes."""

    qids: pa.Array                      # unique query ids
    q: np.ndarray                       # int32 code per row into ``qids``
    _docs: pa.ChunkedArray | None       # document id per row (None: only ``_encoded`` so far)
    score: np.ndarray
    name: str | None = None
    source: str = "<run>"
    line_of: LineOf = field(default=_no_line, repr=False)
    _ranked: tuple | None = field(default=None, repr=False)
    _encoded: tuple | None = field(default=None, repr=False)
    _grouped: bool | None = field(default=None, repr=False)  # ranked order keeps file blocks
    _fp: np.ndarray | None = field(default=None, repr=False)

    def fingerprints(self) -> np.ndarray:
        """uint64 fingerprint of each row's document id (see :mod:`~scorekit.retrieval.fingerprint`;
        computed once: the duplicate check and the join both use it)."""
        if self._fp is None:
            self._fp = fingerprints(self.docs)
        return self._fp

    @property
    def docs(self) -> pa.ChunkedArray:
        """Document id per row (an arrow string column; decoded on first use when the run was
        read as codes)."""
        if self._docs is None:
            codes, dictionary = self._encoded
            self._docs = pa.chunked_array([dictionary.take(to_arrow(codes))], pa.string())
        return self._docs

    @property
    def coded(self) -> bool:
        """The document ids are at hand as codes (``d``, ``docids``) without encoding them."""
        return self._encoded is not None

    @property
    def docids(self) -> pa.Array:
        """Unique document ids (encoded on first use)."""
        return self._encode()[1]

    @property
    def d(self) -> np.ndarray:
        """int32 code per row into ``docids`` (encoded on first use)."""
        return self._encode()[0]

    def _encode(self):
        if self._encoded is None:
            self._encoded = encode(self._docs)
        return self._encoded

    @classmethod
    def from_arrays(cls, qid, docid, score, *, name: str | None = None, source: str = "<run>",
                    line_of: LineOf = _no_line) -> "Run":
        score = np.asarray(score)
        if score.dtype.kind not in "fiub":
            raise InputError("scores must be numbers", source)
        score = score.astype(np.float64, copy=False)
        bad = np.nonzero(~np.isfinite(score))[0]
        if len(bad):
            r = int(bad[0])
            raise InputError(f"score must be a finite number, found {score[r]!r}", source, line_of(r))
        qid, docid = _clean_ids(qid, docid, source, line_of)
        q, qids = encode(qid)
        docs, encoded = docid if isinstance(docid, pa.ChunkedArray) else pa.chunked_array([docid]), None
        if pa.types.is_dictionary(docs.type):
            # codes straight from the reader (one dictionary per block, unified here)
            encoded, docs = encode(docs), None
        elif docs.type != pa.string():
            docs = pc.cast(docs, pa.string())
        out = cls(qids, q, docs, score, name, source, line_of, _encoded=encoded)
        if len(out) == 0:
            raise InputError("no ranked documents (empty run)", source)
        out._check_duplicates()
        return out

    def ranked(self) -> tuple[np.ndarray | None, np.ndarray]:
        """``(order, starts)``: row order grouping each query's rows, best first (trec_eval's
        order: score descending, ties by docid descending in string order) — None when the rows
        are in that order already — and the start offset of each query's block in that order
        (one block per query; blocks in code order)."""
        if self._ranked is None:
            # document ids for _order_ties: the string column, or the codes
            docs = self._docs if self._docs is not None else _Coded(*self._encoded)
            order, starts, self._grouped = _rank_grouped(self.q, self.score, docs)
            self._ranked = order, starts
        return self._ranked

    def _check_duplicates(self) -> None:
        order, starts = self.ranked()
        n = len(self)
        short = n / max(len(starts), 1) < 64
        if self._grouped is None:
            # query codes that never decrease down the file: each query one block of lines, so
            # the ranked order stays within blocks (a cheap sufficient test; when it fails the
            # fingerprint check below is right either way)
            self._grouped = order is None or (n > 0 and bool(np.all(self.q[1:] >= self.q[:-1])))
        if self._encoded is not None:
            # codes at hand: a repeated (query, document) code pair is a duplicate, no string
            # compared — one pass marking the pairs in a bitmap when it is small, else a sort
            d, docids = self._encoded
            if not _repeated_codes(self.q, d, len(self.qids), len(docids)):
                return
            row, count = _duplicates(self.q, d, len(docids))
        # prove the common case with numbers — no (query, fingerprint of the docid) pair
        # repeats: one vector pass and one sort, where a per-query set of strings cost a call
        # per query (0.20 s against 0.11 s at 3,000 queries of 1,000). Only when a pair does
        # repeat (a duplicate, or a fingerprint collision) are the strings compared, below.
        elif not _repeated_fingerprints(self.q, self.fingerprints(), starts, self._grouped):
            return
        elif short:
            # many short rankings: one global encode + sort beats a call per query
            row, count = _duplicates(self.q, self.d, len(self.docids))
        else:
            row, count = _block_duplicates(self._docs, order, starts, n, self._grouped)
        if row is not None:
            raise _duplicate_error(self, row, self.docs[row].as_py(), "run", count)


class _Coded:
    """Document ids as int32 codes into their unique strings, for ``_order_ties``."""

    def __init__(self, codes: np.ndarray, dictionary: pa.Array):
        self.codes, self.dictionary = codes, dictionary

    def __len__(self) -> int:
        return len(self.codes)


def _take(docs, rows: np.ndarray, ascending: bool = False) -> pa.Array | pa.ChunkedArray:
    """The document ids (strings) of ``rows``; ``ascending``: the rows are sorted."""
    if isinstance(docs, _Coded):
        return docs.dictionary.take(to_arrow(docs.codes[rows]))
    if ascending and isinstance(docs, pa.ChunkedArray) and docs.num_chunks > 1:
        return take_ascending(docs, rows)
    return docs.take(to_arrow(rows))


def take_ascending(values: pa.ChunkedArray, rows: np.ndarray) -> pa.ChunkedArray:
    """``values.take(rows)`` for sorted ``rows``, chunk by chunk: a take across the chunks of a
    chunked array gathers through a concatenation of all of them first."""
    ends = np.cumsum([len(c) for c in values.chunks])
    bounds = np.searchsorted(rows, ends)
    parts, lo, start = [], 0, 0
    for chunk, end, hi in zip(values.chunks, ends.tolist(), bounds.tolist()):
        if hi > lo:
            parts.append(chunk.take(to_arrow(rows[lo:hi].astype(np.int64) - start)))
        lo, start = hi, end
    return pa.chunked_array(parts, values.type)


def _repeated_fingerprints(q: np.ndarray, fp: np.ndarray, starts: np.ndarray, grouped: bool | None) -> bool:
    """Could some ``(q, document)`` pair occur twice (False is certain)? A run written query by
    query with the same depth for every query (1,000 each, say) sorts each query's
    fingerprints as one row of a matrix — small sorts that stay in cache, twice as fast as one
    sort of all the rows — else one sort of (query, fingerprint) hashes."""
    n, nb = len(fp), len(starts)
    if grouped and nb > 1 and n % nb == 0 and n // nb > 1:
        k = n // nb
        if starts[-1] == n - k and np.array_equal(starts, np.arange(0, n, k)):
            matrix = fp.reshape(nb, k)
            step = max(1, (1 << 18) // k)   # ~2 MiB at a time: the fingerprints are kept for the join
            buf = np.empty((min(step, nb), k), fp.dtype)
            for at in range(0, nb, step):
                part = buf[:min(step, nb - at)]
                part[...] = matrix[at:at + step]
                part.sort(axis=1)
                if (part[:, 1:] == part[:, :-1]).any():
                    return True
            return False
    return any_repeated_pair(q, fp)


def _repeated_codes(q: np.ndarray, d: np.ndarray, n_queries: int, n_docs: int) -> bool:
    """Does some ``(q, d)`` code pair occur twice? A bitmap of the pairs when it is small next
    to the rows (a re-ranking run: 3,000 queries x a 2,000-id pool), else one sort."""
    n = len(q)
    space = n_queries * max(n_docs, 1)
    if space > 8 * n + (1 << 22):
        key = q.astype(np.int64) * max(n_docs, 1) + d
        key.sort()
        return bool(np.any(key[1:] == key[:-1]))
    key = q.astype(np.int64 if space >= 1 << 31 else np.int32)
    key *= max(n_docs, 1)
    key += d
    seen = np.zeros(space, np.bool_)
    seen[key] = True
    return int(np.count_nonzero(seen)) != n


def _block_duplicates(docs: pa.ChunkedArray, order, starts: np.ndarray, n: int, grouped: bool):
    """First repeated docid within a query block: ``(row, blocks with repeats)`` or (None, 0).
    Blocks are contiguous in row order unless ``order`` is a full re-sort (not ``grouped``); a
    permutation inside blocks (tied stretches) does not change a block's set of documents."""
    full_sort = not grouped
    seq = docs.take(to_arrow(order)) if full_sort else docs
    ends = np.r_[starts[1:], n]
    bad = [(s, e) for s, e in zip(starts.tolist(), ends.tolist())
           if len(pc.unique(seq.slice(s, e - s))) < e - s]
    if not bad:
        return None, 0
    s, e = bad[0]
    block = seq.slice(s, e - s).to_pylist()
    counts = Counter(block)
    rows = [s + k for k, doc in enumerate(block) if counts[doc] > 1]
    if full_sort:
        rows = [int(order[r]) for r in rows]
    # report the second line (in file order) that repeats a document
    first_doc = docs[min(rows)].as_py()
    return sorted(r for r in rows if docs[r].as_py() == first_doc)[1], len(bad)


def _rank_grouped(q: np.ndarray, score: np.ndarray, docs: pa.ChunkedArray):
    """``(order, starts, grouped)``, as ``Run.ranked``; ``grouped``: the order only permutes
    rows within the file's own query blocks (True), or None when unknown."""
    n = len(q)
    # Fast path: files are usually written query by query, best first; verify that instead of
    # sorting (a few vector comparisons), and put only tied stretches in trec_eval's order.
    if n > 1:
        same_q = q[1:] == q[:-1]
        heads = np.r_[0, np.flatnonzero(~same_q) + 1]
        if len(heads) == int(q.max()) + 1 and np.array_equal(q[heads], np.arange(len(heads))):
            # comparisons, not a difference array: no 8-byte temporary per row
            up = score[1:] > score[:-1]
            up &= same_q
            if not up.any():
                del up
                tie = score[1:] == score[:-1]
                tie &= same_q
                return _order_ties(tie, docs), heads, True
    # Any other order: sort on the numbers only (query, score descending) — a string sort key
    # made this three times slower — then put the tied stretches in docid-descending order.
    packed = _packed_order(q, score) if n > 1 else None
    if packed is not None:
        order, same_q, tie_next = packed
        starts = np.r_[0, np.flatnonzero(~same_q) + 1]
        return _order_ties(tie_next, docs, order, in_place=True), starts, None
    table = pa.table({"q": to_arrow(q), "s": to_arrow(score)})
    order = to_numpy(pc.sort_indices(table, sort_keys=[("q", "ascending"), ("s", "descending")]))
    order = order.astype(np.int64)
    qs = q[order]
    same_q = qs[1:] == qs[:-1]
    ss = score[order]
    order = _order_ties(same_q & (ss[1:] == ss[:-1]), docs, order)   # not None: a base is given
    starts = np.r_[0, np.flatnonzero(~same_q) + 1] if n else np.zeros(0, np.int64)
    return order, starts, None


def _packed_order(q: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Row order by (query ascending, score descending) from one sort of uint64 keys packing
    the query code, the top bits of an order-preserving image of the score, and the row number
    — numpy's vectorised sort of plain integers is several times faster than an argsort on the
    score followed by one on the query. Rows whose truncated scores are equal (same query) are
    then ordered by their full scores (a few, usually); exact ties stay in row order, for
    ``_order_ties``. Returns ``(order, same_q, tie_next)`` — ``same_q[i]``: sorted rows i and
    i+1 have one query; ``tie_next[i]``: and an equal score — or None when the three fields do
    not leave at least 16 bits for the score."""
    n = len(q)
    row_bits = int(n - 1).bit_length()
    q_bits = max(int(q.max()).bit_length(), 1)
    s_bits = 64 - row_bits - q_bits
    if s_bits < 16:
        return None
    one = np.uint64(1)
    bits = (score + 0.0).view(np.uint64)  # + 0.0: -0.0 becomes 0.0, an equal score
    # ascending image: negatives bit-flipped, positives with the sign bit set; then flipped
    # again for descending
    key = np.where(score < 0, bits, ~(bits | (one << np.uint64(63))))
    del bits
    key >>= np.uint64(64 - s_bits)
    key <<= np.uint64(row_bits)
    key |= np.arange(n, dtype=np.uint64)
    qk = q.astype(np.uint64)
    qk <<= np.uint64(64 - q_bits)
    key |= qk
    del qk
    key.sort()
    order = (key & ((one << np.uint64(row_bits)) - one)).astype(np.int64)
    key >>= np.uint64(row_bits)
    same = key[1:] == key[:-1]
    key >>= np.uint64(s_bits)
    same_q = key[1:] == key[:-1]  # the sorted query codes, without a gather
    del key
    i = np.flatnonzero(same)
    tie_next = np.zeros(n - 1, bool)
    if len(i):
        in_run = np.zeros(n, bool)
        in_run[i] = True
        in_run[i + 1] = True
        rows = np.flatnonzero(in_run)
        first = np.ones(len(rows), bool)
        first[1:] = ~same[rows[1:] - 1]
        stretch = np.cumsum(first)
        at = order[rows]
        order[rows] = at[np.lexsort((-score[at], stretch))]
        # equal scores (same query) have equal truncated keys: ties lie within these stretches
        tie_next[i] = score[order[i]] == score[order[i + 1]]
    return order, same_q, tie_next


def _order_ties(tie_next: np.ndarray, docs: pa.ChunkedArray, base: np.ndarray | None = None,
                in_place: bool = False) -> np.ndarray | None:
    """Row order for rows already grouped and score-sorted (in file order, or in the order
    ``base``): ``base`` (None for the identity) unless some equal scores are not in
    docid-descending order, in which case only those stretches are sorted.
    ``tie_next[i]``: the i-th and (i+1)-th rows of that order belong to one query and have equal
    scores. ``in_place``: ``base`` may be modified and returned."""
    i = np.flatnonzero(tie_next)
    if len(i) == 0:
        return base
    at = (lambda k: k) if base is None else (lambda k: base[k])  # noqa: E731
    left = _take(docs, at(i), base is None)
    right = _take(docs, at(i + 1), base is None)
    if pc.all(pc.greater(left, right)).as_py():
        return base
    in_tie = np.zeros(len(docs), bool)
    in_tie[i] = True
    in_tie[i + 1] = True
    rows = np.flatnonzero(in_tie)
    # a stretch starts at a tied row whose predecessor is not tied to it
    starts = np.ones(len(rows), bool)
    starts[1:] = ~tie_next[rows[1:] - 1]
    stretch = np.cumsum(starts)
    table = pa.table({"s": to_arrow(stretch), "d": _take(docs, at(rows), base is None)})
    perm = to_numpy(pc.sort_indices(table, sort_keys=[("s", "ascending"), ("d", "descending")]))
    if base is None:
        order = np.arange(len(docs), dtype=np.int32 if len(docs) < 1 << 31 else np.int64)
    else:
        order = base if in_place else base.copy()
    order[rows] = at(rows[perm])
    return order
