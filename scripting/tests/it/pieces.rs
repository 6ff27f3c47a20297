//! Pieces with attributes, markers in boxes, pieces attached to others, and the general
//! commands event handlers use on them (issue 13, item 4 and 5): on the mini fixture with
//! a general (a non-combatant piece with a `strength`) and crossing tokens added, and
//! rules written for the test.

use std::path::Path;

use muster_core::game::{Action, ActionError, Dice, GameState, Place, apply, legal_actions, start};
use muster_core::ids::UnitId;
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::copy_dir;

const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures/mini");

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{from}");
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

/// At the start of each move step the rules attach North's general to a Green Infantry
/// of Northport (once), raise its strength by one and put two tokens there.
const RULES: &str = r#"
local NORTHPORT = defs.box_by_name["Northport"]
hooks.on("step_started", function(game, step)
	local commands = { { kind = "set_resource", resource = "moves", value = 2 } }
	local general, gi = nil, nil
	for _, u in game:units_at(NORTHPORT) do
		if game:unit_type(u) == "Gen" then
			general = u
		elseif game:unit_type(u) == "Gi" and gi == nil then
			gi = u
		end
	end
	if general and gi and game:attached_to(general) == nil and game:var("done") == 0 then
		table.insert(commands, { kind = "attach", unit = general, to = gi })
		table.insert(commands, { kind = "set_attribute", unit = general, attribute = "strength", value = game:attribute(general, "strength") + 1 })
		table.insert(commands, { kind = "add_markers", box = NORTHPORT, marker = "token", count = 2 })
		table.insert(commands, { kind = "set_var", name = "done", value = 1 })
	end
	return commands
end)
hooks.on("may_enter", function(game, unit, path)
	return #path.steps == 1
end)
hooks.on("offers", function(game, step)
	return { { id = "bad", label = "a bad command" } }
end)
hooks.on("offer_taken", function(game, offer)
	local gi = game:units_at(NORTHPORT)[1]
	if game:var("which") == 1 then
		return { { kind = "set_attribute", unit = gi, attribute = "strength", value = 1 } }
	elseif game:var("which") == 2 then
		return { { kind = "remove_markers", box = NORTHPORT, marker = "token", count = 3 } }
	end
	return { { kind = "set_attribute", unit = gi, attribute = "strenght", value = 1 } }
end)
"#;

fn module() -> (tempfile::TempDir, Module, ScriptRules, GameState) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("mini");
    copy_dir(Path::new(MINI), &dir);
    edit(
        &dir.join("units.xml"),
        "</units>",
        r#"  <marker id="token" name="Crossing token"/>
  <unit id="Gen" name="General" combatant="false">
    <attribute id="strength" value="2"/>
    <mix side="north" count="1"/>
  </unit>
</units>"#,
    );
    edit(
        &dir.join("scenarios/opening.xml"),
        r#"units="2 Gi, 1 Vi""#,
        r#"units="2 Gi, 1 Vi, 1 Gen""#,
    );
    edit(
        &dir.join("module.xml"),
        "</module>",
        "  <rules entry=\"rules/init.luau\"/>\n</module>",
    );
    std::fs::create_dir_all(dir.join("rules")).expect("mkdir");
    std::fs::write(dir.join("rules/init.luau"), RULES).expect("write");
    let m = load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let (g, _) = start(&m, &mut rules, &m.scenarios[0], Vec::new(), Dice::seeded(1))
        .unwrap_or_else(|e| panic!("{e}"));
    (tmp, m, rules, g)
}

fn piece(m: &Module, g: &GameState, kind: &str, at: &str) -> UnitId {
    let (k, b) = (m.units.find(kind).unwrap(), m.board.find(at).unwrap());
    g.units_at(b).find(|&u| g.unit(u).kind == k).unwrap()
}

