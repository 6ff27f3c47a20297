//! The play client driven like a player would, through egui_kittest, and compared
//! with the engine and the ai crate driven directly.

use crate::common;

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{Queryable, by};
use muster_core::Module;
use muster_core::game::{Action, GameState, Place, apply, describe, legal_actions};
use muster_core::ids::{BoxId, UnitId};
use muster_editor::EditorApp;
use muster_editor::command::Mode;
use muster_editor::play::odds;

fn harness(dir: &std::path::Path) -> Harness<'static, EditorApp> {
    common::harness(dir, common::LARGE)
}

use common::{ahd_module as module, game_state as state, retype, rules};

/// Opens play mode and starts a game through the dialog.
fn new_game(
    h: &mut Harness<'_, EditorApp>,
    scenario: &str,
    seed: u64,
    players: &[(&str, &str)],
    end: Option<&str>,
) {
    h.run();
    h.get_by_label("Play").click();
    h.run();
    assert_eq!(h.state().mode(), Mode::Play);
    assert!(
        h.state().play().dialog_open(),
        "entering play opens the dialog"
    );
    h.get_by_label(scenario).click();
    h.run();
    for (side, kind) in players {
        h.get_by_role_and_label(Role::ComboBox, side).click();
        h.run();
        h.get_by_label(kind).click();
        h.run();
    }
    if let Some(end) = end {
        retype(h, "Ending date", end);
    }
    retype(h, "Seed", &seed.to_string());
    // The tests drive the computers themselves (AI step, AI auto).
    h.get_by_label("Computers play by themselves").click();
    // The tests name every target themselves, a lone one too.
    muster_editor::play::refusal::set_takes_lone_target(&h.ctx, false);
    h.run();
    h.get_by_label("Start").click();
    h.run();
    assert!(
        !h.state().play().dialog_open(),
        "{}",
        h.state().play().status()
    );
    let session = h.state().play().session().expect("the game started");
    assert_eq!(session.seed(), seed);
}

/// A box whose activation is legal now, a unit there and a destination only one of
/// that unit's legal moves reaches.
fn march_to_try(module: &Module, start: &GameState) -> (BoxId, UnitId, BoxId, Action) {
    let mut r = rules(module);
    let legal = legal_actions(module, &mut r, start).expect("legal");
    for a in &legal {
        let Action::Select { at } = a else { continue };
        let (activated, _) = apply(module, &mut r, start, a).expect("activates");
        let moves = legal_actions(module, &mut r, &activated).expect("legal");
        for m in &moves {
            let Action::Move { unit, path } = m else {
                continue;
            };
            let same: Vec<&Action> = moves
                .iter()
                .filter(|x| {
                    matches!(x, Action::Move { unit: u, path: p } if u == unit && p.to() == path.to())
                })
                .collect();
            if same.len() == 1 && path.to() != *at {
                return (*at, *unit, path.to(), m.clone());
            }
        }
    }
    panic!("no march with a single-path move at the start");
}

