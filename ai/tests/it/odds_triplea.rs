//! The battle-odds calculator on the TripleA adaptation (`mods/ahd-triplea`), whose shot
//! modifiers depend on who is still in the battle (crack infantry lower the weakest
//! enemy units still there, a general raises his side's weakest) and whose
//! water-crossing tokens absorb hits: the simulator must play exactly the battles the
//! engine plays, die for die, and the tokens must change the odds.

use muster_ai::battle::{RetreatPolicy, choose_target, loss_action};
use muster_ai::odds::{Config, Fought, Outcome, Role, Setup, Simulator, Spec, generator, simulate};
use muster_core::game::battle::{Battle, Stage};
use muster_core::game::{Action, Dice, GameState, Place, apply, legal_actions, moves};
use muster_core::ids::{TurnId, UnitId};
use muster_core::{Module, load_module, load_scenario_str};
use muster_scripting::{Limits, ScriptRules};

fn triplea() -> (Module, ScriptRules) {
    let m = load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd-triplea"))
        .unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

fn battle(g: &GameState) -> Option<&Battle> {
    g.combat.as_ref().and_then(|c| c.battle.as_ref())
}

fn role(b: &Battle, side: muster_core::ids::SideId) -> Role {
    if side == b.attacker {
        Role::Attacker
    } else {
        Role::Defender
    }
}

/// Plays the battle under way in `start` through the engine's `legal_actions`/`apply`
/// with the dice of `seed`: targets and losses by the computer players' policies, no
/// retreats (the module's battle is TripleA's: owners choose their casualties, both
/// sides fire at once). Returns it as the simulator reports one, and the dice after it.
fn engine_battle(
    m: &Module,
    rules: &mut ScriptRules,
    start: &GameState,
    seed: u64,
) -> (Fought, Dice) {
    let mut g = start.clone();
    g.dice = Dice::seeded(seed);
    muster_core::game::battle::open_under_way(m, rules, &mut g).unwrap();
    let last = loop {
        let b = battle(&g).expect("a battle under way").clone();
        let legal = legal_actions(m, rules, &g).unwrap();
        let action = match b.stage {
            Stage::Withdraw | Stage::Retreat | Stage::Reinforce => Action::Pass,
            Stage::Target => {
                let Some(Action::Target { shooter, .. }) = legal.first() else {
                    panic!("no target to name: {legal:?}");
                };
                let shooter = *shooter;
                let targets: Vec<UnitId> = legal
                    .iter()
                    .filter_map(|a| match a {
                        Action::Target { shooter: s, target } if *s == shooter => Some(*target),
                        _ => None,
                    })
                    .collect();
                let target = choose_target(m, rules, &g, shooter, &targets).unwrap();
                Action::Target { shooter, target }
            }
            Stage::Losses => loss_action(m, rules, &g, &legal)
                .unwrap()
                .expect("a loss to take"),
            Stage::Upgrade | Stage::Rout => unreachable!("the battle was over"),
        };
        g = apply(m, rules, &g, &action)
            .unwrap_or_else(|e| panic!("{action:?}: {e}"))
            .0;
        if battle(&g).is_none_or(|nb| nb.winner.is_some()) {
            break b;
        }
    };
    let survivors = |units: &[UnitId]| {
        units
            .iter()
            .filter(|&&u| matches!(g.unit(u).place, Place::Board(_)))
            .map(|&u| (u, g.unit(u).hits))
            .collect::<Vec<_>>()
    };
    let (a, d) = (survivors(&last.attackers), survivors(&last.defenders));
    let outcome = match (a.is_empty(), d.is_empty()) {
        (false, true) => Outcome::Won {
            winner: role(&last, last.attacker),
        },
        (true, false) => Outcome::Won {
            winner: role(&last, last.defender),
        },
        _ => Outcome::Undecided,
    };
    let fought = Fought {
        outcome,
        round: last.round,
        attackers: a,
        defenders: d,
    };
    (fought, g.dice)
}

/// For each seed, the battle of `spec` through the engine and through the simulator:
/// the same outcome, rounds, survivors and dice. Returns the outcomes.
fn assert_equivalent(spec: &Spec, seeds: u64) -> Vec<Outcome> {
    let (m, mut rules) = triplea();
    let setup = Setup::from_spec(&m, spec).unwrap_or_else(|e| panic!("{e}"));
    let start = setup.position(&m).unwrap();
    assert_same_battles(&m, &mut rules, &start, &setup, seeds)
}

/// For each seed, the battle under way in `start` through the engine and `setup`'s
/// through the simulator: the same outcome, rounds, survivors and dice.
fn assert_same_battles(
    m: &Module,
    rules: &mut ScriptRules,
    start: &GameState,
    setup: &Setup,
    seeds: u64,
) -> Vec<Outcome> {
    let (m2, mut rules2) = triplea();
    let mut sim = Simulator::new(&m2, &mut rules2, setup).unwrap();
    let mut outcomes = Vec::new();
    for seed in 0..seeds {
        let (engine, dice) = engine_battle(m, rules, start, seed);
        let mut rng = generator(seed);
        let simulated = sim
            .fight(&mut rng, RetreatPolicy::Never, RetreatPolicy::Never)
            .unwrap();
        assert_eq!(simulated, engine, "seed {seed}");
        assert_eq!(Dice::Seeded(rng), dice, "seed {seed}: the same dice rolled");
        outcomes.push(engine.outcome);
    }
    outcomes
}

/// The worked example's armies at Chattanooga (the seed, "Cumulative modifier
/// effects"), the South entrenched.
fn chattanooga(union: &str, markers: &[&str]) -> Spec {
    Spec {
        attackers: union.into(),
        defenders: "1 Vi, 2 Mi, 1 Vc, 1 Mc".into(),
        at: Some("Chattanooga".into()),
        markers: markers.iter().map(|s| s.to_string()).collect(),
        ..Spec::default()
    }
}

fn wins(outcomes: &[Outcome], side: Role) -> usize {
    outcomes
        .iter()
        .filter(|&&o| o == Outcome::Won { winner: side })
        .count()
}

/// Crack infantry on both sides: each lowers the two weakest enemy units still in the
/// battle, so when one falls mid-volley the shots after it are rolled at the new values.
#[test]
fn equivalent_to_the_engine_crack_infantry() {
    let mut spec = chattanooga("2 Ci, 1 Vi, 2 Mi, 1 Vc, 1 Mc", &["entrenchment=1"]);
    spec.defenders = "1 Ci, 1 Vi, 2 Mi, 1 Vc, 1 Mc".into();
    let outcomes = assert_equivalent(&spec, 40);
    assert!(wins(&outcomes, Role::Attacker) > 0 && wins(&outcomes, Role::Defender) > 0);
}

/// A general with each side: Grant at strength 2 raises the North's two weakest, Lee
/// (3) the South's three, and who is weakest changes as units fall.
#[test]
fn equivalent_to_the_engine_generals() {
    let mut spec = chattanooga("1 Ci, 1 Vi, 1 Mi, 1 Vc, 1 Mc, grant[strength=2]", &[]);
    spec.defenders = "1 Vi, 2 Mi, 1 Vc, 1 Mc, 1 lee".into();
    let outcomes = assert_equivalent(&spec, 40);
    assert!(wins(&outcomes, Role::Attacker) > 0 && wins(&outcomes, Role::Defender) > 0);
}

/// Water-crossing tokens: +1 to every defender while one is left, and each absorbs a
/// hit on a defender (`absorbs_hit`, then `hit_absorbed` removes it).
#[test]
fn equivalent_to_the_engine_water_crossings() {
    let spec = chattanooga(
        "1 Ci, 1 Vi, 2 Mi, 1 Vc, 1 Mc, grant[strength=2]",
        &["entrenchment=1", "water-crossing=2"],
    );
    let outcomes = assert_equivalent(&spec, 40);
    assert!(wins(&outcomes, Role::Attacker) > 0 && wins(&outcomes, Role::Defender) > 0);
}

/// What the calculator got wrong before: it asked the shot values once per round with
/// every unit in the battle and never let a hit be absorbed, so two water-crossing
/// tokens changed nothing but the defenders' +1. They absorb two hits: the defender
/// wins clearly more often than with no token, and the simulator still plays the
/// engine's battles (checked battle for battle above).
#[test]
fn water_crossings_change_the_odds() {
    let (m, mut rules) = triplea();
    let config = Config {
        runs: 4000,
        seed: 3,
        ..Config::default()
    };
    let mut win = |markers: &[&str]| {
        let spec = chattanooga("2 Vi, 2 Mi, 1 Vc", markers);
        let setup = Setup::from_spec(&m, &spec).unwrap();
        simulate(&m, &mut rules, &setup, &config, None)
            .unwrap()
            .defender
            .win_pct
    };
    let (none, plus_one, two) = (
        win(&[]),
        win(&["water-crossing=1"]),
        win(&["water-crossing=2"]),
    );
    assert!(
        plus_one > none + 5.0,
        "a token's +1 helps: {none} -> {plus_one}"
    );
    assert!(
        two > plus_one + 5.0,
        "a second token absorbs a second hit: {plus_one} -> {two}"
    );
}

/// A battle of a game in progress (`Setup::from_battle`): the North marches from
/// Knoxville into Chattanooga with Grant placed beside it, the South's box holds an
/// entrenchment and a water-crossing token; the snapshot's pieces, markers and
/// attributes come from the game itself.
#[test]
fn equivalent_to_the_engine_from_a_game_in_progress() {
    let (m, mut rules) = triplea();
    let xml = r#"<scenario id="t" name="t" start="08/1861">
        <side id="union"><place box="Knoxville" units="3 Vi, 2 Ci, 2 Mi, 1 Vc"/><control box="Knoxville"/></side>
        <side id="confederate"><place box="Chattanooga" units="1 Ci, 1 Vi, 2 Mi, 1 Mc"/></side>
      </scenario>"#;
    let scenario = load_scenario_str(&m, "<test>", xml).unwrap_or_else(|e| panic!("{e}"));
    let mut g = GameState::new(&m, &scenario, Vec::new(), Dice::fixed([4])).unwrap();
    let union = m.find_side("union").unwrap();
    g.player = u8::try_from(m.calendar.sides.iter().position(|&s| s == union).unwrap()).unwrap();
    g.first_turn = TurnId(0);
    moves::begin(&m, &mut rules, &mut g).unwrap();
    let act = |g: &mut GameState, rules: &mut ScriptRules, a: Action| {
        *g = apply(&m, rules, g, &a)
            .unwrap_or_else(|e| panic!("{a:?}: {e}"))
            .0;
    };
    let (knoxville, chattanooga) = (
        m.board.find("Knoxville").unwrap(),
        m.board.find("Chattanooga").unwrap(),
    );
    let north: Vec<UnitId> = g.units_at(knoxville).collect();
    act(&mut g, &mut rules, Action::Select { at: knoxville });
    for u in north {
        let legal = legal_actions(&m, &mut rules, &g).unwrap();
        let a = legal
            .into_iter()
            .find(|a| matches!(a, Action::Move { unit, path } if *unit == u && path.to() == chattanooga))
            .unwrap_or_else(|| panic!("{u:?} cannot reach Chattanooga"));
        act(&mut g, &mut rules, a);
    }
    act(&mut g, &mut rules, Action::Release);
    while g.current_step(&m).is_some_and(|s| s.id != "combat") {
        act(&mut g, &mut rules, Action::EndStep);
    }
    let grant = g
        .unit_ids()
        .find(|&u| m.units.get(g.unit(u).kind).id == "grant")
        .unwrap();
    g.units[grant.index()].place = Place::Board(chattanooga);
    let strength = m.units.find_attribute("strength").unwrap();
    g.attributes.push((grant, strength, 2));
    g.attributes.sort_unstable_by_key(|&(u, a, _)| (u, a));
    for (marker, n) in [("entrenchment", 1), ("water-crossing", 1)] {
        g.markers
            .push((chattanooga, m.units.find_marker(marker).unwrap(), n));
    }
    g.markers.sort_unstable_by_key(|&(b, k, _)| (b, k));
    // TripleA's battle fires at once: round 1 is played (losses by the players'
    // policy), and the snapshot is the attacker's decision at the start of round 2.
    g.dice = Dice::seeded(11);
    act(&mut g, &mut rules, Action::Fight { at: chattanooga });
    while battle(&g).is_some_and(|b| b.stage == Stage::Losses) {
        let legal = legal_actions(&m, &mut rules, &g).unwrap();
        let loss = loss_action(&m, &mut rules, &g, &legal).unwrap().unwrap();
        act(&mut g, &mut rules, loss);
    }
    let b = battle(&g).expect("the battle goes on into round 2");
    assert_eq!((b.round, b.stage), (2, Stage::Retreat));
    let setup = Setup::from_battle(&m, &g).unwrap();
    assert!(
        setup.companions.is_empty() && setup.markers.is_empty(),
        "in the position"
    );
    let outcomes = assert_same_battles(&m, &mut rules, &g, &setup, 40);
    assert!(wins(&outcomes, Role::Attacker) > 0 && wins(&outcomes, Role::Defender) > 0);
}

/// TripleA's battle against AHD's on the same forces and the same rules (issue 51, 6):
/// with simultaneous fire every attacker rolls in round 1 before any is lost, where in
/// AHD's the defender fires first and the attackers it kills never fire, so the attacker
/// wins more often; and an attacker that loses a unit always loses its cheapest.
#[test]
fn triplea_battle_favours_the_attacker_more_than_ahds() {
    let (m, mut rules) = triplea();
    let mut ahd_way = m.clone();
    for s in &mut ahd_way.calendar.steps {
        s.battle = Default::default();
    }
    let config = Config {
        runs: 4000,
        seed: 5,
        ..Config::default()
    };
    let spec = Spec {
        attackers: "3 Vi, 2 Mi".into(),
        defenders: "3 Vi, 2 Mi".into(),
        ..Spec::default()
    };
    let mut attacker_wins = |module: &Module| {
        let setup = Setup::from_spec(module, &spec).unwrap();
        simulate(module, &mut rules, &setup, &config, None)
            .unwrap()
            .attacker
    };
    let triplea_way = attacker_wins(&m);
    let ahd = attacker_wins(&ahd_way);
    assert!(
        triplea_way.win_pct > ahd.win_pct + 5.0,
        "TripleA's {} against AHD's {}",
        triplea_way.win_pct,
        ahd.win_pct
    );
    // The militia (2) go before the veterans (3): the veterans survive more often.
    let survivors = |kind: &str| {
        triplea_way
            .units
            .iter()
            .find(|t| t.kind == kind)
            .map(|t| t.survivors / f64::from(t.count))
            .unwrap()
    };
    assert!(survivors("Vi") > survivors("Mi"));
}

/// TripleA's battle with the engine, battle for battle, on even forces with no
/// modifier: simultaneous volleys, losses by the players' policy, both sides wiped out
/// together reported as undecided.
#[test]
fn equivalent_to_the_engine_simultaneous_fire() {
    let spec = Spec {
        attackers: "2 Vi, 1 Mi".into(),
        defenders: "2 Vi, 1 Mc".into(),
        ..Spec::default()
    };
    let outcomes = assert_equivalent(&spec, 60);
    assert!(wins(&outcomes, Role::Attacker) > 0 && wins(&outcomes, Role::Defender) > 0);
}
