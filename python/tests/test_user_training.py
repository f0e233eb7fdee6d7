"""The built-in algorithms trained on the user's own data modules: sort on an `nhc.Order`, search
and plan in an `nhc.World`, by the trainer of `nhc train` (`nhc.train(task, seed, domain=...)`),
checked against independent references written here (`sorted`, a maze simulator).

Sort on an Order of the integers 0..255 does not train to the θ of `nhc.train("sort", seed)`: the
Order's sampler draws from a `random.Random` seeded by the core's generator, where the bytes
domain draws its bytes from the core's generator itself, so the samples differ; and the empty word
(the walker past the list) is 0 among bytes but below every object of an Order, so
`compare(0, empty)` differs too. The tests check instead that a run on the Order levels up to the
end of its curriculum and that the model then sorts the Order's objects at level 20."""

import json
import os
import random
import signal
import threading
from pathlib import Path

import numpy as np
import pytest

import nhc
from maze import CELLS, MOVES, step

ROOT = Path(__file__).resolve().parents[2]

# Short runs that still level up: a level is solved after 20 perfect iterations.
QUICK = {"perfect_to_solve": 20, "perfect_to_solve_after_learning": 20}


def byte_order(**changes):
    """The integers 0..255 under <=, as the user would write them."""
    parts = dict(compare=lambda a, b: a - b, sampler=lambda level, rng: [rng.randrange(256) for _ in range(level + 1)])
    return nhc.Order(**{**parts, **changes})


