//! The game state: small, cloneable and serializable. It holds ids into the module's
//! definitions, never copies of them.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::battle::CombatSegment;
use super::dice::Dice;
use super::moves::{MoveRecord, MoveStep};
use super::offer::Offer;
use crate::calendar::Step;
use crate::ids::{
    AttributeId, BoxId, MarkerId, OptionId, ResourceId, SeatId, SideId, TallyId, TurnId, UnitId,
    UnitTypeId,
};
use crate::module::Module;
use crate::scenario::Scenario;
use crate::unit::Flags;

/// Where a piece is. Every piece is in exactly one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Place {
    Board(BoxId),
    /// The pool: pieces that may be placed again (AHD: the recruitment pool).
    Pool,
    /// The stock: out of play, back only by an upgrade (or never, for advanced pieces).
    Stock,
    /// Set aside by the scenario, entering by a rule (e.g. drafts).
    SetAside,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Unit {
    pub side: SideId,
    pub kind: UnitTypeId,
    pub place: Place,
    /// Steps lost; a unit with as many hits as steps is eliminated.
    pub hits: u8,
    /// The flags the piece carries where it stands (cleared when it changes place).
    #[serde(default, skip_serializing_if = "Flags::is_empty")]
    pub flags: Flags,
    /// Selections this unit took part in during the current `move` step (saves before
    /// the kernel became generic called it `marches`).
    #[serde(default)]
    #[serde(alias = "marches")]
    pub moves: u8,
    /// The piece this one is attached to (a general to an army's unit): it moves with
    /// that piece, and is detached when either leaves the board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attached_to: Option<UnitId>,
    /// The piece's number in the log and on screen: given when it enters the board,
    /// never given twice in a game, so a piece that leaves and comes back (a counter
    /// of the mix used again) is told apart from its earlier self; kept through an
    /// upgrade. 0 off the board. See [`GameState::number_pieces`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub number: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Unit {
    /// Whether the piece carries the flag called `flag` (false for a flag the module
    /// does not declare): for tools and tests that name flags in words.
    pub fn flagged(&self, module: &Module, flag: &str) -> bool {
        module
            .units
            .find_flag(flag)
            .is_some_and(|f| self.flags.has(f))
    }
}

/// Who holds a box, and whether a control marker shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BoxState {
    pub controller: Option<SideId>,
    pub marker: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    pub turn: TurnId,
    /// Index into the calendar's playing order: whose player turn it is; equal to the
    /// number of sides during the turn-end steps.
    pub player: u8,
    /// Index into the player turn's steps (or the turn-end steps).
    #[serde(alias = "segment")]
    pub step: u8,
    /// How many times the current step has already been played in a row (`repeat`).
    #[serde(default)]
    pub repeat: u8,
    /// Each side's resources, `[side][resource]`.
    #[serde(default)]
    pub resources: Vec<Vec<i64>>,
    pub units: Vec<Unit>,
    /// Per box, indexed by [`BoxId`].
    pub boxes: Vec<BoxState>,
    pub dice: Dice,
    /// Optional rules in force, sorted.
    pub options: Vec<OptionId>,
    /// The last turn of this game (the scenario's end, or as an option extends it).
    pub end: TurnId,
    /// The turn the scenario started on.
    pub first_turn: TurnId,
    /// The scenario's id (rules may have scenario-specific conditions, e.g. AHD 11.1).
    #[serde(default)]
    pub scenario: String,
    /// Named counters the rules keep (e.g. whether a border state was entered).
    #[serde(default)]
    pub vars: Vars,
    /// The Movement segment under way, if any.
    #[serde(default)]
    #[serde(alias = "march")]
    pub moving: Option<MoveStep>,
    /// What happened this player turn that later segments' rules read.
    #[serde(default)]
    pub turn_log: TurnLog,
    /// The Combat segment under way, if any.
    #[serde(default)]
    pub combat: Option<CombatSegment>,
    /// Set once the game is over.
    #[serde(default)]
    pub outcome: Option<Outcome>,
    /// Attribute values that differ from the type's starting value, sorted by piece and
    /// attribute.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<(UnitId, AttributeId, i64)>,
    /// Markers in boxes, sorted by box and marker; counts are never 0.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<(BoxId, MarkerId, u16)>,
    /// The last piece number given ([`Unit::number`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub numbered: u32,
    /// Seats the rules are waiting for (a response, a sealed choice): while any are,
    /// only they act, each by taking an offer addressed to it ([`super::seats`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<SeatId>,
    /// While the rules wait for a sealed choice: the offers taken so far, each by its
    /// seat, none applied until the last seat has chosen (then all in seat order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<Vec<Offer>>,
    /// Pieces' own names ("I Corps (McDowell)"), sorted by piece: set by the scenario,
    /// a player's formation action or the rules; most pieces have none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<(UnitId, String)>,
}

