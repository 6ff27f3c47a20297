//! The boundary between the engine and a game's rules. The engine asks typed
//! [`Question`]s at fixed points and reports [`Event`]s; a game answers (AHD's answers
//! are Luau scripts, run by the `muster-scripting` crate). Questions are pure: they read
//! a [`View`] and never change the game. Events return [`Command`]s that the engine
//! checks and applies.

use crate::ids::{BoxId, UnitId};
use crate::module::Module;

use super::command::Command;
use super::march::Path;
use super::state::GameState;

/// What the rules may look at: the definitions and the current state.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub module: &'a Module,
    pub state: &'a GameState,
}

/// A rule failed to answer (a script error, a budget exceeded, a bad answer). The
/// action being answered fails with this message and the game is left untouched.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rule '{hook}' failed: {message}")]
pub struct RuleError {
    pub hook: String,
    pub message: String,
}

/// How the answers of several handlers of one question combine (a base game and the
/// overlays and options on top of it may each answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Every handler must say yes; no handler means yes.
    All,
    /// One handler saying yes is enough; no handler means no.
    Any,
    /// Integers added; no handler means 0.
    Sum,
    /// The smallest integer; no handler means no answer.
    Min,
}

/// An answer, already combined over every handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Bool(bool),
    Int(i64),
    None,
}

/// Everything the engine asks.
#[derive(Clone, Copy, Debug)]
pub enum Question<'a> {
    /// May the unit move along the whole path (whether or not it stops at its end)?
    /// Must be monotonic: if a path may not be entered, no longer one starting with it
    /// may be (the engine prunes its search on it).
    MayEnter { unit: UnitId, path: &'a Path },
    /// May the unit end its march at the last box of the path?
    MayStop { unit: UnitId, path: &'a Path },
    /// Is moving along this path a jump move (for display and the rules' own limits)?
    IsJump { unit: UnitId, path: &'a Path },
    /// How many marches may this unit take part in during one Movement segment?
    MarchLimit { unit: UnitId },
    /// May this unit entrench in its box with the march under way?
    MayEntrench { unit: UnitId },
    /// How many marches does entrenching in this box cost?
    EntrenchCost { at: BoxId },
}

impl Question<'_> {
    /// The hook name scripts register for.
    pub fn hook(&self) -> &'static str {
        match self {
            Question::MayEnter { .. } => "may_enter",
            Question::MayStop { .. } => "may_stop",
            Question::IsJump { .. } => "is_jump",
            Question::MarchLimit { .. } => "march_limit",
            Question::MayEntrench { .. } => "may_entrench",
            Question::EntrenchCost { .. } => "entrench_cost",
        }
    }

    pub fn combine(&self) -> Combine {
        match self {
            Question::MayEnter { .. } | Question::MayStop { .. } | Question::MayEntrench { .. } => {
                Combine::All
            }
            Question::IsJump { .. } => Combine::Any,
            Question::MarchLimit { .. } => Combine::Min,
            Question::EntrenchCost { .. } => Combine::Sum,
        }
    }
}

/// Every question hook with its combine rule, for rules implementations to check
/// registrations against.
pub const QUESTIONS: &[(&str, Combine)] = &[
    ("may_enter", Combine::All),
    ("may_stop", Combine::All),
    ("is_jump", Combine::Any),
    ("march_limit", Combine::Min),
    ("may_entrench", Combine::All),
    ("entrench_cost", Combine::Sum),
];

/// Everything the engine reports.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// The moving side's Movement segment begins (rules roll for marches here).
    MovementStarted,
    /// A unit has just moved along a path.
    UnitMoved { unit: UnitId, path: &'a Path },
}

impl Event<'_> {
    pub fn hook(&self) -> &'static str {
        match self {
            Event::MovementStarted => "movement_started",
            Event::UnitMoved { .. } => "unit_moved",
        }
    }
}

pub const EVENTS: &[&str] = &["movement_started", "unit_moved"];

/// A game's rules, as the engine sees them.
pub trait Rules {
    fn ask(&mut self, view: View<'_>, question: Question<'_>) -> Result<Answer, RuleError>;
    fn notify(&mut self, view: View<'_>, event: Event<'_>) -> Result<Vec<Command>, RuleError>;
}

fn wrong(question: &Question<'_>, answer: Answer) -> RuleError {
    RuleError {
        hook: question.hook().into(),
        message: format!("answered {answer:?}, which does not fit the question"),
    }
}

/// Asks a yes/no question.
pub fn ask_bool(rules: &mut dyn Rules, view: View<'_>, q: Question<'_>) -> Result<bool, RuleError> {
    match rules.ask(view, q)? {
        Answer::Bool(b) => Ok(b),
        other => Err(wrong(&q, other)),
    }
}

/// Asks for a number; `None` when no handler gave one (a `Min` with no handler).
pub fn ask_int(
    rules: &mut dyn Rules,
    view: View<'_>,
    q: Question<'_>,
) -> Result<Option<i64>, RuleError> {
    match rules.ask(view, q)? {
        Answer::Int(n) => Ok(Some(n)),
        Answer::None => Ok(None),
        other => Err(wrong(&q, other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_matches_the_questions() {
        let path = Path {
            from: BoxId(0),
            steps: Vec::new(),
        };
        let u = UnitId(0);
        let all = [
            Question::MayEnter {
                unit: u,
                path: &path,
            },
            Question::MayStop {
                unit: u,
                path: &path,
            },
            Question::IsJump {
                unit: u,
                path: &path,
            },
            Question::MarchLimit { unit: u },
            Question::MayEntrench { unit: u },
            Question::EntrenchCost { at: BoxId(0) },
        ];
        assert_eq!(all.len(), QUESTIONS.len());
        for q in all {
            assert!(QUESTIONS.contains(&(q.hook(), q.combine())), "{q:?}");
        }
    }
}
