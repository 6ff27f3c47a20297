//! The fast path of the `game` view's plain getters: raw Lua C functions that answer a
//! number, a boolean or nil without mlua's callback machinery (its error guard, the
//! scoped userdata's borrow, each argument made a `Value`: ~2,200 instructions a
//! crossing, 22% of a random game).
//!
//! A fast getter answers only what it can take as plain: a view whose scope is under way
//! (one the engine lent and has not taken back), every argument a whole number in range
//! or a string it finds among the module's ids. It answers `v, true`; anything else gets no
//! answer, and its Luau wrapper calls the mlua method, which answers or fails with its
//! own message (see `WRAPPERS`). It never raises a Lua error (Luau's errors are C++
//! exceptions, which must not unwind through Rust frames) and a Rust panic is caught
//! before it reaches C. It pushes only numbers, booleans and nil, which allocate nothing
//! on the Lua heap, so the memory limit has nothing to refuse. Its reads go through
//! [`Lent::read`], so a read session notes them as it notes the mlua method's.

use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use mlua::{Function, Lua, Table, ffi};
use muster_core::Module;
use muster_core::game::GameState;
use muster_core::ids::{BoxId, ClassId, SideId, UnitId};

use crate::defs::{box_id, rust_index};
use crate::reading::{Ask, Lent, Said};

/// A view lent on this thread: its userdata's address, the state it reads, and what its
/// Lua state lends the methods (found once a view, not once a getter call: mlua's app
/// data look-up was a tenth of a fast getter's instructions).
#[derive(Clone, Copy)]
struct Loan {
    view: *const c_void,
    state: *const GameState,
    lent: *const Lent,
}

thread_local! {
    /// The views whose scopes are under way on this thread, each added by [`lend`] when
    /// the engine opens it and removed when its scope ends (in whatever order scopes
    /// end their views: a scope may open several).
    static LOANS: RefCell<Vec<Loan>> = const { RefCell::new(Vec::new()) };
}

/// Lends `state` to the fast getters for as long as `scope` lasts, through the view whose
/// userdata is at `view`, with the Lua state's [`Lent`] (none: the getters leave every
/// call to the mlua methods).
pub(super) fn lend<'s, 'env>(
    scope: &'s mlua::Scope<'s, 'env>,
    lua: &Lua,
    view: *const c_void,
    state: &'env GameState,
) {
    // The `Lent` is boxed in the Lua state's app data, set when the state is made and
    // never replaced nor borrowed mutably (nothing asks `app_data_mut::<Lent>`): its
    // address holds, and a shared borrow of it is sound, while the scope lasts.
    let Some(lent) = lua.app_data_ref::<Lent>().map(|l| ptr::from_ref(&*l)) else {
        return;
    };
    let loan = Loan {
        view,
        state: ptr::from_ref(state),
        lent,
    };
    if LOANS.try_with(|l| l.borrow_mut().push(loan)).is_err() {
        return;
    }
    scope.add_destructor(move || {
        let _ = LOANS.try_with(|l| {
            let mut loans = l.borrow_mut();
            if let Some(i) = loans.iter().rposition(|x| x.view == view) {
                loans.remove(i);
            }
        });
    });
}

/// The loan of the view at `view`, if its scope is under way.
fn loan_of(view: *const c_void) -> Option<Loan> {
    LOANS
        .try_with(|l| l.borrow().iter().rev().find(|x| x.view == view).copied())
        .ok()
        .flatten()
}

/// The getters with a fast path. Each is its own C function (`getter::<G>`).
const GETTERS: &[(&str, u8)] = &[
    ("unit_side", UNIT_SIDE),
    ("unit_type", UNIT_TYPE),
    ("unit_class", UNIT_CLASS),
    ("unit_quality", UNIT_QUALITY),
    ("unit_box", UNIT_BOX),
    ("unit_hits", UNIT_HITS),
    ("unit_moves", UNIT_MOVES),
    ("attached_to", ATTACHED_TO),
    ("moved", MOVED),
    ("relocated", RELOCATED),
    ("jumps", JUMPS),
    ("fought", FOUGHT),
    ("controller", CONTROLLER),
    ("marker", MARKER),
    ("placed_at", PLACED_AT),
    ("unit_flag", UNIT_FLAG),
    ("enemy_in", ENEMY_IN),
    ("enemy_class_in", ENEMY_CLASS_IN),
    ("units_on_board_of", UNITS_ON_BOARD_OF),
    ("tally", TALLY),
    ("resource", RESOURCE),
    ("option", OPTION),
    ("active_side", ACTIVE_SIDE),
    ("first_turn", FIRST_TURN),
    ("turn_year", TURN_YEAR),
    ("turn_month", TURN_MONTH),
    ("repetition", REPETITION),
    ("units_at", UNITS_AT),
    ("var", VAR),
    ("selected_box", SELECTED_BOX),
    ("pieces_in", PIECES_IN),
];

