//! A question's handlers called straight on the Lua stack.
//!
//! A path search asks a question of every path it tries, and each handler call through
//! mlua's `Function::call` cost ~700 instructions around its `lua_pcall` (the weak
//! handle upgraded, a stack guard, the error handler and the function pushed, the
//! answer made a `Value`), and a hook with several handlers (AHD's `may_enter`) made its
//! arguments a `MultiValue` first: a reference taken and dropped for each. Here the
//! arguments are pushed once, each handler is called on copies of them under
//! `lua_pcall` with mlua's own error handler, and the answer is read off the stack, so
//! every answer, error and traceback is what `Function::call` would give.

use std::ffi::{c_int, c_void};

use mlua::state::RawLua;
use mlua::{Function, IntoLua, IntoLuaMulti, Lua, Value, ffi};

use crate::hooks::Handler;

/// The registry key the error handler is noted under while [`error_handler`] runs.
static NOTED: u8 = 0;

/// mlua's error handler, the function `Function::call` gives `lua_pcall` (it adds the
/// traceback at the error, and leaves mlua's own errors and memory errors as they are),
/// or `None` if it could not be found; callers then use `Function::call`.
///
/// mlua keeps it private, so it is found by the one thing it does with a plain error
/// value: it asks for the value's string, calling its `__tostring` as the caller (one
/// level up). A probe raised through `Function::call` has a `__tostring` that notes
/// the function at that level, which must be a C function.
pub(crate) fn error_handler(lua: &Lua) -> Option<Function> {
    unsafe extern "C-unwind" fn note_caller(state: *mut ffi::lua_State) -> c_int {
        // SAFETY: a C function Luau calls with room for `LUA_MINSTACK` values; the
        // debug record is plain data Luau fills in.
        unsafe {
            let mut ar: ffi::lua_Debug = std::mem::zeroed();
            if ffi::lua_getinfo(state, 1, c"f".as_ptr(), &mut ar) != 0 {
                ffi::lua_rawsetp(state, ffi::LUA_REGISTRYINDEX, key());
            }
            ffi::lua_pushstring(state, c"(error handler probe)".as_ptr());
        }
        1
    }
    unsafe extern "C-unwind" fn raise(state: *mut ffi::lua_State) -> c_int {
        // SAFETY: raises its argument, as Luau's `error` does.
        unsafe { ffi::lua_error(state) }
    }
    // SAFETY: `exec_raw` runs the closures inside a protected call with room for three
    // values (a memory error unwinds to it); each leaves its values on the stack, which
    // `exec_raw` takes. Nothing in them needs dropping.
    let (probe, raiser): (Value, Function) = unsafe {
        lua.exec_raw((), |state| {
            ffi::lua_newuserdata(state, 1);
            ffi::lua_createtable(state, 0, 1);
            ffi::lua_pushcfunction(state, note_caller);
            ffi::lua_setfield(state, -2, c"__tostring".as_ptr());
            ffi::lua_setmetatable(state, -2);
            ffi::lua_pushcfunction(state, raise);
        })
    }
    .ok()?;
    // It fails, by design: its error handler ran.
    let _ = raiser.call::<()>(probe);
    // SAFETY: as above.
    let noted: Value = unsafe {
        lua.exec_raw((), |state| {
            ffi::lua_rawgetp(state, ffi::LUA_REGISTRYINDEX, key());
            if ffi::lua_iscfunction(state, -1) == 0 {
                ffi::lua_settop(state, -2);
                ffi::lua_pushnil(state);
            }
            ffi::lua_pushnil(state);
            ffi::lua_rawsetp(state, ffi::LUA_REGISTRYINDEX, key());
        })
    }
    .ok()?;
    match noted {
        Value::Function(f) => Some(f),
        _ => None,
    }
}

fn key() -> *const c_void {
    std::ptr::from_ref(&NOTED).cast()
}

