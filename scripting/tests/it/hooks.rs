//! The hook model: registration, combine rules, events and their commands.

use crate::common;

use common::*;
use muster_scripting::{Answer, ScriptError, ScriptValue};

/// A bundle registering `handlers` (Lua function expressions) for `hook`.
fn with_handlers(hook: &str, handlers: &[&str]) -> muster_scripting::Sandbox {
    let init: String = handlers
        .iter()
        .map(|h| format!("hooks.on('{hook}', {h})\n"))
        .collect();
    match load(&init) {
        Ok(sb) => sb,
        Err(e) => panic!("did not load: {e}"),
    }
}

fn ask(hook: &str, handlers: &[&str]) -> Answer {
    let mut sb = with_handlers(hook, handlers);
    assert_eq!(sb.handler_count(hook), handlers.len());
    match sb.question(hook, (2, 3)) {
        Ok(a) => a,
        Err(e) => panic!("{hook}: {e}"),
    }
}

const NOT_REACHED: &str = "function() error('short-circuit failed') end";

#[test]
fn all() {
    assert_eq!(ask("may_enter", &[]), Answer::Bool(true));
    assert_eq!(
        ask("may_enter", &["function() return false end"]),
        Answer::Bool(false)
    );
    assert_eq!(
        ask("may_enter", &["function() return true end"; 3]),
        Answer::Bool(true)
    );
    assert_eq!(
        ask(
            "may_enter",
            &[
                "function() return true end",
                "function() return false end",
                NOT_REACHED
            ]
        ),
        Answer::Bool(false)
    );
}

#[test]
fn any() {
    assert_eq!(ask("is_jump", &[]), Answer::Bool(false));
    assert_eq!(
        ask("is_jump", &["function() return true end"]),
        Answer::Bool(true)
    );
    assert_eq!(
        ask("is_jump", &["function() return false end"; 3]),
        Answer::Bool(false)
    );
    assert_eq!(
        ask(
            "is_jump",
            &[
                "function() return false end",
                "function() return true end",
                NOT_REACHED
            ]
        ),
        Answer::Bool(true)
    );
}

#[test]
fn sum() {
    assert_eq!(ask("bonus", &[]), Answer::Int(0));
    assert_eq!(
        ask("bonus", &["function(a, b) return a * b end"]),
        Answer::Int(6)
    );
    assert_eq!(
        ask(
            "bonus",
            &[
                "function(a, b) return a end",
                "function(a, b) return b end",
                "function() return -10 end"
            ]
        ),
        Answer::Int(-5)
    );
}

#[test]
fn min() {
    assert_eq!(ask("limit", &[]), Answer::None);
    assert_eq!(
        ask("limit", &["function(a, b) return a + b end"]),
        Answer::Int(5)
    );
    assert_eq!(
        ask(
            "limit",
            &[
                "function() return 7 end",
                "function() return nil end",
                "function(a) return a end"
            ]
        ),
        Answer::Int(2)
    );
    assert_eq!(
        ask("limit", &["function() return nil end"; 3]),
        Answer::None
    );
}

#[test]
fn integer_rules_refuse_fractions_and_booleans() {
    let mut sb = with_handlers("bonus", &["function() return 1.5 end"]);
    let err = sb.question("bonus", ()).expect_err("fraction");
    assert!(
        err.to_string()
            .contains("returned the number 1.5; this hook needs an integer"),
        "{err}"
    );
    let mut sb = with_handlers("limit", &["function() return true end"]);
    let err = sb.question("limit", ()).expect_err("boolean");
    assert!(
        err.to_string().contains("returned the boolean true"),
        "{err}"
    );
    // A whole number computed with floats is an integer.
    assert_eq!(
        ask("bonus", &["function() return 3 / 1.5 end"]),
        Answer::Int(2)
    );
}

