//! The search-and-plan family (MODEL §9, paper Supplementary "Search & Plan"): search, plan,
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
//! Files by concern: [`world`] (actions and the domain trait [`World`]), [`tree`] (the model's
//! search tree), [`sampler`] (levels), [`modules`] (Input and ALU), [`script`] (the scripted
//! solution), [`maps`] (a user's problems and printed plans), [`sokoban`] (the training world,
//! and `sokoban8` on 8 × 8 boards), [`permuted`] (sokoban in a permuted encoding).
//! The data modules only see the world through [`World`], so a transfer (8 × 8, another
//! encoding, sliding puzzle, block stacking) implements that trait: [`sliding`] (the 3 × 3
//! sliding puzzle) and [`blocks`] (block stacking) are two.

pub mod blocks;
pub mod goal_index_table;
pub mod learned;
pub mod listing;
pub mod maps;
pub mod modules;
pub mod permuted;
pub mod sampler;
pub mod script;
pub mod sliding;
pub mod sokoban;
pub mod tree;
pub mod world;

pub use maps::{
    MAX_INPUT_EXPANSIONS, MAX_REACHABLE_STATES, Reach, action_names, check_problem, distance, parse_problem,
    plan_text,
};
pub use modules::{SearchModules, config};
pub use sampler::{EXACT_ATTEMPTS, FALLBACK_ATTEMPTS, sample_problem};
pub use script::SearchScript;
pub use tree::{Problem, SearchTree};
pub use world::{ACTIONS, OP_D, OP_L, OP_NAMES, OP_NOP, OP_R, OP_U, World, actions};

use crate::{Algorithm, InputError, SampleRng, Task};
use nhc_model::{Policy, Trace};
use serde_json::{Value, json};
use sokoban::Sokoban;

/// Highest level of the family: the sampler draws up to [`EXACT_ATTEMPTS`] starts with a
/// breadth-first search of ℓ expansions each.
pub const MAX_LEVEL: usize = 100_000;

/// search (MODEL §9).
pub const SEARCH: Algorithm = Algorithm { name: "search", ops: &OP_NAMES, config: config(false) };
/// plan (MODEL §9).
pub const PLAN: Algorithm = Algorithm { name: "plan", ops: &OP_NAMES, config: config(false) };
/// search+ (MODEL §9).
pub const SEARCH_PLUS: Algorithm = Algorithm { name: "search+", ops: &OP_NAMES, config: config(true) };
/// plan+ (MODEL §9).
pub const PLAN_PLUS: Algorithm = Algorithm { name: "plan+", ops: &OP_NAMES, config: config(true) };

/// A task of the family in a world; `plus`: only applicable actions (search+, plan+); `plan`:
/// backtrack the path (plan, plan+).
#[derive(Debug, Clone, Copy)]
pub struct SearchPlan<W> {
    pub world: W,
    pub plus: bool,
    pub plan: bool,
}

impl<const N: usize> SearchPlan<Sokoban<N>> {
    pub const SEARCH: Self = SearchPlan { world: Sokoban, plus: false, plan: false };
    pub const PLAN: Self = SearchPlan { world: Sokoban, plus: false, plan: true };
    pub const SEARCH_PLUS: Self = SearchPlan { world: Sokoban, plus: true, plan: false };
    pub const PLAN_PLUS: Self = SearchPlan { world: Sokoban, plus: true, plan: true };
}

/// The training tasks: the four algorithms in 6 × 6 sokoban.
pub type Sokoban6Task = SearchPlan<Sokoban<6>>;

/// The expected trace (MODEL §5) for the model's tree with the goal at node `goal`; every step is
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

impl<W: World> Task for SearchPlan<W> {
    type Data = W::State;
    type Sample = Problem<W::State>;
    type Answer = Answer;
    type Modules = SearchModules<W>;

