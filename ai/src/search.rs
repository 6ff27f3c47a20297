//! The `strong` player: the `ai` planner, with the way it plays each movement segment
//! chosen by rollouts.
//!
//! The `ai`'s weakness is systematic, not a single bad march: it guards only the boxes
//! whose loss alone would lose the game, so raids that take two cities in one player
//! turn (AHD: the army-maximum race) get through. Searching single marches with the
//! `ai` playing on cannot fix that (the rest of the turn repeats the mistake), so the
//! search works a level up: at the first march decision of each movement segment it
//! plays the whole segment with each of a few planner [`styles`] (the `ai`'s, two that
//! guard more boxes more strongly, one that ignores threats), then every side on to the
//! start of its side's next player turn with `ai` planners (searching fewer boxes, to
//! be cheap), on several dice, and takes the style whose end positions [`evaluate`]
//! judges best, surely enough (see [`choose`]). The segment, its battles and the
//! recruits after are then played by a planner of that style.
//!
//! Everything is generic: the candidates are planner styles over the engine's actions,
//! and a rollout's end is judged from the game's outcome, each side's tallies (the
//! module's, from the engine: AHD's army maximum), the worth of the boxes each side
//! holds (box values plus the rules' `box_worth` hint) and the steps each side has on
//! the board.
//!
//! Determinism: rollout `r` of every style gets the same dice (common random numbers,
//! so styles are compared on the same luck), seeded from the player's seed, the
//! decision's place in the game and `r` only. Each rollout runs on fresh planners, so
//! results never depend on which thread played it or in which order: the same seed
//! gives the same choices on any number of threads.

use std::sync::{Arc, Mutex};

use muster_core::Module;
use muster_core::game::{Action, Dice, GameState, Rules, decider};
use muster_core::ids::SideId;

use crate::knowledge::Picture;
use crate::planner::{Planner, Style};
use crate::player::{AiError, Player, step};

/// Candidate boxes the planners of a rollout search per march (the `ai` searches 12):
/// most marches are among the first few, and rollouts must be cheap.
const ROLLOUT_CANDIDATES: usize = 4;

/// Rollouts per movement segment when none is given.
pub const DEFAULT_BUDGET: u32 = 24;
/// The most rollouts per segment the command line accepts: beyond this a segment
/// would take minutes.
pub const MAX_BUDGET: u32 = 2_000;
/// A rollout gives up after this many actions (a stuck game, or a module whose player
/// turns are very long); its position is judged as it stands.
const MAX_ROLLOUT_ACTIONS: usize = 3_000;
/// A won game, in the evaluation's units (worth of boxes, steps).
const WIN: f64 = 100.0;
/// Weight of a step on the board.
const STEP: f64 = 1.0;
/// Weight of a point of a tally (AHD: army maximum), beyond the box values already in
/// the worth of the boxes held.
const TALLY: f64 = 2.0;

/// How many standard errors of the paired differences another plan must beat the
/// `ai`'s choice by.
const CONFIDENCE: f64 = 1.5;
/// And by how much at least, in the evaluation's units.
const MARGIN: f64 = 1.0;

/// Loads a fresh copy of the rules for a worker thread (scripted rules are not `Send`).
pub type RulesFactory = Arc<dyn Fn(&Module) -> Result<Box<dyn Rules>, String> + Send + Sync>;

/// How the strong player searches.
#[derive(Clone)]
pub struct SearchConfig {
    /// Rollouts per movement segment, shared among the styles.
    pub budget: u32,
    /// Threads to play rollouts on; with more than one, `rules` must be given.
    pub threads: usize,
    /// Rules for the rollouts. Without it, rollouts use the rules the player is given
    /// (one thread), so whatever those rules log includes the rollouts.
    pub rules: Option<RulesFactory>,
}

impl SearchConfig {
    pub fn new(budget: u32) -> SearchConfig {
        SearchConfig {
            budget,
            threads: 1,
            rules: None,
        }
    }
}

/// Checks a budget given by a person.
pub fn check_budget(budget: u64) -> Result<u32, String> {
    match u32::try_from(budget) {
        Ok(0) => Err("the search budget must be at least 1 rollout per movement segment".into()),
        Ok(b) if b <= MAX_BUDGET => Ok(b),
        _ => Err(format!(
            "a search budget of {budget} rollouts per movement segment is too large (at most {MAX_BUDGET})"
        )),
    }
}

