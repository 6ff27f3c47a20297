//! The scenario panel: the start turn, each side's stated and computed army maximum and
//! off-board units, and the selected box's units and control marker.
//!
//! Every control emits one [`UiCommand::SetScenario`] with the whole edited scenario, so
//! each click is one undo step; the engine checks the result (validation panel) and
//! computes the army maximum shown beside the stated one.

use egui::Ui;
use muster_core::Module;

use crate::command::UiCommand;
use crate::document::Document;
use crate::map_data::MapData;
use crate::scenario_data::{OffBoard, ScenarioData, add_units, units_of};
use crate::scenario_live::tallies;
use crate::workshop::Position;

use super::workshop::{Workshop, WorkshopInput};

/// The panel's state between frames: the side and unit type to place, and the
/// workshop's windows (new scenario, balance).
#[derive(Default)]
pub struct ScenarioPanel {
    side: Option<String>,
    unit: Option<String>,
    workshop: Workshop,
}

/// What the panel shows this frame.
pub struct ScenarioInput<'a> {
    pub doc: &'a Document,
    /// The scenario shown on the map, by id.
    pub scenario: Option<&'a str>,
    /// The selected box, if one box is selected.
    pub selected_box: Option<usize>,
    /// The game being played, for a new scenario from its position.
    pub position: Option<Position<'a>>,
}

impl ScenarioPanel {
    /// Opens the New scenario window on the position of the game being played (the
    /// play screen's "Save as scenario…").
    pub fn new_from_game(&mut self, module: &Module) {
        self.workshop.open_new(module, true, None);
    }

