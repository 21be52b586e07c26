"""End-to-end timing: the ``scorekit`` CLI as a whole process against the anchor's whole pipeline
(also a process), at several input sizes, in the same run.

For each size the inputs are generated once, then scorekit and each anchor run *alternately*
(scorekit, anchors, scorekit, anchors, ...; ``repeat`` rounds) and the best wall time of each is
kept — the machine may be shared, and the minimum is the least disturbed run. Peak memory is the
child's ``VmHWM`` (read from /proc while it runs; it is a high-water mark, so the last reading
holds the peak), or, when it forks, the largest sum of its and its descendants' ``VmRSS`` seen
(sampled every 20 ms; pages a fork shares are counted in each process, so this errs high). Printed per size: times, ratio (anchor / scorekit) and peak memory; then the
scaling exponent ``log(t_big / t_small) / log(size_big / size_small)`` between consecutive sizes
and from the first to the last (1.0 = linear).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANCHORS = Path(__file__).resolve().parent / "anchors"


def scorekit_cmd() -> list[str]:
    """The installed ``scorekit`` entry point next to this Python, else ``python -m scorekit``."""
    exe = Path(sys.executable).with_name("scorekit")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "scorekit"]


def anchor_cmd(script: str, *args) -> list[str]:
    return [sys.executable, str(ANCHORS / script), *map(str, args)]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1",
             TOKENIZERS_PARALLELISM="false")
    src = str(ROOT / "src")
    have = e.get("PYTHONPATH", "").split(os.pathsep)
    e["PYTHONPATH"] = os.pathsep.join([p for p in (src, str(ROOT)) if p not in have] + [p for p in have if p])
    return e


@dataclass
class Timing:
    wall: float
    peak_mib: float
    rc: int
    cpu: float = 0.0  # user + system seconds of the process and the children it waited for
    out: str = ""
    err: str = ""


def _status_kib(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{p}/task/{tid}/children") as fh:
                    kids = [int(c) for c in fh.read().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def _tree_rss_kib(pid: int) -> int:
    """VmRSS of ``pid`` and every process it forked that is still alive (0 when it has none)."""
    kids = _descendants(pid)
    return sum(_status_kib(p, "VmRSS:") for p in [pid, *kids]) if kids else 0


def _vm_hwm(pid: int) -> int | None:
    return _status_kib(pid, "VmHWM:") or None


def run(cmd: list[str], cwd: Path | None = None) -> Timing:
    """Run one process; wall time from spawn to exit, CPU time (rusage of the child and what it
    waited for: robust when other work shares the machine), peak memory in MiB: its VmHWM, or the
    largest sum of VmRSS over it and its forked descendants while they run."""
    peak = [0]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env(), stdout=out, stderr=err, text=True)
        done = threading.Event()

        def poll():
            while not done.is_set():
                v = _vm_hwm(proc.pid)
                if v:
                    peak[0] = max(peak[0], v, _tree_rss_kib(proc.pid))
                done.wait(0.02)

        th = threading.Thread(target=poll, daemon=True)
        th.start()
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        done.set()
        th.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Timing(wall, peak[0] / 1024, proc.returncode, ru.ru_utime + ru.ru_stime, out.read(), err.read())


def run_all(cmd: list[str] | list[list[str]], cwd: Path | None = None) -> Timing:
    """One command, or several run one after the other (times add up, peak is the largest)."""
    if cmd and isinstance(cmd[0], list):
        parts = [run(c, cwd) for c in cmd]
        bad = next((p for p in parts if p.rc != 0), None)
        last = bad or parts[-1]
        return Timing(sum(p.wall for p in parts), max(p.peak_mib for p in parts), last.rc,
                      sum(p.cpu for p in parts), last.out, last.err)
    return run(cmd, cwd)


def exponent(t1: float, t2: float, s1: float, s2: float) -> float:
    return math.log(t2 / t1) / math.log(s2 / s1) if t1 > 0 and t2 > 0 and s2 != s1 else float("nan")


@dataclass
class Case:
    """One family's end-to-end benchmark.

    ``make(size, dir) -> dict`` writes the inputs and returns whatever the commands need;
    ``ours(inputs, out_json) -> argv``; ``anchors[name](inputs, out_json) -> argv`` (each anchor
    script writes its metrics as JSON to ``out_json``); ``check(ours_json, anchor_json) -> str``
    compares the numbers (a short note)."""

    family: str
    unit: str
    make: Callable[[int, Path], dict]
    ours: Callable[[dict, Path], list[str]]
    anchors: dict[str, Callable[[dict, Path], list[str]]] = field(default_factory=dict)
    check: Callable[[dict, dict], str] | None = None
    note: str = ""


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def bench(case: Case, sizes: list[int], repeat: int = 2, anchor_max: int | None = None,
          only: set[str] | None = None) -> list[dict]:
    """Run ``case`` at each size; print and return one row per size.

    ``anchor_max``: skip the anchors above this size (a slow anchor at 16x can take longer than
    the whole budget); the exponent is still computed for scorekit."""
    print(f"\n## {case.family} end to end (best of {repeat}, alternating; {case.note})", flush=True)
    rows = []
    for size in sizes:
        tmp = Path(tempfile.mkdtemp(prefix=f"sk-bench-{case.family}-"))
        try:
            t0 = time.perf_counter()
            inputs = case.make(size, tmp)
            gen_s = time.perf_counter() - t0
            best: dict[str, Timing] = {}
            names = ["scorekit"] + [a for a in case.anchors if (only is None or a in only)
                                    and (anchor_max is None or size <= anchor_max)]
            for _ in range(repeat):
                for name in names:
                    out = tmp / f"{name}.json"
                    cmd = case.ours(inputs, out) if name == "scorekit" else case.anchors[name](inputs, out)
                    t = run_all(cmd, cwd=ROOT)
                    if t.rc != 0:
                        print(f"!! {name} failed (exit {t.rc}): {t.err.strip()[-600:]}", flush=True)
                        raise RuntimeError(f"{name} failed at size {size}")
                    if name not in best or t.wall < best[name].wall:
                        best[name] = t
            row = {"size": size, "gen_s": gen_s, **{f"{n}_s": t.wall for n, t in best.items()},
                   **{f"{n}_peak_mib": t.peak_mib for n, t in best.items()}}
            ours_json = _load(tmp / "scorekit.json")
            row.update({f"{n}_cpu": t.cpu for n, t in best.items()})
            sk = best["scorekit"]
            parts = [f"{case.unit}={size:,}", f"scorekit {sk.wall:7.2f}s (cpu {sk.cpu:.2f}s, peak {sk.peak_mib:,.0f} MiB)"]
            for n in names[1:]:
                ratio = best[n].wall / sk.wall
                row[f"ratio_{n}"] = ratio
                row[f"cpu_ratio_{n}"] = best[n].cpu / sk.cpu if sk.cpu else float("nan")
                agree = case.check(ours_json, _load(tmp / f"{n}.json")) if case.check else ""
                row[f"agree_{n}"] = agree
                parts.append(f"{n} {best[n].wall:7.2f}s (cpu {best[n].cpu:.2f}s, peak {best[n].peak_mib:,.0f} MiB) "
                             f"-> {ratio:5.2f}x wall, {row[f'cpu_ratio_{n}']:5.2f}x cpu{' ' + agree if agree else ''}")
            print("  " + " | ".join(parts), flush=True)
            rows.append(row)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    _exponents(rows)
    return rows


def _exponents(rows: list[dict]) -> None:
    if len(rows) < 2:
        return
    keys = [k[:-2] for k in rows[0] if k.endswith("_s") and k != "gen_s"]
    for name in keys:
        pts = [(r["size"], r.get(f"{name}_s")) for r in rows if r.get(f"{name}_s")]
        if len(pts) < 2:
            continue
        steps = [f"{exponent(t1, t2, s1, s2):.2f}" for (s1, t1), (s2, t2) in zip(pts, pts[1:])]
        whole = exponent(pts[0][1], pts[-1][1], pts[0][0], pts[-1][0])
        cpts = [(r["size"], r.get(f"{name}_cpu")) for r in rows if r.get(f"{name}_cpu")]
        cpu = exponent(cpts[0][1], cpts[-1][1], cpts[0][0], cpts[-1][0]) if len(cpts) > 1 else float("nan")
        print(f"  scaling exponent {name}: {whole:.2f} wall, {cpu:.2f} cpu ({pts[0][0]:,} -> {pts[-1][0]:,}; "
              f"wall steps {', '.join(steps)})", flush=True)
        for r in rows:
            r[f"exponent_{name}"] = whole
            r[f"cpu_exponent_{name}"] = cpu


def max_diff(ours: dict, theirs: dict, keys: dict[str, str] | None = None) -> str:
    """``max |diff| = ...`` over the metrics both sides report (``keys`` maps ours -> theirs)."""
    om = ours.get("metrics", ours)
    tm = theirs.get("metrics", theirs)
    keys = keys or {k: k for k in tm}
    diffs = [abs(float(om[a]) - float(tm[b])) for a, b in keys.items()
             if a in om and b in tm and isinstance(om[a], (int, float)) and isinstance(tm[b], (int, float))]
    return f"[max |diff| {max(diffs):.1e} over {len(diffs)}]" if diffs else "[no common metric]"
