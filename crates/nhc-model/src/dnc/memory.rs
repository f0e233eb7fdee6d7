//! The DNC's memory with the information split and hard attention (paper, "Details to the
//! Comparison Methods"): soft weightings computed as in the DNC, each turned into one location
//! just before memory access; a data memory `M_d` written at the write location.

use super::addressing::{allocation_weighting, content_weighting_normed, dot, norm, update_usage};
use crate::config::Config;
use crate::memory::MemoryModule;
use std::collections::BTreeSet;

/// "No location" in the link arrays.
const NONE: u32 = u32::MAX;

/// Squared norms of words and keys up to which no cosine overflows (docs/DESIGN.md, "DNC+is+ha
/// without the scan").
const BOUNDED: f32 = 1e30;

/// The DNC's interface vector ξ_t, parsed (Methods, "Interface parameters"), for one write head
/// and `R` read heads.
#[derive(Debug, Clone, PartialEq)]
pub struct DncDecision {
    /// Read keys k^{r,i}, `R × W`.
    pub read_keys: Vec<f32>,
    /// Read strengths β^{r,i} = oneplus(β̂) ≥ 1.
    pub read_strengths: Vec<f32>,
    /// Write key k^w.
    pub write_key: Vec<f32>,
    /// Write strength β^w ≥ 1.
    pub write_strength: f32,
    /// Erase vector e ∈ (0,1)^W.
    pub erase: Vec<f32>,
    /// Write vector v.
    pub write: Vec<f32>,
    /// Free gates f^i ∈ (0,1), one per read head.
    pub free_gates: Vec<f32>,
    /// Allocation gate g^a ∈ (0,1).
    pub allocation_gate: f32,
    /// Write gate g^w ∈ (0,1).
    pub write_gate: f32,
    /// Read modes π^i = (backward, content, forward), a softmax per read head.
    pub read_modes: Vec<[f32; 3]>,
}

impl DncDecision {
    /// A decision that writes zeros at the allocated location and reads by content with a zero
    /// key.
    pub fn new(word: usize, read_heads: usize) -> Self {
        DncDecision {
            read_keys: vec![0.0; read_heads * word],
            read_strengths: vec![1.0; read_heads],
            write_key: vec![0.0; word],
            write_strength: 1.0,
            erase: vec![0.0; word],
            write: vec![0.0; word],
            free_gates: vec![0.0; read_heads],
            allocation_gate: 1.0,
            write_gate: 1.0,
            read_modes: vec![[0.0, 1.0, 0.0]; read_heads],
        }
    }

    /// The size of ξ_t: `R·W + R + W + 1 + W + W + R + 1 + 1 + 3R`.
    pub fn interface_size(word: usize, read_heads: usize) -> usize {
        read_heads * word + 3 * word + 5 * read_heads + 3
    }

    fn clear(&mut self) {
        self.read_keys.fill(0.0);
        self.read_strengths.fill(1.0);
        self.write_key.fill(0.0);
        self.write_strength = 1.0;
        self.erase.fill(0.0);
        self.write.fill(0.0);
        self.free_gates.fill(0.0);
        self.allocation_gate = 1.0;
        self.write_gate = 1.0;
        self.read_modes.fill([0.0, 1.0, 0.0]);
    }
}

/// What decided a read head's location: the read mode whose term `π^i[k]·weighting[k]` is the
/// largest at the chosen location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadSource {
    Backward,
    Content,
    Forward,
}

impl ReadSource {
    /// `b`, `c` or `f`.
    pub fn name(self) -> &'static str {
        match self {
            ReadSource::Backward => "b",
            ReadSource::Content => "c",
            ReadSource::Forward => "f",
        }
    }
}

/// The DNC+is+ha memory: `M` (control words, N × W) and `M_d` (data words), usage, the temporal
/// link matrix and the precedence weighting, with one write head and `R` read heads.
///
/// N grows as the NHC's memory does: every location ever written plus one never written (usage
/// 0, a zero word), so there is always a free location and the level a model runs at is not
/// bounded by a memory size. Under hard attention the link matrix `L` has at most one 1 per row
/// and column, so it is kept as successor/predecessor arrays (O(1) per write instead of N²).
///
/// A content weighting visits every location. It is computed only where it can change the
/// location a head takes: a write whose allocation term outweighs any content term, and a read
/// whose link term outweighs every other, take their location without it, bit for bit as if it
/// had been computed (docs/DESIGN.md, "DNC+is+ha without the scan").
#[derive(Debug, Clone)]
pub struct DncMemory<D> {
    word: usize,
    control: Vec<f32>,
    /// `|M[i]|` of each row ([`norm`]).
    norms: Vec<f32>,
    /// Rows whose squared norm is not at most [`BOUNDED`].
    unbounded: usize,
    data: Vec<D>,
    usage: Vec<f32>,
    /// The locations whose usage is exactly 0.
    unused: BTreeSet<u32>,
    /// Compute every content weighting (to check that skipping them changes nothing).
    scan_always: bool,
    /// Content weightings skipped since the last reset.
    skipped: u64,
    /// `next[j] = i` iff `L[i, j] = 1`: i was written right after j.
    next: Vec<u32>,
    /// `prev[i] = j` iff `L[i, j] = 1`.
    prev: Vec<u32>,
    /// The precedence weighting p_{t−1}, one-hot at the last written location, and w^w_{t−1}.
    last_write: u32,
    read: Vec<u32>,
    sources: Vec<ReadSource>,
    weights: Vec<f32>,
    allocation: Vec<f32>,
    order: Vec<u32>,
    read_prev: Vec<Option<usize>>,
}

