//! `GameState::fingerprint`: what computer players remember the rules' answers by.
//! Questions see no dice, so the dice are left out; anything else a question may read
//! is in.

use muster_core::game::{Dice, GameState, Place};
use muster_core::ids::{BoxId, SideId, UnitId};

fn ahd_start() -> GameState {
    let m = muster_test_support::ahd_module();
    let sc = m.scenario("1861").expect("1861");
    GameState::new(&m, sc, Vec::new(), Dice::seeded(1)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn equal_positions_on_other_dice_have_one_fingerprint() {
    let g = ahd_start();
    let mut other = g.clone();
    other.dice = Dice::seeded(2);
    assert_ne!(g.dice, other.dice);
    assert_eq!(g.fingerprint(), other.fingerprint());
}

/// A change to a position, named.
type Change = Box<dyn Fn(&mut GameState)>;

#[test]
fn any_other_change_changes_the_fingerprint() {
    let g = ahd_start();
    let on_board = g
        .unit_ids()
        .find(|&u| matches!(g.unit(u).place, Place::Board(_)))
        .expect("a piece on the board");
    let changes: Vec<(&str, Change)> = vec![
        (
            "a piece's place",
            Box::new(move |s| s.units[on_board.index()].place = Place::Pool),
        ),
        (
            "a piece's hits",
            Box::new(move |s| s.units[on_board.index()].hits += 1),
        ),
        (
            "a piece's selections",
            Box::new(move |s| s.units[on_board.index()].moves += 1),
        ),
        (
            "a piece's side",
            Box::new(move |s| s.units[on_board.index()].side.0 ^= 1),
        ),
        (
            "a piece's type",
            Box::new(move |s| s.units[on_board.index()].kind.0 += 1),
        ),
        (
            "a piece's box",
            Box::new(move |s| {
                let Place::Board(b) = s.units[on_board.index()].place else {
                    unreachable!()
                };
                s.units[on_board.index()].place = Place::Board(BoxId(b.0 + 1));
            }),
        ),
        (
            "a piece's flags",
            Box::new(move |s| s.units[on_board.index()].flags.0 ^= 1 << 31),
        ),
        (
            "a piece's number",
            Box::new(move |s| s.units[on_board.index()].number += 1),
        ),
        (
            "a piece attached",
            Box::new(move |s| s.units[on_board.index()].attached_to = Some(UnitId(0))),
        ),
        (
            "a piece in the stock, not set aside",
            Box::new(|s| {
                let u = s
                    .units
                    .iter()
                    .position(|u| u.place == Place::Stock)
                    .expect("a piece in stock");
                s.units[u].place = Place::SetAside;
            }),
        ),
        (
            "a box's controller",
            Box::new(|s| s.boxes[0].controller = None),
        ),
        (
            "a box's other controller",
            Box::new(|s| {
                s.boxes[0].controller =
                    Some(SideId(u8::from(s.boxes[0].controller != Some(SideId(1)))))
            }),
        ),
        (
            "a box's marker",
            Box::new(|s| s.boxes[0].marker = !s.boxes[0].marker),
        ),
        (
            "a rules' counter",
            Box::new(|s| {
                s.vars.insert("kentucky-violated".into(), 1);
            }),
        ),
        ("the step", Box::new(|s| s.step += 1)),
        ("a resource", Box::new(|s| s.resources[0][0] += 1)),
        (
            "the turn log",
            Box::new(|s| s.turn_log.placed.push(BoxId(0))),
        ),
        (
            "the markers",
            Box::new(|s| s.markers.push((BoxId(0), Default::default(), 1))),
        ),
    ];
    let before = g.fingerprint();
    for (what, change) in changes {
        let mut s = g.clone();
        change(&mut s);
        assert_ne!(s, g, "{what} changed nothing");
        assert_ne!(s.fingerprint(), before, "{what}");
    }
}

#[test]
fn the_piece_a_piece_is_attached_to_changes_the_fingerprint() {
    let g = ahd_start();
    let on_board: Vec<usize> = g
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| matches!(u.place, Place::Board(_)))
        .map(|(i, _)| i)
        .take(3)
        .collect();
    let attached_to = |carrier: usize| {
        let mut s = g.clone();
        s.units[on_board[0]].attached_to = UnitId::from_index(carrier);
        s
    };
    let (a, b) = (attached_to(on_board[1]), attached_to(on_board[2]));
    assert_ne!(a, b);
    assert_ne!(a.fingerprint(), b.fingerprint());
}
