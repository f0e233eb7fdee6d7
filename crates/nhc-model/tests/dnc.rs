//! The DNC's memory with the information split and hard attention (`DncMemory`), checked step by
//! step against the DNC's definitions (Graves et al., Nature 2016, Methods) worked out here:
//! temporal links and precedence, read modes, usage and allocation, erase/write, and the data
//! memory written at the control word's location.
//!
//! Words are 2-dimensional and point in different directions, so a key equal to one of them with
//! strength `BETA` makes the content weighting (cosine similarity, softmax) practically one-hot.

use nhc_model::dnc::ReadSource;
use nhc_model::{Arch, Config, DncDecision, DncMemory, MemoryModule};

/// A key strength β large enough that the best cosine match takes all the content weight.
const BETA: f32 = 50.0;
/// Size of the reference link matrix (larger than any memory here).
const N_MAX: usize = 16;

fn config(read_heads: usize) -> Config {
    Config { word: 2, read_heads, memory: Arch::Dnc, ..Config::PAPER }
}

fn memory() -> DncMemory<u8> {
    DncMemory::new(&config(1))
}

/// Writes `v` where the allocation weighting points (g^a = 1, g^w = 1), erasing the old word
/// (e = 1); head 0 reads by content with a zero key.
fn allocate(v: [f32; 2]) -> DncDecision {
    let mut d = DncDecision::new(2, 1);
    d.allocation_gate = 1.0;
    d.write_gate = 1.0;
    d.erase = vec![1.0, 1.0];
    d.write = v.to_vec();
    d
}

/// Writes `v` where content addressing with `key` points (g^a = 0, β^w = BETA), erasing the old
/// word (e = 1).
fn overwrite(key: [f32; 2], v: [f32; 2]) -> DncDecision {
    let mut d = allocate(v);
    d.allocation_gate = 0.0;
    d.write_key = key.to_vec();
    d.write_strength = BETA;
    d
}

/// The same decision with head 0 reading in modes π = (backward, content, forward) and content key
/// `key` with strength BETA.
fn read(mut d: DncDecision, modes: [f32; 3], key: [f32; 2]) -> DncDecision {
    d.read_modes[0] = modes;
    d.read_keys = key.to_vec();
    d.read_strengths[0] = BETA;
    d
}

/// The same decision with free gate f for head 0.
fn free(mut d: DncDecision, f: f32) -> DncDecision {
    d.free_gates[0] = f;
    d
}

fn one_hot(k: usize) -> Vec<f32> {
    let mut w = vec![0.0; N_MAX];
    w[k] = 1.0;
    w
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-6, "{what}: got {got:?}, want {want:?}");
    }
}

/// Cosine similarity `D(u, v) = u·v / (|u||v| + ε)` (Methods, "Content-based addressing").
fn cosine(u: &[f32], v: &[f32]) -> f32 {
    let dot: f32 = u.iter().zip(v).map(|(a, b)| a * b).sum();
    let norm = |x: &[f32]| x.iter().map(|a| a * a).sum::<f32>().sqrt();
    dot / (norm(u) * norm(v) + 1e-6)
}

/// Content weighting `C(M, k, β)[i] = exp(β D(k, M[i])) / Σ_j exp(β D(k, M[j]))`.
fn content(words: &[[f32; 2]], key: [f32; 2], beta: f32) -> Vec<f32> {
    let e: Vec<f32> = words.iter().map(|w| (beta * (cosine(&key, w) - 1.0)).exp()).collect();
    let z: f32 = e.iter().sum();
    e.iter().map(|x| x / z).collect()
}

/// The temporal link matrix L (dense, N_MAX × N_MAX) and precedence weighting p, updated by the
/// DNC's formulas (Methods, "Temporal memory linkage"):
/// `L_t[i][j] = (1 − w[i] − w[j]) L_{t−1}[i][j] + w[i] p_{t−1}[j]`, `L_t[i][i] = 0`,
/// `p_t = (1 − Σ_i w[i]) p_{t−1} + w`.
struct Links {
    l: Vec<Vec<f32>>,
    p: Vec<f32>,
}