#[test]
fn start_a_game_activate_move_by_clicking_and_undo() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    new_game(&mut h, "1861 Campaign Game", 3, &[], None);
    let module = module();
    let start = state(&h);
    assert_eq!(start.scenario, "1861");

    // The action panel lists the engine's first legal actions.
    let mut r = rules(&module);
    let legal = legal_actions(&module, &mut r, &start).expect("legal");
    for a in legal.iter().take(3) {
        let text = describe::action(&module, &start, a);
        assert!(
            h.query_all_by_label(&text).next().is_some(),
            "the panel offers '{text}'"
        );
    }

    let (at, unit, to, mv) = march_to_try(&module, &start);
    let from_name = module.board.get(at).name.clone();
    let to_name = module.board.get(to).name.clone();

    // Click the box, then the activation it offers.
    h.get_by_role_and_label(Role::Button, &from_name).click();
    h.run();
    assert_eq!(h.state().play().selected(), Some(at));
    let activate = Action::Select { at };
    let text = describe::action(&module, &start, &activate);
    h.get_all_by_label(&text).next().expect("offered").click();
    h.run();
    let (activated, _) = apply(&module, &mut r, &start, &activate).expect("engine");
    assert_eq!(state(&h), activated);

    // Pick the unit, then click the destination on the map.
    let unit_text = describe::unit(&module, &activated, unit);
    h.get_all(by().label_contains(&unit_text).role(Role::Button))
        .next()
        .expect("the unit is listed")
        .click();
    h.run();
    // The map rings exactly where the engine lets that unit go.
    let mut ends: Vec<BoxId> = legal_actions(&module, &mut r, &activated)
        .expect("legal")
        .iter()
        .filter_map(|a| match a {
            Action::Move { unit: u, path } if *u == unit => Some(path.to()),
            Action::Take {
                unit: Some(u),
                at: Some(to),
                ..
            } if *u == unit => Some(*to),
            _ => None,
        })
        .collect();
    let mut shown = h.state_mut().play_mut().highlighted();
    ends.sort();
    shown.sort();
    assert_eq!(shown, ends);
    assert!(shown.contains(&to));
    h.get_by_role_and_label(Role::Button, &to_name).click();
    h.run();
    let (moved, _) = apply(&module, &mut r, &activated, &mv).expect("engine");
    assert_eq!(state(&h), moved, "{}", h.state().play().status());
    let session = h.state().play().session().expect("game");
    assert_eq!(session.history().actions().last(), Some(&mv));
    assert!(
        session.log().iter().any(|l| l.contains(&to_name)),
        "the log tells of the move"
    );

    // Undo: the button takes back the move, Ctrl+Z the activation.
    h.get_by_label("Undo move").click();
    h.run();
    assert_eq!(state(&h), activated);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(state(&h), start);
    assert!(
        !h.state()
            .play()
            .session()
            .expect("game")
            .history()
            .can_undo()
    );
}

#[test]
fn two_computers_play_to_the_victory_screen_with_the_engines_result() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    new_game(
        &mut h,
        "1861 Campaign Game",
        7,
        &[("Union", "AI"), ("Confederacy", "Greedy")],
        Some("09/1861"),
    );
    assert!(h.query_by_label("Game over").is_none());
    h.get_by_label("AI auto").click();
    // The computers think on their own thread: give it time between frames.
    for _ in 0..20_000 {
        std::thread::sleep(std::time::Duration::from_millis(1));
        h.step();
        if h.query_by_label("Game over").is_some() {
            break;
        }
    }
    assert!(
        h.query_by_label("Game over").is_some(),
        "the victory screen shows"
    );
    let end = state(&h);
    let outcome = end.outcome.clone().expect("the game is over");

    // The same game headless.
    let module = module();
    let mut r = rules(&module);
    let scenario = module.scenario("1861").expect("scenario").clone();
    let (mut s, _) = muster_core::game::start(
        &module,
        &mut r,
        &scenario,
        Vec::new(),
        muster_core::game::Dice::seeded(7),
    )
    .expect("start");
    muster_core::game::set_end(&module, &mut s, "09/1861").expect("end");
    let mut players = [
        muster_ai::player(muster_ai::Level::Ai, 7),
        muster_ai::player(muster_ai::Level::Greedy, 7 ^ 1),
    ];
    while s.outcome.is_none() {
        let side = muster_core::game::decider(&module, &s);
        s = muster_ai::step(players[side.index()].as_mut(), &module, &mut r, &s)
            .expect("step")
            .1;
    }
    assert_eq!(s.outcome, Some(outcome.clone()));
    assert_eq!(s, end);
    let winner = outcome
        .winner
        .map_or("Nobody wins: a draw".to_string(), |w| {
            format!("{} wins", module.side(w).name)
        });
    assert!(
        h.query_by_label(&winner).is_some(),
        "the screen names '{winner}'"
    );
    assert!(h.query_by_label(&outcome.reason).is_some());

    h.get_by_label("Back to editor").click();
    h.step();
    h.step();
    assert_eq!(h.state().mode(), Mode::Edit);
}

