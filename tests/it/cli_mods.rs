//! `--mod`: stacks of mods on a module, as a user runs them from the repository root
//! (the shipped example `mods/examples/no-cairo-rail` and mods written in a temporary
//! folder): `muster check` shows the stack, a requirement not met is a located error,
//! and a save's replay refuses, naming the mod, when a mod of its stack changed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const EXAMPLE: &str = "mods/examples/no-cairo-rail";

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

fn path_arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// Writes a mod `id` into `dir/id` with a manifest holding `head`, a `changes.xml` and,
/// if given, a rules entry script.
fn write_mod(dir: &Path, id: &str, head: &str, changes: &str, rules: Option<&str>) -> PathBuf {
    let m = dir.join(id);
    std::fs::create_dir_all(m.join("rules")).unwrap();
    let entry = if rules.is_some() {
        "  <rules entry=\"rules/init.luau\"/>\n"
    } else {
        ""
    };
    std::fs::write(
        m.join("module.xml"),
        format!(
            "<module id=\"{id}\" name=\"{id}\" version=\"0.1.0\" engine=\"0.1\">\n{head}\n  <include file=\"changes.xml\"/>\n{entry}</module>\n"
        ),
    )
    .unwrap();
    std::fs::write(m.join("changes.xml"), changes).unwrap();
    if let Some(script) = rules {
        std::fs::write(m.join("rules/init.luau"), script).unwrap();
    }
    m
}

/// A second mod on the example: Militia Cavalry at 2, and AHD's may-enter handler
/// wrapped by id (so its script must load after AHD's, across the stack).
fn house_on_example(dir: &Path, hook_id: &str) -> PathBuf {
    write_mod(
        dir,
        "house",
        "  <extends module=\"no-cairo-rail\"/>\n  <requires module=\"no-cairo-rail\" version=\"^0.1\"/>",
        "<changes>\n  <patch><unit id=\"Mc\" combat=\"2\"/></patch>\n</changes>\n",
        Some(&format!(
            "hooks.wrap(\"{hook_id}\", function(next, ...)\n  return next(...)\nend)\n"
        )),
    )
}

#[test]
fn the_example_mod_checks_on_ahd() {
    let out = muster(&["check", "mods/ahd", "--mod", EXAMPLE]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("129 boxes, 231 lines"), "{stdout}");
}

#[test]
fn check_with_two_mods_prints_the_stack_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let house = house_on_example(tmp.path(), "ahd.may-enter");
    let out = muster(&[
        "check",
        "mods/ahd",
        "--mod",
        EXAMPLE,
        "--mod",
        path_arg(&house),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}{stdout}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("house \"house\" 0.1.0"), "{stdout}");
    assert_eq!(lines[1], "  extends no-cairo-rail < ahd");
    assert_eq!(lines[2], "  stack, in load order:");
    assert!(lines[3].starts_with("    1. ahd 0.1.0 (files "), "{stdout}");
    assert!(
        lines[4].starts_with("    2. no-cairo-rail 0.1.0 (files "),
        "{stdout}"
    );
    assert!(
        lines[5].starts_with("    3. house 0.1.0 (files "),
        "{stdout}"
    );

    let out = muster(&[
        "check",
        "mods/ahd",
        "--mod",
        EXAMPLE,
        "--mod",
        path_arg(&house),
        "--json",
    ]);
    let json: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let stack = json["summary"]["stack"].as_array().expect("the stack");
    let ids: Vec<&str> = stack.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ahd", "no-cairo-rail", "house"]);
    let hash = stack[0]["content_hash"].as_str().expect("a hex string");
    assert_eq!(hash.len(), 16);

    // The same mods in the other order: house extends a mod not yet loaded.
    let out = muster(&[
        "check",
        "mods/ahd",
        "--mod",
        path_arg(&house),
        "--mod",
        EXAMPLE,
    ]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("house/module.xml:2:20: error: module 'house' extends 'no-cairo-rail', which is not in the stack (ahd)"),
        "{stderr}"
    );
}

