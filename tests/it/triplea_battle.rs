//! The battle procedure's options (`fire`, `casualties`, `retreat`, `withdraw`,
//! `reinforce` on a `battles` step; docs/kernel.md, "Battles: the procedure's options"),
//! played on the TripleA adaptation, which declares TripleA's battle (issue 51, 6:
//! "both sides fire each round and their casualties are removed together, each owner
//! chooses which of his own units are lost, only the attacker may retreat, no cavalry
//! withdrawal, no round limit"), and checked where a module declares them.

use muster_core::game::{Action, ActionError, Dice, GameState, Place, apply, legal_actions, moves};
use muster_core::ids::{BoxId, TurnId, UnitId};
use muster_core::{Module, load_module, load_scenario_str};
use muster_scripting::{Limits, ScriptRules};

fn triplea() -> (Module, ScriptRules) {
    let m = load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd-triplea"))
        .unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

struct Game {
    m: Module,
    rules: ScriptRules,
    g: GameState,
}

impl Game {
    /// The Union's movement phase of August 1861 with `union` and `confederate` placed,
    /// on fixed dice (the march roll first).
    fn new(union: &str, confederate: &str, dice: &[u32]) -> Game {
        let (m, mut rules) = triplea();
        let xml = format!(
            r#"<scenario id="test" name="test" start="08/1861">
                 <side id="union">{union}</side>
                 <side id="confederate">{confederate}</side>
               </scenario>"#
        );
        let scenario = load_scenario_str(&m, "<test>", &xml).unwrap_or_else(|e| panic!("{e}"));
        let mut g =
            GameState::new(&m, &scenario, Vec::new(), Dice::fixed(dice.iter().copied())).unwrap();
        g.player = 0;
        // Not the game's first turn, so the march is rolled.
        g.first_turn = TurnId(if g.turn == TurnId(0) { 1 } else { 0 });
        moves::begin(&m, &mut rules, &mut g).unwrap();
        Game { m, rules, g }
    }

    fn id(&self, name: &str) -> BoxId {
        self.m.board.find(name).unwrap()
    }

    fn unit(&self, kind: &str, at: &str) -> UnitId {
        let (k, b) = (self.m.units.find(kind).unwrap(), self.id(at));
        self.g
            .units_at(b)
            .find(|&u| self.g.unit(u).kind == k)
            .unwrap_or_else(|| panic!("no {kind} at {at}"))
    }

    fn legal(&mut self) -> Vec<Action> {
        legal_actions(&self.m, &mut self.rules, &self.g).unwrap()
    }

    fn try_act(&mut self, a: &Action) -> Result<Vec<String>, ActionError> {
        let (next, log) = apply(&self.m, &mut self.rules, &self.g, a)?;
        self.g = next;
        Ok(log)
    }

    fn act(&mut self, a: &Action) -> Vec<String> {
        self.try_act(a).unwrap_or_else(|e| panic!("{a:?}: {e}"))
    }

    fn decider(&self) -> Option<String> {
        muster_core::game::battle::decider(&self.g).map(|s| self.m.side(s).id.clone())
    }

    /// Marches `units` from `from` to `to`, ends the movement phase and starts the battle
    /// there; returns the log of the battle's start (TripleA's battle fires at once).
    fn attack(&mut self, from: &str, units: &[UnitId], to: &str) -> Vec<String> {
        self.act(&Action::Select { at: self.id(from) });
        let dest = self.id(to);
        for &u in units {
            let a = self
                .legal()
                .into_iter()
                .find(
                    |a| matches!(a, Action::Move { unit, path } if *unit == u && path.to() == dest),
                )
                .unwrap_or_else(|| panic!("{u:?} cannot reach {to}"));
            self.act(&a);
        }
        self.act(&Action::Release);
        for _ in 0..3 {
            if self.legal().contains(&Action::Fight { at: dest }) {
                break;
            }
            self.act(&Action::EndStep);
        }
        self.act(&Action::Fight { at: dest })
    }

    fn place(&self, u: UnitId) -> Place {
        self.g.unit(u).place
    }
}

const KNOXVILLE: &str = r#"<place box="Knoxville" units="1 Vi"/><control box="Knoxville"/>"#;

/// Simultaneous fire: the defender's militia, hit by the attacker in the same round,
/// still fires, and both sides' losses are taken after both have rolled, so both
/// sides can be wiped out together (no winner).
#[test]
fn simultaneous_fire_removes_both_sides_casualties_together() {
    // March roll 2; the defender's Mi rolls 1 (hit, needs 2), the attacker's Vi rolls 1.
    let mut t = Game::new(
        KNOXVILLE,
        r#"<place box="Chattanooga" units="1 Mi"/>"#,
        &[2, 1, 1],
    );
    let vi = t.unit("Vi", "Knoxville");
    let mi = t.unit("Mi", "Chattanooga");
    let log = t.attack("Knoxville", &[vi], "Chattanooga").join("\n");
    assert!(log.contains("needing 2 or less: rolls 1, hit"), "{log}");
    assert!(log.contains("needing 3 or less: rolls 1, hit"), "{log}");
    assert!(log.contains("Confederacy must lose 1 step"), "{log}");
    assert!(log.contains("Union must lose 1 step"), "{log}");
    // The defender chooses first, then the attacker; each only among his own.
    assert_eq!(t.decider().as_deref(), Some("confederate"));
    assert_eq!(t.legal(), vec![Action::Lose { unit: mi }]);
    t.act(&Action::Lose { unit: mi });
    assert_eq!(t.decider().as_deref(), Some("union"));
    let log = t.act(&Action::Lose { unit: vi }).join("\n");
    assert!(log.contains("both sides are eliminated"), "{log}");
    assert!(!matches!(t.place(vi), Place::Board(_)));
    assert!(!matches!(t.place(mi), Place::Board(_)));
    assert!(
        t.g.combat.as_ref().is_none_or(|c| c.battle.is_none()),
        "the battle is over"
    );
}

/// Casualties chosen by their owner: the side hit is asked, and a piece that is not
/// one of its own, or a loss when it is not the side to choose, is refused with why.
#[test]
fn the_owner_chooses_his_losses_and_nothing_else() {
    // March roll 2; the defender misses (6); the attacker's two Vi hit once (1, 6).
    let mut t = Game::new(
        KNOXVILLE,
        r#"<place box="Chattanooga" units="1 Mi, 1 Vi"/>"#,
        &[2, 6, 6, 1, 6],
    );
    let vi = t.unit("Vi", "Knoxville");
    let (mi, cvi) = (t.unit("Mi", "Chattanooga"), t.unit("Vi", "Chattanooga"));
    t.attack("Knoxville", &[vi], "Chattanooga");
    assert_eq!(t.decider().as_deref(), Some("confederate"));
    let legal = t.legal();
    assert!(
        legal.contains(&Action::Lose { unit: mi }) && legal.contains(&Action::Lose { unit: cvi })
    );
    assert_eq!(legal.len(), 2, "only losses: {legal:?}");
    let Err(e) = t.try_act(&Action::Lose { unit: vi }) else {
        panic!("the Confederacy took a loss off a Union piece");
    };
    assert!(
        e.to_string().contains("takes its losses off its own"),
        "{e}"
    );
    assert!(
        t.try_act(&Action::Target {
            shooter: cvi,
            target: vi
        })
        .is_err(),
        "no one names targets"
    );
    // The owner keeps his veteran: the militia goes.
    t.act(&Action::Lose { unit: mi });
    assert!(!matches!(t.place(mi), Place::Board(_)));
    assert_eq!(t.place(cvi), Place::Board(t.id("Chattanooga")));
    // Owed 1, taken 1: the choice is over and the next round begins.
    assert!(
        t.try_act(&Action::Lose { unit: cvi }).is_err(),
        "one step was owed"
    );
}

/// Only the attacker may retreat (`retreat="attacker"`), from round 2; the defender is
/// never asked, and there is no withdrawal before round 1 and no reinforcement.
#[test]
fn only_the_attacker_may_retreat() {
    // March roll 2; round 1: both miss (6, 6).
    let mut t = Game::new(
        KNOXVILLE,
        r#"<place box="Chattanooga" units="1 Vc"/>"#,
        &[2, 6, 6, 6, 6],
    );
    let vi = t.unit("Vi", "Knoxville");
    t.attack("Knoxville", &[vi], "Chattanooga");
    // No cavalry withdrawal (AHD 5.6 would ask the lone cavalry first), no round 1 retreat.
    assert_eq!(
        t.decider().as_deref(),
        Some("union"),
        "round 2: the attacker decides"
    );
    let b =
        t.g.combat
            .as_ref()
            .unwrap()
            .battle
            .as_ref()
            .unwrap()
            .clone();
    assert_eq!(b.round, 2);
    let legal = t.legal();
    assert!(
        legal.iter().any(|a| matches!(a, Action::Retreat { .. })),
        "{legal:?}"
    );
    assert!(legal.contains(&Action::Pass));
    let log = t.act(&Action::Pass).join("\n");
    // The attacker stood: both sides roll again at once (no defender's decision between).
    assert_eq!(log.matches("fires needing").count(), 2, "{log}");
    assert_eq!(
        t.decider().as_deref(),
        Some("union"),
        "round 3: the attacker again"
    );
}

/// The options are checked where a module declares them.
#[test]
fn battle_options_are_checked_in_the_calendar() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    muster_test_support::copy_dir(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd-triplea")),
        &m,
    );
    std::fs::write(
        m.join("module.xml"),
        std::fs::read_to_string(m.join("module.xml"))
            .unwrap()
            .replace(
                r#"path="../ahd""#,
                &format!(r#"path="{}/mods/ahd""#, env!("CARGO_MANIFEST_DIR")),
            ),
    )
    .unwrap();
    let calendar = std::fs::read_to_string(m.join("calendar.xml")).unwrap();
    for (from, to, says) in [
        (
            r#"casualties="owner""#,
            "",
            "simultaneous fire needs casualties=\"owner\"",
        ),
        (
            r#"procedure="move" spends="pu""#,
            r#"procedure="move" spends="pu" retreat="none""#,
            "retreat is for procedure=\"battles\" steps",
        ),
        (
            r#"retreat="attacker""#,
            r#"retreat="sometimes""#,
            "sometimes",
        ),
    ] {
        std::fs::write(m.join("calendar.xml"), calendar.replace(from, to)).unwrap();
        let Err(e) = load_module(&m) else {
            panic!("{from} -> {to} loaded");
        };
        let text = e.to_string();
        assert!(text.contains(says), "{text}");
        assert!(text.contains("calendar.xml:"), "located: {text}");
    }
}
