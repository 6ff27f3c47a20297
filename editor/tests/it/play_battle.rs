//! The play client's battle window, banner and AI pace, driven through egui_kittest and
//! checked against the engine.

use crate::common;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{Queryable, by};
use muster_core::format::Procedure;
use muster_core::game::battle::Stage;
use muster_core::game::flow::procedure;
use muster_core::game::{Action, GameState, Place, describe, legal_actions, why_not};
use muster_editor::EditorApp;
use muster_editor::play::battle::{battle, counter, dice_lines};

use common::{ahd_module as module, game_state as state, retype, rules};

fn actions(h: &Harness<'_, EditorApp>) -> Vec<Action> {
    h.state()
        .play()
        .session()
        .expect("a game is under way")
        .history()
        .actions()
        .to_vec()
}

/// Play mode, a game started through the dialog with these players, the odds window
/// off (it would simulate every position).
fn new_game(h: &mut Harness<'_, EditorApp>, seed: u64, players: &[(&str, &str)]) {
    h.run();
    h.get_by_label("Play").click();
    h.run();
    h.get_by_label("1861 Campaign Game").click();
    h.run();
    for (side, kind) in players {
        h.get_by_role_and_label(Role::ComboBox, side).click();
        h.run();
        h.get_by_label(kind).click();
        h.run();
    }
    retype(h, "Seed", &seed.to_string());
    // The tests drive the computers themselves (AI step, AI auto).
    h.get_by_label("Computers play by themselves").click();
    // The tests name every target themselves, a lone one too.
    muster_editor::play::refusal::set_takes_lone_target(&h.ctx, false);
    h.run();
    h.get_by_label("Start").click();
    h.run();
    assert!(h.state().play().session().is_some(), "the game started");
    h.get_by_label("Odds").click();
    h.run();
}

/// Plays the AI player's choices for both (human) sides straight into the session until
/// `stop` holds.
fn play_until(h: &mut Harness<'_, EditorApp>, seed: u64, stop: impl Fn(&GameState) -> bool) {
    let module = module();
    let mut r = rules(&module);
    let mut chooser = muster_ai::player(muster_ai::Level::Ai, seed);
    for _ in 0..3_000 {
        let s = state(h);
        if stop(&s) {
            h.run();
            return;
        }
        assert!(s.outcome.is_none(), "the game ended first");
        let legal = legal_actions(&module, &mut r, &s).expect("legal");
        let mut action = muster_ai::choose(&mut chooser, &module, &mut r, &s).expect("choice");
        if !legal.contains(&action) {
            chooser.forget();
            action = muster_ai::choose(&mut chooser, &module, &mut r, &s).expect("choice");
        }
        h.state_mut()
            .play_mut()
            .session_mut()
            .expect("game")
            .apply(action)
            .expect("legal action");
    }
    panic!("the position never came");
}

fn label_count(h: &Harness<'_, EditorApp>, text: &str) -> usize {
    h.query_all_by_label(text).count()
}

