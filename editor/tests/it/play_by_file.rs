//! Issue 17 in the app: a game played by file between two app windows (each player's
//! own folder, files carried across by hand, as by e-mail), read and checked by the same
//! engine code as `muster pbem`; and a save whose module changed, replayed as far as it
//! goes (item 2).

use crate::common;

use std::path::{Path, PathBuf};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_core::game::{Action, decider};
use muster_core::pbem::folder::Folder;
use muster_core::pbem::state_hash;
use muster_editor::command::{Mode, UiCommand};
use muster_editor::play::PlayCommand;
use muster_editor::play::by_file::Standing;
use muster_editor::{Document, EditorApp};
use muster_scripting::{Limits, ScriptRules};

fn app(dir: &Path) -> Harness<'static, EditorApp> {
    let app = EditorApp::new(Document::open(dir).expect("module opens")).at_start();
    let mut h = common::app_harness(app, common::LARGE);
    h.run();
    h
}

/// The app in play mode, no game under way.
fn in_play(dir: &Path) -> Harness<'static, EditorApp> {
    let mut h = app(dir);
    h.state_mut().apply(UiCommand::SetMode(Mode::Play));
    play(&mut h, PlayCommand::CancelNewGame);
    h
}

fn play(h: &mut Harness<'_, EditorApp>, c: PlayCommand) {
    h.state_mut().apply(UiCommand::Play(c));
    h.run();
}

fn standing(h: &mut Harness<'_, EditorApp>) -> Standing {
    h.state_mut()
        .play_mut()
        .by_file_standing()
        .expect("a game by file")
}

/// The turn files in `dir`, by name.
fn turn_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".pbem.json"))
        .collect();
    names.sort();
    names
}

/// Carries the file `path` to the other player's folder `to` (the e-mail).
fn carry(path: &Path, to: &Path) {
    std::fs::copy(path, to.join(path.file_name().unwrap())).unwrap();
}

/// The player whose turn it is plays their stretch: their own decisions by a fixed
/// pseudo-random choice among the engine's legal actions; the opponent's forced ones
/// are taken by the app itself. Then the stretch is sent with the strip's button.
fn play_stretch(h: &mut Harness<'_, EditorApp>, mut pick: u64) -> PathBuf {
    let me = h.state().play().by_file().unwrap().me();
    for _ in 0..5_000 {
        match standing(h) {
            Standing::Playing => {}
            Standing::Done => break,
            other => panic!("unexpected {other:?} while playing"),
        }
        let session = h.state_mut().play_mut().session_mut().unwrap();
        if decider(session.module(), session.state()) != me {
            // A forced decision of the opponent: the app takes it on the next frame.
            h.step();
            continue;
        }
        let legal = session.legal().unwrap().to_vec();
        pick = pick
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let action: Action = legal[(pick >> 33) as usize % legal.len()].clone();
        play(h, PlayCommand::Act(action));
    }
    assert_eq!(standing(h), Standing::Done, "the stretch ends");
    h.get_by_label("Send turn file").click();
    h.run();
    match standing(h) {
        Standing::Sent(path) => path,
        other => panic!("not sent: {other:?}"),
    }
}

