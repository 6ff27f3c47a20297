//! Compiles raw [`Parts`](crate::load::Parts) into a [`Module`]: resolves every name to
//! an integer id and checks the module, reporting every problem with its position.

mod backdrop;
mod board;
mod calendar;
mod scenario;
mod tables;
mod units;

use std::path::PathBuf;

use crate::board::Board;
use crate::diag::{LoadError, Report, SourceFiles};
use crate::format::{self, Manifest, OnOff, Sight};
use crate::ids::{ResourceId, SeatId, SideId, TallyId};
use crate::load::Parts;
use crate::module::{Module, Resource, Seat, Side, Tally};
use crate::names::NameIndex;
use crate::options::OptionalRule;

pub(crate) use crate::diag::Ctx;
pub(crate) use scenario::scenario;

impl Ctx<'_> {
    /// Resolves a side id, reporting an unknown one.
    pub fn side(&mut self, sides: &NameIndex, name: &format::Name) -> Option<SideId> {
        let found = sides.get(name).and_then(SideId::from_index);
        if found.is_none() {
            self.error(
                name.pos,
                format!("unknown side '{}'", name.value),
                sides.hint(name),
            );
        }
        found
    }
}

pub(crate) fn module(
    manifest: Manifest,
    extends: Vec<String>,
    dir: PathBuf,
    parts: Parts,
    mut files: SourceFiles,
    mut report: Report,
) -> Result<Module, LoadError> {
    let mut cx = Ctx {
        files: &mut files,
        report: &mut report,
    };
    let (sides, side_names) = sides(&mut cx, &parts.sides);
    if sides.is_empty() {
        cx.error(
            manifest.pos,
            "the module defines no sides",
            Some("include a file with a <sides> root".into()),
        );
    }
    let (seats, seat_names) = seats(&mut cx, &parts.seats, &sides, &side_names);
    let (resources, resource_names) = resources(&mut cx, &parts.resources);
    let board = board::board(&mut cx, &parts, &side_names, manifest.pos);
    let (tallies, tally_names) = tallies(&mut cx, &parts.tallies, &board);
    let units = units::units(&mut cx, &parts, &side_names, sides.len());
    let calendar = calendar::calendar(
        &mut cx,
        parts.calendar.as_ref(),
        &side_names,
        sides.len(),
        &resource_names,
        &board.value_names,
        manifest.pos,
    );
    let options = options(&mut cx, &parts.options, &side_names);
    let tables = tables::tables(&mut cx, &parts.tables);

    let mut module = Module {
        removed: Vec::new(),
        patched: Vec::new(),
        id: manifest.id,
        name: manifest.name,
        version: manifest.version,
        engine: manifest.engine.value,
        dice: manifest.dice.unwrap_or(6).max(2),
        content_hash: 0,
        description: manifest.description.map(|d| d.text.trim().to_string()),
        extends,
        stack: Vec::new(),
        dir,
        scripts: parts.scripts.clone(),
        sides,
        resources,
        tallies,
        seats,
        board,
        units,
        calendar,
        options,
        tables,
        scenarios: Vec::new(),
        warnings: Vec::new(),
        files: SourceFiles::default(),
        side_names,
        resource_names,
        tally_names,
        seat_names,
    };
    let scenarios = scenario::scenarios(&mut cx, &module, &parts.scenarios);
    module.scenarios = scenarios;
    if report.has_errors() {
        return Err(LoadError {
            diagnostics: report.diagnostics,
        });
    }
    module.warnings = report.diagnostics;
    module.files = files;
    Ok(module)
}

/// The seats: as declared, each side having at least one; one per side, named after
/// it, when none are.
fn seats(
    cx: &mut Ctx<'_>,
    raw: &[format::Seat],
    sides: &[Side],
    side_names: &NameIndex,
) -> (Vec<Seat>, NameIndex) {
    let mut seats = Vec::new();
    let mut names = NameIndex::default();
    if raw.is_empty() {
        for side in sides {
            let _ = names.insert(&side.id, seats.len());
            seats.push(Seat {
                id: side.id.clone(),
                name: side.name.clone(),
                side: SideId::from_index(seats.len()),
                enemies: Sight::Full,
                near: Sight::Full,
                range: 0,
            });
        }
        return (seats, names);
    }
    let mut positions = Vec::new();
    for s in raw {
        if SeatId::from_index(seats.len()).is_none() {
            cx.error(s.pos, "too many seats (at most 256)", None);
            break;
        }
        if let Err(first) = names.insert(&s.id, seats.len()) {
            let hint = cx.first_at(positions[first]);
            cx.error(s.id.pos, format!("duplicate seat '{}'", s.id.value), hint);
            continue;
        }
        positions.push(s.id.pos);
        let side = match &s.side {
            Some(name) => match cx.side(side_names, name) {
                Some(side) => Some(side),
                None => continue,
            },
            None => None,
        };
        let enemies = s.enemies.as_ref().map_or(Sight::Full, |e| e.value);
        seats.push(Seat {
            id: s.id.value.clone(),
            name: s.name.clone(),
            side,
            enemies,
            near: s.near.as_ref().map_or(enemies, |n| n.value),
            range: s.range.unwrap_or(0),
        });
    }
    for (i, side) in sides.iter().enumerate() {
        let id = SideId::from_index(i);
        if !seats.iter().any(|s| s.side == id) {
            cx.error(
                raw[0].pos,
                format!("no seat decides for side '{}'", side.id),
                Some(format!(
                    "add <seat id=\"{0}\" name=\"{1}\" side=\"{0}\"/>",
                    side.id, side.name
                )),
            );
        }
    }
    (seats, names)
}

