"""Markdown tables of the runs in a results JSON-lines file (see sweep.sh), with the paper's
median learning iterations and share of perfect runs at level 1000 (SPEC §11)."""
import json, statistics, sys

PAPER = {"search": (3132, "100 %"), "plan": (3615, "100 %"), "search+": (4723, "100 %"), "plan+": (5480, "100 %"),
         "addition": (2211, "80 %"), "sort": (9016, "73.3 %"), "arithmetic": (1234, "100 %"),
         "copy": (814, "93.3 %"), "repeatCopy": (876, "80 %"), "reverse": (781, "100 %"), "duplicated": (1179, "100 %")}
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| task | runs | finished | learning iterations median (IQR) | paper median | wall s median | "
      "perfect runs L100 / L500 / L1000 | paper perfect at L1000 |")
print("|---|---:|---:|---|---:|---:|---|---:|")
for task in PAPER:
    rs = [r for r in runs if r["summary"]["task"] == task]
    if not rs:
        continue
    li = sorted(r["summary"]["learning_iterations"] for r in rs)
    q = statistics.quantiles(li, n=4, method="inclusive") if len(li) > 1 else [li[0]] * 3
    wall = statistics.median(r["summary"]["wall_seconds"] for r in rs)
    perfect = [sum(r["eval"][l]["solved"] == r["eval"][l]["samples"] for r in rs) for l in ("100", "500", "1000")]
    fin = sum(r["summary"]["finished"] for r in rs)
    print(f"| {task} | {len(rs)} | {fin} | {q[1]:.0f} ({q[0]:.0f}–{q[2]:.0f}) | {PAPER[task][0]} | {wall:.1f} | "
          f"{' / '.join(f'{p}/{len(rs)}' for p in perfect)} | {PAPER[task][1]} |")
print()
print("| task | seed | iterations | learning iterations | last level learned | restarts (failed checks) | wall s | solved L100 | L500 | L1000 |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in runs:
    s, e = r["summary"], r["eval"]
    print(f"| {s['task']} | {s['seed']} | {s['iterations']} | {s['learning_iterations']} | {s['last_level_learned']} | "
          f"{s['restarts']} ({s.get('failed_checks', 0)}) | {s['wall_seconds']:.1f} | " + " | ".join(f"{e[l]['solved']}/{e[l]['samples']}" for l in ("100", "500", "1000")) + " |")
