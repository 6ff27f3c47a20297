//! The player's table (issue 46): nothing floats over the board (the danger, the battle,
//! its odds and the computer's turn in a docked panel; the toolbar folded into menus on
//! a narrow window), the danger of defeat shown with its boxes, saves that keep who plays
//! which side. Snapshot images at 1280×720 and 1920×1080, rendered as `snapshot.rs`'s
//! are (renew with `UPDATE_SNAPSHOTS=1 cargo test -p muster-editor --test it table::`, then
//! look at `editor/tests/snapshots/table_*.png` before committing them).

use crate::common;

use std::path::Path;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_core::game::{Action, legal_actions};
use muster_editor::command::{Mode, UiCommand};
use muster_editor::play::battle::battle;
use muster_editor::play::{PlayCommand, PlayerKind};
use muster_editor::{Document, EditorApp};

use common::{ahd_module as module, game_state as state, retype, rules};

const HD: egui::Vec2 = egui::vec2(1280.0, 720.0);
const FULL_HD: egui::Vec2 = egui::vec2(1920.0, 1080.0);

/// The start screen of the module in `dir`, in a window of `size`.
fn at_start(dir: &Path, size: egui::Vec2) -> Harness<'static, EditorApp> {
    let app = EditorApp::new(Document::open(dir).expect("module opens")).at_start();
    let mut h = common::app_harness(app, size);
    h.run();
    h
}

/// The start screen's "New game against the computer" on `scenario`, seed `seed`: the
/// Union a person, the Confederacy the computer.
fn vs_computer(h: &mut Harness<'_, EditorApp>, scenario: &str, seed: u64) {
    assert_eq!(h.state().mode(), Mode::Start);
    h.get_by_label("New game against the computer").click();
    h.run();
    h.get_by_label(scenario).click();
    h.run();
    retype(h, "Seed", &seed.to_string());
    h.get_by_label("Start").click();
    h.run();
    assert!(h.state().play().session().is_some(), "a game");
}

/// The rect of the first widget labelled `text`.
fn rect_of(h: &Harness<'_, EditorApp>, text: &str) -> egui::Rect {
    h.get_all_by_label(text).next().expect(text).rect()
}

const WASHINGTON: &str = "Danger (Confederacy): If Washington falls, the Confederacy wins (10.0)";

#[test]
#[cfg_attr(
    muster_no_soft_vulkan,
    ignore = "needs a software Vulkan (Mesa's lavapipe): apt-get install mesa-vulkan-drivers"
)]
fn the_1861_start_at_1280x720() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = at_start(&dir, HD);
    vs_computer(&mut h, "1861 Campaign Game", 1);
    h.run();
    // The toolbar folds: its menus are there, their items are not in the row.
    assert!(h.query_by_label("File").is_some(), "the File menu");
    assert!(h.query_by_label("Options").is_some(), "the Options menu");
    assert!(h.query_by_label("Load game…").is_none(), "folded away");
    // Manassas Junction is next to Washington (2.0's set-up): the warning is a strip
    // above the board, and covers no box.
    let warning = rect_of(&h, WASHINGTON);
    let washington = rect_of(&h, "Washington");
    assert!(
        warning.bottom() < washington.top(),
        "the warning {warning:?} is above the board, not over Washington {washington:?}"
    );
    h.snapshot("table_1861_start_1280x720");

    // A folded menu opens and its items work.
    h.get_by_label("Options").click();
    h.run();
    assert!(
        h.query_by_label("Odds").is_some(),
        "Odds is in the Options menu"
    );
}

#[test]
#[cfg_attr(
    muster_no_soft_vulkan,
    ignore = "needs a software Vulkan (Mesa's lavapipe): apt-get install mesa-vulkan-drivers"
)]
fn the_1861_start_at_1920x1080() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = at_start(&dir, FULL_HD);
    vs_computer(&mut h, "1861 Campaign Game", 1);
    h.run();
    assert!(h.query_by_label("File").is_none(), "wide enough: no menu");
    assert!(h.query_by_label("Load game…").is_some(), "the whole row");
    assert!(h.query_by_label(WASHINGTON).is_some());
    h.snapshot("table_1861_start_1920x1080");
}

/// A Confederate raid into Pennsylvania (the issue's lost game): Baltimore taken, an
/// army in Harrisburg, another at Manassas Junction.
const RAID: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<scenario id="raid" name="Raid on Pennsylvania" start="08/1861">
  <side id="union">
    <place box="Washington" units="2 Mi"/>
    <place box="New York" units="1 Mi"/>
    <place box="Pittsburgh" units="1 Mi"/>
    <place box="Cincinnati" units="1 Mi"/>
  </side>
  <side id="confederate">
    <place box="Harrisburg" units="2 Mi"/>
    <place box="Baltimore" units="1 Mi"/>
    <place box="Manassas Junction" units="1 Mi"/>
    <place box="Richmond" units="2 Mi"/>
    <control box="Baltimore"/>
  </side>
