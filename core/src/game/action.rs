//! Actions: every change a player makes to a game. Applying one is all-or-nothing, and
//! the list of actions taken (with the seed) replays the game exactly.

use serde::{Deserialize, Serialize};

use super::march::Path;
use super::rules::RuleError;
use crate::ids::{BoxId, UnitId, UnitTypeId};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum Action {
    /// Movement: spend a march to activate a box holding the player's units.
    Activate { at: BoxId },
    /// Movement: move one unit of the activated box along a path.
    Move { unit: UnitId, path: Path },
    /// Movement: entrench one unit of the activated box (the first pays any extra marches).
    Entrench { unit: UnitId },
    /// Movement: finish the march under way.
    EndMarch,
    /// Movement: move one unit by sea from its port to another port, outside any march
    /// (it costs marches of its own, as the rules say).
    SeaMove { unit: UnitId, to: BoxId },
    /// Combat: fight the battle in this box next.
    Fight { at: BoxId },
    /// Battle: retreat (or withdraw before round 1) every unit of the side to this box:
    /// an adjacent one (`RetreatTo`) or, where the rules offer it, another port by sea
    /// (`MayEvacuate`).
    Retreat { to: BoxId },
    /// Battle: decline what is offered now (withdrawal, retreat, more reinforcements,
    /// the winner's promotion).
    Pass,
    /// Battle: bring this unit in from an adjacent box.
    Reinforce { unit: UnitId },
    /// Battle: the next unit of the firing side fires at this enemy unit.
    Target { shooter: UnitId, target: UnitId },
    /// Promotion (after a won battle, or in the Promotion segment).
    Promote { unit: UnitId },
    /// Recruitment: bring a unit of this type from the pool into this box.
    Recruit { kind: UnitTypeId, at: BoxId },
    /// Movement (between marches) or Recruitment: restore one reduced unit of the
    /// player's to full strength, for a march or a recruitment point, where the rules
    /// allow it (`MayRecover`).
    Recover { unit: UnitId },
    /// Finish the current segment.
    EndSegment,
}

/// An action that cannot be taken now; the game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("not allowed: {0}")]
    Illegal(String),
    #[error(transparent)]
    Rule(#[from] RuleError),
}

pub(crate) fn illegal(why: impl Into<String>) -> ActionError {
    ActionError::Illegal(why.into())
}
