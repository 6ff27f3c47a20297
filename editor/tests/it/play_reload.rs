//! Hot reload during play: the game under way is played again on the module's new
//! files, or kept with the reason. Session-level tests call [`Session::rebuild`]; the
//! app-level ones change files of a watched temp copy of AHD and poll, as
//! `lifecycle.rs` does, with a generous limit (they assert on what arrives, never on
//! how fast).

use crate::common;

use common::{edit_file, retype, run_until};

use std::path::Path;
use std::sync::Arc;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_core::game::{Action, GameState};
use muster_core::{Module, load_module};
use muster_editor::EditorApp;
use muster_editor::command::{Mode, UiCommand};
use muster_editor::notify_ui::Level;
use muster_editor::play::{NewGame, PlayCommand, PlayerKind, RebuildError, Session};

fn load(dir: &Path) -> Arc<Module> {
    Arc::new(load_module(dir).expect("module loads"))
}

fn game() -> NewGame {
    NewGame {
        scenario: "1861".into(),
        options: Vec::new(),
        end: None,
        players: vec![PlayerKind::Human, PlayerKind::Human],
        seats: Vec::new(),
        seed: 5,
    }
}

/// What the tests do to a game, the session's or the app's.
trait Game {
    fn legal(&mut self) -> Vec<Action>;
    fn act(&mut self, action: Action);
}

impl Game for Session {
    fn legal(&mut self) -> Vec<Action> {
        Session::legal(self).expect("legal").to_vec()
    }
    fn act(&mut self, action: Action) {
        self.apply(action).expect("applies");
    }
}

impl Game for Harness<'_, EditorApp> {
    fn legal(&mut self) -> Vec<Action> {
        let session = self.state_mut().play_mut().session_mut().expect("a game");
        session.legal().expect("legal").to_vec()
    }
    fn act(&mut self, action: Action) {
        let before = self
            .state()
            .play()
            .session()
            .expect("a game")
            .history()
            .actions()
            .len();
        self.state_mut()
            .apply(UiCommand::Play(PlayCommand::Act(action)));
        self.run();
        let after = self
            .state()
            .play()
            .session()
            .expect("a game")
            .history()
            .actions()
            .len();
        assert_eq!(after, before + 1, "{}", self.state().play().status());
    }
}

/// Takes legal actions (the first each time) until a move has been made; returns the
/// number of the move's action, counting from 1.
fn play_until_a_move(game: &mut impl Game) -> usize {
    for n in 1..=40 {
        let list = game.legal();
        assert!(!list.is_empty(), "no legal action");
        match list.iter().find(|a| matches!(a, Action::Move { .. })) {
            Some(m) => {
                game.act(m.clone());
                return n;
            }
            None => game.act(list[0].clone()),
        }
    }
    panic!("no move offered in 40 actions");
}

fn session_with_a_move(module: Arc<Module>) -> (Session, usize) {
    let mut s = Session::new(module, &game()).expect("starts");
    let n = play_until_a_move(&mut s);
    (s, n)
}

const MAY_ENTER: &str = "function M.may_enter(game: Game, unit: number, path): boolean\n";
const NEVER_ENTER: &str = "function M.may_enter(game: Game, unit: number, path): boolean\n\tif unit >= 0 then\n\t\treturn false\n\tend\n";

fn forbid_every_move(dir: &Path) {
    edit_file(&dir.join("rules/movement.luau"), MAY_ENTER, NEVER_ENTER);
}

fn break_victory_script(dir: &Path) {
    edit_file(
        &dir.join("rules/victory.luau"),
        "local M = {}",
        "local M = {\n\tbroken = (,\n}",
    );
}

fn append_comment(dir: &Path) {
    let path = dir.join("rules/victory.luau");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("\n-- a harmless comment\n");
    std::fs::write(&path, text).expect("write");
}

#[test]
fn a_harmless_change_replays_every_action_to_the_same_state() {
    let (_tmp, dir) = common::ahd_copy();
    let (s, n) = session_with_a_move(load(&dir));
    append_comment(&dir);
    let new = load(&dir);
    assert_ne!(new.content_hash, s.module().content_hash);
    let rebuilt = s.rebuild(new.clone()).expect("replays");
    assert_eq!(rebuilt.state(), s.state());
    assert_eq!(rebuilt.history().actions(), s.history().actions());
    assert_eq!(rebuilt.history().actions().len(), n);
    assert_eq!(rebuilt.module().content_hash, new.content_hash);
    // The log goes on from the old one.
    assert!(rebuilt.log().starts_with(s.log()));
    let last = rebuilt.log().last().expect("a log line");
    assert_eq!(last, &format!("rules reloaded: {n} actions replayed"));
}

