//! Workpapers: what an auditor files for an answer. One or more logged answers, each with its
//! question, answer and support, the worked calculation with every operand's cell, the verbatim
//! quote, and the cited pages rendered with their evidence boxed, each page named by document,
//! file, sha256 of the file and printed page label; the time, answerer, retriever, model and the
//! user's feedback note.
//!
//! Three steps, so no lock is held while pages render:
//! 1. [`Library::workpaper`] (library held): the log rows, documents and boxes, as a
//!    [`Workpaper`] whose exhibits know their PDF but hold no image yet;
//! 2. [`Workpaper::render`] (no library): each exhibit page rendered with its boxes drawn;
//! 3. [`html`] or [`pdf`] (pure): the file's bytes. The HTML is one self-contained file (inline
//!    style, images as `data:` URIs, no script); the PDF is written by [`crate::pdfwrite`].

use crate::answer::Answer;
use crate::ask::PageBox;
use crate::error::{LensError, Result};
use crate::evidence::EvidenceBox;
use crate::library::DocView;
use crate::pageref::PageRef;
use crate::pdfwrite::{self, Font, Rgb};
use crate::retrieve::Retriever;
use crate::support::Support;
use crate::Library;
use image::RgbaImage;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Resolution of the rendered exhibit pages.
pub const DPI: f32 = 110.0;

/// Longest edge of an exhibit image, in pixels (a poster-sized page is scaled down to it).
pub const MAX_EDGE: u32 = 2400;

/// At most this many answers in one workpaper (each renders its pages).
pub const MAX_ENTRIES: usize = 50;

/// A page shown in a workpaper, with what identifies it.
#[derive(Debug, Clone)]
pub struct Exhibit {
    pub page: PageRef,
    /// "p. 41 (PDF page 44)"
    pub shown: String,
    pub heading: String,
    /// "American Express Company FY2022 10-K"
    pub document: String,
    /// The file name the document was added from.
    pub file_name: String,
    pub sha256: String,
    /// Why the page is here: "cited", "operand: accounts payable FY2018", ...
    pub role: String,
    pub boxes: Vec<EvidenceBox>,
    /// The library's copy of the PDF (`None` once the document is gone).
    pub source: Option<PathBuf>,
    /// Set by [`Workpaper::render`].
    pub image: Option<RgbaImage>,
}

/// One answer in a workpaper.
#[derive(Debug, Clone)]
pub struct Entry {
    pub log_id: i64,
    /// When it was asked (UTC, as logged: `2026-12-01T10:00:00.000Z`).
    pub time: String,
    pub question: String,
    pub answer: Answer,
    pub retriever: Retriever,
    pub feedback: Option<i32>,
    pub feedback_note: Option<String>,
    pub notes: Vec<String>,
    pub exhibits: Vec<Exhibit>,
}

#[derive(Debug, Clone)]
pub struct Workpaper {
    /// When it was made (UTC).
    pub made_at: String,
    pub app_version: String,
    pub entries: Vec<Entry>,
}

impl Library {
    /// The workpaper for the logged answers `ids`, in that order (pages not rendered yet: see
    /// [`Workpaper::render`]). An unknown id is refused; a cited document removed since is
    /// listed without its page image.
    pub fn workpaper(&self, ids: &[i64]) -> Result<Workpaper> {
        self.workpaper_in(ids, self.store())
    }

