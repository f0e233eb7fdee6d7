#!/usr/bin/env python3
"""brackets (examples/own/brackets.py) under the recipe on the tuning seeds 1–15, from scratch:
each run's lineages, and a deadline screen (docs/results/recipe.md, "Why lineages stall").

    .venv/bin/python results/screens/stalls/brackets.py OUT RECORDS [key=value ...]
        # trains seeds 1-15 into OUT/brackets-SEED (resumable), evaluates level 10 (50 samples of
        # sample seed 1000), appends each run's summary and evaluation to RECORDS (JSONL);
        # key=value fields go over the recipe, e.g. deadline=300 deadline_level=3

Made: `brackets.py runs/brackets-diag results/screens/stalls/brackets_recipe.jsonl` and
`brackets.py runs/brackets-deadline300 results/screens/stalls/brackets_deadline300_stopped.jsonl
deadline=300 deadline_level=3` (stopped after 3 runs).
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    import own_algorithms

    out, records = Path(sys.argv[1]), Path(sys.argv[2])
    config = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in sys.argv[3:])}
    algorithm = own_algorithms.declaration("brackets")
    for seed in range(1, 16):
        d = out / f"brackets-{seed}"
        if (d / "eval.json").exists():
            continue
        model = own_algorithms.trained(algorithm, d, seed, recipe=True, config=config or None)
        solved = model.evaluate(10, samples=50, seed=1000)["solved"]
        evaluation = {"10": {"solved": solved, "samples": 50}}
        (d / "eval.json").write_text(json.dumps(evaluation) + "\n")
        summary = json.loads((d / "summary.json").read_text())
        with records.open("a") as f:
            f.write(json.dumps({"dir": str(d), "summary": summary, "eval": evaluation}) + "\n")
        print(seed, summary["outcome"], summary["restarts"], summary["learning_iterations"], solved, flush=True)


if __name__ == "__main__":
    main()
