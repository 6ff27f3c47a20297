//! The rules' profile: where a game's Luau work goes, by handler, function and line.
//!
//! Luau interrupts at every call, every return and every loop back-edge; the budget counts those
//! interrupts ([`crate::budget`]). With the profile on, each interrupt also reads the
//! Luau stack (`lua_getinfo`) and charges it to the handler, the functions and the line
//! running. It counts work (calls, returns and loop iterations), not time: a long loop
//! body without calls costs one interrupt an iteration, a `game:` method one however
//! long the engine takes to answer it. The counts are the same on every machine and
//! every run of the same game.
//!
//! The profile is per thread: [`start`] before the rules are loaded (the interrupt that
//! samples is chosen when a sandbox is made), [`finish`] after the game. Off, it costs
//! nothing: the budget's interrupt is the plain one.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{CStr, c_char};
use std::fmt::Write as _;

use mlua::ffi;

thread_local! {
    static PROFILE: RefCell<Option<Box<Profile>>> = const { RefCell::new(None) };
}

/// Starts profiling the rules on this thread: every sandbox made after this, until
/// [`finish`], charges its interrupts to the profile.
pub fn start() {
    PROFILE.with_borrow_mut(|p| *p = Some(Box::default()));
}

/// Stops profiling on this thread and returns what was counted (`None` if [`start`]
/// was not called).
pub fn finish() -> Option<Profile> {
    PROFILE.with_borrow_mut(Option::take).map(|p| *p)
}

/// Whether this thread is profiling.
pub(crate) fn on() -> bool {
    PROFILE.with_borrow(Option::is_some)
}

/// Names a handler in the profile: `origin` (`rules/x.luau:12`, where the function is
/// defined) is the `hook id` given.
pub(crate) fn name_handler(origin: &str, name: String) {
    PROFILE.with_borrow_mut(|p| {
        if let Some(p) = p {
            let slot = p.handler_names.entry(origin.to_string()).or_default();
            if !slot.split(" | ").any(|n| n == name) {
                if !slot.is_empty() {
                    slot.push_str(" | ");
                }
                slot.push_str(&name);
            }
        }
    });
}

/// Charges one interrupt of `state` to the profile. `fresh`: the budget was reset since
/// the last interrupt, so a hook call has begun.
///
/// # Safety
/// `state` is a running Luau state, called from its interrupt.
pub(crate) unsafe fn sample(state: *mut ffi::lua_State, fresh: bool) {
    PROFILE.with_borrow_mut(|p| {
        if let Some(p) = p {
            // SAFETY: as this function's.
            unsafe { p.sample(state, fresh) }
        }
    });
}

/// A function as the stack shows it: where it is defined and its name.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct FrameKey {
    /// The chunk name's address (Luau keeps one string per chunk, alive while its
    /// functions are).
    source: usize,
    line_defined: i32,
    name: usize,
}

/// A function seen on the stack, named once.
struct Frame {
    /// `rules/x.luau:12 name`, or the engine's chunk name, or `[rust] name`.
    label: String,
    /// `rules/x.luau:12` for a script's function (a handler's origin), else empty.
    origin: String,
    /// `rules/x.luau` for a script's function, else empty.
    file: String,
}

/// What a game's rules did, counted in interrupts.
#[derive(Default)]
pub struct Profile {
    frames: Vec<Frame>,
    index: HashMap<FrameKey, u32>,
    handler_names: HashMap<String, String>,
    /// Interrupts by stack (frame ids, innermost first).
    stacks: HashMap<Box<[u32]>, u64>,
    /// Interrupts by line: the innermost script function and its line.
    lines: HashMap<(u32, i32), u64>,
    /// By handler frame: interrupts and calls.
    handlers: HashMap<u32, (u64, u64)>,
    /// The handler calls under way, outermost first: the frame and its depth from the
    /// stack's bottom (a handler may call the engine, which calls another handler).
    active: Vec<(u32, usize)>,
    total: u64,
    /// The current stack, innermost first (reused).
    stack: Vec<u32>,
}

