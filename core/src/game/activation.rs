//! A `move` step with `activate="piece"` (issue 44): each decision activates one piece
//! and what it carries, at a cost the rules set in the step's resource (ACTIVATE,
//! `activation_cost`); the piece then moves in legs, each a path whose lines cost
//! movement points the rules count (LEGS, `move_points`, `move_cost`), keeping what is
//! left for the next leg, and picks pieces up or drops them off on the way
//! (`pick_up_cost`). With `combat="immediate"` a box the moving side entered that holds
//! enemies is a battle to fight before anything moves elsewhere: the player brings more
//! pieces in, then commits (`Fight`), and the battle is fought there and then by the
//! `battles` procedure's own code (IMMEDIATE), after which movement goes on.

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError, illegal};
use super::flow::notify;
use super::moves::{Destination, MoveRecord, Path, Step};
use super::rules::{Asker, Event, Question, RuleError, Rules, View};
use super::state::{GameState, Place};
use crate::format::Activate;
use crate::ids::{BoxId, UnitId};
use crate::module::Module;

/// The piece activated and moving, in a `move` step with `activate="piece"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Activation {
    pub unit: UnitId,
    /// What the activation has cost so far in the step's resource (its own cost and
    /// the pick-ups): the rules' `pick_up_cost` reads it (a leader's stack picks up
    /// free once it is paid for).
    pub paid: i64,
    /// Movement points left for its next legs; `None`: no limit but the search's.
    pub points: Option<i64>,
    /// Movement points spent so far: when a pick-up or drop-off changes what the
    /// piece carries, its points are asked again (a leader alone, then his stack's
    /// rating) and this is taken off them.
    pub spent: i64,
    /// Legs moved so far in this activation.
    pub legs: u8,
}

/// Whether the step under way activates pieces one at a time.
pub fn by_piece(module: &Module, state: &GameState) -> bool {
    state.current_step(module).is_some_and(|s| {
        s.procedure == crate::format::Procedure::Move && s.activate == Activate::Piece
    })
}

/// Whether the step under way fights its battles as they come (`combat="immediate"`).
fn immediate(module: &Module, state: &GameState) -> bool {
    state.current_step(module).is_some_and(|s| s.immediate)
}

/// The activation under way, if any.
pub fn current(state: &GameState) -> Option<&Activation> {
    state.moving.as_ref()?.activation.as_ref()
}

/// Boxes where a battle waits to be fought in a step with `combat="immediate"`: boxes
/// the moving side entered this step holding both sides' fighting pieces, not fought
/// over yet this step. Until each is fought, moves may only go there (L392, L613-L615).
pub fn contacts(module: &Module, state: &GameState) -> Vec<BoxId> {
    if !immediate(module, state) {
        return Vec::new();
    }
    let Some(entered) = state.moving.as_ref().map(|m| &m.entered) else {
        return Vec::new();
    };
    if entered.is_empty() {
        return Vec::new();
    }
    super::battle::pending(module, state)
        .into_iter()
        .filter(|b| entered.contains(b))
        .collect()
}

/// Whether a battle is under way inside the step.
pub fn battle_under_way(state: &GameState) -> bool {
    state.combat.as_ref().is_some_and(|c| c.battle.is_some())
}

/// Where `unit` may go in its next leg with the points it has, each with its cost:
/// the cheapest path to each box along each last line, as the rules allow
/// (`may_enter`, `may_stop`, `move_cost`), within the step's `max-path`.
pub fn legs(
    view: View<'_>,
    rules: &mut dyn Rules,
    unit: UnitId,
    points: Option<i64>,
) -> Result<Vec<(Destination, i64)>, RuleError> {
    let Place::Board(from) = view.state.unit(unit).place else {
        return Ok(Vec::new());
    };
    let costed = rules.answers("move_cost");
    let bound = super::moves::max_path(view.module, view.state);
    let mut found: Vec<(Destination, i64)> = Vec::new();
    let mut best: Vec<(BoxId, crate::ids::LineId, i64)> = Vec::new();
    let mut path = Path {
        from,
        steps: Vec::new(),
    };
    let mut search = Search {
        view,
        unit,
        points,
        costed,
        bound,
        found: &mut found,
        best: &mut best,
    };
    rules.ask_each(view, &mut |ask| search.extend(ask, &mut path, 0))?;
    found.sort_by_key(|(d, c)| (*c, d.path.steps.len()));
    Ok(found)
}

