"""One output transaction per command: every destination checked before work, written last
(README.md: "Outputs are all-or-nothing").

A command registers each place it will write (``-o`` JSON, ``--report`` HTML, tables, PNG
folders, a checkpoint, the run store) *before* working: registering checks it at once (its folder
exists or can be made, is a writable folder; two options do not name one file) and raises a
one-line :class:`~scorekit.errors.ScorekitError` naming the option and the path. The content goes
to temporaries beside the destinations; :meth:`Outputs.commit` records the runs in the store and
renames every temporary into place once all were written (a replaced file is kept as a hard-link
backup until the commit succeeded: on failure nothing new is left and every old file is
byte-identical). ``-o -`` (:data:`STDOUT`) writes the JSON to stdout at commit. A character
device (``-o /dev/null``) or FIFO gets the content staged in the system's temporary folder and
written through it last (no rename); a socket or block device is refused; a symlink's target is
the file replaced.

Typical use (the CLI's ``output_options`` does this for ``-o``/``--report``/``--store``)::

    with Outputs() as tx:                       # check-as-you-register; abort on exception
        table, plots = tx.file(path, "--table"), tx.directory(plot_dir, "--plot")
        ...work...
        table.write_text(text)
        savefig(plots.staging / "a.png")
        tx.store(store_path).add(results, source=...)
    # leaving the block without an exception commits
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from itertools import takewhile
from pathlib import Path
from typing import IO, Any

from scorekit.errors import ScorekitError
from scorekit.io.atomic import check_special, resolve_link, umask, write_through

STDOUT = "-"


def check_parent(path: Path, option: str, *, create_parents: bool = True) -> Path:
    """The folder ``path`` will be written into: it (or its nearest existing ancestor, when
    ``create_parents``) must be a writable folder. Returns that existing folder."""
    anchor = parent = path.parent   # (Path("x").parent is Path("."))
    while not os.path.lexists(anchor) and anchor.parent != anchor:
        anchor = anchor.parent
    if anchor != parent and not create_parents:
        raise ScorekitError(f"{option} {path}: output directory does not exist ({parent})")
    if not anchor.is_dir():
        raise ScorekitError(f"{option} {path}: {anchor} is a file, not a folder")
    if not os.access(anchor, os.W_OK | os.X_OK):
        raise ScorekitError(f"{option} {path}: folder {anchor} is not writable")
    return anchor


class _Dest:
    def __init__(self, path: Path, option: str):
        self.path, self.option = path, option

    @contextmanager
    def failing(self) -> Iterator[None]:
        """An OSError inside is one line naming the option and the path."""
        try:
            yield
        except OSError as exc:
            why = exc.strerror or exc
            raise ScorekitError(f"{self.option} {self.path}: cannot write: {why}") from None


class FileOutput(_Dest):
    """A file written through a temporary beside it."""

    def __init__(self, path: Path, option: str, create_parents: bool):
        super().__init__(path, option)
        if str(path) == STDOUT:
            raise ScorekitError(f"{option} -: expected a file name (only -o/--output can write to stdout)")
        if path.is_dir():
            raise ScorekitError(f"{option} {path}: is a folder; expected a file name")
        self.special = check_special(path, option)   # a device or FIFO: written through at commit
        self.target = path if self.special else resolve_link(path)
        if not self.special and os.path.lexists(self.target) and not os.access(self.target, os.W_OK):
            raise ScorekitError(f"{option} {path}: the file exists and is not writable")
        # the temporary goes beside the file it replaces (one rename), or, for a device or FIFO,
        # into the system's temporary folder (never /dev)
        self.anchor = None if self.special else check_parent(self.target, option, create_parents=create_parents)
        self.tmp: Path | None = None

    def temp_path(self) -> Path:
        """A fresh temporary file path for a writer that wants a path (``torch.save``,
        ``savefig``); it replaces the destination at commit."""
        self.discard()
        with self.failing():
            fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.anchor)
        os.close(fd)
        self.tmp = Path(name)
        return self.tmp

    @contextmanager
    def open(self, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
        binary = "b" in mode
        with self.failing(), open(self.temp_path(), mode, encoding=None if binary else encoding,
                                  newline=None if binary else "") as fh:
            yield fh

    def write_text(self, text: str) -> None:
        with self.open("w") as fh:
            fh.write(text)

    def discard(self) -> None:
        if self.tmp is not None:
            with suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None


def _make_parents(directory: Path) -> list[Path]:
    missing = [*takewhile(lambda p: not os.path.lexists(p), (directory, *directory.parents))][::-1]
    for m in missing:
        os.mkdir(m)
    return missing


def _place(src: Path, dest: Path, backups: list, new_paths: list) -> None:
    """Rename the finished temporary ``src`` over ``dest`` (a regular file, kept as a backup until
    the commit succeeds, or a symlink's target; devices and FIFOs are written through instead)."""
    dest = resolve_link(dest)
    if os.path.lexists(dest):
        fd, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".bak", dir=dest.parent)
        os.close(fd)
        os.unlink(name)
        try:
            os.link(dest, name)
        except OSError:
            shutil.copy2(dest, name)
        backups.append((Path(name), dest))
    else:
        new_paths.append(dest)
    os.replace(src, dest)


