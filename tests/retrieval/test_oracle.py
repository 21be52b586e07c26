"""Every measure against pytrec_eval (trec_eval itself) on hypothesis-generated qrels and runs
with ties, graded and negative labels, missing and extra queries; and against ranx on tie-free
runs. Scores are drawn from multiples of 1/8 so pytrec_eval's float parsing keeps them exact."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytrec_eval = pytest.importorskip("pytrec_eval")

from scorekit.retrieval import evaluate  # noqa: E402
from scorekit.retrieval.evaluate import RetrievalWarning  # noqa: E402

# docids chosen so string order differs from numeric order ("d10" < "d9"), plus Hangul ids
DOCS = ["d1", "d2", "d9", "d10", "d11", "D3", "문서1", "문서2", "a", "z0"]
QUERIES = ["q1", "q2", "q10", "질의", "q3", "q4"]
KS = (1, 2, 3, 5, 7)

TREC_OF = {  # our name pattern -> pytrec_eval measure key pattern
    "hit_rate@{k}": "success_{k}",
    "precision@{k}": "P_{k}",
    "recall@{k}": "recall_{k}",
    "map@{k}": "map_cut_{k}",
    "ndcg@{k}": "ndcg_cut_{k}",
}
# trec_eval's plain "ndcg" hangs on qrels with negative grades (pytrec_eval 0.5), so nDCG over the
# whole ranking is checked as ndcg_cut_100 (identical when lists are shorter than 100).
TREC_PLAIN = {"r_precision": "Rprec", "mrr": "recip_rank", "map": "map", "ndcg": "ndcg_cut_100"}
TREC_MEASURES = {"success", "P", "recall", "map_cut", "ndcg_cut"}


def _measure_set():
    cut = ",".join(map(str, KS))
    return {f"{m}.{cut}" for m in TREC_MEASURES - {"ndcg_cut"}} | {f"ndcg_cut.{cut},100", "Rprec",
                                                                    "recip_rank", "map"}


@st.composite
def qrels_and_run(draw, ties=True, negative=True):
    labels = st.integers(-1 if negative else 0, 3)
    qrels: dict[str, dict[str, int]] = {}
    for q in draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=5, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
        qrels[q] = {d: draw(labels) for d in docs}
    run: dict[str, dict[str, float]] = {}
    pool = list(qrels) + ["q_extra"] if draw(st.booleans()) else list(qrels)
    for q in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
        if ties:
            run[q] = {d: draw(st.integers(0, 6)) / 8 for d in docs}
        else:  # distinct scores
            vals = draw(st.permutations(list(range(len(docs)))))
            run[q] = {d: v / 8 + 1 for d, v in zip(docs, vals)}
    return qrels, run


def trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, ties by docid descending (byte order = code points)."""
    return sorted(docs, key=lambda d: (docs[d], d), reverse=True)


def _rr_cut(rr: float, k: int) -> float:
    return rr if rr > 0 and round(1 / rr) <= k else 0.0


def oracle(qrels, run, threshold):
    """Per-measure mean over every qrels query (missing queries 0), from pytrec_eval."""
    run = {q: docs for q, docs in run.items() if q in qrels}
    ev = pytrec_eval.RelevanceEvaluator(qrels, _measure_set(), relevance_level=threshold)
    res = ev.evaluate(run)
    # ndcg_burges@k == trec_eval ndcg_cut on grades mapped to 2^rel - 1
    burges_qrels = {q: {d: (2 ** r - 1 if r > 0 else 0) for d, r in docs.items()} for q, docs in qrels.items()}
    res_b = pytrec_eval.RelevanceEvaluator(burges_qrels, {f"ndcg_cut.{','.join(map(str, KS))},100"},
                                           relevance_level=threshold).evaluate(run)
    out: dict[str, float] = {}

    def mean(get):
        return sum(get(q) for q in qrels) / len(qrels)

    for ours, theirs in TREC_OF.items():
        for k in KS:
            key = theirs.format(k=k)
            out[ours.format(k=k)] = mean(lambda q: res.get(q, {}).get(key, 0.0))
    for ours, theirs in TREC_PLAIN.items():
        out[ours] = mean(lambda q: res.get(q, {}).get(theirs, 0.0))
    for k in KS:
        out[f"ndcg_burges@{k}"] = mean(lambda q: res_b.get(q, {}).get(f"ndcg_cut_{k}", 0.0))
        # mrr@k: trec_eval's recip_rank 1/r counts only when r <= k. (Evaluating cut runs
        # instead hangs pytrec_eval 0.5 after a few calls on one evaluator.)
        out[f"mrr@{k}"] = mean(lambda q: _rr_cut(res.get(q, {}).get("recip_rank", 0.0), k))
    out["ndcg_burges"] = mean(lambda q: res_b.get(q, {}).get("ndcg_cut_100", 0.0))
    return out


