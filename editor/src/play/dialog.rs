//! The new-game dialog: scenario, optional rules, ending date, players and seed. It
//! only gathers the settings; [`super::Session::new`] checks them, and its error is
//! shown here with the dialog left open.

use std::sync::Arc;

use muster_core::Module;

use super::PlayCommand;
use super::session::{NewGame, PlayerKind};
use crate::command::UiCommand;

pub struct NewGameDialog {
    /// (id, name) of the module's scenarios.
    scenarios: Vec<(String, String)>,
    pub scenario: String,
    /// The optional rules, with whether each is on.
    options: Vec<RuleChoice>,
    pub end: String,
    /// (side name, who plays it).
    players: Vec<(String, PlayerKind)>,
    /// The module's seats, asked one by one (a module with hidden information or
    /// several seats a side); empty when who plays each side is enough.
    seats: Vec<SeatChoice>,
    /// Some seat does not see everything (the module's seats say so).
    hides: bool,
    pub seed: String,
    /// Why the last start failed.
    pub error: Option<String>,
    /// Computer sides play by themselves ("AI auto" on from the start).
    pub auto: bool,
}

/// One seat of the module on the start screen.
struct SeatChoice {
    name: String,
    /// The side's name, or "referee" for a seat of no side.
    side: String,
    /// The side's index, if any.
    side_index: Option<usize>,
    kind: PlayerKind,
}

/// Whether the start screen lists the seats: some seat does not see everything, or
/// a side has several seats. An open module with a seat a side asks only who plays
/// each side, as before seats existed.
pub fn asks_seats(module: &Module) -> bool {
    !module.all_open()
        || module.seats.len() != module.sides.len()
        || module.seats.iter().any(|s| s.side.is_none())
}

/// Who may hold a referee's seat (of no side): a person, or the computer referee (the
/// rules' `referee_entry`; the level is not used).
const REFEREES: [PlayerKind; 2] = [
    PlayerKind::Human,
    PlayerKind::Computer(muster_ai::Level::Ai),
];

/// How a seat's player is named on the start screen: a referee's computer is the
/// "Computer referee".
pub fn seat_label(kind: PlayerKind, referee: bool) -> &'static str {
    match kind {
        PlayerKind::Computer(_) if referee => "Computer referee",
        k => k.label(),
    }
}

/// One optional rule in the checklist.
struct RuleChoice {
    id: String,
    /// "rule title", e.g. "4.9 Union Rail Movement Bonus".
    label: String,
    /// The designer's balance note: which side the rule favours.
    balance: String,
    description: Option<String>,
    on: bool,
}

/// The layer of the open list of the combo box `id` (egui 0.37 names a combo box's
/// popup `id.with("popup")`, in the foreground order).
pub fn combo_popup_layer(id: egui::Id) -> egui::LayerId {
    egui::LayerId::new(egui::Order::Foreground, id.with("popup"))
}

/// A combo box's list and the modal dialog share egui's foreground order, where the
/// layer last interacted with is drawn on top: scrolling the dialog would put it over
/// the open list. The open list is raised above it every frame.
pub(crate) fn keep_popup_on_top(ctx: &egui::Context, id: egui::Id) {
    if egui::ComboBox::is_open(ctx, id) {
        ctx.move_to_top(combo_popup_layer(id));
    }
}

/// A seed that differs from game to game.
pub fn seed_from_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
}

impl NewGameDialog {
    pub fn new(module: &Arc<Module>) -> Self {
        let scenarios: Vec<(String, String)> = module
            .scenarios
            .iter()
            .map(|s| (s.id.clone(), s.name.clone()))
            .collect();
        Self {
            scenario: scenarios.first().map(|s| s.0.clone()).unwrap_or_default(),
            scenarios,
            options: module
                .options
                .iter()
                .map(|o| RuleChoice {
                    id: o.id.clone(),
                    label: format!("{} {}", o.rule, o.title),
                    balance: o.favours.map_or("neutral".to_string(), |s| {
                        format!("favours the {}", module.side(s).name)
                    }),
                    description: o.description.clone(),
                    on: o.default_on,
                })
                .collect(),
            end: String::new(),
            players: module
                .sides
                .iter()
                .map(|s| (s.name.clone(), PlayerKind::Human))
                .collect(),
            seats: if asks_seats(module) {
                module
                    .seats
                    .iter()
                    .map(|s| SeatChoice {
                        name: s.name.clone(),
                        side: s
                            .side
                            .map_or_else(|| "referee".into(), |x| module.side(x).name.clone()),
                        side_index: s.side.map(|x| x.index()),
                        kind: PlayerKind::Human,
                    })
                    .collect()
            } else {
                Vec::new()
            },
            hides: !module.all_open(),
            seed: seed_from_clock().to_string(),
            error: None,
            auto: true,
        }
    }

