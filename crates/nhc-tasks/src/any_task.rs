//! A task behind one object-safe interface ([`AnyTask`]): the run driver every caller goes
//! through (evaluation, a user's input, traces, timing), with memory admission before a run.

use crate::episode::{self, Episode, EpisodeShape};
use crate::evaluate::{Batch, EvalReport, Prepared, PreparedSample, SampleKey, evaluate};
use crate::evaluate::{model_name, score_prepared};
use crate::registry::TaskError;
use crate::trace::{TRACE_ROW_BYTES, TraceRow};
use crate::verify::{self, Counterexample, Part, PartReport, Ran, Tally, WrongStep};
use crate::{Algorithm, Model, SampleRng, Task, programs, sample_rng};
use nhc_io::limits::{Estimate, MAX_SAMPLES};
use nhc_model::memory::bytes_per_location;
use nhc_model::{
    Agent, Architecture, Config, Decision, Machine, Policy, RunLimits, UpdateFeedback, Visit, Workspace,
    run_scored,
};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

/// The result of applying a model to one input.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The model's answer.
    pub output: Value,
    /// The answer computed without the model.
    pub expected: Value,
    /// Output equals expected and the model stopped where it should.
    pub correct: bool,
    pub steps: u64,
    /// The model's answer as text for people ([`Task::answer_text`]).
    pub text: String,
}

/// Where a traced sample comes from.
#[derive(Debug, Clone)]
pub enum TraceSource {
    /// Sample `index` of an evaluation with this level and seed.
    Level {
        level: usize,
        seed: u64,
        index: u64,
    },
    Input(Value),
}

/// A task, object-safe: everything outside the task modules uses this.
pub trait AnyTask: Sync {
    /// The task's name: its algorithm's.
    fn name(&self) -> &'static str {
        self.algorithm().name
    }
    fn algorithm(&self) -> &'static Algorithm;
    /// The data domain.
    fn domain(&self) -> &'static str;
    /// The ALU operations' names, in Bus order.
    fn ops(&self) -> &'static [&'static str] {
        self.algorithm().ops
    }
    /// The full NHC's config for this task's algorithm.
    fn config(&self) -> Config {
        self.algorithm().config.clone()
    }
    /// Whether the input is a start and a goal world (`--start`, `--goal` map files).
    fn takes_maps(&self) -> bool {
        false
    }
    /// Whether the input may be bare text, taken as a JSON string when it is not JSON.
    fn takes_text(&self) -> bool {
        false
    }
    /// The algorithm's scripted solution.
    fn scripted(&self) -> Box<dyn Policy + Send>;
    /// Whether the algorithm has a scripted solution.
    fn has_script(&self) -> bool;
    /// A digest of a declared algorithm's declaration ([`Task::digest`]).
    fn digest(&self) -> Option<String>;
    /// Checks that `level` is one this task accepts (1 ..= its highest level).
    fn check_level(&self, level: usize) -> Result<(), TaskError>;
    /// The highest level this task accepts (a small world may have fewer distinct problems).
    fn max_level(&self) -> usize;
    /// At least the steps of a sample of `level` ([`Task::max_steps`]).
    fn level_steps(&self, level: usize) -> u64;
    /// The samples `keys` stand for, each with its data modules, trace and reference built once.
    fn prepare(&self, keys: &[SampleKey]) -> Box<dyn Prepared + '_> {
        self.prepare_with_update_feedback(keys, UpdateFeedback::Off)
    }
    /// [`AnyTask::prepare`], scoring update decisions against the expected program as
    /// `update_feedback` says (training only; [`nhc_model::Trace::with_update_feedback`]).
    fn prepare_with_update_feedback(
        &self,
        keys: &[SampleKey],
        update_feedback: UpdateFeedback,
    ) -> Box<dyn Prepared + '_>;
    /// Whether the task's expected program says where it updates a location read the step
    /// before, so that training can give update feedback (sort).
    fn knows_updates(&self) -> bool;
    /// `samples` fresh samples of `level` (MODEL §8).
    fn evaluate(
        &self,
        model: &Model,
        level: usize,
        samples: usize,
        seed: u64,
    ) -> Result<EvalReport, TaskError>;
    /// Whether the task takes `input` (parsed and within the memory limit for the full NHC),
    /// without running anything.
    fn check_input(&self, input: &Value) -> Result<(), TaskError>;
    /// The model applied to a user's input.
    fn run(&self, model: &Model, input: &Value) -> Result<RunReport, TaskError>;
    /// One sample of `level` run to its end (or `max_steps`) without stopping at mistakes:
    /// (steps, seconds). For benchmarks.
    fn time_sample(
        &self,
        model: &Model,
        level: usize,
        seed: u64,
        max_steps: u64,
    ) -> Result<(u64, f64), TaskError>;
    /// Every step of one sample.
    fn trace(&self, model: &Model, source: &TraceSource) -> Result<(Vec<TraceRow>, RunReport), TaskError>;
    /// Sample `index` of an evaluation of `level` under `seed` (the very sample `evaluate` and
    /// `nhc trace --level L --seed S --index I` use): its input as JSON, in the form `run` takes,
    /// and the reference answer as JSON.
    fn sample(&self, level: usize, seed: u64, index: u64) -> Result<(Value, Value), TaskError>;
    /// What this task's episodes hold; `None` when its domain has no field encoding.
    fn episode_shape(&self) -> Option<EpisodeShape>;
    /// A sample of `level` drawn from `rng`, as the DNC trained by backpropagation sees it.
    fn episode(&self, level: usize, rng: &mut SampleRng) -> Result<Episode, TaskError>;
    /// Runs `model` on every control-distinct input up to `bounds` (or, for a task that cannot
    /// list them, on samples), in parallel, with results independent of the thread count
    /// ([`crate::verify`]); then samples beyond the bounds up to [`verify::BEYOND`].
    fn verify(&self, model: &Model, bounds: &verify::Bounds) -> Result<verify::Report, TaskError> {
        self.verify_beyond(model, bounds, verify::BEYOND)
    }
    /// [`AnyTask::verify`], sampling beyond the bounds up to size `top` (0: not at all).
    fn verify_beyond(
        &self,
        model: &Model,
        bounds: &verify::Bounds,
        top: u64,
    ) -> Result<verify::Report, TaskError>;
    /// [`AnyTask::verify_beyond`] and the every-length proof (docs/VERIFICATION.md, "Every length"):
    /// the symbolic run ([`crate::every_length::prove`]) proves every length from its n₀ on,
    /// and the listing is raised to reach n₀ + P (or the length the symbolic run found wrong).
    /// `objects`: duplicated's largest number of objects (default
    /// [`crate::copy_family::duplicated::REPEATS_OBJECTS`]); other tasks refuse one.
    fn verify_every_length(
        &self,
        model: &Model,
        bounds: &verify::Bounds,
        top: u64,
        objects: Option<u64>,
    ) -> Result<verify::Report, TaskError>;
    /// A table program of `config` that solves this task's samples, if one exists
    /// ([`crate::programs`]).
    fn programs(&self, config: &Config, spec: &programs::Spec) -> Result<programs::Report, TaskError>;
}

