"""Three algorithms the paper does not have, declared in Python (examples/own/): maxfind (the
largest byte, one scan), brackets (each closing bracket's partner: a stack) and palindromes (keep
the words that read the same backwards: strings, an ALU test of their own). Each is trained from
scratch under the paper's protocol (levels 1–11, the default config, seeds 1..runs or the seeds
FIRST-LAST) and tested at levels 100, 500 and 1000 on 50 samples of sample seed 1000, which
neither training nor the model pick draws.

    .venv/bin/python scripts/own_algorithms.py train [--runs 15 | --seeds 101-115] [--algorithms maxfind,brackets]
        [--variants nhc,nhc-anc,nhc-prev] [--out runs/own]      # resumable; one run at a time
    .venv/bin/python scripts/own_algorithms.py report [--out runs/own]
    .venv/bin/python scripts/own_algorithms.py train --recipe; ... report --recipe
        # the same with the recipe (ours: configs/recipe.toml, nhc.train(..., recipe=True)):
        # runs/own-recipe, results/own_algorithms_recipe.{jsonl,md}, models/recipe/own/
    .venv/bin/python scripts/own_algorithms.py train --recipe --seeds 101-115 --out runs/own-recipe-101
    .venv/bin/python scripts/own_algorithms.py report --recipe --seeds 101-115 --out runs/own-recipe-101
        # a held-out confirmation (docs/DESIGN.md, "Training seeds"): the range's runs only, into
        # results/own_algorithms_recipe_101.{jsonl,md}; no model is picked from it

`report` gathers the run directories into results/own_algorithms.jsonl (one line per run), picks
one model per algorithm for models/own/ (the lowest seed of the full NHC that finished and solves
every validation sample: 50 samples of sample seed 2 at levels 50, 99 and 300, no test level,
and answers right the user inputs of `user_inputs`: the empty list, one item, long inputs),
draws each pick's behaviour on one level-5 sample (results/behaviour/own_<name>.svg, needs
matplotlib) and writes results/own_algorithms.md from the jsonl. `report --table` redraws the
Markdown from the committed jsonl alone.
"""

import argparse
import importlib.util
import json
import random
import re
import shutil
import statistics
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALGORITHMS = {"maxfind": "MAXFIND", "brackets": "BRACKETS", "palindromes": "PALINDROMES"}
TEST_LEVELS, TEST_SAMPLES, TEST_SEED = (100, 500, 1000), 50, 1000
VALIDATION_LEVELS, VALIDATION_SEED = (50, 99, 300), 2
TUNING_SEEDS = range(1, 16)  # docs/DESIGN.md, "Training seeds"


def declaration(name):
    """The algorithm declared in examples/own/<name>.py."""
    path = ROOT / "examples" / "own" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"own_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"own_{name}"] = module
    spec.loader.exec_module(module)
    return getattr(module, ALGORITHMS[name])


def run_dir(out, name, variant, seed):
    return Path(out) / f"{name}-{variant}-{seed}"


def trained(algorithm, d, seed, variant="nhc", recipe=False, config=None):
    """The model of run directory `d`: loaded when trained, resumed from its checkpoint, else
    trained from scratch."""
    import nhc

    if (d / "model.json").exists():
        return nhc.load(d / "model.json", algorithm=algorithm)
    if (d / "checkpoint.json").exists():
        return nhc.resume(d, algorithm=algorithm)
    return nhc.train(algorithm, seed=seed, out=d, variant=variant, recipe=recipe, config=config)


def train(args):
    for name in args.algorithms:
        algorithm = declaration(name)
        for variant in args.variants:
            for seed in args.seeds:
                d = run_dir(args.out, name, variant, seed)
                if (d / "eval.json").exists():
                    continue
                model = trained(algorithm, d, seed, variant=variant, recipe=args.recipe)
                summary = json.loads((d / "summary.json").read_text())
                tests = {}
                for level in TEST_LEVELS:
                    report = model.evaluate(level, samples=TEST_SAMPLES, seed=TEST_SEED)
                    tests[str(level)] = report["solved"]
                (d / "eval.json").write_text(json.dumps(tests) + "\n")
                print(f"{name} {variant} seed {seed}: {summary['outcome']}, "
                      f"{summary['learning_iterations']} learning iterations, solved at {tests}", flush=True)


