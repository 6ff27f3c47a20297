//! The global `defs`: a module's static definitions as deep-frozen Lua tables.
//!
//! Conventions (see the crate docs): arrays are 1-based, so `defs.boxes[i]` is Rust's
//! `BoxId(i - 1)` and likewise for lines; boxes and lines, which have no string id, are
//! referred to by that number everywhere (`line.a`, `line.downstream`, `box_by_name`).
//! Definitions with a string id in the module (sides, line kinds, unit types, classes,
//! qualities, options) are referred to by that string (`box.owner == "union"`,
//! `line.kind == "rail"`, `unit.promotes_to == "Vi"`).

use mlua::{Function, IntoLua, Lua, Table, Value};
use muster_core::Module;
use muster_core::format::ReturnsTo;
use muster_core::ids::{BoxId, LineId};
use muster_core::suggest::{did_you_mean, known_like};
use muster_core::unit::Named;

use crate::stdlib::{at_caller, refuse_unknown};
use crate::value::describe;

/// The Lua number of a 0-based Rust index (`BoxId(0)` is box 1).
pub fn lua_index(index: usize) -> i64 {
    i64::try_from(index).map_or(i64::MAX, |i| i + 1)
}

/// The 0-based Rust index of a Lua number, if it is one (`1` is index 0).
pub fn rust_index(n: i64) -> Option<usize> {
    usize::try_from(n).ok()?.checked_sub(1)
}

/// `BoxId` of a Lua box number.
pub fn box_id(n: i64) -> Option<BoxId> {
    rust_index(n).and_then(BoxId::from_index)
}

/// `LineId` of a Lua line number.
pub fn line_id(n: i64) -> Option<LineId> {
    rust_index(n).and_then(LineId::from_index)
}

/// A frozen table with the given fields: `record!(lua, { "id" => 1, "name" => "x" })`.
/// Values are anything `IntoLua`; `None` leaves the field out (nil).
macro_rules! record {
    ($lua:expr, { $($key:literal => $value:expr),* $(,)? }) => {{
        let t = $lua.create_table()?;
        $( t.raw_set($key, $value)?; )*
        t.set_readonly(true);
        t
    }};
}

/// A frozen array.
fn array<T: IntoLua>(lua: &Lua, items: impl IntoIterator<Item = T>) -> mlua::Result<Table> {
    let t = lua.create_sequence_from(items)?;
    t.set_readonly(true);
    Ok(t)
}

/// A frozen map from each item's `id` field to the item.
fn by_id(lua: &Lua, items: &[Table]) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for item in items {
        t.raw_set(item.raw_get::<mlua::Value>("id")?, item)?;
    }
    t.set_readonly(true);
    Ok(t)
}

/// A frozen map from side id to a per-side value (`recruit`, `mix`), 0 where missing.
fn per_side<T: Copy + Default + IntoLua>(
    lua: &Lua,
    m: &Module,
    values: &[T],
) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for (i, side) in m.sides.iter().enumerate() {
        t.raw_set(side.id.as_str(), values.get(i).copied().unwrap_or_default())?;
    }
    t.set_readonly(true);
    Ok(t)
}

/// The tables of `defs` (besides `module`), all empty when there is no module.
const KEYS: [&str; 21] = [
    "sides",
    "seats",
    "seat_by_id",
    "side_by_id",
    "boxes",
    "box_by_name",
    "kinds",
    "kind_by_id",
    "lines",
    "units",
    "unit_by_id",
    "classes",
    "qualities",
    "markers",
    "flags",
    "tags",
    "box_values",
    "tallies",
    "options",
    "option_by_id",
    "tables",
];