class DirOutput(_Dest):
    """A folder of files (PNG plots, LaTeX tables): writers put files into :attr:`staging`; at
    commit they move into the folder (created, with its parents, if missing)."""

    def __init__(self, path: Path, option: str):
        super().__init__(path, option)
        if os.path.lexists(path) and not path.is_dir():
            raise ScorekitError(f"{option} {path}: is a file; expected a folder")
        if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
            raise ScorekitError(f"{option} {path}: folder is not writable")
        self.anchor = path if path.is_dir() else check_parent(path, option)
        self._staging: Path | None = None

    @property
    def staging(self) -> Path:
        if self._staging is None:
            with self.failing():
                self._staging = Path(tempfile.mkdtemp(prefix=".scorekit-", suffix=".tmp", dir=self.anchor))
        return self._staging

    def discard(self) -> None:
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None


class StoreOutput(_Dest):
    """The run store: validated now (an existing file must be a scorekit store), written at commit."""

    def __init__(self, path: Path | None, option: str):
        from scorekit.io.run_store import RunStore, check_store_file, store_path

        resolved = store_path(path)
        super().__init__(resolved, option)
        self.pending: list[tuple[Any, str | None]] = []
        check_store_file(resolved, option)   # a folder, FIFO or device: refused before opening it
        if resolved.exists() and resolved.stat().st_size > 0:   # an empty file is a new store
            if not os.access(resolved, os.R_OK | os.W_OK):
                raise ScorekitError(f"{option} {resolved}: the run store is not writable")
            RunStore(resolved, create=False).close()   # a file that is not a usable store: one line
        else:
            check_parent(resolved, option)

    def add(self, results: Sequence[Any], source: str | None) -> None:
        self.pending += [(r, source) for r in results]


