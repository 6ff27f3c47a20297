//! Handlers declared for some steps only (`hooks.on(..., { during = { ... } })`): called
//! while the game is at one of those steps and not otherwise; with none left to call,
//! no scope, no view and no Luau call; what `replace` and `wrap` do with it; and the
//! load errors of a bad `during`.

use std::cell::Cell;

use muster_core::Module;
use muster_core::game::rules::Rules;
use muster_core::game::{Answer, Command, Dice, Event, GameState, Question, View, start};
use muster_scripting::{Limits, ScriptCommand, ScriptRules, profile};
use muster_test_support::HouseRule;

use crate::common::*;

/// AHD with `house` appended to its rules, and the 1861 start (the Union's Movement)
/// with the same position moved to each of its other steps.
fn at_steps(house: &str) -> (tempfile::TempDir, Module, ScriptRules, Vec<GameState>) {
    let (dir, m, mut rules) = HouseRule::loaded(house);
    let scenario = m.scenario("1861").expect("1861");
    let (g, _) = start(&m, &mut rules, scenario, Vec::new(), Dice::seeded(1))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(g.step_at(&m).map(|s| s.id.as_str()), Some("movement"));
    let states = (0..m.calendar.steps.len())
        .map(|i| {
            let mut s = g.clone();
            s.step = u8::try_from(i).expect("a few steps");
            s
        })
        .collect();
    (dir, m, rules, states)
}

fn step(m: &Module, s: &GameState) -> String {
    s.step_at(m).map(|s| s.id.clone()).unwrap_or_default()
}

#[test]
fn a_list_hook_s_handler_lists_only_in_its_steps() {
    let (_dir, m, mut rules, states) = at_steps(
        "hooks.on(\"offers\", function(game, step)\n\
         \treturn { { id = \"drill\", label = `drill in {step}`, cost = {} } }\n\
         end, { id = \"house.drill\", during = { \"promotion\" } })\n",
    );
    for s in &states {
        let at = step(&m, s);
        let offers = rules
            .offers(
                View {
                    module: &m,
                    state: s,
                },
                &at,
            )
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let drills: Vec<&str> = offers
            .iter()
            .filter(|o| o.id == "drill")
            .map(|o| o.label.as_str())
            .collect();
        let want: &[&str] = if at == "promotion" {
            &["drill in promotion"]
        } else {
            &[]
        };
        assert_eq!(drills, want, "at {at}");
    }
}

