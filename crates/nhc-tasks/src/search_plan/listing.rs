//! Verification of the family (docs/VERIFICATION.md, "Verification"): every problem of levels 1..=L
//! from every start the training sampler draws, and, for search and plan, one problem per goal
//! index with its reads checked by location.

use super::goal_index_table;
use super::tree::{Problem, SearchTree};
use super::world::{ACTIONS, Starts, World};
use crate::verify::{MAX_INPUTS, Part, Shaped, in_layer};
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use std::hash::Hash;
use std::sync::OnceLock;

/// Levels listed by default: (search, plan, search+, plan+), the most that stay under a minute on
/// one core for the shipped models (plan+ at 2 levels: 70 s).
pub const LEVELS: [u64; 4] = [3, 2, 2, 1];
/// Levels whose goal indices the class part covers by default (search and plan).
pub const CLASS_LEVELS: u64 = 250;
/// The class part's second axis; it marks the part whose reads are checked by location.
pub const GOAL_INDEX: &str = "goal index";
/// Starts sampled, evenly spaced, to estimate a listing's size before building it.
const ESTIMATE_STARTS: u64 = 4_096;
/// Levels beyond which the estimate looks no further (the count only grows with the level).
const ESTIMATE_LEVELS: u64 = 1_000;
/// Nodes the class part's search for representatives may grow, over all starts it tries.
const CLASS_NODES: u64 = 4_000_000;
/// Starts per block of the listing's index.
const BLOCK: u64 = 16;

/// The default level bound of a task ([`LEVELS`]).
pub fn default_levels(plus: bool, plan: bool) -> u64 {
    LEVELS[usize::from(plan) + 2 * usize::from(plus)]
}

/// The model's BFS from `start` (MODEL §9) through expansion `levels`, and the goals it has:
/// (ℓ, node) for every state first produced during expansion ℓ (never produced before and not
/// the start), in the order produced: the level-ℓ problems of [`super::sample_problem`].
pub fn goals<W: World>(
    world: &W,
    start: &W::State,
    plus: bool,
    levels: usize,
) -> (SearchTree<W::State>, Vec<(usize, usize)>) {
    let mut seen = Seen::new(start);
    let mut out = Vec::new();
    let (tree, _) = SearchTree::grow(world, start, plus, levels, |t, c| {
        if seen.insert(&t.states[c]) {
            out.push((t.expansion(c), c));
        }
        false
    });
    (tree, out)
}

/// The states a BFS has produced, compared by `==` (World::equal for a world that lists its
/// starts, [`World::starts`]): a list while short (the listing's levels), then a hash set.
struct Seen<S> {
    list: Vec<S>,
    set: FxHashSet<S>,
}

impl<S: Clone + Eq + Hash> Seen<S> {
    fn new(start: &S) -> Self {
        Seen { list: vec![start.clone()], set: FxHashSet::default() }
    }
    /// Whether `s` is new; it is seen from now on.
    fn insert(&mut self, s: &S) -> bool {
        if self.set.is_empty() {
            if self.list.contains(s) {
                return false;
            }
            if self.list.len() < 32 {
                self.list.push(s.clone());
                return true;
            }
            self.set.extend(self.list.drain(..));
        }
        self.set.insert(s.clone())
    }
}

/// The steps of the expected trace with the goal at `node` ([`super::trace`]): one per node up
/// to it, then (plan) the goal and its ancestors.
fn trace_steps<S>(tree: &SearchTree<S>, node: usize, plan: bool) -> u64 {
    let mut steps = node as u64;
    if plan {
        let mut c = node;
        steps += 1;
        while c != 0 {
            c = tree.parent[c];
            steps += 1;
        }
    }
    steps
}

/// Goals per start and level, so that the listing (level, then start, then node) has random
/// access.
struct Index {
    levels: usize,
    /// `counts[s · levels + ℓ − 1]`: the goals of level ℓ start `s` has.
    counts: Vec<u8>,
    /// `before[ℓ − 1][b]`: the goals of level ℓ of the starts below `b · BLOCK`.
    before: Vec<Vec<u64>>,
    per_level: Vec<u64>,
    steps: u64,
}

