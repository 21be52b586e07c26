"""Measure names in ranx, ir_measures and trec_eval syntax: one canonical measure each, results
keyed by the name as written, canonical names in the signature, per-measure relevance levels."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.retrieval import compare, evaluate
from scorekit.retrieval.measures import FAMILIES, Measure
from scorekit.retrieval.names import parse_measure, parse_measures

SAME = [  # (canonical, spellings in the three syntaxes)
    ("map", ["map", "AP", "MAP", "average_precision"]),
    ("map@100", ["map@100", "AP@100", "map_cut_100", "map_cut.100"]),
    ("mrr", ["mrr", "RR", "recip_rank", "MRR"]),
    ("mrr@10", ["mrr@10", "RR@10"]),
    ("ndcg@10", ["ndcg@10", "nDCG@10", "ndcg_cut_10", "NDCG@10", "nDCG(dcg='log2')@10"]),
    ("ndcg_burges@10", ["ndcg_burges@10", "nDCG(dcg='exp-log2')@10"]),
    ("precision@5", ["precision@5", "P@5", "P_5", "P.5", "p@5"]),
    ("precision(rel=2)@5", ["P(rel=2)@5", "precision@5-l2", "P_5-l2"]),
    ("recall@100", ["recall@100", "R@100", "recall_100"]),
    ("recall(rel=2)@100", ["R(rel=2)@100", "recall@100-l2"]),
    ("r_precision", ["r_precision", "Rprec", "r-precision", "R-Precision"]),
    ("bpref", ["bpref", "Bpref"]),
    ("infap", ["infAP", "infap"]),
    ("gm_map", ["gm_map", "GM_MAP"]),
    ("judged@10", ["Judged@10", "judged@10"]),
    ("hit_rate@5", ["hit_rate@5", "Success@5", "success_5", "Hit Rate@5"]),
    ("num_ret", ["NumRet", "num_ret"]),
    ("num_rel_ret", ["NumRelRet", "num_rel_ret"]),
    ("num_rel_ret(rel=2)", ["NumRet(rel=2)", "num_rel_ret-l2"]),
    # no level changes these: trec_eval's -l 2 num_ret is num_ret (ir_measures' rel= switches)
    ("num_ret", ["num_ret-l2"]), ("judged@10", ["Judged(rel=2)@10"]), ("unj@10", ["unj_10-l2"]),
    ("rbp_resid(p=0.9)", ["rbp_resid-l2"]), ("num_q", ["num_q-l3"]),
    ("num_rel", ["NumRel", "num_rel"]),
    ("set_p", ["set_P", "SetP"]),
    ("set_recall", ["set_recall", "SetR"]),
    ("set_f(beta=1)", ["set_F", "SetF", "SetF(beta=1)"]),
    ("iprec_at_recall@0.50", ["iprec_at_recall_0.50", "iprec_at_recall@0.5", "iprec_at_recall.0.5"]),
    ("iprec_v9@0.50", ["IPrec@0.5", "iprec_v9@0.5"]),   # trec_eval 9's cut-off: pytrec_eval, ir_measures
    ("rprec_mult@0.20", ["Rprec_mult_0.20", "Rprec_mult.0.2", "rprec_mult@0.2"]),
    ("relative_p@5", ["relative_P_5", "relative_P.5", "relative_p@5"]),
    ("unj@10", ["unj_10", "unj.10", "unj@10"]),
    ("11pt_avg", ["11pt_avg", "11-pt_avg"]),
    ("bin_g", ["binG", "bin_g"]), ("norm_gain", ["G", "norm_gain"]), ("rndcg", ["Rndcg"]),
    ("ndcg_rel", ["ndcg_rel"]), ("gm_bpref", ["gm_bpref"]), ("utility", ["utility"]),
    ("set_map", ["set_map"]), ("set_relative_p", ["set_relative_P"]), ("num_q", ["num_q"]),
    ("num_nonrel_judged_ret", ["num_nonrel_judged_ret"]),
    ("rbp_trec(p=0.9)", ["rbp_trec", "rbp_trec(p=0.9)"]), ("rbp_resid(p=0.8)", ["rbp_resid(p=0.8)"]),
    ("set_f(beta=0.5)", ["set_F_0.5", "set_F.0.5", "SetF(beta=0.5)"]),
    ("err@10", ["ERR@10", "err@10"]),
    ("rbp(rel=1,p=0.8)", ["RBP(rel=1)", "RBP(p=0.8,rel=1)"]),
    ("rbp_graded(p=0.95)", ["rbp.95", "RBP(p=0.95)"]),
    # ranx's rbp and ir_measures' RBP without rel are graded; ranx's -lN suffix keeps it graded
    ("rbp_graded(p=0.8)", ["rbp", "RBP", "rbp_graded"]), ("rbp_graded(p=0.8)@5", ["rbp@5", "RBP@5"]),
    ("rbp_graded(rel=2,p=0.8)@5", ["rbp@5-l2", "rbp_graded(rel=2)@5"]),
    ("rbp(rel=2,p=0.5)@5", ["RBP(p=0.5,rel=2)@5", "rbp(rel=2,p=0.5)@5"]),
    ("dcg@5", ["dcg@5", "DCG@5"]),
    ("f1@5", ["f1@5", "F1@5"]),
]


@pytest.mark.parametrize("canonical,spellings", SAME)
def test_spellings_map_to_one_canonical_measure(canonical, spellings):
    for s in spellings:
        assert parse_measure(s).name == canonical, s


@st.composite
def measures(draw):
    """Any valid Measure of any family: a cutoff, relevance level and parameter wherever the
    family's declaration takes one (required ones always drawn), within its declared bounds."""
    fam = draw(st.sampled_from(sorted(FAMILIES)))
    spec = FAMILIES[fam]
    ks = st.integers(1, 10**6)
    k = None if spec.cutoff == "none" or spec.param_at else draw(
        ks if spec.cutoff == "required" else st.none() | ks)
    rels = st.integers(1, 50)
    rel = draw(rels if spec.rel == "required" else st.none() | rels if spec.takes_rel else st.none())
    param = None
    if spec.param is not None:
        p = spec.param
        values = st.floats(p.low, p.high, exclude_min=p.strict and p.low is not None,
                           exclude_max=p.strict and p.high is not None, allow_nan=False, allow_infinity=False)
        param = draw(values if p.default is None else st.none() | values | st.sampled_from([p.default, 0.5]))
    return Measure(fam, k, rel, param)