impl Links {
    fn new() -> Self {
        Links { l: vec![vec![0.0; N_MAX]; N_MAX], p: vec![0.0; N_MAX] }
    }

    fn write(&mut self, w: &[f32]) {
        let old = self.l.clone();
        for i in 0..N_MAX {
            for j in 0..N_MAX {
                self.l[i][j] = if i == j { 0.0 } else { (1.0 - w[i] - w[j]) * old[i][j] + w[i] * self.p[j] };
            }
        }
        let sum: f32 = w.iter().sum();
        for (p, w) in self.p.iter_mut().zip(w) {
            *p = (1.0 - sum) * *p + w;
        }
    }

    /// `successor(j) == Some(i)` iff `L[i][j] = 1`, `predecessor(i) == Some(j)` iff `L[i][j] = 1`,
    /// over all the memory's locations. With one-hot writes L stays 0/1 (checked too).
    fn check(&self, mem: &DncMemory<u8>, when: &str) {
        for row in &self.l {
            assert!(row.iter().all(|&x| x == 0.0 || x == 1.0), "{when}: L not 0/1: {row:?}");
        }
        let n = mem.len();
        for j in 0..n {
            let succ: Vec<usize> = (0..N_MAX).filter(|&i| self.l[i][j] == 1.0).collect();
            assert!(succ.len() <= 1, "{when}: column {j} of L has several 1s");
            assert_eq!(mem.successor(j), succ.first().copied(), "{when}: successor({j})");
        }
        for i in 0..n {
            let pred: Vec<usize> = (0..N_MAX).filter(|&j| self.l[i][j] == 1.0).collect();
            assert!(pred.len() <= 1, "{when}: row {i} of L has several 1s");
            assert_eq!(mem.predecessor(i), pred.first().copied(), "{when}: predecessor({i})");
        }
        // Nothing links to or from a location the memory does not have yet.
        for k in n..N_MAX {
            assert!(self.l[k].iter().all(|&x| x == 0.0) && self.l.iter().all(|r| r[k] == 0.0));
        }
    }
}

/// One step whose write location `k` is known by hand; then L and p take the one-hot write
/// weighting at `k` and the memory's links must match L.
fn step_linked(mem: &mut DncMemory<u8>, links: &mut Links, d: &DncDecision, k: usize, when: &str) {
    mem.step(&0, d);
    assert_eq!(mem.written_location(0), k, "{when}: write location");
    links.write(&one_hot(k));
    links.check(mem, when);
}