def gather(out, seeds=None):
    """One line per finished run directory under `out` (of the seeds `seeds` only, if given)."""
    lines = []
    for name in ALGORITHMS:
        for d in sorted(Path(out).glob(f"{name}-*-*"), key=lambda p: (p.name.rsplit("-", 1)[0], int(p.name.rsplit("-", 1)[1]))):
            if not (d / "eval.json").exists():
                continue
            s = json.loads((d / "summary.json").read_text())
            if seeds is not None and s["seed"] not in seeds:
                continue
            check = json.loads((d / "config.json").read_text())["train"].get("check_level", 0)
            lines.append({
                "algorithm": name, "variant": s["variant"], "seed": s["seed"], "outcome": s["outcome"],
                "iterations": s["iterations"], "learning_iterations": s["learning_iterations"],
                "last_level_learned": s["last_level_learned"], "last_level_solved": s["last_level_solved"],
                "restarts": s["restarts"], "wall_seconds": round(s["wall_seconds"], 1),
                "first_lineage": (s.get("lineages") or [{}])[0].get("learning_iterations"),
                "solved": json.loads((d / "eval.json").read_text()), "dir": str(d.resolve().relative_to(ROOT)),
                "check_level": check,
            })
    return lines


def seed_range(text):
    """The seeds of `FIRST-LAST` (e.g. 101-115) or of one seed, as `nhc sweep --seeds`; a
    one-line error otherwise."""
    m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", text.strip())
    if not m:
        sys.exit(f"--seeds: {text!r} is not a seed range: give FIRST-LAST (e.g. 101-115) or one seed (e.g. 7)")
    first, last = int(m[1]), int(m[2] or m[1])
    if first > last:
        sys.exit(f"--seeds: the seed range {first}-{last} runs backwards: give the smaller seed first ({last}-{first})")
    return range(first, last + 1)


def passes_validation(model):
    return all(model.evaluate(level, samples=TEST_SAMPLES, seed=VALIDATION_SEED)["solved"] == TEST_SAMPLES
               for level in VALIDATION_LEVELS)


def user_inputs(name):
    """Shapes users send that no level presents (the empty list, one item, all equal, long
    inputs), each with its reference answer computed here."""
    rng = random.Random(7)
    if name == "maxfind":
        inputs = [[7], [0], [3] * 4, list(range(50)), list(range(50, 0, -1)),
                  [rng.randrange(256) for _ in range(2000)]]
        return [(xs, [max(xs)]) for xs in inputs]
    if name == "brackets":
        module = importlib.import_module("own_brackets")
        deep = [rng.randrange(1, 64) for _ in range(300)] + [None] * 300
        flat = [x for _ in range(300) for x in (rng.randrange(1, 64), None)]
        return [(seq, module.partners(seq)) for seq in [[5, None], [1, 2, None, 3, None, None], deep, flat]]
    inputs = [[], ["a"], ["ab"], ["aba"] * 3, ["abc"] * 10, ["ab" * rng.randrange(1, 5) for _ in range(300)]]
    return [(words, [w for w in words if w == w[::-1]]) for words in inputs]