@settings(max_examples=400, deadline=None)
@given(m=measures())
def test_every_measure_reads_back_from_its_canonical_name(m):
    """parse(Measure.name) is that very Measure (family, cutoff, level, parameter), for every
    family and any valid parameters; the generated metric class of those parameters prints the
    same name and computes the same Measure (issue #26: one name, one measure)."""
    from scorekit.metrics import REGISTRY

    assert parse_measure(m.name) == m, m.name
    spec = FAMILIES[m.family]
    params = {"k": m.k} if m.k is not None else {}
    if m.rel is not None:
        params["rel"] = m.rel
    if spec.param is not None:
        params[spec.param.name] = m.param
    metric = REGISTRY.metric_class("retrieval", m.family)(**params)
    assert metric.key() == m.name and metric.measure() == m


@st.composite
def trec_parameters(draw):
    """A family trec_eval names with a parameter suffix (``P.5``, ``set_F.0.5``,
    ``iprec_at_recall.0.25``, ``Rprec_mult.1.40``) and one value as trec_eval's -m takes it."""
    fam = draw(st.sampled_from(sorted(f for f, spec in FAMILIES.items() if spec.trec_cut)))
    spec = FAMILIES[fam]
    if spec.param_at:   # trec_eval prints the level with two decimals
        value = f"{draw(st.integers(0, 100 if spec.param.high else 1000)) / 100:.2f}"
    elif spec.cutoff != "none":
        value = str(draw(st.integers(1, 10**6)))
    else:
        value = repr(draw(st.integers(1, 10**4)) / 100)
    return fam, value


@settings(max_examples=200, deadline=None)
@given(fam_value=trec_parameters(), level=st.none() | st.integers(2, 9))
def test_trec_eval_parameter_suffixes_read_back(fam_value, level):
    """``-m P.5`` is keyed ``P_5``: that key, and the canonical name in the signature, read back
    as the measure computed, with ranx's level suffix too where the family takes a level."""
    from scorekit.retrieval.names import trec_items

    fam, value = fam_value
    spec = FAMILIES[fam]
    [(key, m)] = trec_items(f"{spec.trec_cut}.{value}")
    assert m.family == fam and parse_measure(key) == m and parse_measure(m.name) == m, (key, m)
    if level is not None and spec.rel != "gains":
        leveled = parse_measure(f"{key}-l{level}")
        assert leveled == Measure(fam, m.k, level if spec.takes_rel else None, m.param)
        assert parse_measure(leveled.name) == leveled


