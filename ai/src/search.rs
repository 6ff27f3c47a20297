//! The `strong` player: the `ai` planner, with each march chosen by rollouts.
//!
//! At every march decision (a box to activate, or the end of the segment) it weighs a
//! few candidates: the planner's own march first, then ending the segment, the best
//! march each of a few other planner [`styles`] offers (ones that guard more boxes more
//! strongly), and the planner's next best. A candidate other than the planner's march
//! also keeps the planner off that march's box for the rest of the segment: otherwise
//! the planner would only play it next, and the search would compare the same marches
//! in another order. Each candidate is played out on several dice: its actions, the rest
//! of the segment and the player turn, then every side on to the start of the player's
//! third player turn from here with `ai` planners (searching fewer boxes, to be
//! cheap), so a march is judged by what the enemy does in reply and in the two player
//! turns after (a raid on the city it left takes two: to come next to it, then to take
//! it; a lost attack shows in the enemy's second reply). The
//! candidate whose end positions [`evaluate_from`] judges best, surely enough, is
//! played (see [`choose`]); every other decision is the planner's.
//!
//! In the opening (the scenario's first [`SearchConfig::opening`] turns, none unless
//! asked) each decision plays three times the rollouts, each a player turn longer.
//!
//! Everything is generic: the candidates are marches over the engine's actions, and a
//! rollout's end is judged from the game's outcome, each side's tallies (the module's,
//! from the engine: AHD's army maximum), the worth of the boxes each side holds (box
//! values plus the rules' `box_worth` hint, read where the decision is taken), the
//! pieces each side has on the board and how near each side is to its victory
//! conditions (the rules' `victory_progress`).
//!
//! Determinism: rollout `r` of every candidate gets the same dice (common random
//! numbers, so candidates are compared on the same luck), seeded from the player's
//! seed, the decision's place in the game and `r` only. Each rollout runs on fresh
//! planners, so results never depend on which thread played it or in which order: the
//! same seed gives the same choices on any number of threads. What all of a
//! candidate's rollouts play before the first roll of the dice is played once, and each
//! goes on from a copy (`before_the_dice`): the same rollouts, for less.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use muster_core::Module;
use muster_core::game::{
    Action, ActionError, Dice, GameState, Knowledge, Rules, View, apply_unlogged, decider,
    legal_actions,
};
use muster_core::ids::{BoxId, SideId};

use crate::knowledge::{self, Distances, unit_force};
use crate::planner::{Planner, Style, not_commanded};
use crate::player::{AiError, Player};
use crate::recall::Recall;

/// Candidate boxes the planners of a rollout search per march (the `ai` searches 12):
/// most marches are among the first few, and rollouts must be cheap.
const ROLLOUT_CANDIDATES: usize = 4;

/// Rollouts per march decision when none is given, shared among the candidates. With
/// `HORIZON` three, AHD's Union against `ai` in 1861 won 66 of 100 games where 24
/// rollouts two player turns deep won 34, at four times the work: a mean of 1.33 s to
/// 1.52 s a Union player turn on one core (2026-11-28, with the game alone on the
/// machine, after the rules, engine, allocator, script budget and planner were made 53%
/// cheaper in instructions; the README's figures).
pub const DEFAULT_BUDGET: u32 = 72;
/// The most rollouts per march decision the command line accepts: beyond this a
/// player turn would take minutes.
pub const MAX_BUDGET: u32 = 2_000;
/// A rollout runs until the start of this many of the player's own player turns: the
/// third, so the enemy's reply, its next strike and the reply to that are all seen
/// (raids take two player turns: to come next to a city, then to take it; and a march's
/// cost often shows only in the enemy's second reply, as when a lone militia's
/// even-odds attack, lost, opens a city to a raid the turn after). As Union against
/// `ai`, seeds 1-20 at 24 rollouts: one player turn deep, no win; two, 7; three, 2 (too
/// few rollouts for the noise of the `ai` planners' play that far out). Three deep,
/// seeds 1-30: 24 rollouts won 12, 48 won 17, 72 won 24 (two deep at 24: 13).
const HORIZON: u32 = 3;
/// In the opening ([`SearchConfig::opening`]), rollouts run a player turn further.
const OPENING_HORIZON: u32 = HORIZON + 1;
/// And each decision plays this many times the budget.
const OPENING_BUDGET: u32 = 3;
/// The most opening turns the command line accepts (more is the whole game).
pub const MAX_OPENING: u32 = 1_000;
/// A rollout gives up after this many actions (a stuck game, or a module whose player
/// turns are very long); its position is judged as it stands.
const MAX_ROLLOUT_ACTIONS: usize = 3_000;
/// What winning adds to a position (losing takes away), in the evaluation's units
/// (worth of boxes, steps). It must outweigh any lead a position can show: a won game
/// once counted a flat 100, less than a big army's lead over a small one, so a side far
/// ahead judged taking its last objective worse than waiting (as Union, six of AHD's
/// seven cities were held for fourteen turns with the seventh empty).
const WIN: f64 = 1_000.0;
/// Weight of a step on the board.
const STEP: f64 = 1.0;
/// How much a step's firepower (hits per round) adds to it: a piece that hits on half
/// the die counts twice a militia's.
const FIRE: f64 = 3.0;
/// What a victory condition one step from being met is worth, and how that fades with
/// each step further.
const NEAR: f64 = 100.0;
const NEAR_FADE: f64 = 0.6;
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
    /// Rollouts per march decision at most, shared among the candidates.
    pub budget: u32,
    /// March budgets a player turn's marches share (each march then plays [`share`] of
    /// what is left), or `None` (the default): each march its whole budget. A pool of two
    /// cut the slow turns' rollouts by half (issue 48), but as Union against `ai` in 1861
    /// it won 36 of 60 games (seeds 1-20: 9, where the default won 16), likely weaker
    /// than the default's 66 of 100: not the default (docs/strong-player.md, 2026-11-30).
    pub pool: Option<u32>,
    /// Threads to play rollouts on; with more than one, `rules` must be given.
    pub threads: usize,
    /// Rules for the rollouts of threads beyond the first. On one thread, rollouts use
    /// the rules the player is given, looking ahead ([`Rules::look_ahead`]), so what
    /// those rules keep for the game holds nothing of the rollouts.
    pub rules: Option<RulesFactory>,
    /// Turns from the scenario's start searched wider and deeper still:
    /// [`OPENING_BUDGET`] times the budget, rollouts [`OPENING_HORIZON`] player turns
    /// long. 0 (the default): none. When the default was 24 rollouts two deep, this
    /// opening (then three deep) over the whole game is what became the default; over
    /// the current default it costs three times the time or more, and its strength is
    /// not measured.
    pub opening: u32,
}

