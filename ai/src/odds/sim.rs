//! The simulator: one battle at a time in bitmasks and small arrays, rolling dice in a
//! tight loop, with every rule answer asked once and cached.
//!
//! Caches, each sound by a contract of the question it keeps (see
//! `muster_core::game::rules::Question`). The contracts make units of a side that are
//! alike in type, entrenchment and entry interchangeable (as shooters, up to their
//! place in the battle's order), so answers are kept per *class* of such units, not
//! per unit:
//! - the value a shot needs (combat value + `ShotModifier`): a table of (shooter by
//!   rank among its side's units alive, target class) per situation: firing side,
//!   round, markers in the box, and the classes of each side's units alive in order;
//!   asked whole the first time the situation comes up, and looked up again during a
//!   volley once a unit has fallen or a hit was absorbed. Rules that declare the
//!   modifier fixed (`Rules::fixed`) get a table per round and firing side of (shooter
//!   class, target class) instead; rounds with the same table share it (in AHD the
//!   attacker's table never changes, the defender's changes once, after round 2);
//! - `AbsorbsHit`, and the markers `hit_absorbed` leaves, per (firing side, markers);
//! - `MayTarget` per (shooter class, target class, whether the target is targeted
//!   already, shots announced, and per class the units still in the battle and how many
//!   of the enemy's are targeted);
//! - whole announcements: a side's targets for its part follow from those answers, the
//!   units alive on both sides and the enemy's hits (the policy's only inputs), so they
//!   are kept per (side, its table, classes of its units alive in order, classes and
//!   hits of the enemy's alive in order), naming units by rank, and most parts cost one
//!   lookup.
//!
//! Keys are packed into a few machine words (a situation too big to pack is simply not
//! cached: asked or announced afresh, which is slower, never wrong).

use std::hash::{Hash, Hasher};

use muster_core::Module;
use muster_core::game::battle::Stage;
use muster_core::game::dice::Pcg32;
use muster_core::game::flow::react;
use muster_core::game::rules::{ask_bool, ask_int};
use muster_core::game::{ActionError, Event, GameState, Place, Question, Rules, View};
use muster_core::ids::{BoxId, MarkerId, SideId, UnitId};
use muster_core::unit::Flags;

use super::setup::{Phase, Setup, gone_to};
use super::{MAX_UNITS, OddsError, RetreatPolicy, Role};
use crate::battle::{Pressure, better, hit_chance, loss_choice, prefers_absorbing, score, worth};
use muster_core::calendar::BattleOptions;
use muster_core::format::{Casualties, Fire, Procedure, Resolve};

/// FxHash (rustc-hash 2): a multiply and a rotate per word; the keys are a few words,
/// and its finish rotates the high bits down, so keys alike in their low fields (side,
/// table, count) do not pile into a few buckets.
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// A cache key of up to `64 * N` bits.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key<const N: usize>([u64; N]);

impl<const N: usize> Hash for Key<N> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        for &w in &self.0 {
            h.write_u64(w);
        }
    }
}

/// Builds a [`Key`] field by field; `None` at the end if the fields did not fit.
struct Packer<const N: usize> {
    words: [u64; N],
    used: u32,
    fits: bool,
}

impl<const N: usize> Packer<N> {
    fn new() -> Self {
        Packer {
            words: [0; N],
            used: 0,
            fits: true,
        }
    }

    /// Appends the low `bits` bits of `value` (`bits` at most 64).
    fn push(&mut self, value: u64, bits: u32) {
        if bits == 0 {
            return;
        }
        if self.used + bits > 64 * N as u32 {
            self.fits = false;
            return;
        }
        let value = if bits == 64 {
            value
        } else {
            value & ((1 << bits) - 1)
        };
        let (word, at) = ((self.used / 64) as usize, self.used % 64);
        self.words[word] |= value << at;
        if at + bits > 64 {
            self.words[word + 1] |= value >> (64 - at);
        }
        self.used += bits;
    }

    fn key(self) -> Option<Key<N>> {
        self.fits.then_some(Key(self.words))
    }
}

/// One announced shot: indices into the firing side's and the enemy's units, and what
/// the die must show at most to hit.
#[derive(Clone, Copy, Debug)]
struct Shot {
    shooter: u8,
    target: u8,
    needed: i32,
}

/// Stored announcements stop growing past this many shots (memory stays bounded; later
/// situations are announced afresh each time, which is only slower).
const ARENA_CAP: usize = 1 << 22;

/// One side's units, fixed for the simulation.
struct Force {
    ids: Vec<UnitId>,
    combat: Vec<i64>,
    steps: Vec<u8>,
    worth: Vec<f64>,
    flags: Vec<Flags>,
    gone: Vec<Place>,
    /// Each unit's class: units alike in type, flags and entry.
    class: Vec<usize>,
    /// The units of each class; the first is the class's representative.
    classes: Vec<u64>,
    start_hits: Vec<u8>,
    start_alive: u64,
    start_steps: u32,
    /// Bits to write a unit's hits, and a class index, in a key.
    hit_bits: u32,
    class_bits: u32,
}

/// A side's needed values in one situation, `[shooter][target class]` (shooters by rank
/// among the side's units still in the battle), with the chance each gives on the die.
struct Table {
    needed: Vec<i32>,
    chance: Vec<f64>,
}

/// The battle under way in the simulator.
struct Run {
    alive: [u64; 2],
    hits: [[u8; MAX_UNITS]; 2],
    /// Steps left per side.
    left: [u32; 2],
    round: u8,
    firing: usize,
    /// Each side's table as last looked up (the firing side's is up to date).
    table: [usize; 2],
    /// The markers in the battle's box: an index into `Simulator::marker_states`.
    markers: usize,
}

/// How a simulated battle ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The winner eliminated every enemy unit.
    Won { winner: Role },
    /// This side retreated (5.4); the other side won.
    Retreated { by: Role },
    /// The defender withdrew before round 1 (5.6); nobody won.
    Withdrawn,
    /// No winner: still going after round 255, or (simultaneous fire) both sides
    /// eliminated in the same round.
    Undecided,
}

/// One simulated battle, unit by unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fought {
    pub outcome: Outcome,
    /// The round it ended in (0 for a withdrawal).
    pub round: u8,
    /// Surviving units with their hits, in the order they fought (retreating and
    /// withdrawing units survive).
    pub attackers: Vec<(UnitId, u8)>,
    pub defenders: Vec<(UnitId, u8)>,
}

