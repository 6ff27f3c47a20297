//! The sequence of play: game turns of player turns of segments (3.0), and the one
//! entry point for every change: [`legal_actions`] and [`apply`].

use super::action::{Action, ActionError, illegal};
use super::dice::Dice;
use super::effects::apply_commands;
use super::offer::{self, Offer};
use super::rules::{Event, RuleError, Rules, View};
use super::state::{GameState, SetupError};
use super::{battle, moves, placing, upgrade};
use crate::calendar::Step;
use crate::format::{Expires, Procedure};
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
    state.number_pieces();
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

/// The procedure of the step under way, if the game is still going.
pub fn procedure(module: &Module, state: &GameState) -> Option<Procedure> {
    state.current_step(module).map(|s| s.procedure)
}

/// The side that must decide now: the side of the first seat the rules wait for (see
/// [`super::seats`]), else in a battle whoever the battle waits for (the defender
/// fires, retreats and reinforces too), else the moving side.
pub fn decider(module: &Module, state: &GameState) -> SideId {
    if !state.waiting.is_empty()
        && let Some(side) = super::seats::waiting(state)
            .find_map(|s| module.seats.get(s.index()).and_then(|s| s.side))
    {
        return side;
    }
    super::battle::decider(state).unwrap_or_else(|| state.active_side(module))
}

