//! Block stacking, a transfer world of the search-and-plan family (MODEL §10): four positions,
//! at most three boxes a stack, and a gripper that holds at most one box. Action `i` (1–4, on
//! the Bus U R D L): with the gripper empty, pick the top box of stack `i` (nothing happens if
//! the stack is empty); holding a box, place it on stack `i` (nothing happens if the stack is
//! full).

use super::SearchPlan;
use super::world::{ACTIONS, World};
use crate::SampleRng;
use crate::words::ordinal;
use rand::RngExt;
use rand::seq::SliceRandom;
use serde_json::Value;
use std::fmt;

/// Positions (stacks); one action each.
pub const POSITIONS: usize = ACTIONS;
/// Most boxes a stack holds.
pub const HEIGHT: usize = 3;
/// Longest box label, in bytes of UTF-8.
pub const LABEL_BYTES: usize = 8;
/// The sampler's boxes: 3 to 5, labelled from `A`.
pub const MIN_BOXES: usize = 3;
pub const MAX_BOXES: usize = 5;

/// A box label stored in the state itself (so the data word carries everything, and its size
/// is `size_of`): up to [`LABEL_BYTES`] bytes of UTF-8, zero-padded; all zeros = no box.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Label([u8; LABEL_BYTES]);

impl Label {
    /// No box.
    pub const NONE: Label = Label([0; LABEL_BYTES]);

    /// A label: 1–[`LABEL_BYTES`] bytes, no whitespace or control characters, not `-` (the text
    /// form's "nothing").
    pub fn new(text: &str) -> Result<Label, String> {
        if text.is_empty() || text == "-" {
            return Err(format!("box label {text:?} is not allowed (give a non-empty label other than `-`)"));
        }
        if text.len() > LABEL_BYTES {
            return Err(format!("box label {text:?} is longer than {LABEL_BYTES} bytes"));
        }
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("box label {text:?} contains whitespace or a control character"));
        }
        let mut bytes = [0; LABEL_BYTES];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Ok(Label(bytes))
    }

    /// The `k`-th letter's label: `A`, `B`, … (the sampler's boxes).
    pub fn letter(k: usize) -> Label {
        let mut bytes = [0; LABEL_BYTES];
        bytes[0] = b'A' + (k % 26) as u8;
        Label(bytes)
    }

    pub fn is_none(&self) -> bool {
        *self == Label::NONE
    }

    /// The label's text (`-` for no box).
    pub fn as_str(&self) -> &str {
        let len = self.0.iter().position(|&b| b == 0).unwrap_or(LABEL_BYTES);
        match std::str::from_utf8(&self.0[..len]) {
            Ok("") => "-",
            Ok(s) => s,
            Err(_) => "?",
        }
    }
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A world state: four stacks, bottom first (slots above the top are [`Label::NONE`]), and
/// the box the gripper holds ([`Label::NONE`]: none).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Stacks {
    stacks: [[Label; HEIGHT]; POSITIONS],
    holding: Label,
}

impl fmt::Debug for Stacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.show())
    }
}

impl Stacks {
    /// The boxes of stack `i`, bottom first.
    pub fn stack(&self, i: usize) -> Vec<&str> {
        self.stacks[i].iter().take_while(|l| !l.is_none()).map(Label::as_str).collect()
    }

    /// The box in the gripper.
    pub fn holding(&self) -> Option<&str> {
        (!self.holding.is_none()).then(|| self.holding.as_str())
    }

    fn height(&self, i: usize) -> usize {
        self.stacks[i].iter().take_while(|l| !l.is_none()).count()
    }

    /// The state after action `action` (0..4 = positions 1–4): pick the top box of that stack
    /// with the gripper empty, place the box held on it otherwise; nothing happens when the
    /// stack is empty (pick) or full (place).
    pub fn moved(&self, action: usize) -> Self {
        if action >= POSITIONS {
            return *self;
        }
        let h = self.height(action);
        let mut next = *self;
        if self.holding.is_none() {
            if h == 0 {
                return *self;
            }
            next.holding = self.stacks[action][h - 1];
            next.stacks[action][h - 1] = Label::NONE;
        } else {
            if h == HEIGHT {
                return *self;
            }
            next.stacks[action][h] = self.holding;
            next.holding = Label::NONE;
        }
        next
    }

