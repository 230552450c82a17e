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
    /// Ids of the statements that print these line items.
    #[serde(default)]
    pub statements: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Statement {
    /// Short id metrics refer to ("cash_flow"); defaults to the first name.
    #[serde(default)]
    pub id: String,
    pub names: Vec<String>,
    pub headings: Vec<String>,
}

/// What a question's vocabulary expands to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expansion {
    pub line_items: Vec<String>,
    pub headings: Vec<String>,
    /// Statements the question asks about, by name or through a metric (ids, in order).
    pub statements: Vec<String>,
    /// How many of `statements` the question names outright (they come first).
    pub named_statements: usize,
}

/// A user's data file beside the built-in one (`<library>/lexicon.json`, `companies.json`):
/// `None` when it does not exist; a file that is not valid JSON of that shape is an error
/// naming the file.
pub(crate) fn read_user_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|e| LensError::io(path, e))?;
    serde_json::from_str(&text).map(Some).map_err(|e| LensError::BadInput(format!("{}: {e}", path.display())))
}

fn contains_phrase(words: &[String], phrase: &str) -> bool {
    let p = plain_words(phrase);
    !p.is_empty() && p.len() <= words.len() && words.windows(p.len()).any(|w| w == p.as_slice())
}

impl Lexicon {
    pub fn builtin() -> Lexicon {
        let lx: Lexicon = serde_json::from_str(DEFAULT).expect("resources/lexicon.json is valid");
        lx.with_ids()
    }

    fn with_ids(mut self) -> Lexicon {
        for s in &mut self.statements {
            if s.id.is_empty() {
                s.id = s.names.first().cloned().unwrap_or_default();
            }
        }
        self
    }

    /// The statement with this id.
    pub fn statement(&self, id: &str) -> Option<&Statement> {
        self.statements.iter().find(|s| s.id == id)
    }

    /// The built-in lexicon plus the entries of `extra` (a user file), if it exists.
    pub fn with_user_file(extra: &Path) -> Result<Lexicon> {
        let mut lx = Lexicon::builtin();
        if let Some(user) = read_user_json::<Lexicon>(extra)? {
            let user = user.with_ids();
            lx.metrics.extend(user.metrics);
            lx.statements.extend(user.statements);
        }
        Ok(lx)
    }

    pub fn expand(&self, question: &str) -> Expansion {
        let words = plain_words(question);
        let mut e = Expansion::default();
        let push = |v: &mut Vec<String>, x: &String| {
            if !v.contains(x) {
                v.push(x.clone())
            }
        };
        let mut metric_statements = Vec::new();
        for m in &self.metrics {
            if m.names.iter().any(|n| contains_phrase(&words, n)) {
                m.line_items.iter().for_each(|li| push(&mut e.line_items, li));
                m.statements.iter().for_each(|s| push(&mut metric_statements, s));
            }
        }
        // a statement named outright comes first; its headings join the query
        for s in &self.statements {
            if s.names.iter().any(|n| contains_phrase(&words, n)) {
                s.headings.iter().for_each(|h| push(&mut e.headings, h));
                push(&mut e.statements, &s.id);
            }
        }
        e.named_statements = e.statements.len();
        metric_statements.iter().for_each(|s| push(&mut e.statements, s));
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
        assert_eq!(e.headings[0], "statements of cash flows");
        assert_eq!(e.statements, vec!["cash_flow".to_string()]);
        let e = Lexicon::builtin().expand("What is the quick ratio of Adobe in FY2022?");
        assert_eq!(e.statements, vec!["balance".to_string()]);
        assert_eq!(Lexicon::builtin().expand("Who is the CEO?"), Expansion::default());
    }
}
