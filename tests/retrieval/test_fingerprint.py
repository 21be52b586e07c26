"""Fingerprints of string columns (retrieval/fingerprint.py): equal strings always match (the
duplicate check relies on it to say "no duplicates"), distinct ones practically never."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.retrieval.fingerprint import any_repeated_pair, fingerprints


def _check(strings: list[str], fp: np.ndarray) -> None:
    seen: dict[str, int] = {}
    for s, v in zip(strings, fp.tolist()):
        assert seen.setdefault(s, v) == v  # equal strings, equal fingerprints
    assert len(set(seen.values())) == len(seen)  # distinct strings here, distinct fingerprints


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=60), st.integers(0, 5))
def test_equal_strings_equal_fingerprints(strings, cut):
    strings = strings + strings[::2]
    arr = pa.array(strings, pa.string())
    fp = fingerprints(arr)
    _check(strings, fp)
    # sliced arrays and several chunks give the same values
    if len(strings) > cut:
        assert np.array_equal(fingerprints(arr.slice(cut)), fp[cut:])
        chunked = pa.chunked_array([arr.slice(0, cut), arr.slice(cut)])
        assert np.array_equal(fingerprints(chunked), fp)


def test_lengths_padding_and_korean():
    strings = ["", "a", "a\x00", "ab", "abcdefg", "abcdefgh", "abcdefgh\x00", "abcdefghi", "x" * 64,
               "x" * 65, "질의", "질의 문서", "msmarco_doc_00_1234567", "msmarco_doc_00_1234576"]
    _check(strings, fingerprints(pa.array(strings)))
    big = [f"msmarco_doc_{i % 60:02d}_{i * 37 % 9_999_991}" for i in range(200_000)]
    _check(big, fingerprints(pa.array(big)))


def test_repeated_pair():
    fp = fingerprints(pa.array(["a", "b", "a", "b"]))
    assert not any_repeated_pair(np.array([0, 0, 1, 1]), fp)
    assert any_repeated_pair(np.array([0, 0, 0, 1]), fp)