#[test]
fn a_stacked_mods_script_names_the_base_handlers() {
    let tmp = tempfile::tempdir().unwrap();
    let house = house_on_example(tmp.path(), "ahd.may-entre");
    let out = muster(&[
        "check",
        "mods/ahd",
        "--mod",
        EXAMPLE,
        "--mod",
        path_arg(&house),
    ]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("house/rules/init.luau:1") && stderr.contains("ahd.may-entre"),
        "{stderr}"
    );
}

#[test]
fn a_requirement_not_met_is_a_located_error() {
    let tmp = tempfile::tempdir().unwrap();
    let m = write_mod(
        tmp.path(),
        "needs-new-ahd",
        "  <extends module=\"ahd\"/>\n  <requires module=\"ahd\" version=\"&gt;=0.2\"/>",
        "<changes/>\n",
        None,
    );
    let out = muster(&["check", "mods/ahd", "--mod", path_arg(&m)]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    let want = format!(
        "{}:3:35: error: module 'needs-new-ahd' requires ahd >=0.2, but the ahd loaded is version 0.1.0",
        m.join("module.xml").display()
    );
    assert!(stderr.contains(&want), "expected {want:?} in {stderr}");
}

/// Plays a short game on AHD with `mod_dir` stacked, saved to `save`.
fn play_with_mod(mod_dir: &Path, save: &Path) {
    let out = muster(&[
        "play",
        "mods/ahd",
        "--mod",
        path_arg(mod_dir),
        "--union",
        "random",
        "--confederate",
        "random",
        "--seed",
        "5",
        "--end",
        "08/1861",
        "--quiet",
        "--save",
        path_arg(save),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn replay_refuses_a_changed_mod_and_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let example = tmp.path().join("no-cairo-rail");
    std::fs::create_dir_all(&example).unwrap();
    for f in ["module.xml", "changes.xml"] {
        std::fs::copy(Path::new(ROOT).join(EXAMPLE).join(f), example.join(f)).unwrap();
    }
    // Its extends path no longer reaches AHD from here, which a stack does not need.
    let save = tmp.path().join("g.json");
    play_with_mod(&example, &save);
    let saved: Value = serde_json::from_slice(&std::fs::read(&save).unwrap()).unwrap();
    let ids: Vec<&str> = saved["module"]["stack"]
        .as_array()
        .expect("the save records the stack")
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["ahd", "no-cairo-rail"]);

    let replay = |extra: &[&str]| {
        let mut args = vec!["replay", path_arg(&save), "--quiet"];
        args.extend_from_slice(extra);
        muster(&args)
    };
    let out = replay(&["--mod", path_arg(&example)]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    // Without the mod, the replay says which is missing.
    let out = replay(&["--module", "mods/ahd"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    let mut lines = stderr.lines();
    assert_eq!(
        lines.next(),
        Some(
            "error: the save was played with mod 'no-cairo-rail' 0.1.0 stacked on top, which is not loaded now; replaying it could give another game"
        )
    );
    // ... and how to replay it anyway (issue 17).
    assert!(
        lines
            .next()
            .is_some_and(|l| l.starts_with("hint: `muster replay ") && l.ends_with("--as-far-as-it-goes` replays it on the rules as they are now and names the first action they refuse")),
        "{stderr}"
    );

    // A changed mod is named.
    let changes = example.join("changes.xml");
    let edited = std::fs::read_to_string(&changes)
        .unwrap()
        .replace("combat=\"3\"", "combat=\"2\"");
    std::fs::write(&changes, edited).unwrap();
    let out = replay(&["--mod", path_arg(&example)]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(
            "error: mod 'no-cairo-rail' has changed since the save was played (its files hash to "
        ),
        "{stderr}"
    );
}

#[test]
fn a_save_without_a_stack_still_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let save = tmp.path().join("g.json");
    let out = muster(&[
        "play",
        "mods/ahd",
        "--union",
        "random",
        "--confederate",
        "random",
        "--seed",
        "5",
        "--end",
        "08/1861",
        "--quiet",
        "--save",
        path_arg(&save),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut saved: Value = serde_json::from_slice(&std::fs::read(&save).unwrap()).unwrap();
    let module = saved["module"].as_object_mut().unwrap();
    assert!(
        module.remove("stack").is_some(),
        "new saves record the stack"
    );
    std::fs::write(&save, serde_json::to_vec(&saved).unwrap()).unwrap();
    let out = muster(&["replay", path_arg(&save), "--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
