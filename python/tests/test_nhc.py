"""Tests of the `nhc` package against independent references written here: `sorted`, Python
integers, a breadth-first search and a simulator of the test's own world."""

import functools
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import warnings
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import nhc
from maze import CELLS, MOVES, step

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"


def model(name):
    return nhc.load(MODELS / f"{name}.json")


@pytest.fixture(scope="session")
def nhc_bin():
    """The `nhc` command of this checkout ($NHC_BIN, else target/release/nhc), built if missing."""
    path = Path(os.environ.get("NHC_BIN", ROOT / "target" / "release" / "nhc"))
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--bin", "nhc"], cwd=ROOT, check=True)
    return path


# Models and tasks


def test_tasks_lists_the_papers_eleven_with_their_domains():
    tasks = {t["name"]: t for t in nhc.tasks()}
    assert list(tasks)[:4] == ["search", "plan", "search+", "plan+"]
    assert len(tasks) == 11
    assert tasks["sort"]["domains"] == ["bytes", "decimal", "strings"]
    assert tasks["sort"]["ops"] == ["C", "S", "O"]
    assert tasks["copy"]["params"]["nhc"] == model("copy").params.size


def test_load_exposes_the_model_file(tmp_path):
    m = model("sort")
    assert (m.task, m.variant, m.domain, m.is_scripted) == ("sort", "nhc", "bytes", False)
    theta = json.loads((MODELS / "sort.json").read_text())["params"]
    assert m.params.dtype == np.float32
    assert np.array_equal(m.params, np.array(theta, dtype=np.float32))
    m.save(tmp_path / "copy.json")
    again = nhc.load(tmp_path / "copy.json")
    assert np.array_equal(again.params, m.params) and again.meta == m.meta


def test_sort_at_level_1000_against_sorted():
    rng = random.Random(7)
    xs = [rng.randrange(256) for _ in range(1001)]
    r = nhc.scripted("sort").run(xs, report=True)
    assert r["output"] == sorted(xs) and r["correct"] and r["steps"] > 1_000_000
    # The learned sort solves 47 of 50 level-1000 samples (docs/results/speed.md); its report must
    # say whether this one is right, as the independent reference does.
    learned = model("sort").run(xs, report=True)
    assert learned["correct"] == (learned["output"] == sorted(xs))
    assert model("sort").run(xs[:101]) == sorted(xs[:101])


def test_addition_adds_like_python_integers():
    rng = random.Random(3)
    m = model("addition")
    for bits in [1, 5, 64, 1000]:
        a, b = rng.getrandbits(bits), rng.getrandbits(bits)
        out = m.run({"a": format(a, "b"), "b": format(b, "b")})
        assert int(out, 2) == a + b
    big_a, big_b = 98765432109876543210, 12345678901234567890
    assert int(m.run({"a": big_a, "b": big_b}, domain="decimal")) == big_a + big_b


def test_numpy_values_are_inputs():
    xs = np.array([200, 3, 17, 3], dtype=np.uint8)
    assert model("sort").run(xs) == sorted(xs.tolist())
    assert model("sort").run([np.int64(9), np.int32(2)]) == [2, 9]
    with pytest.raises(TypeError, match="cannot use"):
        model("sort").run([object()])


def test_arithmetic_takes_a_postfix_string():
    assert model("arithmetic").run("5 6 * 3 +") == 33


def test_every_sample_runs_back_to_its_answer():
    for task in ["copy", "reverse", "repeatCopy", "addition", "arithmetic", "sort", "plan+"]:
        for level in [1, 7]:
            problem, answer = nhc.sample(task, level, seed=11)
            assert model(task).run(problem) == answer, (task, level)


def test_evaluate_matches_the_command_line(nhc_bin):
    m = model("reverse")
    report = m.evaluate(100, 20, seed=5)
    cli = subprocess.run(
        [nhc_bin, "eval", "--task", "reverse", "--model", MODELS / "reverse.json", "--level", "100",
         "--samples", "20", "--seed", "5", "--json"],
        check=True, capture_output=True, text=True,
    )
    expected = json.loads(cli.stdout)
    for key in ["task", "domain", "variant", "level", "seed", "samples", "solved", "steps", "mean_fitness", "failed"]:
        assert report[key] == expected[key], key
    assert report["solved"] == 20


def test_verify_matches_the_command_line(nhc_bin):
    report = nhc.verify(model("sort"), up_to=5)
    cli = subprocess.run(
        [nhc_bin, "verify", "--task", "sort", "--model", MODELS / "sort.json", "--up-to", "5", "--json"],
        check=True, capture_output=True, text=True,
    )
    expected = json.loads(cli.stdout)
    del report["seconds"], expected["seconds"]
    assert report == expected
    assert report["outcome"] == "verified" and report["domain"] == "decimal"
    # Every weak ordering of 1-5 objects, with and without 0 among them: 2 (1 + 3 + 13 + 75 + 541).
    assert report["parts"][0]["inputs"] == 1266


