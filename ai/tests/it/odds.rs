//! The battle-odds calculator against the rules (Living Rules 5.0-5.7): the simulator
//! must play exactly the battles the engine plays, die for die, and its frequencies must
//! match probabilities computed exactly.

use muster_ai::battle::{RetreatPolicy, choose_target};
use muster_ai::odds::{
    Config, Fought, Losses, OddsError, Outcome, Phase, Role, Setup, Simulator, Spec, generator,
    simulate,
};
use muster_core::game::battle::{Battle, Stage};
use muster_core::game::{Action, Dice, GameState, Place, apply, legal_actions, moves};
use muster_core::ids::{BoxId, TurnId, UnitId};
use muster_core::{Module, load_scenario_str};
use muster_scripting::ScriptRules;

use muster_test_support::ahd;

/// A game position played through the engine and the AHD scripts.
struct Pos {
    m: Module,
    rules: ScriptRules,
    g: GameState,
}

impl Pos {
    /// `xml`'s position at the start of `side`'s Movement segment, six marches to spend.
    fn new(xml: &str, side: &str, options: &[&str]) -> Pos {
        let (m, mut rules) = ahd();
        let scenario = load_scenario_str(&m, "<test>", xml).unwrap_or_else(|e| panic!("{e}"));
        let options = options.iter().map(|o| m.find_option(o).unwrap()).collect();
        let mut g = GameState::new(&m, &scenario, options, Dice::fixed([6])).unwrap();
        let side = m.find_side(side).unwrap();
        g.player = u8::try_from(m.calendar.sides.iter().position(|&s| s == side).unwrap()).unwrap();
        g.first_turn = TurnId(0);
        moves::begin(&m, &mut rules, &mut g).unwrap();
        Pos { m, rules, g }
    }

    fn id(&self, name: &str) -> BoxId {
        self.m.board.find(name).unwrap()
    }

    fn act(&mut self, a: &Action) {
        self.g = apply(&self.m, &mut self.rules, &self.g, a)
            .unwrap_or_else(|e| panic!("{a:?}: {e}"))
            .0;
    }

    /// One march: every unit of the moving side in `from` goes to `to` along lines of
    /// these kinds.
    fn march(&mut self, from: &str, to: &str, kinds: &[&str]) {
        let (from, to) = (self.id(from), self.id(to));
        self.act(&Action::Select { at: from });
        let side = self.g.active_side(&self.m);
        let units: Vec<UnitId> = self
            .g
            .units_at(from)
            .filter(|&u| self.g.unit(u).side == side)
            .collect();
        for u in units {
            let legal = legal_actions(&self.m, &mut self.rules, &self.g).unwrap();
            let m = &self.m;
            let a = legal
                .into_iter()
                .find(|a| match a {
                    Action::Move { unit, path } => {
                        let ks: Vec<&str> = path
                            .steps
                            .iter()
                            .map(|s| m.board.kinds[m.board.line(s.line).kind.index()].id.as_str())
                            .collect();
                        *unit == u && path.to() == to && ks == kinds
                    }
                    _ => false,
                })
                .unwrap_or_else(|| panic!("unit {u:?} cannot march to {to:?} by {kinds:?}"));
            self.act(&a);
        }
        self.act(&Action::Release);
    }

    /// Marches on Natchez (see [`scenario`]), ends the Movement segment and starts the
    /// battle at `at`.
    fn fight(&mut self, at: &str) {
        self.march("Alexandria", "Natchez", &["river"]);
        self.act(&Action::EndStep);
        let at = self.id(at);
        self.act(&Action::Fight { at });
    }

    fn battle(&self) -> &Battle {
        self.g.combat.as_ref().unwrap().battle.as_ref().unwrap()
    }
}

fn role(b: &Battle, side: muster_core::ids::SideId) -> Role {
    if side == b.attacker {
        Role::Attacker
    } else {
        Role::Defender
    }
}

/// Steps a side has left in the battle: its units' steps less their hits.
fn steps_left(m: &Module, g: &GameState, units: &[UnitId]) -> u32 {
    units
        .iter()
        .map(|&u| u32::from(m.units.get(g.unit(u).kind).steps - g.unit(u).hits))
        .sum()
}

