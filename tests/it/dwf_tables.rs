//! Data tables (`<tables>`): Divided We Fall's Combat Results Chart (L1071-L1099 of
//! `../shared/seeds/003_2cae1f8ca12d9fc8.txt`) read as data, and the located load errors
//! of a table written wrong.

use std::fs;

use muster_core::load_module;
use muster_test_support::{copy_dir, root};

/// The chart as printed (L1076-L1095): attacker value, then the attacker's losses in
/// the open, woods/rough, seasonal river/mountains/swamps, major river/sea invasion,
/// maximum, and the defender's losses.
const CHART: [[u8; 7]; 20] = [
    [1, 0, 1, 1, 1, 1, 0],
    [2, 1, 1, 1, 1, 1, 1],
    [3, 1, 2, 2, 2, 2, 1],
    [4, 2, 2, 2, 3, 3, 1],
    [5, 2, 3, 3, 3, 3, 2],
    [6, 2, 3, 4, 4, 4, 2],
    [7, 3, 4, 4, 4, 4, 2],
    [8, 3, 4, 5, 5, 5, 3],
    [9, 4, 5, 5, 6, 6, 3],
    [10, 4, 5, 6, 6, 6, 3],
    [11, 4, 6, 7, 7, 7, 4],
    [12, 5, 6, 7, 8, 8, 4],
    [13, 5, 7, 8, 8, 8, 4],
    [14, 6, 7, 8, 9, 9, 5],
    [15, 6, 8, 9, 10, 10, 5],
    [16, 6, 8, 10, 10, 10, 5],
    [17, 7, 9, 10, 11, 11, 6],
    [18, 7, 9, 11, 12, 12, 6],
    [19, 8, 10, 11, 12, 12, 6],
    [20, 8, 10, 12, 13, 13, 7],
];

const COLUMNS: [&str; 6] = [
    "attacker", "woods", "seasonal", "major", "maximum", "defender",
];

/// L1071-L1095: every cell of the module's chart is the printed one.
#[test]
fn the_combat_results_chart_is_the_printed_one() {
    let m = load_module(root().join("mods/dwf")).unwrap_or_else(|e| panic!("{e}"));
    let crt = m
        .tables
        .iter()
        .find(|t| t.id == "crt")
        .expect("a crt table");
    assert_eq!(crt.columns, COLUMNS);
    assert_eq!(crt.rows.len(), 20);
    for row in CHART {
        let key = row[0].to_string();
        for (c, column) in COLUMNS.iter().enumerate() {
            assert_eq!(
                crt.get(&key, column),
                Some(f64::from(row[c + 1])),
                "row {key}, column {column} (L{})",
                1075 + u32::from(row[0])
            );
        }
    }
}

/// Loads DWF with its `tables.xml` replaced by `text`; the load's error text.
fn load_error(text: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dwf");
    copy_dir(&root().join("mods/dwf"), &dir);
    fs::write(dir.join("tables.xml"), text).unwrap();
    match load_module(&dir) {
        Ok(_) => panic!("the module loaded"),
        Err(e) => e.to_string(),
    }
}

const HEAD: &str = "<tables>\n  <table id=\"crt\" rows=\"1-3\" columns=\"attacker defender\">\n";

#[test]
fn a_missing_row_is_a_located_load_error() {
    let err = load_error(&format!(
        "{HEAD}    <row key=\"1\" values=\"0 0\"/>\n    <row key=\"3\" values=\"1 1\"/>\n  </table>\n</tables>\n"
    ));
    assert!(
        err.contains("tables.xml:2:") && err.contains("declares rows 1-3 but has no row 2"),
        "{err}"
    );
}

#[test]
fn a_non_number_is_a_located_load_error() {
    let err = load_error(&format!(
        "{HEAD}    <row key=\"1\" values=\"0 0\"/>\n    <row key=\"2\" values=\"1 x\"/>\n    <row key=\"3\" values=\"1 1\"/>\n  </table>\n</tables>\n"
    ));
    assert!(
        err.contains("tables.xml:4:") && err.contains("column 'defender': 'x' is not a number"),
        "{err}"
    );
}

#[test]
fn a_row_short_of_a_value_is_a_located_load_error() {
    let err = load_error(&format!(
        "{HEAD}    <row key=\"1\" values=\"0 0\"/>\n    <row key=\"2\" values=\"1\"/>\n    <row key=\"3\" values=\"1 1\"/>\n  </table>\n</tables>\n"
    ));
    assert!(
        err.contains("tables.xml:4:") && err.contains("row '2' has 1 values for 2 columns"),
        "{err}"
    );
}

