//! Computer players and the one loop that lets any of them take a turn: each chooses an
//! action from what its seat knows ([`Knowledge`]: the game itself only where every
//! seat sees everything); the engine's `apply_by` is the judge.

use muster_core::Module;
use muster_core::game::dice::Pcg32;
use muster_core::game::moves::Memo;
use muster_core::game::seats::Turns;
use muster_core::game::{
    Action, ActionError, GameState, Knowledge, RuleError, Rules, apply_by, apply_by_unlogged,
    legal_actions_for, legal_actions_for_memo,
};
use muster_core::ids::SeatId;

use crate::planner::{Planner, Style};
use crate::search::{RulesFactory, SearchConfig, SearchPlayer};

/// How strong a computer player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Uniform over the legal actions.
    Random,
    /// The simple greedy baseline: takes the best-looking action now, attacks on raw
    /// numbers, never retreats, never reinforces.
    Greedy,
    /// The default: plans each march as a whole, weighs battles by their odds, keeps
    /// garrisons where the enemy threatens, retreats and reinforces.
    Ai,
    /// The `ai` planner with each march chosen among a few by `budget` rollouts, the
    /// first `opening` turns of the scenario searched wider and deeper (see
    /// `search.rs`).
    Strong {
        budget: u32,
        #[serde(default)]
        opening: u32,
    },
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Greedy => "greedy",
            Level::Ai => "ai",
            Level::Strong { .. } => "strong",
        }
    }

    /// The strong player at the default budget, without an opening.
    pub const fn strong() -> Level {
        Level::Strong {
            budget: crate::search::DEFAULT_BUDGET,
            opening: 0,
        }
    }

    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "random" => Some(Level::Random),
            "greedy" => Some(Level::Greedy),
            "ai" => Some(Level::Ai),
            "strong" => Some(Level::strong()),
            _ => None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AiError {
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error(transparent)]
    Action(#[from] ActionError),
    #[error("no legal action, and the game is not over")]
    Stuck,
}

/// A computer player: given what its seat knows, what to do now. It never sees the
/// game where its seat may not ([`Knowledge`]): a choice made on a sample of the hidden
/// position is checked against the real game by the loop ([`decide_for`]). A player may
/// keep a plan between calls; `forget` drops it (after the engine refused one of its
/// actions).
pub trait Player: Send {
    fn choose(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        knowledge: &Knowledge<'_>,
    ) -> Result<Action, AiError>;

    /// The seat's own choices in the real game, told before [`Player::choose`] where the
    /// seat does not see the whole game: what a person in the seat is shown to choose
    /// among (play by file sends a seat its choices), so nothing its view hides. A
    /// player choosing on a sample keeps to them. Open games never call it.
    fn shown(&mut self, _choices: &[Action]) {}

    fn forget(&mut self) {}

    /// Problems the player met and worked around since last asked (a rule that failed
    /// while searching), for the caller to report.
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// A boxed player is a player (so `&mut Box<dyn Player>` passes where one is wanted).
impl<P: Player + ?Sized> Player for Box<P> {
    fn choose(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        knowledge: &Knowledge<'_>,
    ) -> Result<Action, AiError> {
        (**self).choose(module, rules, knowledge)
    }

    fn shown(&mut self, choices: &[Action]) {
        (**self).shown(choices);
    }

    fn forget(&mut self) {
        (**self).forget();
    }

    fn take_warnings(&mut self) -> Vec<String> {
        (**self).take_warnings()
    }
}

/// The seed of side `side`'s computer player in the game of seed `game_seed`. Every
/// place that makes players (`muster play`, `muster balance`, the app, the soak) uses
/// it, so a game met in one can be played again in another.
pub fn side_seed(game_seed: u64, side: usize) -> u64 {
    game_seed ^ side as u64
}

/// The seed of seat `seat`'s computer player: its side's ([`side_seed`]) for a side's
/// first seat, so a module with one seat a side plays as before seats; another seat's
/// is told apart by its number.
pub fn seat_seed(module: &Module, game_seed: u64, seat: SeatId) -> u64 {
    let def = module.seat(seat);
    let Some(side) = def.side else {
        return game_seed ^ (0x5ea7 << 16) ^ seat.index() as u64;
    };
    let base = side_seed(game_seed, side.index());
    match module.seats_of(side).position(|s| s == seat) {
        Some(0) | None => base,
        Some(k) => base ^ ((k as u64) << 32),
    }
}

/// A player of the given level. `seed` feeds the random player's choices (the dice are
/// the game's own); the planners are deterministic.
pub fn player(level: Level, seed: u64) -> Box<dyn Player> {
    match level {
        Level::Random => Box::new(RandomPlayer::new(seed)),
        Level::Greedy => Box::new(Planner::new(Style::greedy()).sampling(seed)),
        Level::Ai => Box::new(Planner::new(Style::ai()).sampling(seed)),
        Level::Strong { budget, opening } => Box::new(SearchPlayer::new(
            SearchConfig {
                opening,
                ..SearchConfig::new(budget)
            },
            seed,
        )),
    }
}

/// A player of the given level whose search (for `strong`) runs on `threads` threads,
/// each with rules from `rules`. Other levels are [`player`]'s.
pub fn player_with(
    level: Level,
    seed: u64,
    threads: usize,
    rules: Option<RulesFactory>,
) -> Box<dyn Player> {
    match level {
        Level::Strong { budget, opening } => Box::new(SearchPlayer::new(
            SearchConfig {
                threads: threads.max(1),
                rules,
                opening,
                ..SearchConfig::new(budget)
            },
            seed,
        )),
        other => player(other, seed),
    }
}

/// Uniform over the seat's legal list, from its own PCG32 stream (stream 2, as `muster
/// play` always used), so random games stay reproducible from the seed. Where the seat
/// does not see everything, the list is a sample's (stream 3 draws the samples).
pub struct RandomPlayer {
    chooser: Pcg32,
    samples: Pcg32,
    /// Destinations kept from one decision to the next (the same lists, cheaper).
    memo: Memo,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            chooser: Pcg32::new(seed, 2),
            samples: Pcg32::new(seed, 3),
            memo: Memo::default(),
        }
    }
}

