#!/usr/bin/env bash
# `make demo`: scorekit on the example data shipped in examples/. Retrieval (the main job) first,
# then one section per family; each examples/<family>/demo.sh is self-contained.
set -euo pipefail
cd "$(dirname "$0")/.."
SK=${SK:-.venv/bin/scorekit}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
section() { printf '\n\033[1m════════ %s ════════\033[0m\n' "$1"; }
order=(retrieval caption summarization topics absa)
for fam in "${order[@]}" $(ls examples | grep -vxF -e demo.sh "${order[@]/#/-e}"); do
  part=examples/$fam/demo.sh
  [ -f "$part" ] || continue
  section "$fam"
  SK="$SK" bash "$part"
done
printf '\nDone. Results, plots and reports are in out/ (one folder per family). HTML reports:\n'
find "${OUT:-out}" -name '*.html' | sort | sed 's/^/  /'
printf 'Put scorekit on PATH with `. .venv/bin/activate`; `scorekit --help` lists every command; docs/ explains each family.\n'
