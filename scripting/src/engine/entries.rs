//! Entries between Luau and the engine: an offer's `form` as a handler writes it, read
//! into the engine's [`Form`]; the values a computer referee (`referee_entry`) returns,
//! read into an [`Entry`] by the form's field kinds; and both as the tables handlers get
//! back (`offer.form`, `offer.entry`). Nothing is taken unchecked: a refusal says which
//! field and why.

use mlua::{Lua, Table, Value};
use muster_core::Module;
use muster_core::game::entry::{Entry, Field, FieldKind, Form, Value as EntryValue};
use muster_core::game::{Fought, GameState, Offer};
use muster_core::ids::{SideId, UnitId};
use muster_core::suggest::did_you_mean;

use crate::defs::{box_id, lua_index, rust_index};
use crate::value::describe;

/// The keys a field of a form may have.
const FIELD_KEYS: [&str; 8] = [
    "id", "label", "pieces", "sides", "boxes", "min", "max", "choices",
];

/// An offer's `form`: a list of fields, each `{ id, label?, KIND }` where KIND is one of
/// `pieces = { [unit] = most }`, `sides = { side, ... }`, `boxes = { box, ... }`,
/// `min = n, max = m`, `choices = { label, ... }`.
pub(super) fn form(module: &Module, state: &GameState, v: &Value) -> Result<Form, String> {
    let Value::Table(list) = v else {
        return Err(format!(
            "`form` must be a list of fields, not {}",
            describe(v)
        ));
    };
    let mut out: Form = Vec::new();
    for i in 1..=list.raw_len() {
        let f = match list.raw_get::<Value>(i) {
            Ok(Value::Table(t)) => t,
            Ok(other) => {
                return Err(format!(
                    "form field #{i} is {}, not a table",
                    describe(&other)
                ));
            }
            Err(e) => return Err(e.to_string()),
        };
        let field = field(module, state, &f).map_err(|m| format!("form field #{i}: {m}"))?;
        if out.iter().any(|g| g.id == field.id) {
            return Err(format!("form field #{i}: a second field '{}'", field.id));
        }
        out.push(field);
    }
    Ok(out)
}

fn text(v: &Value, what: &str) -> Result<String, String> {
    match v {
        Value::String(s) => s
            .to_str()
            .map(|s| s.to_string())
            .map_err(|_| format!("{what} is not UTF-8")),
        other => Err(format!("{what} must be a string, not {}", describe(other))),
    }
}

fn int(v: &Value, what: &str) -> Result<i64, String> {
    match v {
        Value::Integer(n) => Ok(*n),
        Value::Number(x) if x.fract() == 0.0 && x.is_finite() => Ok(*x as i64),
        other => Err(format!(
            "{what} must be a whole number, not {}",
            describe(other)
        )),
    }
}

fn side(module: &Module, v: &Value) -> Result<SideId, String> {
    let id = text(v, "a side")?;
    module.find_side(&id).ok_or_else(|| {
        let hint = did_you_mean(&id, module.sides.iter().map(|s| s.id.as_str()))
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        format!("no side '{id}'{hint}")
    })
}

fn unit(state: &GameState, n: i64) -> Result<UnitId, String> {
    rust_index(n)
        .and_then(UnitId::from_index)
        .filter(|u| u.index() < state.units.len())
        .ok_or_else(|| format!("no unit {n}"))
}

fn boxn(module: &Module, n: i64) -> Result<muster_core::ids::BoxId, String> {
    box_id(n)
        .filter(|b| b.index() < module.board.boxes.len())
        .ok_or_else(|| format!("no box {n}"))
}

/// The items of a list table.
fn items(t: &Table) -> Result<Vec<Value>, String> {
    (1..=t.raw_len())
        .map(|i| t.raw_get::<Value>(i).map_err(|e| e.to_string()))
        .collect()
}

