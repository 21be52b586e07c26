import json
import subprocess
import sys

import pytest

from scorekit import __version__
from scorekit.errors import InputError, UnknownNameError
from scorekit.io.atomic import atomic_write, read_text
from scorekit.registry import Registry
from scorekit.report import tables
from scorekit.result import Result
from scorekit.signature import make_signature, parse_signature


def test_signature_orders_params_and_ends_with_version():
    from scorekit.metrics import get_metric

    metrics = [get_metric("caption", s) for s in ("chrf(beta=3)", "meteor_nltk", "bleu_4")]
    sig = make_signature("caption", {"lang": "en", "tok": "coco"}, metrics=metrics, semantics={"mean": "items"})
    pins = metrics[1].signature_params()["meteor_nltk"]
    assert sig == (f"task:caption|lang:en|tok:coco|metrics:chrf(beta=3),meteor_nltk,bleu|meteor_nltk:{pins}|"
                   f"mean:items|version:{__version__}")
    assert parse_signature(sig)["metrics"] == "chrf(beta=3),meteor_nltk,bleu"
    with pytest.raises(ValueError, match="overwrite"):   # a metric's field may not hide a batch field
        make_signature("caption", {"meteor_nltk": "x"}, metrics=metrics)


def test_unknown_name_suggests_closest():
    reg = Registry("measure")
    reg.register("ndcg", object())
    reg.register("mrr", object())
    with pytest.raises(UnknownNameError) as err:
        reg.get("ndgc")
    assert "did you mean 'ndcg'" in str(err.value)


def test_input_error_names_file_and_line(tmp_path):
    err = InputError("expected 4 columns, found 3", tmp_path / "q.txt", 7)
    assert str(err) == f"{tmp_path / 'q.txt'}:7: expected 4 columns, found 3"


def test_atomic_write_leaves_no_partial_file(tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(RuntimeError):
        with atomic_write(target) as fh:
            fh.write("{half")
            raise RuntimeError("boom")
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []
    with atomic_write(target) as fh:
        fh.write("{}")
    assert target.read_text() == "{}"


def test_read_text_reports_invalid_utf8_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"ok\nfine\n\xff\xfe broken\n")
    with pytest.raises(InputError) as err:
        read_text(p)
    assert str(err.value).startswith(f"{p}:3: invalid UTF-8")


def test_result_json_round_trip_drops_nonfinite():
    r = Result("retrieval", {"ndcg@10": 0.5, "bad": float("nan")}, "sig", per_item=[{"id": "q1", "ndcg@10": 0.5}])
    data = json.loads(r.to_json())
    assert data["metrics"] == {"ndcg@10": 0.5, "bad": None}
    assert Result.from_dict(data).per_item[0]["id"] == "q1"


@pytest.mark.parametrize("fmt", ["csv", "markdown", "latex"])
def test_table_formats(fmt):
    out = tables.render(["system", "ndcg@10"], [["run_a", 0.123456], ["run_b", None]], fmt)
    assert ("run\\_a" if fmt == "latex" else "run_a") in out
    if fmt == "csv":
        assert "0.123456" in out
    else:
        assert "0.1235" in out
    if fmt == "latex":
        assert r"\toprule" in out and "run\\_a" in out


def test_cli_help_and_unknown_command():
    proc = subprocess.run([sys.executable, "-m", "scorekit", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "scorekit" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "scorekit", "nope"], capture_output=True, text=True)
    assert proc.returncode == 2 and "No such command" in proc.stderr and "Traceback" not in proc.stderr


def test_atomic_write_gives_normal_permissions(tmp_path):
    import os

    umask = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "r.json") as fh:
            fh.write("{}")
    finally:
        os.umask(umask)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644


def test_json_readers_name_file_line_and_shape(tmp_path):
    from scorekit.io.jsonfile import parse_json, read_json_object

    p = tmp_path / "x.json"
    p.write_text('{"a": 1,\n "b": }', encoding="utf-8")
    with pytest.raises(InputError, match=r"x\.json:2: invalid JSON: .*\(column 7\)"):
        read_json_object(p, "result file")
    with pytest.raises(InputError, match=r"x\.json:12: invalid JSON"):
        parse_json("{,}", p, line=12)  # one JSONL line at line 12
    p.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match="expected a JSON object, found list"):
        read_json_object(p)
    p.write_text("  \n", encoding="utf-8")
    with pytest.raises(InputError, match=r"empty qrels file \(expected a mapping\)"):
        read_json_object(p, "qrels file", "a mapping")
    p.write_text('{"q1": {"d1": 1}}', encoding="utf-8")
    assert read_json_object(p) == {"q1": {"d1": 1}}
