//! Commands: what rules may ask the engine to do when they react to an event. The
//! engine checks each before applying it; rules never change the state themselves.

use serde::{Deserialize, Serialize};

use super::state::Place;
use crate::ids::{
    AttributeId, BoxId, FlagId, MarkerId, ResourceId, SeatId, SideId, TurnId, UnitId, UnitTypeId,
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// Sets what a side holds of a resource (never below 0).
    SetResource {
        side: SideId,
        resource: ResourceId,
        value: i64,
    },
    /// Adds to (or, negative, takes from) what a side holds of a resource; the result
    /// may not go below 0.
    AddResource {
        side: SideId,
        resource: ResourceId,
        amount: i64,
    },
    /// Sets a named counter of the game.
    SetVar { name: String, value: i64 },
    /// Who controls a box, and whether a marker shows it.
    SetControl {
        at: BoxId,
        side: Option<SideId>,
        marker: bool,
    },
    /// Moves up to `count` pieces of a side and type from one off-board place to another
    /// (e.g. a draft: from set-aside to the pool).
    Transfer {
        side: SideId,
        kind: UnitTypeId,
        count: u16,
        from: Place,
        to: Place,
    },
    /// Sets (or clears) a flag of a piece on the board (AHD: entrenched).
    SetFlag {
        unit: UnitId,
        flag: FlagId,
        on: bool,
    },
    /// Sets the steps a unit has lost (0 restores it to full strength); fewer than its
    /// steps.
    SetHits { unit: UnitId, hits: u8 },
    /// Moves a piece on the board to another box off the map's lines (AHD: by sea),
    /// recorded in this player turn's moves; `unit_relocated` follows.
    MovePiece { unit: UnitId, to: BoxId },
    /// Counts `moves` toward the piece's `move_limit` in this `move` step, and takes it
    /// out of the selected box's pieces still to move (it has done its part).
    UsePiece { unit: UnitId, moves: u8 },
    /// Brings a piece of `side` and `kind` from an off-board place onto the board.
    PlacePiece {
        side: SideId,
        kind: UnitTypeId,
        at: BoxId,
        from: Place,
    },
    /// Takes a piece off the board to an off-board place (the pieces attached to it
    /// stay, detached).
    RemovePiece { unit: UnitId, to: Place },
    /// Sets a piece's attribute (its type must have it).
    SetAttribute {
        unit: UnitId,
        attribute: AttributeId,
        value: i64,
    },
    /// Adds (or, negative, removes) markers of a kind in a box; never below 0.
    AddMarkers {
        at: BoxId,
        marker: MarkerId,
        count: i32,
    },
    /// Attaches a piece to another in the same box (`to: None` detaches it): into a
    /// formation within what it holds and its capacity, onto another piece one level.
    Attach { unit: UnitId, to: Option<UnitId> },
    /// Names a piece on the board ("I Corps (McDowell)"); `None` takes its name away.
    SetName { unit: UnitId, name: Option<String> },
    /// Moves the game's last turn (an extended game, or a scenario's own end).
    SetLastTurn { turn: TurnId },
    /// The game is over.
    GameOver {
        winner: Option<SideId>,
        reason: String,
    },
    /// A line for the game log.
    Log { text: String },
    /// The game waits for these seats (a response out of turn, losses chosen by the
    /// side that takes them): until each has taken an offer addressed to it, only they
    /// act. `sealed`: none sees another's choice before all have chosen; then all are
    /// carried out together, in seat order.
    WaitFor { seats: Vec<SeatId>, sealed: bool },
}
