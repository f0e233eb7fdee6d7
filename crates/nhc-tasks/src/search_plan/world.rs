//! The world interface of the search-and-plan family: actions, the domain trait [`World`].

use crate::SampleRng;
use serde_json::Value;
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

/// A planning domain: what the data modules see of it, the action model A (`apply`), the action
/// mask a (`applicable`) and the equality test E_t (`equal`), all hand-coded and exact (MODEL §4);
/// and what the task needs around them: random starts, reading a user's state and printing one.
/// The Input and the ALU call them through `module_*`, which learned data modules replace.
pub trait World: Clone + Send + Sync + 'static {
    type State: Clone + Default + Eq + Hash + Debug + Send + Sync;
    /// The domain's name.
    fn name(&self) -> &'static str;
    /// A random start state of the sampler.
    fn random_state(&self, rng: &mut SampleRng) -> Self::State;
    /// A user's state (for sokoban: an array of text rows).
    fn parse_state(&self, v: &Value) -> Result<Self::State, String>;
    /// A state as JSON, in the form [`World::parse_state`] takes.
    fn state_json(&self, s: &Self::State) -> Value;
    /// What [`World::parse_state`] takes, for messages (e.g. "an array of 6 strings").
    fn form(&self) -> String;
    /// A state as text rows (one panel of a printed plan).
    fn rows(&self, s: &Self::State) -> Vec<String>;
    /// A state as one short line (for traces).
    fn show(&self, s: &Self::State) -> String;
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
    /// The world's names of the actions 0..[`ACTIONS`] in printed plans and answers; the Bus
    /// still calls them U R D L ([`OP_NAMES`]).
    fn action_names(&self) -> [&'static str; ACTIONS] {
        [OP_NAMES[OP_U], OP_NAMES[OP_R], OP_NAMES[OP_D], OP_NAMES[OP_L]]
    }
    /// A word's shape as categorical fields (crate::fields); `None`: no encoding.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        None
    }
    /// `x` as fields, one per entry of `out`.
    fn fields(&self, x: &Self::State, out: &mut [u8]) {
        let _ = (x, out);
    }
    /// The state whose fields are `f`, if there is one.
    fn state_of_fields(&self, f: &[u8]) -> Option<Self::State> {
        let _ = f;
        None
    }
    /// The ALU's action model A: the world's own rules ([`World::apply`]) unless the data modules
    /// are learned ([`super::learned::Learned`]).
    fn module_apply(&self, s: &Self::State, action: usize) -> Self::State {
        self.apply(s, action)
    }
    /// The Input's action mask a (see [`World::module_apply`]).
    fn module_applicable(&self, s: &Self::State) -> [bool; ACTIONS] {
        self.applicable(s)
    }
    /// The Input's E_t (see [`World::module_apply`]).
    fn module_equal(&self, a: &Self::State, b: &Self::State) -> bool {
        self.equal(a, b)
    }
    /// Every state [`World::random_state`] can draw, listed for verification (docs/VERIFICATION.md,
    /// "Verification"); `None` (the default): too many to list. A world that lists its starts
    /// compares states by `==` (the default [`World::equal`]).
    fn starts(&self) -> Option<Starts<Self::State>> {
        None
    }
    /// For each goal index g (search and plan), the first of [`World::starts`] from which the
    /// goal first appears at node g, every start searched
    /// ([`super::listing::goal_index_starts`]; [`super::goal_index_table::NONE`]: no start has
    /// it). `None` (the default): not tabled; the verification searches evenly spaced starts.
    fn goal_index_starts(&self) -> Option<&'static [u32]> {
        None
    }
}

/// A world's starts ([`World::starts`]): `count` of them, start `i < count` by `nth`.
pub struct Starts<S> {
    pub count: u64,
    pub nth: Box<dyn Fn(u64) -> S + Send + Sync>,
}

/// The actions the model applies to `s`: all four (search, plan), or the applicable ones (+).
pub fn actions<W: World>(world: &W, s: &W::State, plus: bool) -> [bool; ACTIONS] {
    if plus { world.applicable(s) } else { [true; ACTIONS] }
}

/// The actions the ALU applies to `s`, by the data modules' mask ([`World::module_applicable`]).
pub fn module_actions<W: World>(world: &W, s: &W::State, plus: bool) -> [bool; ACTIONS] {
    if plus { world.module_applicable(s) } else { [true; ACTIONS] }
}

/// The children of `s` in the model's order: `(action, state)` for every action it applies.
pub(crate) fn children<'a, W: World>(
    world: &'a W,
    s: &'a W::State,
    plus: bool,
) -> impl Iterator<Item = (usize, W::State)> + 'a {
    let mask = actions(world, s, plus);
    (0..ACTIONS).filter(move |&a| mask[a]).map(move |a| (a, world.apply(s, a)))
}
