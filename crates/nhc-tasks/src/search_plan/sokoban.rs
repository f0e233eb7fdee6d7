//! Sokoban, the training world of the search-and-plan family (MODEL §9, paper Supplementary
//! "Search & Plan"): an N × N grid enclosed by walls, each cell empty, wall, box or agent; the
//! agent moves U, R, D, L and pushes a box ahead of it onto an empty cell. A move into a wall,
//! or a push against a wall or another box, leaves the state unchanged. The same rules on 8 × 8
//! boards are the transfer world `sokoban8` (MODEL §10).

use super::world::Starts;
use super::{ACTIONS, World};
use crate::SampleRng;
use crate::words::ordinal;
use rand::RngExt;
use serde_json::Value;
use std::fmt;

/// One cell; the one-hot encoding follows this order: {empty, wall, box, agent}.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Cell {
    #[default]
    Empty = 0,
    Wall = 1,
    Box = 2,
    Agent = 3,
}

/// The text symbols of the cells, indexed by [`Cell`]: empty, wall, box, agent.
pub type Symbols = [char; 4];

/// The training world's symbols: `-` empty, `#` wall, `$` box, `@` agent.
pub const SYMBOLS: Symbols = ['-', '#', '$', '@'];

impl Cell {
    /// The cells in one-hot order.
    pub const ALL: [Cell; 4] = [Cell::Empty, Cell::Wall, Cell::Box, Cell::Agent];

    /// Text map character: `-` empty, `#` wall, `$` box, `@` agent.
    pub fn symbol(self) -> char {
        SYMBOLS[self as usize]
    }
    /// The cell `c` stands for under `symbols` (a space is empty too).
    fn from_symbol(c: char, symbols: &Symbols) -> Option<Cell> {
        if c == ' ' {
            return Some(Cell::Empty);
        }
        Cell::ALL.into_iter().find(|&cell| symbols[cell as usize] == c)
    }
}

/// A world state: N × N cells, row 0 at the top.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board<const N: usize> {
    cells: [[Cell; N]; N],
}

/// The training size: 6 × 6, so D = 6 · 6 · 4 = 144.
pub type Board6 = Board<6>;

impl<const N: usize> Default for Board<N> {
    /// All cells empty (only a placeholder word; never a valid world).
    fn default() -> Self {
        Board { cells: [[Cell::Empty; N]; N] }
    }
}

impl<const N: usize> fmt::Debug for Board<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rows().join("/"))
    }
}

/// Row and column offsets of U, R, D, L.
const STEP: [(isize, isize); ACTIONS] = [(-1, 0), (0, 1), (1, 0), (0, -1)];

impl<const N: usize> Board<N> {
    /// Data word size D: a one-hot over {empty, wall, box, agent} per cell.
    pub const D: usize = 4 * N * N;

    pub fn cell(&self, r: usize, c: usize) -> Cell {
        self.cells[r][c]
    }
    pub fn set(&mut self, r: usize, c: usize, cell: Cell) {
        self.cells[r][c] = cell;
    }
    /// The agent's (row, column); `None` if the board has no agent.
    pub fn agent(&self) -> Option<(usize, usize)> {
        let k = self.cells.as_flattened().iter().position(|&c| c == Cell::Agent)?;
        Some((k / N, k % N))
    }
    fn offset(r: usize, c: usize, (dr, dc): (isize, isize)) -> Option<(usize, usize)> {
        let (r, c) = (r.checked_add_signed(dr)?, c.checked_add_signed(dc)?);
        (r < N && c < N).then_some((r, c))
    }

