//! The properties panel: the selected box's fields, edited in a buffer and committed
//! as one [`UiCommand::SetBox`] when the user is done with a field (focus leaves a text
//! field, a drag on a number ends, a checkbox or choice changes). So typing a name is
//! one undo step, and an undo is never overwritten by a stale buffer.

use egui::{Response, Ui};

use crate::command::{Selection, UiCommand};
use crate::map_data::{BoxData, MapData, ValueDefData};
use crate::map_view::SideStyle;
use crate::panels::line::{LinePanel, has_water_border, with_water_border};

/// The panel's state between frames.
#[derive(Clone, Debug, Default)]
pub struct PropertiesPanel {
    /// The box the buffer belongs to.
    index: Option<usize>,
    /// The box as it was when the buffer was filled from it.
    base: BoxData,
    form: Form,
    line: LinePanel,
    map: crate::panels::map_props::MapPanel,
}

/// A box's fields as the widgets edit them (optional text as possibly-empty strings).
#[derive(Clone, Debug, Default, PartialEq)]
struct Form {
    name: String,
    aliases: String,
    owner: Option<String>,
    state: String,
    tags: String,
    x: i32,
    y: i32,
    /// Each declared box value, for each shown side (value-major).
    values: Vec<u16>,
}

impl Form {
    fn of(b: &BoxData, sides: &[SideStyle], values: &[ValueDefData]) -> Self {
        Self {
            name: b.name.clone(),
            aliases: b.aliases.clone().unwrap_or_default(),
            owner: b.owner.clone(),
            state: b.state.clone().unwrap_or_default(),
            tags: b.tags.clone().unwrap_or_default(),
            x: b.x,
            y: b.y,
            values: values
                .iter()
                .flat_map(|v| sides.iter().map(|s| b.value(&v.id, &s.id)))
                .collect(),
        }
    }

    /// The box with this form's values; what the form does not show is kept from `base`.
    fn to_box(&self, base: &BoxData, sides: &[SideStyle], values: &[ValueDefData]) -> BoxData {
        let text = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
        let mut b = BoxData {
            name: self.name.trim().to_owned(),
            aliases: text(&self.aliases),
            owner: self.owner.clone(),
            state: text(&self.state),
            tags: text(&self.tags),
            x: self.x,
            y: self.y,
            values: base.values.clone(),
        };
        let pairs = values
            .iter()
            .flat_map(|v| sides.iter().map(move |s| (v, s)));
        for ((value, side), &amount) in pairs.zip(&self.values) {
            b.set_value(&value.id, &side.id, amount);
        }
        b
    }
}

impl PropertiesPanel {
    pub fn show(
        &mut self,
        ui: &mut Ui,
        map: &MapData,
        sides: &[SideStyle],
        selection: Option<Selection>,
        out: &mut Vec<UiCommand>,
    ) {
        match selection {
            Some(Selection::Box(i)) if i < map.boxes.len() => {
                self.show_box(ui, map, i, sides, out);
            }
            Some(Selection::Line(i)) if i < map.lines.len() => {
                self.index = None;
                self.line.show(ui, map, i, out);
            }
            _ => {
                self.index = None;
                ui.label("Click a box to see and edit it.");
                ui.separator();
                self.map.show(ui, map, out);
            }
        }
    }

