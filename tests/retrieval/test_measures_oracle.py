"""The wider measure set against its references on hypothesis-generated qrels and runs (ties,
graded and -1 grades, missing and extra queries):

* trec_eval measures (bpref, infAP, gm_map, set_P/recall/F, num_ret/rel/rel_ret,
  iprec_v9, and the classic ones under their trec_eval and ir_measures names) against
  pytrec_eval, each at its own relevance level inside one evaluation;
* the rest of trec_eval's all_trec set (gm_bpref, Rprec_mult, utility, 11pt_avg, binG, G,
  ndcg_rel, Rndcg, relative_P, set_relative_P, set_map, num_nonrel_judged_ret, num_q) against
  pytrec_eval per query; iprec_at_recall and 11pt_avg (trec_eval 10's cut-off lround(L·R),
  pytrec_eval's is trec_eval 9's int(L·R + 0.9)) where the two cut-offs agree, and rbp, rbp_resid
  and unj (trec_eval 10 only) against a line-by-line port of trec_eval 10's C loops;
* ERR@k against gdeval (ir_measures' ``gdeval`` provider; it prints 5 decimals);
* binary RBP against cwl_eval (ir_measures' ``cwl_eval`` provider) and Judged@k against
  ir_measures' ``judged`` provider;
* dcg, dcg_burges, f1, hits and graded rbp against ranx.

Those last references break ties their own way (ascending docid, input order), so on runs with
ties they are given the same rankings with distinct scores in trec_eval's order (``detie``).

Scores are multiples of 1/8 so pytrec_eval's float32 parsing keeps them exact.
"""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytrec_eval = pytest.importorskip("pytrec_eval")

from scorekit.retrieval import evaluate  # noqa: E402

DOCS = ["d1", "d2", "d9", "d10", "d11", "D3", "문서1", "문서2", "a", "z0"]
QUERIES = ["q1", "q2", "q10", "질의", "q3", "q4"]
LEVELS = ("0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00")


