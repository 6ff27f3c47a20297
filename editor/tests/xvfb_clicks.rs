//! The Xvfb smoke run (`editor/xvfb/new-game.sh`) clicks the real window at fixed
//! points listed in `editor/xvfb/clicks.txt`. This test makes the same clicks, at the
//! same points, in the same window size, and checks that each lands on the widget the
//! file names and that together they start a game and make a march. When the layout
//! changes, this test says which point to update.

mod common;

use egui::{Event, Modifiers, PointerButton, Pos2};
use egui_kittest::kittest::Queryable;
use muster_editor::command::Mode;

/// One line of `clicks.txt`: `x y label`.
struct Click {
    at: Pos2,
    label: String,
}

fn clicks() -> (egui::Vec2, Vec<Click>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/xvfb/clicks.txt");
    let text = std::fs::read_to_string(path).expect("clicks.txt");
    let mut size = None;
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
    (size.expect("clicks.txt gives the window size"), clicks)
}

#[test]
fn the_xvfb_clicks_start_a_game_and_make_a_march() {
    let (size, clicks) = clicks();
    let mut h = common::harness(&common::ahd(), size);
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
