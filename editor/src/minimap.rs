//! The mini-map (issue 15 item 2): the whole board small in a corner of the map view,
//! boxes as dots in their controller's colour, the part the view shows as a frame; a
//! click or drag on it moves the view there. It draws what the map view is given and
//! changes only the view, never the game or the document.

use std::collections::HashMap;

use egui::{Align2, Color32, Id, Pos2, Rect, Sense, Stroke, StrokeKind, Ui, pos2, vec2};

use crate::map_view::MapInput;

/// The mini-map's width on screen, in points.
pub const WIDTH: f32 = 200.0;

/// Draws the mini-map in the bottom-right corner of `view_rect` for the board within
/// `bounds` (map units) and the visible `scene_rect`; a click or drag recentres
/// `scene_rect` on the point of the board under the pointer.
pub fn show(ui: &Ui, input: &MapInput<'_>, bounds: Rect, scene_rect: &mut Rect, view_rect: Rect) {
    if bounds.width() <= 0.0 || bounds.height() <= 0.0 || input.map.boxes.is_empty() {
        return;
    }
    let height = (WIDTH * bounds.height() / bounds.width()).clamp(40.0, 200.0);
    let size = vec2(WIDTH, height);
    egui::Area::new(Id::unique("map-minimap"))
        .pivot(Align2::RIGHT_BOTTOM)
        .fixed_pos(view_rect.right_bottom() + vec2(-8.0, -8.0))
        .show(ui.ctx(), |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                let (rect, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
                let response = response.on_hover_text("the whole board: click to look there");
                let to_mini = |p: Pos2| {
                    pos2(
                        rect.left() + (p.x - bounds.left()) / bounds.width() * rect.width(),
                        rect.top() + (p.y - bounds.top()) / bounds.height() * rect.height(),
                    )
                };
                let painter = ui.painter_at(rect);
                let visuals = ui.visuals();
                painter.rect_filled(rect, 2.0, visuals.extreme_bg_color);
                let line = Stroke::new(0.5, visuals.weak_text_color());
                let by_name: HashMap<String, Pos2> = input
                    .map
                    .boxes
                    .iter()
                    .map(|b| (b.name.to_lowercase(), pos2(b.x as f32, b.y as f32)))
                    .collect();
                for l in &input.map.lines {
                    let end = |name: &str| by_name.get(&name.to_lowercase()).copied();
                    if let (Some(a), Some(b)) = (end(&l.a), end(&l.b)) {
                        painter.line_segment([to_mini(a), to_mini(b)], line);
                    }
                }
                let neutral = visuals.widgets.inactive.weak_bg_fill;
                for (i, b) in input.map.boxes.iter().enumerate() {
                    let color = input
                        .overlay
                        .and_then(|o| o.control.get(i).copied().flatten())
                        .and_then(|s| input.sides.get(s))
                        .map_or(neutral, |s| s.color);
                    let at = to_mini(pos2(b.x as f32, b.y as f32));
                    painter.circle_filled(at, 2.0, color);
                    let contested = input
                        .overlay
                        .is_some_and(|o| o.contested.get(i).copied().unwrap_or(false));
                    if contested {
                        painter.circle_stroke(at, 3.5, Stroke::new(1.0, Color32::RED));
                    }
                }
                let shown = Rect::from_min_max(to_mini(scene_rect.min), to_mini(scene_rect.max))
                    .intersect(rect);
                painter.rect_stroke(
                    shown,
                    0.0,
                    Stroke::new(1.5, visuals.selection.stroke.color),
                    StrokeKind::Inside,
                );
                if (response.clicked() || response.dragged())
                    && let Some(p) = response.interact_pointer_pos()
                {
                    let target = pos2(
                        bounds.left() + (p.x - rect.left()) / rect.width() * bounds.width(),
                        bounds.top() + (p.y - rect.top()) / rect.height() * bounds.height(),
                    );
                    *scene_rect = Rect::from_center_size(target, scene_rect.size());
                }
            });
        });
}
