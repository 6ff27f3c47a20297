//! The start screen the app opens on: a new game against the computer, a new game with
//! the players chosen, a saved game, a game by file, or the module's editor. It only emits commands;
//! the same commands the mode bar and the play toolbar emit.

use egui::Ui;

use crate::command::{Mode, UiCommand};
use crate::play::PlayCommand;

/// Draws the start screen for the module called `module` (`None`: it does not load,
/// and `why` says why) and pushes what the user chose.
pub fn show(ui: &mut Ui, module: Option<&str>, why: Option<&str>, out: &mut Vec<UiCommand>) {
    egui::CentralPanel::default().show(ui, |ui| {
        ui.vertical_centered(|ui| {
            ui.add_space(ui.available_height() * 0.15);
            ui.heading("muster");
            match module {
                Some(name) => ui.label(format!("Module: {name}")),
                None => ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!("The module does not load: {}", why.unwrap_or("?")),
                ),
            };
            ui.add_space(16.0);
            let size = egui::vec2(320.0, 36.0);
            let playable = module.is_some();
            if ui
                .add_enabled(
                    playable,
                    egui::Button::new("New game against the computer").min_size(size),
                )
                .clicked()
            {
                out.push(UiCommand::SetMode(Mode::Play));
                out.push(UiCommand::Play(PlayCommand::OpenNewGameVsComputer));
            }
            if ui
                .add_enabled(
                    playable,
                    egui::Button::new("New game, players of your choice").min_size(size),
                )
                .clicked()
            {
                out.push(UiCommand::SetMode(Mode::Play));
            }
            if ui
                .add_enabled(
                    playable,
                    egui::Button::new("Open a saved game…").min_size(size),
                )
                .clicked()
            {
                out.push(UiCommand::SetMode(Mode::Play));
                out.push(UiCommand::Play(PlayCommand::CancelNewGame));
                out.push(UiCommand::LoadGameDialog);
            }
            if ui
                .add_enabled(
                    playable,
                    egui::Button::new("Play by file (e-mail)…").min_size(size),
                )
                .on_hover_text("a game against a person elsewhere: you exchange turn files")
                .clicked()
            {
                out.push(UiCommand::SetMode(Mode::Play));
                out.push(UiCommand::Play(PlayCommand::CancelNewGame));
                out.push(UiCommand::Play(PlayCommand::OpenByFile));
            }
            if ui
                .add(egui::Button::new("Edit the module").min_size(size))
                .clicked()
            {
                out.push(UiCommand::SetMode(Mode::Edit));
            }
            if ui
                .add(egui::Button::new("Open another module…").min_size(size))
                .clicked()
            {
                out.push(UiCommand::OpenModuleDialog);
            }
        });
    });
}