    fn show_box(
        &mut self,
        ui: &mut Ui,
        map: &MapData,
        index: usize,
        sides: &[SideStyle],
        out: &mut Vec<UiCommand>,
    ) {
        let current = &map.boxes[index];
        if self.index != Some(index) || (self.base != *current && !self.busy(ui)) {
            // A new selection, or the box changed under us (undo, a drag): refill.
            self.index = Some(index);
            self.base = current.clone();
            self.form = Form::of(current, sides, &map.values);
        }
        ui.heading("Box");
        let mut responses: Vec<Response> = Vec::new();
        egui::Grid::new("box-properties")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                let f = &mut self.form;
                responses.push(text_row(ui, "Name", &mut f.name));
                responses.push(text_row(ui, "Aliases", &mut f.aliases));
                let label = ui.label("Owner");
                let owner_text = f
                    .owner
                    .as_deref()
                    .map_or("neutral".to_owned(), |id| side_name(sides, id));
                let combo = egui::ComboBox::from_id_salt("box-owner")
                    .selected_text(owner_text)
                    .show_ui(ui, |ui| {
                        let mut r = ui.selectable_value(&mut f.owner, None, "neutral");
                        for s in sides {
                            r |= ui.selectable_value(&mut f.owner, Some(s.id.clone()), &s.name);
                        }
                        r
                    });
                let _ = combo.response.labelled_by(label.id);
                if let Some(r) = combo.inner {
                    responses.push(r);
                }
                ui.end_row();
                responses.push(text_row(ui, "State", &mut f.state));
                responses.push(text_row(ui, "Tags", &mut f.tags));
                // A checkbox for each tag the map declares (AHD: Port, Permanent
                // entrenchment), editing the same space-separated list.
                for tag in &map.tags {
                    ui.label("");
                    let mut on = f.tags.split_whitespace().any(|t| t == tag.id);
                    let r = ui.checkbox(&mut on, &tag.name);
                    if r.changed() {
                        f.tags = toggle_tag(&f.tags, &tag.id, on);
                    }
                    responses.push(r);
                    ui.end_row();
                }
                responses.push(number_row(ui, "X", &mut f.x));
                responses.push(number_row(ui, "Y", &mut f.y));
                let pairs = map
                    .values
                    .iter()
                    .flat_map(|v| sides.iter().map(move |s| (v, s)));
                for ((value, side), v) in pairs.zip(f.values.iter_mut()) {
                    let label = ui.label(format!("{} {}", value.name, side.name));
                    responses.push(
                        ui.add(egui::DragValue::new(v).range(0..=99))
                            .labelled_by(label.id),
                    );
                    ui.end_row();
                }
            });
        let busy = responses.iter().any(|r| r.has_focus() || r.dragged());
        let wanted = self.form.to_box(&self.base, sides, &map.values);
        if !busy && wanted != self.base {
            out.push(UiCommand::SetBox {
                index,
                value: wanted.clone(),
            });
            self.base = wanted;
        }

        ui.separator();
        if ui.button("Delete box").clicked() {
            out.push(UiCommand::DeleteBox(index));
        }
        ui.separator();
        ui.strong("Lines");
        for (li, l) in map.lines.iter().enumerate() {
            if !l.touches(&current.name) {
                continue;
            }
            let other = if l.a.eq_ignore_ascii_case(&current.name) {
                &l.b
            } else {
                &l.a
            };
            ui.horizontal(|ui| {
                if ui
                    .selectable_label(false, format!("{} to {other}", l.kind))
                    .clicked()
                {
                    out.push(UiCommand::Select(Some(Selection::Line(li))));
                }
                // The box's water-border side of this line.
                let mut on = has_water_border(l, &current.name);
                if ui
                    .checkbox(&mut on, "water border")
                    .on_hover_text(format!(
                        "Entering {} from {other} crosses its water border",
                        current.name
                    ))
                    .changed()
                {
                    out.push(UiCommand::SetLine {
                        index: li,
                        value: with_water_border(l, &current.name, on),
                    });
                }
            });
        }
    }

    /// Whether a field of the panel is being edited (focused or dragged) right now.
    fn busy(&self, ui: &Ui) -> bool {
        ui.ctx().memory(|m| m.focused().is_some()) || ui.ctx().dragged_id().is_some()
    }
}

fn side_name(sides: &[SideStyle], id: &str) -> String {
    sides
        .iter()
        .find(|s| s.id.eq_ignore_ascii_case(id))
        .map_or_else(|| id.to_owned(), |s| s.name.clone())
}

fn text_row(ui: &mut Ui, label: &str, value: &mut String) -> Response {
    let l = ui.label(label);
    let r = ui.text_edit_singleline(value).labelled_by(l.id);
    ui.end_row();
    r
}

fn number_row(ui: &mut Ui, label: &str, value: &mut i32) -> Response {
    let l = ui.label(label);
    let r = ui.add(egui::DragValue::new(value)).labelled_by(l.id);
    ui.end_row();
    r
}

/// `tags` (space-separated) with `tag` added or removed, the others kept in order.
fn toggle_tag(tags: &str, tag: &str, on: bool) -> String {
    let mut list: Vec<&str> = tags.split_whitespace().filter(|t| *t != tag).collect();
    if on {
        list.push(tag);
    }
    list.join(" ")
}
