"""`scorekit absa ...` end to end: §7 layout, exit codes, one-line errors, atomic outputs."""

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "absa" / "results"


def sk(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "scorekit", "absa", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env={"PYTHONIOENCODING": "utf-8", "PATH": "/usr/bin:/bin",
                                                   "COLUMNS": "200"})


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("proj")
    shutil.copytree(EXAMPLE, root / "results")
    return root


def test_full_pipeline_layout(project):
    runs = [project / "results" / f"cr_demo__seed{s}_proposed" for s in (42, 123)]
    for run in runs:
        r = sk("scorecards", run)
        assert r.returncode == 0, r.stderr
        assert (run / "scorecards.jsonl").exists()
    # the seed-42 file has two malformed rows: warned with line and field, then skipped
    r = sk("scorecards", runs[0], "-q")
    assert "outputs.jsonl:6: skipped row: field 'final_result.final_tuples'" in r.stderr
    assert "outputs.jsonl:10: skipped row: not valid JSON" in r.stderr and "skipped 2 malformed" in r.stderr
    assert sum(1 for _ in open(runs[0] / "scorecards.jsonl", encoding="utf-8")) == 14

    out_json = project / "m.json"
    r = sk("aggregate", *runs, "-o", out_json, "--format", "csv")
    assert r.returncode == 0, r.stderr
    for run in runs:
        metrics_dir = run / "derived" / "metrics"
        rows = list(csv.DictReader(open(metrics_dir / "structural_metrics.csv", encoding="utf-8")))
        assert len(rows) == 1 and rows[0]["run_id"] == run.name
        assert (metrics_dir / "structural_metrics_table.md").read_text(encoding="utf-8").count("\n| ") == 2
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert [x["name"] for x in data["runs"]] == [r.name for r in runs]
    seed42 = data["runs"][0]["metrics"]
    assert seed42["N"] == 14 and seed42["N_pred_final_aspects"] == 1 and seed42["N_pred_inputs_aspect_sentiments"] == 1
    assert seed42["override_hint_invalid_rate"] is None
    assert data["runs"][0]["signature"].startswith("task:absa|")
    assert "tuple_f1_s2" in r.stdout                                 # printed table

    r = sk("report", runs[0])
    assert r.returncode == 0, r.stderr
    html = (project / "reports" / runs[0].name / "metric_report.html").read_text(encoding="utf-8")
    # self-contained: the only URL is the SVG namespace name, which nothing fetches (as tests/report)
    assert set(re.findall(r"https?://[^\"' )]+", html)) <= {"http://www.w3.org/2000/svg"}
    assert f"{seed42['tuple_f1_s2']:.4f}" in html

    r = sk("aggregate-seeds", *runs, "-q")
    assert r.returncode == 0, r.stderr
    agg = project / "results" / "cr_demo_aggregated" / "aggregated_mean_std.csv"
    rows = {row["metric"]: row for row in csv.DictReader(open(agg, encoding="utf-8"))}
    assert rows["N"]["mean"] == "14.0" and rows["N"]["std"] == "0.0" and rows["N"]["n_seeds"] == "2"
    assert (agg.with_suffix(".md")).exists()


def test_errors_exit_2_one_line(tmp_path):
    r = sk("scorecards", tmp_path / "missing.jsonl")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    bad = tmp_path / "run" / "outputs.jsonl"
    bad.parent.mkdir()
    bad.write_text("not json\n[1]\n", encoding="utf-8")
    r = sk("scorecards", bad.parent)
    assert r.returncode == 2 and "no valid outputs rows" in r.stderr and "Traceback" not in r.stderr
    assert not (bad.parent / "scorecards.jsonl").exists()            # nothing half-written
    bad.write_text('{"meta": {}}\n{"final_result": {"final_tuples": 3}}\n', encoding="utf-8")
    r = sk("scorecards", bad.parent, "--strict")
    assert r.returncode == 2 and "outputs.jsonl:2: malformed row: field 'final_result.final_tuples'" in r.stderr
    assert not (bad.parent / "scorecards.jsonl").exists()
    r = sk("aggregate", bad.parent)                                   # no scorecards yet
    assert r.returncode == 2 and "scorecards.jsonl" in r.stderr and "Traceback" not in r.stderr
    r = sk("aggregate-seeds", bad.parent)
    assert r.returncode == 2 and "structural_metrics.csv" in r.stderr
    summary = tmp_path / "s.json"
    summary.write_text("[1]", encoding="utf-8")
    r = sk("scorecards", bad.parent, "-q")
    assert r.returncode == 0
    r = sk("aggregate", bad.parent, "--override-summary", summary)
    assert r.returncode == 2 and "expected a JSON object" in r.stderr


def test_override_summary_and_outdir(tmp_path):
    run = tmp_path / "results" / "x__seed1_proposed"
    run.mkdir(parents=True)
    (run / "outputs.jsonl").write_text(json.dumps({
        "final_result": {"stage1_tuples": [{"aspect_term": "배송", "polarity": "neg"}],
                         "final_tuples": [{"aspect_term": "배송", "polarity": "pos"}]},
        "inputs": {"gold_tuples": [{"aspect_term": "배송", "polarity": "positive"}]}}, ensure_ascii=False) + "\n",
        encoding="utf-8")
    (run / "override_gate_debug_summary.json").write_text('{"override_hint_invalid_rate": 0.5}', encoding="utf-8")
    assert sk("scorecards", run, "-q").returncode == 0
    r = sk("aggregate", run / "scorecards.jsonl", "--outdir", tmp_path / "agg", "-o", tmp_path / "o.json", "-q")
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "o.json").read_text())["metrics"]
    assert m["override_hint_invalid_rate"] == 0.5 and m["fix_rate"] == 1.0 and m["delta_f1"] == 1.0
    assert (tmp_path / "agg" / "structural_metrics.csv").exists() and r.stdout == ""