    /// Text rows: one per stack, `1: A B` (bottom first), then `holding: C` (`-`: nothing). The
    /// text form [`Stacks::parse_text`] reads.
    pub fn rows(&self) -> Vec<String> {
        let mut rows: Vec<String> = (0..POSITIONS)
            .map(|i| {
                std::iter::once(format!("{}:", i + 1)).chain(self.stack(i).into_iter().map(str::to_string))
            })
            .map(|words| words.collect::<Vec<_>>().join(" "))
            .collect();
        rows.push(format!("holding: {}", self.holding.as_str()));
        rows
    }

    /// One line for traces: the stacks (bottom first, `,` between boxes, `-` if empty) joined by
    /// `/`, then the box held (`-`: none) after `^`.
    pub fn show(&self) -> String {
        let stacks: Vec<String> = (0..POSITIONS)
            .map(|i| match self.stack(i) {
                s if s.is_empty() => "-".to_string(),
                s => s.join(","),
            })
            .collect();
        format!("{} ^{}", stacks.join("/"), self.holding.as_str())
    }

    /// A state from its boxes; checks sizes and that no label is used twice.
    fn build(stacks: &[Vec<Label>], holding: Label) -> Result<Self, String> {
        if stacks.len() != POSITIONS {
            return Err(format!("there must be {POSITIONS} stacks, got {}", stacks.len()));
        }
        let mut state = Stacks { holding, ..Stacks::default() };
        let mut seen: Vec<Label> = Vec::new();
        for (i, boxes) in stacks.iter().enumerate() {
            if boxes.len() > HEIGHT {
                return Err(format!(
                    "the {} stack has {} boxes; a stack holds at most {HEIGHT}",
                    ordinal(i),
                    boxes.len()
                ));
            }
            for (k, &label) in boxes.iter().enumerate() {
                if seen.contains(&label) {
                    return Err(format!("box {:?} appears twice", label.as_str()));
                }
                seen.push(label);
                state.stacks[i][k] = label;
            }
        }
        if !holding.is_none() && seen.contains(&holding) {
            return Err(format!("box {:?} appears twice (held and on a stack)", holding.as_str()));
        }
        Ok(state)
    }

    /// The JSON form `{"stacks": [["A", "B"], [], ["C"], []], "holding": null}`: four stacks,
    /// bottom first, of at most three labels each; `holding` a label or null (may be left out).
    pub fn parse_json(v: &Value) -> Result<Self, String> {
        let obj = v.as_object().ok_or("must be an object {\"stacks\": […], \"holding\": …}")?;
        if let Some(k) = obj.keys().find(|k| *k != "stacks" && *k != "holding") {
            return Err(format!("unknown field `{k}`; expected `stacks` and `holding`"));
        }
        let stacks = obj
            .get("stacks")
            .ok_or("`stacks` is missing")?
            .as_array()
            .ok_or(format!("`stacks` must be an array of {POSITIONS} arrays of box labels"))?;
        if stacks.len() != POSITIONS {
            return Err(format!("there must be {POSITIONS} stacks, got {}", stacks.len()));
        }
        let label = |b: &Value| -> Result<Label, String> {
            let text = b.as_str().ok_or_else(|| format!("a box label must be a string, got {b}"))?;
            Label::new(text)
        };
        let stacks: Vec<Vec<Label>> = stacks
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let boxes = s
                    .as_array()
                    .ok_or_else(|| format!("the {} stack must be an array of box labels", ordinal(i)))?;
                boxes.iter().map(label).collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, _>>()?;
        let holding = match obj.get("holding") {
            None | Some(Value::Null) => Label::NONE,
            Some(b) => label(b).map_err(|e| format!("`holding`: {e}"))?,
        };
        Self::build(&stacks, holding)
    }

    /// The text form of [`Stacks::rows`]: four lines `1: A B` … `4:` (bottom first, labels
    /// separated by spaces), optionally a fifth `holding: C` (`-` or left out: nothing held).
    pub fn parse_text(lines: &[&str]) -> Result<Self, String> {
        if !(POSITIONS..=POSITIONS + 1).contains(&lines.len()) {
            return Err(format!(
                "the text form has {POSITIONS} lines `1: A B` … and optionally `holding: C`, got {} lines",
                lines.len()
            ));
        }
        let mut stacks = Vec::new();
        for (i, line) in lines[..POSITIONS].iter().enumerate() {
            let rest = line
                .trim()
                .strip_prefix(&format!("{}:", i + 1))
                .ok_or_else(|| format!("the {} line must start with `{}:`", ordinal(i), i + 1))?;
            stacks.push(rest.split_whitespace().map(Label::new).collect::<Result<Vec<_>, _>>()?);
        }
        let holding = match lines.get(POSITIONS) {
            None => Label::NONE,
            Some(line) => {
                let rest = line
                    .trim()
                    .strip_prefix("holding:")
                    .ok_or_else(|| {
                        format!("the {} line must be `holding: LABEL` or `holding: -`", ordinal(POSITIONS))
                    })?
                    .trim();
                match rest {
                    "-" | "" => Label::NONE,
                    text => Label::new(text)?,
                }
            }
        };
        Self::build(&stacks, holding)
    }