/// This player turn's record: cleared when a player turn starts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TurnLog {
    /// Every move, in order.
    pub moves: Vec<MoveRecord>,
    /// Units that took part in a battle (AHD 5.5: they may not reinforce another).
    pub fought: Vec<UnitId>,
    /// Units upgraded (no piece is upgraded twice in a player turn; AHD 6.0). Saves
    /// before the kernel became generic called it `promoted`.
    #[serde(alias = "promoted")]
    pub upgraded: Vec<UnitId>,
    /// Boxes placed in, once per piece placed (`recruited` in older saves).
    #[serde(alias = "recruited")]
    pub placed: Vec<BoxId>,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<SideId>,
    pub reason: String,
}

/// A scenario that cannot be set up (the loader checks this too; this guards files
/// loaded some other way).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error(
        "scenario '{scenario}' needs {wanted} {unit} for {side} but the counter mix has {left} left"
    )]
    NotEnoughPieces {
        scenario: String,
        side: String,
        unit: String,
        wanted: u32,
        left: u32,
    },
}

impl GameState {
    /// A 128-bit hash of everything but the dice. Questions are pure and see no dice
    /// ([`Rules::ask`](super::rules::Rules::ask)), so states with equal fingerprints get
    /// equal answers: a computer player remembers answers by it across the positions
    /// its search revisits. SipHash's 128-bit output, in one pass (two 64-bit passes
    /// under different salts took twice as long, 5% of a search), so a collision is as
    /// likely as guessing 128 bits; the pieces and boxes go in as one xxh3 digest
    /// ([`board_digest`]). Not stable across builds: never store it.
    pub fn fingerprint(&self) -> u128 {
        use siphasher::sip128::{Hasher128, SipHasher13};
        use std::hash::Hash;
        // Named in full, so a new field must be placed here or knowingly left out.
        let GameState {
            turn,
            player,
            step,
            repeat,
            resources,
            units,
            boxes,
            dice: _,
            options,
            end,
            first_turn,
            scenario,
            vars,
            moving,
            turn_log,
            combat,
            outcome,
            attributes,
            markers,
            numbered,
            waiting,
            sealed,
            names,
        } = self;
        let mut h = SipHasher13::new();
        (turn, player, step, repeat, resources).hash(&mut h);
        board_digest(units, boxes).hash(&mut h);
        (options, end, first_turn, scenario, vars, moving, turn_log).hash(&mut h);
        (combat, outcome, attributes, markers, numbered).hash(&mut h);
        (waiting, sealed, names).hash(&mut h);
        h.finish128().as_u128()
    }

