"""Write-then-rename output, and one text opener with clear errors.

``atomic_write`` guarantees a reader never sees a half-written file: the content goes to a
temporary file in the same directory and is renamed over the target only when complete.
"""

from __future__ import annotations

import gzip
import io
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from scorekit.errors import InputError


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.exists():
        raise InputError("output directory does not exist", directory)
    binary = "b" in mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates 0600 files; give the result the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def check_readable(path: str | os.PathLike, what: str = "file") -> Path:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{what} not found", p)
    if p.is_dir():
        raise InputError(f"expected a {what}, found a directory", p)
    return p


def open_text(path: str | os.PathLike, what: str = "file") -> IO[str]:
    """Open a UTF-8 text file, transparently gunzipping ``*.gz``; strict decoding.

    Invalid UTF-8 surfaces as an ``InputError`` naming the file when it is read (callers that
    iterate lines should catch ``UnicodeDecodeError`` via :func:`read_lines`).
    """
    p = check_readable(path, what)
    if p.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8", errors="strict")
    return open(p, encoding="utf-8", errors="strict")


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """Whole-file read with invalid UTF-8 reported as one clear line (with the line number)."""
    p = check_readable(path, what)
    raw = gzip.open(p, "rb").read() if p.suffix == ".gz" else p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"invalid UTF-8 (byte offset {exc.start})", p, line) from None
    return text[1:] if text.startswith("\ufeff") else text
