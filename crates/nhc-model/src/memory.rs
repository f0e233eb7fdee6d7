//! The Memory module (MODEL §2 step 4, §3): two coupled memories `M_c` (control words) and `M_d`
//! (data words), hard heads kept as indices, lowest-free allocation, temporal and ancestry
//! linkage, the previous-update head and the free gates.
//!
//! Every operation touches O(heads) locations; nothing scans the memory. The one exception is a
//! free that re-attaches a location's ancestry children to its parent: it costs O(children).

use crate::config::{Config, FreeWrite, Links, MissingLink, ReadMode};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// "No location" in the link arrays.
const NONE: u32 = u32::MAX;

/// What the memory interface decided for one step (MODEL §2 step 3).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryDecision {
    /// Write vectors v, `h_w × C`.
    pub write: Vec<f32>,
    /// Previous-write vectors v̂, `h_r × C`.
    pub prev_write: Vec<f32>,
    /// Previous-erase vectors ê ∈ (0,1), `h_r × C`.
    pub prev_erase: Vec<f32>,
    /// Previous-write gates ĝ, one per read head.
    pub prev_gate: Vec<bool>,
    /// Read mode of each read head.
    pub read_modes: Vec<ReadMode>,
    /// Write free gates f_w, one per write head.
    pub free_write: Vec<bool>,
    /// Read free gates f_r, one per read head.
    pub free_read: Vec<bool>,
}

/// A memory module as the machine sees it (MODEL §2 step 4): each step it takes the data word
/// d_i and one decision of the memory interface, then is read out per head. The NHC's
/// [`Memory`] is one; another memory (the DNC's) plugs into the same
/// [`Machine`](crate::Machine) and the same scoring.
pub trait MemoryModule<D> {
    /// What the memory interface decides each step.
    type Decision;
    /// The decision every step starts from.
    fn fresh(&self) -> Self::Decision;
    /// Resets `d` to [`MemoryModule::fresh`] without reallocating.
    fn refresh(&self, d: &mut Self::Decision);
    /// Empties the memory, keeping its allocations.
    fn reset(&mut self);
    /// One memory step: write d_i, move the read heads.
    fn step(&mut self, d_i: &D, decision: &Self::Decision);
    /// Control word read by head j this step (`c_m_j`).
    fn read_control(&self, j: usize) -> &[f32];
    /// Data word read by head j this step (`d_m_j`).
    fn read_data(&self, j: usize) -> &D;
    /// Location read by head j this step.
    fn read_location(&self, j: usize) -> usize;
    /// Location written by write head i this step.
    fn written_location(&self, i: usize) -> usize;
    /// A note on how head j got to its location this step, for traces (none by default).
    fn read_note(&self, _j: usize) -> &'static str {
        ""
    }
}

impl MemoryDecision {
    /// Back to [`MemoryDecision::new`], keeping the allocations.
    pub fn clear(&mut self) {
        self.write.fill(0.0);
        self.prev_write.fill(0.0);
        self.prev_erase.fill(0.0);
        self.prev_gate.fill(false);
        for (j, m) in self.read_modes.iter_mut().enumerate() {
            *m = ReadMode::Halt(j);
        }
        self.free_write.fill(false);
        self.free_read.fill(false);
    }

    /// A decision that writes zeros, updates nothing, reads with H (stay) and frees nothing.
    pub fn new(c: &Config) -> Self {
        Self::sized(c.write_heads, c.read_heads, c.word)
    }

    fn sized(write_heads: usize, read_heads: usize, word: usize) -> Self {
        MemoryDecision {
            write: vec![0.0; write_heads * word],
            prev_write: vec![0.0; read_heads * word],
            prev_erase: vec![0.0; read_heads * word],
            prev_gate: vec![false; read_heads],
            read_modes: (0..read_heads).map(ReadMode::Halt).collect(),
            free_write: vec![false; write_heads],
            free_read: vec![false; read_heads],
        }
    }
}

