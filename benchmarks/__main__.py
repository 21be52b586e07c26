"""`make bench` / `python -m benchmarks [FAMILY ...] [options]`.

End to end first: for each family (caption, retrieval, summary, sweep, topics, absa, bertscore)
the ``scorekit`` command runs as a whole process on generated inputs at three sizes (1x, 4x,
16x), alternating with the anchor's whole pipeline (also a process), and the ratio, peak memory
and scaling exponent are printed (benchmarks/e2e.py). Then the kernel benchmarks
(benchmarks/bench_*.py: one library call against another inside one process).

    python -m benchmarks                                   # everything at the default sizes
    python -m benchmarks caption --sizes 2500,10000,40000  # one family, chosen sizes
    python -m benchmarks retrieval --shape ids=msmarco --shape order=shuffled --shape precision=6
    python -m benchmarks caption --shape ko_share=1        # Korean captions (no anchor)
    python -m benchmarks --kernels-only                    # the in-process kernel benchmarks
    python -m benchmarks --no-kernels --json out.json      # end to end only, rows saved as JSON
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
import time

import benchmarks


def _value(v: str):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def kernels(names: list[str]) -> list[str]:
    mods = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    wanted = [a if a.startswith("bench_") else f"bench_{a}" for a in names]
    if wanted:
        mods = [n for n in mods if n in wanted]
    failed = []
    for name in mods:
        print(f"\n=== kernel: {name} ===", flush=True)
        t0 = time.perf_counter()
        try:
            importlib.import_module(f"benchmarks.{name}").main()
        except Exception as exc:  # keep going: one broken benchmark must not hide the others
            print(f"!! {name} failed: {exc!r}", flush=True)
            failed.append(name)
        print(f"--- {name}: {time.perf_counter() - t0:.1f}s", flush=True)
    return failed


def main(argv: list[str]) -> int:
    from benchmarks.e2e import bench
    from benchmarks.families import DEFAULT_ANCHOR_MAX, DEFAULT_SIZES, FAMILIES

    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("families", nargs="*", help=f"end-to-end families ({', '.join(FAMILIES)}) or kernel "
                    "benchmark names (bench_*.py); default: all")
    ap.add_argument("--sizes", help="comma-separated input sizes (default per family: 1x, 4x, 16x)")
    ap.add_argument("--shape", action="append", default=[], metavar="KEY=VALUE",
                    help="generator option, e.g. ids=msmarco, order=shuffled, precision=6, length=long, ko_share=0.3")
    ap.add_argument("--repeat", type=int, default=2, help="rounds per size; the best time is kept (default 2)")
    ap.add_argument("--anchor-max", type=int, help="run the anchors only up to this size")
    ap.add_argument("--only", help="comma-separated anchors to run (default: all of the family's)")
    ap.add_argument("--no-kernels", action="store_true", help="skip the kernel benchmarks")
    ap.add_argument("--kernels-only", action="store_true", help="only the kernel benchmarks")
    ap.add_argument("--json", help="append the end-to-end rows to this JSON file")
    args = ap.parse_args(argv)

    shape = dict(kv.split("=", 1) for kv in args.shape)
    shape = {k: _value(v) for k, v in shape.items()}
    fams = [f for f in args.families if f in FAMILIES]
    others = [f for f in args.families if f not in FAMILIES]
    if not args.families:
        fams = list(FAMILIES)
    failed: list[str] = []
    results = []
    if not args.kernels_only and fams:
        print(f"# end to end: the scorekit command vs the anchor's whole pipeline (shape {shape or 'default'})",
              flush=True)
        for fam in fams:
            sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else DEFAULT_SIZES[fam]
            case = FAMILIES[fam](dict(shape))
            try:
                rows = bench(case, sizes, repeat=args.repeat,
                             anchor_max=args.anchor_max or DEFAULT_ANCHOR_MAX.get(fam),
                             only=set(args.only.split(",")) if args.only else None)
                results.append({"family": case.family, "shape": shape, "rows": rows})
            except Exception as exc:  # keep going
                print(f"!! {fam} failed: {exc!r}", flush=True)
                failed.append(fam)
    if args.json and results:
        try:
            with open(args.json) as fh:
                old = json.load(fh)
        except (OSError, ValueError):
            old = []
        with open(args.json, "w") as fh:
            json.dump(old + results, fh, indent=1)
    if not args.no_kernels and (args.kernels_only or others or not args.families):
        failed += kernels(others)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
