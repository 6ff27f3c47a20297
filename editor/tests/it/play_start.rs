//! The play client leads a new player (issue 15 item 3): the start screen, a game
//! against the computer that plays by itself on its own thread, what the computer did
//! shown after its turn, "move all here", and the action filter that never hides the
//! only legal action (issue 15 item 5).

use crate::common;

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_core::game::{Action, Place, decider, describe};
use muster_editor::command::Mode;
use muster_editor::play::PlayerKind;
use muster_editor::{Document, EditorApp};

use common::{ahd_module as module, game_state as state, retype};

fn at_start() -> (tempfile::TempDir, Harness<'static, EditorApp>) {
    let (tmp, dir) = common::ahd_copy();
    let app = EditorApp::new(Document::open(&dir).expect("module opens")).at_start();
    let mut h = common::app_harness(app, common::LARGE);
    h.run();
    (tmp, h)
}

/// The start screen's "New game against the computer", seed `seed`.
fn vs_computer(h: &mut Harness<'_, EditorApp>, seed: u64) {
    assert_eq!(h.state().mode(), Mode::Start);
    h.get_by_label("New game against the computer").click();
    h.run();
    assert_eq!(h.state().mode(), Mode::Play);
    assert!(h.state().play().dialog_open());
    retype(h, "Seed", &seed.to_string());
    h.get_by_label("Start").click();
    h.run();
    let session = h.state().play().session().expect("a game");
    assert_eq!(
        session.players(),
        &[
            PlayerKind::Human,
            PlayerKind::Computer(muster_ai::Level::Ai)
        ]
    );
    assert!(h.state().play().auto(), "the computer plays by itself");
}

