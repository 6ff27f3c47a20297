//! `muster check --watch`: saving a file re-checks the module, rules included; a broken
//! save is reported with its position and the last good version stays in use.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use muster_test_support::copy_dir;

struct Watch {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Watch {
    /// Starts `muster` with `args` and reads its output lines on a thread.
    fn start(args: &[&std::ffi::OsStr]) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_muster"))
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Watch { child, lines: rx }
    }

    /// Waits (at most 20 s, a bound on a hang, not a performance check) for a line
    /// containing `needle`; returns every line read until then.
    fn until(&self, needle: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(20)) {
                Ok(line) => {
                    let found = line.contains(needle);
                    seen.push(line);
                    if found {
                        return seen;
                    }
                }
                Err(_) => panic!("no line with {needle:?}; saw {seen:#?}"),
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert_eq!(text.matches(from).count(), 1, "{from}");
    std::fs::write(file, text.replace(from, to)).unwrap();
}

#[test]
fn saving_a_file_rechecks_the_module() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ahd");
    copy_dir(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd")),
        &dir,
    );
    let w = Watch::start(&["check".as_ref(), "--watch".as_ref(), dir.as_os_str()]);
    w.until("ok: module 'ahd'");
    w.until("watching");

    // A misspelled box: reported with file:line:column, the last good version kept.
    let map = dir.join("map.xml");
    edit(
        &map,
        r#"<line a="Murfreesboro" b="Sparta" kind="road"/>"#,
        r#"<line a="Murfreesbro" b="Sparta" kind="road"/>"#,
    );
    let seen = w.until("errors:");
    assert!(
        seen.iter().any(|l| l.contains("map.xml:")
            && l.contains("unknown box 'Murfreesbro'; did you mean 'Murfreesboro'?")),
        "{seen:#?}"
    );
    assert!(
        seen.last()
            .unwrap()
            .contains("the last good version stays in use")
    );

    // Fixed: good again.
    edit(
        &map,
        r#"<line a="Murfreesbro" b="Sparta" kind="road"/>"#,
        r#"<line a="Murfreesboro" b="Sparta" kind="road"/>"#,
    );
    w.until("ok: module 'ahd'");

    // A broken rules script: reported with the script's file and line.
    let script = dir.join("rules/marches.luau");
    edit(
        &script,
        "function M.move_limit(game, unit: number): number\n\treturn 2",
        "function M.move_limit(game, unit: number): number\n\treturn 2 +",
    );
    let seen = w.until("errors:");
    assert!(
        seen.iter().any(|l| l.contains("ahd/rules/marches.luau:")),
        "{seen:#?}"
    );
}

/// With `--mod`, the stack is checked and every mod's folder is watched: a broken save
/// in the mod is reported with the mod's file, and the fix is taken.
#[test]
fn watching_a_stack_rechecks_on_a_save_in_a_mod() {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/mods"));
    let ahd = tmp.path().join("ahd");
    copy_dir(&root.join("ahd"), &ahd);
    let raid = tmp.path().join("rail-raid");
    copy_dir(&root.join("examples/rail-raid"), &raid);
    let w = Watch::start(&[
        "check".as_ref(),
        "--watch".as_ref(),
        ahd.as_os_str(),
        "--mod".as_ref(),
        raid.as_os_str(),
    ]);
    w.until("ok: module 'rail-raid'");
    w.until("watching");

    let script = raid.join("rules/init.luau");
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(&script, format!("{text}\nthis is not luau (\n")).unwrap();
    let seen = w.until("errors:");
    assert!(
        seen.iter()
            .any(|l| l.contains("rail-raid/rules/init.luau:")),
        "{seen:#?}"
    );
    std::fs::write(&script, text).unwrap();
    w.until("ok: module 'rail-raid'");
}

/// Issue 45 item 1: the watch type-checks too, each save: a type error is printed above
/// the status line (the rules still load).
#[test]
fn saving_a_rules_file_type_checks_it() {
    muster_test_support::build_typechecker(Path::new(env!("CARGO_BIN_EXE_muster")));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ahd");
    copy_dir(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd")),
        &dir,
    );
    let w = Watch::start(&["check".as_ref(), "--watch".as_ref(), dir.as_os_str()]);
    let seen = w.until("watching");
    assert!(!seen.iter().any(|l| l.contains("type error")), "{seen:#?}");
    let script = dir.join("rules/marches.luau");
    edit(
        &script,
        "function M.move_limit(game, unit: number): number\n\treturn 2",
        "function M.move_limit(game, unit: number): number\n\treturn \"2\"",
    );
    let seen = w.until("ok: module 'ahd'");
    assert!(
        seen.iter()
            .any(|l| l.starts_with("ahd/rules/marches.luau:") && l.contains(": error: ")),
        "{seen:#?}"
    );
    assert!(
        seen.iter().any(|l| l == "type errors: 1 found"),
        "{seen:#?}"
    );
}
