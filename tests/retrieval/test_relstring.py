"""trec_eval 10's ``relstring.N`` (m_relstring.c over form_res_rels.c) on hand-made qrels: the
first N ranked documents' grades as text — digit, ``>`` above 9, ``-`` for a document not in the
query's qrels, ``.`` for any negative qrels grade (form_res_rels makes every one
RELVALUE_UNJUDGED, so m_relstring's ``<`` cannot appear), ``''`` for a query the run misses.
trec_eval's own expected outputs are compared in test_trec_eval_suite.py."""

from __future__ import annotations

import json

import pytest

from scorekit.cli import main
from scorekit.errors import ScorekitError
from scorekit.retrieval.compare import compare
from scorekit.retrieval.names import Relstring, parse_measures, trec_items

QRELS = """q1 0 d1 0
q1 0 d2 12
q1 0 d3 -1
q1 0 d4 -2
q1 0 d5 3
q1 0 문서 2
q2 0 x 1
q3 0 a 1
"""
# q1 ranked: d1 d2 zz d3 d4 d5 문서 t1 (문서 and t1 tie: docid descending, bytes); q2 not run;
# q3: eleven unjudged documents first, then its relevant one; qz: a run-only query (ignored)
RUN = "".join(f"q1 Q0 {d} 0 {s} r\n" for d, s in
              [("t1", 4), ("d1", 10), ("d2", 9), ("zz", 8), ("d3", 7), ("d4", 6), ("d5", 5), ("문서", 4)])
RUN += "".join(f"q3 Q0 n{i:02d} 0 {20 - i} r\n" for i in range(11)) + "q3 Q0 a 0 1 r\nqz Q0 a 0 1 r\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run").write_text(RUN, encoding="utf-8")
    return [str(tmp_path / "qrels"), str(tmp_path / "run")]


def _run(files, capsys, *args):
    code = main(["retrieval", "--qrels", files[0], "--run", files[1], *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_character_and_a_missing_query(files, capsys):
    code, out, err = _run(files, capsys, "-m", "relstring", "--per-query", "-")
    assert code == 0, err
    assert out == ("relstring             \tq1\t'0>-..32-'\n"
                   "relstring             \tq2\t''\n"
                   "relstring             \tq3\t'----------'\n")   # no `all` line


def test_n_given_named_as_trec_eval_prints_it_last_wins_in_first_place(files, capsys):
    code, out, err = _run(files, capsys, "-m", "relstring.3,num_ret", "-m", "relstring.12", "--per-query", "-")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:2] == ["relstring_12          \tq1\t'0>-..32-'", "num_ret               \tq1\t8"]
    assert "relstring_12          \tq3\t'-----------1'" in lines and lines[-1] == "num_ret               \tall\t20"
    assert [k for k, _ in trec_items("relstring.3,relstring.12")] == ["relstring_12"]


def test_numbers_are_unchanged_and_json_has_no_string(files, capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, err = _run(files, capsys, "-m", "map,all_trec", "-o", str(out_json), "-q")
    assert code == 0, err
    doc = json.loads(out_json.read_text())
    text = json.dumps(doc)
    assert "relstring" not in text and "0>-" not in text and "map" in doc["metrics"]


@pytest.mark.parametrize("args", [["-m", "relstring"], ["-m", "map,relstring.5", "-o", "pq.csv"],
                                  ["-m", "relstring", "--per-query", "pq.csv"]])
def test_refused_outside_trec_eval_layout_with_one_line(files, capsys, args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(files, capsys, *args)
    assert code == 2 and "relstring" in err and "--per-query -" in err and err.count("\n") == 1
    assert not (tmp_path / "pq.csv").exists()


def test_library_api(files):
    assert parse_measures("all_trec") == parse_measures("all_trec", texts=True)   # a set's relstring: omitted
    assert [k for k, _ in parse_measures("relstring,map", texts=True)] == ["map"]
    assert parse_measures("relstring", texts=True) == []
    with pytest.raises(ScorekitError, match="relstring"):
        parse_measures("relstring")
    with pytest.raises(ScorekitError, match="relstring"):   # --engine ray: not carried, refused first
        compare(files[0], [files[1]], "relstring", engine=object(), texts=True)
    with pytest.warns(UserWarning, match="qz"):   # the run-only query
        comp = compare(files[0], [files[1]], "map,relstring.2", texts=True)
    assert comp.texts == {"relstring_2": ["0>", "", "--"]} and list(comp.results[0].metrics) == ["map"]
    assert dict(trec_items("relstring"))["relstring"] == Relstring(10, True)
