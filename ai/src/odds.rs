//! The battle-odds calculator: plays one battle many times and reports who wins, how
//! often each side retreats, the expected survivors by unit type and how many rounds
//! battles last.
//!
//! # Rule-exact and fast
//! Playing each battle through the engine's `apply`, with the rules asked at every step,
//! would cost milliseconds a battle. Instead a compact simulator ([`Simulator`]) keeps
//! the battle in bitmasks and small arrays and rolls the dice in a tight loop, but takes
//! every rule answer from the module's hooks: `shot_modifier`, `may_target`,
//! `absorbs_hit`, `may_withdraw` and `retreat_to`, asked of a scratch copy of the
//! position set to the situation at hand, and cached by what the answers may depend on.
//! What that is for `ShotModifier`, `MayTarget` and `AbsorbsHit` is a documented
//! contract of those questions (`muster_core::game::rules::Question`); `MayWithdraw` is
//! asked once, before round 1, and `RetreatTo` once per side, when a retreat is first
//! wanted (no units move during a simulated battle, so where a side may go does not
//! change). The sequence is `muster_core::game::battle`'s exactly: the defender fires
//! first each round; each part begins (from round 2) with the firing side's retreat
//! decision; targets are announced in the order the units joined, with the AI's policy
//! ([`crate::battle::choose_target`]'s scoring); shots are rolled in announced order on
//! the same generator the engine uses, one die per possible shot (none for a shot at a
//! unit already eliminated, none for an impossible shot, 5.33), each needing the value
//! the engine asks when it is rolled; a hit the rules absorb runs `hit_absorbed`,
//! otherwise it takes a step and a unit with no steps left is eliminated. The same seed
//! gives the same battle as the engine, die for die (tests check this battle by battle,
//! on AHD and on the TripleA adaptation).
//!
//! # Modifiers that depend on who is still in the battle
//! The TripleA adaptation's crack infantry lower the weakest enemy units still in the
//! battle, its generals raise their side's weakest, and its water-crossing tokens give
//! the defenders +1 while one is left and each absorb a hit. So `ShotModifier`'s
//! contract lets an answer depend on the units of each side still in the battle (in
//! the order they joined) and on the box's markers, and the simulator keys its tables
//! on them and looks a shot's value up again once a unit has fallen or a hit was
//! absorbed earlier in the volley. Three designs were weighed. Playing every run
//! through the engine (`flow::apply` on a copy) is exact but clones the position and
//! asks every question at every action: milliseconds a battle, not microseconds. Tracking what each
//! rules call reads would need the script sandbox to report its reads. The one chosen
//! keeps the simulator, widens the contract to what the rules may read, and lets rules
//! whose modifiers read less say so: a `shot_modifier` all of whose handlers are
//! declared `fixed` (`Rules::fixed`, AHD's) is asked once per round and firing side, as
//! before, so AHD runs as fast as it did; otherwise a table is asked for each new
//! situation (one rules call per shooter alive and target class). An absorbed hit runs
//! the rules' `hit_absorbed` commands on the scratch position (`flow::react`) once per
//! (firing side, markers), and the simulator follows the markers they leave; commands
//! that change anything else are refused with an error rather than simulated wrongly.
//! Pieces that do not fight (generals) stand in the box with their side, with the
//! attribute values the words give them.
//!
//! # The module's battle procedure
//! A `battles` step may change the sequence (`BattleOptions`: `fire`, `casualties`,
//! `retreat`, `withdraw`). The simulator follows its module's first `battles` step by
//! dice: where the owner chooses his casualties, shots name no target; each volley's
//! units roll in order, their value asked against the enemy's first unit alive (the
//! engine asks the same), and the side hit takes its lost steps one at a time as the
//! computer players do ([`crate::battle::loss_action`]): off the piece of lowest combat
//! value first ([`crate::battle::loss_choice`]), or absorbed where the rules let it
//! (`absorbs_hit`, the owner's choice there) unless absorbing lowers the side's fire
//! below what losing the piece would leave ([`crate::battle::prefers_absorbing`]: the
//! last water-crossing token, +1 to every defender, is kept while a militia costs
//! less); with simultaneous fire both sides roll, the defender's dice first,
//! before either takes its losses, and both sides gone at once is a battle with no
//! winner (counted as undecided). A side retreats only where the step lets it; the
//! defender never withdraws where `withdraw="false"`. TripleA's battle
//! (`mods/ahd-triplea`) is played so.
//!
//! # What is modelled, and what is not
//! - **Retreats** (5.4) follow each side's [`RetreatPolicy`], only when the rules allow
//!   one: from round 2, at the start of the side's part, if `retreat_to` allows some
//!   neighbour of the battle box (without a box, an open friendly box is assumed). The
//!   side that retreats loses the battle; its units survive.
//! - **Cavalry withdrawal** (5.6): the defender withdraws before round 1 when the rules
//!   allow it and its policy is to leave at once ([`RetreatPolicy::AfterRound`]`(0)`).
//!   A withdrawal is nobody's win.
//! - **Reinforcements** (5.5): none. The calculator knows no surroundings; a battle
//!   snapshot ([`Setup::from_battle`]) also ignores units that could still join.
//! - **Events**: `hit_absorbed` is run (above); `unit_eliminated` and `battle_ended`
//!   are not: they change nothing the battle's questions read in AHD or the TripleA
//!   adaptation. A module whose battle events roll dice or change what those questions
//!   answer would need them.
//! - A battle still going after round 255 (where the engine's round counter stops) is
//!   reported as undecided: only sides that cannot hurt each other get there.

