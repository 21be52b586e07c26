"""The run history: every recorded evaluation in one embedded SQLite database, at ``--store
PATH``, else ``$SCOREKIT_STORE``, else ``~/.scorekit/runs.db`` (:func:`store_path`).

Storage and safety are docs/report.md's "Storage": WAL with a busy timeout, one ``BEGIN
IMMEDIATE`` transaction per record, each run whole (zlib-compressed ``Result.to_dict()``, per-item
rows included) plus its metrics in a narrow table; a file that is not ours is refused with a
:class:`~scorekit.errors.ScorekitError`, never initialised over or rewritten (ours carry ``PRAGMA
application_id`` = :data:`APPLICATION_ID` and the schema version in ``user_version``).
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import os
import secrets
import sqlite3
import stat
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from scorekit.errors import ScorekitError
from scorekit.io.atomic import special_kind

APPLICATION_ID = 0x53434B52   # "SCKR": marks a scorekit run store
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 60_000
ENV_STORE = "SCOREKIT_STORE"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_COLUMNS = "id, task, name, signature, created, recorded, source, n_items"

_CREATE = f"""PRAGMA journal_mode = WAL; BEGIN;
CREATE TABLE IF NOT EXISTS runs (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    task      TEXT NOT NULL,
    name      TEXT,
    signature TEXT NOT NULL,
    created   TEXT,
    recorded  TEXT NOT NULL,
    source    TEXT,
    n_items   INTEGER NOT NULL,
    result    BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    value  REAL,
    PRIMARY KEY (run_id, metric)
);
CREATE INDEX IF NOT EXISTS runs_task ON runs(task, recorded);
CREATE INDEX IF NOT EXISTS metrics_metric ON metrics(metric, value);
PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;
"""


def store_path(path: str | os.PathLike | None = None) -> Path:
    """``path`` if given, else ``$SCOREKIT_STORE``, else ``~/.scorekit/runs.db``."""
    if path:
        return Path(path).expanduser()
    env = os.environ.get(ENV_STORE)
    return Path(env).expanduser() if env else Path.home() / ".scorekit" / "runs.db"


def check_store_file(path: str | os.PathLike, option: str = "--store") -> None:
    """Refuse, in one line and without opening it (a FIFO would block), a store path that exists
    and is not a regular file (or a symlink to one): a folder, a FIFO, a device or a socket."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ScorekitError(f"{option} {path}: cannot read the run store: {exc.strerror}") from None
    if stat.S_ISREG(mode):
        return
    special = special_kind(path)
    kind = "a folder" if stat.S_ISDIR(mode) else f"a {special}" if special else "not a regular file"
    raise ScorekitError(f"{option} {path}: the run store must be a regular file, found {kind}")


def check_metrics(data: Any, where: str | None = None) -> None:
    """A result's metrics must be numbers (or null): ``{"ndcg": "high"}`` is refused in one line
    naming the metric, before anything is recorded."""
    metrics = data.get("metrics") if isinstance(data, dict) else None
    for name, value in (metrics.items() if isinstance(metrics, dict) else ()):
        if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            continue
        prefix = f"{where}: " if where else ""
        raise ScorekitError(f"{prefix}metric {name!r} is {json.dumps(value, ensure_ascii=False)[:40]}, "
                            "not a number; only numbers (or null) can be recorded")


def _is_busy(exc: sqlite3.Error) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another connection holds the lock (not damage)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (5, 6)     # SQLITE_BUSY, SQLITE_LOCKED (and their extended codes)
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _connect(target: Any, uri: bool = False) -> sqlite3.Connection:
    return sqlite3.connect(target, uri=uri, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)


def _uri(path: Path, query: str = "mode=ro") -> str:
    return f"file:{quote(str(path.resolve()))}?{query}"


def _probe_tables(query) -> None:
    names = {t[0] for t in query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"runs", "metrics"} <= names:
        raise sqlite3.DatabaseError("tables missing")
    query("SELECT count(*) FROM runs")
    query("SELECT count(*) FROM metrics")


@dataclass(frozen=True)
class RunRecord:
    id: int
    task: str
    name: str | None
    signature: str
    created: str | None
    recorded: str
    source: str | None
    n_items: int
    metrics: dict[str, float | None]


