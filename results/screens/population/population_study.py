#!/usr/bin/env python3
"""Does a larger population make early-level stalls rarer per wall-clock hour?

    python3 results/screens/population/population_study.py SWEEP_DIR... [--early 3]

Each SWEEP_DIR is an `nhc sweep` output (sweep.jsonl and its run directories), e.g. the paper's
population and configs/population40.toml, configs/population100.toml on the same tasks. Per task
and population P it prints: runs, finished runs, stalls (lineages a restart ended at level
<= --early), learning iterations (median over runs, restarts included), the model steps of training (a cost
that does not depend on the machine or its load), the wall minutes of the runs on one rank, and
the minutes they would take with their offspring spread over P/20 ranks
(each rank scoring as many offspring as one of the paper's 20-offspring runs), from each run's own
metrics as scripts/mpi_scaling.py models an iteration (no latency); finished runs per such hour;
and the runs perfect (every test sample solved) at the sweep's two largest test levels.
"""

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from mpi_scaling import fitted, profile, speedup


def runs(sweep):
    for line in open(Path(sweep) / "sweep.jsonl"):
        r = json.loads(line)
        d = Path(r["dir"])
        if not d.is_absolute() and not d.exists():
            d = Path(sweep) / d.name
        yield {**r["summary"], "eval": r.get("eval", {})}, d


def perfect_at(summary, level):
    """Whether the run solved every test sample at `level` (False if it was not evaluated there)."""
    e = summary.get("eval", {}).get(str(level))
    return e is not None and e["solved"] == e["samples"]


def population(run_dir):
    return json.loads((run_dir / "config.json").read_text())["train"]["population"]


def projected_seconds(run_dir, ranks):
    """The run's wall time with its offspring over `ranks` ranks, from its per-iteration costs."""
    wall = json.loads((run_dir / "summary.json").read_text())["wall_seconds"]
    if ranks == 1:
        return wall
    _, rows = profile(run_dir)
    return wall / speedup(rows, fitted(rows), ranks)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sweeps", nargs="+")
    ap.add_argument("--early", type=int, default=3, help="highest level a stall counts as early")
    a = ap.parse_args()
    table = defaultdict(list)
    for sweep in a.sweeps:
        for s, d in runs(sweep):
            table[(s["task"], population(d))].append((s, d))
    top = sorted({int(level) for rs in table.values() for s, _ in rs for level in s.get("eval", {})})[-2:]
    print("| task | P | runs | finished | early stalls (per run) | learning iterations (median) | model steps (10⁹) | "
          "minutes, 1 rank | minutes, P/20 ranks | finished per hour, P/20 ranks | "
          + " | ".join(f"perfect at {t}" for t in top) + " |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(top))
    for (task, p), rs in sorted(table.items()):
        ranks = max(1, p // 20)
        finished = sum(s["outcome"] == "solved" for s, _ in rs)
        stalls = sum(
            1
            for s, _ in rs
            for lineage in s["lineages"]
            if lineage["ending"] == "restart" and lineage["level"] <= a.early
        )
        hours = sum(s["wall_seconds"] for s, _ in rs) / 3600
        spread = sum(projected_seconds(d, ranks) for _, d in rs) / 3600
        median = statistics.median(s["learning_iterations"] for s, _ in rs)
        steps = sum(s["steps"] for s, _ in rs) / 1e9
        perfect = " | ".join(str(sum(perfect_at(s, t) for s, _ in rs)) for t in top)
        print(f"| {task} | {p} | {len(rs)} | {finished} | {stalls} ({stalls / len(rs):.1f}) | {median:.0f} | {steps:.2f} | "
              f"{hours * 60:.1f} | {spread * 60:.1f} | {finished / spread:.0f} | {perfect} |")

if __name__ == "__main__":
    main()