mod setup;
mod sim;

use muster_core::Module;
use muster_core::game::RuleError;
use muster_core::game::Rules;
use muster_core::game::dice::{Dice, Pcg32};
use muster_core::ids::SideId;
use serde::{Deserialize, Serialize};

pub use crate::battle::{Losses, RetreatPolicy};
pub use setup::{Companion, Fighter, Phase, Setup, Spec};
pub use sim::{Fought, Outcome, Simulator};

/// The one outcome of a battle the rules resolve (`resolve="rules"` on the module's
/// `battles` step): no dice, so no runs: each side's losses in steps and the winner.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exact {
    /// Steps lost by the attacker and the defender.
    pub attacker_losses: u32,
    pub defender_losses: u32,
    /// The side holding the field after it; `None` if both stay.
    pub winner: Option<SideId>,
    /// The battle's log, as the game would print it.
    pub log: Vec<String>,
}

/// The battle of `setup` played through the engine, if the module resolves its battles
/// by the rules: the rules' losses, taken by each side off its pieces in the order the
/// engine lists them, and the side that yields retreating to the first box open. Every
/// allocation gives the same losses; the winner can depend on which pieces took them
/// only where the rules weigh pieces differently. `None` for a module whose battles roll
/// dice ([`simulate`] then).
pub fn resolved(
    module: &Module,
    rules: &mut dyn Rules,
    setup: &Setup,
) -> Result<Option<Exact>, OddsError> {
    use muster_core::format::{Procedure, Resolve};
    use muster_core::game::{Action, apply};
    let Some(step) = module.calendar.steps.iter().position(|s| {
        (s.procedure == Procedure::Battles || s.immediate) && s.resolve == Resolve::Rules
    }) else {
        return Ok(None);
    };
    let mut g = setup.position(module)?;
    let attacker = setup.side(Role::Attacker);
    let player = module
        .calendar
        .sides
        .iter()
        .position(|&s| s == attacker)
        .ok_or_else(|| OddsError::Setup("the attacker has no player turn".into()))?;
    g.player = u8::try_from(player).unwrap_or(u8::MAX);
    g.step = u8::try_from(step).unwrap_or(u8::MAX);
    g.repeat = 0;
    let fail =
        |e: muster_core::game::ActionError| OddsError::Setup(format!("the battle failed: {e}"));
    let mut log =
        muster_core::game::battle::resolve_under_way(module, rules, &mut g).map_err(fail)?;
    let mut lost = [0u32; 2];
    let mut winner = None;
    let mut guard = 0;
    while let Some(b) = g.combat.as_ref().and_then(|c| c.battle.clone()) {
        guard += 1;
        if guard > 10_000 {
            return Err(OddsError::Setup("the battle does not end".into()));
        }
        winner = b.winner;
        let legal = muster_core::game::legal_actions(module, rules, &g)
            .map_err(|e| OddsError::Setup(e.to_string()))?;
        // Standing rather than withdrawing: the battle is what is asked about.
        let action = match b.stage {
            muster_core::game::battle::Stage::Withdraw => Action::Pass,
            _ => legal
                .first()
                .cloned()
                .ok_or_else(|| OddsError::Setup("the battle waits for no decision".into()))?,
        };
        if let Action::Lose { .. } = action {
            lost[usize::from(b.firing != b.attacker)] += 1;
        }
        let (next, lines) = apply(module, rules, &g, &action).map_err(fail)?;
        log.extend(lines);
        g = next;
    }
    if winner.is_none() {
        // Decided without a retreat: the side with pieces left in the box holds it.
        let at = setup.at;
        let holds = |side: SideId| {
            g.units.iter().any(|u| {
                u.side == side
                    && at.is_none_or(|b| u.place == muster_core::game::Place::Board(b))
                    && module.units.get(u.kind).combatant
            })
        };
        let (a, d) = (holds(attacker), holds(setup.side(Role::Defender)));
        winner = match (a, d) {
            (true, false) => Some(attacker),
            (false, true) => Some(setup.side(Role::Defender)),
            _ => None,
        };
    }
    Ok(Some(Exact {
        attacker_losses: lost[0],
        defender_losses: lost[1],
        winner,
        log,
    }))
}

