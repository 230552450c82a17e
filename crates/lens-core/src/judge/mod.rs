//! The rule book: every rule that lowers an answer's label or refuses it, in one ordered
//! registry ([`RULES`]). A rule is an id, a doc line and a check over the [`Claim`] (what was
//! asked, the answer, the page and the line it rests on, and what the library says through
//! [`Lookups`]); a check that fires returns the words its reason needs, and the reason's
//! wording comes from the wording table (`resources/wording.json`, `reasons`), never from the
//! rule. The word lists rules read are in `resources/judge.json` ([`words`]); each rule's cases
//! are in `tests/rules/<id>.jsonl`, run by `crates/lens-core/tests/rules.rs`.
//!
//! The registry's order is the order reasons are said, and it is the priority: rules of one
//! `group` are tried in order and only the first that fires is said (the later ones do not
//! run: some search the filing). A rule of [`Effect::NoAnswer`] ends the judgement with no
//! support ("Not found", nothing cited). An answer no rule fires on is **strong**; one that any
//! fires on is **weak**. [`refusal`] runs the rules of [`Effect::Refuse`]: the answer is
//! replaced by "Not found" with the reason.
//!
//! Adding a rule: a function in the file of its kind, an entry in [`RULES`] at its place, its
//! wording in `wording.json`'s `reasons`, its words (if any) in `judge.json`, and a case file
//! with at least one case where it fires and one where it does not.
//!
//! `form` holds the verifier's form checks (`type`, `narrative`), which run after the label is
//! judged and carry their check's name as their id ([`crate::figures::rules::Check`]).

mod figure;
pub mod form;
mod library;
mod line;
mod measure;
mod scope;
mod shape;
pub mod words;

use crate::evidence::FoundBy;
use crate::figures::rules::Check;
use crate::pageref::PageRef;
use crate::question::Question;
use crate::support::Support;

/// What a rule does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// The answer is shown as weak ("Best match, low confidence"), with the reason.
    Lower,
    /// The answer has no support: nothing was found, or nothing is cited.
    NoAnswer,
    /// The answer is replaced by "Not found", with the reason ([`refusal`]).
    Refuse,
}

/// The words a fired rule's reason is said with (its wording's `{0}`, `{1}` ...).
pub type Fired = Vec<String>;

/// One rule of the book.
pub struct Rule {
    /// A stable id: what `ask --json`, the log and `eval-answers --json`'s `by_rule` name.
    pub id: &'static str,
    /// One line: what the rule catches.
    pub doc: &'static str,
    pub effect: Effect,
    /// Rules of one group: only the first that fires is said.
    pub group: Option<&'static str>,
    check: fn(&Claim) -> Option<Fired>,
}

impl Rule {
    /// The rule on a claim: a failed [`Check`] named by the rule's id, with its reason in the
    /// wording table's words, when it fires.
    pub fn run(&self, c: &Claim) -> Option<Check> {
        (self.check)(c).map(|words| Check::fail(self.id, crate::wording::reason(self.id, &words)))
    }
}

/// What the library can say of an answer, for the rules that read it: the app's [`Library`]
/// implements it in `ask`; [`NoLookups`] says nothing.
///
/// [`Library`]: crate::library::Library
pub trait Lookups {
    /// The quoted row's label and another page of the filing that prints the same label with
    /// figures at least three times as large.
    fn larger_elsewhere(&self, page: &PageRef, quote: &str) -> Option<(String, PageRef)>;
    /// The months of the part-year column (3, 6, 9) under which every printing of the answer's
    /// figures on the page's tables stands; None when one is in a year's column or in none.
    fn part_year_months(&self, page: &PageRef, answer: &str) -> Option<u8>;
    /// For a cited document: its fiscal year, and the latest filing of the companies the
    /// question names with its year.
    fn later_filing(&self, doc_id: &str) -> Option<(i32, String, i32)>;
    /// The facts of a page inside an accounting identity that did not hold (`crate::facts`):
    /// each as its row label, its value (signed, as `calc::Operand::value` has it), the cell as
    /// printed, and the identity.
    fn flagged_facts(&self, page: &PageRef) -> Vec<FlaggedFact>;
    /// A company the question names that the company list knows and the library holds no
    /// filing of, with the companies the library holds.
    fn absent_company(&self) -> Option<(String, Vec<String>)>;
    /// The years of the columns in which the quoted line, a row of one of the page's tables,
    /// prints its figures ("Less long-term debt maturing within one year 7,443 5,569" under
    /// 2021 and 2020); empty when the line is no row of them.
    fn row_years(&self, page: &PageRef, quote: &str) -> Vec<i32>;
}

