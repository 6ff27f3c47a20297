//! The battle window's reinforcement and withdrawal choices, clicked in set-up battles:
//! a small scenario written into a copy of AHD puts the armies next to each other, the
//! march and the routine choices go straight to the session, and the choice under test
//! is made by clicking its button in the window.

use crate::common;

use common::game_state as state;

use std::path::Path;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_core::game::{Action, Place};
use muster_core::ids::BoxId;
use muster_core::{Module, load_module};
use muster_editor::EditorApp;
use muster_editor::play::battle::{battle, choice_label};

/// A scenario with the Union in Washington and Harper's Ferry and `defenders` in
/// Manassas Junction, which both boxes touch (a rail line and a road).
fn module_with(dir: &Path, defenders: &str) -> Module {
    let scenario = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<scenario id="test-battle" name="Test Battle" rule="2.0" start="07/1861">
  <side id="union">
    <tally id="army-maximum" value="34"/>
    <place box="Washington" units="2 Vi"/>
    <place box="Harper's Ferry" units="1 Vi"/>
  </side>
  <side id="confederate">
    <tally id="army-maximum" value="29"/>
    <place box="Manassas Junction" units="{defenders}"/>
  </side>
</scenario>
"#
    );
    std::fs::write(dir.join("scenarios/test-battle.xml"), scenario).expect("write scenario");
    let manifest = dir.join("module.xml");
    let text = std::fs::read_to_string(&manifest).expect("module.xml");
    let text = text.replacen(
        r#"<include file="scenarios/1861.xml"/>"#,
        r#"<include file="scenarios/1861.xml"/>
  <include file="scenarios/test-battle.xml"/>"#,
        1,
    );
    std::fs::write(&manifest, text).expect("write module.xml");
    load_module(dir).expect("the module with the test scenario loads")
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

fn act(h: &mut Harness<'_, EditorApp>, a: Action) {
    h.state_mut()
        .play_mut()
        .session_mut()
        .expect("a game")
        .apply(a)
        .expect("a legal action");
}

/// Starts the test scenario (humans both sides, `seed`), marches Washington's two
/// Veterans into Manassas Junction and begins the battle there.
fn attack(h: &mut Harness<'_, EditorApp>, m: &Module, seed: u64) -> BoxId {
    h.run();
    h.get_by_label("Play").click();
    h.run();
    h.get_by_label("Test Battle").click();
    h.run();
    common::retype(h, "Seed", &seed.to_string());
    h.get_by_label("Start").click();
    h.run();
    let box_named = |name: &str| m.board.find(name).expect("an AHD box");
    let (washington, junction) = (box_named("Washington"), box_named("Manassas Junction"));
    act(h, Action::Select { at: washington });
    for _ in 0..2 {
        let s = state(h);
        let mv = legal(h)
            .into_iter()
            .find(|a| {
                matches!(a, Action::Move { unit, path }
                    if path.to() == junction && s.unit(*unit).place == Place::Board(washington))
            })
            .expect("a Veteran can move into the junction");
        act(h, mv);
    }
    for _ in 0..20 {
        let legal = legal(h);
        let fight = Action::Fight { at: junction };
        if legal.contains(&fight) {
            act(h, fight);
            h.run();
            return junction;
        }
        let next = [Action::Release, Action::EndStep]
            .into_iter()
            .find(|a| legal.contains(a))
            .expect("the march and the segment can end");
        act(h, next);
    }
    panic!("no battle at Manassas Junction");
}

/// Clicks the window's button for `a`.
fn click_choice(h: &mut Harness<'_, EditorApp>, m: &Module, a: &Action) -> String {
    h.run();
    let s = state(h);
    let b = battle(&s).expect("a battle under way");
    let label = choice_label(m, &s, b, a).expect("the window offers it");
    h.get_by_role_and_label(Role::Button, &label).click();
    h.run();
    label
}

