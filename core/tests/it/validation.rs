//! Module validation, end to end: each test copies the mini fixture
//! (`tests/fixtures/mini`) into a temporary folder, makes one kind of mistake in it and
//! checks the exact one-line diagnostics `load_module` reports.
//!
//! Diagnostics are compared as rendered by [`rel`]: `Diagnostic`'s `Display` output with
//! the temporary folder stripped from every path, e.g.
//! `map.xml:26:26: error: unknown box 'Milbrok'; did you mean 'Millbrook'?`.
//! Lines and columns are 1-based; columns count characters. An attribute value's error
//! points at the value's first character, an element's error at its `<`.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use muster_core::{Diagnostic, LoadError, Module, Severity, load_module, scenario};
use muster_test_support::copy_dir;
use tempfile::TempDir;

const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// A copy of a fixture module in a temporary folder, at `<tmp>/<name>`.
struct TempModule {
    tmp: TempDir,
    dir: PathBuf,
}

impl TempModule {
    /// A fresh copy of the mini fixture, at `<tmp>/mini`.
    fn mini() -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("mini");
        copy_dir(Path::new(MINI), &dir);
        Self { tmp, dir }
    }

    /// Replaces `from` by `to` in `file`; `from` must occur exactly once.
    fn edit(&self, file: &str, from: &str, to: &str) -> &Self {
        let path = self.dir.join(file);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let n = text.matches(from).count();
        assert_eq!(
            n, 1,
            "{file}: expected {from:?} exactly once, found it {n} times"
        );
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write edited file");
        self
    }

    /// Writes (or overwrites) a file of the module.
    fn write(&self, file: &str, text: &str) -> &Self {
        let path = self.dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create folder");
        }
        std::fs::write(&path, text).expect("write file");
        self
    }

    fn load(&self) -> Result<Module, LoadError> {
        load_module(&self.dir)
    }

    /// Loads the module, which must fail, and renders every diagnostic relative to the
    /// module folder.
    fn errors(&self) -> Vec<String> {
        match self.load() {
            Ok(m) => panic!(
                "module loaded but errors were expected; warnings: {:?}",
                m.warnings
            ),
            Err(e) => {
                assert!(!e.diagnostics.is_empty(), "an Err without diagnostics");
                assert!(e.errors().next().is_some(), "an Err without an error");
                e.diagnostics.iter().map(|d| rel(d, &[&self.dir])).collect()
            }
        }
    }
}

/// Copies the mini fixture, applies `(file, from, to)` edits, loads it and returns the
/// rendered diagnostics (the load must fail).
fn diagnostics(edits: &[(&str, &str, &str)]) -> Vec<String> {
    let m = TempModule::mini();
    for (file, from, to) in edits {
        m.edit(file, from, to);
    }
    m.errors()
}

/// `<relative path>:<line>:<col>: <severity>: <message>; <hint>`, built from the
/// diagnostic's fields, with each of `roots` (and the separator after it) stripped from
/// every path, also those quoted in the message and hint. Checked against `Display`.
fn rel(d: &Diagnostic, roots: &[&Path]) -> String {
    let strip = |s: &str| -> String {
        roots.iter().fold(s.to_string(), |acc, root| {
            acc.replace(
                &format!("{}{}", root.display(), std::path::MAIN_SEPARATOR),
                "",
            )
        })
    };
    let mut out = String::new();
    if let Some(loc) = &d.location {
        let file = strip(&loc.file.display().to_string()).replace('\\', "/");
        out.push_str(&format!("{file}:{}:{}: ", loc.line, loc.col));
    }
    out.push_str(match d.severity {
        Severity::Error => "error: ",
        Severity::Warning => "warning: ",
    });
    out.push_str(&strip(&d.message));
    if let Some(hint) = &d.hint {
        out.push_str("; ");
        out.push_str(&strip(hint));
    }
    assert_eq!(
        out,
        strip(&d.to_string()).replace('\\', "/"),
        "Display disagrees with the diagnostic's fields"
    );
    assert!(!out.contains('\n'), "a diagnostic must render on one line");
    out
}

/// Escapes a path for an XML attribute value.
fn xml_attr(path: &Path) -> String {
    path.display()
        .to_string()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

/// Writes a module manifest (and optionally more files) into `dir`.
fn write_module(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).expect("create module folder");
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write module file");
    }
}

/// Runs `load_module` on a thread, failing the test if it does not return in time.
fn load_with_timeout(dir: PathBuf) -> Result<Module, LoadError> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(load_module(&dir));
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("load_module did not return within 20 s (a hang?)")
}

// ---------------------------------------------------------------------------------------
// The fixture itself
// ---------------------------------------------------------------------------------------

#[test]
fn mini_fixture_loads_cleanly() {
    let m = load_module(MINI).unwrap_or_else(|e| panic!("the mini fixture must load:\n{e}"));
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert_eq!(m.id, "mini");
    assert_eq!(m.engine, "0.1");
    assert!(m.extends.is_empty());
    let sides: Vec<&str> = m.sides.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(sides, ["north", "south"]);
    assert_eq!(m.board.kinds.len(), 3);
    assert_eq!(m.board.boxes.len(), 6);
    assert_eq!(m.board.lines.len(), 7);
    assert_eq!((m.board.width, m.board.height), (600, 400));
    assert_eq!(m.units.classes.len(), 2);
    assert_eq!(m.units.qualities.len(), 2);
    assert_eq!(m.units.types.len(), 3);
    assert_eq!(m.options.len(), 2);
    assert_eq!(m.scenarios.len(), 1);
    let turns: Vec<&str> = m.calendar.turns.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(turns, ["09/1861", "10/1861", "11-12/1861", "01-02/1862"]);
    assert_eq!(m.calendar.turn(m.calendar.end).label, "11-12/1861");

    let northport = m.board.find("north port").expect("alias resolves");
    assert_eq!(m.board.get(northport).name, "Northport");
    assert!(m.board.get(northport).has_tag("port"));
    let fort = m.board.find("Fort Stone").expect("Fort Stone");
    assert!(m.board.get(fort).has_tag("permanent-entrenchment"));
    assert!(m.board.get(fort).has_tag("border"));
    let river = m.board.find_kind("river").expect("river kind");
    let line = m
        .board
        .lines
        .iter()
        .find(|l| l.kind == river)
        .expect("a river line");
    assert_eq!(line.name.as_deref(), Some("Long River"));
    assert_eq!(line.downstream, m.board.find("Southgate"));
    let rivertown = m.board.find("Rivertown").expect("Rivertown");
    assert!(line.crosses_water_border_into(rivertown));

    let gi = m.units.find("Gi").expect("Gi");
    assert_eq!(m.units.get(gi).promotes_to, m.units.find("Vi"));
    assert_eq!(m.units.find("green infantry"), Some(gi));

    let s = &m.scenarios[0];
    let north = m.find_side("north").expect("north");
    let south = m.find_side("south").expect("south");
    let army = m.find_tally("army-maximum").expect("declared");
    assert_eq!(s.tally(&m, army, north), 3);
    assert_eq!(s.tally(&m, army, south), 4);
    assert_eq!(s.count_units(north, gi), 4);
}

