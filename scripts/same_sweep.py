#!/usr/bin/env python3
"""Do two sweeps hold the same runs, apart from timings?

    python3 scripts/same_sweep.py A B

A and B are sweep.jsonl files (or results/NAME.jsonl). Runs are matched by (task, seed); a run
is the same if its summary (curve and lineages included) and every evaluation are equal once
the wall times (`wall_seconds`, `steps_per_second`, each evaluation's `seconds`) are removed.
Prints the runs that differ or are missing, then the count; exits 1 unless every run is the same.
"""

import json
import sys


def runs(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        s = {k: v for k, v in r["summary"].items() if k not in ("wall_seconds", "steps_per_second")}
        evals = {lvl: {k: v for k, v in e.items() if k != "seconds"} for lvl, e in r.get("eval", {}).items()}
        out[(s["task"], s["seed"])] = (s, evals, r.get("curve"))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = runs(sys.argv[1]), runs(sys.argv[2])
    keys = sorted(set(a) | set(b))
    same = [k for k in keys if a.get(k) == b.get(k)]
    for k in keys:
        if k not in same:
            print(f"{k[0]} seed {k[1]}: " + ("differs" if k in a and k in b else "missing in one"))
    print(f"{len(same)} of {len(keys)} runs the same apart from timings")
    sys.exit(0 if len(same) == len(keys) else 1)


if __name__ == "__main__":
    main()
