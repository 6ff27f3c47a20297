//! `require` confined to a script root (a module folder).
//!
//! `require("rules.jump")` loads `<root>/rules/jump.luau`. Every dot-separated segment must
//! match `[A-Za-z0-9_]+`, so no name can climb out of the folder or be absolute; the file
//! found must still lie inside the folder once symbolic links are resolved. A module runs
//! once and its value is cached; a cycle is an error naming it. Modules are read only while
//! the bundle loads: afterwards the sandbox never touches the file system, and `require`
//! only returns modules already loaded.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use mlua::chunk::ChunkMode;
use mlua::{Lua, Table, Value};

use crate::error::ScriptError;
use crate::stdlib::caller;

/// Largest script file read.
pub const MAX_SOURCE_BYTES: u64 = 4 << 20;

/// How many files one bundle may try to load (found or not), against scripts that probe.
const MAX_LOOKUPS: usize = 1024;

/// The folders scripts are loaded from, and the modules loaded so far.
pub(crate) struct Modules {
    roots: RefCell<Vec<Root>>,
    /// Keyed by root index and module name.
    cache: RefCell<HashMap<(usize, String), Value>>,
    /// Modules whose top-level code is running, outermost first (for cycles).
    loading: RefCell<Vec<(usize, String)>>,
    lookups: Cell<usize>,
    /// Cleared when the bundle has loaded.
    pub open: Cell<bool>,
    /// `readonly(value, name)`: a read-only view of a base's module value (made once).
    readonly: RefCell<Option<mlua::Function>>,
}

/// A read-only view of a base's module value, deep (tables reached through it are
/// views too) and cached (one view a table), in Luau so that a call through it costs
/// an index, not a trip through Rust. Writing through it is an error saying why.
const READONLY: &str = r#"
local cache = setmetatable({}, { __mode = "k" })
local function view(t, name)
	if type(t) ~= "table" then
		return t
	end
	local v = cache[t]
	if v then
		return v
	end
	v = setmetatable({}, {
		__index = function(_, k)
			return view(t[k], name)
		end,
		__newindex = function(_, k)
			error(`{name} is read-only: a mod cannot change its base's module (it set '{tostring(k)}'); to change a rule, wrap or replace its handler (hooks.wrap, hooks.replace)`, 2)
		end,
		__iter = function()
			local k = nil
			return function()
				local value
				k, value = next(t, k)
				if k == nil then
					return nil
				end
				return k, view(value, name)
			end
		end,
		__len = function()
			return #t
		end,
		__metatable = false,
	})
	cache[t] = v
	return v
end
return view
"#;

/// One script root: a canonical folder and the environment its chunks run in.
pub(crate) struct Root {
    pub dir: PathBuf,
    pub env: Table,
    /// What chunk names start with: the id of the module the folder belongs to and a `/`
    /// (`ahd-house/`), so `ahd/rules/init.luau:3` and `ahd-house/rules/init.luau:3` differ
    /// in every message; empty for a lone folder with no module.
    pub prefix: String,
}

impl Modules {
    pub fn new() -> Rc<Self> {
        Rc::new(Self {
            roots: RefCell::new(Vec::new()),
            cache: RefCell::new(HashMap::new()),
            loading: RefCell::new(Vec::new()),
            lookups: Cell::new(0),
            open: Cell::new(true),
            readonly: RefCell::new(None),
        })
    }

    /// Adds a root; its `env` receives a `require` bound to it. Its files are named
    /// `<module>/<path>` in messages, or `<path>` when `module` is `None`.
    pub fn add_root(
        self: &Rc<Self>,
        lua: &Lua,
        dir: &Path,
        module: Option<&str>,
        env: Table,
    ) -> Result<usize, ScriptError> {
        let load_err = |message: String| ScriptError::Load {
            file: dir.display().to_string(),
            message,
        };
        let canonical = dir
            .canonicalize()
            .map_err(|e| load_err(format!("cannot open the module folder: {e}")))?;
        let index = self.roots.borrow().len();
        // A weak reference: `Modules` owns the env that holds this closure.
        let weak = Rc::downgrade(self);
        let require = lua
            .create_function(move |lua, name: mlua::LuaString| {
                let name = name.to_string_lossy();
                match weak.upgrade() {
                    Some(modules) => modules.require(lua, index, &name),
                    None => Ok(Value::Nil),
                }
            })
            .map_err(|e| load_err(format!("cannot set up require: {e}")))?;
        env.raw_set("require", require)
            .map_err(|e| load_err(format!("cannot set up require: {e}")))?;
        self.roots.borrow_mut().push(Root {
            dir: canonical,
            env,
            prefix: module.map(|m| format!("{m}/")).unwrap_or_default(),
        });
        Ok(index)
    }

