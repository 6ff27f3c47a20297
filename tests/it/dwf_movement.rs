//! Command points, moves in legs and combat during movement (issue 44: ACTIVATE, LEGS,
//! IMMEDIATE), on Divided We Fall (`mods/dwf`, rules text
//! `../shared/seeds/003_2cae1f8ca12d9fc8.txt`, lines cited `Lnnn`): the engine's `move`
//! step with `activate="piece"` and `combat="immediate"`, answered by the module's rules
//! (`rules/command.luau`, `rules/movement.luau`). Refusals quote the rule's line; every
//! decision is an action a save replays bit for bit. The text's worked examples are
//! `muster test mods/dwf` cases (`mods/dwf/tests/movement.luau`).

use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{Action, Dice, GameState, Path, apply, legal_actions, start};
use muster_core::ids::{BoxId, UnitId};
use muster_core::{Module, load_module, load_scenario_str};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::root;

struct Game {
    m: Module,
    rules: ScriptRules,
    g: GameState,
    xml: String,
    actions: Vec<Action>,
}

impl Game {
    /// A game of `xml` at the Union's Campaign phase (the CSA's turn passed).
    fn new(xml: &str) -> Game {
        Game::of(&root().join("mods/dwf"), xml)
    }

    /// A game of `xml` on the module at `dir` (DWF or a mod of it).
    fn of(dir: &std::path::Path, xml: &str) -> Game {
        let m = load_module(dir).unwrap_or_else(|e| panic!("{e}"));
        let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        let scenario = load_scenario_str(&m, "t", xml).unwrap_or_else(|e| panic!("{e}"));
        let (g, _) = start(&m, &mut rules, &scenario, Vec::new(), Dice::seeded(1)).unwrap();
        let mut t = Game {
            m,
            rules,
            g,
            xml: xml.into(),
            actions: Vec::new(),
        };
        let union = t.m.find_side("union").unwrap();
        while !(t.g.active_side(&t.m) == union
            && t.g.current_step(&t.m).is_some_and(|s| s.id == "campaign"))
        {
            // A reinforcement's place (L257): the first offered, the text's first.
            let place = t
                .legal()
                .into_iter()
                .find(|a| matches!(a, Action::Take { offer, .. } if offer.starts_with("appear-")));
            t.act(place.unwrap_or(Action::EndStep));
        }
        t
    }

