//! The play client on another module than AHD: the TripleA adaptation (`mods/ahd-triplea`,
//! an overlay of AHD). Its decisions are the engine's procedures in its own words ("buy a
//! march for ...") and its rules' offers (entrenchments bought with PUs), all buttons of
//! the action panel; its resource (PUs) is in the banner.

use crate::common;

use std::path::{Path, PathBuf};

use egui::accesskit::Role;
use egui_kittest::kittest::{Queryable, by};
use muster_core::load_module;

fn triplea() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd-triplea")
}

#[test]
fn the_adaptation_is_played_through_its_own_words_and_offers() {
    let mut h = common::harness(&triplea(), common::LARGE);
    h.run();
    h.get_by_label("Play").click();
    h.run();
    h.get_by_label("1861 Campaign (TripleA)").click();
    h.run();
    common::retype(&mut h, "Seed", "1");
    h.get_by_label("Start").click();
    h.run();
    assert!(
        h.state().play().session().is_some(),
        "{}",
        h.state().play().status()
    );
    // The mods in play: the adaptation on AHD (issue 14: the app lists the mods in use).
    assert!(
        h.query_by_label("Mods: ahd-triplea 0.1.0 on ahd 0.1.0")
            .is_some(),
        "the banner names the mods"
    );
    // The first turn: 2 PUs, shown with the module's name for them.
    assert!(
        h.query_all(by().label_contains("PUs")).next().is_some(),
        "the banner shows the PUs"
    );
    // A march bought for Pittsburgh, in the module's words.
    common::retype(&mut h, "Filter", "buy a march for Pittsburgh");
    h.get_all(by().label("buy a march for Pittsburgh").role(Role::Button))
        .next()
        .expect("the panel offers the march")
        .click();
    h.run();
    // The rules' offer: Pittsburgh recruits, so its entrenchment costs nothing more.
    common::retype(&mut h, "Filter", "entrench");
    let label = "entrench Pittsburgh (1 PU with its march)";
    h.get_all(by().label(label).role(Role::Button))
        .next()
        .unwrap_or_else(|| panic!("the panel offers '{label}'"))
        .click();
    h.run();
    let module = load_module(triplea()).expect("the mod loads");
    let state = common::game_state(&h);
    let marker = module.units.find_marker("entrenchment").expect("declared");
    let pittsburgh = module.board.find("Pittsburgh").expect("a box");
    assert_eq!(
        state.markers_at(pittsburgh, marker),
        1,
        "the offer was taken"
    );
    let pu = module.find_resource("pu").expect("declared");
    let union = module.find_side("union").expect("a side");
    assert_eq!(state.resource(union, pu), 1, "one PU spent on the march");
}

mod battle {
    //! TripleA's battle in the battle window (issue 51, 6): both sides' volleys of a
    //! round shown together, the side taking losses choosing them by clicking its own
    //! units or a water crossing, retreat offered to the attacker alone.

    use super::common;
    use common::game_state as state;

    use std::path::PathBuf;

    use egui::accesskit::Role;
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    use muster_core::game::battle::Stage;
    use muster_core::game::{Action, Place};
    use muster_core::{Module, load_module};
    use muster_editor::EditorApp;
    use muster_editor::play::battle::{battle, choice_label, counter};

