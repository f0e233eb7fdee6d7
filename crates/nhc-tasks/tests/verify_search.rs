//! Verification of search, plan, search+ and plan+ (docs/VERIFICATION.md, "Verification"): the
//! exhaustive listing holds every problem of each level once, as a plain BFS written here counts
//! them, and the sampler's own definition of a level agrees; a solution wrong on one rare map is
//! caught there with the smallest counterexample; the goal-index part checks read locations.

use nhc_model::{Agent, BusDecision, MemoryDecision, Observation, Policy, ReadMode};
use nhc_tasks::any_task::Entry;
use nhc_tasks::search_plan::sokoban::{Board6, Sokoban};
use nhc_tasks::search_plan::{OP_NOP, Problem, SearchPlan, SearchTree, listing, sample_problem};
use nhc_tasks::verify::{Bounds, Part};
use nhc_tasks::{Model, Task, Workspace, registry::find, sample_rng};
use rayon::prelude::*;
use std::collections::HashSet;

/// A board as this file sees it: 36 cells row by row, 0 empty, 1 wall, 2 box, 3 agent.
type Cells = [u8; 36];

/// The 16 inner cells, row by row.
fn inner() -> impl Iterator<Item = usize> {
    (1..5).flat_map(|r| (1..5).map(move |c| 6 * r + c))
}

/// Sokoban's move, written here: a step onto an empty cell or a push of a box onto one.
fn step(b: &Cells, action: usize) -> Cells {
    let p = b.iter().position(|&c| c == 3).expect("an agent");
    let d = [-6isize, 1, 6, -1][action];
    let q = p.wrapping_add_signed(d);
    let mut next = *b;
    match b[q] {
        0 => {}
        2 if b[q.wrapping_add_signed(d)] == 0 => next[q.wrapping_add_signed(d)] = 2,
        _ => return *b,
    }
    (next[p], next[q]) = (0, 3);
    next
}

/// The sampler's starts in the listing's order: walls 0–2, then boxes 1–5, then the wall cells
/// and the box cells as ascending bit masks, then the agent's cell. As (walls, boxes) masks; the
/// agent's cells follow in `boards`.
fn mask_pairs() -> Vec<(u32, u32)> {
    let masks = |k: u32| (0u32..1 << 16).filter(move |m| m.count_ones() == k);
    let mut out = Vec::new();
    for walls in 0..=2 {
        for boxes in 1..=5 {
            for w in masks(walls) {
                out.extend(masks(boxes).filter(|b| b & w == 0).map(|b| (w, b)));
            }
        }
    }
    out
}

/// The boards of one (walls, boxes) pair, agent cell ascending.
fn boards(w: u32, b: u32) -> impl Iterator<Item = Cells> {
    (0..16).filter(move |a| (w | b) >> a & 1 == 0).map(move |a| {
        let mut cells = [1; 36];
        for (k, i) in inner().enumerate() {
            cells[i] = match (w >> k & 1, b >> k & 1) {
                (1, _) => 1,
                (_, 1) => 2,
                _ if k == a => 3,
                _ => 0,
            };
        }
        cells
    })
}

/// The goals of `start` through `levels` expansions by a plain BFS with a hash set: (level,
/// node, depth, goal) for every state never met before, in the order the model's BFS (no
/// duplicate elimination; plus: only moves that change the state) produces them.
fn plain_goals(start: &Cells, plus: bool, levels: usize) -> Vec<(usize, usize, usize, Cells)> {
    let mut seen = HashSet::from([*start]);
    let mut queue = vec![(*start, 0)];
    let mut out = Vec::new();
    for node in 0..levels {
        let Some(&(s, depth)) = queue.get(node) else { break };
        for a in 0..4 {
            let child = step(&s, a);
            if plus && child == s {
                continue;
            }
            if seen.insert(child) {
                out.push((node + 1, queue.len(), depth + 1, child));
            }
            queue.push((child, depth + 1));
        }
    }
    out
}

fn cells(b: &Board6) -> Cells {
    std::array::from_fn(|k| b.cell(k / 6, k % 6) as u8)
}

fn rows(c: &Cells) -> serde_json::Value {
    c.chunks(6).map(|r| r.iter().map(|&x| ['-', '#', '$', '@'][x as usize]).collect::<String>()).collect()
}

fn task(plus: bool, plan: bool) -> SearchPlan<Sokoban<6>> {
    SearchPlan { world: Sokoban, plus, plan }
}

