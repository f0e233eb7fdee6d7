//! Sokoban with a permuted encoding, a transfer world of the search-and-plan family (MODEL §10;
//! paper: the symbols permuted, "what meant agent now means wall"): the rules of
//! [`super::sokoban`] on a data word whose cell codes, the positions of the one-hot, are
//! {empty, agent, box, wall} instead of {empty, wall, box, agent}, written with `#` for the agent
//! and `@` for a wall. Only the data modules see the encoding; the algorithmic modules run
//! unchanged.

use super::sokoban::{Board, Cell, Symbols};
use super::{ACTIONS, SearchPlan, World};
use crate::SampleRng;
use serde_json::Value;
use std::fmt;

/// What each code (one-hot position) means: {empty, agent, box, wall}; agent and wall trade
/// places against the training world's {empty, wall, box, agent}.
pub const MEANING: [Cell; 4] = [Cell::Empty, Cell::Agent, Cell::Box, Cell::Wall];

/// The code of each cell, indexed by [`Cell`] (the inverse of [`MEANING`]).
pub const CODE: [u8; 4] = [0, 3, 2, 1];

/// Text symbols, indexed by [`Cell`]: `-` empty, `@` wall, `$` box, `#` agent.
pub const SYMBOLS: Symbols = ['-', '@', '$', '#'];

/// A world state in the permuted encoding: N × N cell codes, row 0 at the top.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PermutedBoard<const N: usize> {
    codes: [[u8; N]; N],
}

impl<const N: usize> Default for PermutedBoard<N> {
    /// All cells empty (only a placeholder word; never a valid world).
    fn default() -> Self {
        PermutedBoard { codes: [[CODE[Cell::Empty as usize]; N]; N] }
    }
}

impl<const N: usize> fmt::Debug for PermutedBoard<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rows().join("/"))
    }
}

impl<const N: usize> PermutedBoard<N> {
    /// Data word size D = 4 · N · N, as in the training world.
    pub const D: usize = 4 * N * N;

    /// The board in this encoding.
    pub fn encode(board: &Board<N>) -> Self {
        PermutedBoard {
            codes: std::array::from_fn(|r| std::array::from_fn(|c| CODE[board.cell(r, c) as usize])),
        }
    }

    /// The cells the codes stand for.
    pub fn decode(&self) -> Board<N> {
        let mut board = Board::default();
        for (r, row) in self.codes.iter().enumerate() {
            for (c, &code) in row.iter().enumerate() {
                board.set(r, c, MEANING[usize::from(code)]);
            }
        }
        board
    }

    /// The code of cell (r, c): its one-hot position.
    pub fn code(&self, r: usize, c: usize) -> u8 {
        self.codes[r][c]
    }

    /// The one-hot encoding, cells row by row, each `[empty, agent, box, wall]`.
    pub fn one_hot(&self) -> Vec<u8> {
        let mut v = vec![0; Self::D];
        for (k, &code) in self.codes.iter().flatten().enumerate() {
            v[4 * k + usize::from(code)] = 1;
        }
        v
    }

    /// Text rows (`@` wall, `$` box, `#` agent, `-` empty).
    pub fn rows(&self) -> Vec<String> {
        self.decode().rows_with(&SYMBOLS)
    }

    /// A text map of N rows of N characters (`@`, `$`, `#`, `-` or space), with exactly one agent
    /// `#` and a border of walls `@`.
    pub fn parse(rows: &[&str]) -> Result<Self, String> {
        Board::parse_with(rows, &SYMBOLS).map(|b| Self::encode(&b))
    }
}

/// Sokoban in the permuted encoding as a [`World`]: the action model A, the mask a and E_t read
/// the cell codes through [`MEANING`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SokobanPermuted<const N: usize>;

impl<const N: usize> SearchPlan<SokobanPermuted<N>> {
    pub const SEARCH: Self = SearchPlan { world: SokobanPermuted, plus: false, plan: false };
    pub const PLAN: Self = SearchPlan { world: SokobanPermuted, plus: false, plan: true };
    pub const SEARCH_PLUS: Self = SearchPlan { world: SokobanPermuted, plus: true, plan: false };
    pub const PLAN_PLUS: Self = SearchPlan { world: SokobanPermuted, plus: true, plan: true };
}

impl<const N: usize> World for SokobanPermuted<N> {
    type State = PermutedBoard<N>;
    fn name(&self) -> &'static str {
        match N {
            6 => "sokoban-permuted",
            8 => "sokoban8-permuted",
            _ => "sokoban-permuted",
        }
    }
    /// The training world's moves on the decoded cells, encoded again.
    fn apply(&self, s: &PermutedBoard<N>, action: usize) -> PermutedBoard<N> {
        PermutedBoard::encode(&s.decode().moved(action))
    }
    /// The training world's generator ([`Board::random`]), encoded: the same draws give the
    /// same worlds.
    fn random_state(&self, rng: &mut SampleRng) -> PermutedBoard<N> {
        PermutedBoard::encode(&Board::random(rng))
    }
    /// An array of N text rows ([`PermutedBoard::parse`]).
    fn parse_state(&self, v: &Value) -> Result<PermutedBoard<N>, String> {
        let rows = v.as_array().ok_or_else(|| format!("must be an array of {N} strings"))?;
        let rows: Vec<&str> =
            rows.iter().map(|r| r.as_str().ok_or("every row must be a string")).collect::<Result<_, _>>()?;
        PermutedBoard::parse(&rows)
    }
    /// Its text rows (`@` wall, `#` agent).
    fn state_json(&self, s: &PermutedBoard<N>) -> Value {
        s.rows().into()
    }
    fn form(&self) -> String {
        format!("an array of {N} strings (a text map: `@` wall, `$` box, `#` agent, `-` empty)")
    }
    fn rows(&self, s: &PermutedBoard<N>) -> Vec<String> {
        s.rows()
    }
    fn show(&self, s: &PermutedBoard<N>) -> String {
        s.decode().show_with(&SYMBOLS)
    }
    /// The agent's moves: up, right, down, left.
    fn action_names(&self) -> [&'static str; ACTIONS] {
        ["U", "R", "D", "L"]
    }
    /// One field per cell, row by row: its code (the one-hot position), not its meaning.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        Some(crate::FieldShape { count: N * N, classes: 4 })
    }
    fn fields(&self, s: &PermutedBoard<N>, out: &mut [u8]) {
        for (k, f) in out.iter_mut().enumerate() {
            *f = s.codes[k / N][k % N];
        }
    }
    fn state_of_fields(&self, f: &[u8]) -> Option<PermutedBoard<N>> {
        if f.len() != N * N || f.iter().any(|&c| c > 3) {
            return None;
        }
        Some(PermutedBoard { codes: std::array::from_fn(|r| std::array::from_fn(|c| f[r * N + c])) })
    }
}
