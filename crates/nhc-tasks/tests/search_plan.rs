//! search, plan, search+, plan+ (MODEL §9): sokoban rules, the level sampler against an
//! independent breadth-first search written here (own move rules on text maps), data modules,
//! the scripted solution at levels 1–1000 with every plan replayed in that simulator, user input.
#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use nhc_model::{DataModules, Machine, Signals, run_scored};
use nhc_tasks::evaluate::score_sample;
use nhc_tasks::search_plan::sokoban::{Board, Board6, Cell, Sokoban};
use nhc_tasks::search_plan::{
    Answer, OP_NOP, Problem, SearchModules, SearchPlan, SearchTree, World, config, plan_text,
};

type Task6 = SearchPlan<Sokoban<6>>;
const SEARCH: Task6 = Task6::SEARCH;
const PLAN: Task6 = Task6::PLAN;
const SEARCH_PLUS: Task6 = Task6::SEARCH_PLUS;
const PLAN_PLUS: Task6 = Task6::PLAN_PLUS;
use nhc_tasks::{Model, Task, find, sample_rng};
use proptest::prelude::*;
use serde_json::json;
use std::collections::{HashSet, VecDeque};

mod common;

// ---- an independent simulator on text maps ----

use common::Grid;

fn grid(b: &Board6) -> Grid {
    b.rows().iter().map(|r| r.chars().collect()).collect()
}

/// One move on a text map (`@` agent, `#` wall).
fn step(g: &Grid, dir: char) -> Grid {
    common::sokoban_step(g, dir, common::PLAIN)
}

/// The four moves in the model's order.
const MOVES: [char; 4] = ['U', 'R', 'D', 'L'];

/// The model's BFS without duplicate elimination (plus: only moves that change the map): the
/// expansion (1-based) in which `goal` first appears, 0 if it is the start.
fn model_bfs_expansion(start: &Grid, goal: &Grid, plus: bool, max: usize) -> Option<usize> {
    common::model_bfs_expansion(start, goal, plus, max, &MOVES, step)
}

/// Shortest number of moves (BFS with duplicate elimination).
fn shortest(start: &Grid, goal: &Grid) -> Option<usize> {
    common::shortest(start, goal, &MOVES, step)
}

fn board(rows: &[&str]) -> Board6 {
    Board::parse(rows).expect("valid map")
}

// ---- sokoban ----

#[test]
fn moves_and_pushes() {
    let s = board(&["######", "#-$--#", "#-@$$#", "#-$--#", "#----#", "######"]);
    let after = |a: usize| Sokoban::<6>.apply(&s, a).rows();
    // U: a box with the border behind it: blocked.
    assert_eq!(after(0), s.rows(), "box against the wall");
    // R: box, then another box: blocked.
    assert_eq!(after(1), s.rows(), "box against a box");
    // D: box below, empty below it: pushed.
    assert_eq!(after(2), ["######", "#-$--#", "#--$$#", "#-@--#", "#-$--#", "######"]);
    // L: empty: moves.
    assert_eq!(after(3), ["######", "#-$--#", "#@-$$#", "#-$--#", "#----#", "######"]);
    let wall = board(&["######", "#@#--#", "#----#", "#----#", "#----#", "######"]);
    assert_eq!(Sokoban::<6>.apply(&wall, 1), wall, "into an inner wall");
    assert_eq!(Sokoban::<6>.apply(&wall, 0), wall, "into the border");
    assert_eq!(Sokoban::<6>.applicable(&wall), [false, false, true, false]);
    assert_eq!(Sokoban::<6>.applicable(&s), [false, false, true, true]);
}

#[test]
fn an_agent_boxed_in_has_no_applicable_action() {
    let s = board(&["######", "#@$$-#", "#$---#", "#$---#", "#----#", "######"]);
    assert_eq!(Sokoban::<6>.applicable(&s), [false; 4]);
}

