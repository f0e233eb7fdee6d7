"""Training throughput from run directories' metrics.jsonl: iterations per second, split into
perfect iterations (current θ only) and learning iterations (current θ + P offspring), per level.
Usage: python3 scripts/throughput.py runs/copy-* ..."""
import json, sys, collections

acc = collections.defaultdict(lambda: [0, 0.0])
for run in sys.argv[1:]:
    prev = None
    for line in open(f"{run}/metrics.jsonl"):
        r = json.loads(line)
        if prev is not None and r["level"] == prev["level"]:
            key = (r["level"], "perfect" if r["update"].startswith("skip") else "learning")
            acc[key][0] += 1
            acc[key][1] += r["wall_seconds"] - prev["wall_seconds"]
        prev = r
print("| level | kind | iterations | iterations/s |")
print("|---:|---|---:|---:|")
for (level, kind), (n, s) in sorted(acc.items()):
    if n >= 50 and s > 0:
        print(f"| {level} | {kind} | {n} | {n / s:.0f} |")
