//! The victory screen: who won, why and when; then a new game or back to the editor.

use muster_core::game::describe;

use super::PlayCommand;
use super::session::Session;
use crate::command::{Mode, UiCommand};

pub fn show(ctx: &egui::Context, session: &Session, out: &mut Vec<UiCommand>) {
    let Some(outcome) = session.outcome() else {
        return;
    };
    let module = session.module();
    let state = session.state();
    let winner = outcome
        .winner
        .map_or("Nobody wins: a draw".to_string(), |w| {
            format!("{} wins", module.side(w).name)
        });
    let turn = &module.calendar.turn(state.turn).label;
    egui::Modal::new(egui::Id::unique("victory")).show(ctx, |ui| {
        ui.heading("Game over");
        ui.label(winner);
        ui.label(outcome.reason.as_str());
        ui.label(format!(
            "{turn} (turn {}), after {} actions",
            state.turn.0 + 1,
            session.history().actions().len()
        ));
        ui.small(describe::situation(module, state));
        ui.horizontal(|ui| {
            if ui.button("New game").clicked() {
                out.push(UiCommand::Play(PlayCommand::OpenNewGame));
                out.push(UiCommand::Play(PlayCommand::CloseVictory));
            }
            if ui.button("Back to editor").clicked() {
                out.push(UiCommand::Play(PlayCommand::CloseVictory));
                out.push(UiCommand::SetMode(Mode::Edit));
            }
            if ui.button("Close").clicked() {
                out.push(UiCommand::Play(PlayCommand::CloseVictory));
            }
        });
    });
}
