//! The play mode's toolbar: new game, undo, the computers' controls, the odds window,
//! and saving or loading a game by the typed path or through the file dialog.

use std::path::PathBuf;

use egui::Ui;

use super::{Play, PlayCommand};
use crate::command::Command;

pub fn show(ui: &mut Ui, play: &mut Play, out: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        if ui.button("New game").clicked() {
            out.push(Command::Play(PlayCommand::OpenNewGame));
        }
        let session = play.session();
        let can_undo = session.is_some_and(|s| s.history().can_undo());
        if ui
            .add_enabled(can_undo, egui::Button::new("Undo move"))
            .clicked()
        {
            out.push(Command::Play(PlayCommand::Undo));
        }
        let computer = session.is_some_and(|s| s.computer_to_act());
        if ui
            .add_enabled(computer, egui::Button::new("AI step"))
            .clicked()
        {
            out.push(Command::Play(PlayCommand::AiStep));
        }
        let mut auto = play.auto;
        if ui.checkbox(&mut auto, "AI auto").changed() {
            out.push(Command::Play(PlayCommand::SetAuto(auto)));
        }
        let mut delay = play.ai_delay;
        let slider = egui::Slider::new(&mut delay, 0.0..=super::pace::MAX_DELAY)
            .text("AI delay")
            .suffix(" s")
            .step_by(0.05);
        if ui
            .add(slider)
            .on_hover_text("seconds between computer actions under AI auto")
            .changed()
        {
            out.push(Command::Play(PlayCommand::SetAiDelay(delay)));
        }
        let mut eval = play.show_eval;
        if ui
            .checkbox(&mut eval, "Evaluation")
            .on_hover_text("after a computer's turn, show how the ai crate rates the position")
            .changed()
        {
            out.push(Command::Play(PlayCommand::ShowEvaluation(eval)));
        }
        let mut odds = play.show_odds;
        if ui.checkbox(&mut odds, "Odds").changed() {
            out.push(Command::Play(PlayCommand::ShowOdds(odds)));
        }
        ui.separator();
        let l = ui.label("Game file");
        ui.add(egui::TextEdit::singleline(&mut play.game_path).desired_width(200.0))
            .labelled_by(l.id);
        let path = PathBuf::from(play.game_path.trim());
        let has_path = !play.game_path.trim().is_empty();
        if ui
            .add_enabled(
                has_path && play.session.is_some(),
                egui::Button::new("Save game"),
            )
            .clicked()
        {
            out.push(Command::SaveGame(path.clone()));
        }
        if ui
            .add_enabled(has_path, egui::Button::new("Load game"))
            .clicked()
        {
            out.push(Command::LoadGame(path));
        }
        // The same through the file dialog (native where there is one).
        if ui
            .add_enabled(play.session.is_some(), egui::Button::new("Save game as…"))
            .clicked()
        {
            out.push(Command::SaveGameDialog);
        }
        if ui.button("Load game…").clicked() {
            out.push(Command::LoadGameDialog);
        }
        if play.stale
            && ui
                .button("Restart with new rules")
                .on_hover_text("the game could not be replayed on the changed module")
                .clicked()
        {
            out.push(Command::Play(PlayCommand::RestartWithNewRules));
        }
        if let (Some((side, elapsed)), Some(s)) = (play.thinking(), play.session()) {
            ui.separator();
            ui.spinner();
            let name = s.module().sides.get(side).map_or("?", |s| s.name.as_str());
            let kind = s.players().get(side).map_or("", |k| k.label());
            ui.strong(format!(
                "{name} ({kind}) thinking… {:.1} s",
                elapsed.as_secs_f32()
            ));
        }
        if !play.status.is_empty() {
            ui.separator();
            // A long message is cut to one line (hover for all of it), so it never
            // makes the toolbar taller and the map smaller.
            ui.add(egui::Label::new(play.status.as_str()).truncate())
                .on_hover_text(play.status.as_str());
        }
    });
}
