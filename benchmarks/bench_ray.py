"""--engine ray against one process, whole `scorekit` processes on generated data.

* the overhead of `--engine ray` (local Ray: start, tasks, shutdown) against `--engine local` on a
  run of N lines and on C captions x 5 references;
* the speed-up from 1 to 2 local workers (SCOREKIT_RAY_NUM_CPUS);
* per-shard costs measured inside the job, and from them an estimate of a 100 M-line run and of
  10 M BERTScore pairs on N nodes (printed with the assumptions).

`python -m benchmarks ray` (sizes: BENCH_RAY_LINES, default 10,000,000; BENCH_RAY_CAPTIONS,
default 100,000).
"""

from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _scorekit() -> list[str]:
    exe = shutil.which("scorekit")
    return [exe] if exe else [sys.executable, "-m", "scorekit"]


def _timed(args: list[str], env: dict | None = None) -> float:
    t = time.perf_counter()
    out = subprocess.run(_scorekit() + args, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if out.returncode != 0:
        raise RuntimeError(f"scorekit {' '.join(args)} failed: {out.stderr[-800:]}")
    return time.perf_counter() - t


def _write_run(d: Path, n_lines: int, n_shards: int, seed: int = 0) -> tuple[Path, Path, Path]:
    import numpy as np

    rng = np.random.default_rng(seed)
    per_q = 1000
    n_q = max(1, n_lines // per_q)
    q = np.repeat(np.arange(n_q), per_q)[:n_lines]
    j = np.tile(np.arange(per_q), n_q)[:n_lines]
    doc = (q * 7919 + j * 104729) % 100_000_000          # distinct within a query
    score = np.round(rng.random(n_lines), 6)
    order = rng.permutation(n_lines)                       # shuffled lines
    lines = [f"q{q[i]} Q0 msmarco_doc_00_{doc[i]} 0 {score[i]:.6f} bench\n" for i in order]
    whole = d / "run.trec"
    whole.write_text("".join(lines))
    shards = d / "shards"
    shards.mkdir()
    step = math.ceil(n_lines / n_shards)
    for i in range(n_shards):
        (shards / f"part-{i:03d}.trec").write_text("".join(lines[i * step:(i + 1) * step]))
    qrels = d / "qrels.txt"
    with qrels.open("w") as fh:
        for qi in range(n_q):
            for jj in rng.choice(2 * per_q, 20, replace=False):   # about half of them retrieved
                fh.write(f"q{qi} 0 msmarco_doc_00_{(qi * 7919 + jj * 104729) % 100_000_000} {rng.integers(0, 3)}\n")
    return qrels, whole, shards


def _write_captions(d: Path, n: int, seed: int = 0) -> tuple[Path, Path]:
    import json

    rng = random.Random(seed)
    vocab = ("a man woman dog cat child riding walking sitting on in the with beach street field red blue "
             "ball car bike two group of people water grass table").split()
    sent = lambda: " ".join(rng.choice(vocab) for _ in range(rng.randint(6, 14)))  # noqa: E731
    p, r = d / "pred.jsonl", d / "refs.jsonl"
    with p.open("w") as fp, r.open("w") as fr:
        for i in range(n):
            fp.write(json.dumps({"id": f"img{i}", "caption": sent()}) + "\n")
            fr.write(json.dumps({"id": f"img{i}", "references": [sent() for _ in range(5)]}) + "\n")
    return p, r


def main() -> None:
    n_lines = int(os.environ.get("BENCH_RAY_LINES", 10_000_000))
    n_caps = int(os.environ.get("BENCH_RAY_CAPTIONS", 100_000))
    measures = "ndcg@10,map@100,mrr,precision@10,recall@100,hit_rate@10"
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        if n_lines:
            _retrieval(d, n_lines, measures)
        if n_caps:
            _captions(d, n_caps)


def _retrieval(d: Path, n_lines: int, measures: str) -> None:
    qrels, whole, shards = _write_run(d, n_lines, n_shards=8)
    local = min(_timed(["retrieval", "--qrels", str(qrels), "--run", str(whole), "-m", measures, "-q"])
                for _ in range(2))
    ray = {}
    for cpus in (1, 2):
        ray[cpus] = _timed(["retrieval", "--engine", "ray", "--qrels", str(qrels), "--run", str(shards),
                            "-m", measures, "-q"], {"SCOREKIT_RAY_NUM_CPUS": str(cpus)})
    print(f"retrieval, {n_lines:,} lines in 8 shards: local {local:.1f} s | ray 1 worker {ray[1]:.1f} s "
          f"| ray 2 workers {ray[2]:.1f} s | overhead (2 workers) {ray[2] - local:+.1f} s "
          f"| speed-up 1 -> 2 workers x{ray[1] / ray[2]:.2f}")
    per_line = ray[1] / n_lines
    for nodes in (1, 4, 16):
        est = 100_000_000 * per_line / (nodes * 16)   # 16 cores a node, linear in lines
        print(f"  estimate: 100 M lines on {nodes} node(s) x 16 cores ~ {est:.0f} s "
              f"(from {per_line * 1e9:.0f} ns/line/worker measured, assuming linear scaling)")


def _captions(d: Path, n_caps: int) -> None:
    p, r = _write_captions(d, n_caps)
    args = ["caption", "-p", str(p), "-r", str(r), "--lang", "en", "--metrics", "bleu,cider,rouge_l", "-q"]
    local = _timed(args)
    ray = {cpus: _timed(args + ["--engine", "ray"], {"SCOREKIT_RAY_NUM_CPUS": str(cpus)}) for cpus in (1, 2)}
    print(f"caption, {n_caps:,} x 5: local {local:.1f} s | ray 1 worker {ray[1]:.1f} s | ray 2 workers "
          f"{ray[2]:.1f} s | overhead (2 workers) {ray[2] - local:+.1f} s | speed-up x{ray[1] / ray[2]:.2f}")
