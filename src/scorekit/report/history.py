"""The run history: every recorded evaluation in one embedded SQLite database.

Where: ``--store PATH``, else the environment variable ``SCOREKIT_STORE``, else
``~/.scorekit/runs.db`` (:func:`store_path`).

Safe with several writers: the database runs in WAL mode with a busy timeout, and each record is
one ``BEGIN IMMEDIATE`` transaction, so two evaluations finishing at the same moment both land
(the second waits for the first's lock instead of failing or overwriting). A file that is not
ours — not SQLite at all, corrupt, or another application's SQLite database — is refused with a
:class:`~scorekit.errors.ScorekitError`; it is never initialised over or silently rewritten. Our
databases are marked with ``PRAGMA application_id`` = :data:`APPLICATION_ID` and carry the schema
version in ``PRAGMA user_version``.

A run is stored whole (``Result.to_dict()`` as zlib-compressed JSON, per-item rows included, so
two runs can later be compared with paired significance tests) plus its metrics in a narrow table
for listing and leaderboards.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError

APPLICATION_ID = 0x53434B52   # "SCKR": marks a scorekit run store
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 60_000
ENV_STORE = "SCOREKIT_STORE"
_SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
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
"""


def default_store_path() -> Path:
    return Path.home() / ".scorekit" / "runs.db"


