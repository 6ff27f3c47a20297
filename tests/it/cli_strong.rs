//! The `strong` computer player on the command line: `muster play` and `muster balance`
//! offer it, a search budget of nothing or of absurd size is a clear error, and a game
//! of a balance run is played again by `muster play` from its seed.

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
    for (opening, says) in [
        ("5000", "too long (at most 1000; 0 for none)"),
        ("six", "not a number of turns (0-1000)"),
    ] {
        let opening = format!("--strong-opening={opening}");
        let out = muster(&["balance", "mods/ahd", "--union", "strong", &opening]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{opening}: {err}");
        assert!(err.contains("--strong-opening"), "{err}");
        assert!(err.contains(says), "{opening}: {err}");
    }
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

/// Any game of a `muster balance` run is the game `muster play` plays from its seed
/// with the same players: so a game a run reports (a loss, a rule error) can be played
/// again and watched, move for move. Once the two derived the players' seeds apart,
/// and a balance game could not be found again.
#[test]
fn a_balance_game_is_played_again_by_play_with_its_seed() {
    let cases: [&[&str]; 3] = [
        &["--union", "random", "--confederate", "random"],
        &[
            "--union",
            "strong",
            "--strong-budget",
            "2",
            "--strong-opening",
            "1",
            "--confederate",
            "ai",
            "--end",
            "08/1861",
        ],
        &[
            "--union",
            "strong",
            "--strong-budget",
            "4",
            "--confederate",
            "random",
            "--end",
            "09/1861",
        ],
    ];
    let dir = tempfile::tempdir().unwrap();
    for players in cases {
        let csv = dir.path().join("games.csv");
        let mut args = vec!["balance", "mods/ahd", "--games", "2", "--seed", "6"];
        args.extend(players);
        args.extend(["--threads", "2", "--csv", csv.to_str().unwrap()]);
        let out = muster(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let rows = std::fs::read_to_string(&csv).unwrap();
        // seed,winner,turns,last_turn,actions,finished,reason,error
        let games: Vec<Vec<&str>> = rows
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect())
            .collect();
        assert_eq!(games.len(), 2, "{rows}");
        for game in games {
            let seed = game[0];
            let mut args = vec!["play", "mods/ahd", "--seed", seed, "--quiet"];
            args.extend(players);
            let out = muster(&args);
            let stdout = text(&out.stdout);
            assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
            let winner = match game[1] {
                "union" => "Union",
                "confederate" => "Confederacy",
                other => panic!("winner {other} in {rows}"),
            };
            let result = format!("Result: {winner} wins after {} actions", game[4]);
            assert!(
                stdout.contains(&result),
                "{players:?} seed {seed}: want {result}\n{stdout}"
            );
            let last = format!("{} (turn ", game[3]);
            assert!(
                stdout.contains(&last),
                "{players:?} seed {seed}: want {last}\n{stdout}"
            );
        }
    }
}
