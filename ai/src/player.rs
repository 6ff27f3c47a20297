//! Computer players and the one loop that lets any of them take a turn: each chooses an
//! action for the state in front of it; the engine's `apply` is the judge.

use muster_core::Module;
use muster_core::game::dice::Pcg32;
use muster_core::game::{Action, ActionError, GameState, RuleError, Rules, apply, legal_actions};

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

/// A computer player: given the position, what to do now. A player may keep a plan
/// between calls; `forget` drops it (after the engine refused one of its actions).
pub trait Player: Send {
    fn choose(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Action, AiError>;

    fn forget(&mut self) {}

    /// Problems the player met and worked around since last asked (a rule that failed
    /// while searching), for the caller to report.
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// The seed of side `side`'s computer player in the game of seed `game_seed`. Every
/// place that makes players (`muster play`, `muster balance`, the app, the soak) uses
/// it, so a game met in one can be played again in another.
pub fn side_seed(game_seed: u64, side: usize) -> u64 {
    game_seed ^ side as u64
}

/// A player of the given level. `seed` feeds the random player's choices (the dice are
/// the game's own); the planners are deterministic.
pub fn player(level: Level, seed: u64) -> Box<dyn Player> {
    match level {
        Level::Random => Box::new(RandomPlayer::new(seed)),
        Level::Greedy => Box::new(Planner::new(Style::greedy())),
        Level::Ai => Box::new(Planner::new(Style::ai())),
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
                budget,
                threads: threads.max(1),
                rules,
                opening,
            },
            seed,
        )),
        other => player(other, seed),
    }
}

/// Uniform over the legal list, from its own PCG32 stream (stream 2, as `muster play`
/// always used), so random games stay reproducible from the seed.
pub struct RandomPlayer {
    chooser: Pcg32,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            chooser: Pcg32::new(seed, 2),
        }
    }
}

impl Player for RandomPlayer {
    fn choose(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Action, AiError> {
        let legal = legal_actions(module, rules, state)?;
        let n = u32::try_from(legal.len()).unwrap_or(u32::MAX);
        if n == 0 {
            return Err(AiError::Stuck);
        }
        let i = (self.chooser.between_one_and(n) - 1) as usize;
        Ok(legal[i].clone())
    }
}

/// One decision of a computer player, applied by `apply_action` (the engine's `apply`,
/// or a `History` that records it). A planner may act on a plan made a few actions
/// ago; if the engine refuses it, the plan is dropped and the player chooses again from
/// scratch, and as a last resort takes the first legal action.
pub fn decide<T>(
    player: &mut dyn Player,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    mut apply_action: impl FnMut(&mut dyn Rules, &Action) -> Result<T, ActionError>,
) -> Result<(Action, T), AiError> {
    for _ in 0..2 {
        let action = player.choose(module, rules, state)?;
        match apply_action(rules, &action) {
            Ok(applied) => return Ok((action, applied)),
            Err(ActionError::Illegal(why)) => {
                tracing::debug!("planned action refused ({why}); planning again");
                player.forget();
            }
            Err(e) => return Err(e.into()),
        }
    }
    let legal = legal_actions(module, rules, state)?;
    let action = legal.into_iter().next().ok_or(AiError::Stuck)?;
    let applied = apply_action(rules, &action)?;
    Ok((action, applied))
}

/// [`decide`] with the engine's `apply`: the action, the new state and its log.
pub fn step(
    player: &mut dyn Player,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<(Action, GameState, Vec<String>), AiError> {
    let (action, (next, log)) = decide(player, module, rules, state, |rules, action| {
        apply(module, rules, state, action)
    })?;
    Ok((action, next, log))
}