/// A whole battle fought in its window alone: targets by clicking enemy units, the
/// other choices by their buttons; the dice shown are the engine's.
#[test]
fn a_battle_is_fought_through_its_window() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, common::LARGE);
    new_game(&mut h, 11, &[]);
    play_until(&mut h, 11, |s| battle(s).is_some());
    let module = module();
    let start =
        muster_editor::play::battle::battle_start(h.state().play().session().expect("game").log())
            .expect("the log tells of the battle");
    assert!(h.state().play().battle_open());
    let at = battle(&state(&h)).expect("battle").at;
    let title = format!("Battle at {}", module.board.get(at).name);
    assert!(
        h.query_all_by_label(&title).next().is_some(),
        "the window '{title}' is open"
    );

    let (mut clicked_targets, mut passes, mut retreats, mut fought_on) = (0, 0, 0, 0);
    let (mut reinforced, mut promoted) = (0, 0);
    let mut r = rules(&module);
    for _ in 0..300 {
        let s = state(&h);
        let Some(b) = battle(&s).cloned() else { break };
        let legal = legal_actions(&module, &mut r, &s).expect("legal");
        // A decided battle says who won, not whose round it is (issue 46).
        let heading = match b.winner {
            None => format!("Round {}", b.round),
            Some(w) => format!("Won by {}", module.side(w).name),
        };
        assert!(
            h.query_all(by().label_contains(&heading)).next().is_some(),
            "{heading}"
        );
        let (label, action) = match b.stage {
            Stage::Target => {
                // The last target offered: not simply the first button of the line.
                let a = legal.last().expect("a target").clone();
                let Action::Target { target, .. } = a else {
                    panic!("only targets are legal now: {legal:?}")
                };
                // Units the engine does not offer are not buttons.
                let enemies = if b.firing == b.attacker {
                    &b.defenders
                } else {
                    &b.attackers
                };
                for &e in enemies {
                    let offered = legal
                        .iter()
                        .any(|x| matches!(x, Action::Target { target: t, .. } if *t == e));
                    let text = counter(&module, &s, &b, e);
                    assert_eq!(
                        h.query_by_role_and_label(Role::Button, &text).is_some(),
                        offered,
                        "'{text}' is clickable exactly when the engine offers it"
                    );
                }
                (counter(&module, &s, &b, target), a)
            }
            // Fight on the first time, retreat the next (if the engine allows it).
            Stage::Retreat if fought_on > 0 => {
                match legal.iter().find(|a| matches!(a, Action::Retreat { .. })) {
                    Some(a @ Action::Retreat { to }) => {
                        retreats += 1;
                        (
                            format!("Retreat to {}", module.board.get(*to).name),
                            a.clone(),
                        )
                    }
                    _ => ("Fight on".to_string(), Action::Pass),
                }
            }
            Stage::Withdraw => ("Stand".to_string(), Action::Pass),
            Stage::Retreat => {
                fought_on += 1;
                ("Fight on".to_string(), Action::Pass)
            }
            // A reinforcement once if offered, then no more; a promotion if offered.
            Stage::Reinforce => {
                match legal.iter().find(|a| matches!(a, Action::Reinforce { .. })) {
                    Some(a @ Action::Reinforce { unit }) if reinforced == 0 => {
                        reinforced += 1;
                        let Place::Board(from) = s.unit(*unit).place else {
                            panic!("a reinforcement on the board")
                        };
                        let text = format!(
                            "Reinforce with {} from {}",
                            describe::unit(&module, &s, *unit),
                            module.board.get(from).name
                        );
                        (text, a.clone())
                    }
                    _ => ("No more reinforcements".to_string(), Action::Pass),
                }
            }
            Stage::Upgrade => match legal.iter().find(|a| matches!(a, Action::Upgrade { .. })) {
                Some(a @ Action::Upgrade { unit }) => {
                    promoted += 1;
                    (
                        format!("Promote {}", describe::unit(&module, &s, *unit)),
                        a.clone(),
                    )
                }
                _ => ("No promotion".to_string(), Action::Pass),
            },
            // AHD's battles roll dice: the rules never resolve them.
            Stage::Losses | Stage::Rout => unreachable!("AHD's battles are not rules-resolved"),
        };
        if action == Action::Pass {
            passes += 1;
        }
        let log_before = h.state().play().session().expect("game").log().len();
        h.get_by_role_and_label(Role::Button, &label).click();
        h.run();
        assert_eq!(
            actions(&h).last(),
            Some(&action),
            "after clicking '{label}'"
        );
        if let Action::Target { shooter, target } = action {
            clicked_targets += 1;
            // Announced, or (the last of the part) already fired with its die roll.
            let shot = battle(&state(&h)).is_some_and(|b| b.shots.contains(&(shooter, target)));
            let log = h.state().play().session().expect("game").log();
            let fired = log[log_before..].iter().any(|l| l.contains(" fires at "));
            assert!(shot || fired, "the engine took the shot");
        }
    }
    assert!(battle(&state(&h)).is_none(), "the battle ended");
    assert!(clicked_targets > 0);
    assert!(fought_on > 0, "'Fight on' was clicked");
    assert!(passes > fought_on, "other passes were clicked");
    assert_eq!(retreats, 1, "a retreat was clicked");
    // With this seed the engine offers no reinforcement, and a promotion to the winner.
    assert_eq!((reinforced, promoted), (0, 1), "the promotion was clicked");

    // The window stays with the result and the engine's dice.
    assert!(h.state().play().battle_open());
    assert!(h.query_by_label("Battle over").is_some());
    let log = h.state().play().session().expect("game").log().to_vec();
    let rolls: Vec<String> = log[start..]
        .iter()
        .filter(|l| l.contains(": rolls "))
        .map(|l| l.trim().to_string())
        .collect();
    assert!(!rolls.is_empty(), "dice were rolled");
    for line in &rolls {
        let times = rolls.iter().filter(|l| *l == line).count();
        assert_eq!(label_count(&h, line), times, "the window shows '{line}'");
    }
    assert_eq!(
        dice_lines(&log, start, None)
            .iter()
            .filter(|l| l.contains(": rolls "))
            .count(),
        rolls.len()
    );
    if let Some(won) = log[start..]
        .iter()
        .find(|l| l.contains(" wins the battle at "))
    {
        assert!(label_count(&h, won.trim()) >= 1, "the result '{won}' shows");
    }
    h.get_by_label("Close battle").click();
    h.run();
    assert!(!h.state().play().battle_open());
    assert!(h.query_by_label("Battle over").is_none());

    // The next battle opens the window again, without the last one's dice.
    play_until(&mut h, 11, |s| battle(s).is_some());
    assert!(h.state().play().battle_open());
    assert!(h.query_by_label("Round 1").is_some());
    assert!(h.query_by_label("Battle over").is_none());
    for line in &rolls {
        assert_eq!(label_count(&h, line), 0, "'{line}' was the last battle's");
    }
}