impl<D: Clone + Default> DncMemory<D> {
    /// An empty memory: one location, never written.
    pub fn new(c: &Config) -> Self {
        let mut m = DncMemory {
            word: c.word,
            control: Vec::new(),
            norms: Vec::new(),
            unbounded: 0,
            data: Vec::new(),
            usage: Vec::new(),
            unused: BTreeSet::new(),
            scan_always: false,
            skipped: 0,
            next: Vec::new(),
            prev: Vec::new(),
            last_write: NONE,
            read: vec![NONE; c.read_heads],
            sources: vec![ReadSource::Content; c.read_heads],
            weights: Vec::new(),
            allocation: Vec::new(),
            order: Vec::new(),
            read_prev: vec![None; c.read_heads],
        };
        m.reset();
        m
    }

    /// Back to one never-written location, keeping the allocations.
    pub fn reset(&mut self) {
        self.control.clear();
        self.norms.clear();
        self.unbounded = 0;
        self.data.clear();
        self.usage.clear();
        self.unused.clear();
        self.skipped = 0;
        self.next.clear();
        self.prev.clear();
        self.push_location();
        self.last_write = NONE;
        self.read.fill(NONE);
    }

    fn push_location(&mut self) {
        self.control.extend(std::iter::repeat_n(0.0, self.word));
        self.norms.push(0.0);
        self.unused.insert(self.usage.len() as u32);
        self.data.push(D::default());
        self.usage.push(0.0);
        self.next.push(NONE);
        self.prev.push(NONE);
    }

    /// The same memory computing every content weighting, as the DNC's formulas read; only
    /// [`DncMemory::skipped_scans`] tells the two apart.
    pub fn scanning_always(mut self) -> Self {
        self.scan_always = true;
        self
    }
    /// Content weightings skipped since the last reset because they could not change a location.
    pub fn skipped_scans(&self) -> u64 {
        self.skipped
    }

    /// N: locations written at least once, plus the one never written.
    pub fn len(&self) -> usize {
        self.usage.len()
    }
    pub fn is_empty(&self) -> bool {
        self.usage.is_empty()
    }
    pub fn usage(&self) -> &[f32] {
        &self.usage
    }
    pub fn control(&self, loc: usize) -> &[f32] {
        &self.control[loc * self.word..(loc + 1) * self.word]
    }
    pub fn data(&self, loc: usize) -> &D {
        &self.data[loc]
    }
    /// The location written right after `loc` (`L[·, loc]`), if any.
    pub fn successor(&self, loc: usize) -> Option<usize> {
        (self.next[loc] != NONE).then_some(self.next[loc] as usize)
    }
    /// The location written right before `loc` (`L[loc, ·]`), if any.
    pub fn predecessor(&self, loc: usize) -> Option<usize> {
        (self.prev[loc] != NONE).then_some(self.prev[loc] as usize)
    }
    /// Which read mode placed read head j this step.
    pub fn read_source(&self, j: usize) -> ReadSource {
        self.sources[j]
    }

