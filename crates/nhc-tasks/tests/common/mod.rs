//! Reference searches shared by the search/plan tests, written independently of the library:
//! each test file supplies its own simulator (a state type, the world's actions in the model's
//! order, and a step function), and these searches run on top of it.

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
