#!/usr/bin/env python3
"""The stall screens against the recipe, per task: runs finished, and model steps (sums) against
the recipe's runs of the same seeds; the seeds each leaves unfinished. From the records beside
this file alone:

    python3 results/screens/stalls/compare.py
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCREENS = [
    ("ipop.jsonl", "IPOP restarts (configs/recipe_ipop_screen.toml)"),
    ("arithmetic_restart1000.jsonl", "arithmetic, restart patience 1 000 (configs/recipe_arithmetic_restart1000_screen.toml)"),
    ("arithmetic_restart500.jsonl", "arithmetic, restart patience 500 (configs/recipe_arithmetic_restart500_screen.toml)"),
    ("early_check_stopped.jsonl", "arithmetic, early check after level 3 (configs/recipe_early_check_screen.toml; stopped after 3 runs)"),
    ("sort_train_shapes.jsonl", "sort, half the training samples of any shape (configs/recipe_sort_train_shapes_screen.toml)"),
    ("arithmetic_deep05.jsonl", "arithmetic, half the training samples of a deep shape (configs/recipe_arithmetic_deep_screen.toml)"),
    ("arithmetic_deep025.jsonl", "arithmetic, a quarter of the training samples of a deep shape (configs/recipe_arithmetic_deep025_screen.toml)"),
    ("sort_first_level.jsonl", "sort, a cap of 1 000 learning iterations on level 1 (configs/recipe_sort_first_level_screen.toml; entered the recipe)"),
    ("arithmetic_deadline1000.jsonl", "arithmetic, a deadline of 1 000 learning iterations on level 5 (configs/recipe_arithmetic_deadline1000_screen.toml)"),
    ("arithmetic_deadline300.jsonl", "arithmetic, a deadline of 300 learning iterations on level 5 (configs/recipe_arithmetic_deadline300_screen.toml)"),
]


def load(name):
    out = {}
    for line in (HERE / name).read_text().splitlines():
        s = json.loads(line)["summary"]
        out[(s["task"], s["seed"])] = s
    return out


def main():
    base = load("recipe_arithmetic_sort.jsonl")
    print("screen, task: finished (the recipe), model steps against the recipe, unfinished seeds (the recipe's), restarts (the recipe's)")
    for name, label in SCREENS:
        new = load(name)
        for task in sorted({t for t, _ in new}):
            keys = sorted(k for k in new if k[0] == task)
            fin = sum(new[k]["outcome"] == "solved" for k in keys)
            bfin = sum(base[k]["outcome"] == "solved" for k in keys)
            steps = sum(new[k]["steps"] for k in keys) / sum(base[k]["steps"] for k in keys)
            unf = [k[1] for k in keys if new[k]["outcome"] != "solved"]
            bunf = [k[1] for k in keys if base[k]["outcome"] != "solved"]
            rs = sum(new[k]["restarts"] for k in keys)
            brs = sum(base[k]["restarts"] for k in keys)
            print(f"{label}, {task}: {fin} of {len(keys)} ({bfin}), {steps:.2f}, {unf} ({bunf}), {rs} ({brs})")


if __name__ == "__main__":
    main()