pub use crate::facts::FlaggedFact;

/// Lookups that find nothing: a claim judged from its own texts.
pub struct NoLookups;

impl Lookups for NoLookups {
    fn larger_elsewhere(&self, _: &PageRef, _: &str) -> Option<(String, PageRef)> {
        None
    }
    fn part_year_months(&self, _: &PageRef, _: &str) -> Option<u8> {
        None
    }
    fn later_filing(&self, _: &str) -> Option<(i32, String, i32)> {
        None
    }
    fn flagged_facts(&self, _: &PageRef) -> Vec<FlaggedFact> {
        Vec::new()
    }
    fn absent_company(&self) -> Option<(String, Vec<String>)> {
        None
    }
    fn row_years(&self, _: &PageRef, _: &str) -> Vec<i32> {
        Vec::new()
    }
}

/// What the judgement looks at.
pub struct Claim<'a> {
    pub question: &'a Question,
    pub answer: &'a str,
    pub not_found: bool,
    /// The first cited page (None: the answer cites none).
    pub cited: Option<&'a PageRef>,
    pub found_by: FoundBy,
    /// The first cited page's text.
    pub page_text: &'a str,
    /// The quoted (or boxed) line the answer rests on.
    pub quote: Option<&'a str>,
    /// Fiscal years the question names (from the document filter).
    pub years: &'a [i32],
    /// Whether the cited document is among those the question names (None: it names none).
    pub in_scope: Option<bool>,
    /// When the question names no company and the library holds several: their names.
    pub unnamed_among: &'a [String],
    /// The companies the document filter found named, in lower case.
    pub companies_named: &'a [String],
    /// Whether the question names a company or document of the library, or the user picked
    /// the documents.
    pub names_library: bool,
    /// What a worked answer says to check: its calculation's warning (a rule's id and words).
    pub calc_warning: Option<&'a crate::calc::Warning>,
    /// ... or, in a calculation logged before warnings had rules, its caveat as written.
    pub calc_caveat: Option<&'a str>,
    /// A calculation that gave no result: what it could not do ("not found: interest expense").
    pub calc_problem: Option<&'a str>,
    /// The computed result's shape (`calc::Calculation::shape`: "list" for a figure of each
    /// member), when the answer is one.
    pub calc_shape: Option<&'a str>,
    /// A worked answer's operands (where each was read).
    pub operands: &'a [crate::calc::Operand],
    /// A model's answer that quotes no line of the pages.
    pub unquoted: bool,
    /// The answer is a worked calculation's result.
    pub computed: bool,
    /// The fiscal year of the cited document, when known: a narrative answer from the filing of
    /// the year asked need not name the year on its page.
    pub doc_year: Option<i32>,
    /// The answer is a whole list by the filing's own count (`crate::lists::list_complete`):
    /// the line need not hold the question's words.
    pub list_complete: bool,
    /// The label the rules before have left (for the refusals, which read it).
    pub support: Support,
    pub lookups: &'a dyn Lookups,
}

impl<'a> Claim<'a> {
    /// A claim of `answer` to `question` resting on `quote` of `page_text`, cited, found by
    /// its quote, naming nothing else: the start the callers and the case tables fill in.
    pub fn new(question: &'a Question, answer: &'a str, page_text: &'a str, cited: &'a PageRef) -> Claim<'a> {
        Claim {
            question,
            answer,
            not_found: false,
            cited: Some(cited),
            found_by: FoundBy::Quote,
            page_text,
            quote: None,
            years: &[],
            in_scope: None,
            unnamed_among: &[],
            companies_named: &[],
            names_library: true,
            calc_warning: None,
            calc_caveat: None,
            calc_problem: None,
            calc_shape: None,
            operands: &[],
            unquoted: false,
            computed: false,
            doc_year: None,
            list_complete: false,
            support: Support::None,
            lookups: &NoLookups,
        }
    }

    /// The line the answer rests on: the quote, else the answer.
    pub fn line(&self) -> &'a str {
        self.quote.unwrap_or(self.answer)
    }

    /// The line in lower case, a run of white space (no-break spaces too) as one space.
    pub fn lower_line(&self) -> String {
        self.line().split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
    }

    /// The answer names the holder of the office a "who" question asks about, as the quoted
    /// signature block or executive officers' table prints it (`crate::officers::quote_holds`),
    /// or the filer's fact asked (its headquarters, state of incorporation or auditor) as the
    /// quoted cover page or auditor's report prints it (`crate::cover::quote_holds`): its lines
    /// are a name, an address or a caption by their layout, not a sentence holding the
    /// question's words.
    pub fn filer_fact_held(&self) -> bool {
        crate::officers::quote_holds(&self.question.text, self.quote, self.answer) == Some(true)
            || crate::cover::quote_holds(&self.question.text, self.quote, self.answer) == Some(true)
    }

    /// The quote says why the measure a "why" question asks about changed, for the company (or
    /// the part the question names), in a sentence naming the measure before its cause
    /// (`crate::causes::quote_holds`): its words are the filing's, not the question's.
    pub fn cause_held(&self) -> bool {
        crate::causes::quote_holds(self.question, self.quote, self.page_text) == Some(true)
    }

    /// The answer is a worked calculation's result (its evidence is its operand cells).
    pub fn worked(&self) -> bool {
        self.found_by == FoundBy::Calculation
    }
}

