//! Errors as Python exceptions: bad requests are `ValueError`, a missing file
//! `FileNotFoundError`, a model file that does not load `nhc.ModelError`.

use nhc_io::limits::LimitError;
use nhc_tasks::{ModelError as TaskModelError, TaskError};
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use std::path::Path;

pyo3::create_exception!(
    nhc,
    ModelError,
    PyException,
    "A model file that does not load: malformed, of another format, or not a model of the task."
);

pyo3::create_exception!(
    nhc,
    WrongAnswer,
    pyo3::exceptions::PyUserWarning,
    "The model's answer differs from the reference answer (warned by Model.run, plan and search unless report=True)."
);

/// A bad request (unknown task or domain, level 0, an input the task cannot take).
pub fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A task's refusal as `ValueError`.
pub fn task_error(e: TaskError) -> PyErr {
    value_error(e)
}

/// A model that cannot be used: `FileNotFoundError` when the file is missing, `nhc.ModelError`
/// otherwise.
pub fn model_error(e: TaskModelError) -> PyErr {
    match &e {
        TaskModelError::File(LimitError::Read { path, .. }) if !Path::new(path).exists() => {
            PyFileNotFoundError::new_err(format!("no such model file: {path}"))
        }
        TaskModelError::ScriptedVariant(_) => value_error(e),
        _ => ModelError::new_err(e.to_string()),
    }
}

/// Adds a note (Python 3.11 `add_note`) to `err`, saying where it happened.
pub fn with_note(py: Python<'_>, err: PyErr, note: &str) -> PyErr {
    let _ = err.value(py).call_method1("add_note", (note,));
    err
}
