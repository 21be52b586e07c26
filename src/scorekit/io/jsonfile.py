"""Whole-file JSON with errors that name the file, line and column.

Every reader that takes JSON (results, qrels/runs, captions, topics, lexicons, ABSA summaries)
goes through :func:`parse_json`, so a syntax error always reads ``path:line: invalid JSON: ...``.
"""

from __future__ import annotations

import json
import os
from typing import Any

from scorekit.errors import InputError
from scorekit.io.atomic import read_text


def parse_json(text: str, path: str | os.PathLike | None = None, line: int = 1) -> Any:
    """``json.loads`` raising InputError at the failing line (``line`` = where ``text`` starts)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", path, line + exc.lineno - 1) from None


def read_json_object(path: str | os.PathLike, what: str = "JSON file",
                     expected: str = "a JSON object") -> dict[str, Any]:
    """A file holding one JSON object; empty files, syntax errors and other shapes are InputErrors."""
    text = read_text(path, what)
    if not text.strip():
        raise InputError(f"empty {what} (expected {expected})", path)
    data = parse_json(text, path)
    if not isinstance(data, dict):
        raise InputError(f"expected {expected}, found {type(data).__name__}", path)
    return data
