//! Batch simulation: many whole games between computer players, in parallel, for
//! house-rule authors to see who a rule favours. Game `i` uses seed `seed + i`, so a
//! run is reproducible whatever the number of threads.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use muster_core::game::{Dice, GameState, Rules, set_end, start};
use muster_core::ids::{OptionId, SideId};
use muster_core::{Module, Scenario};
use serde::Serialize;

use crate::player::{AiError, Level, Played, Table, player, seat_seed};

/// One game's setup.
#[derive(Clone, Debug)]
pub struct GameSetup<'a> {
    pub scenario: &'a Scenario,
    pub options: Vec<OptionId>,
    /// A level for each seat, in the module's seat order (see [`levels_by_seat`]).
    pub players: Vec<Level>,
    /// An agreed ending turn label (e.g. 03/1863), instead of the scenario's.
    pub end: Option<String>,
    /// Give up on a game after this many actions (it is then reported unfinished).
    pub max_actions: usize,
}

/// How one game ended.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct GameResult {
    pub seed: u64,
    /// The winning side's id; `None` for a draw or an unfinished game.
    pub winner: Option<String>,
    pub reason: String,
    /// Game turns played (the first one counts 1).
    pub turns: u32,
    /// The turn the game ended in, as the calendar labels it.
    pub last_turn: String,
    pub actions: usize,
    pub finished: bool,
    /// Choices of a computer player the game refused, replaced by a random legal action
    /// of its seat (a choice made on a sample of what it could not see).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fallbacks: usize,
    /// Why the game could not be played to its end: a rule that failed (its hook and
    /// script line) or a player stuck. Such a game counts for no side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum BalanceError {
    #[error("game with seed {seed}: {message}")]
    Game { seed: u64, message: String },
    #[error("{0}")]
    Setup(String),
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A level for each seat of `module` from a level for each side: every seat of a side
/// plays at its side's level, a referee seat (of no side) at `referee`.
pub fn levels_by_seat(module: &Module, by_side: &[Level], referee: Level) -> Vec<Level> {
    module
        .seats
        .iter()
        .map(|s| {
            s.side
                .and_then(|side| by_side.get(side.index()).copied())
                .unwrap_or(referee)
        })
        .collect()
}

/// Plays one whole game between computer players.
pub fn play_game(
    module: &Module,
    rules: &mut dyn Rules,
    setup: &GameSetup<'_>,
    seed: u64,
) -> Result<(GameResult, GameState), BalanceError> {
    let fail = |message: String| BalanceError::Game { seed, message };
    let (mut state, _) = start(
        module,
        rules,
        setup.scenario,
        setup.options.clone(),
        Dice::seeded(seed),
    )
    .map_err(|e| fail(e.to_string()))?;
    if let Some(end) = &setup.end {
        set_end(module, &mut state, end).map_err(fail)?;
    }
    let first = state.turn;
    // Each seat's player gets its own stream of choices, derived from the seed as
    // `muster play --seed` derives it ([`seat_seed`]: a side's first seat has the side's
    // seed), so any game of a run can be played again.
    if setup.players.len() != module.seats.len() {
        return Err(BalanceError::Setup(format!(
            "{} players for {} seats",
            setup.players.len(),
            module.seats.len()
        )));
    }
    let mut players: Vec<_> = module
        .seat_ids()
        .zip(&setup.players)
        .map(|(seat, &level)| player(level, seat_seed(module, seed, seat)))
        .collect();
    let mut table = Table::unlogged();
    let mut actions = 0;
    let mut fallbacks = 0;
    let mut passes = 0;
    while state.outcome.is_none() && actions < setup.max_actions {
        let stuck = |state: &GameState| {
            fail(format!(
                "no legal action: {}",
                muster_core::game::describe::situation(module, state)
            ))
        };
        let seat = table
            .next(module, rules, &state)
            .map_err(|e| fail(e.to_string()))?
            .ok_or_else(|| stuck(&state))?;
        let p = players
            .get_mut(seat.index())
            .ok_or_else(|| fail("a seat without a player".into()))?;
        let played = table
            .play(p.as_mut(), module, rules, &state, seat)
            .map_err(|e| match e {
                AiError::Stuck => stuck(&state),
                other => fail(other.to_string()),
            })?;
        match played {
            Played::Applied {
                next, fell_back, ..
            } => {
                state = next;
                actions += 1;
                fallbacks += usize::from(fell_back);
                passes = 0;
            }
            Played::Passed { .. } => {
                // Each seat passes a step at most once: more passes than seats is a bug.
                passes += 1;
                if passes > module.seats.len() {
                    return Err(fail(
                        "the seats passed the step to each other for ever".into(),
                    ));
                }
            }
        }
    }
    let turns = u32::from(state.turn.0.saturating_sub(first.0)) + 1;
    let last_turn = module.calendar.turn(state.turn).label.clone();
    let result = match &state.outcome {
        Some(o) => GameResult {
            seed,
            winner: o.winner.map(|s| module.side(s).id.clone()),
            reason: o.reason.clone(),
            turns,
            last_turn,
            actions,
            finished: true,
            fallbacks,
            error: None,
        },
        None => GameResult {
            seed,
            winner: None,
            reason: format!("unfinished after {actions} actions"),
            turns,
            last_turn,
            actions,
            finished: false,
            fallbacks,
            error: None,
        },
    };
    Ok((result, state))
}

