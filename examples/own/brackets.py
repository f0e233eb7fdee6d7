"""brackets: name each closing bracket's partner (an algorithm the paper does not have; it needs a
stack).

A sample of level ℓ is a random well-formed sequence of ℓ bracket pairs; every opening bracket
carries a label (1–63), a closing bracket is presented as None. At each closing bracket the model
must read the label of the opening bracket it closes and output it (`O`); at an opening bracket
it must not output (`W`). There is no output phase: the answer is given while the sequence is
presented. The memory must keep the open brackets as a stack: the paper's ancestry links (write a
bracket as a child of the one read, return to the parent after it closes) are one way.
"""

import nhc


def sample(level, rng):
    seq, opened, depth = [], 0, 0
    while opened < level or depth > 0:
        if opened < level and (depth == 0 or rng.random() < 0.5):
            seq.append(rng.integers(1, 64))
            opened, depth = opened + 1, depth + 1
        else:
            seq.append(None)
            depth -= 1
    return seq


def partners(seq):
    """The label each closing bracket closes, by a plain stack."""
    stack, out = [], []
    for x in seq:
        if x is None:
            out.append(stack.pop())
        else:
            stack.append(x)
    return out


def unbalanced(seq):
    """Why a user's sequence is not one brackets takes, or None."""
    depth = 0
    for k, x in enumerate(seq):
        depth += 1 if x is not None else -1
        if depth < 0:
            return f"the closing bracket at position {k + 1} closes nothing"
    return f"{depth} bracket(s) are never closed" if depth else None


def present(seq):
    """Signals [open, close, 0] and the word for every bracket."""
    return [([1, 0, 0], x) if x is not None else ([0, 1, 0], None) for x in seq]


def program(seq):
    stack = []
    for x in seq:
        if x is None:
            yield ("O", stack.pop())
        else:
            stack.append(x)
            yield ("W", None)  # scored: an `O` here would add to the answer


BRACKETS = nhc.Algorithm(
    name="brackets",
    ops={"O": None, "W": None},
    heads=1,
    signals=3,
    present=present,
    output_signals=[0, 0, 1],
    output="O",
    stop=("O", 0),
    answers_while_presented=True,
    sample=sample,
    program=program,
    reference=partners,
    refuse=unbalanced,
)