    /// The state after `action` (0..4 = U, R, D, L): a step onto an empty cell, or a push of the
    /// box ahead onto an empty cell; anything else leaves the state unchanged.
    pub fn moved(&self, action: usize) -> Self {
        let (Some((r, c)), Some(&d)) = (self.agent(), STEP.get(action)) else {
            return *self;
        };
        let Some((r1, c1)) = Self::offset(r, c, d) else {
            return *self;
        };
        let mut next = *self;
        match self.cells[r1][c1] {
            Cell::Empty => {}
            Cell::Box => match Self::offset(r1, c1, d) {
                Some((r2, c2)) if self.cells[r2][c2] == Cell::Empty => next.cells[r2][c2] = Cell::Box,
                _ => return *self,
            },
            Cell::Wall | Cell::Agent => return *self,
        }
        next.cells[r][c] = Cell::Empty;
        next.cells[r1][c1] = Cell::Agent;
        next
    }

    /// The actions [`Board::moved`] does not leave the board unchanged by (a step onto an empty
    /// cell, a push onto one), without building the boards: the action mask a.
    pub fn movable(&self) -> [bool; ACTIONS] {
        let Some((r, c)) = self.agent() else { return [false; ACTIONS] };
        std::array::from_fn(|a| match Self::offset(r, c, STEP[a]) {
            Some((r1, c1)) => match self.cells[r1][c1] {
                Cell::Empty => true,
                Cell::Box => {
                    Self::offset(r1, c1, STEP[a]).is_some_and(|(r2, c2)| self.cells[r2][c2] == Cell::Empty)
                }
                Cell::Wall | Cell::Agent => false,
            },
            None => false,
        })
    }

    /// The one-hot encoding (paper: D = 144 for 6 × 6), cells row by row, each
    /// `[empty, wall, box, agent]`.
    pub fn one_hot(&self) -> Vec<u8> {
        let mut v = vec![0; Self::D];
        for (k, cell) in self.cells.iter().flatten().enumerate() {
            v[4 * k + *cell as usize] = 1;
        }
        v
    }

    /// Text rows (`#` wall, `$` box, `@` agent, `-` empty).
    pub fn rows(&self) -> Vec<String> {
        self.rows_with(&SYMBOLS)
    }

    /// Text rows in `symbols`.
    pub fn rows_with(&self, symbols: &Symbols) -> Vec<String> {
        self.cells.iter().map(|row| row.iter().map(|&c| symbols[c as usize]).collect()).collect()
    }

    /// The inner rows only (the border is always wall), joined by `/`: the compact form of traces.
    pub fn show(&self) -> String {
        self.show_with(&SYMBOLS)
    }

    /// [`Board::show`] in `symbols`.
    pub fn show_with(&self, symbols: &Symbols) -> String {
        let inner: Vec<String> = (1..N.saturating_sub(1))
            .map(|r| (1..N - 1).map(|c| symbols[self.cells[r][c] as usize]).collect())
            .collect();
        inner.join("/")
    }

    /// A text map of N rows of N characters (`#`, `$`, `@`, `-` or space), with exactly one
    /// agent and a border of walls.
    pub fn parse(rows: &[&str]) -> Result<Self, String> {
        Self::parse_with(rows, &SYMBOLS)
    }

    /// [`Board::parse`] with the cells written in `symbols` (a space is empty too).
    pub fn parse_with(rows: &[&str], symbols: &Symbols) -> Result<Self, String> {
        let [empty, wall, boxed, agent] = *symbols;
        if rows.len() != N {
            return Err(format!("the map must have {N} rows, got {}", rows.len()));
        }
        let mut board = Board::default();
        for (r, row) in rows.iter().enumerate() {
            let chars: Vec<char> = row.chars().collect();
            if chars.len() != N {
                return Err(format!("the {} row must have {N} characters, got {}", ordinal(r), chars.len()));
            }
            for (c, &ch) in chars.iter().enumerate() {
                board.cells[r][c] = Cell::from_symbol(ch, symbols).ok_or_else(|| {
                    format!(
                        "the {} row, {} column: unknown character {ch:?} (use {wall} {boxed} {agent} \
                         {empty} or space)",
                        ordinal(r),
                        ordinal(c)
                    )
                })?;
            }
        }
        let agents = board.cells.iter().flatten().filter(|&&c| c == Cell::Agent).count();
        if agents != 1 {
            return Err(format!("the map must have exactly one agent `{agent}`, got {agents}"));
        }
        for k in 0..N {
            for (r, c) in [(0, k), (N - 1, k), (k, 0), (k, N - 1)] {
                if board.cells[r][c] != Cell::Wall {
                    return Err(format!(
                        "the border must be walls: the {} row, {} column is not `{wall}`",
                        ordinal(r),
                        ordinal(c)
                    ));
                }
            }
        }
        Ok(board)
    }

