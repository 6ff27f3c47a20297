//! Scenario editing without a UI: each kind of change round-trips through save and
//! reload, each undoes, and the engine's validator and army maximum see the edits.

use crate::common;

use muster_core::load_module;
use muster_editor::scenario_data::{OffBoard, ScenarioData, add_units, units_of};
use muster_editor::scenario_live::tallies;
use muster_editor::{Document, SaveOutcome};

/// The 1861 scenario's file index and content.
fn s1861(doc: &Document) -> (usize, ScenarioData) {
    let i = doc.find_scenario("1861").expect("1861 is a scenario");
    (i, doc.scenarios()[i].data.clone())
}

fn named(name: &'static str) -> impl Fn(&str) -> bool {
    move |s: &str| s.eq_ignore_ascii_case(name)
}

/// The edits the scenario panel can make, one change each, in order.
fn edits(start: &ScenarioData) -> Vec<(&'static str, ScenarioData)> {
    let mut steps = Vec::new();
    let mut s = start.clone();
    s.add_placed("confederate", &named("Richmond"), "Richmond", "Vi", 2);
    steps.push(("place", s.clone()));
    s.add_placed("confederate", &named("Richmond"), "Richmond", "Vi", -1);
    steps.push(("remove one", s.clone()));
    s.set_flag("confederate", &named("Richmond"), "entrenched", true);
    steps.push(("entrench", s.clone()));
    s.set_control_marker(&named("Sedalia"), "Sedalia", Some("confederate"));
    steps.push(("control", s.clone()));
    s.start = Some("08/1861".into());
    steps.push(("start turn", s.clone()));
    add_units(s.off_board_mut("union", OffBoard::Pool), "Vi", 1);
    steps.push(("pool", s.clone()));
    add_units(s.off_board_mut("confederate", OffBoard::SetAside), "Vi", 1);
    steps.push(("set aside", s.clone()));
    steps
}

#[test]
fn every_scenario_edit_round_trips_through_save_and_reload() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).expect("opens");
    assert_eq!(doc.scenarios().len(), 5);
    let (i, start) = s1861(&doc);
    let before = std::fs::read_to_string(dir.join("scenarios/1862.xml")).unwrap();
    for (label, value) in edits(&start) {
        doc.set_scenario(i, value, label).unwrap();
        assert_eq!(doc.undo_label(), Some(label));
    }
    assert!(
        doc.validation().is_ok(),
        "{:?}",
        doc.validation().diagnostics
    );
    assert!(doc.is_dirty());
    // Only scenarios changed: map.xml (which has comments inside <map>) is left as it
    // is, so nothing asks about dropping comments (issue 15 item 5); the scenario files
    // have none inside.
    let map_before = std::fs::read(dir.join("map.xml")).unwrap();
    assert_eq!(doc.save(false).unwrap(), SaveOutcome::Saved);
    assert!(!doc.is_dirty());
    assert_eq!(std::fs::read(dir.join("map.xml")).unwrap(), map_before);

    let text = std::fs::read_to_string(dir.join("scenarios/1861.xml")).unwrap();
    assert!(
        text.contains("<!-- Rule 2.0"),
        "prolog comments are kept:\n{text}"
    );
    assert!(text.contains(r#"<place box="Richmond" units="1 Vi" flags="entrenched"/>"#));
    assert_eq!(
        std::fs::read_to_string(dir.join("scenarios/1862.xml")).unwrap(),
        before,
        "an unedited scenario file is not rewritten"
    );

    let again = Document::open(&dir).expect("reopens");
    let (_, reread) = s1861(&again);
    let (_, wanted) = edits(&start).pop().unwrap();
    assert_eq!(reread, wanted);

    // The engine reads the saved setup.
    let module = load_module(&dir).expect("saved module loads");
    let s = module.scenario("1861").unwrap();
    assert_eq!(module.calendar.turn(s.start).label, "08/1861");
    let conf = module.find_side("confederate").unwrap();
    let richmond = module.board.find("Richmond").unwrap();
    let vi = module.units.find("Vi").unwrap();
    assert!(
        s.side(conf)
            .unwrap()
            .placements
            .iter()
            .any(|p| p.at == richmond
                && p.unit == vi
                && p.count == 1
                && p.flags.has(module.units.find_flag("entrenched").unwrap()))
    );
    let sedalia = module.board.find("Sedalia").unwrap();
    assert!(s.side(conf).unwrap().control.contains(&sedalia));
}

#[test]
fn each_scenario_edit_undoes_and_redoes() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).expect("opens");
    let (i, start) = s1861(&doc);
    let steps = edits(&start);
    let mut previous = start.clone();
    for (label, value) in steps {
        doc.set_scenario(i, value.clone(), label).unwrap();
        assert!(doc.undo().unwrap(), "{label} undoes");
        assert_eq!(doc.scenarios()[i].data, previous, "undo of {label}");
        assert!(doc.redo().unwrap());
        assert_eq!(doc.scenarios()[i].data, value, "redo of {label}");
        previous = value;
    }
    while doc.undo().unwrap() {}
    assert_eq!(doc.scenarios()[i].data, start);
    assert!(!doc.is_dirty());
}

