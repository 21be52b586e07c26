"""``make_scorecard(entry)``: one outputs.jsonl row -> one scorecards.jsonl row (spec §1, §4.1),
its ``stage_delta`` by :func:`scorekit.absa.sources.stage_delta`, the very function the aggregator
falls back on, so both always agree."""

from __future__ import annotations

from typing import Any

from scorekit.absa import failures, sources

SCORECARD_VERSION = 1


def make_scorecard(entry: dict, *, run_id: str | None = None) -> dict[str, Any]:
    """Build the scorecard of one FinalOutputSchema row (a plain dict)."""
    meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
    text_id = meta.get("text_id", meta.get("uid"))
    record: dict[str, Any] = wrap(entry)
    gold = sources.gold_list(record)
    inputs: dict[str, Any] = {}
    entry_inputs = entry.get("inputs") if isinstance(entry.get("inputs"), dict) else {}
    if isinstance(entry_inputs.get("aspect_sentiments"), list):
        inputs["aspect_sentiments"] = entry_inputs["aspect_sentiments"]
    if gold is not None:
        inputs["gold_tuples"] = gold
    f = failures.row_failure(entry)   # whether the row failed, and how
    flags = {"failed": f["failed"], "failure_kind": f["kind"], "parse_failed": f["parse_failed"],
             "generate_failed": f["generate_failed"], "error": f["error"],
             "analysis_flags": entry.get("analysis_flags")}
    record = {
        "scorecard_version": SCORECARD_VERSION,
        "run_id": run_id if run_id is not None else meta.get("run_id"),
        "text_id": text_id,
        "meta": {"text_id": text_id, "input_text": meta.get("input_text"),
                 "protocol_mode": meta.get("protocol_mode", "conflict_review_v1")},
        "inputs": inputs,
        "runtime": {"uid": text_id, "parsed_output": entry, "flags": flags},
        "validator": [],  # CR has no validator (§4.3)
    }
    record["stage_delta"] = sources.stage_delta(record)
    return record


def wrap(entry: dict) -> dict[str, Any]:
    """The §1 aggregator wrap, ``{"runtime": {"parsed_output": entry}}``."""
    return {"runtime": {"parsed_output": entry}}
