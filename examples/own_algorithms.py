"""Algorithms of one's own, declared in Python (`nhc.Algorithm`): copy and sort as the paper
describes them, written without the built-in tasks' code. Trained with the same seed and config,
they give the built-ins' θ bit for bit (python/tests/test_declared.py).

    python -m nhc check --algorithm examples/own_algorithms.py:COPY
    python -m nhc train --algorithm examples/own_algorithms.py:SORT --seed 1 --out runs/my-sort
    python -m nhc eval --algorithm examples/own_algorithms.py:SORT --model runs/my-sort/model.json --level 100 --samples 20
"""

import nhc

# copy: the ℓ presented 6-bit objects are output in order, then the end mark `M`. Both
# operations pass the first read through; 0 is the empty word, as among the built-in objects.


def copy_program(objects):
    yield from [None] * len(objects)  # presentation: unscored
    for x in objects:
        yield ("O", x)
    yield ("M", None)


COPY = nhc.Algorithm(
    "copy",
    {"O": None, "M": None},
    sample=lambda level, rng: [rng.integers(0, 64) for _ in range(level)],
    program=copy_program,
    reference=list,
    output="O",
    stop=("M", 1),
    empty=0,
)

# sort: ℓ + 1 bytes, output in ascending order by selection with repeated scans. `C` compares the
# candidate (head 1) with the walker (head 2), `S` skips an object already output, `O` outputs the
# candidate once the walker has passed the list. The ALU's feedback is [cmp, 1 - cmp, s, o] with
# cmp = candidate <= walker.


def sort_alu(op):
    def alu(candidate, walker):
        cmp = candidate <= walker
        return candidate, [cmp, 1 - cmp, op == "S", op == "O"]

    return alu


def sort_program(items):
    n = len(items)
    yield from [None] * n
    done = [False] * n
    c, start = 0, 1
    for scan in range(1, n + 1):
        for w in range(start, n):
            if done[c] or done[w]:
                yield ("S", None if done[c] else items[c], items[w])
                c = w if done[c] else c
            else:
                yield ("C", items[c], items[w])
                c = c if items[c] <= items[w] else w
        yield ("O", items[c], 0)  # the walker has passed the list: it reads the empty word
        done[c] = True
        if scan < n:
            c, start = 0, 0


SORT = nhc.Algorithm(
    "sort",
    {"C": sort_alu("C"), "S": sort_alu("S"), "O": sort_alu("O")},
    heads=2,
    feedback=4,
    free_gates=False,
    sample=lambda level, rng: [rng.integers(0, 256) for _ in range(level + 1)],
    program=sort_program,
    reference=sorted,
    output="O",
    stop=("O", len),
    empty=0,
)
