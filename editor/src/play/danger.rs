//! The danger warning: each victory condition a side could meet on its next player turn,
//! as the rules' `victory_threats` hint words it, with the boxes that would do it (ringed
//! on the map too). Never a rule: the game still ends by the rules' events.

use egui::{Color32, RichText, Ui};
use muster_core::Module;
use muster_core::game::rules::Threat;

/// The warning's colour: the map's danger rings are drawn in it too.
pub const DANGER: Color32 = Color32::from_rgb(220, 50, 40);

/// The warning's lines, one per threat: "Danger (Confederacy): If Philadelphia and
/// Scranton fall, …" (also read by the tests).
pub fn lines(module: &Module, threats: &[Threat]) -> Vec<String> {
    threats
        .iter()
        .map(|t| format!("Danger ({}): {}", module.side(t.side).name, t.text))
        .collect()
}

/// Draws the warning, a strip across the window under the banner; nothing when no
/// threat is given.
pub fn show(ui: &mut Ui, module: &Module, threats: &[Threat]) {
    if threats.is_empty() {
        return;
    }
    egui::Frame::new()
        .stroke(egui::Stroke::new(2.0, DANGER))
        .inner_margin(4.0)
        .corner_radius(3.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new("Defeat could come next turn")
                        .strong()
                        .color(DANGER),
                );
                ui.weak("(its boxes ringed in red on the map)");
            });
            for line in lines(module, threats) {
                ui.label(line);
            }
        });
}
