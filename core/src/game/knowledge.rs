//! What a computer player is given: a seat's [`Knowledge`] of the game, never the game
//! itself. Where every seat sees everything (every seat of an all-open module, no `sees`
//! rule) it is the real state, borrowed: nothing is copied or built, so an open game
//! plays exactly as fast, and exactly the same, as before seats. Otherwise it holds
//! only what the seat may know, built from the state with everything hidden taken out,
//! and the only full positions it gives are [`Knowledge::sample`]s: states consistent
//! with what the seat sees, the hidden pieces' types drawn from what it may believe,
//! on fresh dice. There is no way back from it to the hidden truth: the real state is
//! not kept, and [`Knowledge::open_state`] answers only for an open game.
//!
//! What a hidden knowledge keeps, by [`super::sight::sights`]' levels:
//! - a piece seen fully: as it is;
//! - a piece seen by its side or only as present, on the board: a token (its box, and
//!   its side when seen); a sample puts each token on a slot of its side (drawn among
//!   the sides not the seat's when the side is hidden) with a type drawn from the
//!   side's belief pool;
//! - a piece not seen at all: nothing; a sample leaves the side's remaining slots in
//!   its pool, with drawn types.
//!
//! The belief pool of a side is its counter mix (the module's `mix`, public like the
//! counter sheet) less the pieces of each type the seat sees fully. The slots of hidden
//! pieces are blanked (no type, place, hits, flags, attributes or number), and a sample
//! deals tokens to them in a drawn order, so a slot's number says nothing about where
//! its piece is. The rules' counters, other seats' sealed choices, and the march, battle
//! and turn record entries naming a hidden piece are left out, as in a
//! [`super::sight::SeatView`]; the sample's dice are seeded from the caller's seed.

use std::borrow::Cow;

use super::dice::{Dice, Pcg32};
use super::rules::{RuleError, Rules};
use super::sight::{everything_shown, sights};
use super::state::{GameState, Place, Vars};
use crate::format::Sight;
use crate::ids::{BoxId, SeatId, SideId, UnitId, UnitTypeId};
use crate::module::Module;

/// One seat's knowledge of the game, as a computer player receives it.
#[derive(Clone, Debug)]
pub struct Knowledge<'a> {
    seat: SeatId,
    inner: Inner<'a>,
}

#[derive(Clone, Debug)]
enum Inner<'a> {
    /// Every seat sees everything: the game itself.
    Open(&'a GameState),
    /// What the seat may know, and nothing more.
    Hidden(Box<Observed>),
}

/// The hidden case's contents. None of it is derived from a hidden piece's type,
/// place or slot.
#[derive(Clone, Debug)]
struct Observed {
    /// The state with every piece the seat does not see fully blanked (in the pool,
    /// as its side's first type, no hits, flags, attributes or number), the rules'
    /// counters and others' sealed choices removed, the dice replaced.
    base: GameState,
    /// Pieces seen on the board but not fully: their box, and their side if seen.
    tokens: Vec<(BoxId, Option<SideId>)>,
    /// The blanked slots, by side.
    free: Vec<Vec<UnitId>>,
    /// By side, by type: how many of that side's pieces the seat may believe are of
    /// that type (the counter mix less the pieces seen fully).
    pool: Vec<Vec<u32>>,
}

impl<'a> Knowledge<'a> {
    /// What `seat` knows of `state`, and the rule errors met deciding what it sees
    /// (each piece concerned is hidden; the errors are for whoever runs the game, not
    /// for the seat's player: their text may name what the seat may not see).
    pub fn new(
        module: &Module,
        rules: &mut dyn Rules,
        state: &'a GameState,
        seat: SeatId,
    ) -> (Knowledge<'a>, Vec<RuleError>) {
        if everything_shown(module, rules) {
            return (
                Knowledge {
                    seat,
                    inner: Inner::Open(state),
                },
                Vec::new(),
            );
        }
        let (sight, errors) = sights(module, rules, state, seat);
        let observed = observe(module, state, seat, &sight);
        (
            Knowledge {
                seat,
                inner: Inner::Hidden(Box::new(observed)),
            },
            errors,
        )
    }

