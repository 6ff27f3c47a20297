//! Hostile scripts: each ends in a clear `ScriptError`, quickly (the test budget is small),
//! and leaves the sandbox answering normal questions.

use crate::common;

use common::*;
use muster_scripting::{Answer, Limits, ScriptError};

/// Runs `body` as the `attack` handler; returns the error and checks the sandbox survives.
fn attack(body: &str) -> ScriptError {
    attack_with(body, limits())
}

fn attack_with(body: &str, limits: Limits) -> ScriptError {
    let mut sb = armed_with(body, limits);
    let err = match sb.question("attack", ()) {
        Ok(a) => panic!("`{body}` answered {a:?} instead of failing"),
        Err(e) => e,
    };
    assert_eq!(err.hook(), Some("attack"), "{err}");
    assert_usable(&mut sb);
    // The same attack fails the same way a second time.
    let again = sb.question("attack", ()).expect_err("second attack");
    assert_eq!(
        std::mem::discriminant(&again),
        std::mem::discriminant(&err),
        "{again}"
    );
    assert_usable(&mut sb);
    err
}

fn assert_budget(err: &ScriptError) {
    match err {
        ScriptError::Budget {
            hook,
            handler,
            message,
        } => {
            assert_eq!(hook, "attack");
            assert_eq!(handler, "rules/init.luau:2");
            assert!(message.contains("budget exhausted"), "{message}");
            assert!(err.to_string().contains("hook 'attack'"), "{err}");
        }
        other => panic!("expected a budget error, got {other:?}"),
    }
}

fn assert_memory(err: &ScriptError) {
    match err {
        ScriptError::Memory {
            hook,
            handler,
            limit,
            ..
        } => {
            assert_eq!(hook, "attack");
            assert_eq!(handler, "rules/init.luau:2");
            assert_eq!(*limit, limits().memory_bytes);
            assert!(err.to_string().contains("out of memory"), "{err}");
        }
        other => panic!("expected a memory error, got {other:?}"),
    }
}

/// A runtime error whose message contains `needle`.
fn assert_runtime(err: &ScriptError, needle: &str) {
    match err {
        ScriptError::Runtime { hook, message, .. } => {
            assert_eq!(hook, "attack");
            assert!(
                message.contains(needle),
                "expected '{needle}' in: {message}"
            );
        }
        other => panic!("expected a runtime error with '{needle}', got {other:?}"),
    }
}

// --- Endless computation ----------------------------------------------------------------

#[test]
fn infinite_loop() {
    assert_budget(&attack("while true do end"));
}

#[test]
fn infinite_loop_inside_pcall() {
    assert_budget(&attack(
        "local ok = pcall(function() while true do end end)\nreturn ok == false",
    ));
}

#[test]
fn pcall_in_an_infinite_loop() {
    assert_budget(&attack(
        "while true do pcall(function() while true do end end) end",
    ));
}

#[test]
fn infinite_loop_in_coroutine_wrap() {
    assert_budget(&attack(
        "pcall(coroutine.wrap(function() while true do end end))\nreturn true",
    ));
}

#[test]
fn infinite_loop_in_coroutine_resume() {
    // `resume` catches the error like `pcall`; the spent budget still fails the call.
    assert_budget(&attack(
        "local co = coroutine.create(function() while true do end end)\n\
         local ok = coroutine.resume(co)\nreturn not ok",
    ));
}

#[test]
fn catastrophic_pattern() {
    // Luau's pattern matcher calls the interrupt, so backtracking is metered too.
    assert_budget(&attack(
        "return string.find(string.rep('a', 5000), '.-.-.-.-.-.-b') ~= nil",
    ));
}

#[test]
fn error_object_whose_tostring_loops() {
    assert_budget(&attack(
        "error(setmetatable({}, {__tostring = function() while true do end end}))",
    ));
}

// --- Native code ----------------------------------------------------------------------------

