//! A user's problems and printed plans: reading a start and a goal, checking they can be
//! solved, and showing a plan state by state.

use super::tree::{Problem, SearchTree};
use super::world::{ACTIONS, World};
use crate::InputError;
use serde_json::Value;
use std::collections::{HashSet, VecDeque};

/// Largest number of expansions a user's problem may need (4 · 10⁵ steps for search).
pub const MAX_INPUT_EXPANSIONS: usize = 100_000;
/// Largest number of states the reachability check visits.
pub const MAX_REACHABLE_STATES: usize = 1_000_000;

/// What a plain BFS with duplicate elimination found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Shortest number of actions.
    Distance(usize),
    Unreachable,
    /// More than the bound of states are reachable.
    TooLarge,
}

/// Shortest number of actions from `start` to `goal`, visiting at most `max_states` states.
pub fn distance<W: World>(world: &W, start: &W::State, goal: &W::State, max_states: usize) -> Reach {
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start.clone(), 0)]);
    while let Some((s, d)) = queue.pop_front() {
        if world.equal(&s, goal) {
            return Reach::Distance(d);
        }
        for a in 0..ACTIONS {
            let n = world.apply(&s, a);
            if seen.insert(n.clone()) {
                if seen.len() > max_states {
                    return Reach::TooLarge;
                }
                queue.push_back((n, d + 1));
            }
        }
    }
    Reach::Unreachable
}

/// `{"start": STATE, "goal": STATE}` with states in the world's form (sokoban: text maps,
/// docs/DESIGN.md); the goal must be reachable and found by the model's BFS within
/// [`MAX_INPUT_EXPANSIONS`].
pub fn parse_problem<W: World>(world: &W, v: &Value, plus: bool) -> Result<Problem<W::State>, InputError> {
    let obj = v.as_object().ok_or_else(|| {
        InputError::new(format!("expected {{\"start\": …, \"goal\": …}}, each {}", world.form()))
    })?;
    if let Some(k) = obj.keys().find(|k| *k != "start" && *k != "goal") {
        return Err(InputError::new(format!("unknown field `{k}`; expected `start` and `goal`")));
    }
    let state = |key: &str| -> Result<W::State, InputError> {
        let v = obj.get(key).ok_or_else(|| InputError::new(format!("`{key}` must be {}", world.form())))?;
        world.parse_state(v).map_err(|e| InputError::new(format!("`{key}`: {e}")))
    };
    let problem = Problem { start: state("start")?, goal: state("goal")? };
    check_problem(world, &problem, plus)?;
    Ok(problem)
}

/// Whether the model can be run on a user's problem: the goal is reachable from the start, and
/// the model's breadth-first search finds it within [`MAX_INPUT_EXPANSIONS`] expansions.
pub fn check_problem<W: World>(world: &W, problem: &Problem<W::State>, plus: bool) -> Result<(), InputError> {
    match distance(world, &problem.start, &problem.goal, MAX_REACHABLE_STATES) {
        Reach::Distance(_) => {}
        Reach::Unreachable => return Err(InputError::new("the goal cannot be reached from the start")),
        Reach::TooLarge => return Err(InputError::new("the world has too many states to check")),
    }
    if SearchTree::find(world, problem, plus, MAX_INPUT_EXPANSIONS).1.is_none() {
        return Err(InputError::new(format!(
            "the goal is too far: breadth-first search without duplicate elimination needs more than \
             {MAX_INPUT_EXPANSIONS} expansions"
        )));
    }
    Ok(())
}

/// A plan's actions by the world's names ([`World::action_names`]); `"?"` where no action joins
/// two output states.
pub fn action_names<W: World>(world: &W, actions: &[Option<usize>]) -> Vec<&'static str> {
    let names = world.action_names();
    actions.iter().map(|a| a.and_then(|k| names.get(k).copied()).unwrap_or("?")).collect()
}

/// States shown side by side in one block of [`plan_text`].
const STATES_PER_BLOCK: usize = 8;

/// A plan as text: its actions (the world's names, [`World::action_names`]), the states along it
/// (replayed from the start, at most `STATES_PER_BLOCK` side by side), and whether it ends at
/// the goal.
pub fn plan_text<W: World>(world: &W, p: &Problem<W::State>, actions: &[Option<usize>]) -> String {
    let names: Vec<&str> = action_names(world, actions);
    let mut out = if actions.is_empty() {
        "plan: no actions (the start is the goal)\n".to_string()
    } else {
        let n = actions.len();
        format!("plan: {} ({n} action{})\n", names.join(" "), if n == 1 { "" } else { "s" })
    };
    let mut states = vec![("start".to_string(), p.start.clone())];
    for (k, a) in actions.iter().enumerate() {
        let Some(a) = *a else { break };
        let next = world.apply(&states[k].1, a);
        states.push((format!("{} {}", k + 1, names[k]), next));
    }
    for block in states.chunks(STATES_PER_BLOCK) {
        out.push('\n');
        // Each panel: its label, then the rows of its state.
        let panels: Vec<Vec<String>> =
            block.iter().map(|(l, b)| std::iter::once(l.clone()).chain(world.rows(b)).collect()).collect();
        let width = panels.iter().flatten().map(|r| r.chars().count()).max().unwrap_or(0);
        let lines = panels.iter().map(Vec::len).max().unwrap_or(0);
        for line in 0..lines {
            let cells: Vec<String> = panels
                .iter()
                .map(|p| format!("{:<width$}", p.get(line).map_or("", String::as_str)))
                .collect();
            out += cells.join("  ").trim_end();
            out.push('\n');
        }
    }
    let last = &states[states.len() - 1].1;
    out += if states.len() <= actions.len() {
        "\nstep with no action joining two output states: the replay stops there\n"
    } else if world.equal(last, &p.goal) {
        "\nthe plan reaches the goal\n"
    } else {
        "\nthe plan does not reach the goal\n"
    };
    out
}