const UNIT_SIDE: u8 = 0;
const UNIT_TYPE: u8 = 1;
const UNIT_CLASS: u8 = 2;
const UNIT_QUALITY: u8 = 3;
const UNIT_BOX: u8 = 4;
const UNIT_HITS: u8 = 5;
const UNIT_MOVES: u8 = 6;
const ATTACHED_TO: u8 = 7;
const MOVED: u8 = 8;
const RELOCATED: u8 = 9;
const JUMPS: u8 = 10;
const FOUGHT: u8 = 11;
const CONTROLLER: u8 = 12;
const MARKER: u8 = 13;
const PLACED_AT: u8 = 14;
const UNIT_FLAG: u8 = 15;
const ENEMY_IN: u8 = 16;
const ENEMY_CLASS_IN: u8 = 17;
const UNITS_ON_BOARD_OF: u8 = 18;
const TALLY: u8 = 19;
const RESOURCE: u8 = 20;
const OPTION: u8 = 21;
const ACTIVE_SIDE: u8 = 22;
const FIRST_TURN: u8 = 23;
const TURN_YEAR: u8 = 24;
const TURN_MONTH: u8 = 25;
const REPETITION: u8 = 26;
const UNITS_AT: u8 = 27;
const VAR: u8 = 28;
const SELECTED_BOX: u8 = 29;
const PIECES_IN: u8 = 30;

/// Most pieces `units_at` answers on the fast path: `true` and the ids fit the slots a C
/// function is given (`LUA_MINSTACK`, 20); growing the stack could raise a memory error.
const MAX_LISTED: usize = 19;

/// The fast getters by method name, for the wrappers.
pub(super) fn getters(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for &(name, g) in GETTERS {
        t.raw_set(name, c_function(lua, g)?)?;
    }
    Ok(t)
}

fn c_function(lua: &Lua, g: u8) -> mlua::Result<Function> {
    macro_rules! pick {
        ($($c:ident),*) => {
            match g {
                $($c => getter::<$c> as ffi::lua_CFunction,)*
                _ => return Err(mlua::Error::runtime("internal: no such fast getter")),
            }
        };
    }
    let f = pick!(
        UNIT_SIDE,
        UNIT_TYPE,
        UNIT_CLASS,
        UNIT_QUALITY,
        UNIT_BOX,
        UNIT_HITS,
        UNIT_MOVES,
        ATTACHED_TO,
        MOVED,
        RELOCATED,
        JUMPS,
        FOUGHT,
        CONTROLLER,
        MARKER,
        PLACED_AT,
        UNIT_FLAG,
        ENEMY_IN,
        ENEMY_CLASS_IN,
        UNITS_ON_BOARD_OF,
        TALLY,
        RESOURCE,
        OPTION,
        ACTIVE_SIDE,
        FIRST_TURN,
        TURN_YEAR,
        TURN_MONTH,
        REPETITION,
        UNITS_AT,
        VAR,
        SELECTED_BOX,
        PIECES_IN
    );
    // SAFETY: `getter` is sound to call from Lua with any arguments (see it).
    unsafe { lua.create_c_function(f) }
}

