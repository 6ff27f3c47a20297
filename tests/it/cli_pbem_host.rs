//! A game with hidden information played by file between two seats' folders and a host
//! (issue 43, item 4): `mods/examples/fog-of-war`, random players at both seats, every
//! command through the CLI. Each seat's folder must hold only its seat's files and name
//! no enemy piece the seat never saw fully; the host's record replays to the same game;
//! each seat verifies; and each bad input is refused in one line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use muster_core::format::Sight;
use muster_core::game::sight::sights;
use muster_core::game::{GameState, Place, describe};
use muster_core::ids::UnitId;
use muster_core::pbem::host::Record;
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const FOG: &str = "mods/examples/fog-of-war";

pub(crate) fn muster(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(ROOT)
        .args(args)
        .env_remove("MUSTER_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run muster");
    drop(child.stdin.take());
    child.wait_with_output().expect("muster finishes")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub(crate) fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A refusal: the command fails with one line naming `names`, and nothing else.
pub(crate) fn refused(out: &Output, names: &[&str]) -> String {
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for n in names {
        assert!(err.contains(n), "{n} in: {err}");
    }
    err
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

struct Game {
    _tmp: tempfile::TempDir,
    host: PathBuf,
    union: PathBuf,
    confederate: PathBuf,
}

impl Game {
    fn seats(&self) -> [(&'static str, &Path); 2] {
        [("union", &self.union), ("confederate", &self.confederate)]
    }
}

/// A new hosted fog-of-war game to `end`.
fn new_game(end: &str) -> Game {
    new_game_of(FOG, end)
}

/// A new hosted game of AHD with the mod `with`, to `end`.
fn new_game_of(with: &str, end: &str) -> Game {
    let tmp = tempfile::tempdir().unwrap();
    let (host, union, confederate) = (
        tmp.path().join("host"),
        tmp.path().join("union"),
        tmp.path().join("confederate"),
    );
    let out = muster(&[
        "pbem",
        "new",
        "mods/ahd",
        "--mod",
        with,
        "--end",
        end,
        "--host",
        s(&host),
        "--seat",
        &format!("union={}", s(&union)),
        "--seat",
        &format!("confederate={}", s(&confederate)),
    ]);
    let stdout = ok(&out);
    assert!(stdout.contains("for seat union"), "{stdout}");
    Game {
        _tmp: tmp,
        host,
        union,
        confederate,
    }
}

/// One round: each seat answers its latest file (random player), then the host runs.
/// Returns the host's output.
fn round(g: &Game, seed: u64) -> String {
    for (seat, dir) in g.seats() {
        ok(&muster(&[
            "pbem",
            "play",
            s(dir),
            "--seat",
            seat,
            "--player",
            "random",
            "--seed",
            &seed.to_string(),
        ]));
    }
    ok(&muster(&["pbem", "host", s(&g.host)]))
}

/// Plays `g` to its end; returns the number of rounds.
fn play_out(g: &Game) -> usize {
    for n in 0..2000 {
        if round(g, n as u64 + 1).contains("the game is over") {
            return n + 1;
        }
    }
    panic!("the game did not end");
}

fn load(dir: &str) -> (Module, ScriptRules) {
    let m = load_module(Path::new(ROOT).join(dir)).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

fn record(g: &Game) -> Record {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(g.host.join("host.json")).unwrap()).unwrap();
    serde_json::from_value(v["record"].clone()).unwrap()
}

/// Every string in a JSON value, keys included.
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

/// Every piece object (`number`, `side`, `type`) in a JSON value.
fn pieces<'a>(v: &'a serde_json::Value, out: &mut Vec<&'a serde_json::Value>) {
    match v {
        serde_json::Value::Array(a) => a.iter().for_each(|x| pieces(x, out)),
        serde_json::Value::Object(o) => {
            if o.contains_key("number") && o.contains_key("type") {
                out.push(v);
            }
            o.values().for_each(|x| pieces(x, out));
        }
        _ => {}
    }
}

/// Whether `line` names the piece `name` (`Cavalry #1` is not named by `Cavalry #12`).
fn names_piece(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(i, _)| {
        !line[i + name.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// What the host's record says `seat` may never have been told: the enemy pieces on
/// the board it never saw fully at any moment of the game, by their log names and
/// numbers, and the enemy types of which it never saw a piece fully (nor has one).
struct Unseen {
    names: BTreeSet<String>,
    /// By number and type id, as views show them (a promoted piece keeps its number
    /// under another type).
    numbers: BTreeSet<(u64, String)>,
    types: BTreeSet<String>,
    /// Their ids, as views name types.
    type_ids: BTreeSet<String>,
    /// Enemy pieces on the board that were hidden at some moment (the test means
    /// something only if there are some).
    ever_hidden: usize,
}

fn unseen(m: &Module, rules: &mut ScriptRules, states: &[&GameState], seat: &str) -> Unseen {
    let seat_id = m.find_seat(seat).unwrap();
    let side = m.seat(seat_id).side.unwrap();
    let mut full = BTreeSet::new();
    let mut hidden = BTreeSet::new();
    let mut types_seen = BTreeSet::new();
    for state in states {
        let (seen, errors) = sights(m, rules, state, seat_id);
        assert!(errors.is_empty(), "{errors:?}");
        for (i, u) in state.units.iter().enumerate() {
            if seen[i] == Sight::Full {
                types_seen.insert(u.kind);
                if u.side != side {
                    full.insert(i);
                }
            } else if matches!(u.place, Place::Board(_)) {
                hidden.insert(i);
            }
            if u.side == side {
                types_seen.insert(u.kind);
            }
        }
    }
    let mut out = Unseen {
        names: BTreeSet::new(),
        numbers: BTreeSet::new(),
        types: BTreeSet::new(),
        type_ids: BTreeSet::new(),
        ever_hidden: hidden.len(),
    };
    for state in states {
        for (i, u) in state.units.iter().enumerate() {
            if u.side == side || full.contains(&i) || !matches!(u.place, Place::Board(_)) {
                continue;
            }
            let name = describe::unit(m, state, UnitId::from_index(i).unwrap());
            out.names
                .insert(name.trim_end_matches(" (reduced)").to_string());
            out.numbers
                .insert((u64::from(u.number), m.units.get(u.kind).id.clone()));
            if !types_seen.contains(&u.kind) {
                out.types.insert(m.units.get(u.kind).name.clone());
                out.type_ids.insert(m.units.get(u.kind).id.clone());
            }
        }
    }
    out
}

/// No file the seat received or wrote in `dir` names anything of `unseen`; returns how
/// many strings were checked. The record the host publishes at the end is left out: it
/// tells the whole game, as the end of a double-blind game does (and must, for the
/// seat to check the host).
fn no_leak(dir: &Path, seat: &str, enemy: &str, unseen: &Unseen) -> usize {
    let mut checked = 0;
    for path in files(dir) {
        if path.to_str().unwrap().ends_with(".record.json") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let mut all = Vec::new();
        strings(&v, &mut all);
        for line in &all {
            for name in &unseen.names {
                assert!(
                    !names_piece(line, name),
                    "{}: {seat} never saw {name}, but the file names it: {line}",
                    path.display()
                );
            }
            assert!(
                !unseen.type_ids.contains(line),
                "{}: {seat} never saw a {line}",
                path.display()
            );
            for t in &unseen.types {
                assert!(
                    !line.contains(t.as_str()),
                    "{}: {seat} never saw a {t}: {line}",
                    path.display()
                );
            }
        }
        let mut found = Vec::new();
        pieces(&v, &mut found);
        for p in found {
            if p["side"].as_str() == Some(enemy)
                && let Some(n) = p["number"].as_u64()
            {
                assert!(
                    !p["type"]
                        .as_str()
                        .is_some_and(|t| unseen.numbers.contains(&(n, t.to_string()))),
                    "{}: {seat} never saw enemy piece #{n}, but the view shows it: {p}",
                    path.display()
                );
            }
        }
        checked += all.len();
    }
    checked
}

#[test]
fn a_fog_of_war_game_by_file_with_a_host_leaks_nothing_and_verifies() {
    let g = new_game("10/1861");
    let rounds = play_out(&g);
    let (m, mut rules) = load(FOG);
    let rec = record(&g);
    let master = rec.replay(&m, &mut rules).unwrap();
    assert!(master.over());
    let states: Vec<&GameState> = std::iter::once(master.start.as_ref().unwrap())
        .chain(master.steps.iter().map(|s| &s.after))
        .collect();
    let mut hidden_views = 0;
    for ((seat, dir), enemy) in g.seats().into_iter().zip(["confederate", "union"]) {
        // Only this seat's files, and the published record.
        for path in files(dir) {
            let name = path.file_name().unwrap().to_str().unwrap();
            assert!(
                name.contains(&format!("-{seat}-")) || name.ends_with(".record.json"),
                "{name} in {seat}'s folder"
            );
            if !name.ends_with(".record.json") {
                let v: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                assert_eq!(v["seat"], *seat, "{name}");
                if let Some(boxes) = v["view"]["boxes"].as_array() {
                    hidden_views += boxes
                        .iter()
                        .filter(|b| b["unseen"].as_u64() > Some(0))
                        .count();
                }
            }
        }
        let u = unseen(&m, &mut rules, &states, seat);
        assert!(u.ever_hidden > 0, "{seat} had enemy pieces hidden from it");
        let checked = no_leak(dir, seat, enemy, &u);
        eprintln!(
            "{seat}: {} files, {checked} strings checked against {} pieces never seen fully ({} types)",
            files(dir).len(),
            u.names.len(),
            u.types.len()
        );
        // Its files from the host verify against the published record.
        let out = ok(&muster(&[
            "pbem",
            "verify",
            s(dir),
            "--seat",
            seat,
            "--mod",
            FOG,
        ]));
        assert!(
            out.contains("verified") && out.contains("the game is over"),
            "{out}"
        );
    }
    assert!(hidden_views > 0, "some view counted unseen pieces");
    eprintln!(
        "{rounds} rounds, {} answers, {} actions",
        rec.answers.len(),
        master.steps.len()
    );
    // The host's record replays to the same game, bit for bit: as a save.
    let save = g.host.join("game.json");
    ok(&muster(&["pbem", "export", s(&g.host), "--save", s(&save)]));
    let out = ok(&muster(&["replay", s(&save), "--mod", FOG]));
    assert!(!out.is_empty());
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&save).unwrap()).unwrap();
    assert_eq!(
        saved["snapshot"],
        serde_json::to_value(master.state().unwrap()).unwrap()
    );
    // What a host could change afterwards fails a seat's check, naming what.
    let published = g.union.join(format!("{}.record.json", rec.game));
    let verify_union = || {
        muster(&[
            "pbem",
            "verify",
            s(&g.union),
            "--seat",
            "union",
            "--mod",
            FOG,
        ])
    };
    // Another nonce for one of this seat's answers (other dice).
    let mut changed = rec.clone();
    let answer = changed
        .answers
        .iter_mut()
        .find(|a| a.seat == "union" && a.answers > 0)
        .unwrap();
    answer.nonce = "00".repeat(32);
    let index = answer.answers;
    std::fs::write(&published, serde_json::to_vec_pretty(&changed).unwrap()).unwrap();
    refused(
        &verify_union(),
        &[
            &format!("union-{index:03}.answer.json"),
            "another nonce or action",
        ],
    );
    // Another secret than the one committed.
    changed = rec.clone();
    changed.secret = "11".repeat(32);
    std::fs::write(&published, serde_json::to_vec_pretty(&changed).unwrap()).unwrap();
    refused(&verify_union(), &["not the one the host committed to"]);
    // A file sent with a log the game does not give.
    std::fs::write(&published, serde_json::to_vec_pretty(&rec).unwrap()).unwrap();
    ok(&verify_union());
    let sent = g.union.join(format!("{}-union-002.seat.json", rec.game));
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&sent).unwrap()).unwrap();
    v["log"] = serde_json::json!(["Confederacy moves a piece to Richmond"]);
    std::fs::write(&sent, muster_core::pbem::host::to_bytes(&v)).unwrap();
    refused(
        &verify_union(),
        &[s(&sent), "its log is not what the record gives"],
    );
}

/// The latest file (by name) in `dir` whose name ends with `suffix`.
fn latest(dir: &Path, suffix: &str) -> PathBuf {
    files(dir)
        .into_iter()
        .rev()
        .find(|p| p.to_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("a {suffix} in {}", dir.display()))
}

#[test]
fn bad_input_to_a_hosted_game_is_one_line() {
    let g = new_game("07/1861");
    // Join and get the first choices.
    round(&g, 1);
    // --entry (issue 47) where no choice takes an entry, or for a computer player: one
    // line, and no answer written.
    let entry = g._tmp.path().join("entry.json");
    std::fs::write(&entry, "{}").unwrap();
    let before = files(&g.union);
    let play = |extra: &[&str]| {
        let mut args = vec!["pbem", "play", s(&g.union), "--seat", "union", "--entry"];
        args.push(s(&entry));
        args.extend(extra);
        muster(&args)
    };
    refused(&play(&[]), &["none of its choices takes an entry"]);
    refused(
        &play(&["--player", "random"]),
        &["--entry is a person's entry"],
    );
    refused(&play(&["--choice", "999"]), &["--choice 999"]);
    assert_eq!(files(&g.union), before, "no answer written");
    // Union answers; its answer is made illegal before the host reads it.
    ok(&muster(&[
        "pbem",
        "play",
        s(&g.union),
        "--seat",
        "union",
        "--player",
        "random",
    ]));
    let answer = latest(&g.union, ".answer.json");
    let good = std::fs::read(&answer).unwrap();
    let mut v: serde_json::Value = serde_json::from_slice(&good).unwrap();
    v["action"] = serde_json::json!({"do": "fight", "at": 0});
    std::fs::write(&answer, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let host_before = std::fs::read(g.host.join("host.json")).unwrap();
    let files_before = (files(&g.union), files(&g.confederate));
    let err = refused(
        &muster(&["pbem", "host", s(&g.host)]),
        &[s(&answer), "fight the battle at", "not among the choices"],
    );
    assert!(err.contains("nothing was applied"), "{err}");
    assert_eq!(
        std::fs::read(g.host.join("host.json")).unwrap(),
        host_before
    );
    assert_eq!((files(&g.union), files(&g.confederate)), files_before);
    std::fs::write(&answer, &good).unwrap();

    // A file for another seat, in a seat's folder: the seat and the host say so.
    let union_file = latest(&g.union, ".seat.json");
    let misplaced = g.confederate.join(union_file.file_name().unwrap());
    std::fs::copy(&union_file, &misplaced).unwrap();
    refused(
        &muster(&["pbem", "play", s(&g.confederate), "--seat", "confederate"]),
        &[s(&misplaced), "for seat union, not for seat confederate"],
    );
    std::fs::remove_file(&misplaced).unwrap();
    let misplaced = g.confederate.join(answer.file_name().unwrap());
    std::fs::copy(&answer, &misplaced).unwrap();
    refused(
        &muster(&["pbem", "host", s(&g.host)]),
        &[
            s(&misplaced),
            "seat union's answer",
            "seat confederate's folder",
        ],
    );
    std::fs::remove_file(&misplaced).unwrap();

    // A file of another game.
    let other = new_game("07/1861");
    round(&other, 1);
    let foreign = latest(&other.union, ".seat.json");
    let stray = g.union.join(foreign.file_name().unwrap());
    std::fs::copy(&foreign, &stray).unwrap();
    refused(
        &muster(&["pbem", "play", s(&g.union), "--seat", "union"]),
        &[s(&stray), "belongs to game"],
    );
    std::fs::remove_file(&stray).unwrap();
    let foreign = latest(&other.union, ".answer.json");
    let stray = g.union.join(foreign.file_name().unwrap());
    std::fs::copy(&foreign, &stray).unwrap();
    refused(
        &muster(&["pbem", "host", s(&g.host)]),
        &[s(&stray), "belongs to game"],
    );
    std::fs::remove_file(&stray).unwrap();

    // The host goes on with the good answer.
    let out = ok(&muster(&["pbem", "host", s(&g.host)]));
    assert!(out.contains("took"), "{out}");
    // A file the host recorded as sent but that is missing is written again, the same.
    let (seat, dir) = g
        .seats()
        .into_iter()
        .find(|(_, d)| {
            let f = latest(d, ".seat.json");
            !Path::new(&f.to_str().unwrap().replace(".seat.json", ".answer.json")).exists()
        })
        .unwrap();
    let lost = latest(dir, ".seat.json");
    let sent = std::fs::read(&lost).unwrap();
    std::fs::remove_file(&lost).unwrap();
    let out = ok(&muster(&["pbem", "host", s(&g.host)]));
    assert!(out.contains("again"), "{seat}: {out}");
    assert_eq!(std::fs::read(&lost).unwrap(), sent);

    // A save given as a file from the host, and a seat's view given as a save.
    let save = g.host.join("game.json");
    ok(&muster(&["pbem", "export", s(&g.host), "--save", s(&save)]));
    let as_turn = g.union.join("x-union-999.seat.json");
    std::fs::copy(&save, &as_turn).unwrap();
    refused(
        &muster(&["pbem", "play", s(&g.union), "--seat", "union"]),
        &[s(&as_turn), "saved game, not a file from the host"],
    );
    std::fs::remove_file(&as_turn).unwrap();
    // ... and as a two-player game's turn file, and a seat's file as one too.
    let two = g.host.join("two-player");
    std::fs::create_dir_all(&two).unwrap();
    let as_pbem = two.join("x-000-union.pbem.json");
    std::fs::copy(&save, &as_pbem).unwrap();
    refused(
        &muster(&["pbem", "verify", s(&two)]),
        &[s(&as_pbem), "a saved game", "not a turn file"],
    );
    std::fs::copy(latest(&g.union, ".seat.json"), &as_pbem).unwrap();
    refused(
        &muster(&["pbem", "verify", s(&two)]),
        &[s(&as_pbem), "a game with a host", "--seat"],
    );
    let out = ok(&muster(&[
        "view",
        s(&save),
        "--seat",
        "union",
        "--mod",
        FOG,
        "--json",
    ]));
    let view = g.host.join("view.json");
    std::fs::write(&view, out).unwrap();
    refused(&muster(&["replay", s(&view), "--mod", FOG]), &[s(&view)]);

    // The two-player files are refused for a game with hidden information.
    let out = muster(&[
        "pbem",
        "new",
        "mods/ahd",
        "--mod",
        FOG,
        "--side",
        "union",
        "--dir",
        s(&g.host.join("two-new")),
    ]);
    refused(&out, &["--host"]);
    // Two seats cannot share a folder.
    let shared = g.host.join("shared");
    let out = muster(&[
        "pbem",
        "new",
        "mods/ahd",
        "--mod",
        FOG,
        "--host",
        s(&g.host.join("h2")),
        "--seat",
        &format!("union={}", s(&shared)),
        "--seat",
        &format!("confederate={}", s(&shared)),
    ]);
    refused(&out, &["a folder of its own"]);
}

#[test]
fn both_seats_answer_a_sealed_choice_sent_at_once() {
    // Sealed orders: at the start both players pick a city at once (the mod's README).
    let sealed = "mods/examples/sealed-orders";
    let g = new_game_of(sealed, "07/1861");
    round(&g, 1);
    for (seat, dir) in g.seats() {
        let file = latest(dir, ".seat.json");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(v["at"], 0, "{seat} is asked at the start");
        assert!(
            v["decide"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["action"]["do"] == "take"),
            "{seat}: only its sealed pick: {}",
            v["decide"]
        );
    }
    // Both answer the files sent at the same position: the one taken second still
    // stands (its choices did not change), so nobody is asked again.
    let out = round(&g, 2);
    assert_eq!(out.matches("action(s) applied").count(), 2, "{out}");
    assert!(!out.contains("overtaken"), "{out}");
    play_out(&g);
    for (seat, dir) in g.seats() {
        ok(&muster(&[
            "pbem",
            "verify",
            s(dir),
            "--seat",
            seat,
            "--mod",
            sealed,
        ]));
    }
}

/// `--hosted`: the host holds a referee's seat (the miniatures campaign's umpire), which
/// gets no folder and no file; a seat of a side cannot be hosted, nor be given a folder
/// as well (each refused in one line, nothing written).
#[test]
fn the_host_holds_the_umpire_seat_and_no_seat_of_a_side() {
    let tmp = tempfile::tempdir().unwrap();
    let seats = [
        "union-president",
        "union-commander-1",
        "union-commander-2",
        "confederate-president",
        "confederate-commander-1",
        "confederate-commander-2",
    ];
    let args = |host: &Path, extra: &[String]| -> Vec<String> {
        let mut a: Vec<String> = ["pbem", "new", "mods/vb-campaign", "--host", s(host)]
            .iter()
            .map(|x| x.to_string())
            .collect();
        for seat in seats {
            if extra.iter().any(|e| e == seat) {
                continue;
            }
            a.push("--seat".into());
            a.push(format!("{seat}={}", s(&tmp.path().join(seat))));
        }
        a.extend(extra.iter().cloned());
        a
    };
    let run = |a: &[String]| muster(&a.iter().map(String::as_str).collect::<Vec<_>>());

    let host = tmp.path().join("refused");
    refused(
        &run(&args(&host, &[])),
        &["seat 'umpire' has no folder", "--hosted umpire"],
    );
    let umpire = format!("umpire={}", s(&tmp.path().join("umpire")));
    refused(
        &run(&args(
            &host,
            &[
                "--seat".into(),
                umpire.clone(),
                "--hosted".into(),
                "union-president".into(),
            ],
        )),
        &["cannot hold seat 'union-president'", "a seat of union"],
    );
    refused(
        &run(&args(
            &host,
            &["--seat".into(), umpire, "--hosted".into(), "umpire".into()],
        )),
        &["--seat umpire", "give it no folder"],
    );
    assert!(!host.exists(), "nothing written");

    let host = tmp.path().join("host");
    let out = ok(&run(&args(&host, &["--hosted".into(), "umpire".into()])));
    assert!(!out.contains("for seat umpire"), "{out}");
    for seat in seats {
        assert_eq!(files(&tmp.path().join(seat)).len(), 1, "{seat}: its file 0");
    }
    assert!(!tmp.path().join("umpire").exists());
    let hosted: serde_json::Value =
        serde_json::from_slice(&std::fs::read(host.join("host.json")).unwrap()).unwrap();
    assert_eq!(
        hosted["record"]["setup"]["hosted"],
        serde_json::json!(["umpire"])
    );
}