impl Profile {
    /// # Safety
    /// As [`sample`]'s.
    unsafe fn sample(&mut self, state: *mut ffi::lua_State, fresh: bool) {
        self.total += 1;
        self.stack.clear();
        let mut line = None;
        let mut level = 0;
        loop {
            // SAFETY: a zeroed `lua_Debug` is what `lua_getinfo` fills; `state` runs.
            let mut ar: ffi::lua_Debug = unsafe { std::mem::zeroed() };
            let what = if level == 0 { c"sln" } else { c"sn" };
            // SAFETY: as above; the level is checked by Luau (0 past the last).
            if unsafe { ffi::lua_getinfo(state, level, what.as_ptr(), &mut ar) } == 0 {
                break;
            }
            let id = self.frame(&ar);
            if level == 0 {
                line = Some((id, ar.currentline));
            }
            self.stack.push(id);
            level += 1;
            if level > 200 {
                break; // a runaway recursion: its top is enough
            }
        }
        *self.stacks.entry(self.stack.as_slice().into()).or_default() += 1;
        // The line: the innermost script function's, where the work was done.
        if let Some((id, l)) = line
            && !self.frames[id as usize].file.is_empty()
        {
            *self.lines.entry((id, l)).or_default() += 1;
        }
        // The handler: from the innermost frame the engine called (a Rust function's
        // caller, or the stack's bottom), the first script function going in.
        let depth = self.stack.len();
        let boundary = self
            .stack
            .iter()
            .position(|&f| self.frames[f as usize].label.starts_with("[rust]"))
            .unwrap_or(depth);
        let handler = (0..boundary)
            .rev()
            .find(|&i| !self.frames[self.stack[i] as usize].origin.is_empty());
        let Some(at) = handler else { return };
        let (id, from_bottom) = (self.stack[at], depth - at);
        let call = if fresh {
            self.active.retain(|&(_, d)| d < from_bottom);
            true
        } else {
            self.active.retain(|&(_, d)| d <= from_bottom);
            self.active.last() != Some(&(id, from_bottom))
        };
        if call {
            self.active.retain(|&(_, d)| d < from_bottom);
            self.active.push((id, from_bottom));
        }
        let h = self.handlers.entry(id).or_default();
        h.0 += 1;
        h.1 += u64::from(call);
    }

