//! Instruction counts of the figures muster's speed is judged by (issue 48, item 3):
//! a random game, an `ai` game, a `strong` player turn, legal actions, the odds. Each
//! benchmark runs once under callgrind; its setup (loading AHD and its rules, reaching
//! the position) is not counted. Run with `cargo bench` in `counts/` (gungraun-runner
//! 0.20.0 and valgrind installed); gungraun keeps the last run and prints the change.

use std::hint::black_box;

// The allocator `muster` runs with (src/main.rs), so the counts are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use gungraun::{library_benchmark, library_benchmark_group, main};
use muster_ai::Level;
use muster_ai::odds::Setup;
use muster_core::game::GameState;
use muster_counts::{
    Ahd, activated_1864, computer_game, odds, player_turn, random_game, vicksburg,
};

fn ahd() -> Ahd {
    Ahd::load()
}

fn at_1864_activated() -> (Ahd, GameState) {
    let mut ahd = Ahd::load();
    let state = activated_1864(&mut ahd);
    (ahd, state)
}

fn at_1861_start() -> (Ahd, GameState) {
    let mut ahd = Ahd::load();
    let state = ahd.begin("1861", 1);
    (ahd, state)
}

fn at_vicksburg() -> (Ahd, Setup) {
    let mut ahd = Ahd::load();
    let setup = vicksburg(&mut ahd);
    (ahd, setup)
}

// `muster play mods/ahd --union random --confederate random --seed 7`'s game.
#[library_benchmark]
#[bench::seed_7_1861(setup = ahd)]
fn random_game_1861(mut ahd: Ahd) -> usize {
    black_box(random_game(&mut ahd, "1861", 7))
}

// `muster play mods/ahd --union ai --confederate ai --seed 1`'s game.
#[library_benchmark]
#[bench::seed_1_1861(setup = ahd)]
fn ai_game_1861(mut ahd: Ahd) -> usize {
    black_box(computer_game(&mut ahd, "1861", Level::Ai, 1))
}

// The `strong` player's first Union turn of 1861 at the default budget, on one thread.
#[library_benchmark]
#[bench::union_1861(setup = at_1861_start)]
fn strong_turn(fixture: (Ahd, GameState)) -> usize {
    let (mut ahd, state) = fixture;
    black_box(player_turn(&mut ahd, &state, Level::strong(), 1))
}

// The legal actions at the 1864 start with the Union's biggest box activated.
#[library_benchmark]
#[bench::start_1864_activated(setup = at_1864_activated)]
fn legal_actions(fixture: (Ahd, GameState)) -> usize {
    let (mut ahd, state) = fixture;
    let list = muster_core::game::legal_actions(&ahd.module, &mut ahd.rules, &state)
        .expect("legal actions");
    black_box(list.len())
}

// 10,000 runs of the 6-against-6 at Vicksburg, as `muster odds` plays them.
#[library_benchmark]
#[bench::vicksburg_10k(setup = at_vicksburg)]
fn odds_vicksburg(fixture: (Ahd, Setup)) -> u64 {
    let (mut ahd, setup) = fixture;
    black_box(odds(&mut ahd, &setup, 10_000).runs)
}

library_benchmark_group!(
    name = ahd_figures;
    benchmarks = random_game_1861, ai_game_1861, strong_turn, legal_actions, odds_vicksburg
);

main!(library_benchmark_groups = ahd_figures);
