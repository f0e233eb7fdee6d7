#!/usr/bin/env python3
"""Why lineages stall: the measurements of docs/results/recipe.md, "Why lineages stall".

    python3 stalls.py levels RUNS OUT.json        # per lineage and level: learning iterations, patience
    python3 stalls.py paths OUT.json TASK          # each lineage's learning iterations per level
    python3 stalls.py offspring RUN                # each lineage on the level it ended on: θ and its offspring
    python3 stalls.py simulate OUT.json            # lineages drawn from OUT.json: restarts, K in parallel, patience
    python3 stalls.py deadline OUT.json            # the same, with a deadline: a lineage still on level L or
        # below after N learning iterations restarts (`deadline = N`, `deadline_level = L`)
    python3 stalls.py rates TASK RECORDS...         # from sweep records: the rate at which a lineage finishes
        # within N learning iterations, and the runs a deadline of N would leave unfinished
    python3 stalls.py early RUNS K                 # each level's state where the patience count reaches K:
        # the levels a restart ended against those the lineage went on to pass
    python3 stalls.py continue RUN OUT N [key=value ...] [--fresh-noise] [--clear-bad]
        # a copy of the stalled run RUN continued N more learning iterations with settings changed
    python3 stalls.py at-level RUNS TASK L UP_TO OUT
        # every lineage of TASK's runs that reached level L: its θ at the start of L, `nhc verify --up-to UP_TO`
    python3 stalls.py from-level RUN OUT N [--min-level L]
        # each lineage of RUN that a restart ended: the same run trained again to the start of the
        # level it stalled on, then continued N learning iterations with fresh noise

RUNS is a sweep directory (RUNS/TASK-SEED/metrics.jsonl, e.g. `nhc sweep --tasks arithmetic,sort
--recipe --runs 15 --levels 10 --out RUNS`). `continue` rewrites a copy of RUN's checkpoint with
the changed settings, the restart patience started over and a new digest, and resumes it with
`nhc train --resume`: a diagnosis of what the lineage could still reach, not a way to train.
NHC_BIN names the binary (default target/release/nhc).
"""

import collections
import glob
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
NHC = os.environ.get("NHC_BIN", str(ROOT / "target" / "release" / "nhc"))


def metrics(run):
    with open(Path(run) / "metrics.jsonl") as f:
        return [json.loads(line) for line in f]


def levels(runs, out):
    """Rows (run, lineage, level, learning iterations on it, largest patience count, how it ended):
    the patience count is the learning iterations since θ's batch fitness last beat its best on
    the level (the restart rule's count)."""
    rows = []
    for path in sorted(glob.glob(f"{runs}/*/metrics.jsonl")):
        run = Path(path).parent.name
        lineage, level, best, pat, maxpat, learn, restarts = 0, None, None, 0, 0, 0, 0

        def close(ended):
            rows.append(dict(run=run, lineage=lineage, level=level, learn=learn, maxpat=maxpat, ended=ended))

        for d in metrics(Path(path).parent):
            if d["restarts"] != restarts:  # this iteration ended the lineage
                close("stalled" if d["advance"] == "restart" else "check")
                lineage, level, restarts = lineage + 1, None, d["restarts"]
                continue
            if level != d["level"]:
                if level is not None:
                    close("solved")
                level, best, pat, maxpat, learn = d["level"], None, 0, 0, 0
            learned = d["update"] in ("mistake", "margin")
            if best is None or d["fitness_raw"] > best:
                best, pat = d["fitness_raw"], 0
            elif learned:
                pat += 1
            maxpat, learn = max(maxpat, pat), learn + learned
        close("last")
    Path(out).write_text(json.dumps(rows))
    by = collections.defaultdict(list)
    for r in rows:
        by[(r["run"].rsplit("-", 1)[0], r["ended"])].append(r["maxpat"])
    print("task, how the level ended: levels, largest patience count (median, 90th percentile), levels with a count ≥ 500, ≥ 1 000")
    for (task, ended), v in sorted(by.items()):
        v.sort()
        print(f"{task}, {ended}: {len(v)}, {v[len(v) // 2]}, {v[int(0.9 * len(v))]}, "
              f"{sum(x >= 500 for x in v)}, {sum(x >= 1000 for x in v)}")
    stalled = collections.Counter((r["run"].rsplit("-", 1)[0], r["level"]) for r in rows if r["ended"] == "stalled")
    for task in sorted({t for t, _ in stalled}):
        print(f"{task}: lineages a restart ended, by level: "
              + ", ".join(f"{lv}: {n}" for (t, lv), n in sorted(stalled.items()) if t == task))


