//! Formations (issue 47, item 1; seed 001 §6, §7, §10): pieces that hold pieces to any
//! depth, moving as one, garrisons dropped on the way, detachment and reorganisation
//! checked against capacities (units.xml) and the rules' `composition` hook, named
//! pieces, scenarios placing them, saves, and what a seat sees of them. The fixture is
//! `tests/fixtures/formations`: an army of two corps of two divisions at Baltimore.

use std::path::PathBuf;

use muster_core::game::formations::Change;
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{
    Action, Dice, GameState, Knowledge, Place, apply, legal_actions, seat_view, start,
};
use muster_core::ids::{BoxId, UnitId};
use muster_core::load::load_scenario_str;
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formations")
}

fn load() -> (Module, ScriptRules) {
    let m = load_module(fixture()).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

fn begin(m: &Module, rules: &mut ScriptRules) -> GameState {
    let s = m.scenario("army").expect("scenario");
    start(m, rules, s, Vec::new(), Dice::seeded(7))
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

/// The piece with this name.
fn named(g: &GameState, name: &str) -> UnitId {
    g.names
        .iter()
        .find(|(_, n)| n == name)
        .unwrap_or_else(|| panic!("no piece named {name}"))
        .0
}

fn at(m: &Module, name: &str) -> BoxId {
    m.board
        .find(name)
        .unwrap_or_else(|| panic!("no box {name}"))
}

fn path(m: &Module, g: &GameState, rules: &mut ScriptRules, unit: UnitId, to: &str) -> Action {
    let to = at(m, to);
    legal_actions(m, rules, g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Move { unit: u, path } if *u == unit && path.to() == to))
        .unwrap_or_else(|| panic!("no move of {unit:?} to {to:?}"))
}

fn act(m: &Module, rules: &mut ScriptRules, g: &GameState, a: &Action) -> (GameState, Vec<String>) {
    apply(m, rules, g, a).unwrap_or_else(|e| panic!("{a:?}: {e}"))
}

fn refused(m: &Module, rules: &mut ScriptRules, g: &GameState, a: &Action) -> String {
    match apply(m, rules, g, a) {
        Ok(_) => panic!("{a:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

fn members_of_type(m: &Module, g: &GameState, f: UnitId, id: &str) -> Vec<UnitId> {
    g.members(f)
        .filter(|&u| m.units.get(g.unit(u).kind).id == id)
        .collect()
}

// ---- Placement (App. I/II: set-ups place organisations) ----

#[test]
fn a_scenario_places_nested_formations_named_pieces_attributes_and_markers() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let army = named(&g, "Army of the Potomac");
    let one = named(&g, "I Corps (Heintzelman)");
    let div = named(&g, "2nd Division, I Corps");
    assert_eq!(g.holder(one), Some(army));
    assert_eq!(g.holder(div), Some(one));
    assert_eq!(
        g.holder(named(&g, "Willcox")),
        Some(div),
        "§6.21: commanders are members"
    );
    // Army → corps → division → brigade: four levels.
    let bdes = members_of_type(&m, &g, div, "Bde");
    assert_eq!(bdes.len(), 3);
    assert!(g.holds_deep(army, bdes[0]));
    let sp = m.units.find_attribute("sp").unwrap();
    assert_eq!(g.attribute(&m, bdes[0], sp), Some(4), "attributes=\"sp=4\"");
    assert_eq!(
        g.held_count(&m, one),
        6,
        "§6.11 counts brigades and battalions"
    );
    let works = m.units.find_marker("works").unwrap();
    assert_eq!(g.markers_at(at(&m, "Manassas"), works), 3);
    assert!(
        g.check_invariants(&m).is_ok(),
        "{:?}",
        g.check_invariants(&m)
    );
}

#[test]
fn army_size_counts_formations_by_their_weight() {
    // §3.2 / §6.11-6.12: a corps counts 1, a field corps 2; an army without a weight
    // counts what it holds; stands inside a corps count nothing more.
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let union = m.find_side("union").unwrap();
    let confederate = m.find_side("confederate").unwrap();
    assert_eq!(
        g.army_size(&m, union),
        3,
        "I, II (in the army) and III Corps"
    );
    assert_eq!(g.army_size(&m, confederate), 1);
    assert_eq!(g.weight(&m, named(&g, "Army of the Potomac")), 2);
}

// ---- Moving as one (§7), garrisons (§6.23) ----

#[test]
fn a_formation_moves_as_one_at_every_depth_and_its_members_are_not_moved_alone() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let army = named(&g, "Army of the Potomac");
    let iii = named(&g, "III Corps");
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Baltimore"),
        },
    )
    .0;
    // Only the pieces that nothing holds may move: the army and III Corps.
    let movers: Vec<UnitId> = legal_actions(&m, &mut rules, &g)
        .unwrap()
        .iter()
        .filter_map(|a| match a {
            Action::Move { unit, .. } => Some(*unit),
            _ => None,
        })
        .collect();
    assert!(movers.iter().all(|&u| u == army || u == iii), "{movers:?}");
    let mv = path(&m, &g, &mut rules, army, "Grafton");
    let said = muster_core::game::describe::action(&m, &g, &mv);
    assert!(said.contains("Army of the Potomac (Army #1)"), "{said}");
    let g = act(&m, &mut rules, &g, &mv).0;
    let grafton = Place::Board(at(&m, "Grafton"));
    let all = g.all_members(army);
    // McDowell, and per corps: the corps, its general, two divisions, their generals
    // and six stands.
    assert_eq!(all.len(), 1 + 2 * 12, "every member, at every depth");
    for u in all {
        assert_eq!(g.unit(u).place, grafton, "{u:?} was left behind");
    }
    let ready = &g.moving.as_ref().unwrap().active.as_ref().unwrap().ready;
    assert_eq!(ready, &vec![iii], "the army's members have made their move");
}

