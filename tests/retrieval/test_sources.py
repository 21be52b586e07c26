"""Parquet and DataFrame qrels/runs, and ir_datasets read from the local cache only.

What is tested for ir_datasets: a dataset registered from local files (the loader path scorekit
uses, end to end), a registered dataset whose files are not cached (the no-download error, no
network touched), a real catalogue id that is not cached here (``vaswani``: same error) and an
unknown id. A real dataset already in a user's cache is not available offline in this suite."""

from __future__ import annotations

import pytest

from scorekit.errors import InputError
from scorekit.retrieval import evaluate

pd = pytest.importorskip("pandas")

QRELS = {"q1": {"a": 2, "b": 0, "문서": 1}, "q2": {"c": 1}}
RUN = {"q1": {"a": 0.5, "b": 0.75, "문서": 0.25}, "q2": {"c": 1.0, "x": 2.0}}
NAMES = "nDCG@3,AP,P_2,R(rel=2)@3,bpref"


def _frames():
    qrels = pd.DataFrame([(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()],
                         columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
                       columns=["query_id", "doc_id", "score"])
    return qrels, run


def test_dataframes_and_parquet_equal_dicts(tmp_path):
    want = evaluate(QRELS, RUN, NAMES).metrics
    qrels, run = _frames()
    assert evaluate(qrels, run, NAMES).metrics == want
    # ranx's column names too
    assert evaluate(qrels.rename(columns={"query_id": "q_id"}), run.rename(columns={"query_id": "q_id"}),
                    NAMES).metrics == want
    qrels.to_parquet(tmp_path / "qrels.parquet")
    run.to_parquet(tmp_path / "run.parquet")
    res = evaluate(str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), NAMES)
    assert res.metrics == want and res.name == "run"


def test_parquet_errors(tmp_path):
    qrels, run = _frames()
    run.drop(columns=["score"]).to_parquet(tmp_path / "noscore.parquet")
    with pytest.raises(InputError, match="needs a score column"):
        evaluate(QRELS, str(tmp_path / "noscore.parquet"))
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        evaluate(str(tmp_path / "bad.parquet"), RUN)
    qrels.assign(relevance=[0.5, 1, 1, 1]).to_parquet(tmp_path / "float.parquet")
    with pytest.raises(InputError, match="integer"):
        evaluate(str(tmp_path / "float.parquet"), RUN)


@pytest.fixture
def irds(tmp_path, monkeypatch):
    ir_datasets = pytest.importorskip("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvQueries
    from ir_datasets.util import Download, LocalDownload, RequestsDownload

    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items() for d, r in docs.items()),
                          encoding="utf-8")
    queries_file = tmp_path / "queries.tsv"
    queries_file.write_text("q1\t하늘이 파란 이유\nq2\twhy is the sky blue\n", encoding="utf-8")
    registry = ir_datasets.registry
    local = Dataset(TrecQrels(LocalDownload(qrels_file), {0: "no", 1: "yes", 2: "very"}),
                    TsvQueries(LocalDownload(queries_file)))
    # files that would have to come from the network (a port nothing listens on)
    remote = Dataset(TrecQrels(Download([RequestsDownload("http://127.0.0.1:9/qrels")],
                                        cache_path=str(tmp_path / "home" / "missing" / "qrels")), {}))
    for name, ds in (("scorekit-test/local", local), ("scorekit-test/remote", remote)):
        if name not in registry._registered:
            registry.register(name, ds)
        else:
            registry._registered[name] = ds
    return tmp_path


def test_ir_datasets_local_dataset(irds):
    from scorekit.retrieval.sources import irds_queries

    assert evaluate("irds:scorekit-test/local", RUN, NAMES).metrics == evaluate(QRELS, RUN, NAMES).metrics
    assert irds_queries("irds:scorekit-test/local") == {"q1": "하늘이 파란 이유", "q2": "why is the sky blue"}


@pytest.mark.parametrize("dataset", ["scorekit-test/remote", "vaswani"])
def test_ir_datasets_never_downloads(irds, dataset):
    with pytest.raises(InputError, match="not in the local cache.*never downloads.*ir_datasets.load"):
        evaluate(f"irds:{dataset}", RUN, "map")


def test_ir_datasets_unknown_id(irds):
    with pytest.raises(InputError, match="unknown ir_datasets dataset 'no-such/dataset'"):
        evaluate("irds:no-such/dataset", RUN, "map")


def test_cli_reads_ir_datasets_qrels(irds, capsys):
    from scorekit.cli import main

    run = irds / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, docs in RUN.items() for d, s in docs.items()),
                   encoding="utf-8")
    assert main(["retrieval", "--qrels", "irds:scorekit-test/local", "--run", str(run), "-m", "AP"]) == 0
    assert main(["retrieval", "--qrels", "irds:vaswani", "--run", str(run), "-m", "AP"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "never downloads" in err[0]