impl SearchConfig {
    pub fn new(budget: u32) -> SearchConfig {
        SearchConfig {
            budget,
            threads: 1,
            rules: None,
            opening: 0,
            pool: None,
        }
    }

    /// Whether `state` is in the opening: a turn of the scenario's first
    /// [`opening`](Self::opening).
    fn in_opening(&self, state: &GameState) -> bool {
        u32::from(state.turn.0.saturating_sub(state.first_turn.0)) < self.opening
    }

    /// Rollouts for a decision in `state`, shared among its candidates.
    fn budget_at(&self, state: &GameState) -> usize {
        let factor = if self.in_opening(state) {
            OPENING_BUDGET
        } else {
            1
        };
        self.budget as usize * factor as usize
    }

    /// How many of the player's own player turns a rollout from `state` runs into.
    fn horizon_at(&self, state: &GameState) -> u32 {
        if self.in_opening(state) {
            OPENING_HORIZON
        } else {
            HORIZON
        }
    }
}

/// Checks a number of opening turns given by a person.
pub fn check_opening(turns: u64) -> Result<u32, String> {
    match u32::try_from(turns) {
        Ok(t) if t <= MAX_OPENING => Ok(t),
        _ => Err(format!(
            "an opening of {turns} turns is too long (at most {MAX_OPENING}; 0 for none)"
        )),
    }
}

/// Checks a budget given by a person.
pub fn check_budget(budget: u64) -> Result<u32, String> {
    match u32::try_from(budget) {
        Ok(0) => Err("the search budget must be at least 1 rollout per march".into()),
        Ok(b) if b <= MAX_BUDGET => Ok(b),
        _ => Err(format!(
            "a search budget of {budget} rollouts per march is too large (at most {MAX_BUDGET})"
        )),
    }
}

/// The planner styles whose marches the strong player weighs, its own (`ai`'s, keeping
/// the boxes it is about to take) first. They differ in how much they guard: which
/// boxes count as decisive (worth this much to me, the box values plus the rules'
/// `box_worth`: with AHD's hint, the cities whose loss brings the army maximum near the
/// enemy's) and how many steps a decisive box keeps per enemy step that could reach it.
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
    /// The `strong` planner: it plays every decision but the marches, and offers the
    /// baseline march.
    inner: Planner,
    /// Planners of the other styles, offering their marches as candidates.
    others: Vec<Planner>,
    config: SearchConfig,
    seed: u64,
    /// The rest of the march the search chose: its moves and its release.
    queue: VecDeque<Action>,
    /// Rule errors met in rollouts since the last `take_warnings`.
    warnings: Vec<String>,
    /// The seat's choices it was told for this decision ([`Player::shown`]).
    shown: Option<Vec<Action>>,
    /// Answers shared by every planner of the search, across its decisions.
    recall: Arc<Recall>,
    /// Samples drawn so far (each one's seed is the player's seed and its number).
    draws: u64,
    /// Rollouts the last march decision played (for the time log and the pool).
    played: usize,
    /// The player turn whose marches share the pool, and the rollouts left in it.
    pool: Option<(PlayerTurn, usize)>,
}

/// A player turn: the game turn and the player's place in it.
type PlayerTurn = (muster_core::ids::TurnId, u8);

/// Different marches the search weighs at most at a decision (the baseline among them).
const MAX_CANDIDATES: usize = 5;

/// A march to weigh: its actions, and the boxes then avoided for the rest of the segment.
type Candidate = (Vec<Action>, Vec<BoxId>);

impl SearchPlayer {
    pub fn new(config: SearchConfig, seed: u64) -> SearchPlayer {
        let mut styles = styles().into_iter();
        let base = styles.next().unwrap_or_else(Style::strong);
        let recall = Arc::new(Recall::default());
        let remembering = |style| {
            let mut p = Planner::new(style);
            p.recall(Arc::clone(&recall));
            p
        };
        SearchPlayer {
            inner: remembering(base),
            others: styles.map(remembering).collect(),
            config,
            seed,
            queue: VecDeque::new(),
            warnings: Vec::new(),
            shown: None,
            recall,
            draws: 0,
            played: 0,
            pool: None,
        }
    }