#[test]
fn random_worlds_follow_spec() {
    let (mut walls_seen, mut boxes_seen) = (HashSet::new(), HashSet::new());
    for i in 0..2000 {
        let b = Board6::random(&mut sample_rng(5, 1, i));
        let count = |k: Cell| {
            (1..5).flat_map(|r| (1..5).map(move |c| (r, c))).filter(|&(r, c)| b.cell(r, c) == k).count()
        };
        let (w, x, a) = (count(Cell::Wall), count(Cell::Box), count(Cell::Agent));
        assert!(w <= 2 && (1..=5).contains(&x) && a == 1, "{b:?}");
        walls_seen.insert(w);
        boxes_seen.insert(x);
        for k in 0..6 {
            for (r, c) in [(0, k), (5, k), (k, 0), (k, 5)] {
                assert_eq!(b.cell(r, c), Cell::Wall);
            }
        }
        let hot = b.one_hot();
        assert_eq!(hot.len(), 144, "D = 144");
        assert!(hot.chunks(4).all(|c| c.iter().map(|&v| u32::from(v)).sum::<u32>() == 1));
        assert_eq!(Board6::parse(&b.rows().iter().map(String::as_str).collect::<Vec<_>>()), Ok(b));
    }
    assert_eq!(walls_seen.len(), 3);
    assert_eq!(boxes_seen.len(), 5);
}

proptest! {
    /// The world's rules equal the simulator written here, on random worlds and random moves.
    #[test]
    fn rules_match_the_test_simulator(seed in any::<u64>(), moves in prop::collection::vec(0usize..4, 0..30)) {
        let mut b = Board6::random(&mut sample_rng(seed, 0, 0));
        let mut g = grid(&b);
        for m in moves {
            b = Sokoban::<6>.apply(&b, m);
            g = step(&g, ['U', 'R', 'D', 'L'][m]);
            prop_assert_eq!(grid(&b), g.clone());
        }
    }
}

// ---- levels ----

/// Every sample of level ℓ has its goal first appearing in expansion ℓ of the model's BFS,
/// by the independent BFS above.
fn sampler_matches(task_plus: bool, levels: &[(usize, u64)]) {
    for &(level, samples) in levels {
        for i in 0..samples {
            let p = if task_plus {
                SEARCH_PLUS.sample(level, &mut sample_rng(21, level, i))
            } else {
                SEARCH.sample(level, &mut sample_rng(21, level, i))
            };
            let got = model_bfs_expansion(&grid(&p.start), &grid(&p.goal), task_plus, level + 1);
            assert_eq!(got, Some(level), "plus {task_plus}, level {level}, sample {i}");
        }
    }
}

#[test]
fn samples_have_exactly_their_level() {
    let levels: Vec<(usize, u64)> =
        (1..=10).map(|l| (l, 100)).chain([(11, 30), (50, 20), (100, 10), (1000, 3)]).collect();
    sampler_matches(false, &levels);
    sampler_matches(true, &levels);
}

/// Whether each expansion 1..=max of the model's BFS produces a state never produced before.
fn new_state_expansions(start: &Grid, plus: bool, max: usize) -> Vec<bool> {
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start.clone()]);
    let mut out = Vec::new();
    while out.len() < max {
        let Some(s) = queue.pop_front() else { break };
        let mut new = false;
        for dir in ['U', 'R', 'D', 'L'] {
            let n = step(&s, dir);
            if plus && n == s {
                continue;
            }
            new |= seen.insert(n.clone());
            queue.push_back(n);
        }
        out.push(new);
    }
    out
}

/// search at level 200: node 200 is R L U D, which undoes itself unless boxes move, and no start
/// of 2 000 gives it a new state; the goal then comes from the first expansion after 200 that
/// produces one.
#[test]
fn impossible_levels_fall_back_to_the_next_expansion_with_a_new_state() {
    for i in 0..5 {
        let p = SEARCH.sample(200, &mut sample_rng(4, 200, i));
        let (s, g) = (grid(&p.start), grid(&p.goal));
        let k = model_bfs_expansion(&s, &g, false, 400).expect("found within 2ℓ expansions");
        assert!(k >= 200, "{k}");
        let new = new_state_expansions(&s, false, k);
        assert!(new[199..k - 1].iter().all(|n| !n), "no new state between expansion 200 and {k}");
        assert!(new[k - 1]);
    }
}