/// Temporal links through fresh writes, overwrites of earlier locations (a link cut and re-made),
/// a write at the location written just before (L[k][k] = 0: the link to it is cut and none
/// made), and a location freed by a free gate and reused by allocation.
#[test]
fn temporal_links_follow_the_dnc_link_matrix() {
    let mut mem = memory();
    let mut links = Links::new();
    let m = &mut mem;
    let l = &mut links;

    // Fresh locations in order: 0 → 1 → 2 → 3.
    step_linked(m, l, &allocate([1.0, 0.0]), 0, "write 0");
    assert_eq!((m.successor(0), m.predecessor(0)), (None, None));
    step_linked(m, l, &allocate([0.0, 1.0]), 1, "write 1");
    step_linked(m, l, &allocate([-1.0, 0.0]), 2, "write 2");
    step_linked(m, l, &allocate([0.0, -1.0]), 3, "write 3");
    assert_eq!(m.successor(0), Some(1));
    assert_eq!(m.predecessor(3), Some(2));
    assert_eq!(m.len(), 5);

    // Overwrite 1 by content: row 1 becomes p = e_3, column 1 and the old row 1 are cleared, so
    // 0 → 1 and 1 → 2 are cut and 3 → 1 is made.
    step_linked(m, l, &overwrite([0.0, 1.0], [0.0, 1.0]), 1, "overwrite 1");
    assert_eq!(m.successor(0), None);
    assert_eq!(m.predecessor(2), None);
    assert_eq!(m.successor(3), Some(1));
    assert_eq!(m.predecessor(1), Some(3));
    assert_eq!(m.len(), 5);

    // Allocation goes to the fresh location 4 (every other one has usage 1): 1 → 4.
    step_linked(m, l, &allocate([1.0, 1.0]), 4, "write 4");
    assert_eq!(m.successor(1), Some(4));

    // Write 4 again: L[4][4] = 0 and column 4 is cleared, so 1 → 4 is cut and nothing is made.
    step_linked(m, l, &overwrite([1.0, 1.0], [1.0, 1.0]), 4, "write 4 twice");
    assert_eq!(m.successor(1), None);
    assert_eq!(m.predecessor(4), None);
    assert_eq!(m.successor(4), None);

    // Overwrite 0: 4 → 0.
    step_linked(m, l, &overwrite([1.0, 0.0], [1.0, 0.0]), 0, "overwrite 0");
    assert_eq!(m.predecessor(0), Some(4));

    // Write the fresh location 5 (0 → 5) while head 0 reads 2 by content...
    let d = read(allocate([-1.0, 1.0]), [0.0, 1.0, 0.0], [-1.0, 0.0]);
    step_linked(m, l, &d, 5, "write 5, read 2");
    assert_eq!(m.read_location(0), 2);
    // ...then free 2 with f = 1: its usage is 0 and it is the lowest free location, so the
    // allocation writes there: 5 → 2, and 2 → 3 (from the first writes) is cut.
    assert_eq!(m.successor(2), Some(3));
    step_linked(m, l, &free(allocate([-1.0, -1.0]), 1.0), 2, "reuse 2");
    assert_eq!(m.predecessor(2), Some(5));
    assert_eq!(m.successor(2), None);
    assert_eq!(m.predecessor(3), None);
    step_linked(m, l, &allocate([2.0, 1.0]), 6, "write 6");
    assert_eq!(m.successor(2), Some(6));

    // After a reset nothing is linked and the precedence weighting starts from 0 again.
    mem.reset();
    let mut links = Links::new();
    assert_eq!(mem.len(), 1);
    step_linked(&mut mem, &mut links, &allocate([1.0, 0.0]), 0, "after reset, write 0");
    step_linked(&mut mem, &mut links, &allocate([0.0, 1.0]), 1, "after reset, write 1");
    assert_eq!(mem.predecessor(0), None);
    assert_eq!(mem.successor(0), Some(1));
}

