//! The commands an event handler may return (`engine/commands.rs`, `command`): each is checked,
//! then applied in order; an invalid one fails the whole action and nothing changes.

use super::{CommandDoc, Param, p};

const UNIT: Param = p("unit", "Unit", "a piece on the board");
const BOX: Param = p("box", "BoxNum", "a box number");
const SIDE_OR_ACTIVE: Param = p("side", "SideId?", "default: the side whose turn it is");
const PLACE: &str = "\"pool\" | \"stock\" | \"set_aside\"";

const fn c(kind: &'static str, fields: &'static [Param], doc: &'static str) -> CommandDoc {
    CommandDoc { kind, fields, doc }
}

/// Every command kind the engine accepts.
#[rustfmt::skip]
pub const COMMANDS: &[CommandDoc] = &[
    c("set_resource", &[p("resource", "string", "a resource id"), p("value", "number", "the new amount, 0 or more"), SIDE_OR_ACTIVE], "Sets a side's amount of a resource."),
    c("add_resource", &[p("resource", "string", "a resource id"), p("amount", "number", "added (negative: taken); the total never goes below 0"), SIDE_OR_ACTIVE], "Changes a side's amount of a resource."),
    c("set_var", &[p("name", "string", "the counter's name"), p("value", "number", "its new value")], "Sets a named counter of the game (`game:var`)."),
    c("set_control", &[BOX, p("side", "SideId?", "nil: nobody"), p("marker", "boolean?", "whether a control marker shows it (default false)")], "Sets who controls a box; `control_changed` follows."),
    c("transfer", &[p("side", "SideId", "whose pieces"), p("unit", "UnitTypeId", "their type"), p("count", "number", "how many"), p("from", PLACE, "where from"), p("to", PLACE, "where to")], "Moves pieces between the pool, the stock and the set-aside pieces."),
    c("set_flag", &[UNIT, p("flag", "string", "a flag id from `<flag>`"), p("on", "boolean?", "default true")], "Sets (or clears) a flag of a piece on the board; flags are cleared when the piece changes place."),
    c("set_hits", &[UNIT, p("hits", "number", "steps lost, fewer than the type's steps")], "Sets the steps a piece has lost (0: full strength)."),
    c("move_piece", &[UNIT, p("box", "BoxNum", "where to")], "Moves a piece on the board to a box off the lines (recorded as a move of this turn; attached pieces go along); `unit_relocated` follows."),
    c("use_piece", &[UNIT, p("moves", "number", "selections to count")], "Counts moves toward the piece's `move_limit` and takes it out of the selected box's pieces still to move."),
    c("place_piece", &[p("unit", "UnitTypeId", "the type to place"), BOX, SIDE_OR_ACTIVE, p("from", "(\"pool\" | \"stock\" | \"set_aside\")?", "default: the pool")], "Brings a piece onto the board."),
    c("remove_piece", &[UNIT, p("to", "(\"pool\" | \"stock\" | \"set_aside\")?", "default: where its type returns")], "Takes a piece off the board; what it carried stays, detached."),
    c("set_attribute", &[UNIT, p("attribute", "string", "an attribute its type declares"), p("value", "number", "the new value")], "Sets a piece's attribute."),
    c("add_markers", &[BOX, p("marker", "string", "a marker id"), p("count", "number?", "default 1")], "Puts markers in a box."),
    c("remove_markers", &[BOX, p("marker", "string", "a marker id"), p("count", "number?", "default 1; never below 0")], "Takes markers from a box."),
    c("attach", &[UNIT, p("to", "Unit?", "the carrier in the same box; nil: detach")], "Attaches a piece to another: it moves with it and is set free when the carrier is eliminated or removed. Into a formation (a type with `holds`): to any depth, within what it holds and its capacity (forming, detaching and reorganising from the rules); onto any other piece: one level (a piece that carries others is refused)."),
    c("set_name", &[UNIT, p("name", "string?", "the piece's own name (\"I Corps (McDowell)\"); nil: none")], "Names a piece on the board; the log, the views and `game:piece_name` show it."),
    c("set_last_turn", &[p("turn", "string", "a turn label on the track (`03/1863`)")], "Moves the game's end."),
    c("game_over", &[p("winner", "SideId?", "nil: a draw"), p("reason", "string", "why, for the log")], "Ends the game."),
    c("log", &[p("text", "string", "the line")], "Writes a line in the game's log (shown as the rules' own)."),
    c("wait_for", &[p("seats", "{ SeatId }", "the seats to wait for"), p("sealed", "boolean?", "true: none sees another's choice before all have chosen; then all are carried out together, in seat order")], "Makes the game wait for these seats: until each has taken an offer addressed to it (`seat` in `offers`), only they act. The rules must offer each something."),
];
