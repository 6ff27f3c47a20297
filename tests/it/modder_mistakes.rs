//! A modder's mistakes caught where they are made (issue 45, items 4 and 7): each test
//! writes a small mod on AHD that makes one mistake, runs `muster` as a modder would,
//! and asserts the exact line printed: the file:line:column (or file:line) of the
//! mistake and the hint. `docs/modding.md` ("When something goes wrong") quotes them.
//!
//! The mods live in a temporary folder beside a link `ahd` to the shipped module, so
//! `<extends module="ahd"/>` finds it and the messages name `house/...` as a modder sees.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A temporary folder holding `ahd` (a link to the shipped module) and the mod `house`.
struct Stack {
    dir: tempfile::TempDir,
}

impl Stack {
    /// The mod `house` on AHD: its manifest's extra lines `head`, and its files.
    fn new(head: &str, files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::os::unix::fs::symlink(Path::new(ROOT).join("mods/ahd"), dir.path().join("ahd"))
            .expect("link ahd");
        let house = dir.path().join("house");
        std::fs::create_dir_all(house.join("rules")).expect("mkdir");
        std::fs::write(
            house.join("module.xml"),
            format!(
                "<module id=\"house\" name=\"House\" version=\"0.1.0\" engine=\"0.1\">\n{head}\n</module>\n"
            ),
        )
        .expect("module.xml");
        for (path, text) in files {
            let path = house.join(path);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        Self { dir }
    }

    /// A mod of XML changes only: `changes.xml` included.
    fn changes(changes: &str) -> Self {
        Self::new(
            "  <extends module=\"ahd\"/>\n  <include file=\"changes.xml\"/>",
            &[("changes.xml", changes)],
        )
    }

    /// A mod of rules only: `rules/init.luau`.
    fn rules(script: &str) -> Self {
        Self::new(
            "  <extends module=\"ahd\"/>\n  <rules entry=\"rules/init.luau\"/>",
            &[("rules/init.luau", script)],
        )
    }

    /// `muster ARGS` in the folder: its exit status and all it printed.
    fn muster(&self, args: &[&str]) -> (bool, String) {
        self.muster_env(args, &[])
    }

    /// `muster ARGS` with these environment variables.
    fn muster_env(&self, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
        muster_test_support::build_typechecker(Path::new(env!("CARGO_BIN_EXE_muster")));
        let out = Command::new(env!("CARGO_BIN_EXE_muster"))
            .current_dir(self.dir.path())
            .args(args)
            .env_remove("MUSTER_LOG")
            .env_remove("MUSTER_TYPECHECK")
            .envs(env.iter().copied())
            .output()
            .expect("run muster");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    /// `muster check house` (with `more` arguments) fails, printing `line` as a line.
    fn fails_with(&self, more: &[&str], line: &str) {
        let mut args = vec!["check", "house"];
        args.extend_from_slice(more);
        let (ok, out) = self.muster(&args);
        assert!(!ok, "check passed:\n{out}");
        assert!(
            out.lines().any(|l| l.trim_start() == line),
            "expected the line\n{line}\nin:\n{out}"
        );
    }
}

// --- Every load error carries file:line ---------------------------------------------

#[test]
fn a_missing_extends_path_is_located_at_the_path_with_the_folder_meant() {
    let s = Stack::new(
        "  <extends module=\"ahd\" path=\"../ahdd\"/>\n  <include file=\"changes.xml\"/>",
        &[("changes.xml", "<changes/>")],
    );
    s.fails_with(
        &[],
        "house/module.xml:2:31: error: <extends> finds no base module at '../ahdd' (ahdd/module.xml not found); did you mean path=\"../ahd\"?",
    );
}

#[test]
fn memory_run_out_while_the_rules_load_names_the_line() {
    let s = Stack::rules(
        "local t = {}\nfor i = 1, 100000000 do\n\tt[i] = string.rep(\"x\", 1000) .. i\nend\n",
    );
    s.fails_with(
        &[],
        "error: rules: script ran out of memory (limit 67108864 bytes): not enough memory (while the rules load, last at house/rules/init.luau:2)",
    );
}

#[test]
fn a_die_rolled_in_a_question_names_the_roll() {
    let s = Stack::rules(
        "hooks.on(\"may_enter\", function(game, unit, box)\n\tlocal lucky = math.random(6) > 3\n\treturn true\nend)\n",
    );
    s.fails_with(
        &["--smoke", "1"],
        "error: rule 'may_enter' failed: house/rules/init.luau:2: math.random is for events: a question must not roll dice (a question must be pure: asked twice of one game it answers the same, and the engine asks it as often as it needs); roll in an event handler instead",
    );
}

#[test]
fn a_cycle_of_orders_names_where_each_order_is_written() {
    let s = Stack::rules(
        "local function yes() return true end\n\
         hooks.on(\"may_enter\", yes, { id = \"house.a\", before = \"house.b\" })\n\
         hooks.on(\"may_enter\", yes, { id = \"house.b\" })\n\
         hooks.on(\"may_enter\", yes, { id = \"house.c\", after = \"house.b\", before = \"house.a\" })\n",
    );
    s.fails_with(
        &[],
        "error: rules: house/rules/init.luau:2: the handlers of 'may_enter' are ordered in a cycle: house.a -> house.b -> house.c -> house.a (house.a before house.b at house/rules/init.luau:2; house.c after house.b at house/rules/init.luau:4; house.c before house.a at house/rules/init.luau:4)",
    );
}

// --- Every "did you mean" the docs promise, ranked by what was meant ----------------

#[test]
fn an_unknown_handler_id_gets_the_closest_ids() {
    for call in ["replace", "wrap"] {
        let s = Stack::rules(&format!(
            "hooks.{call}(\"may-enter\", function(next, game, unit, box) return true end)\n"
        ));
        s.fails_with(
            &[],
            &format!(
                "error: rules: house/rules/init.luau:1: hooks.{call}('may-enter'): no handler has this id; did you mean 'ahd.may-enter'? (in hook '(load)')"
            ),
        );
    }
    let s = Stack::rules("hooks.remove(\"ahd.may-stp\")\n");
    s.fails_with(
        &[],
        "error: rules: house/rules/init.luau:1: hooks.remove('ahd.may-stp'): no handler has this id; did you mean 'ahd.may-stop'? (in hook '(load)')",
    );
}

#[test]
fn a_misspelt_step_in_during_gets_the_step_meant() {
    let s = Stack::rules(
        "hooks.on(\"step_ended\", function(game, step) return nil end,\n\t{ id = \"house.end\", during = { \"movement\", \"combt\" } })\n",
    );
    s.fails_with(
        &[],
        "error: rules: house/rules/init.luau:1: hooks.on('step_ended'): 'during' names 'combt', a step the module does not have; did you mean 'combat'? (the module's steps: movement, combat, promotion, recruitment) (in hook '(load)')",
    );
}

#[test]
fn a_removed_line_of_the_wrong_kind_gets_the_line_there_is() {
    let s = Stack::changes(
        "<changes>\n  <remove>\n    <line a=\"Vandalia\" b=\"Cairo\" kind=\"road\"/>\n  </remove>\n</changes>\n",
    );
    s.fails_with(
        &[],
        "house/changes.xml:3:5: error: no line 'Vandalia-Cairo (road)' to remove in the modules below; did you mean <remove><line a=\"Cairo\" b=\"Vandalia\" kind=\"rail\"/>? the line between them has that kind",
    );
}

#[test]
fn an_item_removed_as_another_kind_gets_its_kind() {
    let s =
        Stack::changes("<changes>\n  <remove>\n    <box name=\"Vc\"/>\n  </remove>\n</changes>\n");
    s.fails_with(
        &[],
        "house/changes.xml:3:5: error: no box 'Vc' to remove in the modules below; 'Vc' is a unit type here, not a box: did you mean <remove><unit id=\"Vc\"/>?",
    );
}

#[test]
fn a_unit_patched_by_its_name_is_told_its_id() {
    let s = Stack::changes(
        "<changes>\n  <patch>\n    <unit id=\"Veteran Cavalry\" combat=\"3\"/>\n  </patch>\n</changes>\n",
    );
    s.fails_with(
        &[],
        "house/changes.xml:3:5: error: no unit type 'Veteran Cavalry' to patch in the modules below; that is the name of unit type 'Vc'; <patch> names it by its id: write id=\"Vc\"",
    );
}

#[test]
fn a_misspelt_defs_field_suggests_the_meant_one() {
    // A plural meant: `boxs` is one edit from the list `boxes` and one from the lookup
    // `box`, and was answered `box` before (issue 45); a name's start (`qualit`: three
    // edits from `qualities`, too far for a typo).
    for (written, meant) in [
        ("boxs", "boxes"),
        ("qualit", "qualities"),
        ("unit_by", "unit_by_id"),
    ] {
        let s = Stack::rules(&format!("local n = defs.{written}\n"));
        s.fails_with(
            &[],
            &format!(
                "error: rules: house/rules/init.luau:1: unknown field '{written}' of defs; did you mean '{meant}'? (in hook '(load)')"
            ),
        );
    }
}

#[test]
fn hooks_used_inside_a_handler_says_it_exists_only_while_the_rules_load() {
    let s = Stack::rules(
        "hooks.on(\"may_enter\", function(game, unit, box)\n\thooks.on(\"may_stop\", function() return true end)\n\treturn true\nend)\n",
    );
    s.fails_with(
        &["--smoke", "1"],
        "error: rule 'may_enter' failed: house/rules/init.luau:2: hooks.on: `hooks` exists only while the rules load; call hooks.on, replace, wrap and remove at the top level of a rules file (or in a function it calls while loading), not inside a handler (in hook 'may_enter')",
    );
}

// --- Type checks (issue 45 item 1) ----------------------------------------------------

/// A misspelt view method in a handler annotated with its hook's type: the game would
/// fail only when the handler first runs; `check` finds it at once.
const MISSPELT_METHOD: &str = "local may_enter: MayEnterHandler = function(game, unit, path)\n\treturn game:controler(path.from) == \"union\"\nend\nhooks.on(\"may_enter\", may_enter)\n";

#[test]
fn a_type_error_is_reported_at_its_file_line_and_column() {
    let s = Stack::rules(MISSPELT_METHOD);
    s.fails_with(
        &[],
        "house/rules/init.luau:2:9: error: Key 'controler' not found in external type 'Game'",
    );
    s.fails_with(
        &[],
        "1 type error (Luau's strict mode, against the engine's definitions that `muster api` writes; --no-typecheck skips the check)",
    );
    // Skipped on request: the rules load, so check passes.
    let (ok, out) = s.muster(&["check", "house", "--no-typecheck"]);
    assert!(ok, "{out}");
    assert!(!out.contains("type error"), "{out}");
}

#[test]
fn a_missing_checker_is_a_warning_that_says_how_to_build_it() {
    let s = Stack::rules(MISSPELT_METHOD);
    let (ok, out) = s.muster_env(
        &["check", "house"],
        &[("MUSTER_TYPECHECK", "/nonexistent/muster-typecheck")],
    );
    assert!(ok, "{out}");
    assert!(
        out.lines().any(|l| l == "warning: the rules were not type-checked: no muster-typecheck at /nonexistent/muster-typecheck; build it with `cargo build -p muster-typecheck` (`cargo build` builds it too), or skip the check with --no-typecheck"),
        "{out}"
    );
}

#[test]
fn the_base_rules_type_check_clean_under_a_mod() {
    let s = Stack::rules("hooks.on(\"may_enter\", function(game, unit, box) return true end)\n");
    let (ok, out) = s.muster(&["check", "house", "--json"]);
    assert!(ok, "{out}");
    let v: serde_json::Value = serde_json::from_str(
        out.lines()
            .take_while(|l| *l != "}")
            .chain(["}"])
            .collect::<Vec<_>>()
            .join("\n")
            .as_str(),
    )
    .expect("json");
    assert_eq!(v["typecheck"]["errors"], 0, "{out}");
    assert!(v["typecheck"].get("skipped").is_none(), "{out}");
}

// --- The base's rules against a mod (issue 45 item 2) -------------------------------

/// A house rule opening the Potomac to the Confederates (against AHD 4.2); `tail` ends
/// the wrapper: `next(game, unit, path)` keeps AHD's other limits, `true` drops them.
fn potomac(tail: &str, tests: &str) -> Stack {
    let rules = format!(
        "-- House rule: the Confederates may use the Potomac too (AHD 4.2 reserves it to the Union).\n\
         hooks.wrap(\"ahd.may-enter\", function(next, game, unit, path)\n\
         \tfor _, step in path.steps do\n\
         \t\tif defs.lines[step.line].name == \"Potomac\" then\n\
         \t\t\treturn true\n\
         \t\tend\n\
         \tend\n\
         \treturn {tail}\n\
         end)\n"
    );
    Stack::new(
        "  <extends module=\"ahd\"/>\n  <rules entry=\"rules/init.luau\"/>",
        &[("rules/init.luau", &rules), ("tests/potomac.luau", tests)],
    )
}

const POTOMAC_TEST: &str = "test.case(\"Confederates move along the Potomac\", function(t)\n\
\tlocal xml = [[<scenario id=\"t\" name=\"t\" start=\"08/1861\">\n\
\t  <side id=\"confederate\"><place box=\"Fredericksburg\" units=\"1 Vi\"/></side>\n\
\t</scenario>]]\n\
\tlocal csa = t:game({ scenario = xml, side = \"confederate\", dice = { 3 } })\n\
\tcsa:act(\"march: activate Fredericksburg\")\n\
\tcsa:move(csa:unit(\"Vi\", \"Fredericksburg\"), \"Washington\", { \"river\" })\n\
end)\n";

const AHD_4_2: &str = "4.2: Confederate units may never move along the Potomac";

#[test]
fn with_base_the_base_tests_run_on_the_mod_and_a_change_is_marked_with_its_reason() {
    // Unmarked: AHD's own 4.2 test fails on the stack, as it should.
    let s = potomac("next(game, unit, path)", POTOMAC_TEST);
    let (ok, out) = s.muster(&["test", "house", "--with-base", "--filter", "potomac"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("FAIL ahd/tests/movement.luau: {AHD_4_2}\n     ahd/tests/movement.luau:88: expected an error, but the function succeeded\n")),
        "{out}"
    );
    assert!(
        out.ends_with("1 passed, 1 failed, 0 changed by the mods\n"),
        "{out}"
    );
    // Without --with-base only the mod's own tests run.
    let (ok, out) = s.muster(&["test", "house"]);
    assert!(ok, "{out}");
    assert_eq!(
        out,
        "ok   house/tests/potomac.luau: Confederates move along the Potomac\n1 passed, 0 failed\n"
    );

    // Marked: reported as changed, with the mark's line and reason, and not a failure.
    let marked = format!(
        "test.changes(\"{AHD_4_2}\", \"this house rule opens the Potomac to both sides\")\n{POTOMAC_TEST}"
    );
    let s = potomac("next(game, unit, path)", &marked);
    let (ok, out) = s.muster(&["test", "house", "--with-base"]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("chg  ahd/tests/movement.luau: {AHD_4_2}\n     changed by house (house/tests/potomac.luau:1): this house rule opens the Potomac to both sides\n     ahd/tests/movement.luau:88: expected an error, but the function succeeded\n")),
        "{out}"
    );
    assert!(out.contains("ok   ahd/tests/combat.luau: 5.1: a unit hits on a roll equal to or less than its Combat Value\n"), "{out}");
    // Every base test but the changed one passes, and the mod's own: as many as AHD has.
    let base_tests = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd/tests"))
        .expect("AHD's tests")
        .map(|f| std::fs::read_to_string(f.expect("a file").path()).expect("readable"))
        .map(|text| text.matches("test.case(").count())
        .sum::<usize>();
    assert!(
        out.ends_with(&format!(
            "{base_tests} passed, 0 failed, 1 changed by the mods\n"
        )),
        "{out}"
    );
}

#[test]
fn a_mark_naming_no_base_test_is_a_failure_with_the_name_meant() {
    let marked = format!(
        "test.changes(\"4.2: Confederates may never move along the Potomac\", \"opened\")\n{POTOMAC_TEST}"
    );
    let s = potomac("next(game, unit, path)", &marked);
    let (ok, out) = s.muster(&["test", "house", "--with-base", "--filter", "potomac"]);
    assert!(!ok, "{out}");
    assert!(
        out.starts_with(&format!("FAIL house/tests/potomac.luau:1: test.changes(\"4.2: Confederates may never move along the Potomac\"): no test of the modules below has this name; did you mean '{AHD_4_2}'?\n")),
        "{out}"
    );
}

#[test]
fn a_wrapper_that_never_names_next_is_a_warning_at_its_line_without_games() {
    let s = potomac("true", POTOMAC_TEST);
    let (ok, out) = s.muster(&["check", "house", "--no-typecheck"]);
    assert!(ok, "a warning, not an error:\n{out}");
    let warning = "house/rules/init.luau:2:29: warning: hooks.wrap('ahd.may-enter'): the wrapper never uses 'next', its first parameter (the handler it wraps), so that handler never runs and its rule is dropped; call next(...) with the handler's arguments where its answer counts, or write hooks.replace('ahd.may-enter', ...) if dropping it is meant";
    assert!(out.lines().any(|l| l == warning), "{out}");
    // Said once: the smoke games do not repeat it.
    let (ok, out) = s.muster(&["check", "house", "--smoke", "1", "--no-typecheck"]);
    assert!(ok, "{out}");
    assert_eq!(
        out.matches("hooks.wrap('ahd.may-enter')").count(),
        1,
        "{out}"
    );
}

#[test]
fn a_wrapper_that_never_calls_next_is_a_warning_at_its_line() {
    // It names next, so only the games can tell it never calls it.
    let s = potomac("next ~= nil", POTOMAC_TEST);
    let (ok, out) = s.muster(&["check", "house", "--smoke", "1", "--no-typecheck"]);
    assert!(ok, "a warning, not an error:\n{out}");
    let warning = "house/rules/init.luau:2: warning: hooks.wrap('ahd.may-enter'): the wrapper ran in the smoke games and never called next, so the handler it wraps never ran and its rule is dropped; call next(...) with the handler's arguments where its answer counts, or write hooks.replace('ahd.may-enter', ...) if dropping it is meant";
    assert!(out.lines().any(|l| l.trim_start() == warning), "{out}");
    // One that calls it is fine.
    let s = potomac("next(game, unit, path)", POTOMAC_TEST);
    let (ok, out) = s.muster(&["check", "house", "--smoke", "1", "--no-typecheck"]);
    assert!(ok, "{out}");
    assert!(!out.contains("warning"), "{out}");
}

// --- Blame where it belongs (issue 45 item 3) ------------------------------------------

#[test]
fn an_error_in_the_base_handler_through_a_wrapper_names_the_wrappers_call() {
    // The arguments passed to next in the wrong order: AHD's line fails, the house's
    // line is the mistake.
    let s = potomac("next(game, path, unit)", POTOMAC_TEST);
    s.fails_with(
        &["--smoke", "1", "--no-typecheck"],
        "error: rule 'may_enter' failed: ahd/rules/movement.luau:243: game:relocated({...}): argument 1 must be a unit number (1-126), got {...}; reached through hooks.wrap: next(...) at house/rules/init.luau:8 (in hook 'may_enter')",
    );
}

#[test]
fn a_removed_item_the_base_still_reads_is_a_warning_at_the_remove() {
    let s = Stack::changes(
        "<changes>\n  <remove>\n    <option id=\"kentucky-neutrality\"/>\n  </remove>\n</changes>\n",
    );
    let (ok, out) = s.muster(&["check", "house"]);
    assert!(ok, "a warning:\n{out}");
    assert!(
        out.lines().any(|l| l == "house/changes.xml:3:5: warning: <remove> of option 'kentucky-neutrality', but ahd/rules/movement.luau:13 still names it; the base's rule will not find it when it runs: wrap or replace the handler that reads it (hooks.wrap, hooks.replace), or keep the item"),
        "{out}"
    );
    // And when the base's rule reads it, its error names the removal.
    s.fails_with(
        &["--smoke", "1"],
        "error: rule 'may_enter' failed: ahd/rules/movement.luau:210: game:option(\"kentucky-neutrality\"): no optional rule 'kentucky-neutrality'; it was removed at house/changes.xml:3:5 (<remove>) (in hook 'may_enter')",
    );
}

/// A mod removing AHD's optional rule 7.3 (the draft riots, read only in
/// `turns.turn_started`, reached by the handler `ahd.turn-started`), with `script` as its
/// rules.
fn without_draft_riots(script: &str) -> Stack {
    Stack::new(
        "  <extends module=\"ahd\"/>\n  <include file=\"changes.xml\"/>\n  <rules entry=\"rules/init.luau\"/>",
        &[
            (
                "changes.xml",
                "<changes>\n  <remove>\n    <option id=\"draft-riots\"/>\n  </remove>\n</changes>\n",
            ),
            ("rules/init.luau", script),
        ],
    )
}

#[test]
fn a_removed_item_read_only_by_handlers_the_mod_drops_is_no_warning() {
    let warning = "house/changes.xml:3:5: warning: <remove> of option 'draft-riots', but ahd/rules/turns.luau:19 still names it; the base's rule will not find it when it runs: wrap or replace the handler that reads it (hooks.wrap, hooks.replace), or keep the item";
    // The item alone: AHD's 7.3 still reads it.
    let (ok, out) =
        without_draft_riots("--!strict\n").muster(&["check", "house", "--no-typecheck"]);
    assert!(ok, "{out}");
    assert!(out.lines().any(|l| l == warning), "{out}");
    // Wrapped, the handler still runs (its wrapper may call next): still a warning.
    let wrapped = "--!strict\nhooks.wrap(\"ahd.turn-started\", function(next, game)\n\treturn next(game)\nend)\n";
    let (ok, out) = without_draft_riots(wrapped).muster(&["check", "house", "--no-typecheck"]);
    assert!(ok, "{out}");
    assert!(out.lines().any(|l| l == warning), "{out}");
    // The handler that reads it (through turns.turn_started) removed, or replaced: it
    // never runs, so nothing reads the item.
    for script in [
        "--!strict\nhooks.remove(\"ahd.turn-started\")\n",
        "--!strict\nhooks.replace(\"ahd.turn-started\", function(game)\n\treturn nil\nend)\n",
    ] {
        let (ok, out) = without_draft_riots(script).muster(&["check", "house", "--no-typecheck"]);
        assert!(ok, "{out}");
        assert!(!out.contains("warning"), "{script}:\n{out}");
    }
}

#[test]
fn a_removed_item_the_base_only_compares_with_is_no_warning() {
    // AHD's victory.luau compares `game:scenario() == "1861-short"`: with the scenario
    // gone the comparison is false, nothing fails (the TripleA adaptation removes it).
    let s = Stack::changes(
        "<changes>\n  <remove>\n    <scenario id=\"1861-short\"/>\n  </remove>\n</changes>\n",
    );
    let (ok, out) = s.muster(&["check", "house", "--no-typecheck"]);
    assert!(ok, "{out}");
    assert!(
        !out.contains("warning"),
        "a comparison is not a read:\n{out}"
    );
}

#[test]
fn a_patch_that_breaks_the_base_scenarios_is_reported_at_the_patch() {
    let s = Stack::changes(
        "<changes>\n  <patch>\n    <unit id=\"Vi\">\n      <mix side=\"union\" count=\"20\"/>\n      <mix side=\"confederate\" count=\"2\"/>\n    </unit>\n  </patch>\n</changes>\n",
    );
    s.fails_with(
        &[],
        "house/changes.xml:3:5: error: this <patch> of unit type 'Vi' makes the modules below invalid: ahd/scenarios/1862.xml:27:3: confederate uses 8 Vi (Veteran Infantry) but the counter mix has 2; units on the board, in the pool and set aside all come from the counter mix",
    );
}

// --- Reusing the base's modules (issue 45 item 5) --------------------------------------

#[test]
fn a_mod_reuses_its_bases_module_read_only() {
    // AHD's own may_stop (4.0's stops), reused by name rather than restated.
    let s = Stack::rules(
        "local movement = require(\"@ahd/rules.movement\")\n\
         hooks.replace(\"ahd.may-stop\", function(game, unit, path)\n\
         \treturn movement.may_stop(game, unit, path)\n\
         end)\n",
    );
    let (ok, out) = s.muster(&["check", "house", "--smoke", "1"]);
    assert!(ok, "{out}");
    // Changing the base's module is refused where it is tried.
    let s = Stack::rules(
        "local movement = require(\"@ahd/rules.movement\")\n\
         movement.may_stop = function() return true end\n",
    );
    s.fails_with(
        &[],
        "error: rules: house/rules/init.luau:2: require(\"@ahd/rules.movement\") is read-only: a mod cannot change its base's module (it set 'may_stop'); to change a rule, wrap or replace its handler (hooks.wrap, hooks.replace) (in hook '(load)')",
    );
    let s = Stack::rules("local movement = require(\"@ahdd/rules.movement\")\n");
    s.fails_with(
        &[],
        "error: rules: house/rules/init.luau:1: require('@ahdd/rules.movement'): no module 'ahdd' below this one to require from (those with rules: ahd); did you mean 'ahd'? (in hook '(load)')",
    );
}

// --- A richer test API (issue 45 item 6) ---------------------------------------------

#[test]
fn a_test_starts_at_a_named_scenarios_turn_and_step_and_sees_the_pool_and_stock() {
    let tests = r#"test.case("a later turn of a named scenario, its pool and stock", function(t)
	local g = t:game({ scenario = "1861", turn = "09/1861", side = "union", step = "recruitment", dice = { 4 } })
	t:eq({ g:turn(), g:side(), g:step() }, { "09/1861", "union", "recruitment" })
	t:eq(g:count("pool", "Mc", "union"), 1)
	t:eq(g:units_at("pool", "union"), { "Militia Cavalry" })
	t:eq(g:count("set_aside", "Mi", "union"), 12)
	t:eq(g:count("stock", nil, "union"), 43)
	g:act("recruit Militia Cavalry in Pittsburgh")
	t:eq(g:count("pool", nil, "union"), 0)
	t:eq(g:where(g:unit("Mc", "Pittsburgh")), "Pittsburgh")
end)
test.case("a turn outside the scenario", function(t)
	t:game({ scenario = "1862", turn = "09/1861", side = "union" })
end)
"#;
    let s = Stack::new("  <extends module=\"ahd\"/>", &[("tests/api.luau", tests)]);
    let (ok, out) = s.muster(&["test", "house"]);
    assert!(!ok, "{out}");
    assert_eq!(
        out,
        "ok   house/tests/api.luau: a later turn of a named scenario, its pool and stock\n\
         FAIL house/tests/api.luau: a turn outside the scenario\n     \
         house/tests/api.luau:13: turn: '09/1861' is outside scenario '1862' (04/1862 to 06/1865)\n\
         1 passed, 1 failed\n"
    );
}

