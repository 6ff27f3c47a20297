//! Saves that outlive change (issue 17, item 2): an old save format is migrated, a save
//! from a newer muster is refused with a clear message, and a save whose module changed
//! replays "as far as it goes" under the new rules, naming the first action they refuse,
//! and goes on from there.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use muster_core::game::save::{SAVE_FORMAT, Save, SaveError};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A format-1 save written by muster 0.1.0 (see `tests/fixtures/saves/README.md`).
fn fixture() -> PathBuf {
    Path::new(ROOT).join("tests/fixtures/saves/format-1-ahd-1861-seed-12.json")
}

fn muster(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(ROOT)
        .args(args)
        .env_remove("MUSTER_LOG")
        .output()
        .expect("run muster")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_format_1_save_is_migrated_and_replays_on_ahd_as_it_is() {
    let save = Save::read(&fixture()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(save.format, SAVE_FORMAT);
    assert_eq!(save.seed, 12);
    assert_eq!(save.actions.len(), 227);
    assert!(
        save.reseeds.is_empty(),
        "format 1 had one seed for the game"
    );
    let (module, mut rules) = muster_test_support::ahd();
    let partial = save
        .replay_as_far_as_it_goes(&module, &mut rules)
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(stopped) = &partial.stopped {
        panic!("AHD no longer accepts this old game: {stopped}");
    }
    assert_eq!(partial.history.actions().len(), 227);
    assert_eq!(partial.differs, None, "the same game, bit for bit");
}

/// Format 2 (written the day before pieces had numbers, a game by file with a reseed
/// per stretch): migrated to format 3, replayed with its stretches' dice, and found to
/// be the same game, its numberless snapshot compared without numbers.
#[test]
fn a_format_2_save_by_file_is_migrated_and_replays_on_ahd_as_it_is() {
    let path = Path::new(ROOT).join("tests/fixtures/saves/format-2-ahd-1861-by-file.json");
    let save = Save::read(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(save.format, SAVE_FORMAT);
    assert!(save.unnumbered, "its snapshot has no numbers");
    assert_eq!(save.actions.len(), 158);
    assert_eq!(save.reseeds.len(), 15);
    let (module, mut rules) = muster_test_support::ahd();
    let partial = save
        .replay_as_far_as_it_goes(&module, &mut rules)
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(stopped) = &partial.stopped {
        panic!("AHD no longer accepts this old game: {stopped}");
    }
    assert_eq!(partial.differs, None, "the same game, bit for bit");
    // The replayed game numbers its pieces; written again, it is a save of today's
    // format that replays exactly, numbers and all.
    let state = partial.history.state().clone();
    assert!(state.numbered > 0);
    let mut again = Save::new(
        &module,
        save.scenario.clone(),
        save.options.clone(),
        save.seed,
        save.actions.clone(),
        state,
    );
    again.end = save.end.clone();
    again.reseeds = save.reseeds.clone();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("again.json");
    again.write(&file).unwrap();
    let read = Save::read(&file).unwrap();
    assert!(!read.unnumbered);
    read.replay(&module, &mut rules)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_save_of_a_newer_format_or_none_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture()).unwrap()).unwrap();
    json["format"] = 99.into();
    json["engine"] = "9.0.0".into();
    let newer = dir.path().join("newer.json");
    std::fs::write(&newer, serde_json::to_vec(&json).unwrap()).unwrap();
    let e = Save::read(&newer).unwrap_err();
    assert!(matches!(e, SaveError::Format { found: 99, .. }), "{e:?}");
    let message = e.to_string();
    assert!(
        message.contains("format 99 (written by muster 9.0.0)")
            && message.contains("open it with a newer muster"),
        "{message}"
    );
    // From the command line: one line, and the file is untouched.
    let before = std::fs::read(&newer).unwrap();
    let out = muster(&["replay", newer.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("open it with a newer muster"));
    assert_eq!(std::fs::read(&newer).unwrap(), before);

    let truncated = dir.path().join("truncated.json");
    let bytes = std::fs::read(fixture()).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let e = Save::read(&truncated).unwrap_err();
    assert!(matches!(e, SaveError::Corrupt { .. }), "{e:?}");
}

/// AHD with every march limited to one box (`max-path="1"`): the fixture's second
/// action, a move of two boxes by rail, is no longer possible.
fn ahd_with_short_marches(dir: &Path) -> PathBuf {
    let ahd = dir.join("ahd");
    muster_test_support::copy_dir(&muster_test_support::ahd_dir(), &ahd);
    let calendar = ahd.join("calendar.xml");
    let xml = std::fs::read_to_string(&calendar).unwrap();
    assert!(xml.contains(r#"max-path="3""#));
    std::fs::write(&calendar, xml.replace(r#"max-path="3""#, r#"max-path="1""#)).unwrap();
    ahd
}

#[test]
fn a_save_replays_as_far_as_it_goes_on_a_changed_module_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let ahd = ahd_with_short_marches(dir.path());
    let (save, module_arg) = (fixture(), ahd.to_str().unwrap().to_string());
    let save_arg = save.to_str().unwrap();

    // The exact replay refuses, and says what to do.
    let out = muster(&["replay", save_arg, "--module", &module_arg]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("has changed since the save was played")
            && err.contains("--as-far-as-it-goes"),
        "{err}"
    );

    // As far as it goes: one action, then the two-box move is refused, by turn and side.
    let resumed = dir.path().join("resumed.json");
    let out = muster(&[
        "replay",
        save_arg,
        "--module",
        &module_arg,
        "--as-far-as-it-goes",
        "--quiet",
        "--save",
        resumed.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("the rules or data changed since the save: base module 'ahd' has changed"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "replayed 1 of 227 actions; action 2 (07/1861, Union: move Militia Infantry #11"
        ) && stdout.contains("no longer applies: not allowed: that path is 2 lines long; this step's paths are at most 1 (max-path)"),
        "{stdout}"
    );
    // The game up to there is a game of the new rules: it replays exactly on them.
    let out = muster(&["replay", resumed.to_str().unwrap(), "--module", &module_arg]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("replayed 1 actions: the final state is identical"));
    // ... and goes on to its end.
    let out = muster(&[
        "play",
        &module_arg,
        "--resume",
        resumed.to_str().unwrap(),
        "--union",
        "random",
        "--confederate",
        "random",
        "--quiet",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("resumed after 1 of 1 saved actions"),
        "{stdout}"
    );
    assert!(stdout.contains("Result:"), "{stdout}");

    // --save never overwrites.
    let out = muster(&[
        "replay",
        save_arg,
        "--module",
        &module_arg,
        "--as-far-as-it-goes",
        "--save",
        resumed.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("exists already"));
}

#[test]
fn resuming_a_changed_game_goes_on_from_the_last_action_that_applies() {
    let dir = tempfile::tempdir().unwrap();
    let ahd = ahd_with_short_marches(dir.path());
    let out = muster(&[
        "play",
        ahd.to_str().unwrap(),
        "--resume",
        fixture().to_str().unwrap(),
        "--union",
        "random",
        "--confederate",
        "random",
        "--quiet",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("replayed 1 of 227 actions; action 2 (07/1861, Union: move")
            && stdout.contains("resumed after 1 of 227 saved actions"),
        "{stdout}"
    );
}
