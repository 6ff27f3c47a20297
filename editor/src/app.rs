//! The editor as an egui app: lays out the panels, routes keyboard shortcuts, and
//! applies the frame's [`UiCommand`]s to the [`Document`] once everything is drawn.

use std::sync::Arc;

use egui::{Key, KeyboardShortcut, Modifiers, Ui};
use muster_core::Module;

use crate::autosave::{self, Autosaver};
use crate::command::{Mode, Selection, Tool, UiCommand};
use crate::document::{Document, SaveOutcome};
use crate::file_dialog::{FileDialog, TypedPathDialog};
use crate::map_view::{MapInput, MapView, SideStyle};
use crate::notify_ui::Notifier;
use crate::overlay::Overlay;
use crate::panels::properties::PropertiesPanel;
use crate::panels::scenario::{ScenarioInput, ScenarioPanel};
use crate::panels::toolbar::{self, ScenarioChoice};
use crate::panels::validation;
use crate::play::{Play, PlayCommand, PlayInput};
use crate::prompts::Prompt;
use crate::reload::Reloader;
use crate::style::parse_color;

#[path = "game_files.rs"]
mod game_files;
#[path = "lifecycle.rs"]
mod lifecycle;

const UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
const REDO: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
const SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);

pub struct EditorApp {
    doc: Document,
    selection: Option<Selection>,
    /// Boxes selected besides `selection` (Shift/Ctrl-click, rubber band); only when
    /// `selection` is a box.
    extra: Vec<usize>,
    tool: Tool,
    view: MapView,
    properties: PropertiesPanel,
    scenario_panel: ScenarioPanel,
    /// The scenario whose setup is drawn on the map.
    scenario: Option<String>,
    /// The last module that loaded: sides, scenarios. Kept while an edit breaks it.
    module: Option<Arc<Module>>,
    /// A save waiting for the user to accept dropping this many comments.
    confirm_save: Option<usize>,
    status: String,
    /// Toasts (see `lifecycle.rs` for the fields below).
    notes: Notifier,
    dialog: Box<dyn FileDialog>,
    reloader: Option<Reloader>,
    wake: Option<lifecycle::Wake>,
    autosaver: Autosaver,
    prompt: Option<Prompt>,
    /// The user agreed to close with unsaved edits.
    close_allowed: bool,
    /// Close the window at the end of this frame.
    close_now: bool,
    /// What to do once the save the comment prompt is asking about is done.
    after_save: Option<crate::prompts::Then>,
    /// Editing the module or playing it.
    mode: Mode,
    /// The play client (its game survives a switch back to editing).
    play: Play,
    /// The map's background scan as a texture.
    scan: crate::background::BackgroundScan,
    /// The window title last sent (see [`EditorApp::title`]).
    title: String,
}

impl EditorApp {
    pub fn new(doc: Document) -> Self {
        let module = doc.validation().module.clone();
        let scenario = module
            .as_ref()
            .and_then(|m| m.scenarios.first())
            .map(|s| s.id.clone());
        let prompt = autosave::newer_than_map(doc.map_path()).map(Prompt::Restore);
        Self {
            doc,
            selection: None,
            extra: Vec::new(),
            tool: Tool::Select,
            view: MapView::default(),
            properties: PropertiesPanel::default(),
            scenario_panel: ScenarioPanel::default(),
            scenario,
            module,
            confirm_save: None,
            status: String::new(),
            notes: Notifier::default(),
            dialog: Box::new(TypedPathDialog::default()),
            reloader: None,
            wake: None,
            autosaver: Autosaver::default(),
            prompt,
            close_allowed: false,
            close_now: false,
            after_save: None,
            mode: Mode::Edit,
            play: Play::new(),
            scan: Default::default(),
            title: String::new(),
        }
    }

    /// The app as the program opens: on the start screen (see `start.rs`).
    pub fn at_start(mut self) -> Self {
        self.mode = Mode::Start;
        self
    }

    pub fn document(&self) -> &Document {
        &self.doc
    }

    pub fn selection(&self) -> Option<Selection> {
        self.selection
    }

