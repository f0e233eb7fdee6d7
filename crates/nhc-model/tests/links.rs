//! The three temporal-linkage conventions ([`Links`]) on hand-worked sequences of writes, frees
//! and reads. Step t writes data word t; location k holds the word of the step that wrote it last.

use nhc_model::ReadMode::{Backward as B, Forward as F, Halt as H};
use nhc_model::{Config, Links, Memory, MemoryDecision, ReadMode};

struct Rig {
    cfg: Config,
    mem: Memory<u32>,
    t: u32,
}

impl Rig {
    fn new(links: Links) -> Self {
        let cfg = Config {
            input_controller: 1,
            input_memory: 1,
            input_bus: 1,
            word: 1,
            free_gates: true,
            links,
            ..Config::PAPER
        };
        let mem = Memory::new(&cfg);
        Rig { cfg, mem, t: 0 }
    }

    /// One step: read mode `mode`, `f_w` = `free_write`, `f_r` = `free_read`; returns
    /// (location written, location read).
    fn go(&mut self, mode: ReadMode, free_write: bool, free_read: bool) -> (usize, usize) {
        let mut d = MemoryDecision::new(&self.cfg);
        d.read_modes = vec![mode];
        d.free_write = vec![free_write];
        d.free_read = vec![free_read];
        self.t += 1;
        self.mem.step(&self.t, &d);
        (self.mem.written_location(0), self.mem.read_location(0))
    }

    fn next(&self, loc: usize) -> Option<usize> {
        self.mem.successor(0, loc)
    }
    fn prev(&self, loc: usize) -> Option<usize> {
        self.mem.predecessor(0, loc)
    }
}

/// Without frees the conventions agree: every write follows the one before.
#[test]
fn without_frees_every_convention_is_one_list() {
    for links in Links::ALL {
        let mut r = Rig::new(links);
        for t in 0..5 {
            assert_eq!(r.go(H(0), false, false), (t, 0), "{links:?}");
        }
        assert_eq!(r.mem.temporal_list(0), [0, 1, 2, 3, 4], "{links:?}");
        for (mode, loc) in [(F(0), 1), (F(0), 2), (B(0), 1), (B(0), 0), (B(0), 0)] {
            assert_eq!(r.go(mode, false, false).1, loc, "{links:?}");
        }
    }
}

/// x at 0 kept; a write at 1 freed by f_w, again (the allocator reuses 1), then a write at 1
/// kept. Tail: 1 follows 0. Formula: the free splices 1 out of 0's link and every later write
/// links from 1, the location written before it: a self-link, and 0 has no successor. Removed:
/// a write after a freed location has no predecessor.
#[test]
fn a_freed_write_and_the_writes_after_it() {
    let run = |links| {
        let mut r = Rig::new(links);
        assert_eq!(r.go(H(0), false, false).0, 0);
        assert_eq!(r.go(H(0), true, false).0, 1);
        assert_eq!(r.go(H(0), true, false).0, 1);
        assert_eq!(r.go(H(0), false, false).0, 1);
        r
    };
    let r = run(Links::Tail);
    assert_eq!((r.next(0), r.prev(1), r.next(1)), (Some(1), Some(0), None));
    assert_eq!(r.mem.temporal_list(0), [0, 1]);

    let r = run(Links::Formula);
    assert_eq!((r.next(0), r.prev(1), r.next(1)), (None, Some(1), Some(1)));
    assert_eq!(r.mem.temporal_list(0), [1]);

    let r = run(Links::Removed);
    assert_eq!((r.next(0), r.prev(1), r.next(1)), (None, None, None));
    assert_eq!(r.mem.temporal_list(0), [1]);
}

/// 0, 1, 2 written; step 4 writes 3 and reads 1 (F from 0) and frees it (f_r): every
/// convention joins 0 to 2. Step 5 reuses 1 after 3 (3 is in use and is the tail). Only the
/// formula leaves 1 its old successor 2 (it never clears the written location's link).
#[test]
fn a_freed_read_in_the_middle_is_spliced_out() {
    for links in Links::ALL {
        let mut r = Rig::new(links);
        for _ in 0..3 {
            r.go(H(0), false, false);
        }
        assert_eq!(r.go(F(0), false, true), (3, 1), "{links:?}");
        assert_eq!((r.next(0), r.prev(2)), (Some(2), Some(0)), "{links:?}");
        assert_eq!(r.mem.temporal_list(0), [0, 2, 3], "{links:?}");
        assert_eq!(r.go(H(0), false, false).0, 1, "{links:?}");
        assert_eq!((r.next(3), r.prev(1)), (Some(1), Some(3)), "{links:?}");
        assert_eq!(r.mem.temporal_list(0), [0, 2, 3, 1], "{links:?}");
        let stale = if links == Links::Formula { Some(2) } else { None };
        assert_eq!(r.next(1), stale, "{links:?}");
        // The head stayed on 1: B goes to 3, F back to 1.
        assert_eq!(r.go(B(0), false, false), (4, 3), "{links:?}");
        assert_eq!(r.go(F(0), false, false), (5, 1), "{links:?}");
    }
}