@settings(max_examples=60)
@given(qrels_and_run(), st.sampled_from([1, 1, 2]))
def test_every_measure_equals_trec_eval(data, threshold):
    qrels, run = data
    expected = oracle(qrels, run, threshold)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetrievalWarning)
        got = evaluate(qrels, run, list(expected), rel_threshold=threshold).metrics
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


@settings(max_examples=40)
@given(qrels_and_run(ties=False, negative=False))
def test_equals_ranx_on_tie_free_runs(data):
    ranx = pytest.importorskip("ranx")
    qrels, run = data
    run = {q: run.get(q, {"__none__": 0.0}) for q in qrels}  # ranx wants the same queries
    names = [f"{m}@{k}" for m in ("hit_rate", "precision", "recall", "mrr", "map", "ndcg", "ndcg_burges")
             for k in (1, 3, 5)] + ["mrr", "map", "ndcg", "r-precision"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names)
    got = evaluate(qrels, run, names).metrics
    for name in names:
        assert got[name] == pytest.approx(expected[name], abs=1e-9), name


def test_ir_measures_agrees_on_a_graded_example():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 3}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.25, "d9": 0.75}, "q2": {"d5": 1.0, "d1": 0.5}}
    measures = [ir_measures.nDCG @ 3, ir_measures.AP @ 2, ir_measures.P @ 2, ir_measures.RR, ir_measures.R @ 3]
    theirs = {str(k): v for k, v in ir_measures.calc_aggregate(measures, qrels, run).items()}
    ours = evaluate(qrels, run, "ndcg@3,map@2,precision@2,mrr,recall@3").metrics
    assert ours["ndcg@3"] == pytest.approx(theirs["nDCG@3"], abs=1e-12)
    assert ours["map@2"] == pytest.approx(theirs["AP@2"], abs=1e-12)
    assert ours["precision@2"] == pytest.approx(theirs["P@2"], abs=1e-12)
    assert ours["mrr"] == pytest.approx(theirs["RR"], abs=1e-12)
    assert ours["recall@3"] == pytest.approx(theirs["R@3"], abs=1e-12)


def test_tie_break_is_docid_descending_string_order():
    # all tied: trec_eval ranks d9 > d3 > d2 > d10 > d1 ("d10" < "d2" as strings)
    qrels = {"q": {"d10": 1}}
    run = {"q": {d: 1.0 for d in ["d1", "d2", "d3", "d9", "d10"]}}
    assert evaluate(qrels, run, "mrr").metrics["mrr"] == pytest.approx(1 / 4)
    assert math.isclose(oracle(qrels, run, 1)["mrr"], 1 / 4)


@settings(max_examples=40)
@given(qrels_and_run(), st.sampled_from(["best-first", "ties-ascending", "shuffled"]), st.randoms())
def test_trec_files_in_any_line_order_equal_trec_eval(data, layout, rnd):
    """The reader's fast paths (file already in trec_eval order / only ties out of order) and
    the full sort give trec_eval's numbers."""
    import os
    import tempfile

    qrels, run = data
    lines = []
    for q, docs in run.items():
        if layout == "best-first":
            ranked = trec_order(docs)
        else:  # score descending, ties in ascending docid order (the wrong way for trec_eval)
            ranked = sorted(docs, key=lambda d: (-docs[d], d))
        lines += [f"{q} Q0 {d} {i + 1} {docs[d]!r} t\n" for i, d in enumerate(ranked)]
    if layout == "shuffled":
        rnd.shuffle(lines)
    fd, path = tempfile.mkstemp(suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.writelines(lines)
    try:
        expected = oracle(qrels, run, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RetrievalWarning)
            got = evaluate(qrels, path, list(expected)).metrics
    finally:
        os.unlink(path)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
