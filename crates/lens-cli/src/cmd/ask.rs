//! `lens ask`: Answer a question from the best pages, cite them, and locate the evidence

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    pub question: String,
    #[arg(long, default_value = "extractive")]
    pub answerer: String,
    /// Pages given to the answerer
    #[arg(long, default_value_t = 3)]
    pub k: usize,
    #[arg(long = "doc")]
    pub docs: Vec<String>,
    #[arg(long)]
    pub no_filter: bool,
    /// Also render the cited page with the evidence boxed to this PNG
    #[arg(long)]
    pub render: Option<PathBuf>,
    /// bm25, dense or hybrid (default: the library's setting)
    #[arg(long)]
    pub retriever: Option<String>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// The log id of the answer this question follows up ("and in FY2018?"): the company,
    /// period and measure it does not name are kept from that one
    #[arg(long, value_name = "LOG_ID")]
    pub follow_up: Option<i64>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { question, answerer: kind, k, docs, no_filter, render, retriever: rflag, model, follow_up, json } = args;
    let lib = open(&cli.library)?;
    model.device.parse::<lens_llm::DeviceChoice>()?;
    let mut req = lens_core::ask::AskRequest::new(question);
    req.retriever = retriever(&lib, rflag.as_deref(), &cli.models, false)?;
    req.answerer = kind.parse()?;
    req.k = k;
    req.docs = docs;
    req.filter = !no_filter;
    if let Some(of) = follow_up {
        lib.follow_up(&mut req, of, lib.store())?;
    }
    let a = answerer(&lib, req.answerer, &model, &cli.models)?;
    let streaming = !json && req.answerer == lens_core::answer::AnswererKind::Qwen;
    let r = lib.ask_with(&req, a.as_ref(), &mut |e| {
        if let (true, lens_core::ask::AskEvent::Text { text }) = (streaming, &e) {
            eprint!("{text}");
        }
        true
    })?;
    if streaming {
        eprintln!();
    }
    if let Some(out) = &render {
        if let Some(c) = r.answer.citations.first() {
            // the boxes on that page (a worked answer has boxes on every operand's page)
            let boxes: Vec<lens_core::evidence::EvidenceBox> =
                r.boxes.iter().filter(|b| b.doc_id == c.doc_id && b.page == c.page).map(|b| b.rect.clone()).collect();
            std::fs::write(out, lib.render_png(c, 110.0, &boxes)?).with_context(|| format!("writing {}", out.display()))?;
        }
    }
    if json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        if let Some(f) = &r.follow_up {
            println!("follow-up of #{}: \"{}\", kept {}", f.of, f.asked, f.kept.join("; "));
        }
        println!("Q: {}", r.question.text);
        println!("read as: {}", r.question.reading());
        let a = &r.answer;
        println!("A: {}", a.answer);
        match a.support {
            lens_core::support::Support::Strong => println!("support: strong (the cited page holds it)"),
            lens_core::support::Support::Weak => println!("support: weak, best match, check the page ({})", a.support_reasons.join("; ")),
            lens_core::support::Support::None => {}
        }
        if !a.not_found {
            let shown: Vec<String> =
                r.cited.iter().map(|c| format!("{} ({}{})", c.page, c.section.as_ref().map(|s| format!("{s}, ")).unwrap_or_default(), c.shown)).collect();
            println!("cited: {}", shown.join(", "));
            if let Some(q) = &a.quote {
                println!("quote: \"{q}\"");
            }
            println!("evidence: found by {}, {} box(es)", a.found_by, r.boxes.len());
            for b in &r.boxes {
                let e = &b.rect;
                println!("  {}#{} [{:.1}, {:.1}, {:.1}, {:.1}] {}", b.doc_id, b.page, e.l, e.b, e.r, e.t, e.text);
            }
        }
        if let Some(c) = &a.calculation {
            print_calculation(c);
        }
        if !a.checks.is_empty() {
            let mark = |p: Option<bool>| match p {
                Some(true) => "passed",
                Some(false) => "FAILED",
                None => "could not run",
            };
            println!("checks:");
            for c in &a.checks {
                println!("  {:<10} {:<13} {}", c.name, mark(c.passed), c.detail);
            }
        }
        println!("pages read: {}", join(&r.pages));
        if let Some(m) = &a.model {
            println!(
                "model: {} on {}: {} prompt tokens at {:.1}/s (first token {:.1} s), {} new at {:.1}/s",
                m.model, m.device, m.prompt_tokens, m.prefill_tps, m.first_token_s, m.new_tokens, m.decode_tps
            );
        }
        for n in &r.notes {
            println!("note: {n}");
        }
        println!("retrieve {:.1} ms, answer {:.1} ms ({}; {}); log #{}", r.retrieve_ms, a.answer_ms, a.answerer, r.retriever, r.log_id);
        if let Some(out) = &render {
            if a.citations.is_empty() {
                println!("nothing cited: no page rendered");
            } else {
                println!("rendered: {}", out.display());
            }
        }
    }
    Ok(())
}

fn print_calculation(c: &lens_core::calc::Calculation) {
    match (&c.result, &c.problem) {
        (Some(r), _) => println!("calculation: {} = {r}", c.metric),
        (None, p) => println!("calculation: {} could not be computed: {}", c.metric, p.as_deref().unwrap_or("unknown")),
    }
    if !c.formula.is_empty() {
        println!("  formula: {}", c.formula);
    }
    for o in &c.operands {
        println!("  {} {} = {} ({}) on {}: \"{}\"", o.name, o.period, o.value, o.unit, o.page, o.quote);
    }
}