</scenario>
"#;

/// The danger warning names each condition the computer could meet on its next turn
/// with its boxes, and the map rings those boxes (AHD 10.0: the Army Maximum Sizes
/// compared after captures; Washington).
#[test]
#[cfg_attr(
    muster_no_soft_vulkan,
    ignore = "needs a software Vulkan (Mesa's lavapipe): apt-get install mesa-vulkan-drivers"
)]
fn the_danger_of_defeat_is_shown_with_its_boxes() {
    let (_tmp, dir) = common::ahd_copy();
    std::fs::write(dir.join("scenarios/raid.xml"), RAID).expect("write");
    let xml = std::fs::read_to_string(dir.join("module.xml")).expect("module.xml");
    let xml = xml.replace(
        r#"<include file="scenarios/1861.xml"/>"#,
        r#"<include file="scenarios/1861.xml"/>
  <include file="scenarios/raid.xml"/>"#,
    );
    std::fs::write(dir.join("module.xml"), xml).expect("write");
    let mut h = at_start(&dir, HD);
    vs_computer(&mut h, "Raid on Pennsylvania", 1);
    h.run();
    let threats: Vec<String> = h
        .state_mut()
        .play_mut()
        .session_mut()
        .expect("game")
        .victory_threats()
        .iter()
        .map(|t| t.text.clone())
        .collect();
    // Baltimore taken: Union 33, Confederacy 30; Philadelphia and Scranton (3 and 3)
    // would make it 27 to 30. Infantry in Harrisburg reach both (4.0).
    let army = "If Philadelphia and Scranton fall, the Confederate Army Maximum Size passes the Union's (10.0)";
    assert!(threats.iter().any(|t| t == army), "{threats:?}");
    assert!(
        h.query_by_label(&format!("Danger (Confederacy): {army}"))
            .is_some(),
        "the warning is shown"
    );
    assert!(h.query_by_label(WASHINGTON).is_some());
    h.snapshot("table_danger_1280x720");

    // Not the Union's own threats: only what the side played by the computer could do.
    let session = h.state_mut().play_mut().session_mut().expect("game");
    assert_eq!(
        session.players(),
        &[
            PlayerKind::Human,
            PlayerKind::Computer(muster_ai::Level::Ai)
        ]
    );
}

/// A battle the computer began, its odds and the computer's turn in words, all open at
/// once in the dock beside the board at 1280×720.
#[test]
#[cfg_attr(
    muster_no_soft_vulkan,
    ignore = "needs a software Vulkan (Mesa's lavapipe): apt-get install mesa-vulkan-drivers"
)]
fn a_battle_with_its_odds_and_the_computers_turn_beside_the_board() {
    let (_tmp, dir) = common::ahd_copy();
    let mut h = at_start(&dir, HD);
    vs_computer(&mut h, "1861 Campaign Game", 2);
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::SetAuto(false)));
    // Odds off while playing to the picture (each position would be simulated).
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::ShowOdds(false)));
    muster_editor::play::refusal::set_takes_lone_target(&h.ctx, false);
    let module = module();
    let confederacy = module.find_side("confederate").expect("side");
    let mut r = rules(&module);
    let mut union = muster_ai::player(muster_ai::Level::Greedy, 5);
    let mut found = false;
    for _ in 0..4_000 {
        let s = state(&h);
        assert!(s.outcome.is_none(), "the game ended first");
        let computer = h.state().play().session().expect("game").computer_to_act();
        if !computer
            && battle(&s).is_some_and(|b| b.attacker == confederacy)
            && !h.state().play().computer_turn().is_empty()
        {
            found = true;
            break;
        }
        if computer {
            h.state_mut().apply(UiCommand::Play(PlayCommand::AiStep));
            // A frame, as the app draws between actions: a run of the computer's ends
            // when a person is to act.
            h.step();
            continue;
        }
        let legal = legal_actions(&module, &mut r, &s).expect("legal");
        let mut action = muster_ai::choose(&mut union, &module, &mut r, &s).expect("choice");
        if !legal.contains(&action) {
            union.forget();
            action = muster_ai::choose(&mut union, &module, &mut r, &s).expect("choice");
        }
        // The Union never retreats from a battle here: the picture needs one going on.
        if matches!(action, Action::Release) && battle(&s).is_some() {
            action = legal[0].clone();
        }
        h.state_mut()
            .play_mut()
            .session_mut()
            .expect("game")
            .apply(action)
            .expect("legal action");
    }
    assert!(found, "the computer began a battle");
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::ShowOdds(true)));
    h.step();
    h.step();
    h.run();
    let at = battle(&state(&h)).expect("battle").at;
    let title = format!("Battle at {}", module.board.get(at).name);
    let battle_title = rect_of(&h, &title);
    assert!(
        h.query_by_label("Battle odds").is_some(),
        "the odds are open"
    );
    assert!(
        h.query_by_label("Confederacy's turn (computer)").is_some(),
        "the computer's turn is open"
    );
    // The report reads as sentences.
    let first = h.state().play().computer_turn().summary(&module).remove(0);
    assert!(
        first.starts_with("The Confederacy took "),
        "a sentence: {first}"
    );
    assert!(h.query_by_label(&first).is_some(), "'{first}' is shown");
    // The battle's box stays in sight: the dock is beside the map, and each section
    // starts below the one before (none overlaps another).
    let place = rect_of(&h, &module.board.get(at).name);
    assert!(
        battle_title.right() < place.left(),
        "the battle's section {battle_title:?} is left of its box {place:?}"
    );
    let report = rect_of(&h, "Confederacy's turn (computer)");
    let odds = rect_of(&h, "Battle odds");
    assert!(
        battle_title.bottom() <= odds.top() && odds.bottom() <= report.top(),
        "battle {battle_title:?}, odds {odds:?}, turn {report:?} one under another"
    );
    assert!(
        report.bottom() < HD.y - 40.0,
        "the three sections fit in the window's height: {report:?}"
    );
    h.snapshot("table_battle_1280x720");
}

