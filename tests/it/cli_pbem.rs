//! `muster pbem` as two players use it: each with their own folder, sending each other
//! the file `play` writes (issue 17, item 1).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn muster(args: &[&str], input: &str) -> Output {
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
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("muster finishes")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn turn_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(".pbem.json"))
        .collect();
    v.sort();
    v
}

/// "Sends" every turn file of `from` that `to` lacks.
fn send(from: &Path, to: &Path) {
    for f in turn_files(from) {
        let target = to.join(f.file_name().unwrap());
        if !target.exists() {
            std::fs::copy(&f, target).unwrap();
        }
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A new game of two turns (to 08/1861): the Union player's folder and the
/// Confederate's, with file 0 sent.
fn new_game(root: &Path) -> (PathBuf, PathBuf) {
    let (u, c) = (root.join("union"), root.join("confederate"));
    let out = muster(
        &[
            "pbem",
            "new",
            "mods/ahd",
            "--side",
            "union",
            "--end",
            "08/1861",
            "--dir",
            s(&u),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("send it to the Confederacy player"));
    std::fs::create_dir_all(&c).unwrap();
    send(&u, &c);
    (u, c)
}

#[test]
fn two_players_finish_a_game_by_sending_files() {
    let dir = tempfile::tempdir().unwrap();
    let (u, c) = new_game(dir.path());
    let mut over = false;
    for _ in 0..200 {
        for (me, mine, theirs) in [("confederate", &c, &u), ("union", &u, &c)] {
            let out = muster(
                &["pbem", "play", s(mine), "--side", me, "--player", "ai"],
                "",
            );
            let stdout = text(&out.stdout);
            assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
            send(mine, theirs);
            if stdout.contains("the game is over") {
                over = true;
                break;
            }
        }
        if over {
            break;
        }
    }
    assert!(over, "the game ended");
    // Both folders hold the same game, and it verifies.
    for d in [&u, &c] {
        let out = muster(&["pbem", "verify", s(d)], "");
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            stdout.contains("verified") && stdout.contains("08/1861"),
            "{stdout}"
        );
    }
    // Its secrets stayed home: no secrets file was sent.
    assert!(std::fs::read_dir(&c).unwrap().all(|e| {
        !e.unwrap()
            .file_name()
            .to_str()
            .unwrap()
            .contains("union.secrets")
    }));
    // As a save it replays exactly.
    let save = dir.path().join("game.json");
    let out = muster(&["pbem", "export", s(&u), "--save", s(&save)], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = muster(&["replay", s(&save)], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("the final state is identical"));
}

#[test]
fn a_tampered_file_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (u, c) = new_game(dir.path());
    // File 1 (the Confederate's answer), then file 2 (the Union's first stretch).
    for (me, mine, theirs) in [("confederate", &c, &u), ("union", &u, &c)] {
        let out = muster(
            &["pbem", "play", s(mine), "--side", me, "--player", "ai"],
            "",
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        send(mine, theirs);
    }
    // The Confederate player receives file 2 with its first march moved elsewhere.
    let file2 = turn_files(&c)
        .into_iter()
        .find(|p| s(p).contains("-002-"))
        .unwrap();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file2).unwrap()).unwrap();
    let actions = json["actions"].as_array_mut().unwrap();
    let select = actions
        .iter_mut()
        .find(|a| a["do"] == "select")
        .expect("a march");
    select["at"] = 0.into();
    std::fs::write(&file2, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
    let before = turn_files(&c);
    let out = muster(
        &[
            "pbem",
            "play",
            s(&c),
            "--side",
            "confederate",
            "--player",
            "ai",
        ],
        "",
    );
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains(&format!("{}: ", file2.display())), "{err}");
    assert_eq!(turn_files(&c), before, "nothing written");
    let out = muster(&["pbem", "verify", s(&c)], "");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("-002-union.pbem.json"));

    // A second, different file 2 beside the first: refused, naming both.
    let copy = c.join("copy-002.pbem.json");
    std::fs::write(&copy, serde_json::to_vec(&json).unwrap()).unwrap();
    let out = muster(&["pbem", "verify", s(&c)], "");
    assert!(
        text(&out.stderr).contains("are both file 2 of the game"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_human_who_quits_writes_nothing_and_a_game_folder_is_not_reused() {
    let dir = tempfile::tempdir().unwrap();
    let (u, c) = new_game(dir.path());
    let out = muster(
        &[
            "pbem",
            "play",
            s(&c),
            "--side",
            "confederate",
            "--player",
            "ai",
        ],
        "",
    );
    assert!(out.status.success());
    send(&c, &u);
    // The Union player's first stretch, at the prompt: they look at the board and quit.
    let before = turn_files(&u);
    let out = muster(&["pbem", "play", s(&u), "--side", "union"], "board\nq\n");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("you quit: no file was written"), "{stdout}");
    assert_eq!(turn_files(&u), before);
    // It is not the Confederate's turn to write.
    let out = muster(
        &[
            "pbem",
            "play",
            s(&c),
            "--side",
            "confederate",
            "--player",
            "ai",
        ],
        "",
    );
    assert!(text(&out.stdout).contains("waiting for the Union player's file 2"));
    // A new game in a game's folder is refused.
    let out = muster(
        &["pbem", "new", "mods/ahd", "--side", "union", "--dir", s(&u)],
        "",
    );
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("holds a game already"));
}

/// Runs `muster` in `cwd`, a folder outside the repository.
fn muster_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(cwd)
        .args(args)
        .env_remove("MUSTER_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run muster")
}

/// Issue 46, item 5: `muster pbem play DIR` run outside the repository finds the
/// game's module without `--module` (the module file 0 records, looked for from the
/// game folder, remembered once found), and the report of the other side's file
/// names each action as it was taken, with every line the game logged, rolls too.
#[test]
fn play_outside_the_repository_finds_the_module_and_reports_every_roll() {
    let dir = tempfile::tempdir().unwrap();
    let (u, c) = new_game(dir.path());
    let away = dir.path().join("elsewhere");
    std::fs::create_dir_all(&away).unwrap();
    assert!(!away.join("mods").exists());
    // Until the Union's file the Confederacy reads holds a die roll (its recruitment
    // roll at the latest): the report there shows it.
    let mut rolled = false;
    for turn in 0..12 {
        let (me, mine, theirs) = if turn % 2 == 0 {
            ("confederate", &c, &u)
        } else {
            ("union", &u, &c)
        };
        let out = muster_in(
            &away,
            &["pbem", "play", s(mine), "--side", me, "--player", "ai"],
        );
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
        send(mine, theirs);
        if stdout.contains("the game is over") {
            break;
        }
        if me == "union" || turn == 0 {
            continue;
        }
        // What the Confederacy read of the Union's file: each action after its side,
        // then, indented, what the game logged for it.
        let report: Vec<&str> = stdout
            .lines()
            .skip_while(|l| *l != "the last file's moves, with every roll:")
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .collect();
        assert!(report[0].starts_with("  Union: "), "{stdout}");
        if report
            .iter()
            .any(|l| l.starts_with("    ") && (l.contains("rolled ") || l.contains(": rolls ")))
        {
            rolled = true;
            break;
        }
    }
    assert!(rolled, "no roll reported");
    // The Confederate folder found the module by itself and remembered it.
    let note = std::fs::read_to_string(c.join(".muster-module")).unwrap();
    assert!(note.trim_end().ends_with("ahd"), "{note}");
}