def offspring(run):
    """Per lineage, on the level it ended on: θ's batch fitness (mean, best and the iteration of
    the level it came at), samples failed a batch over its last 500 iterations, and in how many
    learning iterations all offspring scored alike or some offspring beat θ."""
    lines, lineage, cur = metrics(run), [], []
    restarts = 0
    for d in lines:
        if d["restarts"] != restarts:
            cur.append(d)
            lineage.append(cur)
            cur, restarts = [], d["restarts"]
            continue
        cur.append(d)
    lineage.append(cur)
    for k, ls in enumerate(lineage):
        last = ls[-1]["level"]
        on = [d for d in ls if d["level"] == last]
        fit = [d["fitness_raw"] for d in on]
        learn = [d for d in on if d["offspring_raw"]]
        alike = sum(max(d["offspring_raw"]) - min(d["offspring_raw"]) < 1e-12 for d in learn)
        better = sum(max(d["offspring_raw"]) > d["fitness_raw"] + 1e-12 for d in learn)
        tail = on[-500:]
        print(f"lineage {k}: level {last}, {len(on)} iterations on it ({len(learn)} learning); θ's fitness mean "
              f"{sum(fit) / len(fit):.3f}, best {max(fit):.3f} at its iteration {fit.index(max(fit))}; failed samples a "
              f"batch (last 500) {sum(d['failed'] for d in tail) / len(tail):.1f} of 32; all offspring alike in {alike}, "
              f"an offspring better than θ in {better}")


def lineages(rows):
    """{task: [(finished, [learning iterations per level], [largest patience per level], [ended per level])]}"""
    by = collections.defaultdict(list)
    for r in rows:
        by[(r["run"], r["lineage"])].append(r)
    pools = collections.defaultdict(list)
    for (run, _), rs in sorted(by.items()):
        finished = rs[-1]["ended"] == "last" and rs[-1]["level"] == max(r["level"] for r in rows)
        if rs[-1]["ended"] == "last" and not finished:
            continue  # cut by the budget: its fate is unknown
        pools[run.rsplit("-", 1)[0]].append((finished, [r["learn"] for r in rs], [r["maxpat"] for r in rs],
                                             [r["ended"] for r in rs]))
    return pools


def paths(path, task):
    by = collections.defaultdict(list)
    for r in json.loads(Path(path).read_text()):
        if r["run"].rsplit("-", 1)[0] == task:
            by[(r["run"], r["lineage"])].append(r)
    top = max(r["level"] for rs in by.values() for r in rs)
    for (run, lineage), rs in sorted(by.items(), key=lambda kv: (int(kv[0][0].rsplit("-", 1)[1]), kv[0][1])):
        fate = "finished" if rs[-1]["level"] == top and rs[-1]["ended"] == "last" else rs[-1]["ended"]
        print(f"{run} lineage {lineage} ({fate}): " + " ".join(f"L{r['level']} {r['learn']}" for r in rs))


def draw_run(pool, k, budget, patience, rng):
    """One run of `k` lineages at a time sharing `budget` learning iterations, lineages drawn from
    `pool`; a lineage whose patience count reaches `patience` on a level restarts there. Returns
    the learning iterations when the first lineage finishes, or None at the budget."""
    def cost(lineage):
        finished, learn, maxpat, _ = lineage
        spent = 0
        for n, p in zip(learn, maxpat):
            if p >= patience:
                return False, spent + (n - p) + patience
            spent += n
        return finished, spent

    per, best = budget / k, None
    for _ in range(k):
        t = 0
        while t < per:
            ok, c = cost(rng.choice(pool))
            if ok:
                if t + c <= per:
                    best = (t + c) * k if best is None else min(best, (t + c) * k)
                break
            t += c
    return best


def simulate(path):
    pools = lineages(json.loads(Path(path).read_text()))
    rng = random.Random(1)
    print("task, lineages at a time, restart patience: runs unfinished within 20 000 learning iterations, median learning iterations (20 000 draws)")
    for task, pool in sorted(pools.items()):
        p = sum(f for f, *_ in pool) / len(pool)
        print(f"{task}: {len(pool)} lineages, {p:.2f} of them finished")
        for k, patience in [(1, 2000), (2, 2000), (4, 2000), (6, 2000), (1, 500), (1, 1000), (1, 1500)]:
            res = [draw_run(pool, k, 20000, patience, rng) for _ in range(20000)]
            ok = sorted(r for r in res if r is not None)
            print(f"  {k} at a time, patience {patience}: {1 - len(ok) / len(res):.1%} unfinished, median {ok[len(ok) // 2]:.0f}")