/// Read weighting `w^r = π[0] b + π[1] c + π[2] f` with `f = L_t w^r_{t−1}`, `b = L_t^⊤ w^r_{t−1}`
/// (Methods, "Read weighting"), then the location it is largest at, and which term put it there.
#[test]
fn read_modes_follow_the_blended_read_weighting() {
    let mut mem = memory();
    let words = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]];
    for w in &words[..3] {
        mem.step(&0, &allocate(*w));
    }
    // Written 0 → 1 → 2 → 3; head 0 reads by content with the key equal to word 1.
    mem.step(&0, &read(allocate(words[3]), [0.0, 1.0, 0.0], [0.0, 1.0]));
    assert_eq!(mem.read_location(0), 1);
    assert_eq!(mem.read_source(0), ReadSource::Content);
    assert_close(mem.read_control(0), &[0.0, 1.0], "content read");

    // Forward from 1 (f = column 1 of L = e_2); π[1] = 0, so a key pointing at 0 counts for
    // nothing. This step writes 4 (3 → 4), which does not touch 1's links.
    mem.step(&0, &read(allocate([1.0, 1.0]), [0.0, 0.0, 1.0], [1.0, 0.0]));
    assert_eq!(mem.read_location(0), 2);
    assert_eq!(mem.read_source(0), ReadSource::Forward);
    assert_close(mem.read_control(0), &[-1.0, 0.0], "forward read");

    // Backward from 2 (b = row 2 of L = e_1), the key pointing at 3 ignored; writes 5.
    mem.step(&0, &read(allocate([1.0, -1.0]), [1.0, 0.0, 0.0], [0.0, -1.0]));
    assert_eq!(mem.read_location(0), 1);
    assert_eq!(mem.read_source(0), ReadSource::Backward);
    assert_close(mem.read_control(0), &[0.0, 1.0], "backward read");

    // Backward from 1 to 0; writes 6.
    mem.step(&0, &read(allocate([-1.0, 1.0]), [1.0, 0.0, 0.0], [0.0, 0.0]));
    assert_eq!(mem.read_location(0), 0);
    assert_eq!(mem.read_source(0), ReadSource::Backward);

    // Blend π = (0, 0.6, 0.4) from 0, key = word 2: w^r[2] ≈ 0.6 (content) beats
    // w^r[1] = 0.4 + 0.6 c[1] ≈ 0.4 (forward, c[1] ≈ e^{−50}). Writes 7.
    mem.step(&0, &read(allocate([-1.0, -1.0]), [0.0, 0.6, 0.4], [-1.0, 0.0]));
    assert_eq!(mem.read_location(0), 2);
    assert_eq!(mem.read_source(0), ReadSource::Content);

    // π = (0, 0.3, 0.7) from 2, same key: w^r[3] ≈ 0.7 (forward) beats w^r[2] ≈ 0.3. Writes 8.
    mem.step(&0, &read(allocate([2.0, 1.0]), [0.0, 0.3, 0.7], [-1.0, 0.0]));
    assert_eq!(mem.read_location(0), 3);
    assert_eq!(mem.read_source(0), ReadSource::Forward);
    assert_eq!(mem.written_location(0), 8);

    // Overwrite 3, the location the head is on: column 3 of L is cleared (3 → 4 cut) and 8 → 3
    // made, so 3 is the last written location and has no successor: f = 0 and
    // π = (0, 0.1, 0.9) leaves w^r = 0.1 c, whose largest entry is the content match, word 4.
    let d = read(overwrite([0.0, -1.0], [0.0, -1.0]), [0.0, 0.1, 0.9], [1.0, 1.0]);
    mem.step(&0, &d);
    assert_eq!(mem.written_location(0), 3);
    assert_eq!(mem.successor(3), None);
    assert_eq!(mem.read_location(0), 4);
    assert_eq!(mem.read_source(0), ReadSource::Content);
    assert_close(mem.read_control(0), &[1.0, 1.0], "fallback read");
}

/// Usage `u_t = (u_{t−1} + w^w_{t−1} − u_{t−1} ∘ w^w_{t−1}) ∘ ψ_t`, `ψ_t = Π_i (1 − f^i_t w^{r,i}_{t−1})`,
/// computed at the start of step t; allocation one-hot at the lowest location of usage 0 (the
/// first in the free list φ_t, which makes every later product 0) (Methods, "Dynamic memory
/// allocation"). f = 1 frees location 1 completely, so it is reused before the fresh location.
#[test]
fn a_fully_freed_location_is_allocated_before_the_fresh_one() {
    let mut mem = memory();
    mem.step(&0, &allocate([1.0, 0.0]));
    // u_1 = 0: the first write counts from the next step on.
    assert_close(mem.usage(), &[0.0, 0.0], "after write 0");
    mem.step(&0, &allocate([0.0, 1.0]));
    assert_eq!(mem.written_location(0), 1);
    assert_close(mem.usage(), &[1.0, 0.0, 0.0], "after write 1");
    mem.step(&0, &read(allocate([-1.0, 0.0]), [0.0, 1.0, 0.0], [0.0, 1.0]));
    assert_eq!(mem.written_location(0), 2);
    assert_eq!(mem.read_location(0), 1);
    assert_close(mem.usage(), &[1.0, 1.0, 0.0, 0.0], "after write 2");

    // u[2] = 1 (written), u[1] = 1 · (1 − 1) = 0: allocation at 1, not at the fresh 3.
    mem.step(&0, &free(allocate([0.0, -1.0]), 1.0));
    assert_close(mem.usage(), &[1.0, 0.0, 1.0, 0.0], "after freeing 1");
    assert_eq!(mem.written_location(0), 1);
    assert_eq!(mem.len(), 4);
    assert_close(mem.control(1), &[0.0, -1.0], "word at 1");

    // u[1] = 1 again; the fresh 3 is next.
    mem.step(&0, &allocate([1.0, 1.0]));
    assert_close(mem.usage(), &[1.0, 1.0, 1.0, 0.0, 0.0], "after rewriting 1");
    assert_eq!(mem.written_location(0), 3);
    assert_eq!(mem.len(), 5);
}

