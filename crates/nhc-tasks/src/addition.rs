//! addition (MODEL §9, paper Supplementary "Addition"): two ℓ-digit numbers `a`, `b`, each with an
//! extra leading 0, presented big-endian, `a` then `b`, one digit per data word (D = 1). Signals
//! `[c_a, c_b, c_s]`, ops `A` (add), `C` (add with carry), `N` (nop); the ALU adds the two digits
//! read and collects the ℓ+1 sum digits, low to high.
//!
//! Conventions (docs/DESIGN.md, "Addition"): the presentation is scored with `N`, so the first
//! sum step sees `c_a_{t−1} = [0, 1, 1]` (no carry, nop used); each sum step is scored with the
//! two digits of one place and `C` exactly when the step before produced a carry.
//!
//! Scripted solution: read head 1 follows the newest write while `a` is presented (F1) and stays
//! on `a`'s lowest digit while `b` is presented (H1); read head 2 follows the newest write through
//! both (F1), ending on `b`'s lowest digit. The first sum step reads there (H1, H2: the ALU's nop
//! flag says "first"), every later one moves both heads one place up (B1, B1). The carry lives in
//! the ALU feedback; control words are not needed.

use crate::words::ordinal;
use crate::{Algorithm, InputError, SampleRng, Task, flag};
use nhc_model::{
    BusDecision, Config, DataModules, MemoryDecision, Observation, Policy, ReadMode, Signals, Trace,
};
use rand::RngExt;
use serde_json::Value;

/// ALU operation `A`: add the two digits read.
pub const OP_ADD: usize = 0;
/// ALU operation `C`: add the two digits read and a carry of 1.
pub const OP_CARRY: usize = 1;
/// ALU operation `N`: nop.
pub const OP_NOP: usize = 2;
/// The base of training (binary digits, paper).
pub const BASE: u8 = 2;

/// The most pairs of numbers addition's verification lists by default.
pub const PAIRS: u64 = 1_500_000;

/// One data word: a digit in `0..base`.
pub type Digit = u8;

/// addition (MODEL §9). L_C = 6, C = 4, h_w = 1, h_r = 2, ALU feedback on, free gates off (paper
/// "Modules Instantiations"); Bus feedback off: `c_a_{t−1}` already tells nop or not, and
/// whether the last op was `A` or `C` does not matter, only its carry (docs/DESIGN.md).
pub const ADDITION: Algorithm = Algorithm {
    name: "addition",
    ops: &["A", "C", "N"],
    config: Config {
        input_controller: 3,
        input_memory: 3,
        input_bus: 3,
        read_heads: 2,
        ops: 3,
        alu_feedback: 3,
        bus_feedback: false,
        ..Config::PAPER
    },
};

/// addition's domain: digits of a positional base (training: binary). The ALU adds digits in
/// this base; numbers are read and printed as digit strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digits {
    /// 2 to 36.
    pub base: u8,
}

impl Digits {
    /// The domain's name: `binary`, `decimal`, or `base-N`.
    pub fn name(self) -> &'static str {
        match self.base {
            2 => "binary",
            10 => "decimal",
            _ => "base",
        }
    }
    /// A uniformly random digit.
    pub fn random(self, rng: &mut SampleRng) -> Digit {
        rng.random_range(0..self.base)
    }
    /// `x + y + carry` in this base: the digit and the carry out.
    pub fn add(self, x: Digit, y: Digit, carry: bool) -> (Digit, bool) {
        let s = u16::from(x) + u16::from(y) + u16::from(carry);
        let base = u16::from(self.base);
        ((s % base) as Digit, s >= base)
    }
    /// The digit a character stands for.
    pub fn digit(self, ch: char) -> Option<Digit> {
        ch.to_digit(u32::from(self.base)).map(|d| d as Digit)
    }
}

/// addition on a base's digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Addition(pub Digits);

impl Addition {
    /// The training task: binary numbers.
    pub const BINARY: Addition = Addition(Digits { base: BASE });
    /// Decimal numbers: the same algorithm, digits 0–9 (the paper's binary → decimal transfer).
    pub const DECIMAL: Addition = Addition(Digits { base: 10 });
}

/// The operands as presented: `a` and `b` big-endian, of equal length ℓ+1, both starting with the
/// extra leading 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operands {
    a: Vec<Digit>,
    b: Vec<Digit>,
}

