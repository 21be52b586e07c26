"""`optimize_fusion` / `scorekit fuse --optimize` against ranx's optimize_fusion on tie-free runs:
the same candidate grid (wsum weights summing to exactly 1.0 on ranx's step; RRF's k 10..100),
the same chosen parameters; and the signature of the fused run records them."""

from __future__ import annotations

import random
import warnings

import pytest

from scorekit.cli import main
from scorekit.errors import ScorekitError
from scorekit.retrieval.fusion import optimize_fusion, weight_grid

ranx = pytest.importorskip("ranx")


def _data(seed: int, n_runs: int):
    """Tie-free runs over one document pool per query (so a zero weight leaves no ties), graded
    qrels, Korean query and document ids among them."""
    rng = random.Random(seed)
    queries = [f"q{i}" for i in range(rng.randint(4, 9))] + ["질의"]
    qrels, runs = {}, [{} for _ in range(n_runs)]
    for q in queries:
        docs = [f"d{j}" for j in range(rng.randint(8, 25))] + ["문서"]
        qrels[q] = {d: rng.choice([0, 1, 1, 2, 3]) for d in rng.sample(docs, rng.randint(2, len(docs)))}
        if not any(qrels[q].values()):
            qrels[q][docs[0]] = 1
        for r in runs:
            # runs agree with the grades a little, so weights matter
            r[q] = {d: rng.random() + 0.15 * rng.random() * qrels[q].get(d, 0) * (1 + runs.index(r))
                    for d in docs}
    return qrels, runs


def _ranx(qrels, runs, method, metric):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ranx.optimize_fusion(ranx.Qrels(qrels), [ranx.Run(r) for r in runs], norm="min-max",
                                    method=method, metric=metric, show_progress=False)


def test_weight_grid_is_ranx_grid():
    from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

    for n, step in ((2, 0.1), (3, 0.1), (3, 0.05), (4, 0.25)):
        assert weight_grid(n, step) == get_trial_configs(get_possible_weights(step), n)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("method,n_runs,metric", [("wsum", 2, "ndcg@10"), ("wsum", 3, "map@100"),
                                                  ("rrf", 2, "ndcg@5"), ("rrf", 3, "mrr")])
def test_equals_ranx_optimize_fusion(seed, method, n_runs, metric):
    qrels, runs = _data(seed, n_runs)
    want = _ranx(qrels, runs, method, metric)
    got, report = optimize_fusion(qrels, runs, method, "min-max", metric)
    if method == "wsum":
        assert tuple(got["weights"]) == tuple(want["weights"])
        assert len(report) == len(weight_grid(n_runs))
    else:
        assert got == want and [k for k, _ in report] == list(range(10, 101, 10))
    # the chosen candidate's score is the best one, and ranx scores it the same
    best = max(s for _, s in report)
    assert dict(report)[tuple(got["weights"]) if method == "wsum" else got["k"]] == best
    fused = ranx.fuse([ranx.Run(r) for r in runs], norm="min-max", method=method, params=want)
    assert best == pytest.approx(ranx.evaluate(ranx.Qrels(qrels), fused, metric), rel=1e-12)


def test_cli_optimize_writes_the_run_and_signs_the_weights(tmp_path, capsys):
    qrels, runs = _data(4, 2)
    paths = []
    for i, r in enumerate(runs):
        p = tmp_path / f"run{i}.txt"
        p.write_text("".join(f"{q} Q0 {d} 0 {s!r} r{i}\n" for q, docs in r.items() for d, s in docs.items()))
        paths += ["--run", str(p)]
    qp = tmp_path / "train.qrels"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    out = tmp_path / "fused.txt"
    code = main(["fuse", *paths, "--method", "wsum", "--optimize", "--qrels", str(qp), "--metric", "ndcg@10",
                 "-o", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    want = _ranx(qrels, runs, "wsum", "ndcg@10")["weights"]
    w = ",".join(repr(float(x)) for x in want)
    assert f"|method:wsum|norm:min-max|weights:{w}|optimized:ndcg@10,step0.1|" in stdout
    assert out.read_text().count("\n") == sum(len(d) for d in runs[0].values())
    # errors: one line, exit 2, nothing written
    for args, message in ((["--optimize"], "--optimize needs --qrels"),
                          (["--optimize", "--qrels", str(qp), "--weights", "1,0"], "not both"),
                          (["--qrels", str(qp)], "--qrels is read by --optimize only"),
                          (["--method", "sum", "--optimize", "--qrels", str(qp)], "no parameters to optimise")):
        bad = tmp_path / "bad.txt"
        code = main(["fuse", *paths, *args, "-o", str(bad)])
        _, err = capsys.readouterr()
        assert code == 2 and message in err and not bad.exists(), (args, err)


def test_one_measure_only():
    qrels, runs = _data(5, 2)
    with pytest.raises(ScorekitError, match="one measure"):
        optimize_fusion(qrels, runs, "wsum", "min-max", "ndcg@10,map")


@pytest.mark.parametrize("n_runs, step", [(2, 1e-9), (5, 0.01), (10, 0.1)])
def test_a_weight_grid_too_large_to_search_is_an_error(n_runs, step):
    # before: --step 1e-9 enumerated 1e18 tuples (a hang, killed at the time limit)
    with pytest.raises(ScorekitError, match=r"the weight step .* weight tuples for .* runs to search .*take a larger --step"):
        weight_grid(n_runs, step)
    assert len(weight_grid(3, 0.01)) > 4000   # 101**3 tuples: still searched
