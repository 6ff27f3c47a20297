//! The globals besides the view: `defs` (`defs.rs`, the module's definitions, frozen),
//! the `hooks` table (`hooks.rs`, while the rules load), and the records scripts meet.

use super::{FunctionDoc, Param, RecordDoc, p};

/// The fields of `defs`: its tables and its strict lookups.
#[rustfmt::skip]
pub const DEFS: &[Param] = &[
    p("module", "ModuleInfo", "the module's id, name and version"),
    p("sides", "{ Side }", "the sides, in play order"),
    p("side_by_id", "{ [string]: Side }", "the sides by id"),
    p("seats", "{ Seat }", "the players at the table: one per side unless the module declares `<seat>`s"),
    p("seat_by_id", "{ [string]: Seat }", "the seats by id"),
    p("sight", "SightLevels", "what a seat may see of a piece, as numbers for `sees`: `none` 0, `presence` 1, `side` 2, `full` 3"),
    p("boxes", "{ Box }", "the boxes; `defs.boxes[n]` is box number n"),
    p("box_by_name", "{ [string]: BoxNum }", "box names and aliases, exactly as written, to box numbers; nil for a name the map lacks"),
    p("kinds", "{ LineKind }", "the line kinds"),
    p("kind_by_id", "{ [string]: LineKind }", "the line kinds by id"),
    p("lines", "{ Line }", "the lines; `defs.lines[n]` is line number n"),
    p("units", "{ UnitType }", "the unit types"),
    p("unit_by_id", "{ [string]: UnitType }", "the unit types by id"),
    p("classes", "{ Named }", "the unit classes"),
    p("qualities", "{ Named }", "the unit qualities"),
    p("markers", "{ Named }", "the marker kinds"),
    p("flags", "{ Named }", "the flags a piece may carry"),
    p("tags", "{ Tag }", "the box tags the map declares"),
    p("box_values", "{ Tag }", "the box values the map declares (`{ id, name }`)"),
    p("tallies", "{ TallyDef }", "the tallies the sides declare"),
    p("options", "{ OptionDef }", "the optional rules"),
    p("option_by_id", "{ [string]: OptionDef }", "the optional rules by id"),
    p("tables", "{ [string]: DataTable }", "the module's data tables (`<tables>`) by id"),
    p("table", "(id: string, key: string | number, column: string) -> number", "the number in a data table's row and column; an unknown table, row or column is an error at the caller's line"),
    p("box", "(name: string) -> BoxNum", "strict `box_by_name`: an unknown name is an error at the caller's line with a \"did you mean\""),
    p("unit", "(id: string) -> UnitType", "strict `unit_by_id`"),
    p("side", "(id: string) -> Side", "strict `side_by_id`"),
];

