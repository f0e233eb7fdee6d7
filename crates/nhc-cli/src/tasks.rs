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
    // A variant whose controller differs from the full NHC's (DNC+is+ha's LSTM) shows its size.
    let columns: String = Variant::ALL.iter().map(|v| format!(" θ: {v} |")).collect();
    writeln!(text, "| task | domain | ALU operations |{columns}")?;
    writeln!(text, "|---|---|---|{}", "---:|".repeat(Variant::ALL.len()))?;
    for t in all {
        let (name, domain, ops) = (t.name(), t.domain(), t.ops().join(" "));
        write!(text, "| {name} | {domain} | {ops} |")?;
        for v in Variant::ALL {
            let (model, nhc) = (t.algorithm().model(v), &t.algorithm().config);
            match model.controller {
                h if h != nhc.controller => write!(text, " {} (controller {h}) |", params(*t, v))?,
                _ => write!(text, " {} |", params(*t, v))?,
            }
        }
        writeln!(text)?;
    }
    emit(&text)
}
