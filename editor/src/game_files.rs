//! The play session's side of the app's file handling: replaying the game under way
//! when the module changes (hot reload during play, see [`crate::play::hot`]), and
//! choosing game files with the app's [`crate::file_dialog::FileDialog`].
//! A child module of `app`, next to `lifecycle`.

use std::path::PathBuf;

use super::EditorApp;
use crate::command::UiCommand;
use crate::play::Reloaded;

impl EditorApp {
    /// The module changed (on disk, or saved here): the game under way, if any, is
    /// played again on it, or kept with a warning saying why not.
    pub(super) fn reload_game(&mut self) {
        let validation = self.doc.validation();
        let module = validation.module.clone();
        let first_error = validation.errors().next().map(ToString::to_string);
        let why_not = || first_error.unwrap_or_else(|| "it does not load".into());
        match self.play.reload_rules(module.as_ref(), why_not) {
            None => {}
            Some(Reloaded::Switched(message)) => {
                tracing::info!("{message}");
                self.notes.success(message);
            }
            Some(Reloaded::Kept(message)) => self.notes.warning(message),
        }
    }

    /// Asks the file dialog where to save the game, or which game to load. A native
    /// dialog answers now; the typed-path one later, through `draw_overlays`.
    pub(super) fn ask_game_file(&mut self, save: bool) {
        let answer = if save {
            let current = PathBuf::from(self.play.game_path.trim());
            let name = current
                .file_name()
                .map_or_else(|| "game.json".into(), |n| n.to_string_lossy().into_owned());
            self.dialog.save_file(&name)
        } else {
            self.dialog.open_file()
        };
        if let Some(path) = answer {
            self.apply(if save {
                UiCommand::SaveGame(path)
            } else {
                UiCommand::LoadGame(path)
            });
        }
    }
}
