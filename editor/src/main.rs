//! `muster-editor [--edit] [MODULE_DIR]`: opens the window on a module (default
//! `mods/ahd`) at the start screen (new game against the computer, saved game, editor),
//! or with `--edit` straight in the editor; the module's files are watched for changes
//! made elsewhere.

use std::path::PathBuf;
use std::process::ExitCode;

use muster_editor::{Document, EditorApp, file_dialog, no_window};

/// mimalloc, as the command line's: the strong computer player's search allocates and
/// frees millions of small values.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            // eframe's run loop logs the error it then returns, which is said below in
            // words a player can act on.
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,eframe::native::run=off".into()),
        )
        .init();
    let mut edit = false;
    let mut dir = None;
    for arg in std::env::args_os().skip(1) {
        if arg == "--edit" {
            edit = true;
        } else if dir.is_none() {
            dir = Some(PathBuf::from(arg));
        } else {
            eprintln!(
                "muster-editor: one module folder at most (usage: muster-editor [--edit] [MODULE_DIR])"
            );
            return ExitCode::FAILURE;
        }
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from("mods/ahd"));
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
            if !edit {
                app = app.at_start();
            }
            let ctx = cc.egui_ctx.clone();
            app.watch(move || ctx.request_repaint());
            Ok(Box::new(app))
        }),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            match no_window::message(&e, &dir) {
                Some(message) => eprintln!("{message}"),
                None => eprintln!("muster-editor: {e}"),
            }
            ExitCode::FAILURE
        }
    }
}
