//! The boundary between the engine and a game's rules. The engine asks questions at
//! fixed points; a game answers them (AHD's answers are Luau scripts, run by the
//! `muster-scripting` crate). Questions are pure: they read a [`View`] and never change
//! the game.

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

/// A hook the engine calls, with how the answers of several handlers combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookDecl {
    pub name: &'static str,
    pub combine: Combine,
    pub doc: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Every handler must say yes; none means yes.
    All,
    /// Any handler saying yes is enough; none means no.
    Any,
    Sum,
    Min,
}

/// The questions of movement, in the catalogue every rules implementation serves.
pub const MOVE_HOOKS: &[HookDecl] = &[
    HookDecl {
        name: "may_enter",
        combine: Combine::All,
        doc: "may the unit move along the whole path (whether or not it stops at its end)?",
    },
    HookDecl {
        name: "may_stop",
        combine: Combine::All,
        doc: "may the unit end its march at the last box of the path?",
    },
    HookDecl {
        name: "is_jump",
        combine: Combine::Any,
        doc: "is moving along this path a jump move (for display and move limits)?",
    },
    HookDecl {
        name: "march_limit",
        combine: Combine::Min,
        doc: "how many marches may this unit take part in during one Movement segment?",
    },
    HookDecl {
        name: "may_entrench",
        combine: Combine::All,
        doc: "may this unit entrench in its box with the march under way?",
    },
    HookDecl {
        name: "entrench_cost",
        combine: Combine::Sum,
        doc: "how many marches does entrenching in this box cost?",
    },
];

/// The events of movement: handlers return commands for the engine to check and apply.
pub const MOVE_EVENTS: &[&str] = &["movement_started", "unit_moved"];

/// Movement questions. `may_enter` must be monotonic: if a path may not be entered,
/// no longer path starting with it may be either (the engine prunes on it).
pub trait MoveRules {
    fn may_enter(&mut self, view: View<'_>, unit: UnitId, path: &Path) -> Result<bool, RuleError>;
    fn may_stop(&mut self, view: View<'_>, unit: UnitId, path: &Path) -> Result<bool, RuleError>;
    fn is_jump(&mut self, view: View<'_>, unit: UnitId, path: &Path) -> Result<bool, RuleError>;
}

/// Everything the engine asks of a game's rules during a Movement segment.
pub trait MarchRules: MoveRules {
    /// `None`: no limit.
    fn march_limit(&mut self, view: View<'_>, unit: UnitId) -> Result<Option<i64>, RuleError>;
    fn may_entrench(&mut self, view: View<'_>, unit: UnitId) -> Result<bool, RuleError>;
    fn entrench_cost(&mut self, view: View<'_>, at: BoxId) -> Result<i64, RuleError>;
    /// The segment begins (the rules roll for marches here).
    fn movement_started(&mut self, view: View<'_>) -> Result<Vec<Command>, RuleError>;
    /// A unit has just moved along `path`.
    fn unit_moved(
        &mut self,
        view: View<'_>,
        unit: UnitId,
        path: &Path,
    ) -> Result<Vec<Command>, RuleError>;
}
