//! arithmetic: evaluate a postfix expression with ℓ operators from `+ − * /` (MODEL §9; paper,
//! Supplementary "Arithmetic"). The data is an algebra ([`Algebra`]): its words, operators and
//! their values. Training uses [`Decimal`]: operands drawn from [1, 10], every atomic result
//! taken mod 10 000 (non-negative), division is integer division and never by zero; data words
//! are integers (D = 1) and operators are data, encoded as −1…−4.
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

use crate::words::ordinal;
use crate::{Algorithm, InputError, SampleRng, Task};
use nhc_model::{
    BusDecision, Config, DataModules, MemoryDecision, Observation, Policy, ReadMode, Signals, Trace,
};
use rand::RngExt;
use rand::seq::SliceRandom;
use std::fmt::Debug;

/// ALU operation `C`: compute `d1(d2, d3)`.
pub const OP_COMPUTE: usize = 0;
/// ALU operation `R`: read, `d_out = d2`.
pub const OP_READ: usize = 1;

/// arithmetic (MODEL §9). L_C = 6, C = 4, h_w = 1, h_r = 3, L_B = 2; ALU feedback on
/// (`c_a = c_b`, 2 signals), Bus feedback off (it would repeat `c_a`); free gates on (paper);
/// previous update and ancestry on. 648 parameters (paper: 300–650).
pub const ARITHMETIC: Algorithm = Algorithm {
    name: "arithmetic",
    ops: &["C", "R"],
    config: Config {
        input_controller: 2,
        input_memory: 2,
        input_bus: 2,
        read_heads: 3,
        ops: 2,
        alu_feedback: 2,
        bus_feedback: false,
        free_gates: true,
        ..Config::PAPER
    },
};

/// An arithmetic domain: values and binary operators, both data words, and what each operator
/// computes (the ALU's `C`).
pub trait Algebra: Clone + Send + Sync + 'static {
    /// One data word: a value or an operator's code.
    type Word: Clone + Default + PartialEq + Debug + Send + Sync;
    type Operator: Copy + PartialEq + Debug + Send + Sync;
    /// The domain's name.
    fn name(&self) -> &'static str;
    /// Every operator; the sampler draws from them uniformly.
    fn operators(&self) -> &'static [Self::Operator];
    /// The operator as a data word.
    fn code(&self, o: Self::Operator) -> Self::Word;
    /// The operator a data word stands for, if any.
    fn decode(&self, w: &Self::Word) -> Option<Self::Operator>;
    /// `x ∘ y`; `None` where it is undefined.
    fn apply(&self, o: Self::Operator, x: &Self::Word, y: &Self::Word) -> Option<Self::Word>;
    /// A random operand of the sampler.
    fn random_operand(&self, rng: &mut SampleRng) -> Self::Word;
    /// One token of a user's expression.
    fn parse_token(&self, s: &str) -> Result<Token<Self::Word, Self::Operator>, InputError>;
    /// A data word as short text (values and operator symbols).
    fn show(&self, w: &Self::Word) -> String;
    /// A value as JSON.
    fn value_json(&self, w: &Self::Word) -> serde_json::Value;
    /// A word's shape as categorical fields (crate::fields); `None`: no encoding.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        None
    }
    /// `x` as fields, one per entry of `out`.
    fn fields(&self, x: &Self::Word, out: &mut [u8]) {
        let _ = (x, out);
    }
    /// Operand `i ≥ 1` of a free algebra: operands and operators all different give terms all
    /// different, and none the default word (verification, [`crate::verify`]). `None`: the
    /// algebra has no such words.
    fn operand(&self, i: u64) -> Option<Self::Word> {
        let _ = i;
        None
    }
    /// Operator `i ≥ 1` of a free algebra (see [`Algebra::operand`]).
    fn operator(&self, i: u64) -> Option<Self::Operator> {
        let _ = i;
        None
    }
    /// The postfix shape of a sample with `ops` operators: uniform over trees
    /// ([`random_shape`]), or another rule ([`Shaped`]).
    fn shape(&self, ops: usize, rng: &mut SampleRng) -> Vec<bool> {
        random_shape(ops, rng)
    }
}

/// The default bound of arithmetic's verification: every postfix shape of 1–12 operators.
pub const SHAPES_BOUND: u64 = 12;

