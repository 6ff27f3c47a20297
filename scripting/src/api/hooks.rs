//! The hooks: when each is called and with what. Whether it is a question or an event
//! and how answers combine come from the engine's catalogue (`muster_core::game::rules`).

use super::{HookDoc, Param, p};

/// Where in the game a hook belongs, for grouping the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    Turn,
    Movement,
    Battle,
    Upgrade,
    Offers,
    Seats,
    Hints,
}

impl Phase {
    pub const ALL: [Phase; 7] = [
        Phase::Turn,
        Phase::Movement,
        Phase::Battle,
        Phase::Upgrade,
        Phase::Offers,
        Phase::Seats,
        Phase::Hints,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Phase::Turn => "Turns and steps",
            Phase::Movement => "Movement (`move` steps)",
            Phase::Battle => "Battles (`battles` steps)",
            Phase::Upgrade => "Upgrades and placement (`upgrade`, `place` steps)",
            Phase::Offers => "Offers: decisions the rules add",
            Phase::Seats => "Seats: who commands and who sees",
            Phase::Hints => "Hints for computer players",
        }
    }
}

const UNIT: Param = p("unit", "Unit", "the piece");
const PATH: Param = p(
    "path",
    "Path",
    "where it goes: `from`, then `steps` of `{ line, to }` (read-only: the same table is lent to every question about the path)",
);
const SHOOTER: Param = p("shooter", "Unit", "the piece firing");
const TARGET: Param = p("target", "Unit", "the piece fired at");
const STEP: Param = p("step", "string", "the step's id in `calendar.xml`");
const SIDE: Param = p("side", "SideId", "the side asking");
const TO: Param = p("to", "BoxNum", "the box it would go to");
const WITHDRAWAL: Param = p(
    "withdrawal",
    "boolean",
    "true before round 1 (a withdrawal), false in a battle's later rounds",
);
const BOX: Param = p("box", "BoxNum", "the box");
const SEAT: Param = p("seat", "SeatId", "the seat (a player; `defs.seats`)");

const fn h(
    name: &'static str,
    phase: Phase,
    when: &'static str,
    params: &'static [Param],
) -> HookDoc {
    HookDoc {
        name,
        phase,
        when,
        params,
        returns: None,
    }
}

/// A list hook whose items are not offers.
const fn list(
    name: &'static str,
    phase: Phase,
    when: &'static str,
    params: &'static [Param],
    returns: &'static str,
) -> HookDoc {
    HookDoc {
        name,
        phase,
        when,
        params,
        returns: Some(returns),
    }
}

