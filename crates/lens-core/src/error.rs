//! One error type for the core library. Every variant carries a stable `code()` that the UI,
//! the HTTP API and the CLI use to classify failures without parsing messages.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum LensError {
    #[error("the pdfium library was not found (looked in: {searched}). Run `scripts/setup`, or set PDFIUM_LIB_DIR to the folder holding libpdfium.so")]
    PdfiumMissing { searched: String },
    #[error("could not load pdfium from {path}: {reason}")]
    PdfiumLoad { path: PathBuf, reason: String },
    #[error("{path}: empty file (0 bytes)")]
    EmptyFile { path: PathBuf },
    #[error("{path}: not a PDF (the file does not start with %PDF)")]
    NotPdf { path: PathBuf },
    #[error("{path}: the PDF is password-protected; decrypt it first")]
    Encrypted { path: PathBuf },
    #[error("{path}: corrupt or truncated PDF ({reason})")]
    CorruptPdf { path: PathBuf, reason: String },
    #[error("{path}: the PDF has no pages")]
    NoPages { path: PathBuf },
    #[error("{path}: too large ({bytes} bytes; the limit is {limit} bytes)")]
    TooLarge { path: PathBuf, bytes: u64, limit: u64 },
    #[error("unknown document `{0}`")]
    UnknownDocument(String),
    #[error("document `{doc}` has no page {page} (it has {pages} pages)")]
    UnknownPage { doc: String, page: u32, pages: u32 },
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    NotFound(String),
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("library database error: {0}")]
    Db(#[from] rusqlite::Error),
    #[error("search index error: {0}")]
    Index(String),
    #[error("image error: {0}")]
    Image(String),
    #[error("cancelled")]
    Cancelled,
    #[error("model not found: {what} in {dir} ({hint})")]
    ModelMissing { what: String, dir: PathBuf, hint: String },
    #[error("model error: {0}")]
    Model(String),
    #[error("{path}: this library was written by a newer 10-K Lens (schema version {found}; this build knows up to {known}); update the app, or choose another library folder")]
    LibraryVersion { path: PathBuf, found: u32, known: u32 },
    /// A team database (PostgreSQL) that cannot be reached, or refused what was asked.
    #[error("the team database: {0}")]
    Database(String),
    /// Every connection to the team database in use for longer than a request waits: try again.
    #[error("busy: {0}")]
    Busy(String),
    /// A spreadsheet (CSV or Excel) that could not be written.
    #[error("the spreadsheet could not be written: {0}")]
    Export(String),
}

impl LensError {
    /// Stable, machine-readable code. The UI switches on these; never change an existing one.
    pub fn code(&self) -> &'static str {
        match self {
            LensError::PdfiumMissing { .. } | LensError::PdfiumLoad { .. } => "pdfium_missing",
            LensError::EmptyFile { .. } => "pdf_empty",
            LensError::NotPdf { .. } => "not_pdf",
            LensError::Encrypted { .. } => "pdf_encrypted",
            LensError::CorruptPdf { .. } => "pdf_corrupt",
            LensError::NoPages { .. } => "pdf_no_pages",
            LensError::TooLarge { .. } => "pdf_too_large",
            LensError::UnknownDocument(_) => "unknown_document",
            LensError::UnknownPage { .. } => "unknown_page",
            LensError::BadInput(_) => "bad_input",
            LensError::NotFound(_) => "not_found",
            LensError::Io { .. } => "io",
            LensError::Db(_) => "db",
            LensError::Index(_) => "index",
            LensError::Image(_) => "image",
            LensError::Cancelled => "cancelled",
            LensError::ModelMissing { .. } => "model_missing",
            LensError::Model(_) => "model",
            LensError::LibraryVersion { .. } => "library_version",
            LensError::Database(_) => "database",
            LensError::Export(_) => "export",
            LensError::Busy(_) => "busy",
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        LensError::Io { path: path.into(), source }
    }
}

impl From<tantivy::TantivyError> for LensError {
    fn from(e: tantivy::TantivyError) -> Self {
        LensError::Index(e.to_string())
    }
}

pub type Result<T, E = LensError> = std::result::Result<T, E>;