/// A [`Task`] value made object-safe.
pub struct Entry<T>(pub T);

/// One run of a model on a sample, with typed answers.
#[derive(Debug, Clone)]
pub struct Run<T: Task> {
    /// The model's answer.
    pub answer: T::Answer,
    /// The answer computed without the model.
    pub reference: T::Answer,
    /// Every scored step right, stopped where it should, and the answer equals the reference.
    pub correct: bool,
    pub steps: u64,
}

/// About the bytes a parsed JSON value holds: a 32-byte slot per value; an array's buffer as
/// the parser grows it (capacity the next power of two, at least 4) and its allocation header;
/// strings' and keys' text; the text of the input and of the printed answer. Measured: a million
/// copy objects (20 MB of text) peak at 1 032 MB in `nhc run`; repeatCopy of 1 000 objects ×
/// 1 000 copies at 730 MB, estimated 1.1 GB with the answers' JSON ([`Task::answers_bytes`]);
/// copy traces of 100 000 objects at 278 MB (358 with `--json`), estimated 410 MB.
pub(crate) fn json_bytes(v: &Value) -> u64 {
    // The root's slot; every other value's slot is in its array's buffer or counted with its key.
    let mut total = 32u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => total = total.saturating_add(s.len() as u64 + 16),
            Value::Array(a) => {
                // 32 bytes a slot, 8 more for the element's text (the input read, the answer printed).
                let buffer =
                    (a.len().next_power_of_two().max(4) as u64).saturating_mul(32) + 8 * a.len() as u64;
                total = total.saturating_add(buffer + 16);
                stack.extend(a.iter());
            }
            Value::Object(o) => {
                for (k, x) in o {
                    total = total.saturating_add(k.len() as u64 + 96);
                    stack.push(x);
                }
            }
            _ => {}
        }
    }
    total
}

impl<T: Task> Entry<T> {
    /// A user's input as a sample, refused when its run would not fit the memory limit.
    /// JSON counts as it is held: the input itself, and the model's and the reference's answers
    /// ([`Task::answers_bytes`]; by default each of about the input's size).
    fn parse(&self, input: &Value, config: &Config, extra_per_step: u64) -> Result<T::Sample, TaskError> {
        let sample = self
            .0
            .parse_input(input)
            .map_err(|source| TaskError::Input { task: self.0.algorithm().name, source })?;
        let steps = self.0.sample_steps(&sample);
        let input_json = json_bytes(input);
        let answers = self.0.answers_bytes(&sample).unwrap_or(input_json.saturating_mul(2));
        let json = input_json.saturating_add(answers).div_ceil(steps.max(1));
        let estimate =
            self.estimate(steps, self.0.sample_heap(&sample), config, extra_per_step.saturating_add(json));
        let what = format!("this input of task `{}`", self.0.algorithm().name);
        estimate.in_flight(what.clone(), 1)?;
        nhc_io::limits::check_work(&format!("running {what}"), steps)?;
        Ok(sample)
    }

    /// Refuses `sample` when a run of it on a machine of `config`, with `extra_per_step` bytes a
    /// step beside the machine (e.g. trace rows), would not fit the memory limit.
    pub fn admit(&self, sample: &T::Sample, config: &Config, extra_per_step: u64) -> Result<(), TaskError> {
        let steps = self.0.sample_steps(sample);
        let estimate = self.estimate(steps, self.0.sample_heap(sample), config, extra_per_step);
        estimate.in_flight(format!("this input of task `{}`", self.0.algorithm().name), 1)?;
        Ok(())
    }

    /// Memory of a run of `steps` steps on a machine of `config`: per step, the locations written
    /// ([`bytes_per_location`], as if none were freed), the expected trace, the sample's and data
    /// modules' word, and `extra`. Measured against it: a level-2 000 sort sample peaks at 221 MB
    /// for 4.0 M steps (55 bytes a step; the estimate is 78). Words with heap data (`heap` bytes
    /// in all, [`Task::sample_heap`]) share it among copies: it counts three times per sample
    /// (the words, the answer's and the reference's JSON), spread over the steps.
    fn estimate(&self, steps: u64, heap: u64, config: &Config, extra: u64) -> Estimate {
        let data = std::mem::size_of::<T::Data>() as u64;
        let trace = 1 + config.read_heads as u64 * std::mem::size_of::<Option<T::Data>>() as u64;
        let memory = config.write_heads as u64 * bytes_per_location(config, data as usize);
        let heap = heap.saturating_mul(3).div_ceil(steps.max(1));
        Estimate { steps, bytes_per_step: memory + trace + 2 * data + extra + heap }
    }