def store_path(path: str | os.PathLike | None = None) -> Path:
    """``path`` if given, else ``$SCOREKIT_STORE``, else ``~/.scorekit/runs.db``."""
    if path:
        return Path(path).expanduser()
    env = os.environ.get(ENV_STORE)
    return Path(env).expanduser() if env else default_store_path()


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


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class RunStore:
    """Open (creating if absent) a run store. Use as a context manager or call :meth:`close`."""

    def __init__(self, path: str | os.PathLike | None = None, *, create: bool = True):
        self.path = store_path(path)
        self._check_file(create)
        try:
            self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise ScorekitError(f"{self.path}: cannot open the run store: {exc}") from None
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._init_schema()
            self.conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise ScorekitError(f"{self.path}: not a usable scorekit run store ({exc}); "
                                "choose another file with --store or SCOREKIT_STORE") from None
        except BaseException:
            self.conn.close()
            raise

    # ------------------------------------------------------------------ opening and checking
    def _check_file(self, create: bool) -> None:
        p = self.path
        if p.is_dir():
            raise ScorekitError(f"{p}: the run store must be a file, found a directory")
        if p.exists():
            with open(p, "rb") as fh:
                head = fh.read(16)
            if head and head != _SQLITE_MAGIC:
                raise ScorekitError(f"{p}: not a scorekit run store (not an SQLite database); "
                                    "refusing to overwrite it — choose another file with --store")
            return
        if not create:
            raise ScorekitError(f"{p}: no run store here yet (record a run with --record first)")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ScorekitError(f"{p.parent}: cannot create the run store directory: {exc.strerror}") from None

    def _init_schema(self) -> None:
        c = self.conn
        # Read the marker and the table list in ONE read transaction: read separately, another
        # process could create the schema between the two reads and look like a foreign database.
        c.execute("BEGIN")
        try:
            app_id = c.execute("PRAGMA application_id").fetchone()[0]
            if app_id == 0:
                self._refuse_foreign_tables()
        finally:
            c.execute("COMMIT")
        if app_id == APPLICATION_ID:
            self._check_version()
            if c.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                c.execute("PRAGMA journal_mode = WAL")
            return
        if app_id != 0:
            raise ScorekitError(f"{self.path}: not a scorekit run store (SQLite application_id "
                                f"{app_id:#x}, another program's database); refusing to touch it")
        # A fresh (or empty) file: WAL first (needs no open transaction), then create the schema in
        # one write transaction, re-checking inside it since another process may have won the race.
        c.execute("PRAGMA journal_mode = WAL")
        c.execute("BEGIN IMMEDIATE")
        try:
            app_id = c.execute("PRAGMA application_id").fetchone()[0]
            if app_id == 0:
                self._refuse_foreign_tables()
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        c.execute(stmt)
                c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif app_id != APPLICATION_ID:
                raise ScorekitError(f"{self.path}: not a scorekit run store (application_id {app_id:#x})")
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        self._check_version()

    def _refuse_foreign_tables(self) -> None:
        tables = self.conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')").fetchall()
        if tables:
            raise ScorekitError(
                f"{self.path}: not a scorekit run store (an SQLite database with other tables: "
                f"{', '.join(t[0] for t in tables[:5])}); refusing to touch it")

    def _check_version(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise ScorekitError(f"{self.path}: run store written by a newer scorekit (schema {version}, "
                                f"this one reads up to {SCHEMA_VERSION}); upgrade scorekit")
        if version < 1:
            raise ScorekitError(f"{self.path}: damaged scorekit run store (no schema version)")

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """A damaged file can pass the header checks and fail later: say so in one line."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise ScorekitError(f"{self.path}: the run store is damaged or unreadable ({exc})") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------------------ writing
    def _record_impl(self, result: Any, *, source: str | None = None) -> int:
        """Store one result (a :class:`~scorekit.result.Result` or its dict); returns its run id."""
        data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
        if not isinstance(data.get("metrics"), dict) or not data.get("task"):
            raise ScorekitError("only a single result (with 'task' and 'metrics') can be recorded")
        blob = zlib.compress(json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8"), 6)
        metrics = [(k, float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None)
                   for k, v in data["metrics"].items()]
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            cur = c.execute(
                "INSERT INTO runs(task, name, signature, created, recorded, source, n_items, result) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (data["task"], data.get("name"), data.get("signature") or "", data.get("created"), _now(),
                 source, len(data.get("per_item") or []), blob))
            run_id = int(cur.lastrowid)
            c.executemany("INSERT INTO metrics(run_id, metric, value) VALUES (?, ?, ?)",
                          [(run_id, k, v) for k, v in metrics])
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return run_id

    def record_many(self, results: Iterable[Any], *, source: str | None = None) -> list[int]:
        return [self.record(r, source=source) for r in results]

    def _remove_impl(self, run_ids: Sequence[int]) -> list[int]:
        """Delete runs; returns the ids that existed (and are now gone)."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            found = [i for i in run_ids if c.execute("SELECT 1 FROM runs WHERE id = ?", (i,)).fetchone()]
            c.executemany("DELETE FROM metrics WHERE run_id = ?", [(i,) for i in found])
            c.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in found])
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return found

    # ------------------------------------------------------------------------------ reading
    def _metrics_of(self, ids: Sequence[int]) -> dict[int, dict[str, float | None]]:
        out: dict[int, dict[str, float | None]] = {i: {} for i in ids}
        if not ids:
            return out
        q = ",".join("?" * len(ids))
        for run_id, metric, value in self.conn.execute(
                f"SELECT run_id, metric, value FROM metrics WHERE run_id IN ({q}) ORDER BY rowid", list(ids)):
            out[run_id][metric] = value
        return out

    def _list_impl(self, *, task: str | None = None, name: str | None = None,
             limit: int | None = None) -> list[RunRecord]:
        """Recorded runs, newest first, optionally filtered by task and (substring of) name."""
        sql = "SELECT id, task, name, signature, created, recorded, source, n_items FROM runs"
        where, args = [], []
        if task:
            where.append("task = ?")
            args.append(task)
        if name:
            where.append("instr(coalesce(name, ''), ?) > 0")
            args.append(name)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        rows = self.conn.execute(sql, args).fetchall()
        metrics = self._metrics_of([r[0] for r in rows])
        return [RunRecord(*r, metrics=metrics[r[0]]) for r in rows]

    def _get_impl(self, run_id: int) -> dict[str, Any]:
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

    def _record_of_impl(self, run_id: int) -> RunRecord:
        row = self.conn.execute("SELECT id, task, name, signature, created, recorded, source, n_items "
                                "FROM runs WHERE id = ?", (int(run_id),)).fetchone()
        if row is None:
            self._get_impl(run_id)  # raises the friendly error
        return RunRecord(*row, metrics=self._metrics_of([row[0]])[row[0]])

    def _tasks_impl(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT task FROM runs ORDER BY task")]

    def _leaderboard_impl(self, task: str, metric: str, *, lower_is_better: bool = False, per_name: bool = True,
                    limit: int | None = None) -> list[RunRecord]:
        """Runs of ``task`` ranked by ``metric`` (best first). ``per_name``: only each system
        name's best run (unnamed runs count separately)."""
        order = "ASC" if lower_is_better else "DESC"
        rows = self.conn.execute(
            "SELECT r.id, r.task, r.name, r.signature, r.created, r.recorded, r.source, r.n_items, m.value "
            "FROM runs r JOIN metrics m ON m.run_id = r.id "
            f"WHERE r.task = ? AND m.metric = ? AND m.value IS NOT NULL ORDER BY m.value {order}, r.id DESC",
            (task, metric)).fetchall()
        seen: set[str] = set()
        picked = []
        for r in rows:
            key = r[2] if r[2] is not None else f"#{r[0]}"
            if per_name and key in seen:
                continue
            seen.add(key)
            picked.append(r[:8])
        if limit:
            picked = picked[:limit]
        metrics = self._metrics_of([r[0] for r in picked])
        return [RunRecord(*r, metrics=metrics[r[0]]) for r in picked]

    def _metric_names_impl(self, task: str) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT m.metric FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.task = ? "
            "GROUP BY m.metric ORDER BY min(m.rowid)", (task,))]

    # public methods: the implementations above, with damaged-file errors made friendly
    def record(self, result: Any, *, source: str | None = None) -> int:
        with self._guard():
            return self._record_impl(result, source=source)

    def remove(self, run_ids: Sequence[int]) -> list[int]:
        with self._guard():
            return self._remove_impl(run_ids)

    def list(self, *, task: str | None = None, name: str | None = None,
             limit: int | None = None) -> "list[RunRecord]":
        with self._guard():
            return self._list_impl(task=task, name=name, limit=limit)

    def get(self, run_id: int) -> dict[str, Any]:
        with self._guard():
            return self._get_impl(run_id)

    def record_of(self, run_id: int) -> RunRecord:
        with self._guard():
            return self._record_of_impl(run_id)

    def tasks(self) -> "list[str]":
        with self._guard():
            return self._tasks_impl()

    def leaderboard(self, task: str, metric: str, **kw: Any) -> "list[RunRecord]":
        with self._guard():
            return self._leaderboard_impl(task, metric, **kw)

    def metric_names(self, task: str) -> "list[str]":
        with self._guard():
            return self._metric_names_impl(task)
