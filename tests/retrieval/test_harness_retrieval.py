"""Every retrieval measure family through the shared oracle harness (tests/harness.py): one case
per family of :data:`scorekit.retrieval.measures.FAMILIES`, built from its declaration, so a
family added there is checked (and counted by tests/metrics/test_harness_coverage.py) with no
edit here.

A batch is a qrels and a run (hypothesis: ties, graded and -1 grades, Korean ids, queries the run
misses and run queries the qrels lack); its items are the qrels' queries, a shard is a subset of
them (the run's lines of those queries), and the metric is fed what the evaluation computes on:
a :class:`~scorekit.retrieval.evaluate.RetrievalBatch` of the readers' qrels and run. Oracle:
pytrec_eval where it has the measure (the family's ``trec_eval`` name), evaluated per query with
an empty ranking for a query the run misses, as ``trec_eval -c``; the other families' references
(ranx, ir_measures, gdeval, cwl_eval) are compared in the test file ``oracle_test`` names. No
queries is the readers' one-line error ("empty qrels"), not NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.metrics import REGISTRY
from scorekit.retrieval.measures import FAMILIES
from tests.harness import MetricCase, Shape, harness_test

DOCS = ["d1", "d2", "d9", "d10", "D3", "문서1", "문서2", "a", "z0"]
QUERIES = ["q1", "q2", "q10", "질의", "질의2", "q3"]
CUTOFF = 3
RECALL_LEVEL = 0.3


@dataclass
class TrecBatch:
    qrels: dict[str, dict[str, int]]      # items: the qrels' queries, in this order
    run: dict[str, dict[str, float]]


def _slice(b: TrecBatch, a: int, c: int) -> TrecBatch:
    """Queries ``a..c-1`` of the qrels with their run lines; run queries the qrels lack ride in
    every shard (they are ignored). A shard may have no run line: its queries are all unanswered."""
    qrels = {q: b.qrels[q] for q in list(b.qrels)[a:c]}
    return TrecBatch(qrels, {q: docs for q, docs in b.run.items() if q in qrels or q not in b.qrels})


def _text(b: TrecBatch, fn, everything: bool = True) -> TrecBatch:
    """``fn`` on the ids of the run (and of the qrels too, with ``everything``)."""
    qrels = {fn(q): {fn(d): g for d, g in docs.items()} for q, docs in b.qrels.items()} if everything else b.qrels
    return TrecBatch(qrels, {fn(q): {fn(d): s for d, s in docs.items()} for q, docs in b.run.items()})


def retrieval_batch(b: TrecBatch):
    """What the classes compute on: the readers' qrels and run (none: no run line)."""
    from scorekit.retrieval.evaluate import RetrievalBatch
    from scorekit.retrieval.inputs import as_qrels, as_run

    return RetrievalBatch(as_qrels(b.qrels), as_run(b.run) if b.run else None)


TREC = Shape("qrels+run, items = qrels queries", size=lambda b: len(b.qrels), slice=_slice, text=_text,
             feed=retrieval_batch)


@st.composite
def trec_batches(draw):
    qrels: dict[str, dict[str, int]] = {}
    for q in draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=5, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        qrels[q] = {d: draw(st.integers(-1, 3)) for d in docs}
    pool = list(qrels) + ["q_run_only"]
    answered = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
    # scores are multiples of 1/8 (pytrec_eval reads them as float32); ties are frequent
    run = {q: {d: draw(st.integers(0, 6)) / 8
               for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))}
           for q in answered}
    return TrecBatch(qrels, run)


def family_params(fam: str) -> dict:
    """The parameters a family's case runs with: a cutoff where the family takes one (none where
    trec_eval spells the family without one, so pytrec_eval can be its oracle), a relevance level
    where the family needs one (binary rbp), a recall level for a family whose parameter is one,
    the family's default otherwise."""
    spec = FAMILIES[fam]
    names = [n.strip() for n in spec.trec_eval.split("/") if n.strip()]
    params: dict = {}
    if spec.cutoff == "required" or (spec.cutoff == "optional" and
                                     (not names or any(n.endswith("_k") for n in names))):
        params["k"] = CUTOFF
    if spec.rel == "required":
        params["rel"] = 1
    if spec.param is not None and spec.param.default is None:   # a level the family needs
        params[spec.param.name] = RECALL_LEVEL if spec.param.name == "recall" else 1.0
    return params


