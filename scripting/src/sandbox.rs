//! [`Sandbox`]: one locked-down Lua state per loaded rules bundle, and the hook calls.

use std::cell::{Cell, RefCell};
use std::path::Path;
use std::rc::Rc;

use mlua::{IntoLuaMulti, Lua, LuaOptions, MultiValue, Scope, Table, Value};
use muster_core::Module;

use crate::budget::{Limits, Meter};
use crate::defs;
use crate::error::{Context, LOADING, ScriptError, classify};
use crate::hooks::{Answer, Handler, HookKind, HookSpec, Hooks, Steps, hooks_table};
use crate::require::Modules;
use crate::stdlib::{self, Output, Rng};
use crate::value::{Converter, ScriptCommand, describe};

/// A loaded rules bundle, ready to answer hooks.
///
/// Loading is a pure constructor: it reads the scripts, runs their top-level code and
/// either returns a complete sandbox or an error. Nothing is shared between sandboxes, so
/// a caller reloading edited scripts keeps its last good `Sandbox` when the new load fails.
///
/// A `Sandbox` is `!Send`: each thread that needs rules (an AI worker, say) loads its own.
pub struct Sandbox {
    hooks: Hooks,
    meter: Rc<Meter>,
    limits: Limits,
    output: Rc<RefCell<Output>>,
    /// Each question handler's answer, while tracing (`set_trace`): which rule said no.
    trace: RefCell<Option<Vec<Traced>>>,
    /// Keeps the roots alive: each root's `require` holds only a weak reference.
    _modules: Rc<Modules>,
    /// mlua's error handler, for questions' handlers called on the stack
    /// ([`crate::quick`]); `None` sends them through `Function::call`.
    quick: Option<mlua::Function>,
    /// Last, so that every reference into it is dropped before the state closes.
    lua: Lua,
}

impl Sandbox {
    /// Loads the entry script `entry` (e.g. `rules/init.luau`) of the module folder
    /// `module_dir`, with an empty `defs`. Handlers may register only for `catalogue` hooks.
    pub fn load(
        module_dir: &Path,
        entry: &str,
        catalogue: &[HookSpec],
        limits: Limits,
        rng: Rng,
    ) -> Result<Self, ScriptError> {
        Self::build(&[(module_dir, entry, None)], None, catalogue, limits, rng)
    }

    /// Loads several rules folders in order, each `(folder, entry)`, as a base module and
    /// its overlays are loaded, with an empty `defs`.
    pub fn load_stack(
        roots: &[(&Path, &str)],
        catalogue: &[HookSpec],
        limits: Limits,
        rng: Rng,
    ) -> Result<Self, ScriptError> {
        let roots: Vec<(&Path, &str, Option<&str>)> = roots
            .iter()
            .map(|&(dir, entry)| (dir, entry, None))
            .collect();
        Self::build(&roots, None, catalogue, limits, rng)
    }

    /// Loads every rules entry of `module` (a base module's first, then its overlays',
    /// each resolving `require` in its own folder), with `defs` describing `module`.
    /// Messages name each file by its module's id (`ahd-house/rules/init.luau:3`).
    pub fn load_module(
        module: &Module,
        catalogue: &[HookSpec],
        limits: Limits,
        rng: Rng,
    ) -> Result<Self, ScriptError> {
        let entries: Vec<Entry<'_>> = module
            .scripts
            .iter()
            .map(|s| (s.dir.as_path(), s.entry.as_str(), Some(s.module.as_str())))
            .collect();
        Self::build(&entries, Some(module), catalogue, limits, rng)
    }

