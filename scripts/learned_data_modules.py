"""The learned search and plan models on learned data modules, beside the same models on the
world's exact modules: results/learned_data_modules.md.

Usage:
  python3 scripts/learned_data_modules.py DIR [DIR ...]   # directories of `nhc data-modules train`

Per directory: the held-out accuracies its training measured (data_modules.json), then
`nhc transfer --task all --model models/ --data-modules DIR` (levels 1-11, 100 and 1000, 50
samples, seed 0) with the counts of calls where the modules differed from the exact rules, and
the same levels on the exact modules (`nhc eval --domain WORLD`). NHC: the binary (default
./target/release/nhc, built with --features data-modules for training; any build runs this).
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NHC = os.environ.get("NHC", os.path.join(ROOT, "target/release/nhc"))
TASKS = ["search", "plan", "search+", "plan+"]
LEVELS = list(range(1, 12)) + [100, 1000]
SAMPLES = 50


def run(*args):
    return subprocess.run([NHC, *args], check=True, capture_output=True, text=True, cwd=ROOT).stdout


def exact(world):
    """Solved samples on the exact modules: (levels 1-11 summed, level 100, level 1000) per task."""
    rows = []
    for task in TASKS:
        solved = {}
        for level in LEVELS:
            r = json.loads(run("eval", "--task", task, "--model", f"models/{task}.json", "--domain", world,
                               "--level", str(level), "--samples", str(SAMPLES), "--json"))
            solved[level] = r["solved"]
        train = sum(solved[level] for level in range(1, 12))
        rows.append(f"| {task} | {world} (exact) | {train}/{11 * SAMPLES} | {solved[100]}/{SAMPLES} | "
                    f"{solved[1000]}/{SAMPLES} |")
    return "\n".join(rows)


def main(dirs):
    out = ["# The learned search and plan models on learned data modules", "",
           f"Made by `python3 scripts/learned_data_modules.py {' '.join(dirs)}`. Data modules: "
           "docs/DESIGN.md, \"Learned data modules\"; the discussion: docs/results/learned-data-modules.md, \"Learned data "
           "modules\".", ""]
    for d in dirs:
        meta = json.load(open(os.path.join(ROOT, d, "data_modules.json")))
        t = meta["training"]
        a, c = t["accuracy"], t["config"]
        out += [f"## {meta['world']} ({d})", "",
                f"Trained by `{t['command']}` in {t['seconds']:.0f} s: {c['epochs']} epochs of {c['states']} fresh "
                f"states from random walks of up to {c['walk']} moves"
                + (f", replaying up to {c['replay']} states a network got wrong" if "replay" in c else "")
                + f"; action model hidden layers {c['action_hidden']}, mask {c['mask_hidden']}, equality "
                f"{c['equality_hidden']}.", "",
                f"Held out ({a['states']} states): action model {100 * a['action_fields']:.4f} % of cells and "
                f"{100 * a['action_states']:.3f} % of (state, operation) pairs right ({a['action_wrong']} wrong of "
                f"{5 * a['states']}); mask {100 * a['mask_states']:.3f} % of states; equality "
                f"{100 * a['equality_pairs']:.3f} % of pairs"
                + (f", {100 * a['equality_cells']:.3f} % of states told apart from themselves with one cell changed"
                   if "equality_cells" in a else "") + ".", ""]
        table = run("transfer", "--task", "all", "--model", "models/", "--data-modules", d,
                    "--samples", str(SAMPLES))
        lines = table.splitlines()
        head = next(i for i, l in enumerate(lines) if l.startswith("| task | domain"))
        end = next((i for i in range(head + 2, len(lines)) if not lines[i].startswith("|")), len(lines))
        out += lines[:end] + [exact(meta["world"])] + lines[end:] + [""]
    path = os.path.join(ROOT, "results", "learned_data_modules.md")
    open(path, "w").write("\n".join(out) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
