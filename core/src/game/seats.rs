//! Who decides. A module's seats are its players ([`crate::module::Seat`]): one per
//! side unless it declares more, and referees who belong to no side. The game waits
//! for the seats of the side whose decision it is ([`super::flow::decider`]), each
//! acting on the pieces the rules say it commands (the `commands` question), and for
//! any seat the rules address an offer to. The rules may also make the game wait for
//! some seats only (a `wait_for` command: a response out of turn, losses chosen by
//! the side that takes them, a sealed choice of several seats at once); then only they
//! act, each by taking one offer addressed to it.
//!
//! [`legal_actions_for`] and [`apply_by`] are the seat-aware entry points. They add
//! checks only: [`super::flow::legal_actions`] and [`super::flow::apply`] stay what
//! they were for the side on move, so a module with one seat per side plays exactly
//! as before.

use super::action::{Action, ActionError, illegal};
use super::flow::{self, decider};
use super::moves::Memo;
use super::offer::{self, Offer};
use super::rules::{Question, RuleError, Rules, View};
use super::state::{GameState, Place};
use crate::ids::{SeatId, SideId, UnitId};
use crate::module::Module;

/// The hook that says which pieces a seat commands.
pub const COMMANDS: &str = "commands";

/// The seats the game waits for now, in seat order: those a `wait_for` named that have
/// not chosen yet; otherwise the deciding side's seats and any seat an offer is
/// addressed to. Empty once the game is over.
pub fn awaited(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<SeatId>, RuleError> {
    if state.outcome.is_some() {
        return Ok(Vec::new());
    }
    if !state.waiting.is_empty() {
        return Ok(waiting(state).collect());
    }
    let side = decider(module, state);
    let mut seats: Vec<SeatId> = module.seats_of(side).collect();
    for o in offer::offers(module, rules, state)? {
        if let Some(seat) = o.seat {
            seats.push(seat);
        }
    }
    seats.sort_unstable();
    seats.dedup();
    Ok(seats)
}

/// The seats a wait still waits for: those named that have not made their sealed choice.
pub fn waiting(state: &GameState) -> impl Iterator<Item = SeatId> + '_ {
    state
        .waiting
        .iter()
        .copied()
        .filter(|&s| !state.sealed.iter().flatten().any(|o| o.seat == Some(s)))
}

/// Every action `seat` may take now: none unless the game waits for it.
pub fn legal_actions_for(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
) -> Result<Vec<Action>, RuleError> {
    legal_actions_for_memo(module, rules, state, seat, &mut Memo::default())
}

/// [`legal_actions_for`] with destinations reused from `memo`
/// ([`flow::legal_actions_memo`]): the same list.
pub fn legal_actions_for_memo(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
    memo: &mut Memo,
) -> Result<Vec<Action>, RuleError> {
    if state.outcome.is_some() || seat.index() >= module.seats.len() {
        return Ok(Vec::new());
    }
    if !state.waiting.is_empty() {
        if !waiting(state).any(|s| s == seat) {
            return Ok(Vec::new());
        }
        return addressed_to(module, rules, state, seat);
    }
    let side = module.seat(seat).side;
    if side != Some(decider(module, state)) {
        return addressed_to(module, rules, state, seat);
    }
    if lone_decider(module, rules, state, seat) {
        // The side's list less what `allowed_by` refuses: an action's `Take` names the
        // seat its offer is addressed to, so the offers need not be asked again.
        let mut all = flow::legal_actions_memo(module, rules, state, memo)?;
        all.retain(|a| lone_may(module, state, seat, a).is_ok());
        return Ok(all);
    }
    let side_offers = offer::offers(module, rules, state)?;
    let all = flow::legal_actions_memo(module, rules, state, memo)?;
    let mut mine = Vec::with_capacity(all.len());
    let mut commands = Authority::new(module, rules, state, seat);
    for action in all {
        let keep = match &action {
            Action::Take { .. } => {
                let offer = side_offers.iter().find(|o| o.taken_by(&action));
                match offer.and_then(|o| o.seat) {
                    Some(to) => to == seat,
                    None => match action_piece(&action) {
                        Some(unit) => commands.commands(unit)?,
                        None => true,
                    },
                }
            }
            Action::Select { at } => commands.any_in(*at)?,
            // A listed organisation: the seat commands every piece it names.
            Action::Organize { .. } | Action::Drop { .. } => {
                let mut all = true;
                for u in organised(&action) {
                    all = all && commands.commands(u)?;
                }
                all
            }
            _ => match action_piece(&action) {
                Some(unit) => commands.commands(unit)?,
                None => true,
            },
        };
        if keep {
            mine.push(action);
        }
    }
    Ok(mine)
}

