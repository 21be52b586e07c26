#!/usr/bin/env bash
# n-word summarisation demo: the magic-n sweep, scoring given summaries, and the RL summariser's
# cross-validation. Runs from the repo root; $SK is the scorekit executable (default: .venv/bin/scorekit).
set -euo pipefail
SK=${SK:-.venv/bin/scorekit}
HERE=examples/summarization
OUT=${OUT:-out}/summarization   # kept after the demo (git-ignored)
mkdir -p "$OUT"

echo "== 1. The magic-n sweep over 30 English news items (lead-n, TextRank, random), ROUGE only =="
$SK sweep --data $HERE/news_en.jsonl --summarizer lead,textrank,random -m rouge,density,words \
    --plot "$OUT/plots" -o "$OUT/sweep_en.json" --table "$OUT/sweep_en.md" --report "$OUT/sweep_en.html"
echo "(plots written: $(ls "$OUT"/plots/*.png | wc -l) PNG files in $OUT/plots; the report opens on the recommended n)"

echo
echo "== 2. The same sweep on 10 Korean items (Kiwi tokens; rouge-score would score 0 here) =="
$SK sweep --data $HERE/news_ko.jsonl --n 3,7,11,15 --summarizer lead,textrank -m rouge,density,words \
    -o "$OUT/sweep_ko.json" --report "$OUT/sweep_ko.html"

# summaries.jsonl mixes English (en..) and Korean (ko..) rows; the shipped BERTScore model reads
# English only, so the English rows are scored with it and the Korean rows without it
grep '"id": "en' $HERE/summaries.jsonl > "$OUT/summaries_en.jsonl"
grep '"id": "ko' $HERE/summaries.jsonl > "$OUT/summaries_ko.jsonl"

echo
echo "== 3. Scoring hand-written English summaries: ROUGE, BERTScore F1, Efficiency, Density =="
$SK summary --predictions "$OUT/summaries_en.jsonl" --references "$OUT/summaries_en.jsonl" \
    --sources "$OUT/summaries_en.jsonl" -o "$OUT/summary_en.json" --report "$OUT/summary_en.html"

echo
echo "== 4. The Korean summaries: ROUGE and Density (BERTScore needs a Korean model: -m 'bertscore(model=DIR)') =="
$SK summary --predictions "$OUT/summaries_ko.jsonl" --references "$OUT/summaries_ko.jsonl" \
    --sources "$OUT/summaries_ko.jsonl" --lang ko -m rouge,density,words -o "$OUT/summary_ko.json" \
    --report "$OUT/summary_ko.html"

echo
echo "== 5. The RL summariser, 2-fold cross-validated on 6 articles (a smoke-sized run: ~30 s) =="
echo "      held-out BERTScore F1 of the policy against lead-n and TextRank, with 95% CIs and paired tests"
$SK train-summarizer --folds 2 --num-train 6 --epochs 1 --n 7 -o "$OUT/rl_cv.json" --report "$OUT/rl_cv.html"