@pytest.mark.parametrize("family,k,rel,param,message", [
    ("rbp", 5, None, 0.8, "rbp needs a relevance level, e.g. rbp(rel=1) (written without one, it names rbp_graded)"),
    ("ndcg", 10, 2, None, "uses the grades themselves as gains"),
    ("bpref", 10, None, None, "bpref takes no cutoff"), ("precision", None, None, None, "needs a cutoff"),
    ("iprec_at_recall", None, None, None, "needs a recall level"), ("rbp_graded", None, None, 1.0, "between 0 and 1"),
    ("set_f", None, None, float("nan"), "finite"), ("precision", 0, None, None, "positive integer"),
])
def test_a_measure_built_in_code_is_checked_against_its_declaration(family, k, rel, param, message):
    """Measure() and the generated classes refuse what the family's declaration does not take,
    so no name can be printed that reads back as another measure."""
    from scorekit.metrics import REGISTRY

    with pytest.raises(ScorekitError, match=re.escape(message)):
        Measure(family, k, rel, param)
    params = {n: v for n, v in (("k", k), ("rel", rel)) if v is not None}
    if param is not None:
        params[FAMILIES[family].param.name] = param
    with pytest.raises(ScorekitError):
        REGISTRY.metric_class("retrieval", family)(**params)


def test_a_parameter_at_its_default_or_a_level_that_changes_nothing_is_the_same_measure():
    assert Measure("set_f") == Measure("set_f", param=1.0) == parse_measure("set_F")
    assert Measure("rbp_trec").name == "rbp_trec(p=0.9)"
    assert Measure("num_ret", rel=2) == Measure("num_ret") and Measure("num_ret", rel=2).name == "num_ret"
    from scorekit.metrics import REGISTRY

    with pytest.raises(UnknownNameError):   # the class declares no level to set
        REGISTRY.metric_class("retrieval", "num_ret")(rel=2)


def test_results_keyed_as_written_and_signature_canonical():
    qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"a": 1, "d": 3}}
    run = {"q1": {"a": 0.5, "b": 0.75, "c": 0.25, "x": 1.0}, "q2": {"d": 0.5, "y": 0.75}}
    names = ["nDCG@10", "ndcg_cut_10", "ndcg@10", "P_2", "P@2", "R(rel=2)@100", "recall@100"]
    res = evaluate(qrels, run, names)
    assert list(res.metrics) == names
    assert res.metrics["nDCG@10"] == res.metrics["ndcg_cut_10"] == res.metrics["ndcg@10"]
    assert res.metrics["P_2"] == res.metrics["P@2"] == 0.5
    # recall at grade >= 2 beside recall at grade >= 1 in one run
    assert res.metrics["R(rel=2)@100"] == pytest.approx((1 + 1) / 2)
    assert res.metrics["recall@100"] == pytest.approx((2 / 2 + 1 / 2) / 2)
    assert "|metrics:ndcg@10,precision@2,recall(rel=2)@100,recall@100|rel:1|" in res.signature
    assert set(res.per_item[0]) == {"id", *names}


def test_compare_uses_each_measures_aggregate():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    r1 = {"q1": {"a": 1.0, "z": 0.5}, "q2": {"z": 1.0}}
    r2 = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    c = compare(qrels, [r1, r2], "NumRet,gm_map,AP", names=["one", "two"])
    rows = {r["measure"]: r for r in c.rows}
    assert rows["NumRet"]["baseline_value"] == 3 and rows["NumRet"]["value"] == 2
    assert rows["gm_map"]["baseline_value"] == pytest.approx((1 * 0.00001) ** 0.5)
    assert rows["AP"]["value"] == 1.0


def test_comma_lists_keep_parenthesised_parameters_whole():
    got = [k for k, _ in parse_measures("RBP(p=0.9,rel=2),P(rel=2)@5, nDCG@3")]
    assert got == ["RBP(p=0.9,rel=2)", "P(rel=2)@5", "nDCG@3"]