struct Search<'a, 'v> {
    view: View<'v>,
    unit: UnitId,
    points: Option<i64>,
    costed: bool,
    bound: usize,
    found: &'a mut Vec<(Destination, i64)>,
    /// The cheapest cost found to each box along each last line: a path reaching one at
    /// no less cost is not extended (the search stays small on a large map).
    best: &'a mut Vec<(BoxId, crate::ids::LineId, i64)>,
}

impl Search<'_, '_> {
    fn extend(
        &mut self,
        ask: &mut dyn Asker,
        path: &mut Path,
        spent: i64,
    ) -> Result<(), RuleError> {
        if path.steps.len() >= self.bound {
            return Ok(());
        }
        for &(next, line) in self.view.module.board.neighbours(path.to()) {
            if next == path.from || path.steps.iter().any(|s| s.to == next) {
                continue;
            }
            path.steps.push(Step { line, to: next });
            let step = self.step(ask, path, spent)?;
            if let Some(cost) = step {
                self.extend(ask, path, cost)?;
            }
            path.steps.pop();
        }
        Ok(())
    }

    /// Checks the path's last line: its cost so far if it may be entered and is not
    /// beaten by a known path, recording it as a destination where it may stop.
    fn step(
        &mut self,
        ask: &mut dyn Asker,
        path: &Path,
        spent: i64,
    ) -> Result<Option<i64>, RuleError> {
        let unit = self.unit;
        let cost = spent + line_cost(ask, self.costed, unit, path)?;
        if self.points.is_some_and(|p| cost > p) {
            return Ok(None);
        }
        let (to, line) = (path.to(), path.last_line().expect("a step was pushed"));
        let known = self.best.iter().position(|b| b.0 == to && b.1 == line);
        if known.is_some_and(|i| self.best[i].2 <= cost) {
            return Ok(None);
        }
        if !ask.ask_bool(Question::MayEnter { unit, path })? {
            return Ok(None);
        }
        match known {
            Some(i) => self.best[i].2 = cost,
            None => self.best.push((to, line, cost)),
        }
        if ask.ask_bool(Question::MayStop { unit, path })? {
            self.found
                .retain(|(d, _)| !(d.path.to() == to && d.path.last_line() == Some(line)));
            self.found.push((
                Destination {
                    path: path.clone(),
                    jump: false,
                },
                cost,
            ));
        }
        Ok(Some(cost))
    }
}

/// What the path's last line costs `unit` (`move_cost`; 1 when no rule counts).
fn line_cost(
    ask: &mut dyn Asker,
    costed: bool,
    unit: UnitId,
    path: &Path,
) -> Result<i64, RuleError> {
    if !costed {
        return Ok(1);
    }
    Ok(ask
        .ask_int(Question::MoveCost { unit, path })?
        .unwrap_or(0)
        .max(0))
}

/// What a whole path costs `unit`, line by line.
fn path_cost(
    view: View<'_>,
    rules: &mut dyn Rules,
    unit: UnitId,
    path: &Path,
) -> Result<i64, RuleError> {
    let costed = rules.answers("move_cost");
    let mut total = 0;
    let mut prefix = Path {
        from: path.from,
        steps: Vec::new(),
    };
    rules.ask_each(view, &mut |ask| {
        for s in &path.steps {
            prefix.steps.push(*s);
            total += line_cost(ask, costed, unit, &prefix)?;
        }
        Ok(())
    })?;
    Ok(total)
}

/// Whether `unit` (of the side to move) may be activated now, and at what cost:
/// `None` if it may not (off the board, carried by another piece, or its `move_limit`
/// reached).
fn activation_cost(
    view: View<'_>,
    rules: &mut dyn Rules,
    unit: UnitId,
) -> Result<Option<i64>, RuleError> {
    let u = view.state.unit(unit);
    if u.side != view.state.active_side(view.module)
        || !matches!(u.place, Place::Board(_))
        || u.attached_to.is_some()
    {
        return Ok(None);
    }
    let mut out = None;
    rules.ask_each(view, &mut |ask| {
        let limit = ask.ask_int(Question::MoveLimit { unit })?;
        if limit.is_none_or(|l| i64::from(u.moves) < l) {
            out = Some(
                ask.ask_int(Question::ActivationCost { unit })?
                    .unwrap_or(0)
                    .max(0),
            );
        }
        Ok(())
    })?;
    Ok(out)
}

