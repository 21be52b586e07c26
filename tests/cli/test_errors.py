"""Issue #14, CLI side: every user mistake is ONE line on stderr naming the option/file, exit 2,
no traceback, nothing written. Each test here reproduces one reported case (or a family of them).
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from as_nobody import nobody_can_run_scorekit

from scorekit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
QRELS = EX / "retrieval" / "qrels.txt"
RUN1 = EX / "retrieval" / "run_v1.txt"
NEWS = EX / "summarization" / "news_en.jsonl"
TOPICS = EX / "topics" / "topics_en.json"


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "np.float64" not in err
    return lines[0]


def files(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes()) for p in sorted(root.rglob("*"))}


# --------------------------------------------------------- numeric options checked at parse time
BAD_NUMBERS = [
    (["topics", "--topics", TOPICS], "--threshold-edge", "nan"),
    (["topics", "--topics", TOPICS], "--threshold-edge", "inf"),
    (["topics", "--topics", TOPICS], "--threshold-edge", "-inf"),
    (["topics", "--topics", TOPICS], "--topn", "0"),
    (["topics", "--topics", TOPICS], "--topk", "-1"),
    (["topics", "--topics", TOPICS], "--gamma", "-5"),
    (["topics", "--topics", TOPICS], "--damping", "nan"),
    (["topics", "--topics", TOPICS], "--sis", "nan"),
    (["topics", "--topics", TOPICS], "--bootstrap", "0"),
    (["topics", "--topics", TOPICS], "--pairs", "-2"),
    (["caption", "-p", "p.json", "-r", "r.json", "--lang", "en"], "--baseline-meteor", "nan"),
    (["caption", "-p", "p.json", "-r", "r.json", "--lang", "en"], "--baseline-meteor", "-1"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1], "--alpha", "nan"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1], "--alpha", "1.5"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1], "--n-resamples", "0"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1], "--seed", "-1"),
    (["sweep", "--data", NEWS], "--bootstrap", "0"),
    (["sweep", "--data", NEWS], "--limit", "0"),
    (["sweep", "--data", NEWS], "--seed", "x"),
    (["runs", "compare", "1", "2"], "--alpha", "inf"),
    (["runs", "leaderboard"], "--top", "0"),
]


@pytest.mark.parametrize("base,option,value", BAD_NUMBERS, ids=[f"{b[0]}{o}={v}" for b, o, v in BAD_NUMBERS])
def test_bad_number_is_one_usage_line(tmp_path, capsys, monkeypatch, base, option, value):
    monkeypatch.chdir(tmp_path)
    code, out, err = run([*base, option, value], capsys)
    assert code == 2
    line = one_line(err)
    assert line.startswith(f"scorekit {base[0]}") and ": error: " in line and option in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option,text", [("--band", "nan,0.9"), ("--band", "0.9,0.5"), ("--band", "0.5")])
def test_sweep_band_validated(capsys, option, text):
    code, _, err = run(["sweep", "--data", NEWS, option, text], capsys)
    assert code == 2 and option in one_line(err)


@pytest.mark.parametrize("option,text", [("--semdiv-weights", "nan,0.5"), ("--overall-weights", "1,2,3"),
                                         ("--overall-weights", "1,inf,1,1")])
def test_topics_weights_validated(capsys, option, text):
    code, _, err = run(["topics", "--topics", TOPICS, option, text], capsys)
    assert code == 2 and option in one_line(err)


# ------------------------------------------------------------------------- usage errors: one line
@pytest.mark.parametrize("args", [
    ["retrieval", "--qrels", QRELS],                        # missing option
    ["retrieval", "--qrels", QRELS, "--run", RUN1, "--bogus"],
    ["retrieval", "--qrels", QRELS, "--run", RUN1, "--test", "nope"],
    ["retrieval", "qrels.trec", "run.trec"],                  # positional files (docs/report.md bug)
    ["retrival"],
    ["absa", "nope"],
    ["runs", "show", "notanint"],
])
def test_usage_error_is_one_line(capsys, args):
    code, _, err = run(args, capsys)
    assert code == 2
    line = one_line(err)
    assert line.startswith("scorekit") and ": error: " in line
    assert "Usage:" not in err and "Try " not in err


@pytest.mark.parametrize("group", ["absa", "runs"])
def test_group_summaries_are_not_cut(capsys, group):
    code, out, _ = run([group, "--help"], capsys)
    assert code == 0
    commands = out.split("Commands:")[1]
    assert "..." not in commands


def test_every_option_has_help():
    import click

    from scorekit.cli import cli

    ctx = click.Context(cli)
    missing = []

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for n in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, n), [*path, n])
            return
        missing.extend(f"{' '.join(path)} {p.opts[0]}" for p in cmd.params
                       if isinstance(p, click.Option) and not p.help and not p.hidden)

    for name in cli.list_commands(ctx):
        if name in ("train-summarizer", "summarize"):  # cli/rl.py: owned by the rl work
            continue
        walk(cli.get_command(ctx, name), [name])
    assert missing == []


# ----------------------------------------------------------- gzip: truncated / fake is a file error
def _gz_cases(tmp: Path):
    """(command args with {} for the file, source file, suffix) for every reader that takes .gz."""
    ex = EX
    return [
        (["retrieval", "--qrels", "{}", "--run", RUN1], QRELS, ".txt.gz"),
        (["retrieval", "--qrels", QRELS, "--run", "{}"], RUN1, ".txt.gz"),
        (["caption", "-p", "{}", "-r", ex / "caption" / "references_ko.json", "--lang", "ko", "-m", "bleu_4"],
         ex / "caption" / "predictions_ko.json", ".json.gz"),
        (["caption", "-p", ex / "caption" / "predictions_en.jsonl", "-r", "{}", "--lang", "en", "-m", "bleu_4"],
         ex / "caption" / "references_en.csv", ".csv.gz"),
        (["topics", "--topics", "{}"], TOPICS, ".json.gz"),
        (["topics", "--topics", TOPICS, "--corpus", "{}"], ex / "topics" / "corpus_en.txt", ".txt.gz"),
        (["topics", "--topics", TOPICS, "--ratings", "{}"], ex / "topics" / "ratings_en.csv", ".csv.gz"),
        (["sweep", "--data", "{}", "--no-bertscore"], NEWS, ".jsonl.gz"),
        (["summary", "-p", "{}", "-r", ex / "summarization" / "summaries.jsonl", "--no-bertscore"],
         ex / "summarization" / "summaries.jsonl", ".jsonl.gz"),
        (["absa", "scorecards", "{}", "--out", tmp / "sc.jsonl"],
         ex / "absa" / "results" / "cr_demo__seed42_proposed" / "outputs.jsonl", ".jsonl.gz"),
    ]


@pytest.mark.parametrize("damage", ["truncated", "fake", "empty"])
def test_damaged_gzip_is_one_line_naming_the_file(tmp_path, capsys, damage):
    for i, (args, source, suffix) in enumerate(_gz_cases(tmp_path)):
        bad = tmp_path / f"in{i}{suffix}"
        blob = gzip.compress(Path(source).read_bytes())
        bad.write_bytes({"truncated": blob[: len(blob) // 2], "fake": b"plain text, not gzip\n",
                         "empty": b"\x1f\x8b"}[damage])
        before = files(tmp_path)
        code, _, err = run([str(a).replace("{}", str(bad)) for a in args], capsys)
        assert code == 2, (args, err)
        line = one_line(err)
        assert bad.name in line and "abort" not in line, line
        assert files(tmp_path) == before


def test_plain_file_named_dot_gz(tmp_path, capsys):
    dot = tmp_path / ".gz"
    dot.write_text("not gzip")
    for args in (["retrieval", "--qrels", dot, "--run", RUN1], ["topics", "--topics", dot],
                 ["sweep", "--data", dot], ["caption", "-p", dot, "-r", dot, "--lang", "en"]):
        code, _, err = run(args, capsys)
        assert code == 2 and ".gz" in one_line(err)


# ------------------------------------------------------------------------ interrupts and OS errors
def test_keyboard_interrupt_is_130_and_eof_is_not_aborted(capsys, monkeypatch):
    import importlib

    compare_mod = importlib.import_module("scorekit.retrieval.compare")

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(compare_mod, "compare", interrupted)
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1], capsys)
    assert code == 130 and one_line(err) == "scorekit: interrupted"

    def eof(*a, **k):
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")

    monkeypatch.setattr(compare_mod, "compare", eof)
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1], capsys)
    assert code == 2 and "abort" not in one_line(err)


def test_unreadable_input_is_one_line(tmp_path, capsys, monkeypatch):
    import importlib

    compare_mod = importlib.import_module("scorekit.retrieval.compare")

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", str(tmp_path / "secret.txt"))

    monkeypatch.setattr(compare_mod, "compare", denied)
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1], capsys)
    assert code == 2 and "secret.txt: Permission denied" in one_line(err)


# -------------------------------------------------------------------------- read-only destinations
DEST_OPTIONS = [
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "-o"], "o.json"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "--report"], "r.html"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "--per-query"], "pq.csv"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "--record", "--store"], "runs.db"),
    (["sweep", "--data", NEWS, "--no-bertscore", "--plot"], "plots"),
    (["sweep", "--data", NEWS, "--no-bertscore", "--table"], "t.csv"),
]


@pytest.mark.parametrize("base,name", DEST_OPTIONS, ids=[b[-1] for b, _ in DEST_OPTIONS])
def test_read_only_destination_is_one_line(tmp_path, capsys, monkeypatch, base, name):
    """Tests run as root, for whom nothing is read-only: the folder is made read-only and
    os.access answers as it would for a normal user (the real non-root run is below)."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **k: False if Path(p) == ro and mode & os.W_OK
                        else real_access(p, mode, **k))
    before = files(tmp_path)
    code, _, err = run([*base, ro / name], capsys)
    ro.chmod(0o755)
    assert code == 2
    line = one_line(err)
    assert base[-1] in line and "not writable" in line
    assert files(tmp_path) == before