#[test]
fn a_division_dropped_on_the_way_stays_a_garrison_of_its_corps() {
    // §6.23's example: a corps rails Baltimore → Harper's Ferry → Grafton and leaves a
    // division at Harper's Ferry, which cannot then be selected alone.
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let one = named(&g, "I Corps (Heintzelman)");
    let div = named(&g, "2nd Division, I Corps");
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Baltimore"),
        },
    )
    .0;
    let mv = path(
        &m,
        &g,
        &mut rules,
        named(&g, "Army of the Potomac"),
        "Grafton",
    );
    let g = act(&m, &mut rules, &g, &mv).0;
    let ferry = at(&m, "Harper's Ferry");
    let why = refused(
        &m,
        &mut rules,
        &g,
        &Action::Drop {
            unit: div,
            at: at(&m, "Manassas"),
        },
    );
    assert!(why.contains("§6.23"), "{why}");
    let (g, log) = act(
        &m,
        &mut rules,
        &g,
        &Action::Drop {
            unit: div,
            at: ferry,
        },
    );
    assert!(
        log.iter().any(
            |l| l.contains("2nd Division, I Corps") && l.contains("garrison in Harper's Ferry")
        ),
        "{log:?}"
    );
    assert!(g.is_garrison(div));
    assert_eq!(g.holder(div), Some(one), "still part of its corps");
    for u in std::iter::once(div).chain(g.all_members(div)) {
        assert_eq!(g.unit(u).place, Place::Board(ferry), "{u:?}");
    }
    assert_eq!(
        g.held_count(&m, one),
        6,
        "§6.23: counts toward the corps' size"
    );
    assert!(
        g.check_invariants(&m).is_ok(),
        "{:?}",
        g.check_invariants(&m)
    );
    // The garrison does not move alone (nothing else of the Union is there).
    let g = act(&m, &mut rules, &g, &Action::Release).0;
    let why = refused(&m, &mut rules, &g, &Action::Select { at: ferry });
    assert!(why.contains("may move now"), "{why}");
    // When the corps moves on, its garrison stays.
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Grafton"),
        },
    )
    .0;
    let mv = path(
        &m,
        &g,
        &mut rules,
        named(&g, "Army of the Potomac"),
        "Harper's Ferry",
    );
    let g = act(&m, &mut rules, &g, &mv).0;
    assert_eq!(g.unit(div).place, Place::Board(ferry));
    assert!(
        !g.is_garrison(div),
        "its corps is back: it moves with it again"
    );
}

// ---- Detachment and reorganisation (§10) ----