def test_verify_finds_the_smallest_counterexample_of_a_broken_model(tmp_path):
    """A copy model whose θ is all zeros gets one object wrong already: its smallest
    counterexample is one object, and the input it gives runs wrong in `Model.run` too."""
    file = json.loads((MODELS / "copy.json").read_text())
    file["params"] = [0.0] * len(file["params"])
    (tmp_path / "zero.json").write_text(json.dumps(file))
    zero = nhc.load(tmp_path / "zero.json")
    report = zero.verify(up_to=3)
    smallest = report["parts"][0]["smallest"]
    assert report["outcome"] == "counterexample" and smallest["cell"] == [1, 0]
    assert report["parts"][0]["right_to"] == 0
    assert zero.run(smallest["input"], domain="decimal", report=True)["correct"] is False
    assert model("copy").verify(up_to=30)["outcome"] == "verified"
    r = model("search").verify(up_to=2, domain="sokoban8")
    assert r["outcome"] == "sampled" and not r["parts"][0]["exhaustive"]
    with pytest.raises(ValueError, match="at least 1"):
        zero.verify(up_to=0)
    with pytest.raises(TypeError, match="up_to"):
        zero.verify(up_to="ten")
    # Each bound refused names its cause; an empty list is no bound, not the defaults.
    for bad, error, cause in [([], ValueError, r"up_to = \[\] gives no bound"),
                              (-1, ValueError, "at least 0, got -1"),
                              (2**70, ValueError, "beyond the largest bound"),
                              ([3, 2**64], ValueError, "beyond the largest bound"),
                              ([3, "4"], TypeError, "got a str in the list")]:
        with pytest.raises(error, match=cause):
            zero.verify(up_to=bad)


def test_verify_every_length_matches_the_command_line(nhc_bin):
    """`verify(every_length=True)` is `nhc verify --every-length`: copy's committed model is
    proved right at every length, repeatCopy's at every number of copies, duplicated's at every
    number of repeats for 1–100 objects; sort is not covered, and says so."""
    report = nhc.verify(model("copy"), up_to=5, beyond=0, every_length=True)
    cli = subprocess.run(
        [nhc_bin, "verify", "--task", "copy", "--model", MODELS / "copy.json", "--up-to", "5", "--beyond", "0", "--every-length", "--json"],
        check=True, capture_output=True, text=True,
    )
    expected = json.loads(cli.stdout)
    for r in (report, expected):
        del r["seconds"], r["every_length"]["seconds"]
    assert report == expected
    proof = report["every_length"]["proof"]
    assert report["every_length"]["outcome"] == "proved" and proof["n0"] > 0
    assert report["parts"][0]["bound"] >= proof["n0"] + proof["modulus"]
    passes = model("repeatCopy").verify(up_to=3, beyond=0, every_length=True)["every_length"]
    assert passes["outcome"] == "proved", passes
    assert passes["proof"]["below"]["objects"] == passes["proof"]["n0"] - 1
    assert all(c["passes"]["first"] >= 1 for c in passes["proof"]["classes"])
    repeats = model("duplicated").verify(up_to=3, beyond=0, every_length=True)["every_length"]
    assert repeats["outcome"] == "proved" and repeats["repeats"]["objects"] == 100, repeats
    seven = model("duplicated").verify(up_to=3, beyond=0, every_length=7)["every_length"]
    assert seven["repeats"]["objects"] == 7, seven
    with pytest.raises(TypeError, match="every_length must be"):
        model("duplicated").verify(up_to=3, beyond=0, every_length="all")
    with pytest.raises(ValueError, match="takes none"):
        model("copy").verify(up_to=3, beyond=0, every_length=7)
    other = model("sort").verify(up_to=3, beyond=0, every_length=True)["every_length"]
    assert other["outcome"] == "not proved" and "covers the copy family" in other["reason"]
    assert "every_length" not in model("copy").verify(up_to=3, beyond=0)


