"""Issue #12 item 3: one output transaction per command.

Every destination (-o, --report, --per-query, --table, --plot, --png-dir, ABSA files, the run
store) is checked before any work; on a failure nothing new exists and every pre-existing file is
byte-identical; `-o -` writes the JSON to stdout.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from scorekit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
QRELS = str(EX / "retrieval" / "qrels.txt")
RUN1 = str(EX / "retrieval" / "run_v1.txt")
RUN2 = str(EX / "retrieval" / "run_v2.txt")
NEWS = str(EX / "summarization" / "news_en.jsonl")


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``root`` (folders map to None)."""
    out: dict[str, bytes | None] = {}
    for p in sorted(root.rglob("*")):
        out[str(p.relative_to(root))] = None if p.is_dir() else p.read_bytes()
    return out


def one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def garbage_store(tmp_path):
    p = tmp_path / "store.db"
    p.write_bytes(os.urandom(4096))
    return p


# --------------------------------------------------------------------- the reproduction
def test_failed_record_leaves_old_output_byte_identical(tmp_path, capsys, garbage_store):
    out = tmp_path / "out.json"
    out.write_text("OLD\n")
    before = snapshot(tmp_path)
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1, "-o", out, "--record",
                        "--store", garbage_store], capsys)
    assert code == 2
    assert "store.db" in one_error_line(err)
    assert snapshot(tmp_path) == before


# ----------------------------------------------------- side outputs never left behind (19 cases)
RETRIEVAL_SIDE = [
    ["--per-query", "pq.csv"],
    ["--report", "r.html"],
    ["-o", "o.json"],
    ["-o", "o.json", "--per-query", "pq.csv", "--report", "r.html"],
]


@pytest.mark.parametrize("side", RETRIEVAL_SIDE)
@pytest.mark.parametrize("failure", ["store", "input"])
def test_retrieval_side_outputs_not_left_behind(tmp_path, capsys, garbage_store, side, failure):
    (tmp_path / "pq.csv").write_text("old per-query\n")   # a pre-existing file stays identical
    before = snapshot(tmp_path)
    args = ["retrieval", "--qrels", QRELS, "--run", RUN1, "--run", RUN2,
            *[str(tmp_path / a) if not a.startswith("-") else a for a in side]]
    if failure == "store":
        args += ["--record", "--store", garbage_store]
    else:
        bad = tmp_path / "bad_run.txt"
        bad.write_text("q1 Q0 d1 1 notanumber tag\n")
        before = snapshot(tmp_path)
        args += ["--run", bad]
    code, _, err = run(args, capsys)
    assert code == 2, err
    one_error_line(err)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("side", [["--table", "t.md"], ["--plot", "plots"], ["--report", "r.html"],
                                  ["-o", "s.json", "--table", "t.csv", "--plot", "plots"]])
def test_sweep_side_outputs_not_left_behind(tmp_path, capsys, garbage_store, side):
    before = snapshot(tmp_path)
    args = ["sweep", "--data", NEWS, "--n", "3,5", "--summarizer", "lead", "-m", "rouge,density,words",
            "--bootstrap", "20", "--limit", "5", "--record", "--store", garbage_store,
            *[str(tmp_path / a) if not a.startswith("-") else a for a in side]]
    code, _, err = run(args, capsys)
    assert code == 2, err
    one_error_line(err)
    assert snapshot(tmp_path) == before


def test_sweep_plot_folder_is_created(tmp_path, capsys):
    plots = tmp_path / "plots" / "deeper"
    code, stdout, err = run(["sweep", "--data", NEWS, "--n", "3,5", "--summarizer", "lead", "-m", "rouge,density,words",
                             "--bootstrap", "20", "--limit", "5", "--plot", plots], capsys)
    assert code == 0, err
    assert sorted(p.suffix for p in plots.iterdir()) and all(p.suffix == ".png" for p in plots.iterdir())
    assert not [p for p in plots.iterdir() if p.name.startswith(".")]  # no staging left


