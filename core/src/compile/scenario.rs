//! Scenarios: setups resolved and checked against the counter mix and the stated army
//! maxima.

use std::collections::HashMap;

use super::Ctx;
use crate::diag::Pos;
use crate::format;
use crate::ids::{BoxId, SideId, TurnId, UnitTypeId};
use crate::module::Module;
use crate::scenario::{Placement, Scenario, SideSetup};
use crate::unit::Flags;

/// Compiles the module's scenarios; those with `setup="..."` after the others.
pub(super) fn scenarios(
    cx: &mut Ctx<'_>,
    module: &Module,
    raw: &[format::Scenario],
) -> Vec<Scenario> {
    let mut out: Vec<Scenario> = Vec::new();
    // Every id seen, compiled or not, with where it was first written.
    let mut seen: HashMap<String, Pos> = HashMap::new();
    let (plain, derived): (Vec<_>, Vec<_>) = raw.iter().partition(|s| s.setup.is_none());
    for s in plain.into_iter().chain(derived) {
        if let Some(&first) = seen.get(&s.id.to_lowercase()) {
            let hint = cx.first_at(first);
            cx.error(
                s.id.pos,
                format!("duplicate scenario '{}'", s.id.value),
                hint,
            );
            continue;
        }
        seen.insert(s.id.to_lowercase(), s.id.pos);
        let base_failed = s.setup.as_ref().is_some_and(|b| {
            !b.eq_ignore_ascii_case(&s.id)
                && seen.contains_key(&b.to_lowercase())
                && !out.iter().any(|o| o.id.eq_ignore_ascii_case(b))
        });
        if base_failed {
            // The base scenario's own errors are reported; this one cannot be checked.
            continue;
        }
        if let Some(c) = compile(cx, module, s, &out) {
            out.push(c);
        }
    }
    out
}

/// Compiles one scenario read from its own file (not part of the module).
pub(crate) fn scenario(
    cx: &mut Ctx<'_>,
    module: &Module,
    raw: &format::Scenario,
    existing: &[Scenario],
) -> Option<Scenario> {
    compile(cx, module, raw, existing)
}

fn compile(
    cx: &mut Ctx<'_>,
    module: &Module,
    s: &format::Scenario,
    existing: &[Scenario],
) -> Option<Scenario> {
    let errors_before = cx.report.diagnostics.len();
    let cal = &module.calendar;
    let base = match &s.setup {
        None => None,
        Some(name) => {
            let found = existing.iter().find(|e| e.id.eq_ignore_ascii_case(name));
            if found.is_none() {
                let hint =
                    crate::suggest::did_you_mean(name, existing.iter().map(|e| e.id.as_str()));
                cx.error(name.pos, format!("unknown scenario '{}'", name.value), hint);
                return None;
            }
            if !s.side.is_empty() {
                cx.error(
                    s.side[0].pos,
                    format!(
                        "scenario '{}' takes its setup from '{}' and cannot add sides",
                        s.id.value, name.value
                    ),
                    Some("remove the <side> elements or the setup attribute".into()),
                );
            }
            found
        }
    };
    let turn = |cx: &mut Ctx<'_>, label: &format::Name| -> Option<TurnId> {
        if cal.turns.is_empty() {
            return None;
        }
        let found = cal.find(label);
        if found.is_none() {
            cx.error(
                label.pos,
                format!("unknown turn '{}'", label.value),
                cal.hint(),
            );
        }
        found
    };
    let start = match (&s.start, base) {
        (Some(label), _) => turn(cx, label).unwrap_or_default(),
        (None, Some(b)) => b.start,
        (None, None) => {
            cx.error(
                s.pos,
                format!("scenario '{}' has no start", s.id.value),
                Some("add start=\"MM/YYYY\"".into()),
            );
            TurnId::default()
        }
    };
    let end = match &s.end {
        Some(label) => turn(cx, label).unwrap_or(cal.end),
        None => cal.end,
    };
    if end < start {
        let pos = s.end.as_ref().map_or(s.pos, |e| e.pos);
        cx.error(
            pos,
            format!("scenario '{}' ends before it starts", s.id.value),
            None,
        );
    }
    let sides = match base {
        Some(b) => b.sides.clone(),
        None => setups(cx, module, &s.side),
    };
    if cx.report.diagnostics[errors_before..]
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error)
    {
        return None;
    }
    let scenario = Scenario {
        id: s.id.value.clone(),
        name: s.name.clone(),
        rule: s.rule.clone(),
        start,
        end,
        setup_from: base.map(|b| b.id.clone()),
        description: s.description.as_ref().map(|d| d.text.trim().to_string()),
        sides,
        file: cx.files.path(s.pos.file).to_path_buf(),
        pos: s.pos,
    };
    check_mix(cx, module, &scenario, s);
    check_tallies(cx, module, &scenario, s);
    Some(scenario)
}

