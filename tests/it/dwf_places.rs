//! The player's choice of a reinforcement's place on Divided We Fall (`mods/dwf`, rules
//! text `../shared/seeds/003_2cae1f8ca12d9fc8.txt`, lines cited `Lnnn`): the rules offer
//! one decision per place that can take the pieces (L257, L261); a place not offered is
//! refused with the entry's line, the choice is a recorded action a save replays, and
//! the computer players choose among the places through `legal_actions`. What is offered
//! where is `muster test mods/dwf` (`mods/dwf/tests/places.luau`).

use muster_ai::player::{Level, player};
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{Action, Dice, GameState, Knowledge, apply, awaited, legal_actions, start};
use muster_core::{Module, load_module, load_scenario_str};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::root;

/// June 1862, the CSA's Reinforcements step: L1445's "2 Infantry, Any Flag City".
const JUNE_1862: &str = r#"<scenario id="t" name="t" start="06/1862">
  <side id="union"><place box="Washington DC" units="1 I1"/></side>
  <side id="confederate"><place box="Richmond" units="1 I1"/></side>
</scenario>"#;

fn game() -> (Module, ScriptRules, GameState) {
    let m = load_module(root().join("mods/dwf")).unwrap_or_else(|e| panic!("{e}"));
    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let scenario = load_scenario_str(&m, "t", JUNE_1862).unwrap_or_else(|e| panic!("{e}"));
    let (g, _) = start(&m, &mut rules, &scenario, Vec::new(), Dice::seeded(1)).unwrap();
    (m, rules, g)
}

/// L1445's places as offered: the box of each.
fn places(legal: &[Action]) -> Vec<Action> {
    legal
        .iter()
        .filter(|a| matches!(a, Action::Take { offer, .. } if offer == "appear-L1445"))
        .cloned()
        .collect()
}

/// L261, L1445: a Union flag city is no place for the CSA's infantry: the `Take` is
/// refused, the refusal naming the places offered with their line; the game is unchanged.
#[test]
fn a_place_not_offered_is_refused_with_the_line() {
    let (m, mut rules, g) = game();
    let offered = places(&legal_actions(&m, &mut rules, &g).unwrap());
    assert!(offered.len() > 1, "{offered:?}");
    let Action::Take { offer, seat, .. } = offered[0].clone() else {
        unreachable!()
    };
    let elsewhere = Action::Take {
        offer,
        unit: None,
        at: m.board.find("Philadelphia"),
        label: "L1445: 2 1-6 Infantry appear in Philadelphia".into(),
        seat,
        entry: None,
    };
    let err = apply(&m, &mut rules, &g, &elsewhere)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not among the decisions"), "{err}");
    assert!(
        err.contains("L1445: 2 1-6 Infantry appear in Richmond"),
        "{err}"
    );
    assert!(!err.contains("in Philadelphia;"), "{err}");
}

/// The choice is an action: the save replays it to the same state, the infantry where
/// the player put them.
#[test]
fn the_chosen_place_replays_from_its_save() {
    let (m, mut rules, g) = game();
    let offered = places(&legal_actions(&m, &mut rules, &g).unwrap());
    let take = offered.last().unwrap().clone();
    let Action::Take { at: Some(at), .. } = take else {
        unreachable!()
    };
    let infantry = m.units.find("I1").unwrap();
    let before = g
        .units_at(at)
        .filter(|&u| g.unit(u).kind == infantry)
        .count();
    let (g1, _) = apply(&m, &mut rules, &g, &take).unwrap();
    let after = g1
        .units_at(at)
        .filter(|&u| g1.unit(u).kind == infantry)
        .count();
    assert_eq!(after, before + 2);
    let save = Save::new(
        &m,
        SavedScenario {
            id: "t".into(),
            xml: Some(JUNE_1862.into()),
        },
        Vec::new(),
        1,
        vec![take],
        g1.clone(),
    );
    let read: Save = serde_json::from_str(&serde_json::to_string(&save).unwrap()).unwrap();
    let mut fresh = ScriptRules::load(&m, Limits::default()).unwrap();
    let (replayed, _) = read
        .replay(&m, &mut fresh)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replayed, g1);
}

/// The computer players choose a place among those offered, like any decision.
#[test]
fn the_computer_players_choose_a_place() {
    for level in [Level::Random, Level::Greedy, Level::Ai] {
        let (m, mut rules, g) = game();
        let seat = awaited(&m, &mut rules, &g).unwrap()[0];
        let (k, _) = Knowledge::new(&m, &mut rules, &g, seat);
        let a = player(level, 1).choose(&m, &mut rules, &k).unwrap();
        let legal = legal_actions(&m, &mut rules, &g).unwrap();
        assert!(legal.contains(&a), "{level:?} chose {a:?}");
        assert!(!legal.contains(&Action::EndStep), "the step waits (L257)");
        assert!(
            matches!(&a, Action::Take { offer, .. } if offer.starts_with("appear-")),
            "{level:?} chose {a:?}"
        );
    }
}