/// Links of one ancestry tree (one per write head i and read head j).
#[derive(Debug, Clone, Default)]
struct Tree {
    parent: Vec<u32>,
    /// Newest child.
    kid: Vec<u32>,
    /// Next older / newer sibling in the parent's child list (sorted newest first).
    older: Vec<u32>,
    newer: Vec<u32>,
}

impl Tree {
    fn push(&mut self) {
        self.parent.push(NONE);
        self.kid.push(NONE);
        self.older.push(NONE);
        self.newer.push(NONE);
    }

    /// `x` becomes the newest child of `p`.
    fn adopt_newest(&mut self, p: u32, x: u32) {
        let (pu, xu) = (p as usize, x as usize);
        self.parent[xu] = p;
        self.newer[xu] = NONE;
        self.older[xu] = self.kid[pu];
        if self.kid[pu] != NONE {
            self.newer[self.kid[pu] as usize] = x;
        }
        self.kid[pu] = x;
    }

    /// Removes `x` from its parent's child list; `x` keeps its parent pointer.
    fn detach(&mut self, x: u32) {
        let xu = x as usize;
        let p = self.parent[xu];
        if p == NONE {
            return;
        }
        let (o, n) = (self.older[xu], self.newer[xu]);
        if n != NONE {
            self.older[n as usize] = o;
        } else {
            self.kid[p as usize] = o;
        }
        if o != NONE {
            self.newer[o as usize] = n;
        }
        self.older[xu] = NONE;
        self.newer[xu] = NONE;
    }

    /// Removes `x` from its parent's child list if it is still in it (a location left linked by
    /// [`FreeWrite::Unmarked`] and now reused).
    fn detach_if_listed(&mut self, x: u32) {
        let p = self.parent[x as usize];
        if p != NONE && (self.kid[p as usize] == x || self.newer[x as usize] != NONE) {
            self.detach(x);
        }
    }

    /// Frees `x`: it leaves its parent's child list and its children move to its parent
    /// (or become roots), merged newest first by write stamp.
    fn unlink(&mut self, x: u32, stamp: &[u64]) {
        self.detach(x);
        let p = self.parent[x as usize];
        let mut b = std::mem::replace(&mut self.kid[x as usize], NONE);
        if p == NONE {
            while b != NONE {
                let next = self.older[b as usize];
                self.parent[b as usize] = NONE;
                self.older[b as usize] = NONE;
                self.newer[b as usize] = NONE;
                b = next;
            }
            return;
        }
        if b == NONE {
            return;
        }
        // Merge x's children into p's list; once they run out, p's older children stay as they are.
        let mut a = self.kid[p as usize];
        let (mut head, mut last) = (NONE, NONE);
        while b != NONE {
            let pick = if a != NONE && stamp[a as usize] > stamp[b as usize] {
                let x = a;
                a = self.older[x as usize];
                x
            } else {
                let x = b;
                b = self.older[x as usize];
                self.parent[x as usize] = p;
                x
            };
            self.newer[pick as usize] = last;
            if last == NONE {
                head = pick;
            } else {
                self.older[last as usize] = pick;
            }
            last = pick;
        }
        self.older[last as usize] = a;
        if a != NONE {
            self.newer[a as usize] = last;
        }
        self.kid[p as usize] = head;
    }
}

/// The Memory module: `M_c` (N × C) and `M_d` (N data words), with N growing as needed.
#[derive(Debug, Clone)]
pub struct Memory<D> {
    word: usize,
    write_heads: usize,
    read_heads: usize,
    control: Vec<f32>,
    data: Vec<D>,
    used: Vec<bool>,
    /// Unused locations below the high-water mark, lowest first.
    free: BinaryHeap<Reverse<u32>>,
    /// Write time of each location (for the C mode and for merging child lists).
    stamp: Vec<u64>,
    /// Write head that last wrote each location.
    writer: Vec<u8>,
    links: Links,
    free_write: FreeWrite,
    missing_link: MissingLink,
    next: Vec<Vec<u32>>,
    prev: Vec<Vec<u32>>,
    /// Last location of each write head's list still in use.
    tail: Vec<u32>,
    /// Ancestry trees, index `i * h_r + j`; empty without ancestry linkage.
    trees: Vec<Tree>,
    read_prev: Vec<u32>,
    read_now: Vec<u32>,
    /// Bit j: read head j read nothing ([`MissingLink::Empty`]), beside `read_prev`/`read_now`
    /// (at most [`crate::config::MAX_READ_HEADS`] heads).
    empty_prev: u8,
    empty_now: u8,
    /// What an empty read reads: the zero control word and the empty data word.
    zero_word: Vec<f32>,
    empty_data: D,
    written: Vec<u32>,
    clock: u64,
}

