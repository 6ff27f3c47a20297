//! The planning players (`greedy` and `ai`): one code path, two styles.
//!
//! Movement is planned a march at a time. To pick the box to activate, each candidate
//! box's units are given their real destinations (the engine's own search, so every
//! house rule applies) and assigned greedily to the best of three kinds of job: attack
//! an enemy-held box as a group (weighed by the chance to win), take an empty box (its
//! worth to both sides), or move toward the boxes worth most (a potential that decays
//! with distance). The best march is then played move by move from the plan. Battles,
//! promotions and recruits are chosen from the legal list by a score.

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::sync::Arc;

use muster_core::Module;
use muster_core::format::Procedure;
use muster_core::game::battle::Stage;
use muster_core::game::flow::procedure;
use muster_core::game::moves::{
    Destination, MoverKey, destinations, destinations_reading, max_path, mover_key, ready_units,
};
use muster_core::game::offer::offers;
use muster_core::game::placing;
use muster_core::game::rules::ask_int;
use muster_core::game::{
    Action, GameState, Knowledge, Path, Place, Question, RuleError, Rules, View, legal_actions,
};
use muster_core::ids::{BoxId, SideId, UnitId, UnitTypeId};

use crate::knowledge::{Distances, Force, Picture, mover_force, unit_force, win_chance};
use crate::player::{AiError, Player};
use crate::recall::{Mover, Recall, Where};

/// What distinguishes the levels.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Candidate boxes whose real moves are searched before activating one.
    pub candidates: usize,
    /// Weigh attacks by the chance to win (otherwise: attack when not outnumbered).
    pub odds: bool,
    /// Keep garrisons in threatened boxes worth something; avoid weak stacks next to
    /// strong enemies.
    pub defend: bool,
    /// Retreat from, reinforce and withdraw from battles when the odds say so.
    pub battle_sense: bool,
    /// Count leaving a box I stand in but do not yet control (with nothing left there)
    /// as losing its capture (the `strong` player's planner and rollouts).
    pub keep_captures: bool,
    /// A box worth this much to me is decisive and gets a garrison need (see
    /// [`DECISIVE`]); the `strong` player's guarded styles lower it.
    pub decisive: f64,
    /// Garrison steps kept in a decisive box per enemy step that could reach it (see
    /// [`GUARD_RATIO`]).
    pub guard: f64,
}

impl Style {
    pub fn greedy() -> Style {
        Style {
            candidates: 1,
            odds: false,
            defend: false,
            battle_sense: false,
            keep_captures: false,
            decisive: DECISIVE,
            guard: GUARD_RATIO,
        }
    }

    pub fn ai() -> Style {
        Style {
            candidates: 12,
            odds: true,
            defend: true,
            battle_sense: true,
            keep_captures: false,
            decisive: DECISIVE,
            guard: GUARD_RATIO,
        }
    }

    /// `ai`, keeping the boxes it is about to take (see `keep_captures`).
    pub fn strong() -> Style {
        Style {
            keep_captures: true,
            ..Style::ai()
        }
    }
}

/// How much the potential of far-off objectives fades per box of distance.
const DECAY: f64 = 0.55;
/// How much the chance of losing a box I leave weighs, per unit of its worth.
const LEAVE: f64 = 2.0;
/// Worth of a unit's fighting power, in recruitment-value units per step-hit.
const MATERIAL: f64 = 1.5;
/// A box worth this much to me (recruitment value plus the rules' `box_worth` hint, on
/// whose scale AHD gives Washington 12) is decisive: losing it may lose the game, so
/// its garrison is kept against everything the enemy could bring in one player turn.
const DECISIVE: f64 = 10.0;
/// Garrison steps kept per enemy step that could reach a decisive box: a defender
/// fighting from an entrenchment behind a water border holds against more than itself.
const GUARD_RATIO: f64 = 0.7;

/// Worth of a promotion, in material units per hit per round it adds per step.
const PROMOTION: f64 = 4.5;

/// How much of a capture's worth is discounted by the chance the enemy next door
/// takes it straight back.
const COUNTER: f64 = 0.6;

/// What each garrison step spared in a short decisive box elsewhere is worth, per unit
/// of its worth, when an attack beats the enemy that threatens it.
const RELIEF: f64 = 0.5;

#[derive(Clone)]
pub struct Planner {
    style: Style,
    /// The board's distances, built once (and shared with the search's rollouts).
    dist: Option<Arc<Distances>>,
    worth: crate::knowledge::WorthCache,
    /// The march being played: the box, the moves still to make.
    plan: VecDeque<Action>,
    plan_for: Option<(StepKey, i64, BoxId)>,
    /// Garrison steps each box needs (see [`DECISIVE`]), for one segment of one turn.
    needs: Option<((TurnKey, u8), Guard)>,
    /// Boxes not to activate in a segment (the search player's choice against them).
    tabu: Option<(StepKey, Vec<BoxId>)>,
    /// Answers shared with a search's other planners.
    recall: Option<Arc<Recall>>,
    /// Draws the samples of a position its seat does not see whole.
    samples: muster_core::game::dice::Pcg32,
    /// The seat it plays, where its side has others: it then chooses among the
    /// seat's own actions. `None`: the side's (one seat a side, and rollouts).
    seat: Option<muster_core::ids::SeatId>,
    /// The seat's own choices in the real game, where it does not see all of it
    /// ([`Player::shown`]): what it chooses among on a sample, so a choice never rests
    /// on an offer the sample only seems to make (the rules' counters, which no
    /// knowledge holds, limit offers once a turn). Set for one decision.
    shown: Option<Vec<Action>>,
}

type TurnKey = (muster_core::ids::TurnId, u8);
/// A step of a turn, repetitions apart: (turn, player, step, repetition).
type StepKey = (muster_core::ids::TurnId, u8, u8, u8);

/// What a box pulls my units with, before it fades with distance (see
/// [`Planner::potential`]).
#[derive(Clone, Copy)]
enum Pull {
    /// A box to take: its capture value.
    Capture(f64),
    /// A decisive box of mine short of its garrison.
    Short { worth: f64, short: f64, need: f64 },
    /// A threatened box of mine: its worth and the chance it falls as garrisoned now.
    Hold { worth: f64, lose: f64 },
}

/// [`DECAY`] to the power of each distance a pull reaches (0 to 8 boxes).
static FADE: std::sync::LazyLock<[f64; 9]> =
    std::sync::LazyLock::new(|| std::array::from_fn(|d| DECAY.powi(d as i32)));

/// Per-box figures computed once per decision: the enemy threat and the potential.
struct Field {
    threat: Vec<Force>,
    /// The boxes that pull, for [`Planner::potential`].
    pulls: Vec<(BoxId, Pull)>,
    /// Each box's potential, summed when first asked: a decision reads only the boxes
    /// its pieces stand in and may reach, and summing every box was a thirteenth of a
    /// search.
    potential: Vec<std::cell::OnceCell<f64>>,
    /// Garrison steps a decisive box of mine needs against the enemy's reach; 0 for
    /// other boxes.
    need: Vec<f64>,
    /// Where the enemy behind each need stands (see [`Guard`]).
    sources: Vec<(BoxId, BoxId, f64)>,
}

/// Garrison steps each box needs, and where the enemy steps behind each need stand:
/// `(enemy box, guarded box, garrison steps they call for)`, so that beating them
/// can be seen to lower it.
#[derive(Clone, Default)]
struct Guard {
    need: Vec<f64>,
    sources: Vec<(BoxId, BoxId, f64)>,
}

/// Garrison steps the enemy in `from` calls for in `guarded`.
fn called_for(sources: &[(BoxId, BoxId, f64)], from: BoxId, guarded: BoxId) -> f64 {
    sources
        .iter()
        .filter(|(f, g, _)| *f == from && *g == guarded)
        .map(|(_, _, s)| s)
        .sum()
}

/// A march's worth, its box and its moves.
pub(crate) type MarchPlan = (f64, BoxId, Vec<(UnitId, Path)>);

/// One job of a march plan.
struct Job {
    value: f64,
    moves: Vec<(UnitId, Path)>,
}

impl Planner {
    pub fn new(style: Style) -> Planner {
        Planner {
            style,
            dist: None,
            worth: None,
            plan: VecDeque::new(),
            plan_for: None,
            needs: None,
            tabu: None,
            recall: None,
            samples: muster_core::game::dice::Pcg32::new(0, 5),
            seat: None,
            shown: None,
        }
    }

