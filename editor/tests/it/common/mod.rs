//! Helpers shared by the editor's tests.
#![allow(dead_code)]

use std::path::Path;

/// The AHD module of the repository (`ahd`: its folder), a fresh copy of it in a
/// temporary folder (kept while the guard is), and a folder tree copied; each test file
/// uses some.
#[allow(unused_imports)]
pub use muster_test_support::{ahd_copy, ahd_dir as ahd, ahd_module, copy_dir};

use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use muster_core::Module;
use muster_core::game::{Action, GameState, apply};
use muster_core::ids::BoxId;
use muster_editor::{Document, EditorApp};
use muster_scripting::{Limits, ScriptRules};

/// Window sizes the UI tests use, in points.
pub const SMALL: egui::Vec2 = egui::vec2(1400.0, 900.0);
pub const LARGE: egui::Vec2 = egui::vec2(1600.0, 1000.0);

/// How long a test waits for the file watcher before giving up.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// `app` in a test harness of `size`.
pub fn app_harness(app: EditorApp, size: egui::Vec2) -> Harness<'static, EditorApp> {
    Harness::builder()
        .with_size(size)
        .build_ui_state(|ui, app: &mut EditorApp| app.show(ui), app)
}

/// The app on the module in `dir`, in a harness of `size`.
pub fn harness(dir: &Path, size: egui::Vec2) -> Harness<'static, EditorApp> {
    app_harness(
        EditorApp::new(Document::open(dir).expect("module opens")),
        size,
    )
}

/// As [`harness`], with the module folder watched for changes, one frame run.
pub fn watched(dir: &Path, size: egui::Vec2) -> Harness<'static, EditorApp> {
    let mut app = EditorApp::new(Document::open(dir).expect("module opens"));
    app.watch(|| {});
    assert!(app.is_watching());
    let mut h = app_harness(app, size);
    h.run();
    h
}

/// Runs frames until `done` holds; false after [`PATIENCE`].
pub fn run_until(h: &mut Harness<'_, EditorApp>, done: impl Fn(&EditorApp) -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        h.step();
        if done(h.state()) {
            h.run();
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The map index of the box called `name`.
pub fn box_index(h: &Harness<'_, EditorApp>, name: &str) -> usize {
    h.state()
        .document()
        .map()
        .find_box(name)
        .expect("box exists")
}

/// Replaces the text of the text field labelled `label`.
pub fn retype(h: &mut Harness<'_, EditorApp>, label: &str, text: &str) {
    h.get_by_role_and_label(Role::TextInput, label).focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.get_by_role_and_label(Role::TextInput, label)
        .type_text(text);
    h.run();
}

/// Rewrites `path` with `from` replaced by `to`.
pub fn edit_file(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{from} in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

/// The module's rule scripts, with the default limits.
pub fn rules(module: &Module) -> ScriptRules {
    ScriptRules::load(module, Limits::default()).expect("rules load")
}

/// The odds of the battle at `at` computed with the ai crate directly (2,000 runs, seed 1):
/// the battle under way, or the one `Fight` would begin now.
pub fn direct_odds(
    module: &Module,
    rules: &mut ScriptRules,
    state: &GameState,
    at: BoxId,
) -> muster_ai::odds::Report {
    let setup = match muster_editor::play::odds::battle_at(state) {
        Some(_) => muster_ai::odds::Setup::from_battle(module, state),
        None => {
            let (begun, _) = apply(module, rules, state, &Action::Fight { at }).expect("fight");
            muster_ai::odds::Setup::from_battle(module, &begun)
        }
    }
    .expect("setup");
    muster_ai::odds::simulate(
        module,
        rules,
        &setup,
        &muster_ai::odds::Config {
            runs: 2_000,
            seed: 1,
            ..Default::default()
        },
        None,
    )
    .expect("simulate")
}

/// The state of the game under way in the play client.
pub fn game_state(h: &Harness<'_, EditorApp>) -> GameState {
    h.state()
        .play()
        .session()
        .expect("a game is under way")
        .state()
        .clone()
}

/// Where map point `p` is on screen, from the screen positions of two boxes `refs`.
pub fn screen_of(h: &Harness<'_, EditorApp>, p: egui::Pos2, refs: [&str; 2]) -> egui::Pos2 {
    let map = h.state().document().map();
    let at = |name: &str| {
        let b = &map.boxes[map.find_box(name).unwrap()];
        (
            egui::pos2(b.x as f32, b.y as f32),
            h.get_by_label(name).rect().center(),
        )
    };
    let (m1, s1) = at(refs[0]);
    let (m2, s2) = at(refs[1]);
    let scale = (s2.x - s1.x) / (m2.x - m1.x);
    s1 + (p - m1) * scale
}

/// Drags from `start` to `end` in small steps, as a hand would.
pub fn drag(h: &mut Harness<'_, EditorApp>, start: egui::Pos2, end: egui::Pos2) {
    h.hover_at(start);
    h.run();
    h.drag_at(start);
    h.run();
    for t in 1..=6 {
        h.hover_at(start.lerp(end, t as f32 / 6.0));
        h.run();
    }
    h.drop_at(end);
    h.run();
}
