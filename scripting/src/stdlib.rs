//! The standard library a script sees: Luau's safe libraries minus everything that loads
//! code, reaches the host, reads the clock or the heap, or draws unseeded randomness.
//!
//! Runs before `Lua::sandbox(true)`, which then freezes `_G` and every library table.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Function, Lua, MultiValue, StdLib, Table, Value, Variadic};
use muster_core::suggest::{did_you_mean, known_like};

use crate::value::describe;

/// The libraries opened (the base library is always there). No `os`, `debug`, `io`.
pub(crate) fn libs() -> StdLib {
    StdLib::COROUTINE
        | StdLib::TABLE
        | StdLib::STRING
        | StdLib::UTF8
        | StdLib::BIT
        | StdLib::MATH
        | StdLib::BUFFER
        | StdLib::VECTOR
}

/// Globals removed: code loading (`loadstring`, `load`, `dofile`, `loadfile`, mlua's
/// file-system `require`), environment access (`getfenv`, `setfenv`), heap inspection and
/// control (`collectgarbage`, `gcinfo`), raw userdata (`newproxy`), host libraries.
const REMOVED: &[&str] = &[
    "loadstring",
    "load",
    "dofile",
    "loadfile",
    "require",
    "getfenv",
    "setfenv",
    "collectgarbage",
    "gcinfo",
    "newproxy",
    "os",
    "io",
    "debug",
];

/// Dice for `math.random`: returns a uniformly drawn integer in `lo..=hi`.
pub type Rng = Box<dyn FnMut(u32, u32) -> u32>;

/// What scripts `print`, kept for the engine to show (never written to stdout).
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub lines: Vec<String>,
    bytes: usize,
    dropped: bool,
}

/// Bounds on kept `print` output; past them lines are dropped (once noted).
const OUTPUT_BYTES: usize = 64 << 10;
const OUTPUT_LINE: usize = 1000;

impl Output {
    fn push(&mut self, mut line: String) {
        if self.dropped {
            return;
        }
        if line.len() > OUTPUT_LINE {
            let mut cut = OUTPUT_LINE;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
            line.push_str("...");
        }
        if self.bytes + line.len() > OUTPUT_BYTES {
            self.dropped = true;
            self.lines.push("(further output dropped)".to_string());
            return;
        }
        self.bytes += line.len();
        self.lines.push(line);
    }

    pub fn take(&mut self) -> Vec<String> {
        self.bytes = 0;
        self.dropped = false;
        std::mem::take(&mut self.lines)
    }
}

/// Removes, replaces and adds globals; `defs` is the frozen definitions table.
pub(crate) fn lock_down(
    lua: &Lua,
    rng: Rng,
    output: Rc<RefCell<Output>>,
    defs: Table,
) -> mlua::Result<()> {
    let globals = lua.globals();
    for name in REMOVED {
        globals.raw_set(*name, Value::Nil)?;
    }
    let math: Table = globals.raw_get("math")?;
    math.raw_set("random", random(lua, rng)?)?;
    math.raw_set(
        "randomseed",
        lua.create_function(|lua, _: MultiValue| -> mlua::Result<()> {
            Err(at_caller(
                lua,
                "math.randomseed is disabled: dice come from the engine",
            ))
        })?,
    )?;
    globals.raw_set("print", print(lua, output)?)?;
    globals.raw_set("defs", defs)?;
    Ok(())
}

/// A runtime error prefixed with the `file:line:` of the Lua code calling the Rust
/// callback, so that it reads like an error Luau raised there.
pub(crate) fn at_caller(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::runtime(format!("{}{message}", caller(lua)))
}

/// `file:line: ` of the innermost script function on the stack, or empty.
pub(crate) fn caller(lua: &Lua) -> String {
    location(lua)
        .map(|at| format!("{at}: "))
        .unwrap_or_default()
}

/// How many stack levels [`location`] looks through: the Rust callback, the engine's own
/// Luau wrappers (the `game` view's), then the script.
const LOOK_DEPTH: usize = 6;

/// `file:line` of the innermost script function on the stack. Rust callbacks and the
/// engine's own chunks (named `=...`, like the `game` view's wrappers) are skipped: a
/// message must point at the script that made the call, not at the engine.
pub(crate) fn location(lua: &Lua) -> Option<String> {
    (0..LOOK_DEPTH).find_map(|level| {
        lua.inspect_stack(level, |d| {
            let line = d.current_line()?;
            let source = d.source();
            let script =
                source.what != "C" && source.source.as_deref().is_some_and(|s| s.starts_with('@'));
            let src = source.short_src?.into_owned();
            script.then(|| format!("{src}:{line}"))
        })
        .flatten()
    })
}

/// `math.random(m)` is `1..=m`, `math.random(m, n)` is `m..=n`, both drawn from the
/// engine's dice; bounds are integers in `0..=u32::MAX`. No floats: `math.random()` is an
/// error, so scripts cannot depend on float formatting across platforms.
fn random(lua: &Lua, mut rng: Rng) -> mlua::Result<mlua::Function> {
    lua.create_function_mut(move |lua, args: MultiValue| {
        let bound = |v: &Value| -> Option<u32> {
            match v {
                Value::Integer(i) => u32::try_from(*i).ok(),
                _ => None,
            }
        };
        let usage = "use math.random(m) for 1..m or math.random(m, n) for m..n, with whole numbers from 0 to 4294967295";
        let (lo, hi) = match args.len() {
            1 => match bound(&args[0]) {
                Some(m) if m >= 1 => (1, m),
                _ => {
                    return Err(at_caller(
                        lua,
                        format!("math.random: bad argument {}; {usage}", describe(&args[0])),
                    ));
                }
            },
            2 => match (bound(&args[0]), bound(&args[1])) {
                (Some(m), Some(n)) if m <= n => (m, n),
                _ => {
                    return Err(at_caller(
                        lua,
                        format!(
                            "math.random: bad arguments {} and {} (need m <= n); {usage}",
                            describe(&args[0]),
                            describe(&args[1])
                        ),
                    ));
                }
            },
            n => {
                return Err(at_caller(
                    lua,
                    format!("math.random: got {n} arguments (floats are not supported); {usage}"),
                ));
            }
        };
        let x = rng(lo, hi);
        if !(lo..=hi).contains(&x) {
            return Err(at_caller(
                lua,
                format!("math.random: the engine's dice returned {x} outside {lo}..{hi}"),
            ));
        }
        Ok(i64::from(x))
    })
}