def _guarded(method):
    """``method`` with SQLite's errors said in one line: the lock held by another process, or a
    damaged file (one can pass the header checks and fail later)."""
    @functools.wraps(method)
    def guarded(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                raise self._busy() from None
            raise ScorekitError(f"{self.path}: the run store is damaged or unreadable ({exc})") from None

    return guarded


class RunStore:
    """A run store at ``path``. Use as a context manager or call :meth:`close`.

    Opening checks the file and changes nothing: an existing file must already be a scorekit store
    (its header is read directly, so no ``-wal``/``-shm`` file appears beside a file we refuse).
    Reading uses a read-only connection (a read-only store can be listed). The file is created on
    the first write only, built aside and linked into place complete."""

    def __init__(self, path: str | os.PathLike | None = None, *, create: bool = True):
        self.path = store_path(path)
        self.create = create
        self._ro: sqlite3.Connection | None = None
        self._rw: sqlite3.Connection | None = None
        # before anything opens it (a FIFO would block)
        check_store_file(self.path, "--store" if path else ENV_STORE if os.environ.get(ENV_STORE) else "run store")
        if os.path.lexists(self.path):
            self._check_existing()
        elif not create:
            raise self._missing()
        else:
            parent = self.path.parent
            while not parent.exists():
                parent = parent.parent
            for ok, why in ((parent.is_dir(), "is not a directory"),
                            (os.access(parent, os.W_OK | os.X_OK), "is not writable")):
                if not ok:
                    raise ScorekitError(f"{self.path}: cannot create the run store: {parent} {why}")

    # ------------------------------------------------------------------ opening and checking
    def _refuse(self, why: str) -> ScorekitError:
        return ScorekitError(f"{self.path}: {why}; refusing to touch it — choose another file with "
                             "--store or SCOREKIT_STORE")

    def _missing(self) -> ScorekitError:
        return ScorekitError(f"{self.path}: no run store here yet (record a run with --record first)")

    def _busy(self) -> ScorekitError:
        return ScorekitError(f"{self.path}: the run store is busy: another process holds its lock (waited "
                             f"{BUSY_TIMEOUT_MS / 1000:g} s); try again when it has finished")

    def _head(self) -> tuple[bytes, int]:
        with open(self.path, "rb") as fh:
            head = fh.read(100)
        return head, self.path.stat().st_size

    def _check_existing(self) -> None:
        try:
            head, size = self._head()
        except OSError as exc:
            raise ScorekitError(f"{self.path}: cannot read the run store: {exc.strerror}") from None
        app_id = int.from_bytes(head[68:72], "big", signed=True)
        version = int.from_bytes(head[60:64], "big", signed=True)
        if not head:
            raise self._refuse("an empty file (0 bytes), not a scorekit run store")
        if head[:16] != _SQLITE_MAGIC:
            raise self._refuse("not a scorekit run store (not an SQLite database)")
        if len(head) < 100:
            raise self._refuse("a damaged SQLite file (shorter than its header)")
        if app_id == 0:
            tables = self._peek("SELECT name FROM sqlite_master WHERE type IN ('table','view')")
            if tables:
                raise self._refuse("not a scorekit run store (an SQLite database with other tables: "
                                   f"{', '.join(t[0] for t in tables[:5])})")
            raise self._refuse("not a scorekit run store (an SQLite database without scorekit's marker, "
                               "made by another program)")
        if app_id != APPLICATION_ID:
            raise self._refuse(f"not a scorekit run store (SQLite application_id {app_id:#x}, another "
                               "program's database)")
        if version > SCHEMA_VERSION:
            raise ScorekitError(f"{self.path}: run store written by a newer scorekit (schema "
                                f"{version}, this one reads up to {SCHEMA_VERSION}); "
                                "upgrade scorekit")
        if version < 1:
            raise self._refuse("a damaged scorekit run store (no schema version)")
        why = self._damage(head, size)
        if why is not None and not self._sound_on_second_look():
            raise self._refuse(f"a damaged scorekit run store ({why})")

    def _damage(self, head: bytes, size: int) -> str | None:
        """What is wrong with a file that carries our marker, by a lock-free look at the main
        file alone (None when nothing is)."""
        page_size = int.from_bytes(head[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        n_pages = int.from_bytes(head[28:32], "big")
        if head[92:96] == head[24:28] and size < n_pages * page_size:
            return f"truncated: {size} bytes of {n_pages * page_size}"
        try:
            _probe_tables(self._peek)
        except sqlite3.DatabaseError as exc:
            return str(exc)
        return None

    def _sound_on_second_look(self) -> bool:
        """The lock-free look can catch another process mid-checkpoint (pages half copied from
        the WAL) and see damage that is not there: look again before refusing. With a WAL beside
        the file, as SQLite readers do (read-only, with locks and the WAL); with none, the
        checkpoint has finished (the WAL goes after it), so a second lock-free look will do and a
        damaged file gets no companions."""
        for _ in range(3):
            if os.path.exists(f"{self.path}-wal"):
                try:
                    conn = _connect(_uri(self.path), uri=True)
                except sqlite3.Error:
                    return False
                with closing(conn), suppress(sqlite3.Error):
                    _probe_tables(lambda sql: conn.execute(sql).fetchall())
                    return True
            else:
                try:
                    if self._damage(*self._head()) is None:
                        return True
                except OSError:
                    return False
            time.sleep(0.05)
        return False

    def _peek(self, sql: str) -> list[tuple]:
        """Run a query on the main file alone, read-only and immutable: SQLite creates no
        journal, WAL or shared-memory file beside it."""
        with closing(sqlite3.connect(_uri(self.path, "mode=ro&immutable=1"), uri=True)) as conn:
            return conn.execute(sql).fetchall()

    def _create(self) -> None:
        """Build a complete store beside the target and link it into place (first one wins)."""
        p = self.path
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ScorekitError(f"{p.parent}: cannot create the run store directory: {exc.strerror}") from None
        tmp = p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            with closing(sqlite3.connect(tmp, isolation_level=None)) as conn:
                conn.executescript(_CREATE)
            try:
                os.link(tmp, p)
            except FileExistsError:
                pass                      # another process created it first: use theirs
            except OSError:               # no hard links here: rename unless someone won meanwhile
                if not os.path.lexists(p):
                    os.replace(tmp, p)
        except sqlite3.Error as exc:
            raise ScorekitError(f"{p}: cannot create the run store: {exc}") from None
        except OSError as exc:
            raise ScorekitError(f"{p}: cannot create the run store: {exc.strerror}") from None
        finally:
            for extra in ("", "-wal", "-shm", "-journal"):
                with suppress(OSError):
                    os.unlink(f"{tmp}{extra}")

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection for reading: read-only (a store we may not write can still be read)."""
        if self._rw is not None:
            return self._rw
        if self._ro is None:
            if not os.path.lexists(self.path):
                raise self._missing()
            if os.access(self.path, os.R_OK | os.W_OK) and os.access(self.path.resolve().parent, os.W_OK | os.X_OK):
                # A store we could write is read through an ordinary connection made query-only:
                # when it closes, SQLite checkpoints and removes the -wal/-shm files it made, so a
                # `runs list` leaves nothing beside the store (a mode=ro connection cannot).
                try:
                    conn = _connect(self.path)
                    conn.execute("PRAGMA query_only = ON")
                    conn.execute("SELECT count(*) FROM runs").fetchone()
                    self._ro = conn
                    return conn
                except sqlite3.OperationalError as exc:
                    conn.close()
                    if _is_busy(exc):
                        raise self._busy() from None
            try:
                conn = _connect(_uri(self.path), uri=True)
                conn.execute("SELECT count(*) FROM runs").fetchone()
            except sqlite3.OperationalError as exc:
                if _is_busy(exc):
                    raise self._busy() from None
                # A WAL store in a directory we may not write: no shared-memory file can be made.
                # Nobody can be writing it either, so read the file as it is.
                conn = sqlite3.connect(_uri(self.path, "mode=ro&immutable=1"), uri=True,
                                       isolation_level=None)
            self._ro = conn
        return self._ro

    def _writer(self) -> sqlite3.Connection:
        if self._rw is None:
            if not os.path.lexists(self.path):
                if not self.create:
                    raise self._missing()
                self._create()
                self._check_existing()
            if not os.access(self.path, os.W_OK):
                raise ScorekitError(f"{self.path}: the run store is read-only; cannot write to it")
            try:
                conn = _connect(self.path)   # (its timeout is SQLite's busy timeout)
                conn.execute("PRAGMA foreign_keys = ON")
            except sqlite3.Error as exc:
                raise ScorekitError(f"{self.path}: cannot open the run store: {exc}") from None
            if self._ro is not None:
                self._ro.close()
            self._ro, self._rw = None, conn
        return self._rw

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` write transaction: committed whole or rolled back."""
        c = self._writer()
        c.execute("BEGIN IMMEDIATE")
        try:
            yield c
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def close(self) -> None:
        for conn in (self._ro, self._rw):
            if conn is not None:
                conn.close()
        self._ro = self._rw = None

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------------------ writing
    @_guarded
    def record(self, result: Any, *, source: str | None = None) -> int:
        """Store one result (a :class:`~scorekit.result.Result` or its dict); returns its run id."""
        from scorekit.result import _jsonable, is_finite_number

        data = _jsonable(result.to_dict() if hasattr(result, "to_dict") else dict(result))  # NaN -> null
        if not isinstance(data.get("metrics"), dict) or not data.get("task"):
            raise ScorekitError("only a single result (with 'task' and 'metrics') can be recorded")
        if not hasattr(result, "to_dict"):     # a result read from a file (`runs add`)
            check_metrics(data)
        blob = zlib.compress(json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8"), 6)
        metrics = [(k, float(v) if is_finite_number(v) else None) for k, v in data["metrics"].items()]
        with self._transaction() as c:
            cur = c.execute(
                "INSERT INTO runs(task, name, signature, created, recorded, source, n_items, result) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (data["task"], data.get("name"), data.get("signature") or "", data.get("created"),
                 _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                 source, len(data.get("per_item") or []), blob))
            run_id = int(cur.lastrowid)
            c.executemany("INSERT INTO metrics(run_id, metric, value) VALUES (?, ?, ?)",
                          [(run_id, k, v) for k, v in metrics])
        return run_id

    @_guarded
    def remove(self, run_ids: Sequence[int]) -> list[int]:
        """Delete runs; returns the ids that existed (and are now gone)."""
        with self._transaction() as c:
            found = [i for i in run_ids if c.execute("SELECT 1 FROM runs WHERE id = ?", (i,)).fetchone()]
            c.executemany("DELETE FROM metrics WHERE run_id = ?", [(i,) for i in found])
            c.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in found])
        return found

    # ------------------------------------------------------------------------------ reading
    def _records(self, rows: list[tuple]) -> list[RunRecord]:
        metrics: dict[int, dict[str, float | None]] = {r[0]: {} for r in rows}
        if rows:
            q = ",".join("?" * len(metrics))
            sql = f"SELECT run_id, metric, value FROM metrics WHERE run_id IN ({q}) ORDER BY rowid"
            for run_id, metric, value in self.conn.execute(sql, list(metrics)):
                metrics[run_id][metric] = value
        return [RunRecord(*r, metrics=metrics[r[0]]) for r in rows]

    @_guarded
    def list(self, *, task: str | None = None, name: str | None = None,
             limit: int | None = None) -> list[RunRecord]:
        """Recorded runs, newest first, optionally filtered by task and (substring of) name."""
        conds = {"task = ?": task, "instr(coalesce(name, ''), ?) > 0": name}
        where = [w for w, v in conds.items() if v]
        sql = (f"SELECT {_COLUMNS} FROM runs" + (f" WHERE {' AND '.join(where)}" if where else "")
               + " ORDER BY id DESC" + (f" LIMIT {int(limit)}" if limit else ""))
        return self._records(self.conn.execute(sql, [v for v in conds.values() if v]).fetchall())

    @_guarded
    def get(self, run_id: int) -> dict[str, Any]:
        """The stored result dict of one run (``_run_id`` added)."""
        row = self.conn.execute("SELECT result FROM runs WHERE id = ?", (int(run_id),)).fetchone()
        if row is None:
            known = [r[0] for r in self.conn.execute("SELECT id FROM runs ORDER BY id DESC LIMIT 5")]
            hint = f" (latest: {', '.join(map(str, known))})" if known else " (the store is empty)"
            raise ScorekitError(f"{self.path}: no run with id {run_id}{hint}")
        try:
            data = json.loads(zlib.decompress(row[0]).decode("utf-8"))
        except (zlib.error, ValueError) as exc:
            raise ScorekitError(f"{self.path}: run {run_id} is damaged in the store ({exc})") from None
        data["_run_id"] = int(run_id)
        return data

    @_guarded
    def record_of(self, run_id: int) -> RunRecord:
        rows = self.conn.execute(f"SELECT {_COLUMNS} FROM runs WHERE id = ?", (int(run_id),))
        rows = rows.fetchall()
        if not rows:
            self.get(run_id)  # raises the friendly error
        return self._records(rows)[0]

    @_guarded
    def tasks(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT task FROM runs ORDER BY task")]

    @_guarded
    def metric_names(self, task: str) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT m.metric FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.task = ? "
            "GROUP BY m.metric ORDER BY min(m.rowid)", (task,))]

    def leaderboards(self, *, task: str | None = None, metric: str | None = None, test_set: str | None = None,
                     all_runs: bool = False, top: int | None = None) -> "list[Leaderboard]":
        """The recorded runs ranked by ``metric`` (default: the task's headline metric), one board
        per task, test set and caption recipe (other qrels, references, language or recipe are
        never ranked together); each system name's best run unless ``all_runs``; at most ``top``
        runs each; only the test sets whose fingerprint starts with ``test_set``, if given."""
        from scorekit.errors import UnknownNameError
        from scorekit.report.model import PRIMARY_METRICS, lower_is_better
        from scorekit.result import is_finite_number
        from scorekit.signature import parse_signature

        tasks = self.tasks()
        if task and task not in tasks:
            raise UnknownNameError("task", task, tasks) if tasks else ScorekitError("the run store is empty")
        # (task, test set, recipe) -> (its description, the primary-metric hint, the runs)
        groups: dict[tuple[str, str, str], tuple[str, Any, list[RunRecord]]] = {}
        for t in [task] if task else tasks:
            for rec in reversed(self.list(task=t)):            # oldest first: metric order as recorded
                data = self.get(rec.id)
                fp = run_test_set(data)
                if test_set and not fp.startswith(test_set) and not fp.split(":", 1)[-1].startswith(test_set):
                    continue
                key = (t, fp, parse_signature(data.get("signature") or "").get("recipe", "scorekit"))
                hint = (data.get("extra") or {}).get("primary_metric")
                groups.setdefault(key, (describe_test_set(data), hint, []))[2].append(rec)
        if test_set and not groups:
            raise ScorekitError(f"no recorded run has a test set starting with {test_set!r} "
                                "(`scorekit runs leaderboard` lists them)")
        boards = []
        for (t, fp, recipe), (desc, hint, recs) in groups.items():
            names = list(dict.fromkeys(k for r in recs for k in r.metrics))
            m = metric
            if m is None:
                lower = {n.lower(): n for n in names}
                cands = ([hint] if isinstance(hint, str) else []) + list(PRIMARY_METRICS.get(t, ()))
                m = next((lower[c.lower()] for c in cands if c.lower() in lower), names[0] if names else None)
            if m is None or m not in names:
                continue
            lb = lower_is_better(m)
            ranked = sorted((r for r in recs if is_finite_number(r.metrics.get(m))),
                            key=lambda r: (r.metrics[m] if lb else -r.metrics[m], -r.id))
            if not all_runs:   # each system name's best (unnamed runs count separately)
                best: dict[str, RunRecord] = {}
                for r in ranked:
                    best.setdefault(r.name if r.name is not None else f"#{r.id}", r)
                ranked = list(best.values())
            boards.append(Leaderboard(t, fp, recipe, desc, m, lb, [m] + [n for n in names if n != m][:5],
                                      ranked[:top] if top else ranked))
        if metric and not boards:
            raise UnknownNameError("metric", metric, [n for t in ([task] if task else tasks)
                                                      for n in self.metric_names(t)])
        return boards


