"""`scorekit train-summarizer` / `scorekit summarize` end to end on the shipped sample and MiniLM."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("torch")


def run(*args):
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True)


@pytest.mark.slow
def test_train_then_summarize_round_trip(tmp_path):
    ckpt = tmp_path / "policy.pt"
    proc = run("train-summarizer", "--num-train", "3", "--n", "7,9", "--checkpoint", str(ckpt))
    assert proc.returncode == 0, proc.stderr
    assert ckpt.exists() and "trained on 3 articles" in proc.stdout
    out = tmp_path / "eval.json"
    proc = run("summarize", "--checkpoint", str(ckpt), "--num-test", "3", "--n", "7,9", "-o", str(out),
               "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    systems = {(r["system"], r["n"]) for r in data["extra"]["table"]}
    assert systems == {(s, n) for s in ("rl", "textrank", "lead") for n in (7, 9)}
    for item in data["per_item"]:
        assert len(item["rl@7"].split()) <= 7 and len(item["lead@9"].split()) == 9
    assert 0 < data["metrics"]["rl@7/bertscore_f1"] <= 1
    assert "policy:k2" in data["signature"] and "encoder:all-MiniLM-L6-v2" in data["signature"]


def test_bad_inputs_exit_2_with_one_line(tmp_path):
    proc = run("summarize", "--checkpoint", str(tmp_path / "missing.pt"))
    assert proc.returncode == 2 and "checkpoint not found" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = run("train-summarizer", "--n", "0,7", "--checkpoint", str(tmp_path / "p.pt"))
    assert proc.returncode == 2 and "positive" in proc.stderr
    assert not (tmp_path / "p.pt").exists()