    /// Copies of AHD and the adaptation side by side (it extends `../ahd`), with a
    /// scenario in August 1861: the Union's army in Quincy, the Confederacy's in St.
    /// Louis, behind its water border (the seed's example: "Units crossing into it from
    /// (or through) Quincy ... must cross the water").
    fn with_st_louis() -> (impl Sized, PathBuf, Module) {
        let (tmp, _ahd) = common::ahd_copy();
        let dir = tmp.path().join("ahd-triplea");
        common::copy_dir(&super::triplea(), &dir);
        let scenario = r#"<?xml version="1.0" encoding="UTF-8"?>
<scenario id="test-battle" name="Test Battle" rule="seed 002" start="08/1861">
  <side id="union"><place box="Quincy" units="3 Vi"/><control box="Quincy"/></side>
  <side id="confederate"><place box="St. Louis" units="2 Mi, 1 Vi"/><control box="St. Louis"/></side>
</scenario>
"#;
        std::fs::write(dir.join("scenarios/test-battle.xml"), scenario).expect("write scenario");
        common::edit_file(
            &dir.join("module.xml"),
            r#"<include file="scenarios/1861.xml"/>"#,
            r#"<include file="scenarios/1861.xml"/>
  <include file="scenarios/test-battle.xml"/>"#,
        );
        let m = load_module(&dir).expect("the adaptation with the test scenario loads");
        (tmp, dir, m)
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

    fn last_action(h: &Harness<'_, EditorApp>) -> Option<Action> {
        h.state()
            .play()
            .session()
            .expect("game")
            .history()
            .actions()
            .last()
            .cloned()
    }

    /// Starts the scenario (humans both sides, `seed`), marches Quincy's army into St.
    /// Louis (a water crossing is placed there) and fights: TripleA's first volleys are
    /// rolled at once.
    fn attack(h: &mut Harness<'_, EditorApp>, m: &Module, seed: u64) {
        h.run();
        h.get_by_label("Play").click();
        h.run();
        h.get_by_label("Test Battle").click();
        h.run();
        common::retype(h, "Seed", &seed.to_string());
        h.get_by_label("Start").click();
        h.run();
        let (quincy, st_louis) = (
            m.board.find("Quincy").expect("box"),
            m.board.find("St. Louis").expect("box"),
        );
        act(h, Action::Select { at: quincy });
        for _ in 0..3 {
            let s = state(h);
            let mv = legal(h)
                .into_iter()
                .find(|a| {
                    matches!(a, Action::Move { unit, path }
                        if path.to() == st_louis && s.unit(*unit).place == Place::Board(quincy))
                })
                .expect("a Veteran can march into St. Louis");
            act(h, mv);
        }
        for _ in 0..20 {
            let legal = legal(h);
            let fight = Action::Fight { at: st_louis };
            if legal.contains(&fight) {
                act(h, fight);
                h.run();
                return;
            }
            let next = [Action::Release, Action::EndStep]
                .into_iter()
                .find(|a| legal.contains(a))
                .expect("the march and the phase can end");
            act(h, next);
        }
        panic!("no battle at St. Louis");
    }

    fn tokens(h: &Harness<'_, EditorApp>, m: &Module) -> u16 {
        let st_louis = m.board.find("St. Louis").expect("box");
        let token = m.units.find_marker("water-crossing").expect("declared");
        state(h).markers_at(st_louis, token)
    }

    /// The battle window plays TripleA's battle: after a round's volleys (both sides'
    /// dice, side by side), the Confederacy, hit, chooses its losses by clicking: a
    /// water crossing (the seed: they "may also be used as casualties in battle") or
    /// one of its own units; from round 2 the Union alone is offered a retreat.
    #[test]
    #[cfg_attr(
        muster_no_soft_vulkan,
        ignore = "needs a software Vulkan (Mesa's lavapipe): apt-get install mesa-vulkan-drivers"
    )]
    fn triplea_battle_volleys_owners_losses_and_the_attackers_retreat() {
        let (_tmp, dir, m) = with_st_louis();
        let (mut chosen, mut retreated) = (false, false);
        for seed in 1..=40 {
            if chosen && retreated {
                return;
            }
            let mut h = common::harness(&dir, common::LARGE);
            attack(&mut h, &m, seed);
            let s = state(&h);
            let b = battle(&s).expect("the battle began");
            let hit = b.stage == Stage::Losses && b.firing == b.defender && tokens(&h, &m) > 0;
            if !chosen && hit {
                chosen = true;
                losses_chosen_by_clicking(&mut h, &m);
            }
            retreated |= only_the_attacker_retreats(&mut h, &m);
        }
        assert!(
            chosen,
            "in 40 seeds the Confederacy was never hit in round 1 with its token"
        );
        assert!(retreated, "in 40 seeds the Union never reached round 2");
    }

    /// Round 1 is rolled and the Confederacy, hit, chooses its loss: the window shows the
    /// procedure, the token and both volleys, then the token takes the loss by its button.
    fn losses_chosen_by_clicking(h: &mut Harness<'_, EditorApp>, m: &Module) {
        let s = state(h);
        let b = battle(&s).expect("the battle began").clone();
        let confederacy = &m.side(b.defender).name;
        // The procedure in words, the token in the box, both volleys together.
        for text in [
            "Both sides fire at once each round; each side chooses its own losses; only the attacker may retreat.",
            "In the box: Water crossing x1",
            "Round 1: both sides fired at once",
            "Union fired",
            "Confederacy fired",
            "Both sides have fired; the losses are taken together",
        ] {
            assert!(h.query_by_label(text).is_some(), "'{text}' is shown");
        }
        // Both have fired: the side taking its losses is not said to be firing.
        assert!(h.query_by_label(&format!("{confederacy} firing")).is_none());
        assert!(
            h.query_all_by_label_contains(&format!("{confederacy} has "))
                .next()
                .is_some(),
            "the losses owed are shown"
        );
        h.snapshot("triplea_battle_losses");
        // The Confederacy's own units are buttons; the Union's are not.
        for (units, clickable) in [(&b.defenders, true), (&b.attackers, false)] {
            for &u in units {
                let text = counter(m, &s, &b, u);
                assert_eq!(
                    h.query_by_role_and_label(Role::Button, &text).is_some(),
                    clickable,
                    "'{text}'"
                );
            }
        }
        // The water crossing takes the loss, by its button.
        let label = choice_label(m, &s, &b, &Action::Absorb).expect("offered");
        h.get_by_role_and_label(Role::Button, &label).click();
        h.run();
        assert_eq!(last_action(h), Some(Action::Absorb));
        assert_eq!(tokens(h, m), 0, "the token is spent");
    }

    /// Plays the battle on, each loss by clicking the side's own unit: the Confederacy
    /// is never offered a retreat; the Union is, from round 2, and retreats by its
    /// button. False if the battle ended before round 2.
    fn only_the_attacker_retreats(h: &mut Harness<'_, EditorApp>, m: &Module) -> bool {
        for _ in 0..200 {
            h.run();
            let s = state(h);
            let Some(b) = battle(&s).cloned() else {
                return false;
            };
            let legal = legal(h);
            if let Some(retreat) = legal
                .iter()
                .find(|a| matches!(a, Action::Retreat { .. }))
                .cloned()
            {
                assert_eq!(b.firing, b.attacker, "only the attacker retreats");
                assert!(b.round >= 2);
                let label = choice_label(m, &s, &b, &retreat).expect("offered");
                assert!(label.starts_with("Retreat to "), "{label}");
                h.get_by_role_and_label(Role::Button, &label).click();
                h.run();
                assert_eq!(last_action(h), Some(retreat));
                assert!(battle(&state(h)).is_none(), "the battle is over");
                return true;
            }
            // A loss: a unit of the side's own, clicked in its column.
            match legal.iter().find(|a| matches!(a, Action::Lose { .. })) {
                Some(&Action::Lose { unit }) => {
                    h.get_by_role_and_label(Role::Button, &counter(m, &s, &b, unit))
                        .click();
                    h.run();
                    assert_eq!(last_action(h), Some(Action::Lose { unit }));
                }
                _ => act(h, legal.first().cloned().expect("a choice")),
            }
        }
        false
    }
}
