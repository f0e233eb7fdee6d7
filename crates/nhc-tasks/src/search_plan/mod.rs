//! The search-and-plan family (SPEC §9, paper Supplementary "Search & Plan"): search, plan,
//! search+, plan+. The NHC runs breadth-first search in a world and, for plan, backtracks the
//! path from the goal to the start.
//!
//! - The BFS queue is the temporal order of writes: every step writes the state the ALU produced
//!   at the step before, so node k (the start is node 1) is written at step k − 1.
//! - A node is expanded by applying U, R, D, L in turn (search+/plan+: only the applicable ones,
//!   from the action mask a); the next node is reached by temporal linkage (F), the path by
//!   ancestry linkage (P): a node's parent is the node read when it was written.
//! - No duplicate elimination: states reached twice are two nodes.
//!
//! Level ℓ (docs/DESIGN.md, "Search and plan"): the goal appears, i.e. is produced by the ALU and
//! recognised by E_t, for the first time while node ℓ is being expanded; ℓ − 1 nodes are fully
//! expanded before, and node ℓ is the ℓ-th explored node (paper: "for level 3, three nodes have
//! to be explored"). Where no start allows that, the sampler falls back ([`sample_problem`]).
//!
//! The data modules only see the world through [`World`] (action model, action mask, equality),
//! so a transfer (8 × 8, another encoding, sliding puzzle, block stacking) implements that trait.

pub mod sokoban;

use crate::{InputError, SampleRng, Task};
use nhc_model::{
    BusDecision, Config, DataModules, MemoryDecision, Observation, Policy, ReadMode, Signals, Trace,
};
use rand::RngExt;
use serde_json::{Value, json};
use sokoban::{Board, Board6, Sokoban};
use std::collections::{HashSet, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;

/// Actions of the world (U, R, D, L); the ALU adds the nop N.
pub const ACTIONS: usize = 4;
pub const OP_U: usize = 0;
pub const OP_R: usize = 1;
pub const OP_D: usize = 2;
pub const OP_L: usize = 3;
/// ALU operation N: d_out = the state read.
pub const OP_NOP: usize = 4;
/// Operation names in Bus order.
pub const OP_NAMES: [&str; 5] = ["U", "R", "D", "L", "N"];

/// A planning domain as the data modules see it: the action model A (`apply`), the action mask
/// a (`applicable`) and the equality test E_t (`equal`), all hand-coded and exact (SPEC §9).
pub trait World: Clone + Send + Sync + 'static {
    type State: Clone + Default + Eq + Hash + Debug + Send + Sync;
    /// A: the state after `action` (0..[`ACTIONS`]); unchanged when the action has no effect.
    fn apply(&self, s: &Self::State, action: usize) -> Self::State;
    /// a: the actions that change `s` (paper: "only actions that have an effect").
    fn applicable(&self, s: &Self::State) -> [bool; ACTIONS] {
        std::array::from_fn(|k| self.apply(s, k) != *s)
    }
    /// E_t: whether two states are equal.
    fn equal(&self, a: &Self::State, b: &Self::State) -> bool {
        a == b
    }
}

/// The actions the model applies to `s`: all four (search, plan), or the applicable ones (+).
pub fn actions<W: World>(world: &W, s: &W::State, plus: bool) -> [bool; ACTIONS] {
    if plus { world.applicable(s) } else { [true; ACTIONS] }
}

/// The children of `s` in the model's order: `(action, state)` for every action it applies.
fn children<'a, W: World>(
    world: &'a W,
    s: &'a W::State,
    plus: bool,
) -> impl Iterator<Item = (usize, W::State)> + 'a {
    let mask = actions(world, s, plus);
    (0..ACTIONS).filter(move |&a| mask[a]).map(move |a| (a, world.apply(s, a)))
}

/// One problem: reach `goal` from `start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem<S> {
    pub start: S,
    pub goal: S,
}

/// The model's search tree (SPEC §9): nodes in the order they are written (the BFS queue), with
/// the parent each was produced from and the action that produced it. Node 0 is the start (its
/// own parent); node k is expanded in expansion k + 1.
#[derive(Debug, Clone)]
pub struct SearchTree<S> {
    pub states: Vec<S>,
    pub parent: Vec<usize>,
    pub action: Vec<usize>,
}