// ---------------------------------------------------------------------------------------
// Malformed XML
// ---------------------------------------------------------------------------------------

#[test]
fn mismatched_closing_tag() {
    let got = diagnostics(&[(
        "map.xml",
        "    <value id=\"recruit\" side=\"north\" amount=\"2\"/>\n  </box>",
        "    <value id=\"recruit\" side=\"north\" amount=\"2\"/>\n  </bx>",
    )]);
    // Only the syntax error: no follow-on "the module has no boxes".
    assert_eq!(
        got,
        ["map.xml:10:3: error: closing tag </bx> does not match the open <box>"]
    );
}

#[test]
fn unclosed_root_element() {
    let got = diagnostics(&[("map.xml", "</map>\n", "")]);
    assert_eq!(got, ["map.xml:3:1: error: <map> is never closed"]);
}

#[test]
fn unclosed_box_is_reported_where_it_opens() {
    // A `<box>` whose `</box>` was deleted: the boxes after it nest inside it and the
    // reader notices only at `</map>`, but the error names the box's own line (issue
    // 15 item 5).
    let got = diagnostics(&[(
        "map.xml",
        "    <value id=\"recruit\" side=\"north\" amount=\"2\"/>\n  </box>",
        "    <value id=\"recruit\" side=\"north\" amount=\"2\"/>",
    )]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("map.xml:8:3: error: <box> is never closed (</map> at line "),
        "{got:?}"
    );
}

#[test]
fn unclosed_inner_element() {
    // `<side .../>` turned into an open `<side ...>`: the reader notices at the parent's
    // closing tag, but the error points where the element was opened (issue 15 item 5).
    let got = diagnostics(&[(
        "sides.xml",
        "<side id=\"south\" name=\"South\" color=\"#8a8d91\"/>",
        "<side id=\"south\" name=\"South\" color=\"#8a8d91\">",
    )]);
    assert_eq!(
        got,
        ["sides.xml:5:3: error: <side> is never closed (</sides> at line 8:1 comes first)"]
    );
}

#[test]
fn second_root_element() {
    let got = diagnostics(&[("sides.xml", "</sides>\n", "</sides>\n<sides/>\n")]);
    assert_eq!(
        got,
        [
            "sides.xml:9:1: error: second root element <sides>; a file holds one root element (the first is <sides>)"
        ]
    );
}

#[test]
fn double_dash_in_comment() {
    let got = diagnostics(&[("sides.xml", "<!-- Test", "<!-- Te--st")]);
    assert_eq!(
        got,
        [
            "sides.xml:2:8: error: '--' inside a comment: XML forbids two dashes in a row in a comment, so the file cannot be read; write the option otherwise (e.g. \"the --mod option\" as \"the 'mod' option\" or \"- -mod\"), or move it out of the comment"
        ]
    );
}

#[test]
fn invalid_utf8() {
    let m = TempModule::mini();
    let path = m.dir.join("sides.xml");
    let mut bytes = std::fs::read(&path).expect("read");
    let at = bytes
        .windows(5)
        .position(|w| w == b"South")
        .expect("South in sides.xml");
    bytes[at + 1] = 0xff; // "S\xffuth"
    std::fs::write(&path, bytes).expect("write");
    assert_eq!(
        m.errors(),
        ["sides.xml:5:27: error: the file is not valid UTF-8; save it as UTF-8"]
    );
}

// ---------------------------------------------------------------------------------------
// Unknown names, with "did you mean"
// ---------------------------------------------------------------------------------------

#[test]
fn misspelled_box_in_line() {
    let got = diagnostics(&[(
        "map.xml",
        "b=\"Millbrook\" kind=\"road\"",
        "b=\"Milbrok\" kind=\"road\"",
    )]);
    assert_eq!(
        got,
        ["map.xml:26:26: error: unknown box 'Milbrok'; did you mean 'Millbrook'?"]
    );
}

#[test]
fn misspelled_box_in_scenario_place() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "box=\"Millbrook\"",
        "box=\"Milbrock\"",
    )]);
    assert_eq!(
        got,
        ["scenarios/opening.xml:8:17: error: unknown box 'Milbrock'; did you mean 'Millbrook'?"]
    );
}

#[test]
fn an_unknown_box_far_from_any_name_lists_the_names_sharing_its_start() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "box=\"Millbrook\"",
        "box=\"Radford\"",
    )]);
    assert_eq!(
        got,
        [
            "scenarios/opening.xml:8:17: error: unknown box 'Radford'; known names starting with 'R': Rivertown"
        ]
    );
}

#[test]
fn misspelled_unit_type_points_at_list_item() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "units=\"2 Gi, 1 Vi\"",
        "units=\"2 Gi, 1 Vx\"",
    )]);
    assert_eq!(
        got,
        ["scenarios/opening.xml:7:41: error: unknown unit type 'Vx'; did you mean 'Vi'?"]
    );
}

#[test]
fn unknown_unit_type_lists_the_types() {
    // Two spaces before the item: the column is that of the item, not of the blank.
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "units=\"2 Gi, 1 Gc\"",
        "units=\"2 Gi,  2 Tank\"",
    )]);
    assert_eq!(
        got,
        ["scenarios/opening.xml:13:42: error: unknown unit type 'Tank'; unit types are Gi, Vi, Gc"]
    );
}

#[test]
fn unit_list_over_two_lines_points_at_the_item() {
    // A list may be wrapped; the item is on the second line.
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "units=\"2 Gi, 1 Vi\"",
        "units=\"2 Gi,\n                 1 Vx\"",
    )]);
    assert_eq!(
        got,
        ["scenarios/opening.xml:8:18: error: unknown unit type 'Vx'; did you mean 'Vi'?"]
    );
}

#[test]
fn unknown_attribute() {
    let got = diagnostics(&[(
        "map.xml",
        "b=\"Millbrook\" kind=\"road\"",
        "b=\"Millbrook\" kidn=\"road\"",
    )]);
    // An unknown attribute is pointed at by its name.
    assert_eq!(
        got,
        ["map.xml:26:37: error: unknown attribute 'kidn' in <line>; did you mean 'kind'?"]
    );
}

#[test]
fn unknown_element() {
    let got = diagnostics(&[(
        "map.xml",
        "<value id=\"recruit\" side=\"north\" amount=\"1\"/>\n  </box>\n  <box name=\"Rivertown\"",
        "<valeu id=\"recruit\" side=\"north\" amount=\"1\"/>\n  </box>\n  <box name=\"Rivertown\"",
    )]);
    assert_eq!(
        got,
        ["map.xml:12:5: error: unknown element <valeu> in <box>; did you mean 'value'?"]
    );
}

#[test]
fn unknown_side_in_scenario() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "<side id=\"south\"",
        "<side id=\"sout\"",
    )]);
    assert_eq!(
        got,
        ["scenarios/opening.xml:12:13: error: unknown side 'sout'; did you mean 'south'?"]
    );
}

#[test]
fn unknown_line_kind() {
    let got = diagnostics(&[(
        "map.xml",
        "b=\"Rivertown\" kind=\"rail\"",
        "b=\"Rivertown\" kind=\"rial\"",
    )]);
    assert_eq!(
        got,
        ["map.xml:27:43: error: unknown line kind 'rial'; did you mean 'rail'?"]
    );
}

