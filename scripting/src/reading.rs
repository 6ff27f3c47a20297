//! What a session of questions reads of the position ([`Rules::ask_each_reading`]).
//!
//! The `game` view's plain getters are data here: an [`Ask`] names one read, and
//! [`Ask::answer`] is the one place its answer is computed, for the script and for the
//! check that a later position gives the same. While a session is read, each answer the
//! view gives is noted; a getter that is not an [`Ask`] (most lists, names) spoils the
//! session, which then tells nothing. Answers the Luau wrappers keep for the view are
//! still noted once: a view is new for every session, so each thing read crosses into
//! Rust at least once (see `WRAPPERS`).
//!
//! [`Rules::ask_each_reading`]: muster_core::game::Rules::ask_each_reading

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use mlua::{IntoLua, Lua, Value};
use muster_core::Module;
use muster_core::game::{GameState, Place, Reads, SharedReads};
use muster_core::ids::{
    BoxId, ClassId, FlagId, OptionId, ResourceId, SideId, TallyId, UnitId, UnitTypeId,
};

use crate::defs::lua_index;

/// One read of the `game` view, its arguments resolved to ids.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ask {
    UnitSide(UnitId),
    UnitType(UnitId),
    UnitClass(UnitId),
    UnitQuality(UnitId),
    UnitBox(UnitId),
    UnitHits(UnitId),
    UnitFlag(UnitId, FlagId),
    UnitMoves(UnitId),
    AttachedTo(UnitId),
    Moved(UnitId),
    Relocated(UnitId),
    Jumps(UnitId),
    Fought(UnitId),
    Controller(BoxId),
    Marker(BoxId),
    PlacedAt(BoxId),
    UnitsAt(BoxId),
    EnemyIn(BoxId, SideId),
    EnemyClassIn(BoxId, SideId, ClassId),
    UnitsOnBoardOf(SideId),
    /// How many pieces of a type a side has in a place off the board (never
    /// `Place::Board`: the view's argument names only the pool, stock and set-aside).
    PiecesIn(Place, UnitTypeId, SideId),
    Tally(TallyId, SideId),
    Resource(ResourceId, SideId),
    Option(OptionId),
    Var(Box<str>),
    ActiveSide,
    FirstTurn,
    TurnYear,
    TurnMonth,
    Repetition,
    SelectedBox,
}

/// A getter's answer, as the script gets it (a list as its 1-based ids).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Said {
    Nil,
    Bool(bool),
    Int(i64),
    List(Vec<i64>),
}

impl IntoLua for Said {
    fn into_lua(self, _: &Lua) -> mlua::Result<Value> {
        Ok(match self {
            Said::Nil => Value::Nil,
            Said::Bool(b) => Value::Boolean(b),
            Said::Int(i) => Value::Integer(i),
            Said::List(_) => {
                return Err(mlua::Error::runtime(
                    "internal: a list answer is spread by its method",
                ));
            }
        })
    }
}

/// A side as the view gives it: its 1-based index, 0 for one the module lacks.
pub(crate) fn side_index(module: &Module, side: SideId) -> i64 {
    if side.index() < module.sides.len() {
        lua_index(side.index())
    } else {
        0
    }
}

fn index(i: usize) -> Said {
    Said::Int(lua_index(i))
}

fn some<T>(x: Option<T>, f: impl FnOnce(T) -> Said) -> Said {
    x.map_or(Said::Nil, f)
}

fn on_board(state: &GameState, u: UnitId) -> Option<BoxId> {
    match state.unit(u).place {
        Place::Board(b) => Some(b),
        _ => None,
    }
}

