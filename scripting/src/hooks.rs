//! The hook model: the engine's catalogue, handler registration (`hooks.on`) and how the
//! answers of several handlers combine into one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use mlua::{Function, Lua, Table, Value};
use muster_core::suggest::{did_you_mean, did_you_mean_any};
use rustc_hash::FxHashMap;

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
            Combine::Min | Combine::Concat | Combine::First => Self::None,
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
            (Combine::First, ..) => {
                Err("a first-answer hook is read with Sandbox::first_with".into())
            }
        }
    }
}

/// A registered handler and where it was defined, for error messages.
#[derive(Clone)]
pub(crate) struct Handler {
    pub func: Function,
    /// `rules/jump.luau:12`
    pub origin: String,
    /// The id other modules name it by (`hooks.on(name, fn, { id = ... })`), if any.
    pub id: Option<String>,
    /// Ids it must run before / after (`before`, `after`), resolved when the load ends.
    before: Vec<String>,
    after: Vec<String>,
    /// `file:line` of the `hooks.on` call that wrote `before`/`after`: an order's error
    /// names where the order is written, not the function it orders.
    ordered_at: String,
    /// Where a `hooks.replace` of it was made: a second replacement is an error naming
    /// both, so two mods never silently clobber each other.
    replaced_at: Option<String>,
    /// The handler declared its answers fixed for a battle (`fixed = true`): see
    /// `Rules::fixed`. A replacement or a wrap is new code, so it drops the declaration.
    pub fixed: bool,
    /// The steps it is called in (`during`), by the module's step ids; `None`: every
    /// step. A replacement is new code and drops it (unless it declares its own); a wrap
    /// keeps it, so the handler it wraps is never called outside its steps.
    pub during: Option<Box<[Box<str>]>>,
    /// The `hooks.wrap`s laid on it, innermost first (a replacement drops them).
    pub wraps: Vec<Wrap>,
}

/// A `hooks.wrap` and its counts: how often the wrapper ran and called its `next`.
#[derive(Clone)]
pub(crate) struct Wrap {
    /// `file:line` of the wrapper function.
    pub origin: String,
    /// `() -> (calls, nexts)`, reading the composed function's counters.
    pub counts: Function,
}

/// How a `hooks.wrap` was used so far: a wrapper that ran and never called `next`
/// drops the handler it wraps without a word (`muster check --smoke` warns of it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrapUse {
    pub hook: String,
    /// The id of the handler wrapped.
    pub id: String,
    /// `file:line` of the wrapper function.
    pub origin: String,
    pub calls: u64,
    pub nexts: u64,
}

pub(crate) struct Hook {
    pub spec: HookSpec,
    pub handlers: Vec<Handler>,
    /// When a handler is declared `during` some steps: the handlers to call in each step
    /// a handler names, and in every other (set when the load ends).
    by_step: Option<ByStep>,
}

/// A hook's handlers by step, each list in the hook's order: copies of `handlers`, so
/// a call takes a slice with no filtering and no allocation.
struct ByStep {
    steps: Vec<(Box<str>, Vec<Handler>)>,
    /// In a step no handler names, or with no step: those declared for every step.
    elsewhere: Vec<Handler>,
}

impl Hook {
    /// The handlers to call while the game is at `step` (`None`: no step known, so only
    /// those not declared `during` some steps).
    #[inline]
    pub fn at(&self, step: Option<&str>) -> &[Handler] {
        let Some(by) = &self.by_step else {
            return &self.handlers;
        };
        step.and_then(|step| by.steps.iter().find(|(s, _)| **s == *step))
            .map_or(&by.elsewhere, |(_, list)| list)
    }

    fn sort_by_step(&mut self) {
        if self.handlers.iter().all(|h| h.during.is_none()) {
            self.by_step = None;
            return;
        }
        let mut named: Vec<&str> = Vec::new();
        for h in &self.handlers {
            for s in h.during.iter().flatten() {
                if !named.contains(&&**s) {
                    named.push(s);
                }
            }
        }
        let called_at = |step: Option<&str>| -> Vec<Handler> {
            self.handlers
                .iter()
                .filter(|h| {
                    h.during
                        .as_ref()
                        .is_none_or(|d| step.is_some_and(|step| d.iter().any(|s| **s == *step)))
                })
                .cloned()
                .collect()
        };
        let steps = named
            .iter()
            .map(|&s| (Box::from(s), called_at(Some(s))))
            .collect();
        self.by_step = Some(ByStep {
            steps,
            elsewhere: called_at(None),
        });
    }
}