/// What picking `unit` up costs the activation `a`, `None` if it may not be picked up:
/// a piece of the side in the carrier's box, carried by nothing and carrying nothing,
/// that may still move (`move_limit`), as the rules allow (`pick_up_cost`).
fn pick_up_cost(
    view: View<'_>,
    rules: &mut dyn Rules,
    a: &Activation,
    unit: UnitId,
) -> Result<Option<i64>, RuleError> {
    let state = view.state;
    let (u, carrier) = (state.unit(unit), state.unit(a.unit));
    if unit == a.unit
        || u.side != carrier.side
        || u.place != carrier.place
        || u.attached_to.is_some()
        || state.units.iter().any(|o| o.attached_to == Some(unit))
    {
        return Ok(None);
    }
    let mut out = None;
    rules.ask_each(view, &mut |ask| {
        let limit = ask.ask_int(Question::MoveLimit { unit })?;
        if limit.is_none_or(|l| i64::from(u.moves) < l) {
            out = ask
                .ask_int(Question::PickUpCost {
                    unit,
                    carrier: a.unit,
                    paid: a.paid,
                })?
                .map(|c| c.max(0));
        }
        Ok(())
    })?;
    Ok(out)
}

/// Every action of the side to move in a `move` step with `activate="piece"`, when no
/// battle is under way (the battle's own actions are [`super::battle::legal`]'s).
pub(crate) fn legal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Action>, RuleError> {
    let Some(seg) = &state.moving else {
        return Ok(Vec::new());
    };
    let view = View { module, state };
    let left = state.step_left(module);
    let contacts = contacts(module, state);
    let mut out = Vec::new();
    match &seg.activation {
        None => {
            let side = state.active_side(module);
            for unit in state.unit_ids() {
                if state.unit(unit).side != side {
                    continue;
                }
                if activation_cost(view, rules, unit)?.is_some_and(|c| c <= left) {
                    out.push(Action::Activate { unit });
                }
            }
            out.extend(contacts.iter().map(|&at| Action::Fight { at }));
            if contacts.is_empty() {
                out.push(Action::EndStep);
            }
        }
        Some(a) => {
            for (d, _) in legs(view, rules, a.unit, a.points)? {
                if contacts.is_empty() || contacts.contains(&d.path.to()) {
                    out.push(Action::Move {
                        unit: a.unit,
                        path: d.path,
                    });
                }
            }
            for unit in state.unit_ids() {
                if state.unit(unit).attached_to == Some(a.unit) {
                    out.push(Action::DropOff { unit });
                } else if state.unit(unit).place == state.unit(a.unit).place
                    && pick_up_cost(view, rules, a, unit)?.is_some_and(|c| c <= left)
                {
                    out.push(Action::PickUp { unit });
                }
            }
            out.extend(contacts.iter().map(|&at| Action::Fight { at }));
            out.push(Action::Release);
        }
    }
    Ok(out)
}

/// The rules' reference for a refusal, as a prefix ("L330: ").
fn cite(rule: &str) -> String {
    if rule.is_empty() {
        String::new()
    } else {
        format!("{rule}: ")
    }
}

