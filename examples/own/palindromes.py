"""palindromes: keep the words that read the same backwards (an algorithm the paper does not
have, on a data domain of its own: strings).

The words are presented, then the model walks them: `T` asks the ALU whether the word read is a
palindrome (its feedback says yes or no), then `O` outputs the word or `S` skips it, and `M` ends
the pass when the walker has passed the last word.
"""

import nhc


def test(word):
    yes = word == word[::-1]
    return word, [yes, not yes]


def quiet(word):
    """O, S, M: the word read, and the feedback cleared (a pass would keep T's)."""
    return word, [False, False]


def sample(level, rng):
    words = []
    for _ in range(level):
        half = "".join(rng.choice("abc") for _ in range(rng.integers(1, 4)))
        if rng.random() < 0.5:
            words.append(half + half[-2::-1])  # a palindrome
        else:
            words.append("".join(rng.choice("abc") for _ in range(rng.integers(2, 6))))
    return words


def program(words):
    for _ in words:
        yield None
    for w in words:
        yield ("T", w)
        yield ("O" if w == w[::-1] else "S", w)
    yield ("M", None)


PALINDROMES = nhc.Algorithm(
    name="palindromes",
    ops={"T": test, "O": quiet, "S": quiet, "M": quiet},
    heads=1,
    feedback=2,
    signals="first-inner-last",
    output="O",
    stop=("M", 1),
    sample=sample,
    program=program,
    reference=lambda words: [w for w in words if w == w[::-1]],
    empty="",
)
