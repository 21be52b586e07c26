"""The SQLite run history: round trips, concurrent writers, and refusing files that are not ours."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from report_helpers import load
from scorekit.errors import ScorekitError
from scorekit.report import history
from scorekit.report.history import APPLICATION_ID, RunStore
from scorekit.result import Result


def test_round_trip_list_get_leaderboard_remove(tmp_path):
    compare = load("retrieval_compare")
    with RunStore(tmp_path / "runs.db") as s:
        ids = [s.record(r, source="cmp.json") for r in compare["runs"]]
        cap = s.record(Result.from_dict(load("caption_ko")))
        assert ids == [1, 2, 3] and cap == 4
        assert [r.id for r in s.list()] == [4, 3, 2, 1]
        assert [r.name for r in s.list(task="retrieval")] == ["hybrid", "dense", "bm25"]
        assert [r.id for r in s.list(name="den")] == [2]
        got = s.get(2)
        assert got["per_item"] == compare["runs"][1]["per_item"] and got["_run_id"] == 2
        assert s.record_of(4).metrics == load("caption_ko")["metrics"]
        board = s.leaderboard("retrieval", "ndcg@10")
        vals = [r.metrics["ndcg@10"] for r in board]
        assert vals == sorted(vals, reverse=True) and len(board) == 3
        assert s.leaderboard("retrieval", "ndcg@10", lower_is_better=True)[0].name == "bm25"
        assert s.remove([2, 99]) == [2]
        with pytest.raises(ScorekitError, match="no run with id 2"):
            s.get(2)
        assert s.tasks() == ["caption", "retrieval"]
        assert s.metric_names("retrieval") == ["ndcg@10", "map@100", "mrr@10", "recall@100"]
    c = sqlite3.connect(tmp_path / "runs.db")
    assert c.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    c.close()


def test_leaderboard_keeps_each_names_best(tmp_path):
    with RunStore(tmp_path / "r.db") as s:
        for name, v in (("a", 0.1), ("a", 0.5), ("b", 0.3), (None, 0.2)):
            s.record(Result("t", {"m": v}, "sig", name=name))
        assert [(r.name, r.metrics["m"]) for r in s.leaderboard("t", "m")] == [("a", 0.5), ("b", 0.3), (None, 0.2)]
        assert len(s.leaderboard("t", "m", per_name=False)) == 4


def test_store_path_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv(history.ENV_STORE, raising=False)
    assert history.store_path() == Path.home() / ".scorekit" / "runs.db"
    monkeypatch.setenv(history.ENV_STORE, str(tmp_path / "env.db"))
    assert history.store_path() == tmp_path / "env.db"
    assert history.store_path(tmp_path / "x.db") == tmp_path / "x.db"


WRITER = textwrap.dedent("""
    import sys
    from scorekit.report.history import RunStore
    from scorekit.result import Result
    path, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(n):
        with RunStore(path) as s:   # open/close each time: init races too
            s.record(Result("retrieval", {"ndcg@10": i / n}, "sig", name=f"{who}-{i}",
                            per_item=[{"id": f"q{j}", "ndcg@10": j / 10} for j in range(50)]))
""")


def test_concurrent_writers_lose_nothing(tmp_path):
    db = tmp_path / "shared.db"   # does not exist yet: the writers race to create it
    n, k = 25, 4
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), f"w{w}", str(n)],
                              stderr=subprocess.PIPE, text=True) for w in range(k)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * k, errors
    with RunStore(db) as s:
        runs = s.list(limit=1000)
    assert len(runs) == n * k
    assert sorted(r.name for r in runs) == sorted(f"w{w}-{i}" for w in range(k) for i in range(n))
    assert sorted(r.id for r in runs) == list(range(1, n * k + 1))
    assert all(len(r.metrics) == 1 for r in runs)


def test_text_file_is_refused_and_untouched(tmp_path):
    p = tmp_path / "notes.db"
    p.write_bytes(b"my precious notes\n" * 10)
    with pytest.raises(ScorekitError, match="not an SQLite database"):
        RunStore(p)
    assert p.read_bytes() == b"my precious notes\n" * 10


def test_foreign_sqlite_is_refused_and_untouched(tmp_path):
    p = tmp_path / "other.db"
    c = sqlite3.connect(p)
    c.execute("CREATE TABLE accounts(id INTEGER, balance REAL)")
    c.execute("INSERT INTO accounts VALUES (1, 10.0)")
    c.commit()
    c.close()
    before = p.read_bytes()
    with pytest.raises(ScorekitError, match="other tables: accounts"):
        RunStore(p)
    assert p.read_bytes() == before
    c = sqlite3.connect(p)
    c.execute("PRAGMA application_id = 1234")
    c.commit()
    c.close()
    with pytest.raises(ScorekitError, match="application_id 0x4d2"):
        RunStore(p)


def test_newer_schema_and_damaged_store(tmp_path):
    p = tmp_path / "runs.db"
    with RunStore(p) as s:
        for i in range(30):
            s.record(Result("t", {"m": i}, "sig", per_item=[{"id": j, "m": j, "text": "x" * 200} for j in range(40)]))
    c = sqlite3.connect(p)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.execute(f"PRAGMA user_version = {history.SCHEMA_VERSION + 1}")
    c.commit()
    c.close()
    with pytest.raises(ScorekitError, match="newer scorekit"):
        RunStore(p)
    c = sqlite3.connect(p)
    c.execute(f"PRAGMA user_version = {history.SCHEMA_VERSION}")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.commit()
    c.close()
    raw = bytearray(p.read_bytes())
    raw[4096:len(raw) - 100] = b"\xa5" * (len(raw) - 4196)   # garble every page after the header page
    p.write_bytes(bytes(raw))
    with pytest.raises(ScorekitError, match="damaged|unreadable|not a usable"):
        with RunStore(p) as s:
            s.list()
            s.get(1)


def test_missing_store_for_reading(tmp_path):
    with pytest.raises(ScorekitError, match="no run store here yet"):
        RunStore(tmp_path / "nope.db", create=False)