    /// One step in the DNC's order: usage, allocation, write weighting, write, links, reads.
    pub fn step(&mut self, d_i: &D, dec: &DncDecision) {
        let n = self.len();
        for (p, &r) in self.read_prev.iter_mut().zip(&self.read) {
            *p = (r != NONE).then_some(r as usize);
        }
        let written = (self.last_write != NONE).then_some(self.last_write as usize);
        update_usage(&mut self.usage, written, &self.read_prev, &dec.free_gates);
        for j in 0..self.read_prev.len() {
            if let Some(r) = self.read_prev[j] {
                self.note_usage(r);
            }
        }
        if let Some(w) = written {
            self.note_usage(w);
        }

        let k = match self.write_by_allocation(dec) {
            Some(k) => {
                self.skipped += 1;
                k
            }
            None => {
                // Write weighting w^w = g^w (g^a a + (1 − g^a) c^w) (Methods, "Write weighting"),
                // then the one location it weighs most (ties to the lowest).
                self.allocation.resize(n, 0.0);
                allocation_weighting(&self.usage, &mut self.allocation, &mut self.order);
                self.weights.resize(n, 0.0);
                content_weighting_normed(
                    &self.control,
                    &self.norms,
                    &dec.write_key,
                    dec.write_strength,
                    &mut self.weights,
                );
                let (ga, gw) = (dec.allocation_gate, dec.write_gate);
                for (w, a) in self.weights.iter_mut().zip(&self.allocation) {
                    *w = gw * (ga * a + (1.0 - ga) * *w);
                }
                crate::policy::argmax(&self.weights)
            }
        };
        self.write_at(k, d_i, dec);
        self.link(k);
        self.last_write = k as u32;
        if k == n - 1 {
            self.push_location();
        }
        self.read_heads(dec);
    }

    /// Keeps [`DncMemory::unused`] in step with the usage of `loc`.
    fn note_usage(&mut self, loc: usize) {
        if self.usage[loc] == 0.0 {
            self.unused.insert(loc as u32);
        } else {
            self.unused.remove(&(loc as u32));
        }
    }

    /// Whether the content weighting with `key` and `strength` is free of NaN and infinities:
    /// every row's and the key's squared norm at most [`BOUNDED`], the strength finite.
    fn content_is_finite(&self, key: &[f32], strength: f32) -> bool {
        !self.scan_always && self.unbounded == 0 && strength.abs() <= BOUNDED && dot(key, key) <= BOUNDED
    }

    /// The write location when the allocation term decides it alone. The allocation weighting is
    /// one-hot at the lowest unused location z, so `w^w[z] ≥ g^w g^a` and every other
    /// `w^w[i] ≤ g^w (1 − g^a)` (c^w ∈ [0, 1], rounding is monotone): if the first bound is
    /// larger, z is the argmax whatever c^w is.
    fn write_by_allocation(&self, dec: &DncDecision) -> Option<usize> {
        let z = *self.unused.first()? as usize;
        let (ga, gw) = (dec.allocation_gate, dec.write_gate);
        let gates = (0.0..=1.0).contains(&ga) && (0.0..=1.0).contains(&gw);
        let decided = gates && gw * ga > gw * (1.0 - ga);
        (decided && self.content_is_finite(&dec.write_key, dec.write_strength)).then_some(z)
    }

    /// `M_t = M_{t−1} ∘ (E − w^w e^⊤) + w^w v^⊤` (Methods, "Writing") with w^w one-hot at `k`,
    /// and the data word d_i written to `M_d` at the same location (+is).
    fn write_at(&mut self, k: usize, d_i: &D, dec: &DncDecision) {
        let c = self.word;
        let row = &mut self.control[k * c..(k + 1) * c];
        for ((m, e), v) in row.iter_mut().zip(&dec.erase).zip(&dec.write) {
            *m = *m * (1.0 - e) + v;
        }
        let bounded = |n: f32| n * n <= BOUNDED;
        let old = bounded(self.norms[k]);
        self.norms[k] = norm(row);
        match (old, bounded(self.norms[k])) {
            (true, false) => self.unbounded += 1,
            (false, true) => self.unbounded -= 1,
            _ => {}
        }
        self.data[k] = d_i.clone();
    }

    /// Temporal links `L_t[i, j] = (1 − w^w[i] − w^w[j]) L_{t−1}[i, j] + w^w[i] p_{t−1}[j]`,
    /// `L_t[i, i] = 0`, and precedence `p_t = (1 − Σ w^w) p_{t−1} + w^w` (Methods, "Temporal
    /// memory linkage"), for w^w one-hot at `k`: row k and column k are cleared, then
    /// `L[k, p_{t−1}] = 1`; p_t is one-hot at k.
    fn link(&mut self, k: usize) {
        let (n, p) = (self.next[k], self.prev[k]);
        if n != NONE {
            self.prev[n as usize] = NONE;
        }
        if p != NONE {
            self.next[p as usize] = NONE;
        }
        self.next[k] = NONE;
        self.prev[k] = NONE;
        let last = self.last_write;
        if last != NONE && last as usize != k {
            self.prev[k] = last;
            self.next[last as usize] = k as u32;
        }
    }