#[test]
fn an_unknown_unit_type_is_reported_at_its_file_and_line() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).expect("opens");
    let (i, mut s) = s1861(&doc);
    s.add_placed("union", &named("Washington"), "Washington", "Zz", 1);
    doc.set_scenario(i, s, "place Zz").unwrap();
    let err = doc
        .validation()
        .errors()
        .find(|d| d.message.contains("unknown unit type 'Zz'"))
        .unwrap_or_else(|| panic!("{:?}", doc.validation().diagnostics))
        .clone();
    let loc = err.location.clone().expect("the error has a position");
    assert!(loc.file.ends_with("scenarios/1861.xml"), "{loc}");
    // The Washington placement is the first <place>, after the four prolog lines.
    let text = doc.scenarios()[i].text();
    let line = text
        .lines()
        .position(|l| l.contains("Zz"))
        .expect("written")
        + 1;
    assert_eq!(loc.line as usize, line, "{err}");
    // Nothing was written: the file on disk is unchanged and the undo clears the error.
    assert!(
        !std::fs::read_to_string(dir.join("scenarios/1861.xml"))
            .unwrap()
            .contains("Zz")
    );
    doc.undo().unwrap();
    assert!(doc.validation().is_ok());
}

#[test]
fn the_army_maximum_is_computed_live_by_the_engine() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).expect("opens");
    let (i, mut s) = s1861(&doc);
    let module = doc.last_module().unwrap().clone();
    let before = tallies(&module, &s, doc.live_scenario(i));
    let union = before.iter().find(|a| a.side == "union").unwrap();
    assert_eq!(union.stated, Some(34));
    assert_eq!(union.computed, Some(34));

    // Union units on Richmond take its control (and its Confederate recruitment value).
    s.add_placed("union", &named("Richmond"), "Richmond", "Vi", 1);
    doc.set_scenario(i, s.clone(), "place Vi").unwrap();
    assert!(
        doc.validation()
            .errors()
            .any(|d| d.message.contains("stated army maximum 29 of confederate")),
        "{:?}",
        doc.validation().diagnostics
    );
    let live = tallies(&module, &s, doc.live_scenario(i));
    let conf = live.iter().find(|a| a.side == "confederate").unwrap();
    assert_eq!(conf.computed, Some(26), "Richmond's 3 no longer count");
    assert_eq!(units_of(&s.sides[0].places.last().unwrap().units, "Vi"), 1);

    // Stating the computed maxima makes the module valid again.
    for a in &live {
        s.side_mut(&a.side).set_stated(&a.tally, a.computed);
    }
    doc.set_scenario(i, s, "army maxima").unwrap();
    assert!(
        doc.validation().is_ok(),
        "{:?}",
        doc.validation().diagnostics
    );
}

#[test]
fn every_ahd_scenario_compiles_live_and_its_computed_maxima_match_the_stated() {
    let (_tmp, dir) = common::ahd_copy();
    let doc = Document::open(&dir).expect("opens");
    let module = doc.last_module().expect("AHD loads").clone();
    assert!(
        doc.scenario_problems().is_empty(),
        "{:?}",
        doc.scenario_problems()
    );
    for (i, file) in doc.scenarios().iter().enumerate() {
        let live = doc.live_scenario(i);
        assert!(live.is_some(), "{} compiles", file.data.id);
        for am in tallies(&module, &file.data, live) {
            if let Some(stated) = am.stated {
                assert_eq!(am.computed, Some(stated), "{} {}", file.data.id, am.side);
            }
        }
    }
}
