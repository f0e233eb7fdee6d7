#!/usr/bin/env python3
"""Adds each run's verification to the lines of sweep records: `nhc verify` (default bounds, the
algorithm's listing domain) on the model in the run's directory, kept as a small record in the
line's `verify` field (docs/VERIFICATION.md, "Verification").

    python3 scripts/verify_runs.py results/full.jsonl [more.jsonl ...] [--runs DIR] [--tasks T,U] [--jobs 2] [--nhc target/release/nhc] [--screen] [--every-length] [--skip-changed]

The run directories named in the lines (`dir`), or DIR/TASK-SEED with --runs, must hold the
runs: a sweep with the same command recreates them bit for bit (training is deterministic;
e.g. `nhc sweep --tasks all --runs 15 --out runs/paper3` for results/full.jsonl), and a
directory whose summary differs from the line's is refused. A line that already has `verify` is
kept unless --again; with --tasks, only those tasks' lines are verified (e.g. after a listing of
theirs changed), the others kept as they are.
"""

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# --screen: bounds within the lengths a recipe may train on (levels up to 30; docs/RECIPE.md,
# "The recipe"): the copy family's lengths and grids to 30, duplicated's compositions as by
# default (at most 16 objects); the other tasks' default bounds are within them already.
# The largest two-parameter part drawn as a map (repeatCopy and duplicated at 60 × 60).
MAP_CELLS = 3600

SCREEN_BOUNDS = {"copy": "30", "reverse": "30", "repeatCopy": "30", "duplicated": "16,30"}


def grid(part):
    """A two-parameter part's cells as text rows, the second axis from its top value down:
    `+` every input right, `x` one wrong, `.` no input."""
    cells = {tuple(c["at"]): c for c in part["cells"]}
    if not cells:
        return []
    xs = max(a for a, _ in cells)
    ys = max(b for _, b in cells)
    rows = []
    for b in range(ys, 0, -1):
        row = ""
        for a in range(1, xs + 1):
            c = cells.get((a, b))
            row += "." if c is None else ("x" if c["failed"] else "+")
        rows.append(row)
    return rows


def summary(report):
    """The small record of an `nhc verify --json` report."""
    parts = []
    for p in report["parts"]:
        s = p.get("smallest")
        part = {
            "what": p["what"],
            "exhaustive": p["exhaustive"],
            "axes": p["axes"],
            "layer": p["layer"],
            "bound": p["bound"],
            "right_to": p["right_to"],
            "inputs": p["inputs"],
            "failed": p["failed"],
            "smallest": None if s is None else {"shape": s["shape"], "cell": s["cell"], "input": s["input"]},
        }
        # A map a reader can take in (search's goal indices are 1 000 columns: none).
        span = max((c["at"][0] for c in p["cells"]), default=0) * max((c["at"][1] for c in p["cells"]), default=0)
        if p["failed"] and p["axes"][1] and span <= MAP_CELLS:
            part["map"] = grid(p)
        b = p.get("beyond")  # samples beyond the bound; absent from nhc builds before the stage
        if b:
            w = b["smallest"]
            part["beyond"] = {"sizes": b["sizes"], "samples": b["samples"], "failed": b["failed"]}
            if w:
                part["beyond"]["smallest"] = [w["level"], b["seed"], w["index"]]
        parts.append(part)
    record = {"domain": report["domain"], "outcome": report["outcome"], "parts": parts}
    e = report.get("every_length")
    if e:
        proof = e.get("proof") or {}
        # repeatCopy: the most copies a run took before its passes repeated (symbolic or below n0).
        cycles = [c["passes"]["first"] + c["passes"]["period"] - 1 for c in proof.get("classes", []) if c.get("passes")]
        if proof.get("below"):
            cycles.append(proof["below"]["passes"])
        # duplicated: every number of repeats for 1..=objects objects; n0 is the largest r0.
        repeats = e.get("repeats") or {}
        fields = {"outcome": e["outcome"], "n0": proof.get("n0", repeats.get("r0")),
                  "modulus": proof.get("modulus", repeats.get("modulus")),
                  "passes": max(cycles) if cycles else None, "objects": repeats.get("objects"),
                  "reason": e.get("reason")}
        record["every_length"] = {k: v for k, v in fields.items() if v is not None}
    return record


