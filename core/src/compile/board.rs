//! Boxes, line kinds and lines: names resolved, lines checked.

use std::collections::HashMap;

use super::Ctx;
use crate::board::{Board, BoxValueDef, Line, LineKind, MapBox};
use crate::diag::Pos;
use crate::format;
use crate::ids::{BoxId, BoxValueId, LineKindId};
use crate::load::Parts;
use crate::names::NameIndex;

pub(super) fn board(cx: &mut Ctx<'_>, parts: &Parts, sides: &NameIndex, module_pos: Pos) -> Board {
    let (kinds, kind_names) = kinds(cx, &parts.kinds);
    let (values, value_names) = box_values(cx, &parts.box_values);
    let (boxes, names) = boxes(cx, &parts.boxes, sides, &value_names, values.len());
    if boxes.is_empty() {
        cx.error(
            module_pos,
            "the module has no boxes",
            Some("include a file with a <map> root".into()),
        );
    }
    let lines = lines(cx, &parts.lines, &boxes, &names, &kinds, &kind_names);
    let (width, height) = parts.map_size.unwrap_or_else(|| extent(&boxes));
    let mut board = Board::new(width, height, kinds, boxes, lines, names, kind_names);
    board.neutral_color = parts.map_neutral_color.clone();
    board.background = parts.map_background.as_ref().map(|b| background(cx, b));
    board.backdrop = parts
        .map_backdrop
        .as_ref()
        .map(|b| std::sync::Arc::new(super::backdrop::backdrop(cx, b)));
    board.tags = tags(cx, &parts.tags);
    board.values = values;
    board.value_names = value_names;
    for id in board.box_ids() {
        if board.neighbours(id).is_empty() {
            let b = board.get(id);
            cx.warn(
                b.pos,
                format!("box '{}' has no lines; units there can never move", b.name),
                Some("add a <line> to it or remove the box".into()),
            );
        }
    }
    board
}

/// Fills the defaults (origin, scale 1, opacity 0.5) and checks the numbers.
fn background(cx: &mut Ctx<'_>, b: &format::Background) -> crate::board::Background {
    let scale = b.scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        cx.error(b.pos, "background scale must be a positive number", None);
    }
    let opacity = b.opacity.unwrap_or(0.5);
    if !(0.0..=1.0).contains(&opacity) {
        cx.error(b.pos, "background opacity must be between 0 and 1", None);
    }
    crate::board::Background {
        image: b.image.value.clone(),
        x: b.x.unwrap_or(0.0),
        y: b.y.unwrap_or(0.0),
        scale,
        opacity,
    }
}

fn extent(boxes: &[MapBox]) -> (u32, u32) {
    let w = boxes.iter().map(|b| b.x).max().unwrap_or(0).max(0);
    let h = boxes.iter().map(|b| b.y).max().unwrap_or(0).max(0);
    (w.unsigned_abs() + 100, h.unsigned_abs() + 100)
}

fn kinds(cx: &mut Ctx<'_>, raw: &[format::LineKind]) -> (Vec<LineKind>, NameIndex) {
    let mut kinds: Vec<LineKind> = Vec::new();
    let mut names = NameIndex::default();
    for k in raw {
        if LineKindId::from_index(kinds.len()).is_none() {
            cx.error(k.pos, "too many line kinds (at most 256)", None);
            break;
        }
        if let Err(first) = names.insert(&k.id, kinds.len()) {
            let hint = cx.first_at(kinds[first].pos);
            cx.error(
                k.id.pos,
                format!("duplicate line kind '{}'", k.id.value),
                hint,
            );
            continue;
        }
        kinds.push(LineKind {
            id: k.id.value.clone(),
            name: k.name.clone(),
            flows: k.flows,
            color: k.color.clone(),
            pos: k.pos,
        });
    }
    (kinds, names)
}

