//! The play mode's toolbar: new game, undo, the computers' controls, the odds window,
//! saving or loading a game by the typed path or through the file dialog, and the
//! position saved as a scenario.

use std::path::PathBuf;

use egui::Ui;
use muster_core::game::{Action, describe};

use super::{Play, PlayCommand, Session};
use crate::command::UiCommand;

/// Draws the toolbar: one row that never wraps. When the whole row (as last measured
/// unfolded) is wider than the window, the new games, the game's files and the
/// computers' settings fold into the "File" and "Options" menus, so nothing runs off a
/// 1280-wide screen; the decisions, undo and the computers' controls stay in the row.
pub fn show(ui: &mut Ui, play: &mut Play, out: &mut Vec<UiCommand>) {
    let narrow = ui.available_width() < play.toolbar_width;
    // One row that never wraps: the map below keeps its place whatever is offered.
    let row = ui.horizontal(|ui| {
        enders(ui, play, out);
        // Another human seat the game waits for too (two seats of a side sharing a
        // turn, a sealed choice): the one at the screen may hand over first.
        if let Some(v) = play.session().and_then(Session::viewer) {
            let module = play.session().map(|s| s.module().clone());
            for &seat in &v.others {
                let name = module.as_ref().map_or("", |m| m.seat(seat).name.as_str());
                if ui
                    .button(format!("Hand over to {name}"))
                    .on_hover_text(
                        "another player the game waits for acts now, behind the hand-over screen",
                    )
                    .clicked()
                {
                    out.push(UiCommand::Play(PlayCommand::HandTo(seat)));
                }
            }
        }
        if narrow {
            ui.menu_button("File", |ui| games(ui, play, out, true));
        } else {
            games(ui, play, out, false);
        }
        let session = play.session();
        let can_undo = session.is_some_and(Session::can_undo);
        if ui
            .add_enabled(can_undo, egui::Button::new("Undo move"))
            .clicked()
        {
            out.push(UiCommand::Play(PlayCommand::Undo));
        }
        let computer = session.is_some_and(|s| s.computer_to_act());
        if ui
            .add_enabled(computer, egui::Button::new("AI step"))
            .clicked()
        {
            out.push(UiCommand::Play(PlayCommand::AiStep));
        }
        let mut auto = play.auto;
        if ui.checkbox(&mut auto, "AI auto").changed() {
            out.push(UiCommand::Play(PlayCommand::SetAuto(auto)));
        }
        if narrow {
            ui.menu_button("Options", |ui| settings(ui, play, out));
        } else {
            settings(ui, play, out);
            ui.separator();
            files(ui, play, out, false);
        }
        if play.stale
            && ui
                .button("Restart with new rules")
                .on_hover_text("the game could not be replayed on the changed module")
                .clicked()
        {
            out.push(UiCommand::Play(PlayCommand::RestartWithNewRules));
        }
    });
    if !narrow {
        // The row's width with everything in it, clipped or not.
        play.toolbar_width = row.response.rect.width() + ui.spacing().item_spacing.x;
    }
    // The computer's thinking shows on the status line, not in the row: the row's width
    // (and so whether it folds) never changes while a computer thinks.
    ui.horizontal(|ui| {
        if let (Some((side, elapsed)), Some(s)) = (play.thinking(), play.session()) {
            ui.spinner();
            let name = s.module().sides.get(side).map_or("?", |s| s.name.as_str());
            let kind = s.players().get(side).map_or("", |k| k.label());
            ui.strong(format!(
                "{name} ({kind}) thinking… {:.1} s",
                elapsed.as_secs_f32()
            ));
            ui.separator();
        }
        status_line(ui, &play.status);
    });
}

/// New games; folded into the "File" menu with the files when the window is narrow.
fn games(ui: &mut Ui, play: &mut Play, out: &mut Vec<UiCommand>, folded: bool) {
    if ui.button("New game").clicked() {
        out.push(UiCommand::Play(PlayCommand::OpenNewGame));
    }
    if ui
        .button("By file…")
        .on_hover_text("play against a person elsewhere by exchanging turn files")
        .clicked()
    {
        out.push(UiCommand::Play(PlayCommand::OpenByFile));
    }
    if folded {
        ui.separator();
        files(ui, play, out, true);
    }
}

