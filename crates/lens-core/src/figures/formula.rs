//! Formulas over line items: the catalogue's notation (`365 * avg(accounts_payable) / cogs`) and
//! definitions written in a question ("365 * (average accounts payable between FY2017 and
//! FY2018) / (FY2018 COGS + change in inventory between FY2017 and FY2018)"), parsed into one
//! expression type and evaluated exactly.

use crate::figures::ratio::Ratio;
use serde::{Deserialize, Serialize};

/// A fiscal year: relative to the year asked (`Rel(-1)` = the year before) or named outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Year {
    Rel(i32),
    Abs(i32),
}

impl Year {
    pub fn resolve(self, target: i32) -> i32 {
        match self {
            Year::Rel(d) => target + d,
            Year::Abs(y) => y,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(Ratio),
    /// A line item's value in one year.
    Item(String, Year),
    /// The mean of an item over the years `from..=to` (two year ends for a balance).
    Avg(String, Year, Year),
    /// The item at `to` minus the item at `from`.
    Change(String, Year, Year),
    Abs(Box<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
}

/// Why a formula could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    /// an operand that was looked for and not found: (item, year)
    Missing(String, i32),
    DivisionByZero(String),
    Overflow,
}

impl Expr {
    /// Evaluate for `target`; `value(item, year)` looks operands up. Every missing operand is
    /// reported (the first one stops evaluation).
    pub fn eval(&self, target: i32, value: &mut dyn FnMut(&str, i32) -> Option<Ratio>) -> Result<Ratio, EvalError> {
        let mut get = |item: &str, y: i32| value(item, y).ok_or_else(|| EvalError::Missing(item.to_string(), y));
        match self {
            Expr::Num(r) => Ok(*r),
            Expr::Item(i, y) => get(i, y.resolve(target)),
            Expr::Avg(i, a, b) => {
                let (a, b) = (a.resolve(target), b.resolve(target));
                let mut sum = Ratio::ZERO;
                for y in a.min(b)..=a.max(b) {
                    sum = sum.checked_add(get(i, y)?).ok_or(EvalError::Overflow)?;
                }
                sum.checked_div(Ratio::int((a - b).abs() as i64 + 1)).ok_or(EvalError::Overflow)
            }
            Expr::Change(i, a, b) => {
                let (a, b) = (a.resolve(target), b.resolve(target));
                let (va, vb) = (get(i, a)?, get(i, b)?);
                vb.checked_sub(va).ok_or(EvalError::Overflow)
            }
            Expr::Abs(e) => {
                let v = e.eval(target, value)?;
                Ok(if v < Ratio::ZERO { Ratio::ZERO.checked_sub(v).ok_or(EvalError::Overflow)? } else { v })
            }
            Expr::Bin(op, l, r) => {
                let (a, b) = (l.eval(target, value)?, r.eval(target, value)?);
                match op {
                    '+' => a.checked_add(b),
                    '-' => a.checked_sub(b),
                    '*' => a.checked_mul(b),
                    _ if b.is_zero() => return Err(EvalError::DivisionByZero(r.show(target, &|s| s.replace('_', " ")))),
                    _ => a.checked_div(b),
                }
                .ok_or(EvalError::Overflow)
            }
        }
    }

    /// The formula in words, years resolved: `365 × avg(accounts payable FY2017–FY2018) / ...`.
    pub fn show(&self, target: i32, name: &dyn Fn(&str) -> String) -> String {
        let fy = |y: &Year| format!("FY{}", y.resolve(target));
        match self {
            Expr::Num(r) => r.to_string(),
            Expr::Item(i, y) => format!("{} {}", name(i), fy(y)),
            Expr::Avg(i, a, b) => format!("average {} {}–{}", name(i), fy(a), fy(b)),
            Expr::Change(i, a, b) => format!("change in {} {}–{}", name(i), fy(a), fy(b)),
            Expr::Abs(e) => format!("|{}|", e.show(target, name)),
            Expr::Bin(op, l, r) => {
                let side = |e: &Expr, right: bool| {
                    let s = e.show(target, name);
                    let wrap = matches!(e, Expr::Bin(o, ..) if (*op == '*' || *op == '/') && (*o == '+' || *o == '-') || right && (*op == '-' || *op == '/') && *o != '*');
                    if wrap {
                        format!("({s})")
                    } else {
                        s
                    }
                };
                let sym = match op {
                    '*' => "×",
                    '/' => "÷",
                    '+' => "+",
                    _ => "−",
                };
                format!("{} {sym} {}", side(l, false), side(r, true))
            }
        }
    }

    /// Whether the formula is itself a change from one year to another (it reads an item at
    /// another year than the target's, or a `change()`): a growth rate. An average reads two
    /// year ends of a level and is not one.
    pub fn is_change(&self) -> bool {
        match self {
            Expr::Num(_) | Expr::Avg(..) => false,
            Expr::Item(_, y) => *y != Year::Rel(0) && !matches!(y, Year::Abs(_)),
            Expr::Change(..) => true,
            Expr::Abs(e) => e.is_change(),
            Expr::Bin(_, l, r) => l.is_change() || r.is_change(),
        }
    }

    /// Items the formula reads, in order of first use.
    pub fn items(&self, out: &mut Vec<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Item(i, _) | Expr::Avg(i, ..) | Expr::Change(i, ..) => {
                if !out.contains(i) {
                    out.push(i.clone())
                }
            }
            Expr::Abs(e) => e.items(out),
            Expr::Bin(_, l, r) => {
                l.items(out);
                r.items(out);
            }
        }
    }
}

/// A token of either notation: a number, an operator or parenthesis, or a run of words.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(Ratio),
    Op(char),
    Words(String),
}

