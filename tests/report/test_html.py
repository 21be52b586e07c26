"""The HTML report over hand-made result JSON of every kind (no family code involved)."""

from __future__ import annotations

import re
import unicodedata

import pytest

from report_helpers import FIXTURES, Elements, load
from scorekit.errors import ScorekitError
from scorekit.report import html as rh
from scorekit.result import Result


def render(*names: str, **kw) -> tuple[str, Elements]:
    page = rh.render_report([load(n) for n in names], sources=[f"{n}.json" for n in names], **kw)
    return page, Elements(page)


def test_self_contained_utf8_page_with_nothing_to_fetch():
    page, el = render(*FIXTURES)
    assert page.startswith("<!DOCTYPE html>")
    assert el.find("meta", charset="utf-8")
    assert el.find("meta", name="viewport")
    assert not el.find("script", src=True) and not el.find("link") and not el.find("img", src=True)
    # the only URL is the SVG namespace; nothing points at a CDN or any other host
    assert set(re.findall(r"https?://[^\"' )]+", page)) == {"http://www.w3.org/2000/svg"}
    assert "Noto Sans CJK KR" in page and "Apple SD Gothic Neo" in page and "Malgun Gothic" in page
    assert page == unicodedata.normalize("NFC", page)
    assert el.find("html", lang="ko")


def test_english_only_report_is_lang_en():
    data = load("retrieval_single")
    for row in data["per_item"]:
        row["query"] = "plain query"
    _, el = Elements, Elements(rh.render_report([data]))
    assert el.find("html", lang="en")


def test_metrics_table_has_every_number_of_every_run():
    for name in FIXTURES:
        data = load(name)
        _, el = render(name)
        runs = data.get("runs") or [data]
        values = [float(a["data-value"]) for t, a in el.elements
                  if t == "td" and "data-value" in a and a["data-value"] != "nan"]
        for r in runs:
            for m, v in r["metrics"].items():
                assert float(v) in values, (name, m)


def test_single_retrieval_run_sections_and_worst_first_drilldown():
    data = load("retrieval_single")
    page, el = render("retrieval_single")
    assert "2 queries in the run have no judgements" in page          # extra["warnings"] up top
    assert data["signature"] in page
    header, rows, n = rh.drilldown_rows(rh.load_doc(data))
    assert header[:2] == ["id", "query"] and header[2] == "ndcg@10"  # primary metric first
    scores = [r[2] for r in rows]
    assert scores == sorted(scores) and n == 30                       # worst first
    hist = [a for a in el.find("svg") if a.get("data-chart") == "histogram"]
    assert hist and all(a["data-n"] == "30" for a in hist)
    bins = el.with_class("sk-bin")
    assert sum(int(b["data-count"]) for b in bins) == 30 * len(hist)


def test_comparison_markers_and_pivot():
    data = load("retrieval_compare")
    page, el = render("retrieval_compare")
    sig = {(r["system"], r["measure"]) for r in data["comparison"]["rows"] if r["significant"]}
    marked = {(a["data-series"], a["data-category"]) for a in el.with_class("sk-bar") if a.get("data-marker") == "*"}
    assert marked == sig
    cells = [a for a in el.with_class("sigmark", "td")]
    assert [c["data-significant"] == "1" for c in cells] == [r["significant"] for r in data["comparison"]["rows"]]
    # box plots across the three systems, per-query win/tie/loss against the baseline
    boxes = el.with_class("sk-box")
    assert {b["data-series"] for b in boxes} == {"bm25", "dense", "hybrid"}
    base = {r["id"]: r["ndcg@10"] for r in data["runs"][0]["per_item"]}
    dense = {r["id"]: r["ndcg@10"] for r in data["runs"][1]["per_item"]}
    wins = sum(dense[q] > base[q] for q in base)
    wtl = [a for a in el.with_class("sk-bar") if a.get("data-category") == "dense" and a.get("data-series") == "wins"]
    assert float(wtl[0]["data-value"]) == wins


