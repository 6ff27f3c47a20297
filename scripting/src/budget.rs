//! Resource limits and the per-call instruction budget enforced by Luau's interrupt.

use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use mlua::{Lua, VmState, ffi};

use crate::profile;
use crate::stdlib::caller;

/// Limits of one [`Sandbox`](crate::Sandbox).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Size of the Lua heap, in bytes.
    pub memory_bytes: usize,
    /// Interrupts one hook call (or the whole load) may use. Luau interrupts at function
    /// calls and loop back-edges, so this is roughly "calls plus loop iterations". Counting
    /// them, not time, keeps a failure reproducible on any machine.
    pub budget: u64,
    /// Backstop for code that is slow without looping (should never trigger first),
    /// measured from the call's first thousand interrupts.
    pub wall_clock: Duration,
    /// Compile the rules to machine code (Luau's native code generator) as they load.
    /// Hooks then run about a fifth faster, for ~90 M instructions (some 30 ms) a load:
    /// worth it for a whole game or a study, a loss for a check, a test or a battle's
    /// odds. Such loads also compile at Luau's optimization level 2, which inlines small
    /// local functions. The same scripts give the same answers either way; only the
    /// interrupts that charge [`budget`](Self::budget) fall at other places (an inlined
    /// call is none), and an error's traceback has no frame for an inlined function.
    /// Where the machine has no native code generator, scripts are interpreted.
    pub native_code: bool,
}

impl Default for Limits {
    /// 64 MiB, 10 million interrupts (a fraction of a second of pure looping in release,
    /// thousands of times what a rules hook needs), 5 s, interpreted.
    fn default() -> Self {
        Self {
            memory_bytes: 64 << 20,
            budget: 10_000_000,
            wall_clock: Duration::from_secs(5),
            native_code: false,
        }
    }
}

impl Limits {
    /// These limits, with the rules compiled to machine code: for loads that play long
    /// (a game, a study, the app's table).
    pub fn native(self) -> Self {
        Self {
            native_code: true,
            ..self
        }
    }
}

/// How often (in interrupts) the wall clock is read.
const CLOCK_EVERY: u64 = 1024;

/// The meter behind the interrupt, shared between the sandbox and the interrupt closure.
#[derive(Debug)]
pub(crate) struct Meter {
    limit: u64,
    wall: Duration,
    used: Cell<u64>,
    /// When the current call started, read at its first clock check (not at reset, to
    /// keep the clock off the path of short calls).
    started: Cell<Option<Instant>>,
    /// Set once the budget is spent; stays set until the next [`Meter::reset`] so that
    /// every later interrupt fails too and `pcall` cannot swallow the error.
    spent: Cell<Option<Spent>>,
    /// `file:line: ` of the script line running when the budget ran out (the loop that
    /// did not end is the first thing an author needs to see).
    at: RefCell<String>,
    /// While the rules load: `file:line` the script was last seen running at (noted every
    /// [`CLOCK_EVERY`] interrupts), to say where a load ran out of memory, which Luau
    /// reports with no stack left to read.
    seen_at: RefCell<Option<String>>,
}

impl Meter {
    pub fn new(limits: &Limits) -> Rc<Self> {
        Rc::new(Self {
            limit: limits.budget,
            wall: limits.wall_clock,
            used: Cell::new(0),
            started: Cell::new(None),
            spent: Cell::new(None),
            at: RefCell::new(String::new()),
            seen_at: RefCell::new(None),
        })
    }

    /// A fresh budget, at the start of a hook call or of the load.
    /// Starts (or stops) noting where the script runs; see [`Meter::seen_at`].
    pub fn note_where(&self, on: bool) {
        *self.seen_at.borrow_mut() = on.then(String::new);
    }

    /// `file:line` the script was last seen running at while noting, if it was seen.
    pub fn seen_at(&self) -> Option<String> {
        self.seen_at.borrow().clone().filter(|s| !s.is_empty())
    }

    pub fn reset(&self) {
        self.used.set(0);
        self.spent.set(None);
        self.started.set(None);
        self.at.borrow_mut().clear();
    }

    /// Why the budget ran out during the current call, if it did.
    pub fn spent(&self) -> Option<String> {
        let at = self.at.borrow();
        self.spent.get().map(|why| match why {
            Spent::Budget => format!(
                "{at}instruction budget exhausted ({} interrupts); the script was stopped \
                 (an endless loop or runaway recursion?)",
                self.limit
            ),
            Spent::Clock => format!(
                "{at}wall-clock backstop reached ({:?}); the script was stopped",
                self.wall
            ),
        })
    }

