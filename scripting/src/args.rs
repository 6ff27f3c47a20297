//! Arguments of the `game` view's methods, checked by hand so that a bad one is reported
//! as the script wrote the call: `game:units_at(nil): argument 1 must be a box number
//! (1-129), got nil`, at the caller's `file:line`. (mlua's own conversion would say
//! `bad argument #2 to 'GameRef.units_at': error converting Lua nil to i64`, counting
//! `self`, naming the Rust type and not the script line.)

use std::fmt::Display;

use mlua::{Lua, Value};
use muster_core::Module;
use muster_core::game::GameState;
use muster_core::game::graph::Passage;
use muster_core::ids::{BoxId, SideId, UnitId};
use muster_core::suggest::did_you_mean;

use crate::defs::{box_id, rust_index};
use crate::stdlib::at_caller;

/// One call of a `game` method, kept to word its errors.
pub(crate) struct Call<'a, const N: usize> {
    lua: &'a Lua,
    method: &'static str,
    args: [Value; N],
}

/// Longest string shown in a message (a script may pass megabytes).
const SHOWN_CHARS: usize = 40;

/// A value as a script would write it: `nil`, `3`, `"union"`, `{...}`.
pub(crate) fn show(v: &Value) -> String {
    match v {
        Value::Nil => "nil".to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let s = s.to_string_lossy();
            let mut short: String = s.chars().take(SHOWN_CHARS).collect();
            if short.len() < s.len() {
                short.push_str("...");
            }
            format!("\"{short}\"")
        }
        Value::Table(_) => "{...}".to_string(),
        other => format!("<{}>", other.type_name()),
    }
}

impl<'a, const N: usize> Call<'a, N> {
    pub fn new(lua: &'a Lua, method: &'static str, args: [Value; N]) -> Self {
        Self { lua, method, args }
    }

    /// `game:enemy_in(3, nil)`, with trailing nils left out past argument `upto` (0-based).
    fn shown(&self, upto: usize) -> String {
        let last = self
            .args
            .iter()
            .rposition(|v| !v.is_nil())
            .map_or(upto, |i| i.max(upto))
            .min(N.saturating_sub(1));
        let list: Vec<String> = self.args.iter().take(last + 1).map(show).collect();
        format!("game:{}({})", self.method, list.join(", "))
    }

    /// An error at the caller's line about argument `i` (0-based).
    pub fn fail(&self, i: usize, message: impl Display) -> mlua::Error {
        at_caller(self.lua, format!("{}: {message}", self.shown(i)))
    }

    /// `argument 2 must be <expected>, got <value>`.
    fn bad(&self, i: usize, expected: &str, hint: Option<String>) -> mlua::Error {
        let hint = hint.map(|h| format!("; {h}")).unwrap_or_default();
        self.fail(
            i,
            format!(
                "argument {} must be {expected}, got {}{hint}",
                i + 1,
                show(&self.args[i])
            ),
        )
    }

    /// A whole number (Luau numbers are floats; a whole one is accepted as such).
    fn whole(&self, i: usize) -> Option<i64> {
        match &self.args[i] {
            Value::Integer(n) => Some(*n),
            #[allow(clippy::cast_possible_truncation)]
            Value::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(*x as i64),
            _ => None,
        }
    }

    /// A unit number, `1..=` the number of pieces.
    pub fn unit(&self, i: usize, state: &GameState) -> mlua::Result<UnitId> {
        let count = state.units.len();
        self.whole(i)
            .and_then(rust_index)
            .and_then(UnitId::from_index)
            .filter(|u| u.index() < count)
            .ok_or_else(|| self.bad(i, &format!("a unit number (1-{count})"), None))
    }

    /// A box number, `1..=` the number of boxes.
    pub fn boxn(&self, i: usize, module: &Module) -> mlua::Result<BoxId> {
        let count = module.board.boxes.len();
        self.whole(i)
            .and_then(box_id)
            .filter(|b| b.index() < count)
            .ok_or_else(|| self.bad(i, &format!("a box number (1-{count})"), None))
    }

    /// A string.
    pub fn text(&self, i: usize) -> mlua::Result<String> {
        match &self.args[i] {
            Value::String(s) => Ok(s.to_string_lossy()),
            _ => Err(self.bad(i, "a string", None)),
        }
    }

    /// A string or nil.
    pub fn opt_text(&self, i: usize) -> mlua::Result<Option<String>> {
        match &self.args[i] {
            Value::Nil => Ok(None),
            _ => self.text(i).map(Some),
        }
    }

    /// A side id of the module (`"union"`).
    pub fn side(&self, i: usize, module: &Module) -> mlua::Result<SideId> {
        let ids = || module.sides.iter().map(|s| s.id.as_str());
        let expected = || format!("a side id ({})", ids().collect::<Vec<_>>().join(", "));
        match &self.args[i] {
            Value::String(s) => {
                let id = s.to_string_lossy();
                module
                    .find_side(&id)
                    .ok_or_else(|| self.bad(i, &expected(), did_you_mean(&id, ids())))
            }
            _ => Err(self.bad(i, &expected(), None)),
        }
    }

    /// A list of box numbers (`{ 3, 7 }`).
    pub fn boxes(&self, i: usize, module: &Module) -> mlua::Result<Vec<BoxId>> {
        let Value::Table(t) = &self.args[i] else {
            return Err(self.bad(i, "a list of box numbers", None));
        };
        box_list(t, module).map_err(|e| self.fail(i, e))
    }