/// Words as a rule passes them to its wording: each to a string.
fn said<const N: usize>(words: [&dyn std::fmt::Display; N]) -> Option<Fired> {
    Some(words.iter().map(|w| w.to_string()).collect())
}

/// Names as a reason lists them: the first six joined, and " and N more" for the rest.
fn first_six(names: &[String]) -> (String, String) {
    let shown: Vec<&str> = names.iter().take(6).map(String::as_str).collect();
    let more = if names.len() > shown.len() { format!(" and {} more", names.len() - shown.len()) } else { String::new() };
    (shown.join(", "), more)
}

/// A rule that fired with no words to say.
fn fired() -> Option<Fired> {
    Some(Vec::new())
}

macro_rules! rules {
    ($( $id:literal $effect:ident $group:expr, $check:path, $doc:literal; )*) => {
        /// The registry, in the order reasons are said.
        pub static RULES: &[Rule] = &[ $( Rule { id: $id, doc: $doc, effect: Effect::$effect, group: $group, check: $check }, )* ];
    };
}

rules! {
    "not_found" NoAnswer Some("no_answer"), scope::not_found, "No answer was found on the pages read.";
    "uncited" NoAnswer Some("no_answer"), scope::uncited, "The answer cites no page.";
    "words_not_found" Lower None, figure::words_not_found, "The answer's words (quote or figures) were not found on the cited page.";
    "figures_off_page" Lower None, figure::figures_off_page, "A figure the answer states is not printed on the cited page.";
    "figures_off_line" Lower None, figure::figures_off_line, "The answer's figures are on the page but not on the line it rests on.";
    "no_figure" Lower None, figure::no_figure, "A figure asked, and the answer states none (a code or a date's day is no figure).";
    "only_percents" Lower None, figure::only_percents, "A count or an amount asked (\"how many\", a line item's amount), and the answer states only percents.";
    "ratio_as_amounts" Lower None, figure::ratio_as_amounts, "A ratio asked, and the answer quotes only amounts.";
    "yes_no_unsaid" Lower None, shape::yes_no_unsaid, "Yes or no asked, and the answer does not say which.";
    "compare_one_line" Lower None, shape::compare_one_line, "Two periods compared, and the answer is one line, not both values.";
    "change_one_figure" Lower None, shape::change_one_figure, "A change asked, and the answer states one figure and no word of change.";
    "total_unsaid" Lower None, shape::total_unsaid, "A total of several asked, and the line states no total.";
    "one_for_each" Lower None, shape::one_for_each, "A figure of each member asked (by segment, for each region), and the answer gives one member's or the total.";
    "explanation_row" Lower None, shape::explanation_row, "An explanation asked, and the answer is a table row.";
    "sentence_cut" Lower None, shape::sentence_cut, "An explanation asked, and the quoted sentence stops mid-clause (no sentence end).";
    "words_as_figures" Lower None, shape::words_as_figures, "Names or a sentence asked, and the answer is a run of a table's figures.";
    "other_years" Lower None, shape::other_years, "The line (or the columns its table row stands in) names years, none of them the years asked.";
    "growth_as_levels" Lower None, shape::growth_as_levels, "A growth rate asked, and the line states levels with no rate or change.";
    "parent_only" Lower None, shape::parent_only, "The parent company alone asked, and the page is not its own statement.";
    "own_measure" Lower None, shape::own_measure, "The company's own (non-GAAP) measure asked, and the line never says it.";
    "measure_unnamed" Lower Some("measure"), measure::measure_unnamed, "A figure asked, and the line does not name every word of the measure.";
    "other_subject" Lower Some("measure"), measure::other_subject, "The line's figure is of another subject than the measure asked.";
    "measure_and_other" Lower Some("measure"), measure::measure_and_other, "The line's figure is of the measure and another item together.";
    "measure_included" Lower Some("measure"), measure::measure_included, "The line names the measure only inside an \"including ...\" clause: its figure is of a whole that holds it.";
    "stated_twice" Lower None, measure::stated_twice, "A figure asked, and the page states the phrase the line's figure is stated with after another figure, for the year asked: each may be a part.";
    "rows_run_over" Lower None, measure::rows_run_over, "The quoted text runs over two or more table rows.";
    "column_heads" Lower None, measure::column_heads, "The quoted text runs many words (a table's column heads) before its first figure.";
    "statutory_rate" Lower None, measure::statutory_rate, "A rate asked, and the line states the law's (statutory) rate.";
    "pending_amount" Lower None, measure::pending_amount, "The line's figure is not yet reported (to be recognized, expected).";
    "after_tax" Lower None, measure::after_tax, "The line states the measure after tax, or its tax.";
    "change_for_level" Lower None, measure::change_for_level, "A level asked, and the line states a change in it.";
    "would_have_been" Lower None, line::would_have_been, "The line states what a figure would have been.";
    "quoted_person" Lower None, line::quoted_person, "The line is a person's words quoted in the document.";
    "another_item" Lower None, line::another_item, "The line names the measure only as part of another item (goodwill impairment).";
    "no_month" Lower None, line::no_month, "When a period ends or begins asked, and the line names no month.";
    "thing_unnamed" Lower None, line::thing_unnamed, "\"What is X's <thing>\" asked in words, and the line does not name the thing.";
    "compares_nothing" Lower None, line::compares_nothing, "\"Which is the fastest ...\" asked, and the line compares nothing.";
    "office_unheld" Lower None, line::office_unheld, "Who holds an office asked (the CEO, the CFO), and the quote names no holder of the company's office.";
    "filer_fact_unread" Lower None, line::filer_fact_unread, "The filer's headquarters, state of incorporation, auditor or number of employees asked, and the quote is not the cover page's or the auditor's report's line that says it.";
    "cause_unsaid" Lower None, line::cause_unsaid, "Why a measure changed asked, and the line does not name the company's measure before a cause (another measure's sentence, or a part's).";
    "who_unsaid" Lower None, line::who_unsaid, "Who the customers, competitors or suppliers are asked, and the line does not say who.";
    "which_kind" Lower None, line::which_kind, "\"Which <kind>\" asked, and the line names no such kind.";
    "by_reference" Lower None, line::by_reference, "The line points to another document (incorporated by reference).";
    "no_grade" Lower None, line::no_grade, "A credit rating asked, and the line states no grade.";
    "per_share" Lower None, line::per_share, "A figure per share asked, and the line states none per share.";
    "held_vs_moved" Lower None, line::held_vs_moved, "What is held asked, and the line states what was issued or repaid.";
    "no_own_words" Lower None, line::no_own_words, "A figure asked with no measure named, and the line holds none of the question's words.";
    "year_missing" Lower None, line::year_missing, "Years compared in words, and the line does not name each year.";
    "part_measure" Lower None, line::part_measure, "Years compared in words, and the line states a part's measure.";
    "burn_unsaid" Lower None, line::burn_unsaid, "Cash burned asked, and the line does not say a burn.";
    "buyback_unsaid" Lower None, line::buyback_unsaid, "Stock bought back asked, and the line does not say a repurchase.";
    "treatment_unsaid" Lower None, line::treatment_unsaid, "The measure asked under an accounting treatment (capitalized, deferred, accrued, impaired ...), and the line or the worked answer's rows never name it.";
    "boilerplate" Lower None, line::boilerplate, "The quoted paragraph is legal boilerplate.";
    "identity_failed" Lower Some("caveat"), library::identity_failed, "A figure read from a table whose accounting identity does not hold (a total its rows do not add up to).";
    "mixed_filings" Lower Some("caveat"), library::mixed_filings, "A worked result whose operands come from different filings (their periods may differ).";
    "sign_unread" Lower Some("caveat"), library::sign_unread, "A worked result on an expense printed in parentheses whose sign the table does not settle.";
    "zeroed_items" Lower Some("caveat"), library::zeroed_items, "A worked result that counted items the balance sheet does not print as 0.";
    "negative_base" Lower Some("caveat"), library::negative_base, "A growth worked over a first year that is a loss.";
    "loss_tax_rate" Lower Some("caveat"), library::loss_tax_rate, "A tax rate worked over a pretax loss.";
    "rank_unsure" Lower Some("caveat"), library::rank_unsure, "A ranking over a table chosen by the page's words, not by a total row naming what was ranked.";
    "temporary_equity" Lower Some("caveat"), library::temporary_equity, "Total liabilities worked as liabilities and equity less equity, on a balance sheet that prints redeemable (temporary) equity between them.";
    "interim_balance" Lower Some("caveat"), library::interim_balance, "A fiscal year's figure asked (no quarter named), and an operand is read from a quarterly report.";
    "member_once" Lower Some("caveat"), library::member_once, "A part's figure (a segment's, a region's) read from one table of the filing, no other to agree.";
    "calc_caveat" Lower Some("caveat"), library::calc_caveat, "A calculation logged before warnings had rules: its caveat as written.";
    "model_unquoted" Lower Some("caveat"), library::model_unquoted, "The model's answer quotes no line of the pages.";
    "missed_row" Lower Some("caveat"), library::missed_row, "The worked answer found no row of the item, and a quoted row answers instead.";
    "part_row" Lower Some("caveat"), library::part_row, "The quoted row's label is printed elsewhere in the filing with much larger figures (a part's row).";
    "unnamed_term" Lower Some("caveat"), library::unnamed_term, "A term of art asked (RevPAR, ARR), and the line never names it.";
    "quarter_only" Lower Some("caveat"), library::quarter_only, "A year's figure asked, and the answer's figures stand only under part-year columns.";
    "later_filing" Lower Some("caveat"), library::later_filing, "No year asked, and the library holds a later filing of the company.";
    "which_company" Lower None, scope::which_company, "No company named, and the library holds several.";
    "years_absent" Lower None, scope::years_absent, "The cited page does not mention a year asked.";
    "out_of_scope" Lower None, scope::out_of_scope, "The cited document is not one the question names.";
    "page_share" Lower Some("share"), scope::page_share, "The cited page holds too few of the question's words.";
    "line_share" Lower Some("share"), scope::line_share, "The quoted line holds too few of the question's words.";
    "introduces_list" Lower Some("share"), scope::introduces_list, "The quoted line introduces a list or table (ends with a colon, \"the following table\").";
    "label_line" Lower Some("share"), scope::label_line, "The quoted line is a heading or label naming what was asked.";
    "company_not_held" Refuse Some("refusal"), library::company_not_held, "The question names a company the library holds no filing of.";
    "off_topic" Refuse Some("refusal"), scope::off_topic, "No document of the library named, and the best line does not answer the question.";
}

