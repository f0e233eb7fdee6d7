"""The maze the search and plan tests run on, and the tests' own simulator of it."""

MAZE = [
    "#########",
    "#...#...#",
    "#.#.#.#.#",
    "#.#...#.#",
    "#.#####.#",
    "#.......#",
    "#########",
]
MOVES = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}
CELLS = [(r, c) for r, row in enumerate(MAZE) for c, x in enumerate(row) if x == "."]


def step(state, action):
    """The test's own simulator of the maze."""
    r, c = state
    dr, dc = MOVES[action]
    return (r + dr, c + dc) if MAZE[r + dr][c + dc] != "#" else state