/// Plays the battle under way in `p` to its end through `legal_actions`/`apply`, seeded
/// with `seed`: targets by the AI's policy, retreats (and 5.6 withdrawals) by these
/// policies, no reinforcements. Returns the battle as the simulator reports one, and the
/// dice after it.
fn engine_battle(p: &mut Pos, seed: u64, policies: [RetreatPolicy; 2]) -> (Fought, Dice) {
    let start = p.g.clone();
    p.g.dice = Dice::seeded(seed);
    let b0 = p.battle().clone();
    let start_steps = [
        steps_left(&p.m, &p.g, &b0.attackers),
        steps_left(&p.m, &p.g, &b0.defenders),
    ];
    let (last, action) = loop {
        let b = p.battle().clone();
        let legal = legal_actions(&p.m, &mut p.rules, &p.g).unwrap();
        let first_retreat = legal
            .iter()
            .find(|a| matches!(a, Action::Retreat { .. }))
            .cloned();
        let action = match b.stage {
            Stage::Withdraw => match first_retreat {
                Some(a) if policies[1].wants_withdrawal() => a,
                _ => Action::Pass,
            },
            Stage::Retreat => {
                let r = role(&b, b.firing);
                let own = if r == Role::Attacker {
                    &b.attackers
                } else {
                    &b.defenders
                };
                let s = start_steps[r as usize];
                let lost = s - steps_left(&p.m, &p.g, own);
                match first_retreat {
                    Some(a) if policies[r as usize].wants_retreat(b.round, lost, s) => a,
                    _ => Action::Pass,
                }
            }
            Stage::Reinforce => Action::Pass,
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
                let target = choose_target(&p.m, &mut p.rules, &p.g, shooter, &targets).unwrap();
                Action::Target { shooter, target }
            }
            Stage::Upgrade | Stage::Losses | Stage::Rout => unreachable!("the battle was over"),
        };
        p.act(&action);
        let over =
            p.g.combat
                .as_ref()
                .and_then(|c| c.battle.as_ref())
                .is_none_or(|nb| nb.winner.is_some());
        if over {
            break (b, action);
        }
    };
    let outcome = match (&action, last.stage) {
        (Action::Retreat { .. }, Stage::Withdraw) => Outcome::Withdrawn,
        (Action::Retreat { .. }, _) => Outcome::Retreated {
            by: role(&last, last.firing),
        },
        _ => Outcome::Won {
            winner: role(&last, last.firing),
        },
    };
    let survivors = |units: &[UnitId]| {
        units
            .iter()
            .filter(|&&u| matches!(p.g.unit(u).place, Place::Board(_)))
            .map(|&u| (u, p.g.unit(u).hits))
            .collect::<Vec<_>>()
    };
    let fought = Fought {
        outcome,
        round: if outcome == Outcome::Withdrawn {
            0
        } else {
            last.round
        },
        attackers: survivors(&last.attackers),
        defenders: survivors(&last.defenders),
    };
    let dice = std::mem::replace(&mut p.g, start).dice;
    (fought, dice)
}

/// For each seed, plays the battle under way in `p` through the engine and through the
/// simulator (from `Setup::from_battle`) and asserts the same battle: outcome, rounds,
/// survivors with their hits, and the same number of dice rolled. Returns the outcomes,
/// so callers can check the seeds covered what they meant to.
fn assert_equivalent(p: &mut Pos, seeds: u64, policies: [RetreatPolicy; 2]) -> Vec<Outcome> {
    let setup = Setup::from_battle(&p.m, &p.g).unwrap();
    let (m2, mut rules2) = ahd();
    let mut sim = Simulator::new(&m2, &mut rules2, &setup).unwrap();
    let mut outcomes = Vec::new();
    for seed in 0..seeds {
        let (engine, dice) = engine_battle(p, seed, policies);
        let mut rng = generator(seed);
        let simulated = sim.fight(&mut rng, policies[0], policies[1]).unwrap();
        assert_eq!(simulated, engine, "seed {seed}");
        assert_eq!(Dice::Seeded(rng), dice, "seed {seed}: the same dice rolled");
        outcomes.push(engine.outcome);
    }
    outcomes
}

/// A position for a Union attack, with a militia on each side by Natchez: the Union's
/// marches there before the battle, and that second battle keeps the Combat segment open
/// after the one under test, so 5.7's recovery does not flip survivors back before they
/// are compared.
fn scenario(union: &str, confederate: &str) -> String {
    format!(
        r#"<scenario id="t" name="t" start="08/1861">
          <side id="union">{union}<place box="Alexandria" units="1 Mi"/></side>
          <side id="confederate">{confederate}<place box="Natchez" units="1 Mi"/></side>
        </scenario>"#
    )
}

