//! The board drawn with `egui::Scene` pan and zoom: lines by kind, boxes coloured by
//! owner or control, recruitment values, ports, permanent entrenchments and unit
//! counters. Shared by editing and (later) play: it only draws and reports clicks and
//! drags as [`UiCommand`]s.
//!
//! Shapes live in the scene's transformed layer, so they scale exactly. Text does not:
//! egui rasterises glyphs before the layer transform, which blurs zoomed text, so every
//! label is painted in a layer of its own, in screen coordinates, at the zoomed size.

use std::collections::HashMap;

use egui::emath::TSTransform;
use egui::{
    Align2, Color32, CornerRadius, FontId, Id, LayerId, Painter, Pos2, Rect, Sense, Shape, Stroke,
    StrokeKind, Ui, Vec2, pos2, vec2,
};

use crate::command::{Selection, Tool, UiCommand};
use crate::map_data::{BoxData, MapData};
use crate::mod_changes::ChangeKind;
use crate::overlay::Overlay;
use crate::style::{BOX_SIZE, COUNTER_SIZE, NAME_SIZE, SMALL_SIZE, parse_color, text_on};
use muster_core::format::TagMark;

/// A side as the map shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct SideStyle {
    pub id: String,
    pub name: String,
    pub color: Color32,
}

/// What the map view draws this frame.
pub struct MapInput<'a> {
    pub map: &'a MapData,
    pub sides: &'a [SideStyle],
    pub overlay: Option<&'a Overlay>,
    pub selection: Option<Selection>,
    /// Boxes selected besides `selection`.
    pub extra: &'a [usize],
    pub tool: &'a Tool,
    /// The background scan and its uploaded texture, drawn under everything else.
    pub background: Option<(&'a crate::map_data::BackgroundData, &'a egui::TextureHandle)>,
}

impl MapInput<'_> {
    /// Whether box `i` is selected (alone or with others).
    fn is_selected(&self, i: usize) -> bool {
        self.selection == Some(Selection::Box(i)) || self.extra.contains(&i)
    }
}

/// The map view's own state: the visible part of the board and a drag under way.
#[derive(Clone, Debug, Default)]
pub struct MapView {
    scene_rect: Option<Rect>,
    /// The box being dragged and how far, in map units.
    drag: Option<(usize, Vec2)>,
    /// The boxes moving with the drag: the selection if the dragged box is in it.
    moving: Vec<usize>,
    /// A rubber band under way (Shift-drag on empty map): its corners in map units.
    band: Option<(Pos2, Pos2)>,
    /// The module's vector map, drawn under everything else.
    pub backdrop: crate::backdrop::BackdropPainter,
    /// The box under the pointer in the last frame drawn.
    hovered: Option<usize>,
    /// The box names' unique abbreviations, worked out once per set of names.
    name_forms: crate::labels::FormsCache,
    /// A mod's `<remove>` and `<patch>` of the boxes and lines drawn (empty when the
    /// module is no mod, and in play): struck through, or ringed, with where on hover.
    pub changes: crate::mod_changes::MapChanges,
}

/// A label to paint in screen space after the scene.
struct Label {
    at: Pos2,
    anchor: Align2,
    text: String,
    size: f32,
    color: Color32,
    /// Shrink the text to fit this width (map units), if set.
    max_width: Option<f32>,
    kind: LabelKind,
    /// A badge's fill (the side's colour); `None` for plain text.
    fill: Option<Color32>,
    /// Moved this far on screen from `at` (badges side by side at any zoom).
    offset: Vec2,
}

/// How a label behaves at low zoom.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LabelKind {
    /// A box name: never smaller than [`MIN_NAME`] on screen; abbreviated to fit.
    Name,
    /// Counters, values, line names: dropped when too small to read (declutter).
    Detail,
    /// A stack's count of pieces, one per side: drawn readable only when the counters'
    /// own text is too small to read (zoomed out), in place of it.
    Badge,
}

/// The smallest size a box name is drawn at, in screen points.
const MIN_NAME: f32 = 9.0;
/// Below this size on screen, details are not drawn.
const MIN_DETAIL: f32 = 6.5;

/// The id of box `index`'s widget (tests and the properties panel find it by label).
pub fn box_id(index: usize) -> Id {
    Id::unique(("map-box", index))
}

