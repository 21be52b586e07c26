#!/usr/bin/env bash
# `make demo`: scorekit on the example data shipped in examples/. Each section is one task.
set -euo pipefail
cd "$(dirname "$0")/.."
SK=.venv/bin/scorekit
section() { printf '\n\033[1m== %s ==\033[0m\n' "$1"; }
for part in examples/*/demo.sh; do
  [ -f "$part" ] || continue
  section "$(basename "$(dirname "$part")")"
  SK="$SK" bash "$part"
done
