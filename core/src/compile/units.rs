//! Unit classes, qualities and types.

use super::Ctx;
use crate::format;
use crate::ids::{AttributeId, ClassId, QualityId, UnitTypeId};
use crate::load::Parts;
use crate::names::NameIndex;
use crate::unit::{Named, UnitType, Units};

pub(super) fn units(
    cx: &mut Ctx<'_>,
    parts: &Parts,
    sides: &NameIndex,
    side_count: usize,
) -> Units {
    let (classes, class_names) = named(cx, &parts.classes, "unit class");
    let (qualities, quality_names) = named(cx, &parts.qualities, "unit quality");
    let (markers, marker_names) = named(cx, &parts.markers, "marker");
    let (flags, flag_names) = named(cx, &parts.flags, "flag");
    if let Some(extra) = parts.flags.get(crate::unit::MAX_FLAGS) {
        cx.error(
            extra.pos,
            format!("too many flags (at most {})", crate::unit::MAX_FLAGS),
            Some(
                "a piece keeps its flags in one 32-bit word; use attributes for more state".into(),
            ),
        );
    }
    let mut attributes: Vec<String> = Vec::new();
    let mut attribute_names = NameIndex::default();
    let mut types: Vec<UnitType> = Vec::new();
    let mut names = NameIndex::default();
    let mut raw_of = Vec::new();
    for u in &parts.units {
        if UnitTypeId::from_index(types.len()).is_none() {
            cx.error(u.pos, "too many unit types (at most 256)", None);
            break;
        }
        if let Err(first) = names.insert(&u.id, types.len()) {
            let hint = cx.first_at(types[first].pos);
            cx.error(
                u.id.pos,
                format!("duplicate unit type '{}'", u.id.value),
                hint,
            );
            continue;
        }
        if !u.name.eq_ignore_ascii_case(&u.id) && names.insert(&u.name, types.len()).is_err() {
            cx.error(
                u.pos,
                format!(
                    "unit type name '{}' is already used by another unit type",
                    u.name
                ),
                None,
            );
        }
        let class = u.class.as_ref().and_then(|c| {
            let found = class_names.get(c).and_then(ClassId::from_index);
            if found.is_none() {
                cx.error(
                    c.pos,
                    format!("unknown unit class '{}'", c.value),
                    class_names.hint(c),
                );
            }
            found
        });
        let quality = u.quality.as_ref().and_then(|q| {
            let found = quality_names.get(q).and_then(QualityId::from_index);
            if found.is_none() {
                cx.error(
                    q.pos,
                    format!("unknown unit quality '{}'", q.value),
                    quality_names.hint(q),
                );
            }
            found
        });
        if !u.advanced && u.combatant {
            let missing: Vec<&str> = [
                ("class", u.class.is_none()),
                ("quality", u.quality.is_none()),
                ("combat", u.combat.is_none()),
                ("steps", u.steps.is_none()),
            ]
            .into_iter()
            .filter_map(|(n, m)| m.then_some(n))
            .collect();
            if !missing.is_empty() {
                cx.error(
                    u.pos,
                    format!("unit type '{}' needs {}", u.id.value, missing.join(", ")),
                    Some(
                        "only pieces marked advanced=\"true\" or combatant=\"false\" may leave them out"
                            .into(),
                    ),
                );
            }
        }
        if u.steps == Some(0) {
            cx.error(
                u.pos,
                format!("unit type '{}' has 0 steps", u.id.value),
                Some("a unit has at least 1 step".into()),
            );
        }
        let mut mix = vec![0u16; side_count];
        for m in &u.mix {
            if let Some(side) = cx.side(sides, &m.side) {
                if mix[side.index()] != 0 {
                    cx.error(
                        m.pos,
                        format!(
                            "unit type '{}' has two counter-mix entries for '{}'",
                            u.id.value, m.side.value
                        ),
                        Some("keep one <mix> per side".into()),
                    );
                }
                mix[side.index()] = m.count;
            }
        }
        let mut own: Vec<(AttributeId, i64)> = Vec::new();
        for a in &u.attribute {
            let id = match attribute_names.get(&a.id) {
                Some(i) => AttributeId::from_index(i),
                None => {
                    let i = attributes.len();
                    let id = AttributeId::from_index(i);
                    if id.is_none() {
                        cx.error(a.pos, "too many attributes (at most 256)", None);
                    } else {
                        let _ = attribute_names.insert(&a.id, i);
                        attributes.push(a.id.value.clone());
                    }
                    id
                }
            };
            let Some(id) = id else { continue };
            if own.iter().any(|(x, _)| *x == id) {
                cx.error(
                    a.id.pos,
                    format!(
                        "unit type '{}' declares attribute '{}' twice",
                        u.id.value, a.id.value
                    ),
                    None,
                );
                continue;
            }
            own.push((id, a.value));
        }
        types.push(UnitType {
            id: u.id.value.clone(),
            name: u.name.clone(),
            class,
            quality,
            combat: u.combat.unwrap_or(0),
            defense: u.defense,
            steps: u.steps.unwrap_or(1).max(1),
            promotes_to: None,
            returns_to: u.returns_to,
            advanced: u.advanced,
            combatant: u.combatant,
            attributes: own,
            mix,
            holds: Vec::new(),
            capacity: u.capacity.as_ref().map(|c| c.value),
            rule: u.rule.clone(),
            weight: u.weight.as_ref().map(|w| w.value),
            pos: u.pos,
        });
        raw_of.push(u);
    }
    // Promotions may point forward, so resolve them once every type has an id.
    for (i, u) in raw_of.iter().enumerate() {
        let Some(to) = &u.promotes_to else { continue };
        match names.get(to).and_then(UnitTypeId::from_index) {
            Some(t) if t.index() == i => cx.error(
                to.pos,
                format!("unit type '{}' promotes to itself", u.id.value),
                None,
            ),
            Some(t) => types[i].promotes_to = Some(t),
            None => cx.error(
                to.pos,
                format!("unknown unit type '{}'", to.value),
                names.hint(to),
            ),
        }
    }
    // What a formation holds may name types declared after it.
    for (i, u) in raw_of.iter().enumerate() {
        let Some(list) = &u.holds else { continue };
        for word in list.value.split([' ', ',']).filter(|w| !w.is_empty()) {
            match names.get(word).and_then(UnitTypeId::from_index) {
                Some(t) if !types[i].holds.contains(&t) => types[i].holds.push(t),
                Some(_) => {}
                None => cx.error(
                    list.pos,
                    format!(
                        "unit type '{}' holds unknown unit type '{word}'",
                        u.id.value
                    ),
                    names.hint(word),
                ),
            }
        }
        if u.capacity.is_some() && types[i].holds.is_empty() {
            cx.error(
                u.pos,
                format!(
                    "unit type '{}' has a capacity but holds nothing",
                    u.id.value
                ),
                Some("add holds=\"...\" naming the unit types it may hold".into()),
            );
        }
    }
    for (i, u) in raw_of.iter().enumerate() {
        let mut at = types[i].promotes_to;
        for _ in 0..types.len() {
            match at {
                Some(t) if t.index() == i => {
                    cx.error(
                        u.pos,
                        format!(
                            "promotions from unit type '{}' go round in a circle",
                            u.id.value
                        ),
                        Some(
                            "promotes-to must lead to a best quality that promotes no further"
                                .into(),
                        ),
                    );
                    break;
                }
                Some(t) => at = types[t.index()].promotes_to,
                None => break,
            }
        }
    }
    Units {
        classes,
        qualities,
        types,
        attributes,
        markers,
        flags,
        names,
        attribute_names,
        marker_names,
        flag_names,
    }
}

fn named(cx: &mut Ctx<'_>, raw: &[format::Named], what: &str) -> (Vec<Named>, NameIndex) {
    let mut out: Vec<Named> = Vec::new();
    let mut names = NameIndex::default();
    for n in raw {
        if out.len() > usize::from(u8::MAX) {
            cx.error(n.pos, format!("too many of {what} (at most 256)"), None);
            break;
        }
        if let Err(first) = names.insert(&n.id, out.len()) {
            let hint = cx.first_at(out[first].pos);
            cx.error(n.id.pos, format!("duplicate {what} '{}'", n.id.value), hint);
            continue;
        }
        out.push(Named {
            id: n.id.value.clone(),
            name: n.name.clone(),
            pos: n.pos,
        });
    }
    (out, names)
}