/// The most units one side may have in a simulated battle (its units are a bitmask).
pub const MAX_UNITS: usize = 64;

/// The two sides of a battle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Attacker,
    Defender,
}

impl Role {
    pub(crate) fn index(self) -> usize {
        match self {
            Role::Attacker => 0,
            Role::Defender => 1,
        }
    }

    pub(crate) fn from_index(i: usize) -> Role {
        if i == 0 {
            Role::Attacker
        } else {
            Role::Defender
        }
    }
}

/// Why a battle cannot be simulated. Every message is one line, with a hint where one
/// helps.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OddsError {
    #[error("unknown unit type '{name}' among the {force}; {hint}")]
    UnknownUnit {
        force: &'static str,
        name: String,
        hint: String,
    },
    #[error("cannot read '{item}' among the {force}: {why} (write e.g. \"3 Vi, 1 Vc\")")]
    BadForce {
        force: &'static str,
        item: String,
        why: String,
    },
    #[error("cannot read the marker '{item}': {why} (write e.g. \"entrenchment=1\")")]
    BadMarker { item: String, why: String },
    #[error("the {force} need at least one unit")]
    EmptyForce { force: &'static str },
    #[error("the {force} have {count} units; at most {MAX_UNITS} can be simulated")]
    TooManyUnits { force: &'static str, count: usize },
    #[error("no box '{name}'{hint}")]
    UnknownBox { name: String, hint: String },
    #[error("no side '{name}'{hint}")]
    UnknownSide { name: String, hint: String },
    #[error("no flag '{name}'{hint}")]
    UnknownFlag { name: String, hint: String },
    #[error("no optional rule '{name}'{hint}")]
    UnknownOption { name: String, hint: String },
    #[error("{why}")]
    Crossing { why: String },
    #[error("the module has {0}; a battle needs two sides")]
    Sides(String),
    #[error("there is no battle under way to take the odds of")]
    NoBattle,
    #[error("the battle under way is already decided")]
    Decided,
    #[error("cannot set up the battle: {0}")]
    Setup(String),
    #[error("cannot follow the rules' hit_absorbed: {0}")]
    Absorbed(String),
    #[error("the number of runs must be at least 1")]
    NoRuns,
    #[error(transparent)]
    Rule(#[from] RuleError),
}

/// How to run the battles.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Battles to play.
    pub runs: u64,
    /// Seed of the dice: one generator, as the engine's `Dice::seeded`, runs through all
    /// the battles in turn, so the same seed gives the same report.
    pub seed: u64,
    pub attacker_retreat: RetreatPolicy,
    pub defender_retreat: RetreatPolicy,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            runs: 10_000,
            seed: 1,
            attacker_retreat: RetreatPolicy::Never,
            defender_retreat: RetreatPolicy::Never,
        }
    }
}

