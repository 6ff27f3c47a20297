//! The module's backdrop (`muster_core::backdrop`: sea, land areas, borders) drawn
//! under the boxes.
//!
//! The areas are triangulated once per compiled backdrop (`earcutr`, which takes
//! concave polygons with holes) into one mesh with a colour per vertex, shared by
//! every frame; a frame only copies it. Paths are stroked each frame at their width in
//! screen points (divided by the zoom), so borders stay crisp and thin at any zoom.

use std::sync::Arc;

use egui::epaint::{Mesh, PathShape, Vertex, WHITE_UV};
use egui::{Color32, Id, Painter, Pos2, Rect, Sense, Shape, Stroke, Ui, pos2};
use muster_core::backdrop::Backdrop;

/// The backdrop ready to paint, rebuilt only when the compiled backdrop changes.
#[derive(Clone, Debug, Default)]
pub struct BackdropPainter {
    /// The backdrop these shapes were made from (compared by pointer).
    source: Option<Arc<Backdrop>>,
    fills: Option<Arc<Mesh>>,
    /// Each path with its colour and width in screen points.
    paths: Vec<(Vec<Pos2>, Color32, f32)>,
    bounds: Option<Rect>,
}

impl BackdropPainter {
    /// Brings the shapes in line with `backdrop` (the last module that loaded).
    pub fn set(&mut self, backdrop: Option<&Arc<Backdrop>>) {
        let same = match (&self.source, backdrop) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            *self = backdrop.map(|b| Self::build(b.clone())).unwrap_or_default();
        }
    }

    fn build(backdrop: Arc<Backdrop>) -> Self {
        let color = |c: Option<[u8; 3]>| c.map(|[r, g, b]| Color32::from_rgb(r, g, b));
        let mut mesh = Mesh::default();
        for area in &backdrop.areas {
            let Some(fill) = color(backdrop.styles[area.style].fill) else {
                continue;
            };
            for polygon in &area.polygons {
                triangulate(&mut mesh, polygon, fill);
            }
        }
        let paths = backdrop
            .paths
            .iter()
            .filter_map(|p| {
                let style = &backdrop.styles[p.style];
                let points = p.points.iter().map(|&[x, y]| pos2(x, y)).collect();
                Some((points, color(style.stroke)?, style.width))
            })
            .collect();
        let bounds = backdrop
            .bounds()
            .map(|[lo, hi]| Rect::from_min_max(pos2(lo[0], lo[1]), pos2(hi[0], hi[1])));
        tracing::debug!(triangles = mesh.indices.len() / 3, "backdrop triangulated");
        Self {
            source: Some(backdrop),
            fills: (!mesh.is_empty()).then(|| Arc::new(mesh)),
            paths,
            bounds,
        }
    }

    /// Whether there is a backdrop to draw.
    pub fn is_empty(&self) -> bool {
        self.source.is_none()
    }

    /// The filled triangles (for tests).
    pub fn fills(&self) -> Option<&Mesh> {
        self.fills.as_deref()
    }

    /// Paints the backdrop in the scene's `ui` and gives it an accessible node labelled
    /// "backdrop: N areas, M paths".
    pub fn draw(&self, ui: &mut Ui, painter: &Painter) {
        let Some(source) = &self.source else { return };
        if let Some(fills) = &self.fills {
            painter.add(Shape::Mesh(fills.clone()));
        }
        let zoom = ui
            .ctx()
            .layer_transform_to_global(ui.layer_id())
            .map_or(1.0, |t| t.scaling);
        for (points, color, width) in &self.paths {
            let stroke = Stroke::new(width / zoom, *color);
            painter.add(PathShape::line(points.clone(), stroke));
        }
        let Some(bounds) = self.bounds else { return };
        let response = ui.interact(bounds, Id::unique("map-backdrop"), Sense::hover());
        let label = format!(
            "backdrop: {} areas, {} paths",
            source.areas.len(),
            source.paths.len()
        );
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &label));
    }
}