/// The limits compiled to machine code (`Limits::native`): a game's and a study's rules
/// run so, and compiled code must be stopped as the interpreter is.
fn native() -> Limits {
    limits().native()
}

#[test]
fn native_code_is_stopped_by_the_budget() {
    assert_budget(&attack_with("while true do end", native()));
    assert_budget(&attack_with(
        "local n = 0\nfor i = 1, 1e12 do n = n + i % 7 end\nreturn n",
        native(),
    ));
    assert_budget(&attack_with(
        "local ok = pcall(function() while true do end end)\nreturn ok == false",
        native(),
    ));
}

#[test]
fn native_code_is_stopped_by_the_memory_limit() {
    let generous = Limits {
        budget: 50_000_000,
        ..native()
    };
    assert_memory(&attack_with(
        "local t = {}\nfor i = 1, 1e8 do t[i] = {i, i, i, i} end\nreturn true",
        generous,
    ));
}

#[test]
fn native_code_answers_as_the_interpreter_does() {
    // Arithmetic (float and integer division), strings and sorting, compiled and
    // interpreted: the same sum.
    let init = "hooks.on(\"bonus\", function()\n\
                local t = {}\n\
                for i = 1, 200 do t[i] = (i * 7919) % 104729 / 3 end\n\
                table.sort(t, function(a, b) return a > b end)\n\
                local s = {}\n\
                for i = 1, #t, 17 do s[#s + 1] = string.format('%.6f', t[i]) end\n\
                local text = table.concat(s, ',')\n\
                local n = 0\n\
                for i = 1, #text do n = (n * 31 + string.byte(text, i)) % 1000003 end\n\
                return n + math.floor(t[1] * 1000) // 7\n\
                end)\n";
    let answer = |limits: Limits| {
        let mut sb = load_with(init, &[], limits).expect("loads");
        sb.question("bonus", ()).expect("answers").as_int()
    };
    let interpreted = answer(limits());
    assert!(interpreted.is_some_and(|n| n > 0), "{interpreted:?}");
    assert_eq!(answer(native()), interpreted);
}

// --- Memory -------------------------------------------------------------------------------

#[test]
fn huge_string() {
    assert_memory(&attack("local s = string.rep('x', 2^30)\nreturn #s > 0"));
}

#[test]
fn doubling_string() {
    assert_memory(&attack(
        "local s = string.rep('x', 2^20)\nwhile true do s = s .. s end",
    ));
}

#[test]
fn huge_table() {
    assert_memory(&attack("local t = table.create(1e7, 0)\nreturn #t > 0"));
}

#[test]
fn growing_table() {
    let generous = Limits {
        budget: 50_000_000,
        ..limits()
    };
    assert_memory(&attack_with(
        "local t = {}\nfor i = 1, 1e8 do t[i] = {i, i, i, i} end\nreturn true",
        generous,
    ));
}

// --- Recursion ----------------------------------------------------------------------------

#[test]
fn deep_recursion() {
    let err = attack("local function f(n) return 1 + f(n + 1) end\nreturn f(1) > 0");
    assert_runtime(&err, "rules/init.luau:3: stack overflow");
}

#[test]
fn deep_recursion_through_pcall() {
    let err = attack(
        "local function f()\n  local ok, e = pcall(f)\n  if not ok then error(e, 0) end\n  return ok\nend\nreturn f()",
    );
    assert_runtime(&err, "stack overflow");
}

#[test]
fn exponential_recursion_through_pcall() {
    assert_budget(&attack(
        "local function f() pcall(f) f() end\nf()\nreturn true",
    ));
}

// --- Escaping the folder ------------------------------------------------------------------

fn assert_require(err: &ScriptError, name: &str, needle: &str) {
    match err {
        ScriptError::Require {
            name: n, message, ..
        } => {
            assert_eq!(n, name);
            assert!(
                message.contains(needle),
                "expected '{needle}' in: {message}"
            );
            assert!(
                err.to_string().contains(&format!("require('{name}')")),
                "{err}"
            );
            assert!(err.to_string().starts_with("rules/init.luau:3: "), "{err}");
            assert!(err.to_string().ends_with("(in hook 'attack')"), "{err}");
        }
        other => panic!("expected a require error, got {other:?}"),
    }
}