const NEVER: [RetreatPolicy; 2] = [RetreatPolicy::Never, RetreatPolicy::Never];

/// 5.0/5.1: a plain battle, to the end: defender first, announced fire, wasted shots.
#[test]
fn equivalent_to_the_engine_plain_battle() {
    let xml = scenario(
        r#"<place box="Harrisburg" units="2 Vi, 2 Mi, 1 Vc"/>"#,
        r#"<place box="Gettysburg" units="1 Vi, 2 Mi, 1 Vc, 1 Ci"/>"#,
    );
    let mut p = Pos::new(&xml, "union", &[]);
    p.march("Harrisburg", "Gettysburg", &["rail"]);
    p.fight("Gettysburg");
    let outcomes = assert_equivalent(&mut p, 30, NEVER);
    for side in [Role::Attacker, Role::Defender] {
        assert!(
            outcomes.contains(&Outcome::Won { winner: side }),
            "both sides win some: {outcomes:?}"
        );
    }
}

/// 5.31 and 5.32: entrenched defenders with Crack Infantry on both sides; 5.4 retreats
/// by both policies (after round 3 for the attacker, past 3 steps lost for the
/// defender).
#[test]
fn equivalent_to_the_engine_entrenched_crack_infantry_and_retreats() {
    let xml = scenario(
        r#"<place box="Harrisburg" units="2 Ci, 2 Vi, 2 Mi"/>"#,
        r#"<place box="Gettysburg" units="2 Ci, 1 Vi, 2 Mi" flags="entrenched"/>"#,
    );
    let mut p = Pos::new(&xml, "union", &[]);
    p.march("Harrisburg", "Gettysburg", &["rail"]);
    p.fight("Gettysburg");
    let policies = [
        RetreatPolicy::AfterRound(3),
        RetreatPolicy::LossesOver(Losses::Steps(3)),
    ];
    let outcomes = assert_equivalent(&mut p, 30, policies);
    for by in [Role::Attacker, Role::Defender] {
        assert!(
            outcomes.contains(&Outcome::Retreated { by }),
            "both sides retreat in some: {outcomes:?}"
        );
    }
}

/// 5.34: some attackers cross the river into Vicksburg (Monroe's line crosses its water
/// border, Jackson's does not); the defenders are entrenched (4.3, a Permanent
/// Entrenchment). The defender's +1 lasts two rounds.
#[test]
fn equivalent_to_the_engine_river_crossing() {
    let xml = scenario(
        r#"<place box="Monroe" units="2 Vi, 1 Mi"/><place box="Jackson" units="2 Vi, 1 Vc"/>"#,
        r#"<place box="Vicksburg" units="2 Vi, 2 Mi, 1 Ci, 1 Vc" flags="entrenched"/>"#,
    );
    let mut p = Pos::new(&xml, "union", &[]);
    p.march("Monroe", "Vicksburg", &["rail"]);
    p.march("Jackson", "Vicksburg", &["rail"]);
    p.fight("Vicksburg");
    let crossing = p
        .battle()
        .entries
        .iter()
        .filter(|(_, e)| {
            e.flatten().is_some_and(|l| {
                p.m.board
                    .line(l)
                    .crosses_water_border_into(p.id("Vicksburg"))
            })
        })
        .count();
    assert_eq!(crossing, 3, "Monroe's three crossed the river");
    let policies = [
        RetreatPolicy::LossesOver(Losses::Fraction(0.5)),
        RetreatPolicy::Never,
    ];
    assert_equivalent(&mut p, 30, policies);
}

/// 5.2 (optional): like battlefield targets restrict who may fire at whom.
#[test]
fn equivalent_to_the_engine_like_battlefield_targets() {
    let xml = scenario(
        r#"<place box="Harrisburg" units="2 Vi, 1 Mi, 2 Vc, 1 Mc"/>"#,
        r#"<place box="Gettysburg" units="1 Vi, 2 Mi, 2 Vc, 1 Cc"/>"#,
    );
    let mut p = Pos::new(&xml, "union", &["like-battlefield-targets"]);
    p.march("Harrisburg", "Gettysburg", &["rail"]);
    p.fight("Gettysburg");
    assert_equivalent(&mut p, 25, NEVER);
}

