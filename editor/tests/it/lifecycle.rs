//! Hot reload, autosave, the unsaved-edits prompt and opening another module, on temp
//! copies of AHD. Watcher tests wait for the event in a loop with a generous limit:
//! they assert on what arrives, never on how fast.

use crate::common;

use common::{PATIENCE, edit_file, run_until};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui::{Key, Modifiers, Role, ViewportCommand, ViewportEvent, ViewportId};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_editor::command::UiCommand;
use muster_editor::notify_ui::Level;
use muster_editor::prompts::{Prompt, Then};
use muster_editor::reload::{ReloadEvent, Reloader};
use muster_editor::{Document, EditorApp, autosave};

fn watched(dir: &Path) -> Harness<'static, EditorApp> {
    common::watched(dir, common::SMALL)
}

fn harness(app: EditorApp) -> Harness<'static, EditorApp> {
    common::app_harness(app, common::SMALL)
}

fn richmond_x(app: &EditorApp) -> Option<i32> {
    let map = app.document().map();
    map.find_box("Richmond").map(|i| map.boxes[i].x)
}

const RICHMOND: &str = r#"tags="permanent-entrenchment" state="VA" x="2220""#;
const RICHMOND_MOVED: &str = r#"tags="permanent-entrenchment" state="VA" x="2230""#;

#[test]
fn a_map_changed_on_disk_reloads_a_clean_document() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    assert_eq!(richmond_x(h.state()), Some(2220));

    let written = Instant::now();
    edit_file(&dir.join("map.xml"), RICHMOND, RICHMOND_MOVED);
    assert!(
        run_until(&mut h, |a| richmond_x(a) == Some(2230)),
        "the document never showed the new map"
    );
    // The figure asked for in the report; not an assertion.
    println!(
        "reload latency (write -> document updated): {} ms",
        written.elapsed().as_millis()
    );
    assert!(!h.state().document().is_dirty());
    assert!(h.state().document().validation().is_ok());
    let last = h.state().notices().last().expect("a notice");
    assert_eq!(last.level, Level::Success);
    assert!(last.text.contains("map.xml"), "{}", last.text);
}

#[test]
fn a_broken_script_is_reported_by_file_and_the_last_good_module_stays() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    let boxes = h.state().document().map().boxes.len();

    let script = dir.join("rules").join("victory.luau");
    edit_file(&script, "local M = {}", "local M = {\n\tbroken = (,\n}");
    assert!(
        run_until(&mut h, |a| !a.document().validation().is_ok()),
        "the broken script was never reported"
    );
    let error = h
        .state()
        .document()
        .validation()
        .errors()
        .next()
        .expect("an error")
        .to_string();
    println!("broken script reported as: {error}");
    assert!(error.contains("victory.luau:7"), "file and line: {error}");
    // The validation panel shows it, and a toast says it.
    assert!(h.query_by_label("Validation: 1 error").is_some());
    assert!(h.query_all_by_label_contains("victory").next().is_some());
    let last = h.state().notices().last().expect("a notice");
    assert_eq!(last.level, Level::Error);
    assert!(last.text.contains("victory"), "{}", last.text);
    // The map and the module's data are still there to edit.
    assert_eq!(h.state().document().map().boxes.len(), boxes);
    assert!(h.state().document().validation().module.is_some());

    // Fixing the file clears the error.
    edit_file(&script, "local M = {\n\tbroken = (,\n}", "local M = {}");
    assert!(run_until(&mut h, |a| a.document().validation().is_ok()));
}

#[test]
fn a_broken_map_on_disk_keeps_the_last_good_map() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    let map = dir.join("map.xml");
    edit_file(&map, "<box name=\"Richmond\"", "<box name=\"Richmond\" <<");
    assert!(
        run_until(&mut h, |a| !a.document().validation().is_ok()),
        "the broken map was never reported"
    );
    let error = h
        .state()
        .document()
        .validation()
        .errors()
        .next()
        .unwrap()
        .to_string();
    println!("broken map reported as: {error}");
    assert!(error.contains("map.xml:"), "{error}");
    assert_eq!(richmond_x(h.state()), Some(2220));
    let last = h.state().notices().last().unwrap();
    assert_eq!(last.level, Level::Error);
    assert!(last.text.contains("map.xml"), "{}", last.text);
}

