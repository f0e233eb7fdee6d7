#!/usr/bin/env python3
"""The paper's protocol on arithmetic under other readings of its sampler ("Training sequences are
generated randomly, with uniformly sampled atomic operations and numbers"): the domain `chains`
(left-deep expressions only, `a b ∘ c ∘ …`: only the operators and numbers are random),
`splits` (the recursive split: the root's left subtree takes a uniform share of the operators) or
`walks` (the random walk over push and pop: a number or an operator by a fair coin wherever both
can still end in the level's operators).
Trains the tuning seeds from scratch on the domain, evaluates each model at levels 100, 500 and
1000 on it and at levels 10 and 100 on uniform trees (the decimal domain, ours), and writes one
sweep-like line per run to DOMAIN.jsonl beside this file:

    python3 results/screens/stalls/shapes.py train --domain chains [--nhc target/release/nhc] [--seeds 1-15] [--jobs 2]
    python3 results/screens/stalls/shapes.py report --domain chains     # from chains.jsonl alone
"""

import argparse
import json
import statistics
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAPER = "1234 (517–1902)"  # the paper's arithmetic cell: median learning iterations (quartiles)


def evaluate(nhc, model, domain, level):
    cmd = [nhc, "eval", "--task", "arithmetic", "--domain", domain, "--model", str(model), "--level", str(level),
           "--samples", "50", "--seed", "1000", "--json"]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return {k: r[k] for k in ("level", "samples", "solved", "mean_fitness")}


def run(args, seed):
    out = Path(args.out or f"runs/{args.domain}") / f"arithmetic-{seed}"
    cmd = [args.nhc, "train", "--task", "arithmetic", "--domain", args.domain, "--seed", str(seed), "--out", str(out),
           "--quiet", "--json"]
    summary = json.loads(subprocess.run(cmd, capture_output=True, text=True).stdout)
    model = out / "model.json"
    line = {"dir": str(out), "summary": summary,
            "eval": {str(l): evaluate(args.nhc, model, args.domain, l) for l in (100, 500, 1000)},
            "trees": {str(l): evaluate(args.nhc, model, "decimal", l) for l in (10, 100)}}
    print(seed, summary["outcome"], summary["learning_iterations"], flush=True)
    return line


def train(args):
    from concurrent.futures import ThreadPoolExecutor
    first, last = (int(x) for x in args.seeds.split("-"))
    with ThreadPoolExecutor(args.jobs) as pool:
        lines = list(pool.map(lambda s: run(args, s), range(first, last + 1)))
    (HERE / f"{args.domain}.jsonl").write_text("".join(json.dumps(l, separators=(",", ":")) + "\n" for l in lines))


def report(args):
    lines = [json.loads(l) for l in (HERE / f"{args.domain}.jsonl").read_text().splitlines() if l.strip()]
    finished = [l for l in lines if l["summary"]["outcome"] == "solved"]
    # Over all runs, a capped run counted with its learning iterations (the cap), as results/full.md.
    its = sorted(l["summary"]["learning_iterations"] for l in lines)
    q = statistics.quantiles(its, n=4) if len(its) > 1 else [its[0]] * 3
    perfect = sum(all(l["eval"][k]["solved"] == l["eval"][k]["samples"] for k in ("100", "500", "1000")) for l in lines)
    trees = {k: sum(l["trees"][k]["solved"] for l in lines) for k in ("10", "100")}
    seeds = [l["summary"]["seed"] for l in lines]
    print(f"arithmetic on {args.domain}, the paper's protocol, seeds {min(seeds)}–{max(seeds)}: {len(finished)} of {len(lines)} "
          f"finished, {sum(l['summary']['restarts'] for l in lines)} restarts; learning iterations median {q[1]:.0f} "
          f"({q[0]:.0f}–{q[2]:.0f}, all runs; the paper's cell: {PAPER}); perfect at 100, 500 and 1000 on {args.domain}: {perfect} of "
          f"{len(lines)}; on uniform trees: {trees['10']} of {50 * len(lines)} samples solved at level 10, "
          f"{trees['100']} at level 100")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["train", "report"])
    ap.add_argument("--nhc", default="target/release/nhc")
    ap.add_argument("--seeds", default="1-15")
    ap.add_argument("--domain", choices=["chains", "splits", "walks"], required=True)
    ap.add_argument("--out", help="the runs' parent directory (default runs/DOMAIN)")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    {"train": train, "report": report}[args.what](args)


if __name__ == "__main__":
    main()