#[test]
fn a_detached_division_stands_and_moves_on_its_own() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let div = named(&g, "1st Division, II Corps");
    let detach = Action::Organize {
        changes: vec![Change {
            unit: div,
            to: None,
        }],
    };
    let (g, log) = act(&m, &mut rules, &g, &detach);
    assert_eq!(g.holder(div), None);
    assert!(
        log.iter().any(|l| l.contains("leaves II Corps (Sumner)")),
        "{log:?}"
    );
    let union = m.find_side("union").unwrap();
    // The army (two corps of weight 1), III Corps (1), and the division on its own,
    // which has no weight of its own: its three brigades.
    assert_eq!(g.army_size(&m, union), 2 + 1 + 3);
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Baltimore"),
        },
    )
    .0;
    let mv = path(&m, &g, &mut rules, div, "Harper's Ferry");
    let g = act(&m, &mut rules, &g, &mv).0;
    assert_eq!(g.unit(div).place, Place::Board(at(&m, "Harper's Ferry")));
    let iii = named(&g, "III Corps");
    assert_eq!(g.unit(iii).place, Place::Board(at(&m, "Baltimore")));
}

#[test]
fn a_reorganisation_moves_members_between_formations_in_one_box() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let from = named(&g, "1st Division, II Corps");
    let to = named(&g, "2nd Division, I Corps");
    let bde = members_of_type(&m, &g, from, "Bde")[0];
    let sumner = named(&g, "Sumner");
    let changes = vec![
        Change {
            unit: bde,
            to: Some(to),
        },
        // Commanders are members: Sumner goes over to I Corps.
        Change {
            unit: sumner,
            to: Some(named(&g, "I Corps (Heintzelman)")),
        },
    ];
    let (g2, log) = act(&m, &mut rules, &g, &Action::Organize { changes });
    assert_eq!(g2.holder(bde), Some(to));
    assert_eq!(g2.holder(sumner), Some(named(&g, "I Corps (Heintzelman)")));
    assert_eq!(g2.held_count(&m, named(&g, "I Corps (Heintzelman)")), 7);
    assert_eq!(log.len(), 2, "{log:?}");
    // Pieces in another box are not part of a reorganisation.
    let g3 = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Baltimore"),
        },
    )
    .0;
    let mv = path(
        &m,
        &g3,
        &mut rules,
        named(&g, "III Corps"),
        "Harper's Ferry",
    );
    let g3 = act(&m, &mut rules, &g3, &mv).0;
    let why = refused(
        &m,
        &mut rules,
        &g3,
        &Action::Organize {
            changes: vec![Change {
                unit: bde,
                to: Some(named(&g, "III Corps")),
            }],
        },
    );
    assert!(why.contains("one box (§10)"), "{why}");
}

#[test]
fn a_formation_over_its_capacity_is_refused_naming_it_and_nothing_applies() {
    // §6.11: a corps holds at most 12 brigades and battalions; III Corps holds 11.
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let iii = named(&g, "III Corps");
    let div = named(&g, "2nd Division, I Corps");
    let a = Action::Organize {
        changes: vec![Change {
            unit: div,
            to: Some(iii),
        }],
    };
    let why = refused(&m, &mut rules, &g, &a);
    assert!(
        why.contains("14 combatant pieces") && why.contains("capacity of a Corps is 12"),
        "{why}"
    );
    assert_eq!(g.holder(div), Some(named(&g, "I Corps (Heintzelman)")));
    // One brigade more fits (12), a second does not (13).
    let bdes = members_of_type(&m, &g, named(&g, "1st Division, II Corps"), "Bde");
    let one = Action::Organize {
        changes: vec![Change {
            unit: bdes[0],
            to: Some(iii),
        }],
    };
    let g = act(&m, &mut rules, &g, &one).0;
    assert_eq!(g.held_count(&m, iii), 12);
    let two = Action::Organize {
        changes: vec![Change {
            unit: bdes[1],
            to: Some(iii),
        }],
    };
    let why = refused(&m, &mut rules, &g, &two);
    assert!(why.contains("13 combatant pieces"), "{why}");
}

#[test]
fn what_a_formation_may_hold_is_the_modules_and_the_composition_hook_names_its_section() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    // A division cannot hold a corps (units.xml: Div holds Bde Art Gen).
    let why = refused(
        &m,
        &mut rules,
        &g,
        &Action::Organize {
            changes: vec![Change {
                unit: named(&g, "III Corps"),
                to: Some(named(&g, "1st Division, I Corps")),
            }],
        },
    );
    assert!(why.contains("a Div cannot hold a Corps"), "{why}");
    // §6.22: one artillery battalion per division; 2nd Division, II Corps has one.
    let art = members_of_type(&m, &g, named(&g, "1st Division, I Corps"), "Art")[0];
    let why = refused(
        &m,
        &mut rules,
        &g,
        &Action::Organize {
            changes: vec![Change {
                unit: art,
                to: Some(named(&g, "2nd Division, II Corps")),
            }],
        },
    );
    assert!(why.contains("§6.22"), "{why}");
    // §6.23: a division keeps at least two combat formations; the whole organisation
    // is judged at its end, so taking two out and one back in is fine.
    let from = named(&g, "1st Division, I Corps");
    let bdes = members_of_type(&m, &g, from, "Bde");
    let other = named(&g, "2nd Division, I Corps");
    let out = |u| Change {
        unit: u,
        to: Some(other),
    };
    let why = refused(
        &m,
        &mut rules,
        &g,
        &Action::Organize {
            changes: vec![out(bdes[0]), out(art)],
        },
    );
    assert!(why.contains("§6.23"), "{why}");
    let back = members_of_type(&m, &g, other, "Bde")[0];
    let ok = Action::Organize {
        changes: vec![
            out(bdes[0]),
            out(art),
            Change {
                unit: back,
                to: Some(from),
            },
        ],
    };
    assert!(apply(&m, &mut rules, &g, &ok).is_ok());
}

