#!/usr/bin/env bash
# Usage: scripts/sweep.sh NAME "TASKS" [RUNS]
# `nhc sweep` of TASKS (space-separated) with seeds 1..RUNS (default 5) into runs/NAME (resumable:
# finished runs are skipped, interrupted ones resume), evaluated at levels 100, 500 and 1000 with
# 50 samples each; copies the per-run lines to results/NAME.jsonl and writes the report
# (`nhc report`) to results/NAME.md.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1; tasks=$2; runs=${3:-5}
cargo build --release -q
./target/release/nhc sweep --tasks "${tasks// /,}" --runs "$runs" --out "runs/$name" --levels 100,500,1000 > /dev/null
mkdir -p results
cp "runs/$name/sweep.jsonl" "results/$name.jsonl"
./target/release/nhc report "results/$name.jsonl" > /dev/null
cat "results/$name.md"
