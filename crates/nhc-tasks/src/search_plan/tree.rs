//! The model's search tree: breadth-first search without duplicate elimination, in the order the
//! NHC writes nodes (MODEL §9).

use super::world::{OP_NOP, World, children};
use std::hash::Hash;

/// One problem: reach `goal` from `start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem<S> {
    pub start: S,
    pub goal: S,
}

/// The model's search tree (MODEL §9): nodes in the order they are written (the BFS queue), with
/// the parent each was produced from and the action that produced it. Node 0 is the start (its
/// own parent); node k is expanded in expansion k + 1.
#[derive(Debug, Clone)]
pub struct SearchTree<S> {
    pub states: Vec<S>,
    pub parent: Vec<usize>,
    pub action: Vec<usize>,
}

impl<S: Clone + Eq + Hash> SearchTree<S> {
    /// Expands nodes in queue order, applying every action (plus: every applicable one), until
    /// `stop(tree, child)` holds for a child just added, `max_expansions` nodes are expanded or
    /// the queue runs out. Returns the tree and the child `stop` held for.
    pub fn grow<W: World<State = S>>(
        world: &W,
        start: &S,
        plus: bool,
        max_expansions: usize,
        mut stop: impl FnMut(&Self, usize) -> bool,
    ) -> (Self, Option<usize>) {
        // Room for the first expansions' nodes (the verification's levels) without regrowing.
        let room = 4 * max_expansions.min(16) + 1;
        let mut tree = SearchTree {
            states: Vec::with_capacity(room),
            parent: Vec::with_capacity(room),
            action: Vec::with_capacity(room),
        };
        tree.states.push(start.clone());
        tree.parent.push(0);
        tree.action.push(OP_NOP);
        let mut node = 0;
        while node < max_expansions && node < tree.states.len() {
            let s = tree.states[node].clone();
            for (a, child) in children(world, &s, plus) {
                tree.states.push(child);
                tree.parent.push(node);
                tree.action.push(a);
                let child = tree.states.len() - 1;
                if stop(&tree, child) {
                    return (tree, Some(child));
                }
            }
            node += 1;
        }
        (tree, None)
    }

    /// The model's BFS on `problem` up to `max_expansions`: the tree and the node where the goal
    /// first appears (0 if it is the start).
    pub fn find<W: World<State = S>>(
        world: &W,
        problem: &Problem<S>,
        plus: bool,
        max_expansions: usize,
    ) -> (Self, Option<usize>) {
        if world.equal(&problem.start, &problem.goal) {
            let tree =
                SearchTree { states: vec![problem.start.clone()], parent: vec![0], action: vec![OP_NOP] };
            return (tree, Some(0));
        }
        Self::grow(world, &problem.start, plus, max_expansions, |t, c| {
            world.equal(&t.states[c], &problem.goal)
        })
    }

    /// The expansion (1-based) that produced node `c`; 0 for the start.
    pub fn expansion(&self, c: usize) -> usize {
        if c == 0 { 0 } else { self.parent[c] + 1 }
    }

    /// Actions from the start to node `c`.
    pub fn path(&self, mut c: usize) -> Vec<usize> {
        let mut out = Vec::new();
        while c != 0 {
            out.push(self.action[c]);
            c = self.parent[c];
        }
        out.reverse();
        out
    }
}