/// The offers addressed to `seat` now, as actions.
fn addressed_to(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
) -> Result<Vec<Action>, RuleError> {
    Ok(offer::offers(module, rules, state)?
        .iter()
        .filter(|o| o.seat == Some(seat))
        .map(Offer::action)
        .collect())
}

/// The pieces a formation action names (each must be the seat's), none for others.
fn organised(action: &Action) -> Vec<UnitId> {
    match action {
        Action::Organize { changes } => changes
            .iter()
            .flat_map(|c| std::iter::once(c.unit).chain(c.to))
            .collect(),
        Action::Drop { unit, .. } => vec![*unit],
        _ => Vec::new(),
    }
}

/// The piece an action is about, whose commander takes it.
fn action_piece(action: &Action) -> Option<UnitId> {
    match action {
        Action::Move { unit, .. }
        | Action::Reinforce { unit }
        | Action::Upgrade { unit }
        | Action::Lose { unit }
        | Action::Activate { unit }
        | Action::PickUp { unit }
        | Action::DropOff { unit }
        | Action::Take {
            unit: Some(unit), ..
        } => Some(*unit),
        Action::Target { shooter, .. } => Some(*shooter),
        _ => None,
    }
}

/// Applies an action that `seat` takes: refused, with whom the game waits for, unless
/// it is among [`legal_actions_for`] the seat now ([`allowed_by`]). The work is
/// [`flow::apply`]'s.
pub fn apply_by(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
    action: &Action,
) -> Result<(GameState, Vec<String>), ActionError> {
    allowed_by(module, rules, state, seat, action)?;
    flow::apply(module, rules, state, action)
}

/// [`apply_by`] without the log ([`flow::apply_unlogged`]): the same new state.
pub fn apply_by_unlogged(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
    action: &Action,
) -> Result<GameState, ActionError> {
    allowed_by(module, rules, state, seat, action)?;
    flow::apply_unlogged(module, rules, state, action)
}

/// Refuses an action `seat` may not take now, naming whom the game waits for; for a
/// caller that applies it otherwise (a `History` that records it). An action it lets
/// through may still be refused by [`flow::apply`] (for the lone seat of the side on
/// move, whose list is the side's, the rest of the check is left to it).
pub fn allowed_by(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
    action: &Action,
) -> Result<(), ActionError> {
    if seat.index() >= module.seats.len() {
        return Err(illegal(format!("there is no seat {}", seat.0)));
    }
    if lone_decider(module, rules, state, seat) {
        // The seat's list is the side's, less the offers addressed to another seat and
        // those about another side's piece: checked here, the rest by `flow::apply`,
        // without listing every action (a computer player's every action comes here).
        return lone_may(module, state, seat, action);
    }
    let awaited = awaited(module, rules, state)?;
    if !awaited.contains(&seat) {
        return Err(illegal(format!(
            "it is not {}'s decision: the game waits for {}",
            module.seat(seat).name,
            names(module, &awaited)
        )));
    }
    // Formation actions are listed only in part (not every way to split a box): a
    // seat awaited takes any about pieces it commands, all of them.
    let named = organised(action);
    if !named.is_empty() {
        let mut authority = Authority::new(module, rules, state, seat);
        for u in named {
            if !authority.commands(u)? {
                return Err(not_commanded(module, state, seat, u));
            }
        }
        return Ok(());
    }
    // A piece's decision the seat's list leaves out because another commands the piece
    // (seed 001 §2: a commander moves only his formations): refused saying so, as the
    // list would refuse it, rather than only counting the seat's choices.
    if !matches!(action, Action::Take { .. })
        && state.waiting.is_empty()
        && module.seat(seat).side == Some(decider(module, state))
        && let Some(u) = action_piece(action)
        && !Authority::new(module, rules, state, seat).commands(u)?
    {
        return Err(not_commanded(module, state, seat, u));
    }
    let allowed = legal_actions_for(module, rules, state, seat)?;
    if !allowed.iter().any(|a| same_decision(a, action)) {
        return Err(illegal(format!(
            "{} may not do that now ({} choices open to it)",
            module.seat(seat).name,
            allowed.len()
        )));
    }
    Ok(())
}

