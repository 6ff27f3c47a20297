//! Random games of *A House Divided*, played to the end through the public API only.
//!
//! Hand-written tests cover the positions someone thought of; random play reaches the
//! ones nobody did. After every action this checks what the Living Rules say must hold
//! (the rule numbers are cited at each check), checks every list of legal actions
//! against the rules, probes actions that are not on the list, and at the end replays
//! each game from its save.
//!
//! Units of both sides share a box only from the moment the moving player enters it
//! (4.0: he must stop there) until the battle there is over (5.0). So in a Movement
//! segment every shared box holds a unit that moved into it; in a Combat segment the
//! shared boxes are among those it began with, and a box whose battle is over is not
//! shared; in the Promotion and Recruitment segments no box is shared.
//!
//! Games with an even seed are played with the optional rules 5.41 (naval
//! evacuations) and 5.71 (refitting), and every fourth seed with 11.3's sudden death as
//! well (it ends games early, so not more often); the checks know these rules too.
//!
//! Actions are chosen exactly as `muster play --union random --confederate random
//! --seed N [--options ...]` chooses them (the same chooser stream over the same list),
//! so a game named in a failure can be watched at the terminal. The default run plays 100 games (about
//! a minute in a debug build on two cores); `MUSTER_RANDOM_GAMES=N` plays N instead
//! (thousands take a few minutes with `cargo test --release --test it random_games`).

use crate::ahd_terms;
mod legal;
mod model;
mod probes;
mod state;

use ahd_terms::ArmyMaximum;
use legal::*;
use model::*;
use probes::*;
use state::*;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use muster_core::Module;
use muster_core::format::Procedure;
use muster_core::game::battle::{Battle, Stage};
use muster_core::game::dice::Pcg32;
use muster_core::game::moves::mover_key;
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{
    Action, Dice, GameState, Path, Place, Step, apply, describe, legal_actions, placing, start,
};
use muster_core::ids::{BoxId, LineId, SideId, UnitId, UnitTypeId};
use muster_scripting::ScriptRules;

/// Games in a default run: enough to reach rare positions, few enough for a debug
/// `cargo test` on two cores.
const DEFAULT_GAMES: usize = 100;

/// A game still going after this many actions is a bug (9.0: the game has an end).
const MAX_ACTIONS: usize = 200_000;

/// The optional rules of even-seeded games (the last one for every fourth seed only):
/// rules whose effects the checks below know.
const OPTIONS: [&str; 3] = ["naval-evacuations", "refitting", "sudden-death"];

/// The chooser stream of `muster play`'s random players.
const CHOOSER_STREAM: u64 = 2;

/// A stream of its own for the illegal-action probes, so probing never changes which
/// game is played.
const PROBE_STREAM: u64 = 3;

#[derive(Default)]
struct Findings {
    by_rule: BTreeMap<String, Finding>,
}

struct Finding {
    games: usize,
    times: usize,
    example: String,
    /// The game the example comes from, in playing order: the first game is reported
    /// whichever thread finished first, so a report reads the same on every run.
    game: usize,
}

impl Findings {
    fn add(&mut self, rule: String, example: String) {
        let f = self.by_rule.entry(rule).or_insert(Finding {
            games: 1,
            times: 0,
            example,
            game: 0,
        });
        f.times += 1;
    }

