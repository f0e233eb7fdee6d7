//! Values between the core and Python: JSON values (inputs, answers, reports) as Python
//! objects, and trace rows as columns of NumPy arrays.

use crate::errors::value_error;
use nhc_tasks::trace::TraceRow;
use numpy::PyArray1;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};
use serde::Serialize;
use serde_json::Value;

/// Any serialisable value (an answer, a report) as Python objects.
pub fn to_py<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(value_error)
}

/// A Python value as JSON: None, booleans, strings, integers (NumPy's too; beyond 64 bits as
/// strings of decimal digits, the form the decimal domains take), floats, dicts with string
/// keys, and any other iterable (lists, tuples, NumPy arrays) as an array. Nested at most
/// [`MAX_DEPTH`] deep: a deeper value (or one that contains itself) is a ValueError, not a stack
/// overflow.
pub fn to_json(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_json_at(obj, 0)
}

/// How deep [`to_json`] follows lists and dicts: far beyond any input a task takes (the JSON
/// parser's own limit is 128).
pub const MAX_DEPTH: usize = 100;

fn to_json_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(value_error(format!(
            "cannot use a value nested more than {MAX_DEPTH} deep (a list or dict that contains itself?)"
        )));
    }
    let unusable =
        |why: &str| PyTypeError::new_err(format!("cannot use {} as input: {why}", crate::user::repr(obj)));
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_string()));
    }
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(i.into());
    }
    if let Ok(u) = obj.extract::<u64>() {
        return Ok(u.into());
    }
    if let Ok(big) = obj.call_method0("__index__") {
        return Ok(Value::String(big.str()?.to_string()));
    }
    if let Ok(f) = obj.extract::<f64>() {
        return serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| unusable("not a finite number"));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in dict.iter() {
            let key: String = k.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "dictionary keys must be strings, got {}",
                    crate::user::repr(&k)
                ))
            })?;
            map.insert(key, to_json_at(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    match obj.try_iter() {
        Ok(items) => {
            items.map(|x| to_json_at(&x?, depth + 1)).collect::<PyResult<Vec<_>>>().map(Value::Array)
        }
        Err(_) => Err(unusable("expected lists, dicts, numbers, strings, booleans or None")),
    }
}

/// A column of a trace, by what it holds.
enum Column {
    Int(Vec<i64>),
    Float(Vec<f32>),
    Bool(Vec<bool>),
    Text(Vec<String>),
}

impl Column {
    fn into_py<'py>(self, py: Python<'py>, numpy: &Bound<'py, PyModule>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Column::Int(v) => PyArray1::from_vec(py, v).into_any(),
            Column::Float(v) => PyArray1::from_vec(py, v).into_any(),
            Column::Bool(v) => PyArray1::from_vec(py, v).into_any(),
            Column::Text(v) => numpy.call_method1("asarray", (v,))?,
        })
    }
}

/// Builds named columns row by row.
#[derive(Default)]
struct Columns(Vec<(String, Column)>);

impl Columns {
    fn slot(&mut self, name: String, empty: impl FnOnce() -> Column) -> &mut Column {
        let i = match self.0.iter().position(|(n, _)| *n == name) {
            Some(i) => i,
            None => {
                self.0.push((name, empty()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }
    fn int(&mut self, name: String, x: i64) {
        if let Column::Int(v) = self.slot(name, || Column::Int(Vec::new())) {
            v.push(x)
        }
    }
    fn float(&mut self, name: String, x: f32) {
        if let Column::Float(v) = self.slot(name, || Column::Float(Vec::new())) {
            v.push(x)
        }
    }
    fn bool(&mut self, name: String, x: bool) {
        if let Column::Bool(v) = self.slot(name, || Column::Bool(Vec::new())) {
            v.push(x)
        }
    }
    fn text(&mut self, name: String, x: &str) {
        if let Column::Text(v) = self.slot(name, || Column::Text(Vec::new())) {
            v.push(x.to_string())
        }
    }
    fn words(&mut self, prefix: &str, word: &[f32]) {
        for (k, x) in word.iter().enumerate() {
            self.float(format!("{prefix}_word{k}"), *x);
        }
    }
}

/// The steps of a trace as a dict of one-dimensional NumPy arrays, one entry per step in each
/// (so `pandas.DataFrame(trace)` takes it as is). Heads count from 1, vector components from 0;
/// see the package's documentation of `Model.trace` for the names.
pub fn trace_columns<'py>(py: Python<'py>, rows: &[TraceRow]) -> PyResult<Bound<'py, PyDict>> {
    let mut c = Columns::default();
    for r in rows {
        c.int("step".into(), r.step as i64);
        c.text("phase".into(), r.phase);
        c.text("op".into(), r.op);
        c.bool("scored".into(), r.correct.is_some());
        c.bool("correct".into(), r.correct.unwrap_or(false));
        c.text("expected_op".into(), r.expected_op.unwrap_or(""));
        let ctl = &r.control;
        for (i, loc) in r.written.iter().enumerate() {
            let h = format!("write{}", i + 1);
            c.int(format!("{h}_location"), *loc as i64);
            if let Some(w) = ctl.written.get(i) {
                c.words(&h, w);
            }
            c.bool(format!("{h}_free"), ctl.free_write.get(i).copied().unwrap_or(false));
        }
        for (j, (mode, loc, data)) in r.reads.iter().enumerate() {
            let h = format!("read{}", j + 1);
            c.text(format!("{h}_mode"), mode);
            c.int(format!("{h}_location"), *loc as i64);
            c.text(format!("{h}_data"), data);
            c.text(
                format!("{h}_expected"),
                r.expected_reads.get(j).cloned().flatten().as_deref().unwrap_or(""),
            );
            if let Some(w) = ctl.read.get(j) {
                c.words(&h, w);
            }
            c.bool(format!("{h}_free"), ctl.free_read.get(j).copied().unwrap_or(false));
            let update = ctl.updates.get(j).cloned().flatten();
            c.bool(format!("{h}_update"), update.is_some());
            if ctl.dnc.is_none() {
                let width = ctl.read.get(j).map_or(0, Vec::len);
                let (v, e) = update.unwrap_or_else(|| (vec![f32::NAN; width], vec![f32::NAN; width]));
                c.words(&format!("{h}_update_write"), &v);
                c.words(&format!("{h}_update_erase"), &e);
            }
        }
        if let Some(d) = &ctl.dnc {
            c.float("allocation_gate".into(), d.allocation_gate);
            c.float("write_gate".into(), d.write_gate);
            c.words("erase", &d.erase);
            for (j, (f, m)) in d.free_gates.iter().zip(&d.read_modes).enumerate() {
                let h = format!("read{}", j + 1);
                c.float(format!("{h}_free_gate"), *f);
                for (k, name) in ["backward", "content", "forward"].iter().enumerate() {
                    c.float(format!("{h}_{name}"), m[k]);
                }
            }
        }
    }
    let numpy = py.import("numpy")?;
    let out = PyDict::new(py);
    for (name, column) in c.0 {
        out.set_item(name, column.into_py(py, &numpy)?)?;
    }
    Ok(out)
}
