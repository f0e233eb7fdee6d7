"""An algorithm of one's own, declared in Python (crates/nhc-tasks/src/declared.rs, `Declared`):
its Bus operations with their ALU functions, a sampler, the Input's stream of a sample, the
expected program and a reference answer. Nothing about head modes, links or gates: that is what
the NHC learns. `nhc.train(algorithm, seed)` trains it with the trainer of the built-in tasks,
and the model runs, evaluates, traces and saves like theirs; `nhc.check(algorithm)` tests a
declaration before training.

The Rust core calls the private methods below (`_spec`, `_sample`, `_input`, `_program`,
`_reference`, `_alu`); they normalise what the user's functions return and refuse, with one
sentence naming the step and the sample, what the core cannot take.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

# Input patterns with their signal widths: [first, inner, last, 0] per word then [0, 0, 0, 1]
# (copy, sort); [first presentation, repeat of the word before, 0] then [0, 0, 1] (duplicated).
SIGNALS = {"first-inner-last": 4, "first-repeat": 3}

_LOW, _HIGH = -(1 << 63), 1 << 63
_PLAIN = frozenset({int, str, bool, type(None)})
_UNSCORED = (-1, ())
_MAX_SHAPES = 50_000_000
_WORDS = "words must be None, bool, int (64-bit), str, or tuples and lists of these"


def _invalid(kind: type[Exception], message: str) -> Exception:
    """A refusal of the declaration (marked, so that `check` reports it as it is)."""
    error = kind(message)
    error.nhc_declaration = True  # type: ignore[attr-defined]
    return error


def _short(x: Any, limit: int = 60) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(x: Any) -> bool:
    """Whether `x` is a word as it is: None, bool, str or a 64-bit int."""
    t = type(x)
    return t in _PLAIN and (t is not int or _LOW <= x < _HIGH)


def _word(x: Any, where: str) -> Any:
    """`x` as a word: lists become tuples, integer-like values ints; floats and other types are
    refused (words are compared exactly and cached by value)."""
    if _plain(x):
        return x
    if isinstance(x, (tuple, list)):
        return tuple(_word(v, where) for v in x)
    if isinstance(x, float):
        raise _invalid(TypeError, f"{where} is the float {x!r}: {_WORDS}, not floats, so that they compare exactly")
    scalar = _scalar(x, f"{where} is", f": {_WORDS}")
    if scalar is None:
        raise _invalid(TypeError, f"{where} is {type(x).__name__} {_short(x)}: {_WORDS}")
    return scalar


def _scalar(x: Any, what: str, why: str) -> Any:
    """A str subclass as a str, an integer-like value as a 64-bit int (refused beyond), else None."""
    if isinstance(x, str):
        return str(x)
    if hasattr(type(x), "__index__"):
        n = operator.index(x)
        if _LOW <= n < _HIGH:
            return n
        raise _invalid(ValueError, f"{what} {n}, beyond 64 bits{why}")
    return None


def _json(x: Any, level: int | None, index: int | None = None) -> Any:
    """A sample as JSON (lists, dicts with str keys, ints, str, bool, None), the form the core keeps
    it in; tuples become lists."""
    if type(x) is list:
        for v in x:
            t = type(v)
            if t is int:
                if not _LOW <= v < _HIGH:
                    break
            elif t not in _PLAIN:
                break
        else:
            return x
    return _json_any(x, _sample_name(level, index))


def _json_any(x: Any, where: str) -> Any:
    if _plain(x):
        return x
    if isinstance(x, (list, tuple)):
        return [_json_any(v, where) for v in x]
    if isinstance(x, Mapping):
        out = {}
        for k, v in x.items():
            if not isinstance(k, str):
                raise _invalid(TypeError, f"{where} has the key {_short(k)}: a sample's dict keys must be str")
            out[str(k)] = _json_any(v, where)
        return out
    if isinstance(x, float):
        raise _invalid(
            TypeError,
            f"{where} holds the float {x!r}: samples must be exact (lists, dicts with str keys, ints, str, bool, None)",
        )
    scalar = _scalar(x, f"{where} holds", "")
    if scalar is not None:
        return scalar
    raise _invalid(
        TypeError,
        f"{where} holds {type(x).__name__} {_short(x)}: samples must be JSON "
        "(lists, dicts with str keys, ints, str, bool, None)",
    )


def _words(items: Iterable[Any], where: Callable[[int], str]) -> list:
    """`items` as a list of words (`where(k)` names item k in a refusal). Integers beyond 64 bits
    pass here; the core refuses them, naming the word."""
    words = items if type(items) is list else list(items)
    for x in words:
        if type(x) not in _PLAIN:
            return [x if _plain(x) else _word(x, where(k)) for k, x in enumerate(words)]
    return words


def _fresh(x: Any) -> Any:
    """A copy of a sample in JSON form, so that a function that changes its sample changes only
    its own."""
    t = type(x)
    if t is list:
        return [v if type(v) in _PLAIN else _fresh(v) for v in x]
    if t is dict:
        return {k: v if type(v) in _PLAIN else _fresh(v) for k, v in x.items()}
    return x


def _blame(e: Exception, where: str) -> None:
    """Notes on a user function's exception where it was raised (the declaration's own refusals
    say it in their message)."""
    if not getattr(e, "nhc_declaration", False):
        e.add_note(f"raised {where}")


def _same(a: Any, b: Any) -> bool:
    """Word equality as the core sees it: exact and by type (True is not 1)."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _source(f: Any) -> str:
    """The source text of a user function (its repr when there is none)."""
    try:
        return inspect.getsource(f)
    except (OSError, TypeError):
        return repr(f)


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _sample_name(level: int | None, index: int | None) -> str:
    if level is None:
        return "the input"
    if index is None:
        return f"a level-{level} sample"
    return f"sample {index} of level {level}"


