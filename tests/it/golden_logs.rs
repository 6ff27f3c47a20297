//! Whole games whose log must not change: recorded with the engine as it was before the
//! kernel became generic (the turn sequence, resources and words moved into
//! `mods/ahd/`), so AHD plays exactly as it did, bit for bit. A change to AHD's rules or
//! to the computer players that changes these games must re-record them on purpose
//! (`muster play ... > tests/golden/NAME.log`) and say why in its commit.
//!
//! `muster play` runs the rules compiled to machine code (`Limits::native`), and the logs
//! were recorded interpreted: these games also check that both play the same.

use std::process::Command;

fn play(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(["play", concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd")])
        .args(args)
        .output()
        .expect("muster runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn same_as(golden: &str, got: &str) {
    let path = format!("{}/tests/golden/{golden}", env!("CARGO_MANIFEST_DIR"));
    let want = std::fs::read_to_string(&path).expect("golden log");
    if want != got {
        let line = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        panic!(
            "{golden} differs from line {}:\n  was: {:?}\n  now: {:?}",
            line + 1,
            want.lines().nth(line),
            got.lines().nth(line)
        );
    }
}

/// `ai` against `ai`, the 1861 Campaign: marches, battles, promotions, recruits and the
/// army-maximum victory (10.0), every die from seed 2.
#[test]
fn an_ai_game_of_1861_plays_as_before() {
    let got = play(&["--union", "ai", "--confederate", "ai", "--seed", "2"]);
    same_as("ahd-1861-ai-ai-seed2.log", &got);
}

/// A random Union against the `ai`, 1862, with options 9.1, 7.5 and 4.71: every legal
/// action list is drawn from, so its order and content are pinned too.
#[test]
fn a_random_game_of_1862_with_options_plays_as_before() {
    let got = play(&[
        "--scenario",
        "1862",
        "--union",
        "random",
        "--confederate",
        "ai",
        "--seed",
        "5",
        "--options",
        "9.1,7.5,4.71",
    ]);
    same_as("ahd-1862-random-ai-seed5-options.log", &got);
}
