//! The workshop's windows: New scenario (from scratch, a copy, a game position; written
//! as a mod of its own, asking before it replaces a scenario of the module or writes one
//! the engine rejects) and Balance… (many computer games in the background, with
//! progress, cancel, win rates with their 95% intervals, the victory conditions reached
//! and the game lengths). Play-test starts a game of the edited scenario.
//!
//! The windows only emit commands for the document and the app (`OpenModule`, `Play`,
//! `SetMode`, `Select`); what they make is the engine's (`crate::workshop`).

use std::sync::Arc;

use egui::Ui;
use muster_ai::Level;
use muster_core::{Module, Scenario};

use crate::command::{Mode, Selection, UiCommand};
use crate::map_data::MapData;
use crate::play::{NewGame, PlayCommand, PlayerKind};
use crate::workshop::{BalanceRun, BalanceSetup, Made, NewScenario, Position, Source};

/// The workshop's windows between frames.
#[derive(Default)]
pub struct Workshop {
    new: Option<NewScenarioWindow>,
    balance: Option<BalanceWindow>,
}

/// What the workshop needs to know this frame.
pub struct WorkshopInput<'a> {
    pub module: Option<&'a Arc<Module>>,
    pub dir: &'a std::path::Path,
    pub map: &'a MapData,
    /// The module's scenario files as edited: (id, text).
    pub copies: Vec<(String, String)>,
    /// The scenario being edited, by id, compiled as edited.
    pub scenario: Option<(&'a str, Option<&'a Scenario>)>,
    /// The game being played, if any.
    pub position: Option<Position<'a>>,
}

struct NewScenarioWindow {
    form: NewScenario,
    /// The last try: what was made, and what the author must answer before writing.
    made: Option<Made>,
    error: Option<String>,
    /// The module has a scenario of this id: the author said to replace it.
    replace_ok: bool,
    /// The engine rejects the scenario: the author said to write it anyway.
    invalid_ok: bool,
    /// The id the last try was for (a new id asks again).
    tried: String,
    copy_of: String,
    save_path: String,
    turn: String,
}

struct BalanceWindow {
    setup: BalanceSetup,
    scenario: String,
    run: Option<BalanceRun>,
    error: Option<String>,
}

/// The levels the Balance… window offers, in order.
const LEVELS: [Level; 3] = [Level::Random, Level::Greedy, Level::Ai];

impl Workshop {
    pub fn is_open(&self) -> bool {
        self.new.is_some() || self.balance.is_some()
    }

    /// Opens the New scenario window: from the game being played when `from_game`,
    /// else from scratch; `copy_of` is the scenario a copy starts from.
    pub fn open_new(&mut self, module: &Module, from_game: bool, copy_of: Option<String>) {
        let mut form = NewScenario::for_module(module);
        if from_game {
            form.source = Source::Game;
        }
        let copy_of = copy_of
            .or_else(|| module.scenarios.first().map(|s| s.id.clone()))
            .unwrap_or_default();
        self.new = Some(NewScenarioWindow {
            form,
            made: None,
            error: None,
            replace_ok: false,
            invalid_ok: false,
            tried: String::new(),
            copy_of,
            save_path: String::new(),
            turn: String::new(),
        });
    }

