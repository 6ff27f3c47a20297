//! The scenario author's workshop driven through the UI with egui_kittest: a new
//! scenario from scratch, as a copy and from the game being played, each written as a
//! mod of its own that loads; a scenario id of the module replaced only after a yes; an
//! invalid scenario written only after a yes, its box error selecting the box;
//! play-testing and back with the edits intact; Balance… in the background with its
//! results; undo after a save. Snapshots (strict, rendered by lavapipe as in
//! `snapshot.rs`) of the windows: `UPDATE_SNAPSHOTS=1` renews them.

use crate::common;

use common::{box_index, retype, run_until};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{Queryable, by};
use muster_editor::EditorApp;
use muster_editor::command::{Mode, Selection, UiCommand};

fn harness(dir: &std::path::Path) -> Harness<'static, EditorApp> {
    common::harness(dir, common::LARGE)
}

/// Whether the UI shows a text containing `text`.
fn shows(h: &Harness<'_, EditorApp>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

/// A copy of AHD at a path that is the same on every run (snapshots show paths):
/// `<temp>/muster-workshop-tests/<name>/ahd`, made afresh; the folder holding it.
fn fixed_copy(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = std::env::temp_dir()
        .join("muster-workshop-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("ahd");
    common::copy_dir(&common::ahd(), &dir);
    (root, dir)
}

fn open_new_scenario(h: &mut Harness<'_, EditorApp>) {
    h.get_by_label("New scenario…").click();
    h.run();
    assert!(
        shows(h, "Create as a mod"),
        "the New scenario window is open"
    );
}

#[test]
fn a_new_scenario_from_scratch_is_a_mod_of_its_own() {
    let (tmp, dir) = fixed_copy("a_new_scenario_from_scratch_is_a_mod_of_its_own");
    let mut h = harness(&dir);
    h.run();
    open_new_scenario(&mut h);
    retype(&mut h, "Id (and the mod's folder)", "west-1862");
    retype(&mut h, "Name", "The West");
    // Out of the text field, so no caret blinks in the image.
    h.get_by_label("Start from:").click();
    h.run();
    #[cfg(not(muster_no_soft_vulkan))]
    h.snapshot("workshop_new_scenario");
    h.get_by_label("Create as a mod").click();
    h.run();
    let folder = tmp.join("west-1862");
    assert!(folder.join("module.xml").is_file(), "the mod is written");
    let manifest = std::fs::read_to_string(folder.join("module.xml")).unwrap();
    assert!(
        manifest.contains(r#"<extends module="ahd" path="../ahd"/>"#),
        "{manifest}"
    );
    let scenario = std::fs::read_to_string(folder.join("scenarios/west-1862.xml")).unwrap();
    assert!(
        scenario.contains(r#"<scenario id="west-1862" name="The West" start="07/1861""#),
        "{scenario}"
    );
    // The editor switched to the new mod, which loads with its scenario.
    assert!(run_until(&mut h, |a| a.document().dir() == folder));
    let module = h.state().document().validation().module.clone();
    let module = module.expect("the new mod loads");
    assert!(module.scenario("west-1862").is_some());
    // The base was not touched.
    assert!(
        !std::fs::read_to_string(dir.join("module.xml"))
            .unwrap()
            .contains("west")
    );
}

#[test]
fn a_copy_over_a_scenario_of_the_module_asks_first() {
    let (tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    open_new_scenario(&mut h);
    h.get_by_role_and_label(Role::RadioButton, "A copy of")
        .click();
    h.run();
    retype(&mut h, "Id (and the mod's folder)", "1862");
    h.get_by_label("Create as a mod").click();
    h.run();
    assert!(shows(&h, "has a scenario '1862' already"), "it asks");
    assert!(
        !tmp.path().join("1862").exists(),
        "nothing written before the answer"
    );
    h.get_by_label("Replace it").click();
    h.run();
    h.run();
    let written = tmp.path().join("1862/scenarios/1862.xml");
    assert!(written.is_file(), "written after the yes");
    // A copy of the shown scenario (1861), renamed.
    let text = std::fs::read_to_string(written).unwrap();
    assert!(
        text.contains(r#"id="1862""#) && text.contains(r#"start="07/1861""#),
        "{text}"
    );
}

#[test]
fn an_invalid_scenario_is_written_only_after_a_yes_and_its_errors_select_boxes() {
    let (tmp, dir) =
        fixed_copy("an_invalid_scenario_is_written_only_after_a_yes_and_its_errors_select_boxes");
    let mut h = harness(&dir);
    h.run();
    // The shown scenario edited into one the engine rejects: a unit type that does not
    // exist, in Richmond.
    let i = h.state().document().find_scenario("1861").expect("1861");
    let mut value = h.state().document().scenarios()[i].data.clone();
    let richmond = h.state().document().map().find_box("Richmond").unwrap();
    value.add_placed("confederate", &|n| n == "Richmond", "Richmond", "Zz", 1);
    h.state_mut().apply(UiCommand::SetScenario {
        index: i,
        value,
        label: "bad".into(),
    });
    h.run();
    open_new_scenario(&mut h);
    h.get_by_role_and_label(Role::RadioButton, "A copy of")
        .click();
    h.run();
    retype(&mut h, "Id (and the mod's folder)", "bad-copy");
    h.get_by_label("Create as a mod").click();
    h.run();
    assert!(shows(&h, "The engine rejects this scenario"), "it asks");
    assert!(!tmp.join("bad-copy").exists());
    #[cfg(not(muster_no_soft_vulkan))]
    h.snapshot("workshop_invalid_scenario");
    // The error on Richmond's line selects Richmond.
    h.query_all(
        by().label_contains("unknown unit type 'Zz'")
            .role(Role::Link),
    )
    .next()
    .expect("the error is listed as a link")
    .click();
    h.run();
    assert_eq!(h.state().selection(), Some(Selection::Box(richmond)));
    h.get_by_label("Create anyway").click();
    h.run();
    h.run();
    let text = std::fs::read_to_string(tmp.join("bad-copy/scenarios/bad-copy.xml"))
        .expect("written after the yes");
    assert!(text.contains("Zz"), "{text}");
}

#[test]
fn a_new_scenario_from_the_game_being_played() {
    let (tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    h.get_by_label("Play-test").click();
    h.run();
    assert_eq!(h.state().mode(), Mode::Play);
    let state = common::game_state(&h);
    // The play screen's "Save as scenario…" opens the window on the game.
    h.get_by_label("Save as scenario…").click();
    h.run();
    assert_eq!(h.state().mode(), Mode::Edit);
    assert!(
        shows(&h, "Create as a mod"),
        "the New scenario window is open"
    );
    retype(&mut h, "Id (and the mod's folder)", "from-play");
    h.get_by_label("Create as a mod").click();
    h.run();
    let folder = tmp.path().join("from-play");
    let text = std::fs::read_to_string(folder.join("scenarios/from-play.xml"))
        .expect("the scenario is written");
    assert!(text.contains(r#"start="07/1861""#), "{text}");
    // The position is the game's, piece for piece.
    let module = h.state().document().validation().module.clone().unwrap();
    let sc = muster_core::load_scenario_str(&module, "from-play.xml", &text).expect("loads");
    let set_up = muster_core::game::GameState::new(
        &module,
        &sc,
        Vec::new(),
        muster_core::game::Dice::seeded(1),
    )
    .unwrap();
    let summary = muster_core::scenario_from::setup_summary;
    assert_eq!(summary(&set_up).pieces, summary(&state).pieces);
}

#[test]
fn play_test_and_back_with_the_edits_intact() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let i = h.state().document().find_scenario("1861").expect("1861");
    let mut value = h.state().document().scenarios()[i].data.clone();
    let dayton = box_index(&h, "Dayton");
    // A Veteran: 1861 has them in stock (its Militia are all placed, pooled or set aside).
    value.add_placed("union", &|n| n == "Dayton", "Dayton", "Vi", 1);
    h.state_mut().apply(UiCommand::SetScenario {
        index: i,
        value: value.clone(),
        label: "place Vi on Dayton".into(),
    });
    assert!(
        h.state().document().live_scenario(i).is_some(),
        "{:?}",
        h.state().document().validation().diagnostics
    );
    h.run();
    h.get_by_label("Play-test").click();
    h.run();
    assert_eq!(h.state().mode(), Mode::Play);
    let state = common::game_state(&h);
    let at_dayton = state
        .units_at(muster_core::ids::BoxId::from_index(dayton).unwrap())
        .count();
    assert!(at_dayton >= 1, "the game plays the edited, unsaved setup");
    h.get_by_label("Edit").click();
    h.run();
    assert_eq!(h.state().mode(), Mode::Edit);
    let doc = h.state().document();
    assert!(doc.is_dirty(), "the edits are still unsaved edits");
    assert_eq!(doc.scenarios()[i].data, value);
    assert_eq!(doc.undo_label(), Some("place Vi on Dayton"));
}

#[test]
fn saving_an_invalid_scenario_asks_and_its_errors_select_boxes() {
    let (_tmp, dir) = fixed_copy("saving_an_invalid_scenario_asks_and_its_errors_select_boxes");
    let mut h = harness(&dir);
    h.run();
    let i = h.state().document().find_scenario("1861").expect("1861");
    let path = h.state().document().scenarios()[i].path.clone();
    let before = std::fs::read_to_string(&path).unwrap();
    let mut value = h.state().document().scenarios()[i].data.clone();
    let richmond = box_index(&h, "Richmond");
    value.add_placed("confederate", &|n| n == "Richmond", "Richmond", "Zz", 1);
    h.state_mut().apply(UiCommand::SetScenario {
        index: i,
        value,
        label: "bad".into(),
    });
    h.run();
    h.get_by_label("Save").click();
    h.run();
    assert!(shows(&h, "Save a scenario the engine rejects?"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        before,
        "nothing written yet"
    );
    #[cfg(not(muster_no_soft_vulkan))]
    h.snapshot("workshop_save_invalid");
    h.query_all(
        by().label_contains("unknown unit type 'Zz'")
            .role(Role::Link),
    )
    .next()
    .expect("the error is listed as a link")
    .click();
    h.run();
    assert_eq!(h.state().selection(), Some(Selection::Box(richmond)));
    h.get_by_label("Save anyway").click();
    h.run();
    assert!(!h.state().document().is_dirty());
    assert!(
        std::fs::read_to_string(&path).unwrap().contains("Zz"),
        "written after the yes"
    );
}

#[test]
fn undo_survives_a_save() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let i = h.state().document().find_scenario("1861").expect("1861");
    let before = h.state().document().scenarios()[i].data.clone();
    let mut value = before.clone();
    value.add_placed("union", &|n| n == "Dayton", "Dayton", "Mi", 1);
    h.state_mut().apply(UiCommand::SetScenario {
        index: i,
        value: value.clone(),
        label: "place".into(),
    });
    h.state_mut().apply(UiCommand::Save {
        drop_comments: true,
    });
    h.run();
    assert!(!h.state().document().is_dirty());
    h.state_mut().apply(UiCommand::Undo);
    h.run();
    assert_eq!(h.state().document().scenarios()[i].data, before);
    assert!(
        h.state().document().is_dirty(),
        "the undone edit is not on disk"
    );
    h.state_mut().apply(UiCommand::Redo);
    assert_eq!(h.state().document().scenarios()[i].data, value);
    assert!(!h.state().document().is_dirty(), "back at what was saved");
}

/// Picks `choice` in the combo box labelled `label`.
fn choose(h: &mut Harness<'_, EditorApp>, label: &str, choice: &str) {
    h.get_by_role_and_label(Role::ComboBox, label).click();
    h.run();
    // The open list's entry is the last node so named.
    let n = h.query_all_by_label(choice).count();
    assert!(n > 0, "'{choice}' listed");
    h.query_all_by_label(choice)
        .nth(n - 1)
        .expect("option")
        .click();
    h.run();
}

#[test]
fn balance_runs_in_the_background_and_shows_rates_reasons_and_lengths() {
    let (_tmp, dir) =
        fixed_copy("balance_runs_in_the_background_and_shows_rates_reasons_and_lengths");
    let mut h = harness(&dir);
    h.run();
    h.get_by_label("Balance…").click();
    h.run();
    choose(&mut h, "Union", "random");
    choose(&mut h, "Confederacy", "random");
    choose(&mut h, "Play until", "09/1861");
    h.get_by_label("Run").click();
    let start = std::time::Instant::now();
    while !shows(&h, "Union wins") && start.elapsed() < std::time::Duration::from_secs(120) {
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    h.run();
    #[cfg(not(muster_no_soft_vulkan))]
    h.snapshot("workshop_balance");
    assert!(shows(&h, "20 games"), "every game played");
    assert!(
        shows(&h, "Union wins") && shows(&h, "95%:"),
        "rates with intervals"
    );
    assert!(shows(&h, "Victory conditions reached"));
    assert!(shows(&h, "Game lengths:"), "the lengths");
}

#[test]
fn a_balance_run_is_cancelled_after_the_games_under_way() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    h.get_by_label("Balance…").click();
    h.run();
    choose(&mut h, "Union", "random");
    choose(&mut h, "Confederacy", "random");
    h.get_by_label("Run").click();
    h.run();
    h.get_by_label("Cancel").click();
    let start = std::time::Instant::now();
    while !shows(&h, "cancelled") && start.elapsed() < std::time::Duration::from_secs(300) {
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    h.run();
    assert!(shows(&h, "(cancelled: the games played so far)"));
    assert!(!shows(&h, "20 games"), "not every game was played");
}
