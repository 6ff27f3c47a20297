//! Formations in the side panel (issue 47): a formation standing in the selected box is
//! one row, opened to list what it holds (nested, with names and types), selected to
//! move it as one. Beside each member, the organisation actions the engine lists for
//! the seat at the screen (a garrison left on the way, a member leaving its formation)
//! and a menu to move it into another formation of the box; the engine takes or refuses
//! each ([`super::Session::organise`]), so no rule lives here.

use egui::Ui;
use muster_core::Module;
use muster_core::game::formations::Change;
use muster_core::game::{Action, GameState, describe};
use muster_core::ids::{BoxId, SideId, UnitId};

use super::PlayCommand;
use crate::command::UiCommand;
use crate::overlay::formation_top;

/// What the rows of one box are drawn from.
pub struct Tree<'a> {
    pub module: &'a Module,
    pub game: &'a GameState,
    pub at: BoxId,
    /// The seat at the screen's legal actions.
    pub legal: &'a [Action],
    /// The seat at the screen acts (its buttons are live).
    pub human: bool,
    /// The side of the seat at the screen when it acts: only its pieces are organised
    /// from here.
    pub side: SideId,
    /// The seat shares its side with other seats (commanders): a piece of its side it
    /// is offered no move of says why on a click (the engine's reason).
    pub shared: bool,
    /// The unit whose moves are highlighted.
    pub chosen: Option<UnitId>,
    /// Whether the seat at the screen sees the piece fully.
    pub seen: &'a dyn Fn(UnitId) -> bool,
}

