//! One module per `lens` command: its arguments (`Args`) and `run`. main.rs parses and
//! dispatches; helpers several commands share stay there.

pub mod ablate;
pub mod alias;
pub mod ask;
pub mod dense;
pub mod devices;
pub mod docs;
pub mod eval;
pub mod eval_answers;
pub mod export;
pub mod facts;
pub mod feedback;
pub mod ingest;
pub mod log;
pub mod models;
pub mod ocr;
pub mod remove;
pub mod render;
pub mod scan_experiment;
pub mod search;
pub mod tables;
pub mod user;
pub mod watch;
pub mod workpaper;
