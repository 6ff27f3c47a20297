//! How fast the battle-odds calculator is: 10,000 runs of a 6-against-6 battle with
//! modifiers (AHD's, fixed for a battle; and the TripleA adaptation's, which are not), each sample a fresh `simulate` call (so the rule answers are asked of the
//! Luau scripts and cached within it, as `muster odds` does), on one core. The target
//! is under 100 ms for 10,000 runs.
//!
//! Run with `cargo bench -p muster-ai --bench odds`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use muster_ai::odds::{Config, Losses, RetreatPolicy, Setup, Spec, simulate};
use muster_core::Module;
use muster_scripting::{Limits, ScriptRules};

fn ahd() -> (Module, ScriptRules) {
    let module = muster_core::load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd"))
        .unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&module, Limits::default()).expect("the AHD rules load");
    (module, rules)
}

fn triplea() -> (Module, ScriptRules) {
    let module =
        muster_core::load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd-triplea"))
            .unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&module, Limits::default()).expect("the TripleA rules load");
    (module, rules)
}

fn odds(c: &mut Criterion) {
    let (m, mut rules) = ahd();
    // Vicksburg: the defenders are entrenched (4.3) and three attackers cross the
    // Mississippi (5.34), with Crack Infantry on both sides (5.32).
    let spec = Spec {
        attackers: "3 Vi, 1 Ci, 2 Vc".into(),
        defenders: "2 Vi, 2 Mi, 1 Ci, 1 Vc".into(),
        at: Some("Vicksburg".into()),
        crossing: 3,
        ..Spec::default()
    };
    let mut plain = Setup::from_spec(&m, &spec).expect("the battle sets up");
    plain.settle(&m, &mut rules).expect("the rules settle it");
    let mut like = Setup::from_spec(
        &m,
        &Spec {
            options: vec!["like-battlefield-targets".into()],
            ..spec
        },
    )
    .expect("the battle sets up");
    like.settle(&m, &mut rules).expect("the rules settle it");
    let config = Config {
        runs: 10_000,
        ..Config::default()
    };
    let retreats = Config {
        attacker_retreat: RetreatPolicy::LossesOver(Losses::Fraction(0.5)),
        defender_retreat: RetreatPolicy::AfterRound(4),
        ..config
    };
    let mut group = c.benchmark_group("odds");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("6v6 Vicksburg entrenched, 3 crossing: 10k runs", |b| {
        b.iter(|| simulate(&m, &mut rules, black_box(&plain), &config, None).expect("runs"))
    });
    group.bench_function("the same with 5.2 and retreat policies: 10k runs", |b| {
        b.iter(|| simulate(&m, &mut rules, black_box(&like), &retreats, None).expect("runs"))
    });
    // The TripleA adaptation: shot modifiers that depend on who is still in the battle
    // (crack infantry, a general) and water-crossing tokens that absorb hits, so
    // tables are kept per situation and hits may run `hit_absorbed`.
    let (t, mut t_rules) = triplea();
    let chattanooga = Setup::from_spec(
        &t,
        &Spec {
            attackers: "1 Vi, 2 Ci, 2 Mi, 1 Vc, grant[strength=2]".into(),
            defenders: "1 Vi, 1 Ci, 2 Mi, 1 Vc, 1 Mc".into(),
            at: Some("Chattanooga".into()),
            markers: vec!["entrenchment=1".into(), "water-crossing=2".into()],
            ..Spec::default()
        },
    )
    .expect("the battle sets up");
    group.bench_function(
        "TripleA 6v6 Chattanooga, crack infantry, Grant, 2 water crossings: 10k runs",
        |b| {
            b.iter(|| {
                simulate(&t, &mut t_rules, black_box(&chattanooga), &config, None).expect("runs")
            })
        },
    );
    group.finish();
}

criterion_group!(benches, odds);
criterion_main!(benches);
