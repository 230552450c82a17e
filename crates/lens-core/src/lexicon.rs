//! Financial vocabulary kept as data (`resources/lexicon.json`, extended by
//! `<library>/lexicon.json`): the metric names questions use mapped to the line items filings
//! print ("capital expenditure" -> "purchases of property, plant and equipment"), and statement
//! names mapped to their headings. Search and the extractive answerer add the expansions.

use crate::error::{LensError, Result};
use crate::text::plain_words;
use serde::Deserialize;
use std::path::Path;

const DEFAULT: &str = include_str!("../../../resources/lexicon.json");

#[derive(Debug, Clone, Deserialize, Default)]
pub struct Lexicon {
    #[serde(default)]
    pub metrics: Vec<Metric>,
    #[serde(default)]
    pub statements: Vec<Statement>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Metric {
    pub names: Vec<String>,
    pub line_items: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Statement {
    pub names: Vec<String>,
    pub headings: Vec<String>,
}

/// What a question's vocabulary expands to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expansion {
    pub line_items: Vec<String>,
    pub headings: Vec<String>,
}

fn contains_phrase(words: &[String], phrase: &str) -> bool {
    let p = plain_words(phrase);
    !p.is_empty() && p.len() <= words.len() && words.windows(p.len()).any(|w| w == p.as_slice())
}

impl Lexicon {
    pub fn builtin() -> Lexicon {
        serde_json::from_str(DEFAULT).expect("resources/lexicon.json is valid")
    }

    /// The built-in lexicon plus the entries of `extra` (a user file), if it exists.
    pub fn with_user_file(extra: &Path) -> Result<Lexicon> {
        let mut lx = Lexicon::builtin();
        if extra.is_file() {
            let text = std::fs::read_to_string(extra).map_err(|e| LensError::io(extra, e))?;
            let user: Lexicon = serde_json::from_str(&text).map_err(|e| LensError::BadInput(format!("{}: {e}", extra.display())))?;
            lx.metrics.extend(user.metrics);
            lx.statements.extend(user.statements);
        }
        Ok(lx)
    }

    pub fn expand(&self, question: &str) -> Expansion {
        let words = plain_words(question);
        let mut e = Expansion::default();
        for m in &self.metrics {
            if m.names.iter().any(|n| contains_phrase(&words, n)) {
                for li in &m.line_items {
                    if !e.line_items.contains(li) {
                        e.line_items.push(li.clone());
                    }
                }
            }
        }
        for s in &self.statements {
            if s.names.iter().any(|n| contains_phrase(&words, n)) {
                for h in &s.headings {
                    if !e.headings.contains(h) {
                        e.headings.push(h.clone());
                    }
                }
            }
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn capex_maps_to_ppe_purchases() {
        let e = Lexicon::builtin().expand("What is the FY2018 capital expenditure for 3M, per the cash flow statement?");
        assert!(e.line_items.iter().any(|l| l == "purchases of property plant and equipment"));
        assert_eq!(e.headings, vec!["statements of cash flows".to_string()]);
        assert_eq!(Lexicon::builtin().expand("Who is the CEO?"), Expansion::default());
    }
}
