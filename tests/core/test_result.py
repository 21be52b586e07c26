"""Result and ResultSet: the only result types; to_dict/from_dict keep the stored version."""

import pytest

from scorekit import __version__
from scorekit.result import Result, ResultSet


def _r(name, v):
    return Result(task="caption", metrics={"bleu_4": v}, signature="task:caption|version:0.1.0",
                  per_item=[{"id": "1", "bleu_4": v}, {"id": "2", "bleu_4": None}], name=name)


def test_from_dict_keeps_the_stored_version():
    data = _r("a", 0.5).to_dict()
    assert data["scorekit_version"] == __version__
    data["scorekit_version"] = "0.0.9"
    back = Result.from_dict(data)
    assert back.scorekit_version == "0.0.9" and back.to_dict()["scorekit_version"] == "0.0.9"
    assert Result.from_json(back.to_json()).to_dict() == back.to_dict()


def test_column_and_pandas():
    pd = pytest.importorskip("pandas")
    r = _r("a", 0.5)
    col = r.column("bleu_4")
    assert col[0] == 0.5 and col[1] != col[1]   # None -> NaN
    assert isinstance(r.to_pandas(), pd.DataFrame) and r.to_pandas()["bleu_4"][0] == 0.5
    assert list(r.to_pandas(per_item=True)["id"]) == ["1", "2"]


def test_result_set():
    rs = ResultSet([_r("a", 0.5), _r("b", 0.6)])
    assert rs.names == ["a", "b"] and rs["b"].metrics["bleu_4"] == 0.6 and len(rs) == 2
    assert ResultSet.from_dict(rs.to_dict()).to_dict() == rs.to_dict()
    df = rs.to_pandas()
    assert list(df["name"]) == ["a", "b"] and list(df["bleu_4"]) == [0.5, 0.6]


def test_result_set_json_is_the_one_multi_run_shape_and_reads_back():
    from scorekit.stats.compare import document

    rs = ResultSet([_r("a", 0.5), _r("b", 0.6)])
    d = rs.to_dict()   # the baseline (the first) on top, as the comparison JSON; no comparison block
    assert d["name"] == "a" and d["metrics"] == {"bleu_4": 0.5} and [r["name"] for r in d["runs"]] == ["a", "b"]
    assert d == document("caption", [r.to_dict() for r in rs], signature=rs[0].signature)
    assert ResultSet.from_dict({"results": d["runs"]}).names == ["a", "b"]


def test_absa_run_aggregate_is_a_result():
    from scorekit.absa.aggregate import aggregate_run

    res = aggregate_run([], "empty-run").to_result(inputs={"n_rows": 0})
    assert res.task == "absa" and res.name == "empty-run" and res.inputs == {"n_rows": 0}
    assert res.signature.startswith("task:absa|") and "N" in res.metrics