    pub fn show(&mut self, ui: &mut Ui, input: &ScenarioInput<'_>, out: &mut Vec<UiCommand>) {
        let doc = input.doc;
        ui.heading("Scenario");
        let shown = input.scenario.and_then(|id| {
            let compiled = match doc.find_scenario(id) {
                Some(i) => doc.live_scenario(i),
                None => doc.last_module()?.scenario(id),
            };
            Some((id, compiled))
        });
        let workshop = WorkshopInput {
            module: doc.last_module(),
            dir: doc.dir(),
            map: doc.map(),
            copies: doc
                .scenarios()
                .iter()
                .map(|s| (s.data.id.clone(), s.text()))
                .collect(),
            scenario: shown,
            position: input.position.as_ref().map(|p| Position {
                module: p.module,
                state: p.state,
            }),
        };
        self.workshop.buttons(ui, &workshop, out);
        self.workshop.windows(ui, &workshop, out);
        for p in doc.scenario_problems() {
            ui.colored_label(ui.visuals().error_fg_color, p);
        }
        let Some(index) = input.scenario.and_then(|id| doc.find_scenario(id)) else {
            ui.label("Pick a scenario in the toolbar to edit its setup.");
            return;
        };
        let Some(module) = doc.last_module() else {
            ui.label("The module does not load yet; fix the errors below.");
            return;
        };
        let file = &doc.scenarios()[index];
        let data = &file.data;
        // The file as the module names it: short, and the same on every machine.
        let path = file.path.strip_prefix(doc.dir()).unwrap_or(&file.path);
        ui.label(format!("{} ({})", data.name, path.display()));
        let set = |value: ScenarioData, label: String, out: &mut Vec<UiCommand>| {
            out.push(UiCommand::SetScenario {
                index,
                value,
                label,
            });
        };
        egui::Grid::new("scenario-turns")
            .num_columns(2)
            .show(ui, |ui| {
                turn_choice(ui, module, data, Turn::Start, &mut |v, l| set(v, l, out));
                ui.end_row();
                turn_choice(ui, module, data, Turn::End, &mut |v, l| set(v, l, out));
                ui.end_row();
            });
        if doc.live_scenario(index).is_none() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "The engine rejects this setup (see the errors below); the map shows no \
                 units until it is fixed.",
            );
        }
        if let Some(base) = &data.setup {
            ui.label(format!(
                "Uses the setup of scenario '{base}'; edit that one."
            ));
            return;
        }
        let rows = tallies(module, data, doc.live_scenario(index));
        for tally in &module.tallies {
            ui.separator();
            ui.strong(capitalized(&tally.name));
            egui::Grid::new(("tally", &tally.id))
                .num_columns(3)
                .show(ui, |ui| {
                    ui.label("Side");
                    ui.label("Stated");
                    ui.label("Computed");
                    ui.end_row();
                    for am in rows.iter().filter(|r| r.tally == tally.id) {
                        let name = side_name(module, &am.side);
                        ui.label(&name);
                        ui.label(am.stated.map_or("none".into(), |v| v.to_string()));
                        let computed = am.computed.map_or("?".into(), |v| v.to_string());
                        ui.label(&computed).on_hover_text(format!(
                            "The {} computed by the engine from the map and this setup",
                            am.name
                        ));
                        if let Some(c) = am.computed
                            && am.stated != Some(c)
                            && ui.button(format!("State {c} for {name}")).clicked()
                        {
                            let mut v = data.clone();
                            v.side_mut(&am.side).set_stated(&am.tally, Some(c));
                            set(v, format!("{} of {name}", am.name), out);
                        }
                        ui.end_row();
                    }
                });
        }
        ui.separator();
        for side in &module.sides {
            for (which, title) in [(OffBoard::Pool, "pool"), (OffBoard::SetAside, "set aside")] {
                self.off_board(ui, module, data, &side.id, which, title, &mut |v, l| {
                    set(v, l, out)
                });
            }
        }
        ui.separator();
        match input.selected_box {
            Some(b) if b < doc.map().boxes.len() => {
                self.box_setup(ui, module, doc.map(), b, data, &mut |v, l| set(v, l, out));
            }
            _ => {
                ui.label("Select a box to place units and control markers on it.");
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn off_board(
        &self,
        ui: &mut Ui,
        module: &Module,
        data: &ScenarioData,
        side: &str,
        which: OffBoard,
        title: &str,
        set: &mut dyn FnMut(ScenarioData, String),
    ) {
        let name = side_name(module, side);
        let list = data.side(side).map(|s| match which {
            OffBoard::Pool => &s.pool,
            OffBoard::SetAside => &s.set_aside,
        });
        let id = ui.make_persistent_id(("off-board", side, title));
        egui::CollapsingHeader::new(format!("{name} {title}"))
            .id_salt(id)
            .show(ui, |ui| {
                egui::Grid::new(id.with("grid")).show(ui, |ui| {
                    for t in &module.units.types {
                        let n = list.map_or(0, |l| units_of(l, &t.id));
                        ui.label(format!("{} {}", n, t.id)).on_hover_text(&t.name);
                        for (text, delta) in [("-", -1), ("+", 1)] {
                            let enabled = delta > 0 || n > 0;
                            if ui.add_enabled(enabled, egui::Button::new(text)).clicked() {
                                let mut v = data.clone();
                                add_units(v.off_board_mut(side, which), &t.id, delta);
                                set(v, format!("{name} {title} {} {text}1", t.id));
                            }
                        }
                        ui.end_row();
                    }
                });
            });
    }

    fn box_setup(
        &mut self,
        ui: &mut Ui,
        module: &Module,
        map: &MapData,
        b: usize,
        data: &ScenarioData,
        set: &mut dyn FnMut(ScenarioData, String),
    ) {
        let box_name = map.boxes[b].name.clone();
        let is_box = |n: &str| map.find_box(n) == Some(b);
        ui.strong(format!("Setup of {box_name}"));

        // Control marker.
        let marker = data.control_marker(&is_box).map(str::to_owned);
        let label = ui.label("Control marker");
        let shown = marker
            .as_deref()
            .map_or("none".to_owned(), |s| side_name(module, s));
        let mut chosen = marker.clone();
        let combo = egui::ComboBox::from_id_salt("control-marker")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut chosen, None, "none");
                for s in &module.sides {
                    ui.selectable_value(&mut chosen, Some(s.id.clone()), &s.name);
                }
            });
        let _ = combo.response.labelled_by(label.id);
        if chosen != marker {
            let mut v = data.clone();
            v.set_control_marker(&is_box, &box_name, chosen.as_deref());
            set(v, format!("control marker on {box_name}"));
        }

        // Units already there, per side.
        for side in &module.sides {
            let Some(s) = data.side(&side.id) else {
                continue;
            };
            let places: Vec<_> = s.places.iter().filter(|p| is_box(&p.at)).collect();
            if places.is_empty() {
                continue;
            }
            ui.label(format!("{}:", side.name));
            for p in &places {
                for u in &p.units {
                    ui.horizontal(|ui| {
                        ui.label(format!("{} {}", u.count, u.unit));
                        for (text, delta) in [("-", -1), ("+", 1)] {
                            if ui.small_button(text).clicked() {
                                let mut v = data.clone();
                                v.add_placed(&side.id, &is_box, &box_name, &u.unit, delta);
                                set(v, format!("{text}1 {} on {box_name}", u.unit));
                            }
                        }
                    });
                }
            }
            for flag in &module.units.flags {
                let mut on = data.has_flag(&side.id, &is_box, &flag.id);
                if ui
                    .checkbox(&mut on, format!("{} {}", side.name, flag.name))
                    .changed()
                {
                    let mut v = data.clone();
                    v.set_flag(&side.id, &is_box, &flag.id, on);
                    let what = if on { "set" } else { "clear" };
                    set(
                        v,
                        format!("{what} {} {} on {box_name}", side.name, flag.name),
                    );
                }
            }
            if ui.button(format!("Remove {} units", side.name)).clicked() {
                let mut v = data.clone();
                v.remove_placed(&side.id, &is_box);
                set(v, format!("remove {} units from {box_name}", side.name));
            }
        }

        // Placing new units.
        ui.separator();
        let side = self
            .side
            .clone()
            .filter(|s| module.find_side(s).is_some())
            .or_else(|| module.sides.first().map(|s| s.id.clone()));
        let unit = self
            .unit
            .clone()
            .or_else(|| module.units.types.first().map(|t| t.id.clone()));
        egui::Grid::new("place-units")
            .num_columns(2)
            .show(ui, |ui| {
                let label = ui.label("Side");
                let mut s = side.clone();
                let combo = egui::ComboBox::from_id_salt("place-side")
                    .selected_text(s.as_deref().map_or(String::new(), |s| side_name(module, s)))
                    .show_ui(ui, |ui| {
                        for x in &module.sides {
                            ui.selectable_value(&mut s, Some(x.id.clone()), &x.name);
                        }
                    });
                let _ = combo.response.labelled_by(label.id);
                self.side = s;
                ui.end_row();
                let label = ui.label("Unit type");
                let mut u = unit.clone();
                let combo = egui::ComboBox::from_id_salt("place-unit")
                    .selected_text(u.clone().unwrap_or_default())
                    .show_ui(ui, |ui| {
                        for t in &module.units.types {
                            ui.selectable_value(
                                &mut u,
                                Some(t.id.clone()),
                                format!("{} {}", t.id, t.name),
                            );
                        }
                    });
                let _ = combo.response.labelled_by(label.id);
                self.unit = u;
                ui.end_row();
            });
        if let (Some(side), Some(unit)) = (&side, &unit) {
            ui.horizontal(|ui| {
                for (text, delta) in [("Place unit", 1), ("Take unit away", -1)] {
                    if ui.button(text).clicked() {
                        let mut v = data.clone();
                        v.add_placed(side, &is_box, &box_name, unit, delta);
                        let verb = if delta > 0 { "place" } else { "take away" };
                        set(v, format!("{verb} {unit} on {box_name}"));
                    }
                }
            });
        }
    }
}

