#!/usr/bin/env bash
# Caption metrics demo: Korean (spec examples) and English captions, with the spec's report.
set -euo pipefail
SK=${SK:-scorekit}
D=examples/caption
OUT=${OUT:-out}/caption   # kept after the demo (git-ignored)
mkdir -p "$OUT"

echo "== Korean captions (JSON keyed by id, as the spec's evaluate.py): METEOR, CIDEr-D, BLEU, ROUGE-L =="
$SK caption --predictions $D/predictions_ko.json --references $D/references_ko.json --lang ko \
    --metrics meteor,cider,bleu_4,rouge_l -o "$OUT/ko.json" --report "$OUT/ko.html"

echo
echo "== English captions (JSONL predictions, CSV references; one prediction is empty and scores 0) =="
$SK caption -p $D/predictions_en.jsonl -r $D/references_en.csv --lang en \
    --metrics meteor15,meteor_nltk,cider,bleu,rouge_l --format markdown -o "$OUT/en.json" \
    --report "$OUT/en.html"

echo
echo "Per-caption scores (with the prediction and references) are in $OUT/ko.json and $OUT/en.json;"
echo "the HTML reports ($OUT/ko.html, $OUT/en.html) open on METEOR against its baseline and the §7 targets."