/// The ways of playing a movement segment the strong player weighs, its baseline
/// (`ai`'s, keeping the boxes it is about to take) first. They differ in how much they
/// guard: which boxes count as decisive (worth this much to me, the box values plus
/// the rules' `box_worth`: with AHD's hint, the cities whose loss brings the army
/// maximum near the enemy's) and how many steps a decisive box keeps per enemy step
/// that could reach it; the last ignores threats and goes for the enemy's boxes.
pub fn styles() -> Vec<Style> {
    let base = Style::strong();
    vec![
        base,
        Style {
            decisive: 6.0,
            ..base
        },
        Style {
            decisive: 4.0,
            guard: 1.0,
            ..base
        },
    ]
}

pub struct SearchPlayer {
    /// The planner of the style chosen for the segment under way.
    inner: Planner,
    config: SearchConfig,
    seed: u64,
    /// The segment the style was chosen for.
    chosen_for: Option<StepKey>,
    /// Rule errors met in rollouts since the last `take_warnings`.
    warnings: Vec<String>,
}

/// A movement segment: (turn, player, step, repetition).
type StepKey = (muster_core::ids::TurnId, u8, u8, u8);

impl SearchPlayer {
    pub fn new(config: SearchConfig, seed: u64) -> SearchPlayer {
        SearchPlayer {
            inner: Planner::new(Style::strong()),
            config,
            seed,
            chosen_for: None,
            warnings: Vec::new(),
        }
    }

    /// Plays every style's rollouts; each result is in the slot of its index
    /// (`style * per + r`), whatever thread played it.
    fn rollouts(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
        styles: &[Style],
        per: usize,
    ) -> Vec<Result<f64, String>> {
        let base = decision_seed(self.seed, state, module);
        let total = styles.len() * per;
        let one = |rules: &mut dyn Rules, i: usize| -> Result<f64, String> {
            let seed = mix(base.wrapping_add((i % per) as u64));
            rollout(module, rules, state, me, styles[i / per], seed).map_err(|e| e.to_string())
        };
        let threads = self.config.threads.clamp(1, total.max(1));
        match &self.config.rules {
            Some(factory) if threads > 1 => {
                let results: Mutex<Vec<Option<Result<f64, String>>>> =
                    Mutex::new(vec![None; total]);
                let record = |i: usize, r: Result<f64, String>| {
                    results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
                };
                std::thread::scope(|scope| {
                    for t in 1..threads {
                        let factory = Arc::clone(factory);
                        let (one, record) = (&one, &record);
                        scope.spawn(move || match factory(module) {
                            Ok(mut rules) => {
                                for i in (t..total).step_by(threads) {
                                    record(i, one(rules.as_mut(), i));
                                }
                            }
                            Err(e) => {
                                for i in (t..total).step_by(threads) {
                                    record(i, Err(e.clone()));
                                }
                            }
                        });
                    }
                    // This thread plays its share on rules of its own too, so the
                    // caller's rules see nothing of the search.
                    match factory(module) {
                        Ok(mut rules) => {
                            for i in (0..total).step_by(threads) {
                                record(i, one(rules.as_mut(), i));
                            }
                        }
                        Err(e) => {
                            for i in (0..total).step_by(threads) {
                                record(i, Err(e.clone()));
                            }
                        }
                    }
                });
                results
                    .into_inner()
                    .unwrap_or_else(|p| p.into_inner())
                    .into_iter()
                    .map(|r| r.unwrap_or_else(|| Err("a rollout was not played".into())))
                    .collect()
            }
            Some(factory) => match factory(module) {
                Ok(mut own) => (0..total).map(|i| one(own.as_mut(), i)).collect(),
                Err(e) => vec![Err(e); total],
            },
            None => (0..total).map(|i| one(rules, i)).collect(),
        }
    }