/// One token of a postfix expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<W = Word, O = Operator> {
    Value(W),
    Op(O),
}

/// A sample: a valid postfix expression (at least one operator, every atomic result defined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression<W = Word, O = Operator> {
    pub tokens: Vec<Token<W, O>>,
}

/// Why a token sequence is not an expression the task can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalError {
    Empty,
    /// Operator at this token index has fewer than two operands.
    MissingOperand(usize),
    /// This many values are left at the end (more than one).
    LeftOver(usize),
    /// The operator at this token index has no value (divides by zero).
    DivisionByZero(usize),
}

/// The value of a postfix expression, by a plain stack evaluation (the reference, MODEL §9).
pub fn evaluate<A: Algebra>(a: &A, tokens: &[Token<A::Word, A::Operator>]) -> Result<A::Word, EvalError> {
    let mut stack: Vec<A::Word> = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        match t {
            Token::Value(v) => stack.push(v.clone()),
            Token::Op(o) => {
                let (Some(y), Some(x)) = (stack.pop(), stack.pop()) else {
                    return Err(EvalError::MissingOperand(k));
                };
                stack.push(a.apply(*o, &x, &y).ok_or(EvalError::DivisionByZero(k))?);
            }
        }
    }
    match stack.len() {
        0 => Err(EvalError::Empty),
        1 => Ok(stack.swap_remove(0)),
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

/// A random postfix shape with `ops` operators whose deepest stack is drawn uniformly from
/// 2..=ops + 1 (ours, for `train_any_shape`; docs/results/recipe.md, "Why lineages stall"), then
/// the shape uniformly among those of that depth. Uniform trees ([`random_shape`]) reach depth
/// ops + 1 once in Catalan(ops) draws, so a stack that holds only a few values is right on
/// nearly every sample of levels 1–5.
pub fn deep_shape(ops: usize, rng: &mut SampleRng) -> Vec<bool> {
    let depth = if ops == 0 { 1 } else { rng.random_range(2..=ops + 1) };
    let tokens = 2 * ops + 1;
    // ways[p][h][r]: completions after p tokens at stack depth h (r: depth `depth` reached) that
    // end at depth 1, stay within 1..=depth and reach `depth`. f64: Catalan(99) overflows u128.
    let mut ways = vec![vec![[0f64; 2]; depth + 2]; tokens + 1];
    let ways_at = |ways: &[Vec<[f64; 2]>], p: usize, h: usize, r: usize| -> f64 {
        if h == 0 || h > depth { 0.0 } else { ways[p][h][r] }
    };
    ways[tokens][1][1] = 1.0;
    if depth == 1 {
        ways[tokens][1][0] = 1.0;
    }
    for p in (0..tokens).rev() {
        for h in 1..=depth {
            for r in 0..2 {
                let up = usize::from(r == 1 || h + 1 == depth);
                ways[p][h][r] = ways_at(&ways, p + 1, h + 1, up) + ways_at(&ways, p + 1, h - 1, r);
            }
        }
    }
    let mut shape = vec![true];
    let (mut h, mut r) = (1usize, usize::from(depth == 1));
    for p in 1..tokens {
        let up_r = usize::from(r == 1 || h + 1 == depth);
        let push = ways_at(&ways, p + 1, h + 1, up_r);
        let pop = ways_at(&ways, p + 1, h - 1, r);
        let up = pop == 0.0 || (push > 0.0 && rng.random::<f64>() * (push + pop) < push);
        shape.push(up);
        if up {
            (h, r) = (h + 1, up_r);
        } else {
            h -= 1;
        }
    }
    shape
}

/// Input and ALU of arithmetic (paper, Supplementary "Arithmetic").
#[derive(Debug, Clone)]
pub struct ArithmeticModules<A: Algebra> {
    algebra: A,
    tokens: Vec<Token<A::Word, A::Operator>>,
    /// Next token to present.
    next: usize,
    /// The last step presented an operator (`c_{t−1} = [0, 1]`).
    after_operator: bool,
    phase: &'static str,
    /// The ALU's last output.
    last: Option<A::Word>,
}

impl<A: Algebra> ArithmeticModules<A> {
    pub fn new(algebra: &A, e: &Expression<A::Word, A::Operator>) -> Self {
        ArithmeticModules {
            algebra: algebra.clone(),
            tokens: e.tokens.clone(),
            next: 0,
            after_operator: false,
            phase: "value",
            last: None,
        }
    }
    /// The ALU's last output `d_out`: the final value once the run has stopped.
    pub fn result(&self) -> Option<&A::Word> {
        self.last.as_ref()
    }
}

/// `[c_v, c_a]`.
const VALUE: [f32; 2] = [1.0, 0.0];
const OPERATOR: [f32; 2] = [0.0, 1.0];

impl<A: Algebra> DataModules for ArithmeticModules<A> {
    type Data = A::Word;

    fn input(&mut self, d_out_prev: Option<&A::Word>, s: &mut Signals) -> Option<A::Word> {
        if self.after_operator {
            // The paper's stop rule: the last atomic operation was presented (and computed).
            if self.next == self.tokens.len() {
                return None;
            }
            self.after_operator = false;
            self.phase = "result";
            s.set_all(&VALUE);
            return Some(d_out_prev.cloned().unwrap_or_default());
        }
        let token = self.tokens.get(self.next)?;
        self.next += 1;
        Some(match token {
            Token::Value(v) => {
                self.phase = "value";
                s.set_all(&VALUE);
                v.clone()
            }
            Token::Op(o) => {
                self.phase = "operator";
                self.after_operator = true;
                s.set_all(&OPERATOR);
                self.algebra.code(*o)
            }
        })
    }

    /// `C`: `d1(d2, d3)` with `d1` decoded as an operator; a word that is no operator, or an
    /// undefined result (only a wrong model reads such words), gives the default word. `R`:
    /// `d2`. `c_a = c_b`.
    fn alu(&mut self, reads: &[A::Word], op: usize, feedback: &mut [f32]) -> A::Word {
        feedback.fill(0.0);
        feedback[op] = 1.0;
        let out = if op == OP_COMPUTE {
            let a = &self.algebra;
            a.decode(&reads[0]).and_then(|o| a.apply(o, &reads[1], &reads[2])).unwrap_or_default()
        } else {
            reads[1].clone()
        };
        self.last = Some(out.clone());
        out
    }

    fn phase(&self) -> &'static str {
        self.phase
    }
}

