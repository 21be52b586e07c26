"""`scorekit rag` end to end: table and JSON keyed as written, comparisons, --compat ranx-k's
note, and one-line errors (exit 2, no traceback, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekit.cli import main

EX = Path(__file__).resolve().parents[2] / "examples" / "rag"
V1, V2 = str(EX / "system_v1.jsonl"), str(EX / "system_v2.jsonl")


def run(args, capsys):
    code = main(["rag", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_per_question_rows_and_compare(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, text, err = run(["--data", V1, "--data", V2, "--match", "exact", "--threshold", "1",
                           "-m", "hit_rate@3,MAP@3,mrr,recall@5", "-o", str(out)], capsys)
    assert code == 0, err
    data = json.loads(out.read_text())
    first = data["runs"][0]
    assert first["metrics"] == pytest.approx({"hit_rate@3": 0.6, "MAP@3": 0.35, "mrr": 0.54, "recall@5": 0.7})
    assert [r["id"] for r in first["per_item"]] == ["q1", "q2", "q3", "q4", "q5"]
    assert first["per_item"][1]["matched_ranks"] == [2, 4]
    assert {r["system"] for r in data["comparison"]["rows"]} == {"system_v2"}
    assert "match:exact" in data["signature"] and "judge:one-to-one" in data["signature"]
    assert "Compared with system_v1" in text


def test_compat_prints_the_difference(tmp_path, capsys):
    code, text, err = run(["--data", V1, "--match", "kiwi_rouge", "--compat", "ranx-k",
                           "-m", "hit_rate@3,ndcg@3,map@3,mrr", "--format", "csv"], capsys)
    assert code == 0, err
    assert "dropped from the relevant set" in err
    assert "system_v1,0.6,0.5261859507142915,0.5,0.5" in text
    assert "system_v1 (scorekit default),0.6,0.4,0.35,0.5" in text


@pytest.mark.parametrize("content, args, needle", [
    (None, [], "RAG JSONL file not found"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\nnot json\n', [], ":2: invalid JSON"),
    ('{"id": "1", "retrieved": ["a"], "references": []}\n', [], ":1: question '1': field 'references' is empty"),
    ('{"id": "1", "retrieved": [3], "references": ["a"]}\n', [], ":1: field 'retrieved'[0]: expected a string"),
    ('{"id": "1", "retrieved": ["a"]}\n', [], ":1: missing field 'references'"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n{"id": "1", "retrieved": [], "references": ["b"]}\n',
     [], ":2: duplicate question id '1'"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["-m", "ndcg@5,bpref", "--compat", "ranx-k"],
     "not 'bpref'"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["-m", "ndcg@3,map@5", "--compat", "ranx-k"],
     "one cutoff"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["-m", "ndgc@5"], "did you mean"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["--match", "embedding"], "needs --model"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["--threshold", "0"], "--threshold"),
    # an option the chosen --compat/--match never reads was silently ignored (exit 0)
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["--mode", "retrieval_based"],
     "--mode is read by --compat ranx-k only"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["--kiwi-tokens", "nouns"],
     "--kiwi-tokens is read by --match kiwi_rouge only"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["--no-kiwi-stopwords"], "read by --match kiwi_rouge only"),
    ('{"id": "1", "retrieved": ["a"], "references": ["a"]}\n', ["--model", "m"], "--model is read by --match embedding only"),
])
def test_errors_are_one_line_exit_2_and_write_nothing(tmp_path, capsys, content, args, needle):
    data = tmp_path / "d.jsonl"
    if content is not None:
        data.write_text(content, encoding="utf-8")
    out = tmp_path / "out.json"
    code, text, err = run(["--data", str(data), "--match", "exact", "--threshold", "1", *args, "-o", str(out)],
                          capsys) if "--threshold" not in args and "--match" not in args else \
        run(["--data", str(data), *args, "-o", str(out)], capsys)
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_report_and_run_history(tmp_path, capsys):

    store, report = tmp_path / "runs.db", tmp_path / "r.html"
    code, _, err = run(["--data", V1, "--match", "exact", "--threshold", "1", "-q", "--report", str(report),
                        "--record", "--store", str(store)], capsys)
    assert code == 0, err
    assert "per-query outcome" in report.read_text(encoding="utf-8")
    assert main(["runs", "list", "--store", str(store)]) == 0
    assert "system_v1" in capsys.readouterr().out


def test_graded_changes_only_gain_measures(capsys):
    args = ["--data", V1, "--match", "rouge_l", "--threshold", "0.3", "-m", "ndcg@5,recall@5", "--format", "csv"]
    _, binary, _ = run(args, capsys)
    _, graded, _ = run(args + ["--graded"], capsys)
    b, g = binary.splitlines()[1].split(","), graded.splitlines()[1].split(",")
    assert b[2] == g[2] and float(g[1]) <= float(b[1])