# pytrec_eval is trec_eval 9: its iprec_at_recall is scorekit's iprec_v9; trec_eval 10's rounding
# (iprec_at_recall, 11pt_avg) is checked line by line against trec_eval 10's own outputs in
# tests/retrieval/test_trec_eval_suite.py. trec_eval 9 crashes or hangs on G, ndcg_rel, Rndcg and
# gm_bpref when a query's judgements are all negative (these batches have such queries): those are
# compared with pytrec_eval in tests/retrieval/test_measures_oracle.py, on qrels that avoid it.
PYTREC_NAMES = {"iprec_v9": "iprec_at_recall_L", "iprec_at_recall": "", "11pt_avg": "", "norm_gain": "",
                "ndcg_rel": "", "rndcg": "", "gm_bpref": ""}


def trec_eval_name(fam: str, params: dict) -> tuple[str, str] | None:
    """(pytrec_eval measure, key of its per-query value) for the family's measure, or None when
    pytrec_eval has no such measure."""
    import pytrec_eval

    k, level = params.get("k"), params.get("recall")
    for name in (n.strip() for n in PYTREC_NAMES.get(fam, FAMILIES[fam].trec_eval).split("/") if n.strip()):
        if name.endswith("_k") and k is not None:
            base, measure, key = name[:-2], f"{name[:-2]}.{k}", f"{name[:-2]}_{k}"
        elif name.endswith("_L") and level is not None:
            base, measure, key = name[:-2], name[:-2], f"{name[:-2]}_{level:.2f}"
        elif not name.endswith(("_k", "_L")) and k is None and level is None:
            base, measure, key = name, name, name
        else:
            continue
        if base in pytrec_eval.supported_measures:
            return measure, key
    return None


_AGGREGATE = {"mean": lambda v: float(np.mean(v)), "sum": lambda v: float(np.sum(v)),
              "geometric": lambda v: math.exp(float(np.mean(v)))}   # pytrec_eval's gm_map is ln(AP) per query


def pytrec_oracle(fam: str, params: dict, measure: str, key: str):
    def oracle(b: TrecBatch):
        import pytrec_eval

        # every qrels query evaluated, an unanswered one on an empty ranking (trec_eval -c); the
        # measure's own relevance level is trec_eval's -l
        run = {q: b.run.get(q, {}) for q in b.qrels}
        level = params.get("rel") or 1
        res = pytrec_eval.RelevanceEvaluator(b.qrels, {measure}, relevance_level=level).evaluate(run)
        # pytrec_eval gives 0/0 (NaN) for iprec_at_recall_0.00 of an empty ranking; trec_eval -c: 0
        values = [0.0 if math.isnan(res[q][key]) else res[q][key] for q in b.qrels]
        ours = REGISTRY.metric_class("retrieval", fam)(**params).key()
        return {ours: _AGGREGATE[FAMILIES[fam].aggregate](values)}, {ours: values}
    return oracle


def family_case(fam: str, rel: int | None = None) -> MetricCase:
    params = family_params(fam) | ({"rel": rel} if rel is not None else {})
    trec = trec_eval_name(fam, params)
    return MetricCase(REGISTRY.metric_class("retrieval", fam), params, batches=trec_batches(), shape=TREC,
                      oracle=pytrec_oracle(fam, params, *trec) if trec else None,
                      oracle_test="" if trec else f"tests/retrieval/test_measures_oracle.py ({FAMILIES[fam].reference})",
                      rel=1e-12, empty="error", max_examples=12)


HARNESS_CASES = [family_case(fam) for fam in FAMILIES] + [
    # the relevance level as a parameter (recall(rel=2)@3), where pytrec_eval can check it: -l 2
    family_case(fam, rel=2) for fam, spec in FAMILIES.items()
    if spec.takes_rel and trec_eval_name(fam, family_params(fam))]

test_harness = harness_test(HARNESS_CASES)


def test_pytrec_eval_is_the_oracle_of_every_family_it_has():
    """The families whose trec_eval measure pytrec_eval computes are checked against it here,
    not only named elsewhere."""
    with_oracle = {c.cls.name for c in HARNESS_CASES if c.oracle is not None}
    assert {"precision", "recall", "map", "ndcg", "mrr", "gm_map", "bpref", "infap", "set_f", "num_rel",
            "iprec_v9", "hit_rate", "r_precision"} <= with_oracle


def _parsed_family(case: MetricCase) -> str:
    from scorekit.retrieval.names import parse_measure

    return parse_measure(case.make().key()).family


