"""CPU and wall time of training copy and sort declared in Python (examples/own_algorithms.py)
against the built-in tasks: same seed, same iterations, one thread (RAYON_NUM_THREADS=1 unless
set), the least CPU time of `--repeat` runs each (taken in turn, so that a busy machine slows both
alike), and whether θ came out the same.

    .venv/bin/python scripts/declared_speed.py [--iterations 3000] [--seed 1] [--tasks copy,sort] [--repeat 3]
"""

import argparse
import importlib.util
import os
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # read when the core first runs in parallel

import numpy as np  # noqa: E402

import nhc  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def example():
    spec = importlib.util.spec_from_file_location("own_algorithms", ROOT / "examples" / "own_algorithms.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(task, seed, config):
    """(CPU seconds of the process, wall seconds, model, records): CPU time is less disturbed by
    the other processes of a shared machine."""
    log = []
    cpu, wall = time.process_time(), time.perf_counter()
    model = nhc.train(task, seed, config=config, callback=log.append)
    return time.process_time() - cpu, time.perf_counter() - wall, model, log


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tasks", default="copy,sort")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    own = example()
    declared = {"copy": own.COPY, "sort": own.SORT}
    config = {"budget": "all", "max_iterations": args.iterations}
    print(
        f"RAYON_NUM_THREADS={os.environ['RAYON_NUM_THREADS']}, seed {args.seed}, {args.iterations} iterations "
        f"at most, least CPU time of {args.repeat}"
    )
    for name in args.tasks.split(","):
        nhc.train(declared[name], args.seed, config={"max_iterations": 2})  # imports, first calls
        t_built_in = t_declared = (float("inf"), 0.0)
        for _ in range(args.repeat):
            cpu, wall, built_in, log = timed(name, args.seed, config)
            t_built_in = min((cpu, wall), t_built_in)
            cpu, wall, mine, _ = timed(declared[name], args.seed, config)
            t_declared = min((cpu, wall), t_declared)
        same = np.array_equal(built_in.params, mine.params)
        steps = sum(r["steps"] for r in log)
        print(
            f"{name:5} {len(log)} iterations to level {max(r['level'] for r in log)}, {steps} steps: "
            f"built-in {t_built_in[0]:.2f} s CPU ({t_built_in[1]:.2f} s wall), declared in Python "
            f"{t_declared[0]:.2f} s CPU ({t_declared[1]:.2f} s wall), ratio {t_declared[0] / t_built_in[0]:.2f} "
            f"(wall {t_declared[1] / t_built_in[1]:.2f}); same θ: {same}"
        )


if __name__ == "__main__":
    main()
