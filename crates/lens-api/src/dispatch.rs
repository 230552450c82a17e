//! One command name and JSON arguments in, JSON out: the thin layer the Tauri `api` command and
//! `lens serve`'s `POST /api/NAME` share. Each arm parses typed arguments and calls one method
//! of [`Api`]; streamed asks, uploads and page images have their own entry points in the shells.

use crate::args::*;
use crate::labels::SetArgs;
use crate::Api;
use lens_core::error::{LensError, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Every command `dispatch` knows, for the UI's capability list and error messages.
pub const COMMANDS: &[&str] = &[
    "app_info",
    "documents",
    "search",
    "ask",
    "cancel_ask",
    "feedback",
    "log",
    "reopen",
    "workpaper",
    "tables_export",
    "models_fetchable",
    "model_fetch",
    "model_fetch_status",
    "remove",
    "set_metadata",
    "aliases",
    "add_alias",
    "remove_alias",
    "get_settings",
    "set_settings",
    "ingest_paths",
    "ingest_status",
    "cancel_ingest",
    "dense_build",
    "dense_status",
    "cancel_dense",
    "vision_build",
    "vision_status",
    "cancel_vision",
    "watches",
    "watch_status",
    "add_watch",
    "remove_watch",
    "label_sets",
    "label_create_set",
    "label_remove_set",
    "label_questions",
    "label_question",
    "label_add",
    "label_from_log",
    "label_grade",
    "label_save",
    "label_add_box",
    "label_remove_box",
    "label_import",
    "label_export",
    "label_agreement",
    "label_score",
];

fn parse<T: DeserializeOwned>(cmd: &str, a: Value) -> Result<T> {
    let a = if a.is_null() { json!({}) } else { a };
    serde_json::from_value(a).map_err(|e| LensError::BadInput(format!("{cmd}: {e}")))
}

fn out<T: Serialize>(v: T) -> Result<Value> {
    Ok(serde_json::to_value(v).expect("API results serialise"))
}

/// Run one command.
pub fn dispatch(api: &Api, cmd: &str, a: Value) -> Result<Value> {
    match cmd {
        "app_info" => out(api.app_info()),
        "documents" => out(api.documents()?),
        "search" => out(api.search(&parse(cmd, a)?)?),
        "ask" => out(api.ask(&parse(cmd, a)?)?),
        // in team mode the server names the caller: each user stops only their own asks
        "cancel_ask" => out(json!({ "cancelled": api.cancel_asks_of(parse::<CancelArgs>(cmd, a)?.user.as_deref()) })),
        "feedback" => {
            api.feedback(&parse(cmd, a)?)?;
            out(json!({ "ok": true }))
        }
        "log" => out(api.log(parse::<LogArgs>(cmd, a)?.limit)?),
        "reopen" => out(api.reopen(parse::<ReopenArgs>(cmd, a)?.id)?),
        "workpaper" => {
            let f = api.workpaper(&parse(cmd, a)?)?;
            out(json!({ "name": f.name, "mime": f.mime, "bytes": f.bytes.len(), "base64": lens_core::workpaper::base64(&f.bytes) }))
        }
        "models_fetchable" => out(api.fetchable()?),
        "model_fetch" => out(api.fetch_model(&parse::<ModelFetchArgs>(cmd, a)?.name)?),
        "model_fetch_status" => out(api.fetch_status()),
        "tables_export" => {
            let f = api.tables_export(&parse(cmd, a)?)?;
            out(json!({ "name": f.name, "mime": f.mime, "bytes": f.bytes.len(), "base64": lens_core::workpaper::base64(&f.bytes) }))
        }
        "remove" => {
            api.remove(&parse::<DocArgs>(cmd, a)?.doc)?;
            out(json!({ "ok": true }))
        }
        "set_metadata" => out(api.set_metadata(&parse(cmd, a)?)?),
        "aliases" => out(api.aliases(parse::<AliasesArgs>(cmd, a)?.doc.as_deref())?),
        "add_alias" => {
            let a: AliasArgs = parse(cmd, a)?;
            out(json!({ "alias": api.add_alias(&a.doc, &a.alias)? }))
        }
        "remove_alias" => {
            let a: AliasArgs = parse(cmd, a)?;
            out(json!({ "removed": api.remove_alias(&a.doc, &a.alias)? }))
        }
        "get_settings" => out(api.settings()?),
        "set_settings" => out(api.set_settings(&parse(cmd, a)?)?),
        "ingest_paths" => out(api.ingest_paths(parse::<PathsArgs>(cmd, a)?.paths.into_iter().map(PathBuf::from).collect())?),
        "ingest_status" => out(api.ingest_status()),
        "cancel_ingest" => out(json!({ "ok": true, "running": api.cancel_ingest() })),
        "dense_build" => out(api.start_dense()?),
        "dense_status" => out(api.dense_status()?),
        "cancel_dense" => out(json!({ "ok": true, "running": api.cancel_dense() })),
        "vision_build" => out(api.start_vision(&parse(cmd, a)?)?),
        "vision_status" => out(api.vision_status()?),
        "cancel_vision" => out(json!({ "ok": true, "running": api.cancel_vision() })),
        "watches" => out(api.watches()?),
        "watch_status" => out(api.watch_status()?),
        "add_watch" => out(json!({ "folder": api.add_watch_given(Path::new(&parse::<FolderArgs>(cmd, a)?.folder))? })),
        "remove_watch" => out(json!({ "removed": api.remove_watch(&parse::<FolderArgs>(cmd, a)?.folder)? })),
        "label_sets" => out(api.label_sets()?),
        "label_create_set" => out(json!({ "set": api.label_create_set(&parse::<SetArgs>(cmd, a)?.set)? })),
        "label_remove_set" => {
            api.label_remove_set(&parse::<SetArgs>(cmd, a)?.set)?;
            out(json!({ "ok": true }))
        }
        "label_questions" => out(api.label_questions(&parse::<SetArgs>(cmd, a)?.set)?),
        "label_question" => out(api.label_question(&parse(cmd, a)?)?),
        "label_add" => out(api.label_add(&parse(cmd, a)?)?),
        "label_from_log" => out(api.label_from_log(&parse(cmd, a)?)?),
        "label_grade" => out(api.label_grade(&parse(cmd, a)?)?),
        "label_save" => out(api.label_save(&parse(cmd, a)?)?),
        "label_add_box" => out(json!({ "id": api.label_add_box(&parse(cmd, a)?)? })),
        "label_remove_box" => {
            api.label_remove_box(&parse(cmd, a)?)?;
            out(json!({ "ok": true }))
        }
        "label_import" => out(api.label_import(&parse(cmd, a)?)?),
        "label_export" => out(api.label_export(&parse::<SetArgs>(cmd, a)?.set)?),
        "label_agreement" => out(api.label_agreement(&parse::<SetArgs>(cmd, a)?.set)?),
        "label_score" => out(api.label_score(&parse(cmd, a)?)?),
        other => Err(LensError::NotFound(format!("unknown command `{other}`"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_command_is_dispatched_and_arguments_are_typed() {
        let dir = tempfile::tempdir().unwrap();
        let api = Api::new(dir.path().to_path_buf());
        for cmd in COMMANDS {
            // no arguments: either it runs, or it names what is missing; never "unknown command"
            if let Err(e) = dispatch(&api, cmd, Value::Null) {
                assert_ne!(e.code(), "not_found", "{cmd}: {e}");
                assert!(["bad_input", "model_missing"].contains(&e.code()), "{cmd}: {e}");
            }
        }
        let e = dispatch(&api, "search", json!({"query": 3})).unwrap_err();
        assert_eq!(e.code(), "bad_input");
        assert!(e.to_string().starts_with("search: invalid type"), "{e}");
        let e = dispatch(&api, "ask", json!({"question": "q", "retriever": "telepathy"})).unwrap_err();
        assert!(e.to_string().contains("retriever `telepathy` is not available in this build"), "{e}");
        assert_eq!(dispatch(&api, "nope", json!({})).unwrap_err().code(), "not_found");
        let e = dispatch(&api, "ingest_paths", json!({"paths": []})).unwrap_err();
        assert!(e.to_string().contains("no files given"), "{e}");
        // outside the allowed folders: one answer whether the file exists or not
        let a = dispatch(&api, "ingest_paths", json!({"paths": ["/etc/passwd"]})).unwrap_err().to_string();
        let b = dispatch(&api, "ingest_paths", json!({"paths": ["/etc/no-such-file"]})).unwrap_err().to_string();
        assert_eq!(a.replace("/etc/passwd", "X"), b.replace("/etc/no-such-file", "X"));
        assert!(a.contains("cannot be added"), "{a}");
    }

    #[test]
    fn every_dispatched_command_is_listed() {
        // the match's arms, read from this file, against COMMANDS (what the shells and the HTTP
        // server register): an arm nobody can call, or a listed name without an arm, fails here
        let src = include_str!("dispatch.rs");
        let body = &src[src.find("pub fn dispatch(").unwrap()..src.find("#[cfg(test)]").unwrap()];
        let re = regex::Regex::new(r#"(?m)^\s{8}"([a-z_]+)"(?:\s*\|\s*"([a-z_]+)")*\s*=>"#).unwrap();
        let mut arms: Vec<&str> = re.captures_iter(body).flat_map(|c| c.iter().skip(1).flatten().map(|m| m.as_str()).collect::<Vec<_>>()).collect();
        arms.sort();
        let mut listed: Vec<&str> = COMMANDS.to_vec();
        listed.sort();
        assert!(arms.len() > 10, "the arms were read: {arms:?}");
        assert_eq!(arms, listed, "the dispatch arms and COMMANDS differ");
    }
}
