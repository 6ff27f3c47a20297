//! The play client on Divided We Fall (`mods/dwf`, issue 44: "the app plays it ...
//! battles shown with their chart line"; rules text `../shared/seeds/003_…`, lines
//! cited `Lnnn`): a battle the rules resolve by the diceless chart shows each side's
//! losses with the chart line the rules gave, and the side taking them clicks its own
//! pieces, the one the rules name first alone.

use crate::common;
use common::game_state as state;

use std::path::{Path, PathBuf};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_core::game::battle::Stage;
use muster_core::game::{Action, Path as Route};
use muster_core::ids::UnitId;
use muster_core::{Module, load_module};
use muster_editor::EditorApp;
use muster_editor::play::battle::{battle, counter};

/// A copy of DWF with L639's position in May 1863 as a scenario: Grant with 12
/// infantry in Fredericksburg; Lee with a 3 fort, a militia and 6 infantry in Richmond
/// (as `tests/it/dwf_battles.rs` in the root crate).
fn with_richmond() -> (tempfile::TempDir, PathBuf, Module) {
    let tmp = tempfile::tempdir().expect("temporary folder");
    let dir = tmp.path().join("dwf");
    let dwf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/dwf");
    common::copy_dir(&dwf, &dir);
    let scenario = r#"<?xml version="1.0" encoding="UTF-8"?>
<scenario id="test-richmond" name="Test Richmond" start="05/1863">
  <side id="union"><place box="Fredericksburg" units="1 grant-1863, 3 I4"/></side>
  <side id="confederate"><place box="Richmond" units="1 lee, 1 F3, 1 M-VA, 2 I3"/></side>
</scenario>
"#;
    std::fs::write(dir.join("scenarios/test-richmond.xml"), scenario).expect("write scenario");
    common::edit_file(
        &dir.join("module.xml"),
        r#"<include file="scenarios/1863.xml"/>"#,
        r#"<include file="scenarios/1863.xml"/>
  <include file="scenarios/test-richmond.xml"/>"#,
    );
    let m = load_module(&dir).expect("DWF with the test scenario loads");
    (tmp, dir, m)
}

fn act(h: &mut Harness<'_, EditorApp>, a: Action) {
    h.state_mut()
        .play_mut()
        .session_mut()
        .expect("a game")
        .apply(a.clone())
        .unwrap_or_else(|e| panic!("{a:?}: {e}"));
}

fn legal(h: &mut Harness<'_, EditorApp>) -> Vec<Action> {
    h.state_mut()
        .play_mut()
        .session_mut()
        .expect("a game")
        .legal()
        .expect("legal actions")
        .to_vec()
}

/// Whether `a` chooses a reinforcement's place (`mods/dwf/rules/appearance.luau`).
fn is_place(a: &Action) -> bool {
    matches!(a, Action::Take { offer, .. } if offer.starts_with("appear-"))
}

fn start(h: &mut Harness<'_, EditorApp>) {
    h.run();
    h.get_by_label("Play").click();
    h.run();
    h.get_by_label("Test Richmond").click();
    h.run();
    common::retype(h, "Seed", "1");
    h.get_by_label("Start").click();
    h.run();
    assert!(h.state().play().session().is_some(), "the game started");
}

/// L1488, L257: May 1863's five CSA infantry go to "Any Flag City": the play screen
/// offers each place as a button, and the one clicked is where they appear.
#[test]
fn the_play_screen_offers_a_reinforcements_places() {
    let (_tmp, dir, m) = with_richmond();
    let mut h = common::harness(&dir, common::LARGE);
    start(&mut h);
    let places: Vec<Action> = legal(&mut h).into_iter().filter(is_place).collect();
    assert!(places.len() > 1, "{places:?}");
    for a in &places {
        let Action::Take { label, .. } = a else {
            unreachable!()
        };
        assert!(
            h.query_all_by_label(label).next().is_some(),
            "the panel offers '{label}'"
        );
    }
    let raleigh = m.board.find("Raleigh").expect("an area");
    let i1 = m.units.find("I1").expect("a type");
    let count = |h: &Harness<'_, EditorApp>| {
        let s = state(h);
        s.units_at(raleigh)
            .filter(|&u| s.unit(u).kind == i1)
            .count()
    };
    assert_eq!(count(&h), 0);
    h.get_all_by_label("L1488: 5 1-6 Infantry appear in Raleigh")
        .next()
        .expect("offered")
        .click();
    h.run();
    assert_eq!(count(&h), 5);
}