/// Bytes one location of [`Memory`] takes for `config` and data words of `data_bytes`: the
/// control word, the data word, flags, write stamp, temporal links per write head, ancestry links
/// per tree and its place in the free list. For estimating a run's memory before it starts.
pub fn bytes_per_location(config: &Config, data_bytes: usize) -> u64 {
    let trees = if config.ancestry { config.write_heads * config.read_heads } else { 0 };
    (config.word * 4 + data_bytes + 1 + 8 + 1 + 2 * 4 * config.write_heads + 16 * trees + 4) as u64
}

impl<D: Clone + Default> Memory<D> {
    /// An empty memory; every read head's previous location is 0 (MODEL §3, "Initial state").
    pub fn new(c: &Config) -> Self {
        assert!(c.write_heads >= 1 && c.write_heads <= u8::MAX as usize);
        assert!(c.read_heads <= crate::config::MAX_READ_HEADS, "one bit per read head in `empty_*`");
        let trees = if c.ancestry { c.write_heads * c.read_heads } else { 0 };
        Memory {
            word: c.word,
            write_heads: c.write_heads,
            read_heads: c.read_heads,
            control: Vec::new(),
            data: Vec::new(),
            used: Vec::new(),
            free: BinaryHeap::new(),
            stamp: Vec::new(),
            writer: Vec::new(),
            links: c.links,
            free_write: c.free_write,
            missing_link: c.missing_link,
            next: vec![Vec::new(); c.write_heads],
            prev: vec![Vec::new(); c.write_heads],
            tail: vec![NONE; c.write_heads],
            trees: vec![Tree::default(); trees],
            read_prev: vec![0; c.read_heads],
            read_now: vec![0; c.read_heads],
            empty_prev: 0,
            empty_now: 0,
            zero_word: vec![0.0; c.word],
            empty_data: D::default(),
            written: vec![0; c.write_heads],
            clock: 0,
        }
    }

    /// Empties the memory, keeping its allocations.
    pub fn reset(&mut self) {
        self.control.clear();
        self.data.clear();
        self.used.clear();
        self.free.clear();
        self.stamp.clear();
        self.writer.clear();
        for i in 0..self.write_heads {
            self.next[i].clear();
            self.prev[i].clear();
            self.tail[i] = NONE;
        }
        for t in &mut self.trees {
            t.parent.clear();
            t.kid.clear();
            t.older.clear();
            t.newer.clear();
        }
        self.read_prev.fill(0);
        self.read_now.fill(0);
        self.empty_prev = 0;
        self.empty_now = 0;
        self.written.fill(0);
        self.clock = 0;
    }

    /// One memory step in the order of MODEL §2 step 4: previous update, write, read, then the
    /// free gates.
    pub fn step(&mut self, d_i: &D, dec: &MemoryDecision) {
        self.previous_update(dec);
        self.write(d_i, dec);
        self.read(dec);
        self.apply_free_gates(dec);
        std::mem::swap(&mut self.read_prev, &mut self.read_now);
        self.empty_prev = self.empty_now;
    }

