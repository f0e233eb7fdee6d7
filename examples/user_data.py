"""A learned algorithm on your own data, with data modules written in Python.

1. The learned sort (models/sort.json, trained on bytes) sorts Python objects with a Python
   comparison: records by a field, and version strings.
2. The learned planner (models/plan+.json, trained in sokoban) plans in a Python world: a grid
   maze, and the Tower of Hanoi with two discs.

    python examples/user_data.py
"""

from dataclasses import dataclass
from pathlib import Path

import nhc

MODELS = Path(__file__).resolve().parents[1] / "models"
sort = nhc.load(MODELS / "sort.json")
plan = nhc.load(MODELS / "plan+.json")


@dataclass
class Paper:
    title: str
    year: int


papers = [Paper("NTM", 2014), Paper("DNC", 2016), Paper("NHC", 2024), Paper("LSTM", 1997), Paper("NPI", 2016)]
by_year = sort.run(papers, compare=lambda a, b: a.year - b.year)
print("by year:", [f"{p.title} {p.year}" for p in by_year])


def version(v):
    return tuple(int(x) for x in v.split("."))


def compare_versions(a, b):
    return (version(a) > version(b)) - (version(a) < version(b))


print("versions:", sort.run(["1.10.0", "1.2.0", "0.9.12", "1.2.10", "1.2.9"], compare=compare_versions))

MAZE = [
    "#########",
    "#S..#...#",
    "#.#.#.#.#",
    "#.#...#G#",
    "#.#####.#",
    "#.......#",
    "#########",
]
MOVES = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}


def step(cell, move):
    r, c = cell
    dr, dc = MOVES[move]
    return (r + dr, c + dc) if MAZE[r + dr][c + dc] != "#" else cell


def find(ch):
    return next((r, c) for r, row in enumerate(MAZE) for c, x in enumerate(row) if x == ch)


route = plan.plan(find("S"), find("G"), actions=list(MOVES), apply=step)
print("maze:", " ".join(route))

# Tower of Hanoi, two discs: a state is (peg of the small disc, peg of the large disc); an
# action (a, b) moves the top disc of peg a onto peg b.
MOVES_HANOI = [(0, 1), (1, 2), (2, 0), (0, 2)]


def move_disc(state, move):
    small, large = state
    a, b = move
    if small == a:
        return (b, large)
    if large == a and small not in (a, b):
        return (small, b)
    return state


print("hanoi:", plan.plan((0, 0), (2, 2), actions=MOVES_HANOI, apply=move_disc))
