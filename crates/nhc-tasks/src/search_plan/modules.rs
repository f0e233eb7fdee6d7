//! Input and ALU of the family and its config.

use super::tree::Problem;
use super::world::{ACTIONS, World, module_actions};
use crate::flag;
use nhc_model::{Config, DataModules, Signals};

/// The config of the family: L_C = 6, C = 4, h_w = h_r = 1, L_B = 5 (U R D L N); c_ic = c_ib =
/// c_p (4), c_im = c_p or, for search+/plan+, [a; c_p] (8); ALU feedback on (|c_a| = 3); Bus
/// feedback off (the paper activates only the ALU feedback, so which actions a node has had must
/// be kept in memory, by the previous update); free gates off (paper); previous update and
/// ancestry on (paper: both are needed for search and plan).
pub const fn config(plus: bool) -> Config {
    Config {
        input_controller: 4,
        input_memory: if plus { 4 + ACTIONS } else { 4 },
        input_bus: 4,
        ops: 5,
        alu_feedback: 3,
        bus_feedback: false,
        ..Config::PAPER
    }
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
        let e = self.world.module_equal(&d_i, if c2_prev { &self.start } else { &self.goal });
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
            let a = self.world.module_applicable(&d_i);
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
            let mask = module_actions(&self.world, s, self.plus);
            (self.world.module_apply(s, op), !mask[op + 1..].iter().any(|&b| b), false)
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