/// Issue 45: after a reload the log is the new rules' account of the game, not the
/// old rule's line kept under the new rules.
#[test]
fn a_changed_rule_line_is_told_again_by_the_new_rules() {
    let (_tmp, dir) = common::ahd_copy();
    let (s, n) = session_with_a_move(load(&dir));
    let (old, new) = (
        "first turn: 2 marches (4.1)",
        "first turn: two marches (4.1)",
    );
    let says = |log: &[String], words: &str| log.iter().any(|l| l.contains(words));
    assert!(
        says(s.log(), old),
        "the first turn's marches are logged (4.1)"
    );
    edit_file(&dir.join("rules/marches.luau"), old, new);
    let rebuilt = s.rebuild(load(&dir)).expect("replays");
    assert!(says(rebuilt.log(), new), "{:#?}", rebuilt.log());
    assert!(!says(rebuilt.log(), old), "{:#?}", rebuilt.log());
    assert_eq!(rebuilt.state(), s.state());
    assert_eq!(
        rebuilt.log().first(),
        s.log().first(),
        "the game's title stays"
    );
    assert_eq!(
        rebuilt.log().last(),
        Some(&format!("rules reloaded: {n} actions replayed"))
    );
    // The line the rules logged is marked as the rules' in the new log.
    let marked: Vec<&String> = rebuilt
        .rule_lines()
        .iter()
        .map(|&i| &rebuilt.log()[i])
        .collect();
    assert!(marked.iter().any(|l| l.contains(new)), "{marked:#?}");
}

#[test]
fn an_action_the_new_rules_refuse_is_named_by_number() {
    let (_tmp, dir) = common::ahd_copy();
    let (s, n) = session_with_a_move(load(&dir));
    forbid_every_move(&dir);
    match s.rebuild(load(&dir)) {
        Err(RebuildError::Action { number, total, .. }) => {
            assert_eq!(number, n, "the move is the refused action");
            assert_eq!(total, n);
        }
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("a move was replayed although no box may be entered"),
    }
}

#[test]
fn a_script_that_does_not_load_names_its_file_and_line() {
    let (_tmp, dir) = common::ahd_copy();
    let (s, _) = session_with_a_move(load(&dir));
    break_victory_script(&dir);
    let err = s.rebuild(load(&dir)).err().expect("refused");
    assert!(matches!(err, RebuildError::Rules(_)), "{err}");
    assert!(err.to_string().contains("victory.luau:7"), "{err}");
}

// The app, watching its files.

fn watched(dir: &Path) -> Harness<'static, EditorApp> {
    common::watched(dir, common::LARGE)
}

/// A game in play mode with a move among its actions; the move's number.
fn app_game(h: &mut Harness<'_, EditorApp>) -> usize {
    h.state_mut().apply(UiCommand::SetMode(Mode::Play));
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::Start(game())));
    h.run();
    play_until_a_move(h)
}

fn session<'a>(h: &'a Harness<'_, EditorApp>) -> &'a Session {
    h.state().play().session().expect("a game is under way")
}

fn snapshot(h: &Harness<'_, EditorApp>) -> (GameState, usize, u64) {
    let s = session(h);
    (
        s.state().clone(),
        s.history().actions().len(),
        s.module().content_hash,
    )
}

fn has_notice(app: &EditorApp, level: Level, text: &str) -> bool {
    app.notices()
        .iter()
        .any(|n| n.level == level && n.text.contains(text))
}

#[test]
fn a_harmless_script_change_on_disk_switches_the_game_to_the_new_rules() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    let n = app_game(&mut h);
    let (state, actions, hash) = snapshot(&h);
    assert_eq!(actions, n);

    append_comment(&dir);
    assert!(
        run_until(&mut h, |a| a
            .play()
            .session()
            .is_some_and(|s| s.module().content_hash != hash)),
        "the game never switched to the new rules"
    );
    assert_eq!(session(&h).state(), &state);
    assert_eq!(
        session(&h).module().content_hash,
        load(&dir).content_hash,
        "the game runs on the module as it is on disk now"
    );
    let message = format!("rules reloaded: {n} actions replayed");
    assert!(has_notice(h.state(), Level::Success, &message));
    assert_eq!(h.state().play().status(), message);
    assert!(
        h.query_all_by_label(&message).next().is_some(),
        "shown on screen"
    );
}

