//! The module file format, as read from XML: one struct per element, names as written.
//!
//! These raw structs hold names, not ids; [`crate::compile`] resolves and checks them.
//! Every struct denies unknown attributes and elements so a typo is an error, not a
//! silently ignored setting. `$pos` fields record where the element starts.

use serde::Deserialize;

use crate::diag::Pos;
use crate::xml::de::Spanned;

/// A name or reference, with where it was written.
pub type Name = Spanned<String>;

/// `module.xml`: the manifest.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: String,
    pub name: String,
    pub version: String,
    /// The engine version the module was written for, `MAJOR.MINOR`.
    pub engine: Name,
    /// Faces of the game's die (default 6).
    pub dice: Option<u32>,
    pub description: Option<Text>,
    /// A base module this one overlays (a house-rule mod on top of a game).
    pub extends: Option<Extends>,
    #[serde(default)]
    pub include: Vec<Include>,
    /// The Luau script that registers this module's rules.
    pub rules: Option<RulesEntry>,
    /// Modules that must be loaded below this one, with the versions it works with.
    #[serde(default)]
    pub requires: Vec<Requires>,
}

/// `<requires module="ahd" version=">=0.1, <0.2"/>`: a module this one needs below it
/// (its base, or a mod stacked before it), with a semver requirement on its version.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub module: Name,
    pub version: Name,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesEntry {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    /// Path of the entry script inside the module folder, e.g. `rules/init.luau`.
    pub entry: Name,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    #[serde(rename = "$text")]
    pub text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extends {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub module: Name,
    /// Folder of the base module, relative to this one; defaults to `../<module>`.
    pub path: Option<Name>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Include {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub file: Name,
}

/// `<sides>`: the sides in play.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sides {
    #[serde(default)]
    pub side: Vec<Side>,
    /// Quantities each side holds (marches, points, money), which steps spend and
    /// rules set.
    #[serde(default)]
    pub resource: Vec<Resource>,
    /// Numbers each side's boxes add up to (AHD's army maximum).
    #[serde(default)]
    pub tally: Vec<Tally>,
    /// The players at the table; none declared means one seat per side, named after it.
    #[serde(default)]
    pub seat: Vec<Seat>,
}

/// `<seat id name side? enemies? near? range?>`: a player. A seat with a `side`
/// decides for that side (several seats may share one); a seat without one is a
/// referee. What it sees of pieces not of its side is `enemies` (default `full`), or
/// `near` within `range` lines of a box holding its side's pieces; the rules' `sees`
/// hook may say otherwise piece by piece.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: String,
    pub side: Option<Name>,
    pub enemies: Option<Spanned<Sight>>,
    pub near: Option<Spanned<Sight>>,
    pub range: Option<u8>,
}

/// How much of a piece a seat sees, from nothing to everything; each level shows what
/// the one before it shows and more.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Sight {
    /// Not shown at all.
    None,
    /// Shown as a piece in its box (counted), side and type hidden.
    Presence,
    /// Its side shown, its type and strength hidden (a block seen from behind).
    Side,
    /// Everything: type, strength, flags, attributes, number.
    #[default]
    Full,
}

/// `<tally id name sums>`: for each side, the sum of a box value (`sums`, a
/// `<box-value>` id) over the boxes the side controls.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    /// For people, as it reads inside a sentence (`army maximum`).
    pub name: String,
    pub sums: Name,
}

/// `<resource id name expires? max?>`: a number each side holds, starting at 0.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resource {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: String,
    /// When what is left is lost (default: never).
    pub expires: Option<Expires>,
}

/// When a resource's unspent amount is lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Expires {
    /// Kept until the rules change it.
    #[default]
    Never,
    /// Set to 0 for every side when any step ends.
    Step,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Side {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: String,
    /// Display colour, `#rrggbb`.
    pub color: Option<String>,
}

