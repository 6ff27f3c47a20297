//! `muster odds` as a user runs it, from the repository root: a JSON report tools can
//! read, text for people, and one clear line with a hint for every mistake.

use std::process::{Command, Output};

use serde_json::Value;

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

/// The error of a failed run: exactly one line on stderr, nothing on stdout.
fn one_line_error(out: &Output) -> String {
    assert!(!out.status.success(), "should fail: {}", text(&out.stdout));
    assert!(out.stdout.is_empty(), "stdout: {}", text(&out.stdout));
    let err = text(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

fn odds(extra: &[&str]) -> Output {
    let mut args = vec!["odds", "mods/ahd"];
    args.extend_from_slice(extra);
    muster(&args)
}

/// Vicksburg (4.3: a Permanent Entrenchment; 5.34: the Monroe line crosses its water
/// border): a JSON report whose numbers add up.
#[test]
fn json_report_adds_up() {
    let out = odds(&[
        "--attacker",
        "3 Vi, 1 Vc",
        "--defender",
        "2 Mi, 1 Ci",
        "--box",
        "Vicksburg",
        "--crossing",
        "2",
        "--attacker-retreat",
        "losses:50%",
        "--runs",
        "3000",
        "--seed",
        "7",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "no progress bar off a terminal");
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["module"], "ahd");
    assert_eq!(v["box"], "Vicksburg");
    assert_eq!(
        v["flags"],
        serde_json::json!(["entrenched"]),
        "4.3: the defenders began the player turn in a permanent entrenchment"
    );
    assert_eq!(v["crossing"], 2);
    assert_eq!(v["runs"], 3000);
    assert_eq!(v["attacker"]["side"], "union", "Vicksburg is Confederate");
    assert_eq!(v["defender"]["side"], "confederate");
    assert_eq!(
        v["attacker"]["retreat_policy"],
        serde_json::json!({"losses_over": {"fraction": 0.5}})
    );
    let pct = |x: &Value| x.as_f64().expect("a number");
    let total = pct(&v["attacker"]["win_pct"])
        + pct(&v["defender"]["win_pct"])
        + pct(&v["withdrawal_pct"])
        + pct(&v["undecided_pct"]);
    assert!((total - 100.0).abs() < 1e-6, "{total}");
    assert!(pct(&v["attacker"]["win_pct"]) > 0.0 && pct(&v["defender"]["win_pct"]) > 0.0);
    assert!(
        pct(&v["attacker"]["retreat_pct"]) > 0.0,
        "half the steps lost: the attacker retreats sometimes"
    );
    assert!(pct(&v["attacker"]["retreat_pct"]) <= pct(&v["defender"]["win_pct"]));
    let rounds: u64 = v["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|r| r["battles"].as_u64().expect("a count"))
        .sum();
    assert_eq!(rounds, 3000);
    let units = v["defender"]["units"].as_array().expect("units");
    assert_eq!(units.len(), 2);
    assert_eq!(
        (units[0]["type"].as_str(), units[0]["count"].as_u64()),
        (Some("Mi"), Some(2))
    );
    for side in ["attacker", "defender"] {
        for u in v[side]["units"].as_array().expect("units") {
            let (n, alive, reduced) = (
                u["count"].as_f64().expect("count"),
                pct(&u["survivors"]),
                pct(&u["reduced"]),
            );
            assert!((0.0..=n).contains(&alive) && reduced <= alive, "{u}");
        }
    }
    // The same seed, the same report.
    let again = odds(&[
        "--attacker",
        "3 Vi, 1 Vc",
        "--defender",
        "2 Mi, 1 Ci",
        "--box",
        "Vicksburg",
        "--crossing",
        "2",
        "--attacker-retreat",
        "losses:50%",
        "--runs",
        "3000",
        "--seed",
        "7",
        "--json",
    ]);
    assert_eq!(again.stdout, out.stdout);
}

/// Text for people: the forces, each side's wins and retreats, survivors, rounds.
#[test]
fn text_report_names_the_sides() {
    let out = odds(&[
        "--attacker",
        "2 Vi",
        "--defender",
        "2 Vc",
        "--defender-retreat",
        "after:0",
        "--runs",
        "200",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("2 Vi (union) attacks 2 Vc (confederate)"), "{s}");
    assert!(s.contains("withdrawn      100.0%"), "5.6: {s}");
    assert!(s.contains("expected survivors"), "{s}");
}

#[test]
fn a_typo_in_a_unit_type_gets_a_hint() {
    let err = one_line_error(&odds(&["--attacker", "3 Vx, 1 Vc", "--defender", "2 Mi"]));
    assert!(
        err.contains("'Vx'") && err.contains("did you mean 'Vi'?"),
        "{err}"
    );
}

#[test]
fn a_bad_box_gets_a_hint() {
    let err = one_line_error(&odds(&[
        "--attacker",
        "3 Vi",
        "--defender",
        "2 Mi",
        "--box",
        "Vicksbrug",
    ]));
    assert!(err.contains("did you mean 'Vicksburg'?"), "{err}");
}

/// 5.34 needs a water border: the error names boxes that have one.
#[test]
fn a_crossing_without_a_river_names_boxes_with_one() {
    let err = one_line_error(&odds(&[
        "--attacker",
        "3 Vi",
        "--defender",
        "2 Mi",
        "--box",
        "Gettysburg",
        "--crossing",
        "1",
    ]));
    assert!(err.contains("Gettysburg") && err.contains("Cairo"), "{err}");
}

/// The TripleA adaptation at Chattanooga: its worked example's armies, the South
/// entrenched (a marker), Grant with the North, and water-crossing tokens, which raise
/// the defenders and absorb hits, so the South wins more often with two than with none.
#[test]
fn triplea_generals_and_markers() {
    let run = |markers: &[&str]| {
        let mut args = vec![
            "odds",
            "mods/ahd-triplea",
            "--attacker",
            "1 Vi, 1 Ci, 1 Mi, 1 Vc, 1 Mc, grant[strength=2]",
            "--defender",
            "1 Vi, 2 Mi, 1 Vc, 1 Mc",
            "--box",
            "Chattanooga",
            "--marker",
            "entrenchment=1",
            "--runs",
            "3000",
            "--json",
        ];
        for m in markers {
            args.extend(["--marker", m]);
        }
        let out = muster(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        v
    };
    let none = run(&[]);
    assert_eq!(
        none["companions"],
        serde_json::json!([{"side": "union", "type": "grant", "attributes": [["strength", 2]]}])
    );
    assert_eq!(none["markers"], serde_json::json!([["entrenchment", 1]]));
    let two = run(&["water-crossing=2"]);
    assert_eq!(
        two["markers"],
        serde_json::json!([["entrenchment", 1], ["water-crossing", 2]])
    );
    let south = |v: &Value| v["defender"]["win_pct"].as_f64().expect("a number");
    assert!(
        south(&two) > south(&none) + 10.0,
        "{} -> {}",
        south(&none),
        south(&two)
    );
}

#[test]
fn a_bad_marker_or_attribute_gets_a_hint() {
    let triplea = |attacker: &str, marker: &str| {
        one_line_error(&muster(&[
            "odds",
            "mods/ahd-triplea",
            "--attacker",
            attacker,
            "--defender",
            "2 Mi",
            "--box",
            "Chattanooga",
            "--marker",
            marker,
        ]))
    };
    let err = triplea("2 Vi", "water-crosing=1");
    assert!(err.contains("did you mean 'water-crossing'?"), "{err}");
    let err = triplea("2 Vi, grant[strenght=2]", "entrenchment=1");
    assert!(
        err.contains("no attribute 'strenght'") && err.contains("strength"),
        "{err}"
    );
}

/// `muster odds mods/dwf` on one battle: the chart's losses and the winner, from the
/// JSON report (a battle the rules resolve has one outcome, probability 1).
fn dwf_exact(attacker: &str, defender: &str, from: &str) -> (u64, u64, String, Vec<String>) {
    let out = muster(&[
        "odds",
        "mods/dwf",
        "--attacker",
        attacker,
        "--defender",
        defender,
        "--box",
        "Richmond",
        "--from",
        from,
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["probability"], 1.0, "{v}");
    (
        v["attacker_losses"].as_u64().unwrap(),
        v["defender_losses"].as_u64().unwrap(),
        v["winner"].as_str().unwrap_or("none").to_string(),
        v["log"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect(),
    )
}

/// Divided We Fall through woods (L639: Fredericksburg to Richmond): 12 infantry
/// factors pay -1 once (L1149): 11, the row of L1086: the defender loses 4, the
/// attacker the woods column's 6 (L1101).
#[test]
fn dwf_odds_through_woods_give_the_charts_row() {
    let (a, d, winner, _) = dwf_exact("3 I4", "2 I3", "Fredericksburg=3");
    assert_eq!((a, d), (6, 4));
    // 12 - 6 = 6 against 6 - 4 = 2: the defender, the smaller, yields (L689).
    assert_eq!(winner, "union");
}

/// Across a major river (the James from Ft. Monroe, L511, L1146): 12 halved is 6,
/// the row of L1081: the defender loses 2, the attacker the major river column's 4.
#[test]
fn dwf_odds_across_a_major_river_give_the_charts_row() {
    let (a, d, _, _) = dwf_exact("3 I4", "2 I3", "Ft. Monroe=3");
    assert_eq!((a, d), (4, 2));
}

/// Into a fort (L649, L667): 12 by rail from Petersburg, the row of L1087: the
/// defender's 4, the fort's step first, and the attacker's 5 (clear), at least the
/// fort's 3.
#[test]
fn dwf_odds_into_a_fort_give_the_charts_row() {
    let (a, d, _, log) = dwf_exact("3 I4", "F3, 2 I3", "Petersburg=3");
    assert_eq!((a, d), (5, 4));
    assert!(
        log.iter().any(|l| l.contains("at least the fort's 3")),
        "{log:?}"
    );
    assert!(
        log.iter()
            .find(|l| l.contains("loses a step"))
            .is_some_and(|l| l.starts_with("Fort (3)")),
        "{log:?}"
    );
}
