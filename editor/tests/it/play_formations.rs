//! Formations in the app (issue 47, item 4; seed 001 §6, §7, §10): a corps is one
//! counter with its name and its number of pieces, opened in the side panel on its
//! members, selected to move as one; members are organised and left as garrisons from
//! the panel, the engine judging; a commander is offered only his formations; a seat
//! that does not see a formation sees neither it nor its members. The fixtures are
//! `tests/fixtures/formations` (one seat a side) and `formations-seats` (two
//! commanders a side), copied.

use crate::common;

use std::path::PathBuf;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable, by};
use muster_core::game::entry::Value;
use muster_core::game::formations::Change;
use muster_core::game::{Action, GameState, Place};
use muster_core::ids::{BoxId, UnitId};
use muster_editor::command::{Mode, UiCommand};
use muster_editor::play::{NewGame, PlayCommand, PlayerKind, handover};
use muster_editor::{Document, EditorApp};

/// Both formation fixtures copied side by side; the folder of `name`.
fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = muster_test_support::root().join("tests/fixtures");
    for f in ["formations", "formations-seats", "formations-umpire"] {
        common::copy_dir(&root.join(f), &tmp.path().join(f));
    }
    let dir = tmp.path().join(name);
    (tmp, dir)
}

/// A game of the `army` scenario on the module in `dir`, every seat as `players` says
/// (one per side), past any hand-over screen.
fn game(dir: &std::path::Path, players: Vec<PlayerKind>) -> Harness<'static, EditorApp> {
    let app = EditorApp::new(Document::open(dir).expect("module opens"));
    let mut h = common::app_harness(app, common::LARGE);
    h.run();
    h.state_mut().apply(UiCommand::SetMode(Mode::Play));
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::Start(NewGame {
            scenario: "army".into(),
            options: Vec::new(),
            end: None,
            players,
            seats: Vec::new(),
            seed: 1,
        })));
    h.run();
    assert!(h.state().play().session().is_some(), "the game starts");
    ready(&mut h);
    h
}

/// Past the hand-over screen, if it is up.
fn ready(h: &mut Harness<'_, EditorApp>) {
    if h.state_mut().play_mut().pass_to().is_some() {
        h.get_by_label(handover::READY).click();
        h.run();
    }
}

fn state(h: &Harness<'_, EditorApp>) -> GameState {
    h.state().play().session().expect("a game").state().clone()
}

fn named(g: &GameState, name: &str) -> UnitId {
    g.names
        .iter()
        .find(|(_, n)| n == name)
        .unwrap_or_else(|| panic!("no piece named {name}"))
        .0
}

fn place(h: &Harness<'_, EditorApp>, name: &str) -> BoxId {
    let session = h.state().play().session().expect("a game");
    session.module().board.find(name).expect("box")
}

fn click_box(h: &mut Harness<'_, EditorApp>, name: &str) {
    let i = common::box_index(h, name);
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::ClickBox(i)));
    h.run();
}

fn play(h: &mut Harness<'_, EditorApp>, c: PlayCommand) {
    h.state_mut().apply(UiCommand::Play(c));
    h.run();
}

/// Selects box `name` on the map and activates it (its pieces may move).
fn activate(h: &mut Harness<'_, EditorApp>, name: &str) {
    click_box(h, name);
    let at = place(h, name);
    play(h, PlayCommand::Act(Action::Select { at }));
    assert!(
        state(h)
            .moving
            .as_ref()
            .and_then(|m| m.active.as_ref())
            .is_some(),
        "{name} activated: {}",
        h.state().play().status()
    );
}

/// Whether some text of the UI tree contains `part`.
fn has(h: &Harness<'_, EditorApp>, part: &str) -> bool {
    h.query_all_by_label_contains(part).next().is_some()
}