def run_dir(line, runs):
    """The line's run directory, or its namesake in `runs` (task-seed)."""
    if runs is None:
        return ROOT / line["dir"]
    s = line["summary"]
    return Path(runs) / f"{s['task']}-{s['seed']}"


# --every-length: the tasks the every-length proof covers (docs/VERIFICATION.md, "Every length").
EVERY_LENGTH = {"copy", "reverse", "repeatCopy", "duplicated"}


def verify(nhc, line, runs, screen=False, every_length=False, skip_changed=False):
    run = run_dir(line, runs)
    if not (run / "eval.json").exists():
        return None  # not (yet) there: --partial leaves the line for a later call
    mine = json.loads((run / "summary.json").read_text())
    theirs = line["summary"]
    keys = ["task", "variant", "seed", "iterations", "learning_iterations", "outcome"]
    if any(mine.get(k) != theirs.get(k) for k in keys):
        if skip_changed:
            print(f"{run}: its summary is not the line's: the line keeps its record", file=sys.stderr)
            return None
        raise SystemExit(f"{run}: its summary is not the line's (rerun the sweep that made it)")
    task, variant = theirs["task"], theirs["variant"]
    cmd = [nhc, "verify", "--task", task, "--variant", variant, "--model", str(run / "model.json"), "--json"]
    if screen and task in SCREEN_BOUNDS:
        cmd += ["--up-to", SCREEN_BOUNDS[task]]
    if every_length and task in EVERY_LENGTH:
        cmd += ["--every-length"]
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    # 3: a counterexample within the bound; 5: right within it, wrong on a sample beyond it.
    if out.returncode not in (0, 3, 5):
        raise SystemExit(f"{run}: nhc verify failed: {out.stderr.strip()}")
    return summary(json.loads(out.stdout))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--nhc", default=str(ROOT / "target" / "release" / "nhc"))
    ap.add_argument("--again", action="store_true", help="verify lines that have a record too")
    ap.add_argument("--runs", help="the run directories are DIR/TASK-SEED (a sweep rerun into DIR), not the lines' own")
    ap.add_argument("--partial", action="store_true", help="skip the runs whose directory is not there yet")
    ap.add_argument("--screen", action="store_true", help="bounds within lengths up to 30 (a recipe's screen)")
    ap.add_argument("--tasks", help="verify only these tasks' lines (comma-separated)")
    ap.add_argument("--every-length", action="store_true", help="add the every-length proof (the copy family)")
    ap.add_argument(
        "--skip-changed", action="store_true",
        help="leave the lines whose run directory holds another run (a later build retrained it differently) as they are",
    )
    args = ap.parse_args()
    for file in args.files:
        path = Path(file)
        lines = [json.loads(t) for t in path.read_text().splitlines() if t.strip()]
        tasks = None if args.tasks is None else set(args.tasks.split(","))
        todo = [
            i
            for i, line in enumerate(lines)
            if (args.again or "verify" not in line) and (tasks is None or line["summary"]["task"] in tasks)
        ]
        if not args.partial:
            missing = [run_dir(lines[i], args.runs) for i in todo if not (run_dir(lines[i], args.runs) / "eval.json").exists()]
            if missing:
                raise SystemExit(f"{len(missing)} run directories are missing, e.g. {missing[0]} (or give --partial)")
        def save():
            tmp = path.with_suffix(".tmp")
            tmp.write_text("".join(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n" for line in lines))
            tmp.replace(path)

        # Each record is saved as it comes, so a stopped call keeps the runs it verified.
        with ThreadPoolExecutor(args.jobs) as pool:
            for i, record in zip(todo, pool.map(
                    lambda i: verify(args.nhc, lines[i], args.runs, args.screen, args.every_length, args.skip_changed), todo
                )):
                if record is None:
                    continue
                lines[i]["verify"] = record
                s = lines[i]["summary"]
                print(f"{s['task']} seed {s['seed']}: {record['outcome']}", file=sys.stderr)
                save()
        save()
        done = sum(1 for line in lines if "verify" in line)
        print(f"{path}: {done} of {len(lines)} runs carry their verification", file=sys.stderr)


if __name__ == "__main__":
    main()