#[test]
fn require_parent_folder() {
    // Refused by name, at call time as at load time.
    assert_require(&attack("require('../..')"), "../..", "not paths");
    let err = load("local x = require('../..')")
        .err()
        .expect("load must fail");
    assert!(matches!(err, ScriptError::Require { .. }), "{err:?}");
}

#[test]
fn require_absolute_path() {
    assert_require(
        &attack("require('/etc/passwd')"),
        "/etc/passwd",
        "not paths",
    );
}

#[test]
fn require_empty_segment() {
    assert_require(&attack("require('rules..x')"), "rules..x", "empty segment");
}

#[test]
fn require_after_load() {
    assert_require(
        &attack("require('rules.other')"),
        "rules.other",
        "only be loaded while the rules load",
    );
}

// --- Removed and frozen things ------------------------------------------------------------

#[test]
fn loadstring_and_load_are_gone() {
    assert_runtime(
        &attack("return loadstring('return true')()"),
        "rules/init.luau:3: attempt to call a nil value",
    );
    assert_runtime(
        &attack("return load('return true')()"),
        "attempt to call a nil value",
    );
}

#[test]
fn host_libraries_are_gone() {
    assert_runtime(
        &attack("os.execute('ls')"),
        "attempt to index nil with 'execute'",
    );
    assert_runtime(
        &attack("io.open('/etc/passwd')"),
        "attempt to index nil with 'open'",
    );
    assert_runtime(
        &attack("debug.getinfo(1)"),
        "attempt to index nil with 'getinfo'",
    );
    assert_runtime(&attack("getfenv(1).x = 1"), "attempt to call a nil value");
    assert_runtime(
        &attack("collectgarbage('collect')"),
        "attempt to call a nil value",
    );
}

#[test]
fn string_metatable_is_frozen() {
    assert_runtime(
        &attack("getmetatable('').__index = {}"),
        "attempt to modify a readonly table",
    );
    assert_runtime(
        &attack("string.upper = nil"),
        "attempt to modify a readonly table",
    );
}

#[test]
fn defs_are_frozen() {
    // (The test bundle has no module: `defs` has empty, frozen lists.)
    assert_runtime(
        &attack("defs.boxes[1] = {}"),
        "attempt to modify a readonly table",
    );
    assert_runtime(
        &attack("defs.extra = 1"),
        "attempt to modify a readonly table",
    );
    // `defs` has a locked metatable (unknown fields are errors): setmetatable is refused.
    assert_runtime(
        &attack("setmetatable(defs, {__index = function() return 1 end})"),
        "cannot change a protected metatable",
    );
    assert_runtime(
        &attack("rawset(defs, 'x', 1)"),
        "attempt to modify a readonly table",
    );
}

#[test]
fn writes_to_module_defs_fail() {
    let (_dir, m) = mini_module();
    let mut sb = mini_sandbox(&m);
    for what in ["box name", "new key", "tags", "metatable", "rawset"] {
        match sb.question("attack", what) {
            Err(ScriptError::Runtime { message, .. }) => {
                assert!(
                    message.contains("attempt to modify a readonly table"),
                    "{what}: {message}"
                );
                // Assignments carry their place; library functions (C) raise it bare.
                if what == "box name" || what == "new key" {
                    assert!(
                        message.starts_with("mini/rules/init.luau:"),
                        "{what}: {message}"
                    );
                }
            }
            other => panic!("{what}: {other:?}"),
        }
        assert_usable(&mut sb);
    }
    assert_eq!(
        sb.question("attack", "nothing").ok(),
        Some(Answer::Bool(true))
    );
}

