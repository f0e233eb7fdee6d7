//! Algorithms declared in Python (`nhc.Algorithm`, python/nhc/algorithm.py) as the core's
//! [`Declared`] (crates/nhc-tasks/src/declared): `Entry(Stepping(Own(PyDeclared)))` ([`DeclaredTask`]) is
//! an `AnyTask` that trains, evaluates, traces and runs by the code every built-in task runs by;
//! [`Stepping`] only tells the notes on an ALU function's exception at which model step of which
//! sample it was raised.
//!
//! A data word is a [`Word`] (None, bool, 64-bit int, str, or a list of words: hashable and exact),
//! a sample the JSON form of the Python sample. The Python class normalises what the user's
//! functions return (`_sample`, `_input`, `_program`, `_reference`, `_alu`); this side converts it
//! and refuses, without panicking, what would not fit the core.
//!
//! Speed: one call into Python (`_prepare`) draws a sample and makes its Input, program and
//! reference, which the core asks for next (`Prepared`); ALU results are cached per (operation,
//! words read), shared by every run of the declaration, so the user's ALU functions must be pure,
//! and pass-through operations never call Python; the work runs on threads that keep a Python
//! thread state for their life (`pool`).
//!
//! The first exception of a user function in a request (a training run, an evaluation, a run) is
//! kept ([`Calls`], as for the user's data modules; the Python side notes where it was raised);
//! later calls return neutral values without calling Python (an empty sample whose Input stops at
//! once), and the exception is raised when the request returns.

use crate::convert::{to_json, to_py};
use crate::errors::{value_error, with_note};
use crate::steps::{Stepping, run_note};
use crate::user::{Calls, repr};
use nhc_model::Trace;
use nhc_tasks::any_task::{AnyTask, Entry};
use nhc_tasks::{Algorithm, Declared, InputError, Own, Pattern, SampleRng, Stop, Stream};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};

/// A data word of a declared algorithm. The default, `None`, is the empty word (unwritten
/// memory, the output phase's input); a declaration's `empty` value stands for it in Python.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Word {
    #[default]
    None,
    Bool(bool),
    Int(i64),
    Str(Arc<str>),
    List(Arc<[Word]>),
}

/// JSON: null, true/false, a number, a string, an array.
impl Serialize for Word {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Word::None => s.serialize_unit(),
            Word::Bool(b) => s.serialize_bool(*b),
            Word::Int(i) => s.serialize_i64(*i),
            Word::Str(t) => s.serialize_str(t),
            Word::List(items) => s.collect_seq(items.iter()),
        }
    }
}

struct WordVisitor;

