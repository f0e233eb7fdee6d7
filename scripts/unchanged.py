"""Checks that nothing learned changed: every model in models/ evaluates as recorded, and
training from scratch gives the recorded iterations, steps and θ (byte for byte, as an FNV-1a
hash of the f32 values).

Usage:
  python3 scripts/unchanged.py            # check ./target/release/nhc against results/unchanged.json
  python3 scripts/unchanged.py --record   # write results/unchanged.json with ./target/release/nhc
  NHC=/path/to/nhc python3 scripts/unchanged.py [--record]   # another binary

Evaluations: each learned model at levels 10, 100, 500, 1000 (seed 1000, 50 samples, as in the
sweep) and levels 10, 100 (seed 0, 20 samples); each scripted solution at levels 10, 100 (seed 0,
20 samples). Full training runs: copy 2, sort 3, plan 2, arithmetic 9, duplicated 4 (default
config). Short runs (20 learning iterations, seed 1) of every task; the same values are checked
by `cargo test` (crates/nhc-train/tests/unchanged.rs).
"""
import json, os, struct, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NHC = os.environ.get("NHC", os.path.join(ROOT, "target/release/nhc"))
RECORD = os.path.join(ROOT, "results/unchanged.json")
# The paper's eleven tasks, as its Table 1 lists them.
TASKS = json.load(open(os.path.join(ROOT, "results", "paper_table1.json")))["tasks"]
FULL = [("copy", 2), ("sort", 3), ("plan", 2), ("arithmetic", 9), ("duplicated", 4)]
SHORT_ITERATIONS = 20


def fnv(theta):
    """FNV-1a, 64 bit, over the little-endian bytes of the f32 values."""
    h = 0xCBF29CE484222325
    for b in b"".join(struct.pack("<f", x) for x in theta):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def evaluate(task, model, level, seed, samples):
    out = subprocess.run([NHC, "eval", "--task", task, "--model", model, "--level", str(level),
                          "--seed", str(seed), "--samples", str(samples), "--json"],
                         check=True, capture_output=True, text=True, cwd=ROOT).stdout
    r = json.loads(out)
    return {"solved": r["solved"], "steps": r["steps"], "mean_fitness": r["mean_fitness"]}


def train(task, seed, max_iterations=None):
    with tempfile.TemporaryDirectory() as d:
        cmd = [NHC, "train", "--task", task, "--seed", str(seed), "--out", d, "--quiet"]
        if max_iterations:
            cmd += ["--max-iterations", str(max_iterations)]
        # 4: the run spent its budget without finishing the curriculum (the short runs).
        done = subprocess.run(cmd, capture_output=True, cwd=ROOT)
        if done.returncode not in (0, 4):
            raise subprocess.CalledProcessError(done.returncode, cmd, done.stdout, done.stderr)
        s = json.load(open(os.path.join(d, "summary.json")))
        theta = json.load(open(os.path.join(d, "model.json")))["params"]
    return {"iterations": s["iterations"], "learning_iterations": s["learning_iterations"],
            "steps": s["steps"], "theta_fnv": fnv(theta)}


def measure():
    evals, out = [], {}
    for t in TASKS:
        model = f"models/{t}.json"
        for level in (10, 100, 500, 1000):
            evals.append((t, model, level, 1000, 50))
        for level in (10, 100):
            evals.append((t, model, level, 0, 20))
            evals.append((t, "scripted", level, 0, 20))
    for (t, m, level, seed, n) in evals:
        key = f"eval {t} {m} level {level} seed {seed} samples {n}"
        out[key] = evaluate(t, m, level, seed, n)
        print(key, out[key], flush=True)
    for t in TASKS:
        key = f"train {t} seed 1 max_iterations {SHORT_ITERATIONS}"
        out[key] = train(t, 1, SHORT_ITERATIONS)
        print(key, out[key], flush=True)
    for (t, seed) in FULL:
        key = f"train {t} seed {seed}"
        out[key] = train(t, seed)
        print(key, out[key], flush=True)
    return out


def main():
    if "--record" in sys.argv:
        json.dump(measure(), open(RECORD, "w"), indent=1, sort_keys=True)
        print(f"wrote {RECORD}")
        return
    recorded = json.load(open(RECORD))
    now = measure()
    bad = [k for k in recorded if recorded[k] != now.get(k)]
    for k in bad:
        print(f"CHANGED {k}: recorded {recorded[k]}, now {now.get(k)}")
    print(f"{len(recorded) - len(bad)} of {len(recorded)} recorded values unchanged")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