fn setups(cx: &mut Ctx<'_>, module: &Module, raw: &[format::ScenarioSide]) -> Vec<SideSetup> {
    let mut out = vec![SideSetup::default(); module.sides.len()];
    let mut given = vec![false; module.sides.len()];
    // Placements with an id, by side: the formations members are placed in.
    let mut ids: Vec<(SideId, String, usize)> = Vec::new();
    // Which side holds each box, and where, to catch two sides in one box.
    let mut holder: Vec<Option<(SideId, Pos)>> = vec![None; module.board.boxes.len()];
    // Every control marker, with where it was written.
    let mut markers: Vec<(SideId, BoxId, Pos)> = Vec::new();
    for rs in raw {
        let Some(side) = find_side(cx, module, &rs.id) else {
            continue;
        };
        if given[side.index()] {
            cx.error(
                rs.id.pos,
                format!("side '{}' is set up twice", rs.id.value),
                None,
            );
            continue;
        }
        given[side.index()] = true;
        let setup = &mut out[side.index()];
        for t in &rs.tally {
            match module.find_tally(&t.id) {
                Some(id) => setup.stated.push((id, t.value.value)),
                None => cx.error(
                    t.id.pos,
                    format!("unknown tally '{}'", t.id.value),
                    Some(module.tally_help(&t.id)),
                ),
            }
        }
        for p in &rs.place {
            let Some(at) = find_box(cx, module, &p.at) else {
                continue;
            };
            if let Some((other, pos)) = holder[at.index()]
                && other != side
            {
                cx.error(
                    p.pos,
                    format!(
                        "'{}' holds units of both {} and {}",
                        module.board.get(at).name,
                        module.side(other).id,
                        module.side(side).id
                    ),
                    Some(format!(
                        "the other side's units are placed at {}",
                        cx.files.locate(pos)
                    )),
                );
                continue;
            }
            holder[at.index()] = Some((side, p.pos));
            let flags = p
                .flags
                .as_ref()
                .map_or(Flags::NONE, |list| flag_list(cx, module, list));
            let within = p
                .within
                .as_ref()
                .and_then(|w| formation_of(cx, module, &ids, setup, w, at));
            let attributes = p
                .attributes
                .as_ref()
                .map(|list| attribute_list(cx, module, list))
                .unwrap_or_default();
            let placed = unit_list(cx, module, &p.units);
            let pieces: u32 = placed.iter().map(|&(_, n)| u32::from(n)).sum();
            let single =
                p.id.as_ref()
                    .or(p.name.as_ref().map(|n| n as &format::Name));
            if let Some(one) = single
                && pieces != 1
            {
                cx.error(
                    one.pos,
                    format!("a placement with an id or a name places one piece, not {pieces}"),
                    Some("write units=\"1 TYPE\", one <place> per named piece".into()),
                );
            }
            for (unit, count) in placed {
                if let Some(f) = within {
                    let holder = module.units.get(setup.placements[f].unit);
                    if !holder.holds.contains(&unit) {
                        let holds: Vec<&str> = holder
                            .holds
                            .iter()
                            .map(|&t| module.units.get(t).id.as_str())
                            .collect();
                        cx.error(
                            p.pos,
                            format!(
                                "a {} cannot hold a {}",
                                holder.id,
                                module.units.get(unit).id
                            ),
                            Some(format!("a {} holds {}", holder.id, holds.join(", "))),
                        );
                        continue;
                    }
                }
                setup.placements.push(Placement {
                    at,
                    unit,
                    count,
                    flags,
                    within,
                    name: p.name.as_ref().map(|n| n.value.clone()),
                    attributes: attributes.clone(),
                });
            }
            if let Some(id) = &p.id
                && pieces == 1
                && !setup.placements.is_empty()
            {
                if ids
                    .iter()
                    .any(|(s, n, _)| *s == side && n.eq_ignore_ascii_case(id))
                {
                    cx.error(
                        id.pos,
                        format!("placement id '{}' is used twice", id.value),
                        None,
                    );
                } else {
                    ids.push((side, id.value.clone(), setup.placements.len() - 1));
                }
            }
            check_capacity(cx, module, setup, p.pos);
        }
        for mk in &rs.marker {
            let Some(at) = find_box(cx, module, &mk.at) else {
                continue;
            };
            let Some(id) = module.units.find_marker(&mk.id) else {
                let known: Vec<&str> = module.units.markers.iter().map(|m| m.id.as_str()).collect();
                cx.error(
                    mk.id.pos,
                    format!("unknown marker '{}'", mk.id.value),
                    crate::suggest::did_you_mean(&mk.id, known.iter().copied())
                        .or_else(|| Some(format!("markers are {}", known.join(", ")))),
                );
                continue;
            };
            setup.markers.push((at, id, mk.count.value));
        }
        for c in &rs.control {
            match (&c.at, &c.tag) {
                (Some(name), None) => {
                    if let Some(at) = find_box(cx, module, name) {
                        setup.control.push(at);
                        markers.push((side, at, c.pos));
                    }
                }
                (None, Some(tag)) => {
                    let tagged: Vec<BoxId> = module
                        .board
                        .box_ids()
                        .filter(|&b| module.board.get(b).has_tag(tag))
                        .collect();
                    if tagged.is_empty() {
                        let mut tags: Vec<&str> = module
                            .board
                            .boxes
                            .iter()
                            .flat_map(|b| b.tags.iter().map(String::as_str))
                            .collect();
                        tags.sort_unstable();
                        tags.dedup();
                        let hint = crate::suggest::did_you_mean(tag, tags.iter().copied());
                        cx.error(tag.pos, format!("no box has the tag '{}'", tag.value), hint);
                    }
                    markers.extend(tagged.iter().map(|&b| (side, b, c.pos)));
                    setup.control.extend(tagged);
                }
                _ => cx.error(
                    c.pos,
                    "a <control> names either box=\"...\" or tag=\"...\"",
                    Some("write one <control> per box, or one with a tag".into()),
                ),
            }
        }
        setup.pool = rs
            .pool
            .iter()
            .flat_map(|o| unit_list(cx, module, &o.units))
            .collect();
        setup.set_aside = rs
            .set_aside
            .iter()
            .flat_map(|o| unit_list(cx, module, &o.units))
            .collect();
    }
    // A control marker may not sit where the other side has units, nor twice.
    let mut marker: Vec<Option<SideId>> = vec![None; module.board.boxes.len()];
    for (side, b, pos) in markers {
        let name = &module.board.get(b).name;
        if let Some((other, _)) = holder[b.index()]
            && other != side
        {
            cx.error(
                pos,
                format!(
                    "{} has a control marker on '{name}', where {} has units",
                    module.side(side).id,
                    module.side(other).id
                ),
                Some("units control their box; remove the marker".into()),
            );
        }
        match marker[b.index()] {
            Some(other) if other != side => cx.error(
                pos,
                format!(
                    "both {} and {} have a control marker on '{name}'",
                    module.side(other).id,
                    module.side(side).id
                ),
                None,
            ),
            _ => marker[b.index()] = Some(side),
        }
    }
    out
}