    /// Level checked, and the samples of `level` that fit the memory limit at once (at most
    /// `wanted`).
    fn level_in_flight(
        &self,
        level: usize,
        config: &Config,
        extra: u64,
        wanted: u64,
    ) -> Result<u64, TaskError> {
        self.check_level(level)?;
        let what = format!("a sample of task `{}` at level {level}", self.0.algorithm().name);
        let estimate = self.estimate(self.0.max_steps(level), self.0.max_heap(level), config, extra);
        Ok(estimate.in_flight(what, wanted)?)
    }

    /// Runs `sample` to its end (at most twice its trace and 100 steps); with `rows`, records
    /// every step with its verdict.
    fn run_sample(&self, model: &Model, sample: T::Sample, rows: Option<&mut Vec<TraceRow>>) -> RunReport {
        let prepared = PreparedSample::new(&self.0, sample);
        let run = self.run_prepared(model, &prepared, rows, &mut |_| {});
        let task = &self.0;
        RunReport {
            output: task.answer_json(&run.answer),
            expected: task.answer_json(&run.reference),
            correct: run.correct,
            steps: run.steps,
            text: task.answer_text(&prepared.sample, &run.answer),
        }
    }

    /// Runs `model` on a prepared sample to its end (at most twice its trace and 100 steps),
    /// calling `after_step` with each step's index; with `rows`, records every step.
    pub fn run_prepared(
        &self,
        model: &Model,
        prepared: &PreparedSample<T>,
        rows: Option<&mut Vec<TraceRow>>,
        after_step: &mut dyn FnMut(u64),
    ) -> Run<T> {
        self.run_limited(model, prepared, to_its_end(prepared), rows, after_step)
    }

    /// [`Entry::run_prepared`] within `limits`, on a new machine for the model's architecture.
    fn run_limited(
        &self,
        model: &Model,
        prepared: &PreparedSample<T>,
        limits: RunLimits,
        rows: Option<&mut Vec<TraceRow>>,
        after_step: &mut dyn FnMut(u64),
    ) -> Run<T> {
        let config = model.config(self.0.algorithm());
        Self::run_agent(&mut model.policy(self), config, prepared, (limits, rows, false), after_step, &self.0)
    }

    /// A run of `agent` on a prepared sample on a new machine of `config`, within `limits`; with
    /// `rows`, every step recorded (with `until_wrong`, up to the first wrong one).
    fn run_agent(
        agent: &mut Agent,
        config: Config,
        prepared: &PreparedSample<T>,
        (limits, rows, until_wrong): (RunLimits, Option<&mut Vec<TraceRow>>, bool),
        after_step: &mut dyn FnMut(u64),
        task: &T,
    ) -> Run<T> {
        agent.visit(RunOn { task, config, prepared, limits, rows, until_wrong, after_step })
    }
}

/// Model steps a second of `model` on `task` here (for the long-work check,
/// [`nhc_io::limits::check_work`]): samples of level 10 (or the task's largest) timed on one
/// thread for at least 50 ms, times `threads` (the threads the work at hand runs on).
pub fn measured_speed(task: &dyn AnyTask, model: &Model, threads: usize) -> Result<f64, TaskError> {
    let level = 10.min(task.max_level());
    let (mut steps, mut seconds) = (0u64, 0.0f64);
    for seed in 0..1000 {
        let (s, t) = task.time_sample(model, level, seed, 1_000_000)?;
        steps += s;
        seconds += t;
        if seconds >= 0.05 {
            break;
        }
    }
    Ok(steps as f64 / seconds.max(1e-9) * threads as f64)
}

/// Sets the long-work check ([`nhc_io::limits::check_work`]) for `model` on `task`: its speed on
/// `threads` threads ([`measured_speed`]), measured when work of a million steps or more is first
/// checked; work past an hour is refused unless `confirm` (a task that cannot be timed: no check).
pub fn limit_work(task: &'static dyn AnyTask, model: &Model, threads: usize, confirm: bool) {
    let model = model.clone();
    let allowed = if confirm { 0.0 } else { nhc_io::limits::LONG_WORK_SECONDS };
    nhc_io::limits::set_work_limit(move || measured_speed(task, &model, threads).unwrap_or(0.0), allowed);
}

/// A run to the sample's end: at most twice its trace and 100 steps, not stopped at mistakes.
fn to_its_end<T: Task>(prepared: &PreparedSample<T>) -> RunLimits {
    RunLimits { stop_at_mistake: false, max_steps: 2 * prepared.trace.len() as u64 + 100 }
}

/// `go` on `fit` threads when fewer than the pool's fit in memory at once, else on the pool
/// (results do not depend on it).
fn on_threads<R: Send>(fit: u64, go: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new().num_threads(fit as usize).build() {
        Ok(pool) if fit < rayon::current_num_threads() as u64 => pool.install(go),
        _ => go(),
    }
}

/// Inputs of a part run at once between two tallies.
const VERIFY_CHUNK: u64 = 1 << 14;

/// What the beyond stage of a part will run: sizes, their levels, at least its model steps,
/// and the samples that fit the memory limit at once.
struct BeyondPlan {
    sizes: Vec<u64>,
    levels: Vec<u64>,
    /// Samples per size ([`verify::beyond_per_size`]).
    per: Vec<u64>,
    steps: u64,
    fit: u64,
}

impl<T: Task> Entry<T> {
    /// [`AnyTask::verify`] of the policies `policy` makes (one per thread) on machines of
    /// `config`; `model` names them in the report.
    pub fn verify_with(
        &self,
        config: &Config,
        policy: &(dyn Fn() -> Agent + Sync),
        model: &str,
        bounds: &verify::Bounds,
    ) -> Result<verify::Report, TaskError> {
        self.verify_beyond_with(config, policy, model, bounds, verify::BEYOND)
    }

