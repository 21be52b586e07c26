"""scorekit.forkmap: parts on forked children give exactly the plain loop's results, in order; a
child that dies is recomputed in the parent; nothing is left running."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from scorekit import forkmap
from scorekit.forkmap import default_workers, fork_map, split

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


@pytest.mark.parametrize("n,parts", [(0, 2), (1, 3), (7, 2), (10, 3), (10, 10), (5, 9)])
def test_split_covers_every_index_once_in_order(n, parts):
    got = split(n, parts)
    assert [i for rg in got for i in rg] == list(range(n))
    assert len(got) == max(1, min(parts, n))
    assert all(len(rg) > 0 for rg in got) or n == 0
    assert max(map(len, got)) - min(map(len, got)) <= 1


def test_results_equal_the_plain_loop_and_keep_order():
    data = list(range(1000))
    parts = split(len(data), 3)
    parent = os.getpid()

    def fn(rg):        # a closure over unpicklable state: only results cross the pipe
        return {"pids": os.getpid() != parent, "vals": [data[i] ** 2 for i in rg],
                "arr": np.arange(rg.start, rg.stop, dtype=np.float64)[:, None] / 7}

    got = fork_map(fn, parts)
    want = [fn(p) for p in parts]
    assert [g["vals"] for g in got] == [w["vals"] for w in want]
    assert all(np.array_equal(g["arr"], w["arr"]) for g, w in zip(got, want))
    assert [g["pids"] for g in got] == [False, True, True]     # the first part in the parent


def _track_forks(monkeypatch) -> list[int]:
    pids: list[int] = []
    real = os.fork

    def fork():
        pid = real()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(forkmap.os, "fork", fork)
    return pids


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True            # reaped: no zombie, no orphan
    return False


@pytest.mark.parametrize("how", ["exit", "kill", "raise"])
def test_a_failed_child_is_recomputed_in_the_parent(monkeypatch, how):
    pids = _track_forks(monkeypatch)
    parent = os.getpid()

    def fn(rg):
        if os.getpid() != parent and rg.start == 5:
            if how == "exit":
                os._exit(3)
            if how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            raise ValueError("child only")
        return [i * 10 for i in rg]

    assert fork_map(fn, split(15, 3)) == [[0, 10, 20, 30, 40], [50, 60, 70, 80, 90],
                                          [100, 110, 120, 130, 140]]
    assert len(pids) == 2 and all(_gone(p) for p in pids)


def test_an_error_in_the_parent_leaves_no_child(monkeypatch):
    pids = _track_forks(monkeypatch)
    parent = os.getpid()

    def fn(rg):
        if os.getpid() == parent:
            raise KeyError("parent part")
        import time

        time.sleep(30)          # a slow child: killed, not waited for
        return []

    with pytest.raises(KeyError):
        fork_map(fn, split(6, 3))
    assert len(pids) == 2 and all(_gone(p) for p in pids)


def test_workers_setting(monkeypatch):
    monkeypatch.setenv("SCOREKIT_WORKERS", "1")
    assert default_workers() == 1
    monkeypatch.setenv("SCOREKIT_WORKERS", "3")
    assert default_workers() == 3
    monkeypatch.setenv("SCOREKIT_WORKERS", "many")
    assert default_workers() == 1
    monkeypatch.delenv("SCOREKIT_WORKERS")
    assert default_workers() == len(os.sched_getaffinity(0))


CHILD_TORCH = """
import torch
from scorekit.forkmap import fork_map

torch.set_num_threads(2)
x = torch.randint(-3, 4, (256, 256)).double()   # integers: exact whatever the threads
want = [float((x @ x).sum()) for _ in range(3)]   # the parent's OpenMP threads run first
print(fork_map(lambda i: float((x @ x).sum()), [0, 1, 2]) == want)
"""


def test_children_compute_with_torch_after_the_parent_did():
    """A parallel torch op in a forked child, after the parent ran one, used to wait forever
    (OpenMP's threads are not forked): run_sweep's TextRank in process, then engine='fork', hung."""
    pytest.importorskip("torch")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", CHILD_TORCH], capture_output=True, text=True, timeout=120,
                         start_new_session=True)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr[-2000:]
