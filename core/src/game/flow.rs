//! The sequence of play: game turns of player turns of segments (3.0), and the one
//! entry point for every change: [`legal_actions`] and [`apply`].

use super::action::{Action, ActionError, illegal};
use super::command::Command;
use super::dice::Dice;
use super::effects::apply_commands;
use super::rules::{Event, RuleError, Rules, View};
use super::state::{GameState, SetupError};
use super::{battle, march, promotion, recruitment};
use crate::format::SegmentKind;
use crate::ids::{OptionId, SideId, TurnId};
use crate::module::Module;
use crate::scenario::Scenario;

/// A game could not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Action(#[from] ActionError),
}

/// Sets up `scenario` and runs what happens before the first player acts (the first
/// turn's events, the first segment's start).
pub fn start(
    module: &Module,
    rules: &mut dyn Rules,
    scenario: &Scenario,
    options: Vec<OptionId>,
    dice: Dice,
) -> Result<(GameState, Vec<String>), StartError> {
    let mut state = GameState::new(module, scenario, options, dice)?;
    let mut log = Vec::new();
    log.extend(notify(module, rules, &mut state, Event::TurnStarted)?);
    log.extend(enter_player_turn(module, rules, &mut state)?);
    Ok((state, log))
}

/// Ends the game after `label` instead of the scenario's last turn (an ending date the
/// players agree on). The turn must be on the track and not already past.
pub fn set_end(module: &Module, state: &mut GameState, label: &str) -> Result<(), String> {
    let Some(turn) = module.calendar.find(label) else {
        let hint = module
            .calendar
            .hint()
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        return Err(format!("'{label}' is not a turn of the track{hint}"));
    };
    if turn < state.turn {
        return Err(format!("{label} is before the game's current turn"));
    }
    state.end = turn;
    Ok(())
}

/// The current segment's kind, if the game is still going.
pub fn segment_kind(module: &Module, state: &GameState) -> Option<SegmentKind> {
    if state.outcome.is_some() {
        return None;
    }
    module
        .calendar
        .segments
        .get(usize::from(state.segment))
        .map(|s| s.kind)
}

/// The side that must decide now: the moving side, or in a battle whoever the battle
/// waits for (the defender fires, retreats and reinforces too).
pub fn decider(module: &Module, state: &GameState) -> SideId {
    super::battle::decider(state).unwrap_or_else(|| state.active_side(module))
}

