"""Anchor: rouge-score on a summaries JSONL (``prediction``/``reference`` per line): ROUGE-1 and
ROUGE-2 F1 and recall per pair (no stemming), means — what ``scorekit summary --no-bertscore``
reports for English.

    python rouge_score_summary.py summaries.jsonl out.json
"""

import json
import sys

from rouge_score import rouge_scorer


def main(path, out_path):
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=False)
    sums = {"rouge1": 0.0, "rouge1_r": 0.0, "rouge2": 0.0, "rouge2_r": 0.0}
    n = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            rec = json.loads(line)
            s = scorer.score(rec["reference"], rec["prediction"])
            sums["rouge1"] += s["rouge1"].fmeasure
            sums["rouge1_r"] += s["rouge1"].recall
            sums["rouge2"] += s["rouge2"].fmeasure
            sums["rouge2_r"] += s["rouge2"].recall
            n += 1
    json.dump({k: v / n for k, v in sums.items()}, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:3])
