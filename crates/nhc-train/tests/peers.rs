//! Offspring spread over processes (`Peers`): three trainers on three threads, each scoring its
//! share of the offspring and exchanging fitness values through an in-process all-gather, end
//! with θ and every iteration's log bit for bit as one trainer alone. (`mpirun` runs the same
//! over MPI ranks: crates/nhc-cli/tests/mpi.rs.)
#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

use nhc_model::Variant;
use nhc_train::peers::{Peers, share};
use nhc_train::{TrainConfig, Trainer};
use std::sync::{Arc, Barrier, Mutex};

/// Each thread's share of (fitness, steps), and the barrier they meet at.
type Board = (Mutex<Vec<Vec<(f64, u64)>>>, Barrier);

/// An all-gather among `size` threads: each puts its share in, waits for the others, reads all.
struct Threads {
    rank: usize,
    size: usize,
    board: Arc<Board>,
}

impl Peers for Threads {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn all_gather(&self, mine: &[(f64, u64)], count: usize) -> Vec<(f64, u64)> {
        assert_eq!(mine.len(), share(count, self.rank, self.size).len());
        let (board, barrier) = &*self.board;
        board.lock().unwrap()[self.rank] = mine.to_vec();
        barrier.wait();
        let all = board.lock().unwrap().concat();
        barrier.wait();
        all
    }
}

fn trainer(seed: u64) -> Trainer {
    let config = TrainConfig { max_iterations: 40, ..Default::default() }.validate().unwrap();
    Trainer::new(nhc_tasks::find("sort").unwrap(), Variant::Nhc, config, seed).unwrap()
}

fn run(mut t: Trainer) -> (Vec<u32>, Vec<String>) {
    let mut logs = Vec::new();
    while !t.done() {
        logs.push(format!("{:?}", t.step().unwrap()));
    }
    (t.state().nes.theta.iter().map(|x| x.to_bits()).collect(), logs)
}

#[test]
fn offspring_spread_over_three_peers_train_as_one() {
    let alone = run(trainer(3));
    assert!(alone.1.len() >= 40, "{} iterations", alone.1.len());
    let size = 3;
    let board = Arc::new((Mutex::new(vec![Vec::new(); size]), Barrier::new(size)));
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..size)
            .map(|rank| {
                let peers = Arc::new(Threads { rank, size, board: board.clone() });
                s.spawn(move || run(trainer(3).with_peers(peers)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (rank, r) in results.iter().enumerate() {
        assert_eq!(r, &alone, "rank {rank}");
    }
}
