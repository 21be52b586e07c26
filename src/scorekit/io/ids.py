"""Record ids, normalised exactly like text (:func:`scorekit.text.normalize.nfc`).

An id is matched against another file's ids (predictions against references, a run against its
qrels), so ``'영상_1'`` in NFD and in NFC, or ``img_1`` with a zero-width space after it, are one
id. Readers pass ids through :func:`clean_id`, or a whole Arrow column through
:func:`clean_id_column`; two ids of one file that become equal are that reader's duplicate-id
error. A NUL byte in an id is refused (ids are printed and written back out, where it breaks the
line). Cost: a column of ASCII and precomposed Hangul ids is returned untouched after one look at
its UTF-8 bytes (0.3 ms a million); otherwise Arrow picks out the ids that change (0.25 s a
million) and only those go through Python.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from scorekit.errors import InputError
from scorekit.text.normalize import INVISIBLE, nfc


def clean_id(value: object, path: str | os.PathLike | None = None, line: int | None = None,
             what: str = "id") -> str:
    """``str(value)`` normalised like text (NFC, invisible characters removed); a NUL byte is an
    InputError naming ``path:line``."""
    key = value if isinstance(value, str) else str(value)
    if "\x00" in key:
        raise InputError(f"{what} {key!r} holds a NUL byte (\\x00)", path, line)
    return key if key.isascii() else nfc(key)


def record_id(value: object, path: str | os.PathLike | None = None, line: int | None = None,
              field: str = "id") -> str:
    """A record's id as written in JSON, a string or an integer, as ``str`` (not yet normalised).
    Anything else is an InputError naming the field: ``str()`` would make ids like ``'None'`` or
    ``"['a']"`` that match nothing and are reported, if at all, as a missing prediction."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    kind = {type(None): "null", bool: "a boolean", float: "a number", list: "a list", dict: "an object"}
    found = kind.get(type(value), type(value).__name__)
    raise InputError(f"field {field!r} must be a string or an integer, found {found}"
                     f"{f' ({value!r})' if isinstance(value, (bool, float)) else ''}", path, line)


def _plain(arr) -> bool:
    """Every id of a string array is already clean, judged from its UTF-8 bytes in one pass: no
    NUL, and every character ASCII or a precomposed Hangul syllable (U+AC00-U+D7A3). Such text is
    NFC whatever the order of its characters and holds no invisible character."""
    import pyarrow as pa

    buffers = arr.buffers()
    if len(arr) == 0 or buffers[2] is None:
        return True
    wide = pa.types.is_large_string(arr.type)
    offsets = np.frombuffer(buffers[1], np.int64 if wide else np.int32)[arr.offset:arr.offset + len(arr) + 1]
    data = np.frombuffer(buffers[2], np.uint8)[offsets[0]:offsets[-1]]
    if data.size == 0:
        return True
    if int(data.min()) == 0:
        return False
    if int(data.max()) < 0x80:
        return True
    leads = data[data >= 0xC0]
    # Hangul syllables are EA 80 80 .. ED 9E A3: a lead byte outside EA-ED is another character,
    # and ED 9E .. ED 9F may be a jamo (U+D7B0..) -- both go the slow way
    if int(leads.min()) < 0xEA or int(leads.max()) > 0xED:
        return False
    ed = np.flatnonzero(data == 0xED)
    return not len(ed) or int(data[ed + 1].max()) <= 0x9D


def _clean_strings(arr, what: str, path, row_line: Callable[[int], int | None]):
    """A string array with every value normalised; NUL bytes raise (row -> line via ``row_line``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if _plain(arr):
        return arr
    nul = pc.match_substring(arr, "\x00")
    if pc.any(nul).as_py():
        row = int(np.argmax(nul.to_numpy(zero_copy_only=False)))
        raise InputError(f"{what} {arr[row].as_py()!r} holds a NUL byte (\\x00)", path,
                         row_line(row))
    # Arrow finds the rows that NFC or removing invisible characters would change (vectorised;
    # NFC is stable across Unicode versions for assigned characters), Python's nfc — the text
    # path's own — does them.
    odd = pc.or_(pc.not_equal(pc.utf8_normalize(arr, "NFC"), arr),
                 pc.match_substring_regex(arr, f"[{INVISIBLE}]"))
    rows = np.flatnonzero(odd.to_numpy(zero_copy_only=False))
    if not len(rows):
        return arr
    cleaned = [nfc(v) for v in arr.take(pa.array(rows)).to_pylist()]
    return pc.replace_with_mask(arr, odd, pa.array(cleaned, arr.type))


def clean_id_column(col, what: str, path=None, line_of: Callable[[int], int | None] | None = None):
    """An Arrow column of ids (string, or dictionary of strings as the TREC reader makes for query
    ids) with every id passed through :func:`clean_id`: the same object when nothing changes; a
    dictionary column whose dictionary changes comes back as plain strings (ids that became equal
    are one id again). pyarrow is imported here: the caption readers use :func:`clean_id` only."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not isinstance(col, (pa.Array, pa.ChunkedArray)):
        return col
    line_of = line_of or (lambda row: None)
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    out, changed, at = [], False, 0   # at: the column row where the chunk starts
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            # error path only: pyarrow's to_numpy(zero_copy_only=False) imports pandas (0.15 s)
            def row_line(k: int, at=at, chunk=chunk) -> int | None:
                hit = pc.equal(chunk.indices, pa.scalar(k, chunk.indices.type))
                return line_of(at + pc.index(hit, True).as_py())

            dictionary = chunk.dictionary
            if pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type):
                clean = _clean_strings(dictionary, what, path, row_line)
                if clean is not dictionary:
                    chunk, changed = pc.take(clean, chunk.indices), True
        elif pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
            clean = _clean_strings(chunk, what, path, lambda row, at=at: line_of(at + row))
            if clean is not chunk:
                chunk, changed = clean, True
        out.append(chunk)
        at += len(chunk)
    if not changed:
        return col
    value_type = next((c.type for c in out if not pa.types.is_dictionary(c.type)), pa.string())
    out = [c.cast(value_type) for c in out]
    return pa.chunked_array(out, value_type) if isinstance(col, pa.ChunkedArray) else out[0]
