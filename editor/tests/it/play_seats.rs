//! Seats in the app (issue 43 item 4): the start screen asks who plays each seat of a
//! module with hidden information, the screen shows only the human seat's view, a
//! hand-over screen hides everything between two human seats, and a sealed choice is
//! made behind it. The leak test reads every text of the UI tree for the Confederate
//! seat of a fog-of-war game (`mods/examples/fog-of-war`).

use crate::common;

use std::path::PathBuf;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable, by};
use muster_core::format::Sight;
use muster_core::game::sight::sights;
use muster_core::game::{Action, GameState, Place, describe};
use muster_core::ids::{SeatId, UnitId};
use muster_editor::command::UiCommand;
use muster_editor::play::{PlayCommand, PlayerKind, handover};
use muster_editor::{Document, EditorApp};

use common::{copy_dir, retype};

/// A copy of an example mod and of AHD beside it, as in the repository
/// (`mods/examples/NAME` extends `../../ahd`): the temporary folder and the mod's.
fn example(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = muster_test_support::root().join("mods");
    copy_dir(&root.join("ahd"), &tmp.path().join("mods/ahd"));
    let dir = tmp.path().join("mods/examples").join(name);
    copy_dir(&root.join("examples").join(name), &dir);
    (tmp, dir)
}

/// The start screen of the app on the module in `dir`.
fn at_start(dir: &std::path::Path) -> Harness<'static, EditorApp> {
    let app = EditorApp::new(Document::open(dir).expect("module opens")).at_start();
    let mut h = common::app_harness(app, common::LARGE);
    h.run();
    h
}

/// Opens the new-game dialog from the start screen and sets its seed.
fn new_game_dialog(h: &mut Harness<'_, EditorApp>, seed: u64) {
    h.get_by_label("New game, players of your choice").click();
    h.run();
    assert!(h.state().play().dialog_open());
    retype(h, "Seed", &seed.to_string());
}

fn seat(h: &Harness<'_, EditorApp>, id: &str) -> SeatId {
    let session = h.state().play().session().expect("a game");
    session.module().find_seat(id).expect("seat")
}

/// Every text the UI tree holds: each node's label, value and description.
fn texts(h: &Harness<'_, EditorApp>) -> Vec<String> {
    h.query_all(by().include_labels())
        .flat_map(|n| {
            let n = n.accesskit_node();
            [n.label(), n.value(), n.description()]
        })
        .flatten()
        .collect()
}

/// The hand-over screen is up for `name`, and nothing of a game is drawn behind it.
fn assert_hand_over(h: &mut Harness<'_, EditorApp>, name: &str) {
    let message = format!("Pass to the {name} player");
    assert!(h.query_by_label(&message).is_some(), "'{message}' shown");
    for hidden in ["Washington", "Richmond", "Game", "Undo move"] {
        assert!(
            h.query_by_label(hidden).is_none(),
            "'{hidden}' is hidden behind the hand-over screen"
        );
    }
    let all = texts(h);
    assert!(
        !all.iter()
            .any(|t| t.contains("[Union]") || t.contains(") at ")),
        "no log line or counter behind the hand-over screen: {all:?}"
    );
}

/// The pieces of `enemy` on the board that `seat` does not see fully now, by the
/// engine's own account (`sights`), with the module and the state.
fn hidden_from(
    h: &Harness<'_, EditorApp>,
    seat: SeatId,
    enemy: &str,
) -> (std::sync::Arc<muster_core::Module>, GameState, Vec<UnitId>) {
    let session = h.state().play().session().expect("a game");
    let module = session.module().clone();
    let state = session.state().clone();
    let mut rules = common::rules(&module);
    let (sight, errors) = sights(&module, &mut rules, &state, seat);
    assert!(errors.is_empty(), "{errors:?}");
    let side = module.find_side(enemy).expect("side");
    let hidden = state
        .units
        .iter()
        .enumerate()
        .filter(|(i, u)| {
            u.side == side && matches!(u.place, Place::Board(_)) && sight[*i] != Sight::Full
        })
        .filter_map(|(i, _)| UnitId::from_index(i))
        .collect();
    (module, state, hidden)
}

