//! The document without a UI: opening AHD, lossless save, undo/redo, validation, errors.

use crate::common;

use muster_core::load_module;
use muster_editor::mod_changes::{ChangeKind, stack_top};
use muster_editor::{Document, SaveOutcome};

fn board_json(dir: &std::path::Path) -> serde_json::Value {
    let module = load_module(dir).expect("module loads");
    serde_json::to_value(&module.board).expect("board serializes")
}

#[test]
fn saving_the_ahd_map_unchanged_loses_nothing() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).expect("opens");
    assert_eq!(doc.map().boxes.len(), 129);
    assert_eq!(doc.map().lines.len(), 232);
    assert!(
        doc.validation().is_ok(),
        "{:?}",
        doc.validation().diagnostics
    );

    // map.xml has comments inside <map>: a save keeps each before the item it stood
    // before (issue 49), so it asks nothing.
    let before = std::fs::read_to_string(dir.join("map.xml")).unwrap();
    let inner: Vec<&str> = before
        .split("<map")
        .nth(1)
        .expect("a <map> root")
        .match_indices("<!--")
        .map(|(i, _)| i)
        .map(|i| {
            let rest = &before.split("<map").nth(1).unwrap()[i..];
            &rest[..rest.find("-->").unwrap() + 3]
        })
        .collect();
    assert!(inner.len() >= 3, "AHD's map has comments inside <map>");
    assert_eq!(doc.save(false).unwrap(), SaveOutcome::Saved);
    let after = std::fs::read_to_string(dir.join("map.xml")).unwrap();
    for c in &inner {
        assert!(after.contains(c), "{c} kept");
    }
    assert!(
        after.starts_with(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- The A House Divided board"
        ),
        "the header comment is kept"
    );
    assert_eq!(board_json(&dir), board_json(&common::ahd()));

    // A second save is byte-for-byte stable and needs no confirmation.
    let mut again = Document::open(&dir).unwrap();
    assert_eq!(again.map(), doc.map());
    assert_eq!(again.save(false).unwrap(), SaveOutcome::Saved);
    assert_eq!(std::fs::read_to_string(dir.join("map.xml")).unwrap(), after);
}

#[test]
fn renaming_a_box_renames_its_lines_and_undo_restores_everything() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).unwrap();
    let start = doc.map().clone();
    let i = doc.map().find_box("Richmond").unwrap();
    let mut b = doc.map().boxes[i].clone();
    b.name = "Richmond City".into();
    doc.set_box(i, b).unwrap();
    assert!(doc.map().lines.iter().all(|l| !l.touches("Richmond")));
    assert!(doc.map().lines.iter().any(|l| l.touches("Richmond City")));
    assert!(
        doc.map()
            .lines
            .iter()
            .any(|l| l.water_border.as_deref() == Some("Petersburg;Richmond City"))
    );
    // Scenarios still say Richmond: the validator says so.
    assert!(
        doc.validation()
            .errors()
            .any(|d| d.message.contains("unknown box 'Richmond'")),
        "{:?}",
        doc.validation().diagnostics
    );
    assert!(doc.is_dirty());
    assert!(doc.undo().unwrap());
    assert_eq!(doc.map(), &start);
    assert!(doc.validation().is_ok());
    assert!(!doc.is_dirty());
    assert!(doc.redo().unwrap());
    assert_eq!(doc.map().boxes[i].name, "Richmond City");
    assert!(!doc.redo().unwrap(), "nothing more to redo");
}

#[test]
fn deleting_a_box_takes_its_lines_and_undo_puts_them_back() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).unwrap();
    let start = doc.map().clone();
    let i = doc.map().find_box("Yorktown").unwrap();
    let touching = start.lines.iter().filter(|l| l.touches("Yorktown")).count();
    assert!(touching > 0);
    doc.delete_box(i).unwrap();
    assert_eq!(doc.map().boxes.len(), start.boxes.len() - 1);
    assert_eq!(doc.map().lines.len(), start.lines.len() - touching);
    doc.undo().unwrap();
    assert_eq!(doc.map(), &start);
}