/// An enemy the shot may not name (5.1: every enemy is fired on once before any twice)
/// is no button; clicked, it says why in the engine's words, and nothing changes
/// (issue 46, item 4).
#[test]
fn an_enemy_no_shot_may_name_says_why_when_clicked() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, common::LARGE);
    new_game(&mut h, 11, &[]);
    // A part under way with one shot announced, as many enemies as shooters or more:
    // the enemy already fired on may not be named again.
    play_until(&mut h, 11, |s| {
        battle(s).is_some_and(|b| {
            let (firing, enemies) = if b.firing == b.attacker {
                (&b.attackers, &b.defenders)
            } else {
                (&b.defenders, &b.attackers)
            };
            b.winner.is_none()
                && b.stage == Stage::Target
                && b.shots.len() == 1
                && firing.len() > 1
                && enemies.len() >= firing.len()
        })
    });
    let module = module();
    let mut r = rules(&module);
    let s = state(&h);
    let b = battle(&s).expect("a battle").clone();
    let legal = legal_actions(&module, &mut r, &s).expect("legal");
    let Some(&Action::Target { shooter, .. }) = legal.first() else {
        panic!("only targets are legal now: {legal:?}")
    };
    let (_, fired_on) = b.shots[0];
    assert!(
        !legal
            .iter()
            .any(|a| matches!(a, Action::Target { target, .. } if *target == fired_on)),
        "5.1: the enemy fired on is not offered again"
    );
    let text = counter(&module, &s, &b, fired_on);
    assert!(h.query_by_role_and_label(Role::Button, &text).is_none());
    let refusal = why_not(
        &module,
        &mut r,
        &s,
        &Action::Target {
            shooter,
            target: fired_on,
        },
    )
    .expect("the rules answer")
    .expect("the engine refuses the target");
    assert!(
        refusal.to_string().contains("may_target"),
        "the rules' own 5.1 handler is named: {refusal}"
    );
    h.get_by_label(&text).click();
    h.run();
    assert_eq!(h.state().play().status(), refusal.to_string());
    assert_eq!(state(&h), s, "asking changed nothing");
}

