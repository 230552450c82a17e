//! `lens render`: Render a page (DOC#PAGE) to PNG, boxing a quote or an answer's numbers

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    pub page: String,
    #[arg(long)]
    pub quote: Option<String>,
    #[arg(long)]
    pub answer: Option<String>,
    #[arg(long, default_value_t = 110.0)]
    pub dpi: f32,
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { page, quote, answer, dpi, out } = args;
    let lib = open(&cli.library)?;
    let page: PageRef = page.parse()?;
    if !(lens_core::pdf::MIN_DPI..=lens_core::pdf::MAX_DPI).contains(&dpi) {
        return Err(lens_core::LensError::BadInput(format!("DPI {dpi} is out of range ({}..={})", lens_core::pdf::MIN_DPI, lens_core::pdf::MAX_DPI)).into());
    }
    let ev = lib.evidence(&page, quote.as_deref(), answer.as_deref())?;
    let img = lens_core::render::render_page(&lib.page_source(&page)?, page.page, dpi, &ev.boxes)?;
    lens_core::render::save_png(&img, &out)?;
    println!("{}: {}x{} px, evidence found by {}, {} box(es)", out.display(), img.width(), img.height(), ev.found_by, ev.boxes.len());
    let pg = lib.page(&page.doc_id, page.page)?;
    let asked = (pg.width * dpi / 72.0).round();
    if (img.width() as f32) < asked - 1.0 {
        println!("  scaled down from {asked:.0} px wide to stay within {} M pixels", lens_core::pdf::MAX_PIXELS / 1e6);
    }
    for b in &ev.boxes {
        println!("  [{:.1}, {:.1}, {:.1}, {:.1}] {}", b.l, b.b, b.r, b.t, b.text);
    }
    Ok(())
}