/// arithmetic on an algebra.
#[derive(Debug, Clone, Copy, Default)]
pub struct Arithmetic<A>(pub A);

impl<A: Algebra> Arithmetic<A> {
    /// An expression of postfix shape `shape`: operands from the domain, operators uniform; an
    /// operator whose result is undefined is drawn again.
    fn expression(&self, shape: &[bool], rng: &mut SampleRng) -> Expression<A::Word, A::Operator> {
        let a = &self.0;
        let operators = a.operators();
        let mut tokens = Vec::with_capacity(shape.len());
        let mut stack: Vec<A::Word> = Vec::new();
        for &push in shape {
            if push {
                let v = a.random_operand(rng);
                tokens.push(Token::Value(v.clone()));
                stack.push(v);
                continue;
            }
            let (Some(y), Some(x)) = (stack.pop(), stack.pop()) else {
                unreachable!("a postfix shape keeps two operands under every operator");
            };
            let (o, r) = loop {
                let o = operators[rng.random_range(0..operators.len())];
                if let Some(r) = a.apply(o, &x, &y) {
                    break (o, r);
                }
            };
            tokens.push(Token::Op(o));
            stack.push(r);
        }
        Expression { tokens }
    }
}

impl<A: Algebra> Task for Arithmetic<A> {
    type Data = A::Word;
    type Sample = Expression<A::Word, A::Operator>;
    type Answer = Option<A::Word>;
    type Modules = ArithmeticModules<A>;