/// Takes one action of a `move` step with `activate="piece"`. The caller works on a
/// copy of the state and drops it on error, so nothing is ever half-applied.
pub(crate) fn apply(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    action: &Action,
) -> Result<Vec<String>, ActionError> {
    let Some(seg) = state.moving.clone() else {
        return Err(illegal("there is no move step under way"));
    };
    let step = state
        .current_step(module)
        .ok_or_else(|| illegal("the game is over"))?;
    let left = state.step_left(module);
    let resource = step
        .spends
        .map_or("points", |r| module.resource(r).name.as_str());
    let side = state.active_side(module);
    let valid = |u: &UnitId| u.index() < state.units.len();
    match action {
        Action::Activate { unit } => {
            if let Some(a) = &seg.activation {
                return Err(illegal(format!(
                    "{} is moving; end its activation first",
                    super::describe::unit(module, state, a.unit)
                )));
            }
            if !valid(unit) || state.unit(*unit).side != side {
                return Err(illegal("that is not a piece of the side to move"));
            }
            let name = super::describe::unit(module, state, *unit);
            let Some(cost) = activation_cost(View { module, state }, rules, *unit)? else {
                return Err(illegal(format!(
                    "{name} may not be activated now (off the board, carried by another piece, or already moved as often as the rules allow)"
                )));
            };
            if cost > left {
                return Err(illegal(format!(
                    "{}activating {name} costs {cost} {resource}; {} has {left} left",
                    cite(&step.activate_rule),
                    module.side(side).name
                )));
            }
            let points = super::rules::ask_int(
                rules,
                View { module, state },
                Question::MovePoints { unit: *unit },
            )?;
            state.spend_step(module, cost);
            let carried: Vec<UnitId> = state.attached(*unit).collect();
            for u in std::iter::once(*unit).chain(carried) {
                let p = &mut state.units[u.index()];
                p.moves = p.moves.saturating_add(1);
            }
            if let Some(m) = state.moving.as_mut() {
                m.halted = None;
                m.activation = Some(Activation {
                    unit: *unit,
                    paid: cost,
                    points,
                    spent: 0,
                    legs: 0,
                });
            }
            let mut log = vec![format!(
                "{} activates {name}{}",
                module.side(side).name,
                if cost > 0 {
                    format!(" ({cost} {resource})")
                } else {
                    String::new()
                }
            )];
            log.extend(notify(
                module,
                rules,
                state,
                Event::PieceActivated { unit: *unit, cost },
            )?);
            Ok(log)
        }
        Action::Move { unit, path } => {
            let Some(a) = seg.activation.clone() else {
                return Err(illegal("activate a piece first"));
            };
            if *unit != a.unit {
                return Err(illegal(format!(
                    "only the piece activated moves now: {}",
                    super::describe::unit(module, state, a.unit)
                )));
            }
            let name = super::describe::unit(module, state, *unit);
            let Place::Board(from) = state.unit(*unit).place else {
                return Err(illegal("that piece is not on the board"));
            };
            if !well_formed(module, state, from, path) {
                return Err(illegal(
                    "that path does not follow the map's lines from the piece's box",
                ));
            }
            let contacts = contacts(module, state);
            if !contacts.is_empty() && !contacts.contains(&path.to()) {
                let names: Vec<&str> = contacts
                    .iter()
                    .map(|&b| module.board.get(b).name.as_str())
                    .collect();
                return Err(illegal(format!(
                    "combat is immediate: fight at {} (or bring more pieces there) before moving elsewhere",
                    names.join(", ")
                )));
            }
            let view = View { module, state };
            let cost = path_cost(view, rules, *unit, path)?;
            if let Some(p) = a.points
                && cost > p
            {
                return Err(illegal(format!(
                    "{}that leg costs {cost} movement points; {name} has {p} left",
                    cite(&step.points_rule)
                )));
            }
            let mut allowed = false;
            rules.ask_each(view, &mut |ask| {
                allowed = ask.ask_bool(Question::MayEnter { unit: *unit, path })?
                    && ask.ask_bool(Question::MayStop { unit: *unit, path })?;
                Ok(())
            })?;
            if !allowed {
                return Err(illegal(format!("the rules do not allow {name} that path")));
            }
            let to = path.to();
            let carried: Vec<UnitId> = state.attached(*unit).collect();
            state.move_piece(*unit, to);
            for u in std::iter::once(*unit).chain(carried) {
                state.turn_log.moves.push(MoveRecord {
                    unit: u,
                    path: path.clone(),
                    jump: false,
                    relocated_to: None,
                });
            }
            if let Some(m) = state.moving.as_mut() {
                if !m.entered.contains(&to) {
                    m.entered.push(to);
                }
                if let Some(act) = m.activation.as_mut() {
                    act.points = act.points.map(|p| p - cost);
                    act.spent += cost;
                    act.legs = act.legs.saturating_add(1);
                }
            }
            let mut log = vec![format!(
                "{name}: {} ({cost} movement point{})",
                super::describe::path(module, path),
                if cost == 1 { "" } else { "s" }
            )];
            log.extend(notify(
                module,
                rules,
                state,
                Event::UnitMoved { unit: *unit, path },
            )?);
            Ok(log)
        }
        Action::PickUp { unit } => {
            let Some(a) = seg.activation.clone() else {
                return Err(illegal("activate a piece first"));
            };
            if !valid(unit) {
                return Err(illegal("no such piece"));
            }
            let name = super::describe::unit(module, state, *unit);
            let Some(cost) = pick_up_cost(View { module, state }, rules, &a, *unit)? else {
                return Err(illegal(format!(
                    "{} may not pick up {name} (the rules' pick_up_cost)",
                    super::describe::unit(module, state, a.unit)
                )));
            };
            if cost > left {
                return Err(illegal(format!(
                    "{}picking up {name} costs {cost} {resource}; {} has {left} left",
                    cite(&step.activate_rule),
                    module.side(side).name
                )));
            }
            state.attach(module, *unit, Some(a.unit))?;
            state.spend_step(module, cost);
            let p = &mut state.units[unit.index()];
            p.moves = p.moves.saturating_add(1);
            if let Some(act) = state.moving.as_mut().and_then(|m| m.activation.as_mut()) {
                act.paid += cost;
            }
            recount(module, rules, state)?;
            Ok(vec![format!(
                "{} picks up {name}",
                super::describe::unit(module, state, a.unit)
            )])
        }
        Action::DropOff { unit } => {
            let Some(a) = seg.activation.clone() else {
                return Err(illegal("activate a piece first"));
            };
            if !valid(unit) || state.unit(*unit).attached_to != Some(a.unit) {
                return Err(illegal("that piece is not carried by the piece moving"));
            }
            state.attach(module, *unit, None)?;
            recount(module, rules, state)?;
            Ok(vec![format!(
                "{} drops off {}",
                super::describe::unit(module, state, a.unit),
                super::describe::unit(module, state, *unit)
            )])
        }
        Action::Release => {
            if seg.activation.is_none() {
                return Err(illegal("no piece is activated"));
            }
            if let Some(m) = state.moving.as_mut() {
                m.activation = None;
            }
            Ok(Vec::new())
        }
        Action::Fight { at } => {
            if !contacts(module, state).contains(at) {
                return Err(illegal(
                    "there is no battle to fight there: the side to move has not entered that box, or nobody opposes it, or it was fought over this step",
                ));
            }
            // The stack that brought on the battle moves no further (L394), unless the
            // defender withdraws before combat (`resume_after_withdrawal`).
            if let Some(m) = state.moving.as_mut() {
                m.halted = m.activation.take();
            }
            super::battle::apply(module, rules, state, action)
        }
        other => Err(illegal(format!(
            "{other:?} is not a decision of this move step (it activates pieces one at a time)"
        ))),
    }
}

