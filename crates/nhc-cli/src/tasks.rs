//! `nhc tasks`: every registered task with its domains, ALU operations and the size of θ under
//! each model variant.

use crate::emit;
use anyhow::Result;
use nhc_model::{Layout, Variant};
use serde_json::json;
use std::fmt::Write as _;

pub fn tasks(as_json: bool) -> Result<()> {
    let all = nhc_tasks::registry::all();
    let params = |t: &dyn nhc_tasks::AnyTask, v: Variant| Layout::new(&t.algorithm().model(v)).len();
    let mut text = String::new();
    if as_json {
        for t in all {
            let sizes: serde_json::Map<String, serde_json::Value> =
                Variant::ALL.iter().map(|&v| (v.to_string(), params(*t, v).into())).collect();
            let line = json!({ "task": t.name(), "domain": t.domain(), "ops": t.ops(), "params": sizes });
            writeln!(text, "{line}")?;
        }
        return emit(&text);
    }
    writeln!(text, "| task | domain | ALU operations | θ: nhc | θ: nhc-anc | θ: nhc-prev |")?;
    writeln!(text, "|---|---|---|---:|---:|---:|")?;
    for t in all {
        let [a, b, c] = Variant::ALL.map(|v| params(*t, v));
        writeln!(text, "| {} | {} | {} | {a} | {b} | {c} |", t.name(), t.domain(), t.ops().join(" "))?;
    }
    emit(&text)
}