def handles_user_inputs(name, model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return all(model.run(x) == answer for x, answer in user_inputs(name))


def pick(lines, models):
    """models/<name>.json: the lowest full-NHC seed that finished, passes the validation and
    answers the user inputs right."""
    import nhc

    picks = {}
    for name in ALGORITHMS:
        algorithm = declaration(name)
        for line in sorted((l for l in lines if l["algorithm"] == name and l["variant"] == "nhc"
                            and l["outcome"] == "solved"), key=lambda l: l["seed"]):
            model = nhc.load(ROOT / line["dir"] / "model.json", algorithm=algorithm)
            if passes_validation(model) and handles_user_inputs(name, model):
                target = models / f"{name}.json"
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(ROOT / line["dir"] / "model.json", target)
                picks[name] = line["seed"]
                print(f"{target.relative_to(ROOT)} <- seed {line['seed']}")
                break
        else:
            print(f"{name}: no finished run passes the validation")
    return picks


def figure(name, path):
    """The picked model's behaviour on sample 0 of level 5 (sample seed 1): memory locations
    written and read per step, the operation and each head's read mode."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "nhc"  # the same file for the same trace
    import matplotlib.pyplot as plt
    import nhc

    algorithm = declaration(name)
    model = nhc.load(ROOT / "models" / "own" / f"{name}.json", algorithm=algorithm)
    t = model.trace(level=5, seed=1)
    steps = t["step"]
    heads = sorted({k.split("_")[0] for k in t if k.startswith("read") and k.endswith("_location")})
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1 + len(heads)]})
    top.scatter(steps, t["write1_location"], marker="s", color="black", label="written")
    for j, h in enumerate(heads):
        top.scatter(steps, t[f"{h}_location"], s=14, label=f"read head {j + 1}")
    top.set_ylabel("memory location")
    top.legend(loc="upper left", fontsize=8)
    rows = ["op"] + [f"head {j + 1} mode" for j in range(len(heads))]
    colours = plt.get_cmap("tab10")
    values = sorted(set(t["op"]) | {m[0] for h in heads for m in t[f"{h}_mode"]})
    for r, column in enumerate([t["op"]] + [[m[0] for m in t[f"{h}_mode"]] for h in heads]):
        for x, v in zip(steps, column):
            bottom.add_patch(plt.Rectangle((x - 0.5, -r - 0.45), 1, 0.9, color=colours(values.index(v) % 10)))
            bottom.text(x, -r, v, ha="center", va="center", fontsize=6)
    bottom.set_yticks([-r for r in range(len(rows))], rows)
    bottom.set_ylim(-len(rows) + 0.4, 0.6)
    bottom.set_xlim(-0.5, len(steps) - 0.5)
    bottom.set_xlabel("step")
    fig.suptitle(f"{name}: the learned model on a level-5 sample ({len(steps)} steps)")
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def table(lines, recipe=False, name="own_algorithms_recipe", flags=""):
    """results/own_algorithms.md's text from the jsonl lines (the recipe's: NAME.md, from the
    command `report --recipe` with `flags`, e.g. " --seeds 101-115")."""
    if recipe:
        seeds = sorted({l["seed"] for l in lines})
        checks = sorted({l.get("check_level", 30) for l in lines})  # lines before check_level was kept: 30
        which = " (the tuning seeds)" if seeds[0] <= TUNING_SEEDS[-1] else " (held out: no choice was made on them)"
        out = ["# Three algorithms of our own, declared in Python, trained with the recipe", "",
               f"Redrawn by `.venv/bin/python scripts/own_algorithms.py report --recipe{flags}` from the run "
               f"directories (`scripts/own_algorithms.py train --recipe{flags}`; `report --recipe{flags} --table` "
               f"from results/{name}.jsonl alone). Declarations: examples/own/. Training: the recipe "
               "(ours, beyond the paper: configs/recipe.toml, the generalization check at levels 12–"
               f"{'/'.join(map(str, checks))} with relearning; no task table applies), seeds "
               f"{seeds[0]}–{seeds[-1]}{which}; test: levels 100, 500 and 1000, 50 samples of sample seed 1000; a "
               "run is perfect at a level when it solves all 50. The paper-protocol rows: results/own_algorithms.md.", ""]
        return "\n".join(out + rows(lines)) + "\n"
    out = ["# Three algorithms of our own, declared in Python", "",
           "Redrawn by `.venv/bin/python scripts/own_algorithms.py report` from the run directories "
           "(`scripts/own_algorithms.py train`; `report --table` from results/own_algorithms.jsonl "
           "alone). Declarations: examples/own/. Training: the paper's protocol (levels 1–11, the "
           "default config, seeds 1–15); test: levels 100, 500 and 1000, 50 samples of sample seed "
           "1000; a run is perfect at a level when it solves all 50.", ""]
    out += rows(lines)
    out += ["", "Behaviour of the models in models/own/ (picked on validation samples, levels 50, 99 "
            "and 300, sample seed 2), one level-5 sample each:", ""]
    out += [f"![{name}](behaviour/own_{name}.svg)" for name in ALGORITHMS
            if (ROOT / "results" / "behaviour" / f"own_{name}.svg").exists()]
    return "\n".join(out) + "\n"


def rows(lines):
    """The table: its header, then a row per algorithm and variant."""
    out = ["| algorithm | variant | runs | finished | learning iterations (median, quartiles) | "
           "restarts (median) | perfect at 100 | 500 | 1000 |", "|---|---|---:|---:|---|---:|---:|---:|---:|"]
    keys = sorted({(l["algorithm"], l["variant"]) for l in lines},
                  key=lambda k: (list(ALGORITHMS).index(k[0]), ["nhc", "nhc-anc", "nhc-prev"].index(k[1])))
    for name, variant in keys:
        runs = [l for l in lines if l["algorithm"] == name and l["variant"] == variant]
        finished = [l for l in runs if l["outcome"] == "solved"]
        its = sorted(l["learning_iterations"] for l in runs)
        q = statistics.quantiles(its, n=4) if len(its) > 1 else [its[0]] * 3
        perfect = [sum(l["solved"][str(v)] == TEST_SAMPLES for l in runs) for v in TEST_LEVELS]
        out.append(f"| {name} | {variant} | {len(runs)} | {len(finished)} | {statistics.median(its):.0f} "
                   f"({q[0]:.0f}–{q[2]:.0f}) | {statistics.median(l['restarts'] for l in runs):.0f} | "
                   + " | ".join(str(p) for p in perfect) + " |")
    return out


def report(args):
    # A seed range given with --recipe is a confirmation of its own: its files, no model picked.
    heldout = args.recipe and args.seeds_text is not None
    name = "own_algorithms_recipe" if args.recipe else "own_algorithms"
    if heldout:
        name += f"_{args.seeds[0]}"
    results, md = ROOT / "results" / f"{name}.jsonl", ROOT / "results" / f"{name}.md"
    if args.table:
        lines = [json.loads(l) for l in results.read_text().splitlines() if l.strip()]
    else:
        lines = gather(args.out, args.seeds if heldout else None)
        results.write_text("".join(json.dumps(l) + "\n" for l in lines))
        if not heldout:
            pick(lines, ROOT / "models" / "recipe" / "own" if args.recipe else ROOT / "models" / "own")
        for algorithm in ALGORITHMS:
            if not args.recipe and (ROOT / "models" / "own" / f"{algorithm}.json").exists():
                figure(algorithm, ROOT / "results" / "behaviour" / f"own_{algorithm}.svg")
    md.write_text(table(lines, args.recipe, name, f" --seeds {args.seeds_text}" if heldout else ""))
    print(md.read_text())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["train", "report"])
    p.add_argument("--runs", type=int, help="seeds 1 to RUNS (default 15)")
    p.add_argument("--seeds", help="the seeds, FIRST-LAST (e.g. 101-115) or one seed, in place of --runs")
    p.add_argument("--algorithms", default=",".join(ALGORITHMS))
    p.add_argument("--variants", default="nhc")
    p.add_argument("--out")
    p.add_argument("--table", action="store_true")
    p.add_argument("--recipe", action="store_true", help="train with the recipe (ours, beyond the paper)")
    args = p.parse_args()
    if args.runs is not None and args.seeds is not None:
        sys.exit("give --runs or --seeds, not both (--runs N is --seeds 1-N)")
    if args.runs is not None and args.runs < 1:
        sys.exit("--runs must be at least 1")
    args.seeds_text = args.seeds
    args.seeds = seed_range(args.seeds) if args.seeds is not None else range(1, (args.runs or len(TUNING_SEEDS)) + 1)
    if args.out is None:
        args.out = str(ROOT / "runs" / ("own-recipe" if args.recipe else "own"))
    args.algorithms = [a for a in args.algorithms.split(",") if a]
    args.variants = [v for v in args.variants.split(",") if v]
    unknown = [a for a in args.algorithms if a not in ALGORITHMS]
    if unknown:
        sys.exit(f"unknown algorithm(s) {', '.join(unknown)}; known: {', '.join(ALGORITHMS)}")
    (train if args.command == "train" else report)(args)


if __name__ == "__main__":
    main()
