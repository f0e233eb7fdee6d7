//! Natural Evolution Strategies with an isotropic Gaussian of fixed σ, ask/tell style (MODEL §6).

use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// Rank utilities of Wierstra et al. for `p` offspring, index 0 = rank 1 (best):
/// `u_k = max(0, ln(p/2 + 1) − ln k) / Σ_j max(0, ln(p/2 + 1) − ln j) − 1/p` (MODEL §6).
pub fn utilities(p: usize) -> Vec<f64> {
    let top = (p as f64 / 2.0 + 1.0).ln();
    let raw: Vec<f64> = (1..=p).map(|k| (top - (k as f64).ln()).max(0.0)).collect();
    let sum: f64 = raw.iter().sum();
    raw.iter().map(|r| r / sum - 1.0 / p as f64).collect()
}

/// Centred ranks (Salimans et al. 2017) for `p` offspring, index 0 = rank 1 (best):
/// `u_k = (p − k)/(p − 1) − 1/2`, from +1/2 down to −1/2.
pub fn centred_ranks(p: usize) -> Vec<f64> {
    let top = (p.max(2) - 1) as f64;
    (1..=p).map(|k| (p - k) as f64 / top - 0.5).collect()
}

/// The utilities and the step size of the update (MODEL §6; docs/DESIGN.md, "NES step").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Ours, the default: Wierstra's [`utilities`], `θ ← λθ + α/σ Σ u ε`.
    #[default]
    Wierstra,
    /// The paper's printed step `θ ← λθ + α/(Pσ) Σ u ε` with Wierstra's [`utilities`].
    PrintedWierstra,
    /// The paper's printed step with [`centred_ranks`].
    PrintedCentredRanks,
    /// Our step size α/σ with [`centred_ranks`] (a screen of the utilities alone).
    CentredRanks,
}

impl Step {
    /// Utility per rank (index 0 = best) and the factor before `Σ u ε`.
    fn weights(self, p: usize, learning_rate: f64, sigma: f64) -> (Vec<f64>, f64) {
        match self {
            Step::Wierstra => (utilities(p), learning_rate / sigma),
            Step::PrintedWierstra => (utilities(p), learning_rate / (p as f64 * sigma)),
            Step::PrintedCentredRanks => (centred_ranks(p), learning_rate / (p as f64 * sigma)),
            Step::CentredRanks => (centred_ranks(p), learning_rate / sigma),
        }
    }
}

/// Offspring indices sorted best first; ties keep index order, NaN counts as worst.
pub fn ranking(fitness: &[f64]) -> Vec<usize> {
    let key = |f: f64| if f.is_nan() { f64::NEG_INFINITY } else { f };
    let mut idx: Vec<usize> = (0..fitness.len()).collect();
    idx.sort_by(|&a, &b| key(fitness[b]).total_cmp(&key(fitness[a])));
    idx
}

/// The hyperparameters of the update (MODEL §6), fixed for a run (from its config).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NesParams {
    /// P.
    pub population: usize,
    /// σ.
    pub sigma: f64,
    /// α.
    pub learning_rate: f64,
    /// λ.
    pub weight_decay: f64,
    /// Offspring in pairs ±ε (P must be even).
    pub mirrored: bool,
    /// Utilities and step size.
    pub step: Step,
}

/// The state of the search distribution: its mean θ, and the noise of the current iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nes {
    /// Current mean θ.
    pub theta: Vec<f32>,
    /// ε of the last [`Nes::ask`], `P × |θ|` row-major; empty between iterations.
    #[serde(skip)]
    noise: Vec<f32>,
}

impl Nes {
    pub fn new(theta: Vec<f32>) -> Self {
        Nes { theta, noise: Vec::new() }
    }

    /// Draws ε for P offspring (`P × |θ|`, row-major); with mirroring rows `2k` and `2k+1` are
    /// `+ε_k` and `−ε_k`.
    pub fn ask<R: Rng + ?Sized>(&mut self, params: &NesParams, rng: &mut R) -> &[f32] {
        let (p, n) = (params.population, self.theta.len());
        self.noise.clear();
        self.noise.reserve(p * n);
        let mut o = 0;
        while o < p {
            let start = self.noise.len();
            for _ in 0..n {
                let e: f32 = StandardNormal.sample(rng);
                self.noise.push(e);
            }
            o += 1;
            if params.mirrored && o < p {
                for k in 0..n {
                    let e = self.noise[start + k];
                    self.noise.push(-e);
                }
                o += 1;
            }
        }
        &self.noise
    }