    /// The marches to weigh in `state`, each as the whole sequence of actions (select,
    /// moves, release) and the boxes not to activate for the rest of the segment if it
    /// is chosen. First the planner's own choice (a march, an offer or the end of the
    /// step); then, against its march, ending the segment, and the best marches of each
    /// style and the planner's next best, each from another box and with the planner's
    /// box avoided for the rest of the segment (else the planner would only play it
    /// next, and the search would weigh the same marches in another order).
    fn candidates(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<Vec<Candidate>, AiError> {
        let (first, mut plans) = self.inner.choose_march(module, rules, state, me)?;
        let Action::Select { at: chosen } = first else {
            return Ok(vec![(vec![first], Vec::new())]);
        };
        let mut baseline = vec![first];
        baseline.extend(self.inner.planned());
        baseline.push(Action::Release);
        self.inner.forget();
        let mut out = vec![(baseline, Vec::new()), (vec![Action::EndStep], Vec::new())];
        plans.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut others = Vec::new();
        for p in &mut self.others {
            let mut theirs = p.march_plans(module, rules, state, me)?;
            theirs.sort_by(|a, b| b.0.total_cmp(&a.0));
            others.extend(theirs.into_iter().filter(|p| p.1 != chosen).take(1));
        }
        for (value, at, moves) in others.into_iter().chain(plans) {
            if out.len() >= MAX_CANDIDATES {
                break;
            }
            if value <= 0.0 || at == chosen {
                continue;
            }
            let mut seq = vec![Action::Select { at }];
            seq.extend(
                moves
                    .into_iter()
                    .map(|(unit, path)| Action::Move { unit, path }),
            );
            seq.push(Action::Release);
            if !out.iter().any(|(c, _)| *c == seq) {
                out.push((seq, vec![chosen]));
            }
        }
        Ok(out)
    }

    /// Each candidate's rollout values, `per` of them for the baseline and for every
    /// candidate still in the race at half time, fewer for those dropped then (see
    /// [`hopeless`]): a candidate needs all `per` to be chosen. Rollout `r` gets the same
    /// dice whichever candidate it plays, on whichever thread. Each thread loads its
    /// rules once for both halves (a load is a few percent of a decision) and waits for
    /// the others at half time; every thread then reads the same first halves, so all
    /// agree on what is left to play.
    fn race(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
        candidates: &[Candidate],
        per: usize,
    ) -> Result<Vec<Vec<f64>>, String> {
        let base = decision_seed(self.seed, state, module);
        let dist = self.inner.distances(module);
        let root = Root {
            state,
            me,
            worth: self
                .recall
                .worth(module, rules, state)
                .map_err(|e| e.to_string())?,
            avoided: self.inner.avoided(state),
            horizon: self.config.horizon_at(state),
            dist,
            recall: Arc::clone(&self.recall),
        };
        let n = candidates.len();
        let half = if per / 2 == 0 { per } else { per / 2 };
        let first: Vec<(usize, usize)> = (0..n)
            .flat_map(|c| (0..half).map(move |r| (c, r)))
            .collect();
        // Results by slot `c * per + r`.
        let slots: Mutex<Vec<Option<Result<f64, String>>>> = Mutex::new(vec![None; n * per]);
        let record = |(c, r): (usize, usize), v: Result<f64, String>| {
            slots.lock().unwrap_or_else(|p| p.into_inner())[c * per + r] = Some(v);
        };
        // The second half: the baseline and the candidates still in, none after an error.
        let second = || -> Vec<(usize, usize)> {
            let done = slots.lock().unwrap_or_else(|p| p.into_inner());
            let Some(firsts) = (0..n)
                .map(|c| {
                    (0..half)
                        .map(|r| done[c * per + r].clone()?.ok())
                        .collect::<Option<Vec<f64>>>()
                })
                .collect::<Option<Vec<_>>>()
            else {
                return Vec::new();
            };
            let alive: Vec<usize> = (1..n)
                .filter(|&c| !hopeless(&firsts[c], &firsts[0]))
                .collect();
            if half == per || alive.is_empty() {
                return Vec::new();
            }
            std::iter::once(0)
                .chain(alive)
                .flat_map(|c| (half..per).map(move |r| (c, r)))
                .collect()
        };
        // The rules look ahead from here on this thread: what the rollouts log is not
        // the game's.
        rules.look_ahead(true);
        let from: Vec<Option<Walk>> = candidates
            .iter()
            .map(|c| before_the_dice(module, &mut *rules, &root, c))
            .collect();
        let one = |rules: &mut dyn Rules, (c, r): (usize, usize)| {
            let seed = mix(base.wrapping_add(r as u64));
            let v = rollout(module, rules, &root, &candidates[c], from[c].as_ref(), seed)
                .map_err(|e| e.to_string());
            record((c, r), v);
        };
        // Thread `t` of `threads` plays its share of both halves on `rules` (or fails
        // them with the error that kept it from loading its own).
        let play = |rules: Result<&mut dyn Rules, &String>,
                    t: usize,
                    threads: usize,
                    half_time: &dyn Fn()| {
            let share = |jobs: &[(usize, usize)], rules: &mut Result<&mut dyn Rules, &String>| {
                for &job in jobs.iter().skip(t).step_by(threads) {
                    match rules {
                        Ok(rules) => one(&mut **rules, job),
                        Err(e) => record(job, Err((*e).clone())),
                    }
                }
            };
            let mut rules = rules;
            // Every thread reaches half time, even one whose first half panicked (a
            // bug): the others would wait there for ever.
            let first_half = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                share(&first, &mut rules);
            }));
            half_time();
            if let Err(panic) = first_half {
                std::panic::resume_unwind(panic);
            }
            share(&second(), &mut rules);
        };
        let threads = self.config.threads.clamp(1, first.len().max(1));
        match &self.config.rules {
            Some(factory) if threads > 1 => {
                let barrier = std::sync::Barrier::new(threads);
                let half_time = || {
                    barrier.wait();
                };
                std::thread::scope(|scope| {
                    for t in 1..threads {
                        let factory = Arc::clone(factory);
                        let (play, half_time) = (&play, &half_time);
                        scope.spawn(move || match factory(module) {
                            Ok(mut rules) => play(Ok(rules.as_mut()), t, threads, half_time),
                            Err(e) => play(Err(&e), t, threads, half_time),
                        });
                    }
                    // This thread plays its share on the caller's rules, looking ahead.
                    play(Ok(&mut *rules), 0, threads, &half_time);
                });
            }
            // On one thread the rollouts run on the caller's rules, looking ahead (what
            // they log is not the game's): loading rules of its own for each decision
            // cost a strong game a thirtieth of its work, and rules answer alike
            // whatever they answered before (the app's worker and `muster balance`
            // always shared them).
            _ => play(Ok(&mut *rules), 0, 1, &|| ()),
        }
        rules.look_ahead(false);
        let slots = slots.into_inner().unwrap_or_else(|p| p.into_inner());
        slots
            .chunks(per)
            .map(|chunk| chunk.iter().map_while(Clone::clone).collect())
            .collect()
    }

    /// Chooses the march in front of `me` by rollouts: the sequence of actions to play.
    /// The planner's own choice when the search fails or nothing beats it surely.
    /// `states` are the positions to search: the game itself, or samples of what the
    /// seat knows (information-set search by determinization: the candidates are read
    /// on the first sample, each is played out on every sample with the budget shared
    /// among them, and the one best over all of them, surely enough, is chosen).
    fn choose_march(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        states: &[&GameState],
        me: SideId,
    ) -> Result<Vec<Action>, AiError> {
        let state = *states.first().ok_or(AiError::Stuck)?;
        let mut candidates = self.candidates(module, rules, state, me)?;
        if candidates.len() == 1 {
            return Ok(candidates.swap_remove(0).0);
        }
        for (i, c) in candidates.iter().enumerate() {
            tracing::debug!("candidate {i}: {c:?}");
        }
        let per = (self.allowance(state) / candidates.len() / states.len()).max(1);
        let mut raced: Result<Vec<Vec<f64>>, String> = Ok(vec![Vec::new(); candidates.len()]);
        for sample in states {
            let values = self.race(module, rules, sample, me, &candidates, per);
            raced = match (raced, values) {
                (Ok(mut all), Ok(values)) => {
                    for (a, v) in all.iter_mut().zip(values) {
                        // A candidate dropped in one sample has fewer: it is out.
                        if a.len() % per == 0 {
                            a.extend(v);
                        }
                    }
                    Ok(all)
                }
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
        }
        let per = per * states.len();
        self.played = raced
            .as_ref()
            .map_or(0, |values| values.iter().map(Vec::len).sum());
        self.spend(self.played);
        let pick = match raced {
            Ok(values) => {
                for (c, v) in values.iter().enumerate() {
                    tracing::trace!("candidate {c}: rollouts {v:?}");
                }
                choose(&values, per)
            }
            Err(e) => {
                let message = format!("the search failed ({e}); playing the ai's choice instead");
                tracing::warn!("{message}");
                self.warnings.push(message);
                0
            }
        };
        let (seq, avoid) = candidates.swap_remove(pick);
        self.inner.avoid(state, &avoid);
        for p in &mut self.others {
            p.avoid(state, &avoid);
        }
        Ok(seq)
    }

    /// Rollouts for the march decision in `state`: the budget, or with a pool
    /// ([`SearchConfig::pool`]) its share of what is left of the player turn's, a new
    /// pool at a new player turn.
    fn allowance(&mut self, state: &GameState) -> usize {
        let budget = self.config.budget_at(state);
        let Some(pool) = self.config.pool else {
            return budget;
        };
        let at = (state.turn, state.player);
        let left = match self.pool {
            Some((turn, left)) if turn == at => left,
            _ => budget * pool as usize,
        };
        self.pool = Some((at, left));
        let allowed = share(left, budget);
        tracing::debug!("{allowed} rollouts of the {left} left this player turn");
        allowed
    }

    /// Takes `played` rollouts out of the player turn's pool.
    fn spend(&mut self, played: usize) {
        if let Some((_, left)) = &mut self.pool {
            *left = left.saturating_sub(played);
        }
    }

    /// Rule errors met while searching since last asked (the player then took the
    /// `ai`'s choice).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

impl Player for SearchPlayer {
    /// On the game itself where the seat sees everything; else on [`SAMPLES`] samples
    /// of what it knows, the marches weighed over all of them, every other decision
    /// the planner's on the first.
    fn choose(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        knowledge: &Knowledge<'_>,
    ) -> Result<Action, AiError> {
        if let Some(state) = knowledge.open_state() {
            return self.choose_on(module, rules, &[state], knowledge);
        }
        let mut draw = || {
            self.draws += 1;
            knowledge
                .sample(module, mix(self.seed ^ mix(self.draws)))
                .into_owned()
        };
        let mut samples = vec![draw()];
        // More samples only where the search will read them: a march to choose.
        let queued = samples[0]
            .moving
            .as_ref()
            .is_some_and(|m| m.active.is_some());
        if !queued && Planner::is_march_decision(module, &samples[0]) {
            samples.extend((1..SAMPLES).map(|_| draw()));
        }
        let states: Vec<&GameState> = samples.iter().collect();
        self.choose_on(module, rules, &states, knowledge)
    }

    /// Told to the planner for the decisions it takes itself (the marches are
    /// searched on samples and checked by the loop).
    fn shown(&mut self, choices: &[Action]) {
        self.shown = Some(choices.to_vec());
    }

    fn forget(&mut self) {
        self.queue.clear();
        self.inner.forget();
    }

    fn take_warnings(&mut self) -> Vec<String> {
        SearchPlayer::take_warnings(self)
    }
}

/// Samples of a hidden position the `strong` player searches at a march decision (the
/// budget is shared among them).
pub const SAMPLES: usize = 4;

impl SearchPlayer {
    fn choose_on(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        states: &[&GameState],
        knowledge: &Knowledge<'_>,
    ) -> Result<Action, AiError> {
        let state = *states.first().ok_or(AiError::Stuck)?;
        let shown = self.shown.take();
        self.inner.seated(module, knowledge.seat());
        for p in &mut self.others {
            p.seated(module, knowledge.seat());
        }
        let others = not_commanded(module, rules, state, knowledge.seat())?;
        if !others.is_empty() {
            self.inner.avoid(state, &others);
            for p in &mut self.others {
                p.avoid(state, &others);
            }
        }
        let marching = state.moving.as_ref().is_some_and(|m| m.active.is_some());
        if marching && let Some(next) = self.queue.pop_front() {
            return Ok(next);
        }
        self.queue.clear();
        if Planner::is_march_decision(module, state) {
            let me = decider(module, state);
            let started = std::time::Instant::now();
            self.played = 0;
            let mut chosen: VecDeque<Action> = self.choose_march(module, rules, states, me)?.into();
            tracing::debug!(
                target: "muster_ai::search::time",
                "turn {} side {} march {:?} in {} us, {} rollouts",
                state.turn.0,
                me.index(),
                chosen.front(),
                started.elapsed().as_micros(),
                self.played
            );
            let first = chosen.pop_front().ok_or(AiError::Stuck)?;
            self.queue = chosen;
            return Ok(first);
        }
        self.inner.set_shown(shown);
        let chosen = self.inner.choose_on(module, rules, state);
        self.inner.set_shown(None);
        chosen
    }
}

/// A march decision may take this fraction (one in `SHARE`) of what is left of the pool,
/// at most the march budget (so a turn's first march is searched in full, the planner's
/// best-valued, and each later one on less)...
const SHARE: usize = 2;
/// ...and at least this fraction (one in `FLOOR`) of the budget, so a late march is still
/// weighed: with AHD's five candidates, three rollouts each at the default, where the
/// confidence bound mostly keeps the planner's march.
const FLOOR: usize = 4;

/// The rollouts a march decision may play with `left` in the player turn's pool and a
/// march budget of `budget`. Rollouts the race does not play (a candidate dropped at
/// half time) stay in the pool for the turn's later marches.
fn share(left: usize, budget: usize) -> usize {
    (left / SHARE).clamp(budget.div_ceil(FLOOR), budget)
}

/// Whether a candidate is out of the race at half time, from its first rollout values
/// and the baseline's on the same dice: its paired differences do not even average the
/// [`MARGIN`]. To be chosen it would need its other half to beat the baseline by more
/// than this half fell short and still clear the confidence bound. Over the 268 march
/// decisions of five traced games (strong Union against `ai`, seeds 3, 5, 6 and 7;
/// strong Confederacy against `ai`, seed 4) playing every rollout never chose such a
/// candidate, and dropping them (with every other candidate out, the baseline's second
/// half is not played either) saved 29% of the rollouts. It is not exact: of 40 whole
/// games (`muster balance`, seeds 61-100), 9 went otherwise, and the Union's wins in
/// seeds 1-100 were 34, against 28 playing every rollout.
fn hopeless(first: &[f64], base: &[f64]) -> bool {
    let n = first.len().max(1) as f64;
    let mean = first.iter().zip(base).map(|(v, b)| v - b).sum::<f64>() / n;
    mean < MARGIN
}

/// Which candidate to play, from each one's rollout values in order (rollout `r` of
/// each on the same dice); only those with all `per` of them may be. The planner's
/// choice (candidate 0) stands unless another beats it surely enough: by the lower end
/// of a confidence bound on the mean of the paired differences, so the noise of a few
/// rollouts does not pick a worse plan that was lucky.
fn choose(values: &[Vec<f64>], per: usize) -> usize {
    let base = &values[0];
    let mut best = (0, 0.0);
    for (c, chunk) in values.iter().enumerate().skip(1) {
        if chunk.len() < per {
            continue;
        }
        let d: Vec<f64> = chunk.iter().zip(base).map(|(v, b)| v - b).collect();
        let n = d.len() as f64;
        let mean = d.iter().sum::<f64>() / n;
        let var = if d.len() > 1 {
            d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
        } else {
            mean * mean
        };
        let low = mean - CONFIDENCE * (var / n).sqrt() - MARGIN;
        tracing::debug!("candidate {c}: {mean:.2} better than the planner's, bound {low:.2}");
        if low > best.1 {
            best = (c, low);
        }
    }
    best.0
}

/// The decision a search weighs candidates for.
struct Root<'a> {
    state: &'a GameState,
    me: SideId,
    /// Each box's worth to each side, read here: every rollout is judged by it.
    worth: Arc<Vec<Vec<f64>>>,
    /// Boxes the player already avoids for the rest of the segment.
    avoided: Vec<BoxId>,
    /// Rollouts end at the start of the player's player turn this many from here.
    horizon: u32,
    /// The board's distances, for the rollouts' planners.
    dist: Arc<Distances>,
    recall: Arc<Recall>,
}