#[test]
fn an_event_s_handler_gives_commands_only_in_its_steps() {
    let (_dir, m, mut rules, states) = at_steps(
        "hooks.on(\"step_started\", function(game, step)\n\
         \treturn { { kind = \"log\", text = `{step} begins` } }\n\
         end, { id = \"house.begins\", during = { \"combat\", \"Recruitment\" } })\n",
    );
    for s in &states {
        let at = step(&m, s);
        let mut dice = Dice::seeded(1);
        let commands = rules
            .notify(
                View {
                    module: &m,
                    state: s,
                },
                &mut dice,
                Event::StepStarted { step: &at },
            )
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let logs: Vec<&str> = commands
            .iter()
            .filter_map(|c| match c {
                Command::Log { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        // "Recruitment" is the module's "recruitment": ids are matched without case.
        let mine = matches!(at.as_str(), "combat" | "recruitment");
        assert_eq!(
            logs.contains(&format!("{at} begins").as_str()),
            mine,
            "at {at}: {logs:?}"
        );
        // AHD's own handler still sets the resources of the steps that spend one.
        if at != "combat" {
            assert!(
                commands
                    .iter()
                    .any(|c| matches!(c, Command::SetResource { .. })),
                "at {at}"
            );
        }
    }
}

#[test]
fn a_question_s_handler_answers_only_in_its_steps_asked_alone_or_in_a_session() {
    let (_dir, m, mut rules, states) = at_steps(
        "hooks.on(\"yields\", function(game, side) return true end, { id = \"house.yields\", during = { \"combat\" } })\n",
    );
    for s in &states {
        let at = step(&m, s);
        let view = View {
            module: &m,
            state: s,
        };
        let side = s.active_side(&m);
        let alone = rules
            .ask(view, Question::Yields { side })
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let mut in_session = None;
        rules
            .ask_each(view, &mut |asker| {
                in_session = Some(asker.ask(Question::Yields { side })?);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        // Out of its steps the question has no handler: `any`'s answer with none, no.
        let want = Answer::Bool(at == "combat");
        assert_eq!(alone, want, "at {at}");
        assert_eq!(in_session, Some(want), "at {at}");
    }
}

/// A bonus of 1 at Combat, a bonus of 10 from an unlimited handler, and an event of three
/// handlers whose middle one acts at Combat only.
const SCHEDULED: &str = "\
hooks.on(\"bonus\", function() return 1 end, { id = \"t.combat\", during = { \"combat\" } })\n\
hooks.on(\"limit\", function() return 3 end, { id = \"t.limit\", during = { \"combat\" } })\n\
hooks.on(\"on_turn\", function() return { { kind = \"log\", text = \"a\" } } end)\n\
hooks.on(\"on_turn\", function() return { { kind = \"log\", text = \"b\" } } end, { during = { \"combat\" } })\n\
hooks.on(\"on_turn\", function() return { { kind = \"log\", text = \"c\" } } end)\n";

fn texts(commands: &[ScriptCommand]) -> Vec<String> {
    commands
        .iter()
        .map(|c| format!("{:?}", c.fields.get("text")))
        .collect()
}

#[test]
fn with_no_handler_left_at_the_step_no_scope_is_opened_and_the_answer_is_the_empty_one() {
    let mut sb = load(SCHEDULED).expect("rules load");
    let built = Cell::new(0);
    let ask = |sb: &mut muster_scripting::Sandbox, hook: &str, step| {
        sb.question_with(hook, Some(step), |_, _| {
            built.set(built.get() + 1);
            Ok(mlua::MultiValue::new())
        })
        .expect("asked")
    };
    assert_eq!(
        ask(&mut sb, "bonus", "movement"),
        muster_scripting::Answer::Int(0)
    );
    assert_eq!(
        ask(&mut sb, "limit", "movement"),
        muster_scripting::Answer::None
    );
    assert_eq!(built.get(), 0, "no scope opened, no arguments built");
    assert_eq!(
        ask(&mut sb, "bonus", "combat"),
        muster_scripting::Answer::Int(1)
    );
    assert_eq!(
        ask(&mut sb, "limit", "combat"),
        muster_scripting::Answer::Int(3)
    );
    assert_eq!(built.get(), 2);
    // Without a step (`Sandbox::question`), a handler declared for some steps is not there.
    assert_eq!(
        sb.question("bonus", ()).expect("asked"),
        muster_scripting::Answer::Int(0)
    );

    // An event: the handlers left, in their order.
    let fired = |sb: &mut muster_scripting::Sandbox, step| {
        sb.event_with("on_turn", Some(step), |_, _| Ok(mlua::MultiValue::new()))
            .expect("fired")
    };
    assert_eq!(texts(&fired(&mut sb, "combat")).len(), 3);
    let at_movement = texts(&fired(&mut sb, "movement"));
    assert_eq!(at_movement.len(), 2, "{at_movement:?}");
    assert!(
        at_movement[0].contains('a') && at_movement[1].contains('c'),
        "{at_movement:?}"
    );
}

#[test]
fn the_profile_counts_no_call_of_a_handler_out_of_its_steps() {
    profile::start();
    // The handler on a line of its own, apart from the chunk's first (the load's).
    let mut sb = load(&format!("-- scheduled\n{SCHEDULED}")).expect("rules load");
    for step in ["movement", "combat", "movement", "promotion"] {
        sb.question_with("bonus", Some(step), |_, _| Ok(mlua::MultiValue::new()))
            .expect("asked");
    }
    let p = profile::finish().expect("profiling was started");
    let calls: Vec<(String, u64)> = p
        .handlers()
        .into_iter()
        .filter(|(h, ..)| h.starts_with("bonus t.combat (rules/init.luau:2)"))
        .map(|(h, _, calls)| (h, calls))
        .collect();
    assert_eq!(calls.len(), 1, "{}", p.table());
    assert_eq!(calls[0].1, 1, "one call, at Combat: {}", p.table());
}

#[test]
fn a_replacement_is_called_in_every_step_unless_it_names_its_own_and_a_wrap_keeps_them() {
    let base =
        "hooks.on(\"bonus\", function() return 1 end, { id = \"t.b\", during = { \"combat\" } })\n";
    let at = |rules: &str, step: &str| {
        let mut sb = load(&format!("{base}{rules}")).expect("rules load");
        sb.question_with("bonus", Some(step), |_, _| Ok(mlua::MultiValue::new()))
            .expect("asked")
            .as_int()
    };
    // The base alone.
    assert_eq!((at("", "movement"), at("", "combat")), (Some(0), Some(1)));
    // A replacement is new code: the base's steps are not its own.
    let replaced = "hooks.replace(\"t.b\", function() return 10 end)\n";
    assert_eq!(
        (at(replaced, "movement"), at(replaced, "combat")),
        (Some(10), Some(10))
    );
    let own = "hooks.replace(\"t.b\", function() return 10 end, { during = { \"movement\" } })\n";
    assert_eq!(
        (at(own, "movement"), at(own, "combat")),
        (Some(10), Some(0))
    );
    // A wrap is called where the handler it wraps is, so `next` never runs elsewhere.
    let wrapped = "hooks.wrap(\"t.b\", function(next, ...) return next(...) + 100 end)\n";
    assert_eq!(
        (at(wrapped, "movement"), at(wrapped, "combat")),
        (Some(0), Some(101))
    );
}

/// The load error of AHD with `house` appended to its rules.
fn load_error(house: &str) -> String {
    let h = HouseRule::new(house);
    match ScriptRules::load(&h.module, Limits::default()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("loaded: {house}"),
    }
}

#[test]
fn a_bad_during_is_a_load_error_at_the_call_with_a_hint() {
    let line = include_str!("../../../mods/ahd/rules/init.luau")
        .lines()
        .count()
        + 1;
    let at = format!("ahd/rules/init.luau:{line}: hooks.on('step_ended'): ");
    let steps = "(the module's steps: movement, combat, promotion, recruitment)";
    let on = |during: &str| {
        load_error(&format!(
            "hooks.on(\"step_ended\", function() return nil end, {{ during = {during} }})\n"
        ))
    };
    for (during, want) in [
        (
            "\"combat\"",
            format!(
                "the option 'during' must be a list of step ids, like {{ \"movement\" }}, got the string \"combat\" {steps}"
            ),
        ),
        (
            "{}",
            format!(
                "the option 'during' is an empty list, so the handler would never be called: name the steps it acts in {steps}, or leave 'during' out to call it in every step"
            ),
        ),
        (
            "{ \"combat\", 2 }",
            format!(
                "each step of 'during' must be a step id (a string), got the integer 2 {steps}"
            ),
        ),
        (
            "{ combat = true }",
            format!(
                "the option 'during' must be a list of step ids, like {{ \"movement\" }}, not a table keyed by the string \"combat\" {steps}"
            ),
        ),
        (
            "{ \"movement\", \"combt\" }",
            format!(
                "'during' names 'combt', a step the module does not have; did you mean 'combat'? {steps}"
            ),
        ),
    ] {
        let err = on(during);
        assert!(
            err.contains(&format!("{at}{want}")),
            "{during}:\n{err}\nwant: {at}{want}"
        );
    }
    let err = load_error(
        "hooks.replace(\"ahd.why-unused\", function() return nil end, { during = { \"recruiting\" } })\n",
    );
    assert!(
        err.contains(&format!(
            "ahd/rules/init.luau:{line}: hooks.replace('ahd.why-unused'): 'during' names 'recruiting', a step the module does not have; did you mean 'recruitment'? {steps}"
        )),
        "{err}"
    );
    let err = load_error(
        "hooks.replace(\"ahd.why-unused\", function() return nil end, { id = \"x\" })\n",
    );
    assert!(
        err.contains(&format!("ahd/rules/init.luau:{line}: hooks.replace('ahd.why-unused'): unknown option 'id' (a replacement takes only during: its id and place are the handler's)")),
        "{err}"
    );
}