    /// ε of offspring `o` from the last [`Nes::ask`].
    pub fn noise(&self, o: usize) -> &[f32] {
        let n = self.theta.len();
        &self.noise[o * n..(o + 1) * n]
    }

    /// θ + σ ε_o.
    pub fn offspring(&self, params: &NesParams, o: usize) -> Vec<f32> {
        let s = params.sigma as f32;
        self.theta.iter().zip(self.noise(o)).map(|(t, e)| t + s * e).collect()
    }

    /// Ranks the offspring of the last [`Nes::ask`] by `fitness` (higher is better) and applies
    /// the [`Step`]: by default `θ ← λθ + α/σ Σ_o u_o ε_o` (Wierstra et al.'s step for
    /// utilities that sum to 1 before centring; the paper prints α/(Pσ), which with these
    /// utilities makes every step P times smaller — docs/DESIGN.md, "NES step"). Clears the
    /// noise and returns the shaped fitness: the utility each offspring received, by offspring
    /// index.
    ///
    /// # Panics
    /// If `fitness.len()` is not P or no [`Nes::ask`] preceded.
    pub fn tell(&mut self, params: &NesParams, fitness: &[f64]) -> Vec<f64> {
        let (p, n) = (params.population, self.theta.len());
        assert_eq!(fitness.len(), p, "one fitness per offspring");
        assert_eq!(self.noise.len(), p * n, "tell without ask");
        let (u, scale) = params.step.weights(p, params.learning_rate, params.sigma);
        let mut step = vec![0.0f64; n];
        let mut shaped = vec![0.0; p];
        for (rank, &o) in ranking(fitness).iter().enumerate() {
            shaped[o] = u[rank];
            for (s, e) in step.iter_mut().zip(self.noise(o)) {
                *s += u[rank] * *e as f64;
            }
        }
        for (t, s) in self.theta.iter_mut().zip(&step) {
            *t = (params.weight_decay * *t as f64 + scale * s) as f32;
        }
        self.noise.clear();
        shaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// A distribution at `theta` with P, σ, α, λ and mirroring.
    fn nes(
        theta: Vec<f32>,
        population: usize,
        sigma: f64,
        learning_rate: f64,
        weight_decay: f64,
        mirrored: bool,
    ) -> (Nes, NesParams) {
        let params =
            NesParams { population, sigma, learning_rate, weight_decay, mirrored, step: Step::Wierstra };
        (Nes::new(theta), params)
    }

    fn quadratic(theta: &[f32], target: &[f32]) -> f64 {
        -theta.iter().zip(target).map(|(a, b)| ((a - b) as f64).powi(2)).sum::<f64>()
    }
    fn distance(a: &[f32], b: &[f32]) -> f64 {
        (-quadratic(a, b)).sqrt()
    }

    #[test]
    fn utilities_sum_to_zero_and_decrease() {
        for p in [2, 3, 10, 20, 21, 100] {
            let u = utilities(p);
            assert_eq!(u.len(), p);
            assert!(u.iter().sum::<f64>().abs() < 1e-12, "p = {p}");
            assert!(u.windows(2).all(|w| w[0] >= w[1]), "p = {p}: {u:?}");
            assert!(u[0] > u[p - 1]);
        }
    }

    #[test]
    fn centred_ranks_span_a_unit_interval() {
        assert_eq!(centred_ranks(3), vec![0.5, 0.0, -0.5]);
        let u = centred_ranks(20);
        assert!(u.iter().sum::<f64>().abs() < 1e-12);
        assert_eq!((u[0], u[19]), (0.5, -0.5));
    }

    /// The printed step is P times smaller than ours with the same utilities.
    #[test]
    fn printed_step_is_p_times_smaller() {
        let go = |step: Step| {
            let (mut nes, mut p) = nes(vec![0.0; 4], 4, 0.1, 0.01, 1.0, true);
            p.step = step;
            nes.ask(&p, &mut ChaCha8Rng::seed_from_u64(9));
            nes.tell(&p, &[0.3, 0.1, 0.4, 0.2]);
            nes.theta
        };
        let (ours, printed) = (go(Step::Wierstra), go(Step::PrintedWierstra));
        for (a, b) in ours.iter().zip(&printed) {
            assert!((a - 4.0 * b).abs() < 1e-6, "{a} {b}");
        }
        assert!(go(Step::PrintedCentredRanks).iter().any(|x| *x != 0.0));
    }

    #[test]
    fn ranking_is_stable_on_ties() {
        assert_eq!(ranking(&[0.5, 1.0, 0.5, f64::NAN, 1.0]), vec![1, 4, 0, 2, 3]);
    }

    #[test]
    fn mirrored_noise_comes_in_pairs() {
        let (mut nes, p) = nes(vec![0.0; 5], 4, 0.1, 0.01, 1.0, true);
        let eps = nes.ask(&p, &mut ChaCha8Rng::seed_from_u64(1)).to_vec();
        assert_eq!(eps.len(), 20);
        for k in 0..5 {
            assert_eq!(eps[k], -eps[5 + k]);
            assert_eq!(eps[10 + k], -eps[15 + k]);
        }
        assert_ne!(eps[0], eps[10]);
    }

    /// One step from a known θ: the update must point toward the optimum, for 20 noise draws.
    /// Utilities applied to the wrong offspring (reversed ranking, or by slot instead of by rank)
    /// make some dot products negative.
    #[test]
    fn one_step_points_uphill() {
        let target = vec![1.0f32, -2.0, 0.5, 3.0, -1.0, 0.0, 2.0, -0.5];
        let theta = vec![0.0f32; target.len()];
        for (seed, mirrored) in (0..20).flat_map(|s| [(s, true), (s, false)]) {
            let (mut nes, p) = nes(theta.clone(), 20, 0.1, 0.01, 1.0, mirrored);
            nes.ask(&p, &mut ChaCha8Rng::seed_from_u64(seed));
            let fitness: Vec<f64> = (0..20).map(|o| quadratic(&nes.offspring(&p, o), &target)).collect();
            nes.tell(&p, &fitness);
            let dot: f64 =
                nes.theta.iter().zip(&theta).zip(&target).map(|((n, t), g)| ((n - t) * (g - t)) as f64).sum();
            assert!(dot > 0.0, "mirrored = {mirrored}: dot = {dot}");
            assert!(distance(&nes.theta, &target) < distance(&theta, &target));
        }
    }

    #[test]
    fn moves_toward_optimum_of_quadratic() {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let target: Vec<f32> = (0..10).map(|k| (k as f32 - 4.5) / 4.5).collect();
        let (mut nes, p) = nes(vec![0.0; 10], 20, 0.1, 0.01, 1.0, true);
        let start = distance(&nes.theta, &target);
        for _ in 0..300 {
            nes.ask(&p, &mut rng);
            let fitness: Vec<f64> = (0..20).map(|o| quadratic(&nes.offspring(&p, o), &target)).collect();
            nes.tell(&p, &fitness);
        }
        let end = distance(&nes.theta, &target);
        assert!(end < 0.25 * start, "start {start}, end {end}");
    }

    #[test]
    fn shaped_fitness_follows_the_offspring() {
        let (mut nes, p) = nes(vec![0.0; 3], 4, 0.1, 0.01, 1.0, true);
        nes.ask(&p, &mut ChaCha8Rng::seed_from_u64(5));
        let shaped = nes.tell(&p, &[0.2, 0.9, 0.1, 0.5]);
        let u = utilities(4);
        assert_eq!(shaped, vec![u[2], u[0], u[3], u[1]]);
    }

    #[test]
    fn weight_decay_without_signal_shrinks_theta() {
        let (mut nes, p) = nes(vec![1.0; 3], 4, 0.1, 0.0025, 0.5, true);
        nes.ask(&p, &mut ChaCha8Rng::seed_from_u64(3));
        nes.tell(&p, &[0.0; 4]);
        // Equal fitness: ranks by index; with mirrored pairs the ε terms partly cancel.
        assert!(nes.theta.iter().all(|t| (*t - 0.5).abs() < 0.05), "{:?}", nes.theta);
    }
}
