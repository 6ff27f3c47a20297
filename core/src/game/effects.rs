//! Applying the rules' commands to the state, each checked first.

use super::action::{ActionError, illegal};
use super::command::Command;
use super::moves::{MoveRecord, Path};
use super::pieces::board_box;
use super::state::{GameState, Outcome, Place};
use crate::ids::{
    AttributeId, BoxId, FlagId, MarkerId, ResourceId, SeatId, SideId, UnitId, UnitTypeId,
};
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

/// Applies one command, each kind by a function of its own.
fn apply_command(
    module: &Module,
    state: &mut GameState,
    c: Command,
    out: &mut Applied,
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
            set_control(module, state, at, side, marker, out)?
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
            state.transfer(side, kind, count, from, to);
        }
        Command::SetFlag { unit, flag, on } => set_flag(module, state, unit, flag, on)?,
        Command::SetHits { unit, hits } => set_hits(module, state, unit, hits)?,
        Command::MovePiece { unit, to } => relocate(module, state, unit, to, out)?,
        Command::UsePiece { unit, moves } => {
            board_box(state, unit, "use_piece")?;
            let u = &mut state.units[unit.index()];
            u.moves = u.moves.saturating_add(moves);
            done_moving(state, unit);
        }
        Command::PlacePiece {
            side,
            kind,
            at,
            from,
        } => place_piece(module, state, side, kind, at, from)?,
        Command::RemovePiece { unit, to } => {
            board_box(state, unit, "remove_piece")?;
            if matches!(to, Place::Board(_)) {
                return Err(illegal("remove_piece takes a piece off the board"));
            }
            state.take_off_board(unit, to);
            done_moving(state, unit);
            end_activation_of(state, unit);
        }
        Command::SetAttribute {
            unit,
            attribute,
            value,
        } => set_attribute(module, state, unit, attribute, value)?,
        Command::AddMarkers { at, marker, count } => add_markers(module, state, at, marker, count)?,
        Command::Attach { unit, to } => state.attach(module, unit, to)?,
        Command::SetName { unit, name } => {
            board_box(state, unit, "set_name")?;
            state.set_name(unit, name);
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
                out.log.push(format!(
                    "game over: {} ({reason})",
                    winner.map_or("draw".to_string(), |w| format!(
                        "{} wins",
                        module.side(w).name
                    ))
                ));
                state.outcome = Some(Outcome { winner, reason });
            }
        }
        Command::Log { text } => out.log.push(text),
        Command::WaitFor { seats, sealed } => wait_for(module, state, seats, sealed)?,
    }
    Ok(())
}

/// `set_control`: who holds a box; a change of hands is logged with the tallies it
/// moves.
fn set_control(
    module: &Module,
    state: &mut GameState,
    at: BoxId,
    side: Option<SideId>,
    marker: bool,
    out: &mut Applied,
) -> Result<(), ActionError> {
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
        let tallies = super::describe::tallies(module, state);
        let name = &module.board.get(at).name;
        out.log.push(if tallies.is_empty() {
            format!("{name} passes to {who}")
        } else {
            format!("{name} passes to {who} ({})", tallies.join("; "))
        });
    }
    Ok(())
}

/// `set_flag`: a declared flag of a piece on the board.
fn set_flag(
    module: &Module,
    state: &mut GameState,
    unit: UnitId,
    flag: FlagId,
    on: bool,
) -> Result<(), ActionError> {
    if module.units.flags.get(flag.index()).is_none() {
        return Err(illegal("set_flag names a flag the module does not declare"));
    }
    let Some(u) = state.units.get_mut(unit.index()) else {
        return Err(illegal("set_flag names a unit that does not exist"));
    };
    if !matches!(u.place, Place::Board(_)) {
        return Err(illegal("only pieces on the board carry flags"));
    }
    u.flags = u.flags.with(flag, on);
    Ok(())
}

/// `set_hits`: fewer hits than the piece's type has steps.
fn set_hits(
    module: &Module,
    state: &mut GameState,
    unit: UnitId,
    hits: u8,
) -> Result<(), ActionError> {
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
    Ok(())
}

/// `move_piece`: a piece on the board goes to another box off the map's lines, recorded
/// as a move of this player turn; `unit_relocated` follows.
fn relocate(
    module: &Module,
    state: &mut GameState,
    unit: UnitId,
    to: BoxId,
    out: &mut Applied,
) -> Result<(), ActionError> {
    let from = board_box(state, unit, "move_piece")?;
    if to.index() >= module.board.boxes.len() {
        return Err(illegal("move_piece names a box that does not exist"));
    }
    if from == to {
        return Err(illegal("move_piece: the piece is already there"));
    }
    state.move_piece(unit, to);
    state.turn_log.moves.push(MoveRecord {
        unit,
        path: Path {
            from,
            steps: Vec::new(),
        },
        jump: false,
        relocated_to: Some(to),
    });
    out.relocated.push((unit, from, to));
    Ok(())
}