/// The module's step ids, which `during` names (`ids` is `None` with no module: nothing
/// is checked). `check`: a step the module lacks is an error, for the files of the
/// module loaded (a stack's top); a base's handler may name a step an overlay removed,
/// and is then never called in it.
#[derive(Default)]
pub(crate) struct Steps {
    pub ids: Option<Vec<String>>,
    pub check: Cell<bool>,
}

/// Longest hook name looked up for a suggestion.
const MAX_NAME: usize = 64;

/// The catalogue with its handlers, in registration order.
#[derive(Default)]
pub(crate) struct Hooks {
    pub list: Vec<Hook>,
    index: FxHashMap<&'static str, usize>,
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
                by_step: None,
            });
        }
        Ok(hooks)
    }

    /// The hook called `name`, which must be of the expected kind (`question` or `event`).
    #[inline]
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

    /// The hook called `name`, of either kind.
    pub fn get(&self, name: &str) -> Option<&Hook> {
        self.index.get(name).map(|&i| &self.list[i])
    }

    /// Every `hooks.wrap` and how it was used so far, in hook and load order.
    pub fn wraps(&self) -> Vec<WrapUse> {
        let mut out = Vec::new();
        for hook in &self.list {
            for h in &hook.handlers {
                for w in &h.wraps {
                    let (calls, nexts) = w.counts.call::<(u64, u64)>(()).unwrap_or((0, 0));
                    out.push(WrapUse {
                        hook: hook.spec.name.to_string(),
                        id: h.id.clone().unwrap_or_default(),
                        origin: w.origin.clone(),
                        calls,
                        nexts,
                    });
                }
            }
        }
        out
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

/// Where `func` is defined: `rules/jump.luau:12`.
fn origin_of(func: &Function) -> String {
    let info = func.info();
    format!(
        "{}:{}",
        info.short_src.unwrap_or_else(|| "?".to_string()),
        info.line_defined.unwrap_or(0)
    )
}

/// `s` as a string, or an error naming the argument.
fn string_arg(lua: &Lua, v: &Value, call: &str, what: &str) -> mlua::Result<String> {
    match v {
        Value::String(s) => Ok(s.to_string_lossy()),
        other => Err(at_caller(
            lua,
            format!(
                "{call}: {what} must be a string, got {} (write hooks.{}, not hooks:{})",
                describe(other),
                call.trim_start_matches("hooks."),
                call.trim_start_matches("hooks.")
            ),
        )),
    }
}

fn function_arg(lua: &Lua, v: Value, call: &str) -> mlua::Result<Function> {
    match v {
        Value::Function(f) => Ok(f),
        other => Err(at_caller(
            lua,
            format!(
                "{call}: the handler must be a function, got {}",
                describe(&other)
            ),
        )),
    }
}

/// One id or a list of ids (`before = "a"` or `before = { "a", "b" }`).
fn id_list(lua: &Lua, v: Value, call: &str, key: &str) -> mlua::Result<Vec<String>> {
    match v {
        Value::Nil => Ok(Vec::new()),
        Value::String(s) => Ok(vec![s.to_string_lossy()]),
        Value::Table(t) => t
            .sequence_values::<Value>()
            .map(|v| string_arg(lua, &v?, call, &format!("each of {key}")))
            .collect(),
        other => Err(at_caller(
            lua,
            format!(
                "{call}: {key} must be a handler id or a list of them, got {}",
                describe(&other)
            ),
        )),
    }
}

/// The options of `hooks.on(name, fn, { id =, before =, after =, fixed =, during = })`.
struct Options {
    id: Option<String>,
    before: Vec<String>,
    after: Vec<String>,
    fixed: bool,
    during: Option<Box<[Box<str>]>>,
}

/// `during = { "movement", ... }`: a non-empty list of the module's step ids, each
/// given as the module spells it (ids are matched without case, as names are).
fn step_list(
    lua: &Lua,
    v: Value,
    call: &str,
    steps: &Steps,
) -> mlua::Result<Option<Box<[Box<str>]>>> {
    let known = || {
        steps
            .ids
            .as_ref()
            .map(|ids| format!(" (the module's steps: {})", ids.join(", ")))
            .unwrap_or_default()
    };
    let t = match v {
        Value::Nil => return Ok(None),
        Value::Table(t) => t,
        other => {
            return Err(at_caller(
                lua,
                format!(
                    "{call}: the option 'during' must be a list of step ids, like {{ \"movement\" }}, got {}{}",
                    describe(&other),
                    known()
                ),
            ));
        }
    };
    let n = t.raw_len();
    let mut out: Vec<Box<str>> = Vec::with_capacity(n);
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair?;
        let in_list =
            matches!(k, Value::Integer(i) if i >= 1 && usize::try_from(i).is_ok_and(|i| i <= n));
        if !in_list {
            return Err(at_caller(
                lua,
                format!(
                    "{call}: the option 'during' must be a list of step ids, like {{ \"movement\" }}, not a table keyed by {}{}",
                    describe(&k),
                    known()
                ),
            ));
        }
    }
    for i in 1..=n {
        let name = match t.raw_get::<Value>(i)? {
            Value::String(s) => s.to_string_lossy(),
            other => {
                return Err(at_caller(
                    lua,
                    format!(
                        "{call}: each step of 'during' must be a step id (a string), got {}{}",
                        describe(&other),
                        known()
                    ),
                ));
            }
        };
        let id = match &steps.ids {
            None => name,
            Some(ids) => match ids.iter().find(|id| id.eq_ignore_ascii_case(&name)) {
                Some(id) => id.clone(),
                None if steps.check.get() => {
                    let hint = did_you_mean(&name, ids.iter().map(String::as_str))
                        .map(|h| format!("; {h}"))
                        .unwrap_or_default();
                    return Err(at_caller(
                        lua,
                        format!(
                            "{call}: 'during' names '{name}', a step the module does not have{hint}{}",
                            known()
                        ),
                    ));
                }
                None => name,
            },
        };
        out.push(id.into_boxed_str());
    }
    if out.is_empty() {
        return Err(at_caller(
            lua,
            format!(
                "{call}: the option 'during' is an empty list, so the handler would never be called: name the steps it acts in{}, or leave 'during' out to call it in every step",
                known()
            ),
        ));
    }
    Ok(Some(out.into_boxed_slice()))
}

