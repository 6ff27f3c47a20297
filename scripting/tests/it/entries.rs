//! Entries (issue 43, item 3): an offer with a form, taken with the values a seat
//! entered; every field kind checked by the engine, the rules' `accepts_entry` reason,
//! the computer referee (`referee_entry`) and the errors a bad form or a bad value
//! gets. The umpire example plays them in a whole game (`tests/it/umpire.rs`).

use muster_core::Module;
use muster_core::game::entry::Value;
use muster_core::game::{Action, Dice, Entry, GameState, apply, legal_actions, start};
use muster_core::ids::BoxId;
use muster_scripting::ScriptRules;
use muster_test_support::HouseRule;

fn with_house_rule(house: &str) -> (tempfile::TempDir, Module, ScriptRules, GameState) {
    let (dir, m, mut rules) = HouseRule::loaded(house);
    let scenario = m.scenario("1861").expect("1861");
    let (g, _) = start(&m, &mut rules, scenario, Vec::new(), Dice::seeded(1))
        .unwrap_or_else(|e| panic!("{e}"));
    (dir, m, rules, g)
}

/// A report the Union files in its Movement segment: a number, a choice and a box,
/// logged when taken; the rules refuse a report of 3 from Richmond.
const REPORT: &str = r#"
local WASHINGTON = defs.box_by_name["Washington"]
local RICHMOND = defs.box_by_name["Richmond"]
hooks.on("offers", function(game, step)
	if step == "movement" and game:selected_box() == nil then
		return { {
			id = "report", label = "file a report",
			form = {
				{ id = "count", label = "Scouts", min = 0, max = 3 },
				{ id = "mood", label = "Mood", choices = { "calm", "alarmed" } },
				{ id = "from", label = "From", boxes = { WASHINGTON, RICHMOND } },
			},
		} }
	end
	return nil
end)
hooks.on("accepts_entry", function(game, offer)
	if offer.entry.count == 3 and offer.entry.from == RICHMOND then
		return "three scouts never come back from Richmond"
	end
	return nil
end)
hooks.on("offer_taken", function(game, offer)
	if offer.id == "report" then
		local e = offer.entry
		return { { kind = "log", text = `report: {e.count} {e.mood} from {defs.boxes[e.from].name}` } }
	end
	return nil
end)
"#;

fn report(m: &Module, rules: &mut ScriptRules, g: &GameState) -> Action {
    legal_actions(m, rules, g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Take { offer, .. } if offer == "report"))
        .expect("the report is offered")
}

fn with(mut take: Action, entry: Entry) -> Action {
    if let Action::Take { entry: e, .. } = &mut take {
        *e = Some(Box::new(entry));
    }
    take
}

fn values(count: i64, mood: &str, from: BoxId) -> Entry {
    let mut e = Entry::default();
    e.set("count", Value::Number(count));
    e.set("mood", Value::Choice(mood.into()));
    e.set("from", Value::Box(from));
    e
}

#[test]
fn an_entry_of_each_kind_is_checked_and_carried_out() {
    let (_dir, m, mut rules, g) = with_house_rule(REPORT);
    let take = report(&m, &mut rules, &g);
    let washington = m.board.find("Washington").unwrap();
    let richmond = m.board.find("Richmond").unwrap();
    let (_, log) = apply(
        &m,
        &mut rules,
        &g,
        &with(take.clone(), values(2, "alarmed", richmond)),
    )
    .unwrap();
    assert!(
        log.contains(&"file a report entered: Scouts: 2; Mood: alarmed; From: Richmond".into()),
        "{log:?}"
    );
    assert!(
        log.contains(&"report: 2 alarmed from Richmond".into()),
        "{log:?}"
    );
    let refused = |entry: Entry| {
        apply(
            &m,
            &mut with_house_rule(REPORT).2,
            &g,
            &with(take.clone(), entry),
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        refused(values(4, "calm", washington)),
        "not allowed: 'file a report': Scouts ('count'): 4 is out of range (0 to 3)"
    );
    assert_eq!(
        refused(values(1, "bored", washington)),
        "not allowed: 'file a report': Mood ('mood'): 'bored' is not one of: calm, alarmed"
    );
    let cairo = m.board.find("Cairo").unwrap();
    assert_eq!(
        refused(values(1, "calm", cairo)),
        "not allowed: 'file a report': From ('from'): Cairo is not one of the boxes it takes"
    );
    assert_eq!(
        refused(values(3, "calm", richmond)),
        "not allowed: 'file a report': the rules refuse the entry: three scouts never come \
         back from Richmond"
    );
    // With no computer referee, an offer with a form needs values.
    let none = apply(&m, &mut rules, &g, &take).unwrap_err().to_string();
    assert!(
        none.contains("it needs an entry, and no computer referee"),
        "{none}"
    );
}

#[test]
fn values_on_an_offer_without_a_form_are_refused() {
    const PLAIN: &str = r#"
hooks.on("offers", function(game, step)
	if step == "movement" and game:selected_box() == nil then
		return { { id = "plain", label = "do nothing" } }
	end
	return nil
end)
"#;
    let (_dir, m, mut rules, g) = with_house_rule(PLAIN);
    let take = legal_actions(&m, &mut rules, &g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Take { offer, .. } if offer == "plain"))
        .unwrap();
    let e = apply(&m, &mut rules, &g, &with(take, Entry::default()))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "not allowed: 'do nothing': it takes no entry (its offer has no form)"
    );
}

#[test]
fn the_computer_referee_enters_values_from_the_games_dice() {
    let house = format!(
        "{REPORT}\n{}",
        r#"
hooks.on("referee_entry", function(game, offer)
	return { count = math.random(3), mood = "calm", from = defs.box_by_name["Washington"] }
end)
"#
    );
    let (_dir, m, mut rules, g) = with_house_rule(&house);
    let take = report(&m, &mut rules, &g);
    let (a, log_a) = apply(&m, &mut rules, &g, &take).unwrap();
    let (b, log_b) = apply(&m, &mut rules, &g, &take).unwrap();
    assert_eq!((a.clone(), log_a.clone()), (b, log_b), "the same dice");
    assert!(
        log_a
            .iter()
            .any(|l| l.starts_with("file a report entered by the computer referee: Scouts: ")),
        "{log_a:?}"
    );
    assert_ne!(a.dice, g.dice, "a die was drawn from the game's dice");
}

#[test]
fn a_bad_form_or_a_bad_referee_value_names_the_handler_and_the_field() {
    const BAD_FORM: &str = r#"
hooks.on("offers", function(game, step)
	return { { id = "x", form = { { id = "n", min = 5, max = 1 } } } }
end)
"#;
    let (_dir, m, mut rules, g) = with_house_rule(BAD_FORM);
    let e = legal_actions(&m, &mut rules, &g).unwrap_err().to_string();
    assert!(
        e.contains("offer 'x': form field #1: `min` 5 is above `max` 1"),
        "{e}"
    );
    assert!(e.contains("rules/init.luau:"), "names the handler: {e}");

    let bad_value = format!(
        "{REPORT}\n{}",
        r#"
hooks.on("referee_entry", function(game, offer)
	return { count = "many" }
end)
"#
    );
    let (_dir, m, mut rules, g) = with_house_rule(&bad_value);
    let take = report(&m, &mut rules, &g);
    let e = apply(&m, &mut rules, &g, &take).unwrap_err().to_string();
    assert!(e.contains("handler at ahd/rules/init.luau:"), "{e}");
    assert!(
        e.contains(
            "returned a bad entry: field 'count': the value must be a whole number, not the \
             string \"many\""
        ),
        "{e}"
    );
}
