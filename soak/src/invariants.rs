//! What must hold in every state of every game, whatever the module, and between one
//! state and the next: the soak and the fuzz targets check these after every action.
//!
//! The engine's own [`GameState::check_invariants`] covers the counter mix and where
//! pieces stand; this adds what its callers rely on without checking (ids in range
//! before anything indexes the module with them, sorted lists that are binary-searched,
//! box control held by real sides, tallies that follow control) and the one limit that
//! spans two states: a placement never takes a side beyond its cap tally (AHD's army
//! maximum, 7.1); and pieces' numbers (one per stay on the board, never given twice).

use muster_core::Module;
use muster_core::game::{Action, GameState, Place};
use muster_core::ids::{SideId, TallyId};

/// The tally that caps how many pieces a side may have on the board after placing one
/// (AHD 7.1: "army-maximum"), if the module declares it.
pub const CAP_TALLY: &str = "army-maximum";

/// AHD 7.4 (optional): four more Union units may be supported for each draft held, three
/// drafts at most: with this option in force the cap is checked 12 higher.
pub const CAP_RAISED_BY: (&str, usize) = ("increasing-union-forces", 12);

/// The checks for one module, with the names they need resolved once.
#[derive(Clone, Debug)]
pub struct Checks {
    cap: Option<TallyId>,
    raised_by: Option<muster_core::ids::OptionId>,
}

impl Checks {
    pub fn new(module: &Module) -> Self {
        Checks {
            cap: module.find_tally(CAP_TALLY),
            raised_by: module.find_option(CAP_RAISED_BY.0),
        }
    }

    /// Everything that must hold in `state`; the message names what broke.
    pub fn state(&self, module: &Module, state: &GameState) -> Result<(), String> {
        ids_in_range(module, state)?;
        // Unit conservation and the counter mix per side and type: every piece of the
        // mix exists once, in exactly one place (a `Place` is one value per piece).
        let mix: usize = module
            .side_ids()
            .map(|s| {
                module
                    .units
                    .ids()
                    .map(|k| usize::from(module.units.get(k).mix_for(s)))
                    .sum::<usize>()
            })
            .sum();
        if state.units.len() != mix {
            return Err(format!(
                "{} pieces in the game but the counter mix has {mix}",
                state.units.len()
            ));
        }
        state.check_invariants(module)?;
        sorted(state)?;
        tallies(module, state)?;
        numbers(state)?;
        if state.outcome.is_none() && state.current_step(module).is_none() {
            return Err("the game is not over but no step is under way".into());
        }
        Ok(())
    }

    /// What must hold from `before` to `after` (`action` was applied).
    pub fn step(
        &self,
        module: &Module,
        before: &GameState,
        action: &Action,
        after: &GameState,
    ) -> Result<(), String> {
        if before.outcome.is_some() {
            return Err("an action was applied to a finished game".into());
        }
        if after.turn < before.turn {
            return Err("the game went back a turn".into());
        }
        if after.options != before.options || after.scenario != before.scenario {
            return Err("the options or the scenario changed during the game".into());
        }
        // A piece's number is never given again: new numbers come above the last; an
        // old one only passes from a piece to the one it upgrades to.
        if after.numbered < before.numbered {
            return Err("the last piece number given went down".into());
        }
        let in_use: std::collections::BTreeSet<u32> = before
            .units
            .iter()
            .map(|u| u.number)
            .filter(|&n| n != 0)
            .collect();
        for (i, (b, a)) in before.units.iter().zip(&after.units).enumerate() {
            if a.number != 0
                && a.number != b.number
                && a.number <= before.numbered
                && !in_use.contains(&a.number)
            {
                return Err(format!(
                    "piece {i} got number {} again (the last given was {})",
                    a.number, before.numbered
                ));
            }
        }
        if let (Action::Place { .. }, Some(cap)) = (action, self.cap) {
            let side = before.active_side(module);
            let (now, was) = (
                on_board(module, after, side),
                on_board(module, before, side),
            );
            let raised = self.raised_by.is_some_and(|o| after.has_option(o));
            let max =
                after.tally(module, cap, side) as usize + if raised { CAP_RAISED_BY.1 } else { 0 };
            // 7.1: a placement stops at the cap; a side already above it (after losing
            // cities) may not grow.
            if now > max && now > was {
                return Err(format!(
                    "placing took {} to {now} pieces on the board, beyond its {CAP_TALLY} of {max}",
                    module.side(side).id
                ));
            }
        }
        Ok(())
    }
}

