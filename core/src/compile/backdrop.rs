//! The backdrop file: styles resolved by id, colours and points parsed, sizes checked.

use super::Ctx;
use crate::backdrop::{Area, Backdrop, Path, Point, Style};
use crate::format;
use crate::names::NameIndex;
use crate::suggest;

pub(super) fn backdrop(cx: &mut Ctx<'_>, raw: &format::Backdrop) -> Backdrop {
    let mut names = NameIndex::default();
    let mut styles: Vec<(Style, crate::diag::Pos)> = Vec::new();
    for s in &raw.style {
        if let Err(first) = names.insert(&s.id, styles.len()) {
            let hint = cx.first_at(styles[first].1);
            cx.error(
                s.id.pos,
                format!("backdrop style '{}' is declared twice", s.id.value),
                hint,
            );
            continue;
        }
        let width = s.width.as_ref().map_or(1.0, |w| w.value);
        if let Some(w) = s
            .width
            .as_ref()
            .filter(|w| !(w.value.is_finite() && w.value > 0.0))
        {
            cx.error(
                w.pos,
                "a backdrop style's width must be a positive number",
                None,
            );
        }
        let style = Style {
            id: s.id.value.clone(),
            fill: s.fill.as_ref().and_then(|c| color(cx, c)),
            stroke: s.stroke.as_ref().and_then(|c| color(cx, c)),
            width,
        };
        styles.push((style, s.pos));
    }
    let style_of = |cx: &mut Ctx<'_>, name: &format::Name| -> Option<usize> {
        let found = names.get(name);
        if found.is_none() {
            let hint =
                suggest::did_you_mean(&name.value, styles.iter().map(|(s, _)| s.id.as_str()))
                    .or_else(|| Some("declare it with <style id=... fill=... stroke=...>".into()));
            cx.error(
                name.pos,
                format!("unknown backdrop style '{}'", name.value),
                hint,
            );
        }
        found
    };
    let mut areas = Vec::new();
    for a in &raw.area {
        let style = style_of(cx, &a.style);
        let mut polygons = Vec::new();
        for p in &a.polygon {
            if p.ring.is_empty() {
                cx.error(
                    p.pos,
                    "a <polygon> needs a <ring> (its outline; any more are holes)",
                    None,
                );
            }
            polygons.push(
                p.ring
                    .iter()
                    .map(|r| points(cx, &r.points, 3, "a ring"))
                    .collect(),
            );
        }
        if let Some(style) = style {
            areas.push(Area {
                name: a.name.clone(),
                style,
                polygons,
            });
        }
    }
    let mut paths = Vec::new();
    for p in &raw.path {
        let style = style_of(cx, &p.style);
        let pts = points(cx, &p.points, 2, "a path");
        if let Some(style) = style {
            paths.push(Path {
                name: p.name.clone(),
                style,
                points: pts,
            });
        }
    }
    Backdrop {
        styles: styles.into_iter().map(|(s, _)| s).collect(),
        areas,
        paths,
    }
}

/// `#rrggbb` as bytes, or a located error.
fn color(cx: &mut Ctx<'_>, c: &format::Name) -> Option<[u8; 3]> {
    let hex = c.value.strip_prefix('#').unwrap_or("");
    let byte = |i: usize| {
        hex.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
    };
    match (hex.len(), byte(0), byte(2), byte(4)) {
        (6, Some(r), Some(g), Some(b)) => Some([r, g, b]),
        _ => {
            cx.error(
                c.pos,
                format!("'{}' is not a colour", c.value),
                Some("write it as #rrggbb, e.g. #a9c4d4".into()),
            );
            None
        }
    }
}

/// The `x,y` pairs of a `points` attribute (separated by spaces). The first bad pair is
/// reported where it is written; the points before it are kept.
fn points(cx: &mut Ctx<'_>, s: &format::Name, min: usize, what: &str) -> Vec<Point> {
    let mut out = Vec::new();
    let mut offset = 0;
    for part in s.value.split(|c: char| c.is_ascii_whitespace()) {
        let start = offset;
        offset += part.len() + 1;
        if part.is_empty() {
            continue;
        }
        let pair = part.split_once(',').and_then(|(x, y)| {
            let (x, y) = (x.parse::<f32>().ok()?, y.parse::<f32>().ok()?);
            (x.is_finite() && y.is_finite()).then_some([x, y])
        });
        match pair {
            Some(p) => out.push(p),
            None => {
                cx.error(
                    s.pos_at(start),
                    format!("'{part}' is not a point"),
                    Some(
                        "write points as x,y in map units, separated by spaces: 10,20 30.5,40"
                            .into(),
                    ),
                );
                return out;
            }
        }
    }
    if out.len() < min {
        cx.error(
            s.pos,
            format!(
                "{what} needs at least {min} points, this one has {}",
                out.len()
            ),
            None,
        );
    }
    out
}
