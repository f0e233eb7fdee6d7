#!/usr/bin/env python3
"""results/recipe.md: the recipe's row, confirmed once on the test levels, beside the paper's and
the paper-protocol row; then the screen that chose it, one component at a time, on training-side
numbers only (finished runs, runs right on every input up to length 30 by `nhc verify`, learning
iterations, model steps). Redrawn from the committed sweep records (docs/RECIPE.md, "The recipe").

    python3 scripts/recipe_table.py [--out results/recipe.md]

The row's records are results/screens/recipe/row.jsonl: `nhc sweep --tasks all --recipe --runs 15 --out
runs/recipe` (the paper-protocol row's test levels and samples), then `scripts/verify_runs.py
results/screens/recipe/row.jsonl --runs runs/recipe` (default bounds). The first confirmation is
results/screens/recipe/row1.jsonl; the second reran duplicated alone, the one task whose settings
changed (results/screens/recipe/duplicated2.jsonl), and the row is the first with duplicated's lines
replaced:

    python3 scripts/recipe_table.py --merge results/screens/recipe/duplicated2.jsonl results/screens/recipe/sort4.jsonl

(sort's lines from its fourth confirmation, after its update feedback came to start at level 2).
Each screen's records are results/screens/recipe/NAME.jsonl: `nhc sweep --config configs/CONFIG.toml
--levels 30 ...` (the command is in SCREENS), then `scripts/verify_runs.py FILE --runs DIR
--screen` (bounds within lengths 30). The paper-protocol row is results/full.jsonl, its
verification at the default bounds read at the screen's: a run right on every input up to its
first counterexample is right to 30 when that counterexample is beyond 30. Test levels (100, 500,
1000) are not read: the screen never looks at them.
"""

import argparse
import json
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Bounds of the screen (scripts/verify_runs.py, SCREEN_BOUNDS): per part, the largest layer an
# input may have; None = the part's own (default) bound, within lengths 30 already.
SCREEN = {"copy": [30], "reverse": [30], "repeatCopy": [30], "duplicated": [16, 30]}

TASKS = ["search", "plan", "search+", "plan+", "addition", "sort", "arithmetic", "copy", "repeatCopy",
         "reverse", "duplicated"]

