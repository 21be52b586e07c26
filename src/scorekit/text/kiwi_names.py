"""Which texts Kiwi's multi-word name dictionary could touch (issue #29: Kiwi's fixed cost; see
docs/caption.md). Kiwi built without its ``multi.dict`` analyses a batch identically when no text
spells an entry; :func:`clear` answers that conservatively — it may say a text could touch an
entry when Kiwi would not use it, never the reverse.

The test, per text: the entry's *key* is a substring of the text's key, where a key is the string
NFKD-decomposed (a syllable becomes its jamo, so an added coda keeps the entry a substring),
case-folded, double codas reduced to their first consonant, with every whitespace and invisible
character removed. Substrings are found with a polynomial hash over code points (mod 2**64): a
collision can only report a match that is not there (the full dictionary is then used), never hide
one. The entries' hashes are built once from Kiwi's own file and kept in the cache folder, keyed
by the file.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import numpy as np

FILTER_VERSION = "2"
_P = np.uint64(0x9E3779B97F4A7C15)          # odd, so invertible mod 2**64
_Q = np.uint64(pow(int(_P), -1, 2**64))
_PREFIX = 9                                   # longer keys are first looked up by their first 9 code points
_CHUNK = 1 << 18                              # characters hashed at once (bounds temporary memory: ~30 MB)
_BITS = 22                                    # each hash table is screened by a bitmap of 2**22 bits
_SEP = 0xFFFF                                 # joins texts: not a space to Kiwi, in no entry
_SETS = ("short", "full", "prefix")
_TABLES = (*_SETS, "short_lengths", "longest", *(f"{n}_bitmap" for n in _SETS))


def _dropped() -> np.ndarray:
    """Code points removed from keys: every whitespace and invisible character Kiwi may read as a
    space (a space in an entry matches any run of them, or none); removing more only finds more."""
    drop = np.zeros(0x10000, bool)
    for c in range(0x3001):
        drop[c] = chr(c).isspace()
    for lo, hi in ((0x00, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x180E, 0x180E), (0x200B, 0x200F),
                   (0x2028, 0x202F), (0x205F, 0x206F), (0xFEFF, 0xFEFF)):
        drop[lo:hi + 1] = True
    return drop


_DROP = _dropped()
# double codas (jongseong jamo U+11AA..U+11B9) -> their first consonant
_CODA_FIRST = np.arange(0x11AA, 0x11BA, dtype=np.uint64)
for _double, _first in ((0x11AA, 0x11A8), (0x11AC, 0x11AB), (0x11AD, 0x11AB), (0x11B9, 0x11B8),
                        *((c, 0x11AF) for c in range(0x11B0, 0x11B7))):
    _CODA_FIRST[_double - 0x11AA] = _first

_loaded: dict[str, dict] = {}


def key_codes(texts: Sequence[str]) -> np.ndarray:
    """The texts' keys as code points (uint64), each followed by ``_SEP``: NFKD (a syllable becomes
    its jamo, so an added coda keeps an entry a substring), case-folded, without whitespace and
    invisible characters, double codas reduced to their first consonant. Every step is made
    character by character, so one call does all the texts."""
    joined = unicodedata.normalize("NFKD", "\uffff".join(texts) + "\uffff").casefold()
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
    codes = codes[~_DROP[np.minimum(codes, 0xFFFE)]].astype(np.uint64)
    double = (codes >= 0x11AA) & (codes <= 0x11B9)
    codes[double] = _CODA_FIRST[codes[double] - 0x11AA]
    return codes


def key(text: str) -> str:
    """One text's key as a string (see :func:`key_codes`)."""
    return "".join(map(chr, key_codes([text])[:-1].tolist()))


def dictionary_path() -> Path | None:
    try:
        import kiwipiepy_model
    except ImportError:  # pragma: no cover - kiwipiepy-model is a core dependency
        return None
    path = Path(kiwipiepy_model.get_model_path()) / "multi.dict"
    return path if path.is_file() else None


