//! The invariant checks fail on broken states (so a soak or fuzz run that reports none
//! means something), and hold on real games and real saves.

use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{Action, Dice, GameState, Place, apply, legal_actions, start};
use muster_core::ids::BoxId;
use muster_soak::game::Variant;
use muster_soak::harness::{self, root, run_caught};
use muster_soak::invariants::Checks;

fn ahd() -> Variant {
    Variant::load(&root(), "mods/ahd", &[]).expect("mods/ahd loads")
}

fn start_1861(v: &mut Variant) -> GameState {
    let s = v.module.scenario("1861").expect("AHD has 1861").clone();
    start(&v.module, &mut v.rules, &s, Vec::new(), Dice::seeded(5))
        .expect("1861 starts")
        .0
}

#[test]
fn a_started_game_keeps_every_invariant() {
    let mut v = ahd();
    let state = start_1861(&mut v);
    Checks::new(&v.module).state(&v.module, &state).unwrap();
}

#[test]
fn a_lost_or_extra_piece_breaks_the_counter_mix() {
    let mut v = ahd();
    let checks = Checks::new(&v.module);
    let mut state = start_1861(&mut v);
    let piece = state.units.pop().expect("pieces");
    let e = checks.state(&v.module, &state).unwrap_err();
    assert!(e.contains("counter mix"), "{e}");
    state.units.push(piece.clone());
    state.units.push(piece);
    let e = checks.state(&v.module, &state).unwrap_err();
    assert!(e.contains("counter mix"), "{e}");
}

#[test]
fn ids_out_of_range_and_unsorted_lists_are_caught_before_they_panic() {
    let mut v = ahd();
    let checks = Checks::new(&v.module);
    let good = start_1861(&mut v);
    let mut s = good.clone();
    s.units[0].kind.0 = 200;
    assert!(
        checks
            .state(&v.module, &s)
            .unwrap_err()
            .contains("type 200")
    );
    let mut s = good.clone();
    s.boxes[0].controller = Some(muster_core::ids::SideId(9));
    assert!(checks.state(&v.module, &s).unwrap_err().contains("side 9"));
    let mut s = good.clone();
    s.markers = vec![
        (BoxId(3), Default::default(), 1),
        (BoxId(1), Default::default(), 1),
    ];
    assert!(checks.state(&v.module, &s).unwrap_err().contains("sorted"));
}

/// 7.1: a placement that takes a side past its army maximum is reported.
#[test]
fn placing_beyond_the_army_maximum_is_caught() {
    let mut v = ahd();
    let checks = Checks::new(&v.module);
    let before = start_1861(&mut v);
    let side = before.active_side(&v.module);
    let max = before.tally(
        &v.module,
        v.module.find_tally("army-maximum").expect("AHD's tally"),
        side,
    ) as usize;
    let on_board = |s: &GameState| {
        s.units
            .iter()
            .filter(|u| u.side == side && matches!(u.place, Place::Board(_)))
            .count()
    };
    let mut after = before.clone();
    let at = v
        .module
        .board
        .box_ids()
        .find(|&b| before.controller(b) == Some(side))
        .expect("a box the side holds");
    // Top up to one past the maximum, one piece at a time.
    while on_board(&after) <= max {
        let u = after
            .units
            .iter_mut()
            .find(|u| u.side == side && !matches!(u.place, Place::Board(_)))
            .expect("pieces off the board");
        u.place = Place::Board(at);
        u.flags = Default::default();
    }
    let place = Action::Place {
        kind: after.units[0].kind,
        at,
    };
    let e = checks.step(&v.module, &before, &place, &after).unwrap_err();
    assert!(e.contains("army-maximum"), "{e}");
    // The same change by another action (a battle's retreat, say) is not a placement.
    checks
        .step(&v.module, &before, &Action::Pass, &after)
        .unwrap();
}

/// The save target reads a real save (a short game of random moves), replays it, and
/// shrugs off a damaged one without panicking.
#[test]
fn the_save_target_replays_a_real_save_and_refuses_damaged_ones() {
    let mut v = ahd();
    let mut state = start_1861(&mut v);
    let mut actions = Vec::new();
    for i in 0..40 {
        let legal = legal_actions(&v.module, &mut v.rules, &state).unwrap();
        let a = legal[i * 7 % legal.len()].clone();
        state = apply(&v.module, &mut v.rules, &state, &a).unwrap().0;
        actions.push(a);
    }
    let save = Save::new(
        &v.module,
        SavedScenario {
            id: "1861".into(),
            xml: None,
        },
        Vec::new(),
        5,
        actions,
        state,
    );
    let (replayed, _) = save
        .replay(&v.module, &mut v.rules)
        .expect("the save replays");
    assert_eq!(replayed, save.snapshot);
    let json = serde_json::to_vec(&save).unwrap();
    run_caught(harness::save, &json).unwrap();
    for cut in [0, 1, json.len() / 2, json.len() - 1] {
        run_caught(harness::save, &json[..cut]).unwrap();
    }
    let tampered = String::from_utf8(json)
        .unwrap()
        .replacen("\"seed\":5", "\"seed\":6", 1);
    run_caught(harness::save, tampered.as_bytes()).unwrap();
}

/// The action target plays legal and arbitrary actions on each stack and replays them.
#[test]
fn the_action_target_plays_legal_and_illegal_actions() {
    for variant in 0..3u8 {
        let mut data = vec![variant, 1, 0xff, 0x0f, 0, 7, 0];
        for i in 0..120u8 {
            data.extend([i.wrapping_mul(37) & 0xDF, i]);
            if i % 9 == 0 {
                data.extend([0xF0, i, i % 12, i, 1, i, 2, 3, 4, 5]);
            }
        }
        run_caught(harness::actions, &data).unwrap();
    }
}

#[test]
fn the_module_target_loads_each_shipped_file_and_a_broken_one() {
    let files = harness::MODULE_FILES
        .iter()
        .map(|(base, mods, f)| root().join(mods.last().unwrap_or(base)).join(f))
        .chain(harness::SCENARIO_FILES.iter().map(|f| root().join(f)));
    for (i, path) in files.enumerate() {
        let text = std::fs::read(&path).unwrap();
        let mut data = vec![u8::try_from(i).unwrap()];
        data.extend(&text);
        run_caught(harness::module, &data).unwrap();
        data.truncate(data.len() / 2);
        run_caught(harness::module, &data).unwrap();
    }
}

/// Actions naming pieces, boxes and types that do not exist are refused, never a panic,
/// in every kind of step the first player turn reaches.
#[test]
fn actions_with_ids_out_of_range_are_refused() {
    for kind in 0..12u8 {
        for legal_first in [0u8, 3, 12, 40] {
            let mut data = vec![0, 0, 0, 0, 0, 1, 0];
            for i in 0..legal_first {
                data.extend([i & 0x1f, i]);
            }
            data.extend([
                0xF0, 0x00, kind, 0xFF, 0xFF, 0xFF, 0xFF, 3, 0xFF, 0xFF, 0xFF, 0xFF,
            ]);
            data.extend([
                0xF0, 0x00, kind, 0x00, 0x7F, 0x10, 0x27, 1, 0, 0x7F, 0, 0x7F,
            ]);
            run_caught(harness::actions, &data)
                .unwrap_or_else(|e| panic!("action kind {kind} after {legal_first}: {e}"));
        }
    }
}
