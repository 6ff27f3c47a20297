//! "Why is this action not legal?" (issue 46, item 4): `why_not` answers with the
//! engine's own check and the rules' handlers that said no, never a string an
//! interface made up; the terminal prints it for a refused command. Positions from
//! A House Divided; each test cites the rule whose refusal it reads.

use std::io::Write;
use std::process::{Command, Stdio};

use muster_core::game::why::{absent_placements, placeable_kinds};
use muster_core::game::{
    Action, Dice, GameState, Path, Place, Step, apply, legal_actions, moves, why_not,
};
use muster_core::ids::{BoxId, TurnId, UnitId};
use muster_core::{Module, load_scenario_str};
use muster_scripting::ScriptRules;
use muster_test_support::ahd;

struct Game {
    m: Module,
    rules: ScriptRules,
    g: GameState,
}

impl Game {
    /// A position from scenario XML at the start of `side`'s Movement segment on a
    /// turn that is not the first (marches are rolled: the first die of `dice`).
    fn at_movement(xml: &str, side: &str, dice: &[u32]) -> Game {
        let (m, mut rules) = ahd();
        let scenario = load_scenario_str(&m, "<test>", xml).unwrap_or_else(|e| panic!("{e}"));
        let mut g =
            GameState::new(&m, &scenario, Vec::new(), Dice::fixed(dice.iter().copied())).unwrap();
        let side = m.find_side(side).unwrap();
        g.player = u8::try_from(m.calendar.sides.iter().position(|&s| s == side).unwrap()).unwrap();
        g.first_turn = TurnId(0);
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
            .unwrap()
    }

