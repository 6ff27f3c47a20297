//! `muster new-mod`: the skeleton passes `muster check` as created, and a name taken or
//! a base that does not exist is refused with a message, not a panic.

use std::path::Path;
use std::process::{Command, Output};

use muster_test_support::copy_dir;

const AHD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd");

fn muster(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(args)
        .output()
        .expect("run muster")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A `mods` folder holding a copy of AHD.
fn mods() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mods = tmp.path().join("mods");
    copy_dir(Path::new(AHD), &mods.join("ahd"));
    let mods = mods.to_string_lossy().into_owned();
    (tmp, mods)
}

#[test]
fn a_new_mod_passes_check_as_created() {
    let (_tmp, mods) = mods();
    let out = muster(&["new-mod", "ahd-house", "--extends", "ahd", "--dir", &mods]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let folder = Path::new(&mods).join("ahd-house");
    for file in [
        "module.xml",
        "rules/init.luau",
        "tests/first.luau",
        "tests/.luaurc",
        ".luaurc",
        "types/muster.d.luau",
        ".vscode/settings.json",
        "README.md",
    ] {
        assert!(folder.join(file).is_file(), "{file} missing");
    }
    let manifest = std::fs::read_to_string(folder.join("module.xml")).expect("manifest");
    assert!(
        manifest.contains(r#"<extends module="ahd" path="../ahd"/>"#),
        "{manifest}"
    );
    let rules = std::fs::read_to_string(folder.join("rules/init.luau")).expect("rules");
    assert!(rules.starts_with("--!strict"), "{rules}");
    assert!(
        rules.contains(r#"{ id = "ahd-house.step-started" }"#),
        "{rules}"
    );
    let types = std::fs::read_to_string(folder.join("types/muster.d.luau")).expect("types");
    assert_eq!(types, muster_scripting::api::definitions());

    let folder = folder.to_string_lossy().into_owned();
    let out = muster(&["check", &folder, "--smoke", "2"]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("ahd-house"),
        "{}",
        text(&out.stdout)
    );
    // Its first test passes as created.
    let out = muster(&["test", &folder]);
    assert!(
        out.status.success() && text(&out.stdout).contains("1 passed, 0 failed"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn a_base_elsewhere_is_named_by_its_relative_path() {
    let (tmp, mods) = mods();
    let other = tmp.path().join("elsewhere");
    let base = format!("{mods}/ahd");
    let out = muster(&[
        "new-mod",
        "house",
        "--extends",
        &base,
        "--dir",
        &other.to_string_lossy(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let manifest = std::fs::read_to_string(other.join("house/module.xml")).expect("manifest");
    assert!(manifest.contains(r#"path="../../mods/ahd""#), "{manifest}");
    // typecheck/tests/it/definitions.rs type-checks this very file in strict mode.
    let rules = std::fs::read_to_string(other.join("house/rules/init.luau")).expect("rules");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("typecheck/tests/fixtures/new-mod-init.luau");
    assert_eq!(
        rules,
        std::fs::read_to_string(&fixture).expect("fixture"),
        "a new mod's rules changed: copy them to {}",
        fixture.display()
    );
    let out = muster(&["check", &other.join("house").to_string_lossy()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn taken_names_unknown_bases_and_bad_names_are_refused() {
    let (_tmp, mods) = mods();
    let out = muster(&["new-mod", "ahd", "--extends", "ahd", "--dir", &mods]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("exists already"), "{err}");

    let out = muster(&["new-mod", "house", "--extends", "ahdd", "--dir", &mods]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("no base module 'ahdd'"), "{err}");
    assert!(err.contains("modules in"), "{err}");
    assert!(err.contains("ahd"), "{err}");
    assert!(!Path::new(&mods).join("house").exists());

    let out = muster(&["new-mod", "../House", "--extends", "ahd", "--dir", &mods]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("is not a mod name"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
