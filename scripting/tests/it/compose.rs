//! Named handlers and how an overlay composes with its base (issue 14, item 2): replace,
//! wrap (widening or narrowing), remove, order, and the errors when that goes wrong.

use crate::common;

use common::*;
use muster_scripting::{Answer, Sandbox, ScriptError};

/// A base module's rules and an overlay's, loaded in that order.
fn stack(base: &str, overlay: &str) -> Result<Sandbox, ScriptError> {
    let b = bundle(&[("rules/init.luau", base)]);
    let o = bundle(&[("rules/init.luau", overlay)]);
    Sandbox::load_stack(
        &[(b.path(), "rules/init.luau"), (o.path(), "rules/init.luau")],
        CATALOGUE,
        limits(),
        dice(),
    )
}

fn loaded(base: &str, overlay: &str) -> Sandbox {
    match stack(base, overlay) {
        Ok(sb) => sb,
        Err(e) => panic!("did not load: {e}"),
    }
}

fn load_error(base: &str, overlay: &str) -> String {
    match stack(base, overlay) {
        Ok(_) => panic!("loaded, but should not have"),
        Err(e) => e.to_string(),
    }
}

/// The base forbids entering box 2; 1 is fine.
const BASE: &str = r#"
hooks.on("may_enter", function(game, to) return to ~= 2 end, { id = "base.no-two" })
hooks.on("bonus", function() return 1 end, { id = "base.one" })
"#;

fn may_enter(sb: &mut Sandbox, to: i64) -> bool {
    match sb.question("may_enter", (0, to)) {
        Ok(Answer::Bool(b)) => b,
        other => panic!("may_enter: {other:?}"),
    }
}

#[test]
fn an_overlay_handler_is_combined_with_the_base_and_can_only_narrow() {
    // Without ids, `all` lets a house rule forbid more, never allow what the base forbids.
    let mut sb = loaded(
        BASE,
        r#"hooks.on("may_enter", function(game, to) return true end)"#,
    );
    assert!(may_enter(&mut sb, 1));
    assert!(!may_enter(&mut sb, 2));
}

#[test]
fn replacing_a_base_handler_widens_what_it_allowed() {
    let mut sb = loaded(
        BASE,
        r#"hooks.replace("base.no-two", function(game, to) return to ~= 3 end)"#,
    );
    assert!(may_enter(&mut sb, 2), "the base's rule is gone");
    assert!(!may_enter(&mut sb, 3), "the overlay's rule holds");
    assert_eq!(sb.handler_count("may_enter"), 1);
}

#[test]
fn a_wrapper_calls_the_base_through_next_and_may_overrule_it() {
    let mut sb = loaded(
        BASE,
        r#"hooks.wrap("base.no-two", function(next, game, to)
            if to == 2 then return true end -- widened
            if to == 5 then return false end -- narrowed
            return next(game, to)
        end)"#,
    );
    assert!(may_enter(&mut sb, 2));
    assert!(!may_enter(&mut sb, 5));
    assert!(may_enter(&mut sb, 1), "the base still answers the rest");
}

#[test]
fn wraps_compose_in_load_order() {
    let mut sb = loaded(
        BASE,
        r#"
        hooks.wrap("base.one", function(next) return next() * 10 end)
        hooks.wrap("base.one", function(next) return next() + 1 end)
        "#,
    );
    assert_eq!(sb.question("bonus", ()).ok(), Some(Answer::Int(11)));
}