fn tokens(s: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut words = String::new();
    let chars: Vec<char> = s.chars().collect();
    let flush = |words: &mut String, out: &mut Vec<Tok>| {
        let w = words.trim();
        if !w.is_empty() {
            match Ratio::parse(w.trim_start_matches('$')) {
                Some(r) => out.push(Tok::Num(r)),
                None => out.push(Tok::Words(w.to_string())),
            }
        }
        words.clear();
    };
    for (i, &c) in chars.iter().enumerate() {
        let spaced = |j: usize| j >= chars.len() || chars[j].is_whitespace();
        // `-` is minus only between spaces ("DIO + DSO - DPO"); inside a word it is a hyphen
        let op = match c {
            '+' | '*' | '/' | '(' | ')' | '×' | '÷' => true,
            '-' | '−' => i > 0 && spaced(i - 1) && spaced(i + 1),
            _ => false,
        };
        if op {
            flush(&mut words, &mut out);
            out.push(Tok::Op(match c {
                '×' => '*',
                '÷' => '/',
                '−' => '-',
                c => c,
            }));
        } else {
            words.push(c);
        }
    }
    flush(&mut words, &mut out);
    out
}

/// Turns a run of words into an expression (an item, an average, a change, a sub-formula).
pub type Resolve<'a> = dyn Fn(&str) -> Result<Expr, String> + 'a;

struct Parser<'a> {
    toks: Vec<Tok>,
    pos: usize,
    resolve: &'a Resolve<'a>,
}

impl Parser<'_> {
    fn expr(&mut self) -> Result<Expr, String> {
        let mut l = self.term()?;
        while let Some(Tok::Op(op @ ('+' | '-'))) = self.toks.get(self.pos).cloned() {
            self.pos += 1;
            l = Expr::Bin(op, Box::new(l), Box::new(self.term()?));
        }
        Ok(l)
    }
    fn term(&mut self) -> Result<Expr, String> {
        let mut l = self.factor()?;
        while let Some(Tok::Op(op @ ('*' | '/'))) = self.toks.get(self.pos).cloned() {
            self.pos += 1;
            l = Expr::Bin(op, Box::new(l), Box::new(self.factor()?));
        }
        Ok(l)
    }
    fn factor(&mut self) -> Result<Expr, String> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        match t {
            Some(Tok::Num(r)) => Ok(Expr::Num(r)),
            Some(Tok::Op('(')) => {
                let e = self.expr()?;
                match self.toks.get(self.pos) {
                    Some(Tok::Op(')')) => {
                        self.pos += 1;
                        Ok(e)
                    }
                    _ => Err("a parenthesis is not closed".into()),
                }
            }
            // a function of the catalogue notation: name followed by a parenthesised argument
            Some(Tok::Words(w)) if ["avg", "change", "prev", "abs"].contains(&w.as_str()) && self.toks.get(self.pos) == Some(&Tok::Op('(')) => {
                self.pos += 1;
                let arg = self.expr()?;
                if self.toks.get(self.pos) != Some(&Tok::Op(')')) {
                    return Err(format!("`{w}(` is not closed"));
                }
                self.pos += 1;
                match (w.as_str(), arg) {
                    ("abs", a) => Ok(Expr::Abs(Box::new(a))),
                    ("avg", Expr::Item(i, _)) => Ok(Expr::Avg(i, Year::Rel(-1), Year::Rel(0))),
                    ("change", Expr::Item(i, _)) => Ok(Expr::Change(i, Year::Rel(-1), Year::Rel(0))),
                    ("prev", Expr::Item(i, _)) => Ok(Expr::Item(i, Year::Rel(-1))),
                    (f, _) => Err(format!("`{f}` takes one line item")),
                }
            }
            Some(Tok::Words(w)) => (self.resolve)(&w),
            Some(Tok::Op(c)) => Err(format!("unexpected `{c}`")),
            None => Err("the formula ends too early".into()),
        }
    }
}

