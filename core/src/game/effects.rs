//! Applying the rules' commands to the state, each checked first.

use super::action::{ActionError, illegal};
use super::command::Command;
use super::state::{GameState, Outcome, Place};
use crate::ids::{ResourceId, SideId};
use crate::module::Module;

/// Applies commands in order; returns the log lines they produced. An invalid command
/// fails the whole action (the caller drops its working copy of the state).
pub(crate) fn apply_commands(
    module: &Module,
    state: &mut GameState,
    commands: Vec<Command>,
) -> Result<Vec<String>, ActionError> {
    let mut log = Vec::new();
    for c in commands {
        apply_command(module, state, c, &mut log)?;
    }
    Ok(log)
}

fn apply_command(
    module: &Module,
    state: &mut GameState,
    c: Command,
    log: &mut Vec<String>,
) -> Result<(), ActionError> {
    match c {
        Command::SetResource {
            side,
            resource,
            value,
        } => set_resource(module, state, side, resource, value)?,
        Command::AddResource {
            side,
            resource,
            amount,
        } => {
            let value = state.resource(side, resource).checked_add(amount);
            let Some(value) = value else {
                return Err(illegal("add_resource overflows"));
            };
            set_resource(module, state, side, resource, value)?;
        }
        Command::SetVar { name, value } => {
            state.vars.insert(name, value);
        }
        Command::SetControl { at, side, marker } => {
            let Some(b) = state.boxes.get_mut(at.index()) else {
                return Err(illegal("set_control names a box that does not exist"));
            };
            if side.is_some_and(|s| s.index() >= module.sides.len()) {
                return Err(illegal("set_control names a side that does not exist"));
            }
            let before = b.controller;
            b.controller = side;
            b.marker = marker && side.is_some();
            if before != side {
                let who = side.map_or("nobody".to_string(), |s| module.side(s).name.clone());
                let maxima: Vec<String> = module
                    .side_ids()
                    .map(|s| format!("{} {}", module.side(s).name, state.army_maximum(module, s)))
                    .collect();
                log.push(format!(
                    "{} passes to {who} (army maximum: {})",
                    module.board.get(at).name,
                    maxima.join(", ")
                ));
            }
        }
        Command::Transfer {
            side,
            kind,
            count,
            from,
            to,
        } => {
            if matches!(from, Place::Board(_)) || matches!(to, Place::Board(_)) {
                return Err(illegal(
                    "transfer moves pieces between off-board places only",
                ));
            }
            let mut left = count;
            for u in state.units.iter_mut() {
                if left == 0 {
                    break;
                }
                if u.side == side && u.kind == kind && u.place == from {
                    u.place = to;
                    left -= 1;
                }
            }
        }
        Command::Entrench { unit, entrenched } => {
            let Some(u) = state.units.get_mut(unit.index()) else {
                return Err(illegal("entrench names a unit that does not exist"));
            };
            if !matches!(u.place, Place::Board(_)) {
                return Err(illegal("only units on the board can entrench"));
            }
            u.entrenched = entrenched;
        }
        Command::Recover { unit } => {
            let Some(u) = state.units.get_mut(unit.index()) else {
                return Err(illegal("recover names a unit that does not exist"));
            };
            u.hits = 0;
        }
        Command::SetLastTurn { turn } => {
            if turn.index() >= module.calendar.turns.len() || turn < state.turn {
                return Err(illegal(
                    "set_last_turn names a turn that is not ahead on the track",
                ));
            }
            state.end = turn;
        }
        Command::GameOver { winner, reason } => {
            if state.outcome.is_none() {
                log.push(format!(
                    "game over: {} ({reason})",
                    winner.map_or("draw".to_string(), |w| format!(
                        "{} wins",
                        module.side(w).name
                    ))
                ));
                state.outcome = Some(Outcome { winner, reason });
            }
        }
        Command::Log { text } => log.push(text),
    }
    Ok(())
}

/// Checks and sets a side's resource.
fn set_resource(
    module: &Module,
    state: &mut GameState,
    side: SideId,
    resource: ResourceId,
    value: i64,
) -> Result<(), ActionError> {
    if side.index() >= module.sides.len() || resource.index() >= module.resources.len() {
        return Err(illegal(
            "a resource command names a side or resource that does not exist",
        ));
    }
    if value < 0 {
        return Err(illegal(format!(
            "{} would have {value} {}; a resource cannot go below 0",
            module.side(side).id,
            module.resource(resource).id
        )));
    }
    state.set_resource(side, resource, value);
    Ok(())
}
