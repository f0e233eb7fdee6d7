//! A copy-family solution broken on purpose, shared by the verification tests: the hand-written
//! solution, except that it ends a pass (`M`) early where `mark` says so.

use nhc_model::{Agent, BusDecision, MemoryDecision, Observation, Policy};
use nhc_tasks::copy_family::OP_MARK;

/// `mark(presented, outputs, marks)` is asked at every output step: the objects the Input
/// presented, this pass's output steps so far (this one included) and the passes already ended.
pub struct EarlyMark<F> {
    inner: Box<dyn Policy + Send>,
    mark: F,
    presented: usize,
    outputs: usize,
    marks: usize,
}

/// `inner` (a task's `scripted()`, four Input signals, the last the output phase) broken by `mark`.
pub fn early_mark<F>(inner: Box<dyn Policy + Send>, mark: F) -> Agent
where
    F: Fn(usize, usize, usize) -> bool + Send + 'static,
{
    Agent::Nhc(Box::new(EarlyMark { inner, mark, presented: 0, outputs: 0, marks: 0 }))
}

impl<F: Fn(usize, usize, usize) -> bool + Send> Policy for EarlyMark<F> {
    fn begin(&mut self) {
        (self.presented, self.outputs, self.marks) = (0, 0, 0);
        self.inner.begin();
    }
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        if obs.input_controller[3] < 0.5 {
            self.presented += 1;
        }
        self.inner.control(obs, c_c, out)
    }
    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        let mut d = self.inner.bus(c_ib, c_c, read_now);
        if c_ib[3] > 0.5 {
            self.outputs += 1;
            if (self.mark)(self.presented, self.outputs, self.marks) {
                d.op = OP_MARK;
            }
            if d.op == OP_MARK {
                (self.outputs, self.marks) = (0, self.marks + 1);
            }
        }
        d
    }
}