    fn build(
        entries: &[Entry<'_>],
        module: Option<&Module>,
        catalogue: &[HookSpec],
        limits: Limits,
        rng: Rng,
    ) -> Result<Self, ScriptError> {
        let hooks = Hooks::new(catalogue).map_err(|message| ScriptError::Load {
            file: "(hook catalogue)".to_string(),
            message,
        })?;
        let meter = Meter::new(&limits);
        let fail = |e: mlua::Error| {
            classify(
                &e,
                &Context {
                    hook: LOADING,
                    handler: "",
                    budget: meter.spent(),
                    memory_limit: limits.memory_bytes,
                },
            )
        };
        let lua = Lua::new_with(stdlib::libs(), LuaOptions::default()).map_err(fail)?;
        // Before any chunk loads: mlua compiles each chunk as it loads when this is on.
        // A profile is of interpreted rules: its counts are the interpreter's interrupts,
        // the same on every machine.
        let native = limits.native_code && !crate::profile::on();
        lua.enable_jit(native);
        if native {
            // Luau's level 2 inlines small local functions (AHD's `side_of`, `enemy_in`...
            // in every handler) and unrolls small loops: 4% fewer instructions in a random
            // game, the same answers. Only for native loads: checks, tests, replays and
            // profiles compile at mlua's level 1, so a profile still counts every call,
            // `muster check` still sees every local function a handler reaches, and a
            // traceback keeps every frame.
            lua.set_compiler(mlua::chunk::Compiler::new().set_optimization_level(2));
        }
        lua.set_memory_limit(limits.memory_bytes).map_err(fail)?;
        // Collect when the heap reaches four times what was live (Luau's default is
        // twice): the rules' heap is small against the limit, and hooks called millions
        // of times in a search spent a twentieth of the time collecting.
        lua.gc_set_mode(mlua::state::GcMode::Incremental(
            mlua::state::GcIncParams::default().goal(400),
        ));
        let output = Rc::new(RefCell::new(Output::default()));
        let defs = defs::build(&lua, module).map_err(fail)?;
        stdlib::lock_down(&lua, rng, Rc::clone(&output), defs).map_err(fail)?;
        let quick = crate::quick::error_handler(&lua);

        let open = Rc::new(Cell::new(true));
        let hooks = Rc::new(RefCell::new(hooks));
        let steps = Rc::new(Steps {
            ids: module.map(|m| {
                let c = &m.calendar;
                c.steps
                    .iter()
                    .chain(&c.turn_end)
                    .map(|s| s.id.clone())
                    .collect()
            }),
            check: Cell::new(false),
        });
        let on = hooks_table(&lua, Rc::clone(&hooks), Rc::clone(&open), Rc::clone(&steps))
            .map_err(fail)?;
        let modules = Modules::new();
        for (dir, _, module_id) in entries {
            let env = stdlib::script_env(&lua).map_err(fail)?;
            env.raw_set("hooks", on.clone()).map_err(fail)?;
            modules.add_root(&lua, dir, *module_id, env)?;
        }
        lua.sandbox(true).map_err(fail)?;
        meter.install(&lua).map_err(fail)?;

        for (root, (_, entry, module_id)) in entries.iter().enumerate() {
            // `during` names steps of the stack's calendar: checked in the top module's
            // files, while a base's may name a step its overlay removed.
            steps.check.set(root + 1 == entries.len());
            meter.reset();
            meter.note_where(true);
            let result = modules.load_entry(&lua, root, entry);
            let seen_at = meter.seen_at();
            meter.note_where(false);
            if let Some(why) = meter.spent() {
                return Err(ScriptError::Budget {
                    hook: LOADING.to_string(),
                    handler: String::new(),
                    message: why,
                });
            }
            result.map_err(|e| match fail(e) {
                ScriptError::Memory {
                    hook,
                    handler,
                    limit,
                    message,
                } if handler.is_empty() => ScriptError::Memory {
                    hook,
                    // Ran out before it was first seen: at least the file it began in.
                    handler: seen_at.clone().unwrap_or_else(|| {
                        let prefix = module_id.map(|m| format!("{m}/")).unwrap_or_default();
                        format!(
                            "{prefix}{} or a file it requires",
                            entry.trim_start_matches("./")
                        )
                    }),
                    limit,
                    message,
                },
                other => other,
            })?;
        }

        // The load is over: no more handlers, no more files, and `hooks` is a table that
        // says so at the line that reads it (nil would say "attempt to index nil").
        open.set(false);
        modules.open.set(false);
        let gone = hooks_gone(&lua).map_err(fail)?;
        for root in 0..entries.len() {
            if let Some(env) = modules.env(root) {
                env.raw_set("hooks", gone.clone()).map_err(fail)?;
            }
        }
        let mut hooks = std::mem::take(&mut *hooks.borrow_mut());
        hooks.resolve()?;
        Ok(Self {
            hooks,
            meter,
            limits,
            output,
            trace: RefCell::new(None),
            _modules: modules,
            quick,
            lua,
        })
    }

    /// Every `hooks.wrap` of the rules and how often it ran and called `next`.
    pub fn wraps(&self) -> Vec<crate::hooks::WrapUse> {
        self.hooks.wraps()
    }

    /// Where every Lua function the remaining handlers can reach is defined, as
    /// `(chunk, line)` (`("ahd/rules/turns.luau", 11)`): the handlers themselves and what
    /// they hold, through upvalues, tables and metatables. Code outside these (and
    /// outside top-level code) belongs to handlers a mod removed or replaced, and never
    /// runs: `muster check` does not warn of what it reads.
    pub fn reachable_functions(&self) -> std::collections::BTreeSet<(String, usize)> {
        /// Values looked at, at most: a huge `defs` copy is not worth more.
        const MAX_SEEN: usize = 1 << 20;
        let mut out = std::collections::BTreeSet::new();
        let mut seen: std::collections::HashSet<usize> = Default::default();
        let mut todo: Vec<Value> = Vec::new();
        for hook in &self.hooks.list {
            todo.extend(
                hook.handlers
                    .iter()
                    .map(|h| Value::Function(h.func.clone())),
            );
        }
        while let Some(v) = todo.pop() {
            if seen.len() >= MAX_SEEN {
                break;
            }
            match &v {
                Value::Table(t) => {
                    if !seen.insert(t.to_pointer() as usize) {
                        continue;
                    }
                    for (k, v) in t.pairs::<Value, Value>().flatten() {
                        todo.extend([k, v]);
                    }
                    if let Some(m) = t.metatable() {
                        todo.push(Value::Table(m));
                    }
                }
                Value::Function(f) => {
                    if !seen.insert(f.to_pointer() as usize) {
                        continue;
                    }
                    let info = f.info();
                    if info.what == "C" {
                        continue;
                    }
                    if let (Some(src), Some(line)) = (info.short_src, info.line_defined) {
                        out.insert((src, line));
                    }
                    todo.extend(upvalues(&self.lua, f));
                }
                _ => {}
            }
        }
        out
    }

    /// Asks a question hook at no step (a handler declared `during` some steps is not
    /// called). Each handler gets `args`; answers combine by the hook's rule.
    pub fn question(&mut self, hook: &str, args: impl IntoLuaMulti) -> Result<Answer, ScriptError> {
        let slot = self.hooks.find(hook, true)?;
        match self.to_ask(slot, None) {
            Ok(handlers) => self.ask(slot, handlers, args),
            Err(answer) => Ok(answer),
        }
    }

    /// Asks a question whose arguments borrow engine state: `build` makes them inside a
    /// [`Lua::scope`], typically as scoped userdata over `&`-references
    /// (`scope.create_userdata_ref(&view)`). Such values are invalidated when the call
    /// returns; a script that kept one gets an error if it uses it later.
    ///
    /// `step` is the step the game is at: a handler declared `during` other steps is not
    /// called, and with none left no scope is opened and `build` is not called (the
    /// answer is the combine rule's, as with no handler). The same in every call below.
    pub fn question_with<'env>(
        &mut self,
        hook: &str,
        step: Option<&str>,
        build: impl for<'s> FnOnce(&Lua, &'s Scope<'s, 'env>) -> mlua::Result<MultiValue>,
    ) -> Result<Answer, ScriptError> {
        let slot = self.hooks.find(hook, true)?;
        let handlers = match self.to_ask(slot, step) {
            Ok(handlers) => handlers,
            Err(answer) => return Ok(answer),
        };
        let this = &*self;
        this.lua
            .scope(|scope| {
                let args = build(&this.lua, scope)?;
                Ok(this.ask(slot, handlers, args))
            })
            .unwrap_or_else(|e| Err(this.fail(hook, "", &e)))
    }

    /// Opens one [`Lua::scope`] for several questions whose arguments borrow the same
    /// engine state: `body` makes the scoped values once (a `game` view over the
    /// state, as in [`Sandbox::question_with`]) and asks through [`Session::question`].
    /// A question then costs its handlers' calls, not a scope and a view of its own.
    pub fn session<'env, R>(
        &mut self,
        step: Option<&str>,
        body: impl for<'s> FnOnce(&Session<'_>, &'s Scope<'s, 'env>) -> mlua::Result<R>,
    ) -> Result<R, ScriptError> {
        let this = &*self;
        this.lua
            .scope(|scope| {
                body(
                    &Session {
                        sandbox: this,
                        step,
                    },
                    scope,
                )
            })
            .map_err(|e| this.fail("", "", &e))
    }

    /// Fires an event hook at no step (as [`Sandbox::question`]); returns the commands
    /// of every handler, in order.
    pub fn event(
        &mut self,
        hook: &str,
        args: impl IntoLuaMulti,
    ) -> Result<Vec<ScriptCommand>, ScriptError> {
        let slot = self.hooks.find(hook, false)?;
        if self.hooks.list[slot].at(None).is_empty() {
            return Ok(Vec::new());
        }
        self.fire(slot, None, args)
    }

    /// Whether calling `hook` at `step` would do anything: a handler is there to call,
    /// or the hook is unknown (the call then says so).
    pub fn calls(&self, hook: &str, step: Option<&str>) -> bool {
        self.hooks.get(hook).is_none_or(|h| !h.at(step).is_empty())
    }

    /// [`Sandbox::event`] with scoped arguments, at `step`, as in
    /// [`Sandbox::question_with`].
    pub fn event_with<'env>(
        &mut self,
        hook: &str,
        step: Option<&str>,
        build: impl for<'s> FnOnce(&Lua, &'s Scope<'s, 'env>) -> mlua::Result<MultiValue>,
    ) -> Result<Vec<ScriptCommand>, ScriptError> {
        let slot = self.hooks.find(hook, false)?;
        if self.hooks.list[slot].at(step).is_empty() {
            return Ok(Vec::new());
        }
        let this = &*self;
        this.lua
            .scope(|scope| {
                let args = build(&this.lua, scope)?;
                Ok(this.fire(slot, step, args))
            })
            .unwrap_or_else(|e| Err(this.fail(hook, "", &e)))
    }

    /// Calls every handler of a list hook (`Combine::Concat`: `offers`, `evacuations`)
    /// with scoped arguments, as in [`Sandbox::question_with`]; each returns nil or a
    /// list, whose items `item` reads (inside the scope, straight from Lua: no copy);
    /// the lists are joined in handler order.
    pub fn list_with<'env, T>(
        &mut self,
        hook: &str,
        step: Option<&str>,
        build: impl for<'s> FnOnce(&Lua, &'s Scope<'s, 'env>) -> mlua::Result<MultiValue>,
        item: impl FnMut(&Value) -> Result<T, String>,
    ) -> Result<Vec<T>, ScriptError> {
        self.list_bulk_with(hook, step, build, |_, _, _| 0, item)
    }

    /// [`Sandbox::list_with`], where `bulk` first reads what it can of each list in one
    /// pass: given the list, its length and the items so far, it adds the list's leading
    /// items it reads and answers how many; `item` reads the rest, one by one.
    pub fn list_bulk_with<'env, T>(
        &mut self,
        hook: &str,
        step: Option<&str>,
        build: impl for<'s> FnOnce(&Lua, &'s Scope<'s, 'env>) -> mlua::Result<MultiValue>,
        mut bulk: impl FnMut(&Table, usize, &mut Vec<T>) -> usize,
        mut item: impl FnMut(&Value) -> Result<T, String>,
    ) -> Result<Vec<T>, ScriptError> {
        let slot = self.hooks.find(hook, true)?;
        let handlers = self.hooks.list[slot].at(step);
        if handlers.is_empty() {
            return Ok(Vec::new());
        }
        let this = &*self;
        this.lua
            .scope(|scope| {
                let args = build(&this.lua, scope)?;
                let mut out = Vec::new();
                let done = this.each_handler(hook, handlers, args, |handler, ret| {
                    let list = match ret {
                        Value::Nil => return Ok(false),
                        Value::Table(t) => t,
                        other => {
                            let message = format!(
                                "returned {}; this hook returns nil or a list",
                                crate::value::describe(&other)
                            );
                            return Err(bad_return(hook, handler, message));
                        }
                    };
                    let n = list.raw_len();
                    let read = bulk(&list, n, &mut out);
                    for i in read + 1..=n {
                        let entry = match list.raw_get::<Value>(i) {
                            Ok(v) => item(&v).map_err(|m| format!("item #{i}: {m}")),
                            Err(e) => Err(e.to_string()),
                        };
                        out.push(entry.map_err(|message| bad_return(hook, handler, message))?);
                    }
                    Ok(false)
                });
                Ok(done.map(|()| out))
            })
            .unwrap_or_else(|e| Err(this.fail(hook, "", &e)))
    }

    /// Calls the handlers of a first-answer hook (`Combine::First`) in order until one
    /// returns something other than nil, which `read` reads inside the scope
    /// (`accepts_entry`'s reason, `referee_entry`'s entry); `None` when every handler
    /// returned nil. Arguments are scoped as in [`Sandbox::question_with`]; a value
    /// `read` refuses names the handler that returned it.
    pub fn first_with<'env, T>(
        &mut self,
        hook: &str,
        step: Option<&str>,
        build: impl for<'s> FnOnce(&Lua, &'s Scope<'s, 'env>) -> mlua::Result<MultiValue>,
        mut read: impl FnMut(&Value) -> Result<T, String>,
    ) -> Result<Option<T>, ScriptError> {
        let slot = self.hooks.find(hook, true)?;
        let handlers = self.hooks.list[slot].at(step);
        if handlers.is_empty() {
            return Ok(None);
        }
        let this = &*self;
        this.lua
            .scope(|scope| {
                let args = build(&this.lua, scope)?;
                let mut out = None;
                let done = this.each_handler(hook, handlers, args, |handler, ret| {
                    if ret.is_nil() {
                        return Ok(false);
                    }
                    out = Some(read(&ret).map_err(|m| bad_return(hook, handler, m))?);
                    Ok(true)
                });
                Ok(done.map(|()| out))
            })
            .unwrap_or_else(|e| Err(this.fail(hook, "", &e)))
    }

    /// How many handlers the scripts registered for `hook`.
    pub fn handler_count(&self, hook: &str) -> usize {
        self.hooks
            .list
            .iter()
            .find(|h| h.spec.name == hook)
            .map_or(0, |h| h.handlers.len())
    }

    /// Whether every handler of `hook` declared its answers fixed (`fixed = true`);
    /// true with no handler, whose answer is the combine rule's constant.
    pub fn all_fixed(&self, hook: &str) -> bool {
        self.hooks
            .list
            .iter()
            .find(|h| h.spec.name == hook)
            .is_none_or(|h| h.handlers.iter().all(|x| x.fixed))
    }

    /// What scripts printed since the last call (scripts never write to stdout).
    pub fn take_output(&mut self) -> Vec<String> {
        self.output.borrow_mut().take()
    }

    /// Everything scripts printed and nobody took yet, set aside (printing starts
    /// afresh) for [`Sandbox::restore_output`].
    pub(crate) fn set_aside_output(&mut self) -> Output {
        std::mem::take(&mut *self.output.borrow_mut())
    }

    /// Puts back output set aside, dropping what was printed since.
    pub(crate) fn restore_output(&mut self, output: Output) {
        *self.output.borrow_mut() = output;
    }

    /// The Lua state, to build arguments (tables, strings). Do not run code with it: only
    /// hook calls are metered.
    pub fn lua(&self) -> &Lua {
        &self.lua
    }

    /// Bytes used by the Lua heap.
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// The handlers of question `slot` to call at `step`, or, with none, its answer.
    fn to_ask(&self, slot: usize, step: Option<&str>) -> Result<&[Handler], Answer> {
        let hook = &self.hooks.list[slot];
        let handlers = hook.at(step);
        match hook.spec.kind {
            HookKind::Question(combine) if handlers.is_empty() => Err(Answer::identity(combine)),
            _ => Ok(handlers),
        }
    }

    /// Keeps a handler's answer while tracing (`set_trace`). Out of line: a question's
    /// handler call, asked hundreds of thousands of times a game, stays small.
    #[cold]
    #[inline(never)]
    fn traced(&self, hook: &'static str, handler: &Handler, ret: &Value) {
        if let Some(trace) = self.trace.borrow_mut().as_mut() {
            trace.push(Traced {
                hook,
                handler: handler.origin.clone(),
                id: handler.id.clone(),
                answer: traced_value(ret),
            });
        }
    }

    /// Asks question `slot` of `handlers` (those to call at the step).
    fn ask(
        &self,
        slot: usize,
        handlers: &[Handler],
        args: impl IntoLuaMulti,
    ) -> Result<Answer, ScriptError> {
        let hook = &self.hooks.list[slot];
        let HookKind::Question(combine) = hook.spec.kind else {
            return Ok(Answer::None);
        };
        let mut answer = Answer::identity(combine);
        let name = hook.spec.name;
        let take = |handler: &Handler, ret: Value| {
            if self.trace.borrow().is_some() {
                self.traced(name, handler, &ret);
            }
            answer
                .add(combine, &ret)
                .map_err(|message| bad_return(name, handler, message))
        };
        match &self.quick {
            Some(errh) => self.each_handler_quick(errh, name, handlers, args, take)?,
            None => self.each_handler(name, handlers, args, take)?,
        }
        Ok(answer)
    }

    /// [`Sandbox::each_handler`] for a question, with the handlers called on the stack
    /// ([`crate::quick::call_each`]): the same calls, budget, answers and errors.
    #[inline(always)]
    fn each_handler_quick(
        &self,
        errh: &mlua::Function,
        name: &str,
        handlers: &[Handler],
        args: impl IntoLuaMulti,
        mut take: impl FnMut(&Handler, Value) -> Result<bool, ScriptError>,
    ) -> Result<(), ScriptError> {
        self.meter.reset();
        if handlers.is_empty() {
            return Ok(());
        }
        let each = |i: usize, result: mlua::Result<Value>| {
            let handler = &handlers[i];
            take(handler, self.outcome(name, handler, result)?)
        };
        // SAFETY: the state is locked for the closure, and the handlers, the error
        // handler and the arguments are this sandbox's.
        let stopped = self.lua.exec_raw_lua(|raw| unsafe {
            crate::quick::call_each(raw, errh, handlers, args, each)
        });
        match stopped {
            Ok(()) => Ok(()),
            Err(crate::quick::Stop::Taken(e)) => Err(e),
            // As `each_handler`: one handler's arguments fail as its call; several
            // handlers' as their shared conversion.
            Err(crate::quick::Stop::Args(e)) => {
                let origin = match handlers {
                    [one] => one.origin.as_str(),
                    _ => "",
                };
                Err(self.fail(name, origin, &e))
            }
        }
    }

    /// Starts (`true`) or stops keeping each question handler's answer, for a modder
    /// who wants to see which rule decided (`muster moves --trace`). Off by default: it
    /// costs an allocation per handler call.
    pub fn set_trace(&mut self, on: bool) {
        *self.trace.get_mut() = on.then(Vec::new);
    }

    /// The answers kept since the last call, in the order the handlers ran.
    pub fn take_trace(&mut self) -> Vec<Traced> {
        self.taken_trace()
    }

    fn taken_trace(&self) -> Vec<Traced> {
        self.trace
            .borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn fire(
        &self,
        slot: usize,
        step: Option<&str>,
        args: impl IntoLuaMulti,
    ) -> Result<Vec<ScriptCommand>, ScriptError> {
        let hook = &self.hooks.list[slot];
        let name = hook.spec.name;
        let mut converter = Converter::new();
        let mut commands = Vec::new();
        self.each_handler(name, hook.at(step), args, |handler, ret| {
            let mut more = converter
                .commands(&self.lua, ret)
                .map_err(|message| bad_return(name, handler, message))?;
            for c in &mut more {
                c.handler.clone_from(&handler.origin);
            }
            commands.append(&mut more);
            Ok(false)
        })?;
        Ok(commands)
    }

    /// Calls `handlers` (of hook `name`, those to call at the step) in order with a
    /// fresh budget, passing each return value to `take` until it says the answer is
    /// settled. One handler gets `args` as they are (the common case, and the
    /// cheapest); several share one conversion.
    fn each_handler(
        &self,
        name: &str,
        handlers: &[Handler],
        args: impl IntoLuaMulti,
        mut take: impl FnMut(&Handler, Value) -> Result<bool, ScriptError>,
    ) -> Result<(), ScriptError> {
        self.meter.reset();
        match handlers {
            [] => Ok(()),
            [handler] => {
                let ret = self.call(name, handler, args)?;
                take(handler, ret).map(|_| ())
            }
            handlers => {
                let args = args
                    .into_lua_multi(&self.lua)
                    .map_err(|e| self.fail(name, "", &e))?;
                for handler in handlers {
                    let ret = self.call(name, handler, &args)?;
                    if take(handler, ret)? {
                        break;
                    }
                }
                Ok(())
            }
        }
    }

    /// Calls one handler. A spent budget fails the call even if the script caught the
    /// error and returned normally. Budget and memory stops name the handler.
    fn call(
        &self,
        hook: &str,
        handler: &Handler,
        args: impl IntoLuaMulti,
    ) -> Result<Value, ScriptError> {
        self.outcome(hook, handler, handler.func.call::<Value>(args))
    }

    /// A handler call's result as the engine takes it: a spent budget fails the call even
    /// if the script caught the error; any other error is located ([`Sandbox::fail`]).
    #[inline(always)]
    fn outcome(
        &self,
        hook: &str,
        handler: &Handler,
        result: mlua::Result<Value>,
    ) -> Result<Value, ScriptError> {
        if let Some(why) = self.meter.spent() {
            return Err(ScriptError::Budget {
                hook: hook.to_string(),
                handler: handler.origin.clone(),
                message: why,
            });
        }
        result.map_err(|e| self.fail(hook, &handler.origin, &e))
    }

    /// `handler` is the `file:line` of the handler that was running, or empty.
    fn fail(&self, hook: &str, handler: &str, e: &mlua::Error) -> ScriptError {
        let err = classify(
            e,
            &Context {
                hook,
                handler,
                budget: self.meter.spent(),
                memory_limit: self.limits.memory_bytes,
            },
        );
        if matches!(err, ScriptError::Memory { .. }) {
            // Start the next call from a clean heap. A failure here is reported next time.
            let _ = self.lua.gc_collect();
        }
        err
    }
}

