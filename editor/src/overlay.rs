//! What a scenario's setup puts on the map: who controls each box and the unit counters
//! stacked there, keyed by the editor's box indices (boxes are matched by name).

use muster_core::format::Sight;
use muster_core::game::{GameState, Place};
use muster_core::ids::UnitId;
use muster_core::unit::Flags;
use muster_core::{Module, Scenario};

use crate::box_index::BoxIndex;
use crate::map_data::MapData;

/// The type a counter of unseen pieces shows.
pub const HIDDEN: &str = "?";

/// The side of a counter of pieces seen only as present: no side's colour.
pub const NO_SIDE: usize = usize::MAX;

/// One stack of identical units on a box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counter {
    /// Index of the side in the module's sides.
    pub side: usize,
    /// The unit type's short id, as in setups (`Mi`).
    pub unit: String,
    pub count: u16,
    /// The flags the stack's pieces carry, and their names for people (`entrenched`).
    pub flags: Flags,
    pub flag_names: String,
    /// The unit type's name for people (`Militia Infantry`).
    pub name: String,
    /// The type's class id (`infantry`), which picks the counter's symbol.
    pub class: Option<String>,
    /// The type's quality, as its index in the module's qualities (more stripes for a
    /// later one: AHD militia, veteran, crack).
    pub quality: Option<usize>,
    /// The pieces are on their reduced side.
    pub reduced: bool,
    /// A formation drawn as one counter with what it holds in its box (issue 47): its
    /// name and members; `None` for a stack of pieces.
    pub formation: Option<FormationLook>,
}

/// A formation's counter: the piece, its name (its type's when it has none) and how
/// many pieces it holds here at any depth, as the seat at the screen sees them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormationLook {
    pub unit: UnitId,
    pub name: String,
    pub members: u16,
}

/// The type data a counter shows, read from the module.
fn type_look(
    module: &Module,
    kind: muster_core::ids::UnitTypeId,
) -> (String, Option<String>, Option<usize>) {
    let t = module.units.get(kind);
    let class = t
        .class
        .and_then(|c| module.units.classes.get(c.index()))
        .map(|c| c.id.to_string());
    (t.name.clone(), class, t.quality.map(|q| q.index()))
}

/// A scenario's starting position, per box of the edited map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    /// Controlling side index per box (`None`: uncontrolled, or unknown to the module).
    pub control: Vec<Option<usize>>,
    pub counters: Vec<Vec<Counter>>,
    /// Boxes to mark (in play: the legal destinations of a move); empty for none.
    pub highlight: Vec<bool>,
    /// Boxes holding units of more than one side (a battle is on or due there).
    pub contested: Vec<bool>,
    /// Boxes held by a side other than their owner: a control marker (AHD 8.0) shows
    /// who took them, whatever the box's colour.
    pub captured: Vec<bool>,
    /// Marches to draw as arrows (from, to), with the marching side's index: the
    /// computer's last turn.
    pub arrows: Vec<(usize, usize, usize)>,
    /// Boxes to ring as the computer's doing (its battles, the boxes it captured);
    /// empty for none.
    pub events: Vec<bool>,
    /// Boxes whose fall would let a side win on its next turn (the rules'
    /// `victory_threats`), ringed in the danger colour; empty for none.
    pub danger: Vec<bool>,
}

impl Overlay {
    /// Nothing on `boxes` boxes yet.
    fn empty(boxes: usize) -> Self {
        Self {
            control: vec![None; boxes],
            counters: vec![Vec::new(); boxes],
            highlight: Vec::new(),
            contested: vec![false; boxes],
            captured: vec![false; boxes],
            arrows: Vec::new(),
            events: Vec::new(),
            danger: Vec::new(),
        }
    }

    /// The setup of `scenario` laid over `map`, using the compiled `module` it came from.
    pub fn build(module: &Module, scenario: &Scenario, map: &MapData) -> Self {
        let index = BoxIndex::new(module, map);
        let mut overlay = Self::empty(map.boxes.len());
        for (id, side) in module.board.box_ids().zip(scenario.initial_control(module)) {
            if let Some(i) = index.doc(id) {
                overlay.control[i] = side.map(|s| s.index());
                overlay.captured[i] = side.is_some() && side != module.board.get(id).owner;
            }
        }
        for (side, setup) in scenario.sides.iter().enumerate() {
            for p in &setup.placements {
                let Some(i) = index.doc(p.at) else { continue };
                let (name, class, quality) = type_look(module, p.unit);
                overlay.counters[i].push(Counter {
                    side,
                    unit: module.units.get(p.unit).id.clone(),
                    count: p.count,
                    flags: p.flags,
                    flag_names: module.units.flag_names(p.flags),
                    name,
                    class,
                    quality,
                    reduced: false,
                    formation: None,
                });
            }
        }
        overlay
    }

    /// A game position laid over `map`: control and the units on the board, stacked by
    /// side, type, flags and strength (a reduced stack shows its type with `'`).
    pub fn from_state(module: &Module, state: &GameState, map: &MapData) -> Self {
        Self::from_state_with(module, state, &BoxIndex::new(module, map))
    }

