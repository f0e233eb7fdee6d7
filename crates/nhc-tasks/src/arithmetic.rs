//! arithmetic: evaluate a postfix expression with ℓ operators from `+ − * /` (SPEC §9; paper,
//! Supplementary "Arithmetic"). Operands are drawn from [1, 10], every atomic result is taken
//! mod 10 000 (non-negative), division is integer division and never by zero. Data words are
//! integers (D = 1); operators are data, encoded as −1…−4.
//!
//! - Input: signals `[c_v, c_a]` (value / atomic operator) on c_ic = c_im = c_ib. It presents
//!   the tokens in order; after an operator it presents the ALU's result `d_out_{t−1}` as a
//!   value (the paper's rule `d_i = d_in if c_{t−1} = [1,0], d_out_{t−1} else`). It stops at the
//!   step after the last operator, so the last step computes the final value.
//! - ALU: `C` computes `d1(d2, d3)`, `R` returns `d2`; feedback `c_a = c_b`.
//! - Trace: every step scores its op (`R` for values, `C` for operators); an operator step also
//!   scores the data `[operator, left operand, right operand]` on the three read heads.
//!
//! Scripted solution ([`StackScript`]): memory is an array stack, location i = stack slot i.
//! Values are pushed (all heads follow the newest write with F1); an operator step reads
//! the operator (F1), the second value (B1) and the top (H1) and frees all three locations; the
//! allocator then writes the result into the left operand's slot, where head 2 stands (H2).

use crate::{InputError, SampleRng, Task};
use nhc_model::{
    BusDecision, Config, DataModules, MemoryDecision, Observation, Policy, ReadMode, Signals, Trace,
};
use rand::RngExt;
use rand::seq::SliceRandom;

/// ALU operation `C`: compute `d1(d2, d3)`.
pub const OP_COMPUTE: usize = 0;
/// ALU operation `R`: read, `d_out = d2`.
pub const OP_READ: usize = 1;
/// Atomic results are taken mod this (paper: 10 000).
pub const MODULUS: i64 = 10_000;
/// Training operands are drawn from [1, `MAX_OPERAND`] (paper: [1, 10]).
pub const MAX_OPERAND: i32 = 10;

/// One data word: a value in [0, 10 000) or an operator code −1…−4.
pub type Word = i32;

/// An atomic operation of the expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    Add,
    Sub,
    Mul,
    Div,
}

impl Operator {
    pub const ALL: [Operator; 4] = [Operator::Add, Operator::Sub, Operator::Mul, Operator::Div];

    /// The operator as a data word: `+ − * /` → −1, −2, −3, −4 (paper).
    pub fn code(self) -> Word {
        match self {
            Operator::Add => -1,
            Operator::Sub => -2,
            Operator::Mul => -3,
            Operator::Div => -4,
        }
    }
    /// Inverse of [`Operator::code`].
    pub fn from_code(code: Word) -> Option<Operator> {
        Operator::ALL.into_iter().find(|o| o.code() == code)
    }
    pub fn symbol(self) -> char {
        match self {
            Operator::Add => '+',
            Operator::Sub => '-',
            Operator::Mul => '*',
            Operator::Div => '/',
        }
    }
    /// The atomic result `x ∘ y` mod 10 000, non-negative; integer division rounds down.
    /// `None` for a division by zero.
    pub fn apply(self, x: Word, y: Word) -> Option<Word> {
        let (x, y) = (i64::from(x), i64::from(y));
        let r = match self {
            Operator::Add => x + y,
            Operator::Sub => x - y,
            Operator::Mul => x * y,
            Operator::Div if y == 0 => return None,
            Operator::Div => x.div_euclid(y),
        };
        // The remainder lies in [0, 10 000), so it fits a word.
        Some(r.rem_euclid(MODULUS) as Word)
    }
}

/// One token of a postfix expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    Value(Word),
    Op(Operator),
}

impl Token {
    /// The data word the Input presents for this token.
    pub fn word(self) -> Word {
        match self {
            Token::Value(v) => v,
            Token::Op(o) => o.code(),
        }
    }
}

