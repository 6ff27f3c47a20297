//! Decisions offered by scripts (the `offers` hook, `Action::Take`, `offer_taken`): a
//! house rule on top of the AHD rules offers a decision with a cost in a resource; the
//! engine lists it, checks it, charges it and applies what the rules do when it is
//! taken. Bad offers and bad commands are errors naming the hook, and leave the game as
//! it was.

use muster_core::Module;
use muster_core::game::rules::Rules;
use muster_core::game::{Action, ActionError, Dice, GameState, apply, legal_actions, start};
use muster_scripting::ScriptRules;
use muster_test_support::HouseRule;

/// The AHD module with `house` appended to its rules, and the 1861 start (the Union's
/// Movement segment, two marches, 4.1).
fn with_house_rule(house: &str) -> (tempfile::TempDir, Module, ScriptRules, GameState) {
    let (dir, m, mut rules) = HouseRule::loaded(house);
    let scenario = m.scenario("1861").expect("1861");
    let (g, _) = start(&m, &mut rules, scenario, Vec::new(), Dice::seeded(1))
        .unwrap_or_else(|e| panic!("{e}"));
    (dir, m, rules, g)
}

/// A levy: for one march, the Union sets a counter (and a log line) in Washington.
const LEVY: &str = r#"
local WASHINGTON = defs.box_by_name["Washington"]
hooks.on("offers", function(game, step)
	if step == "movement" and game:selected_box() == nil and game:active_side() == "union" then
		return { { id = "levy", label = "raise a levy in Washington", box = WASHINGTON, cost = { marches = 1 } } }
	end
	return nil
end)
hooks.on("offer_taken", function(game, offer)
	if offer.id == "levy" then
		return {
			{ kind = "set_var", name = "levies", value = game:var("levies") + 1 },
			{ kind = "log", text = `levy raised in {defs.boxes[offer.box].name} for {offer.cost.marches} march` },
		}
	end
	return nil
end)
"#;

fn levy(legal: &[Action]) -> Option<Action> {
    legal
        .iter()
        .find(|a| matches!(a, Action::Take { offer, .. } if offer == "levy"))
        .cloned()
}

#[test]
fn an_offer_is_listed_charged_and_carried_out() {
    let (_dir, m, mut rules, g) = with_house_rule(LEVY);
    let marches = m.find_resource("marches").unwrap();
    let union = g.active_side(&m);
    assert_eq!(g.resource(union, marches), 2);
    let legal = legal_actions(&m, &mut rules, &g).unwrap();
    let take = levy(&legal).expect("the levy is offered");
    assert_eq!(
        legal.last(),
        Some(&Action::EndStep),
        "ending the step stays last"
    );
    assert_eq!(
        muster_core::game::describe::action(&m, &g, &take),
        "raise a levy in Washington"
    );
    let (g1, log) = apply(&m, &mut rules, &g, &take).unwrap();
    assert_eq!(g1.resource(union, marches), 1, "one march paid");
    assert_eq!(g1.var("levies"), 1);
    assert_eq!(log, ["levy raised in Washington for 1 march"]);
    // The second takes the last march; then nothing pays for a third.
    let take = levy(&legal_actions(&m, &mut rules, &g1).unwrap()).unwrap();
    let (g2, _) = apply(&m, &mut rules, &g1, &take).unwrap();
    assert_eq!(g2.resource(union, marches), 0);
    let legal = legal_actions(&m, &mut rules, &g2).unwrap();
    assert!(levy(&legal).is_none(), "not offered once unaffordable");
    let err = apply(&m, &mut rules, &g2, &take).unwrap_err();
    assert!(err.to_string().contains("not among the decisions"), "{err}");
}