fn field(module: &Module, state: &GameState, t: &Table) -> Result<Field, String> {
    let mut id = None;
    let mut label = None;
    let mut kind = None;
    let (mut min, mut max) = (None, None);
    let set = |k: FieldKind, kind: &mut Option<FieldKind>| {
        if kind.is_some() {
            return Err("give one of pieces, sides, boxes, min/max or choices".to_string());
        }
        *kind = Some(k);
        Ok(())
    };
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| e.to_string())?;
        let key = match &k {
            Value::String(s) => s.to_string_lossy(),
            other => return Err(format!("fields are named, not {}", describe(other))),
        };
        match key.as_str() {
            "id" => id = Some(text(&v, "`id`")?),
            "label" => label = Some(text(&v, "`label`")?),
            "pieces" => {
                let Value::Table(p) = &v else {
                    return Err("`pieces` must be a table { [unit] = most }".into());
                };
                let mut pieces = Vec::new();
                for pair in p.pairs::<Value, Value>() {
                    let (u, most) = pair.map_err(|e| e.to_string())?;
                    let u = unit(state, int(&u, "a piece")?)?;
                    let most = int(&most, "a piece's most")?;
                    if most < 0 {
                        return Err(format!("a piece's most is {most}, below 0"));
                    }
                    pieces.push((u, most));
                }
                pieces.sort_unstable();
                set(FieldKind::Pieces(pieces), &mut kind)?;
            }
            "sides" => {
                let Value::Table(l) = &v else {
                    return Err("`sides` must be a list of side ids".into());
                };
                let sides = items(l)?
                    .iter()
                    .map(|s| side(module, s))
                    .collect::<Result<_, _>>()?;
                set(FieldKind::Side(sides), &mut kind)?;
            }
            "boxes" => {
                let Value::Table(l) = &v else {
                    return Err("`boxes` must be a list of box numbers".into());
                };
                let boxes = items(l)?
                    .iter()
                    .map(|b| boxn(module, int(b, "a box")?))
                    .collect::<Result<_, _>>()?;
                set(FieldKind::Box(boxes), &mut kind)?;
            }
            "min" => min = Some(int(&v, "`min`")?),
            "max" => max = Some(int(&v, "`max`")?),
            "choices" => {
                let Value::Table(l) = &v else {
                    return Err("`choices` must be a list of labels".into());
                };
                let labels = items(l)?
                    .iter()
                    .map(|c| text(c, "a choice"))
                    .collect::<Result<Vec<_>, _>>()?;
                if labels.is_empty() {
                    return Err("`choices` is empty".into());
                }
                set(FieldKind::Choice(labels), &mut kind)?;
            }
            other => {
                let hint = did_you_mean(other, FIELD_KEYS)
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                return Err(format!("unknown key '{other}'{hint}"));
            }
        }
    }
    match (min, max) {
        (Some(min), Some(max)) if min <= max => set(FieldKind::Number { min, max }, &mut kind)?,
        (Some(min), Some(max)) => return Err(format!("`min` {min} is above `max` {max}")),
        (None, None) => {}
        _ => return Err("a number field needs both `min` and `max`".into()),
    }
    let id = id
        .filter(|i| !i.is_empty())
        .ok_or("a field needs an `id`")?;
    let kind = kind.ok_or_else(|| {
        format!("field '{id}' needs one of pieces, sides, boxes, min/max or choices")
    })?;
    Ok(Field {
        label: label.unwrap_or_else(|| id.clone()),
        id,
        kind,
    })
}

/// The values a computer referee returns, `{ [field id] = value }`, read by each field's
/// kind: pieces `{ [unit] = n }`, a side id, a box number, a number, a choice's label.
/// Only read here: [`muster_core::game::entry::check`] then checks them against the form.
/// Public for tools that take an entry written in Luau (`muster test`'s `g:enter`).
pub fn entry(
    module: &Module,
    state: &GameState,
    form: &[Field],
    v: &Value,
) -> Result<Entry, String> {
    let Value::Table(t) = v else {
        return Err(format!(
            "returned {}; this hook returns nil or an entry {{ [field id] = value }}",
            describe(v)
        ));
    };
    let mut out = Entry::default();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| e.to_string())?;
        let key = text(&k, "a field id")?;
        let Some(field) = form.iter().find(|f| f.id == key) else {
            let hint = did_you_mean(&key, form.iter().map(|f| f.id.as_str()))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(format!("the form has no field '{key}'{hint}"));
        };
        let bad = |m: String| format!("field '{key}': {m}");
        let value = match &field.kind {
            FieldKind::Pieces(_) => {
                let Value::Table(p) = &v else {
                    return Err(bad(format!(
                        "{} is not a table {{ [unit] = n }}",
                        describe(&v)
                    )));
                };
                let mut pieces = Vec::new();
                for pair in p.pairs::<Value, Value>() {
                    let (u, n) = pair.map_err(|e| bad(e.to_string()))?;
                    let u = unit(state, int(&u, "a piece").map_err(&bad)?).map_err(&bad)?;
                    pieces.push((u, int(&n, "a number").map_err(&bad)?));
                }
                pieces.sort_unstable();
                EntryValue::Pieces(pieces)
            }
            FieldKind::Side(_) => EntryValue::Side(side(module, &v).map_err(&bad)?),
            FieldKind::Box(_) => {
                EntryValue::Box(boxn(module, int(&v, "a box").map_err(&bad)?).map_err(&bad)?)
            }
            FieldKind::Number { .. } => EntryValue::Number(int(&v, "the value").map_err(&bad)?),
            FieldKind::Choice(_) => EntryValue::Choice(text(&v, "a choice").map_err(&bad)?),
        };
        out.set(key, value);
    }
    Ok(out)
}

