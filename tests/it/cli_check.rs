//! `muster check` as a user runs it: summary, JSON, exit status, one-line errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use muster_test_support::copy_dir;

const AHD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd");

fn muster(args: &[&str]) -> Output {
    // `check` type-checks the rules with it.
    muster_test_support::build_typechecker(std::path::Path::new(env!("CARGO_BIN_EXE_muster")));
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(args)
        .output()
        .expect("run muster")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A copy of the AHD module with one exact text replaced in one file.
fn ahd_with(file: &str, from: &str, to: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ahd");
    copy_dir(Path::new(AHD), &dir);
    let path = dir.join(file);
    let src = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        src.matches(from).count(),
        1,
        "{from:?} must occur once in {file}"
    );
    std::fs::write(&path, src.replace(from, to)).unwrap();
    (tmp, dir)
}

/// Line and column (1-based) where `needle` starts in `file`, plus an offset.
fn position(file: &Path, needle: &str, extra_cols: usize) -> (usize, usize) {
    let src = std::fs::read_to_string(file).unwrap();
    let at = src.find(needle).unwrap();
    let line = src[..at].matches('\n').count() + 1;
    let col = src[..at].rsplit('\n').next().unwrap().chars().count() + 1 + extra_cols;
    (line, col)
}

#[test]
fn check_ahd_prints_summary_and_army_maxima() {
    let out = muster(&["check", AHD]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("129 boxes, 232 lines (60 road, 142 rail, 30 river)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("tagged boxes: 17 Port, 4 Permanent entrenchment"),
        "{stdout}"
    );
    for (id, u, c) in [
        ("1861 ", 34, 29),
        ("1862 ", 35, 27),
        ("1863 ", 35, 23),
        ("1864 ", 36, 20),
    ] {
        let row = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(id))
            .unwrap();
        assert!(
            row.contains(&format!("union {u} ({u}), confederate {c} ({c})")),
            "{row}"
        );
    }
    assert!(
        text(&out.stderr).is_empty(),
        "no warnings expected: {}",
        text(&out.stderr)
    );
}