impl Index {
    fn build<W: World>(
        world: &W,
        starts: &Starts<W::State>,
        (plus, plan): (bool, bool),
        levels: usize,
    ) -> Self {
        let n = starts.count;
        let mut counts = vec![0u8; n as usize * levels];
        let steps = counts
            .par_chunks_mut(BLOCK as usize * levels)
            .enumerate()
            .map(|(b, chunk)| {
                let mut steps = 0;
                for (k, counts) in chunk.chunks_mut(levels).enumerate() {
                    let start = (starts.nth)(b as u64 * BLOCK + k as u64);
                    let (tree, goals) = goals(world, &start, plus, levels);
                    for (level, node) in goals {
                        counts[level - 1] += 1;
                        steps += trace_steps(&tree, node, plan);
                    }
                }
                steps
            })
            .sum();
        let mut before = vec![Vec::with_capacity(n.div_ceil(BLOCK) as usize); levels];
        let mut per_level = vec![0u64; levels];
        for (s, c) in counts.chunks(levels).enumerate() {
            for (l, &k) in c.iter().enumerate() {
                if (s as u64).is_multiple_of(BLOCK) {
                    before[l].push(per_level[l]);
                }
                per_level[l] += u64::from(k);
            }
        }
        Index { levels, counts, before, per_level, steps }
    }

    /// Problem `i` of the listing: (level, start, the goal's place among the start's goals of
    /// that level).
    fn find(&self, i: u64) -> (usize, u64, usize) {
        let (level, j) = in_layer(&self.per_level, i);
        let before = &self.before[level - 1];
        let b = before.partition_point(|&x| x <= j) - 1;
        let (mut j, mut s) = (j - before[b], b as u64 * BLOCK);
        loop {
            let here = u64::from(self.counts[s as usize * self.levels + level - 1]);
            if j < here {
                return (level, s, j as usize);
            }
            j -= here;
            s += 1;
        }
    }
}

/// About the goals of levels 1..=`levels` (at most [`ESTIMATE_LEVELS`]) of every start, and
/// their steps, from [`ESTIMATE_STARTS`] evenly spaced starts.
fn estimate<W: World>(
    world: &W,
    starts: &Starts<W::State>,
    (plus, plan): (bool, bool),
    levels: u64,
) -> (u64, u64) {
    let n = starts.count;
    let levels = levels.min(ESTIMATE_LEVELS) as usize;
    let (mut count, mut steps, mut tried) = (0u64, 0u64, 0u64);
    for s in (0..n).step_by((n / ESTIMATE_STARTS).max(1) as usize) {
        let (tree, goals) = goals(world, &(starts.nth)(s), plus, levels);
        count += goals.len() as u64;
        steps += goals.iter().map(|&(_, g)| trace_steps(&tree, g, plan)).sum::<u64>();
        tried += 1;
    }
    let scale = |x: u64| (x as f64 * n as f64 / tried.max(1) as f64).min(u64::MAX as f64) as u64;
    (scale(count), scale(steps))
}

/// Every problem of levels 1..=`levels` (at least 1): every start of the world's sampler
/// ([`World::starts`]) with every goal of each level, listed by level, then start, then node.
/// Its count and steps are exact, or estimated where the estimate is past the cost check's
/// [`MAX_INPUTS`] (the index is then built only if asked for). `None`: the world cannot list
/// its starts.
pub fn every_problem<W: World>(
    world: &W,
    plus: bool,
    plan: bool,
    levels: u64,
) -> Option<Part<'_, Problem<W::State>>> {
    let starts = world.starts()?;
    let (guess, guessed_steps) = estimate(world, &starts, (plus, plan), levels);
    let index = OnceLock::new();
    let levels_usize = usize::try_from(levels).unwrap_or(usize::MAX);
    // Past the cost check by a margin the estimate's error does not reach: not listed.
    let (count, steps) = if guess > MAX_INPUTS + MAX_INPUTS / 4 {
        (guess, guessed_steps)
    } else {
        let built = index.get_or_init(|| Index::build(world, &starts, (plus, plan), levels_usize));
        (built.per_level.iter().sum(), built.steps)
    };
    Some(Part {
        what: format!(
            "problem of {} ({} starts, every goal first produced in each expansion)",
            if levels == 1 { "level 1".to_string() } else { format!("levels 1–{levels}") },
            starts.count
        ),
        exhaustive: true,
        axes: ["level", ""],
        layer: "levels",
        bound: levels,
        note: None,
        count,
        steps,
        beyond_level: Some(Some),
        nth: Box::new(move |i| {
            let index = index.get_or_init(|| Index::build(world, &starts, (plus, plan), levels_usize));
            let (level, s, k) = index.find(i);
            let start = (starts.nth)(s);
            let (tree, goals) = goals(world, &start, plus, level);
            let (_, node) =
                goals.into_iter().filter(|&(l, _)| l == level).nth(k).expect("the index counts them");
            let goal = tree.states[node].clone();
            Shaped { layer: level as u64, cell: [level as u64, 0], sample: Problem { start, goal } }
        }),
    })
}

