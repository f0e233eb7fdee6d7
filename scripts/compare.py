"""Per task, finished runs and perfect runs (every sample solved at levels 100, 500 and 1000)
of several sweeps side by side, as a Markdown table with the paper's share beside them.

Usage: python3 scripts/compare.py LABEL=SOURCE [LABEL=SOURCE ...] [--tasks t1,t2]
SOURCE is a sweep directory (runs/NAME, read run by run, so a sweep still going can be
looked at) or a results file (results/NAME.jsonl). A cell reads `perfect / runs (finished)`.
sort also gets the paper's count ("20 samples for sort levels 500 and 1000 due to runtime
scaling"): perfect on the first 20 of our 50 samples at 500 and 1000, after a slash."""
import json, os, sys

import rules_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The paper's perfect runs of 15 per task: its NHC share at level 1000 (one share for 100, 500
# and 1000), from Table 1 as committed.
_TABLE = json.load(open(os.path.join(ROOT, "results", "paper_table1.json")))
PAPER = {t: round(float(cell.split("%")[0]) * 15 / 100)
         for t, cell in zip(_TABLE["tasks"], _TABLE["models"]["NHC"]["level 1000"])}
TEST_LEVELS = ("100", "500", "1000")


def runs_of(source):
    """The runs of `source` that have every test level (rules_table.runs_of reads them)."""
    for summary, evals in rules_table.runs_of(source):
        if all(level in evals for level in TEST_LEVELS):
            yield summary, evals


args = [a for a in sys.argv[1:] if not a.startswith("--tasks")]
only = next((a.split("=", 1)[1].split(",") for a in sys.argv[1:] if a.startswith("--tasks=")), None)
columns = [a.split("=", 1) for a in args]
table = {}
for label, source in columns:
    for s, e in runs_of(source):
        cell = table.setdefault(s["task"], {}).setdefault(label, [0, 0, 0, 0])
        cell[0] += all(e[l]["solved"] == e[l]["samples"] for l in TEST_LEVELS)
        cell[1] += 1
        cell[2] += s["outcome"] == "solved"
        # The paper's count for sort: all samples at 100, the first 20 at 500 and 1000.
        cell[3] += e["100"]["solved"] == e["100"]["samples"] and all(
            not any(i < 20 for i in e[l].get("failed", [])) for l in ("500", "1000"))
tasks = [t for t in PAPER if t in table and (only is None or t in only)]
print("| task | " + " | ".join(label for label, _ in columns) + " | paper |")
print("|---|" + "---:|" * (len(columns) + 1))
totals = {label: [0, 0, 0, 0] for label, _ in columns}
for t in tasks:
    cells = []
    for label, _ in columns:
        c = table[t].get(label)
        if c:
            totals[label] = [a + b for a, b in zip(totals[label], c)]
        paper20 = f" / paper's 20: {c[3]}" if c and t == "sort" else ""
        cells.append(f"{c[0]} / {c[1]} ({c[2]}){paper20}" if c else "–")
    print(f"| {t} | " + " | ".join(cells) + f" | {PAPER[t]} / 15 |")
paper = sum(PAPER[t] for t in tasks)
print("| **all** | " + " | ".join(f"**{c[0]} / {c[1]}** ({c[2]})" for c in totals.values())
      + f" | **{paper} / {15 * len(tasks)}** |")