#[test]
fn a_change_that_refuses_a_taken_action_keeps_the_old_game_and_names_it() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    let n = app_game(&mut h);
    let before = snapshot(&h);

    forbid_every_move(&dir);
    let named = format!("action {n} of {n}");
    assert!(
        run_until(&mut h, |a| has_notice(a, Level::Warning, &named)),
        "no warning named the refused action; notices: {:?}",
        h.state().notices()
    );
    assert_eq!(snapshot(&h), before, "the old game goes on unchanged");
    assert!(h.state().play().status().contains("old rules"));
    assert!(h.state().play().is_stale());

    // The toolbar offers to start the game anew on the new rules.
    h.get_by_label("Restart with new rules").click();
    h.run();
    let s = session(&h);
    assert!(s.history().actions().is_empty(), "a fresh start");
    assert_eq!(s.seed(), 5);
    assert_eq!(s.module().content_hash, load(&dir).content_hash);
    assert!(!h.state().play().is_stale());
    assert!(h.query_by_label("Restart with new rules").is_none());
}

#[test]
fn a_broken_script_keeps_the_old_game_and_shows_the_error_with_its_file() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    app_game(&mut h);
    let before = snapshot(&h);

    break_victory_script(&dir);
    assert!(
        run_until(&mut h, |a| has_notice(a, Level::Warning, "victory.luau:7")),
        "no warning named the broken script; notices: {:?}",
        h.state().notices()
    );
    assert_eq!(snapshot(&h), before, "the old game goes on unchanged");
    // The game can still be played on the old rules.
    let legal = h
        .state_mut()
        .play_mut()
        .session_mut()
        .expect("a game")
        .legal()
        .expect("the old rules still answer")
        .to_vec();
    assert!(!legal.is_empty());
}

#[test]
fn a_map_that_no_longer_loads_keeps_the_old_game() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    app_game(&mut h);
    let before = snapshot(&h);

    edit_file(
        &dir.join("map.xml"),
        "<box name=\"Richmond\"",
        "<box name=\"Richmond\" <<",
    );
    assert!(
        run_until(&mut h, |a| has_notice(
            a,
            Level::Warning,
            "the module does not load"
        )),
        "no warning; notices: {:?}",
        h.state().notices()
    );
    let last = h.state().notices().last().expect("a notice");
    assert!(last.text.contains("map.xml:"), "{}", last.text);
    assert_eq!(snapshot(&h), before, "the old game goes on unchanged");
}

#[test]
fn saving_the_map_in_the_editor_replays_the_game_on_it() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    let n = app_game(&mut h);
    let (state, _, hash) = snapshot(&h);

    h.state_mut().apply(UiCommand::SetMode(Mode::Edit));
    let map = h.state().document().map();
    let i = map.find_box("Richmond").expect("Richmond");
    let (x, y) = (map.boxes[i].x + 10, map.boxes[i].y);
    h.state_mut().apply(UiCommand::MoveBox { index: i, x, y });
    // map.xml has comments inside its root: confirmed here, as "Save anyway" does.
    h.state_mut().apply(UiCommand::Save {
        drop_comments: true,
    });
    h.run();
    assert!(!h.state().document().is_dirty(), "saved");
    let s = session(&h);
    assert_ne!(
        s.module().content_hash,
        hash,
        "the game runs on the saved map"
    );
    // Its saves name the module as it is on disk, so `muster replay` accepts them.
    assert_eq!(s.module().content_hash, load(&dir).content_hash);
    assert_eq!(s.state(), &state);
    let message = format!("rules reloaded: {n} actions replayed");
    assert!(has_notice(h.state(), Level::Success, &message));
}

// Game files through the app's file dialog (the typed-path one here).