#[test]
fn a_new_box_and_river_line_save_and_load() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).unwrap();
    let a = doc.add_box(100, 100).unwrap();
    let b = doc.map().find_box("Memphis").unwrap();
    doc.add_line(a, b, "river").unwrap();
    let line = doc.map().lines.last().unwrap().clone();
    assert_eq!(line.downstream.as_deref(), Some("Memphis"));
    assert!(
        doc.validation().is_ok(),
        "{:?}",
        doc.validation().diagnostics
    );
    doc.save(true).unwrap();
    let module = load_module(&dir).unwrap();
    let new = module.board.find("New box").expect("new box saved");
    let memphis = module.board.find("Memphis").unwrap();
    let kind = module.board.find_kind("river").unwrap();
    assert!(
        module
            .board
            .lines_between(new, memphis)
            .any(|l| module.board.line(l).kind == kind
                && module.board.line(l).downstream == Some(memphis))
    );
}

#[test]
fn bad_module_folders_are_errors_not_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let e = Document::open(tmp.path()).unwrap_err();
    assert!(e.to_string().contains("module.xml"), "{e}");

    std::fs::write(tmp.path().join("module.xml"), "<module id=").unwrap();
    assert!(Document::open(tmp.path()).is_err());

    std::fs::write(
        tmp.path().join("module.xml"),
        r#"<module id="m" name="M" version="1" engine="0.1"><include file="map.xml"/></module>"#,
    )
    .unwrap();
    std::fs::write(tmp.path().join("map.xml"), "<map><box/></map>").unwrap();
    let e = Document::open(tmp.path()).unwrap_err();
    assert!(e.to_string().contains("map.xml"), "{e}");
}

#[test]
fn a_scenario_overlay_puts_its_units_and_control_on_the_edited_boxes() {
    use muster_editor::overlay::{Counter, Overlay};
    let doc = Document::open(common::ahd()).unwrap();
    let module = doc.validation().module.clone().expect("AHD loads");
    let scenario = module.scenario("1861").expect("1861 scenario");
    let union = module.find_side("union").unwrap().index();
    let confederate = module.find_side("confederate").unwrap().index();
    let overlay = Overlay::build(&module, scenario, doc.map());
    let at = |name: &str| doc.map().find_box(name).unwrap();
    assert_eq!(
        overlay.counters[at("Washington")],
        vec![Counter {
            side: union,
            unit: "Mi".into(),
            count: 2,
            flags: muster_core::unit::Flags::NONE,
            flag_names: String::new(),
            // The counter's look comes from units.xml: class (its symbol) and quality
            // (its stripes), the first of AHD's qualities for militia.
            name: "Militia Infantry".into(),
            class: Some("infantry".into()),
            quality: Some(0),
            reduced: false,
            formation: None,
        }]
    );
    assert!(overlay.counters[at("Richmond")].is_empty());
    assert_eq!(overlay.control[at("Richmond")], Some(confederate));
    // Kentucky's boxes are neutral at the start of 1861.
    assert_eq!(overlay.control[at("Bowling Green")], None);
}

#[test]
fn the_rule_scripts_are_checked_too() {
    // As `muster check`: a module whose data loads but whose rules do not is in error.
    let (_tmp, dir) = common::ahd_copy();
    let victory = dir.join("rules/victory.luau");
    let text = std::fs::read_to_string(&victory).unwrap();
    std::fs::write(&victory, format!("{text}\nthis is not luau(\n")).unwrap();
    let doc = Document::open(&dir).unwrap();
    let v = doc.validation();
    assert!(v.module.is_some(), "the data loads: {:?}", v.diagnostics);
    let errors: Vec<String> = v.errors().map(ToString::to_string).collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("rules:") && e.contains("victory")),
        "{errors:?}"
    );
}

/// A mod on a copy of AHD that keeps AHD's board: it removes Vandalia and its five
/// railroads, and patches Cairo and the Ohio between Cairo and Paducah. Returns the
/// guard, AHD's folder and the mod's.
fn house_mod() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let (tmp, ahd) = common::ahd_copy();
    let house = tmp.path().join("house");
    std::fs::create_dir_all(&house).unwrap();
    std::fs::write(
        house.join("module.xml"),
        "<module id=\"house\" name=\"House\" version=\"0.1.0\" engine=\"0.1\">\n  <extends module=\"ahd\"/>\n  <include file=\"changes.xml\"/>\n</module>\n",
    )
    .unwrap();
    std::fs::write(
        house.join("changes.xml"),
        "<changes>\n  <remove>\n    <line a=\"Bloomington\" b=\"Vandalia\" kind=\"rail\"/>\n    <line a=\"Bloomington (Illinois)\" b=\"Vandalia\" kind=\"rail\"/>\n    <line a=\"Cairo\" b=\"Vandalia\" kind=\"rail\"/>\n    <line a=\"St. Louis\" b=\"Vandalia\" kind=\"rail\"/>\n    <line a=\"Terre Haute\" b=\"Vandalia\" kind=\"rail\"/>\n    <box name=\"Vandalia\"/>\n  </remove>\n  <patch>\n    <box name=\"Cairo\" state=\"IL\"/>\n    <line a=\"Paducah\" b=\"Cairo\" kind=\"river\" name=\"Ohio River\"/>\n  </patch>\n</changes>\n",
    )
    .unwrap();
    (tmp, ahd, house)
}

