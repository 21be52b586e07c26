"""Every metric of spec §3–§6, by its spec name, from merged sufficient statistics.

``compute_metrics(stats)`` turns a :class:`~scorekit.absa.stats.RunStats` (column sums of the
per-scorecard statistics) into ``{metric name: value}``; ``None`` means N/A (an empty
denominator, or no override summary). Denominators (docs/absa.md explains each choice):

* ``N``       — scorecards in the run;
* ``N_gold``  — rows with >= 1 gold pair (the F1 means: macro average over rows, §3.1 ``mean(F1)``);
* ``N_gold_annotated`` — rows carrying a gold list, empty lists included (fix/break and
  ``net_gain_annotated``: the empty rule makes an empty gold list a meaningful target).

``net_gain`` follows the spec (§3.3): ``(n_fix - n_break) / N`` over every scorecard. Rows without
a gold list can be neither a fix nor a break, so this dilutes the gain on partly annotated runs;
``net_gain_annotated`` = ``(n_fix - n_break) / N_gold_annotated`` is the same gain over the rows
that can move it (scorekit 0.1 reported this one as ``net_gain``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorekit.absa.stats import RunStats


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def outcome_metrics(s: RunStats) -> dict[str, float | None]:
    """§3 outcome metrics.

    tuple_f1_s1 = mean over N_gold rows of F1(gold, stage1 pairs); tuple_f1_s2 likewise with the
    final pairs; delta_f1 = tuple_f1_s2 - tuple_f1_s1; triplet_* are aliases.
    tuple_f1_s2_explicit_only = mean over rows with explicit gold of F1(explicit gold, final);
    tuple_f1_s2_implicit_only = mean over rows with implicit gold of the polarity-set F1;
    tuple_f1_s2_overall = tuple_f1_s2_raw = tuple_f1_s2 (all gold, before representative
    selection); tuple_f1_s2_after_rep = F1 after one representative per aspect_term.
    fix_rate = n_fix/(n_fix+n_still); break_rate = n_break/(n_break+n_keep);
    net_gain = (n_fix - n_break)/N (spec §3.3); net_gain_annotated = (n_fix - n_break)/N_gold_annotated
    (fix/break by tuple_sets_match_with_empty_rule).
    polarity_conflict_rate_raw = n(conflict raw)/N; polarity_conflict_rate(_after_rep) =
    n(conflict after representative selection)/N.
    implicit_invalid_pred_rate = implicit_invalid_sample_n / implicit_gold_sample_n.
    """
    n_gold = s["gold_f1"]
    f1_s1 = _ratio(s["f1_s1"], n_gold)
    f1_s2 = _ratio(s["f1_s2"], n_gold)
    n_ann = s["gold_annotated"]
    n = s["n"]
    conflict = _ratio(s["conflict_after_rep"], n)
    return {
        "tuple_f1_s1": f1_s1,
        "tuple_f1_s2": f1_s2,
        "delta_f1": None if f1_s1 is None else f1_s2 - f1_s1,
        "triplet_f1_s1": f1_s1,
        "triplet_f1_s2": f1_s2,
        "tuple_f1_s2_explicit_only": _ratio(s["f1_s2_explicit"], s["gold_explicit"]),
        "tuple_f1_s2_implicit_only": _ratio(s["f1_s2_implicit"], s["gold_implicit"]),
        "tuple_f1_s2_overall": f1_s2,
        "tuple_f1_s2_raw": f1_s2,
        "tuple_f1_s2_after_rep": _ratio(s["f1_s2_after_rep"], n_gold),
        "fix_rate": _ratio(s["n_fix"], s["n_fix"] + s["n_still"]),
        "break_rate": _ratio(s["n_break"], s["n_break"] + s["n_keep"]),
        "net_gain": _ratio(s["n_fix"] - s["n_break"], n),
        "net_gain_annotated": _ratio(s["n_fix"] - s["n_break"], n_ann),
        "polarity_conflict_rate_raw": _ratio(s["conflict_raw"], n),
        "polarity_conflict_rate": conflict,
        "polarity_conflict_rate_after_rep": conflict,
        "implicit_gold_sample_n": int(s["gold_implicit"]),
        "implicit_invalid_sample_n": int(s["implicit_invalid"]),
        "implicit_invalid_pred_rate": _ratio(s["implicit_invalid"], s["gold_implicit"]),
    }


def process_metrics(s: RunStats) -> dict[str, float | None]:
    """§4 process metrics.

    pre_to_post_change_rate = changed_samples_rate = n(stage_delta.changed)/N;
    changed_and_improved_rate = n(changed ∧ delta_f1 > 0)/N; changed_and_degraded_rate likewise < 0;
    review_action_rate = n(review_actions >= 1)/N; arb_intervention_rate = n(arb_actions >= 1)/N;
    guided_by_review_rate = n(change_type = guided_by_review)/n(changed).
    Validator metrics (§4.3): validator_clear_rate = risk_resolution_rate =
    n(S1 risk ∧ ¬S2 risk)/n(S1 risk) (0 without validator, as the spec states for CR);
    validator_residual_risk_rate = n(S2 risk)/N; outcome_residual_risk_rate = n(S2 risk ∨
    conflict after representative selection)/N; negation_contrast_failure_rate =
    n(rows with a NEGATION/CONTRAST risk)/N.
    """
    n = s["n"]
    change = _ratio(s["changed"], n)
    clear = _ratio(s["risk_cleared"], s["s1_risk"]) or 0.0
    return {
        "pre_to_post_change_rate": change,
        "changed_samples_rate": change,
        "changed_and_improved_rate": _ratio(s["changed_improved"], n),
        "changed_and_degraded_rate": _ratio(s["changed_degraded"], n),
        "review_action_rate": _ratio(s["review_action"], n),
        "arb_intervention_rate": _ratio(s["arb_action"], n),
        "guided_by_review_rate": _ratio(s["guided_by_review"], s["changed"]),
        "validator_clear_rate": clear,
        "risk_resolution_rate": clear,
        "validator_residual_risk_rate": _ratio(s["s2_risk"], n),
        "outcome_residual_risk_rate": _ratio(s["outcome_residual_risk"], n),
        "negation_contrast_failure_rate": _ratio(s["negation_contrast"], n),
    }


def count_metrics(s: RunStats) -> dict[str, int]:
    """§5 source counts. N_pred_final_tuples / _final_aspects / _inputs_aspect_sentiments = rows
    whose final tuples came from that source; N_agg_fallback_used = rows that needed a fallback
    (final_aspects or inputs.aspect_sentiments); N_pred_used = predicted pairs entering the F1."""
    return {
        "N": int(s["n"]),
        "N_gold": int(s["gold_f1"]),
        "N_gold_annotated": int(s["gold_annotated"]),
        "N_gold_explicit": int(s["gold_explicit"]),
        "N_gold_implicit": int(s["gold_implicit"]),
        "N_gold_total_pairs": int(s["n_gold_pairs"]),
        "N_gold_explicit_pairs": int(s["n_gold_explicit_pairs"]),
        "N_gold_implicit_pairs": int(s["n_gold_implicit_pairs"]),
        "N_pred_final_tuples": int(s["src_final_tuples"]),
        "N_pred_final_aspects": int(s["src_final_aspects"]),
        "N_pred_inputs_aspect_sentiments": int(s["src_inputs_aspect_sentiments"]),
        "N_pred_none": int(s["src_none"]),
        "N_pred_used": int(s["n_pred_used"]),
        "N_agg_fallback_used": int(s["src_final_aspects"] + s["src_inputs_aspect_sentiments"]),
        "N_stage1_stage1_tuples": int(s["src_stage1_tuples"]),
        "N_stage1_trace_atsa": int(s["src_trace_atsa"]),
        "N_stage1_final_fallback": int(s["src_stage1_fallback"]),
        "n_fix": int(s["n_fix"]), "n_break": int(s["n_break"]),
        "n_still": int(s["n_still"]), "n_keep": int(s["n_keep"]),
        "n_changed": int(s["changed"]),
        "n_failed": int(s["failed"]),
        "n_parse_failed": int(s["parse_failed"]),
        "n_generate_failed": int(s["generate_failed"]),
    }


OVERRIDE_KEYS = ("override_hint_invalid_total", "override_hint_invalid_rate", "override_hint_repair_total")


def override_metrics(summary: Mapping[str, Any] | None) -> dict[str, float | None]:
    """§6: CR runs with enable_debate_override=false write no override summary, so every
    override_* metric is N/A (None); with a summary its numbers are passed through."""
    out: dict[str, float | None] = {}
    for key in OVERRIDE_KEYS:
        value = None if summary is None else summary.get(key)
        out[key] = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return out


def compute_metrics(stats: RunStats, override_summary: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """All §3–§6 metrics for one run, in a fixed order (the CSV column order)."""
    return {**count_metrics(stats), **outcome_metrics(stats), **process_metrics(stats),
            **override_metrics(override_summary)}


#: metric name -> kind ("rate" in [0, 1], "f1", "delta", "count", "override")
RATE_METRICS = (
    "fix_rate", "break_rate", "polarity_conflict_rate_raw", "polarity_conflict_rate",
    "polarity_conflict_rate_after_rep", "implicit_invalid_pred_rate", "pre_to_post_change_rate",
    "changed_samples_rate", "changed_and_improved_rate", "changed_and_degraded_rate",
    "review_action_rate", "arb_intervention_rate", "guided_by_review_rate", "validator_clear_rate",
    "risk_resolution_rate", "validator_residual_risk_rate", "outcome_residual_risk_rate",
    "negation_contrast_failure_rate",
)
F1_METRICS = (
    "tuple_f1_s1", "tuple_f1_s2", "triplet_f1_s1", "triplet_f1_s2", "tuple_f1_s2_explicit_only",
    "tuple_f1_s2_implicit_only", "tuple_f1_s2_overall", "tuple_f1_s2_raw", "tuple_f1_s2_after_rep",
)
METRIC_NAMES = tuple(compute_metrics(RunStats.empty()).keys())
