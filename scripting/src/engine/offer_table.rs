//! The table a handler gets for an offer (`offer_taken`, `offer_worth`, the entry
//! hooks): built in one protected call for a plain offer, with mlua's calls otherwise.

use mlua::{IntoLua, Lua, Table, Value};
use muster_core::Module;
use muster_core::game::Offer;

use crate::defs::lua_index;

/// The table an `offer_taken` handler gets: `{ id, label, unit?, box?, seat?, cost,
/// form?, entry? }`.
pub(super) fn offer_table(lua: &Lua, module: &Module, offer: &Offer) -> mlua::Result<Value> {
    match plain_offer_table(lua, module, offer) {
        Some(t) => t.map(Value::Table),
        None => offer_table_by_calls(lua, module, offer),
    }
}

/// [`offer_table`] made with mlua's calls, for an offer with a form, an entry, a fight.
fn offer_table_by_calls(lua: &Lua, module: &Module, offer: &Offer) -> mlua::Result<Value> {
    let t = lua.create_table_with_capacity(0, 4)?;
    t.raw_set("id", offer.id.as_str())?;
    t.raw_set("label", offer.label.as_str())?;
    if let Some(u) = offer.unit {
        t.raw_set("unit", lua_index(u.index()))?;
    }
    if let Some(b) = offer.at {
        t.raw_set("box", lua_index(b.index()))?;
    }
    if let Some(s) = offer.seat {
        t.raw_set("seat", module.seat(s).id.as_str())?;
    }
    super::entries::add_to_offer(lua, module, offer, &t)?;
    let cost = lua.create_table()?;
    for &(r, n) in &offer.cost {
        cost.raw_set(module.resource(r).id.as_str(), n)?;
    }
    t.raw_set("cost", cost)?;
    t.into_lua(lua)
}

/// [`offer_table`] of an offer with no form, entry, fight or fought battle (AHD's), built
/// in one protected call ([`build_offer`]); `None` for any other, which `offer_table`
/// builds with mlua's calls. Those are a protected call each (a `raw_set`, a string):
/// ~33,000 instructions an offer taken.
fn plain_offer_table(lua: &Lua, module: &Module, offer: &Offer) -> Option<mlua::Result<Table>> {
    let plain =
        offer.form.is_empty() && offer.entry.is_none() && !offer.fight && offer.fought.is_none();
    // SAFETY: `exec_raw` runs the closure inside a protected call, so a memory error
    // raised by an allocation (a table or string made, the stack grown) unwinds to that
    // call and comes back as an `Err`; the closure owns nothing that needs dropping. It
    // leaves the offer's table alone on the stack, which `exec_raw` takes.
    plain.then(|| unsafe { lua.exec_raw((), |state| build_offer(state, module, offer)) })
}

/// Builds a plain offer's table on `state`'s (empty) stack as [`offer_table`]'s mlua calls
/// do: the same sizes, its keys stored in the same order, so a handler walking it with
/// `pairs` meets them in the same order. To run inside a protected call only.
unsafe fn build_offer(state: *mut mlua::ffi::lua_State, module: &Module, offer: &Offer) {
    use mlua::ffi;
    // SAFETY: the caller's contract: a protected call. Strings are copied by Luau.
    unsafe {
        let text = |s: &str| ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
        let field = |key: &str| {
            text(key);
            ffi::lua_insert(state, -2);
            ffi::lua_rawset(state, -3);
        };
        ffi::luaL_checkstack(state, 4, std::ptr::null());
        ffi::lua_createtable(state, 0, 4);
        text(&offer.id);
        field("id");
        text(&offer.label);
        field("label");
        if let Some(u) = offer.unit {
            ffi::lua_pushinteger(state, lua_index(u.index()));
            field("unit");
        }
        if let Some(b) = offer.at {
            ffi::lua_pushinteger(state, lua_index(b.index()));
            field("box");
        }
        if let Some(seat) = offer.seat {
            text(&module.seat(seat).id);
            field("seat");
        }
        ffi::lua_createtable(state, 0, 0);
        for &(r, n) in &offer.cost {
            ffi::lua_pushinteger(state, n);
            field(&module.resource(r).id);
        }
        field("cost");
    }
}

#[cfg(test)]
mod tests {
    use muster_core::ids::{BoxId, ResourceId, SeatId, UnitId};

    use super::*;

    /// A plain offer's table, built in one protected call, is the one mlua's calls built:
    /// the same fields and values, met by `pairs` in the same order.
    #[test]
    fn a_plain_offer_s_table_is_the_one_built_field_by_field() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd");
        let m = muster_core::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let lua = Lua::new();
        let walk: mlua::Function = lua
            .load(
                "return function(t) local out = {} for k, v in t do \
                 if type(v) == 'table' then for k2, v2 in v do \
                 table.insert(out, `{k}.{k2}={v2}:{typeof(v2)}`) end \
                 else table.insert(out, `{k}={v}:{typeof(v)}`) end end \
                 return table.concat(out, ',') end",
            )
            .eval()
            .expect("walk");
        let offer = |id: &str,
                     unit: Option<usize>,
                     at: Option<usize>,
                     seat: Option<SeatId>,
                     cost: Vec<(ResourceId, i64)>| Offer {
            label: format!("{id}, said"),
            id: id.to_string(),
            unit: unit.and_then(UnitId::from_index),
            at: at.and_then(BoxId::from_index),
            cost,
            seat,
            form: Vec::new(),
            entry: None,
            fight: false,
            fought: None,
            refused: None,
        };
        let r = |i| ResourceId::from_index(i).expect("a resource");
        let offers = [
            offer("sea-move", Some(2), Some(6), None, vec![(r(0), 1)]),
            offer("entrench", Some(11), None, None, vec![(r(0), 0)]),
            offer("recover", Some(0), None, None, vec![(r(0), 2), (r(1), 1)]),
            offer("levy", None, Some(0), SeatId::from_index(1), Vec::new()),
            offer("x", None, None, None, Vec::new()),
        ];
        for o in &offers {
            let fast = plain_offer_table(&lua, &m, o)
                .expect("plain")
                .expect("built");
            let slow = offer_table_by_calls(&lua, &m, o).expect("built");
            let fast: String = walk.call(fast).expect("walked");
            assert!(slow.is_table());
            let slow: String = walk.call(slow).expect("walked");
            assert_eq!(fast, slow, "{}", o.id);
            assert!(fast.contains(&format!("id={}:string", o.id)), "{fast}");
        }
        let mut fought = offers[0].clone();
        fought.fight = true;
        assert!(plain_offer_table(&lua, &m, &fought).is_none());
    }
}