/// A rollout under way: the position, each side's planner and how far it has to go.
#[derive(Clone)]
struct Walk {
    s: GameState,
    players: Vec<Planner>,
    turns_left: u32,
    at: (muster_core::ids::TurnId, u8),
    actions: usize,
}

/// Plays `candidate`'s actions in the root position, on `dice` (as far as the engine
/// accepts them), and seats the rollout's planners: `ai` planners searching fewer
/// boxes, mine avoiding the candidate's boxes for the rest of the segment.
fn begin(
    module: &Module,
    rules: &mut dyn Rules,
    root: &Root,
    (candidate, avoid): &Candidate,
    dice: Dice,
) -> Result<Walk, AiError> {
    let (state, me) = (root.state, root.me);
    let mut s = state.clone();
    s.dice = dice;
    for a in candidate {
        match apply_unlogged(module, rules, &s, a) {
            Ok(next) => s = next,
            Err(ActionError::Illegal(_)) => break,
            Err(e) => return Err(e.into()),
        }
    }
    let avoid = [&root.avoided[..], avoid].concat();
    let players: Vec<Planner> = module
        .side_ids()
        .map(|side| {
            let mut p = Planner::sharing(
                Style {
                    candidates: ROLLOUT_CANDIDATES,
                    ..Style::ai()
                },
                Arc::clone(&root.dist),
                Arc::clone(&root.recall),
            );
            if side == me {
                p.avoid(state, &avoid);
            }
            p
        })
        .collect();
    Ok(Walk {
        s,
        players,
        turns_left: root.horizon,
        at: (state.turn, state.player),
        actions: 0,
    })
}