#[test]
fn check_json_is_one_object_with_computed_maxima() {
    let out = muster(&["check", AHD, "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["ok"], true);
    let s = &v["summary"];
    assert_eq!(s["boxes"], 129);
    assert_eq!(s["lines"], 232);
    assert_eq!(s["tags"][0]["tag"], "Port");
    assert_eq!(s["tags"][0]["count"], 17);
    assert_eq!(s["box_values"][0]["id"], "recruit");
    assert_eq!(
        s["box_values"][0]["boxes"], 47,
        "1.3: the Recruitment Cities"
    );
    let maxima = |id: &str| -> Vec<(String, u64)> {
        let sc = s["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id)
            .unwrap();
        sc["tallies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["side"].as_str().unwrap().to_string(),
                    a["computed"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        maxima("1863"),
        [("union".to_string(), 35), ("confederate".to_string(), 23)]
    );
    assert_eq!(
        maxima("1864"),
        [("union".to_string(), 36), ("confederate".to_string(), 20)]
    );
}

#[test]
fn misspelled_box_is_one_line_with_position_and_fix() {
    let (_tmp, dir) = ahd_with(
        "map.xml",
        r#"<line a="Murfreesboro" b="Sparta" kind="road"/>"#,
        r#"<line a="Murfreesbro" b="Sparta" kind="road"/>"#,
    );
    let out = muster(&["check", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let file = dir.join("map.xml");
    let (line, col) = position(&file, r#"Murfreesbro" b="Sparta""#, 0);
    let expected = format!(
        "{}:{line}:{col}: error: unknown box 'Murfreesbro'; did you mean 'Murfreesboro'?",
        file.display()
    );
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().next(), Some(expected.as_str()), "{stderr}");
}

#[test]
fn duplicated_line_is_one_line_with_position_and_fix() {
    let orig = r#"<line a="Murfreesboro" b="Sparta" kind="road"/>"#;
    let (_tmp, dir) = ahd_with(
        "map.xml",
        orig,
        &format!("{orig}\n  <line a=\"Sparta\" b=\"Murfreesboro\" kind=\"road\"/>"),
    );
    let out = muster(&["check", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let file = dir.join("map.xml");
    let (l1, c1) = position(&file, orig, 0);
    let (l2, c2) = position(&file, r#"<line a="Sparta" b="Murfreesboro""#, 0);
    let expected = format!(
        "{f}:{l2}:{c2}: error: duplicate road line Sparta - Murfreesboro; remove it: the same line is at {f}:{l1}:{c1}",
        f = file.display()
    );
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().next(), Some(expected.as_str()), "{stderr}");
}

#[test]
fn malformed_file_is_one_line_with_position() {
    let (_tmp, dir) = ahd_with(
        "units.xml",
        r#"<class id="cavalry" name="Cavalry"/>"#,
        r#"<class id="cavalry" name="Cavalry">"#,
    );
    let out = muster(&["check", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let file = dir.join("units.xml");
    // Reported where the element was opened, not at the parent's closing tag.
    let (line, col) = position(&file, r#"<class id="cavalry""#, 0);
    let (end_line, end_col) = position(&file, "</units>", 0);
    let expected = format!(
        "{}:{line}:{col}: error: <class> is never closed (</units> at line {end_line}:{end_col} comes first)",
        file.display()
    );
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().next(), Some(expected.as_str()), "{stderr}");
    assert_eq!(stderr.lines().count(), 2, "the error and a count: {stderr}");
}

#[test]
fn errors_are_json_too_and_exit_non_zero() {
    let (_tmp, dir) = ahd_with(
        "scenarios/1862.xml",
        r#"<tally id="army-maximum" value="35"/>"#,
        r#"<tally id="army-maximum" value="34"/>"#,
    );
    let out = muster(&["check", dir.to_str().unwrap(), "--json"]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    let d = &v["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("stated army maximum 34 of union"),
        "{d}"
    );
    assert!(
        d["location"]["file"]
            .as_str()
            .unwrap()
            .ends_with("1862.xml")
    );
}

#[test]
fn scenario_argument_takes_an_id_or_a_file() {
    let out = muster(&["check", AHD, "--scenario", "1863"]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("mine.xml");
    std::fs::write(
        &file,
        r#"<scenario id="mine" name="Richmond raid" start="05/1862">
  <side id="union"><tally id="army-maximum" value="34"/><place box="Richmond" units="1 Vc"/></side>
  <side id="confederate"><tally id="army-maximum" value="26"/><place box="Petersburg" units="2 Vi"/></side>
</scenario>"#,
    )
    .unwrap();
    let out = muster(&["check", AHD, "--scenario", file.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let extra = &v["extra_scenarios"][0];
    assert_eq!(extra["id"], "mine");
    // Union cavalry holding Richmond: Union 34 (Richmond has no Union value), CSA 29 - 3.
    assert_eq!(extra["tallies"][1]["tally"], "army-maximum");
    assert_eq!(extra["tallies"][1]["computed"], 26);

    let out = muster(&["check", AHD, "--scenario", "1683"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no scenario '1683'") && stderr.contains("did you mean '1863'?"),
        "{stderr}"
    );
}

#[test]
fn not_a_module_folder() {
    let out = muster(&["check", "/nonexistent/module"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: no module at '/nonexistent/module'"),
        "{stderr}"
    );
}

#[test]
fn a_broken_rules_script_fails_the_check() {
    let (_tmp, dir) = ahd_with(
        "rules/marches.luau",
        "unit: number): number\n\treturn 2\nend",
        "unit: number): number\n\treturn 2 +\nend",
    );
    let out = muster(&["check", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("error: rules: ahd/rules/marches.luau:"),
        "{stderr}"
    );
}

/// `--smoke N --smoke-turns 3` plays short random games and reports a rule error that
/// only shows in play, where it came and a command that plays the same game to it
/// (issue 18).
#[test]
fn smoke_games_find_a_run_time_rule_error_and_say_how_to_see_it() {
    // A house-rule typo that only runs in August: the command's name.
    let (_tmp, dir) = ahd_with(
        "rules/marches.luau",
        "function M.movement_started(game: Game): { any }\n",
        "function M.movement_started(game: Game): { any }\n\tif game:turn_month() == 8 then\n\t\treturn { { kind = \"set_controll\" } }\n\tend\n",
    );
    let dir_arg = dir.to_str().unwrap();
    let plain = muster(&["check", dir_arg]);
    assert!(
        plain.status.success(),
        "without --smoke the typo is not seen"
    );
    let out = muster(&["check", dir_arg, "--smoke", "4", "--smoke-turns", "3"]);
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("smoke: 4 random games of up to 3 turns: 1 rule error"),
        "{stdout}"
    );
    assert!(
        stdout.contains("unknown command 'set_controll'; did you mean 'set_control'?"),
        "{stdout}"
    );
    // Games of 1861 reach August when the Confederacy ends its July turn; 1862 and 1863
    // do not reach an August in three turns.
    assert!(
        stdout.contains("at 07/1861, Confederacy, Recruitment: taking 'end this segment' (in "),
        "{stdout}"
    );
    let command = stdout
        .lines()
        .find_map(|l| l.split("to see it: ").nth(1))
        .expect("a command to reproduce it");
    assert!(command.starts_with("muster play "), "{command}");
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    let replayed = muster(&args);
    assert!(!replayed.status.success());
    assert!(
        text(&replayed.stderr).contains("unknown command 'set_controll'"),
        "{}",
        text(&replayed.stderr)
    );
}

#[test]
fn smoke_games_of_ahd_find_no_rule_error() {
    let out = muster(&["check", AHD, "--smoke", "10", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["smoke"]["games"], 10);
    assert_eq!(report["smoke"]["errors"].as_array().map(Vec::len), Some(0));
}

/// Whole smoke games of Divided We Fall (issue 44): every scenario played to its end
/// by random players without a rule error, and each game ends.
#[test]
fn whole_smoke_games_of_dwf_end_without_a_rule_error() {
    let dwf = concat!(env!("CARGO_MANIFEST_DIR"), "/mods/dwf");
    let out = muster(&["check", dwf, "--smoke", "3", "--json", "--no-typecheck"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success(), "{report:#}");
    assert_eq!(
        report["smoke"]["turns"],
        serde_json::Value::Null,
        "whole games"
    );
    assert_eq!(report["smoke"]["errors"].as_array().map(Vec::len), Some(0));
}
