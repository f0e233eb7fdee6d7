//! `mpirun -np N nhc train …` (feature `mpi`): the ranks of an MPI job train one run together
//! (docs/DESIGN.md, "NES over ranks"). Every rank builds the same trainer and steps it; each
//! scores its share of the offspring and an all-gather hands every rank all the fitness values,
//! so θ moves identically everywhere and ends bit for bit as in one process. Rank 0 leads: it
//! alone writes the run directory and prints; on resumption it reads the checkpoint and sends its
//! state to the others. Without the feature, or outside `mpirun`, there is one rank.

use anyhow::Result;
use nhc_train::Trainer;
use std::sync::OnceLock;

#[cfg(feature = "mpi")]
mod ranks {
    use mpi::Count;
    use mpi::datatype::PartitionMut;
    use mpi::environment::Universe;
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;
    use nhc_train::peers::{Peers, share};

    /// Starts MPI if this process was started by `mpirun` (or another MPI launcher): the
    /// environment (MPI is finalized when it is dropped), the rank and the size.
    pub fn init() -> Option<(Universe, usize, usize)> {
        let launched =
            ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"].iter().any(|v| std::env::var_os(v).is_some());
        if !launched {
            return None;
        }
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Multiple)?;
        let _ = MULTIPLE.set(threading == mpi::Threading::Multiple);
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        Some((universe, rank, size))
    }

    /// Whether MPI may be called from any thread (a sweep's jobs ask rank 0 for runs).
    static MULTIPLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

    /// Tags of a sweep's messages: a job asks for a run, rank 0 answers.
    const ASK: i32 = 1;
    const ANSWER: i32 = 2;
    /// "No run left".
    const NONE: u64 = u64::MAX;
    /// How often a waiting rank looks for its message (MPI's blocking calls spin a core).
    const POLL: std::time::Duration = std::time::Duration::from_millis(10);

    /// Waits for `request` without spinning: a rank done with its runs leaves the cores to the
    /// ranks still training.
    fn quietly_until(mut request: mpi::request::Request<'static, ()>) {
        loop {
            match request.test() {
                Ok(_) => return,
                Err(r) => request = r,
            }
            std::thread::sleep(POLL);
        }
    }

    /// A sweep's share of this rank (docs/DESIGN.md, "Sweeps over ranks"): rank 0 hands out the
    /// runs from one counter, to its own jobs directly and to the other ranks' jobs on request.
    pub fn sweep(
        spec: &nhc_train::SweepSpec,
        observer: &dyn nhc_train::SweepObserver,
    ) -> anyhow::Result<Vec<nhc_train::SweepLine>> {
        use nhc_train::sweep::{Counter, Dispatch, Part, sweep_part};
        if MULTIPLE.get() != Some(&true) {
            anyhow::bail!("a sweep over MPI ranks needs an MPI library with MPI_THREAD_MULTIPLE");
        }
        let world = SimpleCommunicator::world();
        let rank = world.rank();
        let mut jobs = vec![0u64; world.size() as usize];
        world.all_gather_into(&(spec.jobs.max(1) as u64), &mut jobs[..]);
        let all_done = || quietly_until(SimpleCommunicator::world().immediate_barrier());
        if rank != 0 {
            // A run that failed here is reported here; rank 0 then finds it unfinished.
            let part = Part { dispatch: &Remote, leads: false, all_done: &all_done };
            return match sweep_part(spec, observer, &part) {
                Err(nhc_train::SweepError::Runs(failures)) => {
                    for f in failures {
                        diag!("error (rank {rank}): {f}");
                    }
                    Ok(Vec::new())
                }
                other => Ok(other?),
            };
        }
        // Rank 0: a thread answers the other ranks' jobs until each has been told "no run left"
        // (all of them are, before any rank reaches the end; an error ends the whole job).
        let counter = std::sync::Arc::new(Counter::default());
        let (runs, remote_jobs) = (nhc_train::sweep::runs(spec)?.len(), jobs[1..].iter().sum::<u64>());
        let served = counter.clone();
        std::thread::spawn(move || {
            let world = SimpleCommunicator::world();
            let mut told = 0;
            while told < remote_jobs {
                // Polled: a blocking receive would spin a core the jobs need.
                let Some(status) = world.any_process().immediate_probe_with_tag(ASK) else {
                    std::thread::sleep(POLL);
                    continue;
                };
                let (_, status) = world.process_at_rank(status.source_rank()).receive_with_tag::<u64>(ASK);
                let next = served.next(runs).map_or(NONE, |k| k as u64);
                told += u64::from(next == NONE);
                world.process_at_rank(status.source_rank()).send_with_tag(&next, ANSWER);
            }
        });
        Ok(sweep_part(
            spec,
            observer,
            &Part { dispatch: counter.as_ref(), leads: true, all_done: &all_done },
        )?)
    }

    /// A job of a rank other than 0: asks rank 0.
    struct Remote;

    impl nhc_train::sweep::Dispatch for Remote {
        fn next(&self, _runs: usize) -> Option<usize> {
            let world = SimpleCommunicator::world();
            let root = world.process_at_rank(0);
            root.send_with_tag(&0u64, ASK);
            let (next, _) = root.receive_with_tag::<u64>(ANSWER);
            (next != NONE).then_some(next as usize)
        }
    }

    /// The ranks of the job as [`Peers`]; MPI calls come from the thread that started MPI.
    pub struct Ranks {
        pub rank: usize,
        pub size: usize,
    }

    impl Peers for Ranks {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.size
        }
        fn all_gather(&self, mine: &[(f64, u64)], count: usize) -> Vec<(f64, u64)> {
            let world = SimpleCommunicator::world();
            let shares: Vec<_> = (0..self.size).map(|r| share(count, r, self.size)).collect();
            let counts: Vec<Count> = shares.iter().map(|s| s.len() as Count).collect();
            let displs: Vec<Count> = shares.iter().map(|s| s.start as Count).collect();
            let (fitness, steps): (Vec<f64>, Vec<u64>) = mine.iter().copied().unzip();
            let (mut all_fitness, mut all_steps) = (vec![0.0f64; count], vec![0u64; count]);
            world.all_gather_varcount_into(
                &fitness[..],
                &mut PartitionMut::new(&mut all_fitness[..], &counts[..], &displs[..]),
            );
            world.all_gather_varcount_into(
                &steps[..],
                &mut PartitionMut::new(&mut all_steps[..], &counts[..], &displs[..]),
            );
            all_fitness.into_iter().zip(all_steps).collect()
        }
    }

    /// Rank 0's `bytes` on every rank.
    pub fn broadcast(bytes: Vec<u8>) -> Vec<u8> {
        let world = SimpleCommunicator::world();
        let root = world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        let mut buf = if world.rank() == 0 { bytes } else { vec![0u8; len as usize] };
        root.broadcast_into(&mut buf[..]);
        buf
    }

    /// Ends the whole job (every rank) with `code`.
    pub fn abort(code: i32) -> ! {
        SimpleCommunicator::world().abort(code)
    }
}