/// The records of `defs` and of hook arguments.
#[rustfmt::skip]
pub const RECORDS: &[RecordDoc] = &[
    RecordDoc { name: "ModuleInfo", seen_as: "defs.module", fields: &[p("id", "string", "the module's id"), p("name", "string", "its name"), p("version", "string", "its version")] },
    RecordDoc { name: "Side", seen_as: "defs.sides[i]", fields: &[p("index", "number", "its place in `defs.sides`"), p("id", "SideId", "its id"), p("name", "string", "its name"), p("color", "string?", "its colour")] },
    RecordDoc { name: "Seat", seen_as: "defs.seats[i]", fields: &[p("index", "number", "its place in `defs.seats`"), p("id", "SeatId", "its id"), p("name", "string", "its name"), p("side", "SideId?", "the side it plays; nil for a referee")] },
    RecordDoc { name: "SightLevels", seen_as: "defs.sight", fields: &[p("none", "number", "0: not shown"), p("presence", "number", "1: counted in its box"), p("side", "number", "2: its side shown"), p("full", "number", "3: everything")] },
    RecordDoc { name: "Box", seen_as: "defs.boxes[n]", fields: &[
        p("id", "BoxNum", "its number"), p("name", "string", "its name"), p("aliases", "{ string }", "other names"),
        p("owner", "SideId?", "the side it belongs to"), p("tags", "{ string }", "the box's tags"),
        p("state", "string?", "its state (region)"), p("values", "{ [string]: { [SideId]: number } }", "its box values by id, per side (AHD: `values.recruit`)"),
        p("x", "number", "map position"), p("y", "number", "map position"),
        p("lines", "{ LineNum }", "adjacent lines, pairwise with `neighbours`"), p("neighbours", "{ BoxNum }", "adjacent boxes"),
    ] },
    RecordDoc { name: "Line", seen_as: "defs.lines[n]", fields: &[
        p("id", "LineNum", "its number"), p("a", "BoxNum", "one end"), p("b", "BoxNum", "the other end"),
        p("kind", "string", "its line kind's id"), p("name", "string?", "its name (a river's)"),
        p("downstream", "BoxNum?", "the end downstream, on a flowing kind"),
        p("water_border_a", "boolean", "a water border at end a"), p("water_border_b", "boolean", "a water border at end b"),
    ] },
    RecordDoc { name: "LineKind", seen_as: "defs.kinds[i]", fields: &[p("index", "number", "its place"), p("id", "string", "its id"), p("name", "string", "its name"), p("flows", "boolean", "whether its lines have a downstream end")] },
    RecordDoc { name: "UnitType", seen_as: "defs.units[i]", fields: &[
        p("index", "number", "its place"), p("id", "UnitTypeId", "its id"), p("name", "string", "its name"),
        p("class", "string?", "its class id"), p("quality", "string?", "its quality id"),
        p("combat", "number", "combat value"), p("defense", "number", "defence value"), p("steps", "number", "steps (hits it takes)"),
        p("promotes_to", "UnitTypeId?", "what it is upgraded to"), p("returns_to", "\"pool\" | \"stock\"", "where it goes when eliminated"),
        p("advanced", "boolean", "an upgraded type"), p("combatant", "boolean", "false for pieces that do not fight (generals)"),
        p("attributes", "{ [string]: number }", "its attributes' starting values"), p("mix", "{ [SideId]: number }", "pieces per side in the counter mix"),
    ] },
    RecordDoc { name: "Named", seen_as: "defs.classes[i], defs.qualities[i], defs.markers[i], defs.flags[i]", fields: &[p("index", "number", "its place"), p("id", "string", "its id"), p("name", "string", "its name")] },
    RecordDoc { name: "Tag", seen_as: "defs.tags[i], defs.box_values[i]", fields: &[p("id", "string", "its id"), p("name", "string", "its name")] },
    RecordDoc { name: "TallyDef", seen_as: "defs.tallies[i]", fields: &[p("id", "string", "its id"), p("name", "string", "its name"), p("sums", "string", "the box value it adds up")] },
    RecordDoc { name: "OptionDef", seen_as: "defs.options[i]", fields: &[
        p("index", "number", "its place"), p("id", "string", "its id"), p("rule", "string", "its rule number"),
        p("title", "string", "its title"), p("favours", "SideId?", "the side it favours"), p("default_on", "boolean", "in play unless switched off"),
    ] },
    RecordDoc { name: "DataTable", seen_as: "defs.tables[id]", fields: &[
        p("id", "string", "its id"), p("name", "string?", "its name"), p("columns", "{ string }", "the column ids, in order"),
        p("keys", "{ string | number }", "the row keys, in order; an integer key is a number"),
        p("rows", "{ [string | number]: { [string]: number } }", "each row by key: its numbers by column id (`rows[13].defender`)"),
    ] },
    RecordDoc { name: "PathStep", seen_as: "path.steps[i]", fields: &[p("line", "LineNum", "the line taken"), p("to", "BoxNum", "the box reached")] },
    RecordDoc { name: "Path", seen_as: "the `path` of movement hooks", fields: &[p("from", "BoxNum", "where it starts"), p("steps", "{ PathStep }", "each line taken and the box reached")] },
    RecordDoc { name: "Passage", seen_as: "the `through` of `game:distance`, `nearest`, `reach` and `path`: each field optional, each given condition holds of every box a path enters (its last included, never its first)", fields: &[
        p("lines", "{ string }?", "the line kind ids it may follow; default every kind"),
        p("boxes", "{ BoxNum }?", "the only boxes it may enter"), p("closed", "{ BoxNum }?", "boxes it may never enter"),
        p("controlled_by", "SideId?", "only boxes this side controls"), p("uncontrolled", "boolean?", "with `controlled_by`: also boxes nobody controls"),
        p("clear_for", "SideId?", "never a box holding a piece of another side"), p("max", "number?", "the most boxes it may enter; default any number"),
    ] },
    RecordDoc { name: "Offer", seen_as: "the `offer` of `offer_taken` and `offer_worth`", fields: &[
        p("id", "string", "the offer's id"), p("label", "string", "what a player reads"),
        p("unit", "Unit?", "the piece it concerns"), p("box", "BoxNum?", "the box it concerns"),
        p("cost", "{ [string]: number }", "its cost by resource id"),
        p("seat", "SeatId?", "the seat it was addressed to, if any"),
        p("form", "{ FormField }?", "the fields the seat taking it enters, as `offers` wrote them"),
        p("entry", "EntryValues?", "the values entered (in `offer_taken` and `accepts_entry`)"),
        p("fight", "boolean?", "true if `offers` asked for the battle in its box to be fought for the computer referee"),
        p("fought", "Fought?", "in `referee_entry`, for an offer with `fight`: the battle the engine's procedure fought on a copy of the game with the game's dice"),
    ] },
    RecordDoc { name: "Fought", seen_as: "`offer.fought` in `referee_entry`: the outcome of the engine's battle procedure at the offer's box (the side on move attacks; nobody withdraws, retreats or reinforces unless made to; each shot at the first target allowed, each loss on the first piece allowed; fought on a copy, only the dice advance)", fields: &[
        p("losses", "{ [Unit]: number }", "steps each piece that fought lost (0 for none; an eliminated piece lost all it had)"),
        p("holder", "SideId?", "the side left alone in the box with fighting pieces; nil if undecided"),
        p("attacker", "SideId?", "the side on move"), p("defender", "SideId?", "the enemy side in the box"),
        p("rounds", "number", "rounds fought"), p("log", "{ string }", "the battle's log lines"),
    ] },
    RecordDoc { name: "OfferSpec", seen_as: "each item an `offers` handler returns", fields: &[
        p("id", "string", "required; what `offer_taken` is told"), p("label", "string?", "default: the id"),
        p("unit", "Unit?", "the piece it concerns"), p("box", "BoxNum?", "the box it concerns"),
        p("cost", "{ [string]: number }?", "amounts by resource id, each 0 or more (`{ marches = 1 }`)"),
        p("seat", "SeatId?", "the seat it is addressed to, if not the side on move's: a response out of turn, an answer the game waits for (`wait_for`); its side pays"),
        p("form", "{ FormField }?", "fields the seat taking it enters (a referee's battle result): taking it carries the values, checked by the engine against the form, then by `accepts_entry`; without values, `referee_entry` computes them"),
        p("fight", "boolean?", "with `box` and a `form`: when the computer referee enters it, the engine's battle procedure first fights the battle in that box on a copy of the game with the game's dice, and `referee_entry` reads the outcome in `offer.fought`"),
        p("refused", "string?", "a closed decision: why the rules refuse it now, naming the rule (\"L406: a fort of 3 ...\"); never listed nor taken, a `Take` of it is refused with this reason. List closed offers only when `wanted` asks for them: listing pays nothing then"),
    ] },
    RecordDoc { name: "FormField", seen_as: "each field of an offer's `form`: `id`, `label` and exactly one of `pieces`, `sides`, `boxes`, `min`/`max`, `choices`", fields: &[
        p("id", "string", "required; the key of its value in `offer.entry`"), p("label", "string?", "what a person is asked; default: the id"),
        p("pieces", "{ [Unit]: number }?", "a number from 0 to the piece's most for each piece (steps lost: most = steps left); pieces left out count 0"),
        p("sides", "{ SideId }?", "one of these sides"), p("boxes", "{ BoxNum }?", "one of these boxes"),
        p("min", "number?", "with `max`: a whole number in the range, both ends included"), p("max", "number?", "see `min`"),
        p("choices", "{ string }?", "one of these labels"),
    ] },
    RecordDoc { name: "Wanted", seen_as: "the `wanted` of `offers`", fields: &[p("id", "string", "the offer's id"), p("unit", "Unit?", "its piece"), p("box", "BoxNum?", "its box")] },
    RecordDoc { name: "Loss", seen_as: "each item a `battle_losses` handler returns", fields: &[
        p("side", "SideId", "the side losing"), p("steps", "number", "steps lost (0 or more)"),
        p("unit", "Unit?", "a piece that must take these steps before the side's others"),
        p("rule", "string?", "the rules' reference, quoted when an allocation is refused"),
    ] },
    RecordDoc { name: "Progress", seen_as: "each item a `victory_progress` handler returns", fields: &[
        p("side", "SideId", "whose condition"), p("goal", "string", "the condition in the rules' words"),
        p("have", "number", "how far the side is"), p("need", "number", "what the condition needs"),
    ] },
    RecordDoc { name: "Threat", seen_as: "each item a `victory_threats` handler returns", fields: &[
        p("side", "SideId", "the side that could win so"), p("text", "string", "what would do it, in the rules' words"),
        p("boxes", "{ BoxNum }?", "the boxes whose fall would do it"),
    ] },
    RecordDoc { name: "Shot", seen_as: "`game:shots()`", fields: &[p("shooter", "Unit", "the piece firing"), p("target", "Unit", "the piece named")] },
    RecordDoc { name: "BoardPiece", seen_as: "`game:board_pieces()`", fields: &[
        p("unit", "Unit", "the piece"), p("box", "BoxNum", "the box it is in"), p("side", "SideId", "its side"),
        p("type", "UnitTypeId", "its unit type"), p("class", "string?", "its type's class id, if any"),
        p("hits", "number", "steps it has lost"),
    ] },
];