    /// A random state (docs/DESIGN.md, "Conventions beyond the paper"): uniformly 3–5 boxes
    /// labelled `A`, `B`, … in random order; with probability ½ the gripper holds the first;
    /// each other box goes on top of a uniformly drawn stack that is not full.
    pub fn random(rng: &mut SampleRng) -> Self {
        let n = rng.random_range(MIN_BOXES..=MAX_BOXES);
        let mut labels: Vec<Label> = (0..n).map(Label::letter).collect();
        labels.shuffle(rng);
        let mut state = Stacks::default();
        let mut rest = labels.as_slice();
        if rng.random_bool(0.5)
            && let Some((&first, others)) = rest.split_first()
        {
            state.holding = first;
            rest = others;
        }
        for &label in rest {
            let open: Vec<usize> = (0..POSITIONS).filter(|&i| state.height(i) < HEIGHT).collect();
            let i = open[rng.random_range(0..open.len())];
            let h = state.height(i);
            state.stacks[i][h] = label;
        }
        state
    }
}

/// Block stacking as a [`World`]: hand-coded, exact action model, mask and equality.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Blocks;

impl World for Blocks {
    type State = Stacks;
    fn name(&self) -> &'static str {
        "blocks"
    }
    fn random_state(&self, rng: &mut SampleRng) -> Stacks {
        Stacks::random(rng)
    }
    /// The JSON form ([`Stacks::parse_json`]) or the text form as an array of lines
    /// ([`Stacks::parse_text`], what `--start` and `--goal` files give).
    fn parse_state(&self, v: &Value) -> Result<Stacks, String> {
        match v {
            Value::Object(_) => Stacks::parse_json(v),
            Value::Array(lines) => {
                let lines: Vec<&str> = lines
                    .iter()
                    .map(|l| l.as_str().ok_or("the text form must be an array of strings (lines)"))
                    .collect::<Result<_, _>>()?;
                Stacks::parse_text(&lines)
            }
            _ => Err(format!("must be {}", self.form())),
        }
    }
    /// The JSON form: `{"stacks": [["A", "B"], [], ["C"], []], "holding": null}`.
    fn state_json(&self, s: &Stacks) -> Value {
        let stacks: Vec<Vec<&str>> = (0..POSITIONS).map(|i| s.stack(i)).collect();
        serde_json::json!({ "stacks": stacks, "holding": s.holding() })
    }
    fn form(&self) -> String {
        format!(
            "{{\"stacks\": [[\"A\", \"B\"], [], [\"C\"], []], \"holding\": null}} ({POSITIONS} stacks of at \
             most {HEIGHT} box labels, bottom first) or its text form, lines `1: A B` … `4:` and `holding: -`"
        )
    }
    fn rows(&self, s: &Stacks) -> Vec<String> {
        s.rows()
    }
    fn show(&self, s: &Stacks) -> String {
        s.show()
    }
    fn apply(&self, s: &Stacks, action: usize) -> Stacks {
        s.moved(action)
    }
    /// Positions 1–4.
    fn action_names(&self) -> [&'static str; ACTIONS] {
        ["1", "2", "3", "4"]
    }
}

/// The four algorithms in block stacking.
pub type BlocksTask = SearchPlan<Blocks>;

impl BlocksTask {
    pub const SEARCH: Self = SearchPlan { world: Blocks, plus: false, plan: false };
    pub const PLAN: Self = SearchPlan { world: Blocks, plus: false, plan: true };
    pub const SEARCH_PLUS: Self = SearchPlan { world: Blocks, plus: true, plan: false };
    pub const PLAN_PLUS: Self = SearchPlan { world: Blocks, plus: true, plan: true };
}
