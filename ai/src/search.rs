//! The `strong` player: the `ai` planner, with each march decision weighed by rollouts.
//!
//! A player turn is many small actions, so searching each one is wasteful. The search
//! works at the level of the planner's candidate marches instead: at each march decision
//! (a box to activate, an offer, or the end of the step) it takes the `ai` player's own
//! choice and the next best plans the planner already made, and plays each a few times
//! to the start of its side's next player turn (the rest of this player turn and the
//! enemy's), with planners for every side (cheaper ones, searching fewer boxes) and
//! fresh dice each time. Another plan replaces the `ai`'s choice only when its rollouts
//! beat it surely enough (see [`choose`]); the choice is played, move by move, by the
//! planner. Battles, promotions and recruits are the planner's (with `Style::strong`,
//! which keeps boxes it is about to take).
//!
//! Everything is generic: the candidates are the engine's actions and the planner's
//! plans, and a rollout's end is judged by [`evaluate`], from the game's outcome, each
//! side's tallies (the module's, from the engine: AHD's army maximum), the worth of the
//! boxes each side holds (box values plus the rules' `box_worth` hint) and the steps
//! each side has on the board.
//!
//! Determinism: rollout `r` of every candidate gets the same dice (common random
//! numbers, so candidates are compared on the same luck), seeded from the player's seed,
//! the decision's place in the game and `r` only. Each rollout runs on fresh planners,
//! so results never depend on which thread played it or in which order: the same seed
//! gives the same choices on any number of threads.

use std::sync::{Arc, Mutex};

use muster_core::Module;
use muster_core::game::{Action, Dice, GameState, Rules, apply, decider};
use muster_core::ids::{BoxId, SideId, UnitId};

use crate::knowledge::Picture;
use crate::planner::{Planner, Style, hinted_offer};
use crate::player::{AiError, Player, step};

/// Candidate boxes the planners of a rollout search per march (the `ai` searches 12):
/// most marches are among the first few, and rollouts must be cheap.
const ROLLOUT_CANDIDATES: usize = 4;

/// Rollouts per march decision when none is given.
pub const DEFAULT_BUDGET: u32 = 12;
/// The most rollouts per decision the command line accepts: beyond this a decision
/// would take minutes.
pub const MAX_BUDGET: u32 = 2_000;
/// Candidate marches weighed per decision (the `ai`'s own choice first).
const WIDTH: usize = 3;
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
    /// Rollouts per march decision, shared among the candidates.
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
        Ok(0) => Err("the search budget must be at least 1 rollout per decision".into()),
        Ok(b) if b <= MAX_BUDGET => Ok(b),
        _ => Err(format!(
            "a search budget of {budget} rollouts per decision is too large (at most {MAX_BUDGET})"
        )),
    }
}

/// One march decision's candidate: the action and, for an activation, the plan the
/// planner then plays.
#[derive(Clone, Debug)]
struct Candidate {
    action: Action,
    plan: Option<(BoxId, Vec<(UnitId, muster_core::game::Path)>)>,
}

pub struct SearchPlayer {
    inner: Planner,
    config: SearchConfig,
    seed: u64,
    /// Rule errors met in rollouts since the last `take_warnings`.
    warnings: Vec<String>,
}

impl SearchPlayer {
    pub fn new(config: SearchConfig, seed: u64) -> SearchPlayer {
        SearchPlayer {
            inner: Planner::new(Style::strong()),
            config,
            seed,
            warnings: Vec::new(),
        }
    }