#[test]
fn a_mod_shows_its_bases_board_with_its_removals_and_patches_at_their_lines() {
    let (_tmp, ahd, house) = house_mod();
    let doc = Document::open(&house).expect("opens");
    assert!(
        doc.validation().is_ok(),
        "{:?}",
        doc.validation().diagnostics
    );
    assert_eq!(doc.base_map(), Some("ahd"));
    assert_eq!(doc.map_path(), ahd.join("map.xml"));
    let changes = doc.map_changes();
    // Named from the mods folder, as a modder sees it.
    let at = |line: u32, col: u32| format!("house/changes.xml:{line}:{col}");
    let vandalia = doc.map().find_box("Vandalia").unwrap();
    let cairo = doc.map().find_box("Cairo").unwrap();
    let removed = changes.of_box(vandalia).expect("Vandalia is marked");
    assert_eq!(removed.kind, ChangeKind::Removed);
    assert_eq!(
        removed.describe("box 'Vandalia'"),
        format!("box 'Vandalia' is removed by the <remove> at {}", at(8, 5))
    );
    assert_eq!(
        changes.of_box(cairo).map(|c| (c.kind, c.at.clone())),
        Some((ChangeKind::Patched, at(11, 5)))
    );
    let line = |a: &str, b: &str| {
        doc.map()
            .lines
            .iter()
            .position(|l| l.touches(a) && l.touches(b))
            .unwrap()
    };
    // Named either way round, as the loader matches lines.
    assert_eq!(
        changes
            .of_line(line("Cairo", "Vandalia"))
            .map(|c| (c.kind, c.at.clone())),
        Some((ChangeKind::Removed, at(5, 5)))
    );
    assert_eq!(
        changes
            .of_line(line("Cairo", "Paducah"))
            .map(|c| (c.kind, c.at.clone())),
        Some((ChangeKind::Patched, at(12, 5)))
    );
    let marked = |v: &[Option<muster_editor::mod_changes::MapChange>]| v.iter().flatten().count();
    assert_eq!((marked(&changes.boxes), marked(&changes.lines)), (2, 6));
    // AHD on its own has nothing marked.
    assert!(Document::open(&ahd).unwrap().map_changes().is_empty());
}

#[test]
fn a_mod_refuses_edits_to_its_bases_map_and_never_writes_it() {
    let (_tmp, ahd, house) = house_mod();
    let before = std::fs::read_to_string(ahd.join("map.xml")).unwrap();
    let mut doc = Document::open(&house).expect("opens");
    let cairo = doc.map().find_box("Cairo").unwrap();
    let err = doc
        .move_box(cairo, 10, 10)
        .expect_err("the base's map is not edited");
    assert_eq!(
        err.to_string(),
        format!(
            "the map is ahd's ({}), shown under the mod 'house' with the mod's changes marked; the editor saves only the mod's own files, never its base's: write the change in the mod as a <patch> or <remove> (docs/module-format.md), or open ahd itself to edit its map",
            ahd.join("map.xml").display()
        )
    );
    assert!(!doc.is_dirty());
    // A save writes none of the base's files (AHD's own save writes its map).
    assert_eq!(doc.save(false).unwrap(), SaveOutcome::Saved);
    assert!(doc.written().is_empty(), "{:?}", doc.written());
    assert_eq!(
        std::fs::read_to_string(ahd.join("map.xml")).unwrap(),
        before
    );
}

#[test]
fn a_mod_stack_opens_at_its_top_mod_when_each_extends_the_one_below() {
    let (_tmp, ahd, house) = house_mod();
    assert_eq!(
        stack_top(&ahd, std::slice::from_ref(&house)),
        Ok(house.clone())
    );
    let err = stack_top(&house, std::slice::from_ref(&house)).unwrap_err();
    assert_eq!(
        err,
        format!(
            "{} extends 'ahd' at {}, not {}: the editor opens a mod on the base its <extends> names; give that folder, or stack the mods in their order",
            house.display(),
            house.join("../ahd").display(),
            house.display()
        )
    );
}