/// 0 and 1 written; step 3 writes 2, reads it (F from 1) and frees it (f_r), so 1 is the last
/// location in use; step 4 reuses 2 and step 5 steps B from it. Tail: 2 follows 1 again.
/// Formula: 2 links from itself (the location written at step 3) and 1 keeps no successor.
/// Removed: 2 has no predecessor, B stays.
#[test]
fn a_freed_newest_location_and_the_write_after_it() {
    let run = |links| {
        let mut r = Rig::new(links);
        assert_eq!(r.go(H(0), false, false), (0, 0));
        assert_eq!(r.go(F(0), false, false), (1, 1));
        assert_eq!(r.go(F(0), false, true), (2, 2));
        assert_eq!(r.go(H(0), false, false), (2, 2));
        r
    };
    let mut r = run(Links::Tail);
    assert_eq!((r.next(1), r.prev(2), r.next(2)), (Some(2), Some(1), None));
    assert_eq!(r.mem.temporal_list(0), [0, 1, 2]);
    assert_eq!(r.go(B(0), false, false).1, 1);

    let mut r = run(Links::Formula);
    assert_eq!((r.next(1), r.prev(2), r.next(2)), (None, Some(2), Some(2)));
    assert_eq!(r.mem.temporal_list(0), [2]);
    assert_eq!(r.go(B(0), false, false).1, 2);

    let mut r = run(Links::Removed);
    assert_eq!((r.next(1), r.prev(2), r.next(2)), (None, None, None));
    assert_eq!(r.mem.temporal_list(0), [2]);
    assert_eq!(r.go(B(0), false, false).1, 2);
}

/// A write freed by its own gate (`f_w = 1`) under the two readings of the free gate
/// ([`FreeWrite`]), worked by hand: written at step 2 into location 1 and freed, then location 1
/// is reused at step 3. `release` splices it out at once; `unmarked` leaves it linked (its
/// predecessor still leads to it, it is its parent's newest child) until it is reused.
#[test]
fn a_write_freed_by_its_own_gate_under_both_readings() {
    use nhc_model::FreeWrite;
    use nhc_model::ReadMode::Child as C;
    for (links, free_write) in [
        (Links::Formula, FreeWrite::Release),
        (Links::Formula, FreeWrite::Unmarked),
        (Links::Tail, FreeWrite::Unmarked),
    ] {
        let mut r = Rig::new(links);
        r.cfg.free_write = free_write;
        r.mem = Memory::new(&r.cfg);
        let what = format!("{links:?} {free_write:?}");
        assert_eq!(r.go(H(0), false, false), (0, 0), "{what}");
        // Step 2 writes location 1 (a child of location 0, read at step 1) and frees it.
        assert_eq!(r.go(H(0), true, false), (1, 0), "{what}");
        assert!(!r.mem.is_used(1), "{what}");
        let linked = free_write == FreeWrite::Unmarked;
        assert_eq!(r.next(0) == Some(1), linked, "{what}");
        assert_eq!(r.mem.children(0, 0, 0) == [1], linked, "{what}");
        // Step 3 reuses location 1; C from location 0 reaches this write, its newest child.
        assert_eq!(r.go(C(0), false, false), (1, 1), "{what}");
        assert_eq!(r.mem.children(0, 0, 0), [1], "{what}");
        // The list from location 0 reaches location 1 again, except when the freed write cut it
        // (`formula` + `release`: location 0's successor was spliced away, and step 3 links
        // location 1 from itself, the location written at step 2).
        let whole = !(links == Links::Formula && free_write == FreeWrite::Release);
        assert_eq!(r.next(0) == Some(1), whole, "{what}");
    }
}

/// A mode with no target ([`MissingLink`]): under `stay` the head reads its location again; under
/// `empty` it reads the zero word and the empty data word, frees nothing with f_r, takes no
/// previous update, and its next mode starts from where it was.
#[test]
fn a_missing_link_stays_or_reads_nothing() {
    use nhc_model::MissingLink;
    for missing_link in [MissingLink::Stay, MissingLink::Empty] {
        let mut r = Rig::new(Links::Tail);
        r.cfg.missing_link = missing_link;
        r.mem = Memory::new(&r.cfg);
        let (empty, m) = (missing_link == MissingLink::Empty, missing_link);
        let mut d = MemoryDecision::new(&r.cfg);
        d.write = vec![7.0];
        for _ in 0..3 {
            r.t += 1;
            r.mem.step(&r.t, &d);
        }
        // Step 4: B at the list's head, location 0 (data word 1), with f_r = 1.
        assert_eq!(r.go(B(0), false, true), (3, 0));
        assert_eq!(r.mem.read_control(0), [if empty { 0.0 } else { 7.0 }], "{m:?}");
        assert_eq!(*r.mem.read_data(0), if empty { 0 } else { 1 }, "{m:?}");
        assert_eq!(r.mem.is_used(0), empty, "{m:?}: f_r frees location 0 only where it was read");
        // Step 5: a previous update (erase all, write 5) and F. `stay`: location 0 was freed, is
        // updated, then rewritten (word 0) at the list's tail, so F finds no successor. `empty`:
        // no update, and F starts from location 0.
        let mut u = MemoryDecision::new(&r.cfg);
        u.read_modes = vec![F(0)];
        (u.prev_gate, u.prev_erase, u.prev_write) = (vec![true], vec![1.0], vec![5.0]);
        r.t += 1;
        r.mem.step(&r.t, &u);
        assert_eq!(r.mem.written_location(0), if empty { 4 } else { 0 }, "{m:?}");
        assert_eq!(r.mem.read_location(0), if empty { 1 } else { 0 }, "{m:?}");
        assert_eq!(r.mem.control(0), [if empty { 7.0 } else { 0.0 }], "{m:?}");
        assert_eq!(*r.mem.read_data(0), if empty { 2 } else { 5 }, "{m:?}");
    }
}
