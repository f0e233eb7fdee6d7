//! The seam between the data modules and the model behind them (paper, Table 1): the NHC's
//! Controller, Memory and Bus, or the DNC's controller, memory and output layer (DNC+is+ha).
//!
//! Everything that depends on the architecture asks [`Architecture`]: θ's layout, the learned
//! policy, the memory, the initial gate biases, word noise. [`Arch`] names one at run time (a
//! config's `memory`), [`Agent`] is a policy of any of them, and [`Agent::visit`] hands it back
//! with its type. The `architectures!` list at the end of this file is the one place a new
//! architecture joins (docs/DESIGN.md, "How to add a model variant").

use crate::config::{Config, ConfigError};
use crate::machine::Machine;
use crate::memory::{Memory, MemoryDecision, MemoryModule};
use crate::params::{Block, Layout, Params};
use crate::policy::{BusDecision, Learned, Observation, Policy};
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::fmt::Debug;

/// A data word a machine carries (any task's `Data`).
pub trait Word: Clone + Default + PartialEq + Debug + Send + 'static {}
impl<T: Clone + Default + PartialEq + Debug + Send + 'static> Word for T {}

/// What a memory interface decides in one step, and how a trace shows it.
pub trait Decision: Send + 'static {
    /// Read head j's mode as text (`F1`, `P2`, …), given the memory's note on the read.
    fn read_mode(&self, j: usize, note: &str) -> String;
    /// The control side of the step.
    fn control(&self, c: &Config, control_reads: &[f32]) -> ControlRow;
    /// Whether the step updates a location read the step before (the NHC's ĝ = 1 for a head).
    fn updates_previous(&self) -> bool {
        false
    }
}

/// The control side of one step (MODEL §2 steps 3–4), for traces.
#[derive(Debug, Clone, Serialize)]
pub struct ControlRow {
    /// Per write head: the write vector v.
    pub written: Vec<Vec<f32>>,
    /// Per read head: the control word read, c_m.
    pub read: Vec<Vec<f32>>,
    /// Per read head: the previous update `(v̂, ê)` applied to its location of t−1, if ĝ = 1.
    pub updates: Vec<Option<(Vec<f32>, Vec<f32>)>>,
    /// Free gates f_w (per write head) and f_r (per read head).
    pub free_write: Vec<bool>,
    pub free_read: Vec<bool>,
    /// The DNC's interface values (DNC+is+ha only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dnc: Option<crate::dnc::DncControl>,
}

impl ControlRow {
    /// `v` cut into words of `c.word`.
    pub fn words(c: &Config, v: &[f32]) -> Vec<Vec<f32>> {
        v.chunks(c.word).map(<[f32]>::to_vec).collect()
    }
}

/// One model architecture: the modules between the Input and the ALU.
pub trait Architecture: 'static {
    /// What its memory interface decides each step.
    type Decision: Decision;
    /// Its memory, for data words `D`.
    type Memory<D: Word>: MemoryModule<D, Decision = Self::Decision> + Send + 'static;

    /// θ's blocks with their names, in θ order; the last ends at |θ|.
    fn blocks(config: &Config) -> Vec<(&'static str, Block)>;
    /// Checks what this architecture needs of a config beyond [`Config::check`].
    fn check(_config: &Config) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The learned modules on `params`.
    fn learned(params: Params) -> Box<dyn Policy<Self::Decision> + Send>;
    /// An empty memory.
    fn memory<D: Word>(config: &Config) -> Self::Memory<D>;
    /// Blocks whose biases start at the training's gate bias (MODEL §6).
    fn gates(_config: &Config) -> Vec<Block> {
        Vec::new()
    }
    /// The free gates among [`Architecture::gates`] (their biases also take the training's
    /// free-gate bias).
    fn free_gates(_config: &Config) -> Vec<Block> {
        Vec::new()
    }
    /// Whether training may add word noise (docs/DESIGN.md, "Word noise").
    const WORD_NOISE: bool = false;
    /// Adds `draw()` to every control word written this step, in a fixed order.
    fn add_word_noise(_decision: &mut Self::Decision, _draw: &mut dyn FnMut() -> f32) {}
}