/// A sample: a valid postfix expression (at least one operator, no division by zero).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    pub tokens: Vec<Token>,
}

impl std::fmt::Display for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (k, t) in self.tokens.iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            match t {
                Token::Value(v) => write!(f, "{v}")?,
                Token::Op(o) => write!(f, "{}", o.symbol())?,
            }
        }
        Ok(())
    }
}

/// Why a token sequence is not an expression the task can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalError {
    Empty,
    /// Operator at this token index has fewer than two operands.
    MissingOperand(usize),
    /// This many values are left at the end (more than one).
    LeftOver(usize),
    /// The operator at this token index divides by zero.
    DivisionByZero(usize),
}

/// The value of a postfix expression, by a plain stack evaluation (the reference, SPEC §9).
pub fn evaluate(tokens: &[Token]) -> Result<Word, EvalError> {
    let mut stack: Vec<Word> = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        match *t {
            Token::Value(v) => stack.push(v),
            Token::Op(o) => {
                let (Some(y), Some(x)) = (stack.pop(), stack.pop()) else {
                    return Err(EvalError::MissingOperand(k));
                };
                stack.push(o.apply(x, y).ok_or(EvalError::DivisionByZero(k))?);
            }
        }
    }
    match stack.len() {
        0 => Err(EvalError::Empty),
        1 => Ok(stack[0]),
        n => Err(EvalError::LeftOver(n)),
    }
}

/// A uniformly random postfix shape with `ops` operators (`true` = operand): every binary tree
/// with `ops` inner nodes is equally likely. A random arrangement of `ops + 1` operands and `ops`
/// operators is rotated to start after the last minimum of its prefix depth; by the cycle lemma
/// exactly that rotation keeps the stack depth ≥ 1 after every token.
pub fn random_shape(ops: usize, rng: &mut SampleRng) -> Vec<bool> {
    let mut xs: Vec<bool> = (0..2 * ops + 1).map(|k| k <= ops).collect();
    xs.shuffle(rng);
    let (mut depth, mut lowest, mut start) = (0i64, 0i64, 0usize);
    for (k, &push) in xs.iter().enumerate() {
        if depth <= lowest {
            (lowest, start) = (depth, k);
        }
        depth += if push { 1 } else { -1 };
    }
    xs.rotate_left(start);
    xs
}

/// Input and ALU of arithmetic (paper, Supplementary "Arithmetic").
#[derive(Debug, Clone)]
pub struct ArithmeticModules {
    tokens: Vec<Token>,
    /// Next token to present.
    next: usize,
    /// The last step presented an operator (`c_{t−1} = [0, 1]`).
    after_operator: bool,
    phase: &'static str,
    /// The ALU's last output.
    last: Option<Word>,
}

impl ArithmeticModules {
    pub fn new(e: &Expression) -> Self {
        ArithmeticModules {
            tokens: e.tokens.clone(),
            next: 0,
            after_operator: false,
            phase: "value",
            last: None,
        }
    }
    /// The ALU's last output `d_out`: the final value once the run has stopped.
    pub fn result(&self) -> Option<Word> {
        self.last
    }
}

/// `[c_v, c_a]`.
const VALUE: [f32; 2] = [1.0, 0.0];
const OPERATOR: [f32; 2] = [0.0, 1.0];

impl DataModules for ArithmeticModules {
    type Data = Word;

    fn input(&mut self, d_out_prev: Option<&Word>, s: &mut Signals) -> Option<Word> {
        if self.after_operator {
            // The paper's stop rule: the last atomic operation was presented (and computed).
            if self.next == self.tokens.len() {
                return None;
            }
            self.after_operator = false;
            self.phase = "result";
            s.set_all(&VALUE);
            return Some(d_out_prev.copied().unwrap_or_default());
        }
        let token = *self.tokens.get(self.next)?;
        self.next += 1;
        match token {
            Token::Value(_) => {
                self.phase = "value";
                s.set_all(&VALUE);
            }
            Token::Op(_) => {
                self.phase = "operator";
                self.after_operator = true;
                s.set_all(&OPERATOR);
            }
        }
        Some(token.word())
    }