#[test]
fn save_then_load_gives_the_same_state_and_a_corrupt_save_changes_nothing() {
    let (tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    new_game(&mut h, "1861 Campaign Game", 5, &[], None);
    // Two moves through the panel: the first legal action each time.
    let module = module();
    let mut r = rules(&module);
    for _ in 0..2 {
        let s = state(&h);
        let a = legal_actions(&module, &mut r, &s).expect("legal")[0].clone();
        let text = describe::action(&module, &s, &a);
        h.get_all_by_label(&text).next().expect("offered").click();
        h.run();
    }
    let saved = state(&h);
    let path = tmp.path().join("game.json");
    retype(&mut h, "Game file", path.to_str().expect("utf-8 path"));
    h.get_by_label("Save game").click();
    h.run();
    assert!(path.exists(), "{}", h.state().play().status());

    // One more action, then load: back to the saved position, byte for byte.
    let s = state(&h);
    let a = legal_actions(&module, &mut r, &s).expect("legal")[0].clone();
    let text = describe::action(&module, &s, &a);
    h.get_all_by_label(&text).next().expect("offered").click();
    h.run();
    assert_ne!(state(&h), saved);
    h.get_by_label("Load game").click();
    h.run();
    assert_eq!(
        serde_json::to_vec(&state(&h)).expect("json"),
        serde_json::to_vec(&saved).expect("json"),
        "{}",
        h.state().play().status()
    );

    // A damaged save: a message, and the game under way untouched.
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, b"{\"format\": 1, \"engine\": [").expect("write");
    retype(&mut h, "Game file", bad.to_str().expect("utf-8 path"));
    h.get_by_label("Load game").click();
    h.run();
    let status = h.state().play().status().to_string();
    assert!(status.contains("damaged"), "{status}");
    assert!(h.query_all(by().label_contains("damaged")).next().is_some());
    assert_eq!(state(&h), saved);
}

#[test]
fn the_odds_window_shows_the_odds_apis_numbers() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    new_game(
        &mut h,
        "1861 Short Game",
        7,
        &[("Union", "AI"), ("Confederacy", "AI")],
        None,
    );
    // The computers play until a battle may be fought.
    let at = loop {
        let play = h.state_mut().play_mut();
        let session = play.session_mut().expect("game");
        if let Some(at) = odds::target(session, None) {
            break at;
        }
        assert!(
            session.ai_step().expect("step").is_some(),
            "no battle came up"
        );
    };
    h.run();
    let module = module();
    let mut r = rules(&module);
    let s = state(&h);
    let report = common::direct_odds(&module, &mut r, &s, at);
    assert!(
        h.query_by_label("Battle odds").is_some(),
        "the window is open"
    );
    let place = format!("Battle at {}", module.board.get(at).name);
    assert!(h.query_by_label(&place).is_some(), "{place}");
    let attacker = module
        .side(module.find_side(&report.attacker.side).expect("side"))
        .name
        .clone();
    let line = format!("{attacker} (attacker) wins {:.1}%", report.attacker.win_pct);
    assert!(
        h.query_by_label(&line).is_some(),
        "the window shows '{line}'"
    );
    for line in odds::lines(&module, &report) {
        assert!(
            h.query_by_label(&line).is_some(),
            "the window shows '{line}'"
        );
    }
}

#[test]
fn a_module_that_does_not_load_starts_no_game() {
    let (_tmp, dir) = common::ahd_copy();
    // A rule script that does not compile: the module's rules fail to load.
    std::fs::write(dir.join("rules/init.luau"), "this is not luau (").expect("write");
    let mut h = harness(&dir);
    h.run();
    h.get_by_label("Play").click();
    h.run();
    if h.state().play().dialog_open() {
        h.get_by_label("Start").click();
        h.run();
    }
    assert!(h.state().play().session().is_none());
    let status = h.state().play().status();
    assert!(status.contains("rules"), "the reason is shown: {status}");
}

