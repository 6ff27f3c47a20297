//! `muster test`: a module's rule tests, written in Luau by the modder (`tests/*.luau`).
//!
//! A test file is a driver, not a rule: it runs in its own plain Luau state in this
//! process, outside the rules sandbox, and builds games through the functions below
//! (`t:game{...}` returns a handle on a real game: the module's data and rule scripts,
//! the engine's `legal_actions`/`apply`, fixed dice). Test files are the modder's own
//! trusted code, so the state keeps Luau's debug information (failures name the file
//! and line of the expectation); it still gets no `os`, `io` or `require`, and a case
//! that runs too long is stopped. Each game loads the rules afresh, so no case sees
//! another's rule state.

use std::cell::{Cell, RefCell};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use mlua::{Function, Lua, Table, UserData, UserDataMethods, Value, Variadic, VmState};
use muster_core::game::{
    Action, Dice, Event, GameState, Place, apply, decider, describe, flow, legal_actions,
};
use muster_core::ids::{BoxId, TurnId, UnitId};
use muster_core::{Module, load_stack, scenario};
use muster_scripting::{Limits, ScriptRules};

/// A case running longer than this is stopped (a loop that never ends).
const CASE_TIME: Duration = Duration::from_secs(60);

/// The test state's heap, games' rule states apart (those have the sandbox's own).
const MEMORY: usize = 512 << 20;

// What `muster test` was asked to do.
#[derive(clap::Args)]
pub struct Args {
    /// The module folder, e.g. mods/ahd, or a mod's (loaded on its base).
    module: PathBuf,
    /// A mod to lay on the module; its tests are the ones run (the last given).
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    /// Also run the tests of every module below (the base's first) on the whole stack;
    /// a mod marks the base tests it changes on purpose with `test.changes(name,
    /// reason)` in its own tests.
    #[arg(long)]
    with_base: bool,
    /// Run only the tests whose name or file name contains TEXT (any case).
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
}

/// How a run went.
#[derive(Debug, Default)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    /// Base tests a mod marked as changed (`test.changes`) that fail, as it said.
    pub changed: usize,
}

/// A base test a mod means to change: `test.changes(name, reason)` in its test files.
struct Mark {
    name: String,
    reason: String,
    /// `file:line` of the call.
    at: String,
    /// Index in the stack of the module whose tests wrote it.
    module: usize,
}

/// One test file, loaded: its cases, or why it did not load.
struct File {
    shown: String,
    /// Index in the stack of the module it belongs to.
    module: usize,
    lua: Lua,
    deadline: Rc<Cell<Option<Instant>>>,
    cases: Vec<(String, Function)>,
    failed: Option<String>,
}

/// The `.luau` files of a module's tests folder, sorted; `None` without the folder.
fn test_files(dir: &Path) -> Result<Option<Vec<PathBuf>>> {
    let dir = dir.join("tests");
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "luau"))
        .collect();
    files.sort();
    Ok(Some(files))
}

/// Runs the tests of the top of the stack (the last mod, or the module) against the
/// whole stack, with `--with-base` every module's below it first, printing each case
/// and a summary line. Errors are for what stops the run as a whole (the module does
/// not load, no test folder); failing cases are counted in the summary.
pub fn run(o: &Args) -> Result<Summary> {
    let module = Rc::new(load_stack(&o.module, &o.mods).map_err(|e| anyhow!("{e}"))?);
    // Check the rules load once, so a broken script is one error, not one per case.
    ScriptRules::load(&module, Limits::default())
        .with_context(|| format!("loading the rules of module '{}'", module.id))?;
    let top = o.mods.last().unwrap_or(&o.module);
    let dir = top.join("tests");
    let Some(own) = test_files(top)? else {
        let e = std::fs::read_dir(&dir).err();
        return Err(anyhow!(
            "reading {} (a module's tests live there){}",
            dir.display(),
            e.map(|e| format!(": {e}")).unwrap_or_default()
        ));
    };
    if own.is_empty() {
        anyhow::bail!("no test files (*.luau) in {}", dir.display());
    }
    let top_index = module.stack.len().saturating_sub(1);
    // (module index, file), the base's first.
    let mut paths: Vec<(usize, PathBuf)> = Vec::new();
    if o.with_base {
        for (i, entry) in module.stack.iter().enumerate().take(top_index) {
            for f in test_files(&entry.dir)?.unwrap_or_default() {
                paths.push((i, f));
            }
        }
    }
    paths.extend(own.into_iter().map(|f| (top_index, f)));
    let marks = Rc::new(RefCell::new(Vec::<Mark>::new()));
    let mut files = Vec::new();
    for (i, path) in &paths {
        files.push(load_file(path, *i, &marks)?);
    }
    let filter = o.filter.as_deref().map(str::to_lowercase);
    let mut summary = Summary::default();
    let stdout = &mut std::io::stdout().lock();
    use std::io::Write;
    let marks = marks.borrow();
    // A mark names a base test by its name: one that names none is a mistake, at its line.
    if o.with_base {
        for m in marks.iter() {
            let below: Vec<&str> = files
                .iter()
                .filter(|f| f.module < m.module)
                .flat_map(|f| f.cases.iter().map(|(n, _)| n.as_str()))
                .collect();
            if !below.contains(&m.name.as_str()) {
                summary.failed += 1;
                let hint = muster_core::suggest::did_you_mean(&m.name, below.iter().copied())
                    .unwrap_or_else(|| {
                        "test.changes names a test of a module below by its whole name".into()
                    });
                writeln!(
                    stdout,
                    "FAIL {}: test.changes({:?}): no test of the modules below has this name; {hint}",
                    m.at, m.name
                )?;
            }
        }
    }
    let words = words_of_bases(&module, top_index);
    for file in &files {
        run_file(
            &module,
            &words,
            file,
            filter.as_deref(),
            &marks,
            &mut summary,
            stdout,
        )?;
    }
    if let Some(f) = &o.filter
        && summary.passed + summary.failed + summary.changed == 0
    {
        anyhow::bail!("no test in {} matches '{f}'", dir.display());
    }
    if o.with_base {
        writeln!(
            stdout,
            "{} passed, {} failed, {} changed by the mods",
            summary.passed, summary.failed, summary.changed
        )?;
    } else {
        writeln!(
            stdout,
            "{} passed, {} failed",
            summary.passed, summary.failed
        )?;
    }
    Ok(summary)
}

/// For each module below the top one whose words for the procedures' actions differ
/// from the stack's (`<words>` in a mod's calendar), the stack with that module's own
/// words, so its tests name actions as they were written (a base's test of marches
/// says "march: activate Harrisburg" where the TripleA adaptation says "buy a march
/// for Harrisburg"). A base that does not load alone keeps the stack's words.
fn words_of_bases(module: &Rc<Module>, top: usize) -> Vec<Option<Rc<Module>>> {
    module
        .stack
        .iter()
        .take(top)
        .map(|entry| {
            let base = muster_core::load_module(&entry.dir).ok()?;
            (base.calendar.words != module.calendar.words).then(|| {
                let mut m = Module::clone(module);
                m.calendar.words = base.calendar.words;
                Rc::new(m)
            })
        })
        .collect()
}

