//! Boolean algebra, a transfer domain of arithmetic (MODEL §10: decimal → boolean algebra with
//! `AND`, `OR`). Operands are 0 and 1; the operators are data, as `+ − * /` are in
//! [`Decimal`](crate::arithmetic::Decimal), so a postfix expression such as `1 0 AND 1 OR` runs
//! through the same Input, trace and stack algorithm. A model trained on decimal runs here
//! unchanged: only the data modules see these words.

use crate::arithmetic::{Algebra, Expression, Token};
use crate::{InputError, SampleRng};
use rand::RngExt;

/// One data word of [`Boolean`]: a truth value or an operator (one byte in `M_d`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Word {
    /// 0, false. The default word: what the ALU's `C` gives for a word that is no operator.
    #[default]
    Zero,
    /// 1, true.
    One,
    And,
    Or,
}

impl Word {
    /// The value `b` as a data word.
    pub fn bit(b: bool) -> Word {
        if b { Word::One } else { Word::Zero }
    }
    /// The truth value of a value word; `None` for an operator.
    pub fn value(self) -> Option<bool> {
        match self {
            Word::Zero => Some(false),
            Word::One => Some(true),
            Word::And | Word::Or => None,
        }
    }
}

/// An operator of [`Boolean`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    And,
    Or,
}

impl Operator {
    pub const ALL: [Operator; 2] = [Operator::And, Operator::Or];

    /// The operator as written in an expression.
    pub fn symbol(self) -> &'static str {
        match self {
            Operator::And => "AND",
            Operator::Or => "OR",
        }
    }
    /// `x ∧ y` or `x ∨ y`.
    pub fn apply(self, x: bool, y: bool) -> bool {
        match self {
            Operator::And => x && y,
            Operator::Or => x || y,
        }
    }
}

/// The boolean domain: values 0 and 1 with `AND` and `OR`; answers print as the numbers 0 and 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Boolean;

impl Algebra for Boolean {
    type Word = Word;
    type Operator = Operator;
    fn name(&self) -> &'static str {
        "boolean"
    }
    fn operators(&self) -> &'static [Operator] {
        &Operator::ALL
    }
    fn code(&self, o: Operator) -> Word {
        match o {
            Operator::And => Word::And,
            Operator::Or => Word::Or,
        }
    }
    fn decode(&self, w: &Word) -> Option<Operator> {
        match w {
            Word::And => Some(Operator::And),
            Word::Or => Some(Operator::Or),
            Word::Zero | Word::One => None,
        }
    }
    /// Defined on values only (an operator word as operand is read only by a wrong model).
    fn apply(&self, o: Operator, x: &Word, y: &Word) -> Option<Word> {
        Some(Word::bit(o.apply(x.value()?, y.value()?)))
    }
    /// 0 or 1, equally likely.
    fn random_operand(&self, rng: &mut SampleRng) -> Word {
        Word::bit(rng.random_bool(0.5))
    }
    /// `0`, `1`, `AND` or `OR` (operators in any letter case).
    fn parse_token(&self, s: &str) -> Result<Token<Word, Operator>, InputError> {
        match s {
            "0" => return Ok(Token::Value(Word::Zero)),
            "1" => return Ok(Token::Value(Word::One)),
            _ => {}
        }
        if let Some(o) = Operator::ALL.into_iter().find(|o| o.symbol().eq_ignore_ascii_case(s)) {
            return Ok(Token::Op(o));
        }
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(InputError::new(format!("operand `{s}` is not a truth value; operands are 0 and 1")));
        }
        Err(InputError::new(format!("unknown token `{s}`; expected 0, 1, AND or OR")))
    }
    fn show(&self, w: &Word) -> String {
        match w {
            Word::Zero => "0",
            Word::One => "1",
            Word::And => "AND",
            Word::Or => "OR",
        }
        .to_string()
    }
    /// 0 or 1 as a JSON number, as decimal prints its values; an operator word (only a wrong
    /// model ends on one) as its symbol.
    fn value_json(&self, w: &Word) -> serde_json::Value {
        match w.value() {
            Some(b) => serde_json::Value::from(u8::from(b)),
            None => serde_json::Value::from(self.show(w)),
        }
    }
}

impl std::fmt::Display for Expression<Word, Operator> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (k, t) in self.tokens.iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            match t {
                Token::Value(v) => f.write_str(&Boolean.show(v))?,
                Token::Op(o) => f.write_str(o.symbol())?,
            }
        }
        Ok(())
    }
}
