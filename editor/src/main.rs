//! `muster-editor [--edit] [MODULE_DIR] [--mod MOD_DIR]...`: opens the window on a
//! module (default `mods/ahd`) at the start screen (new game against the computer, saved
//! game, editor), or with `--edit` straight in the editor; the module's files are
//! watched for changes made elsewhere. With `--mod` it opens the top mod of the stack,
//! on its base's board with the mods' `<remove>` and `<patch>` marked.

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
    let mut mods = Vec::new();
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--edit" {
            edit = true;
        } else if arg == "--mod" {
            let Some(m) = args.next() else {
                eprintln!(
                    "muster-editor: --mod needs a mod's folder (usage: muster-editor [--edit] [MODULE_DIR] [--mod MOD_DIR]...)"
                );
                return ExitCode::FAILURE;
            };
            mods.push(PathBuf::from(m));
        } else if dir.is_none() {
            dir = Some(PathBuf::from(arg));
        } else {
            eprintln!(
                "muster-editor: one module folder at most (usage: muster-editor [--edit] [MODULE_DIR] [--mod MOD_DIR]...)"
            );
            return ExitCode::FAILURE;
        }
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from("mods/ahd"));
    // A stack opens at its top mod, on its base's board with the mod's changes marked.
    let dir = match muster_editor::mod_changes::stack_top(&dir, &mods) {
        Ok(top) => top,
        Err(e) => {
            eprintln!("muster-editor: {e}");
            return ExitCode::FAILURE;
        }
    };
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
