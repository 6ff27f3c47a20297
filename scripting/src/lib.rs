//! Sandboxed Luau runtime for game rules.
//!
//! Rules are Luau scripts that mod authors share with strangers, so every script is
//! treated as hostile. A [`Sandbox`] is one Lua state per loaded rules bundle; the engine
//! asks it questions and fires events at named hooks, and gets back plain Rust values.
//!
//! # Guarantees
//! Whatever a script does, a call returns `Ok` or a [`ScriptError`]; it never panics,
//! hangs or reaches the host:
//! - **No host access.** Only Luau's pure libraries are opened (no `os`, `io`, `debug`);
//!   `loadstring`, `load`, `dofile`, `loadfile`, `getfenv`, `setfenv`, `collectgarbage`,
//!   `gcinfo` and `newproxy` are removed. Source is always loaded as text (bytecode, which
//!   could crash the VM, is refused). `print` goes to [`Sandbox::take_output`], never to
//!   stdout.
//! - **Confined `require`.** `require("rules.jump")` loads `rules/jump.luau` from the
//!   module folder and nothing else (segments `[A-Za-z0-9_]+`, no paths, no links out);
//!   modules run once, are cached, and cycles are errors. Files are read only while
//!   loading.
//! - **Frozen world.** Before any script runs, `Lua::sandbox(true)` makes `_G`, every
//!   library and the builtin metatables (the string metatable) read-only; `defs` is
//!   deep-frozen.
//!   Scripts cannot create or change globals at all, while loading or later: assigning
//!   `x = 1` fails naming `x` (use `local`), `_G.x = 1` fails as a read-only write. Module
//!   level `local`s do persist between calls; keep game state in the engine.
//! - **Bounded.** The heap is capped ([`Limits::memory_bytes`]); each hook call, and the
//!   load, gets a budget of VM interrupts (function calls and loop iterations,
//!   [`Limits::budget`]), counted, not timed, so a failure reproduces anywhere. Once spent,
//!   every further interrupt fails too, so `pcall` cannot swallow it, and the call ends
//!   with [`ScriptError::Budget`]. A wall-clock backstop ([`Limits::wall_clock`]) catches
//!   anything else. Deep recursion ends in Luau's "stack overflow".
//! - **Deterministic.** `math.random(m)` / `math.random(m, n)` draw integers from the
//!   engine's [`Rng`] callback (no floats, no `randomseed`); there is no clock. The same
//!   dice and the same calls give the same answers, and `pairs` over tables keyed by
//!   strings and numbers runs in the same order for the same insertions. (Tables keyed by
//!   tables or functions, and `tostring` of them, depend on addresses: avoid them.)
//!
//! # Hooks
//! The engine passes a catalogue of [`HookSpec`]s. While loading, scripts call
//! `hooks.on("name", fn)` (the `hooks` global exists only then); an unknown name is an
//! error with a "did you mean". A hook may have several handlers (a base module, its
//! overlays, option scripts), called in registration order:
//! - a **question** ([`Sandbox::question`]) combines handlers' answers by its [`Combine`]
//!   rule: `All`/`Any` over booleans (short-circuit), `Sum`/`Min` over integers (`nil`
//!   is "no bound" for `Min`); with no handler it answers the rule's identity (`true`,
//!   `false`, `0`, none). Any other return is a [`ScriptError::BadReturn`] naming the
//!   handler's `file:line`;
//! - an **event** ([`Sandbox::event`]) collects the [`ScriptCommand`]s handlers return (`nil` or
//!   a list of `{kind = "...", ...}` tables). Scripts never change engine state: the
//!   engine validates and applies commands.
//!
//! Arguments are anything `IntoLuaMulti`, or, to lend engine state without copying it,
//! scoped values built in [`Sandbox::question_with`] / [`Sandbox::event_with`], which
//! become invalid when the call returns.
//!
//! # Indexing and `defs`
//! Lua arrays are 1-based, Rust ids 0-based: `defs.boxes[i]` is `BoxId(i - 1)`, and every
//! box or line number a script sees or returns follows that rule ([`lua_index`],
//! [`rust_index`], [`box_id`], [`line_id`]). Sides, line kinds, unit types, classes,
//! qualities and options are named by their string ids (`box.owner == "union"`).
//!
//! [`Sandbox::load_module`] fills the frozen global `defs` (with [`Sandbox::load`] every
//! list is empty):
//! - `sides[i]` `{index, id, name, color}`; `side_by_id[id]`
//! - `boxes[i]` `{id = i, name, aliases, owner, tags, state,
//!   recruit = {[side id] = n}, x, y, lines, neighbours}` (`lines` and `neighbours` are the
//!   box's adjacent line and box numbers, pairwise); `box_by_name[name or alias] = i`
//! - `lines[i]` `{id = i, a, b, kind, name, downstream, water_border_a, water_border_b}`
//! - `kinds[i]` `{index, id, name, flows}`; `kind_by_id[id]`
//! - `units[i]` `{index, id, name, class, quality, combat, defense, steps, promotes_to,
//!   returns_to, advanced, mix = {[side id] = n}}`; `unit_by_id[id]`
//! - `classes[i]`, `qualities[i]`, `markers[i]`, `flags[i]` `{index, id, name}`;
//!   `tags[i]` `{id, name}` (the box tags the map declares)
//! - `options[i]` `{index, id, rule, title, favours, default_on}`; `option_by_id[id]`
//! - `module` `{id, name, version}`
//!
//! The maps (`box_by_name`, `unit_by_id`, ...) answer nil for a name they lack. Where a
//! name must exist, use the **strict lookups**, which fail at the caller's line with a
//! suggestion instead: `defs.box(name)` is `box_by_name[name]` (a box number),
//! `defs.unit(id)` is `unit_by_id[id]` and `defs.side(id)` is `side_by_id[id]` (records):
//! `defs.box("Washingtn")` raises `rules/x.luau:3: unknown box 'Washingtn'; did you mean
//! 'Washington'?`. Reading a field `defs` lacks is an error too (`unknown field
//! 'box_by_nam' of defs; did you mean 'box_by_name'?`), as is calling a method the `game`
//! view lacks (`unknown method 'unit_kind' of game; did you mean 'unit_type'?`).
//!
//! # Errors are located
//! Files are named by the module their folder belongs to, `ahd-house/rules/init.luau:3`
//! ([`Sandbox::load_module`]; [`Sandbox::load`], with one folder and no module, names
//! them `rules/init.luau:3`), so a base module and its overlay, which may both have a
//! `rules/init.luau`, are told apart. A bad argument to a `game` method names the call as
//! written, the argument, what it must be and the value given (`game:units_at(nil):
//! argument 1 must be a box number (1-129), got nil`) at the caller's line. A budget or
//! memory stop names the hook and the `file:line` of the handler that was running (and,
//! for the budget, the line it was stopped at); a refused command names the handler that
//! returned it ([`ScriptCommand::handler`]), the command, the field and the value.
//!
//! # Reloading
//! [`Sandbox::load`] is a pure constructor. To reload edited scripts, load a new sandbox
//! and swap it in only if that succeeded; the old one keeps answering otherwise.

pub mod api;
mod args;
mod budget;
mod defs;
mod engine;
mod error;
mod hooks;
pub mod profile;
mod quick;
mod reading;
mod require;
mod sandbox;
pub mod spans;
mod stdlib;
mod value;

pub use budget::Limits;
pub use defs::{box_id, line_id, lua_index, rust_index};
pub use engine::{Loader, RuleTrace, ScriptRules, catalogue, entry_from_lua, loader};
pub use error::{LOADING, ScriptError};
pub use hooks::{Answer, Combine, HookKind, HookSpec, WrapUse};
pub use mlua;
pub use require::MAX_SOURCE_BYTES;
pub use sandbox::{Sandbox, Session, Traced};
pub use stdlib::Rng;
pub use value::{MAX_DEPTH, MAX_VALUES, ScriptCommand, ScriptValue};
