//! Model variants (paper, Table 1): the full NHC and its ablations, as maps from an algorithm's
//! [`Config`] to the model's.

use crate::architecture::{Arch, theta_len};
use crate::config::Config;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Declares the model variants: for each its name (command line, model files), the paper's
/// name for it, and its config as a map from the algorithm's full-NHC config.
macro_rules! variants {
    ($($(#[$doc:meta])* $v:ident = $name:literal, $label:literal, $config:expr;)+) => {
        /// Which model runs an algorithm (paper, "Comparison Methods").
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Variant {
            $($(#[$doc])* #[serde(rename = $name)] $v,)+
        }

        impl Variant {
            /// Every variant, the full NHC first.
            pub const ALL: [Variant; [$($name),+].len()] = [$(Variant::$v),+];

            /// Every variant's name.
            pub fn names() -> Vec<&'static str> {
                Variant::ALL.iter().map(|v| v.name()).collect()
            }
            /// The name on the command line and in model files.
            pub fn name(self) -> &'static str {
                match self { $(Variant::$v => $name,)+ }
            }
            /// The paper's name of the model (Table 1).
            pub fn label(self) -> &'static str {
                match self { $(Variant::$v => $label,)+ }
            }
            /// The model's config for an algorithm whose full-NHC config is `algorithm`.
            pub fn config(self, algorithm: &Config) -> Config {
                let lower: fn(&Config) -> Config = match self { $(Variant::$v => $config,)+ };
                lower(algorithm)
            }
        }
    };
}

variants! {
    /// The full NHC.
    #[default]
    Nhc = "nhc", "NHC", Config::clone;
    /// NHC-anc: no ancestry linkage (no P and C read modes).
    NhcAnc = "nhc-anc", "NHC-anc", |c| Config { ancestry: false, ..c.clone() };
    /// NHC-prev: no previous-update head; two write heads instead (paper: "to counter the
    /// removed update head").
    NhcPrev = "nhc-prev", "NHC-prev", |c| Config { previous_update: false, write_heads: 2, ..c.clone() };
    /// DNC+is+ha: the DNC's controller, memory and output layer in place of the NHC's
    /// Controller, Memory and Bus, with the information split and hard attention.
    DncIsHa = "dnc-is-ha", "DNC+is+ha", dnc_is_ha;
}

/// A variant name that is not known.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("unknown model variant `{0}`; known variants: {known}", known = Variant::names().join(", "))]
pub struct UnknownVariant(pub String);

/// DNC+is+ha's config: the paper does not give the controller's size; the LSTM's hidden size H
/// is the one (from 1 to 32, the smaller on a tie) whose |θ| is closest to the full NHC's for the
/// same algorithm, so that NES searches spaces of about the same dimension.
fn dnc_is_ha(algorithm: &Config) -> Config {
    let dnc = Config {
        memory: Arch::Dnc,
        write_heads: 1,
        previous_update: false,
        ancestry: false,
        free_gates: true,
        ..algorithm.clone()
    };
    let target = theta_len(algorithm);
    (1..=32)
        .map(|h| Config { controller: h, ..dnc.clone() })
        .min_by_key(|c| theta_len(c).abs_diff(target))
        .unwrap_or(dnc)
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ablations_switch_off_one_mechanism_each() {
        let c = Config { input_controller: 2, read_heads: 2, ops: 3, ..Config::PAPER };
        assert_eq!(Variant::Nhc.config(&c), c);
        let anc = Variant::NhcAnc.config(&c);
        assert_eq!((anc.ancestry, anc.previous_update, anc.write_heads), (false, true, 1));
        assert_eq!(anc.read_modes(), 2 + 2);
        let prev = Variant::NhcPrev.config(&c);
        assert_eq!((prev.ancestry, prev.previous_update, prev.write_heads), (true, false, 2));
        assert_eq!(prev.read_modes(), 2 + 2 * 4);
    }

    #[test]
    fn names_round_trip() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse(), Ok(v));
            assert_eq!(serde_json::to_string(&v).ok(), Some(format!("\"{}\"", v.name())));
        }
        assert_eq!("dnc".parse::<Variant>(), Err(UnknownVariant("dnc".into())));
    }
}