/// Clicks the widget whose label starts with `prefix`.
fn click_starting(h: &mut Harness<'_, EditorApp>, prefix: &str) {
    h.query_all_by(|n| {
        [n.label(), n.value()]
            .into_iter()
            .flatten()
            .any(|l| l.starts_with(prefix))
    })
    .next()
    .unwrap_or_else(|| panic!("nothing labelled '{prefix}…': {:?}", texts(h)))
    .click();
    h.run();
}

/// Every text the UI tree holds: each node's label, value and description.
fn texts(h: &Harness<'_, EditorApp>) -> Vec<String> {
    h.query_all(by().include_labels())
        .flat_map(|n| {
            let n = n.accesskit_node();
            [n.label(), n.value(), n.description()]
        })
        .flatten()
        .collect()
}

#[test]
fn a_corps_is_one_named_counter_opened_in_the_panel_and_moved_as_one() {
    let (_tmp, dir) = fixture("formations");
    let mut h = game(
        &dir,
        vec![
            PlayerKind::Human,
            PlayerKind::Computer(muster_ai::Level::Ai),
        ],
    );
    // One counter per formation, with its name and its pieces (§6.21: the army holds
    // McDowell and two corps of a general, two divisions and six stands each).
    h.get_by_label("Army of the Potomac (25 pieces, Union) at Baltimore");
    h.get_by_label("III Corps (11 pieces, Union) at Baltimore");
    let all = texts(&h);
    assert!(
        !all.iter().any(|t| t.contains("Bde (Union) at Baltimore")),
        "no stand drawn on its own: {all:?}"
    );
    h.snapshot("formations_fit");

    // The box selected: the panel lists the two formations, closed.
    click_box(&mut h, "Baltimore");
    let g = state(&h);
    let army = named(&g, "Army of the Potomac");
    assert!(!has(&h, "Heintzelman"), "closed");
    click_starting(&mut h, "Open Army of the Potomac (Army #");
    click_starting(&mut h, "Open I Corps (Heintzelman) (Corps #");
    // Its members, nested, with names and types.
    for member in [
        "McDowell (General",
        "I Corps (Heintzelman) (Corps",
        "II Corps (Sumner) (Corps",
        "1st Division, I Corps (Division",
        "Heintzelman (General",
    ] {
        assert!(has(&h, member), "{member} listed: {:?}", texts(&h));
    }
    // Zoomed in on Baltimore, so the counters' names can be read in the picture.
    let rect = h.get_by_role_and_label(Role::Button, "Baltimore").rect();
    h.hover_at(rect.center());
    h.event(egui::Event::Zoom(2.0));
    h.run();
    h.snapshot("formations_open");

    // Selecting the army and clicking Harper's Ferry moves it with everything it holds.
    let baltimore = place(&h, "Baltimore");
    play(&mut h, PlayCommand::Act(Action::Select { at: baltimore }));
    play(&mut h, PlayCommand::SelectUnit(Some(army)));
    click_box(&mut h, "Harper's Ferry");
    let picks = h.state().play().pick().to_vec();
    if let Some(a) = picks.first() {
        play(&mut h, PlayCommand::Act(a.clone()));
    }
    let g = state(&h);
    let ferry = Place::Board(place(&h, "Harper's Ferry"));
    assert_eq!(g.unit(army).place, ferry, "{}", h.state().play().status());
    assert!(
        g.all_members(army)
            .iter()
            .all(|&u| g.unit(u).place == ferry),
        "every member went with it"
    );
    h.get_by_label("Army of the Potomac (25 pieces, Union) at Harper's Ferry");
}