/// `defs` for `module`, or with every list empty when there is none; with the strict
/// lookups, and reading a field it lacks is an error with a "did you mean".
pub(crate) fn build(lua: &Lua, module: Option<&Module>) -> mlua::Result<Table> {
    let t = match module {
        Some(m) => tables(lua, m)?,
        None => {
            let t = lua.create_table()?;
            for key in KEYS {
                t.raw_set(key, array::<bool>(lua, [])?)?;
            }
            t
        }
    };
    add_lookups(lua, &t)?;
    let tables: Table = t.raw_get("tables")?;
    t.raw_set("table", table_lookup(lua, tables)?)?;
    t.raw_set("sight", sight_levels(lua)?)?;
    let meta = lua.create_table()?;
    meta.raw_set("__index", refuse_unknown(lua, "defs", "field", &[])?)?;
    meta.raw_set("__metatable", "locked")?;
    meta.set_readonly(true);
    t.set_metatable(Some(meta))?;
    t.set_readonly(true);
    Ok(t)
}

/// The strict lookups: `defs.box(name)`, `defs.unit(id)` and `defs.side(id)` answer as
/// `box_by_name[name]`, `unit_by_id[id]` and `side_by_id[id]` do, but a name the module
/// lacks is an error at the caller's line with a suggestion, not a nil that fails (or,
/// worse, quietly does nothing) further on.
fn add_lookups(lua: &Lua, t: &Table) -> mlua::Result<()> {
    for (name, map, what) in [
        ("box", "box_by_name", "box"),
        ("unit", "unit_by_id", "unit type"),
        ("side", "side_by_id", "side"),
    ] {
        let map: Table = t.raw_get(map)?;
        t.raw_set(name, strict_lookup(lua, name, map, what)?)?;
    }
    Ok(())
}

/// `defs.<name>(key)`: `map[key]`, or an error naming `what` was not found.
fn strict_lookup(
    lua: &Lua,
    name: &'static str,
    map: Table,
    what: &'static str,
) -> mlua::Result<Function> {
    lua.create_function(move |lua, key: Value| {
        let key = match key {
            Value::String(s) => s,
            Value::Table(_) => {
                return Err(at_caller(
                    lua,
                    format!("write defs.{name}(\"...\"), not defs:{name}(\"...\")"),
                ));
            }
            other => {
                return Err(at_caller(
                    lua,
                    format!(
                        "defs.{name}: the argument must be a {what} name, got {}",
                        describe(&other)
                    ),
                ));
            }
        };
        let found: Value = map.raw_get(&key)?;
        if !found.is_nil() {
            return Ok(found);
        }
        let key = key.to_string_lossy();
        let short: String = key.chars().take(64).collect();
        let names: Vec<String> = map
            .pairs::<String, Value>()
            .filter_map(|pair| pair.ok().map(|(k, _)| k))
            .collect();
        let names = || names.iter().map(String::as_str);
        let hint = did_you_mean(&short, names())
            .or_else(|| known_like(&short, names()))
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        Err(at_caller(lua, format!("unknown {what} '{short}'{hint}")))
    })
}

/// The tables of `defs` for `module`.
fn tables(lua: &Lua, m: &Module) -> mlua::Result<Table> {
    let sides = sides(lua, m)?;
    let seats = seats(lua, m)?;
    let kinds = kinds(lua, m)?;
    let units = unit_types(lua, m)?;
    let options = options(lua, m)?;
    let t = lua.create_table()?;
    for (key, value) in [
        (
            "module",
            record!(lua, {
                "id" => m.id.as_str(),
                "name" => m.name.as_str(),
                "version" => m.version.as_str(),
            }),
        ),
        ("side_by_id", by_id(lua, &sides)?),
        ("sides", array(lua, sides)?),
        ("seat_by_id", by_id(lua, &seats)?),
        ("seats", array(lua, seats)?),
        ("boxes", array(lua, boxes(lua, m)?)?),
        ("box_by_name", box_by_name(lua, m)?),
        ("kind_by_id", by_id(lua, &kinds)?),
        ("kinds", array(lua, kinds)?),
        ("lines", array(lua, lines(lua, m)?)?),
        ("unit_by_id", by_id(lua, &units)?),
        ("units", array(lua, units)?),
        ("classes", array(lua, named(lua, &m.units.classes)?)?),
        ("qualities", array(lua, named(lua, &m.units.qualities)?)?),
        ("markers", array(lua, named(lua, &m.units.markers)?)?),
        ("flags", array(lua, named(lua, &m.units.flags)?)?),
        ("tags", array(lua, tags(lua, m)?)?),
        (
            "box_values",
            array(
                lua,
                id_names(
                    lua,
                    m.board
                        .values
                        .iter()
                        .map(|v| (v.id.as_str(), v.name.as_str())),
                )?,
            )?,
        ),
        ("tallies", array(lua, tallies(lua, m)?)?),
        ("option_by_id", by_id(lua, &options)?),
        ("options", array(lua, options)?),
        ("tables", data_tables(lua, m)?),
    ] {
        t.raw_set(key, value)?;
    }
    Ok(t)
}