#[test]
fn unsaved_edits_are_not_overwritten_by_a_change_on_disk() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = watched(&dir);
    let richmond = h.state().document().map().find_box("Richmond").unwrap();
    h.state_mut().apply(UiCommand::MoveBox {
        index: richmond,
        x: 100,
        y: 100,
    });
    assert!(h.state().document().is_dirty());

    edit_file(&dir.join("map.xml"), RICHMOND, RICHMOND_MOVED);
    assert!(
        run_until(&mut h, |a| a.prompt() == Some(&Prompt::Conflict)),
        "no conflict prompt"
    );
    assert_eq!(richmond_x(h.state()), Some(100));
    assert_eq!(
        h.state().notices().last().map(|n| n.level),
        Some(Level::Warning)
    );

    h.get_by_label("Keep mine").click();
    h.run();
    assert_eq!(h.state().prompt(), None);
    assert_eq!(richmond_x(h.state()), Some(100));
    assert!(h.state().document().is_dirty());

    // Another change on disk asks again; this time the disk wins.
    edit_file(&dir.join("map.xml"), RICHMOND_MOVED, RICHMOND);
    assert!(run_until(&mut h, |a| a.prompt() == Some(&Prompt::Conflict)));
    h.get_by_label("Reload from disk (lose my edits)").click();
    h.run();
    assert_eq!(richmond_x(h.state()), Some(2220));
    assert!(!h.state().document().is_dirty());
}

#[test]
fn the_editors_own_save_is_not_taken_for_a_change_on_disk() {
    let (_tmp, dir) = common::ahd_copy();
    let mut reloader = Reloader::watch(std::slice::from_ref(&dir), || {}).expect("watch");
    let mut doc = Document::open(&dir).unwrap();
    let richmond = doc.map().find_box("Richmond").unwrap();
    doc.move_box(richmond, 5, 5).unwrap();
    reloader.note_own_write(doc.map_path(), &doc.map_text());
    doc.save(true).unwrap();
    // A later outside change, to know when the watcher has caught up.
    let script = dir.join("rules").join("board.luau");
    edit_file(&script, "--", "-- touched\n--");

    let mut seen: Vec<PathBuf> = Vec::new();
    let start = Instant::now();
    while start.elapsed() < PATIENCE && !seen.iter().any(|p| p.ends_with("board.luau")) {
        for event in reloader.poll() {
            match event {
                ReloadEvent::Changed(c) => {
                    assert!(c.rules_changed());
                    seen.extend(c.paths);
                }
                ReloadEvent::WatchError(e) => panic!("{e}"),
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(seen.iter().any(|p| p.ends_with("board.luau")), "{seen:?}");
    assert!(!seen.iter().any(|p| p.ends_with("map.xml")), "{seen:?}");
    // Neither the atomic save's temporary file nor anything but XML/Luau came through.
    assert!(
        seen.iter()
            .all(|p| { p.extension().is_some_and(|x| x == "xml" || x == "luau") })
    );
}

/// Asks the window to close, as the close button does, and runs one frame.
fn request_close(h: &mut Harness<'_, EditorApp>) -> Vec<ViewportCommand> {
    h.input_mut()
        .viewports
        .entry(ViewportId::ROOT)
        .or_default()
        .events
        .push(ViewportEvent::Close);
    h.step();
    root_commands(h)
}

fn root_commands(h: &Harness<'_, EditorApp>) -> Vec<ViewportCommand> {
    h.output()
        .viewport_output
        .get(&ViewportId::ROOT)
        .map(|v| v.commands.clone())
        .unwrap_or_default()
}

fn dirty_app(dir: &Path) -> Harness<'static, EditorApp> {
    let mut h = harness(EditorApp::new(Document::open(dir).unwrap()));
    h.run();
    let richmond = h.state().document().map().find_box("Richmond").unwrap();
    h.state_mut().apply(UiCommand::MoveBox {
        index: richmond,
        x: 100,
        y: 100,
    });
    h
}

#[test]
fn closing_with_unsaved_edits_asks_and_cancel_keeps_the_window() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(EditorApp::new(Document::open(&dir).unwrap()));
    h.run();
    // Nothing unsaved: the close goes through.
    assert!(!request_close(&mut h).contains(&ViewportCommand::CancelClose));
    assert_eq!(h.state().prompt(), None);

    let mut h = dirty_app(&dir);
    assert!(request_close(&mut h).contains(&ViewportCommand::CancelClose));
    h.run();
    assert_eq!(h.state().prompt(), Some(&Prompt::Unsaved(Then::Quit)));
    assert!(!h.state().close_allowed());
    h.get_by_label("Cancel").click();
    h.run();
    assert_eq!(h.state().prompt(), None);
    assert!(h.state().document().is_dirty());
    assert!(!h.state().close_allowed());
}

#[test]
fn discard_closes_without_saving() {
    let (_tmp, dir) = common::ahd_copy();
    let before = std::fs::read_to_string(dir.join("map.xml")).unwrap();
    let mut h = dirty_app(&dir);
    request_close(&mut h);
    h.run();
    h.get_by_label("Discard edits").click();
    h.step();
    assert!(root_commands(&h).contains(&ViewportCommand::Close));
    assert!(h.state().close_allowed());
    assert_eq!(
        std::fs::read_to_string(dir.join("map.xml")).unwrap(),
        before
    );
    // A second close request is not held back.
    assert!(!request_close(&mut h).contains(&ViewportCommand::CancelClose));
}

#[test]
fn save_then_close_writes_the_map() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = dirty_app(&dir);
    request_close(&mut h);
    h.run();
    h.get_by_label("Save edits").click();
    h.step();
    assert!(root_commands(&h).contains(&ViewportCommand::Close));
    let reopened = Document::open(&dir).unwrap();
    let richmond = reopened.map().find_box("Richmond").unwrap();
    assert_eq!(reopened.map().boxes[richmond].x, 100);
    assert!(
        h.state()
            .notices()
            .iter()
            .any(|n| n.level == Level::Success && n.text.starts_with("saved"))
    );
}

