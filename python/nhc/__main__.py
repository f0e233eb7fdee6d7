"""`python -m nhc`: train, resume, evaluate and check an algorithm declared in Python
(`nhc.Algorithm`), as the `nhc` command does for the built-in tasks.

    python -m nhc check  --algorithm mymodule:MAXFIND
    python -m nhc train  --algorithm mymodule:MAXFIND --seed 1 --out DIR [--config C.toml]
    python -m nhc resume --algorithm mymodule:MAXFIND DIR [--redeclared]
    python -m nhc sweep  --algorithm mymodule:MAXFIND --out DIR [--runs 15 | --seeds 101-115] [--levels 10,100,500,1000]
    python -m nhc eval   --algorithm mymodule:MAXFIND --model DIR/model.json --level 1000 --samples 50

`--algorithm` is MODULE:NAME (MODULE imported from the current directory or sys.path) or
path/to/file.py:NAME. Exit codes: 0 success, 1 an error or a failed check, 2 bad arguments,
4 `train`, `resume`: the run spent its budget without finishing the curriculum (it did not learn;
model.json holds its last θ), 130 interrupted (the run directory resumes).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
import time
import tomllib
import traceback
from pathlib import Path
from typing import Any, TextIO

import nhc
from nhc import _nhc

# Exit code of a run that spent its budget without finishing the curriculum (as `nhc train`).
EXIT_DID_NOT_LEARN = 4


class Refused(Exception):
    """A request that cannot be served, in one sentence."""


def find_algorithm(spec: str) -> nhc.Algorithm:
    """The `nhc.Algorithm` named by MODULE:NAME or path/to/file.py:NAME."""
    source, sep, name = spec.rpartition(":")
    if not sep or not source or not name.isidentifier():
        raise Refused(f"--algorithm takes MODULE:NAME or path/to/file.py:NAME, got {spec!r}")
    if source.endswith(".py") or "/" in source or os.sep in source:
        path = Path(source)
        if not path.is_file():
            raise Refused(f"no such file: {path}")
        module_name = f"_nhc_algorithm_{path.stem}"
        loader = importlib.util.spec_from_file_location(module_name, path)
        if loader is None or loader.loader is None:
            raise Refused(f"cannot import {path}")
        module = importlib.util.module_from_spec(loader)
        sys.modules[module_name] = module
        loader.loader.exec_module(module)
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(source)
        except ModuleNotFoundError as e:
            raise Refused(f"cannot import {source!r}: {e}") from None
    algorithm = getattr(module, name, None)
    if not isinstance(algorithm, nhc.Algorithm):
        found = "nothing" if algorithm is None else type(algorithm).__name__
        raise Refused(f"{source} has no nhc.Algorithm named {name} ({name} is {found})")
    return algorithm


class Progress:
    """One line of progress per level (level, iteration, fitness, longest perfect streak,
    restarts): on a terminal rewritten in place with \\r, else printed when the level changes."""

    def __init__(self, stream: TextIO = sys.stderr, quiet: bool = False) -> None:
        self.stream, self.quiet = stream, quiet
        self.tty = stream.isatty()
        self.level: int | None = None
        self.last: dict[str, Any] | None = None
        self.streak = 0
        self.shown = 0.0

    def line(self, r: dict[str, Any]) -> str:
        level = "mixed" if r.get("advance") == "finished" else r["level"]
        return (
            f"level {level:>5}  iteration {r['iteration']:>6}  fitness {r['fitness_raw']:.4f}  "
            f"perfect {self.streak:>4}  restarts {r['restarts']}"
        )

    def __call__(self, r: dict[str, Any]) -> None:
        if self.quiet:
            return
        if self.level is not None and r["level"] != self.level and self.last is not None:
            self.write(self.line(self.last), end=True)
            self.streak = 0
        self.level, self.last = r["level"], r
        self.streak = max(self.streak, r["perfect_streak"])
        now = time.monotonic()
        if self.tty and now - self.shown > 0.1:
            self.write(self.line(r), end=False)
            self.shown = now

    def write(self, text: str, end: bool) -> None:
        if self.tty:
            self.stream.write("\r" + text.ljust(78) + ("\n" if end else ""))
        elif end:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if not self.quiet and self.last is not None:
            self.write(self.line(self.last), end=True)


def config_arg(path: str | None, max_iterations: int | None) -> dict[str, Any] | None:
    config: dict[str, Any] = {}
    if path is not None:
        if Path(path).exists() and not Path(path).is_file():
            raise Refused(f"config {path} is not a regular file; give a TOML file")
        try:
            config = tomllib.loads(Path(path).read_text())
        except FileNotFoundError:
            raise Refused(f"no such config file: {path}") from None
        except tomllib.TOMLDecodeError as e:
            raise Refused(f"config {path}: {e}") from None
    if max_iterations is not None:
        config["max_iterations"] = max_iterations
    return config or None


def finished(model: nhc.Model, out: str) -> int:
    """Prints the run's sentence (as `nhc train`); the exit code."""
    print(_nhc.run_sentence(out))
    return EXIT_DID_NOT_LEARN if (model.meta or {}).get("outcome") == "cap" else 0