/// After a defender withdrew before combat, no battle was fought: the activation that
/// brought it on moves on with the points it had (DWF L394: "the stack may continue
/// moving if possible").
pub(crate) fn resume_after_withdrawal(state: &mut GameState) {
    if let Some(m) = state.moving.as_mut()
        && m.activation.is_none()
    {
        m.activation = m.halted.take();
    }
}

/// The activated piece's movement points asked again after what it carries changed,
/// less what it has spent.
fn recount(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<(), ActionError> {
    let Some(a) = current(state).cloned() else {
        return Ok(());
    };
    let points = super::rules::ask_int(
        rules,
        View { module, state },
        Question::MovePoints { unit: a.unit },
    )?;
    if let Some(act) = state.moving.as_mut().and_then(|m| m.activation.as_mut()) {
        act.points = points.map(|p| p - a.spent);
    }
    Ok(())
}

/// Why the step may not end now for the engine's own reasons: a piece still moving, a
/// battle under way or waiting.
pub(crate) fn end_refusal(module: &Module, state: &GameState) -> Option<String> {
    if let Some(a) = current(state) {
        return Some(format!(
            "{} is still activated; end its activation first",
            super::describe::unit(module, state, a.unit)
        ));
    }
    if battle_under_way(state) {
        return Some("finish the battle under way first".into());
    }
    let contacts = contacts(module, state);
    if !contacts.is_empty() {
        let names: Vec<&str> = contacts
            .iter()
            .map(|&b| module.board.get(b).name.as_str())
            .collect();
        return Some(format!(
            "combat is immediate: fight at {} before the step ends",
            names.join(", ")
        ));
    }
    None
}

/// Checks that `path` is a route along the map's lines from `from`, within the step's
/// `max-path`, never visiting a box twice.
fn well_formed(module: &Module, state: &GameState, from: BoxId, path: &Path) -> bool {
    if path.from != from
        || path.steps.is_empty()
        || path.steps.len() > super::moves::max_path(module, state)
    {
        return false;
    }
    let mut at = from;
    let mut seen = vec![from];
    for s in &path.steps {
        let joins = module
            .board
            .lines
            .get(s.line.index())
            .is_some_and(|l| l.other(at) == Some(s.to));
        if !joins || seen.contains(&s.to) {
            return false;
        }
        seen.push(s.to);
        at = s.to;
    }
    true
}