def test_verify_samples_beyond_the_bound(nhc_bin, tmp_path):
    """After the listed inputs, `verify` samples each part from just above its bound up to
    `beyond` (docs/VERIFICATION.md, "Verification"), as `nhc verify --beyond` does; 0 turns the stage
    off, and a counterexample within the bound leaves nothing to sample."""
    report = nhc.verify(model("copy"), up_to=30, beyond=200)
    cli = subprocess.run(
        [nhc_bin, "verify", "--task", "copy", "--model", MODELS / "copy.json", "--up-to", "30", "--beyond", "200", "--json"],
        check=True, capture_output=True, text=True,
    )
    expected = json.loads(cli.stdout)
    del report["seconds"], expected["seconds"]
    assert report == expected
    beyond = report["parts"][0]["beyond"]
    assert report["outcome"] == "verified" and (beyond["sizes"][0], beyond["sizes"][-1]) == (31, 200)
    assert beyond["levels"] == beyond["sizes"]  # copy's level l presents l objects
    # 20 samples at each of the next 20 sizes (31-50), 5 at each log-spaced one above.
    assert beyond["sizes"][:21] == list(range(31, 52))
    assert sum(beyond["failed"]) == 0 and beyond["samples"] == [20] * 20 + [5] * (len(beyond["sizes"]) - 20)
    assert beyond["smallest"] is None
    assert model("copy").verify(up_to=30, beyond=0)["parts"][0]["beyond"] is None
    file = json.loads((MODELS / "copy.json").read_text())
    file["params"] = [0.0] * len(file["params"])
    (tmp_path / "zero.json").write_text(json.dumps(file))
    zero = nhc.load(tmp_path / "zero.json").verify(up_to=3)
    assert zero["outcome"] == "counterexample" and zero["parts"][0]["beyond"] is None