def train(args: argparse.Namespace) -> int:
    algorithm = find_algorithm(args.algorithm)
    progress = Progress(quiet=args.quiet)
    try:
        model = nhc.train(
            algorithm,
            args.seed,
            config=config_arg(args.config, args.max_iterations),
            out=args.out,
            callback=progress,
            variant=args.variant,
            recipe=args.recipe,
        )
    finally:
        progress.close()
    return finished(model, args.out)


def resume(args: argparse.Namespace) -> int:
    algorithm = find_algorithm(args.algorithm)
    progress = Progress(quiet=args.quiet)
    try:
        model = nhc.resume(args.dir, callback=progress, algorithm=algorithm, redeclared=args.redeclared)
    finally:
        progress.close()
    return finished(model, args.dir)


def sweep(args: argparse.Namespace) -> None:
    if args.runs is not None and args.seeds is not None:
        raise Refused("give --runs or --seeds, not both (--runs N is --seeds 1-N)")
    algorithm = find_algorithm(args.algorithm)

    def done(line: dict) -> None:
        s, solved = line["summary"], {level: e["solved"] for level, e in line["eval"].items()}
        print(f"{s['task']} seed {s['seed']}: {s['outcome']}, {s['learning_iterations']} learning iterations, "
              f"solved {solved} of {args.samples}", flush=True)

    runs = 15 if args.runs is None else args.runs
    lines = nhc.sweep(algorithm, args.out, runs=runs, seeds=args.seeds, config=config_arg(args.config, None),
                      variant=args.variant, jobs=args.jobs, levels=args.levels, samples=args.samples,
                      callback=done, recipe=args.recipe)
    print(f"{len(lines)} runs in {Path(args.out) / 'sweep.jsonl'}")


def evaluate(args: argparse.Namespace) -> None:
    algorithm = find_algorithm(args.algorithm)
    model = nhc.load(args.model, algorithm=algorithm)
    if (model.meta or {}).get("outcome") == "cap":
        print(
            f"warning: {args.model} is the last θ of a run that did not learn (it spent its budget before "
            'finishing the curriculum: meta.outcome is "cap"); it is not expected to solve the task',
            file=sys.stderr,
        )
    report = model.evaluate(args.level, args.samples, seed=args.seed)
    if args.json:
        print(json.dumps(report))
        return
    print(
        f"{report['task']} level {report['level']}: solved {report['solved']} of {report['samples']} "
        f"({report['steps']} steps, mean fitness {report['mean_fitness']:.4f}, {report['seconds']:.2f} s)"
    )
    if report["failed"]:
        print(f"failed samples: {' '.join(map(str, report['failed']))} (seed {report['seed']})")