#[test]
fn several_moves_to_one_box_are_offered_as_a_list() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    new_game(&mut h, "1861 Campaign Game", 3, &[], None);
    let module = module();
    let mut r = rules(&module);
    let start = state(&h);
    // A box whose activation gives more than one legal move into some box.
    let legal = legal_actions(&module, &mut r, &start).expect("legal");
    let (at, to, activated, candidates) = legal
        .iter()
        .filter_map(|a| match a {
            Action::Select { at } => Some(*at),
            _ => None,
        })
        .find_map(|at| {
            let (activated, _) =
                apply(&module, &mut r, &start, &Action::Select { at }).expect("activates");
            let moves = legal_actions(&module, &mut r, &activated).expect("legal");
            let ends = |to: BoxId| -> Vec<Action> {
                moves
                    .iter()
                    .filter(|m| matches!(m, Action::Move { path, .. } if path.to() == to))
                    .cloned()
                    .collect()
            };
            moves.iter().find_map(|m| match m {
                Action::Move { path, .. } if path.to() != at && ends(path.to()).len() > 1 => {
                    Some((at, path.to(), activated.clone(), ends(path.to())))
                }
                _ => None,
            })
        })
        .expect("some box has several moves into one destination");

    h.get_by_role_and_label(Role::Button, &module.board.get(at).name)
        .click();
    h.run();
    let text = describe::action(&module, &start, &Action::Select { at });
    h.get_all_by_label(&text).next().expect("offered").click();
    h.run();
    assert_eq!(state(&h), activated);
    // No unit chosen: the destination offers every move that ends there.
    h.get_by_role_and_label(Role::Button, &module.board.get(to).name)
        .click();
    h.run();
    assert_eq!(h.state().play().pick(), candidates.as_slice());
    assert_eq!(state(&h), activated, "nothing moves before the pick");
    assert!(
        h.query_by_label("Several moves lead there; pick one:")
            .is_some()
    );
    let chosen = candidates.last().expect("a candidate").clone();
    let text = describe::action(&module, &activated, &chosen);
    h.get_all_by_label(&text).next().expect("listed").click();
    h.run();
    let (moved, _) = apply(&module, &mut r, &activated, &chosen).expect("engine");
    assert_eq!(state(&h), moved);
    assert!(h.state().play().pick().is_empty());
}

#[test]
fn a_bad_ending_date_or_seed_keeps_the_dialog_open_with_the_reason() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    h.get_by_label("Play").click();
    h.run();
    retype(&mut h, "Seed", "not a number");
    h.get_by_label("Start").click();
    h.run();
    assert!(h.state().play().dialog_open());
    assert!(
        h.query_all(by().label_contains("is not a whole number"))
            .next()
            .is_some()
    );
    retype(&mut h, "Seed", "9");
    retype(&mut h, "Ending date", "13/1999");
    h.get_by_label("Start").click();
    h.run();
    assert!(h.state().play().dialog_open());
    assert!(h.state().play().session().is_none());
    // The engine's own reason for refusing the date.
    let module = module();
    let mut r = rules(&module);
    let scenario = module.scenario("1861").expect("scenario").clone();
    let (mut s, _) = muster_core::game::start(
        &module,
        &mut r,
        &scenario,
        Vec::new(),
        muster_core::game::Dice::seeded(9),
    )
    .expect("start");
    let why = muster_core::game::set_end(&module, &mut s, "13/1999").expect_err("refused");
    assert!(
        h.query_all(by().label_contains(&why)).next().is_some(),
        "the dialog shows '{why}'"
    );
    // Cancel leaves play mode without a game.
    h.get_by_label("Cancel").click();
    h.run();
    assert!(!h.state().play().dialog_open());
    assert!(h.state().play().session().is_none());
}