/// Where the first part of each simulated battle starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Start {
    Withdraw,
    Retreat,
    Fire,
}

/// Where a part's announced shots are.
enum Plan {
    Arena(usize, usize),
    Buf,
    First,
}

/// Plays one battle setup again and again. Rule answers are asked of `rules` on a
/// scratch copy of the setup's position, lazily, and cached for the simulator's life.
pub struct Simulator<'a> {
    module: &'a Module,
    rules: &'a mut dyn Rules,
    scratch: GameState,
    sides: [SideId; 2],
    at: Option<BoxId>,
    force: [Force; 2],
    start_round: u8,
    start_firing: usize,
    start: Start,
    /// Shots of the first part announced before the simulation (a battle snapshot).
    prefix: Vec<(usize, usize)>,
    first_plan: Option<Vec<Shot>>,
    /// Per firing side, its distinct tables, and each one's index by content.
    tables: [Vec<Table>; 2],
    table_ids: [FxMap<Vec<i32>, usize>; 2],
    /// The table of each situation (see [`Simulator::table_key`]).
    table_of: FxMap<Key<4>, u32>,
    /// The battle box's markers in each state met so far, sorted; the first is the
    /// setup's.
    marker_states: Vec<Vec<(MarkerId, u16)>>,
    /// The marker state written in `scratch`.
    scratch_markers: usize,
    /// Whether the rules declare `shot_modifier` fixed for a battle (`Rules::fixed`):
    /// then a table is per (round, firing side) and per class of shooter, as in AHD.
    fixed: bool,
    /// Whether the rules answer `absorbs_hit` (if not, no hit is ever absorbed).
    absorbing: bool,
    /// Per (firing side, marker state): whether a hit is absorbed, and the marker state
    /// `hit_absorbed` leaves.
    absorbed: FxMap<u64, Option<u32>>,
    /// Fixed modifiers: per round, each side's table once asked (`u32::MAX` before).
    round_table: Vec<[u32; 2]>,
    may_target: FxMap<Key<4>, bool>,
    /// Announcements by situation: keys of one word (most battles) apart, for a
    /// smaller, faster map.
    plans: FxMap<u64, (u32, u32)>,
    wide_plans: FxMap<Key<2>, (u32, u32)>,
    arena: Vec<Shot>,
    buf: Vec<Shot>,
    /// Per enemy unit, the shots announced at it (reused by `announce`).
    pressure: Vec<Pressure>,
    retreat_ok: [Option<bool>; 2],
    withdraw_ok: Option<bool>,
    /// The module's battle procedure (its first `battles` step by dice; AHD's if none).
    opts: BattleOptions,
    run: Run,
}

/// The index of the `n`-th set bit of `mask` (0-based, lowest first).
fn nth_bit(mut mask: u64, n: usize) -> usize {
    for _ in 0..n {
        mask &= mask.wrapping_sub(1);
    }
    mask.trailing_zeros() as usize
}

/// Indices of the set bits, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let i = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(i)
    })
}

fn force(module: &Module, setup: &Setup, role: Role) -> Result<Force, OddsError> {
    let fighters = setup.force(role);
    let word = match role {
        Role::Attacker => "attackers",
        Role::Defender => "defenders",
    };
    if fighters.is_empty() {
        return Err(OddsError::EmptyForce { force: word });
    }
    if fighters.len() > MAX_UNITS {
        return Err(OddsError::TooManyUnits {
            force: word,
            count: fighters.len(),
        });
    }
    let n = fighters.len();
    let mut f = Force {
        ids: Vec::with_capacity(n),
        combat: Vec::with_capacity(n),
        steps: Vec::with_capacity(n),
        worth: Vec::with_capacity(n),
        flags: Vec::with_capacity(n),
        gone: Vec::with_capacity(n),
        class: Vec::with_capacity(n),
        classes: Vec::new(),
        start_hits: Vec::with_capacity(n),
        start_alive: 0,
        start_steps: 0,
        hit_bits: 0,
        class_bits: 0,
    };
    let mut max_hits = 0u8;
    for (i, x) in fighters.iter().enumerate() {
        // `Setup::scratch` has checked the type exists and the hits fit its steps.
        let t = module.units.get(x.kind);
        f.ids.push(x.unit);
        f.combat.push(i64::from(t.combat));
        f.steps.push(t.steps);
        f.worth.push(worth(t.combat));
        f.flags.push(x.flags);
        f.gone.push(gone_to(module, x.kind));
        let alike = fighters[..i]
            .iter()
            .position(|y| (y.kind, y.flags, y.entry) == (x.kind, x.flags, x.entry));
        let class = match alike {
            Some(j) => f.class[j],
            None => {
                f.classes.push(0);
                f.classes.len() - 1
            }
        };
        f.class.push(class);
        f.classes[class] |= 1 << i;
        f.start_hits.push(x.hits);
        f.start_alive |= 1 << i;
        f.start_steps += u32::from(t.steps - x.hits);
        max_hits = max_hits.max(t.steps - 1);
    }
    f.hit_bits = u8::BITS - max_hits.leading_zeros();
    f.class_bits = usize::BITS - (f.classes.len() - 1).leading_zeros();
    Ok(f)
}

