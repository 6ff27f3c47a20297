//! The referee's form in the app (issue 43, item 3: "the app has a form for it"), on
//! `mods/examples/umpire`: AHD whose battles an umpire (a seat of no side) decides by
//! entering the result (seed 001 §8, §8.6). A human umpire fills a form docked beside
//! the map; the engine checks the entry (its form, then the rules' `accepts_entry`) and
//! a refusal is shown beside the form with nothing changed; a computer umpire takes
//! the offer as listed (the rules' `referee_entry`) without a form.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable, by};
use muster_core::game::entry::{self, Field, FieldKind};
use muster_core::game::{Action, GameState, Offer, Place};
use muster_core::ids::{BoxId, UnitId};
use muster_editor::command::UiCommand;
use muster_editor::play::entry::{ENTER, EntryForm, UNCHOSEN};
use muster_editor::play::{NewGame, PlayCommand, PlayerKind, Session};
use muster_editor::{Document, EditorApp};

use common::{copy_dir, retype};

/// A copy of the umpire mod and of AHD beside it, as in the repository.
fn umpire_mod() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = muster_test_support::root().join("mods");
    copy_dir(&root.join("ahd"), &tmp.path().join("mods/ahd"));
    let dir = tmp.path().join("mods/examples/umpire");
    copy_dir(&root.join("examples/umpire"), &dir);
    (tmp, dir)
}

/// Picks `option` in the combo box labelled `combo`.
fn pick(h: &mut Harness<'_, EditorApp>, combo: &str, option: &str) {
    h.get_by_role_and_label(Role::ComboBox, combo).click();
    h.run();
    // The open list's entry is the last node so named (the board may name it too).
    let n = h.query_all_by_label(option).count();
    assert!(n > 0, "'{option}' listed");
    h.query_all_by_label(option)
        .nth(n - 1)
        .expect("option")
        .click();
    h.run();
}

/// Starts an umpire game (seed 5, the computer's sides played by the AI, not by
/// themselves) with the umpire held by `umpire`, from the start screen's seat list.
fn start(dir: &std::path::Path, umpire: &str) -> Harness<'static, EditorApp> {
    let app = EditorApp::new(Document::open(dir).expect("module opens")).at_start();
    let mut h = common::app_harness(app, common::LARGE);
    h.run();
    h.get_by_label("New game, players of your choice").click();
    h.run();
    retype(&mut h, "Seed", "5");
    for seat in ["Union", "Confederacy"] {
        pick(&mut h, seat, "AI");
    }
    pick(&mut h, "Umpire", umpire);
    h.get_by_label("Computers play by themselves").click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    assert!(h.state().play().session().is_some(), "a game started");
    h
}

/// Steps the computers (the toolbar's AI step) until `done`, a frame after each.
fn step_until(h: &mut Harness<'_, EditorApp>, done: impl Fn(&mut Harness<'_, EditorApp>) -> bool) {
    for _ in 0..3000 {
        if done(h) {
            return;
        }
        let n = h
            .state()
            .play()
            .session()
            .unwrap()
            .history()
            .actions()
            .len();
        h.state_mut().apply(UiCommand::Play(PlayCommand::AiStep));
        let after = h
            .state()
            .play()
            .session()
            .unwrap()
            .history()
            .actions()
            .len();
        assert_eq!(after, n + 1, "{}", h.state().play().status());
        h.run();
    }
    panic!("never came to it");
}

/// The offer whose form is open, and the game's state.
fn due(h: &Harness<'_, EditorApp>) -> (Offer, GameState) {
    let session = h.state().play().session().expect("a game");
    let offer = session.entry_due().expect("an entry is due").clone();
    (offer, session.state().clone())
}

fn pieces(o: &Offer) -> Vec<(UnitId, i64)> {
    match &o.form[0].kind {
        FieldKind::Pieces(p) => p.clone(),
        other => panic!("{other:?}"),
    }
}

/// Every text the UI tree holds: each node's label, value and description.
fn texts<S>(h: &Harness<'_, S>) -> Vec<String> {
    h.query_all(by().include_labels())
        .flat_map(|n| {
            let n = n.accesskit_node();
            [n.label(), n.value(), n.description()]
        })
        .flatten()
        .collect()
}

/// The `n`th "+" of the form (one per piece, in the form's order).
fn plus(h: &mut Harness<'_, EditorApp>, n: usize) {
    h.query_all_by_label("+")
        .nth(n)
        .expect("a + per piece")
        .click();
    h.run();
}

