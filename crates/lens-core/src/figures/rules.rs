//! The verifier's rules as data (`resources/checks.json`, extended per library by
//! `<library>/checks.json`) and the record of one check: what the checks of worked answers
//! (`calc::checks`) and of every answer (`verify`) read and write. Pure data.

use crate::error::{LensError, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One check's outcome, in the user's words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// `type`, `range`, `scale`, `periods`, `concept`, `readings`, `narrative`.
    pub name: String,
    /// Passed (true), failed (false), or could not run (null): neither.
    pub passed: Option<bool>,
    pub detail: String,
}

impl Check {
    pub fn pass(name: &str, detail: impl Into<String>) -> Check {
        Check { name: name.into(), passed: Some(true), detail: detail.into() }
    }
    pub fn fail(name: &str, detail: impl Into<String>) -> Check {
        Check { name: name.into(), passed: Some(false), detail: detail.into() }
    }
    pub fn not_run(name: &str, detail: impl Into<String>) -> Check {
        Check { name: name.into(), passed: None, detail: detail.into() }
    }
    pub fn failed(&self) -> bool {
        self.passed == Some(false)
    }
}

/// Whether any check failed.
pub fn any_failed(checks: &[Check]) -> bool {
    checks.iter().any(Check::failed)
}

/// A measure's possible values (percents as fractions) and what to say outside them.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Bound {
    pub min: f64,
    pub max: f64,
    pub says: String,
}

/// The rules the checks read.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
pub struct Rules {
    #[serde(default)]
    pub ranges: BTreeMap<String, Bound>,
    #[serde(default)]
    pub shapes: BTreeMap<String, Bound>,
    #[serde(default)]
    pub item_margin: Option<Bound>,
    #[serde(default)]
    pub units: BTreeMap<String, Bound>,
    #[serde(default)]
    pub compound_heads: Vec<String>,
    #[serde(default)]
    pub concept_modifiers: Vec<String>,
    #[serde(default)]
    pub quarter_words: Vec<String>,
    #[serde(default)]
    pub causal_markers: Vec<String>,
    /// Words that may follow a line item's label without making it another item ("Net earnings
    /// including noncontrolling interests"; not "from continuing operations", which is another).
    #[serde(default)]
    pub label_qualifiers: Vec<String>,
    /// Metrics computed in more than one way in practice, with the ways ("average or year-end
    /// equity"): asked without a formula, never shown as supported.
    #[serde(default)]
    pub definitions: BTreeMap<String, String>,
    /// Words of a table's title that make it a part of the company, not its whole ("Supplemental
    /// balance sheet information related to leases": its "Property and equipment, net" is the
    /// leased assets'): its rows are not read for a line item whose own names lack the words.
    #[serde(default)]
    pub part_titles: Vec<String>,
    /// Words that may stand right before a measure's name in a question and leave it the
    /// company's whole measure ("total", "net", "unadjusted", "fiscal"); any other word there
    /// names a part of it ("membership fee revenue", "AWS operating income").
    #[serde(default)]
    pub lead_words: Vec<String>,
}

const BUILTIN: &str = include_str!("../../../../resources/checks.json");

impl Rules {
    pub fn builtin() -> Rules {
        serde_json::from_str(BUILTIN).expect("resources/checks.json parses")
    }

    /// The built-in rules with a library's own put over them (same keys replace; lists add).
    pub fn with_user_file(path: &Path) -> Result<Rules> {
        let mut r = Rules::builtin();
        if path.is_file() {
            let text = std::fs::read_to_string(path).map_err(|e| LensError::io(path, e))?;
            let u: Rules = serde_json::from_str(&text).map_err(|e| LensError::BadInput(format!("{}: {e}", path.display())))?;
            r.ranges.extend(u.ranges);
            r.shapes.extend(u.shapes);
            r.units.extend(u.units);
            if u.item_margin.is_some() {
                r.item_margin = u.item_margin;
            }
            r.compound_heads.extend(u.compound_heads);
            r.concept_modifiers.extend(u.concept_modifiers);
            r.quarter_words.extend(u.quarter_words);
            r.causal_markers.extend(u.causal_markers);
            r.label_qualifiers.extend(u.label_qualifiers);
            r.definitions.extend(u.definitions);
            r.part_titles.extend(u.part_titles);
            r.lead_words.extend(u.lead_words);
        }
        for (k, b) in r.ranges.iter().chain(&r.shapes).chain(&r.units) {
            // (a NaN bound is refused too)
            if b.min.partial_cmp(&b.max).is_none_or(|o| o == std::cmp::Ordering::Greater) {
                return Err(LensError::BadInput(format!("checks: the range of `{k}` has min {} above max {}", b.min, b.max)));
            }
        }
        Ok(r)
    }
}
