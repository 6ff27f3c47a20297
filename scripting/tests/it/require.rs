//! `require` inside the module folder, chunk names, syntax errors.

use crate::common;

use common::*;
use muster_scripting::{Sandbox, ScriptError};

#[test]
fn require_loads_once_and_caches() {
    let mut sb = load_with(
        "local a = require('rules.lib.shared')\n\
         local b = require('rules.lib.shared')\n\
         assert(rawequal(a, b), 'the same table twice')\n\
         assert(require('rules.empty') == true)\n\
         hooks.on('bonus', function() return a.value end)",
        &[
            (
                "rules/lib/shared.luau",
                "print('loading shared')\nreturn { value = 41 + 1 }",
            ),
            ("rules/empty.luau", "local _ = 1"),
        ],
        limits(),
    )
    .expect("load");
    assert_eq!(sb.take_output(), ["loading shared"]);
    assert_eq!(sb.question("bonus", ()).expect("bonus").as_int(), Some(42));
    // Already loaded modules are still available at call time.
    let mut sb = load_with(
        "local lib = require('rules.lib')\n\
         hooks.on('bonus', function() return require('rules.lib').n end)",
        &[("rules/lib.luau", "return { n = 7 }")],
        limits(),
    )
    .expect("load");
    assert_eq!(sb.question("bonus", ()).expect("bonus").as_int(), Some(7));
}

#[test]
fn chunk_names_are_module_relative() {
    let mut sb = load_with(
        "local bad = require('rules.bad')\nhooks.on('ping', bad.ping)",
        &[(
            "rules/bad.luau",
            "local M = {}\nfunction M.ping(t)\n  return t.x\nend\nreturn M",
        )],
        limits(),
    )
    .expect("load");
    match sb.question("ping", ()) {
        Err(ScriptError::Runtime {
            hook,
            message,
            traceback,
        }) => {
            assert_eq!(hook, "ping");
            assert_eq!(message, "rules/bad.luau:3: attempt to index nil with 'x'");
            assert!(traceback.contains("rules/bad.luau:3"), "{traceback}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn syntax_errors_name_file_and_line() {
    let err = load_with(
        "require('rules.broken')",
        &[("rules/broken.luau", "local x = 1\nlocal y = = 2\n")],
        limits(),
    )
    .err()
    .expect("syntax error");
    match &err {
        ScriptError::Syntax {
            file,
            line,
            message,
        } => {
            assert_eq!(file, "rules/broken.luau");
            assert_eq!(*line, Some(2));
            assert!(message.starts_with("rules/broken.luau:2: "), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn require_cycle_is_named() {
    let err = load_with(
        "require('rules.a')",
        &[
            ("rules/a.luau", "return require('rules.b')"),
            ("rules/b.luau", "return require('rules.a')"),
        ],
        limits(),
    )
    .err()
    .expect("cycle");
    match &err {
        ScriptError::Require {
            name, message, at, ..
        } => {
            assert_eq!(name, "rules.a");
            assert_eq!(message, "require cycle: rules.a -> rules.b -> rules.a");
            assert_eq!(at, "rules/b.luau:1: ");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_entry_is_part_of_cycles() {
    let err = load_with(
        "require('rules.a')",
        &[("rules/a.luau", "return require('rules.init')")],
        limits(),
    )
    .err()
    .expect("cycle");
    assert!(
        err.to_string()
            .contains("rules.init -> rules.a -> rules.init"),
        "{err}"
    );
}

#[test]
fn missing_module() {
    let err = load("require('rules.nope')").err().expect("missing");
    assert_eq!(
        err.to_string(),
        "rules/init.luau:1: require('rules.nope'): no file rules/nope.luau in the module folder (in hook '(load)')"
    );
}

#[test]
fn bad_entries_and_folders() {
    let dir = bundle(&[("rules/init.luau", "")]);
    for entry in [
        "../init.luau",
        "rules/init.lua",
        "/rules/init.luau",
        "rules//init.luau",
    ] {
        let err = Sandbox::load(dir.path(), entry, CATALOGUE, limits(), dice())
            .err()
            .expect("bad entry");
        assert!(matches!(err, ScriptError::Load { .. }), "{entry}: {err:?}");
    }
    let err = Sandbox::load(
        &dir.path().join("nowhere"),
        "rules/init.luau",
        CATALOGUE,
        limits(),
        dice(),
    )
    .err()
    .expect("no folder");
    assert!(
        err.to_string().contains("cannot open the module folder"),
        "{err}"
    );
    let err = Sandbox::load(
        dir.path(),
        "rules/missing.luau",
        CATALOGUE,
        limits(),
        dice(),
    )
    .err()
    .expect("no entry");
    assert!(
        err.to_string().contains("no file rules/missing.luau"),
        "{err}"
    );
}
