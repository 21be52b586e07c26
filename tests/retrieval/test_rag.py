"""scorekit.retrieval.rag, default relevance: against pytrec_eval on standard qrels built by hand
from every reference passage (issue #30), plus the matching rules and the spec's scenario."""

from __future__ import annotations

import math
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.errors import ScorekitError
from scorekit.retrieval import rag
from scorekit.retrieval.rag import assign
from scorekit.retrieval.rag_match import Matching, similarity_matrices

pytrec_eval = pytest.importorskip("pytrec_eval")

EX = Path(__file__).resolve().parents[2] / "examples" / "rag"
TREC = {"ndcg@5": "ndcg_cut_5", "map@5": "map_cut_5", "mrr": "recip_rank", "recall@5": "recall_5",
        "P@3": "P_3", "hit_rate@5": "success_5", "Rprec": "Rprec", "bpref": "bpref", "map": "map",
        "ndcg": "ndcg"}
POOL = ["배송 지연 문의입니다", "결제 오류가 났어요", "쿠폰이 적용되지 않습니다", "환불 받고 싶어요",
        "Where is my parcel?", "포인트 적립 문의", "회원가입 인증번호", "사이즈 교환 요청", "재고 문의"]


def _oracle(records):
    """Standard qrels: every (distinct) reference is relevant; a retrieved passage is that
    reference's document when its normalised text equals it and it is the text's first occurrence
    in the ranking; anything else is its own judged non-relevant document."""
    qrels, run = {}, {}
    for r in records:
        norm = lambda t: " ".join(unicodedata.normalize("NFC", t).split())  # noqa: E731
        refs = {norm(t) for t in r["references"]}
        qrels[r["id"]] = {f"ref:{t}": 1 for t in refs}
        run[r["id"]] = {}
        seen = set()
        n = len(r["retrieved"])
        for j, t in enumerate(r["retrieved"]):
            t = norm(t)
            doc = f"ref:{t}" if t in refs and t not in seen else f"other:{j}"
            seen.add(t)
            if doc.startswith("other:"):
                qrels[r["id"]][doc] = 0
            run[r["id"]][doc] = float(n - j)
    return qrels, run


def _variant(text, form, spaces):
    text = unicodedata.normalize(form, text)
    return text.replace(" ", "  ") if spaces else text


@st.composite
def records(draw):
    n = draw(st.integers(1, 6))
    out = []
    for q in range(n):
        refs = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=3, unique=True))
        k = draw(st.integers(0, 7))
        ret = []
        for _ in range(k):
            t = draw(st.sampled_from(POOL + refs))          # references often, duplicates too
            ret.append(_variant(t, draw(st.sampled_from(["NFC", "NFD"])), draw(st.booleans())))
        out.append({"id": f"q{q}", "question": "질문", "retrieved": ret,
                    "references": [_variant(t, draw(st.sampled_from(["NFC", "NFD"])), False) for t in refs]})
    if not any(r["retrieved"] for r in out):
        out[0]["retrieved"] = [out[0]["references"][0]]
    return out


@settings(max_examples=60, deadline=None)
@given(records())
def test_default_equals_pytrec_eval_on_standard_qrels(recs):
    res = rag.evaluate(recs, list(TREC), match="exact", threshold=1.0)
    qrels, run = _oracle(recs)
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(TREC.values())).evaluate(run)
    for key, trec in TREC.items():
        per = [ev[r["id"]][trec] if r["id"] in ev else 0.0 for r in recs]
        assert res.metrics[key] == pytest.approx(np.mean(per), abs=1e-12), key
        for row, want in zip(res.per_item, per):
            assert row[key] == pytest.approx(want, abs=1e-12), (key, row["id"])


def test_two_references_one_retrieved_scores_standard_values():
    """The issue's example: two references, only one retrieved (rank 1): nDCG@3 0.613, MAP@3 0.5
    (ranx-k says 1.0 and 1.0)."""
    recs = [{"id": "a", "retrieved": ["배송 지연 문의입니다", "재고 문의"],
             "references": ["배송 지연 문의입니다", "환불 받고 싶어요"]}]
    res = rag.evaluate(recs, "ndcg@3,map@3,recall@3", match="exact", threshold=1.0)
    assert res.metrics["ndcg@3"] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert res.metrics["map@3"] == 0.5 and res.metrics["recall@3"] == 0.5