/// `offer.form` as handlers read it: the form as written in `offers`.
fn form_table(lua: &Lua, module: &Module, form: &[Field]) -> mlua::Result<Table> {
    let list = lua.create_table_with_capacity(form.len(), 0)?;
    for (i, f) in form.iter().enumerate() {
        let t = lua.create_table()?;
        t.raw_set("id", f.id.as_str())?;
        t.raw_set("label", f.label.as_str())?;
        match &f.kind {
            FieldKind::Pieces(pieces) => {
                let p = lua.create_table()?;
                for &(u, most) in pieces {
                    p.raw_set(lua_index(u.index()), most)?;
                }
                t.raw_set("pieces", p)?;
            }
            FieldKind::Side(sides) => {
                let ids: Vec<&str> = sides.iter().map(|&s| module.side(s).id.as_str()).collect();
                t.raw_set("sides", ids)?;
            }
            FieldKind::Box(boxes) => {
                let ns: Vec<i64> = boxes.iter().map(|b| lua_index(b.index())).collect();
                t.raw_set("boxes", ns)?;
            }
            FieldKind::Number { min, max } => {
                t.raw_set("min", *min)?;
                t.raw_set("max", *max)?;
            }
            FieldKind::Choice(labels) => t.raw_set("choices", labels.clone())?,
        }
        list.raw_set(i + 1, t)?;
    }
    Ok(list)
}

/// `offer.entry` as handlers read it: `{ [field id] = value }`, each value as a
/// referee would return it.
fn entry_table(lua: &Lua, module: &Module, entry: &Entry) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for (key, value) in &entry.0 {
        match value {
            EntryValue::Pieces(pieces) => {
                let p = lua.create_table()?;
                for &(u, n) in pieces {
                    p.raw_set(lua_index(u.index()), n)?;
                }
                t.raw_set(key.as_str(), p)?;
            }
            EntryValue::Side(s) => t.raw_set(key.as_str(), module.side(*s).id.as_str())?,
            EntryValue::Box(b) => t.raw_set(key.as_str(), lua_index(b.index()))?,
            EntryValue::Number(n) => t.raw_set(key.as_str(), *n)?,
            EntryValue::Choice(c) => t.raw_set(key.as_str(), c.as_str())?,
        }
    }
    Ok(t)
}

/// Adds `form` and `entry` to an offer's table, where the offer has them.
pub(super) fn add_to_offer(
    lua: &Lua,
    module: &Module,
    offer: &Offer,
    t: &Table,
) -> mlua::Result<()> {
    if !offer.form.is_empty() {
        t.raw_set("form", form_table(lua, module, &offer.form)?)?;
    }
    if let Some(entry) = &offer.entry {
        t.raw_set("entry", entry_table(lua, module, entry)?)?;
    }
    if offer.fight {
        t.raw_set("fight", true)?;
    }
    if let Some(f) = &offer.fought {
        t.raw_set("fought", fought_table(lua, module, f)?)?;
    }
    Ok(())
}

/// `offer.fought` as `referee_entry` reads it: `{ losses = { [unit] = steps }, holder?,
/// attacker, defender, rounds, log = { line, ... } }`; a piece that lost nothing is in
/// `losses` with 0, so the table also lists who fought.
fn fought_table(lua: &Lua, module: &Module, f: &Fought) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let losses = lua.create_table()?;
    for &(u, n) in &f.losses {
        losses.raw_set(lua_index(u.index()), n)?;
    }
    t.raw_set("losses", losses)?;
    for (key, side) in [
        ("holder", f.holder),
        ("attacker", f.attacker),
        ("defender", f.defender),
    ] {
        if let Some(s) = side {
            t.raw_set(key, module.side(s).id.as_str())?;
        }
    }
    t.raw_set("rounds", f.rounds)?;
    t.raw_set("log", f.log.clone())?;
    Ok(t)
}
