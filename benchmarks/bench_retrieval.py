"""Retrieval end to end: two TREC files -> six measures, scorekit vs ranx vs pytrec_eval.

Generates (never commits) a synthetic run of ``SCOREKIT_BENCH_QUERIES`` (default 10,000) queries
x ``SCOREKIT_BENCH_DOCS`` (default 1,000) documents — 10 M lines — and qrels (about 20 judged
documents per query, grades 0-3) in a temporary directory, then times, in this one process:

* scorekit: ``evaluate(qrels_path, run_path, six measures)``
* ranx: ``Qrels.from_file`` + ``Run.from_file`` + ``evaluate`` (numba compiled first, on a tiny run)
* pytrec_eval: parse both files into its dicts + ``RelevanceEvaluator.evaluate`` + means

Measures: ndcg@10, map@100, mrr, hit_rate@10, precision@10, recall@100. It checks the three agree
and prints the ratios and scorekit's peak memory (a child process, ru_maxrss).
Each library is timed ``SCOREKIT_BENCH_REPEAT`` (default 2) times, best taken.
Quick run: ``SCOREKIT_BENCH_QUERIES=1000 python -m benchmarks retrieval``.
"""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEASURES = ["ndcg@10", "map@100", "mrr", "hit_rate@10", "precision@10", "recall@100"]
TREC = {"ndcg@10": "ndcg_cut_10", "map@100": "map_cut_100", "mrr": "recip_rank",
        "hit_rate@10": "success_10", "precision@10": "P_10", "recall@100": "recall_100"}

# issue #19's wider set (timed against the six above unless SCOREKIT_BENCH_SKIP has "wide")
WIDE = MEASURES + ["map", "ndcg", "r_precision", "ndcg_burges@10", "bpref", "infAP", "gm_map", "set_P",
                   "set_recall", "set_F", "num_ret", "num_rel", "num_rel_ret", "ERR@10", "RBP(p=0.8,rel=1)",
                   "rbp.8", "dcg@10", "Judged@10", "P(rel=2)@10", "R(rel=2)@100", "f1@10", "AP(rel=2)"] + [
                   f"iprec_at_recall_{i / 10:.2f}" for i in range(11)]


def generate(directory: Path, n_queries: int, n_docs: int, seed: int = 0) -> tuple[Path, Path]:
    """Write run.txt (query by query, best first, scores with 3 decimals so ties occur) and
    qrels.txt with pyarrow's CSV writer (fast, no Python loop over lines)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    corpus = 1_000_003
    qnames = pa.array([f"q{i}" for i in range(n_queries)])

    def strings(prefix: str, ids: np.ndarray) -> pa.Array:
        return pc.binary_join_element_wise(prefix, pc.cast(pa.array(ids), pa.string()), "")

    def const(value: str, n: int) -> pa.Array:
        return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([value])).cast(pa.string())

    step = 997  # distinct documents within a query (step * n_docs < corpus)
    docs = (rng.integers(0, corpus, n_queries)[:, None] + np.arange(n_docs)[None, :] * step) % corpus
    score = np.sort(np.round(rng.normal(size=(n_queries, n_docs)) * 10, 3), axis=1)[:, ::-1]
    q = np.repeat(np.arange(n_queries, dtype=np.int32), n_docs)
    run = pa.table({
        "q": pa.DictionaryArray.from_arrays(pa.array(q), qnames).cast(pa.string()),
        "z": const("Q0", q.size), "d": strings("d", docs.ravel()),
        "r": np.tile(np.arange(1, n_docs + 1, dtype=np.int32), n_queries),
        "s": score.ravel(), "t": const("bench", q.size)})
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    run_path, qrels_path = directory / "run.txt", directory / "qrels.txt"
    pacsv.write_csv(run, run_path, opts)
    del run
    # qrels: 10 documents from the run's top 200 and 10 unretrieved ones per query
    judged = 20
    top = docs[:, :200]
    pick = rng.permuted(np.tile(np.arange(200), (n_queries, 1)), axis=1)[:, :10]
    from_run = np.take_along_axis(top, pick, axis=1)
    others = (docs[:, :10] + 500_000) % corpus  # not in this query's ranking
    qd = np.concatenate([from_run, others], axis=1)
    qq = np.repeat(np.arange(n_queries, dtype=np.int32), judged)
    qrels = pa.table({
        "q": pa.DictionaryArray.from_arrays(pa.array(qq), qnames).cast(pa.string()),
        "z": const("0", qq.size), "d": strings("d", qd.ravel()),
        "r": rng.choice([0, 1, 1, 2, 3], size=qq.size)})
    pacsv.write_csv(qrels, qrels_path, opts)
    return qrels_path, run_path


def run_scorekit(qrels: Path, run: Path) -> dict[str, float]:
    from scorekit.retrieval import evaluate

    return evaluate(qrels, run, MEASURES, per_item=False).metrics


def run_scorekit_wide(qrels: Path, run: Path) -> dict[str, float]:
    from scorekit.retrieval import evaluate

    return evaluate(qrels, run, WIDE, per_item=False).metrics


def run_ranx(qrels: Path, run: Path) -> dict[str, float]:
    import ranx

    q = ranx.Qrels.from_file(str(qrels), kind="trec")
    r = ranx.Run.from_file(str(run), kind="trec")
    return ranx.evaluate(q, r, MEASURES)


def run_pytrec_eval(qrels: Path, run: Path) -> dict[str, float]:
    import pytrec_eval

    qd: dict[str, dict[str, int]] = {}
    with open(qrels) as fh:
        for line in fh:
            qid, _, docid, rel = line.split()
            qd.setdefault(qid, {})[docid] = int(rel)
    rd: dict[str, dict[str, float]] = {}
    with open(run) as fh:
        for line in fh:
            qid, _, docid, _, score, _ = line.split()
            rd.setdefault(qid, {})[docid] = float(score)
    res = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10", "map_cut.100", "recip_rank", "success.10",
                                              "P.10", "recall.100"}).evaluate(rd)
    return {m: sum(res.get(q, {}).get(TREC[m], 0.0) for q in qd) / len(qd) for m in MEASURES}


def _warm_ranx() -> None:
    import ranx

    ranx.evaluate(ranx.Qrels({"q": {"d": 1}}), ranx.Run({"q": {"d": 1.0, "e": 0.5}}), MEASURES)


def _timed(fn, *args, repeat: int = 1):
    """Best of ``repeat`` wall-clock timings (the machine is shared; the minimum is the least
    disturbed run), and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best, out