    fn act(&mut self, a: Action) -> Vec<String> {
        let (next, log) =
            apply(&self.m, &mut self.rules, &self.g, &a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
        self.g = next;
        self.actions.push(a);
        log
    }

    /// The refusal of `a`, which must be refused; the game is unchanged.
    fn refused(&mut self, a: Action) -> String {
        let before = self.g.clone();
        let err = apply(&self.m, &mut self.rules, &self.g, &a)
            .map(|_| ())
            .expect_err("refused");
        assert_eq!(self.g, before);
        err.to_string()
    }

    fn legal(&mut self) -> Vec<Action> {
        legal_actions(&self.m, &mut self.rules, &self.g).unwrap()
    }

    fn at(&self, name: &str) -> BoxId {
        self.m.board.find(name).unwrap()
    }

    fn unit(&self, kind: &str, at: &str) -> UnitId {
        let (kind, at) = (self.m.units.find(kind).unwrap(), self.at(at));
        self.g
            .units_at(at)
            .find(|&u| self.g.unit(u).kind == kind && self.g.unit(u).attached_to.is_none())
            .unwrap_or_else(|| panic!("no {kind:?} there"))
    }

    fn cp(&self) -> i64 {
        self.g.step_left(&self.m)
    }

    /// The legal leg of `unit` to `to` whose last line is of `kind`.
    fn leg(&mut self, unit: UnitId, to: &str, kind: &str) -> Path {
        let to = self.at(to);
        let legal = self.legal();
        let m = &self.m;
        legal
            .into_iter()
            .find_map(|a| match a {
                Action::Move { unit: u, path }
                    if u == unit
                        && path.to() == to
                        && path.last_line().is_some_and(|l| {
                            m.board.kinds[m.board.line(l).kind.index()].id == kind
                        }) =>
                {
                    Some(path)
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no leg to {to:?} by {kind}"))
    }

    /// A one-line path from `from` to `to` along a line of `kind`, legal or not.
    fn path(&self, from: &str, to: &str, kind: &str) -> Path {
        let (a, b) = (self.at(from), self.at(to));
        let line = self
            .m
            .board
            .neighbours(a)
            .iter()
            .find(|&&(n, l)| {
                n == b && self.m.board.kinds[self.m.board.line(l).kind.index()].id == kind
            })
            .map(|&(_, l)| l)
            .unwrap_or_else(|| panic!("no {kind} line {from}-{to}"));
        Path {
            from: a,
            steps: vec![muster_core::game::Step { line, to: b }],
        }
    }

    fn place(&self, u: UnitId) -> BoxId {
        match self.g.unit(u).place {
            muster_core::game::Place::Board(b) => b,
            other => panic!("off the board: {other:?}"),
        }
    }
}

/// Winter 1862 (L1208: the Union has 4 command points), a CSA unit far away.
fn winter(union: &str) -> String {
    format!(
        r#"<scenario id="t" name="t" start="01/1862">
  <side id="union">{union}</side>
  <side id="confederate"><place box="Atlanta" units="1 I1"/></side>
</scenario>"#
    )
}

/// L334: a single infantry unit costs a command point to move; a supply unit nothing
/// (L340). With none left, an activation that costs one is refused, quoting L330.
#[test]
fn an_activation_costs_its_point_and_is_refused_without_one() {
    let mut t = Game::new(&winter(
        r#"<place box="Washington DC" units="5 I1, 1 SU"/>"#,
    ));
    assert_eq!(t.cp(), 4);
    let supply = t.unit("SU", "Washington DC");
    t.act(Action::Activate { unit: supply });
    assert_eq!(t.cp(), 4, "a supply unit moves for nothing (L340)");
    t.act(Action::Release);
    for n in 1..=4 {
        let u = t.unit("I1", "Washington DC");
        // Each once: L362, a unit moved cannot move again; move it away to tell them apart.
        t.act(Action::Activate { unit: u });
        assert_eq!(t.cp(), 4 - n);
        let away = t.leg(u, "Baltimore", "rail");
        t.act(Action::Move {
            unit: u,
            path: away,
        });
        t.act(Action::Release);
    }
    let fifth = t.unit("I1", "Washington DC");
    assert!(!t.legal().contains(&Action::Activate { unit: fifth }));
    let why = t.refused(Action::Activate { unit: fifth });
    assert!(
        why.contains("L330: activating 1-6 Infantry")
            && why.contains("costs 1 Command points; USA has 0 left"),
        "{why}"
    );
    // A unit that moved is not activated again (L362).
    let moved = t.unit("I1", "Baltimore");
    assert!(!t.legal().contains(&Action::Activate { unit: moved }));
}

/// L366, L1138-L1142: a 1-6 (6 movement points) in Winter pays 4 for a road and keeps 2
/// after the leg; a second road (4) is refused, quoting L366, while a railroad (1) is
/// taken: the stop kept the remaining points for a later leg of the same activation.
#[test]
fn a_leg_beyond_the_points_left_is_refused_and_a_stop_keeps_them() {
    let mut t = Game::new(&winter(r#"<place box="Washington DC" units="1 I1"/>"#));
    let u = t.unit("I1", "Washington DC");
    t.act(Action::Activate { unit: u });
    let road = t.path("Washington DC", "Frederick", "road");
    let log = t.act(Action::Move {
        unit: u,
        path: road,
    });
    assert!(
        log.iter().any(|l| l.contains("(4 movement points)")),
        "{log:?}"
    );
    let again = t.path("Frederick", "Sharpsburg", "road");
    assert!(!t.legal().contains(&Action::Move {
        unit: u,
        path: again.clone()
    }));
    let why = t.refused(Action::Move {
        unit: u,
        path: again,
    });
    // From Winter 1862 a Union unit has the sea lift's 10 points (L543), its land moves
    // bounded by its own 6 by the rules (`may_enter`): the rules refuse the leg.
    assert!(why.contains("the rules do not allow 1-6 Infantry"), "{why}");
    let rail = t.path("Frederick", "Baltimore", "rail");
    t.act(Action::Move {
        unit: u,
        path: rail,
    });
    assert_eq!(t.place(u), t.at("Baltimore"));
    assert_eq!(t.cp(), 3, "one activation, one point, whatever the legs");
}

/// L382: a leader's stack picks units up and drops them off on the way for no further
/// point; Grant, alone, moves free (L388) and pays the stack's point with his first
/// pick-up (L334). His stack then moves on his rating.
#[test]
fn a_leaders_stack_picks_up_and_drops_off_on_the_way() {
    let mut t = Game::new(&winter(
        r#"<place box="Washington DC" units="1 grant-1861, 2 I2"/><place box="Baltimore" units="1 I1"/>"#,
    ));
    let grant = t.unit("grant-1861", "Washington DC");
    t.act(Action::Activate { unit: grant });
    assert_eq!(t.cp(), 4, "a leader alone moves free (L388)");
    let first = t.unit("I2", "Washington DC");
    t.act(Action::PickUp { unit: first });
    assert_eq!(t.cp(), 3, "the stack's point (L334)");
    let second = t.unit("I2", "Washington DC");
    t.act(Action::PickUp { unit: second });
    assert_eq!(t.cp(), 3, "more units for nothing (L382)");
    let to = t.leg(grant, "Baltimore", "rail");
    t.act(Action::Move {
        unit: grant,
        path: to,
    });
    t.act(Action::DropOff { unit: second });
    let third = t.unit("I1", "Baltimore");
    t.act(Action::PickUp { unit: third });
    assert_eq!(t.cp(), 3);
    let on = t
        .legal()
        .into_iter()
        .find_map(|a| match a {
            Action::Move { unit, path } if unit == grant => Some(path),
            _ => None,
        })
        .expect("the stack goes on");
    let end = on.to();
    t.act(Action::Move {
        unit: grant,
        path: on,
    });
    assert_eq!(t.place(first), end);
    assert_eq!(t.place(third), end);
    assert_eq!(t.place(second), t.at("Baltimore"), "dropped off on the way");
    // A piece dropped off has moved: it is not activated again this turn (L362).
    t.act(Action::Release);
    assert!(!t.legal().contains(&Action::Activate { unit: second }));
}

/// L352, L392, L611-L615: the Union's 3-6 moves Cincinnati -> Lexington, where a CSA 1-6
/// stands. Until the battle is fought, moves may only go there and the phase cannot end;
/// the battle is fought when the Union commits to it, then movement goes on; a second
/// battle at Lexington the same phase is refused (L611).
#[test]
fn combat_is_immediate_then_movement_goes_on() {
    let xml = r#"<scenario id="t" name="t" start="01/1862">
  <side id="union"><place box="Cincinnati" units="1 I3, 1 I1"/><place box="Pittsburgh" units="1 I2"/></side>
  <side id="confederate"><place box="Lexington" units="1 I1"/></side>
</scenario>"#;
    let mut t = Game::new(xml);
    let lexington = t.at("Lexington");
    let attacker = t.unit("I3", "Cincinnati");
    t.act(Action::Activate { unit: attacker });
    let leg = t.leg(attacker, "Lexington", "rail");
    t.act(Action::Move {
        unit: attacker,
        path: leg,
    });
    let legal = t.legal();
    assert!(
        legal.contains(&Action::Fight { at: lexington }),
        "{legal:?}"
    );
    assert!(
        !legal.iter().any(|a| matches!(a, Action::Move { .. })),
        "the attacker moves no further"
    );
    t.act(Action::Release);
    assert!(!t.legal().contains(&Action::EndStep));
    let why = t.refused(Action::EndStep);
    assert!(
        why.contains("combat is immediate: fight at Lexington"),
        "{why}"
    );
    // Another unit may be brought in, but not sent elsewhere first.
    let other = t.unit("I2", "Pittsburgh");
    t.act(Action::Activate { unit: other });
    let elsewhere = t.path("Pittsburgh", "Harrisburg", "rail");
    let why = t.refused(Action::Move {
        unit: other,
        path: elsewhere,
    });
    assert!(why.contains("combat is immediate"), "{why}");
    t.act(Action::Release);
    let log = t.act(Action::Fight { at: lexington });
    assert!(
        log.iter().any(|l| l.contains("battle at Lexington")),
        "{log:?}"
    );
    while t.g.combat.as_ref().is_some_and(|c| c.battle.is_some()) {
        let a = t.legal().into_iter().next().expect("a decision");
        t.act(a);
    }
    assert!(
        t.actions.iter().any(|a| matches!(a, Action::Lose { .. })),
        "losses were taken"
    );
    assert_eq!(
        t.g.current_step(&t.m).map(|s| s.id.as_str()),
        Some("campaign"),
        "back to the Campaign phase"
    );
    assert!(
        !t.legal().contains(&Action::Fight { at: lexington }),
        "one combat per area (L611)"
    );
    // Movement goes on after the battle.
    let next = t.unit("I1", "Cincinnati");
    t.act(Action::Activate { unit: next });
    let on = t.leg(next, "Columbus OH", "rail");
    t.act(Action::Move {
        unit: next,
        path: on,
    });
    assert_eq!(t.place(next), t.at("Columbus OH"));
    t.act(Action::Release);

    // Every decision was an action: the save replays to the same state, bit for bit.
    let save = Save::new(
        &t.m,
        SavedScenario {
            id: "t".into(),
            xml: Some(t.xml.clone()),
        },
        Vec::new(),
        1,
        t.actions.clone(),
        t.g.clone(),
    );
    let text = serde_json::to_string(&save).unwrap();
    let read: Save = serde_json::from_str(&text).unwrap();
    let mut rules = ScriptRules::load(&t.m, Limits::default()).unwrap();
    let (replayed, _) = read
        .replay(&t.m, &mut rules)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replayed, t.g);
}

/// L348: the Union may not end its Campaign phase while it has points left and has spent
/// none in the Eastern Theater where a unit could take one; a 2-6 moved from Pittsburgh
/// meets the obligation (L352).
#[test]
fn the_phase_does_not_end_until_the_east_has_its_point() {
    let mut t = Game::new(&winter(
        r#"<place box="Pittsburgh" units="1 I2"/><place box="Cincinnati" units="1 I1"/>"#,
    ));
    let west = t.unit("I1", "Cincinnati");
    t.act(Action::Activate { unit: west });
    t.act(Action::Release);
    assert!(!t.legal().contains(&Action::EndStep));
    let why = t.refused(Action::EndStep);
    assert!(
        why.contains(
            "L348: the Union must spend at least one command point in the Eastern Theater"
        ),
        "{why}"
    );
    let east = t.unit("I2", "Pittsburgh");
    t.act(Action::Activate { unit: east });
    t.act(Action::Release);
    // The Order of Appearance's Winter 1862 infantry in St. Louis (L1213) owes the West
    // its point too (L350).
    let why = t.refused(Action::EndStep);
    assert!(why.contains("L350"), "{why}");
    let west_of_river = t.unit("I1", "St. Louis");
    t.act(Action::Activate {
        unit: west_of_river,
    });
    t.act(Action::Release);
    assert!(t.legal().contains(&Action::EndStep));
    t.act(Action::EndStep);
}

/// Kernel: a rule that takes the activated piece off the board (a house rule's
/// `remove_piece` on its move) ends its activation. Nothing is then offered of it (a
/// piece in the pool "picked up" where it stands), every action offered applies, and
/// another piece may be activated.
#[test]
fn a_rule_taking_the_activated_piece_off_the_board_ends_its_activation() {
    let tmp = tempfile::tempdir().unwrap();
    let house = tmp.path().join("gone");
    std::fs::create_dir_all(house.join("rules")).unwrap();
    std::fs::write(
        house.join("module.xml"),
        format!(
            r#"<module id="gone" name="Gone" version="0" engine="0.1">
  <extends module="dwf" path="{}"/>
  <rules entry="rules/init.luau"/>
</module>"#,
            root().join("mods/dwf").display()
        ),
    )
    .unwrap();
    std::fs::write(
        house.join("rules/init.luau"),
        r#"hooks.on("unit_moved", function(game, unit, path)
	if game:var("gone") ~= 0 then
		return nil
	end
	return { { kind = "set_var", name = "gone", value = 1 }, { kind = "remove_piece", unit = unit } }
end, { id = "gone.unit-moved" })
"#,
    )
    .unwrap();
    let mut t = Game::of(
        &house,
        &winter(
            r#"<place box="Washington DC" units="1 I1"/><place box="Baltimore" units="1 I1"/>"#,
        ),
    );
    let u = t.unit("I1", "Washington DC");
    t.act(Action::Activate { unit: u });
    let road = t.leg(u, "Frederick", "road");
    t.act(Action::Move {
        unit: u,
        path: road,
    });
    assert!(
        !matches!(t.g.unit(u).place, muster_core::game::Place::Board(_)),
        "the house rule took it off the board"
    );
    assert_eq!(
        muster_core::game::activation::current(&t.g),
        None,
        "its activation ended"
    );
    let legal = t.legal();
    assert!(
        legal.iter().all(|a| !matches!(
            a,
            Action::PickUp { .. } | Action::DropOff { .. } | Action::Move { .. }
        )),
        "nothing is offered of a piece off the board: {legal:?}"
    );
    let other = t.unit("I1", "Baltimore");
    assert!(
        legal.contains(&Action::Activate { unit: other }),
        "another piece may be activated: {legal:?}"
    );
    for a in &legal {
        apply(&t.m, &mut t.rules, &t.g, a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
    }
}
