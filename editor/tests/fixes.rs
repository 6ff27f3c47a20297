//! Regressions of what a new player hit (issue 15 item 5), one test each.

mod common;

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use muster_editor::Command;

/// A scenario-only edit, saved, leaves `map.xml` byte for byte (its comments too), and
/// the file watcher does not take the scenario file the save wrote for a change made
/// elsewhere: undo still takes the edit back.
#[test]
fn saving_a_scenario_only_edit_keeps_map_xml_and_undo() {
    let (_tmp, dir) = common::ahd_copy();
    let map = dir.join("map.xml");
    // A comment inside the root, which a rewrite would drop.
    common::edit_file(&map, "</map>", "<!-- kept -->\n</map>");
    let before = std::fs::read(&map).expect("map.xml");
    let mut h = common::watched(&dir, common::SMALL);
    let i = h.state().document().find_scenario("1861").expect("1861");
    let mut data = h.state().document().scenarios()[i].data.clone();
    data.start = Some("08/1861".into());
    h.state_mut().apply(Command::SetScenario {
        index: i,
        value: data,
        label: "start turn".into(),
    });
    h.run();
    assert!(h.state().document().is_dirty());
    h.state_mut().apply(Command::Save {
        drop_comments: false,
    });
    h.run();
    assert!(!h.state().document().is_dirty(), "{}", h.state().status());
    assert_eq!(
        std::fs::read(&map).expect("map.xml"),
        before,
        "map.xml untouched"
    );
    let scenario =
        std::fs::read_to_string(&h.state().document().scenarios()[i].path).expect("scenario file");
    assert!(scenario.contains("08/1861"), "the scenario was saved");
    // Give the watcher time to report the save.
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(50));
        h.step();
    }
    h.state_mut().apply(Command::Undo);
    h.run();
    let data = &h.state().document().scenarios()[i].data;
    assert_ne!(
        data.start.as_deref(),
        Some("08/1861"),
        "undo took the edit back"
    );
    assert!(h.query_by_label("Reload from disk").is_none());
}

/// One placement the engine rejects (more pieces than the counter mix has) hides only
/// its own counter: the map still shows every other box's counters.
#[test]
fn one_invalid_unit_count_hides_only_its_own_counter() {
    use egui_kittest::kittest::by;
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, common::SMALL);
    h.run();
    let i = h.state().document().find_scenario("1861").expect("1861");
    let mut data = h.state().document().scenarios()[i].data.clone();
    let other = data.sides[0].places[1].at.clone();
    let counters_at = |h: &egui_kittest::Harness<'_, muster_editor::EditorApp>, at: &str| {
        h.query_all(by().label_contains(&format!(" at {at}"))).count()
    };
    let before = counters_at(&h, &other);
    assert!(before > 0, "{other} has counters");
    data.sides[0].places[0].units[0].count = 999;
    h.state_mut().apply(Command::SetScenario {
        index: i,
        value: data,
        label: "count".into(),
    });
    h.run();
    assert!(
        h.state().document().live_scenario(i).is_none(),
        "the engine rejects 999 pieces"
    );
    assert_eq!(counters_at(&h, &other), before, "{other}'s counters still show");
}