impl<'de> Visitor<'de> for WordVisitor {
    type Value = Word;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a word: null, a boolean, a 64-bit integer, a string or an array of words")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Word, E> {
        Ok(Word::None)
    }
    fn visit_none<E: de::Error>(self) -> Result<Word, E> {
        Ok(Word::None)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Word, E> {
        Ok(Word::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Word, E> {
        Ok(Word::Int(i))
    }
    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Word, E> {
        i64::try_from(u).map(Word::Int).map_err(|_| E::custom(format!("{u} is beyond 64-bit integers")))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Word, E> {
        Err(E::custom(format!("{x} is not a word: words are exact (no floats)")))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Word, E> {
        Ok(Word::Str(s.into()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Word, A::Error> {
        let mut items = Vec::new();
        while let Some(w) = seq.next_element()? {
            items.push(w);
        }
        Ok(Word::List(items.into()))
    }
}

impl<'de> Deserialize<'de> for Word {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Word, D::Error> {
        d.deserialize_any(WordVisitor)
    }
}

const WORDS: &str = "words are None, bool, int (64-bit), str, or tuples and lists of these";

impl Word {
    /// A Python word: None, bool, int, str, or a tuple or list of words.
    fn from_py(x: &Bound<'_, PyAny>) -> Result<Word, String> {
        if x.is_none() {
            return Ok(Word::None);
        }
        if let Ok(b) = x.cast::<PyBool>() {
            return Ok(Word::Bool(b.is_true()));
        }
        if x.is_instance_of::<PyInt>() {
            return x.extract::<i64>().map(Word::Int).map_err(|_| format!("{} is beyond 64 bits", repr(x)));
        }
        if let Ok(s) = x.cast::<PyString>() {
            return s.to_str().map(|s| Word::Str(s.into())).map_err(|e| e.to_string());
        }
        let items = |it: Vec<Bound<'_, PyAny>>| -> Result<Word, String> {
            let words = it.iter().map(Word::from_py).collect::<Result<Vec<_>, _>>()?;
            Ok(Word::List(words.into()))
        };
        if let Ok(t) = x.cast::<PyTuple>() {
            return items(t.iter().collect());
        }
        if let Ok(l) = x.cast::<PyList>() {
            return items(l.iter().collect());
        }
        if x.is_instance_of::<PyFloat>() {
            return Err(format!("the float {} is not a word: {WORDS}, compared exactly", repr(x)));
        }
        let kind = x.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        Err(format!("{kind} {} is not a word: {WORDS}", repr(x)))
    }

    /// The word in Python (a list as a tuple).
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Word::None => py.None().into_bound(py),
            Word::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Word::Int(i) => i.into_pyobject(py)?.into_any(),
            Word::Str(s) => PyString::new(py, s).into_any(),
            Word::List(items) => {
                let items = items.iter().map(|w| w.to_py(py)).collect::<PyResult<Vec<_>>>()?;
                PyTuple::new(py, items)?.into_any()
            }
        })
    }
}

thread_local! {
    /// The level of the sample this thread last drew (`None`: a user's input), for notes.
    static LEVEL: Cell<Option<usize>> = const { Cell::new(None) };
}

fn level() -> Option<usize> {
    LEVEL.with(Cell::get)
}

/// The sample the core works on, in words.
fn sample_name(level: Option<usize>) -> String {
    match level {
        Some(l) => format!("a level-{l} sample"),
        None => "the input".to_string(),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// At most this many cached ALU results per operation (beyond, new reads call Python each time):
/// a bound on the memory of algorithms whose words are many (long strings, large numbers).
const ALU_CACHE_ENTRIES: usize = 1 << 20;

/// ALU results of one operation by the words read.
type AluCache = RwLock<HashMap<Box<[Word]>, (Word, Box<[f32]>), BuildHasherDefault<WordHasher>>>;

/// A multiply-rotate hash for the ALU cache: its keys are a few small words, looked up at every
/// model step, where SipHash's resistance to chosen keys buys nothing.
#[derive(Default, Clone, Copy)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// What a declaration holds, shared by every request on it.
struct Inner {
    /// The `nhc.Algorithm`.
    object: Py<PyAny>,
    algorithm: &'static Algorithm,
    passthrough: Vec<bool>,
    heads: usize,
    feedback: usize,
    width: usize,
    /// The Input's signals when they follow a pattern: `first-inner-last` or `first-repeat`.
    pattern: Option<String>,
    /// Why a sample is not the list of words it presents ([`Declared::presents_itself`]).
    presents_itself: Option<String>,
    answers_while_presented: bool,
    /// The declaration's `empty`, as a word and as given.
    empty: Word,
    empty_py: Py<PyAny>,
    digest: String,
    alu: Vec<AluCache>,
    /// The declaration as a task (for a model's name, config and file).
    task: OnceLock<&'static dyn AnyTask>,
}

/// A declared algorithm as a task: its runs say where they are.
pub type DeclaredTask = Entry<Stepping<Own<PyDeclared>>>;

/// An `nhc.Algorithm` as the core's [`Declared`], for one request (its [`Calls`]). Clones share
/// the declaration and the request.
#[derive(Clone)]
pub struct PyDeclared {
    inner: Arc<Inner>,
    calls: Arc<Calls>,
}

impl std::fmt::Debug for PyDeclared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyDeclared({}, digest {})", self.inner.algorithm.name, self.inner.digest)
    }
}

/// The declaration an `nhc.Algorithm` keeps once built (its attribute `_declaration`).
#[pyclass(module = "nhc", frozen)]
struct Declaration(PyDeclared);

/// `spec[key]` of the declaration's settings.
fn field<'py>(spec: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    spec.get_item(key)?.ok_or_else(|| PyTypeError::new_err(format!("the declaration's settings lack {key}")))
}

impl PyDeclared {
    /// The declaration of `obj` if it is an `nhc.Algorithm` (built once per object), else `None`.
    pub fn of(obj: &Bound<'_, PyAny>) -> PyResult<Option<PyDeclared>> {
        let py = obj.py();
        let class = py.import("nhc.algorithm")?.getattr("Algorithm")?;
        if !obj.is_instance(&class)? {
            return Ok(None);
        }
        if let Ok(d) = obj.getattr(intern!(py, "_declaration"))
            && let Ok(d) = d.cast::<Declaration>()
        {
            return Ok(Some(d.get().0.clone()));
        }
        let declared = PyDeclared::build(obj)?;
        obj.setattr(intern!(py, "_declaration"), Bound::new(py, Declaration(declared.clone()))?)?;
        Ok(Some(declared))
    }

    /// The declaration of `obj`, which must be an `nhc.Algorithm`.
    pub fn require(obj: &Bound<'_, PyAny>) -> PyResult<PyDeclared> {
        PyDeclared::of(obj)?.ok_or_else(|| {
            PyTypeError::new_err(format!("algorithm must be an nhc.Algorithm, got {}", repr(obj)))
        })
    }

    /// Reads the declaration's settings (`_spec`); its name and operation names are leaked once,
    /// as the core's algorithms are `'static`.
    fn build(obj: &Bound<'_, PyAny>) -> PyResult<PyDeclared> {
        let spec = obj.call_method0("_spec")?;
        let spec = spec.cast::<PyDict>()?;
        let name: String = field(spec, "name")?.extract()?;
        // The name becomes a run directory's (`NAME-SEED`): a path in it would write elsewhere.
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_+".contains(c)) {
            return Err(value_error(format!(
                "name must be a plain name of letters, digits, '-', '_' and '+' (it names run directories), got {name:?}"
            )));
        }
        let ops: Vec<String> = field(spec, "ops")?.extract()?;
        let passthrough: Vec<bool> = field(spec, "passthrough")?.extract()?;
        let heads: usize = field(spec, "heads")?.extract()?;
        let feedback: usize = field(spec, "feedback")?.extract()?;
        let free_gates: bool = field(spec, "free_gates")?.extract()?;
        let width: usize = field(spec, "width")?.extract()?;
        let digest: String = field(spec, "digest")?.extract()?;
        let pattern: Option<String> = field(spec, "pattern")?.extract()?;
        let presents_itself: Option<String> = field(spec, "presents_itself")?.extract()?;
        let answers_while_presented: bool = field(spec, "answers_while_presented")?.extract()?;
        let empty_py = field(spec, "empty")?;
        let empty = Word::from_py(&empty_py).map_err(|e| PyTypeError::new_err(format!("empty: {e}")))?;
        if passthrough.len() != ops.len() || ops.is_empty() || ops.len() > usize::from(u8::MAX) {
            return Err(PyValueError::new_err(format!("{} operations do not fit the Bus", ops.len())));
        }
        let name: &'static str = Box::leak(name.into_boxed_str());
        let ops: Vec<&'static str> = ops.into_iter().map(|o| &*Box::leak(o.into_boxed_str())).collect();
        let algorithm =
            Algorithm::declare(name, Box::leak(ops.into_boxed_slice()), width, heads, feedback, free_gates);
        algorithm.config.check().map_err(|e| value_error(format!("the algorithm `{name}`: {e}")))?;
        let alu = (0..algorithm.ops.len()).map(|_| AluCache::default()).collect();
        let inner = Inner {
            object: obj.clone().unbind(),
            algorithm: Box::leak(Box::new(algorithm)),
            passthrough,
            heads,
            feedback,
            width,
            pattern,
            presents_itself,
            answers_while_presented,
            empty,
            empty_py: empty_py.unbind(),
            digest,
            alu,
            task: OnceLock::new(),
        };
        Ok(PyDeclared { inner: Arc::new(inner), calls: Arc::default() })
    }

    /// The declaration for a new request: its own first failure.
    pub fn request(&self) -> PyDeclared {
        PyDeclared { inner: Arc::clone(&self.inner), calls: Arc::default() }
    }

    /// The request's calls (its first failure).
    pub fn calls(&self) -> &Arc<Calls> {
        &self.calls
    }

    /// The declaration as a task (one per declaration): a model's name, config and file.
    pub fn task(&self) -> &'static dyn AnyTask {
        *self.inner.task.get_or_init(|| Box::leak(Box::new(self.request().entry())))
    }

    /// This request as a task that lives as long as the process: the trainer takes `'static`
    /// tasks (one small allocation per training run).
    pub fn leak(&self) -> &'static dyn AnyTask {
        Box::leak(Box::new(self.entry()))
    }

    /// This request as a task, for one run, trace or evaluation.
    pub fn entry(&self) -> DeclaredTask {
        Entry(Stepping::new(Own(self.clone())))
    }

    pub fn name(&self) -> &'static str {
        self.inner.algorithm.name
    }

    /// The cheap part of `nhc.check` (levels 1–3, 2 samples, no training), before training.
    pub fn quick_check(&self, py: Python<'_>) -> PyResult<()> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("levels", py.import("builtins")?.getattr("range")?.call1((1, 4))?)?;
        kwargs.set_item("samples", 2)?;
        kwargs.set_item("smoke", false)?;
        self.inner.object.bind(py).call_method("check", (), Some(&kwargs))?;
        Ok(())
    }

    /// An answer the core gave (the JSON of a list of words) as a Python list.
    pub fn answer<'py>(&self, py: Python<'py>, answer: &Value) -> PyResult<Bound<'py, PyAny>> {
        let words: Vec<Word> = serde_json::from_value(answer.clone()).map_err(value_error)?;
        let items = words.iter().map(|w| self.word_to_py(py, w)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any())
    }

    /// A Python word as the core's, the declaration's `empty` as the empty word.
    fn word(&self, x: &Bound<'_, PyAny>) -> Result<Word, String> {
        let w = Word::from_py(x)?;
        Ok(if self.inner.empty != Word::None && w == self.inner.empty { Word::None } else { w })
    }

    fn word_to_py<'py>(&self, py: Python<'py>, w: &Word) -> PyResult<Bound<'py, PyAny>> {
        match w {
            Word::None => Ok(self.inner.empty_py.bind(py).clone()),
            w => w.to_py(py),
        }
    }

    /// Calls the declaration's method through `f`; keeps its first failure (the Python side notes
    /// where it was raised). `None` when this or an earlier call of the request failed.
    fn call<T>(&self, f: impl FnOnce(Python<'_>, &Bound<'_, PyAny>) -> PyResult<T>) -> Option<T> {
        if self.calls.failed() {
            return None;
        }
        Python::attach(|py| match f(py, self.inner.object.bind(py)) {
            Ok(v) => Some(v),
            Err(e) => {
                self.calls.fail(e);
                None
            }
        })
    }

    /// `_alu(op, reads)`: the output word and the feedback.
    fn call_alu(
        &self,
        py: Python<'_>,
        obj: &Bound<'_, PyAny>,
        op: usize,
        reads: &[Word],
    ) -> PyResult<(Word, Box<[f32]>)> {
        let name = self.inner.algorithm.ops.get(op).copied().unwrap_or("?");
        let args = reads.iter().map(|w| self.word_to_py(py, w)).collect::<PyResult<Vec<_>>>()?;
        let r = obj.call_method1(intern!(py, "_alu"), (op, PyTuple::new(py, args)?))?;
        let (out, f): (Bound<'_, PyAny>, Option<Vec<f32>>) = r.extract()?;
        let f = f.unwrap_or_default();
        if f.len() != self.inner.feedback {
            return Err(PyValueError::new_err(format!(
                "ALU operation `{name}` gave {} feedback numbers, the algorithm has feedback={}",
                f.len(),
                self.inner.feedback
            )));
        }
        let out =
            self.word(&out).map_err(|e| not_a_word(format!("the output of ALU operation `{name}`"), e))?;
        Ok((out, f.into_boxed_slice()))
    }

    /// The Input of a failed request: no words, and the output phase stops at once.
    fn neutral_stream(&self) -> Stream<Word> {
        let width = self.inner.width;
        Stream {
            width,
            signals: Vec::new(),
            words: Vec::new(),
            output_signals: vec![0.0; width],
            output: 0,
            stop: Stop { op: 0, count: 0 },
        }
    }

    /// `_input`'s answer as the Input's stream.
    fn stream(&self, r: &Bound<'_, PyAny>, level: Option<usize>) -> PyResult<Stream<Word>> {
        let (width, signals, words, output_signals, output, stop, count): InputTuple<'_> = r.extract()?;
        let words = words
            .try_iter()?
            .enumerate()
            .map(|(k, w)| {
                self.word(&w?)
                    .map_err(|e| not_a_word(format!("presented word {k} of {}", sample_name(level)), e))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let stop = Stop { op: stop, count };
        let stream = match (signals, output_signals, self.inner.pattern.as_deref()) {
            (Some(signals), Some(output_signals), _) => {
                Stream { width, signals, words, output_signals, output, stop }
            }
            (None, None, Some("first-inner-last")) => Stream::first_inner_last(words, output, stop),
            (None, None, Some("first-repeat")) => Stream::first_repeat(words, output, stop),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "the Input of {} has no signals",
                    sample_name(level)
                )));
            }
        };
        match stream.mismatch(&self.inner.algorithm.config) {
            Some(why) => Err(PyValueError::new_err(format!("the Input of {}: {why}", sample_name(level)))),
            None => Ok(stream),
        }
    }

    /// `_program`'s answer, `(operation or -1, reads)` per step, as the expected trace.
    fn trace(&self, steps: &Bound<'_, PyAny>, level: Option<usize>) -> PyResult<Trace<Word>> {
        let (heads, ops) = (self.inner.heads, self.inner.algorithm.ops.len());
        let mut trace = Trace::new(heads);
        let mut reads = Vec::with_capacity(heads);
        let at = |k: usize| format!("step {k} of the program of {}", sample_name(level));
        for (k, step) in steps.try_iter()?.enumerate() {
            let (op, got): (i64, Bound<'_, PyTuple>) = step?.extract()?;
            if op < 0 {
                trace.push_unscored();
                continue;
            }
            let Some(op) = usize::try_from(op).ok().filter(|&op| op < ops) else {
                return Err(PyValueError::new_err(format!("{} names operation {op} of {ops}", at(k))));
            };
            if got.len() != heads {
                return Err(PyValueError::new_err(format!(
                    "{} yields {} reads, but the algorithm has {heads} read heads",
                    at(k),
                    got.len()
                )));
            }
            reads.clear();
            for (j, x) in got.iter().enumerate() {
                reads.push(match x.is_none() {
                    true => None,
                    false => Some(
                        self.word(&x).map_err(|e| not_a_word(format!("read {} of {}", j + 1, at(k)), e))?,
                    ),
                });
            }
            trace.push(op, &reads);
        }
        Ok(trace)
    }

    /// `_reference`'s answer as words.
    fn words(&self, answer: &Bound<'_, PyAny>, level: Option<usize>) -> PyResult<Vec<Word>> {
        answer
            .try_iter()?
            .enumerate()
            .map(|(k, w)| {
                self.word(&w?).map_err(|e| {
                    not_a_word(format!("word {k} of the reference of {}", sample_name(level)), e)
                })
            })
            .collect()
    }

    /// A part of the sample this thread prepared last, if `sample` is that sample (and of this
    /// declaration).
    fn prepared<T>(&self, sample: &Value, part: impl FnOnce(&mut Prepared) -> Option<T>) -> Option<T> {
        PREPARED.with(|p| match p.borrow_mut().as_mut() {
            Some(p) if p.declaration == Arc::as_ptr(&self.inner) as usize && p.sample == *sample => part(p),
            _ => None,
        })
    }
}