impl<'a> Simulator<'a> {
    /// A simulator for `setup`, asking `rules` (nothing is asked yet).
    pub fn new(
        module: &'a Module,
        rules: &'a mut dyn Rules,
        setup: &Setup,
    ) -> Result<Self, OddsError> {
        let scratch = setup.scratch(module)?;
        let force = [
            force(module, setup, Role::Attacker)?,
            force(module, setup, Role::Defender)?,
        ];
        let firing = setup.firing.index();
        let (start, prefix) = match &setup.phase {
            Phase::BeforeCombat => (Start::Withdraw, Vec::new()),
            Phase::PartStart => (Start::Retreat, Vec::new()),
            Phase::Targeting { shots } => {
                let mut prefix = Vec::new();
                let (own, enemy) = (&force[firing].ids, &force[1 - firing].ids);
                for &(s, t) in shots {
                    let (Some(i), Some(j)) = (
                        own.iter().position(|&u| u == s),
                        enemy.iter().position(|&u| u == t),
                    ) else {
                        return Err(OddsError::Setup(format!(
                            "the announced shot of unit {} at unit {} is not between the battle's sides",
                            s.0, t.0
                        )));
                    };
                    if prefix.iter().any(|&(x, _)| x == i) {
                        return Err(OddsError::Setup(format!(
                            "unit {} has announced two shots",
                            s.0
                        )));
                    }
                    prefix.push((i, j));
                }
                (Start::Fire, prefix)
            }
        };
        let run = Run {
            alive: [0; 2],
            hits: [[0; MAX_UNITS]; 2],
            left: [0; 2],
            round: 1,
            firing,
            table: [0; 2],
            markers: 0,
        };
        let markers_here = markers_at(&scratch, setup.at.unwrap_or_default());
        let fixed = rules.fixed(
            Question::ShotModifier {
                shooter: UnitId(0),
                target: UnitId(0),
            }
            .hook(),
        );
        let absorbing = rules.answers(
            Question::AbsorbsHit {
                shooter: UnitId(0),
                target: UnitId(0),
            }
            .hook(),
        );
        Ok(Simulator {
            module,
            rules,
            scratch,
            sides: [setup.attacker, setup.defender],
            at: setup.at,
            force,
            start_round: setup.round.max(1),
            start_firing: firing,
            start,
            prefix,
            first_plan: None,
            tables: [Vec::new(), Vec::new()],
            table_ids: [FxMap::default(), FxMap::default()],
            table_of: FxMap::default(),
            marker_states: vec![markers_here],
            scratch_markers: 0,
            fixed,
            absorbing,
            absorbed: FxMap::default(),
            round_table: Vec::new(),
            may_target: FxMap::default(),
            plans: FxMap::default(),
            wide_plans: FxMap::default(),
            arena: Vec::new(),
            buf: Vec::new(),
            pressure: Vec::new(),
            retreat_ok: [None; 2],
            withdraw_ok: None,
            opts: module
                .calendar
                .steps
                .iter()
                .find(|s| s.procedure == Procedure::Battles && s.resolve == Resolve::Dice)
                .map(|s| s.battle)
                .unwrap_or_default(),
            run,
        })
    }

    /// Plays one battle with these retreat policies, rolling on `rng`, and tells how it
    /// went unit by unit.
    pub fn fight(
        &mut self,
        rng: &mut Pcg32,
        attacker_retreat: RetreatPolicy,
        defender_retreat: RetreatPolicy,
    ) -> Result<Fought, OddsError> {
        let outcome = self.play(rng, [attacker_retreat, defender_retreat])?;
        let survivors = |side: usize| {
            let mut out = Vec::new();
            self.each_survivor(side, |i, hits| out.push((self.force[side].ids[i], hits)));
            out
        };
        Ok(Fought {
            outcome,
            round: self.run.round,
            attackers: survivors(0),
            defenders: survivors(1),
        })
    }

    /// Units per side.
    pub(crate) fn sizes(&self) -> [usize; 2] {
        [self.force[0].ids.len(), self.force[1].ids.len()]
    }

    pub(crate) fn side(&self, role: Role) -> SideId {
        self.sides[role.index()]
    }

    /// The round the last battle ended in.
    pub(crate) fn round(&self) -> u8 {
        self.run.round
    }

    /// Calls `f(index, hits)` for each unit of `side` alive at the end of the last
    /// battle, in order.
    pub(crate) fn each_survivor(&self, side: usize, mut f: impl FnMut(usize, u8)) {
        for i in bits(self.run.alive[side]) {
            f(i, self.run.hits[side][i]);
        }
    }

    fn reset(&mut self) {
        let run = &mut self.run;
        for (s, f) in self.force.iter().enumerate() {
            run.alive[s] = f.start_alive;
            run.hits[s][..f.start_hits.len()].copy_from_slice(&f.start_hits);
            run.left[s] = f.start_steps;
        }
        run.round = self.start_round;
        run.firing = self.start_firing;
        run.markers = 0;
    }

    /// Plays one battle; its end state stays in `self.run`.
    pub(crate) fn play(
        &mut self,
        rng: &mut Pcg32,
        policies: [RetreatPolicy; 2],
    ) -> Result<Outcome, OddsError> {
        self.reset();
        if self.start == Start::Withdraw
            && policies[1].wants_withdrawal()
            && !self.opts.no_withdrawal
            && self.withdrawal_allowed()?
        {
            self.run.round = 0;
            return Ok(Outcome::Withdrawn);
        }
        if self.opts.casualties == Casualties::Owner {
            return self.play_owner(rng, policies);
        }
        let mut decide = self.start == Start::Retreat;
        let mut first = !self.prefix.is_empty();
        loop {
            let (r, e) = (self.run.firing, 1 - self.run.firing);
            // 5.4: from round 2 a side may retreat before (in lieu of) firing.
            if decide && self.run.round >= 2 {
                let start = self.force[r].start_steps;
                let lost = start - self.run.left[r];
                if policies[r].wants_retreat(self.run.round, lost, start)
                    && self.opts.may_retreat(r == 0)
                    && self.retreat_allowed(r)?
                {
                    return Ok(Outcome::Retreated {
                        by: Role::from_index(r),
                    });
                }
            }
            decide = true;
            self.run.table[r] = self.table_now(r)?;
            let plan = if first {
                first = false;
                self.first_part()?
            } else {
                self.part(r)?
            };
            self.fire(plan, r, rng)?;
            if self.run.alive[e] == 0 {
                return Ok(Outcome::Won {
                    winner: Role::from_index(r),
                });
            }
            if r == 1 {
                self.run.firing = 0;
            } else {
                self.run.firing = 1;
                if self.run.round == u8::MAX {
                    return Ok(Outcome::Undecided);
                }
                self.run.round += 1;
            }
        }
    }

    /// Side `r`'s decision to retreat at its part of the round, if its policy wants one
    /// and the module and the rules allow it.
    fn retreats(&mut self, r: usize, policy: RetreatPolicy) -> Result<bool, OddsError> {
        if self.run.round < 2 || !self.opts.may_retreat(r == 0) {
            return Ok(false);
        }
        let start = self.force[r].start_steps;
        let lost = start - self.run.left[r];
        Ok(policy.wants_retreat(self.run.round, lost, start) && self.retreat_allowed(r)?)
    }