#[test]
fn unknown_turn_in_scenario() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "start=\"09/1861\"",
        "start=\"08/1861\"",
    )]);
    assert_eq!(
        got,
        [
            "scenarios/opening.xml:5:63: error: unknown turn '08/1861'; turns run from 09/1861 to 01-02/1862, written MM/YYYY"
        ]
    );
}

#[test]
fn box_name_with_a_trailing_space_can_be_referenced() {
    // The definition and both references spell the name the same way, space included:
    // it must resolve (or the definition itself be reported), never "unknown box".
    let m = TempModule::mini();
    m.edit("map.xml", "name=\"Hill Farm\"", "name=\"Hill Farm \"")
        .edit(
            "map.xml",
            "b=\"Hill Farm\" kind=\"road\"",
            "b=\"Hill Farm \" kind=\"road\"",
        )
        .edit(
            "map.xml",
            "b=\"Hill Farm\" kind=\"rail\"",
            "b=\"Hill Farm \" kind=\"rail\"",
        );
    let got = match m.load() {
        Ok(_) => Vec::new(),
        Err(_) => m.errors(),
    };
    assert!(
        got.iter().all(|d| !d.contains("unknown box")),
        "a name spelled as defined is not found: {got:#?}"
    );
}

// ---------------------------------------------------------------------------------------
// Attribute values
// ---------------------------------------------------------------------------------------

#[test]
fn invalid_bool() {
    let got = diagnostics(&[(
        "map.xml",
        "name=\"River\" flows=\"true\"",
        "name=\"River\" flows=\"yes\"",
    )]);
    assert_eq!(
        got,
        ["map.xml:6:45: error: 'flows' of <line-kind> must be 'true' or 'false', found 'yes'"]
    );
}

#[test]
fn invalid_number() {
    let got = diagnostics(&[("map.xml", "x=\"300\"", "x=\"abc\"")]);
    assert_eq!(
        got,
        ["map.xml:11:42: error: 'x' of <box> must be a whole number, found 'abc'"]
    );
}

#[test]
fn number_out_of_range() {
    let got = diagnostics(&[(
        "map.xml",
        "<value id=\"recruit\" side=\"south\" amount=\"2\"/>",
        "<value id=\"recruit\" side=\"south\" amount=\"70000\"/>",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:20:46: error: 'amount' of <value> must be a whole number from 0 to 65535, found '70000'"
        ]
    );
}

#[test]
fn invalid_enum_value_with_suggestion() {
    let got = diagnostics(&[("units.xml", "returns-to=\"pool\"", "returns-to=\"pol\"")]);
    assert_eq!(
        got,
        [
            "units.xml:10:122: error: 'pol' is not a valid value for 'returns-to' of <unit>; did you mean 'pool'?"
        ]
    );
}

#[test]
fn invalid_enum_value_lists_the_values() {
    let got = diagnostics(&[("options.xml", "default=\"on\"", "default=\"yes\"")]);
    assert_eq!(
        got,
        [
            "options.xml:5:84: error: 'yes' is not a valid value for 'default' of <option>; expected one of 'on', 'off'"
        ]
    );
}

#[test]
fn missing_required_attribute() {
    let got = diagnostics(&[("map.xml", " x=\"300\" y=\"60\"", " x=\"300\"")]);
    assert_eq!(
        got,
        ["map.xml:11:3: error: <box> is missing 'y'; add y=\"...\""]
    );
}

// ---------------------------------------------------------------------------------------
// Boxes and lines
// ---------------------------------------------------------------------------------------

#[test]
fn duplicate_box_name() {
    // Names are compared without case.
    let got = diagnostics(&[(
        "map.xml",
        "  </box>\n\n  <line",
        "  </box>\n  <box name=\"northport\" x=\"10\" y=\"10\"/>\n\n  <line",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:25:14: error: duplicate box name 'northport'; box 'Northport' at map.xml:8:3 already has this name or alias"
        ]
    );
}

#[test]
fn alias_clash() {
    let got = diagnostics(&[(
        "map.xml",
        "aliases=\"Hillfarm\"",
        "aliases=\"Hillfarm; North Port\"",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:22:44: error: alias 'North Port' of box 'Hill Farm' is already a name or alias of box 'Northport'; each name and alias must be unique"
        ]
    );
}

#[test]
fn box_name_clashing_with_an_alias() {
    let got = diagnostics(&[(
        "map.xml",
        "  </box>\n\n  <line",
        "  </box>\n  <box name=\"Hillfarm\" x=\"10\" y=\"10\"/>\n\n  <line",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:25:14: error: duplicate box name 'Hillfarm'; box 'Hill Farm' at map.xml:22:3 already has this name or alias"
        ]
    );
}

#[test]
fn line_joining_a_box_to_itself() {
    // Through an alias: "Hillfarm" is "Hill Farm".
    let got = diagnostics(&[(
        "map.xml",
        "<line a=\"Southgate\" b=\"Hill Farm\" kind=\"rail\"/>",
        "<line a=\"Hillfarm\" b=\"Hill Farm\" kind=\"rail\"/>",
    )]);
    assert_eq!(
        got,
        ["map.xml:32:3: error: line joins 'Hill Farm' to itself; a line joins two different boxes"]
    );
}

#[test]
fn duplicate_line_in_reverse_order() {
    let got = diagnostics(&[(
        "map.xml",
        "</map>",
        "  <line a=\"Millbrook\" b=\"Northport\" kind=\"road\"/>\n</map>",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:36:3: error: duplicate road line Millbrook - Northport; remove it: the same line is at map.xml:26:3"
        ]
    );
}

#[test]
fn duplicate_line_in_same_order() {
    let got = diagnostics(&[(
        "map.xml",
        "</map>",
        "  <line a=\"northport\" b=\"Millbrook\" kind=\"road\"/>\n</map>",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:36:3: error: duplicate road line Northport - Millbrook; remove it: the same line is at map.xml:26:3"
        ]
    );
}

#[test]
fn same_boxes_with_another_line_kind_is_not_a_duplicate() {
    let m = TempModule::mini();
    m.edit(
        "map.xml",
        "</map>",
        "  <line a=\"Millbrook\" b=\"Northport\" kind=\"rail\"/>\n</map>",
    );
    let module = m.load().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(module.board.lines.len(), 8);
}

#[test]
fn river_without_downstream() {
    let got = diagnostics(&[("map.xml", " downstream=\"Southgate\"", "")]);
    assert_eq!(
        got,
        [
            "map.xml:30:3: error: the river Rivertown - Southgate has no downstream end; add downstream=\"Rivertown\" or downstream=\"Southgate\""
        ]
    );
}

#[test]
fn river_downstream_not_an_end() {
    let got = diagnostics(&[(
        "map.xml",
        "downstream=\"Southgate\"",
        "downstream=\"Millbrook\"",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:30:80: error: downstream 'Millbrook' is not an end of the river Rivertown - Southgate; write downstream=\"Rivertown\" or downstream=\"Southgate\""
        ]
    );
}

#[test]
fn downstream_on_a_line_kind_that_does_not_flow() {
    let got = diagnostics(&[(
        "map.xml",
        "<line a=\"Fort Stone\" b=\"Hill Farm\" kind=\"road\"/>",
        "<line a=\"Fort Stone\" b=\"Hill Farm\" kind=\"road\" downstream=\"Hill Farm\"/>",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:31:62: error: a road line has no downstream end: only kinds that flow do; remove downstream, or mark the line kind flows=\"true\""
        ]
    );
}

#[test]
fn water_border_not_an_end() {
    let got = diagnostics(&[(
        "map.xml",
        "water-border=\"Rivertown\"",
        "water-border=\"Millbrook\"",
    )]);
    assert_eq!(
        got,
        [
            "map.xml:30:105: error: water-border 'Millbrook' is not an end of the line Rivertown - Southgate; name 'Rivertown' or 'Southgate' (or both, separated by ';')"
        ]
    );
}

#[test]
fn box_without_lines_is_a_warning_only() {
    let m = TempModule::mini();
    m.edit(
        "map.xml",
        "  </box>\n\n  <line",
        "  </box>\n  <box name=\"Island\" x=\"10\" y=\"10\"/>\n\n  <line",
    );
    let module = m.load().unwrap_or_else(|e| panic!("{e}"));
    let warnings: Vec<String> = module.warnings.iter().map(|d| rel(d, &[&m.dir])).collect();
    assert_eq!(
        warnings,
        [
            "map.xml:25:3: warning: box 'Island' has no lines; units there can never move; add a <line> to it or remove the box"
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------

#[test]
fn more_units_than_the_counter_mix() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "units=\"1 Gi\"/>\n    <pool",
        "units=\"2 Gi\"/>\n    <pool",
    )]);
    assert_eq!(
        got,
        [
            "scenarios/opening.xml:6:3: error: north uses 5 Gi (Green Infantry) but the counter mix has 4; units on the board, in the pool and set aside all come from the counter mix"
        ]
    );
}

#[test]
fn stated_army_max_differs_from_computed() {
    let got = diagnostics(&[("scenarios/opening.xml", "value=\"3\"", "value=\"5\"")]);
    assert_eq!(
        got,
        [
            "scenarios/opening.xml:6:52: error: stated army maximum 5 of north does not match the 3 computed from the map and this setup; north's recruitment value over the boxes it controls at the start adds up to 3; fix the stated value or the setup"
        ]
    );
}

#[test]
fn army_max_counts_control_markers() {
    // Without its marker on the "border" boxes, south no longer controls Rivertown.
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "    <control tag=\"border\"/>\n",
        "",
    )]);
    assert_eq!(
        got,
        [
            "scenarios/opening.xml:12:52: error: stated army maximum 4 of south does not match the 3 computed from the map and this setup; south's recruitment value over the boxes it controls at the start adds up to 3; fix the stated value or the setup"
        ]
    );
}

#[test]
fn units_of_both_sides_in_one_box() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "<control tag=\"border\"/>",
        "<control tag=\"border\"/>\n    <place box=\"Millbrook\" units=\"1 Gi\"/>",
    )]);
    assert_eq!(
        got,
        [
            "scenarios/opening.xml:16:5: error: 'Millbrook' holds units of both north and south; the other side's units are placed at scenarios/opening.xml:8:5"
        ]
    );
}

