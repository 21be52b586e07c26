"""Anchor: pytrec_eval as its users run it — parse both TREC files in Python into its dicts,
``RelevanceEvaluator.evaluate``, mean over the qrels' queries.

    python trec_pytrec_eval.py qrels.txt run.txt out.json
"""

import json
import sys

import pytrec_eval

TREC = {"ndcg@10": "ndcg_cut_10", "map@100": "map_cut_100", "mrr": "recip_rank",
        "hit_rate@10": "success_10", "precision@10": "P_10", "recall@100": "recall_100"}


def main(qrels_path, run_path, out_path):
    qd = {}
    with open(qrels_path) as fh:
        for line in fh:
            qid, _, docid, rel = line.split()
            qd.setdefault(qid, {})[docid] = int(rel)
    rd = {}
    with open(run_path) as fh:
        for line in fh:
            qid, _, docid, _, score, _ = line.split()
            rd.setdefault(qid, {})[docid] = float(score)
    res = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10", "map_cut.100", "recip_rank", "success.10",
                                              "P.10", "recall.100"}).evaluate(rd)
    out = {m: sum(res.get(q, {}).get(t, 0.0) for q in qd) / len(qd) for m, t in TREC.items()}
    json.dump(out, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:4])