/// The result of [`simulate`]. Percentages are of all runs, 0 to 100; the win, the
/// withdrawal and the undecided percentages add up to 100.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub runs: u64,
    pub seed: u64,
    pub attacker: SideReport,
    pub defender: SideReport,
    /// 5.6: battles the defender's cavalry withdrew from before round 1 (no winner).
    pub withdrawals: u64,
    pub withdrawal_pct: f64,
    /// Battles with no winner: still going after round 255, or (simultaneous fire) both
    /// sides eliminated in the same round.
    pub undecided: u64,
    pub undecided_pct: f64,
    /// How many battles ended in each round (withdrawals end in round 0), in order.
    pub rounds: Vec<RoundShare>,
    /// The mean of the round battles ended in.
    pub mean_rounds: f64,
}

/// One side's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideReport {
    /// The side's id in the module.
    pub side: String,
    /// Battles won, by eliminating the enemy or by its retreat.
    pub wins: u64,
    pub win_pct: f64,
    /// Battles this side left by retreating (5.4): the other side's wins.
    pub retreats: u64,
    pub retreat_pct: f64,
    pub retreat_policy: RetreatPolicy,
    /// Per unit type, in the order they first appear in the side's force.
    pub units: Vec<TypeReport>,
}

/// Expected survivors of one unit type of one side, over all runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypeReport {
    /// The unit type's id (`Vi`).
    #[serde(rename = "type")]
    pub kind: String,
    /// Units of this type at the start.
    pub count: u32,
    /// Of them, reduced at the start (a battle snapshot).
    pub reduced_at_start: u32,
    /// Expected units of this type still in play at the end, reduced ones included
    /// (those that retreated or withdrew survive).
    pub survivors: f64,
    /// Expected surviving units of this type that are reduced at the end.
    pub reduced: f64,
}

/// Battles that ended in one round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundShare {
    pub round: u8,
    pub battles: u64,
    pub pct: f64,
}

/// The generator a seed gives: the engine's seeded dice, so a battle played by the
/// engine with `Dice::seeded(seed)` rolls the same numbers.
pub fn generator(seed: u64) -> Pcg32 {
    match Dice::seeded(seed) {
        Dice::Seeded(rng) => rng,
        // `Dice::seeded` always gives a generator; this arm only satisfies the match.
        Dice::Fixed(_) => Pcg32::new(seed, 0),
    }
}

/// How often `progress` hears of the runs done.
const PROGRESS_EVERY: u64 = 4096;

/// Plays `config.runs` battles of `setup` and reports the odds. `progress`, if given,
/// is called now and then with the number of battles played so far, and at the end.
/// Rule answers come from `rules` (asked lazily, cached for this call).
pub fn simulate(
    module: &Module,
    rules: &mut dyn Rules,
    setup: &Setup,
    config: &Config,
    mut progress: Option<&mut dyn FnMut(u64)>,
) -> Result<Report, OddsError> {
    if config.runs == 0 {
        return Err(OddsError::NoRuns);
    }
    let policies = [config.attacker_retreat, config.defender_retreat];
    let mut sim = Simulator::new(module, rules, setup)?;
    let mut rng = generator(config.seed);
    let mut tally = Tally::new(&sim);
    for done in 1..=config.runs {
        let outcome = sim.play(&mut rng, policies)?;
        tally.add(&sim, outcome);
        if (done % PROGRESS_EVERY == 0 || done == config.runs)
            && let Some(p) = progress.as_mut()
        {
            p(done);
        }
    }
    Ok(tally.report(module, setup, config, &sim))
}