impl Ask {
    /// What the view answers in `state`. Ids are checked when the script's arguments
    /// are resolved, so every id here is one of the module's and the state's.
    pub(crate) fn answer(&self, module: &Module, state: &GameState) -> Said {
        let int = |i: i64| Said::Int(i);
        let moves = || state.turn_log.moves.iter();
        match *self {
            Ask::UnitSide(u) => int(side_index(module, state.unit(u).side)),
            Ask::UnitType(u) => index(state.unit(u).kind.index()),
            Ask::UnitClass(u) => some(module.units.get(state.unit(u).kind).class, |c| {
                index(c.index())
            }),
            Ask::UnitQuality(u) => some(module.units.get(state.unit(u).kind).quality, |q| {
                index(q.index())
            }),
            Ask::UnitBox(u) => some(on_board(state, u), |b| index(b.index())),
            Ask::UnitHits(u) => int(i64::from(state.unit(u).hits)),
            Ask::UnitFlag(u, f) => Said::Bool(state.unit(u).flags.has(f)),
            Ask::UnitMoves(u) => int(i64::from(state.unit(u).moves)),
            Ask::AttachedTo(u) => some(state.unit(u).attached_to, |c| index(c.index())),
            Ask::Moved(u) => Said::Bool(moves().any(|m| m.unit == u)),
            Ask::Relocated(u) => {
                Said::Bool(moves().any(|m| m.unit == u && m.relocated_to.is_some()))
            }
            Ask::Jumps(u) => int(moves().filter(|m| m.unit == u && m.jump).count() as i64),
            Ask::Fought(u) => Said::Bool(state.turn_log.fought.contains(&u)),
            Ask::Controller(b) => some(state.controller(b), |s| int(side_index(module, s))),
            Ask::Marker(b) => Said::Bool(state.boxes[b.index()].marker),
            Ask::PlacedAt(b) => {
                int(state.turn_log.placed.iter().filter(|&&r| r == b).count() as i64)
            }
            Ask::UnitsAt(b) => {
                Said::List(state.units_at(b).map(|u| lua_index(u.index())).collect())
            }
            Ask::EnemyIn(b, side) => {
                Said::Bool(state.units_at(b).any(|u| state.unit(u).side != side))
            }
            Ask::EnemyClassIn(b, side, class) => Said::Bool(state.units_at(b).any(|u| {
                let unit = state.unit(u);
                unit.side != side && module.units.get(unit.kind).class == Some(class)
            })),
            Ask::UnitsOnBoardOf(side) => int(state
                .unit_ids()
                .filter(|&u| state.unit(u).side == side && on_board(state, u).is_some())
                .count() as i64),
            Ask::PiecesIn(place, kind, side) => int(state
                .units
                .iter()
                .filter(|u| u.place == place && u.kind == kind && u.side == side)
                .count() as i64),
            Ask::Tally(t, side) => int(i64::from(state.tally(module, t, side))),
            Ask::Resource(r, side) => int(state.resource(side, r)),
            Ask::Option(o) => Said::Bool(state.has_option(o)),
            Ask::Var(ref name) => int(state.var(name)),
            Ask::ActiveSide => int(side_index(module, state.active_side(module))),
            Ask::FirstTurn => Said::Bool(state.turn == state.first_turn),
            Ask::TurnYear => int(i64::from(module.calendar.turn(state.turn).year)),
            Ask::TurnMonth => int(i64::from(module.calendar.turn(state.turn).first_month)),
            Ask::Repetition => int(i64::from(state.repeat) + 1),
            Ask::SelectedBox => some(state.moving.as_ref().and_then(|m| m.active.as_ref()), |a| {
                index(a.at.index())
            }),
        }
    }

    /// Whether the view answers `said` in `state`: [`Ask::answer`] compared, without
    /// making the list of a box's pieces (recall checks ask it of many boxes).
    fn gives(&self, module: &Module, state: &GameState, said: &Said) -> bool {
        match (self, said) {
            (Ask::UnitsAt(b), Said::List(ids)) => state
                .units_at(*b)
                .map(|u| lua_index(u.index()))
                .eq(ids.iter().copied()),
            _ => self.answer(module, state) == *said,
        }
    }
}

/// The reads of the session under way, when it is read (kept in the Lua state's app
/// data, where the view's methods find it).
#[derive(Default)]
pub(crate) struct Reading {
    on: Cell<bool>,
    spoiled: Cell<bool>,
    log: RefCell<Vec<(Ask, Said)>>,
}

impl Reading {
    /// Starts noting reads.
    pub(crate) fn start(&self) {
        self.on.set(true);
        self.spoiled.set(false);
        self.log.borrow_mut().clear();
    }

    /// Stops, and gives what was read, unless something read was not an [`Ask`].
    pub(crate) fn finish(&self) -> Option<SharedReads> {
        self.on.set(false);
        let log = std::mem::take(&mut *self.log.borrow_mut());
        if self.spoiled.get() {
            return None;
        }
        Some(Arc::new(Read(log)))
    }

    fn note(&self, ask: Ask, said: &Said) {
        if self.on.get() {
            self.log.borrow_mut().push((ask, said.clone()));
        }
    }

    /// Reads noted so far, and whether the session is spoiled.
    #[cfg(test)]
    pub(crate) fn peek(&self) -> (usize, bool) {
        (self.log.borrow().len(), self.spoiled.get())
    }

    /// Something was read that cannot be checked again.
    pub(crate) fn spoil(&self) {
        if self.on.get() {
            self.spoiled.set(true);
        }
    }
}

/// What the Lua state lends the `game` view's methods (its app data): the module they
/// answer about and the reads of the session under way. One value, so a getter finds
/// both with one look-up (two were a few percent of a search's instructions).
pub(crate) struct Lent {
    pub(crate) module: Rc<Module>,
    pub(crate) reading: Reading,
}

impl Lent {
    pub(crate) fn new(module: &Module) -> Lent {
        Lent {
            module: Rc::new(module.clone()),
            reading: Reading::default(),
        }
    }

    /// `ask`'s answer in `state`, noted when the session is read.
    pub(crate) fn read(&self, state: &GameState, ask: Ask) -> Said {
        let said = ask.answer(&self.module, state);
        self.reading.note(ask, &said);
        said
    }
}

/// Marks the session under way as one that read what cannot be checked.
pub(crate) fn spoil(lua: &Lua) {
    if let Some(lent) = lua.app_data_ref::<Lent>() {
        lent.reading.spoil();
    }
}

/// A session's reads, and the answers they gave.
struct Read(Vec<(Ask, Said)>);

impl Reads for Read {
    fn hold(&self, module: &Module, state: &GameState) -> bool {
        self.0
            .iter()
            .all(|(ask, said)| ask.gives(module, state, said))
    }
}