/// The full NHC and its ablations: Controller, memory interface and Bus on the NHC's Memory
/// (MODEL §2–§3).
#[derive(Debug, Clone, Copy)]
pub struct NhcModules;

impl Architecture for NhcModules {
    type Decision = MemoryDecision;
    type Memory<D: Word> = Memory<D>;

    fn blocks(config: &Config) -> Vec<(&'static str, Block)> {
        Layout::new(config).named().to_vec()
    }
    fn learned(params: Params) -> Box<dyn Policy<MemoryDecision> + Send> {
        Box::new(Learned::new(params))
    }
    fn memory<D: Word>(config: &Config) -> Memory<D> {
        Memory::new(config)
    }
    fn gates(config: &Config) -> Vec<Block> {
        let mut gates = vec![Layout::new(config).prev_gate];
        gates.extend(Self::free_gates(config));
        gates
    }
    fn free_gates(config: &Config) -> Vec<Block> {
        let l = Layout::new(config);
        vec![l.free_write, l.free_read]
    }
    const WORD_NOISE: bool = true;
    /// v of every write head, then v̂ of every read head.
    fn add_word_noise(d: &mut MemoryDecision, draw: &mut dyn FnMut() -> f32) {
        for x in d.write.iter_mut().chain(d.prev_write.iter_mut()) {
            *x += draw();
        }
    }
}

impl Decision for MemoryDecision {
    fn updates_previous(&self) -> bool {
        self.prev_gate.iter().any(|&g| g)
    }
    fn read_mode(&self, j: usize, note: &str) -> String {
        if note.is_empty() {
            self.read_modes[j].to_string()
        } else {
            format!("{}:{note}", self.read_modes[j])
        }
    }
    fn control(&self, c: &Config, control_reads: &[f32]) -> ControlRow {
        let (v_hat, e_hat) = (ControlRow::words(c, &self.prev_write), ControlRow::words(c, &self.prev_erase));
        ControlRow {
            written: ControlRow::words(c, &self.write),
            read: ControlRow::words(c, control_reads),
            updates: (0..c.read_heads)
                .map(|j| self.prev_gate[j].then(|| (v_hat[j].clone(), e_hat[j].clone())))
                .collect(),
            free_write: self.free_write.clone(),
            free_read: self.free_read.clone(),
            dnc: None,
        }
    }
}

/// Work done with a policy of any architecture: [`Agent::visit`] calls `visit::<A>`.
pub trait Visit {
    type Output;
    fn visit<A: Architecture>(self, policy: &mut dyn Policy<A::Decision>) -> Self::Output;
}

/// A policy with word noise (docs/DESIGN.md, "Word noise"): `draw` gives the noise added to
/// each control word the inner policy writes ([`Architecture::add_word_noise`]).
pub struct WordNoise<'a, A: Architecture> {
    pub inner: &'a mut dyn Policy<A::Decision>,
    pub draw: &'a mut dyn FnMut() -> f32,
}

impl<A: Architecture> Policy<A::Decision> for WordNoise<'_, A> {
    fn begin(&mut self) {
        self.inner.begin()
    }
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut A::Decision) {
        self.inner.control(obs, c_c, out);
        A::add_word_noise(out, self.draw);
    }
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        self.inner.bus(input_bus, c_c, read_now)
    }
}

/// A thread's machine, of whatever data words and architecture the runs have, reused across
/// runs. The task's data type is known where a sample is scored and the architecture where the
/// agent is made, so the machine is kept by type and remade when either changes.
pub struct Workspace {
    config: Config,
    machine: Option<Box<dyn Any + Send>>,
}

impl Workspace {
    /// A workspace for models of `config`.
    pub fn new(config: &Config) -> Self {
        Workspace { config: config.clone(), machine: None }
    }

