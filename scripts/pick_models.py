"""Copies into models/ one model per task from a results file of a sweep (default
results/full.jsonl; each line's "dir" is its run directory), chosen without the test levels or
the test samples: the lowest seed that finished training and passes the validation below. Prints
each pick with its results at the test levels (read from the file, not used to choose), and the
tasks where no run passes.

Validation (sample seed 2, which neither training nor the evaluation's seed 1000 draws):
- 50 samples at levels 50, 99 and 300, none of them a test level (100, 500, 1000);
- the copy family and sort: what users send beyond the curriculum's shapes, through `nhc run`,
  answers compared with references computed here: lists of one object and of equal objects;
  repeatCopy on 1–300 objects × 1–50 copies, duplicated on 1–300 objects × 1–50 repeats and on
  runs of uneven length; sort on sorted, reversed and constant lists.

Usage: python3 scripts/pick_models.py [results/full.jsonl] [--out models] [task ...]   (needs ./target/release/nhc)
The recipe's models: python3 scripts/pick_models.py results/screens/recipe/row.jsonl --out models/recipe"""
import json, os, random, shutil, subprocess, sys, tempfile

NHC = os.environ.get("NHC_BIN", "./target/release/nhc")
VALIDATION_SEED, SAMPLES = 2, 50
args = sys.argv[1:]
results = args.pop(0) if args and args[0].endswith(".jsonl") else "results/full.jsonl"
out_dir = "models"
if "--out" in args:
    k = args.index("--out")
    if k + 1 >= len(args):
        sys.exit("--out needs a directory, e.g. --out models/recipe")
    out_dir = args[k + 1]
    del args[k:k + 2]
only = set(args)
runs = [json.loads(line) for line in open(results) if line.strip()]
if not os.access(NHC, os.X_OK):
    sys.exit(f"{NHC} is missing: build it first (cargo build --release)")


def evaluates(task, model, level, samples):
    out = subprocess.run(
        [NHC, "eval", "--task", task, "--model", model, "--level", str(level), "--samples", str(samples),
         "--seed", str(VALIDATION_SEED), "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["solved"] == samples


def answers(task, model, given, expected):
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(given, f)
        f.flush()
        p = subprocess.run([NHC, "run", "--task", task, "--model", model, "--input", "@" + f.name, "--json"],
                           capture_output=True, text=True)
    return p.returncode == 0 and json.loads(p.stdout)["output"] == expected


def obj(rng):
    return [rng.randrange(2) for _ in range(6)]


def distinct(n, rng):
    out = []
    while len(out) < n:
        x = obj(rng)
        if not out or out[-1] != x:
            out.append(x)
    return out


def shapes(task):
    """(input, expected answer) pairs of the shapes users send."""
    rng = random.Random(f"validation {task}")
    one, equal = [obj(rng)], [[1, 0, 1, 0, 1, 0]] * 25
    if task in ("copy", "reverse"):
        cases = [one, equal, [obj(rng) for _ in range(300)]]
        return [(c, c if task == "copy" else c[::-1]) for c in cases]
    if task == "repeatCopy":
        out = []
        for n in (1, 3, 30, 300):
            for c in (1, 4, 25, 50):
                items = equal[:n] if n == 30 and c == 4 else [obj(rng) for _ in range(n)]
                out.append(({"items": items, "copies": c}, items * c))
        return out
    if task == "duplicated":
        out = []
        for n in (1, 3, 30, 300):
            for c in (1, 4, 25, 50):
                kept = distinct(n, rng)
                out.append(([x for x in kept for _ in range(c)], kept))
        kept = distinct(40, rng)
        out.append(([x for x in kept for _ in range(rng.randint(1, 30))], kept))
        return out
    if task == "sort":
        cases = [[77], [9] * 30, list(range(0, 256, 3)), list(range(255, 0, -4)), [rng.randrange(256) for _ in range(300)]]
        return [(c, sorted(c)) for c in cases]
    return []


def validates(task, model):
    for level in (50, 99):
        if not evaluates(task, model, level, SAMPLES):
            return False
    if not all(answers(task, model, given, expected) for given, expected in shapes(task)):
        return False
    return evaluates(task, model, 300, SAMPLES)


picked, tried = {}, {}
for r in sorted(runs, key=lambda r: r["summary"]["seed"]):
    s = r["summary"]
    task = s["task"]
    if task in picked or s["outcome"] != "solved" or (only and task not in only):
        continue
    tried[task] = tried.get(task, 0) + 1
    model = f"{r.get('dir', 'runs/' + task + '-' + str(s['seed']))}/model.json"
    if not os.path.exists(model):
        sys.exit(f"{model} is missing: picking needs the sweep's run directories, not only {results} "
                 "(train them with the sweep command in docs/results/table1.md)")
    if validates(task, model):
        picked[task] = r
        os.makedirs(out_dir, exist_ok=True)
        shutil.copy(model, f"{out_dir}/{task}.json")
for task, r in picked.items():
    tests = ", ".join(f"L{l} {e['solved']}/{e['samples']}" for l, e in sorted(r["eval"].items(), key=lambda x: int(x[0])))
    print(f"{out_dir}/{task}.json <- seed {r['summary']['seed']} (test levels, not used to pick: {tests})")
for task in sorted(set(tried) - set(picked)):
    print(f"{task}: none of {tried[task]} finished runs passes the validation; {out_dir}/{task}.json unchanged")