/// `resolve` belongs to `battles` steps (and move steps fighting their battles inside
/// the step): on another it is a located load error.
#[test]
fn resolve_on_a_step_that_is_not_battles_is_a_located_load_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dwf");
    copy_dir(&root().join("mods/dwf"), &dir);
    let calendar = fs::read_to_string(dir.join("calendar.xml")).unwrap();
    let patched = calendar.replace(
        "procedure=\"script\"/>",
        "procedure=\"script\" resolve=\"rules\"/>",
    );
    assert_ne!(patched, calendar);
    fs::write(dir.join("calendar.xml"), patched).unwrap();
    let err = load_module(&dir).expect_err("refused").to_string();
    assert!(
        err.contains("calendar.xml:22:")
            && err.contains("resolve is for procedure=\"battles\" steps"),
        "{err}"
    );
}

/// The year's parameters as the Order of Appearance charts print them (L1175-L1182,
/// L1206-L1212, L1259-L1264, L1303-L1308, L1331-L1336; the CSA's L1366-L1534 agree):
/// the largest infantry (CSA, USA), supply units a turn (CSA, USA), the largest fort and
/// the capitals' (L398, L426).
#[test]
fn the_years_parameters_are_the_printed_ones() {
    let m = load_module(root().join("mods/dwf")).unwrap_or_else(|e| panic!("{e}"));
    let years = m.tables.iter().find(|t| t.id == "years").expect("years");
    let printed: [(u16, [f64; 6]); 5] = [
        (1861, [3.0, 3.0, 0.0, 0.0, 1.0, 3.0]),
        (1862, [4.0, 3.0, 2.0, 3.0, 2.0, 3.0]),
        (1863, [5.0, 4.0, 2.0, 3.0, 3.0, 3.0]),
        (1864, [4.0, 5.0, 2.0, 3.0, 4.0, 4.0]),
        (1865, [4.0, 5.0, 2.0, 3.0, 4.0, 4.0]),
    ];
    let columns = [
        "confederate-size",
        "union-size",
        "confederate-supplies",
        "union-supplies",
        "fort",
        "capital-fort",
    ];
    for (year, values) in printed {
        for (c, v) in columns.iter().zip(values) {
            assert_eq!(years.get(&year.to_string(), c), Some(v), "{year} {c}");
        }
    }
    // L269-L286: the groups' rates.
    let groups = m
        .tables
        .iter()
        .find(|t| t.id == "replacement-groups")
        .expect("replacement-groups");
    for (g, rate) in [
        ("group-cs", 1.0),
        ("group-we", 1.0),
        ("group-capital", 3.0),
        ("group-midwest", 3.0),
        ("group-mississippi", 2.0),
    ] {
        assert_eq!(groups.get(g, "rate"), Some(rate), "{g}");
    }
}

/// The module's own `tables.xml` with `from` replaced by `to`: the load's error.
fn patched_error(from: &str, to: &str) -> String {
    let text = fs::read_to_string(root().join("mods/dwf/tables.xml")).unwrap();
    let patched = text.replacen(from, to, 1);
    assert_ne!(patched, text, "{from} is in tables.xml");
    load_error(&patched)
}

/// A year left out of the year's parameters is a load error at the table's line.
#[test]
fn a_missing_year_is_a_located_load_error() {
    let err = patched_error("    <row key=\"1863\" values=\"5 4 2 3 3 3 0 8 2\"/>\n", "");
    let text = fs::read_to_string(root().join("mods/dwf/tables.xml")).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("<table id=\"years\""))
        .expect("the years table")
        + 1;
    assert!(
        err.contains(&format!("tables.xml:{line}:"))
            && err.contains("table 'years' declares rows 1861-1865 but has no row 1863"),
        "{err}"
    );
}

/// A word where a group's rate should be is a load error at the row's line.
#[test]
fn a_rate_that_is_not_a_number_is_a_located_load_error() {
    let row = "<row key=\"group-midwest\" values=\"3 3\"/>";
    let err = patched_error(row, "<row key=\"group-midwest\" values=\"three 3\"/>");
    let text = fs::read_to_string(root().join("mods/dwf/tables.xml")).unwrap();
    let line = text.lines().position(|l| l.contains(row)).expect("the row") + 1;
    assert!(
        err.contains(&format!("tables.xml:{line}:"))
            && err.contains(
                "table 'replacement-groups', row 'group-midwest', column 'rate': 'three' is not a number"
            ),
        "{err}"
    );
}
