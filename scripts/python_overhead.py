"""What the Python interface costs: the learned sort on a level-1000 sample (1 001 numbers, about
a million model steps) through `model.run` and through `nhc run`, and with a Python comparison
(`model.run(xs, compare=cmp)`), each the best of several runs. Prints a Markdown table.

    .venv/bin/python scripts/python_overhead.py [--repeat 5]
"""

import argparse
import functools
import subprocess
import tempfile
import json
import time
from pathlib import Path

import nhc

ROOT = Path(__file__).resolve().parents[1]
parser = argparse.ArgumentParser()
parser.add_argument("--repeat", type=int, default=5)
args = parser.parse_args()

problem, answer = nhc.sample("sort", 1000, seed=1000)
model = nhc.load(ROOT / "models" / "sort.json")
report = model.run(problem, report=True)
steps = report["steps"]


def best(f, repeat=args.repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump(problem, f)
command = [str(ROOT / "target" / "release" / "nhc"), "run", "--task", "sort", "--model",
           str(ROOT / "models" / "sort.json"), "--input", "@" + f.name]
cli = best(lambda: subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
python = best(lambda: model.run(problem))
calls = [0]


def cmp(a, b):
    calls[0] += 1
    return a - b


model.run(problem, compare=cmp)
per_run = calls[0]
with_cmp = best(lambda: model.run(problem, compare=cmp))
same = model.run(problem, compare=cmp) == model.run(problem)
empty = best(lambda: [cmp(1, 2) for _ in range(per_run)])
calls[0] = 0
sorted(problem, key=functools.cmp_to_key(cmp))
reference_calls = calls[0]
trace_calls = int((model.trace(problem)["op"] == "C").sum())  # one compare per expected C step

print(f"sample: sort level 1000 (seed 1000, index 0), {steps} model steps, correct: {report['correct']}")
print()
print("| way | seconds | ns per model step |")
print("|---|---:|---:|")
for name, t in [("`nhc run --input @FILE` (process, JSON in and out)", cli),
                ("`model.run(xs)` (Python, bytes domain)", python),
                (f"`model.run(xs, compare=cmp)` ({per_run} calls of a Python `cmp`)", with_cmp)]:
    print(f"| {name} | {t:.3f} | {t / steps * 1e9:.0f} |")
print()
print(f"Python comparison: {(with_cmp - python) / per_run * 1e9:.0f} ns per call over the bytes domain; "
      f"the same {per_run} calls from a Python loop alone: {empty / per_run * 1e9:.0f} ns each. "
      f"Same answer as the bytes domain: {same}.")
print(f"The {per_run} calls: {trace_calls} for the expected trace (its C steps), {reference_calls} for the "
      f"reference (Python's sorted), {per_run - trace_calls - reference_calls} by the model's ALU.")