    /// `M_c[r] ← M_c[r] ∘ (1 − ê_j) + v̂_j` at each read head's previous location where ĝ_j = 1
    /// (MODEL §2 step 4a). Nothing happens before the first write, or where the head read nothing.
    fn previous_update(&mut self, dec: &MemoryDecision) {
        let c = self.word;
        for j in 0..self.read_heads {
            let r = self.read_prev[j] as usize;
            if !dec.prev_gate[j] || r >= self.used.len() || self.read_nothing(j) {
                continue;
            }
            let word = &mut self.control[r * c..(r + 1) * c];
            let (v, e) = (&dec.prev_write[j * c..(j + 1) * c], &dec.prev_erase[j * c..(j + 1) * c]);
            for k in 0..c {
                word[k] = word[k] * (1.0 - e[k]) + v[k];
            }
        }
    }

    /// Lowest-index unused location (MODEL §3, "Allocation").
    fn allocate(&mut self) -> u32 {
        if let Some(Reverse(loc)) = self.free.pop() {
            return loc;
        }
        let loc = self.used.len() as u32;
        self.control.extend(std::iter::repeat_n(0.0, self.word));
        self.data.push(D::default());
        self.used.push(false);
        self.stamp.push(0);
        self.writer.push(0);
        for i in 0..self.write_heads {
            self.next[i].push(NONE);
            self.prev[i].push(NONE);
        }
        for t in &mut self.trees {
            t.push();
        }
        loc
    }

    /// Each write head writes `v_i` to `M_c` and `d_i` to `M_d` at one fresh location, links it
    /// after its temporal tail and under each read head's previous location (MODEL §2 step 4b).
    fn write(&mut self, d_i: &D, dec: &MemoryDecision) {
        let c = self.word;
        let mut from = [NONE; crate::config::MAX_WRITE_HEADS];
        for (i, f) in from.iter_mut().enumerate().take(self.write_heads) {
            *f = self.link_source(i);
        }
        for (i, &source) in from.iter().enumerate().take(self.write_heads) {
            let w = self.allocate();
            let wu = w as usize;
            self.written[i] = w;
            self.used[wu] = true;
            self.clock += 1;
            self.stamp[wu] = self.clock;
            self.writer[wu] = i as u8;
            self.control[wu * c..(wu + 1) * c].copy_from_slice(&dec.write[i * c..(i + 1) * c]);
            self.data[wu] = d_i.clone();
            self.link(i, w, source);
            // A reused location may still hold links in any head's trees (e.g. its parent); only
            // under `FreeWrite::Unmarked` can it still be its parent's child.
            let listed = self.free_write == FreeWrite::Unmarked;
            for t in &mut self.trees {
                if listed {
                    t.detach_if_listed(w);
                }
                t.parent[wu] = NONE;
                t.kid[wu] = NONE;
                t.older[wu] = NONE;
                t.newer[wu] = NONE;
            }
            for j in 0..self.read_heads {
                let Some(t) = self.trees.get_mut(i * self.read_heads + j) else {
                    break;
                };
                let r = self.read_prev[j];
                if r != w
                    && (r as usize) < self.used.len()
                    && self.used[r as usize]
                    && self.empty_prev & (1 << j) == 0
                {
                    t.adopt_newest(r, w);
                }
            }
        }
    }

    /// The location head i's next write links from ([`Links`]), as the step starts.
    fn link_source(&self, i: usize) -> u32 {
        // The location head i wrote at t−1, in use or not; none before the first write.
        let last = if self.clock == 0 { NONE } else { self.written[i] };
        match self.links {
            Links::Tail => self.tail[i],
            Links::Formula => last,
            Links::Removed if last != NONE && self.used[last as usize] => last,
            Links::Removed => NONE,
        }
    }

    /// Joins `w`, just written by head i, to head i's temporal list after `from`.
    fn link(&mut self, i: usize, w: u32, from: u32) {
        let wu = w as usize;
        if self.links != Links::Formula {
            for h in 0..self.write_heads {
                self.next[h][wu] = NONE;
                self.prev[h][wu] = NONE;
            }
        }
        if from != NONE {
            self.next[i][from as usize] = w;
        }
        self.prev[i][wu] = from;
        self.tail[i] = w;
    }