/// One problem per goal index of levels 1..=`levels` (search and plan: every action applies, so
/// node g is the child of node ⌈g/4⌉ − 1): from the world's table of the first start where the
/// goal first appears at node g, every start searched ([`World::goal_index_starts`]), else the
/// first of evenly spaced starts. Listed by goal index; the reads are checked by location
/// ([`read_steps`]). Indices no start has (table) or no start tried has are named in the note.
pub fn goal_indices<W: World>(world: &W, plan: bool, levels: u64) -> Option<Part<'_, Problem<W::State>>> {
    let starts = world.starts()?;
    let asked = levels;
    let levels = levels.min(super::MAX_LEVEL as u64);
    let nodes = levels.saturating_mul(ACTIONS as u64);
    let mut found: Vec<Option<Problem<W::State>>> = vec![None; usize::try_from(nodes).ok()?];
    let table = world.goal_index_starts().filter(|t| t.len() as u64 >= nodes);
    let tried = match table {
        Some(table) => {
            for (g, slot) in (1..).zip(found.iter_mut()) {
                let Some(&s) = table.get(g - 1).filter(|&&s| s != goal_index_table::NONE) else { continue };
                let start = (starts.nth)(u64::from(s));
                let mut states = vec![start.clone()];
                for c in 1..=g {
                    states.push(world.apply(&states[(c - 1) / ACTIONS], (c - 1) % ACTIONS));
                }
                *slot = Some(Problem { start, goal: states[g].clone() });
            }
            starts.count
        }
        None => {
            let budget = (CLASS_NODES / nodes.max(1)).clamp(1, starts.count);
            let (mut missing, mut tried) = (nodes, 0);
            for s in (0..starts.count).step_by((starts.count / budget) as usize).take(budget as usize) {
                let start = (starts.nth)(s);
                tried += 1;
                let (tree, goals) = goals(world, &start, false, levels as usize);
                for (_, g) in goals {
                    if found[g - 1].is_none() {
                        found[g - 1] = Some(Problem { start: start.clone(), goal: tree.states[g].clone() });
                        missing -= 1;
                    }
                }
                if missing == 0 {
                    break;
                }
            }
            tried
        }
    };
    let every = table.is_some();
    let absent: Vec<u64> = (1..).zip(&found).filter(|(_, p)| p.is_none()).map(|(g, _)| g).collect();
    let listed: Vec<(u64, Problem<W::State>)> =
        found.into_iter().enumerate().filter_map(|(g, p)| Some((g as u64 + 1, p?))).collect();
    // The trace's steps: g, and for plan the goal and its ancestors.
    let parent = |c: u64| (c > 0).then(|| (c - 1) / ACTIONS as u64);
    let depth = |g: u64| std::iter::successors(Some(g), |&c| parent(c)).count() as u64 - 1;
    let steps = listed.iter().map(|(g, _)| g + if plan { 1 + depth(*g) } else { 0 }).sum();
    Some(Part {
        what: format!(
            "goal index of levels 1–{levels} {}, one problem each (its reads checked by location: it \
             stands for every problem whose goal first appears at that node)",
            match every {
                true => format!("some start has ({} of {nodes}; every start searched)", listed.len()),
                false => format!("found in {tried} starts"),
            }
        ),
        exhaustive: true,
        axes: ["level", GOAL_INDEX],
        layer: "levels",
        bound: levels,
        note: {
            let capped = (levels < asked).then(|| format!("the bound is capped at {levels} levels"));
            let absent = (!absent.is_empty()).then(|| match every {
                true => format!(
                    "no goal first appears at node {} from any of the {tried} starts: no problem has \
                     those {} goal indices",
                    ranges(&absent),
                    absent.len()
                ),
                false => format!(
                    "no goal first appears at node {} in the {tried} starts tried: those {} goal indices \
                     are not verified",
                    ranges(&absent),
                    absent.len()
                ),
            });
            let notes: Vec<String> = capped.into_iter().chain(absent).collect();
            (!notes.is_empty()).then(|| notes.join("; "))
        },
        count: listed.len() as u64,
        steps,
        beyond_level: Some(Some),
        nth: Box::new(move |i| {
            let (g, p) = &listed[i as usize];
            let level = g.div_ceil(ACTIONS as u64);
            Shaped { layer: level, cell: [level, *g], sample: p.clone() }
        }),
    })
}

