"""--engine ray gives the one-process numbers: a local Ray with 2 CPUs, started once for the
module and shut down at its end (no Ray process may outlive it)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

ray = pytest.importorskip("ray")

from scorekit.engine.ray_engine import RayEngine  # noqa: E402
from scorekit.errors import InputError  # noqa: E402
from tests.retrieval.test_harness_retrieval import trec_batches  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


# one Ray at a time: every test of this module runs on the same xdist worker (make test uses
# --dist loadgroup), sharing one local cluster
pytestmark = pytest.mark.xdist_group("ray")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat")
    return not (state.exists() and state.read_text().split(") ")[-1].startswith("Z"))


@pytest.fixture(scope="module")
def engine():
    assert not ray.is_initialized()
    with RayEngine(num_cpus=2, progress=False) as eng:
        node = ray._private.worker.global_worker.node
        pids = [p.process.pid for procs in node.all_processes.values() for p in procs]
        assert pids, "the local Ray started no processes?"
        yield eng
    assert not ray.is_initialized()
    import time

    for _ in range(100):   # the raylet and GCS exit a moment after shutdown returns
        if not any(_alive(p) for p in pids):
            break
        time.sleep(0.2)
    assert [p for p in pids if _alive(p)] == [], "Ray processes outlived the engine"


# ---------------------------------------------------------------------------- retrieval
def _random_trec(tmp: Path, seed: int, n_shards: int):
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    n_q = int(rng.integers(3, 40))
    for qi in range(n_q):
        docs = rng.choice(300, int(rng.integers(1, 60)), replace=False)
        for di in docs:   # float32-exact scores, many ties; ids of several shapes
            run.append(f"q-{qi} Q0 D{di:07d} 0 {rng.integers(0, 8) / 4} tag")
        if rng.random() < 0.9:
            for di in rng.choice(300, int(rng.integers(1, 12)), replace=False):
                qrels.append(f"q-{qi} 0 D{di:07d} {rng.integers(-1, 4)}")
    qrels.append("q-missing 0 D0000001 1")          # a query the run never answers
    run.append("q-extra Q0 D0000001 0 1.0 tag")     # a query the qrels do not have
    rng.shuffle(run)
    (tmp / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (tmp / "run.txt").write_text("\n".join(run) + "\n")
    shards = []
    for i in range(n_shards):
        p = tmp / f"part-{i:02d}.trec"
        p.write_text("\n".join(run[i::n_shards]) + "\n")
        shards.append(p)
    return tmp / "qrels.txt", tmp / "run.txt", shards


@pytest.mark.parametrize("seed", range(6))
def test_retrieval_equals_one_process(engine, tmp_path, seed):
    """A run given as files, hash-partitioned on Ray (retrieval's shard function), and the same
    run read here and cut into query shards for Ray tasks: the one-process numbers bit for bit."""
    import warnings

    from scorekit.retrieval import evaluate
    from scorekit.retrieval.evaluate import RunFiles, evaluate_batch
    from scorekit.retrieval.inputs import as_qrels, as_run
    from scorekit.retrieval.names import parse_measures

    qrels, whole, shards = _random_trec(tmp_path, seed, n_shards=1 + seed % 4)
    metrics = ["ndcg@10", "ndcg_burges@5", "map@100", "mrr", "precision@5", "recall@20", "r_precision",
               "hit_rate@3", "gm_map", "bpref", "num_rel", "num_rel_ret", "P(rel=2)@5", "ERR@10", "Judged@10",
               "ndcg_cut_10", "iprec_at_recall_0.50", "infAP", "num_ret", "set_F.0.5", "11pt_avg", "rbp_resid"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = evaluate(qrels, whole, metrics)
        res = evaluate(qrels, shards, metrics, engine=engine)
        measures = parse_measures(metrics)
        parts, _ = evaluate_batch(RunFiles(as_qrels(qrels), [str(p) for p in shards], n_parts=3), measures, 1, engine)
        tasks = evaluate(qrels, as_run(whole), metrics, engine=_small_shards(engine, 5))
    for got in (res, parts, tasks):
        assert got.metrics == one.metrics                 # bit for bit
        assert got.per_item == one.per_item
        assert got.signature == one.signature
        assert "q-extra" in got.extra["run_only_queries"]
        assert sorted(got.extra["run_only_queries"]) == sorted(one.extra["run_only_queries"])
        assert got.extra["missing_queries"] == one.extra["missing_queries"]
    assert res.inputs["n_partitions"] == 2 * engine.n_workers and parts.inputs["n_partitions"] == 3
    assert res.inputs["n_run_lines"] == one.inputs["n_run_lines"]


class _small_shards:
    """The engine, cutting an in-memory batch into Ray tasks of ``size`` queries."""

    def __init__(self, engine, size: int):
        self.engine, self.items_per_shard = engine, size

    def __getattr__(self, name):
        return getattr(self.engine, name)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=trec_batches())
def test_retrieval_on_ray_equals_one_process_on_random_input(engine, batch):
    """Random qrels and runs (ties, graded and -1 grades, Korean ids, unanswered and run-only
    queries) in Ray tasks of one query each: every family's numbers as in one process."""
    import warnings

    from scorekit.retrieval import evaluate
    from tests.retrieval.test_harness_retrieval import ALL_FAMILIES

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = evaluate(batch.qrels, batch.run, ALL_FAMILIES)
        got = evaluate(batch.qrels, batch.run, ALL_FAMILIES, engine=_small_shards(engine, 1))
    assert got.metrics == one.metrics and got.per_item == one.per_item and got.extra == one.extra


def test_a_bad_shard_fails_the_job_with_its_name_and_line(engine, tmp_path):
    from scorekit.retrieval import evaluate

    qrels, _, shards = _random_trec(tmp_path, 1, n_shards=3)
    lines = shards[1].read_text().splitlines()
    lines[2] = "q-1 Q0 D0000002 0 not-a-number tag"
    shards[1].write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        evaluate(qrels, shards, engine=engine)
    assert str(err.value).startswith(f"{shards[1]}:3:")


def test_a_killed_worker_is_retried_and_the_result_is_unchanged(engine, tmp_path):
    """The first attempt of one task kills its worker process (os._exit) mid-job; Ray retries the
    lost task on a new worker and the merged result still equals one process."""
    import importlib

    from scorekit.retrieval import evaluate

    mod = importlib.import_module("scorekit.retrieval.evaluate")

    qrels, whole, shards = _random_trec(tmp_path, 3, n_shards=3)
    marker = tmp_path / "killed-once"

    def dying_split(path, n_parts, _marker=str(marker), _victim=str(shards[1]), _real=mod._split_file):
        if path == _victim and not os.path.exists(_marker):
            open(_marker, "w").close()
            os._exit(1)
        return _real(path, n_parts)

    original = mod._split_file
    mod._split_file = dying_split
    try:
        res = evaluate(qrels, shards, engine=engine)
    finally:
        mod._split_file = original
    assert marker.exists(), "the worker was never killed"
    one = evaluate(qrels, whole)
    assert res.metrics == one.metrics and res.per_item == one.per_item


# ---------------------------------------------------------------------------- captions
VOCAB_EN = "a man dog cat runs on the beach red ball sits in water big small two people".split()
VOCAB_KO = "남자가 개가 해변에서 달린다 빨간 공을 물속에 앉아 있다 두 사람이 작은 고양이가".split()


def _captions(seed: int, vocab, n: int):
    rng = random.Random(seed)
    sent = lambda: " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9)))  # noqa: E731
    preds = [sent() if rng.random() > 0.05 else "" for _ in range(n)]
    refs = [[sent() for _ in range(rng.randint(1, 5))] for _ in range(n)]
    return preds, refs


@pytest.mark.parametrize("lang, vocab, seed", [("en", VOCAB_EN, 0), ("en", VOCAB_EN, 1), ("ko", VOCAB_KO, 2)])
def test_caption_ngram_metrics_equal_one_process(engine, lang, vocab, seed):
    from scorekit.generation import evaluate

    preds, refs = _captions(seed, vocab, 230)
    names = ["bleu", "cider", "cider_plain", "rouge_l", "rouge_l_coco", "chrf(beta=3)", "bleu_4(mode=sacrebleu)"]
    names += (["meteor", "meteor(alpha=0.85,beta=0.2,gamma=0.6)"] if lang == "ko"
              else ["meteor_nltk", "meteor_nltk(alpha=0.85,beta=0.2,gamma=0.6)"])
    one = evaluate(preds, refs, lang=lang, metrics=names)
    engine.items_per_shard = 37
    try:
        res = evaluate(preds, refs, lang=lang, metrics=names, engine=engine)
    finally:
        del engine.items_per_shard
    assert res.signature == one.signature
    for k, v in one.metrics.items():
        assert abs(res.metrics[k] - v) <= 1e-12, k
    assert max(abs(a[k] - b[k]) for a, b in zip(res.per_item, one.per_item) for k in one.metrics) <= 1e-12


@pytest.mark.slow
def test_caption_bertscore_on_an_actor_pool_equals_one_process(engine):
    pytest.importorskip("torch")
    from scorekit.generation import evaluate

    preds, refs = _captions(5, VOCAB_EN, 150)
    one = evaluate(preds, refs, lang="en", metrics=["bertscore"])
    engine.items_per_shard = 64
    try:
        res = evaluate(preds, refs, lang="en", metrics=["bertscore"], engine=engine)
    finally:
        del engine.items_per_shard
    assert res.signature == one.signature
    # float32 model: batches of other shapes round differently in the last bits
    for k, v in one.metrics.items():
        assert abs(res.metrics[k] - v) <= 1e-6, k
    assert max(abs(a[k] - b[k]) for a, b in zip(res.per_item, one.per_item) for k in one.metrics) <= 1e-6


def test_summary_corpus_metrics_on_ray_are_the_merged_scores(engine):
    """#26: `summary --engine ray -m chrf,bleu_4` averaged per-item values (corpus BLEU-4 0.6334
    on Ray vs 0.6953 in one process on a 250-item set). One driver: the same numbers."""
    from scorekit.summarization.metrics import summary_metrics

    preds, refs = _captions(11, VOCAB_EN, 250)
    preds = [p or "a" for p in preds]
    docs = [" ".join(r) for r in refs]
    names = ["chrf", "bleu_4", "chrf(beta=3)", "cider"]
    one = summary_metrics(preds, refs, docs, bertscorer=None, metrics=names)
    engine.items_per_shard = 40
    try:
        res = summary_metrics(preds, refs, docs, bertscorer=None, metrics=names, engine=engine)
    finally:
        del engine.items_per_shard
    assert res.signature == one.signature and list(res.metrics) == list(one.metrics)
    for k, v in one.metrics.items():
        assert abs(res.metrics[k] - v) <= 1e-12, k
    mean_of_items = float(np.mean([r["chrf"] for r in one.per_item]))
    assert abs(one.metrics["chrf"] - mean_of_items) > 1e-3   # a corpus score, not a mean


# ---------------------------------------------------------------------------- topics
def test_topic_measures_on_ray_equal_one_process(engine):
    """Topic sets cut into shards of topics: SC per topic, SD/CD/topic diversity from the merged
    rows, gensim's coherences with the whole set's topn cut — the one-process numbers."""
    from scorekit.topics import evaluate_topics

    rng = np.random.default_rng(3)
    words = VOCAB_EN + VOCAB_KO
    topics = [list(rng.choice(words, int(rng.integers(2, 7)), replace=False)) for _ in range(23)]
    vectors = [rng.normal(size=(len(t), 16)) for t in topics]
    corpus = [" ".join(rng.choice(words, 12)) for _ in range(60)]
    kw = dict(word_vectors=vectors, corpus=corpus, tokenizer="whitespace",
              metrics=["sc", "sd", "cd", "semdiv", "overall(sis=0.3)", "coherence(topn=4)", "topic_diversity(topk=3)"])
    one = evaluate_topics(topics, **kw)
    engine.items_per_shard = 5
    try:
        res = evaluate_topics(topics, engine=engine, **kw)
    finally:
        del engine.items_per_shard
    assert list(res.metrics) == list(one.metrics) and res.signature == one.signature
    for k, v in one.metrics.items():
        assert abs(res.metrics[k] - v) <= 1e-12, k
    assert res.per_item == one.per_item and res.extra["pairs"] == one.extra["pairs"]


# ---------------------------------------------------------------------------- ABSA, sweep
def test_absa_aggregation_from_shards_equals_one_process(engine, tmp_path):
    from scorekit.absa.aggregate import aggregate_run
    from scorekit.absa.scorecard import make_scorecard
    from scorekit.engine.absa import aggregate_sharded
    from scorekit.io.absa_jsonl import read_outputs

    rows = []
    for run in ("cr_demo__seed42_proposed", "cr_demo__seed123_proposed"):
        rows += read_outputs(ROOT / "examples" / "absa" / "results" / run / "outputs.jsonl").rows
    cards = [make_scorecard(e) for e in rows * 5]
    shards = []
    for i in range(4):
        p = tmp_path / f"scorecards-{i}.jsonl"
        p.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cards[i::4]), encoding="utf-8")
        shards.append(p)
    ordered = [c for i in range(4) for c in cards[i::4]]
    one = aggregate_run(ordered, "r")
    agg, warns, n_rows, n_skipped, ids = aggregate_sharded(engine, shards, "r")
    assert agg.metrics == one.metrics and agg.signature == one.signature
    assert (n_rows, n_skipped, warns) == (len(cards), 0, [])
    assert ids == [str(c.get("text_id")) for c in ordered]


