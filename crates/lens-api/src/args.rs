//! The typed arguments and results of the commands. JSON field names here are the API's: the
//! UI (`ui/app.js`) and the tests use them as written.

use lens_core::answer::AnswererKind;
use lens_core::ask::AskRequest;
use lens_core::error::{LensError, Result};
use lens_core::evidence::EvidenceBox;
use lens_core::pageref::PageRef;
use lens_core::retrieve::Retriever;
use lens_core::settings::Settings;
use lens_core::Library;
use serde::{Deserialize, Serialize};

fn yes() -> bool {
    true
}
fn ten() -> usize {
    10
}
fn hundred() -> usize {
    100
}
fn default_dpi() -> f32 {
    110.0
}

#[derive(Debug, Clone, Serialize)]
pub struct AppInfo {
    pub library: String,
    pub version: &'static str,
    pub answerers: Vec<&'static str>,
    pub retrievers: Vec<&'static str>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SearchArgs {
    pub query: String,
    #[serde(default = "ten")]
    pub k: usize,
    /// Search only these documents (overrides the filter).
    #[serde(default)]
    pub docs: Vec<String>,
    /// Restrict to the companies / years / forms the question names.
    #[serde(default = "yes")]
    pub filter: bool,
    /// Default: the library's setting.
    #[serde(default)]
    pub retriever: Option<Retriever>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AskArgs {
    pub question: String,
    #[serde(default)]
    pub docs: Vec<String>,
    #[serde(default = "yes")]
    pub filter: bool,
    /// Pages given to the answerer (default: the library's `top_k`).
    #[serde(default)]
    pub k: Option<usize>,
    #[serde(default)]
    pub answerer: Option<AnswererKind>,
    #[serde(default)]
    pub retriever: Option<Retriever>,
    /// The team user asking: set by the team server from the caller's token, never taken from
    /// a client (the server drops it from a request's body).
    #[serde(default)]
    pub user: Option<String>,
    /// The log id of the question this one follows up: what it does not say (company, period,
    /// measure, chosen filings) is kept from that one ([`lens_core::followup`]).
    #[serde(default)]
    pub follow_up_of: Option<i64>,
}

impl AskArgs {
    pub fn new(question: impl Into<String>) -> AskArgs {
        AskArgs { question: question.into(), docs: Vec::new(), filter: true, k: None, answerer: None, retriever: None, user: None, follow_up_of: None }
    }

