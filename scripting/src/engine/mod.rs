//! The engine's [`Rules`](muster_core::game::Rules) answered by a module's Luau scripts.
//!
//! Scripts see the game through a `game` object (the first argument of every hook):
//! read-only methods over the state, lent for the length of one call. Unit, box and line
//! numbers are 1-based (`lua_index`); sides, unit types, classes and options are their
//! string ids. `math.random` draws from the game's own dice, and only in events: a
//! question is pure, so rolling in one is an error.
//!
//! One job a module:
//! - `calls`: the engine's calls into the scripts ([`ScriptRules`]): questions, events
//!   and the list hooks, with the arguments each hook gets, and the dice, logs and
//!   traces kept around them.
//! - `commands`: what handlers return, checked and turned into the engine's values
//!   (commands, offers, victory progress); a refusal names the handler.
//! - `entries`: offers' forms and the values entered, between Luau and the engine.
//! - `view`: the `game` view: its methods over the state, their Luau wrappers, and
//!   lending a view for one call or session.

mod calls;
mod commands;
mod entries;
mod offer_table;
mod paths;
mod view;

pub use calls::{Loader, RuleTrace, ScriptRules, catalogue, loader};
pub(crate) use commands::{text as stack_text, whole as stack_whole};
pub use entries::entry as entry_from_lua;
pub(crate) use view::view_methods;
