"""`make bench` / `python -m benchmarks [NAME ...]`: run every benchmarks/bench_*.py.

Each benchmark module exposes ``main() -> None`` that measures scorekit side by side with its
anchor library in the same process/run and prints the ratios. Pass names (e.g. ``retrieval``) to
run a subset.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import benchmarks


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    wanted = [a if a.startswith("bench_") else f"bench_{a}" for a in argv]
    if wanted:
        names = [n for n in names if n in wanted]
    failed = []
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        t0 = time.perf_counter()
        try:
            importlib.import_module(f"benchmarks.{name}").main()
        except Exception as exc:  # keep going: one broken benchmark must not hide the others
            print(f"!! {name} failed: {exc!r}", flush=True)
            failed.append(name)
        print(f"--- {name}: {time.perf_counter() - t0:.1f}s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
