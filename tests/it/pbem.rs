//! Play by file (issue 17, item 1): two players, each with their own copy of the game,
//! finish an 1861 game by exchanging turn files; every kind of tampering is caught by
//! the receiving side, naming the file (and the action).

use muster_core::game::dice::Pcg32;
use muster_core::game::save::SavedScenario;
use muster_core::game::{Action, History, Rules, legal_actions};
use muster_core::pbem::{self, Bytes32, Game, PbemError, TurnFile};
use muster_core::{Module, load_module};
use muster_scripting::ScriptRules;
use muster_test_support::{ahd_dir, ahd_module as ahd, copy_dir, rules};

/// Test secrets: distinct, reproducible 32-byte values (the CLI takes them from the
/// operating system).
fn secret(label: &str, n: usize) -> Bytes32 {
    pbem::sha256(format!("{label}/{n}").as_bytes())
}

/// A random player's choice, from its own generator.
fn random(
    rng: &mut Pcg32,
) -> impl FnMut(&Module, &mut dyn Rules, &History) -> Result<Action, String> {
    move |m, r, h| {
        let legal = legal_actions(m, r, h.state()).map_err(|e| e.to_string())?;
        let n = u32::try_from(legal.len()).map_err(|e| e.to_string())?;
        Ok(legal[(rng.between_one_and(n) - 1) as usize].clone())
    }
}

/// One player's side of the exchange: their copy of the game, their rules, their
/// secrets (by the index of the file that committed to each) and their chooser: the
/// `ai` computer player, or random choices.
struct Player {
    game: Game,
    rules: ScriptRules,
    secrets: Vec<Option<Bytes32>>,
    label: &'static str,
    rng: Pcg32,
    ai: Option<Box<dyn muster_ai::Player>>,
}

impl Player {
    fn new(m: &Module, file0: &[u8], label: &'static str, seed: u64) -> Player {
        let rules = rules(m);
        Player {
            game: Game::open(m, "file 0", file0).unwrap_or_else(|e| panic!("{e}")),
            rules,
            secrets: Vec::new(),
            label,
            rng: Pcg32::new(seed, 7),
            ai: None,
        }
    }

    /// Writes the next file (it must be this player's) and reads it into their copy.
    fn write(&mut self, m: &Module) -> Vec<u8> {
        let k = self.game.len();
        let reveal = k
            .checked_sub(2)
            .and_then(|i| self.secrets.get(i).copied().flatten());
        let next = secret(self.label, k);
        let nonce = secret(&format!("{}-nonce", self.label), k);
        let written = match self.ai.as_mut() {
            Some(ai) => self.game.write_next(
                m,
                &mut self.rules,
                reveal.as_ref(),
                &next,
                &nonce,
                |m, r, h| muster_ai::choose(ai, m, r, h.state()).map_err(|e| e.to_string()),
            ),
            None => self.game.write_next(
                m,
                &mut self.rules,
                reveal.as_ref(),
                &next,
                &nonce,
                random(&mut self.rng),
            ),
        };
        let bytes = written.unwrap_or_else(|e| panic!("{e}"));
        self.secrets.resize(k + 1, None);
        self.secrets[k] = Some(next);
        self.read(m, &bytes);
        bytes
    }