    /// [`Entry::verify_with`], sampling beyond the bounds up to size `top` (0: not at all).
    pub fn verify_beyond_with(
        &self,
        config: &Config,
        policy: &(dyn Fn() -> Agent + Sync),
        model: &str,
        bounds: &verify::Bounds,
        top: u64,
    ) -> Result<verify::Report, TaskError> {
        if bounds.0.contains(&0) {
            return Err(TaskError::Bound);
        }
        // Search and plan bound levels: one beyond the task's is refused before any listing.
        if self.takes_maps() {
            for &b in &bounds.0 {
                self.check_level(usize::try_from(b).unwrap_or(usize::MAX))?;
            }
        }
        let task = &self.0;
        let mut parts = task.shapes(bounds);
        if parts.is_empty() {
            let levels = match bounds.0.first() {
                Some(&l) => l,
                None => (verify::SAMPLED_LEVELS as u64).min(task.max_level() as u64),
            };
            self.check_level(usize::try_from(levels).unwrap_or(usize::MAX))?;
            let mut part = verify::sampled(task, levels, verify::SAMPLED_PER_LEVEL);
            let name = task.algorithm().name;
            let domain = crate::registry::verification_domain(name).filter(|d| *d != task.domain());
            part.note = Some(match (task.unlisted_because(), domain) {
                (Some(why), _) => format!("task `{name}` cannot list its control-distinct inputs: {why}"),
                (None, Some(d)) => format!(
                    "domain `{}` cannot list its control-distinct inputs; --domain {d} can",
                    task.domain()
                ),
                (None, None) => format!("task `{name}` cannot list its control-distinct inputs"),
            });
            parts.push(part);
        }
        if bounds.0.len() > 1 && bounds.0.len() != parts.len() {
            return Err(TaskError::Bounds {
                task: task.algorithm().name,
                parts: parts.len(),
                got: bounds.0.len(),
            });
        }
        let steps = parts.iter().map(|p| p.steps).fold(0, u64::saturating_add);
        let inputs = parts.iter().map(|p| p.count).fold(0, u64::saturating_add);
        if steps > verify::MAX_STEPS || parts.iter().any(|p| p.count > verify::MAX_INPUTS) {
            let what = parts.iter().map(|p| p.what.as_str()).collect::<Vec<_>>().join(", and every ");
            return Err(TaskError::VerifyCost { what, steps, inputs });
        }
        let mut plans: Vec<Option<BeyondPlan>> = parts.iter().map(|p| self.beyond_plan(p, top)).collect();
        let beyond = plans.iter().flatten().map(|p| p.steps).fold(steps, u64::saturating_add);
        if beyond > verify::MAX_STEPS {
            return Err(TaskError::BeyondCost { top, steps: beyond });
        }
        // Past an hour at the speed measured (when the caller set a limit): asked first.
        let what = parts.iter().map(|p| p.what.as_str()).collect::<Vec<_>>().join(", and every ");
        nhc_io::limits::check_work(&format!("verifying every {what}"), beyond)?;
        for plan in plans.iter_mut().flatten() {
            plan.fit = self.beyond_fit(config, plan)?;
        }
        let start = std::time::Instant::now();
        let mut parts =
            parts.iter().map(|p| self.verify_part(config, policy, p)).collect::<Result<Vec<_>, _>>()?;
        for (part, plan) in parts.iter_mut().zip(&plans) {
            if let Some(plan) = plan.as_ref().filter(|_| part.failed == 0) {
                part.beyond = Some(self.beyond(config, policy, &part.layer, plan));
            }
        }
        Ok(verify::Report {
            task: task.algorithm().name.to_string(),
            domain: task.domain().to_string(),
            variant: model.to_string(),
            outcome: verify::Report::outcome_of(&parts).to_string(),
            parts,
            seconds: start.elapsed().as_secs_f64(),
            every_length: None,
        })
    }

    /// Runs the policies on every input of `part`, in chunks in index order, each chunk in
    /// parallel.
    fn verify_part(
        &self,
        config: &Config,
        policy: &(dyn Fn() -> Agent + Sync),
        part: &Part<'_, T::Sample>,
    ) -> Result<PartReport, TaskError> {
        let task = &self.0;
        // Layers grow with the index: the last input is the part's largest.
        let last = (part.nth)(part.count.saturating_sub(1)).sample;
        let threads = rayon::current_num_threads() as u64;
        let estimate = self.estimate(task.sample_steps(&last), task.sample_heap(&last), config, 0);
        let fit =
            estimate.in_flight(format!("an input of {} ({})", task.algorithm().name, part.what), threads)?;
        let go = || {
            let mut tally = Tally::default();
            for start in (0..part.count).step_by(VERIFY_CHUNK as usize) {
                let end = (start + VERIFY_CHUNK).min(part.count);
                let ran: Vec<Ran> = (start..end)
                    .into_par_iter()
                    .map_init(
                        || (Workspace::new(config), policy()),
                        |(workspace, policy), index| {
                            let shaped = (part.nth)(index);
                            let sources = task.read_steps(part, &shaped.sample);
                            let prepared = PreparedSample::new(task, shaped.sample);
                            let (solved, steps) = match sources {
                                None => {
                                    let r = score_prepared(task, &prepared, policy, workspace);
                                    (r.solved, r.steps)
                                }
                                Some(sources) => {
                                    let run =
                                        Located { task, config, prepared: &prepared, sources: &sources };
                                    let (solved, steps, _) = policy.visit(run);
                                    (solved, steps)
                                }
                            };
                            Ran { index, layer: shaped.layer, cell: shaped.cell, solved, steps }
                        },
                    )
                    .collect();
                ran.iter().for_each(|r| tally.add(r));
            }
            tally
        };
        let tally = on_threads(fit, go);
        let smallest = tally.first_failure.map(|(index, _)| self.counterexample(config, policy, part, index));
        Ok(PartReport {
            what: part.what.clone(),
            exhaustive: part.exhaustive,
            axes: part.axes.map(str::to_string),
            layer: part.layer.to_string(),
            bound: part.bound,
            note: part.note.clone(),
            inputs: tally.inputs,
            steps: tally.steps,
            failed: tally.failed,
            right_to: tally.first_failure.map_or(part.bound, |(_, layer)| layer - 1),
            cells: tally.cells(),
            smallest,
            beyond: None,
        })
    }