/// `print` into [`Output`]; values are shown without calling any `__tostring`.
fn print(lua: &Lua, output: Rc<RefCell<Output>>) -> mlua::Result<mlua::Function> {
    lua.create_function(move |_, args: Variadic<Value>| {
        let line = args
            .iter()
            .map(|v| match v {
                Value::Nil => "nil".to_string(),
                Value::Boolean(b) => b.to_string(),
                Value::Integer(i) => i.to_string(),
                Value::Number(n) => n.to_string(),
                Value::String(s) => s.to_string_lossy(),
                other => other.type_name().to_string(),
            })
            .collect::<Vec<_>>()
            .join("\t");
        output.borrow_mut().push(line);
        Ok(())
    })
}

/// The environment of every chunk of one script root: empty, reads fall through to the
/// frozen globals, writes of new globals fail with a message naming the global. Raw keys
/// (`require`, `hooks` while loading) are set from Rust only: scripts cannot reach this
/// table (`getfenv` is gone and `_G` is the frozen global table).
pub(crate) fn script_env(lua: &Lua) -> mlua::Result<Table> {
    let refuse: mlua::Function = lua
        .load(
            r#"return function(_, key)
                error("cannot assign global '" .. tostring(key)
                    .. "': scripts may not create or change globals; declare it local", 2)
            end"#,
        )
        .set_name("=muster")
        .eval()?;
    let meta = lua.create_table()?;
    meta.raw_set("__index", lua.globals())?;
    meta.raw_set("__newindex", refuse)?;
    meta.raw_set("__metatable", "locked")?;
    meta.set_readonly(true);
    let env = lua.create_table()?;
    env.set_metatable(Some(meta))?;
    // Luau runs code fast (globals looked up once, at load; `math.floor` and the like
    // called as builtins) only in an environment marked safe, as `Lua::sandbox` marks
    // its own: one whose globals will not change. This one never does: it refuses new
    // keys, and the globals behind it are read-only once the sandbox is on.
    // SAFETY: `exec_raw` pushes `env` on the stack it hands over; `lua_setsafeenv`
    // only sets a flag of the table at the top of that stack.
    unsafe {
        lua.exec_raw::<()>(&env, |state| mlua::ffi::lua_setsafeenv(state, -1, 1))?;
    }
    Ok(env)
}

/// Longest key looked up for a suggestion (a script may index with megabytes).
const MAX_KEY: usize = 64;

/// An `__index` metamethod that makes reading a key the table lacks an error at the
/// caller's line, with a "did you mean" among the table's own keys: `game:unit_kind()` or
/// `defs.box_by_nam` would otherwise be a nil that fails later, far from the typo.
/// `owner` and `noun` word it: "unknown method 'unit_kind' of game". `synonyms` are word
/// pairs an edit distance cannot see (`kind` for `type`), tried before it.
pub(crate) fn refuse_unknown(
    lua: &Lua,
    owner: &'static str,
    noun: &'static str,
    synonyms: &'static [(&'static str, &'static str)],
) -> mlua::Result<Function> {
    lua.create_function(
        move |lua, (table, key): (Table, Value)| -> mlua::Result<Value> {
            let Value::String(key) = key else {
                return Err(at_caller(
                    lua,
                    format!("{owner} has no {noun} {}", describe(&key)),
                ));
            };
            let key = key.to_string_lossy();
            if key.chars().count() > MAX_KEY {
                let short: String = key.chars().take(MAX_KEY).collect();
                return Err(at_caller(
                    lua,
                    format!("unknown {noun} '{short}...' of {owner}"),
                ));
            }
            let names: Vec<String> = table
                .pairs::<Value, Value>()
                .filter_map(|pair| match pair.ok()?.0 {
                    Value::String(s) => Some(s.to_string_lossy()),
                    _ => None,
                })
                .collect();
            let names = || names.iter().map(String::as_str);
            let hint = synonym(&key, synonyms, names())
                .map(|name| format!("did you mean '{name}'?"))
                .or_else(|| did_you_mean(&key, names()))
                .or_else(|| known_like(&key, names()))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            Err(at_caller(
                lua,
                format!("unknown {noun} '{key}' of {owner}{hint}"),
            ))
        },
    )
}

/// The name `key` becomes when one of its words is replaced by a synonym, if that is one
/// of `names`: `unit_kind` -> `unit_type`.
fn synonym<'a>(
    key: &str,
    synonyms: &[(&str, &str)],
    names: impl Iterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    synonyms.iter().find_map(|(word, instead)| {
        let words: Vec<&str> = key.split('_').collect();
        if !words.contains(word) {
            return None;
        }
        let candidate = words
            .iter()
            .map(|w| if w == word { *instead } else { *w })
            .collect::<Vec<_>>()
            .join("_");
        names.clone().find(|n| *n == candidate)
    })
}