/// Every hook of the engine's catalogue, described.
#[rustfmt::skip]
pub const HOOKS: &[HookDoc] = &[
    // Turns and steps.
    h("turn_started", Phase::Turn, "A game turn begins (drafts and other scheduled arrivals happen here).", &[]),
    h("player_turn_started", Phase::Turn, "A side's player turn begins.", &[]),
    h("step_started", Phase::Turn, "A step of the turn begins (and again for each repetition of a repeated step): set the resources it spends here, e.g. roll for marches. Dice may be rolled.", &[STEP]),
    h("step_ended", Phase::Turn, "A step is over, before the resources that expire with it are cleared.", &[STEP]),
    h("control_changed", Phase::Turn, "Commands just changed who controls some box.", &[]),
    h("player_turn_ended", Phase::Turn, "A side's player turn is over.", &[]),
    h("turn_ended", Phase::Turn, "A game turn is over.", &[]),
    h("game_ended", Phase::Turn, "The last turn of the game is over: name the winner here (`game_over`).", &[]),
    // Movement.
    h("may_enter", Phase::Movement, "May the unit move along the whole path (whether or not it stops at its end)? Asked at every line of the path search. Must be monotonic: if a path may not be entered, no longer one starting with it may be. Like `may_stop` and `is_jump`, must answer alike for pieces alike (side, type, box, hits, flags, selections this step and attributes, not attached, carrying nothing, not yet moved, fought or upgraded this player turn): computer players search one of them for all.", &[UNIT, PATH]),
    h("may_stop", Phase::Movement, "May the unit end its move at the last box of the path?", &[UNIT, PATH]),
    h("is_jump", Phase::Movement, "Is moving along this path a jump (for display and the rules' own limits, `game:jumps`)?", &[UNIT, PATH]),
    h("move_limit", Phase::Movement, "How many selections of its box the unit may take part in during one `move` step; nil: no limit.", &[UNIT]),
    h("activation_cost", Phase::Movement, "A `move` step with `activate=\"piece\"`: what activating this piece (and what it carries) costs in the step's resource. Answers are added; no handler: 0. A piece past its `move_limit` is never offered.", &[UNIT]),
    h("move_points", Phase::Movement, "A `move` step with `activate=\"piece\"`: the movement points the piece has for its legs once activated (asked at activation). The smallest answer counts; nil: no limit but `max-path`.", &[UNIT]),
    h("move_cost", Phase::Movement, "A `move` step with `activate=\"piece\"`: the movement points the path's last line costs the piece, given the lines before it in the leg (line kind, weather, the terrain on the side of the box entered). Answers are added; no handler: 1 a line. A leg costing more than the points left is refused.", &[UNIT, PATH]),
    h("pick_up_cost", Phase::Movement, "A `move` step with `activate=\"piece\"`: what the activated piece (`carrier`) pays in the step's resource to pick this piece up in its box, given what the activation has cost so far (`paid`). The smallest answer counts; nil: it may not.", &[UNIT, p("carrier", "Unit", "the piece activated"), p("paid", "number", "what the activation has cost so far")]),
    h("piece_activated", Phase::Movement, "The moving side activated a piece in a `move` step with `activate=\"piece\"`; its cost is paid already.", &[UNIT, p("cost", "number", "what the activation cost")]),
    list("end_step_refusal", Phase::Turn, "Why the side to act may not end this step now (an obligation not met: spend a point in a theatre), in the rules' words with their reference; nil allows. The first reason counts. Asked when a player ends a step (and when the engine lists the actions, so `EndStep` is offered only when allowed), never when a step ends by itself. Pure, like a question.", &[STEP], "string?"),
    h("box_selected", Phase::Movement, "The moving side selected a box in a `move` step; its pieces may move now.", &[BOX]),
    h("unit_moved", Phase::Movement, "A unit has just moved along a path.", &[UNIT, PATH]),
    h("unit_relocated", Phase::Movement, "A piece was moved off the map's lines by a `move_piece` command (by sea, say).", &[UNIT, p("from", "BoxNum", "where it was"), p("to", "BoxNum", "where it is now")]),
    // Battles.
    h("battle_started", Phase::Battle, "A battle begins in a box.", &[BOX]),
    h("may_withdraw", Phase::Battle, "May the defender of the battle under way withdraw before round 1?", &[]),
    h("retreat_to", Phase::Battle, "May the side retreat (or, before round 1, withdraw) from the battle to this adjacent box?", &[SIDE, TO, WITHDRAWAL]),
    list("evacuations", Phase::Battle, "The boxes no line joins to the battle's box that the side may retreat (or withdraw) to from the battle under way (AHD: by sea, 5.41); asked at each chance to retreat. Boxes joined to the battle's are `retreat_to`'s; the engine ignores them here, and the battle's own box.", &[SIDE, WITHDRAWAL], "{ BoxNum }?"),
    h("may_reinforce", Phase::Battle, "May this unit join the battle under way on its side, now?", &[UNIT]),
    h("may_target", Phase::Battle, "May the shooter name this target now, given the shots already announced (`game:shots`)? Contract: the answer depends on the shooter, the target, the units still in the battle, the shots announced this part and the battle's fixed facts; not on hits, the round or the markers.", &[SHOOTER, TARGET]),
    h("shot_modifier", Phase::Battle, "Added to the shooter's combat value for this shot; asked when targets are named and again when each shot is rolled. Contract: depends on the shooter, the target, the round, the firing side, the battle's fixed facts, the units still in the battle in the order they joined and the box's markers; not on hits or piece numbers. With `fixed = true` only on the first four and the fixed facts.", &[SHOOTER, TARGET]),
    h("absorbs_hit", Phase::Battle, "The shooter has just hit the target: does something else take the hit (a token)? If so the target is unharmed and `hit_absorbed` follows. Where casualties are the owner's (`casualties=\"owner\"`), asked as the side hit takes each loss, and absorbing is its choice (`Absorb`). Contract: depends on the battle's box, its markers and the sides only.", &[SHOOTER, TARGET]),
    h("hit_absorbed", Phase::Battle, "A hit was taken by something else (`absorbs_hit` said so): pay for it here. Its commands may change the markers in the battle's box and nothing else.", &[SHOOTER, TARGET]),
    list("battle_losses", Phase::Battle, "A battle the rules resolve (`resolve=\"rules\"` on its step): each side's losses in steps, asked once after any withdrawal before combat. An item `{ side, steps, rule? }` is what the side loses in all; `{ side, unit, steps, rule? }` is what that piece must take before the side's other pieces (a fort's forced loss), counted in the side's losses. `rule` (e.g. `\"L651\"`) is quoted when an allocation is refused. The side chooses the pieces (`Lose`), the defender first; losses beyond what a side has are not taken.", &[], "{ Loss }?"),
    h("yields", Phase::Battle, "After a battle the rules resolve, both sides still there: does this side give up the field and retreat? Asked of the attacker, then of the defender; neither leaves both in place with no winner.", &[SIDE]),
    h("unit_reinforced", Phase::Battle, "A unit left `from` to reinforce the battle under way.", &[UNIT, p("from", "BoxNum", "the box it came from")]),
    h("unit_eliminated", Phase::Battle, "A unit was eliminated in battle (it is already in the pool or stock).", &[UNIT]),
    h("battle_ended", Phase::Battle, "A battle is decided.", &[BOX, p("winner", "SideId?", "nil after a withdrawal before combat")]),
    // Upgrades and placement.
    h("may_upgrade", Phase::Upgrade, "May this unit be upgraded (swapped for the type it promotes to) now?", &[UNIT]),
    h("unit_upgraded", Phase::Upgrade, "A unit was upgraded; `unit` is the piece that left.", &[UNIT]),
    h("may_place", Phase::Upgrade, "May the moving side place a piece of this type from its pool in this box now?", &[p("unit_type", "UnitTypeId", "the type to place"), BOX]),
    h("unit_placed", Phase::Upgrade, "A piece was placed onto the board from the pool.", &[UNIT]),
    // Offers.
    h("offers", Phase::Offers, "What the side to act may do now besides the step's own decisions, at every decision outside a battle. `wanted` is nil when the engine lists them, `{ id, unit?, box? }` when it checks the one being taken (a handler may then list only what matches, and a closed decision with its reason, `refused`). Pure, like a question.", &[STEP, p("wanted", "Wanted?", "the offer being taken, or nil")]),
    h("offer_taken", Phase::Offers, "The deciding side took an offer (its cost is paid already): carry it out. An offer with a `form` comes with its `entry`, checked against the form and accepted by `accepts_entry`.", &[p("offer", "Offer", "the offer taken")]),
    list("composition", Phase::Offers, "Whether the rules refuse what a formation holds after a player's organisation (`Organize`, `Drop`): nil accepts, a reason refuses, naming the rule's section (\"§6.22: ...\"); the first reason counts. Asked of every piece the action changes and every formation above them, after the module's `holds` and `capacity` (the engine's own checks). A refusal applies nothing. Pure, like a question.", &[p("unit", "Unit", "a formation (or a piece) the action changed")], "string?"),
    list("accepts_entry", Phase::Offers, "Whether the rules accept the values entered for an offer with a `form` (`offer.entry`, already checked against the form: every field filled, each value one its field allows): nil accepts, a reason refuses; the first reason counts. A refused entry is an error naming the offer and the reason, and nothing is applied. Pure, like a question.", &[p("offer", "Offer", "the offer being taken, with its `entry`")], "string?"),
    list("referee_entry", Phase::Offers, "The computer referee: the values to enter for an offer with a `form` when no person enters them (a `Take` without an entry: computer players, `muster play --referee computer`). Return nil (not this handler's offer) or `{ [field id] = value }`; the first entry counts. It is then checked like a person's. Dice may be rolled (the game's own, so the game replays exactly).", &[p("offer", "Offer", "the offer being taken, with its `form`")], "EntryValues?"),
    // Seats.
    h("commands", Phase::Seats, "Whether the seat commands the piece (always one of its side's): may it move it, fight with it, take the offers about it? Asked only where a side has several seats, or where a handler is registered; a seat never commands another side's pieces.", &[SEAT, UNIT]),
    h("sees", Phase::Seats, "How much of the piece the seat sees, as a `defs.sight` number (`none` 0, `presence` 1, `side` 2, `full` 3); nil keeps `seen`, what the module's data says (the seat's `enemies`, `near` and `range`). Asked only for a seat that does not see everything, or where a handler is registered. The least answer counts, and a handler that fails hides the piece (hidden information fails closed).", &[SEAT, UNIT, p("seen", "number", "what the data says, a `defs.sight` number")]),
    // Hints.
    h("box_worth", Phase::Hints, "A hint, never a rule: what controlling the box is worth to the side beyond its recruitment value.", &[SIDE, BOX]),
    h("dug_in", Phase::Hints, "A hint, never a rule: whether the side's pieces in the box are dug in (AHD: entrenched), so harder to beat than their numbers say; computer players count such a force as half as many steps again.", &[SIDE, BOX]),
    list("victory_progress", Phase::Hints, "Not a rule: how near each side is to each of its victory conditions, for players to read (the app's banner, the terminal's `board`). Each item is `{ side, goal, have, need }`: e.g. `{ side = \"union\", goal = \"the seven key cities (10.0)\", have = 3, need = 7 }`. The game still ends by the rules' events.", &[], "{ Progress }?"),
    list("victory_threats", Phase::Hints, "Not a rule: each victory condition a side could meet on its next player turn, so the other side sees defeat coming (the app's warning, its boxes ringed on the map). Each item is `{ side, text, boxes }`: `side` the side that could win so, `text` what would do it in the rules' words, `boxes` the boxes whose fall would do it: e.g. `{ side = \"confederate\", text = \"if Philadelphia and Scranton fall, the Confederate Army Maximum Size passes the Union's (10.0)\", boxes = { 12, 40 } }`. The game still ends by the rules' events.", &[], "{ Threat }?"),
    h("offer_worth", Phase::Hints, "A hint, never a rule: what taking this offer is worth to the side that may take it, in `box_worth`'s units. Without a positive answer computer players leave the offer alone.", &[p("offer", "Offer", "the offer")]),
];