impl MapView {
    /// Draws the map in the space left in `ui` and pushes what the user did to `out`.
    pub fn show(&mut self, ui: &mut Ui, input: &MapInput<'_>, out: &mut Vec<UiCommand>) {
        let bounds = map_bounds(input.map);
        let mut scene_rect = self.scene_rect.unwrap_or(bounds);
        let view_rect = ui.available_rect_before_wrap();
        // With Shift held, dragging empty map draws a rubber band instead of panning.
        let banding = *input.tool == Tool::Select && ui.input(|i| i.modifiers.shift);
        let pan = if banding || self.band.is_some() {
            egui::DragPanButtons::empty()
        } else {
            egui::DragPanButtons::all()
        };
        let scene = egui::Scene::new()
            .zoom_range(0.02..=8.0)
            .scroll_zooms(true)
            .drag_pan_buttons(pan)
            .max_inner_size(bounds.size().max(vec2(1.0, 1.0)));
        let mut labels = Vec::new();
        let mut scene_layer = None;
        let response = scene
            .show(ui, &mut scene_rect, |ui| {
                scene_layer = Some(ui.layer_id());
                self.draw(ui, input, bounds, &mut labels, out)
            })
            .response;
        self.scene_rect = Some(scene_rect);

        let to_global = scene_layer
            .and_then(|l| ui.ctx().layer_transform_to_global(l))
            .unwrap_or_default();
        if input.tool == &Tool::AddBox && response.clicked() {
            if let Some(p) = response
                .interact_pointer_pos()
                .or_else(|| response.hover_pos())
            {
                out.push(UiCommand::AddBox {
                    x: p.x.round() as i32,
                    y: p.y.round() as i32,
                });
            }
        } else if banding && response.drag_started() {
            if let Some(p) = response.interact_pointer_pos() {
                self.band = Some((p, p));
            }
        } else if let Some((start, _)) = self.band {
            if let Some(p) = response.interact_pointer_pos() {
                self.band = Some((start, p));
            }
            if !response.dragged() {
                let (a, b) = self.band.take().unwrap_or((start, start));
                let band = Rect::from_two_pos(a, b);
                let inside: Vec<usize> = input
                    .map
                    .boxes
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| band.contains(pos2(b.x as f32, b.y as f32)))
                    .map(|(i, _)| i)
                    .collect();
                out.push(UiCommand::AddBoxes(inside));
            }
        } else if response.clicked() {
            // A click on empty map selects the line under it, if any.
            let line = response
                .interact_pointer_pos()
                .and_then(|p| line_at(input.map, p, 8.0));
            out.push(UiCommand::Select(line.map(Selection::Line)));
        }
        if let Some(layer) = scene_layer {
            paint_labels(
                ui,
                layer,
                view_rect,
                to_global,
                labels,
                &mut self.name_forms,
            );
        }
        self.legend(ui, input, view_rect);
        let mut shown = self.scene_rect.unwrap_or(bounds);
        crate::minimap::show(ui, input, bounds, &mut shown, view_rect);
        self.scene_rect = Some(shown);
    }

    /// The box under the pointer in the last frame drawn.
    pub fn hovered(&self) -> Option<usize> {
        self.hovered
    }

    /// Shows the whole board in the view again.
    pub fn fit(&mut self) {
        self.scene_rect = None;
    }

    /// The legend of the line kinds (drawn as on the map) and the fit-to-window button,
    /// in the map's bottom-left corner.
    fn legend(&mut self, ui: &Ui, input: &MapInput<'_>, view_rect: Rect) {
        let kinds = &input.map.kinds;
        let fallback = ui.visuals().text_color();
        egui::Area::new(Id::unique("map-legend"))
            .pivot(Align2::LEFT_BOTTOM)
            .fixed_pos(view_rect.left_bottom() + vec2(8.0, -8.0))
            .show(ui.ctx(), |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    if ui
                        .small_button("Fit to window")
                        .on_hover_text("show the whole board")
                        .clicked()
                    {
                        self.fit();
                    }
                    for (k, kind) in kinds.iter().enumerate() {
                        let color = kind
                            .color
                            .as_deref()
                            .and_then(parse_color)
                            .unwrap_or(fallback);
                        ui.horizontal(|ui| {
                            let (r, _) = ui.allocate_exact_size(vec2(36.0, 12.0), Sense::hover());
                            let (a, b) = (r.left_center(), r.right_center());
                            let p = ui.painter();
                            if kind.flows {
                                p.line_segment([a, b], Stroke::new(3.0, color));
                                arrow(p, a, b, color);
                            } else if k % 2 == 1 {
                                p.extend(Shape::dashed_line(
                                    &[a, b],
                                    Stroke::new(2.0, color),
                                    6.0,
                                    4.0,
                                ));
                            } else {
                                p.line_segment([a, b], Stroke::new(2.0, color));
                            }
                            ui.small(kind.name.as_str());
                        });
                    }
                    // The markers a game or a scenario's setup puts on boxes.
                    if input.overlay.is_some() {
                        ui.horizontal(|ui| {
                            let (r, _) = ui.allocate_exact_size(vec2(36.0, 18.0), Sense::hover());
                            battle_marker(ui.painter(), r.left_top() + vec2(9.0, 0.0));
                            ui.small("battle (both sides there)");
                        });
                        if let Some(side) = input.sides.first() {
                            ui.horizontal(|ui| {
                                let (r, _) =
                                    ui.allocate_exact_size(vec2(36.0, 18.0), Sense::hover());
                                control_marker(
                                    ui.painter(),
                                    r.right_bottom() + vec2(-6.0, 0.0),
                                    side.color,
                                );
                                ui.small("captured (held by the flag's side)");
                            });
                        }
                    }
                });
            });
    }

    fn draw(
        &mut self,
        ui: &mut Ui,
        input: &MapInput<'_>,
        bounds: Rect,
        labels: &mut Vec<Label>,
        out: &mut Vec<UiCommand>,
    ) {
        let painter = ui.painter().clone();
        let visuals = ui.visuals().clone();
        painter.rect_filled(bounds, CornerRadius::ZERO, visuals.extreme_bg_color);
        painter.rect_stroke(
            bounds,
            CornerRadius::ZERO,
            visuals.widgets.noninteractive.bg_stroke,
            StrokeKind::Inside,
        );
        self.backdrop.draw(ui, &painter);
        if let Some((bg, texture)) = input.background {
            crate::background::draw(ui, &painter, bg, texture);
        }
        self.hovered = None;
        let drag = self.drag;
        let moving = self.moving.clone();
        let centre = move |i: usize, b: &BoxData| {
            let mut p = pos2(b.x as f32, b.y as f32);
            if let Some((d, delta)) = drag
                && (d == i || moving.contains(&i))
            {
                p += delta;
            }
            p
        };
        if let Some((a, b)) = self.band {
            let band = Rect::from_two_pos(a, b);
            painter.rect_filled(
                band,
                CornerRadius::ZERO,
                visuals.selection.bg_fill.gamma_multiply(0.3),
            );
            painter.rect_stroke(
                band,
                CornerRadius::ZERO,
                visuals.selection.stroke,
                StrokeKind::Inside,
            );
        }
        let by_name: HashMap<String, usize> = input
            .map
            .boxes
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.to_lowercase(), i))
            .collect();
        let changed_lines = self.draw_lines(
            &painter,
            input,
            &by_name,
            &centre,
            visuals.text_color(),
            labels,
        );
        // A mark at the middle of each line a mod changed, saying what and where on hover.
        for (li, at) in changed_lines {
            let (Some(change), Some(line)) = (self.changes.of_line(li), input.map.lines.get(li))
            else {
                continue;
            };
            let what = format!("line {}-{} ({})", line.a, line.b, line.kind);
            let r = Rect::from_center_size(at, vec2(16.0, 16.0));
            change_mark(&painter, r, change.kind);
            let label = match change.kind {
                ChangeKind::Removed => format!("removed {what}"),
                ChangeKind::Patched => format!("patched {what}"),
            };
            let resp = ui
                .interact(r, Id::unique(("map-line-change", li)), Sense::hover())
                .on_hover_text(change.describe(&what));
            resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &label));
            let to_global = ui
                .ctx()
                .layer_transform_to_global(ui.layer_id())
                .unwrap_or_default();
            set_screen_bounds(ui, resp.id, to_global * r);
        }

        let side_color = |id: Option<&str>| {
            id.and_then(|id| input.sides.iter().find(|s| s.id.eq_ignore_ascii_case(id)))
                .map(|s| s.color)
        };
        // Water marks (ports) take the colour of the flowing line kind, if any.
        let water = input
            .map
            .kinds
            .iter()
            .find(|k| k.flows)
            .and_then(|k| k.color.as_deref().and_then(parse_color))
            .unwrap_or(visuals.hyperlink_color);
        let to_global = ui
            .ctx()
            .layer_transform_to_global(ui.layer_id())
            .unwrap_or_default();
        let neutral = input.map.neutral_color.as_deref().and_then(parse_color);
        // The declared tags that have a mark, and each box's marks.
        let marked = |b: &BoxData, mark: TagMark| {
            input
                .map
                .tags
                .iter()
                .any(|t| t.mark == Some(mark) && b.has_tag(&t.id))
        };

        for (i, b) in input.map.boxes.iter().enumerate() {
            let rect = Rect::from_center_size(centre(i, b), BOX_SIZE);
            let control = input
                .overlay
                .and_then(|o| o.control.get(i).copied().flatten())
                .and_then(|s| input.sides.get(s))
                .map(|s| s.color);
            let fill = control
                .or_else(|| side_color(b.owner.as_deref()))
                .or(neutral)
                .unwrap_or(visuals.widgets.inactive.weak_bg_fill);
            painter.rect_filled(rect, CornerRadius::same(4), fill);
            let double = marked(b, TagMark::DoubleOutline);
            let outline = if double {
                Stroke::new(4.0, visuals.text_color())
            } else {
                Stroke::new(1.0, visuals.text_color())
            };
            painter.rect_stroke(rect, CornerRadius::same(4), outline, StrokeKind::Inside);
            if double {
                painter.rect_stroke(
                    rect.shrink(6.0),
                    CornerRadius::same(2),
                    Stroke::new(1.0, text_on(fill)),
                    StrokeKind::Inside,
                );
            }
            match self.changes.of_box(i).map(|c| c.kind) {
                Some(ChangeKind::Removed) => {
                    // Dimmed and struck through: the mod takes the box out of the game.
                    painter.rect_filled(
                        rect,
                        CornerRadius::same(4),
                        visuals.extreme_bg_color.gamma_multiply(0.7),
                    );
                    let strike = Stroke::new(3.0, REMOVED_COLOR);
                    painter.line_segment([rect.left_top(), rect.right_bottom()], strike);
                    painter.line_segment([rect.right_top(), rect.left_bottom()], strike);
                }
                Some(ChangeKind::Patched) => {
                    let ring = rect.expand(6.0);
                    let c = ring.left_top();
                    let pts = vec![
                        c,
                        ring.right_top(),
                        ring.right_bottom(),
                        ring.left_bottom(),
                        c,
                    ];
                    painter.add(Shape::dashed_line(
                        &pts,
                        Stroke::new(3.0, PATCHED_COLOR),
                        8.0,
                        5.0,
                    ));
                }
                None => {}
            }
            if input
                .overlay
                .is_some_and(|o| o.highlight.get(i).copied().unwrap_or(false))
            {
                painter.rect_stroke(
                    rect.expand(9.0),
                    CornerRadius::same(8),
                    Stroke::new(4.0, visuals.warn_fg_color),
                    StrokeKind::Outside,
                );
            }
            if input
                .overlay
                .is_some_and(|o| o.events.get(i).copied().unwrap_or(false))
            {
                // The computer fought or captured here on its last turn.
                painter.rect_stroke(
                    rect.expand(14.0),
                    CornerRadius::same(10),
                    Stroke::new(3.0, EVENT_COLOR),
                    StrokeKind::Outside,
                );
            }
            if input
                .overlay
                .is_some_and(|o| o.danger.get(i).copied().unwrap_or(false))
            {
                // A box whose fall would lose the game next turn: a dashed red ring,
                // at least 3 points thick on screen however far out the map is zoomed.
                let zoom = ui
                    .ctx()
                    .layer_transform_to_global(ui.layer_id())
                    .map_or(1.0, |t| t.scaling)
                    .max(0.01);
                let width = (3.0 / zoom).max(4.0);
                let ring = rect.expand(19.0 + width / 2.0);
                let c = ring.left_top();
                let pts = vec![
                    c,
                    ring.right_top(),
                    ring.right_bottom(),
                    ring.left_bottom(),
                    c,
                ];
                painter.add(Shape::dashed_line(
                    &pts,
                    Stroke::new(width, crate::play::danger::DANGER),
                    2.5 * width,
                    1.5 * width,
                ));
            }
            if input
                .overlay
                .is_some_and(|o| o.contested.get(i).copied().unwrap_or(false))
            {
                battle_marker(&painter, rect.left_top() + vec2(2.0, 2.0));
            }
            if let Some(side) = input
                .overlay
                .filter(|o| o.captured.get(i).copied().unwrap_or(false))
                .and_then(|o| o.control.get(i).copied().flatten())
                .and_then(|s| input.sides.get(s))
            {
                control_marker(&painter, rect.right_bottom() + vec2(-3.0, -3.0), side.color);
            }
            if input.is_selected(i) {
                painter.rect_stroke(
                    rect.expand(4.0),
                    CornerRadius::same(6),
                    Stroke::new(4.0, visuals.selection.stroke.color),
                    StrokeKind::Outside,
                );
            }
            if marked(b, TagMark::CornerDot) {
                let at = rect.right_top() + vec2(-8.0, 8.0);
                painter.circle(at, 5.0, water, Stroke::new(1.5, Color32::WHITE));
            }
            labels.push(Label {
                at: rect.center() - vec2(0.0, 4.0),
                anchor: Align2::CENTER_CENTER,
                text: b.name.clone(),
                size: NAME_SIZE,
                color: text_on(fill),
                max_width: Some(BOX_SIZE.x - 6.0),
                kind: LabelKind::Name,
                fill: None,
                offset: Vec2::ZERO,
            });
            self.draw_recruits(&painter, input, b, rect, labels);
            if let Some(o) = input.overlay {
                let counters = draw_counters(&painter, input.sides, o, i, rect, &visuals, labels);
                for (n, (r, name, hover)) in counters.into_iter().enumerate() {
                    let name = format!("{name} at {}", b.name);
                    let id = Id::unique(("map-counter", i, n));
                    let resp = ui.interact(r, id, Sense::hover()).on_hover_text(hover);
                    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &name));
                    set_screen_bounds(ui, resp.id, to_global * r);
                }
            }

            let mut response = ui.interact(rect, box_id(i), Sense::click_and_drag());
            if let Some(change) = self.changes.of_box(i) {
                response = response.on_hover_text(change.describe(&format!("box '{}'", b.name)));
            }
            if response.hovered() {
                self.hovered = Some(i);
            }
            response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &b.name));
            // egui reports a widget's bounds in its layer's coordinates; assistive tools
            // (and tests) need them on screen.
            set_screen_bounds(ui, response.id, to_global * rect);
            self.interact_box(i, &response, input, out);
        }
        if let Some(o) = input.overlay {
            for &(a, b, side) in &o.arrows {
                let (Some(ba), Some(bb)) = (input.map.boxes.get(a), input.map.boxes.get(b)) else {
                    continue;
                };
                let color = input.sides.get(side).map_or(EVENT_COLOR, |s| s.color);
                march_arrow(&painter, centre(a, ba), centre(b, bb), color);
            }
        }
    }

    fn interact_box(
        &mut self,
        i: usize,
        response: &egui::Response,
        input: &MapInput<'_>,
        out: &mut Vec<UiCommand>,
    ) {
        let tool = input.tool;
        let adding = response
            .ctx
            .input(|i| i.modifiers.shift || i.modifiers.command);
        if response.clicked() && adding && *tool == Tool::Select {
            out.push(UiCommand::ToggleBox(i));
        } else if response.clicked() {
            match tool {
                Tool::AddLine { kind, from: None } => out.push(UiCommand::SetTool(Tool::AddLine {
                    kind: kind.clone(),
                    from: Some(i),
                })),
                Tool::AddLine {
                    kind,
                    from: Some(a),
                } if *a != i => {
                    out.push(UiCommand::AddLine {
                        a: *a,
                        b: i,
                        kind: kind.clone(),
                    });
                    out.push(UiCommand::SetTool(Tool::AddLine {
                        kind: kind.clone(),
                        from: None,
                    }));
                }
                _ => {}
            }
            out.push(UiCommand::Select(Some(Selection::Box(i))));
        }
        if *tool == Tool::Select
            && let Some(total) = response.total_drag_delta()
        {
            // Measured from the press, so the few points before egui calls it a drag
            // are not lost.
            if self.drag.is_none_or(|(d, _)| d != i) {
                // Dragging a selected box drags the whole selection.
                self.moving = if input.is_selected(i) {
                    input
                        .selection
                        .iter()
                        .filter_map(|s| match s {
                            Selection::Box(p) => Some(*p),
                            Selection::Line(_) => None,
                        })
                        .chain(input.extra.iter().copied())
                        .collect()
                } else {
                    vec![i]
                };
            }
            self.drag = Some((i, total));
        }
        if response.drag_stopped()
            && let Some((d, v)) = self.drag.take()
            && d == i
        {
            let (dx, dy) = (v.x.round() as i32, v.y.round() as i32);
            let moving = std::mem::take(&mut self.moving);
            if (dx, dy) != (0, 0) {
                let moves: Vec<(usize, i32, i32)> = moving
                    .iter()
                    .filter_map(|&m| input.map.boxes.get(m).map(|b| (m, b.x + dx, b.y + dy)))
                    .collect();
                if let [(index, x, y)] = moves[..] {
                    out.push(UiCommand::MoveBox { index, x, y });
                } else {
                    out.push(UiCommand::MoveBoxes(moves));
                }
            }
            if moving.len() <= 1 {
                out.push(UiCommand::Select(Some(Selection::Box(i))));
            }
        }
    }

    fn draw_lines(
        &self,
        painter: &Painter,
        input: &MapInput<'_>,
        by_name: &HashMap<String, usize>,
        centre: &dyn Fn(usize, &BoxData) -> Pos2,
        fallback: Color32,
        labels: &mut Vec<Label>,
    ) -> Vec<(usize, Pos2)> {
        // The middle of each line a mod changed, for its mark.
        let mut changed = Vec::new();
        let kinds = &input.map.kinds;
        for (li, line) in input.map.lines.iter().enumerate() {
            let end = |name: &str| {
                by_name
                    .get(&name.to_lowercase())
                    .map(|&i| centre(i, &input.map.boxes[i]))
            };
            let (Some(a), Some(b)) = (end(&line.a), end(&line.b)) else {
                continue; // the validation panel reports the unknown box
            };
            let k = kinds
                .iter()
                .position(|k| k.id.eq_ignore_ascii_case(&line.kind));
            let kind = k.map(|k| &kinds[k]);
            let color = kind
                .and_then(|k| k.color.as_deref())
                .and_then(parse_color)
                .unwrap_or(fallback);
            let change = self.changes.of_line(li).map(|c| c.kind);
            // A line a mod removes is drawn faint: it is no longer in the game.
            let color = if change == Some(ChangeKind::Removed) {
                color.gamma_multiply(0.3)
            } else {
                color
            };
            // Lines of different kinds between the same boxes sit side by side.
            let dir = (b - a).normalized();
            let normal = vec2(-dir.y, dir.x);
            let slot = k.unwrap_or(0) as f32 - (kinds.len().max(1) - 1) as f32 / 2.0;
            let shift = normal * slot * 6.0;
            let (a, b) = (a + shift, b + shift);
            if change.is_some() {
                changed.push((li, a.lerp(b, 0.5)));
            }
            let selected = input.selection == Some(Selection::Line(li));
            let width = if selected { 7.0 } else { 3.0 };
            let flows = kind.is_some_and(|k| k.flows);
            if flows {
                painter.line_segment([a, b], Stroke::new(width + 1.0, color));
                let downstream_is_b = line
                    .downstream
                    .as_deref()
                    .is_none_or(|d| !d.eq_ignore_ascii_case(&line.a));
                let (from, to) = if downstream_is_b { (a, b) } else { (b, a) };
                arrow(painter, from, to, color);
            } else if k.unwrap_or(0) % 2 == 1 {
                // Alternate kinds are dashed so they read apart even in similar colours.
                painter.extend(Shape::dashed_line(
                    &[a, b],
                    Stroke::new(width, color),
                    10.0,
                    6.0,
                ));
            } else {
                painter.line_segment([a, b], Stroke::new(width, color));
            }
            if let Some(name) = &line.name
                && selected
            {
                labels.push(Label {
                    at: a.lerp(b, 0.5),
                    anchor: Align2::CENTER_BOTTOM,
                    text: name.clone(),
                    size: SMALL_SIZE,
                    color,
                    max_width: None,
                    kind: LabelKind::Detail,
                    fill: None,
                    offset: Vec2::ZERO,
                });
            }
        }
        changed
    }

    fn draw_recruits(
        &self,
        painter: &Painter,
        input: &MapInput<'_>,
        b: &BoxData,
        rect: Rect,
        labels: &mut Vec<Label>,
    ) {
        // The first value the map declares (AHD: recruitment value) is drawn in badges.
        let Some(value) = input.map.values.first() else {
            return;
        };
        let mut x = rect.left() + 4.0;
        for side in input.sides {
            let v = b.value(&value.id, &side.id);
            if v == 0 {
                continue;
            }
            let badge = Rect::from_min_size(pos2(x, rect.bottom() - 15.0), vec2(13.0, 12.0));
            painter.rect_filled(badge, CornerRadius::same(2), Color32::WHITE);
            painter.rect_stroke(
                badge,
                CornerRadius::same(2),
                Stroke::new(1.0, side.color),
                StrokeKind::Inside,
            );
            labels.push(Label {
                at: badge.center(),
                anchor: Align2::CENTER_CENTER,
                text: v.to_string(),
                size: SMALL_SIZE,
                color: side.color,
                max_width: None,
                kind: LabelKind::Detail,
                fill: None,
                offset: Vec2::ZERO,
            });
            x += 16.0;
        }
    }
}