/// Every action the player to act may take now. Empty once the game is over.
pub fn legal_actions(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Action>, RuleError> {
    legal_actions_memo(module, rules, state, &mut moves::Memo::default())
}

/// [`legal_actions`], with the pieces' destinations reused from `memo` where what their
/// search read is unchanged ([`moves::Memo`]): for a caller that lists one position
/// after another of a game. The same list.
pub fn legal_actions_memo(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    memo: &mut moves::Memo,
) -> Result<Vec<Action>, RuleError> {
    let Some(procedure) = procedure(module, state) else {
        return Ok(Vec::new());
    };
    if !state.waiting.is_empty() {
        // Only the seats waited for act, each by taking an offer addressed to it.
        let side = decider(module, state);
        let waiting: Vec<_> = super::seats::waiting(state).collect();
        return Ok(offer::offers(module, rules, state)?
            .iter()
            .filter(|o| {
                o.seat.is_some_and(|s| {
                    waiting.contains(&s) && module.seat(s).side.is_none_or(|x| x == side)
                })
            })
            .map(Offer::action)
            .collect());
    }
    let mut actions = match procedure {
        // A battle fought inside a move step (`combat="immediate"`) decides first.
        Procedure::Move if super::activation::battle_under_way(state) => {
            battle::legal(module, rules, state)?
        }
        Procedure::Move if super::activation::by_piece(module, state) => {
            super::activation::legal(module, rules, state)?
        }
        Procedure::Move => {
            let mut actions = moves::legal(module, rules, state, memo)?;
            // A march's garrisons and detachments come before its last word (`Release`).
            let organise = super::formations::legal(module, rules, state)?;
            if !organise.is_empty() {
                let last = actions.pop();
                actions.extend(organise);
                actions.extend(last);
            }
            if state.moving.as_ref().is_some_and(|m| m.active.is_none()) {
                actions.push(Action::EndStep);
            }
            actions
        }
        Procedure::Battles => battle::legal(module, rules, state)?,
        Procedure::Upgrade => upgrade::legal(module, rules, state)?,
        Procedure::Place => placing::legal(module, rules, state)?,
        Procedure::Script => vec![Action::EndStep],
    };
    // The rules' offers come before the procedure's last word (ending the step or the
    // selection), so that stays last. Offers addressed to another side's seats are
    // theirs ([`super::seats::legal_actions_for`]).
    let side = decider(module, state);
    let taken: Vec<Action> = offer::offers(module, rules, state)?
        .iter()
        .filter(|o| o.seat.is_none_or(|s| module.seat(s).side == Some(side)))
        .map(Offer::action)
        .collect();
    if !taken.is_empty() {
        let last = actions.pop();
        actions.extend(taken);
        actions.extend(last);
    }
    if actions.last() == Some(&Action::EndStep) && end_refusal(module, rules, state)?.is_some() {
        actions.pop();
    }
    Ok(actions)
}

/// Why the side to act may not end the step now: the rules' reason
/// (`end_step_refusal`, asked only of rules that answer it, so other games pay
/// nothing), after a `move` step's own by piece (a piece still activated, a battle to
/// fight).
fn end_refusal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Option<String>, RuleError> {
    if super::activation::by_piece(module, state)
        && let Some(why) = super::activation::end_refusal(module, state)
    {
        return Ok(Some(why));
    }
    if !rules.answers("end_step_refusal") {
        return Ok(None);
    }
    let Some(step) = state.current_step(module) else {
        return Ok(None);
    };
    rules.end_step_refusal(View { module, state }, &step.id)
}

/// Applies one action and returns the new state with the log lines it produced. On any
/// error the old state is untouched (the work is done on a copy).
pub fn apply(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<(GameState, Vec<String>), ActionError> {
    apply_as(module, rules, state, action, Log::Full)
}

/// [`apply`] for a caller that throws the log away (a computer player's rollouts): the
/// same new state, without the log lines that cost a look at the game beyond the action
/// (whether a resource lost at a step's end could have been used asks for every
/// decision left: a search's rollouts spent a fourteenth of their time there).
pub fn apply_unlogged(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<GameState, ActionError> {
    apply_as(module, rules, state, action, Log::Brief).map(|(next, _)| next)
}

/// How much of the log an action makes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Log {
    Full,
    Brief,
}

fn apply_as(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
    detail: Log,
) -> Result<(GameState, Vec<String>), ActionError> {
    let Some(procedure) = procedure(module, state) else {
        return Err(illegal("the game is over"));
    };
    if !state.waiting.is_empty() && !matches!(action, Action::Take { .. }) {
        let waiting: Vec<_> = super::seats::waiting(state).collect();
        return Err(illegal(format!(
            "the game waits for {} to answer",
            super::seats::names(module, &waiting)
        )));
    }
    let mut next = state.clone();
    let mut log = match (procedure, action) {
        (_, Action::EndStep) => {
            if let Some(why) = end_refusal(module, rules, state)? {
                return Err(illegal(why));
            }
            end_step(module, rules, &mut next, detail)?
        }
        (_, Action::Take { .. }) => offer::take(module, rules, &mut next, action)?,
        (_, Action::Organize { .. } | Action::Drop { .. }) => {
            super::formations::apply(module, rules, &mut next, action)?
        }
        (Procedure::Move, _) if super::activation::battle_under_way(state) => {
            battle::apply(module, rules, &mut next, action)?
        }
        (Procedure::Move, _) if super::activation::by_piece(module, state) => {
            super::activation::apply(module, rules, &mut next, action)?
        }
        (Procedure::Move, _) => moves::apply(module, rules, &mut next, action)?,
        (Procedure::Battles, _) => battle::apply(module, rules, &mut next, action)?,
        (Procedure::Upgrade, _) => upgrade::apply(module, rules, &mut next, action)?,
        (Procedure::Place, _) => placing::apply(module, rules, &mut next, action)?,
        (Procedure::Script, _) => {
            return Err(illegal(format!(
                "{action:?} is not a decision of this step"
            )));
        }
    };
    // A step whose procedure has nothing left to decide ends by itself.
    while next.outcome.is_none() && step_done(module, rules, &next)? {
        log.extend(end_step(module, rules, &mut next, detail)?);
    }
    if !next.waiting.is_empty() && next.outcome.is_none() {
        super::seats::check_waits(module, rules, &next)?;
    }
    next.number_pieces();
    Ok((next, log))
}

/// Whether the current step has no decision left to make: a battle step with no battle
/// left, a script step with no offer.
fn step_done(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<bool, ActionError> {
    if !state.waiting.is_empty() {
        return Ok(false);
    }
    Ok(match procedure(module, state) {
        Some(Procedure::Battles) => battle::done(module, rules, state)?,
        Some(Procedure::Script) => offer::offers(module, rules, state)?.is_empty(),
        _ => false,
    })
}

/// Reports an event and applies the commands the rules answer with. What those
/// commands did is reported in turn: each piece moved off the lines
/// (`unit_relocated`), then a change of control (`control_changed`), a few levels deep
/// at most, so rules that keep causing events cannot loop forever.
pub(crate) fn notify(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    event: Event<'_>,
) -> Result<Vec<String>, ActionError> {
    notify_at(module, rules, state, event, 0)
}

/// Reports `event` to the rules and applies their commands to `state` (with the same
/// follow-up events), exactly as the engine does in the middle of an action; returns
/// the log lines. For tools that replay a piece of the engine on a scratch position:
/// the battle-odds calculator runs `hit_absorbed` this way to learn what an absorbed hit
/// costs.
pub fn react(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    event: Event<'_>,
) -> Result<Vec<String>, ActionError> {
    notify(module, rules, state, event)
}

/// Follow-up events go this many levels deep at most.
const FOLLOW_UPS: u8 = 4;

fn notify_at(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    event: Event<'_>,
    depth: u8,
) -> Result<Vec<String>, ActionError> {
    let mut dice = std::mem::replace(&mut state.dice, Dice::fixed([]));
    let answered = rules.notify(View { module, state }, &mut dice, event);
    state.dice = dice;
    let applied = apply_commands(module, state, answered?)?;
    let mut log = applied.log;
    if depth + 1 >= FOLLOW_UPS {
        return Ok(log);
    }
    for (unit, from, to) in applied.relocated {
        if state.outcome.is_some() {
            return Ok(log);
        }
        let moved = Event::UnitRelocated { unit, from, to };
        log.extend(notify_at(module, rules, state, moved, depth + 1)?);
    }
    if applied.control && state.outcome.is_none() {
        log.extend(notify_at(
            module,
            rules,
            state,
            Event::ControlChanged,
            depth + 1,
        )?);
    }
    Ok(log)
}

/// Ends the step under way: its procedure's closing, `step_ended`, expiring
/// resources, then on to the next step.
fn end_step(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    detail: Log,
) -> Result<Vec<String>, ActionError> {
    let Some(step) = state.current_step(module) else {
        return Err(illegal("the game is over"));
    };
    let last_repetition = state.repeat + 1 >= step.repeat;
    let unused = if last_repetition && detail == Log::Full {
        unused(module, rules, state, step)?
    } else {
        Vec::new()
    };
    let mut log = match step.procedure {
        Procedure::Move => {
            if state.moving.as_ref().is_some_and(|m| m.active.is_some()) {
                return Err(illegal("finish the moves of the selected box first"));
            }
            if super::activation::by_piece(module, state)
                && let Some(why) = super::activation::end_refusal(module, state)
            {
                return Err(illegal(why));
            }
            state.moving = None;
            if step.immediate {
                state.combat = None;
            }
            Vec::new()
        }
        Procedure::Battles => battle::finish(module, rules, state)?,
        Procedure::Upgrade | Procedure::Place | Procedure::Script => Vec::new(),
    };
    log.extend(notify(
        module,
        rules,
        state,
        Event::StepEnded { step: &step.id },
    )?);
    log.splice(0..0, unused);
    // A repeated step's resources last through its repetitions (two rounds of purchases
    // spend one roll) and expire when the last is over.
    for (i, r) in module.resources.iter().enumerate() {
        if r.expires == Expires::Step && last_repetition {
            for side in &mut state.resources {
                if let Some(v) = side.get_mut(i) {
                    *v = 0;
                }
            }
        }
    }
    if state.outcome.is_some() {
        return Ok(log);
    }
    log.extend(advance(module, rules, state, step.repeat)?);
    Ok(log)
}

/// What the side ending `step` leaves of the resource the step spends, lost with it:
/// said in the log, and whether anything could have used it (the rules may say why not
/// in `step_ended`). Asked only when something is left.
fn unused(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    step: &Step,
) -> Result<Vec<String>, ActionError> {
    let Some(spends) = step.spends else {
        return Ok(Vec::new());
    };
    let resource = &module.resources[spends.index()];
    let side = state.active_side(module);
    let left = state.resource(side, spends);
    if left <= 0 || resource.expires != Expires::Step {
        return Ok(Vec::new());
    }
    let usable = legal_actions(module, rules, state)?
        .iter()
        .any(|a| !matches!(a, Action::EndStep));
    let word = module.calendar.words.say(|w| &w.step, "step", &[]);
    Ok(vec![format!(
        "{}: {} unused: {left}, lost at the end of the {} {word}{}",
        module.side(side).name,
        resource.name,
        step.name,
        if usable {
            ""
        } else {
            " (nothing could use them now)"
        }
    )])
}

/// The first step at or after `from` in `steps` that is played this turn.
fn playing(steps: &[Step], module: &Module, state: &GameState, from: usize) -> Option<usize> {
    let turn = module.calendar.turn(state.turn);
    (from..steps.len()).find(|&i| steps[i].plays_in(turn))
}

/// Moves on to the step's repetition, the next step, player turn or game turn, and
/// starts it.
fn advance(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    repeat: u8,
) -> Result<Vec<String>, ActionError> {
    if state.repeat + 1 < repeat {
        state.repeat += 1;
        return enter_step(module, rules, state);
    }
    state.repeat = 0;
    let at_end = state.at_turn_end(module);
    let list = if at_end {
        &module.calendar.turn_end
    } else {
        &module.calendar.steps
    };
    if let Some(next) = playing(list, module, state, usize::from(state.step) + 1) {
        state.step = step_index(next)?;
        return enter_step(module, rules, state);
    }
    let mut log = Vec::new();
    if !at_end {
        log.extend(notify(module, rules, state, Event::PlayerTurnEnded)?);
        if state.outcome.is_some() {
            return Ok(log);
        }
        log.extend(next_player_turn(module, rules, state)?);
        return Ok(log);
    }
    log.extend(next_game_turn(module, rules, state)?);
    Ok(log)
}

fn step_index(i: usize) -> Result<u8, ActionError> {
    u8::try_from(i).map_err(|_| illegal("too many steps in a turn"))
}

/// After a side's player turn: the next side's, or the turn-end steps, or the next
/// game turn.
fn next_player_turn(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    state.step = 0;
    state.player += 1;
    if usize::from(state.player) < module.calendar.sides.len() {
        return enter_player_turn(module, rules, state);
    }
    if let Some(first) = playing(&module.calendar.turn_end, module, state, 0) {
        state.step = step_index(first)?;
        return enter_step(module, rules, state);
    }
    next_game_turn(module, rules, state)
}

/// The game turn is over: the game ends, or the next one begins.
fn next_game_turn(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    state.player = 0;
    state.step = 0;
    let mut log = notify(module, rules, state, Event::TurnEnded)?;
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
    if state.outcome.is_some() {
        return Ok(log);
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
    if state.outcome.is_some() {
        return Ok(log);
    }
    match playing(&module.calendar.steps, module, state, 0) {
        Some(first) => {
            state.step = step_index(first)?;
            log.extend(enter_step(module, rules, state)?);
        }
        // No step is played this turn: the player turn is over at once.
        None => {
            log.extend(notify(module, rules, state, Event::PlayerTurnEnded)?);
            if state.outcome.is_none() {
                log.extend(next_player_turn(module, rules, state)?);
            }
        }
    }
    Ok(log)
}

/// Starts the current step: its procedure's setup, then `step_started`. A step with
/// nothing to decide (a script step) ends at once. Public for tests that set a
/// position up at a step's start.
pub fn enter_step(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    let Some(step) = state.current_step(module) else {
        return Ok(Vec::new());
    };
    match step.procedure {
        Procedure::Move => {
            moves::setup(state);
            // Battles fought inside the step keep their bookkeeping where the
            // `battles` procedure does (IMMEDIATE).
            if step.immediate {
                battle::setup(state);
            }
        }
        Procedure::Battles => battle::setup(state),
        Procedure::Upgrade | Procedure::Place | Procedure::Script => {}
    }
    let mut log = Vec::new();
    log.extend(notify(
        module,
        rules,
        state,
        Event::StepStarted { step: &step.id },
    )?);
    // Always the full log here, even under `apply_unlogged`: a step that ends as it
    // starts has had no decision, so whatever it leaves unused is cheap to list.
    if state.outcome.is_none() && step_done(module, rules, state)? {
        log.extend(end_step(module, rules, state, Log::Full)?);
    }
    Ok(log)
}