impl<S: Clone + Eq + Hash> SearchTree<S> {
    /// Expands nodes in queue order, applying every action (plus: every applicable one), until
    /// `stop(tree, child)` holds for a child just added, `max_expansions` nodes are expanded or
    /// the queue runs out. Returns the tree and the child `stop` held for.
    pub fn grow<W: World<State = S>>(
        world: &W,
        start: &S,
        plus: bool,
        max_expansions: usize,
        mut stop: impl FnMut(&Self, usize) -> bool,
    ) -> (Self, Option<usize>) {
        let mut tree = SearchTree { states: vec![start.clone()], parent: vec![0], action: vec![OP_NOP] };
        let mut node = 0;
        while node < max_expansions && node < tree.states.len() {
            let s = tree.states[node].clone();
            for (a, child) in children(world, &s, plus) {
                tree.states.push(child);
                tree.parent.push(node);
                tree.action.push(a);
                let child = tree.states.len() - 1;
                if stop(&tree, child) {
                    return (tree, Some(child));
                }
            }
            node += 1;
        }
        (tree, None)
    }

    /// The model's BFS on `problem` up to `max_expansions`: the tree and the node where the goal
    /// first appears (0 if it is the start).
    pub fn find<W: World<State = S>>(
        world: &W,
        problem: &Problem<S>,
        plus: bool,
        max_expansions: usize,
    ) -> (Self, Option<usize>) {
        if world.equal(&problem.start, &problem.goal) {
            let tree =
                SearchTree { states: vec![problem.start.clone()], parent: vec![0], action: vec![OP_NOP] };
            return (tree, Some(0));
        }
        Self::grow(world, &problem.start, plus, max_expansions, |t, c| {
            world.equal(&t.states[c], &problem.goal)
        })
    }

    /// The expansion (1-based) that produced node `c`; 0 for the start.
    pub fn expansion(&self, c: usize) -> usize {
        if c == 0 { 0 } else { self.parent[c] + 1 }
    }

    /// Actions from the start to node `c`.
    pub fn path(&self, mut c: usize) -> Vec<usize> {
        let mut out = Vec::new();
        while c != 0 {
            out.push(self.action[c]);
            c = self.parent[c];
        }
        out.reverse();
        out
    }
}

/// Random starts tried for a goal in exactly expansion ℓ before [`sample_problem`] falls back.
pub const EXACT_ATTEMPTS: usize = 2_000;

/// A problem of level `level` from random starts drawn by `draw` (docs/DESIGN.md, "Search and
/// plan"): the goal is drawn uniformly among the states first produced in expansion `level` of
/// the model's BFS (never produced before, nor the start); a start without such a state is
/// drawn again. Without duplicate elimination some expansions can (almost) never produce a new
/// state (search: node 200 is reached by R L U D, which undoes itself unless boxes are pushed),
/// so after [`EXACT_ATTEMPTS`] starts the goal comes from the first expansion ≥ `level` that
/// produces a new state.
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
    loop {
        let start = draw(rng);
        if let Some(p) = at_least(world, level, plus, rng, start) {
            return p;
        }
    }
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

/// The config of the family: L_C = 6, C = 4, h_w = h_r = 1, L_B = 5 (U R D L N); c_ic = c_ib =
/// c_p (4), c_im = c_p or, for search+/plan+, [a; c_p] (8); ALU feedback on (|c_a| = 3); Bus
/// feedback on (c_b_{t−1} names the action just applied, which c_a does not); free gates off
/// (paper); previous update and ancestry on (paper: both are needed for search and plan).
pub fn config(plus: bool) -> Config {
    Config {
        input_controller: 4,
        input_memory: if plus { 4 + ACTIONS } else { 4 },
        input_bus: 4,
        ops: 5,
        alu_feedback: 3,
        bus_feedback: true,
        ..Config::PAPER
    }
}

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

/// Input and ALU of the family (paper Supplementary "Search & Plan").
///
/// Input: `d_i` = the start at the first step, `d_out_{t−1}` after. E_t compares `d_i` with the
/// goal until the goal was found (c2), with the start after. `c_p = [c1, c2, c3, c4]` with
/// `c1 = max(0, 1 − E_t − c2_{t−1})`, `c2 = min(1, E_t + c2_{t−1})`, `c3 = (1 − E_t) c2_t`,
/// `c4 = E_t c2_{t−1}`. Stop rule: search stops at the step with `c2 = 1`, plan at `c4 = 1`.
///
/// ALU: U R D L apply the action model to the state read, N passes it on;
/// `c_a = [l, 1 − l, n]`, `l` = no action (plus: no applicable action) follows the applied one
/// in U R D L order, `n` = N was used (then `l = 0`).
#[derive(Debug, Clone)]
pub struct SearchModules<W: World> {
    world: W,
    start: W::State,
    goal: W::State,
    plus: bool,
    plan: bool,
    started: bool,
    /// c2_{t−1}.
    found: bool,
    /// The expansion the last ALU action belonged to (search phase).
    expansion: usize,
    /// Nodes fully expanded.
    completed: usize,
    found_at: Option<usize>,
    outputs: Vec<W::State>,
    phase: &'static str,
}