def deadline(path):
    """Runs drawn as in `simulate`, one lineage at a time, patience 2 000, with a lineage still on
    level L or below after N learning iterations restarted there (cost N, not finished): the
    config's `deadline = N`, `deadline_level = L`."""
    pools = lineages(json.loads(Path(path).read_text()))

    def cost(lineage, level, cap):
        finished, learn, maxpat, _ = lineage
        spent = 0
        for k, (n, p) in enumerate(zip(learn, maxpat), start=1):
            end = n - p + 2000 if p >= 2000 else n
            if k <= level and spent + end > cap:
                return False, cap
            if p >= 2000:
                return False, spent + end
            spent += n
        return finished, spent

    print("task, deadline level L, deadline N: lineages that finish; runs unfinished within 20 000 learning iterations, "
          "median learning iterations (20 000 draws)")
    for task, pool in sorted(pools.items()):
        for level in range(1, 6):
            for cap in [300, 500, 700, 1000, 1500, 2000, 3000, None]:
                rng = random.Random(1)
                res = []
                for _ in range(20000):
                    t, done = 0, None
                    while t < 20000 and done is None:
                        ok, c = cost(rng.choice(pool), level, cap or 10**9)
                        if ok:
                            done = t + c if t + c <= 20000 else -1
                        t += c
                    res.append(done if done and done > 0 else None)
                ok = sorted(r for r in res if r is not None)
                fin = sum(cost(x, level, cap or 10**9)[0] for x in pool)
                print(f"  {task}, L {level}, N {cap or 'none'}: {fin} of {len(pool)} lineages finish; "
                      f"{1 - len(ok) / len(res):.1%} unfinished, median {ok[len(ok) // 2]}")


def rates(task, paths):
    """From sweep records (their summaries' lineages): the rate p at which a lineage of `task`
    finishes within N learning iterations, and the runs a deadline of N leaves unfinished if each
    of its 20 000 / N tries finishes with that rate."""
    n, finished = 0, []
    for path in paths:
        for line in Path(path).read_text().splitlines():
            s = json.loads(line)["summary"]
            if s["task"] == task:
                n += len(s["lineages"])
                finished += [x["learning_iterations"] for x in s["lineages"] if x["ending"] == "finished"]
    finished.sort()
    print(f"{task}: {n} lineages, {len(finished)} finished, median {finished[len(finished) // 2]} learning iterations")
    for cap in [200, 300, 500, 700, 1000]:
        p = sum(f <= cap for f in finished) / n
        print(f"  N {cap}: p = {p:.3f}, unfinished runs (1 - p)^(20000 / N) = {(1 - p) ** (20000 / cap):.1%}")


def early(runs, k):
    """Each (lineage, level) whose patience count (learning iterations since θ's batch fitness
    last beat its best on the level) reaches `k`, at that iteration: failed samples a batch and
    the share of iterations whose best offspring beat θ, both over the last `k`; the levels a
    restart ended against the levels the lineage went on to pass. Quartiles of each."""
    kinds = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(f"{runs}/*/metrics.jsonl")):
        rows, lineage, restarts, level, window, best, pat, seen = [], 0, 0, None, [], None, 0, False
        for d in metrics(Path(path).parent):
            if d["restarts"] != restarts:
                rows.append(("restarted", seen))
                lineage, restarts, level, seen = lineage + 1, d["restarts"], None, False
                continue
            if d["level"] != level:
                if level is not None:
                    rows.append(("passed", seen))
                level, window, best, pat, seen = d["level"], [], None, 0, False
            if d["update"] not in ("mistake", "margin"):
                continue
            window = (window + [d])[-k:]
            f = d["fitness_raw"]
            best, pat = (f, 0) if best is None or f > best else (best, pat + 1)
            if pat == k and not seen:
                seen = dict(failed=sum(x["failed"] for x in window) / k,
                            beat=sum(x["best_offspring"] > x["fitness_raw"] for x in window) / k)
        for kind, f in rows:
            if f:
                for key, v in f.items():
                    kinds[kind][key].append(v)
    for kind, fs in kinds.items():
        n = len(next(iter(fs.values())))
        print(f"{kind} ({n} levels):", "; ".join(
            f"{key} " + " / ".join(f"{sorted(v)[int(q * (len(v) - 1))]:.2f}" for q in (0, .25, .5, .75, 1))
            for key, v in fs.items()))


def write_checkpoint(run, state, seconds):
    text, sec = json.dumps(state, separators=(",", ":")), json.dumps(seconds)
    digest = hashlib.sha256((text + "\n" + sec).encode()).hexdigest()
    (Path(run) / "checkpoint.json").write_text('{"state":%s,"seconds":%s,"digest":"%s"}' % (text, sec, digest))


