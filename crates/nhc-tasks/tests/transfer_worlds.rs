//! search, plan, search+, plan+ in the two transfer worlds of MODEL §10, the 3 × 3 sliding puzzle
//! and block stacking: the rules against simulators written here (their own step functions on
//! text rows and label lists), the sampler against a model-order BFS written here, the scripted
//! solution and the learned models of models/ at levels 1–11, 100 and 1000, plans on user
//! problems replayed here against a shortest plan found here, and malformed input.
#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use nhc_model::{Machine, run_scored};
use nhc_tasks::evaluate::score_sample;
use nhc_tasks::registry::find_in;
use nhc_tasks::search_plan::blocks::{Blocks, BlocksTask, Stacks};
use nhc_tasks::search_plan::sliding::{Puzzle, SlidingPuzzle, SlidingTask};
use nhc_tasks::search_plan::{Answer, SearchPlan, World};
use nhc_tasks::{Model, ModelFile, Task, TaskError, sample_rng};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;

mod common;

// ---- simulators written here ----

/// A world as this file simulates it: its states and its own step function, by action name.
trait Sim: Clone + Eq + Hash + Debug {
    /// Action names in the model's order (Bus U R D L).
    const NAMES: [&'static str; 4];
    fn step(&self, action: &str) -> Self;
    /// The state's panel in a printed plan, as written here.
    fn panel(&self) -> Vec<String>;
}

/// A sliding puzzle as three text rows, `-` for the blank.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Grid(Vec<Vec<char>>);

impl Grid {
    fn of(rows: &[&str]) -> Grid {
        Grid(rows.iter().map(|r| r.chars().collect()).collect())
    }
}

impl Sim for Grid {
    const NAMES: [&'static str; 4] = ["U", "R", "D", "L"];
    /// The blank moves by one cell; the tile there takes its place. Off the board: no change.
    fn step(&self, action: &str) -> Grid {
        let (dr, dc): (i32, i32) = match action {
            "U" => (-1, 0),
            "R" => (0, 1),
            "D" => (1, 0),
            "L" => (0, -1),
            _ => panic!("no such move {action}"),
        };
        let (r, c) = (0..3)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .find(|&(r, c)| self.0[r as usize][c as usize] == '-')
            .expect("one blank");
        let (r1, c1) = (r + dr, c + dc);
        if !(0..3).contains(&r1) || !(0..3).contains(&c1) {
            return self.clone();
        }
        let mut n = self.clone();
        n.0[r as usize][c as usize] = self.0[r1 as usize][c1 as usize];
        n.0[r1 as usize][c1 as usize] = '-';
        n
    }
    fn panel(&self) -> Vec<String> {
        self.0.iter().map(|r| r.iter().collect()).collect()
    }
}

/// A block world as four lists of labels (bottom first) and the label held.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Piles {
    stacks: Vec<Vec<String>>,
    hand: Option<String>,
}

impl Piles {
    /// From the JSON form, read here.
    fn of(v: &Value) -> Piles {
        let stacks = v["stacks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_array().unwrap().iter().map(|b| b.as_str().unwrap().to_string()).collect())
            .collect();
        Piles { stacks, hand: v["holding"].as_str().map(str::to_string) }
    }
}

impl Sim for Piles {
    const NAMES: [&'static str; 4] = ["1", "2", "3", "4"];
    /// Position i: pick the top box with an empty hand, else put the box held on the pile;
    /// nothing on an empty pile (pick) or a pile of three (put).
    fn step(&self, action: &str) -> Piles {
        let i: usize = action.parse::<usize>().expect("a position") - 1;
        let mut n = self.clone();
        match n.hand.take() {
            None => n.hand = n.stacks[i].pop(),
            Some(b) if n.stacks[i].len() < 3 => n.stacks[i].push(b),
            Some(b) => n.hand = Some(b),
        }
        n
    }
    fn panel(&self) -> Vec<String> {
        let mut rows: Vec<String> = self
            .stacks
            .iter()
            .enumerate()
            .map(
                |(i, s)| {
                    if s.is_empty() { format!("{}:", i + 1) } else { format!("{}: {}", i + 1, s.join(" ")) }
                },
            )
            .collect();
        rows.push(format!("holding: {}", self.hand.as_deref().unwrap_or("-")));
        rows
    }
}

/// A library world with the simulator of this file.
trait Checked: World + Copy {
    type S: Sim;
    fn sim(&self, s: &Self::State) -> Self::S;
    /// The problem's start and goal as JSON for the task's input.
    fn json(&self, s: &Self::S) -> Value;
}

impl Checked for SlidingPuzzle {
    type S = Grid;
    fn sim(&self, s: &Puzzle) -> Grid {
        Grid(s.rows().iter().map(|r| r.chars().collect()).collect())
    }
    fn json(&self, s: &Grid) -> Value {
        json!(s.panel())
    }
}

impl Checked for Blocks {
    type S = Piles;
    fn sim(&self, s: &Stacks) -> Piles {
        Piles {
            stacks: (0..4).map(|i| s.stack(i).into_iter().map(str::to_string).collect()).collect(),
            hand: s.holding().map(str::to_string),
        }
    }
    fn json(&self, s: &Piles) -> Value {
        json!({ "stacks": s.stacks, "holding": s.hand })
    }
}

/// The model's BFS without duplicate elimination (plus: only actions that change the state):
/// the expansion (1-based) in which `goal` first appears, 0 if it is the start.
fn model_bfs_expansion<S: Sim>(start: &S, goal: &S, plus: bool, max: usize) -> Option<usize> {
    common::model_bfs_expansion(start, goal, plus, max, &S::NAMES, |s, a| s.step(a))
}

/// Shortest number of actions (BFS with duplicate elimination).
fn shortest<S: Sim>(start: &S, goal: &S) -> Option<usize> {
    common::shortest(start, goal, &S::NAMES, |s, a| s.step(a))
}

/// The states along `actions` from `start`, replayed here.
fn replay<S: Sim>(start: &S, actions: &[String]) -> Vec<S> {
    let mut states = vec![start.clone()];
    for a in actions {
        let next = states.last().unwrap().step(a);
        states.push(next);
    }
    states
}

fn names(output: &Value) -> Vec<String> {
    output.as_array().expect("a plan").iter().map(|a| a.as_str().expect("a name").to_string()).collect()
}

// ---- the worlds' rules ----

fn puzzle(rows: [&str; 3]) -> Puzzle {
    Puzzle::parse(&rows).expect("a valid puzzle")
}

fn stacks(v: Value) -> Stacks {
    Stacks::parse_json(&v).expect("a valid block world")
}

#[test]
fn sliding_moves() {
    let s = puzzle(["12-", "453", "786"]);
    let after = |a: usize| SlidingPuzzle.apply(&s, a).rows();
    assert_eq!(after(0), s.rows(), "U: the blank is on the top row");
    assert_eq!(after(1), s.rows(), "R: the blank is on the right column");
    assert_eq!(after(2), ["123", "45-", "786"], "D: the 3 slides up");
    assert_eq!(after(3), ["1-2", "453", "786"], "L: the 2 slides right");
    assert_eq!(SlidingPuzzle.applicable(&s), [false, false, true, true]);
    assert_eq!(SlidingPuzzle.applicable(&puzzle(["123", "4-5", "678"])), [true; 4]);
    assert_eq!(SlidingPuzzle.show(&s), "12-/453/786");
    assert_eq!(SlidingPuzzle.action_names(), ["U", "R", "D", "L"]);
}

#[test]
fn block_moves() {
    let s = stacks(json!({ "stacks": [["A", "B"], [], ["C", "D", "E"], []], "holding": null }));
    let after = |s: &Stacks, a: usize| Blocks.sim(&Blocks.apply(s, a));
    let sim = Blocks.sim(&s);
    assert_eq!(after(&s, 1), sim, "pick from an empty stack: nothing");
    let picked = after(&s, 0);
    assert_eq!((picked.stacks[0].clone(), picked.hand.clone()), (vec!["A".to_string()], Some("B".into())));
    assert_eq!(Blocks.applicable(&s), [true, false, true, false]);
    let held = Blocks.apply(&s, 0);
    assert_eq!(Blocks.sim(&Blocks.apply(&held, 2)), Blocks.sim(&held), "put on a full stack: nothing");
    assert_eq!(Blocks.applicable(&held), [true, true, false, true]);
    assert_eq!(Blocks.apply(&held, 0), s, "put back where it came from");
    assert_eq!(Blocks.show(&s), "A,B/-/C,D,E/- ^-");
    assert_eq!(Blocks.show(&held), "A/-/C,D,E/- ^B");
    assert_eq!(Blocks.rows(&held), ["1: A", "2:", "3: C D E", "4:", "holding: B"]);
    assert_eq!(Blocks.action_names(), ["1", "2", "3", "4"]);
    // Labels are data, not just names: A on B differs from B on A.
    let swapped = stacks(json!({ "stacks": [["B", "A"], [], ["C", "D", "E"], []], "holding": null }));
    assert!(!Blocks.equal(&s, &swapped));
}

/// The data word carries everything (labels inline, no heap), so `size_of` is its memory.
#[test]
fn data_words_are_compact() {
    assert_eq!(std::mem::size_of::<Puzzle>(), 9);
    assert!(std::mem::size_of::<Stacks>() <= 128, "{}", std::mem::size_of::<Stacks>());
}

proptest! {
    /// The worlds' rules equal the simulators written here, on random states and moves.
    #[test]
    fn rules_match_the_test_simulators(seed in any::<u64>(), moves in prop::collection::vec(0usize..4, 0..40)) {
        let mut p = SlidingPuzzle.random_state(&mut sample_rng(seed, 0, 0));
        let mut g = SlidingPuzzle.sim(&p);
        let mut b = Blocks.random_state(&mut sample_rng(seed, 0, 1));
        let mut piles = Blocks.sim(&b);
        for m in moves {
            p = SlidingPuzzle.apply(&p, m);
            g = g.step(Grid::NAMES[m]);
            prop_assert_eq!(SlidingPuzzle.sim(&p), g.clone());
            b = Blocks.apply(&b, m);
            piles = piles.step(Piles::NAMES[m]);
            prop_assert_eq!(Blocks.sim(&b), piles.clone());
        }
    }

    /// Any rows: a puzzle or a plain error, never a panic; a parsed puzzle prints as it was read.
    #[test]
    fn any_puzzle_text_parses_or_is_refused(rows in prop::collection::vec("[0-9\\- xé]{0,4}", 0..5)) {
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        if let Ok(p) = Puzzle::parse(&rows) {
            prop_assert_eq!(p.rows(), rows);
        }
    }

    /// Any lines: a block world or a plain error; a parsed one prints as its own text form.
    #[test]
    fn any_block_text_parses_or_is_refused(lines in prop::collection::vec("[1-5]: ?[A-D ]{0,9}|holding: [A-E-]", 0..7)) {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        if let Ok(s) = Stacks::parse_text(&lines) {
            let rows = s.rows();
            let again: Vec<&str> = rows.iter().map(String::as_str).collect();
            prop_assert_eq!(Stacks::parse_text(&again), Ok(s));
        }
    }
}

#[test]
fn random_puzzles_are_uniform_permutations() {
    let (mut parities, mut blanks) = (HashSet::new(), HashSet::new());
    for i in 0..2000 {
        let p = SlidingPuzzle.random_state(&mut sample_rng(5, 1, i));
        let text: String = p.rows().concat();
        let mut chars: Vec<char> = text.chars().collect();
        chars.sort_unstable();
        assert_eq!(chars.iter().collect::<String>(), "-12345678", "{p:?}");
        let tiles: Vec<char> = text.chars().filter(|&c| c != '-').collect();
        let inversions =
            (0..8).flat_map(|i| (i + 1..8).map(move |j| (i, j))).filter(|&(i, j)| tiles[i] > tiles[j]);
        parities.insert(inversions.count() % 2);
        blanks.insert(text.find('-'));
    }
    assert_eq!((parities.len(), blanks.len()), (2, 9), "both parities, the blank anywhere");
}

#[test]
fn random_block_worlds_follow_the_generator() {
    let (mut counts, mut held) = (HashSet::new(), HashSet::new());
    for i in 0..2000 {
        let s = Blocks.sim(&Blocks.random_state(&mut sample_rng(5, 1, i)));
        let mut labels: Vec<String> = s.stacks.iter().flatten().cloned().chain(s.hand.clone()).collect();
        labels.sort();
        let n = labels.len();
        assert!((3..=5).contains(&n), "{s:?}");
        assert_eq!(labels, ["A", "B", "C", "D", "E"][..n], "{s:?}");
        assert!(s.stacks.len() == 4 && s.stacks.iter().all(|p| p.len() <= 3), "{s:?}");
        counts.insert(n);
        held.insert(s.hand.is_some());
    }
    assert_eq!((counts.len(), held.len()), (3, 2));
}

// ---- levels ----

/// Levels where no start gives the goal exactly there (the sampler falls back to the next
/// expansion with a new state, docs/DESIGN.md): plain search in the sliding puzzle at 8 (node 8
/// is `U D`), 1000; in blocks at 6 (node 6 is `1 1`: pick and put back, or two nops), 11 (`2 2`),
/// 100, 1000; search+ in the sliding puzzle at 1000.
fn falls_back(world: &str, plus: bool, level: usize) -> bool {
    match (world, plus) {
        ("sliding-puzzle", false) => [8, 1000].contains(&level),
        ("sliding-puzzle", true) => level == 1000,
        ("blocks", false) => [6, 11, 100, 1000].contains(&level),
        _ => false,
    }
}

fn levels_match<W: Checked>(world: W) {
    for plus in [false, true] {
        let task = SearchPlan { world, plus, plan: false };
        for (level, samples) in (1..=11).map(|l| (l, 40)).chain([(100, 10), (1000, 3)]) {
            for i in 0..samples {
                let p = task.sample(level, &mut sample_rng(21, level, i));
                let (s, g) = (world.sim(&p.start), world.sim(&p.goal));
                let got = model_bfs_expansion(&s, &g, plus, 3 * level).expect("found");
                assert_eq!(task.reference(&p), Answer::Search { found: true, expansions: got });
                let what = format!("{} plus {plus} level {level} sample {i}", world.name());
                if falls_back(world.name(), plus, level) {
                    assert!(got > level && got <= 2 * level, "{what}: {got}");
                } else {
                    assert_eq!(got, level, "{what}");
                }
            }
        }
    }
}

#[test]
fn sliding_samples_have_their_level() {
    levels_match(SlidingPuzzle);
}

#[test]
fn block_samples_have_their_level() {
    levels_match(Blocks);
}

// ---- the scripted solution ----

/// The scripted solution on a sample: solved with fitness 1, the answer equals the reference;
/// search's expansion is the one found here, plan's actions replay here to the goal in a
/// shortest number of actions (BFS without duplicate elimination finds a shortest path first).
fn scripted_solves<W: Checked>(
    t: SearchPlan<W>,
    m: &mut Machine<W::State>,
    p: &nhc_tasks::search_plan::Problem<W::State>,
) {
    let what = format!("{} on {} {p:?}", t.algorithm().name, t.world.name());
    let (outcome, solved) = score_sample(&t, m, &mut t.scripted(), p);
    assert!(solved && outcome.fitness() == 1.0, "{what}: {outcome:?}");
    let mut modules = t.modules(p);
    let mut machine = Machine::new(&t.algorithm().config);
    run_scored(&mut machine, &mut modules, &mut t.scripted(), &t.trace(p), Default::default(), |_, _| {});
    let answer = t.answer(&modules);
    assert_eq!(answer, t.reference(p), "{what}");
    let (s, g) = (t.world.sim(&p.start), t.world.sim(&p.goal));
    match t.answer_json(&answer) {
        Value::Object(o) => {
            let n = model_bfs_expansion(&s, &g, t.plus, 1 << 20);
            assert_eq!((o["found"].clone(), o["expansions"].as_u64()), (json!(true), n.map(|n| n as u64)));
        }
        plan => {
            let actions = names(&plan);
            assert_eq!(replay(&s, &actions).last(), Some(&g), "{what}: {actions:?}");
            assert_eq!(Some(actions.len()), shortest(&s, &g), "{what}: a shortest plan");
        }
    }
}

fn scripted_solves_levels<W: Checked>(world: W) {
    for (plus, plan) in [(false, false), (false, true), (true, false), (true, true)] {
        let t = SearchPlan { world, plus, plan };
        let mut m = Machine::new(&t.algorithm().config);
        for (level, samples) in (1..=11).map(|l| (l, 40)).chain([(100, 20), (1000, 3)]) {
            for i in 0..samples {
                scripted_solves(t, &mut m, &t.sample(level, &mut sample_rng(7, level, i)));
            }
        }
    }
}

#[test]
fn scripted_solves_the_sliding_puzzle() {
    scripted_solves_levels(SlidingPuzzle);
}

#[test]
fn scripted_solves_blocks() {
    scripted_solves_levels(Blocks);
}

// ---- the registry ----

#[test]
fn registered_for_all_four_algorithms() {
    for name in ["search", "plan", "search+", "plan+"] {
        for domain in ["sliding-puzzle", "blocks"] {
            let task = find_in(name, Some(domain)).unwrap();
            assert_eq!((task.name(), task.domain()), (name, domain));
            assert_eq!(task.ops(), ["U", "R", "D", "L", "N"], "the Bus is the algorithm's");
            assert!(task.takes_maps());
            assert_eq!(task.max_level(), 100_000);
            assert!(matches!(
                task.evaluate(&Model::Scripted, 100_001, 1, 0),
                Err(TaskError::LevelTooHigh { max: 100_000, .. })
            ));
            let report = task.evaluate(&Model::Scripted, 1000, 4, 3).unwrap();
            assert_eq!((report.solved, report.mean_fitness), (4, 1.0), "{name} on {domain}");
        }
        assert_eq!(nhc_tasks::find(name).unwrap().domain(), "sokoban6", "training domain first");
    }
    assert_eq!(SlidingTask::PLAN.domain(), "sliding-puzzle");
    assert_eq!(BlocksTask::PLAN_PLUS.domain(), "blocks");
}

// ---- the learned models of models/ ----

fn learned(name: &str, domain: &str) -> (&'static dyn nhc_tasks::AnyTask, Model) {
    let task = find_in(name, Some(domain)).unwrap();
    let path = format!("{}/../../models/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let model = ModelFile::load(std::path::Path::new(&path), task).unwrap();
    (task, Model::Learned(Box::new(model)))
}

/// 50 samples (seed 0, as `nhc eval`) at levels 1–11, 100 and 1000: every one solved by each
/// model of `names`.
fn learned_solve(names: &[&str], domain: &str) {
    let mut failed = Vec::new();
    for &name in names {
        let (task, model) = learned(name, domain);
        for level in (1..=11).chain([100, 1000]) {
            let r = task.evaluate(&model, level, 50, 0).unwrap();
            println!("{name} on {domain}, level {level}: {}/50", r.solved);
            if r.solved != 50 {
                failed.push((name, level, r.solved));
            }
        }
    }
    assert!(failed.is_empty(), "on {domain}: (task, level, solved of 50) {failed:?}");
}

#[test]
fn learned_models_solve_the_sliding_puzzle() {
    learned_solve(&["search", "plan", "search+", "plan+"], "sliding-puzzle");
}

#[test]
fn learned_search_and_plan_solve_blocks() {
    learned_solve(&["search", "plan"], "blocks");
}

/// KNOWN FAILURE of the learned models, not of the world. In sokoban and the sliding puzzle the
/// move just made can always be undone by the opposite move, so a child's action mask (c_im of
/// search+/plan+) always has the opposite bit (after U, D is applicable); in blocks an action is
/// undone by itself (put back on the same stack), and the opposite bit is often 0. The learned
/// search+/plan+ were never shown that. At levels 1–11 (50 samples each, seed 0) all 36 failed
/// samples of search+ and 339 of the 359 of plan+ make their first wrong step right after
/// writing such a child; the other 20 (plan+) go wrong later, in the backtrack. Minimal pair:
/// `nhc trace --task plan+ --domain blocks --model models/plan+.json --input '{"start":
/// {"stacks": [[], [], [], ["C"]], "holding": "B"}, "goal": {"stacks": [["B", "C"], [], [], []],
/// "holding": null}}'`: after U the child `B/-/-/C ^-` has mask 1001 and the head moves F1 where
/// H1 is expected; with `C` on stack 3 instead (child mask 1010) that step is right, but the
/// start's word, updated while children with masks 0110 (after R), 0010 (after D) and 0011
/// (after L) were written, makes the Bus pick L instead of N when the backtrack reads it. Plain
/// search and plan (no mask in c_im) solve every sample.
#[test]
#[ignore = "known failure: learned search+/plan+ rely on the opposite move being applicable, not so in blocks"]
fn learned_search_plus_and_plan_plus_solve_blocks() {
    learned_solve(&["search+", "plan+"], "blocks");
}

// ---- user problems ----

/// Random walks of `len` actions from `start`, written here: (start, end) pairs.
fn walks<S: Sim>(start: &S, lens: &[usize], seed: u64) -> Vec<(S, S)> {
    let mut x = seed;
    lens.iter()
        .map(|&len| {
            let mut s = start.clone();
            for _ in 0..len {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                s = s.step(S::NAMES[(x >> 33) as usize % 4]);
            }
            (start.clone(), s)
        })
        .collect()
}

/// Plans of the learned `name` (plan or plan+) on `problems`: correct, and replayed here they
/// reach the goal in the shortest number of actions found here.
fn learned_plans<W: Checked>(name: &str, world: W, problems: &[(W::S, W::S)]) {
    let (task, model) = learned(name, world.name());
    let mut wrong = Vec::new();
    for (start, goal) in problems {
        let input = json!({ "start": world.json(start), "goal": world.json(goal) });
        let r = task.run(&model, &input).unwrap();
        let actions = names(&r.output);
        let ends = replay(start, &actions).last() == Some(goal);
        let shortest = shortest(start, goal);
        if !(r.correct
            && actions.iter().all(|a| W::S::NAMES.contains(&a.as_str()))
            && ends
            && Some(actions.len()) == shortest)
        {
            wrong.push(format!(
                "{input} gave {actions:?} (correct {}, reaches the goal {ends}, shortest {shortest:?})",
                r.correct
            ));
        }
    }
    assert!(wrong.is_empty(), "{name} on {}:\n{}", world.name(), wrong.join("\n"));
}

fn puzzle_problems() -> Vec<(Grid, Grid)> {
    let mut problems = vec![
        (Grid::of(&["12-", "453", "786"]), Grid::of(&["123", "456", "78-"])),
        (Grid::of(&["123", "456", "78-"]), Grid::of(&["123", "-56", "478"])),
        (Grid::of(&["-12", "345", "678"]), Grid::of(&["312", "645", "-78"])),
        (Grid::of(&["123", "4-5", "678"]), Grid::of(&["123", "4-5", "678"])),
    ];
    problems.extend(walks(&Grid::of(&["724", "5-6", "831"]), &[1, 2, 3, 4, 5, 6, 7, 8], 11));
    problems
}

fn block_problems() -> Vec<(Piles, Piles)> {
    let p = |v: Value| Piles::of(&v);
    let mut problems = vec![
        (
            p(json!({ "stacks": [["A", "B"], [], ["C"], []], "holding": null })),
            p(json!({ "stacks": [[], ["B"], ["C", "A"], []], "holding": null })),
        ),
        (
            p(json!({ "stacks": [["A", "B", "C"], [], [], []], "holding": null })),
            p(json!({ "stacks": [["A", "C", "B"], [], [], []], "holding": null })),
        ),
        (
            p(json!({ "stacks": [["red"], ["green", "blue"], [], []], "holding": "box1" })),
            p(json!({ "stacks": [[], ["green"], ["box1", "red"], ["blue"]], "holding": null })),
        ),
    ];
    let start = p(json!({ "stacks": [["A", "B"], ["C"], ["D", "E", "F"], []], "holding": null }));
    problems.extend(walks(&start, &[1, 2, 3, 4, 5, 6, 7, 8], 5));
    problems
}

#[test]
fn learned_plans_solve_user_sliding_puzzles() {
    for name in ["plan", "plan+"] {
        learned_plans(name, SlidingPuzzle, &puzzle_problems());
    }
}

#[test]
fn learned_plan_solves_user_block_problems() {
    learned_plans("plan", Blocks, &block_problems());
}

/// KNOWN FAILURE (see `learned_search_plus_and_plan_plus_solve_blocks`).
#[test]
#[ignore = "known failure: learned plan+ relies on the opposite move being applicable, not so in blocks"]
fn learned_plan_plus_solves_user_block_problems() {
    learned_plans("plan+", Blocks, &block_problems());
}

/// The printed plan: the world's action names, then every state along it (replayed here, in
/// the panels written here, at most 8 side by side), then whether it reaches the goal.
fn plan_text_replays<W: Checked>(world: W, start: &W::S, goal: &W::S) {
    let task = find_in("plan", Some(world.name())).unwrap();
    let r =
        task.run(&Model::Scripted, &json!({ "start": world.json(start), "goal": world.json(goal) })).unwrap();
    let actions = names(&r.output);
    assert!(actions.len() >= 2, "{actions:?}");
    let states = replay(start, &actions);
    let mut expected = format!("plan: {} ({} actions)\n", actions.join(" "), actions.len());
    let labels: Vec<String> = std::iter::once("start".to_string())
        .chain(actions.iter().enumerate().map(|(k, a)| format!("{} {a}", k + 1)))
        .collect();
    let panels: Vec<Vec<String>> = labels
        .iter()
        .zip(&states)
        .map(|(l, s)| std::iter::once(l.clone()).chain(s.panel()).collect())
        .collect();
    for block in panels.chunks(8) {
        let width = block.iter().flatten().map(|r| r.chars().count()).max().unwrap();
        expected.push('\n');
        for line in 0..block[0].len() {
            let cells: Vec<String> = block.iter().map(|p| format!("{:<width$}", p[line])).collect();
            expected += cells.join("  ").trim_end();
            expected.push('\n');
        }
    }
    expected += "\nthe plan reaches the goal\n";
    assert_eq!(r.text, expected);
}

#[test]
fn plans_print_the_worlds_states_and_action_names() {
    plan_text_replays(SlidingPuzzle, &Grid::of(&["12-", "453", "786"]), &Grid::of(&["123", "456", "78-"]));
    // 9 actions (U L D R R D L L U): 10 states, in two blocks.
    plan_text_replays(SlidingPuzzle, &Grid::of(&["724", "5-6", "831"]), &Grid::of(&["574", "-61", "283"]));
    let (start, goal) = block_problems().remove(0);
    plan_text_replays(Blocks, &start, &goal);
    let r = find_in("plan", Some("blocks"))
        .unwrap()
        .run(&Model::Scripted, &json!({ "start": Blocks.json(&start), "goal": Blocks.json(&goal) }))
        .unwrap();
    assert_eq!(r.output, json!(["1", "2", "1", "3"]));
    let (start, goal) = block_problems().remove(1);
    plan_text_replays(Blocks, &start, &goal);
}

/// `--start`/`--goal` files give arrays of lines: the puzzle's rows; the block world's text
/// form, as printed in plans.
#[test]
fn text_forms_are_read() {
    let input = json!({ "start": ["1: A B", "2:", "3: C", "4:", "holding: -"], "goal": ["1:", "2: B", "3: C A", "4:"] });
    let r = find_in("plan", Some("blocks")).unwrap().run(&Model::Scripted, &input).unwrap();
    assert_eq!((r.output, r.correct), (json!(["1", "2", "1", "3"]), true));
    let input = json!({ "start": ["12-", "453", "786"], "goal": ["123", "456", "78-"] });
    let r = find_in("plan+", Some("sliding-puzzle")).unwrap().run(&Model::Scripted, &input).unwrap();
    assert_eq!((r.output, r.correct), (json!(["D", "D"]), true));
}

// ---- malformed input ----

#[test]
fn bad_puzzles_are_plain_errors() {
    let task = find_in("plan", Some("sliding-puzzle")).unwrap();
    let goal = json!(["123", "456", "78-"]);
    let err =
        |start: Value| task.check_input(&json!({ "start": start, "goal": goal })).unwrap_err().to_string();
    let e = err(json!(["12-", "453", "788"]));
    assert!(e.contains("tile 8 more than once") && e.contains("tile 6 missing"), "{e}");
    let e = err(json!(["12-", "453", "78-"]));
    assert!(e.contains("the blank `-` more than once") && e.contains("tile 6 missing"), "{e}");
    assert!(err(json!(["12-", "4536", "78"])).contains("the 2nd row must have 3 characters"));
    assert!(err(json!(["12-", "453"])).contains("3 rows"));
    assert!(err(json!(["12-", "4x3", "786"])).contains("unknown character 'x'"));
    assert!(err(json!(["12-", "453", 786])).contains("string"));
    assert!(err(json!("12-453786")).contains("an array of 3 strings"));
    // An odd permutation of the goal: the other half of the states.
    let e =
        task.check_input(&json!({ "start": ["123", "456", "87-"], "goal": goal })).unwrap_err().to_string();
    assert!(e.contains("the goal cannot be reached from the start"), "{e}");
    // 31 moves from the goal, the farthest: beyond the model's BFS within the input bound.
    let e =
        task.check_input(&json!({ "start": ["867", "254", "3-1"], "goal": goal })).unwrap_err().to_string();
    assert!(e.contains("the goal is too far"), "{e}");
}

#[test]
fn bad_block_worlds_are_plain_errors() {
    let task = find_in("plan+", Some("blocks")).unwrap();
    let goal = json!({ "stacks": [["A"], ["B"], ["C"], []], "holding": null });
    let err =
        |start: Value| task.check_input(&json!({ "start": start, "goal": goal })).unwrap_err().to_string();
    let e = err(json!({ "stacks": [["A", "B", "C", "D"], [], [], []], "holding": null }));
    assert!(e.contains("the 1st stack has 4 boxes; a stack holds at most 3"), "{e}");
    assert!(
        err(json!({ "stacks": [["A"], ["B"], ["C"], [], []], "holding": null })).contains("4 stacks, got 5")
    );
    assert!(err(json!({ "stacks": [["A"], ["B"], ["C"]], "holding": null })).contains("4 stacks, got 3"));
    assert!(
        err(json!({ "stacks": [["A"], [2], ["C"], []], "holding": null }))
            .contains("must be a string, got 2")
    );
    assert!(err(json!({ "stacks": [["A"], ["B"], ["C"], []], "holding": 7 })).contains("`holding`"));
    assert!(
        err(json!({ "stacks": [["A"], ["B"], ["A"], []], "holding": null })).contains("\"A\" appears twice")
    );
    assert!(err(json!({ "stacks": [["A"], ["B"], [], []], "holding": "B" })).contains("\"B\" appears twice"));
    assert!(
        err(json!({ "stacks": [["A"], ["B"], ["C"], "D"], "holding": null }))
            .contains("the 4th stack must be an array")
    );
    assert!(
        err(json!({ "stacks": [["A"], ["B"], ["C"], ["a long label"]] })).contains("longer than 8 bytes")
    );
    assert!(err(json!({ "stacks": [["A"], ["B"], [""], []] })).contains("not allowed"));
    assert!(
        err(json!({ "stacks": [["A"], ["B"], ["C"], []], "hand": null })).contains("unknown field `hand`")
    );
    assert!(err(json!({ "holding": null })).contains("`stacks` is missing"));
    assert!(err(json!(["1: A", "2: B", "3 C", "4:"])).contains("the 3rd line must start with `3:`"));
    assert!(err(json!(42)).contains("must be"));
    // Other boxes than the start's: no plan joins them.
    let e = err(json!({ "stacks": [["A"], ["B"], ["D"], []], "holding": null }));
    assert!(e.contains("the goal cannot be reached from the start"), "{e}");
}
