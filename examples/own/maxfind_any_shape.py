"""maxfind (examples/own/maxfind.py) declared with `any_shape`: lists of 1..ℓ+1 bytes at level ℓ,
where `sample` always gives ℓ+1, so no level shows a single byte. Trained with the recipe and
`check_any_shape = true`, the check draws those shapes too.

    python examples/own/maxfind_any_shape.py [RUNS]

trains seeds 1..RUNS (default 15) with the recipe, with and without check samples of any shape,
and prints, per way, the runs that finish and the runs right on every list of 1–16 bytes
(`Model.verify(up_to=16)`: every class of inputs, a proof for those lengths).
"""

import importlib.util
import sys
from pathlib import Path

import nhc

_spec = importlib.util.spec_from_file_location("maxfind", Path(__file__).with_name("maxfind.py"))
maxfind = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(maxfind)


def any_shape(level, rng):
    return [rng.integers(0, 256) for _ in range(rng.integers(1, level + 2))]


MAXFIND_ANY_SHAPE = maxfind.MAXFIND.replace(any_shape=any_shape)


def main(runs):
    ways = [
        ("the recipe", maxfind.MAXFIND, {}),
        ("the recipe + check samples of any shape", MAXFIND_ANY_SHAPE, {"check_any_shape": True}),
    ]
    print("| training | runs | finished | right on every list of 1–16 bytes | first wrong (runs) |")
    print("|---|---:|---:|---:|---|")
    for label, algorithm, config in ways:
        finished = right = 0
        wrong = {}
        for seed in range(1, runs + 1):
            model = nhc.train(algorithm, seed=seed, recipe=True, config=config)
            finished += model.meta.get("outcome") == "solved"
            report = model.verify(up_to=16)
            if report["outcome"] == "verified":
                right += 1
            else:
                first = min(c["at"][0] for p in report["parts"] for c in p["cells"] if c["failed"])
                wrong[first] = wrong.get(first, 0) + 1
        firsts = ", ".join(f"{n} byte{'s' * (n > 1)} ({k})" for n, k in sorted(wrong.items())) or "–"
        print(f"| {label} | {runs} | {finished} | {right} | {firsts} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