    /// The environment of a root's chunks.
    pub fn env(&self, index: usize) -> Option<Table> {
        self.roots.borrow().get(index).map(|r| r.env.clone())
    }

    /// Runs the entry script of a root (`rules/init.luau` is module `rules.init`).
    pub fn load_entry(&self, lua: &Lua, root: usize, entry: &str) -> mlua::Result<Value> {
        let name = entry_module(entry).map_err(|message| {
            mlua::Error::external(ScriptError::Load {
                file: entry.to_string(),
                message,
            })
        })?;
        self.require(lua, root, &name)
    }

    fn require(&self, lua: &Lua, root: usize, name: &str) -> mlua::Result<Value> {
        if let Some(rest) = name.strip_prefix('@') {
            return self.require_below(lua, root, name, rest);
        }
        let fail = |message: String| {
            mlua::Error::external(ScriptError::Require {
                hook: String::new(),
                name: shorten(name),
                message,
                at: caller(lua),
            })
        };
        let segments = segments(name).map_err(fail)?;
        let key = (root, name.to_string());
        if let Some(v) = self.cache.borrow().get(&key) {
            return Ok(v.clone());
        }
        let cycle = {
            let loading = self.loading.borrow();
            loading.iter().position(|k| *k == key).map(|start| {
                let mut names: Vec<&str> =
                    loading[start..].iter().map(|(_, n)| n.as_str()).collect();
                names.push(name);
                names.join(" -> ")
            })
        };
        if let Some(cycle) = cycle {
            return Err(fail(format!("require cycle: {cycle}")));
        }
        if !self.open.get() {
            return Err(fail(
                "modules can only be loaded while the rules load; require it at the top of a script"
                    .to_string(),
            ));
        }
        let lookups = self.lookups.get() + 1;
        self.lookups.set(lookups);
        if lookups > MAX_LOOKUPS {
            return Err(fail(format!("more than {MAX_LOOKUPS} modules requested")));
        }
        let Some((dir, env, prefix)) = self
            .roots
            .borrow()
            .get(root)
            .map(|r| (r.dir.clone(), r.env.clone(), r.prefix.clone()))
        else {
            return Err(fail("no such script root".to_string()));
        };
        let rel = format!("{}.luau", segments.join("/"));
        let source = read_source(&dir, &rel).map_err(fail)?;
        let chunk = lua
            .load(&source[..])
            .set_name(format!("@{prefix}{rel}"))
            .set_mode(ChunkMode::Text)
            .set_environment(env)
            .into_function()
            .map_err(|e| match e {
                mlua::Error::SyntaxError {
                    message,
                    incomplete_input,
                } => {
                    let text = String::from_utf8_lossy(&source);
                    let message = match crate::error::unclosed_block(&text, &message) {
                        // Luau's own guess ("did you forget to close ...?") pairs the
                        // `end`s innermost first; the indentation's is the likelier.
                        Some(hint) => {
                            let said = message.split("; did you forget").next().unwrap_or("");
                            format!("{said}; {hint}")
                        }
                        None => message,
                    };
                    mlua::Error::SyntaxError {
                        message,
                        incomplete_input,
                    }
                }
                other => other,
            })?;
        self.loading.borrow_mut().push(key.clone());
        let result = chunk.call::<Value>(());
        self.loading.borrow_mut().pop();
        let value = match result? {
            Value::Nil => Value::Boolean(true),
            v => v,
        };
        self.cache.borrow_mut().insert(key, value.clone());
        Ok(value)
    }
}

