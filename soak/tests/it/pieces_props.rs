//! Where a piece is and what it carries (`core/src/game/pieces.rs`), held by properties
//! of random games: from a random scenario, options and seed, a random sequence of
//! actions, each taken from `legal_actions`, keeps the soak's invariants
//! ([`Checks`]) after every action, and each piece what its moves must leave it.
//!
//! On AHD, and on a fixture mod of it (`tests/fixtures/carry`) whose decisions attach
//! pieces to pieces, so that carriers and carried pieces go through moves, moves off the
//! lines, battles (retreats, reinforcements, eliminations), upgrades and removals, which
//! AHD alone never does. Actions are picked by kind first (an offer's id is a kind), then
//! within the kind, so the few offers are taken as often as the many moves. The runs are
//! deterministic (a fixed proptest seed) and short; `PROPTEST_CASES=500` explores
//! further.

use std::cell::RefCell;

use muster_core::Module;
use muster_core::game::{Action, Dice, GameState, Place, apply, legal_actions, start};
use muster_core::ids::OptionId;
use muster_core::unit::Flags;
use muster_soak::game::Variant;
use muster_soak::harness::root;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRng, TestRunner};

/// Actions a case plays at most: enough for a few player turns with their battles.
const ACTIONS: usize = 120;

/// A choice of action: the kind (by first appearance in the legal list), then which one.
type Choice = (u16, u16);

/// What the properties need of a case: a scenario (index), the options in force (a bit
/// per option), the dice's seed and the choices.
type Case = (usize, u64, u64, Vec<Choice>);

/// How often the cases took a piece through what its carrier did, so a test can tell
/// its games exercised the rules it holds.
#[derive(Debug, Default)]
struct Seen {
    /// Actions after which some piece was carried.
    carrying: usize,
    /// Carried pieces that went with their carrier to another box.
    went_along: usize,
    /// Carried pieces let go by a carrier that left the board.
    let_go: usize,
    /// Carried pieces handed to the piece their carrier was upgraded to.
    handed_over: usize,
}

/// Runs `cases` random games of `v`, each checked after every action.
fn check_random_games(v: Variant, cases: u32) -> Seen {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = cases;
    }
    config.failure_persistence = None;
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let n = v.module.scenarios.len();
    let strategy = (
        0..n,
        any::<u64>(),
        any::<u64>(),
        vec(any::<Choice>(), 1..ACTIONS),
    );
    let v = RefCell::new(v);
    let seen = RefCell::new(Seen::default());
    let result = runner.run(&strategy, |case: Case| {
        play(&mut v.borrow_mut(), &case, &mut seen.borrow_mut()).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{}: {e}", v.borrow().name);
    }
    seen.into_inner()
}

/// Plays one case; the error names the action after which a property failed.
fn play(
    v: &mut Variant,
    (scenario, options, seed, choices): &Case,
    seen: &mut Seen,
) -> Result<(), String> {
    let module = &v.module;
    let sc = &module.scenarios[*scenario];
    let options: Vec<OptionId> = (0..module.options.len().min(64))
        .filter(|i| options >> i & 1 == 1)
        .filter_map(OptionId::from_index)
        .collect();
    let mut state = start(module, &mut v.rules, sc, options, Dice::seeded(*seed))
        .map_err(|e| format!("scenario {} does not start: {e}", sc.id))?
        .0;
    v.checks.state(module, &state)?;
    pieces(&state)?;
    for (i, &(kind, which)) in choices.iter().enumerate() {
        if state.outcome.is_some() {
            break;
        }
        let legal = legal_actions(module, &mut v.rules, &state).map_err(|e| e.to_string())?;
        let action = pick(&legal, kind, which)?;
        let after = apply(module, &mut v.rules, &state, &action)
            .map_err(|e| format!("action {i}, {action:?}, is listed but refused: {e}"))?
            .0;
        let at = |e: String| format!("after action {i}, {action:?} (scenario {}): {e}", sc.id);
        v.checks.state(module, &after).map_err(at)?;
        v.checks.step(module, &state, &action, &after).map_err(at)?;
        pieces(&after).map_err(at)?;
        moved(module, &state, &after).map_err(at)?;
        count(&state, &after, seen);
        state = after;
    }
    Ok(())
}

