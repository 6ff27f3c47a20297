//! Every run-time error of the rules is located (issue 18, item 1): files are named by
//! their module (`house/rules/init.luau:3`, not a `rules/init.luau:3` the base module also
//! has); a bad argument to the `game` view names the call, the value and the line; a
//! misspelled method, `defs` field, command or name gets a "did you mean"; budget and
//! memory stops and refused commands name the hook and the handler.
//!
//! Each test loads core's mini module as a base (`mini`) under an overlay (`house`), both
//! with a `rules/init.luau`, and puts the failing handler in the overlay's.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::copy_dir;

use muster_core::game::{
    Answer, Command as CoreCommand, Dice, Event, GameState, Question, RuleError, Rules, View,
};
use muster_core::ids::UnitId;
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};
use tempfile::TempDir;

/// core's mini module (six boxes, sides `north` and `south`, unit types `Gi`, `Vi`, `Gc`).
const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures/mini");

/// The base module's rules: a handler that fails at line 3 of `rules/init.luau`.
const BASE_RULES: &str = "hooks.on(\"may_reinforce\", function(game, unit)
\tlocal x = nil
\treturn x.boom
end)
";

/// The overlay's manifest: it extends the mini module copied next to it.
const HOUSE_XML: &str = r#"<module id="house" name="House Rules" version="0" engine="0.1">
  <extends module="mini" path="../base"/>
  <rules entry="rules/init.luau"/>
</module>
"#;

/// A game of the mini module under house rules.
struct Game {
    _dir: TempDir,
    module: Module,
    rules: ScriptRules,
    state: GameState,
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

/// The house rules `house` (with `more` files in the overlay's folder), on the mini module.
fn game_with(house: &str, more: &[(&str, &str)], limits: Limits) -> Game {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path().join("base");
    copy_dir(Path::new(MINI), &base);
    let manifest = base.join("module.xml");
    let xml = std::fs::read_to_string(&manifest).expect("module.xml");
    let xml = xml.replace(
        "</module>",
        "  <rules entry=\"rules/init.luau\"/>\n</module>",
    );
    write(&manifest, &xml);
    write(&base.join("rules/init.luau"), BASE_RULES);
    let overlay = dir.path().join("house");
    write(&overlay.join("module.xml"), HOUSE_XML);
    write(&overlay.join("rules/init.luau"), house);
    for (path, text) in more {
        write(&overlay.join(path), text);
    }
    let module = load_module(&overlay).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&module, limits).unwrap_or_else(|e| panic!("{e}"));
    let state = GameState::new(&module, &module.scenarios[0], Vec::new(), Dice::seeded(1))
        .unwrap_or_else(|e| panic!("{e}"));
    Game {
        _dir: dir,
        module,
        rules,
        state,
    }
}

fn game(house: &str) -> Game {
    game_with(house, &[], Limits::default())
}

const UNIT: UnitId = UnitId(0);

impl Game {
    fn ask(&mut self, q: Question<'_>) -> Result<Answer, RuleError> {
        let view = View {
            module: &self.module,
            state: &self.state,
        };
        self.rules.ask(view, q)
    }

    /// `may_upgrade` about unit 1 (the house rules' handlers).
    fn may_upgrade(&mut self) -> Result<Answer, RuleError> {
        self.ask(Question::MayUpgrade { unit: UNIT })
    }

    fn turn_started(&mut self) -> Result<Vec<CoreCommand>, RuleError> {
        let view = View {
            module: &self.module,
            state: &self.state,
        };
        let mut dice = Dice::seeded(1);
        self.rules.notify(view, &mut dice, Event::TurnStarted)
    }

    /// The error of `may_upgrade`, which must fail; then the rules must answer again, and
    /// the state the question was about is the state it was.
    fn may_upgrade_fails(&mut self) -> RuleError {
        let before = self.state.clone();
        let err = match self.may_upgrade() {
            Err(e) => e,
            Ok(a) => panic!("may_upgrade answered {a:?}"),
        };
        assert_eq!(err.hook, "may_upgrade", "{err}");
        assert_eq!(self.state, before, "the failed question changed the game");
        self.ask(Question::MayWithdraw)
            .unwrap_or_else(|e| panic!("the rules no longer answer: {e}"));
        err
    }

