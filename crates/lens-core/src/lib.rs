//! 10-K Lens core library: evidence-first question answering over PDFs.
//!
//! One module per stage; front ends reach it through the service crate (`lens-api`) or, for
//! the CLI's batch commands, through [`Library`] and the stage functions. No JSON dispatch, no
//! background jobs and no front-end code live here. See ARCHITECTURE.md for the walk through.

// the lowest layer: imports nothing from the rest of the core
// declared first so that `named_enum!` is in scope in every module below it
#[macro_use]
pub(crate) mod names;
pub mod error;
pub mod pagelabel;
pub mod pageref;
pub mod paths;

// storage and text
pub mod boxes;
pub mod extract;
pub mod meta;
pub mod pdf;
pub mod pdfwrite;
pub mod render;
pub mod store;
pub mod text;

// the filing read once into facts, with the identities they are checked by
pub mod facts;

// the question, read once (pure: the catalogue and rules are passed in)
pub mod figures;
pub mod question;
pub mod replica;

// indexing, retrieval
pub mod dense;
pub mod filter;
pub mod followup;
pub mod index;
pub mod lexicon;
pub mod rank;
pub mod retrieve;

// the library and what runs on it
pub mod answer;
pub mod ask;
pub mod audit;
pub mod calc;
pub mod causes;
pub mod cite;
pub mod counts;
pub mod cover;
pub mod eval;
pub mod eval_answers;
pub mod eval_survival;
pub mod evidence;
pub mod export;
pub mod ingest;
pub mod judge;
pub mod labels;
pub mod labelstore;
pub mod library;
pub mod lists;
pub mod log;
pub mod lookups;
pub mod ocr;
pub mod officers;
pub mod scan;
pub mod schedules;
pub mod sections;
pub mod settings;
pub mod stance;
pub mod support;
pub mod users;
pub mod vision;
pub mod wording;
pub mod workpaper;

pub use error::{LensError, Result};
pub use library::Library;
pub use pageref::PageRef;
pub use retrieve::{Retriever, SearchHit, SearchRequest, SearchResponse};
