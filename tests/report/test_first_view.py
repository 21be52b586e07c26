"""The first view answers the question: for every family, the HTML report the command itself wrote
(``--report``), opened in headless Chromium at 1280 px and at 375 px wide without scrolling or
clicking, shows the answer's numbers inside the window, equal to the result JSON.

The expected numbers are read from the JSON here (first measure listed, best system, baseline,
targets, recommended n, ...), not from the report, so a report that shows another number, or
shows it below the fold, fails."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.report.report_helpers import EX, HAVE_BROWSER, scorekit

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not HAVE_BROWSER, reason="headless Chromium not installed "
                                                      "(Debian packages chromium + chromium-driver)")]
WINDOWS = ((1280, 800), (375, 812))   # window sizes; the page gets what the window leaves

ANSWER = """
  var sec = document.querySelector('section.sk-doc');
  var box = sec.querySelector('.sk-answer');
  return {box: box ? box.getBoundingClientRect().bottom : null, w: window.innerWidth, h: window.innerHeight,
    nums: Array.from(sec.querySelectorAll('.sk-answer [data-answer]')).map(function(e){
      var r = e.getBoundingClientRect();
      return [e.dataset.answer, e.dataset.value, e.textContent, r.top, r.bottom, r.left, r.right]; })};"""


def retrieval_expected(data: dict) -> dict[str, float]:
    runs = data.get("runs") or [data]
    first = next(iter(runs[0]["metrics"]))            # the first measure the user listed
    if len(runs) == 1:
        return {first: runs[0]["metrics"][first]}
    comp = data["comparison"]
    base = next(r for r in runs if r["name"] == comp["baseline"])
    best = max(runs, key=lambda r: r["metrics"][first])
    row = next(r for r in comp["rows"] if r["system"] == best["name"] and r["measure"] == first)
    out = {f"{r['name']}/{first}": r["metrics"][first] for r in runs}
    out.update({f"best/{first}": best["metrics"][first], "best/change": best["metrics"][first] - base["metrics"][first],
                "best/change_pct": row["improvement_pct"], "best/p": row["p_adjusted"]})
    return out


def caption_expected(data: dict) -> dict[str, float]:
    rep = data["extra"]["report"]
    prim = rep["primary"]                      # the language's headline METEOR (meteor15 for English)
    out = {prim: data["metrics"][prim], "baseline_meteor": rep["baseline_meteor"],
           "meteor_change": data["metrics"][prim] - rep["baseline_meteor"],
           "meteor_change_pct": rep["meteor_improvement_pct"], "cider": data["metrics"]["cider"]}
    out.update({f"{t['metric']}/reached": t["reached"] or "" for t in rep["targets"]})
    return out


def summary_expected(data: dict) -> dict[str, float]:
    return {k: data["metrics"][k] for k in ("rouge1", "rouge2", "bertscore_f1", "efficiency") if k in data["metrics"]}


def sweep_expected(data: dict) -> dict[str, float]:
    rec, sweep = data["extra"]["recommendation"], data["extra"]["sweep"]
    n = rec["interval"][0]
    j = sweep["n"].index(n)
    out = {"n": ",".join(f"{v:g}" for v in rec["interval"])}
    for system, metrics in sweep["series"].items():
        out[f"{system}/{rec['metric']}@{n:g}"] = metrics[rec["metric"]]["mean"][j]
    return out


def topics_expected(data: dict) -> dict[str, float]:
    return {k: data["metrics"][k] for k in ("overall", "sc", "sd_avg", "semdiv", "npmi", "c_v") if k in data["metrics"]}


def absa_expected(data: dict) -> dict[str, float]:
    keys = ("tuple_f1_s1", "tuple_f1_s2", "fix_rate", "break_rate", "net_gain")
    if "runs" in data:
        return {f"{r['name']}/{k}": r["metrics"][k] for r in data["runs"] for k in keys}
    out = {k: data["metrics"][k] for k in keys}
    for k, s in (data.get("extra", {}).get("std") or {}).items():
        if k in keys:
            out[f"{k}/std"] = s
    return out


def rl_expected(data: dict) -> dict[str, float]:
    out = {}
    for c in data["extra"]["comparisons"]:
        if c["n"] == "all":
            for k in ("diff", "p_t", "p_bootstrap"):
                out[f"rl-vs-{c['against']}@all/{k}"] = c[k]
    for t in data["extra"]["table"]:
        if t["n"] == "all" and t["system"] in ("rl", "lead", "textrank"):
            out[f"{t['system']}/mean"] = t["bertscore_f1"]
    out.update({f"goal/{k}": int(v) for k, v in data["extra"]["goal"].items() if k != "goal_reached"})
    return out


CASES = {
    "retrieval_compare": retrieval_expected, "retrieval_v1": retrieval_expected,
    "caption_ko": caption_expected, "caption_en": caption_expected, "summary": summary_expected,
    "sweep": sweep_expected, "topics_en": topics_expected, "topics_ko": topics_expected,
    "absa_seed42": absa_expected, "absa_both": absa_expected, "absa_seeds": absa_expected,
}


def check_first_view(driver, html: Path, expected: dict, shots: Path | None = None, name: str = "") -> None:
    for width, height in WINDOWS:
        driver.set_window_size(width, height)
        driver.get(html.as_uri())
        view = driver.execute_script(ANSWER)
        assert view["box"] is not None, "no answer block"
        assert view["w"] == width and view["h"] > 500
        found = {}
        for key, value, text, top, bottom, left, right in view["nums"]:
            # inside the window: no scrolling, no clicking
            assert 0 <= top and bottom <= view["h"], f"{key} at {top:.0f}-{bottom:.0f}px in a {view['h']}px window"
            assert 0 <= left and right <= view["w"] + 0.5, f"{key} at x {left:.0f}-{right:.0f} in {view['w']}px"
            found.setdefault(key, (value, text))
        for key, want in expected.items():
            assert key in found, f"{key} not in the first view ({sorted(found)})"
            value, text = found[key]
            if isinstance(want, str):
                assert value == want, key
            elif want is None:
                assert value == "nan" and text.strip() == "–", key
            else:
                assert float(value) == pytest.approx(want, rel=1e-12, abs=1e-12), key
                shown = text.strip().replace("\u2212", "-").lstrip("+±").rstrip("%")
                digits = 1 if key.endswith("_pct") else (3 if key.endswith(("/diff", "/mean")) else 4)
                if not (isinstance(want, int) and key.startswith("goal/")):
                    assert abs(float(shown) - want) <= 0.5 * 10 ** -digits + 1e-12, (key, text, want)
        if shots is not None:
            driver.save_screenshot(str(shots / f"first_view_{name}_{width}.png"))


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("SCOREKIT_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("first-view")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("name", list(CASES))
def test_first_view_answers(driver, real, shots, name):
    """The report each command wrote with --report: the answer is in the first view at both widths."""
    expected = CASES[name](real.json(name))
    assert expected
    check_first_view(driver, real.direct(name), expected, shots, name)


def test_absa_report_command_first_view(driver, real, tmp_path):
    """`scorekit absa report` (one rendering stack: the same report, the headline before any count)."""
    out = tmp_path / "metric_report.html"
    code, _, err = scorekit(["absa", "report", real.root / "absa" / "cr_demo__seed42_proposed", "--out", out, "-q"])
    assert code == 0, err
    check_first_view(driver, out, absa_expected(real.json("absa_seed42")))
    page = out.read_text(encoding="utf-8")
    assert page.index("sk-answer") < page.index(">N_gold<")        # the headline before the counts
    assert "sk-items" in page and "delta_f1" in page                # the changed samples, worst ΔF1 first


def test_retrieval_names_any_syntax_chart_on_the_rate_axis(driver, tmp_path):
    """ndcg_cut.10, P.5, nDCG@10, P@5, AP, RR: resolved to their measures (rates on one 0-1 axis,
    never 'not in the metric registry'), the first one listed ranks the systems."""
    names = "ndcg_cut.10,P.5,nDCG@10,P@5,AP,RR"
    js, html = tmp_path / "r.json", tmp_path / "r.html"
    code, _, err = scorekit(["retrieval", "--qrels", EX / "retrieval/qrels.txt", "--run", EX / "retrieval/run_v1.txt",
                             "--run", EX / "retrieval/run_v2.txt", "--name", "v1", "--name", "v2", "--metrics", names,
                             "-o", js, "--report", html, "-q"])
    assert code == 0, err
    data = json.loads(js.read_text(encoding="utf-8"))
    check_first_view(driver, html, retrieval_expected(data))
    page = html.read_text(encoding="utf-8")
    assert "not in the metric registry" not in page
    assert 'data-scale="rate"' in page and 'data-lo="0.0" data-hi="1.0"' in page
    driver.set_window_size(1280, 800)
    driver.get(html.as_uri())
    # every label whole: the label's text box fits the chart
    clipped = driver.execute_script("""
      return Array.from(document.querySelectorAll('svg.sk-chart text')).filter(function(t){
        var b = t.getBBox(), v = t.ownerSVGElement.viewBox.baseVal;
        return b.width > 0 && (b.x < -0.5 || b.x + b.width > v.width + 0.5);
      }).map(function(t){ return t.textContent; });""")
    assert clipped == []
    per_query = driver.execute_script("return document.querySelector('table.sk-failures').tHead.textContent")
    assert "ndcg_cut_10" in per_query       # trec_eval's -m form, keyed as trec_eval prints it


@pytest.mark.slow
def test_rl_cross_validation_first_view(driver, tmp_path, shots):
    """train-summarizer --folds: the policy against lead-n and TextRank (CIs, p-values) first."""
    js, html = tmp_path / "cv.json", tmp_path / "cv.html"
    code, _, err = scorekit(["train-summarizer", "--folds", "2", "--num-train", "6", "--epochs", "1", "--n", "7",
                             "--reward", "bertscore(num_layers=5)", "-o", js, "--report", html, "-q"])
    assert code == 0, err
    data = json.loads(js.read_text(encoding="utf-8"))
    check_first_view(driver, html, rl_expected(data), shots, "rl")
    page = html.read_text(encoding="utf-8")
    assert "fold per item" not in page and 'data-category="fold"' not in page   # a fold index is no metric
    assert "scores, each on its own axis" not in page                            # BERTScore F1s share one axis


def _answer_view(driver, html: Path) -> dict[str, tuple[str, str]]:
    """The answer's numbers at 375 px: data-answer -> (value, text), each checked inside the window."""
    driver.set_window_size(375, 812)
    driver.get(html.as_uri())
    view = driver.execute_script(ANSWER)
    found = {}
    for key, value, text, top, bottom, left, right in view["nums"]:
        assert 0 <= top and bottom <= view["h"] and 0 <= left and right <= view["w"] + 0.5, (key, text)
        found.setdefault(key, (value, text.strip()))
    return found