#[test]
fn save_as_and_load_go_through_the_file_dialog() {
    let (tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    app_game(&mut h);
    let saved = session(&h).state().clone();

    // Save as: the dialog suggests the game file's name; a typed path saves there.
    h.get_by_label("Save game as…").click();
    h.run();
    assert_eq!(
        h.get_by_role_and_label(egui::accesskit::Role::TextInput, "Path")
            .value()
            .as_deref(),
        Some("game.json")
    );
    let path = tmp.path().join("through-dialog.json");
    retype(&mut h, "Path", path.to_str().expect("utf-8 path"));
    h.get_by_label("Save").click();
    h.run();
    assert!(path.exists(), "{}", h.state().play().status());
    assert_eq!(h.state().play().game_path, path.display().to_string());

    // One more action, then load through the dialog: back to the saved position.
    let next = h.legal()[0].clone();
    h.act(next);
    assert_ne!(session(&h).state(), &saved);

    // A path that is no file: the dialog says so and nothing is loaded.
    h.get_by_label("Load game…").click();
    h.run();
    let missing = tmp.path().join("missing.json");
    retype(&mut h, "Path", missing.to_str().expect("utf-8 path"));
    h.get_by_label("Open").click();
    h.run();
    assert!(h.query_by_label_contains("is not a file").is_some());
    assert_ne!(session(&h).state(), &saved);

    retype(&mut h, "Path", path.to_str().expect("utf-8 path"));
    h.get_by_label("Open").click();
    h.run();
    assert_eq!(session(&h).state(), &saved, "{}", h.state().play().status());
    assert!(h.query_by_label("Open").is_none(), "the dialog closed");
}

/// Issue 18, item 2, in the app: a rule that fails while an action is applied leaves the
/// game as it was, names where it stopped, and saves it; once the script is fixed on
/// disk the game goes on from there on the new rules.
#[test]
fn a_rule_failure_in_play_saves_the_game_and_play_goes_on_after_the_fix() {
    let (tmp, dir) = common::ahd_copy();
    // A house rule's typo: a misspelt command when the Union activates Washington.
    edit_file(
        &dir.join("rules/init.luau"),
        "hooks.on(\"may_enter\"",
        "hooks.on(\"box_selected\", function(game, at)\n\tif defs.boxes[at].name == \"Washington\" then\n\t\treturn { { kind = \"set_controll\" } }\n\tend\n\treturn nil\nend)\nhooks.on(\"may_enter\"",
    );
    let mut h = watched(&dir);
    h.state_mut().play_mut().failure_dir = tmp.path().to_path_buf();
    h.state_mut().apply(UiCommand::SetMode(Mode::Play));
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::Start(game())));
    h.run();
    let (before, actions, _) = snapshot(&h);
    let washington = load(&dir).board.find("Washington").expect("a box");
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::Act(Action::Select {
            at: washington,
        })));
    h.run();
    let status = h.state().play().status().to_string();
    assert!(
        status.starts_with(
            "a rule failed at 07/1861, Union, Movement, taking 'march: activate Washington'"
        ),
        "{status}"
    );
    assert!(status.contains("set_controll"), "{status}");
    let (after, after_actions, _) = snapshot(&h);
    assert_eq!(
        (after, after_actions),
        (before.clone(), actions),
        "the game as it was"
    );
    let saved = tmp.path().join("muster-ahd-5-failed.json");
    assert!(status.contains(&saved.display().to_string()), "{status}");
    let save = muster_core::game::Save::read(&saved).expect("the save reads");
    assert_eq!(
        save.actions.len(),
        actions,
        "every action up to the failure"
    );

    // Fixed on disk: the game is replayed on the new rules and the march goes through.
    edit_file(
        &dir.join("rules/init.luau"),
        "kind = \"set_controll\"",
        "kind = \"log\", text = \"Washington marches\"",
    );
    assert!(
        run_until(&mut h, |a| a.play().status().starts_with("rules reloaded")),
        "the fixed rules were not taken up: {}",
        h.state().play().status()
    );
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::Act(Action::Select {
            at: washington,
        })));
    h.run();
    let s = session(&h);
    assert_eq!(
        s.history().actions().len(),
        actions + 1,
        "{}",
        h.state().play().status()
    );
    assert!(s.log().iter().any(|l| l.contains("Washington marches")));
}

/// A mod being edited (issue 14): the app opened on the TripleA adaptation (an overlay of
/// AHD) reloads when the mod's own rules change, and the game goes on on them; the
/// banner names the mods in play.
#[test]
fn a_mod_being_edited_is_reloaded_and_the_game_goes_on() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mods = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    for name in ["ahd", "ahd-triplea"] {
        common::copy_dir(&mods.join(name), &tmp.path().join(name));
    }
    let dir = tmp.path().join("ahd-triplea");
    let mut h = watched(&dir);
    let n = app_game(&mut h);
    let (state, actions, hash) = snapshot(&h);
    assert_eq!(actions, n);
    assert!(
        h.query_by_label("Mods: ahd-triplea 0.1.0 on ahd 0.1.0")
            .is_some(),
        "the banner names the mods in play"
    );

    let init = dir.join("rules/init.luau");
    let text = std::fs::read_to_string(&init).expect("read");
    std::fs::write(&init, format!("{text}\n-- a modder's note\n")).expect("write");
    assert!(
        run_until(&mut h, |a| a
            .play()
            .session()
            .is_some_and(|s| s.module().content_hash != hash)),
        "the game never switched to the mod's new rules"
    );
    assert_eq!(session(&h).state(), &state, "replayed to the same position");
    assert_eq!(
        session(&h).module().content_hash,
        load(&dir).content_hash,
        "the game runs on the mod as it is on disk now"
    );
}