/// The banner's fields are the engine's numbers, after a march and in Recruitment.
#[test]
fn the_banner_shows_the_engines_numbers() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, common::LARGE);
    new_game(&mut h, 5, &[]);
    let module = module();
    let check = |h: &Harness<'_, EditorApp>| {
        let s = state(h);
        let turn = &module.calendar.turn(s.turn).label;
        let mut want = vec![
            format!("Turn: {turn} (turn {})", s.turn.0 + 1),
            format!("Side: {}", module.side(s.active_side(&module)).name),
            format!(
                "Segment: {}",
                module.calendar.steps[usize::from(s.step)].name
            ),
        ];
        for side in module.side_ids() {
            want.push(format!(
                "{} army maximum: {}",
                module.side(side).name,
                s.tally(&module, module.find_tally("army-maximum").unwrap(), side)
            ));
        }
        // The resource the step spends (AHD: marches, promotions, recruitment points).
        if let Some(r) = s.current_step(&module).and_then(|st| st.spends) {
            want.push(format!(
                "{}: {}",
                module.resource(r).name,
                s.step_left(&module)
            ));
        }
        for w in &want {
            assert!(h.query_by_label(w).is_some(), "the banner shows '{w}'");
        }
    };
    // A march: activate a box through the action panel, then one move.
    assert!(state(&h).moving.is_some(), "a march segment");
    let before = state(&h).step_left(&module);
    let mut r = rules(&module);
    for _ in 0..2 {
        let s = state(&h);
        let a = legal_actions(&module, &mut r, &s).expect("legal")[0].clone();
        let text = muster_core::game::describe::action(&module, &s, &a);
        h.get_all_by_label(&text).next().expect("offered").click();
        h.run();
    }
    let left = state(&h).step_left(&module);
    assert_eq!(left + 1, before, "the activation spent a march");
    assert!(h.query_by_label(&format!("Marches: {left}")).is_some());
    check(&h);
    play_until(&mut h, 5, |s| {
        procedure(&module, s) == Some(Procedure::Place) && s.step_left(&module) > 0
    });
    check(&h);
}

/// Steps frames (the harness advances frame time a quarter second a step) until the
/// game has more than `n` actions; returns how many steps it took.
fn until_acted(h: &mut Harness<'_, EditorApp>, n: usize) -> usize {
    for steps in 1..=4_000 {
        std::thread::sleep(std::time::Duration::from_millis(2));
        h.step();
        if actions(h).len() > n {
            assert_eq!(actions(h).len(), n + 1, "one computer action at a time");
            return steps;
        }
    }
    panic!("the computer never acted");
}