    fn algorithm(&self) -> &'static Algorithm {
        &ARITHMETIC
    }
    fn domain(&self) -> &'static str {
        self.0.name()
    }

    /// ℓ operators: a uniformly random shape ([`random_shape`]), operands from the domain,
    /// operators uniform; an operator whose result is undefined is drawn again.
    fn sample(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        let shape = self.0.shape(level, rng);
        self.expression(&shape, rng)
    }
    /// ℓ operators in a shape whose deepest stack is uniform over 2..=ℓ + 1 ([`deep_shape`]).
    fn any_shape(&self, level: usize, rng: &mut SampleRng) -> Self::Sample {
        let shape = deep_shape(level, rng);
        self.expression(&shape, rng)
    }

    fn field_shape(&self) -> Option<crate::FieldShape> {
        self.0.field_shape()
    }
    fn fields(&self, x: &Self::Data, out: &mut [u8]) {
        self.0.fields(x, out)
    }
    fn modules(&self, e: &Self::Sample) -> ArithmeticModules<A> {
        ArithmeticModules::new(&self.0, e)
    }

    /// Every step is scored: `R` on values and results; `C` on operators, with the data
    /// `[operator, left operand, right operand]` on heads 1–3.
    fn trace(&self, e: &Self::Sample) -> Trace<A::Word> {
        let a = &self.0;
        let mut t = Trace::new(3);
        let mut stack: Vec<A::Word> = Vec::new();
        for (k, token) in e.tokens.iter().enumerate() {
            match token {
                Token::Value(v) => {
                    t.push(OP_READ, &[None, None, None]);
                    stack.push(v.clone());
                }
                Token::Op(o) => {
                    let (Some(y), Some(x)) = (stack.pop(), stack.pop()) else {
                        break; // not an expression: the trace ends here
                    };
                    let r = a.apply(*o, &x, &y).unwrap_or_default();
                    t.push(OP_COMPUTE, &[Some(a.code(*o)), Some(x), Some(y)]);
                    stack.push(r);
                    if k + 1 < e.tokens.len() {
                        t.push(OP_READ, &[None, None, None]); // the result is presented
                    }
                }
            }
        }
        t
    }

    fn reference(&self, e: &Self::Sample) -> Option<A::Word> {
        evaluate(&self.0, &e.tokens).ok()
    }

    fn answer(&self, m: &ArithmeticModules<A>) -> Option<A::Word> {
        m.result().cloned()
    }

    fn scripted(&self) -> Box<dyn Policy + Send> {
        Box::new(StackScript)
    }
    /// 2ℓ + 1 tokens and ℓ results.
    fn max_steps(&self, level: usize) -> u64 {
        3 * level as u64 + 1
    }
    fn sample_steps(&self, e: &Self::Sample) -> u64 {
        2 * e.tokens.len() as u64
    }

    /// A JSON string of whitespace-separated tokens, e.g. `"5 6 * 3 +"` (the domain reads each
    /// token). At least one operator (a lone number is refused: the answer is what the last
    /// `C` computed), exactly one value left, every atomic result defined.
    fn parse_input(&self, v: &serde_json::Value) -> Result<Self::Sample, InputError> {
        // A bare number (`--input 5`) is an expression of one token, refused below for its cause.
        let text = match v {
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => {
                return Err(InputError::new(
                    r#"arithmetic takes a postfix expression as a JSON string, e.g. "5 6 * 3 +""#,
                ));
            }
        };
        let tokens = text.split_whitespace().map(|t| self.0.parse_token(t)).collect::<Result<Vec<_>, _>>()?;
        if !tokens.iter().any(|t| matches!(t, Token::Op(_))) {
            if tokens.is_empty() {
                return Err(InputError::new("the expression is empty"));
            }
            return Err(InputError::new("the expression needs at least one operator"));
        }
        evaluate(&self.0, &tokens).map_err(|e| match e {
            EvalError::Empty => InputError::new("the expression is empty"),
            EvalError::MissingOperand(k) => InputError::new(format!(
                "the {} token is an operator with fewer than two operands",
                ordinal(k)
            )),
            EvalError::LeftOver(n) => {
                InputError::new(format!("{n} values are left at the end; an operator is missing"))
            }
            EvalError::DivisionByZero(k) => {
                InputError::new(format!("the {} token divides by zero", ordinal(k)))
            }
        })?;
        Ok(Expression { tokens })
    }
    /// The tokens as a JSON string, separated by spaces (operators by their symbols).
    fn sample_json(&self, e: &Self::Sample) -> serde_json::Value {
        let a = &self.0;
        let tokens: Vec<String> = e
            .tokens
            .iter()
            .map(|t| match t {
                Token::Value(v) => a.show(v),
                Token::Op(o) => a.show(&a.code(*o)),
            })
            .collect();
        tokens.join(" ").into()
    }
    /// Every postfix shape of 1..=N operators, operands and operators all different words of a
    /// free algebra: the Input's signals and the ALU's feedback (`c_a = c_b`) depend on the shape
    /// alone. Only an algebra with [`Algebra::operand`] lists them (symbolic).
    fn shapes(&self, bounds: &crate::verify::Bounds) -> Vec<crate::verify::Part<'_, Self::Sample>> {
        use crate::verify::{Part, Shaped, catalan, postfix_shapes, stack_depth};
        let a = &self.0;
        if a.operand(1).is_none() || a.operator(1).is_none() {
            return Vec::new();
        }
        let bound = bounds.get(0, SHAPES_BOUND);
        // Beyond 31 operators the count saturates: the cost check refuses the part.
        let counts: Vec<u64> = (1..=bound.min(31)).map(catalan).collect();
        let count = if bound > 31 { u64::MAX } else { counts.iter().fold(0u64, |s, &c| s.saturating_add(c)) };
        let steps =
            (1..).zip(&counts).map(|(k, &c)| c.saturating_mul(3 * k + 1)).fold(0, u64::saturating_add);
        let shapes: Vec<Vec<u64>> = if count <= crate::verify::MAX_INPUTS {
            (1..=bound as usize).map(postfix_shapes).collect()
        } else {
            Vec::new()
        };
        vec![Part {
            what: format!("postfix expression of 1–{bound} operators, every shape"),
            exhaustive: true,
            axes: ["operators", "stack depth"],
            layer: "operators",
            bound,
            note: None,
            count,
            steps,
            beyond_level: Some(Some),
            nth: Box::new(move |i| {
                let (k, i) = crate::verify::in_layer(&counts, i);
                let bits = shapes[k - 1][i as usize];
                let (mut values, mut ops) = (0, 0);
                let tokens = (0..2 * k + 1)
                    .map(|j| {
                        if bits >> j & 1 == 1 {
                            values += 1;
                            Token::Value(a.operand(values).expect("a free algebra has every operand"))
                        } else {
                            ops += 1;
                            Token::Op(a.operator(ops).expect("a free algebra has every operator"))
                        }
                    })
                    .collect();
                let cell = [k as u64, stack_depth(bits, 2 * k + 1)];
                Shaped { layer: k as u64, cell, sample: Expression { tokens } }
            }),
        }]
    }
    /// A bare postfix expression is the string itself.
    fn takes_text(&self) -> bool {
        true
    }

    fn answer_json(&self, a: &Option<A::Word>) -> serde_json::Value {
        a.as_ref().map_or(serde_json::Value::Null, |w| self.0.value_json(w))
    }

    fn show(&self, w: &A::Word) -> String {
        self.0.show(w)
    }
}