@pytest.mark.parametrize("base,name", DEST_OPTIONS[:4], ids=[b[-1] for b, _ in DEST_OPTIONS[:4]])
def test_under_a_file_is_one_line(tmp_path, capsys, base, name):
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, _, err = run([*base, afile / name], capsys)
    assert code == 2
    assert "afile" in one_line(err)
    assert afile.read_text() == "x" and len(list(tmp_path.iterdir())) == 1


@pytest.mark.skipif(not nobody_can_run_scorekit(), reason="needs root, and a checkout user nobody can read")
def test_read_only_as_nobody(tmp_path):
    work = Path(tempfile.mkdtemp(prefix="sk-ro-"))
    try:
        work.chmod(0o755)
        ro = work / "ro"
        ro.mkdir(mode=0o555)
        env = {"PYTHONPATH": str(ROOT / "src"), "HOME": str(work), "PATH": "/usr/bin:/bin"}
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                            "scorekit", "retrieval", "--qrels", str(QRELS), "--run", str(RUN1), "-o", str(ro / "o.json")],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 2 and "not writable" in one_line(r.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_numpy_scalars_are_plain_numbers_in_messages(tmp_path, capsys):
    bad = tmp_path / "run.txt"
    bad.write_text("q1 Q0 d1 1 nan tag\n")
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", bad], capsys)
    assert code == 2
    line = one_line(err)
    assert "run.txt:1" in line and "nan" in line and "np." not in line
