"""`scorekit retrieval` end to end: tables, JSON, per-query CSV, and one-line errors (exit 2,
no traceback, no output file)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.cli import main

EX = Path(__file__).resolve().parents[2] / "examples" / "retrieval"
QRELS, V1, V2 = str(EX / "qrels.txt"), str(EX / "run_v1.txt"), str(EX / "run_v2.txt")


def run_cli(args, capsys):
    code = main(["retrieval", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_single_run_table_and_json(tmp_path, capsys):
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(["--qrels", QRELS, "--run", V1, "-m", "hit_rate@1,mrr,map@3,ndcg@5",
                              "-o", str(out_json)], capsys)
    assert code == 0, err
    assert "0.5400" in out and "0.3500" in out and "signature: task:retrieval" in out
    data = json.loads(out_json.read_text())
    assert data["metrics"] == pytest.approx({"hit_rate@1": 0.4, "mrr": 0.54, "map@3": 0.35, "ndcg@5": 0.530184},
                                            abs=1e-6)
    assert data["name"] == "system_v1" and len(data["per_item"]) == 5
    assert data["per_item"][2] == {"id": "q3", "hit_rate@1": 0.0, "mrr": 0.2, "map@3": 0.0,
                                   "ndcg@5": pytest.approx(0.386852807)}


def test_two_runs_compare_markdown_json_and_per_query_csv(tmp_path, capsys):
    out_json, pq = tmp_path / "cmp.json", tmp_path / "pq.csv"
    code, out, err = run_cli(["--qrels", QRELS, "--run", V1, "--run", V2, "--name", "v1", "--name", "v2",
                              "-m", "hit_rate@3,mrr,map@3,ndcg@3", "--test", "randomization",
                              "--format", "markdown", "-o", str(out_json), "--per-query", str(pq)], capsys)
    assert code == 0, err
    assert "| map@3 | v2 | 0.3500 | 1.0000 | +185.7% |" in out
    data = json.loads(out_json.read_text())
    assert data["metrics"]["mrr"] == pytest.approx(0.54) and [r["name"] for r in data["runs"]] == ["v1", "v2"]
    rows = {r["measure"]: r for r in data["comparison"]["rows"]}
    assert rows["mrr"]["improvement_pct"] == pytest.approx(85.185185, abs=1e-4)
    assert set(rows["mrr"]) >= {"system", "measure", "value", "baseline_value", "improvement_pct",
                                "p_value", "p_adjusted", "significant"}
    table = list(csv.DictReader(pq.open()))
    assert len(table) == 10 and table[0]["system"] == "v1" and float(table[2]["mrr"]) == 0.2


def test_latex_export(capsys):
    code, out, _ = run_cli(["--qrels", QRELS, "--run", V1, "--run", V2, "-m", "mrr", "--format", "latex"], capsys)
    assert code == 0 and r"\begin{tabular}" in out and "% signature:" in out


def test_run_only_queries_warn(tmp_path, capsys):
    run = tmp_path / "r.txt"
    run.write_text(Path(V1).read_text() + "q99 Q0 doc1 1 1.0 x\n")
    code, out, err = run_cli(["--qrels", QRELS, "--run", str(run), "-m", "mrr"], capsys)
    assert code == 0 and "warning" in err and "q99" in err and "0.5400" in out


ERRORS = [
    (["--run", V1, "-m", "ndgc@3"], "unknown retrieval measure 'ndgc@3'", "did you mean"),
    (["--run", V1, "-m", "ndcg@0"], "k >= 1", None),
    (["--run", V1, "--rel-threshold", "0"], "relevance threshold must be a positive integer", None),
]


@pytest.mark.parametrize("args,message,hint", ERRORS)
def test_user_errors_exit_2_with_one_line(tmp_path, capsys, args, message, hint):
    out_json = tmp_path / "o.json"
    code, out, err = run_cli(["--qrels", QRELS, *args, "-o", str(out_json)], capsys)
    assert code == 2
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert hint is None or hint in err
    assert not out_json.exists()


def test_malformed_run_file_via_subprocess(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 doc1 1 0.9 s\nq1 Q0 doc2 2 high s\n")
    out_json = tmp_path / "o.json"
    proc = subprocess.run([sys.executable, "-m", "scorekit", "retrieval", "--qrels", QRELS, "--run", str(bad),
                           "-o", str(out_json)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"scorekit: error: {bad}:2: score must be a number, found 'high'"
    assert not out_json.exists() and proc.stdout == ""


@pytest.mark.parametrize("content,message", [
    ("q1 Q0 doc1 1 0.9 s\nq1 Q0 doc1 2 0.5 s\n", ":2: duplicate document 'doc1' for query 'q1'"),
    ("", "empty run file"),
    ("q1 Q0 doc1 1 NaN s\n", ":1: score must be a finite number"),
    ("q1 Q0 doc1 1\n", ":1: expected 6 columns"),
])
def test_bad_run_files(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.txt"
    bad.write_text(content)
    code, out, err = run_cli(["--qrels", QRELS, "--run", str(bad)], capsys)
    assert code == 2 and message in err and err.count("\n") == 1


def test_missing_qrels_file(tmp_path, capsys):
    code, _, err = run_cli(["--qrels", str(tmp_path / "nope.txt"), "--run", V1], capsys)
    assert code == 2 and "qrels file not found" in err


def test_names_in_three_syntaxes_keyed_as_written(tmp_path, capsys):
    out_json = tmp_path / "r.json"
    names = "nDCG@5,ndcg_cut_5,P(rel=1)@3,P_3,R@5,Rprec,NumRelRet"
    code, out, err = run_cli(["--qrels", QRELS, "--run", V1, "-m", names, "-o", str(out_json)], capsys)
    assert code == 0, err
    data = json.loads(out_json.read_text())
    assert list(data["metrics"]) == names.split(",")
    assert data["metrics"]["nDCG@5"] == data["metrics"]["ndcg_cut_5"] == pytest.approx(0.530184, abs=1e-6)
    assert data["metrics"]["P(rel=1)@3"] == data["metrics"]["P_3"]
    assert "|metrics:ndcg@5,precision(rel=1)@3,precision@3,recall@5,r_precision,num_rel_ret|" in data["signature"]
    assert data["metrics"]["NumRelRet"] == sum(row["NumRelRet"] for row in data["per_item"])


def test_bad_measure_name_is_one_line(tmp_path, capsys):
    code, out, err = run_cli(["--qrels", QRELS, "--run", V1, "-m", "nDCG(rel=2)@5"], capsys)
    assert code == 2 and err.count("\n") == 1 and "takes no relevance level" in err