def _peak_memory(qrels: Path, run: Path) -> float:
    """scorekit's peak RSS in GiB, measured in a fresh process.

    Read from /proc/self/status VmHWM, not ru_maxrss: Linux carries ru_maxrss across fork+exec,
    so a child of a big parent (torch loaded by an earlier benchmark in `make bench`) would
    report the parent's size as its own peak.
    """
    code = ("import sys; from benchmarks.bench_retrieval import run_scorekit; "
            "run_scorekit(sys.argv[1], sys.argv[2]); "
            "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)], capture_output=True,
                         text=True, check=True, cwd=root, env={**os.environ, "PYTHONPATH": f"{root}:{root / 'src'}"})
    return int(out.stdout.strip().splitlines()[-1]) / 2 ** 20


def main() -> None:
    nq = int(os.environ.get("SCOREKIT_BENCH_QUERIES", "10000"))
    nd = int(os.environ.get("SCOREKIT_BENCH_DOCS", "1000"))
    repeat = int(os.environ.get("SCOREKIT_BENCH_REPEAT", "2"))
    skip = set(filter(None, os.environ.get("SCOREKIT_BENCH_SKIP", "").split(",")))
    with tempfile.TemporaryDirectory(prefix="scorekit-bench-") as tmp:
        t0 = time.perf_counter()
        qrels, run = generate(Path(tmp), nq, nd)
        size = run.stat().st_size / 2 ** 20
        print(f"best of {repeat} runs per library; data: {nq:,} queries x {nd:,} docs = {nq * nd:,} run lines ({size:.0f} MiB), "
              f"generated in {time.perf_counter() - t0:.1f}s")
        peak = _peak_memory(qrels, run)  # first, in a fresh process, before the others run
        results: dict[str, tuple[float, dict[str, float]]] = {}
        results["scorekit"] = _timed(run_scorekit, qrels, run, repeat=repeat)
        print(f"scorekit     {results['scorekit'][0]:7.2f}s", flush=True)
        if "wide" not in skip:
            t_wide = _timed(run_scorekit_wide, qrels, run, repeat=repeat)[0]
            print(f"scorekit, {len(WIDE)} measures {t_wide:7.2f}s = {t_wide / results['scorekit'][0]:.2f}x the six "
                  f"(target <= 1.5x): {'OK' if t_wide <= 1.5 * results['scorekit'][0] else 'ABOVE TARGET'}", flush=True)
        if "ranx" not in skip:
            _warm_ranx()
            results["ranx"] = _timed(run_ranx, qrels, run, repeat=repeat)
            print(f"ranx         {results['ranx'][0]:7.2f}s", flush=True)
        if "pytrec_eval" not in skip:
            results["pytrec_eval"] = _timed(run_pytrec_eval, qrels, run, repeat=repeat)
            print(f"pytrec_eval  {results['pytrec_eval'][0]:7.2f}s", flush=True)
        ours = results["scorekit"][1]
        for lib, (_, theirs) in results.items():
            if lib == "scorekit":
                continue
            worst = max(abs(ours[m] - theirs[m]) for m in MEASURES)
            note = " (ranx orders tied scores differently)" if lib == "ranx" else ""
            print(f"max |scorekit - {lib}| over the six measures: {worst:.2e}{note}")
        t_sk = results["scorekit"][0]
        for lib, target in (("ranx", 5.0), ("pytrec_eval", 3.0)):
            if lib in results:
                ratio = results[lib][0] / t_sk
                print(f"scorekit is {ratio:.1f}x faster than {lib} (target >= {target:.0f}x): "
                      f"{'OK' if ratio >= target else 'BELOW TARGET'}")
        print(f"scorekit peak memory: {peak:.2f} GiB (target < 2 GB): {'OK' if peak < 1.86 else 'ABOVE TARGET'}")
        print("metrics:", {m: round(v, 6) for m, v in ours.items()})


if __name__ == "__main__":
    main()
