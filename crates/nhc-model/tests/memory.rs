//! Hand-worked examples of the Memory module (MODEL §2 step 4, §3). Step t writes data word t and
//! control word `[t, 10t + i]` with write head i, so location k holds data k + 1 unless it was
//! reused.

use nhc_model::ReadMode::{Backward as B, Child as C, Forward as F, Halt as H, Parent as P};
use nhc_model::{Config, Memory, MemoryDecision, ReadMode};

fn config(read_heads: usize, write_heads: usize, ancestry: bool) -> Config {
    Config {
        input_controller: 1,
        input_memory: 1,
        input_bus: 1,
        controller: 6,
        word: 2,
        write_heads,
        read_heads,
        ops: 1,
        alu_feedback: 0,
        bus_feedback: false,
        free_gates: true,
        previous_update: true,
        ancestry,
        memory: nhc_model::Arch::Nhc,
        links: nhc_model::Links::Tail,
        free_write: nhc_model::FreeWrite::Release,
        missing_link: nhc_model::MissingLink::Stay,
        margin: nhc_model::Margin::Probabilities,
    }
}

/// A memory and its step counter.
struct Rig {
    cfg: Config,
    mem: Memory<u32>,
    t: u32,
}

impl Rig {
    fn new(read_heads: usize, write_heads: usize, ancestry: bool) -> Self {
        let cfg = config(read_heads, write_heads, ancestry);
        let mem = Memory::new(&cfg);
        Rig { cfg, mem, t: 0 }
    }

    /// The decision of the next step: read modes set, the step's write vectors, nothing else.
    fn decision(&self, modes: &[ReadMode]) -> MemoryDecision {
        let mut d = MemoryDecision::new(&self.cfg);
        d.read_modes = modes.to_vec();
        let t = (self.t + 1) as f32;
        for i in 0..self.cfg.write_heads {
            d.write[2 * i] = t;
            d.write[2 * i + 1] = 10.0 * t + i as f32;
        }
        d
    }

    /// Runs one step; returns the location of each read head.
    fn step(&mut self, d: &MemoryDecision) -> Vec<usize> {
        self.t += 1;
        self.mem.step(&self.t, d);
        (0..self.cfg.read_heads).map(|j| self.mem.read_location(j)).collect()
    }

    fn go(&mut self, modes: &[ReadMode]) -> Vec<usize> {
        let d = self.decision(modes);
        self.step(&d)
    }

    /// One step whose read heads free the location they read where `free[j]` (f_r).
    fn go_free_read(&mut self, modes: &[ReadMode], free: &[bool]) -> Vec<usize> {
        let mut d = self.decision(modes);
        d.free_read = free.to_vec();
        self.step(&d)
    }

    /// One step whose write is freed at the end of the step (f_w).
    fn go_free_write(&mut self, modes: &[ReadMode]) -> Vec<usize> {
        let mut d = self.decision(modes);
        d.free_write = vec![true; self.cfg.write_heads];
        self.step(&d)
    }

    fn written(&self) -> usize {
        self.mem.written_location(0)
    }
}

// ---- read-mode list (MODEL §3 "Read modes") ----

#[test]
fn read_mode_list_order_and_round_trip() {
    let with = config(2, 1, true);
    assert_eq!(with.read_modes(), 6);
    let modes: Vec<_> = (0..6).map(|k| with.read_mode(k)).collect();
    assert_eq!(modes, [H(0), H(1), F(0), B(0), P(0), C(0)]);
    let names: Vec<_> = modes.iter().map(ReadMode::to_string).collect();
    assert_eq!(names, ["H1", "H2", "F1", "B1", "P1", "C1"]);

    let without = config(2, 1, false);
    assert_eq!(without.read_modes(), 4);
    let modes: Vec<_> = (0..4).map(|k| without.read_mode(k)).collect();
    assert_eq!(modes, [H(0), H(1), F(0), B(0)]);

    let two_writers = config(1, 2, false);
    let modes: Vec<_> = (0..two_writers.read_modes()).map(|k| two_writers.read_mode(k)).collect();
    assert_eq!(modes, [H(0), F(0), B(0), F(1), B(1)]);

    for c in [&with, &without, &two_writers, &config(3, 2, true)] {
        for k in 0..c.read_modes() {
            assert_eq!(c.mode_index(c.read_mode(k)), k, "{c:?} mode {k}");
        }
    }
}

