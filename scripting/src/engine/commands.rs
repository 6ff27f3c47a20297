//! What handlers return, checked and turned into the engine's values: an event's
//! commands, the `offers` hook's offers and `victory_progress`'s items. Nothing a script
//! returns reaches the engine unchecked; a refusal names the handler that returned the
//! value (for commands), the field and the value given.

use std::ffi::c_int;

use mlua::{Lua, Table, Value, ffi};
use muster_core::Module;
use muster_core::game::rules::{Loss, Progress, Threat};
use muster_core::game::{Command as CoreCommand, GameState, Offer, Place, RuleError};
use muster_core::ids::{SideId, UnitId};
use muster_core::suggest::did_you_mean;

use crate::defs::{box_id, rust_index};
use crate::{ScriptCommand, ScriptValue};

/// One item of `victory_progress`: `{ side, goal, have, need }`.
pub(super) fn progress(module: &Module, t: &Table) -> Result<Progress, String> {
    let text = |key: &str| match t.raw_get::<Value>(key) {
        Ok(Value::String(s)) => s
            .to_str()
            .map(|s| s.to_string())
            .map_err(|_| format!("`{key}` is not UTF-8")),
        _ => Err(format!("`{key}` must be a string")),
    };
    let number = |key: &str| match t.raw_get::<Value>(key) {
        Ok(Value::Integer(n)) => Ok(n as f64),
        Ok(Value::Number(n)) if n.is_finite() => Ok(n),
        _ => Err(format!("`{key}` must be a number")),
    };
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair.map_err(|e| e.to_string())?;
        let known = matches!(&k, Value::String(s) if matches!(s.as_bytes().as_ref(), b"side" | b"goal" | b"have" | b"need"));
        if !known {
            return Err(format!(
                "unknown field {}: an item is {{ side, goal, have, need }}",
                crate::value::describe(&k)
            ));
        }
    }
    let side_id = text("side")?;
    let side = module.find_side(&side_id).ok_or_else(|| {
        format!(
            "no side '{side_id}'{}",
            did_you_mean(&side_id, module.sides.iter().map(|s| s.id.as_str()))
                .map_or_else(String::new, |h| format!("; {h}"))
        )
    })?;
    Ok(Progress {
        side,
        goal: text("goal")?,
        have: number("have")?,
        need: number("need")?,
    })
}

/// One item of `victory_threats`: `{ side, text, boxes }`, `boxes` a list of box numbers
/// of the board.
pub(super) fn threat(module: &Module, t: &Table) -> Result<Threat, String> {
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair.map_err(|e| e.to_string())?;
        let known = matches!(&k, Value::String(s) if matches!(s.as_bytes().as_ref(), b"side" | b"text" | b"boxes"));
        if !known {
            return Err(format!(
                "unknown field {}: an item is {{ side, text, boxes }}",
                crate::value::describe(&k)
            ));
        }
    }
    let side_id = match t.raw_get::<Value>("side") {
        Ok(Value::String(s)) => s.to_string_lossy(),
        _ => return Err("`side` must be a side id".into()),
    };
    let side = module.find_side(&side_id).ok_or_else(|| {
        format!(
            "no side '{side_id}'{}",
            did_you_mean(&side_id, module.sides.iter().map(|s| s.id.as_str()))
                .map_or_else(String::new, |h| format!("; {h}"))
        )
    })?;
    let text = match t.raw_get::<Value>("text") {
        Ok(Value::String(s)) => s.to_string_lossy(),
        _ => return Err("`text` must be a string".into()),
    };
    let boxes = match t.raw_get::<Value>("boxes") {
        Ok(Value::Nil) => Vec::new(),
        Ok(Value::Table(list)) => {
            let mut out = Vec::new();
            for v in list.sequence_values::<Value>() {
                let b = match v.map_err(|e| e.to_string())? {
                    Value::Integer(n) => box_id(n)
                        .filter(|b| b.index() < module.board.boxes.len())
                        .ok_or_else(|| format!("`boxes`: {n} is not a box of the board"))?,
                    other => {
                        return Err(format!(
                            "`boxes` holds {}, not a box number",
                            crate::value::describe(&other)
                        ));
                    }
                };
                out.push(b);
            }
            out
        }
        _ => return Err("`boxes` must be a list of box numbers".into()),
    };
    Ok(Threat { side, text, boxes })
}

