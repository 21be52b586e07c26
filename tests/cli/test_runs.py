"""`scorekit runs list|show|compare|rm|leaderboard|add` against a temporary store."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scorekit.cli import main
from scorekit.cli.runs import compare_runs
from tests.report.report_helpers import DATA, Elements, load


@pytest.fixture
def store(tmp_path, capsys):
    db = tmp_path / "runs.db"
    assert main(["runs", "add", str(DATA / "retrieval_compare.json"), str(DATA / "caption_ko.json"),
                 "--store", str(db)]) == 0
    capsys.readouterr()
    return db


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_show_leaderboard_rm(store, capsys):
    code, out, _ = run(capsys, "runs", "list", "--store", store, "--format", "csv")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("id,task,name") and [l.split(",")[0] for l in lines[1:]] == ["4", "3", "2", "1"]
    code, out, _ = run(capsys, "runs", "list", "--task", "caption", "--store", store, "--format", "csv")
    assert [l.split(",")[2] for l in out.strip().splitlines()[1:]] == ["ko-captioner"]
    code, out, _ = run(capsys, "runs", "show", "4", "--json", "--store", store)
    assert json.loads(out)["per_item"] == load("caption_ko")["per_item"]
    code, out, _ = run(capsys, "runs", "leaderboard", "--task", "retrieval", "--store", store, "--format", "csv")
    rows = [l.split(",") for l in out.strip().splitlines()[1:]]
    assert [r[2] for r in rows] == ["dense", "hybrid", "bm25"] and float(rows[0][3]) == load("retrieval_compare")["runs"][1]["metrics"]["ndcg@10"]
    code, out, _ = run(capsys, "runs", "rm", "2", "--store", store)
    assert code == 0 and "#2" in out
    code, out, _ = run(capsys, "runs", "list", "--store", store, "--format", "csv")
    assert "dense" not in out


def test_errors_are_one_line(store, tmp_path, capsys):
    for argv, msg in ((["runs", "show", "99"], "no run with id 99"),
                      (["runs", "rm", "1", "99"], "no run with id 99"),
                      (["runs", "leaderboard", "--task", "retreival"], "did you mean 'retrieval'"),
                      (["runs", "compare", "1", "4"], "cannot compare a retrieval run with a caption run")):
        code, _, err = run(capsys, *argv, "--store", store)
        assert code == 2 and msg in err and len(err.strip().splitlines()) == 1, err
    code, out, _ = run(capsys, "runs", "list", "--store", store, "--format", "csv")
    assert len(out.strip().splitlines()) == 5          # the failed rm removed nothing
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    code, _, err = run(capsys, "runs", "list", "--store", junk)
    assert code == 2 and "not a scorekit run store" in err and junk.read_text() == "not a database"
    code, _, err = run(capsys, "runs", "list", "--store", tmp_path / "absent.db")
    assert code == 2 and "no run store here yet" in err


def check_against_scipy(doc, a, b):
    from scipy import stats

    ia = {r["id"]: r for r in a["per_item"]}
    ib = {r["id"]: r for r in b["per_item"]}
    ids = [i for i in ia if i in ib]
    for row in doc["comparison"]["rows"]:
        m = row["measure"]
        xa = np.array([ia[i][m] for i in ids])
        xb = np.array([ib[i][m] for i in ids])
        ref = stats.ttest_rel(xb, xa)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)
        assert row["value"] == pytest.approx(xb.mean()) and row["baseline_value"] == pytest.approx(xa.mean())
        assert row["n"] == len(ids)
    # one Holm family per measure over the systems compared with the baseline (here one system):
    # the corrected p is the p, as `scorekit retrieval` gives for the same pair (stats.compare)
    assert all(r["p_adjusted"] == r["p_value"] for r in doc["comparison"]["rows"])


def test_compare_pairs_shared_ids():
    runs = load("retrieval_compare")["runs"]
    a, b = runs[0], dict(runs[2])
    b["per_item"] = b["per_item"][5:] + [{"id": "extra", "ndcg@10": 1.0}]   # partial overlap
    doc = compare_runs(a, b, method="t")
    assert doc["comparison"]["n_shared"] == 25 and doc["comparison"]["baseline"] == "bm25"
    assert [r["measure"] for r in doc["comparison"]["rows"]] == ["ndcg@10", "map@100", "mrr@10", "recall@100"]
    check_against_scipy(doc, a, b)


def test_compare_cli_writes_json_and_report(store, tmp_path, capsys):
    code, out, err = run(capsys, "runs", "compare", "1", "3", "--metric", "ndcg@10", "--metric", "mrr@10",
                         "--output", tmp_path / "cmp.json", "--report", tmp_path / "cmp.html", "--store", store,
                         "--format", "csv")
    assert code == 0, err
    doc = json.loads((tmp_path / "cmp.json").read_text())
    assert [r["measure"] for r in doc["comparison"]["rows"]] == ["ndcg@10", "mrr@10"]
    el = Elements((tmp_path / "cmp.html").read_text(encoding="utf-8"))
    assert len(el.with_class("sigmark", "td")) == 2
    code, _, err = run(capsys, "runs", "compare", "1", "3", "--metric", "ndcg@1O", "--store", store)
    assert code == 2 and "did you mean 'ndcg@10'" in err


def test_compare_with_the_real_significance_module():
    import scorekit.stats.significance as sig
    runs = load("retrieval_compare")["runs"]
    doc = compare_runs(runs[0], runs[1], method="t")
    check_against_scipy(doc, runs[0], runs[1])
    assert hasattr(sig, "holm_bonferroni")


def test_compare_without_shared_ids():
    runs = load("retrieval_compare")["runs"]
    b = dict(runs[1], per_item=[{"id": "zzz", "ndcg@10": 0.1}])
    from scorekit.errors import ScorekitError

    with pytest.raises(ScorekitError, match="share no per-item ids"):
        compare_runs(runs[0], b)