/// Frames (with a little real time for the computer's thread) until `done` holds.
fn frames_until(h: &mut Harness<'_, EditorApp>, done: impl Fn(&EditorApp) -> bool) {
    for _ in 0..20_000 {
        if done(h.state()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
        h.step();
    }
    panic!("gave up waiting");
}

#[test]
fn the_start_screen_offers_the_ways_in_and_every_level() {
    let (_tmp, mut h) = at_start();
    for label in [
        "New game against the computer",
        "New game, players of your choice",
        "Open a saved game…",
        "Edit the module",
    ] {
        assert!(h.query_by_label(label).is_some(), "'{label}' is offered");
    }
    h.get_by_label("New game against the computer").click();
    h.run();
    // Issue 16 item 3: the dialog offers every level, `strong` included.
    h.get_by_role_and_label(Role::ComboBox, "Confederacy")
        .click();
    h.run();
    for level in ["Human", "Random", "Greedy", "AI", "Strong"] {
        assert!(h.query_by_label(level).is_some(), "'{level}' is offered");
    }
    // The deeper opening is a command-line setting only: the default is deep already.
    assert!(h.query_by_label("Strong, deeper opening").is_none());
    h.get_by_label("Strong").click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    let session = h.state().play().session().expect("a game");
    assert_eq!(
        session.players()[1],
        PlayerKind::Computer(muster_ai::Level::Strong {
            budget: muster_ai::search::DEFAULT_BUDGET,
            opening: 0,
        })
    );
    h.get_by_label("Home").click();
    h.run();
    h.get_by_label("Edit the module").click();
    h.run();
    assert_eq!(h.state().mode(), Mode::Edit);
}

/// The human (Union) ends its player turn with the engine's own actions; the computer
/// then plays its whole turn by itself (off the UI thread) and the app shows what it
/// did: each of its marches is a unit move of the game's history, its battles are the
/// `Fight`s it took, and the summary window and the evaluation appear once the human is
/// to act again.
#[test]
fn against_the_computer_its_turn_is_played_and_shown() {
    let (_tmp, mut h) = at_start();
    vs_computer(&mut h, 5);
    {
        // 10.0's race is always in view: the army maxima's leader and margin, as the
        // engine's tallies give them.
        let module = module();
        let s = state(&h);
        let t = module.tally_ids().next().expect("AHD's army maximum");
        let u = s.tally(&module, t, module.find_side("union").expect("union"));
        let c = s.tally(&module, t, module.find_side("confederate").expect("csa"));
        assert!(u > c, "the Union leads at the start of 1861 ({u} to {c})");
        let field = format!("army maximum: Union leads by {}", u - c);
        assert!(
            h.query_by_label(&field).is_some(),
            "the banner shows '{field}'"
        );
        // And the rules' own count of each condition (`victory_progress`).
        for field in [
            "Union: the seven key Confederate cities held (10.0): 0 of 7".to_string(),
            format!(
                "Confederacy: Army Maximum Size above the Union's (10.0): {c} of {}",
                u + 1
            ),
            "Confederacy: Washington captured (10.0): 0 of 1".to_string(),
        ] {
            assert!(
                h.query_by_label(&field).is_some(),
                "the banner shows '{field}'"
            );
        }
    }
    h.get_by_label("Evaluation").click();
    h.run();
    let module = module();
    let union = module.find_side("union").expect("union");
    let human_actions = {
        let s = h.state().play().session().expect("game");
        s.history().actions().len()
    };
    // The Union's player turn: end every march and segment (Living Rules 4.0: a player
    // may decline to activate), until the computer acts.
    for _ in 0..50 {
        let s = state(&h);
        if decider(&module, &s) != union {
            break;
        }
        let legal = {
            let session = h.state_mut().play_mut().session_mut().expect("game");
            session.legal().expect("legal").to_vec()
        };
        let end = legal
            .iter()
            .find(|a| matches!(a, Action::Release | Action::EndStep | Action::Pass))
            .cloned()
            .unwrap_or_else(|| legal[0].clone());
        let text = describe::action(&module, &s, &end);
        let button = match end {
            Action::Release => Some("End march"),
            Action::EndStep => Some("End segment"),
            _ => None,
        };
        match button {
            Some(b) => h.get_by_label(b).click(),
            None => h.get_all_by_label(&text).next().expect("offered").click(),
        }
        // Not `run`: once the computer thinks, the window keeps repainting.
        h.step();
        h.step();
    }
    assert!(h.state().play().session().expect("game").computer_to_act());
    // The computer plays its turn by itself, one action at a time.
    frames_until(&mut h, |app| {
        app.play()
            .session()
            .is_some_and(|s| !s.computer_to_act() || s.outcome().is_some())
            && app.play().thinking().is_none()
    });
    h.step();
    h.step();
    let play = h.state().play();
    let session = play.session().expect("game");
    let turn = play.computer_turn();
    assert!(turn.finished, "the computer's turn is over");
    let confederacy = module.find_side("confederate").expect("confederacy");
    assert_eq!(turn.side, Some(confederacy));
    let computer_actions = &session.history().actions()[human_actions..];
    let moves = computer_actions
        .iter()
        .filter(|a| matches!(a, Action::Move { .. }))
        .count();
    let fights = computer_actions
        .iter()
        .filter(|a| matches!(a, Action::Fight { .. }))
        .count();
    assert!(turn.lines.len() <= computer_actions.len());
    assert!(!turn.lines.is_empty(), "the computer acted");
    assert!(turn.marches.len() <= moves, "each arrow is a move it made");
    assert_eq!(turn.battles.len(), fights, "each battle is one it began");
    assert!(turn.evaluation.is_some(), "the evaluation was asked for");
    assert!(
        h.query_by_label("Confederacy's turn (computer)").is_some(),
        "the summary window shows"
    );
    let first = turn.summary(&module).remove(0);
    assert!(h.query_by_label(&first).is_some(), "'{first}' is shown");
    h.get_by_label("Close summary").click();
    h.step();
    h.step();
    assert!(h.query_by_label("Confederacy's turn (computer)").is_none());
}

/// "Move all here" chains the engine's legal moves: every unit of the box that may go
/// to the clicked box goes there, each by a legal move (5.1: a march moves the units of
/// the activated box).
#[test]
fn move_all_here_moves_every_unit_that_may_go() {
    let (_tmp, mut h) = at_start();
    h.get_by_label("New game, players of your choice").click();
    h.run();
    retype(&mut h, "Seed", "3");
    h.get_by_label("Start").click();
    h.run();
    let module = module();
    let washington = module.board.find("Washington").expect("Washington");
    h.get_by_label("Washington").click();
    h.run();
    h.get_all_by_label("march: activate Washington")
        .next()
        .expect("offered")
        .click();
    h.run();
    let s = state(&h);
    let here: Vec<_> = s.units_at(washington).collect();
    assert!(here.len() > 1);
    // A destination several of Washington's units may reach.
    let legal = {
        let session = h.state_mut().play_mut().session_mut().expect("game");
        session.legal().expect("legal").to_vec()
    };
    let to = legal
        .iter()
        .filter_map(|a| match a {
            Action::Move { path, .. } if path.to() != washington => Some(path.to()),
            _ => None,
        })
        .find(|to| {
            let units: std::collections::BTreeSet<_> = legal
                .iter()
                .filter_map(|a| match a {
                    Action::Move { unit, path } if path.to() == *to => Some(*unit),
                    _ => None,
                })
                .collect();
            units.len() > 1
        })
        .expect("a box two units may reach");
    let movers: std::collections::BTreeSet<_> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Move { unit, path } if path.to() == to => Some(*unit),
            _ => None,
        })
        .collect();
    let name = module.board.get(to).name.clone();
    h.get_by_label(&name).click();
    h.run();
    h.get_by_label(&format!("Move all here ({} units)", movers.len()))
        .click();
    h.run();
    let after = state(&h);
    for u in &movers {
        assert_eq!(
            after.unit(*u).place,
            Place::Board(to),
            "every unit that could went"
        );
    }
    let session = h.state_mut().play_mut().session_mut().expect("game");
    let legal = session.legal().expect("legal").to_vec();
    assert!(
        !legal.iter().any(|a| matches!(a, Action::Move { unit, path }
            if path.to() == to && after.unit(*unit).place == Place::Board(washington))),
        "no unit left in Washington may still go there"
    );
}