/// A human umpire: the form appears, docked, when a battle waits for him, one row per
/// piece (its name and its most) and a list of the sides; the battle's box is ringed
/// and selected. Entries the engine refuses (a field left empty; a holder left with
/// nothing, seed 001 §8.6) show the reason beside the form, keep the values and change
/// nothing; an accepted entry applies: the losses on the pieces, the umpire's line in
/// the log.
#[test]
fn a_human_umpire_enters_a_battle_result_in_a_docked_form() {
    let (_tmp, dir) = umpire_mod();
    let mut h = start(&dir, "Human");
    step_until(&mut h, |h| h.state().play().entry_form().is_some());
    let (offer, before) = due(&h);
    let at = offer.at.expect("the battle's box");
    assert_eq!(
        h.state().play().selected(),
        Some(at),
        "the battle's box selected"
    );
    assert!(
        h.state_mut().play_mut().highlighted().contains(&at),
        "the battle's box ringed"
    );
    assert!(
        h.query_by_label(&format!("Umpire: {}", offer.label))
            .is_some(),
        "the form's heading names the umpire and the battle"
    );
    let module = h.state().play().session().unwrap().module().clone();
    let list = pieces(&offer);
    for &(u, most) in &list {
        let name = muster_core::game::describe::unit(&module, &before, u);
        assert!(
            h.query_by_role_and_label(Role::SpinButton, &name).is_some(),
            "a stepper for {name}"
        );
        let most = format!("of {most}");
        assert!(
            h.query_all_by_label(&most).next().is_some(),
            "'{most}' shown"
        );
    }
    assert!(
        h.query_by_role_and_label(Role::ComboBox, &offer.form[1].label)
            .is_some(),
        "a list for who holds the field"
    );
    assert!(h.query_by_label(ENTER).is_some());
    // The plain offer is not among the panel's actions: it would let the computer decide.
    let legal = h
        .state_mut()
        .play_mut()
        .session_mut()
        .unwrap()
        .legal()
        .unwrap()
        .to_vec();
    assert!(!legal.contains(&offer.action()), "{legal:?}");
    // Nor does a computer step take it: the decision is the person's.
    h.state_mut().apply(UiCommand::Play(PlayCommand::AiStep));
    h.run();
    assert_eq!(
        due(&h),
        (offer.clone(), before.clone()),
        "the AI step did nothing"
    );

    // Nothing picked for who holds the field: the engine's form check refuses.
    h.get_by_label(ENTER).click();
    h.run();
    let refused = |h: &Harness<'_, EditorApp>, what: &str| {
        texts(h)
            .iter()
            .any(|t| t.starts_with("Refused: ") && t.contains(what))
    };
    assert!(
        refused(&h, "nothing entered"),
        "the reason beside the form: {:?} / {}",
        h.state().play().entry_form().and_then(|f| f.error.clone()),
        h.state().play().status()
    );
    let unchanged = |h: &Harness<'_, EditorApp>| {
        let session = h.state().play().session().unwrap();
        assert_eq!(session.state(), &before, "nothing changed in the game");
    };
    unchanged(&h);

    // Every piece of the first piece's side loses all its steps, and that side holds
    // the field: the rules refuse (§8.6: the holder keeps a piece there).
    let side = before.unit(list[0].0).side;
    for (i, &(u, most)) in list.iter().enumerate() {
        if before.unit(u).side == side {
            for _ in 0..most {
                plus(&mut h, i);
            }
        }
    }
    let holder = module.side(side).name.clone();
    pick(&mut h, &offer.form[1].label, &holder);
    let kept = h.state().play().entry_form().unwrap().entry(&offer.form);
    h.get_by_label(ENTER).click();
    h.run();
    assert!(refused(&h, "the rules refuse"), "the rules' reason shown");
    unchanged(&h);
    let form = h.state().play().entry_form().expect("the form stays");
    assert_eq!(form.entry(&offer.form), kept, "the values are kept");
    let summary = format!(
        "Entered: {}",
        entry::describe(&module, &before, &offer.form, &kept)
    );
    assert!(h.query_by_label(&summary).is_some(), "'{summary}' shown");
    h.snapshot("entry_form_battle");

    // Undo those losses; the first enemy piece loses all its steps: accepted.
    for (i, &(u, most)) in list.iter().enumerate() {
        if before.unit(u).side == side {
            for _ in 0..most {
                h.query_all_by_label("−").nth(i).unwrap().click();
                h.run();
            }
        }
    }
    let (j, &(enemy, most)) = list
        .iter()
        .enumerate()
        .find(|(_, (u, _))| before.unit(*u).side != side)
        .expect("an enemy piece in the battle");
    for _ in 0..most {
        plus(&mut h, j);
    }
    h.get_by_label(ENTER).click();
    h.run();
    let session = h.state().play().session().unwrap();
    assert_eq!(h.state().play().status(), "", "accepted");
    let after = session.state();
    let hit = after.unit(enemy);
    assert!(
        !matches!(hit.place, Place::Board(_)),
        "the enemy piece lost all its steps: {hit:?}"
    );
    assert!(
        after.units_at(at).all(|u| after.unit(u).side == side),
        "the holder alone in {}",
        module.board.get(at).name
    );
    let line = session
        .log()
        .iter()
        .find(|l| l.starts_with("[Umpire] ") && l.contains(&offer.label))
        .expect("the umpire's line in the log");
    assert!(line.contains(&format!("holder: {holder}")), "{line}");
    let name = muster_core::game::describe::unit(&module, &before, enemy);
    let entered = format!(
        "  {} entered: Steps lost: {name} {most}; Holds the field: {holder}",
        offer.label
    );
    assert!(session.log().contains(&entered), "'{entered}' logged");
    assert!(
        h.state().play().entry_form().is_none()
            || h.state().play().session().unwrap().entry_due() != Some(&offer),
        "the form is gone or for the next battle"
    );
}

