"""Hand-worked examples for every §3–§6 formula and edge case (expected values computed by hand
in the comments)."""

import pytest
from tests.absa.absa_oracle import oracle_metrics
from tests.absa.rows import entry, t

from scorekit.absa.aggregate import aggregate_run
from scorekit.absa.metrics import METRIC_NAMES, compute_metrics
from scorekit.absa.scorecard import make_scorecard
from scorekit.absa.stats import RunStats, f1_pairs, sets_match_with_empty_rule


def metrics_of(entries, summary=None):
    return aggregate_run([make_scorecard(e) for e in entries], override_summary=summary).metrics


# A: fix (review flips 포장)      gold {배송+,포장-} s1 {배송+,포장+} final {배송+,포장-}: F1 .5 -> 1
# B: break (arbiter drops 양)     gold {맛+,양-}   s1 = gold          final {맛+}:     F1 1 -> 2/3
# C: empty gold, empty preds      -> keep by the empty rule, no F1
# D: empty gold, a prediction     -> still (no match before or after), no F1
# E: no gold at all, unguided change
# F: implicit gold ("" , +)       s1 {가격 neu} -> final {"" +}: F1 0 -> 1, implicit F1 1
# G: gold {화면+}, no predictions anywhere: F1 0 -> 0, still
HAND = [
    entry("A", [t("배송", "pos"), t("포장", "positive")], [t("배송", "positive"), t("포장", "negative")],
          [t("배송", "positive"), t("포장", "negative")], review=[{"a": 1}]),
    entry("B", [t("맛", "positive"), t("양", "negative")], [t("맛", "positive")],
          [t("맛", "positive"), t("양", "negative")], arb=[{"drop": "양"}]),
    entry("C", [], [], []),
    entry("D", [t("x", "positive")], [t("x", "positive")], []),
    entry("E", [t("a", "negative")], [t("a", "positive")]),
    entry("F", [t("가격", "neutral")], [{"aspect_term": "", "is_implicit": True, "polarity": "positive"}],
          [t("", "positive")], review=[{"a": 1}]),
    entry("G", [], [], [t("화면", "positive")]),
]


def test_hand_worked_run():
    m = metrics_of(HAND)
    assert m["N"] == 7 and m["N_gold"] == 4 and m["N_gold_annotated"] == 6
    assert m["tuple_f1_s1"] == pytest.approx((0.5 + 1 + 0 + 0) / 4)          # 0.375
    assert m["tuple_f1_s2"] == pytest.approx((1 + 2 / 3 + 1 + 0) / 4)        # 2/3
    assert m["delta_f1"] == pytest.approx(2 / 3 - 0.375)
    assert m["triplet_f1_s1"] == m["tuple_f1_s1"] and m["triplet_f1_s2"] == m["tuple_f1_s2"]
    assert m["tuple_f1_s2_overall"] == m["tuple_f1_s2_raw"] == m["tuple_f1_s2"]
    assert m["tuple_f1_s2_explicit_only"] == pytest.approx((1 + 2 / 3 + 0) / 3)   # rows A, B, G
    assert m["tuple_f1_s2_implicit_only"] == pytest.approx(1.0)                 # row F
    assert m["tuple_f1_s2_after_rep"] == pytest.approx(m["tuple_f1_s2"])        # no duplicates
    assert (m["n_fix"], m["n_break"], m["n_still"], m["n_keep"]) == (2, 1, 2, 1)  # A,F / B / D,G / C
    assert m["fix_rate"] == pytest.approx(2 / 4)
    assert m["break_rate"] == pytest.approx(1 / 2)
    assert m["net_gain"] == pytest.approx((2 - 1) / 7)            # spec §3.3: / N
    assert m["net_gain_annotated"] == pytest.approx((2 - 1) / 6)  # / N_gold_annotated
    assert m["pre_to_post_change_rate"] == m["changed_samples_rate"] == pytest.approx(4 / 7)  # A,B,E,F
    assert m["changed_and_improved_rate"] == pytest.approx(2 / 7)   # A, F
    assert m["changed_and_degraded_rate"] == pytest.approx(1 / 7)   # B
    assert m["review_action_rate"] == pytest.approx(2 / 7)
    assert m["arb_intervention_rate"] == pytest.approx(1 / 7)
    assert m["guided_by_review_rate"] == pytest.approx(3 / 4)      # A,B,F of 4 changes (E unguided)
    assert m["implicit_gold_sample_n"] == 1 and m["implicit_invalid_sample_n"] == 0
    assert m["implicit_invalid_pred_rate"] == 0.0
    assert m["N_pred_final_tuples"] == 5 and m["N_pred_none"] == 2   # C, G have no prediction
    assert m["N_pred_used"] == 2 + 1 + 1 + 0                         # final pairs of A, B, F, G
    assert m["polarity_conflict_rate_raw"] == 0.0 and m["polarity_conflict_rate"] == 0.0
    for key in ("validator_clear_rate", "risk_resolution_rate", "validator_residual_risk_rate",
                "negation_contrast_failure_rate", "outcome_residual_risk_rate"):
        assert m[key] == 0.0   # CR has no validator (§4.3)
    for key in ("override_hint_invalid_total", "override_hint_invalid_rate", "override_hint_repair_total"):
        assert m[key] is None  # §6: no override summary -> N/A
    assert m == pytest.approx({**m, **oracle_metrics(HAND)})