@dataclass(frozen=True)
class Leaderboard:
    """One ranking of :meth:`RunStore.leaderboards`: the runs of one task on one test set."""
    task: str
    test_set: str            # the fingerprint (``refs:…``, ``files:…``, ``ids:…``)
    recipe: str              # ``scorekit``, or the caption spec's recipe
    description: str         # language, items, the file it came from
    metric: str              # what it ranks by
    lower_is_better: bool
    columns: list[str]       # the metric, then up to five more the runs have
    runs: list[RunRecord]


def record_files(paths: Sequence[str | os.PathLike], store: str | os.PathLike | None = None
                 ) -> list[tuple[Any, list[int]]]:
    """Record result JSON files (every run of a multi-system file) in ``store``: every file is
    read and checked before anything is written. Returns each path with its new run ids."""
    from scorekit.report.model import read_result

    docs = [(p, read_result(p)) for p in paths]
    docs = [(p, data, data["runs"] if isinstance(data.get("runs"), list) else [data]) for p, data in docs]
    for p, _, runs in docs:
        for r in runs:
            check_metrics(r, str(p))
    out = []
    with RunStore(store, create=True) as s:
        for p, data, runs in docs:
            recs = [dict(r, task=r.get("task") or data.get("task"), inputs=dict(r.get("inputs") or {})) for r in runs]
            for rec in recs:   # the files a JSON names may have moved or changed: fingerprint its rows
                rec["inputs"].setdefault("test_set", run_test_set(rec))
            out.append((p, [s.record(rec, source=str(p)) for rec in recs]))
    return out


