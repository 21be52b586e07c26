"""The ``scorekit`` command as a process: ``run()`` ends without interpreter teardown
(``os._exit``), so these check that nothing a user sees is lost by it — stdout through a pipe
(block-buffered), every output file, the exit status and the one-line error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from scorekit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "retrieval"
ARGS = ["retrieval", "--qrels", str(EX / "qrels.txt"), "--run", str(EX / "run_v1.txt"),
        "--run", str(EX / "run_v2.txt"), "--format", "csv"]


def _process(args, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}   # stdout block-buffered
    env["PYTHONPATH"] = str(ROOT / "src")
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def test_process_delivers_stdout_and_every_file(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    outs = ["-o", "out.json", "--per-query", "per_query.csv", "--report", "report.html"]
    proc = _process(ARGS + outs, a)
    assert proc.returncode == 0, proc.stderr
    os.chdir(b)
    try:
        assert main(ARGS + outs) == 0
    finally:
        os.chdir(ROOT)
    same_stdout = capsys.readouterr().out
    assert proc.stdout == same_stdout and proc.stdout.count("\n") >= 3
    for name in ("per_query.csv",):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    got, want = json.loads((a / "out.json").read_text()), json.loads((b / "out.json").read_text())
    assert got["metrics"] == want["metrics"] and got["signature"] == want["signature"]
    assert (a / "report.html").stat().st_size > 1000
    assert sorted(p.name for p in a.iterdir()) == ["out.json", "per_query.csv", "report.html"]


def test_process_user_error_is_one_line_and_status_2(tmp_path):
    proc = _process(["retrieval", "--qrels", str(tmp_path / "missing.txt"), "--run", str(EX / "run_v1.txt"),
                     "-o", "out.json"], tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == "" and proc.stderr.count("\n") == 1 and "missing.txt" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_quiet_process_prints_nothing(tmp_path):
    proc = _process(ARGS + ["-q", "-o", "out.json"], tmp_path)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert json.loads((tmp_path / "out.json").read_text())["metrics"]


def test_profiler_still_reports(tmp_path):
    """``python -m cProfile -m scorekit``: the profile is printed at exit, so the fast exit
    steps aside while a profiler runs."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = str(ROOT / "src")
    proc = subprocess.run([sys.executable, "-m", "cProfile", "-s", "tottime", "-m", "scorekit", *ARGS, "-q",
                           "-o", "out.json"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "function calls" in proc.stdout and (tmp_path / "out.json").is_file()