    /// `C`: `d1(d2, d3)` with `d1` decoded as an operator; a word that is no operator, or a
    /// division by zero (only a wrong model reads such words), gives 0. `R`: `d2`. `c_a = c_b`.
    fn alu(&mut self, reads: &[Word], op: usize, feedback: &mut [f32]) -> Word {
        feedback.fill(0.0);
        feedback[op] = 1.0;
        let out = if op == OP_COMPUTE {
            Operator::from_code(reads[0]).and_then(|o| o.apply(reads[1], reads[2])).unwrap_or(0)
        } else {
            reads[1]
        };
        self.last = Some(out);
        out
    }

    fn phase(&self) -> &'static str {
        self.phase
    }
}

/// The arithmetic task.
pub struct Arithmetic;

impl Task for Arithmetic {
    type Data = Word;
    type Sample = Expression;
    type Answer = Option<Word>;
    type Modules = ArithmeticModules;
    type Scripted = StackScript;
    const NAME: &'static str = "arithmetic";
    const OPS: &'static [&'static str] = &["C", "R"];

    /// L_C = 6, C = 4, h_w = 1, h_r = 3, L_B = 2; ALU feedback on (`c_a = c_b`, 2 signals),
    /// Bus feedback off (it would repeat `c_a`); free gates on (paper); previous update and
    /// ancestry on. 648 parameters (paper: 300–650).
    fn config() -> Config {
        Config {
            input_controller: 2,
            input_memory: 2,
            input_bus: 2,
            read_heads: 3,
            ops: 2,
            alu_feedback: 2,
            bus_feedback: false,
            free_gates: true,
            ..Config::PAPER
        }
    }

    /// ℓ operators: a uniformly random shape ([`random_shape`]), operands uniform in [1, 10],
    /// operators uniform; an operator that would divide by zero is drawn again.
    fn sample(level: usize, rng: &mut SampleRng) -> Expression {
        let mut tokens = Vec::with_capacity(2 * level + 1);
        let mut stack: Vec<Word> = Vec::new();
        for push in random_shape(level, rng) {
            if push {
                let v = rng.random_range(1..=MAX_OPERAND);
                tokens.push(Token::Value(v));
                stack.push(v);
                continue;
            }
            let (Some(y), Some(x)) = (stack.pop(), stack.pop()) else {
                unreachable!("random_shape keeps two operands under every operator");
            };
            let (o, r) = loop {
                let o = Operator::ALL[rng.random_range(0..4)];
                if let Some(r) = o.apply(x, y) {
                    break (o, r);
                }
            };
            tokens.push(Token::Op(o));
            stack.push(r);
        }
        Expression { tokens }
    }

    fn modules(e: &Expression) -> ArithmeticModules {
        ArithmeticModules::new(e)
    }

    /// Every step is scored: `R` on values and results; `C` on operators, with the data
    /// `[operator, left operand, right operand]` on heads 1–3.
    fn trace(e: &Expression) -> Trace<Word> {
        let mut t = Trace::new(3);
        let mut stack: Vec<Word> = Vec::new();
        for (k, token) in e.tokens.iter().enumerate() {
            match *token {
                Token::Value(v) => {
                    t.push(OP_READ, &[None, None, None]);
                    stack.push(v);
                }
                Token::Op(o) => {
                    let (Some(y), Some(x)) = (stack.pop(), stack.pop()) else {
                        break; // not an expression: the trace ends here
                    };
                    t.push(OP_COMPUTE, &[Some(o.code()), Some(x), Some(y)]);
                    let r = o.apply(x, y).unwrap_or(0);
                    stack.push(r);
                    if k + 1 < e.tokens.len() {
                        t.push(OP_READ, &[None, None, None]); // the result is presented
                    }
                }
            }
        }
        t
    }

    fn reference(e: &Expression) -> Option<Word> {
        evaluate(&e.tokens).ok()
    }

    fn answer(m: &ArithmeticModules) -> Option<Word> {
        m.result()
    }

    fn scripted() -> StackScript {
        StackScript
    }

    /// A JSON string of whitespace-separated tokens, e.g. `"5 6 * 3 +"`: operands are integers
    /// 0…9999, operators `+ - * /`. At least one operator (a lone number is refused: the
    /// answer is what the last `C` computed), exactly one value left, no division by zero.
    fn parse_input(v: &serde_json::Value) -> Result<Expression, InputError> {
        let text = v.as_str().ok_or_else(|| {
            InputError::new(r#"arithmetic takes a postfix expression as a JSON string, e.g. "5 6 * 3 +""#)
        })?;
        let tokens = text.split_whitespace().map(parse_token).collect::<Result<Vec<_>, _>>()?;
        if !tokens.iter().any(|t| matches!(t, Token::Op(_))) {
            if tokens.is_empty() {
                return Err(InputError::new("the expression is empty"));
            }
            return Err(InputError::new("the expression needs at least one operator"));
        }
        evaluate(&tokens).map_err(|e| match e {
            EvalError::Empty => InputError::new("the expression is empty"),
            EvalError::MissingOperand(k) => {
                InputError::new(format!("token {} is an operator with fewer than two operands", k + 1))
            }
            EvalError::LeftOver(n) => {
                InputError::new(format!("{n} values are left at the end; an operator is missing"))
            }
            EvalError::DivisionByZero(k) => InputError::new(format!("token {} divides by zero", k + 1)),
        })?;
        Ok(Expression { tokens })
    }

    fn answer_json(a: &Option<Word>) -> serde_json::Value {
        a.map_or(serde_json::Value::Null, serde_json::Value::from)
    }

    fn show(w: &Word) -> String {
        Operator::from_code(*w).map_or_else(|| w.to_string(), |o| o.symbol().to_string())
    }
}