#[test]
fn members_are_organised_and_left_as_garrisons_from_the_panel() {
    let (_tmp, dir) = fixture("formations");
    let mut h = game(
        &dir,
        vec![
            PlayerKind::Human,
            PlayerKind::Computer(muster_ai::Level::Ai),
        ],
    );
    activate(&mut h, "Baltimore");
    let g = state(&h);
    let army = named(&g, "Army of the Potomac");
    let div = named(&g, "2nd Division, I Corps");
    let one = named(&g, "I Corps (Heintzelman)");
    // Rail the army to Grafton through Harper's Ferry (seed 001 §6.23's example).
    let grafton = place(&h, "Grafton");
    let mv = {
        let session = h.state_mut().play_mut().session_mut().expect("a game");
        session
            .legal()
            .unwrap()
            .iter()
            .find(|a| matches!(a, Action::Move { unit, path } if *unit == army && path.to() == grafton))
            .cloned()
            .expect("a move to Grafton")
    };
    play(&mut h, PlayCommand::Act(mv));
    // The army chosen, a click on its box shows it (it has no move left to make there).
    play(&mut h, PlayCommand::SelectUnit(Some(army)));
    click_box(&mut h, "Grafton");
    click_starting(&mut h, "Open Army of the Potomac (Army #");
    click_starting(&mut h, "Open I Corps (Heintzelman) (Corps #");
    // The engine lists the garrison on the way: its button leaves the division there.
    let drop = Action::Drop {
        unit: div,
        at: place(&h, "Harper's Ferry"),
    };
    assert!(
        h.state_mut()
            .play_mut()
            .session_mut()
            .unwrap()
            .legal()
            .unwrap()
            .contains(&drop)
    );
    click_starting(
        &mut h,
        "Leave in Harper's Ferry: 2nd Division, I Corps (Division #",
    );
    let g = state(&h);
    assert!(g.is_garrison(div), "{}", h.state().play().status());
    assert_eq!(g.holder(div), Some(one));
    h.get_by_label("2nd Division, I Corps (4 pieces, Union) at Harper's Ferry");
    // A reorganisation the rules refuse (§6.22: one artillery battalion a division)
    // changes nothing and says why as `why_not` does: this fixture hides information,
    // so it tells no reason.
    let art = g
        .members(named(&g, "1st Division, I Corps"))
        .find(|&u| {
            let session = h.state().play().session().unwrap();
            session.module().units.get(g.unit(u).kind).id == "Art"
        })
        .expect("an artillery battalion");
    let before = state(&h);
    play(
        &mut h,
        PlayCommand::Organise(Action::Organize {
            changes: vec![Change {
                unit: art,
                to: Some(named(&g, "2nd Division, II Corps")),
            }],
        }),
    );
    assert_eq!(state(&h), before, "nothing applied");
    let status = h.state().play().status().to_string();
    assert!(
        status.contains(muster_core::game::why::HIDDEN_REASON),
        "{status}"
    );
    // One the rules accept: a brigade moved from II Corps' first division to I Corps'
    // first, from the panel's menu.
    let bde = g
        .members(named(&g, "1st Division, II Corps"))
        .find(|&u| {
            let session = h.state().play().session().unwrap();
            session.module().units.get(g.unit(u).kind).id == "Bde"
        })
        .expect("a brigade");
    let to = named(&g, "1st Division, I Corps");
    play(
        &mut h,
        PlayCommand::Organise(Action::Organize {
            changes: vec![Change {
                unit: bde,
                to: Some(to),
            }],
        }),
    );
    assert_eq!(
        state(&h).holder(bde),
        Some(to),
        "{}",
        h.state().play().status()
    );
}

