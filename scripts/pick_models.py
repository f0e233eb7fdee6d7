"""Copies into models/ one model per task from a results file of a sweep (default
results/full.jsonl; each line's "dir" is its run directory), chosen without the test levels:
the lowest seed that finished training and solves 50 of 50 validation samples at levels 50 and 99
(sample seed 2, which neither training nor the evaluation's seed 1000 draws). Prints each pick
with its results at the test levels, read from the file (not used to choose).

Usage: python3 scripts/pick_models.py [results/full.jsonl]   (needs ./target/release/nhc)"""
import json, shutil, subprocess, sys

VALIDATION_LEVELS, VALIDATION_SEED, SAMPLES = (50, 99), 2, 50
results = sys.argv[1] if len(sys.argv) > 1 else "results/full.jsonl"
runs = [json.loads(line) for line in open(results) if line.strip()]


def validates(task, model):
    for level in VALIDATION_LEVELS:
        out = subprocess.run(
            ["./target/release/nhc", "eval", "--task", task, "--model", model, "--level", str(level),
             "--samples", str(SAMPLES), "--seed", str(VALIDATION_SEED), "--json"],
            check=True, capture_output=True, text=True).stdout
        if json.loads(out)["solved"] != SAMPLES:
            return False
    return True


picked = {}
for r in sorted(runs, key=lambda r: r["summary"]["seed"]):
    s = r["summary"]
    if s["task"] in picked or not s["finished"]:
        continue
    model = f"{r.get('dir', 'runs/' + s['task'] + '-' + str(s['seed']))}/model.json"
    if validates(s["task"], model):
        picked[s["task"]] = r
        shutil.copy(model, f"models/{s['task']}.json")
for task, r in picked.items():
    tests = ", ".join(f"L{l} {e['solved']}/{e['samples']}" for l, e in sorted(r["eval"].items(), key=lambda x: int(x[0])))
    print(f"models/{task}.json <- seed {r['summary']['seed']} (test levels, not used to pick: {tests})")