/// A loss from a `battle_losses` item `{ side, steps, unit?, rule? }`.
pub(super) fn loss(module: &Module, units: usize, t: &Table) -> Result<Loss, String> {
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair.map_err(|e| e.to_string())?;
        let known = matches!(&k, Value::String(s) if matches!(s.as_bytes().as_ref(), b"side" | b"steps" | b"unit" | b"rule"));
        if !known {
            return Err(format!(
                "unknown field {}: an item is {{ side, steps, unit?, rule? }}",
                crate::value::describe(&k)
            ));
        }
    }
    let side_id = match t.raw_get::<Value>("side") {
        Ok(Value::String(s)) => s.to_string_lossy(),
        _ => return Err("`side` must be a side id".into()),
    };
    let side = module.find_side(&side_id).ok_or_else(|| {
        format!(
            "no side '{side_id}'{}",
            did_you_mean(&side_id, module.sides.iter().map(|s| s.id.as_str()))
                .map_or_else(String::new, |h| format!("; {h}"))
        )
    })?;
    let steps = match t.raw_get::<Value>("steps") {
        Ok(Value::Integer(n)) if (0..=i64::from(u16::MAX)).contains(&n) => n as u32,
        Ok(Value::Number(n)) if n.fract() == 0.0 && (0.0..=f64::from(u16::MAX)).contains(&n) => {
            n as u32
        }
        _ => return Err("`steps` must be a whole number, 0 or more".into()),
    };
    let unit = match t.raw_get::<Value>("unit") {
        Ok(Value::Nil) => None,
        Ok(Value::Integer(n)) => Some(
            crate::defs::rust_index(n)
                .filter(|&i| i < units)
                .and_then(UnitId::from_index)
                .ok_or_else(|| format!("`unit` {n} is not a piece of the game"))?,
        ),
        _ => return Err("`unit` must be a piece number".into()),
    };
    let rule = match t.raw_get::<Value>("rule") {
        Ok(Value::Nil) => String::new(),
        Ok(Value::String(s)) => s.to_string_lossy(),
        _ => return Err("`rule` must be a string".into()),
    };
    Ok(Loss {
        side,
        unit,
        steps,
        rule,
    })
}

/// An offer's table read straight off the Lua stack, when it is plain: string keys,
/// `id`, `label` and `seat` strings, `unit` and `box` whole numbers in range, `fight` a
/// boolean, `cost` a table of resources to whole numbers 0 or more, no `form` and no
/// `refused`. `None`
/// for anything else, which [`offer`] reads field by field and refuses by name. AHD
/// lists a few dozen offers at every decision (moves by sea, each a table): read
/// through mlua's values, each field cost a reference made and dropped and the
/// field's name a protected call, ~14,000 instructions an offer, a tenth of a random
/// game. The same walk (`lua_rawiter`) as mlua's pairs, so costs come in the same
/// order, sorted as [`offer`] sorts them: the same offer either way.
pub(super) fn plain_offer(
    lua: &Lua,
    module: &Module,
    state: &GameState,
    t: &Table,
) -> Option<Offer> {
    let read = lua.exec_raw_lua(|raw| {
        let l = raw.state();
        // SAFETY: six stack slots are made sure of before the pushes (the table, a
        // key and value of it, and of its `cost`); the stack is left as found.
        unsafe {
            if ffi::lua_checkstack(l, 6) == 0 {
                return None;
            }
            let top = ffi::lua_gettop(l);
            let walked = raw.push(t).ok().and_then(|()| raw_offer(l));
            ffi::lua_settop(l, top);
            walked
        }
    });
    read?.checked(module, state)
}

/// The leading plain offers (as [`plain_offer`] reads one) of a handler's list of `n`
/// items, read in one pass over the list, pushed to `out`; answers how many. The first
/// item that is not one, and those after it, are left to be read one by one (and
/// refused by name). Read one by one, each item cost a value made and dropped and an
/// entry into the Lua state, about a quarter of reading it.
pub(super) fn plain_offers(
    lua: &Lua,
    module: &Module,
    state: &GameState,
    list: &Table,
    n: usize,
    out: &mut Vec<Offer>,
) -> usize {
    let mut raws = Vec::with_capacity(n);
    lua.exec_raw_lua(|raw| {
        let l = raw.state();
        // SAFETY: seven stack slots are made sure of before the pushes (the list, an
        // item, and what `raw_offer` pushes); the stack is left as found. `lua_rawgeti`
        // allocates nothing and raises no error.
        unsafe {
            if ffi::lua_checkstack(l, 7) == 0 {
                return;
            }
            let top = ffi::lua_gettop(l);
            if raw.push(list).is_ok() {
                for i in 1..=n {
                    let Ok(i) = ffi::lua_Integer::try_from(i) else {
                        break;
                    };
                    let item = (ffi::lua_rawgeti(l, -1, i) == ffi::LUA_TTABLE)
                        .then(|| raw_offer(l))
                        .flatten();
                    ffi::lua_settop(l, -2);
                    let Some(item) = item else { break };
                    raws.push(item);
                }
            }
            ffi::lua_settop(l, top);
        }
    });
    let before = out.len();
    for raw in raws {
        let Some(o) = raw.checked(module, state) else {
            break;
        };
        out.push(o);
    }
    out.len() - before
}

