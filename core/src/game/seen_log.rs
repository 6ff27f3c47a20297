//! A seat's log: the lines of one action that a seat may read. The log a game writes
//! is for whoever holds the whole state (the app in hot-seat play, a host, a replay
//! of a save); each seat of a game with hidden information reads this filtered copy.
//!
//! It fails closed. The action's own words are shown only if the seat sees fully every
//! piece the action names, in its fields or its words, and every piece it changed (before or after it: a battle
//! that reveals both sides shows its shots); otherwise they are told without the
//! hidden parts ("Union moves a piece"). The lines the action wrote (the engine's and
//! the rules') are shown only when every piece the action changed is fully seen and no
//! line names, in the log's words, a piece the seat does not fully see; otherwise none
//! of them is, not even how many there were. Another seat's sealed choice is told only
//! as made, lines and all, until the last one reveals them together.

use super::action::Action;
use super::describe;
use super::rules::{RuleError, Rules};
use super::sight::{SEES, sights};
use super::state::{GameState, Place};
use crate::format::Sight;
use crate::ids::{SeatId, UnitId};
use crate::module::Module;

/// What `seat` may read of an action taken in `before`, leading to `after`, that wrote
/// `lines`: the action in words, then the lines. Rule errors met while asking what the
/// seat sees come back beside (their pieces are hidden).
pub fn seat_log(
    module: &Module,
    rules: &mut dyn Rules,
    before: &GameState,
    action: &Action,
    after: &GameState,
    lines: &[String],
    seat: SeatId,
) -> (Vec<String>, Vec<RuleError>) {
    let words = describe::action(module, before, action);
    let def = module.seats.get(seat.index());
    // Another seat's sealed choice stays unseen until all are revealed together (a
    // referee who sees everything reads it, as in its view).
    let umpire = def.is_some_and(|s| s.side.is_none() && s.sees_all());
    if after.sealed.is_some()
        && !umpire
        && matches!(action, Action::Take { seat: by, .. } if *by != Some(seat))
    {
        return (vec!["a sealed choice is made".into()], Vec::new());
    }
    if def.is_some_and(|s| s.sees_all()) && !rules.answers(SEES) {
        return (
            std::iter::once(words)
                .chain(lines.iter().cloned())
                .collect(),
            Vec::new(),
        );
    }
    let (seen_before, mut errors) = sights(module, rules, before, seat);
    let (seen_after, more) = sights(module, rules, after, seat);
    errors.extend(more);
    let full = |u: UnitId| {
        seen_before.get(u.index()) == Some(&Sight::Full)
            || seen_after.get(u.index()) == Some(&Sight::Full)
    };
    let changed: Vec<UnitId> = after
        .units
        .iter()
        .enumerate()
        .filter(|&(i, u)| before.units.get(i) != Some(u))
        .filter_map(|(i, _)| UnitId::from_index(i))
        .collect();
    let changes_seen = changed.iter().all(|&u| full(u));
    let named_seen = named(action).iter().all(|&u| full(u));
    // A piece the action or its lines name in words (an entry's values, a rule's line).
    let hidden = hidden_names(module, before, after, &full);
    let names_hidden = |l: &String| hidden.iter().any(|h| names_piece(l, h));
    let mut out = Vec::new();
    if changes_seen && named_seen && !names_hidden(&words) {
        out.push(words);
    } else {
        // A piece the seat does not see at all where it went (an intelligence report
        // that does not reach the box, seed 001 §12) is told without its destination.
        let unseen_after = matches!(action, Action::Move { unit, .. }
            if seen_after.get(unit.index()) == Some(&Sight::None));
        if unseen_after {
            let side = &module.side(before.active_side(module)).name;
            out.push(format!("{side} moves a piece out of sight"));
        } else {
            out.push(redacted(module, before, action));
        }
    }
    if changes_seen && !lines.iter().any(names_hidden) {
        out.extend(lines.iter().cloned());
    }
    (out, errors)
}

/// An action `seat` may choose, in words it may read: the action's own words when the
/// seat sees fully (`seen`, from [`super::sight::sights`]) every piece it names, else
/// told without them, as the log tells a hidden action. A host sends these with a
/// seat's choices ([`crate::pbem::host`]).
pub fn choice_words(module: &Module, state: &GameState, action: &Action, seen: &[Sight]) -> String {
    let full = |u: UnitId| seen.get(u.index()) == Some(&Sight::Full);
    if named(action).iter().all(|&u| full(u)) {
        describe::action(module, state, action)
    } else {
        redacted(module, state, action)
    }
}

/// The pieces an action names.
fn named(action: &Action) -> Vec<UnitId> {
    match action {
        Action::Move { unit, .. }
        | Action::Reinforce { unit }
        | Action::Upgrade { unit }
        | Action::Lose { unit }
        | Action::Activate { unit }
        | Action::PickUp { unit }
        | Action::DropOff { unit } => {
            vec![*unit]
        }
        Action::Target { shooter, target } => vec![*shooter, *target],
        Action::Take { unit, .. } => unit.iter().copied().collect(),
        Action::Drop { unit, .. } => vec![*unit],
        Action::Organize { changes } => changes
            .iter()
            .flat_map(|c| std::iter::once(c.unit).chain(c.to))
            .collect(),
        Action::Select { .. }
        | Action::Release
        | Action::Fight { .. }
        | Action::Retreat { .. }
        | Action::Place { .. }
        | Action::Pass
        | Action::Absorb
        | Action::EndStep => Vec::new(),
    }
}

/// The action told without what the seat may not see: who acted, and where when the
/// place is on the board.
fn redacted(module: &Module, state: &GameState, action: &Action) -> String {
    let side = &module.side(state.active_side(module)).name;
    match action {
        Action::Move { path, .. } => {
            // Where it went is on the board; the origin may be what was hidden.
            let to = path.steps.last().map_or(path.from, |s| s.to);
            format!("{side} moves a piece to {}", describe::place(module, to))
        }
        Action::Place { at, .. } => {
            format!("{side} places a piece in {}", describe::place(module, *at))
        }
        _ => format!("{side} acts out of sight"),
    }
}

/// The log's words for each piece the seat does not fully see, as it was before and is
/// after the action (a piece's number may change when it enters the board).
fn hidden_names(
    module: &Module,
    before: &GameState,
    after: &GameState,
    full: &dyn Fn(UnitId) -> bool,
) -> Vec<String> {
    let mut names = Vec::new();
    for state in [before, after] {
        for (i, u) in state.units.iter().enumerate() {
            let Some(id) = UnitId::from_index(i) else {
                break;
            };
            if full(id) || !matches!(u.place, Place::Board(_)) && u.number == 0 {
                // Off the board a piece is named by its type only: a line naming
                // that type may be about the seat's own counters.
                continue;
            }
            names.push(describe::unit(module, state, id));
        }
    }
    names.sort_unstable();
    names.dedup();
    names
}

/// Whether `line` names the piece `name` (`Cavalry #1` is not named by `Cavalry #12`).
fn names_piece(line: &str, name: &str) -> bool {
    let name = name.trim_end_matches(" (reduced)");
    line.match_indices(name).any(|(i, _)| {
        !line[i + name.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::names_piece;

    #[test]
    fn a_piece_is_named_by_its_number_not_a_longer_one() {
        assert!(names_piece("Cavalry #1 fires", "Cavalry #1"));
        assert!(names_piece("at Cavalry #1", "Cavalry #1 (reduced)"));
        assert!(!names_piece("Cavalry #12 fires", "Cavalry #1"));
    }
}