/// A save goes into the games folder when only a name is typed, the status says where,
/// and loading it brings back who plays which side and "AI auto".
#[test]
fn a_save_keeps_the_players_and_ai_auto_in_the_games_folder() {
    let (_tmp, dir) = common::ahd_copy();
    let games = tempfile::tempdir().expect("tmp");
    let mut h = at_start(&dir, common::LARGE);
    h.state_mut().play_mut().games_dir = games.path().join("games");
    vs_computer(&mut h, "1861 Campaign Game", 1);
    assert!(h.state().play().auto(), "the computer plays by itself");
    h.state_mut()
        .apply(UiCommand::SaveGame("first.json".into()));
    let saved = games.path().join("games/first.json");
    assert!(saved.is_file(), "saved in the games folder");
    let status = h.state().play().status().to_string();
    assert!(
        status.contains(&saved.display().to_string()),
        "the status names the file: {status}"
    );
    // Another table: every side a person (the dialog's default), the computers stopped.
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::OpenNewGame));
    h.run();
    h.get_by_label("Start").click();
    h.run();
    h.state_mut()
        .apply(UiCommand::Play(PlayCommand::SetAuto(false)));
    assert_eq!(
        h.state().play().session().expect("game").players(),
        &[PlayerKind::Human, PlayerKind::Human]
    );
    h.state_mut()
        .apply(UiCommand::LoadGame("first.json".into()));
    let play = h.state().play();
    assert!(
        play.status().starts_with("game loaded"),
        "{}",
        play.status()
    );
    assert_eq!(
        play.session().expect("game").players(),
        &[
            PlayerKind::Human,
            PlayerKind::Computer(muster_ai::Level::Ai)
        ],
        "the computer plays the Confederacy again"
    );
    assert!(play.auto(), "AI auto is on again");
}

/// Every box of AHD's map gets forms no other box shares, so an abbreviated name always
/// reads as one box ("Columbus" and "Columbus, Ga." never both "Colum.").
#[test]
fn the_ahd_map_names_abbreviate_to_forms_no_two_boxes_share() {
    let doc = Document::open(common::ahd()).expect("module opens");
    let names: Vec<&str> = doc.map().boxes.iter().map(|b| b.name.as_str()).collect();
    let forms = muster_editor::labels::abbreviations(&names);
    let mut owner = std::collections::HashMap::new();
    for (i, list) in forms.iter().enumerate() {
        assert_eq!(list[0], names[i], "the full name first");
        for f in list {
            if let Some(j) = owner.insert(f.clone(), i) {
                panic!("'{f}' would read as {} and as {}", names[j], names[i]);
            }
        }
    }
    let shortest = |name: &str| {
        let i = names.iter().position(|n| *n == name).expect(name);
        forms[i].last().cloned().unwrap_or_default()
    };
    assert_eq!(shortest("Charleston (South Carolina)"), "Char. SC");
    assert_eq!(shortest("Columbus"), "Columbus");
    assert!(
        shortest("Philadelphia").len() < "Philadelphia".len(),
        "a long name has a shorter form: {}",
        shortest("Philadelphia")
    );
}