def test_absa_metrics_over_shards_of_rows_equal_one_process(engine):
    from scorekit.absa.aggregate import aggregate_run
    from scorekit.absa.scorecard import make_scorecard
    from scorekit.io.absa_jsonl import read_outputs

    rows = read_outputs(ROOT / "examples" / "absa" / "results" / "cr_demo__seed42_proposed" / "outputs.jsonl").rows
    cards = [make_scorecard(e) for e in rows * 7]
    one = aggregate_run(cards, "r")
    engine.items_per_shard = 9
    try:
        agg = aggregate_run(cards, "r", engine=engine)
    finally:
        del engine.items_per_shard
    assert list(agg.metrics) == list(one.metrics)
    for k, v in one.metrics.items():
        assert (v is None and agg.metrics[k] is None) or abs(agg.metrics[k] - v) <= 1e-12, k


def test_absa_runs_on_ray_are_compared_as_in_one_process(engine, tmp_path):
    """`absa aggregate --engine ray RUN RUN`: the runs read on Ray keep their scorecard ids, so
    they are compared with the first as in one process (before: no comparison block, a warning
    'a run was read from shards on Ray')."""
    from scorekit.absa.runs import aggregate_runs
    from scorekit.absa.scorecard import make_scorecard
    from scorekit.io.absa_jsonl import read_outputs

    runs = []
    for run in ("cr_demo__seed42_proposed", "cr_demo__seed123_proposed"):
        rows = read_outputs(ROOT / "examples" / "absa" / "results" / run / "outputs.jsonl").rows
        (tmp_path / run).mkdir()
        (tmp_path / run / "scorecards.jsonl").write_text(
            "".join(json.dumps(make_scorecard(e), ensure_ascii=False) + "\n" for e in rows), encoding="utf-8")
        runs.append(tmp_path / run)
    one = aggregate_runs(runs)
    res = aggregate_runs(runs, engine=engine)
    assert one.comparison is not None and res.warnings == one.warnings
    assert res.comparison == one.comparison
    assert [r.aggregate.metrics for r in res.runs] == [r.aggregate.metrics for r in one.runs]