impl<W: World> SearchModules<W> {
    pub fn new(world: W, problem: &Problem<W::State>, plus: bool, plan: bool) -> Self {
        SearchModules {
            world,
            start: problem.start.clone(),
            goal: problem.goal.clone(),
            plus,
            plan,
            started: false,
            found: false,
            expansion: 0,
            completed: 0,
            found_at: None,
            outputs: Vec::new(),
            phase: "search",
        }
    }
    /// The expansion during which the goal appeared (0: it is the start), if it did.
    pub fn found_at(&self) -> Option<usize> {
        self.found_at
    }
    /// Nodes fully expanded (an `l = 1` action) so far.
    pub fn completed(&self) -> usize {
        self.completed
    }
    /// The ALU's outputs once the goal was found: plan's states from the goal back to the start.
    pub fn outputs(&self) -> &[W::State] {
        &self.outputs
    }
    /// Actions joining the outputs, from the start to the goal; `None` where no action leads from
    /// one output state to the next.
    pub fn plan_actions(&self) -> Vec<Option<usize>> {
        self.outputs
            .windows(2)
            .rev()
            .map(|w| {
                let (to, from) = (&w[0], &w[1]);
                (0..ACTIONS).find(|&a| {
                    !self.world.equal(from, to) && self.world.equal(&self.world.apply(from, a), to)
                })
            })
            .collect()
    }
}

impl<W: World> DataModules for SearchModules<W> {
    type Data = W::State;

    fn input(&mut self, d_out_prev: Option<&W::State>, s: &mut Signals) -> Option<W::State> {
        let d_i = match d_out_prev {
            Some(d) if self.started => d.clone(),
            _ => self.start.clone(),
        };
        self.started = true;
        let c2_prev = self.found;
        let e = self.world.equal(&d_i, if c2_prev { &self.start } else { &self.goal });
        let c2 = e || c2_prev;
        let c_p = [flag(!e && !c2_prev), flag(c2), flag(!e && c2), flag(e && c2_prev)];
        if c2 && !c2_prev {
            self.found_at = Some(self.expansion);
        }
        if (!self.plan && c2) || (self.plan && e && c2_prev) {
            return None;
        }
        self.found = c2;
        self.phase = if !c2 {
            "search"
        } else if c2_prev {
            "backtrack"
        } else {
            "goal"
        };
        s.controller.copy_from_slice(&c_p);
        s.bus.copy_from_slice(&c_p);
        if self.plus {
            let a = self.world.applicable(&d_i);
            for (k, on) in a.iter().enumerate() {
                s.memory[k] = flag(*on);
            }
            s.memory[ACTIONS..].copy_from_slice(&c_p);
        } else {
            s.memory.copy_from_slice(&c_p);
        }
        Some(d_i)
    }

    fn alu(&mut self, reads: &[W::State], op: usize, feedback: &mut [f32]) -> W::State {
        let s = &reads[0];
        let (out, last, nop) = if op < ACTIONS {
            let mask = actions(&self.world, s, self.plus);
            (self.world.apply(s, op), !mask[op + 1..].iter().any(|&b| b), false)
        } else {
            (s.clone(), false, true)
        };
        feedback.copy_from_slice(&[flag(last), flag(!last), flag(nop)]);
        if self.found {
            self.outputs.push(out.clone());
        } else {
            self.expansion = self.completed + 1;
            if last {
                self.completed += 1;
            }
        }
        out
    }

    fn phase(&self) -> &'static str {
        self.phase
    }
}