/// What [`call_each`] calls: a hook's handler (or, in tests, a bare function).
pub(crate) trait Callee {
    fn func(&self) -> &Function;
}

impl Callee for Handler {
    fn func(&self) -> &Function {
        &self.func
    }
}

impl Callee for Function {
    fn func(&self) -> &Function {
        self
    }
}

/// What stopped [`call_each`] before a handler's answer was taken.
pub(crate) enum Stop<E> {
    /// The arguments could not be pushed (no handler ran).
    Args(mlua::Error),
    /// What `each` returned.
    Taken(E),
}

/// Calls `handlers` in order with `args`, as `Function::call::<Value>` would call each,
/// passing `each` the handler's index and its result until `each` says the answer is
/// settled (`Ok(true)`) or fails. The arguments are pushed once, then copied for each
/// handler. The stack is left as found.
///
/// # Safety
/// `raw` is the locked state of the `Lua` that `errh` (from [`error_handler`]), the
/// handlers and the arguments belong to, and no other code uses its stack meanwhile.
pub(crate) unsafe fn call_each<H: Callee, E>(
    raw: &RawLua,
    errh: &Function,
    handlers: &[H],
    args: impl IntoLuaMulti,
    mut each: impl FnMut(usize, mlua::Result<Value>) -> Result<bool, E>,
) -> Result<(), Stop<E>> {
    let state = raw.state();
    // SAFETY: the caller's contract; every push is preceded by room made for it (a
    // tuple of arguments makes its own), and the guard puts the stack back as found
    // however this returns (a Rust panic raised through mlua included).
    unsafe {
        let _guard = Guard {
            state,
            top: ffi::lua_gettop(state),
        };
        if ffi::lua_checkstack(state, 2) == 0 {
            return Err(Stop::Args(mlua::Error::StackError));
        }
        let errfunc = ffi::lua_gettop(state) + 1;
        errh.push_into_stack(raw).map_err(Stop::Args)?;
        if let [handler] = handlers {
            // One handler (most questions): called on the arguments themselves.
            handler.func().push_into_stack(raw).map_err(Stop::Args)?;
            let nargs = args.push_into_stack_multi(raw).map_err(Stop::Args)?;
            let result = called(raw, ffi::lua_pcall(state, nargs, 1, errfunc));
            each(0, result).map_err(Stop::Taken)?;
            return Ok(());
        }
        let nargs = args.push_into_stack_multi(raw).map_err(Stop::Args)?;
        let first = errfunc + 1;
        let room = ffi::lua_checkstack(state, nargs + 1) != 0;
        for (i, handler) in handlers.iter().enumerate() {
            let result = if room {
                handler.func().push_into_stack(raw).map_err(Stop::Args)?;
                for k in 0..nargs {
                    ffi::lua_pushvalue(state, first + k);
                }
                called(raw, ffi::lua_pcall(state, nargs, 1, errfunc))
            } else {
                Err(mlua::Error::StackError)
            };
            ffi::lua_settop(state, first + nargs - 1);
            if each(i, result).map_err(Stop::Taken)? {
                break;
            }
        }
        Ok(())
    }
}

/// The result of a `lua_pcall` of one result that returned `status`: the answer as
/// `Function::call::<Value>` makes it (a boolean or nil read in place, left on the
/// stack), or the error.
///
/// # Safety
/// As [`call_each`], right after the `lua_pcall`.
unsafe fn called(raw: &RawLua, status: c_int) -> mlua::Result<Value> {
    let state = raw.state();
    // SAFETY: the caller's contract: the answer or the error is on top.
    unsafe {
        if status != ffi::LUA_OK {
            return Err(error_of(raw, status));
        }
        match ffi::lua_type(state, -1) {
            ffi::LUA_TNIL => Ok(Value::Nil),
            ffi::LUA_TBOOLEAN => Ok(Value::Boolean(ffi::lua_toboolean(state, -1) != 0)),
            _ => Ok(raw.pop_value()),
        }
    }
}