    /// Moves each read head by its mode; a missing link leaves it in place, reading that location
    /// again or nothing ([`MissingLink`], MODEL §3).
    fn read(&mut self, dec: &MemoryDecision) {
        self.empty_now = 0;
        for j in 0..self.read_heads {
            let here = self.read_prev[j];
            let target = match dec.read_modes[j] {
                ReadMode::Halt(k) => self.read_prev[k],
                ReadMode::Forward(i) => self.next[i][here as usize],
                ReadMode::Backward(i) => self.prev[i][here as usize],
                ReadMode::Parent(i) => self.tree(i, j).map_or(NONE, |t| t.parent[here as usize]),
                ReadMode::Child(i) => self.tree(i, j).map_or(NONE, |t| t.kid[here as usize]),
            };
            self.read_now[j] = if target == NONE { here } else { target };
            if target == NONE && self.missing_link == MissingLink::Empty {
                self.empty_now |= 1 << j;
            }
        }
    }

    fn tree(&self, i: usize, j: usize) -> Option<&Tree> {
        self.trees.get(i * self.read_heads + j)
    }

    /// Frees the written locations with f_w = 1 ([`FreeWrite`]: released, or only left unmarked)
    /// and the read locations with f_r = 1.
    fn apply_free_gates(&mut self, dec: &MemoryDecision) {
        for i in 0..self.write_heads {
            if dec.free_write[i] {
                match self.free_write {
                    FreeWrite::Release => self.release(self.written[i]),
                    FreeWrite::Unmarked => self.unmark(self.written[i]),
                }
            }
        }
        for j in 0..self.read_heads {
            if dec.free_read[j] && self.empty_now & (1 << j) == 0 {
                self.release(self.read_now[j]);
            }
        }
    }

    /// Marks `x`, just written by its head, unused and leaves its links alone: the next write
    /// may take it (MODEL §3, `FreeWrite::Unmarked`). Under `Links::Tail` the head's tail, the
    /// last location in use, moves back to `x`'s predecessor, so the next write links from there.
    fn unmark(&mut self, x: u32) {
        let Some(i) = self.mark_unused(x) else {
            return;
        };
        if self.links == Links::Tail && self.tail[i] == x {
            self.tail[i] = self.prev[i][x as usize];
        }
    }

    /// Marks `x` unused and returns its writer, or `None` if it was unused already.
    fn mark_unused(&mut self, x: u32) -> Option<usize> {
        let xu = x as usize;
        if !self.used[xu] {
            return None;
        }
        self.used[xu] = false;
        self.free.push(Reverse(x));
        Some(self.writer[xu] as usize)
    }

    /// Marks `x` unused and unlinks it: its temporal neighbours join up, its ancestry children
    /// move to its parent. `x` keeps its own outgoing links until it is written again.
    fn release(&mut self, x: u32) {
        let Some(i) = self.mark_unused(x) else {
            return;
        };
        let xu = x as usize;
        let (p, n) = (self.prev[i][xu], self.next[i][xu]);
        // Under `Links::Formula` a neighbour's link may already point elsewhere (or be a
        // self-link): only links that still lead to `x` are rejoined.
        if p != NONE && p != x && self.next[i][p as usize] == x {
            self.next[i][p as usize] = n;
        }
        if n != NONE && n != x && self.prev[i][n as usize] == x {
            self.prev[i][n as usize] = p;
        }
        if self.tail[i] == x {
            self.tail[i] = if p == x { NONE } else { p };
        }
        // `x` is a child only in its writer's trees, but a parent in any head's trees.
        for t in &mut self.trees {
            t.unlink(x, &self.stamp);
        }
    }

    // ---- read-out ----