/// Plays the rollout's next action; false when it has ended: the game over, the start of
/// `me`'s [`Root::horizon`]th player turn from the root, or too many actions.
fn walk_on(
    module: &Module,
    rules: &mut dyn Rules,
    root: &Root,
    w: &mut Walk,
) -> Result<bool, AiError> {
    let me = root.me;
    if w.s.outcome.is_some() || w.actions >= MAX_ROLLOUT_ACTIONS {
        return Ok(false);
    }
    let s = &w.s;
    if (s.turn, s.player) != w.at && s.active_side(module) == me && !s.at_turn_end(module) {
        w.turns_left -= 1;
        if w.turns_left == 0 {
            return Ok(false);
        }
        w.at = (s.turn, s.player);
    }
    let side = decider(module, s);
    let Some(p) = w.players.get_mut(side.index()) else {
        return Err(AiError::Stuck);
    };
    // Nobody reads a rollout's log.
    w.s = rollout_step(p, module, rules, s)?;
    w.actions += 1;
    Ok(true)
}

/// What every rollout of `candidate` plays before its first roll of the dice: the
/// candidate's march and, mostly, the rest of the segment (marches roll no dice, and
/// the planners see none), the same on every rollout's dice. Played once, where each
/// rollout played it again (a six-march turn's first decision played its other five
/// marches for each of its 72 rollouts); each rollout goes on from a copy on its own
/// dice, so the games are those played before. `None` when the candidate's own
/// actions roll, or a rule fails (each rollout then plays from the root, as before, and
/// meets the failure itself).
fn before_the_dice(
    module: &Module,
    rules: &mut dyn Rules,
    root: &Root,
    candidate: &Candidate,
) -> Option<Walk> {
    let dice = Dice::seeded(0);
    let mut w = begin(module, rules, root, candidate, dice.clone()).ok()?;
    if w.s.dice != dice {
        return None;
    }
    loop {
        let kept = w.clone();
        match walk_on(module, rules, root, &mut w) {
            Ok(true) if w.s.dice == dice => {}
            // That action rolled: the rollouts play it, each on its own dice.
            Ok(true) => return Some(kept),
            Ok(false) => return Some(w),
            Err(_) => return Some(kept),
        }
    }
}