    /// The candidates of a march decision, the `ai`'s own choice first.
    fn candidates(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<Vec<Candidate>, AiError> {
        let hinted = hinted_offer(module, rules, state)?;
        let mut plans = self.inner.march_plans(module, rules, state, me)?;
        // The planner's rule: the first plan of the highest worth, if worth marching
        // and not beaten by an offer's hint.
        let mut best: Option<usize> = None;
        for (i, p) in plans.iter().enumerate() {
            if best.is_none_or(|b| p.0 > plans[b].0) {
                best = Some(i);
            }
        }
        let mut out = Vec::new();
        let march = |(_, at, moves): (f64, BoxId, Vec<_>)| Candidate {
            action: Action::Select { at },
            plan: Some((at, moves)),
        };
        match best {
            Some(i)
                if plans[i].0 > 0.2 && hinted.as_ref().is_none_or(|(w, _)| plans[i].0 >= *w) =>
            {
                out.push(march(plans.remove(i)));
            }
            _ => out.push(Candidate {
                action: hinted.as_ref().map_or(Action::EndStep, |(_, a)| a.clone()),
                plan: None,
            }),
        }
        // Then the other plans, best first (ties in the planner's order).
        plans.sort_by(|x, y| y.0.total_cmp(&x.0));
        for p in plans {
            if out.len() >= WIDTH {
                break;
            }
            out.push(march(p));
        }
        if out.len() < WIDTH
            && let Some((_, a)) = hinted
            && out[0].action != a
        {
            out.push(Candidate {
                action: a,
                plan: None,
            });
        }
        Ok(out)
    }

    /// Plays every candidate's rollouts; each result is in the slot of its index
    /// (`candidate * per + r`), whatever thread played it.
    fn rollouts(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
        candidates: &[Candidate],
        per: usize,
    ) -> Vec<Result<f64, String>> {
        let base = decision_seed(self.seed, state, module);
        let total = candidates.len() * per;
        let one = |rules: &mut dyn Rules, i: usize| -> Result<f64, String> {
            let seed = mix(base.wrapping_add((i % per) as u64));
            rollout(module, rules, state, me, &candidates[i / per], seed).map_err(|e| e.to_string())
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
        if !Planner::is_march_decision(module, state) {
            return self.inner.choose(module, rules, state);
        }
        let me = decider(module, state);
        let started = std::time::Instant::now();
        let candidates = self.candidates(module, rules, state, me)?;
        let pick = if candidates.len() < 2 {
            0
        } else {
            let per = (self.config.budget as usize / candidates.len()).max(1);
            let results = self.rollouts(module, rules, state, me, &candidates, per);
            match results.iter().find_map(|r| r.as_ref().err()) {
                Some(e) => {
                    let message =
                        format!("the search failed ({e}); playing the ai's choice instead");
                    tracing::warn!("{message}");
                    self.warnings.push(message);
                    0
                }
                None => {
                    let values: Vec<f64> = results.into_iter().flatten().collect();
                    choose(&values, per)
                }
            }
        };
        tracing::debug!(
            target: "muster_ai::search::time",
            "turn {} side {} decision {} of {} candidates in {} us",
            state.turn.0,
            me.index(),
            pick,
            candidates.len(),
            started.elapsed().as_micros()
        );
        let chosen = candidates.into_iter().nth(pick).ok_or(AiError::Stuck)?;
        if let Some((at, moves)) = chosen.plan {
            self.inner.adopt(module, state, at, moves);
        }
        Ok(chosen.action)
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

/// Plays `candidate` in `state` on dice seeded with `seed`, then every side with `ai`
/// players to the start of `me`'s next player turn (or the game's end), and judges
/// the position reached.
fn rollout(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    me: SideId,
    candidate: &Candidate,
    seed: u64,
) -> Result<f64, AiError> {
    let mut s = state.clone();
    s.dice = Dice::seeded(seed);
    let mut players: Vec<Planner> = module
        .side_ids()
        .map(|side| {
            let style = if side == me {
                Style::strong()
            } else {
                Style::ai()
            };
            Planner::new(Style {
                candidates: ROLLOUT_CANDIDATES,
                ..style
            })
        })
        .collect();
    if let Some((at, moves)) = &candidate.plan {
        players[me.index()].adopt(module, &s, *at, moves.clone());
    }
    let (next, _) = apply(module, rules, &s, &candidate.action)?;
    s = next;
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
