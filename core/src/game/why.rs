//! "Why may I not do that?": the engine's own check that refuses an action, and the
//! rules' handlers that said no to the question the action asks. Asked only on demand
//! (a refused command, a click on a box that is no destination): playing never pays for
//! it, since the rules keep who said no only while [`why_not`] asks.

use std::fmt;

use super::action::{Action, ActionError};
use super::battle::Stage;
use super::describe;
use super::flow::{apply, legal_actions, procedure};
use super::rules::{Question, RuleError, Rules, View};
use super::state::{GameState, Place};
use crate::format::Procedure;
use crate::ids::UnitTypeId;
use crate::module::Module;

/// One rules handler that answered no to a question: where it is written, so the
/// reason is the rules' own, never a string the interface makes up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSaid {
    /// The question's hook (`may_place`).
    pub hook: String,
    /// The question in words (`may_place Militia Cavalry in Columbus`).
    pub question: String,
    /// Where the handler is defined (`ahd/rules/growth.luau:90`).
    pub handler: String,
    /// The handler's id, if it has one.
    pub id: Option<String>,
}

impl fmt::Display for RuleSaid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.handler)?;
        if let Some(id) = &self.id {
            write!(f, " ({id})")?;
        }
        write!(f, " answers no to {}", self.question)
    }
}

/// The only reason given in a game where some seat does not see everything.
pub const HIDDEN_REASON: &str = "the reason is not told in a game that hides information";

/// Why an action may not be taken now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The action in words.
    pub action: String,
    /// The engine's check that failed, in words (the rules' error when a rule failed).
    pub engine: String,
    /// The rules' handlers that said no to the action's own question; empty when the
    /// engine refused before asking them.
    pub rules: Vec<RuleSaid>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not possible: {}", self.action, self.engine)?;
        for said in &self.rules {
            write!(f, "\n  the rules: {said}")?;
        }
        Ok(())
    }
}