/// Atomic results of [`Decimal`] are taken mod this (paper: 10 000).
pub const MODULUS: i64 = 10_000;
/// Training operands are drawn from [1, `MAX_OPERAND`] (paper: [1, 10]).
pub const MAX_OPERAND: i32 = 10;

/// One data word of [`Decimal`]: a value in [0, 10 000) or an operator code −1…−4.
pub type Word = i32;

/// An operator of [`Decimal`].
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
        self.apply_mod(x, y, MODULUS)
    }
    /// `x ∘ y` mod `modulus` (at most 10 000), non-negative.
    pub fn apply_mod(self, x: Word, y: Word, modulus: i64) -> Option<Word> {
        let (x, y) = (i64::from(x), i64::from(y));
        let r = match self {
            Operator::Add => x + y,
            Operator::Sub => x - y,
            Operator::Mul => x * y,
            Operator::Div if y == 0 => return None,
            Operator::Div => x.div_euclid(y),
        };
        // The remainder lies in [0, 10 000), so it fits a word.
        Some(r.rem_euclid(modulus) as Word)
    }
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

/// The training domain: integers mod 10 000 with `+ − * /` (paper).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Decimal;

impl Algebra for Decimal {
    type Word = Word;
    type Operator = Operator;
    fn name(&self) -> &'static str {
        "decimal"
    }
    fn operators(&self) -> &'static [Operator] {
        &Operator::ALL
    }
    fn code(&self, o: Operator) -> Word {
        o.code()
    }
    fn decode(&self, w: &Word) -> Option<Operator> {
        Operator::from_code(*w)
    }
    fn apply(&self, o: Operator, x: &Word, y: &Word) -> Option<Word> {
        o.apply(*x, *y)
    }
    /// Uniform in [1, 10].
    fn random_operand(&self, rng: &mut SampleRng) -> Word {
        rng.random_range(1..=MAX_OPERAND)
    }
    /// An integer 0…9999 or one of `+ - * /`.
    fn parse_token(&self, s: &str) -> Result<Token, InputError> {
        parse_token(s, MODULUS - 1)
    }
    fn show(&self, w: &Word) -> String {
        Operator::from_code(*w).map_or_else(|| w.to_string(), |o| o.symbol().to_string())
    }
    fn value_json(&self, w: &Word) -> serde_json::Value {
        serde_json::Value::from(*w)
    }
}

