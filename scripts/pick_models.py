"""Copies into models/ the model of the lowest seed per task that finished training and solved
every sample at every evaluated level, from a results file of scripts/sweep.sh (default
results/full.jsonl; each line's "dir" is its run directory)."""
import json, shutil, sys

results = sys.argv[1] if len(sys.argv) > 1 else "results/full.jsonl"
picked = {}
runs = [json.loads(line) for line in open(results) if line.strip()]
for r in sorted(runs, key=lambda r: r["summary"]["seed"]):
    s = r["summary"]
    perfect = all(e["solved"] == e["samples"] for e in r["eval"].values())
    if s["finished"] and perfect and s["task"] not in picked:
        picked[s["task"]] = s["seed"]
        run = r.get("dir", f"runs/{s['task']}-{s['seed']}")
        shutil.copy(f"{run}/model.json", f"models/{s['task']}.json")
for task, seed in picked.items():
    print(f"models/{task}.json <- seed {seed}")
