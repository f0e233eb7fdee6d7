#!/usr/bin/env python3
"""results/screens/README.md: every screen and superseded row kept under results/screens/, drawn
from the records themselves (tasks, variants, seeds, runs finished and perfect at levels 100, 500
and 1000 where they were evaluated) with the pages that cite each file.

    python3 results/screens/index.py          # from the repository root
"""

import json
import subprocess
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def seeds(values):
    """Seeds as ranges: 1–15, 101–115."""
    values, out = sorted(set(values)), []
    for s in values:
        if out and s == out[-1][1] + 1:
            out[-1][1] = s
        else:
            out.append([s, s])
    return ", ".join(f"{a}–{b}" if a != b else f"{a}" for a, b in out)


def summary(path):
    """What a JSONL file of sweep records holds, in one cell each."""
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    rows = [r for r in rows if isinstance(r, dict) and "summary" in r]
    if not rows:
        return None
    tasks = sorted({r["summary"]["task"] for r in rows})
    variants = sorted({r["summary"].get("variant", "nhc") for r in rows})
    finished = sum(r["summary"].get("outcome") == "solved" for r in rows)
    evaluated = [r for r in rows if all(str(l) in r.get("eval", {}) for l in (100, 500, 1000))]
    perfect = sum(all(r["eval"][str(l)]["solved"] == r["eval"][str(l)]["samples"] for l in (100, 500, 1000))
                  for r in evaluated)
    shown = f"{perfect} of {len(evaluated)}" if evaluated else "not evaluated there"
    return (", ".join(tasks) if len(tasks) < 6 else f"{len(tasks)} tasks", ", ".join(variants),
            seeds(r["summary"]["seed"] for r in rows), f"{finished} of {len(rows)}", shown)


def citations(rel):
    """The pages of docs/ and README.md that name the file."""
    out = subprocess.run(["git", "grep", "-l", "-F", rel, "--", "README.md", "docs"], cwd=ROOT,
                         capture_output=True, text=True).stdout.split()
    return ", ".join(out) or "–"


def main():
    lines = ["# Screens and superseded rows", "",
             "Everything here chose or explained a default, or is a row an earlier default gave; the headline rows are",
             "one folder up. Drawn from the records by `python3 results/screens/index.py`: per file, the tasks",
             "and variants it ran, its training seeds, the runs that finished, the runs perfect at levels 100, 500",
             "and 1000 (where it was evaluated there), and the pages that cite it.", ""]
    by_topic = defaultdict(list)
    for path in sorted(HERE.rglob("*")):
        if path.is_file() and path.name not in ("README.md", "index.py"):
            by_topic[path.parent.relative_to(HERE).as_posix()].append(path)
    for topic, paths in sorted(by_topic.items()):
        lines += [f"## {topic}", ""]
        if (HERE / topic / "README.md").exists():
            lines += [f"Its tables: [{topic}/README.md]({topic}/README.md).", ""]
        folder = citations(f"results/screens/{topic}/")
        if folder != "–":
            lines += [f"The folder is cited by {folder}.", ""]
        lines += ["| file | tasks | variants | seeds | finished | perfect | cited by |", "|---|---|---|---|---|---|---|"]
        for path in paths:
            rel = path.relative_to(ROOT).as_posix()
            name = path.relative_to(HERE / topic).as_posix()
            s = summary(path) if path.suffix == ".jsonl" else None
            cells = s if s else ("–",) * 5
            lines.append(f"| [{name}]({topic}/{name}) | " + " | ".join(cells) + f" | {citations(rel)} |")
        lines.append("")
    (HERE / "README.md").write_text("\n".join(lines))
    print(f"wrote {(HERE / 'README.md').relative_to(ROOT)}")


if __name__ == "__main__":
    main()
