//! Word noise (ours, beyond the paper; docs/DESIGN.md, "Word noise"): during training, Gaussian
//! noise is added to every control word the memory interface writes (for the NHC: v and v̂), so
//! that only solutions whose decisions survive small changes of the stored words solve a batch.
//! It uses training levels only, and evaluation never adds noise. The architecture says which
//! words ([`nhc_model::Architecture::add_word_noise`]); this module draws the noise.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// N(0, std²) draws from a generator seeded per sample, so θ and every offspring see the same
/// noise on the same sample.
pub struct WordNoise {
    std: f32,
    rng: ChaCha8Rng,
}

impl WordNoise {
    /// Noise of `std`, drawn from a generator seeded with `seed`.
    pub fn new(std: f32, seed: u64) -> Self {
        // Another stream than the sample's own generator, which is seeded with the same number.
        WordNoise { std, rng: ChaCha8Rng::seed_from_u64(seed ^ 0x6e6f_6973_655f_7764) }
    }

    /// The next draw.
    pub fn draw(&mut self) -> f32 {
        let e: f32 = StandardNormal.sample(&mut self.rng);
        self.std * e
    }
}