    /// The error of `turn_started`, which must fail and return no command at all.
    fn turn_started_fails(&mut self) -> RuleError {
        let err = match self.turn_started() {
            Err(e) => e,
            Ok(commands) => panic!("turn_started gave {commands:?}"),
        };
        assert_eq!(err.hook, "turn_started", "{err}");
        err
    }
}

/// `message` starts with `prefix` (the `file:line: ` and the words that follow).
#[track_caller]
fn assert_starts(message: &str, prefix: &str) {
    assert!(
        message.starts_with(prefix),
        "expected a message starting with\n  {prefix}\ngot\n  {message}"
    );
}

#[track_caller]
fn assert_contains(message: &str, needle: &str) {
    assert!(
        message.contains(needle),
        "expected '{needle}' in\n  {message}"
    );
}

// --- Files named by module --------------------------------------------------------------

#[test]
fn a_base_module_and_its_overlay_name_their_own_init_luau() {
    // Line 3 of both modules' rules/init.luau fails.
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\tlocal y = nil
\treturn y.bang
end)
",
    );
    let house = g.may_upgrade_fails();
    assert_starts(
        &house.message,
        "house/rules/init.luau:3: attempt to index nil with 'bang'",
    );
    let base = g
        .ask(Question::MayReinforce { unit: UNIT })
        .expect_err("the base handler fails");
    assert_eq!(base.hook, "may_reinforce");
    assert_starts(
        &base.message,
        "mini/rules/init.luau:3: attempt to index nil with 'boom'",
    );
}

#[test]
fn a_required_file_is_named_by_its_module_too() {
    let mut g = game_with(
        "local helper = require(\"rules.helper\")
hooks.on(\"may_upgrade\", function(game, unit)
\treturn helper.check(unit)
end)
",
        &[(
            "rules/helper.luau",
            "return {
\tcheck = function(unit)
\t\treturn unit.field
\tend,
}
",
        )],
        Limits::default(),
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/helper.luau:3: attempt to index number",
    );
}

#[test]
fn a_bad_return_names_the_handler_by_module() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\treturn 5
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_contains(
        &err.message,
        "handler at house/rules/init.luau:1 returned the integer 5",
    );
}

// --- The game view's arguments ----------------------------------------------------------

#[test]
fn a_nil_box_number_names_the_call_the_value_and_the_line() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\tlocal at = nil
\treturn #game:units_at(at) > 0
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:3: game:units_at(nil): argument 1 must be a box number (1-6), got nil",
    );
    assert_contains(&err.to_string(), "may_upgrade");
}

#[test]
fn a_unit_number_out_of_range_names_the_range() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\treturn game:unit_hits(unit + 100) == 0
end)
",
    );
    let units = g.state.units.len();
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        &format!(
            "house/rules/init.luau:2: game:unit_hits(101): argument 1 must be a unit number (1-{units}), got 101"
        ),
    );
}

#[test]
fn a_misspelled_side_gets_a_suggestion() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\treturn game:enemy_in(1, \"nroth\")
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:2: game:enemy_in(1, \"nroth\"): argument 2 must be a side id (north, south), got \"nroth\"; did you mean 'north'?",
    );
}

#[test]
fn a_string_where_a_box_number_goes_is_shown_as_written() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\treturn game:controller(\"Northport\") == \"north\"
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:2: game:controller(\"Northport\"): argument 1 must be a box number (1-6), got \"Northport\"",
    );
}

#[test]
fn an_unknown_game_method_suggests_the_right_one() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\treturn game:unit_kind(unit) == \"Gi\"
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:2: unknown method 'unit_kind' of game; did you mean 'unit_type'?",
    );
}