# (name, label, config, command): the screens in the order they were run.
SCREENS = [
    ("protocol", "the paper's protocol (results/full.jsonl)", None,
     "nhc sweep --tasks all --runs 15 --out runs/paper3"),
    ("relearn", "check at 12–30, a failed check sends the lineage back to learn", "check30_relearn_screen",
     "nhc sweep --tasks repeatCopy --runs 15 --levels 30 --config configs/check30_relearn_screen.toml --out runs/screens/rc-relearn; the same for the other ten tasks --out runs/screens/relearn"),
    ("bus", "the same + Bus feedback (copy family)", "recipe_bus_screen",
     "nhc sweep --tasks copy,repeatCopy,reverse,duplicated --runs 15 --levels 30 --config configs/recipe_bus_screen.toml --out runs/screens/cf-bus"),
    ("shapes", "check + relearn, check samples of any shape", "recipe_shapes_screen",
     "nhc sweep --tasks sort,duplicated --runs 15 --levels 30 --config configs/recipe_shapes_screen.toml --out runs/screens/shapes"),
    ("shapes_bus", "check + relearn + any shape + Bus feedback", "recipe_shapes_bus_screen",
     "nhc sweep --tasks duplicated --runs 15 --levels 30 --config configs/recipe_shapes_bus_screen.toml --out runs/screens/shapes-bus"),
    ("noise", "check + relearn + word noise 0.1 (arithmetic so far)", "recipe_noise_screen",
     "nhc sweep --tasks arithmetic --runs 15 --levels 30 --config configs/recipe_noise_screen.toml --out runs/screens/noise"),
    ("recipe_noise", "the recipe (check + relearn, Bus feedback for the copy family, sort's any shape) + word noise 0.1",
     "recipe_noise_all_screen",
     "nhc sweep --tasks sort,duplicated --runs 15 --levels 30 --config configs/recipe_noise_all_screen.toml --out runs/screens/noise-sd --jobs 1"),
    ("check1000", "the recipe with 1 000 check samples instead of 200 (sort; after the confirmation, not adopted)",
     "recipe_check1000_screen",
     "nhc sweep --tasks sort --runs 15 --levels 30 --config configs/recipe_check1000_screen.toml --out runs/screens/check1000"),
    ("train_shapes_only", "the recipe's duplicated (check + relearn + Bus feedback) + half the training samples of any shape (adopted)",
     "recipe_train_shapes_only_screen",
     "nhc sweep --tasks duplicated --runs 15 --levels 30 --config configs/recipe_train_shapes_only_screen.toml --out runs/screens/train-shapes-only"),
    ("train_shapes025", "the same with a quarter of the training samples of any shape",
     "recipe_train_shapes025_screen",
     "nhc sweep --tasks duplicated --runs 15 --levels 30 --config configs/recipe_train_shapes025_screen.toml --out runs/screens/train-shapes025"),
    ("train_shapes1", "the same with every training sample of any shape",
     "recipe_train_shapes1_screen",
     "nhc sweep --tasks duplicated --runs 15 --levels 30 --config configs/recipe_train_shapes1_screen.toml --out runs/screens/train-shapes1"),
    ("train_shapes_alone", "the paper's protocol + half the training samples of any shape (no check, no Bus feedback)",
     "train_shapes_screen",
     "nhc sweep --tasks duplicated --runs 15 --levels 30 --config configs/train_shapes_screen.toml --out runs/screens/train-shapes-alone"),
    ("update_feedback", "the recipe's sort + update feedback (adopted; replaced by feedback_from2)", "recipe_update_feedback_screen",
     "nhc sweep --tasks sort --runs 15 --levels 30 --config configs/recipe_update_feedback_screen.toml --out runs/screens/update-feedback"),
    ("update_feedback_closed", "the same with every gate starting closed (gate_bias = -1; not adopted)",
     "recipe_update_feedback_closed_screen",
     "nhc sweep --tasks sort --runs 15 --levels 30 --jobs 1 --config configs/recipe_update_feedback_closed_screen.toml --out runs/screens/update-feedback-closed"),
    ("require_updates", "the recipe's sort + update feedback, the program's updates required too (not adopted)",
     "recipe_require_updates_screen",
     "nhc sweep --tasks sort --runs 15 --levels 30 --config configs/recipe_require_updates_screen.toml --out runs/screens/require-updates"),
    ("feedback_from2", "the recipe's sort + update feedback from curriculum level 2 (adopted)",
     "recipe_feedback_from2_noextra_screen",
     "nhc sweep --tasks sort --runs 15 --levels 30 --jobs 1 --config configs/recipe_feedback_from2_noextra_screen.toml --out runs/screens/feedback-from2"),
    ("feedback_from2_exact", "the same with the program's updates required too (not adopted)",
     "recipe_feedback_from2_exact_screen",
     "nhc sweep --tasks sort --runs 15 --levels 30 --jobs 1 --config configs/recipe_feedback_from2_exact_screen.toml --out runs/screens/feedback-from2-exact"),
    ("arithmetic_bus", "the recipe's arithmetic + Bus feedback (not adopted)", "recipe_arithmetic_bus_screen",
     "nhc sweep --tasks arithmetic --runs 15 --levels 30 --jobs 1 --config configs/recipe_arithmetic_bus_screen.toml --out runs/screens/arithmetic-bus"),
    ("train_shapes", "half the training samples of any shape, with check samples of any shape too",
     "recipe_train_shapes_screen",
     "nhc sweep --tasks duplicated --runs 15 --levels 30 --config configs/recipe_train_shapes_screen.toml --out runs/screens/train-shapes"),
    ("check99", "the recipe with its check at levels 12–99 instead of 12–30 (adopted, after the fourth confirmation)",
     "recipe_check99_screen",
     "nhc sweep --tasks search,plan,search+,plan+,addition,sort,arithmetic,copy,repeatCopy,reverse,duplicated --runs 15 --levels 10 --config configs/recipe_check99_screen.toml --out runs/screens/check99"),
]


