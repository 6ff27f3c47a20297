//! The document's life in the window, around the editing itself: hot reload from
//! disk, autosave, opening another module, and asking before unsaved edits are lost.
//! A child module of `app` (it works on [`EditorApp`]'s fields), kept apart so the
//! layout and the editing commands stay readable.
//!
//! Invariants: unsaved edits are never overwritten without the user's yes (a conflict
//! prompt, the unsaved prompt); a reload that fails keeps the last document that
//! loaded and shows the error; the editor's own writes never trigger a reload; after a
//! change or a save, a game under way is replayed on the new module or kept with a
//! warning (`game_files.rs`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui::{Ui, ViewportCommand};

use super::EditorApp;
use crate::autosave::{self, Autosaver};
use crate::command::{UiCommand, UnsavedChoice};
use crate::document::{Document, SaveOutcome};
use crate::file_dialog::{Ask, FileDialog};
use crate::notify_ui::Notice;
use crate::prompts::{self, Prompt, Then};
use crate::reload::{FileChange, ReloadEvent, Reloader};
use crate::validate;

/// Wakes the window from the watcher's thread.
pub(super) type Wake = Arc<dyn Fn() + Send + Sync>;

impl EditorApp {
    /// Uses `dialog` to choose files and folders (the native one in the binary).
    pub fn with_dialog(mut self, dialog: Box<dyn FileDialog>) -> Self {
        self.dialog = dialog;
        self
    }

    /// Autosaves unsaved edits every `every` instead of [`autosave::EVERY`].
    pub fn with_autosave_every(mut self, every: Duration) -> Self {
        self.autosaver = Autosaver::new(every);
        self
    }

    /// Starts watching the module's files; `wake` is called from the watcher's thread
    /// when something changed (the binary passes `ctx.request_repaint`).
    pub fn watch(&mut self, wake: impl Fn() + Send + Sync + 'static) {
        self.watch_with(Arc::new(wake));
    }

    fn watch_with(&mut self, wake: Wake) {
        let mut dirs = vec![self.doc.dir().to_path_buf()];
        dirs.extend(
            self.module
                .iter()
                .flat_map(|m| m.scripts.iter().map(|s| s.dir.clone())),
        );
        let w = wake.clone();
        self.reloader = match Reloader::watch(&dirs, move || w()) {
            Ok(r) => Some(r),
            Err(e) => {
                self.report_error(format!("{e}; changes on disk will not show"));
                None
            }
        };
        self.wake = Some(wake);
    }

    /// Whether the module's files are being watched.
    pub fn is_watching(&self) -> bool {
        self.reloader.is_some()
    }

    /// The last notices shown as toasts, oldest first.
    pub fn notices(&self) -> &[Notice] {
        self.notes.recent()
    }

    /// The question on screen, if any.
    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    /// Whether the window may close now (nothing unsaved, or the user said so).
    pub fn close_allowed(&self) -> bool {
        self.close_allowed || !self.doc.is_dirty()
    }

    /// Start of a frame: changes from disk, a close request, a due autosave.
    pub(super) fn before_frame(&mut self, ui: &Ui) {
        let events = self
            .reloader
            .as_mut()
            .map(Reloader::poll)
            .unwrap_or_default();
        for event in events {
            self.on_reload_event(event);
        }
        let close = ui.input(|i| i.viewport().close_requested());
        if close && prompts::must_ask_before_close(self.doc.is_dirty(), self.close_allowed) {
            ui.send_viewport_cmd(ViewportCommand::CancelClose);
            self.prompt = Some(Prompt::Unsaved(Then::Quit));
        }
        if let Some(Err(e)) = self.autosaver.tick(Instant::now(), &self.doc) {
            self.report_error(format!("autosave failed: {e}"));
        }
        if self.doc.is_dirty() {
            // Wake for the next autosave (never a busy loop, whatever the interval).
            let wait = self.autosaver.every().max(Duration::from_millis(100));
            ui.ctx().request_repaint_after(wait);
        }
    }

