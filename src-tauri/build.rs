fn main() {
    // Declare the app's own commands so capabilities can grant exactly these (and nothing else).
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(&[
        "api",
        "ask_stream",
        "page_image",
        "pick_pdfs",
        "export_workpaper",
        "export_tables",
        "save_text",
        "open_text",
    ])))
    .expect("tauri build step");
}
