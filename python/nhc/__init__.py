"""The Neural Harvard Computer (NHC) from Python, on the Rust core of the `nhc` command.

Models and tasks: `tasks()`, `load(path)`, `scripted(task)`, `sample(task, level)`, and the
`Model` class (`run`, `evaluate`, `trace`, `plan`, `search`, `save`, `params`).
Training: `train(task, seed, ...)` and `resume(out)`, bit-identical to `nhc train`; `sweep(tasks,
out, ...)`, many runs each evaluated at the test levels, as `nhc sweep`.
The user's own data modules: `Order` (sort with a Python comparison) and `World` (search and
plan in a Python world).
Errors: `ValueError` for bad requests, `FileNotFoundError`, `ModelError` for a model file that
does not load.
"""

from ._nhc import Model, ModelError, Order, World, load, resume, sample, scripted, sweep, tasks, train

__all__ = [
    "Model",
    "ModelError",
    "Order",
    "World",
    "load",
    "resume",
    "sample",
    "scripted",
    "sweep",
    "tasks",
    "train",
]