def test_sort_learned_on_a_python_order_sorts_its_objects(tmp_path):
    order = byte_order()
    log = []
    # Seed 1 on this Order solves the whole curriculum in about 2 000 iterations.
    model = nhc.train("sort", 1, config={**QUICK, "max_iterations": 2500}, domain=order, callback=log.append)
    levels = [r["level"] for r in log]
    assert levels[0] == 1 and max(levels) == 11 and model.meta["outcome"] == "solved"
    assert (model.task, model.domain) == ("sort", "python")
    report = model.evaluate(20, 20, seed=1000)  # on the Order it was trained on
    assert (report["domain"], report["solved"]) == ("python", 20)
    rng = random.Random(9)
    xs = [rng.randrange(256) for _ in range(21)]
    assert model.run(xs) == sorted(xs)
    # The model file names the algorithm and the user's domain; it loads as any sort model,
    # runs on the built-in domains by default, and on an Order when given one.
    model.save(tmp_path / "sort.json")
    saved = json.loads((tmp_path / "sort.json").read_text())
    assert (saved["algorithm"], saved["domain"], saved.get("digest")) == ("sort", "python", None)
    loaded = nhc.load(tmp_path / "sort.json")
    assert (loaded.task, loaded.domain) == ("sort", "python")
    assert np.array_equal(loaded.params, model.params)
    untimed = lambda r: {k: v for k, v in r.items() if k != "seconds"}
    assert untimed(loaded.evaluate(20, 20, seed=1000, domain=order)) == untimed(report)
    assert loaded.evaluate(20, 10, seed=1000)["domain"] == "bytes"
    assert loaded.run(xs, compare=lambda a, b: a - b) == sorted(xs)
    loaded.save(tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["domain"] == "python"


def maze():
    return nhc.World(list(MOVES), step, random_state=lambda rng: rng.choice(CELLS))


def test_training_in_a_python_world_resumes_there(tmp_path):
    config = {**QUICK, "max_iterations": 150}
    whole = nhc.train("plan+", 3, config=config, domain=maze())

    def stop_at_60(record):
        if record["iteration"] == 60:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as e:
        nhc.train("plan+", 3, config=config, out=tmp_path, domain=maze(), callback=stop_at_60)
    assert any("nhc.resume" in n and "domain=" in n for n in e.value.__notes__)
    assert json.loads((tmp_path / "checkpoint.json").read_text())["state"]["domain"] == "python"
    with pytest.raises(ValueError, match="pass them"):
        nhc.resume(tmp_path)  # the checkpoint names the domain, not its Python functions
    resumed = nhc.resume(tmp_path, domain=maze())
    assert np.array_equal(resumed.params, whole.params)
    assert json.loads((tmp_path / "model.json").read_text())["domain"] == "python"
    assert resumed.domain == "python"
    # It plans in the world it was trained in without being given it again.
    plan = resumed.plan((1, 1), (1, 3))
    assert plan == resumed.plan((1, 1), (1, 3), world=maze())
    assert all(a in MOVES or a is None for a in plan)
    nhc.train("copy", 1, config={"max_iterations": 5}, out=tmp_path / "copy")
    with pytest.raises(ValueError, match="not on the user's data modules"):
        nhc.resume(tmp_path / "copy", domain=maze())


# A comparison that fails while FAILING["on"]: a function depending on something outside it.
FAILING = {"on": False}


def fragile_compare(a, b):
    if FAILING["on"]:
        raise KeyError("the comparison service is down")
    return a - b


def test_a_failing_user_function_stops_training_at_the_last_checkpoint(tmp_path):
    config = {**QUICK, "max_iterations": 200}
    order = byte_order(compare=fragile_compare)

    def break_at_40(record):
        if record["iteration"] == 40:
            FAILING["on"] = True

    try:
        with pytest.raises(KeyError, match="service is down") as e:
            nhc.train("sort", 2, config=config, out=tmp_path, domain=order, callback=break_at_40)
    finally:
        FAILING["on"] = False
    assert any(entry.name == "fragile_compare" for entry in e.traceback)  # the user's own frame
    notes = "\n".join(e.value.__notes__)
    assert "raised in `compare`" in notes and "nhc.resume(" in notes and "domain=" in notes
    checkpoint = json.loads((tmp_path / "checkpoint.json").read_text())
    assert checkpoint["state"]["iteration"] <= 40 and not (tmp_path / "model.json").exists()
    resumed = nhc.resume(tmp_path, domain=order)
    whole = nhc.train("sort", 2, config=config, domain=byte_order(compare=fragile_compare))
    assert np.array_equal(resumed.params, whole.params)


def test_ctrl_c_stops_training_on_a_python_order_at_a_checkpoint(tmp_path):
    # The run holds the GIL on a thread of its own; the main thread still sees Ctrl-C.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    seen = []
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        nhc.train("sort", 1, out=tmp_path, domain=byte_order(), callback=seen.append)
    timer.cancel()
    assert any("nhc.resume" in n and "domain=" in n for n in e.value.__notes__)
    checkpoint = json.loads((tmp_path / "checkpoint.json").read_text())
    assert 0 < len(seen) and checkpoint["state"]["iteration"] == seen[-1]["iteration"]


def test_training_on_a_domain_refuses_what_cannot_train():
    no_sampler = nhc.Order(lambda a, b: a - b)
    with pytest.raises(ValueError, match="needs its sampler"):
        nhc.train("sort", 1, domain=no_sampler)
    with pytest.raises(ValueError, match="needs its random_state"):
        nhc.train("plan", 1, domain=nhc.World(list(MOVES), step))
    with pytest.raises(ValueError, match="drives the sort algorithm, not `plan`"):
        nhc.train("plan", 1, domain=byte_order())
    with pytest.raises(TypeError, match="domain must be"):
        nhc.train("sort", 1, domain=42)
    with pytest.raises(ValueError, match="unknown domain|domain"):
        nhc.train("sort", 1, domain="sokoban6")
    with pytest.raises(TypeError, match="nhc.Order or an nhc.World"):
        nhc.resume(ROOT, domain="bytes")
    model = nhc.train("sort", 1, config={"max_iterations": 5}, domain="strings")
    assert model.domain == "strings" and model.evaluate(3, 2)["domain"] == "strings"
