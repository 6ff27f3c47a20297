//! The banner over the play view: turn, side to move, segment, marches left, each
//! side's army maximum and the recruitment points left, each a field of its own (one
//! label each, so a screen reader and the tests find them by their text). Everything
//! is read from the engine's state; nothing is worked out here.

use egui::Ui;
use muster_core::Module;
use muster_core::format::SegmentKind;
use muster_core::game::GameState;
use muster_core::game::flow::segment_kind;

/// The banner's fields, in order, as shown (also used by the tests).
pub fn fields(module: &Module, state: &GameState) -> Vec<String> {
    let turn = &module.calendar.turn(state.turn).label;
    let mut out = vec![format!("Turn: {turn} (turn {})", state.turn.0 + 1)];
    if let Some(o) = &state.outcome {
        let who = o.winner.map_or("a draw".to_string(), |w| {
            format!("{} won", module.side(w).name)
        });
        out.push(format!("Game ended: {who}"));
    } else {
        let side = &module.side(state.active_side(module)).name;
        out.push(format!("Side: {side}"));
        let segment = module
            .calendar
            .segments
            .get(usize::from(state.segment))
            .map_or("-", |s| s.name.as_str());
        out.push(format!("Segment: {segment}"));
        if let Some(m) = &state.march {
            out.push(format!("Marches left: {}", m.left));
        }
        if segment_kind(module, state) == Some(SegmentKind::Recruitment) {
            out.push(format!("Recruitment points: {}", state.budget));
        }
    }
    for s in module.side_ids() {
        out.push(format!(
            "{} army maximum: {}",
            module.side(s).name,
            state.army_maximum(module, s)
        ));
    }
    out
}

pub fn show(ui: &mut Ui, module: &Module, state: &GameState) {
    ui.horizontal_wrapped(|ui| {
        for field in fields(module, state) {
            ui.group(|ui| ui.strong(field));
        }
    });
}