/// A fast getter: `v, true`, or no values when it leaves the call to the mlua method;
/// `units_at`: `true` then the ids, as its Rust method answers a short list.
///
/// # Safety
/// Lua calls it with a valid `l`; as a C function it has `LUA_MINSTACK` free slots, of
/// which it pushes at most two, or `1 + MAX_LISTED`.
unsafe extern "C-unwind" fn getter<const G: u8>(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: as above; a panic is caught here and never unwinds into Lua's frames.
    let said = catch_unwind(AssertUnwindSafe(|| unsafe { answer::<G>(l) }));
    let Ok(Some(said)) = said else {
        return 0;
    };
    // SAFETY: pushes of plain values into the free slots (a list no longer than
    // `MAX_LISTED`); none allocates.
    #[allow(clippy::cast_precision_loss)]
    unsafe {
        match said {
            Said::Nil => ffi::lua_pushnil(l),
            Said::Bool(b) => ffi::lua_pushboolean(l, c_int::from(b)),
            Said::Int(i) => ffi::lua_pushnumber(l, i as f64),
            Said::List(ids) => {
                if ids.len() > MAX_LISTED {
                    return 0;
                }
                ffi::lua_pushboolean(l, 1);
                for &id in &ids {
                    ffi::lua_pushnumber(l, id as f64);
                }
                return c_int::try_from(ids.len() + 1).unwrap_or(0);
            }
        }
        ffi::lua_pushboolean(l, 1);
    }
    2
}

/// Argument `i` (1-based on the Lua stack: the view is 1) as a whole number, as
/// `Call::whole` takes it; not a number, none.
unsafe fn whole(l: *mut ffi::lua_State, i: c_int) -> Option<i64> {
    // SAFETY: `i` is an acceptable index; both calls read the slot only (a number is not
    // converted in place).
    unsafe {
        if ffi::lua_type(l, i) != ffi::LUA_TNUMBER {
            return None;
        }
        let x = ffi::lua_tonumber(l, i);
        #[allow(clippy::cast_possible_truncation)]
        (x.fract() == 0.0 && x.abs() < 9.0e15).then_some(x as i64)
    }
}

/// Argument `i` as a string's text, when it is a string (a number is not made one:
/// that would allocate) and UTF-8 (otherwise the mlua method words the answer).
unsafe fn text<'a>(l: *mut ffi::lua_State, i: c_int) -> Option<&'a str> {
    // SAFETY: the slot holds a string (checked), so `lua_tolstring` converts nothing and
    // returns its bytes, which live while the string is on the stack: for this call.
    unsafe {
        if ffi::lua_type(l, i) != ffi::LUA_TSTRING {
            return None;
        }
        let mut len = 0usize;
        let p = ffi::lua_tolstring(l, i, &raw mut len);
        if p.is_null() {
            return None;
        }
        std::str::from_utf8(std::slice::from_raw_parts(p.cast::<u8>(), len)).ok()
    }
}

unsafe fn unit(l: *mut ffi::lua_State, i: c_int, state: &GameState) -> Option<UnitId> {
    // SAFETY: as `whole`.
    unsafe { whole(l, i) }
        .and_then(rust_index)
        .and_then(UnitId::from_index)
        .filter(|u| u.index() < state.units.len())
}

unsafe fn boxn(l: *mut ffi::lua_State, i: c_int, module: &Module) -> Option<BoxId> {
    // SAFETY: as `whole`.
    unsafe { whole(l, i) }
        .and_then(box_id)
        .filter(|b| b.index() < module.board.boxes.len())
}

unsafe fn side(l: *mut ffi::lua_State, i: c_int, module: &Module) -> Option<SideId> {
    // SAFETY: as `text`.
    module.find_side(unsafe { text(l, i) }?)
}

/// A side argument the mlua method defaults to the active side when nil.
unsafe fn side_or_active(
    l: *mut ffi::lua_State,
    i: c_int,
    module: &Module,
    state: &GameState,
) -> Option<SideId> {
    // SAFETY: as `text`.
    unsafe {
        if ffi::lua_type(l, i) == ffi::LUA_TNIL {
            Some(state.active_side(module))
        } else {
            side(l, i, module)
        }
    }
}

