"""The changed samples of a run as per-item rows (what the HTML report's drill-down shows):
text id, input text, stage-1 / final / gold (aspect, polarity) pairs, the change type and the
row's ΔF1 (stage 2 − stage 1; None without gold)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scorekit.absa import sources
from scorekit.absa.stats import INDEX


def pairs_text(pairs: frozenset) -> str:
    return ", ".join(f"{t or '∅(implicit)'}:{p}" for t, p in sorted(pairs)) or "—"


def changed_samples(scorecards: Sequence[dict], matrix: np.ndarray, limit: int = 500) -> list[dict[str, Any]]:
    """Rows of the scorecards whose output changed between stage 1 and stage 2 (at most ``limit``)."""
    rows = []
    changed = np.flatnonzero(matrix[:, INDEX["changed"]] > 0) if len(matrix) else []
    for i in changed[:limit]:
        sc = scorecards[i]
        final = sources.extract_final(sc)
        s1 = sources.extract_stage1(sc, final)
        gold = sources.gold_items(sc)
        po = sources.parsed_output(sc)
        meta = po.get("meta") if isinstance(po.get("meta"), dict) else {}
        delta = sc.get("stage_delta") or sources.stage_delta(sc)
        df1 = (float(matrix[i, INDEX["f1_s2"]] - matrix[i, INDEX["f1_s1"]])
               if matrix[i, INDEX["gold_f1"]] else None)
        rows.append({"id": str(sc.get("text_id") or meta.get("text_id") or i),
                     "text": meta.get("input_text") or "",
                     "stage1_pairs": pairs_text(s1.pairs), "final_pairs": pairs_text(final.pairs),
                     "gold_pairs": "—" if gold is None else pairs_text(frozenset((g.term, g.polarity) for g in gold)),
                     "change_type": delta.get("change_type"), "delta_f1": df1})
    return rows