// ---- Scenario errors (located) ----

fn scenario_error(m: &Module, body: &str) -> String {
    let xml = format!(
        "<scenario id=\"t\" name=\"t\" start=\"05/1861\"><side id=\"union\">{body}</side></scenario>"
    );
    match load_scenario_str(m, "bad.xml", &xml) {
        Ok(_) => panic!("accepted: {body}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_member_placed_outside_its_formations_box_or_over_capacity_is_a_located_error() {
    let (m, _) = load();
    let why = scenario_error(
        &m,
        "<place box=\"Baltimore\" units=\"1 Corps\" id=\"i\"/>\n<place box=\"Grafton\" units=\"2 Bde\" in=\"i\"/>",
    );
    assert!(
        why.contains("bad.xml:2:")
            && why.contains("placed in 'Grafton' but their formation 'i' is in 'Baltimore'")
            && why.contains("place a formation's members in its box"),
        "{why}"
    );
    let why = scenario_error(
        &m,
        "<place box=\"Baltimore\" units=\"1 Corps\" id=\"i\"/>\n<place box=\"Baltimore\" units=\"13 Bde\" in=\"i\"/>",
    );
    assert!(
        why.contains("bad.xml:2:") && why.contains("13 combatant pieces, at most 12"),
        "{why}"
    );
    let why = scenario_error(
        &m,
        "<place box=\"Baltimore\" units=\"1 Corps\" id=\"i\"/><place box=\"Baltimore\" units=\"2 Bde\" in=\"ii\"/>",
    );
    assert!(why.contains("no formation placed with id 'ii'"), "{why}");
    let why = scenario_error(
        &m,
        "<place box=\"Baltimore\" units=\"2 Bde\" attributes=\"sq=4\"/>",
    );
    assert!(
        why.contains("unknown attribute 'sq'") && why.contains("sp"),
        "{why}"
    );
    let why = scenario_error(
        &m,
        "<place box=\"Baltimore\" units=\"2 Corps\" name=\"I Corps\"/>",
    );
    assert!(why.contains("places one piece, not 2"), "{why}");
    let why = scenario_error(&m, "<marker box=\"Baltimore\" id=\"work\" count=\"2\"/>");
    assert!(
        why.contains("unknown marker 'work'") && why.contains("works"),
        "{why}"
    );
}

// ---- Saves, hidden information ----

#[test]
fn a_game_with_formations_saves_and_replays_exactly() {
    let (m, mut rules) = load();
    let g0 = begin(&m, &mut rules);
    let mut actions = vec![Action::Select {
        at: at(&m, "Baltimore"),
    }];
    let g = act(&m, &mut rules, &g0, &actions[0]).0;
    actions.push(path(
        &m,
        &g,
        &mut rules,
        named(&g, "Army of the Potomac"),
        "Grafton",
    ));
    let g = act(&m, &mut rules, &g, &actions[1]).0;
    actions.push(Action::Drop {
        unit: named(&g, "2nd Division, I Corps"),
        at: at(&m, "Harper's Ferry"),
    });
    actions.push(Action::Release);
    actions.push(Action::Organize {
        changes: vec![Change {
            unit: named(&g, "1st Division, II Corps"),
            to: None,
        }],
    });
    let mut g = g;
    for a in &actions[2..] {
        g = act(&m, &mut rules, &g, a).0;
    }
    let save = Save::new(
        &m,
        SavedScenario {
            id: "army".into(),
            xml: None,
        },
        Vec::new(),
        7,
        actions,
        g.clone(),
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    save.write(&file).unwrap();
    let back = Save::read(&file).unwrap();
    assert_eq!(
        back.snapshot, g,
        "names, holders and garrisons survive the file"
    );
    let (replayed, _) = back
        .replay(&m, &mut rules)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replayed, g);
}

#[test]
fn a_seat_that_does_not_see_a_formation_does_not_see_its_members() {
    // The fixture's `sees` rule shows another side's armies and corps only by
    // presence; their brigades, which the seat's `near` would show fully, follow them.
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Baltimore"),
        },
    )
    .0;
    let mv = path(
        &m,
        &g,
        &mut rules,
        named(&g, "Army of the Potomac"),
        "Harper's Ferry",
    );
    let g = act(&m, &mut rules, &g, &mv).0;
    let seat = m.find_seat("confederate").unwrap();
    let (view, errors) = seat_view(&m, &mut rules, &g, seat);
    assert!(errors.is_empty(), "{errors:?}");
    let ferry = view
        .boxes
        .iter()
        .find(|b| b.name == "Harper's Ferry")
        .unwrap();
    assert!(
        ferry
            .pieces
            .iter()
            .all(|p| p.kind.is_none() && p.name.is_none()),
        "{:?}",
        ferry.pieces
    );
    let knows = Knowledge::new(&m, &mut rules, &g, seat).0;
    let sample = knows.sample(&m, 1);
    assert!(
        sample
            .names
            .iter()
            .all(|(u, _)| sample.unit(*u).side != g.unit(named(&g, "McDowell")).side)
    );
    // The Union's own seat sees its army, named, with its members.
    let union = m.find_seat("union").unwrap();
    let (view, _) = seat_view(&m, &mut rules, &g, union);
    let ferry = view
        .boxes
        .iter()
        .find(|b| b.name == "Harper's Ferry")
        .unwrap();
    let army = ferry
        .pieces
        .iter()
        .find(|p| p.name.as_deref() == Some("Army of the Potomac"))
        .expect("the army, named");
    assert_eq!(army.members.len(), 3, "McDowell and two corps");
}

