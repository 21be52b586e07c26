"""`scorekit report`, and --report/--record/--store on every evaluation through output_options."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from scorekit.cli import main
from scorekit.cli._common import emit, output_options
from scorekit.io.run_store import RunStore
from scorekit.result import Result
from tests.report.report_helpers import COMMANDS, Elements, scorekit


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> list[Path]:
    """Real result files: the retrieval comparison and the Korean captions of examples/."""
    out = tmp_path_factory.mktemp("outputs")
    paths = []
    for name in ("retrieval_compare", "caption_ko"):
        code, _, err = scorekit(COMMANDS[name] + ["-o", out / f"{name}.json", "-q"])
        assert code == 0, err
        paths.append(out / f"{name}.json")
    return paths


def test_report_real_results_with_png_and_latex(outputs, tmp_path, capsys):
    out = tmp_path / "report.html"
    code, stdout, err = run(["report", *outputs, "--out", out, "--png-dir", tmp_path / "figs",
                             "--title", "평가 리포트"], capsys)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    el = Elements(page)
    assert len(el.with_class("sk-doc", "section")) == len(outputs)
    assert "<title>평가 리포트</title>" in page
    for path in outputs:
        data = json.loads(path.read_text(encoding="utf-8"))
        for v in data["metrics"].values():
            assert el.find("td", data_value=repr(float(v)))
    assert (tmp_path / "figs" / "retrieval_compare_metrics.png").stat().st_size > 0
    assert (tmp_path / "figs" / "retrieval_compare_comparison.tex").exists()
    assert (tmp_path / "figs" / "caption_ko_metrics_cider.png").exists()   # CIDEr on its own axis
    assert "wrote" in stdout


@pytest.mark.parametrize("content, msg", [
    ('{"task": "retrieval",\n "metrics": {,}}', "bad.json:2: invalid JSON"),
    ('[1, 2]', "bad.json: not a scorekit result"),
    ('{"task": "x"}', "no 'metrics' and no 'runs'"),
    (b"\xff\xfe garbage", "invalid UTF-8"),
])
def test_report_input_errors_are_one_line_exit_2(tmp_path, capsys, content, msg):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "r.html"
    code, _, err = run(["report", bad, "--out", out], capsys)
    assert code == 2 and msg in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_report_missing_input_and_output_dir(outputs, tmp_path, capsys):
    code, _, err = run(["report", tmp_path / "nope.json", "--out", tmp_path / "r.html"], capsys)
    assert code == 2 and "nope.json" in err
    code, _, err = run(["report", outputs[0], "--out", tmp_path / "no" / "r.html"], capsys)
    assert code == 2 and "output directory does not exist" in err


# --- the shared options on an evaluation sub-command, without needing any family's code ---------
@click.command()
@click.option("--value", type=float, default=0.5)
@output_options
def toy(value: float, output: Path | None, fmt: str, quiet: bool) -> None:   # no report/record/store params
    r = Result("retrieval", {"ndcg@10": value}, "task:retrieval|version:0.1.0", name="toy",
               per_item=[{"id": "q1", "ndcg@10": value, "query": "서울 맛집"}])
    emit(r, output=output, fmt=fmt, quiet=quiet)


def test_shared_options_report_and_record(tmp_path, monkeypatch):
    monkeypatch.delenv("SCOREKIT_RECORD", raising=False)
    store = tmp_path / "runs.db"
    res = CliRunner().invoke(toy, ["--output", str(tmp_path / "r.json"), "--report", str(tmp_path / "r.html"),
                                   "--record", "--store", str(store), "--value", "0.25"])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "r.json").read_text())["metrics"] == {"ndcg@10": 0.25}
    assert "서울 맛집" in (tmp_path / "r.html").read_text(encoding="utf-8")
    with RunStore(store) as s:
        (rec,) = s.list()
        assert rec.name == "toy" and rec.metrics == {"ndcg@10": 0.25} and rec.source == str(tmp_path / "r.json")


def test_recording_is_opt_in_and_env_controlled(tmp_path, monkeypatch):
    store = tmp_path / "runs.db"
    monkeypatch.delenv("SCOREKIT_RECORD", raising=False)
    assert CliRunner().invoke(toy, ["--store", str(store), "-q"]).exit_code == 0
    assert not store.exists()                                  # off by default
    monkeypatch.setenv("SCOREKIT_RECORD", "1")
    monkeypatch.setenv("SCOREKIT_STORE", str(store))
    assert CliRunner().invoke(toy, ["-q"]).exit_code == 0
    assert CliRunner().invoke(toy, ["-q", "--no-record"]).exit_code == 0
    with RunStore(store) as s:
        assert len(s.list()) == 1                              # env on; --no-record skipped one


def test_record_into_foreign_file_is_a_clear_error(tmp_path, monkeypatch):
    bad = tmp_path / "notes.txt"
    bad.write_text("keep me")
    res = CliRunner().invoke(toy, ["--record", "--store", str(bad), "-q"])
    assert res.exit_code != 0 and "not a scorekit run store" in str(res.exception)
    assert bad.read_text() == "keep me"
