//! A compiled module: every definition of a game, immutable once loaded.

use std::path::PathBuf;

use serde::Serialize;

use crate::board::Board;
use crate::calendar::Calendar;
use crate::diag::{Diagnostic, SourceFiles};
use crate::ids::{OptionId, ScenarioId, SeatId, SideId};
use crate::names::NameIndex;
use crate::options::OptionalRule;
use crate::scenario::Scenario;
use crate::unit::Units;

/// The version of the engine, compared with a module's `engine` attribute.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Clone, Debug, Serialize)]
pub struct Side {
    pub id: String,
    pub name: String,
    pub color: Option<String>,
}

/// A quantity every side holds (marches, recruitment points, money): the steps'
/// procedures spend it, the rules set it.
#[derive(Clone, Debug, Serialize)]
pub struct Resource {
    pub id: String,
    pub name: String,
    pub expires: crate::format::Expires,
}

/// A number each side has, computed from the board: the sum of a box value over the
/// boxes the side controls (AHD's army maximum, 7.1). Logged when control changes.
#[derive(Clone, Debug, Serialize)]
pub struct Tally {
    pub id: String,
    /// As it reads in a sentence (`army maximum`).
    pub name: String,
    /// The box value it adds up.
    pub sums: crate::ids::BoxValueId,
}

/// A player at the table (`<seat>`): it decides for its side, or, with no side, is a
/// referee. What it sees of pieces not of its side: `enemies`, or `near` within `range`
/// lines of a box holding its side's pieces, unless the rules' `sees` hook answers.
#[derive(Clone, Debug, Serialize)]
pub struct Seat {
    pub id: String,
    pub name: String,
    pub side: Option<SideId>,
    pub enemies: crate::format::Sight,
    pub near: crate::format::Sight,
    pub range: u8,
}

impl Seat {
    /// Whether this seat sees every piece fully unless the rules say otherwise.
    pub fn sees_all(&self) -> bool {
        self.enemies == crate::format::Sight::Full && self.near == crate::format::Sight::Full
    }
}

/// A rules entry script: the folder its `require`s resolve in, and its path there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScriptEntry {
    /// The id of the module whose folder this is. Script errors name files by it
    /// (`ahd-house/rules/init.luau:3`), since a base module and its overlay may both
    /// have a `rules/init.luau`.
    pub module: String,
    pub dir: PathBuf,
    pub entry: String,
}

/// An item an overlay's `<remove>` took out of the modules below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed {
    /// The kind's word in messages (`unit type`) and its element (`unit`).
    pub kind: String,
    pub element: String,
    /// Its key as compared (ids and names lower-cased).
    pub key: String,
    /// The item element inside `<remove>`.
    pub at: crate::diag::Location,
}

/// One module of a loaded stack (a base, a module it extends, a mod laid on it): what a
/// save records so a replay can name the mod that changed.
#[derive(Clone, Debug, Serialize)]
pub struct StackEntry {
    pub id: String,
    pub version: String,
    /// [`crate::hash::module_hash`] of this module's own folder (in JSON, 16 hex digits
    /// as in saves: a u64 does not survive JSON readers that use doubles).
    #[serde(serialize_with = "hex")]
    pub content_hash: u64,
    /// Its folder as found (`muster test --with-base` runs each module's tests).
    #[serde(skip)]
    pub dir: PathBuf,
}

/// The same module whatever folder it was found in (`dir` apart).
impl PartialEq for StackEntry {
    fn eq(&self, other: &Self) -> bool {
        (&self.id, &self.version, self.content_hash)
            == (&other.id, &other.version, other.content_hash)
    }
}

impl Eq for StackEntry {}

fn hex<S: serde::Serializer>(hash: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{hash:016x}"))
}

#[derive(Clone, Debug, Serialize)]
pub struct Module {
    pub id: String,
    pub name: String,
    pub version: String,
    pub engine: String,
    /// Faces of the game's die.
    pub dice: u32,
    /// Hash of every XML and Luau file of the module and its bases (saves check it).
    pub content_hash: u64,
    pub description: Option<String>,
    /// Ids of the modules this one extends, nearest first.
    pub extends: Vec<String>,
    /// Every module loaded, lowest (the base) first, this one last.
    pub stack: Vec<StackEntry>,
    pub dir: PathBuf,
    /// Rule scripts to run, the base module's first.
    pub scripts: Vec<ScriptEntry>,
    pub sides: Vec<Side>,
    pub resources: Vec<Resource>,
    pub tallies: Vec<Tally>,
    /// The players; at least one for each side (one per side when none are declared).
    pub seats: Vec<Seat>,
    pub board: Board,
    pub units: Units,
    pub calendar: Calendar,
    pub options: Vec<OptionalRule>,
    /// Data tables for the rules (`<tables>`), in the order written.
    pub tables: Vec<crate::table::DataTable>,
    pub scenarios: Vec<Scenario>,
    /// Problems that did not stop loading.
    pub warnings: Vec<Diagnostic>,
    /// What the overlays of the stack removed (`muster check` looks for a base's script
    /// that still names it).
    #[serde(skip)]
    pub removed: Vec<Removed>,
    /// What the overlays of the stack patched, the same way (the editor marks it).
    #[serde(skip)]
    pub patched: Vec<Removed>,
    #[serde(skip)]
    pub files: SourceFiles,
    #[serde(skip)]
    pub(crate) side_names: NameIndex,
    #[serde(skip)]
    pub(crate) resource_names: NameIndex,
    #[serde(skip)]
    pub(crate) tally_names: NameIndex,
    #[serde(skip)]
    pub(crate) seat_names: NameIndex,
}