def test_caption_bertscore_model_in_the_grammar_has_the_default_first_view(driver, tmp_path):
    """#26: -m "...,bertscore(model=DIR)" keys its results as written, and the report reads
    bertscore_f1(model=DIR) for the §7 BERTScore row: the first view is the default run's, key for
    key (the shipped MiniLM named by its folder is the default model, so the numbers are equal)."""
    from scorekit.metrics.registry import declared_key
    from scorekit.neural.encoder import default_model_path

    pytest.importorskip("torch")
    base = ["caption", "-p", EX / "caption/predictions_ko.json", "-r", EX / "caption/references_ko.json",
            "--lang", "ko", "--allow-english-model", "-q"]
    written = f"bleu,meteor,rouge_l,cider,bertscore(model={default_model_path()})"
    views, data = {}, {}
    for name, extra in (("default", []), ("written", ["-m", written])):
        js, html = tmp_path / f"{name}.json", tmp_path / f"{name}.html"
        code, _, err = scorekit(base + extra + ["-o", js, "--report", html])
        assert code == 0, err
        data[name] = json.loads(js.read_text(encoding="utf-8"))
        check_first_view(driver, html, caption_expected(data[name]))
        views[name] = _answer_view(driver, html)
    rows = {n: {declared_key(t["metric"]): t for t in d["extra"]["report"]["targets"]} for n, d in data.items()}
    assert rows["written"]["bertscore_f1"]["metric"] == f"bertscore_f1(model={default_model_path()})"
    assert rows["written"]["bertscore_f1"]["reached"] is not None
    assert rows["written"] == {k: {**r, "metric": rows["written"][k]["metric"]} for k, r in rows["default"].items()}

    def resolved(view):   # "bertscore_f1(model=/a/b)/reached" -> "bertscore_f1/reached"
        out = {}
        for k, v in view.items():
            head, _, tail = k.rpartition("/") if k.endswith("/reached") else (k, "", "")
            out[declared_key(head) + (f"/{tail}" if tail else "")] = v
        return out

    assert "bertscore_f1/reached" in resolved(views["written"])
    assert resolved(views["written"]) == resolved(views["default"])
