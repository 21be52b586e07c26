#!/usr/bin/env bash
# Topic-model metrics (topic-metrics.md) on two small topic sets, English and Korean.
# Runs from the repo root; $SK is the scorekit executable.
set -euo pipefail
SK=${SK:-scorekit}
D=examples/topics
OUT=${OUT:-out}/topics   # kept after the demo (git-ignored)
mkdir -p "$OUT"

echo "== 1. English topics: SC, SD, VD, CD, SemDiv, Overall (no SIS given: Overall without the SIS term)"
$SK topics --topics $D/topics_en.json --pairs 5

echo
echo "== 2. English topics + reference corpus (gensim-exact npmi / c_v / u_mass) + ratings (correlations, ICC)"
echo "      + the spec's grid searches; SIS given as 0.75 (weights then sum to 1.2, as the spec writes)"
$SK topics --topics $D/topics_en.json --corpus $D/corpus_en.txt --ratings $D/ratings_en.csv \
  --grid --pairs 3 -m "sc,sd,cd,semdiv,overall(sis=0.75),coherence,topic_diversity" --format markdown -o "$OUT/topics_en.json" --report "$OUT/topics_en.html"
echo "JSON written: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sorted(d['metrics']))" "$OUT/topics_en.json")"

echo
echo "== 3. Korean topics (same model, Kiwi-tokenised corpus, long-form ratings)"
# the shipped MiniLM cannot read Hangul (it sees jamo): allowed here only to show the machinery;
# give a Korean-capable model for real numbers: -m "sc(model=PATH),sd(model=PATH),cd,semdiv(model=PATH),overall(model=PATH)"
$SK topics --topics $D/topics_ko.json --corpus $D/corpus_ko.txt --ratings $D/ratings_ko.csv --pairs 4 \
  --allow-english-model -o "$OUT/topics_ko.json" --report "$OUT/topics_ko.html"

echo
echo "== 4. a bad topic file is one clear line and exit status 2"
printf '{"ok": ["a", "b"],\n "bad": ["solo"]}\n' > "$OUT/bad.json"
$SK topics --topics "$OUT/bad.json" || echo "(exit status $?)"