#[test]
fn the_rules_read_holders_and_names_and_set_names() {
    // The fixture's `turn_started` names each unnamed division after its corps.
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let corps = named(&g, "Beauregard's Corps");
    let div = named(&g, "Division of Beauregard's Corps (2 in all)");
    assert_eq!(g.holder(div), Some(corps));
    let said = muster_core::game::describe::unit(&m, &g, div);
    assert!(
        said.starts_with("Division of Beauregard's Corps (2 in all) (Division #"),
        "{said}"
    );
}

#[test]
fn a_commander_organises_only_the_formations_he_commands() {
    // Seed 001 §2/§7: commanders move (and here organise) only their formations. The
    // fixture `formations-seats` gives McDowell the army, another seat III Corps.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formations-seats");
    let m = load_module(dir).unwrap_or_else(|e| panic!("{e}"));
    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let g = begin(&m, &mut rules);
    let mcdowell = m.find_seat("mcdowell").unwrap();
    let other = m.find_seat("heintzelman").unwrap();
    let bde = members_of_type(&m, &g, named(&g, "1st Division, II Corps"), "Bde")[0];
    let into_iii = Action::Organize {
        changes: vec![Change {
            unit: bde,
            to: Some(named(&g, "III Corps")),
        }],
    };
    let why = muster_core::game::apply_by(&m, &mut rules, &g, mcdowell, &into_iii)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(why.contains("McDowell does not command III Corps"), "{why}");
    let why = muster_core::game::apply_by(&m, &mut rules, &g, other, &into_iii)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(why.contains("does not command Infantry Brigade"), "{why}");
    let within = Action::Organize {
        changes: vec![Change {
            unit: bde,
            to: Some(named(&g, "2nd Division, I Corps")),
        }],
    };
    assert!(muster_core::game::apply_by(&m, &mut rules, &g, mcdowell, &within).is_ok());
    // A move of another's formation is refused naming it too (the app shows this
    // reason on a click on a formation it does not offer to move).
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Baltimore"),
        },
    )
    .0;
    let iii = path(&m, &g, &mut rules, named(&g, "III Corps"), "Harper's Ferry");
    let why = muster_core::game::apply_by(&m, &mut rules, &g, mcdowell, &iii)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(why.contains("McDowell does not command III Corps"), "{why}");
    assert!(muster_core::game::apply_by(&m, &mut rules, &g, other, &iii).is_ok());
}

// ---- Listed organisation actions (issue 47, item 5: computer players see them) ----

