"""The SQLite run history: round trips, concurrent writers, and refusing files that are not ours."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.report.report_helpers import load
from scorekit.errors import ScorekitError
from scorekit.io import run_store as history
from scorekit.io.run_store import APPLICATION_ID, RunStore
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
        [board] = s.leaderboards(task="retrieval", metric="ndcg@10")
        vals = [r.metrics["ndcg@10"] for r in board.runs]
        assert vals == sorted(vals, reverse=True) and len(board.runs) == 3 and not board.lower_is_better
        assert board.columns[0] == "ndcg@10" and board.runs[-1].name == "bm25"
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
        [board] = s.leaderboards(task="t", metric="m")
        assert [(r.name, r.metrics["m"]) for r in board.runs] == [("a", 0.5), ("b", 0.3), (None, 0.2)]
        assert len(s.leaderboards(task="t", metric="m", all_runs=True)[0].runs) == 4
        assert len(s.leaderboards(task="t", top=2)[0].runs) == 2
        s.record(Result("t", {"error_rate": 0.4}, "sig", name="c"))
        s.record(Result("t", {"error_rate": 0.1}, "sig", name="d"))
        [low] = s.leaderboards(task="t", metric="error_rate")
        assert low.lower_is_better and [r.name for r in low.runs] == ["d", "c"]


def test_store_path_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv(history.ENV_STORE, raising=False)
    assert history.store_path() == Path.home() / ".scorekit" / "runs.db"
    monkeypatch.setenv(history.ENV_STORE, str(tmp_path / "env.db"))
    assert history.store_path() == tmp_path / "env.db"
    assert history.store_path(tmp_path / "x.db") == tmp_path / "x.db"


WRITER = textwrap.dedent("""
    import sys
    from scorekit.io.run_store import RunStore
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