/// Loads one test file, gathering the cases it registers. A file that does not load
/// (syntax or run-time error at its top level) is kept as one failed case.
fn load_file(file: &Path, module: usize, marks: &Rc<RefCell<Vec<Mark>>>) -> Result<File> {
    // `house/../ahd/tests/x.luau` (a base found by `<extends path>`) as `ahd/tests/x.luau`.
    let shown = muster_core::diag::tidy(file).display().to_string();
    let lua = Lua::new();
    // A test file runs once: compiling it to machine code would cost more than it saves.
    lua.enable_jit(false);
    let deadline = Rc::new(Cell::new(None::<Instant>));
    let mut loaded = File {
        shown: shown.clone(),
        module,
        lua,
        deadline: deadline.clone(),
        cases: Vec::new(),
        failed: None,
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            loaded.failed = Some(format!("FAIL {shown}: cannot read it: {e}"));
            return Ok(loaded);
        }
    };
    let lua = &loaded.lua;
    // A test that fills memory is stopped with an error, not the machine.
    let _ = lua.set_memory_limit(MEMORY);
    let cases = Rc::new(RefCell::new(Vec::<(String, Function)>::new()));
    if let Err(e) = install(lua, &cases, &deadline, marks, module) {
        anyhow::bail!("setting up the test state: {e}");
    }
    deadline.set(Some(Instant::now() + CASE_TIME));
    if let Err(e) = lua.load(&text).set_name(format!("@{shown}")).exec() {
        loaded.failed = Some(format!("FAIL {shown}\n     {}", message(&e)));
        return Ok(loaded);
    }
    loaded.cases = std::mem::take(&mut *cases.borrow_mut());
    Ok(loaded)
}

/// Runs a loaded file's cases. A base case a mod marked as changed that fails counts
/// as changed, not failed; one that passes is said to pass still.
fn run_file(
    module: &Rc<Module>,
    words: &[Option<Rc<Module>>],
    file: &File,
    filter: Option<&str>,
    marks: &[Mark],
    summary: &mut Summary,
    out: &mut impl std::io::Write,
) -> Result<()> {
    let shown = &file.shown;
    if let Some(failed) = &file.failed {
        summary.failed += 1;
        writeln!(out, "{failed}")?;
        return Ok(());
    }
    let lua = &file.lua;
    let file_name = Path::new(shown)
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase());
    for (name, f) in &file.cases {
        let wanted = filter.is_none_or(|w| {
            name.to_lowercase().contains(w) || file_name.as_deref().is_some_and(|n| n.contains(w))
        });
        if !wanted {
            continue;
        }
        let mark = marks
            .iter()
            .find(|m| m.module > file.module && m.name == *name);
        let t = lua
            .create_userdata(Tester {
                module: module.clone(),
                words: words.get(file.module).cloned().flatten(),
            })
            .map_err(|e| anyhow!("{e}"))?;
        file.deadline.set(Some(Instant::now() + CASE_TIME));
        let result = f.call::<()>(t);
        // What the case left (a case stopped at the memory limit leaves a lot) must not
        // fail the next one.
        let _ = lua.gc_collect();
        let by = |m: &Mark| {
            let id = module.stack.get(m.module).map_or("", |e| e.id.as_str());
            format!("{id} ({})", m.at)
        };
        match (result, mark) {
            (Ok(()), None) => {
                summary.passed += 1;
                writeln!(out, "ok   {shown}: {name}")?;
            }
            (Ok(()), Some(m)) => {
                summary.passed += 1;
                writeln!(
                    out,
                    "ok   {shown}: {name}\n     marked as changed by {}, but it passes: is the mark still needed?",
                    by(m)
                )?;
            }
            (Err(e), None) => {
                summary.failed += 1;
                writeln!(out, "FAIL {shown}: {name}\n     {}", message(&e))?;
            }
            (Err(e), Some(m)) => {
                summary.changed += 1;
                writeln!(
                    out,
                    "chg  {shown}: {name}\n     changed by {}: {}\n     {}",
                    by(m),
                    m.reason,
                    message(&e)
                )?;
            }
        }
    }
    Ok(())
}

/// The message of an error raised in a test: the innermost cause (a failed expectation
/// or a refused action carries its `file:line` already; a Luau error has Luau's).
fn message(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => message(cause),
        mlua::Error::WithContext { cause, .. } => message(cause),
        // Luau's traceback adds only the engine's frames to the line the message has.
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => m
            .split_once("\nstack traceback:")
            .map_or(m.as_str(), |(head, _)| head)
            .to_string(),
        mlua::Error::ExternalError(e) => e.to_string(),
        mlua::Error::MemoryError(_) => format!(
            "the test used more than {} MB of memory and was stopped",
            MEMORY >> 20
        ),
        other => other.to_string(),
    }
}

/// Sets up the test file's globals: `test.case`, no `os` or `require`, and the time
/// limit.
fn install(
    lua: &Lua,
    cases: &Rc<RefCell<Vec<(String, Function)>>>,
    deadline: &Rc<Cell<Option<Instant>>>,
    marks: &Rc<RefCell<Vec<Mark>>>,
    module: usize,
) -> mlua::Result<()> {
    let g = lua.globals();
    for name in ["os", "io", "require", "loadstring", "getfenv", "setfenv"] {
        g.raw_set(name, Value::Nil)?;
    }
    let test = lua.create_table()?;
    let list = cases.clone();
    test.set(
        "case",
        lua.create_function(move |lua, (name, f): (Value, Value)| {
            let (Value::String(name), Value::Function(f)) = (name, f) else {
                return Err(fail(lua, "write test.case(\"name\", function(t) ... end)"));
            };
            list.borrow_mut().push((name.to_str()?.to_string(), f));
            Ok(())
        })?,
    )?;
    // `test.changes(name, reason)`: a base test this mod changes on purpose (`--with-base`).
    let list = marks.clone();
    test.set(
        "changes",
        lua.create_function(move |lua, (name, reason): (Value, Value)| {
            let (Value::String(name), Value::String(reason)) = (name, reason) else {
                return Err(fail(
                    lua,
                    "write test.changes(\"the base test's name\", \"why this mod changes it\")",
                ));
            };
            list.borrow_mut().push(Mark {
                name: name.to_str()?.to_string(),
                reason: reason.to_str()?.to_string(),
                at: location(lua).unwrap_or_default(),
                module,
            });
            Ok(())
        })?,
    )?;
    g.set("test", test)?;
    // `print` writes through this process's stdout, so it comes out in order with the
    // results, indented, before the result line of the case it belongs to.
    g.set(
        "print",
        lua.create_function(|_, args: Variadic<Value>| {
            let words: Vec<String> = args
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.to_string_lossy(),
                    other => show(other),
                })
                .collect();
            println!("     | {}", words.join("\t"));
            Ok(())
        })?,
    )?;
    let deadline = deadline.clone();
    lua.set_interrupt(move |_| {
        if deadline.get().is_some_and(|d| Instant::now() > d) {
            return Err(mlua::Error::runtime(format!(
                "the test ran longer than {} s and was stopped",
                CASE_TIME.as_secs()
            )));
        }
        Ok(VmState::Continue)
    });
    Ok(())
}

