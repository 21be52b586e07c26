"""meteor15: the whole ``scorekit caption --metrics meteor15`` process vs pycocoevalcap's Meteor 1.5.

Same inputs, same run, three sizes (default 1,250 / 2,500 / 5,000 captions x 5 references;
``BENCH_METEOR15_SIZES=1250,5000,20000`` for the issue's sizes). Synthetic caption-like English
(the caption bench's generator), as JSONL for scorekit and JSON for the anchor script. Both
sides are whole processes:

* scorekit: ``scorekit caption -p P -r R --lang en --metrics meteor15 -q -o OUT`` — reading,
  COCO tokenisation, resources (the compiled paraphrase table is cached beforehand: one warm-up
  run, whose time is printed as the cold start), alignment, scoring, writing JSON;
* anchor: ``python -c`` that reads the same JSON, tokenises with pycocoevalcap's PTBTokenizer
  (as COCOEvalCap does) and runs ``Meteor().compute_score`` (the jar: JVM start, paraphrase load,
  scoring). Its Meteor-only time (after the tokenizer) is reported too, and the ratio against it.

The two scores are printed and must agree within 1e-6. Prints the ratios and the scaling exponent
(slope of log time against log size) of each side.

    python -m benchmarks.bench_meteor15
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = [int(x) for x in os.environ.get("BENCH_METEOR15_SIZES", "1250,2500,5000").split(",")]

ANCHOR = r"""
import json, sys, time
t0 = time.perf_counter()
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
from pycocoevalcap.meteor.meteor import Meteor
p = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
gts = {k: [{"caption": c} for c in r[k]] for k in p}
res = {k: [{"caption": p[k]}] for k in p}
tok = PTBTokenizer()
gts, res = tok.tokenize(gts), tok.tokenize(res)
t1 = time.perf_counter()
score, _ = Meteor().compute_score(gts, res)
t2 = time.perf_counter()
print(json.dumps({"score": score, "tokenize": t1 - t0, "meteor": t2 - t1}))
"""


def _write(n: int, folder: Path) -> tuple[Path, Path, Path, Path]:
    """The same captions as JSONL for scorekit (one record a line) and as the JSON dicts the
    anchor script loads."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.bench_caption import data

    preds, refs = data(n)
    p, r = folder / f"preds{n}.jsonl", folder / f"refs{n}.jsonl"
    p.write_text("".join(json.dumps({"id": str(i), "prediction": c}) + "\n" for i, c in enumerate(preds)))
    r.write_text("".join(json.dumps({"id": str(i), "references": rs}) + "\n" for i, rs in enumerate(refs)))
    pj, rj = folder / f"preds{n}.json", folder / f"refs{n}.json"
    pj.write_text(json.dumps({str(i): c for i, c in enumerate(preds)}))
    rj.write_text(json.dumps({str(i): rs for i, rs in enumerate(refs)}))
    return p, r, pj, rj


def _ours(p: Path, r: Path, out: Path) -> tuple[float, float]:
    t0 = time.perf_counter()
    subprocess.run(["scorekit", "caption", "-p", str(p), "-r", str(r), "--lang", "en", "--metrics",
                    "meteor15", "-q", "-o", str(out)], check=True)
    dt = time.perf_counter() - t0
    return dt, json.loads(out.read_text())["metrics"]["meteor15"]


def _anchor(p: Path, r: Path) -> tuple[float, dict]:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", ANCHOR, str(p), str(r)], check=True,
                          capture_output=True, text=True)
    return time.perf_counter() - t0, json.loads(done.stdout.strip().splitlines()[-1])


def _slope(xs, ys) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        p0, r0, _, _ = _write(50, folder)
        cold, _ = _ours(p0, r0, folder / "warm.json")
        print(f"meteor15 warm-up run (50 captions; compiles the paraphrase cache if absent): {cold:.2f}s",
              flush=True)
        for n in SIZES:
            p, r, pj, rj = _write(n, folder)
            t_ours, s_ours = _ours(p, r, folder / f"out{n}.json")
            t_anchor, a = _anchor(pj, rj)
            diff = abs(s_ours - a["score"])
            rows.append((n, t_ours, t_anchor, a["meteor"]))
            print(f"meteor15 {n:>6} captions x 5 refs: scorekit {t_ours:7.2f}s  pycocoevalcap "
                  f"PTBTokenizer+Meteor {t_anchor:7.2f}s (Meteor alone {a['meteor']:.2f}s)  speed-up "
                  f"{t_anchor / t_ours:5.1f}x ({a['meteor'] / t_ours:.1f}x vs Meteor alone)  "
                  f"score {s_ours:.6f} vs {a['score']:.6f} (|diff| {diff:.1e})", flush=True)
            assert diff <= 1e-6, f"meteor15 differs from the jar by {diff}"
    if len(rows) >= 2:
        ns = [r[0] for r in rows]
        print(f"scaling exponent: scorekit {_slope(ns, [r[1] for r in rows]):.2f}, pycocoevalcap "
              f"{_slope(ns, [r[2] for r in rows]):.2f} (1.0 = linear)")


if __name__ == "__main__":
    main()
