"""The temporal-link conventions measured (docs/DESIGN.md, "Temporal links"): prints the table of
docs/results/rules.md, "Temporal links", from results/screens/links/*.jsonl and, for `tail` on copy, reverse and
arithmetic, the paper-protocol sweep results/full.jsonl (the same runs: `tail` is the default).

Each cell: median learning iterations / restarts / runs perfect at level 100 (of runs). Runs with a
cap (results/screens/links/*6k.toml: 6 000, the others 10 000) count a capped run at the cap; a `tail` run
of full.jsonl that needed more than the cap counts as capped, and its restarts within the cap
are unknown (–).

Usage: python3 results/screens/links/links_table.py"""
import json, statistics

def rows(path):
    return [json.loads(l) for l in open(path) if l.strip()]

def cell(runs, cap):
    li = [min(r["summary"]["learning_iterations"], cap) for r in runs]
    capped = sum(1 for r in runs if r["summary"]["learning_iterations"] >= cap or r["summary"]["outcome"] != "solved")
    # A full.jsonl run beyond the cap restarted after it too: its restarts within the cap are unknown.
    beyond = any(r["summary"]["learning_iterations"] > cap for r in runs)
    restarts = "–" if beyond else sum(r["summary"]["restarts"] for r in runs)
    perfect = sum(1 for r in runs if r["summary"]["learning_iterations"] < cap and r["summary"]["outcome"] == "solved"
                  and r["eval"]["100"]["solved"] == r["eval"]["100"]["samples"])
    return f"{statistics.median(li):.0f} / {restarts} / {perfect} of {len(runs)}" + (f" ({capped} capped)" if capped else "")

full = rows("results/full.jsonl")
def from_full(task, seeds):
    return [r for r in full if r["summary"]["task"] == task and r["summary"]["seed"] in seeds]

table = {
    ("copy", "tail"): (from_full("copy", range(1, 11)), 10_000),
    ("reverse", "tail"): (from_full("reverse", range(1, 11)), 10_000),
    ("arithmetic", "tail"): (from_full("arithmetic", range(1, 7)), 6_000),
}
for links in ("formula", "removed"):
    for r in rows(f"results/screens/links/e1-{links}.jsonl"):
        table.setdefault((r["summary"]["task"], links), ([], 10_000))[0].append(r)
for links in ("tail", "formula", "removed"):
    table[("repeatCopy", links)] = (rows(f"results/screens/links/e1r-{links}.jsonl"), 10_000)
    table[("duplicated", links)] = (rows(f"results/screens/links/e2-nhc-{links}.jsonl"), 6_000)
    table[("duplicated NHC-anc", links)] = (rows(f"results/screens/links/e2-nhc-anc-{links}.jsonl"), 6_000)
table[("arithmetic", "formula")] = (rows("results/screens/links/e3-formula.jsonl"), 6_000)

# Rows: the tasks measured, in the order of the paper's Table 1, each model variant after its task.
paper = json.load(open("results/paper_table1.json"))["tasks"]
tasks = sorted({t for t, _ in table}, key=lambda t: (paper.index(t.split()[0]), t))
print("| task (seeds, cap) | tail (default) | formula | removed |")
print("|---|---|---|---|")
for t in tasks:
    seeds, cap = ("1–6", "6 000") if t.startswith("duplicated") or t == "arithmetic" else ("1–10", "10 000")
    cells = [cell(*table[(t, l)]) if (t, l) in table else "not run" for l in ("tail", "formula", "removed")]
    print(f"| {t} ({seeds}, {cap}) | " + " | ".join(cells) + " |")