    fn read(&mut self, m: &Module, bytes: &[u8]) {
        let name = format!("file {}", self.game.len());
        self.game
            .add(m, &mut self.rules, &name, bytes)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The files of a game played by two random players (or the `ai` as Union), up to
/// `end` (or its result).
fn play(m: &Module, end: Option<&str>, seed: u64, ai_union: bool) -> Vec<Vec<u8>> {
    let file0 = pbem::new_game(
        m,
        SavedScenario {
            id: "1861".into(),
            xml: None,
        },
        Vec::new(),
        end.map(str::to_string),
        ["union".into(), "confederate".into()],
        &secret("game", 0),
        &secret("union", 0),
    );
    let mut union = Player::new(m, &file0, "union", seed);
    union.secrets.push(Some(secret("union", 0)));
    if ai_union {
        union.ai = Some(muster_ai::player(muster_ai::Level::Ai, seed));
    }
    let mut confederate = Player::new(m, &file0, "confederate", seed + 1);
    let mut files = vec![file0];
    while !union.game.over() {
        assert!(files.len() < 5_000, "the game does not end");
        let (author, reader) = if files.len() % 2 == 0 {
            (&mut union, &mut confederate)
        } else {
            (&mut confederate, &mut union)
        };
        let bytes = author.write(m);
        reader.read(m, &bytes);
        files.push(bytes);
        // Both copies are the same game.
        assert_eq!(
            union.game.history().map(|h| pbem::state_hash(h.state())),
            confederate
                .game
                .history()
                .map(|h| pbem::state_hash(h.state()))
        );
    }
    files
}

/// Reads `files` into a fresh copy (a third party verifying the game).
fn verify(m: &Module, files: &[Vec<u8>]) -> Result<Game, PbemError> {
    let mut rules = rules(m);
    let mut game = Game::open(m, "file 0", &files[0])?;
    for (i, f) in files.iter().enumerate().skip(1) {
        game.add(m, &mut rules, &format!("file {i}"), f)?;
    }
    Ok(game)
}

#[test]
fn two_players_finish_an_1861_game_by_file() {
    let m = ahd();
    let files = play(&m, None, 3, true);
    let game = verify(&m, &files).unwrap_or_else(|e| panic!("{e}"));
    let state = game.history().unwrap().state();
    let outcome = state.outcome.as_ref().expect("the game ended");
    assert!(!outcome.reason.is_empty());
    // Many stretches, each with its own dice.
    eprintln!(
        "{} files, {} actions, {} wins: {}",
        files.len(),
        game.history().unwrap().actions().len(),
        m.side(outcome.winner.unwrap()).name,
        outcome.reason
    );
    assert!(files.len() > 40, "{} files", files.len());
    // The game as a save replays exactly, stretch dice and all.
    let save = game.to_save(&m).unwrap();
    assert!(save.reseeds.len() + 3 >= files.len() - 1);
    let mut r = rules(&m);
    let (replayed, _) = save.replay(&m, &mut r).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&replayed, state);
}

/// The files of a short game (two turns) to tamper with.
fn short_game(m: &Module) -> Vec<Vec<u8>> {
    let files = play(m, Some("08/1861"), 11, false);
    assert!(files.len() >= 6, "{} files", files.len());
    files
}

fn edit(bytes: &[u8], change: impl FnOnce(&mut TurnFile)) -> Vec<u8> {
    let mut f = pbem::parse("x", bytes).unwrap();
    change(&mut f);
    pbem::to_bytes(&f)
}

fn first_error(m: &Module, files: &[Vec<u8>]) -> String {
    match verify(m, files) {
        Ok(_) => panic!("the tampered game verified"),
        Err(e) => e.to_string(),
    }
}

/// The index of a file whose stretch selects a box (a march: AHD's Movement).
fn file_with_a_selection(files: &[Vec<u8>]) -> usize {
    (2..files.len())
        .find(|&i| {
            let f = pbem::parse("x", &files[i]).unwrap();
            f.actions.iter().any(|a| matches!(a, Action::Select { .. }))
        })
        .expect("some file marches")
}

#[test]
fn an_edited_action_is_caught_naming_the_file_and_action() {
    let m = ahd();
    let mut files = short_game(&m);
    let i = file_with_a_selection(&files);
    files[i] = edit(&files[i], |f| {
        let a = f
            .actions
            .iter_mut()
            .find(|a| matches!(a, Action::Select { .. }))
            .unwrap();
        // The Confederate capital: never the Union's to march from in 1861.
        *a = Action::Select {
            at: m.board.find("Richmond").unwrap(),
        };
    });
    let e = first_error(&m, &files);
    assert!(e.starts_with(&format!("file {i}: action")), "{e}");
    assert!(
        e.contains("select Richmond") || e.contains("Richmond"),
        "{e}"
    );
}

#[test]
fn a_changed_secret_that_would_change_the_dice_is_caught() {
    let m = ahd();
    let mut files = short_game(&m);
    files[4] = edit(&files[4], |f| {
        f.reveal = Some(pbem::to_hex(&secret("other", 1)))
    });
    let e = first_error(&m, &files);
    assert_eq!(
        e,
        "file 4: its revealed secret is not the one committed in file 2: the dice would not be the agreed ones"
    );
}

#[test]
fn a_rewritten_earlier_file_breaks_the_chain() {
    let m = ahd();
    let mut files = short_game(&m);
    // The same file 2, written differently (compact JSON): it still verifies, but file
    // 3 was an answer to the file as it was sent.
    let f = pbem::parse("x", &files[2]).unwrap();
    files[2] = serde_json::to_vec(&f).unwrap();
    let e = first_error(&m, &files);
    assert_eq!(
        e,
        "file 3: it does not follow file 2: that file was changed, or this one answers another"
    );
}

#[test]
fn a_reloaded_stretch_has_the_same_dice() {
    let m = ahd();
    let files = short_game(&m);
    // Player A writes file 2 again from the same position with the same revealed secret
    // (as a player who reloads would): a different player's choices, same dice. The
    // rolls of the start (the march die) are the same, so the file's first actions
    // come from the same dice; the stretch seed does not depend on the choices.
    let mut r = rules(&m);
    let mut game = Game::open(&m, "file 0", &files[0]).unwrap();
    game.add(&m, &mut r, "file 1", &files[1]).unwrap();
    let reveal = secret("union", 0);
    let first = game.stretch(&m, &mut r, &reveal).unwrap();
    let again = game.stretch(&m, &mut r, &reveal).unwrap();
    assert_eq!(
        first.state(),
        again.state(),
        "the same start, the same dice"
    );
    let other = game.stretch(&m, &mut r, &secret("union", 99)).unwrap();
    assert_ne!(
        first.state().dice,
        other.state().dice,
        "another secret would give other dice, and it is refused (see above)"
    );
}

#[test]
fn bad_files_get_one_clear_message() {
    let m = ahd();
    let files = short_game(&m);
    // Truncated.
    let mut cut = files.clone();
    let half = cut[3].len() / 2;
    cut[3].truncate(half);
    let e = first_error(&m, &cut);
    assert!(
        e.starts_with("file 3:") && e.contains("the turn file is damaged"),
        "{e}"
    );
    // Another game's file.
    let mut mixed = files.clone();
    mixed[2] = edit(&mixed[2], |f| f.game = "0123456789abcdef".into());
    let e = first_error(&m, &mixed);
    assert!(
        e.contains("it belongs to game 0123456789abcdef, not to this game"),
        "{e}"
    );
    // A newer format.
    let mut newer = files.clone();
    newer[2] = edit(&newer[2], |f| f.pbem = 9);
    let e = first_error(&m, &newer);
    assert_eq!(
        e,
        "file 2 is a turn file of format 9; this muster reads format 2: open it with a newer muster"
    );
    // An older format, whose positions this muster no longer computes alike.
    let mut older = files.clone();
    older[2] = edit(&older[2], |f| f.pbem = 1);
    let e = first_error(&m, &older);
    assert_eq!(
        e,
        "file 2 is a turn file of format 1, from an older muster; this one reads format 2: finish that game with the muster it was started with"
    );
    // Out of order.
    let mut swapped = files.clone();
    swapped.swap(2, 3);
    let e = first_error(&m, &swapped);
    assert!(e.contains("it is file 3, but file 2 comes next"), "{e}");
    // A stretch that stops early: its author still had to decide.
    let mut short = files.clone();
    let i = file_with_a_selection(&files);
    short[i] = edit(&short[i], |f| {
        f.actions.pop();
    });
    let e = first_error(&m, &short);
    assert!(
        e.starts_with(&format!("file {i}:"))
            && (e.contains("still has to decide") || e.contains("another position")),
        "{e}"
    );
    // A file for other rules: the module changed.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("ahd");
    copy_dir(&ahd_dir(), &copy);
    let units = copy.join("units.xml");
    let xml = std::fs::read_to_string(&units).unwrap();
    std::fs::write(
        &units,
        xml.replace(r#"combat="3" defense="-1""#, r#"combat="4" defense="-1""#),
    )
    .unwrap();
    let changed = load_module(&copy).unwrap();
    let e = Game::open(&changed, "file 0", &files[0])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("file 0: base module 'ahd' has changed"),
        "{e}"
    );
}

/// What a player reads of the other side's file (issue 46, item 5) is the game's own
/// log: each action named in the position it was taken in (the target's number, the
/// piece promoted, the box a reinforcement came from), after the side that took it,
/// then every line the game logged for it, every die rolled included, exactly as a
/// replay of the game as a save logs them.
#[test]
fn the_report_of_each_file_is_the_games_own_log() {
    use muster_core::game::save::Replayed;
    let m = ahd();
    // Long enough for battles (their shots name targets and roll) and promotions.
    let files = play(&m, Some("10/1861"), 5, true);
    let whole = verify(&m, &files).unwrap_or_else(|e| panic!("{e}"));
    let save = whole.to_save(&m).unwrap();
    // The game's own log: for each action, its words in the position before it and
    // the lines applying it logged.
    let mut own: Vec<(String, Vec<String>)> = Vec::new();
    let mut r = rules(&m);
    save.replay_each(&m, &mut r, &mut |_, step| {
        if let Replayed::Action {
            before,
            action,
            lines,
            ..
        } = step
        {
            let side = &m.side(muster_core::game::decider(&m, before)).name;
            let words = muster_core::game::describe::action(&m, before, action);
            own.push((format!("{side}: {words}"), lines.to_vec()));
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut rolls = 0;
    let mut targets = 0;
    let mut r = rules(&m);
    let mut game = Game::open(&m, "file 0", &files[0]).unwrap();
    for (k, f) in files.iter().enumerate().skip(1) {
        let before = game.history().map_or(0, |h| h.actions().len());
        game.add(&m, &mut r, &format!("file {k}"), f).unwrap();
        let after = game.history().map_or(0, |h| h.actions().len());
        let report = game.report(&m, &mut r, before).unwrap();
        let expected: Vec<String> = own[before..after]
            .iter()
            .flat_map(|(words, lines)| {
                std::iter::once(words.clone()).chain(lines.iter().map(|l| format!("  {l}")))
            })
            .collect();
        assert_eq!(report, expected, "file {k}");
        rolls += report.iter().filter(|l| l.contains(": rolls ")).count();
        // A target is named with its number while it is on the board.
        targets += report
            .iter()
            .filter(|l| l.contains(" fires at ") && !l.starts_with("  "))
            .inspect(|l| {
                let target = l.rsplit(" fires at ").next().unwrap();
                assert!(target.contains(" #"), "{l}");
            })
            .count();
    }
    assert!(rolls > 0 && targets > 0, "{rolls} rolls, {targets} targets");
}
