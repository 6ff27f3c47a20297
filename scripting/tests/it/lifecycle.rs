//! Reloading keeps the last good sandbox; the same inputs give the same answers.

use crate::common;

use common::*;
use muster_scripting::{Answer, Rng, Sandbox, ScriptError};

#[test]
fn failed_reload_keeps_the_last_good_sandbox() {
    let dir = bundle(&[
        (
            "rules/init.luau",
            "local m = require('rules.moves')\nhooks.on('bonus', m.bonus)",
        ),
        (
            "rules/moves.luau",
            "return { bonus = function() return 2 end }",
        ),
    ]);
    let mut current = Sandbox::load(dir.path(), "rules/init.luau", CATALOGUE, limits(), dice())
        .expect("first load");
    assert_eq!(
        current.question("bonus", ()).expect("bonus"),
        Answer::Int(2)
    );

    // The modder saves a broken edit; the engine tries to reload.
    write(
        dir.path(),
        &[(
            "rules/moves.luau",
            "return { bonus = function() return 3 end",
        )],
    );
    match Sandbox::load(dir.path(), "rules/init.luau", CATALOGUE, limits(), dice()) {
        Ok(_) => panic!("the broken edit loaded"),
        Err(e) => assert!(matches!(e, ScriptError::Syntax { .. }), "{e:?}"),
    }
    // The engine kept the old sandbox, which still answers as before.
    assert_eq!(
        current.question("bonus", ()).expect("bonus"),
        Answer::Int(2)
    );

    // The fixed edit loads and replaces it.
    write(
        dir.path(),
        &[(
            "rules/moves.luau",
            "return { bonus = function() return 3 end }",
        )],
    );
    current = Sandbox::load(dir.path(), "rules/init.luau", CATALOGUE, limits(), dice())
        .expect("fixed load");
    assert_eq!(
        current.question("bonus", ()).expect("bonus"),
        Answer::Int(3)
    );
}

/// A small seeded generator, as the engine's dice would be.
fn seeded(seed: u64) -> Rng {
    let mut state = seed;
    Box::new(move |lo, hi| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let span = u64::from(hi - lo) + 1;
        lo + u32::try_from((state >> 33) % span).unwrap_or(0)
    })
}

const BUILDER: &str = r#"
hooks.on("on_turn", function(n)
    -- A table filled in a dice-driven order, with string, integer and float keys,
    -- some removed again: then everything `pairs` yields, in its order.
    local t = {}
    for i = 1, n do
        local r = math.random(1000)
        t["k" .. r] = i
        t[r] = i
        t[r + 0.5] = i
        if i % 7 == 0 then
            t["k" .. math.random(1000)] = nil
        end
    end
    local parts = {}
    for k, v in pairs(t) do
        table.insert(parts, tostring(k) .. "=" .. tostring(v))
    end
    return { { kind = "order", text = table.concat(parts, ",") } }
end)
"#;

fn run(seed: u64) -> String {
    let dir = bundle(&[("rules/init.luau", BUILDER)]);
    let mut sb = Sandbox::load(
        dir.path(),
        "rules/init.luau",
        CATALOGUE,
        limits(),
        seeded(seed),
    )
    .expect("load");
    let mut out = String::new();
    for n in [10, 200, 500] {
        let commands = sb.event("on_turn", n).expect("event");
        out.push_str(commands[0].fields["text"].as_str().unwrap_or_default());
        out.push('|');
    }
    out
}

#[test]
fn same_dice_same_answers_and_pairs_order() {
    let first = run(7);
    assert!(first.len() > 1000);
    assert_eq!(first, run(7), "two sandboxes, same seed");
    assert_ne!(first, run(8), "a different seed changes the result");
}

#[test]
fn sandboxes_are_independent() {
    // A module-level counter lives in its sandbox only.
    let init = "local n = 0\nhooks.on('bonus', function() n += 1 return n end)";
    let mut a = load(init).expect("a");
    let mut b = load(init).expect("b");
    assert_eq!(a.question("bonus", ()).expect("a1"), Answer::Int(1));
    assert_eq!(a.question("bonus", ()).expect("a2"), Answer::Int(2));
    assert_eq!(b.question("bonus", ()).expect("b1"), Answer::Int(1));
}

#[test]
fn load_is_all_or_nothing_on_errors_after_registration() {
    // Handlers were registered before the error: no sandbox comes out at all.
    let err = load("hooks.on('ping', function() return true end)\nerror('late failure')")
        .err()
        .expect("error");
    match err {
        ScriptError::Runtime { hook, message, .. } => {
            assert_eq!(hook, muster_scripting::LOADING);
            assert_eq!(message, "rules/init.luau:2: late failure");
        }
        other => panic!("{other:?}"),
    }
}