/// The leak test: no text of the UI tree, and no line of the log the screen shows (the
/// panel draws only the rows in view), names a piece of `hidden`: by its number, or by
/// its type in its box as the map's counters are named.
fn assert_nothing_hidden_named(
    h: &Harness<'_, EditorApp>,
    module: &muster_core::Module,
    state: &GameState,
    hidden: &[UnitId],
) {
    let mut forbidden: Vec<String> = Vec::new();
    for &u in hidden {
        let side = &module.side(state.unit(u).side).name;
        let Place::Board(b) = state.unit(u).place else {
            continue;
        };
        let place = describe::place(module, b);
        for t in &module.units.types {
            forbidden.push(format!(" {} ({side}) at {place}", t.id));
            forbidden.push(format!(" {}' ({side}) at {place}", t.id));
        }
    }
    let names: Vec<String> = hidden
        .iter()
        .map(|&u| describe::unit(module, state, u))
        .collect();
    let session = h.state().play().session().expect("a game");
    for text in texts(h).iter().chain(session.shown_log()) {
        for f in &forbidden {
            assert!(
                !text.contains(f.as_str()),
                "the screen names a hidden piece: '{f}' in '{text}'"
            );
        }
        for piece in &names {
            // `Militia Infantry #1` is not named by `Militia Infantry #12`.
            let named = text.match_indices(piece.as_str()).any(|(i, _)| {
                !text[i + piece.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            });
            assert!(
                !named,
                "the screen names a hidden piece: '{piece}' in '{text}'"
            );
        }
    }
}

/// Takes legal actions for the seat at the screen until the game waits for another
/// seat: a few marches first, so the log has something to hide, then the ends of
/// steps. Each action is one the session lists (the UI's own list).
fn play_until_other_seat(h: &mut Harness<'_, EditorApp>, me: SeatId) {
    let mut moves = 0;
    for _ in 0..2_000 {
        let session = h.state_mut().play_mut().session_mut().expect("a game");
        if session.viewer().map(|v| v.seat) != Some(me) {
            return;
        }
        let legal = session.legal().expect("legal").to_vec();
        let pick = |f: &dyn Fn(&Action) -> bool| legal.iter().find(|a| f(a)).cloned();
        let action = (moves < 4)
            .then(|| pick(&|a| matches!(a, Action::Move { .. })))
            .flatten()
            .inspect(|_| moves += 1)
            .or_else(|| {
                (moves < 4)
                    .then(|| pick(&|a| matches!(a, Action::Select { .. })))
                    .flatten()
            })
            .or_else(|| pick(&|a| matches!(a, Action::EndStep)))
            .or_else(|| pick(&|a| matches!(a, Action::Release)))
            .or_else(|| pick(&|a| matches!(a, Action::Pass)))
            .or_else(|| legal.first().cloned())
            .expect("something to do");
        h.state_mut()
            .apply(UiCommand::Play(PlayCommand::Act(action)));
        assert_eq!(h.state().play().status(), "", "the action applied");
    }
    panic!("the game never passed to another seat");
}

#[test]
fn the_start_screen_lists_the_seats_of_a_game_with_hidden_information() {
    let (_tmp, dir) = example("fog-of-war");
    let mut h = at_start(&dir);
    new_game_dialog(&mut h, 3);
    for (name, side) in [("Union", "Union"), ("Confederacy", "Confederacy")] {
        assert!(
            h.query_by_role_and_label(Role::ComboBox, name).is_some(),
            "who plays the {name} seat is asked"
        );
        let note = format!("seat of the {side}");
        assert!(h.query_by_label(&note).is_some(), "'{note}' shown");
    }
    h.snapshot("seats_start_screen");
    // One seat against the computer.
    h.get_by_role_and_label(Role::ComboBox, "Confederacy")
        .click();
    h.run();
    h.get_by_label("AI").click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    let session = h.state().play().session().expect("a game");
    assert!(session.hidden(), "fog of war hides");
    let ai = PlayerKind::Computer(muster_ai::Level::Ai);
    assert_eq!(session.seat_players(), &[PlayerKind::Human, ai]);
    assert_eq!(session.players(), &[PlayerKind::Human, ai]);
    // One human seat: never a hand-over screen, the Union's view at once.
    let union = seat(&h, "union");
    assert_eq!(session.viewer().map(|v| v.seat), Some(union));
    assert_eq!(h.state_mut().play_mut().pass_to(), None);
    assert!(
        h.query_by_label("Washington").is_some(),
        "the board is shown"
    );
}

/// Several seats a side (two Union commanders over the fog of war): each is listed with
/// its side, and a side played partly by people, partly by the computer is refused
/// with the reason, the dialog left open (the computer players play whole sides).
#[test]
fn several_seats_of_a_side_are_listed_and_a_mixed_side_is_refused() {
    let (_tmp, dir) = example("fog-of-war");
    std::fs::write(
        dir.join("seats.xml"),
        r#"<sides>
  <seat id="union-east" name="Union East" side="union" enemies="presence" near="full" range="1"/>
  <seat id="union-west" name="Union West" side="union" enemies="presence" near="full" range="1"/>
  <seat id="confederate" name="Confederacy" side="confederate" enemies="presence" near="full" range="1"/>
</sides>"#,
    )
    .expect("write seats");
    let mut h = at_start(&dir);
    new_game_dialog(&mut h, 3);
    for name in ["Union East", "Union West", "Confederacy"] {
        assert!(
            h.query_by_role_and_label(Role::ComboBox, name).is_some(),
            "the seat {name} is listed"
        );
    }
    assert_eq!(
        h.query_all(by().label("seat of the Union")).count(),
        2,
        "two seats of the Union"
    );
    h.get_by_role_and_label(Role::ComboBox, "Union West")
        .click();
    h.run();
    h.get_by_label("AI").click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    assert!(h.state().play().session().is_none(), "no game started");
    assert!(h.state().play().dialog_open(), "the dialog stays open");
    assert!(
        h.query_all(by().label_contains("partly by people, partly by the computer"))
            .next()
            .is_some(),
        "the reason is shown"
    );
    // All three at this screen: the Union's seats share its turn, the first at the
    // screen until he hands over to the other, behind the hand-over screen.
    h.get_by_role_and_label(Role::ComboBox, "Union West")
        .click();
    h.run();
    h.get_by_label("Human").click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    let (east, west) = (seat(&h, "union-east"), seat(&h, "union-west"));
    assert_eq!(h.state_mut().play_mut().pass_to(), Some(east));
    h.get_by_label(handover::READY).click();
    h.run();
    h.get_by_label("Hand over to Union West").click();
    h.run();
    assert_eq!(h.state_mut().play_mut().pass_to(), Some(west));
    assert_hand_over(&mut h, "Union West");
    h.get_by_label(handover::READY).click();
    h.run();
    let session = h.state().play().session().expect("a game");
    let v = session.viewer().expect("a seat's view");
    assert_eq!((v.seat, v.acting), (west, true));
    assert!(h.query_by_label("Hand over to Union East").is_some());
}

#[test]
fn an_open_module_asks_only_who_plays_each_side() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = at_start(&dir);
    new_game_dialog(&mut h, 3);
    assert!(
        h.query_all(by().label_contains("seat of the"))
            .next()
            .is_none(),
        "no seat list for AHD"
    );
    h.get_by_label("Start").click();
    h.run();
    let session = h.state().play().session().expect("a game");
    assert!(!session.hidden());
    assert!(session.viewer().is_none(), "everything is shown, as before");
    assert_eq!(h.state_mut().play_mut().pass_to(), None);
    assert!(h.query_by_label("Washington").is_some());
}

