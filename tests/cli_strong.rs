//! The `strong` computer player on the command line: `muster play` and `muster balance`
//! offer it, and a search budget of nothing or of absurd size is a clear error.

use std::process::{Command, Output};

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

#[test]
fn a_budget_of_zero_or_absurd_size_is_refused_with_a_reason() {
    for (command, budget, says) in [
        ("balance", "0", "at least 1 rollout"),
        ("play", "0", "at least 1 rollout"),
        ("balance", "100000000", "too large (at most 2000)"),
        ("play", "-3", "not a number of rollouts"),
        ("balance", "many", "not a number of rollouts"),
    ] {
        let budget = format!("--strong-budget={budget}");
        let out = muster(&[command, "mods/ahd", "--union", "strong", &budget]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{command} {budget}: {err}");
        assert!(err.contains("--strong-budget"), "{err}");
        assert!(err.contains(says), "{command} {budget}: {err}");
    }
    let out = muster(&[
        "play",
        "mods/ahd",
        "--union",
        "strong",
        "--search-threads",
        "0",
    ]);
    assert!(text(&out.stderr).contains("not a number of search threads (1-64)"));
}

/// Both commands play a short game with the strong player on a small budget.
#[test]
fn play_and_balance_offer_the_strong_player() {
    let out = muster(&[
        "play",
        "mods/ahd",
        "--union",
        "strong",
        "--confederate",
        "strong",
        "--strong-budget",
        "2",
        "--search-threads",
        "2",
        "--seed",
        "4",
        "--end",
        "08/1861",
        "--quiet",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("the game is over"), "{stdout}");
    assert!(stdout.contains("[Union] march: activate"), "{stdout}");
    let out = muster(&[
        "balance",
        "mods/ahd",
        "--games",
        "1",
        "--threads",
        "1",
        "--union",
        "strong",
        "--strong-budget",
        "2",
        "--end",
        "08/1861",
        "--json",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["summary"]["games"], 1, "{stdout}");
}