    /// Adds the findings of game number `game`.
    fn merge(&mut self, other: Findings, game: usize) {
        for (rule, mut f) in other.by_rule {
            f.game = game;
            match self.by_rule.get_mut(&rule) {
                Some(mine) => {
                    mine.games += f.games;
                    mine.times += f.times;
                    if f.game < mine.game {
                        mine.example = f.example;
                        mine.game = f.game;
                    }
                }
                None => {
                    self.by_rule.insert(rule, f);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// Playing.

struct Played {
    actions: usize,
    /// (winner, reason), or why the game did not finish.
    result: Result<(String, String), String>,
}

fn play(ahd: &Ahd, rules: &mut ScriptRules, scenario: usize, seed: u64) -> (Played, Findings) {
    let m = &ahd.m;
    let sc = &m.scenarios[scenario];
    let in_force = match seed % 4 {
        0 => 3,
        2 => 2,
        _ => 0,
    };
    let options: Vec<String> = OPTIONS[..in_force].iter().map(|o| o.to_string()).collect();
    let option_ids = options
        .iter()
        .map(|o| m.find_option(o).unwrap_or_else(|| panic!("no option {o}")))
        .collect();
    let mut g = Game {
        ahd,
        scenario: sc.id.clone(),
        seed,
        options,
        findings: Findings::default(),
    };
    let (mut state, mut log) = match start(m, rules, sc, option_ids, Dice::seeded(seed)) {
        Ok(x) => x,
        Err(e) => {
            g.flag(0, "a scenario starts", e.to_string());
            let played = Played {
                actions: 0,
                result: Err(e.to_string()),
            };
            return (played, g.findings);
        }
    };
    // 11.5-11.7: the army maxima the scenarios state.
    for side in m.side_ids() {
        let army = m.find_tally("army-maximum").expect("AHD declares it");
        let stated = sc
            .side(side)
            .and_then(|s| s.stated.iter().find(|(t, _)| *t == army))
            .map(|&(_, v)| v);
        if let Some(stated) = stated
            && state.army_maximum(m, side) != stated
        {
            g.flag(
                0,
                "11.5-11.7: the scenario's stated army maximum",
                format!(
                    "{}: {} computed, {stated} stated",
                    m.side(side).id,
                    state.army_maximum(m, side)
                ),
            );
        }
    }
    check_state(&mut g, 0, &state);
    let mut chooser = Pcg32::new(seed, CHOOSER_STREAM);
    let mut prober = Pcg32::new(seed, PROBE_STREAM);
    let mut track = Track {
        marches: ahd.left(&state),
        ..Track::default()
    };
    let mut actions: Vec<Action> = Vec::new();
    let result = loop {
        let step = actions.len();
        if state.outcome.is_some() {
            break Ok(());
        }
        if step >= MAX_ACTIONS {
            g.flag(
                step,
                "9.0: every game ends",
                format!("no result after {MAX_ACTIONS} actions"),
            );
            break Err(format!("no result after {MAX_ACTIONS} actions"));
        }
        let legal = match legal_actions(m, rules, &state) {
            Ok(l) => l,
            Err(e) => {
                g.flag(step, "the rules answer every question", e.to_string());
                break Err(e.to_string());
            }
        };
        if legal.is_empty() {
            let why = describe::situation(m, &state).replace('\n', "; ");
            g.flag(
                step,
                "3.0: a player always has an action until the game is over",
                why.clone(),
            );
            break Err(format!("stuck: {why}"));
        }
        check_legal(&mut g, step, &state, &legal, &track);
        check_placements(&mut g, step, rules, &state, &legal);
        let unchanged = state.clone();
        for probe in illegal_probes(ahd, &state, &legal, &mut prober) {
            if apply(m, rules, &state, &probe).is_ok() {
                let kind = format!("{probe:?}");
                let kind = kind.split([' ', '{']).next().unwrap_or_default();
                g.flag(
                    step,
                    &format!("an action not in the legal list is refused: {kind}"),
                    format!(
                        "{} ({probe:?}) was accepted in: {}",
                        describe::action(m, &state, &probe),
                        describe::situation(m, &state).replace('\n', "; ")
                    ),
                );
            }
        }
        if state != unchanged {
            g.flag(
                step,
                "a refused action leaves the state unchanged",
                "the state changed".into(),
            );
        }
        let len = u32::try_from(legal.len()).expect("few actions");
        let action = legal[(chooser.between_one_and(len) - 1) as usize].clone();
        let (next, lines) = match apply(m, rules, &state, &action) {
            Ok(x) => x,
            Err(e) => {
                g.flag(
                    step,
                    "every listed action is accepted",
                    format!("{}: {e}", describe::action(m, &state, &action)),
                );
                break Err(e.to_string());
            }
        };
        check_step(&mut g, step + 1, &state, &action, &next, &mut track);
        check_state(&mut g, step + 1, &next);
        log.extend(lines);
        actions.push(action);
        state = next;
    };
    rules.take_output();
    let n = actions.len();
    let result = match result {
        Err(e) => Err(e),
        Ok(()) => {
            let end = Action::EndStep;
            if legal_actions(m, rules, &state).map_or(true, |l| !l.is_empty())
                || apply(m, rules, &state, &end).is_ok()
            {
                g.flag(
                    n,
                    "nothing can be done once the game is over",
                    "actions offered or accepted".into(),
                );
            }
            check_replay(&mut g, rules, seed, actions, &state, &log);
            let o = state.outcome.as_ref().expect("over");
            let who = o.winner.map_or("nobody".into(), |w| m.side(w).id.clone());
            Ok((who, o.reason.clone()))
        }
    };
    (Played { actions: n, result }, g.findings)
}

/// A save of the game, through JSON and back, replays to the very same state and log.
fn check_replay(
    g: &mut Game<'_>,
    rules: &mut ScriptRules,
    seed: u64,
    actions: Vec<Action>,
    state: &GameState,
    log: &[String],
) {
    let m = &g.ahd.m;
    let n = actions.len();
    let scenario = SavedScenario {
        id: g.scenario.clone(),
        xml: None,
    };
    let save = Save::new(m, scenario, g.options.clone(), seed, actions, state.clone());
    let json = serde_json::to_string(&save).expect("a save serializes");
    let back: Save = match serde_json::from_str(&json) {
        Ok(s) => s,
        Err(e) => {
            g.flag(n, "a save reads back", e.to_string());
            return;
        }
    };
    if back != save {
        g.flag(n, "a save reads back as written", "it differs".into());
    }
    match back.replay(m, rules) {
        Ok((replayed, replay_log)) => {
            if &replayed != state {
                g.flag(n, "a replay gives the final state", "it differs".into());
            }
            if replay_log != log {
                g.flag(n, "a replay gives the same log", "it differs".into());
            }
        }
        Err(e) => g.flag(n, "a save replays", e.to_string()),
    }
}

fn games_to_play() -> usize {
    match std::env::var("MUSTER_RANDOM_GAMES") {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("MUSTER_RANDOM_GAMES must be a number, not '{v}'")),
        Err(_) => DEFAULT_GAMES,
    }
}

/// Plays games on every scenario with several seeds each, spread over the machine's
/// cores, and fails listing every rule that broke with its first example.
#[test]
fn random_games_keep_the_rules() {
    let games = games_to_play();
    let started = Instant::now();
    let scenarios = Ahd::load().m.scenarios.len();
    let next = AtomicUsize::new(0);
    let findings = Mutex::new(Findings::default());
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(games.max(1)) {
            scope.spawn(|| {
                // Rules hold Lua state, so each worker loads its own.
                let ahd = Ahd::load();
                let load = || muster_test_support::rules(&ahd.m);
                let mut rules = load();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= games {
                        break;
                    }
                    let scenario = i % scenarios;
                    let seed = (i / scenarios) as u64 + 1;
                    let id = ahd.m.scenarios[scenario].id.clone();
                    let t = Instant::now();
                    let outcome =
                        catch_unwind(AssertUnwindSafe(|| play(&ahd, &mut rules, scenario, seed)));
                    let (played, found) = match outcome {
                        Ok(x) => x,
                        Err(panic) => {
                            let msg = panic
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            rules = load();
                            let mut f = Findings::default();
                            f.add(
                                "the engine never panics".into(),
                                format!("scenario {id}, seed {seed}: {msg}"),
                            );
                            let played = Played {
                                actions: 0,
                                result: Err(format!("panicked: {msg}")),
                            };
                            (played, f)
                        }
                    };
                    findings.lock().unwrap().merge(found, i);
                    results
                        .lock()
                        .unwrap()
                        .push((id, seed, played, t.elapsed()));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let findings = findings.into_inner().unwrap();

    let actions: usize = results.iter().map(|r| r.2.actions).sum();
    let mut outcomes: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    let mut per_scenario: BTreeMap<String, (usize, usize, f64)> = BTreeMap::new();
    for (id, _, played, took) in &results {
        let (winner, reason) = match &played.result {
            Ok((w, r)) => (w.clone(), r.clone()),
            Err(e) => ("unfinished".into(), e.clone()),
        };
        *outcomes.entry((id.clone(), winner, reason)).or_default() += 1;
        let e = per_scenario.entry(id.clone()).or_default();
        e.0 += 1;
        e.1 += played.actions;
        e.2 = e.2.max(took.as_secs_f64());
    }
    eprintln!(
        "random games: {} games, {actions} actions in {:.1}s on {workers} threads",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    for (id, (n, a, slowest)) in &per_scenario {
        eprintln!(
            "  {id}: {n} games, {} actions on average, slowest {slowest:.2}s",
            a / n.max(&1)
        );
    }
    for ((id, winner, reason), n) in &outcomes {
        eprintln!("  {id}: {winner} x{n}: {reason}");
    }
    assert_eq!(results.len(), games);
    if !findings.by_rule.is_empty() {
        let mut report = String::from("rules broken in random games:\n");
        for (rule, f) in &findings.by_rule {
            report.push_str(&format!(
                "- {rule} ({} games, {} times); first: {}\n",
                f.games, f.times, f.example
            ));
        }
        panic!("{report}");
    }
}