    /// Whether read head j read nothing this step ([`MissingLink::Empty`]).
    pub fn read_nothing(&self, j: usize) -> bool {
        self.empty_prev & (1 << j) != 0
    }
    /// Control word read by head j this step (`c_m_j`).
    pub fn read_control(&self, j: usize) -> &[f32] {
        if self.read_nothing(j) {
            return &self.zero_word;
        }
        let r = self.read_prev[j] as usize;
        &self.control[r * self.word..(r + 1) * self.word]
    }
    /// Data word read by head j this step (`d_m_j`).
    pub fn read_data(&self, j: usize) -> &D {
        if self.read_nothing(j) {
            return &self.empty_data;
        }
        &self.data[self.read_prev[j] as usize]
    }
    /// Location read by head j in the last step.
    pub fn read_location(&self, j: usize) -> usize {
        self.read_prev[j] as usize
    }
    /// Location written by head i in the last step.
    pub fn written_location(&self, i: usize) -> usize {
        self.written[i] as usize
    }
    /// Locations ever allocated (the high-water mark N).
    pub fn len(&self) -> usize {
        self.used.len()
    }
    pub fn is_empty(&self) -> bool {
        self.used.is_empty()
    }
    /// Locations in use.
    pub fn in_use(&self) -> usize {
        self.used.len() - self.free.len()
    }
    pub fn is_used(&self, loc: usize) -> bool {
        self.used.get(loc).copied().unwrap_or(false)
    }
    pub fn control(&self, loc: usize) -> &[f32] {
        &self.control[loc * self.word..(loc + 1) * self.word]
    }
    pub fn data(&self, loc: usize) -> &D {
        &self.data[loc]
    }
    fn opt(x: u32) -> Option<usize> {
        (x != NONE).then_some(x as usize)
    }
    /// Temporal successor of `loc` in write head i's list.
    pub fn successor(&self, i: usize, loc: usize) -> Option<usize> {
        Self::opt(self.next[i][loc])
    }
    /// Temporal predecessor of `loc` in write head i's list.
    pub fn predecessor(&self, i: usize, loc: usize) -> Option<usize> {
        Self::opt(self.prev[i][loc])
    }
    /// Ancestry parent of `loc` in tree (write head i, read head j).
    pub fn parent(&self, i: usize, j: usize, loc: usize) -> Option<usize> {
        self.tree(i, j).and_then(|t| Self::opt(t.parent[loc]))
    }
    /// Children of `loc` in tree (i, j), newest first.
    pub fn children(&self, i: usize, j: usize, loc: usize) -> Vec<usize> {
        let mut out = Vec::new();
        if let Some(t) = self.tree(i, j) {
            let mut k = t.kid[loc];
            while k != NONE {
                out.push(k as usize);
                k = t.older[k as usize];
            }
        }
        out
    }
    /// Write head i's temporal list from its first to its last location: the chain of
    /// predecessors of its newest location in use, up to a location without one (or, under
    /// `Links::Formula`, up to a location already listed).
    pub fn temporal_list(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut seen = vec![false; self.used.len()];
        let mut k = self.tail[i];
        while k != NONE && !seen[k as usize] {
            seen[k as usize] = true;
            out.push(k as usize);
            k = self.prev[i][k as usize];
        }
        out.reverse();
        out
    }
}

impl<D: Clone + Default> MemoryModule<D> for Memory<D> {
    type Decision = MemoryDecision;
    fn fresh(&self) -> MemoryDecision {
        MemoryDecision::sized(self.write_heads, self.read_heads, self.word)
    }
    fn refresh(&self, d: &mut MemoryDecision) {
        d.clear();
    }
    fn reset(&mut self) {
        Memory::reset(self);
    }
    fn step(&mut self, d_i: &D, decision: &MemoryDecision) {
        Memory::step(self, d_i, decision);
    }
    fn read_control(&self, j: usize) -> &[f32] {
        Memory::read_control(self, j)
    }
    fn read_data(&self, j: usize) -> &D {
        Memory::read_data(self, j)
    }
    fn read_location(&self, j: usize) -> usize {
        Memory::read_location(self, j)
    }
    /// `empty` where head j's mode had no target and it read nothing ([`MissingLink::Empty`]).
    fn read_note(&self, j: usize) -> &'static str {
        if Memory::read_nothing(self, j) { "empty" } else { "" }
    }
    fn written_location(&self, i: usize) -> usize {
        Memory::written_location(self, i)
    }
}
