"""The report of every family's real output in a real browser: headless Debian Chromium driven by
selenium + chromium-driver, at 1280 px and at 375 px (a phone).

One browser for the module. Selenium Manager is never consulted (explicit chromedriver path,
SE_OFFLINE, and a trap that fails the test if it is called), so nothing is downloaded. Full-page
screenshots of every family at both widths go to a temporary directory (printed with -s), or to
$SCOREKIT_SCREENSHOTS when set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.report.report_helpers import FAMILIES, HAVE_BROWSER
from scorekit.report.html import render_report


WIDTHS = (1280, 375)
pytestmark = [pytest.mark.browser, pytest.mark.skipif(not HAVE_BROWSER, reason="headless Chromium not installed "
                                                      "(Debian packages chromium + chromium-driver)")]


@pytest.fixture(scope="module")
def reports(real, tmp_path_factory) -> dict[str, Path]:
    """One report per family, from that family's real result files."""
    out = tmp_path_factory.mktemp("reports")
    paths = {}
    for fam, names in FAMILIES.items():
        path = out / f"{fam}.html"
        path.write_text(render_report([real.json(n) for n in names], sources=[f"{n}.json" for n in names]),
                        encoding="utf-8")
        paths[fam] = path
    return paths


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("SCOREKIT_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    print("screenshots in", path)
    return path


def open_report(driver, path: Path, width: int, height: int = 900, expand: bool = True) -> None:
    driver.set_window_size(width, height)
    driver.get(path.as_uri())
    driver.get_log("browser")  # (drained: each test reads only its own page's messages)
    driver.get(path.as_uri())
    if expand:
        driver.execute_script("document.querySelectorAll('details').forEach(function(d){ d.open = true; });")


def severe(driver) -> list:
    return [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "ERROR", "WARNING")]


def full_page_screenshot(driver, path: Path, width: int) -> None:
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(int(height) + 140, 16000))
    assert driver.save_screenshot(str(path))


DOM_NUMBERS = """
  return Array.from(document.querySelectorAll('section.sk-doc')).map(function(sec){
    var t = sec.querySelector('table.sk-metrics');
    var head = Array.from(t.tHead.rows[0].cells).map(function(c){ return c.textContent; });
    return {task: sec.dataset.task, head: head, byRow: t.classList.contains('sk-metrics-by-row'),
            rows: Array.from(t.tBodies[0].rows).map(function(r){
      return Array.from(r.cells).map(function(c){ return [c.textContent, c.getAttribute('data-value'),
                                                          c.offsetWidth > 0]; }); })};
  });"""

CHART_GEOMETRY = """
  return Array.from(document.querySelectorAll('svg.sk-chart')).map(function(svg){
    var r = svg.getBoundingClientRect();
    function geo(sel, f){ return Array.from(svg.querySelectorAll(sel)).map(f); }
    return {kind: svg.dataset.chart, w: r.width, h: r.height,
      bars: geo('rect.sk-bar', function(e){ var b = e.getBBox();
                return [parseFloat(e.dataset.value), b.width, e.dataset.category]; }),
      bins: geo('rect.sk-bin', function(e){ return [parseInt(e.dataset.count), e.getBBox().height]; }),
      points: geo('.sk-point', function(e){ return [e.dataset.series, parseFloat(e.dataset.y),
                                                          e.getBBox().y]; }),
      boxes: geo('g.sk-box', function(e){ return e.getBBox().width; }),
      outliers: geo('circle.sk-outlier', function(e){ var b = e.getBBox();
                    var s = svg.viewBox.baseVal; return b.x >= 0 && b.x + b.width <= s.width; })};
  });"""


