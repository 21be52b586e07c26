"""Metadata of every ABSA metric (spec §3–§6) that ``scorekit absa aggregate`` and
``aggregate-seeds`` write: kind of value, direction and a one-line formula (docs/absa.md has the
denominators). A count is ``kind="count"``; a rate of something bad (breaks, conflicts, residual
risk) is lower-is-better."""

from __future__ import annotations

from scorekit.absa.metrics import METRIC_NAMES
from scorekit.metrics.registry import declare

_DOCS = {
    "N": "Scorecards in the run.",
    "N_gold": "Rows with at least one gold pair (the F1 denominator).",
    "N_gold_annotated": "Rows carrying a gold list, empty lists included (net_gain's denominator).",
    "N_gold_explicit": "Rows with explicit (aspect-term) gold.",
    "N_gold_implicit": "Rows with implicit (polarity-only) gold.",
    "N_gold_total_pairs": "Gold (aspect, polarity) pairs.",
    "N_gold_explicit_pairs": "Explicit gold pairs.",
    "N_gold_implicit_pairs": "Implicit gold pairs.",
    "N_pred_final_tuples": "Rows whose final tuples came from final_tuples.",
    "N_pred_final_aspects": "Rows whose final tuples fell back to final_aspects.",
    "N_pred_inputs_aspect_sentiments": "Rows whose final tuples fell back to inputs.aspect_sentiments.",
    "N_pred_none": "Rows with no predicted tuples from any source.",
    "N_pred_used": "Predicted pairs entering the F1.",
    "N_agg_fallback_used": "Rows that needed a fallback source (final_aspects or inputs.aspect_sentiments).",
    "N_stage1_stage1_tuples": "Rows whose stage-1 tuples came from stage1_tuples.",
    "N_stage1_trace_atsa": "Rows whose stage-1 tuples came from the ATSA trace.",
    "N_stage1_final_fallback": "Rows whose stage-1 tuples fell back to the final tuples.",
    "n_fix": "Rows wrong after stage 1 and right after stage 2.",
    "n_break": "Rows right after stage 1 and wrong after stage 2.",
    "n_still": "Rows wrong after both stages.",
    "n_keep": "Rows right after both stages.",
    "n_changed": "Rows whose tuples changed between stages.",
    "n_parse_failed": "Rows whose model output failed to parse.",
    "tuple_f1_s1": "Mean over N_gold rows of tuple F1(gold, stage-1 pairs).",
    "tuple_f1_s2": "Mean over N_gold rows of tuple F1(gold, final pairs).",
    "delta_f1": "tuple_f1_s2 - tuple_f1_s1.",
    "triplet_f1_s1": "Alias of tuple_f1_s1.",
    "triplet_f1_s2": "Alias of tuple_f1_s2.",
    "tuple_f1_s2_explicit_only": "Mean over rows with explicit gold of F1(explicit gold, final pairs).",
    "tuple_f1_s2_implicit_only": "Mean over rows with implicit gold of the polarity-set F1.",
    "tuple_f1_s2_overall": "tuple_f1_s2 over all gold (before representative selection).",
    "tuple_f1_s2_raw": "tuple_f1_s2 over all gold (before representative selection).",
    "tuple_f1_s2_after_rep": "Tuple F1 after one representative per aspect term.",
    "fix_rate": "n_fix / (n_fix + n_still).",
    "break_rate": "n_break / (n_break + n_keep).",
    "net_gain": "(n_fix - n_break) / N_gold_annotated.",
    "polarity_conflict_rate_raw": "Rows with conflicting polarities for one aspect (raw) / N.",
    "polarity_conflict_rate": "Rows with a polarity conflict after representative selection / N.",
    "polarity_conflict_rate_after_rep": "Rows with a polarity conflict after representative selection / N.",
    "implicit_gold_sample_n": "Rows with implicit gold.",
    "implicit_invalid_sample_n": "Implicit-gold rows whose prediction is invalid.",
    "implicit_invalid_pred_rate": "implicit_invalid_sample_n / implicit_gold_sample_n.",
    "pre_to_post_change_rate": "Rows whose tuples changed between stages / N.",
    "changed_samples_rate": "Rows whose tuples changed between stages / N.",
    "changed_and_improved_rate": "Rows changed with a higher F1 / N.",
    "changed_and_degraded_rate": "Rows changed with a lower F1 / N.",
    "review_action_rate": "Rows with at least one review action / N.",
    "arb_intervention_rate": "Rows with at least one arbiter action / N.",
    "guided_by_review_rate": "Changed rows whose change was guided by the review / changed rows.",
    "validator_clear_rate": "Stage-1 risks cleared by stage 2 / stage-1 risks (0 without validator).",
    "risk_resolution_rate": "Stage-1 risks cleared by stage 2 / stage-1 risks (0 without validator).",
    "validator_residual_risk_rate": "Rows with a stage-2 validator risk / N.",
    "outcome_residual_risk_rate": "Rows with a stage-2 risk or a conflict after representative selection / N.",
    "negation_contrast_failure_rate": "Rows with a NEGATION/CONTRAST risk / N.",
    "override_hint_invalid_total": "Invalid debate-override hints (N/A without an override summary).",
    "override_hint_invalid_rate": "Invalid debate-override hints / hints (N/A without an override summary).",
    "override_hint_repair_total": "Repaired debate-override hints (N/A without an override summary).",
}

LOWER_IS_BETTER = frozenset({
    "n_break", "n_still", "n_parse_failed", "N_pred_none", "N_agg_fallback_used",
    "break_rate", "polarity_conflict_rate_raw", "polarity_conflict_rate",
    "polarity_conflict_rate_after_rep", "implicit_invalid_sample_n", "implicit_invalid_pred_rate",
    "changed_and_degraded_rate", "validator_residual_risk_rate", "outcome_residual_risk_rate",
    "negation_contrast_failure_rate", "override_hint_invalid_total", "override_hint_invalid_rate",
})
SCORES = frozenset({"delta_f1", "net_gain"})     # differences: may be negative


def _kind(key: str) -> str:
    if key in SCORES:
        return "score"
    if key.startswith(("N_", "n_")) or key == "N" or key.endswith(("_sample_n", "_total")):
        return "count"
    return "rate"


for _key in METRIC_NAMES:
    declare("absa", _key, kind=_kind(_key), higher_is_better=_key not in LOWER_IS_BETTER,
            doc=_DOCS.get(_key, _key.replace("_", " ")))