/// 5.6: a defender of only cavalry withdraws before combat when its policy is to leave
/// at once, and fights otherwise.
#[test]
fn equivalent_to_the_engine_cavalry_withdrawal() {
    let xml = scenario(
        r#"<place box="Harrisburg" units="2 Vi"/>"#,
        r#"<place box="Gettysburg" units="2 Vc"/>"#,
    );
    let mut p = Pos::new(&xml, "union", &[]);
    p.march("Harrisburg", "Gettysburg", &["rail"]);
    p.fight("Gettysburg");
    assert_eq!(p.battle().stage, Stage::Withdraw, "5.6 offers a withdrawal");
    let leave = [RetreatPolicy::Never, RetreatPolicy::AfterRound(0)];
    assert!(
        assert_equivalent(&mut p, 3, leave)
            .iter()
            .all(|&o| o == Outcome::Withdrawn)
    );
    let stay = assert_equivalent(&mut p, 10, NEVER);
    assert!(!stay.contains(&Outcome::Withdrawn));
}

/// A snapshot of a battle under way (`Setup::from_battle`): mid-announcement (5.1:
/// shots announced stand), and at a retreat decision in round 2 (5.4).
#[test]
fn equivalent_to_the_engine_from_a_battle_under_way() {
    let xml = scenario(
        r#"<place box="Harrisburg" units="3 Vi, 1 Mi, 1 Vc"/>"#,
        r#"<place box="Gettysburg" units="2 Vi, 2 Mi, 1 Ci" flags="entrenched"/>"#,
    );
    let mut p = Pos::new(&xml, "union", &[]);
    p.march("Harrisburg", "Gettysburg", &["rail"]);
    p.fight("Gettysburg");
    // Round 1: the defender names two targets (the last listed attackers, not the
    // policy's choice), then the snapshot.
    let b = p.battle().clone();
    p.act(&Action::Target {
        shooter: b.defenders[0],
        target: b.attackers[4],
    });
    p.act(&Action::Target {
        shooter: b.defenders[1],
        target: b.attackers[3],
    });
    let setup = Setup::from_battle(&p.m, &p.g).unwrap();
    assert_eq!(
        setup.phase,
        Phase::Targeting {
            shots: vec![
                (b.defenders[0], b.attackers[4]),
                (b.defenders[1], b.attackers[3])
            ]
        }
    );
    let policies = [RetreatPolicy::AfterRound(2), RetreatPolicy::Never];
    assert_equivalent(&mut p, 20, policies);

    // On to round 2 with seed 1's dice, to the defender's retreat decision.
    p.g.dice = Dice::seeded(1);
    while p.battle().stage == Stage::Target {
        let legal = legal_actions(&p.m, &mut p.rules, &p.g).unwrap();
        p.act(&legal[0]);
    }
    assert_eq!((p.battle().round, p.battle().stage), (2, Stage::Retreat));
    assert_eq!(
        Setup::from_battle(&p.m, &p.g).unwrap().phase,
        Phase::PartStart
    );
    let policies = [
        RetreatPolicy::LossesOver(Losses::Steps(2)),
        RetreatPolicy::AfterRound(2),
    ];
    assert_equivalent(&mut p, 20, policies);
}

/// Exact outcome probabilities of a one-against-one battle of two-step units (5.0, 5.1:
/// the defender fires first; each side fires once per round): the chance the attacker
/// wins, and the chance the battle ends in each round, by forward iteration of the
/// Markov chain over (attacker hits, defender hits).
fn exact(p_att: f64, p_def: f64) -> (f64, Vec<f64>) {
    // dist[ha][hd]: probability of the battle still going with these hits, at a round's
    // start.
    let mut dist = [[0.0; 2]; 2];
    dist[0][0] = 1.0;
    let mut attacker_wins = 0.0;
    let mut ends = vec![0.0];
    for _round in 1..=400 {
        let mut ended = 0.0;
        // The defender's part.
        let mut after = [[0.0; 2]; 2];
        for ha in 0..2 {
            for hd in 0..2 {
                let m = dist[ha][hd];
                after[ha][hd] += m * (1.0 - p_def);
                if ha == 1 {
                    ended += m * p_def;
                } else {
                    after[1][hd] += m * p_def;
                }
            }
        }
        // The attacker's part.
        let mut next = [[0.0; 2]; 2];
        for ha in 0..2 {
            for hd in 0..2 {
                let m = after[ha][hd];
                next[ha][hd] += m * (1.0 - p_att);
                if hd == 1 {
                    ended += m * p_att;
                    attacker_wins += m * p_att;
                } else {
                    next[ha][1] += m * p_att;
                }
            }
        }
        dist = next;
        ends.push(ended);
    }
    (attacker_wins, ends)
}

