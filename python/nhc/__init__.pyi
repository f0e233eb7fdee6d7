"""Type hints of the `nhc` package (the functions are implemented in Rust, `nhc._nhc`)."""

from collections.abc import Callable, Hashable, Sequence
from os import PathLike
from random import Random
from typing import Any, Literal, NotRequired, TypedDict, TypeVar

import numpy as np
import numpy.typing as npt

from .algorithm import Algorithm as Algorithm
from .algorithm import check as check

_T = TypeVar("_T")

class ModelError(Exception):
    """A model file that does not load: malformed, of another format, or not a model of the task."""

class WrongAnswer(UserWarning):
    """The model's answer differs from the reference answer (warned by Model.run, plan and search unless report=True)."""

class TaskInfo(TypedDict):
    name: str
    domains: list[str]
    ops: list[str]
    params: dict[str, int]

class EvalReport(TypedDict):
    task: str
    domain: str
    variant: str  # a learned model's variant, or "scripted"
    level: int
    seed: int
    samples: int
    solved: int
    steps: int
    mean_fitness: float
    seconds: float
    failed: list[int]

class WrongStep(TypedDict):
    step: int
    phase: str
    expected_op: str | None
    op: str
    expected_reads: list[str | None]
    reads: list[tuple[str, int, str]]  # per read head: mode, location, word read

class Counterexample(TypedDict):
    shape: str
    layer: int
    cell: list[int]
    input: Any  # in the form Model.run takes
    expected: Any
    output: Any
    steps: int
    first_wrong: WrongStep | None

class WrongSample(Counterexample):
    level: int  # nhc trace --level LEVEL --seed SEED --index INDEX replays it
    index: int

class Beyond(TypedDict):
    """Samples beyond a part's bound: prove nothing, show where a verified model drifts."""

    sizes: list[int]  # in the part's `layer` unit, ascending
    levels: list[int]
    samples: list[int]  # per size
    failed: list[int]  # per size
    steps: int
    seed: int
    smallest: WrongSample | None

class VerifyCell(TypedDict):
    at: list[int]
    inputs: int
    failed: int

class VerifyPart(TypedDict):
    what: str
    exhaustive: bool  # False: samples, which prove nothing
    axes: list[str]
    layer: str
    bound: int
    note: str | None
    inputs: int
    steps: int
    failed: int
    right_to: int  # every input of layers 1..right_to is right
    smallest: Counterexample | None
    cells: list[VerifyCell]
    beyond: Beyond | None  # None: off, nothing above the bound, or a counterexample within it

class Regime(TypedDict):
    phase: Literal["input", "output"]
    from_step: str
    period: int
    repeats: str
    modes: str

# repeatCopy: pass `first + period` starts in the state of pass `first` (from 1).
class Cycle(TypedDict):
    first: int
    period: int

class EveryLengthClass(TypedDict):
    residue: int
    from_m: int
    steps: int
    regimes: list[Regime]
    passes: NotRequired[Cycle]

# repeatCopy: the numbers of objects 1..=objects, each run on its own until its passes repeat.
class Below(TypedDict):
    objects: int
    steps: int
    passes: int

class EveryLengthProof(TypedDict):
    modulus: int
    n0: int
    classes: list[EveryLengthClass]
    below: NotRequired[Below]

# The repeating block `nhc verify --every-length` traces: objects each presented `repeats` times,
# steps "from"–"to" (two periods).
EveryLengthRepeatsBlock = TypedDict(
    "EveryLengthRepeatsBlock", {"objects": int, "repeats": int, "phase": str, "from": int, "to": int}
)

class EveryLengthRepeats(TypedDict):
    objects: int
    r0: int
    modulus: int
    steps: int
    block: NotRequired[EveryLengthRepeatsBlock]

# `verify(every_length=True)`: proved (lengths from proof["n0"] by the symbolic run, the others
# listed; repeatCopy: every number of copies, and the numbers of objects below n0 each by a run of
# its own), wrong, or not proved with the reason.
class EveryLength(TypedDict):
    outcome: Literal["proved", "wrong", "not proved"]
    reason: str | None
    proof: EveryLengthProof | None
    seconds: float
    # repeatCopy, duplicated: an input whose run shows two periods of the block that repeats (the
    # passes; the repeats of an object) (`nhc verify --every-length` prints its `nhc trace` command).
    trace_input: NotRequired[Any]
    # duplicated: proved for 1..=objects objects, each at every number of repeats (every sample of
    # levels 1..=objects); r0: the largest r from which a symbolic run covers the rest.
    repeats: NotRequired[EveryLengthRepeats]

class VerifyReport(TypedDict):
    task: str
    domain: str
    variant: str
    outcome: Literal["verified", "counterexample", "sampled", "verified, wrong beyond", "sampled, wrong beyond"]
    parts: list[VerifyPart]
    seconds: float
    every_length: NotRequired[EveryLength]

class RunReport(TypedDict):
    output: Any
    expected: Any
    correct: bool
    steps: int

