"""Anchor (no outside library computes these metrics): the project's own naive path — read the
run's outputs.jsonl with ``json.loads`` per line, build each scorecard, and aggregate with
per-row Python loops, one pass per metric family (benchmarks/bench_absa.py ``naive_aggregate``).

    python absa_naive.py outputs.jsonl out.json
"""

import json
import sys

from benchmarks.bench_absa import naive_aggregate
from scorekit.absa.scorecard import make_scorecard


def main(path, out_path):
    with open(path, encoding="utf-8") as fh:
        cards = [make_scorecard(json.loads(line)) for line in fh if line.strip()]
    json.dump(naive_aggregate(cards), open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:3])