/// Checks the simulator's frequencies against exact probabilities: within five standard
/// errors of `runs` trials (the seed is fixed, so this is deterministic).
fn check_exact(spec: Spec, p_att: f64, p_def: f64) {
    let (m, mut rules) = ahd();
    let setup = Setup::from_spec(&m, &spec).unwrap();
    let runs = 150_000;
    let config = Config {
        runs,
        seed: 2006,
        ..Config::default()
    };
    let report = simulate(&m, &mut rules, &setup, &config, None).unwrap();
    let close = |freq: f64, p: f64, what: &str| {
        let bound = 5.0 * (p * (1.0 - p) / runs as f64).sqrt() + 1e-9;
        assert!(
            (freq - p).abs() <= bound,
            "{what}: simulated {freq}, exact {p}, bound {bound}"
        );
    };
    let (win, ends) = exact(p_att, p_def);
    close(report.attacker.win_pct / 100.0, win, "attacker wins");
    close(report.defender.win_pct / 100.0, 1.0 - win, "defender wins");
    for (round, &p) in ends.iter().enumerate().take(8) {
        let freq = report
            .rounds
            .iter()
            .find(|r| usize::from(r.round) == round)
            .map_or(0.0, |r| r.pct / 100.0);
        close(freq, p, &format!("ends in round {round}"));
    }
    assert_eq!(
        ends[1], 0.0,
        "two hits are needed: no battle ends in round 1"
    );
}

/// 5.1: Militia Infantry hit on a 1 (1 in 6) each; the defender fires first.
#[test]
fn exact_probabilities_militia_against_militia() {
    let spec = Spec {
        attackers: "1 Mi".into(),
        defenders: "1 Mi".into(),
        ..Spec::default()
    };
    check_exact(spec, 1.0 / 6.0, 1.0 / 6.0);
}

/// 5.31: a Veteran Infantry attacking an entrenched Militia Infantry hits on 1-2
/// (3 - 1); the militia hits on a 1.
#[test]
fn exact_probabilities_veteran_against_entrenched_militia() {
    let spec = Spec {
        attackers: "Vi".into(),
        defenders: "Mi".into(),
        flags: vec!["entrenched".into()],
        ..Spec::default()
    };
    check_exact(spec, 2.0 / 6.0, 1.0 / 6.0);
}

/// The same question asked in words and of a live battle gives the same report, seed for
/// seed: Vicksburg's defenders are entrenched (4.3's Permanent Entrenchment) and the
/// attackers crossing from Monroe get the river penalty (5.34).
#[test]
fn words_and_a_live_battle_give_the_same_odds() {
    let xml = scenario(
        r#"<place box="Monroe" units="3 Vi, 1 Vc"/>"#,
        r#"<place box="Vicksburg" units="2 Mi, 1 Vi" flags="entrenched"/>"#,
    );
    let mut p = Pos::new(&xml, "union", &[]);
    p.march("Monroe", "Vicksburg", &["rail"]);
    p.fight("Vicksburg");
    let live = Setup::from_battle(&p.m, &p.g).unwrap();
    let (m, mut rules) = ahd();
    let spec = Spec {
        attackers: "3 Vi, 1 Vc".into(),
        defenders: "2 Mi, 1 Vi".into(),
        at: Some("vicksburg".into()),
        crossing: 4,
        ..Spec::default()
    };
    let mut words = Setup::from_spec(&m, &spec).unwrap();
    words.settle(&m, &mut rules).unwrap();
    assert_eq!(
        m.side(words.attacker).id,
        "union",
        "Vicksburg is Confederate"
    );
    let entrenched = m.units.find_flag("entrenched").unwrap();
    assert!(
        words.defenders.iter().all(|f| f.flags.has(entrenched)),
        "4.3: they began the Union player turn in a Permanent Entrenchment"
    );
    assert_eq!(words.entered_from, live.entered_from);
    let config = Config {
        runs: 2000,
        seed: 5,
        ..Config::default()
    };
    let a = simulate(&m, &mut rules, &words, &config, None).unwrap();
    let b = simulate(&p.m, &mut p.rules, &live, &config, None).unwrap();
    assert_eq!(a, b);
}

