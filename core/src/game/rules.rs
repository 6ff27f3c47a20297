//! The boundary between the engine and a game's rules. The engine asks questions at
//! fixed points; a game answers them (AHD's answers are Luau scripts, run by the
//! `muster-scripting` crate). Questions are pure: they read a [`View`] and never change
//! the game.

use crate::ids::UnitId;
use crate::module::Module;

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
];

/// Movement questions. `may_enter` must be monotonic: if a path may not be entered,
/// no longer path starting with it may be either (the engine prunes on it).
pub trait MoveRules {
    fn may_enter(&mut self, view: View<'_>, unit: UnitId, path: &Path) -> Result<bool, RuleError>;
    fn may_stop(&mut self, view: View<'_>, unit: UnitId, path: &Path) -> Result<bool, RuleError>;
    fn is_jump(&mut self, view: View<'_>, unit: UnitId, path: &Path) -> Result<bool, RuleError>;
}