/// An offer's fields as copied off the stack, not yet checked against the module.
#[derive(Default)]
struct RawOffer {
    id: Option<Vec<u8>>,
    label: Option<Vec<u8>>,
    unit: Option<i64>,
    at: Option<i64>,
    seat: Option<Vec<u8>>,
    fight: bool,
    cost: Vec<(Vec<u8>, i64)>,
}

/// The fields of the table at the top of `l`'s stack, if it is a plain offer's; the
/// stack is left as found.
///
/// # Safety
/// The top of `l`'s stack is a table, with room for four more values. `lua_rawiter` and
/// `lua_tolstring` of a string, `lua_tonumberx` and `lua_toboolean` allocate nothing and
/// raise no error outside a protected call; string bytes are copied before their value
/// is popped.
unsafe fn raw_offer(l: *mut ffi::lua_State) -> Option<RawOffer> {
    let mut o = RawOffer::default();
    // SAFETY: as the caller promises.
    unsafe {
        let mut i = 0;
        loop {
            i = ffi::lua_rawiter(l, -1, i);
            if i < 0 {
                return Some(o);
            }
            let key = text(l, -2)?;
            let ok = match key {
                b"id" => text(l, -1).map(|v| o.id = Some(v.to_vec())),
                b"label" => text(l, -1).map(|v| o.label = Some(v.to_vec())),
                b"seat" => text(l, -1).map(|v| o.seat = Some(v.to_vec())),
                b"unit" => whole(l, -1).map(|n| o.unit = Some(n)),
                b"box" => whole(l, -1).map(|n| o.at = Some(n)),
                b"fight" => (ffi::lua_type(l, -1) == ffi::LUA_TBOOLEAN)
                    .then(|| o.fight = ffi::lua_toboolean(l, -1) != 0),
                b"cost" if ffi::lua_type(l, -1) == ffi::LUA_TTABLE => {
                    let mut j = 0;
                    loop {
                        j = ffi::lua_rawiter(l, -1, j);
                        if j < 0 {
                            break Some(());
                        }
                        let pair = text(l, -2).map(<[u8]>::to_vec).zip(whole(l, -1));
                        ffi::lua_settop(l, -3);
                        let Some(pair) = pair else { break None };
                        o.cost.push(pair);
                    }
                }
                _ => None,
            };
            ffi::lua_settop(l, -3);
            ok?;
        }
    }
}

impl RawOffer {
    /// The offer, if every field names what the module and the state have.
    fn checked(self, module: &Module, state: &GameState) -> Option<Offer> {
        let id = String::from_utf8(self.id?).ok().filter(|s| !s.is_empty())?;
        let label = match self.label {
            Some(l) => String::from_utf8(l).ok()?,
            None => id.clone(),
        };
        let unit = match self.unit {
            Some(n) => Some(
                rust_index(n)
                    .and_then(UnitId::from_index)
                    .filter(|u| u.index() < state.units.len())?,
            ),
            None => None,
        };
        let at = match self.at {
            Some(n) => Some(box_id(n).filter(|b| b.index() < module.board.boxes.len())?),
            None => None,
        };
        let seat = match self.seat {
            Some(s) => Some(module.find_seat(&String::from_utf8_lossy(&s))?),
            None => None,
        };
        let mut cost = self
            .cost
            .into_iter()
            .map(|(name, n)| {
                let r = module.find_resource(&String::from_utf8_lossy(&name))?;
                (n >= 0).then_some((r, n))
            })
            .collect::<Option<Vec<_>>>()?;
        cost.sort_unstable();
        Some(Offer {
            label,
            id,
            unit,
            at,
            cost,
            seat,
            form: Vec::new(),
            entry: None,
            fight: self.fight,
            fought: None,
            refused: None,
        })
    }
}