def records(name):
    if name.startswith("protocol"):
        path = ROOT / "results" / ("full" + name[len("protocol"):] + ".jsonl")
    else:
        # The reported rows (held-out confirmations) in results/recipe/, screens and the tuning
        # seeds' confirmations in results/screens/recipe/.
        path = ROOT / "results" / "recipe" / f"{name}.jsonl"
        if not path.exists():
            path = ROOT / "results" / "screens" / "recipe" / f"{name}.jsonl"
    if not path.exists():
        return None
    return [json.loads(t) for t in path.read_text().splitlines() if t.strip()]


def right_to_30(line):
    """'yes' (every listed input up to the screen's bounds right), 'no', 'sampled' (right on
    every sample; no listing), 'wrong' (a sample wrong) or None (no record)."""
    v = line.get("verify")
    if v is None:
        return None
    parts = v["parts"]
    if not all(p["exhaustive"] for p in parts):
        return "sampled" if all(p["failed"] == 0 for p in parts) else "wrong"
    bounds = SCREEN.get(line["summary"]["task"], [None] * len(parts))
    for p, b in zip(parts, bounds):
        need = p["bound"] if b is None else min(b, p["bound"])
        if p["right_to"] < need:
            return "no"
    return "yes"


def median(xs):
    return statistics.median(xs) if xs else None


def row(lines):
    fin = sum(1 for x in lines if x["summary"]["outcome"] == "solved")
    right = [right_to_30(x) for x in lines]
    li = median([x["summary"]["learning_iterations"] for x in lines])
    steps = median([x["summary"]["steps"] for x in lines])
    yes, sampled = right.count("yes"), right.count("sampled")
    return len(lines), fin, yes, sampled, li, steps


def lineage_levels(summary):
    """The levels a run's lineages ended at (the last: where it finished or hit the cap)."""
    return ", ".join(str(l["level"]) for l in summary["lineages"])


def unfinished(lines):
    return ", ".join(str(x["summary"]["seed"]) for x in lines if x["summary"]["outcome"] != "solved") or "–"


def stuck_at_1(lines):
    """Lineages that ended at level 1 without finishing (restarted or capped)."""
    return sum(1 for x in lines for l in x["summary"]["lineages"] if l["level"] == 1 and l["ending"] != "finished")


def validated(lines):
    """Finished runs that solve every validation sample (scripts/validate_runs.py), or None when
    the screen was not validated."""
    if not any("validation" in x for x in lines):
        return None
    return sum(1 for x in lines if "validation" in x
               and all(v == x["validation"]["samples"] for v in x["validation"]["solved"].values()))


def fmt(x):
    return "–" if x is None else f"{x:,.0f}".replace(",", " ")


ROW = "nhc sweep --tasks all --recipe --runs 15 --out runs/recipe"
# The held-out confirmations (docs/DESIGN.md, "Training seeds"), in the order they ran: each
# range's recipe sweep is results/recipe/heldout_FIRST.jsonl, its protocol results/full_FIRST.jsonl.
HELDOUT = [(101, 115, "the first confirmation"), (116, 130, "the second confirmation"),
           (131, 145, "the third confirmation, after sort's cap on level 1"),
           (146, 160, "the fourth confirmation, after arithmetic's deadline")]
TEST_LEVELS = ("100", "500", "1000")


def perfect(line):
    """All samples solved at every test level."""
    e = line["eval"]
    return all(l in e and e[l]["solved"] == e[l]["samples"] for l in TEST_LEVELS)