/// `<map>`: line kinds, boxes and the lines joining them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Map {
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Display colour of boxes that no side owns, `#rrggbb`.
    #[serde(rename = "neutral-color")]
    pub neutral_color: Option<String>,
    /// A scan of the printed board to trace over in the editor.
    pub background: Option<Background>,
    /// A vector map (sea, land, borders) drawn under the boxes.
    pub backdrop: Option<BackdropRef>,
    #[serde(default, rename = "line-kind")]
    pub line_kind: Vec<LineKind>,
    /// Box tags with a name and a mark on the map (`port`); boxes may carry others.
    #[serde(default)]
    pub tag: Vec<TagDef>,
    /// Numbers a box holds for each side (AHD's recruitment values).
    #[serde(default, rename = "box-value")]
    pub box_value: Vec<Named>,
    #[serde(default, rename = "box")]
    pub boxes: Vec<BoxDef>,
    #[serde(default)]
    pub line: Vec<Line>,
}

/// `<tag id name mark?>`: a box tag people see, e.g. AHD's ports.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagDef {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: String,
    /// How the map marks a box with this tag.
    pub mark: Option<TagMark>,
}

impl TagMark {
    /// The mark as written in XML.
    pub fn id(self) -> &'static str {
        match self {
            TagMark::CornerDot => "corner-dot",
            TagMark::DoubleOutline => "double-outline",
        }
    }
}

/// The marks a map can draw on a tagged box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TagMark {
    /// A water-coloured dot in the top right corner.
    CornerDot,
    /// A thick outline with a thin ring inside.
    DoubleOutline,
}

/// `<background image x? y? scale? opacity?>`: an image drawn under the map.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Background {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    /// Module-relative path of the image.
    pub image: Name,
    pub x: Option<f32>,
    pub y: Option<f32>,
    pub scale: Option<f32>,
    pub opacity: Option<f32>,
}

/// `<backdrop file>` in `<map>`: names the module's backdrop file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackdropRef {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    /// Module-relative path of a file whose root is `<backdrop>`.
    pub file: Name,
}

/// A backdrop file's root `<backdrop>`: styles, filled areas and stroked paths, in map
/// units, drawn in the order written (areas first, then paths).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backdrop {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    #[serde(default)]
    pub style: Vec<BackdropStyle>,
    #[serde(default)]
    pub area: Vec<BackdropArea>,
    #[serde(default)]
    pub path: Vec<BackdropPath>,
}

/// `<style id fill? stroke? width?>`: how areas are filled and paths stroked.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackdropStyle {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    /// Fill colour of areas, `#rrggbb`.
    pub fill: Option<Name>,
    /// Colour of paths, `#rrggbb`.
    pub stroke: Option<Name>,
    /// Width of paths in screen points.
    pub width: Option<Spanned<f32>>,
}

/// `<area name? style>`: a region (a sea, a state) made of polygons.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackdropArea {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub name: Option<String>,
    pub style: Name,
    #[serde(default)]
    pub polygon: Vec<BackdropPolygon>,
}

/// `<polygon>`: an outer `<ring>`, then any holes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackdropPolygon {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    #[serde(default)]
    pub ring: Vec<BackdropRing>,
}

/// `<ring points="x,y x,y ...">`: a closed ring (the last point joins the first).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackdropRing {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub points: Name,
}