/// `_input`'s answer: width, signals (None: the pattern's), words, output-phase signals, output
/// operation, stop operation, stop count.
type InputTuple<'py> = (usize, Option<Vec<f32>>, Bound<'py, PyAny>, Option<Vec<f32>>, usize, usize, usize);

/// A sample as `_prepare` gave it, with its Input, program and reference converted: the core asks
/// for them right after drawing the sample (`PreparedSample::new`), and one call into Python
/// instead of four keeps training close to the built-ins' speed.
struct Prepared {
    /// The declaration's address, so that another declaration's equal sample does not match.
    declaration: usize,
    sample: Value,
    stream: Option<Stream<Word>>,
    trace: Option<Trace<Word>>,
    reference: Option<Vec<Word>>,
}

thread_local! {
    static PREPARED: std::cell::RefCell<Option<Prepared>> = const { std::cell::RefCell::new(None) };
}

/// `TypeError` for a value of the user's that is not a word.
fn not_a_word(what: String, why: String) -> PyErr {
    PyTypeError::new_err(format!("{what}: {why}"))
}

impl PyDeclared {
    /// One sample of `level` by `_prepare` (by `any_shape` when asked), with its Input, program
    /// and reference kept for the calls that follow.
    fn draw(&self, level: usize, rng: &mut SampleRng, any_shape: bool) -> Value {
        LEVEL.with(|l| l.set(Some(level)));
        PREPARED.with(|p| p.borrow_mut().take());
        let prepared = self.call(|py, obj| {
            let lent = Bound::new(py, Rng::lend(rng))?;
            let r = obj.call_method1(intern!(py, "_prepare"), (level, &lent, any_shape));
            if let Some(r) = lent.get().take() {
                *rng = r;
            }
            let (sample, stream, steps, reference): (
                Bound<'_, PyAny>,
                Bound<'_, PyAny>,
                Bound<'_, PyAny>,
                Bound<'_, PyAny>,
            ) = r?.extract()?;
            Ok(Prepared {
                declaration: Arc::as_ptr(&self.inner) as usize,
                sample: to_json(&sample)?,
                stream: Some(self.stream(&stream, Some(level))?),
                trace: Some(self.trace(&steps, Some(level))?),
                reference: Some(self.words(&reference, Some(level))?),
            })
        });
        let Some(prepared) = prepared else { return Value::Null };
        let sample = prepared.sample.clone();
        PREPARED.with(|p| *p.borrow_mut() = Some(prepared));
        sample
    }
}