/// The `hooks` table, there only while the rules load.
#[rustfmt::skip]
pub const HOOKS_TABLE: &[FunctionDoc] = &[
    FunctionDoc { name: "on", params: &[p("name", "HookName", "a hook of the catalogue"), p("handler", "(...any) -> ...any", "called with the game view, then the hook's arguments"), p("options", "HandlerOptions?", "its id, order and promise")], returns: "()", doc: "Registers a handler. Handlers run in load order (a base module's before its overlays'), moved only as far as `before`/`after` require." },
    FunctionDoc { name: "replace", params: &[p("id", "string", "a handler's id"), p("handler", "(...any) -> ...any", "the new handler"), p("options", "ReplaceOptions?", "the steps it is called in")], returns: "()", doc: "The handler takes the named one's place (same hook, position and id), called in every step unless it declares its own `during`: the one it replaces may have been limited to some steps because of what its code did not do. A second replacement of one handler is an error: wrap instead." },
    FunctionDoc { name: "wrap", params: &[p("id", "string", "a handler's id"), p("handler", "(...any) -> ...any", "called with the wrapped handler (`next`), then the game view and the hook's arguments")], returns: "()", doc: "The handler takes the named one's place and gets it as `next`, so it may widen or narrow its answer. It is called in the steps the wrapped one is (`during`), so `next` is never called outside them: a rule for other steps is a handler of its own." },
    FunctionDoc { name: "remove", params: &[p("id", "string", "a handler's id")], returns: "()", doc: "The named handler is gone." },
];

/// The options of `hooks.on` (its third argument).
#[rustfmt::skip]
pub const HOOK_OPTIONS: &[Param] = &[
    p("id", "string?", "the name other modules compose with (`ahd.may-enter`); unique"),
    p("before", "(string | { string })?", "ids of handlers of the same hook this one runs before"),
    p("after", "(string | { string })?", "ids of handlers of the same hook this one runs after"),
    p("fixed", "boolean?", "a promise that its answers are fixed for a battle (`shot_modifier`: the battle-odds calculator asks once a round); `replace` and `wrap` drop it"),
    p("during", "{ string }?", "the step ids (calendar.xml) it is called in, none other: a question then answers, an event commands and a list lists as if it were not there; with no handler left to call at a step the engine calls no script at all. A step the module lacks is a load error; `replace` drops it, `wrap` keeps it"),
];

/// The options of `hooks.replace` (its third argument).
#[rustfmt::skip]
pub const REPLACE_OPTIONS: &[Param] = &[
    p("during", "{ string }?", "the step ids the replacement is called in (without it, every step)"),
];
