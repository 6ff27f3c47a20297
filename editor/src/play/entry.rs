//! The referee's form (issue 43, item 3): when the game waits for a human-held seat
//! of no side (an umpire) and its offer has a form, a docked panel asks each field (a
//! stepper per piece, a list for a side, box or choice, a number in its range), says
//! the entry in words and sends it as the offer's [`Action::Take`]. The engine checks
//! it (the form, then the rules' `accepts_entry`); a refusal is shown beside the form,
//! the values kept, the game unchanged. The UI decides nothing: it shows and emits.
//! The terminal's prompt for the same is `src/entry.rs`.

use egui::Ui;
use muster_core::Module;
use muster_core::game::entry::{self, Entry, Field, FieldKind, Form, Value};
use muster_core::game::{Action, GameState, Offer, describe};
use muster_core::ids::{BoxId, UnitId};

use super::PlayCommand;
use crate::command::UiCommand;

/// The button that sends the entry.
pub const ENTER: &str = "Enter result";

/// What a choice list shows before anything is picked.
pub const UNCHOSEN: &str = "(choose)";

/// The values a person has entered so far in one offer's form.
#[derive(Clone, Debug)]
pub struct EntryForm {
    /// The offer it is for (id, box, piece) and the number of actions when it opened:
    /// another decision gets a fresh form.
    key: (String, Option<BoxId>, Option<UnitId>, usize),
    /// One per field of the form, in its order.
    values: Vec<Slot>,
    /// The engine's reason for refusing the last entry sent.
    pub error: Option<String>,
}

/// One field's value as entered.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Slot {
    /// A number for each piece, in the field's order.
    Pieces(Vec<i64>),
    /// The index of the side, box or label picked, if any.
    Pick(Option<usize>),
    Number(i64),
}

impl EntryForm {
    /// An empty form for `offer`, taken when the game has had `actions` actions: no
    /// losses, nothing picked, each number at its least.
    pub fn new(offer: &Offer, actions: usize) -> Self {
        Self {
            key: key(offer, actions),
            values: offer
                .form
                .iter()
                .map(|f| match &f.kind {
                    FieldKind::Pieces(p) => Slot::Pieces(vec![0; p.len()]),
                    FieldKind::Side(_) | FieldKind::Box(_) | FieldKind::Choice(_) => {
                        Slot::Pick(None)
                    }
                    FieldKind::Number { min, .. } => Slot::Number(*min),
                })
                .collect(),
            error: None,
        }
    }

    /// Whether this form is the one for `offer` at `actions` actions.
    pub fn is_for(&self, offer: &Offer, actions: usize) -> bool {
        self.key == key(offer, actions) && self.values.len() == offer.form.len()
    }

    /// The entry as the engine reads it: a pieces field lists the pieces entered
    /// above 0; a list left unpicked is left out (the engine says it is missing).
    pub fn entry(&self, form: &Form) -> Entry {
        let mut out = Entry::default();
        for (field, slot) in form.iter().zip(&self.values) {
            let value = match (&field.kind, slot) {
                (FieldKind::Pieces(pieces), Slot::Pieces(n)) => Value::Pieces(
                    pieces
                        .iter()
                        .zip(n)
                        .filter(|(_, n)| **n != 0)
                        .map(|(&(u, _), &n)| (u, n))
                        .collect(),
                ),
                (FieldKind::Side(all), Slot::Pick(Some(i))) => match all.get(*i) {
                    Some(&s) => Value::Side(s),
                    None => continue,
                },
                (FieldKind::Box(all), Slot::Pick(Some(i))) => match all.get(*i) {
                    Some(&b) => Value::Box(b),
                    None => continue,
                },
                (FieldKind::Choice(all), Slot::Pick(Some(i))) => match all.get(*i) {
                    Some(c) => Value::Choice(c.clone()),
                    None => continue,
                },
                (FieldKind::Number { .. }, Slot::Number(n)) => Value::Number(*n),
                _ => continue,
            };
            out.set(field.id.clone(), value);
        }
        out
    }

    /// The action that takes `offer` with the values entered.
    pub fn action(&self, offer: &Offer) -> Action {
        let mut action = offer.action();
        if let Action::Take { entry, .. } = &mut action {
            *entry = Some(Box::new(self.entry(&offer.form)));
        }
        action
    }
}

fn key(offer: &Offer, actions: usize) -> (String, Option<BoxId>, Option<UnitId>, usize) {
    (offer.id.clone(), offer.at, offer.unit, actions)
}

/// Draws the form for `offer` (the referee seat `who` enters it); "Enter result" emits
/// the offer's action with the values.
#[allow(clippy::too_many_arguments)]
pub fn show(
    ui: &mut Ui,
    module: &Module,
    state: &GameState,
    seen: &dyn Fn(UnitId) -> bool,
    who: &str,
    offer: &Offer,
    form: &mut EntryForm,
    out: &mut Vec<UiCommand>,
) {
    ui.heading(format!("{who}: {}", offer.label));
    ui.weak("Enter what happened; the rules check it before anything changes.");
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("entry-fields")
        .max_height((ui.available_height() - 140.0).max(120.0))
        .show(ui, |ui| {
            for (i, (field, slot)) in offer.form.iter().zip(&mut form.values).enumerate() {
                field_ui(ui, module, state, seen, i, field, slot);
                ui.add_space(6.0);
            }
        });
    ui.separator();
    // The button first, so a long summary or refusal never pushes it out of the panel.
    if ui
        .add(egui::Button::new(egui::RichText::new(ENTER).strong()))
        .clicked()
    {
        out.push(UiCommand::Play(PlayCommand::Enter(form.action(offer))));
        // The answer (the next battle, or the refusal) is drawn without waiting for input.
        ui.ctx().request_repaint();
    }
    if let Some(e) = &form.error {
        ui.colored_label(ui.visuals().error_fg_color, format!("Refused: {e}"));
    }
    let entered = form.entry(&offer.form);
    let summary = entry::describe(module, state, &offer.form, &entered);
    egui::ScrollArea::vertical()
        .id_salt("entry-summary")
        .show(ui, |ui| ui.label(format!("Entered: {summary}")));
}

