//! Scenarios: a start turn, units per box, control markers, pools; and the control and
//! army maximum they imply.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::unit::Flags;

use crate::diag::{Diagnostic, LoadError, Pos, Severity};
use crate::ids::{AttributeId, BoxId, MarkerId, SideId, TurnId, UnitTypeId};
use crate::module::Module;

#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    pub id: String,
    pub name: String,
    pub rule: Option<String>,
    pub start: TurnId,
    pub end: TurnId,
    /// The scenario whose setup this one reuses, if any.
    pub setup_from: Option<String>,
    pub description: Option<String>,
    /// Setup of each side, indexed by [`SideId`].
    pub sides: Vec<SideSetup>,
    /// The file the scenario was read from.
    pub file: PathBuf,
    #[serde(skip)]
    pub pos: Pos,
}

/// One side's starting forces.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SideSetup {
    /// Tallies the rules state for the start (AHD's army maximum), checked against the
    /// computed ones.
    pub stated: Vec<(crate::ids::TallyId, u32)>,
    pub placements: Vec<Placement>,
    /// Boxes carrying this side's control marker.
    pub control: Vec<BoxId>,
    /// Units in the recruitment pool.
    pub pool: Vec<(UnitTypeId, u16)>,
    /// Units set aside, entering play later by a rule (e.g. drafts).
    pub set_aside: Vec<(UnitTypeId, u16)>,
    /// Markers lying in boxes at the start.
    pub markers: Vec<(BoxId, MarkerId, u16)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub at: BoxId,
    pub unit: UnitTypeId,
    pub count: u16,
    /// The flags the placed pieces carry from the start.
    pub flags: Flags,
    /// The placement (an index into the side's placements, an earlier one of one
    /// formation piece) whose piece holds these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within: Option<usize>,
    /// The piece's own name (a placement of one piece).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Attribute values that differ from the type's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<(AttributeId, i64)>,
}

impl Scenario {
    pub fn side(&self, side: SideId) -> Option<&SideSetup> {
        self.sides.get(side.index())
    }

    /// Who controls each box at the start, indexed by [`BoxId`]: the side with units
    /// there, else the side whose control marker is there, else the box's owner.
    pub fn initial_control(&self, module: &Module) -> Vec<Option<SideId>> {
        let mut control: Vec<Option<SideId>> = module.board.boxes.iter().map(|b| b.owner).collect();
        for (i, setup) in self.sides.iter().enumerate() {
            let Some(side) = SideId::from_index(i) else {
                continue;
            };
            for &b in &setup.control {
                control[b.index()] = Some(side);
            }
        }
        for (i, setup) in self.sides.iter().enumerate() {
            let Some(side) = SideId::from_index(i) else {
                continue;
            };
            for p in &setup.placements {
                control[p.at.index()] = Some(side);
            }
        }
        control
    }

    /// The army maximum of `side` computed from the map and the starting control.
    /// A tally's value for `side` at the start.
    pub fn tally(&self, module: &Module, tally: crate::ids::TallyId, side: SideId) -> u32 {
        let sums = module.tally(tally).sums;
        module
            .board
            .total(sums, &self.initial_control(module), side)
    }

    /// Units of a type a side has on the board, in the pool and set aside.
    pub fn count_units(&self, side: SideId, unit: UnitTypeId) -> u32 {
        let Some(s) = self.side(side) else { return 0 };
        let placed = s
            .placements
            .iter()
            .filter(|p| p.unit == unit)
            .map(|p| u32::from(p.count));
        let off = s
            .pool
            .iter()
            .chain(&s.set_aside)
            .filter(|(u, _)| *u == unit)
            .map(|(_, n)| u32::from(*n));
        placed.chain(off).sum()
    }
}

/// Finds a scenario given as an id of the module or as a path to a scenario XML file.
///
/// Every command that takes a scenario goes through here.
pub fn resolve<'m>(module: &'m Module, arg: &str) -> Result<Cow<'m, Scenario>, LoadError> {
    if let Some(s) = module.scenario(arg) {
        return Ok(Cow::Borrowed(s));
    }
    let path = Path::new(arg);
    if path.is_file() {
        return crate::load::load_scenario_file(module, path).map(Cow::Owned);
    }
    let ids: Vec<&str> = module.scenarios.iter().map(|s| s.id.as_str()).collect();
    let hint = crate::suggest::did_you_mean(arg, ids.iter().copied()).unwrap_or_else(|| {
        format!(
            "give a scenario id ({}) or the path of a scenario .xml file",
            ids.join(", ")
        )
    });
    Err(LoadError {
        diagnostics: vec![Diagnostic {
            severity: Severity::Error,
            location: None,
            message: format!(
                "no scenario '{arg}' in module '{}' and no such file",
                module.id
            ),
            hint: Some(hint),
        }],
    })
}