def test_sweep_from_document_shards_equals_one_process(engine):
    from scorekit.summarization.sweep import run_sweep

    docs, refs = [], []
    for line in (ROOT / "examples" / "summarization" / "news_en.jsonl").read_text().splitlines():
        d = json.loads(line)
        docs.append(d["document"])
        refs.append(d["reference"])
    kw = dict(ns=[5, 9, 13], summarizers=("lead", "random"), seed=7, n_resamples=200, keep_summaries=True)
    one = run_sweep(docs, refs, **kw)
    res = run_sweep(docs, refs, engine=engine, docs_per_shard=8, **kw)
    assert res.series == one.series and res.recommendation == one.recommendation
    assert res.params == one.params and res.summaries == one.summaries
    for s in one.values:
        for m in one.values[s]:
            assert np.array_equal(res.values[s][m], one.values[s][m])


@pytest.mark.slow
def test_summary_and_sweep_bertscore_on_an_actor_pool_equal_one_process(engine):
    """BERTScore in summary and sweep runs on actors that each load the model once; the numbers
    are one process's (float32 model: 1e-6, as for captions)."""
    pytest.importorskip("torch")
    from scorekit.generation.model_metrics import load_bertscorer
    from scorekit.summarization.metrics import summary_metrics
    from scorekit.summarization.sweep import run_sweep

    bert = {"model": None, "num_layers": None, "allow_english_model": False}
    scorer = load_bertscorer(**bert)
    rows = [json.loads(x) for x in (ROOT / "examples" / "summarization" / "summaries.jsonl").read_text().splitlines()
            if x.strip() and json.loads(x)["id"].startswith("en")]
    preds, refs, docs = ([r[k] for r in rows] for k in ("prediction", "reference", "document"))
    ids = [r["id"] for r in rows]
    one = summary_metrics(preds, refs, docs, ids=ids, bertscorer=scorer, lang="en")
    engine.items_per_shard = 3
    try:
        res = summary_metrics(preds, refs, docs, ids=ids, bertscorer=scorer, lang="en", engine=engine)
    finally:
        del engine.items_per_shard
    assert res.signature == one.signature and set(res.metrics) == set(one.metrics)
    assert "bertscore_f1" in one.metrics or any(k.startswith("bert") for k in one.metrics)
    for k, v in one.metrics.items():
        assert abs(res.metrics[k] - v) <= 1e-6, k
    # BERTScore's parameters in the name grammar: each actor builds the scorer from them (one model
    # for bertscore and the efficiency derived from it)
    names = ["bertscore(num_layers=3,idf=true)", "efficiency", "words"]
    one = summary_metrics(preds, refs, docs, ids=ids, metrics=names)
    engine.items_per_shard = 3
    try:
        res = summary_metrics(preds, refs, docs, ids=ids, metrics=names, engine=engine)
    finally:
        del engine.items_per_shard
    assert res.signature == one.signature and list(res.metrics) == list(one.metrics)
    assert "/L3/idf/" in one.signature
    for k, v in one.metrics.items():
        assert abs(res.metrics[k] - v) <= 1e-6, k
    kw = dict(ns=[5, 9], summarizers=("lead",), seed=3, n_resamples=50)
    sweep_one = run_sweep(docs, refs, ids=ids, bertscorer=scorer, **kw)
    sweep_ray = run_sweep(docs, refs, ids=ids, bertscorer=scorer, engine=engine, docs_per_shard=2, **kw)
    assert set(sweep_ray.values["lead"]) == set(sweep_one.values["lead"])
    for m, v in sweep_one.values["lead"].items():
        assert np.allclose(sweep_ray.values["lead"][m], v, rtol=0, atol=1e-6), m


