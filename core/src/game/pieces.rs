//! Where a piece is and what it carries. Every procedure and every rules command changes a
//! piece's place through these, so what happens when a piece leaves its place is written
//! once: its flags are cleared (they are about where it stood), what it carries goes
//! with it or is let go, and it gets a number when it enters the board and loses it
//! when it leaves ([`GameState::number_pieces`]). A formation's garrison (a member
//! left in another box, [`super::formations`]) stays where it is when its holder moves.
//!
//! What each mover keeps of a piece's other fields is exactly what it kept when the
//! procedures did this by hand: saves hold a snapshot that a replay must give back bit
//! for bit.

use super::action::{ActionError, illegal};
use super::state::{GameState, Place};
use crate::format::ReturnsTo;
use crate::ids::{BoxId, SideId, UnitId, UnitTypeId};
use crate::module::Module;
use crate::unit::Flags;

impl GameState {
    /// `unit`, on the board, goes to box `to` on its own (a move along a path, a move off
    /// the lines, a reinforcement): it leaves the piece carrying it, and what it carries
    /// goes with it.
    pub(crate) fn move_piece(&mut self, unit: UnitId, to: BoxId) {
        self.units[unit.index()].attached_to = None;
        self.arrive(unit, Place::Board(to));
    }

    /// `units` go to box `to` together (a side retreating from a battle): each keeps the
    /// piece carrying it, which goes too, and what each carries goes with it.
    pub(crate) fn move_pieces(&mut self, units: &[UnitId], to: BoxId) {
        for &u in units {
            self.arrive(u, Place::Board(to));
        }
    }

    /// `unit`, off the board, enters it in box `at` at full strength, carrying nothing
    /// and carried by nothing. What it counts of moves is left as it was: the `move`
    /// step counts afresh when it begins.
    pub(crate) fn enter_board(&mut self, unit: UnitId, at: BoxId) {
        let u = &mut self.units[unit.index()];
        u.place = Place::Board(at);
        u.hits = 0;
        u.flags = Flags::NONE;
        // Off the board a piece is attached to nothing already; said for the reader.
        u.attached_to = None;
    }

    /// `unit` leaves the board for an off-board place (`to`), at full strength for when
    /// it comes back: it leaves the piece carrying it, and what it carried stays in the
    /// box, on its own. Its number is taken after the action, with every other's.
    pub(crate) fn take_off_board(&mut self, unit: UnitId, to: Place) {
        debug_assert!(!matches!(to, Place::Board(_)), "off the board");
        let u = &mut self.units[unit.index()];
        u.place = to;
        u.hits = 0;
        u.flags = Flags::NONE;
        u.attached_to = None;
        self.let_go(unit);
    }

    /// `unit` is eliminated: off the board to where its type returns (pool or stock).
    pub(crate) fn eliminate(&mut self, module: &Module, unit: UnitId) {
        let to = returns_to(module, self.units[unit.index()].kind);
        self.take_off_board(unit, to);
    }

    /// `new`, off the board, takes `old`'s place on it (an upgrade): its strength, flags,
    /// moves, number, carrier and what it carries, as one force better trained; `old`
    /// goes where its type returns, with nothing of its stay kept.
    pub(crate) fn replace_piece(&mut self, module: &Module, old: UnitId, new: UnitId) {
        let o = self.units[old.index()].clone();
        let n = &mut self.units[new.index()];
        n.place = o.place;
        n.attached_to = o.attached_to;
        n.hits = o.hits;
        n.flags = o.flags;
        n.moves = o.moves;
        n.number = o.number;
        for u in &mut self.units {
            if u.attached_to == Some(old) {
                u.attached_to = Some(new);
            }
        }
        self.take_off_board(old, returns_to(module, o.kind));
        let o = &mut self.units[old.index()];
        o.moves = 0;
        o.number = 0;
    }

    /// Moves up to `count` pieces of `side` and `kind` between two off-board places (a
    /// draft: from set aside to the pool), in piece order.
    pub(crate) fn transfer(
        &mut self,
        side: SideId,
        kind: UnitTypeId,
        count: u16,
        from: Place,
        to: Place,
    ) {
        debug_assert!(!matches!(from, Place::Board(_)) && !matches!(to, Place::Board(_)));
        let mut left = count;
        for u in self.units.iter_mut() {
            if left == 0 {
                break;
            }
            if u.side == side && u.kind == kind && u.place == from {
                u.place = to;
                left -= 1;
            }
        }
    }