fn find_side(cx: &mut Ctx<'_>, module: &Module, name: &format::Name) -> Option<SideId> {
    let found = module.find_side(name);
    if found.is_none() {
        cx.error(
            name.pos,
            format!("unknown side '{}'", name.value),
            module.side_hint(name),
        );
    }
    found
}

/// The placement `in="..."` names, if it is an earlier placement of one formation of
/// this side in the same box `at`; else a located error and `None`.
fn formation_of(
    cx: &mut Ctx<'_>,
    module: &Module,
    ids: &[(SideId, String, usize)],
    setup: &SideSetup,
    name: &format::Name,
    at: BoxId,
) -> Option<usize> {
    let Some(&(_, _, f)) = ids
        .iter()
        .find(|(_, n, f)| n.eq_ignore_ascii_case(name) && setup.placements.get(*f).is_some())
    else {
        let hint = crate::suggest::did_you_mean(name, ids.iter().map(|(_, n, _)| n.as_str()))
            .unwrap_or_else(|| {
                "give the formation's <place> an id=\"...\" and place it before its members".into()
            });
        cx.error(
            name.pos,
            format!("no formation placed with id '{}' before this", name.value),
            Some(hint),
        );
        return None;
    };
    let holder = &setup.placements[f];
    if !module.units.get(holder.unit).is_formation() {
        cx.error(
            name.pos,
            format!(
                "'{}' is a {}, which holds no pieces",
                name.value,
                module.units.get(holder.unit).id
            ),
            Some("a formation's unit type declares holds=\"...\" in units.xml".into()),
        );
        return None;
    }
    if holder.at != at {
        cx.error(
            name.pos,
            format!(
                "these pieces are placed in '{}' but their formation '{}' is in '{}'",
                module.board.get(at).name,
                name.value,
                module.board.get(holder.at).name
            ),
            Some("place a formation's members in its box".into()),
        );
        return None;
    }
    Some(f)
}

