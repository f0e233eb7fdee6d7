//! The processes that train one run together (docs/DESIGN.md, "NES over ranks"): each holds the
//! same state, draws the same noise and batch, scores its share of the offspring and receives
//! every offspring's fitness, so θ moves identically everywhere. Only fitness values and step
//! counts travel. One process alone is [`Alone`]; MPI ranks are another implementation (the
//! `nhc` binary's `mpi` feature).

use std::ops::Range;

/// Processes that score the offspring of one run together.
pub trait Peers: Send + Sync {
    /// This process's index, from 0.
    fn rank(&self) -> usize;
    /// The number of processes.
    fn size(&self) -> usize;
    /// Every process's `mine` (its share of the offspring's (fitness, steps), [`share`]),
    /// concatenated in rank order, on every process.
    fn all_gather(&self, mine: &[(f64, u64)], count: usize) -> Vec<(f64, u64)>;
}

/// One process alone.
#[derive(Debug, Clone, Copy, Default)]
pub struct Alone;

impl Peers for Alone {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn all_gather(&self, mine: &[(f64, u64)], _count: usize) -> Vec<(f64, u64)> {
        mine.to_vec()
    }
}

/// The offspring process `rank` of `size` scores out of `count`: consecutive blocks, the first
/// `count % size` processes one more.
pub fn share(count: usize, rank: usize, size: usize) -> Range<usize> {
    let (base, extra) = (count / size, count % size);
    let start = rank * base + rank.min(extra);
    start..start + base + usize::from(rank < extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_tile_the_offspring_in_order() {
        for count in [0, 1, 2, 19, 20, 21, 100] {
            for size in 1..=25 {
                let mut next = 0;
                for rank in 0..size {
                    let r = share(count, rank, size);
                    assert_eq!(r.start, next, "count {count}, size {size}, rank {rank}");
                    assert!(r.len() == count / size || r.len() == count / size + 1);
                    next = r.end;
                }
                assert_eq!(next, count);
            }
        }
    }
}