#[test]
fn autosave_writes_a_sidecar_and_a_reopen_offers_to_restore_it() {
    let (_tmp, dir) = common::ahd_copy();
    let map = dir.join("map.xml");
    let before = std::fs::read_to_string(&map).unwrap();
    let every = Duration::from_millis(1);
    let app = EditorApp::new(Document::open(&dir).unwrap()).with_autosave_every(every);
    let mut h = harness(app);
    h.run();
    assert!(!autosave::sidecar(&map).exists());
    let richmond = h.state().document().map().find_box("Richmond").unwrap();
    h.state_mut().apply(UiCommand::MoveBox {
        index: richmond,
        x: 77,
        y: 88,
    });
    let sidecar = autosave::sidecar(&map);
    assert!(
        run_until(&mut h, |_| sidecar.exists()),
        "no autosave written"
    );
    assert!(
        std::fs::read_to_string(&sidecar)
            .unwrap()
            .contains(r#"x="77" y="88""#)
    );
    // Never over the real file.
    assert_eq!(std::fs::read_to_string(&map).unwrap(), before);
    drop(h); // the editor "crashes" with the edits unsaved

    let mut h = harness(EditorApp::new(Document::open(&dir).unwrap()));
    h.run();
    assert_eq!(h.state().prompt(), Some(&Prompt::Restore(sidecar.clone())));
    assert_eq!(richmond_x(h.state()), Some(2220));
    h.get_by_label("Restore autosave").click();
    h.run();
    assert_eq!(h.state().prompt(), None);
    assert_eq!(richmond_x(h.state()), Some(77));
    assert!(h.state().document().is_dirty());

    // Saving makes the autosave obsolete: it goes, and nothing is offered next time.
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run();
    assert!(!sidecar.exists());
    let h = harness(EditorApp::new(Document::open(&dir).unwrap()));
    assert_eq!(h.state().prompt(), None);
}

#[test]
fn deleting_the_offered_autosave_keeps_the_file() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).unwrap();
    let richmond = doc.map().find_box("Richmond").unwrap();
    doc.move_box(richmond, 1, 2).unwrap();
    let sidecar = autosave::write(&doc).unwrap();
    let mut h = harness(EditorApp::new(Document::open(&dir).unwrap()));
    h.run();
    h.get_by_label("Delete autosave").click();
    h.run();
    assert!(!sidecar.exists());
    assert_eq!(richmond_x(h.state()), Some(2220));
    assert!(!h.state().document().is_dirty());
}

