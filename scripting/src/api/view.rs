//! The `game` view's methods (`engine/view.rs`, `add_methods` and the Luau `WRAPPERS`), as a
//! script calls them: `game:units_at(box)`.

use super::{MethodDoc, Param, p};

const UNIT: Param = p("unit", "Unit", "a piece's number");
const BOX: Param = p("box", "BoxNum", "a box number");
const SIDE: Param = p("side", "SideId", "a side id");
const NONE: &[Param] = &[];
const THROUGH: Param = p(
    "through",
    "Passage?",
    "what the path may pass through; nil: any box, any line",
);

const fn m(
    name: &'static str,
    params: &'static [Param],
    returns: &'static str,
    doc: &'static str,
) -> MethodDoc {
    MethodDoc {
        name,
        params,
        returns,
        doc,
    }
}

/// Every method of the `game` view.
#[rustfmt::skip]
pub const METHODS: &[MethodDoc] = &[
    // Pieces.
    m("unit_side", &[UNIT], "SideId", "The piece's side."),
    m("unit_type", &[UNIT], "UnitTypeId", "The piece's unit type."),
    m("unit_class", &[UNIT], "string?", "The class id of the piece's type (nil for a type without one)."),
    m("unit_quality", &[UNIT], "string?", "The quality id of the piece's type (nil for a type without one)."),
    m("unit_box", &[UNIT], "BoxNum?", "The box the piece is in; nil off the board."),
    m("unit_place", &[UNIT], "\"board\" | \"pool\" | \"stock\" | \"set_aside\"", "Where the piece is."),
    m("unit_name", &[UNIT], "string", "How the log and the displays name the piece: its type and number on the board (`Militia Infantry #12`, `(reduced)` after a hit), the type alone off it."),
    m("unit_hits", &[UNIT], "number", "Steps the piece has lost (0: full strength)."),
    m("unit_flag", &[UNIT, p("flag", "string", "a flag id from `<flag>`")], "boolean", "Whether the piece carries the flag (cleared when it changes place)."),
    m("unit_moves", &[UNIT], "number", "Selections the piece took part in this `move` step (`move_limit`)."),
    m("attribute", &[UNIT, p("name", "string", "an attribute id")], "number?", "The piece's value of an attribute its type declares; nil if its type has none."),
    m("attached_to", &[UNIT], "Unit?", "The piece this one is attached to, if any."),
    m("attached", &[UNIT], "{ Unit }", "The pieces attached to this one."),
    m("holder", &[UNIT], "Unit?", "The formation (or piece) holding this one, if any; a garrison's holder stands in another box."),
    m("members", &[UNIT], "{ Unit }", "The pieces this formation holds directly."),
    m("all_members", &[UNIT], "{ Unit }", "The pieces this formation holds at any depth, garrisons included."),
    m("piece_name", &[UNIT], "string?", "The piece's own name (\"I Corps (McDowell)\"), if it has one."),
    m("weight", &[UNIT], "number", "What the piece counts in its side's army size with all it holds: its type's `weight`, else its members' weights, else 1 for a combatant and 0 for others."),
    m("army_size", &[SIDE], "number", "The weights of a side's pieces on the board that nothing holds (seed 001 §3.2: a corps 1, a field corps 2)."),
    m("units_at", &[BOX], "{ Unit }", "The pieces in a box."),
    m("units_on_board", NONE, "{ Unit }", "Every piece on the board."),
    m("board_pieces", NONE, "{ BoardPiece }", "Every piece on the board with its box, side, type, class and hits, in `units_on_board`'s order: one call where a rule reading every piece would make several a piece."),
    m("units_on_board_of", &[SIDE], "number", "How many pieces of a side are on the board."),
    m("pieces", &[p("unit_type", "UnitTypeId", "a unit type id")], "{ Unit }", "Every piece of a type, wherever it is (a general waiting in stock)."),
    m("pieces_in", &[p("place", "\"pool\" | \"stock\" | \"set_aside\"", "a place off the board, as `unit_place` names it"), p("unit_type", "UnitTypeId", "a unit type id"), p("side", "SideId?", "default: the side to act")], "number", "How many pieces of the type the side has in the place: one call where a scan of `pieces` would ask each piece's side and place."),
    // Boxes.
    m("controller", &[BOX], "SideId?", "Who controls the box; nil: nobody."),
    m("marker", &[BOX], "boolean", "Whether a control marker shows the box's control."),
    m("markers", &[BOX, p("name", "string", "a marker id")], "number", "How many markers of a kind lie in the box."),
    m("enemy_in", &[BOX, SIDE], "boolean", "Whether the box holds a piece of a side other than `side`."),
    m("enemy_class_in", &[BOX, SIDE, p("class", "string", "a unit class id")], "boolean", "Whether the box holds an enemy piece of the class."),
    m("tally", &[p("tally", "string", "a tally id from `<tally>`"), p("side", "SideId?", "default: the side to act")], "number", "The tally's value for the side with the control now: its box value added up over the boxes the side controls (AHD's army maximum)."),
    // Graph queries: paths through what a `Passage` allows.
    m("distance", &[p("from", "BoxNum", "where the path starts"), p("to", "BoxNum", "where it ends"), THROUGH], "number?", "How many boxes a shortest path enters (0 from a box to itself); nil when none joins them. One search in the engine: supply lines and distances by line kind cost no Luau loop."),
    m("nearest", &[p("from", "BoxNum", "where the paths start"), p("targets", "{ BoxNum }", "the boxes sought"), THROUGH], "(BoxNum?, number?)", "The nearest target and its distance; among targets as near, the lowest box number. nil, nil when none can be reached (the nearest friendly city; a supply line to any of several sources)."),
    m("reach", &[p("from", "BoxNum", "where the paths start"), THROUGH], "{ [BoxNum]: number }", "Every box a path can reach, with its distance (`from` at 0)."),
    m("path", &[p("from", "BoxNum", "where the path starts"), p("to", "BoxNum", "where it ends"), THROUGH], "{ BoxNum }?", "A shortest path, both ends included; nil when there is none. Of paths as short, always the same one."),
    m("placed_at", &[BOX], "number", "Pieces placed in the box this player turn."),
    // The turn.
    m("active_side", NONE, "SideId", "The side to act."),
    m("resource", &[p("id", "string", "a resource id"), p("side", "SideId?", "default: the side to act")], "number", "A side's amount of a resource."),
    m("step", NONE, "string?", "The id of the step under way."),
    m("waiting", NONE, "{ SeatId }", "The seats the rules wait for (`wait_for`) that have not answered yet; empty when the game waits for nobody in particular."),
    m("repetition", NONE, "number", "Which repetition of a repeated step this is (1 first)."),
    m("first_turn", NONE, "boolean", "Whether this is the scenario's first turn."),
    m("turn_label", NONE, "string", "This turn's label on the track (`04/1861`)."),
    m("last_turn_label", NONE, "string", "The label of the game's last turn."),
    m("turn_year", NONE, "number", "This turn's year."),
    m("turn_month", NONE, "number", "This turn's first month (1-12)."),
    m("option", &[p("id", "string", "an optional rule's id or number")], "boolean", "Whether the optional rule is in play."),
    m("var", &[p("name", "string", "the counter's name")], "number", "A named counter of the game (`set_var`); 0 if never set."),
    m("scenario", NONE, "string", "The scenario's id."),
    // This player turn's record.
    m("selected_box", NONE, "BoxNum?", "The box selected in the `move` step under way."),
    m("ready_units", NONE, "{ Unit }", "The selected box's pieces still to move."),
    m("moved", &[UNIT], "boolean", "Whether the piece moved this player turn."),
    m("relocated", &[UNIT], "boolean", "Whether the piece was moved off the lines (`move_piece`) this player turn."),
    m("jumps", &[UNIT], "number", "How many jump moves the piece made this player turn."),
    m("fought", &[UNIT], "boolean", "Whether the piece fought this player turn."),
    // The battle under way (nil when there is none).
    m("battle_box", NONE, "BoxNum?", "The battle's box."),
    m("battle_round", NONE, "number?", "The round, 1 first."),
    m("battle_attacker", NONE, "SideId?", "The attacking side."),
    m("battle_defender", NONE, "SideId?", "The defending side."),
    m("battle_firing", NONE, "SideId?", "The side firing now."),
    m("battle_units", &[SIDE], "{ Unit }?", "A side's pieces still in the battle, in the order they joined."),
    m("battle_entered_from", NONE, "{ BoxNum }?", "The boxes the attackers entered the battle from (by move or as reinforcements); nil outside a battle."),
    m("battle_by_relocation", NONE, "boolean?", "Whether an attacker entered the battle's box off the lines (eliminated ones included)."),
    m("entry_line", &[UNIT], "LineNum?", "The line the piece entered the battle's box by."),
    m("entered_by_relocation", &[UNIT], "boolean", "Whether the piece entered the battle's box off the lines."),
    m("shots", NONE, "{ Shot }", "The shots announced in this part of the round."),
];
