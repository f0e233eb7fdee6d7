"""Lineages of a sweep: per task, how many lineages (θ from one restart to the next) ran, how
many finished, the median learning iterations of the finishing lineages, and the level at which
the others stopped (restart, cap) or "check" for a failed generalization check. Usage: python3 scripts/lineages.py runs/NAME"""
import glob, json, statistics, sys
from collections import Counter

root = sys.argv[1] if len(sys.argv) > 1 else "runs/full"
tasks = {}
for path in sorted(glob.glob(f"{root}/*/metrics.jsonl")):
    task = path.split("/")[-2].rsplit("-", 1)[0]
    t = tasks.setdefault(task, {"n": 0, "ok": [], "stalled": Counter()})
    lineages = {}
    for line in open(path):
        r = json.loads(line)
        lin = lineages.setdefault(r["restarts"], {"learning": 0, "level": 0, "check": None})
        lin["learning"] += r["updated"]
        lin["level"] = r["level"]
        lin["check"] = r["check"] or lin["check"]
    for lin in lineages.values():
        t["n"] += 1
        check = lin["check"]
        if check and check["solved"] == check["samples"]:
            t["ok"].append(lin["learning"])
        else:
            t["stalled"]["check" if check else lin["level"]] += 1
print("| task | lineages | finished | median learning iterations of a finished lineage | not finished: level where it stopped, or failed check (count) |")
print("|---|---:|---:|---:|---|")
for task, t in tasks.items():
    med = statistics.median(t["ok"]) if t["ok"] else "–"
    drops = ", ".join(f"{k}: {v}" for k, v in sorted(t["stalled"].items(), key=lambda kv: (kv[0] == "check", str(kv[0]).zfill(2))))
    print(f"| {task} | {t['n']} | {len(t['ok'])} | {med} | {drops} |")