def test_shards_expand_files_globs_and_folders(tmp_path):
    from scorekit.io.records import expand

    for name in ("b.jsonl", "a.jsonl", "c.parquet", ".hidden.jsonl", "notes.md"):
        (tmp_path / name).write_text("x")
    assert [p.name for p in expand(tmp_path)] == ["a.jsonl", "b.jsonl", "c.parquet"]
    assert [p.name for p in expand(str(tmp_path / "*.jsonl"))] == ["a.jsonl", "b.jsonl"]
    assert [p.name for p in expand([tmp_path / "b.jsonl", str(tmp_path / "*.jsonl")])] == ["b.jsonl", "a.jsonl"]
    with pytest.raises(InputError, match="no such file, folder or matching glob"):
        expand(str(tmp_path / "nothing-*.trec"))


def test_ray_workers_do_not_fork_their_own_processes(engine):
    """Ray places one task per core, so scorekit.forkmap stays in one process inside a task or
    an actor (and splits work over the cores in the driver)."""
    from scorekit.forkmap import default_workers

    @ray.remote
    def task():
        from scorekit.forkmap import default_workers

        return default_workers()

    @ray.remote
    class Actor:
        def workers(self):
            from scorekit.forkmap import default_workers

            return default_workers()

    assert ray.get(task.remote()) == 1
    assert ray.get(Actor.remote().workers.remote()) == 1
    assert default_workers() == len(os.sched_getaffinity(0))


