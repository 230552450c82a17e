//! The Qwen answerer: pages into a prompt ([`crate::prompt`]), greedy generation with the
//! answer streamed as it is written, the reply parsed ([`crate::parse`]) into an [`Answer`].

use crate::model::GenStats;
use crate::parse::{answer_so_far, parse};
use crate::prompt::{build, PromptOptions};
use crate::LanguageModel;
use lens_core::answer::{map_citations, Answer, Answerer, AnswererKind, ModelRun, PageInput};
use lens_core::error::{LensError, Result};
use lens_core::evidence::FoundBy;
use std::sync::Arc;
use std::time::Instant;

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
        format!("cpu ({}, {} threads)", crate::q8::kernel_name(), self.lm.model.threads())
    }

    /// The prompt's tokens, with pages cut until it fits the model's context with room for
    /// the reply; the notes say what was cut.
    fn prompt_tokens(&self, question: &str, pages: &[PageInput]) -> Result<(Vec<u32>, Vec<String>)> {
        let count = |s: &str| self.lm.count(s);
        let ctx = self.lm.model.cfg.context.saturating_sub(self.opts.max_new_tokens + 8);
        let mut opts = self.opts.prompt.clone();
        opts.prompt_tokens = opts.prompt_tokens.min(ctx);
        let mut n = pages.len();
        loop {
            let p = build(question, &pages[..n], &opts, &count);
            let ids = self.lm.encode(&self.lm.chat(&opts.system, &p.user))?;
            if ids.len() <= ctx {
                let mut notes = p.notes;
                if n < pages.len() {
                    notes.push(format!(
                        "only P1..P{n} were read: {} pages do not fit the model's context of {} tokens",
                        pages.len(),
                        self.lm.model.cfg.context
                    ));
                }
                return Ok((ids, notes));
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
    fn kind(&self) -> AnswererKind {
        AnswererKind::Qwen
    }

    fn answer(&self, question: &str, pages: &[PageInput]) -> Result<Answer> {
        self.answer_stream(question, pages, &mut |_| true)
    }

    fn answer_stream(&self, question: &str, pages: &[PageInput], on_text: &mut dyn FnMut(&str) -> bool) -> Result<Answer> {
        let t0 = Instant::now();
        if pages.is_empty() {
            return Ok(Answer::not_found(AnswererKind::Qwen, 0.0));
        }
        let (ids, mut notes) = self.prompt_tokens(question, pages)?;
        let mut out: Vec<u32> = Vec::new();
        let mut shown = String::new();
        let stopped = std::cell::Cell::new(false);
        let lm = &self.lm;
        let gen = lm.model.generate(&ids, self.opts.max_new_tokens, &lm.stop, &mut || !stopped.get(), &mut |t| {
            out.push(t);
            let text = lm.decode(&out).unwrap_or_default();
            if text.ends_with('\u{FFFD}') {
                return true; // half a character: wait for the rest
            }
            if let Some(a) = answer_so_far(&text) {
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
        let reply = lm.decode(&out)?;
        let r = parse(&reply, pages.len());
        if !r.dropped.is_empty() {
            notes.push(format!("the model cited {} which name no page given to it (dropped)", r.dropped.join(", ")));
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
        let labels = r.labels.clone();
        let citations = map_citations(&labels, pages);
        // a model answer that cites nothing is pinned to nothing: it is shown, not boxed
        Ok(Answer {
            answer: r.answer,
            citations,
            quote: r.quote,
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
        })
    }
}
