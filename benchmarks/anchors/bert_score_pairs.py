"""Anchor: bert_score on caption pairs (predictions.json / references.json with one reference per
id), the same local model (all-MiniLM-L6-v2, layer 6), CPU, idf off, model load included.

    python bert_score_pairs.py predictions.json references.json model_dir out.json
"""

import json
import sys


def main(pred_path, ref_path, model_dir, out_path):
    from benchmarks.bench_neural import _oracle  # bert_score + its one transformers-5 fix

    bert_score = _oracle()
    preds = json.load(open(pred_path, encoding="utf-8"))
    refs = json.load(open(ref_path, encoding="utf-8"))
    ids = list(refs)
    _, _, f = bert_score.score([preds[k] for k in ids], [refs[k][0] for k in ids], model_type=model_dir,
                               num_layers=6)
    json.dump({"bertscore_f1": float(f.mean())}, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:5])