/// A `Take` at a box its offer does not name is refused, the refusal listing the offers
/// of that id open now by their labels (the rules' words, which may cite the rule); an
/// offer not open at all is refused without a list.
#[test]
fn a_take_elsewhere_names_what_is_offered() {
    let (_dir, m, mut rules, g) = with_house_rule(LEVY);
    let Some(Action::Take {
        offer, unit, seat, ..
    }) = levy(&legal_actions(&m, &mut rules, &g).unwrap())
    else {
        panic!("offered")
    };
    let elsewhere = Action::Take {
        offer,
        unit,
        at: m.board.find("Richmond"),
        label: "raise a levy in Richmond".into(),
        seat,
        entry: None,
    };
    let err = apply(&m, &mut rules, &g, &elsewhere).unwrap_err();
    assert_eq!(
        err.to_string(),
        "not allowed: that is not among the decisions the rules offer now \
         ('levy' is offered only as: raise a levy in Washington)"
    );
    let unknown = Action::Take {
        offer: "draft".into(),
        unit: None,
        at: None,
        label: "draft".into(),
        seat: None,
        entry: None,
    };
    let err = apply(&m, &mut rules, &g, &unknown).unwrap_err();
    assert!(err.to_string().ends_with("offer now"), "{err}");
}

/// An offer is matched by id, piece and box, not by its label: a save whose label was
/// worded differently still replays.
#[test]
fn an_offer_is_matched_without_its_label() {
    let (_dir, m, mut rules, g) = with_house_rule(LEVY);
    let Some(Action::Take {
        offer, unit, at, ..
    }) = levy(&legal_actions(&m, &mut rules, &g).unwrap())
    else {
        panic!("offered")
    };
    let reworded = Action::Take {
        offer,
        unit,
        at,
        label: "another wording".into(),
        seat: None,
        entry: None,
    };
    assert!(apply(&m, &mut rules, &g, &reworded).is_ok());
}

fn offers_error(house: &str) -> String {
    let (_dir, m, mut rules, g) = with_house_rule(house);
    let err = legal_actions(&m, &mut rules, &g).unwrap_err();
    assert_eq!(err.hook, "offers");
    err.message
}

#[test]
fn a_negative_cost_is_refused() {
    let msg = offers_error(
        r#"hooks.on("offers", function() return { { id = "gift", cost = { marches = -1 } } } end)"#,
    );
    assert!(
        msg.contains("offer 'gift': the cost in 'marches' must be a whole number 0 or more"),
        "{msg}"
    );
}

#[test]
fn an_unknown_resource_or_field_gets_a_suggestion() {
    let msg = offers_error(
        r#"hooks.on("offers", function() return { { id = "x", cost = { marchs = 1 } } } end)"#,
    );
    assert!(
        msg.contains("offer 'x': no resource 'marchs'; did you mean 'marches'?"),
        "{msg}"
    );
    let msg = offers_error(
        r#"hooks.on("offers", function() return { { id = "x", cots = { marches = 1 } } } end)"#,
    );
    assert!(
        msg.contains("offer 'x': unknown field 'cots'; did you mean 'cost'?"),
        "{msg}"
    );
    let msg = offers_error(r#"hooks.on("offers", function() return { { label = "x" } } end)"#);
    assert!(msg.contains("an offer needs an `id` string"), "{msg}");
}

/// A list read in one pass up to a bad item still names that item, by its place in the
/// list, and lists every good one of another handler in order.
#[test]
fn a_bad_offer_after_good_ones_is_named_by_its_place() {
    let msg = offers_error(
        r#"hooks.on("offers", function()
	return { { id = "a", cost = { marches = 1 } }, { id = "b" }, { id = "c", cost = { marchs = 1 } } }
end)"#,
    );
    assert!(
        msg.contains("item #3: offer 'c': no resource 'marchs'"),
        "{msg}"
    );
    let msg = offers_error(r#"hooks.on("offers", function() return { { id = "a" }, 5 } end)"#);
    assert!(msg.contains("item #2: "), "{msg}");
    let (_dir, m, mut rules, g) = with_house_rule(
        r#"hooks.on("offers", function() return { { id = "a", label = "first" }, { id = "b", label = "second" } } end)
hooks.on("offers", function() return { { id = "c", label = "third", form = { { id = "n", min = 1, max = 2 } } }, { id = "d", label = "fourth" } } end)"#,
    );
    let labels: Vec<String> = muster_core::game::offer::offers(&m, &mut rules, &g)
        .unwrap()
        .into_iter()
        .map(|o| o.label)
        .filter(|l| ["first", "second", "third", "fourth"].contains(&l.as_str()))
        .collect();
    assert_eq!(labels, ["first", "second", "third", "fourth"]);
}

/// A command on a piece that is not on the board (a unit in the pool) fails the whole
/// action: the march is not spent, nothing changes.
#[test]
fn a_command_on_a_piece_that_is_not_there_changes_nothing() {
    let (_dir, m, mut rules, g) = with_house_rule(
        r#"
hooks.on("offers", function(game, step)
	if step == "movement" and game:selected_box() == nil then
		return { { id = "teleport", cost = { marches = 1 } } }
	end
	return nil
end)
hooks.on("offer_taken", function(game, offer)
	return {
		{ kind = "set_var", name = "tried", value = 1 },
		{ kind = "move_piece", unit = 1000, box = 1 },
	}
end)
"#,
    );
    let take = legal_actions(&m, &mut rules, &g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Take { offer, .. } if offer == "teleport"))
        .expect("offered");
    let before = g.clone();
    let err = apply(&m, &mut rules, &g, &take).unwrap_err();
    match &err {
        ActionError::Rule(e) => {
            assert_eq!(e.hook, "offer_taken");
            assert!(
                e.message.contains("'unit' must be a unit number")
                    && e.message.contains("got 1000"),
                "{}",
                e.message
            );
        }
        other => panic!("{other}"),
    }
    assert_eq!(g, before);
}

