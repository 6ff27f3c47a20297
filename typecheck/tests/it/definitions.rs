//! The API definitions load, describe the API and catch its misuse; a new mod's rules
//! file is strict-clean as created.

use std::path::Path;

use muster_typecheck::{Problem, check_modules};

/// The committed definitions (`tests/it/cli_api.rs` keeps them what `muster api` writes).
fn definitions() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/muster.d.luau");
    std::fs::read_to_string(path).expect("docs/muster.d.luau")
}

fn check(text: &str) -> Vec<Problem> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixture-module");
    check_modules(
        &definitions(),
        &[dir.as_path()],
        &[(dir.join("rules/init.luau"), text.to_string())],
    )
    .expect("check")
}

fn show(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Uses every kind of declared name as a rule would.
const GOOD: &str = r#"--!strict
local washington: BoxNum = defs.box("Washington")
local union: Side = defs.side("union")
local may_enter: MayEnterHandler = function(game, unit, path)
	return game:unit_side(unit) == union.id and #path.steps <= 3
end
hooks.on("may_enter", may_enter, { id = "x.may-enter", after = { "a", "b" } })
hooks.on("step_started", function(game: Game, step: string): { Command }?
	if step ~= "movement" then
		return nil
	end
	local out: { Command } = {}
	for _, u in game:units_at(washington) do
		table.insert(out, { kind = "set_hits", unit = u, hits = 0 })
	end
	table.insert(out, { kind = "log", text = `{#out} units in {defs.boxes[washington].name}` })
	return out
end)
hooks.wrap("x.may-enter", function(next, game, unit, path)
	return next(game, unit, path) and game:resource("marches") > 0
end)
"#;

#[test]
fn a_rule_using_the_api_is_strict_clean() {
    let problems = check(GOOD);
    assert!(problems.is_empty(), "{}", show(&problems));
}

#[test]
fn misuse_of_the_api_is_caught() {
    let bad = r#"--!strict
hooks.on("turn_started", function(game: Game): { Command }?
	local hits: string = game:unit_hits(1)
	local x = game:unit_kind(1)
	return { { kind = "set_hits", unit = "one", hits = hits } }
end)
hooks.on("no_such_hook", function() end)
"#;
    let problems = check(bad);
    let errors: Vec<&Problem> = problems.iter().filter(|p| p.error).collect();
    for line in [3, 4, 5, 7] {
        assert!(
            errors.iter().any(|p| p.line == line),
            "no error on line {line}:\n{}",
            show(&problems)
        );
    }
}

#[test]
fn a_new_mods_rules_are_strict_clean() {
    // What `muster new-mod house --extends ahd` writes (`tests/it/cli_new_mod.rs` keeps it so).
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/new-mod-init.luau");
    let text = std::fs::read_to_string(path).expect("fixture");
    let problems = check(&text);
    assert!(problems.is_empty(), "{}", show(&problems));
}

/// What a module `require`s arrives with its types: a misuse of a required function is
/// caught in the requiring file, through `require("rules.x")` in one module and through
/// `require("@base/rules.x")` from a mod (issue 45, item 5).
#[test]
fn types_flow_through_require() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixture-module");
    let (base, house) = (root.join("base"), root.join("house"));
    let lib = "--!strict\nlocal M = {}\nfunction M.stops(n: number): number\n\treturn n + 1\nend\nreturn M\n";
    let user = |path: &str| {
        format!(
            "--!strict\nlocal movement = require(\"{path}\")\nlocal fine: number = movement.stops(1)\nlocal wrong: string = movement.stops(1)\nlocal missing = movement.stop(1)\nreturn {{ fine = fine, wrong = wrong, missing = missing }}\n"
        )
    };
    let problems = muster_typecheck::check_stack(
        &definitions(),
        &[
            (Some("base"), base.as_path()),
            (Some("house"), house.as_path()),
        ],
        &[
            (base.join("rules/movement.luau"), lib.to_string()),
            (base.join("rules/init.luau"), user("rules.movement")),
            (house.join("rules/init.luau"), user("@base/rules.movement")),
        ],
    )
    .expect("check");
    for file in [base.join("rules/init.luau"), house.join("rules/init.luau")] {
        let lines: Vec<u32> = problems
            .iter()
            .filter(|p| p.error && p.file == file)
            .map(|p| p.line)
            .collect();
        assert_eq!(lines, [4, 5], "{}:\n{}", file.display(), show(&problems));
    }
}
