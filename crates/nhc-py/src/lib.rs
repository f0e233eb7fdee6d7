//! The `nhc` Python package, on the Rust core: no second implementation.
//!
//! - [`model`]: `nhc.load`, `nhc.scripted` and the `Model` class (run, evaluate, trace, plan,
//!   search, save), with `nhc.tasks` and `nhc.sample`;
//! - [`train`]: `nhc.train` and `nhc.resume`, the trainer of `nhc train` with a Python callback;
//! - [`sweep`]: `nhc.sweep`, the sweep of `nhc sweep`;
//! - [`user`]: the user's own data modules in Python (`Order` for sort, `World` for search and
//!   plan), as tasks of the registry's algorithms;
//! - [`declared`]: algorithms of one's own declared in Python (`nhc.Algorithm`), as the core's
//!   declared algorithms, with `nhc.Rng` for their samplers;
//! - [`steps`]: where the core is when it calls the user's functions (drawing a sample, at a
//!   model step), for the notes on their exceptions;
//! - [`convert`]: JSON values and trace rows as Python objects and NumPy columns;
//! - [`errors`]: every error as a Python exception.

/// The [`nhc_tasks::Task`] methods a wrapper of a task (a field `task` of type `T`) takes from it
/// unchanged: the JSON and text forms, the input kinds and the size bounds.
macro_rules! forward_task {
    () => {
        fn sample_json(&self, sample: &T::Sample) -> serde_json::Value {
            self.task.sample_json(sample)
        }
        fn answer_json(&self, answer: &T::Answer) -> serde_json::Value {
            self.task.answer_json(answer)
        }
        fn show(&self, data: &T::Data) -> String {
            self.task.show(data)
        }
        fn takes_maps(&self) -> bool {
            self.task.takes_maps()
        }
        fn takes_text(&self) -> bool {
            self.task.takes_text()
        }
        fn max_level(&self) -> usize {
            self.task.max_level()
        }
        fn max_steps(&self, level: usize) -> u64 {
            self.task.max_steps(level)
        }
        fn sample_steps(&self, sample: &T::Sample) -> u64 {
            self.task.sample_steps(sample)
        }
        fn sample_heap(&self, sample: &T::Sample) -> u64 {
            self.task.sample_heap(sample)
        }
        fn max_heap(&self, level: usize) -> u64 {
            self.task.max_heap(level)
        }
    };
}

pub mod convert;
pub mod declared;
pub mod errors;
pub mod model;
pub mod steps;
pub mod sweep;
pub mod train;
pub mod user;

use pyo3::prelude::*;

/// The extension module `nhc._nhc`; the package `nhc` re-exports it.
#[pymodule]
fn _nhc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ModelError", m.py().get_type::<errors::ModelError>())?;
    m.add("WrongAnswer", m.py().get_type::<errors::WrongAnswer>())?;
    m.add_class::<model::Model>()?;
    m.add_class::<user::Order>()?;
    m.add_class::<user::World>()?;
    m.add_class::<declared::Rng>()?;
    m.add_function(wrap_pyfunction!(model::tasks, m)?)?;
    m.add_function(wrap_pyfunction!(model::load, m)?)?;
    m.add_function(wrap_pyfunction!(model::scripted, m)?)?;
    m.add_function(wrap_pyfunction!(model::sample, m)?)?;
    m.add_function(wrap_pyfunction!(train::train, m)?)?;
    m.add_function(wrap_pyfunction!(train::resume, m)?)?;
    m.add_function(wrap_pyfunction!(train::run_sentence, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(set_max_memory, m)?)?;
    nhc_io::limits::set_limit_setter("nhc.set_max_memory(...)");
    nhc_io::limits::set_work_confirmer("pass confirm=True");
    Ok(())
}

/// The long-work check of one call on a built-in task (docs/DESIGN.md, "Long work";
/// [`nhc_tasks::any_task::limit_work`]): work that would take more than an hour at the speed of
/// `model` measured here is refused unless `confirm`. Calls on the user's own Python functions get
/// no check ([`no_long_work`]): timing them would call Python.
pub(crate) fn long_work(
    task: &'static dyn nhc_tasks::AnyTask,
    model: &nhc_tasks::Model,
    confirm: bool,
    threads: usize,
) {
    nhc_tasks::any_task::limit_work(task, model, threads, confirm);
}

/// No long-work check for the next call ([`long_work`]).
pub(crate) fn no_long_work() {
    nhc_io::limits::set_work_limit(|| 0.0, 0.0);
}

/// The memory a run may take, as `nhc --max-memory` sets it: bytes (an int) or a size with a
/// suffix ("8G", "512M"); None goes back to the default, half the machine's memory. Returns the
/// limit now in force, in bytes. Work that would need more is refused before it starts.
#[pyfunction]
#[pyo3(signature = (size))]
fn set_max_memory(size: &Bound<'_, PyAny>) -> PyResult<u64> {
    use nhc_io::limits;
    let bytes = if size.is_none() {
        0
    } else if let Ok(text) = size.extract::<String>() {
        limits::parse_memory(&text).map_err(errors::value_error)?
    } else {
        match size.extract::<u64>() {
            Ok(0) => return Err(errors::value_error("the memory limit must be at least 1 byte")),
            Ok(b) => b,
            Err(_) => {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "set_max_memory takes bytes (an int ≥ 1), a size such as \"8G\", or None",
                ));
            }
        }
    };
    limits::set_memory_limit(bytes);
    Ok(limits::memory_limit())
}