    /// [`Library::workpaper`] of entries of `records` (a team's shared log).
    pub fn workpaper_in(&self, ids: &[i64], records: &dyn crate::log::Records) -> Result<Workpaper> {
        if ids.is_empty() {
            return Err(LensError::BadInput("choose at least one answer from the log for the workpaper".into()));
        }
        if ids.len() > MAX_ENTRIES {
            return Err(LensError::BadInput(format!("a workpaper holds at most {MAX_ENTRIES} answers ({} chosen)", ids.len())));
        }
        // the cited documents as the app names them, each looked up once
        let mut views: HashMap<String, Option<DocView>> = HashMap::new();
        let mut entries = Vec::new();
        for &id in ids {
            let logged = records.log_entry(id)?;
            let (time, feedback, feedback_note) = (logged.time.clone(), logged.feedback, logged.feedback_note.clone());
            let r = self.reopen_entry(logged)?;
            let mut exhibits: Vec<Exhibit> = Vec::new();
            let mut add = |page: &PageRef, role: String, boxes: Vec<EvidenceBox>| {
                if let Some(e) = exhibits.iter_mut().find(|e| &e.page == page) {
                    e.boxes.extend(boxes);
                    if !e.role.contains(&role) {
                        e.role = format!("{}; {role}", e.role);
                    }
                    return;
                }
                let view = views.entry(page.doc_id.clone()).or_insert_with(|| self.document(&page.doc_id).ok().map(|d| self.document_view(d))).as_ref();
                let info = r.cited.iter().chain(&r.page_info).find(|i| &i.page == page);
                let (shown, heading) = match info {
                    Some(i) => (i.shown.clone(), first_line(&i.heading)),
                    None => (self.store().page_shown(page), String::new()),
                };
                exhibits.push(Exhibit {
                    page: page.clone(),
                    shown,
                    heading,
                    document: view.map(|v| v.name.clone()).unwrap_or_else(|| format!("{} (no longer in the library)", page.doc_id)),
                    file_name: view.map(|v| file_name(&v.doc.path)).unwrap_or_default(),
                    sha256: view.map(|v| v.doc.sha256.clone()).unwrap_or_default(),
                    role,
                    boxes,
                    source: self.page_source(page).ok(),
                    image: None,
                });
            };
            let boxes_on = |p: &PageRef, all: &[PageBox]| -> Vec<EvidenceBox> {
                all.iter().filter(|b| b.doc_id == p.doc_id && b.page == p.page).map(|b| b.rect.clone()).collect()
            };
            for c in &r.answer.citations {
                let boxes = if r.answer.calculation.as_ref().is_some_and(|c| c.result.is_some()) { Vec::new() } else { boxes_on(c, &r.boxes) };
                add(c, "cited".into(), boxes);
            }
            if let Some(calc) = &r.answer.calculation {
                for o in &calc.operands {
                    add(&o.page, format!("operand: {} {}", o.name, o.period), o.boxes.clone());
                }
            }
            entries.push(Entry {
                log_id: id,
                time,
                question: r.question.text,
                answer: r.answer,
                retriever: r.retriever,
                feedback,
                feedback_note,
                notes: r.notes,
                exhibits,
            });
        }
        Ok(Workpaper { made_at: self.store().now()?, app_version: env!("CARGO_PKG_VERSION").into(), entries })
    }
}

/// A heading's first line, at most 120 characters.
fn first_line(s: &str) -> String {
    let l = s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    match l.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &l[..i]),
        None => l.to_string(),
    }
}

pub(crate) fn file_name(path: &str) -> String {
    std::path::Path::new(path).file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| path.to_string())
}

impl Workpaper {
    /// Render every exhibit page with its boxes (pdfium; no library needed). A page that cannot
    /// be rendered stays without an image and the entry says why.
    pub fn render(&mut self, dpi: f32) {
        for e in &mut self.entries {
            for x in &mut e.exhibits {
                let Some(src) = &x.source else { continue };
                match crate::render::render_page(src, x.page.page, dpi, &x.boxes) {
                    Ok(img) => x.image = Some(fit(img, MAX_EDGE)),
                    Err(err) => e.notes.push(format!("{} could not be rendered: {err}", x.page)),
                }
            }
        }
    }

    /// A file name for it: `workpaper-12.html`, `workpaper-12-15.pdf` (first and last log ids).
    pub fn file_name(&self, ext: &str) -> String {
        let ids: Vec<i64> = self.entries.iter().map(|e| e.log_id).collect();
        match (ids.first(), ids.last()) {
            (Some(a), Some(b)) if a != b => format!("workpaper-{a}-{b}.{ext}"),
            (Some(a), _) => format!("workpaper-{a}.{ext}"),
            _ => format!("workpaper.{ext}"),
        }
    }
}

