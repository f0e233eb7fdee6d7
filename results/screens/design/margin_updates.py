"""Counts, over every run of a sweep directory (runs/NAME), the iterations that updated θ on a
batch whose samples were all solved (margin-only updates, docs/MODEL.md §6) and all updates, per
task and in all, from each run's metrics.jsonl.

Usage: python3 results/screens/design/margin_updates.py runs/NAME"""
import collections, json, os, sys

root = sys.argv[1]
margin, updates, runs = collections.Counter(), collections.Counter(), collections.Counter()
for name in sorted(os.listdir(root)):
    path = os.path.join(root, name, "metrics.jsonl")
    if not os.path.exists(path):
        continue
    task = name.rsplit("-", 1)[0]
    runs[task] += 1
    for line in open(path):
        v = json.loads(line)
        updates[task] += v["update"] in ("mistake", "margin", "margin_apart")
        margin[task] += v["update"] in ("margin", "margin_apart")
print("| task | runs | updates | margin-only updates |")
print("|---|---:|---:|---:|")
for task in runs:
    print(f"| {task} | {runs[task]} | {updates[task]} | {margin[task]} |")
print(f"| all | {sum(runs.values())} | {sum(updates.values())} | {sum(margin.values())} |")