def test_absa_aggregate_cli_writes_the_same_files_on_ray(engine, tmp_path, capsys):
    """`absa aggregate --engine ray RUN RUN` writes what a local run writes, byte for byte (the
    JSON's time of writing aside): each run's derived/metrics/structural_metrics.csv and _table.md
    and the -o JSON (before: Ray wrote no derived/metrics at all)."""
    import shutil

    from scorekit.cli import main

    shutil.copytree(ROOT / "examples" / "absa" / "results", tmp_path / "results")
    runs = [str(tmp_path / "results" / r) for r in ("cr_demo__seed42_proposed", "cr_demo__seed123_proposed")]
    for run in runs:
        assert main(["absa", "scorecards", run, "-q"]) == 0

    def tree() -> dict[str, object]:
        out: dict[str, object] = {}
        for p in sorted((tmp_path / "results").rglob("*")):
            if p.is_file():
                key = str(p.relative_to(tmp_path))
                if p.suffix == ".json" and p.name == "agg.json":
                    def drop(x):   # the time of writing is the only field that may differ
                        if isinstance(x, dict):
                            return {k: drop(v) for k, v in x.items() if k != "created"}
                        return [drop(v) for v in x] if isinstance(x, list) else x
                    out[key] = drop(json.loads(p.read_text(encoding="utf-8")))
                else:
                    out[key] = p.read_bytes()
        return out

    def written() -> None:
        for run in runs:
            shutil.rmtree(Path(run) / "derived", ignore_errors=True)
        (tmp_path / "results" / "agg.json").unlink(missing_ok=True)

    out = str(tmp_path / "results" / "agg.json")
    assert main(["absa", "aggregate", *runs, "-o", out, "-q"]) == 0
    local = tree()
    assert all(f"results/{Path(r).name}/derived/metrics/structural_metrics.csv" in local for r in runs)
    written()
    assert main(["absa", "aggregate", *runs, "--engine", "ray", "-o", out, "-q"]) == 0
    capsys.readouterr()
    on_ray = tree()
    assert sorted(on_ray) == sorted(local)
    for key in local:
        assert on_ray[key] == local[key], key
