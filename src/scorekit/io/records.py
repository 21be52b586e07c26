"""The one reader of text records (captions, summaries): JSONL, JSON arrays, CSV/TSV, Parquet and
``.txt`` files (``.gz`` too), and of input shards (:func:`expand`: several files, a glob or a
folder of shard files, in a stable order). A record is a dict with its line: a JSONL line (blank
lines skipped), a JSON array item or Parquet row (numbered from 1), a CSV/TSV row ``{column:
text}`` (the line where it ends; as many fields as the header), a ``.txt`` line as ``{"text":
line}``. Errors are one InputError naming the file and line.
"""

from __future__ import annotations

import csv
import glob
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorekit.errors import InputError
from scorekit.io.atomic import read_text
from scorekit.io.jsonfile import parse_json

Records = Iterator[tuple[int, dict[str, Any]]]
_CSV_LIMIT = 2**31 - 1    # the largest field size the csv module accepts on every platform


def allow_long_fields() -> None:
    """Let the csv module read fields of any length (process-wide): its 128 KiB default refuses a
    long caption, or a whole article given as a document. Every CSV reader of user data calls it."""
    if csv.field_size_limit() < _CSV_LIMIT:
        csv.field_size_limit(_CSV_LIMIT)


def file_kind(path: Path) -> str:
    """The format named by the extension (``.gz`` left out), lower case: ``jsonl``, ``csv``, ..."""
    name = path.name.lower().removesuffix(".gz")
    return name.rsplit(".", 1)[-1] if "." in name else ""


def read_records(path: Path, what: str) -> tuple[list[str] | None, Records]:
    """The columns of a CSV/TSV (its header) or Parquet file (None for the other formats) and the
    file's ``(line, record)``, read lazily (a bad line is met in file order)."""
    fmt = file_kind(path)
    if fmt == "parquet":
        try:
            import pyarrow.parquet as pq

            table = pq.read_table(path)
        except (OSError, ValueError) as exc:
            raise InputError(f"not a readable Parquet file ({exc})", path) from None
        return table.column_names, enumerate(table.to_pylist(), 1)
    text = read_text(path, what)
    if fmt in ("csv", "tsv"):
        allow_long_fields()
        reader = csv.reader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ",")
        try:
            header = next(reader, [])
        except csv.Error as exc:
            raise InputError(f"malformed CSV ({exc})", path) from None
        return header, _csv_rows(reader, header, path)
    if fmt == "json":
        data = parse_json(text, path)
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise InputError("expected a JSON array of objects", path)
        return None, enumerate(data, 1)
    if fmt == "txt":
        return None, ((no, {"text": line}) for no, line in enumerate(text.splitlines(), 1))
    return None, _jsonl_rows(text, path)


def _csv_rows(reader, header: list[str], path: Path) -> Records:
    try:
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise InputError(f"expected {len(header)} fields, got {len(row)}", path, reader.line_num)
            yield reader.line_num, dict(zip(header, row))
    except csv.Error as exc:
        raise InputError(f"malformed CSV ({exc})", path) from None


def _jsonl_rows(text: str, path: Path) -> Records:
    for no, line in enumerate(text.splitlines(), 1):
        if line.strip():
            rec = parse_json(line, path, no)
            if not isinstance(rec, dict):
                raise InputError("expected a JSON object per line", path, no)
            yield no, rec


SHARD_SUFFIXES = (".jsonl", ".json", ".parquet", ".txt", ".trec", ".tsv", ".csv", ".run", ".qrels")


def _is_shard(p: Path) -> bool:
    suffix = Path(p.name.removesuffix(".gz")).suffix.lower()
    return p.is_file() and not p.name.startswith(".") and (suffix in SHARD_SUFFIXES or not suffix)


def expand(specs: str | os.PathLike | list | tuple, what: str = "input") -> list[Path]:
    """Paths for each spec: a file as is, a folder's shard files sorted by name, a glob's matches
    sorted by name. Repeats are dropped; nothing found is an InputError naming the spec."""
    if isinstance(specs, (str, os.PathLike)):
        specs = [specs]
    out: list[Path] = []
    for spec in specs:
        p = Path(spec)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if _is_shard(f))
            if not found:
                raise InputError(f"{what}: no shard files in this folder (expected *.jsonl, *.parquet, "
                                 "TREC text or .gz of those)", p)
        elif p.exists():
            found = [p]
        else:
            found = sorted(Path(m) for m in glob.glob(str(spec)) if _is_shard(Path(m)))
            if not found:
                raise InputError(f"{what}: no such file, folder or matching glob", spec)
        out += [f for f in found if f not in out]
    return out