/// As above with f = 0.5: location 1 keeps usage 0.5 (then 0.25), so the allocation takes the
/// fresh location every time.
#[test]
fn a_half_freed_location_is_not_allocated() {
    let mut mem = memory();
    mem.step(&0, &allocate([1.0, 0.0]));
    mem.step(&0, &allocate([0.0, 1.0]));
    mem.step(&0, &read(allocate([-1.0, 0.0]), [0.0, 1.0, 0.0], [0.0, 1.0]));
    let d = read(free(allocate([0.0, -1.0]), 0.5), [0.0, 1.0, 0.0], [0.0, 1.0]);
    mem.step(&0, &d);
    assert_close(mem.usage(), &[1.0, 0.5, 1.0, 0.0, 0.0], "after f = 0.5");
    assert_eq!(mem.written_location(0), 3);
    assert_eq!(mem.read_location(0), 1);
    mem.step(&0, &free(allocate([1.0, 1.0]), 0.5));
    assert_close(mem.usage(), &[1.0, 0.25, 1.0, 1.0, 0.0, 0.0], "after f = 0.5 twice");
    assert_eq!(mem.written_location(0), 4);
}

/// The retention ψ applies after the write term: a location written and read at step t−1 and
/// freed with f at step t has `u = (0 + 1 − 0) (1 − f)`. With two heads ψ multiplies.
#[test]
fn usage_of_a_written_and_read_location_is_retained_by_the_free_gates() {
    let mut mem = memory();
    mem.step(&0, &read(allocate([1.0, 0.0]), [0.0, 1.0, 0.0], [1.0, 0.0]));
    assert_eq!(mem.read_location(0), 0);
    mem.step(&0, &free(allocate([0.0, 1.0]), 0.25));
    assert_close(mem.usage(), &[0.75, 0.0, 0.0], "f = 0.25");
    assert_eq!(mem.written_location(0), 1);
    // 0 has usage 0.75 > 0, so the next allocation is at 2 (lowest usage 0), not at 0.
    mem.step(&0, &allocate([-1.0, 0.0]));
    assert_close(mem.usage(), &[0.75, 1.0, 0.0, 0.0], "next step");
    assert_eq!(mem.written_location(0), 2);

    // Two read heads on location 0, f = 0.5 each: ψ[0] = 0.5 · 0.5.
    let mut mem: DncMemory<u8> = DncMemory::new(&config(2));
    let mut d = DncDecision::new(2, 2);
    d.write = vec![1.0, 0.0];
    d.read_keys = vec![1.0, 0.0, 1.0, 0.0];
    d.read_strengths = vec![BETA, BETA];
    mem.step(&0, &d);
    assert_eq!((mem.read_location(0), mem.read_location(1)), (0, 0));
    let mut d = DncDecision::new(2, 2);
    d.free_gates = vec![0.5, 0.5];
    mem.step(&0, &d);
    assert_close(mem.usage(), &[0.25, 0.0, 0.0], "two heads");
}

