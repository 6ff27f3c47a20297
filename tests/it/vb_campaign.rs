//! The miniatures campaign module (`mods/vb-campaign`, issue 47; seed 001): what its
//! `muster test` cases cannot see because they act for the side, not a seat: the
//! president's allocation of the marches and the commanders who move only their own
//! formations with the marches allocated to them (§2, §7); organisations refused by the
//! module's capacities and composition rules naming their section (§6.11, §6.22, §6.23);
//! a scenario's member placed outside its formation's box or over a capacity.

use std::path::PathBuf;

use muster_core::game::describe;
use muster_core::game::formations::Change;
use muster_core::game::{Action, Dice, GameState, apply_by, awaited, legal_actions_for, start};
use muster_core::ids::{SeatId, UnitId};
use muster_core::load::load_scenario_str;
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};

fn load() -> (Module, ScriptRules) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mods/vb-campaign");
    let m = load_module(dir).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

fn begin(m: &Module, rules: &mut ScriptRules) -> GameState {
    let s = m.scenario("1861").expect("scenario");
    start(m, rules, s, Vec::new(), Dice::seeded(3))
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

fn seat(m: &Module, id: &str) -> SeatId {
    m.find_seat(id).unwrap_or_else(|| panic!("no seat {id}"))
}

/// A side's amount of a resource.
fn resource(m: &Module, g: &GameState, id: &str, side: &str) -> i64 {
    g.resource(m.find_side(side).unwrap(), m.find_resource(id).unwrap())
}

fn named(g: &GameState, name: &str) -> UnitId {
    g.names
        .iter()
        .find(|(_, n)| n == name)
        .unwrap_or_else(|| panic!("no piece named {name}"))
        .0
}

/// The seat's legal actions in words.
fn words(m: &Module, rules: &mut ScriptRules, g: &GameState, s: SeatId) -> Vec<String> {
    legal_actions_for(m, rules, g, s)
        .unwrap()
        .iter()
        .map(|a| describe::action(m, g, a))
        .collect()
}

/// Takes the seat's action whose words contain `what`.
fn act(m: &Module, rules: &mut ScriptRules, g: &GameState, s: SeatId, what: &str) -> GameState {
    let a = legal_actions_for(m, rules, g, s)
        .unwrap()
        .into_iter()
        .find(|a| describe::action(m, g, a).contains(what))
        .unwrap_or_else(|| panic!("no '{what}' in {:?}", words(m, rules, g, s)));
    apply_by(m, rules, g, s, &a)
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .0
}

fn moves_of(m: &Module, rules: &mut ScriptRules, g: &GameState, s: SeatId, unit: UnitId) -> usize {
    legal_actions_for(m, rules, g, s)
        .unwrap()
        .iter()
        .filter(|a| matches!(a, Action::Move { unit: u, .. } if *u == unit))
        .count()
}

#[test]
fn the_president_allocates_the_marches_and_a_commander_moves_only_his_corps_with_his_own() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let president = seat(&m, "union-president");
    let army = seat(&m, "union-commander-1");
    let corps = seat(&m, "union-commander-2");
    // §7: two marches in July 1861; the game waits for the president to give them out.
    assert_eq!(resource(&m, &g, "marches", "union"), 2);
    assert_eq!(awaited(&m, &mut rules, &g).unwrap(), vec![president]);
    assert!(words(&m, &mut rules, &g, army).is_empty());
    let g = act(
        &m,
        &mut rules,
        &g,
        president,
        "allocate a march to Union corps commander",
    );
    assert_eq!(
        awaited(&m, &mut rules, &g).unwrap(),
        vec![president],
        "one left to give"
    );
    let g = act(
        &m,
        &mut rules,
        &g,
        president,
        "allocate a march to Union army commander",
    );

    // §2: the corps commander (III and IV Corps) may march from Harper's Ferry, where
    // only his IV Corps stands; the army commander (I and II Corps) may not.
    assert!(
        words(&m, &mut rules, &g, corps)
            .iter()
            .any(|w| w.contains("Harper's Ferry"))
    );
    assert!(
        !words(&m, &mut rules, &g, army)
            .iter()
            .any(|w| w.contains("Harper's Ferry"))
    );

    // At Washington each commander moves his own corps only.
    let g = act(&m, &mut rules, &g, army, "march: move from Washington");
    let (i, iii) = (
        named(&g, "I Corps (McDowell)"),
        named(&g, "III Corps (Hunter)"),
    );
    assert!(moves_of(&m, &mut rules, &g, army, i) > 0);
    assert_eq!(
        moves_of(&m, &mut rules, &g, army, iii),
        0,
        "III Corps is not his"
    );
    let g = act(&m, &mut rules, &g, army, "move I Corps (McDowell)");
    // The march is charged to him; the other commander never moves his corps.
    assert_eq!(resource(&m, &g, "alloc-1", "union"), 0);
    assert_eq!(resource(&m, &g, "alloc-2", "union"), 1);
    let ii = named(&g, "II Corps (Banks)");
    assert_eq!(moves_of(&m, &mut rules, &g, corps, ii), 0);
    // Still his march: he moves II Corps too without paying again.
    assert!(moves_of(&m, &mut rules, &g, army, ii) > 0);
    let g = act(&m, &mut rules, &g, army, "end this march");

    // The army commander has used his march: he commands nothing more this phase.
    assert!(
        !words(&m, &mut rules, &g, army)
            .iter()
            .any(|w| w.starts_with("march:"))
    );
    let g = act(&m, &mut rules, &g, corps, "march: move from Harper's Ferry");
    let iv = named(&g, "IV Corps (Patterson)");
    assert!(moves_of(&m, &mut rules, &g, corps, iv) > 0);
    // The president moves no corps.
    assert_eq!(moves_of(&m, &mut rules, &g, president, iv), 0);
}

