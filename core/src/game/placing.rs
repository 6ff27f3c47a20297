//! The `place` procedure (AHD's recruitment, 7.0): the step's resource is spent
//! bringing pieces from the pool onto the board, where and as far as the rules allow;
//! with `place-stock` also from the stock once the pool has none of the type (DWF's
//! replacements, drawn from every counter not in play).

use super::action::{Action, ActionError, illegal};
use super::flow::notify;
use super::rules::{Event, Question, RuleError, Rules, View, ask_bool};
use super::state::{GameState, Place};
use crate::ids::{BoxId, SideId, UnitId, UnitTypeId};
use crate::module::Module;

/// Whether the step under way lets `side` place in `at` at all: the box has the
/// step's `place-in` value for the side (AHD: a recruitment city of its colour, 7.0).
/// Only those boxes are asked about.
pub(crate) fn placeable(module: &Module, state: &GameState, side: SideId, at: BoxId) -> bool {
    let value = state.current_step(module).and_then(|s| s.place_in);
    value.is_none_or(|v| module.board.get(at).value(v, side) > 0)
}

/// Whether the step under way takes pieces from the stock too (`place-stock`).
fn from_stock(module: &Module, state: &GameState) -> bool {
    state.current_step(module).is_some_and(|s| s.place_stock)
}

/// The piece of `side` and `kind` a placement brings in: the first in the pool, else,
/// if the step allows it, the first in the stock.
fn source(module: &Module, state: &GameState, side: SideId, kind: UnitTypeId) -> Option<UnitId> {
    let first = |place: Place| {
        state.unit_ids().find(|&u| {
            let p = state.unit(u);
            p.side == side && p.kind == kind && p.place == place
        })
    };
    first(Place::Pool).or_else(|| {
        if from_stock(module, state) {
            first(Place::Stock)
        } else {
            None
        }
    })
}

/// The placements the step under way would ask the rules about (`may_place`), in the
/// order [`legal`] lists the ones allowed: each unit type with a piece of the moving
/// side in the pool (or the stock, with `place-stock`), in each box the step lets it
/// place in ([`placeable`]). None once the step's resource is spent. A computer player
/// ranks these, then asks only about its best ([`allowed`]): `legal` asks about every
/// one.
pub fn candidates(module: &Module, state: &GameState) -> Vec<(UnitTypeId, BoxId)> {
    let mut out = Vec::new();
    if state.step_left(module) <= 0 {
        return out;
    }
    let side = state.active_side(module);
    let stock = from_stock(module, state);
    for kind in module.units.ids() {
        let held = |p: Place| p == Place::Pool || (stock && p == Place::Stock);
        if state.count(side, kind, held) == 0 {
            continue;
        }
        for at in module.board.box_ids() {
            if placeable(module, state, side, at) {
                out.push((kind, at));
            }
        }
    }
    out
}

/// Whether the rules allow one of the [`candidates`]: the one question [`legal`] asks
/// of each.
pub fn allowed(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    (kind, at): (UnitTypeId, BoxId),
) -> Result<bool, RuleError> {
    ask_bool(
        rules,
        View { module, state },
        Question::MayPlace { kind, at },
    )
}

pub fn legal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Action>, RuleError> {
    let mut out = Vec::new();
    let candidates = candidates(module, state);
    if !candidates.is_empty() {
        let view = View { module, state };
        rules.ask_each(view, &mut |ask| {
            for &(kind, at) in &candidates {
                if ask.ask_bool(Question::MayPlace { kind, at })? {
                    out.push(Action::Place { kind, at });
                }
            }
            Ok(())
        })?;
    }
    out.push(Action::EndStep);
    Ok(out)
}

pub(crate) fn apply(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    action: &Action,
) -> Result<Vec<String>, ActionError> {
    let Action::Place { kind, at } = action else {
        return Err(illegal(format!(
            "{action:?} is not a decision of a place step"
        )));
    };
    if state.step_left(module) <= 0 {
        return Err(illegal(
            "nothing left to spend on placing pieces in this step",
        ));
    }
    if kind.index() >= module.units.types.len() || at.index() >= module.board.boxes.len() {
        return Err(illegal("no such unit type or box"));
    }
    let side = state.active_side(module);
    let Some(unit) = source(module, state, side, *kind) else {
        let whence = if from_stock(module, state) {
            "the pool or the stock"
        } else {
            "the pool"
        };
        return Err(illegal(format!(
            "no {} of {} is left in {whence}",
            module.units.get(*kind).name,
            module.side(side).name
        )));
    };
    if !placeable(module, state, side, *at) {
        let value = state.current_step(module).and_then(|s| s.place_in);
        let name = value.map_or("", |v| module.board.values[v.index()].name.as_str());
        return Err(illegal(format!(
            "this step places pieces only in boxes with a {name} for the side placing (place-in)"
        )));
    }
    if !ask_bool(
        rules,
        View { module, state },
        Question::MayPlace {
            kind: *kind,
            at: *at,
        },
    )? {
        return Err(illegal("the rules do not allow placing that piece there"));
    }
    state.spend_step(module, 1);
    state.enter_board(unit, *at);
    state.turn_log.placed.push(*at);
    let mut log = vec![module.calendar.words.say(
        |w| &w.placed,
        "{type} placed in {box}",
        &[
            ("type", module.units.get(*kind).name.as_str()),
            ("box", module.board.get(*at).name.as_str()),
        ],
    )];
    log.extend(notify(module, rules, state, Event::UnitPlaced { unit })?);
    Ok(log)
}