/// The string id of side `i`.
fn side_id(m: &Module, i: usize) -> Option<&str> {
    m.sides.get(i).map(|s| s.id.as_str())
}

fn sides(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    m.sides
        .iter()
        .enumerate()
        .map(|(i, side)| {
            Ok(record!(lua, {
                "index" => lua_index(i),
                "id" => side.id.as_str(),
                "name" => side.name.as_str(),
                "color" => side.color.as_deref(),
            }))
        })
        .collect()
}

/// `defs.sight`: what a seat may see of a piece, as the numbers the `sees` hook takes
/// and answers (ordered: more is more).
fn sight_levels(lua: &Lua) -> mlua::Result<Table> {
    let t = record!(lua, {
        "none" => 0,
        "presence" => 1,
        "side" => 2,
        "full" => 3,
    });
    t.set_readonly(true);
    Ok(t)
}

fn seats(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    m.seats
        .iter()
        .enumerate()
        .map(|(i, seat)| {
            Ok(record!(lua, {
                "index" => lua_index(i),
                "id" => seat.id.as_str(),
                "name" => seat.name.as_str(),
                "side" => seat.side.and_then(|s| side_id(m, s.index())),
            }))
        })
        .collect()
}

fn boxes(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    let board = &m.board;
    board
        .boxes
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let adjacent = BoxId::from_index(i).map_or(&[][..], |id| board.neighbours(id));
            Ok(record!(lua, {
                "id" => lua_index(i),
                "name" => b.name.as_str(),
                "aliases" => array(lua, b.aliases.iter().map(String::as_str))?,
                "owner" => b.owner.and_then(|o| side_id(m, o.index())),
                "tags" => array(lua, b.tags.iter().map(String::as_str))?,
                "state" => b.state.as_deref(),
                "values" => box_values(lua, m, &b.values)?,
                "x" => b.x,
                "y" => b.y,
                "lines" => array(lua, adjacent.iter().map(|(_, l)| lua_index(l.index())))?,
                "neighbours" => array(lua, adjacent.iter().map(|(to, _)| lua_index(to.index())))?,
            }))
        })
        .collect()
}

/// The declared box tags: `{ id, name }`.
fn tags(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    id_names(
        lua,
        m.board
            .tags
            .iter()
            .map(|t| (t.id.as_str(), t.name.as_str())),
    )
}

/// `{ id, name }` records.
fn id_names<'a>(
    lua: &Lua,
    items: impl Iterator<Item = (&'a str, &'a str)>,
) -> mlua::Result<Vec<Table>> {
    items
        .map(|(id, name)| {
            Ok(record!(lua, {
                "id" => id,
                "name" => name,
            }))
        })
        .collect()
}

/// The tallies: `{ id, name, sums }` (`sums` a box value id).
fn tallies(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    m.tallies
        .iter()
        .map(|t| {
            Ok(record!(lua, {
                "id" => t.id.as_str(),
                "name" => t.name.as_str(),
                "sums" => m.board.values[t.sums.index()].id.as_str(),
            }))
        })
        .collect()
}

