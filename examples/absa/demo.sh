#!/usr/bin/env bash
# Conflict-Review ABSA metrics on two tiny seed runs of Korean/English reviews (examples/absa/results).
# Runs from the repo root; $SK is the scorekit executable. Works on a copy of the example runs under
# out/absa (§7 layout; kept after the demo, git-ignored), so examples/ itself is never written.
set -euo pipefail
SK=${SK:-scorekit}
WORK=${OUT:-out}/absa
rm -rf "$WORK"
mkdir -p "$WORK"
cp -r examples/absa/results "$WORK/results"
R="$WORK/results"

echo "== 1. outputs.jsonl -> scorecards.jsonl (seed 42 has two malformed rows: skipped with line and field)"
$SK absa scorecards "$R/cr_demo__seed42_proposed"
$SK absa scorecards "$R/cr_demo__seed123_proposed"

echo "== 2. structural metrics (derived/metrics/structural_metrics.csv + _table.md)"
$SK absa aggregate "$R/cr_demo__seed42_proposed" "$R/cr_demo__seed123_proposed" \
    -o "$WORK/aggregate.json" --report "$WORK/aggregate.html"

echo "== 3. self-contained HTML report (tuple F1 S1 -> S2, fix / break / net gain first)"
$SK absa report "$R/cr_demo__seed42_proposed"

echo "== 4. mean ± std across seeds"
$SK absa aggregate-seeds "$R/cr_demo__seed42_proposed" "$R/cr_demo__seed123_proposed" --format markdown \
    -o "$WORK/seeds.json" --report "$WORK/seeds.html"

echo "== files written (§7):"
(cd "$WORK" && find . -type f | sort)
