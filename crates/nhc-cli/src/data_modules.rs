//! `nhc data-modules train`: the search-and-plan data modules (equality, action mask, action
//! model) learned in a supervised way (crate `nhc-learned`, on candle), with their accuracies on
//! held-out states. Built only with the feature `data-modules`.

use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum DataModulesCommand {
    /// Train the data modules of a world and measure them on held-out states. Checkpoints after
    /// every epoch; the same command resumes an interrupted run.
    Train {
        /// sokoban6, sokoban8 or sokoban-permuted.
        #[arg(long)]
        world: String,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Fresh training states per epoch (each with all five operations).
        #[arg(long)]
        states: Option<usize>,
        /// Held-out states the accuracies are measured on.
        #[arg(long)]
        held_out: Option<usize>,
        #[arg(long)]
        epochs: Option<usize>,
        /// Hidden layers of the action model, comma-separated.
        #[arg(long, value_delimiter = ',')]
        hidden: Option<Vec<usize>>,
        /// Hidden layers of the action mask, comma-separated (the paper's: 256).
        #[arg(long, value_delimiter = ',')]
        mask_hidden: Option<Vec<usize>>,
        /// The share of the equality's unequal training pairs that differ in one random cell
        /// (0 to 1; the rest are one move apart or another state).
        #[arg(long)]
        equality_cell_pairs: Option<f64>,
    },
}

#[cfg(not(feature = "data-modules"))]
pub fn run(_: DataModulesCommand) -> anyhow::Result<()> {
    anyhow::bail!(
        "this nhc is built without learned data modules; build it with `cargo build --release --features data-modules`"
    )
}

#[cfg(feature = "data-modules")]
pub fn run(command: DataModulesCommand) -> anyhow::Result<()> {
    let DataModulesCommand::Train {
        world,
        out,
        seed,
        states,
        held_out,
        epochs,
        hidden,
        mask_hidden,
        equality_cell_pairs,
    } = command;
    let mut config = nhc_learned::LearnConfig { seed, ..nhc_learned::LearnConfig::new(&world) };
    if let Some(s) = states {
        anyhow::ensure!(s > 0, "--states must be at least 1");
        config.states = s;
    }
    if let Some(h) = held_out {
        anyhow::ensure!(h > 0, "--held-out must be at least 1");
        config.held_out = h;
    }
    if let Some(e) = epochs {
        anyhow::ensure!(e > 0, "--epochs must be at least 1");
        config.epochs = e;
    }
    if let Some(p) = equality_cell_pairs {
        anyhow::ensure!((0.0..=1.0).contains(&p), "--equality-cell-pairs must be between 0 and 1");
        config.equality_cell_pairs = p;
    }
    for (flag, layers, slot) in [
        ("--hidden", hidden, &mut config.action_hidden),
        ("--mask-hidden", mask_hidden, &mut config.mask_hidden),
    ] {
        if let Some(h) = layers {
            anyhow::ensure!(h.iter().all(|&n| n > 0), "{flag}: every hidden layer needs at least one unit");
            *slot = h;
        }
    }
    let learned = nhc_learned::learn(&config, &out, &mut |line| {
        diag!("{line}");
        std::ops::ControlFlow::Continue(())
    })?;
    let nhc_learned::Outcome::Done(accuracy) = learned else {
        anyhow::bail!("training stopped before its last epoch");
    };
    crate::emit(&format!("{}\n", serde_json::to_string(&accuracy)?))
}
