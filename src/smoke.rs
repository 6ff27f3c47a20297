//! `muster check --smoke N`: plays N random games of the module to their end (every
//! scenario in turn, half of them with every optional rule on; `--smoke-turns` makes
//! them shorter) and reports each distinct run-time rule error with a seed that
//! reproduces it, so "check passes, play crashes" is caught at check time. A game that
//! does not end within [`MAX_ACTIONS`] is reported too: a whole game must finish.

use std::collections::BTreeMap;

use muster_core::Module;
use muster_core::game::dice::Pcg32;
use muster_core::game::{Dice, GameState, apply, describe, legal_actions, set_end, start};
use muster_core::ids::OptionId;
use muster_scripting::{Limits, ScriptRules, WrapUse};
use serde::Serialize;

/// Actions a smoke game may take before it counts as one that never ends.
pub const MAX_ACTIONS: u32 = 100_000;

/// A rule error found by a smoke game, with what reproduces it.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The hook that failed and the error, as the engine reports it.
    pub error: String,
    pub scenario: String,
    pub options: Vec<String>,
    pub seed: u64,
    /// Where in the game: the turn, side and step, and the action being taken (or
    /// "listing the legal actions").
    pub at: String,
    /// How many smoke games hit the same error.
    pub games: usize,
    /// The `muster play` command that plays the same game to the same error.
    pub reproduce: String,
}

/// What the smoke games found.
pub struct Found {
    /// The distinct rule errors, first found first.
    pub errors: Vec<Finding>,
    /// Each `hooks.wrap` with its calls and its `next`'s summed over the games.
    pub wraps: Vec<WrapUse>,
}

/// Adds a rules instance's wrap counts to `sum`.
fn add_wraps(sum: &mut Vec<WrapUse>, rules: &ScriptRules) {
    for w in rules.wraps() {
        match sum
            .iter_mut()
            .find(|s| (&s.hook, &s.id, &s.origin) == (&w.hook, &w.id, &w.origin))
        {
            Some(s) => {
                s.calls += w.calls;
                s.nexts += w.nexts;
            }
            None => sum.push(w),
        }
    }
}

/// Plays `games` smoke games, each of at most `turns` turns (its scenario's first and
/// the next ones; `None`: to the scenario's end).
pub fn run(module: &Module, dir: &str, games: u32, turns: Option<u16>) -> Result<Found, String> {
    let mut rules =
        ScriptRules::load(module, Limits::default().native()).map_err(|e| e.to_string())?;
    let mut wraps = Vec::new();
    let all: Vec<OptionId> = (0..module.options.len())
        .filter_map(OptionId::from_index)
        .collect();
    let mut found: BTreeMap<String, Finding> = BTreeMap::new();
    let mut order = Vec::new();
    for i in 0..games {
        if module.scenarios.is_empty() {
            break;
        }
        let scenario = &module.scenarios[i as usize % module.scenarios.len()];
        let options = if i % 2 == 1 { all.clone() } else { Vec::new() };
        let seed = u64::from(i) + 1;
        if let Some((error, at, end)) = play(module, &mut rules, scenario, &options, seed, turns) {
            match found.get_mut(&error) {
                Some(f) => f.games += 1,
                None => {
                    order.push(error.clone());
                    let names: Vec<String> = options
                        .iter()
                        .map(|&o| module.options[o.index()].id.clone())
                        .collect();
                    let players: String = module
                        .sides
                        .iter()
                        .map(|s| format!(" --player {}=random", s.id))
                        .collect();
                    let mut reproduce = format!(
                        "muster play {dir} --scenario {}{players} --seed {seed} --end {end}",
                        scenario.id
                    );
                    if !names.is_empty() {
                        reproduce.push_str(&format!(" --options {}", names.join(",")));
                    }
                    found.insert(
                        error.clone(),
                        Finding {
                            error,
                            scenario: scenario.id.clone(),
                            options: names,
                            seed,
                            at,
                            games: 1,
                            reproduce,
                        },
                    );
                }
            }
            // A failed game may leave a script's state odd: start the next afresh.
            add_wraps(&mut wraps, &rules);
            rules =
                ScriptRules::load(module, Limits::default().native()).map_err(|e| e.to_string())?;
        }
    }
    add_wraps(&mut wraps, &rules);
    Ok(Found {
        errors: order.into_iter().filter_map(|e| found.remove(&e)).collect(),
        wraps,
    })
}

/// One random game of at most `turns` turns (`None`: the whole game): the first rule
/// error, where it came, and the game's last turn.
fn play(
    module: &Module,
    rules: &mut ScriptRules,
    scenario: &muster_core::Scenario,
    options: &[OptionId],
    seed: u64,
    turns: Option<u16>,
) -> Option<(String, String, String)> {
    let last = match turns {
        Some(t) => scenario
            .start
            .0
            .saturating_add(t.max(1) - 1)
            .min(scenario.end.0),
        None => scenario.end.0,
    };
    let end = module.calendar.turns.get(usize::from(last))?.label.clone();
    let (mut state, _) = match start(
        module,
        rules,
        scenario,
        options.to_vec(),
        Dice::seeded(seed),
    ) {
        Ok(s) => s,
        Err(e) => return Some((e.to_string(), "starting the game".into(), end)),
    };
    let _ = set_end(module, &mut state, &end);
    // The random player's own stream, as `muster play` draws it.
    let mut chooser = Pcg32::new(seed, 2);
    for _ in 0..MAX_ACTIONS {
        if state.outcome.is_some() {
            return None;
        }
        let legal = match legal_actions(module, rules, &state) {
            Ok(l) => l,
            Err(e) => {
                let at = where_(module, &state, "listing the legal actions");
                return Some((e.to_string(), at, end));
            }
        };
        let Ok(n) = u32::try_from(legal.len()) else {
            return None;
        };
        if n == 0 {
            let at = where_(module, &state, "listing the legal actions");
            return Some(("no legal action and no result".into(), at, end));
        }
        let action = &legal[(chooser.between_one_and(n) - 1) as usize];
        match apply(module, rules, &state, action) {
            Ok((next, _)) => state = next,
            Err(e) => {
                let what = format!("taking '{}'", describe::action(module, &state, action));
                return Some((e.to_string(), where_(module, &state, &what), end));
            }
        }
    }
    let at = where_(module, &state, "still playing");
    Some((
        format!("the game did not end within {MAX_ACTIONS} actions"),
        at,
        end,
    ))
}

fn where_(module: &Module, state: &GameState, doing: &str) -> String {
    let turn = &module.calendar.turn(state.turn).label;
    let side = &module.side(state.active_side(module)).name;
    let step = state.current_step(module).map_or("-", |s| s.name.as_str());
    format!("{turn}, {side}, {step}: {doing}")
}