    /// The machine for data words `D` on architecture `A`, made on first use.
    pub fn machine<A: Architecture, D: Word>(&mut self) -> &mut Machine<D, A::Memory<D>> {
        let fits = self.machine.as_ref().is_some_and(|m| m.is::<Machine<D, A::Memory<D>>>());
        if !fits {
            let machine = Machine::with_memory(&self.config, A::memory::<D>(&self.config));
            self.machine = Some(Box::new(machine));
        }
        match self.machine.as_mut().and_then(|m| m.downcast_mut::<Machine<D, A::Memory<D>>>()) {
            Some(m) => m,
            None => unreachable!("the machine was just made for D and A"),
        }
    }
}

/// Declares the architectures: the [`Arch`] names, the [`Agent`] that holds a policy of any of
/// them, and the dispatch from one to its type.
macro_rules! architectures {
    ($($(#[$doc:meta])* $kind:ident => $arch:ty),+ $(,)?) => {
        /// Which architecture a config describes (a config's `memory`).
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum Arch {
            $($(#[$doc])* $kind,)+
        }

        impl Arch {
            /// Every architecture.
            pub const ALL: &'static [Arch] = &[$(Arch::$kind),+];

            /// θ's blocks with their names, in θ order.
            pub fn blocks(self, config: &Config) -> Vec<(&'static str, Block)> {
                match self { $(Arch::$kind => <$arch>::blocks(config),)+ }
            }
            /// Checks what the architecture needs of `config`.
            pub fn check(self, config: &Config) -> Result<(), ConfigError> {
                match self { $(Arch::$kind => <$arch>::check(config),)+ }
            }
            /// Blocks whose biases start at the training's gate bias.
            pub fn gates(self, config: &Config) -> Vec<Block> {
                match self { $(Arch::$kind => <$arch>::gates(config),)+ }
            }
            /// The free gates among [`Arch::gates`].
            pub fn free_gates(self, config: &Config) -> Vec<Block> {
                match self { $(Arch::$kind => <$arch>::free_gates(config),)+ }
            }
            /// Whether training may add word noise.
            pub fn word_noise(self) -> bool {
                match self { $(Arch::$kind => <$arch>::WORD_NOISE,)+ }
            }
        }

        /// A policy of any architecture: what runs a model.
        pub enum Agent {
            $(#[doc = concat!("A policy of [`Arch::", stringify!($kind), "`].")]
            $kind(Box<dyn Policy<<$arch as Architecture>::Decision> + Send>),)+
        }

        impl Agent {
            /// The learned modules on `params`, for the architecture its config names.
            pub fn learned(params: Params) -> Agent {
                match params.config().memory {
                    $(Arch::$kind => Agent::$kind(<$arch>::learned(params)),)+
                }
            }
            /// Runs `work` with the policy at its type.
            pub fn visit<V: Visit>(&mut self, work: V) -> V::Output {
                match self { $(Agent::$kind(p) => work.visit::<$arch>(p.as_mut()),)+ }
            }
        }
    };
}

architectures! {
    /// The NHC's Controller, Memory and Bus.
    #[default]
    Nhc => NhcModules,
    /// The DNC's controller, memory and output layer with information split and hard attention.
    Dnc => crate::dnc::DncIsHa,
}

impl Arch {
    /// |θ|.
    pub fn theta_len(self, config: &Config) -> usize {
        self.blocks(config).last().map_or(0, |(_, b)| b.end())
    }
}

/// |θ| for `config`, on the architecture it names.
pub fn theta_len(config: &Config) -> usize {
    config.memory.theta_len(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_tile_theta_in_order() {
        let c = Config {
            input_controller: 2,
            input_memory: 2,
            input_bus: 1,
            read_heads: 2,
            ops: 3,
            ..Config::PAPER
        };
        for &arch in Arch::ALL {
            let c = Config { memory: arch, ..c.clone() };
            let mut end = 0;
            for (name, b) in arch.blocks(&c) {
                assert_eq!(b.offset, end, "{arch:?}: {name} starts where the block before ends");
                end = b.end();
            }
            assert_eq!(arch.theta_len(&c), end);
        }
    }
}