/// The getter's answer, noted as the mlua method notes it, or none to leave the call to
/// the mlua method.
unsafe fn answer<const G: u8>(l: *mut ffi::lua_State) -> Option<Said> {
    // SAFETY: the stack's slots are read only. The view is checked to be one whose scope
    // is under way: its userdata is alive (the scope holds it), so no other value is at
    // its address, and a view kept past its scope was removed from the loans when the
    // scope ended. The state outlives the scope and is borrowed shared for it, so it is
    // alive and unchanged. `l` is a thread of an mlua state, which keeps its `Lua` alive
    // while any of its code runs.
    unsafe {
        if ffi::lua_type(l, 1) != ffi::LUA_TUSERDATA {
            return None;
        }
        let loan = loan_of(ffi::lua_touserdata(l, 1).cast_const())?;
        let (state, lent) = (&*loan.state, &*loan.lent);
        let module = &*lent.module;
        let ask = match G {
            UNIT_SIDE => Ask::UnitSide(unit(l, 2, state)?),
            UNIT_TYPE => Ask::UnitType(unit(l, 2, state)?),
            UNIT_CLASS => Ask::UnitClass(unit(l, 2, state)?),
            UNIT_QUALITY => Ask::UnitQuality(unit(l, 2, state)?),
            UNIT_BOX => Ask::UnitBox(unit(l, 2, state)?),
            UNIT_HITS => Ask::UnitHits(unit(l, 2, state)?),
            UNIT_MOVES => Ask::UnitMoves(unit(l, 2, state)?),
            ATTACHED_TO => Ask::AttachedTo(unit(l, 2, state)?),
            MOVED => Ask::Moved(unit(l, 2, state)?),
            RELOCATED => Ask::Relocated(unit(l, 2, state)?),
            JUMPS => Ask::Jumps(unit(l, 2, state)?),
            FOUGHT => Ask::Fought(unit(l, 2, state)?),
            CONTROLLER => Ask::Controller(boxn(l, 2, module)?),
            MARKER => Ask::Marker(boxn(l, 2, module)?),
            PLACED_AT => Ask::PlacedAt(boxn(l, 2, module)?),
            UNIT_FLAG => {
                let u = unit(l, 2, state)?;
                Ask::UnitFlag(u, module.units.find_flag(text(l, 3)?)?)
            }
            ENEMY_IN => Ask::EnemyIn(boxn(l, 2, module)?, side(l, 3, module)?),
            ENEMY_CLASS_IN => {
                let (at, s) = (boxn(l, 2, module)?, side(l, 3, module)?);
                let id = text(l, 4)?;
                let class = module.units.classes.iter().position(|c| c.id == id)?;
                Ask::EnemyClassIn(at, s, ClassId::from_index(class)?)
            }
            UNITS_ON_BOARD_OF => Ask::UnitsOnBoardOf(side(l, 2, module)?),
            TALLY => {
                let t = module.find_tally(text(l, 2)?)?;
                Ask::Tally(t, side_or_active(l, 3, module, state)?)
            }
            RESOURCE => {
                let r = module.find_resource(text(l, 2)?)?;
                Ask::Resource(r, side_or_active(l, 3, module, state)?)
            }
            OPTION => Ask::Option(module.find_option(text(l, 2)?)?),
            ACTIVE_SIDE => Ask::ActiveSide,
            FIRST_TURN => Ask::FirstTurn,
            TURN_YEAR => Ask::TurnYear,
            TURN_MONTH => Ask::TurnMonth,
            REPETITION => Ask::Repetition,
            UNITS_AT => {
                let at = boxn(l, 2, module)?;
                // A longer list is left to the Rust method, before it is noted.
                if state.units_at(at).nth(MAX_LISTED).is_some() {
                    return None;
                }
                Ask::UnitsAt(at)
            }
            VAR => Ask::Var(text(l, 2)?.into()),
            SELECTED_BOX => Ask::SelectedBox,
            PIECES_IN => {
                let place = super::off_board_place(text(l, 2)?)?;
                let kind = module.units.find(text(l, 3)?)?;
                Ask::PiecesIn(place, kind, side_or_active(l, 4, module, state)?)
            }
            _ => return None,
        };
        Some(lent.read(state, ask))
    }
}

#[cfg(test)]
mod tests {
    use mlua::{MultiValue, Value};
    use muster_core::game::Dice;
    use ref_cast::RefCast;

    use super::super::{GameRef, game_type};
    use super::*;