#[test]
fn control_marker_where_the_other_side_has_units() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "<control tag=\"border\"/>",
        "<control tag=\"border\"/>\n    <control box=\"Northport\"/>",
    )]);
    // The error belongs to the <control> element that places the marker (line 16), not
    // to the whole <side> (line 12).
    assert_eq!(
        got,
        [
            "scenarios/opening.xml:16:5: error: south has a control marker on 'Northport', where north has units; units control their box; remove the marker"
        ]
    );
}

#[test]
fn scenario_built_on_a_broken_scenario_is_not_called_unknown() {
    let m = TempModule::mini();
    m.write(
        "scenarios/later.xml",
        "<scenario id=\"later\" name=\"Later\" setup=\"opening\" end=\"01-02/1862\"/>\n",
    )
    .edit(
        "module.xml",
        "</module>",
        "  <include file=\"scenarios/later.xml\"/>\n</module>",
    )
    .edit(
        "scenarios/opening.xml",
        "box=\"Millbrook\"",
        "box=\"Milbrock\"",
    );
    let got = m.errors();
    assert_eq!(
        got.first().map(String::as_str),
        Some(
            "scenarios/opening.xml:8:17: error: unknown box 'Milbrock'; did you mean 'Millbrook'?"
        )
    );
    // 'opening' exists; it has errors of its own, already reported.
    assert!(
        got.iter()
            .all(|d| !d.contains("unknown scenario 'opening'")),
        "misleading follow-on error: {got:#?}"
    );
}

