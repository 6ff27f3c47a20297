//! `muster scenario from-save` and its kernel (`muster_core::scenario_from`): a saved
//! game's position at a turn's start becomes a scenario that starts that same position;
//! what the format cannot hold is named; a position mid-battle is refused with the step
//! to finish. And `muster new-mod --scenario` makes the scenario a mod of its own that
//! `muster check`, `muster test` and `muster play` accept.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use muster_core::game::dice::Dice;
use muster_core::game::flow::{apply, legal_actions, start};
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::state::GameState;
use muster_core::scenario_from::{Naming, NotAScenario, position_at, scenario_from, setup_summary};
use muster_core::{Module, load_scenario_str};
use muster_test_support::{ahd, copy_dir};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn muster(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(ROOT)
        .args(args)
        .output()
        .expect("run muster")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A random game of AHD's 1862 scenario to the end of 07/1862, saved by `muster play`.
fn played_save(dir: &Path) -> PathBuf {
    let save = dir.join("game.json");
    let out = muster(&[
        "play",
        "mods/ahd",
        "--scenario",
        "1862",
        "--union",
        "random",
        "--confederate",
        "random",
        "--seed",
        "7",
        "--end",
        "07/1862",
        "--quiet",
        "--save",
        s(&save),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    save
}

fn naming(id: &str) -> Naming<'_> {
    Naming {
        id,
        name: "From a save",
        description: None,
    }
}

/// The first position the save waits in during `label` (after the turn's start events).
fn first_decision_of(m: &Module, save: &Save, label: &str) -> GameState {
    let (_, mut rules) = ahd();
    let turn = m.calendar.find(label).expect("a turn");
    let mut found = None;
    save.replay_each(m, &mut rules, &mut |_, step| {
        if let muster_core::game::save::Replayed::Action { before, .. } = step
            && before.turn == turn
            && found.is_none()
        {
            found = Some(before.clone());
        }
    })
    .expect("the save replays");
    found.expect("the save plays that turn")
}

#[test]
fn a_scenario_from_a_save_starts_the_saved_position() {
    let tmp = tempfile::tempdir().unwrap();
    let save = Save::read(&played_save(tmp.path())).expect("the save reads");
    let (m, mut rules) = ahd();
    // 04/1862 has a draft at its start (7.2): taken before it, the scenario drafts once.
    for label in ["04/1862", "05/1862", "06/1862", "07/1862"] {
        let position = position_at(&m, &mut rules, &save, Some(label)).expect("a position");
        assert_eq!(m.calendar.turn(position.turn).label, label);
        let made = scenario_from(&m, &position, &naming("west")).expect("a scenario");
        let sc = load_scenario_str(&m, "made.xml", &made.xml)
            .unwrap_or_else(|e| panic!("the scenario made does not load:\n{e}\n{}", made.xml));
        // Set up, it is the position as the turn began...
        let set_up = GameState::new(&m, &sc, Vec::new(), Dice::seeded(1)).expect("it sets up");
        assert_eq!(
            setup_summary(&set_up),
            setup_summary(&position),
            "{label}:\n{}",
            made.xml
        );
        // ...and started, the rules' start of the turn (drafts, 7.2; entrenchment in
        // permanent entrenchments, 4.3) gives the position the saved game had after it.
        let (started, _) =
            start(&m, &mut rules, &sc, Vec::new(), Dice::seeded(1)).expect("the scenario starts");
        let saved = first_decision_of(&m, &save, label);
        assert_eq!(setup_summary(&started), setup_summary(&saved), "{label}");
    }
}

#[test]
fn what_the_format_cannot_hold_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let save = Save::read(&played_save(tmp.path())).expect("the save reads");
    let (m, mut rules) = ahd();
    let mut position = position_at(&m, &mut rules, &save, Some("06/1862")).expect("a position");
    let on_board = position
        .units
        .iter()
        .position(|u| {
            matches!(u.place, muster_core::game::state::Place::Board(_))
                && m.units.get(u.kind).steps > 1
        })
        .expect("a piece of two steps on the board");
    position.units[on_board].hits = 1;
    position.step = 1;
    position.vars.insert("!test-counter".into(), 3);
    let made = scenario_from(&m, &position, &naming("west")).expect("a scenario");
    let all = made.warnings.join("\n");
    for want in [
        "1 piece(s) have lost steps",
        "the format has no start step yet",
        "!test-counter=3",
    ] {
        assert!(all.contains(want), "no {want:?} in:\n{all}");
    }
    // Each is written into the file too, for whoever opens it later.
    assert!(
        made.xml.contains("Not held by the scenario"),
        "{}",
        made.xml
    );
}

/// Plays random legal actions of AHD's 1862 until a battle is under way.
fn mid_battle() -> (Module, Save) {
    let (m, mut rules) = ahd();
    let sc = m.scenario("1862").expect("1862").clone();
    let (mut state, _) = start(&m, &mut rules, &sc, Vec::new(), Dice::seeded(3)).expect("start");
    let mut actions = Vec::new();
    let mut k: usize = 11;
    for _ in 0..5000 {
        if state.combat.as_ref().is_some_and(|c| c.battle.is_some()) {
            let save = Save::new(
                &m,
                SavedScenario {
                    id: "1862".into(),
                    xml: None,
                },
                Vec::new(),
                3,
                actions,
                state,
            );
            return (m, save);
        }
        let legal = legal_actions(&m, &mut rules, &state).expect("legal actions");
        k = k
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let a = legal[(k >> 33) % legal.len()].clone();
        let (next, _) = apply(&m, &mut rules, &state, &a).expect("a legal action applies");
        actions.push(a);
        state = next;
    }
    panic!("no battle in 5000 random actions");
}

#[test]
fn a_position_mid_battle_names_the_step_to_finish() {
    let (m, save) = mid_battle();
    let (_, mut rules) = ahd();
    let position = position_at(&m, &mut rules, &save, None).expect("the last position");
    let err = scenario_from(&m, &position, &naming("west")).unwrap_err();
    assert!(matches!(err, NotAScenario::Battle { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("the game is in a battle in")
            && msg.contains("finish the Combat step's battles first"),
        "{msg}"
    );
    // At the command line, without --turn.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("battle.json");
    save.write(&file).expect("write");
    let out = muster(&["scenario", "from-save", s(&file)]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("finish the Combat step's battles first"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn turns_outside_the_game_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = played_save(tmp.path());
    let out = muster(&["scenario", "from-save", s(&file), "--turn", "09/1863"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("the save never reaches 09/1863: it starts at 04/1862"),
        "{}",
        text(&out.stderr)
    );
    let out = muster(&["scenario", "from-save", s(&file), "--turn", "13/1862"]);
    assert!(
        text(&out.stderr).contains("'13/1862' is not a turn"),
        "{}",
        text(&out.stderr)
    );
}

/// The whole path at the command line: a save → a scenario file → a scenario's mod,
/// which `check`, `test` and `play` take like any other.
#[test]
fn from_save_to_a_mod_that_plays() {
    let tmp = tempfile::tempdir().unwrap();
    let file = played_save(tmp.path());
    let scenario = tmp.path().join("west.xml");
    let out = muster(&[
        "scenario",
        "from-save",
        s(&file),
        "--turn",
        "06/1862",
        "--out",
        s(&scenario),
        "--id",
        "west",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("wrote scenario 'west' (06/1862)"),
        "{}",
        text(&out.stdout)
    );
    let xml = std::fs::read_to_string(&scenario).unwrap();
    assert!(
        xml.contains(r#"<scenario id="west""#) && xml.contains(r#"start="06/1862""#),
        "{xml}"
    );
    // Never written over.
    let again = muster(&[
        "scenario",
        "from-save",
        s(&file),
        "--turn",
        "06/1862",
        "--out",
        s(&scenario),
    ]);
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("exists already"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(std::fs::read_to_string(&scenario).unwrap(), xml);

    // Its own mod, beside a copy of AHD.
    let mods = tmp.path().join("mods");
    copy_dir(&Path::new(ROOT).join("mods/ahd"), &mods.join("ahd"));
    let out = muster(&[
        "new-mod",
        "ahd-west-1862",
        "--extends",
        "ahd",
        "--dir",
        s(&mods),
        "--scenario",
        s(&scenario),
        "--title",
        "The West, June 1862",
        "--description",
        "Grant and Halleck after Shiloh.",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let folder = mods.join("ahd-west-1862");
    let manifest = std::fs::read_to_string(folder.join("module.xml")).unwrap();
    for want in [
        r#"<extends module="ahd" path="../ahd"/>"#,
        r#"<requires module="ahd" version="^0.1"/>"#,
        r#"<include file="scenarios/ahd-west-1862.xml"/>"#,
        r#"<rules entry="rules/scenario.luau"/>"#,
        "<description>Grant and Halleck after Shiloh.</description>",
    ] {
        assert!(manifest.contains(want), "no {want} in\n{manifest}");
    }
    for f in [
        "NOTES.md",
        "briefings/union.md",
        "briefings/confederate.md",
        "README.md",
    ] {
        assert!(folder.join(f).is_file(), "{f} missing");
    }
    let scen = std::fs::read_to_string(folder.join("scenarios/ahd-west-1862.xml")).unwrap();
    assert!(
        scen.contains(r#"<scenario id="ahd-west-1862" name="The West, June 1862""#),
        "{scen}"
    );
    let out = muster(&["check", s(&folder)]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let out = muster(&["test", s(&folder)]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let out = muster(&[
        "play",
        s(&folder),
        "--scenario",
        "ahd-west-1862",
        "--union",
        "random",
        "--confederate",
        "random",
        "--seed",
        "2",
        "--end",
        "07/1862",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// A copy of a base scenario as a mod; a name the base's scenarios use is refused.
#[test]
fn a_copy_of_a_base_scenario_as_a_mod() {
    let tmp = tempfile::tempdir().unwrap();
    let mods = tmp.path().join("mods");
    copy_dir(&Path::new(ROOT).join("mods/ahd"), &mods.join("ahd"));
    let out = muster(&[
        "new-mod",
        "my-1863",
        "--extends",
        "ahd",
        "--dir",
        s(&mods),
        "--scenario",
        "1863",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let folder = mods.join("my-1863");
    let out = muster(&["check", s(&folder)]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("my-1863"),
        "{}",
        text(&out.stdout)
    );
    let out = muster(&[
        "new-mod",
        "x",
        "--extends",
        "ahd",
        "--dir",
        s(&mods),
        "--scenario",
        "1899",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no scenario file '1899'"),
        "{}",
        text(&out.stderr)
    );
}
