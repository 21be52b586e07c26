#!/usr/bin/env bash
# n-word summarisation demo: the magic-n sweep and scoring given summaries.
# Runs from the repo root; $SK is the scorekit executable (default: .venv/bin/scorekit).
set -euo pipefail
SK=${SK:-.venv/bin/scorekit}
HERE=examples/summarization
OUT=${OUT:-out}/summarization   # kept after the demo (git-ignored)
mkdir -p "$OUT"

echo "== 1. The magic-n sweep over 30 English news items (lead-n, TextRank, random), ROUGE only =="
$SK sweep --data $HERE/news_en.jsonl --summarizer lead,textrank,random --no-bertscore \
    --plot "$OUT/plots" -o "$OUT/sweep_en.json" --table "$OUT/sweep_en.md"
echo "(plots written: $(ls "$OUT"/plots/*.png | wc -l) PNG files in $OUT/plots)"

echo
echo "== 2. The same sweep on 10 Korean items (Kiwi tokens; rouge-score would score 0 here) =="
$SK sweep --data $HERE/news_ko.jsonl --n 3,7,11,15 --summarizer lead,textrank --no-bertscore

echo
echo "== 3. Scoring hand-written summaries: ROUGE, BERTScore F1, Efficiency, Density =="
$SK summary --predictions $HERE/summaries.jsonl --references $HERE/summaries.jsonl \
    --sources $HERE/summaries.jsonl -o "$OUT/summary.json"