def paper_perfect():
    """The paper's perfect runs per task: Table 1's share of runs perfect at a level, times its 15
    runs, the least over the test levels."""
    t = json.loads((ROOT / "results" / "paper_table1.json").read_text())
    nhc = t["models"]["NHC"]
    out = {}
    for k, task in enumerate(t["tasks"]):
        shares = [float(nhc[f"level {l}"][k].split("%")[0]) for l in TEST_LEVELS]
        out[task] = round(min(shares) * 15 / 100)
    return out, {task: nhc["iterations"][k].split(" ")[0] for k, task in enumerate(t["tasks"])}


def verified(line):
    """'yes': right on every listed input at the default bounds; 'sampled': right on every sample
    (no listing); 'no'; None: no record."""
    v = line.get("verify")
    if v is None:
        return None
    if not all(p["exhaustive"] for p in v["parts"]):
        return "sampled" if all(p["failed"] == 0 for p in v["parts"]) else "no"
    # "verified, wrong beyond" is verified to the bound: the samples beyond it prove nothing.
    return "yes" if v["outcome"].startswith("verified") else "no"


def first_wrong(line):
    """The smallest counterexample's shape, or None."""
    for p in (line.get("verify") or {}).get("parts", []):
        if p.get("smallest"):
            return p["smallest"]["shape"]
    return None


def merge(paths, base="row1", into="row"):
    """results/screens/recipe/INTO.jsonl = BASE.jsonl with the lines of every task in `paths` replaced by
    theirs, in order."""
    new = [json.loads(t) for path in paths for t in path.read_text().splitlines() if t.strip()]
    tasks = {x["summary"]["task"] for x in new}
    lines = []
    for x in records(base):
        task = x["summary"]["task"]
        if task not in tasks:
            lines.append(x)
        elif task in tasks and not any(y["summary"]["task"] == task for y in lines):
            lines += [y for y in new if y["summary"]["task"] == task]
    text = "".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n" for x in lines)
    (ROOT / "results" / "screens" / "recipe" / f"{into}.jsonl").write_text(text)


def counts(lines):
    """(perfect, finished, right on every listed input, sampled) over a row's runs."""
    v = [verified(x) for x in lines]
    fin = sum(1 for x in lines if x["summary"]["outcome"] == "solved")
    return sum(map(perfect, lines)), fin, v.count("yes"), v.count("sampled")


def missed_runs(lines, protocol=None):
    """A line per run not perfect at the test levels or wrong on a listed input: its test levels,
    its first wrong input, its lineages' last levels if it did not finish (and the same seed's
    protocol run, if given)."""
    missed = []
    for x in lines:
        s = x["summary"]
        if perfect(x) and verified(x) != "no":
            continue
        e = x["eval"]
        tests = ", ".join(f"L{l} {e[l]['solved']}/{e[l]['samples']}" for l in TEST_LEVELS if l in e)
        wrong = first_wrong(x)
        ended = ""
        if s["outcome"] != "solved":
            ended = f"; its lineages ended at levels {lineage_levels(s)}"
            if protocol is not None:
                p = next(y["summary"] for y in protocol if (y["summary"]["task"], y["summary"]["seed"]) == (s["task"], s["seed"]))
                ended += (f"; under the protocol {'finished' if p['outcome'] == 'solved' else 'not finished'} at "
                          f"{fmt(p['learning_iterations'])} learning iterations, lineages ended at levels {lineage_levels(p)}")
        state = "finished" if s["outcome"] == "solved" else f"not finished ({fmt(s['learning_iterations'])} learning iterations)"
        missed.append(f"- {s['task']} seed {s['seed']}: {state}; {tests}" + (f"; first wrong: {wrong}" if wrong else "") + ended)
    return missed


