//! The `game` view: the read-only methods scripts call on the state (the Rust side,
//! whose arguments `args.rs` checks, and the Luau wrappers that build tables and keep
//! answers), its type registered once per Lua state, and each view lent for one call
//! or session of questions.

use std::cell::Cell;
use std::rc::Rc;

use mlua::{
    AnyUserData, FromLuaMulti, Function, IntoLuaMulti, Lua, MultiValue, Table, UserDataFields,
    UserDataMethods, Value, ffi,
};
use muster_core::Module;
use muster_core::game::graph;
use muster_core::game::{GameState, Place};
use muster_core::ids::{BoxId, ClassId, SideId, UnitId};
use ref_cast::RefCast;

use muster_core::suggest::did_you_mean;

use crate::args::Call;
use crate::defs::lua_index;
use crate::reading::{Ask, Lent, Said, side_index, spoil};
use crate::stdlib::refuse_unknown;

mod fast;

/// The state as Lua sees it: a read-only view lent for one call.
#[derive(RefCast)]
#[repr(transparent)]
pub(super) struct GameRef(GameState);

/// A `game` view's userdata: the state it was lent, until its scope ends. One is made
/// for every view (a view's identity is its call's: the wrappers and the rules tell calls
/// apart by it), as a plain userdata rather than mlua's scoped one, whose making and
/// taking back cost ~3,700 instructions a view against ~2,000 (a view is opened for every
/// session of questions, listing and event). Its scope takes the state back when it
/// ends, after which every method fails as a scoped userdata's would.
pub(super) struct ViewSlot {
    state: Cell<*const GameState>,
}

impl ViewSlot {
    /// The state lent, or mlua's error for a userdata used past its scope.
    fn get(&self) -> mlua::Result<&GameRef> {
        let state = self.state.get();
        if state.is_null() {
            return Err(mlua::Error::UserDataDestructed);
        }
        // SAFETY: a non-null pointer is a state lent by `Views::open`, borrowed shared for
        // the scope and unchanged during it; the scope's end sets it null.
        Ok(GameRef::ref_cast(unsafe { &*state }))
    }
}

/// What `add_methods` needs of mlua's registry: a method taking the view's state. The
/// methods are written over [`GameRef`]; registered on [`ViewSlot`], each reaches the
/// state through the slot first.
trait ViewMethods {
    fn view_method<A, R, F>(&mut self, name: &str, method: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, &GameRef, A) -> mlua::Result<R> + 'static;
}

impl<M: UserDataMethods<ViewSlot>> ViewMethods for M {
    fn view_method<A, R, F>(&mut self, name: &str, method: F)
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, &GameRef, A) -> mlua::Result<R> + 'static,
    {
        self.add_method(name, move |lua, slot: &ViewSlot, args| {
            method(lua, slot.get()?, args)
        });
    }
}

fn module_of(lua: &Lua) -> mlua::Result<Rc<Module>> {
    lua.app_data_ref::<Lent>()
        .map(|lent| Rc::clone(&lent.module))
        .ok_or_else(|| mlua::Error::runtime("internal: no module lent to the scripts"))
}

fn on_board(state: &GameState, u: UnitId) -> Option<BoxId> {
    match state.unit(u).place {
        Place::Board(b) => Some(b),
        _ => None,
    }
}

fn ids(units: impl Iterator<Item = UnitId>) -> Vec<i64> {
    units.map(|u| lua_index(u.index())).collect()
}

/// The Luau side of the `game` view. A table or string made from Rust costs one protected
/// Lua call per allocation (the heap has a limit, and a memory error must not unwind
/// through Rust frames), ~2,000 instructions each; made by Luau itself it costs none. So
/// the methods that return tables or ids are wrapped: the Rust method returns plain
/// integers (`true` then the items of a list, or an index into one of the id lists below)
/// and the wrapper, which takes the method's place, builds the value. A long list comes
/// from Rust as a ready table. Errors are the Rust method's own, raised through the wrapper.
/// (In its own file, `view/wrappers.luau`; the newline before it keeps the chunk's line
/// numbers, which profiles and tracebacks show as `game:N`, as they were.)
const WRAPPERS: &str = concat!("\n", include_str!("view/wrappers.luau"));

/// The `game` views: registers their type once (see [`game_type`]) and makes each.
pub(super) struct Views {
    /// The Lua state the views are made in (for [`set_live`]).
    lua: Lua,
    /// Puts the Luau wrappers in place, on the first view made (see [`WRAPPERS`]).
    patch: Option<GamePatch>,
    /// The wrappers' `live` table: `[1]` is the view made last, the only one whose
    /// answers they keep.
    live: Table,
}