#[test]
fn plan_and_plan_plus_levels_are_those_of_search() {
    for l in [1, 7] {
        assert_eq!(PLAN.sample(l, &mut sample_rng(1, l, 0)), SEARCH.sample(l, &mut sample_rng(1, l, 0)));
        assert_eq!(
            PLAN_PLUS.sample(l, &mut sample_rng(1, l, 0)),
            SEARCH_PLUS.sample(l, &mut sample_rng(1, l, 0))
        );
    }
}

// ---- scripted solution ----

fn actions_of(a: &Answer) -> Vec<char> {
    match a {
        Answer::Plan(v) => {
            v.iter().map(|k| ['U', 'R', 'D', 'L'][k.expect("every step has an action")]).collect()
        }
        other => panic!("not a plan: {other:?}"),
    }
}

/// Runs the scripted solution on a sample of task `T`; checks solved, fitness 1, the answer
/// against the reference and, for plans, by replaying it here.
fn solves(t: Task6, m: &mut Machine<Board6>, p: &Problem<Board6>, level: Option<usize>) {
    let name = t.algorithm().name;
    let (outcome, solved) = score_sample(&t, m, &mut t.scripted(), p);
    assert!(solved, "{name} {p:?}: {outcome:?}");
    assert_eq!(outcome.fitness(), 1.0);
    let mut modules = t.modules(p);
    let mut machine = Machine::new(&t.algorithm().config);
    run_scored(&mut machine, &mut modules, &mut t.scripted(), &t.trace(p), Default::default(), |_, _| {});
    let answer = t.answer(&modules);
    assert_eq!(answer, t.reference(p));
    match &answer {
        Answer::Search { found, expansions } => {
            assert!(found);
            if let Some(l) = level {
                assert_eq!(*expansions, l);
            }
        }
        Answer::Plan(_) => {
            let actions = actions_of(&answer);
            let end = actions.iter().fold(grid(&p.start), |g, &a| step(&g, a));
            assert_eq!(end, grid(&p.goal), "{name} replays to the goal");
            assert_eq!(Some(actions.len()), shortest(&grid(&p.start), &grid(&p.goal)), "a shortest plan");
        }
    }
}

fn solves_levels(t: Task6) {
    let mut m = Machine::new(&t.algorithm().config);
    for (level, samples) in [(1, 200), (2, 100), (5, 100), (10, 100), (100, 20), (1000, 3)] {
        for i in 0..samples {
            let p = t.sample(level, &mut sample_rng(7, level, i));
            solves(t, &mut m, &p, Some(level));
        }
    }
}

#[test]
fn scripted_solves_search() {
    solves_levels(SEARCH);
}

#[test]
fn scripted_solves_plan() {
    solves_levels(PLAN);
}

#[test]
fn scripted_solves_search_plus() {
    solves_levels(SEARCH_PLUS);
}

#[test]
fn scripted_solves_plan_plus() {
    solves_levels(PLAN_PLUS);
}

#[test]
fn registry_evaluates_level_1000() {
    for name in ["search", "plan", "search+", "plan+"] {
        let report = find(name).unwrap().evaluate(&Model::Scripted, 1000, 4, 3).unwrap();
        assert_eq!((report.solved, report.mean_fitness), (4, 1.0), "{name}");
    }
}

/// search+ applies only actions that change the state; search applies all four to every node.
#[test]
fn plus_traces_apply_only_applicable_actions() {
    for i in 0..50 {
        let p = SEARCH_PLUS.sample(6, &mut sample_rng(2, 6, i));
        let (tree, goal) = SearchTree::find(&Sokoban::<6>, &p, true, usize::MAX);
        let goal = goal.unwrap();
        for c in 1..=goal {
            assert_ne!(tree.states[c], tree.states[tree.parent[c]]);
        }
        let p = SEARCH.sample(6, &mut sample_rng(2, 6, i));
        let (tree, goal) = SearchTree::find(&Sokoban::<6>, &p, false, usize::MAX);
        let t = SEARCH.trace(&p);
        assert_eq!(t.len(), goal.unwrap());
        assert_eq!(tree.expansion(goal.unwrap()), 6);
        assert!((0..t.len()).all(|k| t.step(k).op == Some(k % 4)), "U R D L per node");
    }
}