/// `<path name? style points>`: an open polyline (a coast, a border).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackdropPath {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub name: Option<String>,
    pub style: Name,
    pub points: Name,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineKind {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: String,
    /// Lines of this kind flow one way (rivers) and must name their downstream end.
    #[serde(default)]
    pub flows: bool,
    /// Display colour, `#rrggbb`.
    pub color: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxDef {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub name: Name,
    /// Other spellings, separated by `;`.
    pub aliases: Option<Name>,
    /// The side whose colour the box has; absent for a neutral box.
    pub owner: Option<Name>,
    /// Free-form tags separated by spaces, e.g. `kentucky`.
    pub tags: Option<String>,
    /// State or region, for display.
    pub state: Option<String>,
    pub x: i32,
    pub y: i32,
    /// The box's values (`<box-value>`s) for each side that has one.
    #[serde(default)]
    pub value: Vec<BoxValue>,
}

/// `<value id side amount>`: what a box is worth to one side, by a declared box value.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxValue {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub side: Name,
    pub amount: u16,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub a: Name,
    pub b: Name,
    pub kind: Name,
    /// A proper name, e.g. `Potomac`.
    pub name: Option<String>,
    /// For a line kind that flows: the end the line flows toward.
    pub downstream: Option<Name>,
    /// The end box(es), `;`-separated, whose water border is crossed when entering
    /// that box along this line.
    #[serde(rename = "water-border")]
    pub water_border: Option<Name>,
}

/// `<units>`: unit classes, qualities and types.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Units {
    #[serde(default)]
    pub class: Vec<Named>,
    #[serde(default)]
    pub quality: Vec<Named>,
    /// Markers and tokens that lie in boxes, in counts (e.g. water-crossing tokens).
    #[serde(default)]
    pub marker: Vec<Named>,
    /// Flags a piece may carry (AHD's `entrenched`): set by the rules, cleared when the
    /// piece changes place.
    #[serde(default)]
    pub flag: Vec<Named>,
    #[serde(default)]
    pub unit: Vec<UnitType>,
}

/// An element that is just an id and a display name.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitType {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    /// Short id as used in setups, e.g. `Vi`.
    pub id: Name,
    pub name: String,
    pub class: Option<Name>,
    pub quality: Option<Name>,
    pub combat: Option<u8>,
    /// Modifier to the combat value of any unit firing at this one.
    #[serde(default)]
    pub defense: i8,
    pub steps: Option<u8>,
    #[serde(rename = "promotes-to")]
    pub promotes_to: Option<Name>,
    /// Where the unit goes when eliminated or promoted away.
    #[serde(default, rename = "returns-to")]
    pub returns_to: ReturnsTo,
    /// A piece of an advanced game, left out of basic play.
    #[serde(default)]
    pub advanced: bool,
    /// `false` for a piece that does not fight (a general): it may leave out class,
    /// quality, combat and steps, and battles leave it out.
    #[serde(default = "yes")]
    pub combatant: bool,
    /// Numbers the rules read and change on each piece of this type (a general's
    /// `strength`), with their starting values.
    #[serde(default)]
    pub attribute: Vec<Attribute>,
    #[serde(default)]
    pub mix: Vec<Mix>,
    /// A formation: the unit types its pieces may hold directly, separated by spaces or
    /// commas (`holds="Div Bde Gen"`); held pieces move with it, to any depth.
    pub holds: Option<Name>,
    /// The most combatant pieces a formation holds, at any depth (a corps: 12 stands).
    pub capacity: Option<Spanned<u16>>,
    /// The rule the capacity comes from (seed 001 `§6.11`), named when it is exceeded.
    pub rule: Option<String>,
    /// What one piece counts in its side's army size, with all it holds (a field corps:
    /// 2); unset: a formation counts what its members count, a combatant 1, others 0.
    pub weight: Option<Spanned<u16>>,
}

fn yes() -> bool {
    true
}

/// `<attribute id value>` of a unit type.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attribute {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub value: i64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReturnsTo {
    /// The recruitment pool, from which the unit can be recruited again.
    Pool,
    /// The stock, from which it comes back only by promotion.
    #[default]
    Stock,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mix {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub side: Name,
    pub count: u16,
}

