"""Tolerant JSONL readers for outputs.jsonl / scorecards.jsonl (spec §1–§3): a malformed line
(bad JSON or UTF-8, a lone surrogate escape, not an object, a field of the wrong shape, an id
with a NUL byte) is skipped and recorded with its line and field, and the rest of the file is
read (the callers report the skips). Ids (``run_id``, ``text_id``, ``uid``, also in
``meta``/``runtime``) are normalised like text.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekit.io.atomic import check_readable, read_bytes
from scorekit.io.ids import clean_id
from scorekit.io.jsonfile import DuplicateKeyError, find_lone_surrogate, object_without_duplicates

# the ids a row carries (top level, and inside ``meta`` / ``runtime``): normalised like text
_ID_FIELDS = ("run_id", "text_id", "uid")


def _clean_ids(row: dict[str, Any]) -> str | None:
    """Normalise the row's id fields in place (:mod:`scorekit.io.ids`); the field of an id that
    cannot be one (a NUL byte), else None."""
    for holder, prefix in ((row, ""), (row.get("meta"), "meta."), (row.get("runtime"), "runtime.")):
        if not isinstance(holder, dict):
            continue
        for name in _ID_FIELDS:
            value = holder.get(name)
            if isinstance(value, str) and not (value.isascii() and "\x00" not in value):
                if "\x00" in value:
                    return prefix + name
                holder[name] = clean_id(value, what=name)
    return None


@dataclass(frozen=True)
class SkippedRow:
    line: int
    field: str | None
    reason: str

    def describe(self, path: str | os.PathLike | None = None) -> str:
        where = f"{path}:{self.line}" if path is not None else f"line {self.line}"
        what = f"field {self.field!r}: " if self.field else ""
        return f"{where}: skipped row: {what}{self.reason}"


@dataclass
class ReadResult:
    rows: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)    # line number of each kept row
    skipped: list[SkippedRow] = field(default_factory=list)
    path: str | None = None

    @property
    def n_skipped(self) -> int:
        return len(self.skipped)

    def warnings(self, limit: int = 20) -> list[str]:
        out = [s.describe(self.path) for s in self.skipped[:limit]]
        if len(self.skipped) > limit:
            out.append(f"{self.path}: … and {len(self.skipped) - limit} more skipped rows")
        return out


def read_jsonl(path: str | os.PathLike, model: type | None = None, *, what: str = "JSONL file",
               validate: bool = True) -> ReadResult:
    """Every JSON object line of ``path``, malformed ones skipped (and recorded); ``model``: a
    pydantic model each row must validate against (metrics work on the plain dicts, as written)."""
    from scorekit.absa.schemas import ValidationError, first_error

    p = check_readable(path, what)
    result = ReadResult(path=str(p))
    validator = model.model_validate if (model is not None and validate) else None
    data = read_bytes(p, "JSONL file").removeprefix(b"\xef\xbb\xbf")  # a damaged .gz: one line naming it
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            result.skipped.append(SkippedRow(lineno, None, f"invalid UTF-8 at byte {exc.start}"))
            continue
        try:   # plain json with a pairs hook: as fast as json.loads alone, and it sees duplicate keys
            row = json.loads(raw, object_pairs_hook=object_without_duplicates)
        except DuplicateKeyError as dup:
            result.skipped.append(SkippedRow(lineno, dup.key, "duplicate key in one JSON object (each key may appear once)"))
            continue
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            result.skipped.append(SkippedRow(lineno, None, f"not valid JSON ({exc})"))
            continue
        if not isinstance(row, dict):
            result.skipped.append(SkippedRow(lineno, None, f"expected a JSON object, found {type(row).__name__}"))
            continue
        if b"\\u" in raw:
            where = find_lone_surrogate(row)
            if where is not None:
                result.skipped.append(SkippedRow(lineno, None, f"lone surrogate escape in the string at {where} "
                                                 "(half of a UTF-16 pair, not a character)"))
                continue
        bad_id = _clean_ids(row)
        if bad_id is not None:
            result.skipped.append(SkippedRow(lineno, bad_id, "an id holding a NUL byte (\\x00)"))
            continue
        if validator is not None:
            try:
                validator(row)
            except ValidationError as exc:
                loc, msg = first_error(exc)
                result.skipped.append(SkippedRow(lineno, loc, msg))
                continue
        result.rows.append(row)
        result.lines.append(lineno)
    return result


def read_outputs(path: str | os.PathLike, *, validate: bool = True) -> ReadResult:
    from scorekit.absa.schemas import FinalOutputRow

    return read_jsonl(path, FinalOutputRow, what="outputs.jsonl", validate=validate)


def read_scorecards(path: str | os.PathLike, *, validate: bool = True) -> ReadResult:
    from scorekit.absa.schemas import Scorecard

    return read_jsonl(path, Scorecard, what="scorecards.jsonl", validate=validate)


def write_jsonl(path: str | os.PathLike, rows) -> int:
    """Write rows atomically (never a half-written file), making the folder; returns the number written."""
    from scorekit.io.atomic import atomic_write

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n" for row in rows]
    with atomic_write(path) as fh:
        fh.writelines(lines)
    return len(lines)