fn handler_options(lua: &Lua, v: Value, call: &str, steps: &Steps) -> mlua::Result<Options> {
    let t = match v {
        Value::Nil => {
            return Ok(Options {
                id: None,
                before: Vec::new(),
                after: Vec::new(),
                fixed: false,
                during: None,
            });
        }
        Value::Table(t) => t,
        other => {
            return Err(at_caller(
                lua,
                format!(
                    "{call}: the third argument must be a table like {{ id = \"my-mod.rule\" }}, got {}",
                    describe(&other)
                ),
            ));
        }
    };
    const KEYS: [&str; 5] = ["id", "before", "after", "fixed", "during"];
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair?;
        let key = match &k {
            Value::String(s) => s.to_string_lossy(),
            other => describe(other).to_string(),
        };
        if !KEYS.contains(&key.as_str()) {
            let hint = did_you_mean(&key, KEYS)
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(at_caller(
                lua,
                format!("{call}: unknown option '{key}' (id, before, after, fixed, during){hint}"),
            ));
        }
    }
    let id = match t.raw_get::<Value>("id")? {
        Value::Nil => None,
        v => Some(string_arg(lua, &v, call, "id")?),
    };
    let before = id_list(lua, t.raw_get("before")?, call, "before")?;
    let after = id_list(lua, t.raw_get("after")?, call, "after")?;
    let fixed = match t.raw_get::<Value>("fixed")? {
        Value::Nil => false,
        Value::Boolean(b) => b,
        other => {
            return Err(at_caller(
                lua,
                format!(
                    "{call}: the option 'fixed' must be true or false, got {}",
                    describe(&other)
                ),
            ));
        }
    };
    let during = step_list(lua, t.raw_get("during")?, call, steps)?;
    Ok(Options {
        id,
        before,
        after,
        fixed,
        during,
    })
}

/// The options of `hooks.replace(id, fn, { during = })`: the replacement's own steps.
fn replace_options(
    lua: &Lua,
    v: Value,
    call: &str,
    steps: &Steps,
) -> mlua::Result<Option<Box<[Box<str>]>>> {
    let t = match v {
        Value::Nil => return Ok(None),
        Value::Table(t) => t,
        other => {
            return Err(at_caller(
                lua,
                format!(
                    "{call}: the third argument must be a table like {{ during = {{ \"movement\" }} }}, got {}",
                    describe(&other)
                ),
            ));
        }
    };
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair?;
        let key = match &k {
            Value::String(s) => s.to_string_lossy(),
            other => describe(other).to_string(),
        };
        if key != "during" {
            let hint = did_you_mean(&key, ["during"])
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(at_caller(
                lua,
                format!(
                    "{call}: unknown option '{key}' (a replacement takes only during: its id and place are the handler's){hint}"
                ),
            ));
        }
    }
    step_list(lua, t.raw_get("during")?, call, steps)
}