/// `<calendar>`: the turn track and the sequence of a player turn.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calendar {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    /// First turn, e.g. `07/1861`.
    pub start: Name,
    /// Last turn of a standard game.
    pub end: Name,
    /// Last turn of the track (an extended game); defaults to `end`.
    pub last: Option<Name>,
    pub year: Year,
    #[serde(rename = "player-turn")]
    pub player_turn: PlayerTurn,
    #[serde(rename = "turn-end")]
    pub turn_end: Option<TurnEnd>,
    pub words: Option<Words>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Year {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    /// The turns of each year as month spans, e.g. `01-02 03 04 ... 11-12`.
    pub turns: Name,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerTurn {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    /// Side ids in playing order.
    pub sides: Name,
    #[serde(default)]
    pub step: Vec<Step>,
}

/// `<turn-end>`: steps played once a game turn, after every side's player turn.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnEnd {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    #[serde(default)]
    pub step: Vec<Step>,
}

/// `<step id name procedure spends? months? repeat? side?>`: one step of a turn.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: String,
    /// Which of the engine's procedures runs it.
    pub procedure: Spanned<Procedure>,
    /// The resource the procedure's decisions cost (`select`, `upgrade`, `place`).
    pub spends: Option<Name>,
    /// Months (`01`-`12`) of the turns the step is played in; a turn of several
    /// months counts if any of them is listed. Default: every turn.
    pub months: Option<Name>,
    /// How many times the step is played in a row (default 1).
    pub repeat: Option<Spanned<u8>>,
    /// `move` only: the longest path, in lines, the engine searches (default 6); the
    /// rules' `may_enter` prunes within it.
    #[serde(rename = "max-path")]
    pub max_path: Option<Spanned<u8>>,
    /// `battles` only: a battle still undecided after this many rounds ends with no
    /// winner (default: no limit; a round in which neither side can hit ends it anyway).
    #[serde(rename = "max-rounds")]
    pub max_rounds: Option<Spanned<u8>>,
    /// `battles` only: how a battle's result is found, `dice` (the default: a die per
    /// shot) or `rules` (the rules compute each side's losses, no dice; the side taking
    /// them chooses the pieces).
    pub resolve: Option<Spanned<Resolve>>,
    /// `move` only: what one decision activates, `box` (the default: every piece in a
    /// box) or `piece` (one piece and what it carries, moving in legs on the movement
    /// points the rules give: ACTIVATE and LEGS, issue 44).
    pub activate: Option<Spanned<Activate>>,
    /// `move` with `activate="piece"` only: `immediate` fights a battle inside the step
    /// as soon as the mover commits to it (`Fight`), then movement goes on (IMMEDIATE).
    /// `resolve` then says how those battles are resolved.
    pub combat: Option<Spanned<Combat>>,
    /// `move` with `activate="piece"`: the rules' reference quoted when an activation
    /// is refused for its cost (e.g. `L330`).
    #[serde(rename = "activate-rule")]
    pub activate_rule: Option<String>,
    /// `move` with `activate="piece"`: the rules' reference quoted when a leg is
    /// refused for its movement points (e.g. `L366`).
    #[serde(rename = "points-rule")]
    pub points_rule: Option<String>,
    /// `battles` only: `alternate` (the default: the defender's part, then the
    /// attacker's, each firing side's hits landing at once) or `simultaneous` (both
    /// sides fire, then both take their losses together; needs `casualties="owner"`).
    pub fire: Option<Spanned<Fire>>,
    /// `battles` only: who chooses the pieces hit, `shooter` (the default: each shot
    /// names its target) or `owner` (shots name no one; the side hit takes its losses
    /// off pieces of its choice, as in a battle the rules resolve).
    pub casualties: Option<Spanned<Casualties>>,
    /// `battles` only: which sides may retreat from round 2, `both` (the default),
    /// `attacker`, `defender` or `none`.
    pub retreat: Option<Spanned<Retreaters>>,
    /// `battles` only: whether the defender is asked `may_withdraw` before round 1
    /// (`true`, the default) or never withdraws (`false`).
    pub withdraw: Option<Spanned<bool>>,
    /// `battles` only: whether a side may bring in pieces from adjacent boxes from
    /// round 2 (`true`, the default: `may_reinforce` is asked) or not (`false`).
    pub reinforce: Option<Spanned<bool>>,
    /// `place` only: a box value; pieces are placed only in boxes with some of it for
    /// the side placing (AHD: recruits only in a city of the recruiter's colour, 7.0).
    /// Default: any box the rules' `may_place` allows.
    #[serde(rename = "place-in")]
    pub place_in: Option<Name>,
    /// `place` only: whether pieces come from the stock (never yet in play) once the
    /// pool has none of the type (`true`), or from the pool alone (`false`, the default;
    /// AHD's recruits). DWF: replacements are drawn from every counter not in play.
    #[serde(rename = "place-stock")]
    pub place_stock: Option<Spanned<bool>>,
    /// For a `<turn-end>` step: the side that decides in it (default: the first to play).
    pub side: Option<Name>,
}

