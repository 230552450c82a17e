//! The Qwen answerer: pages into a prompt ([`crate::prompt`]), greedy generation with the
//! answer streamed as it is written, the reply parsed ([`crate::parse`]) into an [`Answer`].

use crate::model::GenStats;
use crate::parse::{answer_so_far, parse};
use crate::passages::{self, Passage};
use crate::prompt::{build, PromptMode, PromptOptions, SYSTEM, SYSTEM_PASSAGES};
use crate::LanguageModel;
use lens_core::answer::{Answer, Answerer, AnswererKind, Cited, GivenPassage, ModelRun, PageInput};
use lens_core::error::{LensError, Result};
use lens_core::evidence::FoundBy;
use lens_core::question::Question;
use std::sync::Arc;
use std::time::Instant;

/// The assistant's reply is begun with its first field, so that a small model writes the
/// asked format rather than prose.
pub const REPLY_START: &str = "Answer:";
/// The cue that asks for the citation and quote when a reply stopped without them (pages
/// mode; passages mode asks for `Cite:`).
pub const FOLLOW_UP: &str = "Pages:";
/// Most tokens written after that cue.
pub const FOLLOW_UP_TOKENS: usize = 40;

#[derive(Debug, Clone)]
pub struct QwenOptions {
    pub prompt: PromptOptions,
    pub max_new_tokens: usize,
}

impl Default for QwenOptions {
    fn default() -> Self {
        QwenOptions { prompt: PromptOptions::default(), max_new_tokens: 96 }
    }
}

pub struct QwenAnswerer {
    pub lm: Arc<LanguageModel>,
    pub opts: QwenOptions,
}

impl QwenAnswerer {
    pub fn new(lm: Arc<LanguageModel>) -> QwenAnswerer {
        QwenAnswerer { lm, opts: QwenOptions::default() }
    }

    /// Where it runs, as the answer reports it: `cpu (avx512vnni, 2 threads)`.
    pub fn device(&self) -> String {
        match self.lm.model.gpu_name() {
            Some(gpu) => format!("{gpu} (candle)"),
            None => format!("cpu ({}, {} threads)", crate::blocks::kernel_name(), self.lm.model.threads()),
        }
    }

    /// The rules the model is given: the options' own unless left at the default of the
    /// other mode.
    fn system(&self) -> &str {
        let o = &self.opts.prompt;
        match o.mode {
            PromptMode::Pages if o.system == SYSTEM_PASSAGES => SYSTEM,
            PromptMode::Passages if o.system == SYSTEM => SYSTEM_PASSAGES,
            _ => &o.system,
        }
    }

    /// The prompt's tokens, cut until it fits the model's context with room for the reply (pages
    /// cut, or fewer passages); the notes say what was cut; the passages given (passages mode).
    fn prompt_tokens(&self, read: &Question, pages: &[PageInput]) -> Result<(Vec<u32>, Vec<String>, Vec<Passage>)> {
        let question = read.text.as_str();
        let count = |s: &str| self.lm.count(s);
        let ctx = self.lm.model.cfg.context.saturating_sub(self.opts.max_new_tokens + 8);
        let mut opts = self.opts.prompt.clone();
        opts.prompt_tokens = opts.prompt_tokens.min(ctx);
        let system = self.system().to_string();
        if opts.mode == PromptMode::Passages {
            let mut budget = opts.passage_tokens.min(ctx);
            loop {
                let chosen = passages::select(read, pages, budget, &count);
                let user = passages::build(question, pages, &chosen);
                let ids = self.lm.encode(&format!("{}{REPLY_START}", self.lm.chat(&system, &user)))?;
                if ids.len() <= ctx {
                    let mut notes = Vec::new();
                    let total = passages::all(pages).len();
                    let given: Vec<&str> = chosen.iter().map(|p| p.id.as_str()).collect();
                    notes.push(format!(
                        "{} of the {total} sentences and rows of the {} pages read were given to the model: {}",
                        chosen.len(),
                        pages.len(),
                        given.join(", ")
                    ));
                    return Ok((ids, notes, chosen));
                }
                if budget <= 64 {
                    return Err(LensError::BadInput(format!(
                        "the question and one passage take {} tokens, more than the model's context of {}",
                        ids.len(),
                        ctx
                    )));
                }
                budget = budget * 3 / 4;
            }
        }
        let mut n = pages.len();
        loop {
            let p = build(question, &pages[..n], &opts, &count);
            let ids = self.lm.encode(&format!("{}{REPLY_START}", self.lm.chat(&system, &p.user)))?;
            if ids.len() <= ctx {
                let mut notes = p.notes;
                if n < pages.len() {
                    notes.push(format!(
                        "only P1..P{n} were read: {} pages do not fit the model's context of {} tokens",
                        pages.len(),
                        self.lm.model.cfg.context
                    ));
                }
                return Ok((ids, notes, Vec::new()));
            }
            if opts.page_tokens > 32 {
                opts.page_tokens = opts.page_tokens * 3 / 4;
                opts.prompt_tokens = opts.prompt_tokens * 3 / 4;
            } else if n > 1 {
                // pages cut to the bone still do not fit: read fewer of them
                n -= 1;
            } else {
                return Err(LensError::BadInput(format!("the question and one page take {} tokens, more than the model's context of {}", ids.len(), ctx)));
            }
        }
    }
}

