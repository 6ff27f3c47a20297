//! `muster play`, `muster replay` and `muster moves` as a user runs them: from the
//! repository root, reading their output, exit status and the files they write.
//! Errors must be one clear line; saves must replay and be reproducible.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use muster_test_support::{ahd_dir, copy_dir};
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs `muster` in the repository root, as the README's examples do (`mods/ahd`).
fn muster(args: &[&str]) -> Output {
    muster_with_input(args, "")
}

/// Runs `muster` with `input` on its standard input.
fn muster_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(ROOT)
        .args(args)
        .env_remove("MUSTER_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run muster");
    let mut stdin = child.stdin.take().expect("stdin");
    // A game that ends before reading everything closes its end: that is fine.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("muster finishes")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path_arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// The arguments of the seed-7 game between two random players, saved to `save`.
fn random_game_args(save: &Path) -> Vec<&str> {
    vec![
        "play",
        "mods/ahd",
        "--union",
        "random",
        "--confederate",
        "random",
        "--seed",
        "7",
        "--quiet",
        "--save",
        path_arg(save),
    ]
}

/// The seed-7 game's output and save, played once for the tests that only read them.
struct Played {
    out: Output,
    save: Vec<u8>,
}

fn seed_7() -> &'static Played {
    static GAME: OnceLock<Played> = OnceLock::new();
    GAME.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("g.json");
        let out = muster(&random_game_args(&path));
        assert!(
            out.status.success(),
            "muster play failed: {}",
            text(&out.stderr)
        );
        let save = std::fs::read(&path).expect("the save is written");
        Played { out, save }
    })
}

/// The seed-7 save written to a fresh temporary folder, changed by `edit`.
fn save_with(edit: impl FnOnce(&mut Value)) -> (tempfile::TempDir, PathBuf) {
    let mut save: Value = serde_json::from_slice(&seed_7().save).unwrap();
    edit(&mut save);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("g.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&save).unwrap()).unwrap();
    (tmp, path)
}

/// The failing command's error: exactly one line on stderr, starting `error: ` (and
/// perhaps a `hint: ` line after it, saying what to do).
fn one_line_error(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected a failure; stdout: {}",
        text(&out.stdout)
    );
    let err = text(&out.stderr);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("hint: "))
        .collect();
    assert_eq!(lines.len(), 1, "one line of error, got: {err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    lines[0].to_string()
}