def row_table(out, name="row", protocol_name="protocol", notes=True):
    lines = records(name)
    if lines is None:
        out += [f"Not run yet: `{ROW}`.", ""]
        return
    protocol = records(protocol_name)
    ratio = lambda a, b: "–" if a is None or not b else f"{a / b:.2f}"
    paper, paper_li = paper_perfect()
    out.append("| task | perfect: the paper | perfect: protocol | perfect: recipe | recipe: finished | recipe: right on every listed input (verified; sampled) | learning iterations, median: the paper · protocol · recipe | model steps, median: recipe ÷ protocol | wall time, median: recipe ÷ protocol | model steps a second, median: recipe ÷ protocol |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = [0, 0, 0, 0, 0, 0, 0]
    for task in TASKS:
        r = [x for x in lines if x["summary"]["task"] == task]
        p = [x for x in protocol or [] if x["summary"]["task"] == task]
        if not r:
            continue
        perf = sum(map(perfect, r))
        pperf = sum(map(perfect, p)) if protocol is not None else "–"
        fin = sum(1 for x in r if x["summary"]["outcome"] == "solved")
        v = [verified(x) for x in r]
        yes, sampled = v.count("yes"), v.count("sampled")
        li = lambda xs: median([x["summary"]["learning_iterations"] for x in xs])
        steps, wall, rate = (ratio(median([x["summary"][k] for x in r]), median([x["summary"][k] for x in p]))
                             for k in ("steps", "wall_seconds", "steps_per_second"))
        beyond = sum(1 for x in r if (x.get("verify") or {}).get("outcome", "").endswith("wrong beyond"))
        right = f"{yes}" + (f" ({sampled} sampled)" if sampled else "") + (f", {beyond} wrong beyond" if beyond else "")
        out.append(f"| {task} | {paper[task]} | {pperf} | {perf} | {fin} | {right} | {paper_li[task]} · {fmt(li(p))} · {fmt(li(r))} | {steps} | {wall} | {rate} |")
        for k, x in enumerate([paper[task], pperf, perf, fin, yes, sampled, len(r)]):
            totals[k] = "–" if "–" in (x, totals[k]) else totals[k] + x
    total = lambda xs, k: sum(x["summary"][k] for x in xs)
    out.append(f"| **all** | **{totals[0]}** | **{totals[1]}** | **{totals[2]}** | **{totals[3]}** | **{totals[4]}** ({totals[5]} sampled) | | "
               f"{ratio(total(lines, 'steps'), total(protocol or [], 'steps'))} (sums) | "
               f"{ratio(total(lines, 'wall_seconds'), total(protocol or [], 'wall_seconds'))} (sums) | |")
    out.append("")
    missed = missed_runs(lines, protocol)
    first = records("row1") if notes else None
    if first is not None:
        perf, fin, yes, sampled = counts(first)
        out.append(f"The first confirmation (results/screens/recipe/row1.jsonl, before duplicated trained on samples of any "
                   f"shape and sort with update feedback): {perf} perfect, {fin} finished, {yes} right on every listed "
                   f"input ({sampled} sampled). The second, third and fourth reran duplicated and sort alone, the tasks whose "
                   "settings changed: the other tasks' runs are the first's, which the current recipe reproduces bit for "
                   "bit (the same summaries for copy and reverse seeds 1–3).")
        out.append("")
    if missed:
        out.append("Runs not perfect at the test levels or wrong on a listed input:")
        out.append("")
        out.extend(missed)
        out.append("")


# (records name, the paper's model, the protocol row's file, the sweep command)
ABLATIONS = [
    ("anc", "NHC-anc", "comparison_nhc_anc.jsonl",
     "nhc sweep --tasks search,addition,sort,arithmetic,copy,repeatCopy,reverse,duplicated --variant nhc-anc --recipe --runs 15 --out runs/recipe-anc"),
    ("prev", "NHC-prev", "comparison_nhc_prev.jsonl",
     "nhc sweep --tasks search,addition,sort,arithmetic,copy,repeatCopy,reverse,duplicated --variant nhc-prev --recipe --runs 15 --out runs/recipe-prev"),
]


def paper_cell(model, task):
    """The paper's Table 1 cell of an ablation: 'learns, N perfect' or 'fails (last level …)', or None."""
    t = json.loads((ROOT / "results" / "paper_table1.json").read_text())
    k = t["tasks"].index(task)
    m = t["models"][model]
    if m["iterations"][k] == "–":
        return None
    solved = m["last level"][k].split("~")[1].strip().split(" ")[0]
    if solved != "11":
        return f"fails (last level solved {solved})"
    shares = [m[f"level {l}"][k] for l in TEST_LEVELS]
    if any(x == "–" for x in shares):
        return "learns"
    return f"learns, {round(min(float(x.split('%')[0]) for x in shares) * 15 / 100)} perfect"


def ablation_tables(out):
    for name, model, protocol_file, command in ABLATIONS:
        lines = records(name)
        if lines is None:
            continue
        protocol = [json.loads(t) for t in (ROOT / "results" / protocol_file).read_text().splitlines() if t.strip()]
        out += [f"### {model}", "",
                f"`{command}`, then `python3 scripts/verify_runs.py results/screens/recipe/{name}.jsonl --runs runs/recipe-{name}`; "
                f"duplicated and sort again with the second and fourth recipes (`nhc sweep --tasks duplicated --variant "
                f"{model.lower()} --recipe --runs 15 --out runs/recipe2-{name}` and `--tasks sort … --jobs 1 --out "
                f"runs/recipe4-{name}`, verified into results/screens/recipe/{name}_duplicated2.jsonl and {name}_sort4.jsonl, "
                f"merged by `python3 scripts/recipe_table.py --merge results/screens/recipe/{name}_duplicated2.jsonl "
                f"results/screens/recipe/{name}_sort4.jsonl --base {name}`; the third's sort, {name}_sort3.jsonl, is kept); "
                f"the protocol row: results/{protocol_file}.", "",
                "| task | the paper | protocol: finished · perfect · verified | recipe: finished · perfect · verified |",
                "|---|---|---:|---:|"]
        for task in TASKS:
            r = [x for x in lines if x["summary"]["task"] == task]
            if not r:
                continue
            p = [x for x in protocol if x["summary"]["task"] == task]

            def cells(xs):
                fin = sum(1 for x in xs if x["summary"]["outcome"] == "solved")
                v = [verified(x) for x in xs]
                right = f"{v.count('yes')}" if v.count("sampled") == 0 else f"sampled {v.count('sampled')}"
                return f"{fin} · {sum(map(perfect, xs))} · {right}"

            out.append(f"| {task} | {paper_cell(model, task) or '–'} | {cells(p)} | {cells(r)} |")
        out.append("")


def table(out):
    out.append("| screen | task | runs | finished | not finished (seeds) | lineages ended at level 1 | right to 30 (verified; sampled) | validation 50, 99 | learning iterations, median | model steps, median (millions) |")
    out.append("|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
    totals = {}
    for name, label, _, _ in SCREENS:
        lines = records(name)
        if lines is None:
            continue
        by = {}
        for x in lines:
            by.setdefault(x["summary"]["task"], []).append(x)
        for task in TASKS:
            if task not in by:
                continue
            n, fin, yes, sampled, li, steps = row(by[task])
            unverified = all(right_to_30(x) is None for x in by[task])
            right = "–" if unverified else f"{yes}" + (f" ({sampled} sampled)" if sampled else "")
            val = validated(by[task])
            out.append(f"| {name} | {task} | {n} | {fin} | {unfinished(by[task])} | {stuck_at_1(by[task])} | {right} "
                       f"| {'–' if val is None else val} | {fmt(li)} "
                       f"| {steps / 1e6:.1f} |")
            t = totals.setdefault(name, [0, 0, 0, 0, True])
            t[4] = t[4] and unverified
            t[0] += n
            t[1] += fin
            t[2] += yes
            t[3] += sampled
    out.append("")
    out.append("| screen | what | runs | finished | right to 30 (verified + sampled) |")
    out.append("|---|---|---:|---:|---:|")
    for name, label, _, _ in SCREENS:
        if name in totals:
            n, fin, yes, sampled, unverified = totals[name]
            right = "– (not verified)" if unverified else f"{yes} + {sampled}"
            out.append(f"| {name} | {label} | {n} | {fin} | {right} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "results" / "recipe.md"))
    ap.add_argument("--merge", metavar="JSONL", nargs="+",
                    help="write results/screens/recipe/row.jsonl: the first confirmation (row1.jsonl) with the lines of "
                         "every task in JSONL replaced by JSONL's, then redraw")
    ap.add_argument("--base", default="row1", metavar="NAME",
                    help="with --merge: the records to merge into (default row1, written to row.jsonl; anc or prev: "
                         "in place)")
    args = ap.parse_args()
    if args.merge:
        merge([Path(m) for m in args.merge], args.base, args.base if args.base != "row1" else "row")
    out = ["# The recipe", "",
           "Made by `python3 scripts/recipe_table.py` from results/paper_table1.json, results/full.jsonl and "
           "results/recipe/*.jsonl (the held-out rows), results/screens/recipe/*.jsonl (the tuning seeds' confirmations and the screens; docs/RECIPE.md, \"The recipe\"; docs/results/recipe.md). The recipe is ours, "
           "beyond the paper: configs/recipe.toml, `nhc train --recipe`.", "",
           ]
    for first, last, title in HELDOUT:
        sweep = f"nhc sweep --tasks all --recipe --seeds {first}-{last} --out runs/recipe-{first}"
        has_protocol = records(f"protocol_{first}") is not None
        out += [f"## The recipe's row on held-out seeds {first}–{last} ({title})", "",
                f"`{sweep}`, then `python3 scripts/verify_runs.py results/recipe/heldout_{first}.jsonl --runs "
                f"runs/recipe-{first}`: the recipe of configs/recipe.toml as it stands, on a seed range no screen and "
                "no earlier confirmation used (docs/DESIGN.md, \"Training seeds: tuning and held-out ranges\"), run "
                f"once. Beside it the paper's protocol on the same seeds (`nhc sweep --tasks all --seeds {first}-{last} "
                f"--out runs/protocol-{first}`, "
                + (f"results/full_{first}.jsonl, verified the same way" if has_protocol else "not run yet")
                + "). Columns as in the "
                "tuning seeds' table below; *wrong beyond*: verified to the bound, wrong on a sample beyond it (to 1 000; "
                "records verified since `nhc verify` samples beyond its bounds).", ""]
        if records(f"heldout_{first}") is not None:
            if not has_protocol:
                out += ["The protocol on these seeds is not run yet: its columns are empty.", ""]
            row_table(out, f"heldout_{first}", f"protocol_{first}", notes=False)
        else:
            out += [f"Not run yet: `{sweep}`.", ""]
    out += ["## The recipe's row on the tuning seeds 1–15", "",
           "The seeds every screen and every earlier confirmation ran on: how well the choices fit them, not a "
           "held-out measurement. "
           f"`{ROW}`, then `python3 scripts/verify_runs.py results/screens/recipe/row.jsonl --runs runs/recipe`; "
           "here in four confirmations: the first of every task (results/screens/recipe/row1.jsonl), the second of duplicated "
           "alone after its training samples of any shape entered the recipe (`nhc sweep --tasks duplicated --recipe "
           "--runs 15 --out runs/recipe2`, verified into results/screens/recipe/duplicated2.jsonl), the third of sort alone "
           "after its update feedback entered (then `--recipe`; now `nhc sweep --tasks sort --runs 15 --config "
           "configs/recipe_update_feedback_screen.toml --out runs/recipe3`, the same training), "
           "verified into results/screens/recipe/sort3.jsonl), the fourth of sort alone after that feedback came to start "
           "at curriculum level 2 (`--out runs/recipe4`, results/screens/recipe/sort4.jsonl), merged by "
           "`python3 scripts/recipe_table.py --merge results/screens/recipe/duplicated2.jsonl results/screens/recipe/sort4.jsonl`. "
           "The same seeds, test levels (100, 500, 1000) and test samples (sample seed 1000, 50 a level) as the "
           "paper-protocol row; *perfect*: every sample solved at every test level. *Right on every listed input*: "
           "`nhc verify` at its default bounds (copy and reverse to 2 000 objects, repeatCopy 60 × 60, duplicated "
           "every run-length sequence of 16 objects and 60 × 60, sort 8 objects, addition 10 binary digits, "
           "arithmetic 12 operators; search and plan: *sampled*, 20 samples of each level 1–20, in every recipe row's "
           "records, made before their listing; the protocol's row on seeds 116–130, results/full_116.jsonl, is verified "
           "with it: every problem of levels 1–3, 1–2, 1–2 and 1 of search, plan, search+ and plan+, and every goal index "
           "of levels 1–250 found for search and plan). The paper's perfect "
           "runs: its Table 1 share of runs perfect at each test level, times 15, the least of the three. Model steps "
           "and wall time: medians over the task's runs (the last row: sums over all runs), the recipe's over the "
           "protocol's. The recipe's sweep ran beside other work on the same two cores: its model steps a second "
           "say how much slower the machine ran it, so its wall times are an upper bound and its model steps "
           "are the cost to compare.", ""]
    row_table(out)
    if any(records(name) is not None for name, _, _, _ in ABLATIONS):
        out += ["## The ablations under the recipe", "",
                "The same recipe with the paper's ablations (NHC-anc: no ancestry memory; NHC-prev: no previous-update "
                "mechanism): where the paper's fail, does the recipe's? *finished*: the curriculum in 20 000 learning "
                "iterations; *perfect*: every test sample at 100, 500 and 1000; *verified*: right on every listed input "
                "at the default bounds (search: *sampled* in these records, made before its listing). The paper: its Table 1 cell (*fails*: "
                "its median run's last level solved is below 11).", ""]
        ablation_tables(out)
    out += ["## The screen", "",
           "Made by `python3 scripts/recipe_table.py` from results/full.jsonl and results/screens/recipe/*.jsonl "
           "(docs/RECIPE.md, \"The recipe\"; docs/results/recipe.md). Training-side "
           "numbers only: no test level (100, 500, 1000) is read. *Right to 30*: `nhc verify` finds every "
           "control-distinct input right up to length 30 (copy family: lengths and grids to 30, duplicated's "
           "run-length sequences to 16 objects; sort, addition, arithmetic: their default bounds, 8 objects, "
           "10 binary digits, 12 operators); search and plan were not listed when the screens ran and count as *sampled* when "
           "right on 20 samples of each level 1–20. A run's cost is its model steps (θ, offspring and checks; "
           "the screens ran beside other work, so their wall times are not comparable with the protocol's). "
           "*Validation 50, 99* (sort's update-feedback screens): finished runs that solve all 50 samples at "
           "levels 50 and 99 on sample seed 2 (`python3 scripts/validate_runs.py FILE --runs DIR`), the seed "
           "models/ are picked on, never a test sample: a drift with the number of passes shows there and in "
           "no sample to length 30.", ""]
    table(out)
    out.append("")
    out.append("Commands:")
    out.append("")
    for name, _, config, cmd in SCREENS:
        verify = f", then `python3 scripts/verify_runs.py results/screens/recipe/{name}.jsonl --screen` (the lines' run directories)"
        lines = records(name) or []
        validate = (f"; validation: `python3 scripts/validate_runs.py results/screens/recipe/{name}.jsonl --runs "
                    f"{cmd.split('--out ')[-1]}`" if any("validation" in x for x in lines) else "")
        out.append(f"- {name}: `{cmd}`" + ("" if config is None or not any("verify" in x for x in lines) else verify)
                   + validate)
    Path(args.out).write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