/// The ring colour of what the computer did on its last turn (battles, captures).
const EVENT_COLOR: Color32 = Color32::from_rgb(230, 60, 30);

/// A battle marker (two crossed blades on a red disc) with its top-left corner at `at`:
/// units of more than one side share the box.
/// A mod's removal: the strike across a box or a line's mark.
const REMOVED_COLOR: Color32 = Color32::from_rgb(200, 40, 40);
/// A mod's patch: the ring round a box or a line's mark.
const PATCHED_COLOR: Color32 = Color32::from_rgb(150, 70, 210);

/// The mark at the middle of a line a mod changed: a struck square for a removal, a
/// ringed dot for a patch.
fn change_mark(painter: &Painter, r: Rect, kind: ChangeKind) {
    match kind {
        ChangeKind::Removed => {
            painter.rect_filled(r, CornerRadius::same(2), Color32::WHITE);
            let stroke = Stroke::new(2.5, REMOVED_COLOR);
            let r = r.shrink(3.0);
            painter.line_segment([r.left_top(), r.right_bottom()], stroke);
            painter.line_segment([r.right_top(), r.left_bottom()], stroke);
        }
        ChangeKind::Patched => {
            painter.circle(
                r.center(),
                r.width() / 2.0,
                Color32::WHITE,
                Stroke::new(2.5, PATCHED_COLOR),
            );
            painter.circle_filled(r.center(), r.width() / 5.0, PATCHED_COLOR);
        }
    }
}