/// `file:line` of the test code that called the running Rust function.
fn location(lua: &Lua) -> Option<String> {
    (0..8).find_map(|level| {
        lua.inspect_stack(level, |d| {
            let source = d.source();
            if source.what == "C" {
                return None;
            }
            let line = d.current_line()?;
            Some(format!("{}:{line}", source.short_src?))
        })
        .flatten()
    })
}

/// An error at the caller's line: how expectations fail and actions are refused.
fn fail(lua: &Lua, what: impl std::fmt::Display) -> mlua::Error {
    match location(lua) {
        Some(at) => mlua::Error::runtime(format!("{at}: {what}")),
        None => mlua::Error::runtime(what.to_string()),
    }
}

/// A value as a failure message shows it: strings quoted, lists and tables inline.
fn show(v: &Value) -> String {
    fn go(v: &Value, depth: usize, out: &mut String) {
        match v {
            Value::Nil => out.push_str("nil"),
            Value::Boolean(b) => out.push_str(&b.to_string()),
            Value::Integer(i) => out.push_str(&i.to_string()),
            Value::Number(n) => out.push_str(&n.to_string()),
            Value::String(s) => {
                let _ = write!(out, "{:?}", s.to_string_lossy());
            }
            Value::Table(t) if depth < 3 => {
                out.push('{');
                let mut first = true;
                let len = t.raw_len();
                for i in 1..=len {
                    if !first {
                        out.push_str(", ");
                    }
                    first = false;
                    go(&t.raw_get(i).unwrap_or(Value::Nil), depth + 1, out);
                }
                for pair in t.pairs::<Value, Value>().flatten() {
                    if let Value::Integer(i) = pair.0
                        && i >= 1
                        && (i as usize) <= len
                    {
                        continue;
                    }
                    if !first {
                        out.push_str(", ");
                    }
                    first = false;
                    match &pair.0 {
                        Value::String(s) => out.push_str(&s.to_string_lossy()),
                        k => {
                            out.push('[');
                            go(k, depth + 1, out);
                            out.push(']');
                        }
                    }
                    out.push_str(" = ");
                    go(&pair.1, depth + 1, out);
                }
                out.push('}');
            }
            other => out.push_str(other.type_name()),
        }
    }
    let mut out = String::new();
    go(v, 0, &mut out);
    out
}

/// Deep equality of plain values (tables by contents).
fn same(a: &Value, b: &Value, depth: usize) -> bool {
    match (a, b) {
        (Value::Integer(x), Value::Number(y)) | (Value::Number(y), Value::Integer(x)) => {
            (*x as f64) == *y
        }
        (Value::Table(x), Value::Table(y)) if depth < 8 => {
            let pairs = |t: &Table| t.pairs::<Value, Value>().flatten().collect::<Vec<_>>();
            let (px, py) = (pairs(x), pairs(y));
            px.len() == py.len()
                && px.iter().all(|(k, v)| {
                    y.raw_get::<Value>(k.clone())
                        .is_ok_and(|w| same(v, &w, depth + 1))
                })
        }
        _ => a == b,
    }
}

/// The `t` a case receives: expectations and games.
struct Tester {
    module: Rc<Module>,
    /// For a base's test, the stack with the base's own words for actions (see
    /// [`words_of_bases`]); `None` for the top module's tests.
    words: Option<Rc<Module>>,
}

impl UserData for Tester {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("game", |lua, this, spec: Option<Table>| {
            GameHandle::new(&this.module, this.words.clone(), spec.as_ref())
                .map_err(|e| fail(lua, e))
        });
        m.add_method(
            "eq",
            |lua, _, (got, want, msg): (Value, Value, Option<String>)| {
                if same(&got, &want, 0) {
                    return Ok(());
                }
                let why = msg.map(|m| format!("{m}: ")).unwrap_or_default();
                Err(fail(
                    lua,
                    format!("{why}expected {}, got {}", show(&want), show(&got)),
                ))
            },
        );
        m.add_method("ok", |lua, _, (cond, msg): (Value, Option<String>)| {
            if !matches!(cond, Value::Nil | Value::Boolean(false)) {
                return Ok(());
            }
            Err(fail(
                lua,
                msg.unwrap_or_else(|| format!("expected a true value, got {}", show(&cond))),
            ))
        });
        m.add_method(
            "contains",
            |lua, _, (list, item, msg): (Value, Value, Option<String>)| {
                if contains(&list, &item) {
                    return Ok(());
                }
                let why = msg.map(|m| format!("{m}: ")).unwrap_or_default();
                Err(fail(
                    lua,
                    format!("{why}expected {} in {}", show(&item), show(&list)),
                ))
            },
        );
        m.add_method(
            "excludes",
            |lua, _, (list, item, msg): (Value, Value, Option<String>)| {
                if !contains(&list, &item) {
                    return Ok(());
                }
                let why = msg.map(|m| format!("{m}: ")).unwrap_or_default();
                Err(fail(
                    lua,
                    format!("{why}expected no {} in {}", show(&item), show(&list)),
                ))
            },
        );
        m.add_method(
            "mentions",
            |lua, _, (list, text, msg): (Table, String, Option<String>)| {
                let found = list
                    .sequence_values::<Value>()
                    .flatten()
                    .any(|v| matches!(&v, Value::String(s) if s.to_string_lossy().contains(&text)));
                if found {
                    return Ok(());
                }
                let why = msg.map(|m| format!("{m}: ")).unwrap_or_default();
                Err(fail(
                    lua,
                    format!(
                        "{why}expected a line mentioning {text:?} in {}",
                        show(&Value::Table(list))
                    ),
                ))
            },
        );
        m.add_method(
            "fails",
            |lua, _, (f, text): (Function, Option<String>)| match f.call::<()>(()) {
                Ok(()) => Err(fail(lua, "expected an error, but the function succeeded")),
                Err(e) => {
                    let got = message(&e);
                    match text {
                        Some(t) if !got.contains(&t) => Err(fail(
                            lua,
                            format!("expected an error mentioning {t:?}, got {got:?}"),
                        )),
                        _ => Ok(got),
                    }
                }
            },
        );
    }
}