/// Hot seat in a fog-of-war game: the hand-over screen comes first and between the
/// seats, hiding the board and the log; behind it each seat sees its own view only.
/// The leak test: with the Confederate at the screen, no text of the UI tree names a
/// Union piece the Confederate view hides (its number, or its type in its box).
#[test]
fn hot_seat_fog_of_war_hands_over_and_shows_only_the_seats_view() {
    let (_tmp, dir) = example("fog-of-war");
    let mut h = at_start(&dir);
    new_game_dialog(&mut h, 3);
    h.get_by_label("Start").click();
    h.run();
    let union = seat(&h, "union");
    let confederate = seat(&h, "confederate");
    assert_eq!(h.state_mut().play_mut().pass_to(), Some(union));
    assert_hand_over(&mut h, "Union");
    h.get_by_label(handover::READY).click();
    h.run();
    assert!(
        h.query_by_label("Washington").is_some(),
        "the Union's board"
    );
    // A threat is read from the whole state: none is shown where information is hidden.
    assert!(h.query_by_label("Defeat could come next turn").is_none());
    assert!(
        h.state_mut()
            .play_mut()
            .session_mut()
            .expect("a game")
            .victory_threats()
            .is_empty()
    );

    play_until_other_seat(&mut h, union);
    h.run();
    assert_eq!(h.state_mut().play_mut().pass_to(), Some(confederate));
    assert_hand_over(&mut h, "Confederacy");
    h.snapshot("seats_hand_over");
    // Undo is the Union's no more: taking its move back would show it.
    assert!(!h.state().play().session().expect("game").can_undo());
    h.get_by_label(handover::READY).click();
    h.run();
    assert_eq!(h.state_mut().play_mut().pass_to(), None);

    // What the Confederate may not know, by the engine's own account.
    let (module, state, hidden) = hidden_from(&h, confederate, "union");
    assert!(
        hidden.len() >= 5,
        "fog hides Union pieces: {}",
        hidden.len()
    );
    // Select a box holding hidden Union pieces, so the panel lists that box too.
    let Place::Board(at) = state.unit(hidden[0]).place else {
        unreachable!("on the board")
    };
    let name = describe::place(&module, at).to_string();
    let i = common::box_index(&h, &name);
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::ClickBox(i)));
    h.run();
    let all = texts(&h);
    assert_nothing_hidden_named(&h, &module, &state, &hidden);
    assert!(
        all.iter().any(|t| t == &name),
        "the panel shows the selected box {name}"
    );
    assert!(
        all.iter().any(|t| t.contains("? (?) at ")),
        "hidden pieces are counted on the map: {all:?}"
    );
    assert!(
        all.iter().any(|t| t.contains("unseen")),
        "the panel counts the unseen pieces of {name}"
    );
    // The Union's marches reached the log only as far as the Confederate sees them.
    let session = h.state().play().session().expect("a game");
    assert!(
        session.shown_log().iter().any(|l| l.starts_with("[Union]")),
        "the Union's actions are in the log"
    );
    assert_ne!(session.shown_log(), session.log(), "the seat's own log");
    // Zoomed in on the selected box, so the counters can be read in the picture.
    let rect = h.get_by_role_and_label(Role::Button, &name).rect();
    h.hover_at(rect.center());
    h.event(egui::Event::Zoom(2.5));
    h.run();
    h.snapshot("seats_fog_confederate");

    // Odds are never estimated from hidden pieces: over a box whose Union pieces the
    // Confederate does not see, the hover says that the odds are not shown.
    let session = h.state_mut().play_mut().session_mut().expect("a game");
    assert!(!session.all_seen_at(at), "{name} holds hidden pieces");
    let mut hover = muster_editor::play::hover_odds::HoverOdds::default();
    assert_eq!(
        hover.text(session, None, None, at),
        Some(muster_editor::play::odds::HIDDEN_ODDS)
    );
}