// ---- initial state and growth (MODEL §3 "Initial state", "Unbounded memory") ----

#[test]
fn initial_state_heads_at_0_and_step_1_writes_location_0() {
    let mut r = Rig::new(2, 1, true);
    assert!(r.mem.is_empty());
    assert_eq!((r.mem.read_location(0), r.mem.read_location(1)), (0, 0));
    let mut d = r.decision(&[H(0), H(1)]);
    d.prev_gate = vec![true, true]; // no previous update at step 1
    d.prev_write = vec![5.0; 4];
    assert_eq!(r.step(&d), [0, 0]);
    assert_eq!(r.written(), 0);
    assert_eq!((r.mem.len(), r.mem.in_use()), (1, 1));
    assert_eq!(r.mem.control(0), [1.0, 10.0]);
    assert_eq!((*r.mem.read_data(0), *r.mem.read_data(1)), (1, 1));
    assert_eq!(r.mem.read_control(1), [1.0, 10.0]);

    r.go(&[F(0), H(1)]);
    r.mem.reset();
    assert!(r.mem.is_empty());
    assert_eq!((r.mem.read_location(0), r.mem.read_location(1)), (0, 0));
    assert!(r.mem.temporal_list(0).is_empty());
    r.t = 0;
    assert_eq!(r.go(&[H(0), H(1)]), [0, 0]);
    assert_eq!((r.written(), r.mem.len()), (0, 1));
}

#[test]
fn memory_grows_without_bound() {
    let mut r = Rig::new(1, 1, true);
    for t in 0..10_000 {
        r.go(&[H(0)]);
        assert_eq!(r.written(), t);
    }
    assert_eq!((r.mem.len(), r.mem.in_use()), (10_000, 10_000));
    assert_eq!(r.mem.temporal_list(0), (0..10_000).collect::<Vec<_>>());
    assert_eq!(*r.mem.data(9_999), 10_000);
    assert_eq!(r.mem.children(0, 0, 0).len(), 9_999); // the head never left location 0
}

// ---- read modes (MODEL §3 "Read modes") ----

#[test]
fn mode_h_goes_to_own_or_other_heads_previous_location() {
    let mut r = Rig::new(2, 1, true);
    assert_eq!(r.go(&[H(0), H(1)]), [0, 0]);
    assert_eq!(r.go(&[F(0), H(1)]), [1, 0]);
    assert_eq!(r.go(&[H(1), H(0)]), [0, 1]); // swap: each takes the other's t-1 location
    assert_eq!((*r.mem.read_data(0), *r.mem.read_data(1)), (1, 2));
    assert_eq!(r.go(&[H(0), H(0)]), [0, 0]);
    assert_eq!(r.go(&[H(0), H(1)]), [0, 0]);
    assert_eq!(r.mem.len(), 5);
}

#[test]
fn modes_f_and_b_walk_the_temporal_list() {
    let mut r = Rig::new(1, 1, true);
    for _ in 0..4 {
        assert_eq!(r.go(&[H(0)]), [0]);
    }
    for (mode, loc) in [(F(0), 1), (F(0), 2), (F(0), 3), (B(0), 2), (B(0), 1)] {
        assert_eq!(r.go(&[mode]), [loc]);
        assert_eq!(*r.mem.read_data(0), loc as u32 + 1);
        assert_eq!(r.mem.read_control(0), [loc as f32 + 1.0, 10.0 * (loc as f32 + 1.0)]);
    }
    assert_eq!(r.mem.temporal_list(0), (0..9).collect::<Vec<_>>());
    assert_eq!((r.mem.predecessor(0, 0), r.mem.successor(0, 8)), (None, None));
}