    /// Chooses the style for the segment in front of `me` by rollouts; the baseline
    /// when the search fails.
    fn choose_style(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Style {
        let styles = styles();
        let per = (self.config.budget as usize / styles.len()).max(1);
        let results = self.rollouts(module, rules, state, me, &styles, per);
        let pick = match results.iter().find_map(|r| r.as_ref().err()) {
            Some(e) => {
                let message = format!("the search failed ({e}); playing the ai's choice instead");
                tracing::warn!("{message}");
                self.warnings.push(message);
                0
            }
            None => {
                let values: Vec<f64> = results.into_iter().flatten().collect();
                choose(&values, per)
            }
        };
        styles[pick]
    }

    /// Rule errors met while searching since last asked (the player then took the
    /// `ai`'s choice).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

impl Player for SearchPlayer {
    fn choose(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Action, AiError> {
        let key = (state.turn, state.player, state.step, state.repeat);
        if Planner::is_march_decision(module, state) && self.chosen_for != Some(key) {
            let me = decider(module, state);
            let started = std::time::Instant::now();
            let style = self.choose_style(module, rules, state, me);
            self.inner = Planner::new(style);
            self.chosen_for = Some(key);
            tracing::debug!(
                target: "muster_ai::search::time",
                "turn {} side {} style {:?} in {} us",
                state.turn.0,
                me.index(),
                style,
                started.elapsed().as_micros()
            );
        }
        self.inner.choose(module, rules, state)
    }

    fn forget(&mut self) {
        self.inner.forget();
    }

    fn take_warnings(&mut self) -> Vec<String> {
        SearchPlayer::take_warnings(self)
    }
}

/// Which candidate to play, from each one's `per` rollout values in order (rollout
/// `r` of each on the same dice). The `ai`'s choice (candidate 0) stands unless
/// another beats it surely enough: by the lower end of a confidence bound on the mean
/// of the paired differences, so the noise of a few rollouts does not pick a worse
/// plan that was lucky.
fn choose(values: &[f64], per: usize) -> usize {
    let base = &values[..per];
    let mut best = (0, 0.0);
    for (c, chunk) in values.chunks(per).enumerate().skip(1) {
        let d: Vec<f64> = chunk.iter().zip(base).map(|(v, b)| v - b).collect();
        let n = d.len() as f64;
        let mean = d.iter().sum::<f64>() / n;
        let var = if d.len() > 1 {
            d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
        } else {
            mean * mean
        };
        let low = mean - CONFIDENCE * (var / n).sqrt() - MARGIN;
        tracing::debug!("candidate {c}: {mean:.2} better than the ai's, bound {low:.2}");
        if low > best.1 {
            best = (c, low);
        }
    }
    best.0
}

/// Plays the rest of `me`'s segment in `state` with `style`, on dice seeded with
/// `seed`, then every side on to the start of `me`'s next player turn (or the game's
/// end), the others with `ai` planners searching fewer boxes, and judges the position
/// reached.
fn rollout(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    me: SideId,
    style: Style,
    seed: u64,
) -> Result<f64, AiError> {
    let mut s = state.clone();
    s.dice = Dice::seeded(seed);
    let mut players: Vec<Planner> = module
        .side_ids()
        .map(|side| {
            if side == me {
                Planner::new(style)
            } else {
                Planner::new(Style {
                    candidates: ROLLOUT_CANDIDATES,
                    ..Style::ai()
                })
            }
        })
        .collect();
    let start = (state.turn, state.player);
    let mut actions = 0;
    while s.outcome.is_none() && actions < MAX_ROLLOUT_ACTIONS {
        if (s.turn, s.player) != start && s.active_side(module) == me && !s.at_turn_end(module) {
            break;
        }
        let side = decider(module, &s);
        let Some(p) = players.get_mut(side.index()) else {
            return Err(AiError::Stuck);
        };
        let (_, next, _) = step(p, module, rules, &s)?;
        s = next;
        actions += 1;
    }
    evaluate(module, rules, &s, me)
}

/// How good `state` is for `me`: a won or lost game counts [`WIN`] either way; else
/// my side's worth of the boxes it holds, tallies and steps on the board, less
/// the enemies' (shared among them).
pub fn evaluate(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    me: SideId,
) -> Result<f64, AiError> {
    if let Some(o) = &state.outcome {
        return Ok(match o.winner {
            Some(w) if w == me => WIN,
            Some(_) => -WIN,
            None => 0.0,
        });
    }
    let pic = Picture::new(module, rules, state, me, &mut None)?;
    let enemies = (module.sides.len().max(2) - 1) as f64;
    let mut value = 0.0;
    for side in module.side_ids() {
        let s = side.index();
        // Every tally of the module (AHD: the army maximum, 10.0's race).
        let tallies: u32 = module
            .tally_ids()
            .map(|t| state.tally(module, t, side))
            .sum();
        let mut v = TALLY * f64::from(tallies);
        for at in module.board.box_ids() {
            if state.controller(at) == Some(side) {
                v += pic.worth[s][at.index()];
            }
            v += STEP * pic.force[s][at.index()].steps;
        }
        value += if side == me { v } else { -v / enemies };
    }
    Ok(value)
}

/// The seed of a decision's rollouts: the player's seed and where the game stands.
fn decision_seed(seed: u64, state: &GameState, module: &Module) -> u64 {
    let mut h = mix(seed);
    for x in [
        u64::from(state.turn.0),
        u64::from(state.player),
        u64::from(state.step),
        u64::from(state.repeat),
        state.step_left(module) as u64,
    ] {
        h = mix(h ^ x);
    }
    h
}

/// SplitMix64's finaliser.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