    /// The seat whose knowledge this is.
    pub fn seat(&self) -> SeatId {
        self.seat
    }

    /// Whether the seat sees the whole game.
    pub fn is_open(&self) -> bool {
        matches!(self.inner, Inner::Open(_))
    }

    /// The game itself, only where every seat sees everything.
    pub fn open_state(&self) -> Option<&'a GameState> {
        match self.inner {
            Inner::Open(state) => Some(state),
            Inner::Hidden(_) => None,
        }
    }

    /// A whole position consistent with what the seat knows. Open: the game itself,
    /// borrowed (`seed` unused). Hidden: the known position with each hidden piece's
    /// slot and type drawn, and dice of its own, all from `seed`: the same seed gives
    /// the same sample.
    pub fn sample(&self, module: &Module, seed: u64) -> Cow<'a, GameState> {
        match &self.inner {
            Inner::Open(state) => Cow::Borrowed(*state),
            Inner::Hidden(o) => Cow::Owned(o.sample(module, self.seat, seed)),
        }
    }
}

/// The knowledge of `seat` that does not see everything.
fn observe(module: &Module, state: &GameState, seat: SeatId, sight: &[Sight]) -> Observed {
    let full = |u: UnitId| sight.get(u.index()) == Some(&Sight::Full);
    let sides = module.sides.len();
    let types = module.units.types.len();
    let mut base = state.clone();
    base.dice = Dice::seeded(0);
    base.vars = Vars::default();
    if let Some(sealed) = &mut base.sealed {
        sealed.retain(|o| o.seat == Some(seat));
    }
    let mut tokens = Vec::new();
    let mut free = vec![Vec::new(); sides];
    let mut pool: Vec<Vec<u32>> = (0..sides)
        .map(|s| {
            let side = SideId::from_index(s).unwrap_or_default();
            module
                .units
                .types
                .iter()
                .map(|t| u32::from(t.mix_for(side)))
                .collect()
        })
        .collect();
    for (i, u) in state.units.iter().enumerate() {
        let Some(id) = UnitId::from_index(i) else {
            break;
        };
        let seen = sight.get(i).copied().unwrap_or(Sight::None);
        if seen == Sight::Full {
            if let Some(n) = pool
                .get_mut(u.side.index())
                .and_then(|p| p.get_mut(u.kind.index()))
            {
                *n = n.saturating_sub(1);
            }
            continue;
        }
        if let Place::Board(at) = u.place
            && seen >= Sight::Presence
        {
            tokens.push((at, (seen >= Sight::Side).then_some(u.side)));
        }
        if let Some(f) = free.get_mut(u.side.index()) {
            f.push(id);
        }
    }
    let blank = |s: SideId| {
        (0..types)
            .find(|&t| module.units.types[t].mix_for(s) > 0)
            .and_then(UnitTypeId::from_index)
            .unwrap_or_default()
    };
    for slots in &free {
        for &id in slots {
            let u = &mut base.units[id.index()];
            u.kind = blank(u.side);
            u.place = Place::Pool;
            u.hits = 0;
            u.flags = Default::default();
            u.moves = 0;
            u.attached_to = None;
            u.number = 0;
        }
    }
    // What names a hidden piece goes; a fully seen piece attached to one is loose.
    for u in &mut base.units {
        if u.attached_to.is_some_and(|c| !full(c)) {
            u.attached_to = None;
        }
    }
    base.attributes.retain(|(u, _, _)| full(*u));
    base.names.retain(|(u, _)| full(*u));
    base.turn_log.moves.retain(|m| full(m.unit));
    base.turn_log.fought.retain(|&u| full(u));
    base.turn_log.upgraded.retain(|&u| full(u));
    let own_turn =
        !state.at_turn_end(module) && module.seat(seat).side == Some(state.active_side(module));
    if !own_turn {
        base.turn_log.placed.clear();
    }
    if let Some(active) = base.moving.as_mut().and_then(|m| m.active.as_mut()) {
        active.ready.retain(|&u| full(u));
    }
    if let Some(battle) = base.combat.as_mut().and_then(|c| c.battle.as_mut()) {
        battle.attackers.retain(|&u| full(u));
        battle.defenders.retain(|&u| full(u));
        battle.entries.retain(|(u, _)| full(*u));
        battle.shots.retain(|(a, b)| full(*a) && full(*b));
    }
    Observed {
        base,
        tokens,
        free,
        pool,
    }
}