/// Plays `games` games on `threads` threads, each with rules made by `make_rules`
/// (scripted rules are not shared between threads). `progress` is called after each
/// game with the number done so far. A game that fails (a rule error) is recorded with
/// its seed and error, and the others go on; only rules that do not load stop the run.
pub fn run<R, F>(
    module: &Module,
    make_rules: F,
    setup: &GameSetup<'_>,
    games: usize,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<GameResult>, BalanceError>
where
    R: Rules,
    F: Fn() -> Result<R, String> + Sync,
{
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<GameResult>>> = Mutex::new(vec![None; games]);
    let first_error: Mutex<Option<BalanceError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut rules = match make_rules() {
                    Ok(r) => r,
                    Err(e) => {
                        let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
                        slot.get_or_insert(BalanceError::Setup(e));
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= games {
                        break;
                    }
                    if first_error
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .is_some()
                    {
                        break;
                    }
                    let game_seed = seed.wrapping_add(i as u64);
                    let result = match play_game(module, &mut rules, setup, game_seed) {
                        Ok((r, _)) => r,
                        Err(e) => {
                            // Start the next game on freshly loaded rules.
                            match make_rules() {
                                Ok(r) => rules = r,
                                Err(e) => {
                                    let mut slot =
                                        first_error.lock().unwrap_or_else(|p| p.into_inner());
                                    slot.get_or_insert(BalanceError::Setup(e));
                                    return;
                                }
                            }
                            GameResult {
                                seed: game_seed,
                                winner: None,
                                reason: "failed".into(),
                                turns: 0,
                                last_turn: String::new(),
                                actions: 0,
                                finished: false,
                                fallbacks: 0,
                                error: Some(match e {
                                    BalanceError::Game { message, .. } => message,
                                    other => other.to_string(),
                                }),
                            }
                        }
                    };
                    results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(result);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .flatten()
        .collect())
}

/// A proportion with its 95% Wilson score interval.
#[derive(Clone, Debug, Serialize)]
pub struct Rate {
    pub count: usize,
    pub of: usize,
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

impl Rate {
    pub fn new(count: usize, of: usize) -> Rate {
        if of == 0 {
            return Rate {
                count,
                of,
                rate: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        let n = of as f64;
        let p = count as f64 / n;
        let z = 1.959_963_984_540_054_f64;
        let z2 = z * z;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        Rate {
            count,
            of,
            rate: p,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }
}

/// What a batch says.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Games played to a result or to the action limit (failed games left out).
    pub games: usize,
    /// Games a rule error stopped: (seed, error), in seed order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<(u64, String)>,
    /// Per side id: its wins.
    pub wins: Vec<(String, Rate)>,
    pub draws: Rate,
    pub unfinished: usize,
    /// Computer players' choices the game refused, replaced by a random legal action,
    /// over all games (choices made on samples of hidden positions).
    #[serde(skip_serializing_if = "is_zero")]
    pub fallbacks: usize,
    /// Each way a game ended (the rules' reason), with how often.
    pub reasons: Vec<(String, usize)>,
    /// Game turns played: fewest, quartiles, most, mean.
    pub length: Length,
}

#[derive(Clone, Debug, Serialize)]
pub struct Length {
    pub min: u32,
    pub q1: u32,
    pub median: u32,
    pub q3: u32,
    pub max: u32,
    pub mean: f64,
    /// (turns, games) for every length seen.
    pub histogram: Vec<(u32, usize)>,
}

pub fn summarise(module: &Module, all: &[GameResult]) -> Summary {
    let sides: Vec<String> = module
        .side_ids()
        .map(|s: SideId| module.side(s).id.clone())
        .collect();
    summarise_sides(&sides, all)
}

/// [`summarise`] given the sides' ids in the module's order: a study's parts are merged
/// without loading the module again.
pub fn summarise_sides(sides: &[String], all: &[GameResult]) -> Summary {
    let failed = all
        .iter()
        .filter_map(|r| r.error.as_ref().map(|e| (r.seed, e.clone())))
        .collect();
    let results: Vec<GameResult> = all.iter().filter(|r| r.error.is_none()).cloned().collect();
    let results = results.as_slice();
    let n = results.len();
    let wins = sides
        .iter()
        .map(|id| {
            let id = id.clone();
            let count = results
                .iter()
                .filter(|r| r.winner.as_deref() == Some(id.as_str()))
                .count();
            (id, Rate::new(count, n))
        })
        .collect();
    let draws = results
        .iter()
        .filter(|r| r.finished && r.winner.is_none())
        .count();
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for r in results {
        let key = without_figures(&r.reason);
        match reasons.iter_mut().find(|(k, _)| *k == key) {
            Some((_, c)) => *c += 1,
            None => reasons.push((key, 1)),
        }
    }
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut lengths: Vec<u32> = results.iter().map(|r| r.turns).collect();
    lengths.sort_unstable();
    let at = |q: f64| -> u32 {
        if lengths.is_empty() {
            0
        } else {
            lengths[((lengths.len() - 1) as f64 * q).round() as usize]
        }
    };
    let mut histogram: Vec<(u32, usize)> = Vec::new();
    for &l in &lengths {
        match histogram.last_mut() {
            Some((v, c)) if *v == l => *c += 1,
            _ => histogram.push((l, 1)),
        }
    }
    Summary {
        games: n,
        failed,
        wins,
        draws: Rate::new(draws, n),
        unfinished: results.iter().filter(|r| !r.finished).count(),
        fallbacks: results.iter().map(|r| r.fallbacks).sum(),
        reasons,
        length: Length {
            min: at(0.0),
            q1: at(0.25),
            median: at(0.5),
            q3: at(0.75),
            max: at(1.0),
            mean: if n == 0 {
                0.0
            } else {
                lengths.iter().map(|&l| f64::from(l)).sum::<f64>() / n as f64
            },
            histogram,
        },
    }
}

/// A reason without its figures (army sizes, dates), so games ending the same way
/// count together; rule citations are kept: "(10.0)", "(7)", and a number with a dot
/// anywhere ("rule 10.0 ends it", a custom reason's words), which a figure never has.
fn without_figures(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut rest = reason;
    let mut after_word = false;
    while let Some(c) = rest.chars().next() {
        if c == '('
            && let Some(end) = rest.find(')')
            && rest[1..end].chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            out.push_str(&rest[..=end]);
            rest = &rest[end + 1..];
            after_word = false;
            continue;
        }
        if c.is_ascii_digit() && !after_word {
            let len = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let number = rest[..len].trim_end_matches('.');
            if number.contains('.') {
                out.push_str(number);
                rest = &rest[number.len()..];
                continue;
            }
        }
        after_word = c.is_alphanumeric();
        out.push(if c.is_ascii_digit() { '#' } else { c });
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Rate, without_figures};

    #[test]
    fn reasons_lose_their_figures_but_keep_rule_numbers() {
        assert_eq!(
            without_figures("Union Decisive in 03/1862: Army Maximum Sizes differ by 12 (11.3)"),
            "Union Decisive in ##/####: Army Maximum Sizes differ by ## (11.3)"
        );
        // A custom reason citing its rule in its words (issue 45).
        assert_eq!(
            without_figures("by rule 10.0 the Union holds 7 cities."),
            "by rule 10.0 the Union holds # cities."
        );
    }

    #[test]
    fn a_date_or_a_count_with_a_full_stop_after_it_is_still_a_figure() {
        assert_eq!(without_figures("ended 03/1862."), "ended ##/####.");
        assert_eq!(without_figures("took 12. Then"), "took ##. Then");
    }

    #[test]
    fn wilson_interval_matches_known_values() {
        // 95 of 100: the Wilson interval is about [0.888, 0.978].
        let r = Rate::new(95, 100);
        assert!((r.low - 0.8883).abs() < 0.001, "{}", r.low);
        assert!((r.high - 0.9785).abs() < 0.001, "{}", r.high);
        let none = Rate::new(0, 200);
        assert_eq!(none.low, 0.0);
        assert!(none.high > 0.0 && none.high < 0.02);
    }
}