/// When an offer is taken the rules hear which one (`wanted`: id, unit, box) and may
/// list only that; the engine still matches id, piece and box, so an answer that does
/// not list it refuses the action, and a wrong one changes nothing. (These rules list
/// differently when asked for one, which the hook's contract forbids; they are asked in
/// a position other than the one listed, where the listing is not reused: see
/// `an_offer_taken_where_it_was_listed_is_not_asked_for_again`.)
#[test]
fn a_taken_offer_is_looked_up_with_what_is_wanted() {
    let rules = r#"
local WASHINGTON = defs.box_by_name["Washington"]
hooks.on("offers", function(game, step, wanted)
	if step ~= "movement" or game:selected_box() ~= nil then
		return nil
	end
	if wanted == nil then
		return {
			{ id = "levy", label = "levy", box = WASHINGTON },
			{ id = "tax", label = "tax", box = WASHINGTON },
		}
	end
	-- Checking a taken one: answer with just the tax, whatever is wanted.
	return { { id = "tax", label = "tax " .. wanted.id .. " " .. tostring(wanted.box), box = WASHINGTON } }
end)
"#;
    let (_dir, m, mut r, listed) = with_house_rule(rules);
    let legal = legal_actions(&m, &mut r, &listed).unwrap();
    let mut g = listed.clone();
    g.vars.insert("read by no rule".into(), 1);
    let take = |id: &str| {
        legal
            .iter()
            .find(|a| matches!(a, Action::Take { offer, .. } if offer == id))
            .cloned()
            .unwrap()
    };
    assert!(
        apply(&m, &mut r, &g, &take("tax")).is_ok(),
        "the tax is listed when wanted"
    );
    match apply(&m, &mut r, &g, &take("levy")) {
        Err(ActionError::Illegal(why)) => assert!(why.contains("not among"), "{why}"),
        other => panic!("the levy must be refused: {:?}", other.map(|x| x.1)),
    }
}

/// A levy whose label counts the handler's listings (`print`, read back through
/// `take_output`), open while the var `closed` is 0.
const COUNTED_LEVY: &str = r#"
local WASHINGTON = defs.box_by_name["Washington"]
hooks.on("offers", function(game, step, wanted)
	print(if wanted then `asked for {wanted.id}` else "listed")
	if step == "movement" and game:selected_box() == nil and game:var("closed") == 0 then
		return { { id = "levy", label = "raise a levy", box = WASHINGTON, cost = { marches = 1 } } }
	end
	return nil
end)
hooks.on("offer_taken", function(game, offer)
	if offer.id == "levy" then
		return { { kind = "set_var", name = "levies", value = game:var("levies") + 1 } }
	end
	return nil
end)
"#;

