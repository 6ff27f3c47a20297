//! The module's backdrop (`<backdrop file>`, a vector map) in the editor: drawn under
//! the boxes in editing and in play, beside a background scan, kept on save, and a
//! broken backdrop file shown as a located validation error while the map still draws.

use crate::common;

use std::path::Path;

use egui_kittest::kittest::Queryable;
use muster_editor::command::{Mode, UiCommand};
use muster_editor::map_data::BackgroundData;
use muster_editor::play::PlayCommand;
use muster_editor::play::session::{NewGame, PlayerKind};
use muster_editor::{Document, EditorApp};

/// The accessible label the map gives AHD's backdrop, from the module itself.
fn ahd_label() -> String {
    let module = muster_core::load_module(common::ahd()).expect("AHD loads");
    let b = module.board.backdrop.expect("AHD has a backdrop");
    format!("backdrop: {} areas, {} paths", b.areas.len(), b.paths.len())
}

#[test]
fn the_backdrop_is_drawn_under_the_boxes_in_editing_and_in_play() {
    let mut h = common::harness(&common::ahd(), common::SMALL);
    h.run();
    h.get_by_label(&ahd_label());
    // The boxes are above it and still take clicks.
    h.get_by_label("Richmond").click();
    h.run();
    assert!(h.state().selection().is_some(), "Richmond selected");

    h.state_mut().apply(UiCommand::SetMode(Mode::Play));
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::Start(NewGame {
            scenario: "1864".into(),
            options: Vec::new(),
            end: None,
            players: vec![PlayerKind::Human; 2],
            seats: Vec::new(),
            seed: 1,
        })));
    h.run();
    assert!(h.state().play().session().is_some(), "the game starts");
    h.get_by_label(&ahd_label());
}

#[test]
fn a_scan_can_still_be_traced_over_the_backdrop() {
    let (_tmp, dir) = common::ahd_copy();
    let png = dir.join("scans/board.png");
    std::fs::create_dir_all(png.parent().unwrap()).unwrap();
    image::RgbaImage::from_pixel(4, 3, image::Rgba([200, 0, 0, 255]))
        .save(&png)
        .unwrap();
    let mut doc = Document::open(&dir).expect("opens");
    doc.set_background(Some(BackgroundData {
        image: "scans/board.png".into(),
        ..Default::default()
    }))
    .unwrap();
    let mut h = common::app_harness(EditorApp::new(doc), common::SMALL);
    h.run();
    h.get_by_label(&ahd_label());
    h.get_by_label("background scan scans/board.png");
}

#[test]
fn saving_the_map_keeps_its_backdrop() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).expect("opens");
    assert_eq!(doc.map().backdrop.as_deref(), Some("backdrop.xml"));
    let richmond = doc.map().find_box("Richmond").unwrap();
    let b = doc.map().boxes[richmond].clone();
    doc.move_box(richmond, b.x + 5, b.y).unwrap();
    doc.save(true).expect("saves");
    let text = std::fs::read_to_string(dir.join("map.xml")).unwrap();
    assert!(
        text.contains("<backdrop file=\"backdrop.xml\"/>"),
        "the element is written back"
    );
    let module = muster_core::load_module(&dir).expect("the saved module loads");
    assert!(module.board.backdrop.is_some());
}

#[test]
fn a_broken_backdrop_is_a_located_error_and_the_map_still_draws() {
    let (_tmp, dir) = common::ahd_copy();
    let path = dir.join("backdrop.xml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("fill=\"#a9c4d4\"", "fill=\"sea-blue\"", 1),
    )
    .unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("fill=\"#a9c4d4\""))
        .unwrap()
        + 1;
    let mut h = common::harness(&dir, common::SMALL);
    h.run();
    let errors: Vec<String> = h
        .state()
        .document()
        .validation()
        .errors()
        .map(|d| d.to_string())
        .collect();
    let want = format!("{}:{line}:", Path::new(&path).display());
    assert!(
        errors
            .iter()
            .any(|e| e.contains(&want) && e.contains("'sea-blue' is not a colour")),
        "{errors:?}"
    );
    assert!(
        h.query_by_label_contains("backdrop:").is_none(),
        "no backdrop from a module that does not load"
    );
    h.get_by_label("Richmond");
}
