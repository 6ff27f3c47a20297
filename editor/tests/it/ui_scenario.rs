//! Multi-select, line properties and scenario editing driven through the UI with
//! egui_kittest: widgets found by accessible label, clicked and dragged.

use crate::common;

use common::{box_index, drag};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_editor::EditorApp;
use muster_editor::command::{Selection, UiCommand};

fn harness(dir: &std::path::Path) -> Harness<'static, EditorApp> {
    common::harness(dir, common::LARGE)
}

fn position(h: &Harness<'_, EditorApp>, i: usize) -> (i32, i32) {
    let b = &h.state().document().map().boxes[i];
    (b.x, b.y)
}

#[test]
fn shift_click_selects_several_boxes_that_move_and_delete_as_one_step() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let (r, p) = (box_index(&h, "Richmond"), box_index(&h, "Petersburg"));
    let (r0, p0) = (position(&h, r), position(&h, p));

    h.get_by_label("Richmond").click();
    h.run();
    h.get_by_label("Petersburg")
        .click_modifiers(Modifiers::SHIFT);
    h.run();
    assert_eq!(h.state().selected_boxes(), vec![r, p]);

    // Dragging one selected box moves both by the same amount.
    let start = h.get_by_label("Richmond").rect().center();
    drag(&mut h, start, start + egui::vec2(60.0, 40.0));
    let (r1, p1) = (position(&h, r), position(&h, p));
    assert!(r1.0 > r0.0 + 20 && r1.1 > r0.1 + 10, "{r0:?} -> {r1:?}");
    assert_eq!(
        (r1.0 - r0.0, r1.1 - r0.1),
        (p1.0 - p0.0, p1.1 - p0.1),
        "both moved alike"
    );
    assert_eq!(h.state().document().undo_label(), Some("move 2 boxes"));
    assert_eq!(h.state().selected_boxes(), vec![r, p], "still selected");

    // One undo puts both back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!((position(&h, r), position(&h, p)), (r0, p0));

    // Ctrl-click takes a box out of the selection again, and puts it back.
    h.get_by_label("Petersburg")
        .click_modifiers(Modifiers::COMMAND);
    h.run();
    assert_eq!(h.state().selected_boxes(), vec![r]);
    h.get_by_label("Petersburg")
        .click_modifiers(Modifiers::COMMAND);
    h.run();

    // Delete removes the whole selection (and its lines) in one undo step.
    let (boxes, lines) = {
        let m = h.state().document().map();
        (m.boxes.len(), m.lines.len())
    };
    h.key_press(Key::Delete);
    h.run();
    let m = h.state().document().map();
    assert_eq!(m.boxes.len(), boxes - 2);
    assert!(m.find_box("Richmond").is_none() && m.find_box("Petersburg").is_none());
    assert!(m.lines.len() < lines);
    assert_eq!(h.state().document().undo_label(), Some("delete 2 boxes"));
    h.get_by_label("Undo").click();
    h.run();
    let m = h.state().document().map();
    assert_eq!((m.boxes.len(), m.lines.len()), (boxes, lines));
    assert_eq!(m.find_box("Richmond"), Some(r));
}

#[test]
fn a_shift_drag_on_empty_map_selects_the_boxes_inside() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let (r, p) = (box_index(&h, "Richmond"), box_index(&h, "Petersburg"));
    let a = h.get_by_label("Richmond").rect();
    let b = h.get_by_label("Petersburg").rect();
    // From beyond the two boxes' outer corners, so the band holds both centres.
    let (w, hgt) = (a.width(), a.height());
    let start = egui::pos2(a.left().min(b.left()) - w, a.top().min(b.top()) - hgt);
    let end = egui::pos2(
        a.right().max(b.right()) + 4.0,
        a.bottom().max(b.bottom()) + 4.0,
    );
    h.event(egui::Event::ModifiersChanged(Modifiers::SHIFT));
    let before: Vec<_> = {
        let m = h.state().document().map();
        m.boxes.iter().map(|b| (b.x, b.y)).collect()
    };
    drag(&mut h, start, end);
    h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    h.run();
    let selected = h.state().selected_boxes();
    assert!(
        selected.contains(&r) && selected.contains(&p),
        "{selected:?}"
    );
    // The band neither panned nor moved anything.
    let m = h.state().document().map();
    let after: Vec<_> = m.boxes.iter().map(|b| (b.x, b.y)).collect();
    assert_eq!(before, after);
    assert!(!h.state().document().is_dirty());
}

