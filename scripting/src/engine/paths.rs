//! What questions and events are given besides the view, made Lua values once and kept
//! between calls: path tables, and the ids of sides, unit types and steps.

use mlua::{IntoLua, Lua, Table, Value};
use muster_core::Module;
use muster_core::game::{Path, Step};
use muster_core::ids::{SideId, UnitTypeId};
use rustc_hash::FxHashMap;

use super::calls::side_name;
use crate::defs::lua_index;

/// The path tables lent to hooks (`{ from = box, steps = { { line, to }, ... } }`),
/// kept between calls: a path search asks up to three questions of each path, the
/// same paths come up again in every search from a box, and paths share their steps,
/// so building them anew was a third of a computer player's time. They are read-only,
/// so no handler changes what the next one sees. And the names of sides and unit types
/// questions are asked about, made Lua strings once (each made from Rust is a protected
/// call: 5% of a computer player's time went to `may_place`'s and `dug_in`'s).
#[derive(Default)]
pub(super) struct PathTables {
    /// Paths met so far, up to [`PathTables::KEPT`] (then forgotten all at once).
    paths: FxHashMap<Path, Table>,
    /// The field names, made Lua strings once, and the table of the steps built so far
    /// (one table per step, a line and the box it leads to, built on first use).
    keys: Option<([mlua::LuaString; 4], Table)>,
    /// Side ids, then unit type ids, by index; made on first use.
    names: Option<Names>,
    /// The step ids hooks were given (`offers`, `end_step_refusal`, `step_started`...),
    /// made Lua strings on first use: a random game lists offers and asks whether a step
    /// may end at nearly every decision.
    step_ids: FxHashMap<String, mlua::LuaString>,
}

/// Side ids and unit type ids, by index.
type Names = (Vec<mlua::LuaString>, Vec<mlua::LuaString>);

impl PathTables {
    /// The names of `module`'s sides and unit types, as Lua strings.
    pub(super) fn names(&mut self, lua: &Lua, module: &Module) -> mlua::Result<&Names> {
        if self.names.is_none() {
            let sides = module.sides.iter().map(|s| lua.create_string(&s.id));
            let types = module.units.types.iter().map(|t| lua.create_string(&t.id));
            self.names = Some((
                sides.collect::<mlua::Result<_>>()?,
                types.collect::<mlua::Result<_>>()?,
            ));
        }
        Ok(self.names.get_or_insert_default())
    }

    /// `side`'s id as a Lua string (`"?"` for one the module lacks, as [`side_name`]).
    pub(super) fn side(&mut self, lua: &Lua, module: &Module, side: SideId) -> mlua::Result<Value> {
        match self.names(lua, module)?.0.get(side.index()) {
            Some(s) => Ok(Value::String(s.clone())),
            None => side_name(module, side).into_lua(lua),
        }
    }

    /// A unit type's id as a Lua string.
    pub(super) fn unit_type(
        &mut self,
        lua: &Lua,
        module: &Module,
        kind: UnitTypeId,
    ) -> mlua::Result<Value> {
        match self.names(lua, module)?.1.get(kind.index()) {
            Some(s) => Ok(Value::String(s.clone())),
            None => module.units.get(kind).id.as_str().into_lua(lua),
        }
    }

    /// `step`, a step id, as a Lua string.
    pub(super) fn step_id(&mut self, lua: &Lua, step: &str) -> mlua::Result<mlua::LuaString> {
        if let Some(s) = self.step_ids.get(step) {
            return Ok(s.clone());
        }
        let s = lua.create_string(step)?;
        // A module has a few dozen steps; a bound all the same.
        if self.step_ids.len() >= 1024 {
            self.step_ids.clear();
        }
        self.step_ids.insert(step.to_string(), s.clone());
        Ok(s)
    }

    /// Enough for every path of three lines or fewer from the boxes a player searches
    /// in a turn, at a few hundred bytes of the scripts' heap each.
    const KEPT: usize = 8192;

    /// The table of `path`, kept or built. A new one is built in one protected call
    /// ([`build_path`]): built with mlua's `create_table` and `raw_set`, each a protected
    /// call of its own (~2,000 instructions), a new path of one step cost eight of them,
    /// 6% of a random game's instructions.
    pub(super) fn table(&mut self, lua: &Lua, path: &Path) -> mlua::Result<Value> {
        self.table_ref(lua, path).map(|t| Value::Table(t.clone()))
    }