/// "McDowell does not command III Corps": a piece of the seat's side named, another
/// side's not (its name may be hidden from the seat).
fn not_commanded(module: &Module, state: &GameState, seat: SeatId, u: UnitId) -> ActionError {
    let what = match state.units.get(u.index()) {
        Some(p) if Some(p.side) == module.seat(seat).side => {
            super::describe::unit(module, state, u)
        }
        Some(_) => "another side's piece".to_string(),
        None => format!("unit {}", u.0),
    };
    illegal(format!(
        "{} does not command {what}",
        module.seat(seat).name
    ))
}

/// For the lone seat of the side on move ([`lone_decider`]): refuses a `Take` of an
/// offer addressed to another seat, or addressed to none and about another side's
/// piece (as [`legal_actions_for`]'s full check does); the rest is the side's.
fn lone_may(
    module: &Module,
    state: &GameState,
    seat: SeatId,
    action: &Action,
) -> Result<(), ActionError> {
    let Action::Take { unit, seat: to, .. } = action else {
        return Ok(());
    };
    if let Some(to) = *to {
        if to == seat {
            return Ok(());
        }
        return Err(illegal(format!(
            "that offer is addressed to {}",
            module
                .seats
                .get(to.index())
                .map_or("?", |s| s.name.as_str())
        )));
    }
    let side = module.seat(seat).side;
    if unit.is_some_and(|u| state.units.get(u.index()).map(|p| p.side) != side) {
        return Err(illegal(format!(
            "{} does not command that piece",
            module.seat(seat).name
        )));
    }
    Ok(())
}

/// Whether `seat` is the only seat of the deciding side, with no wait under way and no
/// `commands` rule: then it may take every action of the side's list but offers
/// addressed to another seat or about another side's piece.
fn lone_decider(module: &Module, rules: &dyn Rules, state: &GameState, seat: SeatId) -> bool {
    if state.outcome.is_some() || !state.waiting.is_empty() {
        return false;
    }
    let side = decider(module, state);
    module.seat(seat).side == Some(side)
        && module.seats_of(side).nth(1).is_none()
        && !rules.answers(COMMANDS)
}

/// Who acts next in a game loop, and when a side of several seats ends a step. The
/// engine lets any seat of the deciding side end the step ([`legal_actions_for`] opens
/// every decision about no piece to all of them); a loop that lets each seat play its
/// part asks the deciding side's seats in seat order, and holds a seat's `EndStep` as a
/// pass while another seat of the side has not passed and has something to do. The
/// step ends with the last seat's `EndStep`. A side with one seat is asked without a
/// rules call, so a one-seat-a-side game loops as before seats.
#[derive(Clone, Debug, Default)]
pub struct Turns {
    /// The step the passes were made in: turn, player, step and its repeat.
    step: Option<(crate::ids::TurnId, u8, u8, u8)>,
    passed: Vec<SeatId>,
}

impl Turns {
    pub fn new() -> Self {
        Turns::default()
    }

    fn now(&mut self, state: &GameState) {
        let key = (state.turn, state.player, state.step, state.repeat);
        if self.step != Some(key) {
            self.step = Some(key);
            self.passed.clear();
        }
    }

