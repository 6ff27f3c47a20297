//! The rules' profile (`muster play --rules-profile`): interrupts charged to the handler,
//! function and line that made them, in proportion to the work done.

use crate::common::*;
use muster_scripting::profile;

/// A handler looping `n` times (a helper called twice a turn) and a cheap one.
const RULES: &str = "\
local function step(x)\n\
  return x + 1\n\
end\n\
hooks.on(\"bonus\", function(n)\n\
  local s = 0\n\
  for i = 1, n do\n\
    s = step(step(s))\n\
  end\n\
  return 0\n\
end, { id = \"t.loop\" })\n\
hooks.on(\"ping\", function() return step(1) > 0 end, { id = \"t.ping\" })\n";

/// Loads the rules with the profile on, asks `bonus(n)` `calls` times and `ping` once.
fn profiled(n: i64, calls: usize) -> profile::Profile {
    profile::start();
    let mut sb = load(RULES).expect("rules load");
    for _ in 0..calls {
        sb.question("bonus", n).expect("bonus");
    }
    sb.question("ping", ()).expect("ping");
    profile::finish().expect("profiling was started")
}

fn handler(p: &profile::Profile, name: &str) -> (u64, u64) {
    p.handlers()
        .into_iter()
        .find(|(h, ..)| h.starts_with(name))
        .map(|(_, n, calls)| (n, calls))
        .unwrap_or_else(|| panic!("no handler {name} in\n{}", p.table()))
}

#[test]
fn a_loop_is_charged_in_proportion_to_its_turns() {
    let small = profiled(100, 3);
    let large = profiled(1000, 3);
    let (n_small, calls_small) = handler(&small, "bonus t.loop (rules/init.luau:4)");
    let (n_large, calls_large) = handler(&large, "bonus t.loop (rules/init.luau:4)");
    assert_eq!((calls_small, calls_large), (3, 3), "{}", large.table());
    // Luau interrupts at calls, returns and loop back-edges: each turn five times (two
    // calls of `step`, its two returns, the back-edge), and once at the handler's return.
    assert_eq!(n_small, 3 * (5 * 100 + 1), "{}", small.table());
    assert_eq!(n_large, 3 * (5 * 1000 + 1), "{}", large.table());
    // `ping`: its call of `step`, `step`'s return and its own.
    assert_eq!(handler(&large, "ping t.ping"), (3, 1), "{}", large.table());
    // The loop's lines: two calls a turn on the body's line, the back-edge on the `for`.
    let lines = large.lines();
    let line = |l: &str| lines.iter().find(|(at, _)| at == l).map(|x| x.1);
    assert_eq!(
        line("rules/init.luau:7"),
        Some(2 * 3000),
        "{}",
        large.table()
    );
    assert_eq!(line("rules/init.luau:6"), Some(3000), "{}", large.table());
    // `step` by itself: its returns; with the handler, everything the handler did.
    let functions = large.functions();
    let function = |f: &str| {
        functions
            .iter()
            .find(|(name, ..)| name == f)
            .map(|x| (x.1, x.2))
    };
    assert_eq!(
        function("rules/init.luau:1 step"),
        Some((2 * 3000 + 1, 2 * 3000 + 1))
    );
    assert_eq!(function("rules/init.luau:4").map(|x| x.1), Some(n_large));
    // Folded stacks: the handler, then what it ran, with the counts adding up.
    let folded = large.folded();
    let sum: u64 = folded
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, large.total(), "{folded}");
    assert!(folded.contains("rules/init.luau:4"), "{folded}");
}

#[test]
fn off_by_default_and_after_finish() {
    assert!(profile::finish().is_none());
    let _ = profiled(10, 1);
    assert!(profile::finish().is_none(), "finish ends the profile");
    // A sandbox made while the profile is off counts nothing even if one starts later.
    let mut sb = load(RULES).expect("rules load");
    profile::start();
    sb.question("bonus", 50i64).expect("bonus");
    assert_eq!(profile::finish().expect("started").total(), 0);
}