/// `<words>`: how logs and prompts word the procedures' decisions in this game, with
/// `{box}`, `{type}` and `{unit}` filled in. Unset words are the engine's own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Words {
    /// Choosing the box whose pieces move next, e.g. `march: activate {box}`.
    pub select: Option<String>,
    /// Finishing the moves of the selected box.
    pub release: Option<String>,
    /// Bringing a piece from the pool onto the board, e.g. `recruit {type} in {box}`.
    pub place: Option<String>,
    /// Swapping a piece for its better type, e.g. `promote {unit}`.
    pub upgrade: Option<String>,
    /// Ending the step.
    pub end: Option<String>,
    /// The situation while a box is selected, e.g. `marching from {box}`.
    pub selected: Option<String>,
    /// What the game calls a step, e.g. `segment`.
    pub step: Option<String>,
    /// The log line of an upgrade (`{unit}` the old type, `{box}`, `{type}` the new),
    /// e.g. `{unit} in {box} is promoted to {type}`.
    pub upgraded: Option<String>,
    /// The log line of a piece placed (`{type}`, `{box}`), e.g. `{type} recruited in {box}`.
    pub placed: Option<String>,
}

/// The procedures the engine knows how to run; each is configured by its step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Procedure {
    /// Spend the step's resource to select a box; move its pieces along paths the rules
    /// allow.
    Move,
    /// Fight a battle in every box holding both sides' pieces.
    Battles,
    /// Swap pieces for the type they promote to (`promotes-to`), spending the resource.
    Upgrade,
    /// Bring pieces from the pool onto the board, spending the resource.
    Place,
    /// No engine decisions: only the rules' offers, then the step ends.
    Script,
}

/// `<tables>`: data tables the rules read (`defs.tables`): charts and per-year
/// parameters written as data, not as Luau literals.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tables {
    #[serde(default)]
    pub table: Vec<TableDef>,
}

/// `<table id name? columns rows?>`: rows of numbers, one per named column. `rows="1-20"`
/// declares the integer keys every row must cover, so a row left out is a load error.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableDef {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: Option<String>,
    /// The column ids, separated by spaces.
    pub columns: Name,
    /// The integer row keys the table must have, `FIRST-LAST`.
    pub rows: Option<Name>,
    #[serde(default)]
    pub row: Vec<TableRow>,
}

/// `<row key values>`: one row; `values` are numbers separated by spaces, one per column.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRow {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub key: Name,
    pub values: Name,
}

/// How a `battles` step finds a battle's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Resolve {
    /// Rounds of shots, a die rolled per shot (AHD 5.x).
    #[default]
    Dice,
    /// The rules give each side's losses in steps (`battle_losses`, a table lookup);
    /// each side chooses which of its pieces take them; the rules say who yields
    /// (`yields`).
    Rules,
}

/// What one decision of a `move` step activates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Activate {
    /// A box: every piece of the side there may move (AHD's march).
    #[default]
    Box,
    /// One piece and what it carries, at the cost the rules set (`activation_cost`),
    /// moving in legs on movement points (`move_points`, `move_cost`).
    Piece,
}

