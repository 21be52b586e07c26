"""scorekit.io.outputs: check-on-register, temporaries, all-or-nothing commit and rollback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scorekit.errors import ScorekitError
from scorekit.io.outputs import Outputs


def tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes()) for p in sorted(root.rglob("*"))}


def test_commit_writes_everything(tmp_path):
    (tmp_path / "b.txt").write_text("old")
    with Outputs() as tx:
        a = tx.file(tmp_path / "a.txt", "-o")
        b = tx.file(tmp_path / "b.txt", "--table")
        d = tx.directory(tmp_path / "plots" / "x", "--plot")
        a.write_text("A")
        b.write_text("B")
        (d.staging / "p.png").write_bytes(b"png")
        assert not (tmp_path / "a.txt").exists()   # nothing visible before commit
    assert (tmp_path / "a.txt").read_text() == "A"
    assert (tmp_path / "b.txt").read_text() == "B"
    assert (tmp_path / "plots" / "x" / "p.png").read_bytes() == b"png"
    assert sorted(p.name for p in tmp_path.rglob(".*")) == []


def test_exception_in_work_leaves_nothing(tmp_path):
    (tmp_path / "keep.txt").write_text("keep")
    before = tree(tmp_path)
    with pytest.raises(RuntimeError):
        with Outputs() as tx:
            tx.file(tmp_path / "keep.txt", "-o").write_text("new")
            tx.file(tmp_path / "new.txt", "--report").write_text("x")
            d = tx.directory(tmp_path / "png", "--png-dir")
            (d.staging / "a.png").write_bytes(b"1")
            raise RuntimeError("work failed")
    assert tree(tmp_path) == before


def test_failure_during_commit_rolls_back(tmp_path, monkeypatch):
    (tmp_path / "first.txt").write_text("first-old")
    before = tree(tmp_path)
    real = os.replace
    calls = {"n": 0}

    def flaky(src, dst):
        if Path(dst).name == "second.txt":
            raise OSError(28, "No space left on device")
        calls["n"] += 1
        return real(src, dst)

    tx = Outputs()
    tx.file(tmp_path / "first.txt", "-o").write_text("first-new")
    tx.file(tmp_path / "sub" / "second.txt", "--table", create_parents=True).write_text("second")
    tx.file(tmp_path / "third.txt", "--report").write_text("third")
    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(ScorekitError, match=r"--table .*second.txt: cannot write: No space left"):
        tx.commit()
    monkeypatch.setattr(os, "replace", real)
    assert calls["n"] >= 1   # the first file had been replaced, and was restored
    assert tree(tmp_path) == before


@pytest.mark.parametrize("case", ["under_file", "dir", "missing", "duplicate", "dir_is_file"])
def test_register_checks(tmp_path, case):
    f = tmp_path / "f"
    f.write_text("x")
    tx = Outputs()
    with pytest.raises(ScorekitError) as err:
        if case == "under_file":
            tx.file(f / "o.json", "--output")
        elif case == "dir":
            tx.file(tmp_path, "--output")
        elif case == "missing":
            tx.file(tmp_path / "no" / "o.json", "--output")
        elif case == "duplicate":
            tx.file(tmp_path / "o.json", "--output")
            tx.file(tmp_path / "o.json", "--report")
        else:
            tx.directory(f, "--plot")
    assert "\n" not in str(err.value)
    assert str(tmp_path) in str(err.value)


def test_store_validated_up_front_and_recorded_at_commit(tmp_path):
    from scorekit.io.run_store import RunStore
    from scorekit.result import Result

    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not sqlite at all, definitely" * 10)
    with pytest.raises(ScorekitError, match="not a scorekit run store"):
        Outputs().store(bad)
    good = tmp_path / "deep" / "runs.db"
    tx = Outputs()
    s = tx.store(good)
    assert not good.exists() and not good.parent.exists()   # nothing created by the check
    s.add([Result(task="t", metrics={"m": 1.0}, signature="task:t")], None)
    tx.file(tmp_path / "o.json", "-o").write_text("{}")
    tx.commit()
    with RunStore(good, create=False) as st:
        assert len(st.list()) == 1


def test_store_rolled_back_when_a_file_fails(tmp_path, monkeypatch):
    from scorekit.result import Result

    store = tmp_path / "h" / "runs.db"
    tx = Outputs()
    tx.store(store).add([Result(task="t", metrics={"m": 1.0}, signature="task:t")], None)
    tx.file(tmp_path / "o.json", "-o").write_text("{}")
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda s, d: (_ for _ in ()).throw(OSError(13, "Permission denied")))
    with pytest.raises(ScorekitError):
        tx.commit()
    monkeypatch.setattr(os, "replace", real)
    assert list(tmp_path.iterdir()) == []


def test_stdout_written_only_at_commit(capsys):
    tx = Outputs()
    tx.stdout('{"a": 1}\n')
    assert capsys.readouterr().out == ""
    tx.commit()
    assert capsys.readouterr().out == '{"a": 1}\n'


# ------------------------------------------------ issue #25: destinations that are not regular files
def _fifo_reader(path: Path):
    import threading

    os.mkfifo(path)
    got: dict[str, bytes] = {}

    def read():
        with open(path, "rb") as fh:
            got["data"] = fh.read()

    t = threading.Thread(target=read, daemon=True)
    t.start()

    def finish() -> bytes | None:
        if t.is_alive():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        t.join(10)
        return got.get("data")

    return finish


def test_fifo_is_written_last_and_not_at_all_when_the_commit_fails(tmp_path, monkeypatch):
    import stat

    finish = _fifo_reader(tmp_path / "pipe")
    tx = Outputs()
    tx.file(tmp_path / "pipe", "--report").write_text("to the pipe")
    tx.file(tmp_path / "a.txt", "-o").write_text("A")
    monkeypatch.setattr(os, "replace", lambda s, d: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    with pytest.raises(ScorekitError, match="-o .*a.txt: cannot write"):
        tx.commit()
    monkeypatch.undo()
    assert finish() in (None, b"")                 # the reader got nothing: all or nothing
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_symlinks_stay_symlinks_in_folders_and_files(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "p.png").write_bytes(b"old")
    (real / "t.txt").write_text("old")
    out = tmp_path / "out"
    out.mkdir()
    (out / "p.png").symlink_to(real / "p.png")
    (tmp_path / "t.txt").symlink_to(real / "t.txt")
    with Outputs() as tx:
        d = tx.directory(out, "--plot")
        (d.staging / "p.png").write_bytes(b"new")
        tx.file(tmp_path / "t.txt", "--table").write_text("new")
    assert (out / "p.png").is_symlink() and (real / "p.png").read_bytes() == b"new"
    assert (tmp_path / "t.txt").is_symlink() and (real / "t.txt").read_text() == "new"
    assert not [p for p in tmp_path.rglob(".*")]


def test_device_temporary_is_not_made_beside_it(tmp_path):
    """The staging file for a device goes to the temporary folder, never next to the device
    (for -o /dev/null that would be /dev)."""
    import stat

    node = tmp_path / "devdir" / "null"
    node.parent.mkdir()
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    with Outputs() as tx:
        f = tx.file(node, "-o")
        f.write_text("x")
        assert f.tmp is not None and f.tmp.parent != node.parent
    assert sorted(p.name for p in node.parent.iterdir()) == ["null"]
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_a_destination_that_is_a_protected_input_is_refused(tmp_path):
    from scorekit.errors import ScorekitError
    from scorekit.io.outputs import Outputs

    src = tmp_path / "run.txt"
    src.write_text("q1 Q0 d1 1 1.0 x\n")
    os.link(src, tmp_path / "hard.txt")
    with Outputs() as tx:
        tx.protect(src, ["--run", "-r"])
        tx.protect(tmp_path / "missing.txt", ["--qrels"])          # not a file: nothing to protect
        for dest in (src, tmp_path / "hard.txt"):
            with pytest.raises(ScorekitError, match=r"--output .*: is an input of this command \(--run .*run.txt\)"):
                tx.file(dest, "--output")
        tx.file(tmp_path / "missing.txt", "--report")
        tx.file(src, "-r")   # the option that names the input may write it (absa scorecards --out)
        tx.abort()
    assert src.read_text() == "q1 Q0 d1 1 1.0 x\n"
