"""`--format csv` prints ONE loadable table per command: a single table as it is, several as
their union under a first column `table` (the titles), printed only when the command succeeds."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from scorekit.cli import main
from scorekit.cli._common import csv_union

EX = Path(__file__).resolve().parents[2] / "examples"


def _one_table(text: str) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert len(set(header)) == len(header), header
    assert body and all(len(r) == len(header) for r in body), text
    return header, body


def test_union_of_tables_by_column_name():
    header, rows = csv_union([("a", ["metric", "score"], [["bleu", 0.5]]),
                              (None, ["metric", "value", "final"], [["cider", 1.0, 1.2]])])
    assert header == ["table", "metric", "score", "value", "final"]
    assert rows == [["a", "bleu", 0.5, None, None], ["table 2", "cider", None, 1.0, 1.2]]
    assert csv_union([("t", ["x"], [[1]])]) == (["x"], [[1]])   # one table stays as it is


def test_retrieval_comparison_is_one_csv_table(capsys):
    code = main(["retrieval", "--qrels", str(EX / "retrieval/qrels.txt"), "--run", str(EX / "retrieval/run_v1.txt"),
                 "--run", str(EX / "retrieval/run_v2.txt"), "-m", "P_1,map", "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    header, rows = _one_table(out)
    assert header[:4] == ["table", "system", "P_1", "map"] and "p (Holm)" in header
    assert {r[0] for r in rows} == {"Retrieval: 5 queries (" + str(EX / "retrieval/qrels.txt") + ")",
                                    "Compared with system_v1"}


def test_caption_report_and_targets_are_one_csv_table(capsys):
    code = main(["caption", "-p", str(EX / "caption/coco_results_en.json"), "-r",
                 str(EX / "caption/coco_captions_en.json"), "--lang", "en", "-m", "bleu,cider", "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    header, rows = _one_table(out)
    assert header[:4] == ["table", "metric", "score", "role"] and "target 1 (+10%)" in header
    assert sum(r[1] == "cider" for r in rows) == 2   # in the scores and in the targets


def test_single_table_unchanged_and_nothing_printed_on_failure(tmp_path, capsys):
    code = main(["retrieval", "--qrels", str(EX / "retrieval/qrels.txt"), "--run", str(EX / "retrieval/run_v1.txt"),
                 "-m", "P_1,map", "--format", "csv"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.splitlines()[0] == "system,P_1,map"
    code = main(["retrieval", "--qrels", str(EX / "retrieval/qrels.txt"), "--run", str(tmp_path / "none.txt"),
                 "--format", "csv"])
    out, _ = capsys.readouterr()
    assert code == 2 and out == ""