    /// Read weightings `w^{r,i} = π^i[1] b^i + π^i[2] c^{r,i} + π^i[3] f^i` with
    /// `f^i = L_t w^{r,i}_{t−1}`, `b^i = L_t^⊤ w^{r,i}_{t−1}` (Methods, "Temporal memory linkage",
    /// "Read weighting") and `c^{r,i} = C(M_t, k^{r,i}, β^{r,i})`; each head then reads the one
    /// location its weighting is largest at (ties to the lowest): `r^i = M_t^⊤ w^{r,i}` is that
    /// location's word.
    fn read_heads(&mut self, dec: &DncDecision) {
        let (n, c) = (self.len(), self.word);
        self.weights.resize(n, 0.0);
        for j in 0..self.read.len() {
            let here = self.read_prev[j];
            let forward = here.map_or(NONE, |r| self.next[r]);
            let backward = here.map_or(NONE, |r| self.prev[r]);
            let key = &dec.read_keys[j * c..(j + 1) * c];
            if let Some((r, source)) = self.read_by_link(dec, j, key, forward, backward) {
                self.skipped += 1;
                self.read[j] = r;
                self.sources[j] = source;
                continue;
            }
            content_weighting_normed(
                &self.control,
                &self.norms,
                key,
                dec.read_strengths[j],
                &mut self.weights,
            );
            let [pb, pc, pf] = dec.read_modes[j];
            self.weights.iter_mut().for_each(|w| *w *= pc);
            if backward != NONE {
                self.weights[backward as usize] += pb;
            }
            if forward != NONE {
                self.weights[forward as usize] += pf;
            }
            let r = crate::policy::argmax(&self.weights);
            self.read[j] = r as u32;
            let b = if r as u32 == backward { pb } else { 0.0 };
            let f = if r as u32 == forward { pf } else { 0.0 };
            let c = self.weights[r] - b - f;
            self.sources[j] = if b > c && b >= f {
                ReadSource::Backward
            } else if f > c && f > b {
                ReadSource::Forward
            } else {
                ReadSource::Content
            };
        }
    }

    /// Read head j's location and source when one link term decides them alone. With the content
    /// weighting in [0, 1] and rounding monotone, the forward location weighs at least π_f, the
    /// backward one at most π_c + π_b and every other at most π_c; if π_f is larger than both,
    /// the forward location is the argmax, and its content part, at most (π_c + π_f) − π_f, is
    /// below π_f, so the source is forward. The same with the roles swapped for backward.
    fn read_by_link(
        &self,
        dec: &DncDecision,
        j: usize,
        key: &[f32],
        forward: u32,
        backward: u32,
    ) -> Option<(u32, ReadSource)> {
        let [pb, pc, pf] = dec.read_modes[j];
        if forward == backward || ![pb, pc, pf].iter().all(|p| (0.0..=1.0).contains(p)) {
            return None;
        }
        let wins = |p: f32, other: u32, q: f32| {
            let rival = if other == NONE { pc } else { pc + q };
            p > rival && p > (pc + p) - p
        };
        let (r, source) = if forward != NONE && wins(pf, backward, pb) {
            (forward, ReadSource::Forward)
        } else if backward != NONE && wins(pb, forward, pf) {
            (backward, ReadSource::Backward)
        } else {
            return None;
        };
        self.content_is_finite(key, dec.read_strengths[j]).then_some((r, source))
    }

    /// Location read by head j this step.
    pub fn read_location(&self, j: usize) -> usize {
        if self.read[j] == NONE { 0 } else { self.read[j] as usize }
    }
    /// Control word read by head j this step (r^i).
    pub fn read_control(&self, j: usize) -> &[f32] {
        self.control(self.read_location(j))
    }
    /// Data word read by head j this step.
    pub fn read_data(&self, j: usize) -> &D {
        &self.data[self.read_location(j)]
    }
}

impl<D: Clone + Default> MemoryModule<D> for DncMemory<D> {
    type Decision = DncDecision;
    fn fresh(&self) -> DncDecision {
        DncDecision::new(self.word, self.read.len())
    }
    fn refresh(&self, d: &mut DncDecision) {
        d.clear();
    }
    fn reset(&mut self) {
        DncMemory::reset(self);
    }
    fn step(&mut self, d_i: &D, decision: &DncDecision) {
        DncMemory::step(self, d_i, decision);
    }
    fn read_control(&self, j: usize) -> &[f32] {
        DncMemory::read_control(self, j)
    }
    fn read_data(&self, j: usize) -> &D {
        DncMemory::read_data(self, j)
    }
    fn read_location(&self, j: usize) -> usize {
        DncMemory::read_location(self, j)
    }
    fn written_location(&self, _i: usize) -> usize {
        self.last_write as usize
    }
    fn read_note(&self, j: usize) -> &'static str {
        self.sources[j].name()
    }
}