@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_report_at_desktop_width(driver, real, reports, shots, family):
    open_report(driver, reports[family], 1280)
    assert severe(driver) == []
    assert driver.execute_script("return document.characterSet") == "UTF-8"
    # the metric tables in the DOM show the JSON's numbers, formatted as the report promises
    tables = driver.execute_script(DOM_NUMBERS)
    names = FAMILIES[family]
    assert len(tables) == len(names)
    for name, t in zip(names, tables):
        data = real.json(name)
        runs = data.get("runs") or [data]
        assert t["task"] == data["task"]
        if t["byRow"]:   # many metrics: a row per metric, a column per run
            assert len(t["rows"]) == len(runs[0]["metrics"])
            cells = [(row[0][0].replace("↓ better", "").strip(), run, row[1 + k])
                     for row in t["rows"] for k, run in enumerate(runs)]
        else:
            assert len(t["rows"]) == len(runs)
            cells = []
            for run, row in zip(runs, t["rows"]):
                assert row[0][0] == run["name"]
                cells += [(metric, run, c) for metric, c in zip(t["head"][1:], row[1:])]
        for metric, run, (text, value, visible) in cells:
            v = run["metrics"][metric]
            assert visible
            if v is None:
                assert value == "nan" and text == "–"
                continue
            assert float(value) == v
            tiny = isinstance(v, float) and v != 0 and abs(v) < 5e-5
            assert text == (str(v) if not isinstance(v, float) else f"{v:.3g}" if tiny else f"{v:.4f}")
    # every chart draws its numbers: a bar's length is proportional to its value on its axis
    charts = driver.execute_script(CHART_GEOMETRY)
    assert charts
    for c in charts:
        assert c["w"] > 100 and c["h"] > 40, c["kind"]
        groups: dict = {}
        for v, w, cat in c["bars"]:
            if v > 0:   # (panels: one axis per category; other charts: one axis for the chart)
                groups.setdefault(cat if c["kind"] == "panels" else "", []).append((v, w))
        for pos in groups.values():
            k = pos[0][1] / pos[0][0]
            assert all(abs(w - v * k) <= 1.0 for v, w in pos), c["kind"]
        nonzero = [(n, h) for n, h in c["bins"] if n > 0]
        if nonzero:
            k = nonzero[0][1] / nonzero[0][0]
            assert all(abs(h - n * k) <= 0.6 for n, h in nonzero)
        by_series: dict[str, list] = {}
        for s, y, top in c["points"]:
            by_series.setdefault(s, []).append((y, top))
        for pts in by_series.values():  # a higher value is drawn higher up
            pts.sort()
            assert all(b[1] <= a[1] + 1e-6 for a, b in zip(pts, pts[1:]))
        assert all(w > 0 for w in c["boxes"]) and all(c["outliers"])
    full_page_screenshot(driver, shots / f"{family}_1280.png", 1280)
    assert severe(driver) == []


@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_report_at_phone_width_nothing_overflows(driver, reports, shots, family):
    open_report(driver, reports[family], 375, 812)
    inner = driver.execute_script("return window.innerWidth")
    assert inner <= 400
    doc_w = driver.execute_script("return document.documentElement.scrollWidth")
    assert doc_w <= inner, f"page is {doc_w}px wide in a {inner}px window"
    offenders = driver.execute_script("""
      var w = window.innerWidth, bad = [];
      document.querySelectorAll('body *').forEach(function(e){
        if (e.closest('.scroll') || e.closest('svg') && e.tagName.toLowerCase() !== 'svg') return;
        var r = e.getBoundingClientRect();
        if (r.width > 0 && (r.right > w + 1 || r.left < -1)) bad.push(e.tagName + '.' + e.className + ' ' + r.right);
      });
      return bad.slice(0, 10);""")
    assert offenders == []
    widths = driver.execute_script("return Array.from(document.querySelectorAll('svg.sk-chart')).map("
                                   "function(s){ return s.getBoundingClientRect().right; });")
    assert widths and max(widths) <= inner
    full_page_screenshot(driver, shots / f"{family}_375.png", 375)
    assert severe(driver) == []


def test_sweep_recommendation_is_visible_without_opening_anything(driver, real, reports):
    open_report(driver, reports["sweep"], 1280, expand=False)
    rec = driver.find_element("css selector", ".sk-recommendation")
    assert rec.is_displayed()
    interval = real.json("sweep")["extra"]["recommendation"]["interval"]
    assert f"{interval[0]:g}" in rec.text
    heights = driver.execute_script("return Array.from(document.querySelectorAll('g.sk-mark line')).map("
                                    "function(e){ return e.getBoundingClientRect().height; });")
    assert heights and all(h > 50 for h in heights)   # drawn across the plot, in an open section


def test_drilldown_sort_and_filter(driver, real, reports):
    open_report(driver, reports["caption"], 1280)
    table = "section[data-task=caption] table.sk-items"
    ids = driver.execute_script(f"return Array.from(document.querySelector('{table}').tBodies[0].rows).map("
                                "function(r){ return r.cells[0].textContent; });")
    per_item = real.json("caption_ko")["per_item"]
    assert ids == [r["id"] for r in sorted(per_item, key=lambda r: r["meteor"])]   # worst METEOR first
    th = driver.find_element("css selector", f"{table} thead th:nth-child(4)")
    th.click()
    assert th.get_attribute("aria-sort") == "ascending"
    box = driver.find_element("css selector", "section[data-task=caption] input.sk-filter")
    target = next(r for r in per_item if "도심" in r["prediction"])
    box.send_keys("도심")
    visible = driver.execute_script(f"return Array.from(document.querySelector('{table}').tBodies[0].rows).filter("
                                    "function(r){ return !r.hidden; }).map(function(r){ return r.cells[0].textContent; });")
    assert visible == [target["id"]]
    assert severe(driver) == []