impl Operands {
    /// `a` and `b` (big-endian digits, any lengths): the shorter is padded with leading zeros to
    /// the longer's length ℓ, then both get the extra leading 0.
    pub fn new(a: &[Digit], b: &[Digit]) -> Self {
        let l = a.len().max(b.len());
        let pad = |x: &[Digit]| {
            let mut v = vec![0; l + 1 - x.len()];
            v.extend_from_slice(x);
            v
        };
        Operands { a: pad(a), b: pad(b) }
    }
    /// `a` as presented, big-endian, with the leading 0.
    pub fn a(&self) -> &[Digit] {
        &self.a
    }
    /// `b` as presented, big-endian, with the leading 0.
    pub fn b(&self) -> &[Digit] {
        &self.b
    }
    /// ℓ+1: digits per operand, and the number of sum steps.
    pub fn len(&self) -> usize {
        self.a.len()
    }
    /// Never true: an operand holds at least its leading 0.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }
}

/// The three phases of the Input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    A,
    B,
    Sum,
}

/// Input and ALU of addition (paper, Supplementary "Addition"), in any base.
///
/// Input: `d_i` = the digits of `a`, then of `b`, then 0; signals `[c_a, c_b, c_s]` on
/// `c_ic = c_im = c_ib`; stops after ℓ+1 steps with `c_s = 1`.
/// ALU on the reads `[v1; v2]`: `A`/`C`: `d_out = (v1 + v2 + carry) mod base` with carry = 1 for
/// `C`; `N`: `d_out = 0`. `c_a = [carry_out, 1 − carry_out, nop_used]`. The digits of `A` and `C`
/// in the sum phase are the answer.
#[derive(Debug, Clone)]
pub struct AdditionModules {
    operands: Operands,
    digits: Digits,
    /// Input calls so far.
    steps: usize,
    sum: Vec<Digit>,
}

impl AdditionModules {
    /// Data modules for `operands`, whose digits are digits of `digits`.
    pub fn new(operands: &Operands, digits: Digits) -> Self {
        AdditionModules {
            operands: operands.clone(),
            digits,
            steps: 0,
            sum: Vec::with_capacity(operands.len()),
        }
    }
    /// Digits the ALU produced in the sum phase, low to high.
    pub fn sum(&self) -> &[Digit] {
        &self.sum
    }
    /// Phase of the step the Input was last called for.
    fn current(&self) -> Phase {
        let n = self.operands.len();
        match self.steps.saturating_sub(1) {
            k if k < n => Phase::A,
            k if k < 2 * n => Phase::B,
            _ => Phase::Sum,
        }
    }
}

impl DataModules for AdditionModules {
    type Data = Digit;

    fn input(&mut self, _d_out_prev: Option<&Digit>, s: &mut Signals) -> Option<Digit> {
        let n = self.operands.len();
        let k = self.steps;
        let (signals, d_i) = if k < n {
            ([1.0, 0.0, 0.0], self.operands.a[k])
        } else if k < 2 * n {
            ([0.0, 1.0, 0.0], self.operands.b[k - n])
        } else if k < 3 * n {
            ([0.0, 0.0, 1.0], 0)
        } else {
            return None;
        };
        self.steps += 1;
        s.set_all(&signals);
        Some(d_i)
    }

    fn alu(&mut self, reads: &[Digit], op: usize, feedback: &mut [f32]) -> Digit {
        let (d_out, carry, nop) = if op == OP_NOP {
            (0, false, true)
        } else {
            let (d, carry) = self.digits.add(reads[0], reads[1], op == OP_CARRY);
            (d, carry, false)
        };
        feedback.copy_from_slice(&[flag(carry), flag(!carry), flag(nop)]);
        if !nop && self.current() == Phase::Sum {
            self.sum.push(d_out);
        }
        d_out
    }

    fn phase(&self) -> &'static str {
        match self.current() {
            Phase::A => "a",
            Phase::B => "b",
            Phase::Sum => "sum",
        }
    }
}

impl Task for Addition {
    type Data = Digit;
    type Sample = Operands;
    /// The ℓ+1 sum digits, low to high.
    type Answer = Vec<Digit>;
    type Modules = AdditionModules;

