//! What each call of the service needs in team mode (`lens serve --team`): readers ask,
//! search, read the log and export; annotators also label; admins also add and remove filings,
//! change settings and run builds. The desktop app and a one-person `lens serve` check nothing
//! here: there the token is the person.

use lens_core::users::Role;

/// The calls of the HTTP server that are not `dispatch` commands.
pub const SERVER_CALLS: &[&str] = &["ask_stream", "upload", "page.png"];

/// The least role a call needs; `None` for a call no one may make (unknown).
pub fn required_role(call: &str) -> Option<Role> {
    Some(match call {
        "app_info" | "documents" | "search" | "ask" | "ask_stream" | "cancel_ask" | "feedback" | "log" | "reopen" | "workpaper" | "tables_export"
        | "aliases" | "get_settings" | "ingest_status" | "dense_status" | "vision_status" | "models_fetchable" | "model_fetch_status" | "watches"
        | "watch_status" | "label_sets" | "label_questions" | "label_question" | "label_export" | "label_agreement" | "label_score" | "page.png" => {
            Role::Reader
        }
        "label_create_set" | "label_add" | "label_from_log" | "label_grade" | "label_save" | "label_add_box" | "label_remove_box" | "label_import" => {
            Role::Annotator
        }
        "remove" | "set_metadata" | "add_alias" | "remove_alias" | "set_settings" | "ingest_paths" | "cancel_ingest" | "dense_build" | "cancel_dense"
        | "vision_build" | "cancel_vision" | "model_fetch" | "add_watch" | "remove_watch" | "label_remove_set" | "upload" => Role::Admin,
        _ => return None,
    })
}

/// Calls whose arguments name the annotator: the team server puts the caller's name there.
pub fn names_annotator(call: &str) -> bool {
    matches!(call, "label_grade" | "label_save" | "label_add_box" | "label_remove_box" | "label_import")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_has_a_role() {
        for c in crate::dispatch::COMMANDS.iter().chain(SERVER_CALLS) {
            assert!(required_role(c).is_some(), "{c} has no role in access.rs");
        }
        assert_eq!(required_role("nope"), None);
        assert_eq!(required_role("label_grade"), Some(Role::Annotator));
        assert_eq!(required_role("ingest_paths"), Some(Role::Admin));
    }
}