fn battle_marker(painter: &Painter, at: Pos2) {
    let c = at + vec2(9.0, 9.0);
    painter.circle(c, 9.0, EVENT_COLOR, Stroke::new(1.5, Color32::WHITE));
    let s = Stroke::new(2.0, Color32::WHITE);
    painter.line_segment([c + vec2(-5.0, -5.0), c + vec2(5.0, 5.0)], s);
    painter.line_segment([c + vec2(5.0, -5.0), c + vec2(-5.0, 5.0)], s);
}

/// A control marker (a flag in the holder's colour) with its bottom-right corner at
/// `at`: the box is held by a side other than its owner (AHD 8.0).
fn control_marker(painter: &Painter, at: Pos2, color: Color32) {
    let pole = Stroke::new(2.0, Color32::BLACK);
    let foot = at + vec2(-14.0, 0.0);
    let top = foot + vec2(0.0, -16.0);
    painter.line_segment([foot, top], pole);
    painter.add(Shape::convex_polygon(
        vec![top, top + vec2(12.0, 3.5), top + vec2(0.0, 7.0)],
        color,
        Stroke::new(1.2, Color32::WHITE),
    ));
}

/// A march of the computer's last turn: a thick arrow from box centre to box centre,
/// in the marching side's colour with a dark edge so it shows on any fill.
fn march_arrow(painter: &Painter, from: Pos2, to: Pos2, color: Color32) {
    let d = to - from;
    if d.length() < 1.0 {
        return;
    }
    let dir = d.normalized();
    let normal = vec2(-dir.y, dir.x);
    // Start and stop short of the box centres, so names stay readable.
    let a = from + dir * 20.0;
    let tip = to - dir * 24.0;
    let back = tip - dir * 22.0;
    painter.line_segment([a, back], Stroke::new(9.0, Color32::BLACK));
    painter.line_segment([a, back], Stroke::new(6.0, color));
    painter.add(Shape::convex_polygon(
        vec![tip, back + normal * 13.0, back - normal * 13.0],
        color,
        Stroke::new(2.0, Color32::BLACK),
    ));
}