/// Plays `candidate` from the root (or from what it plays before the dice, `from`) on
/// to the start of `me`'s [`Root::horizon`]th player turn from the root (or the game's
/// end), every side by `ai` planners, on dice seeded with `seed`; and judges the
/// position reached.
fn rollout(
    module: &Module,
    rules: &mut dyn Rules,
    root: &Root,
    candidate: &Candidate,
    from: Option<&Walk>,
    seed: u64,
) -> Result<f64, AiError> {
    let mut w = match from {
        Some(w) => {
            let mut w = w.clone();
            w.s.dice = Dice::seeded(seed);
            w
        }
        None => begin(module, rules, root, candidate, Dice::seeded(seed))?,
    };
    while walk_on(module, rules, root, &mut w)? {}
    judge(module, rules, &w.s, root.me, &root.worth)
}

/// One decision of a rollout's planner on the whole position it plays (a sample's
/// continuation: every planner in it sees all of it). A refused plan is dropped and the
/// planner asked again; at last the first legal action is taken.
fn rollout_step(
    p: &mut Planner,
    module: &Module,
    rules: &mut dyn Rules,
    s: &GameState,
) -> Result<GameState, AiError> {
    for _ in 0..2 {
        let action = p.choose_on(module, rules, s)?;
        match apply_unlogged(module, rules, s, &action) {
            Ok(next) => return Ok(next),
            Err(ActionError::Illegal(_)) => p.forget(),
            Err(e) => return Err(e.into()),
        }
    }
    let action = legal_actions(module, rules, s)?
        .into_iter()
        .next()
        .ok_or(AiError::Stuck)?;
    Ok(apply_unlogged(module, rules, s, &action)?)
}

/// How good `state` is for `me`: my side's worth of the boxes it holds, tallies, pieces
/// on the board (by steps and firepower: a promoted piece counts more) and nearness to
/// its victory conditions (the rules' `victory_progress`), less the enemies' (shared
/// among them); and for a game over, [`WIN`] more when won and less when lost.
pub fn evaluate(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    me: SideId,
) -> Result<f64, AiError> {
    evaluate_from(module, rules, state, state, me)
}