    /// Sets the players for a game against the computer: the first side human, the
    /// others the default computer player, playing by themselves.
    pub fn against_computer(&mut self) {
        for (i, p) in self.players.iter_mut().enumerate() {
            p.1 = if i == 0 {
                PlayerKind::Human
            } else {
                PlayerKind::Computer(muster_ai::Level::Ai)
            };
        }
        for s in &mut self.seats {
            s.kind = if s.side_index == Some(0) {
                PlayerKind::Human
            } else {
                PlayerKind::Computer(muster_ai::Level::Ai)
            };
        }
        self.auto = true;
    }

    /// The settings as entered, or why they cannot be used.
    pub fn game(&self) -> Result<NewGame, String> {
        let seed = self
            .seed
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("the seed '{}' is not a whole number", self.seed.trim()))?;
        let end = self.end.trim();
        Ok(NewGame {
            scenario: self.scenario.clone(),
            options: self
                .options
                .iter()
                .filter(|o| o.on)
                .map(|o| o.id.clone())
                .collect(),
            end: (!end.is_empty()).then(|| end.to_owned()),
            players: self
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    // Asked by seat: a side is played as its first seat is (the
                    // session refuses a side of people and computers mixed).
                    self.seats
                        .iter()
                        .find(|s| s.side_index == Some(i))
                        .map_or(p.1, |s| s.kind)
                })
                .collect(),
            seats: self.seats.iter().map(|s| s.kind).collect(),
            seed,
        })
    }

    pub fn show(&mut self, ctx: &egui::Context, out: &mut Vec<UiCommand>) {
        egui::Modal::new(egui::Id::unique("new-game")).show(ctx, |ui| {
            ui.heading("New game");
            ui.label("Scenario");
            for (id, name) in &self.scenarios {
                ui.radio_value(&mut self.scenario, id.clone(), name);
            }
            ui.separator();
            ui.label("Optional rules");
            egui::ScrollArea::vertical()
                .id_salt("new-game-options")
                .max_height(180.0)
                .show(ui, |ui| {
                    for o in &mut self.options {
                        ui.horizontal(|ui| {
                            let r = ui.checkbox(&mut o.on, o.label.as_str());
                            if let Some(d) = &o.description {
                                r.on_hover_text(d.as_str());
                            }
                            ui.weak(o.balance.as_str());
                        });
                    }
                });
            ui.separator();
            egui::Grid::new("new-game-grid").show(ui, |ui| {
                let l = ui.label("Ending date");
                ui.add(egui::TextEdit::singleline(&mut self.end).hint_text("MM/YYYY"))
                    .labelled_by(l.id);
                ui.end_row();
                for (i, seat) in self.seats.iter_mut().enumerate() {
                    let l = ui.label(seat.name.as_str());
                    let referee = seat.side_index.is_none();
                    let kinds: &[PlayerKind] = if referee { &REFEREES } else { &PlayerKind::ALL };
                    let combo = egui::ComboBox::from_id_salt(("seat", i))
                        .selected_text(seat_label(seat.kind, referee))
                        .show_ui(ui, |ui| {
                            for &k in kinds {
                                ui.selectable_value(&mut seat.kind, k, seat_label(k, referee));
                            }
                        })
                        .response
                        .labelled_by(l.id);
                    keep_popup_on_top(ui.ctx(), combo.id);
                    ui.weak(format!("seat of the {}", seat.side));
                    ui.end_row();
                }
                let by_side = if self.seats.is_empty() {
                    &mut self.players[..]
                } else {
                    &mut []
                };
                for (i, (side, kind)) in by_side.iter_mut().enumerate() {
                    let l = ui.label(side.as_str());
                    let combo = egui::ComboBox::from_id_salt(("player", i))
                        .selected_text(kind.label())
                        .show_ui(ui, |ui| {
                            for k in PlayerKind::ALL {
                                ui.selectable_value(kind, k, k.label());
                            }
                        })
                        .response
                        .labelled_by(l.id);
                    keep_popup_on_top(ui.ctx(), combo.id);
                    ui.end_row();
                }
                let l = ui.label("Seed");
                ui.text_edit_singleline(&mut self.seed).labelled_by(l.id);
                ui.end_row();
            });
            if self.seats.iter().any(|s| s.side_index.is_none()) {
                ui.weak(
                    "A referee's seat: a person enters each result in a form beside the \
                     map; the computer referee decides by the rules' own procedure.",
                );
            }
            if self.hides {
                ui.weak(
                    "Each player sees only what his seat sees. Human seats play at this \
                     screen in turn, a hand-over screen hiding one seat's view from the next.",
                );
            }
            ui.checkbox(&mut self.auto, "Computers play by themselves")
                .on_hover_text("off: a computer acts when you press AI step");
            if let Some(e) = &self.error {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            ui.horizontal(|ui| {
                if ui.button("Start").clicked() {
                    match self.game() {
                        Ok(g) => {
                            out.push(UiCommand::Play(PlayCommand::Start(g)));
                            out.push(UiCommand::Play(PlayCommand::SetAuto(self.auto)));
                        }
                        Err(e) => self.error = Some(e),
                    }
                }
                if ui.button("Cancel").clicked() {
                    out.push(UiCommand::Play(PlayCommand::CancelNewGame));
                }
            });
        });
    }
}