#[test]
fn modes_p_and_c_follow_ancestry() {
    // The parent of a write is the location the head read at t-1.
    let mut r = Rig::new(1, 1, true);
    assert_eq!(r.go(&[H(0)]), [0]); // w0: root
    assert_eq!(r.go(&[H(0)]), [0]); // w1 under 0
    assert_eq!(r.go(&[F(0)]), [1]); // w2 under 0
    assert_eq!(r.go(&[F(0)]), [2]); // w3 under 1
    assert_eq!(r.go(&[P(0)]), [0]); // w4 under 2; parent of 2 is 0
    assert_eq!((r.mem.parent(0, 0, 3), r.mem.parent(0, 0, 4)), (Some(1), Some(2)));
    assert_eq!(r.mem.parent(0, 0, 0), None);
    // w5 under 0; C takes the newest child by write time.
    assert_eq!(r.go(&[C(0)]), [5]);
    assert_eq!(r.mem.children(0, 0, 0), [5, 2, 1]);
    assert_eq!(*r.mem.read_data(0), 6);
    assert_eq!(r.go(&[P(0)]), [0]); // w6 under 5
    assert_eq!(r.mem.children(0, 0, 5), [6]);
    assert_eq!(r.go(&[P(0)]), [0]); // w7 under 0; 0 is a root: stays
    assert_eq!(r.mem.children(0, 0, 0), [7, 5, 2, 1]);
}

#[test]
fn without_ancestry_there_are_no_trees() {
    let mut r = Rig::new(1, 1, false);
    r.go(&[H(0)]);
    r.go(&[H(0)]);
    assert_eq!(r.go(&[F(0)]), [1]);
    assert_eq!(r.go(&[B(0)]), [0]);
    assert_eq!(r.mem.parent(0, 0, 1), None);
    assert!(r.mem.children(0, 0, 0).is_empty());
}

#[test]
fn two_write_heads_keep_separate_lists_and_trees() {
    let mut r = Rig::new(1, 2, true);
    assert_eq!(r.go(&[H(0)]), [0]); // w0 (head 0), w1 (head 1)
    assert_eq!((r.mem.written_location(0), r.mem.written_location(1)), (0, 1));
    assert_eq!(r.mem.control(1), [1.0, 11.0]);
    assert_eq!(r.go(&[F(1)]), [0]); // w2, w3; 0 is not in head 1's list: stays
    assert_eq!(r.go(&[C(1)]), [5]); // w4, w5; newest child of 0 in tree (1, 0)
    assert_eq!(r.mem.temporal_list(0), [0, 2, 4]);
    assert_eq!(r.mem.temporal_list(1), [1, 3, 5]);
    assert_eq!(r.mem.children(0, 0, 0), [4, 2]);
    assert_eq!(r.mem.children(1, 0, 0), [5, 3, 1]);
    assert_eq!(r.go(&[B(1)]), [3]); // w6 under 5 in tree (0, 0), w7 under 5 in tree (1, 0)
    assert_eq!(r.go(&[P(1)]), [0]);
    assert_eq!(r.go(&[F(0)]), [2]);
}

// ---- missing links (MODEL §3 "Missing link") ----

#[test]
fn missing_links_leave_the_head_in_place() {
    let mut r = Rig::new(4, 1, true);
    // Step 1: 0 is the list's tail and head, a root, and has no child yet.
    assert_eq!(r.go(&[F(0), B(0), P(0), C(0)]), [0, 0, 0, 0]);
    // Step 2: w1 under 0; B at the head and P at a root stay.
    assert_eq!(r.go(&[H(0), B(0), P(0), F(0)]), [0, 0, 0, 1]);
    assert_eq!(r.go(&[B(0), P(0), B(0), B(0)]), [0, 0, 0, 0]);
}

