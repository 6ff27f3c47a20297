//! Plain Rust values out of Lua: the commands that event handlers return.
//!
//! Conversion copies, so nothing a script holds can change a command afterwards, and it is
//! strict: functions, userdata, threads, cycles, mixed or sparse tables, non-UTF-8 strings
//! and very deep or very large tables are refused with a message saying where.

use std::collections::BTreeMap;
use std::ffi::c_void;

use mlua::{IntoLua, Lua, Table, Value, ffi};

use crate::engine::{stack_text, stack_whole};

/// How deep tables may nest inside one command (the command table itself is depth 1).
pub const MAX_DEPTH: usize = 16;

/// How many values all the commands of one event call may hold in total. Bounds the work
/// and memory of a conversion even when a script shares one table many times over.
pub const MAX_VALUES: usize = 100_000;

/// A value inside a command. Lua tables become `List` (keys exactly `1..=n`; an empty
/// table is an empty list) or `Map` (string keys). Whole numbers become `Int`.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptValue {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<ScriptValue>),
    Map(BTreeMap<String, ScriptValue>),
}

/// One command returned by an event handler: `{ kind = "move", unit = 3, to = 17 }`.
/// The engine validates and applies it; scripts never change engine state themselves.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptCommand {
    pub kind: String,
    /// Every other field of the table, sorted by name.
    pub fields: BTreeMap<String, ScriptValue>,
    /// `file:line` where the handler that returned it is defined, so that the engine's
    /// refusal of a command can say which script asked for it.
    pub handler: String,
}

impl ScriptCommand {
    pub fn get(&self, field: &str) -> Option<&ScriptValue> {
        self.fields.get(field)
    }
}

impl ScriptValue {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Self::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

/// Passes a value to Lua (as a new, writable table for lists and maps).
impl IntoLua for ScriptValue {
    fn into_lua(self, lua: &Lua) -> mlua::Result<Value> {
        Ok(match self {
            Self::Nil => Value::Nil,
            Self::Bool(b) => Value::Boolean(b),
            Self::Int(i) => Value::Integer(i),
            Self::Float(f) => Value::Number(f),
            Self::Str(s) => Value::String(lua.create_string(s)?),
            Self::List(items) => Value::Table(lua.create_sequence_from(items)?),
            Self::Map(map) => Value::Table(lua.create_table_from(map)?),
        })
    }
}

/// Converts what event handlers return, counting values across one event call.
pub(crate) struct Converter {
    budget: usize,
    /// Tables on the path from the returned list to the value being converted.
    ancestors: Vec<*const c_void>,
}

/// A refused value: what it is, and the keys leading to it (innermost first), collected
/// only on the way out so that converting good values formats nothing.
struct Refusal {
    what: String,
    note: &'static str,
    path: Vec<String>,
}

impl Refusal {
    fn new(what: impl Into<String>, note: &'static str) -> Self {
        Self {
            what: what.into(),
            note,
            path: Vec::new(),
        }
    }

    fn at(mut self, segment: impl FnOnce() -> String) -> Self {
        self.path.push(segment());
        self
    }

    fn message(self) -> String {
        let path: String = self.path.iter().rev().map(String::as_str).collect();
        format!("returned {} at result{path}{}", self.what, self.note)
    }
}

const KINDS_NOTE: &str = "; commands hold only nil, booleans, numbers, strings and tables";

impl Converter {
    pub fn new() -> Self {
        Self {
            budget: MAX_VALUES,
            ancestors: Vec::new(),
        }
    }

    /// A handler's return value: `nil` or a list of command tables. A plain list is read
    /// straight off the stack ([`plain_commands`]); anything else is walked value by
    /// value, which refuses it with a message saying where.
    pub fn commands(&mut self, lua: &Lua, ret: Value) -> Result<Vec<ScriptCommand>, String> {
        let list = match ret {
            Value::Nil => return Ok(Vec::new()),
            Value::Table(t) => t,
            other => {
                return Err(format!(
                    "returned {}; an event handler returns nil or a list of commands",
                    describe(&other)
                ));
            }
        };
        if let Some((commands, count)) = plain_commands(lua, &list, self.budget) {
            self.budget -= count;
            return Ok(commands);
        }
        self.walked(&list)
    }