def test_a_wrong_answer_warns_unless_a_report_is_asked_for(tmp_path):
    """As `nhc run` exits 3 on a wrong answer, `Model.run` warns `nhc.WrongAnswer` (naming the
    reference answer); report=True says it in the report instead, and the warning can be
    silenced."""
    file = json.loads((MODELS / "copy.json").read_text())
    file["params"] = [0.0] * len(file["params"])
    (tmp_path / "zero.json").write_text(json.dumps(file))
    zero = nhc.load(tmp_path / "zero.json")
    with pytest.warns(nhc.WrongAnswer, match=r"differs from the reference answer \[5, 6, 7\]") as seen:
        out = zero.run([5, 6, 7], domain="decimal")
    assert out != [5, 6, 7] and "report=True" in str(seen[0].message)
    assert issubclass(nhc.WrongAnswer, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert zero.run([5, 6, 7], domain="decimal", report=True)["correct"] is False
        assert model("copy").run([5, 6, 7], domain="decimal") == [5, 6, 7]
        warnings.simplefilter("ignore", nhc.WrongAnswer)
        zero.run([5, 6, 7], domain="decimal")


def test_a_comparison_that_is_no_order_is_named():
    """A comparison that answers one pair two ways is no total order: the sort says so and names
    the pair, instead of returning a list that is not a permutation of its input."""
    rng = random.Random(3)
    with pytest.raises(ValueError, match=r"compare is not a consistent order: compare\(\d+, \d+\) answered"):
        model("sort").run(list(range(20)), compare=lambda a, b: rng.choice([-1, 1]))
    with pytest.raises(ValueError, match=r"compare\(7, 7\) answered 1, not 0"):
        model("sort").run([7, 3, 7], compare=lambda a, b: (a > b) - (a < b) or 1)
    assert model("sort").run([3, 1, 2], compare=lambda a, b: a - b) == [1, 2, 3]


def test_trace_columns_are_one_dimensional_and_per_step():
    m = model("sort")
    t = m.trace([3, 1, 2])
    steps = m.run([3, 1, 2], report=True)["steps"]
    assert all(v.ndim == 1 and len(v) == steps for v in t.values())
    assert list(t["step"]) == list(range(steps))
    assert set(t["op"][3:]) <= {"C", "S", "O"} and t["correct"][t["scored"]].all()
    assert t["read1_location"].dtype == np.int64 and t["write1_word0"].dtype == np.float32
    sampled = m.trace(level=5, seed=2, index=1)
    assert len(sampled["step"]) > 0


# The user's own data modules


@dataclass
class Record:
    name: str
    age: int


def test_sort_of_300_python_objects_through_a_python_comparison():
    rng = random.Random(1)
    people = [Record(f"p{i}", rng.randrange(90)) for i in range(300)]
    compare = lambda a, b: a.age - b.age  # noqa: E731
    out = model("sort").run(people, compare=compare)
    assert out == sorted(people, key=lambda p: p.age)  # stable, like the learned sort
    assert all(x is y for x, y in zip(out, sorted(people, key=lambda p: p.age)))


def test_sort_of_version_strings():
    versions = ["1.10.0", "1.2.0", "0.9.12", "1.2.10", "1.2.9", "10.0", "2.0.0rc1"[:3]]

    def key(v):
        return tuple(int(x) for x in v.split("."))

    def compare(a, b):
        return (key(a) > key(b)) - (key(a) < key(b))

    assert model("sort").run(versions, compare=compare) == sorted(versions, key=key)


def test_evaluate_with_a_python_sampler_and_reference():
    order = nhc.Order(
        lambda a, b: (a > b) - (a < b),
        sampler=lambda level, rng: [rng.random() for _ in range(level + 1)],
        reference=sorted,
    )
    report = model("sort").evaluate(30, 10, seed=4, domain=order)
    assert (report["domain"], report["solved"], report["samples"]) == ("python", 10, 10)


def test_a_python_order_of_integers_evaluates_and_runs_as_the_bytes_domain():
    # The same samples (drawn by `nhc.sample`, which `evaluate` draws too, one after another) under
    # the same order give the same report. Zero is left out: the empty word (the walker past the
    # list) equals 0 among bytes and is below every Python object.
    m = model("sort")
    level, count = 50, 8
    seed = next(s for s in range(100)
                if all(0 not in nhc.sample("sort", level, seed=s, index=i)[0] for i in range(count)))
    drawn = iter([nhc.sample("sort", level, seed=seed, index=i)[0] for i in range(count)])
    order = nhc.Order(lambda a, b: a - b, sampler=lambda level, rng: next(drawn), reference=sorted)
    python = m.evaluate(level, count, seed=seed, domain=order)
    builtin = m.evaluate(level, count, seed=seed)
    for key in ["task", "variant", "level", "seed", "samples", "solved", "steps", "mean_fitness", "failed"]:
        assert python[key] == builtin[key], key
    assert (python["domain"], builtin["domain"]) == ("python", "bytes")
    rng = random.Random(5)
    xs = [rng.randrange(1, 256) for _ in range(301)]
    assert m.run(xs, compare=lambda a, b: a - b, report=True) == m.run(xs, report=True)


def bfs_distance(start, goal):
    """Shortest number of moves, by a plain breadth-first search."""
    seen, queue = {start}, deque([(start, 0)])
    while queue:
        s, d = queue.popleft()
        if s == goal:
            return d
        for a in MOVES:
            n = step(s, a)
            if n not in seen:
                seen.add(n)
                queue.append((n, d + 1))
    return None


@pytest.mark.parametrize("name", ["plan", "plan+"])
def test_plan_in_a_python_maze_replays_in_the_tests_simulator(name):
    m = model(name)
    for start, goal in [((1, 1), (3, 5)), ((5, 7), (1, 3)), ((3, 3), (1, 1))]:
        assert start in CELLS and goal in CELLS
        if name == "plan" and bfs_distance(start, goal) > 6:
            continue  # plan expands every action: 4^d nodes
        plan = m.plan(start, goal, actions=list(MOVES), apply=step)
        s = start
        for a in plan:
            s = step(s, a)
        assert s == goal
        assert len(plan) == bfs_distance(start, goal)


def test_search_in_a_python_world_finds_the_goal():
    r = model("search+").search((1, 1), (5, 7), actions=list(MOVES), apply=step, report=True)
    assert r["output"]["found"] and r["correct"]


def test_evaluate_in_a_python_world():
    world = nhc.World(list(MOVES), step, random_state=lambda rng: (5, rng.randrange(1, 8)))
    report = model("plan+").evaluate(5, 10, domain=world)
    assert report["solved"] == 10


def test_a_world_that_gives_no_problem_is_refused_not_waited_for():
    # Actions that change nothing: no state beyond the start, at any level.
    still = nhc.World(list(MOVES), lambda s, a: s, random_state=lambda rng: (5, rng.randrange(1, 8)))
    with pytest.raises(ValueError, match="gave no problem of level 3"):
        model("plan").evaluate(3, 2, domain=still)

    def broken(rng):
        raise RuntimeError("no states today")

    world = nhc.World(list(MOVES), step, random_state=broken)
    with pytest.raises(RuntimeError, match="no states today"):
        model("plan").evaluate(3, 2, domain=world)


def test_hanoi_with_two_discs():
    # State: peg of the small and of the large disc. Actions move the top disc of a peg pair.
    moves = [(0, 1), (1, 2), (2, 0), (0, 2)]

    def apply(state, move):
        small, large = state
        a, b = move
        if small == a:
            return (b, large)
        if large == a and small != a and small != b:
            return (small, b)
        return state

    plan = model("plan+").plan((0, 0), (2, 2), actions=moves, apply=apply)
    s = (0, 0)
    for m in plan:
        s = apply(s, m)
    assert s == (2, 2) and len(plan) == 3


# Errors


def test_a_callback_error_reaches_the_caller_with_its_step():
    xs = list(range(40, 0, -1))
    calls = []

    def counting(a, b):
        calls.append(1)
        return a - b

    model("sort").run(xs, compare=counting)
    prepare = len(xs) * (len(xs) + 1)  # at least the expected trace's and reference's calls
    seen = []

    def failing(a, b):
        seen.append(1)
        if len(seen) > len(calls) - 50:
            raise KeyError("late")
        return a - b

    with pytest.raises(KeyError) as e:
        model("sort").run(xs, compare=failing)
    assert len(calls) > prepare // 2
    assert any("at model step" in n for n in e.value.__notes__)


def test_wrong_return_types_are_type_errors():
    with pytest.raises(TypeError, match="compare"):
        model("sort").run([3, 1, 2], compare=lambda a, b: "less")
    with pytest.raises(TypeError, match="equal"):
        model("plan").plan((1, 1), (1, 3), actions=list(MOVES), apply=step, equal=lambda a, b: 1)
    with pytest.raises(TypeError):
        model("plan").plan((1, 1), (1, 3), actions=list(MOVES), apply=42)


def test_values_that_contain_themselves_or_nest_too_deep_are_value_errors():
    """A list or dict that contains itself, or one nested 10 000 deep, is a ValueError that names
    the depth: never a stack overflow of the interpreter."""
    a = []
    a.append(a)
    d = {}
    d["a"] = d
    deep = []
    for _ in range(10_000):
        deep = [deep]
    for value in [a, d, deep]:
        with pytest.raises(ValueError, match="nested more than 100 deep"):
            model("copy").run(value)
    with pytest.raises(ValueError, match="nested more than 100 deep"):
        model("repeatCopy").run(d)
    with pytest.raises(ValueError, match="nested more than 100 deep"):
        nhc.train("copy", 1, config={"batch": a})


def test_an_input_file_too_large_for_the_limit_is_refused_before_it_is_read(nhc_bin, tmp_path):
    """`--input @FILE` whose text and parsed JSON would exceed `--max-memory` is refused from the
    file's size: the process's peak (its maximum resident set, measured by a fresh interpreter
    that runs only it) stays under the limit, for drawn files of copy objects and of numbers."""
    rng = random.Random(65)
    limit = 64 << 20
    measure = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, r.stderr.strip())")
    for k in range(3):
        n = rng.randrange(300_000, 1_000_000)
        items = [[rng.randrange(2) for _ in range(6)] for _ in range(n)] if k % 2 == 0 else [rng.randrange(10) for _ in range(3 * n)]
        task = "copy" if k % 2 == 0 else "sort"
        path = tmp_path / f"in{k}.json"
        path.write_text(json.dumps(items, separators=(",", ":")))
        assert path.stat().st_size * 34 > limit
        cmd = [nhc_bin, "--max-memory", str(limit), "run", "--task", task, "--model", MODELS / f"{task}.json", "--input", f"@{path}"]
        out = subprocess.run([sys.executable, "-c", measure, *map(str, cmd)], capture_output=True, text=True, check=True).stdout
        code, peak, err = out.split(" ", 2)
        assert code == "1" and err.startswith("error: reading input file") and "more than the memory limit" in err, out
        assert int(peak) < limit, (n, int(peak) >> 20)