/// Issue 15 item 5: a filter matching nothing never hides the legal actions, and a
/// new player turn starts unfiltered.
#[test]
fn the_filter_never_hides_the_only_legal_actions() {
    let (_tmp, mut h) = at_start();
    h.get_by_label("New game, players of your choice").click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    retype(&mut h, "Filter", "no action says this");
    h.run();
    assert!(
        h.query_by_label("No action matches the filter; all are shown.")
            .is_some()
    );
    let module = module();
    let s = state(&h);
    let legal = {
        let session = h.state_mut().play_mut().session_mut().expect("game");
        session.legal().expect("legal").to_vec()
    };
    let text = describe::action(&module, &s, &legal[0]);
    assert!(
        h.query_all_by_label(&text).next().is_some(),
        "'{text}' is offered"
    );
    // End the Union's player turn: the Confederacy's starts with no filter.
    let union = module.find_side("union").expect("union");
    for _ in 0..50 {
        let s = state(&h);
        if decider(&module, &s) != union {
            break;
        }
        let session = h.state_mut().play_mut().session_mut().expect("game");
        let legal = session.legal().expect("legal").to_vec();
        let end = legal
            .iter()
            .find(|a| matches!(a, Action::Release | Action::EndStep | Action::Pass))
            .cloned()
            .unwrap_or_else(|| legal[0].clone());
        session.apply(end).expect("legal");
        h.run();
    }
    h.run();
    assert!(
        h.query_by_label("No action matches the filter; all are shown.")
            .is_none()
    );
    let filter = h.get_by_label("Filter");
    assert_eq!(filter.value().unwrap_or_default(), "");
}

/// During Movement, the pointer over a ringed box the enemy holds shows the odds of the
/// selected units attacking it: the ai crate's simulator on the same battle in words
/// (`muster odds`' form), 2,000 battles, seed 1.
#[test]
fn hovering_an_enemy_destination_shows_the_odds() {
    use muster_ai::odds::{Setup, Spec, simulate};
    let (_tmp, mut h) = at_start();
    h.get_by_label("New game, players of your choice").click();
    h.run();
    retype(&mut h, "Seed", "3");
    h.get_by_label("Start").click();
    h.run();
    let module = module();
    let washington = module.board.find("Washington").expect("Washington");
    let junction = module
        .board
        .find("Manassas Junction")
        .expect("the junction");
    h.get_by_label("Washington").click();
    h.run();
    h.get_all_by_label("march: activate Washington")
        .next()
        .expect("offered")
        .click();
    h.run();
    let s = state(&h);
    let enemy: Vec<_> = s.units_at(junction).collect();
    assert!(
        !enemy.is_empty(),
        "the Confederacy holds Manassas Junction in 1861"
    );
    let legal = {
        let session = h.state_mut().play_mut().session_mut().expect("game");
        session.legal().expect("legal").to_vec()
    };
    let mut movers: Vec<_> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Move { unit, path }
                if path.to() == junction && s.unit(*unit).place == Place::Board(washington) =>
            {
                Some(*unit)
            }
            _ => None,
        })
        .collect();
    movers.sort();
    movers.dedup();
    assert!(
        !movers.is_empty(),
        "Washington's units may go to the junction"
    );
    let words = |units: &[muster_core::ids::UnitId]| {
        let mut counts: std::collections::BTreeMap<usize, u32> = Default::default();
        for u in units {
            *counts.entry(s.unit(*u).kind.index()).or_default() += 1;
        }
        counts
            .iter()
            .map(|(k, n)| format!("{n} {}", module.units.types[*k].id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let spec = Spec {
        attackers: words(&movers),
        defenders: words(&enemy),
        attacker_side: Some("union".into()),
        at: Some("Manassas Junction".into()),
        ..Spec::default()
    };
    let mut r = common::rules(&module);
    let mut setup = Setup::from_spec(&module, &spec).expect("setup");
    setup.settle(&module, &mut r).expect("settle");
    let report = simulate(
        &module,
        &mut r,
        &setup,
        &muster_editor::play::odds::config(),
        None,
    )
    .expect("odds");
    let expected = format!(
        "{} (Union) into Manassas Junction ({}): attacker wins {:.0}%, defender {:.0}%",
        spec.attackers, spec.defenders, report.attacker.win_pct, report.defender.win_pct
    );
    let target = h.get_by_label("Manassas Junction").rect().center();
    h.hover_at(target);
    h.run();
    assert!(
        h.query_by_label(&expected).is_some(),
        "the pointer shows '{expected}'"
    );
}