/// A box's values: `{ [value id] = { [side id] = n } }`.
fn box_values(lua: &Lua, m: &Module, values: &[Vec<u16>]) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for (def, amounts) in m.board.values.iter().zip(values) {
        t.raw_set(def.id.as_str(), per_side(lua, m, amounts)?)?;
    }
    t.set_readonly(true);
    Ok(t)
}

/// Box names and aliases, exactly as written, to box numbers.
fn box_by_name(lua: &Lua, m: &Module) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for (i, b) in m.board.boxes.iter().enumerate() {
        for name in std::iter::once(&b.name).chain(&b.aliases) {
            t.raw_set(name.as_str(), lua_index(i))?;
        }
    }
    t.set_readonly(true);
    Ok(t)
}

fn kinds(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    m.board
        .kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            Ok(record!(lua, {
                "index" => lua_index(i),
                "id" => k.id.as_str(),
                "name" => k.name.as_str(),
                "flows" => k.flows,
            }))
        })
        .collect()
}

fn lines(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    let kinds = &m.board.kinds;
    m.board
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            Ok(record!(lua, {
                "id" => lua_index(i),
                "a" => lua_index(l.a.index()),
                "b" => lua_index(l.b.index()),
                "kind" => kinds.get(l.kind.index()).map(|k| k.id.as_str()),
                "name" => l.name.as_deref(),
                "downstream" => l.downstream.map(|d| lua_index(d.index())),
                "water_border_a" => l.water_border[0],
                "water_border_b" => l.water_border[1],
            }))
        })
        .collect()
}

/// The string id of entry `i` of a list of classes or qualities.
fn id_of(list: &[Named], i: usize) -> Option<&str> {
    list.get(i).map(|n| n.id.as_str())
}

/// Unit classes or qualities.
fn named(lua: &Lua, list: &[Named]) -> mlua::Result<Vec<Table>> {
    list.iter()
        .enumerate()
        .map(|(i, n)| {
            Ok(record!(lua, {
                "index" => lua_index(i),
                "id" => n.id.as_str(),
                "name" => n.name.as_str(),
            }))
        })
        .collect()
}

fn unit_types(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    let units = &m.units;
    units
        .types
        .iter()
        .enumerate()
        .map(|(i, u)| {
            Ok(record!(lua, {
                "index" => lua_index(i),
                "id" => u.id.as_str(),
                "name" => u.name.as_str(),
                "class" => u.class.and_then(|c| id_of(&units.classes, c.index())),
                "quality" => u.quality.and_then(|q| id_of(&units.qualities, q.index())),
                "combat" => u.combat,
                "defense" => u.defense,
                "steps" => u.steps,
                "promotes_to" => u.promotes_to.and_then(|t| units.types.get(t.index())).map(|t| t.id.as_str()),
                "returns_to" => match u.returns_to {
                    ReturnsTo::Pool => "pool",
                    ReturnsTo::Stock => "stock",
                },
                "advanced" => u.advanced,
                "combatant" => u.combatant,
                "attributes" => {
                    let t = lua.create_table()?;
                    for &(a, v) in &u.attributes {
                        t.raw_set(units.attributes[a.index()].as_str(), v)?;
                    }
                    t.set_readonly(true);
                    t
                },
                "mix" => per_side(lua, m, &u.mix)?,
            }))
        })
        .collect()
}

fn options(lua: &Lua, m: &Module) -> mlua::Result<Vec<Table>> {
    m.options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            Ok(record!(lua, {
                "index" => lua_index(i),
                "id" => o.id.as_str(),
                "rule" => o.rule.as_str(),
                "title" => o.title.as_str(),
                "favours" => o.favours.and_then(|f| side_id(m, f.index())),
                "default_on" => o.default_on,
            }))
        })
        .collect()
}