/// The computers' pace, their evaluation and the odds.
fn settings(ui: &mut Ui, play: &mut Play, out: &mut Vec<UiCommand>) {
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
        out.push(UiCommand::Play(PlayCommand::SetAiDelay(delay)));
    }
    let mut eval = play.show_eval;
    if ui
        .checkbox(&mut eval, "Evaluation")
        .on_hover_text("after a computer's turn, show how the ai crate rates the position")
        .changed()
    {
        out.push(UiCommand::Play(PlayCommand::ShowEvaluation(eval)));
    }
    let mut odds = play.show_odds;
    if ui.checkbox(&mut odds, "Odds").changed() {
        out.push(UiCommand::Play(PlayCommand::ShowOdds(odds)));
    }
}

/// Saving and loading by the typed name (in the games folder unless a full path) or
/// through the file dialog.
fn files(ui: &mut Ui, play: &mut Play, out: &mut Vec<UiCommand>, folded: bool) {
    let games = play.games_dir.display().to_string();
    let l = ui.label("Game file");
    ui.add(egui::TextEdit::singleline(&mut play.game_path).desired_width(110.0))
        .labelled_by(l.id)
        .on_hover_text(format!("a name is saved in the games folder, {games}"));
    let path = PathBuf::from(play.game_path.trim());
    let has_path = !play.game_path.trim().is_empty();
    if ui
        .add_enabled(
            has_path && play.session.is_some(),
            egui::Button::new("Save game"),
        )
        .on_hover_text(format!("into {games}"))
        .clicked()
    {
        out.push(UiCommand::SaveGame(path.clone()));
        if folded {
            ui.close();
        }
    }
    if ui
        .add_enabled(has_path, egui::Button::new("Load game"))
        .clicked()
    {
        out.push(UiCommand::LoadGame(path));
        if folded {
            ui.close();
        }
    }
    // The same through the file dialog (native where there is one).
    if ui
        .add_enabled(play.session.is_some(), egui::Button::new("Save game as…"))
        .clicked()
    {
        out.push(UiCommand::SaveGameDialog);
        if folded {
            ui.close();
        }
    }
    if ui.button("Load game…").clicked() {
        out.push(UiCommand::LoadGameDialog);
        if folded {
            ui.close();
        }
    }
    // A scenario author's way from a game to a scenario (issue 49).
    if ui
        .add_enabled(
            play.session.is_some(),
            egui::Button::new("Save as scenario…"),
        )
        .on_hover_text("save this position as a new scenario, a mod of its own")
        .clicked()
    {
        out.push(UiCommand::PositionAsScenario);
        if folded {
            ui.close();
        }
    }
}

/// The status message on a line of its own, always there and cut to one line (hover
/// for all of it): a long message never makes the toolbar taller and the map smaller.
pub fn status_line(ui: &mut Ui, status: &str) {
    let line = if status.is_empty() { " " } else { status };
    ui.add(egui::Label::new(line).truncate())
        .on_hover_text(status);
}

/// The legal actions that end a march or the segment, first in the toolbar so they are
/// always in the same place (the Xvfb run clicks there): the segment's end first.
fn enders(ui: &mut Ui, play: &mut Play, out: &mut Vec<UiCommand>) {
    let Some(session) = play.session.as_mut() else {
        return;
    };
    let human = session.players()[session.decider().index()] == super::PlayerKind::Human;
    let Ok(legal) = session.legal() else { return };
    let mut enders: Vec<Action> = legal
        .iter()
        .filter(|a| human && matches!(a, Action::Release | Action::EndStep))
        .cloned()
        .collect();
    enders.sort_by_key(|a| !matches!(a, Action::EndStep));
    for a in enders {
        let text = describe::action(session.module(), session.state(), &a);
        if ui
            .button(super::panel::kind(&a))
            .on_hover_text(text)
            .clicked()
        {
            out.push(UiCommand::Play(PlayCommand::Act(a)));
        }
    }
}