impl Hooks {
    /// The hook and position of the handler called `id`.
    fn locate(&self, id: &str) -> Option<(usize, usize)> {
        self.list.iter().enumerate().find_map(|(h, hook)| {
            hook.handlers
                .iter()
                .position(|x| x.id.as_deref() == Some(id))
                .map(|i| (h, i))
        })
    }

    /// An error for an id no handler has, with the closest ids there are.
    fn unknown_id(&self, lua: &Lua, call: &str, id: &str) -> mlua::Error {
        let ids: Vec<&str> = self
            .list
            .iter()
            .flat_map(|h| h.handlers.iter().filter_map(|x| x.id.as_deref()))
            .collect();
        let hint = did_you_mean_any(id, ids.iter().copied())
            .map(|h| format!("; {h}"))
            .unwrap_or_else(|| {
                " (handlers are named by the third argument of hooks.on, e.g. { id = \"ahd.may-enter\" }, and a base module's load before its overlays')".to_string()
            });
        at_caller(lua, format!("{call}('{id}'): no handler has this id{hint}"))
    }

    /// Puts every hook's handlers in their final order: registration order, moved only
    /// as far as `before`/`after` require (a stable topological sort). Called once, when
    /// the load ends.
    pub(crate) fn resolve(&mut self) -> Result<(), ScriptError> {
        if crate::profile::on() {
            for hook in &self.list {
                for handler in &hook.handlers {
                    let id = handler.id.as_deref().unwrap_or("(no id)");
                    crate::profile::name_handler(
                        &handler.origin,
                        format!("{} {id}", hook.spec.name),
                    );
                }
            }
        }
        for h in 0..self.list.len() {
            for handler in &self.list[h].handlers {
                for id in handler.before.iter().chain(&handler.after) {
                    let here = self.list[h]
                        .handlers
                        .iter()
                        .any(|x| x.id.as_deref() == Some(id.as_str()));
                    if !here {
                        let message = match self.locate(id) {
                            Some((other, _)) => format!(
                                "handler {} of '{}' is ordered against '{id}', a handler of '{}': order only handlers of one hook",
                                handler.id.as_deref().unwrap_or("(no id)"),
                                self.list[h].spec.name,
                                self.list[other].spec.name
                            ),
                            None => format!(
                                "handler {} of '{}' is ordered against '{id}', which no handler of that hook has{}",
                                handler.id.as_deref().unwrap_or("(no id)"),
                                self.list[h].spec.name,
                                did_you_mean(
                                    id,
                                    self.list[h].handlers.iter().filter_map(|x| x.id.as_deref())
                                )
                                .map(|s| format!("; {s}"))
                                .unwrap_or_default()
                            ),
                        };
                        return Err(ScriptError::Load {
                            file: handler.ordered_at.clone(),
                            message,
                        });
                    }
                }
            }
            let hook = &mut self.list[h];
            let order = stable_order(&hook.handlers).map_err(|cycle| {
                let name = |i: usize| hook.handlers[i].id.as_deref().unwrap_or("(no id)");
                // Each step, with where the order that makes it is written: `a -> b` is
                // a's `before` or b's `after`.
                let orders: Vec<String> = cycle
                    .windows(2)
                    .map(|w| {
                        let (a, b) = (&hook.handlers[w[0]], &hook.handlers[w[1]]);
                        if b.id.as_ref().is_some_and(|id| a.before.contains(id)) {
                            format!("{} before {} at {}", name(w[0]), name(w[1]), a.ordered_at)
                        } else {
                            format!("{} after {} at {}", name(w[1]), name(w[0]), b.ordered_at)
                        }
                    })
                    .collect();
                ScriptError::Load {
                    file: hook.handlers[cycle[0]].ordered_at.clone(),
                    message: format!(
                        "the handlers of '{}' are ordered in a cycle: {} ({})",
                        hook.spec.name,
                        cycle
                            .iter()
                            .map(|&i| name(i))
                            .collect::<Vec<_>>()
                            .join(" -> "),
                        orders.join("; ")
                    ),
                }
            })?;
            let mut slots: Vec<Option<Handler>> = std::mem::take(&mut hook.handlers)
                .into_iter()
                .map(Some)
                .collect();
            hook.handlers = order.into_iter().filter_map(|i| slots[i].take()).collect();
            hook.sort_by_step();
        }
        Ok(())
    }
}

