//! The engine takes in a battle exactly the actions it lists. `apply` checks a battle's
//! action without listing them all (a target needs the rules' yes to it alone; passing
//! needs no question), so here, at every decision of the battles of whole AHD games,
//! every action that could be named (every target for every piece in the battle, every
//! retreat, reinforcement, promotion and a pass) is applied to a copy, and the engine
//! must accept it exactly when `legal_actions` lists it. With all of AHD's optional
//! rules too: 5.2's like-battlefield targets make the rules refuse targets, and 5.41's
//! evacuations add a retreat beyond the neighbours.

use muster_ai::{Level, player};
use muster_core::Module;
use muster_core::game::{
    Action, ActionError, Dice, GameState, apply, battle::Battle, decider, legal_actions, start,
};
use muster_scripting::ScriptRules;

/// Every action a player could name in the battle under way, legal or not.
fn namable(m: &Module, state: &GameState, b: &Battle) -> Vec<Action> {
    let fighting: Vec<_> = b.attackers.iter().chain(&b.defenders).copied().collect();
    let mut out = vec![Action::Pass, Action::EndStep];
    for &shooter in &fighting {
        for &target in &fighting {
            out.push(Action::Target { shooter, target });
        }
        out.push(Action::Upgrade { unit: shooter });
    }
    for at in m.board.box_ids() {
        out.push(Action::Retreat { to: at });
    }
    for &(near, _) in m.board.neighbours(b.at) {
        for unit in state.units_at(near) {
            out.push(Action::Reinforce { unit });
        }
    }
    out
}

/// Checks the battles of one game; returns how many actions were checked, and at how
/// many target choices the rules refused some enemy.
fn check_game(m: &Module, rules: &mut ScriptRules, options: &[&str], seed: u64) -> (usize, usize) {
    let option_ids = options
        .iter()
        .map(|o| m.find_option(o).unwrap_or_else(|| panic!("no option {o}")))
        .collect();
    let scenario = m.scenario("1861-short").unwrap();
    let (mut state, _) = start(m, rules, scenario, option_ids, Dice::seeded(seed)).unwrap();
    // The `ai` attacks where it has the odds; the random player walks into battles and
    // retreats at random.
    let mut players = [player(Level::Ai, seed), player(Level::Random, seed)];
    let (mut checked, mut refused) = (0, 0);
    let mut actions = 0;
    while state.outcome.is_none() && actions < 20_000 {
        if let Some(b) = state.combat.as_ref().and_then(|c| c.battle.clone()) {
            let legal = legal_actions(m, rules, &state).unwrap();
            let targets = legal
                .iter()
                .filter(|a| matches!(a, Action::Target { .. }))
                .count();
            let enemies = if b.firing == b.attacker {
                b.defenders.len()
            } else {
                b.attackers.len()
            };
            if targets > 0 && targets < enemies {
                refused += 1;
            }
            for a in namable(m, &state, &b) {
                let taken = match apply(m, rules, &state, &a) {
                    Ok(_) => true,
                    Err(ActionError::Illegal(_)) => false,
                    Err(e) => panic!("seed {seed}, {options:?}: {a:?} failed: {e}"),
                };
                assert_eq!(
                    taken,
                    legal.contains(&a),
                    "seed {seed}, options {options:?}, battle at {:?} ({:?}, round {}): \
                     {a:?} taken {taken}, listed {}",
                    b.at,
                    b.stage,
                    b.round,
                    legal.contains(&a)
                );
                checked += 1;
            }
        }
        let side = decider(m, &state);
        let action = muster_ai::choose(&mut players[side.index()], m, rules, &state).unwrap();
        state = apply(m, rules, &state, &action).unwrap().0;
        actions += 1;
    }
    (checked, refused)
}

#[test]
fn a_battle_takes_exactly_the_actions_it_lists() {
    let (m, mut rules) = muster_test_support::ahd();
    let all = [
        "like-battlefield-targets",
        "naval-evacuations",
        "refitting",
        "combat-experience",
        "crack-infantry",
    ];
    let (mut checked, mut refused) = (0, 0);
    for seed in 1..=2 {
        for options in [&[][..], &all[..]] {
            let (c, r) = check_game(&m, &mut rules, options, seed);
            checked += c;
            refused += r;
        }
    }
    // Battles were fought, and the rules refused targets (5.1, 5.2) in some of them.
    assert!(checked > 1_000, "only {checked} actions checked");
    assert!(refused > 0, "no target was ever refused");
    eprintln!("{checked} actions checked, {refused} target choices with a refusal");
}
