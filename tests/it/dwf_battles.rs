//! Battles the rules resolve (issue 44, RESOLVE), on Divided We Fall (`mods/dwf`, rules
//! text `../shared/seeds/003_2cae1f8ca12d9fc8.txt`, lines cited `Lnnn`): the loss
//! allocation refused with the rule's line, every decision a recorded action that a
//! save replays bit for bit, and the computer players take the decisions. The chart's
//! rows and the text's worked examples are `muster test mods/dwf` cases
//! (`mods/dwf/tests/combat.luau`).

use muster_ai::odds::{Setup, Spec, resolved};
use muster_ai::player::{Level, player};
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{Action, Dice, GameState, Path, apply, legal_actions, start};
use muster_core::ids::{BoxId, UnitId};
use muster_core::{Module, load_module, load_scenario_str};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::root;

/// L639's position in May 1863: Grant with 12 infantry in Fredericksburg; Lee with a 3
/// fort, a militia and 6 infantry in Richmond.
const RICHMOND: &str = r#"<scenario id="t" name="t" start="05/1863">
  <side id="union"><place box="Fredericksburg" units="1 grant-1863, 3 I4"/></side>
  <side id="confederate"><place box="Richmond" units="1 lee, 1 F3, 1 M-VA, 2 I3"/></side>
</scenario>"#;

struct Game {
    m: Module,
    rules: ScriptRules,
    g: GameState,
    actions: Vec<Action>,
}

impl Game {
    fn new(xml: &str) -> Game {
        let m = load_module(root().join("mods/dwf")).unwrap_or_else(|e| panic!("{e}"));
        let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        let scenario = load_scenario_str(&m, "t", xml).unwrap_or_else(|e| panic!("{e}"));
        let (g, _) = start(&m, &mut rules, &scenario, Vec::new(), Dice::seeded(1)).unwrap();
        Game {
            m,
            rules,
            g,
            actions: Vec::new(),
        }
    }