    /// The core request: these arguments over the library's settings. Loads the embedding model
    /// when the retriever needs it.
    pub fn request(&self, lib: &Library, st: &Settings) -> Result<AskRequest> {
        let mut r = AskRequest::new(self.question.clone());
        r.k = self.k.unwrap_or(st.top_k);
        r.answerer = self.answerer.unwrap_or(st.answerer);
        r.retriever = crate::choose_retriever(lib, st, self.retriever, false)?;
        r.docs = self.docs.clone();
        r.filter = self.filter;
        r.asked_by = self.user.clone();
        Ok(r)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct FeedbackArgs {
    pub id: i64,
    /// +1 (right) or -1 (wrong)
    pub value: i32,
    #[serde(default)]
    pub note: Option<String>,
    /// The team user giving it (set by the team server, as [`AskArgs::user`]).
    #[serde(default)]
    pub user: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct LogArgs {
    #[serde(default = "hundred")]
    pub limit: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DocArgs {
    pub doc: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AliasArgs {
    pub doc: String,
    pub alias: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AliasesArgs {
    #[serde(default)]
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AliasRow {
    pub alias: String,
    /// `meta` (found in the document), `list` (the company list's short forms), `user`
    pub source: String,
}

/// Edits of a document's metadata; an empty string clears a field, a missing one keeps it.
#[derive(Debug, Clone, Deserialize)]
pub struct MetadataArgs {
    pub doc: String,
    #[serde(default)]
    pub company: Option<String>,
    /// A number, or a string holding one (as a form field sends it).
    #[serde(default)]
    pub year: Option<serde_json::Value>,
    #[serde(default)]
    pub form: Option<String>,
}

impl MetadataArgs {
    pub fn year(&self) -> Result<Option<i32>> {
        match &self.year {
            Some(serde_json::Value::Number(n)) => {
                n.as_i64().and_then(|y| i32::try_from(y).ok()).map(Some).ok_or_else(|| LensError::BadInput(format!("`{n}` is not a year")))
            }
            Some(serde_json::Value::String(s)) if !s.trim().is_empty() => {
                s.trim().parse::<i32>().map(Some).map_err(|_| LensError::BadInput(format!("`{s}` is not a year")))
            }
            _ => Ok(None),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SettingsView {
    pub settings: Settings,
    pub library_dir: String,
    pub config_file: Option<String>,
    /// The answerers that can run here: `qwen` only when a model is found.
    pub answerers: Vec<&'static str>,
    pub retrievers: Vec<&'static str>,
    /// Language models found (models folder, Hugging Face cache).
    pub models: Vec<lens_llm::discover::ModelInfo>,
    /// Why `qwen` is not offered, when it is not.
    pub qwen_missing: Option<String>,
    /// The model the qwen answerer answers with (loaded, or the one it would load).
    pub model_in_use: Option<String>,
    /// What the chosen retriever reads now ("hybrid: BM25 + dense (MiniLM vectors for 3 of 4
    /// documents); no vision model installed").
    pub retriever_reads: String,
    /// The retriever the last question ran on, from the question log.
    pub retriever_ran: Option<RetrieverRan>,
    /// The devices the model could run on here: the processor, and CUDA and Metal with
    /// whether this build and machine have them.
    pub devices: Vec<lens_llm::device::DeviceInfo>,
}

/// The retriever the last logged question ran on, and the lists it fused.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RetrieverRan {
    pub time: String,
    pub question: String,
    pub retriever: lens_core::retrieve::Retriever,
    /// The ranked lists fused (`["bm25", "dense"]`); one for a single retriever.
    pub lists: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SetSettingsArgs {
    /// Fields to change, by name.
    #[serde(default)]
    pub settings: serde_json::Map<String, serde_json::Value>,
    /// Another library folder, used from the next start.
    #[serde(default)]
    pub library_dir: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SetSettingsResult {
    pub settings: Settings,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub restart_needed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_file: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PathsArgs {
    #[serde(default)]
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FolderArgs {
    pub folder: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct DenseStatus {
    pub model: String,
    /// Is the embedding model in the models folder? (Build dense vectors needs it.)
    pub installed: bool,
    /// Which file is missing, when it is not.
    pub missing: Option<String>,
    pub documents: usize,
    pub with_vectors: Vec<String>,
    pub job: crate::jobs::DenseState,
}

/// A page image: which page, how large, and the boxes to draw (those an ask returned; none for
/// a plain page).
#[derive(Debug, Clone, Deserialize)]
pub struct PageImageArgs {
    pub doc: String,
    pub page: u32,
    #[serde(default = "default_dpi")]
    pub dpi: f32,
    #[serde(default)]
    pub boxes: Vec<EvidenceBox>,
}

impl PageImageArgs {
    pub fn page_ref(&self) -> PageRef {
        PageRef::new(self.doc.clone(), self.page)
    }
}

/// `reopen`: a logged question by id.
#[derive(Debug, Clone, Deserialize)]
pub struct ReopenArgs {
    pub id: i64,
}

/// A question-log row as the Log view lists it.
#[derive(Debug, Clone, Serialize)]
pub struct LogRow {
    #[serde(flatten)]
    pub entry: lens_core::log::LogEntry,
    /// The first cited page's label beside its index ("p. 60", "p. 1 (PDF page 3)").
    pub cited_shown: Option<String>,
}

impl std::ops::Deref for LogRow {
    type Target = lens_core::log::LogEntry;
    fn deref(&self) -> &Self::Target {
        &self.entry
    }
}

/// A workpaper of logged answers, as a self-contained HTML file or a PDF; or their
/// calculations' operands (else quotes), each with its page, box and file hash, as a
/// spreadsheet (CSV or Excel).
#[derive(Debug, Clone, Deserialize)]
pub struct WorkpaperArgs {
    /// Log ids, in the order the workpaper lists them.
    pub ids: Vec<i64>,
    /// `html` (default), `pdf`, `csv` or `xlsx`.
    #[serde(default)]
    pub format: WorkpaperFormat,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkpaperFormat {
    #[default]
    Html,
    Pdf,
    Csv,
    Xlsx,
}

impl WorkpaperFormat {
    pub fn ext(self) -> &'static str {
        match self {
            WorkpaperFormat::Html => "html",
            WorkpaperFormat::Pdf => "pdf",
            WorkpaperFormat::Csv => "csv",
            WorkpaperFormat::Xlsx => "xlsx",
        }
    }
    pub fn mime(self) -> &'static str {
        match self {
            WorkpaperFormat::Html => "text/html",
            WorkpaperFormat::Pdf => "application/pdf",
            WorkpaperFormat::Csv => "text/csv",
            WorkpaperFormat::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        }
    }
    /// What a save dialog calls files of this format.
    pub fn kind(self) -> &'static str {
        match self {
            WorkpaperFormat::Html => "HTML",
            WorkpaperFormat::Pdf => "PDF",
            WorkpaperFormat::Csv => "CSV",
            WorkpaperFormat::Xlsx => "Excel workbook",
        }
    }
    /// The format a file name's extension asks for.
    pub fn from_path(path: &std::path::Path) -> Option<WorkpaperFormat> {
        match path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).as_deref() {
            Some("pdf") => Some(WorkpaperFormat::Pdf),
            Some("html" | "htm") => Some(WorkpaperFormat::Html),
            Some("csv") => Some(WorkpaperFormat::Csv),
            Some("xlsx") => Some(WorkpaperFormat::Xlsx),
            _ => None,
        }
    }
    /// A spreadsheet (the figures, no rendered pages).
    pub fn is_sheet(self) -> bool {
        matches!(self, WorkpaperFormat::Csv | WorkpaperFormat::Xlsx)
    }
}

/// The tables read from a page, as a spreadsheet.
#[derive(Debug, Clone, Deserialize)]
pub struct TablesExportArgs {
    /// "3M_2018_10K#60"
    pub page: String,
    /// `csv` or `xlsx` (default).
    #[serde(default = "xlsx")]
    pub format: WorkpaperFormat,
}

fn xlsx() -> WorkpaperFormat {
    WorkpaperFormat::Xlsx
}

/// A file made for the user to save.
#[derive(Debug, Clone)]
pub struct FileOut {
    pub name: String,
    pub mime: &'static str,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, Deserialize, Default)]
pub struct VisionBuildArgs {
    /// Only these documents (ids); empty: every document, scans first.
    #[serde(default)]
    pub docs: Vec<String>,
    /// Embed again documents already indexed with this model and edge.
    #[serde(default)]
    pub rebuild: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct VisionStatus {
    pub model: String,
    pub edge: u32,
    pub installed: bool,
    /// Why there is no vision model, when there is none.
    pub missing: Option<String>,
    pub coverage: Vec<lens_vision::library::Coverage>,
    pub job: crate::jobs::VisionState,
}

/// A model to fetch into the models folder: `minilm` or `qwen`.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelFetchArgs {
    pub name: String,
}

/// Stop asks: the team server sets `user` to the caller (only their asks stop); without it,
/// every ask.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CancelArgs {
    #[serde(default)]
    pub user: Option<String>,
}