    /// Attaches `unit` to `to` (`None` detaches it): both on the board in one box, a
    /// piece never carrying itself. Into a formation (a type declaring `holds`), to any
    /// depth, within what it holds and its capacity, at every level above it
    /// ([`super::formations::refusal`]). Onto any other piece, one level deep at most:
    /// the carrier is not itself carried, and the piece carries nothing (else the chain
    /// would be two deep; the soak checks it).
    pub(crate) fn attach(
        &mut self,
        module: &Module,
        unit: UnitId,
        to: Option<UnitId>,
    ) -> Result<(), ActionError> {
        let at = board_box(self, unit, "attach")?;
        let Some(to) = to else {
            self.units[unit.index()].attached_to = None;
            return Ok(());
        };
        if to == unit {
            return Err(illegal("attach: a piece cannot carry itself"));
        }
        if board_box(self, to, "attach")? != at {
            return Err(illegal("attach: the two pieces are not in one box"));
        }
        if module.units.get(self.unit(to).kind).is_formation() {
            let before = self.units[unit.index()].attached_to;
            self.units[unit.index()].attached_to = Some(to);
            let mut at = Some(to);
            for _ in 0..self.units.len() {
                let Some(f) = at else { break };
                if let Some(why) = super::formations::refusal(module, self, f) {
                    self.units[unit.index()].attached_to = before;
                    return Err(illegal(format!("attach: {why}")));
                }
                at = self.holder(f);
            }
            return Ok(());
        }
        if self.units[to.index()].attached_to.is_some() {
            return Err(illegal("attach: that piece is itself attached to another"));
        }
        if self.attached(unit).next().is_some() {
            return Err(illegal(
                "attach: that piece carries others, and a piece that is not a formation carries one level only",
            ));
        }
        self.units[unit.index()].attached_to = Some(to);
        Ok(())
    }

    /// `unit`, a formation's member, stays in box `at` as a garrison (seed 001 §6.23):
    /// it keeps its formation, and what it holds stays with it.
    pub(crate) fn leave_behind(&mut self, unit: UnitId, at: BoxId) {
        self.arrive(unit, Place::Board(at));
    }

    /// Gives each piece that entered the board a number no piece had before in this
    /// game (in piece order, so replays number alike), and takes the number of each
    /// piece that left it. The engine calls it after every action and at the start; a
    /// piece's number is how the log and the displays name it.
    pub fn number_pieces(&mut self) {
        for u in &mut self.units {
            match u.place {
                Place::Board(_) if u.number == 0 => {
                    self.numbered += 1;
                    u.number = self.numbered;
                }
                Place::Board(_) => {}
                _ => u.number = 0,
            }
        }
    }

    /// `unit` arrives at `to` (its flags, about where it stood, are cleared), with what
    /// it carries.
    fn arrive(&mut self, unit: UnitId, to: Place) {
        let u = &mut self.units[unit.index()];
        let from = u.place;
        u.place = to;
        u.flags = Flags::NONE;
        self.carry(unit, from);
    }

    /// What `carrier` carries, to any depth, goes where it is, its flags cleared; a
    /// garrison (a member not in `from`, the box the carrier left) stays where it is.
    fn carry(&mut self, carrier: UnitId, from: Place) {
        let place = self.units[carrier.index()].place;
        // Allocates only for a piece that carries one that carries.
        let mut carriers = Vec::new();
        let mut next = Some(carrier);
        // Bounded, so a cycle of carriers (which `attach` never makes) cannot loop.
        let mut rounds = self.units.len();
        while let Some(c) = next {
            for (i, u) in self.units.iter_mut().enumerate() {
                if u.attached_to == Some(c) && u.place == from {
                    u.place = place;
                    u.flags = Flags::NONE;
                    carriers.extend(UnitId::from_index(i));
                }
            }
            rounds -= 1;
            next = if rounds == 0 { None } else { carriers.pop() };
        }
    }

    /// What `carrier` carried stays where it is, on its own.
    fn let_go(&mut self, carrier: UnitId) {
        for u in &mut self.units {
            if u.attached_to == Some(carrier) {
                u.attached_to = None;
            }
        }
    }
}

/// Where pieces of `kind` go when eliminated or upgraded away.
fn returns_to(module: &Module, kind: UnitTypeId) -> Place {
    match module.units.get(kind).returns_to {
        ReturnsTo::Pool => Place::Pool,
        ReturnsTo::Stock => Place::Stock,
    }
}