    /// The workshop's buttons, in the scenario panel.
    pub fn buttons(&mut self, ui: &mut Ui, input: &WorkshopInput<'_>, out: &mut Vec<UiCommand>) {
        let Some(module) = input.module else { return };
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("New scenario…")
                .on_hover_text(
                    "From scratch, as a copy, or from a game position; saved as a mod of its own",
                )
                .clicked()
            {
                let copy_of = input.scenario.map(|(id, _)| id.to_string());
                self.open_new(module, input.position.is_some(), copy_of);
            }
            let Some((id, compiled)) = input.scenario else {
                return;
            };
            let playable = compiled.is_some();
            let sides = module.sides.len();
            if ui
                .add_enabled(playable, egui::Button::new("Play-test"))
                .on_hover_text(
                    "Play the scenario as edited: you the first side, the computer the others",
                )
                .on_disabled_hover_text("The engine rejects the setup: see the errors below")
                .clicked()
            {
                let mut players = vec![PlayerKind::Computer(Level::Ai); sides];
                if let Some(p) = players.first_mut() {
                    *p = PlayerKind::Human;
                }
                play_test(id, players, false, out);
            }
            if ui
                .add_enabled(playable, egui::Button::new("Watch"))
                .on_hover_text("The computer plays every side, at the play screen's pace")
                .clicked()
            {
                play_test(id, vec![PlayerKind::Computer(Level::Ai); sides], true, out);
            }
            if ui
                .add_enabled(playable, egui::Button::new("Balance…"))
                .on_hover_text("Many games between computer players, in the background")
                .clicked()
            {
                self.balance = Some(BalanceWindow {
                    setup: BalanceSetup {
                        games: 20,
                        players: vec![Level::Ai; sides],
                        end: None,
                        seed: 1,
                        threads: 0,
                    },
                    scenario: id.to_string(),
                    run: None,
                    error: None,
                });
            }
        });
    }

    /// The open windows.
    pub fn windows(&mut self, ui: &mut Ui, input: &WorkshopInput<'_>, out: &mut Vec<UiCommand>) {
        let Some(module) = input.module else { return };
        if let Some(w) = &mut self.new {
            let mut open = true;
            let close = w.show(ui, module, input, out, &mut open);
            if close || !open {
                self.new = None;
            }
        }
        if let Some(w) = &mut self.balance {
            let mut open = true;
            w.show(ui, module, input, &mut open);
            if !open {
                if let Some(run) = &w.run {
                    run.cancel();
                }
                self.balance = None;
            }
        }
    }
}

/// Starts a game of scenario `id` as edited, and shows it.
fn play_test(id: &str, players: Vec<PlayerKind>, auto: bool, out: &mut Vec<UiCommand>) {
    out.push(UiCommand::Play(PlayCommand::Start(NewGame {
        scenario: id.to_string(),
        options: Vec::new(),
        end: None,
        players,
        seats: Vec::new(),
        seed: 1,
    })));
    if auto {
        out.push(UiCommand::Play(PlayCommand::SetAuto(true)));
    }
    out.push(UiCommand::SetMode(Mode::Play));
}

impl NewScenarioWindow {
    /// Returns whether the window is done (the mod written).
    fn show(
        &mut self,
        ui: &mut Ui,
        module: &Module,
        input: &WorkshopInput<'_>,
        out: &mut Vec<UiCommand>,
        open: &mut bool,
    ) -> bool {
        let mut done = false;
        egui::Window::new("New scenario")
            .open(open)
            .collapsible(false)
            .default_width(460.0)
            .show(ui.ctx(), |ui| {
                done = self.contents(ui, module, input, out);
            });
        done
    }

