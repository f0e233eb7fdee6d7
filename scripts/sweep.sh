#!/usr/bin/env bash
# Usage: scripts/sweep.sh NAME "TASKS" [RUNS|FIRST-LAST] [CONFIG.toml]
# `nhc sweep` of TASKS (space-separated, or `all`) with seeds 1..RUNS (default 5) or the seeds
# FIRST-LAST (e.g. 101-115: `nhc sweep --seeds`), trained with the
# default hyperparameters or those of CONFIG.toml, into runs/NAME
# (resumable: finished runs are skipped, interrupted ones resume), evaluated at levels 10, 100, 500
# and 1000 with 50 samples each, on all cores; copies the per-run lines to results/NAME.jsonl,
# writes the report and its figures (`nhc report`) to results/NAME.md and results/NAME_*.png|svg,
# and appends the wall time of this call to the report.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1; tasks=$2; runs=${3:-5}; config=(${4:+--config "$4"})
case $runs in
  *-*) seeds=(--seeds "$runs") ;;
  *) seeds=(--runs "$runs") ;;
esac
cargo build --release -q
start=$SECONDS
./target/release/nhc sweep --tasks "${tasks// /,}" "${seeds[@]}" --out "runs/$name" "${config[@]}" > /dev/null
wall=$((SECONDS - start))
mkdir -p results
cp "runs/$name/sweep.jsonl" "results/$name.jsonl"
./target/release/nhc report "results/$name.jsonl" > /dev/null
printf '\nWall time of `scripts/sweep.sh %s "%s" %s%s` (sweep only, this call): %d s on %d cores.\n' \
  "$name" "$tasks" "$runs" "${4:+ $4}" "$wall" "$(nproc)" >> "results/$name.md"
cat "results/$name.md"
