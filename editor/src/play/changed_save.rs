//! A save whose module changed since it was played (issue 17 item 2): the engine
//! refuses to replay it as it was; the app offers to replay it "as far as it goes" under
//! the new rules, then says which action stopped it, if one did.

use std::path::PathBuf;

use crate::command::UiCommand;

use super::PlayCommand;

/// The question about `changed` (the save and why it was refused), or the report of
/// the replay (`replayed`), as modals.
pub fn show(
    ctx: &egui::Context,
    changed: Option<&(PathBuf, String)>,
    replayed: Option<&[String]>,
    out: &mut Vec<UiCommand>,
) {
    if let Some((path, why)) = changed {
        egui::Modal::new(egui::Id::unique("changed-save")).show(ctx, |ui| {
            ui.heading("The module changed since this game was saved");
            ui.label(format!("{}: {why}", path.display()));
            ui.label(
                "Its actions can be replayed under the rules as they are now, as far as they \
                 still apply; the game then goes on from the last one that does. The save \
                 itself is not changed.",
            );
            ui.horizontal(|ui| {
                if ui.button("Replay as far as it goes").clicked() {
                    out.push(UiCommand::Play(PlayCommand::LoadAsFarAsItGoes(
                        path.clone(),
                    )));
                }
                if ui.button("Keep the game under way").clicked() {
                    out.push(UiCommand::Play(PlayCommand::DismissChangedSave));
                }
            });
        });
    } else if let Some(lines) = replayed {
        egui::Modal::new(egui::Id::unique("replay-report")).show(ctx, |ui| {
            ui.heading("Replayed as far as it goes");
            for line in lines {
                ui.label(line);
            }
            if lines.is_empty() {
                ui.label("Every action still applies.");
            }
            if ui.button("OK").clicked() {
                out.push(UiCommand::Play(PlayCommand::CloseReplayReport));
            }
        });
    }
}