/// An integer 0…`max` or one of `+ - * /`.
/// How a sampler of ours other than the uniform tree draws a postfix shape (the paper says only
/// "Training sequences are generated randomly, with uniformly sampled atomic operations and
/// numbers"; docs/results/recipe.md, "Why lineages stall").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeRule {
    /// Left-deep only, `a b ∘ c ∘ d ∘ …` (domain `chains`): only the operators and numbers are
    /// random, as in the paper's example `5 6 * 3 +`. The stack never holds more than two values.
    Chains,
    /// The recursive split (domain `splits`): the root's left subtree takes k of the other
    /// operators, k uniform, and each subtree is drawn the same way: shallower stacks than
    /// uniform trees, deeper than chains.
    Splits,
    /// The random walk over push and pop (domain `walks`): token by token, a number or an
    /// operator with equal chance among the moves that can still end in `ops` operators. Its
    /// stacks are deeper than chains' and no shallower than uniform trees': as deep on average,
    /// the deepest shape more often.
    Walks,
}

/// Decimal arithmetic whose samples are drawn by `ShapeRule` instead of uniformly over trees;
/// every other rule is [`Decimal`]'s.
#[derive(Debug, Clone, Copy)]
pub struct Shaped(pub ShapeRule);

impl Algebra for Shaped {
    type Word = Word;
    type Operator = Operator;
    fn name(&self) -> &'static str {
        match self.0 {
            ShapeRule::Chains => "chains",
            ShapeRule::Splits => "splits",
            ShapeRule::Walks => "walks",
        }
    }
    fn operators(&self) -> &'static [Operator] {
        Decimal.operators()
    }
    fn code(&self, o: Operator) -> Word {
        Decimal.code(o)
    }
    fn decode(&self, w: &Word) -> Option<Operator> {
        Decimal.decode(w)
    }
    fn apply(&self, o: Operator, x: &Word, y: &Word) -> Option<Word> {
        Decimal.apply(o, x, y)
    }
    fn random_operand(&self, rng: &mut SampleRng) -> Word {
        Decimal.random_operand(rng)
    }
    fn parse_token(&self, s: &str) -> Result<Token, InputError> {
        Decimal.parse_token(s)
    }
    fn show(&self, w: &Word) -> String {
        Decimal.show(w)
    }
    fn value_json(&self, w: &Word) -> serde_json::Value {
        Decimal.value_json(w)
    }
    fn shape(&self, ops: usize, rng: &mut SampleRng) -> Vec<bool> {
        match self.0 {
            ShapeRule::Chains => chain_shape(ops),
            ShapeRule::Splits => split_shape(ops, rng),
            ShapeRule::Walks => walk_shape(ops, rng),
        }
    }
}

/// The left-deep postfix shape with `ops` operators: two operands, an operator, then operand and
/// operator in turn.
pub fn chain_shape(ops: usize) -> Vec<bool> {
    let mut shape = vec![true];
    for _ in 0..ops {
        shape.extend([true, false]);
    }
    shape
}