    /// The beyond stage of `part` up to `top` and its cost; `None` when nothing lies between the
    /// bound and `top` or no level's samples have the part's sizes ([`Part::beyond_level`];
    /// docs/VERIFICATION.md, "Verification").
    fn beyond_plan(&self, part: &Part<'_, T::Sample>, top: u64) -> Option<BeyondPlan> {
        let task = &self.0;
        let level = part.beyond_level?;
        // No size's level is above the task's highest (sort's ℓ + 1 objects: one more).
        let max = task.max_level() as u64;
        let mut sizes = verify::beyond_sizes(part.bound, top.min(max.saturating_add(1)));
        sizes.retain(|&s| level(s).is_some_and(|l| (1..=max).contains(&l)));
        let levels: Vec<u64> = sizes.iter().filter_map(|&s| level(s)).collect();
        let per: Vec<u64> = sizes.iter().map(|&s| verify::beyond_per_size(part.bound, s)).collect();
        let steps = levels
            .iter()
            .zip(&per)
            .map(|(&l, &n)| task.max_steps(l as usize).saturating_mul(n))
            .fold(0, u64::saturating_add);
        (!levels.is_empty()).then_some(BeyondPlan { sizes, levels, per, steps, fit: 1 })
    }

    /// The samples of `plan` that fit the memory limit at once (its largest level's, as
    /// [`Entry::verify_part`] admits its inputs), or the refusal.
    fn beyond_fit(&self, config: &Config, plan: &BeyondPlan) -> Result<u64, TaskError> {
        let last = plan.levels.last().copied().unwrap_or(1) as usize;
        let estimate = self.estimate(self.0.max_steps(last), self.0.max_heap(last), config, 0);
        let name = self.0.algorithm().name;
        let what = format!("a sample of {name} at level {last}, beyond the bound (--beyond lowers it)");
        Ok(estimate.in_flight(what, rayon::current_num_threads() as u64)?)
    }

    /// The samples of each size of `plan` (its `per`), in parallel, folded in order.
    fn beyond(
        &self,
        config: &Config,
        policy: &(dyn Fn() -> Agent + Sync),
        layer: &str,
        plan: &BeyondPlan,
    ) -> verify::Beyond {
        let task = &self.0;
        // Sample i of the stage is sample i − starts[k] of size k.
        let starts: Vec<u64> = plan.per.iter().scan(0, |s, &n| Some(std::mem::replace(s, *s + n))).collect();
        let total: u64 = plan.per.iter().sum();
        let at = |i: u64| {
            let k = starts.partition_point(|&s| s <= i) - 1;
            (k, i - starts[k])
        };
        let draw = |i: u64| {
            let (k, index) = at(i);
            let level = plan.levels[k] as usize;
            task.sample(level, &mut sample_rng(verify::SAMPLE_SEED, level, index))
        };
        let go = || {
            (0..total)
                .into_par_iter()
                .map_init(
                    || (Workspace::new(config), policy()),
                    |(workspace, policy), i| {
                        let r = score_prepared(task, &PreparedSample::new(task, draw(i)), policy, workspace);
                        (r.solved, r.steps)
                    },
                )
                .collect::<Vec<_>>()
        };
        let ran = on_threads(plan.fit, go);
        let failed: Vec<u64> = (starts.iter().zip(&plan.per))
            .map(|(&s, &n)| ran[s as usize..(s + n) as usize].iter().filter(|r| !r.0).count() as u64)
            .collect();
        let smallest = ran.iter().position(|r| !r.0).map(|i| {
            let (k, index) = at(i as u64);
            let size = plan.sizes[k];
            let shaped = verify::Shaped { layer: size, cell: [size, 0], sample: draw(i as u64) };
            let run = self.counterexample_of(config, policy, shaped, format!("{size} {layer}"));
            verify::WrongSample { level: plan.levels[k], index, run }
        });
        verify::Beyond {
            sizes: plan.sizes.clone(),
            levels: plan.levels.clone(),
            samples: plan.per.clone(),
            failed,
            steps: ran.iter().map(|r| r.1).fold(0, u64::saturating_add),
            seed: verify::SAMPLE_SEED,
            smallest,
        }
    }

    /// Input `index` of `part` run step by step: the input, the answers and the first step that
    /// differs from the expected trace.
    fn counterexample(
        &self,
        config: &Config,
        policy: &(dyn Fn() -> Agent + Sync),
        part: &Part<'_, T::Sample>,
        index: u64,
    ) -> Counterexample {
        let task = &self.0;
        let shaped = (part.nth)(index);
        let shape = part.shape(shaped.cell);
        // A part checked by location: the first misread, when no word is wrong before it.
        let misread = task.read_steps(part, &shaped.sample).and_then(|sources| {
            let prepared = PreparedSample::new(task, shaped.sample.clone());
            policy().visit(Located { task, config, prepared: &prepared, sources: &sources }).2
        });
        let mut c = self.counterexample_of(config, policy, shaped, shape);
        if let Some(m) = misread.filter(|m| c.first_wrong.as_ref().is_none_or(|w| m.step <= w.step)) {
            c.first_wrong = Some(m);
        }
        c
    }

