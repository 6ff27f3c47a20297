//! What scripts get instead of the usual library: engine dice and captured `print`.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use muster_scripting::{Answer, Sandbox, ScriptError};

fn with_rng(init: &str, rng: muster_scripting::Rng) -> Sandbox {
    let dir = bundle(&[("rules/init.luau", init)]);
    match Sandbox::load(dir.path(), "rules/init.luau", CATALOGUE, limits(), rng) {
        Ok(sb) => sb,
        Err(e) => panic!("did not load: {e}"),
    }
}

#[test]
fn math_random_draws_from_the_engine() {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&calls);
    let seq = [4u32, 15, 2];
    let mut i = 0;
    let rng = Box::new(move |lo, hi| {
        seen.borrow_mut().push((lo, hi));
        let v = seq[i % seq.len()];
        i += 1;
        v
    });
    let mut sb = with_rng(
        "hooks.on('bonus', function()\n\
           return math.random(6) * 10000 + math.random(10, 20) * 10 + math.random(2)\n\
         end)",
        rng,
    );
    assert_eq!(sb.question("bonus", ()).expect("bonus"), Answer::Int(40152));
    assert_eq!(*calls.borrow(), [(1, 6), (10, 20), (1, 2)]);
}

#[test]
fn math_random_refuses_bad_arguments() {
    let mut sb = with_rng(
        "hooks.on('bonus', function(...) return math.random(...) end)",
        fixed_dice(&[1]),
    );
    assert_eq!(sb.question("bonus", 6).expect("d6"), Answer::Int(1));
    assert_eq!(sb.question("bonus", (0, 0)).expect("0..0"), Answer::Int(0));
    for args in [
        "()",
        "(0)",
        "(-3)",
        "(2.5)",
        "('6')",
        "(5, 1)",
        "(-1, 1)",
        "(1, 2, 3)",
        "(1, 2^40)",
    ] {
        let mut sb = with_rng(
            &format!("hooks.on('bonus', function() return math.random{args} end)"),
            fixed_dice(&[1]),
        );
        match sb.question("bonus", ()) {
            Err(ScriptError::Runtime { message, .. }) => {
                assert!(
                    message.starts_with("rules/init.luau:1: math.random:"),
                    "{args}: {message}"
                );
            }
            other => panic!("math.random{args}: {other:?}"),
        }
    }
}

#[test]
fn dice_out_of_range_are_an_error() {
    let mut sb = with_rng(
        "hooks.on('bonus', function() return math.random(6) end)",
        Box::new(|_, _| 7),
    );
    let err = sb.question("bonus", ()).expect_err("7 on a d6");
    assert!(err.to_string().contains("returned 7 outside 1..6"), "{err}");
}

#[test]
fn print_is_captured() {
    let mut sb = load(
        "print('loading', 1, true, nil, {})\n\
         hooks.on('ping', function() print(string.rep('x', 5000)) return true end)",
    )
    .expect("load");
    assert_eq!(sb.take_output(), ["loading\t1\ttrue\tnil\ttable"]);
    assert_usable(&mut sb);
    let out = sb.take_output();
    assert_eq!(out.len(), 1);
    assert!(
        out[0].len() < 1100 && out[0].ends_with("..."),
        "{}",
        out[0].len()
    );
    assert!(sb.take_output().is_empty());
}

#[test]
fn safe_libraries_remain() {
    let mut sb = load(
        "hooks.on('bonus', function()\n\
           local t = { 3, 1, 2 }\n\
           table.sort(t)\n\
           local s = string.format('%d-%s', t[1], string.upper('a'))\n\
           local co = coroutine.wrap(function() coroutine.yield(5) end)\n\
           return #s + co() + bit32.band(6, 3) + utf8.len('é') + math.max(1, 9)\n\
         end)",
    )
    .expect("load");
    // "1-A" (3) + 5 + 2 + 1 + 9
    assert_eq!(sb.question("bonus", ()).expect("bonus"), Answer::Int(20));
}
