//! A module's backdrop: a vector map drawn under the boxes (AHD: sea, the 1861 states,
//! their borders and the coast). Display only: the rules never see it, and the engine
//! gives its areas no meaning beyond a name and a style.

use serde::Serialize;

/// A point in map units (the boxes' coordinates).
pub type Point = [f32; 2];

/// The compiled backdrop: every style resolved, every point parsed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Backdrop {
    pub styles: Vec<Style>,
    /// Filled first, in file order.
    pub areas: Vec<Area>,
    /// Stroked over the areas, in file order.
    pub paths: Vec<Path>,
}

/// How areas of this style are filled and paths stroked (`None`: not drawn).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Style {
    pub id: String,
    pub fill: Option<[u8; 3]>,
    pub stroke: Option<[u8; 3]>,
    /// Path width in screen points, whatever the zoom.
    pub width: f32,
}

/// A named region: polygons, each an outer ring followed by its holes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Area {
    pub name: Option<String>,
    /// Index into [`Backdrop::styles`].
    pub style: usize,
    pub polygons: Vec<Vec<Vec<Point>>>,
}

/// An open polyline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Path {
    pub name: Option<String>,
    /// Index into [`Backdrop::styles`].
    pub style: usize,
    pub points: Vec<Point>,
}

impl Backdrop {
    /// The area named `name` (ignoring case), if any.
    pub fn area(&self, name: &str) -> Option<&Area> {
        self.areas.iter().find(|a| {
            a.name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
    }

    /// The smallest rectangle holding every point: `[min, max]`.
    pub fn bounds(&self) -> Option<[Point; 2]> {
        let rings = self.areas.iter().flat_map(|a| a.polygons.iter().flatten());
        let points = rings
            .flatten()
            .chain(self.paths.iter().flat_map(|p| &p.points));
        points.fold(None, |b, p| {
            let [lo, hi] = b.unwrap_or([*p, *p]);
            Some([
                [lo[0].min(p[0]), lo[1].min(p[1])],
                [hi[0].max(p[0]), hi[1].max(p[1])],
            ])
        })
    }
}

impl Area {
    /// Whether `p` lies inside the area (even-odd over all its rings).
    pub fn contains(&self, p: Point) -> bool {
        let mut inside = false;
        for ring in self.polygons.iter().flatten() {
            let mut j = ring.len().wrapping_sub(1);
            for (i, a) in ring.iter().enumerate() {
                let b = ring[j];
                if (a[1] > p[1]) != (b[1] > p[1])
                    && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]
                {
                    inside = !inside;
                }
                j = i;
            }
        }
        inside
    }
}
