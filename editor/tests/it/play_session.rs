//! The play session without any UI, checked against the engine and the ai crate
//! driven directly.

use crate::common;

use std::sync::Arc;

use muster_ai::Level;
use muster_core::game::{Action, Dice, apply, legal_actions, set_end, start};
use muster_core::{Module, load_module};
use muster_editor::play::odds;
use muster_editor::play::{NewGame, PlayerKind, Session, SessionError};

fn ahd() -> Arc<Module> {
    Arc::new(load_module(common::ahd()).expect("AHD loads"))
}

use common::rules;

fn game(scenario: &str, players: [PlayerKind; 2], seed: u64) -> NewGame {
    NewGame {
        scenario: scenario.into(),
        options: Vec::new(),
        end: None,
        players: players.to_vec(),
        seats: Vec::new(),
        seed,
    }
}

const HUMANS: [PlayerKind; 2] = [PlayerKind::Human, PlayerKind::Human];

#[test]
fn apply_matches_the_engine_and_a_refused_action_changes_nothing() {
    let module = ahd();
    let mut s = Session::new(module.clone(), &game("1861", HUMANS, 3)).expect("starts");
    let mut r = rules(&module);
    let first = s.legal().expect("legal").to_vec();
    assert!(!first.is_empty());
    assert_eq!(
        first,
        legal_actions(&module, &mut r, s.state()).expect("engine legal")
    );
    let before = s.state().clone();
    let action = first[0].clone();
    s.apply(action.clone()).expect("legal action applies");
    let (expected, _) = apply(&module, &mut r, &before, &action).expect("engine applies");
    assert_eq!(s.state(), &expected);
    assert!(s.log().last().is_some());

    // An action that is not legal now: an error, and the game as it was.
    let now = s.state().clone();
    let actions = s.history().actions().len();
    let err = s.apply(Action::Place {
        kind: muster_core::ids::UnitTypeId(0),
        at: muster_core::ids::BoxId(0),
    });
    assert!(err.is_err());
    assert_eq!(s.state(), &now);
    assert_eq!(s.history().actions().len(), actions);
}

#[test]
fn undo_restores_the_prior_state() {
    let module = ahd();
    let mut s = Session::new(module, &game("1861", HUMANS, 3)).expect("starts");
    let start = s.state().clone();
    let activate = s
        .legal()
        .expect("legal")
        .iter()
        .find(|a| matches!(a, Action::Select { .. }))
        .cloned()
        .expect("an activation is legal at the start");
    s.apply(activate).expect("applies");
    let activated = s.state().clone();
    let mv = s
        .legal()
        .expect("legal")
        .iter()
        .find(|a| matches!(a, Action::Move { .. }))
        .cloned()
        .expect("a move is legal");
    s.apply(mv).expect("applies");
    assert!(s.history().can_undo());
    s.undo().expect("undo the move");
    assert_eq!(s.state(), &activated);
    s.undo().expect("undo the activation");
    assert_eq!(s.state(), &start);
    assert!(s.undo().is_err(), "nothing left to undo");
    assert_eq!(s.state(), &start);
}

/// The same game played headless with `muster_ai::step`, as `muster play` would.
fn headless(module: &Module, g: &NewGame, levels: [Level; 2]) -> muster_core::game::GameState {
    let mut r = rules(module);
    let scenario = module.scenario(&g.scenario).expect("scenario").clone();
    let (mut state, _) =
        start(module, &mut r, &scenario, Vec::new(), Dice::seeded(g.seed)).expect("engine starts");
    if let Some(end) = &g.end {
        set_end(module, &mut state, end).expect("end");
    }
    let mut players: Vec<_> = levels
        .iter()
        .enumerate()
        .map(|(i, l)| muster_ai::player(*l, muster_ai::side_seed(g.seed, i)))
        .collect();
    for _ in 0..20_000 {
        if state.outcome.is_some() {
            return state;
        }
        let side = muster_core::game::decider(module, &state);
        let (_, next, _) =
            muster_ai::step(players[side.index()].as_mut(), module, &mut r, &state).expect("step");
        state = next;
    }
    panic!("the headless game did not end");
}

#[test]
fn computers_play_to_the_engines_own_result() {
    let module = ahd();
    for (levels, seed) in [
        ([Level::Ai, Level::Ai], 7),
        ([Level::Greedy, Level::Random], 11),
    ] {
        let g = game(
            "1861-short",
            [
                PlayerKind::Computer(levels[0]),
                PlayerKind::Computer(levels[1]),
            ],
            seed,
        );
        let mut s = Session::new(module.clone(), &g).expect("starts");
        let mut steps = 0;
        while s.ai_step().expect("ai step").is_some() {
            steps += 1;
            assert!(steps < 20_000, "the game did not end");
        }
        let expected = headless(&module, &g, levels);
        assert!(s.outcome().is_some());
        assert_eq!(s.outcome(), expected.outcome.as_ref());
        assert_eq!(s.state(), &expected);
    }
}

/// Issue 16 item 2 in the app: its `strong` player searches on every core, each
/// thread on rules of its own, and plays the same game as the single-threaded one of
/// `muster play` (its first player turn, 1861, as Union against `ai`).
#[test]
fn the_apps_strong_player_plays_as_the_clis() {
    let module = ahd();
    let levels = [Level::strong(), Level::Ai];
    let mut g = game(
        "1861",
        [
            PlayerKind::Computer(levels[0]),
            PlayerKind::Computer(levels[1]),
        ],
        3,
    );
    let first = module.scenario("1861").expect("1861").start;
    g.end = Some(module.calendar.turn(first).label.clone());
    let mut s = Session::new(module.clone(), &g).expect("starts");
    let mut steps = 0;
    while s.ai_step().expect("ai step").is_some() {
        steps += 1;
        assert!(steps < 5_000, "the game did not end");
    }
    assert_eq!(s.state(), &headless(&module, &g, levels));
}