#[test]
fn missing_links_on_a_reused_location_leave_the_head_in_place() {
    // A location freed at t is rewritten at t+1 as the new tail, with no parent (its writer's
    // reader stood on it) and no child.
    let mut r = Rig::new(3, 1, true);
    for _ in 0..3 {
        r.go(&[H(0), H(1), H(2)]);
    }
    assert_eq!(r.go_free_read(&[F(0), F(0), F(0)], &[true, false, false]), [1, 1, 1]);
    assert!(!r.mem.is_used(1));
    assert_eq!(r.go(&[F(0), C(0), P(0)]), [1, 1, 1]);
    assert_eq!(r.written(), 1);
    assert_eq!(r.mem.temporal_list(0), [0, 2, 3, 1]);
    assert_eq!(r.go(&[B(0), C(0), F(0)]), [3, 4, 4]); // w4 goes after 1 and under 1
}

// ---- previous update (MODEL §2 step 4a) ----

#[test]
fn previous_update_changes_the_location_read_at_t_minus_1_where_gated() {
    let mut r = Rig::new(2, 1, true);
    r.go(&[H(0), H(1)]); // M_c[0] = [1, 10]
    let mut d = r.decision(&[F(0), H(1)]);
    d.prev_gate = vec![true, false];
    d.prev_erase = vec![0.5, 0.0, 1.0, 1.0];
    d.prev_write = vec![1.0, 3.0, 9.0, 9.0];
    assert_eq!(r.step(&d), [1, 0]);
    assert_eq!(r.mem.control(0), [1.5, 13.0]); // [1·0.5 + 1, 10·1 + 3]; head 1 gated off
    assert_eq!(r.mem.control(1), [2.0, 20.0]); // this step's write is untouched
    assert_eq!(r.mem.read_control(1), [1.5, 13.0]);

    let mut d = r.decision(&[H(0), H(1)]);
    d.prev_gate = vec![true, true];
    d.prev_erase = vec![1.0, 1.0, 0.0, 0.5];
    d.prev_write = vec![7.0, 8.0, 0.0, 1.0];
    assert_eq!(r.step(&d), [1, 0]);
    assert_eq!(r.mem.control(1), [7.0, 8.0]); // head 0 read 1 at t-1
    assert_eq!(r.mem.control(0), [1.5, 7.5]); // head 1 read 0 at t-1: [1.5, 13·0.5 + 1]
    assert_eq!(r.mem.control(2), [3.0, 30.0]);
    assert_eq!((*r.mem.data(0), *r.mem.data(1), *r.mem.data(2)), (1, 2, 3));
}

// ---- free gates (MODEL §3 "Free gates", "Allocation") ----

#[test]
fn write_free_gate_unlinks_the_write_and_its_location_is_reused() {
    let mut r = Rig::new(1, 1, true);
    for _ in 0..3 {
        r.go(&[H(0)]);
    }
    assert_eq!(r.go_free_write(&[C(0)]), [3]); // reads w3 before it is freed
    assert_eq!(*r.mem.read_data(0), 4);
    assert!(!r.mem.is_used(3));
    assert_eq!((r.mem.len(), r.mem.in_use()), (4, 3));
    assert_eq!(r.mem.temporal_list(0), [0, 1, 2]);
    assert_eq!(r.mem.successor(0, 2), None);
    assert_eq!(r.mem.children(0, 0, 0), [2, 1]);
    // The next write reuses 3 after the tail 2 (no self-loop); 3 is a root now.
    assert_eq!(r.go(&[B(0)]), [2]);
    assert_eq!((r.written(), r.mem.in_use()), (3, 4));
    assert_eq!(r.mem.temporal_list(0), [0, 1, 2, 3]);
    assert_eq!(*r.mem.data(3), 5);
    assert_eq!(r.mem.parent(0, 0, 3), None);
}