    /// `shaped` run step by step, its rows kept up to the first wrong one.
    fn counterexample_of(
        &self,
        config: &Config,
        policy: &(dyn Fn() -> Agent + Sync),
        shaped: verify::Shaped<T::Sample>,
        shape: String,
    ) -> Counterexample {
        let task = &self.0;
        // Trace rows only where they fit the memory limit (a smallest counterexample is small).
        let rows_fit = self.admit(&shaped.sample, config, TRACE_ROW_BYTES).is_ok();
        let prepared = PreparedSample::new(task, shaped.sample);
        let mut rows = Vec::new();
        let limits = (to_its_end(&prepared), rows_fit.then_some(&mut rows), true);
        let run = Self::run_agent(&mut policy(), config.clone(), &prepared, limits, &mut |_| {}, task);
        let first_wrong = rows.into_iter().find(|r| r.correct == Some(false)).map(|r| WrongStep {
            step: r.step,
            phase: r.phase.to_string(),
            expected_op: r.expected_op.map(str::to_string),
            op: r.op.to_string(),
            expected_reads: r.expected_reads,
            reads: r.reads,
        });
        Counterexample {
            shape,
            layer: shaped.layer,
            cell: shaped.cell,
            input: task.sample_json(&prepared.sample),
            expected: task.answer_json(&run.reference),
            output: task.answer_json(&run.answer),
            steps: run.steps,
            first_wrong,
        }
    }
}

/// One run of a policy on a prepared sample, at the policy's architecture.
struct RunOn<'a, T: Task> {
    task: &'a T,
    config: Config,
    prepared: &'a PreparedSample<T>,
    limits: RunLimits,
    rows: Option<&'a mut Vec<TraceRow>>,
    until_wrong: bool,
    after_step: &'a mut dyn FnMut(u64),
}

impl<T: Task> Visit for RunOn<'_, T> {
    type Output = Run<T>;
    fn visit<A: Architecture>(self, policy: &mut dyn Policy<A::Decision>) -> Run<T> {
        let RunOn { task, config, prepared, limits, mut rows, until_wrong, after_step } = self;
        let mut machine = Machine::with_memory(&config, A::memory::<T::Data>(&config));
        let ops = task.algorithm().ops;
        let mut modules = prepared.modules.clone();
        let outcome =
            run_scored(&mut machine, &mut modules, policy, &prepared.trace, limits, |r, correct| {
                after_step(r.step);
                let Some(rows) = rows.as_deref_mut() else { return };
                if until_wrong && rows.last().is_some_and(|row| row.correct == Some(false)) {
                    return;
                }
                let t = r.step as usize;
                let expected = (t < prepared.trace.len()).then(|| prepared.trace.step(t));
                rows.push(TraceRow {
                    step: r.step,
                    phase: r.phase,
                    written: r.written.to_vec(),
                    reads: (0..config.read_heads)
                        .map(|j| {
                            let mode = r.decision.read_mode(j, r.read_notes[j]);
                            (mode, r.read_locations[j], task.show(&r.reads[j]))
                        })
                        .collect(),
                    op: ops.get(r.op).copied().unwrap_or("?"),
                    correct,
                    expected_op: expected
                        .as_ref()
                        .and_then(|e| e.op)
                        .map(|op| ops.get(op).copied().unwrap_or("?")),
                    expected_reads: (0..config.read_heads)
                        .map(|j| {
                            expected.as_ref().and_then(|e| e.reads.get(j)?.as_ref()).map(|d| task.show(d))
                        })
                        .collect(),
                    control: r.decision.control(&config, r.control_reads),
                })
            });
        let answer = task.answer(&modules);
        Run {
            correct: outcome.solved() && answer == prepared.reference,
            reference: prepared.reference.clone(),
            answer,
            steps: outcome.steps,
        }
    }
}

/// A run whose reads are checked by location too ([`Task::read_steps`]): whether it solves the
/// sample (as [`score_prepared`]) reading, at every step, a location that holds the word written
/// (by the first write head) at the step its source names; its steps; its first misread step.
struct Located<'a, T: Task> {
    task: &'a T,
    config: &'a Config,
    prepared: &'a PreparedSample<T>,
    sources: &'a [Option<u64>],
}

impl<T: Task> Visit for Located<'_, T> {
    type Output = (bool, u64, Option<WrongStep>);
    fn visit<A: Architecture>(self, policy: &mut dyn Policy<A::Decision>) -> Self::Output {
        let Located { task, config, prepared, sources } = self;
        let mut machine = Machine::with_memory(config, A::memory::<T::Data>(config));
        let mut modules = prepared.modules.clone();
        let (heads, ops) = (config.read_heads, task.algorithm().ops);
        let name = |op: usize| ops.get(op).copied().unwrap_or("?").to_string();
        // The location each step wrote, and the step whose word each location holds.
        let (mut written_at, mut holds, mut misread) = (Vec::new(), Vec::new(), None);
        let trace = &prepared.trace;
        let outcome = run_scored(&mut machine, &mut modules, policy, trace, RunLimits::SCORE, |r, _| {
            let t = r.step as usize;
            written_at.push(r.written[0]);
            if holds.len() <= r.written[0] {
                holds.resize(r.written[0] + 1, usize::MAX);
            }
            holds[r.written[0]] = t;
            let source = |j: usize| sources.get(t * heads + j).copied().flatten().map(|k| k as usize);
            let wrong =
                (0..heads).any(|j| source(j).is_some_and(|k| holds.get(r.read_locations[j]) != Some(&k)));
            let want: Vec<Option<usize>> = (0..heads)
                .map(|j| source(j).map(|k| written_at.get(k).copied().unwrap_or(usize::MAX)))
                .collect();
            if wrong && misread.is_none() {
                let expected = (t < trace.len()).then(|| trace.step(t));
                let word = |j: usize| expected.as_ref()?.reads.get(j)?.as_ref().map(|d| task.show(d));
                misread = Some(WrongStep {
                    step: r.step,
                    phase: r.phase.to_string(),
                    expected_op: expected.as_ref().and_then(|e| e.op).map(name),
                    op: name(r.op),
                    expected_reads: (0..heads)
                        .map(|j| match want[j] {
                            Some(l) => Some(format!("{} at location {l}", word(j).unwrap_or_default())),
                            None => word(j),
                        })
                        .collect(),
                    reads: (0..heads)
                        .map(|j| {
                            let mode = r.decision.read_mode(j, r.read_notes[j]);
                            (mode, r.read_locations[j], task.show(&r.reads[j]))
                        })
                        .collect(),
                });
            }
        });
        let solved = outcome.solved() && misread.is_none() && task.answer(&modules) == prepared.reference;
        (solved, outcome.steps, misread)
    }
}