impl Declared for PyDeclared {
    type Word = Word;
    type Sample = Value;

    fn algorithm(&self) -> &'static Algorithm {
        self.inner.algorithm
    }

    /// `sample(level, rng)`, with the core's generator lent as an `nhc.Rng` for the call; its
    /// Input, program and reference are made in the same call (`_prepare`) and kept for the
    /// calls that follow.
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Value {
        self.draw(level, rng, false)
    }

    /// [`PyDeclared::sample`] by the declaration's `any_shape(level, rng)` (its `sample` when it
    /// has none).
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> Value {
        self.draw(level, rng, true)
    }

    fn input(&self, sample: &Value) -> Stream<Word> {
        if let Some(stream) = self.prepared(sample, |p| p.stream.take()) {
            return stream;
        }
        let level = level();
        self.call(|py, obj| {
            let r = obj.call_method1(intern!(py, "_input"), (to_py(py, sample)?, level))?;
            self.stream(&r, level)
        })
        .unwrap_or_else(|| self.neutral_stream())
    }

    fn program(&self, sample: &Value) -> Trace<Word> {
        if let Some(trace) = self.prepared(sample, |p| p.trace.take()) {
            return trace;
        }
        let level = level();
        self.call(|py, obj| {
            let steps = obj.call_method1(intern!(py, "_program"), (to_py(py, sample)?, level))?;
            self.trace(&steps, level)
        })
        .unwrap_or_else(|| Trace::new(self.inner.heads))
    }

    fn reference(&self, sample: &Value) -> Vec<Word> {
        if let Some(words) = self.prepared(sample, |p| p.reference.take()) {
            return words;
        }
        let level = level();
        self.call(|py, obj| {
            let words = obj.call_method1(intern!(py, "_reference"), (to_py(py, sample)?, level))?;
            self.words(&words, level)
        })
        .unwrap_or_default()
    }

    /// `shapes(bound)` through `_shapes`: (size, second, sample) triples, or `None` when the
    /// declaration has no `shapes`.
    fn shapes(&self, bound: u64) -> Option<Vec<(u64, u64, Value)>> {
        self.call(|py, obj| {
            let listed = obj.call_method1(intern!(py, "_shapes"), (bound,))?;
            if listed.is_none() {
                return Ok(None);
            }
            let triples: Vec<(u64, u64, Bound<'_, PyAny>)> = listed.extract()?;
            triples
                .into_iter()
                .map(|(a, b, s)| Ok((a, b, to_json(&s)?)))
                .collect::<PyResult<Vec<_>>>()
                .map(Some)
        })
        .flatten()
    }

    /// The user's ALU function, once per (operation, words read): results are cached.
    fn alu(&self, op: usize, reads: &[Word], feedback: &mut [f32]) -> Word {
        let set = |feedback: &mut [f32], from: &[f32]| {
            let n = feedback.len().min(from.len());
            feedback[..n].copy_from_slice(&from[..n]);
        };
        let (Some(false), Some(cache)) = (self.inner.passthrough.get(op).copied(), self.inner.alu.get(op))
        else {
            return reads.first().cloned().unwrap_or_default();
        };
        if let Some((out, f)) = cache.read().unwrap_or_else(PoisonError::into_inner).get(reads) {
            set(feedback, f);
            return out.clone();
        }
        // Raised during a run: the note names the model step and the sample.
        let result = self.call(|py, obj| {
            self.call_alu(py, obj, op, reads).map_err(|e| match run_note() {
                Some(at) => with_note(py, e, &format!("raised {at}")),
                None => e,
            })
        });
        let Some((out, f)) = result else { return Word::default() };
        set(feedback, &f);
        let mut cache = cache.write().unwrap_or_else(PoisonError::into_inner);
        if cache.len() < ALU_CACHE_ENTRIES {
            cache.insert(reads.into(), (out.clone(), f));
        }
        out
    }

    fn answers_while_presented(&self) -> bool {
        self.inner.answers_while_presented
    }

    fn presents_itself(&self) -> Result<Pattern, String> {
        if let Some(why) = &self.inner.presents_itself {
            return Err(why.clone());
        }
        match self.inner.pattern.as_deref() {
            Some("first-inner-last") => Ok(Pattern::FirstInnerLast),
            Some("first-repeat") => Ok(Pattern::FirstRepeat),
            _ => Err("its Input sends signals of its own".into()),
        }
    }

    /// The list of `words` as JSON, the empty word as the declaration's `empty`.
    fn sample_of(&self, words: Vec<Word>) -> Option<Value> {
        let json = |w: &Word| serde_json::to_value(if *w == Word::None { &self.inner.empty } else { w });
        words.iter().map(json).collect::<Result<Vec<_>, _>>().ok().map(Value::Array)
    }

    /// The integers 1, 2, … without the declaration's `empty` (strings "1", "2", … when `empty` is
    /// a string).
    fn distinct_word(&self, k: u64) -> Option<Word> {
        let skip = |k: u64, e: u64| k + u64::from(e >= 1 && e <= k);
        match &self.inner.empty {
            Word::Str(e) => {
                let k = e.parse::<u64>().map_or(k, |e| skip(k, e));
                Some(Word::Str(k.to_string().into()))
            }
            Word::Int(e) => i64::try_from(skip(k, u64::try_from(*e).unwrap_or(0))).ok().map(Word::Int),
            _ => i64::try_from(k).ok().map(Word::Int),
        }
    }

    /// A user's input, refused with the declaration's `refuse(sample)` sentence; its notes name
    /// no level.
    fn check(&self, sample: &Value) -> Result<(), InputError> {
        LEVEL.with(|l| l.set(None));
        let why = self.call(|py, obj| {
            let sample = to_py(py, sample)?;
            obj.call_method1(intern!(py, "_refuse"), (sample,))?.extract::<Option<String>>()
        });
        match why.flatten() {
            Some(why) => Err(InputError::new(why)),
            None => Ok(()),
        }
    }

    /// JSON; the empty word as the declaration's `empty`.
    fn show(&self, word: &Word) -> String {
        let w = match word {
            Word::None => &self.inner.empty,
            w => w,
        };
        serde_json::to_string(w).unwrap_or_default()
    }

    fn digest(&self) -> Option<String> {
        Some(self.inner.digest.clone())
    }
}