    /// [`PathTables::table`], lent: pushed as it is, with no reference of its own.
    pub(super) fn table_ref(&mut self, lua: &Lua, path: &Path) -> mlua::Result<&Table> {
        if self.paths.contains_key(path) {
            return Ok(&self.paths[path]);
        }
        if self.keys.is_none() {
            let k = [
                lua.create_string("from")?,
                lua.create_string("steps")?,
                lua.create_string("line")?,
                lua.create_string("to")?,
            ];
            self.keys = Some((k, lua.create_table()?));
        }
        let Some(([from, steps, line, to], kept)) = &self.keys else {
            unreachable!("made above")
        };
        // SAFETY: `exec_raw` pushes the five arguments and runs the closure inside a
        // protected call, so a memory error raised by an allocation (a table made or
        // grown, the stack grown by `luaL_checkstack`) unwinds to that call and comes
        // back as an `Err`; the closure owns nothing that needs dropping. It leaves the
        // path's table alone on the stack, which `exec_raw` takes (see `build_path`).
        let t: Table = unsafe {
            lua.exec_raw((from, steps, line, to, kept), |state| {
                build_path(state, path);
            })
        }?;
        if self.paths.len() >= Self::KEPT {
            self.paths.clear();
        }
        Ok(self.paths.entry(path.clone()).or_insert(t))
    }
}

/// Builds `path`'s table on `state`'s stack, which holds the field names `from`, `steps`,
/// `line` and `to` (indices 1-4) and the table of the steps built so far (5), by
/// [`step_key`]: a step not there yet is built and added, so that a step is one table in
/// every path (as when the steps were kept in Rust). Leaves only the path's table, `{
/// from, steps = { { line, to }, ... } }`, read-only throughout, with the same sizes and
/// its keys stored in the same order as mlua's calls made them. To run inside a
/// protected call only (an allocation may raise a memory error).
unsafe fn build_path(state: *mut mlua::ffi::lua_State, path: &Path) {
    use mlua::ffi;
    use std::ffi::c_int;
    // A path has a handful of steps.
    let n = c_int::try_from(path.steps.len()).unwrap_or(c_int::MAX);
    // SAFETY: the caller's contract (see above): a protected call, with the arguments
    // on the stack as described.
    unsafe {
        ffi::luaL_checkstack(state, 6, std::ptr::null());
        ffi::lua_createtable(state, n, 0);
        let steps = ffi::lua_gettop(state);
        for (i, s) in path.steps.iter().enumerate() {
            ffi::lua_pushinteger(state, step_key(s));
            ffi::lua_rawget(state, 5);
            if ffi::lua_isnil(state, -1) != 0 {
                ffi::lua_settop(state, -2);
                ffi::lua_createtable(state, 0, 2);
                ffi::lua_pushvalue(state, 3);
                ffi::lua_pushinteger(state, lua_index(s.line.index()));
                ffi::lua_rawset(state, -3);
                ffi::lua_pushvalue(state, 4);
                ffi::lua_pushinteger(state, lua_index(s.to.index()));
                ffi::lua_rawset(state, -3);
                ffi::lua_setreadonly(state, -1, 1);
                ffi::lua_pushinteger(state, step_key(s));
                ffi::lua_pushvalue(state, -2);
                ffi::lua_rawset(state, 5);
            }
            ffi::lua_rawseti_(state, steps, c_int::try_from(i + 1).unwrap_or(c_int::MAX));
        }
        ffi::lua_setreadonly(state, steps, 1);
        ffi::lua_createtable(state, 0, 2);
        ffi::lua_pushvalue(state, 1);
        ffi::lua_pushinteger(state, lua_index(path.from.index()));
        ffi::lua_rawset(state, -3);
        ffi::lua_pushvalue(state, 2);
        ffi::lua_pushvalue(state, steps);
        ffi::lua_rawset(state, -3);
        ffi::lua_setreadonly(state, -1, 1);
        ffi::lua_replace(state, 1);
        ffi::lua_settop(state, 1);
    }
}

/// A step's key in the table of steps built: its line and box, each a 16-bit id, in one
/// whole number (exact as a Luau number).
fn step_key(s: &Step) -> i64 {
    ((s.line.index() as i64) << 16) | s.to.index() as i64
}