/// Counts over the runs, per unit index of each side.
struct Tally {
    wins: [u64; 2],
    retreats: [u64; 2],
    withdrawals: u64,
    undecided: u64,
    rounds: Vec<u64>,
    survived: [Vec<u64>; 2],
    reduced: [Vec<u64>; 2],
}

impl Tally {
    fn new(sim: &Simulator<'_>) -> Self {
        let n = sim.sizes();
        Tally {
            wins: [0; 2],
            retreats: [0; 2],
            withdrawals: 0,
            undecided: 0,
            rounds: vec![0; 256],
            survived: [vec![0; n[0]], vec![0; n[1]]],
            reduced: [vec![0; n[0]], vec![0; n[1]]],
        }
    }

    fn add(&mut self, sim: &Simulator<'_>, outcome: Outcome) {
        match outcome {
            Outcome::Won { winner } => self.wins[winner.index()] += 1,
            Outcome::Retreated { by } => {
                self.retreats[by.index()] += 1;
                self.wins[1 - by.index()] += 1;
            }
            Outcome::Withdrawn => self.withdrawals += 1,
            Outcome::Undecided => self.undecided += 1,
        }
        self.rounds[usize::from(sim.round())] += 1;
        for side in 0..2 {
            sim.each_survivor(side, |i, hits| {
                self.survived[side][i] += 1;
                if hits > 0 {
                    self.reduced[side][i] += 1;
                }
            });
        }
    }

    fn report(
        &self,
        module: &Module,
        setup: &Setup,
        config: &Config,
        sim: &Simulator<'_>,
    ) -> Report {
        let runs = config.runs;
        let pct = |n: u64| n as f64 * 100.0 / runs as f64;
        let side = |role: Role| {
            let s = role.index();
            let fighters = setup.force(role);
            let mut units: Vec<TypeReport> = Vec::new();
            for (i, f) in fighters.iter().enumerate() {
                let kind = &module.units.get(f.kind).id;
                let at = match units.iter().position(|t| &t.kind == kind) {
                    Some(at) => at,
                    None => {
                        units.push(TypeReport {
                            kind: kind.clone(),
                            count: 0,
                            reduced_at_start: 0,
                            survivors: 0.0,
                            reduced: 0.0,
                        });
                        units.len() - 1
                    }
                };
                let t = &mut units[at];
                t.count += 1;
                t.reduced_at_start += u32::from(f.hits > 0);
                t.survivors += self.survived[s][i] as f64 / runs as f64;
                t.reduced += self.reduced[s][i] as f64 / runs as f64;
            }
            SideReport {
                side: module.side(sim.side(role)).id.clone(),
                wins: self.wins[s],
                win_pct: pct(self.wins[s]),
                retreats: self.retreats[s],
                retreat_pct: pct(self.retreats[s]),
                retreat_policy: if s == 0 {
                    config.attacker_retreat
                } else {
                    config.defender_retreat
                },
                units,
            }
        };
        let mut total_rounds = 0u64;
        let rounds = self
            .rounds
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(r, &n)| {
                total_rounds += r as u64 * n;
                RoundShare {
                    round: u8::try_from(r).unwrap_or(u8::MAX),
                    battles: n,
                    pct: pct(n),
                }
            })
            .collect();
        Report {
            runs,
            seed: config.seed,
            attacker: side(Role::Attacker),
            defender: side(Role::Defender),
            withdrawals: self.withdrawals,
            withdrawal_pct: pct(self.withdrawals),
            undecided: self.undecided,
            undecided_pct: pct(self.undecided),
            rounds,
            mean_rounds: total_rounds as f64 / runs as f64,
        }
    }
}