def test_the_memory_estimate_of_a_run_bounds_its_peak(nhc_bin, tmp_path):
    """`nhc run` and `nhc trace` on a user's input refuse it from an estimate that bounds the
    process's real peak (its maximum resident set, measured by a fresh interpreter that runs only
    it, less that of a run of one object): for drawn repeatCopy inputs, whose answers are `copies` times their input, and copy
    inputs, the command refused under a limit that holds the file names its estimate, and under that
    estimate it runs and peaks below it."""
    rng = random.Random(651)
    measure = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, r.stderr.strip())")
    cases = [("repeatCopy", rng.randrange(1, 400), rng.randrange(200, 1200), "run"),
             ("repeatCopy", rng.randrange(2000, 20000), rng.randrange(2, 20), "run"),
             ("repeatCopy", 1, rng.randrange(100_000, 300_000), "run"),
             ("repeatCopy", rng.randrange(50, 200), rng.randrange(50, 200), "trace"),
             ("copy", rng.randrange(50_000, 150_000), 1, "run"),
             ("copy", rng.randrange(20_000, 50_000), 1, "trace")]
    def peak(cmd):
        out = subprocess.run([sys.executable, "-c", measure, nhc_bin, *cmd], capture_output=True, text=True, check=True).stdout
        code, peak, err = out.split(" ", 2)
        assert code == "0", (cmd, err)
        return int(peak)

    # The process itself (code, runtime, the model) beside what a run holds.
    base = peak(["run", "--task", "copy", "--model", str(MODELS / "copy.json"), "--input", "[[1,0,0,0,0,0]]"])
    for k, (task, n, copies, command) in enumerate(cases):
        items = [[rng.randrange(2) for _ in range(6)] for _ in range(n)]
        path = tmp_path / f"in{k}.json"
        path.write_text(json.dumps({"items": items, "copies": copies} if task == "repeatCopy" else items))
        cmd = [command, "--task", task, "--model", str(MODELS / f"{task}.json"), "--input", f"@{path}"]
        readable = path.stat().st_size * 34 + (1 << 20)  # reading the file fits, its run does not
        refused = subprocess.run([nhc_bin, "--max-memory", str(readable), *cmd], capture_output=True, text=True)
        need = re.search(r"\((\d+) steps of about (\d+) bytes\)", refused.stderr)
        assert refused.returncode == 1 and need, refused.stderr
        estimate = int(need[1]) * int(need[2])
        limit = estimate + (1 << 20)
        used = peak(["--max-memory", str(limit), *cmd]) - base
        assert used < estimate, (task, n, copies, command, used >> 20, estimate >> 20)