    fn contents(
        &mut self,
        ui: &mut Ui,
        module: &Module,
        input: &WorkshopInput<'_>,
        out: &mut Vec<UiCommand>,
    ) -> bool {
        let before = self.form.clone();
        ui.label("Start from:");
        let f = &mut self.form;
        let scratch = matches!(f.source, Source::Scratch);
        if ui
            .radio(scratch, "An empty board with the module's sides")
            .clicked()
        {
            f.source = Source::Scratch;
        }
        ui.horizontal(|ui| {
            let copy = matches!(f.source, Source::Copy(_));
            let radio = ui.radio(copy, "A copy of");
            if radio.clicked() {
                f.source = Source::Copy(self.copy_of.clone());
            }
            let mut of = self.copy_of.clone();
            let combo = egui::ComboBox::from_id_salt("copy-of")
                .selected_text(of.clone())
                .show_ui(ui, |ui| {
                    for s in &module.scenarios {
                        ui.selectable_value(
                            &mut of,
                            s.id.clone(),
                            format!("{} ({})", s.id, s.name),
                        );
                    }
                });
            let _ = combo.response.labelled_by(radio.id);
            if of != self.copy_of {
                self.copy_of = of.clone();
                f.source = Source::Copy(of);
            }
        });
        let game = matches!(f.source, Source::Game);
        ui.add_enabled_ui(input.position.is_some(), |ui| {
            if ui
                .radio(game, "The position of the game being played")
                .on_disabled_hover_text("Start a game in Play first")
                .clicked()
            {
                f.source = Source::Game;
            }
        });
        ui.horizontal(|ui| {
            let saved = matches!(f.source, Source::SaveFile { .. });
            if ui.radio(saved, "A saved game").clicked() {
                f.source = Source::SaveFile {
                    path: self.save_path.clone(),
                    turn: self.turn.clone(),
                };
            }
        });
        if let Source::SaveFile { .. } = f.source {
            egui::Grid::new("save-source")
                .num_columns(2)
                .show(ui, |ui| {
                    let l = ui.label("Save file");
                    ui.text_edit_singleline(&mut self.save_path)
                        .labelled_by(l.id);
                    ui.end_row();
                    let l = ui.label("At the start of turn");
                    ui.text_edit_singleline(&mut self.turn)
                        .labelled_by(l.id)
                        .on_hover_text("e.g. 06/1862; empty: where the game stopped");
                    ui.end_row();
                });
            f.source = Source::SaveFile {
                path: self.save_path.clone(),
                turn: self.turn.clone(),
            };
        }
        ui.separator();
        egui::Grid::new("new-scenario")
            .num_columns(2)
            .show(ui, |ui| {
                let l = ui.label("Id (and the mod's folder)");
                ui.text_edit_singleline(&mut f.id).labelled_by(l.id);
                ui.end_row();
                let l = ui.label("Name");
                ui.text_edit_singleline(&mut f.name).labelled_by(l.id);
                ui.end_row();
                let l = ui.label("Description");
                ui.text_edit_multiline(&mut f.description).labelled_by(l.id);
                ui.end_row();
                if matches!(f.source, Source::Scratch) {
                    for (title, value) in [("First turn", &mut f.start), ("Last turn", &mut f.end)]
                    {
                        let l = ui.label(title);
                        let combo = egui::ComboBox::from_id_salt(("new-turn", title))
                            .selected_text(value.clone())
                            .height(300.0)
                            .show_ui(ui, |ui| {
                                for t in &module.calendar.turns {
                                    ui.selectable_value(value, t.label.clone(), &t.label);
                                }
                            });
                        let _ = combo.response.labelled_by(l.id);
                        ui.end_row();
                    }
                }
            });
        if self.form != before {
            // Another scenario: what was made and answered is for the old one.
            self.made = None;
            self.error = None;
            self.replace_ok = false;
            self.invalid_ok = false;
        }
        // Named beside the module, not by its full path (the same on every machine).
        let here = input
            .dir
            .file_name()
            .map_or_else(|| module.id.clone(), |n| n.to_string_lossy().into_owned());
        ui.weak(format!(
            "Written as the mod ../{} beside {here} (extends {}).",
            self.form.id, module.id
        ));
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        if let Some(made) = &self.made
            && !made.warnings.is_empty()
        {
            ui.strong("Not held by the scenario format:");
            for w in &made.warnings {
                ui.colored_label(ui.visuals().warn_fg_color, w);
            }
        }
        // The questions, in order: replace a scenario of the module? write a scenario
        // the engine rejects?
        let taken = module.scenario(&self.form.id).is_some();
        if let Some(made) = &self.made {
            if taken && !self.replace_ok {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!(
                        "{} has a scenario '{}' already: this mod's would replace it when the mod is played.",
                        module.id, self.form.id
                    ),
                );
                ui.horizontal(|ui| {
                    if ui.button("Replace it").clicked() {
                        self.replace_ok = true;
                    }
                    if ui.button("Keep it (change the id)").clicked() {
                        self.made = None;
                    }
                });
                return false;
            }
            if !made.problems.is_empty() && !self.invalid_ok {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!(
                        "The engine rejects this scenario ({} error{}); a box's error selects it:",
                        made.problems.len(),
                        if made.problems.len() == 1 { "" } else { "s" }
                    ),
                );
                for p in &made.problems {
                    match p.at_box.as_deref().and_then(|b| input.map.find_box(b)) {
                        Some(i) => {
                            if ui
                                .link(&p.message)
                                .on_hover_text("select this box")
                                .clicked()
                            {
                                out.push(UiCommand::Select(Some(Selection::Box(i))));
                            }
                        }
                        None => {
                            ui.label(&p.message);
                        }
                    }
                }
                ui.horizontal(|ui| {
                    if ui.button("Create anyway").clicked() {
                        self.invalid_ok = true;
                    }
                    if ui.button("Go back").clicked() {
                        self.made = None;
                    }
                });
                return false;
            }
        }
        let go = ui.button("Create as a mod").clicked();
        let answered = self.made.is_some() && self.tried == self.form.id;
        if !(go || (answered && (self.replace_ok || self.invalid_ok))) {
            return false;
        }
        if go || self.made.is_none() {
            self.tried = self.form.id.clone();
            match self
                .form
                .make(module, &input.copies, input.position.as_ref())
            {
                Ok(m) => self.made = Some(m),
                Err(e) => {
                    self.error = Some(e);
                    self.made = None;
                    return false;
                }
            }
        }
        let Some(made) = &self.made else { return false };
        if (taken && !self.replace_ok) || (!made.problems.is_empty() && !self.invalid_ok) {
            return false; // asked next frame
        }
        match self.form.write_mod(input.dir, module, made) {
            Ok(dir) => {
                out.push(UiCommand::OpenModule(dir));
                true
            }
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }
}

