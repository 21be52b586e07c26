"""Issue #25, the environment around a run: SIGTERM rolls the staged outputs back (exit 143,
nothing left), and reading ``irds:`` leaves no empty folders in the ir_datasets home."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "retrieval"

# The CLI with Outputs.commit held back: every output is staged when the marker appears.
DRIVER = """
import sys, time
from pathlib import Path
from scorekit.io import outputs
real = outputs.Outputs.commit
marker = Path(sys.argv[1])
def slow_commit(self):
    marker.write_text("staged")
    time.sleep(60)
    real(self)
outputs.Outputs.commit = slow_commit
sys.argv = ["scorekit", *sys.argv[2:]]
from scorekit.cli import run
run()
"""


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), **extra)
    return env


def _leftovers(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.name.endswith((".tmp", ".bak")) or p.name.startswith(".scorekit-"))


# The CLI with a marker written when Kiwi is handed the batch (the analysis starts right after).
KIWI_DRIVER = """
import sys
from pathlib import Path
from scorekit.text import korean
real, marker = korean.get_kiwi_with, Path(sys.argv[1])
def marked(*args, **kwargs):
    kiwi = real(*args, **kwargs)
    marker.write_text("analysing")
    return kiwi
korean.get_kiwi_with = marked
sys.argv = ["scorekit", *sys.argv[2:]]
from scorekit.cli import run
run()
"""


@pytest.mark.parametrize("sig, code, word", [(signal.SIGTERM, 143, "terminated"),
                                             (signal.SIGINT, 130, "interrupted")])
def test_signal_ends_a_long_kiwi_analysis_at_once(tmp_path, sig, code, word):
    """A 280,000-character token keeps Kiwi busy for many seconds; the signal is answered within a
    second anyway (Kiwi runs in a helper thread while the main thread waits), with no output."""
    preds, refs = tmp_path / "p.json", tmp_path / "r.json"
    preds.write_text(json.dumps({"1": "고양이가 잔다", "2": "가나다라마바사" * 40_000}, ensure_ascii=False))
    refs.write_text(json.dumps({"1": ["고양이가 소파에서 잔다"], "2": ["강아지가 뛴다"]}, ensure_ascii=False))
    marker, out = tmp_path / "analysing", tmp_path / "out.json"
    p = subprocess.Popen([sys.executable, "-c", KIWI_DRIVER, str(marker), "caption", "-p", str(preds),
                          "-r", str(refs), "--lang", "ko", "-m", "meteor", "-q", "-o", str(out)],
                         env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)
        assert p.poll() is None, "the analysis ended before the signal: the test would prove nothing"
        sent = time.monotonic()
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == code, err
    assert err.strip().splitlines() == [f"scorekit: {word}"]
    assert waited < 3, f"the signal waited {waited:.1f} s for Kiwi"
    assert not out.exists() and _leftovers(tmp_path) == []


@pytest.mark.parametrize("sig, code, word", [(signal.SIGTERM, 143, "terminated"),
                                             (signal.SIGINT, 130, "interrupted")])
def test_signal_rolls_back_staged_outputs(tmp_path, sig, code, word):
    res = tmp_path / "res.json"
    proc = subprocess.run([sys.executable, "-m", "scorekit", "retrieval", "--qrels", EX / "qrels.txt",
                           "--run", EX / "run_v1.txt", "-q", "-o", res], env=_env(), capture_output=True)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.json").write_text("old")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    marker = tmp_path / "staged"
    p = subprocess.Popen([sys.executable, "-c", DRIVER, str(marker), "report", str(res), "--out",
                          str(out / "keep.json"), "--png-dir", str(out / "png")],
                         env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         # a suite started in the background (cmd &) inherits SIGINT ignored, and Python
                         # keeps an ignored SIGINT: give the child the default, as a terminal would
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert _leftovers(out), "nothing was staged: the test would prove nothing"
        p.send_signal(sig)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == code, err
    assert err.strip().splitlines() == [f"scorekit: {word}"]
    assert _leftovers(out) == []
    assert {q.name: q.read_bytes() for q in out.iterdir()} == before


@pytest.mark.parametrize("where", ["home", "env"])
def test_irds_leaves_no_empty_folders(tmp_path, where):
    pytest.importorskip("ir_datasets")
    home = tmp_path / "home"
    home.mkdir()
    extra = {"HOME": str(home)}
    irds_home = home / ".ir_datasets"
    if where == "env":
        irds_home = tmp_path / "deep" / "er" / "irds"
        extra["IR_DATASETS_HOME"] = str(irds_home)
    else:
        extra["IR_DATASETS_HOME"] = ""
    env = _env(**extra)
    if where == "home":
        env.pop("IR_DATASETS_HOME")
    proc = subprocess.run([sys.executable, "-m", "scorekit", "retrieval", "--qrels", "irds:vaswani",
                           "--run", EX / "run_v1.txt"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "never downloads" in proc.stderr, proc.stderr
    assert not irds_home.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    assert list(home.iterdir()) == []


def test_irds_keeps_folders_that_were_there(tmp_path):
    pytest.importorskip("ir_datasets")
    irds_home = tmp_path / "irds"
    (irds_home / "mine").mkdir(parents=True)
    (irds_home / "vaswani").mkdir()
    env = _env(IR_DATASETS_HOME=str(irds_home), HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "scorekit", "retrieval", "--qrels", "irds:vaswani",
                           "--run", EX / "run_v1.txt"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert sorted(p.name for p in irds_home.iterdir()) == ["mine", "vaswani"]