/// The declared box values (`<box-value id name>`): ids unique without case.
fn box_values(cx: &mut Ctx<'_>, raw: &[format::Named]) -> (Vec<BoxValueDef>, NameIndex) {
    let mut out: Vec<BoxValueDef> = Vec::new();
    let mut names = NameIndex::default();
    for v in raw {
        if BoxValueId::from_index(out.len()).is_none() {
            cx.error(v.pos, "too many box values (at most 256)", None);
            break;
        }
        if names.insert(&v.id, out.len()).is_err() {
            cx.error(
                v.id.pos,
                format!("duplicate box value '{}'", v.id.value),
                None,
            );
            continue;
        }
        out.push(BoxValueDef {
            id: v.id.value.clone(),
            name: v.name.clone(),
        });
    }
    (out, names)
}

fn boxes(
    cx: &mut Ctx<'_>,
    raw: &[format::BoxDef],
    sides: &NameIndex,
    value_names: &NameIndex,
    value_count: usize,
) -> (Vec<MapBox>, NameIndex) {
    let mut boxes: Vec<MapBox> = Vec::new();
    let mut names = NameIndex::default();
    for b in raw {
        if BoxId::from_index(boxes.len()).is_none() {
            cx.error(b.pos, "too many boxes (at most 65536)", None);
            break;
        }
        let index = boxes.len();
        if b.name.trim().is_empty() {
            cx.error(b.name.pos, "a box needs a name", None);
            continue;
        }
        if let Err(first) = names.insert(&b.name, index) {
            let other = &boxes[first];
            let hint = Some(format!(
                "box '{}' at {} already has this name or alias",
                other.name,
                cx.files.locate(other.pos)
            ));
            cx.error(
                b.name.pos,
                format!("duplicate box name '{}'", b.name.value),
                hint,
            );
            continue;
        }
        let mut aliases = Vec::new();
        if let Some(list) = &b.aliases {
            for (alias, alias_pos) in list.items(';') {
                match names.insert(alias, index) {
                    Ok(()) => aliases.push(alias.to_string()),
                    Err(first) => {
                        let owner = if first == index {
                            &b.name.value
                        } else {
                            &boxes[first].name
                        };
                        cx.error(
                            alias_pos,
                            format!("alias '{alias}' of box '{}' is already a name or alias of box '{owner}'", b.name.value),
                            Some("each name and alias must be unique".into()),
                        );
                    }
                }
            }
        }
        let owner = b.owner.as_ref().and_then(|o| cx.side(sides, o));
        let mut values = vec![vec![0u16; sides.len()]; value_count];
        let mut given = vec![vec![false; sides.len()]; value_count];
        for v in &b.value {
            let Some(kind) = value_names.get(&v.id) else {
                let hint = value_names.hint(&v.id).or_else(|| {
                    Some("declare it in the map: <box-value id=\"...\" name=\"...\"/>".into())
                });
                cx.error(
                    v.id.pos,
                    format!("unknown box value '{}'", v.id.value),
                    hint,
                );
                continue;
            };
            if let Some(side) = cx.side(sides, &v.side) {
                if given[kind][side.index()] {
                    cx.error(
                        v.pos,
                        format!(
                            "box '{}' gives side '{}' two '{}' values",
                            b.name.value, v.side.value, v.id.value
                        ),
                        Some("keep one <value> of a kind per side".into()),
                    );
                }
                given[kind][side.index()] = true;
                values[kind][side.index()] = v.amount;
            }
        }
        boxes.push(MapBox {
            name: b.name.value.clone(),
            aliases,
            owner,
            tags: b
                .tags
                .as_deref()
                .unwrap_or("")
                .split_whitespace()
                .map(String::from)
                .collect(),
            state: b.state.clone(),
            x: b.x,
            y: b.y,
            values,
            pos: b.pos,
        });
    }
    (boxes, names)
}

fn find_box(cx: &mut Ctx<'_>, names: &NameIndex, name: &format::Name) -> Option<BoxId> {
    let found = names.get(name).and_then(BoxId::from_index);
    if found.is_none() {
        cx.error(
            name.pos,
            format!("unknown box '{}'", name.value),
            names.hint(name),
        );
    }
    found
}

