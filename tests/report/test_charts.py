"""The inline SVG primitives: valid XML, and every number readable back from data attributes."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.report import charts

SVG = "{http://www.w3.org/2000/svg}"
finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)   # raises on malformed markup (unescaped text, bad attributes)
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox")  # scales with its container
    return root


def marks(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


@given(st.lists(finite, min_size=1, max_size=30), st.integers(1, 20))
def test_histogram_counts_equal_numpy(values, bins):
    root = parse(charts.histogram(values, bins=bins))
    counts, edges = np.histogram(values, bins=bins,
                                 range=(min(values), max(values)) if min(values) < max(values)
                                 else (values[0] - 0.5, values[0] + 0.5))
    got = marks(root, "sk-bin")
    assert [int(e.get("data-count")) for e in got] == counts.tolist()
    assert [float(e.get("data-lo")) for e in got] == pytest.approx(edges[:-1].tolist())
    assert root.get("data-n") == str(len(values))


@given(st.lists(finite, min_size=1, max_size=40))
def test_box_stats_match_numpy_and_whiskers_stay_in_data(values):
    s = charts.box_stats(values)
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    assert (s["q1"], s["median"], s["q3"]) == pytest.approx((q1, med, q3))
    assert s["mean"] == pytest.approx(float(np.mean(values)))
    from matplotlib.cbook import boxplot_stats

    ref = boxplot_stats(np.asarray(values), whis=1.5)[0]   # matplotlib as the oracle for whiskers
    assert (s["whisker_low"], s["whisker_high"]) == pytest.approx((ref["whislo"], ref["whishi"]))
    root = parse(charts.box_plot({"a": values}))
    (box,) = marks(root, "sk-box")
    assert float(box.get("data-median")) == pytest.approx(med)
    assert int(box.get("data-n")) == len(values)


@given(st.lists(st.one_of(st.none(), finite), min_size=1, max_size=6),
       st.lists(st.one_of(st.none(), finite), min_size=1, max_size=6))
def test_grouped_bars_carry_every_value(a, b):
    n = min(len(a), len(b))
    cats = [f"m{i}" for i in range(n)]
    root = parse(charts.grouped_bars(cats, {"A": a[:n], "B": b[:n]}, markers={("m0", "B"): "*"}))
    bars = marks(root, "sk-bar")
    assert len(bars) == 2 * n
    for e in bars:
        v = (a if e.get("data-series") == "A" else b)[int(e.get("data-category")[1:])]
        got = float(e.get("data-value"))
        assert (math.isnan(got) and v is None) or got == v
    assert [e.get("data-marker") for e in bars if e.get("data-marker")] == ["*"]
    for e in bars:  # a drawn bar lies inside the chart
        if e.tag == f"{SVG}rect":
            assert float(e.get("width")) >= 0 and float(e.get("x")) >= 0


def test_line_chart_points_and_band():
    x = [5, 10, 20]
    s = {"lead": {"mean": [0.2, 0.3, 0.35], "low": [0.18, 0.27, 0.3], "high": [0.22, 0.33, 0.4]},
         "rl": {"mean": [0.25, None, 0.4]}}
    root = parse(charts.line_chart(x, s, title="rouge1"))
    pts = marks(root, "sk-point")
    got = {(p.get("data-series"), float(p.get("data-x"))): (float(p.get("data-y")), p.get("data-low")) for p in pts}
    assert got[("lead", 10.0)] == (0.3, "0.27")
    assert ("rl", 10.0) not in got and got[("rl", 20.0)][0] == 0.4
    assert len(marks(root, "sk-band")) == 1  # only the series with low/high gets a band


def test_text_is_escaped_and_nfc():
    nfd = "\u1112\u1161\u11ab\u1100\u1173\u11af"  # 한글, decomposed
    svg = charts.grouped_bars([f"<script>{nfd}", "b&c"], {"": [0.1, 0.2]}, title='"t"', kind="bar")
    root = parse(svg)
    assert "<script>" not in svg
    assert "한글" in svg and nfd not in svg
    assert [e.get("data-category") for e in marks(root, "sk-bar")] == ["<script>한글", "b&c"]


@given(finite, finite)
def test_nice_ticks_cover_the_range(lo, hi):
    lo, hi = min(lo, hi), max(lo, hi)
    t = charts.nice_ticks(lo, hi)
    assert t[0] <= lo + 1e-9 and (t[-1] >= hi - 1e-9 or hi == lo)
    assert all(b > a for a, b in zip(t, t[1:]))
    assert len(t) <= 12


@given(st.lists(finite, min_size=1, max_size=40))
def test_box_plot_draws_every_outlier_matplotlib_finds(values):
    from matplotlib.cbook import boxplot_stats

    root = parse(charts.box_plot({"a": values}))
    fliers = sorted(float(v) for v in boxplot_stats(np.asarray(values, dtype=float))[0]["fliers"])
    dots = sorted(float(e.get("data-value")) for e in marks(root, "sk-outlier"))
    assert dots == pytest.approx(fliers)
    assert int(marks(root, "sk-box")[0].get("data-outliers")) == len(fliers)


def test_a_failed_query_at_zero_is_a_visible_dot():
    root = parse(charts.box_plot({"v1": [1.0, 1.0, 1.0, 1.0, 0.0]}))
    (dot,) = marks(root, "sk-outlier")
    assert float(dot.get("data-value")) == 0.0 and float(dot.get("r")) > 0


@given(st.text(alphabet="abc_@-/한글xyz", min_size=1, max_size=80), st.floats(30, 200))
def test_wrapped_labels_keep_every_character(label, width):
    lines = charts.wrap_label(label, width)
    assert "".join(lines) == label
    assert all(charts.text_width(line) <= width or len(line) == 1 for line in lines)


def test_long_labels_are_wrapped_not_cut():
    a, b = "tuple_f1_s2_explicit_only_long_suffix", "tuple_f1_s2_implicit_only_long_suffix"
    root = parse(charts.grouped_bars([a, b], {"": [0.5, 0.6]}))
    labels = marks(root, "sk-label")
    texts = ["".join(t.text or "" for t in e.iter(f"{SVG}tspan")) for e in labels]
    assert texts == [a, b] and "…" not in "".join(texts)


def test_rates_axis_is_zero_to_one_and_counts_get_whole_ticks():
    root = parse(charts.grouped_bars(["f1"], {"": [0.3]}, domain=(0.0, 1.0)))
    assert (float(root.get("data-lo")), float(root.get("data-hi"))) == (0.0, 1.0)
    root = parse(charts.grouped_bars(["n"], {"": [3]}, integer=True))
    ticks = [float(e.text) for e in marks(root, "sk-tick")]
    assert ticks and all(t.is_integer() for t in ticks)


def test_panels_give_each_metric_its_own_axis():
    root = parse(charts.panels(["cider", "count"], {"a": [2.57, 1], "b": [1.2, 40]}))
    bars = {(e.get("data-category"), e.get("data-series")): e for e in marks(root, "sk-bar")}
    for cat in ("cider", "count"):
        lo, hi = float(bars[(cat, "a")].get("data-lo")), float(bars[(cat, "a")].get("data-hi"))
        assert lo <= 0 and hi >= max(float(bars[(cat, s)].get("data-value")) for s in "ab")
        # within one panel, bar length is proportional to the value
        wa, wb = (float(bars[(cat, s)].get("width")) for s in "ab")
        va, vb = (float(bars[(cat, s)].get("data-value")) for s in "ab")
        assert wa / wb == pytest.approx(va / vb, rel=0.02)
    assert float(bars[("cider", "a")].get("data-hi")) < float(bars[("count", "b")].get("data-hi"))


def test_line_chart_marks_the_recommended_n():
    root = parse(charts.line_chart([5, 10, 20], {"lead": {"mean": [0.1, 0.3, 0.4]}}, marks=[10]))
    (mark,) = marks(root, "sk-mark")
    assert float(mark.get("data-x")) == 10.0


# ------------------------------------------------------------------ charts that do not lie
def test_sweep_chart_has_one_recommended_label_however_many_n():
    s = {"lead": {"mean": [0.1, 0.2, 0.3, 0.4, 0.5]}}
    root = parse(charts.line_chart([5, 7, 9, 11, 13], s, marks=[5, 7, 9, 11, 13], mark_label="recommended n"))
    assert len(marks(root, "sk-mark")) == 5                   # a dashed line at every recommended n
    labels = marks(root, "sk-mark-label")
    assert len(labels) == 1 and labels[0].text == "recommended n = 5–13"


def test_equal_lines_stay_visible():
    same = {"mean": [0.3, 0.4, 0.5]}
    root = parse(charts.line_chart([1, 2, 3], {"rl": same, "lead": same}))
    lines = marks(root, "sk-line")
    assert len({ln.get("stroke-dasharray") for ln in lines}) == 2        # a dash pattern each
    shapes = {s: {e.tag for e in marks(root, "sk-point") if e.get("data-series") == s} for s in ("rl", "lead")}
    assert shapes["rl"] != shapes["lead"]                                # and a point shape each


def test_significance_markers_differ_in_shape_and_colour():
    svg = charts.grouped_bars(["ndcg@10", "map"], {"base": [0.5, 0.5], "a": [0.7, 0.3], "b": [0.51, 0.5]},
                              markers={("ndcg@10", "a"): "▲", ("map", "a"): "▼", ("ndcg@10", "b"): "○"})
    root = parse(svg)
    tspans = {t.text.strip(): t.get("fill") for t in marks(root, "sk-marker")}
    assert set(tspans) == {"▲", "▼", "○"} and len(set(tspans.values())) == 3


def test_lower_is_better_is_coloured_and_labelled():
    root = parse(charts.grouped_bars(["fix_rate", "break_rate"], {"": [0.57, 0.33]}, lower=["break_rate"]))
    bars = {b.get("data-category"): b for b in marks(root, "sk-bar")}
    assert bars["break_rate"].get("fill") == charts.LOWER_BETTER_COLOR != bars["fix_rate"].get("fill")
    assert bars["break_rate"].get("data-lower-is-better") == "1"
    assert [t.text for t in marks(root, "sk-dir")] == ["↓ better"]


def test_value_labels_with_spread_are_not_clipped():
    width = 420
    svg = charts.grouped_bars(["guided_by_review_rate"], {"": [0.9286]}, errors={"": [0.0714]},
                              domain=(0.0, 1.0), width=width)
    root = parse(svg)
    (text,) = marks(root, "sk-value")
    assert text.text == "0.9286 ± 0.0714"
    right = float(text.get("x")) + charts.text_width(text.text) * (charts.FONT - 1) / charts.FONT
    assert right <= width


@pytest.mark.parametrize("name", ["ndcg_cut.10", "P.5", "nDCG@10", "P@5", "AP", "RR"])
def test_every_retrieval_spelling_is_a_rate(name):
    from scorekit.report.model import label, metric_kind

    assert metric_kind(name, "retrieval") == "rate"
    assert label(name, "retrieval") in {"nDCG@10", "P@5", "MAP", "MRR"}