fn unit(h: &Harness<'_, EditorApp>, m: &Module, kind: &str, at: &str) -> UnitId {
    let (kind, at) = (
        m.units.find(kind).expect("a unit type"),
        m.board.find(at).expect("an area"),
    );
    let s = state(h);
    s.units_at(at)
        .find(|&u| s.unit(u).kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} there"))
}

/// The start screen offers the scenario; the game starts with humans on both sides;
/// the Union's Campaign phase comes, Grant picks up his infantry, moves on Richmond and
/// fights there (L334, L382, L392: combat is immediate).
fn attack(h: &mut Harness<'_, EditorApp>, m: &Module) {
    start(h);
    let union = m.find_side("union").expect("a side");
    for _ in 0..50 {
        let s = state(h);
        if s.active_side(m) == union && s.current_step(m).is_some_and(|s| s.id == "campaign") {
            break;
        }
        // A reinforcement's place (L257) is taken where first offered: the text's first.
        let place = legal(h).into_iter().find(is_place);
        act(h, place.unwrap_or(Action::EndStep));
    }
    let to = m.board.find("Richmond").expect("an area");
    let grant = unit(h, m, "grant-1863", "Fredericksburg");
    act(h, Action::Activate { unit: grant });
    while let Some(a) = legal(h)
        .into_iter()
        .find(|a| matches!(a, Action::PickUp { .. }))
    {
        act(h, a);
    }
    let path: Route = legal(h)
        .into_iter()
        .find_map(|a| match a {
            Action::Move { unit, path } if unit == grant && path.to() == to => Some(path),
            _ => None,
        })
        .expect("Grant's stack reaches Richmond");
    act(h, Action::Move { unit: grant, path });
    act(h, Action::Fight { at: to });
    h.run();
}

/// The battle panel shows each side's losses with the chart line the rules gave
/// (L647-L653 for the defender: the chart's 5 for an attack of 16 less Lee's 5; L655-
/// L673 for the attacker), no dice; the CSA takes its first loss off the fort (L649)
/// by clicking it, the only one of its pieces offered.
#[test]
#[cfg_attr(
    muster_no_soft_vulkan,
    ignore = "needs a software Vulkan (Mesa's lavapipe): apt-get install mesa-vulkan-drivers"
)]
fn a_dwf_battle_shows_its_chart_lines_and_the_owner_clicks_the_fort() {
    let (_tmp, dir, m) = with_richmond();
    let mut h = common::harness(&dir, common::LARGE);
    attack(&mut h, &m);
    let s = state(&h);
    let b = battle(&s).expect("the battle began").clone();
    assert_eq!(b.stage, Stage::Losses);
    assert!(
        h.query_by_label("Losses by the rules (no dice)").is_some(),
        "the section is shown"
    );
    for (side, line) in [
        (
            "CSA",
            "CSA loses 1 step (L647-L653: the chart's 5 for an attack of 16",
        ),
        ("USA", "USA loses 3 steps (L655-L673: the chart's 8"),
    ] {
        assert!(
            h.query_all_by_label_contains(line).next().is_some(),
            "{side}'s chart line is shown: '{line}'"
        );
    }
    // No one fires in a battle the rules resolve.
    assert!(
        h.query_by_label("No dice: the rules gave both sides' losses")
            .is_some()
    );
    assert!(h.query_by_label("CSA firing").is_none());
    // Its odds are no error: the losses are known.
    assert!(
        h.query_by_label("decided: its losses are known, there are no odds to take")
            .is_some()
    );
    assert!(
        h.query_by_label("the battle under way is already decided")
            .is_none()
    );
    h.snapshot("dwf_battle_chart");
    // L649: the fort takes the first loss; it alone of the CSA's pieces is a button.
    let fort = unit(&h, &m, "F3", "Richmond");
    for &u in &b.defenders {
        let text = counter(&m, &s, &b, u);
        assert_eq!(
            h.query_by_role_and_label(Role::Button, &text).is_some(),
            u == fort,
            "'{text}'"
        );
    }
    h.get_by_role_and_label(Role::Button, &counter(&m, &s, &b, fort))
        .click();
    h.run();
    assert_eq!(state(&h).unit(fort).hits, 1, "the fort took the loss");
}