    /// AHD's 1861 set-up, and a Lua state lent its module, with the view's type.
    fn ahd() -> (Module, GameState) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/ahd");
        let dir = if dir.exists() {
            dir
        } else {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd")
        };
        let m = muster_core::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let sc = m.scenario("1861").expect("1861");
        let state = GameState::new(&m, sc, Vec::new(), Dice::seeded(1)).expect("set up");
        (m, state)
    }

    /// `f(...)` as its values, counted (`n` then the values).
    fn packed(lua: &Lua) -> Function {
        lua.load("return function(f, ...) local t = table.pack(f(...)) return t.n, t[1], t[2] end")
            .eval()
            .expect("a caller")
    }

    /// Every fast getter answers what its Rust method answers, for plain arguments (and
    /// does answer them: the fast path is taken), and leaves every other argument, which
    /// the Rust method answers or refuses with its message, to the Rust method. What it
    /// reads is noted as the Rust method notes it.
    #[test]
    fn fast_getters_answer_as_the_rust_methods_and_note_the_same_reads() {
        let (m, state) = ahd();
        let lua = Lua::new();
        lua.set_app_data(Lent::new(&m));
        let mut views = game_type(&lua, &m).expect("the view's type");
        let raws = views.patch.as_ref().map(|p| p.raws.clone()).expect("raws");
        // The first view puts the wrappers in place, the Rust methods in `raws`.
        lua.scope(|scope| views.open(scope, GameRef::ref_cast(&state)).map(drop))
            .expect("a view");
        let fast = getters(&lua).expect("fast getters");
        let packed = packed(&lua);
        let s = |x: &str| Value::String(lua.create_string(x).expect("a string"));
        let (i, n) = (Value::Integer, Value::Number);
        let units = i64::try_from(state.units.len()).expect("few");
        let boxes = i64::try_from(m.board.boxes.len()).expect("few");
        let mut plain: Vec<Value> = (1..=units).step_by(13).map(i).collect();
        plain.extend([i(units), n(2.0), i(units + 1)]);
        let mut boxed: Vec<Value> = (1..=boxes).step_by(11).map(i).collect();
        boxed.extend([i(boxes), i(boxes + 1)]);
        // Never a unit or a box.
        let never = [
            i(0),
            i(-1),
            n(1.5),
            n(f64::NAN),
            n(1e300),
            Value::Nil,
            Value::Boolean(true),
        ];
        let mut odd = never.to_vec();
        odd.extend([
            s("1"),
            s("union"),
            s("yankee"),
            s("entrenched"),
            s("cavalry"),
            s("marches"),
            s("army-maximum"),
            s("kentucky-violated"),
            s("\u{fffd}"),
            s("pool"),
            s("stock"),
        ]);
        let seconds = [
            Value::Nil,
            s("union"),
            s("confederate"),
            s("yankee"),
            s("entrenched"),
            s("Mi"),
            i(1),
        ];
        let thirds = [
            s("cavalry"),
            s("infantry"),
            s("cavalri"),
            s("union"),
            Value::Nil,
        ];
        let (mut fast_answers, mut left) = (0, 0);
        let mut leaves = Vec::new();
        for &(name, _) in GETTERS {
            let quick: Function = fast.raw_get(name).expect("fast");
            let slow: Function = raws.raw_get(name).expect("raw");
            let mut tries: Vec<Vec<Value>> = vec![vec![]];
            for a in plain.iter().chain(&boxed).chain(&odd) {
                tries.push(vec![a.clone()]);
                for b in &seconds {
                    tries.push(vec![a.clone(), b.clone()]);
                    for c in &thirds {
                        tries.push(vec![a.clone(), b.clone(), c.clone()]);
                    }
                }
            }
            for args in tries {
                let lent = lua.app_data_ref::<Lent>().expect("lent");
                lent.reading.start();
                drop(lent);
                let (got, slow_said, noted) = lua
                    .scope(|scope| {
                        let g = views.open(scope, GameRef::ref_cast(&state))?;
                        let mut all = vec![Value::Function(quick.clone()), Value::UserData(g)];
                        all.extend(args.iter().cloned());
                        let got: (i64, Value, Value) =
                            packed.call(MultiValue::from_vec(all.clone()))?;
                        let lent = lua.app_data_ref::<Lent>().expect("lent");
                        let noted = lent.reading.peek().0;
                        drop(lent);
                        all[0] = Value::Function(slow.clone());
                        let slow_said =
                            packed.call::<(i64, Value, Value)>(MultiValue::from_vec(all));
                        Ok((got, slow_said, noted))
                    })
                    .expect("called");
                let lent = lua.app_data_ref::<Lent>().expect("lent");
                let (all_noted, _) = lent.reading.peek();
                lent.reading.finish();
                drop(lent);
                if got.0 == 0 {
                    left += 1;
                    assert_eq!(noted, 0, "{name}{args:?} left to Rust noted a read");
                    continue;
                }
                fast_answers += 1;
                if name == "units_at" {
                    // `true` and the list, as the Rust method answers (compared whole
                    // through the wrapper in `api.rs` and the memo tests).
                    assert_eq!(got.1, Value::Boolean(true), "{name}{args:?}");
                    assert_eq!(
                        got.0,
                        slow_said.as_ref().map_or(-1, |s| s.0),
                        "{name}{args:?}"
                    );
                    assert_eq!(
                        got.2,
                        slow_said.as_ref().map_or(Value::Nil, |s| s.2.clone())
                    );
                    assert_eq!((noted, all_noted), (1, 2), "{name}{args:?}");
                    continue;
                }
                assert_eq!(got.0, 2, "{name}{args:?}");
                assert_eq!(got.2, Value::Boolean(true), "{name}{args:?}");
                let slow_said = slow_said.unwrap_or_else(|e| {
                    panic!(
                        "{name}{args:?}: fast answered {:?}, Rust refused: {e}",
                        got.1
                    )
                });
                assert_eq!(slow_said.1, got.1, "{name}{args:?}");
                // One read noted by each path, the same.
                assert_eq!((noted, all_noted), (1, 2), "{name}{args:?}");
                if args
                    .first()
                    .is_some_and(|a| never.iter().any(|x| x.equals(a).unwrap_or(false)))
                {
                    leaves.push(format!("{name}{args:?}"));
                }
            }
        }
        // Numbers out of range, fractions and non-numbers never take the fast path (a
        // getter without arguments ignores them).
        leaves.retain(|l| {
            ![
                "active_side",
                "first_turn",
                "turn_year",
                "turn_month",
                "repetition",
                "selected_box",
            ]
            .iter()
            .any(|g| l.starts_with(g))
        });
        assert!(leaves.is_empty(), "{leaves:?}");
        assert!(
            fast_answers > 1000 && left > 1000,
            "{fast_answers} fast, {left} left"
        );
    }

    /// A view kept past its scope gets no fast answer: the Rust method fails it as
    /// before. Outside every scope nothing is lent, however views and scopes nest.
    #[test]
    fn a_view_not_lent_gets_no_fast_answer() {
        let (m, state) = ahd();
        let lua = Lua::new();
        lua.set_app_data(Lent::new(&m));
        let mut views = game_type(&lua, &m).expect("the view's type");
        let fast = getters(&lua).expect("fast getters");
        let quick: Function = fast.raw_get("unit_hits").expect("fast");
        let packed = packed(&lua);
        let count = |g: &mlua::AnyUserData| {
            packed
                .call::<(i64, Value, Value)>((quick.clone(), g.clone(), 1))
                .expect("called")
                .0
        };
        let (mut kept, mut kept_too) = (None, None);
        lua.scope(|scope| {
            let g = views.open(scope, GameRef::ref_cast(&state))?;
            assert_eq!(count(&g), 2, "the live view");
            kept = Some(g.clone());
            // A view opened inside this one's scope answers until its scope ends; this
            // one meanwhile too (its scope is under way).
            let mut inner_view = None;
            lua.scope(|inner| {
                let h = views.open(inner, GameRef::ref_cast(&state))?;
                assert_eq!(count(&h), 2);
                assert_eq!(count(&g), 2);
                inner_view = Some(h);
                Ok(())
            })?;
            assert_eq!(count(&inner_view.expect("inner")), 0, "its scope is over");
            assert_eq!(count(&g), 2, "still lent");
            // Two views in one scope: both end with it (in whichever order).
            let second = views.open(scope, GameRef::ref_cast(&state))?;
            assert_eq!(count(&second), 2);
            kept_too = Some(second);
            Ok(())
        })
        .expect("scope");
        assert!(
            LOANS.with_borrow(Vec::is_empty),
            "nothing lent after the scope"
        );
        assert_eq!(count(&kept_too.expect("second")), 0);
        let kept = kept.expect("kept");
        assert_eq!(count(&kept), 0);
        lua.scope(|scope| {
            let _g = views.open(scope, GameRef::ref_cast(&state))?;
            assert_eq!(count(&kept), 0, "a kept view while another is lent");
            let via: Function = lua
                .load("return function(g) return g:unit_hits(1) end")
                .eval()?;
            let slow = via.call::<Value>(&kept);
            assert!(
                slow.as_ref()
                    .is_err_and(|e| e.to_string().contains("destructed")),
                "{slow:?}"
            );
            Ok(())
        })
        .expect("scope");
    }
}
