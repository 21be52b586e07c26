"""Caption, summary and sweep inputs as shards (a folder or a glob of JSONL/JSON/CSV/Parquet files)
read as the one file they were cut from; an id in two shards is an error naming both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scorekit.errors import InputError
from scorekit.io.captions import read_caption_set
from scorekit.summarization.data import read_pairs, read_texts

ROOT = Path(__file__).resolve().parents[2]
CAP = ROOT / "examples" / "caption"
SUM = ROOT / "examples" / "summarization"


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def caption_shards(tmp_path):
    whole = read_caption_set(CAP / "predictions_ko.json", CAP / "references_ko.json")
    n = len(whole.ids)
    cut = [0, n // 3, 2 * n // 3, n]
    (tmp_path / "p").mkdir()
    (tmp_path / "r").mkdir()
    for k in range(3):
        ids = whole.ids[cut[k]:cut[k + 1]]
        preds = whole.predictions[cut[k]:cut[k + 1]]
        refs = whole.references[cut[k]:cut[k + 1]]
        if k == 1:  # a Parquet shard between two JSONL shards
            pq.write_table(pa.table({"id": ids, "prediction": preds}), tmp_path / "p" / f"part-{k}.parquet")
            pq.write_table(pa.table({"id": ids, "references": refs}), tmp_path / "r" / f"part-{k}.parquet")
        else:
            _jsonl(tmp_path / "p" / f"part-{k}.jsonl", [{"id": i, "prediction": p} for i, p in zip(ids, preds)])
            _jsonl(tmp_path / "r" / f"part-{k}.jsonl", [{"id": i, "references": r} for i, r in zip(ids, refs)])
    return whole, tmp_path


def test_caption_folder_and_glob_read_as_the_whole_file(caption_shards):
    whole, d = caption_shards
    for p, r in [(d / "p", d / "r"), (str(d / "p" / "part-*"), str(d / "r" / "*"))]:
        got = read_caption_set(p, r)
        assert (got.ids, got.predictions, got.references) == (whole.ids, whole.predictions, whole.references)


def test_caption_cli_on_shards_equals_one_file(caption_shards):
    _, d = caption_shards

    def metrics(p, r):
        out = subprocess.run([sys.executable, "-m", "scorekit", "caption", "-p", str(p), "-r", str(r), "--lang", "ko",
                              "-m", "bleu,rouge_l,cider,meteor", "-q", "-o", "-"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)["metrics"]

    assert metrics(d / "p", str(d / "r" / "part-*")) == metrics(CAP / "predictions_ko.json", CAP / "references_ko.json")


def test_caption_shard_errors_name_the_shards(caption_shards):
    _, d = caption_shards
    first = (d / "p" / "part-0.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (d / "p" / "part-3.jsonl").write_text("\n" + first + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_caption_set(d / "p", d / "r")
    assert e.value.path == str(d / "p" / "part-3.jsonl") and e.value.line == 2
    assert "duplicate prediction id" in str(e.value) and "part-0.jsonl" in str(e.value)
    with pytest.raises(InputError, match="no such file, folder or matching glob"):
        read_caption_set(str(d / "p" / "nothing-*.jsonl"), d / "r")
    (d / "empty").mkdir()
    with pytest.raises(InputError, match="no shard files"):
        read_caption_set(d / "empty", d / "r")


def test_summary_and_sweep_inputs_as_shards(tmp_path):
    rows = [json.loads(x) for x in (SUM / "summaries.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    half = len(rows) // 2
    _jsonl(tmp_path / "a.jsonl", rows[:half])
    pq.write_table(pa.Table.from_pylist(rows[half:]), tmp_path / "b.parquet")
    for role in ("prediction", "reference", "document"):
        ids, texts, _ = read_texts(SUM / "summaries.jsonl", role)
        got_ids, got_texts, _ = read_texts(tmp_path, role)
        assert (got_ids, got_texts) == (ids, texts)
    whole = read_pairs(SUM / "news_en.jsonl")
    lines = (SUM / "news_en.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "n").mkdir()
    (tmp_path / "n" / "1.jsonl").write_text("".join(lines[:3]), encoding="utf-8")
    (tmp_path / "n" / "2.jsonl").write_text("".join(lines[3:]), encoding="utf-8")
    got = read_pairs(str(tmp_path / "n" / "*.jsonl"))
    assert (got.ids, got.documents, got.references) == (whole.ids, whole.documents, whole.references)
    # an id in two shards names both
    (tmp_path / "n" / "3.jsonl").write_text(lines[0], encoding="utf-8")
    with pytest.raises(InputError, match=r"duplicate id .*first at .*1\.jsonl:1"):
        read_pairs(tmp_path / "n")
    (tmp_path / "c.jsonl").write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"duplicate id 'en01' \(also at .*a\.jsonl:1\)"):
        read_texts(tmp_path, "prediction")


# ----------------------------------------------------------------------- retrieval runs as shards
RET = ROOT / "examples" / "retrieval"


def test_retrieval_run_folder_and_glob_equal_the_whole_run(tmp_path, capsys):
    """docs/scale-out.md: `--run` takes a folder or a glob of run shards, with either engine."""
    from scorekit.cli import main

    lines = (RET / "run_v1.txt").read_text().splitlines(keepends=True)
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "a.trec").write_text("".join(lines[:7]))
    (tmp_path / "shards" / "b.trec").write_text("".join(lines[7:]))
    outs = {}
    for name, spec in (("whole", RET / "run_v1.txt"), ("folder", tmp_path / "shards"),
                       ("glob", tmp_path / "shards" / "*.trec")):
        out = tmp_path / f"{name}.json"
        assert main(["retrieval", "--qrels", str(RET / "qrels.txt"), "--run", str(spec), "-m", "ndcg@3,map,P@5",
                     "-q", "-o", str(out)]) == 0
        outs[name] = json.loads(out.read_text())
    assert outs["folder"]["metrics"] == outs["glob"]["metrics"] == outs["whole"]["metrics"]
    assert outs["folder"]["per_item"] == outs["whole"]["per_item"]
    # a document listed in two shards for one query names the shard and its line
    (tmp_path / "shards" / "c.trec").write_text(lines[0])
    code = main(["retrieval", "--qrels", str(RET / "qrels.txt"), "--run", str(tmp_path / "shards")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "c.trec:1: duplicate document" in err


def test_parquet_qrels_and_runs_with_ranx_columns(tmp_path):
    """ranx writes qrels and runs as `q_id, doc_id, score`."""
    from scorekit.retrieval import evaluate

    pq.write_table(pa.table({"q_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3"], "score": [1, 0, 2]}),
                   tmp_path / "qrels.parquet")
    pq.write_table(pa.table({"q_id": ["q1", "q1", "q2"], "doc_id": ["d2", "d1", "d3"], "score": [2.0, 1.0, 1.0]}),
                   tmp_path / "run.parquet")
    res = evaluate(tmp_path / "qrels.parquet", tmp_path / "run.parquet", ["P@1", "mrr"])
    assert res.metrics == {"P@1": 0.5, "mrr": 0.75}