/// One token of user input.
fn parse_token(s: &str) -> Result<Token, InputError> {
    if let [c] = s.as_bytes()
        && let Some(o) = Operator::ALL.into_iter().find(|o| o.symbol() as u8 == *c)
    {
        return Ok(Token::Op(o));
    }
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(InputError::new(format!("unknown token `{s}`; expected an integer or one of + - * /")));
    }
    match s.parse::<i64>() {
        Ok(v) if (0..MODULUS).contains(&v) => Ok(Token::Value(v as Word)),
        _ => Err(InputError::new(format!("operand `{s}` is out of range; operands are integers 0 to 9999"))),
    }
}

/// Scripted solution: an array stack in memory (location i holds stack slot i).
///
/// - value (`c_v`, previous op `R`): heads 1–3 F1, from the top (the tail) to the new write.
/// - operator (`c_a`): head 1 F1 → the operator just written, head 2 B1 → the second value,
///   head 3 H1 → the top; `f_w` and `f_r` of heads 2, 3 free all three, so the used locations
///   stay a prefix and the lowest free location is the left operand's.
/// - result (`c_v` after `C`, seen as `c_a_{t−1}`): the result is written into the left
///   operand's location, where head 2 stands: all heads H2.
///
/// Control words are written as `[c_v, c_a, 0, 0]` but never read back; no previous update.
#[derive(Debug, Clone, Copy)]
pub struct StackScript;

impl Policy for StackScript {
    fn memory(&mut self, obs: &Observation<'_>, out: &mut MemoryDecision) {
        let operator = obs.input_controller[1] > 0.5;
        let result = !operator && obs.alu_prev[OP_COMPUTE] > 0.5;
        out.write.fill(0.0);
        out.write[..2].copy_from_slice(obs.input_memory);
        let modes = if operator {
            [ReadMode::Forward(0), ReadMode::Backward(0), ReadMode::Halt(0)]
        } else if result {
            [ReadMode::Halt(1); 3]
        } else {
            [ReadMode::Forward(0); 3]
        };
        out.read_modes.copy_from_slice(&modes);
        out.free_write[0] = operator;
        out.free_read.copy_from_slice(&[false, operator, operator]);
    }

    fn bus(&mut self, c_ib: &[f32], _read_now: &[f32]) -> BusDecision {
        BusDecision { op: if c_ib[1] > 0.5 { OP_COMPUTE } else { OP_READ }, margin: 1.0 }
    }
}
