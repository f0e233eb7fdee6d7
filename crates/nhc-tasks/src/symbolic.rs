//! The symbolic domain of arithmetic: operands are variables `x1, x2, …`, operators are the
//! function symbols `+ − * /` and `f1, f2, …`, and the value of an expression is its term, e.g.
//! `x1 x2 f1 x3 +` ↦ `((x1 f1 x2) + x3)`. No two different terms are equal, so an expression
//! whose operands and operators are all different has a different word at every step: a model
//! that computes the right term read the right locations. That makes it the domain of
//! arithmetic's verification (docs/VERIFICATION.md, "Verification"); as a transfer it shows what a
//! learned model computes, symbol by symbol.

use crate::arithmetic::{Algebra, Token};
use crate::{InputError, SampleRng};
use rand::RngExt;
use std::sync::Arc;

/// One data word: nothing (the default word), a variable, an operator, or a term.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub enum Term {
    #[default]
    Empty,
    Var(u32),
    Op(Operator),
    /// `(left operator right)`.
    Node(Arc<(Operator, Term, Term)>),
}

/// A function symbol: 1–4 are `+ − * /`, 5 and above are `f1, f2, …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operator(pub u32);

const SYMBOLS: [&str; 4] = ["+", "-", "*", "/"];
/// The four arithmetic symbols, which random samples draw from.
const ARITHMETIC: [Operator; 4] = [Operator(1), Operator(2), Operator(3), Operator(4)];

impl std::fmt::Display for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            k @ 1..=4 => f.write_str(SYMBOLS[k as usize - 1]),
            k => write!(f, "f{}", k - 4),
        }
    }
}

impl std::fmt::Display for Term {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Term::Empty => f.write_str("∅"),
            Term::Var(k) => write!(f, "x{k}"),
            Term::Op(o) => write!(f, "{o}"),
            Term::Node(n) => write!(f, "({} {} {})", n.1, n.0, n.2),
        }
    }
}

impl std::fmt::Debug for Term {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

/// The symbolic algebra.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Symbolic;

/// The number after `prefix` in `s`, if `s` is the prefix and a number ≥ 1 without sign.
fn index(s: &str, prefix: char) -> Option<u32> {
    let digits = s.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&k| k >= 1)
}

impl Algebra for Symbolic {
    type Word = Term;
    type Operator = Operator;
    fn name(&self) -> &'static str {
        "symbolic"
    }
    fn operators(&self) -> &'static [Operator] {
        &ARITHMETIC
    }
    fn code(&self, o: Operator) -> Term {
        Term::Op(o)
    }
    fn decode(&self, w: &Term) -> Option<Operator> {
        match w {
            Term::Op(o) => Some(*o),
            _ => None,
        }
    }
    /// The term `(x o y)`: always defined.
    fn apply(&self, o: Operator, x: &Term, y: &Term) -> Option<Term> {
        Some(Term::Node(Arc::new((o, x.clone(), y.clone()))))
    }
    /// A variable `x1`…`x10`.
    fn random_operand(&self, rng: &mut SampleRng) -> Term {
        Term::Var(rng.random_range(1..=10))
    }
    /// `x<k>` (a variable), or `+ - * /` or `f<k>` (an operator), k ≥ 1.
    fn parse_token(&self, s: &str) -> Result<Token<Term, Operator>, InputError> {
        if let Some(k) = SYMBOLS.iter().position(|&sym| sym == s) {
            return Ok(Token::Op(Operator(k as u32 + 1)));
        }
        if let Some(k) = index(s, 'x') {
            return Ok(Token::Value(Term::Var(k)));
        }
        match index(s, 'f').and_then(|k| k.checked_add(4)) {
            Some(k) => Ok(Token::Op(Operator(k))),
            None => Err(InputError::new(format!(
                "unknown token `{s}`; symbolic takes variables x1, x2, … and operators + - * / or f1, f2, …"
            ))),
        }
    }
    fn show(&self, w: &Term) -> String {
        w.to_string()
    }
    fn value_json(&self, w: &Term) -> serde_json::Value {
        w.to_string().into()
    }
    /// `x<i>`: every variable is a word of its own.
    fn operand(&self, i: u64) -> Option<Term> {
        u32::try_from(i).ok().filter(|&i| i >= 1).map(Term::Var)
    }
    /// `f<i>`: every function symbol is a word of its own.
    fn operator(&self, i: u64) -> Option<Operator> {
        u32::try_from(i).ok().filter(|&i| i >= 1).and_then(|i| i.checked_add(4)).map(Operator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arithmetic::evaluate;

    #[test]
    fn an_expression_evaluates_to_its_term() {
        let tokens: Vec<_> =
            "x1 x2 f1 x3 +".split(' ').map(|t| Symbolic.parse_token(t).expect("a token")).collect();
        let term = evaluate(&Symbolic, &tokens).expect("an expression");
        assert_eq!(term.to_string(), "((x1 f1 x2) + x3)");
        assert!(Symbolic.parse_token("x0").is_err() && Symbolic.parse_token("g1").is_err());
    }
}