/// A row key as Luau indexes it: an integer key (`"13"`) is the number 13, so
/// `rows[13]` reads it; any other key stays a string.
fn row_key(lua: &Lua, key: &str) -> mlua::Result<Value> {
    match key.parse::<i64>() {
        Ok(n) => Ok(Value::Integer(n)),
        Err(_) => key.into_lua(lua),
    }
}

/// A table's number: an integer when it is one, so `3` prints as 3 and indexes tables.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        Value::Integer(v as i64)
    } else {
        Value::Number(v)
    }
}

/// `defs.tables[id]`: `{ id, name, columns, keys, rows }`, `rows[key][column]` a number.
fn data_tables(lua: &Lua, m: &Module) -> mlua::Result<Table> {
    let out = lua.create_table()?;
    for t in &m.tables {
        let rows = lua.create_table()?;
        let mut keys = Vec::new();
        for r in &t.rows {
            let row = lua.create_table()?;
            for (c, v) in t.columns.iter().zip(&r.values) {
                row.raw_set(c.as_str(), number(*v))?;
            }
            row.set_readonly(true);
            let key = row_key(lua, &r.key)?;
            rows.raw_set(key.clone(), row)?;
            keys.push(key);
        }
        rows.set_readonly(true);
        let columns: Vec<&str> = t.columns.iter().map(String::as_str).collect();
        let record = record!(lua, {
            "id" => t.id.as_str(),
            "name" => t.name.as_deref(),
            "columns" => array(lua, columns)?,
            "keys" => array(lua, keys)?,
            "rows" => rows,
        });
        out.raw_set(t.id.as_str(), record)?;
    }
    out.set_readonly(true);
    Ok(out)
}

/// `defs.table(id, key, column)`: the number there, or an error at the caller's line
/// naming what the module's tables lack (a typo in a chart's column is a loud failure,
/// not a nil that turns into a wrong loss).
fn table_lookup(lua: &Lua, tables: Table) -> mlua::Result<Function> {
    lua.create_function(move |lua, (id, key, column): (Value, Value, Value)| {
        let (Value::String(id), Value::String(column)) = (&id, &column) else {
            return Err(at_caller(
                lua,
                "write defs.table(\"table id\", row key, \"column\")",
            ));
        };
        let id = id.to_string_lossy();
        let column = column.to_string_lossy();
        let t: Value = tables.raw_get(id.as_str())?;
        let Value::Table(t) = t else {
            let names: Vec<String> = tables
                .pairs::<String, Value>()
                .filter_map(|p| p.ok().map(|(k, _)| k))
                .collect();
            let hint = did_you_mean(&id, names.iter().map(String::as_str))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(at_caller(lua, format!("unknown table '{id}'{hint}")));
        };
        let rows: Table = t.raw_get("rows")?;
        let key = match key {
            Value::String(s) => row_key(lua, &s.to_string_lossy())?,
            Value::Number(n) if n.fract() == 0.0 => number(n),
            other => other,
        };
        let row: Value = rows.raw_get(key.clone())?;
        let Value::Table(row) = row else {
            return Err(at_caller(
                lua,
                format!("table '{id}' has no row {}", describe(&key)),
            ));
        };
        let v: Value = row.raw_get(column.as_str())?;
        if v.is_nil() {
            let columns: Vec<String> = t
                .raw_get::<Table>("columns")?
                .sequence_values::<String>()
                .filter_map(Result::ok)
                .collect();
            let hint = did_you_mean(&column, columns.iter().map(String::as_str))
                .map(|h| format!("; {h}"))
                .unwrap_or_else(|| format!("; its columns: {}", columns.join(" ")));
            return Err(at_caller(
                lua,
                format!("table '{id}' has no column '{column}'{hint}"),
            ));
        }
        Ok(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_convention() {
        assert_eq!(lua_index(0), 1);
        assert_eq!(rust_index(1), Some(0));
        assert_eq!(rust_index(0), None);
        assert_eq!(rust_index(-3), None);
        assert_eq!(box_id(2), Some(BoxId(1)));
        assert_eq!(line_id(70_000), None);
    }
}