impl Modules {
    /// `require("@ahd/rules.movement")`: the module `rules.movement` of the module `ahd`
    /// below this root in the stack, the same value its own scripts get (loaded once),
    /// seen read-only.
    fn require_below(&self, lua: &Lua, root: usize, name: &str, rest: &str) -> mlua::Result<Value> {
        let fail = |message: String| {
            mlua::Error::external(ScriptError::Require {
                hook: String::new(),
                name: shorten(name),
                message,
                at: caller(lua),
            })
        };
        let Some((id, inner)) = rest.split_once('/') else {
            return Err(fail(
                "write require(\"@<module id>/<its module name>\"), e.g. require(\"@ahd/rules.movement\") for rules/movement.luau of module ahd".to_string(),
            ));
        };
        let prefixes: Vec<String> = self
            .roots
            .borrow()
            .iter()
            .map(|r| r.prefix.clone())
            .collect();
        let wanted = format!("{id}/");
        let found = prefixes.iter().position(|p| *p == wanted);
        let below: Vec<&str> = prefixes[..root.min(prefixes.len())]
            .iter()
            .filter_map(|p| p.strip_suffix('/'))
            .collect();
        let index = match found {
            Some(i) if i < root => i,
            Some(i) if i == root => {
                return Err(fail(format!(
                    "'{id}' is this module: write require(\"{inner}\") for its own files"
                )));
            }
            _ => {
                let hint = muster_core::suggest::did_you_mean(id, below.iter().copied())
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                let list = if below.is_empty() {
                    "none has rules".to_string()
                } else {
                    format!("those with rules: {}", below.join(", "))
                };
                return Err(fail(format!(
                    "no module '{id}' below this one to require from ({list}){hint}"
                )));
            }
        };
        let value = self.require(lua, index, inner)?;
        let view = {
            let mut made = self.readonly.borrow_mut();
            match &*made {
                Some(f) => f.clone(),
                None => {
                    let f: mlua::Function = lua.load(READONLY).set_name("=muster").call(())?;
                    *made = Some(f.clone());
                    f
                }
            }
        };
        view.call((value, format!("require(\"{name}\")")))
    }
}

/// The segments of a module name, or why it is refused.
fn segments(name: &str) -> Result<Vec<&str>, String> {
    if name.is_empty() {
        return Err("empty module name; write e.g. require(\"rules.jump\")".to_string());
    }
    if name.contains(['/', '\\']) {
        return Err(
            "module names are not paths: write require(\"rules.jump\") for rules/jump.luau \
             in the module folder"
                .to_string(),
        );
    }
    let segments: Vec<&str> = name.split('.').collect();
    for seg in &segments {
        if seg.is_empty() {
            return Err(
                "empty segment in module name; names are dot-separated like \"rules.jump\""
                    .to_string(),
            );
        }
        if !seg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!(
                "bad segment '{}': module names are dot-separated words of letters, digits and '_' \
                 (\"rules.jump\" is rules/jump.luau in the module folder); paths are not allowed",
                shorten(seg)
            ));
        }
    }
    Ok(segments)
}

/// The module name of an entry path: `rules/init.luau` -> `rules.init`.
pub(crate) fn entry_module(entry: &str) -> Result<String, String> {
    let stem = entry.strip_suffix(".luau").ok_or_else(|| {
        format!("the rules entry '{entry}' must be a .luau file inside the module folder")
    })?;
    let name = stem.replace('/', ".");
    segments(&name).map_err(|e| format!("bad rules entry '{entry}': {e}"))?;
    Ok(name)
}

/// Reads `<dir>/<rel>`, which must exist, stay inside `dir` and not be too large.
fn read_source(dir: &Path, rel: &str) -> Result<Vec<u8>, String> {
    let path = dir.join(rel);
    let canonical = path
        .canonicalize()
        .map_err(|_| format!("no file {rel} in the module folder"))?;
    if !canonical.starts_with(dir) {
        return Err(format!("{rel} leads outside the module folder"));
    }
    let meta = std::fs::metadata(&canonical).map_err(|e| format!("cannot read {rel}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{rel} is not a file"));
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(format!("{rel} is larger than {MAX_SOURCE_BYTES} bytes"));
    }
    std::fs::read(&canonical).map_err(|e| format!("cannot read {rel}: {e}"))
}

/// A name cut for messages (scripts may pass megabytes).
fn shorten(s: &str) -> String {
    if s.chars().count() <= 80 {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(80).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(segments("rules.jump"), Ok(vec!["rules", "jump"]));
        assert!(segments("../..").is_err());
        assert!(segments("/etc/passwd").is_err());
        assert!(segments("rules..x").is_err());
        assert!(segments("").is_err());
        assert!(segments("rules.jump.").is_err());
        assert_eq!(
            entry_module("rules/init.luau"),
            Ok("rules.init".to_string())
        );
        assert!(entry_module("../init.luau").is_err());
        assert!(entry_module("rules/init.lua").is_err());
    }
}