#[test]
fn read_free_gate_keeps_the_temporal_list_a_list() {
    let mut r = Rig::new(2, 1, false);
    for _ in 0..5 {
        r.go(&[H(0), H(1)]);
    }
    assert_eq!(r.go(&[F(0), H(1)]), [1, 0]);
    assert_eq!(r.go(&[F(0), H(1)]), [2, 0]);
    // Step 8 writes 7; the heads read 3 and 1 and free them.
    assert_eq!(r.go_free_read(&[F(0), F(0)], &[true, true]), [3, 1]);
    assert_eq!(r.mem.temporal_list(0), [0, 2, 4, 5, 6, 7]);
    assert_eq!((r.mem.successor(0, 0), r.mem.predecessor(0, 2)), (Some(2), Some(0)));
    assert_eq!((r.mem.successor(0, 2), r.mem.predecessor(0, 4)), (Some(4), Some(2)));
    assert_eq!((r.mem.len(), r.mem.in_use()), (8, 6));
    assert!(!r.mem.is_used(1) && !r.mem.is_used(3));
    assert_eq!((*r.mem.read_data(0), *r.mem.read_data(1)), (4, 2));
    // Freed locations keep their own outgoing links.
    assert_eq!((r.mem.predecessor(0, 3), r.mem.successor(0, 3)), (Some(2), Some(4)));
    assert_eq!((r.mem.predecessor(0, 1), r.mem.successor(0, 1)), (Some(0), Some(2)));

    // Step 9 writes the lowest free location, 1, and frees it again; head 0 steps B from the
    // freed 3 to its former predecessor, head 1 moves onto 3 (head 0's t-1 location).
    assert_eq!(r.go_free_write(&[B(0), H(0)]), [2, 3]);
    assert_eq!(r.written(), 1);
    assert_eq!(r.mem.temporal_list(0), [0, 2, 4, 5, 6, 7]);
    assert_eq!(r.mem.in_use(), 6);
    // Step 10: 1 again; head 1 steps F from the freed 3 to its former successor.
    assert_eq!(r.go(&[H(0), F(0)]), [2, 4]);
    assert_eq!(r.written(), 1);
    assert_eq!(*r.mem.read_data(1), 5);
    // Then 3, then a fresh location.
    r.go(&[H(0), H(1)]);
    assert_eq!(r.written(), 3);
    r.go(&[H(0), H(1)]);
    assert_eq!(r.written(), 8);
    assert_eq!(r.mem.temporal_list(0), [0, 2, 4, 5, 6, 7, 1, 3, 8]);
    assert_eq!((r.mem.len(), r.mem.in_use()), (9, 9));
}

/// Steps 1–7 of the ancestry examples: tree 0 → [6, 2, 1], 1 → [5, 4, 3], head on 0.
fn ancestry_rig() -> Rig {
    let mut r = Rig::new(1, 1, true);
    for (mode, loc) in [(H(0), 0), (H(0), 0), (F(0), 1), (H(0), 1), (H(0), 1), (P(0), 0)] {
        assert_eq!(r.go(&[mode]), [loc]);
    }
    assert_eq!(r.go(&[H(0)]), [0]);
    assert_eq!(r.mem.children(0, 0, 0), [6, 2, 1]);
    assert_eq!(r.mem.children(0, 0, 1), [5, 4, 3]);
    assert_eq!((r.mem.parent(0, 0, 1), r.mem.parent(0, 0, 0)), (Some(0), None));
    r
}

#[test]
fn freeing_reattaches_children_to_the_parent_newest_first() {
    let mut r = ancestry_rig();
    // Step 8 writes 7 under 0; the head reads 1 and frees it.
    assert_eq!(r.go_free_read(&[F(0)], &[true]), [1]);
    assert_eq!(r.mem.children(0, 0, 0), [7, 6, 5, 4, 3, 2]); // merged by write time
    for k in [3, 4, 5] {
        assert_eq!(r.mem.parent(0, 0, k), Some(0));
    }
    assert!(r.mem.children(0, 0, 1).is_empty());
    assert_eq!(r.mem.parent(0, 0, 1), Some(0)); // its own outgoing link stays
    assert_eq!(r.mem.temporal_list(0), [0, 2, 3, 4, 5, 6, 7]);
    assert_eq!(r.mem.in_use(), 7);
}