impl Module {
    pub fn side(&self, id: SideId) -> &Side {
        &self.sides[id.index()]
    }

    pub fn side_ids(&self) -> impl Iterator<Item = SideId> + '_ {
        (0..self.sides.len()).filter_map(SideId::from_index)
    }

    pub fn seat(&self, id: SeatId) -> &Seat {
        &self.seats[id.index()]
    }

    pub fn seat_ids(&self) -> impl Iterator<Item = SeatId> + '_ {
        (0..self.seats.len()).filter_map(SeatId::from_index)
    }

    /// The seats of a side, in declaration order.
    pub fn seats_of(&self, side: SideId) -> impl Iterator<Item = SeatId> + '_ {
        self.seat_ids()
            .filter(move |&s| self.seats[s.index()].side == Some(side))
    }

    /// A seat by id, ignoring case.
    pub fn find_seat(&self, id: &str) -> Option<SeatId> {
        self.seat_names.get(id).and_then(SeatId::from_index)
    }

    /// "Did you mean" for an unknown seat id, or the list of seats.
    pub fn seat_hint(&self, id: &str) -> String {
        self.seat_names.hint(id).unwrap_or_else(|| {
            let all: Vec<&str> = self.seats.iter().map(|s| s.id.as_str()).collect();
            format!("the seats are {}", all.join(", "))
        })
    }

    /// Whether every seat sees everything unless the rules hide something: then a
    /// seat's view of the game is the whole state.
    pub fn all_open(&self) -> bool {
        self.seats.iter().all(Seat::sees_all)
    }

    /// A resource by id, ignoring case.
    pub fn find_resource(&self, id: &str) -> Option<crate::ids::ResourceId> {
        self.resource_names
            .get(id)
            .and_then(crate::ids::ResourceId::from_index)
    }

    /// "Did you mean" for an unknown resource id.
    pub fn resource_hint(&self, id: &str) -> Option<String> {
        self.resource_names.hint(id)
    }

    pub fn resource(&self, id: crate::ids::ResourceId) -> &Resource {
        &self.resources[id.index()]
    }

    /// A tally by id, ignoring case.
    pub fn find_tally(&self, id: &str) -> Option<crate::ids::TallyId> {
        self.tally_names
            .get(id)
            .and_then(crate::ids::TallyId::from_index)
    }

    /// What to say of an unknown tally id: a likely spelling, or the tallies there are.
    pub fn tally_help(&self, id: &str) -> String {
        self.tally_names.hint(id).unwrap_or_else(|| {
            let ids: Vec<&str> = self.tallies.iter().map(|t| t.id.as_str()).collect();
            if ids.is_empty() {
                "the module declares no <tally>".into()
            } else {
                format!("the tallies are {}", ids.join(", "))
            }
        })
    }

    pub fn tally(&self, id: crate::ids::TallyId) -> &Tally {
        &self.tallies[id.index()]
    }

    pub fn tally_ids(&self) -> impl Iterator<Item = crate::ids::TallyId> + '_ {
        (0..self.tallies.len()).filter_map(crate::ids::TallyId::from_index)
    }

    pub fn find_side(&self, id: &str) -> Option<SideId> {
        self.side_names.get(id).and_then(SideId::from_index)
    }

    pub fn side_hint(&self, id: &str) -> Option<String> {
        self.side_names.hint(id)
    }

    pub fn scenario(&self, id: &str) -> Option<&Scenario> {
        self.scenarios
            .iter()
            .find(|s| s.id.eq_ignore_ascii_case(id))
    }

    pub fn scenario_id(&self, id: &str) -> Option<ScenarioId> {
        self.scenarios
            .iter()
            .position(|s| s.id.eq_ignore_ascii_case(id))
            .and_then(ScenarioId::from_index)
    }

    /// Finds an optional rule by id or by rule number (`4.9`).
    pub fn find_option(&self, key: &str) -> Option<OptionId> {
        self.options
            .iter()
            .position(|o| o.id.eq_ignore_ascii_case(key) || o.rule == key)
            .and_then(OptionId::from_index)
    }
}