def test_report_png_dir_not_left_behind(tmp_path, capsys):
    res = tmp_path / "res.json"
    assert run(["retrieval", "--qrels", QRELS, "--run", RUN1, "-o", res, "-q"], capsys)[0] == 0
    bad = tmp_path / "broken.json"
    bad.write_text("{")
    before = snapshot(tmp_path)
    code, _, err = run(["report", res, bad, "--out", tmp_path / "r.html", "--png-dir", tmp_path / "png"], capsys)
    assert code == 2
    assert "broken.json" in one_error_line(err)
    assert snapshot(tmp_path) == before
    code, _, err = run(["report", res, "--out", tmp_path / "r.html", "--png-dir", tmp_path / "png"], capsys)
    assert code == 0, err
    assert any(p.suffix == ".png" for p in (tmp_path / "png").iterdir())


@pytest.fixture
def absa_runs(tmp_path):
    shutil.copytree(EX / "absa" / "results", tmp_path / "results")
    return tmp_path / "results"


def test_absa_scorecards_strict_failure_writes_nothing(absa_runs, capsys):
    run42 = absa_runs / "cr_demo__seed42_proposed"
    before = snapshot(absa_runs)
    code, _, err = run(["absa", "scorecards", run42, "--strict"], capsys)
    assert code == 2
    one_error_line(err)
    assert snapshot(absa_runs) == before


def test_absa_aggregate_report_seeds_failures_write_nothing(absa_runs, capsys, garbage_store):
    runs = [absa_runs / f"cr_demo__seed{s}_proposed" for s in (42, 123)]
    for r in runs:
        assert run(["absa", "scorecards", r, "-q"], capsys)[0] == 0
    before = snapshot(absa_runs.parent)
    # aggregate: default derived/metrics files, then the store fails
    code, _, err = run(["absa", "aggregate", *runs, "-q", "--record", "--store", garbage_store], capsys)
    assert code == 2
    one_error_line(err)
    assert snapshot(absa_runs.parent) == before
    # report: the --out under a file fails before any work
    code, _, err = run(["absa", "report", runs[0], "--out", garbage_store / "r.html"], capsys)
    assert code == 2
    assert "--out" in one_error_line(err)
    assert snapshot(absa_runs.parent) == before
    # aggregate-seeds: csv + md, then the store fails
    code, _, err = run(["absa", "aggregate-seeds", *runs, "-q", "--record", "--store", garbage_store], capsys)
    assert code == 2
    one_error_line(err)
    assert snapshot(absa_runs.parent) == before


# ------------------------------------------------------------ destinations checked before work
@pytest.mark.parametrize("make_bad", ["under_file", "is_dir", "missing_dir", "same_as_report"])
def test_bad_destination_is_one_line_before_any_work(tmp_path, capsys, monkeypatch, make_bad):
    import importlib

    compare_mod = importlib.import_module("scorekit.retrieval.compare")

    def boom(*a, **k):  # the evaluation must never start
        raise AssertionError("work started before the destinations were checked")

    monkeypatch.setattr(compare_mod, "compare", boom)
    afile = tmp_path / "afile"
    afile.write_text("x")
    target = {"under_file": afile / "out.json", "is_dir": tmp_path, "missing_dir": tmp_path / "no" / "o.json",
              "same_as_report": tmp_path / "same.html"}[make_bad]
    args = ["retrieval", "--qrels", QRELS, "--run", RUN1, "-o", target]
    if make_bad == "same_as_report":
        args += ["--report", target]
    before = snapshot(tmp_path)
    code, _, err = run(args, capsys)
    assert code == 2
    line = one_error_line(err)
    assert ("--output" in line or "--report" in line) and str(target) in line
    assert snapshot(tmp_path) == before