    /// The seat to ask now: one a wait names; else the deciding side's first seat that
    /// has not passed this step and has something to do (a passed one if none has),
    /// else a seat an offer is addressed to. `None` once the game is over or no seat
    /// may act.
    pub fn next(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Option<SeatId>, RuleError> {
        self.now(state);
        if state.outcome.is_some() {
            return Ok(None);
        }
        if !state.waiting.is_empty() {
            return Ok(waiting(state).next());
        }
        let side = decider(module, state);
        let seats: Vec<SeatId> = module.seats_of(side).collect();
        if let [only] = seats[..] {
            return Ok(Some(only));
        }
        let (fresh, passed): (Vec<SeatId>, Vec<SeatId>) =
            seats.iter().partition(|s| !self.passed.contains(s));
        for seat in fresh.into_iter().chain(passed) {
            if !legal_actions_for(module, rules, state, seat)?.is_empty() {
                return Ok(Some(seat));
            }
        }
        Ok(awaited(module, rules, state)?
            .into_iter()
            .find(|s| module.seat(*s).side != Some(side)))
    }

    /// Whether `seat`'s `action` is to be held as a pass rather than applied: an
    /// `EndStep` while another seat of its side has not passed this step and has
    /// something to do.
    pub fn holds(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        seat: SeatId,
        action: &Action,
    ) -> Result<bool, RuleError> {
        self.now(state);
        if *action != Action::EndStep || !state.waiting.is_empty() {
            return Ok(false);
        }
        let Some(side) = module.seat(seat).side else {
            return Ok(false);
        };
        if side != decider(module, state) || module.seats_of(side).nth(1).is_none() {
            return Ok(false);
        }
        let others: Vec<SeatId> = module
            .seats_of(side)
            .filter(|&s| s != seat && !self.passed.contains(&s))
            .collect();
        for other in others {
            if !legal_actions_for(module, rules, state, other)?.is_empty() {
                if !self.passed.contains(&seat) {
                    self.passed.push(seat);
                }
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Refuses a wait the rules cannot end: a seat waited for must be offered something.
pub(crate) fn check_waits(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<(), RuleError> {
    let offers = offer::offers(module, rules, state)?;
    for seat in waiting(state) {
        if !offers.iter().any(|o| o.seat == Some(seat)) {
            return Err(RuleError {
                hook: "offers".into(),
                message: format!(
                    "the rules wait for {} but offer it nothing to choose",
                    module.seat(seat).name
                ),
            });
        }
    }
    Ok(())
}

/// Seat names for a message: `Union, Confederacy`, or `nobody`.
pub fn names(module: &Module, seats: &[SeatId]) -> String {
    if seats.is_empty() {
        return "nobody (the game is over)".into();
    }
    seats
        .iter()
        .map(|&s| module.seat(s).name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether two actions are the same decision: a `Take` is matched by offer, piece, box
/// and seat (its label is for people), any other action exactly.
fn same_decision(a: &Action, b: &Action) -> bool {
    match (a, b) {
        (
            Action::Take {
                offer: o1,
                unit: u1,
                at: a1,
                seat: s1,
                ..
            },
            Action::Take {
                offer: o2,
                unit: u2,
                at: a2,
                seat: s2,
                ..
            },
        ) => o1 == o2 && u1 == u2 && a1 == a2 && s1 == s2,
        _ => a == b,
    }
}

/// Whether `seat` commands `unit`: a piece of its side, narrowed by the rules'
/// `commands` question where the side has several seats (or the rules answer it). What
/// a computer player of the seat may plan to move.
pub fn commands(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
    unit: UnitId,
) -> Result<bool, RuleError> {
    Authority::new(module, rules, state, seat).commands(unit)
}

/// Which pieces a seat commands: its side's, narrowed by the rules' `commands`
/// question where they answer it. Not asked at all for a side with one seat and rules
/// that do not answer it (every AHD game).
struct Authority<'a> {
    module: &'a Module,
    rules: &'a mut dyn Rules,
    state: &'a GameState,
    seat: SeatId,
    side: Option<SideId>,
    ask: bool,
    /// Answers given, by piece: a piece's moves are listed path by path.
    known: std::collections::BTreeMap<UnitId, bool>,
}

impl<'a> Authority<'a> {
    fn new(
        module: &'a Module,
        rules: &'a mut dyn Rules,
        state: &'a GameState,
        seat: SeatId,
    ) -> Self {
        let side = module.seat(seat).side;
        let shared = side.is_some_and(|s| module.seats_of(s).nth(1).is_some());
        let ask = shared || rules.answers(COMMANDS);
        Authority {
            module,
            rules,
            state,
            seat,
            side,
            ask,
            known: Default::default(),
        }
    }

    fn commands(&mut self, unit: UnitId) -> Result<bool, RuleError> {
        let Some(piece) = self.state.units.get(unit.index()) else {
            return Ok(false);
        };
        if Some(piece.side) != self.side {
            return Ok(false);
        }
        if !self.ask {
            return Ok(true);
        }
        if let Some(&known) = self.known.get(&unit) {
            return Ok(known);
        }
        let view = View {
            module: self.module,
            state: self.state,
        };
        let question = Question::Commands {
            seat: self.seat,
            unit,
        };
        let yes = match self.rules.ask(view, question)? {
            super::rules::Answer::Bool(b) => b,
            other => {
                return Err(RuleError {
                    hook: COMMANDS.into(),
                    message: format!("answered {other:?} where yes or no was expected"),
                });
            }
        };
        self.known.insert(unit, yes);
        Ok(yes)
    }

    /// Whether the seat commands any piece of its side in `at`.
    fn any_in(&mut self, at: crate::ids::BoxId) -> Result<bool, RuleError> {
        let here: Vec<UnitId> = self
            .state
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.place == Place::Board(at) && Some(u.side) == self.side)
            .filter_map(|(i, _)| UnitId::from_index(i))
            .collect();
        for unit in here {
            if self.commands(unit)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