/// The expected trace (SPEC §5) for the model's tree with the goal at node `goal`; every step is
/// scored. Search phase: one step per node produced, expecting the action that produced it and
/// its parent's state on the read head. Plan then expects N with the goal read, and N with each
/// ancestor read, from the goal's parent back to the start.
pub fn trace<S: Clone + PartialEq>(tree: &SearchTree<S>, goal: usize, plan: bool) -> Trace<S> {
    let mut t = Trace::new(1);
    for c in 1..=goal {
        t.push(tree.action[c], &[Some(tree.states[tree.parent[c]].clone())]);
    }
    if plan {
        t.push(OP_NOP, &[Some(tree.states[goal].clone())]);
        let mut c = goal;
        while c != 0 {
            c = tree.parent[c];
            t.push(OP_NOP, &[Some(tree.states[c].clone())]);
        }
    }
    t
}

/// The answer of a search or plan task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// search: whether, and in which expansion, the goal appeared.
    Search { found: bool, expansions: usize },
    /// plan: the actions from the start to the goal (`None`: two output states no action joins).
    Plan(Vec<Option<usize>>),
}

/// Largest number of expansions a user's problem may need (4 · 10⁵ steps for search).
pub const MAX_INPUT_EXPANSIONS: usize = 100_000;
/// Largest number of states the reachability check visits.
pub const MAX_REACHABLE_STATES: usize = 1_000_000;

/// What a plain BFS with duplicate elimination found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Shortest number of actions.
    Distance(usize),
    Unreachable,
    /// More than the bound of states are reachable.
    TooLarge,
}

/// Shortest number of actions from `start` to `goal`, visiting at most `max_states` states.
pub fn distance<W: World>(world: &W, start: &W::State, goal: &W::State, max_states: usize) -> Reach {
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start.clone(), 0)]);
    while let Some((s, d)) = queue.pop_front() {
        if world.equal(&s, goal) {
            return Reach::Distance(d);
        }
        for a in 0..ACTIONS {
            let n = world.apply(&s, a);
            if seen.insert(n.clone()) {
                if seen.len() > max_states {
                    return Reach::TooLarge;
                }
                queue.push_back((n, d + 1));
            }
        }
    }
    Reach::Unreachable
}

/// `{"start": [rows], "goal": [rows]}` with N × N text maps (docs/DESIGN.md); the goal must be
/// reachable and found by the model's BFS within [`MAX_INPUT_EXPANSIONS`].
pub fn parse_problem<const N: usize>(v: &Value, plus: bool) -> Result<Problem<Board<N>>, InputError> {
    let obj = v
        .as_object()
        .ok_or_else(|| InputError::new("expected {\"start\": [rows], \"goal\": [rows]} with text maps"))?;
    if let Some(k) = obj.keys().find(|k| *k != "start" && *k != "goal") {
        return Err(InputError::new(format!("unknown field `{k}`; expected `start` and `goal`")));
    }
    let map = |key: &str| -> Result<Board<N>, InputError> {
        let rows = obj
            .get(key)
            .and_then(Value::as_array)
            .ok_or_else(|| InputError::new(format!("`{key}` must be an array of {N} strings")))?;
        let rows: Vec<&str> = rows
            .iter()
            .map(|r| {
                r.as_str().ok_or_else(|| InputError::new(format!("`{key}`: every row must be a string")))
            })
            .collect::<Result<_, _>>()?;
        Board::parse(&rows).map_err(|e| InputError::new(format!("`{key}`: {e}")))
    };
    let problem = Problem { start: map("start")?, goal: map("goal")? };
    let world = Sokoban::<N>;
    match distance(&world, &problem.start, &problem.goal, MAX_REACHABLE_STATES) {
        Reach::Distance(_) => {}
        Reach::Unreachable => return Err(InputError::new("the goal cannot be reached from the start")),
        Reach::TooLarge => return Err(InputError::new("the world has too many states to check")),
    }
    if SearchTree::find(&world, &problem, plus, MAX_INPUT_EXPANSIONS).1.is_none() {
        return Err(InputError::new(format!(
            "the goal is too far: breadth-first search without duplicate elimination needs more than \
             {MAX_INPUT_EXPANSIONS} expansions"
        )));
    }
    Ok(problem)
}

/// The scripted solution (docs/DESIGN.md, "Scripted solution (search and plan)").
///
/// Search phase (`c1`): the read head stays (`H1`) while the node has actions left and moves on
/// (`F1`) after an action with `l = 1`. search/plan: the action is the one after `c_b_{t−1}` in
/// U R D L order, U after `l = 1` and at the first step. search+/plan+: every write stores the
/// mask `a` of its state as its control word; the step after an action, the previous update
/// erases that action's bit (`ĝ = 1`, `v̂ = −e_op`, `ê = 0`) on the node read at t−1, so the word
/// read holds the actions not yet applied, and the Bus picks the first. Goal found (`c2`, not
/// `c3`): `C1` reads the goal just written (the newest child of the node read at t−1), N.
/// Backtracking (`c3`): `P1`, N.
#[derive(Debug, Clone, Copy)]
pub struct SearchScript {
    plus: bool,
    /// The action chosen by the memory step for the Bus (the Controller's c_c).
    op: usize,
}

