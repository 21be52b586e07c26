"""Progress bars: on stderr only when it is a terminal and the CLI switched them on, only after
the delay, never with -q. Terminals are real pseudo-terminals (pty), not mocks."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit import progress


def _on_pty(fn):
    """Run ``fn`` with sys.stderr on a pseudo-terminal; return what reached the terminal."""
    master, slave = pty.openpty()
    old = sys.stderr
    sys.stderr = os.fdopen(slave, "w", buffering=1)
    try:
        fn()
        sys.stderr.flush()
    finally:
        sys.stderr.close()
        sys.stderr = old
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def test_bar_on_a_terminal_after_the_delay(monkeypatch):
    monkeypatch.setattr(progress, "_enabled", True)
    seen = []
    out = _on_pty(lambda: seen.extend(progress.track(range(5), "Scoring things", delay=0)))
    assert seen == list(range(5))
    assert "Scoring things" in out


def test_no_bar_before_the_delay_when_disabled_or_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(progress, "_enabled", True)
    out = _on_pty(lambda: list(progress.track(range(5), "Quick loop", delay=60)))
    assert "Quick loop" not in out                      # finished before the delay
    monkeypatch.setattr(progress, "_enabled", False)
    out = _on_pty(lambda: list(progress.track(range(5), "Switched off", delay=0)))
    assert "Switched off" not in out                    # library use: never a bar
    monkeypatch.setattr(progress, "_enabled", True)
    assert list(progress.track(range(3), "Piped", delay=0)) == [0, 1, 2]
    assert "Piped" not in capsys.readouterr().err       # stderr is not a terminal here


def _model():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from scorekit.neural.encoder import default_model_path

    path = default_model_path()
    if not Path(path).exists():
        pytest.skip("the offline MiniLM model is not installed")
    return path


@pytest.mark.slow  # loads the MiniLM model twice
@pytest.mark.parametrize("quiet", [False, True])
def test_bertscore_cli_shows_a_bar_on_a_terminal_unless_quiet(tmp_path, quiet):
    _model()
    preds = {f"i{k}": f"a dog number {k} runs on the beach" for k in range(40)}
    refs = {f"i{k}": [f"a brown dog {k} is running along the sea"] for k in range(40)}
    (tmp_path / "p.json").write_text(json.dumps(preds))
    (tmp_path / "r.json").write_text(json.dumps(refs))
    cmd = [sys.executable, "-m", "scorekit", "caption", "-p", str(tmp_path / "p.json"), "-r", str(tmp_path / "r.json"),
           "--lang", "en", "--metrics", "bertscore", "-o", str(tmp_path / "out.json")] + (["-q"] if quiet else [])
    master, slave = pty.openpty()
    env = {**os.environ, "SCOREKIT_PROGRESS_DELAY": "0", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=300) == 0
    os.close(master)
    err = b"".join(chunks).decode("utf-8", "replace")
    assert ("BERTScore" in err) is (not quiet), err[-500:]
    assert json.loads((tmp_path / "out.json").read_text())["metrics"]["bertscore_f1"] > 0
