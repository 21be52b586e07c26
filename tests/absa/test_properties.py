"""Properties over random rows: rates in [0, 1], net_gain = (n_fix - n_break)/N (and /N_gold_annotated), shard merging,
and agreement with the naive per-row oracle (tests/absa/absa_oracle.py)."""

import math

import numpy as np
import pytest
from tests.absa.absa_oracle import oracle_metrics
from hypothesis import given
from hypothesis import strategies as st

from scorekit.absa.aggregate import aggregate_run
from scorekit.absa.metrics import F1_METRICS, RATE_METRICS, compute_metrics
from scorekit.absa.scorecard import make_scorecard
from scorekit.absa.stats import RunStats, stats_matrix

TERMS = ["배송", "포장", "가격", "Battery", "battery.", " 화면 ", "", "\u1107\u1162\u11bc\u1109\u1169\u11bc"]  # last: NFD 배송
POLS = ["positive", "negative", "neutral", "pos", "NEG", "긍정", "mixed", "", None, "great"]

tuple_st = st.builds(
    lambda term, pol, imp, g, c, dr: {k: v for k, v in {
        "aspect_term": term, "polarity": pol, "is_implicit": imp, "grounding": g, "confidence": c,
        "drop_reason": dr}.items() if v is not None},
    st.sampled_from(TERMS), st.sampled_from(POLS), st.sampled_from([None, True, False]),
    st.sampled_from([None, "explicit", "implicit"]), st.sampled_from([None, 0.1, 0.5, 0.9]),
    st.sampled_from([None, "", "low_evidence"]),
)
tuples_st = st.one_of(st.none(), st.lists(tuple_st, max_size=4))
gold_st = st.one_of(st.just("absent"), st.lists(st.builds(
    lambda term, pol: {"aspect_term": term, "polarity": pol},
    st.sampled_from(TERMS), st.sampled_from(["positive", "negative", "neutral"])), max_size=3))


@st.composite
def entry_st(draw):
    fr = {k: v for k, v in {"stage1_tuples": draw(tuples_st), "final_tuples": draw(tuples_st),
                            "final_aspects": draw(tuples_st)}.items() if v is not None}
    e = {"meta": {"text_id": "x"}, "final_result": fr,
         "analysis_flags": {"review_actions": draw(st.sampled_from([[], [{"a": 1}]])),
                            "arb_actions": draw(st.sampled_from([[], [{"b": 1}]]))}}
    inputs = {}
    asp = draw(tuples_st)
    if asp is not None:
        inputs["aspect_sentiments"] = asp
    gold = draw(gold_st)
    if gold != "absent":
        inputs["gold_tuples"] = gold
    if inputs:
        e["inputs"] = inputs
    if draw(st.booleans()):
        e["process_trace"] = [{"stage": "stage1", "agent": "ATSA", "output": {"aspect_sentiments": draw(tuples_st)}}]
    return e


runs = st.lists(entry_st(), min_size=0, max_size=25)


@given(runs)
def test_rates_bounded_and_net_gain(entries):
    m = aggregate_run([make_scorecard(e) for e in entries]).metrics
    for name in RATE_METRICS + F1_METRICS:
        v = m[name]
        assert v is None or 0.0 <= v <= 1.0 + 1e-12, (name, v)
    if m["N"]:
        assert m["net_gain"] == pytest.approx((m["n_fix"] - m["n_break"]) / m["N"])
        assert -1.0 <= m["net_gain"] <= 1.0
    else:
        assert m["net_gain"] is None
    if m["N_gold_annotated"]:
        assert m["net_gain_annotated"] == pytest.approx((m["n_fix"] - m["n_break"]) / m["N_gold_annotated"])
        assert -1.0 <= m["net_gain_annotated"] <= 1.0
        assert abs(m["net_gain"]) <= abs(m["net_gain_annotated"]) + 1e-12
        assert m["n_fix"] + m["n_break"] + m["n_still"] + m["n_keep"] == m["N_gold_annotated"]
    else:
        assert m["net_gain_annotated"] is None
    if m["delta_f1"] is not None:
        assert m["delta_f1"] == pytest.approx(m["tuple_f1_s2"] - m["tuple_f1_s1"])
    assert m["polarity_conflict_rate"] is None or m["polarity_conflict_rate"] <= m["polarity_conflict_rate_raw"]
    assert m["N_pred_final_tuples"] + m["N_pred_final_aspects"] + m["N_pred_inputs_aspect_sentiments"] \
        + m["N_pred_none"] == m["N"] == len(entries)


@given(runs)
def test_matches_naive_oracle(entries):
    m = aggregate_run([make_scorecard(e) for e in entries]).metrics
    expected = oracle_metrics(entries)
    for name, value in expected.items():
        if value is None:
            assert m[name] is None, name
        else:
            assert m[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name


@given(runs, st.integers(min_value=1, max_value=4))
def test_shards_merge_equals_whole(entries, n_shards):
    cards = [make_scorecard(e) for e in entries]
    whole = compute_metrics(RunStats.from_records(cards))
    merged = RunStats.empty()
    for shard in np.array_split(np.arange(len(cards)), n_shards):
        merged = merged + RunStats.from_records([cards[i] for i in shard])
    parts = compute_metrics(merged)
    for name, value in whole.items():
        if value is None:
            assert parts[name] is None
        else:
            assert parts[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name


@given(runs)
def test_stats_rows_are_finite(entries):
    mat = stats_matrix([make_scorecard(e) for e in entries])
    assert mat.shape[0] == len(entries) and all(math.isfinite(v) for v in mat.ravel())
