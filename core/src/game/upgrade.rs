//! The `upgrade` procedure (AHD's promotion, 6.0): a piece is replaced by a piece of the
//! type it upgrades to (`promotes-to`) from stock, keeping its place and status; the old
//! piece goes back where its type returns.

use super::action::{Action, ActionError, illegal};
use super::flow::notify;
use super::rules::{Event, Question, RuleError, Rules, View, ask_bool};
use super::state::{GameState, Place};
use crate::ids::UnitId;
use crate::module::Module;

/// Whether `unit` may be upgraded now: it is on the board, its type upgrades to one with
/// a piece left in stock (`promotes-to`), it was not upgraded this player turn, and the
/// rules agree.
pub fn can_upgrade(view: View<'_>, rules: &mut dyn Rules, unit: UnitId) -> Result<bool, RuleError> {
    Ok(upgradable(view, unit) && ask_bool(rules, view, Question::MayUpgrade { unit })?)
}

/// [`can_upgrade`] before the rules are asked.
fn upgradable(view: View<'_>, unit: UnitId) -> bool {
    let state = view.state;
    let u = state.unit(unit);
    if !matches!(u.place, Place::Board(_)) || state.turn_log.upgraded.contains(&unit) {
        return false;
    }
    let Some(to) = view.module.units.get(u.kind).promotes_to else {
        return false;
    };
    // The counter mix is a hard limit (11.6): no piece left, no promotion.
    state.count(u.side, to, |p| p == Place::Stock) > 0
}

/// Swaps `unit` for a stock piece of the type it upgrades to.
pub(crate) fn upgrade(
    module: &Module,
    state: &mut GameState,
    unit: UnitId,
) -> Result<Vec<String>, ActionError> {
    let old = state.unit(unit).clone();
    let Some(to) = module.units.get(old.kind).promotes_to else {
        return Err(illegal("that piece's type upgrades to no other"));
    };
    let Some(new) = state.unit_ids().find(|&u| {
        state.unit(u).side == old.side
            && state.unit(u).kind == to
            && state.unit(u).place == Place::Stock
    }) else {
        return Err(illegal(
            "no piece of the type it upgrades to is left in stock",
        ));
    };
    state.replace_piece(module, unit, new);
    for list in [&mut state.turn_log.fought] {
        if list.contains(&unit) && !list.contains(&new) {
            list.push(new);
        }
    }
    state.turn_log.upgraded.push(new);
    let at = match old.place {
        Place::Board(b) => module.board.get(b).name.as_str(),
        _ => "?",
    };
    Ok(vec![module.calendar.words.say(
        |w| &w.upgraded,
        "{unit} in {box} is upgraded to {type}",
        &[
            ("unit", module.units.get(old.kind).name.as_str()),
            ("box", at),
            ("type", module.units.get(to).name.as_str()),
        ],
    )])
}

pub fn legal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Action>, RuleError> {
    let mut out = Vec::new();
    if state.step_left(module) > 0 {
        let side = state.active_side(module);
        let view = View { module, state };
        let asked: Vec<UnitId> = state
            .unit_ids()
            .filter(|&u| state.unit(u).side == side && upgradable(view, u))
            .collect();
        // One session for the step's questions: the rules see the position once.
        if !asked.is_empty() {
            rules.ask_each(view, &mut |ask| {
                for &unit in &asked {
                    if ask.ask_bool(Question::MayUpgrade { unit })? {
                        out.push(Action::Upgrade { unit });
                    }
                }
                Ok(())
            })?;
        }
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
    let Action::Upgrade { unit } = action else {
        return Err(illegal(format!("{action:?} is not a Promotion action")));
    };
    if state.step_left(module) <= 0 {
        return Err(illegal("nothing left to spend on upgrades in this step"));
    }
    if state
        .units
        .get(unit.index())
        .is_none_or(|u| u.side != state.active_side(module))
    {
        return Err(illegal("that is not one of your units"));
    }
    if !can_upgrade(View { module, state }, rules, *unit)? {
        return Err(illegal("the rules do not allow upgrading that piece now"));
    }
    state.spend_step(module, 1);
    let mut log = upgrade(module, state, *unit)?;
    log.extend(notify(
        module,
        rules,
        state,
        Event::UnitUpgraded { unit: *unit },
    )?);
    Ok(log)
}