/// The listing's inputs per level, from where its layers change (layers grow with the index).
fn per_level(part: &Part<'_, Problem<Board6>>, levels: u64) -> Vec<u64> {
    let first_above = |l: u64| {
        let (mut lo, mut hi) = (0, part.count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if (part.nth)(mid).layer <= l { lo = mid + 1 } else { hi = mid }
        }
        lo
    };
    (1..=levels).map(|l| first_above(l) - first_above(l - 1)).collect()
}

/// Levels 1–2 of all four tasks: the listing's problems per level and its steps (search: the
/// goal's node; plan: and the goal and its ancestors) are a plain BFS's over every start.
#[test]
fn the_listing_counts_every_level_as_a_plain_bfs_does() {
    const L: usize = 2;
    let pairs = mask_pairs();
    for plus in [false, true] {
        // Per level: problems; in all: search's steps (the goal's node) and plan's (and its path).
        let (counts, search_steps, plan_steps) = pairs
            .par_iter()
            .map(|&(w, b)| {
                let mut r = ([0u64; L], 0u64, 0u64);
                for start in boards(w, b) {
                    for (level, node, depth, _) in plain_goals(&start, plus, L) {
                        r.0[level - 1] += 1;
                        r.1 += node as u64;
                        r.2 += (node + 1 + depth) as u64;
                    }
                }
                r
            })
            .reduce(
                || ([0; L], 0, 0),
                |a, b| (std::array::from_fn(|l| a.0[l] + b.0[l]), a.1 + b.1, a.2 + b.2),
            );
        assert_eq!(pairs.iter().map(|&(w, b)| boards(w, b).count()).sum::<usize>(), 4_909_088);
        for plan in [false, true] {
            let task = task(plus, plan);
            let parts = task.shapes(&Bounds(vec![L as u64, 1]));
            let p = &parts[0];
            assert_eq!(per_level(p, L as u64), counts, "plus {plus}, plan {plan}");
            assert_eq!(p.count, counts.iter().sum::<u64>());
            assert_eq!(p.steps, if plan { plan_steps } else { search_steps }, "plus {plus}, plan {plan}");
            assert_eq!(parts.len(), if plus { 1 } else { 2 });
        }
        assert_eq!(counts, if plus { [10_456_656, 7_965_305] } else { [10_456_656, 4_245_228] });
    }
}

/// Every problem of levels 1–2 of search+ (and of levels 1–3 of search, for every seventh
/// (walls, boxes) pair) is where the plain BFS puts it in the list, and the library's own
/// search tree finds its goal first in that level's expansion.
#[test]
fn every_listed_problem_is_a_problem_of_its_level() {
    for (plus, levels, stride) in [(true, 2, 1), (false, 3, 7)] {
        let task = task(plus, false);
        let parts = task.shapes(&Bounds(if plus { vec![levels as u64] } else { vec![levels as u64, 1] }));
        let p = &parts[0];
        let pairs = mask_pairs();
        // Goals per (walls, boxes) pair and level, then where each pair's begin in the list.
        let counts: Vec<Vec<u64>> = pairs
            .par_iter()
            .map(|&(w, b)| {
                let mut c = vec![0; levels];
                boards(w, b).flat_map(|s| plain_goals(&s, plus, levels)).for_each(|g| c[g.0 - 1] += 1);
                c
            })
            .collect();
        let mut at = vec![0u64; levels];
        for l in 1..levels {
            at[l] = at[l - 1] + counts.iter().map(|c| c[l - 1]).sum::<u64>();
        }
        let begin: Vec<Vec<u64>> = counts
            .iter()
            .map(|c| {
                let here = at.clone();
                at.iter_mut().zip(c).for_each(|(a, c)| *a += c);
                here
            })
            .collect();
        assert_eq!(at[levels - 1], p.count, "plus {plus}");
        let checked: u64 = (0..pairs.len())
            .into_par_iter()
            .filter(|k| k % stride == 0)
            .map(|k| {
                let (w, b) = pairs[k];
                let mut next = begin[k].clone();
                let mut checked = 0;
                for start in boards(w, b) {
                    for (level, node, _, goal) in plain_goals(&start, plus, levels) {
                        let i = next[level - 1];
                        next[level - 1] += 1;
                        let shaped = (p.nth)(i);
                        let got = (cells(&shaped.sample.start), cells(&shaped.sample.goal));
                        assert_eq!(
                            (shaped.layer, got),
                            (level as u64, (start, goal)),
                            "plus {plus}, index {i}"
                        );
                        let (tree, found) = SearchTree::find(&Sokoban::<6>, &shaped.sample, plus, usize::MAX);
                        assert_eq!(found, Some(node), "plus {plus}, index {i}");
                        assert_eq!(tree.expansion(node), level);
                        checked += 1;
                    }
                }
                checked
            })
            .sum();
        assert!(checked > 0);
        if stride == 1 {
            assert_eq!(checked, p.count);
        }
    }
}