impl BalanceWindow {
    fn show(&mut self, ui: &mut Ui, module: &Module, input: &WorkshopInput<'_>, open: &mut bool) {
        egui::Window::new(format!("Balance: {}", self.scenario))
            .open(open)
            .collapsible(false)
            .default_width(460.0)
            .show(ui.ctx(), |ui| self.contents(ui, module, input));
    }

    fn contents(&mut self, ui: &mut Ui, module: &Module, input: &WorkshopInput<'_>) {
        let running = self.run.as_mut().is_some_and(BalanceRun::is_running);
        ui.add_enabled_ui(!running, |ui| {
            egui::Grid::new("balance-setup")
                .num_columns(2)
                .show(ui, |ui| {
                    for (i, side) in module.sides.iter().enumerate() {
                        let l = ui.label(&side.name);
                        let Some(level) = self.setup.players.get_mut(i) else {
                            continue;
                        };
                        let combo = egui::ComboBox::from_id_salt(("balance-level", i))
                            .selected_text(level.name())
                            .show_ui(ui, |ui| {
                                for l in LEVELS {
                                    ui.selectable_value(level, l, l.name());
                                }
                            });
                        let _ = combo.response.labelled_by(l.id);
                        ui.end_row();
                    }
                    let l = ui.label("Games");
                    ui.add(egui::DragValue::new(&mut self.setup.games).range(1..=10_000))
                        .labelled_by(l.id);
                    ui.end_row();
                    let l = ui.label("Play until");
                    let shown = self
                        .setup
                        .end
                        .clone()
                        .unwrap_or_else(|| "the scenario's".into());
                    let combo = egui::ComboBox::from_id_salt("balance-end")
                        .selected_text(shown)
                        .height(300.0)
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut self.setup.end, None, "the scenario's");
                            for t in &module.calendar.turns {
                                ui.selectable_value(
                                    &mut self.setup.end,
                                    Some(t.label.clone()),
                                    &t.label,
                                );
                            }
                        });
                    let _ = combo.response.labelled_by(l.id);
                    ui.end_row();
                });
        });
        let scenario = input
            .scenario
            .filter(|(id, _)| id.eq_ignore_ascii_case(&self.scenario))
            .and_then(|(_, s)| s);
        ui.horizontal(|ui| {
            let can = !running && scenario.is_some() && input.module.is_some();
            if ui
                .add_enabled(can, egui::Button::new("Run"))
                .on_hover_text("Game i has seed 1 + i, as `muster balance` plays it")
                .clicked()
                && let (Some(s), Some(m)) = (scenario, input.module)
            {
                self.error = None;
                self.run = Some(BalanceRun::start(m.clone(), s.clone(), &self.setup));
            }
            if running
                && let Some(run) = &self.run
                && ui
                    .add_enabled(!run.cancelled(), egui::Button::new("Cancel"))
                    .clicked()
            {
                run.cancel();
            }
        });
        if scenario.is_none() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "The engine rejects the edited setup: fix it to run games.",
            );
        }
        let Some(run) = &mut self.run else { return };
        if run.is_running() {
            let done = run.done();
            ui.add(
                egui::ProgressBar::new(done as f32 / run.games.max(1) as f32)
                    .text(format!("{done} of {} games", run.games)),
            );
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
            return;
        }
        let cancelled = run.cancelled();
        match run.summary() {
            Some(Ok(summary)) => show_summary(ui, module, summary, cancelled),
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            None => {}
        }
    }
}