/// The report adds up: every battle is won, withdrawn or undecided; retreats are the
/// other side's wins; survivors never exceed the force; and 5.4's retreat comes no
/// earlier than round 2, so "retreat after round 1" ends every battle by round 2.
#[test]
fn the_report_adds_up() {
    let (m, mut rules) = ahd();
    let spec = Spec {
        attackers: "3 Vi, 1 Vc".into(),
        defenders: "2 Mi, 1 Ci".into(),
        ..Spec::default()
    };
    let setup = Setup::from_spec(&m, &spec).unwrap();
    let config = Config {
        runs: 5000,
        seed: 9,
        attacker_retreat: RetreatPolicy::AfterRound(1),
        defender_retreat: RetreatPolicy::Never,
    };
    let mut calls = Vec::new();
    let mut progress = |n: u64| calls.push(n);
    let r = simulate(&m, &mut rules, &setup, &config, Some(&mut progress)).unwrap();
    assert_eq!(calls.last(), Some(&5000), "progress hears of the end");
    assert!(calls.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        r.attacker.wins + r.defender.wins + r.withdrawals + r.undecided,
        r.runs
    );
    let total = r.attacker.win_pct + r.defender.win_pct + r.withdrawal_pct + r.undecided_pct;
    assert!((total - 100.0).abs() < 1e-9, "{total}");
    assert!(r.attacker.retreats > 0, "the attacker retreats in round 2");
    assert!(r.defender.wins >= r.attacker.retreats);
    assert_eq!(r.defender.retreats, 0);
    assert!(
        r.rounds.iter().all(|x| (2..=2).contains(&x.round)),
        "{:?}",
        r.rounds
    );
    assert_eq!(r.rounds.iter().map(|x| x.battles).sum::<u64>(), r.runs);
    let vi = &r.attacker.units[0];
    assert_eq!((vi.kind.as_str(), vi.count), ("Vi", 3));
    assert!(vi.survivors <= 3.0 && vi.reduced <= vi.survivors);
    let kinds: Vec<&str> = r.defender.units.iter().map(|t| t.kind.as_str()).collect();
    assert_eq!(kinds, ["Mi", "Ci"]);
    // A retreating side keeps its units: with the attacker leaving at round 2 it keeps
    // more Veteran Infantry than fighting on would.
    let config = Config {
        attacker_retreat: RetreatPolicy::Never,
        ..config
    };
    let fight_on = simulate(&m, &mut rules, &setup, &config, None).unwrap();
    assert!(fight_on.attacker.units[0].survivors < vi.survivors);
    assert!(fight_on.rounds.iter().any(|x| x.round > 2));
}

/// 5.4: a side retreats only where the rules let it. New York's one neighbour is
/// Philadelphia, a Union Recruitment City: Confederate defenders there have nowhere to
/// go and fight to the death whatever their policy, while Union attackers may fall back
/// there. Without a box an open friendly box is assumed, so the same defenders retreat.
#[test]
fn retreats_ask_the_rules_with_a_box() {
    let (m, mut rules) = ahd();
    let spec = Spec {
        attackers: "3 Mi".into(),
        defenders: "2 Vi".into(),
        attacker_side: Some("union".into()),
        at: Some("New York".into()),
        ..Spec::default()
    };
    let config = Config {
        runs: 2000,
        seed: 3,
        attacker_retreat: RetreatPolicy::AfterRound(1),
        defender_retreat: RetreatPolicy::AfterRound(1),
    };
    let ny = Setup::from_spec(&m, &spec).unwrap();
    assert_eq!(m.side(ny.defender).id, "confederate");
    let r = simulate(&m, &mut rules, &ny, &config, None).unwrap();
    assert_eq!(r.defender.retreats, 0, "nowhere to go");
    assert!(
        r.attacker.retreats > 0,
        "Philadelphia is friendly to the Union"
    );
    assert_eq!(r.withdrawals, 0, "5.6: infantry never withdraw");
    let open = Setup::from_spec(&m, &Spec { at: None, ..spec }).unwrap();
    let r = simulate(&m, &mut rules, &open, &config, None).unwrap();
    assert!(
        r.defender.retreats > 0,
        "the defender retreats first, in round 2"
    );
}