/// Sets the stack's top back when dropped.
struct Guard {
    state: *mut ffi::lua_State,
    top: c_int,
}

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: the state outlives the call that made the guard; the top was valid.
        unsafe { ffi::lua_settop(self.state, self.top) }
    }
}

/// The error on top of the stack after a failed `lua_pcall`, popped and made the
/// `mlua::Error` mlua's own `pop_error` makes of it: an mlua error carried through the
/// script is itself (a Rust panic carried through resumes here, as it would there),
/// anything else its text by the pcall's status.
///
/// # Safety
/// As [`call_each`], with the error value on top of the stack.
unsafe fn error_of(raw: &RawLua, status: c_int) -> mlua::Error {
    let state = raw.state();
    // SAFETY: the caller's contract.
    unsafe {
        if ffi::lua_type(state, -1) == ffi::LUA_TUSERDATA {
            let pointer = ffi::lua_topointer(state, -1);
            return match raw.pop_value() {
                Value::Error(e) => *e,
                Value::Nil => mlua::Error::PreviouslyResumedPanic,
                _ => by_status(status, format!("<userdata {pointer:?}>")),
            };
        }
        let text = text_of(state, -1);
        ffi::lua_settop(state, -2);
        by_status(status, text)
    }
}

/// The error mlua makes of a text by the pcall's status.
fn by_status(status: c_int, text: String) -> mlua::Error {
    match status {
        ffi::LUA_ERRMEM => mlua::Error::MemoryError(text),
        ffi::LUA_ERRSYNTAX => mlua::Error::SyntaxError {
            incomplete_input: text.ends_with("<eof>") || text.ends_with("'<eof>'"),
            message: text,
        },
        _ => mlua::Error::RuntimeError(text),
    }
}