/// The listed goals of a start and level are the goals `sample_problem` draws from that start
/// at that level (its `exact()`, which defines a level).
#[test]
fn listed_goals_are_the_goals_the_sampler_draws() {
    let world = Sokoban::<6>;
    let starts = nhc_tasks::search_plan::World::starts(&world).expect("6 × 6 lists its starts");
    for plus in [false, true] {
        for s in (0..starts.count).step_by(997) {
            let start = (starts.nth)(s);
            let (tree, goals) = listing::goals(&world, &start, plus, 3);
            for level in 1..=3 {
                let listed: HashSet<Board6> =
                    goals.iter().filter(|g| g.0 == level).map(|&(_, n)| tree.states[n]).collect();
                if listed.is_empty() {
                    continue;
                }
                let drawn: HashSet<Board6> = (0..48)
                    .map(|i| {
                        let rng = &mut sample_rng(7, level, i);
                        sample_problem(&world, level, plus, rng, |_| start).goal
                    })
                    .collect();
                assert_eq!(drawn, listed, "start {s}, level {level}, plus {plus}");
            }
        }
    }
}

/// search+'s scripted solution, wrong on a rare map: when the action masks seen at steps 0–3
/// (c_im's first four signals: the moves that change the state read) are all four, then R D L,
/// R L and all four again, step 3 applies N.
struct RareMap {
    inner: Box<dyn Policy + Send>,
    masks: Vec<u8>,
}

const RARE: [u8; 4] = [0b1111, 0b1110, 0b1010, 0b1111];

impl Policy for RareMap {
    fn begin(&mut self) {
        self.masks.clear();
        self.inner.begin();
    }
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        self.masks.push((0..4).fold(0, |m, a| m | u8::from(obs.input_memory[a] > 0.5) << a));
        self.inner.control(obs, c_c, out)
    }
    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let mut d = self.inner.bus(c_ib, c_c, read_now);
        if self.masks == RARE {
            d.op = OP_NOP;
        }
        d
    }
}

/// The rare map's level-1 problems (its goal is the fourth child of the start), counted here;
/// the first in the list's order. A sampled check of 20 problems a level misses them.
#[test]
fn a_solution_wrong_on_a_rare_map_is_caught_with_the_smallest_counterexample() {
    let mask = |c: &Cells| (0..4).fold(0u8, |m, a| m | u8::from(step(c, a) != *c) << a);
    let rare: Vec<(Cells, Cells)> = mask_pairs()
        .into_iter()
        .flat_map(|(w, b)| boards(w, b))
        .filter_map(|s| {
            let kids: Vec<Cells> = (0..4).map(|a| step(&s, a)).filter(|k| *k != s).collect();
            let masks: Vec<u8> = std::iter::once(&s).chain(&kids[..kids.len().min(3)]).map(mask).collect();
            (masks == RARE && kids.len() == 4).then(|| (s, kids[3]))
        })
        .collect();
    let task = Entry(task(true, false));
    let config = task.0.algorithm().config.clone();
    let broken = || Agent::Nhc(Box::new(RareMap { inner: task.0.scripted(), masks: Vec::new() }));
    let r = task.verify_with(&config, &broken, "broken", &Bounds(vec![1])).expect("a verification");
    let p = &r.parts[0];
    assert_eq!((r.outcome.as_str(), p.failed, p.right_to), ("counterexample", rare.len() as u64, 0));
    assert!(
        !rare.is_empty() && (rare.len() as f64) < 1e-5 * p.inputs as f64,
        "{} of {}",
        rare.len(),
        p.inputs
    );
    let c = p.smallest.as_ref().expect("a counterexample");
    assert_eq!(c.input, serde_json::json!({"start": rows(&rare[0].0), "goal": rows(&rare[0].1)}));
    let w = c.first_wrong.as_ref().expect("a wrong step");
    assert_eq!((w.step, w.expected_op.as_deref(), w.op.as_str()), (3, Some("L"), "N"));
}