/// A player takes an offer from the list it was just given: in the position listed the
/// listing is reused (the rules are not asked again, for the `Take` nor for a second
/// listing), in any other position they are asked, so a listing is never taken from
/// where it no longer holds.
#[test]
fn an_offer_taken_where_it_was_listed_is_not_asked_for_again() {
    let (_dir, m, mut r, g) = with_house_rule(COUNTED_LEVY);
    let take = levy(&legal_actions(&m, &mut r, &g).unwrap()).expect("the levy is offered");
    assert_eq!(r.take_output(), ["listed"]);
    let again = legal_actions(&m, &mut r, &g).unwrap();
    assert_eq!(levy(&again), Some(take.clone()));
    assert!(
        r.take_output().is_empty(),
        "listed again from the last listing"
    );
    let (g1, _) = apply(&m, &mut r, &g, &take).unwrap();
    assert_eq!(g1.var("levies"), 1);
    let asked = r.take_output();
    assert!(
        !asked.iter().any(|l| l.starts_with("asked for")),
        "taken from the listing: {asked:?}"
    );
    // Listed in `g`, taken in a position where the rules close it: asked, and refused.
    legal_actions(&m, &mut r, &g).unwrap();
    let mut closed = g.clone();
    closed.vars.insert("closed".into(), 1);
    let err = apply(&m, &mut r, &closed, &take).unwrap_err();
    assert!(err.to_string().contains("not among the decisions"), "{err}");
    assert!(r.take_output().contains(&"asked for levy".to_string()));
    // A position the rules read the same but not equal: asked again, and taken.
    legal_actions(&m, &mut r, &g).unwrap();
    let mut other = g.clone();
    other.vars.insert("read by no rule".into(), 1);
    let (g2, _) = apply(&m, &mut r, &other, &take).unwrap();
    assert_eq!(g2.var("levies"), 1);
    assert!(r.take_output().contains(&"asked for levy".to_string()));
}

/// `victory_progress` (a list hook for players to read): a house rule's items join
/// AHD's, and a bad item is an error naming the hook, the handler's item and a hint.
#[test]
fn victory_progress_items_join_and_a_bad_one_is_named() {
    use muster_core::game::View;
    use muster_core::game::rules::Rules;
    let house = r#"
hooks.on("victory_progress", function(game)
	return { { side = "union", goal = "levies raised", have = game:var("levies"), need = 3 } }
end, { id = "house.levies" })
"#;
    let (_dir, m, mut rules, g) = with_house_rule(house);
    let view = View {
        module: &m,
        state: &g,
    };
    let progress = rules.victory_progress(view).expect("answers");
    assert_eq!(progress.len(), 4, "AHD's three, then the house rule's");
    assert_eq!(progress[3].goal, "levies raised");
    assert_eq!((progress[3].have, progress[3].need), (0.0, 3.0));

    let bad = r#"
hooks.on("victory_progress", function(game)
	return { { side = "unoin", goal = "x", have = 1, need = 2 } }
end, { id = "house.bad" })
"#;
    let (_dir, m, mut rules, g) = with_house_rule(bad);
    let view = View {
        module: &m,
        state: &g,
    };
    let e = rules.victory_progress(view).unwrap_err().to_string();
    assert!(e.contains("victory_progress"), "{e}");
    assert!(e.contains("no side 'unoin'; did you mean 'union'?"), "{e}");
}