    fn frame(&mut self, ar: &ffi::lua_Debug) -> u32 {
        let key = FrameKey {
            source: ar.source as usize,
            line_defined: ar.linedefined,
            name: ar.name as usize,
        };
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let text = |p: *const c_char| {
            // SAFETY: Luau's strings, NUL-terminated, alive during the interrupt.
            (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        };
        let source = text(ar.source).unwrap_or_default();
        let short = text(ar.short_src.cast()).unwrap_or_default();
        let name = text(ar.name);
        let frame = if source.starts_with('@') {
            let origin = format!("{short}:{}", ar.linedefined);
            Frame {
                label: match &name {
                    Some(n) => format!("{origin} {n}"),
                    None => origin.clone(),
                },
                origin,
                file: short,
            }
        } else if ar.linedefined < 0 || source == "=[C]" {
            Frame {
                label: format!("[rust] {}", name.as_deref().unwrap_or("?")),
                origin: String::new(),
                file: String::new(),
            }
        } else {
            // The engine's own Luau (the `game` view's wrappers).
            Frame {
                label: format!(
                    "{short}:{} {}",
                    ar.linedefined,
                    name.as_deref().unwrap_or("?")
                ),
                origin: String::new(),
                file: String::new(),
            }
        };
        let id = self.frames.len() as u32;
        self.frames.push(frame);
        self.index.insert(key, id);
        id
    }

    /// Interrupts counted in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The name of a handler frame: `hook id (file:line)` where the load named it.
    fn handler_label(&self, id: u32) -> String {
        let f = &self.frames[id as usize];
        match self.handler_names.get(&f.origin) {
            Some(name) => format!("{name} ({})", f.origin),
            None => f.label.clone(),
        }
    }

    /// Each handler's interrupts and calls (those that made at least one interrupt),
    /// most interrupts first: `(handler, interrupts, calls)`.
    pub fn handlers(&self) -> Vec<(String, u64, u64)> {
        let mut out: Vec<_> = self
            .handlers
            .iter()
            .map(|(&id, &(n, calls))| (self.handler_label(id), n, calls))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Each function's own interrupts (at its own calls and loops) and its total (with
    /// what it called), most total first: `(function, self, total)`.
    pub fn functions(&self) -> Vec<(String, u64, u64)> {
        let mut own: HashMap<u32, u64> = HashMap::new();
        let mut total: HashMap<u32, u64> = HashMap::new();
        let mut seen = Vec::new();
        for (stack, &n) in &self.stacks {
            if let Some(&top) = stack.first() {
                *own.entry(top).or_default() += n;
            }
            seen.clear();
            for &f in stack.iter() {
                if !seen.contains(&f) {
                    seen.push(f);
                    *total.entry(f).or_default() += n;
                }
            }
        }
        let mut out: Vec<_> = total
            .iter()
            .map(|(&id, &t)| {
                let label = self.frames[id as usize].label.clone();
                (label, own.get(&id).copied().unwrap_or(0), t)
            })
            .collect();
        out.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Interrupts by script line, most first: `(file:line, interrupts)`.
    pub fn lines(&self) -> Vec<(String, u64)> {
        let mut by: HashMap<String, u64> = HashMap::new();
        for (&(id, line), &n) in &self.lines {
            *by.entry(format!("{}:{line}", self.frames[id as usize].file))
                .or_default() += n;
        }
        let mut out: Vec<_> = by.into_iter().collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// The stacks folded, one a line, outermost frame first, then the interrupts
    /// (`flamegraph.pl` and `inferno-flamegraph` read this), sorted.
    pub fn folded(&self) -> String {
        let mut lines: Vec<String> = self
            .stacks
            .iter()
            .map(|(stack, n)| {
                let names: Vec<&str> = stack
                    .iter()
                    .rev()
                    .map(|&f| self.frames[f as usize].label.as_str())
                    .collect();
                format!("{} {n}", names.join(";").replace(' ', "_"))
            })
            .collect();
        lines.sort();
        let mut out = lines.join("\n");
        out.push('\n');
        out
    }

    /// The profile as a table: handlers, functions and the busiest lines.
    pub fn table(&self) -> String {
        let total = self.total.max(1);
        let share = |n: u64| n as f64 * 100.0 / total as f64;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# The rules' work in Luau interrupts (one at each call, each return and each loop iteration: \
             work done, not time; the same on every run of the same game)\n\
             # {} interrupts in all\n",
            self.total
        );
        let _ = writeln!(out, "## Handlers (the hook handler the engine called)\n");
        let _ = writeln!(
            out,
            "{:>12} {:>6} {:>9} {:>9}  handler",
            "interrupts", "%", "calls", "per call"
        );
        for (name, n, calls) in self.handlers() {
            let _ = writeln!(
                out,
                "{n:>12} {:>6.2} {calls:>9} {:>9.1}  {name}",
                share(n),
                n as f64 / calls.max(1) as f64
            );
        }
        let _ = writeln!(
            out,
            "\n## Functions (self: at its own calls and loops; total: with what it called)\n"
        );
        let _ = writeln!(
            out,
            "{:>12} {:>6} {:>12} {:>6}  function",
            "self", "%", "total", "%"
        );
        for (name, own, t) in self.functions() {
            let _ = writeln!(
                out,
                "{own:>12} {:>6.2} {t:>12} {:>6.2}  {name}",
                share(own),
                share(t)
            );
        }
        let _ = writeln!(out, "\n## Lines (the 40 busiest)\n");
        let _ = writeln!(out, "{:>12} {:>6}  line", "interrupts", "%");
        for (line, n) in self.lines().into_iter().take(40) {
            let _ = writeln!(out, "{n:>12} {:>6.2}  {line}", share(n));
        }
        out
    }
}