fn show_summary(ui: &mut Ui, module: &Module, s: &muster_ai::balance::Summary, cancelled: bool) {
    ui.separator();
    let mut head = format!("{} games", s.games);
    if cancelled {
        head.push_str(" (cancelled: the games played so far)");
    }
    ui.strong(head);
    let pct = |x: f64| format!("{:.0}%", 100.0 * x);
    egui::Grid::new("balance-wins")
        .num_columns(2)
        .show(ui, |ui| {
            for (side, rate) in &s.wins {
                let name = module
                    .find_side(side)
                    .map_or(side.clone(), |id| module.side(id).name.clone());
                ui.label(format!("{name} wins"));
                ui.label(format!(
                    "{} ({} of {}; 95%: {} to {})",
                    pct(rate.rate),
                    rate.count,
                    rate.of,
                    pct(rate.low),
                    pct(rate.high)
                ));
                ui.end_row();
            }
            ui.label("Draws");
            ui.label(format!(
                "{} (95%: {} to {})",
                pct(s.draws.rate),
                pct(s.draws.low),
                pct(s.draws.high)
            ));
            ui.end_row();
            if s.unfinished > 0 {
                ui.label("Unfinished");
                ui.label(s.unfinished.to_string());
                ui.end_row();
            }
            if !s.failed.is_empty() {
                ui.label("Failed");
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!(
                        "{} (first: seed {}: {})",
                        s.failed.len(),
                        s.failed[0].0,
                        s.failed[0].1
                    ),
                );
                ui.end_row();
            }
        });
    // Win rates with their intervals, as bars with whiskers.
    let bars: Vec<egui_plot::Bar> = s
        .wins
        .iter()
        .enumerate()
        .map(|(i, (side, r))| {
            egui_plot::Bar::new(i as f64, 100.0 * r.rate)
                .width(0.6)
                .name(side)
        })
        .collect();
    let whiskers: Vec<egui_plot::BoxElem> = s
        .wins
        .iter()
        .enumerate()
        .map(|(i, (side, r))| {
            let (lo, mid, hi) = (100.0 * r.low, 100.0 * r.rate, 100.0 * r.high);
            egui_plot::BoxElem::new(i as f64, egui_plot::BoxSpread::new(lo, lo, mid, hi, hi))
                .box_width(0.2)
                .name(format!("{side} 95%"))
        })
        .collect();
    egui_plot::Plot::new("balance-wins-plot")
        .height(120.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .include_y(0.0)
        .include_y(100.0)
        .y_axis_label("% of games won")
        .show(ui, |plot| {
            plot.bar_chart(egui_plot::BarChart::new("wins", bars));
            plot.box_plot(egui_plot::BoxPlot::new("95% interval", whiskers));
        });
    ui.strong("Victory conditions reached");
    for (reason, n) in &s.reasons {
        ui.label(format!("{n} × {reason}"));
    }
    ui.strong(format!(
        "Game lengths: {} to {} turns, median {}",
        s.length.min, s.length.max, s.length.median
    ));
    let lengths: Vec<egui_plot::Bar> = s
        .length
        .histogram
        .iter()
        .map(|&(turns, n)| egui_plot::Bar::new(f64::from(turns), n as f64).width(0.8))
        .collect();
    egui_plot::Plot::new("balance-lengths")
        .height(120.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .x_axis_label("turns played")
        .y_axis_label("games")
        .show(ui, |plot| {
            plot.bar_chart(egui_plot::BarChart::new("lengths", lengths));
        });
}