impl Observed {
    fn sample(&self, module: &Module, seat: SeatId, seed: u64) -> GameState {
        let mut rng = Pcg32::new(seed, 0x6b6e_6f77);
        let mut s = self.base.clone();
        s.dice = Dice::seeded(seed ^ 0x5eed_d1ce);
        let mut pool = self.pool.clone();
        // Each side's slots in a drawn order: the first go to its tokens.
        let mut free: Vec<Vec<UnitId>> = self.free.clone();
        for slots in &mut free {
            shuffle(slots, &mut rng);
        }
        let own = module.seat(seat).side;
        // Tokens whose side is seen first, then the rest on the sides that have slots.
        let mut order: Vec<&(BoxId, Option<SideId>)> = self.tokens.iter().collect();
        order.sort_by_key(|(_, side)| side.is_none());
        for &&(at, side) in &order {
            let side = match side {
                Some(side) => side,
                None => {
                    let weights: Vec<u32> = free
                        .iter()
                        .enumerate()
                        .map(|(i, f)| {
                            let mine = own.is_some_and(|o| o.index() == i);
                            if mine { 0 } else { f.len() as u32 }
                        })
                        .collect();
                    match draw(&weights, &mut rng).and_then(SideId::from_index) {
                        Some(side) => side,
                        None => continue,
                    }
                }
            };
            let Some(id) = free.get_mut(side.index()).and_then(Vec::pop) else {
                continue;
            };
            s.numbered += 1;
            let u = &mut s.units[id.index()];
            u.place = Place::Board(at);
            u.number = s.numbered;
            u.kind = draw_type(module, &mut pool, side, &mut rng);
        }
        // The slots left: pieces the seat does not see, believed in their pool.
        for (side, slots) in free.iter().enumerate() {
            let Some(side) = SideId::from_index(side) else {
                continue;
            };
            for &id in slots {
                s.units[id.index()].kind = draw_type(module, &mut pool, side, &mut rng);
            }
        }
        s
    }
}

/// A type for a hidden piece of `side`, drawn by the belief pool's counts (and taken
/// from it); once the pool is spent, among the types the side's mix has at all.
fn draw_type(module: &Module, pool: &mut [Vec<u32>], side: SideId, rng: &mut Pcg32) -> UnitTypeId {
    if let Some(counts) = pool.get_mut(side.index())
        && let Some(t) = draw(counts, rng)
    {
        counts[t] -= 1;
        return UnitTypeId::from_index(t).unwrap_or_default();
    }
    let any: Vec<u32> = module
        .units
        .types
        .iter()
        .map(|t| u32::from(t.mix_for(side) > 0))
        .collect();
    draw(&any, rng)
        .and_then(UnitTypeId::from_index)
        .unwrap_or_default()
}

/// An index drawn in proportion to `weights`; `None` if they are all 0.
fn draw(weights: &[u32], rng: &mut Pcg32) -> Option<usize> {
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let total = u32::try_from(total).ok().filter(|&t| t > 0)?;
    let mut pick = rng.between_one_and(total);
    for (i, &w) in weights.iter().enumerate() {
        if pick <= w {
            return Some(i);
        }
        pick -= w;
    }
    None
}

fn shuffle<T>(items: &mut [T], rng: &mut Pcg32) {
    for i in (1..items.len()).rev() {
        let j = (rng.between_one_and(i as u32 + 1) - 1) as usize;
        items.swap(i, j);
    }
}