def test_sweep_destinations_checked_before_the_sweep(tmp_path, capsys, monkeypatch):
    import importlib

    sweep_mod = importlib.import_module("scorekit.summarization.sweep")

    monkeypatch.setattr(sweep_mod, "run_sweep", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    afile = tmp_path / "afile"
    afile.write_text("x")
    for args in (["--plot", afile], ["--table", afile / "t.csv"], ["--table", tmp_path / "t.xlsx"],
                 ["--record", "--store", afile / "runs.db"]):
        code, _, err = run(["sweep", "--data", NEWS, "-m", "rouge,density,words", *args], capsys)
        assert code == 2, args
        one_error_line(err)


# ------------------------------------------------------------------------------------ -o -
def test_dash_output_writes_json_to_stdout(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1, "-o", "-"], capsys)
    assert code == 0, err
    data = json.loads(stdout)
    assert data["task"] == "retrieval" and "signature" in data
    assert not (tmp_path / "-").exists()
    code, stdout, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1, "--run", RUN2, "-o", "-"], capsys)
    assert code == 0 and len(json.loads(stdout)["runs"]) == 2
    assert list(tmp_path.iterdir()) == []


def test_success_writes_every_output_and_records(tmp_path, capsys):
    store = tmp_path / "hist" / "runs.db"
    args = ["retrieval", "--qrels", QRELS, "--run", RUN1, "--run", RUN2, "-o", tmp_path / "o.json",
            "--per-query", tmp_path / "pq.csv", "--report", tmp_path / "r.html", "--record", "--store", store, "-q"]
    code, _, err = run(args, capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "o.json").read_text())["task"] == "retrieval"
    assert (tmp_path / "pq.csv").read_text().startswith("system,query")
    assert "<html" in (tmp_path / "r.html").read_text().lower()
    code, stdout, _ = run(["runs", "list", "--store", store, "--format", "csv"], capsys)
    assert code == 0 and stdout.count("retrieval") == 2
    assert not [p for p in tmp_path.rglob(".*") if p.is_file()]   # no temporaries left


@pytest.mark.parametrize("args", [["--report", "-"], ["-o", "-", "--report", "-"]])
def test_dash_is_only_for_output(tmp_path, capsys, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1, *args], capsys)
    assert code == 2 and "expected a file name" in one_error_line(err)
    assert stdout == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args,message", [
    (["--run", RUN2, "--per-query", "-"], "prints one run in trec_eval's layout"),
    (["--per-query", "-", "-o", "-"], "both want stdout"),
])
def test_per_query_dash_is_one_run_on_stdout(tmp_path, capsys, monkeypatch, args, message):
    # `--per-query -` is trec_eval -q's layout on stdout (tests/retrieval/test_trec_eval_suite.py)
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1, *args], capsys)
    assert code == 2 and message in one_error_line(err)
    assert stdout == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cmd", [
    lambda d: ["retrieval", "--qrels", d / "qrels.txt", "--run", d / "run_v1.txt", "-o", d / "qrels.txt"],
    lambda d: ["retrieval", "--qrels", d / "qrels.txt", "--run", d / "run_v1.txt", "--per-query", d / "run_v1.txt"],
    lambda d: ["retrieval", "--qrels", d / "qrels.txt", "--run", d / "run_v1.txt", "--report", d / "link.txt"],
    lambda d: ["fuse", "--run", d / "run_v1.txt", "--run", d / "run_v2.txt", "-o", d / "run_v1.txt"],
    lambda d: ["sweep", "--data", NEWS, "--limit", "3", "--system", f"s={d / 'news.jsonl'}", "-m", "words", "--n", "3",
               "--summarizer", "lead", "-o", d / "news.jsonl"],
])
def test_an_output_that_is_an_input_is_refused(tmp_path, capsys, cmd):
    # before: `-o qrels.txt` replaced the qrels with the JSON results (exit 0); a symlink to an
    # input is the same file
    for name in ("qrels.txt", "run_v1.txt", "run_v2.txt"):
        shutil.copy(EX / "retrieval" / name, tmp_path / name)
    (tmp_path / "news.jsonl").write_text("".join(open(NEWS, encoding="utf-8").readlines()[:3]), encoding="utf-8")
    os.symlink(tmp_path / "run_v1.txt", tmp_path / "link.txt")
    before = snapshot(tmp_path)
    code, _, err = run(cmd(tmp_path), capsys)
    assert code == 2 and "is an input of this command" in one_error_line(err)
    assert snapshot(tmp_path) == before
