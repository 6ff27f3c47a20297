//! Pieces' numbers (issue 15: "stable unit names, no reused numbers"): a piece gets a
//! number when it enters the board, no two pieces on the board share one, a number is
//! never given again once its piece has left (a counter of the mix used again is a new
//! force, named anew), and an upgraded piece keeps its number (AHD 6.0: the same force,
//! promoted). Checked after every action of whole random games, which eliminate,
//! recruit (7.0) and promote pieces.

use std::collections::{BTreeMap, BTreeSet};

use muster_core::game::{Action, Dice, GameState, Place, apply, describe, legal_actions, start};

fn check_game(scenario: &str, seed: u64) -> (usize, usize) {
    let (m, mut rules) = muster_test_support::ahd();
    let (mut state, _) = start(
        &m,
        &mut rules,
        m.scenario(scenario).unwrap(),
        Vec::new(),
        Dice::seeded(seed),
    )
    .unwrap();
    let mut chooser = muster_core::game::dice::Pcg32::new(seed, 11);
    // Numbers given so far, and those whose piece left the board.
    let mut given: BTreeSet<u32> = BTreeSet::new();
    let mut retired: BTreeSet<u32> = BTreeSet::new();
    let mut upgrades = 0;
    let mut returns = 0;
    let mut left_once: BTreeSet<usize> = BTreeSet::new();
    let on_board = |s: &GameState| -> BTreeMap<usize, u32> {
        s.units
            .iter()
            .enumerate()
            .filter(|(_, u)| matches!(u.place, Place::Board(_)))
            .map(|(i, u)| (i, u.number))
            .collect()
    };
    let check = |s: &GameState, given: &mut BTreeSet<u32>, retired: &BTreeSet<u32>| {
        let board = on_board(s);
        let numbers: BTreeSet<u32> = board.values().copied().collect();
        assert_eq!(numbers.len(), board.len(), "two pieces share a number");
        assert!(!numbers.contains(&0), "a piece on the board has no number");
        for u in &s.units {
            if !matches!(u.place, Place::Board(_)) {
                assert_eq!(u.number, 0, "a piece off the board keeps a number");
            }
        }
        for n in &numbers {
            assert!(!retired.contains(n), "number {n} given again");
            assert!(*n <= s.numbered);
        }
        given.extend(numbers);
    };
    check(&state, &mut given, &retired);
    let mut actions = 0;
    while state.outcome.is_none() && actions < 3_000 {
        let legal = legal_actions(&m, &mut rules, &state).unwrap();
        let action = legal[(chooser.between_one_and(legal.len() as u32) - 1) as usize].clone();
        let before = on_board(&state);
        let (next, _) = apply(&m, &mut rules, &state, &action).unwrap();
        let after = on_board(&next);
        if let Action::Upgrade { unit } = action {
            // The piece that came in its place has its number.
            let number = before[&unit.index()];
            assert!(
                after.values().any(|&n| n == number) && !after.contains_key(&unit.index()),
                "an upgraded piece keeps its number"
            );
            upgrades += 1;
        } else {
            for (i, n) in &before {
                if !after.contains_key(i) {
                    retired.insert(*n);
                    left_once.insert(*i);
                }
            }
        }
        for (i, n) in &after {
            if left_once.contains(i) && !before.contains_key(i) {
                // A counter back on the board: a new number, not its old one.
                assert!(!retired.contains(n));
                returns += 1;
            }
        }
        assert!(next.numbered >= state.numbered, "numbers only grow");
        state = next;
        check(&state, &mut given, &retired);
        // The log names a piece by its number.
        if let Some((&i, &n)) = on_board(&state).iter().next() {
            let name = describe::unit(&m, &state, muster_core::ids::UnitId(i as u16));
            assert!(name.contains(&format!("#{n}")), "{name}");
        }
        actions += 1;
    }
    (upgrades, returns)
}

#[test]
fn numbers_are_given_on_entering_and_never_again() {
    let mut upgrades = 0;
    let mut returns = 0;
    for (scenario, seed) in [("1861", 1), ("1862", 2), ("1861", 3)] {
        let (u, r) = check_game(scenario, seed);
        upgrades += u;
        returns += r;
    }
    // The games did what the check is about.
    assert!(upgrades > 0, "no upgrade happened");
    assert!(returns > 0, "no counter came back to the board");
}