# The generalization check of an iteration: its samples' lowest and highest level, how many were solved.
CheckLog = TypedDict("CheckLog", {"from": int, "level": int, "samples": int, "solved": int})

class IterationRecord(TypedDict):
    """One iteration: exactly the keys of its line in a run directory's metrics.jsonl."""

    iteration: int
    level: int  # the level the batch was built for (11 = mixed)
    fitness_raw: float
    # What θ's score made the iteration do with θ: updated after a mistake ("mistake"), to widen
    # margins ("margin"; "margin_apart" when not a learning iteration), or left alone ("skip_solved",
    # "skip_max_fitness").
    update: Literal["mistake", "margin", "margin_apart", "skip_solved", "skip_max_fitness"]
    failed: int
    best_offspring: float | None
    offspring_raw: list[float]
    offspring_shaped: list[float]
    # What it did to the curriculum and the lineage.
    advance: Literal["stay", "next_level", "finished", "restart", "failed_check"]
    check: CheckLog | None
    perfect_streak: int  # consecutive perfect iterations on the level (solves it at 750, or 1 500)
    restarts: int
    learning_iterations: int
    steps: int
    wall_seconds: float

class SearchResult(TypedDict):
    found: bool
    expansions: int

StrPath = str | PathLike[str]
Compare = Callable[[Any, Any], float]
# The model variants (the Rust `Variant::ALL`; a test checks that they agree).
Variant = Literal["nhc", "nhc-anc", "nhc-prev", "dnc-is-ha"]

class Order:
    """Sort's data modules in Python: compare(a, b) is negative, zero or positive, like `cmp`;
    sampler(level, rng) draws level + 1 objects for `Model.evaluate` and for training."""

    def __init__(
        self,
        compare: Compare,
        sampler: Callable[[int, Random], Sequence[Any]] | None = None,
        reference: Callable[[list[Any]], Sequence[Any]] | None = None,
    ) -> None: ...

class World:
    """Search's and plan's data modules in Python: four actions, apply, applicable, equal;
    random_state(rng) draws start states for `Model.evaluate` and for training."""

    def __init__(
        self,
        actions: Sequence[Hashable],
        apply: Callable[[Any, Any], Any],
        applicable: Callable[[Any, Any], bool] | None = None,
        equal: Callable[[Any, Any], bool] | None = None,
        random_state: Callable[[Random], Any] | None = None,
    ) -> None: ...

class Rng:
    """The generator a declared algorithm's sampler draws from: the core's own (ChaCha8), lent
    for the call, so that a sample seed gives the same sample everywhere."""

    def __init__(self, seed: int) -> None: ...
    def integers(self, low: int, high: int) -> int:
        """A uniform integer in [low, high), high excluded."""
    def random(self) -> float:
        """A uniform float in [0, 1)."""
    def choice(self, seq: Sequence[_T]) -> _T: ...
    def shuffle(self, items: list[Any]) -> None: ...

class Model:
    """A model of one algorithm: learned θ under a variant, or the scripted solution."""

    @property
    def task(self) -> str: ...
    @property
    def variant(self) -> Variant: ...
    @property
    def domain(self) -> str:
        """The domain the model was trained on ("python": the user's `Order` or `World`)."""
    @property
    def is_scripted(self) -> bool: ...
    @property
    def params(self) -> npt.NDArray[np.float32]: ...
    @property
    def config(self) -> dict[str, Any]: ...
    @property
    def meta(self) -> dict[str, Any] | None: ...
    def save(self, path: StrPath) -> None: ...
    def run(
        self,
        input: Any,
        domain: str | Order | None = None,
        compare: Compare | None = None,
        report: bool = False,
        confirm: bool = False,
    ) -> Any: ...
    def plan(
        self,
        start: Any,
        goal: Any,
        actions: Sequence[Hashable] | None = None,
        apply: Callable[[Any, Any], Any] | None = None,
        applicable: Callable[[Any, Any], bool] | None = None,
        equal: Callable[[Any, Any], bool] | None = None,
        world: World | None = None,
        report: bool = False,
    ) -> list[Hashable | None] | RunReport: ...
    def search(
        self,
        start: Any,
        goal: Any,
        actions: Sequence[Hashable] | None = None,
        apply: Callable[[Any, Any], Any] | None = None,
        applicable: Callable[[Any, Any], bool] | None = None,
        equal: Callable[[Any, Any], bool] | None = None,
        world: World | None = None,
        report: bool = False,
    ) -> SearchResult | RunReport: ...
    def evaluate(
        self,
        level: int,
        samples: int = 50,
        seed: int = 0,
        domain: str | Order | World | None = None,
        confirm: bool = False,
    ) -> EvalReport: ...
    def trace(
        self,
        input: Any = None,
        level: int | None = None,
        seed: int = 0,
        index: int = 0,
        domain: str | Order | World | None = None,
    ) -> dict[str, npt.NDArray[Any]]: ...
    def verify(
        self,
        up_to: int | Sequence[int] | None = None,
        domain: str | None = None,
        beyond: int = 1000,
        every_length: bool | int = False,
        confirm: bool = False,
    ) -> VerifyReport:
        """Every control-distinct input up to a bound, then samples beyond it up to size `beyond`
        (0: none), as `nhc verify`; default bounds run in under a minute. every_length: also the
        proof for every length (`nhc verify --every-length`; repeatCopy: every number of objects and
        copies; duplicated: every number of repeats for 1–100 objects, or for 1–N with N instead of
        True). confirm: start work estimated past an hour (`nhc --yes`)."""