/// The rule of an id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The label of a claim and the rules that fired, each as a failed [`Check`] named by its id
/// (its detail is the reason shown).
pub fn judge(c: &Claim) -> (Support, Vec<Check>) {
    let mut out: Vec<Check> = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for r in RULES.iter().filter(|r| r.effect != Effect::Refuse) {
        if r.group.is_some_and(|g| done.contains(&g)) {
            continue;
        }
        let Some(check) = r.run(c) else { continue };
        if let Some(g) = r.group {
            done.push(g);
        }
        out.push(check);
        if r.effect == Effect::NoAnswer {
            return (Support::None, out);
        }
    }
    let support = if out.is_empty() { Support::Strong } else { Support::Weak };
    (support, out)
}

/// The first refusal that fires on a judged claim (`c.support` set): the answer is then "Not
/// found" with its reason.
pub fn refusal(c: &Claim) -> Option<Check> {
    RULES.iter().filter(|r| r.effect == Effect::Refuse).find_map(|r| r.run(c))
}

/// Reasons and their rules' ids, from the checks [`judge`] returns.
pub fn split(checks: Vec<Check>) -> (Vec<String>, Vec<String>) {
    checks.into_iter().map(|c| (c.detail, c.name)).unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_every_rule_has_its_wording() {
        let mut seen = std::collections::HashSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "{} twice", r.id);
            assert!(crate::wording::has_reason(r.id), "{} has no wording in wording.json's reasons", r.id);
            assert!(!r.doc.is_empty());
        }
        assert!(RULES.len() >= 40);
    }

    #[test]
    fn a_group_says_only_its_first_rule_and_no_answer_ends_the_judgement() {
        let q = Question::parse("What was 3M's capital expenditure in FY2018?");
        let p = PageRef::new("3M_2018_10K", 60);
        let mut c = Claim::new(&q, "x", "", &p);
        c.not_found = true;
        c.cited = None;
        let (s, checks) = judge(&c);
        assert_eq!(s, Support::None);
        assert_eq!(checks.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), vec!["not_found"]);
    }
}