fn organise(unit: UnitId, to: UnitId) -> Action {
    Action::Organize {
        changes: vec![Change { unit, to: Some(to) }],
    }
}

fn members(m: &Module, g: &GameState, f: UnitId, type_id: &str) -> Vec<UnitId> {
    g.members(f)
        .filter(|&u| m.units.get(g.unit(u).kind).id == type_id)
        .collect()
}

#[test]
fn organisations_against_the_seeds_section_6_are_refused_naming_it() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let president = seat(&m, "union-president");
    let army = seat(&m, "union-commander-1");
    let g = act(
        &m,
        &mut rules,
        &g,
        president,
        "allocate a march to Union army commander",
    );
    let g = act(
        &m,
        &mut rules,
        &g,
        president,
        "allocate a march to Union army commander",
    );
    let i = named(&g, "I Corps (McDowell)");
    let ii = named(&g, "II Corps (Banks)");
    let tyler = named(&g, "Tyler's Division, I Corps");
    let hunter = named(&g, "Hunter's Division, I Corps");
    let refuse = |rules: &mut ScriptRules, a: &Action| {
        apply_by(&m, rules, &g, army, a)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    // §6.22: a second artillery battalion in a division.
    let art = members(&m, &g, hunter, "Art")[0];
    let why = refuse(&mut rules, &organise(art, tyler));
    assert!(
        why.contains("§6.22") && why.contains("one battalion of artillery"),
        "{why}"
    );
    // §6.22: corps artillery no fewer than the divisional.
    let why = refuse(&mut rules, &organise(art, i));
    assert!(
        why.contains("§6.22") && why.contains("fewer than the divisional"),
        "{why}"
    );
    // §6.23: a division left with one combat formation.
    let infantry = members(&m, &g, tyler, "Inf");
    let out = Action::Organize {
        changes: infantry
            .iter()
            .map(|&u| Change {
                unit: u,
                to: Some(hunter),
            })
            .collect(),
    };
    let why = refuse(&mut rules, &out);
    assert!(why.contains("§6.23"), "{why}");
    // §6.11: twelve brigades and battalions: II Corps' eight and I Corps' eight are 16.
    let whole = Action::Organize {
        changes: vec![
            Change {
                unit: tyler,
                to: Some(ii),
            },
            Change {
                unit: hunter,
                to: Some(ii),
            },
        ],
    };
    let why = refuse(&mut rules, &whole);
    assert!(
        why.contains("the capacity of a Corps is 12 (§6.11)"),
        "{why}"
    );
    // Within the rules: a brigade from one division to the other of the same corps.
    let g2 = apply_by(&m, &mut rules, &g, army, &organise(infantry[0], hunter));
    assert!(g2.is_ok(), "{:?}", g2.err().map(|e| e.to_string()));
    // The corps commander may not organise the army commander's corps.
    let corps = seat(&m, "union-commander-2");
    let why = apply_by(&m, &mut rules, &g, corps, &organise(infantry[0], hunter))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(why.contains("does not command"), "{why}");
}

#[test]
fn a_scenario_member_outside_its_formations_box_is_a_located_error() {
    let (m, _) = load();
    let xml = "<scenario id=\"t\" name=\"t\" start=\"08/1861\"><side id=\"union\">\n\
               <place box=\"Washington\" units=\"1 Corps\" id=\"i\"/>\n\
               <place box=\"Baltimore\" units=\"2 Inf\" in=\"i\"/>\n\
               </side></scenario>";
    let why = match load_scenario_str(&m, "bad.xml", xml) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        why.contains("bad.xml:3:") && why.contains("placed in 'Baltimore'"),
        "{why}"
    );
    let xml = "<scenario id=\"t\" name=\"t\" start=\"08/1861\"><side id=\"union\">\n\
               <place box=\"Washington\" units=\"1 Corps\" id=\"i\"/>\n\
               <place box=\"Washington\" units=\"13 Inf\" in=\"i\"/>\n\
               </side></scenario>";
    let why = match load_scenario_str(&m, "bad.xml", xml) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        why.contains("bad.xml:3:") && why.contains("at most 12 (capacity of Corps, §6.11)"),
        "{why}"
    );
}