/// A piece used (`use_piece`) or taken off the board (`remove_piece`) is no longer among
/// the selected box's pieces still to move.
fn done_moving(state: &mut GameState, unit: UnitId) {
    if let Some(a) = state.moving.as_mut().and_then(|m| m.active.as_mut()) {
        a.ready.retain(|r| *r != unit);
    }
}

/// A piece taken off the board (`remove_piece`) while activated, or halted by a battle
/// it brought on, moves no more: its activation ends, so that nothing is offered of a
/// piece off the board (what it carried stays, detached, and may be activated itself).
fn end_activation_of(state: &mut GameState, unit: UnitId) {
    if let Some(m) = state.moving.as_mut() {
        if m.activation.as_ref().is_some_and(|a| a.unit == unit) {
            m.activation = None;
        }
        if m.halted.as_ref().is_some_and(|a| a.unit == unit) {
            m.halted = None;
        }
    }
}

/// `place_piece`: the first piece of `side` and `kind` in `from` (off the board) enters
/// the board at `at`, its count of moves started afresh (rules may place during a `move`
/// step).
fn place_piece(
    module: &Module,
    state: &mut GameState,
    side: SideId,
    kind: UnitTypeId,
    at: BoxId,
    from: Place,
) -> Result<(), ActionError> {
    if matches!(from, Place::Board(_)) {
        return Err(illegal("place_piece takes a piece from off the board"));
    }
    if side.index() >= module.sides.len()
        || kind.index() >= module.units.types.len()
        || at.index() >= module.board.boxes.len()
    {
        return Err(illegal(
            "place_piece names a side, type or box that does not exist",
        ));
    }
    let Some(unit) = state.unit_ids().find(|&u| {
        let u = state.unit(u);
        u.side == side && u.kind == kind && u.place == from
    }) else {
        return Err(illegal(format!(
            "place_piece: {} has no {} left in {from:?}",
            module.side(side).id,
            module.units.get(kind).id
        )));
    };
    state.enter_board(unit, at);
    state.units[unit.index()].moves = 0;
    Ok(())
}

/// `set_attribute`: a piece's attribute, which its type must have; kept sorted by piece
/// and attribute.
fn set_attribute(
    module: &Module,
    state: &mut GameState,
    unit: UnitId,
    attribute: AttributeId,
    value: i64,
) -> Result<(), ActionError> {
    let Some(u) = state.units.get(unit.index()) else {
        return Err(illegal("set_attribute names a unit that does not exist"));
    };
    let t = module.units.get(u.kind);
    if t.attribute(attribute).is_none() {
        return Err(illegal(format!(
            "set_attribute: a {} has no attribute '{}'",
            t.id,
            module.units.attributes[attribute.index()]
        )));
    }
    let key = (unit, attribute);
    match state
        .attributes
        .binary_search_by_key(&key, |&(u, a, _)| (u, a))
    {
        Ok(i) => state.attributes[i].2 = value,
        Err(i) => state.attributes.insert(i, (unit, attribute, value)),
    }
    Ok(())
}

/// `add_markers`: markers added to (or taken from) a box, never below 0; kept sorted by
/// box and marker, with no count of 0.
fn add_markers(
    module: &Module,
    state: &mut GameState,
    at: BoxId,
    marker: MarkerId,
    count: i32,
) -> Result<(), ActionError> {
    if at.index() >= module.board.boxes.len() || marker.index() >= module.units.markers.len() {
        return Err(illegal(
            "add_markers names a box or marker that does not exist",
        ));
    }
    let have = i64::from(state.markers_at(at, marker));
    let now = have + i64::from(count);
    let Ok(now) = u16::try_from(now) else {
        return Err(illegal(format!(
            "{} has {have} {} markers; {count} would leave {now}",
            module.board.get(at).name,
            module.units.markers[marker.index()].id
        )));
    };
    let key = (at, marker);
    match state
        .markers
        .binary_search_by_key(&key, |&(b, m, _)| (b, m))
    {
        Ok(i) if now == 0 => {
            state.markers.remove(i);
        }
        Ok(i) => state.markers[i].2 = now,
        Err(_) if now == 0 => {}
        Err(i) => state.markers.insert(i, (at, marker, now)),
    }
    Ok(())
}

/// Opens a wait for some seats ([`super::seats`]); one at a time.
fn wait_for(
    module: &Module,
    state: &mut GameState,
    mut seats: Vec<SeatId>,
    sealed: bool,
) -> Result<(), ActionError> {
    if !state.waiting.is_empty() {
        return Err(illegal(format!(
            "wait_for: the game already waits for {}",
            super::seats::names(module, &state.waiting)
        )));
    }
    if seats.iter().any(|s| s.index() >= module.seats.len()) {
        return Err(illegal("wait_for names a seat the module does not have"));
    }
    seats.sort_unstable();
    seats.dedup();
    if seats.is_empty() {
        return Err(illegal("wait_for names no seat"));
    }
    state.waiting = seats;
    state.sealed = sealed.then(Vec::new);
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