/// `img` scaled down so that its longer edge is at most `edge` pixels.
fn fit(img: RgbaImage, edge: u32) -> RgbaImage {
    let long = img.width().max(img.height());
    if long <= edge {
        return img;
    }
    let (w, h) = ((img.width() as u64 * edge as u64 / long as u64).max(1) as u32, (img.height() as u64 * edge as u64 / long as u64).max(1) as u32);
    image::imageops::resize(&img, w, h, image::imageops::FilterType::Triangle)
}

/// "passed", "failed" or "could not run".
fn check_state(c: &crate::figures::rules::Check) -> &'static str {
    match c.passed {
        Some(true) => "passed",
        Some(false) => "failed",
        None => "could not run",
    }
}

/// The support level as the workpaper states it.
pub fn support_text(a: &Answer) -> &'static str {
    if a.not_found {
        return "Not found in the provided pages";
    }
    match a.support {
        Support::Strong => "Supported by the cited page",
        Support::Weak => "Best match, low confidence: check the page",
        Support::None => "Not supported by the cited page",
    }
}

fn feedback_text(e: &Entry) -> Option<String> {
    let mark = match e.feedback {
        Some(f) if f > 0 => "marked right",
        Some(f) if f < 0 => "marked wrong",
        Some(_) => "reviewed",
        None => return e.feedback_note.as_ref().map(|n| format!("note: {n}")),
    };
    Some(match &e.feedback_note {
        Some(n) if !n.is_empty() => format!("{mark}: {n}"),
        _ => mark.to_string(),
    })
}

/// The cited pages by document and label: "3M Company FY2018 10-K, p. 60".
fn cited_text(e: &Entry) -> String {
    let cited: Vec<String> = e
        .answer
        .citations
        .iter()
        .map(|c| e.exhibits.iter().find(|x| &x.page == c).map(|x| format!("{}, {}", x.document, x.shown)).unwrap_or_else(|| c.to_string()))
        .collect();
    if cited.is_empty() {
        "none".to_string()
    } else {
        cited.join("; ")
    }
}

/// Where an operand sits: its exhibit's label, else its page id.
fn operand_page(e: &Entry, page: &PageRef) -> String {
    e.exhibits.iter().find(|x| &x.page == page).map(|x| x.shown.clone()).unwrap_or_else(|| page.to_string())
}

