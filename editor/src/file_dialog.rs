//! Choosing files and folders: the native dialog (`rfd`, through the XDG desktop
//! portal on Linux) behind a trait, and a typed-path fallback drawn in the window for
//! when there is no native dialog (no portal, no session bus, tests).
//!
//! A dialog answers either at once (the native one blocks until the user picks) or
//! later, from [`FileDialog::show`], for dialogs drawn inside the window: the app
//! calls `show` every frame and acts on what it returns.

use std::path::PathBuf;

use egui::Ui;

/// What a dialog was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    Folder,
    OpenFile,
    SaveFile,
}

pub trait FileDialog {
    /// A folder to open, if the user picked one now.
    fn open_folder(&mut self) -> Option<PathBuf>;
    /// Where to save, suggesting the file name `suggested`.
    fn save_file(&mut self, suggested: &str) -> Option<PathBuf>;
    /// An existing file to open.
    fn open_file(&mut self) -> Option<PathBuf>;
    /// Draws the dialog when it lives in the window; returns the answer to the last
    /// question once the user gives it.
    fn show(&mut self, _ui: &Ui) -> Option<(Ask, PathBuf)> {
        None
    }
}

/// The platform's dialog. Blocks the frame while open, as native dialogs do.
#[derive(Default)]
pub struct NativeDialog;

impl FileDialog for NativeDialog {
    fn open_folder(&mut self) -> Option<PathBuf> {
        rfd::FileDialog::new()
            .set_title("Open module folder")
            .pick_folder()
    }

    fn save_file(&mut self, suggested: &str) -> Option<PathBuf> {
        rfd::FileDialog::new().set_file_name(suggested).save_file()
    }

    fn open_file(&mut self) -> Option<PathBuf> {
        rfd::FileDialog::new().pick_file()
    }
}

/// The fallback: a modal with a text field where the user types the path.
#[derive(Default)]
pub struct TypedPathDialog {
    asking: Option<Ask>,
    text: String,
    problem: Option<String>,
}

impl TypedPathDialog {
    /// Whether the modal is open.
    pub fn is_open(&self) -> bool {
        self.asking.is_some()
    }

    fn ask(&mut self, ask: Ask, text: &str) -> Option<PathBuf> {
        self.asking = Some(ask);
        self.text = text.to_owned();
        self.problem = None;
        None
    }

    /// Why the typed path cannot answer `ask`, if it cannot.
    fn check(ask: Ask, path: &std::path::Path) -> Option<String> {
        match ask {
            Ask::Folder if !path.is_dir() => Some(format!("{} is not a folder", path.display())),
            Ask::OpenFile if !path.is_file() => Some(format!("{} is not a file", path.display())),
            Ask::SaveFile
                if !path
                    .parent()
                    .is_none_or(|p| p.as_os_str().is_empty() || p.is_dir()) =>
            {
                Some(format!("{} is in no existing folder", path.display()))
            }
            _ => None,
        }
    }
}

impl FileDialog for TypedPathDialog {
    fn open_folder(&mut self) -> Option<PathBuf> {
        self.ask(Ask::Folder, "")
    }

    fn save_file(&mut self, suggested: &str) -> Option<PathBuf> {
        self.ask(Ask::SaveFile, suggested)
    }

    fn open_file(&mut self) -> Option<PathBuf> {
        self.ask(Ask::OpenFile, "")
    }

    fn show(&mut self, ui: &Ui) -> Option<(Ask, PathBuf)> {
        let ask = self.asking?;
        let (title, ok) = match ask {
            Ask::Folder => ("Open folder", "Open"),
            Ask::OpenFile => ("Open file", "Open"),
            Ask::SaveFile => ("Save as", "Save"),
        };
        let mut answer = None;
        let mut cancel = false;
        egui::Modal::new(egui::Id::unique("typed-path-dialog")).show(ui.ctx(), |ui| {
            ui.heading(title);
            let label = ui.label("Path");
            let edit = ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(420.0));
            let edit = edit.labelled_by(label.id);
            let entered = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if let Some(p) = &self.problem {
                ui.colored_label(ui.visuals().error_fg_color, p);
            }
            ui.horizontal(|ui| {
                if ui.button(ok).clicked() || entered {
                    let path = PathBuf::from(self.text.trim());
                    match Self::check(ask, &path) {
                        Some(problem) => self.problem = Some(problem),
                        None => answer = Some(path),
                    }
                }
                if ui.button("Cancel").clicked() {
                    cancel = true;
                }
            });
        });
        if cancel || answer.is_some() {
            self.asking = None;
            self.problem = None;
        }
        answer.map(|p| (ask, p))
    }
}

/// The dialog to use here: native when a desktop session can show one, else typed.
/// `MUSTER_DIALOG=typed` forces the fallback (a portal that is absent only fails
/// when called, and then looks like a cancel).
pub fn default_dialog() -> Box<dyn FileDialog> {
    let forced = std::env::var("MUSTER_DIALOG").is_ok_and(|v| v == "typed");
    let desktop = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
        && (std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some());
    if desktop && !forced {
        Box::new(NativeDialog)
    } else {
        tracing::info!("no native file dialog here: typing paths instead");
        Box::new(TypedPathDialog::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_paths_are_checked_for_what_was_asked() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.xml");
        std::fs::write(&file, "x").unwrap();
        assert!(TypedPathDialog::check(Ask::Folder, dir.path()).is_none());
        assert!(TypedPathDialog::check(Ask::Folder, &file).is_some());
        assert!(TypedPathDialog::check(Ask::OpenFile, &file).is_none());
        assert!(TypedPathDialog::check(Ask::OpenFile, &dir.path().join("b")).is_some());
        assert!(TypedPathDialog::check(Ask::SaveFile, &dir.path().join("new.xml")).is_none());
        assert!(TypedPathDialog::check(Ask::SaveFile, &dir.path().join("no/new.xml")).is_some());
    }

    #[test]
    fn asking_opens_the_modal_and_answers_later() {
        let mut d = TypedPathDialog::default();
        assert!(!d.is_open());
        assert_eq!(d.open_folder(), None);
        assert!(d.is_open());
        assert_eq!(d.save_file("map.xml"), None);
        assert_eq!(d.text, "map.xml");
    }
}
