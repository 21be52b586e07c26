"""The HTML report over the real output of every family (`real`: the commands of examples/*/demo.sh
run on examples/, see report_helpers.COMMANDS): each section renders with the JSON's numbers."""

from __future__ import annotations

import re
import unicodedata

import pytest

from tests.report.report_helpers import COMMANDS, FAMILIES, Elements
from scorekit.errors import ScorekitError
from scorekit.report import charts
from scorekit.report import html as rh
from scorekit.report.model import UNKNOWN, load_doc, lower_is_better, metric_kind, primary_metric
from scorekit.report.sections.common import drilldown_rows
from scorekit.result import Result

CHANGE = re.compile(r"^(–|[+−±]\d+\.\d{4}( \([+−±]\d+\.\d%\))?|[+−±]\d+\.\d%)$")


def render(real, *names: str, **kw) -> tuple[str, Elements]:
    page = rh.render_report([real.json(n) for n in names], sources=[f"{n}.json" for n in names], **kw)
    return page, Elements(page)


def svgs(page: str) -> list[str]:
    return re.findall(r"<svg .*?</svg>", page, flags=re.S)


def bars_by_scale(page: str) -> dict[str, list[tuple[str, str, float]]]:
    """scale -> [(category, series, value)] of every bar in every chart."""
    out: dict[str, list] = {}
    for svg in svgs(page):
        scale = re.search(r'data-scale="([^"]+)"', svg)
        for cat, ser, val in re.findall(r'class="sk-bar[^"]*" data-category="([^"]*)" data-series="([^"]*)" '
                                        r'data-value="([^"]*)"', svg):
            out.setdefault(scale.group(1) if scale else "", []).append((cat, ser, float(val)))
    return out


def test_self_contained_utf8_page_with_nothing_to_fetch(real):
    page, el = render(real, *COMMANDS)
    assert page.startswith("<!DOCTYPE html>")
    assert el.find("meta", charset="utf-8") and el.find("meta", name="viewport")
    assert not el.find("script", src=True) and not el.find("link") and not el.find("img", src=True)
    assert set(re.findall(r"https?://[^\"' )]+", page)) == {"http://www.w3.org/2000/svg"}
    csp = el.find("meta", http_equiv="Content-Security-Policy")[0]["content"]
    assert "default-src 'none'" in csp
    assert "Noto Sans CJK KR" in page and "Apple SD Gothic Neo" in page and "Malgun Gothic" in page
    # the CSS and JS come from the package data files, inlined
    assert rh.asset("report.css").strip() in page and rh.asset("report.js").strip() in page
    assert page == unicodedata.normalize("NFC", page)
    assert el.find("html", lang="ko")
    assert len(el.with_class("sk-doc", "section")) == len(COMMANDS)


def test_english_only_report_is_lang_en(real):
    _, el = render(real, "retrieval_compare")
    assert el.find("html", lang="en")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_metrics_table_and_charts_carry_every_number_of_every_run(real, name):
    data = real.json(name)
    page, el = render(real, name)
    runs = data.get("runs") or [data]
    cells = [float(a["data-value"]) for t, a in el.elements if t == "td" and a.get("data-value") not in (None, "nan")]
    charted = {(c, s): v for items in bars_by_scale(page).values() for c, s, v in items}
    for r in runs:
        for m, v in r["metrics"].items():
            if v is None:
                continue
            assert float(v) in cells, (name, m)
            # every metric is charted (on the metrics chart or the comparison chart)
            series = r["name"] if len(runs) > 1 else ""
            assert charted.get((m, series)) == pytest.approx(v), (name, m)


def test_charts_follow_the_kind_of_value(real):
    page, _ = render(real, "absa_seed42")
    scales = {s: {c for c, _, _ in items} for s, items in bars_by_scale(page).items()}
    # a count of 1 is never drawn on the 0-1 axis of the rates
    assert "N_pred_final_aspects" in scales["count"] and "N_pred_final_aspects" not in scales["rate"]
    assert {"tuple_f1_s2", "break_rate"} <= scales["rate"]
    rate_svg = next(s for s in svgs(page) if 'data-scale="rate"' in s)
    assert 'data-lo="0.0"' in rate_svg and 'data-hi="1.0"' in rate_svg
    # CIDEr (2.57 here) is charted, on an axis of its own
    page, _ = render(real, "caption_ko")
    cider = real.json("caption_ko")["metrics"]["cider"]
    assert cider > 1 and ("cider", "", pytest.approx(cider)) in bars_by_scale(page)["score"]
    assert metric_kind("cider", "caption") == "score" and metric_kind("meteor", "caption") == "rate"