@st.composite
def qrels_and_run(draw, ties=True, negative=True, queries=QUERIES, top=3, positive=False, some_judged=False):
    labels = st.integers(-1 if negative else 0, top)
    qrels: dict[str, dict[str, int]] = {}
    for q in draw(st.lists(st.sampled_from(queries), min_size=1, max_size=5, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
        qrels[q] = {d: draw(labels) for d in docs}
        if positive and max(qrels[q].values()) <= 0:
            qrels[q][docs[0]] = 1
        if some_judged and max(qrels[q].values()) < 0:
            qrels[q][docs[0]] = 0
    run: dict[str, dict[str, float]] = {}
    pool = list(qrels) + [queries[-1] + "9"] if draw(st.booleans()) else list(qrels)
    for q in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
        if ties:
            run[q] = {d: draw(st.integers(0, 6)) / 8 for d in docs}
        else:
            vals = draw(st.permutations(list(range(len(docs)))))
            run[q] = {d: v / 8 + 1 for d, v in zip(docs, vals)}
    return qrels, run


def detie(run):
    """The same rankings with distinct scores, in trec_eval's order (score descending, ties by
    docid descending): references that break ties otherwise get scorekit's order this way."""
    out = {}
    for q, docs in run.items():
        ranked = sorted(docs, key=lambda d: (docs[d], d), reverse=True)
        out[q] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return out


def _evaluate(qrels, run, names, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(qrels, run, names, **kw)


# our name (at level t: `{r}` -> the level) -> pytrec_eval key; aggregate; value of a missing query
def _trec_names(t: int):
    lv = "" if t == 1 else f"-l{t}"   # ranx's relevance-level suffix for trec_eval spellings
    names = {
        f"bpref{lv}": "bpref", f"Bpref(rel={t})": "bpref",
        f"infAP{lv}": "infAP", f"infAP(rel={t})": "infAP",
        f"gm_map{lv}": "gm_map",
        f"set_P{lv}": "set_P", f"SetP(rel={t})": "set_P",
        f"set_recall{lv}": "set_recall", f"SetR(rel={t})": "set_recall",
        f"set_F{lv}": "set_F", f"SetF(rel={t},beta=1)": "set_F",
        f"num_ret{lv}": "num_ret", "NumRet": "num_ret",
        f"num_rel_ret{lv}": "num_rel_ret", f"NumRet(rel={t})": "num_rel_ret",
        f"num_rel{lv}": "num_rel",
        f"Rprec{lv}": "Rprec", f"Rprec(rel={t})": "Rprec",
        f"recip_rank{lv}": "recip_rank", f"RR(rel={t})": "recip_rank",
        f"map{lv}": "map", f"AP(rel={t})": "map",
        f"P_5{lv}": "P_5", f"P(rel={t})@5": "P_5",
        # trec_eval's -m P.2 is keyed as trec_eval prints it (P_2); with ranx's -l suffix, as written
        (f"P.2{lv}" if lv else "P_2"): "P_2",
        f"recall_3{lv}": "recall_3", f"R(rel={t})@3": "recall_3",
        f"success_2{lv}": "success_2", f"Success(rel={t})@2": "success_2",
        f"map_cut_3{lv}": "map_cut_3", f"AP(rel={t})@3": "map_cut_3",
    }
    for lvl in LEVELS:   # pytrec_eval rounds the cut-off as trec_eval 9: scorekit's iprec_v9 (IPrec)
        names[f"iprec_v9@{lvl}{lv}"] = f"iprec_at_recall_{lvl}"
    names[f"IPrec(rel={t})@0.3"] = "iprec_at_recall_0.30"
    return names


GAIN_NAMES = {"ndcg_cut_3": "ndcg_cut_3", "nDCG@3": "ndcg_cut_3", "ndcg@5": "ndcg_cut_5"}
TREC_SET = {"bpref", "infAP", "gm_map", "set_P", "set_recall", "set_F", "num_ret", "num_rel",
            "num_rel_ret", "Rprec", "recip_rank", "map", "P.2,5", "recall.3", "success.2",
            "map_cut.3", "iprec_at_recall", "ndcg_cut.3,5"}


def _expected(qrels, run, names, t):
    run = {q: docs for q, docs in run.items() if q in qrels}
    res = pytrec_eval.RelevanceEvaluator(qrels, TREC_SET, relevance_level=t).evaluate(run)
    out = {}
    for ours, key in names.items():
        vals = []
        for q in qrels:
            if q in res:
                vals.append(res[q][key])
            elif key == "gm_map":
                vals.append(math.log(0.00001))
            elif key == "num_rel":
                vals.append(sum(g >= t for g in qrels[q].values()))
            else:
                vals.append(0.0)
        if key == "gm_map":
            out[ours] = math.exp(sum(vals) / len(vals))
        elif key.startswith("num_"):
            out[ours] = sum(vals)
        else:
            out[ours] = sum(vals) / len(vals)
    return out


@settings(max_examples=60, deadline=None)
@given(qrels_and_run(), st.sampled_from([1, 2]))
def test_trec_eval_measures_each_at_its_own_level(data, t):
    qrels, run = data
    names = _trec_names(t)
    # the level-1 measures and the gain measures ride in the same evaluation
    base = {n: k for n, k in _trec_names(1).items()} if t != 1 else {}
    expected = {**_expected(qrels, run, names, t), **_expected(qrels, run, base, 1),
                **_expected(qrels, run, GAIN_NAMES, 1)}
    got = _evaluate(qrels, run, list(expected), rel_threshold=1).metrics
    assert list(got) == list(expected)  # keyed by the names as written, in order
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name


TREC10 = ["gm_bpref", "Rprec_mult", "utility", "binG", "G", "ndcg_rel", "Rndcg", "relative_P.2,5", "set_relative_P",
          "set_map", "num_nonrel_judged_ret", "num_q", "11pt_avg", "iprec_at_recall"]
_MISSING = {"gm_bpref": math.log(0.00001), "num_q": 1.0}   # a query the run misses (trec_eval -c)


def _cuts_agree(n_rel: int, levels) -> bool:
    """Do trec_eval 9's int(L·R + 0.9) and 10's lround(L·R) give the same cut-off at every level?"""
    return all(int(L * n_rel + 0.9) == int(math.floor(L * n_rel + 0.5)) for L in levels)


@settings(max_examples=60, deadline=None)
@given(qrels_and_run(some_judged=True), st.sampled_from([1, 2]))
def test_trec_eval_10_set_equals_pytrec_eval_per_query(data, t):
    """(A query whose judgements are all negative crashes or hangs trec_eval 9's G, ndcg_rel,
    Rndcg and gm_bpref in pytrec_eval, so every query here has a grade >= 0 beside its -1s.)"""
    qrels, run = data
    res = _evaluate(qrels, run, ",".join(TREC10), rel_threshold=t)
    rows = {row["id"]: row for row in res.per_item}
    keys = [k for k in res.metrics]
    assert {"Rprec_mult_0.20", "Rprec_mult_2.00", "relative_P_5", "11pt_avg", "iprec_at_recall_0.50"} <= set(keys)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(TREC10), relevance_level=t).evaluate(
        {q: d for q, d in run.items() if q in qrels})
    levels = [float(x) for x in LEVELS]
    for q in qrels:
        n_rel = sum(g >= t for g in qrels[q].values())
        for k in keys:
            if k == "11pt_avg" and not _cuts_agree(n_rel, levels):
                continue
            if k.startswith("iprec_at_recall_") and not _cuts_agree(n_rel, [float(k.rsplit("_", 1)[1])]):
                continue
            want = theirs[q][k] if q in theirs else _MISSING.get(k, 0.0)
            assert rows[q][k] == pytest.approx(want, rel=1e-12, abs=1e-12), (q, k)
    # the corpus values: the mean, exp of the mean of logs for gm_bpref, the sum for the counts
    assert res.metrics["num_q"] == len(qrels)
    assert res.metrics["gm_bpref"] == pytest.approx(math.exp(sum(rows[q]["gm_bpref"] for q in qrels) / len(qrels)))


def _trec10_loops(qrels: dict, ranked: list[str], p: float = 0.9, cuts=(5, 10, 20)) -> tuple[float, float, list[float]]:
    """trec_eval 10's m_rbp.c, m_rbp_resid.c and m_unjudged.c for one query, loop for loop
    (gains normalised by the highest grade when it exceeds 1)."""
    grades = [qrels[d] if d in qrels else -1 for d in ranked]     # -1: not in the pool
    top = max([g for g in qrels.values() if g >= 0], default=0)
    gain = {lvl: (lvl / top if top > 1 else float(lvl)) for lvl in range(top + 1)}
    total, resid, cur, unj_n = 0.0, 0.0, 1.0, 0
    for g in grades:
        total += gain.get(g, 0.0) * cur
        if g < 0:
            unj_n += 1
            resid += cur
        cur *= p
    unj = []
    for k in cuts:
        unj.append(sum(g < 0 for g in grades[:k]) / k)
    return (1 - p) * total, (cur + (1 - p) * resid) if unj_n else 0.0, unj


@settings(max_examples=60, deadline=None)
@given(qrels_and_run(), st.sampled_from([0.5, 0.9]))
def test_trec_eval_10_only_measures_equal_its_loops(data, p):
    qrels, run = data
    names = [f"rbp_trec(p={p})", f"rbp_resid(p={p})", "unj"]
    rows = {row["id"]: row for row in _evaluate(qrels, run, names).per_item}
    for q in qrels:
        docs = run.get(q, {})
        ranked = sorted(docs, key=lambda d: (docs[d], d), reverse=True)
        rbp, resid, unj = _trec10_loops(qrels[q], ranked, p)
        assert rows[q][names[0]] == pytest.approx(rbp, rel=1e-12, abs=1e-15), q
        assert rows[q][names[1]] == pytest.approx(resid, rel=1e-9, abs=1e-12), q
        assert [rows[q][f"unj_{k}"] for k in (5, 10, 20)] == pytest.approx(unj, abs=1e-15), q


@settings(max_examples=25, deadline=None)
@given(qrels_and_run(queries=["1", "2", "10", "3", "4", "5"], top=4, positive=True))
def test_err_equals_gdeval(data):
    ir_measures = pytest.importorskip("ir_measures")
    provider = ir_measures.providers.registry["gdeval"]
    if not provider.is_available():
        pytest.skip("gdeval needs perl")
    qrels, run = data
    run = {q: d for q, d in run.items() if q in qrels}
    if not run:
        return
    ks = (1, 3, 10)
    per_q = {(m.query_id, str(m.measure)): m.value
             for m in provider.iter_calc([ir_measures.ERR @ k for k in ks], qrels, run)}
    res = _evaluate(qrels, run, [f"ERR@{k}" for k in ks])
    rows = {row["id"]: row for row in res.per_item}
    for k in ks:
        for q in qrels:
            want = per_q.get((q, f"ERR@{k}"), 0.0)
            assert rows[q][f"ERR@{k}"] == pytest.approx(want, abs=5.1e-6), (q, k)


@settings(max_examples=40, deadline=None)
@given(qrels_and_run(), st.sampled_from([0.5, 0.8, 0.95]), st.sampled_from([1, 2]))
def test_binary_rbp_equals_cwl_eval(data, p, rel):
    ir_measures = pytest.importorskip("ir_measures")
    provider = ir_measures.providers.registry["cwl_eval"]
    if not provider.is_available():
        pytest.skip("cwl_eval not installed")
    qrels, run = data
    run = {q: d for q, d in run.items() if q in qrels}
    if not run:
        return
    measure = ir_measures.RBP(p=p, rel=rel)
    theirs = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, detie(run))}
    name = f"RBP(p={p},rel={rel})"
    rows = {row["id"]: row for row in _evaluate(qrels, run, [name]).per_item}
    for q in qrels:
        assert rows[q][name] == pytest.approx(theirs.get(q, 0.0), abs=1e-12), q