#[test]
fn scenario_id_repeated_after_a_broken_scenario_is_a_duplicate() {
    let m = TempModule::mini();
    m.write(
        "scenarios/again.xml",
        "<scenario id=\"opening\" name=\"Again\" start=\"10/1861\"/>\n",
    )
    .edit(
        "module.xml",
        "</module>",
        "  <include file=\"scenarios/again.xml\"/>\n</module>",
    )
    .edit(
        "scenarios/opening.xml",
        "box=\"Millbrook\"",
        "box=\"Milbrock\"",
    );
    assert_eq!(
        m.errors(),
        [
            "scenarios/opening.xml:8:17: error: unknown box 'Milbrock'; did you mean 'Millbrook'?",
            "scenarios/again.xml:1:15: error: duplicate scenario 'opening'; the first is at scenarios/opening.xml:5:15",
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Files: includes, root elements, engine version
// ---------------------------------------------------------------------------------------

#[test]
fn include_of_a_missing_file() {
    let got = diagnostics(&[("module.xml", "\"options.xml\"", "\"option.xml\"")]);
    assert_eq!(
        got,
        [
            "module.xml:10:18: error: included file 'option.xml' does not exist; did you mean 'options.xml'?"
        ]
    );
}

#[test]
fn include_of_a_missing_file_in_a_subfolder() {
    let got = diagnostics(&[(
        "module.xml",
        "\"scenarios/opening.xml\"",
        "\"scenarios/opennig.xml\"",
    )]);
    // The suggestion must be something to write in file="...".
    assert_eq!(
        got,
        [
            "module.xml:11:18: error: included file 'scenarios/opennig.xml' does not exist; did you mean 'scenarios/opening.xml'?"
        ]
    );
}

#[test]
fn include_outside_the_module_folder() {
    let got = diagnostics(&[("module.xml", "\"options.xml\"", "\"../mini/options.xml\"")]);
    assert_eq!(
        got,
        [
            "module.xml:10:18: error: '../mini/options.xml' is not a path inside the module folder; use a path relative to the module folder, without .."
        ]
    );
}

#[test]
fn include_of_an_absolute_path() {
    let m = TempModule::mini();
    let abs = m.dir.join("options.xml");
    m.edit(
        "module.xml",
        "\"options.xml\"",
        &format!("\"{}\"", xml_attr(&abs)),
    );
    let got = m.errors();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("module.xml:10:18: error: '")
            && got[0].ends_with(
                "options.xml' is not a path inside the module folder; use a path relative to the module folder, without .."
            ),
        "{got:?}"
    );
}

#[test]
fn file_included_twice() {
    let got = diagnostics(&[(
        "module.xml",
        "  <include file=\"options.xml\"/>\n",
        "  <include file=\"options.xml\"/>\n  <include file=\"./options.xml\"/>\n",
    )]);
    assert_eq!(
        got,
        ["module.xml:11:18: error: './options.xml' is included twice; remove one <include>"]
    );
}

#[test]
fn unknown_root_element_of_an_included_file() {
    let got = diagnostics(&[
        ("units.xml", "<units>\n", "<unit>\n"),
        ("units.xml", "</units>", "</unit>"),
    ]);
    assert_eq!(
        got,
        ["units.xml:4:1: error: unknown kind of module file <unit>; did you mean 'units'?"]
    );
}

#[test]
fn unknown_root_element_lists_the_kinds() {
    let m = TempModule::mini();
    m.write(
        "terrain.xml",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<terrain/>\n",
    );
    m.edit(
        "module.xml",
        "</module>",
        "  <include file=\"terrain.xml\"/>\n</module>",
    );
    assert_eq!(
        m.errors(),
        [
            "terrain.xml:2:1: error: unknown kind of module file <terrain>; a module file's root is one of <sides>, <map>, <units>, <calendar>, <options>, <tables>, <scenario>, <changes>"
        ]
    );
}

#[test]
fn engine_version_mismatch() {
    let got = diagnostics(&[("module.xml", "engine=\"0.1\"", "engine=\"0.2\"")]);
    assert_eq!(
        got,
        [format!(
            "module.xml:4:67: error: module 'mini' needs engine 0.2, but this is muster {}; use muster 0.2.x, or port the module",
            env!("CARGO_PKG_VERSION")
        )]
    );
}

#[test]
fn engine_version_not_a_version() {
    let got = diagnostics(&[("module.xml", "engine=\"0.1\"", "engine=\"one\"")]);
    assert_eq!(
        got,
        ["module.xml:4:67: error: engine=\"one\" is not a version like 0.1"]
    );
}

#[test]
fn no_module_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let e = load_module(tmp.path()).expect_err("an empty folder is not a module");
    let got: Vec<String> = e
        .diagnostics
        .iter()
        .map(|d| rel(d, &[tmp.path()]))
        .collect();
    assert_eq!(
        got,
        [format!(
            "error: no module at '{}': module.xml not found; a module folder holds a module.xml manifest",
            tmp.path().display()
        )]
    );
}

// ---------------------------------------------------------------------------------------
// Every error is reported; nothing half-loaded
// ---------------------------------------------------------------------------------------

#[test]
fn two_mistakes_in_one_file_give_two_diagnostics() {
    let got = diagnostics(&[
        (
            "map.xml",
            "b=\"Millbrook\" kind=\"road\"",
            "b=\"Milbrok\" kind=\"road\"",
        ),
        ("map.xml", " downstream=\"Southgate\"", ""),
    ]);
    assert_eq!(
        got,
        [
            "map.xml:26:26: error: unknown box 'Milbrok'; did you mean 'Millbrook'?",
            "map.xml:30:3: error: the river Rivertown - Southgate has no downstream end; add downstream=\"Rivertown\" or downstream=\"Southgate\"",
        ]
    );
}

#[test]
fn mistakes_in_several_files_are_all_reported() {
    let got = diagnostics(&[
        (
            "map.xml",
            "b=\"Millbrook\" kind=\"road\"",
            "b=\"Milbrok\" kind=\"road\"",
        ),
        ("scenarios/opening.xml", "value=\"3\"", "value=\"5\""),
        ("units.xml", "returns-to=\"pool\"", "returns-to=\"pol\""),
    ]);
    // A file that cannot be read stops the load before names are resolved, so only
    // the read error is reported, not errors that may be its consequences.
    assert_eq!(
        got,
        [
            "units.xml:10:122: error: 'pol' is not a valid value for 'returns-to' of <unit>; did you mean 'pool'?"
        ]
    );

    let got = diagnostics(&[
        (
            "map.xml",
            "b=\"Millbrook\" kind=\"road\"",
            "b=\"Milbrok\" kind=\"road\"",
        ),
        ("scenarios/opening.xml", "value=\"3\"", "value=\"5\""),
        ("options.xml", "balance=\"south\"", "balance=\"soth\""),
    ]);
    assert_eq!(
        got,
        [
            "map.xml:26:26: error: unknown box 'Milbrok'; did you mean 'Millbrook'?",
            "options.xml:5:68: error: unknown balance 'soth'; did you mean 'south'?",
            "scenarios/opening.xml:6:52: error: stated army maximum 5 of north does not match the 3 computed from the map and this setup; north's recruitment value over the boxes it controls at the start adds up to 3; fix the stated value or the setup",
        ]
    );

    // Read errors in two files: both reported.
    let got = diagnostics(&[
        ("sides.xml", "</sides>\n", ""),
        ("units.xml", "returns-to=\"pool\"", "returns-to=\"pol\""),
    ]);
    assert_eq!(
        got,
        [
            "sides.xml:3:1: error: <sides> is never closed",
            "units.xml:10:122: error: 'pol' is not a valid value for 'returns-to' of <unit>; did you mean 'pool'?",
        ]
    );
}

#[test]
fn a_module_with_errors_is_an_err() {
    let m = TempModule::mini();
    m.edit("scenarios/opening.xml", "value=\"3\"", "value=\"5\"");
    let e = m
        .load()
        .expect_err("one wrong army-max fails the whole module");
    assert_eq!(e.errors().count(), 1);
    // The error's Display lists every diagnostic, one per line.
    assert_eq!(e.to_string().lines().count(), e.diagnostics.len());
}

// ---------------------------------------------------------------------------------------
// extends
// ---------------------------------------------------------------------------------------

const HOUSE_MAP: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- Test module extending the mini fixture: moves Millbrook, adds Lakeside. -->
<map>
  <box name="Millbrook" owner="north" x="333" y="60">
    <value id="recruit" side="north" amount="1"/>
  </box>
  <box name="Lakeside" owner="north" x="120" y="150"/>
  <line a="Lakeside" b="Northport" kind="road"/>
</map>
"#;

fn house_manifest(extends: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<module id="house" name="House Rules" version="0.1.0" engine="0.1">
  {extends}
  <include file="map.xml"/>
</module>
"#
    )
}

#[test]
fn extends_overrides_and_adds() {
    let base = TempModule::mini();
    let tmp = tempfile::tempdir().expect("temp dir");
    let house = tmp.path().join("house");
    let manifest = house_manifest(&format!(
        r#"<extends module="mini" path="{}"/>"#,
        xml_attr(&base.dir)
    ));
    write_module(&house, &[("module.xml", &manifest), ("map.xml", HOUSE_MAP)]);

    let m = load_module(&house).unwrap_or_else(|e| panic!("{e}"));
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert_eq!(m.id, "house");
    assert_eq!(m.extends, ["mini"]);
    assert_eq!(
        m.board.boxes.len(),
        7,
        "six boxes of mini, one replaced, one added"
    );
    assert_eq!(m.board.lines.len(), 8);
    let millbrook = m.board.find("Millbrook").expect("Millbrook");
    assert_eq!(m.board.get(millbrook).x, 333, "the override wins");
    assert_eq!(
        millbrook.index(),
        1,
        "an override keeps the base box's place"
    );
    assert_eq!(m.board.get(m.board.find("Northport").expect("kept")).x, 100);
    let lakeside = m.board.find("Lakeside").expect("added");
    assert_eq!(m.board.neighbours(lakeside).len(), 1);
    // Everything else comes from the base.
    assert_eq!(m.sides.len(), 2);
    assert_eq!(m.units.types.len(), 3);
    assert_eq!(m.options.len(), 2);
    assert_eq!(m.scenarios.len(), 1);
    assert_eq!(m.calendar.turns.len(), 4);
}