/// Reports the placement at `pos` when it takes a formation over its capacity: the
/// combatant pieces it holds at any depth.
fn check_capacity(cx: &mut Ctx<'_>, module: &Module, setup: &SideSetup, pos: Pos) {
    let held = |f: usize| -> u32 {
        // Placements refer only to earlier ones, so one pass from `f` on finds them all.
        let mut inside = vec![false; setup.placements.len()];
        inside[f] = true;
        let mut n = 0;
        for (i, p) in setup.placements.iter().enumerate().skip(f + 1) {
            if p.within.is_some_and(|w| inside[w]) {
                inside[i] = true;
                if module.units.get(p.unit).combatant {
                    n += u32::from(p.count);
                }
            }
        }
        n
    };
    let Some(last) = setup.placements.last() else {
        return;
    };
    let mut at = last.within;
    while let Some(f) = at {
        let t = module.units.get(setup.placements[f].unit);
        if let Some(cap) = t.capacity
            && held(f) > u32::from(cap)
        {
            let name = setup.placements[f]
                .name
                .clone()
                .unwrap_or_else(|| t.name.clone());
            let rule = t
                .rule
                .as_ref()
                .map(|r| format!(", {r}"))
                .unwrap_or_default();
            cx.error(
                pos,
                format!(
                    "this takes {name} over its capacity: {} combatant pieces, at most {cap} (capacity of {}{rule})",
                    held(f),
                    t.id
                ),
                Some("place the rest in another formation, or in a type with more capacity".into()),
            );
            return;
        }
        at = setup.placements[f].within;
    }
}

/// `attributes="sp=6, morale=4"`: attribute ids with values.
fn attribute_list(
    cx: &mut Ctx<'_>,
    module: &Module,
    list: &format::Name,
) -> Vec<(crate::ids::AttributeId, i64)> {
    let mut out = Vec::new();
    for (item, pos) in list.items(',') {
        let Some((name, value)) = item.split_once('=') else {
            cx.error(
                pos,
                format!("'{item}' is not attribute=value"),
                Some("write attributes=\"sp=6, morale=4\"".into()),
            );
            continue;
        };
        let Some(id) = module.units.find_attribute(name.trim()) else {
            cx.error(
                pos,
                format!("unknown attribute '{}'", name.trim()),
                crate::suggest::did_you_mean(
                    name.trim(),
                    module.units.attributes.iter().map(String::as_str),
                ),
            );
            continue;
        };
        match value.trim().parse::<i64>() {
            Ok(v) => out.push((id, v)),
            Err(_) => cx.error(
                pos,
                format!(
                    "attribute '{}' takes a whole number, not '{}'",
                    name.trim(),
                    value.trim()
                ),
                None,
            ),
        }
    }
    out
}

fn find_box(cx: &mut Ctx<'_>, module: &Module, name: &format::Name) -> Option<BoxId> {
    let found = module.board.find(name);
    if found.is_none() {
        cx.error(
            name.pos,
            format!("unknown box '{}'", name.value),
            module.board.hint(name),
        );
    }
    found
}

