//! Quick duel harness (dev aid): `cargo run --release -p muster-ai --example duel -- SCEN U C N`.
use muster_ai::Level;
use muster_ai::balance::{GameSetup, run, summarise};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let module =
        muster_core::load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd")).unwrap();
    let sc = module.scenario(&a[1]).unwrap();
    let setup = GameSetup {
        scenario: sc,
        options: vec![],
        players: vec![Level::parse(&a[2]).unwrap(), Level::parse(&a[3]).unwrap()],
        end: None,
        max_actions: 200_000,
    };
    let n: usize = a[4].parse().unwrap();
    let t = std::time::Instant::now();
    let res = run(
        &module,
        || {
            muster_scripting::ScriptRules::load(&module, muster_scripting::Limits::default())
                .map_err(|e| e.to_string())
        },
        &setup,
        n,
        1,
        1,
        &|_| {},
    )
    .unwrap();
    for r in &res {
        println!(
            "{:?} {} turns={} actions={}",
            r.winner, r.reason, r.turns, r.actions
        );
    }
    println!("{:#?}", summarise(&module, &res).wins);
    println!("{:?} per game", t.elapsed() / n as u32);
}