#[test]
fn extends_default_path_is_a_sibling_folder() {
    let base = TempModule::mini();
    let house = base.tmp.path().join("house");
    let manifest = house_manifest(r#"<extends module="mini"/>"#);
    write_module(&house, &[("module.xml", &manifest), ("map.xml", HOUSE_MAP)]);
    let m = load_module(&house).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.board.boxes.len(), 7);
}

#[test]
fn extends_rechecks_base_scenarios_against_the_merged_map() {
    // The override drops Millbrook's recruitment value: mini's scenario now states the
    // wrong army maximum for north, reported in mini's own file.
    let base = TempModule::mini();
    let house = base.tmp.path().join("house");
    let manifest = house_manifest(r#"<extends module="mini"/>"#);
    let map = HOUSE_MAP.replace(
        "\n    <value id=\"recruit\" side=\"north\" amount=\"1\"/>\n  </box>",
        "\n  </box>",
    );
    assert_ne!(map, HOUSE_MAP);
    write_module(&house, &[("module.xml", &manifest), ("map.xml", &map)]);
    let e = load_module(&house).expect_err("army-max no longer matches");
    let got: Vec<String> = e
        .diagnostics
        .iter()
        .map(|d| rel(d, &[base.tmp.path()]))
        .collect();
    assert_eq!(
        got,
        [
            "mini/scenarios/opening.xml:6:52: error: stated army maximum 3 of north does not match the 2 computed from the map and this setup; north's recruitment value over the boxes it controls at the start adds up to 2; fix the stated value or the setup"
        ]
    );
}

#[test]
fn extends_names_the_wrong_module() {
    let base = TempModule::mini();
    let house = base.tmp.path().join("house");
    let manifest = house_manifest(r#"<extends module="mimi" path="../mini"/>"#);
    write_module(&house, &[("module.xml", &manifest), ("map.xml", HOUSE_MAP)]);
    let e = load_module(&house).expect_err("wrong base id");
    let got: Vec<String> = e
        .diagnostics
        .iter()
        .map(|d| rel(d, &[base.tmp.path()]))
        .collect();
    assert_eq!(
        got,
        [
            "house/module.xml:3:20: error: folder 'house/../mini' holds module 'mini', not 'mimi'; write module=\"mini\" or point path at the right folder"
        ]
    );
}

#[test]
fn extends_checks_the_engine_version_of_the_base() {
    let base = TempModule::mini();
    base.edit("module.xml", "engine=\"0.1\"", "engine=\"9.9\"");
    let house = base.tmp.path().join("house");
    let manifest = house_manifest(r#"<extends module="mini"/>"#);
    write_module(&house, &[("module.xml", &manifest), ("map.xml", HOUSE_MAP)]);
    let got: Vec<String> = match load_module(&house) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .diagnostics
            .iter()
            .map(|d| rel(d, &[base.tmp.path()]))
            .collect(),
    };
    assert!(
        got.iter().any(|d| d.contains(
            "mini/module.xml:4:67: error: module 'mini' needs engine 9.9, but this is muster"
        )),
        "a base module for another engine is accepted: {got:#?}"
    );
}

#[test]
fn extends_itself() {
    let m = TempModule::mini();
    m.edit(
        "module.xml",
        "  <include file=\"sides.xml\"/>",
        "  <extends module=\"mini\" path=\".\"/>\n  <include file=\"sides.xml\"/>",
    );
    let got = load_with_timeout(m.dir.clone())
        .expect_err("a module extending itself is an error")
        .diagnostics
        .iter()
        .map(|d| rel(d, &[&m.dir]))
        .collect::<Vec<_>>();
    assert_eq!(
        got,
        [
            "module.xml:6:3: error: module 'mini' extends itself through '.'; remove the <extends> that closes the loop"
        ]
    );
}

#[test]
fn extends_cycle_is_an_error_not_a_hang() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let manifest = |id: &str, other: &str| {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<module id="{id}" name="{id}" version="0.1.0" engine="0.1">
  <extends module="{other}" path="../{other}"/>
</module>
"#
        )
    };
    write_module(
        &tmp.path().join("a"),
        &[("module.xml", &manifest("a", "b"))],
    );
    write_module(
        &tmp.path().join("b"),
        &[("module.xml", &manifest("b", "a"))],
    );
    let e = load_with_timeout(tmp.path().join("a")).expect_err("a cycle is an error");
    let got: Vec<String> = e
        .diagnostics
        .iter()
        .map(|d| rel(d, &[tmp.path()]))
        .collect();
    // Paths are joined, not normalized: b is named through a's folder.
    assert_eq!(
        got.first().map(String::as_str),
        Some(
            "b/module.xml:3:3: error: module 'b' extends itself through '../a'; remove the <extends> that closes the loop"
        ),
        "{got:#?}"
    );
    // The base folder is right, so no diagnostic may advise changing path="...".
    assert!(
        got.iter().all(|d| !d.contains("set path=")),
        "a follow-on error gives misleading advice: {got:#?}"
    );
}

#[test]
fn extends_chain_too_deep_is_an_error() {
    // m0 extends m1 extends ... m11 extends mini: deeper than the engine allows.
    let base = TempModule::mini();
    let n = 12;
    for i in 0..n {
        let next = if i + 1 == n {
            "mini".to_string()
        } else {
            format!("m{}", i + 1)
        };
        let manifest = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<module id="m{i}" name="m{i}" version="0.1.0" engine="0.1">
  <extends module="{next}"/>
</module>
"#
        );
        write_module(
            &base.tmp.path().join(format!("m{i}")),
            &[("module.xml", &manifest)],
        );
    }
    let e = load_with_timeout(base.tmp.path().join("m0")).expect_err("too deep");
    let first = e.diagnostics.first().expect("a diagnostic");
    assert_eq!(first.message, "more than 8 modules extend one another");
}

// ---------------------------------------------------------------------------------------
// scenario::resolve
// ---------------------------------------------------------------------------------------

const SKIRMISH: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- A scenario kept outside the module, given by path. -->
<scenario id="skirmish" name="Skirmish" start="10/1861" end="11/1861">
  <side id="north">
    <place box="Rivertown" units="1 Vi"/>
  </side>
  <side id="south">
    <place box="Hillfarm" units="1 Gc"/>
  </side>
</scenario>
"#;

