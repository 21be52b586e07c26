"""The join of a run with its qrels (``retrieval.evaluate.judge``): every lookup of judged pairs
(one table of all pairs for every row; or candidate rows only, by direct table or hash), with
document ids as strings or as codes from the reader, gives the same judged rows, equal to a
plain-Python join."""

import importlib

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.retrieval.data import Run
from scorekit.retrieval.inputs import as_qrels, as_run

E = importlib.import_module("scorekit.retrieval.evaluate")   # the package exports a function of that name


def _python_join(qrels: dict, run: dict):
    """(qrels query index, 0-based rank, grade) of each judged retrieved document, by query in
    the run's first-seen order, best first (score desc, docid desc)."""
    qorder = list(qrels)
    rows = []
    for q, docs in run.items():
        if q not in qrels:
            continue
        ranked = sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        for pos, (d, _) in enumerate(ranked):
            if d in qrels[q]:
                rows.append((qorder.index(q), pos, qrels[q][d]))
    return rows


cases = st.integers(0, 10_000).map(np.random.default_rng).map(lambda rng: (
    {f"q{i}": {f"d{j}": int(rng.integers(0, 4)) for j in rng.choice(40, rng.integers(1, 8), replace=False)}
     for i in rng.permutation(12)[:rng.integers(1, 12)]},
    {f"q{i}": {f"d{j}": float(rng.integers(0, 5)) for j in rng.choice(40, rng.integers(1, 30), replace=False)}
     for i in rng.permutation(14)[:rng.integers(1, 14)]}))


def _coded(run):
    """The same run with its document ids as codes, as the TREC reader gives a small pool."""
    docs = run.docs
    return Run.from_arrays(run.qids.take(pa.array(run.q)), docs.dictionary_encode(), run.score,
                           name=run.name)


@pytest.mark.parametrize("coded", [False, True])
@pytest.mark.parametrize("path", ["dense", "table", "hash", "bitmap"])
@given(case=cases)
def test_judged_rows_equal_a_python_join(path, coded, case):
    qrels_d, run_d = case
    real_find, real_dense, real_bits = E._find, E._dense, E._prefilter_bits
    if path != "dense":   # candidate rows only
        E._dense = lambda space, n: False
    if path == "hash":    # ... looked up by hash
        E._find = lambda key, keys, space: real_find(key, keys, 1 << 40)
    if path == "bitmap":  # string ids through the fingerprint bitmap first, then by string
        E._prefilter_bits = lambda n_judged, n_rows: 16
    try:
        run = as_run(run_d)
        if coded:
            run = _coded(run)
            assert run.coded and run._docs is None
        j = E.judge(as_qrels(qrels_d), run)
    finally:
        E._find, E._dense, E._prefilter_bits = real_find, real_dense, real_bits
    got = sorted(zip(j.qi.tolist(), j.pos.tolist(), j.rel.tolist()))
    assert got == sorted(_python_join(qrels_d, run_d))
    # each query's judged rows contiguous and best first
    assert all(np.all(np.diff(j.pos[j.qi == q]) > 0) for q in np.unique(j.qi))


def test_find_both_ways():
    rng = np.random.default_rng(0)
    keys = np.unique(rng.integers(0, 5000, 300))
    key = rng.integers(0, 5000, 2000)
    direct = E._find(key, keys, 5000)
    hashed = E._find(key, keys, 1 << 40)
    expect = np.array([int(np.flatnonzero(keys == k)[0]) if k in set(keys.tolist()) else -1 for k in key])
    assert np.array_equal(direct, expect) and np.array_equal(hashed, expect)
