//! What a scenario's setup puts on the map: who controls each box and the unit counters
//! stacked there, keyed by the editor's box indices (boxes are matched by name).

use std::collections::HashMap;

use muster_core::game::{GameState, Place};
use muster_core::{Module, Scenario};

use crate::map_data::MapData;

/// One stack of identical units on a box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counter {
    /// Index of the side in the module's sides.
    pub side: usize,
    /// The unit type's short id, as in setups (`Mi`).
    pub unit: String,
    pub count: u16,
    pub entrenched: bool,
}

/// A scenario's starting position, per box of the edited map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    /// Controlling side index per box (`None`: uncontrolled, or unknown to the module).
    pub control: Vec<Option<usize>>,
    pub counters: Vec<Vec<Counter>>,
    /// Boxes to mark (in play: the legal destinations of a move); empty for none.
    pub highlight: Vec<bool>,
}

impl Overlay {
    /// The setup of `scenario` laid over `map`, using the compiled `module` it came from.
    pub fn build(module: &Module, scenario: &Scenario, map: &MapData) -> Self {
        let by_name: HashMap<String, usize> = map
            .boxes
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.to_lowercase(), i))
            .collect();
        let doc_index = |id: muster_core::ids::BoxId| {
            let name = &module.board.get(id).name;
            by_name.get(&name.to_lowercase()).copied()
        };
        let mut overlay = Self {
            control: vec![None; map.boxes.len()],
            counters: vec![Vec::new(); map.boxes.len()],
            highlight: Vec::new(),
        };
        for (id, side) in module.board.box_ids().zip(scenario.initial_control(module)) {
            if let Some(i) = doc_index(id) {
                overlay.control[i] = side.map(|s| s.index());
            }
        }
        for (side, setup) in scenario.sides.iter().enumerate() {
            for p in &setup.placements {
                let Some(i) = doc_index(p.at) else { continue };
                overlay.counters[i].push(Counter {
                    side,
                    unit: module.units.get(p.unit).id.clone(),
                    count: p.count,
                    entrenched: p.entrenched,
                });
            }
        }
        overlay
    }

    /// A game position laid over `map`: control and the units on the board, stacked by
    /// side, type, entrenchment and strength (a reduced stack shows its type with `'`).
    pub fn from_state(module: &Module, state: &GameState, map: &MapData) -> Self {
        let by_name: HashMap<String, usize> = map
            .boxes
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.to_lowercase(), i))
            .collect();
        let doc_index = |id: muster_core::ids::BoxId| {
            let name = &module.board.get(id).name;
            by_name.get(&name.to_lowercase()).copied()
        };
        let mut overlay = Self {
            control: vec![None; map.boxes.len()],
            counters: vec![Vec::new(); map.boxes.len()],
            highlight: Vec::new(),
        };
        for id in module.board.box_ids() {
            if let Some(i) = doc_index(id) {
                overlay.control[i] = state.controller(id).map(|s| s.index());
            }
        }
        for unit in &state.units {
            let Place::Board(at) = unit.place else {
                continue;
            };
            let Some(i) = doc_index(at) else { continue };
            let mut name = module.units.get(unit.kind).id.clone();
            if unit.hits > 0 {
                name.push('\'');
            }
            let stack = &mut overlay.counters[i];
            match stack.iter_mut().find(|c| {
                c.side == unit.side.index() && c.unit == name && c.entrenched == unit.entrenched
            }) {
                Some(c) => c.count += 1,
                None => stack.push(Counter {
                    side: unit.side.index(),
                    unit: name,
                    count: 1,
                    entrenched: unit.entrenched,
                }),
            }
        }
        overlay
    }
}
