"""What counts as a failed row, and of which kind (parse, generate, other): the rules are in
docs/absa.md, "Failures"."""

from __future__ import annotations

import json
import re
from typing import Any

_PARSE = re.compile(r"pars|json|schema|validat|decod", re.I)
_GENERATE = re.compile(r"generat|time[ _-]?out|timed out|rate[ _-]?limit|\bapi\b|http|connect|quota|"
                       r"overload|unavailable|\b5\d\d\b", re.I)
_FLAGS = (("parse_failed", "parse"), ("generate_failed", "generate"), ("failed", "other"))


def _non_empty(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, (list, tuple, dict)):
        return bool(value)
    return value is not None and value is not False


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def classify(message: str) -> str:
    """``parse`` | ``generate`` | ``other`` for one error text."""
    if _PARSE.search(message):
        return "parse"
    return "generate" if _GENERATE.search(message) else "other"


def row_failure(entry: dict, *flag_holders: Any) -> dict[str, Any]:
    """``{"failed", "kind", "parse_failed", "generate_failed", "error"}`` (the first error text)
    of one outputs.jsonl row, also reading extra flag dicts (a scorecard's)."""
    kinds: list[str] = []
    errors: list[Any] = []   # in order: the flags' errors, then the trace steps'
    for flags in (entry.get("flags"), *flag_holders):
        if isinstance(flags, dict):
            kinds += [kind for key, kind in _FLAGS if flags.get(key) == 1]   # True or 1
            errors.append(flags.get("error"))
    trace = entry.get("process_trace")
    for step in trace if isinstance(trace, list) else ():
        if isinstance(step, dict):
            errors.append(step.get("error"))
            notes = step.get("notes")
            if isinstance(notes, str) and re.search(r"parse_failed|generate_failed", notes):
                kinds.append(classify(notes))      # 0.1's marker texts in notes still count
    texts = [_text(e) for e in errors if _non_empty(e)]
    kinds += [classify(t) for t in texts]
    failed = bool(kinds)
    kind = "parse" if "parse" in kinds else "generate" if "generate" in kinds else ("other" if failed else None)
    return {"failed": failed, "kind": kind, "parse_failed": "parse" in kinds,
            "generate_failed": "generate" in kinds, "error": texts[0] if texts else None}


def scorecard_failure(record: dict) -> dict[str, Any]:
    """Failure of one scorecard: its row's, ``runtime.flags``, ``flags`` and ``runtime.error``."""
    runtime = record.get("runtime") if isinstance(record.get("runtime"), dict) else {}
    entry = runtime.get("parsed_output") if isinstance(runtime.get("parsed_output"), dict) else {}
    extra = {"error": runtime.get("error")} if _non_empty(runtime.get("error")) else None
    return row_failure(entry, runtime.get("flags"), record.get("flags"), extra)
