//! Applying the rules' commands to the state, each checked first.

use super::action::{ActionError, illegal};
use super::command::Command;
use super::march::{MoveRecord, Path};
use super::state::{GameState, Outcome, Place};
use crate::ids::{BoxId, ResourceId, SideId, UnitId};
use crate::module::Module;

/// What applying commands did that the rules hear about next.
#[derive(Default)]
pub(crate) struct Applied {
    pub log: Vec<String>,
    /// Pieces moved off the lines: (piece, from, to).
    pub relocated: Vec<(UnitId, BoxId, BoxId)>,
    /// Whether a `set_control` command was applied (`control_changed` follows).
    pub control: bool,
}

/// Applies commands in order. An invalid command fails the whole action (the caller
/// drops its working copy of the state).
pub(crate) fn apply_commands(
    module: &Module,
    state: &mut GameState,
    commands: Vec<Command>,
) -> Result<Applied, ActionError> {
    let mut out = Applied::default();
    for c in commands {
        apply_command(module, state, c, &mut out)?;
    }
    Ok(out)
}

fn board_unit(state: &GameState, unit: UnitId, what: &str) -> Result<BoxId, ActionError> {
    match state.units.get(unit.index()).map(|u| u.place) {
        Some(Place::Board(b)) => Ok(b),
        Some(_) => Err(illegal(format!(
            "{what}: unit {} is not on the board",
            unit.0
        ))),
        None => Err(illegal(format!("{what} names a unit that does not exist"))),
    }
}

fn apply_command(
    module: &Module,
    state: &mut GameState,
    c: Command,
    out: &mut Applied,
) -> Result<(), ActionError> {
    let log = &mut out.log;
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
            out.control = true;
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
        Command::SetHits { unit, hits } => {
            let Some(u) = state.units.get_mut(unit.index()) else {
                return Err(illegal("set_hits names a unit that does not exist"));
            };
            let steps = module.units.get(u.kind).steps;
            if hits >= steps {
                return Err(illegal(format!(
                    "set_hits: a {} has {steps} steps, so fewer than {steps} hits",
                    module.units.get(u.kind).id
                )));
            }
            u.hits = hits;
        }
        Command::MovePiece { unit, to } => {
            let from = board_unit(state, unit, "move_piece")?;
            if to.index() >= module.board.boxes.len() {
                return Err(illegal("move_piece names a box that does not exist"));
            }
            if from == to {
                return Err(illegal("move_piece: the piece is already there"));
            }
            let u = &mut state.units[unit.index()];
            u.place = Place::Board(to);
            u.entrenched = false;
            state.turn_log.moves.push(MoveRecord {
                unit,
                path: Path {
                    from,
                    steps: Vec::new(),
                },
                jump: false,
                sea_to: Some(to),
            });
            out.relocated.push((unit, from, to));
        }
        Command::UsePiece { unit, moves } => {
            board_unit(state, unit, "use_piece")?;
            let u = &mut state.units[unit.index()];
            u.marches = u.marches.saturating_add(moves);
            if let Some(a) = state.march.as_mut().and_then(|m| m.active.as_mut()) {
                a.ready.retain(|r| *r != unit);
            }
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
