//! Frame time of the app on the AHD board: one frame laid out and tessellated, as
//! eframe does before painting (the GPU upload and drawing are not included).
//! `cargo bench -p muster-editor --bench frame`.

use criterion::{Criterion, criterion_group, criterion_main};
use egui::{Pos2, RawInput, Rect, Vec2};
use muster_editor::command::{Mode, UiCommand};
use muster_editor::play::PlayCommand;
use muster_editor::play::session::{NewGame, PlayerKind};
use muster_editor::{Document, EditorApp};

fn app() -> EditorApp {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd");
    EditorApp::new(Document::open(dir).expect("AHD opens"))
}

fn input() -> RawInput {
    RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, Vec2::new(1400.0, 900.0))),
        ..Default::default()
    }
}

/// One frame: layout, the frame's commands, and tessellation.
fn frame(ctx: &egui::Context, app: &mut EditorApp) -> usize {
    let mut out = ctx.run_ui(input(), |ui| app.show(ui));
    // No painter takes the texture uploads; epaint's debug builds insist they are handled.
    out.textures_delta.clear();
    ctx.tessellate(out.shapes, out.pixels_per_point).len()
}

fn frames(c: &mut Criterion) {
    let ctx = egui::Context::default();
    let mut editing = app();
    editing.apply(UiCommand::ShowScenario(Some("1864".into())));
    for _ in 0..3 {
        frame(&ctx, &mut editing);
    }
    c.bench_function("frame: editing AHD, 1864 setup shown", |b| {
        b.iter(|| frame(&ctx, &mut editing))
    });

    let ctx = egui::Context::default();
    let mut playing = app();
    playing.apply(UiCommand::SetMode(Mode::Play));
    playing.apply(UiCommand::Play(PlayCommand::Start(NewGame {
        scenario: "1864".into(),
        options: Vec::new(),
        end: None,
        players: vec![PlayerKind::Human; 2],
        seats: Vec::new(),
        seed: 1,
    })));
    assert!(playing.play().session().is_some(), "the game starts");
    for _ in 0..3 {
        frame(&ctx, &mut playing);
    }
    c.bench_function("frame: playing AHD 1864, first march", |b| {
        b.iter(|| frame(&ctx, &mut playing))
    });
}

criterion_group!(benches, frames);
criterion_main!(benches);