#[test]
fn globals_cannot_be_written() {
    assert_runtime(&attack("_G.x = 1"), "attempt to modify a readonly table");
    assert_runtime(
        &attack("x = 1"),
        "rules/init.luau:3: cannot assign global 'x': scripts may not create or change globals; declare it local",
    );
    assert_runtime(&attack("math = {}"), "cannot assign global 'math'");
    assert_runtime(
        &attack("rawset(_G, 'x', 1)"),
        "attempt to modify a readonly table",
    );
}

#[test]
fn global_function_at_load_is_refused() {
    let err = load("function helper() end").err().expect("load must fail");
    match err {
        ScriptError::Runtime { hook, message, .. } => {
            assert_eq!(hook, muster_scripting::LOADING);
            assert!(
                message.starts_with("rules/init.luau:1: cannot assign global 'helper'"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn random_cannot_be_reseeded() {
    assert_runtime(
        &attack("math.randomseed(42)"),
        "math.randomseed is disabled",
    );
}

#[test]
fn hooks_cannot_be_registered_at_call_time() {
    assert_runtime(
        &attack("hooks.on('ping', function() return false end)"),
        "hooks.on: `hooks` exists only while the rules load",
    );
    // A reference kept from load time does not help.
    let mut sb = load(
        "local on = hooks.on\n\
         hooks.on('ping', function() return true end)\n\
         hooks.on('attack', function() on('ping', function() return false end) return true end)",
    )
    .expect("load");
    let err = sb.question("attack", ()).expect_err("late registration");
    assert!(
        err.to_string()
            .contains("handlers can only be registered while the rules load"),
        "{err}"
    );
    assert_usable(&mut sb);
}

#[test]
fn yield_from_a_handler() {
    assert_runtime(&attack("coroutine.yield()"), "attempt to yield");
}

#[test]
fn huge_error_message_is_cut() {
    let err = attack("error(string.rep('y', 1e6))");
    match &err {
        ScriptError::Runtime { message, .. } => assert!(message.len() < 3000, "{}", message.len()),
        other => panic!("{other:?}"),
    }
}

// --- Bad answers --------------------------------------------------------------------------

#[test]
fn wrong_return_type() {
    let err = attack("return 5");
    match &err {
        ScriptError::BadReturn {
            hook,
            handler,
            message,
        } => {
            assert_eq!(hook, "attack");
            assert_eq!(handler, "rules/init.luau:2");
            assert!(message.contains("returned the integer 5"), "{message}");
            assert!(message.contains("needs a boolean"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let err = attack("return nil");
    assert!(err.to_string().contains("returned nil"), "{err}");
}

fn event_error(handler: &str) -> ScriptError {
    let init =
        format!("hooks.on('ping', function() return true end)\nhooks.on('on_turn', {handler})\n");
    let mut sb = load(&init).expect("load");
    let err = sb.event("on_turn", ()).expect_err("bad commands");
    assert_usable(&mut sb);
    err
}

fn assert_bad_return(err: &ScriptError, needle: &str) {
    match err {
        ScriptError::BadReturn { hook, message, .. } => {
            assert_eq!(hook, "on_turn");
            assert!(
                message.contains(needle),
                "expected '{needle}' in: {message}"
            );
        }
        other => panic!("expected a bad return with '{needle}', got {other:?}"),
    }
}

#[test]
fn event_returning_a_function() {
    assert_bad_return(
        &event_error("function() return { { kind = 'log', text = print } } end"),
        "returned a function at result[1].text",
    );
}

#[test]
fn event_returning_a_cyclic_table() {
    assert_bad_return(
        &event_error("function() local c = { kind = 'log' }\nc.self = c\nreturn { c } end"),
        "cyclic table at result[1].self",
    );
}

#[test]
fn event_returning_deep_nesting() {
    assert_bad_return(
        &event_error(
            "function() local t = {}\nfor i = 1, 40 do t = { t } end\nreturn { { kind = 'x', t = t } } end",
        ),
        "nested deeper than 16",
    );
}

#[test]
fn event_returning_a_shared_table_bomb() {
    // 8 levels of 100 references to one table would be 10^16 values once copied.
    assert_bad_return(
        &event_error(
            "function()\n  local t = { 1 }\n  for _ = 1, 8 do\n    local n = {}\n    for i = 1, 100 do n[i] = t end\n    t = n\n  end\n  return { { kind = 'x', t = t } }\nend",
        ),
        "more than 100000 values",
    );
}

#[test]
fn event_returning_scoped_or_odd_values() {
    assert_bad_return(
        &event_error("function() return { { kind = 'x', co = coroutine.create(print) } } end"),
        "a coroutine",
    );
    assert_bad_return(
        &event_error("function() return { { kind = 'x', m = { 1, a = 2 } } } end"),
        "mixing list items and named fields",
    );
    assert_bad_return(
        &event_error("function() return { { kind = 'x', m = { [1] = 1, [3] = 3 } } } end"),
        "holes",
    );
    assert_bad_return(
        &event_error("function() return { { kind = 7 } } end"),
        "kind",
    );
    assert_bad_return(
        &event_error("function() return { { to = 7 } } end"),
        "without a `kind`",
    );
    assert_bad_return(
        &event_error("function() return { kind = 'x' } end"),
        "a single command",
    );
    assert_bad_return(
        &event_error("function() return 'x' end"),
        "the string \"x\"",
    );
}

// --- Loading hostile files ----------------------------------------------------------------

#[test]
fn bytecode_is_refused() {
    let compiled = muster_scripting::mlua::chunk::Compiler::new()
        .compile("return 1")
        .expect("compile");
    let dir = bundle(&[("rules/init.luau", "return require('rules.evil')")]);
    std::fs::write(dir.path().join("rules/evil.luau"), compiled).expect("write");
    let err =
        muster_scripting::Sandbox::load(dir.path(), "rules/init.luau", CATALOGUE, limits(), dice())
            .err()
            .expect("bytecode must be refused");
    assert!(err.to_string().contains("binary chunk"), "{err}");
}

#[test]
fn infinite_loop_at_load() {
    let err = load("while true do end").err().expect("load must fail");
    match err {
        ScriptError::Budget { hook, .. } => assert_eq!(hook, muster_scripting::LOADING),
        other => panic!("{other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn symlink_out_of_the_folder_is_refused() {
    let outside = bundle(&[("secret.luau", "return 'secret'")]);
    let dir = bundle(&[("rules/init.luau", "local s = require('rules.link')")]);
    std::os::unix::fs::symlink(
        outside.path().join("secret.luau"),
        dir.path().join("rules/link.luau"),
    )
    .expect("symlink");
    let err =
        muster_scripting::Sandbox::load(dir.path(), "rules/init.luau", CATALOGUE, limits(), dice())
            .err()
            .expect("must be refused");
    assert!(
        err.to_string().contains("outside the module folder"),
        "{err}"
    );
}

/// Whether `body` runs to its end under a budget of `budget` interrupts.
fn runs_within(body: &str, budget: u64) -> bool {
    let mut sb = armed_with(body, Limits { budget, ..limits() });
    match sb.question("attack", ()) {
        Ok(_) => true,
        Err(e) => {
            assert_budget(&e);
            false
        }
    }
}

/// The budget charges every interrupt, on the main thread and in a coroutine alike
/// (they are charged by different paths), past the clock checks every 1,024: with 3,000,
/// a loop of 2,999 passes runs (a pass each, and the call) and one more pass stops it.
/// The coroutine's creation and call take three.
#[test]
fn the_budget_is_counted_exactly() {
    let main = "for i = 1, N do end\nreturn true";
    let coroutine = "coroutine.wrap(function() for i = 1, N do end end)()\nreturn true";
    for (body, last) in [(main, 2999), (coroutine, 2996)] {
        let passes = |n: u32| body.replace('N', &n.to_string());
        assert!(runs_within(&passes(last), 3000), "{}", passes(last));
        assert!(
            !runs_within(&passes(last + 1), 3000),
            "{}",
            passes(last + 1)
        );
    }
}
