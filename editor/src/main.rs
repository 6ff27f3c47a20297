//! `muster-editor [MODULE_DIR]`: opens the editor window on a module (default `mods/ahd`),
//! watching its files for changes made elsewhere.

use std::path::PathBuf;
use std::process::ExitCode;

use muster_editor::{Document, EditorApp, file_dialog};

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("mods/ahd"), PathBuf::from);
    let doc = match Document::open(&dir) {
        Ok(doc) => doc,
        Err(e) => {
            eprintln!("muster-editor: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(format!("muster editor: {}", dir.display()))
            .with_inner_size([1400.0, 900.0]),
        ..Default::default()
    };
    let result = eframe::run_native(
        "muster-editor",
        options,
        Box::new(|cc| {
            let mut app = EditorApp::new(doc).with_dialog(file_dialog::default_dialog());
            let ctx = cc.egui_ctx.clone();
            app.watch(move || ctx.request_repaint());
            Ok(Box::new(app))
        }),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("muster-editor: {e}");
            ExitCode::FAILURE
        }
    }
}