/// Words that do not make a battle are refused with one line and a hint.
#[test]
fn bad_words_are_refused_with_hints() {
    let (m, _) = ahd();
    let err = |spec: Spec| Setup::from_spec(&m, &spec).unwrap_err().to_string();
    let base = Spec {
        attackers: "3 Vi, 1 Vc".into(),
        defenders: "2 Mi".into(),
        ..Spec::default()
    };
    let e = err(Spec {
        attackers: "3 Vx".into(),
        ..base.clone()
    });
    assert!(
        e.contains("'Vx'") && e.contains("did you mean 'Vi'?"),
        "{e}"
    );
    let e = err(Spec {
        defenders: "2 Qz".into(),
        ..base.clone()
    });
    assert!(e.contains("defenders") && e.contains("Mi, Vi, Ci"), "{e}");
    let e = err(Spec {
        at: Some("Vicksbrug".into()),
        ..base.clone()
    });
    assert!(e.contains("did you mean 'Vicksburg'?"), "{e}");
    let e = err(Spec {
        crossing: 1,
        ..base.clone()
    });
    assert!(e.contains("5.34") && e.contains("Cairo"), "{e}");
    let e = err(Spec {
        crossing: 1,
        at: Some("Gettysburg".into()),
        ..base.clone()
    });
    assert!(
        e.contains("Gettysburg") && e.contains("boxes with one"),
        "{e}"
    );
    let e = err(Spec {
        crossing: 5,
        at: Some("Vicksburg".into()),
        ..base.clone()
    });
    assert!(e.contains("only 4"), "{e}");
    let e = err(Spec {
        options: vec!["like-battlefeld-targets".into()],
        ..base.clone()
    });
    assert!(
        e.contains("did you mean 'like-battlefield-targets'?"),
        "{e}"
    );
    let e = err(Spec {
        attackers: " , ".into(),
        ..base.clone()
    });
    assert!(e.contains("at least one"), "{e}");
    for many in ["65 Mi", "60 Mi, 5 Vi", "18446744073709551615 Mi"] {
        let e = err(Spec {
            attackers: many.into(),
            ..base.clone()
        });
        assert!(e.contains("at most 64"), "{many}: {e}");
    }
    let e = err(Spec {
        attackers: "99999999999999999999999 Mi".into(),
        ..base.clone()
    });
    assert!(e.contains("too large"), "{e}");
    let e = err(Spec {
        attackers: "2 Ldr".into(),
        ..base.clone()
    });
    assert!(e.contains("does not fight"), "{e}");
    let e = err(Spec {
        attacker_side: Some("rebels".into()),
        ..base.clone()
    });
    assert!(e.contains("union, confederate"), "{e}");
    for e in [
        err(Spec {
            attackers: "3 Vx".into(),
            ..base.clone()
        }),
        err(Spec {
            crossing: 1,
            ..base
        }),
    ] {
        assert!(!e.contains('\n'), "one line: {e}");
    }
    // Names, bare types and rule numbers are words too.
    let ok = Setup::from_spec(
        &m,
        &Spec {
            attackers: "Veteran Infantry, 2 vc".into(),
            defenders: "mi".into(),
            options: vec!["5.2".into()],
            ..Spec::default()
        },
    )
    .unwrap();
    assert_eq!(ok.attackers.len(), 3);
    assert_eq!(
        ok.options,
        [m.find_option("like-battlefield-targets").unwrap()]
    );
    let (m2, mut rules) = ahd();
    let none = simulate(
        &m2,
        &mut rules,
        &ok,
        &Config {
            runs: 0,
            ..Config::default()
        },
        None,
    );
    assert_eq!(none.unwrap_err(), OddsError::NoRuns);
}

/// The policy (shared with the computer players): a reduced target is worth more than a
/// fresh one of the same type (5.1: one hit eliminates it, and a reduced unit fires as
/// well as a full one); a target that is harder to hit (5.32's Crack Infantry) is worth
/// less; equal targets go to the first listed.
#[test]
fn the_policy_finishes_reduced_units_and_avoids_hard_shots() {
    let xml = scenario(
        r#"<place box="Harrisburg" units="1 Vi"/>"#,
        r#"<place box="Gettysburg" units="2 Vi, 1 Ci"/>"#,
    );
    let mut p = Pos::new(&xml, "union", &[]);
    p.march("Harrisburg", "Gettysburg", &["rail"]);
    p.fight("Gettysburg");
    let b = p.battle().clone();
    // The defender fires first (and misses): name its targets, then it is the
    // attacker's part.
    p.g.dice = Dice::fixed([6, 6, 6]);
    for &d in &b.defenders {
        p.act(&Action::Target {
            shooter: d,
            target: b.attackers[0],
        });
    }
    p.g.dice = Dice::fixed([]);
    let b = p.battle().clone();
    assert_eq!(b.firing, b.attacker, "{:?}", b.stage);
    let (shooter, vi1, vi2, ci) = (
        b.attackers[0],
        b.defenders[0],
        b.defenders[1],
        b.defenders[2],
    );
    let choose = |p: &mut Pos, legal: &[UnitId]| {
        choose_target(&p.m, &mut p.rules, &p.g, shooter, legal).unwrap()
    };
    assert_eq!(choose(&mut p, &[vi1, vi2]), vi1, "ties: the first listed");
    assert_eq!(choose(&mut p, &[vi2, vi1]), vi2, "ties: the first listed");
    assert_eq!(
        choose(&mut p, &[ci, vi2]),
        vi2,
        "5.32: crack infantry are harder to hit"
    );
    p.g.units[vi2.index()].hits = 1;
    assert_eq!(choose(&mut p, &[vi1, vi2]), vi2, "finish the reduced unit");
    assert!(choose_target(&p.m, &mut p.rules, &p.g, shooter, &[]).is_err());
}