/// An arrow head at the middle of `from`→`to`, pointing to `to` (a river's flow).
fn arrow(painter: &Painter, from: Pos2, to: Pos2, color: Color32) {
    let dir = (to - from).normalized();
    let normal = vec2(-dir.y, dir.x);
    let tip = from.lerp(to, 0.5) + dir * 7.0;
    let back = tip - dir * 14.0;
    painter.add(Shape::convex_polygon(
        vec![tip, back + normal * 7.0, back - normal * 7.0],
        color,
        Stroke::NONE,
    ));
}

/// Gives widget `id`'s accesskit node its bounds on screen: egui reports a widget's
/// bounds in its layer's coordinates, and assistive tools (and tests) need them on screen.
fn set_screen_bounds(ui: &Ui, id: Id, g: Rect) {
    ui.ctx().accesskit_node_builder(id, |node| {
        node.set_bounds(egui::accesskit::Rect {
            x0: g.min.x.into(),
            y0: g.min.y.into(),
            x1: g.max.x.into(),
            y1: g.max.y.into(),
        });
    });
}

/// Draws box `i`'s counters; returns each one's rect and spoken name (`2 Mi (Union)`).
fn draw_counters(
    painter: &Painter,
    sides: &[SideStyle],
    overlay: &Overlay,
    i: usize,
    rect: Rect,
    visuals: &egui::Visuals,
    labels: &mut Vec<Label>,
) -> Vec<(Rect, String, String)> {
    let mut out = Vec::new();
    let Some(stack) = overlay.counters.get(i) else {
        return out;
    };
    // Two counters a row; a formation's counter takes a row of its own, for its name.
    let (mut row, mut col) = (0usize, 0usize);
    for c in stack {
        let wide = c.formation.is_some();
        if wide && col > 0 {
            row += 1;
            col = 0;
        }
        let min = pos2(
            rect.left() + col as f32 * (COUNTER_SIZE.x + 2.0) + 10.0,
            rect.bottom() + 2.0 + row as f32 * (COUNTER_SIZE.y + 2.0),
        );
        let size = if wide {
            vec2(2.0 * COUNTER_SIZE.x + 2.0, COUNTER_SIZE.y)
        } else {
            COUNTER_SIZE
        };
        if wide || col == 1 {
            row += 1;
            col = 0;
        } else {
            col = 1;
        }
        let r = Rect::from_min_size(min, size);
        let full = sides
            .get(c.side)
            .map_or(visuals.widgets.active.bg_fill, |s| s.color);
        // The reduced side is paler, with its corner cut.
        let fill = if c.reduced {
            full.gamma_multiply(0.55)
        } else {
            full
        };
        let ink = text_on(full);
        painter.rect_filled(r, CornerRadius::same(2), fill);
        if c.reduced {
            painter.add(Shape::convex_polygon(
                vec![
                    r.right_top(),
                    r.right_top() + vec2(-8.0, 0.0),
                    r.right_top() + vec2(0.0, 8.0),
                ],
                ink,
                Stroke::NONE,
            ));
        }
        painter.rect_stroke(
            r,
            CornerRadius::same(2),
            Stroke::new(1.0, ink),
            StrokeKind::Inside,
        );
        let symbol = Rect::from_min_size(r.left_top() + vec2(3.0, 3.0), vec2(13.0, 9.0));
        unit_symbol(painter, symbol, c.class.as_deref(), ink);
        // Quality: one stripe per step above the first quality (AHD: militia none,
        // veteran one, crack two).
        for q in 0..c.quality.unwrap_or(0).min(3) {
            let y = r.bottom() - 2.5 - q as f32 * 2.5;
            painter.line_segment(
                [pos2(r.left() + 3.0, y), pos2(r.left() + 16.0, y)],
                Stroke::new(1.5, ink),
            );
        }
        if !c.flags.is_empty() {
            // Earthworks along the top edge: a flag is on (AHD: entrenched).
            let pts: Vec<Pos2> = (0..=8)
                .map(|k| {
                    let x = r.left() + k as f32 * r.width() / 8.0;
                    let y = r.top() - if k % 2 == 0 { 0.0 } else { 3.5 };
                    pos2(x, y)
                })
                .collect();
            painter.add(Shape::line(pts, Stroke::new(2.0, ink)));
        }
        let text = match &c.formation {
            Some(f) => format!("{} · {}", f.name, f.members),
            None => format!("{} {}", c.count, c.unit),
        };
        labels.push(Label {
            at: pos2(r.left() + 18.0 + (r.width() - 18.0) / 2.0, r.center().y),
            anchor: Align2::CENTER_CENTER,
            text,
            size: SMALL_SIZE,
            color: ink,
            max_width: Some(r.width() - 18.0),
            kind: LabelKind::Detail,
            fill: None,
            offset: Vec2::ZERO,
        });
        let side = sides.get(c.side).map_or("?", |s| s.name.as_str());
        let flags = if c.flags.is_empty() {
            String::new()
        } else {
            format!(", {}", c.flag_names)
        };
        // The popup lists the whole stack of the box, this counter first.
        let mut hover = Vec::new();
        for (m, o) in std::iter::once(c)
            .chain(stack.iter().filter(|o| !std::ptr::eq(*o, c)))
            .enumerate()
        {
            let who = sides.get(o.side).map_or("?", |s| s.name.as_str());
            let mut line = match &o.formation {
                Some(f) => format!("{} ({}, {who}): {} pieces in it", f.name, o.name, f.members),
                None => format!("{} × {} ({who})", o.count, o.name),
            };
            if o.reduced {
                line.push_str(", reduced");
            }
            if !o.flags.is_empty() {
                line.push_str(", ");
                line.push_str(&o.flag_names);
            }
            if m == 0 && stack.len() > 1 {
                line.push_str(&format!("\n— {} counters here:", stack.len()));
            }
            hover.push(line);
        }
        let spoken = match &c.formation {
            Some(f) => format!("{} ({} pieces, {side}){flags}", f.name, f.members),
            None => format!("{} {} ({side}){flags}", c.count, c.unit),
        };
        out.push((r, spoken, hover.join("\n")));
    }
    // Zoomed out, each side's pieces here as one badge with their number.
    let mut totals: Vec<(usize, u32)> = Vec::new();
    for c in stack {
        match totals.iter_mut().find(|(s, _)| *s == c.side) {
            Some((_, n)) => *n += u32::from(c.count),
            None => totals.push((c.side, u32::from(c.count))),
        }
    }
    let width = BADGE_STEP * totals.len() as f32;
    for (k, (side, n)) in totals.into_iter().enumerate() {
        let fill = sides
            .get(side)
            .map_or(visuals.widgets.active.bg_fill, |s| s.color);
        labels.push(Label {
            at: rect.center_bottom(),
            anchor: Align2::CENTER_TOP,
            text: n.to_string(),
            size: BADGE_SIZE,
            color: text_on(fill),
            max_width: None,
            kind: LabelKind::Badge,
            fill: Some(fill),
            offset: vec2(k as f32 * BADGE_STEP - (width - BADGE_STEP) / 2.0, 1.0),
        });
    }
    // Zoomed out, each formation's name under the badges, with its pieces' number.
    for (k, f) in stack.iter().filter(|c| c.formation.is_some()).enumerate() {
        let Some(look) = &f.formation else { continue };
        let fill = sides
            .get(f.side)
            .map_or(visuals.widgets.active.bg_fill, |s| s.color);
        labels.push(Label {
            at: rect.center_bottom(),
            anchor: Align2::CENTER_TOP,
            text: format!("{} · {}", look.name, look.members),
            size: BADGE_SIZE,
            color: text_on(fill),
            max_width: None,
            kind: LabelKind::Badge,
            fill: Some(fill),
            offset: vec2(0.0, 1.0 + (k + 1) as f32 * (BADGE_SIZE + 5.0)),
        });
    }
    out
}