#[test]
fn a_seat_that_does_not_see_a_formation_sees_neither_it_nor_its_members() {
    // The fixture's `sees` rule (seed 001 §12): another side's armies and corps are seen
    // by presence only; their members no better.
    let (_tmp, dir) = fixture("formations");
    let mut h = game(&dir, vec![PlayerKind::Human, PlayerKind::Human]);
    activate(&mut h, "Baltimore");
    let g = state(&h);
    let army = named(&g, "Army of the Potomac");
    let ferry = place(&h, "Harper's Ferry");
    let mv = {
        let session = h.state_mut().play_mut().session_mut().expect("a game");
        session
            .legal()
            .unwrap()
            .iter()
            .find(
                |a| matches!(a, Action::Move { unit, path } if *unit == army && path.to() == ferry),
            )
            .cloned()
            .expect("a move to Harper's Ferry")
    };
    play(&mut h, PlayCommand::Act(mv));
    play(&mut h, PlayCommand::Act(Action::Release));
    play(&mut h, PlayCommand::Act(Action::EndStep));
    // The Confederacy's turn, behind the hand-over screen.
    ready(&mut h);
    let session = h.state().play().session().expect("a game");
    let confederate = session.module().find_seat("confederate").unwrap();
    assert_eq!(session.viewer().map(|v| v.seat), Some(confederate));
    click_box(&mut h, "Harper's Ferry");
    let all = texts(&h);
    for hidden in [
        "Army of the Potomac",
        "McDowell",
        "Heintzelman",
        "I Corps",
        "Willcox",
        "25 pieces",
        "Union: ",
    ] {
        assert!(
            !all.iter().any(|t| t.contains(hidden)),
            "'{hidden}' shown to the Confederacy: {all:?}"
        );
    }
    // One piece of unknown side on the map and in the panel: the army, its 25 members
    // folded into it unseen.
    h.get_by_label("1 ? (?) at Harper's Ferry");
    assert!(
        all.iter().any(|t| t == "1 unseen piece of unknown side"),
        "{all:?}"
    );
    let rect = h
        .get_by_role_and_label(Role::Button, "Harper's Ferry")
        .rect();
    h.hover_at(rect.center());
    h.event(egui::Event::Zoom(2.0));
    h.run();
    h.snapshot("formations_hidden");
}

#[test]
fn a_commander_is_offered_only_his_formations() {
    // Seed 001 §2/§7 (`formations-seats`): the Union seat `union` commands what is not
    // the Army of the Potomac (III Corps), McDowell the army.
    let (_tmp, dir) = fixture("formations-seats");
    let mut h = game(&dir, vec![PlayerKind::Human, PlayerKind::Human]);
    let session = h.state().play().session().expect("a game");
    let module = session.module().clone();
    let seat = session.viewer().expect("a seat at the screen").seat;
    assert_eq!(module.seat(seat).id, "union");
    activate(&mut h, "Baltimore");
    let g = state(&h);
    let (army, iii) = (named(&g, "Army of the Potomac"), named(&g, "III Corps"));
    let legal = h
        .state_mut()
        .play_mut()
        .session_mut()
        .unwrap()
        .legal()
        .unwrap()
        .to_vec();
    let movers: Vec<UnitId> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Move { unit, .. } => Some(*unit),
            _ => None,
        })
        .collect();
    assert!(movers.contains(&iii), "{legal:?}");
    assert!(!movers.contains(&army), "the army is McDowell's: {legal:?}");
    assert!(
        !legal
            .iter()
            .any(|a| matches!(a, Action::Organize { changes }
            if g.holds_deep(army, changes[0].unit))),
        "none of the army's organisation: {legal:?}"
    );
    // The panel: III Corps can be chosen to move, the army not.
    assert!(has(&h, "III Corps (Corps #"));
    let army_row = texts(&h)
        .into_iter()
        .find(|l| l.starts_with("Union: Army of the Potomac"))
        .unwrap_or_else(|| panic!("the army's row: {:?}", texts(&h)));
    assert!(!army_row.contains("moves"), "{army_row}");
    // A click on it says why, in the engine's words (the move the side's list holds,
    // refused for this seat).
    click_starting(&mut h, "Union: Army of the Potomac");
    let status = h.state().play().status().to_string();
    assert!(
        status.contains("Union does not command Army of the Potomac"),
        "{status}"
    );
    // Asking anyway is refused by the engine, naming the commander.
    let bde = g
        .all_members(army)
        .into_iter()
        .find(|&u| module.units.get(g.unit(u).kind).id == "Bde")
        .unwrap();
    play(
        &mut h,
        PlayCommand::Organise(Action::Organize {
            changes: vec![Change {
                unit: bde,
                to: Some(iii),
            }],
        }),
    );
    let status = h.state().play().status().to_string();
    assert!(status.contains("does not command"), "{status}");
    assert_eq!(state(&h).holder(bde), g.holder(bde));
    h.snapshot("formations_commander");
}