#[test]
fn swap_a_rivers_direction_and_set_its_water_border_in_the_panel() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let map = h.state().document().map();
    let flowing: Vec<String> = map
        .kinds
        .iter()
        .filter(|k| k.flows)
        .map(|k| k.id.clone())
        .collect();
    let li = map
        .lines
        .iter()
        .position(|l| flowing.contains(&l.kind) && l.water_border.is_none())
        .expect("a river line");
    let line = map.lines[li].clone();
    let down = line.downstream.clone().expect("rivers flow");
    h.state_mut()
        .apply(UiCommand::Select(Some(Selection::Line(li))));
    h.run();

    h.get_by_label("Swap direction").click();
    h.run();
    let now = h.state().document().map().lines[li].clone();
    let other = if down.eq_ignore_ascii_case(&line.a) {
        &line.b
    } else {
        &line.a
    };
    assert_eq!(now.downstream.as_deref(), Some(other.as_str()));
    assert!(
        h.state()
            .document()
            .undo_label()
            .is_some_and(|l| l.starts_with("reverse")),
        "{:?}",
        h.state().document().undo_label()
    );

    h.get_by_label(&format!("Water border at {}", line.b))
        .click();
    h.run();
    assert_eq!(
        h.state().document().map().lines[li].water_border.as_deref(),
        Some(line.b.as_str())
    );
    assert!(h.state().document().validation().is_ok());

    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().document().map().lines[li], line);
}

#[test]
fn a_unit_placed_in_the_panel_shows_on_the_map_and_its_army_maximum_updates() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    // The toolbar shows the 1861 scenario; Richmond starts empty.
    assert!(h.query_by_label("1 Vi (Union) at Richmond").is_none());
    h.get_by_label("Richmond").click();
    h.run();
    assert!(h.query_by_label("Setup of Richmond").is_some());

    // Union (the first side) Veteran Infantry (Militia Infantry are all in use).
    h.get_by_label("Unit type").click();
    h.run();
    h.get_by_label("Vi Veteran Infantry").click();
    h.run();
    h.get_by_label("Place unit").click();
    h.run();
    assert_eq!(
        h.state().document().undo_label(),
        Some("place Vi on Richmond")
    );
    let counter = h.get_by_label("1 Vi (Union) at Richmond");
    assert!(counter.rect().width() > 1.0, "the counter is drawn");

    // Union units take Richmond, worth 3 to the Confederacy: the engine's computed
    // maximum drops below the stated 29, which the validator reports.
    assert!(!h.state().document().validation().is_ok());
    h.get_by_label("State 26 for Confederacy").click();
    h.run();
    assert!(
        h.state().document().validation().is_ok(),
        "{:?}",
        h.state().document().validation().diagnostics
    );

    // Entrench them; the counter says so.
    h.get_by_label("Union entrenched").click();
    h.run();
    assert!(
        h.query_by_label("1 Vi (Union), entrenched at Richmond")
            .is_some()
    );

    // Undo, step by step, back to an empty Richmond.
    for _ in 0..3 {
        h.get_by_label("Undo").click();
        h.run();
    }
    assert!(h.query_by_label("1 Vi (Union) at Richmond").is_none());
    assert!(!h.state().document().is_dirty());
}

#[test]
fn control_marker_and_start_turn_are_picked_from_lists() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let i = h.state().document().find_scenario("1861").unwrap();
    h.get_by_label("Sedalia").click();
    h.run();
    h.get_by_label("Control marker").click();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Confederacy")
        .click();
    h.run();
    let data = &h.state().document().scenarios()[i].data;
    assert_eq!(
        data.control_marker(&|n: &str| n.eq_ignore_ascii_case("Sedalia")),
        Some("confederate")
    );

    h.get_by_label("Start turn").click();
    h.run();
    h.get_by_label("08/1861").click();
    h.run();
    h.get_by_label("Last turn").click();
    h.run();
    h.get_by_label("06/1862").click();
    h.run();
    let data = &h.state().document().scenarios()[i].data;
    assert_eq!(data.start.as_deref(), Some("08/1861"));
    assert_eq!(data.end.as_deref(), Some("06/1862"));
    assert!(h.state().document().validation().is_ok());
}

#[test]
fn a_setup_the_engine_rejects_is_reported_in_the_panel() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    h.get_by_label("Richmond").click();
    h.run();
    // A 25th Union Militia Infantry: more than the counter mix has.
    h.get_by_label("Place unit").click();
    h.run();
    assert!(
        h.state()
            .document()
            .validation()
            .errors()
            .any(|d| d.message.contains("counter mix has 24"))
    );
    assert!(h.query_by_label("1 Mi (Union) at Richmond").is_none());
    let warning = "The engine rejects this setup (see the errors below); the map shows no \
                   units until it is fixed.";
    assert!(h.query_by_label(warning).is_some());
    h.get_by_label("Take unit away").click();
    h.run();
    assert!(h.query_by_label(warning).is_none());
    assert!(h.state().document().validation().is_ok());
}