/// Questions asked inside one scope ([`Sandbox::session`]), at one step.
pub struct Session<'a> {
    sandbox: &'a Sandbox,
    step: Option<&'a str>,
}

impl Session<'_> {
    /// The Lua state, to build arguments.
    pub fn lua(&self) -> &Lua {
        &self.sandbox.lua
    }

    /// Asks a question hook, as [`Sandbox::question_with`] does: `build` makes the
    /// arguments (only if a handler is there to answer).
    pub fn question<A: IntoLuaMulti>(
        &self,
        hook: &str,
        build: impl FnOnce(&Lua) -> mlua::Result<A>,
    ) -> Result<Answer, ScriptError> {
        let s = self.sandbox;
        let slot = s.hooks.find(hook, true)?;
        let handlers = match s.to_ask(slot, self.step) {
            Ok(handlers) => handlers,
            Err(answer) => return Ok(answer),
        };
        let args = build(&s.lua).map_err(|e| s.fail(hook, "", &e))?;
        s.ask(slot, handlers, args)
    }

    /// The answers kept since the last call, as [`Sandbox::take_trace`].
    pub fn take_trace(&self) -> Vec<Traced> {
        self.sandbox.taken_trace()
    }
}

/// One question handler's answer, kept while tracing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    pub hook: &'static str,
    /// `ahd/rules/movement.luau:128`: where the handler is defined.
    pub handler: String,
    /// Its id, if it has one (`ahd.may-enter`).
    pub id: Option<String>,
    /// `yes`, `no`, a number, or `nil`.
    pub answer: String,
}