def test_f1_rules():
    g = frozenset({("배송", "positive"), ("포장", "negative")})
    assert f1_pairs(g, g) == 1.0
    assert f1_pairs(g, frozenset()) == 0.0                       # empty prediction
    assert f1_pairs(frozenset(), frozenset()) == 0.0             # empty gold: no F1 (row excluded)
    assert f1_pairs(g, frozenset({("배송", "positive")})) == pytest.approx(2 / 3)   # P=1, R=.5
    # implicit gold matches any one leftover pred with its polarity, one-to-one
    gi = frozenset({("", "positive"), ("배송", "positive")})
    assert f1_pairs(gi, frozenset({("배송", "positive")})) == pytest.approx(2 / 3)  # 배송 used by exact
    assert f1_pairs(gi, frozenset({("배송", "positive"), ("맛", "positive")})) == 1.0
    assert sets_match_with_empty_rule(frozenset(), frozenset())
    assert not sets_match_with_empty_rule(frozenset(), frozenset({("a", "positive")}))
    assert sets_match_with_empty_rule(gi, frozenset({("배송", "positive"), ("맛", "positive")}))
    assert not sets_match_with_empty_rule(g, g | {("extra", "neutral")})


def test_polarity_conflicts_and_representative():
    rows = [
        # raw conflict, resolved: explicit beats implicit
        entry("r1", final=[t("배터리", "positive", grounding="explicit", confidence=0.2),
                           t("배터리", "negative", grounding="implicit", confidence=0.9)],
              gold=[t("배터리", "negative")]),
        # raw conflict, resolved by confidence
        entry("r2", final=[t("소리", "positive", grounding="explicit", confidence=0.4),
                           t("소리", "negative", grounding="explicit", confidence=0.8)], gold=[t("소리", "negative")]),
        # raw conflict, resolved by "no drop_reason"
        entry("r3", final=[t("맛", "positive", drop_reason="low_evidence"), t("맛", "negative")],
              gold=[t("맛", "negative")]),
        # conflict remains: a full tie
        entry("r4", final=[t("색", "positive"), t("색", "negative")], gold=[t("색", "positive")]),
        # no conflict: two implicit tuples name no aspect; same-polarity duplicates
        entry("r5", final=[{"aspect_term": "", "is_implicit": True, "polarity": "positive"},
                           {"aspect_term": "", "is_implicit": True, "polarity": "negative"},
                           t("Size", "neg"), t(" size. ", "negative")], gold=[t("size", "negative")]),
    ]
    m = metrics_of(rows)
    assert m["polarity_conflict_rate_raw"] == pytest.approx(4 / 5)
    assert m["polarity_conflict_rate"] == m["polarity_conflict_rate_after_rep"] == pytest.approx(1 / 5)
    # raw F1 per row: 2/3, 2/3, 2/3, 2/3, r5: pred {("",+),("",-),(size,-)} gold {(size,-)} -> 2*1/(3+1)=.5
    assert m["tuple_f1_s2_raw"] == pytest.approx((4 * 2 / 3 + 0.5) / 5)
    # after rep: r1 {배터리+} -> 0, r2 {소리-} -> 1, r3 {맛-} -> 1, r4 first of tie {색+} -> 1, r5 same .5
    assert m["tuple_f1_s2_after_rep"] == pytest.approx((0 + 1 + 1 + 1 + 0.5) / 5)
    assert m["outcome_residual_risk_rate"] == pytest.approx(1 / 5)


