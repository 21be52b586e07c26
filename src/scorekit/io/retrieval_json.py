"""JSON qrels / runs: ``{qid: {docid: rel}}`` and ``{qid: {docid: score}}`` (ranx / pytrec_eval
dict form), ``.json`` or ``.json.gz``. A ranked list ``{qid: [docid, ...]}`` is accepted too."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from scorekit.io.jsonfile import read_json_object


def read_mapping(path: str | os.PathLike, what: str) -> dict[str, Any]:
    return read_json_object(path, f"{what} file", "a JSON object {qid: {docid: number}}")


def is_json_path(path: str | os.PathLike) -> bool:
    name = Path(path).name.lower()
    return name.endswith(".json") or name.endswith(".json.gz")
