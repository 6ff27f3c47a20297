//! Stand-ins: a host's file names a piece its seat does not fully see by a number of
//! the file's own, never by the piece's id (hidden information fails closed: a piece's
//! id is the same all game, so it would tell the seat which piece it is).
//!
//! Stand-in `k` is the id `units + k`, past every real piece, numbered in the order the
//! file's choices and forms first name the pieces. The host builds the same stand-ins
//! again from the position the file was written at to read the seat's answer
//! ([`StandIns::reveal`]), so the answer and the record keep what the seat sent.

use crate::format::Sight;
use crate::game::Action;
use crate::game::entry::{Asked, Takes};
use crate::ids::UnitId;

/// The pieces one seat file names by stand-ins, in stand-in order.
#[derive(Clone, Debug, Default)]
pub struct StandIns {
    /// The first stand-in's index: the game's number of pieces.
    first: usize,
    hidden: Vec<UnitId>,
}

impl StandIns {
    /// No stand-ins yet, for a game of `units` pieces.
    pub fn new(units: usize) -> Self {
        Self {
            first: units,
            hidden: Vec::new(),
        }
    }

    /// `unit` as the file names it: itself if the seat sees it fully, else its stand-in.
    fn disguise(&mut self, unit: UnitId, seen: &[Sight]) -> UnitId {
        if seen.get(unit.index()) == Some(&Sight::Full) {
            return unit;
        }
        let k = match self.hidden.iter().position(|&u| u == unit) {
            Some(k) => k,
            None => {
                self.hidden.push(unit);
                self.hidden.len() - 1
            }
        };
        // A module has fewer pieces than ids, so this fits; if it did not, the file
        // would name the first stand-in rather than the piece (fail closed).
        UnitId::from_index(self.first + k).unwrap_or(UnitId(u16::MAX))
    }

    /// `action` as the file gives it: every piece the seat does not fully see by its
    /// stand-in.
    pub fn disguise_action(&mut self, action: &Action, seen: &[Sight]) -> Action {
        action.map_units(|u| self.disguise(u, seen))
    }

    /// A form in words as the file gives it: its pieces the seat does not fully see (named
    /// "an unseen piece" already) by their stand-ins.
    pub fn disguise_form(&mut self, form: &mut [Asked], seen: &[Sight]) {
        for field in form {
            if let Takes::Pieces(pieces) = &mut field.takes {
                for p in pieces {
                    p.unit = self.disguise(p.unit, seen);
                }
            }
        }
    }

    /// Whether the file names any piece by a stand-in.
    pub fn any(&self) -> bool {
        !self.hidden.is_empty()
    }

    /// `action` as the seat sent it, with its stand-ins turned back into the pieces they
    /// stand for; `None` if it names a stand-in the file never gave.
    pub fn reveal(&self, action: &Action) -> Option<Action> {
        let mut unknown = false;
        let real = action.map_units(|u| match u.index().checked_sub(self.first) {
            None => u,
            Some(k) => self.hidden.get(k).copied().unwrap_or_else(|| {
                unknown = true;
                u
            }),
        });
        (!unknown).then_some(real)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_piece_is_named_by_a_stand_in_and_revealed_again() {
        let seen = [Sight::Full, Sight::Presence, Sight::Side];
        let mut s = StandIns::new(3);
        let lose = Action::Target {
            shooter: UnitId(0),
            target: UnitId(2),
        };
        let sent = s.disguise_action(&lose, &seen);
        assert_eq!(
            sent,
            Action::Target {
                shooter: UnitId(0),
                target: UnitId(3)
            },
            "the seat sees piece 0 fully; piece 2 is its first stand-in"
        );
        let other = s.disguise_action(&Action::Lose { unit: UnitId(1) }, &seen);
        assert_eq!(other, Action::Lose { unit: UnitId(4) });
        assert_eq!(
            s.disguise_action(&lose, &seen),
            sent,
            "the same piece, the same stand-in"
        );
        assert!(s.any());
        assert_eq!(s.reveal(&sent), Some(lose));
        assert_eq!(
            s.reveal(&Action::Lose { unit: UnitId(9) }),
            None,
            "no such stand-in"
        );
    }
}