/// For each goal index 1..=4·`levels` (search and plan: every action applies, so node g is the
/// child of node ⌈g/4⌉ − 1 by action (g − 1) mod 4), the first start of [`World::starts`] from
/// which the goal first appears at node g, every start searched; `None` where no start has it
/// (docs/DESIGN.md, "search and plan, goal indices").
pub fn goal_index_starts<W: World>(world: &W, levels: u64) -> Option<Vec<Option<u64>>> {
    let count = world.starts()?.count;
    goal_index_starts_among(world, levels, 0..count)
}

/// [`goal_index_starts`] over the starts numbered `among` only.
pub fn goal_index_starts_among<W: World>(
    world: &W,
    levels: u64,
    among: std::ops::Range<u64>,
) -> Option<Vec<Option<u64>>> {
    let starts = world.starts()?;
    let nodes = usize::try_from(levels.saturating_mul(ACTIONS as u64)).ok()?;
    let none = || vec![None::<u64>; nodes];
    let earlier = |a: Option<u64>, b: Option<u64>| a.zip(b).map(|(a, b)| a.min(b)).or(a).or(b);
    let first = (among.start..among.end.min(starts.count))
        .into_par_iter()
        .fold(
            || (none(), Vec::with_capacity(nodes + 1), FxHashSet::<W::State>::default()),
            |(mut first, mut states, mut seen), s| {
                let start = (starts.nth)(s);
                states.clear();
                seen.clear();
                seen.insert(start.clone());
                states.push(start);
                for g in 1..=nodes {
                    let child = world.apply(&states[(g - 1) / ACTIONS], (g - 1) % ACTIONS);
                    if seen.insert(child.clone()) {
                        first[g - 1] = earlier(first[g - 1], Some(s));
                    }
                    states.push(child);
                }
                (first, states, seen)
            },
        )
        .map(|(first, ..)| first)
        .reduce(none, |a, b| a.into_iter().zip(b).map(|(a, b)| earlier(a, b)).collect());
    Some(first)
}

/// For [`crate::Task::read_steps`]: per step of the expected trace, the node it reads, which is
/// the step that wrote it (node k is written at step k: the start at step 0, then each node the
/// step after the ALU produced it; plan's goal at step g).
pub fn read_steps<W: World>(world: &W, p: &Problem<W::State>, plus: bool, plan: bool) -> Vec<Option<u64>> {
    let (tree, Some(goal)) = SearchTree::find(world, p, plus, usize::MAX) else { return Vec::new() };
    let mut out: Vec<Option<u64>> = (1..=goal).map(|c| Some(tree.parent[c] as u64)).collect();
    if plan {
        out.push(Some(goal as u64));
        let mut c = goal;
        while c != 0 {
            c = tree.parent[c];
            out.push(Some(c as u64));
        }
    }
    out
}

/// Ascending numbers as text, runs as ranges: "29, 117–120".
fn ranges(xs: &[u64]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < xs.len() {
        let mut j = i;
        while j + 1 < xs.len() && xs[j + 1] == xs[j] + 1 {
            j += 1;
        }
        out.push(if j > i { format!("{}–{}", xs[i], xs[j]) } else { xs[i].to_string() });
        i = j + 1;
    }
    out.join(", ")
}
