//! The level sampler of the family (docs/DESIGN.md, "Search and plan").

use super::tree::Problem;
use super::world::{ACTIONS, World, children};
use crate::SampleRng;
use rand::RngExt;
use std::collections::HashSet;

/// Random starts tried for a goal in exactly expansion ℓ before [`sample_problem`] falls back.
pub const EXACT_ATTEMPTS: usize = 2_000;
/// Random starts tried by the fallback before [`sample_problem`] gives up.
pub const FALLBACK_ATTEMPTS: usize = 2_000;

/// A problem of level `level` from random starts drawn by `draw` (docs/DESIGN.md, "Search and
/// plan"): the goal is drawn uniformly among the states first produced in expansion `level` of
/// the model's BFS (never produced before, nor the start); a start without such a state is
/// drawn again. Without duplicate elimination some expansions can (almost) never produce a new
/// state (search: node 200 is reached by R L U D, which undoes itself unless boxes are pushed),
/// so after [`EXACT_ATTEMPTS`] starts the goal comes from the first expansion ≥ `level` that
/// produces a new state. A world where [`FALLBACK_ATTEMPTS`] more starts give none either (no
/// built-in world: a user's world whose actions change nothing, or whose sampler failed) gets
/// the last start as its own goal, a problem no level has, for the caller to refuse.
pub fn sample_problem<W: World>(
    world: &W,
    level: usize,
    plus: bool,
    rng: &mut SampleRng,
    mut draw: impl FnMut(&mut SampleRng) -> W::State,
) -> Problem<W::State> {
    assert!(level >= 1, "levels start at 1");
    for _ in 0..EXACT_ATTEMPTS {
        let start = draw(rng);
        if let Some(p) = exact(world, level, plus, rng, start) {
            return p;
        }
    }
    let mut start = draw(rng);
    for _ in 1..FALLBACK_ATTEMPTS {
        if let Some(p) = at_least(world, level, plus, rng, start) {
            return p;
        }
        start = draw(rng);
    }
    at_least(world, level, plus, rng, start.clone()).unwrap_or(Problem { goal: start.clone(), start })
}

/// The incremental check: grow the queue until node `level` exists, take its children, and drop
/// those met while producing the rest of expansions 1…`level` − 1, stopping when none is left.
fn exact<W: World>(
    world: &W,
    level: usize,
    plus: bool,
    rng: &mut SampleRng,
    start: W::State,
) -> Option<Problem<W::State>> {
    let mut queue = vec![start];
    let mut node = 0;
    let expand = |queue: &mut Vec<W::State>, node: usize, kids: &mut Vec<W::State>| {
        let s = queue[node].clone();
        for (_, child) in children(world, &s, plus) {
            kids.retain(|k| !world.equal(k, &child));
            queue.push(child);
        }
    };
    while queue.len() < level && node < queue.len() {
        expand(&mut queue, node, &mut Vec::new());
        node += 1;
    }
    let target = queue.get(level - 1)?.clone();
    let mut kids: Vec<W::State> = Vec::with_capacity(ACTIONS);
    for (_, child) in children(world, &target, plus) {
        if !kids.iter().any(|k| world.equal(k, &child)) && !queue.iter().any(|s| world.equal(s, &child)) {
            kids.push(child);
        }
    }
    while !kids.is_empty() && node + 1 < level {
        expand(&mut queue, node, &mut kids);
        node += 1;
    }
    if kids.is_empty() {
        return None;
    }
    let k = rng.random_range(0..kids.len());
    Some(Problem { start: queue.swap_remove(0), goal: kids.swap_remove(k) })
}

/// The fallback: the goal among the new states of the first expansion ≥ `level` that has any,
/// looking at most `level` expansions further.
fn at_least<W: World>(
    world: &W,
    level: usize,
    plus: bool,
    rng: &mut SampleRng,
    start: W::State,
) -> Option<Problem<W::State>> {
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = vec![start];
    let mut fresh = Vec::new();
    for node in 0..2 * level {
        let s = queue.get(node)?.clone();
        for (_, child) in children(world, &s, plus) {
            if seen.insert(child.clone()) && node + 1 >= level {
                fresh.push(child.clone());
            }
            queue.push(child);
        }
        if !fresh.is_empty() {
            let k = rng.random_range(0..fresh.len());
            return Some(Problem { start: queue.swap_remove(0), goal: fresh.swap_remove(k) });
        }
    }
    None
}