impl Views {
    /// A `game` view over `state` for the scope's calls, the one the wrappers keep
    /// answers for from now on.
    pub(super) fn open<'s, 'env>(
        &mut self,
        scope: &'s mlua::Scope<'s, 'env>,
        state: &'env GameRef,
    ) -> mlua::Result<AnyUserData> {
        let game = self.lua.create_any_userdata(ViewSlot {
            state: Cell::new(std::ptr::from_ref(&state.0)),
        })?;
        // The slot lives in the userdata's block, which does not move; the handle kept
        // for the scope's end keeps the block alive until the state is taken back.
        let slot = std::ptr::from_ref(&*game.borrow::<ViewSlot>()?);
        let kept = game.clone();
        scope.add_destructor(move || {
            // SAFETY: `kept` holds the userdata, so the slot is alive; nothing else
            // borrows a `ViewSlot` mutably (its state is a `Cell`).
            unsafe { (*slot).state.set(std::ptr::null()) };
            drop(kept);
        });
        finish_game_type(&mut self.patch)?;
        let at = set_live(&self.lua, &self.live, &game)?;
        fast::lend(scope, &self.lua, at, &state.0);
        Ok(game)
    }
}

/// `live[1] = game`. `Table::raw_set` makes each store a protected call under a memory
/// limit (in case it allocates), and a view is opened for every question session and
/// event: those calls were 3% of a search's instructions. This store cannot allocate:
/// the wrappers made `live` as `{ false }`, so index 1 is in its array part, which a
/// store to an index already there never resizes. Answers the view's address, by which
/// the fast getters know it ([`fast`]).
fn set_live(lua: &Lua, live: &Table, game: &AnyUserData) -> mlua::Result<*const std::ffi::c_void> {
    lua.exec_raw_lua(|raw| {
        let state = raw.state();
        // SAFETY: two stack slots are made sure of before the two pushes (as mlua does
        // before its own), and the stack is left as found. `lua_rawseti` stores into the
        // array part without allocating, so no Lua error is raised outside a protected
        // call; the GC barrier it runs allocates nothing.
        unsafe {
            if ffi::lua_checkstack(state, 2) == 0 {
                return Err(mlua::Error::StackError);
            }
            let top = ffi::lua_gettop(state);
            let pushed = raw.push(live).and_then(|()| raw.push(game));
            let mut at = std::ptr::null();
            if pushed.is_ok() {
                at = ffi::lua_touserdata(state, -1).cast_const();
                ffi::lua_rawseti(state, -2, 1);
            }
            ffi::lua_settop(state, top);
            pushed.map(|()| at)
        }
    })
}

/// What puts the `game` view's Luau wrappers in place: mlua builds the view's metatable
/// (adding the Rust methods to `index`) when the first view is made, so the patch runs
/// then ([`finish_game_type`]).
struct GamePatch {
    patch: Function,
    /// The view's methods table (its metatable's `__index`).
    index: Table,
    /// The Rust methods the wrappers call.
    raws: Table,
}

/// Words a rule author may reach for instead of the view's: the engine's own code calls a
/// unit's type its `kind`, so `game:unit_kind` is a likely guess that no edit distance
/// would match to `unit_type`.
const GAME_SYNONYMS: &[(&str, &str)] = &[("kind", "type"), ("owner", "controller")];

/// Registers the `game` view's type with the Lua state.
pub(super) fn game_type(lua: &Lua, module: &Module) -> mlua::Result<Views> {
    let ids = |names: Vec<&str>| lua.create_sequence_from(names);
    let sides = ids(module.sides.iter().map(|s| s.id.as_str()).collect())?;
    // `side_name`'s answer for a side the module does not have.
    sides.raw_set(0, "?")?;
    let types = ids(module.units.types.iter().map(|t| t.id.as_str()).collect())?;
    let classes = ids(module.units.classes.iter().map(|c| c.id.as_str()).collect())?;
    let qualities = ids(module
        .units
        .qualities
        .iter()
        .map(|q| q.id.as_str())
        .collect())?;
    let (patch, live): (Function, Table) = lua.load(WRAPPERS).set_name("=game").call((
        sides,
        types,
        classes,
        qualities,
        2 * module.board.boxes.len(),
        fast::getters(lua)?,
    ))?;
    let index = lua.create_table()?;
    // A misspelled method is an error with a suggestion, not a call of nil. (mlua adds the
    // Rust methods to `index` with raw sets, and the wrappers replace existing keys, so
    // neither meets this metamethod.)
    let refuse = lua.create_table()?;
    refuse.raw_set(
        "__index",
        refuse_unknown(lua, "game", "method", GAME_SYNONYMS)?,
    )?;
    index.set_metatable(Some(refuse))?;
    let methods = index.clone();
    lua.register_userdata_type::<ViewSlot>(move |reg| {
        add_methods(reg);
        reg.add_meta_field("__index", methods);
    })?;
    Ok(Views {
        lua: lua.clone(),
        patch: Some(GamePatch {
            patch,
            index,
            raws: lua.create_table()?,
        }),
        live,
    })
}

/// Puts the Luau wrappers in place once the first `game` view is made (call right after
/// making each): done once, or again on the next call if it failed.
fn finish_game_type(wrap: &mut Option<GamePatch>) -> mlua::Result<()> {
    if let Some(p) = wrap {
        p.patch.call::<()>((&p.index, &p.raws))?;
        *wrap = None;
    }
    Ok(())
}