    /// Inner cells: (N − 2)².
    const INNER: usize = (N - 2) * (N - 2);
    /// Most inner walls of a random world: MODEL §9's 2 on the 16 inner cells of 6 × 6, scaled by
    /// the inner area and rounded (8 × 8: 5).
    pub const MAX_WALLS: usize = (2 * Self::INNER + 8) / 16;
    /// Fewest and most boxes of a random world: MODEL §9's 1–5 on 6 × 6, scaled likewise (8 × 8:
    /// 2–11).
    pub const MIN_BOXES: usize = (Self::INNER + 8) / 16;
    pub const MAX_BOXES: usize = (5 * Self::INNER + 8) / 16;

    /// A random world (MODEL §9): border walls, then uniformly 0–[`Board::MAX_WALLS`] inner walls
    /// and [`Board::MIN_BOXES`]–[`Board::MAX_BOXES`] boxes (6 × 6: 0–2 and 1–5), and the agent,
    /// each on a uniformly drawn empty inner cell.
    pub fn random(rng: &mut SampleRng) -> Self {
        let mut board = Board::default();
        for k in 0..N {
            for (r, c) in [(0, k), (N - 1, k), (k, 0), (k, N - 1)] {
                board.cells[r][c] = Cell::Wall;
            }
        }
        let (walls, boxes) =
            (rng.random_range(0..=Self::MAX_WALLS), rng.random_range(Self::MIN_BOXES..=Self::MAX_BOXES));
        let kinds = std::iter::repeat_n(Cell::Wall, walls)
            .chain(std::iter::repeat_n(Cell::Box, boxes))
            .chain(std::iter::once(Cell::Agent));
        for kind in kinds {
            let empty: Vec<(usize, usize)> = (1..N - 1)
                .flat_map(|r| (1..N - 1).map(move |c| (r, c)))
                .filter(|&(r, c)| board.cells[r][c] == Cell::Empty)
                .collect();
            let (r, c) = empty[rng.random_range(0..empty.len())];
            board.cells[r][c] = kind;
        }
        board
    }
}

impl<const N: usize> Board<N> {
    /// Every board [`Board::random`] draws, two bits a cell ([`Cell`], inner cells row by row): by
    /// walls, then boxes, then the cells they take (lowest first), then the agent's cell. `None`
    /// beyond 16 inner cells (8 × 8 has about 10¹⁵). 6 × 6: Σ C(16, w) C(16 − w, b) (16 − w − b)
    /// over w ≤ 2, 1 ≤ b ≤ 5, that is 4 909 088 boards.
    pub fn support() -> Option<Vec<u32>> {
        let cells = u32::try_from(Self::INNER).ok().filter(|&c| c <= 16)?;
        let mut out = Vec::new();
        for walls in 0..=Self::MAX_WALLS as u32 {
            for boxes in Self::MIN_BOXES as u32..=Self::MAX_BOXES as u32 {
                for w in subsets(cells, walls) {
                    for b in subsets(cells, boxes).filter(|b| b & w == 0) {
                        for a in (0..cells).filter(|a| (w | b) >> a & 1 == 0) {
                            let kind = |k: u32| match (w >> k & 1, b >> k & 1) {
                                (1, _) => Cell::Wall,
                                (_, 1) => Cell::Box,
                                _ if k == a => Cell::Agent,
                                _ => Cell::Empty,
                            };
                            out.push((0..cells).fold(0, |code, k| code | (kind(k) as u32) << (2 * k)));
                        }
                    }
                }
            }
        }
        Some(out)
    }