/// Parses a unit list such as `2 Vi, 1 Mi` (a count may be left out for one unit);
/// reports each bad item at its own position.
/// `flags="entrenched"`: flag ids separated by commas.
fn flag_list(cx: &mut Ctx<'_>, module: &Module, list: &format::Name) -> Flags {
    let mut flags = Flags::NONE;
    for (item, pos) in list.items(',') {
        match module.units.find_flag(item) {
            Some(f) => flags = flags.with(f, true),
            None => cx.error(
                pos,
                format!("unknown flag '{item}'"),
                Some(module.units.flag_help(item)),
            ),
        }
    }
    flags
}

fn unit_list(cx: &mut Ctx<'_>, module: &Module, list: &format::Name) -> Vec<(UnitTypeId, u16)> {
    let mut out = Vec::new();
    for (item, pos) in list.items(',') {
        let (count, ty) = match item.split_once(char::is_whitespace) {
            Some((n, t)) if n.chars().all(|c| c.is_ascii_digit()) => {
                (n.parse::<u16>().ok(), t.trim())
            }
            _ => (Some(1), item),
        };
        let Some(count) = count.filter(|&n| n > 0) else {
            cx.error(
                pos,
                format!("'{item}' does not start with a count from 1 to 65535"),
                Some(example(module)),
            );
            continue;
        };
        match module.units.find(ty) {
            Some(u) => out.push((u, count)),
            None => {
                let hint = module.units.hint(ty).unwrap_or_else(|| {
                    let ids: Vec<&str> = module.units.types.iter().map(|t| t.id.as_str()).collect();
                    format!("unit types are {}", ids.join(", "))
                });
                cx.error(pos, format!("unknown unit type '{ty}'"), Some(hint));
            }
        }
    }
    out
}

/// An example unit list built from the module's own unit types.
fn example(module: &Module) -> String {
    let ids: Vec<&str> = module
        .units
        .types
        .iter()
        .take(2)
        .map(|t| t.id.as_str())
        .collect();
    match ids.as_slice() {
        [a, b] => format!("write a list like units=\"2 {a}, 1 {b}\""),
        [a] => format!("write a list like units=\"2 {a}\""),
        _ => "write a list of counts and unit type ids".into(),
    }
}

/// No side may use more units of a type than the counter mix has.
fn check_mix(cx: &mut Ctx<'_>, module: &Module, scenario: &Scenario, raw: &format::Scenario) {
    for side in module.side_ids() {
        for unit in module.units.ids() {
            let used = scenario.count_units(side, unit);
            let mix = u32::from(module.units.get(unit).mix_for(side));
            if used > mix {
                let pos = side_pos(module, raw, side);
                let t = module.units.get(unit);
                cx.error(
                    pos,
                    format!(
                        "{} uses {used} {} ({}) but the counter mix has {mix}",
                        module.side(side).id,
                        t.id,
                        t.name
                    ),
                    Some("units on the board, in the pool and set aside all come from the counter mix".into()),
                );
            }
        }
    }
}

/// A stated tally (AHD's army maximum) must equal the one computed from the map and the
/// setup.
fn check_tallies(cx: &mut Ctx<'_>, module: &Module, scenario: &Scenario, raw: &format::Scenario) {
    for rs in &raw.side {
        let Some(side) = module.find_side(&rs.id) else {
            continue;
        };
        for t in &rs.tally {
            let Some(id) = module.find_tally(&t.id) else {
                continue;
            };
            let tally = module.tally(id);
            let computed = scenario.tally(module, id, side);
            if computed != t.value.value {
                let value = &module.board.values[tally.sums.index()];
                cx.error(
                    t.value.pos,
                    format!(
                        "stated {} {} of {} does not match the {computed} computed from the map and this setup",
                        tally.name,
                        t.value.value,
                        module.side(side).id
                    ),
                    Some(format!(
                        "{}'s {} over the boxes it controls at the start adds up to {computed}; fix the stated value or the setup",
                        module.side(side).id,
                        value.name.to_lowercase()
                    )),
                );
            }
        }
    }
}

fn side_pos(module: &Module, raw: &format::Scenario, side: SideId) -> Pos {
    raw.side
        .iter()
        .find(|r| module.find_side(&r.id) == Some(side))
        .map_or(raw.pos, |r| r.pos)
}