/// plan's scripted solution reading, at the first backtracking step, the location written just
/// before the goal's (B1) instead of the goal's parent (P1).
struct Backward {
    inner: Box<dyn Policy + Send>,
    backtracking: usize,
}

impl Policy for Backward {
    fn begin(&mut self) {
        self.backtracking = 0;
        self.inner.begin();
    }
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        self.inner.control(obs, c_c, out);
        // c_p = [searching, found, backtracking, start reached].
        if obs.input_controller[2] > 0.5 {
            self.backtracking += 1;
            if self.backtracking == 1 {
                out.read_modes[0] = ReadMode::Backward(0);
            }
        }
    }
    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        self.inner.bus(c_ib, c_c, read_now)
    }
}

/// On the first start of the list (the agent under the top wall, a box to its left) the goal R
/// is goal index 2, and U changes nothing: B1 then reads node 1, a word equal to the start, at
/// another location. Checked by word the run is right; the goal-index part, which checks
/// locations, catches it there.
#[test]
fn a_read_of_an_equal_word_elsewhere_is_caught_by_location() {
    let task = Entry(task(false, true));
    let config = task.0.algorithm().config.clone();
    let broken = || Agent::Nhc(Box::new(Backward { inner: task.0.scripted(), backtracking: 0 }));
    let r = task.verify_with(&config, &broken, "broken", &Bounds(vec![1, 1])).expect("a verification");
    let p = &r.parts[1];
    assert_eq!((p.failed, p.right_to, p.cells[0].failed), (3, 0, 0), "{:?}", p.cells);
    let c = p.smallest.as_ref().expect("a counterexample");
    assert_eq!((c.cell, c.shape.as_str()), ([1, 2], "level 1, goal index 2"));
    let w = c.first_wrong.as_ref().expect("a wrong step");
    let expected = w.expected_reads[0].as_deref().expect("an expected read");
    let (mode, at, word) = &w.reads[0];
    assert_eq!((w.step, mode.as_str()), (3, "B1"));
    assert!(expected.starts_with(&format!("{word} at location ")), "{expected}");
    assert!(!expected.ends_with(&format!("location {at}")), "{expected}");
    // Checked by word only, the same run is right.
    let sample = task.0.parse_input(&c.input).expect("the counterexample's input");
    let prepared = nhc_tasks::evaluate::PreparedSample::new(&task.0, sample);
    let (_, solved) = prepared.score_in(&task.0, &mut broken(), &mut Workspace::new(&config), None);
    assert!(solved);
    // The exhaustive part, checked by word, finds other level-1 problems wrong.
    assert_eq!(r.parts[0].right_to, 0);
}

/// plan's scripted solution verifies every level-1 problem and every goal index of levels
/// 1–60 that some start has (sokoban6's table); the others, which no problem has, are named.
#[test]
fn the_scripted_plan_verifies_every_goal_index_found() {
    let plan = find("plan").expect("plan");
    let r = plan.verify_beyond(&Model::Scripted, &Bounds(vec![1, 60]), 0).expect("a verification");
    assert_eq!(r.outcome, "verified");
    let p = &r.parts[1];
    assert_eq!((p.bound, p.right_to, p.failed), (60, 60, 0));
    let note = p.note.as_deref().expect("goal indices without a problem");
    assert!(
        note.starts_with("no goal first appears at node 29, 50, 55, 76, 85, 87, 93, 114, 117–120,"),
        "{note}"
    );
    let absent = 240 - p.inputs;
    assert_eq!(absent, 34);
    assert!(
        note.ends_with(&format!(
            "from any of the 4909088 starts: no problem has those {absent} goal indices"
        )),
        "{note}"
    );
}

/// A bound whose listing is past the cost check is refused from an estimate, before anything
/// is listed or run.
#[test]
fn a_listing_past_the_cost_check_is_refused() {
    let start = std::time::Instant::now();
    let e =
        find("search+").expect("search+").verify(&Model::Scripted, &Bounds(vec![40])).expect_err("refused");
    assert!(e.to_string().contains("model steps"), "{e}");
    assert!(start.elapsed().as_secs() < 30);
}