/// Whether `list` holds `item` (a list: an equal element; a string: a substring).
fn contains(list: &Value, item: &Value) -> bool {
    match (list, item) {
        (Value::String(s), Value::String(i)) => s.to_string_lossy().contains(&*i.to_string_lossy()),
        (Value::Table(t), _) => t
            .sequence_values::<Value>()
            .flatten()
            .any(|v| same(&v, item, 0)),
        _ => false,
    }
}

/// A game under test: the stack's data, freshly loaded rules, the position and every
/// log line since it was set up.
struct GameHandle {
    module: Rc<Module>,
    /// What names actions for the test (its own module's words), if not `module`.
    words: Option<Rc<Module>>,
    rules: ScriptRules,
    state: GameState,
    log: Vec<String>,
    /// The last action taken, with the state before it and its log lines, for
    /// `g:seat_log(seat)`.
    last: Option<(GameState, Action, Vec<String>)>,
}

/// The argument naming a unit: its number or its description (`Veteran Infantry #12`).
enum UnitArg {
    Id(i64),
    Text(String),
}

impl mlua::FromLua for UnitArg {
    fn from_lua(v: Value, _: &Lua) -> mlua::Result<Self> {
        match v {
            Value::Integer(i) => Ok(UnitArg::Id(i)),
            Value::Number(n) if n.fract() == 0.0 => Ok(UnitArg::Id(n as i64)),
            Value::String(s) => Ok(UnitArg::Text(s.to_str()?.to_string())),
            other => Err(mlua::Error::runtime(format!(
                "a unit is its number or its description (\"Veteran Infantry #12\"), got {}",
                show(&other)
            ))),
        }
    }
}

/// An action named by its description or its position (1 first) in `legal()`.
enum ActionArg {
    Index(i64),
    Text(String),
}

impl mlua::FromLua for ActionArg {
    fn from_lua(v: Value, _: &Lua) -> mlua::Result<Self> {
        match v {
            Value::Integer(i) => Ok(ActionArg::Index(i)),
            Value::Number(n) if n.fract() == 0.0 => Ok(ActionArg::Index(n as i64)),
            Value::String(s) => Ok(ActionArg::Text(s.to_str()?.to_string())),
            other => Err(mlua::Error::runtime(format!(
                "an action is its description or its number in legal(), got {}",
                show(&other)
            ))),
        }
    }
}

impl GameHandle {
    /// `t:game{ scenario, options, dice, seed, side, step, first_turn, ending }`.
    fn new(
        module: &Rc<Module>,
        words: Option<Rc<Module>>,
        spec: Option<&Table>,
    ) -> Result<GameHandle, String> {
        let get = |key: &str| -> Result<Value, String> {
            spec.map_or(Ok(Value::Nil), |t| {
                t.get::<Value>(key).map_err(|e| e.to_string())
            })
        };
        let known = [
            "scenario",
            "options",
            "dice",
            "seed",
            "side",
            "step",
            "first_turn",
            "ending",
            "turn",
        ];
        if let Some(t) = spec {
            for (k, _) in t.pairs::<Value, Value>().flatten() {
                let name = match &k {
                    Value::String(s) => s.to_string_lossy(),
                    other => show(other),
                };
                if !known.contains(&name.as_str()) {
                    let hint = muster_core::suggest::did_you_mean(&name, known.iter().copied())
                        .unwrap_or_else(|| format!("the fields are: {}", known.join(", ")));
                    return Err(format!("t:game: unknown field '{name}'; {hint}"));
                }
            }
        }
        let m = module.as_ref();
        let scenario_arg = match get("scenario")? {
            Value::Nil => m
                .scenarios
                .first()
                .map(|s| s.id.clone())
                .ok_or("the module has no scenario: give one as XML")?,
            Value::String(s) => s.to_string_lossy(),
            other => {
                return Err(format!(
                    "scenario: an id or scenario XML, got {}",
                    show(&other)
                ));
            }
        };
        let owned;
        let sc = if scenario_arg.trim_start().starts_with('<') {
            owned = muster_core::load_scenario_str(m, "<test scenario>", &scenario_arg)
                .map_err(|e| e.to_string())?;
            &owned
        } else {
            owned = scenario::resolve(m, &scenario_arg)
                .map_err(|e| e.to_string())?
                .into_owned();
            &owned
        };
        let mut options = Vec::new();
        if let Value::Table(list) = get("options")? {
            for o in list.sequence_values::<String>() {
                let o = o.map_err(|e| format!("options: a list of ids: {e}"))?;
                let id = m.find_option(&o).ok_or_else(|| {
                    let ids = m.options.iter().map(|x| x.id.as_str());
                    let hint = muster_core::suggest::did_you_mean(&o, ids).unwrap_or_default();
                    format!("no optional rule '{o}'; {hint}")
                })?;
                options.push(id);
            }
        }
        let dice = match (get("dice")?, get("seed")?) {
            (Value::Table(list), _) => {
                let mut rolls = Vec::new();
                for r in list.sequence_values::<u32>() {
                    rolls.push(r.map_err(|e| format!("dice: a list of rolls: {e}"))?);
                }
                Dice::fixed(rolls)
            }
            (Value::Nil, Value::Integer(seed)) => Dice::seeded(seed as u64),
            (Value::Nil, Value::Nil) => Dice::seeded(1),
            (d, s) => {
                return Err(format!(
                    "dice: a list of rolls, or seed: a number; got {} and {}",
                    show(&d),
                    show(&s)
                ));
            }
        };
        let mut rules = ScriptRules::load(m, Limits::default()).map_err(|e| e.to_string())?;
        rules.keep_logged(false);
        let turn = match get("turn")? {
            Value::Nil => None,
            Value::String(t) => Some(t.to_string_lossy()),
            other => {
                return Err(format!(
                    "turn: a turn label (\"06/1862\"), got {}",
                    show(&other)
                ));
            }
        };
        let side = match (get("side")?, &turn) {
            (Value::Nil, None) => None,
            // A turn starts at its first player turn unless a side is given.
            (Value::Nil, Some(_)) => m.calendar.sides.first().map(|&s| m.side(s).id.clone()),
            (Value::String(s), _) => Some(s.to_string_lossy()),
            (other, _) => return Err(format!("side: a side id, got {}", show(&other))),
        };
        let (mut state, log) = match side {
            None => flow::start(m, &mut rules, sc, options, dice).map_err(|e| e.to_string())?,
            Some(side) => {
                let step = match get("step")? {
                    Value::String(s) => Some(s.to_string_lossy()),
                    Value::Nil => None,
                    other => return Err(format!("step: a step id, got {}", show(&other))),
                };
                let first = matches!(get("first_turn")?, Value::Boolean(true));
                at_side(
                    m,
                    &mut rules,
                    sc,
                    options,
                    dice,
                    &side,
                    step.as_deref(),
                    first,
                    turn.as_deref(),
                )?
            }
        };
        if let Value::String(end) = get("ending")? {
            flow::set_end(m, &mut state, &end.to_string_lossy())?;
        }
        Ok(GameHandle {
            module: module.clone(),
            words,
            rules,
            state,
            log,
            last: None,
        })
    }

