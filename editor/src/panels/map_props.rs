//! The "Map" section of the properties panel (shown when nothing is selected): the
//! background scan's image path, offset, scale and opacity. Like the box fields, it
//! edits a buffer and commits one [`UiCommand::SetBackground`] when the user is done with a
//! field, so each change is one undo step.

use egui::{Response, Ui};

use crate::command::UiCommand;
use crate::map_data::{BackgroundData, MapData};

/// The section's state between frames.
#[derive(Clone, Debug, Default)]
pub struct MapPanel {
    /// The background as it was when the buffer was filled; `None` before the first fill.
    base: Option<Option<BackgroundData>>,
    form: Form,
}

/// The background's fields as the widgets edit them; an empty path means no background.
#[derive(Clone, Debug, Default, PartialEq)]
struct Form {
    image: String,
    x: f32,
    y: f32,
    scale: f32,
    opacity: f32,
}

impl Form {
    fn of(bg: Option<&BackgroundData>) -> Self {
        Self {
            image: bg.map(|b| b.image.clone()).unwrap_or_default(),
            x: bg.and_then(|b| b.x).unwrap_or(0.0),
            y: bg.and_then(|b| b.y).unwrap_or(0.0),
            scale: bg.map_or(1.0, BackgroundData::scale),
            opacity: bg.map_or(0.5, BackgroundData::opacity),
        }
    }

    /// The background these fields describe. A value still at its default stays
    /// unwritten if `base` did not write it, so the file keeps its shape.
    fn to_background(&self, base: Option<&BackgroundData>) -> Option<BackgroundData> {
        let image = self.image.trim();
        if image.is_empty() {
            return None;
        }
        let keep =
            |old: Option<f32>, v: f32, default: f32| (old.is_some() || v != default).then_some(v);
        Some(BackgroundData {
            image: image.to_owned(),
            x: keep(base.and_then(|b| b.x), self.x, 0.0),
            y: keep(base.and_then(|b| b.y), self.y, 0.0),
            scale: keep(base.and_then(|b| b.scale), self.scale, 1.0),
            opacity: keep(base.and_then(|b| b.opacity), self.opacity, 0.5),
        })
    }
}

impl MapPanel {
    pub fn show(&mut self, ui: &mut Ui, map: &MapData, out: &mut Vec<UiCommand>) {
        let current = map.background.as_ref();
        let busy = ui.ctx().memory(|m| m.focused().is_some()) || ui.ctx().dragged_id().is_some();
        let stale = self.base.as_ref().map(Option::as_ref) != Some(current);
        if self.base.is_none() || (stale && !busy) {
            // First shown, or the map changed under us (undo, reload): refill.
            self.base = Some(current.cloned());
            self.form = Form::of(current);
        }
        ui.heading("Map");
        let mut responses: Vec<Response> = Vec::new();
        egui::Grid::new("map-properties")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                let f = &mut self.form;
                let l = ui.label("Background image");
                responses.push(ui.text_edit_singleline(&mut f.image).labelled_by(l.id));
                ui.end_row();
                responses.push(number_row(ui, "Background x", &mut f.x, 1.0, None));
                responses.push(number_row(ui, "Background y", &mut f.y, 1.0, None));
                responses.push(number_row(
                    ui,
                    "Background scale",
                    &mut f.scale,
                    0.01,
                    Some((0.001, 100.0)),
                ));
                responses.push(number_row(
                    ui,
                    "Background opacity",
                    &mut f.opacity,
                    0.01,
                    Some((0.0, 1.0)),
                ));
            });
        ui.label("A scan of the board (a path inside the module folder) drawn under the map; clear the path to remove it.");
        let editing = responses.iter().any(|r| r.has_focus() || r.dragged());
        let base = self.base.clone().flatten();
        let wanted = self.form.to_background(base.as_ref());
        if !editing && wanted != base {
            self.base = Some(wanted.clone());
            out.push(UiCommand::SetBackground(wanted));
        }
    }
}

fn number_row(
    ui: &mut Ui,
    label: &str,
    value: &mut f32,
    speed: f64,
    range: Option<(f32, f32)>,
) -> Response {
    let l = ui.label(label);
    let mut drag = egui::DragValue::new(value).speed(speed);
    if let Some((lo, hi)) = range {
        drag = drag.range(lo..=hi);
    }
    let r = ui.add(drag).labelled_by(l.id);
    ui.end_row();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_defaults_stay_unwritten_and_an_empty_path_clears() {
        let base = BackgroundData {
            image: "a.png".into(),
            x: Some(0.0),
            ..Default::default()
        };
        let mut f = Form::of(Some(&base));
        assert_eq!(f.to_background(Some(&base)), Some(base.clone()));
        f.scale = 2.0;
        let got = f.to_background(Some(&base)).unwrap();
        assert_eq!((got.x, got.y, got.scale), (Some(0.0), None, Some(2.0)));
        f.image = "  ".into();
        assert_eq!(f.to_background(Some(&base)), None);
        assert_eq!(Form::of(None).to_background(None), None);
    }
}