def test_every_declared_parameter_is_settable_by_its_name():
    """#26: each Param of a retrieval metric class is written name=value in parentheses too, as
    get_metric reads it: the cut-off ``k`` and a parameter written where the cut-off goes
    (iprec's ``recall``, Rprec_mult's ``mult``) - the same measure as the @ form (before:
    "unsupported parameter 'recall' for iprec_at_recall")."""
    from scorekit.metrics import REGISTRY, get_metric

    assert parse_measure("ndcg(k=10)") == parse_measure("ndcg@10")
    assert parse_measure("iprec_at_recall(recall=0.3)") == parse_measure("iprec_at_recall@0.3")
    assert parse_measure("rprec_mult(mult=0.2,rel=2)") == parse_measure("Rprec_mult(rel=2)@0.2")
    for cls in REGISTRY.classes("retrieval"):
        names = {p.name for p in cls.params}
        if not names & {"k", "recall", "mult"}:
            continue
        args = ",".join(f"{p.name}={3 if p.type is int else 0.25}" for p in cls.params
                        if p.name in ("k", "recall", "mult", "rel") and not (p.name == "rel" and cls.name == "rbp_graded"))
        text = f"{cls.name}({args})"
        assert parse_measure(text) == get_metric("retrieval", text).measure(), text
    for bad, why in [("ndcg(k=10)@5", "cutoff is given twice"), ("iprec_at_recall(recall=0.3)@0.5", "given twice"),
                     ("ndcg(k=0)", "positive integer"), ("iprec_at_recall(recall=2)", "between 0 and 1")]:
        with pytest.raises(ScorekitError, match=why):
            parse_measure(bad)


@pytest.mark.parametrize("name,message", [
    ("nDGC@10", "did you mean"), ("nDCG(rel=2)@10", "takes no relevance level"),
    ("RBP(p=1.5,rel=1)", "between 0 and 1"), ("iprec_at_recall", "needs a recall level"),
    ("IPrec@1.5", "between 0 and 1"), ("P(rel=0)@5", "positive integer"),
    ("P(judged_only=True)@5", "unsupported parameter"), ("Bpref@10", "takes no cutoff"),
    ("P(rel)@5", "name=value"), ("SetF(beta=0)", "beta must be positive"),
    ("nDCG(dcg='exp')@10", "dcg must be"), ("P_5-l2(rel=3)", "unknown"),
    ("rbp_trec(rel=2)", "takes no relevance level"), ("RBP(p=nan,rel=1)", "finite"),
    ("Rprec_mult@inf", "finite"),
])
def test_bad_names(name, message):
    with pytest.raises(ScorekitError, match=message.replace("(", r"\(")):
        parse_measure(name)


def test_no_spelling_is_declared_for_two_families():
    from scorekit.retrieval.names import _key

    owner: dict[str, str] = {}
    for fam, spec in FAMILIES.items():
        for s in {_key(x) for x in (fam, *spec.aliases, spec.trec_cut) if x}:
            assert owner.setdefault(s, fam) == fam, (s, owner[s], fam)


def test_a_family_added_to_families_is_parsed_from_its_declaration(monkeypatch):
    """Spellings, trec_eval's cut-off name and defaults, and the parameter's bounds come from the
    Family alone: a new family needs no other edit to be parsed (issue #26)."""
    import numpy as np

    from scorekit.metrics.base import Param
    from scorekit.retrieval import measures as M

    fam = M.Family(lambda j, m: np.zeros(j.n_queries), "optional", "wob_k", "none", aliases=("Wobble", "wb"),
                   trec_cut="wob", trec_defaults=("3", "7"),
                   param=Param("gamma", float, 0.5, "decay", low=0.0, high=2.0))
    monkeypatch.setitem(M.FAMILIES, "wobble_rank", fam)
    assert parse_measure("Wobble@5") == Measure("wobble_rank", 5, None, 0.5)
    assert parse_measure("wb(gamma=1.5,rel=2)@3") == Measure("wobble_rank", 3, 2, 1.5)
    assert parse_measure("wob_10") == Measure("wobble_rank", 10, None, 0.5)
    assert [k for k, _ in parse_measures("wob")] == ["wob_3", "wob_7"]
    assert [k for k, _ in parse_measures("wob.4,9")] == ["wob_4", "wob_9"]
    with pytest.raises(ScorekitError, match="gamma must be between 0 and 2, got 2.5"):
        parse_measure("wobble_rank(gamma=2.5)")
    res = evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["Wobble@5"])
    assert res.metrics == {"Wobble@5": 0.0} and "wobble_rank(gamma=0.5)@5" in res.signature
    with pytest.raises(UnknownNameError):   # gone with its declaration
        monkeypatch.delitem(M.FAMILIES, "wobble_rank")
        parse_measure("Wobble@5")


def test_unknown_name_suggests():
    with pytest.raises(UnknownNameError, match="did you mean 'bpref'"):
        parse_measure("bpre")