/// Who answered: "extractive", "qwen (Qwen2.5-Coder-0.5B-Instruct, cpu (avx512vnni, 2 threads))".
fn answered_by(e: &Entry) -> String {
    match &e.answer.model {
        Some(m) => format!("{} ({}, {})", e.answer.answerer, m.model, m.device),
        None => e.answer.answerer.to_string(),
    }
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1c2430;max-width:60rem;margin:2rem auto;padding:0 1rem}\
h1{font-size:1.4rem;margin:0 0 .2rem}h2{font-size:1.15rem;margin:2rem 0 .4rem;border-top:2px solid #1c2430;padding-top:1rem}\
h3{font-size:1rem;margin:1.2rem 0 .3rem}.muted{color:#5b6472}.answer{font-size:1.15rem;font-weight:600}\
.support{display:inline-block;padding:.1rem .5rem;border-radius:.3rem;font-size:.85rem}.strong{background:#dff3e4;color:#15532b}\
.weak{background:#fff1cc;color:#6b4a00;border:1px dashed #b58300}.none{background:#eee;color:#444}\
blockquote{margin:.4rem 0;padding:.3rem .8rem;border-left:4px solid #e0a800;background:#fffbea}\
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #ccd;padding:.25rem .5rem;text-align:left;vertical-align:top}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .8rem;margin:.4rem 0}dt{color:#5b6472}dd{margin:0}\
figure{margin:1rem 0;page-break-inside:avoid}figure img{max-width:100%;border:1px solid #ccd}figcaption{font-size:.85rem;color:#5b6472}\
code{font-size:.85rem;word-break:break-all}@media print{body{margin:0}h2{page-break-before:always}}";

/// The workpaper as one self-contained HTML file.
pub fn html(w: &Workpaper) -> Result<String> {
    let mut h = String::new();
    let title = match w.entries.len() {
        1 => format!("Workpaper: {}", w.entries[0].question),
        n => format!("Workpaper: {n} answers"),
    };
    let _ = write!(h, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n", esc(&title));
    let _ = writeln!(h, "<h1>{}</h1>", if w.entries.len() == 1 { "Workpaper".to_string() } else { esc(&title) });
    let _ = writeln!(h, "<p class=\"muted\">Made by 10-K Lens {} on {} from the question log. Every figure below is on the page shown under it; boxes mark the lines relied on.</p>", esc(&w.app_version), esc(&w.made_at));
    for (i, e) in w.entries.iter().enumerate() {
        let _ = writeln!(h, "<h2>{}. {}</h2>", i + 1, esc(&e.question));
        let class = if e.answer.not_found { "none" } else { e.answer.support.name() };
        let _ = writeln!(h, "<p class=\"answer\">{}</p>", esc(&e.answer.answer));
        let _ = write!(h, "<p><span class=\"support {class}\">{}</span>", esc(support_text(&e.answer)));
        if !e.answer.support_reasons.is_empty() && e.answer.support != Support::Strong {
            let _ = write!(h, " <span class=\"muted\">{}</span>", esc(&e.answer.support_reasons.join("; ")));
        }
        h.push_str("</p>\n");
        if !e.answer.checks.is_empty() {
            h.push_str("<p class=\"muted\">Checks:</p><ul class=\"checks\">\n");
            for c in &e.answer.checks {
                let _ = writeln!(h, "<li><strong>{} {}</strong>: {}</li>", esc(&c.name), check_state(c), esc(&c.detail));
            }
            h.push_str("</ul>\n");
        }
        if let Some(c) = &e.answer.calculation {
            let _ = writeln!(h, "<h3>Worked calculation: {}</h3>", esc(&c.metric));
            let _ = writeln!(h, "<p>{}</p>", esc(&c.formula));
            if !c.operands.is_empty() {
                h.push_str("<table><tr><th>Operand</th><th>Period</th><th>Value</th><th>Unit</th><th>Page</th><th>As printed</th></tr>\n");
                for o in &c.operands {
                    let shown = operand_page(e, &o.page);
                    let _ = writeln!(
                        h,
                        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} <span class=\"muted\">{}</span></td><td>{}</td></tr>",
                        esc(&o.name),
                        esc(&o.period),
                        esc(&crate::figures::ratio::grouped(&o.value)),
                        esc(&o.unit),
                        esc(&shown),
                        esc(&o.page.doc_id),
                        esc(&o.quote)
                    );
                }
                h.push_str("</table>\n");
            }
            match (&c.result, &c.problem) {
                (Some(r), _) => {
                    let _ = writeln!(h, "<p><strong>Result: {}</strong></p>", esc(r));
                }
                (None, Some(p)) => {
                    let _ = writeln!(h, "<p><strong>Not computed:</strong> {}</p>", esc(p));
                }
                _ => {}
            }
        }
        if let Some(q) = &e.answer.quote {
            let _ = writeln!(h, "<h3>Quote</h3><blockquote>{}</blockquote>", esc(q));
        }
        h.push_str("<dl>\n");
        let mut field = |k: &str, v: &str| {
            let _ = writeln!(h, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
        };
        field("Cited", &cited_text(e));
        field("Asked", &format!("{} (log #{})", e.time, e.log_id));
        field("Answered by", &answered_by(e));
        field("Retriever", e.retriever.name());
        if let Some(f) = feedback_text(e) {
            field("Reviewer", &f);
        }
        for n in &e.notes {
            field("Note", n);
        }
        h.push_str("</dl>\n");
        for x in &e.exhibits {
            h.push_str("<figure>");
            match &x.image {
                Some(img) => {
                    let png = crate::render::png_bytes(img)?;
                    let _ = write!(h, "<img alt=\"{} {}\" src=\"data:image/png;base64,{}\">", esc(&x.document), esc(&x.shown), base64(&png));
                }
                None => h.push_str("<p class=\"muted\">(page image not available)</p>"),
            }
            let _ = writeln!(
                h,
                "<figcaption><strong>{}</strong>, {} ({}){}<br>File {} &middot; sha256 <code>{}</code> &middot; {}</figcaption></figure>",
                esc(&x.document),
                esc(&x.shown),
                esc(&x.role),
                if x.heading.is_empty() { String::new() } else { format!(": {}", esc(&x.heading)) },
                esc(&x.file_name),
                esc(&x.sha256),
                esc(&x.page.to_string())
            );
        }
    }
    h.push_str("</body></html>\n");
    Ok(h)
}

/// Standard base64 with padding (the `base64` crate's).
pub fn base64(data: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(data)
}

const MARGIN: f32 = 54.0;
const BLACK: Rgb = Rgb(0.11, 0.14, 0.19);
const GREY: Rgb = Rgb(0.36, 0.39, 0.45);

/// Lays out lines down the pages of a [`pdfwrite::Writer`], starting a page when one is full.
struct Flow {
    w: pdfwrite::Writer,
    y: f32,
}

impl Flow {
    fn width() -> f32 {
        pdfwrite::LETTER.0 - 2.0 * MARGIN
    }
    fn new_page(&mut self) {
        self.w.page(pdfwrite::LETTER);
        self.y = pdfwrite::LETTER.1 - MARGIN;
    }
    fn need(&mut self, h: f32) {
        if self.w.pages() == 0 || self.y - h < MARGIN + 14.0 {
            self.new_page();
        }
    }
    fn page(&mut self) -> &mut pdfwrite::Page {
        let i = self.w.pages() - 1;
        self.w.page_mut(i)
    }
    /// Wrapped text, `indent` points in from the margin.
    fn para(&mut self, s: &str, size: f32, font: Font, color: Rgb, indent: f32) {
        let lead = size * 1.3;
        for line in pdfwrite::wrap(s, size, font, Flow::width() - indent) {
            self.need(lead);
            self.y -= lead;
            let y = self.y + size * 0.25;
            self.page().text(MARGIN + indent, y, size, font, color, &line);
        }
    }
    fn gap(&mut self, h: f32) {
        self.y -= h;
    }
    /// "Label: value" with the label in grey.
    fn field(&mut self, k: &str, v: &str) {
        self.para(&format!("{k}: {v}"), 9.5, Font::Regular, GREY, 0.0);
    }
}

/// The workpaper as a PDF: the same content as [`html`], pages numbered "Page i of n".
pub fn pdf(wp: &Workpaper) -> Result<Vec<u8>> {
    let title = match wp.entries.len() {
        1 => "Workpaper".to_string(),
        n => format!("Workpaper: {n} answers"),
    };
    let mut f = Flow { w: pdfwrite::Writer::new(&title), y: 0.0 };
    f.para(&title, 18.0, Font::Bold, BLACK, 0.0);
    f.para(
        &format!("Made by 10-K Lens {} on {} from the question log. Boxes on each page mark the lines relied on.", wp.app_version, wp.made_at),
        9.0,
        Font::Regular,
        GREY,
        0.0,
    );
    for (i, e) in wp.entries.iter().enumerate() {
        if i > 0 {
            f.new_page();
        } else {
            f.gap(10.0);
        }
        f.para(&format!("{}. {}", i + 1, e.question), 13.0, Font::Bold, BLACK, 0.0);
        f.gap(4.0);
        f.para(&e.answer.answer, 12.0, Font::Bold, BLACK, 0.0);
        let mut support = support_text(&e.answer).to_string();
        if !e.answer.support_reasons.is_empty() && e.answer.support != Support::Strong {
            support = format!("{support} ({})", e.answer.support_reasons.join("; "));
        }
        let color = match (e.answer.not_found, e.answer.support) {
            (false, Support::Strong) => Rgb(0.08, 0.33, 0.17),
            (false, Support::Weak) => Rgb(0.55, 0.36, 0.0),
            _ => GREY,
        };
        f.para(&support, 10.0, Font::Bold, color, 0.0);
        for c in &e.answer.checks {
            f.para(&format!("• check {} {}: {}", c.name, check_state(c), c.detail), 9.0, Font::Regular, if c.failed() { color } else { GREY }, 10.0);
        }
        if let Some(c) = &e.answer.calculation {
            f.gap(6.0);
            f.para(&format!("Worked calculation: {}", c.metric), 11.0, Font::Bold, BLACK, 0.0);
            f.para(&c.formula, 10.0, Font::Regular, BLACK, 0.0);
            for o in &c.operands {
                let shown = operand_page(e, &o.page);
                f.para(
                    &format!(
                        "• {} {}: {} ({}), {} of {}: \"{}\"",
                        o.name,
                        o.period,
                        crate::figures::ratio::grouped(&o.value),
                        o.unit,
                        shown,
                        o.page.doc_id,
                        o.quote
                    ),
                    9.5,
                    Font::Regular,
                    BLACK,
                    10.0,
                );
            }
            match (&c.result, &c.problem) {
                (Some(r), _) => f.para(&format!("Result: {r}"), 10.5, Font::Bold, BLACK, 0.0),
                (None, Some(p)) => f.para(&format!("Not computed: {p}"), 10.0, Font::Regular, BLACK, 0.0),
                _ => {}
            }
        }
        if let Some(q) = &e.answer.quote {
            f.gap(6.0);
            f.para("Quote", 11.0, Font::Bold, BLACK, 0.0);
            f.para(&format!("\"{q}\""), 10.0, Font::Regular, BLACK, 10.0);
        }
        f.gap(6.0);
        f.field("Cited", &cited_text(e));
        f.field("Asked", &format!("{} (log #{})", e.time, e.log_id));
        f.field("Answered by", &answered_by(e));
        f.field("Retriever", e.retriever.name());
        if let Some(fb) = feedback_text(e) {
            f.field("Reviewer", &fb);
        }
        for n in &e.notes {
            f.field("Note", n);
        }
        for x in &e.exhibits {
            let caption = format!("{}, {} ({}){}", x.document, x.shown, x.role, if x.heading.is_empty() { String::new() } else { format!(": {}", x.heading) });
            let file = format!("File {}, sha256 {}, {}", x.file_name, x.sha256, x.page);
            match &x.image {
                Some(img) => {
                    // the caption and the page as large as fits the column and a whole page
                    let lines = pdfwrite::wrap(&caption, 9.5, Font::Bold, Flow::width()).len() as f32 * 9.5 * 1.3
                        + pdfwrite::wrap(&file, 8.0, Font::Regular, Flow::width()).len() as f32 * 8.0 * 1.3;
                    let caption_h = lines + 14.0;
                    let full_h = pdfwrite::LETTER.1 - 2.0 * MARGIN - 14.0 - caption_h;
                    let aspect = img.height() as f32 / img.width().max(1) as f32;
                    let (mut w, mut h) = (Flow::width(), Flow::width() * aspect);
                    if h > full_h {
                        (w, h) = (full_h / aspect, full_h);
                    }
                    f.need(h + caption_h);
                    f.gap(10.0);
                    f.para(&caption, 9.5, Font::Bold, BLACK, 0.0);
                    f.para(&file, 8.0, Font::Regular, GREY, 0.0);
                    f.gap(4.0);
                    let y = f.y - h;
                    debug_assert!(y >= MARGIN + 13.9, "the page image runs into the footer: {y}");
                    let jpeg = crate::render::jpeg_bytes(img, 85)?;
                    let (pw, ph) = (img.width(), img.height());
                    f.page().jpeg(MARGIN, y, w, h, pdfwrite::Jpeg { data: jpeg, width: pw, height: ph });
                    f.page().rect(MARGIN, y, w, h, None, Some(GREY));
                    f.y = y;
                }
                None => {
                    f.gap(8.0);
                    f.para(&caption, 9.5, Font::Bold, BLACK, 0.0);
                    f.para(&file, 8.0, Font::Regular, GREY, 0.0);
                    f.para("(page image not available)", 9.0, Font::Regular, GREY, 0.0);
                }
            }
        }
    }
    let n = f.w.pages();
    for i in 0..n {
        let label = format!("10-K Lens workpaper, page {} of {n}", i + 1);
        let x = pdfwrite::LETTER.0 - MARGIN - pdfwrite::width(&label, 8.0, Font::Regular);
        f.w.page_mut(i).text(x, MARGIN / 2.0, 8.0, Font::Regular, GREY, &label);
    }
    Ok(f.w.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::AnswererKind;

    fn entry() -> Entry {
        let mut a = Answer::not_found(AnswererKind::Extractive, 3.0);
        a.answer = "$1,577 million <b>".into();
        a.not_found = false;
        a.quote = Some("Purchases of property, plant & equipment (PP&E) (1,577)".into());
        a.citations = vec!["3M_2018_10K#60".parse().unwrap()];
        a.support = Support::Weak;
        a.support_reasons = vec!["the cited page does not name FY2018".into()];
        let mut img = RgbaImage::new(40, 50);
        img.put_pixel(3, 3, image::Rgba([255, 0, 0, 255]));
        Entry {
            log_id: 7,
            time: "2026-12-01 10:00:00".into(),
            question: "What is the FY2018 capital expenditure for 3M?".into(),
            answer: a,
            retriever: Retriever::Bm25,
            feedback: Some(-1),
            feedback_note: Some("wrong year".into()),
            notes: vec![],
            exhibits: vec![Exhibit {
                page: "3M_2018_10K#60".parse().unwrap(),
                shown: "p. 58 (PDF page 60)".into(),
                heading: "Consolidated Statement of Cash Flows".into(),
                document: "3M Company FY2018 10-K".into(),
                file_name: "3M_2018_10K.pdf".into(),
                sha256: "ab".repeat(32),
                role: "cited".into(),
                boxes: vec![],
                source: None,
                image: Some(img),
            }],
        }
    }

    #[test]
    fn a_huge_page_is_scaled_to_the_longest_edge() {
        let img = fit(RgbaImage::new(4800, 300), MAX_EDGE);
        assert_eq!((img.width(), img.height()), (2400, 150));
        let small = fit(RgbaImage::new(900, 1200), MAX_EDGE);
        assert_eq!((small.width(), small.height()), (900, 1200));
    }

    #[test]
    fn base64_matches_the_rfc_examples() {
        for (i, o) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    #[test]
    fn html_is_self_contained_and_escaped() {
        let w = Workpaper { made_at: "2026-12-01 11:00:00".into(), app_version: "0.1.0".into(), entries: vec![entry()] };
        let h = html(&w).unwrap();
        assert!(h.contains("$1,577 million &lt;b&gt;"), "answer escaped");
        assert!(h.contains("property, plant &amp; equipment"));
        assert!(h.contains("p. 58 (PDF page 60)") && h.contains(&"ab".repeat(32)) && h.contains("3M_2018_10K.pdf"));
        assert!(h.contains("Best match, low confidence: check the page") && h.contains("does not name FY2018"));
        assert!(h.contains("marked wrong: wrong year"));
        assert!(h.contains("src=\"data:image/png;base64,iVBORw0KGgo"), "the page is inline");
        // nothing is fetched when the file is opened: no script, no outside address
        assert!(!h.contains("<script") && !h.contains("http://") && !h.contains("https://") && !h.contains("src=\"/"));
        assert_eq!(w.file_name("html"), "workpaper-7.html");
    }

    #[test]
    fn pdf_holds_the_text_and_the_page_image() {
        let mut e = entry();
        e.question = "Q ".repeat(400); // wraps over several lines
        let w = Workpaper { made_at: "now".into(), app_version: "0.1.0".into(), entries: vec![e.clone(), entry()] };
        let pdf = pdf(&w).unwrap();
        let s = String::from_utf8_lossy(&pdf);
        // each answer starts a page; a page image that does not fit what is left goes on the next
        let count: usize = s.split("/Type /Pages /Count ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert_eq!(count, 4, "two answers, each image on a page of its own");
        assert_eq!(s.matches("/Subtype /Image").count(), 2);
        assert!(s.contains("/Filter /DCTDecode"));
    }
}
