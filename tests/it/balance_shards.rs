//! `muster balance --shard I/N --part FILE` and `muster balance merge` (issue 48, item 4):
//! a study cut into parts on several machines reports exactly what one run reports, and
//! parts that are not one whole study are refused in one line with no report printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The study every test here cuts: six random games of the Short Game.
const STUDY: [&str; 10] = [
    "mods/ahd",
    "--games",
    "6",
    "--scenario",
    "1861-short",
    "--union",
    "random",
    "--confederate",
    "random",
    "--threads=1",
];

fn muster(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(ROOT)
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Plays part `shard` of the study with `extra` arguments into `dir`; the part's path.
fn part(dir: &Path, shard: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(format!("part-{}.json", shard.replace('/', "-of-")));
    let mut args = vec!["balance"];
    args.extend(STUDY);
    args.extend(extra);
    args.extend(["--shard", shard, "--part", path.to_str().unwrap()]);
    let stdout = ok(muster(&args));
    assert!(stdout.is_empty(), "a part prints no report");
    path
}

fn merge(parts: &[&Path], extra: &[&str]) -> Output {
    let mut args = vec!["balance", "merge"];
    args.extend(parts.iter().map(|p| p.to_str().unwrap()));
    args.extend(extra);
    muster(&args)
}

#[test]
fn merged_parts_report_the_one_machine_study_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut whole = vec!["balance"];
    whole.extend(STUDY);
    let text = ok(muster(&whole));
    let mut json_args = whole.clone();
    json_args.push("--json");
    let json = ok(muster(&json_args));

    let parts: Vec<PathBuf> = ["1/3", "2/3", "3/3"]
        .iter()
        .map(|s| part(dir.path(), s, &[]))
        .collect();
    // Any order: a scheduler's parts finish when they finish.
    let shuffled = [&*parts[2], &*parts[0], &*parts[1]];
    let merged = ok(merge(&shuffled, &[]));
    assert_eq!(
        String::from_utf8_lossy(&merged),
        String::from_utf8_lossy(&text)
    );
    assert!(String::from_utf8_lossy(&text).starts_with("6 games of "));
    assert_eq!(ok(merge(&shuffled, &["--json"])), json);

    // The CSV of the merge is the one run's, game by game.
    let (a, b) = (dir.path().join("one.csv"), dir.path().join("merged.csv"));
    let mut csv_args = whole.clone();
    csv_args.extend(["--csv", a.to_str().unwrap()]);
    ok(muster(&csv_args));
    ok(merge(&shuffled, &["--csv", b.to_str().unwrap()]));
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap()
    );
}

/// What a failing `muster balance ...` says: its one-line error; stdout must be empty.
fn refused(out: Output) -> String {
    assert!(!out.status.success(), "succeeded");
    assert!(out.stdout.is_empty(), "a report was printed");
    String::from_utf8_lossy(&out.stderr).trim().to_string()
}

#[test]
fn a_shard_outside_its_study_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.json");
    for (shard, says) in [
        ("0/4", "counts from 1 to 4"),
        ("5/4", "counts from 1 to 4"),
        ("1/0", "at least one part"),
        ("7/7", "a study of 6 games has at most 6 parts"),
    ] {
        let mut args = vec!["balance"];
        args.extend(STUDY);
        args.extend(["--shard", shard, "--part", file.to_str().unwrap()]);
        let err = refused(muster(&args));
        assert!(err.contains(says), "{shard}: {err}");
    }
    assert!(!file.exists(), "nothing written");
}

#[test]
fn parts_that_are_not_one_whole_study_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let one = part(dir.path(), "1/2", &[]);
    let two = part(dir.path(), "2/2", &[]);
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let other_seed = part(&other, "2/2", &["--seed", "9"]);

    let err = refused(merge(&[&one], &[]));
    assert!(err.contains("part 2/2 is missing"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let err = refused(merge(&[&one, &two, &one], &[]));
    assert!(err.contains("part 1/2 is given twice"), "{err}");
    let err = refused(merge(&[&one, &other_seed], &[]));
    assert!(
        err.contains("parts of different studies: their seeds differ"),
        "{err}"
    );
    let thirds = part(&other, "1/3", &[]);
    let err = refused(merge(&[&one, &thirds], &[]));
    assert!(err.contains("is a part of 2"), "{err}");
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{}").unwrap();
    let err = refused(merge(&[&one, &junk], &[]));
    assert!(err.contains("not a part of a balance study"), "{err}");
}