/// A count badge's text size on screen, and the distance between two side by side.
const BADGE_SIZE: f32 = 10.0;
const BADGE_STEP: f32 = 20.0;

/// A unit class's symbol in `r`, after the NATO map symbols when the class id is one
/// of their words (infantry: a cross, cavalry: a diagonal, artillery: a dot); any
/// other class shows its initial. No class: an empty frame.
fn unit_symbol(painter: &Painter, r: Rect, class: Option<&str>, ink: Color32) {
    let s = Stroke::new(1.2, ink);
    painter.rect_stroke(r, CornerRadius::ZERO, s, StrokeKind::Inside);
    let Some(class) = class else { return };
    match class.to_ascii_lowercase().as_str() {
        "infantry" => {
            painter.line_segment([r.left_top(), r.right_bottom()], s);
            painter.line_segment([r.left_bottom(), r.right_top()], s);
        }
        "cavalry" => {
            painter.line_segment([r.left_bottom(), r.right_top()], s);
        }
        "artillery" => {
            painter.circle_filled(r.center(), 2.0, ink);
        }
        other => {
            if let Some(c) = other.chars().next() {
                let _ = painter.text(
                    r.center(),
                    Align2::CENTER_CENTER,
                    c.to_uppercase().to_string(),
                    FontId::proportional(8.0),
                    ink,
                );
            }
        }
    }
}