def levels_arg(text: str) -> list[int]:
    """`1-10` or `1,2,5`."""
    try:
        if "-" in text:
            low, high = text.split("-", 1)
            return list(range(int(low), int(high) + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"levels are FROM-TO or a comma list, got {text!r}") from None


def check(args: argparse.Namespace) -> None:
    algorithm = find_algorithm(args.algorithm)
    nhc.check(algorithm, levels=args.levels, samples=args.samples, smoke=not args.no_smoke)
    smoke = "" if args.no_smoke else " and 5 training iterations"
    print(f"{algorithm.name}: levels {args.levels[0]}-{args.levels[-1]}, {args.samples} samples each{smoke}: ok")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m nhc", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    algorithm = {"required": True, "metavar": "MODULE:NAME", "help": "MODULE:NAME or path/to/file.py:NAME"}

    t = sub.add_parser("train", help="train a declared algorithm from scratch")
    t.add_argument("--algorithm", **algorithm)
    t.add_argument("--seed", type=int, required=True)
    t.add_argument("--out", required=True, help="the run directory")
    t.add_argument("--config", help="a training config (TOML, as `nhc train --config`)")
    t.add_argument("--max-iterations", type=int)
    t.add_argument("--variant", default="nhc", choices=["nhc", "nhc-anc", "nhc-prev", "dnc-is-ha"])
    t.add_argument("--quiet", action="store_true")
    t.add_argument("--recipe", action="store_true", help="train with the recipe (ours, beyond the paper: configs/recipe.toml) instead of the paper's protocol")
    t.set_defaults(run=train)

    r = sub.add_parser("resume", help="continue a run from its last checkpoint")
    r.add_argument("--algorithm", **algorithm)
    r.add_argument("dir")
    r.add_argument("--quiet", action="store_true")
    r.add_argument("--redeclared", action="store_true",
                   help="go on under a declaration changed since the run started (e.g. a function fixed after it raised)")
    r.set_defaults(run=resume)

    s = sub.add_parser("sweep", help="train every run (seeds 1..runs, or --seeds) and test each, as `nhc sweep`")
    s.add_argument("--algorithm", **algorithm)
    s.add_argument("--out", required=True, help="the sweep directory (resumable)")
    s.add_argument("--runs", type=int, help="seeds 1 to RUNS (default 15)")
    s.add_argument("--seeds", help="the seeds, FIRST-LAST (e.g. 101-115) or one seed, in place of --runs")
    s.add_argument("--config", help="a training config (TOML, as `nhc train --config`)")
    s.add_argument("--variant", default="nhc", choices=["nhc", "nhc-anc", "nhc-prev", "dnc-is-ha"])
    s.add_argument("--jobs", type=int, help="runs at the same time (default: the number of cores)")
    s.add_argument("--levels", type=levels_arg, default=[10, 100, 500, 1000], help="test levels (default 10,100,500,1000)")
    s.add_argument("--samples", type=int, default=50)
    s.add_argument("--recipe", action="store_true", help="train with the recipe (ours, beyond the paper: configs/recipe.toml) instead of the paper's protocol")
    s.set_defaults(run=sweep)

    e = sub.add_parser("eval", help="evaluate a model on fresh samples")
    e.add_argument("--algorithm", **algorithm)
    e.add_argument("--model", required=True)
    e.add_argument("--level", type=int, required=True)
    e.add_argument("--samples", type=int, default=50)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--json", action="store_true")
    e.set_defaults(run=evaluate)

    c = sub.add_parser("check", help="test a declaration before training")
    c.add_argument("--algorithm", **algorithm)
    c.add_argument("--levels", type=levels_arg, default=list(range(1, 11)), help="FROM-TO or a list (default 1-10)")
    c.add_argument("--samples", type=int, default=5)
    c.add_argument("--no-smoke", action="store_true", help="skip the 5 training iterations")
    c.set_defaults(run=check)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        code = args.run(args)
    except KeyboardInterrupt as e:
        for note in getattr(e, "__notes__", []):
            print(note, file=sys.stderr)
        return 130
    except Exception as e:
        notes = getattr(e, "__notes__", [])
        if any(n.startswith("raised in") for n in notes):
            traceback.print_exc()  # a declared function failed: where, in the user's code
        elif isinstance(e, (Refused, ValueError, TypeError, OSError, nhc.ModelError)):
            print(f"error: {e}", file=sys.stderr)
            for note in notes:
                print(note, file=sys.stderr)
        else:
            raise
        return 1
    return code or 0


if __name__ == "__main__":
    sys.exit(main())
