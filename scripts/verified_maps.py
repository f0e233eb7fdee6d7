#!/usr/bin/env python3
"""results/verified.md: where each run of a sweep is right, from the verification records its
lines carry (scripts/verify_runs.py): one line per run, and the map of every run that is wrong on
a two-parameter part.

    python3 scripts/verified_maps.py results/full.jsonl [more.jsonl ...] > results/verified.md
"""

import json
import sys
from pathlib import Path

ORDER = ["search", "plan", "search+", "plan+", "addition", "sort", "arithmetic", "copy", "repeatCopy", "reverse", "duplicated"]


def beyond_of(part):
    """The samples beyond the bound, in words (records made before that stage have none)."""
    b = part.get("beyond")
    if not b or not b["sizes"]:
        return ""
    unit = part["layer"]

    def sized(x):  # "9–1000 objects", but "levels 4–1000", "level 18"
        if unit != "levels":
            return f"{x} {unit}"
        return f"levels {x}" if "–" in str(x) else f"level {x}"

    span = sized(f"{b['sizes'][0]}–{b['sizes'][-1]}")
    wrong = [(n, f, k) for n, f, k in zip(b["sizes"], b["failed"], b["samples"]) if f]
    if not wrong:
        return f"; sampled beyond: right on {sum(b['samples'])} samples at {span}"
    return (
        f"; sampled beyond: wrong first at {sized(wrong[0][0])} "
        f"({sum(f for _, f, _ in wrong)} of {sum(b['samples'])} samples wrong at {span})"
    )


def line_of(part):
    kind = "" if part["exhaustive"] else " (sampled)"
    if part["smallest"] is None:
        right = f"right on every {part['what']}" if part["exhaustive"] else f"right on all {part['what']} (sampled)"
        return right + beyond_of(part)
    return (
        f"{part['what']}{kind}: right to {part['right_to']} {part['layer']}, smallest wrong {part['smallest']['shape']}"
        f" ({part['failed']} of {part['inputs']} inputs wrong)"
    ) + beyond_of(part)


def every_length_of(v):
    """The every-length proof (`nhc verify --every-length`, the copy family), in words."""
    e = v.get("every_length")
    if not e:
        return ""
    if e["outcome"] == "proved" and "objects" in e:
        return (f"; every number of repeats, proved for 1–{e['objects']} objects (symbolic runs from r₀ = {e['n0']} "
                f"repeats, each fewer by a run of its own)")
    if e["outcome"] == "proved" and "passes" in e:
        return (f"; every number of objects and copies, proved (symbolic run from {e['n0']} objects, each fewer by a "
                f"run of its own; every pass repeats an earlier one within {e['passes']} copies)")
    if e["outcome"] == "proved":
        return f"; every length, proved (symbolic run from {e['n0']} objects, the shorter listed)"
    return f"; every length, {e['outcome']}: {e.get('reason', '')}"




def every_length_table(lines):
    """Per task, the runs the every-length proof covers: proved, wrong, not proved."""
    rows = {}
    for l in lines:
        e = l["verify"].get("every_length")
        if e:
            r = rows.setdefault(l["summary"]["task"], {"proved": 0, "wrong": 0, "not proved": 0, "n0": [], "passes": []})
            r[e["outcome"]] += 1
            if e["outcome"] == "proved":
                r["n0"].append(e["n0"])
                if "passes" in e:
                    r["passes"].append(e["passes"])
    if not rows:
        return []
    out = [
        "Every length: `nhc verify --every-length` on copy, reverse, repeatCopy and duplicated runs (docs/VERIFICATION.md, "
        "\"Every length\"); n₀: the proof's symbolic run covers every length from n₀ on, the listing the shorter ones "
        "(repeatCopy: every number of copies, and each number of objects below n₀ by a run of its own; copies: the "
        "most passes a run of the proof took before they repeated; duplicated: every number of repeats for 1–100 "
        "objects, so every sample of levels 1–100, n₀ the largest r₀ of its symbolic runs in the number of repeats, "
        "the other run-length sequences listed).",
        "",
        "| task | proved | wrong | not proved | n₀ of the proved, median (max) |",
        "|---|---:|---:|---:|---:|",
    ]
    for task, r in rows.items():
        n0 = sorted(r["n0"])
        med = f"{n0[len(n0) // 2]} ({n0[-1]})" if n0 else "–"
        passes = sorted(r["passes"])
        if passes:
            med += f"; copies {passes[len(passes) // 2]} ({passes[-1]})"
        out.append(f"| {task} | {r['proved']} | {r['wrong']} | {r['not proved']} | {med} |")
    return out + [""]