/// A copy of DWF with May 1863's Wilmington as a scenario: a fort of 2 there, two Union
/// ships and a supply unit in its blockade box (L406-L408).
fn with_wilmington() -> (tempfile::TempDir, PathBuf, Module) {
    let tmp = tempfile::tempdir().expect("temporary folder");
    let dir = tmp.path().join("dwf");
    let dwf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/dwf");
    common::copy_dir(&dwf, &dir);
    let scenario = r#"<?xml version="1.0" encoding="UTF-8"?>
<scenario id="test-wilmington" name="Test Wilmington" start="05/1863">
  <side id="union"><place box="Washington DC" units="1 I1"/><place box="Blockade Box (Wilmington)" units="2 SH, 1 SU"/></side>
  <side id="confederate"><place box="Atlanta" units="1 I1"/><place box="Wilmington" units="1 F2"/></side>
</scenario>
"#;
    std::fs::write(dir.join("scenarios/test-wilmington.xml"), scenario).expect("write scenario");
    common::edit_file(
        &dir.join("module.xml"),
        r#"<include file="scenarios/1863.xml"/>"#,
        r#"<include file="scenarios/1863.xml"/>
  <include file="scenarios/test-wilmington.xml"/>"#,
    );
    let m = load_module(&dir).expect("DWF with the test scenario loads");
    (tmp, dir, m)
}

/// L406-L408: in the Union's Campaign phase the play screen offers the bombardment of
/// Wilmington's fort, one button per ship that may be lost; the one clicked is lost, the
/// supply unit spent, and the next click takes the fort's step.
#[test]
fn the_play_screen_offers_a_bombardment_ship_by_ship() {
    let (_tmp, dir, m) = with_wilmington();
    let mut h = common::harness(&dir, common::LARGE);
    h.run();
    h.get_by_label("Play").click();
    h.run();
    h.get_by_label("Test Wilmington").click();
    h.run();
    common::retype(&mut h, "Seed", "1");
    h.get_by_label("Start").click();
    h.run();
    let union = m.find_side("union").expect("a side");
    for _ in 0..50 {
        let s = state(&h);
        if s.active_side(&m) == union && s.current_step(&m).is_some_and(|s| s.id == "campaign") {
            break;
        }
        let place = legal(&mut h).into_iter().find(is_place);
        act(&mut h, place.unwrap_or(Action::EndStep));
    }
    h.run();
    let bombard: Vec<String> = legal(&mut h)
        .into_iter()
        .filter_map(|a| match a {
            Action::Take { offer, label, .. } if offer == "dwf.bombard" => Some(label),
            _ => None,
        })
        .collect();
    assert_eq!(bombard.len(), 2, "one per ship: {bombard:?}");
    for label in &bombard {
        assert!(
            h.query_all_by_label(label).next().is_some(),
            "the panel offers '{label}'"
        );
    }
    let box_ = m.board.find("Blockade Box (Wilmington)").expect("an area");
    let count = |h: &Harness<'_, EditorApp>, kind: &str| {
        let k = m.units.find(kind).expect("a type");
        let s = state(h);
        s.units_at(box_).filter(|&u| s.unit(u).kind == k).count()
    };
    h.get_all_by_label(&bombard[0])
        .next()
        .expect("offered")
        .click();
    h.run();
    assert_eq!(
        count(&h, "SH"),
        1,
        "the ship clicked is lost (L408's one more)"
    );
    assert_eq!(count(&h, "SU"), 0, "the supply unit is spent");
    let further = legal(&mut h)
        .into_iter()
        .find_map(|a| match a {
            Action::Take { offer, label, .. } if offer == "dwf.bombard" => Some(label),
            _ => None,
        })
        .expect("the next ship is offered");
    h.get_all_by_label(&further).next().expect("shown").click();
    h.run();
    let fort = unit(&h, &m, "F2", "Wilmington");
    assert_eq!(state(&h).unit(fort).hits, 1, "the fort lost a step");
}
