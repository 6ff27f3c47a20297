//! Actions: every change a player makes to a game. Applying one is all-or-nothing, and
//! the list of actions taken (with the seed) replays the game exactly.

use serde::{Deserialize, Serialize};

use super::entry::Entry;
use super::formations::Change;
use super::moves::Path;
use super::rules::RuleError;
use crate::ids::{BoxId, SeatId, UnitId, UnitTypeId};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum Action {
    /// `move`: spend one of the step's resource to select a box holding the player's
    /// pieces; they may then move.
    Select { at: BoxId },
    /// `move`: move one piece of the selected box along a path.
    Move { unit: UnitId, path: Path },
    /// `move`: finish the moves of the selected box, or the activated piece's.
    Release,
    /// `move` with `activate="piece"`: spend what the rules ask (`activation_cost`) to
    /// activate this piece and what it carries; it may then move in legs.
    Activate { unit: UnitId },
    /// `move` with `activate="piece"`: the activated piece picks this piece up in its
    /// box (`pick_up_cost`); it is carried from then on.
    PickUp { unit: UnitId },
    /// `move` with `activate="piece"`: the activated piece leaves this piece it carries
    /// in the box where it stands.
    DropOff { unit: UnitId },
    /// `battles`: fight the battle in this box next; a `move` step with
    /// `combat="immediate"`: fight the battle the moving side brought on there now.
    Fight { at: BoxId },
    /// Battle: retreat (or withdraw before round 1) every unit of the side to this box:
    /// an adjacent one (`RetreatTo`) or, where the rules offer it, one no line joins
    /// (`evacuations`).
    Retreat { to: BoxId },
    /// Battle: decline what is offered now (withdrawal, retreat, more reinforcements,
    /// the winner's upgrade).
    Pass,
    /// Battle: bring this unit in from an adjacent box.
    Reinforce { unit: UnitId },
    /// Battle: the next unit of the firing side fires at this enemy unit.
    Target { shooter: UnitId, target: UnitId },
    /// Battle resolved by the rules: the side taking its losses takes the next step off
    /// this piece of its own.
    Lose { unit: UnitId },
    /// Battle by dice whose owner chooses his casualties (`casualties="owner"`): the side
    /// taking its losses has the next one absorbed by what the rules say may absorb a
    /// hit (`absorbs_hit`; the TripleA adaptation's water-crossing tokens) instead of
    /// taking it off a piece.
    Absorb,
    /// `upgrade` (or the winner of a battle): swap a piece for the type it promotes to.
    Upgrade { unit: UnitId },
    /// `place`: bring a piece of this type from the pool into this box.
    Place { kind: UnitTypeId, at: BoxId },
    /// Take a decision the rules offer now (see [`crate::game::offer`]): its id, the
    /// piece and box it concerns, its label as offered, and the seat it was addressed
    /// to if any (see [`crate::game::seats`]), and for an offer with a form the
    /// values entered (see [`crate::game::entry`]; none: the rules' computer referee
    /// enters them).
    Take {
        offer: String,
        unit: Option<UnitId>,
        at: Option<BoxId>,
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<SeatId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entry: Option<Box<Entry>>,
    },
    /// Formations: pieces of one box change formation all at once (`to: None`: a piece
    /// leaves its formation), checked as a whole against what each formation may hold,
    /// its capacity and the rules' `composition` (see [`crate::game::formations`]).
    Organize { changes: Vec<Change> },
    /// Formations: leave a member (with what it holds) as a garrison in a box its
    /// formation passed through on its last move, or where it stands.
    Drop { unit: UnitId, at: BoxId },
    /// Finish the current step.
    EndStep,
}

impl Action {
    /// The action with every piece it names (its own, a `Take`'s entry's) passed
    /// through `f`: how a host's file names pieces its seat may not see by stand-ins
    /// (`crate::pbem::stand_in`).
    pub fn map_units(&self, mut f: impl FnMut(UnitId) -> UnitId) -> Action {
        let mut out = self.clone();
        match &mut out {
            Action::Move { unit, .. }
            | Action::Activate { unit }
            | Action::PickUp { unit }
            | Action::DropOff { unit }
            | Action::Reinforce { unit }
            | Action::Lose { unit }
            | Action::Upgrade { unit }
            | Action::Drop { unit, .. } => *unit = f(*unit),
            Action::Target { shooter, target } => {
                *shooter = f(*shooter);
                *target = f(*target);
            }
            Action::Take { unit, entry, .. } => {
                if let Some(u) = unit {
                    *u = f(*u);
                }
                if let Some(entry) = entry {
                    for value in entry.0.values_mut() {
                        if let super::entry::Value::Pieces(given) = value {
                            for (u, _) in given.iter_mut() {
                                *u = f(*u);
                            }
                        }
                    }
                }
            }
            Action::Organize { changes } => {
                for c in changes.iter_mut() {
                    c.unit = f(c.unit);
                    if let Some(to) = &mut c.to {
                        *to = f(*to);
                    }
                }
            }
            Action::Select { .. }
            | Action::Release
            | Action::Fight { .. }
            | Action::Retreat { .. }
            | Action::Pass
            | Action::Absorb
            | Action::Place { .. }
            | Action::EndStep => {}
        }
        out
    }
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
