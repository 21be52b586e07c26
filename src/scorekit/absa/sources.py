"""Where the tuples of one row come from — spec §2 (SSOT), counted in §5 (N_pred_*); the order of
the sources is in docs/absa.md, "Tuple sources". A source is used when it yields at least one
tuple. Every function takes a *record*: a scorecard, or any dict with ``runtime.parsed_output``
(the §1 wrap, ``{"runtime": {"parsed_output": entry}}``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from scorekit.absa.normalize import normalize_polarity, normalize_term


class Item(NamedTuple):
    """One normalised tuple with what representative selection (§3.4) needs."""

    term: str               # normalised aspect_term, "" = implicit
    polarity: str           # normalised polarity
    polarity_missing: bool  # polarity absent -> neutral (a forbidden fallback, §3.5)
    explicit: bool          # grounding "explicit" (or, without a grounding field, a non-empty term)
    confidence: float
    has_drop_reason: bool


@dataclass(frozen=True, slots=True)
class Extracted:
    items: tuple[Item, ...]
    source: str

    @property
    def pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset((it.term, it.polarity) for it in self.items)


def _term_text(d: dict) -> str:
    at = d.get("aspect_term")
    at = at.get("term") if isinstance(at, dict) else at
    op = _dict(d.get("opinion_term")).get("term")
    return at if isinstance(at, str) else op if isinstance(op, str) else ""


def _confidence(value: Any) -> float:
    try:
        c = float(value)
    except (TypeError, ValueError):
        return 0.0
    return c if c == c else 0.0  # NaN -> 0


def to_items(values: Any) -> tuple[Item, ...]:
    """Normalise a list of tuple dicts; non-dicts and empty dicts are ignored."""
    out = []
    for d in values if isinstance(values, list) else ():
        if not isinstance(d, dict) or not d:
            continue
        implicit = d.get("is_implicit") is True
        term = normalize_term("" if implicit else _term_text(d))
        pol = d.get("polarity")
        polarity, missing = normalize_polarity(d.get("label") if pol is None else pol)
        if not term and missing and not implicit and not d.get("aspect_ref"):
            continue  # nothing in it: no term, no polarity, not marked implicit
        grounding = d.get("grounding")
        grounded = isinstance(grounding, str) and grounding.strip()
        explicit = grounding.strip().lower() == "explicit" if grounded else bool(term)
        drop = d.get("drop_reason")
        out.append(Item(term, polarity, missing, explicit, _confidence(d.get("confidence")),
                        bool(drop.strip()) if isinstance(drop, str) else bool(drop)))
    return tuple(out)


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def parsed_output(record: dict) -> dict:
    return _dict(_dict(record.get("runtime")).get("parsed_output"))


def final_result(record: dict) -> dict:
    return _dict(parsed_output(record).get("final_result"))


def process_trace(record: dict) -> list:
    traces = (_dict(record.get("runtime")).get("process_trace"), record.get("process_trace"),
              parsed_output(record).get("process_trace"))
    return next((trace for trace in traces if isinstance(trace, list) and trace), [])


def extract_final(record: dict) -> Extracted:
    """§2 final: final_tuples -> final_aspects -> inputs.aspect_sentiments."""
    fr = final_result(record)
    for key in ("final_tuples", "final_aspects"):
        items = to_items(fr.get(key))
        if items:
            return Extracted(items, key)
    items = (to_items(_dict(record.get("inputs")).get("aspect_sentiments"))
             or to_items(_dict(parsed_output(record).get("inputs")).get("aspect_sentiments")))
    return Extracted(items, "inputs.aspect_sentiments") if items else Extracted((), "none")


def extract_stage1(record: dict, final: Extracted | None = None) -> Extracted:
    """§2 stage1: stage1_tuples -> process_trace Stage1 ATSA -> the final tuples."""
    items = to_items(final_result(record).get("stage1_tuples"))
    if items:
        return Extracted(items, "stage1_tuples")
    for step in process_trace(record):
        if (isinstance(step, dict) and str(step.get("stage", "")).lower() == "stage1"
                and str(step.get("agent", "")).lower() == "atsa"):
            items = to_items(_dict(step.get("output")).get("aspect_sentiments"))
            if items:
                return Extracted(items, "trace_atsa")
    final = final if final is not None else extract_final(record)
    return Extracted(final.items, "final_fallback" if final.items else "none")


def gold_list(record: dict) -> list | None:
    """The gold tuples as written (``inputs`` then the top level, of the record then of its parsed
    output; ``gold_tuples``, ``gold``, ``gold_triplets``), or ``None`` without any gold annotation
    (an explicit empty list is one: "no aspect here")."""
    po = parsed_output(record)
    for holder in (_dict(record.get("inputs")), record, _dict(po.get("inputs")), po):
        for key in ("gold_tuples", "gold", "gold_triplets"):
            if isinstance(value := holder.get(key), list):
                return value
    return None


def gold_items(record: dict) -> tuple[Item, ...] | None:
    """The normalised :func:`gold_list` (``()`` for an empty one), or ``None`` without gold."""
    gold = gold_list(record)
    return None if gold is None else to_items(gold)


def analysis_flags(record: dict) -> dict:
    return (_dict(parsed_output(record).get("analysis_flags"))
            or _dict(_dict(_dict(record.get("runtime")).get("flags")).get("analysis_flags")))


def has_actions(record: dict, key: str) -> bool:
    """``analysis_flags.<key>`` has at least one entry (review_actions / arb_actions)."""
    return bool(analysis_flags(record).get(key))


def _label(value: Any) -> str:
    return normalize_polarity(value)[0] if isinstance(value, str) and value.strip() else ""


def stage_delta(record: dict) -> dict:
    """§4.1 SSOT: ``changed = (s1_pairs != final_pairs) or (stage1_label != final_label)``;
    ``change_type`` = ``guided_by_review`` when changed and review/arbiter actions exist,
    ``unguided`` when changed without them, ``none`` otherwise (§4.2). The labels:
    ``stage1_ate.label`` and ``stage2_ate.label`` (else ``final_result.label``), compared only
    when both exist."""
    final = extract_final(record)
    s1 = extract_stage1(record, final)
    s1_pairs, final_pairs = s1.pairs, final.pairs
    po = parsed_output(record)
    l1, lf = (_label(_dict(po.get(k)).get("label")) for k in ("stage1_ate", "stage2_ate"))
    lf = lf or _label(final_result(record).get("label"))
    pairs_changed = s1_pairs != final_pairs
    label_changed = bool(l1 and lf and l1 != lf)
    changed = pairs_changed or label_changed
    guided = has_actions(record, "review_actions") or has_actions(record, "arb_actions")
    change_type = ("guided_by_review" if guided else "unguided") if changed else "none"
    return {"changed": changed, "pairs_changed": pairs_changed, "label_changed": label_changed,
            "change_type": change_type, "n_s1_pairs": len(s1_pairs), "n_final_pairs": len(final_pairs),
            "stage1_source": s1.source, "final_source": final.source}
