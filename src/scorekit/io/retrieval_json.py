"""JSON qrels / runs: ``{qid: {docid: rel}}`` and ``{qid: {docid: score}}`` (ranx / pytrec_eval
dict form), ``.json`` or ``.json.gz``. A ranked list ``{qid: [docid, ...]}`` is accepted too."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from scorekit.errors import InputError
from scorekit.io.atomic import read_text


def read_mapping(path: str | os.PathLike, what: str) -> dict[str, Any]:
    text = read_text(path, f"{what} file")
    if not text.strip():
        raise InputError(f"empty {what} file (expected a JSON object {{qid: {{docid: number}}}})", path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", path, exc.lineno) from None
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object {{qid: {{docid: number}}}}, found {type(data).__name__}", path)
    return data


def is_json_path(path: str | os.PathLike) -> bool:
    name = Path(path).name.lower()
    return name.endswith(".json") or name.endswith(".json.gz")