    /// [`Overlay::from_state`] with the boxes already matched (the play client keeps
    /// its index for the frame).
    pub fn from_state_with(module: &Module, state: &GameState, index: &BoxIndex) -> Self {
        Self::from_seen(module, state, index, &|_| Sight::Full)
    }

    /// [`Overlay::from_state_with`] as one seat sees it (`sight` of each piece): a
    /// piece seen by side only is a plain counter of its side ([`HIDDEN`], no class,
    /// quality or flags), pieces seen only as present one `?` counter of no side,
    /// counted; a piece not seen is left out.
    pub fn from_seen(
        module: &Module,
        state: &GameState,
        index: &BoxIndex,
        sight: &dyn Fn(UnitId) -> Sight,
    ) -> Self {
        let mut overlay = Self::empty(index.len());
        for id in module.board.box_ids() {
            if let Some(i) = index.doc(id) {
                let holder = state.controller(id);
                overlay.control[i] = holder.map(|s| s.index());
                overlay.captured[i] = holder.is_some() && holder != module.board.get(id).owner;
            }
        }
        // A formation's members in its box are drawn in its counter, not on their own.
        let mut members: Vec<(UnitId, u16)> = Vec::new();
        for u in state.unit_ids() {
            if let Some(top) = formation_top(module, state, u)
                && sight(top) == Sight::Full
                && sight(u) == Sight::Full
            {
                match members.iter_mut().find(|(f, _)| *f == top) {
                    Some(m) => m.1 = m.1.saturating_add(1),
                    None => members.push((top, 1)),
                }
            }
        }
        for (n, unit) in state.units.iter().enumerate() {
            let Place::Board(at) = unit.place else {
                continue;
            };
            let Some(i) = index.doc(at) else { continue };
            let Some(id) = UnitId::from_index(n) else {
                continue;
            };
            if formation_top(module, state, id).is_some() {
                // Counted in its formation's counter if the seat sees that, else not
                // at all: what a formation hides, it hides whole.
                continue;
            }
            if module.units.get(unit.kind).is_formation() && sight(id) == Sight::Full {
                let (type_name, class, quality) = type_look(module, unit.kind);
                let name = state
                    .name(id)
                    .map_or_else(|| type_name.clone(), str::to_string);
                let held = members.iter().find(|(f, _)| *f == id).map_or(0, |m| m.1);
                overlay.counters[i].push(Counter {
                    side: unit.side.index(),
                    unit: name.clone(),
                    count: 1,
                    flags: unit.flags,
                    flag_names: module.units.flag_names(unit.flags),
                    name: type_name,
                    class,
                    quality,
                    reduced: unit.hits > 0,
                    formation: Some(FormationLook {
                        unit: id,
                        name,
                        members: held,
                    }),
                });
                continue;
            }
            let seen = UnitId::from_index(n).map_or(Sight::None, sight);
            if seen != Sight::Full {
                // What the seat may not know never reaches the map.
                let side = match seen {
                    Sight::Side => unit.side.index(),
                    Sight::Presence => NO_SIDE,
                    _ => continue,
                };
                let stack = &mut overlay.counters[i];
                match stack
                    .iter_mut()
                    .find(|c| c.side == side && c.unit == HIDDEN)
                {
                    Some(c) => c.count += 1,
                    None => stack.push(Counter {
                        side,
                        unit: HIDDEN.into(),
                        count: 1,
                        flags: Flags::default(),
                        flag_names: String::new(),
                        name: "unseen piece".into(),
                        class: None,
                        quality: None,
                        reduced: false,
                        formation: None,
                    }),
                }
                continue;
            }
            let mut name = module.units.get(unit.kind).id.clone();
            if unit.hits > 0 {
                name.push('\'');
            }
            let stack = &mut overlay.counters[i];
            match stack
                .iter_mut()
                .find(|c| c.side == unit.side.index() && c.unit == name && c.flags == unit.flags)
            {
                Some(c) => c.count += 1,
                None => {
                    let (type_name, class, quality) = type_look(module, unit.kind);
                    stack.push(Counter {
                        side: unit.side.index(),
                        unit: name,
                        count: 1,
                        flags: unit.flags,
                        flag_names: module.units.flag_names(unit.flags),
                        name: type_name,
                        class,
                        quality,
                        reduced: unit.hits > 0,
                        formation: None,
                    });
                }
            }
        }
        for (i, stack) in overlay.counters.iter().enumerate() {
            overlay.contested[i] = stack.iter().any(|c| c.side != stack[0].side);
        }
        overlay
    }
}

/// The outermost formation holding `unit` in its box (a garrison stands apart, on its
/// own), if any; a piece attached to a piece that is no formation is drawn as before.
pub fn formation_top(module: &Module, state: &GameState, unit: UnitId) -> Option<UnitId> {
    let place = state.unit(unit).place;
    let mut top = None;
    let mut at = unit;
    for _ in 0..state.units.len() {
        let Some(h) = state.holder(at) else { break };
        if !module.units.get(state.unit(h).kind).is_formation() || state.unit(h).place != place {
            break;
        }
        top = Some(h);
        at = h;
    }
    top
}