def test_assign_is_one_to_one_in_rank_order():
    sim = np.array([[0.9, 0.8, 0.1, 0.7],
                    [0.6, 0.95, 0.2, 0.65]])
    ref_of, sim_of = assign(sim, np.zeros(4, bool), 0.5)
    # rank 1 takes ref 0 (0.9 > 0.6); rank 2 takes ref 1; rank 3 matches nothing; rank 4: no free ref
    assert ref_of.tolist() == [0, 1, -1, -1]
    assert sim_of.tolist() == [0.9, 0.95, 0.0, 0.0]
    ref_of, _ = assign(sim, np.array([False, True, False, False]), 0.5)
    assert ref_of.tolist() == [0, -1, -1, 1]   # the duplicate is skipped; rank 4 gets ref 1


def test_graded_gain_is_the_similarity_over_a_verbatim_ideal():
    recs = [{"id": "a", "retrieved": ["배송 지연 문의", "쿠폰 문의"], "references": ["배송 지연 문의입니다", "쿠폰이 적용되지 않습니다"]}]
    m = Matching("rouge_l", 0.3, graded=True)
    sims = similarity_matrices([recs[0]["references"]], [recs[0]["retrieved"]], m)[0]
    ref_of, sim_of = assign(sims, np.zeros(2, bool), 0.3)
    res = rag.evaluate(recs, "ndcg@5,recall@5", match=m)
    dcg = sum(s / math.log2(r + 2) for r, s in enumerate(sim_of))
    assert res.metrics["ndcg@5"] == pytest.approx(dcg / (1 + 1 / math.log2(3)), abs=1e-12)
    assert res.metrics["recall@5"] == np.count_nonzero(ref_of >= 0) / 2
    assert 0 < res.metrics["ndcg@5"] < 1


def test_korean_nfc_and_nfd_score_alike():
    recs = [{"id": "a", "retrieved": ["배송이 지연되어 문의드립니다", "쿠폰 적용이 안 돼요"],
             "references": ["주문한 상품 배송이 지연되어 문의드립니다"]}]
    nfd = [{**recs[0], "retrieved": [unicodedata.normalize("NFD", t) for t in recs[0]["retrieved"]]}]
    for match in ("rouge_l", "rouge_1", "rouge_2", "kiwi_rouge", "exact"):
        a = rag.evaluate(recs, "ndcg@3,mrr", match=match, threshold=0.3)
        b = rag.evaluate(nfd, "ndcg@3,mrr", match=match, threshold=0.3)
        assert a.metrics == b.metrics, match
    assert rag.evaluate(recs, "mrr", match="rouge_l", threshold=0.3).metrics["mrr"] == 1.0


def test_spec_scenario_equals_id_based_retrieval():
    """examples/rag holds the spec's §3.1 documents, questions and system results as passages:
    with exact matching the numbers are those of `scorekit retrieval` on the ids."""
    from scorekit.retrieval import evaluate

    ids = EX.parent / "retrieval"
    measures = "hit_rate@3,mrr,map@3,ndcg@3,recall@5,P@5"
    for name in ("v1", "v2"):
        want = evaluate(str(ids / "qrels.txt"), str(ids / f"run_{name}.txt"), measures).metrics
        for match in ("exact", "kiwi_rouge", "rouge_l"):
            got = rag.evaluate(str(EX / f"system_{name}.jsonl"), measures, match=match, threshold=0.5)
            assert got.metrics == pytest.approx(want, abs=1e-12), (name, match)


def test_retriever_interface_with_langchain_documents():
    lc = pytest.importorskip("langchain_core.documents")

    class Retriever:
        def __init__(self):
            self.calls = 0

        def invoke(self, question):
            self.calls += 1
            return [lc.Document(page_content=t) for t in {"q1": ["a b", "c d"], "q2": ["e f"]}[question]]

    r = Retriever()
    data = rag.collect(r, ["q1", "q2"], [["c d"], [lc.Document(page_content="e f"), "g h"]], ids=["x", "y"])
    res = rag.evaluate(data, "mrr,recall@5", match="exact", threshold=1.0)
    assert r.calls == 2 and res.metrics == {"mrr": 0.75, "recall@5": 0.75}
    assert [row["id"] for row in res.per_item] == ["x", "y"]


def test_compare_needs_the_same_references(tmp_path):
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text('{"id": "1", "retrieved": ["x"], "references": ["x"]}\n', encoding="utf-8")
    b.write_text('{"id": "1", "retrieved": ["x"], "references": ["y"]}\n', encoding="utf-8")
    with pytest.raises(ScorekitError, match="references differ"):
        rag.compare([str(a), str(b)], "mrr", match="exact", threshold=1.0)


def test_measure_with_its_own_relevance_level_is_refused():
    with pytest.raises(ScorekitError, match="own relevance level"):
        rag.evaluate([{"id": "1", "retrieved": ["x"], "references": ["x"]}], "P(rel=2)@5")