#[test]
fn two_players_play_by_file_in_the_app_and_the_files_are_the_cli_s() {
    let (_tmp, module_dir) = common::ahd_copy();
    let folders = tempfile::tempdir().unwrap();
    let (union_dir, confed_dir) = (folders.path().join("union"), folders.path().join("confed"));
    std::fs::create_dir_all(&confed_dir).unwrap();

    // The Union player starts a game by file from the start screen.
    let mut union = app(&module_dir);
    union.get_by_label("Play by file (e-mail)…").click();
    union.run();
    assert_eq!(union.state().mode(), Mode::Play);
    assert!(union.query_by_label("Start a new game by file").is_some());
    common::retype(&mut union, "Your folder", &union_dir.display().to_string());
    let scenario = common::ahd_module().scenarios[0].id.clone();
    play(
        &mut union,
        PlayCommand::ByFileNew {
            dir: union_dir.clone(),
            side: "union".into(),
            scenario,
            options: vec!["union-rail-bonus".into()],
            end: Some("12/1862".into()),
        },
    );
    let files = turn_files(&union_dir);
    assert_eq!(files.len(), 1, "file 0 written: {files:?}");
    assert!(matches!(
        standing(&mut union),
        Standing::Waiting { index: 1, .. }
    ));
    assert!(
        union.state().play().session().is_none(),
        "the game starts with file 2"
    );

    // The Confederate player opens their folder with file 0 and accepts: file 1.
    carry(&union_dir.join(&files[0]), &confed_dir);
    let mut confed = in_play(&module_dir);
    play(
        &mut confed,
        PlayCommand::ByFileOpen {
            dir: confed_dir.clone(),
            side: None,
        },
    );
    assert_eq!(standing(&mut confed), Standing::Answer);
    confed.get_by_label("Accept and write file 1").click();
    confed.run();
    let Standing::Sent(file1) = standing(&mut confed) else {
        panic!("file 1 not written")
    };

    // Back to the Union: its stretch, sent as file 2, then the Confederacy's (file 3)
    // and the Union's again (file 4), each read back by the other side's app.
    carry(&file1, &union_dir);
    play(&mut union, PlayCommand::ByFileRefresh);
    assert_eq!(standing(&mut union), Standing::Playing);
    let union_turn = play_stretch(&mut union, 1);
    let after_union = state_hash(union.state().play().session().unwrap().state());

    carry(&union_turn, &confed_dir);
    play(&mut confed, PlayCommand::ByFileRefresh);
    assert_eq!(standing(&mut confed), Standing::Playing);
    let at_start = confed.state().play().session().unwrap().state().clone();
    let module = common::ahd_module();
    let mut rules = ScriptRules::load(&module, Limits::default()).unwrap();
    let read = Folder::new(&confed_dir).read(&module, &mut rules).unwrap();
    assert_eq!(
        state_hash(read.game.history().unwrap().state()),
        after_union,
        "both see the same game"
    );
    // The Confederacy's stretch is that position with its own dice.
    assert_eq!(at_start.units, read.game.history().unwrap().state().units);
    assert!(
        !confed.state().play().by_file().unwrap().last().is_empty(),
        "the Union's moves are listed"
    );
    // What was sent is not taken back.
    play(&mut confed, PlayCommand::Undo);
    assert!(
        confed
            .state()
            .play()
            .status()
            .contains("cannot be taken back"),
        "{}",
        confed.state().play().status()
    );
    assert_eq!(confed.state().play().session().unwrap().state(), &at_start);
    let confed_turn = play_stretch(&mut confed, 2);
    carry(&confed_turn, &union_dir);
    play(&mut union, PlayCommand::ByFileRefresh);
    let union_turn = play_stretch(&mut union, 3);
    carry(&union_turn, &confed_dir);

    // The engine reads both folders as `muster pbem verify` does: 5 files, the same game.
    let mine = Folder::new(&union_dir).read(&module, &mut rules).unwrap();
    let theirs = Folder::new(&confed_dir).read(&module, &mut rules).unwrap();
    assert_eq!(mine.game.len(), 5);
    // The rules and ending chosen in the app are the game's.
    assert_eq!(mine.game.setup.options, ["union-rail-bonus"]);
    assert_eq!(mine.game.setup.end.as_deref(), Some("12/1862"));
    assert_eq!(
        mine.game.history().unwrap().state(),
        theirs.game.history().unwrap().state()
    );
    assert_eq!(
        mine.game.history().unwrap().state(),
        union.state().play().session().unwrap().state(),
        "the app shows the game the files make"
    );
    assert!(mine.game.history().unwrap().actions().len() > 10);
    // Each folder keeps only its own player's secrets.
    assert_eq!(Folder::new(&union_dir).own_sides(&mine.game), ["union"]);
    assert_eq!(
        Folder::new(&confed_dir).own_sides(&theirs.game),
        ["confederate"]
    );
}

#[test]
fn a_folder_that_is_not_a_game_is_named_and_nothing_is_written() {
    let (_tmp, module_dir) = common::ahd_copy();
    let folders = tempfile::tempdir().unwrap();
    let mut h = in_play(&module_dir);
    play(&mut h, PlayCommand::OpenByFile);
    play(
        &mut h,
        PlayCommand::ByFileOpen {
            dir: folders.path().to_path_buf(),
            side: None,
        },
    );
    let status = h.state().play().status().to_string();
    assert!(status.contains("holds no turn file"), "{status}");
    assert!(h.state().play().by_file().is_none());
    assert!(
        h.query_all_by_label_contains("holds no turn file").count() >= 2,
        "the dialog says why, besides the status line"
    );
    assert!(
        h.query_by_label("Start a new game by file").is_some(),
        "the dialog stays"
    );

    let scenario = common::ahd_module().scenarios[0].id.clone();
    // A bad ending date is refused before any file is written.
    play(&mut h, PlayCommand::OpenByFile);
    play(
        &mut h,
        PlayCommand::ByFileNew {
            dir: folders.path().to_path_buf(),
            side: "union".into(),
            scenario: scenario.clone(),
            options: Vec::new(),
            end: Some("13/1861".into()),
        },
    );
    assert!(
        h.state().play().status().contains("ending date"),
        "{}",
        h.state().play().status()
    );
    assert!(turn_files(folders.path()).is_empty(), "nothing written");

    // A second game may not be started in a folder that holds one.
    let new = |dir: &Path| PlayCommand::ByFileNew {
        dir: dir.to_path_buf(),
        side: "union".into(),
        scenario: scenario.clone(),
        options: Vec::new(),
        end: None,
    };
    play(&mut h, new(folders.path()));
    let before = turn_files(folders.path());
    play(&mut h, PlayCommand::OpenByFile);
    play(&mut h, new(folders.path()));
    assert!(h.state().play().status().contains("holds a game already"));
    assert_eq!(turn_files(folders.path()), before, "nothing written");

    // A tampered file: the app names it and keeps nothing of it.
    let file0 = folders.path().join(&before[0]);
    let text = std::fs::read_to_string(&file0).unwrap();
    std::fs::write(&file0, text.replacen("\"index\": 0", "\"index\": 7", 1)).unwrap();
    play(
        &mut h,
        PlayCommand::ByFileOpen {
            dir: folders.path().to_path_buf(),
            side: None,
        },
    );
    let status = h.state().play().status().to_string();
    assert!(status.contains(&before[0]), "names the file: {status}");
}