/// Rank and size of this process's MPI job, set once by [`start`].
static PLACE: OnceLock<(usize, usize)> = OnceLock::new();

/// The MPI environment of this process, if it runs in an MPI job; MPI is finalized when this is
/// dropped, at the end of `main`.
pub struct Environment {
    #[cfg(feature = "mpi")]
    _universe: Option<mpi::environment::Universe>,
}

/// Joins the MPI job this process was started in, if any (before anything else runs).
pub fn start() -> Environment {
    #[cfg(feature = "mpi")]
    {
        let universe = ranks::init().map(|(universe, rank, size)| {
            let _ = PLACE.set((rank, size));
            universe
        });
        Environment { _universe: universe }
    }
    #[cfg(not(feature = "mpi"))]
    Environment {}
}

/// This process's rank and the job's size: (0, 1) outside an MPI job.
pub fn place() -> (usize, usize) {
    PLACE.get().copied().unwrap_or((0, 1))
}

/// Whether this process leads (rank 0, or alone).
pub fn leads() -> bool {
    place().0 == 0
}

/// `trainer` with its offspring spread over the job's ranks (unchanged when alone).
pub fn join(trainer: Trainer) -> Trainer {
    #[cfg(feature = "mpi")]
    if let (rank, size @ 2..) = place() {
        return trainer.with_peers(std::sync::Arc::new(ranks::Ranks { rank, size }));
    }
    trainer
}

/// Rank 0's `bytes` on every rank (only `bytes` when alone).
pub fn broadcast(bytes: Vec<u8>) -> Vec<u8> {
    #[cfg(feature = "mpi")]
    if place().1 > 1 {
        return ranks::broadcast(bytes);
    }
    bytes
}

/// `nhc sweep`'s sweep: this process's, or in an MPI job its rank's share of one sweep.
pub fn sweep(
    spec: &nhc_train::SweepSpec,
    observer: &dyn nhc_train::SweepObserver,
) -> Result<Vec<nhc_train::SweepLine>> {
    #[cfg(feature = "mpi")]
    if place().1 > 1 {
        return ranks::sweep(spec, observer);
    }
    Ok(nhc_train::sweep(spec, observer)?)
}

/// A following rank's part of the run: the same steps as the leader, nothing written.
pub fn follow(mut trainer: Trainer) -> Result<()> {
    while trainer.outcome().is_none() {
        trainer.step()?;
    }
    Ok(())
}

/// In a job of several ranks, an error or an early stop of one rank (Ctrl-C included) ends the
/// job (the others would wait for it forever); alone, `result` is returned.
pub fn end<T>(result: Result<T>) -> Result<T> {
    #[cfg(feature = "mpi")]
    if let (Err(e), (rank, 2..)) = (&result, place()) {
        // Stopped by Ctrl-C: the leader's checkpoint is written, the message says how to resume.
        if let Some(stopped) = e.downcast_ref::<crate::interrupt::Interrupted>() {
            diag!("{stopped}");
            ranks::abort(crate::interrupt::EXIT_INTERRUPTED);
        }
        diag!("error (rank {rank}): {e:#}");
        ranks::abort(1);
    }
    result
}