/// Every action the player to act may take now. Empty once the game is over.
pub fn legal_actions(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Action>, RuleError> {
    let Some(kind) = segment_kind(module, state) else {
        return Ok(Vec::new());
    };
    match kind {
        SegmentKind::March => {
            let mut actions = march::legal(module, rules, state)?;
            if state.march.as_ref().is_some_and(|m| m.active.is_none()) {
                actions.push(Action::EndSegment);
            }
            Ok(actions)
        }
        SegmentKind::Battle => battle::legal(module, rules, state),
        SegmentKind::Promotion => promotion::legal(module, rules, state),
        SegmentKind::Recruitment => recruitment::legal(module, rules, state),
    }
}

/// Applies one action and returns the new state with the log lines it produced. On any
/// error the old state is untouched (the work is done on a copy).
pub fn apply(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<(GameState, Vec<String>), ActionError> {
    let Some(kind) = segment_kind(module, state) else {
        return Err(illegal("the game is over"));
    };
    let mut next = state.clone();
    let mut log = match (kind, action) {
        (_, Action::EndSegment) => end_segment(module, rules, &mut next, kind)?,
        (SegmentKind::March, _) => march::apply(module, rules, &mut next, action)?,
        (SegmentKind::Battle, _) => battle::apply(module, rules, &mut next, action)?,
        (SegmentKind::Promotion, _) => promotion::apply(module, rules, &mut next, action)?,
        (SegmentKind::Recruitment, _) => recruitment::apply(module, rules, &mut next, action)?,
    };
    // A segment whose machine has nothing left to decide ends by itself.
    while next.outcome.is_none() && segment_done(module, rules, &next, kind_now(module, &next))? {
        let k = kind_now(module, &next);
        log.extend(end_segment(module, rules, &mut next, k)?);
    }
    Ok((next, log))
}

fn kind_now(module: &Module, state: &GameState) -> SegmentKind {
    segment_kind(module, state).unwrap_or(SegmentKind::March)
}

/// Whether the current segment has no decision left to make.
fn segment_done(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    kind: SegmentKind,
) -> Result<bool, ActionError> {
    Ok(match kind {
        SegmentKind::March => false,
        SegmentKind::Battle => battle::done(module, rules, state)?,
        SegmentKind::Promotion => false,
        SegmentKind::Recruitment => false,
    })
}

/// Reports an event and applies the commands the rules answer with. When those change
/// who controls a box, `control_changed` follows (a few levels deep at most, so rules
/// that keep changing control cannot loop forever).
pub(crate) fn notify(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    event: Event<'_>,
) -> Result<Vec<String>, ActionError> {
    let mut log = Vec::new();
    let mut event = event;
    for _ in 0..4 {
        let mut dice = std::mem::replace(&mut state.dice, Dice::fixed([]));
        let answered = rules.notify(View { module, state }, &mut dice, event);
        state.dice = dice;
        let commands = answered?;
        let changed = commands
            .iter()
            .any(|c| matches!(c, Command::SetControl { .. }));
        log.extend(apply_commands(module, state, commands)?);
        if !changed || state.outcome.is_some() {
            break;
        }
        event = Event::ControlChanged;
    }
    Ok(log)
}

fn end_segment(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    kind: SegmentKind,
) -> Result<Vec<String>, ActionError> {
    let mut log = match kind {
        SegmentKind::March => {
            if state.march.as_ref().is_some_and(|m| m.active.is_some()) {
                return Err(illegal("end the march under way first"));
            }
            state.march = None;
            Vec::new()
        }
        SegmentKind::Battle => battle::finish(module, rules, state)?,
        SegmentKind::Promotion | SegmentKind::Recruitment => Vec::new(),
    };
    log.extend(notify(module, rules, state, Event::SegmentEnded { kind })?);
    if state.outcome.is_some() {
        return Ok(log);
    }
    log.extend(advance(module, rules, state)?);
    Ok(log)
}

/// Moves on to the next segment, player turn or game turn, and starts it.
fn advance(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    let mut log = Vec::new();
    state.segment += 1;
    if usize::from(state.segment) < module.calendar.segments.len() {
        log.extend(enter_segment(module, rules, state)?);
        return Ok(log);
    }
    log.extend(notify(module, rules, state, Event::PlayerTurnEnded)?);
    if state.outcome.is_some() {
        return Ok(log);
    }
    state.segment = 0;
    state.player += 1;
    if usize::from(state.player) >= module.calendar.sides.len() {
        state.player = 0;
        log.extend(notify(module, rules, state, Event::TurnEnded)?);
        if state.outcome.is_some() {
            return Ok(log);
        }
        if state.turn >= state.end {
            log.extend(notify(module, rules, state, Event::GameEnded)?);
            if state.outcome.is_none() {
                state.outcome = Some(super::state::Outcome {
                    winner: None,
                    reason: "the last turn is over and the rules named no winner".into(),
                });
            }
            return Ok(log);
        }
        state.turn = TurnId(state.turn.0 + 1);
        log.extend(notify(module, rules, state, Event::TurnStarted)?);
    }
    log.extend(enter_player_turn(module, rules, state)?);
    Ok(log)
}

fn enter_player_turn(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    state.turn_log = Default::default();
    let mut log = notify(module, rules, state, Event::PlayerTurnStarted)?;
    if state.outcome.is_none() {
        log.extend(enter_segment(module, rules, state)?);
    }
    Ok(log)
}

fn enter_segment(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    state.budget = 0;
    let log = match kind_now(module, state) {
        SegmentKind::March => march::begin(module, rules, state)?,
        SegmentKind::Battle => battle::begin(module, rules, state)?,
        SegmentKind::Promotion => notify(module, rules, state, Event::PromotionStarted)?,
        SegmentKind::Recruitment => notify(module, rules, state, Event::RecruitmentStarted)?,
    };
    Ok(log)
}
