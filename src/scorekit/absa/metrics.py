"""Every metric of spec §3–§6, by its spec name, on the metric contract: one :class:`AbsaMetric`
per group of keys, each key declared once with its formula and its words (doc, kind, direction).

A batch is a run's scorecards (:class:`AbsaBatch`); the per-item statistics are the rows of
:mod:`scorekit.absa.stats`, so shards merge by concatenation and every value is a ratio of column
*sums* (:func:`compute_metrics`). ``None`` means N/A (an empty denominator, or no override
summary). The denominators ``N``, ``N_gold``, ``N_gold_annotated`` and why ``net_gain`` is over
``N`` (spec §3.3) while ``net_gain_annotated`` is over the annotated rows: docs/absa.md.

Per item (:meth:`AbsaMetric.item_scores`): a count is the row's count; a ratio is the row's
numerator where the row is in the denominator (NaN elsewhere), so the mean of a ratio's finite
per-item values is the ratio.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from scorekit.absa.stats import INDEX, WIDTH, RunStats, stats_matrix
from scorekit.metrics.base import Metric, Stats
from scorekit.metrics.registry import register


@dataclass(frozen=True)
class Key:
    """One declared key: ``num`` columns summed (``-col`` subtracts), over ``den`` columns summed
    (``()``: a count, reported as an int), its doc, kind and direction. ``or_zero``: 0 instead of
    N/A on an empty denominator (the spec's CR rule for the validator clear rate)."""

    num: tuple[str, ...]
    den: tuple[str, ...]
    doc: str
    kind: str = "rate"
    lower: bool = False          # lower is better (breaks, conflicts, residual risk, failures)
    or_zero: bool = False
    alias: bool = False          # another name of the key before it (the spec's two spellings)

    @staticmethod
    def _sum(terms: tuple[str, ...], values: np.ndarray) -> Any:
        """Σ ±values[..., column] over ``terms``: of the column sums (a number) or per row."""
        return sum((-1 if t.startswith("-") else 1) * values[..., INDEX[t.lstrip("-")]] for t in terms)

    def value(self, totals: np.ndarray) -> float | int | None:
        num = float(self._sum(self.num, totals))
        if not self.den:
            return int(num)
        den = float(self._sum(self.den, totals))
        return num / den if den else (0.0 if self.or_zero else None)

    def per_row(self, rows: np.ndarray) -> np.ndarray:
        num = self._sum(self.num, rows)
        if not self.den:
            return np.asarray(num, dtype=np.float64)
        den = self._sum(self.den, rows)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def count(col: str | tuple[str, ...], doc: str, *, lower: bool = False) -> Key:
    return Key(col if isinstance(col, tuple) else (col,), (), doc, "count", lower)


def ratio(num: str | tuple[str, ...], den: str | tuple[str, ...], doc: str, *, kind: str = "rate",
          lower: bool = False, or_zero: bool = False, alias: bool = False) -> Key:
    return Key(num if isinstance(num, tuple) else (num,), den if isinstance(den, tuple) else (den,), doc, kind,
               lower, or_zero, alias)


@dataclass
class AbsaBatch:
    """A run's scorecards (or their statistics rows already computed, ``matrix``) and its debate
    override summary (§6; None for CR runs, which write none)."""

    scorecards: Sequence[dict] | None = None
    override_summary: Mapping[str, Any] | None = None
    matrix: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.matrix) if self.matrix is not None else len(self.scorecards or ())

    def slice(self, a: int, b: int) -> "AbsaBatch":
        if self.matrix is not None:
            return AbsaBatch(None, self.override_summary, self.matrix[a:b])
        return AbsaBatch(list(self.scorecards or ())[a:b], self.override_summary)

    def rows(self) -> np.ndarray:
        """The per-scorecard statistics rows (:func:`~scorekit.absa.stats.stats_matrix`), once."""
        if self.matrix is None:
            self.matrix = stats_matrix(self.scorecards or ())
        return self.matrix