    /// A [`Passage`]: what a graph query's path may pass through, a table of the fields
    /// `lines`, `boxes`, `closed`, `controlled_by`, `uncontrolled`, `clear_for`, `max`
    /// (each optional); nil is any box, along any line.
    pub fn passage(&self, i: usize, module: &Module) -> mlua::Result<Passage> {
        let t = match &self.args[i] {
            Value::Nil => return Ok(Passage::default()),
            Value::Table(t) => t,
            _ => return Err(self.bad(i, "a table of the path's conditions, or nil", None)),
        };
        passage(t, module).map_err(|e| self.fail(i, e))
    }

    /// A name that must be one of `names` (a unit class, say), checked by `find`.
    pub fn name_in<'n, T>(
        &self,
        i: usize,
        what: &str,
        names: impl Iterator<Item = &'n str> + Clone,
        find: impl Fn(&str) -> Option<T>,
    ) -> mlua::Result<T> {
        let text = self.text(i)?;
        find(&text).ok_or_else(|| {
            let hint = did_you_mean(&text, names.clone()).unwrap_or_else(|| {
                let all: Vec<&str> = names.collect();
                format!("the module's are {}", all.join(", "))
            });
            self.bad(i, what, Some(hint))
        })
    }
}

/// The fields of a [`Passage`] table, in the order the reference gives them.
const PASSAGE_FIELDS: [&str; 7] = [
    "lines",
    "boxes",
    "closed",
    "controlled_by",
    "uncontrolled",
    "clear_for",
    "max",
];

fn box_list(t: &mlua::Table, module: &Module) -> Result<Vec<BoxId>, String> {
    let count = module.board.boxes.len();
    let mut out = Vec::new();
    for v in t.sequence_values::<Value>() {
        let v = v.map_err(|e| e.to_string())?;
        let n = match v {
            Value::Integer(n) => Some(n),
            #[allow(clippy::cast_possible_truncation)]
            Value::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(x as i64),
            _ => None,
        };
        let b = n
            .and_then(box_id)
            .filter(|b| b.index() < count)
            .ok_or_else(|| format!("{} is not a box number (1-{count})", show(&v)))?;
        out.push(b);
    }
    Ok(out)
}

fn side_field(v: &Value, field: &str, module: &Module) -> Result<SideId, String> {
    let ids = || module.sides.iter().map(|s| s.id.as_str());
    let id = match v {
        Value::String(s) => s.to_string_lossy(),
        _ => return Err(format!("{field} must be a side id, got {}", show(v))),
    };
    module.find_side(&id).ok_or_else(|| {
        let hint = did_you_mean(&id, ids())
            .unwrap_or_else(|| format!("the sides are {}", ids().collect::<Vec<_>>().join(", ")));
        format!("{field}: no side '{id}'; {hint}")
    })
}

fn passage(t: &mlua::Table, module: &Module) -> Result<Passage, String> {
    let mut p = Passage::default();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| e.to_string())?;
        let key = match &k {
            Value::String(s) => s.to_string_lossy(),
            _ => {
                return Err(format!(
                    "the path's conditions are named fields, got key {}",
                    show(&k)
                ));
            }
        };
        match key.as_str() {
            "lines" => {
                let Value::Table(kinds) = &v else {
                    return Err(format!(
                        "lines must be a list of line kind ids, got {}",
                        show(&v)
                    ));
                };
                for kind in kinds.sequence_values::<Value>() {
                    let kind = kind.map_err(|e| e.to_string())?;
                    let Value::String(s) = &kind else {
                        return Err(format!("lines: {} is not a line kind id", show(&kind)));
                    };
                    let id = s.to_string_lossy();
                    let names = || module.board.kinds.iter().map(|k| k.id.as_str());
                    let found = module.board.find_kind(&id).ok_or_else(|| {
                        let hint = did_you_mean(&id, names()).unwrap_or_else(|| {
                            format!("the map's are {}", names().collect::<Vec<_>>().join(", "))
                        });
                        format!("lines: no line kind '{id}'; {hint}")
                    })?;
                    p.kinds.push(found);
                }
            }
            "boxes" | "closed" => {
                let Value::Table(list) = &v else {
                    return Err(format!(
                        "{key} must be a list of box numbers, got {}",
                        show(&v)
                    ));
                };
                let list = box_list(list, module).map_err(|e| format!("{key}: {e}"))?;
                if key == "boxes" {
                    let mut allowed = vec![false; module.board.boxes.len()];
                    for b in list {
                        allowed[b.index()] = true;
                    }
                    p.boxes = Some(allowed);
                } else {
                    p.closed = list;
                }
            }
            "controlled_by" => p.controlled_by = Some(side_field(&v, &key, module)?),
            "clear_for" => p.clear_for = Some(side_field(&v, &key, module)?),
            "uncontrolled" => match v {
                Value::Boolean(b) => p.uncontrolled = b,
                _ => return Err(format!("uncontrolled must be a boolean, got {}", show(&v))),
            },
            "max" => {
                let n = match v {
                    Value::Integer(n) => Some(n),
                    #[allow(clippy::cast_possible_truncation)]
                    Value::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(x as i64),
                    _ => None,
                };
                p.max = Some(n.and_then(|n| u16::try_from(n).ok()).ok_or_else(|| {
                    format!("max must be a whole number 0 or more, got {}", show(&v))
                })?);
            }
            other => {
                let hint = did_you_mean(other, PASSAGE_FIELDS)
                    .unwrap_or_else(|| format!("the fields are {}", PASSAGE_FIELDS.join(", ")));
                return Err(format!("no condition '{other}'; {hint}"));
            }
        }
    }
    Ok(p)
}
