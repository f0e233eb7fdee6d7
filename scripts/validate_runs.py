#!/usr/bin/env python3
"""Adds each finished run's validation to the lines of sweep records: `nhc eval` of the run's
model at validation levels (default 50 and 99) on sample seed 2, the seed models/ are picked on,
never a test sample (the test levels are 100, 500 and 1000 on sample seed 1000), kept in the
line's `validation` field as {level: solved}. Used to choose between recipe screens on what
samples up to length 30 cannot show, a drift with the length (docs/results/recipe.md).

    python3 scripts/validate_runs.py results/screens/recipe/feedback_from2.jsonl --runs runs/screens/feedback-from2 [--nhc target/release/nhc]

A line that already has `validation` is kept unless --again.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", help="the run directories, DIR/TASK-SEED (default: each line's dir)")
    ap.add_argument("--nhc", default=os.environ.get("NHC_BIN", str(ROOT / "target" / "release" / "nhc")))
    ap.add_argument("--levels", default="50,99", help="validation levels, each below 100 (default 50,99)")
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--again", action="store_true")
    a = ap.parse_args()
    levels = [int(x) for x in a.levels.split(",")]
    if any(not 1 <= x < 100 for x in levels):
        sys.exit("validate_runs.py: validation levels must be in 1..=99 (100, 500 and 1000 are the test levels)")
    for f in a.files:
        path = Path(f)
        lines = [json.loads(t) for t in path.read_text().splitlines() if t.strip()]
        for line in lines:
            s = line["summary"]
            if s["outcome"] != "solved" or ("validation" in line and not a.again):
                continue
            run = Path(a.runs) / f"{s['task']}-{s['seed']}" if a.runs else ROOT / line["dir"]
            model = run / "model.json"
            if not model.exists():
                sys.exit(f"validate_runs.py: {model} is missing: rerun the sweep that made {f}")
            got = {}
            for level in levels:
                out = subprocess.run([a.nhc, "eval", "--task", s["task"], "--domain", s["domain"], "--model",
                                      str(model), "--level", str(level), "--samples", str(a.samples), "--seed",
                                      str(SEED), "--json"], capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"validate_runs.py: nhc eval failed on {model}: {out.stderr.strip()}")
                got[str(level)] = json.loads(out.stdout)["solved"]
            line["validation"] = {"seed": SEED, "samples": a.samples, "solved": got}
            print(f"{s['task']} seed {s['seed']}: " + ", ".join(f"level {k} {v}/{a.samples}" for k, v in got.items()))
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))


if __name__ == "__main__":
    main()