impl Tree<'_> {
    /// Whether `u` gets a row of its own in the box: no formation holds it there.
    pub fn on_its_own(&self, u: UnitId) -> bool {
        formation_top(self.module, self.game, u).is_none()
    }

    fn is_formation(&self, u: UnitId) -> bool {
        self.module.units.get(self.game.unit(u).kind).is_formation()
    }

    /// The members of `f` standing with it that the seat sees.
    fn members(&self, f: UnitId) -> Vec<UnitId> {
        let here = self.game.unit(f).place;
        self.game
            .members(f)
            .filter(|&m| self.game.unit(m).place == here && (self.seen)(m))
            .collect()
    }

    /// How many pieces `f` holds here at any depth, as the seat sees them.
    fn count(&self, f: UnitId) -> usize {
        self.members(f)
            .into_iter()
            .map(|m| {
                1 + if self.is_formation(m) {
                    self.count(m)
                } else {
                    0
                }
            })
            .sum()
    }

    /// The row of `u` (`top`: standing on its own, with its side and moves), a
    /// formation's opening on the members below it.
    pub fn row(&self, ui: &mut Ui, u: UnitId, top: bool, out: &mut Vec<UiCommand>) {
        if !self.is_formation(u) {
            self.line(ui, u, top, out);
            return;
        }
        // Opened and closed by a button of its own: the line itself selects the
        // formation to move it.
        let id = open_id(u);
        let open = ui.data(|d| d.get_temp::<bool>(id)).unwrap_or(false);
        ui.horizontal(|ui| {
            let words = describe::unit(self.module, self.game, u);
            let (sign, verb) = if open { ("-", "Close") } else { ("+", "Open") };
            let b = ui.small_button(sign);
            b.widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::Button, true, format!("{verb} {words}"))
            });
            if b.clicked() {
                ui.data_mut(|d| d.insert_temp(id, !open));
            }
            self.line(ui, u, top, out);
        });
        if open {
            ui.indent(id, |ui| {
                for m in self.members(u) {
                    self.row(ui, m, false, out);
                }
            });
        }
    }

    /// One piece's line: its words, its moves (a click shows them on the map) and,
    /// for a member, what may be done to its organisation.
    fn line(&self, ui: &mut Ui, u: UnitId, top: bool, out: &mut Vec<UiCommand>) {
        let (module, game) = (self.module, self.game);
        let mut text = describe::unit(module, game, u);
        if top {
            text = format!("{}: {text}", module.side(game.unit(u).side).name);
        }
        let flags = game.unit(u).flags;
        if !flags.is_empty() {
            text.push_str(&format!(", {}", module.units.flag_names(flags)));
        }
        if self.is_formation(u) {
            let n = self.count(u);
            text.push_str(&format!(
                " — {n} {}",
                if n == 1 { "piece" } else { "pieces" }
            ));
        }
        if game.is_garrison(u)
            && let Some(h) = game.holder(u)
        {
            text.push_str(&format!(
                ", garrison of {}",
                describe::unit(module, game, h)
            ));
        }
        let moves = self
            .legal
            .iter()
            .filter(|a| {
                matches!(a, Action::Move { unit: m, .. } | Action::Take { unit: Some(m), at: Some(_), .. } if *m == u)
            })
            .count();
        ui.horizontal_wrapped(|ui| {
            if moves > 0 && self.human {
                let chosen = self.chosen == Some(u);
                if ui
                    .selectable_label(chosen, format!("{text} - {moves} moves"))
                    .clicked()
                {
                    out.push(UiCommand::Play(PlayCommand::SelectUnit(
                        (!chosen).then_some(u),
                    )));
                }
            } else if self.human && self.shared && top && game.unit(u).side == self.side {
                // Another commander's, or nothing open for it now: the engine says which.
                if ui
                    .add(egui::Label::new(text).sense(egui::Sense::click()))
                    .on_hover_text("Click: why it may not move")
                    .clicked()
                {
                    out.push(UiCommand::Play(PlayCommand::WhyNotMoved(u)));
                }
            } else {
                ui.label(text);
            }
            if self.human && game.holder(u).is_some() && game.unit(u).side == self.side {
                self.organise(ui, u, out);
            }
        });
    }

    /// The listed organisation actions naming `u`, and the formations of its box it
    /// could join (the engine judges).
    fn organise(&self, ui: &mut Ui, u: UnitId, out: &mut Vec<UiCommand>) {
        let (module, game) = (self.module, self.game);
        for a in self.legal.iter().filter(|a| names(a, u)) {
            let words = match a {
                Action::Drop { at, .. } => {
                    format!("Leave in {}", module.board.get(*at).name)
                }
                _ => "Leave its formation".to_string(),
            };
            let b = ui
                .small_button(words.as_str())
                .on_hover_text(describe::action(module, game, a));
            // Said with the member's name: the rows' buttons read alike.
            let whom = describe::unit(module, game, u);
            b.widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::Button, true, format!("{words}: {whom}"))
            });
            if b.clicked() {
                out.push(UiCommand::Play(PlayCommand::Organise(a.clone())));
            }
        }
        let side = game.unit(u).side;
        let holder = game.holder(u);
        let into: Vec<UnitId> = game
            .units_at(self.at)
            .filter(|&f| {
                self.is_formation(f)
                    && f != u
                    && Some(f) != holder
                    && game.unit(f).side == side
                    && !game.holds_deep(u, f)
                    && (self.seen)(f)
            })
            .collect();
        // Only while the engine lists some organisation for the seat (a march under
        // way): otherwise every member would carry a button it would refuse.
        if !self
            .legal
            .iter()
            .any(|a| matches!(a, Action::Organize { .. }))
        {
            return;
        }
        ui.menu_button("Move to…", |ui| {
            for f in into {
                if ui.button(describe::unit(module, game, f)).clicked() {
                    out.push(UiCommand::Play(PlayCommand::Organise(Action::Organize {
                        changes: vec![Change {
                            unit: u,
                            to: Some(f),
                        }],
                    })));
                    ui.close();
                }
            }
            if ui.button("On its own").clicked() {
                out.push(UiCommand::Play(PlayCommand::Organise(Action::Organize {
                    changes: vec![Change { unit: u, to: None }],
                })));
                ui.close();
            }
        });
    }
}

/// Where the panel keeps whether formation `u`'s members are listed.
pub fn open_id(u: UnitId) -> egui::Id {
    egui::Id::unique(("play-formation", u.index()))
}

/// Whether `a` is a formation action about `u` alone.
fn names(a: &Action, u: UnitId) -> bool {
    match a {
        Action::Drop { unit, .. } => *unit == u,
        Action::Organize { changes } => matches!(&changes[..], [c] if c.unit == u),
        _ => false,
    }
}