#[test]
fn a_general_is_attached_strengthened_and_moves_with_its_unit() {
    let (_tmp, m, mut rules, g) = module();
    let general = piece(&m, &g, "Gen", "Northport");
    let gi = piece(&m, &g, "Gi", "Northport");
    assert_eq!(g.unit(general).attached_to, Some(gi));
    let strength = m.units.find_attribute("strength").unwrap();
    assert_eq!(
        g.attribute(&m, general, strength),
        Some(3),
        "2, raised by one"
    );
    assert_eq!(
        g.attribute(&m, gi, strength),
        None,
        "infantry has no strength"
    );
    let token = m.units.find_marker("token").unwrap();
    let northport = m.board.find("Northport").unwrap();
    assert_eq!(g.markers_at(northport, token), 2);

    let g = apply(&m, &mut rules, &g, &Action::Select { at: northport })
        .unwrap()
        .0;
    let ready = &g.moving.as_ref().unwrap().active.as_ref().unwrap().ready;
    assert!(
        ready.contains(&general),
        "a general may move on its own too"
    );
    let mv = legal_actions(&m, &mut rules, &g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Move { unit, .. } if *unit == gi))
        .expect("the infantry can move");
    let g = apply(&m, &mut rules, &g, &mv).unwrap().0;
    let Action::Move { path, .. } = mv else {
        unreachable!()
    };
    assert_eq!(
        g.unit(general).place,
        Place::Board(path.to()),
        "the general went along"
    );
    assert_eq!(g.unit(general).attached_to, Some(gi));
    let ready = &g.moving.as_ref().unwrap().active.as_ref().unwrap().ready;
    assert!(!ready.contains(&general), "and has made its move");
    g.check_invariants(&m).unwrap();
    // In the next march the general moves on its own: it leaves its unit, which stays.
    let g = apply(&m, &mut rules, &g, &Action::Release).unwrap().0;
    let there = g.unit(general).place;
    let Place::Board(there) = there else {
        unreachable!()
    };
    let g = apply(&m, &mut rules, &g, &Action::Select { at: there })
        .unwrap()
        .0;
    let alone = legal_actions(&m, &mut rules, &g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Move { unit, .. } if *unit == general))
        .expect("the general can move on its own");
    let g = apply(&m, &mut rules, &g, &alone).unwrap().0;
    assert_eq!(g.unit(general).attached_to, None, "it left its unit");
    assert_eq!(g.unit(gi).place, Place::Board(there), "which stayed");
    g.check_invariants(&m).unwrap();
    // Saves keep it all.
    let json = serde_json::to_string(&g).unwrap();
    let back: GameState = serde_json::from_str(&json).unwrap();
    assert_eq!(back, g);
}

/// A general does not fight: alone with enemy units it starts no battle.
#[test]
fn a_non_combatant_starts_no_battle() {
    let (_tmp, m, _rules, g) = module();
    let general = piece(&m, &g, "Gen", "Northport");
    let mut g = g;
    g.units[general.index()].attached_to = None;
    g.units[general.index()].place = Place::Board(m.board.find("Southgate").unwrap());
    assert!(muster_core::game::battle::pending(&m, &g).is_empty());
}

fn failing(which: i64) -> String {
    let (_tmp, m, mut rules, mut g) = module();
    g.vars.insert("which".into(), which);
    let take = legal_actions(&m, &mut rules, &g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Take { .. }))
        .unwrap();
    let before = g.clone();
    let err = apply(&m, &mut rules, &g, &take).unwrap_err();
    assert_eq!(g, before);
    match err {
        ActionError::Rule(e) => format!("{}: {}", e.hook, e.message),
        ActionError::Illegal(why) => why,
    }
}

#[test]
fn bad_attribute_and_marker_commands_are_refused() {
    assert_eq!(
        failing(0),
        "offer_taken: handler at mini/rules/init.luau:27: command 'set_attribute': no attribute 'strenght'; did you mean 'strength'?"
    );
    assert_eq!(
        failing(1),
        "set_attribute: a Gi has no attribute 'strength'"
    );
    assert_eq!(
        failing(2),
        "Northport has 2 token markers; -3 would leave -1"
    );
}