    /// Installs the interrupt that charges this meter.
    ///
    /// mlua's interrupt wraps every call in its error and panic guards, which cost 9%
    /// of a search's instructions for what is mostly `used += 1`. So the meter
    /// is charged by [`count`], a bare Luau interrupt, and mlua's (which runs
    /// [`Meter::tick`] and raises the error) is called only for the interrupts `tick`
    /// must see: the clock checks, the one past the budget, and any on a coroutine.
    pub fn install(self: &Rc<Self>, lua: &Lua) -> mlua::Result<()> {
        let meter = Rc::clone(self);
        lua.set_interrupt(move |lua| meter.tick(lua));
        let this = Rc::as_ptr(self).cast_mut().cast::<c_void>();
        // SAFETY: `exec_raw` hands over the running state. The callbacks are the
        // global state's, only changed here while no Lua code runs. The thread data of
        // the main thread is set to this meter, which outlives every interrupt: the
        // closure just set holds an `Rc` of it until the `Lua` is closed, and mlua
        // clears the interrupt before closing. Nothing else uses the thread data.
        unsafe {
            lua.exec_raw::<()>((), |state| {
                let callbacks = ffi::lua_callbacks(state);
                if let Some(slow) = (*callbacks).interrupt {
                    SLOW.get_or_init(|| slow);
                    ffi::lua_setthreaddata(ffi::lua_mainthread(state), this);
                    // The profile's interrupt only when profiling: `count` stays bare.
                    (*callbacks).interrupt = Some(if profile::on() { profiled } else { count });
                }
            })
        }
    }

    /// Charges one interrupt if `tick` need not see it; says whether it did.
    fn count(&self) -> bool {
        let used = self.used.get() + 1;
        if used > self.limit || used.is_multiple_of(CLOCK_EVERY) || self.spent.get().is_some() {
            return false;
        }
        self.used.set(used);
        true
    }

    fn tick(&self, lua: &Lua) -> mlua::Result<VmState> {
        if self.spent.get().is_some() {
            return Err(mlua::Error::runtime(STOPPED));
        }
        let used = self.used.get() + 1;
        self.used.set(used);
        let why = if used > self.limit {
            Some(Spent::Budget)
        } else if used.is_multiple_of(CLOCK_EVERY) && self.past_deadline() {
            Some(Spent::Clock)
        } else {
            None
        };
        match why {
            Some(why) => {
                self.spent.set(Some(why));
                *self.at.borrow_mut() = caller(lua);
                Err(mlua::Error::runtime(STOPPED))
            }
            None => {
                if let Some(seen) = self.seen_at.borrow_mut().as_mut() {
                    let at = caller(lua);
                    if !at.is_empty() {
                        *seen = at.trim_end_matches(": ").to_string();
                    }
                }
                Ok(VmState::Continue)
            }
        }
    }
}

impl Meter {
    fn past_deadline(&self) -> bool {
        let now = Instant::now();
        match self.started.get() {
            Some(start) => now.duration_since(start) > self.wall,
            None => {
                self.started.set(Some(now));
                false
            }
        }
    }
}

/// mlua's interrupt procedure (one function for every `Lua`), kept by the first
/// [`Meter::install`].
static SLOW: OnceLock<unsafe extern "C-unwind" fn(*mut ffi::lua_State, c_int)> = OnceLock::new();

/// The Luau interrupt: charges the meter in the thread data, else hands over to mlua's.
/// Garbage-collector interrupts are ignored, as mlua ignores them.
unsafe extern "C-unwind" fn count(state: *mut ffi::lua_State, gc: c_int) {
    if gc >= 0 {
        return;
    }
    // SAFETY: the thread data is null or the meter `install` put there, alive while
    // this interrupt is set; a coroutine's thread data is null.
    let meter = unsafe { ffi::lua_getthreaddata(state).cast::<Meter>().as_ref() };
    if meter.is_some_and(Meter::count) {
        return;
    }
    if let Some(slow) = SLOW.get() {
        // SAFETY: mlua's own interrupt, called as Luau would call it.
        unsafe { slow(state, gc) }
    }
}

/// [`count`], charging the interrupt to the rules' profile first ([`profile`]).
unsafe extern "C-unwind" fn profiled(state: *mut ffi::lua_State, gc: c_int) {
    if gc < 0 {
        // SAFETY: as in `count`.
        let meter = unsafe { ffi::lua_getthreaddata(state).cast::<Meter>().as_ref() };
        let fresh = meter.is_some_and(|m| m.used.get() == 0);
        // SAFETY: `state` runs, in its interrupt.
        unsafe { profile::sample(state, fresh) };
    }
    // SAFETY: as Luau calls it.
    unsafe { count(state, gc) }
}

/// Why a call was stopped.
#[derive(Clone, Copy, Debug)]
enum Spent {
    Budget,
    Clock,
}

/// What the script sees if it catches the error (it cannot go on: every interrupt fails).
const STOPPED: &str = "script stopped: budget exhausted";