    /// Every selected box: the primary selection first, then the others.
    pub fn selected_boxes(&self) -> Vec<usize> {
        match self.selection {
            Some(Selection::Box(i)) => std::iter::once(i)
                .chain(self.extra.iter().copied())
                .collect(),
            _ => Vec::new(),
        }
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

    /// The window title: the game's situation while playing, the module otherwise, with
    /// a mark for unsaved edits. Task bars show it, and the Xvfb smoke run reads it back
    /// to check that its clicks reached the game.
    pub fn title(&self) -> String {
        let dirty = if self.doc.is_dirty() { "* " } else { "" };
        let module = self.doc.dir().display();
        match self.play.session().filter(|_| self.mode == Mode::Play) {
            Some(s) => {
                let situation = muster_core::game::describe::situation(s.module(), s.state());
                let first = situation.lines().next().unwrap_or_default();
                format!("{dirty}{first} - muster: {module}")
            }
            None => format!("{dirty}muster editor: {module}"),
        }
    }

    /// Draws one frame in `ui` and applies what the user did.
    pub fn show(&mut self, ui: &mut Ui) {
        self.before_frame(ui);
        let mut out = Vec::new();
        self.shortcuts(ui, &mut out);
        let sides = self.side_styles(ui);
        let backdrop = self
            .doc
            .last_module()
            .and_then(|m| m.board.backdrop.as_ref());
        self.view.backdrop.set(backdrop);
        egui::Panel::top("mode").show(ui, |ui| crate::play::mode_bar(ui, self.mode, &mut out));
        if self.mode == Mode::Start {
            let validation = self.doc.validation();
            let name = validation.module.as_ref().map(|m| m.name.clone());
            let why = validation.errors().next().map(|d| d.to_string());
            crate::start::show(ui, name.as_deref(), why.as_deref(), &mut out);
            self.save_dialog(ui, &mut out);
            self.draw_overlays(ui, &mut out);
            for command in out {
                self.apply(command);
            }
            self.after_frame(ui);
            return;
        }
        if self.mode == Mode::Play {
            let input = PlayInput {
                map: self.doc.map(),
                sides: &sides,
            };
            self.play.show(ui, &input, &mut self.view, &mut out);
            self.save_dialog(ui, &mut out);
            self.draw_overlays(ui, &mut out);
            for command in out {
                self.apply(command);
            }
            self.after_frame(ui);
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

        let background = self.doc.map().background.as_ref();
        if let Some(message) = self.scan.sync(ui.ctx(), self.doc.dir(), background) {
            self.status = message;
        }
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
        egui::Panel::left("scenario")
            .default_size(300.0)
            .resizable(true)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("scenario-scroll")
                    .show(ui, |ui| {
                        let input = ScenarioInput {
                            doc: &self.doc,
                            scenario: self.scenario.as_deref(),
                            selected_box: match self.selection {
                                Some(Selection::Box(i)) => Some(i),
                                _ => None,
                            },
                            position: self.play.session().map(|s| crate::workshop::Position {
                                module: s.module(),
                                state: s.state(),
                            }),
                        };
                        self.scenario_panel.show(ui, &input, &mut out);
                    });
            });
        egui::Panel::bottom("validation")
            .default_size(140.0)
            .resizable(true)
            .show(ui, |ui| {
                if let Some(e) = self.scan.error() {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                validation::show(ui, &self.doc, &mut out);
            });
        let overlay = self.overlay();
        egui::CentralPanel::no_frame().show(ui, |ui| {
            let input = MapInput {
                map: self.doc.map(),
                sides: &sides,
                overlay: overlay.as_ref(),
                selection: self.selection,
                extra: &self.extra,
                tool: &self.tool,
                background: self.doc.map().background.as_ref().zip(self.scan.texture()),
            };
            if self.view.changes != *self.doc.map_changes() {
                self.view.changes = self.doc.map_changes().clone();
            }
            self.view.show(ui, &input, &mut out);
        });
        self.save_dialog(ui, &mut out);
        self.draw_overlays(ui, &mut out);

        for command in out {
            self.apply(command);
        }
        self.after_frame(ui);
    }

    fn shortcuts(&self, ui: &Ui, out: &mut Vec<UiCommand>) {
        // A focused text field keeps its own undo.
        if ui.ctx().memory(|m| m.focused().is_some()) {
            return;
        }
        ui.input_mut(|i| {
            // The longer shortcut first: Ctrl+Shift+Z also matches Ctrl+Z.
            if i.consume_shortcut(&REDO) {
                out.push(UiCommand::Redo);
            } else if i.consume_shortcut(&UNDO) {
                out.push(UiCommand::Undo);
            }
            if i.consume_shortcut(&SAVE) {
                out.push(UiCommand::Save {
                    drop_comments: false,
                });
            }
            if i.key_pressed(Key::Delete) {
                out.push(UiCommand::DeleteSelection);
            }
            if i.key_pressed(Key::Escape) {
                out.push(UiCommand::SetTool(Tool::Select));
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

    /// The shown scenario's setup as edited (compiled by the engine), else as loaded.
    fn overlay(&self) -> Option<Overlay> {
        let id = self.scenario.as_deref()?;
        if let (Some(i), Some(module)) = (self.doc.find_scenario(id), self.doc.last_module()) {
            let live = self.doc.shown_scenario(i)?;
            return Some(Overlay::build(module, live, self.doc.map()));
        }
        let module = self.module.as_ref()?;
        let scenario = module.scenario(id)?;
        Some(Overlay::build(module, scenario, self.doc.map()))
    }

    fn save_dialog(&mut self, ui: &Ui, out: &mut Vec<UiCommand>) {
        let Some(n) = self.confirm_save else { return };
        let errors = self.doc.scenario_errors();
        if !errors.is_empty() {
            // The scenario's own question, its errors clickable (panels/scenario.rs).
            crate::panels::scenario::save_invalid_question(ui, &errors, out);
            return;
        }
        egui::Modal::new(egui::Id::unique("confirm-save")).show(ui.ctx(), |ui| {
            ui.heading("Save and drop comments?");
            ui.label(format!(
                "{} (or an edited scenario file) has {n} comment{} inside its root element. \
                 Saving rewrites the file and drops {}; the comments before the root are kept.",
                self.doc.map_path().display(),
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" },
            ));
            ui.horizontal(|ui| {
                if ui.button("Save anyway").clicked() {
                    out.push(UiCommand::Save {
                        drop_comments: true,
                    });
                }
                if ui.button("Cancel").clicked() {
                    out.push(UiCommand::CancelSave);
                }
            });
        });
    }

    /// Applies one command. Errors become the status message, never a panic.
    pub fn apply(&mut self, command: UiCommand) {
        let command = match (self.mode, command) {
            (_, UiCommand::SetMode(mode)) => {
                self.set_mode(mode);
                return;
            }
            (_, UiCommand::Play(c)) => {
                let module = self.doc.validation().module.clone();
                self.play.apply(c, module.as_ref(), self.doc.map());
                return;
            }
            (_, UiCommand::SaveGame(path)) => {
                self.play.game_path = path.display().to_string();
                self.play.save_game(&path);
                return;
            }
            (_, UiCommand::SaveGameDialog) => {
                self.ask_game_file(true);
                return;
            }
            (_, UiCommand::LoadGameDialog) => {
                self.ask_game_file(false);
                return;
            }
            (_, UiCommand::PositionAsScenario) => {
                self.mode = Mode::Edit;
                if let Some(m) = self.doc.last_module() {
                    self.scenario_panel.new_from_game(m);
                }
                return;
            }
            (_, UiCommand::LoadGame(path)) => {
                self.play.game_path = path.display().to_string();
                let module = self.doc.validation().module.clone();
                self.play.load_game(&path, module.as_ref());
                return;
            }
            // Files, prompts and closing work the same in both modes.
            (
                Mode::Play,
                c @ (UiCommand::OpenModuleDialog
                | UiCommand::OpenModule(_)
                | UiCommand::ReloadFromDisk
                | UiCommand::RestoreAutosave
                | UiCommand::DeleteAutosave
                | UiCommand::Unsaved(_)
                | UiCommand::DismissPrompt
                | UiCommand::Save { .. }
                | UiCommand::CancelSave),
            ) => c,
            (Mode::Play, c) => {
                // The map is not edited while playing: clicks go to the game, Ctrl+Z
                // takes back a move.
                let module = self.doc.validation().module.clone();
                let play = match c {
                    UiCommand::Select(Some(Selection::Box(i))) => PlayCommand::ClickBox(i),
                    UiCommand::Undo
                        if self
                            .play
                            .session()
                            .is_some_and(crate::play::Session::can_undo) =>
                    {
                        PlayCommand::Undo
                    }
                    _ => return,
                };
                self.play.apply(play, module.as_ref(), self.doc.map());
                return;
            }
            (Mode::Edit | Mode::Start, c) => c,
        };
        let result = match command {
            UiCommand::Select(s) => {
                self.selection = s;
                self.extra.clear();
                Ok(())
            }
            UiCommand::ToggleBox(i) => {
                self.toggle_box(i);
                Ok(())
            }
            UiCommand::AddBoxes(boxes) => {
                for i in boxes {
                    if !self.selected_boxes().contains(&i) {
                        self.toggle_box(i);
                    }
                }
                Ok(())
            }
            UiCommand::MoveBoxes(moves) => self.doc.move_boxes(&moves),
            UiCommand::DeleteSelection => match self.selection {
                Some(Selection::Box(_)) => {
                    let boxes = self.selected_boxes();
                    self.doc.delete_boxes(&boxes).map(|()| {
                        self.selection = None;
                        self.extra.clear();
                    })
                }
                Some(Selection::Line(i)) => self.doc.delete_line(i).map(|()| self.selection = None),
                None => Ok(()),
            },
            UiCommand::SetTool(t) => {
                self.tool = t;
                Ok(())
            }
            UiCommand::ShowScenario(s) => {
                self.scenario = s;
                Ok(())
            }
            UiCommand::SetBox { index, value } => self.doc.set_box(index, value),
            UiCommand::SetBackground(value) => self.doc.set_background(value),
            UiCommand::MoveBox { index, x, y } => self.doc.move_box(index, x, y),
            UiCommand::AddBox { x, y } => self.doc.add_box(x, y).map(|i| {
                self.selection = Some(Selection::Box(i));
                self.tool = Tool::Select;
            }),
            UiCommand::DeleteBox(i) => self.doc.delete_box(i).map(|()| self.selection = None),
            UiCommand::AddLine { a, b, kind } => self
                .doc
                .add_line(a, b, &kind)
                .map(|i| self.selection = Some(Selection::Line(i))),
            UiCommand::DeleteLine(i) => self.doc.delete_line(i).map(|()| self.selection = None),
            UiCommand::SetLine { index, value } => self.doc.set_line(index, value),
            UiCommand::SetScenario {
                index,
                value,
                label,
            } => match self.doc.set_scenario(index, value, label) {
                Ok(()) => Ok(()),
                Err(e) => {
                    tracing::warn!("{e}");
                    self.status = e.to_string();
                    Ok(())
                }
            },
            UiCommand::Undo => self.doc.undo().map(drop),
            UiCommand::Redo => self.doc.redo().map(drop),
            UiCommand::Save { drop_comments } => {
                self.confirm_save = None;
                match self.doc.save(drop_comments) {
                    Ok(SaveOutcome::Saved) => self.on_saved(),
                    Ok(SaveOutcome::WouldDropComments(n) | SaveOutcome::InvalidScenario(n)) => {
                        self.confirm_save = Some(n)
                    }
                    Err(e) => self.report_error(e.to_string()),
                }
                Ok(())
            }
            UiCommand::CancelSave => {
                self.confirm_save = None;
                self.after_save = None;
                Ok(())
            }
            c @ (UiCommand::OpenModuleDialog
            | UiCommand::OpenModule(_)
            | UiCommand::ReloadFromDisk
            | UiCommand::RestoreAutosave
            | UiCommand::DeleteAutosave
            | UiCommand::Unsaved(_)
            | UiCommand::DismissPrompt) => {
                self.apply_lifecycle(c);
                Ok(())
            }
            UiCommand::SetMode(_)
            | UiCommand::Play(_)
            | UiCommand::SaveGame(_)
            | UiCommand::SaveGameDialog
            | UiCommand::LoadGameDialog
            | UiCommand::PositionAsScenario
            | UiCommand::LoadGame(_) => {
                Ok(()) // handled above
            }
        };
        if let Err(e) = result {
            self.report_error(e.to_string());
        }
        if let Some(m) = &self.doc.validation().module {
            self.module = Some(m.clone());
        }
        self.clamp_selection();
    }

    /// Adds box `i` to the box selection, or takes it out.
    fn toggle_box(&mut self, i: usize) {
        match self.selection {
            Some(Selection::Box(p)) if p == i => {
                self.selection =
                    (!self.extra.is_empty()).then(|| Selection::Box(self.extra.remove(0)));
            }
            Some(Selection::Box(_)) => {
                if let Some(at) = self.extra.iter().position(|&e| e == i) {
                    self.extra.remove(at);
                } else {
                    self.extra.push(i);
                }
            }
            _ => {
                self.selection = Some(Selection::Box(i));
                self.extra.clear();
            }
        }
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
        let boxes = map.boxes.len();
        self.extra.retain(|&i| i < boxes);
        self.selection = match self.selection {
            Some(Selection::Box(i)) if i >= map.boxes.len() => None,
            Some(Selection::Line(i)) if i >= map.lines.len() => None,
            s => s,
        };
        if !matches!(self.selection, Some(Selection::Box(_))) {
            self.extra.clear();
        }
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
