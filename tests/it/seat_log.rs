//! A seat's log (issue 43, item 4): each seat reads only the lines about what it may
//! see. Checked against the seat's own view (`seat_view`), not the filter's workings.

use std::collections::BTreeSet;

use muster_core::game::dice::Pcg32;
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{
    Action, Dice, GameState, Place, apply, apply_by, describe, legal_actions, legal_actions_for,
    seat_log, seat_view, start,
};
use muster_core::ids::{SeatId, UnitId};
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::{CHOOSER_STREAM, root};

fn load(dir: &str) -> (Module, ScriptRules) {
    let m = load_module(root().join(dir)).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

/// A random game of `dir`'s 1861 scenario, `steps` actions long (or to its end): each
/// state before an action, the action, and the lines it wrote.
fn played(
    m: &Module,
    rules: &mut ScriptRules,
    seed: u64,
    steps: usize,
) -> Vec<(GameState, Action, GameState, Vec<String>)> {
    let s = m.scenario("1861").expect("1861");
    let (mut g, _) = start(m, rules, s, Vec::new(), Dice::seeded(seed)).unwrap();
    let mut chooser = Pcg32::new(seed, CHOOSER_STREAM);
    let mut out = Vec::new();
    while g.outcome.is_none() && out.len() < steps {
        let legal = legal_actions(m, rules, &g).unwrap();
        let a = legal[(chooser.between_one_and(legal.len() as u32) - 1) as usize].clone();
        let (next, lines) = apply(m, rules, &g, &a).unwrap();
        out.push((g, a, next.clone(), lines));
        g = next;
    }
    out
}

/// The numbers of the pieces `seat`'s view shows fully.
fn seen_numbers(m: &Module, rules: &mut ScriptRules, g: &GameState, seat: SeatId) -> BTreeSet<u32> {
    let (view, errors) = seat_view(m, rules, g, seat);
    assert!(errors.is_empty(), "{errors:?}");
    view.boxes
        .iter()
        .flat_map(|b| &b.pieces)
        .filter(|p| p.kind.is_some())
        .filter_map(|p| p.number)
        .collect()
}

#[test]
fn a_fog_of_war_log_names_no_piece_its_seat_does_not_see() {
    let (m, mut rules) = load("mods/examples/fog-of-war");
    let game = played(&m, &mut rules, 7, 900);
    for seat in m.seat_ids() {
        let side = m.seat(seat).side.expect("a side's seat");
        let (mut redacted, mut enemy_lines) = (0, 0);
        for (before, a, after, lines) in &game {
            let (shown, errors) = seat_log(&m, &mut rules, before, a, after, lines, seat);
            assert!(errors.is_empty(), "{errors:?}");
            let seen: BTreeSet<u32> = seen_numbers(&m, &mut rules, before, seat)
                .union(&seen_numbers(&m, &mut rules, after, seat))
                .copied()
                .collect();
            // Every enemy piece on the board, named as the log names it.
            for state in [before, after] {
                for (i, u) in state.units.iter().enumerate() {
                    if u.side == side || !matches!(u.place, Place::Board(_)) {
                        continue;
                    }
                    let name = describe::unit(&m, state, UnitId::from_index(i).unwrap());
                    let name = name.trim_end_matches(" (reduced)");
                    for line in &shown {
                        let named = line.match_indices(name).any(|(k, _)| {
                            !line[k + name.len()..].starts_with(|c: char| c.is_ascii_digit())
                        });
                        assert!(
                            !named || seen.contains(&u.number),
                            "{}'s log names {name}, which it does not see: {line:?}",
                            m.seat(seat).id
                        );
                    }
                }
            }
            let by_enemy = before.active_side(&m) != side;
            if by_enemy && shown[0] != describe::action(&m, before, a) {
                redacted += 1;
            }
            if by_enemy && shown.len() > 1 {
                enemy_lines += 1;
            }
        }
        // Not everything is hidden: the fog hides far moves and shows battles nearby.
        assert!(
            redacted > 0,
            "{}: no enemy action was hidden",
            m.seat(seat).id
        );
        assert!(
            enemy_lines > 0,
            "{}: no enemy line was shown",
            m.seat(seat).id
        );
    }
}

#[test]
fn a_hidden_march_is_told_without_the_piece() {
    let (m, mut rules) = load("mods/examples/fog-of-war");
    let game = played(&m, &mut rules, 7, 900);
    let confederate = m.find_seat("confederate").unwrap();
    let far = game
        .iter()
        .find_map(|(before, a, after, lines)| {
            let Action::Move { path, .. } = a else {
                return None;
            };
            let (shown, _) = seat_log(&m, &mut rules, before, a, after, lines, confederate);
            (shown[0] != describe::action(&m, before, a)).then(|| (path.clone(), shown))
        })
        .expect("a Union march out of the Confederacy's sight");
    let to = far.0.steps.last().unwrap().to;
    assert_eq!(
        far.1,
        vec![format!(
            "Union moves a piece to {}",
            describe::place(&m, to)
        )]
    );
}

#[test]
fn an_open_game_shows_every_seat_the_whole_log() {
    let (m, mut rules) = load("mods/ahd");
    for (before, a, after, lines) in played(&m, &mut rules, 3, 400) {
        let whole: Vec<String> = std::iter::once(describe::action(&m, &before, &a))
            .chain(lines.iter().cloned())
            .collect();
        for seat in m.seat_ids() {
            let (shown, _) = seat_log(&m, &mut rules, &before, &a, &after, &lines, seat);
            assert_eq!(shown, whole);
        }
    }
}

#[test]
fn a_sealed_choice_is_read_only_by_its_maker_until_revealed() {
    let (m, mut rules) = load("mods/examples/sealed-orders");
    let s = m.scenario("1861").unwrap();
    let (g, _) = start(&m, &mut rules, s, Vec::new(), Dice::seeded(3)).unwrap();
    let union = m.find_seat("union").unwrap();
    let confederate = m.find_seat("confederate").unwrap();
    let choice = legal_actions_for(&m, &mut rules, &g, union).unwrap()[0].clone();
    let Action::Take { label, .. } = &choice else {
        panic!("an offer")
    };
    let (g1, lines) = apply_by(&m, &mut rules, &g, union, &choice).unwrap();
    let (mine, _) = seat_log(&m, &mut rules, &g, &choice, &g1, &lines, union);
    let (theirs, _) = seat_log(&m, &mut rules, &g, &choice, &g1, &lines, confederate);
    assert_eq!(mine[0], *label);
    assert_eq!(theirs, vec!["a sealed choice is made".to_string()]);
    // The last choice reveals both: the Confederacy reads its own, and what follows.
    let answer = legal_actions_for(&m, &mut rules, &g1, confederate).unwrap()[0].clone();
    let (g2, lines) = apply_by(&m, &mut rules, &g1, confederate, &answer).unwrap();
    let (union_reads, _) = seat_log(&m, &mut rules, &g1, &answer, &g2, &lines, union);
    assert!(g2.sealed.is_none());
    assert!(!union_reads.is_empty());
}

#[test]
fn muster_view_log_prints_the_seats_log() {
    let (m, mut rules) = load("mods/examples/fog-of-war");
    let game = played(&m, &mut rules, 7, 300);
    let seat = m.find_seat("confederate").unwrap();
    let mut expected = Vec::new();
    for (before, a, after, lines) in &game {
        expected.extend(seat_log(&m, &mut rules, before, a, after, lines, seat).0);
    }
    let save = Save::new(
        &m,
        SavedScenario {
            id: "1861".into(),
            xml: None,
        },
        Vec::new(),
        7,
        game.iter().map(|(_, a, _, _)| a.clone()).collect(),
        game.last().unwrap().2.clone(),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fog.json");
    save.write(&path).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(root())
        .args(["view", path.to_str().unwrap(), "--seat", "confederate"])
        .args(["--json", "--log", "--module", "mods/examples/fog-of-war"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let log: Vec<String> = serde_json::from_value(json["log"].clone()).unwrap();
    assert_eq!(log, expected);
    assert!(log.iter().any(|l| l.starts_with("Union moves a piece to ")));
    assert_eq!(json["view"], "what one seat sees");
}
