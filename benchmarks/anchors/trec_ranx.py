"""Anchor: ranx from files — ``Qrels.from_file`` + ``Run.from_file`` + ``evaluate`` (numba
compiles on first use; its on-disk cache is warm after the first call of a benchmark).

    python trec_ranx.py qrels.txt run.txt out.json
"""

import json
import sys

import ranx

MEASURES = ["ndcg@10", "map@100", "mrr", "hit_rate@10", "precision@10", "recall@100"]


def main(qrels_path, run_path, out_path):
    q = ranx.Qrels.from_file(qrels_path, kind="trec")
    r = ranx.Run.from_file(run_path, kind="trec")
    out = ranx.evaluate(q, r, MEASURES)
    json.dump({k: float(v) for k, v in out.items()}, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:4])