/// The `which`-th action of the `kind`-th kind in the legal list (each offer's id a kind
/// of its own, so the fixture's few carrying decisions are not lost among the moves).
fn pick(legal: &[Action], kind: u16, which: u16) -> Result<Action, String> {
    let kind_of = |a: &Action| {
        let offer = match a {
            Action::Take { offer, .. } => Some(offer.clone()),
            _ => None,
        };
        (std::mem::discriminant(a), offer)
    };
    let mut kinds = Vec::new();
    // Ending a step is one choice in eight while there are others, so steps see more
    // than their first decision.
    let end_step = kind.is_multiple_of(8) || legal.iter().all(|a| *a == Action::EndStep);
    for a in legal.iter().filter(|a| end_step || **a != Action::EndStep) {
        let k = kind_of(a);
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    if kinds.is_empty() {
        return Err("a game not over has no legal action".into());
    }
    let k = &kinds[usize::from(kind / 8) % kinds.len()];
    let of_kind: Vec<&Action> = legal.iter().filter(|a| kind_of(a) == *k).collect();
    Ok(of_kind[usize::from(which) % of_kind.len()].clone())
}

/// What every piece keeps in every state: off the board it is at full strength, carries
/// no flag, is carried by nothing and carries nothing; a carrier is in its carried
/// pieces' box (the engine's `check_invariants` holds the last two on the board).
fn pieces(state: &GameState) -> Result<(), String> {
    for (i, u) in state.units.iter().enumerate() {
        if matches!(u.place, Place::Board(_)) {
            continue;
        }
        if u.hits != 0 || !u.flags.is_empty() || u.attached_to.is_some() {
            return Err(format!(
                "piece {i} is off the board ({:?}) with {} hits, flags {:?}, carried by {:?}",
                u.place, u.hits, u.flags, u.attached_to
            ));
        }
    }
    Ok(())
}

/// What a piece that changed place in one action is left with: no flag (they are about
/// where it stood; neither AHD nor the fixture flags a piece in the action that moves
/// it), but for a piece upgraded to, which takes the flags, like the number, of the
/// piece it replaces. Carried pieces keep up with their carriers and are let go by one
/// leaving the board: the state check holds that.
fn moved(module: &Module, before: &GameState, after: &GameState) -> Result<(), String> {
    for (i, (b, a)) in before.units.iter().zip(&after.units).enumerate() {
        if a.place == b.place {
            continue;
        }
        let replaced = before
            .units
            .iter()
            .find(|o| a.number != 0 && o.number == a.number && b.number == 0);
        let kept = replaced.map_or(Flags::NONE, |o| o.flags);
        if a.flags != kept {
            return Err(format!(
                "piece {i} went from {:?} to {:?} with flags '{}' (the piece it replaces had '{}')",
                b.place,
                a.place,
                module.units.flag_names(a.flags),
                module.units.flag_names(kept)
            ));
        }
    }
    Ok(())
}

/// Adds what one action did to carried pieces to `seen`.
fn count(before: &GameState, after: &GameState, seen: &mut Seen) {
    if after.units.iter().any(|u| u.attached_to.is_some()) {
        seen.carrying += 1;
    }
    for (b, a) in before.units.iter().zip(&after.units) {
        let Some(carrier) = b.attached_to else {
            continue;
        };
        let left = !matches!(after.unit(carrier).place, Place::Board(_));
        match a.attached_to {
            Some(c) if c == carrier && a.place != b.place => seen.went_along += 1,
            Some(c) if c != carrier && left => seen.handed_over += 1,
            None if left && a.place == b.place => seen.let_go += 1,
            _ => {}
        }
    }
}

/// AHD's own games, every scenario and option.
#[test]
fn ahd_random_games_keep_the_pieces_invariants() {
    let v = Variant::load(&root(), "mods/ahd", &[]).expect("mods/ahd loads");
    check_random_games(v, 12);
}

/// Pieces that carry pieces, through every procedure.
#[test]
fn carried_pieces_keep_the_pieces_invariants() {
    let v = Variant::load(&root(), "mods/ahd", &["soak/tests/fixtures/carry"])
        .expect("the carry fixture loads");
    let seen = check_random_games(v, 12);
    eprintln!("{seen:?}");
    // Games that never took a carrier anywhere would hold nothing.
    assert!(
        seen.carrying > 0 && seen.went_along > 0 && seen.let_go > 0 && seen.handed_over > 0,
        "{seen:?}"
    );
}