/// Write weighting `w^w = g^w (g^a a + (1 − g^a) c^w)` (Methods, "Write weighting"), then its
/// largest entry: with a the fresh location and c^w one-hot-ish at an existing one, g^a decides.
#[test]
fn allocation_gate_blends_allocation_and_content() {
    let words = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, 0.0]];
    let c = content(&words, [0.0, 1.0], BETA);
    for (ga, want) in [(0.4, 1), (0.6, 3)] {
        // a = e_3: usage (1, 1, 1, 0) at the start of the fourth step.
        let w: Vec<f32> = (0..4).map(|i| ga * if i == 3 { 1.0 } else { 0.0 } + (1.0 - ga) * c[i]).collect();
        let best = (0..4).fold(0, |b, i| if w[i] > w[b] { i } else { b });
        assert_eq!(best, want, "g^a = {ga}: by hand w^w = {w:?}");

        let mut mem = memory();
        for v in &words[..3] {
            mem.step(&0, &allocate(*v));
        }
        let mut d = overwrite([0.0, 1.0], [0.0, 2.0]);
        d.allocation_gate = ga;
        mem.step(&0, &d);
        assert_eq!(mem.written_location(0), want, "g^a = {ga}");
        assert_close(mem.control(want), &[0.0, 2.0], "written word");
    }
}

/// +is: the data word of a step is written at the control word's location, and a read head reads
/// the data word at its location (in the same step as a write, the new one).
#[test]
fn data_memory_is_written_and_read_with_the_control_memory() {
    let mut mem = memory();
    mem.step(&10, &allocate([1.0, 0.0]));
    mem.step(&20, &allocate([0.0, 1.0]));
    mem.step(&30, &read(allocate([-1.0, 0.0]), [0.0, 1.0, 0.0], [0.0, 1.0]));
    assert_eq!(mem.read_location(0), 1);
    assert_eq!(*mem.read_data(0), 20);
    assert_eq!((*mem.data(0), *mem.data(1), *mem.data(2), *mem.data(3)), (10, 20, 30, 0));

    // Overwrite 0 by content with data 40; head 0 moves forward from 1 to 2.
    mem.step(&40, &read(overwrite([1.0, 0.0], [1.0, 0.0]), [0.0, 0.0, 1.0], [0.0, 0.0]));
    assert_eq!(mem.written_location(0), 0);
    assert_eq!((*mem.data(0), *mem.data(1), *mem.data(2), *mem.data(3)), (40, 20, 30, 0));
    assert_eq!(mem.read_location(0), 2);
    assert_eq!(*mem.read_data(0), 30);
    assert_close(mem.read_control(0), &[-1.0, 0.0], "control word with data 30");

    // Write 3 and read it in the same step: the read sees data 50.
    mem.step(&50, &read(allocate([0.0, -1.0]), [0.0, 1.0, 0.0], [0.0, -1.0]));
    assert_eq!(mem.written_location(0), 3);
    assert_eq!(mem.read_location(0), 3);
    assert_eq!(*mem.read_data(0), 50);
    assert_eq!(*mem.data(4), 0);

    // Through the MemoryModule trait.
    let m: &dyn MemoryModule<u8, Decision = DncDecision> = &mem;
    assert_eq!((*m.read_data(0), m.read_location(0), m.written_location(0)), (50, 3, 3));
}

/// Writing `M_t = M_{t−1} ∘ (E − w^w e^⊤) + w^w v^⊤` (Methods, "Writing") with w^w one-hot at k:
/// `M[k] = M[k] ∘ (1 − e) + v`, every other word unchanged.
#[test]
fn erase_and_write_at_the_written_location() {
    let mut mem = memory();
    mem.step(&0, &allocate([2.0, 4.0]));
    mem.step(&0, &allocate([-3.0, 1.0]));

    // e = (0.25, 1), v = (0.5, −1) at 0: (2 · 0.75 + 0.5, 4 · 0 − 1) = (2, −1).
    let mut d = overwrite([1.0, 2.0], [0.5, -1.0]);
    d.erase = vec![0.25, 1.0];
    mem.step(&0, &d);
    assert_eq!(mem.written_location(0), 0);
    assert_close(mem.control(0), &[2.0, -1.0], "after erase (0.25, 1)");
    assert_close(mem.control(1), &[-3.0, 1.0], "untouched 1");
    assert_close(mem.control(2), &[0.0, 0.0], "fresh 2");

    // e = 0, v = (1, 1) at 1: the word is added to, (−2, 2).
    let mut d = overwrite([-3.0, 1.0], [1.0, 1.0]);
    d.erase = vec![0.0, 0.0];
    mem.step(&0, &d);
    assert_eq!(mem.written_location(0), 1);
    assert_close(mem.control(1), &[-2.0, 2.0], "after erase 0");
    assert_close(mem.control(0), &[2.0, -1.0], "untouched 0");

    // e = (0.5, 0.5), v = (−1, 3) at 1: (−2 · 0.5 − 1, 2 · 0.5 + 3) = (−2, 4).
    let mut d = overwrite([-2.0, 2.0], [-1.0, 3.0]);
    d.erase = vec![0.5, 0.5];
    mem.step(&0, &d);
    assert_eq!(mem.written_location(0), 1);
    assert_close(mem.control(1), &[-2.0, 4.0], "after erase 0.5");
    assert_close(mem.control(0), &[2.0, -1.0], "untouched 0");
}

