//! Word noise (ours, beyond the paper; docs/DESIGN.md, "Word noise"): during training, Gaussian
//! noise is added to every control word the memory interface writes (v) and adds by the
//! previous update (v̂), so that only solutions whose decisions survive small changes of the
//! stored words solve a batch. It uses training levels only, and evaluation never adds noise.

use nhc_model::{BusDecision, MemoryDecision, Observation, Policy};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// A policy whose written control words get N(0, std²) noise from a generator seeded per sample,
/// so θ and every offspring see the same noise on the same sample.
pub struct WordNoise<'a, P: ?Sized> {
    inner: &'a mut P,
    std: f32,
    rng: ChaCha8Rng,
}

impl<'a, P: Policy + ?Sized> WordNoise<'a, P> {
    /// Noise of `std` on `inner`'s words, drawn from a generator seeded with `seed`.
    pub fn new(inner: &'a mut P, std: f32, seed: u64) -> Self {
        // Another stream than the sample's own generator, which is seeded with the same number.
        WordNoise { inner, std, rng: ChaCha8Rng::seed_from_u64(seed ^ 0x6e6f_6973_655f_7764) }
    }
}

impl<P: Policy + ?Sized> Policy for WordNoise<'_, P> {
    fn begin(&mut self) {
        self.inner.begin()
    }
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        self.inner.control(obs, c_c, out);
        for x in out.write.iter_mut().chain(out.prev_write.iter_mut()) {
            let e: f32 = StandardNormal.sample(&mut self.rng);
            *x += self.std * e;
        }
    }
    fn bus(&mut self, input_bus: &[f32], c_c: &[f32], read_now: &[f32]) -> BusDecision {
        self.inner.bus(input_bus, c_c, read_now)
    }
}