    /// [`Converter::commands`] of a table, value by value.
    fn walked(&mut self, list: &Table) -> Result<Vec<ScriptCommand>, String> {
        if matches!(list.raw_get::<Value>("kind"), Ok(Value::String(_))) {
            return Err(
                "returned a single command; return a list of them: `return { {kind = ...} }`"
                    .to_string(),
            );
        }
        let items = match self.table(list, 0).map_err(Refusal::message)? {
            ScriptValue::List(items) => items,
            _ => {
                return Err(
                    "returned a table with named fields; return a list of commands".to_string(),
                );
            }
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| command(item, i + 1))
            .collect()
    }

    fn value(&mut self, v: Value, depth: usize) -> Result<ScriptValue, Refusal> {
        if self.budget == 0 {
            return Err(Refusal::new(
                format!("more than {MAX_VALUES} values in all"),
                "",
            ));
        }
        self.budget -= 1;
        Ok(match v {
            Value::Nil => ScriptValue::Nil,
            Value::Boolean(b) => ScriptValue::Bool(b),
            Value::Integer(i) => ScriptValue::Int(i),
            Value::Number(n) => ScriptValue::Float(n),
            Value::String(s) => match s.to_str() {
                Ok(s) => ScriptValue::Str(s.to_string()),
                Err(_) => return Err(Refusal::new("a string that is not UTF-8", "")),
            },
            Value::Table(t) => self.table(&t, depth)?,
            other => return Err(Refusal::new(describe(&other), KINDS_NOTE)),
        })
    }

    fn table(&mut self, t: &Table, depth: usize) -> Result<ScriptValue, Refusal> {
        let ptr = t.to_pointer();
        if self.ancestors.contains(&ptr) {
            return Err(Refusal::new("a cyclic table", ""));
        }
        if depth >= MAX_DEPTH {
            return Err(Refusal::new(
                format!("tables nested deeper than {MAX_DEPTH}"),
                "",
            ));
        }
        self.ancestors.push(ptr);
        let result = self.entries(t, depth);
        self.ancestors.pop();
        result
    }