#[test]
fn the_umpires_form_lists_a_formations_stands_under_it() {
    // Seed 001 §8 (`formations-umpire`): the army marches on Manassas; in the Combat
    // step the umpire enters the battle's result, stand by stand, each formation's
    // stands under a line naming it.
    let (_tmp, dir) = fixture("formations-umpire");
    let app = EditorApp::new(Document::open(&dir).expect("module opens"));
    let mut h = common::app_harness(app, common::LARGE);
    h.run();
    h.state_mut().apply(UiCommand::SetMode(Mode::Play));
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::Start(NewGame {
            scenario: "army".into(),
            options: Vec::new(),
            end: None,
            players: vec![PlayerKind::Human; 2],
            seats: vec![PlayerKind::Human; 3],
            seed: 1,
        })));
    h.run();
    ready(&mut h);
    activate(&mut h, "Baltimore");
    let g = state(&h);
    let army = named(&g, "Army of the Potomac");
    let manassas = place(&h, "Manassas");
    let mv = {
        let session = h.state_mut().play_mut().session_mut().expect("a game");
        session
            .legal()
            .unwrap()
            .iter()
            .find(|a| matches!(a, Action::Move { unit, path } if *unit == army && path.to() == manassas))
            .cloned()
            .expect("a march on Manassas")
    };
    play(&mut h, PlayCommand::Act(mv));
    play(&mut h, PlayCommand::Act(Action::Release));
    play(&mut h, PlayCommand::Act(Action::EndStep));
    ready(&mut h);
    let offer = h
        .state()
        .play()
        .session()
        .expect("a game")
        .entry_due()
        .cloned()
        .expect("the umpire's entry is due");
    assert!(offer.label.contains("Manassas"), "{}", offer.label);
    let muster_core::game::FieldKind::Pieces(pieces) = &offer.form[0].kind else {
        panic!("{:?}", offer.form[0].kind)
    };
    // Every stand of both sides there: 12 of the army's, 6 of Beauregard's.
    assert_eq!(pieces.len(), 18, "{pieces:?}");
    for line in [
        "in 1st Division, I Corps (Division #",
        "in 2nd Division, II Corps (Division #",
        "in Division of Beauregard's Corps (2 in all) (Division #",
    ] {
        assert!(has(&h, line), "'{line}' heads its stands: {:?}", texts(&h));
    }
    // One line a division, each once: a formation's stands stand together under it.
    let heads: Vec<String> = h
        .query_all(by().include_labels())
        .filter(|n| n.accesskit_node().role() == Role::Label)
        .filter_map(|n| n.accesskit_node().value())
        .filter(|l| l.starts_with("in "))
        .collect();
    let distinct: std::collections::BTreeSet<&String> = heads.iter().collect();
    assert_eq!(heads.len(), 6, "{heads:?}");
    assert_eq!(distinct.len(), 6, "{heads:?}");
    // §8.6: the winner holds the field, so keeps a stand there. The Confederacy holding
    // it with all its stands lost is refused, with the rules' reason beside the form,
    // and nothing changes.
    let (g, confederacy) = {
        let session = h.state().play().session().expect("a game");
        (
            session.state().clone(),
            session.module().find_side("confederate").unwrap(),
        )
    };
    // Filled in as a person would: the form lists the Confederate stands last (their
    // formation's group), a "+" each, then the holder picked and the result entered.
    let theirs = pieces
        .iter()
        .filter(|&&(u, _)| g.unit(u).side == confederacy)
        .count();
    assert_eq!(theirs, 6);
    let pluses = h.query_all_by_label("+").count();
    assert_eq!(pluses, 18, "a + per stand");
    for i in pluses - theirs..pluses {
        h.query_all_by_label("+").nth(i).expect("a +").click();
        h.run();
    }
    // Below the stands: scrolled into view first, as a person would.
    h.get_by_role_and_label(Role::ComboBox, "Holds the field")
        .scroll_to_me();
    h.run();
    h.get_by_role_and_label(Role::ComboBox, "Holds the field")
        .click();
    h.run();
    let n = h.query_all_by_label("Confederacy").count();
    h.query_all_by_label("Confederacy")
        .nth(n - 1)
        .expect("the Confederacy listed")
        .click();
    h.run();
    h.get_by_label(muster_editor::play::entry::ENTER).click();
    h.run();
    assert_eq!(state(&h), g, "nothing applied");
    let refusal = texts(&h)
        .into_iter()
        .find(|t| t.starts_with("Refused: "))
        .unwrap_or_else(|| panic!("no refusal shown: {:?}", texts(&h)));
    assert!(
        refusal.contains("cannot hold the field with every stand lost (seed 001 §8.6"),
        "{refusal}"
    );
    h.snapshot("formations_umpire_form");
    // The form's entry is taken: the first stand loses its step, the Confederacy holds
    // the field (the form's widgets themselves are tested in play_entry.rs).
    let first = pieces[0].0;
    let mut entry = muster_core::game::Entry::default();
    entry.set("losses", Value::Pieces(vec![(first, 1)]));
    entry.set("holder", Value::Side(confederacy));
    let mut take = offer.action();
    if let Action::Take { entry: e, .. } = &mut take {
        *e = Some(Box::new(entry));
    }
    play(&mut h, PlayCommand::Enter(take));
    let g = state(&h);
    assert!(
        g.unit(first).place != Place::Board(manassas) || g.unit(first).hits > 0,
        "the loss was applied: {}",
        h.state().play().status()
    );
    assert!(
        g.unit(army).place != Place::Board(manassas),
        "the Union lost the field and fell back with its army"
    );
}