def test_work_past_an_hour_asks_for_confirm():
    """Work that would take more than an hour at the speed measured here is refused with its
    estimate and `confirm=True` named, as the command line's `--yes`: an evaluation of 10⁶ samples
    of level 10⁶, a verification of every list to 300 000 objects, a run of a config that learns
    once a level in about a day; small work runs unasked."""
    copy = model("copy")
    with pytest.raises(ValueError, match=r"model steps, about .* measured here: more than an hour; pass confirm=True"):
        copy.evaluate(1_000_000, 1_000_000)
    with pytest.raises(ValueError, match=r"pass confirm=True"):
        copy.verify(up_to=300_000)
    with pytest.raises(ValueError, match=r"a run of this config .* pass confirm=True"):
        nhc.train("copy", 1, config={"population": 1000, "batch": 40000, "perfect_to_solve": 100000})
    assert copy.evaluate(10, 5, confirm=True)["solved"] == 5
    assert copy.verify(up_to=20)["outcome"] == "verified"


def test_the_memory_limit_is_set_from_python_and_named_in_its_refusals():
    """`nhc.set_max_memory` is `nhc --max-memory`: work beyond it is refused before it starts,
    and the refusal says how to raise it from Python."""
    try:
        assert nhc.set_max_memory("1M") == 1 << 20
        with pytest.raises(ValueError, match=r"more than the memory limit of .*set it with nhc\.set_max_memory"):
            model("sort").evaluate(10_000, 1)
        for bad, error in [(0, ValueError), ("lots", ValueError), (-1, TypeError), (1.5, TypeError)]:
            with pytest.raises(error):
                nhc.set_max_memory(bad)
    finally:
        default = nhc.set_max_memory(None)
    assert default > 1 << 20
    assert model("sort").evaluate(20, 2)["samples"] == 2


def test_bad_requests_raise_python_exceptions(tmp_path):
    with pytest.raises(FileNotFoundError):
        nhc.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(nhc.ModelError):
        nhc.load(bad)
    with pytest.raises(ValueError, match="level"):
        model("sort").evaluate(0, 5)
    with pytest.raises(ValueError, match="unknown task"):
        nhc.sample("sorting", 3)
    with pytest.raises(ValueError, match="domain"):
        model("sort").run([1], domain="colours")
    with pytest.raises(ValueError):
        model("sort").run([1, 300])
    with pytest.raises(ValueError, match="four|4"):
        model("plan").plan((1, 1), (1, 3), actions=["N", "E"], apply=step)
    with pytest.raises(ValueError, match="cannot be reached"):
        model("plan+").plan((1, 1), (0, 0), actions=list(MOVES), apply=step)
    with pytest.raises(ValueError, match="sort"):
        model("copy").run([[0, 1]], compare=lambda a, b: 0)
    with pytest.raises(ValueError, match="unknown field"):
        nhc.train("copy", 1, config={"batchsize": 3})
    # A config field of the wrong kind, or a setting without effect, names its cause.
    for config, cause in [({"batch": 2**70}, "batch = 1180591620717411303424 is out of range: at most 100000"),
                          ({"on_failed_check": 1}, "on_failed_check must be `restart` or `relearn`, got 1"),
                          ({"on_failed_check": "relearn"}, "on_failed_check has no effect without the generalization check"),
                          ({"check_any_shape": True}, "check_any_shape has no effect without"),
                          ({"check_level": 5}, "check_level must be beyond the curriculum")]:
        with pytest.raises(ValueError, match=re.escape(cause)):
            nhc.train("copy", 1, config=config)


# Training


def test_training_copy_seed_2_gives_the_theta_of_nhc_train(tmp_path, nhc_bin):
    subprocess.run([nhc_bin, "train", "--task", "copy", "--seed", "2", "--out", tmp_path / "cli", "--quiet"],
                   check=True, capture_output=True)
    cli = np.array(json.loads((tmp_path / "cli" / "model.json").read_text())["params"], dtype=np.float32)
    records = []
    m = nhc.train("copy", 2, callback=records.append)
    assert np.array_equal(m.params, cli)
    assert records[-1]["iteration"] == len(records) == m.meta["iterations"]
    assert (records[-1]["advance"], m.meta["outcome"]) == ("finished", "solved")
    # The records are the lines of metrics.jsonl: the same keys, the same values but wall time.
    lines = [json.loads(line) for line in (tmp_path / "cli" / "metrics.jsonl").read_text().splitlines()]
    assert [list(r) for r in records] == [list(line) for line in lines]
    untimed = lambda rs: [{k: v for k, v in r.items() if k != "wall_seconds"} for r in rs]
    assert untimed(records) == untimed(lines)
    assert m.evaluate(1000, 20)["solved"] == 20


