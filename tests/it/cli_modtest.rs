//! `muster test`: the shipped module and mods pass their own Luau rule tests, and a
//! failing test reports its file and line with a non-zero exit.

use std::path::Path;
use std::process::{Command, Output};

use muster_test_support::{ahd_dir, copy_dir_except};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn muster(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(ROOT)
        .args(args)
        .env_remove("MUSTER_LOG")
        .output()
        .expect("run muster")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `muster test` and checks every test passed; returns stdout.
fn passes(args: &[&str]) -> String {
    let mut all = vec!["test"];
    all.extend_from_slice(args);
    let out = muster(&all);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "muster {all:?}:\n{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    stdout
}

/// How many cases passed, from the summary line.
fn passed(stdout: &str) -> usize {
    let last = stdout.lines().last().unwrap_or_default();
    last.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[test]
fn the_ahd_module_passes_its_rule_tests() {
    let out = passes(&["mods/ahd"]);
    assert!(passed(&out) >= 10, "{out}");
    assert!(out.contains("4.3 example"), "{out}");
}

/// `--with-base` on the two adaptations (issue 45): AHD's own tests run on each, and
/// every one a mod changes on purpose is marked with the rule that changes it. A base
/// test names actions in its own module's words: AHD's "march: activate Fredericksburg"
/// finds the TripleA adaptation's "buy a march for Fredericksburg", so the Potomac test
/// (4.2, kept by the adaptation) runs and passes there.
#[test]
fn the_adaptations_pass_ahds_tests_with_their_changes_marked() {
    let out = passes(&["mods/ahd-triplea", "--with-base"]);
    assert!(out.contains("0 failed, 13 changed by the mods"), "{out}");
    assert!(
        out.contains("ok   mods/ahd/tests/movement.luau: 4.2: Confederate units may never move along the Potomac"),
        "{out}"
    );
    assert!(out.contains("changed by ahd-triplea"), "{out}");
    let out = passes(&["mods/ahd-1981", "--with-base"]);
    assert!(out.contains("0 failed, 2 changed by the mods"), "{out}");
    assert!(out.contains("1981 9.0: a box is captured only"), "{out}");
}

#[test]
fn every_shipped_mod_passes_its_rule_tests() {
    let out = passes(&["mods/ahd-triplea"]);
    assert!(passed(&out) >= 3, "{out}");
    // The first edition: each of its differences from the Living Rules is a case.
    let out = passes(&["mods/ahd-1981"]);
    assert!(passed(&out) >= 15, "{out}");
    assert!(out.contains("1981 9.0"), "{out}");
    let examples = Path::new(ROOT).join("mods/examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let dir = entry.unwrap().path();
        let rel = format!(
            "mods/examples/{}",
            dir.file_name().unwrap().to_string_lossy()
        );
        assert!(
            dir.join("tests").is_dir(),
            "{rel} has no tests/ folder: every shipped mod has tests"
        );
        let out = passes(&[&rel]);
        assert!(passed(&out) >= 1, "{out}");
        let check = muster(&["check", &rel, "--smoke", "1"]);
        assert!(check.status.success(), "{rel}: {}", text(&check.stderr));
        seen += 1;
    }
    assert!(seen >= 4, "the example mods: {seen}");
}

/// The stacked example given in full: its tests run on AHD, rail-raid and itself.
#[test]
fn a_stack_of_two_mods_checks_and_passes_the_top_mods_tests() {
    let stack = [
        "mods/ahd",
        "--mod",
        "mods/examples/rail-raid",
        "--mod",
        "mods/examples/cavalry-screen",
    ];
    let mut check = vec!["check"];
    check.extend_from_slice(&stack);
    let out = muster(&check);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("2. rail-raid 0.1.0"), "{stdout}");
    assert!(stdout.contains("3. cavalry-screen 0.1.0"), "{stdout}");
    let out = passes(&stack);
    assert!(out.contains("cavalry-screen/tests/screen.luau"), "{out}");
    // Without rail-raid under it, the mod does not load.
    let out = muster(&["test", "mods/ahd", "--mod", "mods/examples/cavalry-screen"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("rail-raid"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn filter_runs_only_the_matching_cases() {
    let out = passes(&["mods/ahd", "--filter", "4.3 EXAMPLE"]);
    assert_eq!(passed(&out), 2, "{out}");
    // A filter that matches nothing tests nothing: an error, not a pass.
    let out = muster(&["test", "mods/ahd", "--filter", "no such case"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no test in mods/ahd/tests matches 'no such case'"),
        "{}",
        text(&out.stderr)
    );
}

/// A copy of AHD with test files that fail in each way a modder's can.
#[test]
fn failures_name_the_file_and_line_and_the_exit_is_non_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let ahd = tmp.path().join("ahd");
    copy_dir_except(&ahd_dir(), &ahd, &["tests"]);
    let tests = ahd.join("tests");
    std::fs::create_dir_all(&tests).unwrap();
    std::fs::write(
        tests.join("a_expect.luau"),
        "test.case(\"passes\", function(t)\n  t:eq(1 + 1, 2)\nend)\n\
         test.case(\"fails\", function(t)\n  local g = t:game({ scenario = \"1861\", side = \"union\", dice = { 3 } })\n  t:eq(g:resource(\"marches\"), 4, \"marches\")\nend)\n",
    )
    .unwrap();
    std::fs::write(
        tests.join("b_syntax.luau"),
        "test.case(\"never\", function(t)\n  t:eq(1, 1\nend)\n",
    )
    .unwrap();
    std::fs::write(
        tests.join("c_runtime.luau"),
        "test.case(\"indexes nil\", function(t)\n  local x = nil\n  x.y = 1\nend)\n\
         test.case(\"acts illegally\", function(t)\n  local g = t:game({ scenario = \"1861\", side = \"union\", dice = { 3 } })\n  g:act(\"march: activate Washingtn\")\nend)\n\
         test.case(\"bad game field\", function(t)\n  t:game({ scenaro = \"1861\" })\nend)\n",
    )
    .unwrap();
    let dir = ahd.to_str().unwrap();
    let out = muster(&["test", dir]);
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    let file = |name: &str| tests.join(name).display().to_string();
    for expected in [
        format!("{}:6: marches: expected 4, got 3", file("a_expect.luau")),
        format!("{}:3:", file("b_syntax.luau")),
        format!("{}:3: attempt to index nil", file("c_runtime.luau")),
        format!(
            "{}:7: 'march: activate Washingtn' is not a legal action now; did you mean 'march: activate Washington'?",
            file("c_runtime.luau")
        ),
        format!(
            "{}:10: t:game: unknown field 'scenaro'; did you mean 'scenario'?",
            file("c_runtime.luau")
        ),
        "1 passed, 5 failed".to_string(),
    ] {
        assert!(stdout.contains(&expected), "no {expected:?} in:\n{stdout}");
    }
}

#[test]
fn a_module_without_tests_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let ahd = tmp.path().join("ahd");
    copy_dir_except(&ahd_dir(), &ahd, &["tests"]);
    let out = muster(&["test", ahd.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("tests"), "{}", text(&out.stderr));
}
