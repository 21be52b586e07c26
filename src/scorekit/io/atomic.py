"""Write-then-rename output (:func:`atomic_write`: a reader never sees a half-written file; a
``/dev/null`` or FIFO destination is written through, never replaced), and one text opener
with clear errors.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

from scorekit.errors import InputError, ScorekitError


def special_kind(path: str | os.PathLike) -> str | None:
    """What ``path`` is when it exists (following symlinks) and is neither a regular file nor a
    folder: ``"character device"``, ``"FIFO"``, ``"socket"`` or ``"block device"``; else None."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    kinds = ((stat.S_ISCHR, "character device"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"),
             (stat.S_ISBLK, "block device"))
    return next((kind for test, kind in kinds if test(mode)), None)


def check_special(path: str | os.PathLike, option: str | None = None) -> str | None:
    """The kind of a destination written through (a character device such as ``/dev/null``, or a
    FIFO), None for an ordinary path; a socket or a block device is refused in one line."""
    kind = special_kind(path)
    where = f"{option} {path}" if option else str(path)
    if kind in ("socket", "block device"):
        raise ScorekitError(f"{where}: is a {kind}; refusing to write to it")
    if kind is not None and not os.access(path, os.W_OK):
        raise ScorekitError(f"{where}: the {kind} is not writable")
    return kind


def umask() -> int:
    """The process's umask (reading it means setting it: set back at once)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def resolve_link(path: str | os.PathLike) -> Path:
    """The file a destination really is: a symlink's target (so writing replaces the target and
    the link stays a link), otherwise ``path`` itself."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def write_through(src: IO[bytes], path: str | os.PathLike) -> None:
    """Copy ``src`` (from its start) into an existing character device or FIFO: opened for
    writing as it is, never created, truncated, replaced or renamed over."""
    src.seek(0)
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Write ``path`` all or nothing: a character device (``/dev/null``) or FIFO is written through
    once the content is complete, never replaced; a symlink stays one (its target is replaced)."""
    binary = "b" in mode
    if check_special(path) is not None:
        with tempfile.TemporaryFile("w+b") as spool:      # anonymous: nothing left on any exit
            if binary:
                yield spool
            else:
                fh = io.TextIOWrapper(spool, encoding=encoding)
                try:
                    yield fh
                    fh.flush()
                finally:
                    fh.detach()
            write_through(spool, path)
        return
    path = resolve_link(path)
    directory = path.parent   # (Path("x").parent is Path("."))
    if not directory.exists():
        raise InputError("output directory does not exist", directory)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~umask())   # mkstemp made it 0600; a plain open() would not
        os.replace(tmp, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def check_readable(path: str | os.PathLike, what: str = "file") -> Path:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{what} not found", p)
    if p.is_dir():
        raise InputError(f"expected a {what}, found a directory", p)
    return p


def read_bytes(path: str | os.PathLike, what: str = "file") -> bytes:
    """The whole file, gunzipped when it ends in ``.gz``; a file that cannot be read or a truncated,
    damaged or fake gzip file is an :class:`InputError` naming it (never a traceback)."""
    p = check_readable(path, what)
    try:
        if p.suffix == ".gz":
            with gzip.open(p, "rb") as fh:
                return fh.read()
        return p.read_bytes()
    except EOFError:
        raise InputError("truncated gzip file (the compressed stream ends early)", p) from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise InputError(f"not a valid gzip file ({exc})", p) from None
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror or exc}", p) from None


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """Whole-file read with invalid UTF-8 reported as one clear line (with the line number)."""
    p = check_readable(path, what)
    raw = read_bytes(p, what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"invalid UTF-8 (byte offset {exc.start})", p,
                         raw[: exc.start].count(b"\n") + 1) from None
    return text[1:] if text.startswith("\ufeff") else text
