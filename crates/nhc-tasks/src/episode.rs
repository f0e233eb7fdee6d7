//! A sample as the DNC trained by backpropagation sees it (docs/DESIGN.md, "The DNC trained by
//! backpropagation"). The DNC replaces the algorithmic modules; the Input and the ALU stay. The
//! sample is run by the scripted solution on the full NHC, which follows the expected trace, and
//! recorded step by step: what the Input and the ALU hand over (the DNC's input) and what the
//! trace expects (its targets). Along the expected trajectory the DNC's own earlier outputs are
//! the expected ones, so a DNC that gets every target right on the recording runs the same steps
//! when it drives the modules itself: teacher forcing and a closed loop that stops at the first
//! mistake judge a sample alike.

use crate::fields::FieldShape;
use crate::{SampleRng, Task};
use nhc_model::{DataModules, Machine, RunLimits, Signals, run_scored};
use serde::{Deserialize, Serialize};

/// The sizes of a task's episodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpisodeShape {
    /// The Input's signals `c_ic, c_im, c_ib`, concatenated (the DNC has no information split).
    pub signals: usize,
    /// `|c_a|`: the ALU's feedback.
    pub feedback: usize,
    /// The data word's fields.
    pub word: FieldShape,
    /// The ALU's operations.
    pub ops: usize,
    /// Read heads: the data words the trace names per step.
    pub read_heads: usize,
}

impl EpisodeShape {
    /// The width of one step's input: signals, feedback, the word one-hot by field, and the
    /// operation of the step before, one-hot (the DNC's own output).
    pub fn input(&self) -> usize {
        self.signals + self.feedback + self.word.one_hot() + self.ops
    }
    /// The width of one step's output: the operation's logits, then per read head the logits of
    /// every field.
    pub fn output(&self) -> usize {
        self.ops + self.read_heads * self.word.one_hot()
    }
}

/// One recorded sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Episode {
    /// Steps T.
    pub steps: usize,
    /// `T × shape.input()`, row-major.
    pub inputs: Vec<f32>,
    /// The expected operation per step; `None` on an unscored step.
    pub ops: Vec<Option<u8>>,
    /// The expected reads' fields, `T × read_heads × word.count`; 0 where not expected.
    pub reads: Vec<u8>,
    /// Whether a read is expected, `T × read_heads`.
    pub read_expected: Vec<bool>,
    /// Locations the full NHC's memory used (highest written + 1): the DNC's N for the sample.
    pub locations: usize,
}

/// Why a sample could not be recorded.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum EpisodeError {
    #[error(
        "task `{task}` on domain `{domain}` has no encoding of its data words as fields, which the DNC baseline needs"
    )]
    NoFields { task: &'static str, domain: &'static str },
    #[error("the scripted solution of `{task}` did not follow its expected trace on a level-{level} sample")]
    Scripted { task: &'static str, level: usize },
}

/// The shape of `task`'s episodes, `None` when its domain has no field encoding.
pub fn shape<T: Task>(task: &T) -> Option<EpisodeShape> {
    let c = &task.algorithm().config;
    task.field_shape().map(|word| EpisodeShape {
        signals: c.input_controller + c.input_memory + c.input_bus,
        feedback: c.alu_feedback,
        word,
        ops: c.ops,
        read_heads: c.read_heads,
    })
}

/// The data modules, recording each step's input before the Machine sees it.
struct Recorder<'a, T: Task> {
    task: &'a T,
    inner: T::Modules,
    shape: EpisodeShape,
    /// `c_a_{t−1}`.
    feedback: Vec<f32>,
    /// The operation of the step before, `None` at step 1.
    last_op: Option<usize>,
    fields: Vec<u8>,
    inputs: Vec<f32>,
}

impl<T: Task> DataModules for Recorder<'_, T> {
    type Data = T::Data;

    fn input(&mut self, d_out_prev: Option<&T::Data>, signals: &mut Signals) -> Option<T::Data> {
        let d_i = self.inner.input(d_out_prev, signals)?;
        for s in [&signals.controller, &signals.memory, &signals.bus] {
            self.inputs.extend_from_slice(s);
        }
        self.inputs.extend_from_slice(&self.feedback);
        push_one_hot(self.task, &d_i, self.shape.word, &mut self.fields, &mut self.inputs);
        let start = self.inputs.len();
        self.inputs.resize(start + self.shape.ops, 0.0);
        if let Some(op) = self.last_op {
            self.inputs[start + op] = 1.0;
        }
        Some(d_i)
    }

    fn alu(&mut self, reads: &[T::Data], op: usize, feedback: &mut [f32]) -> T::Data {
        let out = self.inner.alu(reads, op, feedback);
        self.feedback.copy_from_slice(feedback);
        self.last_op = Some(op);
        out
    }

    fn phase(&self) -> &'static str {
        self.inner.phase()
    }
}

/// Appends `d` one-hot by field.
fn push_one_hot<T: Task>(task: &T, d: &T::Data, shape: FieldShape, fields: &mut Vec<u8>, out: &mut Vec<f32>) {
    fields.clear();
    fields.resize(shape.count, 0);
    task.fields(d, fields);
    for &f in fields.iter() {
        let start = out.len();
        out.resize(start + shape.classes, 0.0);
        out[start + usize::from(f).min(shape.classes - 1)] = 1.0;
    }
}

/// A sample of `level` drawn from `rng`, recorded.
pub fn record<T: Task>(task: &T, level: usize, rng: &mut SampleRng) -> Result<Episode, EpisodeError> {
    let name = task.algorithm().name;
    let shape = shape(task).ok_or(EpisodeError::NoFields { task: name, domain: task.domain() })?;
    let sample = task.sample(level, rng);
    let trace = task.trace(&sample);
    let config = &task.algorithm().config;
    let mut machine = Machine::new(config);
    let mut recorder = Recorder {
        task,
        inner: task.modules(&sample),
        shape,
        feedback: vec![0.0; shape.feedback],
        last_op: None,
        fields: Vec::new(),
        inputs: Vec::new(),
    };
    let mut policy = task.scripted();
    let limits = RunLimits { stop_at_mistake: true, max_steps: trace.len() as u64 + 1 };
    let mut locations = 0;
    let outcome = run_scored(&mut machine, &mut recorder, &mut *policy, &trace, limits, |r, _| {
        locations = r.written.iter().fold(locations, |n, &w| n.max(w + 1));
    });
    let steps = outcome.steps as usize;
    if !outcome.solved() || steps != trace.len() {
        return Err(EpisodeError::Scripted { task: name, level });
    }
    let (heads, count) = (shape.read_heads, shape.word.count);
    let mut episode = Episode {
        steps,
        inputs: recorder.inputs,
        ops: Vec::with_capacity(steps),
        reads: vec![0; steps * heads * count],
        read_expected: vec![false; steps * heads],
        locations,
    };
    for t in 0..steps {
        let expected = trace.step(t);
        episode.ops.push(expected.op.map(|op| op as u8));
        for (j, read) in expected.reads.iter().enumerate() {
            if let Some(d) = read {
                let k = t * heads + j;
                episode.read_expected[k] = true;
                task.fields(d, &mut episode.reads[k * count..(k + 1) * count]);
            }
        }
    }
    Ok(episode)
}