// ---- data modules ----

fn small() -> Problem<Board6> {
    // Goal: one step right. Start expansion: U (wall, no effect), R → goal.
    Problem {
        start: board(&["######", "#@---#", "#----#", "#----#", "#---$#", "######"]),
        goal: board(&["######", "#-@--#", "#----#", "#----#", "#---$#", "######"]),
    }
}

#[test]
fn input_signals_follow_the_papers_equations() {
    let p = small();
    let mut m = SearchModules::new(Sokoban::<6>, &p, true, true);
    let mut s = Signals::new(&config(true));
    let mut fb = [0.0; 3];
    // t = 0: the start, searching; mask of the start: R and D.
    let d = m.input(None, &mut s).unwrap();
    assert_eq!(d, p.start);
    assert_eq!(s.controller, [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(s.memory, [0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    let out = m.alu(std::slice::from_ref(&p.start), 1, &mut fb);
    assert_eq!(out, p.goal);
    assert_eq!(fb, [0.0, 1.0, 0.0], "R is not the last applicable action (D is)");
    // t = 1: the goal: c2.
    m.input(Some(&out), &mut s).unwrap();
    assert_eq!(s.controller, [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(m.found_at(), Some(1));
    let out = m.alu(std::slice::from_ref(&p.goal), OP_NOP, &mut fb);
    assert_eq!(fb, [0.0, 1.0, 1.0]);
    // t = 2: backtracking, c3.
    m.input(Some(&out), &mut s).unwrap();
    assert_eq!(s.controller, [0.0, 1.0, 1.0, 0.0]);
    let out = m.alu(std::slice::from_ref(&p.start), OP_NOP, &mut fb);
    // t = 3: the start again: c4, plan stops.
    assert!(m.input(Some(&out), &mut s).is_none());
    assert_eq!(m.outputs(), [p.goal, p.start]);
    assert_eq!(m.plan_actions(), [Some(1)]);

    // search stops at c2.
    let mut m = SearchModules::new(Sokoban::<6>, &p, false, false);
    let mut s = Signals::new(&config(false));
    m.input(None, &mut s).unwrap();
    assert_eq!(s.memory, [1.0, 0.0, 0.0, 0.0], "search: c_im = c_p");
    let out = m.alu(std::slice::from_ref(&p.start), 0, &mut fb);
    assert_eq!((out, fb), (p.start, [0.0, 1.0, 0.0]));
    m.input(Some(&p.start), &mut s).unwrap();
    let out = m.alu(std::slice::from_ref(&p.start), 3, &mut fb);
    assert_eq!(fb, [1.0, 0.0, 0.0], "L is the last action of search");
    assert_eq!(out, p.start);
    assert!(m.input(Some(&p.goal), &mut s).is_none());
}

#[test]
fn config_is_the_papers() {
    for plus in [false, true] {
        let c = config(plus);
        assert_eq!((c.controller, c.word, c.write_heads, c.read_heads, c.ops), (6, 4, 1, 1, 5));
        assert!(!c.bus_feedback && c.previous_update && c.ancestry && !c.free_gates);
        assert_eq!(c.alu_feedback, 3);
        let n = nhc_model::Layout::new(&c).len();
        assert!((300..=650).contains(&n), "paper: 300–650 parameters, got {n}");
    }
    assert_eq!(nhc_model::Layout::new(&config(false)).len(), 345);
    assert_eq!(nhc_model::Layout::new(&config(true)).len(), 417);
}

// ---- user input ----

fn input(start: &[&str], goal: &[&str]) -> serde_json::Value {
    json!({ "start": start, "goal": goal })
}

const START: [&str; 6] = ["######", "#@ $ #", "#    #", "# #  #", "#    #", "######"];
const GOAL: [&str; 6] = ["######", "#   $#", "#  @ #", "# #  #", "#    #", "######"];

#[test]
fn run_answers_user_problems() {
    let plan = find("plan").unwrap().run(&Model::Scripted, &input(&START, &GOAL)).unwrap();
    assert!(plan.correct, "{plan:?}");
    let actions: Vec<char> =
        plan.output.as_array().unwrap().iter().map(|a| a.as_str().unwrap().chars().next().unwrap()).collect();
    let s = Board6::parse(&START).unwrap();
    let g = Board6::parse(&GOAL).unwrap();
    assert_eq!(actions.iter().fold(grid(&s), |x, &a| step(&x, a)), grid(&g));
    let plus = find("plan+").unwrap().run(&Model::Scripted, &input(&START, &GOAL)).unwrap();
    assert!(plus.correct);
    assert_eq!(plus.output, plan.output, "both find the first shortest plan in U R D L order");

    let search = find("search").unwrap().run(&Model::Scripted, &input(&START, &GOAL)).unwrap();
    assert!(search.correct);
    let n = model_bfs_expansion(&grid(&s), &grid(&g), false, 100_000).unwrap();
    assert_eq!(search.output, json!({ "found": true, "expansions": n }));
    let search = find("search+").unwrap().run(&Model::Scripted, &input(&START, &GOAL)).unwrap();
    let n = model_bfs_expansion(&grid(&s), &grid(&g), true, 100_000).unwrap();
    assert_eq!(search.output, json!({ "found": true, "expansions": n }));

    // The goal is the start: found before any expansion, an empty plan.
    let same = find("search").unwrap().run(&Model::Scripted, &input(&START, &START)).unwrap();
    assert_eq!((same.output, same.correct), (json!({ "found": true, "expansions": 0 }), true));
    let same = find("plan+").unwrap().run(&Model::Scripted, &input(&START, &START)).unwrap();
    assert_eq!((same.output, same.correct), (json!([]), true));
}

/// `nhc run`'s text: the plan's states, column by column, are those of the actions replayed in
/// the simulator here, and the last is the goal.
#[test]
fn plan_text_shows_the_states_along_the_plan() {
    // The second needs 8 actions: 9 states, shown in two blocks.
    let long_start = ["######", "#@   #", "# $  #", "#    #", "#    #", "######"];
    let long_goal = ["######", "#    #", "#    #", "#   $#", "#   @#", "######"];
    for (start, goal) in [(START, GOAL), (long_start, long_goal)] {
        plan_text_replays(&start, &goal);
    }
}

/// A wrong plan and a plan with a gap (two output states no action joins) say so.
#[test]
fn plan_text_reports_wrong_and_broken_plans() {
    let p = Problem { start: Board6::parse(&START).unwrap(), goal: Board6::parse(&GOAL).unwrap() };
    let wrong = plan_text(&Sokoban::<6>, &p, &[Some(2)]);
    assert!(
        wrong.starts_with("plan: D (1 action)\n") && wrong.ends_with("the plan does not reach the goal\n")
    );
    let broken = plan_text(&Sokoban::<6>, &p, &[Some(1), None, Some(2)]);
    assert!(broken.starts_with("plan: R ? D (3 actions)"), "{broken}");
    assert!(broken.contains("start   1 R\n") && !broken.contains("3 D"), "{broken}");
    assert!(broken.ends_with("the replay stops there\n"), "{broken}");
}

fn plan_text_replays(start: &[&str], goal: &[&str]) {
    let plan = find("plan+").unwrap().run(&Model::Scripted, &input(start, goal)).unwrap();
    let actions: Vec<char> =
        plan.output.as_array().unwrap().iter().map(|a| a.as_str().unwrap().chars().next().unwrap()).collect();
    let mut expected = vec![grid(&Board6::parse(start).unwrap())];
    for &a in &actions {
        expected.push(step(expected.last().unwrap(), a));
    }
    assert_eq!(expected.last(), Some(&grid(&Board6::parse(goal).unwrap())));

    let blocks: Vec<&str> = plan.text.trim_end().split("\n\n").collect();
    let names: Vec<String> = actions.iter().map(char::to_string).collect();
    assert_eq!(blocks[0], format!("plan: {} ({} actions)", names.join(" "), actions.len()));
    assert_eq!(*blocks.last().unwrap(), "the plan reaches the goal");
    let mut shown: Vec<Grid> = Vec::new();
    for block in &blocks[1..blocks.len() - 1] {
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), 7, "a label line and 6 rows: {block}");
        let columns: Vec<Vec<&str>> = lines[1..].iter().map(|l| l.split_whitespace().collect()).collect();
        for k in 0..columns[0].len() {
            shown.push(columns.iter().map(|row| row[k].chars().collect()).collect());
        }
    }
    assert_eq!(shown, expected);
    assert_eq!(blocks.len(), 2 + expected.len().div_ceil(8));
    assert!(blocks[1].starts_with("start"));

    let search = find("search").unwrap().run(&Model::Scripted, &input(start, goal)).unwrap();
    let n = model_bfs_expansion(&expected[0], expected.last().unwrap(), false, 100_000).unwrap();
    assert_eq!(search.text, format!("goal found in expansion {n}"));
}

#[test]
fn malformed_maps_are_plain_errors() {
    let err = |v: serde_json::Value| PLAN.parse_input(&v).unwrap_err().to_string();
    let with = |row: usize, text: &str| {
        let mut m = START.to_vec();
        m[row] = text;
        input(&m, &GOAL)
    };
    assert!(err(json!([1, 2])).contains("expected"));
    assert!(err(json!({ "start": START })).contains("`goal`"));
    assert!(err(json!({ "start": START, "goal": GOAL, "x": 1 })).contains("unknown field"));
    assert!(err(json!({ "start": [1, 2, 3, 4, 5, 6], "goal": GOAL })).contains("string"));
    assert!(err(with(2, "#   #")).contains("6 characters"), "ragged");
    assert!(err(input(&START[..5], &GOAL)).contains("6 rows"), "wrong size");
    assert!(err(with(2, "# @  #")).contains("exactly one agent"), "two agents");
    assert!(err(with(1, "#  $ #")).contains("exactly one agent"), "no agent");
    assert!(err(with(2, "# x  #")).contains("unknown character"));
    assert!(err(with(2, "-    #")).contains("border"), "open border");
    let walled = ["######", "#@#  #", "##   #", "#  $ #", "#    #", "######"];
    assert!(err(input(&walled, &GOAL)).contains("cannot be reached"));
    let two_boxes = ["######", "#   $#", "#  @ #", "# #$ #", "#    #", "######"];
    assert!(err(input(&START, &two_boxes)).contains("cannot be reached"));
}

proptest! {
    /// Any text, any shape: a problem or a plain error, never a panic.
    #[test]
    fn parse_input_never_panics(rows in prop::collection::vec("[#$@ \\-xé]{0,8}", 0..9), goal_rows in prop::collection::vec("[#$@ \\-]{6}", 6)) {
        let _ = SEARCH.parse_input(&json!({ "start": rows.clone(), "goal": goal_rows.clone() }));
        let _ = PLAN_PLUS.parse_input(&json!({ "start": goal_rows, "goal": rows }));
    }
}

#[test]
fn registered_first_in_the_papers_table_order() {
    let names = nhc_tasks::names();
    assert_eq!(names[..5], ["search", "plan", "search+", "plan+", "addition"]);
    for name in ["search", "plan", "search+", "plan+"] {
        let task = find(name).unwrap();
        assert_eq!(task.ops(), ["U", "R", "D", "L", "N"]);
        assert_eq!((task.name(), task.domain()), (name, "sokoban6"));
    }
    assert_eq!(SEARCH.show(&Board6::parse(&START).unwrap()), "@-$-/----/-#--/----");
}