/// `victory_threats` (a list hook for players to see defeat coming): a house rule's
/// items join AHD's, with their boxes; a box that is not on the board or a misspelt
/// field is an error naming the hook and the fault.
#[test]
fn victory_threats_items_join_and_a_bad_one_is_named() {
    use muster_core::game::View;
    use muster_core::game::rules::Rules;
    let house = r#"
hooks.on("victory_threats", function(game)
	return { { side = "union", text = "if Richmond falls", boxes = { defs.box("Richmond") } } }
end, { id = "house.threat" })
"#;
    let (_dir, m, mut rules, g) = with_house_rule(house);
    let view = View {
        module: &m,
        state: &g,
    };
    let threats = rules.victory_threats(view).expect("answers");
    let last = threats.last().expect("the house rule's item");
    assert_eq!(last.text, "if Richmond falls");
    assert_eq!(last.boxes, vec![m.board.find("Richmond").expect("box")]);

    for (bad, fault) in [
        (
            r#"return { { side = "union", text = "x", boxes = { 9999 } } }"#,
            "`boxes`: 9999 is not a box of the board",
        ),
        (
            r#"return { { side = "union", txt = "x" } }"#,
            "unknown field the string \"txt\": an item is { side, text, boxes }",
        ),
    ] {
        let house = format!(
            "hooks.on(\"victory_threats\", function(game)\n\t{bad}\nend, {{ id = \"house.bad\" }})\n"
        );
        let (_dir, m, mut rules, g) = with_house_rule(&house);
        let view = View {
            module: &m,
            state: &g,
        };
        let e = rules.victory_threats(view).unwrap_err().to_string();
        assert!(e.contains("victory_threats"), "{e}");
        assert!(e.contains(fault), "{e}");
    }
}

/// A computer player's look ahead on the game's own rules (`Rules::look_ahead`): what
/// the game kept before it (lines logged, printed, traced) is there after it, and what
/// the look ahead made is gone.
#[test]
fn a_look_ahead_leaves_the_games_log_print_and_trace_as_they_were() {
    let house = format!(
        "{LEVY}\nhooks.on(\"offer_taken\", function(game, offer) print(`took {{offer.id}}`) return nil end)\n"
    );
    let game_part = |rules: &mut ScriptRules, m: &Module, g: &GameState| {
        rules.keep_logged(true);
        rules.set_trace(true);
        let take = levy(&legal_actions(m, rules, g).unwrap()).unwrap();
        apply(m, rules, g, &take).unwrap().0
    };
    let (_dir, m, mut rules, g) = with_house_rule(&house);
    let g1 = game_part(&mut rules, &m, &g);
    rules.look_ahead(true);
    let take = levy(&legal_actions(&m, &mut rules, &g1).unwrap()).unwrap();
    let (_, log) = apply(&m, &mut rules, &g1, &take).unwrap();
    assert_eq!(
        log,
        ["levy raised in Washington for 1 march"],
        "the engine's own log of a look ahead's action is its caller's to keep or drop"
    );
    rules.look_ahead(false);
    assert_eq!(
        rules.take_logged(),
        ["levy raised in Washington for 1 march"]
    );
    assert_eq!(rules.take_output(), ["took levy"]);
    let traced = rules.take_trace();
    assert!(!traced.is_empty(), "the game's questions were traced");

    // The same game part without a look ahead traces the same.
    let (_dir2, m2, mut alone, g) = with_house_rule(&house);
    game_part(&mut alone, &m2, &g);
    assert_eq!(traced, alone.take_trace());
    // Keeping goes on after the look ahead.
    let take = levy(&legal_actions(&m, &mut rules, &g1).unwrap()).unwrap();
    apply(&m, &mut rules, &g1, &take).unwrap();
    assert_eq!(
        rules.take_logged(),
        ["levy raised in Washington for 1 march"]
    );
    assert_eq!(rules.take_output(), ["took levy"]);
}

/// AHD gives every offer of one cost the same frozen cost table: a wrapper that changes
/// one offer's cost in place fails, naming the read-only table, rather than change the
/// cost of every offer sharing it.
#[test]
fn a_wrapper_cannot_change_a_shared_cost_in_place() {
    let msg = offers_error(
        r#"hooks.wrap("ahd.offers", function(next, game, step, wanted)
	local list = next(game, step, wanted) or {}
	for _, o in list do
		if o.id == "sea-move" then
			o.cost.marches += 1
		end
	end
	return list
end)"#,
    );
    assert!(msg.contains("readonly"), "{msg}");
}