fn lines(
    cx: &mut Ctx<'_>,
    raw: &[format::Line],
    boxes: &[MapBox],
    names: &NameIndex,
    kinds: &[LineKind],
    kind_names: &NameIndex,
) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut seen: HashMap<(BoxId, BoxId, LineKindId), Pos> = HashMap::new();
    for l in raw {
        let a = find_box(cx, names, &l.a);
        let b = find_box(cx, names, &l.b);
        let kind = kind_names.get(&l.kind).and_then(LineKindId::from_index);
        if kind.is_none() {
            cx.error(
                l.kind.pos,
                format!("unknown line kind '{}'", l.kind.value),
                kind_names.hint(&l.kind),
            );
        }
        let (Some(a), Some(b), Some(kind)) = (a, b, kind) else {
            continue;
        };
        let (an, bn) = (&boxes[a.index()].name, &boxes[b.index()].name);
        if a == b {
            cx.error(
                l.pos,
                format!("line joins '{an}' to itself"),
                Some("a line joins two different boxes".into()),
            );
            continue;
        }
        let key = (a.min(b), a.max(b), kind);
        if let Some(&first) = seen.get(&key) {
            cx.error(
                l.pos,
                format!("duplicate {} line {an} - {bn}", kinds[kind.index()].id),
                Some(format!(
                    "remove it: the same line is at {}",
                    cx.files.locate(first)
                )),
            );
            continue;
        }
        seen.insert(key, l.pos);
        let k = &kinds[kind.index()];
        let downstream = match (&l.downstream, k.flows) {
            (Some(d), true) => match names.get(d).and_then(BoxId::from_index) {
                Some(id) if id == a || id == b => Some(id),
                _ => {
                    cx.error(
                        d.pos,
                        format!(
                            "downstream '{}' is not an end of the {} {an} - {bn}",
                            d.value, k.id
                        ),
                        Some(format!("write downstream=\"{an}\" or downstream=\"{bn}\"")),
                    );
                    None
                }
            },
            (None, true) => {
                cx.error(
                    l.pos,
                    format!("the {} {an} - {bn} has no downstream end", k.id),
                    Some(format!("add downstream=\"{an}\" or downstream=\"{bn}\"")),
                );
                None
            }
            (Some(d), false) => {
                cx.error(
                    d.pos,
                    format!(
                        "a {} line has no downstream end: only kinds that flow do",
                        k.id
                    ),
                    Some("remove downstream, or mark the line kind flows=\"true\"".into()),
                );
                None
            }
            (None, false) => None,
        };
        let mut water_border = [false; 2];
        if let Some(list) = &l.water_border {
            for (end, end_pos) in list.items(';') {
                match names.get(end).and_then(BoxId::from_index) {
                    Some(id) if id == a => water_border[0] = true,
                    Some(id) if id == b => water_border[1] = true,
                    _ => cx.error(
                        end_pos,
                        format!("water-border '{end}' is not an end of the line {an} - {bn}"),
                        Some(format!("name '{an}' or '{bn}' (or both, separated by ';')")),
                    ),
                }
            }
        }
        lines.push(Line {
            a,
            b,
            kind,
            name: l.name.clone(),
            downstream,
            water_border,
            pos: l.pos,
        });
        if lines.len() > usize::from(u16::MAX) {
            cx.error(l.pos, "too many lines (at most 65536)", None);
            break;
        }
    }
    lines
}

/// The declared tags: ids unique without case.
fn tags(cx: &mut Ctx<'_>, raw: &[format::TagDef]) -> Vec<crate::board::TagDef> {
    let mut out: Vec<crate::board::TagDef> = Vec::new();
    let mut seen = NameIndex::default();
    for t in raw {
        if t.id.value.contains(char::is_whitespace) {
            cx.error(
                t.id.pos,
                format!("tag '{}' has a space in it", t.id.value),
                Some("boxes list their tags separated by spaces; use '-' inside a tag".into()),
            );
            continue;
        }
        if seen.insert(&t.id, out.len()).is_err() {
            cx.error(t.id.pos, format!("duplicate tag '{}'", t.id.value), None);
            continue;
        }
        out.push(crate::board::TagDef {
            id: t.id.value.clone(),
            name: t.name.clone(),
            mark: t.mark,
        });
    }
    out
}