/// The handlers' order: at each point the earliest-registered handler whose
/// predecessors have all run. `Err` holds a cycle (indices).
fn stable_order(handlers: &[Handler]) -> Result<Vec<usize>, Vec<usize>> {
    let n = handlers.len();
    let index = |id: &str| handlers.iter().position(|x| x.id.as_deref() == Some(id));
    // edges[a] contains b: a runs before b.
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut preds = vec![0usize; n];
    for (i, h) in handlers.iter().enumerate() {
        for b in h.before.iter().filter_map(|id| index(id)) {
            edges[i].push(b);
            preds[b] += 1;
        }
        for a in h.after.iter().filter_map(|id| index(id)) {
            edges[a].push(i);
            preds[i] += 1;
        }
    }
    let mut done = vec![false; n];
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let Some(next) = (0..n).find(|&i| !done[i] && preds[i] == 0) else {
            // Every handler left has a predecessor left: walk back along them to a cycle.
            let mut at = (0..n).find(|&i| !done[i]).unwrap_or(0);
            let mut seen = Vec::new();
            while !seen.contains(&at) {
                seen.push(at);
                at = (0..n)
                    .find(|&p| !done[p] && edges[p].contains(&at))
                    .unwrap_or(at);
            }
            let start = seen.iter().position(|&x| x == at).unwrap_or(0);
            let mut cycle: Vec<usize> = seen[start..].to_vec();
            cycle.reverse();
            // From the earliest-registered handler, so the message is the same every time.
            let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
            cycle.rotate_left(first);
            cycle.push(cycle[0]);
            return Err(cycle);
        };
        done[next] = true;
        out.push(next);
        for &b in &edges[next] {
            preds[b] -= 1;
        }
    }
    Ok(out)
}