    /// A battle whose owners choose their casualties (`casualties="owner"`), as the
    /// engine plays it: each part (alternate fire) or each round (simultaneous, the
    /// defender's dice first) the firing units roll in order at no one in particular,
    /// their value asked against the enemy's first unit alive; the hits are steps the
    /// side hit takes, once the volley (or both) is rolled, as the computer players do
    /// (`loss_action`): off its cheapest piece ([`loss_choice`]), or absorbed where the
    /// rules let it and [`prefers_absorbing`] says so (`hit_absorbed` then runs).
    fn play_owner(
        &mut self,
        rng: &mut Pcg32,
        policies: [RetreatPolicy; 2],
    ) -> Result<Outcome, OddsError> {
        let simultaneous = self.opts.fire == Fire::Simultaneous;
        let mut decide = self.start == Start::Retreat;
        loop {
            if simultaneous {
                if decide {
                    for r in [1, 0] {
                        if self.retreats(r, policies[r])? {
                            return Ok(Outcome::Retreated {
                                by: Role::from_index(r),
                            });
                        }
                    }
                }
                decide = true;
                let mut owed = [0u32; 2];
                for r in [1, 0] {
                    owed[1 - r] += self.volley(r, rng)?;
                }
                for side in [1, 0] {
                    self.take_losses(side, owed[side])?;
                }
                match (self.run.alive[0] == 0, self.run.alive[1] == 0) {
                    (true, true) => return Ok(Outcome::Undecided),
                    (false, true) => {
                        return Ok(Outcome::Won {
                            winner: Role::Attacker,
                        });
                    }
                    (true, false) => {
                        return Ok(Outcome::Won {
                            winner: Role::Defender,
                        });
                    }
                    (false, false) => {}
                }
                if self.run.round == u8::MAX {
                    return Ok(Outcome::Undecided);
                }
                self.run.round += 1;
                self.run.firing = 1;
                continue;
            }
            let (r, e) = (self.run.firing, 1 - self.run.firing);
            if decide && self.retreats(r, policies[r])? {
                return Ok(Outcome::Retreated {
                    by: Role::from_index(r),
                });
            }
            decide = true;
            let owed = self.volley(r, rng)?;
            self.take_losses(e, owed)?;
            if self.run.alive[e] == 0 {
                return Ok(Outcome::Won {
                    winner: Role::from_index(r),
                });
            }
            if r == 1 {
                self.run.firing = 0;
            } else {
                self.run.firing = 1;
                if self.run.round == u8::MAX {
                    return Ok(Outcome::Undecided);
                }
                self.run.round += 1;
            }
        }
    }

    /// Side `r`'s units roll once each, in order, at the enemy's first unit alive (the
    /// engine's `volley`); returns the hits, which the enemy takes as it chooses.
    fn volley(&mut self, r: usize, rng: &mut Pcg32) -> Result<u32, OddsError> {
        let e = 1 - r;
        let Some(t) = bits(self.run.alive[e]).next() else {
            return Ok(0);
        };
        let dice = self.module.dice;
        self.run.table[r] = self.table_now(r)?;
        let mut hits = 0;
        for i in bits(self.run.alive[r]) {
            let needed = self.table(r).needed[self.pair(r, i, t)];
            if needed < 1 {
                continue;
            }
            let roll = rng.between_one_and(dice);
            if i64::from(roll) > i64::from(needed) {
                continue;
            }
            hits += 1;
        }
        Ok(hits)
    }

    /// Side `s` takes `n` lost steps one at a time, as the computer players do
    /// (`loss_action`): each off its cheapest piece ([`loss_choice`]), or absorbed where
    /// the rules let it (asked as the engine asks: the enemy's first unit alive, or the
    /// side's own if none, at the side's first) and [`prefers_absorbing`] the side's
    /// fire after each.
    fn take_losses(&mut self, s: usize, n: u32) -> Result<(), OddsError> {
        for _ in 0..n {
            let alive = self.run.alive[s];
            let f = &self.force[s];
            let Some(k) = loss_choice(bits(alive).map(|i| f.combat[i])) else {
                return Ok(());
            };
            let i = nth_bit(alive, k);
            if self.absorbing {
                let e = 1 - s;
                let first = alive.trailing_zeros() as usize;
                let shooter = match bits(self.run.alive[e]).next() {
                    Some(j) => self.force[e].ids[j],
                    None => self.force[s].ids[first],
                };
                if let Some(next) = self.absorbed_by(e, shooter, first)? {
                    let eliminated = self.run.hits[s][i] + 1 >= self.force[s].steps[i];
                    let after_loss = if eliminated { alive & !(1 << i) } else { alive };
                    let with = self.fire_of(s, alive, next)?;
                    let without = self.fire_of(s, after_loss, self.run.markers)?;
                    if prefers_absorbing(with, without) {
                        self.run.markers = next;
                        continue;
                    }
                }
            }
            self.run.left[s] -= 1;
            let hits = self.run.hits[s][i] + 1;
            if hits >= self.force[s].steps[i] {
                self.run.hits[s][i] = 0;
                self.run.alive[s] &= !(1 << i);
            } else {
                self.run.hits[s][i] = hits;
            }
        }
        Ok(())
    }

    /// Side `s`'s fire (as [`crate::battle::fire`] reckons it) with `alive` of its units
    /// in the battle and the markers in state `markers`: the sum of their shot values
    /// at the enemy's first unit alive, each between 0 and the die's faces.
    fn fire_of(&mut self, s: usize, alive: u64, markers: usize) -> Result<i64, OddsError> {
        let Some(t) = bits(self.run.alive[1 - s]).next() else {
            return Ok(0);
        };
        let saved = (self.run.alive[s], self.run.markers, self.run.table[s]);
        self.run.alive[s] = alive;
        self.run.markers = markers;
        let faces = i64::from(self.module.dice.max(1));
        let sum = self.table_now(s).map(|id| {
            self.run.table[s] = id;
            bits(alive)
                .map(|i| i64::from(self.table(s).needed[self.pair(s, i, t)]).clamp(0, faces))
                .sum()
        });
        (self.run.alive[s], self.run.markers, self.run.table[s]) = saved;
        sum
    }

    /// The `k`-th shot of `plan`, as stored.
    fn shot(&self, plan: &Plan, k: usize) -> Shot {
        match plan {
            Plan::Arena(..) => self.arena[k],
            Plan::Buf => self.buf[k],
            Plan::First => self.first_plan.as_deref().unwrap_or_default()[k],
        }
    }