@settings(max_examples=40, deadline=None)
@given(qrels_and_run())
def test_judged_equals_ir_measures(data):
    ir_measures = pytest.importorskip("ir_measures")
    provider = ir_measures.providers.registry["judged"]
    qrels, run = data
    run = {q: d for q, d in run.items() if q in qrels}
    if not run:
        return
    ks = (1, 3, 5, 20)
    theirs = {(m.query_id, str(m.measure)): m.value
              for m in provider.iter_calc([ir_measures.Judged @ k for k in ks], qrels, detie(run))}
    rows = {row["id"]: row for row in _evaluate(qrels, run, [f"Judged@{k}" for k in ks]).per_item}
    for q in qrels:
        for k in ks:
            assert rows[q][f"Judged@{k}"] == pytest.approx(theirs.get((q, f"Judged@{k}"), 0.0), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(qrels_and_run(negative=False), st.sampled_from([1, 2]))
def test_ranx_only_measures_equal_ranx(data, t):
    ranx = pytest.importorskip("ranx")
    qrels, run = data
    run = {q: run.get(q, {"__none__": 0.0}) for q in qrels}
    names = [f"{m}@{k}" for m in ("dcg", "dcg_burges") for k in (1, 3, 5)]
    names += [f"{m}@{k}-l{t}" for m in ("f1", "hits") for k in (1, 3, 5)]
    names += [f"rbp.{p}-l{t}" for p in ("5", "8", "95")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(detie(run)), names)
    got = _evaluate(qrels, run, names).metrics
    for name in names:
        assert got[name] == pytest.approx(expected[name], abs=1e-9), name
