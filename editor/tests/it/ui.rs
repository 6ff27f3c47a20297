//! The editor driven like a user would, through egui_kittest: widgets are found by their
//! accessible labels, clicked, typed into and dragged.

use crate::common;

use common::{box_index, screen_of};

use egui::{Key, Modifiers, Role};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_editor::command::Selection;
use muster_editor::{Document, EditorApp};

fn harness(dir: &std::path::Path) -> Harness<'static, EditorApp> {
    common::harness(dir, common::SMALL)
}

/// Replaces the text of the text field labelled `label` and presses Enter.
fn retype(h: &mut Harness<'_, EditorApp>, label: &str, text: &str) {
    common::retype(h, label, text);
    h.key_press(Key::Enter);
    h.run();
}

#[test]
fn select_richmond_edit_it_undo_and_redo() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let richmond = box_index(&h, "Richmond");

    h.get_by_label("Richmond").click();
    h.run();
    assert_eq!(h.state().selection(), Some(Selection::Box(richmond)));
    assert!(!h.state().document().map().boxes[richmond].has_tag("port"));

    // A checkbox edit is one command.
    h.get_by_label("Port").click();
    h.run();
    assert!(h.state().document().map().boxes[richmond].has_tag("port"));
    assert_eq!(h.state().document().undo_label(), Some("edit Richmond"));

    // A text edit is committed when the field is left.
    retype(&mut h, "State", "Virginia");
    assert_eq!(
        h.state().document().map().boxes[richmond].state.as_deref(),
        Some("Virginia")
    );

    // Ctrl+Z undoes the state, the Undo button the port.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(
        h.state().document().map().boxes[richmond].state.as_deref(),
        Some("VA")
    );
    h.get_by_label("Undo").click();
    h.run();
    assert!(!h.state().document().map().boxes[richmond].has_tag("port"));
    assert!(!h.state().document().is_dirty());

    // Redo twice (button, then Ctrl+Shift+Z) brings both back.
    h.get_by_label("Redo").click();
    h.run();
    assert!(h.state().document().map().boxes[richmond].has_tag("port"));
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    assert_eq!(
        h.state().document().map().boxes[richmond].state.as_deref(),
        Some("Virginia")
    );
    // The panel shows the document's value after undo/redo.
    assert_eq!(
        h.get_by_role_and_label(Role::TextInput, "State")
            .value()
            .as_deref(),
        Some("Virginia")
    );
}

#[test]
fn dragging_a_box_moves_it_as_one_undoable_step() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let i = box_index(&h, "Richmond");
    let (x0, y0) = {
        let b = &h.state().document().map().boxes[i];
        (b.x, b.y)
    };
    let start = h.get_by_label("Richmond").rect().center();
    let end = start + egui::vec2(60.0, 40.0);
    common::drag(&mut h, start, end);
    let b = &h.state().document().map().boxes[i];
    assert!(
        b.x > x0 + 20 && b.y > y0 + 10,
        "moved to {},{} from {x0},{y0}",
        b.x,
        b.y
    );
    assert_eq!(h.state().document().undo_label(), Some("move Richmond"));
    // The box's widget followed it: it is drawn where its new map position is.
    let (bx, by) = (b.x as f32, b.y as f32);
    let drawn = h.get_by_label("Richmond").rect().center();
    let expected = screen_of(&h, egui::pos2(bx, by), ["Washington", "Raleigh"]);
    assert!(
        (drawn - expected).length() < 2.0,
        "{drawn:?} vs {expected:?}"
    );
    h.get_by_label("Undo").click();
    h.run();
    let b = &h.state().document().map().boxes[i];
    assert_eq!((b.x, b.y), (x0, y0));
}

#[test]
fn add_a_road_then_save_and_reload() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let lines = h.state().document().map().lines.len();
    h.get_by_label("Add road").click();
    h.run();
    h.get_by_label("Richmond").click();
    h.run();
    h.get_by_label("Raleigh").click();
    h.run();
    let map = h.state().document().map();
    assert_eq!(map.lines.len(), lines + 1);
    let l = map.lines.last().unwrap();
    assert_eq!(
        (l.a.as_str(), l.b.as_str(), l.kind.as_str()),
        ("Richmond", "Raleigh", "road")
    );
    assert!(h.state().document().validation().is_ok());

    // map.xml has comments inside <map>: they are kept, so Save asks nothing.
    let before = std::fs::read_to_string(dir.join("map.xml")).unwrap();
    h.get_by_label("Save").click();
    h.run();
    assert!(h.query_by_label("Save anyway").is_none());
    assert!(!h.state().document().is_dirty());
    let after = std::fs::read_to_string(dir.join("map.xml")).unwrap();
    assert_eq!(
        after.matches("<!--").count(),
        before.matches("<!--").count(),
        "every comment kept"
    );

    let module = muster_core::load_module(&dir).expect("saved module loads");
    let (r, g) = (
        module.board.find("Richmond").unwrap(),
        module.board.find("Raleigh").unwrap(),
    );
    let road = module.board.find_kind("road").unwrap();
    assert!(
        module
            .board
            .lines_between(r, g)
            .any(|l| module.board.line(l).kind == road)
    );
    // And the editor reopens it with the line.
    let reopened = Document::open(&dir).unwrap();
    assert_eq!(reopened.map().lines.len(), lines + 1);
}

