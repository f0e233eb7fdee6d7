#!/usr/bin/env python3
"""On paper: how NES runs and sweeps would scale over MPI ranks, from measured costs.

    python3 scripts/mpi_scaling.py --profile DIR... --sweeps FILE... [--latency-us 5,50]
                                   [--iterations N]

--profile: run directories (or sweep directories holding them) whose metrics.jsonl records
`offspring_steps`. Per task, a least-squares fit of each iteration's wall time on its model steps
gives the cost of a step and the rest of an iteration (batch, noise, update, log), the part every
rank repeats (--iterations N: each run's first N iterations only). With k ranks an iteration
then costs
    rest + step · (θ's steps + the check's + the largest share of offspring steps)
                                                       (shares as nhc_train::peers::share)
plus one all-gather, at most log2(k) latencies. Printed: the speed-up of one run over 2-20 ranks
(ranks beyond the population idle) without and with the latencies, and the median iteration time
against which a latency counts.

--sweeps: sweep.jsonl / dnc.jsonl files; each line is one run of the sweep, costing its training
wall time plus its evaluations. The sweep hands runs to ranks one at a time, longest first; the
script prints the makespan of that list schedule for 1-512 ranks, the lower bound
max(total / ranks, longest run), and the longest runs.
"""

import argparse
import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def share(count, rank, size):
    base, extra = divmod(count, size)
    start = rank * base + min(rank, extra)
    return range(start, start + base + (1 if rank < extra else 0))


def run_dirs(paths):
    for p in map(Path, paths):
        if (p / "metrics.jsonl").exists():
            yield p
        else:
            yield from sorted(d for d in p.iterdir() if (d / "metrics.jsonl").exists())


def fit(xs, ys):
    """Least squares y = a + b x."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def profile(run, limit=None):
    """(task, per-iteration rows (wall seconds, θ+check steps, offspring steps))."""
    task = json.loads((run / "config.json").read_text())["task"]
    rows, last = [], 0.0
    with open(run / "metrics.jsonl") as f:
        for line in f:
            m = json.loads(line)
            if limit is not None and m["iteration"] > limit:
                break
            if "offspring_steps" not in m:
                sys.exit(f"{run}: metrics.jsonl has no offspring_steps (written before they were recorded)")
            dt, last = m["wall_seconds"] - last, m["wall_seconds"]
            own = m["offspring_steps"]
            rows.append((dt, m["steps"] - sum(own), own))
    return task, rows


def iteration_seconds(rest, step, row, ranks, latency):
    _, repeated, own = row
    if not own:
        return rest + step * repeated
    largest = max(sum(own[o] for o in share(len(own), r, ranks)) for r in range(min(ranks, len(own))))
    hops = math.ceil(math.log2(ranks)) if ranks > 1 else 0
    return rest + step * (repeated + largest) + hops * latency


def fitted(rows):
    """(rest, step): an iteration's wall time fitted on its model steps, the rest at least 0."""
    rest, step = fit([r[1] + sum(r[2]) for r in rows], [r[0] for r in rows])
    return max(rest, 0.0), step


def speedup(rows, cost, ranks, latency=0.0):
    """How much faster the iterations `rows` run on `ranks` ranks than on one, at `cost`."""
    rest, step = cost
    one = sum(iteration_seconds(rest, step, r, 1, 0.0) for r in rows)
    return one / sum(iteration_seconds(rest, step, r, ranks, latency) for r in rows)


def nes_table(paths, latencies, limit, ranks=(2, 4, 10, 20)):
    by_task = defaultdict(list)
    for run in run_dirs(paths):
        task, rows = profile(run, limit)
        by_task[task].append(rows)
    print("## One NES run over k ranks (compute only; then with all-gather latencies)\n")
    head = " | ".join(f"k={k}" for k in ranks)
    lat = " | ".join(f"k=20, {l * 1e6:g} µs" for l in latencies)
    print(f"| task | runs | step (ns) | rest of an iteration (µs) | median iteration (ms) | {head} | {lat} |")
    print("|---|---:|---:|---:|---:|" + "---:|" * (len(ranks) + len(latencies)))
    for task in sorted(by_task):
        rows = [r for run in by_task[task] for r in run]
        cost = fitted(rows)
        cells = " | ".join(f"{speedup(rows, cost, k):.2f}×" for k in ranks)
        lcells = " | ".join(f"{speedup(rows, cost, 20, l):.2f}×" for l in latencies)
        median = statistics.median(r[0] for r in rows) * 1e3
        rest, step = cost
        print(f"| {task} | {len(by_task[task])} | {step * 1e9:.0f} | {rest * 1e6:.0f} | {median:.2f} | {cells} | {lcells} |")
    print()


def lpt(times, ranks):
    """Makespan of handing the runs out longest first to whichever rank is free."""
    free = [0.0] * ranks
    for t in sorted(times, reverse=True):
        i = min(range(ranks), key=free.__getitem__)
        free[i] += t
    return max(free)


def sweep_table(files, ranks=(1, 2, 8, 64, 512)):
    runs = []
    for f in files:
        for line in open(f):
            r = json.loads(line)
            s = r["summary"]
            evals = sum(e.get("seconds", 0.0) for e in r.get("eval", {}).values())
            label = f"{Path(f).stem}: {s['task']}-{s['seed']}"
            runs.append((s["wall_seconds"] + evals, label))
    times = [t for t, _ in runs]
    total = sum(times)
    print(f"## The sweep over ranks: {len(runs)} runs, {total / 3600:.1f} hours of one rank\n")
    print("| ranks | longest first (min) | bound (min) | limited by |")
    print("|---:|---:|---:|---|")
    for k in ranks:
        bound = max(total / k, max(times))
        limit = "the longest run" if max(times) >= total / k else "total work"
        print(f"| {k} | {lpt(times, k) / 60:.1f} | {bound / 60:.1f} | {limit} |")
    print("\nLongest runs:", ", ".join(f"{label} {t / 60:.1f} min" for t, label in sorted(runs, reverse=True)[:5]))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", nargs="*", default=[])
    ap.add_argument("--sweeps", nargs="*", default=[])
    ap.add_argument("--latency-us", default="5,50", help="all-gather latencies per log2 step, µs")
    ap.add_argument("--iterations", type=int, help="only each run's first N iterations")
    a = ap.parse_args()
    latencies = [float(x) * 1e-6 for x in a.latency_us.split(",")]
    if a.profile:
        nes_table(a.profile, latencies, a.iterations)
    if a.sweeps:
        sweep_table(a.sweeps)


if __name__ == "__main__":
    main()