#[test]
fn a_removed_handler_is_not_called() {
    let mut sb = loaded(BASE, r#"hooks.remove("base.no-two")"#);
    assert_eq!(sb.handler_count("may_enter"), 0);
    assert!(may_enter(&mut sb, 2));
}

#[test]
fn before_and_after_order_handlers_of_one_hook() {
    // `on_turn` collects commands in handler order: the log shows the order.
    let base = r#"
        hooks.on("on_turn", function() return { { kind = "log", text = "a" } } end, { id = "a" })
        hooks.on("on_turn", function() return { { kind = "log", text = "b" } } end, { id = "b" })
    "#;
    let overlay = r#"
        hooks.on("on_turn", function() return { { kind = "log", text = "c" } } end, { id = "c", before = "a" })
        hooks.on("on_turn", function() return { { kind = "log", text = "d" } } end, { id = "d", after = "a", before = "c" })
    "#;
    let err = load_error(base, overlay);
    assert!(
        err.contains("in a cycle: ") && err.contains("a -> d -> c -> a"),
        "c before a, a before d, d before c: {err}"
    );
    let overlay = r#"
        hooks.on("on_turn", function() return { { kind = "log", text = "c" } } end, { id = "c", before = "a" })
        hooks.on("on_turn", function() return { { kind = "log", text = "d" } } end, { after = "a", before = "b" })
    "#;
    let mut sb = loaded(base, overlay);
    let texts: Vec<String> = sb
        .event("on_turn", ())
        .expect("event")
        .into_iter()
        .map(|c| format!("{c:?}"))
        .collect();
    let order: String = texts
        .iter()
        .filter_map(|t| {
            ["\"a\"", "\"b\"", "\"c\"", "\"d\""]
                .iter()
                .find(|x| t.contains(**x))
        })
        .map(|x| x.trim_matches('"'))
        .collect();
    assert_eq!(order, "cadb");
}

#[test]
fn two_replacements_of_one_handler_name_both_places() {
    let b = bundle(&[("rules/init.luau", BASE)]);
    let one = bundle(&[(
        "rules/init.luau",
        "hooks.replace('base.no-two', function() return true end)",
    )]);
    let two = bundle(&[(
        "rules/init.luau",
        "\n\nhooks.replace('base.no-two', function() return false end)",
    )]);
    let err = Sandbox::load_stack(
        &[
            (b.path(), "rules/init.luau"),
            (one.path(), "rules/init.luau"),
            (two.path(), "rules/init.luau"),
        ],
        CATALOGUE,
        limits(),
        dice(),
    )
    .err()
    .expect("two replacements are an error")
    .to_string();
    assert!(
        err.contains("rules/init.luau:3") && err.contains("replaced already at rules/init.luau:1"),
        "{err}"
    );
}

#[test]
fn an_unknown_handler_id_is_an_error_with_a_suggestion() {
    let err = load_error(
        BASE,
        "\nhooks.replace('base.no-tow', function() return true end)",
    );
    assert!(err.contains("rules/init.luau:2"), "{err}");
    assert!(err.contains("no handler has this id"), "{err}");
    assert!(err.contains("did you mean 'base.no-two'"), "{err}");
    let err = load_error(BASE, "hooks.remove('nothing.like.it')");
    assert!(err.contains("no handler has this id"), "{err}");
    let err = load_error(BASE, "hooks.wrap('base.one', 3)");
    assert!(err.contains("must be a function"), "{err}");
}

#[test]
fn ids_are_unique_and_orders_name_real_handlers_of_the_hook() {
    let err = load_error(
        BASE,
        "hooks.on('bonus', function() return 1 end, { id = 'base.one' })",
    );
    assert!(err.contains("taken"), "{err}");
    let err = load_error(
        BASE,
        "hooks.on('bonus', function() return 1 end, { before = 'base.no-two' })",
    );
    assert!(err.contains("a handler of 'may_enter'"), "{err}");
    let err = load_error(
        BASE,
        "hooks.on('bonus', function() return 1 end, { befor = 'base.one' })",
    );
    assert!(err.contains("unknown option 'befor'"), "{err}");
    assert!(err.contains("did you mean 'before'"), "{err}");
}

#[test]
fn composing_is_over_when_the_load_is() {
    let mut sb = loaded(
        BASE,
        r#"
        local saved = hooks
        hooks.on("on_turn", function()
            saved.replace("base.one", function() return 99 end)
            return nil
        end)
        "#,
    );
    let err = sb.event("on_turn", ()).expect_err("too late").to_string();
    assert!(
        err.contains("only be registered while the rules load"),
        "{err}"
    );
    assert_eq!(sb.question("bonus", ()).ok(), Some(Answer::Int(1)));
}

/// `fixed = true` declares a handler's answers fixed for a battle (the odds calculator's
/// narrower contract); a hook is fixed when every handler says so, and a replacement or
/// a wrap, being new code, drops the promise.
#[test]
fn fixed_is_declared_per_handler_and_dropped_by_a_replacement_or_a_wrap() {
    let base = r#"
hooks.on("bonus", function() return 1 end, { id = "base.one", fixed = true })
hooks.on("may_enter", function() return true end, { id = "base.enter", fixed = true })
"#;
    let sb = loaded(base, "");
    assert!(sb.all_fixed("bonus") && sb.all_fixed("may_enter"));
    assert!(sb.all_fixed("limit"), "no handler: a constant answer");
    let sb = loaded(base, r#"hooks.on("bonus", function() return 2 end)"#);
    assert!(!sb.all_fixed("bonus"), "a second handler made no promise");
    let sb = loaded(
        base,
        r#"hooks.replace("base.one", function() return 2 end)"#,
    );
    assert!(!sb.all_fixed("bonus"));
    let sb = loaded(
        base,
        r#"hooks.wrap("base.enter", function(next, ...) return next(...) end)"#,
    );
    assert!(!sb.all_fixed("may_enter") && sb.all_fixed("bonus"));
    let err = load_error(
        BASE,
        r#"hooks.on("bonus", function() return 1 end, { fixed = "yes" })"#,
    );
    assert!(err.contains("'fixed' must be true or false"), "{err}");
}

#[test]
fn an_error_in_a_wrapped_handler_names_the_wrappers_call_of_next() {
    // The base's line fails; the mistake is the wrapper's argument (issue 45 item 3).
    let mut sb = loaded(
        "local function check(to)\n\treturn to.x == 1\nend\nhooks.on(\"may_enter\", function(game, to)\n\treturn check(to)\nend, { id = \"base.t\" })\n",
        "hooks.wrap(\"base.t\", function(next, game, to)\n\tlocal r = next(game, nil)\n\treturn r\nend)\nhooks.wrap(\"base.t\", function(next, game, to)\n\treturn next(game, to)\nend)\n",
    );
    let e = sb.question("may_enter", (0, 1)).expect_err("fails");
    assert_eq!(
        e.to_string(),
        "rules/init.luau:2: attempt to index nil with 'x'; reached through hooks.wrap: next(...) at rules/init.luau:2, called by next(...) at rules/init.luau:6 (in hook 'may_enter')"
    );
    // An error in the wrapper's own code is its own line only.
    let mut sb = loaded(
        BASE,
        "hooks.wrap(\"base.no-two\", function(next, game, to)\n\treturn to.x\nend)\n",
    );
    let e = sb.question("may_enter", (0, 1)).expect_err("fails");
    assert_eq!(
        e.to_string(),
        "rules/init.luau:2: attempt to index number with 'x' (in hook 'may_enter')"
    );
}
