"""Input shards: several files, a glob or a folder of shard files, in a stable order."""

from __future__ import annotations

import glob
import os
from pathlib import Path

from scorekit.errors import InputError

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