def test_implicit_invalid():
    rows = [
        entry("ok", final=[t("", "negative", is_implicit=True)], gold=[t("", "negative")]),
        entry("no_valid", final=[t("배송", "great")], gold=[t("", "negative")]),       # invalid polarity only
        entry("fallback", final=[{"aspect_term": "", "is_implicit": True}], gold=[t("", "negative")]),
        entry("empty", final=[], gold=[t("", "positive")]),
        entry("explicit_only", final=[], gold=[t("a", "positive")]),                 # not an implicit row
    ]
    parse = entry("parse", final=[t("", "negative", is_implicit=True)], gold=[t("", "negative")],
                  process_trace=[{"stage": "stage1", "agent": "ATSA", "error": "json_parse error"}])
    m = metrics_of(rows + [parse])
    assert m["implicit_gold_sample_n"] == 5
    assert m["implicit_invalid_sample_n"] == 4              # no_valid, fallback, empty, parse
    assert m["implicit_invalid_pred_rate"] == pytest.approx(4 / 5)
    # implicit-only F1: ok 1, no_valid 0, fallback 0 (missing polarity is not valid), empty 0, parse 1
    assert m["tuple_f1_s2_implicit_only"] == pytest.approx(2 / 5)


def test_empty_run_and_na():
    m = compute_metrics(RunStats.empty())
    assert list(m) == list(METRIC_NAMES)
    assert m["N"] == 0 and m["tuple_f1_s1"] is None and m["net_gain"] is None and m["fix_rate"] is None
    assert m["validator_clear_rate"] == 0.0
    only_no_gold = metrics_of([entry("x", [t("a", "positive")], [t("a", "positive")])])
    assert only_no_gold["tuple_f1_s2"] is None and only_no_gold["delta_f1"] is None
    assert only_no_gold["guided_by_review_rate"] is None      # no change at all: 0/0 is N/A


def test_override_summary_passthrough():
    m = metrics_of(HAND[:1], {"override_hint_invalid_total": 3, "override_hint_invalid_rate": 0.25})
    assert m["override_hint_invalid_total"] == 3.0 and m["override_hint_invalid_rate"] == 0.25
    assert m["override_hint_repair_total"] is None


def test_label_change_counts_as_change():
    e = entry("l", [t("a", "positive")], [t("a", "positive")], [t("a", "positive")],
              stage1_ate={"label": "positive"}, stage2_ate={"label": "neg"})
    sc = make_scorecard(e)
    assert sc["stage_delta"]["changed"] and sc["stage_delta"]["label_changed"]
    assert sc["stage_delta"]["change_type"] == "unguided"
    assert metrics_of([e])["pre_to_post_change_rate"] == 1.0


def test_validator_risks():
    """§4.3: a stage-1 risk that stage 2 clears, one left after stage 2, NEGATION/CONTRAST by risk id
    (a dict's ``risk_id`` or a bare string, any case); a non-list ``structural_risks`` is no risk."""
    def card(blocks):
        sc = make_scorecard(entry("v", [t("a", "positive")], [t("a", "positive")]))
        return dict(sc, validator=blocks)

    cards = [card([{"stage": "stage1", "structural_risks": [{"risk_id": "negation_scope"}]}]),
             card([{"stage": "Stage1", "structural_risks": ["x"]},
                   {"stage": "stage2", "structural_risks": ["contrast"]}]),
             card([{"stage": "stage2", "structural_risks": "not a list"}, "not a block"]),
             card([])]
    m = aggregate_run(cards).metrics
    assert m["validator_clear_rate"] == 0.5            # 1 of the 2 stage-1 risks cleared
    assert m["validator_residual_risk_rate"] == 0.25 and m["negation_contrast_failure_rate"] == 0.5
