//! 10-K Lens core library: evidence-first question answering over PDFs.
//!
//! One module per stage; front ends (the `lens` CLI, the Tauri app, `lens serve`) only call
//! into [`Library`] and the stage functions. See ARCHITECTURE.md for the walk through.

pub mod answer;
pub mod api;
pub mod ask;
pub mod boxes;
pub mod error;
pub mod eval;
pub mod eval_answers;
pub mod evidence;
pub mod extract;
pub mod filter;
pub mod index;
pub mod ingest;
pub mod lexicon;
pub mod rank;
pub mod dense;
pub mod library;
pub mod meta;
pub mod ocr;
pub mod paths;
pub mod pdf;
pub mod render;
pub mod scan;
pub mod settings;
pub mod store;
pub mod text;
pub mod watch;

pub use error::{LensError, Result};
pub use library::{Library, SearchHit, SearchRequest, SearchResponse};
