//! A memory module other than the NHC's plugs into the same machine and the same scoring: here a
//! plain tape (one write location per step, one read head that moves by an offset), with its own
//! decision type and a policy for it, scored against an expected trace.

use nhc_model::{
    BusDecision, Config, DataModules, Machine, MemoryModule, Observation, Policy, RunLimits, Signals, Trace,
    run_scored,
};

/// The tape's decision: how far the read head moves this step.
#[derive(Debug, Clone, Default)]
struct Move(isize);

/// Words written in order; the read head moves by the decision's offset, clamped to the tape.
#[derive(Default)]
struct Tape {
    words: Vec<(Vec<f32>, u8)>,
    head: usize,
}

impl MemoryModule<u8> for Tape {
    type Decision = Move;
    fn fresh(&self) -> Move {
        Move(0)
    }
    fn refresh(&self, d: &mut Move) {
        d.0 = 0;
    }
    fn reset(&mut self) {
        self.words.clear();
        self.head = 0;
    }
    fn step(&mut self, d_i: &u8, decision: &Move) {
        self.words.push((vec![0.0; 4], *d_i));
        self.head = self.head.saturating_add_signed(decision.0).min(self.words.len() - 1);
    }
    fn read_control(&self, _j: usize) -> &[f32] {
        &self.words[self.head].0
    }
    fn read_data(&self, _j: usize) -> &u8 {
        &self.words[self.head].1
    }
    fn read_location(&self, _j: usize) -> usize {
        self.head
    }
    fn written_location(&self, _i: usize) -> usize {
        self.words.len() - 1
    }
}

/// Echo: presents `items`, then asks for them back in order (op 0 = output), one per step.
struct Echo {
    items: Vec<u8>,
    next: usize,
    out: Vec<u8>,
}

impl DataModules for Echo {
    type Data = u8;
    fn input(&mut self, _d: Option<&u8>, s: &mut Signals) -> Option<u8> {
        let n = self.items.len();
        if self.next >= 2 * n {
            return None;
        }
        let present = self.next < n;
        s.set_all(&[f32::from(u8::from(present))]);
        let d = if present { self.items[self.next] } else { 0 };
        self.next += 1;
        Some(d)
    }
    fn alu(&mut self, reads: &[u8], op: usize, _c_a: &mut [f32]) -> u8 {
        if op == 0 && self.next > self.items.len() {
            self.out.push(reads[0]);
        }
        reads[0]
    }
    fn phase(&self) -> &'static str {
        "echo"
    }
}

/// Stays on the first word while presenting, then walks forward one word a step.
struct Walk;

impl Policy<Move> for Walk {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut Move) {
        let presenting = obs.input_controller[0] > 0.5;
        let first_output = !presenting && obs.bus_prev.iter().all(|b| *b == 0.0) || obs.bus_prev[1] > 0.5;
        out.0 = if presenting || first_output { 0 } else { 1 };
        c_c[0] = if presenting { 1.0 } else { 0.0 };
    }
    fn bus(&mut self, _c_ib: &[f32], c_c: &[f32], _c_m: &[f32]) -> BusDecision {
        BusDecision { op: if c_c[0] > 0.5 { 1 } else { 0 }, margin: 1.0 }
    }
}

#[test]
fn a_tape_memory_runs_in_the_same_machine_and_scoring() {
    let config = Config { input_controller: 1, input_memory: 1, input_bus: 1, ops: 2, ..Config::PAPER };
    let items = vec![5u8, 7, 9];
    let mut trace = Trace::new(1);
    for _ in &items {
        trace.push(1, &[None]);
    }
    for x in &items {
        trace.push(0, &[Some(*x)]);
    }
    let mut machine = Machine::with_memory(&config, Tape::default());
    let mut modules = Echo { items: items.clone(), next: 0, out: Vec::new() };
    let outcome = run_scored(&mut machine, &mut modules, &mut Walk, &trace, RunLimits::SCORE, |_, _| {});
    assert!(outcome.solved(), "{outcome:?}");
    assert_eq!((outcome.steps, outcome.fitness()), (6, 1.0));
    assert_eq!(modules.out, items);
    assert_eq!(machine.memory().words.len(), 6);
}