impl<T: Task> AnyTask for Entry<T> {
    fn algorithm(&self) -> &'static Algorithm {
        self.0.algorithm()
    }
    fn domain(&self) -> &'static str {
        self.0.domain()
    }
    fn takes_maps(&self) -> bool {
        self.0.takes_maps()
    }
    fn takes_text(&self) -> bool {
        self.0.takes_text()
    }
    fn max_level(&self) -> usize {
        self.0.max_level()
    }
    fn level_steps(&self, level: usize) -> u64 {
        self.0.max_steps(level)
    }
    fn check_level(&self, level: usize) -> Result<(), TaskError> {
        let max = self.0.max_level();
        match level {
            0 => Err(TaskError::Level(level)),
            l if l > max => Err(TaskError::LevelTooHigh { task: self.0.algorithm().name, got: l, max }),
            _ => Ok(()),
        }
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        self.0.scripted()
    }
    fn has_script(&self) -> bool {
        self.0.has_script()
    }
    fn digest(&self) -> Option<String> {
        self.0.digest()
    }
    fn prepare_with_update_feedback(
        &self,
        keys: &[SampleKey],
        update_feedback: UpdateFeedback,
    ) -> Box<dyn Prepared + '_> {
        Box::new(Batch::with_update_feedback(&self.0, keys, update_feedback))
    }
    fn knows_updates(&self) -> bool {
        let sample = SampleKey::new(1, 0).sample(&self.0);
        self.0.trace(&sample).knows_updates()
    }
    fn evaluate(
        &self,
        model: &Model,
        level: usize,
        samples: usize,
        seed: u64,
    ) -> Result<EvalReport, TaskError> {
        if samples == 0 {
            return Err(TaskError::NoSamples);
        }
        nhc_io::limits::at_most("the number of samples", samples as u64, MAX_SAMPLES as u64)?;
        let config = model.config(self.0.algorithm());
        let threads = rayon::current_num_threads();
        let fit = self.level_in_flight(level, &config, 0, threads as u64)? as usize;
        let steps = (samples as u64).saturating_mul(self.0.max_steps(level));
        nhc_io::limits::check_work(&format!("evaluating {samples} samples of level {level}"), steps)?;
        let start = std::time::Instant::now();
        let go = || evaluate(&self.0, &config, &|| model.policy(self), level, samples, seed);
        let results = on_threads(fit as u64, go);
        let seconds = start.elapsed().as_secs_f64();
        Ok(EvalReport::new((self.name(), self.domain()), model, (level, seed), &results, seconds))
    }
    fn check_input(&self, input: &Value) -> Result<(), TaskError> {
        self.parse(input, &self.0.algorithm().config, 0).map(|_| ())
    }
    fn run(&self, model: &Model, input: &Value) -> Result<RunReport, TaskError> {
        let sample = self.parse(input, &model.config(self.0.algorithm()), 0)?;
        Ok(self.run_sample(model, sample, None))
    }
    fn time_sample(
        &self,
        model: &Model,
        level: usize,
        seed: u64,
        max_steps: u64,
    ) -> Result<(u64, f64), TaskError> {
        let task = &self.0;
        self.level_in_flight(level, &model.config(task.algorithm()), 0, 1)?;
        let prepared = PreparedSample::new(task, task.sample(level, &mut sample_rng(seed, level, 0)));
        let limits = RunLimits { stop_at_mistake: false, max_steps };
        let start = std::time::Instant::now();
        let run = self.run_limited(model, &prepared, limits, None, &mut |_| {});
        Ok((run.steps, start.elapsed().as_secs_f64()))
    }
    fn trace(&self, model: &Model, source: &TraceSource) -> Result<(Vec<TraceRow>, RunReport), TaskError> {
        let task = &self.0;
        let config = model.config(task.algorithm());
        let sample = match source {
            TraceSource::Level { level, seed, index } => {
                self.level_in_flight(*level, &config, TRACE_ROW_BYTES, 1)?;
                let what = format!("tracing a sample of task `{}` at level {level}", task.algorithm().name);
                nhc_io::limits::check_work(&what, task.max_steps(*level))?;
                task.sample(*level, &mut sample_rng(*seed, *level, *index))
            }
            TraceSource::Input(v) => self.parse(v, &config, TRACE_ROW_BYTES)?,
        };
        let mut rows = Vec::new();
        let report = self.run_sample(model, sample, Some(&mut rows));
        Ok((rows, report))
    }
    fn sample(&self, level: usize, seed: u64, index: u64) -> Result<(Value, Value), TaskError> {
        let task = &self.0;
        self.level_in_flight(level, &task.algorithm().config, 0, 1)?;
        let s = task.sample(level, &mut sample_rng(seed, level, index));
        Ok((task.sample_json(&s), task.answer_json(&task.reference(&s))))
    }
    fn episode_shape(&self) -> Option<EpisodeShape> {
        episode::shape(&self.0)
    }
    fn episode(&self, level: usize, rng: &mut SampleRng) -> Result<Episode, TaskError> {
        self.level_in_flight(level, &self.0.algorithm().config, 0, 1)?;
        Ok(episode::record(&self.0, level, rng)?)
    }
    fn verify_beyond(
        &self,
        model: &Model,
        bounds: &verify::Bounds,
        top: u64,
    ) -> Result<verify::Report, TaskError> {
        let config = model.config(self.0.algorithm());
        self.verify_beyond_with(&config, &|| model.policy(self), &model_name(model), bounds, top)
    }
    fn verify_every_length(
        &self,
        model: &Model,
        bounds: &verify::Bounds,
        top: u64,
        objects: Option<u64>,
    ) -> Result<verify::Report, TaskError> {
        use crate::copy_family::duplicated::MAX_REPEATS_OBJECTS as MAX;
        use crate::every_length::{Order, Proof, Repeats, Unproved, prove, prove_repeats};
        let start = std::time::Instant::now();
        let order = match (self.0.every_length_order(), objects) {
            (_, Some(0)) => return Err(TaskError::Bound),
            (_, Some(got)) if got > MAX => return Err(TaskError::TooManyObjects { got, max: MAX }),
            (Ok(Order::Repeats { .. }), Some(objects)) => Ok(Order::Repeats { objects }),
            (_, Some(_)) => {
                return Err(TaskError::EveryLengthObjects { task: self.0.algorithm().name, max: MAX });
            }
            (order, None) => order,
        };
        // repeatCopy's and duplicated's proofs run each length below their n0 themselves.
        let lists = matches!(order, Ok(Order::Forward | Order::Backward));
        let proof: Result<(Option<Proof>, Option<Repeats>), Unproved> =
            order.map_err(|reason| Unproved { reason, wrong_at: None }).and_then(|order| {
                let config = model.config(self.0.algorithm());
                match (model.policy(self), order) {
                    (Agent::Nhc(mut p), Order::Repeats { objects }) => {
                        prove_repeats(&config, p.as_mut(), objects).map(|r| (None, Some(r)))
                    }
                    (Agent::Nhc(mut p), order) => prove(&config, p.as_mut(), order).map(|p| (Some(p), None)),
                    _ => Err(Unproved {
                        reason: "the every-length proof covers the NHC's memory, not the DNC's".into(),
                        wrong_at: None,
                    }),
                }
            });
        let seconds = start.elapsed().as_secs_f64();
        let reach = match &proof {
            _ if !lists => None,
            Ok((Some(p), _)) => Some(p.n0 + p.modulus),
            Ok(_) => None,
            Err(u) => u.wrong_at,
        };
        // Each part's bound (the given one, else its default), raised to reach.
        let bounds = match reach {
            Some(r) => verify::Bounds(self.0.shapes(bounds).iter().map(|p| p.bound.max(r)).collect()),
            None => bounds.clone(),
        };
        let mut report = self.verify_beyond(model, &bounds, top)?;
        let (outcome, reason, proof) = match proof {
            // duplicated's claim is about the lists presented alike: the run-length sequences the
            // listing finds wrong lie outside it (and its uniform part inside, where the proof is
            // sound and says the same).
            Ok((None, Some(r))) => ("proved", None, (None, Some(r))),
            // Whatever the symbolic run found, a listed length is wrong.
            _ if report.failed() => (
                "wrong",
                Some("a listed length is wrong: the counterexample above".to_string()),
                (None, None),
            ),
            // A domain with few words caps the listing: the lengths below n₀ are not all listed.
            Ok((Some(p), _)) if lists && report.parts.iter().any(|part| part.bound < p.n0 + p.modulus) => (
                "not proved",
                Some(format!(
                    "the symbolic run proves every length from {} on, but domain `{}` lists lengths only to {}; --domain decimal lists them all",
                    p.n0,
                    report.domain,
                    report.parts.iter().map(|part| part.bound).min().unwrap_or(0)
                )),
                (None, None),
            ),
            Ok(p) => ("proved", None, p),
            Err(u) if u.wrong_at.is_some() => ("wrong", Some(u.reason), (None, None)),
            Err(u) => ("not proved", Some(u.reason), (None, None)),
        };
        let (proof, repeats) = proof;
        let traced = match (&proof, &repeats) {
            (Some(p), _) => p.pass_block().map(|b| (b.objects, b.copies)),
            (_, Some(r)) => r.block.as_ref().map(|b| (b.objects, b.repeats)),
            _ => None,
        };
        let trace_input = traced.and_then(|(objects, times)| self.0.trace_input(objects, times));
        report.every_length = Some(verify::EveryLength {
            outcome: outcome.to_string(),
            reason,
            proof,
            seconds,
            trace_input,
            repeats,
        });
        Ok(report)
    }
    fn programs(&self, config: &Config, spec: &programs::Spec) -> Result<programs::Report, TaskError> {
        nhc_io::limits::at_most("the number of samples per level", spec.samples as u64, MAX_SAMPLES as u64)?;
        // Every sample is held at once: their shares of the memory limit must add up to at most 1.
        let levels = (1..=spec.levels.max(1)).map(|l| (l, spec.samples));
        let mut share = 0.0;
        for (level, wanted) in levels.chain(spec.checks.iter().copied()) {
            share += wanted as f64 / self.level_in_flight(level, config, 0, u64::MAX)? as f64;
            if share > 1.0 {
                return Err(TaskError::ProgramSamples { level });
            }
        }
        Ok(programs::search(&self.0, config, spec)?)
    }
}
