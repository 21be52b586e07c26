"""Issue #25: an output that is not a regular file is never replaced.

Every output option of every command, pointed at a character device (a ``mknod c 1 3`` copy of
/dev/null made in a temporary folder — never the real one) or at a FIFO with a reader, must leave
the node what it was and write the content through it; a symlink to a file stays a symlink.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from scorekit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
QRELS = str(EX / "retrieval" / "qrels.txt")
RUN1 = str(EX / "retrieval" / "run_v1.txt")
RUN2 = str(EX / "retrieval" / "run_v2.txt")
NEWS = str(EX / "summarization" / "news_en.jsonl")
SUMMARIES = str(EX / "summarization" / "summaries.jsonl")
CAP_P = str(EX / "caption" / "predictions_en.jsonl")
CAP_R = str(EX / "caption" / "references_en.csv")
TOPICS = str(EX / "topics" / "topics_en.json")
SWEEP = ["sweep", "--data", NEWS, "--n", "3,5", "--summarizer", "lead", "-m", "rouge,density,words", "--bootstrap", "20",
         "--limit", "5", "-q"]


def make_null(path: Path) -> Path:
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return path


class FifoReader:
    """A FIFO with a reader thread that collects everything written to it."""

    def __init__(self, path: Path):
        self.path = path
        os.mkfifo(path)
        self.data = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.path, "rb") as fh:        # blocks until a writer opens the FIFO
            self.data = fh.read()

    def finish(self) -> bytes:
        if self.thread.is_alive():                # nobody wrote: release the reader
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        self.thread.join(10)
        assert not self.thread.is_alive()
        return self.data


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A run store with two retrieval runs (ids 1 and 2) and a result JSON."""
    d = tmp_path_factory.mktemp("hist")
    db = d / "runs.db"
    assert main(["retrieval", "--qrels", QRELS, "--run", RUN1, "--run", RUN2, "-q", "--record",
                 "--store", str(db), "-o", str(d / "res.json")]) == 0
    return db


@pytest.fixture(scope="module")
def absa_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("absa")
    shutil.copytree(EX / "absa" / "results", root / "results")
    runs = [root / "results" / f"cr_demo__seed{s}_proposed" for s in (42, 123)]
    for r in runs:
        assert main(["absa", "scorecards", str(r), "-q"]) == 0
    return runs


# (id, args with DEST where the special file goes, the file name to give the node)
CASES = [
    ("retrieval -o", ["retrieval", "--qrels", QRELS, "--run", RUN1, "-q", "-o", "DEST"], "o.json"),
    ("retrieval --report", ["retrieval", "--qrels", QRELS, "--run", RUN1, "-q", "--report", "DEST"], "r.html"),
    ("retrieval --per-query", ["retrieval", "--qrels", QRELS, "--run", RUN1, "-q", "--per-query", "DEST"], "pq.csv"),
    ("fuse -o", ["fuse", "--run", RUN1, "--run", RUN2, "-q", "-o", "DEST"], "fused.txt"),
    ("caption -o", ["caption", "-p", CAP_P, "-r", CAP_R, "--lang", "en", "--metrics", "bleu", "-q", "-o", "DEST"],
     "c.json"),
    ("caption --report", ["caption", "-p", CAP_P, "-r", CAP_R, "--lang", "en", "--metrics", "bleu", "-q",
                          "--report", "DEST"], "c.html"),
    ("summary -o", ["summary", "-p", SUMMARIES, "-r", SUMMARIES, "-m", "rouge", "-q", "-o", "DEST"],
     "s.json"),
    ("summary --report", ["summary", "-p", SUMMARIES, "-r", SUMMARIES, "-m", "rouge", "-q",
                          "--report", "DEST"], "s.html"),
    ("sweep -o", [*SWEEP, "-o", "DEST"], "sw.json"),
    ("sweep --report", [*SWEEP, "--report", "DEST"], "sw.html"),
    ("sweep --table", [*SWEEP, "--table", "DEST"], "t.csv"),
    ("topics -o", ["topics", "--topics", TOPICS, "--pairs", "5", "-q", "-o", "DEST"], "t.json"),
    ("topics --report", ["topics", "--topics", TOPICS, "--pairs", "5", "-q", "--report", "DEST"], "t.html"),
    ("report --out", ["report", "RESULT", "--out", "DEST"], "page.html"),
    ("runs show --report", ["runs", "show", "1", "--store", "STORE", "--report", "DEST"], "show.html"),
    ("runs compare -o", ["runs", "compare", "1", "2", "--store", "STORE", "-o", "DEST"], "cmp.json"),
    ("runs compare --report", ["runs", "compare", "1", "2", "--store", "STORE", "--report", "DEST"],
     "cmp.html"),
    ("absa scorecards --out", ["absa", "scorecards", "RUN42", "-q", "--out", "DEST"], "sc.jsonl"),
    ("absa aggregate -o", ["absa", "aggregate", "RUN42", "-q", "-o", "DEST"], "agg.json"),
    ("absa aggregate --report", ["absa", "aggregate", "RUN42", "-q", "--report", "DEST"], "agg.html"),
    ("absa aggregate-seeds --out", ["absa", "aggregate-seeds", "RUN42", "RUN123", "-q", "--out", "DEST"],
     "seeds.csv"),
    ("absa aggregate-seeds -o", ["absa", "aggregate-seeds", "RUN42", "RUN123", "-q", "-o", "DEST"], "seeds.json"),
    ("absa report --out", ["absa", "report", "RUN42", "--out", "DEST"], "absa.html"),
]