/// The box `unit` is in, or why a command (`what`) may not name it.
pub(crate) fn board_box(state: &GameState, unit: UnitId, what: &str) -> Result<BoxId, ActionError> {
    match state.units.get(unit.index()).map(|u| u.place) {
        Some(Place::Board(b)) => Ok(b),
        Some(_) => Err(illegal(format!(
            "{what}: unit {} is not on the board",
            unit.0
        ))),
        None => Err(illegal(format!("{what} names a unit that does not exist"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Dice;
    use crate::load_module;

    /// The mini fixture's first four pieces, all in box 0 (a carrier, what it carries,
    /// and what that carries), and box 1 to go to.
    fn chain() -> (Module, GameState, [UnitId; 4]) {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
        let m = load_module(dir).unwrap();
        let mut g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
        let ids: Vec<UnitId> = g.unit_ids().take(4).collect();
        let ids = [ids[0], ids[1], ids[2], ids[3]];
        for &u in &ids {
            let unit = &mut g.units[u.index()];
            unit.place = Place::Board(BoxId(0));
            unit.attached_to = None;
            unit.flags = Flags::NONE.with(crate::ids::FlagId(0), true);
        }
        // 1 and 2 ride on 0; 3 on 2 (deeper than `attach` makes today).
        g.units[ids[1].index()].attached_to = Some(ids[0]);
        g.units[ids[2].index()].attached_to = Some(ids[0]);
        g.units[ids[3].index()].attached_to = Some(ids[2]);
        (m, g, ids)
    }

    #[test]
    fn what_a_piece_carries_goes_with_it_to_any_depth_its_flags_cleared() {
        let (_, mut g, [a, b, c, d]) = chain();
        g.move_piece(a, BoxId(1));
        for u in [a, b, c, d] {
            assert_eq!(g.unit(u).place, Place::Board(BoxId(1)), "{u:?}");
            assert!(g.unit(u).flags.is_empty(), "{u:?}");
        }
        assert_eq!(
            g.unit(d).attached_to,
            Some(c),
            "carried pieces stay carried"
        );
    }

    #[test]
    fn a_piece_moving_on_its_own_leaves_its_carrier_and_takes_its_load() {
        let (_, mut g, [a, b, c, d]) = chain();
        g.move_piece(c, BoxId(1));
        assert_eq!(g.unit(c).attached_to, None);
        assert_eq!(g.unit(d).place, Place::Board(BoxId(1)));
        assert_eq!(g.unit(d).attached_to, Some(c));
        for u in [a, b] {
            assert_eq!(g.unit(u).place, Place::Board(BoxId(0)), "{u:?}");
            assert!(!g.unit(u).flags.is_empty(), "{u:?} did not move");
        }
        assert_eq!(g.unit(b).attached_to, Some(a));
    }

    #[test]
    fn pieces_moving_together_keep_their_carriers() {
        let (_, mut g, [a, b, c, d]) = chain();
        g.move_pieces(&[b, a], BoxId(1));
        assert_eq!(g.unit(b).attached_to, Some(a));
        for u in [a, b, c, d] {
            assert_eq!(g.unit(u).place, Place::Board(BoxId(1)), "{u:?}");
        }
    }

    #[test]
    fn a_piece_leaving_the_board_lets_go_of_what_it_carried() {
        let (m, mut g, [a, b, c, d]) = chain();
        g.units[a.index()].hits = 1;
        g.eliminate(&m, a);
        let gone = g.unit(a);
        assert!(matches!(gone.place, Place::Pool | Place::Stock));
        assert_eq!(
            (gone.hits, gone.flags, gone.attached_to),
            (0, Flags::NONE, None)
        );
        for u in [b, c] {
            assert_eq!(g.unit(u).attached_to, None, "{u:?}");
            assert_eq!(g.unit(u).place, Place::Board(BoxId(0)), "{u:?}");
        }
        assert_eq!(
            g.unit(d).attached_to,
            Some(c),
            "only its own load is let go"
        );
        g.number_pieces();
        assert_eq!(g.unit(a).number, 0, "its number is taken");
    }

    #[test]
    fn an_upgraded_piece_hands_its_place_and_load_to_the_new_one() {
        let (m, mut g, [a, b, c, _]) = chain();
        g.number_pieces();
        let number = g.unit(a).number;
        let new = g
            .unit_ids()
            .find(|&u| g.unit(u).place == Place::Stock)
            .expect("a piece in stock");
        g.units[a.index()].moves = 2;
        g.replace_piece(&m, a, new);
        let n = g.unit(new);
        assert_eq!(
            (n.place, n.moves, n.number, n.flags.is_empty()),
            (Place::Board(BoxId(0)), 2, number, false)
        );
        for u in [b, c] {
            assert_eq!(g.unit(u).attached_to, Some(new), "{u:?}");
        }
        let old = g.unit(a);
        assert!(!matches!(old.place, Place::Board(_)));
        assert_eq!((old.moves, old.number, old.attached_to), (0, 0, None));
    }

    /// The attach-chain bug (issue 47): attaching a piece that carries another onto a
    /// third made a chain two deep, which a move then split (the third piece stayed
    /// among those still to move from the box it had left). Onto a piece that is not a
    /// formation, attaching is one level, both ways.
    #[test]
    fn a_piece_carrying_others_is_not_attached_to_a_piece_that_is_not_a_formation() {
        let (m, mut g, [a, b, c, _]) = chain();
        for u in [a, b, c] {
            g.units[u.index()].attached_to = None;
        }
        g.attach(&m, b, Some(a)).expect("one level");
        let before = g.clone();
        let err = g
            .attach(&m, a, Some(c))
            .expect_err("a carries b: two levels");
        assert!(err.to_string().contains("carries others"), "{err}");
        assert_eq!(g, before, "nothing applied");
        assert!(g.attach(&m, c, Some(b)).is_err(), "b is itself carried");
    }

    #[test]
    fn a_cycle_of_carriers_cannot_loop() {
        let (_, mut g, [a, b, ..]) = chain();
        g.units[a.index()].attached_to = Some(b);
        g.move_pieces(&[a], BoxId(1));
        assert_eq!(g.unit(b).place, Place::Board(BoxId(1)));
    }
}
