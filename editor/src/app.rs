//! The editor as an egui app: lays out the panels, routes keyboard shortcuts, and
//! applies the frame's [`Command`]s to the [`Document`] once everything is drawn.

use std::sync::Arc;

use egui::{Key, KeyboardShortcut, Modifiers, Ui};
use muster_core::Module;

use crate::command::{Command, Mode, Selection, Tool};
use crate::document::{Document, SaveOutcome};
use crate::map_view::{MapInput, MapView, SideStyle};
use crate::overlay::Overlay;
use crate::panels::properties::PropertiesPanel;
use crate::panels::toolbar::{self, ScenarioChoice};
use crate::panels::validation;
use crate::play::{Play, PlayCommand, PlayInput};
use crate::style::parse_color;

const UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
const REDO: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
const SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);

pub struct EditorApp {
    doc: Document,
    selection: Option<Selection>,
    tool: Tool,
    view: MapView,
    properties: PropertiesPanel,
    /// The scenario whose setup is drawn on the map.
    scenario: Option<String>,
    /// The last module that loaded: sides, scenarios. Kept while an edit breaks it.
    module: Option<Arc<Module>>,
    /// A save waiting for the user to accept dropping this many comments.
    confirm_save: Option<usize>,
    status: String,
    /// Editing the module or playing it.
    mode: Mode,
    /// The play client (its game survives a switch back to editing).
    play: Play,
}

impl EditorApp {
    pub fn new(doc: Document) -> Self {
        let module = doc.validation().module.clone();
        let scenario = module
            .as_ref()
            .and_then(|m| m.scenarios.first())
            .map(|s| s.id.clone());
        Self {
            doc,
            selection: None,
            tool: Tool::Select,
            view: MapView::default(),
            properties: PropertiesPanel::default(),
            scenario,
            module,
            confirm_save: None,
            status: String::new(),
            mode: Mode::Edit,
            play: Play::new(),
        }
    }

    pub fn document(&self) -> &Document {
        &self.doc
    }

    pub fn selection(&self) -> Option<Selection> {
        self.selection
    }

    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// The last message shown in the toolbar (a save, an error).
    pub fn status(&self) -> &str {
        &self.status
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The play client: the game under way, if any.
    pub fn play(&self) -> &Play {
        &self.play
    }

    pub fn play_mut(&mut self) -> &mut Play {
        &mut self.play
    }

    /// Draws one frame in `ui` and applies what the user did.
    pub fn show(&mut self, ui: &mut Ui) {
        let mut out = Vec::new();
        self.shortcuts(ui, &mut out);
        let sides = self.side_styles(ui);
        egui::Panel::top("mode").show(ui, |ui| crate::play::mode_bar(ui, self.mode, &mut out));
        if self.mode == Mode::Play {
            let input = PlayInput {
                map: self.doc.map(),
                sides: &sides,
            };
            self.play.show(ui, &input, &mut self.view, &mut out);
            for command in out {
                self.apply(command);
            }
            return;
        }
        let scenarios: Vec<ScenarioChoice> = self
            .module
            .iter()
            .flat_map(|m| &m.scenarios)
            .map(|s| ScenarioChoice {
                id: s.id.clone(),
                name: s.name.clone(),
            })
            .collect();

        egui::Panel::top("toolbar").show(ui, |ui| {
            toolbar::show(
                ui,
                &self.doc,
                &self.tool,
                &scenarios,
                self.scenario.as_deref(),
                &self.status,
                &mut out,
            );
        });
        egui::Panel::right("properties")
            .default_size(320.0)
            .resizable(true)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("properties-scroll")
                    .show(ui, |ui| {
                        self.properties
                            .show(ui, self.doc.map(), &sides, self.selection, &mut out);
                    });
            });
        egui::Panel::bottom("validation")
            .default_size(140.0)
            .resizable(true)
            .show(ui, |ui| validation::show(ui, self.doc.validation()));
        let overlay = self.overlay();
        egui::CentralPanel::no_frame().show(ui, |ui| {
            let input = MapInput {
                map: self.doc.map(),
                sides: &sides,
                overlay: overlay.as_ref(),
                selection: self.selection,
                tool: &self.tool,
            };
            self.view.show(ui, &input, &mut out);
        });
        self.save_dialog(ui, &mut out);

