//! The scripted solution of the family.

use super::world::{ACTIONS, OP_NOP};
use nhc_model::{BusDecision, MemoryDecision, Observation, Policy, ReadMode};

/// The scripted solution (docs/DESIGN.md, "Scripted solution (search and plan)").
///
/// Every write stores the node's pending actions as its control word: all four in search/plan,
/// the mask `a` of its state in search+/plan+. Search phase (`c1`): the read head stays (`H1`)
/// while the node has actions left and moves on (`F1`) after an action with `l = 1`. The action
/// applied at t−1 is the first pending one of the word read at t−1; the previous update erases
/// its bit (`ĝ = 1`, `v̂ = −e_op`, `ê = 0`) on that node, so the word read holds the actions not
/// yet applied, and the Bus picks the first. No Bus feedback is needed. Goal found (`c2`, not
/// `c3`): `C1` reads the goal just written (the newest child of the node read at t−1), N.
/// Backtracking (`c3`): `P1`, N.
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
    fn control(&mut self, obs: &Observation<'_>, _c_c: &mut [f32], out: &mut MemoryDecision) {
        let c_p = obs.input_controller;
        let (searching, backtracking) = (c_p[0] > 0.5, c_p[2] > 0.5);
        let last = obs.alu_prev[0] > 0.5;
        let prev_op = first_pending(obs.read_prev);
        if self.plus {
            out.write.copy_from_slice(&obs.input_memory[..ACTIONS]);
        } else {
            out.write.fill(1.0);
        }
        out.prev_write.fill(0.0);
        out.prev_erase.fill(0.0);
        out.prev_gate.fill(false);
        out.free_write.fill(false);
        out.free_read.fill(false);
        let mode = if searching {
            if let Some(o) = prev_op {
                out.prev_gate[0] = true;
                out.prev_write[o] = -1.0;
            }
            if last { ReadMode::Forward(0) } else { ReadMode::Halt(0) }
        } else if backtracking {
            ReadMode::Parent(0)
        } else {
            ReadMode::Child(0)
        };
        out.read_modes[0] = mode;
    }

    fn bus(&mut self, c_ib: &[f32], _c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let op = if c_ib[0] > 0.5 { first_pending(read_now).unwrap_or(OP_NOP) } else { OP_NOP };
        BusDecision { op, margin: 1.0 }
    }
}

/// The first action a node's control word still holds.
fn first_pending(word: &[f32]) -> Option<usize> {
    word[..ACTIONS].iter().position(|&m| m > 0.5)
}