    /// The board of a [`Board::support`] code: border walls, inner cells from the code.
    pub fn unpack(code: u32) -> Self {
        let mut board = Board { cells: [[Cell::Wall; N]; N] };
        for k in 0..Self::INNER.min(16) {
            board.cells[1 + k / (N - 2)][1 + k % (N - 2)] = Cell::ALL[(code >> (2 * k) & 3) as usize];
        }
        board
    }
}

/// The `k`-element subsets of `0..n` (n ≤ 16) as bit masks, ascending (Gosper's hack).
fn subsets(n: u32, k: u32) -> impl Iterator<Item = u32> {
    std::iter::successors(Some((1u32 << k) - 1), move |&x| {
        let low = x & x.wrapping_neg();
        let up = x + low;
        let next = (((up ^ x) >> 2) / low.max(1)) | up;
        (x != 0 && next < 1 << n).then_some(next)
    })
}

/// Sokoban as a [`World`]: hand-coded, exact action model, mask and equality.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sokoban<const N: usize>;

impl<const N: usize> World for Sokoban<N> {
    type State = Board<N>;
    fn name(&self) -> &'static str {
        match N {
            6 => "sokoban6",
            8 => "sokoban8",
            _ => "sokoban",
        }
    }
    fn apply(&self, s: &Board<N>, action: usize) -> Board<N> {
        s.moved(action)
    }
    /// [`Board::movable`]: the actions `apply` changes the board by.
    fn applicable(&self, s: &Board<N>) -> [bool; ACTIONS] {
        s.movable()
    }
    /// One field per cell, row by row: empty, wall, box or agent.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        Some(crate::FieldShape { count: N * N, classes: Cell::ALL.len() })
    }
    fn fields(&self, s: &Board<N>, out: &mut [u8]) {
        for (k, f) in out.iter_mut().enumerate() {
            *f = s.cell(k / N, k % N) as u8;
        }
    }
    fn state_of_fields(&self, f: &[u8]) -> Option<Board<N>> {
        if f.len() != N * N {
            return None;
        }
        let mut board = Board::default();
        for (k, &code) in f.iter().enumerate() {
            board.set(k / N, k % N, *Cell::ALL.get(usize::from(code))?);
        }
        Some(board)
    }
    fn random_state(&self, rng: &mut SampleRng) -> Board<N> {
        Board::random(rng)
    }
    /// An array of N text rows ([`Board::parse`]).
    fn parse_state(&self, v: &Value) -> Result<Board<N>, String> {
        let rows = v.as_array().ok_or_else(|| format!("must be an array of {N} strings"))?;
        let rows: Vec<&str> =
            rows.iter().map(|r| r.as_str().ok_or("every row must be a string")).collect::<Result<_, _>>()?;
        Board::parse(&rows)
    }
    /// Its text rows.
    fn state_json(&self, s: &Board<N>) -> Value {
        s.rows().into()
    }
    fn form(&self) -> String {
        format!("an array of {N} strings (a text map)")
    }
    fn rows(&self, s: &Board<N>) -> Vec<String> {
        s.rows()
    }
    fn show(&self, s: &Board<N>) -> String {
        s.show()
    }
    /// The agent's moves: up, right, down, left.
    fn action_names(&self) -> [&'static str; ACTIONS] {
        ["U", "R", "D", "L"]
    }
    /// [`Board::support`] (6 × 6 only).
    fn starts(&self) -> Option<Starts<Board<N>>> {
        let codes = Board::<N>::support()?;
        Some(Starts { count: codes.len() as u64, nth: Box::new(move |i| Board::unpack(codes[i as usize])) })
    }
    /// sokoban6's table, levels 1–250 ([`super::goal_index_table`]).
    fn goal_index_starts(&self) -> Option<&'static [u32]> {
        (N == 6).then_some(&super::goal_index_table::SOKOBAN6[..])
    }
}
