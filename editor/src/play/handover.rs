//! The hand-over screen of a hot-seat game that hides something: between two human
//! seats it covers the whole play area, so nothing of one seat's view (board, panels,
//! log) is left for the next player to see, until that player says he is ready.

use egui::Ui;
use muster_core::Module;
use muster_core::ids::SeatId;

use super::PlayCommand;
use crate::command::UiCommand;

/// What the screen says: `Pass to the Confederacy player`.
pub fn message(module: &Module, seat: SeatId) -> String {
    format!("Pass to the {} player", module.seat(seat).name)
}

/// The button's text.
pub const READY: &str = "I am the player: show my view";

/// Draws the screen over the whole play area; its button lets `seat`'s view on.
pub fn show(ui: &mut Ui, module: &Module, seat: SeatId, out: &mut Vec<UiCommand>) {
    let fill = ui.visuals().extreme_bg_color;
    egui::CentralPanel::default()
        .frame(egui::Frame::new().fill(fill))
        .show(ui, |ui| {
            ui.vertical_centered(|ui| {
                ui.add_space(ui.available_height() * 0.35);
                ui.heading(message(module, seat));
                ui.add_space(8.0);
                ui.label("The board is hidden until the player at the screen is ready.");
                ui.add_space(16.0);
                if ui
                    .add(egui::Button::new(egui::RichText::new(READY).size(18.0)))
                    .clicked()
                {
                    out.push(UiCommand::Play(PlayCommand::TakeSeat(seat)));
                }
            });
        });
}