# --------------------------------------------------------------------- test sets (leaderboard groups)
# Runs are ranked together only when they were scored on the same test set: the same qrels or
# references, in the same language. The fingerprint is stamped into ``inputs["test_set"]`` when a
# run is recorded (``stamp_test_set``); a run recorded before that gets one computed from its
# stored rows (``run_test_set``).
TEST_SET_FILES = ("qrels", "references", "corpus", "data", "ratings", "gold")


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")).hexdigest()


def _file_digest(path: str) -> str | None:
    if Path(path).is_file():   # (a FIFO would block)
        with suppress(OSError), open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    return None


def compute_test_set(data: dict[str, Any], *, read_files: bool = False) -> str:
    """A fingerprint of what a run was scored against, plus its language: the references in its
    per-item rows (captions, summaries); else, with ``read_files`` (at recording time), the bytes
    of its qrels/references/corpus files; topic models scored without a corpus share ``none:``
    (their metrics read no test data); else its item ids (``ids:`` prefix — weaker: two qrels
    over the same queries look alike)."""
    inputs = data.get("inputs") or {}
    base = {"task": data.get("task"), "lang": inputs.get("lang")}
    rows = data.get("per_item") or []
    if rows and all(isinstance(r, dict) and "references" in r for r in rows):
        refs = sorted([str(r.get("id")), [r["references"]] if isinstance(r["references"], str)
                       else list(r["references"])] for r in rows)
        return "refs:" + _digest({**base, "references": refs})[:16]
    files = {k: d for k in TEST_SET_FILES if read_files and isinstance(inputs.get(k), str)
             and (d := _file_digest(str(inputs[k])))}
    if files:
        return "files:" + _digest({**base, **files})[:16]
    if data.get("task") == "topics" and not inputs.get("corpus"):
        # intrinsic topic metrics read no test data: every such topic model stands on the same ground
        return "none:" + _digest(base)[:16]
    ids = sorted(str(r.get("id")) for r in rows if isinstance(r, dict))
    return "ids:" + _digest({**base, "ids": ids, "n_items": inputs.get("n_items", inputs.get("n_queries"))})[:16]


