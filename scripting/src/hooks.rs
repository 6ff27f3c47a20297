//! The hook model: the engine's catalogue, handler registration (`hooks.on`) and how the
//! answers of several handlers combine into one.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use mlua::{Function, Lua, Table, Value};
use muster_core::suggest::did_you_mean;

use crate::error::ScriptError;
use crate::stdlib::{at_caller, caller};
use crate::value::describe;

/// How the answers of a question's handlers combine: the engine's own rule.
pub use muster_core::game::Combine;

/// A question (answered, combined) or an event (returns commands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookKind {
    Question(Combine),
    Event,
}

/// One entry of the engine's catalogue: the only names `hooks.on` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookSpec {
    pub name: &'static str,
    pub kind: HookKind,
}

impl HookSpec {
    pub const fn question(name: &'static str, combine: Combine) -> Self {
        Self {
            name,
            kind: HookKind::Question(combine),
        }
    }

    pub const fn event(name: &'static str) -> Self {
        Self {
            name,
            kind: HookKind::Event,
        }
    }
}

/// The combined answer to a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Bool(bool),
    Int(i64),
    /// `Min` with no bound.
    None,
}

impl Answer {
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_int(self) -> Option<i64> {
        match self {
            Self::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The answer with no handler.
    pub fn identity(combine: Combine) -> Self {
        match combine {
            Combine::All => Self::Bool(true),
            Combine::Any => Self::Bool(false),
            Combine::Sum => Self::Int(0),
            Combine::Min | Combine::Concat => Self::None,
        }
    }

    /// Folds one handler's return value in. `Ok(true)` means the answer is settled
    /// (short-circuit); `Err` says what was wrong with the value.
    pub(crate) fn add(&mut self, combine: Combine, v: &Value) -> Result<bool, String> {
        let wrong = |want: &str| format!("returned {}; this hook needs {want}", describe(v));
        match (combine, v, *self) {
            (Combine::All, Value::Boolean(b), _) => {
                *self = Self::Bool(*b);
                Ok(!*b)
            }
            (Combine::Any, Value::Boolean(b), _) => {
                *self = Self::Bool(*b);
                Ok(*b)
            }
            (Combine::All | Combine::Any, ..) => Err(wrong("a boolean (true or false)")),
            (Combine::Sum, Value::Integer(i), Self::Int(acc)) => acc
                .checked_add(*i)
                .map(|s| {
                    *self = Self::Int(s);
                    false
                })
                .ok_or_else(|| format!("returned {i}, which makes the sum overflow")),
            (Combine::Sum, ..) => Err(wrong("an integer")),
            (Combine::Min, Value::Nil, _) => Ok(false),
            (Combine::Min, Value::Integer(i), Self::Int(acc)) => {
                *self = Self::Int(acc.min(*i));
                Ok(false)
            }
            (Combine::Min, Value::Integer(i), _) => {
                *self = Self::Int(*i);
                Ok(false)
            }
            (Combine::Min, ..) => Err(wrong("an integer (or nil for no bound)")),
            (Combine::Concat, ..) => Err("a list hook is read with Sandbox::list_with".into()),
        }
    }
}

/// A registered handler and where it was defined, for error messages.
pub(crate) struct Handler {
    pub func: Function,
    /// `rules/jump.luau:12`
    pub origin: String,
}

pub(crate) struct Hook {
    pub spec: HookSpec,
    pub handlers: Vec<Handler>,
}

/// Longest hook name looked up for a suggestion.
const MAX_NAME: usize = 64;

/// The catalogue with its handlers, in registration order.
#[derive(Default)]
pub(crate) struct Hooks {
    pub list: Vec<Hook>,
    index: HashMap<&'static str, usize>,
}

impl Hooks {
    pub fn new(catalogue: &[HookSpec]) -> Result<Self, String> {
        let mut hooks = Self::default();
        for spec in catalogue {
            if hooks.index.insert(spec.name, hooks.list.len()).is_some() {
                return Err(format!("hook '{}' is twice in the catalogue", spec.name));
            }
            hooks.list.push(Hook {
                spec: *spec,
                handlers: Vec::new(),
            });
        }
        Ok(hooks)
    }

    /// The hook called `name`, which must be of the expected kind (`question` or `event`).
    pub fn find(&self, name: &str, question: bool) -> Result<usize, ScriptError> {
        let Some(&i) = self.index.get(name) else {
            return Err(self.unknown(name, String::new()));
        };
        let is_question = matches!(self.list[i].spec.kind, HookKind::Question(_));
        if is_question != question {
            let (is, call) = if is_question {
                ("a question", "question")
            } else {
                ("an event", "event")
            };
            return Err(ScriptError::UnknownHook {
                name: name.to_string(),
                hint: Some(format!("'{name}' is {is}: call Sandbox::{call}")),
                at: String::new(),
            });
        }
        Ok(i)
    }

    fn unknown(&self, name: &str, at: String) -> ScriptError {
        // A script may pass a huge string: no edit distance on it, and a short message.
        if name.chars().count() > MAX_NAME {
            let short: String = name.chars().take(MAX_NAME).collect();
            return ScriptError::UnknownHook {
                name: format!("{short}..."),
                hint: None,
                at,
            };
        }
        ScriptError::UnknownHook {
            name: name.to_string(),
            hint: did_you_mean(name, self.list.iter().map(|h| h.spec.name)),
            at,
        }
    }
}

/// The `hooks` table scripts see while loading: `hooks.on(name, fn)`. Once `open` is
/// cleared (the load is over) registration fails, even through a saved reference.
pub(crate) fn hooks_table(
    lua: &Lua,
    hooks: Rc<RefCell<Hooks>>,
    open: Rc<Cell<bool>>,
) -> mlua::Result<Table> {
    let on = lua.create_function(move |lua, (name, func): (Value, Value)| {
        let name = match name {
            Value::String(s) => s.to_string_lossy(),
            other => {
                return Err(at_caller(
                    lua,
                    format!(
                        "hooks.on: the first argument must be a hook name, got {} (write hooks.on, not hooks:on)",
                        describe(&other)
                    ),
                ));
            }
        };
        if !open.get() {
            return Err(at_caller(
                lua,
                format!("hooks.on('{name}'): handlers can only be registered while the rules load"),
            ));
        }
        let Value::Function(func) = func else {
            return Err(at_caller(
                lua,
                format!(
                    "hooks.on('{name}'): the second argument must be a function, got {}",
                    describe(&func)
                ),
            ));
        };
        let mut hooks = hooks.borrow_mut();
        let Some(&i) = hooks.index.get(name.as_str()) else {
            return Err(mlua::Error::external(hooks.unknown(&name, caller(lua))));
        };
        let info = func.info();
        let origin = format!(
            "{}:{}",
            info.short_src.unwrap_or_else(|| "?".to_string()),
            info.line_defined.unwrap_or(0)
        );
        hooks.list[i].handlers.push(Handler { func, origin });
        Ok(())
    })?;
    let table = lua.create_table()?;
    table.raw_set("on", on)?;
    table.set_readonly(true);
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_and_short_circuits() {
        let mut a = Answer::identity(Combine::All);
        assert_eq!(a.add(Combine::All, &Value::Boolean(true)), Ok(false));
        assert_eq!(a.add(Combine::All, &Value::Boolean(false)), Ok(true));
        assert_eq!(a, Answer::Bool(false));
        let mut m = Answer::identity(Combine::Min);
        assert_eq!(m.add(Combine::Min, &Value::Nil), Ok(false));
        assert_eq!(m, Answer::None);
        m.add(Combine::Min, &Value::Integer(4)).ok();
        m.add(Combine::Min, &Value::Integer(2)).ok();
        assert_eq!(m, Answer::Int(2));
        let mut s = Answer::Int(i64::MAX);
        assert!(s.add(Combine::Sum, &Value::Integer(1)).is_err());
        assert!(s.add(Combine::Sum, &Value::Number(0.5)).is_err());
    }
}