/// The `hooks` table scripts see while loading:
/// - `hooks.on(name, fn [, { id =, before =, after =, fixed =, during = }])` registers a
///   handler, optionally named so that other modules can compose with it, and ordered
///   against others; `fixed = true` declares its answers fixed for a battle
///   (`Rules::fixed`); `during = { step ids }` has it called only while the game is at
///   one of those steps (a hook none of whose handlers is left costs no call at all);
/// - `hooks.replace(id, fn [, { during = }])`: `fn` takes the named handler's place
///   (same hook, same position, same id; not its `fixed` nor its `during`, promises
///   about other code: a replacement declares its own steps or is called in every one);
/// - `hooks.wrap(id, fn)`: `fn(next, ...)` takes its place, with `next` the handler it
///   wraps, so a house rule can widen or narrow an answer (its `fixed` goes likewise;
///   its `during` stays, so `next` is never called outside its steps: a rule for other
///   steps is a handler of its own);
/// - `hooks.remove(id)`: the handler is gone.
///
/// A base module's scripts load before its overlays', so an overlay names handlers that
/// exist. Once `open` is cleared (the load is over) every call fails, even through a
/// saved reference.
pub(crate) fn hooks_table(
    lua: &Lua,
    hooks: Rc<RefCell<Hooks>>,
    open: Rc<Cell<bool>>,
    steps: Rc<Steps>,
) -> mlua::Result<Table> {
    let closed = |lua: &Lua, call: &str| {
        at_caller(
            lua,
            format!("{call}: handlers can only be registered while the rules load"),
        )
    };
    let table = lua.create_table()?;

    let (h, o, st) = (Rc::clone(&hooks), Rc::clone(&open), Rc::clone(&steps));
    let on = lua.create_function(move |lua, (name, func, opts): (Value, Value, Value)| {
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
        if !o.get() {
            return Err(closed(lua, &format!("hooks.on('{name}')")));
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
        let Options {
            id,
            before,
            after,
            fixed,
            during,
        } = handler_options(lua, opts, &format!("hooks.on('{name}')"), &st)?;
        let mut hooks = h.borrow_mut();
        let Some(&i) = hooks.index.get(name.as_str()) else {
            return Err(mlua::Error::external(hooks.unknown(&name, caller(lua))));
        };
        if let Some(id) = &id
            && let Some((other, at)) = hooks.locate(id)
        {
            return Err(at_caller(
                lua,
                format!(
                    "hooks.on('{name}'): the id '{id}' is taken by the handler of '{}' at {}; ids name one handler each",
                    hooks.list[other].spec.name, hooks.list[other].handlers[at].origin
                ),
            ));
        }
        let origin = origin_of(&func);
        let ordered_at = caller(lua).trim_end_matches(": ").to_string();
        hooks.list[i].handlers.push(Handler {
            func,
            origin,
            id,
            before,
            after,
            ordered_at,
            replaced_at: None,
            fixed,
            during,
            wraps: Vec::new(),
        });
        Ok(())
    })?;
    table.raw_set("on", on)?;

    let (h, o, st) = (Rc::clone(&hooks), Rc::clone(&open), steps);
    let replace = lua.create_function(move |lua, (id, func, opts): (Value, Value, Value)| {
        let id = string_arg(lua, &id, "hooks.replace", "the first argument (a handler id)")?;
        let call = format!("hooks.replace('{id}')");
        if !o.get() {
            return Err(closed(lua, &call));
        }
        let func = function_arg(lua, func, &call)?;
        let during = replace_options(lua, opts, &call, &st)?;
        let mut hooks = h.borrow_mut();
        let Some((hook, at)) = hooks.locate(&id) else {
            return Err(hooks.unknown_id(lua, "hooks.replace", &id));
        };
        let here = caller(lua);
        let here = here.trim_end_matches(": ").to_string();
        let handler = &mut hooks.list[hook].handlers[at];
        if let Some(first) = &handler.replaced_at {
            return Err(at_caller(
                lua,
                format!(
                    "{call}: it was replaced already at {first}; two replacements of one handler clobber each other: wrap it instead (hooks.wrap), or drop one"
                ),
            ));
        }
        handler.origin = origin_of(&func);
        handler.func = func;
        handler.replaced_at = Some(here);
        handler.fixed = false;
        handler.during = during;
        handler.wraps.clear();
        Ok(())
    })?;
    table.raw_set("replace", replace)?;

    // `compose(w, n)` is `function(...) return w(n, ...) end`, made in Luau so that a
    // wrapped handler costs a Lua call or two more, not a trip through Rust; it counts
    // the wrapper's calls and its `next`'s, read by the second function it returns.
    let compose: Function = lua
        .load(
            "return function(w, n)\n\
             local calls, nexts = 0, 0\n\
             local function next(...) nexts += 1 return n(...) end\n\
             return function(...) calls += 1 return w(next, ...) end, function() return calls, nexts end\n\
             end",
        )
        .set_name("=muster")
        .call(())?;
    let (h, o) = (Rc::clone(&hooks), Rc::clone(&open));
    let wrap = lua.create_function(move |lua, (id, func): (Value, Value)| {
        let id = string_arg(lua, &id, "hooks.wrap", "the first argument (a handler id)")?;
        let call = format!("hooks.wrap('{id}')");
        if !o.get() {
            return Err(closed(lua, &call));
        }
        let func = function_arg(lua, func, &call)?;
        let mut hooks = h.borrow_mut();
        let Some((hook, at)) = hooks.locate(&id) else {
            return Err(hooks.unknown_id(lua, "hooks.wrap", &id));
        };
        let handler = &mut hooks.list[hook].handlers[at];
        let origin = origin_of(&func);
        let (wrapped, counts): (Function, Function) = compose.call((func, handler.func.clone()))?;
        handler.func = wrapped;
        handler.wraps.push(Wrap {
            origin: origin.clone(),
            counts,
        });
        handler.origin = origin;
        handler.fixed = false;
        Ok(())
    })?;
    table.raw_set("wrap", wrap)?;

    let (h, o) = (hooks, open);
    let remove = lua.create_function(move |lua, id: Value| {
        let id = string_arg(lua, &id, "hooks.remove", "the argument (a handler id)")?;
        if !o.get() {
            return Err(closed(lua, &format!("hooks.remove('{id}')")));
        }
        let mut hooks = h.borrow_mut();
        let Some((hook, at)) = hooks.locate(&id) else {
            return Err(hooks.unknown_id(lua, "hooks.remove", &id));
        };
        hooks.list[hook].handlers.remove(at);
        Ok(())
    })?;
    table.raw_set("remove", remove)?;

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