/// Pieces' numbers: every piece on the board has one, none shares it, none off the board
/// keeps one, and none is above the last given.
fn numbers(state: &GameState) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for (i, u) in state.units.iter().enumerate() {
        match (u.place, u.number) {
            (Place::Board(_), 0) => return Err(format!("piece {i} is on the board unnumbered")),
            (Place::Board(_), n) if n > state.numbered || !seen.insert(n) => {
                return Err(format!("piece {i}'s number {n} is shared or never given"));
            }
            (Place::Board(_), _) | (_, 0) => {}
            (_, n) => return Err(format!("piece {i} is off the board with number {n}")),
        }
    }
    Ok(())
}

/// A side's fighting pieces on the board: what the cap counts (a piece that is not a
/// combatant, as TripleA AHD's generals, does not).
fn on_board(module: &Module, state: &GameState, side: SideId) -> usize {
    state
        .units
        .iter()
        .filter(|u| {
            u.side == side
                && matches!(u.place, Place::Board(_))
                && module.units.get(u.kind).combatant
        })
        .count()
}

/// Every id in the state names something of the module: checked first, since the
/// module's accessors index with them and would panic.
fn ids_in_range(module: &Module, state: &GameState) -> Result<(), String> {
    let sides = module.sides.len();
    let kinds = module.units.ids().count();
    for (i, u) in state.units.iter().enumerate() {
        if u.side.index() >= sides {
            return Err(format!("unit {i} belongs to side {} of {sides}", u.side.0));
        }
        if u.kind.index() >= kinds {
            return Err(format!("unit {i} is of type {} of {kinds}", u.kind.0));
        }
        if let Some(to) = u.attached_to {
            if to.index() >= state.units.len() || to.index() == i {
                return Err(format!("unit {i} is attached to unit {}", to.0));
            }
            if state.units[to.index()].attached_to.is_some() {
                return Err(format!(
                    "unit {i} is attached to unit {}, itself attached",
                    to.0
                ));
            }
        }
    }
    for (b, s) in state.boxes.iter().enumerate() {
        if let Some(c) = s.controller
            && c.index() >= sides
        {
            return Err(format!("box {b} is controlled by side {} of {sides}", c.0));
        }
    }
    if state
        .options
        .iter()
        .any(|o| o.index() >= module.options.len())
    {
        return Err("an optional rule in force is not the module's".into());
    }
    if state.end.index() >= module.calendar.turns.len()
        || state.turn.index() >= module.calendar.turns.len()
    {
        return Err(format!(
            "turn {} (ending {}) is off the track of {} turns",
            state.turn.0,
            state.end.0,
            module.calendar.turns.len()
        ));
    }
    for &(b, _, n) in &state.markers {
        if b.index() >= module.board.boxes.len() || n == 0 {
            return Err(format!("{n} markers in box {}", b.0));
        }
    }
    for &(u, _, _) in &state.attributes {
        if u.index() >= state.units.len() {
            return Err(format!(
                "an attribute of unit {}, which does not exist",
                u.0
            ));
        }
    }
    Ok(())
}

/// The lists the state binary-searches are sorted without duplicates.
fn sorted(state: &GameState) -> Result<(), String> {
    if !state.options.windows(2).all(|w| w[0] < w[1]) {
        return Err("the optional rules are not sorted".into());
    }
    if !state
        .markers
        .windows(2)
        .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1))
    {
        return Err("the markers are not sorted by box and kind".into());
    }
    if !state
        .attributes
        .windows(2)
        .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1))
    {
        return Err("the attributes are not sorted by piece and attribute".into());
    }
    Ok(())
}

/// Each tally is its box value summed over the boxes the side controls (AHD 7.1: the army
/// maximum follows control of the Recruitment Cities), counted here from the map.
fn tallies(module: &Module, state: &GameState) -> Result<(), String> {
    for tally in module.tally_ids() {
        let sums = module.tally(tally).sums;
        for side in module.side_ids() {
            let mut from_map = 0u32;
            for (i, b) in module.board.boxes.iter().enumerate() {
                if state.boxes[i].controller == Some(side) {
                    from_map += u32::from(b.value(sums, side));
                }
            }
            let told = state.tally(module, tally, side);
            if told != from_map {
                return Err(format!(
                    "{}'s {} is {told}, but its boxes add up to {from_map}",
                    module.side(side).id,
                    module.tally(tally).id
                ));
            }
        }
    }
    Ok(())
}