/// A value's text as mlua's error conversion writes it (`util::to_string`).
///
/// # Safety
/// `index` is a valid index of `state`, which no other code uses meanwhile.
unsafe fn text_of(state: *mut ffi::lua_State, index: c_int) -> String {
    // SAFETY: the caller's contract; `lua_tolstring` of a string does not allocate.
    unsafe {
        match ffi::lua_type(state, index) {
            ffi::LUA_TNONE => "<none>".to_string(),
            ffi::LUA_TNIL => "<nil>".to_string(),
            // (sic: mlua's own)
            ffi::LUA_TBOOLEAN => (ffi::lua_toboolean(state, index) != 1).to_string(),
            ffi::LUA_TLIGHTUSERDATA => {
                format!("<lightuserdata {:?}>", ffi::lua_topointer(state, index))
            }
            ffi::LUA_TNUMBER => {
                let mut isint = 0;
                let i = ffi::lua_tointegerx(state, index, &mut isint);
                if isint == 0 {
                    ffi::lua_tonumber(state, index).to_string()
                } else {
                    i.to_string()
                }
            }
            ffi::LUA_TVECTOR => {
                let v = ffi::lua_tovector(state, index);
                if v.is_null() {
                    return "vector".to_string();
                }
                let (x, y, z) = (*v, *v.add(1), *v.add(2));
                format!("vector({x}, {y}, {z})")
            }
            ffi::LUA_TSTRING => {
                let mut size = 0;
                let data = ffi::lua_tolstring(state, index, &mut size);
                String::from_utf8_lossy(std::slice::from_raw_parts(data.cast::<u8>(), size))
                    .into_owned()
            }
            ffi::LUA_TTABLE => format!("<table {:?}>", ffi::lua_topointer(state, index)),
            ffi::LUA_TFUNCTION => format!("<function {:?}>", ffi::lua_topointer(state, index)),
            ffi::LUA_TTHREAD => format!("<thread {:?}>", ffi::lua_topointer(state, index)),
            ffi::LUA_TBUFFER => format!("<buffer {:?}>", ffi::lua_topointer(state, index)),
            type_id => {
                let name =
                    std::ffi::CStr::from_ptr(ffi::lua_typename(state, type_id)).to_string_lossy();
                format!("<{name} {:?}>", ffi::lua_topointer(state, index))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f(args)` through [`call_each`], and the same through `Function::call`.
    fn both(lua: &Lua, errh: &Function, f: &Function, args: (i64, bool)) -> [String; 2] {
        let show = |r: mlua::Result<Value>| match r {
            Ok(Value::Table(t)) => format!("table {:?}", t.to_pointer()),
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        };
        let mut quick = String::new();
        // SAFETY: the locked state of `lua`, whose values these are.
        let stopped = lua.exec_raw_lua(|raw| unsafe {
            call_each(raw, errh, std::slice::from_ref(f), args, |_, r| {
                quick = show(r);
                Ok::<_, ()>(false)
            })
        });
        assert!(stopped.is_ok());
        [quick, show(f.call::<Value>(args))]
    }

    #[test]
    fn answers_and_errors_are_function_call_s() {
        let lua = Lua::new();
        lua.set_memory_limit(4 << 20).unwrap();
        let errh = error_handler(&lua).expect("mlua's error handler found");
        let rust_error = lua
            .create_function(|_, ()| -> mlua::Result<()> {
                Err(mlua::Error::runtime("said by Rust"))
            })
            .unwrap();
        lua.globals().set("rust_error", rust_error).unwrap();
        lua.globals()
            .set("kept", lua.create_table().unwrap())
            .unwrap();
        let bodies = [
            "return n > 1",
            "return flag",
            "return nil",
            "return",
            "return n, true, 3",
            "return n + 0.5",
            "return 2^53",
            "return 'text'",
            "return kept",
            "error('plain')",
            "local function inner() error('deep ' .. n) end inner()",
            "error({ n = n })",
            "error(n)",
            "error(nil)",
            "error(setmetatable({}, { __tostring = function() return 'shown' end }))",
            "rust_error()",
            "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 64) .. i end",
            "return (nil).field",
        ];
        for body in bodies {
            let f: Function = lua
                .load(format!("local n, flag = ...\n{body}"))
                .set_name(format!("=test:{body}"))
                .into_function()
                .unwrap();
            let [quick, called] = both(&lua, &errh, &f, (2, true));
            // Tables' addresses differ from call to call in errors: compare without them.
            let plain = |s: &str| s.split("0x").next().unwrap_or_default().to_string();
            assert_eq!(plain(&quick), plain(&called), "{body}");
            if !called.contains("0x") {
                assert_eq!(quick, called, "{body}");
            }
            lua.gc_collect().unwrap();
        }
        // The stack is left as found, and the state still answers.
        let f = lua.load("return ...").into_function().unwrap();
        assert_eq!(both(&lua, &errh, &f, (7, false))[0], "Integer(7)");
    }

    #[test]
    fn several_handlers_get_the_same_arguments_until_one_settles() {
        let lua = Lua::new();
        let errh = error_handler(&lua).expect("mlua's error handler found");
        let f = |body: &str| -> Function { lua.load(body).eval().unwrap() };
        let handlers = [
            f("return function(n, s) return n + #s end"),
            f("return function(n, s) return n * 2 end"),
            f("return function(n, s) error('not reached') end"),
        ];
        let mut got = Vec::new();
        // SAFETY: as above.
        let stopped = lua.exec_raw_lua(|raw| unsafe {
            call_each(raw, &errh, &handlers, (5, "abc"), |i, r| {
                got.push((i, r.map_err(|e| e.to_string())));
                Ok::<_, ()>(i == 1)
            })
        });
        assert!(stopped.is_ok());
        assert_eq!(
            got,
            [(0, Ok(Value::Integer(8))), (1, Ok(Value::Integer(10)))]
        );
    }
}