def test_labels_are_never_cut(real):
    page, _ = render(real, "absa_seed42", "absa_seeds")
    for title, spans in re.findall(r'<text class="sk-label"[^>]*><title>([^<]*)</title>((?:<tspan[^>]*>[^<]*</tspan>)+)',
                                   page):
        spans = re.sub(r'<tspan class="sk-dir"[^>]*>[^<]*</tspan>', "", spans)   # "↓ better": a note, not the name
        assert "".join(re.findall(r">([^<]*)</tspan>", spans)) == title
    assert "…" not in "".join(svgs(page))


def test_unregistered_keys_get_their_own_axis():
    doc = Result("newtask", {"acc_like": 0.5, "some_count": 7}, "task:newtask|version:0.1.0")
    page = rh.render_report([doc])
    assert metric_kind("some_count", "newtask") == UNKNOWN
    got = bars_by_scale(page)
    assert set(got) == {UNKNOWN} and {c for c, _, _ in got[UNKNOWN]} == {"acc_like", "some_count"}
    lo_hi = re.findall(r'data-category="some_count" data-series="" data-value="7.0" data-lo="([^"]+)" '
                       r'data-hi="([^"]+)"', page)
    assert lo_hi and float(lo_hi[0][1]) >= 7   # never a 0-1 axis


def test_direction_comes_from_the_registry(real):
    assert lower_is_better("break_rate", task="absa") and not lower_is_better("tuple_f1_s2", task="absa")
    assert lower_is_better("words", task="summary")
    data = real.json("summary")
    data["extra"]["primary_metric"] = "words"       # a lower-is-better metric: worst = most words
    header, rows, _ = drilldown_rows(load_doc(data))
    col = header.index("words")
    assert [r[col] for r in rows] == sorted((r["words"] for r in data["per_item"]), reverse=True)


def test_retrieval_comparison_change_column_and_outliers(real):
    data = real.json("retrieval_compare")
    page, el = render(real, "retrieval_compare")
    rows = data["comparison"]["rows"]
    changes = [a for a in el.with_class("change", "td")]
    texts = re.findall(r'<td class="num change"[^>]*>([^<]*)</td>', page)
    assert texts and all(CHANGE.match(t) for t in texts)
    comp = [float(a["data-value"]) for a in changes][:len(rows)]
    assert comp == pytest.approx([r["value"] - r["baseline_value"] for r in rows])
    assert [c["data-significant"] == "1" for c in el.with_class("sigmark", "td")] == [r["significant"] for r in rows]
    # the failed query (hit_rate@5 = 0 for v1) is a dot beside its box
    v1 = [r["hit_rate@5"] for r in data["runs"][0]["per_item"]]
    assert 0.0 in v1
    dots = re.findall(r'<svg [^>]*aria-label="hit_rate@5 per item[^"]*".*?</svg>', page, flags=re.S)[0]
    assert 'class="sk-outlier" data-series="v1" data-value="0.0"' in dots
    # wins/ties/losses of v2 against v1 by the primary metric
    prim = primary_metric(load_doc(data))
    base = {r["id"]: r[prim] for r in data["runs"][0]["per_item"]}
    wins = sum(r[prim] > base[r["id"]] for r in data["runs"][1]["per_item"])
    wtl = [a for a in el.with_class("sk-bar") if a.get("data-category") == "v2" and a.get("data-series") == "wins"]
    assert float(wtl[0]["data-value"]) == wins
    # the runs' copy of the comparison is not printed again in another format
    assert 'data-key="v2: comparison"' not in page


def test_caption_prediction_beside_references_nfc(real):
    data = real.json("caption_ko")
    worst = min(data["per_item"], key=lambda r: r["meteor"])
    nfc_pred = worst["prediction"]
    worst["prediction"] = unicodedata.normalize("NFD", nfc_pred)      # stored NFD: shown NFC
    page = rh.render_report([data])
    el = Elements(page)
    assert nfc_pred in page and worst["prediction"] not in page
    cards = el.with_class("sk-card")
    assert cards[0]["data-id"] == worst["id"]                          # worst METEOR first
    for ref in worst["references"]:
        assert ref in page
    header, _, _ = drilldown_rows(load_doc(data))
    assert header[:3] == ["id", "prediction", "references"]
    assert el.find("span", lang="ko")


def test_topics_per_topic_table_from_keywords(real):
    for name in FAMILIES["topics"]:
        data = real.json(name)
        page, el = render(real, name)
        table = re.search(r'<table class="sk-table sk-topics.*?</table>', page, flags=re.S).group(0)
        rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], flags=re.S)
        assert len(rows) == len(data["per_item"])
        for row, item in zip(rows, data["per_item"]):
            words = [re.sub(r"<[^>]+>", "", w) for w in re.findall(r'<span class="kw"[^>]*>(.*?)</span>(?=, |</td>)', row)]
            assert words == item["keywords"]
            assert f'data-value="{item["sc"]!r}"' in row


