//! Computer players given their seat's knowledge, not the game (issue 43): in an open
//! game the knowledge is the state itself; under fog of war it holds only what the seat
//! sees, and its samples draw what it does not. Several seats of one side each play
//! their own pieces, in turn, and whole games finish.

use std::path::PathBuf;
use std::process::Command;

use muster_ai::balance::{GameSetup, levels_by_seat, play_game};
use muster_ai::{AiError, Level, Played, Player, Table, decide_for, player};
use muster_core::format::Sight;
use muster_core::game::sight::sights;
use muster_core::game::{
    Action, Dice, GameState, Knowledge, Place, Rules, apply_by, legal_actions_for, start,
};
use muster_core::ids::{SeatId, UnitTypeId};
use muster_core::{Module, load_stack};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::{RandomGame, ahd};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn stack(mods: &[&str]) -> (Module, ScriptRules) {
    let mods: Vec<PathBuf> = mods.iter().map(|m| root().join(m)).collect();
    let m = load_stack(root().join("mods/ahd"), &mods).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

fn fog() -> (Module, ScriptRules) {
    stack(&["mods/examples/fog-of-war"])
}

fn commanders() -> (Module, ScriptRules) {
    stack(&["tests/fixtures/two-commanders"])
}

fn seat(m: &Module, id: &str) -> SeatId {
    m.find_seat(id).unwrap_or_else(|| panic!("no seat {id}"))
}

fn begin(m: &Module, rules: &mut ScriptRules, seed: u64) -> GameState {
    let s = m.scenario("1861").expect("scenario");
    start(m, rules, s, Vec::new(), Dice::seeded(seed))
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

/// A fog-of-war game some random actions in, with enemy pieces hidden from the Union.
fn fogged(m: &Module, rules: &mut ScriptRules) -> GameState {
    RandomGame::new(m, rules, "1861", 3)
        .take(121)
        .last()
        .expect("a game")
}

#[test]
fn an_open_games_knowledge_is_the_state_itself_not_a_copy() {
    let (m, mut rules) = ahd();
    let g = begin(&m, &mut rules, 1);
    let union = m.find_seat("union").unwrap();
    let (k, errors) = Knowledge::new(&m, &mut rules, &g, union);
    assert!(errors.is_empty());
    assert!(k.is_open());
    assert!(
        std::ptr::eq(k.open_state().unwrap(), &g),
        "borrowed, not copied"
    );
    let sample = k.sample(&m, 99);
    assert!(
        matches!(sample, std::borrow::Cow::Borrowed(s) if std::ptr::eq(s, &g)),
        "an open game's sample is the game itself"
    );
}

/// The pieces `s` does not see fully in `g`, by index.
fn hidden(m: &Module, rules: &mut ScriptRules, g: &GameState, s: SeatId) -> Vec<usize> {
    let (sight, _) = sights(m, rules, g, s);
    sight
        .iter()
        .enumerate()
        .filter(|(i, seen)| **seen != Sight::Full && g.units[*i].side != m.seat(s).side.unwrap())
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn fog_of_war_knowledge_gives_no_way_to_the_hidden_truth() {
    // mods/examples/fog-of-war/README.md: a side sees an enemy piece's type only in or
    // next to a box holding its own pieces.
    let (m, mut rules) = fog();
    let g = fogged(&m, &mut rules);
    let union = seat(&m, "union");
    let hide = hidden(&m, &mut rules, &g, union);
    let on_board: Vec<usize> = hide
        .iter()
        .copied()
        .filter(|&i| matches!(g.units[i].place, Place::Board(_)))
        .collect();
    assert!(
        !on_board.is_empty(),
        "the test needs hidden enemy pieces on the map"
    );
    let (k, _) = Knowledge::new(&m, &mut rules, &g, union);
    assert!(!k.is_open());
    assert!(k.open_state().is_none(), "no accessor to the real state");

    // The same knowledge whatever the hidden pieces really are: change every hidden
    // piece's type, hits and the dice, and every sample is the same.
    let mut other = g.clone();
    for &i in &hide {
        let u = &mut other.units[i];
        let kinds = m.units.types.len();
        u.kind = UnitTypeId::from_index((u.kind.index() + 1) % kinds).unwrap();
    }
    other.dice = Dice::seeded(12345);
    let (k2, _) = Knowledge::new(&m, &mut rules, &other, union);
    for seed in 0..5 {
        assert_eq!(
            k.sample(&m, seed).into_owned(),
            k2.sample(&m, seed).into_owned(),
            "sample {seed} depends on what the Union may not see"
        );
    }

    // Samples agree with what the Union sees, and vary in what it does not.
    let mut kinds_seen = std::collections::BTreeSet::new();
    let boxes = |s: &GameState| {
        let mut at: Vec<_> = s
            .units
            .iter()
            .filter(|u| u.side != m.seat(union).side.unwrap())
            .filter_map(|u| match u.place {
                Place::Board(b) => Some(b),
                _ => None,
            })
            .collect();
        at.sort();
        at
    };
    let (sight, _) = sights(&m, &mut rules, &g, union);
    for seed in 0..20 {
        let s = k.sample(&m, seed).into_owned();
        assert_ne!(s.dice, g.dice, "a sample has dice of its own");
        for (i, seen) in sight.iter().enumerate() {
            if *seen == Sight::Full {
                assert_eq!(s.units[i], g.units[i], "a piece seen fully is as it is");
            }
        }
        // Every enemy piece seen at all stands where it stands (by box, not by slot).
        let seen_boxes: Vec<_> = {
            let mut at: Vec<_> = g
                .units
                .iter()
                .zip(&sight)
                .filter(|(u, seen)| {
                    **seen >= Sight::Presence && u.side != m.seat(union).side.unwrap()
                })
                .filter_map(|(u, _)| match u.place {
                    Place::Board(b) => Some(b),
                    _ => None,
                })
                .collect();
            at.sort();
            at
        };
        assert_eq!(boxes(&s), seen_boxes);
        kinds_seen.insert(
            s.units
                .iter()
                .filter(|u| {
                    u.side != m.seat(union).side.unwrap() && matches!(u.place, Place::Board(_))
                })
                .map(|u| u.kind)
                .collect::<Vec<_>>(),
        );
    }
    assert!(
        kinds_seen.len() > 1,
        "the hidden pieces' types are drawn, not read: 20 samples all alike"
    );
}

/// A player that always asks for something the game refuses.
struct Stubborn;

impl Player for Stubborn {
    fn choose(
        &mut self,
        _: &Module,
        _: &mut dyn Rules,
        _: &Knowledge<'_>,
    ) -> Result<Action, AiError> {
        Ok(Action::Retreat {
            to: muster_core::ids::BoxId(0),
        })
    }
}

#[test]
fn a_refused_choice_falls_back_to_a_legal_action_of_the_seat_and_says_so() {
    let (m, mut rules) = fog();
    let g = begin(&m, &mut rules, 2);
    let union = seat(&m, "union");
    let legal = legal_actions_for(&m, &mut rules, &g, union).unwrap();
    let d = decide_for(&mut Stubborn, &m, &mut rules, &g, union, |r, a| {
        apply_by(&m, r, &g, union, a)
    })
    .unwrap();
    assert!(d.fell_back);
    assert!(legal.contains(&d.action), "{:?}", d.action);
}

#[test]
fn decisions_about_no_piece_are_every_seats_of_the_side() {
    let (m, mut rules) = commanders();
    let g = begin(&m, &mut rules, 1);
    for id in ["union-east", "union-west"] {
        let legal = legal_actions_for(&m, &mut rules, &g, seat(&m, id)).unwrap();
        assert!(legal.contains(&Action::EndStep), "{id}: {legal:?}");
    }
}

#[test]
fn two_commanders_pass_the_step_in_turn_each_moving_his_own_pieces() {
    let (m, mut rules) = commanders();
    let mut g = begin(&m, &mut rules, 4);
    // The East random, so that it leaves the side's marches to the West now and then.
    let mut players: Vec<Box<dyn Player>> = m
        .seat_ids()
        .map(|s| match m.seat(s).id.as_str() {
            "union-east" => player(Level::Random, 4),
            _ => player(Level::Ai, 4),
        })
        .collect();
    let mut table = Table::new();
    let (east, west) = (seat(&m, "union-east"), seat(&m, "union-west"));
    let mut acted = [0; 3];
    let mut passed = Vec::new();
    // The game's first four turns: both commanders act on their pieces, the East
    // passing each step to the West when done. (The Union's marches are the side's: the
    // East, asked first, may spend them all.)
    let end = muster_core::ids::TurnId(g.turn.0 + 4);
    while g.turn < end && g.outcome.is_none() {
        let s = table.next(&m, &mut rules, &g).unwrap().expect("a seat");
        match table
            .play(players[s.index()].as_mut(), &m, &mut rules, &g, s)
            .unwrap()
        {
            Played::Applied { action, next, .. } => {
                // Each action about a piece is about its seat's own: `apply_by` checked it.
                if action != Action::EndStep {
                    acted[s.index()] += 1;
                }
                g = next;
            }
            Played::Passed { seat } => passed.push(seat),
        }
    }
    assert!(acted[east.index()] > 0, "the East acted: {acted:?}");
    assert!(acted[west.index()] > 0, "the West acted: {acted:?}");
    assert!(passed.contains(&east), "the East passed a step to the West");
}

#[test]
fn whole_games_with_two_commanders_under_fog_finish() {
    let (m, mut rules) = commanders();
    let scenario = m.scenario("1861").unwrap().clone();
    for (seed, union) in [(1, Level::Ai), (2, Level::Random)] {
        let by_side = [union, Level::Ai];
        let setup = GameSetup {
            scenario: &scenario,
            options: Vec::new(),
            players: levels_by_seat(&m, &by_side, Level::Ai),
            end: None,
            max_actions: 20_000,
        };
        let (result, state) = play_game(&m, &mut rules, &setup, seed).unwrap();
        assert!(result.finished, "seed {seed}: {result:?}");
        assert!(state.outcome.is_some());
    }
}

fn muster(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("muster runs")
}

#[test]
fn strong_searches_samples_of_a_fogged_position_and_its_marches_are_legal() {
    let (m, mut rules) = fog();
    let mut g = begin(&m, &mut rules, 6);
    let mut strong = player(
        Level::Strong {
            budget: 8,
            opening: 0,
        },
        6,
    );
    let mut table = Table::new();
    let mut refused = 0;
    // Two game turns; every action checked on the real game for its seat.
    let end = muster_core::ids::TurnId(g.turn.0 + 2);
    while g.turn < end && g.outcome.is_none() {
        let s = table.next(&m, &mut rules, &g).unwrap().expect("a seat");
        match table.play(strong.as_mut(), &m, &mut rules, &g, s).unwrap() {
            Played::Applied {
                next, fell_back, ..
            } => {
                refused += usize::from(fell_back);
                g = next;
            }
            Played::Passed { .. } => unreachable!("one seat a side"),
        }
    }
    assert!(refused <= 2, "{refused} choices refused in two turns");
}

#[test]
fn muster_play_and_balance_run_fog_of_war_with_computer_seats() {
    let out = muster(&[
        "play",
        "mods/ahd",
        "--mod",
        "mods/examples/fog-of-war",
        "--union",
        "ai",
        "--confederate",
        "random",
        "--seed",
        "5",
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Result:"), "{text}");

    let out = muster(&[
        "balance",
        "mods/ahd",
        "--mod",
        "tests/fixtures/two-commanders",
        "--games",
        "2",
        "--seat",
        "union-west=random",
        "--threads",
        "1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("union-east=ai, union-west=random, confederate=ai"),
        "{text}"
    );
    assert!(text.contains("2 games"), "{text}");

    let out = muster(&["balance", "mods/ahd", "--games", "1", "--seat", "nobody=ai"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("'nobody' is not a seat"), "{err}");
}

/// A whole game of the formations fixture with two commanders a side
/// (`tests/fixtures/formations-seats`), each seat a computer player of `levels` (in seat
/// order, cycled), every choice checked for its seat on the real game: the log, the
/// organisation actions taken and how many choices the engine refused.
fn formations_game(
    fixture: &str,
    levels: &[Level],
    seed: u64,
) -> (Vec<String>, Vec<Action>, usize, GameState) {
    let dir = root().join("tests/fixtures").join(fixture);
    let m = muster_core::load_module(dir).unwrap_or_else(|e| panic!("{e}"));
    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let s = m.scenario("army").expect("scenario");
    let (mut g, mut log) =
        start(&m, &mut rules, s, Vec::new(), Dice::seeded(seed)).unwrap_or_else(|e| panic!("{e}"));
    let mut players: Vec<Box<dyn Player>> = m
        .seat_ids()
        .map(|s| {
            player(
                levels[s.index() % levels.len()],
                muster_ai::seat_seed(&m, seed, s),
            )
        })
        .collect();
    let mut table = Table::new();
    let (mut organised, mut refused) = (Vec::new(), 0);
    for _ in 0..5_000 {
        if g.outcome.is_some() {
            break;
        }
        let s = table.next(&m, &mut rules, &g).unwrap().expect("a seat");
        match table
            .play(players[s.index()].as_mut(), &m, &mut rules, &g, s)
            .unwrap()
        {
            Played::Applied {
                action,
                next,
                log: said,
                fell_back,
                ..
            } => {
                refused += usize::from(fell_back);
                if matches!(action, Action::Organize { .. } | Action::Drop { .. }) {
                    organised.push(action);
                }
                log.extend(said);
                g = next;
            }
            Played::Passed { .. } => {}
        }
    }
    (log, organised, refused, g)
}

#[test]
fn computer_players_play_every_seat_of_a_module_with_formations_and_two_commanders_a_side() {
    // Issue 47, item 5: `ai` and `strong` play each seat from its knowledge (the
    // fixture hides the enemy's organisation, seed 001 §12), organising and leaving
    // garrisons among their seat's legal actions; the engine refuses none of their
    // choices, and the same seed plays the same game.
    let strong = Level::Strong {
        budget: 6,
        opening: 0,
    };
    for (fixture, levels, seed) in [
        ("formations-seats", vec![Level::Ai], 3),
        ("formations-seats", vec![strong, Level::Ai], 4),
        ("formations-seats", vec![Level::Random], 5),
        ("formations-president", vec![Level::Ai], 6),
        (
            "formations-president",
            vec![Level::Ai, strong, Level::Random],
            7,
        ),
    ] {
        let (log, organised, refused, g) = formations_game(fixture, &levels, seed);
        let m = muster_core::load_module(root().join("tests/fixtures").join(fixture))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(g.outcome.is_some(), "{fixture} {levels:?}: the game ends");
        assert_eq!(refused, 0, "{fixture} {levels:?}: a choice was refused");
        assert!(g.check_invariants(&m).is_ok());
        let again = formations_game(fixture, &levels, seed);
        assert_eq!(again.0, log, "{fixture} {levels:?}: deterministic");
        if levels == [Level::Random] {
            assert!(
                !organised.is_empty(),
                "random players take listed organisations"
            );
        }
        if fixture == "formations-president" {
            // §2: each side's president allotted every movement step (4 turns, 2 sides).
            let allotted = log
                .iter()
                .filter(|l| l.contains("allots the marches to"))
                .count();
            assert_eq!(allotted, 8, "{log:#?}");
        }
    }
}

#[test]
fn muster_play_seats_every_kind_on_the_formations_fixture() {
    // Issue 47, item 4: `--seat SEAT=KIND` for each seat of a module with a president
    // and two commanders a side, people at the prompt included, under either referee
    // setting (the fixture has no referee: the setting changes nothing).
    let input: String = "1\n".repeat(400);
    for referee in ["computer", "human"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_muster"))
            .args([
                "play",
                "tests/fixtures/formations-president",
                "--player",
                "union=ai",
                "--player",
                "confederate=random",
                "--seat",
                "lincoln=ai",
                "--seat",
                "davis=human",
                "--seat",
                "mcdowell=ai",
                "--seat",
                "heintzelman=strong",
                "--seat",
                "beauregard=random",
                "--seat",
                "johnston=human",
                "--referee",
                referee,
                "--strong-budget",
                "4",
                "--seed",
                "2",
            ])
            .current_dir(root())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("muster runs");
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{referee}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for seat in [
            "[McDowell]",
            "[III Corps' commander]",
            "[Beauregard]",
            "[Lincoln]",
        ] {
            assert!(
                text.contains(seat),
                "{referee}: {seat} never acted:\n{text}"
            );
        }
        assert!(text.contains("(Johnston's decision)"), "{text}");
        // Davis, at the prompt, allots each of his movement steps (§2).
        assert!(text.contains("(Davis's decision)"), "{text}");
        assert!(text.contains("allots the marches to"), "{text}");
        assert!(text.contains("Result:"), "{referee}: the game ends\n{text}");
    }
    // A seat the module does not have is named back.
    let out = muster(&[
        "play",
        "tests/fixtures/formations-seats",
        "--seat",
        "lincoln=ai",
        "--seed",
        "1",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lincoln"), "{err}");
}
