//! Setting up AHD games: every piece of the Game Piece Inventory exists, in one place,
//! as each scenario says (2.0, 11.5-11.7).

use crate::ahd_terms;
use ahd_terms::ArmyMaximum;

use muster_core::Module;
use muster_core::game::{Dice, GameState, Place};
use muster_core::ids::SideId;

use muster_test_support::ahd_module as ahd;

fn new_game(m: &Module, id: &str) -> GameState {
    GameState::new(m, m.scenario(id).unwrap(), Vec::new(), Dice::seeded(1)).unwrap()
}

#[test]
fn every_scenario_sets_up_with_the_whole_counter_mix() {
    let m = ahd();
    for s in &m.scenarios {
        let g = new_game(&m, &s.id);
        g.check_invariants(&m)
            .unwrap_or_else(|e| panic!("{}: {e}", s.id));
        // Game Piece Inventory: 68 Union and 58 Confederate pieces with the advanced ones
        // (leaders, foreign intervention, border militia) and without the markers.
        let pieces = |side: SideId| g.units.iter().filter(|u| u.side == side).count();
        assert_eq!((pieces(SideId(0)), pieces(SideId(1))), (68, 58), "{}", s.id);
        for side in m.side_ids() {
            assert_eq!(
                g.army_maximum(&m, side),
                s.army_maximum(&m, side),
                "{}",
                s.id
            );
        }
    }
}

/// 2.0 steps 5-7: 12 Union militia on the board, 12 set aside, both Militia Cavalry in
/// the pool, Veteran and Crack units in stock.
#[test]
fn rule_2_0_pieces_in_their_places() {
    let m = ahd();
    let g = new_game(&m, "1861");
    let (usa, csa) = (
        m.find_side("union").unwrap(),
        m.find_side("confederate").unwrap(),
    );
    let mi = m.units.find("Mi").unwrap();
    let mc = m.units.find("Mc").unwrap();
    let vi = m.units.find("Vi").unwrap();
    let on_board = |p: Place| matches!(p, Place::Board(_));
    assert_eq!(g.count(usa, mi, on_board), 12);
    assert_eq!(g.count(usa, mi, |p| p == Place::SetAside), 12);
    assert_eq!(g.count(csa, mi, on_board), 8);
    assert_eq!(g.count(usa, mc, |p| p == Place::Pool), 1);
    assert_eq!(g.count(csa, mc, |p| p == Place::Pool), 1);
    assert_eq!(g.count(usa, vi, |p| p == Place::Stock), 20);
    let washington = m.board.find("Washington").unwrap();
    assert_eq!(g.units_at(washington).count(), 2);
    assert_eq!(g.controller(washington), Some(usa));
    let louisville = m.board.find("Louisville").unwrap();
    assert_eq!(
        g.controller(louisville),
        None,
        "Kentucky starts neutral (8.0)"
    );
    assert_eq!(g.army_maximum(&m, usa), 34);
    assert_eq!(g.army_maximum(&m, csa), 29);
}

/// 11.5: entrenched units and control markers come from the setup.
#[test]
fn rule_11_5_entrenchment_and_markers_in_the_state() {
    let m = ahd();
    let g = new_game(&m, "1862");
    let manassas = m.board.find("Manassas Junction").unwrap();
    assert_eq!(g.units_at(manassas).count(), 4);
    assert!(
        g.units_at(manassas)
            .all(|u| g.unit(u).flagged(&m, "entrenched"))
    );
    let sedalia = m.board.find("Sedalia").unwrap();
    assert!(g.boxes[sedalia.index()].marker);
    assert_eq!(g.controller(sedalia), m.find_side("union"));
}

#[test]
fn a_game_state_round_trips_through_json() {
    let m = ahd();
    let g = new_game(&m, "1863");
    let json = serde_json::to_string(&g).unwrap();
    let back: GameState = serde_json::from_str(&json).unwrap();
    assert_eq!(g, back);
}

#[test]
fn the_same_seed_gives_the_same_dice() {
    let rolls = |seed| {
        let mut d = Dice::seeded(seed);
        (0..50).map(|_| d.roll(6).unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(rolls(11), rolls(11));
    assert_ne!(rolls(11), rolls(12));
}
