"""`scorekit runs leaderboard` ranks runs of one test set only; `runs compare` prints the change as
`scorekit retrieval` does; its help names the arguments in the order the usage takes them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scorekit.cli import main
from scorekit.io.run_store import compute_test_set, run_test_set

EX = Path(__file__).resolve().parents[2] / "examples"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _csv_boards(out: str) -> list[list[list[str]]]:
    """CSV output: one header + rows per test set."""
    boards: list[list[list[str]]] = []
    for line in out.strip().splitlines():
        if line.startswith("rank,"):
            boards.append([])
        elif line.strip():
            boards[-1].append(line.split(","))
    return boards


@pytest.fixture
def store(tmp_path, capsys):
    db = tmp_path / "runs.db"
    other = tmp_path / "qrels_other.txt"          # the same queries, one judgement fewer
    other.write_text("".join((EX / "retrieval" / "qrels.txt").read_text().splitlines(True)[1:]))
    for qrels, runfile, name in ((EX / "retrieval" / "qrels.txt", "run_v1.txt", "v1"),
                                 (EX / "retrieval" / "qrels.txt", "run_v2.txt", "v2"),
                                 (other, "run_v2.txt", "v2-other")):
        assert main(["retrieval", "--qrels", str(qrels), "--run", str(EX / "retrieval" / runfile), "--name", name,
                     "--record", "--store", str(db), "-q"]) == 0
    for p, r, lang, m in (("predictions_ko.json", "references_ko.json", "ko", "meteor,cider"),
                          ("predictions_en.jsonl", "references_en.csv", "en", "meteor15,cider")):
        assert main(["caption", "-p", str(EX / "caption" / p), "-r", str(EX / "caption" / r), "--lang", lang,
                     "-m", m, "--record", "--store", str(db), "-q"]) == 0
    capsys.readouterr()
    return db


def test_runs_of_different_test_sets_are_never_ranked_together(store, capsys):
    code, out, _ = run(capsys, "runs", "leaderboard", "--task", "retrieval", "--store", store, "--format", "csv")
    assert code == 0
    boards = _csv_boards(out)
    assert sorted([r[2] for r in b] for b in boards) == [["v2", "v1"], ["v2-other"]]
    # every row names its test set; one board, one test set
    assert all(len({r[-1] for r in b}) == 1 for b in boards) and boards[0][0][-1] != boards[1][0][-1]
    assert all(r[-1].startswith("files:") for b in boards for r in b)   # qrels bytes, read when recorded

    code, out, _ = run(capsys, "runs", "leaderboard", "--task", "caption", "--store", store, "--format", "markdown")
    assert code == 0 and out.count("caption on test set refs:") == 2
    assert "(lang ko, 5 items, references_ko.json): by meteor" in out
    assert "(lang en, 4 items, references_en.csv): by meteor15" in out


def test_test_set_filter_and_fingerprints(store, capsys):
    code, out, _ = run(capsys, "runs", "leaderboard", "--store", store, "--format", "csv")
    fps = sorted({r[-1] for b in _csv_boards(out) for r in b})
    assert len(fps) == 4                                   # 2 qrels + 2 caption reference sets
    ko = next(fp for fp in fps if fp.startswith("refs:") and fp in out.split("predictions_ko")[1].split("\n")[0])
    code, out, _ = run(capsys, "runs", "leaderboard", "--test-set", ko.split(":")[1][:6], "--store", store,
                       "--format", "csv")
    assert code == 0 and [[r[2] for r in b] for b in _csv_boards(out)] == [["predictions_ko"]]
    code, _, err = run(capsys, "runs", "leaderboard", "--test-set", "zzzz", "--store", store)
    assert code == 2 and "no recorded run has a test set starting with 'zzzz'" in err


def test_fingerprint_follows_references_and_language():
    rows = [{"id": "1", "references": ["a b"]}, {"id": "2", "references": ["c"]}]
    a = {"task": "caption", "inputs": {"lang": "en"}, "per_item": rows}
    assert compute_test_set(a) == compute_test_set({**a, "per_item": rows[::-1]})          # order-free
    assert compute_test_set(a) != compute_test_set({**a, "inputs": {"lang": "ko"}})
    assert compute_test_set(a) != compute_test_set({**a, "per_item": [rows[0], {"id": "2", "references": ["d"]}]})
    assert run_test_set({**a, "inputs": {"lang": "en", "test_set": "files:x"}}) == "files:x"   # stamped wins
    a_topics = {"task": "topics", "inputs": {"topics": "a.json"}, "per_item": [{"id": "t1"}]}
    assert compute_test_set(a_topics) == compute_test_set({**a_topics, "per_item": [{"id": "other"}]})
    assert compute_test_set(a_topics).startswith("none:")
    nfc = {"task": "caption", "inputs": {"lang": "ko"}, "per_item": [{"id": "1", "references": ["한국"]}]}
    assert compute_test_set(nfc).startswith("refs:")


def test_runs_add_keeps_a_stamped_test_set(store, tmp_path, capsys):
    code, out, _ = run(capsys, "runs", "show", "1", "--json", "--store", store)
    data = json.loads(out)
    stamped = data["inputs"]["test_set"]
    (tmp_path / "v1.json").write_text(json.dumps(data))
    db2 = tmp_path / "two.db"
    assert run(capsys, "runs", "add", tmp_path / "v1.json", "--store", db2)[0] == 0
    code, out, _ = run(capsys, "runs", "show", "1", "--json", "--store", db2)
    assert json.loads(out)["inputs"]["test_set"] == stamped


def test_compare_change_format_and_help(store, capsys):
    code, out, _ = run(capsys, "runs", "compare", "1", "2", "--store", store)
    assert code == 0
    code2, js, _ = run(capsys, "runs", "compare", "1", "2", "--store", store, "-o", "-")
    doc_rows = json.loads(js)["comparison"]["rows"]
    ndcg = next(r for r in doc_rows if r["measure"] == "ndcg@10")
    assert f"{ndcg['improvement_pct']:+.1f}%" in out               # +74.3%, as `scorekit retrieval` prints it
    code, ret, _ = run(capsys, "retrieval", "--qrels", EX / "retrieval" / "qrels.txt", "--run",
                       EX / "retrieval" / "run_v1.txt", "--run", EX / "retrieval" / "run_v2.txt")
    assert f"{ndcg['improvement_pct']:+.1f}%" in ret
    code, help_text, _ = run(capsys, "runs", "compare", "--help")
    help_text = " ".join(help_text.split())
    assert "BASELINE_ID RUN_ID" in help_text and "BASELINE_ID (first) and RUN_ID (second)" in help_text
    assert "scorekit runs compare 3 7" in help_text
    code, help_text, _ = run(capsys, "runs", "leaderboard", "--help")
    help_text = " ".join(help_text.split())
    assert "never ranked together" in help_text and "scorekit runs leaderboard --task" in help_text