/// Why `action` may not be taken now by the side to act, or `None` if it may (it is
/// applied on a copy, so nothing changes). The engine's check is the one `apply` makes;
/// when the action asks the rules a question of its own (may this piece enter, fire at,
/// be placed...), that question is asked again with the handlers' answers kept, and
/// those that said no are named.
pub fn why_not(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<Option<Refusal>, RuleError> {
    let engine = match apply(module, rules, state, action) {
        Ok(_) => return Ok(None),
        Err(ActionError::Illegal(why)) => why,
        Err(ActionError::Rule(e)) => format!("a rule failed: {e}"),
    };
    // Hidden information fails closed: the engine's check, the rules' answers and the
    // action's own words are read from the whole state and may speak of pieces the
    // asking seat does not see, so none of them is told.
    if !super::sight::everything_shown(module, rules) {
        return Ok(Some(Refusal {
            action: "that action".into(),
            engine: HIDDEN_REASON.into(),
            rules: Vec::new(),
        }));
    }
    // A decision of another step: its question would not be asked here.
    if let Some(other) = elsewhere(module, state, action) {
        return Ok(Some(Refusal {
            action: describe::action_checked(module, state, action),
            engine: other,
            rules: Vec::new(),
        }));
    }
    let engine = clearer(module, state, action).unwrap_or(engine);
    let said = refused_by(module, rules, state, action)?;
    Ok(Some(Refusal {
        action: describe::action_checked(module, state, action),
        engine,
        rules: said,
    }))
}

/// Why an action is no decision of the step under way, if it is not.
fn elsewhere(module: &Module, state: &GameState, action: &Action) -> Option<String> {
    let step = state.current_step(module)?;
    if !state.waiting.is_empty() || matches!(action, Action::EndStep | Action::Take { .. }) {
        return None;
    }
    let here = match step.procedure {
        Procedure::Move => matches!(
            action,
            Action::Select { .. } | Action::Move { .. } | Action::Release
        ),
        Procedure::Battles => matches!(
            action,
            Action::Fight { .. }
                | Action::Retreat { .. }
                | Action::Pass
                | Action::Reinforce { .. }
                | Action::Target { .. }
                | Action::Lose { .. }
                | Action::Absorb
                | Action::Upgrade { .. }
        ),
        Procedure::Upgrade => matches!(action, Action::Upgrade { .. }),
        Procedure::Place => matches!(action, Action::Place { .. }),
        Procedure::Script => false,
    };
    let word = module.calendar.words.say(|w| &w.step, "step", &[]);
    (!here).then(|| {
        format!(
            "it is no decision of the {} {word} under way ({} player turn)",
            step.name,
            module.side(state.active_side(module)).name
        )
    })
}

/// A clearer word than the engine's for the refusals it states in its own terms (a
/// battle names the action as data).
fn clearer(module: &Module, state: &GameState, action: &Action) -> Option<String> {
    let b = state.combat.as_ref()?.battle.as_ref()?;
    let unit_ok = |u: &crate::ids::UnitId| u.index() < state.units.len();
    match (b.stage, action) {
        (Stage::Target, Action::Target { shooter, target })
            if unit_ok(shooter) && unit_ok(target) =>
        {
            let own = if b.firing == b.attacker {
                &b.attackers
            } else {
                &b.defenders
            };
            let enemies = if b.firing == b.attacker {
                &b.defenders
            } else {
                &b.attackers
            };
            let next = own.iter().find(|u| !b.shots.iter().any(|(s, _)| s == *u));
            let name = |u| describe::unit(module, state, u);
            if next != Some(shooter) {
                return Some(match next {
                    Some(&n) => format!("{} fires next, not {}", name(n), name(*shooter)),
                    None => format!("{} has no shot to take now", name(*shooter)),
                });
            }
            if !enemies.contains(target) {
                return Some(format!(
                    "{} is not an enemy piece in the battle at {}",
                    name(*target),
                    describe::place(module, b.at)
                ));
            }
            Some(format!(
                "the rules do not let {} fire at {}",
                name(*shooter),
                name(*target)
            ))
        }
        (stage, _) if !matches!(action, Action::Fight { .. }) => {
            let waits = match stage {
                Stage::Withdraw => "the defender to withdraw or stand",
                Stage::Retreat => "the firing side to retreat or fight on",
                Stage::Reinforce => "the firing side to bring in reinforcements or stop",
                Stage::Target => "the firing side to name its next target",
                Stage::Upgrade => "the winner to promote a piece or not",
                Stage::Losses => "the firing side to take its losses",
                Stage::Rout => "the beaten side to retreat",
            };
            let allowed = matches!(
                (stage, action),
                (
                    Stage::Withdraw | Stage::Retreat | Stage::Rout,
                    Action::Retreat { .. }
                ) | (Stage::Reinforce, Action::Reinforce { .. })
                    | (Stage::Upgrade, Action::Upgrade { .. })
                    | (Stage::Losses, Action::Lose { .. } | Action::Absorb)
                    | (_, Action::Pass)
            );
            (!allowed).then(|| {
                format!(
                    "the battle at {} waits for {waits}",
                    describe::place(module, b.at)
                )
            })
        }
        _ => None,
    }
}

/// The handlers that say no to the action's own question, asked again with their
/// answers kept. Nothing for an action that asks none, or one the engine refuses before
/// asking (a piece not in the battle is asked nothing).
fn refused_by(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<Vec<RuleSaid>, RuleError> {
    let view = View { module, state };
    let unit_ok = |u: &crate::ids::UnitId| u.index() < state.units.len();
    let box_ok = |b: &crate::ids::BoxId| b.index() < module.board.boxes.len();
    let questions: Vec<Question<'_>> = match action {
        Action::Move { unit, path }
            if unit_ok(unit) && box_ok(&path.from) && path.steps.iter().all(|s| box_ok(&s.to)) =>
        {
            vec![
                Question::MayEnter { unit: *unit, path },
                Question::MayStop { unit: *unit, path },
            ]
        }
        Action::Target { shooter, target } if unit_ok(shooter) && unit_ok(target) => {
            vec![Question::MayTarget {
                shooter: *shooter,
                target: *target,
            }]
        }
        Action::Reinforce { unit } if unit_ok(unit) => vec![Question::MayReinforce { unit: *unit }],
        Action::Upgrade { unit } if unit_ok(unit) => vec![Question::MayUpgrade { unit: *unit }],
        Action::Place { kind, at } if kind.index() < module.units.types.len() && box_ok(at) => {
            vec![Question::MayPlace {
                kind: *kind,
                at: *at,
            }]
        }
        Action::Retreat { to } if box_ok(to) => {
            match state.combat.as_ref().and_then(|c| c.battle.as_ref()) {
                Some(b) => vec![Question::RetreatTo {
                    side: b.decider(),
                    to: *to,
                    withdrawal: b.stage == Stage::Withdraw,
                }],
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    if questions.is_empty() {
        return Ok(Vec::new());
    }
    rules.trace_refusals(true);
    let mut asked = Ok(());
    for q in questions {
        if let Err(e) = rules.ask(view, q) {
            asked = Err(e);
            break;
        }
    }
    let said = rules.refusals();
    rules.trace_refusals(false);
    asked.map(|()| said)
}

/// In a place step, why each of `kinds` cannot be placed anywhere now (the types
/// with a legal placement are left out), each with the refusal of placing it in the
/// first box the step places in: an interface keeps the types it listed at the step's
/// start in their places and says why one has gone (no piece left in the pool) before
/// the step ends, not after. Empty outside a place step.
pub fn absent_placements(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    kinds: &[UnitTypeId],
) -> Result<Vec<(UnitTypeId, Refusal)>, RuleError> {
    if procedure(module, state) != Some(Procedure::Place) || !state.waiting.is_empty() {
        return Ok(Vec::new());
    }
    let legal = legal_actions(module, rules, state)?;
    let side = state.active_side(module);
    let mut out = Vec::new();
    for &kind in kinds {
        if kind.index() >= module.units.types.len()
            || legal
                .iter()
                .any(|a| matches!(a, Action::Place { kind: k, .. } if *k == kind))
        {
            continue;
        }
        // A box the step places in (the engine asks about no other), else the first.
        let at = module
            .board
            .box_ids()
            .find(|&at| super::placing::placeable(module, state, side, at))
            .or_else(|| module.board.box_ids().next());
        let Some(at) = at else { continue };
        if let Some(r) = why_not(module, rules, state, &Action::Place { kind, at })? {
            out.push((kind, r));
        }
    }
    Ok(out)
}

/// The types a place step may bring in for the side to act, in the module's order: each
/// with a piece of the side in the pool or on the board, except those reached only by
/// promotion (a piece of those comes by an upgrade, not from the pool).
pub fn placeable_kinds(module: &Module, state: &GameState) -> Vec<UnitTypeId> {
    let side = state.active_side(module);
    module
        .units
        .ids()
        .filter(|&kind| {
            !module
                .units
                .ids()
                .any(|t| module.units.get(t).promotes_to == Some(kind))
                && state.unit_ids().any(|u| {
                    let unit = state.unit(u);
                    unit.side == side
                        && unit.kind == kind
                        && matches!(unit.place, Place::Pool | Place::Board(_))
                })
        })
        .collect()
}
