#!/usr/bin/env bash
# Trains copy, reverse, repeatCopy and duplicated from scratch for seeds 1–5, evaluates every run
# at levels 100, 500 and 1000 (50 samples each), and writes results/copy_family.jsonl and
# results/copy_family.md. Run directories go to runs/ (not committed).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
nhc=./target/release/nhc
mkdir -p results runs
out=results/copy_family.jsonl
: > "$out"
for task in copy reverse repeatCopy duplicated; do
  for seed in 1 2 3 4 5; do
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
python3 scripts/copy_family_table.py "$out" > results/copy_family.md
cat results/copy_family.md