# ---------------------------------------------------------------- refusing without touching
def _listing(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def _assert_refused_untouched(p: Path, match: str, create: bool) -> None:
    before = _listing(p.parent)
    with pytest.raises(ScorekitError, match=match):
        with RunStore(p, create=create) as s:
            s.list()
            s.record(Result("t", {"m": 1.0}, "sig"))
    assert _listing(p.parent) == before, "a refused file was changed or got companions (-wal/-shm)"


@pytest.mark.parametrize("create", [True, False])
def test_zero_byte_file_is_refused_untouched(tmp_path, create):
    p = tmp_path / "runs.db"
    p.write_bytes(b"")
    _assert_refused_untouched(p, "empty file", create)


@pytest.mark.parametrize("create", [True, False])
def test_empty_sqlite_of_another_program_is_refused_untouched(tmp_path, create):
    p = tmp_path / "other.db"
    c = sqlite3.connect(p)
    c.execute("PRAGMA user_version = 7")   # forces the file to be written, still no tables
    c.commit()
    c.close()
    assert p.stat().st_size > 0
    _assert_refused_untouched(p, "another program", create)


def test_damaged_store_gets_no_wal_or_shm_files(tmp_path):
    p = tmp_path / "runs.db"
    with RunStore(p) as s:
        for i in range(20):
            s.record(Result("t", {"m": i}, "sig", per_item=[{"id": j, "text": "x" * 300} for j in range(30)]))
    raw = bytearray(p.read_bytes())
    raw[4096:] = b"\x5a" * (len(raw) - 4096)
    p.write_bytes(bytes(raw))
    _assert_refused_untouched(p, "damaged", True)
    p.write_bytes(bytes(raw[:8192]))           # truncated
    _assert_refused_untouched(p, "damaged", True)


def test_nan_metric_is_stored_as_null(tmp_path):
    with RunStore(tmp_path / "r.db") as s:
        i = s.record({"task": "t", "metrics": {"m": float("nan"), "n": 0.5}, "signature": "x"})
        assert s.record_of(i).metrics == {"m": None, "n": 0.5}
        assert s.get(i)["metrics"]["m"] is None


def test_opening_for_writing_creates_nothing_until_the_first_record(tmp_path):
    p = tmp_path / "sub" / "runs.db"
    with RunStore(p):
        pass
    assert not (tmp_path / "sub").exists()
    with RunStore(p) as s:
        s.record(Result("t", {"m": 1.0}, "sig"))
    assert sorted(x.name for x in p.parent.iterdir()) == ["runs.db"]


def test_read_only_store_can_be_listed_by_another_user(tmp_path):
    """A store the user may read but not write (file 0444 in a 0555 directory), opened by a
    non-root user: listing works; recording is one clear error."""
    import os

    from tests.as_nobody import nobody_can_run_scorekit

    if not nobody_can_run_scorekit():
        pytest.skip("needs root, and a checkout user nobody can read")
    d = tmp_path / "ro"
    d.mkdir()
    p = d / "runs.db"
    with RunStore(p) as s:
        s.record(Result("t", {"m": 0.25}, "sig", name="sys-a"))
    os.chmod(p, 0o444)
    os.chmod(d, 0o555)
    for up in [tmp_path, *tmp_path.parents]:
        if up == Path("/"):
            break
        os.chmod(up, os.stat(up).st_mode | 0o005)
    before = _listing(d)
    code = textwrap.dedent(f"""
        import sys
        from scorekit.io.run_store import RunStore
        from scorekit.errors import ScorekitError
        from scorekit.result import Result
        with RunStore({str(p)!r}, create=False) as s:
            print([r.name for r in s.list()], s.get(1)["metrics"])
        try:
            with RunStore({str(p)!r}) as s:
                s.record(Result("t", {{"m": 1.0}}, "sig"))
        except ScorekitError as e:
            print("refused:", e)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                          sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/")
    assert out.returncode == 0, out.stderr
    assert "['sys-a'] {'m': 0.25}" in out.stdout
    assert "refused:" in out.stdout and "read-only" in out.stdout
    assert _listing(d) == before


# ------------------------------------------------------------------ issue #25: the environment
def _sk(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "scorekit", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("kind", ["fifo", "chardev", "folder"])
def test_store_that_is_not_a_regular_file_is_refused_without_blocking(tmp_path, kind):
    import os
    import stat

    node = tmp_path / "store.db"
    if kind == "fifo":
        os.mkfifo(node)
    elif kind == "chardev":
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:
        node.mkdir()
    with pytest.raises(ScorekitError, match="must be a regular file"):
        RunStore(node, create=False)
    res = tmp_path / "r.json"
    res.write_text('{"task": "t", "metrics": {"m": 1.0}, "signature": "task:t"}')
    qrels = Path(__file__).resolve().parents[2] / "examples" / "retrieval" / "qrels.txt"
    for args in (["runs", "list", "--store", node], ["runs", "add", res, "--store", node],
                 ["retrieval", "--qrels", qrels, "--run", qrels.with_name("run_v1.txt"), "-q", "--record",
                  "--store", node]):
        proc = _sk(*args, timeout=30)          # a FIFO opened for its header would block forever
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert "--store" in lines[0] and str(node) in lines[0]
    mode = os.lstat(node).st_mode
    assert {"fifo": stat.S_ISFIFO, "chardev": stat.S_ISCHR, "folder": stat.S_ISDIR}[kind](mode)


def test_read_only_commands_leave_no_wal_or_shm(tmp_path):
    store = tmp_path / "store.db"
    with RunStore(store) as s:
        for r in load("retrieval_compare")["runs"]:
            s.record(r)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.db"]
    for args in (["list"], ["show", "1"], ["compare", "1", "2"], ["leaderboard"], ["rm", "99"]):
        proc = _sk("runs", *args, "--store", store)
        assert proc.returncode in (0, 2), proc.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["store.db"], args


def test_held_lock_is_busy_not_damaged(tmp_path, monkeypatch):
    store = tmp_path / "store.db"
    with RunStore(store) as s:
        s.record(Result(task="t", metrics={"m": 1.0}, signature="task:t"))
    monkeypatch.setattr(history, "BUSY_TIMEOUT_MS", 100)
    holder = sqlite3.connect(store, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("DELETE FROM metrics WHERE 0")
        for action in (lambda st: st.list(), lambda st: st.record(Result(task="t", metrics={"m": 2.0},
                                                                          signature="task:t"))):
            with RunStore(store) as st, pytest.raises(ScorekitError) as err:
                action(st)
            assert "busy" in str(err.value) and "damaged" not in str(err.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with RunStore(store) as s:
        assert len(s.list()) == 1


@pytest.mark.parametrize("value", ['"high"', "true", "[1]", '{"a": 1}'])
def test_runs_add_refuses_a_metric_that_is_not_a_number(tmp_path, value):
    res = tmp_path / "r.json"
    res.write_text('{"task": "retrieval", "signature": "x", "metrics": {"map": 0.5, "ndcg": %s}}' % value)
    proc = _sk("runs", "add", res, "--store", tmp_path / "store.db")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "'ndcg'" in lines[0] and "not a number" in lines[0] and "r.json" in lines[0]
    assert not (tmp_path / "store.db").exists()
