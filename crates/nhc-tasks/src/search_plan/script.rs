//! The scripted solution of the family.

use super::world::{ACTIONS, OP_NOP, OP_U};
use nhc_model::{BusDecision, MemoryDecision, Observation, Policy, ReadMode};

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
///
/// The Controller hands the chosen action to the Bus as `c_c[0]`.
#[derive(Debug, Clone, Copy)]
pub struct SearchScript {
    plus: bool,
}

impl SearchScript {
    pub fn new(plus: bool) -> Self {
        SearchScript { plus }
    }
}

impl Policy for SearchScript {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
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
            c_c[0] = match prev_op {
                Some(o) if !last && o + 1 < ACTIONS => o + 1,
                _ => OP_U,
            } as f32;
            if last { ReadMode::Forward(0) } else { ReadMode::Halt(0) }
        } else {
            c_c[0] = OP_NOP as f32;
            if backtracking { ReadMode::Parent(0) } else { ReadMode::Child(0) }
        };
        out.read_modes[0] = mode;
    }

    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let op = if self.plus && c_ib[0] > 0.5 {
            read_now.iter().position(|&m| m > 0.5).unwrap_or(OP_NOP)
        } else {
            c_c[0] as usize
        };
        BusDecision { op, margin: 1.0 }
    }
}
