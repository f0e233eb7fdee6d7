#!/usr/bin/env python3
"""results/recipe.md: the recipe's screen, one component at a time, on training-side numbers only
(finished runs, runs right on every input up to length 30 by `nhc verify`, learning iterations,
wall time), redrawn from the committed sweep records (docs/DESIGN.md, "The recipe").

    python3 scripts/recipe_table.py [--out results/recipe.md]

Each screen's records are results/recipe/NAME.jsonl: `nhc sweep --config configs/CONFIG.toml
--levels 30 ...` (the command is in SCREENS), then `scripts/verify_runs.py FILE --runs DIR
--screen` (bounds within lengths 30). The paper-protocol row is results/full.jsonl, its
verification at the default bounds read at the screen's: a run right on every input up to its
first counterexample is right to 30 when that counterexample is beyond 30. Test levels (100, 500,
1000) are not read: the screen never looks at them.
"""

import argparse
import json
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Bounds of the screen (scripts/verify_runs.py, SCREEN_BOUNDS): per part, the largest layer an
# input may have; None = the part's own (default) bound, within lengths 30 already.
SCREEN = {"copy": [30], "reverse": [30], "repeatCopy": [30], "duplicated": [16, 30]}

TASKS = ["search", "plan", "search+", "plan+", "addition", "sort", "arithmetic", "copy", "repeatCopy",
         "reverse", "duplicated"]

# (name, label, config, command): the screens in the order they were run.
SCREENS = [
    ("protocol", "the paper's protocol (results/full.jsonl)", None,
     "nhc sweep --tasks all --runs 15 --out runs/paper3"),
    ("relearn", "check at 12–30, a failed check sends the lineage back to learn", "check30_relearn_screen",
     "nhc sweep --tasks repeatCopy --runs 15 --levels 30 --config configs/check30_relearn_screen.toml --out runs/screens/rc-relearn; the same for the other ten tasks --out runs/screens/relearn"),
    ("bus", "the same + Bus feedback (copy family)", "recipe_bus_screen",
     "nhc sweep --tasks copy,repeatCopy,reverse,duplicated --runs 15 --levels 30 --config configs/recipe_bus_screen.toml --out runs/screens/cf-bus"),
    ("shapes", "check + relearn, check samples of any shape", "recipe_shapes_screen",
     "nhc sweep --tasks sort,duplicated --runs 15 --levels 30 --config configs/recipe_shapes_screen.toml --out runs/screens/shapes"),
    ("shapes_bus", "check + relearn + any shape + Bus feedback", "recipe_shapes_bus_screen",
     "nhc sweep --tasks duplicated --runs 15 --levels 30 --config configs/recipe_shapes_bus_screen.toml --out runs/screens/shapes-bus"),
    ("noise", "check + relearn + word noise 0.1 (arithmetic so far)", "recipe_noise_screen",
     "nhc sweep --tasks arithmetic --runs 15 --levels 30 --config configs/recipe_noise_screen.toml --out runs/screens/noise"),
    ("recipe_noise", "the recipe (check + relearn, Bus feedback for the copy family, sort's any shape) + word noise 0.1",
     "recipe_noise_all_screen",
     "nhc sweep --tasks sort,duplicated --runs 15 --levels 30 --config configs/recipe_noise_all_screen.toml --out runs/screens/noise-sd --jobs 1"),
]


def records(name):
    path = ROOT / "results" / "full.jsonl" if name == "protocol" else ROOT / "results" / "recipe" / f"{name}.jsonl"
    if not path.exists():
        return None
    return [json.loads(t) for t in path.read_text().splitlines() if t.strip()]


def right_to_30(line):
    """'yes' (every listed input up to the screen's bounds right), 'no', 'sampled' (right on
    every sample; no listing), 'wrong' (a sample wrong) or None (no record)."""
    v = line.get("verify")
    if v is None:
        return None
    parts = v["parts"]
    if not all(p["exhaustive"] for p in parts):
        return "sampled" if all(p["failed"] == 0 for p in parts) else "wrong"
    bounds = SCREEN.get(line["summary"]["task"], [None] * len(parts))
    for p, b in zip(parts, bounds):
        need = p["bound"] if b is None else min(b, p["bound"])
        if p["right_to"] < need:
            return "no"
    return "yes"


def median(xs):
    return statistics.median(xs) if xs else None


def row(lines):
    fin = sum(1 for x in lines if x["summary"]["outcome"] == "solved")
    right = [right_to_30(x) for x in lines]
    li = median([x["summary"]["learning_iterations"] for x in lines])
    steps = median([x["summary"]["steps"] for x in lines])
    yes, sampled = right.count("yes"), right.count("sampled")
    return len(lines), fin, yes, sampled, li, steps


def fmt(x):
    return "–" if x is None else f"{x:,.0f}".replace(",", " ")


def table(out):
    out.append("| screen | task | runs | finished | right to 30 (verified; sampled) | learning iterations, median | model steps, median (millions) |")
    out.append("|---|---|---:|---:|---:|---:|---:|")
    totals = {}
    for name, label, _, _ in SCREENS:
        lines = records(name)
        if lines is None:
            continue
        by = {}
        for x in lines:
            by.setdefault(x["summary"]["task"], []).append(x)
        for task in TASKS:
            if task not in by:
                continue
            n, fin, yes, sampled, li, steps = row(by[task])
            right = f"{yes}" + (f" ({sampled} sampled)" if sampled else "")
            out.append(f"| {name} | {task} | {n} | {fin} | {right} | {fmt(li)} | {steps / 1e6:.1f} |")
            t = totals.setdefault(name, [0, 0, 0, 0])
            t[0] += n
            t[1] += fin
            t[2] += yes
            t[3] += sampled
    out.append("")
    out.append("| screen | what | runs | finished | right to 30 (verified + sampled) |")
    out.append("|---|---|---:|---:|---:|")
    for name, label, _, _ in SCREENS:
        if name in totals:
            n, fin, yes, sampled = totals[name]
            out.append(f"| {name} | {label} | {n} | {fin} | {yes} + {sampled} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "results" / "recipe.md"))
    args = ap.parse_args()
    out = ["# The recipe's screen", "",
           "Made by `python3 scripts/recipe_table.py` from results/full.jsonl and results/recipe/*.jsonl "
           "(docs/DESIGN.md, \"The recipe\"; docs/RESULTS.md, \"Beyond the paper: the recipe\"). Training-side "
           "numbers only: no test level (100, 500, 1000) is read. *Right to 30*: `nhc verify` finds every "
           "control-distinct input right up to length 30 (copy family: lengths and grids to 30, duplicated's "
           "run-length sequences to 16 objects; sort, addition, arithmetic: their default bounds, 8 objects, "
           "10 binary digits, 12 operators); search and plan cannot list theirs and count as *sampled* when "
           "right on 20 samples of each level 1–20. A run's cost is its model steps (θ, offspring and checks; "
           "the screens ran beside other work, so their wall times are not comparable with the protocol's).", ""]
    table(out)
    out.append("")
    out.append("Commands:")
    out.append("")
    for name, _, config, cmd in SCREENS:
        verify = f", then `python3 scripts/verify_runs.py results/recipe/{name}.jsonl --screen` (the lines' run directories)"
        out.append(f"- {name}: `{cmd}`" + ("" if config is None else verify))
    Path(args.out).write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