def _prefix_sums(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``S[i] = sum_{j<i} c_j Q^j`` and ``Ppow[i] = P^i`` (mod 2**64): the hash of ``codes[i:i+L]``
    is ``(S[i+L] - S[i]) * Ppow[i]`` = ``sum_t c_{i+t} Q^t``, whatever ``i`` is."""
    n = len(codes)
    qpow = np.full(n, _Q, np.uint64)
    ppow = np.full(n + 1, _P, np.uint64)
    with np.errstate(over="ignore"):
        if n:
            qpow[0] = 1
            np.cumprod(qpow, out=qpow)
        ppow[0] = 1
        np.cumprod(ppow, out=ppow)
        sums = np.zeros(n + 1, np.uint64)
        np.cumsum(codes * qpow, out=sums[1:])
    return sums, ppow


def _window(sums: np.ndarray, ppow: np.ndarray, starts, length) -> np.ndarray:
    """Hashes of the windows ``codes[i:i+length]`` for ``i`` in ``starts`` (an index array, or
    None for every position)."""
    with np.errstate(over="ignore"):
        if starts is None:
            return (sums[length:] - sums[:-length]) * ppow[:len(sums) - length]
        return (sums[starts + length] - sums[starts]) * ppow[starts]


def _bitmap(hashes: np.ndarray) -> np.ndarray:
    """The packed bitmap of the hashes' top ``_BITS`` bits: most lookups end there."""
    bits = np.zeros(1 << _BITS, bool)
    bits[hashes >> np.uint64(64 - _BITS)] = True
    return np.packbits(bits, bitorder="little")


def _which(tables: dict, name: str, values: np.ndarray) -> np.ndarray:
    """Indices of the ``values`` that are in the sorted hash table ``name``."""
    hashes = tables[name]
    maybe = np.flatnonzero(tables[f"{name}_bits"][values >> np.uint64(64 - _BITS)])
    if not len(maybe) or not len(hashes):
        return maybe[:0]
    v = values[maybe]
    at = np.minimum(np.searchsorted(hashes, v), len(hashes) - 1)
    return maybe[hashes[at] == v]


def _build(path: Path) -> dict[str, np.ndarray]:
    """The sorted hashes of the entries' keys: ``short`` for keys of at most ``_PREFIX`` code
    points, ``full`` for longer ones, which are also found by ``prefix`` (the hash of their first
    ``_PREFIX`` code points) with ``longest``, the longest key behind each prefix."""
    surfaces = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            surface = line.split("\t", 1)[0]
            surfaces.append(surface)
            if "++" in surface:   # '+' may be escaped as '++' in Kiwi's dictionary files
                surfaces.append(surface.replace("++", "+"))
    codes = key_codes(surfaces)
    ends = np.flatnonzero(codes == _SEP)
    begin = np.r_[0, ends[:-1] + 1]
    lengths = ends - begin
    begin, lengths = begin[lengths > 0], lengths[lengths > 0]
    sums, ppow = _prefix_sums(codes)
    hashes = _window(sums, ppow, begin, lengths)
    long = lengths > _PREFIX
    prefix = _window(sums, ppow, begin[long], _PREFIX)
    order = np.lexsort((lengths[long], prefix))
    prefix, longest = prefix[order], lengths[long][order]
    last = np.r_[prefix[1:] != prefix[:-1], True]      # the longest key per prefix is the last
    out = {"short": np.unique(hashes[~long]), "short_lengths": np.unique(lengths[~long]),
           "full": np.unique(hashes[long]), "prefix": prefix[last], "longest": longest[last].astype(np.int64)}
    for name in _SETS:
        out[f"{name}_bitmap"] = _bitmap(out[name])
    return out


def _tables() -> dict | None:
    """The entries' hashes: from the cache folder, else built from Kiwi's file (about 1.5 s) and
    saved there. None when Kiwi's file is not found."""
    path = dictionary_path()
    if path is None:
        return None
    st = path.stat()
    ident = f"{FILTER_VERSION}|{path}|{st.st_size}|{st.st_mtime_ns}|{unicodedata.unidata_version}"
    ident = hashlib.sha256(ident.encode()).hexdigest()[:16]
    if (got := _loaded.get(ident)) is not None:
        return got
    from scorekit.cache import cache_root

    cached = cache_root() / "kiwi" / f"names-{ident}.npz"
    try:
        with np.load(cached) as z:
            tables = {k: z[k] for k in _TABLES}
    except (OSError, ValueError, KeyError):
        tables = _build(path)
        try:   # a cache that cannot be written only costs the next start a rebuild
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_name(f"{cached.stem}.{os.getpid()}.tmp.npz")
            np.savez(tmp, **tables)
            os.replace(tmp, cached)
        except OSError:
            pass
    tables.update({f"{n}_bits": np.unpackbits(tables[f"{n}_bitmap"], bitorder="little").view(bool)
                   for n in _SETS})
    _loaded.clear()
    _loaded[ident] = tables
    return tables


def forget() -> None:
    """Let the tables go (about 17 MB); the next :func:`clear` reads them from the cache again."""
    _loaded.clear()


def clear(texts: Sequence[str]) -> bool:
    """True when no text can contain an entry of Kiwi's multi-word dictionary (so Kiwi without it
    analyses every text as Kiwi with it does). False when one may, or when Kiwi's file is missing."""
    tables = _tables()
    if tables is None:
        return False
    batch, size = [], 0
    for text in texts:
        batch.append(text)
        size += len(text) + 1
        if size >= _CHUNK:
            if _touches(batch, tables):
                return False
            batch, size = [], 0
    return not (batch and _touches(batch, tables))


def _touches(texts: list[str], tables: dict) -> bool:
    # a window across a separator is a hash no entry has, or a collision: at worst "may touch"
    codes = key_codes(texts)
    n = len(codes)
    sums, ppow = _prefix_sums(codes)
    for length in tables["short_lengths"].tolist():
        if length <= n and len(_which(tables, "short", _window(sums, ppow, None, length))):
            return True
    if n < _PREFIX:
        return False
    slots = _which(tables, "prefix", _window(sums, ppow, None, _PREFIX))
    if not len(slots):
        return False
    at = np.searchsorted(tables["prefix"], _window(sums, ppow, slots, _PREFIX))
    reach = tables["longest"][at]
    length = _PREFIX + 1
    while len(slots):
        keep = (reach >= length) & (slots + length <= n)
        slots, reach = slots[keep], reach[keep]
        if len(slots) and len(_which(tables, "full", _window(sums, ppow, slots, length))):
            return True
        length += 1
    return False