/// Parse either notation; `resolve` names the runs of words.
pub fn parse(s: &str, resolve: &Resolve) -> Result<Expr, String> {
    let mut p = Parser { toks: tokens(s), pos: 0, resolve };
    let e = p.expr()?;
    if p.pos < p.toks.len() {
        return Err(format!("unexpected text after the formula: {:?}", &p.toks[p.pos..]));
    }
    Ok(e)
}

/// Fiscal years written in `s` (`FY2018`, `fiscal 2019`, `2017`), in order.
pub fn years_in(s: &str) -> Vec<i32> {
    crate::filter::question_years(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(w: &str) -> Result<Expr, String> {
        let w = w.to_lowercase();
        let ys = years_in(&w);
        let name = ["accounts payable", "inventory", "cogs", "revenue", "dio", "dso", "dpo"].iter().find(|n| w.contains(*n)).ok_or(format!("unknown `{w}`"))?;
        Ok(if w.contains("average") {
            Expr::Avg(name.to_string(), Year::Abs(ys[0]), Year::Abs(ys[1]))
        } else if w.contains("change in") {
            Expr::Change(name.to_string(), Year::Abs(ys[0]), Year::Abs(ys[1]))
        } else {
            Expr::Item(name.to_string(), ys.first().map_or(Year::Rel(0), |y| Year::Abs(*y)))
        })
    }

    #[test]
    fn inline_definition_and_catalogue_notation_evaluate_by_hand() {
        let e =
            parse("365 * (average accounts payable between FY2017 and FY2018) / (FY2018 COGS + change in inventory between FY2017 and FY2018)", &item).unwrap();
        // AP 100 and 120, COGS 1,000, inventory 50 -> 60: 365 * 110 / 1,010 = 39.752...
        let mut v = |i: &str, y: i32| -> Option<Ratio> {
            Some(Ratio::int(match (i, y) {
                ("accounts payable", 2017) => 100,
                ("accounts payable", 2018) => 120,
                ("cogs", 2018) => 1000,
                ("inventory", 2017) => 50,
                ("inventory", 2018) => 60,
                _ => return None,
            }))
        };
        assert_eq!(e.eval(2018, &mut v).unwrap().round_str(2), "39.75");
        assert_eq!(e.show(2018, &|s| s.to_string()), "365 × average accounts payable FY2017–FY2018 ÷ (cogs FY2018 + change in inventory FY2017–FY2018)");
        let c = parse("365 * avg(accounts payable) / (cogs + change(inventory))", &item).unwrap();
        assert_eq!(c.eval(2018, &mut v).unwrap(), e.eval(2018, &mut v).unwrap());
        // a missing operand is named; a zero divisor is reported
        assert_eq!(c.eval(2019, &mut v).unwrap_err(), EvalError::Missing("accounts payable".into(), 2019));
        let z = parse("revenue / (inventory - inventory)", &item).unwrap();
        let mut w = |_: &str, _: i32| Some(Ratio::int(5));
        assert!(matches!(z.eval(2018, &mut w), Err(EvalError::DivisionByZero(_))));
        // minus needs spaces: a hyphen stays in the words
        assert_eq!(tokens("DIO + DSO - DPO").len(), 5);
        assert_eq!(tokens("short-term investments"), vec![Tok::Words("short-term investments".into())]);
        assert!(parse("(revenue", &item).is_err());
        assert!(parse("revenue revenue )", &item).is_err());
    }
}