    /// Draws the prompts, the in-window file dialog and the toasts.
    pub(super) fn draw_overlays(&mut self, ui: &Ui, out: &mut Vec<UiCommand>) {
        if let Some(p) = &self.prompt {
            prompts::show(ui, p, self.doc.map_path(), out);
        }
        match self.dialog.show(ui) {
            Some((Ask::Folder, path)) => out.push(UiCommand::OpenModule(path)),
            // Only game files are asked for (see `game_files`).
            Some((Ask::SaveFile, path)) => out.push(UiCommand::SaveGame(path)),
            Some((Ask::OpenFile, path)) => out.push(UiCommand::LoadGame(path)),
            None => {}
        }
        self.notes.show(ui.ctx());
    }

    /// End of a frame: closes the window once the user agreed to.
    pub(super) fn after_frame(&mut self, ui: &Ui) {
        let title = self.title();
        if title != self.title {
            ui.send_viewport_cmd(ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        if std::mem::take(&mut self.close_now) {
            ui.send_viewport_cmd(ViewportCommand::Close);
        }
    }

    /// A save went through: it is no news for the watcher, and the autosave is stale.
    pub(super) fn on_saved(&mut self) {
        let path = self.doc.map_path().to_path_buf();
        if let Some(r) = &mut self.reloader {
            // Every file the save wrote (a scenario too): the watcher must not take
            // them for changes made elsewhere and reload, which would drop undo.
            for (written, text) in self.doc.written() {
                r.note_own_write(written, text);
            }
        }
        autosave::remove(&path);
        self.status = format!("saved {}", path.display());
        self.notes.success(self.status.clone());
        // The last check hashed the files as they were before the save; a game's
        // saves record the module's hash, so check again, then replay any game on it.
        self.doc.revalidate();
        self.after_document_replaced();
        self.reload_game();
        if let Some(then) = self.after_save.take() {
            self.proceed(then);
        }
    }

    /// Shows an error in the toolbar and as a toast.
    pub(super) fn report_error(&mut self, message: String) {
        tracing::warn!("{message}");
        self.notes.error(message.clone());
        self.status = message;
    }

    /// Applies the commands about files, prompts and closing.
    pub(super) fn apply_lifecycle(&mut self, command: UiCommand) {
        match command {
            UiCommand::OpenModuleDialog => {
                if let Some(path) = self.dialog.open_folder() {
                    self.apply_lifecycle(UiCommand::OpenModule(path));
                }
            }
            UiCommand::OpenModule(path) => {
                if self.doc.is_dirty() {
                    self.prompt = Some(Prompt::Unsaved(Then::Open(path)));
                } else {
                    self.open_module(path);
                }
            }
            UiCommand::ReloadFromDisk => {
                self.prompt = None;
                autosave::remove(self.doc.map_path());
                self.reload_from_disk(&[]);
            }
            UiCommand::RestoreAutosave => {
                self.prompt = None;
                self.restore_autosave();
            }
            UiCommand::DeleteAutosave => {
                self.prompt = None;
                autosave::remove(self.doc.map_path());
                self.notes.info("autosave deleted");
            }
            UiCommand::DismissPrompt => self.prompt = None,
            UiCommand::Unsaved(choice) => self.answer_unsaved(choice),
            other => tracing::error!(?other, "not a lifecycle command"),
        }
    }

    fn answer_unsaved(&mut self, choice: UnsavedChoice) {
        let Some(Prompt::Unsaved(then)) = self.prompt.take() else {
            return;
        };
        match choice {
            UnsavedChoice::Cancel => {}
            UnsavedChoice::Save => match self.doc.save(false) {
                Ok(SaveOutcome::Saved) => {
                    self.on_saved();
                    self.proceed(then);
                }
                // The comment question comes first; its "Save anyway" goes on.
                Ok(SaveOutcome::WouldDropComments(n) | SaveOutcome::InvalidScenario(n)) => {
                    self.confirm_save = Some(n);
                    self.after_save = Some(then);
                }
                Err(e) => self.report_error(e.to_string()),
            },
            UnsavedChoice::Discard => {
                autosave::remove(self.doc.map_path());
                self.close_allowed = true;
                self.proceed(then);
            }
        }
    }

    fn proceed(&mut self, then: Then) {
        match then {
            Then::Quit => {
                self.close_allowed = true;
                self.close_now = true;
            }
            Then::Open(path) => self.open_module(path),
        }
    }

    /// Switches to the module in `dir`; on an error nothing changes.
    fn open_module(&mut self, dir: PathBuf) {
        let doc = match Document::open(&dir) {
            Ok(doc) => doc,
            Err(e) => {
                self.report_error(format!("cannot open {}: {e}", dir.display()));
                return;
            }
        };
        let notes = std::mem::take(&mut self.notes);
        let dialog = std::mem::replace(&mut self.dialog, Box::new(NoDialog));
        let every = self.autosaver.every();
        let wake = self.wake.take();
        *self = EditorApp::new(doc)
            .with_dialog(dialog)
            .with_autosave_every(every);
        self.notes = notes;
        if let Some(wake) = wake {
            self.watch_with(wake);
        }
        self.notes
            .success(format!("opened {}", self.doc.dir().display()));
    }

    fn restore_autosave(&mut self) {
        let path = autosave::sidecar(self.doc.map_path());
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => return self.report_error(format!("cannot read {}: {e}", path.display())),
        };
        match self.doc.restore_map_text(&text) {
            Ok(()) => {
                self.after_document_replaced();
                self.notes
                    .success(format!("restored {} (not saved yet)", path.display()));
            }
            Err(e) => self.report_error(e.to_string()),
        }
    }

    fn on_reload_event(&mut self, event: ReloadEvent) {
        match event {
            ReloadEvent::Changed(change) => {
                if change.rules_changed() {
                    tracing::info!("rule scripts changed on disk");
                }
                self.on_files_changed(&change);
                // A game under way is played again on what now loads, or kept.
                self.reload_game();
            }
            ReloadEvent::WatchError(e) => self.report_error(format!("watching files: {e}")),
        }
    }

    fn on_files_changed(&mut self, change: &FileChange) {
        if !self.doc.is_dirty() {
            return self.reload_from_disk(&change.paths);
        }
        if change.touches(self.doc.map_path()) {
            // Other files in the batch (rules, scenarios) are still checked now.
            self.doc.revalidate();
            self.after_document_replaced();
            self.notes.warning(format!(
                "{} changed on disk; your unsaved edits are kept until you choose",
                self.doc.map_path().display()
            ));
            self.prompt = Some(Prompt::Conflict);
            return;
        }
        // Other files (scenarios, rules) changed: recheck against them, edits kept.
        self.doc.revalidate();
        self.after_document_replaced();
        self.report_check(&names(&change.paths), "rechecked with");
    }

    /// Reopens the document from disk; when that fails the last good one stays, and
    /// the validation panel shows what is wrong with the files on disk.
    fn reload_from_disk(&mut self, paths: &[PathBuf]) {
        let what = if paths.is_empty() {
            self.doc.map_path().display().to_string()
        } else {
            names(paths)
        };
        match self.doc.reload() {
            Ok(()) => {
                self.after_document_replaced();
                self.report_check(&what, "reloaded");
            }
            Err(e) => {
                // The engine's check of the files on disk names the file, line and column.
                let mut why = e.to_string();
                if let Ok(text) = std::fs::read_to_string(self.doc.map_path()) {
                    let check = validate::check(self.doc.dir(), self.doc.map_path(), &text);
                    if let Some(d) = check.errors().next() {
                        why = d.to_string();
                    }
                    self.doc.set_validation(check);
                }
                self.report_error(format!("reload failed, keeping the last good map: {why}"));
            }
        }
    }

    /// Toasts the outcome of a check after files changed.
    fn report_check(&mut self, what: &str, verb: &str) {
        let first = self
            .doc
            .validation()
            .errors()
            .next()
            .map(ToString::to_string);
        match first {
            None => self.notes.success(format!("{verb} {what}")),
            Some(d) => self.report_error(format!("{verb} {what}: {d}")),
        }
    }

    /// Keeps the app's view of the document consistent after it was replaced.
    fn after_document_replaced(&mut self) {
        if let Some(m) = &self.doc.validation().module {
            self.module = Some(m.clone());
        }
        self.clamp_selection();
    }
}

/// The file names of `paths`, for a notice.
fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| {
            p.file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Stands in for the dialog while it moves to the reopened app.
struct NoDialog;

impl FileDialog for NoDialog {
    fn open_folder(&mut self) -> Option<PathBuf> {
        None
    }
    fn save_file(&mut self, _: &str) -> Option<PathBuf> {
        None
    }
    fn open_file(&mut self) -> Option<PathBuf> {
        None
    }
}
