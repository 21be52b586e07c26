"""What counts as a failed row, and of which kind (documented in docs/absa.md, "Failures").

A row **failed** when any of these holds:

* a ``process_trace`` step has a non-empty ``error`` (any text, object or ``true``) — whatever
  its wording: ``"JSON parse error: ..."``, ``"timeout"`` and ``"parse_failed"`` all count;
* a flag ``parse_failed`` / ``generate_failed`` / ``failed`` is true in the row's ``flags``, in
  ``runtime.flags`` (scorecards) or at the scorecard's top level;
* the scorecard's ``runtime.error`` is non-empty.

The wording only **classifies** a failure (case-insensitive): ``parse`` when it mentions parsing,
JSON, a schema or validation (``parse_failed``, ``json_parse``, ``atsa_parse``,
``schema_validation``, ``JSON parse error``, ``invalid JSON``, ``JSONDecodeError``); ``generate``
when it mentions generation, a time-out, a rate limit, an API, HTTP or connection error
(``generate_failed``, ``timeout``, ``rate limit``, ``503``); ``other`` otherwise. Every failed row
is counted in ``n_failed`` and makes an implicit-gold row's prediction invalid (§3,
``implicit_invalid_sample_n``); ``n_parse_failed`` and ``n_generate_failed`` count the classes.
"""

from __future__ import annotations

import json
import re
from typing import Any

_PARSE = re.compile(r"pars|json|schema|validat|decod", re.I)
_GENERATE = re.compile(r"generat|time[ _-]?out|timed out|rate[ _-]?limit|\bapi\b|http|connect|quota|"
                       r"overload|unavailable|\b5\d\d\b", re.I)


def _non_empty(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, (list, tuple, dict)):
        return bool(value)
    return True


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
    if _GENERATE.search(message):
        return "generate"
    return "other"


def row_failure(entry: dict, *flag_holders: Any) -> dict[str, Any]:
    """Failure of one outputs.jsonl row (``entry``), also reading extra flag dicts (a scorecard's
    ``runtime.flags`` / top-level ``flags``). Returns ``{"failed", "kind", "parse_failed",
    "generate_failed", "error"}`` with ``error`` the first error text (or None)."""
    kinds: list[str] = []
    first: str | None = None
    for flags in (entry.get("flags"), *flag_holders):
        if not isinstance(flags, dict):
            continue
        kinds += [kind for key, kind in (("parse_failed", "parse"), ("generate_failed", "generate"),
                                         ("failed", "other")) if flags.get(key) == 1]   # True or 1
        err = flags.get("error")
        if _non_empty(err):
            first = first or _text(err)
            kinds.append(classify(_text(err)))
    trace = entry.get("process_trace")
    for step in trace if isinstance(trace, list) else ():
        if not isinstance(step, dict):
            continue
        err = step.get("error")
        if _non_empty(err):
            text = _text(err)
            first = first or text
            kinds.append(classify(text))
        notes = step.get("notes")
        if isinstance(notes, str) and re.search(r"parse_failed|generate_failed", notes):
            kinds.append(classify(notes))      # 0.1's marker texts in notes still count
    failed = bool(kinds)
    kind = "parse" if "parse" in kinds else "generate" if "generate" in kinds else ("other" if failed else None)
    return {"failed": failed, "kind": kind, "parse_failed": "parse" in kinds,
            "generate_failed": "generate" in kinds, "error": first}


def scorecard_failure(record: dict) -> dict[str, Any]:
    """Failure of one scorecard: its parsed row's trace and flags, ``runtime.flags``, the
    top-level ``flags`` and ``runtime.error``."""
    runtime = record.get("runtime") if isinstance(record.get("runtime"), dict) else {}
    entry = runtime.get("parsed_output") if isinstance(runtime.get("parsed_output"), dict) else {}
    extra = {"error": runtime.get("error")} if _non_empty(runtime.get("error")) else None
    return row_failure(entry, runtime.get("flags"), record.get("flags"), extra)