    fn act(&mut self, a: Action) {
        let (next, _) =
            apply(&self.m, &mut self.rules, &self.g, &a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
        self.g = next;
    }

    fn legal(&mut self) -> Vec<Action> {
        legal_actions(&self.m, &mut self.rules, &self.g).unwrap()
    }

    fn why(&mut self, a: &Action) -> Option<muster_core::game::Refusal> {
        why_not(&self.m, &mut self.rules, &self.g, a).unwrap()
    }

    /// A path from `from` through `boxes`, each along a line of `kind`.
    fn path(&self, from: &str, boxes: &[&str], kind: &str) -> Path {
        let mut at = self.id(from);
        let mut steps = Vec::new();
        for name in boxes {
            let to = self.id(name);
            let (_, line) = self
                .m
                .board
                .neighbours(at)
                .iter()
                .copied()
                .find(|&(n, l)| {
                    n == to && self.m.board.kinds[self.m.board.line(l).kind.index()].id == kind
                })
                .unwrap_or_else(|| panic!("no {kind} line to {name}"));
            steps.push(Step { line, to });
            at = to;
        }
        Path {
            from: self.id(from),
            steps,
        }
    }

    fn play_to_recruitment(&mut self) {
        while self.m.calendar.steps[usize::from(self.g.step)].id != "recruitment" {
            self.act(Action::EndStep);
        }
    }
}

/// A legal action is not refused, and asking changes nothing.
#[test]
fn a_legal_action_has_no_refusal() {
    let mut t = Game::at_movement(SCENARIO_4_0, "union", &[3]);
    let before = t.g.clone();
    let a = Action::Select {
        at: t.id("Shreveport"),
    };
    assert!(t.legal().contains(&a));
    assert_eq!(t.why(&a), None);
    assert_eq!(t.g, before);
}

const SCENARIO_4_0: &str = include_str!("../scenarios/rule_4_0_example.xml");

/// 4.0 (the movement example): Monroe and Jackson are not Union controlled, so the
/// railroad from Vicksburg to Jackson is unfriendly and the militia may not go on:
/// the engine says the rules forbid the move, and names AHD's `may_enter` handler
/// (`rules/movement.luau`) that said no.
#[test]
fn a_move_the_rules_forbid_names_the_handler_that_said_no() {
    let mut t = Game::at_movement(SCENARIO_4_0, "union", &[3]);
    let mil = t.unit("Mi", "Shreveport");
    t.act(Action::Select {
        at: t.id("Shreveport"),
    });
    let path = t.path("Shreveport", &["Monroe"], "road");
    t.act(Action::Move { unit: mil, path });
    t.act(Action::Release);
    t.act(Action::Select { at: t.id("Monroe") });
    let path = t.path("Monroe", &["Vicksburg", "Jackson"], "rail");
    let refusal = t
        .why(&Action::Move { unit: mil, path })
        .expect("refused (4.0)");
    assert_eq!(refusal.engine, "the rules do not allow that move");
    assert!(
        refusal
            .action
            .starts_with("move Militia Infantry #1 Monroe -rail-> Vicksburg -rail-> Jackson"),
        "{refusal}"
    );
    let said = refusal.rules.first().expect("a handler said no");
    assert_eq!(said.hook, "may_enter");
    assert!(
        said.handler.starts_with("ahd/rules/movement.luau:"),
        "{said}"
    );
    assert_eq!(said.id.as_deref(), Some("ahd.may-enter"));
    assert!(said.question.contains("Jackson"), "{said}");
    let text = refusal.to_string();
    assert!(
        text.contains("the rules: ahd/rules/movement.luau:"),
        "{text}"
    );
}

/// The engine's own checks, with no rule asked: a box holding none of the side's
/// pieces (4.0: a march activates a box of one's own units), and a decision of
/// another segment.
#[test]
fn the_engines_own_checks_say_why() {
    let mut t = Game::at_movement(SCENARIO_4_0, "union", &[3]);
    let refusal = t
        .why(&Action::Select {
            at: t.id("Jackson"),
        })
        .expect("refused");
    assert_eq!(refusal.engine, "no piece of yours in Jackson may move now");
    assert!(refusal.rules.is_empty());
    let mi = t.m.units.find("Mi").unwrap();
    let refusal = t
        .why(&Action::Place {
            kind: mi,
            at: t.id("Pittsburgh"),
        })
        .expect("refused");
    assert_eq!(
        refusal.engine,
        "it is no decision of the Movement segment under way (Union player turn)"
    );
    assert!(
        refusal.rules.is_empty(),
        "another segment's question is not asked"
    );
}

/// 7.0: one Militia unit per friendly Recruitment City per segment. A second recruit
/// in Pittsburgh is refused by AHD's `may_place` (`rules/growth.luau`); once the pool
/// holds no Militia Cavalry, its absence is explained while the segment is still
/// under way ("no Militia unit is left in the Recruitment Pool", 7.0), not only in
/// the log after it ends.
#[test]
fn recruits_explain_their_absence_before_the_segment_ends() {
    let xml = r#"<scenario id="t" name="t" start="08/1861">
      <side id="union"><place box="Washington" units="1 Mi"/><pool units="3 Mi, 1 Mc"/></side>
      <side id="confederate"><place box="Richmond" units="1 Mi"/></side>
    </scenario>"#;
    // Marches 2, then recruitment rolls a 3.
    let mut t = Game::at_movement(xml, "union", &[2, 3]);
    t.play_to_recruitment();
    let (mi, mc) = (t.m.units.find("Mi").unwrap(), t.m.units.find("Mc").unwrap());
    let kinds = placeable_kinds(&t.m, &t.g);
    assert_eq!(
        kinds,
        vec![mi, mc],
        "militia only: veterans come by promotion (6.0)"
    );
    assert!(
        absent_placements(&t.m, &mut t.rules, &t.g, &kinds)
            .unwrap()
            .is_empty()
    );
    let pittsburgh = t.id("Pittsburgh");
    t.act(Action::Place {
        kind: mc,
        at: pittsburgh,
    });
    // 7.0: Pittsburgh has had its recruit.
    let refusal = t
        .why(&Action::Place {
            kind: mi,
            at: pittsburgh,
        })
        .expect("one per city (7.0)");
    assert_eq!(
        refusal.engine,
        "the rules do not allow placing that piece there"
    );
    let said = &refusal.rules[0];
    assert_eq!(said.hook, "may_place");
    assert!(said.handler.starts_with("ahd/rules/growth.luau:"), "{said}");
    assert_eq!(said.question, "may_place Militia Infantry in Pittsburgh");
    // The pool's last Militia Cavalry is on the board: its absence is said now.
    let absent = absent_placements(&t.m, &mut t.rules, &t.g, &kinds).unwrap();
    assert_eq!(absent.len(), 1, "{absent:?}");
    assert_eq!(absent[0].0, mc);
    assert_eq!(
        absent[0].1.engine,
        "no Militia Cavalry of Union is left in the pool"
    );
    assert!(absent[0].1.rules.is_empty());
}

/// The terminal: a command naming an action that is not legal now gets the engine's
/// reason, and the rules' handler when one said no (4.0, 7.0); a legal one is taken.
#[test]
fn the_terminal_says_why_a_command_is_refused() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut child = Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(root)
        .args(["play", "mods/ahd", "--seed", "7"])
        .env_remove("MUSTER_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = "march: activate Richmond\nrecruit Militia Cavalry in Pittsburgh\nactivate Washington\n#1 manassas\nq\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "'march: activate Richmond' is not possible: no piece of yours in Richmond may move now",
        "'recruit Militia Cavalry in Pittsburgh' is not possible: it is no decision of the Movement segment under way",
        "[Union] march: activate Washington",
        "[Union] move Militia Infantry #1 Washington -rail-> Manassas Junction",
    ] {
        assert!(
            stdout.contains(expected),
            "{expected:?} missing in:\n{stdout}"
        );
    }
}

/// In a game that hides information the refusal tells nothing read from the whole
/// state: no engine check, no rules handler, not even the action's words (they could
/// name a piece the seat does not see). The fog-of-war example hides enemy pieces.
#[test]
fn a_game_with_hidden_information_tells_no_reason() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/mods/examples/fog-of-war");
    let m = muster_core::load_module(dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(!m.all_open(), "the example hides something");
    let mut rules = ScriptRules::load(&m, muster_scripting::Limits::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let s = m.scenario("1861").expect("1861");
    let (g, _) = muster_core::game::start(&m, &mut rules, s, Vec::new(), Dice::seeded(1)).unwrap();
    let on_move = g.active_side(&m);
    // Every enemy piece named as a target outside a battle: refused, for reasons the
    // engine knows from the whole board.
    let hidden = g
        .unit_ids()
        .find(|&u| g.unit(u).side != on_move && matches!(g.unit(u).place, Place::Board(_)))
        .expect("an enemy piece on the board");
    let own = g
        .unit_ids()
        .find(|&u| g.unit(u).side == on_move && matches!(g.unit(u).place, Place::Board(_)))
        .expect("a piece of the side on move");
    let tried = Action::Target {
        shooter: own,
        target: hidden,
    };
    let refusal = why_not(&m, &mut rules, &g, &tried)
        .unwrap()
        .expect("no battle: refused");
    assert_eq!(
        refusal.to_string(),
        format!(
            "'that action' is not possible: {}",
            muster_core::game::why::HIDDEN_REASON
        )
    );
    assert!(refusal.rules.is_empty());
}
