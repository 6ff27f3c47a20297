//! The Xvfb smoke run (`editor/xvfb/new-game.sh`) clicks the real window at fixed
//! points listed in `editor/xvfb/clicks.txt`. This test makes the same clicks, at the
//! same points, in the same window size, and checks that each lands on the widget the
//! file names and that together they start a game and make a march. When the layout
//! changes, this test says which point to update.

use crate::common;

use egui::{Event, Modifiers, PointerButton, Pos2};
use egui_kittest::kittest::Queryable;
use muster_editor::command::Mode;

/// One line of `clicks.txt`: `x y label`.
struct Click {
    at: Pos2,
    label: String,
}

fn clicks() -> (egui::Vec2, Vec<Click>, Pos2) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/xvfb/clicks.txt");
    let text = std::fs::read_to_string(path).expect("clicks.txt");
    let mut size = None;
    let mut end = None;
    let mut clicks = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.splitn(3, ' ');
        let (a, b, rest) = (words.next(), words.next(), words.next());
        let (Some(a), Some(b)) = (a, b) else {
            panic!("clicks.txt: bad line {line:?}")
        };
        if a == "end" {
            let x: f32 = b.parse().expect("x");
            let y: f32 = rest.expect("y").trim().parse().expect("y");
            end = Some(Pos2::new(x, y));
            continue;
        }
        if a == "size" {
            let w: f32 = b.parse().expect("width");
            let h: f32 = rest.expect("height").trim().parse().expect("height");
            size = Some(egui::vec2(w, h));
            continue;
        }
        clicks.push(Click {
            at: Pos2::new(a.parse().expect("x"), b.parse().expect("y")),
            label: rest.expect("a label").trim().to_string(),
        });
    }
    (
        size.expect("clicks.txt gives the window size"),
        clicks,
        end.expect("clicks.txt gives the `end` point"),
    )
}

#[test]
fn the_xvfb_clicks_start_a_game_and_make_a_march() {
    let (size, clicks, _) = clicks();
    let (_tmp, dir) = common::ahd_copy();
    let app = muster_editor::EditorApp::new(muster_editor::Document::open(&dir).expect("opens"))
        .at_start();
    let mut h = common::app_harness(app, size);
    h.run();
    for c in &clicks {
        // A label may name several widgets (an action is offered in two lists).
        let rects: Vec<egui::Rect> = h.query_all_by_label(&c.label).map(|n| n.rect()).collect();
        assert!(
            rects.iter().any(|r| r.contains(c.at)),
            "clicks.txt: '{}' is now at {rects:?}, not under ({}, {}); update the point",
            c.label,
            c.at.x,
            c.at.y
        );
        h.hover_at(c.at);
        for pressed in [true, false] {
            h.event(Event::PointerButton {
                pos: c.at,
                button: PointerButton::Primary,
                pressed,
                modifiers: Modifiers::NONE,
            });
            h.step();
        }
        h.run();
    }
    let app = h.state();
    assert_eq!(app.mode(), Mode::Play);
    let session = app.play().session().expect("the clicks started a game");
    let march = session.state().moving.as_ref().expect("in a march");
    assert!(
        march.active.is_some(),
        "a box is activated: {}",
        app.title()
    );
    assert!(
        session.history().can_undo(),
        "a unit moved (the move can be undone)"
    );
    assert!(
        app.title().contains("marching from Washington"),
        "the window title shows the march: {}",
        app.title()
    );
}

/// Then the run clicks the `end` point (End march, then End segment) until the
/// Confederacy, played by the computer, is to act; the computer plays its player turn
/// by itself and the window shows its summary: the screenshot of `docs/`.
#[test]
fn the_xvfb_run_ends_the_union_turn_and_the_computer_plays_its_own() {
    let (size, clicks, end) = clicks();
    let (_tmp, dir) = common::ahd_copy();
    let app = muster_editor::EditorApp::new(muster_editor::Document::open(&dir).expect("opens"))
        .at_start();
    let mut h = common::app_harness(app, size);
    h.run();
    let click = |h: &mut egui_kittest::Harness<'_, muster_editor::EditorApp>, at: Pos2| {
        h.hover_at(at);
        for pressed in [true, false] {
            h.event(Event::PointerButton {
                pos: at,
                button: PointerButton::Primary,
                pressed,
                modifiers: Modifiers::NONE,
            });
            h.step();
        }
        h.step();
        h.step();
    };
    for c in &clicks {
        click(&mut h, c.at);
    }
    let confederate_turn =
        |app: &muster_editor::EditorApp| app.title().contains("Confederacy player turn");
    for _ in 0..12 {
        if confederate_turn(h.state()) {
            break;
        }
        let rects: Vec<egui::Rect> = ["End march", "End segment"]
            .iter()
            .flat_map(|l| {
                h.query_all_by_label(l)
                    .map(|n| n.rect())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(
            rects.iter().any(|r| r.contains(end)),
            "clicks.txt: the end buttons are at {rects:?}, not under {end:?}; update `end`"
        );
        click(&mut h, end);
    }
    assert!(confederate_turn(h.state()), "{}", h.state().title());
    // The computer plays until a human is to decide (its turn's end, or a battle the
    // Union must answer).
    for _ in 0..20_000 {
        std::thread::sleep(std::time::Duration::from_millis(1));
        h.step();
        let play = h.state().play();
        if play.session().is_some_and(|s| !s.computer_to_act()) && play.thinking().is_none() {
            break;
        }
    }
    assert!(
        h.state()
            .play()
            .session()
            .is_some_and(|s| !s.computer_to_act()),
        "{}",
        h.state().title()
    );
    h.step();
    h.step();
    assert!(h.state().play().computer_turn().finished);
    assert!(h.query_by_label("Confederacy's turn (computer)").is_some());
}
