"""maxfind: the largest of ℓ+1 bytes, by one scan (an algorithm the paper does not have).

Read head 1 holds the largest byte found so far, read head 2 walks the presented list; `C`
compares them (the ALU's feedback says which is larger) and `O` outputs head 1's byte once head 2
has passed the last byte (it then reads an output-phase location, whose word is the empty word,
0 here as in sort).
"""

import nhc


def larger(a, b):
    """C: keep the candidate a when a >= b (so the first of equal maxima is kept)."""
    keep = a >= b
    return a, [keep, not keep]


def output(a, b):
    return a, [False, False]


def sample(level, rng):
    return [rng.integers(0, 256) for _ in range(level + 1)]


def program(items):
    for _ in items:
        yield None  # the presentation is not scored
    best = 0
    for walker in range(1, len(items)):
        yield ("C", items[best], items[walker])
        if items[walker] > items[best]:
            best = walker
    yield ("O", items[best], 0)


def shapes(bound):
    """For `Model.verify`: one list per class of inputs. The ALU's feedback says only whether the
    walker's byte is a new maximum, so a list of n bytes is one of 2^(n-1) classes: which
    positions hold a new maximum. The new maxima are 200, 201, …, the others 1, 2, …: all
    different and none the empty word 0 (up to 55 bytes)."""
    for n in range(1, min(bound, 55) + 1):
        for records in range(1 << (n - 1)):
            items, top = [], 200
            for j in range(n):
                if j == 0 or records >> (j - 1) & 1:
                    items.append(top)
                    top += 1
                else:
                    items.append(j)
            yield n, items


MAXFIND = nhc.Algorithm(
    name="maxfind",
    ops={"C": larger, "O": output},
    heads=2,
    feedback=2,
    free_gates=False,
    signals="first-inner-last",
    output="O",
    stop=("O", 1),
    sample=sample,
    program=program,
    reference=lambda items: [max(items)],
    empty=0,
    shapes=shapes,
)