    /// The position at the start of `scenario`: every piece of the counter mix is
    /// created, placed as the scenario says, and the rest is in stock.
    pub fn new(
        module: &Module,
        scenario: &Scenario,
        options: Vec<OptionId>,
        dice: Dice,
    ) -> Result<Self, SetupError> {
        let mut units = Vec::new();
        for side in module.side_ids() {
            for kind in module.units.ids() {
                let n = module.units.get(kind).mix_for(side);
                units.extend((0..n).map(|_| Unit {
                    side,
                    kind,
                    place: Place::Stock,
                    hits: 0,
                    flags: Flags::NONE,
                    moves: 0,
                    attached_to: None,
                    number: 0,
                }));
            }
        }
        let mut state = GameState {
            turn: scenario.start,
            player: 0,
            step: 0,
            repeat: 0,
            resources: vec![vec![0; module.resources.len()]; module.sides.len()],
            units,
            boxes: scenario
                .initial_control(module)
                .into_iter()
                .map(|controller| BoxState {
                    controller,
                    marker: false,
                })
                .collect(),
            dice,
            options: {
                let mut o = options;
                o.sort_unstable();
                o.dedup();
                o
            },
            end: scenario.end,
            first_turn: scenario.start,
            scenario: scenario.id.clone(),
            vars: Vars::default(),
            moving: None,
            turn_log: TurnLog::default(),
            combat: None,
            outcome: None,
            attributes: Vec::new(),
            markers: Vec::new(),
            numbered: 0,
            waiting: Vec::new(),
            sealed: None,
            names: Vec::new(),
        };
        for side in module.side_ids() {
            let Some(setup) = scenario.side(side) else {
                continue;
            };
            // The first piece of each placement: the formation members are placed in.
            let mut first = Vec::with_capacity(setup.placements.len());
            for p in &setup.placements {
                let before = state.units.len();
                let from = state.take_from_stock(
                    module,
                    scenario,
                    side,
                    p.unit,
                    p.count,
                    Place::Board(p.at),
                    p.flags,
                )?;
                debug_assert_eq!(before, state.units.len());
                first.push(from);
                if p.within.is_none() && p.name.is_none() && p.attributes.is_empty() {
                    continue;
                }
                let placed: Vec<UnitId> = state
                    .unit_ids()
                    .skip(from.index())
                    .filter(|&u| {
                        let x = state.unit(u);
                        x.side == side && x.kind == p.unit && x.place == Place::Board(p.at)
                    })
                    .take(usize::from(p.count))
                    .collect();
                for &u in &placed {
                    state.units[u.index()].attached_to =
                        p.within.and_then(|w| first.get(w).copied());
                    if let Some(name) = &p.name {
                        state.set_name(u, Some(name.clone()));
                    }
                    for &(a, v) in &p.attributes {
                        state.set_attribute_value(module, u, a, v);
                    }
                }
            }
            for &(at, marker, count) in &setup.markers {
                state.add_marker_count(at, marker, i32::from(count));
            }
            for &(unit, count) in &setup.pool {
                state.take_from_stock(
                    module,
                    scenario,
                    side,
                    unit,
                    count,
                    Place::Pool,
                    Flags::NONE,
                )?;
            }
            for &(unit, count) in &setup.set_aside {
                state.take_from_stock(
                    module,
                    scenario,
                    side,
                    unit,
                    count,
                    Place::SetAside,
                    Flags::NONE,
                )?;
            }
            for &b in &setup.control {
                state.boxes[b.index()].marker = true;
            }
        }
        state.number_pieces();
        Ok(state)
    }

    #[allow(clippy::too_many_arguments)]
    fn take_from_stock(
        &mut self,
        module: &Module,
        scenario: &Scenario,
        side: SideId,
        kind: UnitTypeId,
        count: u16,
        to: Place,
        flags: Flags,
    ) -> Result<UnitId, SetupError> {
        let mut left = u32::from(count);
        let mut first = None;
        for (i, u) in self.units.iter_mut().enumerate() {
            if left == 0 {
                break;
            }
            if u.side == side && u.kind == kind && u.place == Place::Stock {
                u.place = to;
                u.flags = flags;
                left -= 1;
                first = first.or(UnitId::from_index(i));
            }
        }
        if left > 0 {
            return Err(SetupError::NotEnoughPieces {
                scenario: scenario.id.clone(),
                side: module.side(side).id.clone(),
                unit: module.units.get(kind).id.clone(),
                wanted: u32::from(count),
                left: u32::from(count) - left,
            });
        }
        Ok(first.unwrap_or(UnitId(0)))
    }

    pub fn unit(&self, id: UnitId) -> &Unit {
        &self.units[id.index()]
    }