/// Skipping a content weighting where it cannot change a location changes nothing: a memory
/// that skips and one that computes every weighting take the same locations, read the same
/// words and name the same sources, step by step, over decisions that are sometimes decided by
/// the allocation or a link alone and sometimes not, with free gates, exact ties and words and
/// strengths too large for the bounds (the last run).
#[test]
fn skipping_content_weightings_changes_nothing() {
    let mut state = 7u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let c = config(2);
    let (mut fast, mut full) = (DncMemory::<u8>::new(&c), DncMemory::<u8>::new(&c).scanning_always());
    let mut total = 0;
    for run in 0..4 {
        fast.reset();
        full.reset();
        for t in 0..600u32 {
            let mut d = DncDecision::new(2, 2);
            let pick = |x: f32, options: &[f32]| {
                options[((x * options.len() as f32) as usize).min(options.len() - 1)]
            };
            d.allocation_gate = pick(next(), &[0.0, 0.3, 0.5, 0.9, 1.0, next()]);
            d.write_gate = pick(next(), &[0.0, 1.0, 0.7, next()]);
            d.write_key = vec![next() - 0.5, next() - 0.5];
            d.write_strength = pick(next(), &[1.0, 5.0, 50.0, 2e30]);
            d.erase = vec![next(), next()];
            let scale = if run == 3 && next() < 0.01 { 1e20 } else { 1.0 };
            d.write = vec![(next() - 0.5) * scale, next() - 0.5];
            for j in 0..2 {
                d.free_gates[j] = pick(next(), &[0.0, 1.0, 0.5, next()]);
                let kind = pick(next(), &[0.0, 1.0, 2.0, 3.0, 4.0]) as usize;
                d.read_modes[j] = match kind {
                    0 => [0.0, 0.0, 1.0],
                    1 => [1.0, 0.0, 0.0],
                    2 => [0.25, 0.25, 0.5],
                    3 => [0.1, 0.8, 0.1],
                    _ => {
                        let (a, b) = (next(), next());
                        [a * b, (1.0 - a) * b, 1.0 - b]
                    }
                };
                d.read_keys[2 * j] = next() - 0.5;
                d.read_keys[2 * j + 1] = next() - 0.5;
                d.read_strengths[j] = pick(next(), &[1.0, 20.0, f32::INFINITY, 3.0, 8.0, 2.0, 1.5, 30.0]);
            }
            fast.step(&(t as u8), &d);
            full.step(&(t as u8), &d);
            let when = format!("run {run}, step {t}");
            assert_eq!(fast.written_location(0), full.written_location(0), "{when}: written");
            for j in 0..2 {
                assert_eq!(fast.read_location(j), full.read_location(j), "{when}: head {j}");
                assert_eq!(fast.read_source(j), full.read_source(j), "{when}: head {j}'s source");
                let bits =
                    |m: &DncMemory<u8>| m.read_control(j).iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&fast), bits(&full), "{when}: head {j}'s word");
            }
        }
        assert_eq!(full.skipped_scans(), 0);
        total += fast.skipped_scans();
    }
    // Both paths ran: of 4 × 600 × 3 weightings, many were skipped and many were not.
    assert!(total > 1000 && total < 6000, "{total} of 7200 skipped");
}
