"""The Neural Harvard Computer (NHC) from Python, on the Rust core of the `nhc` command.

Models and tasks: `tasks()`, `load(path)`, `scripted(task)`, `sample(task, level)`, and the
`Model` class (`run`, `evaluate`, `trace`, `verify`, `plan`, `search`, `save`, `params`);
`verify(model, up_to)`: every control-distinct input up to a bound, or the smallest
counterexample.
Training: `train(task, seed, ...)` and `resume(out)`, bit-identical to `nhc train`; `sweep(tasks,
out, ...)`, many runs each evaluated at the test levels, as `nhc sweep`.
The user's own data modules: `Order` (sort with a Python comparison) and `World` (search and
plan in a Python world); `train(task, seed, domain=...)` trains a built-in algorithm on them.
An algorithm of one's own: `Algorithm` (its operations, sampler, Input, program and reference in
Python), `check(algorithm)`, then `train(algorithm, seed)`, `sweep([algorithm, ...], out)`,
`sample(algorithm, level)` and `load(path, algorithm=...)`; `Rng` is the generator its sampler
draws from. `python -m nhc` trains, resumes, evaluates and
checks one from the command line.
`set_max_memory(size)`: the memory a run may take (`nhc --max-memory`).
Errors: `ValueError` for bad requests, `FileNotFoundError`, `ModelError` for a model file that
does not load; the warning `WrongAnswer` when `Model.run` (or `plan`, `search`) answers otherwise
than the reference.
"""

from ._nhc import (Model, ModelError, Order, Rng, World, WrongAnswer, load, resume, sample, scripted, set_max_memory,
                   sweep, tasks, train)
from .algorithm import Algorithm, check


def verify(model: Model, up_to=None, domain=None, beyond=1000, every_length=False, confirm=False):
    """`model.verify(up_to, domain, beyond, every_length)`: the model on every control-distinct
    input up to a bound, then on samples beyond it up to size `beyond` (0: none), as `nhc verify`
    (docs/VERIFICATION.md, "Verification"); with `every_length`, also the proof for every length
    (`nhc verify --every-length`, "Every length")."""
    return model.verify(up_to=up_to, domain=domain, beyond=beyond, every_length=every_length, confirm=confirm)


__all__ = [
    "Algorithm",
    "Model",
    "ModelError",
    "Order",
    "Rng",
    "World",
    "WrongAnswer",
    "check",
    "load",
    "resume",
    "sample",
    "scripted",
    "set_max_memory",
    "sweep",
    "tasks",
    "train",
    "verify",
]