/// When a `move` step's battles are fought.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Combat {
    /// Not in the step: a later `battles` step fights them.
    #[default]
    Later,
    /// In the step, when the mover commits to one (`Fight`), before the next move.
    Immediate,
}

/// How a `battles` step's sides fire in a round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fire {
    /// The defender's part, then the attacker's with what is left (AHD 5.0).
    #[default]
    Alternate,
    /// Both sides fire with what they had at the round's start; losses are taken
    /// together afterwards.
    Simultaneous,
}

/// Who chooses the pieces a `battles` step's hits fall on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Casualties {
    /// Each shot names its target (AHD 5.1).
    #[default]
    Shooter,
    /// The side hit takes its losses off its own pieces (`Lose`), one step at a time.
    Owner,
}

/// Which sides of a `battles` step's battles may retreat from round 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Retreaters {
    #[default]
    Both,
    Attacker,
    Defender,
    None,
}

/// `<options>`: the optional-rules catalogue.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub option: Vec<OptionRule>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionRule {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    /// Rule number in the game's rules, e.g. `4.9`.
    pub rule: Name,
    pub title: String,
    /// The side the rule favours, or `neutral`.
    pub balance: Name,
    #[serde(default)]
    pub default: OnOff,
    pub description: Option<Text>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnOff {
    On,
    #[default]
    Off,
}

/// `<scenario>`: a starting position.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub name: String,
    /// Rule number of the scenario, e.g. `11.5`.
    pub rule: Option<String>,
    /// Start turn; with `setup`, defaults to that scenario's.
    pub start: Option<Name>,
    /// Last turn; defaults to the calendar's end.
    pub end: Option<Name>,
    /// Use the setup of another scenario of the module.
    pub setup: Option<Name>,
    pub description: Option<Text>,
    #[serde(default)]
    pub side: Vec<ScenarioSide>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSide {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    /// Tallies the scenario states (its army maximum), checked against the computed.
    #[serde(default)]
    pub tally: Vec<StatedTally>,
    #[serde(default)]
    pub place: Vec<Place>,
    #[serde(default)]
    pub marker: Vec<MarkerPlace>,
    #[serde(default)]
    pub control: Vec<Control>,
    #[serde(default)]
    pub pool: Vec<OffBoard>,
    #[serde(default, rename = "set-aside")]
    pub set_aside: Vec<OffBoard>,
}

/// `<tally id value>` in a scenario's side: a tally's value at the start, as the rules
/// state it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatedTally {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub id: Name,
    pub value: Spanned<u32>,
}

/// Units on a box: `units="2 Vi, 1 Mi"` (counts and unit type ids).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Place {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    #[serde(rename = "box")]
    pub at: Name,
    pub units: Name,
    /// Flags the placed pieces carry, separated by commas (`flags="entrenched"`).
    pub flags: Option<Name>,
    /// Names this placement (of one piece) so members can be placed in it (`in`).
    pub id: Option<Name>,
    /// The placement (by its `id`, earlier in the side) of the formation holding these
    /// pieces; they must be placed in its box.
    #[serde(rename = "in")]
    pub within: Option<Name>,
    /// The piece's own name ("I Corps (McDowell)"); one piece only.
    pub name: Option<Name>,
    /// Attribute values of the placed pieces, `attributes="sp=6, morale=4"`.
    pub attributes: Option<Name>,
}

/// `<marker box id count>` in a scenario's side: markers lying in a box at the start.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerPlace {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    #[serde(rename = "box")]
    pub at: Name,
    pub id: Name,
    pub count: Spanned<u16>,
}

/// Units off the board (pool, set aside): `units="12 Mi"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OffBoard {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    pub units: Name,
}

/// A control marker on one box, or on every box with a tag.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Control {
    #[serde(rename = "$pos")]
    pub pos: Pos,
    #[serde(rename = "box")]
    pub at: Option<Name>,
    pub tag: Option<Name>,
}