/// The bytes of the string at `idx`, if it is one (a number is not converted).
///
/// # Safety
/// `idx` is a valid index of `l`'s stack; the bytes live while the value stays there.
pub(crate) unsafe fn text<'a>(l: *mut ffi::lua_State, idx: c_int) -> Option<&'a [u8]> {
    // SAFETY: as the caller promises; `lua_tolstring` of a string only reads it.
    unsafe {
        if ffi::lua_type(l, idx) != ffi::LUA_TSTRING {
            return None;
        }
        let mut len = 0;
        let p = ffi::lua_tolstring(l, idx, &mut len);
        (!p.is_null()).then(|| std::slice::from_raw_parts(p.cast::<u8>(), len))
    }
}

/// The whole number at `idx`, as mlua reads one into an integer (a number with no
/// fraction, in range), if it is one.
///
/// # Safety
/// `idx` is a valid index of `l`'s stack.
pub(crate) unsafe fn whole(l: *mut ffi::lua_State, idx: c_int) -> Option<i64> {
    // SAFETY: as the caller promises; reading a number allocates nothing.
    unsafe {
        if ffi::lua_type(l, idx) != ffi::LUA_TNUMBER {
            return None;
        }
        let n = ffi::lua_tonumberx(l, idx, std::ptr::null_mut());
        // In range, then the same bits back (so not -0.0), as mlua's conversion.
        let i = n as i64;
        ((-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&n)
            && n.to_bits() == (i as f64).to_bits())
        .then_some(i)
    }
}

/// An offer from a script's table `{ id, label, unit?, box?, cost?, seat?, form?, fight?,
/// refused? }`, checked, read straight from Lua (offers are listed at every decision, so
/// no copy is made first).
pub(super) fn offer(module: &Module, state: &GameState, t: &Table) -> Result<Offer, String> {
    let id = match t.raw_get::<Value>("id") {
        Ok(Value::String(s)) if !s.as_bytes().is_empty() => s
            .to_str()
            .map(|s| s.to_string())
            .map_err(|_| "an offer's `id` is not UTF-8".to_string())?,
        _ => return Err("an offer needs an `id` string".into()),
    };
    let bad = |m: String| format!("offer '{id}': {m}");
    let mut label = None;
    let mut unit = None;
    let mut at = None;
    let mut seat = None;
    let mut form = Vec::new();
    let mut fight = false;
    let mut refused = None;
    let mut cost = Vec::new();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| bad(e.to_string()))?;
        let Value::String(key) = &k else {
            return Err(bad(
                "fields are named: { id = ..., label = ..., ... }".into()
            ));
        };
        match key.as_bytes().as_ref() {
            b"id" => {}
            b"label" => match v {
                Value::String(s) => {
                    label = Some(
                        s.to_str()
                            .map_err(|_| bad("label is not UTF-8".into()))?
                            .to_string(),
                    )
                }
                Value::Nil => {}
                _ => return Err(bad("`label` must be a string".into())),
            },
            b"unit" => match v {
                Value::Integer(n) => {
                    unit = Some(
                        rust_index(n)
                            .and_then(UnitId::from_index)
                            .filter(|u| u.index() < state.units.len())
                            .ok_or_else(|| bad(format!("no unit {n}")))?,
                    )
                }
                Value::Nil => {}
                _ => return Err(bad("`unit` must be a unit number".into())),
            },
            b"box" => match v {
                Value::Integer(n) => {
                    at = Some(
                        box_id(n)
                            .filter(|b| b.index() < module.board.boxes.len())
                            .ok_or_else(|| bad(format!("no box {n}")))?,
                    )
                }
                Value::Nil => {}
                _ => return Err(bad("`box` must be a box number".into())),
            },
            b"seat" => match v {
                Value::String(s) => {
                    let id = s.to_string_lossy();
                    seat = Some(module.find_seat(&id).ok_or_else(|| {
                        bad(format!("no seat '{id}'; {}", module.seat_hint(&id)))
                    })?);
                }
                Value::Nil => {}
                _ => return Err(bad("`seat` must be a seat id".into())),
            },
            b"form" => match v {
                Value::Nil => {}
                v => form = super::entries::form(module, state, &v).map_err(bad)?,
            },
            b"fight" => match v {
                Value::Boolean(b) => fight = b,
                Value::Nil => {}
                _ => return Err(bad("`fight` must be true or false".into())),
            },
            b"refused" => match v {
                Value::String(s) => refused = Some(s.to_string_lossy()),
                Value::Nil => {}
                _ => return Err(bad("`refused` must be a string (the reason)".into())),
            },
            b"cost" => match v {
                Value::Table(c) => {
                    for pair in c.pairs::<Value, Value>() {
                        let (name, n) = pair.map_err(|e| bad(e.to_string()))?;
                        let name = match &name {
                            Value::String(s) => s.to_string_lossy(),
                            _ => {
                                return Err(bad(
                                    "`cost` must be a table like { marches = 1 }".into()
                                ));
                            }
                        };
                        let r = module.find_resource(&name).ok_or_else(|| {
                            let hint = module
                                .resource_hint(&name)
                                .unwrap_or_else(|| "the module declares no such <resource>".into());
                            bad(format!("no resource '{name}'; {hint}"))
                        })?;
                        match n {
                            Value::Integer(n) if n >= 0 => cost.push((r, n)),
                            other => {
                                return Err(bad(format!(
                                    "the cost in '{name}' must be a whole number 0 or more, not {}",
                                    crate::value::describe(&other)
                                )));
                            }
                        }
                    }
                }
                Value::Nil => {}
                _ => return Err(bad("`cost` must be a table like { marches = 1 }".into())),
            },
            _ => {
                let extra = key.to_string_lossy();
                let hint = muster_core::suggest::did_you_mean(
                    &extra,
                    [
                        "id", "label", "unit", "box", "cost", "seat", "form", "fight", "refused",
                    ],
                )
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
                return Err(bad(format!("unknown field '{extra}'{hint}")));
            }
        }
    }
    // Pairs come in no set order: costs are kept in resource order, so an offer is the
    // same whatever the table's layout.
    cost.sort_unstable();
    Ok(Offer {
        label: label.unwrap_or_else(|| id.clone()),
        id,
        unit,
        at,
        cost,
        seat,
        form,
        entry: None,
        fight,
        fought: None,
        refused,
    })
}