/// [`evaluate`] of `state` with the worth of each box read in `root`: how a search
/// compares the positions its rollouts reach from one decision.
pub fn evaluate_from(
    module: &Module,
    rules: &mut dyn Rules,
    root: &GameState,
    state: &GameState,
    me: SideId,
) -> Result<f64, AiError> {
    let worth = knowledge::worth(module, rules, root)?;
    judge(module, rules, state, me, &worth)
}

/// [`evaluate`] with the worth of each box to each side given: a search judges every
/// rollout of a decision by the worths read where the decision is taken, because the
/// rules' hint raises a box's worth as the danger of losing it grows, and counted at
/// the end of a rollout that would reward the danger.
fn judge(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    me: SideId,
    worth: &[Vec<f64>],
) -> Result<f64, AiError> {
    let enemies = (module.sides.len().max(2) - 1) as f64;
    let mut per_side = vec![0.0; module.sides.len()];
    for side in module.side_ids() {
        // Every tally of the module (AHD: the army maximum, 10.0's race).
        let tallies: u32 = module
            .tally_ids()
            .map(|t| state.tally(module, t, side))
            .sum();
        let v = &mut per_side[side.index()];
        *v += TALLY * f64::from(tallies);
        for at in module.board.box_ids() {
            if state.controller(at) == Some(side) {
                *v += worth[side.index()][at.index()];
            }
        }
    }
    for u in state.unit_ids() {
        let unit = state.unit(u);
        if let muster_core::game::Place::Board(_) = unit.place {
            let f = unit_force(module, state, u, 0.0);
            per_side[unit.side.index()] += STEP * f.steps * (0.5 + FIRE * f.hits_per_round);
        }
    }
    // A condition counted in steps (need 2 or more) weighs more the nearer it is (most
    // when met but not yet ending the game, as with AHD's 10.1); a yes-or-no one only
    // counts when met, which ends the game.
    for p in rules.victory_progress(View { module, state })? {
        let gap = p.need - p.have;
        if p.need >= 2.0 {
            per_side[p.side.index()] += NEAR * NEAR_FADE.powf(gap.max(0.0));
        }
    }
    let mut value = 0.0;
    for side in module.side_ids() {
        let v = per_side[side.index()];
        value += if side == me { v } else { -v / enemies };
    }
    Ok(value
        + match state.outcome.as_ref().and_then(|o| o.winner) {
            Some(w) if w == me => WIN,
            Some(_) => -WIN,
            None => 0.0,
        })
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

#[cfg(test)]
mod tests {
    use super::{
        HORIZON, OPENING_BUDGET, OPENING_HORIZON, Root, SearchConfig, SearchPlayer,
        before_the_dice, choose, hopeless, mix, rollout, share,
    };
    use crate::planner::Planner;
    use muster_core::game::{Dice, GameState, decider, start};
    use muster_core::ids::TurnId;
    use muster_scripting::{Limits, ScriptRules};
    use std::sync::Arc;

    /// What a candidate plays before the dice is played once and each rollout goes on
    /// from a copy on its own dice: every rollout must come out as played from the root
    /// (the strength figures were measured on those games). At the Union's first march
    /// of 1861 (seed 3, two marches), the rest of the segment rolls no dice.
    #[test]
    fn a_rollout_from_before_the_dice_is_the_one_played_from_the_root() {
        let root_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd");
        let module = muster_core::load_module(root_dir).unwrap_or_else(|e| panic!("{e}"));
        let mut rules =
            ScriptRules::load(&module, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        let scenario = module.scenario("1861").expect("1861");
        let mut state = start(&module, &mut rules, scenario, Vec::new(), Dice::seeded(3))
            .expect("starts")
            .0;
        let mut ai = Planner::new(crate::planner::Style::ai());
        while !Planner::is_march_decision(&module, &state) {
            let a = ai.choose_on(&module, &mut rules, &state).expect("a choice");
            state = muster_core::game::apply_unlogged(&module, &mut rules, &state, &a)
                .expect("applies");
        }
        let me = decider(&module, &state);
        let mut player = SearchPlayer::new(SearchConfig::new(8), 3);
        let candidates = player
            .candidates(&module, &mut rules, &state, me)
            .expect("candidates");
        assert!(candidates.len() > 2, "{candidates:?}");
        let root = Root {
            state: &state,
            me,
            worth: player
                .recall
                .worth(&module, &mut rules, &state)
                .expect("worth"),
            avoided: player.inner.avoided(&state),
            horizon: HORIZON,
            dist: player.inner.distances(&module),
            recall: Arc::clone(&player.recall),
        };
        let mut shared = 0;
        for c in &candidates {
            let from = before_the_dice(&module, &mut rules, &root, c);
            let w = from.as_ref().expect("nothing rolls before the dice");
            assert_eq!(w.s.dice, Dice::seeded(0), "the dice untouched");
            shared += w.actions;
            for r in 0..3 {
                let seed = mix(r);
                let whole = rollout(&module, &mut rules, &root, c, None, seed).expect("rolls");
                let on =
                    rollout(&module, &mut rules, &root, c, from.as_ref(), seed).expect("rolls");
                assert_eq!(
                    whole.to_bits(),
                    on.to_bits(),
                    "candidate {c:?}, rollout {r}"
                );
            }
        }
        // The planners' marches after the candidate's were played once.
        assert!(shared > 0);
    }

    /// The opening counts turns from the scenario's start, whatever turn of the
    /// calendar that is (AHD's 1863 scenario starts in 04/1863, not the first turn).
    #[test]
    fn the_opening_is_the_scenarios_first_turns() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd");
        let module = muster_core::load_module(root).unwrap();
        let scenario = module.scenario("1863").unwrap();
        let mut state = GameState::new(&module, scenario, Vec::new(), Dice::seeded(1)).unwrap();
        assert!(state.first_turn.0 > 0);
        let config = SearchConfig {
            opening: 2,
            ..SearchConfig::new(10)
        };
        let plain = SearchConfig::new(10);
        for (later, in_opening) in [(0, true), (1, true), (2, false), (30, false)] {
            state.turn = TurnId(state.first_turn.0 + later);
            let (budget, horizon) = if in_opening {
                (10 * OPENING_BUDGET as usize, OPENING_HORIZON)
            } else {
                (10, HORIZON)
            };
            assert_eq!(config.budget_at(&state), budget, "turn {later}");
            assert_eq!(config.horizon_at(&state), horizon, "turn {later}");
            assert_eq!(plain.budget_at(&state), 10);
            assert_eq!(plain.horizon_at(&state), HORIZON);
        }
    }

    /// A player turn's marches share its pool (issue 48, the slow turns): the first
    /// march is searched in full, later ones on half of what is left, never below a
    /// quarter of the budget; what a race leaves unplayed stays for the later marches.
    #[test]
    fn a_player_turns_marches_share_its_pool() {
        let budget = 72;
        let mut left = 2 * budget;
        let mut spent = Vec::new();
        // Six marches each playing all they may.
        for _ in 0..6 {
            let n = share(left, budget);
            spent.push(n);
            left -= n.min(left);
        }
        assert_eq!(spent, [72, 36, 18, 18, 18, 18]);
        // The race played only 35 of the first march's 72 (every other candidate out at
        // half time): the second gets half of the 109 left, not of 72.
        let left = 2 * budget - 35;
        assert_eq!(share(left, budget), 54);
        // An empty pool still searches a little; a budget of one stays one.
        assert_eq!(share(0, budget), 18);
        assert_eq!(share(0, 1), 1);
        assert_eq!(share(1_000, 1), 1);
    }

    /// Without a pool every march plays its budget. With one, the pool is the player
    /// turn's: a new player turn (the enemy's, or mine the next game turn) starts a full
    /// one, and in the opening each budget in it is three times as large.
    #[test]
    fn each_player_turn_has_its_own_pool() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd");
        let module = muster_core::load_module(root).unwrap();
        let scenario = module.scenario("1861").unwrap();
        let mut state = GameState::new(&module, scenario, Vec::new(), Dice::seeded(1)).unwrap();
        // By default there is no pool: every march its whole budget.
        let mut plain = SearchPlayer::new(SearchConfig::new(72), 1);
        for _ in 0..6 {
            assert_eq!(plain.allowance(&state), 72);
            plain.spend(72);
        }
        let pooled = SearchConfig {
            pool: Some(2),
            ..SearchConfig::new(72)
        };
        let mut player = SearchPlayer::new(pooled.clone(), 1);
        assert_eq!(player.allowance(&state), 72);
        player.spend(72);
        assert_eq!(player.allowance(&state), 36);
        player.spend(30);
        assert_eq!(player.allowance(&state), 21);
        state.player += 1;
        assert_eq!(player.allowance(&state), 72);
        player.spend(72);
        state.player -= 1;
        state.turn = TurnId(state.turn.0 + 1);
        assert_eq!(player.allowance(&state), 72);
        player.spend(72);
        assert_eq!(player.allowance(&state), 36);
        // In the opening each march's budget is three times as large, and so the pool.
        let mut opening = SearchPlayer::new(
            SearchConfig {
                opening: 1,
                ..pooled
            },
            1,
        );
        state.turn = state.first_turn;
        assert_eq!(opening.allowance(&state), 72 * OPENING_BUDGET as usize);
        opening.spend(72 * OPENING_BUDGET as usize);
        assert_eq!(opening.allowance(&state), 36 * OPENING_BUDGET as usize);
    }

    #[test]
    fn the_planners_march_stands_unless_beaten_surely() {
        let base = [0.0; 4];
        // Better on every dice by 10: played.
        let v = |x: &[f64]| x.to_vec();
        assert_eq!(choose(&[v(&base), v(&[10.0; 4])], 4), 1);
        // As good on average, but only by luck: the planner's march stands.
        assert_eq!(choose(&[v(&base), v(&[10.0, -10.0, 10.0, -10.0])], 4), 0);
        // Better by less than the margin: stands.
        assert_eq!(choose(&[v(&base), v(&[0.5; 4])], 4), 0);
        // Of two that beat it, the surer.
        let two = [v(&base), v(&[10.0, 2.0, 10.0, 2.0]), v(&[5.0; 4])];
        assert_eq!(choose(&two, 4), 2);
        // One dropped at half time is never chosen, however good its first half.
        assert_eq!(choose(&[v(&base), v(&[50.0; 2])], 4), 0);
    }

    #[test]
    fn a_candidate_is_dropped_at_half_time_only_below_the_margin_on_average() {
        let base = [10.0, 20.0];
        // Worse, or better by less than the margin: out.
        assert!(hopeless(&[5.0, 20.0], &base));
        assert!(hopeless(&[10.5, 20.5], &base));
        // Behind on one dice, ahead by more on the other: still in.
        assert!(!hopeless(&[4.0, 30.0], &base));
        assert!(!hopeless(&[11.0, 21.0], &base));
    }
}
