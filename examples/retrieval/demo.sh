#!/usr/bin/env bash
# The spec's scenario (retrieval-metrics.md §3): five customer-service queries, two retrievers.
# run_v1.txt is the spec's system_results, run_v2.txt its improved system (문제 2).
set -euo pipefail
SK=${SK:-scorekit}
DIR=examples/retrieval
OUT=${OUT:-out}/retrieval   # kept after the demo (git-ignored)
mkdir -p "$OUT"

echo "Five queries, relevance judgements in $DIR/qrels.txt; v1 and v2 are TREC runs."
echo "Measures as in the spec: hit rate@1/3/5, MRR, MAP@3/5, nDCG@3/5 (trec_eval semantics)."
echo
"$SK" retrieval --qrels "$DIR/qrels.txt" \
  --run "$DIR/run_v1.txt" --run "$DIR/run_v2.txt" --name v1 --name v2 \
  --metrics hit_rate@1,hit_rate@3,hit_rate@5,mrr,map@3,map@5,ndcg@3,ndcg@5 \
  --test randomization \
  --per-query "$OUT/per_query.csv" --output "$OUT/retrieval.json" --report "$OUT/retrieval.html"
echo
echo "Spec check (v1): hit rate 0.400/0.600/0.800, MRR 0.540, MAP@3 0.350, MAP@5 0.440,"
echo "nDCG@3 0.400, nDCG@5 0.530. With only 5 queries no difference can be significant: the"
echo "exact randomization test's smallest two-sided p-value is 2/32 = 0.0625."
echo "Per-query scores: $OUT/per_query.csv   JSON (metrics, per query, signature): $OUT/retrieval.json"
echo "HTML report (the best system, its margin and significance first): $OUT/retrieval.html"