/// A command field's value as the script wrote it, for messages.
fn show_field(v: &ScriptValue) -> String {
    match v {
        ScriptValue::Nil => "nil".to_string(),
        ScriptValue::Bool(b) => b.to_string(),
        ScriptValue::Int(i) => i.to_string(),
        ScriptValue::Float(x) => x.to_string(),
        ScriptValue::Str(s) => {
            let short: String = s.chars().take(40).collect();
            let more = if short.len() < s.len() { "..." } else { "" };
            format!("\"{short}{more}\"")
        }
        ScriptValue::List(_) | ScriptValue::Map(_) => "{...}".to_string(),
    }
}

/// `got "Washington"`, or for a missing field `got nothing`, with the field the script
/// may have meant it as (`{ kind = "set_control", bx = 3 }`: is 'bx' a misspelling?).
fn got(c: &ScriptCommand, field: &str) -> String {
    match c.get(field) {
        Some(v) => format!("got {}", show_field(v)),
        None => match muster_core::suggest::closest(field, c.fields.keys().map(String::as_str)) {
            Some(near) => format!("got nothing; is '{near}' a misspelling of '{field}'?"),
            None => "got nothing".to_string(),
        },
    }
}

/// Turns a script's command table into an engine command, checking every field. A
/// refusal names the handler that returned it (`file:line` where it is defined), the
/// command, the field and the value given.
pub(super) fn command(
    module: &Module,
    state: &GameState,
    hook: &str,
    c: ScriptCommand,
) -> Result<CoreCommand, RuleError> {
    let fail = |message: String| RuleError {
        hook: hook.into(),
        message: format!("handler at {}: {message}", c.handler),
    };
    let bad = |message: String| fail(format!("command '{}': {message}", c.kind));
    let int = |field: &str| {
        c.get(field).and_then(ScriptValue::as_int).ok_or_else(|| {
            bad(format!(
                "needs a whole number '{field}', {}",
                got(&c, field)
            ))
        })
    };
    let text = |field: &str| {
        c.get(field)
            .and_then(ScriptValue::as_str)
            .map(str::to_string)
            .ok_or_else(|| bad(format!("needs a string '{field}', {}", got(&c, field))))
    };
    let side = |field: &str| -> Result<Option<SideId>, RuleError> {
        match c.get(field) {
            None | Some(ScriptValue::Nil) => Ok(None),
            Some(v) => v
                .as_str()
                .and_then(|id| module.find_side(id))
                .map(Some)
                .ok_or_else(|| {
                    let ids: Vec<&str> = module.sides.iter().map(|s| s.id.as_str()).collect();
                    let hint = v
                        .as_str()
                        .and_then(|id| module.side_hint(id))
                        .map(|h| format!("; {h}"))
                        .unwrap_or_default();
                    bad(format!(
                        "'{field}' must be a side id ({}) or nil, {}{hint}",
                        ids.join(", "),
                        got(&c, field)
                    ))
                }),
        }
    };
    let unit = |field: &str| {
        let n = int(field)?;
        let count = state.units.len();
        rust_index(n)
            .and_then(UnitId::from_index)
            .filter(|u| u.index() < count)
            .ok_or_else(|| {
                bad(format!(
                    "'{field}' must be a unit number (1-{count}), got {n}"
                ))
            })
    };
    let boxn = |field: &str| {
        let n = int(field)?;
        let count = module.board.boxes.len();
        box_id(n).filter(|b| b.index() < count).ok_or_else(|| {
            bad(format!(
                "'{field}' must be a box number (1-{count}), got {n}"
            ))
        })
    };
    let unit_type = |field: &str| {
        let id = text(field)?;
        module.units.find(&id).ok_or_else(|| {
            let hint = module
                .units
                .hint(&id)
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            bad(format!("no unit type '{id}'{hint}"))
        })
    };
    let place = |field: &str| match text(field)?.as_str() {
        "pool" => Ok(Place::Pool),
        "stock" => Ok(Place::Stock),
        "set_aside" => Ok(Place::SetAside),
        other => Err(bad(format!(
            "'{field}' must be pool, stock or set_aside, not '{other}'"
        ))),
    };
    let boolean = |field: &str, default: bool| match c.get(field) {
        None | Some(ScriptValue::Nil) => Ok(default),
        Some(v) => v.as_bool().ok_or_else(|| {
            bad(format!(
                "'{field}' must be true or false, {}",
                got(&c, field)
            ))
        }),
    };
    Ok(match c.kind.as_str() {
        "set_resource" | "add_resource" => {
            let id = text("resource")?;
            let resource = module.find_resource(&id).ok_or_else(|| {
                let hint = module
                    .resource_hint(&id)
                    .unwrap_or_else(|| "the module declares no such <resource>".into());
                bad(format!("no resource '{id}'; {hint}"))
            })?;
            // The side defaults to the one whose turn it is.
            let side = side("side")?.unwrap_or_else(|| state.active_side(module));
            if c.kind == "set_resource" {
                CoreCommand::SetResource {
                    side,
                    resource,
                    value: int("value")?,
                }
            } else {
                CoreCommand::AddResource {
                    side,
                    resource,
                    amount: int("amount")?,
                }
            }
        }
        "set_var" => CoreCommand::SetVar {
            name: text("name")?,
            value: int("value")?,
        },
        "set_control" => {
            let at = boxn("box")?;
            CoreCommand::SetControl {
                at,
                side: side("side")?,
                marker: boolean("marker", false)?,
            }
        }
        "transfer" => {
            let kind = unit_type("unit")?;
            let side = side("side")?.ok_or_else(|| bad("needs a side".into()))?;
            let count = int("count")?;
            CoreCommand::Transfer {
                side,
                kind,
                count: u16::try_from(count).map_err(|_| bad(format!("bad count {count}")))?,
                from: place("from")?,
                to: place("to")?,
            }
        }
        "set_flag" => {
            let name = text("flag")?;
            let flag = module.units.find_flag(&name).ok_or_else(|| {
                bad(format!(
                    "no flag '{name}'; {}",
                    module.units.flag_help(&name)
                ))
            })?;
            CoreCommand::SetFlag {
                unit: unit("unit")?,
                flag,
                on: boolean("on", true)?,
            }
        }
        "set_hits" => {
            let hits = int("hits")?;
            CoreCommand::SetHits {
                unit: unit("unit")?,
                hits: u8::try_from(hits).map_err(|_| bad(format!("bad hits {hits}")))?,
            }
        }
        "move_piece" => {
            let to = boxn("box")?;
            CoreCommand::MovePiece {
                unit: unit("unit")?,
                to,
            }
        }
        "use_piece" => {
            let moves = int("moves")?;
            CoreCommand::UsePiece {
                unit: unit("unit")?,
                moves: u8::try_from(moves).map_err(|_| bad(format!("bad moves {moves}")))?,
            }
        }
        "place_piece" => {
            let kind = unit_type("unit")?;
            let at = boxn("box")?;
            CoreCommand::PlacePiece {
                side: side("side")?.unwrap_or_else(|| state.active_side(module)),
                kind,
                at,
                from: match c.get("from") {
                    None | Some(ScriptValue::Nil) => Place::Pool,
                    _ => place("from")?,
                },
            }
        }
        "remove_piece" => {
            let unit = unit("unit")?;
            let to = match c.get("to") {
                None | Some(ScriptValue::Nil) => {
                    match module.units.get(state.units[unit.index()].kind).returns_to {
                        muster_core::format::ReturnsTo::Pool => Place::Pool,
                        muster_core::format::ReturnsTo::Stock => Place::Stock,
                    }
                }
                _ => place("to")?,
            };
            CoreCommand::RemovePiece { unit, to }
        }
        "set_attribute" => {
            let name = text("attribute")?;
            let attribute = module.units.find_attribute(&name).ok_or_else(|| {
                let hint = module
                    .units
                    .attribute_hint(&name)
                    .unwrap_or_else(|| "no unit type declares such an <attribute>".into());
                bad(format!("no attribute '{name}'; {hint}"))
            })?;
            CoreCommand::SetAttribute {
                unit: unit("unit")?,
                attribute,
                value: int("value")?,
            }
        }
        "add_markers" | "remove_markers" => {
            let name = text("marker")?;
            let marker = module.units.find_marker(&name).ok_or_else(|| {
                let hint = module
                    .units
                    .marker_hint(&name)
                    .unwrap_or_else(|| "the module declares no such <marker>".into());
                bad(format!("no marker '{name}'; {hint}"))
            })?;
            let at = boxn("box")?;
            let count = match c.get("count") {
                None | Some(ScriptValue::Nil) => 1,
                _ => int("count")?,
            };
            let count = i32::try_from(count).map_err(|_| bad(format!("bad count {count}")))?;
            CoreCommand::AddMarkers {
                at,
                marker,
                count: if c.kind == "remove_markers" {
                    -count
                } else {
                    count
                },
            }
        }
        "attach" => CoreCommand::Attach {
            unit: unit("unit")?,
            to: match c.get("to") {
                None | Some(ScriptValue::Nil) => None,
                _ => Some(unit("to")?),
            },
        },
        "set_name" => CoreCommand::SetName {
            unit: unit("unit")?,
            name: match c.get("name") {
                None | Some(ScriptValue::Nil) => None,
                _ => Some(text("name")?),
            },
        },
        "set_last_turn" => {
            let label = text("turn")?;
            let turn = module
                .calendar
                .find(&label)
                .ok_or_else(|| bad(format!("no turn '{label}' on the track")))?;
            CoreCommand::SetLastTurn { turn }
        }
        "game_over" => CoreCommand::GameOver {
            winner: side("winner")?,
            reason: text("reason")?,
        },
        "log" => CoreCommand::Log {
            text: text("text")?,
        },
        "wait_for" => {
            let Some(ScriptValue::List(list)) = c.get("seats") else {
                return Err(bad(format!(
                    "needs 'seats', a list of seat ids, {}",
                    got(&c, "seats")
                )));
            };
            let mut seats = Vec::with_capacity(list.len());
            for v in list {
                let id = v.as_str().unwrap_or_default();
                let seat = module
                    .find_seat(id)
                    .ok_or_else(|| bad(format!("no seat '{id}'; {}", module.seat_hint(id))))?;
                seats.push(seat);
            }
            CoreCommand::WaitFor {
                seats,
                sealed: boolean("sealed", false)?,
            }
        }
        other => {
            const KINDS: &[&str] = &[
                "set_resource",
                "add_resource",
                "set_var",
                "set_control",
                "transfer",
                "set_flag",
                "set_hits",
                "move_piece",
                "use_piece",
                "place_piece",
                "remove_piece",
                "set_attribute",
                "add_markers",
                "remove_markers",
                "attach",
                "set_name",
                "set_last_turn",
                "game_over",
                "log",
                "wait_for",
            ];
            let hint = did_you_mean(other, KINDS.iter().copied())
                .unwrap_or_else(|| format!("commands are {}", KINDS.join(", ")));
            return Err(fail(format!("unknown command '{other}'; {hint}")));
        }
    })
}