    fn entries(&mut self, t: &Table, depth: usize) -> Result<ScriptValue, Refusal> {
        let mut list: Vec<(i64, ScriptValue)> = Vec::new();
        let mut map = BTreeMap::new();
        for pair in t.pairs::<Value, Value>() {
            let (k, v) =
                pair.map_err(|e| Refusal::new(format!("a table that cannot be read ({e})"), ""))?;
            match k {
                Value::Integer(i) => {
                    let v = self
                        .value(v, depth + 1)
                        .map_err(|r| r.at(|| format!("[{i}]")))?;
                    list.push((i, v));
                }
                Value::String(s) => {
                    let Ok(key) = s.to_str().map(|k| k.to_string()) else {
                        return Err(Refusal::new("a key that is not UTF-8", ""));
                    };
                    let v = self
                        .value(v, depth + 1)
                        .map_err(|r| r.at(|| format!(".{key}")))?;
                    map.insert(key, v);
                }
                other => {
                    return Err(Refusal::new(
                        format!("a table with {} as a key", describe(&other)),
                        "; keys are strings or 1..n",
                    ));
                }
            }
        }
        if !list.is_empty() && !map.is_empty() {
            return Err(Refusal::new(
                "a table mixing list items and named fields",
                "",
            ));
        }
        if map.is_empty() {
            list.sort_by_key(|(i, _)| *i);
            if list
                .iter()
                .enumerate()
                .any(|(n, (i, _))| usize::try_from(*i).ok() != Some(n + 1))
            {
                return Err(Refusal::new(
                    "a list with holes or non-positive indices",
                    "",
                ));
            }
            return Ok(ScriptValue::List(
                list.into_iter().map(|(_, v)| v).collect(),
            ));
        }
        Ok(ScriptValue::Map(map))
    }
}

/// A handler's list of commands read straight off the Lua stack, with the number of values
/// [`Converter`] would count, when it is plain: keys `1..n`, each item a table of string
/// keys (UTF-8) holding booleans, numbers and UTF-8 strings, its `kind` a string, no
/// more values than `budget`. `None` for anything else, which the [`Converter`] walks and
/// refuses word for word as before. Read through mlua's values, each key and string made
/// a reference, made and dropped: ~12,500 instructions a command (3.5% of ten random
/// games), ~2,500 so. The same values either way: a number is `Int` when mlua's would
/// be an integer.
fn plain_commands(lua: &Lua, list: &Table, budget: usize) -> Option<(Vec<ScriptCommand>, usize)> {
    let mut items: Vec<(i64, ScriptCommand)> = Vec::new();
    let mut count = 0;
    let read = lua.exec_raw_lua(|raw| {
        let l = raw.state();
        // SAFETY: five stack slots are made sure of before the pushes (the list, a key and
        // command of it, a key and value of that); the stack is left as found.
        // `lua_rawiter`, `lua_tolstring` of a string, `lua_tonumberx` and `lua_toboolean`
        // allocate nothing and raise no error outside a protected call; string bytes are
        // copied before their value is popped.
        unsafe {
            if ffi::lua_checkstack(l, 5) == 0 {
                return None;
            }
            let top = ffi::lua_gettop(l);
            let walked = raw.push(list).ok().and_then(|()| {
                let mut i = 0;
                loop {
                    i = ffi::lua_rawiter(l, -1, i);
                    if i < 0 {
                        return Some(());
                    }
                    let item = stack_whole(l, -2)
                        .filter(|_| ffi::lua_type(l, -1) == ffi::LUA_TTABLE)
                        .and_then(|n| Some((n, plain_command(l, &mut count)?)));
                    ffi::lua_settop(l, -3);
                    items.push(item?);
                    if count > budget {
                        return None;
                    }
                }
            });
            ffi::lua_settop(l, top);
            walked
        }
    });
    read?;
    items.sort_unstable_by_key(|(i, _)| *i);
    let listed = items
        .iter()
        .enumerate()
        .all(|(n, (i, _))| usize::try_from(*i).ok() == Some(n + 1));
    listed.then(|| (items.into_iter().map(|(_, c)| c).collect(), count))
}

/// The plain command table at the top of `l`'s stack (see [`plain_commands`]), counting
/// it and its values into `count`.
///
/// # Safety
/// The top of `l`'s stack is a table and two more slots are free.
unsafe fn plain_command(l: *mut ffi::lua_State, count: &mut usize) -> Option<ScriptCommand> {
    *count += 1;
    let mut kind = None;
    let mut fields = BTreeMap::new();
    let mut j = 0;
    loop {
        // SAFETY: as the caller promises; the key and value pushed are popped below.
        unsafe {
            j = ffi::lua_rawiter(l, -1, j);
            if j < 0 {
                break;
            }
            let field = stack_text(l, -2)
                .and_then(|k| std::str::from_utf8(k).ok())
                .zip(match ffi::lua_type(l, -1) {
                    ffi::LUA_TBOOLEAN => Some(ScriptValue::Bool(ffi::lua_toboolean(l, -1) != 0)),
                    ffi::LUA_TNUMBER => Some(stack_whole(l, -1).map_or_else(
                        || ScriptValue::Float(ffi::lua_tonumberx(l, -1, std::ptr::null_mut())),
                        ScriptValue::Int,
                    )),
                    ffi::LUA_TSTRING => stack_text(l, -1)
                        .and_then(|v| std::str::from_utf8(v).ok())
                        .map(|v| ScriptValue::Str(v.to_string())),
                    _ => None,
                })
                .map(|(k, v)| (k.to_string(), v));
            ffi::lua_settop(l, -3);
            let (key, value) = field?;
            *count += 1;
            if key == "kind" {
                let ScriptValue::Str(k) = value else {
                    return None;
                };
                kind = Some(k);
            } else {
                fields.insert(key, value);
            }
        }
    }
    Some(ScriptCommand {
        kind: kind?,
        fields,
        handler: String::new(),
    })
}

/// A command from one item of the returned list.
fn command(item: ScriptValue, n: usize) -> Result<ScriptCommand, String> {
    let ScriptValue::Map(mut fields) = item else {
        return Err(format!(
            "returned a command #{n} that is not a table with a `kind` field"
        ));
    };
    match fields.remove("kind") {
        Some(ScriptValue::Str(kind)) => Ok(ScriptCommand {
            kind,
            fields,
            handler: String::new(),
        }),
        Some(other) => Err(format!(
            "returned command #{n} whose `kind` is {other:?}, not a string"
        )),
        None => Err(format!("returned command #{n} without a `kind` field")),
    }
}

/// `a function`, `the boolean true`, `the number 2.5`... for messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Nil => "nil".to_string(),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let s = s.to_string_lossy();
            let short: String = s.chars().take(40).collect();
            format!("the string \"{short}\"")
        }
        Value::Table(_) => "a table".to_string(),
        Value::Function(_) => "a function".to_string(),
        Value::Thread(_) => "a coroutine".to_string(),
        Value::UserData(_) | Value::LightUserData(_) => "a userdata".to_string(),
        other => format!("a {}", other.type_name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(lua: &Lua, src: &str) -> Table {
        lua.load(format!("return {src}")).eval().expect(src)
    }

    /// A plain list is read off the stack, and as the value-by-value walk reads it, with
    /// the same count of values (`-0` and `2^63` stay numbers, as mlua makes them).
    #[test]
    fn a_plain_list_of_commands_reads_as_the_walked_one() {
        let lua = Lua::new();
        for src in [
            "{}",
            "{ { kind = 'log', text = 'a' }, { kind = 'set_var', name = 'x', value = 1 } }",
            "{ { kind = 'x', a = 1.5, b = -0, c = 2^53, d = 1e300, e = -7, f = 2^63 } }",
            "{ { kind = 'x', yes = true, no = false, s = '' } }",
            "(function() local t = {} t[3] = { kind = 'c' } t[2] = { kind = 'b' } t[1] = { kind = 'a' } return t end)()",
        ] {
            let t = table(&lua, src);
            let (fast, count) = plain_commands(&lua, &t, MAX_VALUES).expect(src);
            let mut walk = Converter::new();
            let walked = walk.walked(&t).expect(src);
            assert_eq!(format!("{fast:?}"), format!("{walked:?}"), "{src}");
            assert_eq!(count, MAX_VALUES - walk.budget, "{src}");
        }
    }

    /// Anything unusual is left to the walk, which refuses it by name.
    #[test]
    fn an_unusual_list_is_left_to_the_walk() {
        let lua = Lua::new();
        for src in [
            "{ kind = 'x' }",
            "{ { kind = 'x' }, a = 1 }",
            "{ [1] = { kind = 'x' }, [3] = { kind = 'y' } }",
            "{ [0] = { kind = 'x' } }",
            "{ [1.5] = { kind = 'x' } }",
            "{ 'x' }",
            "{ {} }",
            "{ { kind = 7 } }",
            "{ { to = 7 } }",
            "{ { kind = 'x', t = { 1 } } }",
            "{ { kind = 'x', [1] = 2 } }",
            "{ { kind = 'x', f = print } }",
            "{ { kind = 'x', s = '\\xff' } }",
            "{ { kind = '\\xff' } }",
            "{ { kind = 'x', v = vector.create(1, 2, 3) } }",
        ] {
            let t = table(&lua, src);
            assert!(plain_commands(&lua, &t, MAX_VALUES).is_none(), "{src}");
        }
        // More values than the budget left: the walk names the limit.
        let t = table(&lua, "{ { kind = 'x', a = 1 } }");
        assert_eq!(plain_commands(&lua, &t, 2).map(|(_, n)| n), None);
        assert_eq!(plain_commands(&lua, &t, 3).map(|(_, n)| n), Some(3));
    }
}