/// Paints labels in a layer above the scene, in screen coordinates at the zoomed size,
/// so text is rasterised at its final size and stays sharp. Box names are placed first
/// (see [`crate::labels`]): the full name where it fits, else the longest unique
/// abbreviation that covers no other name.
fn paint_labels(
    ui: &Ui,
    scene_layer: LayerId,
    clip: Rect,
    to_global: TSTransform,
    labels: Vec<Label>,
    cache: &mut crate::labels::FormsCache,
) {
    let layer = LayerId::new(scene_layer.order, scene_layer.id.with("labels"));
    ui.ctx().set_sublayer(scene_layer, layer);
    let painter = Painter::new(ui.ctx().clone(), layer, clip);
    let zoom = to_global.scaling;
    let (names, rest): (Vec<Label>, Vec<Label>) =
        labels.into_iter().partition(|l| l.kind == LabelKind::Name);
    paint_names(&painter, to_global, &names, cache);
    let details_readable = SMALL_SIZE * zoom >= MIN_DETAIL;
    for label in rest {
        // Half-point steps keep the font cache small while zooming.
        let mut size = (label.size * zoom * 2.0).round() / 2.0;
        let mut text = label.text.clone();
        if label.kind == LabelKind::Badge {
            if details_readable {
                continue;
            }
            let galley =
                painter.layout_no_wrap(text, FontId::proportional(label.size), label.color);
            let at = to_global * label.at + label.offset;
            let r = label.anchor.anchor_size(at, galley.size() + vec2(8.0, 2.0));
            let fill = label.fill.unwrap_or(Color32::GRAY);
            painter.rect_filled(r, CornerRadius::same(7), fill);
            painter.rect_stroke(
                r,
                CornerRadius::same(7),
                Stroke::new(1.0, label.color),
                StrokeKind::Inside,
            );
            painter.galley(r.min + vec2(4.0, 1.0), galley, label.color);
            continue;
        }
        if label.kind == LabelKind::Detail && size < MIN_DETAIL {
            continue;
        }
        let mut galley =
            painter.layout_no_wrap(text.clone(), FontId::proportional(size), label.color);
        if let Some(max) = label.max_width.map(|w| w * zoom)
            && galley.size().x > max
        {
            // A long text is set smaller rather than spilling out of its place.
            size = (size * max / galley.size().x * 2.0).floor() / 2.0;
            if size < 3.0 {
                continue;
            }
            text = label.text.clone();
            galley = painter.layout_no_wrap(text, FontId::proportional(size), label.color);
        }
        let rect = label
            .anchor
            .anchor_size(to_global * label.at + label.offset, galley.size());
        painter.galley(rect.min, galley, label.color);
    }
}

