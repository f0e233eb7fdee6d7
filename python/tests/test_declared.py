"""Algorithms of one's own declared in Python (`nhc.Algorithm`): copy and sort re-declared from the
paper's description (examples/own_algorithms.py) train to the built-ins' θ bit for bit, evaluate
identically and sweep to the built-ins' sweep lines; `nhc.check` catches broken declarations; a
failing user function stops training (or a sweep) with the user's exception, a note naming the
model step where an ALU function raised, and leaves a run directory that resumes."""

import importlib.util
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import nhc

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "own_algorithms.py"


def load_example():
    spec = importlib.util.spec_from_file_location("own_algorithms", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


own = load_example()

# Short runs that still level up: a level is solved after 20 perfect iterations.
QUICK = {"perfect_to_solve": 20, "perfect_to_solve_after_learning": 20}


def untimed(records):
    return [{k: v for k, v in r.items() if k != "wall_seconds"} for r in records]


@pytest.mark.parametrize("name, iterations, levels", [("copy", 400, [3, 30]), ("sort", 600, [3, 12])])
def test_declared_in_python_trains_to_the_built_in_theta(name, iterations, levels):
    declared = {"copy": own.COPY, "sort": own.SORT}[name]
    config = {**QUICK, "max_iterations": iterations}
    built_in_log, declared_log = [], []
    built_in = nhc.train(name, 1, config=config, callback=built_in_log.append)
    mine = nhc.train(declared, 1, config=config, callback=declared_log.append)
    assert max(r["level"] for r in built_in_log) >= 2  # at least one level-up
    assert untimed(declared_log) == untimed(built_in_log)
    assert np.array_equal(mine.params, built_in.params)
    for level in levels:
        a, b = built_in.evaluate(level, 20, seed=1000), mine.evaluate(level, 20, seed=1000)
        for key in ["solved", "samples", "steps", "mean_fitness", "failed"]:
            assert a[key] == b[key], (level, key)


def test_a_declared_model_runs_traces_saves_and_loads(tmp_path):
    model = nhc.train(own.SORT, 1, config={**QUICK, "max_iterations": 50})
    assert (model.task, model.domain) == ("sort", "own")
    xs = [5, 0, 255, 7]
    report = model.run(xs, report=True)
    assert report["expected"] == sorted(xs) and isinstance(report["output"], list)
    assert model.run(xs, report=True) == nhc.train("sort", 1, config={**QUICK, "max_iterations": 50}).run(
        xs, report=True
    )
    trace = model.trace(level=3, seed=2, index=1)
    assert len(trace["step"]) > 0 and set(trace["op"]) <= {"C", "S", "O"}
    model.save(tmp_path / "sort.json")
    again = nhc.load(tmp_path / "sort.json", algorithm=own.SORT)
    assert np.array_equal(again.params, model.params)
    assert json.loads((tmp_path / "sort.json").read_text())["digest"] == own.SORT.digest
    with pytest.raises(nhc.ModelError, match="algorithm="):
        nhc.load(tmp_path / "sort.json")  # the name `sort` is a built-in; the digest says otherwise


def test_loading_against_another_declaration_is_refused_naming_both_digests(tmp_path):
    nhc.train(own.COPY, 1, config={"max_iterations": 20}, out=tmp_path / "run")
    # The same name, another sampler.
    other = copy_like(name="copy", sample=lambda level, rng: [rng.integers(1, 64) for _ in range(level)])
    assert other.digest != own.COPY.digest
    with pytest.raises(nhc.ModelError) as e:
        nhc.load(tmp_path / "run" / "model.json", algorithm=other)
    assert own.COPY.digest in str(e.value) and other.digest in str(e.value)
    with pytest.raises(ValueError) as e:
        nhc.resume(tmp_path / "run", algorithm=other)
    assert own.COPY.digest in str(e.value) and other.digest in str(e.value)


def copy_like(name="copy-like", **changes):
    """copy, declared again (as `name`) with some of its parts changed."""
    parts = dict(
        sample=lambda level, rng: [rng.integers(0, 64) for _ in range(level)],
        program=own.copy_program,
        reference=list,
        output="O",
        stop=("M", 1),
        empty=0,
    )
    return nhc.Algorithm(name, {"O": None, "M": None}, **{**parts, **changes})


def check_fails(algorithm, *wanted):
    with pytest.raises(ValueError) as e:
        nhc.check(algorithm, smoke=False)
    for text in wanted:
        assert text in str(e.value), str(e.value)
    return str(e.value)


def test_check_passes_the_examples():
    nhc.check(own.COPY)  # with 5 training iterations
    nhc.check(own.SORT, smoke=False)


def test_check_catches_a_wrong_read_count():
    def program(objects):
        yield from [None] * len(objects)
        for x in objects:
            yield ("O", x, x)
        yield ("M", None)

    check_fails(
        copy_like(program=program),
        "step 1 of the program of sample 0 of level 1 yields 2 reads, but the algorithm has 1 read head",
    )


def test_check_catches_a_read_the_memory_cannot_hold():
    def program(objects):
        yield from [None] * len(objects)
        for x in objects:
            yield ("O", x + 100)  # never presented: no head can read it
        yield ("M", None)

    check_fails(copy_like(program=program, reference=lambda xs: [x + 100 for x in xs]),
                "expects read head 1 to read")


def test_check_catches_an_unknown_operation():
    def program(objects):
        yield from [None] * len(objects)
        yield from [("O", x) for x in objects]
        yield ("END", None)

    check_fails(copy_like(program=program), "names the operation 'END', which the algorithm does not have")


def test_check_catches_a_program_that_ends_before_the_input_stops():
    def program(objects):
        yield from [None] * len(objects)
        yield from [("O", x) for x in objects]

    check_fails(copy_like(program=program), "but the Input goes on: 'M' has run 0 of its 1 times")


def test_check_catches_a_non_deterministic_sampler():
    check_fails(
        copy_like(sample=lambda level, rng: [random.randrange(64) for _ in range(level)]),
        "the sampler is not deterministic",
    )


def test_check_catches_an_impure_alu_and_a_non_deterministic_program():
    calls = iter(range(10**6))
    impure = nhc.Algorithm("impure", {"O": lambda x: x + next(calls) % 2, "M": None},
                           sample=own.COPY.sample, program=own.copy_program, reference=list,
                           output="O", stop=("M", 1), empty=0)
    check_fails(impure, "is not pure: two calls")

    toggle = iter(range(10**6))

    def program(objects):
        yield from own.copy_program(objects)
        if next(toggle) % 2:
            yield ("M", None)  # a second mark, every other call

    check_fails(copy_like(program=program), "is not deterministic: two calls on the same sample")


def test_check_catches_a_reference_that_disagrees_with_the_program():
    failures = check_fails(copy_like(reference=lambda objects: objects[::-1]), "sample 0 of level 2")
    assert "the program's own 'O' steps output" in failures and "level 1:" not in failures


def test_check_reports_a_level_the_sampler_cannot_make():
    def sample(level, rng):
        if level == 5:
            raise RuntimeError("no lists of five today")
        return [rng.integers(0, 64) for _ in range(level)]

    failures = check_fails(copy_like(sample=sample), "the sampler cannot make level 5: it raised RuntimeError")
    assert failures.count("\n- ") == 1  # levels 1-4 and 6-10 are fine


def test_float_words_are_refused():
    floats = copy_like(sample=lambda level, rng: [rng.random() for _ in range(level)])
    check_fails(floats, "float", "exact")
    with pytest.raises(ValueError, match="float"):
        nhc.train(floats, 1)  # the cheap check runs first
    model = nhc.train(own.COPY, 1, config={"max_iterations": 5})
    with pytest.raises(TypeError, match="float 0.5"):
        model.run([3, 0.5])


# A sort whose ALU fails while FAULTY["on"]: a function that depends on something outside it (a
# file, a service) that went missing, and came back.
FAULTY = {"on": False}


def flaky_compare(op):
    def alu(candidate, walker):
        if FAULTY["on"]:
            raise ZeroDivisionError("the comparison service is down")
        cmp = candidate <= walker
        return candidate, [cmp, 1 - cmp, op == "S", op == "O"]

    return alu


def sort_with(name, compare):
    """sort declared with the ALU `compare(op)` for each of its operations."""
    return nhc.Algorithm(
        name,
        {op: compare(op) for op in ("C", "S", "O")},
        heads=2,
        feedback=4,
        free_gates=False,
        sample=lambda level, rng: [rng.integers(0, 256) for _ in range(level + 1)],
        program=own.sort_program,
        reference=sorted,
        output="O",
        stop=("O", len),
        empty=0,
    )


FLAKY_SORT = sort_with("flaky-sort", flaky_compare)


def test_a_failing_alu_stops_training_and_the_run_resumes_once_it_is_fixed(tmp_path):
    # ALU results are cached by the declaration, so the failing run comes first: a run before it
    # would leave nothing for the ALU to compute again.
    config = {**QUICK, "max_iterations": 300}

    def break_at_40(record):
        if record["iteration"] == 40:
            FAULTY["on"] = True

    try:
        with pytest.raises(ZeroDivisionError, match="service is down") as e:
            nhc.train(FLAKY_SORT, 2, config=config, out=tmp_path, callback=break_at_40)
    finally:
        FAULTY["on"] = False
    assert any(entry.name == "alu" for entry in e.traceback)  # the user's own frame
    notes = "\n".join(e.value.__notes__)
    assert "ALU operation" in notes and "flaky-sort" in notes and "nhc.resume" in notes
    assert re.search(r"raised at model step \d+ of a sample of level \d+", notes), notes
    checkpoint = json.loads((tmp_path / "checkpoint.json").read_text())
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert not (tmp_path / "model.json").exists()
    assert checkpoint["state"]["digest"] == FLAKY_SORT.digest
    assert len(lines) >= 40 and checkpoint["state"]["iteration"] <= 40  # the failed iteration is not kept
    with pytest.raises(ValueError, match="algorithm="):
        nhc.resume(tmp_path)
    resumed = nhc.resume(tmp_path, algorithm=FLAKY_SORT)
    whole = nhc.train(FLAKY_SORT, 2, config=config)
    assert np.array_equal(resumed.params, whole.params)


def test_ctrl_c_stops_a_declared_algorithms_training_at_a_checkpoint(tmp_path):
    # The declared algorithm trains on threads of its own; the main thread watches for Ctrl-C.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    seen = []
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        nhc.train(own.COPY, 1, out=tmp_path, callback=seen.append)
    timer.cancel()
    assert any("nhc.resume" in n and "algorithm=" in n for n in e.value.__notes__)
    checkpoint = json.loads((tmp_path / "checkpoint.json").read_text())
    assert 0 < len(seen) and checkpoint["state"]["iteration"] == seen[-1]["iteration"]


def test_a_failing_program_names_the_function_and_the_level():
    def program(objects):
        if len(objects) == 3:
            raise KeyError("three")
        yield from own.copy_program(objects)

    # Levels 1-3 pass the cheap check for lists of one and two objects; level 3 fails there.
    with pytest.raises(ValueError, match="the program of sample 0 of level 3 raised KeyError"):
        nhc.train(copy_like(program=program), 1, config={"max_iterations": 5})


def test_the_rng_draws_as_the_built_in_samplers():
    rng = nhc.Rng(5)
    xs = [rng.integers(0, 256) for _ in range(1000)]
    assert min(xs) >= 0 and max(xs) <= 255 and len(set(xs)) > 200
    assert [nhc.Rng(9).integers(-5, 1000) for _ in range(3)] == [nhc.Rng(9).integers(-5, 1000) for _ in range(3)]
    assert 0 <= rng.random() < 1 and rng.choice("abc") in "abc"
    items = list(range(20))
    rng.shuffle(items)
    assert sorted(items) == list(range(20)) and items != list(range(20))
    with pytest.raises(ValueError):
        rng.integers(3, 3)
    kept = []
    keeper = copy_like(sample=lambda level, rng: kept.append(rng) or [1] * level)
    nhc.train(keeper, 1, config={"max_iterations": 1})
    with pytest.raises(RuntimeError, match="draw only while the call runs"):
        kept[-1].integers(0, 2)  # lent by the core for one call


def test_the_command_line_checks_trains_evaluates_and_resumes(tmp_path):
    algorithm = f"{EXAMPLE}:COPY"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "nhc", *args], capture_output=True, text=True, cwd=tmp_path)

    r = run("check", "--algorithm", algorithm, "--levels", "1-4", "--samples", "2")
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
    (tmp_path / "quick.toml").write_text("max_iterations = 60\nperfect_to_solve = 20\nperfect_to_solve_after_learning = 20\n")
    r = run("train", "--algorithm", algorithm, "--seed", "1", "--out", "run", "--config", "quick.toml")
    assert r.returncode == 4, r.stderr  # 60 iterations do not finish the curriculum
    assert r.stdout.startswith("copy: did not learn: stopped at level ") and "not expected to solve" in r.stdout
    assert re.search(r"^level +1 +iteration", r.stderr, re.M) and (tmp_path / "run" / "model.json").exists()
    direct = nhc.train(own.COPY, 1, config=tmp_path / "quick.toml")
    assert np.array_equal(nhc.load(tmp_path / "run" / "model.json", algorithm=own.COPY).params, direct.params)
    r = run("eval", "--algorithm", algorithm, "--model", "run/model.json", "--level", "5", "--samples", "4", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["samples"] == 4, r.stderr
    assert r.stderr.startswith("warning: run/model.json is the last θ of a run that did not learn")
    assert run("resume", "--algorithm", algorithm, "run").returncode == 4
    r = run("sweep", "--algorithm", algorithm, "--out", "sw", "--runs", "2", "--config", "quick.toml",
            "--levels", "5", "--samples", "3", "--jobs", "1")
    assert r.returncode == 0 and "2 runs in" in r.stdout and "copy seed 2:" in r.stdout, r.stderr
    assert len((tmp_path / "sw" / "sweep.jsonl").read_text().splitlines()) == 2
    r = run("sweep", "--algorithm", algorithm, "--out", "sw", "--seeds", "2", "--config", "quick.toml",
            "--levels", "5", "--samples", "3", "--jobs", "1")
    assert r.returncode == 0 and "1 runs in" in r.stdout and "copy seed 2:" in r.stdout, r.stderr
    r = run("sweep", "--algorithm", algorithm, "--out", "sw", "--runs", "2", "--seeds", "1-2")
    assert (r.returncode, r.stderr) == (1, "error: give --runs or --seeds, not both (--runs N is --seeds 1-N)\n")
    (tmp_path / "mine.py").write_text("import nhc\nNOT_ONE = 3\n")
    r = run("check", "--algorithm", "mine:NOT_ONE")
    assert r.returncode == 1 and "no nhc.Algorithm named NOT_ONE" in r.stderr
    os.mkfifo(tmp_path / "pipe.toml")  # no writer: reading it would block
    r = run("train", "--algorithm", algorithm, "--seed", "1", "--out", "p", "--config", "pipe.toml")
    assert r.returncode == 1 and "pipe.toml is not a regular file" in r.stderr, r.stderr


def test_python_m_nhc_train_counts_learning_iterations(tmp_path):
    """`python -m nhc train` ends with `nhc train`'s sentence: learning iterations first."""
    (tmp_path / "short.toml").write_text("levels = 2\nperfect_to_solve = 20\nperfect_to_solve_after_learning = 20\n")
    r = subprocess.run([sys.executable, "-m", "nhc", "train", "--algorithm", f"{EXAMPLE}:COPY", "--seed", "1",
                        "--out", "run", "--config", "short.toml", "--quiet"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert s["outcome"] == "solved" and s["learning_iterations"] < s["iterations"]
    grouped = lambda n: f"{n:,}".replace(",", " ")
    assert r.stdout == (
        f"copy: learned in {grouped(s['learning_iterations'])} learning iterations ({grouped(s['iterations'])} "
        "iterations in all), all 3 levels solved, no restart; model: run/model.json\n"
    )
    r = subprocess.run([sys.executable, "-m", "nhc", "eval", "--algorithm", f"{EXAMPLE}:COPY", "--model",
                        "run/model.json", "--level", "3", "--samples", "2"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_python_m_nhc_train_takes_the_recipe(tmp_path):
    """`python -m nhc train --recipe` trains with configs/recipe.toml, the config file's fields on top."""
    (tmp_path / "short.toml").write_text("levels = 2\nperfect_to_solve = 20\nperfect_to_solve_after_learning = 20\n")
    r = subprocess.run([sys.executable, "-m", "nhc", "train", "--algorithm", f"{EXAMPLE}:COPY", "--seed", "1",
                        "--out", "run", "--config", "short.toml", "--recipe", "--quiet"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    config = json.loads((tmp_path / "run" / "config.json").read_text())["train"]
    assert (config["check_level"], config["on_failed_check"], config["levels"]) == (99, "relearn", 2), config


def test_check_says_a_failure_of_every_level_once_with_its_levels():
    def program(objects):
        yield from [None] * len(objects)
        for x in objects:
            yield ("O", x, x)
        yield ("M", None)

    failures = check_fails(copy_like(program=program), "sample 0 of level 1 yields 2 reads")
    assert failures.count("\n- ") == 1, failures
    assert failures.endswith("but the algorithm has 1 read head (the same at levels 2–10)"), failures
    # Failures at some levels only: those levels.
    failures = check_fails(copy_like(reference=lambda objects: objects[::-1]), "sample 0 of level 2")
    assert failures.count("\n- ") == 1 and "(the same at levels 3–10)" in failures, failures


def test_check_names_a_read_of_none_that_makes_the_answer():
    def program(objects):
        yield from [None] * len(objects)
        yield from [("O", None) for _ in objects]  # the word to output left out
        yield ("M", None)

    failures = check_fails(
        copy_like(program=program, empty=-1),
        "step 1 of the program of sample 0 of level 1 is ('O', None): a read of None is not scored, but this one makes "
        "the answer: with the empty word -1 in its place",
        "give the word the head must read",
    )
    assert "(the same at levels 2–10)" in failures


def test_custom_signals_without_an_output_phase_need_no_output_signals():
    _, declared = own_declaration("brackets")
    parts = {name: getattr(declared, name) for name in ["sample", "program", "reference", "present"]}
    bare = nhc.Algorithm("brackets-bare", {"O": None, "W": None}, signals=3, output="O", stop=("O", 0),
                         answers_while_presented=True, **parts)
    nhc.check(bare)  # and 5 training iterations
    with pytest.raises(ValueError, match=r"with an output phase \(stop count 1\) need output_signals"):
        nhc.Algorithm("x", {"O": None, "W": None}, signals=3, output="O", stop=("O", 1), **parts)
    # A count given by a function: checked per sample.
    counted = nhc.Algorithm("brackets-counted", {"O": None, "W": None}, signals=3, output="O",
                            stop=("O", lambda seq: 1), answers_while_presented=True, **parts)
    check_fails(counted, "stop's count of sample 0 of level 1 is 1: its Input has an output phase, and custom "
                "signals then need output_signals")


def code_block_after(path, marker):
    """The first ```python block after `marker` in a Markdown file."""
    text = path.read_text()
    start = text.index(marker)
    match = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert match, f"no python block after {marker!r} in {path}"
    return match.group(1)


@pytest.mark.parametrize("doc, marker", [
    ("README.md", "`nhc.Algorithm` declares one in a page of Python"),
    ("docs/OWN_ALGORITHM.md", "## The whole file"),
])
def test_the_documented_example_runs_as_printed(doc, marker, tmp_path, monkeypatch, capsys):
    code = code_block_after(ROOT / doc, marker)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, doc, "exec"), {"__name__": "__main__"})
    printed = capsys.readouterr().out.split()
    assert printed and printed[-1] == "50", printed
    if doc == "README.md":
        assert printed[-2] == "verified", printed  # classes derived from the Input, without `shapes`


def test_a_declared_sample_is_the_built_ins():
    assert nhc.sample(own.SORT, 5, seed=3, index=1) == nhc.sample("sort", 5, seed=3, index=1)
    sample, reference = nhc.sample(own.COPY, 7, seed=2)
    assert len(sample) == 7 and reference == sample
    with pytest.raises(ValueError, match="no domain"):
        nhc.sample(own.SORT, 5, domain="bytes")


# ALU functions that raise on a read of 200 or more while TRIGGER["on"]: a new declaration each
# time (the same digest), so that no ALU result is cached yet.
TRIGGER = {"on": False}


def picky(op):
    def alu(candidate, walker):
        if TRIGGER["on"] and max(candidate, walker) >= 200:
            raise LookupError(f"no {max(candidate, walker)} today")
        cmp = candidate <= walker
        return candidate, [cmp, 1 - cmp, op == "S", op == "O"]

    return alu


def picky_sort():
    return sort_with("picky-sort", picky)


def first_step_reading_200(trace):
    """The first step of a trace whose ALU got a word of 200 or more."""
    reads = zip(trace["read1_data"], trace["read2_data"])
    return next(int(step) for step, (a, b) in zip(trace["step"], reads) if max(int(a), int(b)) >= 200)


def test_alu_errors_name_the_model_step_of_their_run(tmp_path):
    model = nhc.train(picky_sort(), 1, config={**QUICK, "max_iterations": 300})
    model.save(tmp_path / "picky.json")
    xs = [5, 250, 3, 9, 120]
    TRIGGER["on"] = True
    try:
        with pytest.raises(LookupError) as run:
            nhc.load(tmp_path / "picky.json", algorithm=picky_sort()).run(xs)
        with pytest.raises(LookupError) as evaluation:
            nhc.load(tmp_path / "picky.json", algorithm=picky_sort()).evaluate(5, 10, seed=3)
    finally:
        TRIGGER["on"] = False
    notes = "\n".join(run.value.__notes__)
    assert "ALU operation 'C'" in notes or "ALU operation 'S'" in notes or "ALU operation 'O'" in notes
    step = int(re.search(r"raised at model step (\d+) of the input", notes).group(1))
    assert step == first_step_reading_200(model.trace(xs))  # the trace shows the same run
    notes = "\n".join(evaluation.value.__notes__)
    found = re.search(r"raised at model step (\d+) of sample (\d+) of level 5", notes)
    assert found, notes
    step, index = int(found.group(1)), int(found.group(2))
    assert step == first_step_reading_200(model.trace(level=5, seed=3, index=index))


def sweep_line(line):
    """A sweep line without what differs between two sweeps of the same runs: wall times, the
    directory and the domain (a declared algorithm's is `own`)."""
    line = json.loads(json.dumps(line))
    del line["dir"]
    for key in ("wall_seconds", "steps_per_second", "domain"):
        del line["summary"][key]
    for report in line["eval"].values():
        del report["seconds"], report["domain"]
    return line


SWEEP = {"runs": 2, "config": {**QUICK, "max_iterations": 300}, "levels": [5, 20], "samples": 10}


def test_a_sweep_with_a_declared_algorithm_gives_the_built_ins_lines(tmp_path):
    built_in = nhc.sweep(["copy", "reverse"], tmp_path / "built-in", jobs=1, **SWEEP)
    seen = []
    mixed = nhc.sweep([own.COPY, "reverse"], tmp_path / "mixed", jobs=2, callback=seen.append, **SWEEP)
    assert [sweep_line(x) for x in mixed] == [sweep_line(x) for x in built_in]
    assert [(x["summary"]["task"], x["summary"]["domain"], x["summary"]["seed"]) for x in mixed] == [
        ("copy", "own", 1), ("copy", "own", 2), ("reverse", "binary", 1), ("reverse", "binary", 2)]
    assert mixed[0]["dir"] == str(tmp_path / "mixed" / "copy-1") and mixed[0]["curve"]
    assert sorted(x["dir"] for x in seen) == sorted(x["dir"] for x in mixed)
    written = [json.loads(line) for line in (tmp_path / "mixed" / "sweep.jsonl").read_text().splitlines()]
    assert written == mixed
    # Finished runs are kept: the same call trains and evaluates nothing.
    metrics = (tmp_path / "mixed" / "copy-1" / "metrics.jsonl").read_bytes()
    assert nhc.sweep([own.COPY, "reverse"], tmp_path / "mixed", **SWEEP) == mixed
    assert (tmp_path / "mixed" / "copy-1" / "metrics.jsonl").read_bytes() == metrics
    model = nhc.load(tmp_path / "mixed" / "copy-2" / "model.json", algorithm=own.COPY)
    assert model.evaluate(20, 10, seed=1000)["solved"] == mixed[1]["eval"]["20"]["solved"]
    with pytest.raises(ValueError, match="two tasks of the sweep are named `copy`"):
        nhc.sweep([own.COPY, "copy"], tmp_path / "clash", **SWEEP)
    with pytest.raises(TypeError, match="nhc.Algorithm"):
        nhc.sweep([own.COPY, 3], tmp_path / "wrong", **SWEEP)


# A copy whose sampler fails at level 2 and beyond while BROKEN["on"] (the cheap checks draw
# levels 1 to 3, so it is switched on once the sweep runs).
BROKEN = {"on": False}


def fragile_sample(level, rng):
    if BROKEN["on"] and level >= 2:
        raise ConnectionError("the sample store is away")
    return [rng.integers(0, 64) for _ in range(level)]


def test_a_failing_function_stops_a_declared_sweep_and_the_same_call_continues_it(tmp_path):
    fragile = copy_like(sample=fragile_sample)
    args = {**SWEEP, "jobs": 1, "levels": [5]}

    def break_after_the_first_run(line):
        BROKEN["on"] = True

    try:
        with pytest.raises(ConnectionError) as e:
            nhc.sweep(fragile, tmp_path / "stopped", callback=break_after_the_first_run, **args)
    finally:
        BROKEN["on"] = False
    notes = "\n".join(e.value.__notes__)
    assert "run copy-like seed 2 of the sweep" in notes and "the same call continues it" in notes
    assert (tmp_path / "stopped" / "copy-like-1" / "summary.json").exists()
    assert (tmp_path / "stopped" / "copy-like-2" / "checkpoint.json").exists()
    assert not (tmp_path / "stopped" / "copy-like-2" / "model.json").exists()
    assert not (tmp_path / "stopped" / "sweep.jsonl").exists()
    resumed = nhc.sweep(fragile, tmp_path / "stopped", **args)
    whole = nhc.sweep(fragile, tmp_path / "whole", **args)
    assert [sweep_line(x) for x in resumed] == [sweep_line(x) for x in whole]


BUG = {"on": False}


def broken_program(objects):
    if BUG["on"]:
        raise ZeroDivisionError("a bug in the declaration")
    return own.copy_program(objects)


def test_a_fixed_declaration_resumes_the_run_when_said_to_be_redeclared(tmp_path):
    broken = nhc.Algorithm("copy", {"O": None, "M": None}, sample=own.COPY.sample, program=broken_program,
                           reference=list, output="O", stop=("M", 1), empty=0)
    config = {**QUICK, "max_iterations": 200}

    def bug_at_20(record):
        BUG["on"] = record["iteration"] >= 20

    try:
        with pytest.raises(ZeroDivisionError, match="a bug in the declaration"):
            nhc.train(broken, 1, config=config, out=tmp_path, callback=bug_at_20)
    finally:
        BUG["on"] = False
    assert broken.digest != own.COPY.digest
    with pytest.raises(ValueError, match=own.COPY.digest):
        nhc.resume(tmp_path, algorithm=own.COPY)  # another declaration: refused
    with pytest.raises(ValueError, match="give its algorithm"):
        nhc.resume(tmp_path, redeclared=True)
    model = nhc.resume(tmp_path, algorithm=own.COPY, redeclared=True)
    assert json.loads((tmp_path / "checkpoint.json").read_text())["state"]["digest"] == own.COPY.digest
    assert model.meta["outcome"] in ("cap", "solved")


def own_declaration(name):
    spec = importlib.util.spec_from_file_location(f"own_{name}", ROOT / "examples" / "own" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, getattr(module, name.upper())


def test_the_shipped_own_models_handle_what_users_send():
    """models/own/: shapes beyond the curriculum's, against references computed here."""
    rng = random.Random(5)
    _, maxfind = own_declaration("maxfind")
    model = nhc.load(ROOT / "models" / "own" / "maxfind.json", algorithm=maxfind)
    for xs in [[7], [0], [3, 3, 3, 3], list(range(50)), list(range(50, 0, -1)), [255] * 9 + [0],
               [rng.randrange(256) for _ in range(2000)]]:
        assert model.run(xs) == [max(xs)], xs[:10]
    brackets, declared = own_declaration("brackets")
    model = nhc.load(ROOT / "models" / "own" / "brackets.json", algorithm=declared)
    deep = [rng.randrange(1, 64) for _ in range(300)] + [None] * 300
    flat = [x for _ in range(300) for x in (rng.randrange(1, 64), None)]
    for seq in [[5, None], deep, flat, [1, 2, None, 3, None, None]]:
        assert model.run(seq) == brackets.partners(seq)
    for seq, why in [([None, 5], "position 1 closes nothing"), ([5, 6, None], "1 bracket(s) are never closed")]:
        with pytest.raises(ValueError, match=re.escape(why)):
            model.run(seq)
    _, palindromes = own_declaration("palindromes")
    model = nhc.load(ROOT / "models" / "own" / "palindromes.json", algorithm=palindromes)
    for words in [[], ["a"], ["ab"], ["aba"] * 3, ["abc"] * 10, ["racecar", "level", "nhc", "x"],
                  ["ab" * rng.randrange(1, 5) for _ in range(300)]]:
        assert model.run(words) == [w for w in words if w == w[::-1]], words[:5]


def test_a_declared_algorithm_verifies_with_its_shapes_and_is_sampled_without():
    _, maxfind = own_declaration("maxfind")
    model = nhc.load(ROOT / "models" / "own" / "maxfind.json", algorithm=maxfind)
    report = model.verify(up_to=12)
    part = report["parts"][0]
    assert part["exhaustive"] and part["inputs"] == 2**12 - 1  # 2^(n-1) classes of n bytes, n = 1..12
    # Right on every list of 2-12 bytes; a list of one byte, which no level presents (level l has
    # l + 1 bytes), gets the right answer after a comparison the program does not make.
    assert [c["at"] for c in part["cells"] if c["failed"]] == [[1, 0]]
    wrong = part["smallest"]["first_wrong"]
    assert (wrong["expected_op"], wrong["op"]) == ("O", "C")
    assert model.run([7], report=True) == {"output": [7], "expected": [7], "correct": False, "steps": 5}
    def broken(bound):
        yield 1, [200]
        raise RuntimeError("no more shapes")

    for shapes, error, match in [
        (broken, RuntimeError, "no more shapes"),
        (lambda bound: [(0, [1])], ValueError, "size must be an int >= 1"),
        (lambda bound: [(bound + 1, [1])], ValueError, "beyond the bound"),
        (lambda bound: [[1, 2, 3]], TypeError, "not a pair"),
    ]:
        # A listing that raises or gives what the core cannot take is refused, naming the item.
        maxfind.shapes = shapes  # not part of the digest: the model still loads
        with pytest.raises(error, match=match):
            nhc.load(ROOT / "models" / "own" / "maxfind.json", algorithm=maxfind).verify(up_to=4)
    _, palindromes = own_declaration("palindromes")
    model = nhc.load(ROOT / "models" / "own" / "palindromes.json", algorithm=palindromes)
    report = nhc.verify(model, up_to=3)
    assert report["outcome"] == "sampled" and not report["parts"][0]["exhaustive"]
    note = report["parts"][0]["note"]
    assert "cannot list" in note and "its ALU's feedback (2 numbers) lets the data reach the control" in note, note
    _, brackets = own_declaration("brackets")
    report = nhc.load(ROOT / "models" / "own" / "brackets.json", algorithm=brackets).verify(up_to=3)
    assert "its Input sends signals of its own (signals=N): list its classes with `shapes`" in report["parts"][0]["note"]


def test_verify_says_what_keeps_it_from_deriving_the_classes():
    """Without `shapes`, a declaration with the built-in signals and no feedback has its classes
    derived from its Input; each thing that breaks the derivation is named."""
    assert own.COPY._presents_itself() is None
    arguments = dict(sample=own.COPY.sample, program=own.COPY.program, reference=list, output="O", empty=0)
    counted = nhc.Algorithm("copy", {"O": None, "M": None}, stop=("M", lambda s: 1), **arguments)
    assert counted._presents_itself() == "its stop count is a function of the sample"
    presented = nhc.Algorithm("copy", {"O": None, "M": None}, stop=("M", 1), present=list, **arguments)
    assert "it has `present`" in presented._presents_itself()


def test_a_trace_shows_what_the_program_expects_beside_what_the_model_did():
    _, maxfind = own_declaration("maxfind")
    model = nhc.load(ROOT / "models" / "own" / "maxfind.json", algorithm=maxfind)
    t = model.trace(level=5, seed=1000)
    scored = t["scored"]
    assert list(t["expected_op"][~scored]) == [""] * int((~scored).sum())  # the presentation
    assert list(t["expected_op"][scored]) == list(t["op"][scored])  # a correct run
    assert list(t["read1_expected"][scored]) == list(t["read1_data"][scored])
    assert t["read2_expected"][-1] == "0"  # the walker past the list reads the empty word


def test_any_shape_is_checked_and_drawn_where_the_config_asks_for_it():
    drawn = []

    def any_shape(level, rng):
        n = int(rng.integers(1, level + 1))
        drawn.append((level, n))
        return [rng.integers(0, 64) for _ in range(n)]

    plain = copy_like("copy-shapes")
    shaped = plain.replace(any_shape=any_shape)
    # It changes training, so a model of the one is refused by the other; `replace` with no
    # change is the same declaration.
    assert plain.digest != shaped.digest and plain.replace().digest == plain.digest
    assert shaped.any_shape is any_shape and shaped.sample is plain.sample
    nhc.check(shaped, smoke=False)
    assert drawn and all(1 <= n <= level for level, n in drawn)
    # Training checks the declaration first (a few draws of each), then draws `any_shape` only
    # where the config asks for it.
    drawn.clear()
    nhc.train(shaped, 1, config={"max_iterations": 2})
    checked = len(drawn)
    drawn.clear()
    nhc.train(shaped, 1, config={"max_iterations": 2, "train_any_shape": 1.0})
    assert len(drawn) > checked, (len(drawn), checked)
    check_fails(
        copy_like(any_shape=lambda level, rng: [random.randrange(64) for _ in range(level)]),
        "any_shape is not deterministic",
    )
    # A sample of the wrong kind is blamed on the function that drew it.
    check_fails(copy_like(any_shape=lambda level, rng: "oops"), "any_shape's sample 0 of level 1 is not a list of words")
    with pytest.raises(TypeError, match="any_shape must be a function"):
        copy_like(any_shape=3)


def test_a_name_that_is_not_a_plain_name_is_refused():
    """A name becomes run directories (`NAME-SEED`): anything but letters, digits, `-`, `_`, `+`
    would write elsewhere (`../esc`, `/tmp/x`) or name a path, and is refused; drawn cases."""
    arguments = dict(own.COPY._arguments)
    rng = random.Random(11)
    plain = "abcXYZ019-_+"
    for _ in range(200):
        name = "".join(rng.choice(plain) for _ in range(rng.randint(1, 8)))
        assert nhc.Algorithm(**{**arguments, "name": name}).name == name
    hostile = ["", "../esc", "/tmp/x", "a/b", "a b", ".", "..", "a\\b", "é", "a\n", "~", "a.b", "a:b"]
    hostile += ["".join(rng.choice(plain + "/. \\:*?") for _ in range(6)) for _ in range(200)]
    for name in hostile:
        if re.fullmatch(r"[A-Za-z0-9_+-]+", name):
            continue
        with pytest.raises(ValueError, match="plain name"):
            nhc.Algorithm(**{**arguments, "name": name})
    with pytest.raises(TypeError, match="name must be a str"):
        nhc.Algorithm(**{**arguments, "name": 3})
