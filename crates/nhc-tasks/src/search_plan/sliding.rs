//! The 3 × 3 sliding puzzle, a transfer world of the search-and-plan family (MODEL §10): tiles
//! 1–8 and one blank on a 3 × 3 board. U, R, D, L name the direction the blank moves (the tile
//! there slides into the blank); a move off the board leaves the state unchanged.

use super::SearchPlan;
use super::world::{ACTIONS, World};
use crate::SampleRng;
use crate::words::ordinal;
use rand::seq::SliceRandom;
use serde_json::Value;
use std::fmt;

/// Rows and columns of the board.
pub const SIDE: usize = 3;
/// Cells of the board.
pub const CELLS: usize = SIDE * SIDE;

/// A board: the tile of each cell row by row (row 0 at the top), 0 for the blank.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Puzzle {
    cells: [u8; CELLS],
}

impl fmt::Debug for Puzzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.show())
    }
}

/// Row and column offsets of the blank for U, R, D, L.
const STEP: [(isize, isize); ACTIONS] = [(-1, 0), (0, 1), (1, 0), (0, -1)];

impl Puzzle {
    /// The solved board `12345678-` (blank last).
    pub const SOLVED: Puzzle = Puzzle { cells: [1, 2, 3, 4, 5, 6, 7, 8, 0] };

    /// The tile at row `r`, column `c` (0 for the blank).
    pub fn tile(&self, r: usize, c: usize) -> u8 {
        self.cells[r * SIDE + c]
    }

    /// The blank's (row, column); `None` on the all-blank placeholder word only.
    pub fn blank(&self) -> Option<(usize, usize)> {
        let k = self.cells.iter().position(|&t| t == 0)?;
        Some((k / SIDE, k % SIDE))
    }

    /// The board after the blank moves by `action` (0..4 = U, R, D, L): the tile there slides into
    /// the blank; a move off the board leaves the board unchanged.
    pub fn moved(&self, action: usize) -> Self {
        let (Some((r, c)), Some(&(dr, dc))) = (self.blank(), STEP.get(action)) else {
            return *self;
        };
        match (r.checked_add_signed(dr), c.checked_add_signed(dc)) {
            (Some(r1), Some(c1)) if r1 < SIDE && c1 < SIDE => {
                let mut next = *self;
                next.cells.swap(r * SIDE + c, r1 * SIDE + c1);
                next
            }
            _ => *self,
        }
    }

    /// Text rows: digits for tiles, `-` for the blank.
    pub fn rows(&self) -> Vec<String> {
        self.cells.chunks(SIDE).map(|row| row.iter().map(|&t| symbol(t)).collect()).collect()
    }

    /// The rows joined by `/` (traces).
    pub fn show(&self) -> String {
        self.rows().join("/")
    }

    /// Three rows of three characters, tiles `1`–`8` and `-` for the blank, each exactly once.
    pub fn parse(rows: &[&str]) -> Result<Self, String> {
        if rows.len() != SIDE {
            return Err(format!("the puzzle must have {SIDE} rows, got {}", rows.len()));
        }
        let mut cells = [0; CELLS];
        for (r, row) in rows.iter().enumerate() {
            let chars: Vec<char> = row.chars().collect();
            if chars.len() != SIDE {
                return Err(format!(
                    "the {} row must have {SIDE} characters, got {}",
                    ordinal(r),
                    chars.len()
                ));
            }
            for (c, &ch) in chars.iter().enumerate() {
                cells[r * SIDE + c] = match ch {
                    '-' => 0,
                    '1'..='8' => ch as u8 - b'0',
                    _ => {
                        return Err(format!(
                            "the {} row, {} column: unknown character {ch:?} (use the tiles 1–8 and \
                             `-` for the blank)",
                            ordinal(r),
                            ordinal(c)
                        ));
                    }
                };
            }
        }
        let count = |t: u8| cells.iter().filter(|&&x| x == t).count();
        let twice: Vec<String> = (0..CELLS as u8).filter(|&t| count(t) > 1).map(describe).collect();
        let missing: Vec<String> = (0..CELLS as u8).filter(|&t| count(t) == 0).map(describe).collect();
        if !twice.is_empty() {
            return Err(format!(
                "every tile and the blank must appear exactly once: {} more than once, {} missing",
                twice.join(", "),
                missing.join(", ")
            ));
        }
        Ok(Puzzle { cells })
    }

    /// A random board: a uniform permutation of the tiles and the blank (either parity).
    pub fn random(rng: &mut SampleRng) -> Self {
        let mut p = Puzzle::SOLVED;
        p.cells.shuffle(rng);
        p
    }
}

fn symbol(t: u8) -> char {
    if t == 0 { '-' } else { char::from(b'0' + t) }
}

fn describe(t: u8) -> String {
    if t == 0 { "the blank `-`".to_string() } else { format!("tile {t}") }
}

/// The sliding puzzle as a [`World`]: hand-coded, exact action model, mask and equality.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SlidingPuzzle;

impl World for SlidingPuzzle {
    type State = Puzzle;
    fn name(&self) -> &'static str {
        "sliding-puzzle"
    }
    fn random_state(&self, rng: &mut SampleRng) -> Puzzle {
        Puzzle::random(rng)
    }
    /// An array of 3 text rows ([`Puzzle::parse`]).
    fn parse_state(&self, v: &Value) -> Result<Puzzle, String> {
        let rows = v.as_array().ok_or_else(|| format!("must be {}", self.form()))?;
        let rows: Vec<&str> =
            rows.iter().map(|r| r.as_str().ok_or("every row must be a string")).collect::<Result<_, _>>()?;
        Puzzle::parse(&rows)
    }
    /// Its text rows.
    fn state_json(&self, s: &Puzzle) -> Value {
        s.rows().into()
    }
    fn form(&self) -> String {
        format!("an array of {SIDE} strings of {SIDE} characters (tiles 1–8, `-` for the blank)")
    }
    fn rows(&self, s: &Puzzle) -> Vec<String> {
        s.rows()
    }
    fn show(&self, s: &Puzzle) -> String {
        s.show()
    }
    fn apply(&self, s: &Puzzle, action: usize) -> Puzzle {
        s.moved(action)
    }
}

/// The four algorithms in the sliding puzzle.
pub type SlidingTask = SearchPlan<SlidingPuzzle>;

impl SlidingTask {
    pub const SEARCH: Self = SearchPlan { world: SlidingPuzzle, plus: false, plan: false };
    pub const PLAN: Self = SearchPlan { world: SlidingPuzzle, plus: false, plan: true };
    pub const SEARCH_PLUS: Self = SearchPlan { world: SlidingPuzzle, plus: true, plan: false };
    pub const PLAN_PLUS: Self = SearchPlan { world: SlidingPuzzle, plus: true, plan: true };
}