class AbsaMetric(Metric):
    """Base of the ABSA key groups: ``declared`` maps each key to its :class:`Key`; the keys, their
    words and the scoring all come from it."""

    family = "absa"
    declared: ClassVar[dict[str, Key]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.declared:
            cls.keys = tuple(cls.declared)
            cls.key_info = {k: {"doc": d.doc, "kind": d.kind, "higher_is_better": not d.lower}
                            for k, d in cls.declared.items()}

    def item_stats(self, batch: Any) -> Stats:
        b = batch if isinstance(batch, AbsaBatch) else AbsaBatch(list(batch))
        return Stats({"row": b.rows()}, {"override": b.override_summary})

    @staticmethod
    def _rows(stats: Stats) -> np.ndarray:
        rows = stats.columns.get("row")
        return rows if rows is not None and len(rows) else np.zeros((0, WIDTH))

    def from_totals(self, totals: RunStats, override_summary: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {k: d.value(totals.totals) for k, d in self.declared.items()}

    def score(self, stats: Stats) -> dict[str, Any]:
        return self.from_totals(RunStats.from_matrix(self._rows(stats)), stats.meta.get("override"))

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        rows = self._rows(stats)
        return {k: d.per_row(rows) for k, d in self.declared.items()}


@register
class Counts(AbsaMetric):
    """§5 counts: scorecards, gold rows and pairs, where the predicted and stage-1 tuples came
    from, the §3.3 transitions and the failures."""

    name = "counts"
    declared = {
        "N": count("n", "Scorecards in the run."),
        "N_gold": count("gold_f1", "Rows with at least one gold pair (the F1 denominator)."),
        "N_gold_annotated": count("gold_annotated", "Rows carrying a gold list, empty lists included "
                                                    "(net_gain_annotated's denominator)."),
        "N_gold_explicit": count("gold_explicit", "Rows with explicit (aspect-term) gold."),
        "N_gold_implicit": count("gold_implicit", "Rows with implicit (polarity-only) gold."),
        "N_gold_total_pairs": count("n_gold_pairs", "Gold (aspect, polarity) pairs."),
        "N_gold_explicit_pairs": count("n_gold_explicit_pairs", "Explicit gold pairs."),
        "N_gold_implicit_pairs": count("n_gold_implicit_pairs", "Implicit gold pairs."),
        "N_pred_final_tuples": count("src_final_tuples", "Rows whose final tuples came from final_tuples."),
        "N_pred_final_aspects": count("src_final_aspects", "Rows whose final tuples fell back to final_aspects."),
        "N_pred_inputs_aspect_sentiments": count("src_inputs_aspect_sentiments",
                                                 "Rows whose final tuples fell back to inputs.aspect_sentiments."),
        "N_pred_none": count("src_none", "Rows with no predicted tuples from any source.", lower=True),
        "N_pred_used": count("n_pred_used", "Predicted pairs entering the F1."),
        "N_agg_fallback_used": count(("src_final_aspects", "src_inputs_aspect_sentiments"),
                                     "Rows that needed a fallback source (final_aspects or "
                                     "inputs.aspect_sentiments).", lower=True),
        "N_stage1_stage1_tuples": count("src_stage1_tuples", "Rows whose stage-1 tuples came from stage1_tuples."),
        "N_stage1_trace_atsa": count("src_trace_atsa", "Rows whose stage-1 tuples came from the ATSA trace."),
        "N_stage1_final_fallback": count("src_stage1_fallback",
                                         "Rows whose stage-1 tuples fell back to the final tuples."),
        "n_fix": count("n_fix", "Rows wrong after stage 1 and right after stage 2."),
        "n_break": count("n_break", "Rows right after stage 1 and wrong after stage 2.", lower=True),
        "n_still": count("n_still", "Rows wrong after both stages.", lower=True),
        "n_keep": count("n_keep", "Rows right after both stages."),
        "n_changed": count("changed", "Rows whose tuples changed between stages."),
        "n_failed": count("failed", "Rows whose pipeline failed (parse or generation; scorekit.absa.failures).",
                          lower=True),
        "n_parse_failed": count("parse_failed", "Rows whose model output failed to parse.", lower=True),
        "n_generate_failed": count("generate_failed", "Rows whose generation failed.", lower=True),
    }


@register
class TupleF1(AbsaMetric):
    """§3.1–3.2 tuple F1 on (aspect_term, polarity) pairs: the macro mean over rows with gold of
    F1(gold, stage-1 pairs) and F1(gold, final pairs), and its explicit/implicit/representative
    variants (triplet_* and _overall/_raw are the spec's aliases)."""

    name = "tuple_f1"
    declared = {
        "tuple_f1_s1": ratio("f1_s1", "gold_f1", "Mean over N_gold rows of tuple F1(gold, stage-1 pairs)."),
        "tuple_f1_s2": ratio("f1_s2", "gold_f1", "Mean over N_gold rows of tuple F1(gold, final pairs)."),
        "delta_f1": Key(("f1_s2", "-f1_s1"), ("gold_f1",), "tuple_f1_s2 - tuple_f1_s1.", "score"),
        "triplet_f1_s1": ratio("f1_s1", "gold_f1", "Alias of tuple_f1_s1.", alias=True),
        "triplet_f1_s2": ratio("f1_s2", "gold_f1", "Alias of tuple_f1_s2.", alias=True),
        "tuple_f1_s2_explicit_only": ratio("f1_s2_explicit", "gold_explicit", "Mean over rows with explicit gold "
                                           "of F1(explicit gold, final pairs)."),
        "tuple_f1_s2_implicit_only": ratio("f1_s2_implicit", "gold_implicit",
                                           "Mean over rows with implicit gold of the polarity-set F1."),
        "tuple_f1_s2_overall": ratio("f1_s2", "gold_f1", "tuple_f1_s2 over all gold (before representative "
                                     "selection).", alias=True),
        "tuple_f1_s2_raw": ratio("f1_s2", "gold_f1", "tuple_f1_s2 over all gold (before representative selection).",
                                 alias=True),
        "tuple_f1_s2_after_rep": ratio("f1_s2_after_rep", "gold_f1",
                                       "Tuple F1 after one representative per aspect term."),
    }

    def from_totals(self, totals: RunStats, override_summary: Mapping[str, Any] | None = None) -> dict[str, Any]:
        out = super().from_totals(totals)
        s1, s2 = out["tuple_f1_s1"], out["tuple_f1_s2"]
        out["delta_f1"] = None if s1 is None else s2 - s1   # the difference of the two means, as §3.2
        return out


@register
class Transitions(AbsaMetric):
    """§3.3 stage transitions by tuple_sets_match_with_empty_rule: fix and break rates and the
    net gain."""

    name = "transitions"
    declared = {
        "fix_rate": ratio("n_fix", ("n_fix", "n_still"), "n_fix / (n_fix + n_still)."),
        "break_rate": ratio("n_break", ("n_break", "n_keep"), "n_break / (n_break + n_keep).", lower=True),
        "net_gain": ratio(("n_fix", "-n_break"), "n", "(n_fix - n_break) / N (spec §3.3).", kind="score"),
        "net_gain_annotated": ratio(("n_fix", "-n_break"), "gold_annotated",
                                    "(n_fix - n_break) / N_gold_annotated: the gain over the rows that can move it.",
                                    kind="score"),
    }


@register
class Conflicts(AbsaMetric):
    """§3.4 polarity conflicts: one aspect term with two polarities, raw and after representative
    selection (explicit > confidence > no drop_reason)."""

    name = "conflicts"
    declared = {
        "polarity_conflict_rate_raw": ratio("conflict_raw", "n", "Rows with conflicting polarities for one aspect "
                                            "(raw) / N.", lower=True),
        "polarity_conflict_rate": ratio("conflict_after_rep", "n", "Rows with a polarity conflict after "
                                        "representative selection / N.", lower=True),
        "polarity_conflict_rate_after_rep": ratio("conflict_after_rep", "n", "Rows with a polarity conflict after "
                                                  "representative selection / N.", lower=True, alias=True),
    }


@register
class ImplicitInvalid(AbsaMetric):
    """§3.5 implicit gold rows whose prediction is invalid (no valid polarity, a parse failure or
    a neutral fallback)."""

    name = "implicit_invalid"
    declared = {
        "implicit_gold_sample_n": count("gold_implicit", "Rows with implicit gold."),
        "implicit_invalid_sample_n": count("implicit_invalid", "Implicit-gold rows whose prediction is invalid.",
                                           lower=True),
        "implicit_invalid_pred_rate": ratio("implicit_invalid", "gold_implicit",
                                            "implicit_invalid_sample_n / implicit_gold_sample_n.", lower=True),
    }


@register
class Process(AbsaMetric):
    """§4.1–4.2 process: how often stage 2 changed the tuples, for better or worse, and how often
    the review and the arbiter acted."""

    name = "process"
    declared = {
        "pre_to_post_change_rate": ratio("changed", "n", "Rows whose tuples changed between stages / N."),
        "changed_samples_rate": ratio("changed", "n", "Rows whose tuples changed between stages / N.", alias=True),
        "changed_and_improved_rate": ratio("changed_improved", "n", "Rows changed with a higher F1 / N."),
        "changed_and_degraded_rate": ratio("changed_degraded", "n", "Rows changed with a lower F1 / N.", lower=True),
        "review_action_rate": ratio("review_action", "n", "Rows with at least one review action / N."),
        "arb_intervention_rate": ratio("arb_action", "n", "Rows with at least one arbiter action / N."),
        "guided_by_review_rate": ratio("guided_by_review", "changed",
                                       "Changed rows whose change was guided by the review / changed rows."),
    }


@register
class Validator(AbsaMetric):
    """§4.3 validator: stage-1 structural risks cleared by stage 2 (0 without a validator, as the
    spec states for CR) and the risk left after it."""

    name = "validator"
    declared = {
        "validator_clear_rate": ratio("risk_cleared", "s1_risk", "Stage-1 risks cleared by stage 2 / stage-1 risks "
                                      "(0 without validator).", or_zero=True),
        "risk_resolution_rate": ratio("risk_cleared", "s1_risk", "Stage-1 risks cleared by stage 2 / stage-1 risks "
                                      "(0 without validator).", or_zero=True, alias=True),
        "validator_residual_risk_rate": ratio("s2_risk", "n", "Rows with a stage-2 validator risk / N.", lower=True),
        "outcome_residual_risk_rate": ratio("outcome_residual_risk", "n", "Rows with a stage-2 risk or a conflict "
                                            "after representative selection / N.", lower=True),
        "negation_contrast_failure_rate": ratio("negation_contrast", "n", "Rows with a NEGATION/CONTRAST risk / N.",
                                                lower=True),
    }


@register
class Override(AbsaMetric):
    """§6 debate override hints, passed through from override_gate_debug_summary.json: CR runs
    (enable_debate_override=false) write none, so every override_* metric is N/A."""

    name = "override"
    declared = {
        "override_hint_invalid_total": count((), "Invalid debate-override hints (N/A without an override summary).",
                                             lower=True),
        "override_hint_invalid_rate": ratio((), (), "Invalid debate-override hints / hints (N/A without an "
                                            "override summary).", lower=True),
        "override_hint_repair_total": count((), "Repaired debate-override hints (N/A without an override summary)."),
    }

    def from_totals(self, totals: RunStats, override_summary: Mapping[str, Any] | None = None) -> dict[str, Any]:
        values = {k: (override_summary or {}).get(k) for k in self.declared}
        return {k: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
                for k, v in values.items()}

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {}   # a run-level summary: no per-scorecard value


METRICS: tuple[AbsaMetric, ...] = (Counts(), TupleF1(), Transitions(), Conflicts(), ImplicitInvalid(), Process(),
                                   Validator(), Override())
METRIC_NAMES: tuple[str, ...] = tuple(k for m in METRICS for k in m.keys)     # the CSV column order
F1_METRICS = TupleF1.keys[:2] + TupleF1.keys[3:]                              # F1 means, in [0, 1]
RATE_METRICS = tuple(k for m in METRICS if m.name not in ("tuple_f1", "override") for k, d in m.declared.items()
                     if d.kind == "rate")


def compute_metrics(stats: RunStats, override_summary: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """All §3–§6 metrics of one run from its summed statistics, in :data:`METRIC_NAMES` order."""
    return {k: v for m in METRICS for k, v in m.from_totals(stats, override_summary).items()}