class Outputs:
    """The set of destinations of one command (see the module doc)."""

    def __init__(self) -> None:
        self.files: list[FileOutput] = []
        self.dirs: list[DirOutput] = []
        self.stores: list[StoreOutput] = []
        self.stdout_text: list[str] = []
        self.recorded: list[tuple[Path, list[int]]] = []
        self.inputs: list[tuple[tuple[int, int], str, tuple[str, ...]]] = []   # (dev, inode), path, its options
        self.committed = False
        self._after: list[Any] = []

    # ------------------------------------------------------------------ registering (= checking)
    def protect(self, path: str | os.PathLike, options: Sequence[str]) -> None:
        """``path`` is an input of the command, given to ``options`` (the first named in the error):
        no destination of another option may be that file (``-o qrels.txt`` would replace it)."""
        with suppress(OSError, ValueError):
            st = os.stat(path)
            if stat.S_ISREG(st.st_mode):
                self.inputs.append(((st.st_dev, st.st_ino), str(path), tuple(options)))

    def _same(self, path: Path, option: str) -> None:
        if check_special(path, option) == "character device":
            return          # -o /dev/null --report /dev/null: both written through, harmlessly
        with suppress(OSError, ValueError):
            st = os.stat(path)
            for key, src, options in self.inputs:
                if key == (st.st_dev, st.st_ino) and option not in options:
                    raise ScorekitError(f"{option} {path}: is an input of this command ({options[0]} {src}); "
                                        "refusing to overwrite it")
        key = os.path.realpath(path)
        for d in [*self.files, *self.dirs, *self.stores]:
            if os.path.realpath(d.path) == key:
                raise ScorekitError(f"{option} {path}: the same path is also given to {d.option}")

    def file(self, path: str | os.PathLike, option: str, *, create_parents: bool = False) -> FileOutput:
        self._same(Path(path), option)
        self.files.append(FileOutput(Path(path), option, create_parents))
        return self.files[-1]

    def directory(self, path: str | os.PathLike, option: str) -> DirOutput:
        if str(path) == STDOUT:
            raise ScorekitError(f"{option} -: expected a folder name")
        self._same(Path(path), option)
        self.dirs.append(DirOutput(Path(path), option))
        return self.dirs[-1]

    def store(self, path: str | os.PathLike | None, option: str = "--store") -> StoreOutput:
        dest = StoreOutput(Path(path) if path else None, option)
        for s in self.stores:
            if os.path.abspath(s.path) == os.path.abspath(dest.path):
                return s
        self._same(dest.path, option)
        self.stores.append(dest)
        return dest

    def stdout(self, text: str) -> None:
        """Text for stdout, printed at commit (``-o -``)."""
        self.stdout_text.append(text)

    def after_commit(self, fn) -> None:
        """Run ``fn()`` once everything is in place (messages such as 'wrote FILE')."""
        self._after.append(fn)

    # ------------------------------------------------------------------------------ finishing
    def abort(self) -> None:
        for dest in [*self.files, *self.dirs]:
            dest.discard()
        self.stdout_text.clear()

    def commit(self) -> None:
        if self.committed:
            return
        self.committed = True
        # new files and folders, (backup, original) of replaced files, folders and stores made
        new_paths, backups, made_dirs, new_stores = [], [], [], []
        through: list[tuple[Path, Path, _Dest]] = []   # (staged file, device or FIFO, its option)
        try:
            # 1. the run store: one SQLite transaction per run; undone below on a later failure
            for s in self.stores:
                if not s.pending:
                    continue
                from scorekit.io.run_store import RunStore  # sqlite3: only when a run is recorded

                if not s.path.exists():
                    made_dirs += _make_parents(s.path.parent)
                    new_stores.append(s.path)
                with RunStore(s.path) as store:
                    ids: list[int] = []
                    self.recorded.append((s.path, ids))
                    for result, source in s.pending:
                        ids.append(store.record(result, source=source))
            # 2. files: back up what they replace, then rename the temporaries into place
            for f in self.files:
                if f.tmp is None or f.special:
                    continue
                with f.failing():
                    made_dirs += _make_parents(f.target.parent)
                    os.chmod(f.tmp, 0o666 & ~umask())
                    _place(f.tmp, f.target, backups, new_paths)
                    f.tmp = None
            # 3. folders: move each staged file in
            for d in self.dirs:
                if d._staging is None:
                    continue
                with d.failing():
                    if not d.path.exists():
                        made_dirs += _make_parents(d.path)
                    for src in sorted(d._staging.iterdir()):
                        target = d.path / src.name
                        if check_special(target, d.option):
                            through.append((src, target, d))
                        else:
                            _place(src, target, backups, new_paths)
            # 4. devices and FIFOs last (a write through cannot be taken back): -o /dev/null
            through += [(f.tmp, f.path, f) for f in self.files if f.tmp is not None and f.special]
            for src, target, dest in through:
                with dest.failing(), open(src, "rb") as fh:
                    write_through(fh, target)
            for dest in [*self.files, *self.dirs]:   # the staged copies of devices, FIFOs and folders
                dest.discard()
        except BaseException:
            self._rollback(new_paths, backups, made_dirs, new_stores)
            self.abort()
            raise
        for backup, _ in backups:
            with suppress(OSError):
                os.unlink(backup)
        if self.stdout_text:
            sys.stdout.write("".join(self.stdout_text))
            sys.stdout.flush()
        for fn in self._after:
            fn()

    def _rollback(self, new_paths, backups, made_dirs, new_stores) -> None:
        from scorekit.io.run_store import RunStore

        for p in new_paths:
            with suppress(OSError):
                os.unlink(p)
        for backup, original in backups:
            with suppress(OSError):
                os.replace(backup, original)
        for path, ids in self.recorded:
            if path in new_stores:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    with suppress(OSError):
                        os.unlink(f"{path}{suffix}")
            elif ids:
                with suppress(Exception), RunStore(path, create=False) as store:
                    store.remove(ids)
        for d in reversed(made_dirs):
            with suppress(OSError):
                os.rmdir(d)

    # ----------------------------------------------------------------------- context manager
    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.commit() if exc_type is None else self.abort()
