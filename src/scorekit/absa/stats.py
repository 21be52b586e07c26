"""Per-scorecard sufficient statistics (one fixed-width row of numbers per scorecard): every metric
of §3–§6 is a ratio of *sums* of these columns, so shards merge by addition."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from scorekit.absa import failures, sources
from scorekit.absa.normalize import VALID_POLARITIES
from scorekit.absa.sources import Item

# Column order of a statistics row. Counts are 0/1 per row unless noted.
FIELDS: tuple[str, ...] = (
    "n",                      # 1 per scorecard
    "gold_annotated",         # row carries a gold list (possibly empty): fix/break/net_gain rows
    "gold_f1",                # row has >= 1 gold pair: F1 rows (N_gold)
    "f1_s1", "f1_s2", "f1_s2_after_rep",          # per-row F1 (float; 0 unless gold_f1)
    "gold_explicit", "f1_s2_explicit",            # explicit gold present; F1 vs explicit gold
    "gold_implicit", "f1_s2_implicit",            # implicit gold present; polarity-only F1
    "implicit_invalid",       # §3.5 implicit gold row with no valid pred / parse fail / neutral fallback
    "n_gold_pairs", "n_gold_explicit_pairs", "n_gold_implicit_pairs",   # counts (ints)
    "n_fix", "n_break", "n_still", "n_keep",      # §3.3 transitions (gold_annotated rows)
    "conflict_raw", "conflict_after_rep",         # §3.4
    "changed", "guided_by_review", "unguided",    # §4.1/4.2 (stage_delta)
    "changed_improved", "changed_degraded",       # changed and delta_f1 >0 / <0
    "review_action", "arb_action",                # §4.2
    "src_final_tuples", "src_final_aspects", "src_inputs_aspect_sentiments", "src_none",  # §5
    "src_stage1_tuples", "src_trace_atsa", "src_stage1_fallback",
    "n_pred_used",            # pred pairs entering the F1 (gold_f1 rows; int)
    "s1_risk", "s2_risk", "risk_cleared", "negation_contrast", "outcome_residual_risk",  # §4.3
    "failed", "parse_failed", "generate_failed",   # see scorekit.absa.failures
)
INDEX = {name: i for i, name in enumerate(FIELDS)}
WIDTH = len(FIELDS)
_ZERO = dict.fromkeys(FIELDS, 0)
_FINAL_SOURCE = {"final_tuples": "src_final_tuples", "final_aspects": "src_final_aspects",
                 "inputs.aspect_sentiments": "src_inputs_aspect_sentiments", "none": "src_none"}
_STAGE1_SOURCE = {"stage1_tuples": "src_stage1_tuples", "trace_atsa": "src_trace_atsa",
                  "final_fallback": "src_stage1_fallback"}


def pair_counts(gold: frozenset, pred: frozenset) -> int:
    """True positives on (aspect_term, polarity) pairs.

    Explicit gold pairs match exactly; an implicit gold pair (term ``""``) matches any one
    still-unmatched predicted pair with the same polarity (one-to-one).
    """
    matched = pred & {g for g in gold if g[0]}
    return len(matched) + len({p for t, p in gold if not t} & {p for _, p in pred - matched})


def f1_pairs(gold: frozenset, pred: frozenset) -> float:
    """F1 = 2PR/(P+R) = 2·tp / (|pred| + |gold|); 0 when gold is empty or nothing matches."""
    if not gold:
        return 0.0
    tp = pair_counts(gold, pred)
    return 2.0 * tp / (len(pred) + len(gold)) if tp else 0.0


def sets_match_with_empty_rule(gold: frozenset, pred: frozenset) -> bool:
    """``tuple_sets_match_with_empty_rule``: empty gold matches only an empty prediction;
    otherwise a match is precision = recall = 1 under the F1 rule above."""
    return pair_counts(gold, pred) == len(pred) == len(gold) if gold else not pred


def _rep_key(it: Item) -> tuple[bool, float, bool]:
    # explicit > implicit, then higher confidence, then no drop_reason (§3.4)
    return (it.explicit, it.confidence, not it.has_drop_reason)


def conflicts(items: Sequence[Item]) -> tuple[bool, bool, frozenset]:
    """(conflict_raw, conflict_after_rep, representative pairs) for one row's final tuples, by
    normalised aspect_term (implicit items are neither grouped nor dropped): raw, a term with >= 2
    polarities; after, its items tied on the best key (explicit, confidence, no drop_reason) still
    disagree; the representative is the first of them (why: docs/absa.md)."""
    groups: dict[str, list[Item]] = {}
    rep: set[tuple[str, str]] = set()
    for it in items:
        if it.term:
            groups.setdefault(it.term, []).append(it)
        else:
            rep.add((it.term, it.polarity))
    raw = after = False
    for term, group in groups.items():
        best = max(_rep_key(it) for it in group)
        top = [it for it in group if _rep_key(it) == best]
        rep.add((term, top[0].polarity))
        raw = raw or len({it.polarity for it in group}) > 1
        after = after or len({it.polarity for it in top}) > 1   # (top is part of the group)
    return raw, after, frozenset(rep)


def _validator(record: dict) -> tuple[bool, bool, bool]:
    s1 = s2 = neg = False
    blocks = record.get("validator")
    for block in blocks if isinstance(blocks, list) else ():
        risks = block.get("structural_risks") if isinstance(block, dict) else None
        if not isinstance(risks, list):
            continue
        stage = str(block.get("stage", "")).lower()
        s1 = s1 or bool(risks) and stage == "stage1"
        s2 = s2 or bool(risks) and stage == "stage2"
        ids = (str(r.get("risk_id", "") if isinstance(r, dict) else r).upper() for r in risks)
        neg = neg or any("NEGATION" in rid or "CONTRAST" in rid for rid in ids)
    return s1, s2, neg


def row_stats(record: dict) -> list:
    """The statistics row of one scorecard (see FIELDS)."""
    final = sources.extract_final(record)
    stage1 = sources.extract_stage1(record, final)
    s1_pairs, s2_pairs = stage1.pairs, final.pairs
    gold = sources.gold_items(record)
    failure = failures.scorecard_failure(record)

    raw, after, rep_pairs = conflicts(final.items)
    row: dict[str, Any] = dict(_ZERO, n=1, conflict_raw=raw, conflict_after_rep=after)
    delta_f1 = 0.0
    if gold is not None:
        gold_pairs = frozenset((it.term, it.polarity) for it in gold)
        m1, m2 = (sets_match_with_empty_rule(gold_pairs, pairs) for pairs in (s1_pairs, s2_pairs))
        row["gold_annotated"] = 1
        row[("n_keep" if m2 else "n_break") if m1 else ("n_fix" if m2 else "n_still")] = 1
        if gold_pairs:
            explicit = frozenset(g for g in gold_pairs if g[0])
            implicit_pols = frozenset(p for t, p in gold_pairs if not t)
            f1_1, f1_2 = f1_pairs(gold_pairs, s1_pairs), f1_pairs(gold_pairs, s2_pairs)
            delta_f1 = f1_2 - f1_1
            row.update(gold_f1=1, f1_s1=f1_1, f1_s2=f1_2, f1_s2_after_rep=f1_pairs(gold_pairs, rep_pairs),
                       n_gold_pairs=len(gold_pairs), n_gold_explicit_pairs=len(explicit),
                       n_gold_implicit_pairs=len(gold_pairs) - len(explicit), n_pred_used=len(s2_pairs))
            if explicit:
                row.update(gold_explicit=1, f1_s2_explicit=f1_pairs(explicit, s2_pairs))
            if implicit_pols:
                valid = frozenset(it.polarity for it in final.items
                                  if it.polarity in VALID_POLARITIES and not it.polarity_missing)
                inter = len(implicit_pols & valid)
                neutral_fallback = any(it.polarity_missing for it in final.items)
                row.update(gold_implicit=1,
                           f1_s2_implicit=2.0 * inter / (len(implicit_pols) + len(valid)) if inter else 0.0,
                           implicit_invalid=(not valid) or failure["failed"] or neutral_fallback)

    delta = record.get("stage_delta")
    if not isinstance(delta, dict) or "changed" not in delta:
        delta = sources.stage_delta(record)  # the same SSOT function make_scorecard uses
    if delta.get("changed"):
        row.update({"changed": 1, "changed_improved": delta_f1 > 0, "changed_degraded": delta_f1 < 0,
                    "guided_by_review" if delta.get("change_type") == "guided_by_review" else "unguided": 1})
    row[_FINAL_SOURCE[final.source]] = 1
    if stage1.source != "none":
        row[_STAGE1_SOURCE[stage1.source]] = 1
    s1r, s2r, neg = _validator(record)
    row.update(review_action=sources.has_actions(record, "review_actions"),
               arb_action=sources.has_actions(record, "arb_actions"), s1_risk=s1r, s2_risk=s2r,
               risk_cleared=s1r and not s2r, negation_contrast=neg, outcome_residual_risk=s2r or after,
               failed=failure["failed"], parse_failed=failure["parse_failed"],
               generate_failed=failure["generate_failed"])
    return list(row.values())  # in FIELDS order; numbers and bools: numpy converts the whole matrix at once


def stats_matrix(records: Iterable[dict]) -> np.ndarray:
    """(n_rows, WIDTH) float64 matrix of per-scorecard statistics."""
    rows = [row_stats(r) for r in records]
    if not rows:
        return np.zeros((0, WIDTH))
    return np.fromiter(chain.from_iterable(rows), dtype=np.float64, count=len(rows) * WIDTH).reshape(len(rows), WIDTH)


@dataclass(eq=False)
class RunStats:
    """Column sums of the statistics matrix: everything a run's metrics need."""

    totals: np.ndarray

    @classmethod
    def empty(cls) -> "RunStats":
        return cls(np.zeros(WIDTH))

    @classmethod
    def from_matrix(cls, matrix: np.ndarray) -> "RunStats":
        return cls(matrix.sum(axis=0) if len(matrix) else np.zeros(WIDTH))

    @classmethod
    def from_records(cls, records: Iterable[dict]) -> "RunStats":
        return cls.from_matrix(stats_matrix(records))

    def __add__(self, other: "RunStats") -> "RunStats":
        return RunStats(self.totals + other.totals)

    def __eq__(self, other: object) -> bool:   # equal column sums, as a bool (not an array)
        return isinstance(other, RunStats) and np.array_equal(self.totals, other.totals)

    __hash__ = None  # mutable numpy state
