#!/usr/bin/env bash
# Trains copy, repeatCopy, reverse and duplicated from scratch for seeds 1–5, evaluates every run
# at levels 100, 500 and 1000 (50 samples each): results/copy_family.jsonl and .md.
exec "$(dirname "$0")/sweep.sh" copy_family "copy repeatCopy reverse duplicated" 5