    /// The actions it chooses among: its seat's where the side has several.
    fn legal(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Vec<Action>, RuleError> {
        if let Some(shown) = &self.shown {
            return Ok(shown.clone());
        }
        match self.seat {
            Some(seat) => muster_core::game::legal_actions_for(module, rules, state, seat),
            None => legal_actions(module, rules, state),
        }
    }

    /// The choices an offer must be among to be taken (see [`hinted_offer`]): the
    /// seat's where it is shown them or its side has several seats; `None` (any offer
    /// of the side) otherwise, at no cost.
    fn mine(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Option<Vec<Action>>, RuleError> {
        if self.shown.is_none() && self.seat.is_none() {
            return Ok(None);
        }
        self.legal(module, rules, state).map(Some)
    }

    /// The offer the hints value most among the seat's own (see [`hinted_offer`]).
    fn hinted(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Option<(f64, Action)>, AiError> {
        if !rules.answers("offer_worth") {
            return Ok(None);
        }
        let mine = self.mine(module, rules, state)?;
        hinted_offer(module, rules, state, mine.as_deref())
    }

    /// Plays for `seat` (see [`Planner::legal`]).
    pub(crate) fn seated(&mut self, module: &Module, seat: muster_core::ids::SeatId) {
        let shared = module
            .seat(seat)
            .side
            .is_some_and(|side| module.seats_of(side).nth(1).is_some());
        self.seat = shared.then_some(seat);
    }

    /// This planner with its samples of hidden positions drawn from `seed` (a game
    /// where every seat sees everything draws none).
    pub fn sampling(mut self, seed: u64) -> Planner {
        self.samples = muster_core::game::dice::Pcg32::new(seed, 5);
        self
    }

    /// Garrison steps each of my decisive boxes needs: [`GUARD_RATIO`] times the steps
    /// of every enemy unit that could enter it in the enemy's next player turn, read
    /// from the engine's own destinations (one march, then one box further for a second
    /// march). Kept for the segment it was computed in.
    fn needs(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        pic: &Picture,
    ) -> Result<Guard, RuleError> {
        let key = ((state.turn, state.player), state.step);
        if let Some((k, n)) = &self.needs
            && *k == key
        {
            return Ok(n.clone());
        }
        let n = module.board.boxes.len();
        let mut need = vec![0.0; n];
        let mut sources: Vec<(BoxId, BoxId, f64)> = Vec::new();
        if !self.style.defend {
            let guard = Guard {
                need,
                sources: Vec::new(),
            };
            self.needs = Some((key, guard.clone()));
            return Ok(guard);
        }
        let decisive: Vec<BoxId> = module
            .board
            .box_ids()
            .filter(|&b| {
                pic.worth[pic.me.index()][b.index()] >= self.style.decisive
                    && state.controller(b) == Some(pic.me)
            })
            .collect();
        if !decisive.is_empty() {
            let view = View { module, state };
            let recall = self.recall.clone();
            let mut alike = Alike::new(recall.as_deref());
            let mut reach = vec![false; n];
            // A destination is at most the search bound's lines away, and a box next to
            // a decisive one counts: enemies further from every decisive box are not
            // searched (their destinations could not count).
            let dist = self.distances(module);
            let within = max_path(module, state) + 1;
            for u in state.unit_ids() {
                let unit = state.unit(u);
                let Place::Board(from) = unit.place else {
                    continue;
                };
                // A formation's members threaten with it (`mover_force`), not alone.
                if unit.side == pic.me
                    || state.in_formation(module, u)
                    || decisive
                        .iter()
                        .all(|&x| usize::from(dist.get(from, x)) > within)
                {
                    continue;
                }
                reach.iter_mut().for_each(|r| *r = false);
                reach[from.index()] = true;
                for d in alike.destinations(view, rules, u)? {
                    reach[d.path.to().index()] = true;
                }
                let steps = mover_force(module, state, u).steps;
                for &x in &decisive {
                    let near = reach[x.index()]
                        || module
                            .board
                            .neighbours(x)
                            .iter()
                            .any(|(b, _)| reach[b.index()]);
                    if near {
                        let guard = steps * self.style.guard;
                        need[x.index()] += guard;
                        match sources.iter_mut().find(|(f, g, _)| *f == from && *g == x) {
                            Some(s) => s.2 += guard,
                            None => sources.push((from, x, guard)),
                        }
                    }
                }
            }
        }
        for &x in &decisive {
            tracing::debug!(
                "guard {}: need {:.1}, garrison {:.1}",
                module.board.get(x).name,
                need[x.index()],
                pic.own_force(x).steps
            );
        }
        let guard = Guard { need, sources };
        self.needs = Some((key, guard.clone()));
        Ok(guard)
    }

    fn picture(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<Picture, RuleError> {
        self.distances(module);
        if let Some(recall) = &self.recall {
            let key = (state.turn, state.player);
            if !matches!(&self.worth, Some((k, _)) if *k == key) {
                let worth = recall.worth(module, rules, state)?;
                self.worth = Some((key, worth.to_vec()));
            }
        }
        let recall = self.recall.clone();
        Picture::new(module, rules, state, me, &mut self.worth, recall.as_deref())
    }

    /// The board's distances, built on first use.
    pub(crate) fn distances(&mut self, module: &Module) -> Arc<Distances> {
        Arc::clone(
            self.dist
                .get_or_insert_with(|| Arc::new(Distances::new(module))),
        )
    }

    /// A planner of `style` using distances already built for this module, and the
    /// answers a search remembers.
    pub(crate) fn sharing(style: Style, dist: Arc<Distances>, recall: Arc<Recall>) -> Planner {
        Planner {
            dist: Some(dist),
            recall: Some(recall),
            ..Planner::new(style)
        }
    }

    /// Remember answers in `recall` (shared with a search's rollouts).
    pub(crate) fn recall(&mut self, recall: Arc<Recall>) {
        self.recall = Some(recall);
    }

    fn dist(&self) -> &Distances {
        self.dist.as_ref().expect("built by picture() before use")
    }

    /// Pull of a box on my units: the worth of the boxes I do not hold, fading with
    /// distance, plus (defending) my threatened boxes' need for a garrison.
    fn potential(&self, field: &Field, at: BoxId) -> f64 {
        *field.potential[at.index()].get_or_init(|| pull_on(&field.pulls, self.dist(), at))
    }

    /// The boxes that pull (see [`Planner::potential`]), in order, with what each pulls
    /// with before it fades. Most boxes pull with nothing, and every box's potential
    /// sums over these: listing only them makes that sum a fraction of the work.
    fn pulls(&self, state: &GameState, pic: &Picture, field: &Field) -> Vec<(BoxId, Pull)> {
        pic.worth[pic.me.index()]
            .iter()
            .enumerate()
            .filter_map(|(i, &w)| {
                let b = BoxId(i as u16);
                let value = pic.capture_value(state, b);
                let need = field.need[i];
                let pull = if value > 0.0 {
                    Pull::Capture(value)
                } else if need > 0.0 {
                    // A decisive box short of its garrison pulls with the shortfall.
                    let short = (need - pic.own_force(b).steps).max(0.0);
                    Pull::Short {
                        worth: w,
                        short,
                        need,
                    }
                } else if self.style.defend && w > 0.0 && !field.threat[i].is_empty() {
                    // My box: pulls in proportion to the chance it falls as garrisoned now.
                    Pull::Hold {
                        worth: w,
                        lose: 1.0 - hold_chance(pic.own_force(b), field.threat[i]),
                    }
                } else {
                    return None;
                };
                Some((b, pull))
            })
            .collect()
    }

    /// Enemy force that could strike `at` next turn: what is in or next to it.
    fn threat(&self, pic: &Picture, at: BoxId) -> Force {
        let mut f = Force::default();
        for &b in self.dist().near(at) {
            f = f.plus(pic.enemy_force(b));
        }
        f
    }

    fn field(&self, state: &GameState, pic: &Picture, guard: Guard) -> Field {
        let n = pic.worth[0].len();
        let threat = (0..n).map(|i| self.threat(pic, BoxId(i as u16))).collect();
        let mut field = Field {
            threat,
            pulls: Vec::new(),
            potential: vec![std::cell::OnceCell::new(); n],
            need: guard.need,
            sources: guard.sources,
        };
        field.pulls = self.pulls(state, pic, &field);
        field
    }

    /// What leaving `at` with `leaving` costs: the drop in the chance that what stays
    /// holds against the threat (which an attack next door may lessen), by the box's
    /// worth, and for a decisive box each step its garrison falls short of `need`, by
    /// the box's worth (which does not fade when the garrison is hopeless anyway). The
    /// need is given before and after the job: an attack may beat what calls for it.
    /// Nothing when not defending or nothing threatens a box of worth.
    fn leave_cost(
        &self,
        worth: f64,
        (need, need_after): (f64, f64),
        staying: Force,
        leaving: Force,
        threat: Force,
        threat_after: Force,
    ) -> f64 {
        if !self.style.defend || worth <= 0.0 {
            return 0.0;
        }
        let after = staying.minus(leaving);
        let mut cost = 0.0;
        if need > 0.0 {
            let short = |need: f64, f: Force| (need - f.steps).max(0.0);
            cost += (short(need_after, after) - short(need, staying)) * worth;
        }
        if !threat.is_empty() {
            cost +=
                (hold_chance(staying, threat) - hold_chance(after, threat_after)) * worth * LEAVE;
        }
        cost
    }

    fn attack_chance(&self, mine: Force, theirs: Force, entrenched: bool) -> f64 {
        let theirs = scale_entrenched(theirs, entrenched);
        if self.style.odds {
            win_chance(mine, theirs)
        } else if mine.steps >= theirs.steps {
            1.0
        } else {
            0.0
        }
    }

    /// The best plan for a march from `at` with these units and their destinations.
    fn plan_march(
        &self,
        module: &Module,
        state: &GameState,
        pic: &Picture,
        field: &Field,
        at: BoxId,
        options: &[(UnitId, Vec<Path>)],
    ) -> (f64, Vec<(UnitId, Path)>) {
        let mut free: Vec<usize> = (0..options.len()).collect();
        let mut total = 0.0;
        let mut moves = Vec::new();
        let mut arriving: Vec<(BoxId, Force)> = Vec::new();
        let arrived = |arriving: &Vec<(BoxId, Force)>, b: BoxId| {
            arriving
                .iter()
                .filter(|(x, _)| *x == b)
                .fold(Force::default(), |f, (_, g)| f.plus(*g))
        };
        let here_worth = pic.worth[pic.me.index()][at.index()];
        let threat_here = if self.style.defend {
            field.threat[at.index()]
        } else {
            Force::default()
        };
        let need_here = field.need[at.index()];
        let mut staying = pic.own_force(at);
        let pot_here = self.potential(field, at);
        // What leaving the box empty gives up, when I stand in it without holding it.
        let pending = if self.style.keep_captures {
            pic.capture_value(state, at)
        } else {
            0.0
        };
        let forfeit = |left: Force| {
            if pending > 0.0 && left.steps <= 0.0 {
                pending
            } else {
                0.0
            }
        };
        loop {
            let mut best: Option<Job> = None;
            // Jobs for single units: take an empty box, or move toward objectives.
            for &i in &free {
                let (u, paths) = &options[i];
                let f = mover_force(module, state, *u);
                let leave_cost = self.leave_cost(
                    here_worth,
                    (need_here, need_here),
                    staying,
                    f,
                    threat_here,
                    threat_here,
                );
                for p in paths {
                    let to = p.to();
                    let enemy = pic.enemy_force(to);
                    let value = if !enemy.is_empty() {
                        continue; // attacks are group jobs
                    } else {
                        let capture = if arrived(&arriving, to).is_empty() {
                            pic.capture_value(state, to)
                        } else {
                            0.0
                        };
                        let mut v = capture + (self.potential(field, to) - pot_here) * 0.3;
                        let need = field.need[to.index()];
                        if need > 0.0 && to != at {
                            // Garrisoning a decisive box that is short.
                            let there = pic.own_force(to).plus(arrived(&arriving, to));
                            let short = (need - there.steps).max(0.0);
                            v += short.min(f.steps) * pic.worth[pic.me.index()][to.index()] * 0.5;
                        }
                        if self.style.defend {
                            let threat = field.threat[to.index()];
                            let mine = pic.own_force(to).plus(arrived(&arriving, to)).plus(f);
                            let danger = 1.0 - win_chance(mine, threat);
                            v -= danger * f.steps * MATERIAL * 0.5;
                        }
                        if went_from(state, *u, to) {
                            v -= 2.0; // no marching back and forth
                        }
                        v - leave_cost - forfeit(staying.minus(f)) - 0.05 * p.steps.len() as f64
                    };
                    if best.as_ref().is_none_or(|b| value > b.value) {
                        best = Some(Job {
                            value,
                            moves: vec![(*u, p.clone())],
                        });
                    }
                }
            }
            // Group jobs: attack an enemy-held box with the units that can reach it,
            // strongest first, as many as make the attack worth most.
            let mut targets: Vec<BoxId> = Vec::new();
            for &i in &free {
                for p in &options[i].1 {
                    let to = p.to();
                    if !pic.enemy_force(to).is_empty() && !targets.contains(&to) {
                        targets.push(to);
                    }
                }
            }
            for to in targets {
                let enemy = pic.enemy_force(to);
                let entrenched = pic.enemy_entrenched(to);
                let capture = pic.capture_value(state, to);
                // What else of the enemy's could strike the box once it is mine.
                let counter = if self.style.defend {
                    let t = field.threat[to.index()].minus(enemy);
                    Force {
                        hits_per_round: t.hits_per_round.max(0.0),
                        steps: t.steps.max(0.0),
                    }
                } else {
                    Force::default()
                };
                let mut group: Vec<(usize, Force, &Path)> = free
                    .iter()
                    .filter_map(|&i| {
                        let (u, paths) = &options[i];
                        paths
                            .iter()
                            .find(|p| p.to() == to)
                            .map(|p| (i, mover_force(module, state, *u), p))
                    })
                    .collect();
                group.sort_by(|a, b| b.1.hits_per_round.total_cmp(&a.1.hits_per_round));
                let mut force = pic.own_force(to).plus(arrived(&arriving, to));
                // Units already sent here by an earlier job: more of them only add
                // to its chance (for `ai`; `greedy` counts the prize again).
                let p_before = if self.style.defend && !force.is_empty() {
                    self.attack_chance(force, enemy, entrenched)
                } else {
                    0.0
                };
                let mut committed = Force::default();
                let mut best_here: Option<(f64, usize)> = None;
                for (k, (_, f, _)) in group.iter().enumerate() {
                    force = force.plus(*f);
                    committed = committed.plus(*f);
                    let p = self.attack_chance(force, enemy, entrenched);
                    // Beating the enemy next door removes its threat.
                    let threat_after = if self.dist().get(at, to) <= 1 {
                        Force {
                            hits_per_round: (threat_here.hits_per_round - enemy.hits_per_round * p)
                                .max(0.0),
                            steps: (threat_here.steps - enemy.steps * p).max(0.0),
                        }
                    } else {
                        threat_here
                    };
                    // Beating the enemy that calls for garrisons lowers those needs: here,
                    // and in the decisive boxes it threatens that are short.
                    let called = called_for(&field.sources, to, at);
                    let need_before = (need_here - p_before * called).max(0.0);
                    let need_after = (need_here - p * called).max(0.0);
                    let relief: f64 = field
                        .sources
                        .iter()
                        .filter(|(f, g, _)| *f == to && *g != at)
                        .map(|&(_, g, s)| {
                            let there = pic.own_force(g).plus(arrived(&arriving, g));
                            let short = (field.need[g.index()] - there.steps).max(0.0);
                            s.min(short) * pic.worth[pic.me.index()][g.index()] * RELIEF
                        })
                        .sum();
                    let leave_cost = self.leave_cost(
                        here_worth,
                        (need_before, need_after),
                        staying,
                        committed,
                        threat_here,
                        threat_after,
                    );
                    // A box taken next to a stronger enemy is likely lost again, and
                    // the units in it with it.
                    let lost = if counter.is_empty() {
                        0.0
                    } else {
                        win_chance(counter, force)
                    };
                    let prize = capture * (1.0 - COUNTER * lost) + enemy.steps * MATERIAL
                        - lost * committed.steps * MATERIAL * 0.5;
                    let value = (p - p_before) * (prize + relief)
                        - (1.0 - p) * committed.steps * MATERIAL
                        - leave_cost
                        - forfeit(staying.minus(committed))
                        - 0.2 * (k as f64 + 1.0);
                    if best_here.is_none_or(|(v, _)| value > v) {
                        best_here = Some((value, k + 1));
                    }
                }
                if let Some((value, n)) = best_here
                    && best.as_ref().is_none_or(|b| value > b.value)
                {
                    best = Some(Job {
                        value,
                        moves: group[..n]
                            .iter()
                            .map(|(i, _, p)| (options[*i].0, (*p).clone()))
                            .collect(),
                    });
                }
            }
            let Some(job) = best.filter(|j| j.value > 0.0) else {
                break;
            };
            total += job.value;
            for (u, p) in job.moves {
                let f = mover_force(module, state, u);
                arriving.push((p.to(), f));
                staying = staying.minus(f);
                free.retain(|&i| options[i].0 != u);
                moves.push((u, p));
            }
        }
        (total, moves)
    }

    /// The units of `at` that may march now, with their destinations (searched through
    /// `alike`, for this state).
    fn march_options(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
        at: BoxId,
        alike: &mut Alike<'_>,
    ) -> Result<Vec<(UnitId, Vec<Path>)>, RuleError> {
        let view = View { module, state };
        let mut out = Vec::new();
        for u in ready_units(view, rules, at, me)? {
            // Where the side has several seats, only the seat's own pieces: another
            // commander's corps in the box is his to move (seed 001 §2).
            if let Some(seat) = self.seat
                && !muster_core::game::seats::commands(module, rules, state, seat, u)?
            {
                continue;
            }
            let paths = alike
                .destinations(view, rules, u)?
                .iter()
                .map(|d| d.path.clone())
                .collect();
            out.push((u, paths));
        }
        Ok(out)
    }

    /// A first guess at how much a march from `at` could achieve, without searching
    /// paths: the best capture or attack within two boxes, for the box's force.
    fn prior(&self, state: &GameState, pic: &Picture, field: &Field, at: BoxId) -> f64 {
        let dist = self.dist();
        let mine = pic.own_force(at);
        let mut best: f64 = 0.0;
        for i in 0..pic.worth[0].len() {
            let b = BoxId(i as u16);
            let d = dist.get(at, b);
            if d == 0 || d > 2 {
                continue;
            }
            let enemy = pic.enemy_force(b);
            let v = if enemy.is_empty() {
                pic.capture_value(state, b)
            } else {
                let p = self.attack_chance(mine, enemy, pic.enemy_entrenched(b));
                p * (pic.capture_value(state, b) + enemy.steps * MATERIAL)
                    - (1.0 - p) * mine.steps * MATERIAL
            };
            best = best.max(v / f64::from(d));
            let need = field.need[i];
            if need > 0.0 {
                // Units here could help garrison a decisive box that is short.
                let short = (need - pic.own_force(b).steps).max(0.0);
                let help = short.min(mine.steps) * pic.worth[pic.me.index()][i] * 0.5;
                best = best.max(help / f64::from(d));
            }
        }
        best + self.potential(field, at) * 0.01 + mine.steps * 0.01
    }

    fn movement(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<Action, AiError> {
        let Some(seg) = &state.moving else {
            return first_legal(module, rules, state);
        };
        if muster_core::game::activation::by_piece(module, state) {
            return by_piece(module, rules, state);
        }
        let key = (state.turn, state.player, state.step, state.repeat);
        let left = state.step_left(module);
        if let Some(a) = &seg.active {
            if self.plan_for != Some((key, left, a.at)) {
                // Activated by someone else's plan (or a refused one): plan it now.
                let pic = self.picture(module, rules, state, me)?;
                let recall = self.recall.clone();
                let mut alike = Alike::new(recall.as_deref());
                let options = self.march_options(module, rules, state, me, a.at, &mut alike)?;
                let ready: Vec<_> = options
                    .into_iter()
                    .filter(|(u, _)| a.ready.contains(u))
                    .collect();
                let need = self.needs(module, rules, state, &pic)?;
                let field = self.field(state, &pic, need);
                let (_, moves) = self.plan_march(module, state, &pic, &field, a.at, &ready);
                self.plan = moves
                    .into_iter()
                    .map(|(unit, path)| Action::Move { unit, path })
                    .collect();
                self.plan_for = Some((key, left, a.at));
            }
            if let Some(next) = self.plan.pop_front() {
                return Ok(next);
            }
            if let Some(drop) = self.garrison(module, rules, state, me)? {
                return Ok(drop);
            }
            let hinted = self.hinted(module, rules, state)?;
            return Ok(hinted.map_or(Action::Release, |(_, a)| a));
        }
        Ok(self.choose_march(module, rules, state, me)?.0)
    }

    /// Once a march has moved, a garrison its formations leave on the way (seed 001
    /// §6.23) where a box of mine is worth holding and the march left it short: the
    /// box's garrison need (see [`Planner::needs`]) above what stands there, or nothing
    /// standing in a decisive box. The smallest member that covers the need (fewest
    /// combatant pieces, then the lowest ids: deterministic); none in a module without
    /// formations or for a player that does not defend.
    fn garrison(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<Option<Action>, AiError> {
        if !self.style.defend || !module.units.types.iter().any(|t| t.is_formation()) {
            return Ok(None);
        }
        let drops: Vec<(UnitId, BoxId)> = self
            .legal(module, rules, state)?
            .into_iter()
            .filter_map(|a| match a {
                Action::Drop { unit, at } => Some((unit, at)),
                _ => None,
            })
            .collect();
        if drops.is_empty() {
            return Ok(None);
        }
        let pic = self.picture(module, rules, state, me)?;
        let guard = self.needs(module, rules, state, &pic)?;
        let standing = |at: BoxId| -> f64 {
            state
                .units_at(at)
                .filter(|&u| state.unit(u).side == me)
                .map(|u| unit_force(module, state, u, 0.0).steps)
                .sum()
        };
        let strength = |u: UnitId| -> f64 {
            std::iter::once(u)
                .chain(state.all_members(u))
                .map(|x| unit_force(module, state, x, 0.0).steps)
                .sum()
        };
        let mut best: Option<(u32, UnitId, BoxId)> = None;
        for (unit, at) in drops {
            let here = standing(at);
            let short = guard.need[at.index()] - here;
            let decisive = pic.worth[me.index()][at.index()] >= self.style.decisive
                && state.controller(at) == Some(me);
            let wanted = short > 0.0 || (decisive && here <= 0.0);
            if !wanted || strength(unit) <= 0.0 {
                continue;
            }
            let size = state.held_count(module, unit) + 1;
            if best.is_none_or(|(n, u, b)| (size, unit, at) < (n, u, b)) {
                best = Some((size, unit, at));
            }
        }
        Ok(best.map(|(_, unit, at)| Action::Drop { unit, at }))
    }

    /// The march decision in front of `me` (no march active): the box to activate (its
    /// moves then planned), an offer or the end of the step; with the plans it weighed
    /// (see [`Planner::march_plans`]), which the search player weighs again.
    pub(crate) fn choose_march(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<(Action, Vec<MarchPlan>), AiError> {
        let key = (state.turn, state.player, state.step, state.repeat);
        let left = state.step_left(module);
        self.plan.clear();
        self.plan_for = None;
        // What the rules' hints say an offer is worth, against the best march below.
        let hinted = self.hinted(module, rules, state)?;
        if left <= 0 {
            return Ok((hinted.map_or(Action::EndStep, |(_, a)| a), Vec::new()));
        }
        let plans = self.march_plans(module, rules, state, me)?;
        let mut best: Option<&MarchPlan> = None;
        for plan in &plans {
            if best.is_none_or(|x| plan.0 > x.0) {
                best = Some(plan);
            }
        }
        let action = match best {
            Some((value, at, moves))
                if *value > 0.2 && hinted.as_ref().is_none_or(|(w, _)| value >= w) =>
            {
                self.plan = moves
                    .iter()
                    .map(|(unit, path)| Action::Move {
                        unit: *unit,
                        path: path.clone(),
                    })
                    .collect();
                self.plan_for = Some((key, left - 1, *at));
                Action::Select { at: *at }
            }
            _ => hinted.map_or(Action::EndStep, |(_, a)| a),
        };
        Ok((action, plans))
    }

    /// The plans of the march decision in front of `me`: one per candidate box searched
    /// (those with units that may still march, best first guess first), in the order
    /// searched, leaving out plans that move nothing. The planner activates the first
    /// of the highest worth; the search player weighs several.
    pub(crate) fn march_plans(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<Vec<MarchPlan>, AiError> {
        let pic = self.picture(module, rules, state, me)?;
        let need = self.needs(module, rules, state, &pic)?;
        let field = self.field(state, &pic, need);
        // Boxes with units that may still march, best first guess first.
        let mut boxes: Vec<(f64, BoxId)> = Vec::new();
        for b in module.board.box_ids() {
            if !pic.own_force(b).is_empty() {
                boxes.push((self.prior(state, &pic, &field, b), b));
            }
        }
        boxes.sort_by(|x, y| y.0.total_cmp(&x.0));
        let key = (state.turn, state.player, state.step, state.repeat);
        if let Some((k, tabu)) = &self.tabu
            && *k == key
        {
            boxes.retain(|(_, b)| !tabu.contains(b));
        }
        let mut plans = Vec::new();
        let mut searched = 0;
        let recall = self.recall.clone();
        let mut alike = Alike::new(recall.as_deref());
        for (_, b) in boxes {
            if searched >= self.style.candidates {
                break;
            }
            let options = self.march_options(module, rules, state, me, b, &mut alike)?;
            if options.is_empty() {
                continue;
            }
            searched += 1;
            let (value, moves) = self.plan_march(module, state, &pic, &field, b, &options);
            if !moves.is_empty() {
                plans.push((value, b, moves));
            }
        }
        Ok(plans)
    }

    /// Never activates these boxes again in the segment under way in `state`.
    pub(crate) fn avoid(&mut self, state: &GameState, boxes: &[BoxId]) {
        let key = (state.turn, state.player, state.step, state.repeat);
        match &mut self.tabu {
            Some((k, tabu)) if *k == key => {
                for b in boxes {
                    if !tabu.contains(b) {
                        tabu.push(*b);
                    }
                }
            }
            _ => self.tabu = Some((key, boxes.to_vec())),
        }
    }

    /// The boxes it will not activate in the segment under way in `state`.
    pub(crate) fn avoided(&self, state: &GameState) -> Vec<BoxId> {
        let key = (state.turn, state.player, state.step, state.repeat);
        match &self.tabu {
            Some((k, tabu)) if *k == key => tabu.clone(),
            _ => Vec::new(),
        }
    }

    /// The moves still to make of the march being played, in order.
    pub(crate) fn planned(&self) -> Vec<Action> {
        self.plan.iter().cloned().collect()
    }

    /// Whether `state` asks its decider to choose a march (a box to activate, an offer or
    /// the end of the step) with marches left: the decisions the search player weighs.
    pub(crate) fn is_march_decision(module: &Module, state: &GameState) -> bool {
        state.waiting.is_empty()
            && matches!(procedure(module, state), Some(Procedure::Move))
            && state.combat.as_ref().is_none_or(|c| c.battle.is_none())
            && state.moving.as_ref().is_some_and(|m| m.active.is_none())
            && state.step_left(module) > 0
            && !muster_core::game::activation::by_piece(module, state)
    }

    fn battle(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<Action, AiError> {
        // The legal list is made only where a choice is read off it: most retreat and
        // reinforcement decisions are a pass, always open, decided before any list.
        let Some(b) = state.combat.as_ref().and_then(|c| c.battle.as_ref()) else {
            return first_legal(module, rules, state);
        };
        match b.stage {
            Stage::Target => {
                let legal = self.legal(module, rules, state)?;
                let Some(Action::Target { shooter, .. }) = legal.first() else {
                    return legal.into_iter().next().ok_or(AiError::Stuck);
                };
                let shooter = *shooter;
                let targets: Vec<UnitId> = legal
                    .iter()
                    .filter_map(|a| match a {
                        Action::Target { target, .. } => Some(*target),
                        _ => None,
                    })
                    .collect();
                let target = crate::battle::choose_target(module, rules, state, shooter, &targets)?;
                Ok(Action::Target { shooter, target })
            }
            // A battle by dice whose owner chooses his casualties: the cheapest piece
            // first, or a hit absorbed where that keeps the side's fire
            // (`loss_action`, as the odds calculator).
            Stage::Losses
                if state
                    .current_step(module)
                    .is_some_and(|s| s.resolve == muster_core::format::Resolve::Dice) =>
            {
                let legal = self.legal(module, rules, state)?;
                match crate::battle::loss_action(module, rules, state, &legal)? {
                    Some(action) => Ok(action),
                    None => first_legal(module, rules, state),
                }
            }
            // A battle the rules resolve: which piece takes the next loss, where the
            // side that yielded retreats (the first the rules allow).
            Stage::Losses | Stage::Rout => first_legal(module, rules, state),
            Stage::Upgrade => Ok(best_promotion(
                module,
                state,
                &self.legal(module, rules, state)?,
            )),
            Stage::Withdraw | Stage::Retreat => {
                if !self.style.battle_sense {
                    return Ok(Action::Pass);
                }
                let p = battle_chance(module, rules, state, b, me)?;
                let pic = self.picture(module, rules, state, me)?;
                // Staying on rather than going: the box (kept, or taken) if I win, the
                // enemy's pieces if I win, mine if I lose. The box counts both ways:
                // a defender who goes gives it up for sure.
                let (mine, theirs) = if me == b.attacker {
                    (&b.attackers, &b.defenders)
                } else {
                    (&b.defenders, &b.attackers)
                };
                let steps = |units: &[UnitId]| -> f64 {
                    units
                        .iter()
                        .map(|&u| unit_force(module, state, u, 0.0).steps)
                        .sum()
                };
                let stake = if me == b.attacker {
                    pic.capture_value(state, b.at)
                } else {
                    let enemy = b.attacker.index();
                    pic.worth[me.index()][b.at.index()] + pic.worth[enemy][b.at.index()]
                };
                // A battle's winner may promote a piece (AHD 6.0; read from the
                // pieces' `promotes-to`), and one who goes loses the battle: staying
                // also gives my promotion its chance and the enemy's a chance to fail.
                let promotion = |units: &[UnitId]| -> f64 {
                    units
                        .iter()
                        .map(|&u| promotion_gain(module, state, u))
                        .fold(0.0, f64::max)
                };
                let stay = p
                    * (stake + steps(theirs) * MATERIAL + promotion(mine) + promotion(theirs))
                    - (1.0 - p) * steps(mine) * MATERIAL;
                tracing::debug!(
                    "stay or go at {}: p {p:.2}, stake {stake:.1}, stay {stay:.1}",
                    module.board.get(b.at).name
                );
                if stay < 0.0 {
                    let need = self.needs(module, rules, state, &pic)?;
                    let field = self.field(state, &pic, need);
                    let retreat = self
                        .legal(module, rules, state)?
                        .iter()
                        .filter_map(|a| match a {
                            Action::Retreat { to } => Some(*to),
                            _ => None,
                        })
                        .max_by(|x, y| {
                            let sx = pic.own_force(*x).steps - field.threat[x.index()].steps;
                            let sy = pic.own_force(*y).steps - field.threat[y.index()].steps;
                            sx.total_cmp(&sy)
                        });
                    if let Some(to) = retreat {
                        return Ok(Action::Retreat { to });
                    }
                }
                Ok(Action::Pass)
            }
            Stage::Reinforce => {
                if !self.style.battle_sense {
                    return Ok(Action::Pass);
                }
                if battle_chance(module, rules, state, b, me)? > 0.85 {
                    return Ok(Action::Pass);
                }
                let pic = self.picture(module, rules, state, me)?;
                let need = self.needs(module, rules, state, &pic)?;
                let field = self.field(state, &pic, need);
                // Bring in the strongest unit whose box is not left open to the enemy.
                let mut best: Option<(f64, UnitId)> = None;
                for a in &self.legal(module, rules, state)? {
                    let Action::Reinforce { unit } = a else {
                        continue;
                    };
                    let Place::Board(from) = state.unit(*unit).place else {
                        continue;
                    };
                    let f = unit_force(module, state, *unit, 0.0);
                    let left = pic.own_force(from).steps - f.steps;
                    let exposed = pic.worth[me.index()][from.index()] > 0.0
                        && left <= 0.0
                        && !field.threat[from.index()].is_empty();
                    let need = field.need[from.index()];
                    if exposed || (need > 0.0 && left < need) {
                        continue;
                    }
                    if best.is_none_or(|(v, _)| f.hits_per_round > v) {
                        best = Some((f.hits_per_round, *unit));
                    }
                }
                Ok(best.map_or(Action::Pass, |(_, unit)| Action::Reinforce { unit }))
            }
        }
    }

    fn recruit(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
    ) -> Result<Action, AiError> {
        let pic = self.picture(module, rules, state, me)?;
        let need = self.needs(module, rules, state, &pic)?;
        let field = self.field(state, &pic, need);
        let score = |kind: UnitTypeId, at: BoxId| {
            let t = module.units.get(kind);
            let unit_value = f64::from(t.combat) * f64::from(t.steps);
            let place = if self.style.defend {
                let threat = field.threat[at.index()];
                let need = threat.steps - pic.own_force(at).steps;
                let short = field.need[at.index()] - pic.own_force(at).steps;
                need.max(0.0) * pic.worth[me.index()][at.index()].max(1.0) * 0.5
                    + short.max(0.0) * pic.worth[me.index()][at.index()]
                    + self.potential(&field, at) * 0.1
            } else {
                self.potential(&field, at) * 0.1
            };
            unit_value * 10.0 + place
        };
        // The best placement the rules allow, found by asking about the placements
        // from the best down (a step's every placement asked about, before each
        // recruit, was a seventh of a search's work). What the whole list below would
        // choose: every other action scores 0 and comes after the placements, so a
        // placement scoring 0 or more is chosen, the first of the best in the list's
        // order (a stable sort keeps it).
        let mut ranked: Vec<(f64, (UnitTypeId, BoxId))> = placing::candidates(module, state)
            .into_iter()
            .map(|c| (score(c.0, c.1), c))
            .collect();
        if ranked.iter().all(|(s, _)| !s.is_nan()) {
            ranked.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal));
            for &(_, c) in ranked.iter().take_while(|(s, _)| *s >= 0.0) {
                if placing::allowed(module, rules, state, c)? {
                    return Ok(Action::Place { kind: c.0, at: c.1 });
                }
            }
        }
        let legal = self.legal(module, rules, state)?;
        let mut best: Option<(f64, &Action)> = None;
        for a in &legal {
            let score = match a {
                Action::Place { kind, at } => score(*kind, *at),
                _ => 0.0,
            };
            if best.is_none_or(|(v, _)| score > v) {
                best = Some((score, a));
            }
        }
        match best {
            Some((_, a @ Action::Place { .. })) => Ok(a.clone()),
            // Nothing to recruit: an offer the hints value, else what comes first; an
            // offer no hint values is declined where the step may end (DWF's
            // reorganisations and disbandings, listed since its places have a hint).
            other => match self.hinted(module, rules, state)? {
                Some((_, a)) => Ok(a),
                None => match other {
                    Some((_, Action::Take { .. })) if legal.contains(&Action::EndStep) => {
                        Ok(Action::EndStep)
                    }
                    other => other.map(|(_, a)| a.clone()).ok_or(AiError::Stuck),
                },
            },
        }
    }
}

/// The offer the rules' hints (`offer_worth`) value most, if one is worth taking, among
/// `mine` where given (a seat's own choices: another seat's offer, however worthwhile,
/// is one the game refuses it; a campaign's president chose his commanders'
/// entrenchments). Costs nothing when no rule gives the hint (the offers are not even
/// listed).
pub(crate) fn hinted_offer(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    mine: Option<&[Action]>,
) -> Result<Option<(f64, Action)>, AiError> {
    if !rules.answers("offer_worth") {
        return Ok(None);
    }
    let mut best: Option<(f64, Action)> = None;
    for o in offers(module, rules, state)? {
        let action = o.action();
        if mine.is_some_and(|mine| !mine.contains(&action)) {
            continue;
        }
        let w = ask_int(
            rules,
            View { module, state },
            Question::OfferWorth { offer: &o },
        )?
        .unwrap_or(0) as f64;
        if w > 0.0 && best.as_ref().is_none_or(|(b, _)| w > *b) {
            best = Some((w, action));
        }
    }
    Ok(best)
}

/// Whether the unit left `to` earlier this player turn.
fn went_from(state: &GameState, unit: UnitId, to: BoxId) -> bool {
    state
        .turn_log
        .moves
        .iter()
        .any(|m| m.unit == unit && m.path.from == to)
}

/// My estimated chance of winning the battle under way: the attackers' fire and steps
/// against the defenders' (see [`battle_fire`]).
fn battle_chance(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    b: &muster_core::game::battle::Battle,
    me: SideId,
) -> Result<f64, RuleError> {
    let attack = battle_fire(module, rules, state, b.attacker, &b.attackers, &b.defenders)?;
    let defence = battle_fire(module, rules, state, b.defender, &b.defenders, &b.attackers)?;
    let p = win_chance(attack, defence);
    Ok(if me == b.attacker { p } else { 1.0 - p })
}

/// The force of `shooters` in the battle under way, firing as `side` at `targets`:
/// their steps left, and the hits they deal per round, each shot's chance read from
/// its combat value and the rules' `ShotModifier` (AHD 5.3: entrenchment, a Crack
/// target, a river crossed), averaged over the targets. A guess from combat values
/// alone once made a Union garrison of Washington, entrenched behind the Potomac,
/// retreat from attackers whose Militia could not hit it at all, and lose the game.
fn battle_fire(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    side: SideId,
    shooters: &[UnitId],
    targets: &[UnitId],
) -> Result<Force, RuleError> {
    // The rules may read whose part of the round it is (AHD 5.34): ask as `side`.
    let mut firing;
    let state = match state.combat.as_ref().and_then(|c| c.battle.as_ref()) {
        Some(b) if b.firing != side => {
            firing = state.clone();
            if let Some(b) = firing.combat.as_mut().and_then(|c| c.battle.as_mut()) {
                b.firing = side;
            }
            &firing
        }
        _ => state,
    };
    let shots: Vec<(UnitId, UnitId)> = shooters
        .iter()
        .flat_map(|&s| targets.iter().map(move |&t| (s, t)))
        .collect();
    let needs = crate::battle::shots_need(module, rules, state, &shots)?;
    let mut force = Force::default();
    for (i, &s) in shooters.iter().enumerate() {
        let mut chance = 0.0;
        for &n in &needs[i * targets.len()..(i + 1) * targets.len()] {
            chance += crate::battle::hit_chance(n, module.dice);
        }
        let f = unit_force(module, state, s, 0.0);
        force = force.plus(Force {
            hits_per_round: chance / targets.len().max(1) as f64,
            steps: f.steps,
        });
    }
    Ok(force)
}

/// The sum [`Planner::potential`] gives `at`, fading each pull with its distance.
fn pull_on(pulls: &[(BoxId, Pull)], dist: &Distances, at: BoxId) -> f64 {
    let fades: &[f64; 9] = &FADE;
    let mut p = 0.0;
    for &(from, pull) in pulls {
        let d = dist.get(at, from);
        if d == u8::MAX || d > 8 {
            continue;
        }
        let fade = fades[usize::from(d)];
        p += match pull {
            Pull::Capture(value) => value * fade,
            Pull::Short { worth, short, need } => worth * fade * short / need,
            Pull::Hold { worth, lose } => worth * fade * lose,
        };
    }
    p
}

/// The chance a box garrisoned by `mine` holds against `threat` attacking it (the
/// defender usually fights from an entrenchment or behind a river: counted as half as
/// many steps again).
fn hold_chance(mine: Force, threat: Force) -> f64 {
    if mine.is_empty() || mine.hits_per_round <= 0.0 {
        return if threat.is_empty() { 1.0 } else { 0.0 };
    }
    1.0 - win_chance(threat, scale_entrenched(mine, true))
}

fn scale_entrenched(f: Force, entrenched: bool) -> Force {
    if entrenched {
        Force {
            hits_per_round: f.hits_per_round,
            steps: f.steps * 1.5,
        }
    } else {
        f
    }
}

/// What promoting `u` would add to its side, in material units: the hits per round its
/// promotion adds, over its steps.
fn promotion_gain(module: &Module, state: &GameState, u: UnitId) -> f64 {
    let unit = state.unit(u);
    let t = module.units.get(unit.kind);
    let Some(to) = t.promotes_to else {
        return 0.0;
    };
    let sides = f64::from(module.dice.max(1));
    let gain = (f64::from(module.units.get(to).combat) - f64::from(t.combat)).max(0.0) / sides;
    gain * f64::from(t.steps.max(1)) * PROMOTION
}

/// The promotion that gains most combat value; passing only when nothing may be.
fn best_promotion(module: &Module, state: &GameState, legal: &[Action]) -> Action {
    let mut best: Option<(i32, &Action)> = None;
    for a in legal {
        if let Action::Upgrade { unit } = a {
            let t = module.units.get(state.unit(*unit).kind);
            let gain = t
                .promotes_to
                .map(|p| i32::from(module.units.get(p).combat) - i32::from(t.combat))
                .unwrap_or(0)
                * 10
                + i32::from(t.combat);
            if best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, a));
            }
        }
    }
    best.map(|(_, a)| a.clone()).unwrap_or_else(|| {
        legal
            .iter()
            .find(|a| matches!(a, Action::Pass | Action::EndStep))
            .cloned()
            .unwrap_or(Action::Pass)
    })
}

/// A `move` step by piece (`activate="piece"`), played simply until the planner learns
/// legs: commit to a battle waiting; an activated piece picks up what it may for
/// nothing more than its first pick-up (a leader's stack), attacks a box it outnumbers
/// or else takes a leg chosen by the position (so pieces spread), then stops; with no
/// piece activated, activates the next one (each once a step), else ends the step.
fn by_piece(module: &Module, rules: &mut dyn Rules, state: &GameState) -> Result<Action, AiError> {
    let legal = legal_actions(module, rules, state)?;
    if let Some(a) = legal.iter().find(|a| matches!(a, Action::Fight { .. })) {
        return Ok(a.clone());
    }
    let spin = usize::from(state.turn.0) + usize::from(state.player);
    let Some(act) = muster_core::game::activation::current(state).cloned() else {
        let activations: Vec<&Action> = legal
            .iter()
            .filter(|a| matches!(a, Action::Activate { .. }))
            .collect();
        if !activations.is_empty() {
            return Ok(activations[spin % activations.len()].clone());
        }
        return legal.last().cloned().ok_or(AiError::Stuck);
    };
    if act.legs > 0 {
        return Ok(Action::Release);
    }
    let leader = !module.units.get(state.unit(act.unit).kind).combatant;
    if leader && let Some(a) = legal.iter().find(|a| matches!(a, Action::PickUp { .. })) {
        return Ok(a.clone());
    }
    let side = state.unit(act.unit).side;
    let strength = |at: BoxId, mine: bool| -> i64 {
        state
            .units_at(at)
            .filter(|&u| (state.unit(u).side == side) == mine)
            .map(|u| i64::from(module.units.get(state.unit(u).kind).combat))
            .sum()
    };
    let own: i64 = std::iter::once(act.unit)
        .chain(state.attached(act.unit))
        .map(|u| i64::from(module.units.get(state.unit(u).kind).combat))
        .sum();
    let moves: Vec<&Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Move { .. }))
        .collect();
    for a in &moves {
        if let Action::Move { path, .. } = a {
            let enemy = strength(path.to(), false);
            if enemy > 0 && own + strength(path.to(), true) > enemy {
                return Ok((*a).clone());
            }
        }
    }
    let calm: Vec<&&Action> = moves
        .iter()
        .filter(|a| matches!(a, Action::Move { path, .. } if strength(path.to(), false) == 0))
        .collect();
    if calm.is_empty() {
        return Ok(Action::Release);
    }
    Ok((*calm[(spin + act.unit.index()) % calm.len()]).clone())
}

fn first_legal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Action, AiError> {
    legal_actions(module, rules, state)?
        .into_iter()
        .next()
        .ok_or(AiError::Stuck)
}

impl Player for Planner {
    /// Plays on the game itself where the seat sees everything, else on one sample of
    /// what it knows (determinization: the loop checks the action on the real game).
    fn choose(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        knowledge: &Knowledge<'_>,
    ) -> Result<Action, AiError> {
        let seed = if knowledge.is_open() {
            0
        } else {
            u64::from(self.samples.next_u32()) << 32 | u64::from(self.samples.next_u32())
        };
        let state = knowledge.sample(module, seed);
        self.seated(module, knowledge.seat());
        let others = not_commanded(module, rules, &state, knowledge.seat())?;
        if !others.is_empty() {
            self.avoid(&state, &others);
        }
        let chosen = self.choose_on(module, rules, &state);
        self.shown = None;
        chosen
    }

    fn shown(&mut self, choices: &[Action]) {
        self.shown = Some(choices.to_vec());
    }

    fn forget(&mut self) {
        Planner::forget(self);
    }
}

/// Where a side has several seats and a box is to be chosen to move from: the boxes
/// the side could move from but `seat` may not (it commands none of their pieces), for
/// the planners not to plan marches there.
pub(crate) fn not_commanded(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: muster_core::ids::SeatId,
) -> Result<Vec<BoxId>, RuleError> {
    let shared = module
        .seat(seat)
        .side
        .is_some_and(|side| module.seats_of(side).nth(1).is_some());
    let choosing = state.moving.as_ref().is_some_and(|m| m.active.is_none());
    if !shared || !choosing {
        return Ok(Vec::new());
    }
    let selects = |actions: Vec<Action>| -> Vec<BoxId> {
        actions
            .into_iter()
            .filter_map(|a| match a {
                Action::Select { at } => Some(at),
                _ => None,
            })
            .collect()
    };
    let mine = selects(muster_core::game::legal_actions_for(
        module, rules, state, seat,
    )?);
    Ok(selects(legal_actions(module, rules, state)?)
        .into_iter()
        .filter(|b| !mine.contains(b))
        .collect())
}

impl Planner {
    /// The planner's choice in `state`, a whole position (the game, a sample of it, or
    /// a search's rollout).
    pub(crate) fn choose_on(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Action, AiError> {
        let me = muster_core::game::decider(module, state);
        if !state.waiting.is_empty() {
            return self.answer(module, rules, state);
        }
        if state.combat.as_ref().is_some_and(|c| c.battle.is_some()) {
            return self.battle(module, rules, state, me);
        }
        match procedure(module, state) {
            Some(Procedure::Move) => self.movement(module, rules, state, me),
            Some(Procedure::Place) => self.recruit(module, rules, state, me),
            Some(Procedure::Upgrade) => {
                let legal = self.legal(module, rules, state)?;
                match best_promotion(module, state, &legal) {
                    Action::EndStep => Ok(self
                        .hinted(module, rules, state)?
                        .map_or(Action::EndStep, |(_, a)| a)),
                    a => Ok(a),
                }
            }
            Some(Procedure::Script) => {
                if let Some((_, a)) = self.hinted(module, rules, state)? {
                    return Ok(a);
                }
                // A step the rules keep open until an offer is taken (`end_step_refusal`:
                // DWF's reinforcements waiting for their place): the first offered.
                let legal = self.legal(module, rules, state)?;
                if legal.contains(&Action::EndStep) {
                    Ok(Action::EndStep)
                } else {
                    legal.into_iter().next().ok_or(AiError::Stuck)
                }
            }
            Some(Procedure::Battles) => Ok(self
                .legal(module, rules, state)?
                .into_iter()
                .next()
                .ok_or(AiError::Stuck)?),
            None => Err(AiError::Stuck),
        }
    }

    /// An answer the rules wait for (`wait_for`): of the seat's choices, the offer the
    /// hints value most, else the first.
    fn answer(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Action, AiError> {
        let legal = self.legal(module, rules, state)?;
        if let Some((_, hinted)) = self.hinted(module, rules, state)?
            && legal.contains(&hinted)
        {
            return Ok(hinted);
        }
        legal.into_iter().next().ok_or(AiError::Stuck)
    }

    /// The seat's choices for the next decision on a sample ([`Player::shown`]); `None`
    /// after it.
    pub(crate) fn set_shown(&mut self, shown: Option<Vec<Action>>) {
        self.shown = shown;
    }

    /// Drops the march being played.
    pub fn forget(&mut self) {
        self.plan.clear();
        self.plan_for = None;
    }
}

/// Destinations searched once for each set of alike units ([`mover_key`]): a box's
/// pieces of one kind go where the first of them goes, so the search is not repeated;
/// and, in a search, once for each position ([`Recall`]).
struct Alike<'r> {
    found: Vec<(Option<MoverKey>, Arc<[Destination]>)>,
    recall: Option<&'r Recall>,
    /// The position's fingerprint, taken on the first look into `recall`.
    at: Option<u128>,
}

impl<'r> Alike<'r> {
    fn new(recall: Option<&'r Recall>) -> Self {
        Alike {
            found: Vec::new(),
            recall,
            at: None,
        }
    }

    fn destinations(
        &mut self,
        view: View<'_>,
        rules: &mut dyn Rules,
        u: UnitId,
    ) -> Result<&[Destination], RuleError> {
        let key = mover_key(view.state, u);
        let found = key
            .as_ref()
            .and_then(|k| self.found.iter().position(|(m, _)| m.as_ref() == Some(k)));
        let i = match found {
            Some(i) => i,
            None => {
                let d = match self.recall {
                    Some(recall) => {
                        let position = *self.at.get_or_insert_with(|| view.state.fingerprint());
                        let mover = match &key {
                            Some(k) => Mover::Alike(k.clone()),
                            None => Mover::Unit(u),
                        };
                        let at = (position, mover);
                        match recall.destinations(&at) {
                            Some(d) => d,
                            None => read_destinations(recall, view, rules, u, at)?,
                        }
                    }
                    None => destinations(view, rules, u)?.into(),
                };
                self.found.push((key, d));
                self.found.len() - 1
            }
        };
        Ok(&self.found[i].1)
    }
}

/// `u`'s destinations in the position `at` names: found in another position where what
/// their search read answers the same, or searched for (and kept both ways).
fn read_destinations(
    recall: &Recall,
    view: View<'_>,
    rules: &mut dyn Rules,
    u: UnitId,
    at: Where,
) -> Result<Arc<[Destination]>, RuleError> {
    let from = match view.state.unit(u).place {
        Place::Board(b) => Some((at.1.clone(), b, max_path(view.module, view.state))),
        _ => None,
    };
    if let Some(from) = &from
        && let Some(d) = recall.destinations_read(view.module, view.state, from)
    {
        recall.keep_destinations(at, Arc::clone(&d));
        return Ok(d);
    }
    let (found, reads) = destinations_reading(view, rules, u)?;
    let d: Arc<[Destination]> = found.into();
    if let (Some(from), Some(reads)) = (from, reads) {
        recall.keep_destinations_read(from, reads, Arc::clone(&d));
    }
    recall.keep_destinations(at, Arc::clone(&d));
    Ok(d)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use muster_core::game::{Answer, Asker, Command, Dice, Event, SharedReads, start};
    use muster_scripting::{Limits, ScriptRules};

    use super::*;

    /// AHD's rules, counting the questions asked of them.
    struct Counting {
        rules: ScriptRules,
        asked: Cell<usize>,
    }

    impl Rules for Counting {
        fn ask(&mut self, view: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
            self.asked.set(self.asked.get() + 1);
            self.rules.ask(view, q)
        }

        fn ask_each(
            &mut self,
            view: View<'_>,
            each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
        ) -> Result<(), RuleError> {
            let asked = &self.asked;
            self.rules
                .ask_each(view, &mut |ask| each(&mut CountingAsker { ask, asked }))
        }

        fn ask_each_reading(
            &mut self,
            view: View<'_>,
            each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
        ) -> Result<Option<SharedReads>, RuleError> {
            let asked = &self.asked;
            self.rules
                .ask_each_reading(view, &mut |ask| each(&mut CountingAsker { ask, asked }))
        }

        fn notify(
            &mut self,
            view: View<'_>,
            dice: &mut Dice,
            event: Event<'_>,
        ) -> Result<Vec<Command>, RuleError> {
            self.rules.notify(view, dice, event)
        }
    }

    struct CountingAsker<'a, 'b> {
        ask: &'a mut dyn Asker,
        asked: &'b Cell<usize>,
    }

    impl Asker for CountingAsker<'_, '_> {
        fn ask(&mut self, q: Question<'_>) -> Result<Answer, RuleError> {
            self.asked.set(self.asked.get() + 1);
            self.ask.ask(q)
        }
    }

    fn ahd() -> (Module, Counting) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd");
        let m = muster_core::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        let asked = Cell::new(0);
        (m, Counting { rules, asked })
    }

    /// Every 25th position of the first 500 actions of a random 1861 game.
    fn positions(m: &Module, rules: &mut dyn Rules) -> Vec<GameState> {
        let sc = m.scenario("1861").expect("1861");
        let mut state = start(m, rules, sc, Vec::new(), Dice::seeded(3))
            .expect("starts")
            .0;
        let mut random = crate::player::player(crate::Level::Random, 3);
        let mut out = Vec::new();
        for i in 0..500 {
            if state.outcome.is_some() {
                break;
            }
            if i % 25 == 0 {
                out.push(state.clone());
            }
            state = crate::player::step(random.as_mut(), m, rules, &state)
                .expect("a random step")
                .1;
        }
        out
    }

    fn on_board(state: &GameState) -> impl Iterator<Item = (UnitId, BoxId)> + '_ {
        state.unit_ids().filter_map(|u| match state.unit(u).place {
            Place::Board(b) => Some((u, b)),
            _ => None,
        })
    }

    #[test]
    fn recalled_destinations_are_the_rules_own_and_asked_once_per_position() {
        let (m, mut rules) = ahd();
        let recall = Recall::default();
        let states = positions(&m, &mut rules);
        assert!(states.len() >= 15, "{}", states.len());
        for state in &states {
            let view = View { module: &m, state };
            let mut first = Alike::new(Some(&recall));
            let mut seen = Vec::new();
            for (u, _) in on_board(state) {
                let found = first.destinations(view, &mut rules, u).expect("found");
                let own = destinations(view, &mut rules, u).expect("the rules' own");
                assert_eq!(found, &own[..], "unit {u:?}, turn {:?}", state.turn);
                seen.push(own);
            }
            // The same position on other dice: answered from memory, no question asked.
            let mut other = state.clone();
            other.dice = Dice::seeded(99);
            let view = View {
                module: &m,
                state: &other,
            };
            let mut again = Alike::new(Some(&recall));
            rules.asked.set(0);
            for ((u, _), own) in on_board(&other).zip(&seen) {
                let found = again.destinations(view, &mut rules, u).expect("recalled");
                assert_eq!(found, &own[..]);
            }
            assert_eq!(rules.asked.get(), 0, "turn {:?}", state.turn);
        }
        // Counting works: a position not seen before is asked about.
        let mut moved = states[0].clone();
        let (u, _) = on_board(&moved).next().expect("a piece");
        moved.units[u.index()].hits ^= 1;
        rules.asked.set(0);
        Alike::new(Some(&recall))
            .destinations(
                View {
                    module: &m,
                    state: &moved,
                },
                &mut rules,
                u,
            )
            .expect("asked");
        assert!(rules.asked.get() > 0);
    }

    /// Positions one after another (a random game's moves change the board here and
    /// there): most pieces' destinations are recalled by what their search read, and
    /// each is the rules' own.
    #[test]
    fn destinations_recalled_by_what_they_read_are_the_rules_own() {
        let (m, mut rules) = ahd();
        let recall = Recall::default();
        let sc = m.scenario("1861").expect("1861");
        let mut state = start(&m, &mut rules, sc, Vec::new(), Dice::seeded(4))
            .expect("starts")
            .0;
        let mut random = crate::player::player(crate::Level::Random, 4);
        let (mut recalled, mut searched) = (0, 0);
        for _ in 0..150 {
            let view = View {
                module: &m,
                state: &state,
            };
            for (u, _) in on_board(&state) {
                rules.asked.set(0);
                let found = Alike::new(Some(&recall))
                    .destinations(view, &mut rules, u)
                    .expect("found")
                    .to_vec();
                if rules.asked.get() == 0 {
                    recalled += 1;
                } else {
                    searched += 1;
                }
                let own = destinations(view, &mut rules, u).expect("the rules' own");
                assert_eq!(found, own, "unit {u:?}, turn {:?}", state.turn);
            }
            state = crate::player::step(random.as_mut(), &m, &mut rules, &state)
                .expect("a random step")
                .1;
        }
        assert!(
            recalled > 4 * searched,
            "{recalled} recalled, {searched} searched"
        );
    }

    /// Boxes' worths recalled by what the hint read (AHD's: the army maxima and who holds
    /// the recruiting cities) are the rules' own, and most positions of a game reuse one.
    #[test]
    fn worths_recalled_by_what_they_read_are_the_rules_own() {
        let (m, mut rules) = ahd();
        let recall = Recall::default();
        let sc = m.scenario("1861").expect("1861");
        let mut state = start(&m, &mut rules, sc, Vec::new(), Dice::seeded(6))
            .expect("starts")
            .0;
        let mut random = crate::player::player(crate::Level::Random, 6);
        let (mut recalled, mut asked) = (0, 0);
        for _ in 0..300 {
            if state.outcome.is_some() {
                break;
            }
            rules.asked.set(0);
            let w = recall.worth(&m, &mut rules, &state).expect("worth");
            if rules.asked.get() == 0 {
                recalled += 1;
            } else {
                asked += 1;
            }
            let own = crate::knowledge::worth(&m, &mut rules, &state).expect("the rules' own");
            assert_eq!(*w, own, "turn {:?}", state.turn);
            state = crate::player::step(random.as_mut(), &m, &mut rules, &state)
                .expect("a random step")
                .1;
        }
        assert!(recalled > 2 * asked, "{recalled} recalled, {asked} asked");
    }

    /// The enemies' entrenchment recalled box by box by what the hint read (AHD's: who is
    /// in the box, and their flags) is the rules' own, and most answers are recalled.
    #[test]
    fn entrenchment_recalled_by_what_it_read_is_the_rules_own() {
        let (m, mut rules) = ahd();
        let recall = Recall::default();
        let sc = m.scenario("1861").expect("1861");
        let mut state = start(&m, &mut rules, sc, Vec::new(), Dice::seeded(7))
            .expect("starts")
            .0;
        let mut ai = crate::player::player(crate::Level::Ai, 7);
        // Questions: those the recall asked, and those the rules' own map asks.
        let (mut asked, mut all, mut dug) = (0, 0, 0);
        for _ in 0..600 {
            if state.outcome.is_some() {
                break;
            }
            let me = muster_core::game::decider(&m, &state);
            let force = Picture::new(&m, &mut rules, &state, me, &mut None, None)
                .expect("picture")
                .force;
            rules.asked.set(0);
            let d = recall
                .dug_in(&m, &mut rules, &state, me, &force)
                .expect("recalled");
            asked += rules.asked.get();
            rules.asked.set(0);
            let own = crate::knowledge::dug_in(&m, &mut rules, &state, me, &force)
                .expect("the rules' own");
            all += rules.asked.get();
            assert_eq!(*d, own, "turn {:?}", state.turn);
            dug += own.iter().flatten().filter(|&&e| e).count();
            state = crate::player::step(ai.as_mut(), &m, &mut rules, &state)
                .expect("a step")
                .1;
        }
        // Box by box, most answers are recalled: a step changes a box or two.
        assert!(asked * 10 < all, "{asked} of {all} questions asked");
        // The comparison saw pieces dug in (AHD 4.3), not only none.
        assert!(dug > 0);
    }

    /// What [`Planner::needs`] relies on to skip enemies far from every decisive box: no
    /// destination is further from its piece than the search bound, in lines.
    #[test]
    fn no_destination_is_further_than_the_search_bound() {
        let (m, mut rules) = ahd();
        let dist = Distances::new(&m);
        let mut furthest = 0;
        for state in positions(&m, &mut rules) {
            let view = View {
                module: &m,
                state: &state,
            };
            let bound = max_path(&m, &state);
            for (u, from) in on_board(&state) {
                for d in destinations(view, &mut rules, u).expect("found") {
                    let lines = usize::from(dist.get(from, d.path.to()));
                    assert!(lines <= bound, "{lines} > {bound}");
                    furthest = furthest.max(lines);
                }
            }
        }
        // Marches of more than one box (4.0: by rail, river or as cavalry) are seen.
        assert!(furthest >= 2, "{furthest}");
    }

    /// The formations fixture with presidents (`tests/fixtures/formations-president`),
    /// the Union's army railed from Baltimore to Grafton through Harper's Ferry, a box
    /// its rules hint is worth holding, now left bare.
    #[test]
    fn a_march_leaves_its_smallest_division_to_hold_a_box_worth_holding() {
        // Seed 001 §6.23: a division may be left as a garrison on the way.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/formations-president");
        let m = muster_core::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        let sc = m.scenario("army").expect("army");
        let mut g = start(&m, &mut rules, sc, Vec::new(), Dice::seeded(1))
            .expect("starts")
            .0;
        let named = |g: &GameState, n: &str| g.names.iter().find(|(_, x)| x == n).unwrap().0;
        let at = |n: &str| m.board.find(n).unwrap();
        // Lincoln allots the step to McDowell, who rails the army to Grafton.
        let allot = legal_actions(&m, &mut rules, &g).unwrap()[0].clone();
        g = muster_core::game::apply(&m, &mut rules, &g, &allot)
            .unwrap()
            .0;
        g = muster_core::game::apply(
            &m,
            &mut rules,
            &g,
            &Action::Select {
                at: at("Baltimore"),
            },
        )
        .unwrap()
        .0;
        let army = named(&g, "Army of the Potomac");
        let mv = legal_actions(&m, &mut rules, &g)
            .unwrap()
            .into_iter()
            .find(|a| matches!(a, Action::Move { unit, path } if *unit == army && path.to() == at("Grafton") && path.steps.len() == 2))
            .expect("by Harper's Ferry");
        g = muster_core::game::apply(&m, &mut rules, &g, &mv).unwrap().0;
        let union = m.find_side("union").unwrap();
        let mut p = Planner::new(Style::ai());
        let left = p.garrison(&m, &mut rules, &g, union).unwrap();
        assert_eq!(
            left,
            Some(Action::Drop {
                unit: named(&g, "1st Division, I Corps"),
                at: at("Harper's Ferry"),
            }),
            "the smallest division (3 stands), the lowest first"
        );
        // Once it stands there, nothing more is left.
        let g = muster_core::game::apply(&m, &mut rules, &g, left.as_ref().unwrap())
            .unwrap()
            .0;
        assert_eq!(p.garrison(&m, &mut rules, &g, union).unwrap(), None);
    }
}