/// The threads that run a declared algorithm: rayon's, each inside a Python thread state of its
/// own for its whole life (attached, then detached while it works), so that the calls into
/// Python only take the GIL instead of making and dropping a thread state every time. Built once,
/// with as many threads as rayon's global pool (`RAYON_NUM_THREADS`).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|k| format!("nhc-declared-{k}"))
            .spawn_handler(|thread| {
                let mut b = std::thread::Builder::new();
                if let Some(name) = thread.name() {
                    b = b.name(name.to_string());
                }
                if let Some(size) = thread.stack_size() {
                    b = b.stack_size(size);
                }
                b.spawn(move || Python::attach(|py| py.detach(|| thread.run())))?;
                Ok(())
            })
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `job` (a run, trace or evaluation of a declared algorithm) without the GIL, on [`pool`].
pub fn detached<R: Send>(py: Python<'_>, job: impl FnOnce() -> R + Send) -> R {
    py.detach(|| install(job))
}

/// Runs `job` on [`pool`] from a thread that does not hold the GIL (a sweep's job).
pub fn install<R: Send>(job: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(pool) => pool.install(job),
        None => job(),
    }
}

/// A KeyboardInterrupt that the main thread caught while a job ran on [`pool`] (Python sees
/// signals on the main thread only), for the job to act on.
#[derive(Default)]
pub struct Interrupt(Mutex<Option<PyErr>>);