impl Answerer for QwenAnswerer {
    fn describe(&self) -> Option<String> {
        Some(format!(
            "{} ({}, {:.1} s to load, {:.0} MB of weights, {})",
            self.lm.name(),
            self.lm.model.cfg.arch.name(),
            self.lm.load_s,
            self.lm.model.weight_bytes() as f64 / 1e6,
            self.device()
        ))
    }

    fn kind(&self) -> AnswererKind {
        AnswererKind::Qwen
    }

    fn answer(&self, question: &Question, pages: &[PageInput]) -> Result<Answer> {
        self.answer_stream(question, pages, &mut |_| true)
    }

    fn answer_stream(&self, read: &Question, pages: &[PageInput], on_text: &mut dyn FnMut(&str) -> bool) -> Result<Answer> {
        let t0 = Instant::now();
        if pages.is_empty() {
            return Ok(Answer::not_found(AnswererKind::Qwen, 0.0));
        }
        let (ids, mut notes, given) = self.prompt_tokens(read, pages)?;
        let by_passages = self.opts.prompt.mode == PromptMode::Passages;
        let mut out: Vec<u32> = Vec::new();
        let mut shown = String::new();
        let stopped = std::cell::Cell::new(false);
        let lm = &self.lm;
        let mut cache = lm.model.new_cache();
        let gen = lm.model.generate_in(&mut cache, &ids, self.opts.max_new_tokens, &lm.stop, &mut || !stopped.get(), &mut |t| {
            out.push(t);
            let text = lm.decode(&out).unwrap_or_default();
            if text.ends_with('\u{FFFD}') {
                return true; // half a character: wait for the rest
            }
            if let Some(a) = answer_so_far(&format!("{REPLY_START}{text}")) {
                let a = a.trim_end();
                if a.len() > shown.len() && a.starts_with(shown.as_str()) {
                    if !on_text(&a[shown.len()..]) {
                        stopped.set(true);
                        return false;
                    }
                    shown = a.to_string();
                }
            }
            true
        });
        if stopped.get() {
            return Err(LensError::Cancelled);
        }
        let (_, stats): (Vec<u32>, GenStats) = gen?;
        // the reply was started for the model with its first field's label
        let mut reply = format!("{REPLY_START}{}", lm.decode(&out)?);
        let mut r = parse(&reply, pages.len());
        // small models often stop after the answer: ask for the citation and the quote
        let room = lm.model.cfg.context.saturating_sub(cache.len);
        if !r.not_found && r.labels.is_empty() && room > FOLLOW_UP_TOKENS + 8 {
            let cue = format!("\n{}", if by_passages { "Cite:" } else { FOLLOW_UP });
            let forced = lm.encode(&cue)?;
            let (more, _) = lm.model.generate_in(&mut cache, &forced, FOLLOW_UP_TOKENS, &lm.stop, &mut || true, &mut |_| !stopped.get())?;
            if stopped.get() {
                return Err(LensError::Cancelled);
            }
            reply = format!("{}{cue}{}", reply.trim_end(), lm.decode(&more)?);
            r = parse(&reply, pages.len());
        }
        if !r.dropped.is_empty() {
            notes.push(format!("the model cited {} which name no page given to it (dropped)", r.dropped.join(", ")));
        }
        if let Some(n) = &lm.device_note {
            notes.push(n.clone());
        }
        if stats.new_tokens >= self.opts.max_new_tokens && !lm.stop.contains(out.last().unwrap_or(&0)) {
            notes.push(format!("the reply was cut at {} tokens", self.opts.max_new_tokens));
        }
        // the rest of the answer, so the streamed pieces add up to it
        if r.answer.starts_with(shown.as_str()) && r.answer.len() > shown.len() {
            on_text(&r.answer[shown.len()..]);
        } else if shown.is_empty() {
            on_text(&r.answer);
        }
        // what the reply cited: where that rests on the pages is decided in the ask phases
        // (lens_core::cite::locate), as for every model answerer
        let cited = Cited {
            passages: by_passages,
            ids: if by_passages { r.ids.clone() } else { Vec::new() },
            labels: r.labels.clone(),
            quote: if by_passages { None } else { r.quote.clone() },
            given: if by_passages { given.iter().map(|p| GivenPassage { id: p.id.clone(), page: p.page, text: p.text.clone() }).collect() } else { Vec::new() },
        };
        // a model answer that cites nothing is pinned to nothing: it is shown, not boxed
        Ok(Answer {
            answer: r.answer,
            citations: Vec::new(),
            quote: None,
            not_found: r.not_found,
            found_by: FoundBy::None,
            answer_ms: t0.elapsed().as_secs_f64() * 1000.0,
            answerer: AnswererKind::Qwen,
            calculation: None,
            model: Some(ModelRun {
                model: lm.name(),
                device: self.device(),
                prompt_tokens: stats.prompt_tokens,
                new_tokens: stats.new_tokens,
                prefill_tps: stats.prefill_tps(),
                decode_tps: stats.decode_tps(),
                first_token_s: stats.prefill_s,
                reply,
                notes,
            }),
            support: Default::default(),
            support_reasons: Vec::new(),
            support_rules: Vec::new(),
            checks: Vec::new(),
            cited: Some(cited),
        })
    }
}