#[test]
fn the_campaign_opens_with_its_corps_as_named_counters_and_the_enemy_unseen() {
    // `mods/vb-campaign` (seed 001, App. I: "Washington: I Corps (McDowell), II Corps
    // (Banks), III Corps (Hunter)"; "Manassas Junction: The Army of Northern Virginia
    // (Beauregard)"), every seat a person: the Union's first seat sees its corps by
    // name, and of the enemy only what §12's reports tell (nothing at the start).
    let dir = muster_test_support::root().join("mods/vb-campaign");
    let app = EditorApp::new(Document::open(&dir).expect("module opens"));
    let mut h = common::app_harness(app, common::LARGE);
    h.run();
    h.state_mut().apply(UiCommand::SetMode(Mode::Play));
    let seats = {
        let session_module = muster_core::load_module(&dir).expect("loads");
        session_module.seats.len()
    };
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::Start(NewGame {
            scenario: "1861".into(),
            options: Vec::new(),
            end: None,
            players: vec![PlayerKind::Human; 2],
            seats: vec![PlayerKind::Human; seats],
            seed: 1,
        })));
    h.run();
    assert!(
        h.state().play().session().is_some(),
        "the campaign starts: {}",
        h.state().play().status()
    );
    ready(&mut h);
    let session = h.state().play().session().expect("a game");
    let seat = session.viewer().expect("one seat's view").seat;
    assert_eq!(
        session.module().seat(seat).side,
        session.module().find_side("union")
    );
    for corps in [
        "I Corps (McDowell)",
        "II Corps (Banks)",
        "III Corps (Hunter)",
    ] {
        let counter = format!("{corps} (13 pieces, Union) at Washington");
        assert!(texts(&h).contains(&counter), "{counter}: {:?}", texts(&h));
    }
    let all = texts(&h);
    for hidden in [
        "Army of Northern Virginia",
        "Beauregard",
        "Longstreet",
        "Confederacy)",
    ] {
        assert!(
            !all.iter().any(|t| t.contains(hidden)),
            "'{hidden}' shown to the Union: {all:?}"
        );
    }
    let rect = h.get_by_role_and_label(Role::Button, "Washington").rect();
    h.hover_at(rect.center());
    h.event(egui::Event::Zoom(6.0));
    h.run();
    h.snapshot("formations_campaign");
}
