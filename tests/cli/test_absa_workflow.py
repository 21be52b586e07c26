"""`scorekit absa` on the shipped example runs: the workflow hints, several runs in one JSON (the
baseline on top, as every multi-run JSON), and aggregate-seeds refusing damaged or repeated seeds
(one line, exit 2, nothing written)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "absa" / "results"
RUNS = ("cr_demo__seed42_proposed", "cr_demo__seed123_proposed")


def sk(*args, cwd=None):
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "scorekit", "absa", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env)


def _one_line_error(r, *needles):
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture()
def results(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "results")
    return tmp_path / "results"


def test_aggregate_on_outputs_jsonl_says_to_make_scorecards_first(results):
    run = results / RUNS[0]
    before = _tree(results)
    line = _one_line_error(sk("aggregate", run / "outputs.jsonl"), "outputs.jsonl", "scorekit absa scorecards")
    assert "field 'runtime'" not in line
    _one_line_error(sk("aggregate", run), "no scorecards.jsonl in this run yet", "scorekit absa scorecards")
    assert _tree(results) == before


def test_several_runs_in_one_json_have_the_baseline_on_top(results, tmp_path):
    runs = [results / r for r in RUNS]
    for run in runs:
        assert sk("scorecards", run, "-q").returncode == 0
    out = tmp_path / "agg.json"
    r = sk("aggregate", *runs, "--outdir", tmp_path / "agg", "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [x["name"] for x in doc["runs"]] == list(RUNS)
    assert doc["name"] == RUNS[0] and doc["metrics"] == doc["runs"][0]["metrics"]   # the shared multi-run shape
    single = json.loads(out.read_text(encoding="utf-8"))["runs"][1]["metrics"]
    r = sk("aggregate", runs[1], "-o", tmp_path / "one.json", "-q")
    assert json.loads((tmp_path / "one.json").read_text(encoding="utf-8"))["metrics"] == single


@pytest.fixture()
def scored(results):
    for r in RUNS:
        assert sk("scorecards", results / r, "-q").returncode == 0
        assert sk("aggregate", results / r, "-q").returncode == 0
    return results


def test_aggregate_seeds_refuses_the_same_run_twice(scored):
    before = _tree(scored.parent)
    _one_line_error(sk("aggregate-seeds", scored / RUNS[0], scored / RUNS[1], scored / RUNS[0]),
                    "the same run is given twice")
    _one_line_error(sk("aggregate-seeds", scored / RUNS[0], scored / ".." / "results" / RUNS[0]),
                    "the same run is given twice")
    assert _tree(scored.parent) == before


@pytest.mark.parametrize("damage, needle", [
    (lambda t: t.replace(t.split("\n")[1].split(",")[3], "oops", 1), "expected a number or an empty cell"),
    (lambda t: t[: t.index("\n") + (len(t) - t.index("\n")) // 2], "cells as in the header"),
    (lambda t: "garbage\n" + t, "expected a header starting with run_id"),
    (lambda t: t.replace(t.split("\n")[1].split(",")[3], "nan", 1), "expected a number"),
])
def test_aggregate_seeds_refuses_a_damaged_metrics_csv(scored, damage, needle):
    csv_path = scored / RUNS[1] / "derived" / "metrics" / "structural_metrics.csv"
    csv_path.write_text(damage(csv_path.read_text(encoding="utf-8")), encoding="utf-8")
    before = _tree(scored.parent)
    line = _one_line_error(sk("aggregate-seeds", scored / RUNS[0], scored / RUNS[1]), needle)
    assert line.startswith(f"scorekit: {csv_path}:") or f"{csv_path}:" in line
    assert _tree(scored.parent) == before


def test_aggregate_seeds_counts_every_seed(scored, tmp_path):
    out = tmp_path / "seeds.json"
    r = sk("aggregate-seeds", scored / RUNS[0], scored / RUNS[1], "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    n_seeds = doc["extra"]["n_seeds"]
    assert n_seeds["N"] == 2 and n_seeds["tuple_f1_s2"] == 2
