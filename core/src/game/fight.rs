//! A battle fought by the engine's own procedure for a computer referee: an offer
//! with `fight = true` (seed 001's umpire, §8.6: results are entered, not rolled) has
//! the battle in its box fought on a copy of the game before `referee_entry` is asked,
//! which reads the outcome (`offer.fought`) and turns it into the values it enters.
//!
//! Why a copy: the referee's entry is what changes the game (checked against the form,
//! then by `accepts_entry`, carried out by `offer_taken`), so nothing may change behind
//! it; only the dice advance, since the battle rolls the game's own (the same seed gives
//! the same entry, and a replay rolls the same dice). Why here and not in the rules: the
//! rules cannot run the engine while it is asking them, and the procedure's sequence,
//! modifiers and dice are the module's battle as players know it.

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError, illegal};
use super::battle::{self, CombatSegment};
use super::rules::Rules;
use super::state::{GameState, Place};
use crate::ids::{BoxId, SideId, UnitId};
use crate::module::Module;

/// Decisions a fought battle may take at most: far more than any battle has (each
/// round is a few per piece), so a rule that never lets a battle end is an error, not
/// a hang.
const MOST_DECISIONS: usize = 100_000;

/// What the engine's battle procedure made of a battle, fought on a copy.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fought {
    /// Steps each piece that fought lost, in the battle's order (attackers first); a
    /// piece eliminated lost every step it had. Pieces that lost none are listed with 0.
    pub losses: Vec<(UnitId, u32)>,
    /// The side left alone in the box with fighting pieces (`None`: both, the battle
    /// undecided, or neither).
    pub holder: Option<SideId>,
    pub attacker: Option<SideId>,
    pub defender: Option<SideId>,
    /// Rounds fought.
    pub rounds: u8,
    /// The battle's log lines, as the procedure wrote them.
    pub log: Vec<String>,
}

/// Fights the battle at `at` with the procedure of the step under way (its
/// `casualties`, `fire`, `resolve`; AHD's where the step is not a `battles` step), the
/// side on move attacking, on a copy of `state`: nobody withdraws, retreats or
/// reinforces unless made to, each shot goes at the target allowed that the fewest
/// shots of the part aim at (the first of those), each
/// loss on the first piece that may take it, the winner promotes no one. Only
/// `state`'s dice change (advanced by the rolls made).
pub fn fight(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    at: BoxId,
) -> Result<Fought, ActionError> {
    let mut copy = state.clone();
    copy.combat = Some(CombatSegment::default());
    if !battle::pending(module, &copy).contains(&at) {
        return Err(illegal(format!(
            "there is no battle to fight at {}: the side on move and an enemy must both have fighting pieces there",
            module.board.get(at).name
        )));
    }
    let before: Vec<(UnitId, u32)> = copy
        .units_at(at)
        .filter(|&u| module.units.get(copy.unit(u).kind).combatant)
        .map(|u| (u, u32::from(copy.unit(u).hits)))
        .collect();
    let attacker = copy.active_side(module);
    let mut out = Fought {
        attacker: Some(attacker),
        defender: before
            .iter()
            .map(|&(u, _)| copy.unit(u).side)
            .find(|&s| s != attacker),
        ..Fought::default()
    };
    out.log = battle::apply(module, rules, &mut copy, &Action::Fight { at })?;
    let mut decided = 0;
    while let Some(b) = copy.combat.as_ref().and_then(|c| c.battle.clone()) {
        decided += 1;
        if decided > MOST_DECISIONS {
            return Err(illegal(format!(
                "the battle at {} did not end after {MOST_DECISIONS} decisions",
                module.board.get(at).name
            )));
        }
        out.rounds = out.rounds.max(b.round);
        let legal = battle::legal(module, rules, &copy)?;
        // Shots spread over the targets allowed, the least aimed at first, so a part's
        // fire is not spent on one piece (shots are announced before any is rolled).
        let aimed_at = |a: &Action| match a {
            Action::Target { target, .. } => b.shots.iter().filter(|(_, t)| t == target).count(),
            _ => 0,
        };
        let choice = legal
            .iter()
            .find(|a| matches!(a, Action::Pass))
            .or_else(|| legal.iter().min_by_key(|a| aimed_at(a)))
            .cloned()
            .ok_or_else(|| {
                illegal(format!(
                    "the battle at {} waits for a decision no one can take",
                    module.board.get(at).name
                ))
            })?;
        out.log
            .extend(battle::apply(module, rules, &mut copy, &choice)?);
    }
    let mut sides: Vec<SideId> = Vec::new();
    for &(u, hits) in &before {
        let unit = copy.unit(u);
        let steps = u32::from(module.units.get(unit.kind).steps);
        let lost = if matches!(unit.place, Place::Board(_)) {
            u32::from(unit.hits).saturating_sub(hits)
        } else {
            steps.saturating_sub(hits)
        };
        out.losses.push((u, lost));
        if unit.place == Place::Board(at) && !sides.contains(&unit.side) {
            sides.push(unit.side);
        }
    }
    if let [one] = sides[..] {
        out.holder = Some(one);
    }
    state.dice = copy.dice;
    Ok(out)
}