    /// Rolls side `r`'s shots of `plan` in announced order (5.1): none for a shot at a
    /// unit already gone or an impossible one (5.33); a hit the rules absorb costs what
    /// `hit_absorbed` says; otherwise a hit takes a step, the last step eliminates.
    /// Unless the modifiers are fixed, the value a shot needs is the one announced
    /// until a unit is eliminated or the markers change; from then on it is looked up
    /// again for the battle as it now stands, as the engine asks `shot_modifier` when
    /// each shot is rolled.
    fn fire(&mut self, plan: Plan, r: usize, rng: &mut Pcg32) -> Result<(), OddsError> {
        let e = 1 - r;
        let dice = self.module.dice;
        let (from, to) = match plan {
            Plan::Arena(a, b) => (a, b),
            Plan::Buf => (0, self.buf.len()),
            Plan::First => (0, self.first_plan.as_ref().map_or(0, Vec::len)),
        };
        // Stored announcements name units by rank among those alive at the part's start.
        let ranked = matches!(plan, Plan::Arena(..));
        let mut order = [0u8; MAX_UNITS];
        if ranked {
            for (k, t) in bits(self.run.alive[e]).enumerate() {
                order[k] = t as u8;
            }
        }
        let own = self.run.alive[r];
        let shooter = |s: &Shot| {
            if ranked {
                nth_bit(own, usize::from(s.shooter))
            } else {
                usize::from(s.shooter)
            }
        };
        let mut changed = false;
        for k in from..to {
            let s = self.shot(&plan, k);
            let t = usize::from(if ranked {
                order[usize::from(s.target)]
            } else {
                s.target
            });
            let bit = 1u64 << t;
            if self.run.alive[e] & bit == 0 {
                continue;
            }
            let needed = if changed && !self.fixed {
                self.needed_now(r, shooter(&s), t)?
            } else {
                s.needed
            };
            if needed < 1 {
                continue;
            }
            let roll = rng.between_one_and(dice);
            if i64::from(roll) > i64::from(needed) {
                continue;
            }
            if self.absorbing
                && let Some(next) = self.absorbed(r, shooter(&s), t)?
            {
                self.run.markers = next;
                changed = true;
                continue;
            }
            self.run.left[e] -= 1;
            let hits = self.run.hits[e][t] + 1;
            if hits >= self.force[e].steps[t] {
                self.run.hits[e][t] = 0;
                self.run.alive[e] &= !bit;
                changed = true;
            } else {
                self.run.hits[e][t] = hits;
            }
        }
        Ok(())
    }

    /// What side `r`'s unit `i` needs to hit the enemy's unit `t` with the battle as it
    /// stands now.
    fn needed_now(&mut self, r: usize, i: usize, t: usize) -> Result<i32, OddsError> {
        self.run.table[r] = self.table_now(r)?;
        Ok(self.table(r).needed[self.pair(r, i, t)])
    }

    /// A hit of side `r`'s unit `i` on the enemy's unit `t`: if the rules absorb it, the
    /// marker state `hit_absorbed` leaves. Cached per (firing side, marker state), by the
    /// `AbsorbsHit` contract.
    fn absorbed(&mut self, r: usize, i: usize, t: usize) -> Result<Option<usize>, OddsError> {
        self.absorbed_by(r, self.force[r].ids[i], t)
    }

    /// [`Simulator::absorbed`] for a hit by the piece `shooter` (of side `r`, or any
    /// piece where the enemy has none left: the answer depends on neither).
    fn absorbed_by(
        &mut self,
        r: usize,
        shooter: UnitId,
        t: usize,
    ) -> Result<Option<usize>, OddsError> {
        let key = r as u64 | (self.run.markers as u64) << 1;
        if let Some(&next) = self.absorbed.get(&key) {
            return Ok(next.map(|n| n as usize));
        }
        self.sync(r, Stage::Target, false);
        let target = self.force[1 - r].ids[t];
        let view = View {
            module: self.module,
            state: &self.scratch,
        };
        let next = if ask_bool(
            &mut *self.rules,
            view,
            Question::AbsorbsHit { shooter, target },
        )? {
            Some(self.pay_for_absorbed(shooter, target)?)
        } else {
            None
        };
        if let Some(n) = next {
            // Marker states are few; an absurd number is simply not cached.
            if u32::try_from(n).is_err() {
                return Ok(next);
            }
        }
        self.absorbed.insert(key, next.map(|n| n as u32));
        Ok(next)
    }

    /// Runs `hit_absorbed` on the scratch position and returns the marker state its
    /// commands leave. They may change the battle box's markers and nothing else (the
    /// calculator follows markers, not the rest of the position).
    fn pay_for_absorbed(&mut self, shooter: UnitId, target: UnitId) -> Result<usize, OddsError> {
        let at = self.at.unwrap_or_default();
        let before = self.scratch.clone();
        let event = Event::HitAbsorbed { shooter, target };
        let done = react(self.module, &mut *self.rules, &mut self.scratch, event);
        let mut after = std::mem::replace(&mut self.scratch, before);
        match done {
            Ok(_) => {}
            Err(ActionError::Rule(e)) => return Err(e.into()),
            Err(ActionError::Illegal(why)) => return Err(OddsError::Absorbed(why)),
        }
        let now = markers_at(&after, at);
        let (mut was, unchanged) = (self.scratch.clone(), &mut after);
        was.markers.retain(|m| m.0 != at);
        unchanged.markers.retain(|m| m.0 != at);
        if was != *unchanged {
            return Err(OddsError::Absorbed(
                "its commands change more than the markers in the battle's box".into(),
            ));
        }
        let id = match self.marker_states.iter().position(|m| *m == now) {
            Some(id) => id,
            None => {
                self.marker_states.push(now);
                self.marker_states.len() - 1
            }
        };
        Ok(id)
    }

    /// The first part of a battle snapshot whose targets were partly announced: the same
    /// in every run, so announced once.
    fn first_part(&mut self) -> Result<Plan, OddsError> {
        if self.first_plan.is_none() {
            let r = self.run.firing;
            let prefix: Vec<Shot> = self
                .prefix
                .iter()
                .map(|&(i, t)| Shot {
                    shooter: i as u8,
                    target: t as u8,
                    needed: self.table(r).needed[self.pair(r, i, t)],
                })
                .collect();
            self.announce(r, &prefix)?;
            self.first_plan = Some(self.buf.clone());
        }
        Ok(Plan::First)
    }