#[test]
fn a_save_of_a_changed_module_is_offered_as_far_as_it_goes() {
    // The fixture save's second action marches three boxes; with marches of one box
    // (the calendar's max-path) it no longer applies.
    let (_tmp, module_dir) = common::ahd_copy();
    let calendar = module_dir.join("calendar.xml");
    common::edit_file(&calendar, r#"max-path="3""#, r#"max-path="1""#);
    let save = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/saves/format-1-ahd-1861-seed-12.json");
    let mut h = in_play(&module_dir);
    h.state_mut().apply(UiCommand::LoadGame(save.clone()));
    h.run();
    assert!(h.state().play().session().is_none(), "not loaded as it was");
    assert!(h.state().play().changed_save().is_some());
    assert!(
        h.query_by_label("The module changed since this game was saved")
            .is_some()
    );
    h.get_by_label("Replay as far as it goes").click();
    h.run();
    let session = h.state().play().session().expect("the game goes on");
    assert_eq!(session.history().actions().len(), 1);
    let report = h.state().play().replay_report().unwrap().join("\n");
    assert!(report.contains("replayed 1 of"), "{report}");
    assert!(report.contains("action 2"), "{report}");
    assert!(h.query_by_label("Replayed as far as it goes").is_some());
    h.get_by_label("OK").click();
    h.run();
    assert!(h.state().play().replay_report().is_none());
    // The game goes on from there.
    let legal = h
        .state_mut()
        .play_mut()
        .session_mut()
        .unwrap()
        .legal()
        .unwrap()
        .to_vec();
    play(&mut h, PlayCommand::Act(legal[0].clone()));
    assert_eq!(
        h.state()
            .play()
            .session()
            .unwrap()
            .history()
            .actions()
            .len(),
        2
    );
}

/// A turn file that cannot be written (a file of its name is in the way) is reported,
/// and the turn is still the player's: nothing was handed over, and once the way is
/// clear the same stretch is sent.
#[test]
fn a_turn_that_cannot_be_written_stays_the_players() {
    let (_tmp, module_dir) = common::ahd_copy();
    let folders = tempfile::tempdir().unwrap();
    let (union_dir, confed_dir) = (folders.path().join("union"), folders.path().join("confed"));
    std::fs::create_dir_all(&confed_dir).unwrap();
    let scenario = common::ahd_module().scenarios[0].id.clone();
    let mut union = in_play(&module_dir);
    play(
        &mut union,
        PlayCommand::ByFileNew {
            dir: union_dir.clone(),
            side: "union".into(),
            scenario,
            options: Vec::new(),
            end: None,
        },
    );
    carry(&union_dir.join(&turn_files(&union_dir)[0]), &confed_dir);
    let mut confed = in_play(&module_dir);
    play(
        &mut confed,
        PlayCommand::ByFileOpen {
            dir: confed_dir.clone(),
            side: None,
        },
    );
    play(&mut confed, PlayCommand::ByFileSend);
    let Standing::Sent(file1) = standing(&mut confed) else {
        panic!("file 1 not written")
    };
    carry(&file1, &union_dir);
    play(&mut union, PlayCommand::ByFileRefresh);
    // The Union ends its whole turn at once: End segment until the Confederacy decides.
    for _ in 0..50 {
        if standing(&mut union) != Standing::Playing {
            break;
        }
        play(&mut union, PlayCommand::Act(Action::EndStep));
    }
    assert_eq!(standing(&mut union), Standing::Done);
    let game = file1
        .file_name()
        .unwrap()
        .to_string_lossy()
        .split('-')
        .next()
        .unwrap()
        .to_string();
    // A directory where file 2 goes: it cannot be written.
    let blocker = union_dir.join(format!("{game}-002-union.pbem.json"));
    std::fs::create_dir(&blocker).unwrap();
    let actions = union
        .state()
        .play()
        .session()
        .unwrap()
        .history()
        .actions()
        .len();
    play(&mut union, PlayCommand::ByFileSend);
    let status = union.state().play().status().to_string();
    assert!(status.contains("cannot write"), "{status}");
    assert_eq!(
        standing(&mut union),
        Standing::Done,
        "still the Union's turn"
    );
    let session = union.state().play().session().unwrap();
    assert_eq!(session.history().actions().len(), actions);
    assert_eq!(session.players()[0], muster_editor::play::PlayerKind::Human);
    std::fs::remove_dir(&blocker).unwrap();
    play(&mut union, PlayCommand::ByFileSend);
    assert!(matches!(standing(&mut union), Standing::Sent(_)));
    assert!(blocker.is_file());
}