/// Which turn of a scenario a [`turn_choice`] sets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Turn {
    Start,
    End,
}

/// Lets the user pick the start or last turn from the calendar's labels.
fn turn_choice(
    ui: &mut Ui,
    module: &Module,
    data: &ScenarioData,
    which: Turn,
    set: &mut dyn FnMut(ScenarioData, String),
) {
    let (title, unset, current) = match which {
        Turn::Start => ("Start turn", "from its setup", data.start.clone()),
        Turn::End => ("Last turn", "the calendar's end", data.end.clone()),
    };
    let label = ui.label(title);
    let mut chosen = current.clone();
    let combo = egui::ComboBox::from_id_salt(title)
        .selected_text(current.clone().unwrap_or_else(|| unset.into()))
        .height(300.0)
        .show_ui(ui, |ui| {
            // A start is required unless the setup comes from another scenario.
            if which == Turn::End || data.setup.is_some() {
                ui.selectable_value(&mut chosen, None, unset);
            }
            for t in &module.calendar.turns {
                ui.selectable_value(&mut chosen, Some(t.label.clone()), &t.label);
            }
        });
    let _ = combo.response.labelled_by(label.id);
    if chosen != current {
        let mut v = data.clone();
        let label = format!(
            "{} {}",
            title.to_lowercase(),
            chosen.as_deref().unwrap_or(unset)
        );
        match which {
            Turn::Start => v.start = chosen,
            Turn::End => v.end = chosen,
        }
        set(v, label);
    }
}

fn side_name(module: &Module, id: &str) -> String {
    module
        .find_side(id)
        .map_or_else(|| id.to_owned(), |s| module.side(s).name.clone())
}

/// `army maximum` as a heading: `Army maximum`.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The question before saving a scenario the engine rejects: its errors, each on a box
/// a link that selects it, and "Save anyway" / "Cancel".
pub fn save_invalid_question(
    ui: &Ui,
    errors: &[crate::document::ScenarioError],
    out: &mut Vec<UiCommand>,
) {
    egui::Modal::new(egui::Id::unique("confirm-invalid-scenario")).show(ui.ctx(), |ui| {
        ui.heading("Save a scenario the engine rejects?");
        ui.label(format!(
            "The edited setup has {} error{}; `muster check` and games will refuse it until \
             it is fixed. A box's error selects the box.",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        ));
        egui::ScrollArea::vertical()
            .max_height(240.0)
            .show(ui, |ui| {
                for e in errors {
                    let text = egui::RichText::new(&e.message)
                        .monospace()
                        .color(ui.visuals().error_fg_color);
                    match e.at_box {
                        Some(b) => {
                            if ui.link(text).on_hover_text("select this box").clicked() {
                                out.push(UiCommand::Select(Some(crate::command::Selection::Box(
                                    b,
                                ))));
                            }
                        }
                        None => {
                            ui.label(text);
                        }
                    }
                }
            });
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