#[test]
fn handlers_run_in_registration_order_across_modules() {
    let mut sb = load_with(
        "hooks.on('on_turn', function() return { { kind = 'log', text = 'base' } } end)\n\
         require('rules.overlay')\n\
         hooks.on('on_turn', function() return nil end)\n\
         hooks.on('on_turn', function() return { { kind = 'log', text = 'last' } } end)\n",
        &[(
            "rules/overlay.luau",
            "hooks.on('on_turn', function() return { { kind = 'log', text = 'overlay' }, { kind = 'log', text = 'overlay 2' } } end)\n",
        )],
        limits(),
    )
    .expect("load");
    let texts: Vec<String> = sb
        .event("on_turn", ())
        .expect("event")
        .into_iter()
        .map(|c| c.fields["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(texts, ["base", "overlay", "overlay 2", "last"]);
}

#[test]
fn unknown_hook_gets_a_suggestion() {
    let err = load("hooks.on('ping', function() return true end)\nhooks.on('may_entre', function() return true end)")
        .err()
        .expect("unknown hook");
    match &err {
        ScriptError::UnknownHook { name, hint, at } => {
            assert_eq!(name, "may_entre");
            assert_eq!(hint.as_deref(), Some("did you mean 'may_enter'?"));
            assert_eq!(at, "rules/init.luau:2: ");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "rules/init.luau:2: unknown hook 'may_entre'; did you mean 'may_enter'?"
    );
    let err = load("hooks.on('zzzzzz', function() end)")
        .err()
        .expect("unknown hook");
    assert_eq!(err.to_string(), "rules/init.luau:1: unknown hook 'zzzzzz'");
    // A megabyte of name: refused quickly, with a short message.
    let err = load("hooks.on(string.rep('may_enter', 1e5), function() end)")
        .err()
        .expect("unknown hook");
    assert!(err.to_string().len() < 200, "{err}");
}

#[test]
fn bad_registrations() {
    let err = load("hooks:on('ping', function() end)")
        .err()
        .expect("method call");
    assert!(
        err.to_string().contains("write hooks.on, not hooks:on"),
        "{err}"
    );
    let err = load("hooks.on('ping', 5)").err().expect("not a function");
    assert!(
        err.to_string()
            .contains("rules/init.luau:1: hooks.on('ping'): the second argument must be a function, got the integer 5"),
        "{err}"
    );
}

#[test]
fn engine_asking_wrong_names() {
    let mut sb = load("hooks.on('ping', function() return true end)").expect("load");
    match sb.question("pnig", ()) {
        Err(ScriptError::UnknownHook { hint, .. }) => {
            assert_eq!(hint.as_deref(), Some("did you mean 'ping'?"));
        }
        other => panic!("{other:?}"),
    }
    let err = sb.question("on_turn", ()).expect_err("event as question");
    assert!(err.to_string().contains("'on_turn' is an event"), "{err}");
    let err = sb.event("ping", ()).expect_err("question as event");
    assert!(err.to_string().contains("'ping' is a question"), "{err}");
    assert_usable(&mut sb);
}

#[test]
fn duplicate_catalogue_entries_are_refused() {
    use muster_scripting::{Combine, HookSpec, Sandbox};
    let dir = bundle(&[("rules/init.luau", "")]);
    let twice = [HookSpec::event("x"), HookSpec::question("x", Combine::All)];
    let err = Sandbox::load(dir.path(), "rules/init.luau", &twice, limits(), dice())
        .err()
        .expect("duplicate");
    assert!(matches!(err, ScriptError::Load { .. }), "{err:?}");
}

#[test]
fn event_commands_are_copied_into_rust_values() {
    let mut sb = load(
        "hooks.on('on_turn', function(turn)\n\
           return {\n\
             { kind = 'move', unit = 3, to = 17, path = { 1, 2, 17 } },\n\
             { kind = 'note', turn = turn, ratio = 0.25, whole = 4.0, ok = true,\n\
               detail = { who = 'north', list = {} } },\n\
           }\n\
         end)",
    )
    .expect("load");
    let commands = sb.event("on_turn", 12).expect("event");
    assert_eq!(commands.len(), 2);
    let mv = &commands[0];
    assert_eq!(mv.kind, "move");
    assert_eq!(mv.get("unit"), Some(&ScriptValue::Int(3)));
    assert_eq!(
        mv.get("path"),
        Some(&ScriptValue::List(vec![
            ScriptValue::Int(1),
            ScriptValue::Int(2),
            ScriptValue::Int(17)
        ]))
    );
    assert!(!mv.fields.contains_key("kind"));
    let note = &commands[1];
    assert_eq!(note.get("turn"), Some(&ScriptValue::Int(12)));
    assert_eq!(note.get("ratio"), Some(&ScriptValue::Float(0.25)));
    assert_eq!(note.get("whole"), Some(&ScriptValue::Int(4)));
    assert_eq!(note.get("ok"), Some(&ScriptValue::Bool(true)));
    match note.get("detail") {
        Some(ScriptValue::Map(m)) => {
            assert_eq!(m["who"], ScriptValue::Str("north".into()));
            assert_eq!(m["list"], ScriptValue::List(vec![]));
        }
        other => panic!("{other:?}"),
    }
    // No handler: no commands.
    let mut empty = load("").expect("load");
    assert_eq!(empty.event("on_turn", ()).expect("event"), vec![]);
}

#[test]
fn script_values_go_back_into_lua() {
    let mut sb =
        load("hooks.on('bonus', function(v) return v.n + #v.list + (v.flag and 100 or 0) end)")
            .expect("load");
    let arg = ScriptValue::Map(
        [
            ("n".to_string(), ScriptValue::Int(5)),
            (
                "list".to_string(),
                ScriptValue::List(vec![ScriptValue::Nil, ScriptValue::Float(1.5)]),
            ),
            ("flag".to_string(), ScriptValue::Bool(true)),
        ]
        .into_iter()
        .collect(),
    );
    // `{nil, 1.5}` has a border at 0 or 2; Luau gives 2.
    assert_eq!(sb.question("bonus", arg).expect("bonus"), Answer::Int(107));
}