impl Interrupt {
    pub fn take(&self) -> Option<PyErr> {
        lock(&self.0).take()
    }
    /// Keeps `e` for the job.
    pub fn put(&self, e: PyErr) {
        *lock(&self.0) = Some(e);
    }
}

/// Runs `job` (training a declared algorithm) on [`pool`] while this, the main thread, waits
/// without the GIL and checks for Ctrl-C every 100 ms, keeping it in `interrupt`.
pub fn watched<R: Send>(
    py: Python<'_>,
    interrupt: &Interrupt,
    job: impl FnOnce() -> R + Send,
) -> PyResult<R> {
    let Some(pool) = pool() else { return Ok(py.detach(job)) };
    let (tx, rx) = std::sync::mpsc::channel();
    let rx = Mutex::new(rx);
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = tx.send(pool.install(job));
        });
        loop {
            let wait = || lock(&rx).recv_timeout(std::time::Duration::from_millis(100));
            match py.detach(wait) {
                Ok(result) => return Ok(result),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        interrupt.put(e);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err("training ended without a result"));
                }
            }
        }
    })
}

/// A random generator for samplers: the core's own (ChaCha8), lent to `sample(level, rng)` for
/// the call, so that the same sample seed gives the same sample on every machine and thread.
#[pyclass(module = "nhc", frozen)]
pub struct Rng(Mutex<Option<SampleRng>>);