/// How far a box name may run past its box on each side, in screen points, when no
/// other name is there.
const SPILL: f32 = 14.0;

/// Paints the box names, placed together so none covers another: each takes, in
/// order, the longest unique form that has room on its box and is free, else its
/// shortest form just above or below the box, else the shortest on the box whatever it
/// covers. Forms are laid out one at a time, only until one is taken.
fn paint_names(
    painter: &Painter,
    to_global: TSTransform,
    names: &[Label],
    cache: &mut crate::labels::FormsCache,
) {
    let zoom = to_global.scaling;
    let texts: Vec<&str> = names.iter().map(|l| l.text.as_str()).collect();
    let forms = cache.get(&texts);
    let mut placer = crate::labels::Placer::default();
    for (label, forms) in names.iter().zip(forms) {
        let size = ((label.size * zoom * 2.0).round() / 2.0).max(MIN_NAME);
        let at = to_global * label.at + label.offset;
        let box_width = label.max_width.map_or(f32::INFINITY, |w| w * zoom);
        let layout = |t: &str, size: f32| {
            painter.layout_no_wrap(t.to_string(), FontId::proportional(size), label.color)
        };
        let rect_at = |at: Pos2, g: &egui::Galley| label.anchor.anchor_size(at, g.size());
        let full = layout(&label.text, size);
        let fitted = (size * box_width / full.size().x * 2.0).floor() / 2.0;
        let (galley, rect) = if full.size().x <= box_width {
            let r = rect_at(at, &full);
            (full, r)
        } else if fitted >= MIN_NAME {
            // Zoomed in: the whole name, a little smaller, inside its box.
            let g = layout(&label.text, fitted);
            let r = rect_at(at, &g);
            (g, r)
        } else {
            let room = box_width + 2.0 * SPILL;
            let mut chosen = None;
            let mut shortest = None;
            for f in forms {
                let g = layout(f, size);
                if g.size().x > room {
                    continue;
                }
                let r = rect_at(at, &g);
                if placer.is_free(r) {
                    chosen = Some((g, r));
                    break;
                }
                shortest = Some(g);
            }
            let shortest = shortest
                .or_else(|| forms.last().map(|f| layout(f, size)))
                .unwrap_or_else(|| layout(&label.text, size));
            chosen.unwrap_or_else(|| {
                let step = vec2(0.0, shortest.size().y);
                let r = [at - step, at + step]
                    .into_iter()
                    .map(|p| rect_at(p, &shortest))
                    .find(|r| placer.is_free(*r))
                    .unwrap_or_else(|| rect_at(at, &shortest));
                (shortest, r)
            })
        };
        placer.take(rect);
        if rect.width() > box_width {
            // Running past its box onto the map: a backing keeps it readable.
            let dark = label.color.intensity() < 0.5;
            let back = if dark {
                Color32::from_white_alpha(190)
            } else {
                Color32::from_black_alpha(170)
            };
            painter.rect_filled(rect.expand(1.0), CornerRadius::same(2), back);
        }
        painter.galley(rect.min, galley, label.color);
    }
}

/// The board's extent: the map's declared size, grown to hold every box.
pub fn map_bounds(map: &MapData) -> Rect {
    let mut r = Rect::from_min_size(
        Pos2::ZERO,
        vec2(
            map.width.unwrap_or(0) as f32,
            map.height.unwrap_or(0) as f32,
        ),
    );
    for b in &map.boxes {
        r = r.union(Rect::from_center_size(
            pos2(b.x as f32, b.y as f32),
            BOX_SIZE + vec2(0.0, 2.0 * COUNTER_SIZE.y),
        ));
    }
    if r.width() < 1.0 || r.height() < 1.0 {
        r = Rect::from_min_size(Pos2::ZERO, vec2(1000.0, 1000.0));
    }
    r
}

/// The line passing within `tolerance` map units of `p`, nearest first.
pub fn line_at(map: &MapData, p: Pos2, tolerance: f32) -> Option<usize> {
    let at = |name: &str| {
        map.find_box(name)
            .map(|i| pos2(map.boxes[i].x as f32, map.boxes[i].y as f32))
    };
    map.lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let (a, b) = (at(&l.a)?, at(&l.b)?);
            let d = distance_to_segment(p, a, b);
            (d <= tolerance).then_some((i, d))
        })
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(i, _)| i)
}

fn distance_to_segment(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let len2 = ab.length_sq();
    if len2 == 0.0 {
        return p.distance(a);
    }
    let t = ((p - a).dot(ab) / len2).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}