def crosstab(lines):
    """Per task: runs perfect under the protocol (every sample of levels 100, 500 and 1000) or
    not, against right on every listed input or not."""
    rows = {}
    for l in lines:
        s, v = l["summary"], l["verify"]
        perfect = all(l["eval"].get(k, {}).get("solved", -1) == l["eval"].get(k, {}).get("samples") for k in ("100", "500", "1000"))
        right = v["outcome"] != "counterexample"
        r = rows.setdefault(s["task"], {"cells": [0, 0, 0, 0], "sampled": False})
        r["cells"][(0 if perfect else 2) + (0 if right else 1)] += 1
        r["sampled"] |= not all(p["exhaustive"] for p in v["parts"])
    out = [
        "Perfect: every sample of levels 100, 500 and 1000 solved (the paper's protocol). Right: no counterexample "
        "up to the default bounds (sampled tasks: none among their samples).",
        "",
        "| task | perfect and right | perfect, with a counterexample | not perfect, right | not perfect, with a counterexample |",
        "|---|---:|---:|---:|---:|",
    ]
    total = [0, 0, 0, 0]
    for task, r in rows.items():
        total = [a + b for a, b in zip(total, r["cells"])]
        kind = " (sampled)" if r["sampled"] else ""
        out.append(f"| {task}{kind} | " + " | ".join(map(str, r["cells"])) + " |")
    out += [f"| all | " + " | ".join(map(str, total)) + " |", ""]
    return out


def main():
    files = sys.argv[1:] or ["results/full.jsonl"]
    out = [
        "# Where each run is right",
        "",
        f"Made by `python3 scripts/verified_maps.py {' '.join(files)}` from the verification records "
        "the lines carry (`python3 scripts/verify_runs.py FILE.jsonl --runs DIR`: `nhc verify` at its "
        "default bounds on each run's model; docs/VERIFICATION.md, \"Verification\"). A map has the first "
        "axis left to right from 1 and the second from its top value down to 1: `+` every input of "
        "the cell right, `x` one wrong, `.` not listed.",
        "",
    ]
    for file in files:
        lines = [json.loads(t) for t in Path(file).read_text().splitlines() if t.strip()]
        lines.sort(key=lambda l: (ORDER.index(l["summary"]["task"]) if l["summary"]["task"] in ORDER else 99, l["summary"]["seed"]))
        variant = lines[0]["summary"]["variant"] if lines else ""
        verified = [l for l in lines if "verify" in l]
        out += [f"## {Path(file).name} ({variant}): {len(verified)} of {len(lines)} runs verified", ""]
        out += crosstab(verified)
        out += every_length_table(verified)
        maps = []
        for l in verified:
            s, v = l["summary"], l["verify"]
            parts = "; ".join(line_of(p) for p in v["parts"])
            out.append(f"- {s['task']} seed {s['seed']} ({v['outcome']}): {parts}{every_length_of(v)}")
            for p in v["parts"]:
                if p.get("map"):
                    maps.append((s, p))
        out.append("")
        for s, p in maps:
            out += [
                f"### {s['task']} seed {s['seed']}: {p['what']}",
                "",
                f"{p['axes'][0]} → (columns), {p['axes'][1]} ↓ from the top row; smallest wrong: "
                f"{p['smallest']['shape']}, input `{json.dumps(p['smallest']['input'])[:200]}`",
                "",
                "```",
                *p["map"],
                "```",
                "",
            ]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