/// One human seat against the computer in a fog-of-war game: no hand-over screen; while
/// the computer plays its turn the human watches from his own seat, and what the
/// computer did reaches his screen only as far as his seat sees it (no turn summary,
/// no arrows of its marches).
#[test]
fn against_the_computer_the_human_watches_from_his_seat() {
    let (_tmp, dir) = example("fog-of-war");
    let mut h = at_start(&dir);
    new_game_dialog(&mut h, 5);
    h.get_by_role_and_label(Role::ComboBox, "Confederacy")
        .click();
    h.run();
    h.get_by_label("AI").click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::SetAuto(false)));
    let union = seat(&h, "union");
    assert_eq!(h.state_mut().play_mut().pass_to(), None);
    // The Union's turn, ended as soon as it may be.
    for _ in 0..200 {
        let session = h.state_mut().play_mut().session_mut().expect("a game");
        if session.computer_to_act() {
            break;
        }
        let legal = session.legal().expect("legal").to_vec();
        let action = [Action::EndStep, Action::Release, Action::Pass]
            .into_iter()
            .find(|a| legal.contains(a))
            .or_else(|| legal.first().cloned())
            .expect("something to do");
        h.state_mut()
            .apply(UiCommand::Play(PlayCommand::Act(action)));
    }
    let mut steps = 0;
    while h
        .state()
        .play()
        .session()
        .expect("a game")
        .computer_to_act()
    {
        h.state_mut().apply(UiCommand::Play(PlayCommand::AiStep));
        assert_eq!(h.state().play().status(), "", "the computer's step applied");
        steps += 1;
        assert!(steps < 2_000, "the computer's turn ends");
    }
    h.run();
    assert!(steps > 3, "the computer played its turn ({steps} actions)");
    let session = h.state().play().session().expect("a game");
    assert_eq!(session.viewer().map(|v| v.seat), Some(union));
    assert_eq!(h.state_mut().play_mut().pass_to(), None, "no hand-over");
    let session = h.state().play().session().expect("a game");
    assert!(
        session
            .shown_log()
            .iter()
            .any(|l| l.starts_with("[Confederacy]")),
        "the computer's actions are in the Union's log"
    );
    assert!(
        h.query_by_label("Close summary").is_none(),
        "no summary of the computer's turn"
    );
    let (module, state, hidden) = hidden_from(&h, union, "confederate");
    assert!(!hidden.is_empty(), "fog hides Confederate pieces");
    assert_nothing_hidden_named(&h, &module, &state, &hidden);
}