#[test]
fn a_march_lists_its_garrisons_on_the_way_and_detachments_before_it_moves() {
    // §6.23: a member may be left as a garrison in a box its formation passed through;
    // §10: a member may leave its formation. The engine lists these (not every way to
    // split a box) so that computer players, which choose among legal actions, can.
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let organisation = |l: &[Action]| -> Vec<Action> {
        l.iter()
            .filter(|a| matches!(a, Action::Organize { .. } | Action::Drop { .. }))
            .cloned()
            .collect()
    };
    assert!(
        organisation(&legal_actions(&m, &mut rules, &g).unwrap()).is_empty(),
        "no march under way"
    );
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Baltimore"),
        },
    )
    .0;
    let legal = legal_actions(&m, &mut rules, &g).unwrap();
    let detach = organisation(&legal);
    let one = named(&g, "I Corps (Heintzelman)");
    let leave = Action::Organize {
        changes: vec![Change {
            unit: one,
            to: None,
        }],
    };
    assert!(detach.contains(&leave), "{detach:?}");
    // Every one listed applies; no general alone, no drop before moving.
    for a in &detach {
        assert!(matches!(a, Action::Organize { .. }), "{a:?}");
        apply(&m, &mut rules, &g, a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
    }
    assert!(
        !detach
            .iter()
            .any(|a| matches!(a, Action::Organize { changes }
        if m.units.get(g.unit(changes[0].unit).kind).id == "Gen"))
    );
    assert_eq!(
        legal.last(),
        Some(&Action::Release),
        "the march's last word stays last"
    );
    let mv = path(
        &m,
        &g,
        &mut rules,
        named(&g, "Army of the Potomac"),
        "Grafton",
    );
    let g = act(&m, &mut rules, &g, &mv).0;
    let drops = organisation(&legal_actions(&m, &mut rules, &g).unwrap());
    let ferry = at(&m, "Harper's Ferry");
    let div = named(&g, "2nd Division, I Corps");
    assert!(
        drops.contains(&Action::Drop {
            unit: div,
            at: ferry
        }),
        "{drops:?}"
    );
    assert!(drops.contains(&Action::Drop {
        unit: one,
        at: at(&m, "Baltimore")
    }));
    assert!(
        !drops
            .iter()
            .any(|a| matches!(a, Action::Drop { at, .. } if *at == at_grafton(&m))),
        "not where the army stands"
    );
    for a in &drops {
        apply(&m, &mut rules, &g, a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
    }
    // A garrison left is not listed again.
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Drop {
            unit: div,
            at: ferry,
        },
    )
    .0;
    let drops = organisation(&legal_actions(&m, &mut rules, &g).unwrap());
    assert!(
        !drops
            .iter()
            .any(|a| matches!(a, Action::Drop { unit, .. } if *unit == div)),
        "{drops:?}"
    );
}

fn at_grafton(m: &Module) -> BoxId {
    at(m, "Grafton")
}

#[test]
fn a_commanders_list_holds_only_his_formations_garrisons() {
    // Seed 001 §2/§7 with the fixture `formations-seats`: McDowell's list names the
    // army's members, the other Union seat's none of them (and vice versa for III Corps).
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formations-seats");
    let m = load_module(dir).unwrap_or_else(|e| panic!("{e}"));
    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let g = begin(&m, &mut rules);
    let g = act(
        &m,
        &mut rules,
        &g,
        &Action::Select {
            at: at(&m, "Baltimore"),
        },
    )
    .0;
    let army = named(&g, "Army of the Potomac");
    let iii = named(&g, "III Corps");
    let mcdowell = m.find_seat("mcdowell").unwrap();
    let other = m.find_seat("heintzelman").unwrap();
    let named_in = |l: Vec<Action>| -> Vec<UnitId> {
        l.into_iter()
            .filter_map(|a| match a {
                Action::Organize { changes } => Some(changes[0].unit),
                Action::Drop { unit, .. } => Some(unit),
                _ => None,
            })
            .collect()
    };
    let his = named_in(muster_core::game::legal_actions_for(&m, &mut rules, &g, mcdowell).unwrap());
    assert!(!his.is_empty());
    assert!(his.iter().all(|&u| g.holds_deep(army, u)), "{his:?}");
    let theirs = named_in(muster_core::game::legal_actions_for(&m, &mut rules, &g, other).unwrap());
    assert!(!theirs.is_empty());
    assert!(theirs.iter().all(|&u| g.holds_deep(iii, u)), "{theirs:?}");
}