    /// The key of side `r`'s announcement now: the side and its table, the classes of
    /// its units alive in their order, and the classes and hits of the enemy's units
    /// alive in their order. That is everything `announce` reads (the contracts make
    /// alike units interchangeable, and its tie-breaks follow the order), so one stored
    /// announcement, its units named by rank among those alive, serves every situation
    /// with this key. `None` if the key does not fit.
    fn plan_key(&self, r: usize) -> Option<Key<2>> {
        let e = 1 - r;
        let (own, enemy) = (&self.force[r], &self.force[e]);
        let table = self.run.table[r];
        // Table ids from 4096 on do not fit their 12 bits: no caching then.
        if table >= 1 << 12 {
            return None;
        }
        let (mine, theirs) = (self.run.alive[r], self.run.alive[e]);
        let widest = 27
            + own.ids.len() as u32 * own.class_bits
            + enemy.ids.len() as u32 * (enemy.class_bits + enemy.hit_bits);
        if widest <= 64 {
            // The common case, one word: the same fields as below, without the checks.
            let mut k = r as u64 | (table as u64) << 1 | u64::from(mine.count_ones()) << 13;
            let mut at = 20;
            for i in bits(mine) {
                k |= (own.class[i] as u64) << at;
                at += own.class_bits;
            }
            k |= u64::from(theirs.count_ones()) << at;
            at += 7;
            for t in bits(theirs) {
                let code =
                    enemy.class[t] as u64 | u64::from(self.run.hits[e][t]) << enemy.class_bits;
                k |= code << at;
                at += enemy.class_bits + enemy.hit_bits;
            }
            return Some(Key([k, 0]));
        }
        let mut k = Packer::<2>::new();
        k.push(r as u64, 1);
        k.push(table as u64, 12);
        k.push(u64::from(mine.count_ones()), 7);
        for i in bits(mine) {
            k.push(own.class[i] as u64, own.class_bits);
        }
        k.push(u64::from(theirs.count_ones()), 7);
        for t in bits(theirs) {
            k.push(enemy.class[t] as u64, enemy.class_bits);
            k.push(u64::from(self.run.hits[e][t]), enemy.hit_bits);
        }
        k.key()
    }

    /// The announcement for side `r`'s part now: from the cache, or made and stored.
    fn part(&mut self, r: usize) -> Result<Plan, OddsError> {
        let e = 1 - r;
        let key = self.plan_key(r);
        let narrow = key.filter(|k| k.0[1] == 0).map(|k| k.0[0]);
        let cached = match (narrow, key) {
            (Some(k), _) => self.plans.get(&k),
            (None, Some(k)) => self.wide_plans.get(&k),
            (None, None) => None,
        };
        if let Some(&(a, b)) = cached {
            return Ok(Plan::Arena(a as usize, b as usize));
        }
        self.announce(r, &[])?;
        if key.is_none() || self.arena.len() + self.buf.len() > ARENA_CAP {
            return Ok(Plan::Buf);
        }
        let a = self.arena.len();
        let below = |mask: u64, i: u8| (mask & ((1u64 << i) - 1)).count_ones() as u8;
        let (own, enemies) = (self.run.alive[r], self.run.alive[e]);
        self.arena.extend(self.buf.iter().map(|s| Shot {
            shooter: below(own, s.shooter),
            target: below(enemies, s.target),
            needed: s.needed,
        }));
        let b = self.arena.len();
        // Both below ARENA_CAP, so they fit a u32.
        let range = (a as u32, b as u32);
        match (narrow, key) {
            (Some(k), _) => {
                self.plans.insert(k, range);
            }
            (None, Some(k)) => {
                self.wide_plans.insert(k, range);
            }
            (None, None) => {}
        }
        Ok(Plan::Arena(a, b))
    }

    /// Side `r`'s table this round.
    fn table(&self, r: usize) -> &Table {
        &self.tables[r][self.run.table[r]]
    }

    /// The index of (unit `i` of side `r`, the enemy's unit `t`) in side `r`'s table
    /// now: `i`'s class (fixed modifiers) or rank among the side's units alive, and
    /// `t`'s class.
    fn pair(&self, r: usize, i: usize, t: usize) -> usize {
        let enemy = &self.force[1 - r];
        let row = if self.fixed {
            self.force[r].class[i]
        } else {
            (self.run.alive[r] & ((1u64 << i) - 1)).count_ones() as usize
        };
        row * enemy.classes.len() + enemy.class[t]
    }

    /// Names a target for each of side `r`'s units not in `prefix`, in order, into
    /// `self.buf`: the policy's choice among the targets the rules allow (any enemy if
    /// they allow none, 5.1). Candidates are tried best first, so `MayTarget` is asked
    /// only until one is allowed; that is the same choice as scoring the allowed list.
    fn announce(&mut self, r: usize, prefix: &[Shot]) -> Result<(), OddsError> {
        let e = 1 - r;
        let dice = self.module.dice;
        self.buf.clear();
        self.buf.extend_from_slice(prefix);
        let enemies = self.run.alive[e];
        // Taken out of `self` for the loop (it asks the rules through `self`).
        let mut pressure = std::mem::take(&mut self.pressure);
        pressure.resize(self.force[e].ids.len(), Pressure::new(1));
        let mut value = [0f64; MAX_UNITS];
        for t in bits(enemies) {
            pressure[t] = Pressure::new(self.force[e].steps[t] - self.run.hits[e][t]);
        }
        let (mut targeted, mut assigned) = (0u64, 0u64);
        for s in prefix {
            pressure[usize::from(s.target)].add_shot(hit_chance(i64::from(s.needed), dice));
            targeted |= 1 << s.target;
            assigned |= 1 << s.shooter;
        }
        for t in bits(enemies) {
            value[t] = pressure[t].value(self.force[e].worth[t]);
        }
        let mut scores = [0f64; MAX_UNITS];
        for i in bits(self.run.alive[r] & !assigned) {
            let table = self.table(r);
            for t in bits(enemies) {
                scores[t] = score(table.chance[self.pair(r, i, t)], value[t]);
            }
            let mut untried = enemies;
            let mut best_of_all = None;
            let mut chosen = None;
            while untried != 0 {
                let mut best: Option<(usize, f64)> = None;
                for t in bits(untried) {
                    if better(scores[t], best.map(|b| b.1)) {
                        best = Some((t, scores[t]));
                    }
                }
                let Some((t, _)) = best else { break };
                untried &= !(1 << t);
                best_of_all.get_or_insert(t);
                // A lone enemy is the target whatever the rules say: allowed, or the
                // fallback to any enemy (5.1). No need to ask.
                if enemies.count_ones() == 1 || self.may_target(r, i, t, targeted)? {
                    chosen = Some(t);
                    break;
                }
            }
            // The enemy has units while its side is fired at, so there is a best one.
            let Some(t) = chosen.or(best_of_all) else {
                break;
            };
            let table = self.table(r);
            let k = self.pair(r, i, t);
            let (needed, chance) = (table.needed[k], table.chance[k]);
            self.buf.push(Shot {
                shooter: i as u8,
                target: t as u8,
                needed,
            });
            pressure[t].add_shot(chance);
            value[t] = pressure[t].value(self.force[e].worth[t]);
            targeted |= 1 << t;
        }
        self.pressure = pressure;
        Ok(())
    }