/// The names of the `game` view's methods as scripts see them (the Rust methods and
/// their Luau wrappers), read off a view made in a fresh Lua state: the modder's
/// reference is checked against them (`scripting/tests/it/api.rs`).
pub(crate) fn view_methods(module: &Module, state: &GameState) -> mlua::Result<Vec<String>> {
    let lua = Lua::new();
    lua.enable_jit(false);
    lua.set_app_data(Lent::new(module));
    let mut views = game_type(&lua, module)?;
    let index = views.patch.as_ref().map(|p| p.index.clone());
    lua.scope(|scope| views.open(scope, GameRef::ref_cast(state)).map(drop))?;
    let mut names = match index {
        Some(t) => t
            .pairs::<String, Value>()
            .map(|kv| kv.map(|(k, _)| k))
            .collect::<mlua::Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    names.sort();
    Ok(names)
}

/// The places off the board by the names `unit_place` answers and the commands take.
const OFF_BOARD: [(&str, Place); 3] = [
    ("pool", Place::Pool),
    ("stock", Place::Stock),
    ("set_aside", Place::SetAside),
];

/// A place off the board by its name.
pub(super) fn off_board_place(name: &str) -> Option<Place> {
    OFF_BOARD.iter().find(|(n, _)| *n == name).map(|&(_, p)| p)
}

/// Longest list a Rust method hands its wrapper as separate values (each a Lua stack slot);
/// longer ones are built as a table in Rust.
const MAX_SPREAD: usize = 200;

/// The numbers `board_pieces` gives of each piece.
const PIECE: usize = 6;

/// Most numbers a page of `board_pieces` holds: 128 pieces, all of most games' in one
/// page (a page is a crossing, and the wrapper sizes its list by the first). Ten in unit
/// tests, so that AHD's pieces come in several pages there.
const MAX_PAGE: usize = 1 + if cfg!(test) { 10 } else { 128 } * PIECE;

/// A list of ids for the `list` wrapper: `true` then the ids, or (when long) a table.
fn spread(lua: &Lua, ids: Vec<i64>) -> mlua::Result<MultiValue> {
    if ids.len() > MAX_SPREAD {
        return lua.create_sequence_from(ids)?.into_lua_multi(lua);
    }
    Ok(std::iter::once(Value::Boolean(true))
        .chain(ids.into_iter().map(Value::Integer))
        .collect())
}

/// `spread`, or nil for no list.
fn spread_some(lua: &Lua, ids: Option<Vec<i64>>) -> mlua::Result<MultiValue> {
    match ids {
        Some(ids) => spread(lua, ids),
        None => Value::Nil.into_lua_multi(lua),
    }
}

/// `ask`'s answer in `state`, noted when the session is read ([`crate::reading`]).
fn read(lua: &Lua, state: &GameState, ask: Ask) -> mlua::Result<Said> {
    let lent = lua
        .app_data_ref::<Lent>()
        .ok_or_else(|| mlua::Error::runtime("internal: no module lent to the scripts"))?;
    Ok(lent.read(state, ask))
}

/// Adds a method of the `game` view that is not an [`Ask`]: a read session that calls it
/// tells nothing ([`reading`](crate::reading)).
fn untraced<M, A, R, F>(m: &mut M, name: &str, method: F)
where
    M: ViewMethods,
    A: FromLuaMulti,
    R: IntoLuaMulti,
    F: Fn(&Lua, &GameRef, A) -> mlua::Result<R> + 'static,
{
    m.view_method(name, move |lua, g, args| {
        spoil(lua);
        method(lua, g, args)
    });
}

/// The `game` view's methods (the Rust side; see [`WRAPPERS`] for those wrapped in Luau).
///
/// The plain getters that are [`Ask`]s answer through [`read`], which notes what a read
/// session reads; every other method goes through [`untraced`], which spoils it.
fn add_methods<M: ViewMethods>(m: &mut M) {
    // Arguments are taken as plain values and checked by `Call`, whose errors name the
    // call as written and the script line (see `args.rs`).
    // Wrapped: an index into the side, type, class or quality ids.
    m.view_method("unit_side", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_side", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitSide(u))
    });
    m.view_method("unit_type", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_type", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitType(u))
    });
    m.view_method("unit_class", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_class", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitClass(u))
    });
    m.view_method("unit_quality", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_quality", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitQuality(u))
    });
    m.view_method("unit_box", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_box", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitBox(u))
    });
    untraced(m, "unit_name", |lua, g, u: Value| {
        let module = module_of(lua)?;
        let u = Call::new(lua, "unit_name", [u]).unit(0, &g.0)?;
        Ok(muster_core::game::describe::unit(&module, &g.0, u))
    });
    m.view_method("unit_hits", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_hits", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitHits(u))
    });
    m.view_method("unit_flag", |lua, g, (u, name): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "unit_flag", [u, name]);
        let u = call.unit(0, &g.0)?;
        let name = call.text(1)?;
        let flag = module.units.find_flag(&name).ok_or_else(|| {
            call.fail(
                1,
                format!("no flag '{name}'; {}", module.units.flag_help(&name)),
            )
        })?;
        read(lua, &g.0, Ask::UnitFlag(u, flag))
    });
    // Wrapped: a list.
    m.view_method("units_at", |lua, g, b: Value| {
        let module = module_of(lua)?;
        let at = Call::new(lua, "units_at", [b]).boxn(0, &module)?;
        match read(lua, &g.0, Ask::UnitsAt(at))? {
            Said::List(ids) => spread(lua, ids),
            other => other.into_lua_multi(lua),
        }
    });
    untraced(m, "units_on_board", |lua, g, ()| {
        spread(
            lua,
            ids(g.0.unit_ids().filter(|&u| on_board(&g.0, u).is_some())),
        )
    });
    // Wrapped: a record per piece on the board, in `units_on_board`'s order: what a rule
    // reading every piece (a capture at the end of a segment) would otherwise ask piece by
    // piece, one crossing each. Answers a page from unit `from` on (see the wrapper).
    untraced(m, "board_pieces", |lua, g, from: Value| {
        let module = module_of(lua)?;
        // Only the wrapper calls it, with a unit number; anything else starts at the first.
        let from = match from {
            Value::Integer(n) => crate::defs::rust_index(n).unwrap_or(0),
            _ => 0,
        };
        let mut flat = vec![0];
        for u in g.0.unit_ids().skip(from) {
            let Some(at) = on_board(&g.0, u) else {
                continue;
            };
            if flat.len() + PIECE > MAX_PAGE {
                flat[0] = lua_index(u.index());
                break;
            }
            let unit = g.0.unit(u);
            let class = module.units.get(unit.kind).class;
            flat.extend([
                lua_index(u.index()),
                lua_index(at.index()),
                side_index(&module, unit.side),
                lua_index(unit.kind.index()),
                class.map_or(0, |c| lua_index(c.index())),
                i64::from(unit.hits),
            ]);
        }
        Ok(flat.into_iter().map(Value::Integer).collect::<MultiValue>())
    });
    // Wrapped: a list. Every piece of a type, wherever it is (a general waiting in stock).
    untraced(m, "pieces", |lua, g, kind: Value| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "pieces", [kind]);
        let name = call.text(0)?;
        let kind = module.units.find(&name).ok_or_else(|| {
            let hint = did_you_mean(&name, module.units.types.iter().map(|t| t.id.as_str()))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            call.fail(0, format!("no unit type '{name}'{hint}"))
        })?;
        spread(
            lua,
            ids(g.0.unit_ids().filter(|&u| g.0.unit(u).kind == kind)),
        )
    });
    // Where a piece is: "board", "pool", "stock" or "set_aside".
    untraced(m, "unit_place", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_place", [u]).unit(0, &g.0)?;
        Ok(match g.0.unit(u).place {
            Place::Board(_) => "board",
            Place::Pool => "pool",
            Place::Stock => "stock",
            Place::SetAside => "set_aside",
        })
    });
    // How many pieces of a type a side has off the board: AHD asks whether a side has a
    // Militia piece in its pool, which `pieces` and `unit_place` answer a piece at a time.
    m.view_method(
        "pieces_in",
        |lua, g, (place, kind, side): (Value, Value, Value)| {
            let module = module_of(lua)?;
            let call = Call::new(lua, "pieces_in", [place, kind, side]);
            let name = call.text(0)?;
            let place = off_board_place(&name).ok_or_else(|| {
                let hint =
                    did_you_mean(&name, OFF_BOARD.iter().map(|(p, _)| *p)).unwrap_or_else(|| {
                        "the places off the board are pool, stock and set_aside".into()
                    });
                call.fail(0, format!("no place '{name}' off the board; {hint}"))
            })?;
            let name = call.text(1)?;
            let kind = module.units.find(&name).ok_or_else(|| {
                let hint = did_you_mean(&name, module.units.types.iter().map(|t| t.id.as_str()))
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                call.fail(1, format!("no unit type '{name}'{hint}"))
            })?;
            // The side defaults to the one whose turn it is.
            let side = match call.opt_text(2)? {
                None => g.0.active_side(&module),
                Some(_) => call.side(2, &module)?,
            };
            read(lua, &g.0, Ask::PiecesIn(place, kind, side))
        },
    );
    m.view_method("units_on_board_of", |lua, g, side: Value| {
        let module = module_of(lua)?;
        let side = Call::new(lua, "units_on_board_of", [side]).side(0, &module)?;
        read(lua, &g.0, Ask::UnitsOnBoardOf(side))
    });
    m.view_method("controller", |lua, g, b: Value| {
        let module = module_of(lua)?;
        let at = Call::new(lua, "controller", [b]).boxn(0, &module)?;
        read(lua, &g.0, Ask::Controller(at))
    });
    m.view_method("marker", |lua, g, b: Value| {
        let module = module_of(lua)?;
        let at = Call::new(lua, "marker", [b]).boxn(0, &module)?;
        read(lua, &g.0, Ask::Marker(at))
    });
    m.view_method("enemy_in", |lua, g, (b, side): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "enemy_in", [b, side]);
        let (at, side) = (call.boxn(0, &module)?, call.side(1, &module)?);
        read(lua, &g.0, Ask::EnemyIn(at, side))
    });
    m.view_method(
        "enemy_class_in",
        |lua, g, (b, side, class): (Value, Value, Value)| {
            let module = module_of(lua)?;
            let call = Call::new(lua, "enemy_class_in", [b, side, class]);
            let (at, side) = (call.boxn(0, &module)?, call.side(1, &module)?);
            let classes = &module.units.classes;
            let class = call.name_in(
                2,
                "a unit class id",
                classes.iter().map(|c| c.id.as_str()),
                |id| classes.iter().position(|c| c.id == id),
            )?;
            let class = ClassId::from_index(class)
                .ok_or_else(|| mlua::Error::runtime("internal: a class id out of range"))?;
            read(lua, &g.0, Ask::EnemyClassIn(at, side, class))
        },
    );
    m.view_method("tally", |lua, g, (id, side): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "tally", [id, side]);
        let name = call.text(0)?;
        let tally = module.find_tally(&name).ok_or_else(|| {
            call.fail(
                0,
                format!("no tally '{name}'; {}", module.tally_help(&name)),
            )
        })?;
        // The side defaults to the one whose turn it is.
        let side = match call.opt_text(1)? {
            None => g.0.active_side(&module),
            Some(_) => call.side(1, &module)?,
        };
        read(lua, &g.0, Ask::Tally(tally, side))
    });
    m.view_method("active_side", |lua, g, ()| read(lua, &g.0, Ask::ActiveSide));
    m.view_method("resource", |lua, g, (id, side): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "resource", [id, side]);
        let id = call.text(0)?;
        let r = module.find_resource(&id).ok_or_else(|| {
            let hint = module
                .resource_hint(&id)
                .unwrap_or_else(|| "the module declares no such <resource>".into());
            call.fail(0, format!("no resource '{id}'; {hint}"))
        })?;
        let side = match call.opt_text(1)? {
            Some(_) => call.side(1, &module)?,
            None => g.0.active_side(&module),
        };
        read(lua, &g.0, Ask::Resource(r, side))
    });
    untraced(m, "waiting", |lua, g, ()| {
        let module = module_of(lua)?;
        let ids: Vec<String> = muster_core::game::seats::waiting(&g.0)
            .map(|s| module.seat(s).id.clone())
            .collect();
        Ok(ids)
    });
    untraced(m, "step", |lua, g, ()| {
        let module = module_of(lua)?;
        Ok(g.0.current_step(&module).map(|s| s.id.clone()))
    });
    // Which repetition of a repeated step this is (`repeat="2"`: 1, then 2).
    m.view_method("repetition", |lua, g, ()| read(lua, &g.0, Ask::Repetition));
    m.view_method("first_turn", |lua, g, ()| read(lua, &g.0, Ask::FirstTurn));
    untraced(m, "turn_label", |lua, g, ()| {
        Ok(module_of(lua)?.calendar.turn(g.0.turn).label.clone())
    });
    untraced(m, "last_turn_label", |lua, g, ()| {
        Ok(module_of(lua)?.calendar.turn(g.0.end).label.clone())
    });
    m.view_method("turn_year", |lua, g, ()| read(lua, &g.0, Ask::TurnYear));
    m.view_method("turn_month", |lua, g, ()| read(lua, &g.0, Ask::TurnMonth));
    m.view_method("option", |lua, g, id: Value| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "option", [id]);
        let id = call.text(0)?;
        let o = module.find_option(&id).ok_or_else(|| {
            // An overlay's `<remove>` of it: say where, not a near spelling.
            let removed = module
                .removed
                .iter()
                .find(|r| r.element == "option" && r.key.eq_ignore_ascii_case(&id))
                .map(|r| format!("; it was removed at {} (<remove>)", r.at));
            let hint = removed
                .or_else(|| {
                    did_you_mean(&id, module.options.iter().map(|o| o.id.as_str()))
                        .map(|h| format!("; {h}"))
                })
                .unwrap_or_default();
            call.fail(0, format!("no optional rule '{id}'{hint}"))
        })?;
        read(lua, &g.0, Ask::Option(o))
    });
    m.view_method("var", |lua, g, name: Value| {
        let name = Call::new(lua, "var", [name]).text(0)?;
        read(lua, &g.0, Ask::Var(name.into()))
    });
    untraced(m, "attribute", |lua, g, (u, name): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "attribute", [u, name]);
        let u = call.unit(0, &g.0)?;
        let name = call.text(1)?;
        let a = module.units.find_attribute(&name).ok_or_else(|| {
            let hint = module
                .units
                .attribute_hint(&name)
                .unwrap_or_else(|| "no unit type declares such an <attribute>".into());
            call.fail(1, format!("no attribute '{name}'; {hint}"))
        })?;
        Ok(g.0.attribute(&module, u, a))
    });
    untraced(m, "markers", |lua, g, (b, name): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "markers", [b, name]);
        let at = call.boxn(0, &module)?;
        let name = call.text(1)?;
        let id = module.units.find_marker(&name).ok_or_else(|| {
            let hint = module
                .units
                .marker_hint(&name)
                .unwrap_or_else(|| "the module declares no such <marker>".into());
            call.fail(1, format!("no marker '{name}'; {hint}"))
        })?;
        Ok(g.0.markers_at(at, id))
    });
    m.view_method("attached_to", |lua, g, u: Value| {
        let u = Call::new(lua, "attached_to", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::AttachedTo(u))
    });
    untraced(m, "attached", |lua, g, u: Value| {
        let u = Call::new(lua, "attached", [u]).unit(0, &g.0)?;
        spread(lua, ids(g.0.attached(u)))
    });
    // Formations: a piece's holder, its members (direct or at any depth), its own
    // name, its weight and a side's army size (see `muster_core::game::formations`).
    untraced(m, "holder", |lua, g, u: Value| {
        let u = Call::new(lua, "holder", [u]).unit(0, &g.0)?;
        Ok(g.0.holder(u).map(|h| lua_index(h.index())))
    });
    untraced(m, "members", |lua, g, u: Value| {
        let u = Call::new(lua, "members", [u]).unit(0, &g.0)?;
        spread(lua, ids(g.0.members(u)))
    });
    untraced(m, "all_members", |lua, g, u: Value| {
        let u = Call::new(lua, "all_members", [u]).unit(0, &g.0)?;
        spread(lua, ids(g.0.all_members(u).into_iter()))
    });
    untraced(m, "piece_name", |lua, g, u: Value| {
        let u = Call::new(lua, "piece_name", [u]).unit(0, &g.0)?;
        Ok(g.0.name(u).map(str::to_string))
    });
    untraced(m, "weight", |lua, g, u: Value| {
        let module = module_of(lua)?;
        let u = Call::new(lua, "weight", [u]).unit(0, &g.0)?;
        Ok(g.0.weight(&module, u))
    });
    untraced(m, "army_size", |lua, g, side: Value| {
        let module = module_of(lua)?;
        let side = Call::new(lua, "army_size", [side]).side(0, &module)?;
        Ok(g.0.army_size(&module, side))
    });
    // Graph queries (`muster_core::game::graph`): one search in Rust through what a
    // `Passage` table allows, so supply lines and nearest cities cost the rules no
    // Luau loop over the board.
    untraced(
        m,
        "distance",
        |lua, g, (from, to, through): (Value, Value, Value)| {
            let module = module_of(lua)?;
            let call = Call::new(lua, "distance", [from, to, through]);
            let (from, to) = (call.boxn(0, &module)?, call.boxn(1, &module)?);
            let passage = call.passage(2, &module)?;
            Ok(graph::distance(&module, &g.0, from, to, &passage))
        },
    );
    untraced(
        m,
        "nearest",
        |lua, g, (from, targets, through): (Value, Value, Value)| {
            let module = module_of(lua)?;
            let call = Call::new(lua, "nearest", [from, targets, through]);
            let from = call.boxn(0, &module)?;
            let targets = call.boxes(1, &module)?;
            let passage = call.passage(2, &module)?;
            Ok(
                match graph::nearest(&module, &g.0, from, &targets, &passage) {
                    Some((b, d)) => (Some(lua_index(b.index())), Some(d)),
                    None => (None, None),
                },
            )
        },
    );
    untraced(m, "reach", |lua, g, (from, through): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "reach", [from, through]);
        let from = call.boxn(0, &module)?;
        let passage = call.passage(1, &module)?;
        let found = graph::reach(&module, &g.0, from, &passage);
        let t = lua.create_table_with_capacity(0, found.len())?;
        for (b, d) in found {
            t.raw_set(lua_index(b.index()), d)?;
        }
        Ok(t)
    });
    // Wrapped: `true` then the boxes of the path, or nil.
    untraced(
        m,
        "path",
        |lua, g, (from, to, through): (Value, Value, Value)| {
            let module = module_of(lua)?;
            let call = Call::new(lua, "path", [from, to, through]);
            let (from, to) = (call.boxn(0, &module)?, call.boxn(1, &module)?);
            let passage = call.passage(2, &module)?;
            let found = graph::path(&module, &g.0, from, to, &passage)
                .map(|p| p.iter().map(|b| lua_index(b.index())).collect());
            spread_some(lua, found)
        },
    );
    // Noted (an `Ask`): every Movement listing of AHD's offers reads it first.
    m.view_method("selected_box", |lua, g, ()| {
        read(lua, &g.0, Ask::SelectedBox)
    });
    untraced(m, "ready_units", |lua, g, ()| {
        let ready = selection(&g.0).map_or_else(Vec::new, |a| ids(a.ready.iter().copied()));
        spread(lua, ready)
    });
    m.view_method("unit_moves", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_moves", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitMoves(u))
    });
    m.view_method("moved", |lua, g, u: Value| {
        let u = Call::new(lua, "moved", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::Moved(u))
    });
    // Moved off the lines this player turn (`move_piece`: AHD's moves by sea).
    m.view_method("relocated", |lua, g, u: Value| {
        let u = Call::new(lua, "relocated", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::Relocated(u))
    });
    m.view_method("jumps", |lua, g, u: Value| {
        let u = Call::new(lua, "jumps", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::Jumps(u))
    });
    m.view_method("fought", |lua, g, u: Value| {
        let u = Call::new(lua, "fought", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::Fought(u))
    });
    m.view_method("placed_at", |lua, g, b: Value| {
        let module = module_of(lua)?;
        let at = Call::new(lua, "placed_at", [b]).boxn(0, &module)?;
        read(lua, &g.0, Ask::PlacedAt(at))
    });
    // The battle under way (all nil when there is none).
    untraced(m, "battle_box", |_, g, ()| {
        Ok(battle(&g.0).map(|b| lua_index(b.at.index())))
    });
    untraced(m, "battle_round", |_, g, ()| {
        Ok(battle(&g.0).map(|b| b.round))
    });
    for (name, pick) in [
        (
            "battle_attacker",
            (|b| b.attacker) as fn(&muster_core::game::battle::Battle) -> SideId,
        ),
        ("battle_defender", |b| b.defender),
        ("battle_firing", |b| b.firing),
    ] {
        untraced(m, name, move |lua, g, ()| {
            let module = module_of(lua)?;
            Ok(battle(&g.0).map(|b| side_index(&module, pick(b))))
        });
    }
    untraced(m, "battle_units", |lua, g, side: Value| {
        let module = module_of(lua)?;
        let side = Call::new(lua, "battle_units", [side]).side(0, &module)?;
        let list = battle(&g.0).map(|b| {
            let list = if side == b.attacker {
                &b.attackers
            } else {
                &b.defenders
            };
            ids(list.iter().copied())
        });
        spread_some(lua, list)
    });
    untraced(m, "entry_line", |lua, g, u: Value| {
        let u = Call::new(lua, "entry_line", [u]).unit(0, &g.0)?;
        Ok(entry(&g.0, u).flatten().map(|l| lua_index(l.index())))
    });
    untraced(m, "battle_entered_from", |lua, g, ()| {
        let list = battle(&g.0).map(|b| {
            b.entered_from
                .iter()
                .map(|x| lua_index(x.index()))
                .collect::<Vec<_>>()
        });
        spread_some(lua, list)
    });
    // Whether an attacker entered the battle box by sea, eliminated ones included
    // (nil when no battle is under way).
    // Some attacker entered the battle's box by a move off the lines.
    untraced(m, "battle_by_relocation", |_, g, ()| {
        Ok(battle(&g.0).map(|b| b.entries.iter().any(|(_, e)| *e == Some(None))))
    });
    untraced(m, "scenario", |_, g, ()| Ok(g.0.scenario.clone()));
    // Entered the battle's box by a move off the lines.
    untraced(m, "entered_by_relocation", |lua, g, u: Value| {
        let u = Call::new(lua, "entered_by_relocation", [u]).unit(0, &g.0)?;
        Ok(matches!(entry(&g.0, u), Some(None)))
    });
    // Wrapped: `true` then shooter and target of each shot, or (when long) the table.
    untraced(m, "shots", |lua, g, ()| {
        let shots = battle(&g.0).map_or(&[][..], |b| &b.shots[..]);
        if shots.len() * 2 <= MAX_SPREAD {
            return Ok(std::iter::once(Value::Boolean(true))
                .chain(
                    shots
                        .iter()
                        .flat_map(|(s, tg)| [s, tg].map(|u| Value::Integer(lua_index(u.index())))),
                )
                .collect());
        }
        let t = lua.create_table()?;
        for (i, (s, tg)) in shots.iter().enumerate() {
            let shot = lua.create_table()?;
            shot.raw_set("shooter", lua_index(s.index()))?;
            shot.raw_set("target", lua_index(tg.index()))?;
            t.raw_set(i + 1, shot)?;
        }
        t.into_lua_multi(lua)
    });
}