    pub fn unit_ids(&self) -> impl Iterator<Item = UnitId> + '_ {
        (0..self.units.len()).filter_map(UnitId::from_index)
    }

    /// The units in a box, in id order.
    pub fn units_at(&self, at: BoxId) -> impl Iterator<Item = UnitId> + '_ {
        // Over the pieces themselves, an id made only for those in the box: computer
        // players' recall checks what the rules read of boxes, a scan of every piece each.
        let here = Place::Board(at);
        self.units
            .iter()
            .enumerate()
            .filter(move |(_, u)| u.place == here)
            .filter_map(|(i, _)| UnitId::from_index(i))
    }

    /// Whose player turn it is (in a turn-end step, the side the step names, else the
    /// first to play).
    pub fn active_side(&self, module: &Module) -> SideId {
        let first = module.calendar.sides.first().copied().unwrap_or(SideId(0));
        match module.calendar.sides.get(usize::from(self.player)) {
            Some(&side) => side,
            None => self
                .current_step(module)
                .and_then(|s| s.side)
                .unwrap_or(first),
        }
    }

    /// Whether the game is in its turn-end steps (after every side's player turn).
    pub fn at_turn_end(&self, module: &Module) -> bool {
        usize::from(self.player) >= module.calendar.sides.len()
    }

    /// The step under way (`None` once the game is over).
    pub fn current_step<'m>(&self, module: &'m Module) -> Option<&'m Step> {
        if self.outcome.is_some() {
            return None;
        }
        self.step_at(module)
    }

    /// The step the game is at: the one under way, or the one it ended in. The step
    /// hooks name (`step_started`, `step_ended`, `offers`) is this one, even for an
    /// event that follows the end of the game.
    pub fn step_at<'m>(&self, module: &'m Module) -> Option<&'m Step> {
        let list = if self.at_turn_end(module) {
            &module.calendar.turn_end
        } else {
            &module.calendar.steps
        };
        list.get(usize::from(self.step))
    }

    /// A piece's attribute: its own value, else its type's starting one; `None` if its
    /// type has no such attribute.
    pub fn attribute(&self, module: &Module, unit: UnitId, id: AttributeId) -> Option<i64> {
        let start = module
            .units
            .get(self.units.get(unit.index())?.kind)
            .attribute(id)?;
        Some(
            self.attributes
                .binary_search_by_key(&(unit, id), |&(u, a, _)| (u, a))
                .map_or(start, |i| self.attributes[i].2),
        )
    }

    /// How many markers of a kind lie in a box.
    pub fn markers_at(&self, at: BoxId, id: MarkerId) -> u16 {
        self.markers
            .binary_search_by_key(&(at, id), |&(b, m, _)| (b, m))
            .map_or(0, |i| self.markers[i].2)
    }

    /// The pieces attached to `unit`, in id order.
    pub fn attached(&self, unit: UnitId) -> impl Iterator<Item = UnitId> + '_ {
        self.unit_ids()
            .filter(move |&u| self.unit(u).attached_to == Some(unit))
    }

    /// What `side` holds of a resource.
    pub fn resource(&self, side: SideId, r: ResourceId) -> i64 {
        self.resources
            .get(side.index())
            .and_then(|v| v.get(r.index()))
            .copied()
            .unwrap_or(0)
    }

    /// What the moving side has left of the resource the current step spends.
    pub fn step_left(&self, module: &Module) -> i64 {
        match self.current_step(module).and_then(|s| s.spends) {
            Some(r) => self.resource(self.active_side(module), r),
            None => 0,
        }
    }

    /// Spends `n` of the current step's resource (the caller checked there is enough).
    pub(crate) fn spend_step(&mut self, module: &Module, n: i64) {
        if let Some(r) = self.current_step(module).and_then(|s| s.spends) {
            let side = self.active_side(module);
            let v = self.resource(side, r);
            self.set_resource(side, r, v - n);
        }
    }

    /// Sets what `side` holds of a resource (ids checked by the caller).
    pub(crate) fn set_resource(&mut self, side: SideId, r: ResourceId, value: i64) {
        if let Some(slot) = self
            .resources
            .get_mut(side.index())
            .and_then(|v| v.get_mut(r.index()))
        {
            *slot = value;
        }
    }

    pub fn controller(&self, at: BoxId) -> Option<SideId> {
        self.boxes.get(at.index()).and_then(|b| b.controller)
    }

    /// A tally's value for `side` now: its box value added up over the boxes the side
    /// controls (AHD's army maximum, 7.1).
    pub fn tally(&self, module: &Module, tally: TallyId, side: SideId) -> u32 {
        let sums = module.tally(tally).sums;
        module
            .board
            .boxes
            .iter()
            .zip(&self.boxes)
            .filter(|(_, b)| b.controller == Some(side))
            .map(|(m, _)| u32::from(m.value(sums, side)))
            .sum()
    }

    pub fn has_option(&self, option: OptionId) -> bool {
        self.options.binary_search(&option).is_ok()
    }

    pub fn var(&self, name: &str) -> i64 {
        self.vars.get(name).unwrap_or(0)
    }

    /// Pieces of one side and type in each place.
    pub fn count(&self, side: SideId, kind: UnitTypeId, place: impl Fn(Place) -> bool) -> u32 {
        let n = self
            .units
            .iter()
            .filter(|u| u.side == side && u.kind == kind && place(u.place))
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Checks what must hold after every action; the message names what broke.
    pub fn check_invariants(&self, module: &Module) -> Result<(), String> {
        if self.boxes.len() != module.board.boxes.len() {
            return Err("box states do not match the map".into());
        }
        if self.resources.len() != module.sides.len()
            || self
                .resources
                .iter()
                .any(|r| r.len() != module.resources.len())
        {
            return Err("resources do not match the module's sides and resources".into());
        }
        for side in module.side_ids() {
            for (i, r) in module.resources.iter().enumerate() {
                let v = self.resources[side.index()][i];
                if v < 0 {
                    return Err(format!("{} has {v} {}", module.side(side).id, r.id));
                }
            }
        }
        for side in module.side_ids() {
            for kind in module.units.ids() {
                let total = self.count(side, kind, |_| true);
                let mix = u32::from(module.units.get(kind).mix_for(side));
                if total != mix {
                    return Err(format!(
                        "{} has {total} {} pieces but the counter mix has {mix}",
                        module.side(side).id,
                        module.units.get(kind).id
                    ));
                }
            }
        }
        for (i, u) in self.units.iter().enumerate() {
            let t = module.units.get(u.kind);
            if u.hits >= t.steps {
                return Err(format!(
                    "unit {i} has {} hits but only {} steps",
                    u.hits, t.steps
                ));
            }
            if let Place::Board(b) = u.place
                && b.index() >= module.board.boxes.len()
            {
                return Err(format!("unit {i} is in a box that does not exist"));
            }
            if !u.flags.is_empty() && !matches!(u.place, Place::Board(_)) {
                return Err(format!("unit {i} carries flags off the board"));
            }
            if let Some(to) = u.attached_to {
                let carrier = self.units.get(to.index());
                // A formation's garrison stays where it was dropped (§6.23 of seed 001).
                let garrison = carrier.is_some_and(|c| {
                    module.units.get(c.kind).is_formation() && matches!(c.place, Place::Board(_))
                });
                if !matches!(u.place, Place::Board(_))
                    || (carrier.map(|c| c.place) != Some(u.place) && !garrison)
                {
                    return Err(format!(
                        "unit {i} is attached to unit {} but they are not in one box",
                        to.0
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The named counters of a state ([`GameState::vars`]), shared between the copies of a
/// state until one of them sets a counter: AHD keeps one per box it tells held, and
/// copying them with every action was 2% of a search's instructions, and more of its
/// time (an allocation each). Reads, equality, hash and the saved form are the map's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Vars(Arc<BTreeMap<String, i64>>);

impl Vars {
    pub fn get(&self, name: &str) -> Option<i64> {
        self.0.get(name).copied()
    }

    /// Sets `name` (a copy shared with other states is made first, unless it holds
    /// `value` already).
    pub fn insert(&mut self, name: String, value: i64) {
        if self.get(&name) != Some(value) {
            Arc::make_mut(&mut self.0).insert(name, value);
        }
    }

    pub fn clear(&mut self) {
        if !self.0.is_empty() {
            self.0 = Arc::default();
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> + '_ {
        self.0.iter().map(|(k, &v)| (k.as_str(), v))
    }
}

impl Serialize for Vars {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Vars {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::deserialize(d).map(|m| Vars(Arc::new(m)))
    }
}

/// The pieces and boxes for [`GameState::fingerprint`]: each piece packed in a 128-bit
/// word (then the id of the piece it is attached to, if any) and each box in 32 bits,
/// hashed in one pass by xxh3's 128-bit hash. Hashing them field by field through
/// SipHash was most of a fingerprint's cost (some 37,000 instructions for AHD's 126
/// pieces and 129 boxes; a search takes thousands). Distinct pieces make distinct
/// words, and a word says whether an id follows, so distinct boards make distinct
/// bytes.
fn board_digest(units: &[Unit], boxes: &[BoxState]) -> u128 {
    let mut bytes = Vec::with_capacity(16 + units.len() * 18 + boxes.len() * 4);
    bytes.extend_from_slice(&(units.len() as u64).to_le_bytes());
    for u in units {
        let (place, at) = match u.place {
            Place::Board(b) => (0u128, b.0),
            Place::Pool => (1, 0),
            Place::Stock => (2, 0),
            Place::SetAside => (3, 0),
        };
        let word = u128::from(u.number)
            | u128::from(u.flags.0) << 32
            | u128::from(u.kind.0) << 64
            | u128::from(u.side.0) << 72
            | u128::from(u.hits) << 80
            | u128::from(u.moves) << 88
            | place << 96
            | u128::from(at) << 98
            | u128::from(u.attached_to.is_some()) << 114;
        bytes.extend_from_slice(&word.to_le_bytes());
        if let Some(carrier) = u.attached_to {
            bytes.extend_from_slice(&carrier.0.to_le_bytes());
        }
    }
    bytes.extend_from_slice(&(boxes.len() as u64).to_le_bytes());
    for b in boxes {
        let controller = b.controller.map_or(0, |s| u32::from(s.0) + 1);
        bytes.extend_from_slice(&(controller | u32::from(b.marker) << 16).to_le_bytes());
    }
    xxhash_rust::xxh3::xxh3_128(&bytes)
}

#[cfg(test)]
mod vars {
    use std::collections::BTreeMap;
    use std::hash::{Hash, Hasher};

    use super::Vars;

    fn hash(v: &impl Hash) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        v.hash(&mut h);
        h.finish()
    }

    #[test]
    fn a_copy_is_set_apart_from_its_original() {
        let mut a = Vars::default();
        a.insert("held:1".into(), 1);
        let mut b = a.clone();
        b.insert("held:1".into(), 0);
        b.insert("held:2".into(), 1);
        assert_eq!(a.get("held:1"), Some(1));
        assert_eq!(a.get("held:2"), None);
        assert_eq!(b.get("held:1"), Some(0));
        b.clear();
        assert_eq!(b, Vars::default());
        assert_eq!(a.iter().collect::<Vec<_>>(), [("held:1", 1)]);
    }

    /// Saves and fingerprints are the plain map's, as before the counters were shared.
    #[test]
    fn saved_and_hashed_as_the_map() {
        let mut v = Vars::default();
        let mut m = BTreeMap::new();
        for (k, x) in [("b", 2), ("a", -1)] {
            v.insert(k.into(), x);
            m.insert(k.to_string(), x);
        }
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(json, serde_json::to_string(&m).unwrap());
        assert_eq!(json, r#"{"a":-1,"b":2}"#);
        assert_eq!(serde_json::from_str::<Vars>(&json).unwrap(), v);
        assert_eq!(hash(&v), hash(&m));
    }
}