#[test]
fn a_bad_ending_date_is_refused_with_the_engines_reason() {
    let module = ahd();
    let mut g = game("1861", HUMANS, 1);
    g.end = Some("13/1999".into());
    let err = Session::new(module.clone(), &g).err().expect("refused");
    assert!(matches!(err, SessionError::End(_)), "{err}");
    g.end = Some("08/1861".into());
    let s = Session::new(module, &g).expect("a real turn is accepted");
    assert_eq!(s.state().end.0, 1);
}

#[test]
fn save_and_load_give_the_same_state_and_a_corrupt_save_is_refused() {
    let module = ahd();
    let tmp = tempfile::tempdir().expect("tmp");
    let mut g = game("1861", HUMANS, 5);
    g.end = Some("10/1861".into());
    let mut s = Session::new(module.clone(), &g).expect("starts");
    for _ in 0..6 {
        let a = s.legal().expect("legal")[0].clone();
        s.apply(a).expect("applies");
    }
    let path = tmp.path().join("game.json");
    s.save(&path).expect("saves");
    let loaded = Session::load(module.clone(), &path, HUMANS.to_vec()).expect("loads");
    assert_eq!(
        serde_json::to_vec(loaded.state()).expect("json"),
        serde_json::to_vec(s.state()).expect("json")
    );
    assert_eq!(loaded.history().actions(), s.history().actions());
    assert_eq!(loaded.state().end, s.state().end);

    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "{ \"format\": 1, \"engine\": ").expect("write");
    let err = Session::load(module, &bad, HUMANS.to_vec())
        .err()
        .expect("refused");
    assert!(err.to_string().contains("damaged"), "{err}");
}

#[test]
fn odds_match_the_ai_crates_api() {
    let module = ahd();
    let g = game(
        "1861-short",
        [
            PlayerKind::Computer(Level::Ai),
            PlayerKind::Computer(Level::Ai),
        ],
        7,
    );
    let mut s = Session::new(module.clone(), &g).expect("starts");
    let at = loop {
        if let Some(at) = odds::target(&mut s, None) {
            break at;
        }
        assert!(s.ai_step().expect("step").is_some(), "no battle came up");
    };
    let mut r = rules(&module);
    let state = s.state().clone();
    let report = odds::battle_odds(&module, &mut r, &state, at, &odds::config()).expect("odds");
    // The same battle set up by hand with the ai crate.
    let direct = common::direct_odds(&module, &mut r, &state, at);
    assert_eq!(report, direct);
    assert!(report.attacker.win_pct + report.defender.win_pct > 0.0);
}

#[test]
fn the_map_overlay_shows_every_unit_on_the_board_and_control() {
    let module = ahd();
    let doc = muster_editor::Document::open(common::ahd()).expect("opens");
    let s = Session::new(module.clone(), &game("1861", HUMANS, 3)).expect("starts");
    let overlay = muster_editor::overlay::Overlay::from_state(&module, s.state(), doc.map());
    let on_board = s
        .state()
        .units
        .iter()
        .filter(|u| matches!(u.place, muster_core::game::Place::Board(_)))
        .count();
    let counted: usize = overlay
        .counters
        .iter()
        .flatten()
        .map(|c| usize::from(c.count))
        .sum();
    assert_eq!(counted, on_board);
    let richmond = doc.map().find_box("Richmond").expect("box");
    let id = module
        .board
        .box_ids()
        .find(|&b| module.board.get(b).name == "Richmond")
        .expect("engine box");
    assert_eq!(
        overlay.control[richmond],
        s.state().controller(id).map(|c| c.index())
    );
    assert!(overlay.control[richmond].is_some());
}

/// Issue 18, item 4: the session knows which log lines the rules wrote (the log panel
/// shows them in `log::RULE_COLOR`): AHD's first-turn marches and march rolls, never the
/// engine's lines or the actions.
#[test]
fn the_log_marks_the_rules_own_lines() {
    let module = ahd();
    let computers = [
        PlayerKind::Computer(Level::Random),
        PlayerKind::Computer(Level::Random),
    ];
    let mut s = Session::new(module, &game("1861", computers, 5)).expect("starts");
    for _ in 0..60 {
        s.ai_step().expect("a computer acts");
    }
    let log = s.log();
    let ruled: Vec<&str> = s.rule_lines().iter().map(|&i| log[i].trim()).collect();
    assert!(ruled.contains(&"first turn: 2 marches (4.1)"), "{ruled:?}");
    assert!(
        ruled
            .iter()
            .any(|l| l.starts_with("rolled ") && l.contains("for marches")),
        "a march roll later on: {ruled:?}"
    );
    for (i, line) in log.iter().enumerate() {
        if line.starts_with('[') || line.contains(" or less: rolls ") {
            assert!(!s.rule_lines().contains(&i), "not a rule line: {line}");
        }
    }
    assert!(
        s.rule_lines().windows(2).all(|w| w[0] < w[1]),
        "ascending, for the panel's binary search"
    );
}