fn sides(cx: &mut Ctx<'_>, raw: &[format::Side]) -> (Vec<Side>, NameIndex) {
    let mut sides = Vec::new();
    let mut positions = Vec::new();
    let mut names = NameIndex::default();
    for s in raw {
        if SideId::from_index(sides.len()).is_none() {
            cx.error(s.pos, "too many sides (at most 256)", None);
            break;
        }
        if let Err(first) = names.insert(&s.id, sides.len()) {
            let hint = cx.first_at(positions[first]);
            cx.error(s.id.pos, format!("duplicate side '{}'", s.id.value), hint);
            continue;
        }
        positions.push(s.id.pos);
        sides.push(Side {
            id: s.id.value.clone(),
            name: s.name.clone(),
            color: s.color.clone(),
        });
    }
    (sides, names)
}

fn resources(cx: &mut Ctx<'_>, raw: &[format::Resource]) -> (Vec<Resource>, NameIndex) {
    let mut out = Vec::new();
    let mut positions = Vec::new();
    let mut names = NameIndex::default();
    for r in raw {
        if ResourceId::from_index(out.len()).is_none() {
            cx.error(r.pos, "too many resources (at most 256)", None);
            break;
        }
        if let Err(first) = names.insert(&r.id, out.len()) {
            let hint = cx.first_at(positions[first]);
            cx.error(
                r.id.pos,
                format!("duplicate resource '{}'", r.id.value),
                hint,
            );
            continue;
        }
        positions.push(r.id.pos);
        out.push(Resource {
            id: r.id.value.clone(),
            name: r.name.clone(),
            expires: r.expires.unwrap_or_default(),
        });
    }
    (out, names)
}

/// The tallies (`<tally id name sums>`), each adding up a declared box value.
fn tallies(cx: &mut Ctx<'_>, raw: &[format::Tally], board: &Board) -> (Vec<Tally>, NameIndex) {
    let mut out = Vec::new();
    let mut names = NameIndex::default();
    for t in raw {
        if TallyId::from_index(out.len()).is_none() {
            cx.error(t.pos, "too many tallies (at most 256)", None);
            break;
        }
        let Some(sums) = board.find_value(&t.sums) else {
            let ids: Vec<&str> = board.values.iter().map(|v| v.id.as_str()).collect();
            let hint =
                crate::suggest::did_you_mean(&t.sums, ids.iter().copied()).unwrap_or_else(|| {
                    if ids.is_empty() {
                        "declare it in the map: <box-value id=\"...\" name=\"...\"/>".into()
                    } else {
                        format!("the box values are {}", ids.join(", "))
                    }
                });
            cx.error(
                t.sums.pos,
                format!("unknown box value '{}'", t.sums.value),
                Some(hint),
            );
            continue;
        };
        // Named only once it is sure to be pushed: a name indexes `out`.
        if names.insert(&t.id, out.len()).is_err() {
            cx.error(t.id.pos, format!("duplicate tally '{}'", t.id.value), None);
            continue;
        }
        out.push(Tally {
            id: t.id.value.clone(),
            name: t.name.clone(),
            sums,
        });
    }
    (out, names)
}

fn options(cx: &mut Ctx<'_>, raw: &[format::OptionRule], sides: &NameIndex) -> Vec<OptionalRule> {
    let mut out: Vec<OptionalRule> = Vec::new();
    let mut ids = NameIndex::default();
    let mut rules = NameIndex::default();
    for o in raw {
        if ids.insert(&o.id, out.len()).is_err() {
            let hint = out
                .iter()
                .find(|x| x.id.eq_ignore_ascii_case(&o.id))
                .and_then(|x| cx.first_at(x.pos));
            cx.error(
                o.id.pos,
                format!("duplicate optional rule '{}'", o.id.value),
                hint,
            );
            continue;
        }
        if rules.insert(&o.rule, out.len()).is_err() {
            let hint = out
                .iter()
                .find(|x| x.rule == o.rule.value)
                .and_then(|x| cx.first_at(x.pos));
            cx.error(
                o.rule.pos,
                format!("two optional rules claim rule {}", o.rule.value),
                hint,
            );
        }
        let favours = if o.balance.value == "neutral" {
            None
        } else {
            let found = sides.get(&o.balance).and_then(SideId::from_index);
            if found.is_none() {
                let hint = sides
                    .hint(&o.balance)
                    .or_else(|| Some("use a side id or 'neutral'".into()));
                cx.error(
                    o.balance.pos,
                    format!("unknown balance '{}'", o.balance.value),
                    hint,
                );
            }
            found
        };
        out.push(OptionalRule {
            id: o.id.value.clone(),
            rule: o.rule.value.clone(),
            title: o.title.clone(),
            favours,
            default_on: o.default == OnOff::On,
            description: o.description.as_ref().map(|d| d.text.trim().to_string()),
            pos: o.pos,
        });
    }
    out
}