/// The computer umpire (the start screen's "Computer referee"): battles are decided
/// without a form, by the offer as listed (the rules' `referee_entry`).
#[test]
fn a_computer_umpire_decides_without_a_form() {
    let (_tmp, dir) = umpire_mod();
    let mut h = start(&dir, "Computer referee");
    let umpire = h
        .state()
        .play()
        .session()
        .unwrap()
        .module()
        .find_seat("umpire")
        .unwrap();
    assert_eq!(
        h.state().play().session().unwrap().seat_players()[umpire.index()],
        PlayerKind::Computer(muster_ai::Level::Ai)
    );
    step_until(&mut h, |h| {
        assert!(h.state().play().entry_form().is_none(), "no form");
        assert!(h.query_by_label(ENTER).is_none(), "no form drawn");
        let session = h.state().play().session().unwrap();
        session.log().iter().any(|l| l.starts_with("[Umpire] "))
    });
    let session = h.state().play().session().unwrap();
    let taken = session
        .history()
        .actions()
        .iter()
        .find(|a| matches!(a, Action::Take { seat: Some(s), .. } if *s == umpire))
        .expect("the umpire's decision");
    assert!(
        matches!(taken, Action::Take { entry: None, .. }),
        "taken as listed: {taken:?}"
    );
}