class Algorithm:
    """An algorithm of one's own: its Bus operations with their ALU functions, a sampler, the
    Input's stream of a sample, the expected program and a reference answer.

    name: the algorithm's name (model files and checkpoints carry it).
    ops: {name: function or None} in Bus order. A function is the ALU operation on the words read
        (one argument per read head); it returns the output word d_out, or, when the algorithm
        has feedback, the pair (d_out, feedback) with `feedback` numbers. None passes the first
        read through without calling Python. ALU functions must be pure: their results are cached
        by (operation, words read).
    heads: read heads. feedback: |c_a|, the ALU's feedback to the Controller (0: none).
    free_gates: whether the memory interface has free gates.
    signals: the Input's control signals: "first-inner-last" ([first, inner, last, 0] per
        presented word, then [0, 0, 0, 1] in the output phase, as copy and sort), "first-repeat"
        ([first presentation, repeat of the word before, 0], then [0, 0, 1], as duplicated), or a
        width: then `present(sample)` yields (signals, word) pairs and `output_signals` are the
        output phase's signals (needed only when there is an output phase: a stop count above 0).
    present(sample): the presented words (default: the sample itself, a list of words).
    output: the operation whose d_out joins the answer in the output phase (at every step with
        answers_while_presented, for an algorithm that answers while its input is presented).
    stop: (operation, count): the output phase lasts until that operation has run `count` times
        in it; count is an int or a function of the sample.
    sample(level, rng): a random sample of curriculum level `level` >= 1, drawn from `rng` (an
        `nhc.Rng`) alone; JSON-able (lists, dicts with str keys, ints, str, bool, None).
    any_shape(level, rng): a random sample of level `level` in any shape the algorithm allows, no
        larger than the level's (optional; e.g. a list of 1..level+1 words where `sample` always
        gives level+1): the recipe's check draws it with `check_any_shape = true`, and training
        with `train_any_shape` (docs/RECIPE.md, "The recipe"). Without it those draw `sample`.
    refuse(sample): why a user's input (`Model.run`) cannot be run, as a sentence, or None when it
        can (optional; e.g. unbalanced brackets). Not part of the digest: it changes no training.
    shapes(bound): for `Model.verify` (optional): one sample per control-distinct class of inputs
        of size 1..bound (default bound 10), as (shape, sample) pairs, the shape an int (the
        size) or a pair (size, second) for a map; samples built from words that are all
        different and none the empty word, so that reading the right word means reading the right
        location (docs/VERIFICATION.md, "Verification"). Without it, `verify` samples and says so. Not
        part of the digest.
    program(sample): the expected program, an iterable of steps, one per machine step: None
        (unscored, e.g. a presentation step) or (operation name, read 1, ..., read `heads`), a
        read None when it is not scored.
    reference(sample): the answer, a list of words, computed without the NHC.
    empty: the word unwritten memory holds and the output phase presents (default None); the
        functions see it where the NHC reads nothing written, and a program's read equal to it
        expects exactly that.

    Words are None, bool, int (64-bit), str, or tuples and lists of these (lists come back as
    tuples); floats are refused, so that words compare exactly.
    """

    def __init__(
        self,
        name: str,
        ops: Mapping[str, Callable[..., Any] | None],
        *,
        sample: Callable[[int, Any], Any],
        program: Callable[[Any], Iterable[Any]],
        reference: Callable[[Any], Iterable[Any]],
        output: str,
        stop: tuple[str, int | Callable[[Any], int]],
        heads: int = 1,
        feedback: int = 0,
        free_gates: bool = True,
        signals: str | int = "first-inner-last",
        present: Callable[[Any], Iterable[Any]] | None = None,
        output_signals: Iterable[float] | None = None,
        empty: Any = None,
        answers_while_presented: bool = False,
        refuse: Callable[[Any], str | None] | None = None,
        shapes: Callable[[int], Iterable[tuple[Any, Any]]] | None = None,
        any_shape: Callable[[int, Any], Any] | None = None,
    ) -> None:
        self._arguments = {k: v for k, v in locals().items() if k != "self"}
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {_short(name)}")
        if not re.fullmatch(r"[A-Za-z0-9_+-]+", name):
            raise ValueError(
                f"name must be a plain name of letters, digits, '-', '_' and '+' (it names run directories), got {_short(name)}"
            )
        if not isinstance(ops, Mapping) or not ops:
            raise TypeError("ops must be a non-empty dict {operation name: function or None}")
        for op, f in ops.items():
            if not isinstance(op, str) or not op:
                raise TypeError(f"operation names must be non-empty str, got {_short(op)}")
            if f is not None and not callable(f):
                raise TypeError(f"operation {op!r} must be a function or None, got {_short(f)}")
        if len(ops) > 255:
            raise ValueError(f"at most 255 operations, got {len(ops)}")
        for what, x, low in [("heads", heads, 1), ("feedback", feedback, 0)]:
            if isinstance(x, bool) or not isinstance(x, int) or x < low:
                raise ValueError(f"{what} must be an int >= {low}, got {_short(x)}")
        for what, x in [("free_gates", free_gates), ("answers_while_presented", answers_while_presented)]:
            if not isinstance(x, bool):
                raise TypeError(f"{what} must be True or False, got {_short(x)}")
        for what, f in [("sample", sample), ("program", program), ("reference", reference)]:
            if not callable(f):
                raise TypeError(f"{what} must be a function, got {_short(f)}")
        if refuse is not None and not callable(refuse):
            raise TypeError(f"refuse must be a function, got {_short(refuse)}")
        if shapes is not None and not callable(shapes):
            raise TypeError(f"shapes must be a function, got {_short(shapes)}")
        if any_shape is not None and not callable(any_shape):
            raise TypeError(f"any_shape must be a function, got {_short(any_shape)}")
        if present is not None and not callable(present):
            raise TypeError(f"present must be a function, got {_short(present)}")
        if isinstance(signals, str):
            if signals not in SIGNALS:
                raise ValueError(f"signals must be {' or '.join(map(repr, SIGNALS))} or a width, got {signals!r}")
            if output_signals is not None:
                raise ValueError(f"output_signals is implied by signals={signals!r}; give a width to set them")
            width = SIGNALS[signals]
        elif isinstance(signals, int) and not isinstance(signals, bool) and signals >= 1:
            if present is None:
                raise ValueError("custom signals need present(sample), yielding (signals, word) pairs")
            if output_signals is not None:
                output_signals = [float(x) for x in output_signals]
                if len(output_signals) != signals or not all(map(math.isfinite, output_signals)):
                    raise ValueError(f"output_signals must be {signals} finite numbers, got {output_signals}")
            width = signals
        else:
            raise ValueError(f"signals must be {' or '.join(map(repr, SIGNALS))} or a width >= 1, got {_short(signals)}")
        names = list(ops)
        if output not in ops:
            raise ValueError(f"output must name an operation ({', '.join(names)}), got {_short(output)}")
        if not (isinstance(stop, (tuple, list)) and len(stop) == 2 and stop[0] in ops):
            raise ValueError(f"stop must be (operation name, count), the name one of {', '.join(names)}; got {_short(stop)}")
        count = stop[1]
        if not callable(count) and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            raise ValueError(f"stop's count must be an int >= 0 or a function of the sample, got {_short(count)}")
        # Without an output phase (a count of 0) no output signals are ever sent.
        if not isinstance(signals, str) and output_signals is None and not callable(count) and count > 0:
            raise ValueError(
                f"custom signals with an output phase (stop count {count}) need output_signals, the output phase's signals"
            )

        self.name = name
        self.ops = dict(ops)
        self.heads = heads
        self.feedback = feedback
        self.free_gates = free_gates
        self.answers_while_presented = answers_while_presented
        self.signals = signals
        self.width = width
        self.present = present
        self.output_signals = list(output_signals) if output_signals is not None else None
        self.output = output
        self.stop = (stop[0], count)
        self.sample = sample
        self.program = program
        self.reference = reference
        self.refuse = refuse
        self.shapes = shapes
        self.any_shape = any_shape
        self.empty = _word(empty, "empty")
        self._names = names
        self._index = {op: k for k, op in enumerate(names)}
        self._functions = [ops[op] for op in names]
        self._output, self._stop = self._index[output], self._index[stop[0]]
        self._count = None if callable(count) else count
        self.digest = self._digest()

    def replace(self, **changes: Any) -> "Algorithm":
        """The same declaration with some of its arguments changed (e.g. `any_shape=f`), as a new
        `Algorithm`; its digest is its own."""
        return Algorithm(**{**self._arguments, **changes})

    def _digest(self) -> str:
        """sha256 (first 16 hex digits) of the declaration: its settings and the source of every
        function; a model or a run of another declaration of the same name is refused."""
        stop_op, count = self.stop
        declaration = {
            "name": self.name,
            "ops": self._names,
            "heads": self.heads,
            "feedback": self.feedback,
            "free_gates": self.free_gates,
            "signals": self.signals,
            "output_signals": self.output_signals,
            "output": self.output,
            "stop": stop_op,
            "count": _source(count) if callable(count) else count,
            "empty": repr(self.empty),
            "answers_while_presented": self.answers_while_presented,
            "sources": {
                **{f"op {op}": _source(f) for op, f in self.ops.items() if f is not None},
                **{
                    what: _source(f)
                    for what, f in [
                        ("sample", self.sample),
                        ("program", self.program),
                        ("reference", self.reference),
                        ("present", self.present),
                        ("any_shape", self.any_shape),
                    ]
                    if f is not None
                },
            },
        }
        text = json.dumps(declaration, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"<nhc.Algorithm {self.name} ({', '.join(self._names)}), digest {self.digest}>"

    # What the core calls.

    def _spec(self) -> dict[str, Any]:
        """The declaration's settings for the core."""
        return {
            "name": self.name,
            "ops": self._names,
            "passthrough": [f is None for f in self._functions],
            "heads": self.heads,
            "feedback": self.feedback,
            "free_gates": self.free_gates,
            "width": self.width,
            "pattern": self.signals if isinstance(self.signals, str) else None,
            "empty": self.empty,
            "digest": self.digest,
            "answers_while_presented": self.answers_while_presented,
            "presents_itself": self._presents_itself(),
        }

    def _presents_itself(self) -> str | None:
        """Why a sample is not the list of words it presents with the built-in signals and one
        stop count for every sample (what `verify` needs to derive the classes without
        `shapes`), or None when it is."""
        if not isinstance(self.signals, str):
            return "its Input sends signals of its own (signals=N)"
        if self.present is not None:
            return "a sample is not the list of words it presents (it has `present`)"
        if callable(self.stop[1]):
            return "its stop count is a function of the sample"
        return None

    def _shapes(self, bound: int) -> list[tuple[int, int, Any]] | None:
        """`shapes(bound)` as (size, second, sample as JSON) triples; None without `shapes`."""
        if self.shapes is None:
            return None
        out = []
        try:
            # At most the core's inputs a part (crates/nhc-tasks/src/verify.rs, MAX_INPUTS), and one more to tell.
            listed = list(itertools.islice(self.shapes(bound), _MAX_SHAPES + 1))
        except Exception as e:
            _blame(e, f"by `shapes` of the algorithm {self.name!r} at bound {bound}")
            raise
        if len(listed) > _MAX_SHAPES:
            raise _invalid(ValueError, f"shapes({bound}) lists more than {_MAX_SHAPES} inputs; give a lower bound")
        for k, pair in enumerate(listed):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise _invalid(TypeError, f"shapes({bound}) item {k} is {_short(pair)}, not a pair (shape, sample)")
            shape, sample = pair
            size, second = (shape, 0) if not isinstance(shape, (tuple, list)) else (tuple(shape) + (0,))[:2]
            for what, x in [("size", size), ("second", second)]:
                if isinstance(x, bool) or not isinstance(x, int) or x < 0 or (what == "size" and x < 1):
                    raise _invalid(ValueError, f"shapes({bound}) item {k}: its {what} must be an int >= {1 if what == 'size' else 0}, got {_short(x)}")
            if size > bound:
                raise _invalid(ValueError, f"shapes({bound}) item {k} has size {size}, beyond the bound")
            sample = _json(sample, None, k)
            why = self.refuse(sample) if self.refuse is not None else None
            if why:
                raise _invalid(ValueError, f"shapes({bound}) item {k} is refused: {why}")
            out.append((size, second, sample))
        return out

    def _sample(self, level: int, rng: Any, index: int | None = None, any_shape: bool = False) -> Any:
        """`sample(level, rng)` (`any_shape(level, rng)` when asked and declared) as JSON."""
        what, f = ("any_shape", self.any_shape) if any_shape and self.any_shape is not None else ("sample", self.sample)
        try:
            sample = f(level, rng)
        except Exception as e:
            _blame(e, f"by `{what}` of the algorithm {self.name!r} at level {level}")
            raise
        return _json(sample, level, index)

    def _prepare(self, level: int, rng: Any, any_shape: bool = False) -> tuple:
        """A sample of `level` (of any shape when asked) with its Input, program and reference, in
        one call (the core's preparation of a sample; each function gets a copy of the sample of
        its own)."""
        sample = self._sample(level, rng, any_shape=any_shape)
        return (
            sample,
            self._input(_fresh(sample), level),
            self._program(_fresh(sample), level),
            self._reference(_fresh(sample), level),
        )

    def _input(self, sample: Any, level: int | None, index: int | None = None) -> tuple:
        """The Input of a sample: (width, signals of every presented word in a row, the words,
        the output phase's signals, output operation, stop operation, stop count); the signals
        are None for the named patterns, which the core lays out itself."""
        try:
            return self._stream(sample, level, index)
        except Exception as e:
            _blame(e, f"by `present` or `stop` of the algorithm {self.name!r} for {_sample_name(level, index)}")
            raise

    def _stream(self, sample: Any, level: int | None, index: int | None) -> tuple:
        items = sample if self.present is None else self.present(sample)
        signals: list[float] | None = None
        output_signals = self.output_signals
        if isinstance(self.signals, str):
            if self.present is None and type(items) is not list:
                raise _invalid(
                    TypeError,
                    f"{_sample_name(level, index)} is not a list of words; give present(sample) to say what is presented",
                )
            words = _words(items, lambda k: f"presented word {k} of {_sample_name(level, index)}")
        else:
            words, signals = [], []
            for k, pair in enumerate(items):
                if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                    raise _invalid(
                        TypeError,
                        f"presented step {k} of {_sample_name(level, index)} is {_short(pair)}, not a pair (signals, word)",
                    )
                s, x = pair
                s = [float(v) for v in s]
                if len(s) != self.width or not all(map(math.isfinite, s)):
                    raise _invalid(
                        ValueError,
                        f"presented step {k} of {_sample_name(level, index)} has the signals {_short(s)}, "
                        f"not {self.width} finite numbers",
                    )
                signals += s
                words.append(x if _plain(x) else _word(x, f"presented word {k} of {_sample_name(level, index)}"))
        count = self._count
        if count is None:
            c = self.stop[1](sample)
            if isinstance(c, bool) or not hasattr(type(c), "__index__") or operator.index(c) < 0:
                raise _invalid(TypeError, f"stop's count of {_sample_name(level, index)} is {_short(c)}, not an int >= 0")
            count = operator.index(c)
        if signals is not None and output_signals is None:
            if count > 0:
                raise _invalid(
                    ValueError,
                    f"stop's count of {_sample_name(level, index)} is {count}: its Input has an output phase, "
                    "and custom signals then need output_signals, the output phase's signals",
                )
            output_signals = [0.0] * self.width  # never sent: there is no output phase
        return (self.width, signals, words, output_signals, self._output, self._stop, count)

    def _program(self, sample: Any, level: int | None, index: int | None = None) -> list[tuple[int, tuple]]:
        """The expected program: per step (operation index, reads), (-1, ()) when unscored."""
        steps: list[tuple[int, tuple]] = []
        try:
            self._steps(sample, level, index, steps)
        except Exception as e:
            where = _sample_name(level, index)
            _blame(e, f"by `program` of the algorithm {self.name!r} at step {len(steps)} of {where}")
            raise
        return steps

    def _steps(self, sample: Any, level: int | None, index: int | None, steps: list[tuple[int, tuple]]) -> None:
        known, size, append = self._index, self.heads + 1, steps.append
        for step in self.program(sample):
            if step is None:
                append(_UNSCORED)
                continue
            if type(step) is tuple and len(step) == size and type(step[0]) is str:
                op = known.get(step[0])
                reads = step[1:]
                if op is not None:
                    for x in reads:
                        if type(x) not in _PLAIN:
                            break
                    else:
                        append((op, reads))
                        continue
            append(self._step(step, len(steps), _sample_name(level, index)))

    def _step(self, step: Any, k: int, where: str) -> tuple[int, tuple]:
        """A step that is not a plain (known operation, plain reads) tuple: normalised, or refused."""
        if not isinstance(step, tuple):
            if not isinstance(step, list):
                raise _invalid(
                    TypeError,
                    f"step {k} of the program of {where} is {_short(step)}; "
                    "a step is None or a tuple (operation name, read 1, ...)",
                )
            step = tuple(step)
        op = self._index.get(step[0]) if step and isinstance(step[0], str) else None
        if op is None:
            name = _short(step[0]) if step else "nothing"
            raise _invalid(
                ValueError,
                f"step {k} of the program of {where} names the operation {name}, "
                f"which the algorithm does not have (it has {', '.join(self._names)})",
            )
        reads = step[1:]
        if len(reads) != self.heads:
            raise _invalid(
                ValueError,
                f"step {k} of the program of {where} yields {_plural(len(reads), 'read')}, "
                f"but the algorithm has {_plural(self.heads, 'read head')}",
            )
        return op, tuple(_word(x, f"read {j + 1} of step {k} of the program of {where}") for j, x in enumerate(reads))

    def _refuse(self, sample: Any) -> str | None:
        """Why a user's input cannot be run (`refuse(sample)`), or None."""
        if self.refuse is None:
            return None
        try:
            why = self.refuse(sample)
        except Exception as e:
            _blame(e, f"by `refuse` of the algorithm {self.name!r} for the input {_short(sample)}")
            raise
        if why is not None and not isinstance(why, str):
            raise _invalid(TypeError, f"refuse returned {_short(why)}, not a str (why) or None")
        return why

    def _reference(self, sample: Any, level: int | None, index: int | None = None) -> list:
        """`reference(sample)` as a list of words."""
        try:
            answer = self.reference(sample)
        except Exception as e:
            _blame(e, f"by `reference` of the algorithm {self.name!r} for {_sample_name(level, index)}")
            raise
        if isinstance(answer, (str, bytes)) or not isinstance(answer, Iterable):
            raise _invalid(
                TypeError, f"the reference of {_sample_name(level, index)} is {_short(answer)}, not a list of words"
            )
        return _words(answer, lambda k: f"word {k} of the reference of {_sample_name(level, index)}")

    def _alu(self, op: int, reads: tuple) -> tuple[Any, list[float] | None]:
        """ALU operation `op` on the words read: (d_out, feedback); feedback None for a
        pass-through (it leaves c_a as it was)."""
        f = self._functions[op]
        if f is None:
            return reads[0], None
        name = self._names[op]
        try:
            result = f(*reads)
        except Exception as e:
            _blame(e, f"by ALU operation {name!r} of the algorithm {self.name!r} on the reads {_short(reads)}")
            raise
        if self.feedback:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise _invalid(
                    TypeError,
                    f"ALU operation {name!r} returned {_short(result)} on the reads {_short(reads)}; "
                    f"with feedback={self.feedback} it returns (d_out, feedback)",
                )
            out, fb = result
            try:
                feedback = [float(x) for x in fb]
            except (TypeError, ValueError):
                raise _invalid(
                    TypeError, f"ALU operation {name!r} returned the feedback {_short(fb)}, not a list of numbers"
                ) from None
            if len(feedback) != self.feedback or not all(map(math.isfinite, feedback)):
                raise _invalid(
                    ValueError,
                    f"ALU operation {name!r} returned the feedback {_short(feedback)} on the reads "
                    f"{_short(reads)}, not {self.feedback} finite numbers",
                )
        else:
            out, feedback = result, []
        where = f"the output of ALU operation {name!r} on the reads {_short(reads)}"
        return (out if _plain(out) else _word(out, where)), feedback

    # Checks before training.

    def _canon(self, word: Any) -> Any:
        return None if _same(word, self.empty) else word

    def _check_sample(self, sample: Any, level: int, index: int, tried: set[int]) -> list[str]:
        """What is wrong with one sample's Input, program and reference, in plain sentences (and
        with the ALU operations not in `tried` on the empty word)."""
        where = _sample_name(level, index)

        def failed(e: Exception, what: str) -> str:
            if getattr(e, "nhc_declaration", False):
                return str(e)
            return f"{what} of {where} raised {type(e).__name__}: {e}"

        try:
            _, _, words, _, output, stop_op, count = self._input(sample, level, index)
        except Exception as e:
            return [failed(e, "the Input")]
        try:
            program = self._program(sample, level, index)
            again = self._program(sample, level, index)
        except Exception as e:
            return [failed(e, "the program")]
        if repr(program) != repr(again):
            return [f"the program of {where} is not deterministic: two calls on the same sample give different steps"]
        n, stop_name = len(words), self._names[stop_op]
        if len(program) < n:
            return [
                f"the program of {where} has {_plural(len(program), 'step')} for {_plural(n, 'presented word')}: "
                "a program has a step per presented word (None when unscored), then the output phase's"
            ]
        # Every expected read must be a word the memory can hold by then: only the words presented
        # so far are written (and the empty word, in the output phase and where nothing was).
        held, empty = set(), repr(self.empty)
        for k, (op, reads) in enumerate(program):
            if k < n:
                held.add(repr(words[k]))
            for j, r in enumerate(reads):
                if r is not None and repr(r) not in held and repr(r) != empty:
                    return [
                        f"step {k} of the program of {where} expects read head {j + 1} to read {_short(r)}, which the "
                        "memory does not hold by then: it holds only the words the Input presented up to that step "
                        f"(and the empty word {self.empty!r})"
                    ]
        # Replay the program's operations through the Input's stop rule.
        stops, k = 0, n
        while stops < count and k < len(program):
            stops += program[k][0] == stop_op
            k += 1
        if stops < count:
            return [
                f"the program of {where} ends after {_plural(len(program), 'step')}, but the Input goes on: "
                f"{stop_name!r} has run {stops} of its {count} times in the output phase"
            ]
        if k != len(program):
            return [
                f"the Input of {where} stops after step {k - 1} ({stop_name!r} has run its {count} times "
                f"in the output phase), but the program goes on to step {len(program) - 1}"
            ]
        # The reference against the answer the program's own output steps give.
        answer, at = [], []
        for k in range(0 if self.answers_while_presented else n, len(program)):
            op, reads = program[k]
            if op != output:
                continue
            at.append(k)
            words = tuple(self.empty if r is None else r for r in reads)
            try:
                out, feedback = self._alu(op, words)
                twice = self._alu(op, words)
            except Exception as e:
                return [failed(e, f"ALU operation {self._names[op]!r} at step {k} of the program")]
            if not (_same(out, twice[0]) and feedback == twice[1]):
                return [
                    f"ALU operation {self._names[op]!r} at step {k} of the program of {where} is not pure: two calls "
                    f"on the reads {_short(words)} give {_short((out, feedback))} and {_short(twice)} (results are cached)"
                ]
            answer.append(out)
        try:
            reference = self._reference(sample, level, index)
            again_reference = self._reference(sample, level, index)
        except Exception as e:
            return [failed(e, "the reference")]
        if len(reference) != len(again_reference) or not all(map(_same, reference, again_reference)):
            return [f"the reference of {where} is not deterministic: two calls on the same sample differ"]
        canon = self._canon
        if len(reference) != len(answer) or not all(_same(canon(a), canon(b)) for a, b in zip(reference, answer)):
            j = next(
                (j for j, (a, b) in enumerate(zip(reference, answer)) if not _same(canon(a), canon(b))),
                min(len(reference), len(answer)),
            )
            if j < len(at) and None in program[at[j]][1]:
                k = at[j]
                step = (self._names[output], *program[k][1])
                return [
                    f"step {k} of the program of {where} is {_short(step)}: a read of None is not scored, but this "
                    f"one makes the answer: with the empty word {self.empty!r} in its place the program's own "
                    f"{self.output!r} steps output {_short(answer)}, and the reference is {_short(reference)} "
                    f"(first difference at answer word {j}); give the word the head must read"
                ]
            return [
                f"the reference of {where} is {_short(reference)}, but the program's own {self.output!r} steps "
                f"output {_short(answer)} (first difference at answer word {j})"
            ]
        return self._check_empty(program, tried)

    def _check_empty(self, program: list[tuple[int, tuple]], tried: set[int]) -> list[str]:
        """Each ALU function (not in `tried`) on the reads of its first step with the empty word in
        place of each read, and of all: the NHC reads it where nothing was written."""
        failures = []
        for op, reads in program:
            if op < 0 or op in tried or self._functions[op] is None:
                continue
            tried.add(op)
            base = tuple(self.empty if r is None else r for r in reads)
            trials = [base[:j] + (self.empty,) + base[j + 1 :] for j in range(len(base))] + [(self.empty,) * len(base)]
            for trial in trials:
                try:
                    self._alu(op, trial)
                except Exception as e:
                    failures.append(
                        f"ALU operation {self._names[op]!r} raised {type(e).__name__} ({e}) on the reads "
                        f"{_short(trial)}: the NHC reads the empty word {self.empty!r} where nothing was written, "
                        "in training too, so every ALU operation must take it"
                    )
                    break
        return failures

    def check(self, levels: Iterable[int] = range(1, 11), samples: int = 5, smoke: bool = True) -> None:
        """Tests the declaration; raises ValueError listing what is wrong, one sentence each.

        For each level and `samples` samples: the sampler makes the level and is deterministic
        (two draws from generators with the same seed are equal); the Input, the program and the
        reference are well formed (known operations, one read per head, exact words); the program
        ends exactly where the Input's stop rule stops it; the program, the reference and the ALU
        give the same on a second call (the ALU's results are cached); the reference equals the
        answer the program's own output steps give through the ALU; the same for `any_shape`'s
        samples when it is declared. With `smoke`, 5 training iterations.
        """
        from . import _nhc

        failures: list[tuple[int | None, str]] = []  # (level, sentence)
        tried: set[int] = set()
        samplers = [False] if self.any_shape is None else [False, True]
        for level, any_shape in itertools.product(levels, samplers):
            sampler = "any_shape" if any_shape else "the sampler"
            for index in range(samples):
                seed = 1_000_003 * level + index
                try:
                    sample = self._sample(level, _nhc.Rng(seed), index, any_shape)
                    again = self._sample(level, _nhc.Rng(seed), index, any_shape)
                except Exception as e:
                    if getattr(e, "nhc_declaration", False):
                        failures.append((level, str(e)))
                    else:
                        failures.append((level, f"{sampler} cannot make level {level}: it raised {type(e).__name__}: {e}"))
                    break
                if json.dumps(sample, sort_keys=True) != json.dumps(again, sort_keys=True):
                    failures.append((level,
                        f"{sampler} is not deterministic: two draws of sample {index} of level {level} from "
                        f"generators with the same seed differ ({_short(sample, 40)} and {_short(again, 40)}); "
                        "draw only from the rng it is given"
                    ))
                    break
                found = self._check_sample(sample, level, index, tried)
                if any_shape:  # name the function that drew it, not `sample`
                    name = _sample_name(level, index)
                    found = [f.replace(name, f"any_shape's {name}", 1) if name in f else f"{f} (a sample drawn by any_shape)"
                             for f in found]
                failures += [(level, f) for f in found]
                if found:
                    break
        if smoke and not failures:
            from . import train

            try:
                train(self, 1, config={"max_iterations": 5})
            except Exception as e:
                notes = "".join(f"; {n}" for n in getattr(e, "__notes__", []))
                failures.append((None, f"5 training iterations failed: {type(e).__name__}: {e}{notes}"))
        if failures:
            listed = "\n".join(f"- {f}" for f in _once(failures))
            raise ValueError(f"the declaration of {self.name!r} fails its check:\n{listed}")


def _once(failures: list[tuple[int | None, str]]) -> list[str]:
    """The failures, one that recurs at several levels (the same sentence but for its numbers:
    level, sample, step, words) once: the first, with the other levels it occurred at."""
    groups: dict[str, list[tuple[int | None, str]]] = {}
    for level, text in failures:
        groups.setdefault(_gist(text), []).append((level, text))
    lines = []
    for found in groups.values():
        text = found[0][1]
        others = sorted({level for level, _ in found[1:] if level is not None})
        if others:
            text += f" (the same at level{'s' if len(others) > 1 else ''} {_spans(others)})"
        lines.append(text)
    return lines


def _gist(text: str) -> str:
    """A failure's sentence without what differs between samples: numbers, and lists (shortened
    ones too) whatever their length."""
    gist, before = re.sub(r"\d+", "#", text), None
    while gist != before:
        gist, before = re.sub(r"\[[^\[\]]*(\]|…)", "[…]", gist), gist
    return gist


def _spans(levels: list[int]) -> str:
    """Sorted levels as runs: 2–10, or 2, 4, 6–8."""
    runs: list[list[int]] = []
    for level in levels:
        if runs and level == runs[-1][1] + 1:
            runs[-1][1] = level
        else:
            runs.append([level, level])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def check(algorithm: Algorithm, levels: Iterable[int] = range(1, 11), samples: int = 5, smoke: bool = True) -> None:
    """Tests a declared algorithm (`Algorithm.check`): returns when all is well, raises
    ValueError listing the failures (one sentence each, naming the level, sample and step)."""
    if not isinstance(algorithm, Algorithm):
        raise TypeError(f"check takes an nhc.Algorithm, got {type(algorithm).__name__}")
    algorithm.check(levels, samples, smoke)
