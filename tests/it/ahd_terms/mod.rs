//! AHD's words for the engine's generic box values and tallies, for the tests of the
//! AHD module: its recruitment values (1.3, 7.0) are the box value `recruit`, its army
//! maximum (7.1) the tally `army-maximum` (declared in `mods/ahd/map.xml` and
//! `sides.xml`).
#![allow(dead_code)]

use muster_core::board::MapBox;
use muster_core::game::GameState;
use muster_core::ids::{BoxValueId, SideId, TallyId};
use muster_core::{Module, Scenario};

fn recruit(m: &Module) -> BoxValueId {
    m.board
        .find_value("recruit")
        .expect("AHD declares <box-value id=\"recruit\">")
}

fn army_maximum(m: &Module) -> TallyId {
    m.find_tally("army-maximum")
        .expect("AHD declares <tally id=\"army-maximum\">")
}

/// A box's recruitment value for a side (1.3).
pub fn recruit_value(m: &Module, b: &MapBox, side: SideId) -> u16 {
    b.value(recruit(m), side)
}

/// A Recruitment City: a value in a shield of either colour (1.3, 7.0).
pub fn is_recruitment_city(m: &Module, b: &MapBox) -> bool {
    m.side_ids().any(|s| recruit_value(m, b, s) > 0)
}

/// 7.1's army maximum, in a game or at a scenario's start.
pub trait ArmyMaximum {
    fn army_maximum(&self, m: &Module, side: SideId) -> u32;
}

impl ArmyMaximum for GameState {
    fn army_maximum(&self, m: &Module, side: SideId) -> u32 {
        self.tally(m, army_maximum(m), side)
    }
}

impl ArmyMaximum for Scenario {
    fn army_maximum(&self, m: &Module, side: SideId) -> u32 {
        self.tally(m, army_maximum(m), side)
    }
}
