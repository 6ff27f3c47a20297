//! The selected line's properties: ends, kind, name, river direction and water-border
//! sides. Text fields are buffered and committed as one [`UiCommand::SetLine`] when the
//! field is left; a choice, a checkbox or the swap button commits at once. Whether the
//! result is valid (a flowing kind needs a downstream end, ends must exist) is the
//! engine's validator's call.

use egui::{Response, Ui};

use crate::command::UiCommand;
use crate::map_data::{LineData, MapData};

/// The panel's state between frames.
#[derive(Clone, Debug, Default)]
pub struct LinePanel {
    /// The line the buffer belongs to and its value when the buffer was filled.
    base: Option<(usize, LineData)>,
    a: String,
    b: String,
    name: String,
}

/// Whether crossing into box `end` along `line` crosses its water border.
pub fn has_water_border(line: &LineData, end: &str) -> bool {
    line.water_border
        .iter()
        .flat_map(|w| w.split(';'))
        .any(|w| w.trim().eq_ignore_ascii_case(end))
}

/// `line` with box `end`'s water border crossing set or cleared.
pub fn with_water_border(line: &LineData, end: &str, on: bool) -> LineData {
    let mut ends: Vec<String> = line
        .water_border
        .iter()
        .flat_map(|w| w.split(';'))
        .map(|w| w.trim().to_owned())
        .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case(end))
        .collect();
    if on {
        ends.push(end.to_owned());
    }
    LineData {
        water_border: (!ends.is_empty()).then(|| ends.join(";")),
        ..line.clone()
    }
}

/// `line` flowing the other way: the downstream end becomes the other end.
pub fn swapped(line: &LineData) -> LineData {
    let down_is_a = line
        .downstream
        .as_deref()
        .is_some_and(|d| d.eq_ignore_ascii_case(&line.a));
    LineData {
        downstream: Some(if down_is_a {
            line.b.clone()
        } else {
            line.a.clone()
        }),
        ..line.clone()
    }
}

impl LinePanel {
    pub fn show(&mut self, ui: &mut Ui, map: &MapData, index: usize, out: &mut Vec<UiCommand>) {
        let current = &map.lines[index];
        let busy = ui.ctx().memory(|m| m.focused().is_some());
        let stale = self
            .base
            .as_ref()
            .is_none_or(|(i, l)| *i != index || l != current);
        if self.base.as_ref().is_none_or(|(i, _)| *i != index) || (stale && !busy) {
            self.base = Some((index, current.clone()));
            self.a = current.a.clone();
            self.b = current.b.clone();
            self.name = current.name.clone().unwrap_or_default();
        }
        let set = |value: LineData, out: &mut Vec<UiCommand>| {
            if value != *current {
                out.push(UiCommand::SetLine { index, value });
            }
        };
        ui.heading("Line");
        let mut texts: Vec<Response> = Vec::new();
        egui::Grid::new("line-properties")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                texts.push(text_row(ui, "From", &mut self.a));
                texts.push(text_row(ui, "To", &mut self.b));
                let label = ui.label("Kind");
                let mut kind = current.kind.clone();
                let shown = map
                    .find_kind(&kind)
                    .map_or_else(|| kind.clone(), |k| k.name.clone());
                let combo = egui::ComboBox::from_id_salt("line-kind")
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        for k in &map.kinds {
                            ui.selectable_value(&mut kind, k.id.clone(), &k.name);
                        }
                    });
                let _ = combo.response.labelled_by(label.id);
                ui.end_row();
                if kind != current.kind {
                    let flows = map.find_kind(&kind).is_some_and(|k| k.flows);
                    let downstream = if flows {
                        current
                            .downstream
                            .clone()
                            .or_else(|| Some(current.b.clone()))
                    } else {
                        None
                    };
                    set(
                        LineData {
                            kind,
                            downstream,
                            ..current.clone()
                        },
                        out,
                    );
                }
                texts.push(text_row(ui, "Line name", &mut self.name));
                ui.label("Downstream");
                ui.label(current.downstream.as_deref().unwrap_or("none"));
                ui.end_row();
            });
        let flows = map.find_kind(&current.kind).is_some_and(|k| k.flows);
        if (flows || current.downstream.is_some())
            && ui
                .button("Swap direction")
                .on_hover_text("Make the other end downstream")
                .clicked()
        {
            set(swapped(current), out);
        }
        for end in [&current.a, &current.b] {
            let mut on = has_water_border(current, end);
            if ui
                .checkbox(&mut on, format!("Water border at {end}"))
                .on_hover_text("Entering this box along the line crosses its water border")
                .changed()
            {
                set(with_water_border(current, end, on), out);
            }
        }
        if !texts.iter().any(Response::has_focus) {
            let text = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
            let renamed = |old: &str, new: &str, s: &str| {
                if s.eq_ignore_ascii_case(old) {
                    new.to_owned()
                } else {
                    s.to_owned()
                }
            };
            let (a, b) = (self.a.trim().to_owned(), self.b.trim().to_owned());
            // Moving an end carries its downstream mark and water border along.
            let mut value = LineData {
                a: a.clone(),
                b: b.clone(),
                name: text(&self.name),
                downstream: current
                    .downstream
                    .as_deref()
                    .map(|d| renamed(&current.b, &b, &renamed(&current.a, &a, d))),
                water_border: current.water_border.as_deref().map(|w| {
                    w.split(';')
                        .map(|x| renamed(&current.b, &b, &renamed(&current.a, &a, x.trim())))
                        .collect::<Vec<_>>()
                        .join(";")
                }),
                ..current.clone()
            };
            if value.a == current.a && value.b == current.b {
                value.downstream.clone_from(&current.downstream);
                value.water_border.clone_from(&current.water_border);
            }
            set(value, out);
        }
        ui.separator();
        if ui.button("Delete line").clicked() {
            out.push(UiCommand::DeleteLine(index));
        }
    }
}

fn text_row(ui: &mut Ui, label: &str, value: &mut String) -> Response {
    let l = ui.label(label);
    let r = ui.text_edit_singleline(value).labelled_by(l.id);
    ui.end_row();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn river() -> LineData {
        LineData {
            a: "A".into(),
            b: "B".into(),
            kind: "river".into(),
            downstream: Some("B".into()),
            ..LineData::default()
        }
    }

    #[test]
    fn swapping_twice_gives_the_line_back() {
        let l = river();
        let s = swapped(&l);
        assert_eq!(s.downstream.as_deref(), Some("A"));
        assert_eq!(swapped(&s), l);
    }

    #[test]
    fn water_border_sides_toggle_independently() {
        let l = with_water_border(&river(), "B", true);
        assert_eq!(l.water_border.as_deref(), Some("B"));
        let l = with_water_border(&l, "A", true);
        assert!(has_water_border(&l, "a") && has_water_border(&l, "B"));
        let l = with_water_border(&l, "B", false);
        assert_eq!(l.water_border.as_deref(), Some("A"));
        assert_eq!(with_water_border(&l, "A", false).water_border, None);
    }
}
