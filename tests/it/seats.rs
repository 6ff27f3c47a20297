//! Seats (issue 43): who decides and who sees. AHD with no `<seat>` has one seat per side
//! and plays as before; `mods/examples/fog-of-war` hides enemy pieces far from one's
//! own; `mods/examples/sealed-orders` has both players choose in secret at once.

use std::path::{Path, PathBuf};
use std::process::Command;

use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{
    Action, Dice, GameState, Place, SeatView, apply, apply_by, awaited, legal_actions,
    legal_actions_for, seat_view, start,
};
use muster_core::ids::{BoxId, SeatId, SideId};
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::{HouseRule, RandomGame, ahd_dir};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(dir: &str) -> (Module, ScriptRules) {
    let m = load_module(root().join(dir)).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

fn begin(m: &Module, rules: &mut ScriptRules, scenario: &str, seed: u64) -> GameState {
    let s = m.scenario(scenario).expect("scenario");
    start(m, rules, s, Vec::new(), Dice::seeded(seed))
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

fn seat(m: &Module, id: &str) -> SeatId {
    m.find_seat(id).unwrap_or_else(|| panic!("no seat {id}"))
}

// ---- Default seats: AHD as it was ----

#[test]
fn without_seats_a_module_has_one_seat_per_side_deciding_as_before() {
    let (m, mut rules) = load("mods/ahd");
    assert_eq!(m.seats.len(), m.sides.len());
    for (i, s) in m.seats.iter().enumerate() {
        assert_eq!(s.id, m.sides[i].id);
        assert_eq!(s.side, Some(SideId(i as u8)));
        assert!(s.sees_all());
    }
    let g = begin(&m, &mut rules, "1861", 1);
    let union = seat(&m, "union");
    let confederate = seat(&m, "confederate");
    // AHD 3.0: the Union moves first.
    assert_eq!(awaited(&m, &mut rules, &g).unwrap(), vec![union]);
    let all = legal_actions(&m, &mut rules, &g).unwrap();
    assert!(!all.is_empty());
    assert_eq!(legal_actions_for(&m, &mut rules, &g, union).unwrap(), all);
    assert!(
        legal_actions_for(&m, &mut rules, &g, confederate)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_seat_acting_out_of_turn_is_told_whom_the_game_waits_for() {
    let (m, mut rules) = load("mods/ahd");
    let g = begin(&m, &mut rules, "1861", 1);
    let action = legal_actions(&m, &mut rules, &g).unwrap()[0].clone();
    let refused = apply_by(&m, &mut rules, &g, seat(&m, "confederate"), &action).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "not allowed: it is not Confederacy's decision: the game waits for Union"
    );
    // The same action by the seat on move is the engine's own apply.
    let by_seat = apply_by(&m, &mut rules, &g, seat(&m, "union"), &action).unwrap();
    let plain = apply(&m, &mut rules, &g, &action).unwrap();
    assert_eq!(by_seat.0, plain.0);
    assert_eq!(by_seat.1, plain.1);
}

#[test]
fn an_open_module_shows_every_seat_everything() {
    let (m, mut rules) = load("mods/ahd");
    let g = begin(&m, &mut rules, "1861", 1);
    let (view, errors) = seat_view(&m, &mut rules, &g, seat(&m, "union"));
    assert!(errors.is_empty());
    let on_board = g
        .units
        .iter()
        .filter(|u| matches!(u.place, Place::Board(_)))
        .count();
    let listed: usize = view.boxes.iter().map(|b| b.pieces.len()).sum();
    assert_eq!(listed, on_board);
    assert!(view.boxes.iter().all(|b| b.unseen == 0));
    assert!(
        view.boxes
            .iter()
            .flat_map(|b| &b.pieces)
            .all(|p| p.kind.is_some())
    );
    assert!(
        view.vars.is_some(),
        "with nothing hidden the rules' counters are shown"
    );
}

// ---- Fog of war: hidden information ----

/// The boxes within one line of a box holding `side`'s pieces.
fn near(m: &Module, g: &GameState, side: SideId) -> Vec<bool> {
    let mut near = vec![false; m.board.boxes.len()];
    for u in &g.units {
        if let (true, Place::Board(at)) = (u.side == side, u.place) {
            near[at.index()] = true;
            for &(n, _) in m.board.neighbours(at) {
                near[n.index()] = true;
            }
        }
    }
    near
}

/// Checks `view` against the fog's rule for a seat of `side`: every enemy piece in a
/// box near its own is seen fully, every other enemy piece only counted.
fn check_fog(m: &Module, g: &GameState, side: SideId, view: &SeatView) -> (usize, usize) {
    let near = near(m, g, side);
    let enemy = &m.sides[1 - side.index()].id;
    let (mut seen, mut counted) = (0, 0);
    for (i, b) in view.boxes.iter().enumerate() {
        let at = BoxId(i as u16);
        let enemies = g.units_at(at).filter(|&u| g.unit(u).side != side).count();
        let listed: Vec<_> = b
            .pieces
            .iter()
            .filter(|p| p.side.as_deref() == Some(enemy.as_str()))
            .collect();
        if near[i] {
            assert_eq!(listed.len(), enemies, "{}: enemies near are seen", b.name);
            assert!(listed.iter().all(|p| p.kind.is_some()));
            assert_eq!(b.unseen, 0);
            seen += enemies;
        } else {
            assert!(listed.is_empty(), "{}: far enemies are not listed", b.name);
            assert_eq!(
                b.unseen as usize, enemies,
                "{}: far enemies are counted",
                b.name
            );
            counted += enemies;
        }
    }
    (seen, counted)
}

#[test]
fn fog_of_war_shows_enemy_pieces_near_ones_own_and_counts_the_rest() {
    let (m, mut rules) = load("mods/examples/fog-of-war");
    let g = begin(&m, &mut rules, "1861", 1);
    for side in [SideId(0), SideId(1)] {
        let id = m.sides[side.index()].id.clone();
        let (view, errors) = seat_view(&m, &mut rules, &g, seat(&m, &id));
        assert!(errors.is_empty(), "{errors:?}");
        let (seen, counted) = check_fog(&m, &g, side, &view);
        // The 1861 set-up has enemies both near and far for each side, so both
        // branches are tested.
        assert!(
            seen > 0 && counted > 0,
            "{id}: seen {seen}, counted {counted}"
        );
        // Every one of the seat's own pieces is listed in full.
        let own_on_board = g
            .units
            .iter()
            .filter(|u| u.side == side && matches!(u.place, Place::Board(_)))
            .count();
        let own_listed = view
            .boxes
            .iter()
            .flat_map(|b| &b.pieces)
            .filter(|p| p.side.as_deref() == Some(id.as_str()) && p.kind.is_some())
            .count();
        assert_eq!(own_listed, own_on_board);
        assert!(view.vars.is_none(), "the rules' counters may hold secrets");
    }
}

/// No unit type of a piece the seat may not see appears anywhere in the view's JSON:
/// each far box's JSON holds no `type` at all.
#[test]
fn fog_of_war_view_json_names_no_hidden_type() {
    let (m, mut rules) = load("mods/examples/fog-of-war");
    let g = begin(&m, &mut rules, "1861", 1);
    let union = SideId(0);
    let (view, _) = seat_view(&m, &mut rules, &g, seat(&m, "union"));
    let json = serde_json::to_value(&view).unwrap();
    let near = near(&m, &g, union);
    let mut far_with_enemies = 0;
    for (i, b) in json["boxes"].as_array().unwrap().iter().enumerate() {
        let enemies = g
            .units_at(BoxId(i as u16))
            .filter(|&u| g.unit(u).side != union)
            .count();
        if near[i] || enemies == 0 {
            continue;
        }
        far_with_enemies += 1;
        let text = b.to_string();
        assert!(!text.contains("\"type\""), "{text}");
        assert!(!text.contains("\"number\""), "{text}");
        assert_eq!(b["unseen"].as_u64(), Some(enemies as u64));
    }
    assert!(far_with_enemies > 0);
}

#[test]
fn fog_of_war_battle_reveals_both_sides() {
    let (m, mut rules) = load("mods/examples/fog-of-war");
    // Play random games until a battle is under way, then both seats see every piece
    // in its box fully (the mod's `sees`: "a battle reveals both sides").
    let mut checked = 0;
    for seed in 1..40 {
        let states: Vec<GameState> = RandomGame::new(&m, &mut rules, "1861", seed)
            .take(400)
            .collect();
        let Some((g, at)) = states.iter().find_map(|g| {
            let battle = g.combat.as_ref().and_then(|c| c.battle.as_ref())?;
            Some((g, battle.at))
        }) else {
            continue;
        };
        for id in ["union", "confederate"] {
            let (view, errors) = seat_view(&m, &mut rules, g, seat(&m, id));
            assert!(errors.is_empty());
            let b = &view.boxes[at.index()];
            assert_eq!(b.unseen, 0);
            assert_eq!(b.pieces.len(), g.units_at(at).count());
            assert!(b.pieces.iter().all(|p| p.kind.is_some()));
        }
        checked += 1;
        if checked >= 3 {
            break;
        }
    }
    assert!(checked >= 3, "only {checked} battles reached");
}

/// A `sees` handler that fails hides the piece (fails closed) and its error, with the
/// file and line, is reported beside the view, never in it.
#[test]
fn a_failing_sees_rule_hides_and_is_reported_with_its_line() {
    // AHD's init.luau with one line more: the handler fails on its line 2.
    let (_dir, module, mut rules) = HouseRule::loaded(
        "\nhooks.on(\"sees\", function(game, seat, unit, seen) error(\"no sight today\") end)\n",
    );
    let g = begin(&module, &mut rules, "1861", 1);
    let (view, errors) = seat_view(&module, &mut rules, &g, seat(&module, "union"));
    assert!(!errors.is_empty());
    let line = std::fs::read_to_string(ahd_dir().join("rules/init.luau"))
        .unwrap()
        .lines()
        .count()
        + 2;
    assert!(
        errors[0]
            .to_string()
            .contains(&format!("rules/init.luau:{line}")),
        "{}",
        errors[0]
    );
    // Every piece the rule was asked about is hidden: not listed, not counted.
    assert!(
        view.boxes
            .iter()
            .all(|b| b.pieces.is_empty() && b.unseen == 0)
    );
    let json = serde_json::to_string(&view).unwrap();
    assert!(!json.contains("no sight today"));
    // Every seat's data is open here, but a `sees` rule exists: the rules' counters,
    // which could hold what it hides, are left out too.
    assert!(view.vars.is_none());
}

// ---- Sealed orders: a sealed simultaneous choice ----

fn sealed() -> (Module, ScriptRules, GameState) {
    let (m, mut rules) = load("mods/examples/sealed-orders");
    let g = begin(&m, &mut rules, "1861", 3);
    (m, rules, g)
}

/// Whether `side` has units in `at` and every one is entrenched (AHD 4.3).
fn dug_in(m: &Module, g: &GameState, side: SideId, at: BoxId) -> bool {
    let mine: Vec<_> = g.units_at(at).filter(|&u| g.unit(u).side == side).collect();
    !mine.is_empty() && mine.iter().all(|&u| g.unit(u).flagged(m, "entrenched"))
}

#[test]
fn sealed_orders_wait_for_both_seats_and_keep_each_choice_unseen() {
    let (m, mut rules, g) = sealed();
    let (union, confederate) = (seat(&m, "union"), seat(&m, "confederate"));
    // At the game's start both players pick at once.
    assert_eq!(
        awaited(&m, &mut rules, &g).unwrap(),
        vec![union, confederate]
    );
    let u_offers = legal_actions_for(&m, &mut rules, &g, union).unwrap();
    let c_offers = legal_actions_for(&m, &mut rules, &g, confederate).unwrap();
    assert!(!u_offers.is_empty() && !c_offers.is_empty());
    assert!(
        u_offers
            .iter()
            .all(|a| matches!(a, Action::Take { seat: Some(s), .. } if *s == union))
    );
    // Nothing else may happen meanwhile: no march, no end of the step.
    let before_any = legal_actions(&m, &mut rules, &g).unwrap();
    assert!(before_any.iter().all(|a| matches!(a, Action::Take { .. })));

    let Action::Take {
        at: Some(u_box), ..
    } = u_offers[0]
    else {
        panic!()
    };
    let (g1, log) = apply_by(&m, &mut rules, &g, union, &u_offers[0]).unwrap();
    assert_eq!(log, vec!["Union has chosen".to_string()]);
    // Chosen, not carried out; the Confederacy's choices and view are as before.
    assert!(!dug_in(&m, &g, SideId(0), u_box));
    assert_eq!(
        g1.units, g.units,
        "nothing is carried out before both have chosen"
    );
    assert_eq!(
        legal_actions_for(&m, &mut rules, &g1, confederate).unwrap(),
        c_offers
    );
    assert!(
        legal_actions_for(&m, &mut rules, &g1, union)
            .unwrap()
            .is_empty()
    );
    let (c_view, _) = seat_view(&m, &mut rules, &g1, confederate);
    assert_eq!(c_view.sealed.len(), 1);
    assert_eq!(c_view.sealed[0].seat, "union");
    assert_eq!(c_view.sealed[0].choice, None, "the Union's pick is unseen");
    let c_json = serde_json::to_string(&c_view).unwrap();
    let u_label = match &u_offers[0] {
        Action::Take { label, .. } => label.clone(),
        _ => unreachable!(),
    };
    assert!(!c_json.contains(&u_label));
    let (u_view, _) = seat_view(&m, &mut rules, &g1, union);
    assert_eq!(u_view.sealed[0].choice.as_deref(), Some(u_label.as_str()));
    // Choosing twice is refused.
    let again = apply_by(&m, &mut rules, &g1, union, &u_offers[0]).unwrap_err();
    assert!(
        again.to_string().contains("the game waits for Confederacy"),
        "{again}"
    );

    // The last pick reveals both, carried out in seat order.
    let Action::Take {
        at: Some(c_box), ..
    } = c_offers[0]
    else {
        panic!()
    };
    let (g2, log) = apply_by(&m, &mut rules, &g1, confederate, &c_offers[0]).unwrap();
    assert_eq!(log[0], "Confederacy has chosen");
    assert!(log[1].starts_with("Union chose: "), "{log:?}");
    assert!(
        log.iter().any(|l| l.starts_with("Confederacy chose: ")),
        "{log:?}"
    );
    assert!(!dug_in(&m, &g1, SideId(1), c_box));
    assert!(
        dug_in(&m, &g2, SideId(0), u_box),
        "the Union's pick is carried out"
    );
    assert!(
        dug_in(&m, &g2, SideId(1), c_box),
        "the Confederacy's pick is carried out"
    );
    assert!(g2.waiting.is_empty() && g2.sealed.is_none());
    // The game goes on: the Union's marches.
    assert_eq!(awaited(&m, &mut rules, &g2).unwrap(), vec![union]);
    assert!(
        legal_actions(&m, &mut rules, &g2)
            .unwrap()
            .iter()
            .any(|a| matches!(a, Action::Select { .. }))
    );
}

#[test]
fn sealed_choices_replay_exactly_from_a_save() {
    let (m, mut rules, g) = sealed();
    let mut state = g.clone();
    let mut actions = Vec::new();
    for id in ["confederate", "union"] {
        let s = seat(&m, id);
        let a = legal_actions_for(&m, &mut rules, &state, s)
            .unwrap()
            .pop()
            .unwrap();
        state = apply_by(&m, &mut rules, &state, s, &a).unwrap().0;
        actions.push(a);
    }
    let save = Save::new(
        &m,
        SavedScenario {
            id: "1861".into(),
            xml: None,
        },
        Vec::new(),
        3,
        actions,
        state.clone(),
    );
    let (replayed, _) = save.replay(&m, &mut rules).unwrap();
    assert_eq!(replayed, state);
    let json = serde_json::to_string(&save).unwrap();
    assert!(json.contains("\"seat\""), "a taken offer records its seat");
}

#[test]
fn a_wait_the_rules_offer_nothing_for_fails_and_changes_nothing() {
    let (_dir, module, mut rules) = HouseRule::loaded(
        "\nhooks.on(\"box_selected\", function(game, box) return { { kind = \"wait_for\", seats = { \"confederate\" } } } end)\n",
    );
    let g = begin(&module, &mut rules, "1861", 1);
    let select = legal_actions(&module, &mut rules, &g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Select { .. }))
        .unwrap();
    let err = apply(&module, &mut rules, &g, &select).unwrap_err();
    assert!(
        err.to_string()
            .contains("the rules wait for Confederacy but offer it nothing to choose"),
        "{err}"
    );
}

// ---- muster view ----

fn muster(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

fn saved_fog_game(dir: &Path) -> PathBuf {
    let (m, mut rules) = load("mods/examples/fog-of-war");
    let g = begin(&m, &mut rules, "1861", 1);
    let save = Save::new(
        &m,
        SavedScenario {
            id: "1861".into(),
            xml: None,
        },
        Vec::new(),
        1,
        Vec::new(),
        g,
    );
    let path = dir.join("fog.json");
    save.write(&path).unwrap();
    path
}

#[test]
fn muster_view_prints_a_seats_view_and_refuses_bad_input_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let save = saved_fog_game(dir.path());
    let save_s = save.to_str().unwrap();
    let fog = ["--module", "mods/examples/fog-of-war"];
    let out = muster(&[&["view", save_s, "--seat", "union", "--json"][..], &fog[..]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let view: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(view["seat"], "union");
    assert!(
        view["boxes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["unseen"].as_u64() > Some(0))
    );

    let text = muster(&[&["view", save_s, "--seat", "union"][..], &fog[..]].concat());
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(text.starts_with("union sees: turn 07/1861"), "{text}");
    assert!(text.contains("unseen piece(s)"), "{text}");

    let unknown = muster(&[&["view", save_s, "--seat", "unoin"][..], &fog[..]].concat());
    assert!(!unknown.status.success());
    let err = String::from_utf8_lossy(&unknown.stderr).to_string();
    assert!(
        err.contains("no seat 'unoin'") && err.contains("union"),
        "{err}"
    );

    // A view given where a save is expected.
    let view_file = dir.path().join("view.json");
    std::fs::write(&view_file, &out.stdout).unwrap();
    let wrong = muster(
        &[
            &["view", view_file.to_str().unwrap(), "--seat", "union"][..],
            &fog[..],
        ]
        .concat(),
    );
    assert!(!wrong.status.success());
    let err = String::from_utf8_lossy(&wrong.stderr).to_string();
    assert!(
        err.contains("is what one seat sees of a game (`muster view`), not a save"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

// ---- Two seats of one side ----

/// A mod in a temporary folder: `module.xml` extending the module in `base` (a folder
/// under the repository), including `includes`, with rules when `rules` is given, and
/// each of `files` written as named.
fn temp_mod(
    base: &str,
    includes: &[&str],
    rules: Option<&str>,
    files: &[(&str, &str)],
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path();
    let base_id = muster_core::load_module(root().join(base))
        .map(|b| b.id)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut xml = format!(
        "<module id=\"temp\" name=\"x\" version=\"0.1.0\" engine=\"0.1\">\n  <extends module=\"{base_id}\" path=\"{}\"/>\n",
        root().join(base).display()
    );
    for i in includes {
        xml.push_str(&format!("  <include file=\"{i}\"/>\n"));
    }
    if let Some(text) = rules {
        std::fs::create_dir_all(m.join("rules")).unwrap();
        std::fs::write(m.join("rules/init.luau"), text).unwrap();
        xml.push_str("  <rules entry=\"rules/init.luau\"/>\n");
    }
    xml.push_str("</module>\n");
    std::fs::write(m.join("module.xml"), xml).unwrap();
    for (name, text) in files {
        std::fs::write(m.join(name), text).unwrap();
    }
    dir
}

/// AHD with the Union played by two commanders: the West (pieces in the states west
/// of the Appalachians) and the East (the rest), each moving only his own pieces.
fn two_commanders() -> (tempfile::TempDir, Module, ScriptRules) {
    let dir = temp_mod(
        "mods/ahd",
        &["seats.xml"],
        Some(
            r#"local WEST = { OH = true, IN = true, IL = true, MO = true, KY = true, TN = true, AR = true, MS = true, LA = true, AL = true }
hooks.on("commands", function(game, seat, unit)
	local box = game:unit_box(unit)
	local west = box ~= nil and WEST[defs.boxes[box].state or ""] == true
	if seat == "union-west" then return west end
	if seat == "union-east" then return not west end
	return true
end)
"#,
        ),
        &[(
            "seats.xml",
            r#"<sides>
  <seat id="union-east" name="Union East" side="union"/>
  <seat id="union-west" name="Union West" side="union"/>
  <seat id="confederate" name="Confederacy" side="confederate"/>
</sides>"#,
        )],
    );
    let module = load_module(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&module, Limits::default()).unwrap();
    (dir, module, rules)
}

fn selects(actions: &[Action]) -> Vec<BoxId> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Select { at } => Some(*at),
            _ => None,
        })
        .collect()
}

#[test]
fn two_seats_of_a_side_share_its_turn_each_commanding_its_own_pieces() {
    let (_dir, m, mut rules) = two_commanders();
    let (east, west) = (seat(&m, "union-east"), seat(&m, "union-west"));
    let g = begin(&m, &mut rules, "1861", 1);
    assert_eq!(awaited(&m, &mut rules, &g).unwrap(), vec![east, west]);
    let all = selects(&legal_actions(&m, &mut rules, &g).unwrap());
    let e = selects(&legal_actions_for(&m, &mut rules, &g, east).unwrap());
    let w = selects(&legal_actions_for(&m, &mut rules, &g, west).unwrap());
    assert!(!e.is_empty() && !w.is_empty());
    assert!(e.iter().all(|b| !w.contains(b)), "no box is both's");
    let mut both: Vec<BoxId> = e.iter().chain(&w).copied().collect();
    both.sort();
    let mut all_sorted = all.clone();
    all_sorted.sort();
    assert_eq!(
        both, all_sorted,
        "between them they command every Union box"
    );
    let western = |b: BoxId| {
        let state = m.board.get(b).state.clone().unwrap_or_default();
        ["OH", "IN", "IL", "MO", "KY", "TN", "AR", "MS", "LA", "AL"].contains(&state.as_str())
    };
    assert!(w.iter().all(|&b| western(b)) && e.iter().all(|&b| !western(b)));

    // The West may not march from an eastern box.
    let refused = apply_by(&m, &mut rules, &g, west, &Action::Select { at: e[0] }).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("Union West may not do that now"),
        "{refused}"
    );
    let (g1, _) = apply_by(&m, &mut rules, &g, east, &Action::Select { at: e[0] }).unwrap();
    // The East's march moves only its pieces; the West has nothing to move in it.
    let moves = legal_actions_for(&m, &mut rules, &g1, east).unwrap();
    assert!(moves.iter().any(|a| matches!(a, Action::Move { .. })));
    assert!(
        legal_actions_for(&m, &mut rules, &g1, west)
            .unwrap()
            .iter()
            .all(|a| !matches!(a, Action::Move { .. }))
    );
}

// ---- Seats in the module's data ----

/// A mod over AHD with `seats` as its `sides.xml`.
fn seats_mod(seats: &str) -> (tempfile::TempDir, Result<Module, muster_core::LoadError>) {
    let dir = temp_mod("mods/ahd", &["seats.xml"], None, &[("seats.xml", seats)]);
    let loaded = load_module(dir.path());
    (dir, loaded)
}

#[test]
fn a_side_without_a_seat_is_a_located_load_error() {
    let (_dir, loaded) =
        seats_mod(r#"<sides><seat id="lincoln" name="Lincoln" side="union"/></sides>"#);
    let err = loaded.unwrap_err().to_string();
    assert!(err.contains("seats.xml:1:"), "{err}");
    assert!(
        err.contains("no seat decides for side 'confederate'"),
        "{err}"
    );
    assert!(err.contains(r#"add <seat id="confederate""#), "{err}");
}

#[test]
fn a_mod_patches_a_seat_by_id() {
    // Over the fog of war: the Union's scouts see two lines out.
    let dir = temp_mod(
        "mods/examples/fog-of-war",
        &["changes.xml"],
        None,
        &[(
            "changes.xml",
            r#"<changes><patch><seat id="union" range="2"/></patch></changes>"#,
        )],
    );
    let module = load_module(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let union = &module.seats[seat(&module, "union").index()];
    assert_eq!(union.range, 2);
    assert_eq!(module.seats[seat(&module, "confederate").index()].range, 1);
}