#[cfg(test)]
mod tests {
    use muster_core::game::Dice;

    use super::*;

    /// An offer read straight off the stack ([`plain_offer`]) is the one read field by
    /// field ([`offer`]); a table it does not take as plain is left to [`offer`], which
    /// names what is wrong.
    #[test]
    fn a_plain_offer_reads_as_the_field_by_field_one() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd");
        let m = muster_core::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let sc = m.scenario("1861").expect("1861");
        let state = GameState::new(&m, sc, Vec::new(), Dice::seeded(1)).expect("set up");
        let lua = Lua::new();
        let table = |src: &str| -> Table { lua.load(src).eval().expect("a table") };
        let plain = [
            r#"{ id = "sea-move", label = "move Union #1 by sea to Norfolk", unit = 3, box = 7, cost = { marches = 1 } }"#,
            r#"{ id = "entrench", unit = 12, cost = { marches = 0 } }"#,
            r#"{ id = "recover", label = "recover", unit = 1, cost = { ["recruitment-points"] = 1, marches = 2 } }"#,
            r#"{ id = "levy", box = 1, fight = true, cost = {} }"#,
            r#"{ id = "x" }"#,
        ];
        for src in plain {
            let t = table(src);
            let fast = plain_offer(&lua, &m, &state, &t);
            let slow = offer(&m, &state, &t).expect(src);
            assert_eq!(fast.as_ref(), Some(&slow), "{src}");
        }
        // Each is refused field by field, or (a `form`, a fraction) read there.
        let other = [
            r#"{ id = "", unit = 1 }"#,
            r#"{ label = "no id" }"#,
            r#"{ id = "a", unit = 1.5 }"#,
            r#"{ id = "a", unit = -0.0 }"#,
            r#"{ id = "a", unit = 100000 }"#,
            r#"{ id = "a", box = 0 }"#,
            r#"{ id = "a", cost = { marches = -1 } }"#,
            r#"{ id = "a", cost = { gold = 1 } }"#,
            r#"{ id = "a", cost = { 1 } }"#,
            r#"{ id = "a", seat = "nobody" }"#,
            r#"{ id = "a", fight = 1 }"#,
            r#"{ id = "a", lable = "typo" }"#,
            r#"{ id = "a", [1] = "x" }"#,
            r#"{ id = "a", label = 3 }"#,
            r#"{ id = "a", form = {} }"#,
        ];
        // Just past the last piece and the last box.
        let past_unit = format!("{{ id = \"a\", unit = {} }}", state.units.len() + 1);
        let past_box = format!("{{ id = \"a\", box = {} }}", m.board.boxes.len() + 1);
        for src in other
            .iter()
            .copied()
            .chain([past_unit.as_str(), past_box.as_str()])
        {
            let t = table(src);
            assert!(
                offer(&m, &state, &t).is_err() || src.contains("form"),
                "{src}"
            );
            assert_eq!(plain_offer(&lua, &m, &state, &t), None, "{src}");
        }
        // The stack is left as found, read or refused.
        // SAFETY: `lua_gettop` only reads the stack's size.
        let top = || lua.exec_raw_lua(|raw| unsafe { ffi::lua_gettop(raw.state()) });
        let before = top();
        for src in [plain[0], plain[2], other[6], other[12]] {
            plain_offer(&lua, &m, &state, &table(src));
            assert_eq!(top(), before, "{src}");
        }

