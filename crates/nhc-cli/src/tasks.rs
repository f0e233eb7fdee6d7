//! `nhc tasks`: every registered task with its domains, ALU operations and the size of θ under
//! each model variant.

use crate::emit;
use anyhow::Result;
use nhc_model::{Variant, theta_len};
use serde_json::json;
use std::fmt::Write as _;

pub fn tasks(as_json: bool) -> Result<()> {
    let all = nhc_tasks::registry::all();
    let params = |t: &dyn nhc_tasks::AnyTask, v: Variant| theta_len(&t.algorithm().model(v));
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
    writeln!(
        text,
        "| task | domain | ALU operations | θ: nhc | θ: nhc-anc | θ: nhc-prev | θ: dnc-is-ha (LSTM size) |"
    )?;
    writeln!(text, "|---|---|---|---:|---:|---:|---:|")?;
    for t in all {
        let [a, b, c, d] = Variant::ALL.map(|v| params(*t, v));
        let h = t.algorithm().model(Variant::DncIsHa).controller;
        let (name, domain, ops) = (t.name(), t.domain(), t.ops().join(" "));
        writeln!(text, "| {name} | {domain} | {ops} | {a} | {b} | {c} | {d} ({h}) |")?;
    }
    emit(&text)
}