fn traced_value(v: &Value) -> String {
    match v {
        Value::Boolean(true) => "yes".into(),
        Value::Boolean(false) => "no".into(),
        Value::Integer(i) => i.to_string(),
        Value::Nil => "nil".into(),
        other => describe(other).to_string(),
    }
}

/// A rules entry: its folder, its path there, and the id of the module it belongs to.
type Entry<'a> = (&'a Path, &'a str, Option<&'a str>);

fn bad_return(hook: &str, handler: &Handler, message: String) -> ScriptError {
    ScriptError::BadReturn {
        hook: hook.to_string(),
        handler: handler.origin.clone(),
        message,
    }
}

/// What `hooks` is once the rules have loaded: reading any field of it is an error at
/// the reading line, saying that `hooks` exists only while the rules load.
fn hooks_gone(lua: &Lua) -> mlua::Result<Table> {
    let gone = lua.create_table()?;
    let meta = lua.create_table()?;
    let index = lua.create_function(|lua, (_, key): (Value, Value)| -> mlua::Result<Value> {
        let key = match &key {
            Value::String(s) => s.to_string_lossy(),
            _ => "...".to_string(),
        };
        Err(crate::stdlib::at_caller(
            lua,
            format!(
                "hooks.{key}: `hooks` exists only while the rules load; call hooks.on, replace, wrap and remove at the top level of a rules file (or in a function it calls while loading), not inside a handler"
            ),
        ))
    })?;
    meta.raw_set("__index", index)?;
    meta.set_readonly(true);
    gone.set_metatable(Some(meta))?;
    gone.set_readonly(true);
    Ok(gone)
}

/// The values a Lua function closes over (none for a Rust function, or on error).
fn upvalues(lua: &Lua, f: &mlua::Function) -> Vec<Value> {
    // SAFETY: `exec_raw` hands over the state with `f` alone on the frame (index 1),
    // and reads back what the closure leaves there. `lua_getupvalue` only reads the
    // function and pushes a copy of one upvalue, with room made first; it returns null
    // past the last one. Nothing runs Lua code meanwhile.
    let values = unsafe {
        lua.exec_raw::<MultiValue>(f.clone(), |state| {
            let mut n = 1;
            while n <= 255
                && mlua::ffi::lua_checkstack(state, 1) != 0
                && !mlua::ffi::lua_getupvalue(state, 1, n).is_null()
            {
                n += 1;
            }
        })
    };
    // The first value is `f` itself.
    values.map_or_else(|_| Vec::new(), |v| v.into_iter().skip(1).collect())
}