    fn algorithm(&self) -> &'static Algorithm {
        match (self.plus, self.plan) {
            (false, false) => &SEARCH,
            (false, true) => &PLAN,
            (true, false) => &SEARCH_PLUS,
            (true, true) => &PLAN_PLUS,
        }
    }
    fn domain(&self) -> &'static str {
        self.world.name()
    }
    fn takes_maps(&self) -> bool {
        true
    }
    /// Level ℓ: the goal first appears in expansion ℓ of the model's BFS ([`sample_problem`]).
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Problem<W::State> {
        sample_problem(&self.world, level, self.plus, rng, |rng| self.world.random_state(rng))
    }
    fn field_shape(&self) -> Option<crate::FieldShape> {
        self.world.field_shape()
    }
    fn fields(&self, x: &Self::Data, out: &mut [u8]) {
        self.world.fields(x, out)
    }
    fn modules(&self, p: &Problem<W::State>) -> Self::Modules {
        SearchModules::new(self.world.clone(), p, self.plus, self.plan)
    }
    fn trace(&self, p: &Problem<W::State>) -> Trace<W::State> {
        match SearchTree::find(&self.world, p, self.plus, usize::MAX) {
            (tree, Some(goal)) => trace(&tree, goal, self.plan),
            (_, None) => Trace::new(1),
        }
    }
    fn reference(&self, p: &Problem<W::State>) -> Answer {
        let (tree, goal) = SearchTree::find(&self.world, p, self.plus, usize::MAX);
        match (self.plan, goal) {
            (false, Some(g)) => Answer::Search { found: true, expansions: tree.expansion(g) },
            (false, None) => Answer::Search { found: false, expansions: tree.states.len() },
            (true, Some(g)) => Answer::Plan(tree.path(g).into_iter().map(Some).collect()),
            (true, None) => Answer::Plan(Vec::new()),
        }
    }
    fn answer(&self, m: &Self::Modules) -> Answer {
        if self.plan {
            Answer::Plan(m.plan_actions())
        } else {
            Answer::Search {
                found: m.found_at().is_some(),
                expansions: m.found_at().unwrap_or(m.completed()),
            }
        }
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        Box::new(SearchScript::new(self.plus))
    }
    /// The sampler's cost grows with the level (up to [`EXACT_ATTEMPTS`] breadth-first searches
    /// of ℓ expansions): a level-100 000 sample takes seconds to draw.
    fn max_level(&self) -> usize {
        MAX_LEVEL
    }
    /// At most 2ℓ expansions (the sampler's fallback) of four children each, then the path back.
    fn max_steps(&self, level: usize) -> u64 {
        8 * level as u64 + 64
    }
    /// A user's problem is found within [`MAX_INPUT_EXPANSIONS`] expansions.
    fn sample_steps(&self, _p: &Problem<W::State>) -> u64 {
        4 * MAX_INPUT_EXPANSIONS as u64 + 64
    }
    /// `{"start": …, "goal": …}` in the world's form (sokoban: text maps with `#` wall, `$` box,
    /// `@` agent and `-` or space empty, including the enclosing walls).
    fn parse_input(&self, v: &Value) -> Result<Problem<W::State>, InputError> {
        parse_problem(&self.world, v, self.plus)
    }
    /// `{"start": …, "goal": …}`, each state in the world's form ([`World::state_json`]).
    fn sample_json(&self, p: &Problem<W::State>) -> Value {
        json!({ "start": self.world.state_json(&p.start), "goal": self.world.state_json(&p.goal) })
    }
    /// Every problem of levels 1..=L from every start the sampler draws, and for search and plan
    /// one problem per goal index of levels 1..=G, checked by location ([`listing`]); none when
    /// the world cannot list its starts (then `nhc verify` samples).
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, Self::Sample>> {
        let levels = bounds.get(0, listing::default_levels(self.plus, self.plan));
        let every = listing::every_problem(&self.world, self.plus, self.plan, levels);
        let classes = (!self.plus)
            .then(|| listing::goal_indices(&self.world, self.plan, bounds.get(1, listing::CLASS_LEVELS)))
            .flatten();
        every.into_iter().chain(classes).collect()
    }
    /// The goal-index part's reads: the node the expected trace reads, by the step that wrote it.
    fn read_steps(
        &self,
        part: &crate::verify::Part<'_, Self::Sample>,
        p: &Problem<W::State>,
    ) -> Option<Vec<Option<u64>>> {
        (part.axes[1] == listing::GOAL_INDEX)
            .then(|| listing::read_steps(&self.world, p, self.plus, self.plan))
    }
    /// search: `{"found": bool, "expansions": n}`; plan: the actions by the world's names
    /// ([`World::action_names`]), e.g. `["U", "L"]` (`"?"` where no action joins two output
    /// states).
    fn answer_json(&self, a: &Answer) -> Value {
        match a {
            Answer::Search { found, expansions } => json!({ "found": found, "expansions": expansions }),
            Answer::Plan(actions) => action_names(&self.world, actions).into(),
        }
    }
    fn show(&self, d: &W::State) -> String {
        self.world.show(d)
    }
    /// search: in which expansion the goal appeared; plan: the actions, then the states along
    /// them, replayed from the start in the simulator.
    fn answer_text(&self, p: &Problem<W::State>, a: &Answer) -> String {
        match *a {
            Answer::Search { found: true, expansions: 0 } => "the start is the goal (no expansion)".into(),
            Answer::Search { found: true, expansions } => format!("goal found in expansion {expansions}"),
            Answer::Search { found: false, expansions } => {
                format!("goal not found ({expansions} expansions completed)")
            }
            Answer::Plan(ref actions) => plan_text(&self.world, p, actions),
        }
    }
}
