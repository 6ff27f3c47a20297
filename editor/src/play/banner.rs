//! The banner over the play view: turn, side to move, step, the mover's resources (the
//! one the step spends, and any other it holds), each side's tallies (AHD: army
//! maximum), the rules' count of how near each side is to winning (`victory_progress`),
//! and the mods in play when the module is one laid on a base, each a field
//! of its own (one label each, so a screen reader and the tests find them by their
//! text). Everything is read from the engine's state; nothing is worked out here.

use egui::Ui;
use muster_core::Module;
use muster_core::game::GameState;
use muster_core::game::rules::Progress;

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
        let step = state.current_step(module);
        let word = module.calendar.words.say(|w| &w.step, "step", &[]);
        let mut word = word.chars();
        let word: String = word
            .next()
            .map(|c| c.to_uppercase().chain(word).collect())
            .unwrap_or_default();
        out.push(format!("{word}: {}", step.map_or("-", |s| s.name.as_str())));
        let me = state.active_side(module);
        for (i, r) in module.resources.iter().enumerate() {
            let id = muster_core::ids::ResourceId::from_index(i).unwrap_or_default();
            let v = state.resource(me, id);
            if v != 0 || step.and_then(|s| s.spends) == Some(id) {
                out.push(format!("{}: {v}", r.name));
            }
        }
    }
    for t in module.tally_ids() {
        for s in module.side_ids() {
            out.push(format!(
                "{} {}: {}",
                module.side(s).name,
                module.tally(t).name,
                state.tally(module, t, s)
            ));
        }
    }
    // The race the tallies run (AHD 10.0: the army maxima), always in view.
    for t in module.tally_ids() {
        if let Some(field) = race(module, state, t) {
            out.push(field);
        }
    }
    if let Some(field) = mods_in_play(module) {
        out.push(field);
    }
    out
}

/// `army maximum: Union leads by 5` (or `level`): the tally's leader and margin.
fn race(module: &Module, state: &GameState, t: muster_core::ids::TallyId) -> Option<String> {
    let mut values: Vec<(u32, &str)> = module
        .side_ids()
        .map(|s| (state.tally(module, t, s), module.side(s).name.as_str()))
        .collect();
    if values.len() < 2 {
        return None;
    }
    values.sort_by_key(|v| std::cmp::Reverse(v.0));
    let name = &module.tally(t).name;
    Some(if values[0].0 == values[1].0 {
        format!("{name}: level")
    } else {
        format!(
            "{name}: {} leads by {}",
            values[0].1,
            values[0].0 - values[1].0
        )
    })
}

/// `Mods: ahd-triplea 0.1.0 on ahd 0.1.0`: the modules laid on the base, in load
/// order; nothing for a module played alone.
fn mods_in_play(module: &Module) -> Option<String> {
    let (base, mods) = module.stack.split_first()?;
    if mods.is_empty() {
        return None;
    }
    let mods: Vec<String> = mods
        .iter()
        .map(|m| format!("{} {}", m.id, m.version))
        .collect();
    Some(format!(
        "Mods: {} on {} {}",
        mods.join(", "),
        base.id,
        base.version
    ))
}

/// Each side's victory conditions and how near it is, as the rules count them
/// (`victory_progress`): `Union: the seven key Confederate cities held (10.0): 2 of 7`.
pub fn progress_fields(module: &Module, progress: &[Progress]) -> Vec<String> {
    progress
        .iter()
        .map(|p| {
            format!(
                "{}: {}: {} of {}",
                module.side(p.side).name,
                p.goal,
                p.have,
                p.need
            )
        })
        .collect()
}

pub fn show(ui: &mut Ui, module: &Module, state: &GameState, progress: &[Progress]) {
    ui.horizontal_wrapped(|ui| {
        for field in fields(module, state) {
            ui.group(|ui| ui.strong(field));
        }
    });
    if !progress.is_empty() && state.outcome.is_none() {
        ui.horizontal_wrapped(|ui| {
            ui.label("To win:");
            for (p, field) in progress.iter().zip(progress_fields(module, progress)) {
                // A condition one step from being met (or met) stands out.
                let near = p.have >= p.need || (p.need > 1.0 && p.need - p.have <= 1.0);
                let text = egui::RichText::new(field);
                ui.label(if near {
                    text.strong().color(ui.visuals().warn_fg_color)
                } else {
                    text
                });
                ui.separator();
            }
        });
    }
}