def continue_run(run, out, extra, changes, fresh_noise=False, clear_bad=False):
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(run, out)
    for name in ("lock", "summary.json", "model.json"):
        (Path(out) / name).unlink(missing_ok=True)
    cp = json.loads((Path(out) / "checkpoint.json").read_text())
    state = cp["state"]
    state["config"].update(changes)
    state["config"]["max_iterations"] = state["learning_iterations"] + extra
    state["curriculum"]["patience"], state["curriculum"]["best_fitness"] = 0, None
    if fresh_noise:
        state["rng"]["stream"] = state["rng"]["stream"] + 7
    if clear_bad:
        state["curriculum"]["bad"]["items"] = []
    write_checkpoint(out, state, cp["seconds"])
    before = len(metrics(out))
    subprocess.run([NHC, "train", "--resume", str(out), "--quiet"], capture_output=True, text=True)
    after = metrics(out)[before:]
    start = state["curriculum"]["level"]
    top = max([d["level"] for d in after], default=start)
    restarts = after[-1]["restarts"] - state["restarts"] if after else 0
    print(f"{out}: {changes or 'unchanged'}{', fresh noise' if fresh_noise else ''}{', bad memories cleared' if clear_bad else ''}: "
          f"on level {start}, reached level {top} in {extra} learning iterations ({restarts} restarts)", flush=True)
    return top > start


def starts(lines):
    """(lineage, level, learning iterations before its first iteration) for each level each
    lineage began; the iteration that restarts a lineage belongs to the old one."""
    out, prev = [], None
    for i, d in enumerate(lines):
        if d["advance"] in ("restart", "failed_check"):
            continue
        if (d["restarts"], d["level"]) != prev:
            prev = (d["restarts"], d["level"])
            out.append((d["restarts"], d["level"], lines[i - 1]["learning_iterations"] if i else 0))
    return out


def prefix_run(task, seed, learning, out):
    """The recipe's run of `task` and `seed` trained again up to `learning` + 1 learning iterations."""
    if not (Path(out) / "model.json").exists():
        subprocess.run([NHC, "train", "--task", task, "--seed", seed, "--recipe", "--max-iterations",
                        str(learning + 1), "--out", str(out), "--quiet"], capture_output=True)


def at_level(runs, task, level, up_to, out):
    for run in sorted(Path(runs).glob(f"{task}-*"), key=lambda p: int(p.name.rsplit("-", 1)[1])):
        seed = run.name.rsplit("-", 1)[1]
        summary = json.loads((run / "summary.json").read_text())
        last = len(summary["lineages"]) - 1
        for lineage, lv, learning in starts(metrics(run)):
            if lv != level:
                continue
            prefix = Path(out) / f"{task}-{seed}-lineage{lineage}-level{level}"
            prefix_run(task, seed, learning, prefix)
            v = subprocess.run([NHC, "verify", "--task", task, "--model", str(prefix / "model.json"), "--up-to",
                                str(up_to)], capture_output=True, text=True).stdout
            verdict = next((line.strip() for line in v.splitlines() if "verified" in line or "counterexample" in line), v)
            fate = "finished" if lineage == last and summary["outcome"] == "solved" else "stalled"
            print(f"{task} seed {seed} lineage {lineage} ({fate}): {verdict}", flush=True)


def from_level(run, out, extra, min_level):
    task, seed = Path(run).name.rsplit("-", 1)
    begun = starts(metrics(run))
    for k, (lineage, level, learning) in enumerate(begun):
        nxt = begun[k + 1] if k + 1 < len(begun) else None
        if nxt is None or nxt[0] == lineage or level < min_level:
            continue
        prefix = Path(out) / f"{task}-{seed}-lineage{lineage}"
        prefix_run(task, seed, learning, prefix)
        print(f"{task} seed {seed} lineage {lineage}: stalled on level {level}; from its start, with fresh noise:", flush=True)
        continue_run(prefix, f"{prefix}-fresh", extra, {}, fresh_noise=True)


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    cmd, rest = a[0], a[1:]
    if cmd == "levels" and len(rest) == 2:
        levels(*rest)
    elif cmd == "paths" and len(rest) == 2:
        paths(*rest)
    elif cmd == "offspring" and len(rest) == 1:
        offspring(*rest)
    elif cmd == "simulate" and len(rest) == 1:
        simulate(*rest)
    elif cmd == "deadline" and len(rest) == 1:
        deadline(*rest)
    elif cmd == "rates" and len(rest) >= 2:
        rates(rest[0], rest[1:])
    elif cmd == "early" and len(rest) == 2:
        early(rest[0], int(rest[1]))
    elif cmd == "continue" and len(rest) >= 3:
        changes = {}
        for kv in rest[3:]:
            if kv.startswith("--"):
                continue
            k, v = kv.split("=", 1)
            changes[k] = json.loads(v)
        continue_run(rest[0], rest[1], int(rest[2]), changes, "--fresh-noise" in rest, "--clear-bad" in rest)
    elif cmd == "at-level" and len(rest) == 5:
        at_level(rest[0], rest[1], int(rest[2]), int(rest[3]), rest[4])
    elif cmd == "from-level" and len(rest) >= 3:
        m = int(rest[rest.index("--min-level") + 1]) if "--min-level" in rest else 2
        from_level(rest[0], rest[1], int(rest[2]), m)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