def _args(template, dest, store, absa_runs):
    subst = {"DEST": str(dest), "STORE": str(store), "RESULT": str(store.parent / "res.json"),
             "RUN42": str(absa_runs[0]), "RUN123": str(absa_runs[1])}
    return [subst.get(a, a) for a in template]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith((".tmp", ".bak")))


@pytest.mark.parametrize("kind", ["chardev", "fifo"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_output_option_writes_through_special_file(tmp_path, capsys, store, absa_runs, case, kind):
    _, template, name = case
    dest = tmp_path / name
    reader = None
    if kind == "chardev":
        make_null(dest)
    else:
        reader = FifoReader(dest)
    code = main(_args(template, dest, store, absa_runs))
    err = capsys.readouterr().err
    data = reader.finish() if reader else None
    assert code == 0, err
    mode = os.lstat(dest).st_mode
    assert (stat.S_ISCHR(mode) if kind == "chardev" else stat.S_ISFIFO(mode)), "the node was replaced"
    if kind == "chardev":
        assert os.stat(dest).st_rdev == os.makedev(1, 3)
    else:
        assert len(data) > 20, "the FIFO's reader got nothing"
        if name.endswith(".json"):
            json.loads(data)
        elif name.endswith(".html"):
            assert b"<html" in data[:2000].lower()
    assert _leftovers(tmp_path) == []
    assert not [p for p in Path("/tmp").glob(f".{name}.*.tmp")]


def test_sweep_table_to_a_fifo_without_an_ending_takes_table_format(tmp_path, capsys):
    """--table takes its format from the name's ending; a FIFO or device has none, so
    --table-format names it, and the FIFO's reader gets the same Markdown a regular file gets."""
    reader = FifoReader(tmp_path / "pipe")
    args = [a for a in SWEEP if a != "-q"]
    assert main([*args, "-q", "--table", str(tmp_path / "pipe"), "--table-format", "markdown"]) == 0
    piped = reader.finish().decode()
    assert main([*args, "-q", "--table", str(tmp_path / "t.md")]) == 0
    assert piped == (tmp_path / "t.md").read_text() and piped.startswith("| summarizer |")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    capsys.readouterr()
    assert main([*args, "--table", str(tmp_path / "pipe")]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith(f"--table {tmp_path / 'pipe'}: expected a file name ending in .csv, .md or "
                                ".tex, or --table-format csv|markdown|latex")
    assert main([*args, "--table-format", "csv"]) == 2
    assert "--table-format goes with --table" in capsys.readouterr().err


def test_fifo_gets_the_same_bytes_as_a_regular_file(tmp_path, capsys):
    reader = FifoReader(tmp_path / "pq.fifo")
    args = ["retrieval", "--qrels", QRELS, "--run", RUN1, "--run", RUN2, "-q", "--per-query"]
    assert main([*args, str(reader.path)]) == 0
    assert main([*args, str(tmp_path / "pq.csv")]) == 0
    assert reader.finish() == (tmp_path / "pq.csv").read_bytes()


def test_symlink_to_a_file_stays_a_symlink(tmp_path, capsys):
    target = tmp_path / "real" / "o.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    for args in (["retrieval", "--qrels", QRELS, "--run", RUN1, "-q", "-o", str(link)],
                 ["fuse", "--run", RUN1, "--run", RUN2, "-q", "-o", str(link)]):
        assert main(args) == 0, capsys.readouterr().err
        assert link.is_symlink() and os.readlink(link) == str(target)
        assert target.read_text() != "old"
        target.write_text("old")
    assert _leftovers(tmp_path) == []


def test_one_device_for_two_options(tmp_path, capsys):
    null = make_null(tmp_path / "null")
    code = main(["retrieval", "--qrels", QRELS, "--run", RUN1, "-q", "-o", str(null), "--report", str(null),
                 "--per-query", str(null)])
    assert code == 0, capsys.readouterr().err
    assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_fuse_dash_writes_to_stdout(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["fuse", "--run", RUN1, "--run", RUN2, "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[1] == "Q0" and out.rstrip().endswith("rrf")
    assert list(tmp_path.iterdir()) == []


def test_socket_destination_is_refused_in_one_line(tmp_path, capsys):
    import socket

    path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    try:
        code = main(["retrieval", "--qrels", QRELS, "--run", RUN1, "-q", "-o", str(path)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and "--output" in err and "socket" in err
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        sock.close()


@pytest.mark.parametrize("option", ["sweep --plot", "report --png-dir", "absa aggregate --outdir"])
def test_folder_options_refuse_a_device(tmp_path, capsys, store, absa_runs, option):
    null = make_null(tmp_path / "folder")
    args = {"sweep --plot": [*SWEEP, "--plot", str(null)],
            "report --png-dir": ["report", str(store.parent / "res.json"), "--out", str(tmp_path / "r.html"),
                                 "--png-dir", str(null)],
            "absa aggregate --outdir": ["absa", "aggregate", str(absa_runs[0]), "-q", "--outdir", str(null)]}[option]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2 and option.split()[-1] in err and err.count("\n") == 1, err
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]


@pytest.mark.slow
def test_summarizer_outputs_write_through(tmp_path, capsys):
    """summarize -o / --report and train-summarizer --checkpoint (torch, the sentence encoder)."""
    null = make_null(tmp_path / "null")
    reader = FifoReader(tmp_path / "report.fifo")
    code = main(["summarize", "--num-test", "2", "--n", "7", "-q", "-o", str(null), "--report", str(reader.path)])
    data = reader.finish()
    assert code == 0, capsys.readouterr().err
    assert b"<html" in data[:2000].lower()
    ckpt = FifoReader(tmp_path / "policy.fifo")
    code = main(["train-summarizer", "--num-train", "3", "--n", "7", "--epochs", "1", "-q",
                 "--checkpoint", str(ckpt.path)])
    blob = ckpt.finish()
    assert code == 0, capsys.readouterr().err
    assert len(blob) > 1000
    assert stat.S_ISCHR(os.lstat(null).st_mode) and stat.S_ISFIFO(os.lstat(ckpt.path).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "policy.fifo", "report.fifo"]


@pytest.mark.parametrize("kind", ["chardev", "fifo"])
def test_library_writers_write_through(tmp_path, kind):
    """atomic_write (checkpoints, plots, fused runs, ABSA jsonl) never replaces a special file."""
    from scorekit.io.atomic import atomic_write

    dest = tmp_path / "x"
    reader = make_null(dest) if kind == "chardev" else FifoReader(dest)
    with atomic_write(dest) as fh:
        fh.write("héllo\n")
    with atomic_write(dest, "wb") if kind == "chardev" else _noop() as fh:
        fh.write(b"bytes")
    if kind == "fifo":
        assert reader.finish() == "héllo\n".encode()
        assert stat.S_ISFIFO(os.lstat(dest).st_mode)
    else:
        assert stat.S_ISCHR(os.lstat(dest).st_mode)
    assert list(tmp_path.iterdir()) == [dest]


class _noop:
    def __enter__(self):
        import io

        return io.BytesIO()

    def __exit__(self, *a):
        return None