#[test]
fn resolve_a_scenario_file() {
    let m = TempModule::mini();
    let module = m.load().unwrap_or_else(|e| panic!("{e}"));
    let path = m.tmp.path().join("skirmish.xml");
    std::fs::write(&path, SKIRMISH).expect("write scenario");
    let s = scenario::resolve(&module, path.to_str().expect("utf-8 path"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(s, Cow::Owned(_)), "read from the file");
    assert_eq!(s.id, "skirmish");
    assert_eq!(module.calendar.turn(s.start).label, "10/1861");
    assert_eq!(module.calendar.turn(s.end).label, "11-12/1861");
    let south = module.find_side("south").expect("south");
    let placed = &s.side(south).expect("south's setup").placements;
    assert_eq!(placed.len(), 1);
    assert_eq!(module.board.get(placed[0].at).name, "Hill Farm");
    assert_eq!(s.file, path);
}

#[test]
fn resolve_by_id_ignores_case() {
    let module = load_module(MINI).unwrap_or_else(|e| panic!("{e}"));
    let s = scenario::resolve(&module, "OPENING").unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(s, Cow::Borrowed(_)));
    assert_eq!(s.id, "opening");
}

#[test]
fn resolve_a_misspelled_id() {
    let module = load_module(MINI).unwrap_or_else(|e| panic!("{e}"));
    let e = scenario::resolve(&module, "openin").expect_err("no such scenario");
    let got: Vec<String> = e.diagnostics.iter().map(|d| rel(d, &[])).collect();
    assert_eq!(
        got,
        ["error: no scenario 'openin' in module 'mini' and no such file; did you mean 'opening'?"]
    );
    let e = scenario::resolve(&module, "1863").expect_err("no such scenario");
    let got: Vec<String> = e.diagnostics.iter().map(|d| rel(d, &[])).collect();
    assert_eq!(
        got,
        [
            "error: no scenario '1863' in module 'mini' and no such file; give a scenario id (opening) or the path of a scenario .xml file"
        ]
    );
}

#[test]
fn resolve_a_scenario_file_with_mistakes() {
    let m = TempModule::mini();
    let module = m.load().unwrap_or_else(|e| panic!("{e}"));
    let path = m.tmp.path().join("skirmish.xml");
    let text = SKIRMISH
        .replace("box=\"Hillfarm\"", "box=\"Hilfarm\"")
        .replace("units=\"1 Vi\"", "units=\"1 Vi, 3 Gx\"");
    std::fs::write(&path, text).expect("write scenario");
    let e =
        scenario::resolve(&module, path.to_str().expect("utf-8 path")).expect_err("two mistakes");
    let got: Vec<String> = e
        .diagnostics
        .iter()
        .map(|d| rel(d, &[m.tmp.path()]))
        .collect();
    assert_eq!(
        got,
        [
            "skirmish.xml:5:41: error: unknown unit type 'Gx'; did you mean 'Gi'?",
            "skirmish.xml:8:17: error: unknown box 'Hilfarm'; did you mean 'Hillfarm'?",
        ]
    );
}

#[test]
fn resolve_a_file_that_is_not_a_scenario() {
    let module = load_module(MINI).unwrap_or_else(|e| panic!("{e}"));
    let path = format!("{MINI}/map.xml");
    let e = scenario::resolve(&module, &path).expect_err("a map is not a scenario");
    let got: Vec<String> = e
        .diagnostics
        .iter()
        .map(|d| rel(d, &[Path::new(MINI)]))
        .collect();
    assert_eq!(
        got,
        ["map.xml:3:1: error: expected a <scenario> file, found <map>"]
    );
}

// ---------------------------------------------------------------------------------------
// Background scan
// ---------------------------------------------------------------------------------------

const MAP_OPEN: &str = "<map width=\"600\" height=\"400\">";

#[test]
fn map_background_loads_and_is_exposed() {
    let m = TempModule::mini();
    m.write("scans/board.png", "not decoded by the core");
    m.edit(
        "map.xml",
        MAP_OPEN,
        "<map width=\"600\" height=\"400\">\n  <background image=\"scans/board.png\" x=\"-5\" y=\"2.5\" scale=\"2\"/>",
    );
    let module = m.load().expect("module with a background loads");
    let bg = module
        .board
        .background
        .as_ref()
        .expect("background exposed");
    assert_eq!(bg.image, "scans/board.png");
    assert_eq!((bg.x, bg.y, bg.scale, bg.opacity), (-5.0, 2.5, 2.0, 0.5));
}

#[test]
fn map_without_background_has_none() {
    let module = TempModule::mini().load().expect("mini loads");
    assert!(module.board.background.is_none());
}

#[test]
fn missing_background_file_is_located() {
    let got = diagnostics(&[(
        "map.xml",
        MAP_OPEN,
        "<map width=\"600\" height=\"400\"><background image=\"scans/nope.png\"/>",
    )]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("map.xml:3:")
            && got[0].contains("error: background image 'scans/nope.png' does not exist"),
        "{got:?}"
    );
}

#[test]
fn background_path_escaping_the_module_is_located() {
    let m = TempModule::mini();
    m.write("../outside.png", "x");
    m.edit(
        "map.xml",
        MAP_OPEN,
        "<map width=\"600\" height=\"400\"><background image=\"../outside.png\"/>",
    );
    let got = m.errors();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("map.xml:3:")
            && got[0].contains("'../outside.png' is not a path inside the module folder"),
        "{got:?}"
    );
}

#[test]
fn unknown_background_attribute_is_an_error() {
    let m = TempModule::mini();
    m.write("b.png", "x");
    m.edit(
        "map.xml",
        MAP_OPEN,
        "<map width=\"600\" height=\"400\"><background image=\"b.png\" opactiy=\"1\"/>",
    );
    let got = m.errors();
    assert!(
        got.iter()
            .any(|e| e.starts_with("map.xml:3:") && e.contains("unknown attribute 'opactiy'")),
        "{got:?}"
    );
}

// ---------------------------------------------------------------------------------------
// The turn sequence (steps) and resources
// ---------------------------------------------------------------------------------------

#[test]
fn unknown_procedure_gets_a_suggestion() {
    let got = diagnostics(&[(
        "calendar.xml",
        r#"procedure="battles""#,
        r#"procedure="battle""#,
    )]);
    assert_eq!(
        got,
        [
            "calendar.xml:7:48: error: 'battle' is not a valid value for 'procedure' of <step>; did you mean 'battles'?"
        ]
    );
}

#[test]
fn max_rounds_belongs_to_battles_and_is_at_least_one() {
    let on_move = diagnostics(&[(
        "calendar.xml",
        r#"procedure="move" spends="moves""#,
        r#"procedure="move" spends="moves" max-rounds="3""#,
    )]);
    assert_eq!(
        on_move,
        ["calendar.xml:6:85: error: max-rounds is for procedure=\"battles\" steps"]
    );
    let zero = diagnostics(&[(
        "calendar.xml",
        r#"procedure="battles""#,
        r#"procedure="battles" max-rounds="0""#,
    )]);
    assert_eq!(
        zero,
        [
            "calendar.xml:7:69: error: max-rounds must be at least 1; leave it out for battles of any length"
        ]
    );
}

