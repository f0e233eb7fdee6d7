#!/usr/bin/env bash
# Usage: scripts/sweep.sh NAME "TASKS" "SEEDS"
# Trains every task for every seed from scratch (run directories runs/TASK-SEED, resumed if
# interrupted, skipped if finished), evaluates each run at levels 100, 500 and 1000 (50 samples,
# seed 1000), and writes results/NAME.jsonl and results/NAME.md.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1; tasks=$2; seeds=$3
cargo build --release -q
nhc=./target/release/nhc
mkdir -p results runs
out=results/$name.jsonl
: > "$out"
for task in $tasks; do
  for seed in $seeds; do
    dir=runs/$task-$seed
    if [ -f "$dir/summary.json" ]; then :;
    elif [ -f "$dir/checkpoint.json" ]; then $nhc train --resume "$dir" --quiet > /dev/null;
    else $nhc train --task "$task" --seed "$seed" --out "$dir" --quiet > /dev/null; fi
    evals=""
    for level in 100 500 1000; do
      e=$($nhc eval --task "$task" --model "$dir/model.json" --level "$level" --samples 50 --seed 1000 --json)
      evals="$evals\"$level\": $e,"
    done
    echo "{\"summary\": $(tr -d '\n' < "$dir/summary.json"), \"eval\": {${evals%,}}}" >> "$out"
  done
done
python3 scripts/results_table.py "$out" > "results/$name.md"
cat "results/$name.md"