@settings(max_examples=10, deadline=None)
@given(batch=trec_batches())
def test_evaluate_computes_through_the_generated_classes(batch):
    """evaluate() is the classes the harness checks: every measure is computed by its family's
    class (item_stats, then score and item_scores), once per distinct measure however many
    spellings name it, all on one join of the run; its numbers are the class's own."""
    import importlib
    import warnings

    from scorekit.retrieval import evaluate
    from scorekit.retrieval.metric import RetrievalMeasure

    mod = importlib.import_module("scorekit.retrieval.evaluate")
    joins, calls = [], []
    cases = [c for c in HARNESS_CASES if _parsed_family(c) == c.cls.name]
    keys = [c.make().key() for c in cases]
    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        judge, stats = mod.judge, RetrievalMeasure.item_stats
        mp.setattr(mod, "judge", lambda *a, **k: joins.append(1) or judge(*a, **k))
        mp.setattr(RetrievalMeasure, "item_stats", lambda self, b: calls.append(self.key()) or stats(self, b))
        warnings.simplefilter("ignore")
        res = evaluate(batch.qrels, batch.run, keys + [keys[0].upper()])   # one measure written twice
    assert len(joins) == 1, "the run was joined more than once"
    assert sorted(calls) == sorted(keys), "a measure was not computed by its class, or twice"
    whole = retrieval_batch(batch)
    for case, key in zip(cases, keys):
        m = case.make()
        stats = m.item_stats(whole)
        assert res.metrics[key] == m.score(stats)[key], key
        np.testing.assert_array_equal([row[key] for row in res.per_item], m.item_scores(stats)[key], err_msg=key)
    assert res.metrics[keys[0].upper()] == res.metrics[keys[0]]


def _engines_agree(qrels, run, metrics, tmp_path=None) -> None:
    """evaluate() in one process, in forked query shards and on the driver cut into shards of one
    and two queries: the same corpus and per-query values, bit for bit."""
    import warnings

    from scorekit.retrieval import evaluate
    from scorekit.retrieval.evaluate import evaluate_batch, run_batch
    from scorekit.retrieval.inputs import as_qrels
    from scorekit.retrieval.names import parse_measures
    from tests.harness import ShardingExecutor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = evaluate(qrels, run, metrics)
        forked = evaluate(qrels, run, metrics, engine="fork")
        measures = parse_measures(metrics)
        for size in (1, 2):
            ex = ShardingExecutor(size)
            cut, _ = evaluate_batch(run_batch(as_qrels(qrels), run, 1), measures, 1, ex)
            assert ex.calls == -(-one.inputs["n_queries"] // size)
            assert cut.metrics == one.metrics and cut.per_item == one.per_item
    assert forked.metrics == one.metrics and forked.per_item == one.per_item
    assert forked.signature == one.signature and forked.extra == one.extra


ALL_FAMILIES = ",".join(case.make().key() for case in HARNESS_CASES if _parsed_family(case) == case.cls.name)


@settings(max_examples=15, deadline=None)
@given(batch=trec_batches())
def test_one_process_forked_and_shards_agree_on_random_input(batch):
    _engines_agree(batch.qrels, batch.run, ALL_FAMILIES)


def test_one_process_forked_and_shards_agree_on_the_examples(tmp_path):
    """Also the hash-partitioned shard function of a run given as files (Ray's), run here:
    every run's lines dealt over three files, in one to five partitions."""
    import warnings
    from pathlib import Path

    from scorekit.retrieval import evaluate
    from scorekit.retrieval.evaluate import RunFiles, evaluate_batch
    from scorekit.retrieval.inputs import as_qrels
    from scorekit.retrieval.names import parse_measures

    ex = Path(__file__).resolve().parents[2] / "examples" / "retrieval"
    metrics = ALL_FAMILIES + ",all_trec"
    for run in ("run_v1.txt", "run_v2.txt"):
        _engines_agree(str(ex / "qrels.txt"), str(ex / run), metrics)
        lines = (ex / run).read_text(encoding="utf-8").splitlines()
        files = [tmp_path / f"{run}-{i}.trec" for i in range(3)]
        for i, f in enumerate(files):
            f.write_text("\n".join(lines[i::3]) + "\n", encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one = evaluate(ex / "qrels.txt", ex / run, metrics)
            for n in range(1, 6):
                got, _ = evaluate_batch(RunFiles(as_qrels(ex / "qrels.txt"), [str(f) for f in files], n_parts=n),
                                        parse_measures(metrics), 1)
                assert got.metrics == one.metrics and got.per_item == one.per_item, n
                assert got.inputs["n_run_lines"] == len(lines) and got.name == one.name


def test_every_generated_class_key_reads_back_as_its_family():
    """Each case's key (the canonical name) parses back to the very measure its class computes:
    binary rbp's key carries its rel (``rbp(rel=1,p=0.8)@3``), so it is not read as ranx's graded
    rbp; num_ret has no rel to print, so its key is not ir_measures' NumRet(rel=2)."""
    from scorekit.retrieval.names import parse_measure

    wrong = {m.key(): parse_measure(m.key()) for m in (c.make() for c in HARNESS_CASES)
             if parse_measure(m.key()) != m.measure()}
    assert not wrong, wrong
    assert {c.make().key() for c in HARNESS_CASES if c.cls.name == "rbp"} == {"rbp(rel=1,p=0.8)@3"}