def run_test_set(data: dict[str, Any]) -> str:
    """The run's test-set fingerprint: the one stamped at recording, else computed from its rows."""
    stamped = (data.get("inputs") or {}).get("test_set")
    return stamped if isinstance(stamped, str) and stamped else compute_test_set(data)


def stamp_test_set(result: Any) -> None:
    """Store the test-set fingerprint in a result's ``inputs`` before it is recorded (the files
    it names are read now, while they are there and unchanged)."""
    inputs = result.inputs if hasattr(result, "inputs") else result.setdefault("inputs", {})
    if inputs is not None and not (isinstance(inputs.get("test_set"), str) and inputs["test_set"]):
        data = result.to_dict() if hasattr(result, "to_dict") else result
        inputs["test_set"] = compute_test_set(data, read_files=True)


def describe_test_set(data: dict[str, Any]) -> str:
    """A short human description of a run's test set (language, items, the file it came from)."""
    inputs = data.get("inputs") or {}
    parts = [f"lang {inputs['lang']}"] if inputs.get("lang") else []
    n = inputs.get("n_items", inputs.get("n_queries", len(data.get("per_item") or [])))
    parts += [f"{n} items"] if n else []
    src = next((inputs[k] for k in TEST_SET_FILES if isinstance(inputs.get(k), str)), None)
    return ", ".join(parts + ([Path(src).name] if src else []))