/// `activate` belongs to `move` steps, `combat` to those activating by piece, and
/// `resolve` to battles and move steps fighting immediately (issue 44), each refused
/// elsewhere at the attribute.
#[test]
fn activation_and_immediate_combat_attributes_belong_to_move_steps() {
    let on_battles = diagnostics(&[(
        "calendar.xml",
        r#"procedure="battles""#,
        r#"procedure="battles" activate="piece""#,
    )]);
    assert_eq!(
        on_battles,
        ["calendar.xml:7:67: error: activate is for procedure=\"move\" steps"]
    );
    let by_box = diagnostics(&[(
        "calendar.xml",
        r#"procedure="move" spends="moves""#,
        r#"procedure="move" spends="moves" combat="immediate""#,
    )]);
    assert_eq!(
        by_box,
        [
            "calendar.xml:6:81: error: combat is for procedure=\"move\" steps with activate=\"piece\"; battles fought during movement need pieces activated one at a time"
        ]
    );
    let resolve = diagnostics(&[(
        "calendar.xml",
        r#"procedure="move" spends="moves""#,
        r#"procedure="move" spends="moves" activate="piece" resolve="rules""#,
    )]);
    assert_eq!(
        resolve,
        [
            "calendar.xml:6:99: error: resolve is for procedure=\"battles\" steps and move steps with combat=\"immediate\""
        ]
    );
    let fine = TempModule::mini();
    fine.edit(
        "calendar.xml",
        r#"procedure="move" spends="moves""#,
        r#"procedure="move" spends="moves" activate="piece" combat="immediate" resolve="rules""#,
    );
    let m = fine.load().unwrap_or_else(|e| panic!("{e}"));
    let step = m
        .calendar
        .steps
        .iter()
        .find(|s| s.immediate)
        .expect("the move step");
    assert_eq!(step.activate, muster_core::format::Activate::Piece);
}

#[test]
fn a_step_spending_an_undeclared_resource() {
    let got = diagnostics(&[("calendar.xml", r#"spends="moves""#, r#"spends="move""#)]);
    assert_eq!(
        got,
        ["calendar.xml:6:66: error: unknown resource 'move'; did you mean 'moves'?"]
    );
}

#[test]
fn a_move_step_needs_a_resource_to_spend() {
    let got = diagnostics(&[("calendar.xml", r#" spends="moves""#, "")]);
    assert_eq!(
        got,
        [
            "calendar.xml:6:52: error: step 'movement': procedure 'move' needs spends=\"RESOURCE\", what its decisions cost"
        ]
    );
}

#[test]
fn bad_months_repeat_and_duplicate_steps() {
    let got = diagnostics(&[(
        "calendar.xml",
        r#"<step id="combat" name="Combat" procedure="battles"/>"#,
        r#"<step id="combat" name="Combat" procedure="battles" months="03 13"/>
    <step id="Movement" name="Again" procedure="script" repeat="0"/>"#,
    )]);
    assert_eq!(
        got,
        [
            "calendar.xml:7:68: error: '13' is not a month; write months as 01 to 12, e.g. months=\"03 06 09 12\"",
            "calendar.xml:8:15: error: duplicate step 'Movement'; the first is at calendar.xml:6:5",
        ],
    );
}

#[test]
fn turn_end_steps_cannot_fight_and_name_known_sides() {
    let got = diagnostics(&[(
        "calendar.xml",
        "</player-turn>",
        r#"</player-turn>
  <turn-end>
    <step id="war" name="War" procedure="battles"/>
    <step id="supply" name="Supply" procedure="script" side="nort"/>
  </turn-end>"#,
    )]);
    assert_eq!(
        got,
        [
            "calendar.xml:11:62: error: unknown side 'nort'; did you mean 'north'?",
            "calendar.xml:10:42: error: a turn-end step cannot fight battles; battles belong to a player turn, where one side attacks",
        ],
    );
}

#[test]
fn duplicate_resource() {
    let got = diagnostics(&[(
        "sides.xml",
        r#"<resource id="moves" name="Moves" expires="step"/>"#,
        r#"<resource id="moves" name="Moves" expires="step"/>
  <resource id="Moves" name="More"/>"#,
    )]);
    assert_eq!(
        got,
        ["sides.xml:7:17: error: duplicate resource 'Moves'; the first is at sides.xml:6:17"]
    );
}

/// A placement names flags the units declare (`<flag>`); a misspelt one is an error at
/// its place with the fix.
#[test]
fn unknown_flag_in_a_placement() {
    let got = diagnostics(&[(
        "scenarios/opening.xml",
        "flags=\"entrenched\"",
        "flags=\"entrenchd\"",
    )]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].contains("error: unknown flag 'entrenchd'; did you mean 'entrenched'?"),
        "{got:?}"
    );
    assert!(got[0].starts_with("scenarios/opening.xml:"), "{got:?}");
}

/// Placed flags reach the pieces, and tags declared in the map carry their marks.
#[test]
fn flags_and_declared_tags_compile() {
    let m = load_module(MINI).expect("mini loads");
    let entrenched = m.units.find_flag("entrenched").expect("declared");
    assert_eq!(
        m.units
            .flag_names(muster_core::unit::Flags::NONE.with(entrenched, true)),
        "entrenched"
    );
    let port = m.board.tag("port").expect("declared");
    assert_eq!(port.mark, Some(muster_core::format::TagMark::CornerDot));
    assert_eq!(m.board.tagged("port"), 2);
    assert_eq!(m.board.tagged("permanent-entrenchment"), 1);
}

/// A tag declared twice, or with a space, is an error.
#[test]
fn duplicate_or_spaced_tag() {
    let got = diagnostics(&[(
        "map.xml",
        "<tag id=\"port\" name=\"Port\" mark=\"corner-dot\"/>",
        "<tag id=\"port\" name=\"Port\"/><tag id=\"Port\" name=\"Again\"/><tag id=\"a b\" name=\"Spaced\"/>",
    )]);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].contains("duplicate tag 'Port'"), "{got:?}");
    assert!(got[1].contains("tag 'a b' has a space in it"), "{got:?}");
}

#[test]
fn place_in_belongs_to_place_steps_and_names_a_box_value() {
    let on_move = diagnostics(&[(
        "calendar.xml",
        r#"procedure="move" spends="moves""#,
        r#"procedure="move" spends="moves" place-in="recruit""#,
    )]);
    assert_eq!(
        on_move,
        ["calendar.xml:6:83: error: place-in is for procedure=\"place\" steps"]
    );
    let unknown = diagnostics(&[(
        "calendar.xml",
        r#"<step id="combat""#,
        r#"<step id="levy" name="Levy" procedure="place" spends="moves" place-in="recrut"/>
    <step id="combat""#,
    )]);
    assert_eq!(
        unknown,
        ["calendar.xml:7:76: error: unknown box value 'recrut'; did you mean 'recruit'?"]
    );
    let fine = TempModule::mini();
    fine.edit(
        "calendar.xml",
        r#"<step id="combat""#,
        r#"<step id="levy" name="Levy" procedure="place" spends="moves" place-in="recruit"/>
    <step id="combat""#,
    );
    let m = fine.load().expect("loads");
    let levy = &m.calendar.steps[1];
    assert_eq!(levy.place_in, m.board.find_value("recruit"));
}