impl SearchScript {
    pub fn new(plus: bool) -> Self {
        SearchScript { plus, op: OP_U }
    }
}

impl Policy for SearchScript {
    fn memory(&mut self, obs: &Observation<'_>, out: &mut MemoryDecision) {
        let c_p = obs.input_controller;
        let (searching, backtracking) = (c_p[0] > 0.5, c_p[2] > 0.5);
        let last = obs.alu_prev[0] > 0.5;
        let prev_op = obs.bus_prev.iter().position(|&b| b > 0.5).filter(|&o| o < ACTIONS);
        out.write.fill(0.0);
        if self.plus {
            out.write.copy_from_slice(&obs.input_memory[..ACTIONS]);
        }
        out.prev_write.fill(0.0);
        out.prev_erase.fill(0.0);
        out.prev_gate.fill(false);
        out.free_write.fill(false);
        out.free_read.fill(false);
        let mode = if searching {
            if let (true, Some(o)) = (self.plus, prev_op) {
                out.prev_gate[0] = true;
                out.prev_write[o] = -1.0;
            }
            self.op = match prev_op {
                Some(o) if !last && o + 1 < ACTIONS => o + 1,
                _ => OP_U,
            };
            if last { ReadMode::Forward(0) } else { ReadMode::Halt(0) }
        } else {
            self.op = OP_NOP;
            if backtracking { ReadMode::Parent(0) } else { ReadMode::Child(0) }
        };
        out.read_modes[0] = mode;
    }

    fn bus(&mut self, c_ib: &[f32], read_now: &[f32]) -> BusDecision {
        let op = if self.plus && c_ib[0] > 0.5 {
            read_now.iter().position(|&m| m > 0.5).unwrap_or(OP_NOP)
        } else {
            self.op
        };
        BusDecision { op, margin: 1.0 }
    }
}

/// A task of the family; `PLUS`: only applicable actions (search+, plan+); `PLAN`: backtrack the
/// path (plan, plan+). Training world: 6 × 6 sokoban.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchPlan<const PLUS: bool, const PLAN: bool>;

/// search (SPEC §9).
pub type Search = SearchPlan<false, false>;
/// plan (SPEC §9).
pub type Plan = SearchPlan<false, true>;
/// search+ (SPEC §9).
pub type SearchPlus = SearchPlan<true, false>;
/// plan+ (SPEC §9).
pub type PlanPlus = SearchPlan<true, true>;