/// Each kind of field renders: steppers for pieces, lists for a side, a box and a
/// choice, a number in its range; what is picked makes the entry and its summary
/// (`entry::describe`), and the button emits the offer's action with it.
#[test]
fn each_kind_of_field_renders_and_makes_the_entry() {
    let (_tmp, dir) = umpire_mod();
    let module: Arc<muster_core::Module> = Document::open(&dir)
        .expect("opens")
        .last_module()
        .expect("the module loads")
        .clone();
    let game = NewGame {
        scenario: module.scenarios[0].id.clone(),
        options: Vec::new(),
        end: None,
        players: vec![PlayerKind::Human; module.sides.len()],
        seats: Vec::new(),
        seed: 1,
    };
    let session = Session::new(module.clone(), &game).expect("a game");
    let state = session.state().clone();
    let unit = state
        .unit_ids()
        .find(|&u| matches!(state.unit(u).place, Place::Board(_)))
        .expect("a piece on the board");
    let (union, confederacy) = (
        module.side_ids().next().unwrap(),
        module.side_ids().nth(1).unwrap(),
    );
    let (b0, b1) = (BoxId(0), BoxId(1));
    let field = |id: &str, label: &str, kind| Field {
        id: id.into(),
        label: label.into(),
        kind,
    };
    let offer = Offer {
        id: "result".into(),
        label: "a test of every field".into(),
        unit: None,
        at: Some(b0),
        cost: Vec::new(),
        seat: None,
        form: vec![
            field("losses", "Steps lost", FieldKind::Pieces(vec![(unit, 3)])),
            field(
                "holder",
                "Holds the field",
                FieldKind::Side(vec![union, confederacy]),
            ),
            field("to", "Retreats to", FieldKind::Box(vec![b0, b1])),
            field(
                "weather",
                "Weather",
                FieldKind::Choice(vec!["dry".into(), "mud".into()]),
            ),
            field(
                "rounds",
                "Rounds fought",
                FieldKind::Number { min: 1, max: 3 },
            ),
        ],
        entry: None,
        fight: false,
        fought: None,
        refused: None,
    };
    struct Ui {
        form: EntryForm,
        out: Vec<UiCommand>,
    }
    let (m, s, o) = (module.clone(), state.clone(), offer.clone());
    let mut h = Harness::builder()
        .with_size(egui::vec2(500.0, 700.0))
        .build_ui_state(
            move |ui, st: &mut Ui| {
                muster_editor::play::entry::show(
                    ui,
                    &m,
                    &s,
                    &|_| true,
                    "Umpire",
                    &o,
                    &mut st.form,
                    &mut st.out,
                )
            },
            Ui {
                form: EntryForm::new(&offer, 0),
                out: Vec::new(),
            },
        );
    h.run();
    let name = muster_core::game::describe::unit(&module, &state, unit);
    assert!(h.query_by_role_and_label(Role::SpinButton, &name).is_some());
    assert!(
        h.query_by_role_and_label(Role::SpinButton, "Rounds fought")
            .is_some()
    );
    assert!(h.query_by_label("from 1 to 3").is_some());
    for list in ["Holds the field", "Retreats to", "Weather"] {
        let combo = h.get_by_role_and_label(Role::ComboBox, list);
        assert_eq!(
            combo.accesskit_node().value(),
            Some(UNCHOSEN.to_string()),
            "{list}"
        );
    }
    h.get_by_label("+").click();
    h.run();
    h.get_by_label("+").click();
    h.run();
    let choose = |h: &mut Harness<'_, Ui>, combo: &str, option: &str| {
        h.get_by_role_and_label(Role::ComboBox, combo).click();
        h.run();
        h.get_by_label(option).click();
        h.run();
    };
    choose(&mut h, "Holds the field", &module.side(confederacy).name);
    choose(&mut h, "Retreats to", &module.board.get(b1).name);
    choose(&mut h, "Weather", "mud");
    let entered = h.state().form.entry(&offer.form);
    let said = entry::describe(&module, &state, &offer.form, &entered);
    assert_eq!(
        said,
        format!(
            "Steps lost: {name} 2; Holds the field: {}; Retreats to: {}; Weather: mud; Rounds fought: 1",
            module.side(confederacy).name,
            module.board.get(b1).name
        )
    );
    assert!(h.query_by_label(&format!("Entered: {said}")).is_some());
    assert_eq!(entry::check(&module, &state, &offer.form, &entered), Ok(()));
    h.get_by_label(ENTER).click();
    h.run();
    let out = &h.state().out;
    assert_eq!(out.len(), 1);
    let UiCommand::Play(PlayCommand::Enter(Action::Take {
        entry: Some(e),
        offer: id,
        ..
    })) = &out[0]
    else {
        panic!("{:?}", out[0])
    };
    assert_eq!((id.as_str(), &**e), ("result", &entered));
}

/// The umpire example's module is open (everyone sees everything) but has a seat of no
/// side: the start screen lists the seats, the umpire's as the referee's, held by a
/// person or the computer referee only (not a level of computer player).
#[test]
fn the_start_screen_lists_the_umpire_seat() {
    let (_tmp, dir) = umpire_mod();
    let app = EditorApp::new(Document::open(&dir).expect("module opens")).at_start();
    let mut h = common::app_harness(app, common::LARGE);
    h.run();
    h.get_by_label("New game, players of your choice").click();
    h.run();
    for seat in ["Union", "Confederacy", "Umpire"] {
        assert!(
            h.query_by_role_and_label(Role::ComboBox, seat).is_some(),
            "the seat {seat} is listed"
        );
    }
    assert!(h.query_by_label("seat of the referee").is_some());
    h.get_by_role_and_label(Role::ComboBox, "Umpire").click();
    h.run();
    assert!(h.query_by_label("Computer referee").is_some());
    for level in ["Random", "Greedy", "AI", "Strong"] {
        assert!(h.query_by_label(level).is_none(), "'{level}' not offered");
    }
}