    fn legal(&mut self) -> Result<Vec<Action>, String> {
        legal_actions(&self.module, &mut self.rules, &self.state).map_err(|e| e.to_string())
    }

    /// An action in the words of the test's own module: a base's test names the
    /// procedures' actions as its base does ("march: activate Harrisburg") where a mod
    /// words them its own way ("buy a march for Harrisburg").
    fn words(&self, a: &Action) -> String {
        describe::action(self.words.as_ref().unwrap_or(&self.module), &self.state, a)
    }

    /// The legal action a test names.
    fn find(&mut self, what: &ActionArg) -> Result<Action, String> {
        let legal = self.legal()?;
        match what {
            ActionArg::Index(i) => usize::try_from(*i)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| legal.get(i).cloned())
                .ok_or_else(|| format!("no legal action number {i} (there are {})", legal.len())),
            ActionArg::Text(text) => {
                let words: Vec<String> = legal.iter().map(|a| self.words(a)).collect();
                if let Some(i) = words.iter().position(|w| w == text) {
                    return Ok(legal[i].clone());
                }
                if let Some(i) = words.iter().position(|w| w.eq_ignore_ascii_case(text)) {
                    return Ok(legal[i].clone());
                }
                Err(self.not_legal(text, &words))
            }
        }
    }

    fn not_legal(&self, text: &str, words: &[String]) -> String {
        let hint = muster_core::suggest::did_you_mean(text, words.iter().map(String::as_str))
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        let shown: Vec<&str> = words.iter().take(12).map(String::as_str).collect();
        let more = if words.len() > 12 {
            format!(", ... ({} in all)", words.len())
        } else {
            String::new()
        };
        format!(
            "'{text}' is not a legal action now{hint} (legal: {}{more})",
            shown.join(" | ")
        )
    }

    fn seat_id(&self, seat: &str) -> Result<muster_core::ids::SeatId, String> {
        self.module
            .find_seat(seat)
            .ok_or_else(|| format!("no seat '{seat}'; {}", self.module.seat_hint(seat)))
    }

    fn apply(&mut self, a: &Action) -> Result<Vec<String>, String> {
        let doing = self.words(a);
        let (next, log) = apply(&self.module, &mut self.rules, &self.state, a)
            .map_err(|e| format!("{doing}: {e}"))?;
        let before = std::mem::replace(&mut self.state, next);
        self.last = Some((before, a.clone(), log.clone()));
        self.log.extend(log.iter().cloned());
        Ok(log)
    }

    /// The legal `Take` a test names by its words, with the values of `values` entered
    /// by its offer's form (read as a computer referee's would be, but pieces by the
    /// test's numbers, as `g:unit` gives them).
    fn entered(&mut self, lua: &Lua, label: &str, values: &Value) -> Result<Action, String> {
        let action = self.find(&ActionArg::Text(label.to_string()))?;
        let Action::Take {
            offer,
            unit,
            at,
            seat,
            ..
        } = &action
        else {
            return Err(format!("'{label}' is not an offer: nothing to enter"));
        };
        let offers = muster_core::game::offer::offers(&self.module, &mut self.rules, &self.state)
            .map_err(|e| e.to_string())?;
        let Some(o) = offers
            .iter()
            .find(|o| o.id == *offer && o.unit == *unit && o.at == *at && o.seat == *seat)
        else {
            return Err(format!("'{label}' is not among the offers now"));
        };
        let values = test_numbers(lua, values, &o.form).map_err(|e| format!("{label}: {e}"))?;
        let entry = muster_scripting::entry_from_lua(&self.module, &self.state, &o.form, &values)
            .map_err(|e| format!("{label}: {e}"))?;
        let mut action = action;
        if let Action::Take { entry: e, .. } = &mut action {
            *e = Some(Box::new(entry));
        }
        Ok(action)
    }

    fn box_id(&self, name: &str) -> Result<BoxId, String> {
        self.module.board.find(name).ok_or_else(|| {
            let names = self.module.board.boxes.iter().map(|b| b.name.as_str());
            let hint = muster_core::suggest::did_you_mean(name, names).unwrap_or_default();
            format!("no box '{name}'; {hint}")
        })
    }

    fn unit_id(&self, u: &UnitArg) -> Result<UnitId, String> {
        match u {
            UnitArg::Id(i) => u16::try_from(*i)
                .ok()
                .map(UnitId)
                .filter(|id| usize::from(id.0) < self.state.units.len())
                .ok_or_else(|| format!("no unit number {i}")),
            UnitArg::Text(text) => self
                .state
                .unit_ids()
                .find(|&id| describe::unit(&self.module, &self.state, id) == *text)
                .ok_or_else(|| format!("no unit '{text}' (write it as units_at() lists it)")),
        }
    }

    fn units_of(&self, kind: &str, at: &str) -> Result<Vec<UnitId>, String> {
        let k = self
            .module
            .units
            .find(kind)
            .ok_or_else(|| format!("no unit type '{kind}'"))?;
        Ok(self
            .pieces_at(at)?
            .into_iter()
            .filter(|&u| self.state.unit(u).kind == k)
            .collect())
    }

    /// The pieces in a box, or off the board in `pool`, `stock` or `set_aside` (the
    /// words `g:where` answers; a box of that name comes first).
    fn pieces_at(&self, at: &str) -> Result<Vec<UnitId>, String> {
        let off = match at {
            _ if self.module.board.find(at).is_some() => None,
            "pool" => Some(Place::Pool),
            "stock" => Some(Place::Stock),
            "set_aside" => Some(Place::SetAside),
            _ => None,
        };
        match off {
            Some(place) => Ok(self
                .state
                .unit_ids()
                .filter(|&u| self.state.unit(u).place == place)
                .collect()),
            None => Ok(self.state.units_at(self.box_id(at)?).collect()),
        }
    }

    /// Only the pieces of `side`, if one is given.
    fn of_side(&self, units: Vec<UnitId>, side: Option<&str>) -> Result<Vec<UnitId>, String> {
        let Some(side) = side else {
            return Ok(units);
        };
        let s = self.module.find_side(side).ok_or_else(|| {
            let ids = self.module.sides.iter().map(|s| s.id.as_str());
            let hint = muster_core::suggest::did_you_mean(side, ids).unwrap_or_default();
            format!("no side '{side}'; {hint}")
        })?;
        Ok(units
            .into_iter()
            .filter(|&u| self.state.unit(u).side == s)
            .collect())
    }

    /// The legal moves of `unit` (the selected box's), with their destinations.
    fn moves_of(&mut self, unit: UnitId) -> Result<Vec<(Action, BoxId, Vec<String>)>, String> {
        let m = self.module.clone();
        Ok(self
            .legal()?
            .into_iter()
            .filter_map(|a| match &a {
                Action::Move { unit: u, path } if *u == unit => {
                    let kinds = path
                        .steps
                        .iter()
                        .map(|s| m.board.kinds[m.board.line(s.line).kind.index()].id.clone())
                        .collect();
                    let to = path.to();
                    Some((a, to, kinds))
                }
                _ => None,
            })
            .collect())
    }
}