/// Two humans play a short game through the action panel alone: each action (chosen
/// by the AI player, so battles with retreats and reinforcements, promotions and
/// recruitment all come up) is found with the filter and clicked, until the victory
/// screen.
#[test]
fn the_action_panel_alone_plays_a_whole_game() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    // A seed whose game, with the `ai` choosing for both sides, plays every kind of
    // action (a change to the ai's play may call for another one).
    new_game(&mut h, "1861 Campaign Game", 1, &[], Some("10/1861"));
    let module = module();
    let mut r = rules(&module);
    let mut chooser = muster_ai::player(muster_ai::Level::Ai, 1);
    let mut kinds = std::collections::BTreeSet::new();
    for _ in 0..2_000 {
        let s = state(&h);
        if s.outcome.is_some() {
            break;
        }
        let legal = legal_actions(&module, &mut r, &s).expect("legal");
        let mut action = muster_ai::choose(&mut chooser, &module, &mut r, &s).expect("choice");
        if !legal.contains(&action) {
            chooser.forget();
            action = muster_ai::choose(&mut chooser, &module, &mut r, &s).expect("choice");
        }
        if !legal.contains(&action) {
            action = legal[0].clone();
        }
        kinds.insert(muster_editor::play::panel::kind(&action));
        let text = describe::action(&module, &s, &action);
        retype(&mut h, "Filter", &text);
        h.get_all(by().label(&text).role(Role::Button))
            .next()
            .unwrap_or_else(|| panic!("the panel offers '{text}'"))
            .click();
        h.run();
        let (next, _) = apply(&module, &mut r, &s, &action).expect("engine");
        assert_eq!(state(&h), next, "after '{text}'");
    }
    assert!(state(&h).outcome.is_some(), "the game ended");
    assert!(h.query_by_label("Game over").is_some());
    for k in [
        "Activate",
        "Move",
        "End march",
        "Fight",
        "Target",
        "Pass",
        "Retreat",
        "Reinforce",
        "Promote",
        "Recruit",
        "End segment",
    ] {
        assert!(kinds.contains(k), "a '{k}' was played; played: {kinds:?}");
    }
}

/// The checklist gives each optional rule's balance note from the module (1.2 marks
/// each rule pro-Union, pro-Confederate or neutral), and a ticked rule is in the game.
#[test]
fn the_optional_rules_checklist_shows_balance_notes_and_ticked_rules_apply() {
    let module = module();
    let mut h = harness(&common::ahd());
    h.run();
    h.get_by_label("Play").click();
    h.run();
    for side in module.side_ids() {
        let note = format!("favours the {}", module.side(side).name);
        let expected = module
            .options
            .iter()
            .filter(|o| o.favours == Some(side))
            .count();
        assert!(expected > 0, "AHD has rules favouring the {note}");
        assert_eq!(h.query_all_by_label(&note).count(), expected, "{note}");
    }
    let rail = module
        .options
        .iter()
        .find(|o| o.rule == "4.9")
        .expect("4.9 is in the catalogue");
    h.get_by_label(&format!("{} {}", rail.rule, rail.title))
        .click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    let session = h.state().play().session().expect("the game started");
    assert_eq!(session.settings().options, std::slice::from_ref(&rail.id));
}

/// 4.6: a unit in a port may move by sea to another port. Its sea destinations are
/// ringed with its other moves, and clicking one makes the sea move.
#[test]
fn a_sea_move_is_made_by_clicking_the_ringed_port() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    new_game(&mut h, "1861 Campaign Game", 5, &[], None);
    let module = module();
    let start = state(&h);
    let mut r = rules(&module);
    let legal = legal_actions(&module, &mut r, &start).expect("legal");
    // A sea move to a port the unit cannot also reach by land.
    let (unit, to, sea) = legal
        .iter()
        .find_map(|a| {
            match a {
            Action::Take { offer, unit: Some(unit), at: Some(to), .. }
                if offer == "sea-move" && !legal.iter().any(|b| {
                    matches!(b, Action::Move { unit: u, path } if u == unit && path.to() == *to)
                }) =>
            {
                Some((*unit, *to, a.clone()))
            }
            _ => None,
        }
        })
        .expect("the Union has a sea move on its first turn");
    let Place::Board(at) = start.unit(unit).place else {
        panic!("a unit that moves by sea is on the board")
    };
    h.get_by_role_and_label(Role::Button, &module.board.get(at).name)
        .click();
    h.run();
    let unit_text = describe::unit(&module, &start, unit);
    h.get_all(by().label_contains(&unit_text).role(Role::Button))
        .next()
        .expect("the unit is listed with its moves")
        .click();
    h.run();
    assert!(
        h.state_mut().play_mut().highlighted().contains(&to),
        "the port is ringed"
    );
    h.get_by_role_and_label(Role::Button, &module.board.get(to).name)
        .click();
    h.run();
    let session = h.state().play().session().expect("game");
    assert_eq!(
        session.history().actions().last(),
        Some(&sea),
        "{}",
        h.state().play().status()
    );
    let (moved, _) = apply(&module, &mut r, &start, &sea).expect("engine");
    assert_eq!(state(&h), moved);
}
