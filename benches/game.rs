//! What bounds how fast muster plays AHD: listing the legal actions (every question is
//! answered by the Luau rules), applying actions, and whole games as the random players
//! of `muster play` play them.
//!
//! Run with `cargo bench --bench game`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use muster_core::Module;
use muster_core::game::dice::Pcg32;
use muster_core::game::{Action, Dice, GameState, Place, apply, legal_actions, start};
use muster_scripting::{Limits, ScriptRules};

fn ahd() -> (Module, ScriptRules) {
    let module = muster_core::load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd"))
        .unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&module, Limits::default()).expect("the AHD rules load");
    (module, rules)
}

fn begin(m: &Module, rules: &mut ScriptRules, scenario: &str, seed: u64) -> GameState {
    let sc = m.scenario(scenario).expect("scenario");
    start(m, rules, sc, Vec::new(), Dice::seeded(seed))
        .expect("the scenario starts")
        .0
}

/// One step of a random player, as `muster play` chooses: uniform over the legal list.
fn random_step(
    m: &Module,
    rules: &mut ScriptRules,
    state: &GameState,
    chooser: &mut Pcg32,
) -> (Action, GameState) {
    let legal = legal_actions(m, rules, state).expect("legal actions");
    let n = u32::try_from(legal.len()).expect("few actions");
    let action = legal[(chooser.between_one_and(n) - 1) as usize].clone();
    let next = apply(m, rules, state, &action)
        .expect("a legal action applies")
        .0;
    (action, next)
}

/// Plays a whole game between random players; returns the number of actions.
fn random_game(m: &Module, rules: &mut ScriptRules, scenario: &str, seed: u64) -> usize {
    let mut state = begin(m, rules, scenario, seed);
    let mut chooser = Pcg32::new(seed, 2);
    let mut n = 0;
    while state.outcome.is_none() {
        state = random_step(m, rules, &state, &mut chooser).1;
        n += 1;
    }
    n
}

/// The start of 1864: the Union's first Movement segment, with nothing activated and
/// with its biggest box activated (the most units, so the most paths to search).
fn legal_actions_1864(c: &mut Criterion) {
    let (m, mut rules) = ahd();
    let state = begin(&m, &mut rules, "1864", 1);
    let union = m.find_side("union").expect("union");
    assert_eq!(state.active_side(&m), union);
    assert!(state.moving.as_ref().is_some_and(|s| s.active.is_none()));
    c.bench_function("legal actions, 1864 start, no box activated", |b| {
        b.iter(|| black_box(legal_actions(&m, &mut rules, black_box(&state)).unwrap()))
    });
    let biggest = m
        .board
        .box_ids()
        .max_by_key(|&b| {
            state
                .units
                .iter()
                .filter(|u| u.side == union && u.place == Place::Board(b))
                .count()
        })
        .expect("boxes");
    let units = state.units_at(biggest).count();
    let activated = apply(&m, &mut rules, &state, &Action::Select { at: biggest })
        .expect("the biggest box activates")
        .0;
    let name = format!(
        "legal actions, 1864 start, {} activated ({units} units)",
        m.board.get(biggest).name
    );
    c.bench_function(&name, |b| {
        b.iter(|| black_box(legal_actions(&m, &mut rules, black_box(&activated)).unwrap()))
    });
}

/// A whole 1861 campaign between random players (seed 7, as in the README's example).
fn full_game_1861(c: &mut Criterion) {
    let (m, mut rules) = ahd();
    let actions = random_game(&m, &mut rules, "1861", 7);
    let mut g = c.benchmark_group("full game");
    // A game takes a fraction of a second: ten games, one per sample.
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(5));
    g.bench_function(
        format!("random game, 1861, seed 7 ({actions} actions)"),
        |b| b.iter(|| black_box(random_game(&m, &mut rules, "1861", black_box(7)))),
    );
    g.finish();
}

/// Applying 1000 actions chosen at random, each to the position it was chosen in
/// (taken from random games of every scenario, so every segment is represented).
fn apply_1000(c: &mut Criterion) {
    let (m, mut rules) = ahd();
    let mut steps: Vec<(GameState, Action)> = Vec::with_capacity(1000);
    let ids: Vec<String> = m.scenarios.iter().map(|s| s.id.clone()).collect();
    'games: for seed in 1.. {
        for id in &ids {
            let mut state = begin(&m, &mut rules, id, seed);
            let mut chooser = Pcg32::new(seed, 2);
            for _ in 0..200 {
                if state.outcome.is_some() {
                    break;
                }
                let (action, next) = random_step(&m, &mut rules, &state, &mut chooser);
                steps.push((state, action));
                state = next;
                if steps.len() == 1000 {
                    break 'games;
                }
            }
        }
    }
    c.bench_function("apply 1000 random actions", |b| {
        b.iter(|| {
            for (state, action) in &steps {
                black_box(apply(&m, &mut rules, state, action).unwrap());
            }
        })
    });
}

/// A whole player turn of the default computer player (`ai`): the Union's first turn of
/// 1864 (the biggest armies of any scenario), and of 1861; plus a whole 1861 game
/// between two `ai` players.
fn ai_turn(c: &mut Criterion) {
    let (m, mut rules) = ahd();
    let mut g = c.benchmark_group("ai");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(5));
    for scenario in ["1864", "1861"] {
        let state = begin(&m, &mut rules, scenario, 1);
        g.bench_function(format!("ai player turn, {scenario} start"), |b| {
            b.iter(|| {
                let mut player = muster_ai::player(muster_ai::Level::Ai, 1);
                let mut s = state.clone();
                let mut n = 0;
                while s.outcome.is_none() && s.turn == state.turn && s.player == state.player {
                    s = muster_ai::step(player.as_mut(), &m, &mut rules, &s)
                        .expect("the ai acts")
                        .1;
                    n += 1;
                }
                black_box(n)
            })
        });
    }
    let scenario = m.scenario("1861").expect("1861");
    let setup = muster_ai::balance::GameSetup {
        scenario,
        options: Vec::new(),
        players: vec![muster_ai::Level::Ai; 2],
        end: None,
        max_actions: 200_000,
    };
    g.bench_function("ai vs ai, whole 1861 game, seed 1", |b| {
        b.iter(|| {
            black_box(
                muster_ai::balance::play_game(&m, &mut rules, &setup, 1)
                    .expect("the game plays")
                    .0
                    .actions,
            )
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    legal_actions_1864,
    full_game_1861,
    apply_1000,
    ai_turn
);
criterion_main!(benches);
