//! The modder's reference, as data: every hook, `game` view method, command, `defs`
//! field and `hooks` function a rules script may use, with its Luau type and what it is
//! for. It is written next to the code it describes (one entry a line, so changing a
//! method or a command is a one-line edit here too), rendered as Markdown
//! (`docs/luau-api.md`) and as Luau type definitions (`docs/muster.d.luau`) by
//! `muster api`, and checked against what the code really registers by
//! `scripting/tests/it/api.rs`, so neither can drift from the engine unnoticed.
//!
//! Types are Luau's, with the aliases the definitions file declares: `Unit` (a piece's
//! number), `BoxNum`, `LineNum` (1-based numbers), `SideId`, `UnitTypeId` (string ids),
//! and the records `Path`, `Offer`, `Wanted`, `Shot`, `Command`.

mod commands;
mod defs;
mod hooks;
mod luau;
mod markdown;
mod view;

pub use commands::COMMANDS;
pub use defs::{DEFS, HOOK_OPTIONS, HOOKS_TABLE, RECORDS, REPLACE_OPTIONS};
pub use hooks::{HOOKS, Phase};
pub use luau::definitions;
pub use markdown::reference;
pub use view::METHODS;

use crate::{Combine, HookKind};

/// A named, typed value: an argument, a field, a parameter.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    /// Its Luau type (`Unit`, `string?`, `{ Unit }`); optional ones end in `?`.
    pub ty: &'static str,
    pub doc: &'static str,
}

/// Shorthand for the tables: `p("unit", "Unit", "the piece")`.
pub const fn p(name: &'static str, ty: &'static str, doc: &'static str) -> Param {
    Param { name, ty, doc }
}

/// A hook the engine calls: its catalogue entry says whether it is a question or an
/// event and how answers combine; this says when and with what.
#[derive(Clone, Copy, Debug)]
pub struct HookDoc {
    pub name: &'static str,
    pub phase: Phase,
    /// When the engine calls it, and any contract its answers must keep.
    pub when: &'static str,
    /// The arguments after `game`, which every handler gets first.
    pub params: &'static [Param],
    /// What a handler returns, where the hook's kind does not say (a list hook's items).
    pub returns: Option<&'static str>,
}

/// A method of the `game` view (`game:name(...)`).
#[derive(Clone, Copy, Debug)]
pub struct MethodDoc {
    pub name: &'static str,
    pub params: &'static [Param],
    pub returns: &'static str,
    pub doc: &'static str,
}

/// A command an event handler may return (`{ kind = "...", ... }`).
#[derive(Clone, Copy, Debug)]
pub struct CommandDoc {
    pub kind: &'static str,
    pub fields: &'static [Param],
    pub doc: &'static str,
}

/// A function of a global table (`hooks.on`, `defs.box`).
#[derive(Clone, Copy, Debug)]
pub struct FunctionDoc {
    pub name: &'static str,
    pub params: &'static [Param],
    pub returns: &'static str,
    pub doc: &'static str,
}

/// A record type scripts receive (`Side`, `Box`, ...): its fields.
#[derive(Clone, Copy, Debug)]
pub struct RecordDoc {
    /// The Luau type's name.
    pub name: &'static str,
    /// Where scripts meet it (`defs.sides[i]`).
    pub seen_as: &'static str,
    pub fields: &'static [Param],
}

/// The `game` view's methods as the engine registers them (for checking the reference
/// against the code): a view of `state` is made in a fresh Lua state and its methods
/// listed, sorted.
pub fn registered_view_methods(
    module: &muster_core::Module,
    state: &muster_core::game::GameState,
) -> Result<Vec<String>, crate::ScriptError> {
    crate::engine::view_methods(module, state).map_err(|e| crate::ScriptError::Load {
        file: "(game view)".to_string(),
        message: e.to_string(),
    })
}

/// A new mod's `rules/init.luau` (`muster new-mod`): one handler, commented, that
/// changes nothing until the modder makes it; `base` is the id of the module it extends,
/// `step` and `resource` ids of that module for the commented example. Kept here, next
/// to the definitions it must type-check against (`typecheck/tests/it/strict.rs`).
pub fn skeleton_rules(name: &str, base: &str, step: &str, resource: &str) -> String {
    format!(
        r#"--!strict
-- {name}: rules added to those of {base}, which load first. The API (hooks, the game
-- view, commands, defs): docs/luau-api.md in muster's repository, and as types in
-- types/muster.d.luau, which luau-lsp reads (.vscode/settings.json).
--
-- To change one of the base's rules, name its handler by id:
--   hooks.replace("some.id", fn), hooks.wrap("some.id", function(next, game, ...) ... end),
--   hooks.remove("some.id"), or order yours with {{ after = "some.id" }}.

-- Called when each step of a player turn begins ("{step}" is the base's first). An event:
-- return a list of commands to change the game, or nil to leave it as it is.
hooks.on("step_started", function(game: Game, step: string): {{ Command }}?
	-- For example, one more "{resource}" for the side to act at the start of "{step}":
	-- if step == "{step}" then
	-- 	return {{ {{ kind = "add_resource", resource = "{resource}", amount = 1 }} }}
	-- end
	return nil
end, {{ id = "{name}.step-started" }})
"#
    )
}

/// Whether a hook is a question or an event, with its combine rule: the engine's
/// catalogue is the authority, so it is looked up there, never written twice.
pub fn kind_of(hook: &str) -> Option<HookKind> {
    crate::catalogue()
        .into_iter()
        .find(|h| h.name == hook)
        .map(|h| h.kind)
}

/// What a handler of this hook returns, as a Luau type.
pub fn returns(hook: &HookDoc, kind: HookKind) -> &'static str {
    if let Some(r) = hook.returns {
        return r;
    }
    match kind {
        HookKind::Question(Combine::All | Combine::Any) => "boolean",
        HookKind::Question(Combine::Sum) => "number",
        HookKind::Question(Combine::Min) => "number?",
        HookKind::Question(Combine::Concat) => "{ OfferSpec }?",
        HookKind::Question(Combine::First) => "any?",
        HookKind::Event => "{ Command }?",
    }
}

/// How the answers of several handlers combine, in words.
pub fn combine_text(kind: HookKind) -> &'static str {
    match kind {
        HookKind::Question(Combine::All) => {
            "all: every handler must say true (stops at the first false); no handler: true"
        }
        HookKind::Question(Combine::Any) => {
            "any: one true is enough (stops at the first true); no handler: false"
        }
        HookKind::Question(Combine::Sum) => "sum: the integers added; no handler: 0",
        HookKind::Question(Combine::Min) => {
            "min: the smallest integer, nil for no bound; no handler: no bound"
        }
        HookKind::Question(Combine::Concat) => {
            "concat: the lists joined in handler order; no handler: an empty list"
        }
        HookKind::Question(Combine::First) => {
            "first: the first answer other than nil, in handler order (later handlers are not called); no handler: nil"
        }
        HookKind::Event => "commands of every handler, applied in handler order, all or nothing",
    }
}