/// Types `path` into the typed-path dialog and confirms.
fn open_by_typing(h: &mut Harness<'_, EditorApp>, path: &Path) {
    h.get_by_label("Open module…").click();
    h.run();
    h.get_by_role_and_label(Role::TextInput, "Path").focus();
    h.run();
    h.get_by_role_and_label(Role::TextInput, "Path")
        .type_text(&path.display().to_string());
    h.run();
    h.get_by_label("Open").click();
    h.run();
}

#[test]
fn open_module_switches_to_a_typed_folder() {
    let (_tmp, first) = common::ahd_copy();
    let (_tmp2, second) = common::ahd_copy();
    edit_file(&second.join("map.xml"), RICHMOND, RICHMOND_MOVED);
    let mut h = harness(EditorApp::new(Document::open(&first).unwrap()));
    h.run();

    // A path that is no folder is refused inside the dialog.
    open_by_typing(&mut h, &first.join("nope"));
    assert!(h.query_by_label_contains("is not a folder").is_some());
    assert_eq!(h.state().document().dir(), first);
    h.get_by_label("Cancel").click();
    h.run();

    // A folder that is no module: an error toast, the open module stays.
    let empty = tempfile::tempdir().unwrap();
    open_by_typing(&mut h, empty.path());
    assert_eq!(h.state().document().dir(), first);
    let last = h.state().notices().last().unwrap();
    assert_eq!(last.level, Level::Error);
    assert!(last.text.contains("module.xml"), "{}", last.text);

    open_by_typing(&mut h, &second);
    assert_eq!(h.state().document().dir(), second);
    assert_eq!(richmond_x(h.state()), Some(2230));
}

#[test]
fn open_module_with_unsaved_edits_asks_first() {
    let (_tmp, first) = common::ahd_copy();
    let (_tmp2, second) = common::ahd_copy();
    let mut h = dirty_app(&first);
    h.state_mut().apply(UiCommand::OpenModule(second.clone()));
    h.run();
    assert_eq!(
        h.state().prompt(),
        Some(&Prompt::Unsaved(Then::Open(second.clone())))
    );
    h.get_by_label("Discard edits").click();
    h.run();
    assert_eq!(h.state().document().dir(), second);
    assert!(!h.state().document().is_dirty());
    // Discarding to open another module does not close the window.
    assert!(!root_commands(&h).contains(&ViewportCommand::Close));
}

#[test]
fn errors_from_the_status_line_also_toast() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = harness(EditorApp::new(Document::open(&dir).unwrap()));
    h.run();
    h.state_mut().apply(UiCommand::DeleteBox(100_000));
    h.run();
    let last = h.state().notices().last().expect("a notice");
    assert_eq!(last.level, Level::Error);
    assert_eq!(last.text, h.state().status());
}

#[test]
fn the_autosaver_writes_changed_unsaved_edits_once_per_interval_and_they_restore() {
    use muster_editor::autosave::Autosaver;
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).unwrap();
    let richmond = doc.map().find_box("Richmond").unwrap();
    let every = Duration::from_secs(30);
    let mut saver = Autosaver::new(every);
    let t0 = Instant::now();
    assert!(saver.tick(t0, &doc).is_none(), "nothing unsaved");
    doc.move_box(richmond, 1, 2).unwrap();
    assert!(saver.tick(t0, &doc).is_none(), "not due yet");
    let sidecar = match saver.tick(t0 + every, &doc) {
        Some(Ok(p)) => p,
        other => panic!("expected an autosave, got {other:?}"),
    };
    assert!(saver.tick(t0 + every * 2, &doc).is_none(), "nothing new");
    doc.move_box(richmond, 3, 4).unwrap();
    assert!(matches!(saver.tick(t0 + every * 3, &doc), Some(Ok(_))));

    let mut reopened = Document::open(&dir).unwrap();
    assert_eq!(reopened.map().boxes[richmond].x, 2220);
    reopened
        .restore_map_text(&std::fs::read_to_string(&sidecar).unwrap())
        .unwrap();
    assert_eq!(reopened.map(), doc.map());
    assert!(reopened.is_dirty());
    assert!(reopened.validation().is_ok());
}
