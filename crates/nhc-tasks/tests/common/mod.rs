//! Reference searches shared by the search/plan tests, written independently of the library:
//! each test file supplies its own simulator (a state type, the world's actions in the model's
//! order, and a step function), and these searches run on top of it; plus the sokoban step on
//! text maps, shared by the sokoban tests.

// Each test file uses part of this module.
#![allow(dead_code)]

use std::collections::{HashSet, VecDeque};
use std::hash::Hash;

/// The model's BFS without duplicate elimination (plus: only actions that change the state):
/// the expansion (1-based) in which `goal` first appears, 0 if it is the start. Children are
/// generated in the order of `actions`.
pub fn model_bfs_expansion<S: Clone + PartialEq, A: Copy>(
    start: &S,
    goal: &S,
    plus: bool,
    max: usize,
    actions: &[A],
    step: impl Fn(&S, A) -> S,
) -> Option<usize> {
    if start == goal {
        return Some(0);
    }
    let mut queue = VecDeque::from([start.clone()]);
    for expansion in 1..=max {
        let s = queue.pop_front()?;
        for &a in actions {
            let n = step(&s, a);
            if plus && n == s {
                continue;
            }
            if &n == goal {
                return Some(expansion);
            }
            queue.push_back(n);
        }
    }
    None
}

/// Shortest number of actions (a plain BFS with duplicate elimination), 0 if `goal` is the
/// start.
pub fn shortest<S: Clone + Eq + Hash, A: Copy>(
    start: &S,
    goal: &S,
    actions: &[A],
    step: impl Fn(&S, A) -> S,
) -> Option<usize> {
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start.clone(), 0)]);
    while let Some((s, d)) = queue.pop_front() {
        if &s == goal {
            return Some(d);
        }
        for &a in actions {
            let n = step(&s, a);
            if seen.insert(n.clone()) {
                queue.push_back((n, d + 1));
            }
        }
    }
    None
}

pub type Grid = Vec<Vec<char>>;

/// How a world writes its cells: the agent's and the wall's symbols (`$` box and `-` empty in
/// both).
#[derive(Debug, Clone, Copy)]
pub struct Symbols {
    pub agent: char,
    pub wall: char,
}

/// `sokoban6` and `sokoban8`: the training world's symbols.
pub const PLAIN: Symbols = Symbols { agent: '@', wall: '#' };
/// `sokoban-permuted`: `#` is the agent, `@` a wall.
pub const SWAPPED: Symbols = Symbols { agent: '#', wall: '@' };

/// One move: U R D L as row/column steps; the agent steps onto `-` or pushes one box `$` onto
/// `-`; anything else (a wall, a box behind a box, the edge) leaves the map as it is.
pub fn sokoban_step(g: &Grid, dir: char, sym: Symbols) -> Grid {
    let (dr, dc): (i64, i64) = match dir {
        'U' => (-1, 0),
        'R' => (0, 1),
        'D' => (1, 0),
        'L' => (0, -1),
        _ => panic!("no such move {dir}"),
    };
    let agents: Vec<(i64, i64)> = (0..g.len())
        .flat_map(|r| (0..g[r].len()).map(move |c| (r, c)))
        .filter(|&(r, c)| g[r][c] == sym.agent)
        .map(|(r, c)| (r as i64, c as i64))
        .collect();
    assert_eq!(agents.len(), 1, "one agent in {g:?}");
    let (r, c) = agents[0];
    let get = |r: i64, c: i64| {
        usize::try_from(r)
            .ok()
            .zip(usize::try_from(c).ok())
            .and_then(|(r, c)| g.get(r)?.get(c).copied())
            .unwrap_or(sym.wall)
    };
    let mut n = g.clone();
    let (r1, c1) = (r + dr, c + dc);
    match get(r1, c1) {
        '-' => {}
        '$' if get(r1 + dr, c1 + dc) == '-' => n[(r1 + dr) as usize][(c1 + dc) as usize] = '$',
        _ => return n,
    }
    n[r as usize][c as usize] = '-';
    n[r1 as usize][c1 as usize] = sym.agent;
    n
}