    /// Side `r`'s table for the battle as it stands (asked the first time this
    /// situation comes up).
    fn table_now(&mut self, r: usize) -> Result<usize, OddsError> {
        if self.fixed {
            return self.round_table(r);
        }
        let key = self.table_key(r);
        if let Some(k) = key
            && let Some(&id) = self.table_of.get(&k)
        {
            return Ok(id as usize);
        }
        let id = self.ask_table(r)?;
        if let Some(k) = key
            && let Ok(id) = u32::try_from(id)
        {
            self.table_of.insert(k, id);
        }
        Ok(id)
    }

    /// Fixed modifiers: side `r`'s table this round, asked the first time the side
    /// fires in it (rounds with the same table share it: in AHD the attacker's never
    /// changes, the defender's changes once, after round 2).
    fn round_table(&mut self, r: usize) -> Result<usize, OddsError> {
        let round = usize::from(self.run.round);
        if let Some(&t) = self.round_table.get(round)
            && t[r] != u32::MAX
        {
            return Ok(t[r] as usize);
        }
        let id = self.ask_table(r)?;
        if self.round_table.len() <= round {
            self.round_table.resize(round + 1, [u32::MAX; 2]);
        }
        // Tables are far fewer than u32::MAX; one that is not is asked again next time.
        self.round_table[round][r] = u32::try_from(id).unwrap_or(u32::MAX);
        Ok(id)
    }

    /// The key of side `r`'s table now (modifiers not fixed): everything a shot modifier
    /// may depend on by its contract that changes during a battle: the firing side, the
    /// round, the markers in the box and the classes of each side's units still in the
    /// battle, in order. `None` if it does not fit.
    fn table_key(&self, r: usize) -> Option<Key<4>> {
        let mut k = Packer::<4>::new();
        k.push(r as u64, 1);
        k.push(u64::from(self.run.round), 8);
        if self.run.markers >= 1 << 16 {
            return None;
        }
        k.push(self.run.markers as u64, 16);
        for s in [r, 1 - r] {
            let (f, alive) = (&self.force[s], self.run.alive[s]);
            k.push(u64::from(alive.count_ones()), 7);
            for i in bits(alive) {
                k.push(f.class[i] as u64, f.class_bits);
            }
        }
        k.key()
    }

    /// Side `r`'s table for the battle as it stands, asked whole (combat value plus
    /// `ShotModifier`, per shooter and target class): returns its index among the
    /// side's distinct tables.
    fn ask_table(&mut self, r: usize) -> Result<usize, OddsError> {
        let needed = if self.fixed {
            self.ask_fixed(r)?
        } else {
            self.ask_situation(r)?
        };
        let dice = self.module.dice;
        if let Some(&id) = self.table_ids[r].get(&needed) {
            return Ok(id);
        }
        let chance = needed
            .iter()
            .map(|&n| hit_chance(i64::from(n), dice))
            .collect();
        let tables = &mut self.tables[r];
        tables.push(Table {
            needed: needed.clone(),
            chance,
        });
        self.table_ids[r].insert(needed, tables.len() - 1);
        Ok(tables.len() - 1)
    }

    /// Fixed modifiers: for each shooter class and target class, the representatives'
    /// value with every unit of the setup in the battle (by the narrower contract the
    /// answer depends on the pair, the round and the firing side, not on who else is
    /// there).
    fn ask_fixed(&mut self, r: usize) -> Result<Vec<i32>, OddsError> {
        let e = 1 - r;
        let now = self.run.alive;
        self.run.alive = [self.force[0].start_alive, self.force[1].start_alive];
        self.sync(r, Stage::Target, false);
        self.run.alive = now;
        let mut needed = Vec::new();
        for c in 0..self.force[r].classes.len() {
            let i = self.force[r].classes[c].trailing_zeros() as usize;
            for d in 0..self.force[e].classes.len() {
                let t = self.force[e].classes[d].trailing_zeros() as usize;
                needed.push(self.ask_needed(r, i, t)?);
            }
        }
        Ok(needed)
    }

    /// What side `r`'s unit `i` needs to hit the enemy's unit `t`, asked of the rules
    /// on the scratch position as it is.
    fn ask_needed(&mut self, r: usize, i: usize, t: usize) -> Result<i32, OddsError> {
        let q = Question::ShotModifier {
            shooter: self.force[r].ids[i],
            target: self.force[1 - r].ids[t],
        };
        let view = View {
            module: self.module,
            state: &self.scratch,
        };
        let modifier = ask_int(&mut *self.rules, view, q)?.unwrap_or(0);
        let value = self.force[r].combat[i].saturating_add(modifier);
        // Far beyond any die either way; fits an i32.
        Ok(value.clamp(-1_000_000_000, 1_000_000_000) as i32)
    }

    /// Modifiers that may depend on the situation: for each unit of side `r` still in
    /// the battle and each enemy class with a unit still in it, the value at that
    /// class's first unit alive (by the contract alike targets are interchangeable).
    fn ask_situation(&mut self, r: usize) -> Result<Vec<i32>, OddsError> {
        let e = 1 - r;
        self.sync(r, Stage::Target, false);
        let (own, enemies) = (self.run.alive[r], self.run.alive[e]);
        let classes = self.force[e].classes.len();
        let mut needed = Vec::with_capacity(own.count_ones() as usize * classes);
        for i in bits(own) {
            for c in 0..classes {
                let alive = self.force[e].classes[c] & enemies;
                if alive == 0 {
                    // No such target now: never read.
                    needed.push(0);
                    continue;
                }
                needed.push(self.ask_needed(r, i, alive.trailing_zeros() as usize)?);
            }
        }
        Ok(needed)
    }