impl Player for RandomPlayer {
    fn choose(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        knowledge: &Knowledge<'_>,
    ) -> Result<Action, AiError> {
        let seed = if knowledge.is_open() {
            0
        } else {
            u64::from(self.samples.next_u32())
        };
        let state = knowledge.sample(module, seed);
        let legal =
            legal_actions_for_memo(module, rules, &state, knowledge.seat(), &mut self.memo)?;
        pick(&mut self.chooser, &legal)
    }
}

/// One of `legal`, uniformly.
fn pick(chooser: &mut Pcg32, legal: &[Action]) -> Result<Action, AiError> {
    let n = u32::try_from(legal.len()).unwrap_or(u32::MAX);
    if n == 0 {
        return Err(AiError::Stuck);
    }
    let i = (chooser.between_one_and(n) - 1) as usize;
    Ok(legal[i].clone())
}

/// One decision of a computer player for `seat`.
#[derive(Clone, Debug)]
pub struct Decided<T> {
    pub action: Action,
    /// What `apply_action` returned for it.
    pub applied: T,
    /// Whether the player's choices were refused and a random legal action of the seat
    /// was taken instead (a choice made on a sample of a hidden position that the real
    /// game does not allow, or a stale plan refused twice).
    pub fell_back: bool,
}

/// One decision of `seat`'s computer player, applied by `apply_action` (the engine's
/// [`apply_by`] for the seat, or a `History` that records it). The player is given the
/// seat's [`Knowledge`], never the state. A planner may act on a plan made a few actions
/// ago, or on a sample of what it cannot see; if the engine refuses the action, the plan
/// is dropped and the player chooses again from scratch, and as a last resort a random
/// action among the seat's legal ones is taken (drawn from the position's fingerprint,
/// so a game stays reproducible).
pub fn decide_for<T>(
    player: &mut dyn Player,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
    mut apply_action: impl FnMut(&mut dyn Rules, &Action) -> Result<T, ActionError>,
) -> Result<Decided<T>, AiError> {
    let (knowledge, errors) = Knowledge::new(module, rules, state, seat);
    for e in errors {
        // For whoever runs the game: the piece concerned was hidden from the player.
        tracing::warn!("what {} sees: {e}", module.seat(seat).name);
    }
    // A seat that does not see everything is told its own choices (see
    // [`Player::shown`]); an open game's player reads them off the game itself.
    let shown = if knowledge.is_open() {
        None
    } else {
        Some(legal_actions_for(module, rules, state, seat)?)
    };
    for _ in 0..2 {
        if let Some(shown) = &shown {
            player.shown(shown);
        }
        let action = player.choose(module, rules, &knowledge)?;
        match apply_action(rules, &action) {
            Ok(applied) => {
                return Ok(Decided {
                    action,
                    applied,
                    fell_back: false,
                });
            }
            Err(ActionError::Illegal(why)) => {
                tracing::debug!(
                    "{}'s planned action {action:?} refused ({why}); planning again",
                    module.seat(seat).name
                );
                player.forget();
            }
            Err(e) => return Err(e.into()),
        }
    }
    let mut legal = match shown {
        Some(shown) => shown,
        None => legal_actions_for(module, rules, state, seat)?,
    };
    let fingerprint = state.fingerprint();
    let mut chooser = Pcg32::new((fingerprint as u64) ^ (fingerprint >> 64) as u64, 4);
    tracing::warn!(
        "{}'s computer player chose an action the game refuses; took a random legal one",
        module.seat(seat).name
    );
    // A listed action the rules still refuse when taken (an offer whose handler says
    // no) is left out and another drawn: the game goes on rather than stop on it.
    loop {
        let action = pick(&mut chooser, &legal)?;
        match apply_action(rules, &action) {
            Ok(applied) => {
                return Ok(Decided {
                    action,
                    applied,
                    fell_back: true,
                });
            }
            Err(ActionError::Illegal(why)) if legal.len() > 1 => {
                tracing::debug!("listed action {action:?} refused ({why}); drawing another");
                legal.retain(|a| *a != action);
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The seat a computer player acts for now, for callers that play one player a side:
/// the first seat [`Turns`] would ask.
pub fn acting_seat(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<SeatId, AiError> {
    Turns::new()
        .next(module, rules, state)?
        .ok_or(AiError::Stuck)
}

/// What `player` chooses for the seat that acts now ([`acting_seat`]), given that
/// seat's [`Knowledge`] of `state`; nothing applied.
pub fn choose(
    player: &mut dyn Player,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Action, AiError> {
    let seat = acting_seat(module, rules, state)?;
    let (knowledge, _) = Knowledge::new(module, rules, state, seat);
    player.choose(module, rules, &knowledge)
}

/// What `player` chooses for `seat` now, from the seat's [`Knowledge`] and told its
/// choices as [`decide_for`] tells them; nothing applied (a rules test asks it).
pub fn choose_for(
    player: &mut dyn Player,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
) -> Result<Action, AiError> {
    let (knowledge, _) = Knowledge::new(module, rules, state, seat);
    if !knowledge.is_open() {
        player.shown(&legal_actions_for(module, rules, state, seat)?);
    }
    player.choose(module, rules, &knowledge)
}

/// [`decide_for`] the seat that acts now ([`acting_seat`]), with the caller's
/// `apply_action`: the action and what applying it returned.
pub fn decide<T>(
    player: &mut dyn Player,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    apply_action: impl FnMut(&mut dyn Rules, &Action) -> Result<T, ActionError>,
) -> Result<(Action, T), AiError> {
    let seat = acting_seat(module, rules, state)?;
    let d = decide_for(player, module, rules, state, seat, apply_action)?;
    Ok((d.action, d.applied))
}

/// [`decide_for`] with the engine's [`apply_by`]: the action, the new state and its
/// log, and whether the player's own choice was refused.
pub fn step_for(
    player: &mut dyn Player,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
) -> Result<Decided<(GameState, Vec<String>)>, AiError> {
    decide_for(player, module, rules, state, seat, |rules, action| {
        apply_by(module, rules, state, seat, action)
    })
}

/// [`step_for`] the seat that acts now: the action, the new state and its log.
pub fn step(
    player: &mut dyn Player,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<(Action, GameState, Vec<String>), AiError> {
    let seat = acting_seat(module, rules, state)?;
    let d = step_for(player, module, rules, state, seat)?;
    let (next, log) = d.applied;
    Ok((d.action, next, log))
}

/// The seats' players of a game, each asked in its turn ([`Turns`]): the loop of
/// `muster balance` and `muster play`'s computer seats. An `EndStep` a seat chooses
/// while another seat of its side still has something to do is held as a pass.
pub struct Table {
    turns: Turns,
    /// Whether actions are applied with their log ([`Table::unlogged`]).
    logged: bool,
}

/// What [`Table::play`] did.
// One at a time, moved straight into the loop's state: boxing it would cost an
// allocation an action for nothing.
#[allow(clippy::large_enum_variant)]
pub enum Played {
    /// `seat` took `action`: the new state and its log.
    Applied {
        seat: SeatId,
        action: Action,
        next: GameState,
        log: Vec<String>,
        fell_back: bool,
    },
    /// `seat` passed the step, leaving it to the other seats of its side.
    Passed { seat: SeatId },
}

impl Default for Table {
    fn default() -> Self {
        Table::new()
    }
}

impl Table {
    pub fn new() -> Self {
        Table {
            turns: Turns::new(),
            logged: true,
        }
    }

    /// A table for a caller that reads no log (`muster balance`): the same games, each
    /// [`Played::Applied`] with an empty log, and without the lines that cost a look at
    /// the game beyond the action ([`muster_core::game::apply_unlogged`]).
    pub fn unlogged() -> Self {
        Table {
            turns: Turns::new(),
            logged: false,
        }
    }

    /// The seat to act now (`None` once the game is over).
    pub fn next(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Option<SeatId>, AiError> {
        Ok(self.turns.next(module, rules, state)?)
    }

    /// `seat`'s player takes one decision.
    pub fn play(
        &mut self,
        player: &mut dyn Player,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        seat: SeatId,
    ) -> Result<Played, AiError> {
        let turns = &mut self.turns;
        let logged = self.logged;
        let mut held = false;
        let d = decide_for(player, module, rules, state, seat, |rules, action| {
            if turns.holds(module, rules, state, seat, action)? {
                held = true;
                return Ok(None);
            }
            if logged {
                apply_by(module, rules, state, seat, action).map(Some)
            } else {
                apply_by_unlogged(module, rules, state, seat, action).map(|s| Some((s, Vec::new())))
            }
        })?;
        match d.applied {
            Some((next, log)) => Ok(Played::Applied {
                seat,
                action: d.action,
                next,
                log,
                fell_back: d.fell_back,
            }),
            None => {
                debug_assert!(held);
                Ok(Played::Passed { seat })
            }
        }
    }
}