def test_caption_prediction_beside_references_nfc():
    data = load("caption_ko")
    nfd = data["per_item"][2]["prediction"]
    assert nfd != unicodedata.normalize("NFC", nfd)                   # the fixture really is NFD
    page, el = render("caption_ko")
    assert unicodedata.normalize("NFC", nfd) in page and nfd not in page
    cards = el.with_class("sk-card")
    worst = min(data["per_item"], key=lambda r: r["meteor"])
    assert cards[0]["data-id"] == worst["id"]                         # worst METEOR first
    for ref in data["per_item"][0]["references"]:
        assert ref in page
    header, rows, _ = rh.drilldown_rows(rh.load_doc(data))
    assert header[:3] == ["id", "prediction", "references"]
    assert el.find("span", lang="ko")


def test_sweep_curves():
    data = load("sweep")
    _, el = render("sweep")
    pts = el.with_class("sk-point")
    series = data["extra"]["sweep"]["series"]
    expected = {(s, float(n), m) for s in series for m in series[s] for n in data["extra"]["sweep"]["n"]}
    assert len(pts) == len(expected)
    for p in pts:
        s = p["data-series"]
        i = data["extra"]["sweep"]["n"].index(int(float(p["data-x"])))
        ys = {m: series[s][m]["mean"][i] for m in series[s]}
        assert float(p["data-y"]) in ys.values()
    assert len(el.with_class("sk-band", "polygon")) == 6  # 3 systems x 2 metrics


def test_topics_absa_and_generic_extra():
    page, el = render("topics", "absa")
    assert "인플레이션" in page and el.with_class("sk-topic")
    assert el.find("table", data_extra="grid")                        # list of records -> table
    assert el.find("table", data_extra="structural_metrics")          # dict of dicts -> matrix
    assert el.with_class("sk-seeds", "table")                         # ABSA spread over seeds
    assert {b["data-series"] for b in el.with_class("sk-box")} >= {"tuple_f1", "fix_rate", "break_rate"}


def test_primary_metric_hint_and_direction():
    data = load("absa")
    doc = rh.load_doc(data)
    assert rh.primary_metric(doc) == "tuple_f1"
    data["extra"]["primary_metric"] = "tuple_f1"
    data["extra"]["lower_is_better"] = ["tuple_f1"]
    header, rows, _ = rh.drilldown_rows(rh.load_doc(data))
    col = header.index("tuple_f1")
    assert [r[col] for r in rows] == [1.0, 0.5, 0.0]                  # lower is better: worst = highest
    assert rh.lower_is_better("break_rate") and not rh.lower_is_better("hit_rate@10")


def test_task_sections_are_pluggable(monkeypatch):
    monkeypatch.setitem(rh.TASK_SECTIONS, "newtask", lambda doc: ("<p id='plugged'>hello</p>", {"secret"}))
    data = Result("newtask", {"acc": 0.5}, "task:newtask|version:0.1.0", extra={"secret": 1, "shown": 2})
    page = rh.render_report([data])
    assert "id='plugged'" in page and 'data-key="shown"' in page and 'data-key="secret"' not in page


def test_many_items_are_capped_and_huge_text_escaped():
    items = [{"id": f"q{i}", "ndcg@10": i / 2000, "query": "<b>x</b>"} for i in range(2000)]
    page = rh.render_report([Result("retrieval", {"ndcg@10": 0.5}, "sig", per_item=items)])
    assert "showing the worst 500" in page and "<b>x</b>" not in page
    assert 'data-n="2000"' in page


@pytest.mark.parametrize("bad, msg", [
    ([1, 2], "expected a JSON object"),
    ({"task": "x"}, "no 'metrics' and no 'runs'"),
    ({"task": "x", "runs": []}, "non-empty list"),
    ({"task": "x", "metrics": [1]}, "'metrics' must be an object"),
])
def test_bad_documents_are_user_errors(bad, msg):
    with pytest.raises(ScorekitError, match=msg):
        rh.render_report([bad], sources=["f.json"])