def verify(
    model: Model,
    up_to: int | Sequence[int] | None = None,
    domain: str | None = None,
    beyond: int = 1000,
    every_length: bool | int = False,
    confirm: bool = False,
) -> VerifyReport:
    """`model.verify(up_to, domain, beyond, every_length, confirm)`."""

def set_max_memory(size: int | str | None) -> int:
    """The memory a run may take, as `nhc --max-memory` sets it: bytes, or "8G", "512M"; None: the default, half the machine's memory. Returns the limit in force, in bytes."""

def tasks() -> list[TaskInfo]:
    """Every task: name, domains (training domain first), ALU operations, |θ| per variant."""

def load(path: StrPath, algorithm: Algorithm | None = None) -> Model:
    """A learned model from its file (of a declared algorithm: with its declaration)."""

def scripted(task: str) -> Model:
    """The hand-written solution of `task`'s algorithm, as a model."""

def sample(
    task: str | Algorithm, level: int, seed: int = 0, index: int = 0, domain: str | None = None
) -> tuple[Any, Any]:
    """Sample `index` of an evaluation at `level` under `seed`: (input, reference answer); of a
    declared algorithm, its sample as its sampler made it and its reference (a list of words)."""

def train(
    task: str | Algorithm,
    seed: int,
    config: dict[str, Any] | StrPath | None = None,
    out: StrPath | None = None,
    callback: Callable[[IterationRecord], object] | None = None,
    variant: Variant = "nhc",
    domain: str | Order | World | None = None,
    recipe: bool = False,
    confirm: bool = False,
) -> Model:
    """Trains `task` from scratch (as `nhc train`) and returns the model; `domain`: a domain name,
    or the user's data modules (an `Order` with a sampler for sort, a `World` with random_state
    for search, plan, search+ and plan+), which the model then runs on by default; `recipe`:
    the recipe (ours, beyond the paper; configs/recipe.toml) instead of the paper's protocol;
    `confirm`: start a run estimated past an hour at the speed measured here (`nhc --yes`)."""

def resume(
    out: StrPath,
    callback: Callable[[IterationRecord], object] | None = None,
    algorithm: Algorithm | None = None,
    domain: Order | World | None = None,
    redeclared: bool = False,
) -> Model:
    """Continues the run in `out` from its last checkpoint and returns the model (a declared
    algorithm's run with its `algorithm`, a run on the user's data modules with its `domain`).
    `redeclared=True` goes on under an `algorithm` whose declaration changed since the run
    started (e.g. a function fixed after it raised)."""

class RunSummary(TypedDict):
    """A run's summary.json."""

    task: str
    domain: str
    variant: str
    config: dict[str, Any] | None
    seed: int
    iterations: int
    learning_iterations: int
    margin_updates: int
    last_level_learned: int
    last_level_solved: int
    restarts: int
    failed_checks: int
    outcome: Literal["solved", "cap"]
    wall_seconds: float
    steps: int
    steps_per_second: float
    lineages: list[dict[str, Any]] | None

class SweepLine(TypedDict):
    """One line of a sweep's sweep.jsonl: a run, its summary and its evaluations by level."""

    dir: str
    summary: RunSummary
    eval: dict[str, EvalReport]  # by test level, as a string
    curve: dict[str, list[float]] | None  # the learning curve the figures of `nhc report` need
    seeds: NotRequired[str]  # the sweep's seeds, "1-15" (absent in sweeps older than the record)

def sweep(
    tasks: str | Algorithm | Sequence[str | Algorithm],
    out: StrPath,
    runs: int = 15,
    seeds: range | str | int | None = None,  # in place of runs: range(101, 116), "101-115" or 7
    config: dict[str, Any] | StrPath | None = None,
    variant: Variant = "nhc",
    jobs: int | None = None,
    levels: Sequence[int] | None = None,  # default 10, 100, 500, 1000
    samples: int = 50,
    eval_seed: int = 1000,
    callback: Callable[[SweepLine], object] | None = None,
    recipe: bool = False,
) -> list[SweepLine]:
    """Trains and evaluates every run of `tasks` (seeds 1..runs, or `seeds`) in `out`, as `nhc sweep`; returns the lines of out/sweep.jsonl.
    Declared algorithms (`Algorithm`) may be among the tasks: their runs are out/NAME-SEED too."""