/// Under "AI auto" the computers play by themselves, thinking on their own thread (the
/// window never waits for them), one action at a time; with a delay, each action stays
/// on the map that long (in frame time, a quarter second a harness step) before the
/// computer is asked for the next.
#[test]
fn ai_auto_keeps_the_chosen_delay() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, common::LARGE);
    new_game(&mut h, 3, &[("Union", "Random"), ("Confederacy", "Random")]);
    // The slider rounds to its step of 0.05 s.
    assert!((h.state().play().ai_delay() - muster_editor::play::DEFAULT_DELAY).abs() < 1e-9);
    h.get_by_role_and_label(Role::Slider, "AI delay")
        .set_value_accesskit(0.0);
    h.step();
    assert_eq!(h.state().play().ai_delay(), 0.0);
    h.get_by_label("AI auto").click();
    h.step();
    assert!(h.state().play().auto());
    for _ in 0..4 {
        let n = actions(&h).len();
        until_acted(&mut h, n);
    }
    h.get_by_label("AI auto").click();
    h.step();
    assert!(!h.state().play().auto());
    // A decision under way when it was switched off still lands; then nothing.
    std::thread::sleep(std::time::Duration::from_millis(300));
    h.step();
    h.step();
    let n = actions(&h).len();
    for _ in 0..8 {
        h.step();
    }
    assert_eq!(actions(&h).len(), n, "no computer action without AI auto");

    h.get_by_role_and_label(Role::Slider, "AI delay")
        .set_value_accesskit(2.0);
    h.step();
    assert_eq!(h.state().play().ai_delay(), 2.0);
    h.get_by_label("AI auto").click();
    h.step();
    // The first is asked for at once (no computer action under AI auto yet)...
    let n = actions(&h).len();
    until_acted(&mut h, n);
    // ...the next only two seconds after it is on the map: eight steps.
    for _ in 0..7 {
        h.step();
        assert!(h.state().play().thinking().is_none(), "the computer waits");
    }
    assert_eq!(actions(&h).len(), n + 1, "the computer waits");
    let steps = until_acted(&mut h, n + 1);
    assert!(steps >= 1, "the computer acts once the delay has passed");
}

/// In a battle with several units a side, the shots announced show in the window before
/// they are fired; while a computer decides, the window says so and offers no button.
#[test]
fn announced_shots_show_and_a_computers_turn_offers_no_choice() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, common::LARGE);
    new_game(&mut h, 11, &[("Confederacy", "Random")]);
    let module = module();
    let union = module.find_side("union").expect("union side");
    let firing_own = |s: &GameState, human: bool| {
        battle(s).is_some_and(|b| {
            let own = if b.firing == b.attacker {
                &b.attackers
            } else {
                &b.defenders
            };
            b.stage == Stage::Target
                && own.len() >= 2
                && b.shots.is_empty()
                && (b.firing == union) == human
        })
    };
    // The human side is to name targets for two units or more.
    play_until(&mut h, 11, |s| firing_own(s, true));
    let s = state(&h);
    let b = battle(&s).expect("battle").clone();
    let mut r = rules(&module);
    let legal = legal_actions(&module, &mut r, &s).expect("legal");
    let Some(Action::Target { shooter, target }) = legal.first().cloned() else {
        panic!("a target is to be named: {legal:?}")
    };
    h.get_by_role_and_label(Role::Button, &counter(&module, &s, &b, target))
        .click();
    h.run();
    let after = state(&h);
    let b = battle(&after).expect("battle goes on");
    assert_eq!(b.shots, vec![(shooter, target)], "the engine took the shot");
    let shot = format!(
        "{} -> {}",
        describe::unit(&module, &after, shooter),
        describe::unit(&module, &after, target)
    );
    assert!(h.query_by_label("Shots announced").is_some());
    assert!(
        h.query_by_label(&shot).is_some(),
        "the window shows '{shot}'"
    );

    // The computer's side to name targets: no buttons, the window says who decides.
    play_until(&mut h, 11, |s| firing_own(s, false));
    let s = state(&h);
    let b = battle(&s).expect("battle").clone();
    assert!(
        h.query_by_label("A computer decides: press AI step, or tick AI auto.")
            .is_some()
    );
    for &u in b.attackers.iter().chain(&b.defenders) {
        let text = counter(&module, &s, &b, u);
        assert!(
            h.query_by_role_and_label(Role::Button, &text).is_none(),
            "'{text}' is not clickable"
        );
        assert!(h.query_by_label(&text).is_some(), "'{text}' is shown");
    }
    h.get_by_label("AI step").click();
    h.run();
    assert!(
        matches!(actions(&h).last(), Some(Action::Target { .. })),
        "the computer named a target"
    );
}