impl Rng {
    fn lend(rng: &SampleRng) -> Rng {
        Rng(Mutex::new(Some(rng.clone())))
    }
    /// The generator back from a finished call; the Python object is spent.
    fn take(&self) -> Option<SampleRng> {
        lock(&self.0).take()
    }
    fn with<T>(&self, f: impl FnOnce(&mut SampleRng) -> T) -> PyResult<T> {
        match lock(&self.0).as_mut() {
            Some(r) => Ok(f(r)),
            None => Err(PyRuntimeError::new_err(
                "this generator was lent to a call of `sample` that has returned; draw only while the call runs",
            )),
        }
    }
}

#[pymethods]
impl Rng {
    /// A generator of its own from `seed` (the core lends its own to the sampler).
    #[new]
    fn new(seed: u64) -> Rng {
        Rng(Mutex::new(Some(SampleRng::seed_from_u64(seed))))
    }

    /// A uniform integer in [low, high) (high excluded), drawn as the built-in samplers draw: a
    /// byte when 0 <= low and high <= 256, else a 64-bit integer.
    fn integers(&self, low: i64, high: i64) -> PyResult<i64> {
        if low >= high {
            return Err(PyValueError::new_err(format!(
                "integers(low, high) needs low < high (high is excluded), got {low} and {high}"
            )));
        }
        let bytes = u8::try_from(low).ok().zip(u8::try_from(high - 1).ok());
        self.with(|r| match bytes {
            Some((low, last)) => i64::from(r.random_range(low..=last)),
            None => r.random_range(low..high),
        })
    }

    /// A uniform float in [0, 1).
    fn random(&self) -> PyResult<f64> {
        self.with(|r| r.random::<f64>())
    }

    /// A uniformly chosen item of a non-empty sequence.
    fn choice<'py>(&self, seq: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let n = seq.len()?;
        if n == 0 {
            return Err(PyIndexError::new_err("cannot choose from an empty sequence"));
        }
        let k = self.with(|r| r.random_range(0..n))?;
        seq.get_item(k)
    }

    /// Shuffles a list in place.
    fn shuffle(&self, list: &Bound<'_, PyList>) -> PyResult<()> {
        let mut items: Vec<Bound<'_, PyAny>> = list.iter().collect();
        self.with(|r| items.shuffle(r))?;
        for (k, x) in items.into_iter().enumerate() {
            list.set_item(k, x)?;
        }
        Ok(())
    }

    fn __repr__(&self) -> &'static str {
        "<nhc.Rng>"
    }
}