/// Many runs of a 6-against-6 battle finish and are reproducible from the seed.
#[test]
fn the_same_seed_gives_the_same_report() {
    let (m, mut rules) = ahd();
    let spec = Spec {
        attackers: "3 Vi, 1 Ci, 2 Vc".into(),
        defenders: "2 Vi, 2 Mi, 1 Ci, 1 Vc".into(),
        at: Some("Vicksburg".into()),
        crossing: 3,
        ..Spec::default()
    };
    let mut setup = Setup::from_spec(&m, &spec).unwrap();
    setup.settle(&m, &mut rules).unwrap();
    let config = Config {
        runs: 1500,
        seed: 11,
        ..Config::default()
    };
    let a = simulate(&m, &mut rules, &setup, &config, None).unwrap();
    let b = simulate(&m, &mut rules, &setup, &config, None).unwrap();
    assert_eq!(a, b);
    let c = simulate(&m, &mut rules, &setup, &Config { seed: 12, ..config }, None).unwrap();
    assert_ne!(a, c, "another seed, other dice");
}

/// AHD's rules as they are, except that they do not declare `shot_modifier` fixed.
struct Unfixed(ScriptRules);

impl muster_core::game::Rules for Unfixed {
    fn ask(
        &mut self,
        view: muster_core::game::View<'_>,
        question: muster_core::game::Question<'_>,
    ) -> Result<muster_core::game::Answer, muster_core::game::RuleError> {
        self.0.ask(view, question)
    }

    fn notify(
        &mut self,
        view: muster_core::game::View<'_>,
        dice: &mut Dice,
        event: muster_core::game::Event<'_>,
    ) -> Result<Vec<muster_core::game::Command>, muster_core::game::RuleError> {
        self.0.notify(view, dice, event)
    }

    fn answers(&self, hook: &str) -> bool {
        self.0.answers(hook)
    }
}

/// AHD declares its shot modifiers fixed for a battle, so the simulator asks them once
/// a round; without the declaration it asks them in every situation (who is still in
/// the battle, the markers) and looks them up again mid-volley. That is only slower:
/// the report is the same, with retreats and 5.2 too.
#[test]
fn fixed_modifiers_are_only_a_speed_up() {
    let (m, mut rules) = ahd();
    assert!(
        muster_core::game::Rules::fixed(&rules, "shot_modifier"),
        "AHD declares it"
    );
    let (_, other) = ahd();
    let mut unfixed = Unfixed(other);
    let spec = Spec {
        attackers: "3 Vi, 1 Ci, 2 Vc".into(),
        defenders: "2 Vi, 2 Mi, 1 Ci, 1 Vc".into(),
        at: Some("Vicksburg".into()),
        crossing: 3,
        options: vec!["like-battlefield-targets".into()],
        ..Spec::default()
    };
    let mut setup = Setup::from_spec(&m, &spec).unwrap();
    setup.settle(&m, &mut rules).unwrap();
    let config = Config {
        runs: 1500,
        seed: 4,
        attacker_retreat: RetreatPolicy::LossesOver(Losses::Fraction(0.5)),
        defender_retreat: RetreatPolicy::AfterRound(4),
    };
    let fixed = simulate(&m, &mut rules, &setup, &config, None).unwrap();
    let asked = simulate(&m, &mut unfixed, &setup, &config, None).unwrap();
    assert_eq!(fixed, asked);
}
