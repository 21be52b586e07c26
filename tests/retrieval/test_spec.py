"""Every number printed in retrieval-metrics.md, through every input form, and the v1-vs-v2
comparison exercise (문제 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekit.errors import InputError, ScorekitError, UnknownNameError
from scorekit.retrieval import compare, evaluate
from scorekit.retrieval.names import parse_measure

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "retrieval"

GT = [["doc1", "doc9"], ["doc2", "doc5"], ["doc4"], ["doc3", "doc4"], ["doc8"]]
V1 = [["doc1", "doc9", "doc6", "doc2", "doc7"], ["doc7", "doc2", "doc3", "doc5", "doc1"],
      ["doc3", "doc6", "doc2", "doc1", "doc4"], ["doc3", "doc7", "doc5", "doc8", "doc2", "doc4"],
      ["doc5", "doc2", "doc7", "doc1", "doc10"]]
V2 = [["doc1", "doc9", "doc2", "doc6", "doc7"], ["doc2", "doc5", "doc3", "doc7", "doc1"],
      ["doc4", "doc3", "doc6", "doc2", "doc1"], ["doc3", "doc4", "doc7", "doc5", "doc8"],
      ["doc8", "doc5", "doc2", "doc7", "doc1"]]

SPEC = {"hit_rate@1": 0.400, "hit_rate@3": 0.600, "hit_rate@5": 0.800, "mrr": 0.540,
        "map@3": 0.350, "map@5": 0.440, "ndcg@3": 0.400, "ndcg@5": 0.530}


def _forms():
    import pandas as pd

    qrels_dict = {f"q{i + 1}": {d: 1 for d in docs} for i, docs in enumerate(GT)}
    run_dict = {f"q{i + 1}": {d: len(docs) - r for r, d in enumerate(docs)} for i, docs in enumerate(V1)}
    qdf = pd.DataFrame([(q, d, r) for q, ds in qrels_dict.items() for d, r in ds.items()],
                       columns=["q_id", "doc_id", "score"])
    rdf = pd.DataFrame([(q, d, s) for q, ds in run_dict.items() for d, s in ds.items()],
                       columns=["q_id", "doc_id", "score"])
    return {"lists": (GT, V1), "dicts": (qrels_dict, run_dict), "frames": (qdf, rdf),
            "trec": (EXAMPLES / "qrels.txt", EXAMPLES / "run_v1.txt")}


@pytest.mark.parametrize("form", ["lists", "dicts", "frames", "trec", "json"])
def test_spec_section_4_numbers(form, tmp_path):
    forms = _forms()
    if form == "json":
        qd, rd = forms["dicts"]
        (tmp_path / "q.json").write_text(json.dumps(qd))
        (tmp_path / "r.json").write_text(json.dumps(rd))
        qrels, run = tmp_path / "q.json", tmp_path / "r.json"
    else:
        qrels, run = forms[form]
    got = evaluate(qrels, run, list(SPEC)).metrics
    for name, value in SPEC.items():
        assert round(got[name], 3) == value, name


def test_spec_per_query_values():
    res = evaluate(GT, V1, "mrr,map@3,ndcg@3")
    rows = {row["id"]: row for row in res.per_item}
    assert [rows[f"q{i}"]["mrr"] for i in range(1, 6)] == [1.0, 0.5, 0.2, 1.0, 0.0]
    assert [rows[f"q{i}"]["map@3"] for i in range(1, 6)] == [1.0, 0.25, 0.0, 0.5, 0.0]
    assert [round(rows[f"q{i}"]["ndcg@3"], 3) for i in range(1, 6)] == [1.0, 0.387, 0.0, 0.613, 0.0]


def test_spec_formula_names_map_to_the_same_measures():
    # the spec's own spelling (comprehensive_evaluation's keys) parses to the ranx names
    import math

    got = evaluate(GT, V1, ["Hit_Rate@3", "MRR", "MAP@5", "NDCG@5"]).metrics
    idcg2 = 1 + 1 / math.log2(3)  # two relevant documents
    ndcg5 = (1 + (1 / math.log2(3) + 1 / math.log2(5)) / idcg2 + 1 / math.log2(6) + 1 / idcg2 + 0) / 5
    assert got == pytest.approx({"Hit_Rate@3": 0.6, "MRR": 0.54, "MAP@5": 0.44, "NDCG@5": ndcg5}, abs=1e-15)


def test_spec_ndcg_formula_is_ndcg_burges_and_equals_ndcg_on_binary_labels():
    got = evaluate(GT, V1, "ndcg@3,ndcg@5,ndcg_burges@3,ndcg_burges@5").metrics
    assert got["ndcg_burges@3"] == got["ndcg@3"] and got["ndcg_burges@5"] == got["ndcg@5"]
    graded = {"q": {"a": 3, "b": 1}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    lin = evaluate(graded, run, "ndcg@2").metrics["ndcg@2"]
    exp = evaluate(graded, run, "ndcg_burges@2").metrics["ndcg_burges@2"]
    import math
    assert lin == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)))
    assert exp == pytest.approx((1 + 7 / math.log2(3)) / (7 + 1 / math.log2(3)))


def test_practice_problem():
    gt = [["A", "B"], ["C"], ["D", "E"], ["F"]]
    pred = [["A", "X", "B"], ["Y", "C", "Z"], ["W", "V", "U"], ["T", "S", "F"]]
    got = evaluate(gt, pred, "hit_rate@3,mrr,map@3").metrics
    assert (round(got["hit_rate@3"], 3), round(got["mrr"], 3), round(got["map@3"], 3)) == (0.750, 0.458, 0.417)


def test_v1_vs_v2_comparison_exercise():
    c = compare(GT, [V1, V2], "hit_rate@3,mrr,map@3,ndcg@3", names=["v1", "v2"], test="randomization")
    rows = {r["measure"]: r for r in c.rows}
    assert {m: round(r["baseline_value"], 3) for m, r in rows.items()} == \
        {"hit_rate@3": 0.6, "mrr": 0.54, "map@3": 0.35, "ndcg@3": 0.4}
    assert all(r["value"] == 1.0 for r in rows.values())
    assert {m: round(r["improvement_pct"], 1) for m, r in rows.items()} == \
        {"hit_rate@3": 66.7, "mrr": 85.2, "map@3": 185.7, "ndcg@3": 150.0}
    # five queries: exact sign-flip test, smallest possible two-sided p is 2/32
    assert rows["map@3"]["p_value"] == pytest.approx(4 / 32)
    assert not any(r["significant"] for r in rows.values())
    d = c.to_dict()
    assert d["runs"][0]["name"] == "v1" and d["comparison"]["baseline"] == "v1"
    assert "test:randomization" in d["signature"]


def test_missing_and_extra_queries():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q9": {"a": 1.0}}
    with pytest.warns(UserWarning, match="1 queries not in the qrels"):
        res = evaluate(qrels, run, "mrr")
    assert res.metrics["mrr"] == 0.5  # q2 missing -> 0, q9 ignored
    assert res.extra["run_only_queries"] == ["q9"] and res.extra["missing_queries"] == 1


def test_relevance_threshold():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    assert evaluate(qrels, run, "mrr").metrics["mrr"] == 1.0
    assert evaluate(qrels, run, "mrr", rel_threshold=2).metrics["mrr"] == 0.5
    with pytest.raises(ScorekitError, match="positive integer"):
        evaluate(qrels, run, "mrr", rel_threshold=0)


@pytest.mark.parametrize("name,message", [
    ("ndgc@10", "did you mean 'ndcg@k'"), ("precision", "needs a cutoff"), ("ndcg@0", "k >= 1"),
    ("map@-3", "positive integer"), ("mrr@x", "positive integer"), ("r_precision@5", "takes no cutoff")])
def test_bad_measure_names(name, message):
    with pytest.raises(ScorekitError, match=message):
        parse_measure(name)


def test_unknown_measure_is_unknown_name_error():
    with pytest.raises(UnknownNameError):
        evaluate(GT, V1, "nDCG@3,recal@5")


def test_bad_python_inputs():
    with pytest.raises(InputError, match="listed twice"):
        evaluate(GT, [["doc1", "doc1"]] + V1[1:], "mrr")
    with pytest.raises(InputError, match="relevance must be an integer"):
        evaluate({"q": {"a": 1.5}}, {"q": {"a": 1.0}}, "mrr")
    with pytest.raises(InputError, match="finite"):
        evaluate({"q": {"a": 1}}, {"q": {"a": float("nan")}}, "mrr")
    with pytest.raises(InputError, match="empty qrels"):
        evaluate({}, {"q": {"a": 1.0}}, "mrr")