/// 5.5: from the second round, one unit from each adjacent box may join. The Union's
/// Veteran in Harper's Ferry is offered, and clicking it brings it into the battle.
#[test]
fn a_reinforcement_is_brought_in_by_its_button() {
    for seed in 1..=20 {
        let (_tmp, dir) = common::ahd_copy();
        let m = module_with(&dir, "2 Vi");
        let mut h = common::harness(&dir, common::LARGE);
        let at = attack(&mut h, &m, seed);
        let ferry = m.board.find("Harper's Ferry").expect("box");
        let reserve = state(&h)
            .units_at(ferry)
            .next()
            .expect("the Union Veteran in Harper's Ferry");
        for _ in 0..200 {
            let s = state(&h);
            let Some(b) = battle(&s) else { break };
            let legal = legal(&mut h);
            let join = Action::Reinforce { unit: reserve };
            if legal.contains(&join) {
                let label = click_choice(&mut h, &m, &join);
                assert!(label.contains("Harper's Ferry"), "{label}");
                let s = state(&h);
                assert_eq!(s.unit(reserve).place, Place::Board(at));
                let b = battle(&s).expect("the battle goes on");
                assert!(b.attackers.contains(&reserve), "it fights for the attacker");
                assert_eq!(
                    h.state()
                        .play()
                        .session()
                        .expect("game")
                        .history()
                        .actions()
                        .last(),
                    Some(&join)
                );
                return;
            }
            // Anything else: fight on, the first target offered.
            let next = if b.stage == muster_core::game::battle::Stage::Target {
                legal
                    .iter()
                    .find(|a| matches!(a, Action::Target { .. }))
                    .cloned()
            } else {
                Some(Action::Pass).filter(|p| legal.contains(p))
            };
            act(&mut h, next.expect("the battle offers a choice"));
        }
    }
    panic!("in 20 seeds, the Union never reached round 2 with its attack standing");
}

/// 5.6: a defender of cavalry alone may withdraw before the first round; clicking
/// "Withdraw to ..." moves it there and ends the battle without a winner.
#[test]
fn cavalry_alone_withdraws_by_its_button() {
    let (_tmp, dir) = common::ahd_copy();
    let m = module_with(&dir, "1 Vc");
    let mut h = common::harness(&dir, common::LARGE);
    let at = attack(&mut h, &m, 1);
    let s = state(&h);
    let b = battle(&s).expect("the battle began");
    assert_eq!(b.stage, muster_core::game::battle::Stage::Withdraw);
    let cavalry = b.defenders[0];
    assert!(
        h.query_by_label("Stand").is_some(),
        "standing is offered too"
    );
    let to = legal(&mut h)
        .into_iter()
        .find_map(|a| match a {
            Action::Retreat { to } => Some(to),
            _ => None,
        })
        .expect("somewhere to withdraw to");
    let label = click_choice(&mut h, &m, &Action::Retreat { to });
    assert!(label.starts_with("Withdraw to "), "{label}");
    let s = state(&h);
    assert_eq!(s.unit(cavalry).place, Place::Board(to));
    assert!(battle(&s).is_none(), "the battle is over");
    assert!(
        s.units_at(at)
            .all(|u| s.unit(u).side != s.unit(cavalry).side)
    );
    assert!(
        h.query_by_label("Battle over").is_some(),
        "the window shows the end"
    );
    assert!(
        h.query_all_by_label_contains(" withdraws from Manassas Junction")
            .next()
            .is_some(),
        "the engine's words for it"
    );
}

/// Issue 15 item 5: once a battle is over its window keeps showing the battle's units
/// as they stood in it, not whatever those pieces are in the game as it goes on.
#[test]
fn a_finished_battles_window_shows_the_battles_units() {
    let (_tmp, dir) = common::ahd_copy();
    let m = module_with(&dir, "2 Vi");
    let mut h = common::harness(&dir, common::LARGE);
    attack(&mut h, &m, 3);
    let mut last = state(&h);
    let mut guard = 0;
    while battle(&state(&h)).is_some() {
        last = state(&h);
        let a = legal(&mut h)[0].clone();
        act(&mut h, a);
        h.run();
        guard += 1;
        assert!(guard < 500, "the battle ends");
    }
    let b = battle(&last).expect("the battle as it last stood").clone();
    // The game goes on: the rest of the player turn and more.
    for _ in 0..40 {
        let l = legal(&mut h);
        let Some(a) = l.first().cloned() else { break };
        act(&mut h, a);
    }
    h.run();
    assert!(
        h.query_by_label("Battle over").is_some(),
        "the window stays"
    );
    for &u in b.attackers.iter().chain(&b.defenders) {
        let text = muster_editor::play::battle::counter(&m, &last, &b, u);
        assert!(
            h.query_by_label(&text).is_some(),
            "'{text}' as in the battle"
        );
    }
}