    fn act(&mut self, a: Action) -> Vec<String> {
        let (next, log) =
            apply(&self.m, &mut self.rules, &self.g, &a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
        self.g = next;
        self.actions.push(a);
        log
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
            .find(|&u| self.g.unit(u).kind == kind)
            .unwrap_or_else(|| panic!("no {kind:?} there"))
    }

    /// Ends steps until the Union's Campaign phase, then moves Grant's stack from
    /// Fredericksburg to Richmond and fights there.
    fn attack(&mut self) {
        let union = self.m.find_side("union").unwrap();
        while !(self.g.active_side(&self.m) == union
            && self
                .g
                .current_step(&self.m)
                .is_some_and(|s| s.id == "campaign"))
        {
            // A reinforcement's place (L257): the first offered, the text's first.
            let place = self
                .legal()
                .into_iter()
                .find(|a| matches!(a, Action::Take { offer, .. } if offer.starts_with("appear-")));
            self.act(place.unwrap_or(Action::EndStep));
        }
        // L334, L382: Grant is activated and picks his infantry up (the stack's point).
        let to = self.at("Richmond");
        let grant = self.unit("grant-1863", "Fredericksburg");
        self.act(Action::Activate { unit: grant });
        while let Some(a) = self
            .legal()
            .into_iter()
            .find(|a| matches!(a, Action::PickUp { .. }))
        {
            self.act(a);
        }
        let path: Path = self
            .legal()
            .into_iter()
            .find_map(|a| match a {
                Action::Move { unit, path } if unit == grant && path.to() == to => Some(path),
                _ => None,
            })
            .expect("Grant's stack reaches Richmond");
        self.act(Action::Move { unit: grant, path });
        // L392: combat is immediate: the battle is fought when the Union commits to it.
        self.act(Action::Fight { at: to });
    }
}

/// L649: "If a fort is present, at least one of the losses must be taken from the
/// fort, which cannot be protected by the leader's combat value ability": a loss
/// taken off the militia first is refused, quoting the line; the fort's is taken.
#[test]
fn a_loss_off_another_piece_before_the_forts_is_refused_with_the_rule() {
    let mut t = Game::new(RICHMOND);
    t.attack();
    let militia = t.unit("M-VA", "Richmond");
    let fort = t.unit("F3", "Richmond");
    let legal = t.legal();
    assert_eq!(legal, [Action::Lose { unit: fort }], "only the fort first");
    let err = apply(&t.m, &mut t.rules, &t.g, &Action::Lose { unit: militia })
        .expect_err("refused")
        .to_string();
    assert!(err.contains("L649") && err.contains("Fort (3)"), "{err}");
    // A piece of the other side is not the defender's to lose.
    let grant_inf = t.unit("I4", "Richmond");
    let err = apply(&t.m, &mut t.rules, &t.g, &Action::Lose { unit: grant_inf })
        .expect_err("refused")
        .to_string();
    assert!(err.contains("not one of CSA's pieces"), "{err}");
    // 12 - 1 (woods) + Grant's 5 = 16: the chart's 5, less Lee's 5, but the
    // fort still takes one (L649).
    t.act(Action::Lose { unit: fort });
    assert_eq!(t.g.unit(fort).hits, 1);
    // Then the Union takes its losses off its own pieces.
    assert!(t.legal().contains(&Action::Lose { unit: grant_inf }));
}

/// Every decision of a resolved battle is an action: the save of the game replays to
/// the same state, bit for bit.
#[test]
fn a_resolved_battle_replays_from_its_save() {
    let mut t = Game::new(RICHMOND);
    t.attack();
    while t.g.combat.as_ref().is_some_and(|c| c.battle.is_some()) {
        let a = t.legal().into_iter().next().expect("a decision");
        t.act(a);
    }
    assert!(t.actions.iter().any(|a| matches!(a, Action::Lose { .. })));
    let save = Save::new(
        &t.m,
        SavedScenario {
            id: "t".into(),
            xml: Some(RICHMOND.into()),
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

/// The computer players take the losses and the retreat of a resolved battle through
/// `legal_actions`, like any decision.
#[test]
fn the_computer_players_take_the_losses() {
    for level in [Level::Random, Level::Greedy, Level::Ai] {
        let mut t = Game::new(RICHMOND);
        t.attack();
        let mut p = player(level, 1);
        let mut n = 0;
        while t.g.combat.as_ref().is_some_and(|c| c.battle.is_some()) {
            let seat = muster_core::game::awaited(&t.m, &mut t.rules, &t.g).unwrap()[0];
            let (k, _) = muster_core::game::Knowledge::new(&t.m, &mut t.rules, &t.g, seat);
            let a = p.choose(&t.m, &mut t.rules, &k).unwrap();
            assert!(t.legal().contains(&a), "{level:?} chose {a:?}");
            t.act(a);
            n += 1;
        }
        // 1 CSA loss (the fort's), 3 Union losses (the woods column's 8 less Grant's 5,
        // at least the fort's 3), the Union's retreat (L679: the fort stands).
        assert_eq!(n, 5, "{level:?}");
        assert!(
            t.g.units_at(t.at("Richmond"))
                .all(|u| t.g.unit(u).side != t.m.find_side("union").unwrap())
        );
    }
}

/// `muster odds` on a battle the rules resolve reports its one outcome: Grant's 12
/// infantry through the woods from Fredericksburg (L639: -1) and 8 by the James, a major
/// river (L1146: halved), into Lee's Richmond and its 3 fort: (12 - 1) + 8 / 2 + Grant's 5
/// = 20. The defender loses the chart's 7 (L1095) less Lee's 5 (L647); the attacker, by
/// woods and a major river, the MAXIMUM column's 13 (L1095, L1101) less Grant's 5, at
/// least the fort's 3 (L667): 8. The fort stands: the defender wins (L679).
#[test]
fn odds_give_the_charts_exact_losses_through_woods_across_a_major_river_into_a_fort() {
    let m = load_module(root().join("mods/dwf")).unwrap_or_else(|e| panic!("{e}"));
    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let spec = Spec {
        attackers: "grant-1863, 3 I4, 2 I4".into(),
        defenders: "lee, F3, M-VA, 2 I3".into(),
        attacker_side: None,
        at: Some("Richmond".into()),
        flags: Vec::new(),
        crossing: 0,
        options: Vec::new(),
        markers: Vec::new(),
    };
    let mut setup = Setup::from_spec(&m, &spec).unwrap_or_else(|e| panic!("{e}"));
    setup.enter_from(&m, "Fredericksburg", 3).unwrap();
    setup.enter_from(&m, "Ft. Monroe", 2).unwrap();
    let exact = resolved(&m, &mut rules, &setup)
        .unwrap_or_else(|e| panic!("{e}"))
        .expect("DWF's battles are resolved by the rules");
    assert_eq!(
        (exact.attacker_losses, exact.defender_losses),
        (8, 2),
        "{:#?}",
        exact.log
    );
    assert_eq!(exact.winner, m.find_side("confederate"));
    // The approach matters: from Fredericksburg alone, (20 - 1) + 5 = 24 is the rows
    // 20 and 4 (L1097): the defender 7 + 1 less 5 = 3, the attacker the woods column's
    // 10 + 2 less 5 = 7.
    let mut setup = Setup::from_spec(&m, &spec).unwrap();
    setup.enter_from(&m, "Fredericksburg", 5).unwrap();
    let exact = resolved(&m, &mut rules, &setup).unwrap().unwrap();
    assert_eq!(
        (exact.attacker_losses, exact.defender_losses),
        (7, 3),
        "{:#?}",
        exact.log
    );
}