/// An entry written in a test, with each pieces field's keys turned from the test's
/// piece numbers (`g:unit`, 0-based) to the rules' (1-based).
fn test_numbers(
    lua: &Lua,
    values: &Value,
    form: &[muster_core::game::Field],
) -> Result<Value, String> {
    let Value::Table(t) = values else {
        return Ok(values.clone());
    };
    let copy = lua.create_table().map_err(|e| e.to_string())?;
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| e.to_string())?;
        let pieces = matches!(&k, Value::String(s) if form.iter().any(|f| {
            matches!(f.kind, muster_core::game::FieldKind::Pieces(_)) && *s == f.id.as_str()
        }));
        let v = match v {
            Value::Table(p) if pieces => {
                let renumbered = lua.create_table().map_err(|e| e.to_string())?;
                for pair in p.pairs::<Value, Value>() {
                    let (u, n) = pair.map_err(|e| e.to_string())?;
                    let u = match u {
                        Value::Integer(i) => Value::Integer(i + 1),
                        other => other,
                    };
                    renumbered.raw_set(u, n).map_err(|e| e.to_string())?;
                }
                Value::Table(renumbered)
            }
            other => other,
        };
        copy.raw_set(k, v).map_err(|e| e.to_string())?;
    }
    Ok(Value::Table(copy))
}

/// The position at the start of `side`'s player turn (or of its step `step`) on the
/// scenario's first turn: the player turn's start is reported to the rules, then the
/// step starts (rolling what it rolls). Unless `first` is set, the turn is not counted
/// as the scenario's first, so rules special to the opening turn stay out of a test
/// that is about something else.
#[allow(clippy::too_many_arguments)]
fn at_side(
    m: &Module,
    rules: &mut ScriptRules,
    sc: &muster_core::Scenario,
    options: Vec<muster_core::ids::OptionId>,
    dice: Dice,
    side: &str,
    step: Option<&str>,
    first: bool,
    turn: Option<&str>,
) -> Result<(GameState, Vec<String>), String> {
    let mut state = GameState::new(m, sc, options, dice).map_err(|e| e.to_string())?;
    // A later turn of the scenario, its pieces as the scenario sets them up.
    if let Some(label) = turn {
        let labels = || m.calendar.turns.iter().map(|t| t.label.as_str());
        let i = m
            .calendar
            .turns
            .iter()
            .position(|t| t.label == label)
            .ok_or_else(|| {
                let hint = muster_core::suggest::did_you_mean(label, labels()).unwrap_or_default();
                format!("turn: no turn '{label}' in the calendar; {hint}")
            })?;
        let i = u16::try_from(i).map_err(|_| "too many turns")?;
        if i < sc.start.0 || i > sc.end.0 {
            return Err(format!(
                "turn: '{label}' is outside scenario '{}' ({} to {})",
                sc.id,
                m.calendar.turn(sc.start).label,
                m.calendar.turn(sc.end).label
            ));
        }
        state.turn = TurnId(i);
        if first {
            state.first_turn = state.turn;
        }
    }
    let side_id = m.find_side(side).ok_or_else(|| {
        let ids = m.sides.iter().map(|s| s.id.as_str());
        let hint = muster_core::suggest::did_you_mean(side, ids).unwrap_or_default();
        format!("no side '{side}'; {hint}")
    })?;
    let player = m
        .calendar
        .sides
        .iter()
        .position(|&s| s == side_id)
        .ok_or_else(|| format!("side '{side}' plays no player turn"))?;
    state.player = u8::try_from(player).map_err(|_| "too many sides")?;
    if !first {
        state.first_turn = if state.turn.0 > 0 {
            TurnId(0)
        } else {
            TurnId(state.turn.0 + 1)
        };
    }
    let mut log =
        flow::react(m, rules, &mut state, Event::PlayerTurnStarted).map_err(|e| e.to_string())?;
    let index = match step {
        None => 0,
        Some(id) => m
            .calendar
            .steps
            .iter()
            .position(|s| s.id == id)
            .ok_or_else(|| {
                let ids = m.calendar.steps.iter().map(|s| s.id.as_str());
                let hint = muster_core::suggest::did_you_mean(id, ids).unwrap_or_default();
                format!("no step '{id}' in a player turn; {hint}")
            })?,
    };
    state.step = u8::try_from(index).map_err(|_| "too many steps")?;
    log.extend(flow::enter_step(m, rules, &mut state).map_err(|e| e.to_string())?);
    Ok((state, log))
}