/// A postfix shape with `ops` operators by the recursive split ([`ShapeRule::Splits`]), drawn
/// without recursion: a tree of n operators is its left subtree (k of the n − 1 others, k
/// uniform), its right subtree, then its root.
pub fn split_shape(ops: usize, rng: &mut SampleRng) -> Vec<bool> {
    enum Job {
        Tree(usize),
        Root,
    }
    let mut shape = Vec::with_capacity(2 * ops + 1);
    let mut jobs = vec![Job::Tree(ops)];
    while let Some(job) = jobs.pop() {
        match job {
            Job::Root => shape.push(false),
            Job::Tree(0) => shape.push(true),
            Job::Tree(n) => {
                let k = rng.random_range(0..n);
                jobs.extend([Job::Root, Job::Tree(n - 1 - k), Job::Tree(k)]);
            }
        }
    }
    shape
}

/// A postfix shape with `ops` operators by the random walk ([`ShapeRule::Walks`]): a number while
/// the stack holds fewer than two values, an operator once all `ops + 1` numbers are placed, else
/// a fair coin.
pub fn walk_shape(ops: usize, rng: &mut SampleRng) -> Vec<bool> {
    let mut shape = Vec::with_capacity(2 * ops + 1);
    let (mut depth, mut numbers) = (0usize, 0usize);
    while shape.len() < 2 * ops + 1 {
        let push = depth < 2 || (numbers <= ops && rng.random_bool(0.5));
        if push {
            depth += 1;
            numbers += 1;
        } else {
            depth -= 1;
        }
        shape.push(push);
    }
    shape
}

fn parse_token(s: &str, max: i64) -> Result<Token, InputError> {
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
        // A sign makes it a negative operand, `-0` too.
        Ok(v) if !s.starts_with('-') && (0..=max).contains(&v) => Ok(Token::Value(v as Word)),
        _ => Err(InputError::new(format!("operand `{s}` is out of range; operands are integers 0 to {max}"))),
    }
}

/// The DNC baseline's domain (paper, "Details to the Comparison Methods": "the modulo 10.000
/// operator for intermediate results is replaced with a modulo 10 operator and the numbers are
/// binary encoded with 4 bits"): [`Decimal`]'s operands and operators, results mod 10.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mod10;

impl Algebra for Mod10 {
    type Word = Word;
    type Operator = Operator;
    fn name(&self) -> &'static str {
        "mod10"
    }
    fn operators(&self) -> &'static [Operator] {
        Decimal.operators()
    }
    fn code(&self, o: Operator) -> Word {
        o.code()
    }
    fn decode(&self, w: &Word) -> Option<Operator> {
        Operator::from_code(*w)
    }
    fn apply(&self, o: Operator, x: &Word, y: &Word) -> Option<Word> {
        o.apply_mod(*x, *y, 10)
    }
    /// Uniform in [1, 10], as [`Decimal`].
    fn random_operand(&self, rng: &mut SampleRng) -> Word {
        Decimal.random_operand(rng)
    }
    /// An integer 0…15 (four bits) or one of `+ - * /`.
    fn parse_token(&self, s: &str) -> Result<Token, InputError> {
        parse_token(s, 15)
    }
    fn show(&self, w: &Word) -> String {
        Decimal.show(w)
    }
    fn value_json(&self, w: &Word) -> serde_json::Value {
        Decimal.value_json(w)
    }
    /// Five binary fields: an operator flag, then four bits, low first, of the value or of the
    /// operator's index in `+ − * /`.
    fn field_shape(&self) -> Option<crate::FieldShape> {
        Some(crate::FieldShape::bits(5))
    }
    fn fields(&self, w: &Word, out: &mut [u8]) {
        let (flag, x) = match Operator::from_code(*w) {
            Some(o) => (1, Operator::ALL.iter().position(|&p| p == o).unwrap_or(0) as u64),
            None => (0, (*w).clamp(0, 15) as u64),
        };
        out[0] = flag;
        crate::fields::bits(x, &mut out[1..]);
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
    fn control(&mut self, obs: &Observation<'_>, _c_c: &mut [f32], out: &mut MemoryDecision) {
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

    fn bus(&mut self, c_ib: &[f32], _c_c: &[f32], _read_now: &[f32]) -> BusDecision {
        BusDecision { op: if c_ib[1] > 0.5 { OP_COMPUTE } else { OP_READ }, margin: 1.0 }
    }
}