    /// Whether `r`'s unit `i` may name the enemy's unit `t` now, with the shots in
    /// `self.buf` announced and `targeted` the enemies they aim at. Cached per class
    /// situation (see the module's doc): the answer for these units stands for any
    /// alike.
    fn may_target(
        &mut self,
        r: usize,
        i: usize,
        t: usize,
        targeted: u64,
    ) -> Result<bool, OddsError> {
        let e = 1 - r;
        let (own, enemy) = (&self.force[r], &self.force[e]);
        // Class indices and counts are at most MAX_UNITS (64): 7 bits each.
        let mut k = Packer::<4>::new();
        k.push(r as u64, 1);
        k.push(own.class[i] as u64, 7);
        k.push(enemy.class[t] as u64, 7);
        k.push((targeted >> t) & 1, 1);
        k.push(self.buf.len() as u64, 7);
        for &c in &own.classes {
            k.push(u64::from((self.run.alive[r] & c).count_ones()), 7);
        }
        for &c in &enemy.classes {
            k.push(u64::from((self.run.alive[e] & c).count_ones()), 7);
            k.push(u64::from((targeted & c).count_ones()), 7);
        }
        let key = k.key();
        if let Some(key) = key
            && let Some(&ok) = self.may_target.get(&key)
        {
            return Ok(ok);
        }
        self.sync(r, Stage::Target, true);
        let q = Question::MayTarget {
            shooter: self.force[r].ids[i],
            target: self.force[e].ids[t],
        };
        let view = View {
            module: self.module,
            state: &self.scratch,
        };
        let ok = ask_bool(&mut *self.rules, view, q)?;
        if let Some(key) = key {
            self.may_target.insert(key, ok);
        }
        Ok(ok)
    }

    /// Whether side `r` has somewhere to retreat to (5.4), asked the first time.
    fn retreat_allowed(&mut self, r: usize) -> Result<bool, OddsError> {
        if let Some(ok) = self.retreat_ok[r] {
            return Ok(ok);
        }
        self.sync(r, Stage::Retreat, false);
        let ok = self.somewhere_to_go(r, false)?;
        self.retreat_ok[r] = Some(ok);
        Ok(ok)
    }

    /// Whether the defender may withdraw before round 1 (5.6), asked the first time.
    fn withdrawal_allowed(&mut self) -> Result<bool, OddsError> {
        if let Some(ok) = self.withdraw_ok {
            return Ok(ok);
        }
        self.sync(1, Stage::Target, false);
        let view = View {
            module: self.module,
            state: &self.scratch,
        };
        let mut ok = ask_bool(&mut *self.rules, view, Question::MayWithdraw)?;
        if ok {
            self.sync(1, Stage::Withdraw, false);
            ok = self.somewhere_to_go(1, true)?;
        }
        self.withdraw_ok = Some(ok);
        Ok(ok)
    }

    /// Whether `retreat_to` allows side `r` some neighbour of the battle box (always,
    /// without a box).
    fn somewhere_to_go(&mut self, r: usize, withdrawal: bool) -> Result<bool, OddsError> {
        let Some(at) = self.at else {
            return Ok(true);
        };
        let mut asked: Vec<BoxId> = Vec::new();
        for &(to, _) in self.module.board.neighbours(at) {
            if asked.contains(&to) {
                continue;
            }
            asked.push(to);
            let view = View {
                module: self.module,
                state: &self.scratch,
            };
            let q = Question::RetreatTo {
                side: self.sides[r],
                to,
                withdrawal,
            };
            if ask_bool(&mut *self.rules, view, q)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Writes the battle as it stands into the scratch position, before asking a rule:
    /// units alive (eliminated ones where the engine puts them), their hits, the markers
    /// in the box, the round, the firing side, the stage and, with `announcing`, the
    /// shots announced so far (`self.buf`, side `r`'s; otherwise none).
    fn sync(&mut self, r: usize, stage: Stage, announcing: bool) {
        let at = self.at.unwrap_or_default();
        let alive = self.run.alive;
        for (s, (f, mask)) in self.force.iter().zip(alive).enumerate() {
            for (i, &u) in f.ids.iter().enumerate() {
                let Some(unit) = self.scratch.units.get_mut(u.index()) else {
                    continue;
                };
                if mask & (1 << i) != 0 {
                    unit.hits = self.run.hits[s][i];
                    unit.flags = f.flags[i];
                    unit.place = Place::Board(at);
                } else {
                    unit.hits = 0;
                    unit.flags = Flags::NONE;
                    unit.place = f.gone[i];
                }
            }
        }
        if self.scratch_markers != self.run.markers {
            let markers = &self.marker_states[self.run.markers];
            let g = &mut self.scratch;
            g.markers.retain(|m| m.0 != at);
            g.markers.extend(markers.iter().map(|&(id, n)| (at, id, n)));
            g.markers.sort_unstable_by_key(|&(b, id, _)| (b, id));
            self.scratch_markers = self.run.markers;
        }
        let listed = |f: &Force, mask: u64| bits(mask).map(|i| f.ids[i]).collect::<Vec<_>>();
        let attackers = listed(&self.force[0], alive[0]);
        let defenders = listed(&self.force[1], alive[1]);
        let announced = if announcing { &self.buf[..] } else { &[] };
        let shots = announced
            .iter()
            .map(|s| {
                (
                    self.force[r].ids[usize::from(s.shooter)],
                    self.force[1 - r].ids[usize::from(s.target)],
                )
            })
            .collect();
        if let Some(b) = self.scratch.combat.as_mut().and_then(|c| c.battle.as_mut()) {
            b.attackers = attackers;
            b.defenders = defenders;
            b.round = self.run.round;
            b.firing = self.sides[r];
            b.stage = stage;
            b.shots = shots;
        }
    }
}

/// The markers in box `at` of `state`, sorted.
fn markers_at(state: &GameState, at: BoxId) -> Vec<(MarkerId, u16)> {
    state
        .markers
        .iter()
        .filter(|m| m.0 == at)
        .map(|&(_, id, n)| (id, n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_keys_hold_their_fields_and_refuse_overflow() {
        let mut a = Packer::<2>::new();
        a.push(0b101, 3);
        a.push(u64::MAX, 64);
        a.push(1, 1);
        let Some(Key(words)) = a.key() else {
            panic!("67 bits fit 128")
        };
        assert_eq!(words[0], 0b101 | (u64::MAX << 3));
        assert_eq!(words[1], 0b111 | (1 << 3));
        let mut b = Packer::<1>::new();
        b.push(1, 40);
        b.push(1, 30);
        assert!(b.key().is_none(), "70 bits do not fit 64");
        // Bits beyond the width are dropped, not spilled into the next field.
        let mut c = Packer::<1>::new();
        c.push(0b11, 1);
        c.push(0, 1);
        assert_eq!(c.key().map(|k| k.0[0]), Some(1));
    }
}