/// One field: its label, then its widgets.
fn field_ui(
    ui: &mut Ui,
    module: &Module,
    state: &GameState,
    seen: &dyn Fn(UnitId) -> bool,
    i: usize,
    field: &Field,
    slot: &mut Slot,
) {
    let label = ui.strong(field.label.as_str());
    match (&field.kind, slot) {
        (FieldKind::Pieces(pieces), Slot::Pieces(n)) => {
            // A formation's stands together under a line naming it (issue 47; seed 001
            // §8.6: the umpire enters losses division by division); the slots keep the
            // field's order.
            for (g, (holder, members)) in groups(state, seen, pieces).into_iter().enumerate() {
                if holder.is_some() {
                    let first = pieces[members[0]].0;
                    ui.label(
                        egui::RichText::new(formation_line(module, state, seen, first)).italics(),
                    );
                }
                egui::Grid::new(("entry-pieces", i, g))
                    .num_columns(3)
                    .show(ui, |ui| {
                        for k in members {
                            let (unit, most) = pieces[k];
                            let Some(n) = n.get_mut(k) else { continue };
                            let name = describe::unit(module, state, unit);
                            let l = ui.label(name.as_str());
                            ui.horizontal(|ui| {
                                if ui.add_enabled(*n > 0, egui::Button::new("−")).clicked() {
                                    *n -= 1;
                                }
                                ui.add(egui::DragValue::new(n).range(0..=most))
                                    .labelled_by(l.id);
                                if ui.add_enabled(*n < most, egui::Button::new("+")).clicked() {
                                    *n += 1;
                                }
                            });
                            ui.weak(format!("of {most}"));
                            ui.end_row();
                        }
                    });
            }
        }
        (FieldKind::Side(all), Slot::Pick(pick)) => {
            let names: Vec<String> = all.iter().map(|&s| module.side(s).name.clone()).collect();
            choose(ui, i, label.id, &names, pick);
        }
        (FieldKind::Box(all), Slot::Pick(pick)) => {
            let names: Vec<String> = all
                .iter()
                .map(|&b| module.board.get(b).name.clone())
                .collect();
            choose(ui, i, label.id, &names, pick);
        }
        (FieldKind::Choice(all), Slot::Pick(pick)) => choose(ui, i, label.id, all, pick),
        (FieldKind::Number { min, max }, Slot::Number(n)) => {
            ui.horizontal(|ui| {
                ui.add(egui::DragValue::new(n).range(*min..=*max))
                    .labelled_by(label.id);
                ui.weak(format!("from {min} to {max}"));
            });
        }
        _ => {
            ui.colored_label(ui.visuals().error_fg_color, "this field cannot be shown");
        }
    }
}

/// The field's pieces by the formation holding them that the seat sees (`None`: on
/// their own), groups in the order their first piece comes, pieces in the field's order
/// (as indices into it).
fn groups(
    state: &GameState,
    seen: &dyn Fn(UnitId) -> bool,
    pieces: &[(UnitId, i64)],
) -> Vec<(Option<UnitId>, Vec<usize>)> {
    let mut out: Vec<(Option<UnitId>, Vec<usize>)> = Vec::new();
    for (k, &(unit, _)) in pieces.iter().enumerate() {
        let holder = state.holder(unit).filter(|&h| seen(h));
        match out.iter_mut().find(|(h, _)| *h == holder) {
            Some((_, v)) => v.push(k),
            None => out.push((holder, vec![k])),
        }
    }
    out
}

/// The formations holding `unit`, innermost first, as far as the seat sees them:
/// "in 1st Division, I Corps (Division #5), I Corps (Heintzelman) (Corps #3)".
fn formation_line(
    module: &Module,
    state: &GameState,
    seen: &dyn Fn(UnitId) -> bool,
    unit: UnitId,
) -> String {
    let mut chain = Vec::new();
    let mut at = state.holder(unit);
    while let Some(h) = at.filter(|&h| seen(h)) {
        if chain.len() >= state.units.len() {
            break;
        }
        chain.push(describe::unit(module, state, h));
        at = state.holder(h);
    }
    format!("in {}", chain.join(", "))
}

/// A list to pick one of `names` from.
fn choose(ui: &mut Ui, i: usize, label: egui::Id, names: &[String], pick: &mut Option<usize>) {
    let shown = pick
        .and_then(|p| names.get(p))
        .map_or(UNCHOSEN, String::as_str);
    egui::ComboBox::from_id_salt(("entry-field", i))
        .selected_text(shown)
        .show_ui(ui, |ui| {
            for (j, name) in names.iter().enumerate() {
                ui.selectable_value(pick, Some(j), name.as_str());
            }
        })
        .response
        .labelled_by(label);
}