#[test]
fn the_game_view_still_works_after_the_refusals() {
    // The wrappers of the view (written in Luau) and its Rust methods both answer.
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\treturn game:unit_type(unit) == \"Gi\" and #game:units_at(1) == 3 and game:controller(1) == \"north\"
end)
",
    );
    assert_eq!(g.may_upgrade(), Ok(Answer::Bool(true)));
}

// --- defs ---------------------------------------------------------------------------------

#[test]
fn an_unknown_defs_field_suggests_the_right_one() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\treturn defs.box_by_nam[\"Northport\"] == 1
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:2: unknown field 'box_by_nam' of defs; did you mean 'box_by_name'?",
    );
}

#[test]
fn a_strict_box_lookup_fails_with_a_suggestion() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\tassert(defs.box(\"Northport\") == 1 and defs.box(\"Hillfarm\") == 6)
\treturn defs.box(\"Northprt\") == 1
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:3: unknown box 'Northprt'; did you mean 'Northport'?",
    );
}

#[test]
fn a_strict_unit_lookup_fails_with_a_suggestion() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\tassert(defs.unit(\"Gi\").combat == 1)
\treturn defs.unit(\"Vx\").combat == 3
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:3: unknown unit type 'Vx'; did you mean 'Vi'?",
    );
}

#[test]
fn a_strict_side_lookup_fails_with_a_suggestion() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\tassert(defs.side(\"south\").index == 2)
\treturn defs.side(\"nroth\").index == 1
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:3: unknown side 'nroth'; did you mean 'north'?",
    );
}

#[test]
fn a_strict_lookup_called_with_a_colon_says_so() {
    let mut g = game(
        "hooks.on(\"may_upgrade\", function(game, unit)
\treturn defs:box(\"Northport\") == 1
end)
",
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:2: write defs.box(\"...\"), not defs:box(\"...\")",
    );
}

// --- Stops ----------------------------------------------------------------------------------

#[test]
fn a_budget_stop_names_the_hook_the_handler_and_the_line() {
    let limits = Limits {
        budget: 50_000,
        ..Limits::default()
    };
    let mut g = game_with(
        "hooks.on(\"may_upgrade\", function(game, unit)
\tlocal n = 0
\twhile n >= 0 do
\t\tn += 1
\tend
\treturn true
end)
",
        &[],
        limits,
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        // Luau interrupts at the loop's back edge, which it places on the `while`.
        "house/rules/init.luau:3: instruction budget exhausted (50000 interrupts)",
    );
    assert_contains(
        &err.message,
        "(in hook 'may_upgrade', handler at house/rules/init.luau:1)",
    );
}

#[test]
fn a_memory_stop_names_the_hook_and_the_handler() {
    let limits = Limits {
        memory_bytes: 16 << 20,
        ..Limits::default()
    };
    let mut g = game_with(
        "hooks.on(\"may_upgrade\", function(game, unit)
\tlocal s = \"x\"
\twhile true do
\t\ts = s .. s
\tend
end)
",
        &[],
        limits,
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "script ran out of memory (limit 16777216 bytes)",
    );
    assert_contains(
        &err.message,
        "(in hook 'may_upgrade', handler at house/rules/init.luau:1)",
    );
}

#[test]
fn a_wall_clock_stop_names_the_handler() {
    // The backstop (normally never first) reports like the budget.
    let limits = Limits {
        wall_clock: Duration::from_millis(1),
        budget: u64::MAX,
        ..Limits::default()
    };
    let mut g = game_with(
        "hooks.on(\"may_upgrade\", function(game, unit)
\twhile true do
\tend
end)
",
        &[],
        limits,
    );
    let err = g.may_upgrade_fails();
    assert_starts(
        &err.message,
        "house/rules/init.luau:2: wall-clock backstop reached",
    );
    assert_contains(&err.message, "handler at house/rules/init.luau:1");
}

// --- Commands -------------------------------------------------------------------------------

#[test]
fn an_unknown_command_names_the_handler_and_suggests() {
    let mut g = game(
        "hooks.on(\"turn_started\", function(game)
\treturn {
\t\t{ kind = \"log\", text = \"first\" },
\t\t{ kind = \"set_controll\", box = 1, side = \"south\" },
\t}
end)
",
    );
    let err = g.turn_started_fails();
    assert_eq!(
        err.message,
        "handler at house/rules/init.luau:1: unknown command 'set_controll'; did you mean 'set_control'?"
    );
}

#[test]
fn a_command_field_of_the_wrong_type_shows_the_value() {
    let mut g = game(
        "hooks.on(\"turn_started\", function(game)
\treturn { { kind = \"set_control\", box = \"Northport\", side = \"south\" } }
end)
",
    );
    let err = g.turn_started_fails();
    assert_eq!(
        err.message,
        "handler at house/rules/init.luau:1: command 'set_control': needs a whole number 'box', got \"Northport\""
    );
}

#[test]
fn a_misspelled_command_field_is_pointed_out() {
    let mut g = game(
        "hooks.on(\"turn_started\", function(game)
\treturn { { kind = \"set_control\", bx = 1, side = \"south\" } }
end)
",
    );
    let err = g.turn_started_fails();
    assert_eq!(
        err.message,
        "handler at house/rules/init.luau:1: command 'set_control': needs a whole number 'box', got nothing; is 'bx' a misspelling of 'box'?"
    );
}

#[test]
fn a_box_number_out_of_range_in_a_command_names_the_range() {
    let mut g = game(
        "hooks.on(\"turn_started\", function(game)
\treturn { { kind = \"set_control\", box = 99, side = \"sooth\" } }
end)
",
    );
    let err = g.turn_started_fails();
    assert_eq!(
        err.message,
        "handler at house/rules/init.luau:1: command 'set_control': 'box' must be a box number (1-6), got 99"
    );
}

#[test]
fn a_misspelled_side_in_a_command_gets_a_suggestion() {
    let mut g = game(
        "hooks.on(\"turn_started\", function(game)
\treturn { { kind = \"set_control\", box = 1, side = \"sooth\" } }
end)
",
    );
    let err = g.turn_started_fails();
    assert_eq!(
        err.message,
        "handler at house/rules/init.luau:1: command 'set_control': 'side' must be a side id (north, south) or nil, got \"sooth\"; did you mean 'south'?"
    );
}

#[test]
fn an_unknown_flag_in_a_command_suggests_the_declared_one() {
    let mut g = game(
        "hooks.on(\"turn_started\", function(game)
\treturn { { kind = \"set_flag\", unit = 1, flag = \"entrenchd\" } }
end)
",
    );
    let err = g.turn_started_fails();
    assert_eq!(
        err.message,
        "handler at house/rules/init.luau:1: command 'set_flag': no flag 'entrenchd'; did you mean 'entrenched'?"
    );
}

#[test]
fn an_unknown_flag_asked_of_the_view_is_located() {
    let mut g = game(
        "hooks.on(\"turn_started\", function(game)
\tlocal dug = game:unit_flag(1, \"dug-in\")
\treturn nil
end)
",
    );
    let err = g.turn_started_fails();
    assert_eq!(
        err.message,
        "house/rules/init.luau:2: game:unit_flag(1, \"dug-in\"): no flag 'dug-in'; the flags are entrenched (in hook 'turn_started')"
    );
}

/// `var` and `units_at` answer through a fast path (`engine/view/fast.rs`); what it does
/// not take (a number for a name, a fraction for a box) still gets the Rust method's
/// message at the script's line.
#[test]
fn a_fast_getter_s_bad_argument_gets_the_same_message() {
    for (call, message) in [
        (
            "game:var(3)",
            "house/rules/init.luau:2: game:var(3): argument 1 must be a string, got 3",
        ),
        (
            "#game:units_at(1.5)",
            "house/rules/init.luau:2: game:units_at(1.5): argument 1 must be a box number (1-6), got 1.5",
        ),
    ] {
        let mut g = game(&format!(
            "hooks.on(\"may_upgrade\", function(game, unit)\n\treturn {call} == 0\nend)\n"
        ));
        let err = g.may_upgrade_fails();
        assert_starts(&err.message, message);
    }
}
