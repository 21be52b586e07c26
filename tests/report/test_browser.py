"""The report in a real browser: headless Debian Chromium driven by selenium + chromium-driver.

One browser for the module. Selenium Manager is never consulted (explicit chromedriver path,
SE_OFFLINE, and a trap that fails the test if it is called), so nothing is downloaded.
Screenshots go to a temporary directory (path printed with -s).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from report_helpers import FIXTURES, load
from scorekit.report.html import render_report

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
                       reason="headless Chromium not installed (Debian packages chromium + chromium-driver)"),
]


@pytest.fixture(scope="module")
def driver():
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common import selenium_manager

    def trap(*a, **k):  # pragma: no cover - only runs if selenium tried to fetch a browser/driver
        raise AssertionError("selenium-manager was invoked")

    saved = selenium_manager.SeleniumManager.binary_paths
    selenium_manager.SeleniumManager.binary_paths = trap
    profile = tempfile.mkdtemp(prefix="sk-chromium-")
    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                f"--user-data-dir={profile}"):
        opts.add_argument(arg)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield drv
    finally:
        drv.quit()
        selenium_manager.SeleniumManager.binary_paths = saved
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    path = out / "report.html"
    path.write_text(render_report([load(n) for n in FIXTURES], sources=[f"{n}.json" for n in FIXTURES]),
                    encoding="utf-8")
    return path


def open_report(driver, path: Path, width: int = 1200, height: int = 900) -> None:
    driver.set_window_size(width, height)
    driver.get(path.as_uri())
    driver.get_log("browser")  # (drained: each test reads only its own page's messages)
    driver.get(path.as_uri())
    driver.execute_script("document.querySelectorAll('details').forEach(function(d){ d.open = true; });")


def severe(driver) -> list:
    return [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "ERROR", "WARNING")]


def test_no_console_errors_and_script_ran(driver, report):
    open_report(driver, report)
    assert severe(driver) == []
    assert driver.execute_script("return document.characterSet") == "UTF-8"
    assert driver.execute_script("return document.documentElement.lang") == "ko"
    # the inline script is allowed by the page's CSP and wired the sortable headers
    th = driver.find_element("css selector", "table.sk-items thead th:nth-child(3)")
    th.click()
    assert th.get_attribute("aria-sort") == "ascending"
    assert severe(driver) == []


def test_metric_tables_show_the_json_numbers(driver, report):
    open_report(driver, report)
    tables = driver.execute_script("""
      return Array.from(document.querySelectorAll('section.sk-doc')).map(function(sec){
        var t = sec.querySelector('table.sk-metrics');
        var head = Array.from(t.tHead.rows[0].cells).map(function(c){ return c.textContent; });
        return {task: sec.dataset.task, head: head, rows: Array.from(t.tBodies[0].rows).map(function(r){
          return Array.from(r.cells).map(function(c){ return [c.textContent, c.getAttribute('data-value'),
                                                              c.offsetWidth > 0]; }); })};
      });""")
    assert [t["task"] for t in tables] == [load(n).get("task") for n in FIXTURES]
    for name, t in zip(FIXTURES, tables):
        data = load(name)
        runs = data.get("runs") or [data]
        assert len(t["rows"]) == len(runs)
        for run, row in zip(runs, t["rows"]):
            assert row[0][0] == run["name"]
            for metric, (text, value, visible) in zip(t["head"][1:], row[1:]):
                v = run["metrics"][metric]
                assert visible and float(value) == v
                assert text == (f"{v:.4f}" if isinstance(v, float) else str(v))


def test_every_chart_renders_its_numbers(driver, report):
    open_report(driver, report)
    charts = driver.execute_script("""
      return Array.from(document.querySelectorAll('svg.sk-chart')).map(function(svg){
        var r = svg.getBoundingClientRect();
        function geo(sel, f){ return Array.from(svg.querySelectorAll(sel)).map(f); }
        return {kind: svg.dataset.chart, w: r.width, h: r.height,
          bars: geo('rect.sk-bar', function(e){ var b = e.getBBox();
                    return [parseFloat(e.dataset.value), b.width, b.x]; }),
          bins: geo('rect.sk-bin', function(e){ return [parseInt(e.dataset.count), e.getBBox().height]; }),
          points: geo('circle.sk-point', function(e){ return [e.dataset.series, parseFloat(e.dataset.y),
                                                              e.getBBox().y]; }),
          boxes: geo('g.sk-box', function(e){ return e.getBBox().width; })};
      });""")
    kinds = {c["kind"] for c in charts}
    assert kinds == {"bar", "grouped-bars", "histogram", "box", "line"}
    for c in charts:
        assert c["w"] > 100 and c["h"] > 40, c["kind"]
        # bar length is proportional to the value it carries (same scale within one chart)
        pos = [(v, w) for v, w, _ in c["bars"] if v > 0]
        if len(pos) >= 2:
            k = pos[0][1] / pos[0][0]
            assert all(abs(w - v * k) <= 1.0 for v, w in pos), c["kind"]
        nonzero = [(n, h) for n, h in c["bins"] if n > 0]
        if nonzero:
            k = nonzero[0][1] / nonzero[0][0]
            assert all(abs(h - n * k) <= 0.6 for n, h in nonzero)
            assert all(h == 0 for n, h in c["bins"] if n == 0)
        by_series: dict[str, list] = {}
        for s, y, top in c["points"]:
            by_series.setdefault(s, []).append((y, top))
        for pts in by_series.values():  # a higher value is drawn higher up
            pts.sort()
            assert all(b[1] <= a[1] + 1e-6 for a, b in zip(pts, pts[1:]))
        assert all(w > 0 for w in c["boxes"])
    # the comparison chart shows the significance markers from the JSON
    rows = load("retrieval_compare")["comparison"]["rows"]
    marks = driver.execute_script("""return Array.from(document.querySelectorAll('[data-marker]')).map(
        function(e){ return [e.dataset.series, e.dataset.category]; });""")
    assert sorted(map(tuple, marks)) == sorted((r["system"], r["measure"]) for r in rows if r["significant"])


def test_drilldown_sort_and_filter(driver, report):
    open_report(driver, report)
    table = "section[data-task=caption] table.sk-items"
    ids = driver.execute_script(f"return Array.from(document.querySelectorAll('{table} tbody tr')).map("
                                "function(r){ return r.cells[0].textContent; });")
    per_item = load("caption_ko")["per_item"]
    assert ids == [r["id"] for r in sorted(per_item, key=lambda r: r["meteor"])]   # worst METEOR first
    cells = driver.execute_script(f"return Array.from(document.querySelectorAll('{table} tbody tr')).map("
                                  "function(r){ return [r.cells[1].textContent, r.cells[2].innerText]; });")
    assert cells[0][0] == "고양이가 창가에서 졸고 있다" and "햇볕" in cells[0][1]   # prediction beside references
    box = driver.find_element("css selector", "section[data-task=caption] input.sk-filter")
    box.send_keys("도심")
    visible = driver.execute_script(f"return Array.from(document.querySelectorAll('{table} tbody tr')).filter("
                                    "function(r){ return !r.hidden; }).map(function(r){ return r.cells[0].textContent; });")
    assert visible == ["vid003"]   # typed NFC, the row's text was NFD in the JSON: still found
    assert severe(driver) == []


def test_phone_width_nothing_overflows(driver, report, tmp_path_factory):
    open_report(driver, report, width=375, height=812)
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
    # wide tables scroll inside their containers instead
    assert driver.execute_script("""return Array.from(document.querySelectorAll('.scroll')).some(
        function(s){ return s.scrollWidth > s.clientWidth; });""")
    # charts scale down to the window
    widths = driver.execute_script("return Array.from(document.querySelectorAll('svg.sk-chart')).map("
                                   "function(s){ return s.getBoundingClientRect().right; });")
    assert max(widths) <= inner
    shots = tmp_path_factory.mktemp("screenshots")
    driver.set_window_size(375, 812)
    driver.execute_script("document.querySelector('section[data-task=caption]').scrollIntoView();")
    assert driver.save_screenshot(str(shots / "phone_caption.png"))
    driver.execute_script("document.querySelector('section[data-task=retrieval] .sk-comparison-section')"
                          ".scrollIntoView();")
    assert driver.save_screenshot(str(shots / "phone_comparison.png"))
    open_report(driver, report, width=1200, height=900)
    assert driver.save_screenshot(str(shots / "desktop_top.png"))
    print("screenshots in", shots)
    assert severe(driver) == []