    fn algorithm(&self) -> &'static Algorithm {
        &ADDITION
    }
    fn domain(&self) -> &'static str {
        self.0.name()
    }
    /// Level ℓ: two uniformly random ℓ-digit numbers (leading zeros possible), each with the
    /// extra leading 0 (paper: "level 3: numbers of length 3").
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Operands {
        let mut number = || (0..level).map(|_| self.0.random(rng)).collect::<Vec<_>>();
        let a = number();
        Operands::new(&a, &number())
    }
    /// One field: the digit, `base` classes.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        Some(crate::FieldShape { count: 1, classes: usize::from(self.0.base) })
    }
    fn fields(&self, d: &Digit, out: &mut [u8]) {
        out[0] = *d;
    }
    fn modules(&self, s: &Operands) -> AdditionModules {
        AdditionModules::new(s, self.0)
    }
    /// 2(ℓ+1) presentation steps scored with `N` and no data; then per place, low to high, the
    /// digits of `a` and `b` there and `C` after a carry, else `A`.
    fn trace(&self, s: &Operands) -> Trace<Digit> {
        let n = s.len();
        let mut t = Trace::new(2);
        (0..2 * n).for_each(|_| t.push(OP_NOP, &[None, None]));
        let mut carry = false;
        for (&x, &y) in s.a.iter().zip(&s.b).rev() {
            t.push(if carry { OP_CARRY } else { OP_ADD }, &[Some(x), Some(y)]);
            carry = self.0.add(x, y, carry).1;
        }
        t
    }
    /// a + b by the school method, low to high, with integer arithmetic (not the ALU's `add`).
    fn reference(&self, s: &Operands) -> Vec<Digit> {
        let (base, mut carry) = (u16::from(self.0.base), 0);
        let mut out = Vec::with_capacity(s.len());
        for (&x, &y) in s.a.iter().zip(&s.b).rev() {
            let d = u16::from(x) + u16::from(y) + carry;
            out.push((d % base) as Digit);
            carry = d / base;
        }
        out
    }
    fn answer(&self, m: &AdditionModules) -> Vec<Digit> {
        m.sum().to_vec()
    }
    fn scripted(&self) -> Box<dyn Policy + Send> {
        Box::new(AdditionScript)
    }
    /// Three phases of ℓ+1 steps.
    fn max_steps(&self, level: usize) -> u64 {
        3 * (level as u64 + 1)
    }
    fn sample_steps(&self, s: &Operands) -> u64 {
        3 * s.len() as u64
    }
    /// `{"a": "1011", "b": "110"}`: digit strings of the domain's base, most significant first,
    /// non-empty.
    fn parse_input(&self, v: &Value) -> Result<Operands, InputError> {
        let obj =
            v.as_object().ok_or_else(|| InputError::new(r#"addition takes {"a": "1011", "b": "110"}"#))?;
        if let Some(k) = obj.keys().find(|k| *k != "a" && *k != "b") {
            return Err(InputError::new(format!("unknown key `{k}`; expected `a` and `b`")));
        }
        let digits = self.0;
        let number = |key: &str| -> Result<Vec<Digit>, InputError> {
            let value = obj.get(key).ok_or_else(|| InputError::new(format!("missing key `{key}`")))?;
            // Decimal numbers may also be JSON integers; a binary one must be a string.
            let text = match value {
                Value::Number(n) if digits.base == 10 && n.is_u64() => n.to_string(),
                Value::String(s) => s.clone(),
                _ => {
                    let or_number = if digits.base == 10 { " or a non-negative integer" } else { "" };
                    let what = format!("`{key}` must be a string of {} digits{or_number}", digits.name());
                    return Err(InputError::new(what));
                }
            };
            let s = text.as_str();
            if s.is_empty() {
                return Err(InputError::new(format!("`{key}` must hold at least one digit")));
            }
            s.chars()
                .enumerate()
                .map(|(i, ch)| {
                    digits.digit(ch).ok_or_else(|| {
                        let valid = match digits.base {
                            2 => "0 or 1".to_string(),
                            b => format!("a digit of base {b}"),
                        };
                        InputError::new(format!(
                            "`{key}`, the {} character: expected {valid}, got `{ch}`",
                            ordinal(i)
                        ))
                    })
                })
                .collect()
        };
        Ok(Operands::new(&number("a")?, &number("b")?))
    }
    /// Every pair of 1..=N-digit numbers of the base (leading zeros included, so every pair of
    /// numbers of at most N digits once per length): no argument is needed, the list is every
    /// input. The default N is the largest up to 10 with at most [`PAIRS`] pairs.
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, Operands>> {
        use crate::verify::{Part, Shaped};
        let base = u64::from(self.0.base);
        let pairs = |l: u64| base.checked_pow(2 * l as u32).unwrap_or(u64::MAX);
        // Beyond 40 digits the count saturates: the cost check refuses the part.
        let total = |n: u64| if n > 40 { u64::MAX } else { (1..=n).map(pairs).fold(0, u64::saturating_add) };
        let default = (1..=10).take_while(|&n| total(n) <= PAIRS).last().unwrap_or(1);
        let bound = bounds.get(0, default);
        let counts: Vec<u64> = (1..=bound.min(40)).map(pairs).collect();
        let steps =
            (1..=bound.min(40)).map(|l| pairs(l).saturating_mul(3 * (l + 1))).fold(0, u64::saturating_add);
        let digits = self.0;
        vec![Part {
            what: format!("pair of {} numbers of 1–{bound} digits", digits.name()),
            exhaustive: true,
            axes: ["digits", "longest carry chain"],
            layer: "digits",
            bound,
            note: None,
            count: total(bound),
            steps,
            beyond_level: Some(Some),
            nth: Box::new(move |i| {
                let (l, i) = crate::verify::in_layer(&counts, i);
                let number = |mut x: u64| {
                    let mut d = vec![0; l];
                    for k in (0..l).rev() {
                        d[k] = (x % base) as Digit;
                        x /= base;
                    }
                    d
                };
                let half = base.pow(l as u32);
                let operands = Operands::new(&number(i / half), &number(i % half));
                let (mut carry, mut run, mut longest) = (false, 0, 0);
                for (&x, &y) in operands.a.iter().zip(&operands.b).rev() {
                    carry = digits.add(x, y, carry).1;
                    run = if carry { run + 1 } else { 0 };
                    longest = longest.max(run);
                }
                Shaped { layer: l as u64, cell: [l as u64, longest], sample: operands }
            }),
        }]
    }
    /// `{"a": …, "b": …}`: the operands as presented, without the extra leading 0 (their other
    /// leading zeros kept, so both keep the level's length).
    fn sample_json(&self, s: &Operands) -> Value {
        let text = |x: &[Digit]| x.iter().skip(1).map(|&d| digit_char(d)).collect::<String>();
        serde_json::json!({ "a": text(s.a()), "b": text(s.b()) })
    }
    /// The sum as a digit string, most significant first, without leading zeros.
    fn answer_json(&self, a: &Vec<Digit>) -> Value {
        Value::String(digits_text(a))
    }
    fn show(&self, d: &Digit) -> String {
        digit_char(*d).to_string()
    }
}

fn digit_char(d: Digit) -> char {
    char::from_digit(u32::from(d), 36).unwrap_or('?')
}

/// Digits given low to high as text, most significant first, without leading zeros ("0" for
/// zero; empty for no digits).
pub fn digits_text(low_to_high: &[Digit]) -> String {
    let top = low_to_high.iter().rposition(|&d| d != 0).map_or(low_to_high.len().min(1), |k| k + 1);
    low_to_high[..top].iter().rev().map(|&d| digit_char(d)).collect()
}

/// Scripted solution of addition: a policy on the control stream alone (MODEL §9).
///
/// | phase | head 1 | head 2 | op |
/// |---|---|---|---|
/// | `c_a` | F1 | F1 | N |
/// | `c_b` | H1 | F1 | N |
/// | `c_s`, `c_a_{t−1}` nop | H1 | H2 | A |
/// | `c_s`, else | B1 | B1 | C if `c_a_{t−1}` carry, else A |
///
/// Writes zero control words and never uses the previous update.
///
/// The Controller passes the carry of the step before to the Bus in `c_c[0]`.
#[derive(Debug, Clone, Copy)]
pub struct AdditionScript;

impl Policy for AdditionScript {
    fn control(&mut self, obs: &Observation<'_>, c_c: &mut [f32], out: &mut MemoryDecision) {
        let c = obs.input_controller;
        let (present_a, sum) = (c[0] > 0.5, c[2] > 0.5);
        let (carry, nop) = (obs.alu_prev[0] > 0.5, obs.alu_prev[2] > 0.5);
        c_c[0] = flag(carry);
        out.write.fill(0.0);
        let up = sum && !nop;
        out.read_modes[0] = if present_a {
            ReadMode::Forward(0)
        } else if up {
            ReadMode::Backward(0)
        } else {
            ReadMode::Halt(0)
        };
        out.read_modes[1] = if !sum {
            ReadMode::Forward(0)
        } else if up {
            ReadMode::Backward(0)
        } else {
            ReadMode::Halt(1)
        };
    }
    fn bus(&mut self, c_ib: &[f32], c_c: &[f32], _read_now: &[f32]) -> BusDecision {
        let op = if c_ib[2] < 0.5 {
            OP_NOP
        } else if c_c[0] > 0.5 {
            OP_CARRY
        } else {
            OP_ADD
        };
        BusDecision { op, margin: 1.0 }
    }
}
