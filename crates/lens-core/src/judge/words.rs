//! The word lists the judging rules read, from `resources/judge.json` (shipped in the binary):
//! one list a field, named for what it holds. Pure data; a test reads the file.

use serde::Deserialize;
use std::sync::LazyLock;

const FILE: &str = include_str!("../../../../resources/judge.json");

/// The lists of `resources/judge.json`.
#[derive(Debug, Deserialize)]
pub struct Words {
    /// Words that, right after a measure's name, make it another item ("goodwill impairment").
    pub another_item_after: Vec<String>,
    /// Words of "when does ... end / begin".
    pub period_boundary: Vec<String>,
    /// For "who are the customers / competitors / suppliers": the phrases of a line that says who.
    pub who_says: Vec<WhoSays>,
    /// Words of a question that ask for the first or last of several.
    pub superlatives: Vec<String>,
    /// Words of a line that compare (with the superlatives).
    pub comparing: Vec<String>,
    /// Words after "which" that name no kind of thing.
    pub not_a_kind: Vec<String>,
    pub by_reference: Vec<String>,
    pub rating_asked: Vec<String>,
    pub per_share_said: Vec<String>,
    /// Words of a question that ask what is held (with a space before them).
    pub held_asked: Vec<String>,
    /// ... and those that ask what moved (issued, repaid).
    pub moved_asked: Vec<String>,
    pub moved_verbs: Vec<String>,
    /// Words that name no measure ("how much money did it make").
    pub vague_words: Vec<String>,
    /// Words that may stand before a measure on a line and leave it the company's whole measure.
    pub line_leads: Vec<String>,
    /// Openings of a sentence that says tables follow.
    pub introduces_tables: Vec<String>,
    /// Words of a line that make its rate the law's, not the company's.
    pub statutory_words: Vec<String>,
    /// Words that make a measure the company's own (non-GAAP) one.
    pub own_measure_words: Vec<String>,
    /// Word starts that say a figure is a change (a word of four letters or fewer whole).
    pub change_words: Vec<String>,
    /// Words of a line that make its figure one not yet reported.
    pub pending_words: Vec<String>,
    /// Words of a line that make its figure a measure after tax, or the tax on it.
    pub after_tax_words: Vec<String>,
    /// Words of a question that name no measure ("what", "total", "usd").
    pub not_a_head: Vec<String>,
    /// Where a measure's phrase after its possessor ends.
    pub phrase_stops: Vec<String>,
    /// Words never part of a measure's phrase.
    pub not_in_phrase: Vec<String>,
    /// Words of a line that say it states a total.
    pub total_said: Vec<String>,
    /// Phrases of what a figure would have been.
    pub would_have: Vec<String>,
    pub burn_asked: Vec<String>,
    pub buyback_asked: Vec<String>,
    pub buyback_said: Vec<String>,
    /// Stems of an accounting treatment that makes a measure another ("interest capitalized" is
    /// not interest expense; "deferred revenue" is not revenue).
    pub treatments: Vec<String>,
    /// Openings (or words) of a question that asks for a cause.
    pub cause_asks: Vec<String>,
    /// Openings of a question that asks for a list of things.
    pub list_asks: Vec<String>,
}

/// A kind of party ("customer") and the phrases of a line that says who they are.
#[derive(Debug, Deserialize)]
pub struct WhoSays {
    pub kind: String,
    pub says: Vec<String>,
}

/// The lists, read once.
pub static WORDS: LazyLock<Words> = LazyLock::new(|| serde_json::from_str(FILE).expect("resources/judge.json is valid (tested)"));

/// Whether `list` holds `w`.
pub fn holds(list: &[String], w: &str) -> bool {
    list.iter().any(|x| x == w)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_file_reads() {
        assert!(!super::WORDS.superlatives.is_empty());
        assert_eq!(super::WORDS.who_says.len(), 3);
    }
}
