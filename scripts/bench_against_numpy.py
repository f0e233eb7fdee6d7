"""Our NHC step against a plain NumPy NHC step, measured alternately in one run, so that the ratio
holds on a noisy or slower machine.

Usage:
  python3 scripts/bench_against_numpy.py NUMPY_SCRIPT [--rounds 5] [--numpy-steps 20000] [--python PY]

NUMPY_SCRIPT is a NumPy NHC step that prints `... (X us/step)` for the number of steps given as
its argument (the sort configuration: h_r = 2, h_w = 1, C = 4, L_C = 6, random parameters). Each
round runs, one thread each, in turn:
  - the learned sort at level 1000, `nhc eval --task sort --model models/sort.json --level 1000
    --samples 1 --json` (1 004 002 steps, sample preparation included);
  - `nhc bench --tasks sort --level 1000 --repeat 1`: the learned modules on a random θ (2·10⁶
    steps, no sample to check);
  - the NumPy step.
It prints every round, the medians and the fastest rounds, and the ratios NumPy / ours of both
(the fastest is the steadier on a shared machine). NHC: the binary (default
./target/release/nhc); PY: the Python with NumPy (default: the test command's .venv if there is
one, else this one).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NHC = os.environ.get("NHC", os.path.join(ROOT, "target/release/nhc"))
ENV = dict(os.environ, RAYON_NUM_THREADS="1")


def run(*args):
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=ENV)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{r.stderr}")
    return r.stdout


def learned_sample():
    """(seconds, ns per step) of the learned sort's level-1000 sample."""
    r = json.loads(run(NHC, "eval", "--task", "sort", "--model", "models/sort.json", "--level", "1000",
                       "--samples", "1", "--json"))
    if r["solved"] != 1:
        sys.exit(f"the learned sort did not solve its level-1000 sample: {r}")
    return r["seconds"], 1e9 * r["seconds"] / r["steps"]


def random_theta_step():
    """ns per step of the learned modules on a random θ (`nhc bench`)."""
    for line in run(NHC, "bench", "--tasks", "sort", "--level", "1000", "--repeat", "1").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 7 and cells[1] == "learned, random θ":
            return float(cells[6])
    sys.exit("`nhc bench` printed no learned row")


def numpy_step(python, script, steps):
    """ns per step of the NumPy step."""
    out = run(python, script, str(steps))
    m = re.search(r"\(([0-9.]+) us/step\)", out)
    if not m:
        sys.exit(f"{script} printed no `(X us/step)`: {out!r}")
    return 1e3 * float(m.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("numpy_script")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--numpy-steps", type=int, default=20000)
    venv = os.path.join(ROOT, ".venv/bin/python")
    p.add_argument("--python", default=venv if os.path.exists(venv) else sys.executable)
    a = p.parse_args()
    if not os.path.isfile(a.numpy_script):
        sys.exit(f"{a.numpy_script}: no such file")
    script = os.path.abspath(a.numpy_script)
    rows = []
    print("| round | learned sort, level 1000: s | ns/step | learned, random θ: ns/step | NumPy: ns/step |")
    print("|---:|---:|---:|---:|---:|")
    for k in range(1, a.rounds + 1):
        (secs, per), rand, npy = learned_sample(), random_theta_step(), numpy_step(a.python, script, a.numpy_steps)
        rows.append((secs, per, rand, npy))
        print(f"| {k} | {secs:.3f} | {per:.0f} | {rand:.0f} | {npy:.0f} |", flush=True)
    med = [statistics.median(c) for c in zip(*rows)]
    best = [min(c) for c in zip(*rows)]
    print(f"| median | {med[0]:.3f} | {med[1]:.0f} | {med[2]:.0f} | {med[3]:.0f} |")
    print(f"| fastest | {best[0]:.3f} | {best[1]:.0f} | {best[2]:.0f} | {best[3]:.0f} |")
    print()
    # On a shared machine the load changes between measurements; the fastest round of each is the
    # one least disturbed, so the ratio of the fastest is the steadier one.
    for name, v in (("fastest", best), ("median", med)):
        print(f"{name}: NumPy step / learned sort step (sample included) {v[3] / v[1]:.0f}×, "
              f"/ learned step on a random θ {v[3] / v[2]:.0f}×")

if __name__ == "__main__":
    main()