/// How a unit entered the battle box: `Some(Some(line))`, by sea `Some(None)`, or `None`.
fn entry(state: &GameState, u: UnitId) -> Option<Option<muster_core::ids::LineId>> {
    battle(state)?
        .entries
        .iter()
        .find(|(x, _)| *x == u)
        .and_then(|(_, e)| *e)
}

/// The box selected in the `move` step under way, with its pieces still to move.
fn selection(state: &GameState) -> Option<&muster_core::game::moves::SelectedBox> {
    state.moving.as_ref().and_then(|m| m.active.as_ref())
}

fn battle(state: &GameState) -> Option<&muster_core::game::battle::Battle> {
    state.combat.as_ref()?.battle.as_ref()
}

#[cfg(test)]
mod tests {
    use muster_core::game::Dice;

    use super::*;

    /// `board_pieces` over several pages (ten pieces a page in unit tests) gives a record
    /// per piece on the board, in unit order, each as the piece-by-piece getters read
    /// it: a reduced piece's hits, and `class` absent for a Leader (a type without one).
    #[test]
    fn board_pieces_gives_every_piece_s_record_across_pages() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd");
        let m = muster_core::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let sc = m.scenario("1864").expect("1864");
        let mut state = GameState::new(&m, sc, Vec::new(), Dice::seeded(1)).expect("set up");
        let on_board = |g: &GameState| {
            g.unit_ids()
                .filter(|&u| on_board(g, u).is_some())
                .collect::<Vec<_>>()
        };
        let first = on_board(&state)[0];
        state.units[first.index()].hits = 1;
        let leader = m.units.find("Ldr").expect("Ldr");
        let ldr = state
            .unit_ids()
            .find(|&u| state.unit(u).kind == leader)
            .expect("a Leader");
        state.units[ldr.index()].place = state.unit(first).place;
        let count = on_board(&state).len();
        assert!(
            count > 3 * (MAX_PAGE / PIECE),
            "{count} pieces, pages of {MAX_PAGE}"
        );
        let lua = Lua::new();
        lua.set_app_data(Lent::new(&m));
        let mut views = game_type(&lua, &m).expect("the view's type");
        let check: Function = lua
            .load(
                r#"return function(g)
                local pieces, ids = g:board_pieces(), g:units_on_board()
                local bad, classless, reduced = 0, 0, 0
                for i, p in pieces do
                    local u = ids[i]
                    if p.unit ~= u or p.box ~= g:unit_box(u) or p.side ~= g:unit_side(u)
                        or p.type ~= g:unit_type(u) or p.class ~= g:unit_class(u)
                        or p.hits ~= g:unit_hits(u) then
                        bad += 1
                    end
                    if p.class == nil then
                        classless += 1
                    end
                    if p.hits > 0 then
                        reduced += 1
                    end
                end
                return #pieces, #ids, bad, classless, reduced
            end"#,
            )
            .eval()
            .expect("a check");
        let got: (usize, usize, usize, usize, usize) = lua
            .scope(|scope| {
                let g = views.open(scope, GameRef::ref_cast(&state))?;
                check.call(g)
            })
            .expect("checked");
        assert_eq!(got, (count, count, 0, 1, 1));
    }

    /// Every method of the `game` view either notes what it read or spoils a read
    /// session: one that did neither would let a computer player reuse answers it cannot
    /// check ([`Rules::ask_each_reading`]).
    #[test]
    fn every_view_method_notes_its_reads_or_spoils_the_session() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd");
        let m = muster_core::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let sc = m.scenario("1861").expect("1861");
        let state = GameState::new(&m, sc, Vec::new(), Dice::seeded(1)).expect("set up");
        let lua = Lua::new();
        lua.set_app_data(Lent::new(&m));
        let mut views = game_type(&lua, &m).expect("the view's type");
        let call: Function = lua
            .load("return function(g, name, ...) return g[name](g, ...) end")
            .eval()
            .expect("a caller");
        // Arguments that fit AHD's methods: units, boxes, sides, classes and its names.
        let tries: Vec<Vec<Value>> = {
            let s = |x: &str| Value::String(lua.create_string(x).expect("a string"));
            let i = Value::Integer;
            vec![
                vec![],
                vec![i(1)],
                vec![i(1), i(1)],
                vec![i(1), s("union")],
                vec![s("union")],
                vec![i(1), s("union"), s("cavalry")],
                vec![s("army-maximum"), s("union")],
                vec![s("marches"), s("union")],
                vec![s("kentucky-violated")],
                vec![i(1), s("entrenched")],
                vec![s("Mi")],
                vec![s("crack-infantry")],
                vec![s("pool"), s("Mi"), s("union")],
            ]
        };
        let names = view_methods(&m, &state).expect("the methods");
        assert!(names.len() > 40, "{names:?}");
        let mut silent = Vec::new();
        for name in &names {
            let mut told = false;
            for args in &tries {
                let lent = lua.app_data_ref::<Lent>().expect("lent");
                lent.reading.start();
                drop(lent);
                let ok = lua
                    .scope(|scope| {
                        let g = views.open(scope, GameRef::ref_cast(&state))?;
                        let mut all =
                            vec![Value::UserData(g), Value::String(lua.create_string(name)?)];
                        all.extend(args.iter().cloned());
                        call.call::<MultiValue>(MultiValue::from_vec(all))
                    })
                    .is_ok();
                let lent = lua.app_data_ref::<Lent>().expect("lent");
                let (noted, spoiled) = lent.reading.peek();
                lent.reading.finish();
                told |= spoiled || (ok && noted > 0);
            }
            if !told {
                silent.push(name.clone());
            }
        }
        assert!(silent.is_empty(), "neither noted nor spoiled: {silent:?}");
    }
}