        // A list is read in one pass up to its first item that is not a plain offer
        // (not a table, or refused, or read field by field), which is left, with the
        // rest, to be read one by one; what it read is what `plain_offer` reads.
        let lists = [
            (format!("{{ {}, {}, {} }}", plain[0], plain[1], plain[2]), 3),
            (format!("{{ {}, {}, {} }}", plain[3], other[7], plain[4]), 1),
            (format!("{{ {}, {} }}", other[14], plain[0]), 0),
            (format!("{{ {}, 7, {} }}", plain[1], plain[0]), 1),
            (format!("{{ {}, {} }}", plain[4], past_unit), 1),
            ("{}".to_string(), 0),
        ];
        for (src, leading) in &lists {
            let list = table(src);
            let n = list.raw_len();
            let mut out = vec![offer(&m, &state, &table(plain[4])).expect("x")];
            assert_eq!(
                plain_offers(&lua, &m, &state, &list, n, &mut out),
                *leading,
                "{src}"
            );
            assert_eq!(out.len(), 1 + leading, "{src}");
            for (i, o) in out[1..].iter().enumerate() {
                let t: Table = list.raw_get(i + 1).expect("an item");
                assert_eq!(Some(o), plain_offer(&lua, &m, &state, &t).as_ref(), "{src}");
            }
            assert_eq!(top(), before, "{src}");
        }
    }
}
