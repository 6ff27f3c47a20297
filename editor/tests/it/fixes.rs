//! Regressions of what a new player hit (issue 15 item 5), one test each.

use crate::common;

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use muster_editor::UiCommand;

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
    h.state_mut().apply(UiCommand::SetScenario {
        index: i,
        value: data,
        label: "start turn".into(),
    });
    h.run();
    assert!(h.state().document().is_dirty());
    h.state_mut().apply(UiCommand::Save {
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
    h.state_mut().apply(UiCommand::Undo);
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
        h.query_all(by().label_contains(&format!(" at {at}")))
            .count()
    };
    let before = counters_at(&h, &other);
    assert!(before > 0, "{other} has counters");
    data.sides[0].places[0].units[0].count = 999;
    h.state_mut().apply(UiCommand::SetScenario {
        index: i,
        value: data,
        label: "count".into(),
    });
    h.run();
    assert!(
        h.state().document().live_scenario(i).is_none(),
        "the engine rejects 999 pieces"
    );
    assert_eq!(
        counters_at(&h, &other),
        before,
        "{other}'s counters still show"
    );
}

/// A player's list in the New game dialog opens above the dialog, also after the
/// dialog was scrolled (and so raised): the list is the top foreground layer.
#[test]
fn a_dialogs_dropdown_opens_above_the_dialog_after_scrolling() {
    use egui::accesskit::Role;
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, egui::vec2(1000.0, 600.0));
    h.run();
    h.get_by_label("Play").click();
    h.run();
    let combo = h.get_by_role_and_label(Role::ComboBox, "Confederacy");
    let at = combo.rect().center();
    // Scroll the dialog (its optional rules list), which raises the dialog's layer.
    let rules = h.get_by_label("Optional rules").rect().center() + egui::vec2(0.0, 40.0);
    h.hover_at(rules);
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, -3.0),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
    });
    h.run();
    h.hover_at(at);
    h.get_by_role_and_label(Role::ComboBox, "Confederacy")
        .click();
    h.run();
    // Scroll the dialog again with the list open.
    h.hover_at(rules);
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, -3.0),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
    });
    h.run();
    let strong = h.get_by_label("Strong").rect().center();
    let top = h
        .ctx
        .memory(|m| m.areas().top_layer_id(egui::Order::Foreground))
        .expect("a foreground layer");
    assert_ne!(
        top.id,
        egui::Id::unique("new-game"),
        "the dialog is not on top"
    );
    let rect = h
        .ctx
        .memory(|m| m.area_rect(top.id))
        .expect("the top layer's area");
    assert!(
        rect.contains(strong),
        "the open list ({rect:?}) is the top layer"
    );
}