def test_an_interrupted_run_resumes_to_the_same_theta(tmp_path):
    config = {"max_iterations": 300}
    whole = nhc.train("copy", 4, config=config)

    def stop_at_50(record):
        if record["iteration"] == 50:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as e:
        nhc.train("copy", 4, config=config, out=tmp_path, callback=stop_at_50)
    assert any("nhc.resume" in n for n in e.value.__notes__)
    assert (tmp_path / "checkpoint.json").exists() and not (tmp_path / "model.json").exists()
    resumed = nhc.resume(tmp_path)
    assert np.array_equal(resumed.params, whole.params)


def python_handles_ctrl_c():
    """Python's own SIGINT handler, which a shell that starts these tests in the background
    replaces with "ignore" (POSIX, for commands run asynchronously without job control)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def test_ctrl_c_stops_training_between_iterations(tmp_path):
    python_handles_ctrl_c()
    seen = []
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        nhc.train("copy", 1, out=tmp_path, callback=seen.append)
    timer.cancel()
    assert 0 < len(seen) < 29301 and (tmp_path / "checkpoint.json").exists()
    checkpoint = json.loads((tmp_path / "checkpoint.json").read_text())
    assert checkpoint["state"]["iteration"] == seen[-1]["iteration"]


def untimed_line(line):
    """A sweep line without what differs between two runs of the same sweep: wall times, the directory."""
    line = json.loads(json.dumps(line))
    del line["dir"]
    for key in ("wall_seconds", "steps_per_second"):
        del line["summary"][key]
    for report in line["eval"].values():
        del report["seconds"]
    return line


def test_a_sweep_gives_the_lines_of_nhc_sweep(tmp_path, nhc_bin):
    config = {"levels": 2, "perfect_to_solve": 20, "perfect_to_solve_after_learning": 20, "max_iterations": 300}
    (tmp_path / "quick.toml").write_text("".join(f"{k} = {v}\n" for k, v in config.items()))
    subprocess.run(
        [nhc_bin, "sweep", "--tasks", "copy,reverse", "--runs", "2", "--levels", "5,20", "--samples", "10",
         "--config", tmp_path / "quick.toml", "--jobs", "2", "--out", tmp_path / "cli"],
        check=True, capture_output=True,
    )
    cli = [json.loads(line) for line in (tmp_path / "cli" / "sweep.jsonl").read_text().splitlines()]
    seen = []
    lines = nhc.sweep(["copy", "reverse"], tmp_path / "py", runs=2, config=config, jobs=1, levels=[5, 20],
                      samples=10, callback=seen.append)
    assert [untimed_line(x) for x in lines] == [untimed_line(x) for x in cli]
    assert [(x["summary"]["task"], x["summary"]["seed"]) for x in lines] == [
        ("copy", 1), ("copy", 2), ("reverse", 1), ("reverse", 2)]
    assert sorted(x["dir"] for x in seen) == sorted(x["dir"] for x in lines)
    # Its sweep.jsonl holds the lines returned; a second call trains and evaluates nothing.
    written = [json.loads(line) for line in (tmp_path / "py" / "sweep.jsonl").read_text().splitlines()]
    assert written == lines
    metrics = (tmp_path / "py" / "copy-1" / "metrics.jsonl").read_bytes()
    assert nhc.sweep("copy", tmp_path / "py", runs=2, config=config, levels=[5, 20], samples=10) == lines[:2]
    assert (tmp_path / "py" / "copy-1" / "metrics.jsonl").read_bytes() == metrics
    with pytest.raises(ValueError, match="unknown task"):
        nhc.sweep("nope", tmp_path / "py")
    with pytest.raises(ValueError, match="samples"):
        nhc.sweep("copy", tmp_path / "py", samples=0)


def test_a_sweep_takes_a_seed_range(tmp_path):
    """seeds=range(3, 5) trains seeds 3 and 4 as runs=4 does; a string and one seed work alike;
    runs and seeds both, and ranges that cannot be, are refused in one line."""
    args = {"config": {"levels": 2, "perfect_to_solve": 20, "perfect_to_solve_after_learning": 20,
                       "max_iterations": 300}, "jobs": 2, "levels": [5], "samples": 5}
    lines = nhc.sweep("copy", tmp_path / "range", seeds=range(3, 5), **args)
    assert [x["summary"]["seed"] for x in lines] == [3, 4] and all(x["seeds"] == "3-4" for x in lines)
    assert sorted(p.name for p in (tmp_path / "range").iterdir() if p.is_dir()) == ["copy-3", "copy-4"]
    four = nhc.sweep("copy", tmp_path / "four", runs=4, **args)
    assert all(x["seeds"] == "1-4" for x in four)
    assert [untimed_line(x)["summary"] for x in lines] == [untimed_line(x)["summary"] for x in four[2:]]
    # The same runs, asked for as a string: nothing trains again.
    assert [x["summary"] for x in nhc.sweep("copy", tmp_path / "range", seeds="3-4", **args)] == [
        x["summary"] for x in lines]
    assert [x["summary"]["seed"] for x in nhc.sweep("copy", tmp_path / "range", seeds=4, **args)] == [4]
    for seeds, message in [(range(5, 3), "is empty"), (range(1, 9, 2), "step 1"), ("5-3", "runs backwards"),
                           ("a-b", "not a seed range"), (range(-1, 3), "0..="), (-1, "0..=")]:
        with pytest.raises(ValueError, match=message) as e:
            nhc.sweep("copy", tmp_path / "refused", seeds=seeds)
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match=r"^give runs or seeds, not both \(runs=2 is seeds=range\(1, 3\)\)$"):
        nhc.sweep("copy", tmp_path / "refused", runs=2, seeds=range(1, 3))
    with pytest.raises(TypeError, match="seeds must be"):
        nhc.sweep("copy", tmp_path / "refused", seeds=[1, 2])
    assert not (tmp_path / "refused").exists()


def test_ctrl_c_stops_a_sweep_and_the_same_call_continues_it(tmp_path):
    python_handles_ctrl_c()
    args = {"runs": 2, "config": {"max_iterations": 1500}, "jobs": 2, "levels": [5], "samples": 5}
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        nhc.sweep("copy", tmp_path / "stopped", **args)
    timer.cancel()
    assert any("the same call continues it" in n for n in e.value.__notes__)
    assert (tmp_path / "stopped" / "copy-1" / "checkpoint.json").exists()
    assert not (tmp_path / "stopped" / "sweep.jsonl").exists()
    resumed = nhc.sweep("copy", tmp_path / "stopped", **args)
    whole = nhc.sweep("copy", tmp_path / "whole", **args)
    assert [untimed_line(x) for x in resumed] == [untimed_line(x) for x in whole]


def test_recipe_trains_as_nhc_train_recipe(tmp_path, nhc_bin):
    """recipe=True is `nhc train --recipe`: the same checkpoint config; a dict changes fields of
    the recipe, a config file with the recipe is refused."""
    nhc.train("copy", 1, config={"max_iterations": 2}, recipe=True, out=tmp_path / "py")
    cli = tmp_path / "cli"
    r = subprocess.run([nhc_bin, "train", "--task", "copy", "--recipe", "--max-iterations", "2", "--out", cli,
                        "--quiet"], capture_output=True)
    assert r.returncode == 4, r.stderr  # 2 iterations do not learn copy
    configs = [json.loads((d / "checkpoint.json").read_text())["state"]["config"] for d in [tmp_path / "py", cli]]
    assert configs[0] == configs[1]
    assert (configs[0]["check_level"], configs[0]["on_failed_check"]) == (99, "relearn")
    with pytest.raises(ValueError, match="not both"):
        nhc.train("copy", 1, config=tmp_path / "x.toml", recipe=True)
    with pytest.raises(ValueError, match="unknown field"):
        nhc.train("copy", 1, config={"bogus": 1}, recipe=True)


def test_training_releases_the_gil():
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    t = threading.Thread(target=tick)
    t.start()
    nhc.train("copy", 2, config={"max_iterations": 400})
    done.set()
    t.join()
    assert len(ticks) > 10


def test_callback_errors_name_the_iteration():
    def fail(record):
        if record["iteration"] == 3:
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError) as e:
        nhc.train("copy", 2, callback=fail)
    assert any("iteration 3" in n for n in e.value.__notes__)


def test_help_reads_well():
    assert "bit-identical" in nhc.__doc__
    for f in [nhc.train, nhc.load, nhc.Model.run, nhc.Model.plan, nhc.Model.trace, nhc.Order, nhc.World]:
        assert f.__doc__ and len(f.__doc__) > 40, f
    assert functools  # imported for the comparisons above


def test_every_model_variant_is_in_the_type_hints_and_the_docstrings():
    """The variants of the Rust core (|θ| per variant in `nhc.tasks()`) are those the type hints
    and the docstrings of `train` and `sweep` name, so a new variant cannot go missing there."""
    variants = list(nhc.tasks()[0]["params"])
    hints = (ROOT / "python" / "nhc" / "__init__.pyi").read_text()
    alias = next(line for line in hints.splitlines() if line.startswith("Variant = Literal["))
    named = [v.strip().strip('"') for v in alias.removeprefix("Variant = Literal[").removesuffix("]").split(",")]
    assert sorted(named) == sorted(variants)
    for name, doc in [("train", nhc.train.__doc__), ("sweep", nhc.sweep.__doc__),
                      ("Model.variant", nhc.Model.variant.__doc__)]:
        for v in variants:
            assert v in (doc or ""), f"{name}'s docstring lacks {v}"