impl UserData for GameHandle {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method_mut("legal", |lua, g, ()| {
            let legal = g.legal().map_err(|e| fail(lua, e))?;
            Ok(legal.iter().map(|a| g.words(a)).collect::<Vec<_>>())
        });
        m.add_method_mut("can", |lua, g, what: ActionArg| match &what {
            ActionArg::Text(text) => {
                let legal = g.legal().map_err(|e| fail(lua, e))?;
                Ok(legal.iter().any(|a| g.words(a).eq_ignore_ascii_case(text)))
            }
            ActionArg::Index(_) => Ok(g.find(&what).is_ok()),
        });
        m.add_method_mut("act", |lua, g, what: ActionArg| {
            let a = g.find(&what).map_err(|e| fail(lua, e))?;
            g.apply(&a).map_err(|e| fail(lua, e))
        });
        m.add_method_mut("enter", |lua, g, (label, values): (String, Value)| {
            let a = g.entered(lua, &label, &values).map_err(|e| fail(lua, e))?;
            g.apply(&a).map_err(|e| fail(lua, e))
        });
        m.add_method_mut("refused", |lua, g, (label, values): (String, Value)| {
            let a = g.entered(lua, &label, &values).map_err(|e| fail(lua, e))?;
            match apply(&g.module, &mut g.rules, &g.state, &a) {
                Ok(_) => Err(fail(
                    lua,
                    format!("expected the entry for '{label}' to be refused, but it was taken"),
                )),
                Err(e) => Ok(e.to_string()),
            }
        });
        m.add_method_mut("expect_illegal", |lua, g, text: String| {
            let legal = g.legal().map_err(|e| fail(lua, e))?;
            if legal.iter().any(|a| g.words(a).eq_ignore_ascii_case(&text)) {
                return Err(fail(
                    lua,
                    format!("expected '{text}' to be illegal, but it is legal"),
                ));
            }
            Ok(())
        });
        m.add_method_mut("destinations", |lua, g, u: UnitArg| {
            let id = g.unit_id(&u).map_err(|e| fail(lua, e))?;
            let moves = g.moves_of(id).map_err(|e| fail(lua, e))?;
            let mut names: Vec<String> = moves
                .iter()
                .map(|(_, to, _)| g.module.board.get(*to).name.clone())
                .collect();
            names.sort();
            names.dedup();
            Ok(names)
        });
        m.add_method_mut(
            "move",
            |lua, g, (u, to, kinds): (UnitArg, String, Option<Vec<String>>)| {
                let id = g.unit_id(&u).map_err(|e| fail(lua, e))?;
                let to_id = g.box_id(&to).map_err(|e| fail(lua, e))?;
                let mut moves: Vec<_> = g
                    .moves_of(id)
                    .map_err(|e| fail(lua, e))?
                    .into_iter()
                    .filter(|(_, b, ks)| *b == to_id && kinds.as_ref().is_none_or(|k| k == ks))
                    .collect();
                moves.sort_by_key(|(_, _, ks)| ks.len());
                let Some((a, _, _)) = moves.into_iter().next() else {
                    let by = kinds
                        .map(|k| format!(" by {}", k.join(", ")))
                        .unwrap_or_default();
                    let who = describe::unit(&g.module, &g.state, id);
                    return Err(fail(lua, format!("{who} has no legal move to {to}{by}")));
                };
                g.apply(&a).map_err(|e| fail(lua, e))
            },
        );
        m.add_method_mut("fire", |lua, g, (shooter, target): (UnitArg, UnitArg)| {
            let shooter = g.unit_id(&shooter).map_err(|e| fail(lua, e))?;
            let target = g.unit_id(&target).map_err(|e| fail(lua, e))?;
            let a = Action::Target { shooter, target };
            let legal = g.legal().map_err(|e| fail(lua, e))?;
            if !legal.contains(&a) {
                let words: Vec<String> = legal.iter().map(|a| g.words(a)).collect();
                return Err(fail(lua, g.not_legal(&g.words(&a), &words)));
            }
            g.apply(&a).map_err(|e| fail(lua, e))
        });
        m.add_method(
            "units_at",
            |lua, g, (at, side): (String, Option<String>)| {
                let list = g.pieces_at(&at).map_err(|e| fail(lua, e))?;
                let list = g.of_side(list, side.as_deref()).map_err(|e| fail(lua, e))?;
                Ok(list
                    .into_iter()
                    .map(|u| describe::unit(&g.module, &g.state, u))
                    .collect::<Vec<_>>())
            },
        );
        m.add_method(
            "units",
            |lua, g, (kind, at, side): (String, String, Option<String>)| {
                let list = g.units_of(&kind, &at).map_err(|e| fail(lua, e))?;
                let list = g.of_side(list, side.as_deref()).map_err(|e| fail(lua, e))?;
                Ok(list.into_iter().map(|u| i64::from(u.0)).collect::<Vec<_>>())
            },
        );
        m.add_method(
            "unit",
            |lua, g, (kind, at, side): (String, String, Option<String>)| {
                let list = g.units_of(&kind, &at).map_err(|e| fail(lua, e))?;
                let list = g.of_side(list, side.as_deref()).map_err(|e| fail(lua, e))?;
                list.first()
                    .map(|u| i64::from(u.0))
                    .ok_or_else(|| fail(lua, format!("no {kind} in {at}")))
            },
        );
        m.add_method(
            "count",
            |lua, g, (at, kind, side): (String, Option<String>, Option<String>)| {
                let list = match kind {
                    Some(k) => g.units_of(&k, &at),
                    None => g.pieces_at(&at),
                }
                .map_err(|e| fail(lua, e))?;
                let list = g.of_side(list, side.as_deref()).map_err(|e| fail(lua, e))?;
                Ok(list.len())
            },
        );
        m.add_method("describe", |lua, g, u: UnitArg| {
            let id = g.unit_id(&u).map_err(|e| fail(lua, e))?;
            Ok(describe::unit(&g.module, &g.state, id))
        });
        m.add_method("where", |lua, g, u: UnitArg| {
            let id = g.unit_id(&u).map_err(|e| fail(lua, e))?;
            Ok(match g.state.unit(id).place {
                Place::Board(b) => g.module.board.get(b).name.clone(),
                Place::Pool => "pool".into(),
                Place::Stock => "stock".into(),
                Place::SetAside => "set_aside".into(),
            })
        });
        m.add_method("flag", |lua, g, (u, flag): (UnitArg, String)| {
            let id = g.unit_id(&u).map_err(|e| fail(lua, e))?;
            if g.module.units.find_flag(&flag).is_none() {
                return Err(fail(lua, format!("the module declares no flag '{flag}'")));
            }
            Ok(g.state.unit(id).flagged(&g.module, &flag))
        });
        m.add_method("markers", |lua, g, (at, marker): (String, String)| {
            let b = g.box_id(&at).map_err(|e| fail(lua, e))?;
            let k =
                g.module.units.find_marker(&marker).ok_or_else(|| {
                    fail(lua, format!("the module declares no marker '{marker}'"))
                })?;
            Ok(g.state.markers_at(b, k))
        });
        m.add_method("controller", |lua, g, at: String| {
            let b = g.box_id(&at).map_err(|e| fail(lua, e))?;
            Ok(g.state.controller(b).map(|s| g.module.side(s).id.clone()))
        });
        m.add_method(
            "resource",
            |lua, g, (id, side): (String, Option<String>)| {
                let r = g
                    .module
                    .find_resource(&id)
                    .ok_or_else(|| fail(lua, format!("no resource '{id}'")))?;
                let s = match side {
                    Some(s) => g
                        .module
                        .find_side(&s)
                        .ok_or_else(|| fail(lua, format!("no side '{s}'")))?,
                    None => g.state.active_side(&g.module),
                };
                Ok(g.state.resource(s, r))
            },
        );
        // The rules' `victory_threats` hint, each as "side: text [box, box]".
        m.add_method_mut("threats", |lua, g, ()| {
            use muster_core::game::Rules as _;
            let view = muster_core::game::View {
                module: &g.module,
                state: &g.state,
            };
            let threats = g
                .rules
                .victory_threats(view)
                .map_err(|e| fail(lua, e.to_string()))?;
            Ok(threats
                .iter()
                .map(|t| {
                    let boxes: Vec<&str> = t
                        .boxes
                        .iter()
                        .map(|&b| g.module.board.get(b).name.as_str())
                        .collect();
                    format!(
                        "{}: {} [{}]",
                        g.module.side(t.side).id,
                        t.text,
                        boxes.join(", ")
                    )
                })
                .collect::<Vec<_>>())
        });
        m.add_method("var", |_, g, name: String| Ok(g.state.var(&name)));
        // What a seat sees: of one piece (`none`, `presence`, `side`, `full`), the whole
        // view as JSON (what its player's file would hold), the last action's log lines
        // as the seat reads them. Rule errors fail the test (a view hides on them).
        m.add_method_mut("sight", |lua, g, (seat, u): (String, UnitArg)| {
            let id = g.unit_id(&u).map_err(|e| fail(lua, e))?;
            let s = g.seat_id(&seat).map_err(|e| fail(lua, e))?;
            let (sight, errors) =
                muster_core::game::sight::sights(&g.module, &mut g.rules, &g.state, s);
            if let Some(e) = errors.first() {
                return Err(fail(lua, e.to_string()));
            }
            Ok(format!("{:?}", sight[id.index()]).to_lowercase())
        });
        // The `ai` computer player's choice for a seat now, from what the seat sees
        // (its knowledge, its own choices), in words; nothing applied. How a module
        // tests its `offer_worth` hints: the offer the player takes, the one it leaves.
        m.add_method_mut("computer", |lua, g, seat: String| {
            let s = g.seat_id(&seat).map_err(|e| fail(lua, e))?;
            let mut player = muster_ai::player(muster_ai::Level::Ai, 1);
            let a = muster_ai::choose_for(player.as_mut(), &g.module, &mut g.rules, &g.state, s)
                .map_err(|e| fail(lua, e.to_string()))?;
            Ok(g.words(&a))
        });
        m.add_method_mut("view", |lua, g, seat: String| {
            let s = g.seat_id(&seat).map_err(|e| fail(lua, e))?;
            let (view, errors) = muster_core::game::seat_view(&g.module, &mut g.rules, &g.state, s);
            if let Some(e) = errors.first() {
                return Err(fail(lua, e.to_string()));
            }
            serde_json::to_string(&view).map_err(|e| fail(lua, e.to_string()))
        });
        m.add_method_mut("seat_log", |lua, g, seat: String| {
            let s = g.seat_id(&seat).map_err(|e| fail(lua, e))?;
            let Some((before, action, lines)) = &g.last else {
                return Ok(Vec::new());
            };
            let (seen, errors) = muster_core::game::seat_log(
                &g.module,
                &mut g.rules,
                before,
                action,
                &g.state,
                lines,
                s,
            );
            if let Some(e) = errors.first() {
                return Err(fail(lua, e.to_string()));
            }
            Ok(seen)
        });
        m.add_method("side", |_, g, ()| {
            Ok(g.module.side(g.state.active_side(&g.module)).id.clone())
        });
        m.add_method("decider", |_, g, ()| {
            Ok(g.module.side(decider(&g.module, &g.state)).id.clone())
        });
        m.add_method("step", |_, g, ()| {
            Ok(g.state.current_step(&g.module).map(|s| s.id.clone()))
        });
        m.add_method("turn", |_, g, ()| {
            Ok(g.module.calendar.turn(g.state.turn).label.clone())
        });
        m.add_method("situation", |_, g, ()| {
            Ok(describe::situation(&g.module, &g.state))
        });
        m.add_method("log", |_, g, ()| Ok(g.log.clone()));
        m.add_method("outcome", |_, g, ()| {
            Ok(match &g.state.outcome {
                None => Variadic::new(),
                Some(o) => {
                    let who = o
                        .winner
                        .map_or("draw".to_string(), |w| g.module.side(w).id.clone());
                    Variadic::from_iter([who, o.reason.clone()])
                }
            })
        });
        m.add_method_mut("end_step", |lua, g, ()| {
            let a = Action::EndStep;
            let legal = g.legal().map_err(|e| fail(lua, e))?;
            if !legal.contains(&a) {
                let step = g
                    .state
                    .current_step(&g.module)
                    .map_or("-", |s| s.id.as_str());
                return Err(fail(lua, format!("the step '{step}' cannot end now")));
            }
            g.apply(&a).map_err(|e| fail(lua, e))
        });
        m.add_method_mut(
            "play_to",
            |lua, g, (step, side): (String, Option<String>)| {
                if !g
                    .module
                    .calendar
                    .steps
                    .iter()
                    .chain(&g.module.calendar.turn_end)
                    .any(|s| s.id == step)
                {
                    return Err(fail(lua, format!("no step '{step}'")));
                }
                let mut log = Vec::new();
                for _ in 0..1000 {
                    let here = g.state.current_step(&g.module).map(|s| s.id.clone());
                    let who = g.module.side(g.state.active_side(&g.module)).id.clone();
                    if here.as_deref() == Some(step.as_str())
                        && side.as_ref().is_none_or(|s| *s == who)
                    {
                        return Ok(log);
                    }
                    if g.state.outcome.is_some() {
                        return Err(fail(lua, format!("the game ended before step '{step}'")));
                    }
                    let legal = g.legal().map_err(|e| fail(lua, e))?;
                    if !legal.contains(&Action::EndStep) {
                        let words: Vec<String> = legal.iter().take(6).map(|a| g.words(a)).collect();
                        return Err(fail(
                            lua,
                            format!(
                                "cannot end step '{}' on the way to '{step}': decide first ({})",
                                here.unwrap_or_default(),
                                words.join(" | ")
                            ),
                        ));
                    }
                    log.extend(g.apply(&Action::EndStep).map_err(|e| fail(lua, e))?);
                }
                Err(fail(lua, format!("step '{step}' never came")))
            },
        );
        m.add_meta_method("__tostring", |_, g, ()| {
            Ok(describe::situation(&g.module, &g.state))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(lua: &Lua, code: &str) -> Value {
        lua.load(code).eval().unwrap()
    }

    #[test]
    fn values_show_as_a_test_writer_wrote_them() {
        let lua = Lua::new();
        assert_eq!(show(&eval(&lua, r#"{"a", 2, {3}}"#)), r#"{"a", 2, {3}}"#);
        assert_eq!(show(&eval(&lua, "{x = true}")), "{x = true}");
        assert_eq!(show(&eval(&lua, "nil")), "nil");
        // A table holding itself is shown to a depth, not forever.
        let looped = show(&eval(&lua, "local t = {} t[1] = t return t"));
        assert_eq!(looped, "{{{table}}}");
    }

    #[test]
    fn tables_are_equal_by_contents() {
        let lua = Lua::new();
        let a = eval(&lua, "{1, 2, x = {3}}");
        assert!(same(&a, &eval(&lua, "{1, 2, x = {3}}"), 0));
        assert!(!same(&a, &eval(&lua, "{1, 2, x = {4}}"), 0));
        assert!(!same(&a, &eval(&lua, "{1, 2}"), 0));
        assert!(same(&eval(&lua, "3"), &eval(&lua, "3.0"), 0));
    }

    #[test]
    fn lists_contain_elements_and_strings_substrings() {
        let lua = Lua::new();
        let list = eval(&lua, r#"{"Jackson", "Vicksburg"}"#);
        assert!(contains(&list, &eval(&lua, r#""Jackson""#)));
        assert!(!contains(&list, &eval(&lua, r#""Jack""#)));
        assert!(contains(
            &eval(&lua, r#""Jackson""#),
            &eval(&lua, r#""Jack""#)
        ));
    }
}
