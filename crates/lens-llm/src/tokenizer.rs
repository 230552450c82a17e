//! The tokenizer of a GGUF file, built from the file's own metadata so that a lone `.gguf` is
//! enough: `tokenizer.ggml.tokens` (the vocabulary, id = position), `tokenizer.ggml.merges`
//! ("a b" pairs in rank order), `tokenizer.ggml.token_type` (3 = control, 4 = user-defined:
//! both matched whole, control ones are special) and `tokenizer.ggml.pre` (the pre-tokenizer's
//! split pattern). Qwen models use GPT-2's byte-level BPE with their own split pattern.

use candle_core::quantized::gguf_file::{Content, Value};
use lens_core::error::{LensError, Result};
use std::path::Path;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::normalizers::unicode::NFC;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, SplitDelimiterBehavior, Tokenizer};

/// Qwen2's (and Qwen3's) split pattern, as its tokenizer.json gives it.
pub const QWEN2_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// GPT-2's, for `tokenizer.ggml.pre = "gpt2"` or none.
pub const GPT2_PATTERN: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

fn strings<'a>(md: &'a std::collections::HashMap<String, Value>, key: &str, file: &Path) -> Result<Vec<&'a str>> {
    let v = md.get(key).ok_or_else(|| LensError::Model(format!("{}: no {key} in the GGUF metadata (the file carries no tokenizer)", file.display())))?;
    let arr = v.to_vec().map_err(|e| LensError::Model(format!("{}: {key}: {e}", file.display())))?;
    arr.iter().map(|x| x.to_string().map(|s| s.as_str()).map_err(|e| LensError::Model(format!("{}: {key}: {e}", file.display())))).collect()
}

/// Build the tokenizer a GGUF file describes.
pub fn from_gguf(ct: &Content, file: &Path) -> Result<Tokenizer> {
    let md = &ct.metadata;
    let model = md.get("tokenizer.ggml.model").and_then(|v| v.to_string().ok()).map(String::as_str).unwrap_or("");
    if model != "gpt2" {
        return Err(LensError::Model(format!("{}: tokenizer model {model:?} is not supported (byte-level BPE, \"gpt2\", is)", file.display())));
    }
    let tokens = strings(md, "tokenizer.ggml.tokens", file)?;
    let merges = strings(md, "tokenizer.ggml.merges", file)?;
    let types: Vec<i32> = match md.get("tokenizer.ggml.token_type").and_then(|v| v.to_vec().ok()) {
        Some(a) => a.iter().map(|x| x.to_i32().unwrap_or(1)).collect(),
        None => vec![1; tokens.len()],
    };
    build(&tokens, &merges, &types, md.get("tokenizer.ggml.pre").and_then(|v| v.to_string().ok()).map(String::as_str), file)
}

/// Byte-level BPE from a vocabulary, merges and token types (see the module docs).
pub fn build(tokens: &[&str], merges: &[&str], types: &[i32], pre: Option<&str>, file: &Path) -> Result<Tokenizer> {
    let bad = |e: String| LensError::Model(format!("{}: tokenizer: {e}", file.display()));
    let vocab: Vocab = tokens.iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect();
    let merges: Vec<(String, String)> = merges
        .iter()
        .map(|m| m.split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())).ok_or_else(|| bad(format!("merge {m:?} is not two tokens"))))
        .collect::<Result<_>>()?;
    let bpe = BPE::builder().vocab_and_merges(vocab, merges).build().map_err(|e| bad(e.to_string()))?;
    let pattern = match pre {
        Some("qwen2") | Some("qwen35") | Some("qwen3") => QWEN2_PATTERN,
        Some("gpt2") | Some("default") | None => GPT2_PATTERN,
        Some(other) => return Err(bad(format!("pre-tokenizer {other:?} is not supported (qwen2, gpt2 are)"))),
    };
    let split = Split::new(SplitPattern::Regex(pattern.into()), SplitDelimiterBehavior::Isolated, false).map_err(|e| bad(e.to_string()))?;
    let mut tok = Tokenizer::new(bpe);
    tok.with_normalizer(Some(NFC)).map_err(|e| bad(e.to_string()))?;
    tok.with_pre_tokenizer(Some(Sequence::new(vec![split.into(), ByteLevel::new(false, false, false).into()])));
    tok.with_decoder(Some(ByteLevel::new(false, false, false)));
    let special: Vec<AddedToken> = tokens.iter().zip(types).filter(|(_, &t)| t == 3).map(|(s, _)| AddedToken::from(s.to_string(), true)).collect();
    let user: Vec<AddedToken> = tokens.iter().zip(types).filter(|(_, &t)| t == 4).map(|(s, _)| AddedToken::from(s.to_string(), false)).collect();
    tok.add_special_tokens(special).map_err(|e| bad(e.to_string()))?;
    tok.add_tokens(user).map_err(|e| bad(e.to_string()))?;
    Ok(tok)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte-level vocabulary of 256 symbols, three merges and two control tokens.
    fn tiny() -> Tokenizer {
        let bl = tokenizers::pre_tokenizers::byte_level::ByteLevel::alphabet();
        let mut syms: Vec<String> = bl.into_iter().map(|c| c.to_string()).collect();
        syms.sort();
        syms.extend(["he".to_string(), "ll".to_string(), "hell".to_string(), "<|im_start|>".to_string(), "<|im_end|>".to_string()]);
        let toks: Vec<&str> = syms.iter().map(String::as_str).collect();
        let mut types = vec![1; toks.len()];
        let n = types.len();
        types[n - 1] = 3;
        types[n - 2] = 3;
        build(&toks, &["h e", "l l", "he ll"], &types, Some("qwen2"), Path::new("tiny.gguf")).unwrap()
    }

    #[test]
    fn merges_special_tokens_and_round_trip() {
        let t = tiny();
        let hell = t.token_to_id("hell").unwrap();
        let start = t.token_to_id("<|im_start|>").unwrap();
        let enc = t.encode("<|im_start|>hello wörld 12", false).unwrap();
        let ids = enc.get_ids();
        assert_eq!(ids[0], start, "a control token is matched whole");
        assert_eq!(ids[1], hell, "merges apply in rank order");
        assert_eq!(t.decode(ids, false).unwrap(), "<|im_start|>hello wörld 12");
        assert_eq!(t.decode(ids, true).unwrap(), "hello wörld 12");
    }

    #[test]
    fn refuses_what_it_cannot_build() {
        let e = build(&["a"], &["a"], &[1], Some("qwen2"), Path::new("x.gguf")).unwrap_err().to_string();
        assert!(e.contains("x.gguf") && e.contains("merge"), "{e}");
        let e = build(&["a"], &[], &[1], Some("llama-bpe-9"), Path::new("x.gguf")).unwrap_err().to_string();
        assert!(e.contains("pre-tokenizer"), "{e}");
    }
}