#[test]
fn freeing_a_root_makes_its_children_roots() {
    let mut r = ancestry_rig();
    assert_eq!(r.go_free_read(&[H(0)], &[true]), [0]); // w7 under 0, then 0 is freed
    for k in [1, 2, 6, 7] {
        assert_eq!(r.mem.parent(0, 0, k), None);
    }
    assert_eq!(r.mem.children(0, 0, 1), [5, 4, 3]);
    assert_eq!(r.mem.temporal_list(0), [1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(r.mem.predecessor(0, 1), None);
}

#[test]
fn a_head_on_a_freed_location_can_step_to_its_former_parent() {
    let mut r = ancestry_rig();
    assert_eq!(r.go_free_read(&[F(0)], &[true]), [1]); // step 8: 1 freed
    // Step 9: the write reuses 1 and is freed again; the head steps B to the tail 7.
    assert_eq!(r.go_free_write(&[B(0)]), [7]);
    assert_eq!(r.written(), 1);
    // Step 10: the write (1 again, under 7) and the read location 7 are both freed.
    let mut d = r.decision(&[H(0)]);
    d.free_write = vec![true];
    d.free_read = vec![true];
    assert_eq!(r.step(&d), [7]);
    assert!(r.mem.children(0, 0, 7).is_empty());
    assert_eq!(r.mem.children(0, 0, 0), [6, 5, 4, 3, 2]);
    assert_eq!(r.mem.in_use(), 6);
    // Step 11: the write takes 1 (lowest); the head on the freed 7 steps P to its former parent.
    assert_eq!(r.go_free_write(&[P(0)]), [0]);
    assert_eq!(r.written(), 1);
    // Steps 12–14 write 1, 7, then a fresh 8.
    for loc in [1, 7, 8] {
        r.go(&[H(0)]);
        assert_eq!(r.written(), loc);
    }
    assert_eq!(r.mem.temporal_list(0), [0, 2, 3, 4, 5, 6, 1, 7, 8]);
}

#[test]
fn freeing_unlinks_a_location_from_every_write_heads_tree() {
    // With two write heads a location written by head 1 can be a parent in head 0's tree.
    let mut r = Rig::new(1, 2, true);
    assert_eq!(r.go(&[H(0)]), [0]); // w0, w1 (1 under 0 in tree (1, 0))
    assert_eq!(r.go(&[C(1)]), [3]); // w2, w3 under 0
    assert_eq!(r.go_free_read(&[H(0)], &[true]), [3]); // w4, w5 under 3; then 3 is freed
    assert_eq!(r.mem.children(1, 0, 0), [5, 1]); // 5 re-attached to 3's parent
    assert_eq!(r.mem.parent(1, 0, 5), Some(0));
    assert_eq!(r.mem.parent(0, 0, 4), None); // 3 has no parent in tree (0, 0): 4 is a root
    assert!(r.mem.children(0, 0, 3).is_empty());
    assert_eq!(r.mem.temporal_list(1), [1, 5]);
    // Head 0 takes 3 (lowest free), head 1 a fresh 6 under 3; 3 lost its old parent.
    assert_eq!(r.go(&[P(1)]), [3]);
    assert_eq!((r.mem.written_location(0), r.mem.written_location(1)), (3, 6));
    assert_eq!(r.mem.parent(1, 0, 3), None);
    assert_eq!(r.mem.parent(1, 0, 6), Some(3));
    assert_eq!(r.mem.temporal_list(0), [0, 2, 4, 3]);
}