/// Whether `text` cites a rule like "(10.0)".
fn cites_a_rule(text: &str) -> bool {
    text.split('(').skip(1).any(|s| {
        let inner = s.split(')').next().unwrap_or("");
        inner.split_once('.').is_some_and(|(a, b)| {
            [a, b]
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
    })
}

/// Two random players play a whole game: it ends with a winner and a reason from the
/// rules (10.0), the save records the same result, and a `saved to` line says where.
#[test]
fn random_players_finish_with_a_winner_and_a_rule() {
    let played = seed_7();
    let stdout = text(&played.out.stdout);
    let result = stdout
        .lines()
        .find(|l| l.starts_with("Result: "))
        .unwrap_or_else(|| panic!("no Result: line in {stdout}"));
    // "Result: Confederacy wins after 987 actions - <reason>"
    let (head, reason) = result
        .split_once(" - ")
        .unwrap_or_else(|| panic!("no reason in {result:?}"));
    let rest = head.strip_prefix("Result: ").unwrap();
    let (winner, count) = rest
        .split_once(" wins after ")
        .unwrap_or_else(|| panic!("no winner in {result:?}"));
    assert!(
        ["Union", "Confederacy"].contains(&winner),
        "the winner is a side: {result:?}"
    );
    assert!(cites_a_rule(reason), "the reason cites a rule: {result:?}");
    let count: usize = count
        .strip_suffix(" actions")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no action count in {result:?}"));
    assert!(stdout.lines().any(|l| l.starts_with("saved to ")));

    let save: Value = serde_json::from_slice(&played.save).unwrap();
    assert_eq!(save["actions"].as_array().unwrap().len(), count);
    assert_eq!(save["seed"], 7);
    let outcome = &save["snapshot"]["outcome"];
    assert_eq!(outcome["reason"], reason);
    let side = if winner == "Union" { 0 } else { 1 };
    assert_eq!(outcome["winner"], side, "sides.xml lists union first");
}

/// `muster replay` plays the save's actions again and finds the very same final state.
#[test]
fn replay_finds_the_identical_final_state() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("g.json");
    std::fs::write(&path, &seed_7().save).unwrap();
    let out = muster(&["replay", path_arg(&path), "--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let save: Value = serde_json::from_slice(&seed_7().save).unwrap();
    let n = save["actions"].as_array().unwrap().len();
    assert!(
        stdout.contains(&format!(
            "replayed {n} actions: the final state is identical to the save"
        )),
        "{stdout}"
    );
    let reason = save["snapshot"]["outcome"]["reason"].as_str().unwrap();
    assert!(stdout.contains(reason), "{stdout}");
}

/// The same seed gives the same game: byte-identical saves and output. Another seed
/// gives another game.
#[test]
fn the_same_seed_gives_byte_identical_saves() {
    let tmp = tempfile::tempdir().unwrap();
    let again = tmp.path().join("again.json");
    let out = muster(&random_game_args(&again));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bytes = std::fs::read(&again).unwrap();
    assert!(bytes == seed_7().save, "the two saves differ");
    // The output names the save's path, which differs; the rest is the same.
    let strip = |o: &Output| {
        text(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with("saved to "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&out), strip(&seed_7().out));

    let other = tmp.path().join("other.json");
    let mut args = random_game_args(&other);
    args[7] = "8";
    let out = muster(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read(&other).unwrap() != seed_7().save);
}

/// A truncated save is refused in one line naming the file and the line:column where
/// the JSON stops.
#[test]
fn a_truncated_save_names_the_file_line_and_column() {
    let full = text(&seed_7().save);
    // Cut in the middle of a line, so the end of the text has a clear position.
    let mut cut = full.len() / 2;
    while full.as_bytes()[cut - 1] == b'\n' || !full.is_char_boundary(cut) {
        cut -= 1;
    }
    let truncated = &full[..cut];
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("g.json");
    std::fs::write(&path, truncated).unwrap();
    let err = one_line_error(&muster(&["replay", path_arg(&path)]));
    let line = truncated.matches('\n').count() + 1;
    let column = truncated.rsplit('\n').next().unwrap().chars().count();
    let expected = format!("{}:{line}:{column}: the save is damaged", path.display());
    assert!(err.contains(&expected), "expected {expected:?} in {err:?}");
}

/// A save whose first action cannot be taken says which action fails and why.
#[test]
fn a_save_with_an_impossible_action_names_the_action() {
    // The game starts in the Union's Movement segment with no march under way.
    let (_tmp, path) = save_with(|s| s["actions"][0] = serde_json::json!({"do": "release"}));
    let err = one_line_error(&muster(&["replay", path_arg(&path)]));
    assert!(
        err.starts_with("error: action 0 of the save (Release) fails: not allowed:"),
        "{err}"
    );
}

/// A save with one action changed to another legal one replays a different game: a
/// later action fails, or the final state differs; the error says which.
#[test]
fn a_save_with_a_changed_action_fails_or_diverges() {
    // Wherever a box may be activated, the Movement segment may end instead (3.0).
    let (_tmp, path) = save_with(|s| {
        let actions = s["actions"].as_array_mut().unwrap();
        let first = actions
            .iter_mut()
            .find(|a| a["do"] == "select")
            .expect("the game selects a box");
        *first = serde_json::json!({"do": "end_step"});
    });
    let err = one_line_error(&muster(&["replay", path_arg(&path)]));
    let names_action = err.contains(" of the save (") && err.contains(") fails: ");
    let diverged = err.contains("replaying the save gives a different game");
    assert!(names_action || diverged, "{err}");
}

/// A save whose final state was edited does not match its replay: the error names the
/// field that differs.
#[test]
fn a_save_with_an_edited_final_state_diverges() {
    let (_tmp, path) = save_with(|s| {
        let turn = s["snapshot"]["turn"].as_u64().unwrap();
        s["snapshot"]["turn"] = (turn + 1).into();
    });
    let err = one_line_error(&muster(&["replay", path_arg(&path)]));
    assert_eq!(
        err,
        "error: replaying the save gives a different game: 'turn' differs"
    );
}

/// A save made with other module files (another content hash) is refused before any
/// action is replayed, saying why.
#[test]
fn a_save_for_other_module_files_is_refused() {
    let (_tmp, path) = save_with(|s| s["module"]["content_hash"] = "0123456789abcdef".into());
    let err = one_line_error(&muster(&["replay", path_arg(&path)]));
    assert!(
        err.starts_with("error: the save was played with files hashing to 0123456789abcdef, but the module now has "),
        "{err}"
    );
    assert!(
        err.ends_with("; replaying it could give another game"),
        "{err}"
    );
}

/// A human at the prompt sees the situation and numbered actions, is asked again after
/// a bad choice, and leaves cleanly with `q`; the unfinished game is saved and replays.
#[test]
fn a_human_sees_numbered_actions_and_quits_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("h.json");
    let args = ["play", "mods/ahd", "--seed", "7", "--save", path_arg(&path)];
    let out = muster_with_input(&args, "1\n1\nx\n1\n99\nq\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "nothing on stderr");
    let stdout = text(&out.stdout);
    for expected in [
        "A House Divided - 1861 Campaign Game (seed 7)",
        "07/1861 (turn 1), Union player turn, Movement segment, 2 marches left",
        "Union to act:",
        "    1. march: activate ",
        "choose 1-",
        "(board, help, q to quit",
        "'x' is neither a number from 1 to ",
        "'99' is not a number from 1 to ",
        "Game left unfinished after 3 actions.",
        "saved to ",
    ] {
        assert!(
            stdout.contains(expected),
            "{expected:?} missing in:\n{stdout}"
        );
    }
    assert!(!stdout.contains("Result:"), "{stdout}");
    // Every prompt lists its actions as 1, 2, 3... from 1.
    let numbers: Vec<usize> = stdout
        .lines()
        .filter_map(|l| l.trim_start().split_once(". "))
        .filter_map(|(n, _)| n.parse().ok())
        .collect();
    assert_eq!(numbers.first(), Some(&1));
    assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1 || w[1] == 1));

    let out = muster(&["replay", path_arg(&path), "--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(
            "replayed 3 actions: the final state is identical to the save (no result yet)"
        ),
        "{}",
        text(&out.stdout)
    );
}

/// 4.0's example: from Shreveport the Crack Cavalry reaches Vicksburg by road then rail
/// (two boxes, mixing road and rail); the Militia Infantry reaches Monroe by road (one
/// box, its maximum) but not Vicksburg, since infantry may not mix road and rail and
/// the rail on from Monroe is not friendly.
#[test]
fn rule_4_0_example_destinations() {
    let out = muster(&[
        "moves",
        "mods/ahd",
        "--scenario",
        "tests/scenarios/rule_4_0_example.xml",
        "--side",
        "union",
        "--box",
        "Shreveport",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(report["box"], "Shreveport");
    let units = report["units"].as_array().unwrap();
    let destinations = |kind: &str| -> Vec<(String, Vec<String>)> {
        let unit = units
            .iter()
            .find(|u| u["type"] == kind)
            .unwrap_or_else(|| panic!("no {kind} in Shreveport: {report}"));
        unit["destinations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let lines = d["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l.as_str().unwrap().to_string())
                    .collect();
                (d["to"].as_str().unwrap().to_string(), lines)
            })
            .collect()
    };
    let by = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let cavalry = destinations("Cc");
    assert!(
        cavalry.contains(&("Vicksburg".into(), by(&["road", "rail"]))),
        "{cavalry:?}"
    );
    let infantry = destinations("Mi");
    assert!(
        infantry.contains(&("Monroe".into(), by(&["road"]))),
        "{infantry:?}"
    );
    assert!(
        infantry.iter().all(|(to, _)| to != "Vicksburg"),
        "{infantry:?}"
    );
}

/// A misspelled box is refused in one line with the box it probably means.
#[test]
fn a_misspelled_box_gets_a_suggestion() {
    let out = muster(&[
        "moves",
        "mods/ahd",
        "--scenario",
        "tests/scenarios/rule_4_0_example.xml",
        "--side",
        "union",
        "--box",
        "Shrevport",
    ]);
    let err = one_line_error(&out);
    assert!(err.contains("did you mean 'Shreveport'?"), "{err}");
}

/// 11.3: `--end` ends the game after an agreed March turn; the save records the date
/// and replay honours it.
#[test]
fn an_agreed_ending_date_is_saved_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("e.json");
    let out = muster(&[
        "play",
        &format!("{ROOT}/mods/ahd"),
        "--scenario",
        "1862",
        "--end",
        "03/1863",
        "--union",
        "random",
        "--confederate",
        "random",
        "--seed",
        "5",
        "--quiet",
        "--save",
        path_arg(&save),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("Result:") && l.contains("(11.3)")),
        "{stdout}"
    );
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert_eq!(saved["end"], "03/1863");
    let out = muster(&[
        "replay",
        path_arg(&save),
        "--module",
        &format!("{ROOT}/mods/ahd"),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("identical"));
    let out = muster(&[
        "play",
        &format!("{ROOT}/mods/ahd"),
        "--end",
        "13/1863",
        "--union",
        "random",
        "--confederate",
        "random",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--end: '13/1863' is not a turn of the track"),
        "{}",
        text(&out.stderr)
    );
}

/// A copy of the AHD module whose rules fail when August's Movement segment starts (a
/// house rule's misspelt command).
fn ahd_failing_in_august() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ahd");
    copy_dir(&ahd_dir(), &dir);
    let file = dir.join("rules/marches.luau");
    let src = std::fs::read_to_string(&file).unwrap();
    let src = src.replacen(
        "function M.movement_started(game: Game): { any }\n",
        "function M.movement_started(game: Game): { any }\n\tif game:turn_month() == 8 then\n\t\treturn { { kind = \"set_controll\" } }\n\tend\n",
        1,
    );
    std::fs::write(&file, src).unwrap();
    (tmp, dir)
}

/// A rule that fails mid-game stops it where it stood, says where and why, and saves
/// every action up to there; the save replays to the same position (issue 18).
#[test]
fn a_rule_failure_stops_the_game_and_saves_it() {
    let (tmp, dir) = ahd_failing_in_august();
    let save = tmp.path().join("game.json");
    let out = muster(&[
        "play",
        path_arg(&dir),
        "--union",
        "ai",
        "--confederate",
        "ai",
        "--seed",
        "1",
        "--quiet",
        "--save",
        path_arg(&save),
    ]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the game stopped at 07/1861, Confederacy, Recruitment,")
            && stderr.contains("unknown command 'set_controll'; did you mean 'set_control'?"),
        "{stderr}"
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("the game up to the failure (") && stdout.contains("game.json"),
        "{stdout}"
    );
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert!(!saved["actions"].as_array().unwrap().is_empty());
    assert_eq!(
        saved["snapshot"]["turn"], 0,
        "the last consistent state: still July"
    );
    // Replayed on the same (broken) module, the save reaches the same position.
    let replayed = muster(&["replay", path_arg(&save), "--module", path_arg(&dir)]);
    assert!(replayed.status.success(), "{}", text(&replayed.stderr));
}

/// Without --save, the failed game is saved next to where muster was run.
#[test]
fn a_failed_game_is_saved_even_without_save() {
    let (tmp, dir) = ahd_failing_in_august();
    let out = Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(tmp.path())
        .args(["play", path_arg(&dir), "--player", "union=random"])
        .args(["--player", "confederate=random", "--seed", "3", "--quiet"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let file = tmp.path().join("muster-ahd-3-failed.json");
    assert!(file.exists(), "{}", text(&out.stdout));
}

/// Issue 18, item 2: after the fix, `--resume` goes on with the saved game on the
/// module as it is now: the saved actions replayed, then play to the end.
#[test]
fn a_failed_game_resumes_after_the_fix() {
    let (tmp, dir) = ahd_failing_in_august();
    let save = tmp.path().join("game.json");
    let play = |extra: &[&str]| {
        let mut args = vec![
            "play",
            path_arg(&dir),
            "--union",
            "ai",
            "--confederate",
            "ai",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        muster(&args)
    };
    let failed = play(&["--seed", "1", "--save", path_arg(&save)]);
    assert!(!failed.status.success());
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    let n = saved["actions"].as_array().unwrap().len();
    // Still broken: the saved actions replay, and the same rule fails again.
    let again_save = tmp.path().join("again.json");
    let again = play(&["--resume", path_arg(&save), "--save", path_arg(&again_save)]);
    assert!(!again.status.success());
    assert!(text(&again.stdout).contains(&format!("resumed after {n} of {n} saved actions")));
    // Fixed: the game goes on to its end, from where it stopped.
    let file = dir.join("rules/marches.luau");
    let src = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        src.replace(
            "kind = \"set_controll\"",
            "kind = \"log\", text = \"fixed\"",
        ),
    )
    .unwrap();
    let done = tmp.path().join("done.json");
    let resumed = play(&["--resume", path_arg(&save), "--save", path_arg(&done)]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let out = text(&resumed.stdout);
    assert!(
        out.contains(&format!("resumed after {n} of {n} saved actions")),
        "{out}"
    );
    assert!(out.contains("Result: "), "played to the end: {out}");
    let finished: Value = serde_json::from_str(&std::fs::read_to_string(&done).unwrap()).unwrap();
    assert_eq!(finished["seed"], saved["seed"], "the same game");
    assert_eq!(
        finished["actions"].as_array().unwrap()[..n],
        saved["actions"].as_array().unwrap()[..],
        "it went on from the saved actions"
    );
    // Starting options belong to the save: they cannot be given again.
    let both = play(&[
        "--resume",
        path_arg(&save),
        "--seed",
        "2",
        "--save",
        path_arg(&again_save),
    ]);
    assert!(!both.status.success());
}

/// A house-rule overlay of AHD (in a folder beside a copy of it) whose rules add `init`.
fn house_rule(init: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&ahd_dir(), &tmp.path().join("ahd"));
    let house = tmp.path().join("house");
    std::fs::create_dir_all(house.join("rules")).unwrap();
    std::fs::write(
        house.join("module.xml"),
        r#"<module id="house" name="House rules" version="0.1.0" engine="0.1">
             <extends module="ahd"/>
             <rules entry="rules/init.luau"/>
           </module>"#,
    )
    .unwrap();
    std::fs::write(house.join("rules/init.luau"), init).unwrap();
    (tmp, house)
}

/// Issue 18, item 4: `--quiet` drops the engine's lines; `--rules-log` keeps the rules'
/// own (a house rule's `log`; AHD's march rolls when AHD is played alone), marked as
/// theirs.
#[test]
fn quiet_games_can_keep_the_rules_log() {
    let (_tmp, house) = house_rule(
        r#"hooks.on("step_started", function(game, step)
            if step == "recruitment" then
                return { { kind = "log", text = "house rule: a levy is raised" } }
            end
            return nil
        end, { id = "house.levy" })"#,
    );
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "play",
            path_arg(&house),
            "--union",
            "random",
            "--confederate",
            "random",
            "--seed",
            "2",
            "--end",
            "08/1861",
            "--quiet",
        ];
        a.extend_from_slice(extra);
        a
    };
    let quiet = muster(&args(&[]));
    assert!(quiet.status.success(), "{}", text(&quiet.stderr));
    assert!(
        !text(&quiet.stdout).contains("house rule: a levy"),
        "--quiet alone drops it"
    );
    let kept = muster(&args(&["--rules-log"]));
    let out = text(&kept.stdout);
    assert!(
        out.contains("  (rules) house rule: a levy is raised"),
        "{out}"
    );
    // Issue 45: a mod's lines only, not its base's (AHD's march rolls)...
    assert!(
        !out.contains("  (rules) rolled "),
        "not AHD's own march rolls: {out}"
    );
    // ... which the base played alone logs.
    let mut alone = args(&["--rules-log"]);
    alone[1] = "mods/ahd";
    let alone = text(&muster(&alone).stdout);
    assert!(alone.contains("  (rules) rolled "), "{alone}");
    assert!(
        !out.contains(" or less: rolls "),
        "but not the engine's dice lines: {out}"
    );
    let mut loud = args(&[]);
    loud.retain(|a| *a != "--quiet");
    let loud = text(&muster(&loud).stdout);
    assert!(
        loud.contains(" or less: rolls "),
        "the game has dice lines to drop: {loud}"
    );
}

/// Issue 18, item 4: `muster moves --trace` shows which handler refused each path, by
/// its module-qualified file, line and id.
#[test]
fn moves_trace_names_the_handler_that_said_no() {
    let (_tmp, house) = house_rule(
        "\nhooks.on(\"may_enter\", function(game, unit, path)\n\treturn defs.boxes[path.steps[#path.steps].to].name ~= \"St. Louis\"\nend, { id = \"house.no-st-louis\" })\n",
    );
    let out = muster(&[
        "moves",
        path_arg(&house),
        "--scenario",
        "1861",
        "--side",
        "union",
        "--box",
        "Cairo",
        "--trace",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !stdout.contains("  St. Louis  "),
        "the house rule keeps units out: {stdout}"
    );
    assert!(
        stdout.contains(
            "Cairo -river-> St. Louis: no, from house/rules/init.luau:2 (house.no-st-louis)"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("no, from ahd/rules/movement.luau:") && stdout.contains("(ahd.may-enter)"),
        "AHD's own refusals are named too: {stdout}"
    );
    let plain = muster(&[
        "moves",
        path_arg(&house),
        "--scenario",
        "1861",
        "--side",
        "union",
        "--box",
        "Cairo",
    ]);
    assert!(
        !text(&plain.stdout).contains("refused"),
        "only with --trace"
    );
}

/// At the prompt (issue 15, the terminal): `help` lists the commands, `board` shows where
/// the pieces stand (Washington's two militia, entrenched by 4.3's permanent
/// entrenchment) and the boxes next to enemy pieces, and an action is taken by its
/// words; words several actions share are refused with the candidates.
#[test]
fn the_prompt_takes_help_board_and_actions_by_their_words() {
    let args = [
        "play",
        "mods/ahd",
        "--union",
        "human",
        "--confederate",
        "ai",
        "--seed",
        "3",
    ];
    let out = muster_with_input(&args, "help\nboard\nmarch\nActivate Washington\nq\n");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("board      where every piece stands"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  Washington [Union] Union: 2 Mi (entrenched)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Union's boxes next to enemy pieces:") && stdout.contains("Harper's Ferry"),
        "{stdout}"
    );
    // 10.0 as the rules count it (`victory_progress`): the Union holds none of the
    // seven key cities in 1861.
    assert!(
        stdout.contains("To win:\n  Union: the seven key Confederate cities held (10.0): 0 of 7"),
        "{stdout}"
    );
    assert!(
        stdout.contains("'march' matches 11 actions: 1. march: activate"),
        "{stdout}"
    );
    assert!(
        stdout.contains("[Union] march: activate Washington"),
        "taken by its words, ignoring case: {stdout}"
    );
    assert!(
        stdout.contains("marching from Washington"),
        "the game went on: {stdout}"
    );
}