/// Adds the triangles of one polygon (outer ring, then holes) to `mesh`.
fn triangulate(mesh: &mut Mesh, polygon: &[Vec<[f32; 2]>], color: Color32) {
    let mut coords = Vec::new();
    let mut holes = Vec::new();
    for (i, ring) in polygon.iter().enumerate() {
        if i > 0 {
            holes.push(coords.len() / 2);
        }
        coords.extend(ring.iter().flat_map(|&[x, y]| [f64::from(x), f64::from(y)]));
    }
    let Ok(indices) = earcutr::earcut(&coords, &holes, 2) else {
        tracing::warn!("a backdrop polygon could not be triangulated");
        return;
    };
    let base = u32::try_from(mesh.vertices.len()).unwrap_or(u32::MAX);
    for xy in coords.chunks_exact(2) {
        mesh.vertices.push(Vertex {
            pos: pos2(xy[0] as f32, xy[1] as f32),
            uv: WHITE_UV,
            color,
        });
    }
    mesh.indices.extend(
        indices
            .iter()
            .map(|&i| base + u32::try_from(i).unwrap_or(0)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use muster_core::backdrop::{Area, Path, Style};

    fn square(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<[f32; 2]> {
        vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    }

    fn mesh_area(mesh: &Mesh) -> f32 {
        mesh.indices
            .chunks_exact(3)
            .map(|t| {
                let [a, b, c] = [0, 1, 2].map(|k| mesh.vertices[t[k] as usize].pos);
                ((b - a).x * (c - a).y - (b - a).y * (c - a).x).abs() / 2.0
            })
            .sum()
    }

    fn backdrop() -> Arc<Backdrop> {
        let style = |id: &str, fill: Option<[u8; 3]>, stroke: Option<[u8; 3]>| Style {
            id: id.into(),
            fill,
            stroke,
            width: 2.0,
        };
        // An L-shaped (concave) area with a square hole, and an area with no fill.
        let l_shape = vec![
            [0.0, 0.0],
            [100.0, 0.0],
            [100.0, 40.0],
            [40.0, 40.0],
            [40.0, 100.0],
            [0.0, 100.0],
        ];
        Arc::new(Backdrop {
            styles: vec![
                style("land", Some([1, 2, 3]), None),
                style("ghost", None, Some([9, 9, 9])),
            ],
            areas: vec![
                Area {
                    name: Some("L".into()),
                    style: 0,
                    polygons: vec![vec![l_shape, square(10.0, 10.0, 20.0, 20.0)]],
                },
                Area {
                    name: None,
                    style: 1,
                    polygons: vec![vec![square(0.0, 0.0, 500.0, 500.0)]],
                },
            ],
            paths: vec![Path {
                name: None,
                style: 1,
                points: vec![[0.0, 0.0], [5.0, 5.0]],
            }],
        })
    }

    #[test]
    fn concave_areas_with_holes_are_filled_exactly() {
        let b = backdrop();
        let mut painter = BackdropPainter::default();
        painter.set(Some(&b));
        let mesh = painter.fills().expect("a mesh");
        // L: 100x100 minus the 60x60 notch = 6400, minus the 10x10 hole = 6300. The
        // unfilled area adds nothing.
        assert!(
            (mesh_area(mesh) - 6300.0).abs() < 1e-3,
            "{}",
            mesh_area(mesh)
        );
        assert!(
            mesh.vertices
                .iter()
                .all(|v| v.color == Color32::from_rgb(1, 2, 3))
        );
        assert_eq!(painter.paths.len(), 1, "the path with a stroke colour");
    }

    #[test]
    fn rebuilt_only_for_another_backdrop() {
        let b = backdrop();
        let mut painter = BackdropPainter::default();
        painter.set(Some(&b));
        let first = Arc::as_ptr(painter.fills.as_ref().unwrap());
        painter.set(Some(&b));
        assert_eq!(Arc::as_ptr(painter.fills.as_ref().unwrap()), first);
        painter.set(Some(&backdrop()));
        assert_ne!(Arc::as_ptr(painter.fills.as_ref().unwrap()), first);
        painter.set(None);
        assert!(painter.is_empty());
    }

    #[test]
    fn ahd_backdrop_fills_every_land_area() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd");
        let module = muster_core::load_module(dir).expect("AHD loads");
        let b = module.board.backdrop.clone().expect("AHD has a backdrop");
        let mut painter = BackdropPainter::default();
        painter.set(Some(&b));
        let mesh = painter.fills().expect("a mesh");
        // The triangles cover the sea rectangle and, on it, each land area once: their
        // area is the sum of the rings' shoelace areas (no ring lost by earcut).
        let shoelace = |r: &Vec<[f32; 2]>| {
            let n = r.len();
            (0..n)
                .map(|i| {
                    let (a, c) = (r[i], r[(i + 1) % n]);
                    f64::from(a[0]) * f64::from(c[1]) - f64::from(c[0]) * f64::from(a[1])
                })
                .sum::<f64>()
                .abs()
                / 2.0
        };
        let expected: f64 = b
            .areas
            .iter()
            .flat_map(|a| a.polygons.iter().flatten())
            .map(shoelace)
            .sum();
        let got = f64::from(mesh_area(mesh));
        assert!(
            (got - expected).abs() / expected < 1e-3,
            "{got} vs {expected}"
        );
    }
}