#[test]
fn the_validation_panel_shows_a_duplicate_name_until_undo() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    assert!(h.query_by_label("Validation: no errors").is_some());
    h.get_by_label("Richmond").click();
    h.run();
    retype(&mut h, "Name", "Petersburg");
    assert!(
        h.query_by_label_contains("duplicate box name 'Petersburg'")
            .is_some(),
        "validation panel lists the duplicate"
    );
    let error = h.get_by_label_contains("duplicate box name 'Petersburg'");
    // A label keeps its text in `value`; a link (an error that selects its box) in `label`.
    let text = error
        .value()
        .or_else(|| egui_kittest::kittest::NodeT::accesskit_node(&error).label())
        .unwrap_or_default();
    assert!(text.contains("map.xml:"), "file:line:col is shown: {text}");
    assert!(h.query_by_label("Validation: no errors").is_none());

    h.get_by_label("Undo").click();
    h.run();
    assert!(h.query_by_label_contains("duplicate box name").is_none());
    assert!(h.query_by_label("Validation: no errors").is_some());
    assert!(h.query_by_label("Richmond").is_some());
}

#[test]
fn add_box_tool_adds_a_box_where_clicked_and_delete_removes_it() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let n = h.state().document().map().boxes.len();
    h.get_by_label("Add box").click();
    h.run();
    // Click an empty spot of the sea, at map (2500, 1600): find where that is on screen
    // from two boxes' known map positions.
    let at = screen_of(&h, egui::pos2(2500.0, 1600.0), ["Richmond", "Raleigh"]);
    h.hover_at(at);
    h.run();
    h.drag_at(at);
    h.drop_at(at);
    h.run();
    assert_eq!(h.state().document().map().boxes.len(), n + 1);
    let new = &h.state().document().map().boxes[n];
    assert!(
        (new.x - 2500).abs() < 10 && (new.y - 1600).abs() < 10,
        "added at {},{}",
        new.x,
        new.y
    );
    assert!(h.query_by_label("New box").is_some());
    assert_eq!(h.state().selection(), Some(Selection::Box(n)));
    h.get_by_label("Delete box").click();
    h.run();
    assert_eq!(h.state().document().map().boxes.len(), n);
    assert!(h.query_by_label("New box").is_none());
}

#[test]
fn every_box_is_on_the_map_under_its_name() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let names: Vec<String> = h
        .state()
        .document()
        .map()
        .boxes
        .iter()
        .map(|b| b.name.clone())
        .collect();
    assert_eq!(names.len(), 129);
    for name in &names {
        let node = h.get_by_label(name);
        assert!(node.rect().width() > 5.0, "{name} is drawn");
    }
}

#[test]
fn click_a_line_to_select_it_and_delete_it() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    let lines = h.state().document().map().lines.len();
    let rail = h
        .state()
        .document()
        .map()
        .lines
        .iter()
        .position(|l| l.touches("Richmond") && l.touches("Petersburg"))
        .unwrap();
    // The middle of the Richmond - Petersburg railroad, between the two boxes.
    let at = screen_of(&h, egui::pos2(2227.5, 717.0), ["Richmond", "Raleigh"]);
    h.hover_at(at);
    h.run();
    h.drag_at(at);
    h.drop_at(at);
    h.run();
    assert_eq!(h.state().selection(), Some(Selection::Line(rail)));
    h.get_by_label("Delete line").click();
    h.run();
    assert_eq!(h.state().document().map().lines.len(), lines - 1);
    assert!(
        !h.state()
            .document()
            .map()
            .lines
            .iter()
            .any(|l| l.touches("Richmond") && l.touches("Petersburg"))
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().document().map().lines.len(), lines);
}

#[test]
fn clicking_an_error_selects_the_box_it_is_about() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(&dir);
    h.run();
    h.get_by_label("Richmond").click();
    h.run();
    retype(&mut h, "Name", "Petersburg");
    h.key_press(Key::Escape);
    h.run();
    // Select something else, then follow the error back.
    h.get_by_label("Nashville").click();
    h.run();
    let nashville = h.state().selection();
    h.get_by_label_contains("duplicate box name 'Petersburg'")
        .click();
    h.run();
    let selected = h.state().selection();
    assert_ne!(selected, nashville, "the click selected something else");
    let Some(Selection::Box(i)) = selected else {
        panic!("a box is selected: {selected:?}")
    };
    assert_eq!(h.state().document().map().boxes[i].name, "Petersburg");
}
