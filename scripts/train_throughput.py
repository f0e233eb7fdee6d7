"""Training throughput before and after a change, in one run: `nhc bench --train` of a given
earlier commit and of this checkout, task by task, alternating between the two binaries so that
both see the same machine load.

Usage: python3 scripts/train_throughput.py BEFORE_COMMIT [ITERATIONS] [REPEATS]
  BEFORE_COMMIT is built in target/before/ (a git worktree, its own target directory); it must
  have `nhc bench --train` (commit aa7f0e4 or later). ITERATIONS per curriculum level (default
  50); each binary measures each task REPEATS times (default 3), alternating, and the best rate
  counts (the least disturbed by the rest of the machine).
Prints a Markdown table: per task, iterations per second at levels 1-10 before and after.
"""
import json
import os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
before = sys.argv[1]
iterations = sys.argv[2] if len(sys.argv) > 2 else "50"
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
tree = os.path.join(ROOT, "target/before")
if not os.path.isdir(tree):
    subprocess.run(["git", "worktree", "add", "--detach", tree, before], check=True, cwd=ROOT)
subprocess.run(["git", "checkout", "--detach", before], check=True, cwd=tree, capture_output=True)
env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(ROOT, "target/before-target"))
subprocess.run(["cargo", "build", "--release", "-q"], check=True, cwd=tree, env=env)
subprocess.run(["cargo", "build", "--release", "-q"], check=True, cwd=ROOT)
binaries = {"before": os.path.join(ROOT, "target/before-target/release/nhc"),
            "after": os.path.join(ROOT, "target/release/nhc")}
# The paper's eleven tasks, as its Table 1 lists them.
tasks = json.load(open(os.path.join(ROOT, "results", "paper_table1.json")))["tasks"]


def rate(binary, task):
    out = subprocess.run([binary, "bench", "--train", "--tasks", task, "--iterations", iterations],
                         check=True, capture_output=True, text=True).stdout
    row = [r for r in out.splitlines() if r.startswith(f"| {task} |")][0]
    cells = [c.strip() for c in row.strip("|").split("|")]
    return float(cells[3]), int(cells[4])  # iterations/s, steps


commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                        cwd=ROOT).stdout.strip()
print(f"`python3 scripts/train_throughput.py {before} {iterations} {repeats}` (after = {commit}), "
      f"{iterations} iterations at each level 1-10, seed 1, default config, best of {repeats}\n")
print("| task | before, iterations/s | after, iterations/s | after / before | same steps |")
print("|---|---:|---:|---:|---|")
for t in tasks:
    runs = [(rate(binaries["before"], t), rate(binaries["after"], t)) for _ in range(repeats)]
    (b, bs), (a, as_) = max(r[0] for r in runs), max(r[1] for r in runs)
    print(f"| {t} | {b:.1f} | {a:.1f} | {a / b:.2f} | {'yes' if bs == as_ else f'no ({bs} vs {as_})'} |",
          flush=True)