/// A saved game with hidden information loads behind the hand-over screen: the seat
/// the game waits for is asked to the screen first, and its log is its own.
#[test]
fn a_loaded_game_with_hidden_information_starts_behind_the_hand_over_screen() {
    let (tmp, dir) = example("fog-of-war");
    let mut h = at_start(&dir);
    new_game_dialog(&mut h, 3);
    h.get_by_label("Start").click();
    h.run();
    let union = seat(&h, "union");
    let confederate = seat(&h, "confederate");
    h.get_by_label(handover::READY).click();
    h.run();
    play_until_other_seat(&mut h, union);
    let path = tmp.path().join("fog.json");
    h.state_mut().apply(UiCommand::SaveGame(path.clone()));
    h.state_mut().apply(UiCommand::LoadGame(path));
    h.run();
    assert!(
        h.state().play().status().starts_with("game loaded"),
        "{}",
        h.state().play().status()
    );
    assert_eq!(h.state_mut().play_mut().pass_to(), Some(confederate));
    assert_hand_over(&mut h, "Confederacy");
    h.get_by_label(handover::READY).click();
    h.run();
    let (module, state, hidden) = hidden_from(&h, confederate, "union");
    assert!(!hidden.is_empty());
    assert_nothing_hidden_named(&h, &module, &state, &hidden);
    let session = h.state().play().session().expect("a game");
    assert_ne!(session.shown_log(), session.log(), "the seat's own log");
}

/// Sealed orders (issue 43 item 2): each seat picks behind the hand-over screen and
/// reads nothing of the other's pick until both are revealed.
#[test]
fn sealed_choices_are_made_behind_the_hand_over_screen() {
    let (_tmp, dir) = example("sealed-orders");
    let mut h = at_start(&dir);
    new_game_dialog(&mut h, 3);
    h.get_by_label("Start").click();
    h.run();
    let union = seat(&h, "union");
    let confederate = seat(&h, "confederate");
    // An open game: the first pick is made at once, nothing being hidden yet.
    assert_eq!(h.state_mut().play_mut().pass_to(), None);
    let pick = |h: &mut Harness<'_, EditorApp>| {
        let session = h.state_mut().play_mut().session_mut().expect("a game");
        let legal = session.legal().expect("legal").to_vec();
        let take = legal
            .iter()
            .find(|a| matches!(a, Action::Take { .. }))
            .cloned()
            .expect("a city to pick");
        let words = describe::action(session.module(), session.state(), &take);
        h.state_mut().apply(UiCommand::Play(PlayCommand::Act(take)));
        h.run();
        words
    };
    assert_eq!(
        h.state()
            .play()
            .session()
            .expect("game")
            .viewer()
            .map(|v| v.seat),
        Some(union)
    );
    let union_pick = pick(&mut h);
    assert!(union_pick.contains("dig in at"), "{union_pick}");
    assert_eq!(h.state_mut().play_mut().pass_to(), Some(confederate));
    assert_hand_over(&mut h, "Confederacy");
    assert!(
        texts(&h).iter().all(|t| !t.contains(&union_pick)),
        "the Union's pick is behind the screen"
    );
    h.get_by_label(handover::READY).click();
    h.run();
    let all = texts(&h);
    assert!(
        all.iter().all(|t| !t.contains(&union_pick)),
        "the Confederate does not read the Union's pick: {all:?}"
    );
    assert!(
        all.iter().any(|t| t.contains("a sealed choice is made")),
        "only that a choice was made"
    );
    let confederate_pick = pick(&mut h);
    // Both revealed: the open game's whole log again, both picks in it.
    assert_eq!(h.state_mut().play_mut().pass_to(), None);
    let all = texts(&h);
    for p in [&union_pick, &confederate_pick] {
        assert!(all.iter().any(|t| t.contains(p.as_str())), "'{p}' revealed");
    }
}