def test_absa_spread_over_seeds_from_aggregate_seeds(real):
    data = real.json("absa_seeds")
    page, _ = render(real, "absa_seeds")
    table = re.search(r'<table class="sk-table sk-seeds.*?</table>', page, flags=re.S).group(0)
    std, n = data["extra"]["std"], data["extra"]["n_seeds"]
    for m, mean in data["metrics"].items():
        row = re.search(rf"<tr><td>{re.escape(m)}</td>(.*?)</tr>", table).group(1)
        vals = re.findall(r'data-value="([^"]+)"', row)
        if mean is None:
            assert vals[:2] == ["nan", "nan"]
            continue
        assert [float(vals[0]), float(vals[1]), float(vals[2])] == pytest.approx([mean, std[m], n[m]])
    # the spread is charted: mean bars with +-std whiskers, rates and counts apart
    err = dict(re.findall(r'data-category="([^"]+)" data-series="" data-value="[^"]+" data-error="([^"]+)"', page))
    assert float(err["tuple_f1_s2"]) == pytest.approx(std["tuple_f1_s2"])
    assert 'data-key="std"' not in page                               # not dumped again below


def test_sweep_recommended_n_is_visible_and_marked(real):
    data = real.json("sweep")
    rec = data["extra"]["recommendation"]
    page, el = render(real, "sweep")
    (p,) = el.with_class("sk-recommendation", "p")
    assert [float(x) for x in p["data-n"].split(",")] == [float(x) for x in rec["interval"]]
    # in an open section, not in the collapsed "more details"
    sweep_sec = re.search(r'<details class="sk-section sk-sweep-section"[^>]*>', page).group(0)
    assert " open" in sweep_sec and 'data-key="recommendation"' not in page
    series = data["extra"]["sweep"]["series"]
    n_metrics = len({m for s in series.values() for m in s})
    marks = re.findall(r'<g class="sk-mark" data-x="([^"]+)"', page)
    assert len(marks) == n_metrics * len(rec["interval"]) and {float(x) for x in marks} == set(map(float, rec["interval"]))
    pts = el.with_class("sk-point")
    assert len(pts) == sum(len(v["mean"]) for s in series.values() for v in s.values())
    for pt in pts:
        i = data["extra"]["sweep"]["n"].index(int(float(pt["data-x"])))
        assert float(pt["data-y"]) in {v["mean"][i] for v in series[pt["data-series"]].values()}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_report_option_writes_the_same_sections(real, name):
    direct = real.direct(name).read_text(encoding="utf-8")
    page, _ = render(real, name)
    sections = lambda s: re.findall(r'<details class="sk-section ([^"]+)"', s)  # noqa: E731
    assert sections(direct) == sections(page)


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


def test_change_format_is_one_format():
    from scorekit.report.parts import delta_text, pct_text

    assert [delta_text(0.6), delta_text(-0.1), delta_text(0.0)] == ["+0.6000", "−0.1000", "±0.0000"]
    assert [pct_text(150.0), pct_text(-12.34), pct_text(0.01)] == ["+150.0%", "−12.3%", "±0.0%"]
    assert charts.fmt(3) == "3" and charts.fmt(0.5) == "0.5000" and charts.fmt(1e-6) == "1e-06"
    assert charts.fmt(0.0) == "0.0000" and charts.fmt(0.00005) == "0.0001"


@pytest.mark.parametrize("bad, msg", [
    ([1, 2], "expected a JSON object"),
    ({"task": "x"}, "no 'metrics' and no 'runs'"),
    ({"task": "x", "runs": []}, "non-empty list"),
    ({"task": "x", "metrics": [1]}, "'metrics' must be an object"),
])
def test_bad_documents_are_user_errors(bad, msg):
    with pytest.raises(ScorekitError, match=msg):
        rh.render_report([bad], sources=["f.json"])


def test_older_files_still_render():
    """Older result files: topics with `words`, ABSA with per-seed records, a sweep with `best`."""
    topics = Result("topics", {"sc": 0.1}, "task:topics|version:0.0.9",
                    per_item=[{"id": "t1", "words": ["경제", "물가"], "sc": 0.1}])
    seeds = Result("absa", {"tuple_f1_s2": 0.5}, "task:absa|version:0.0.9",
                   extra={"seeds": [{"seed": 1, "tuple_f1_s2": 0.4}, {"seed": 2, "tuple_f1_s2": 0.6}]})
    sweep = Result("sweep", {"rouge1": 0.3}, "task:sweep|version:0.0.9",
                   extra={"sweep": {"n": [5, 10], "series": {"lead": {"rouge1": {"mean": [0.2, 0.3]}}}},
                          "best": {"lead": 10}})
    page = rh.render_report([topics, seeds, sweep])
    el = Elements(page)
    assert "물가" in page and el.with_class("sk-topics", "table")
    assert [b["data-series"] for b in el.with_class("sk-box")] == ["tuple_f1_s2"]
    assert re.findall(r'<g class="sk-mark" data-x="([^"]+)"', page) == ["10.0"]