// --- Smaller -------------------------------------------------------------------------

#[test]
fn two_dashes_in_an_xml_comment_are_pointed_at_with_a_way_round() {
    let s = Stack::changes(
        "<!-- Stack it on AHD:\n     muster check ahd --mod house -->\n<changes/>\n",
    );
    s.fails_with(
        &[],
        "house/changes.xml:2:23: error: '--' inside a comment: XML forbids two dashes in a row in a comment, so the file cannot be read; write the option otherwise (e.g. \"the --mod option\" as \"the 'mod' option\" or \"- -mod\"), or move it out of the comment",
    );
}

#[test]
fn a_block_without_its_end_is_named_by_its_line() {
    let s = Stack::rules(
        "local function allowed(unit)\n\tif unit then\n\t\treturn true\nend\n\nhooks.on(\"may_enter\", function(game, unit, box)\n\treturn allowed(unit)\nend)\n",
    );
    s.fails_with(
        &[],
        "error: rules: house/rules/init.luau:9: Expected 'end' (to close 'function' at line 1), got <eof>; the 'if' at line 2 is not closed: the 'end' at line 4 is indented as an outer block's; add its 'end'",
    );
}

#[test]
fn errors_are_printed_with_one_error_prefix_and_each_cause_once() {
    let s = Stack::changes("<changes/>");
    // A save names its module by id: replay without --module looks for mods/ahd here.
    let (ok, out) = s.muster(&[
        "play",
        "ahd",
        "--union",
        "random",
        "--confederate",
        "random",
        "--seed",
        "1",
        "--end",
        "08/1861",
        "--quiet",
        "--save",
        "game.json",
    ]);
    assert!(ok, "{out}");
    let (ok, out) = s.muster(&["replay", "game.json"]);
    assert!(!ok);
    assert_eq!(
        out,
        "error: the save was played on module 'ahd', looked for at mods/ahd without --module, where there is no module.xml; give its folder: muster replay game.json --module PATH\n"
    );
    let (ok, out) = s.muster(&["replay", "none.json"]);
    assert!(!ok);
    assert_eq!(
        out,
        "error: cannot read or write none.json: No such file or directory (os error 2)\n"
    );
}

#[test]
fn rules_log_on_a_mod_prints_the_mods_lines_not_the_bases() {
    let s = Stack::rules(
        "hooks.on(\"player_turn_started\", function(game)\n\treturn { { kind = \"log\", text = \"house: a turn begins\" } }\nend)\n",
    );
    let (ok, out) = s.muster(&[
        "play",
        "house",
        "--union",
        "random",
        "--confederate",
        "random",
        "--seed",
        "1",
        "--end",
        "08/1861",
        "--quiet",
        "--rules-log",
    ]);
    assert!(ok, "{out}");
    let rules: Vec<&str> = out.lines().filter(|l| l.contains("(rules)")).collect();
    assert!(!rules.is_empty(), "{out}");
    // AHD logs its recruitment roll ("rolled 5 for recruitment") in these turns.
    assert!(
        rules
            .iter()
            .all(|l| l.trim() == "(rules) house: a turn begins"),
        "{rules:?}"
    );
}
