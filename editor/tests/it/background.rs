//! The map's background scan: read and written losslessly, edited with undo, loaded as a
//! texture and drawn under the map, and a broken image reported without a panic.

use crate::common;

use common::screen_of;

use std::path::Path;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_core::load_module;
use muster_editor::map_data::BackgroundData;
use muster_editor::{Document, EditorApp, map_xml};

/// Writes a small 4x3 PNG at `dir/rel`.
fn write_png(dir: &Path, rel: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let img = image::RgbaImage::from_fn(4, 3, |x, y| {
        image::Rgba([x as u8 * 60, y as u8 * 80, 200, 255])
    });
    img.save(&path).expect("write png");
}

fn scan(image: &str) -> BackgroundData {
    BackgroundData {
        image: image.into(),
        x: Some(-20.0),
        y: Some(10.5),
        scale: Some(2.0),
        opacity: Some(0.4),
    }
}

#[test]
fn background_xml_round_trip_is_lossless_and_keeps_only_written_attributes() {
    let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map width=\"100\" height=\"50\">\n  <background image=\"scans/board.png\" x=\"-20\" opacity=\"0.25\"/>\n\n</map>\n";
    let src = map_xml::read(text).expect("reads");
    let bg = src.data.background.clone().expect("background read");
    assert_eq!(bg.image, "scans/board.png");
    assert_eq!(
        (bg.x, bg.y, bg.scale, bg.opacity),
        (Some(-20.0), None, None, Some(0.25))
    );
    let written = map_xml::write(&src.data, &src.prolog);
    assert_eq!(written, text);
    let again = map_xml::read(&written).expect("reads again");
    assert_eq!(again.data, src.data);
}

#[test]
fn setting_a_background_is_undoable_and_saves_for_the_engine() {
    let (_tmp, dir) = common::ahd_copy();
    write_png(&dir, "scans/board.png");
    let mut doc = Document::open(&dir).unwrap();
    assert_eq!(doc.map().background, None);
    doc.set_background(Some(scan("scans/board.png"))).unwrap();
    assert_eq!(doc.undo_label(), Some("edit background"));
    assert!(
        doc.validation().is_ok(),
        "{:?}",
        doc.validation().diagnostics
    );
    assert!(doc.undo().unwrap());
    assert_eq!(doc.map().background, None);
    assert!(doc.redo().unwrap());
    assert_eq!(doc.map().background, Some(scan("scans/board.png")));

    doc.save(true).unwrap();
    let module = load_module(&dir).expect("saved module loads");
    let bg = module.board.background.as_ref().expect("engine sees it");
    assert_eq!(
        (bg.image.as_str(), bg.x, bg.y, bg.scale, bg.opacity),
        ("scans/board.png", -20.0, 10.5, 2.0, 0.4)
    );
    let reopened = Document::open(&dir).unwrap();
    assert_eq!(reopened.map().background, Some(scan("scans/board.png")));
}

#[test]
fn a_missing_background_file_is_a_validation_error() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).unwrap();
    doc.set_background(Some(scan("scans/none.png"))).unwrap();
    let errors: Vec<String> = doc.validation().errors().map(|d| d.to_string()).collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("background image 'scans/none.png' does not exist")),
        "{errors:?}"
    );
}

fn harness_with(dir: &Path, bg: BackgroundData) -> Harness<'static, EditorApp> {
    let mut doc = Document::open(dir).expect("module opens");
    doc.set_background(Some(bg)).unwrap();
    common::app_harness(EditorApp::new(doc), common::SMALL)
}

#[test]
fn the_scan_is_drawn_under_the_map_with_an_accessible_label() {
    let (_tmp, dir) = common::ahd_copy();
    write_png(&dir, "scans/board.png");
    let mut h = harness_with(&dir, scan("scans/board.png"));
    h.run();
    h.get_by_label("background scan scans/board.png");
    assert!(
        !h.state().status().contains("background scan"),
        "{}",
        h.state().status()
    );
    // The boxes are still there and clickable above it.
    h.get_by_label("Richmond").click();
    h.run();
    assert!(h.state().selection().is_some());
}

#[test]
fn a_broken_png_is_reported_and_the_map_still_draws() {
    let (_tmp, dir) = common::ahd_copy();
    std::fs::create_dir_all(dir.join("scans")).unwrap();
    std::fs::write(dir.join("scans/board.png"), b"\x89PNG\r\n\x1a\nnot really").unwrap();
    let mut h = harness_with(&dir, scan("scans/board.png"));
    h.run();
    let status = h.state().status().to_owned();
    assert!(
        status.contains("background scan: cannot decode 'scans/board.png'"),
        "{status}"
    );
    assert!(
        h.query_by_label("background scan scans/board.png")
            .is_none(),
        "no image node for an image that did not load"
    );
    // The validation panel keeps showing it after the status line moves on (so the
    // status line and the panel both show it now).
    assert_eq!(
        h.query_all_by_label(&status).count(),
        2,
        "error shown in the panel"
    );
    h.get_by_label("Richmond");
}

#[test]
fn the_map_section_sets_the_background_path_as_one_undo_step() {
    use egui::{Key, Modifiers, Role};
    let (_tmp, dir) = common::ahd_copy();
    write_png(&dir, "scans/board.png");
    let doc = Document::open(&dir).expect("module opens");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut EditorApp| app.show(ui), EditorApp::new(doc));
    h.run();
    assert!(
        h.query_by_label("background scan scans/board.png")
            .is_none()
    );
    h.get_by_role_and_label(Role::TextInput, "Background image")
        .focus();
    h.run();
    h.get_by_role_and_label(Role::TextInput, "Background image")
        .type_text("scans/board.png");
    h.run();
    // Nothing is committed while the field has focus.
    assert_eq!(h.state().document().map().background, None);
    h.key_press(Key::Enter);
    h.run();
    h.run();
    let bg = h.state().document().map().background.clone().expect("set");
    assert_eq!(
        bg,
        BackgroundData {
            image: "scans/board.png".into(),
            ..Default::default()
        }
    );
    assert_eq!(h.state().document().undo_label(), Some("edit background"));
    h.get_by_label("background scan scans/board.png");

    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    h.run();
    assert_eq!(h.state().document().map().background, None);
    assert!(
        h.query_by_label("background scan scans/board.png")
            .is_none()
    );
    // The form follows the undo instead of putting the path back.
    h.run();
    assert_eq!(h.state().document().map().background, None);
}

#[test]
fn clicks_on_the_map_pass_through_the_scan() {
    let (_tmp, dir) = common::ahd_copy();
    write_png(&dir, "scans/board.png");
    // A scan covering the whole board.
    let cover = BackgroundData {
        image: "scans/board.png".into(),
        x: Some(-100.0),
        y: Some(-100.0),
        scale: Some(5000.0),
        opacity: None,
    };
    let mut h = harness_with(&dir, cover);
    h.run();
    h.get_by_label("background scan scans/board.png");
    let n = h.state().document().map().boxes.len();
    h.get_by_label("Add box").click();
    h.run();
    let at = screen_of(&h, egui::pos2(2500.0, 1600.0), ["Richmond", "Raleigh"]);
    h.hover_at(at);
    h.run();
    h.drag_at(at);
    h.drop_at(at);
    h.run();
    assert_eq!(h.state().document().map().boxes.len(), n + 1);
}
