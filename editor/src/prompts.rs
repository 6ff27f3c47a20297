//! The questions the editor asks before it could lose work: the map changed on disk
//! while edited, an autosave is newer than the map, unsaved edits before quitting or
//! opening another module. Each is a modal whose buttons emit [`UiCommand`]s.

use std::path::{Path, PathBuf};

use egui::Ui;

use crate::command::{UiCommand, UnsavedChoice};

/// What to do once the unsaved edits are saved or discarded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Then {
    Quit,
    Open(PathBuf),
}

/// The open question, at most one at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prompt {
    /// The edited map file changed on disk.
    Conflict,
    /// This autosave is newer than the map file.
    Restore(PathBuf),
    /// There are unsaved edits; then do this.
    Unsaved(Then),
}

/// Whether a close request must be held back to ask about unsaved edits.
pub fn must_ask_before_close(dirty: bool, close_allowed: bool) -> bool {
    dirty && !close_allowed
}

pub fn show(ui: &Ui, prompt: &Prompt, map_path: &Path, out: &mut Vec<UiCommand>) {
    let file = map_path.file_name().map_or_else(
        || map_path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    egui::Modal::new(egui::Id::unique("work-prompt")).show(ui.ctx(), |ui| match prompt {
        Prompt::Conflict => {
            ui.heading("Changed on disk");
            ui.label(format!(
                "{file} was changed by another program, and you have unsaved edits to it."
            ));
            ui.horizontal(|ui| {
                if ui.button("Reload from disk (lose my edits)").clicked() {
                    out.push(UiCommand::ReloadFromDisk);
                }
                if ui.button("Keep mine").clicked() {
                    out.push(UiCommand::DismissPrompt);
                }
            });
        }
        Prompt::Restore(sidecar) => {
            ui.heading("Restore autosave?");
            ui.label(format!(
                "{} holds edits to {file} newer than the file: the editor closed without \
                 saving them.",
                sidecar.display()
            ));
            ui.horizontal(|ui| {
                if ui.button("Restore autosave").clicked() {
                    out.push(UiCommand::RestoreAutosave);
                }
                if ui.button("Delete autosave").clicked() {
                    out.push(UiCommand::DeleteAutosave);
                }
            });
        }
        Prompt::Unsaved(then) => {
            ui.heading("Unsaved edits");
            let what = match then {
                Then::Quit => "before closing".to_owned(),
                Then::Open(p) => format!("before opening {}", p.display()),
            };
            ui.label(format!("Save your edits to {file} {what}?"));
            ui.horizontal(|ui| {
                for (label, choice) in [
                    ("Save edits", UnsavedChoice::Save),
                    ("Discard edits", UnsavedChoice::Discard),
                    ("Cancel", UnsavedChoice::Cancel),
                ] {
                    if ui.button(label).clicked() {
                        out.push(UiCommand::Unsaved(choice));
                    }
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unsaved_edits_hold_a_close_back() {
        assert!(must_ask_before_close(true, false));
        assert!(!must_ask_before_close(false, false));
        assert!(!must_ask_before_close(true, true));
    }
}