        for command in out {
            self.apply(command);
        }
    }

    fn shortcuts(&self, ui: &Ui, out: &mut Vec<Command>) {
        // A focused text field keeps its own undo.
        if ui.ctx().memory(|m| m.focused().is_some()) {
            return;
        }
        ui.input_mut(|i| {
            // The longer shortcut first: Ctrl+Shift+Z also matches Ctrl+Z.
            if i.consume_shortcut(&REDO) {
                out.push(Command::Redo);
            } else if i.consume_shortcut(&UNDO) {
                out.push(Command::Undo);
            }
            if i.consume_shortcut(&SAVE) {
                out.push(Command::Save {
                    drop_comments: false,
                });
            }
            if i.key_pressed(Key::Escape) {
                out.push(Command::SetTool(Tool::Select));
            }
        });
    }

    fn side_styles(&self, ui: &Ui) -> Vec<SideStyle> {
        let fallback = ui.visuals().widgets.active.bg_fill;
        self.module
            .iter()
            .flat_map(|m| &m.sides)
            .map(|s| SideStyle {
                id: s.id.clone(),
                name: s.name.clone(),
                color: s.color.as_deref().and_then(parse_color).unwrap_or(fallback),
            })
            .collect()
    }

    fn overlay(&self) -> Option<Overlay> {
        let module = self.module.as_ref()?;
        let scenario = module.scenario(self.scenario.as_deref()?)?;
        Some(Overlay::build(module, scenario, self.doc.map()))
    }

    fn save_dialog(&mut self, ui: &Ui, out: &mut Vec<Command>) {
        let Some(n) = self.confirm_save else { return };
        egui::Modal::new(egui::Id::unique("confirm-save")).show(ui.ctx(), |ui| {
            ui.heading("Save and drop comments?");
            ui.label(format!(
                "{} has {n} comment{} inside <map>. Saving rewrites the file and drops {}; \
                 the comments before <map> are kept.",
                self.doc.map_path().display(),
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" },
            ));
            ui.horizontal(|ui| {
                if ui.button("Save anyway").clicked() {
                    out.push(Command::Save {
                        drop_comments: true,
                    });
                }
                if ui.button("Cancel").clicked() {
                    out.push(Command::CancelSave);
                }
            });
        });
    }

    /// Applies one command. Errors become the status message, never a panic.
    pub fn apply(&mut self, command: Command) {
        let command = match (self.mode, command) {
            (_, Command::SetMode(mode)) => {
                self.set_mode(mode);
                return;
            }
            (_, Command::Play(c)) => {
                let module = self.doc.validation().module.clone();
                self.play.apply(c, module.as_ref(), self.doc.map());
                return;
            }
            (_, Command::SaveGame(path)) => {
                self.play.save_game(&path);
                return;
            }
            (_, Command::LoadGame(path)) => {
                let module = self.doc.validation().module.clone();
                self.play.load_game(&path, module.as_ref());
                return;
            }
            (Mode::Play, c) => {
                // The map is not edited while playing: clicks go to the game, Ctrl+Z
                // takes back a move.
                let module = self.doc.validation().module.clone();
                let play = match c {
                    Command::Select(Some(Selection::Box(i))) => PlayCommand::ClickBox(i),
                    Command::Undo
                        if self.play.session().is_some_and(|s| s.history().can_undo()) =>
                    {
                        PlayCommand::Undo
                    }
                    _ => return,
                };
                self.play.apply(play, module.as_ref(), self.doc.map());
                return;
            }
            (Mode::Edit, c) => c,
        };
        let result = match command {
            Command::Select(s) => {
                self.selection = s;
                Ok(())
            }
            Command::SetTool(t) => {
                self.tool = t;
                Ok(())
            }
            Command::ShowScenario(s) => {
                self.scenario = s;
                Ok(())
            }
            Command::SetBox { index, value } => self.doc.set_box(index, value),
            Command::MoveBox { index, x, y } => self.doc.move_box(index, x, y),
            Command::AddBox { x, y } => self.doc.add_box(x, y).map(|i| {
                self.selection = Some(Selection::Box(i));
                self.tool = Tool::Select;
            }),
            Command::DeleteBox(i) => self.doc.delete_box(i).map(|()| self.selection = None),
            Command::AddLine { a, b, kind } => self
                .doc
                .add_line(a, b, &kind)
                .map(|i| self.selection = Some(Selection::Line(i))),
            Command::DeleteLine(i) => self.doc.delete_line(i).map(|()| self.selection = None),
            Command::Undo => self.doc.undo().map(drop),
            Command::Redo => self.doc.redo().map(drop),
            Command::Save { drop_comments } => {
                self.confirm_save = None;
                match self.doc.save(drop_comments) {
                    Ok(SaveOutcome::Saved) => {
                        self.status = format!("saved {}", self.doc.map_path().display());
                    }
                    Ok(SaveOutcome::WouldDropComments(n)) => self.confirm_save = Some(n),
                    Err(e) => {
                        tracing::warn!("{e}");
                        self.status = e.to_string();
                    }
                }
                Ok(())
            }
            Command::CancelSave => {
                self.confirm_save = None;
                Ok(())
            }
            Command::SetMode(_)
            | Command::Play(_)
            | Command::SaveGame(_)
            | Command::LoadGame(_) => {
                Ok(()) // handled above
            }
        };
        if let Err(e) = result {
            tracing::warn!("{e}");
            self.status = e.to_string();
        }
        if let Some(m) = &self.doc.validation().module {
            self.module = Some(m.clone());
        }
        self.clamp_selection();
    }

    /// Switches mode; entering play without a game opens the new-game dialog.
    fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
        if mode == Mode::Play && self.play.session().is_none() && !self.play.dialog_open() {
            let validation = self.doc.validation();
            let why = || {
                validation
                    .errors()
                    .next()
                    .map_or("the module does not load".to_string(), |d| d.to_string())
            };
            self.play.open_dialog(validation.module.as_ref(), why);
        }
    }

    /// Drops a selection that no longer exists (after an undo or a delete).
    fn clamp_selection(&mut self) {
        let map = self.doc.map();
        self.selection = match self.selection {
            Some(Selection::Box(i)) if i >= map.boxes.len() => None,
            Some(Selection::Line(i)) if i >= map.lines.len() => None,
            s => s,
        };
        if let Tool::AddLine {
            from: Some(a),
            kind,
        } = &self.tool
            && *a >= map.boxes.len()
        {
            self.tool = Tool::AddLine {
                kind: kind.clone(),
                from: None,
            };
        }
    }
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}
