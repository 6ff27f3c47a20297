//! Every refusal says why, in the app (issue 46, item 4): a click on a box the moving
//! pieces cannot reach puts the engine's reason on the status line, and the recruit
//! list keeps its slots, a recruit no longer possible greyed with its reason.

use crate::common;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable, by};
use muster_core::game::{Action, Path, Step, apply, describe, legal_actions, why_not};
use muster_editor::EditorApp;

use common::{ahd_module as module, game_state as state, retype, rules};

/// Opens play mode and starts the 1861 game, both sides human, through the dialog.
fn new_game(h: &mut Harness<'_, EditorApp>, seed: u64) {
    h.run();
    h.get_by_label("Play").click();
    h.run();
    h.get_by_label("1861 Campaign Game").click();
    h.run();
    retype(h, "Seed", &seed.to_string());
    h.get_by_label("Computers play by themselves").click();
    h.run();
    h.get_by_label("Start").click();
    h.run();
    assert!(h.state().play().session().is_some(), "the game started");
}

/// The button texts of the panel's recruit list, in order, and which are enabled.
fn recruit_buttons(h: &Harness<'_, EditorApp>) -> Vec<(String, bool)> {
    h.query_all(by().role(Role::Button))
        .filter_map(|n| {
            let label = n.accesskit_node().label()?;
            label
                .starts_with("recruit ")
                .then(|| (label, !n.accesskit_node().is_disabled()))
        })
        .collect()
}

/// 4.0: the pieces of an activated box go only where a path lets them. Clicking a
/// box none of them may reach says why, in the engine's words (the same refusal
/// `why_not` gives), and still selects the box.
#[test]
fn clicking_a_box_the_pieces_cannot_reach_says_why() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, common::LARGE);
    new_game(&mut h, 7);
    let module = module();
    let start = state(&h);
    let washington = module.board.find("Washington").unwrap();
    let richmond = module.board.find("Richmond").unwrap();
    h.get_by_role_and_label(Role::Button, "Washington").click();
    h.run();
    let activate = Action::Select { at: washington };
    h.get_all_by_label(&describe::action(&module, &start, &activate))
        .next()
        .expect("offered")
        .click();
    h.run();
    let mut r = rules(&module);
    let (activated, _) = apply(&module, &mut r, &start, &activate).unwrap();
    assert_eq!(state(&h), activated);
    assert!(
        !legal_actions(&module, &mut r, &activated)
            .unwrap()
            .iter()
            .any(|a| matches!(a, Action::Move { path, .. } if path.to() == richmond)),
        "Richmond is no destination"
    );
    h.get_by_role_and_label(Role::Button, "Richmond").click();
    h.run();
    let status = h.state().play().status().to_string();
    assert!(
        status.starts_with("'move Militia Infantry #1 Washington ")
            && status.contains(" Richmond' is not possible: "),
        "{status}"
    );
    // The reason is the engine's for that move, word for word: the move quoted is one
    // of the paths from Washington to Richmond, and `why_not` refuses it so.
    let quoted = status[1..status.find("' is not possible").unwrap()].to_string();
    let mut paths = Vec::new();
    walk(&module, washington, richmond, Vec::new(), &mut paths);
    let unit = activated
        .moving
        .as_ref()
        .and_then(|m| m.active.as_ref())
        .map(|a| a.ready[0])
        .unwrap();
    let tried = paths
        .into_iter()
        .map(|steps| Action::Move {
            unit,
            path: Path {
                from: washington,
                steps,
            },
        })
        .find(|a| describe::action(&module, &activated, a) == quoted)
        .unwrap_or_else(|| panic!("no path reads '{quoted}'"));
    let refusal = why_not(&module, &mut r, &activated, &tried)
        .unwrap()
        .unwrap();
    assert_eq!(status, refusal.to_string());
    assert_eq!(state(&h), activated, "asking changed nothing");
    assert_eq!(h.state().play().selected(), Some(richmond));
}

/// Every path of at most three lines from `at` to `to`, visiting no box twice.
fn walk(
    module: &muster_core::Module,
    at: muster_core::ids::BoxId,
    to: muster_core::ids::BoxId,
    steps: Vec<Step>,
    out: &mut Vec<Vec<Step>>,
) {
    if at == to {
        out.push(steps);
        return;
    }
    if steps.len() == 3 {
        return;
    }
    for &(next, line) in module.board.neighbours(at) {
        if steps.iter().any(|s| s.to == next) {
            continue;
        }
        let mut more = steps.clone();
        more.push(Step { line, to: next });
        walk(module, next, to, more, out);
    }
}

/// 7.0: one recruit per Recruitment City. After a recruit the list keeps every slot
/// where it was: the city's other recruits stay in place, greyed, so the next click
/// lands on the recruit aimed at.
#[test]
fn the_recruit_list_keeps_its_slots_and_greys_what_has_gone() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = common::harness(&dir, common::LARGE);
    new_game(&mut h, 7);
    // To the Union's Recruitment segment: end the segments before it.
    for _ in 0..10 {
        // The panel's filter narrows the slots too: every recruit reads "recruit ...".
        retype(&mut h, "Filter", "recruit ");
        if recruit_buttons(&h).len() > 1 {
            break;
        }
        retype(&mut h, "Filter", "end this segment");
        h.get_all(by().label("end this segment").role(Role::Button))
            .next()
            .expect("end this segment")
            .click();
        h.run();
    }
    let before = recruit_buttons(&h);
    assert!(before.len() > 2, "{before:?}");
    assert!(before.iter().all(|(_, on)| *on), "{before:?}");
    let first = before[0].0.clone();
    h.get_all(by().label(&first).role(Role::Button))
        .next()
        .unwrap()
        .click();
    h.run();
    let after = recruit_buttons(&h);
    let labels = |v: &[(String, bool)]| v.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>();
    assert_eq!(labels(&after), labels(&before), "no slot moved");
    // A slot is open exactly when the engine lists its recruit now; the recruit taken
    // and its city's others (7.0) are greyed.
    let module = module();
    let now = state(&h);
    let mut r = rules(&module);
    let legal: Vec<String> = legal_actions(&module, &mut r, &now)
        .unwrap()
        .iter()
        .map(|a| describe::action(&module, &now, a))
        .collect();
    for (label, on) in &after {
        assert_eq!(*on, legal.contains(label), "{label}: {after:?}");
    }
    let city = first.rsplit(" in ").next().unwrap().to_string();
    assert!(
        after
            .iter()
            .filter(|(l, _)| l.ends_with(&format!(" in {city}")))
            .all(|(_, on)| !on),
        "{after:?}"
    );
    // A type none of whose pieces may come in says why, before the segment ends.
    for kind in ["Militia Infantry", "Militia Cavalry"] {
        if !legal
            .iter()
            .any(|l| l.starts_with(&format!("recruit {kind} ")))
        {
            let why = format!("{kind}: no {kind} of Union is left in the pool");
            assert!(h.query_by_label(&why).is_some(), "{why}");
        }
    }
}