impl<const PLUS: bool, const PLAN: bool> Task for SearchPlan<PLUS, PLAN> {
    type Data = Board6;
    type Sample = Problem<Board6>;
    type Answer = Answer;
    type Modules = SearchModules<Sokoban<6>>;
    type Scripted = SearchScript;
    const NAME: &'static str = match (PLUS, PLAN) {
        (false, false) => "search",
        (false, true) => "plan",
        (true, false) => "search+",
        (true, true) => "plan+",
    };
    const OPS: &'static [&'static str] = &OP_NAMES;

    fn config() -> Config {
        config(PLUS)
    }
    /// Level ℓ: the goal first appears in expansion ℓ of the model's BFS ([`sample_problem`]).
    fn sample(level: usize, rng: &mut SampleRng) -> Problem<Board6> {
        sample_problem(&Sokoban::<6>, level, PLUS, rng, Board::random)
    }
    fn modules(p: &Problem<Board6>) -> Self::Modules {
        SearchModules::new(Sokoban::<6>, p, PLUS, PLAN)
    }
    fn trace(p: &Problem<Board6>) -> Trace<Board6> {
        match SearchTree::find(&Sokoban::<6>, p, PLUS, usize::MAX) {
            (tree, Some(goal)) => trace(&tree, goal, PLAN),
            (_, None) => Trace::new(1),
        }
    }
    fn reference(p: &Problem<Board6>) -> Answer {
        let (tree, goal) = SearchTree::find(&Sokoban::<6>, p, PLUS, usize::MAX);
        match (PLAN, goal) {
            (false, Some(g)) => Answer::Search { found: true, expansions: tree.expansion(g) },
            (false, None) => Answer::Search { found: false, expansions: tree.states.len() },
            (true, Some(g)) => Answer::Plan(tree.path(g).into_iter().map(Some).collect()),
            (true, None) => Answer::Plan(Vec::new()),
        }
    }
    fn answer(m: &Self::Modules) -> Answer {
        if PLAN {
            Answer::Plan(m.plan_actions())
        } else {
            Answer::Search {
                found: m.found_at().is_some(),
                expansions: m.found_at().unwrap_or(m.completed()),
            }
        }
    }
    fn scripted() -> SearchScript {
        SearchScript::new(PLUS)
    }
    /// `{"start": [6 rows], "goal": [6 rows]}`, text maps with `#` wall, `$` box, `@` agent and
    /// `-` or space empty, including the enclosing walls.
    fn parse_input(v: &Value) -> Result<Problem<Board6>, InputError> {
        parse_problem::<6>(v, PLUS)
    }
    /// search: `{"found": bool, "expansions": n}`; plan: the actions, e.g. `["U", "L"]` (`"?"`
    /// where no action joins two output states).
    fn answer_json(a: &Answer) -> Value {
        match a {
            Answer::Search { found, expansions } => json!({ "found": found, "expansions": expansions }),
            Answer::Plan(actions) => {
                actions.iter().map(|a| a.map_or("?", |k| OP_NAMES[k])).collect::<Vec<_>>().into()
            }
        }
    }
    fn show(d: &Board6) -> String {
        d.show()
    }
    /// search: in which expansion the goal appeared; plan: the actions, then the states along
    /// them, replayed from the start in the simulator.
    fn answer_text(p: &Problem<Board6>, a: &Answer) -> String {
        match *a {
            Answer::Search { found: true, expansions: 0 } => "the start is the goal (no expansion)".into(),
            Answer::Search { found: true, expansions } => format!("goal found in expansion {expansions}"),
            Answer::Search { found: false, expansions } => {
                format!("goal not found ({expansions} expansions completed)")
            }
            Answer::Plan(ref actions) => plan_text(&Sokoban::<6>, p, actions),
        }
    }
}

/// The tasks of this family: their input is a start and a goal world.
pub const MAP_TASKS: [&str; 4] =
    [<Search as Task>::NAME, <Plan as Task>::NAME, <SearchPlus as Task>::NAME, <PlanPlus as Task>::NAME];

/// States shown side by side in one block of [`plan_text`].
const STATES_PER_BLOCK: usize = 8;

/// A plan as text: its actions, the states along it (replayed from the start, at most
/// [`STATES_PER_BLOCK`] side by side), and whether it ends at the goal.
pub fn plan_text<const N: usize>(
    world: &Sokoban<N>,
    p: &Problem<Board<N>>,
    actions: &[Option<usize>],
) -> String {
    let names: Vec<&str> = actions.iter().map(|a| a.map_or("?", |k| OP_NAMES[k])).collect();
    let mut out = if actions.is_empty() {
        "plan: no actions (the start is the goal)\n".to_string()
    } else {
        let n = actions.len();
        format!("plan: {} ({n} action{})\n", names.join(" "), if n == 1 { "" } else { "s" })
    };
    let mut states = vec![("start".to_string(), p.start)];
    for (k, a) in actions.iter().enumerate() {
        let Some(a) = *a else { break };
        let next = world.apply(&states[k].1, a);
        states.push((format!("{} {}", k + 1, OP_NAMES[a]), next));
    }
    for block in states.chunks(STATES_PER_BLOCK) {
        out.push('\n');
        // Each panel: its label, then the N rows of its map.
        let panels: Vec<Vec<String>> =
            block.iter().map(|(l, b)| std::iter::once(l.clone()).chain(b.rows()).collect()).collect();
        let width = panels.iter().map(|p| p[0].chars().count()).max().unwrap_or(0).max(N);
        for line in 0..=N {
            let cells: Vec<String> = panels.iter().map(|p| format!("{:<width$}", p[line])).collect();
            out += cells.join("  ").trim_end();
            out.push('\n');
        }
    }
    let last = &states[states.len() - 1].1;
    out += if states.len() <= actions.len() {
        "\nstep with no action joining two output states: the replay stops there\n"
    } else if world.equal(last, &p.goal) {
        "\nthe plan reaches the goal\n"
    } else {
        "\nthe plan does not reach the goal\n"
    };
    out
}
