//! The action panel: the situation, the selected box (its units and the actions about
//! it), and every legal action as a button, filtered by text and by kind so the long
//! march lists stay usable. All of it comes from `legal_actions` and `describe`.

use egui::Ui;
use muster_core::format::Sight;
use muster_core::game::{Action, Place, describe};
use muster_core::ids::{BoxId, UnitId};

use super::PlayCommand;
use super::session::{PlayerKind, Session};
use crate::command::UiCommand;

/// At most this many action buttons are drawn; the filter narrows the rest.
const MAX_SHOWN: usize = 400;

/// The panel's own widgets' state.
#[derive(Default)]
pub struct PanelState {
    pub filter: String,
    /// Only actions of this kind (see [`kind`]); all when `None`.
    pub kind: Option<&'static str>,
    /// The (turn, player turn) the filter was set in: a new turn starts unfiltered.
    pub set_in: Option<(u16, u8)>,
    /// A place step's recruits, in slots that do not move (see [`super::refusal`]).
    pub recruits: super::refusal::RecruitSlots,
}

/// An action's kind, as the filter buttons name it.
pub fn kind(a: &Action) -> &'static str {
    match a {
        Action::Select { .. } => "Activate",
        Action::Move { .. } => "Move",
        Action::Release => "End march",
        Action::Activate { .. } => "Activate",
        Action::PickUp { .. } => "Pick up",
        Action::DropOff { .. } => "Drop off",
        Action::Fight { .. } => "Fight",
        Action::Retreat { .. } => "Retreat",
        Action::Pass => "Pass",
        Action::Reinforce { .. } => "Reinforce",
        Action::Target { .. } => "Target",
        Action::Upgrade { .. } => "Promote",
        Action::Lose { .. } | Action::Absorb => "Take loss",
        Action::Place { .. } => "Recruit",
        Action::Take { .. } => "Offer",
        Action::Organize { .. } => "Organise",
        Action::Drop { .. } => "Leave garrison",
        Action::EndStep => "End segment",
    }
}

/// Whether `a` is about box `at` or a unit standing there.
fn concerns(session: &Session, a: &Action, at: BoxId) -> bool {
    let here = |u: &UnitId| session.state().unit(*u).place == Place::Board(at);
    match a {
        Action::Select { at: b } | Action::Fight { at: b } | Action::Place { at: b, .. } => {
            *b == at
        }
        Action::Upgrade { unit }
        | Action::Take {
            unit: Some(unit), ..
        } => here(unit),
        Action::Take {
            unit: None, at: b, ..
        } => *b == Some(at),
        _ => false,
    }
}

pub fn show(
    ui: &mut Ui,
    session: &mut Session,
    state: &mut PanelState,
    selected: Option<BoxId>,
    unit: Option<UnitId>,
    pick: &[Action],
    out: &mut Vec<UiCommand>,
) {
    let module = session.module().clone();
    let game = session.state().clone();
    ui.heading("Game");
    ui.label(describe::situation(&module, &game));
    let side = session.decider();
    let player = session.players()[side.index()];
    if session.outcome().is_none()
        && let Some(r) = session.referee()
    {
        // A referee's decision (an umpire's battle result): no side acts.
        let name = &module.seat(r.seat).name;
        ui.strong(format!(
            "To act: {name} ({})",
            super::dialog::seat_label(r.kind, true)
        ));
    } else if session.outcome().is_none() {
        ui.strong(format!(
            "To act: {} ({})",
            module.side(side).name,
            player.label()
        ));
    }
    let legal = match session.legal() {
        Ok(l) => l.to_vec(),
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("rules error: {e}"));
            return;
        }
    };
    let referee = session
        .referee()
        .map(|r| (module.seat(r.seat).name.clone(), r.kind));
    // A referee's decision is not the side's: its form (or the computer referee) takes it.
    let human = player == PlayerKind::Human && referee.is_none();
    if !pick.is_empty() {
        ui.separator();
        let to = pick.iter().find_map(|a| match a {
            Action::Move { path, .. } => Some(path.to()),
            Action::Take { at: Some(t), .. } => Some(*t),
            _ => None,
        });
        let units: Vec<UnitId> = pick
            .iter()
            .filter_map(|a| match a {
                Action::Move { unit, .. }
                | Action::Take {
                    unit: Some(unit), ..
                } => Some(*unit),
                _ => None,
            })
            .fold(Vec::new(), |mut v, u| {
                if !v.contains(&u) {
                    v.push(u);
                }
                v
            });
        if let (Some(from), Some(to), true) = (selected, to, units.len() > 1)
            && ui
                .button(format!("Move all here ({} units)", units.len()))
                .on_hover_text("each unit by its first legal path, one move after another")
                .clicked()
        {
            out.push(UiCommand::Play(PlayCommand::MoveAll { from, to }));
        }
        ui.strong("Several moves lead there; pick one:");
        for a in pick {
            if ui.button(describe::action(&module, &game, a)).clicked() {
                out.push(UiCommand::Play(PlayCommand::Act(a.clone())));
            }
        }
        if ui.button("Cancel move").clicked() {
            out.push(UiCommand::Play(PlayCommand::CancelPick));
        }
    }
    if let Some(at) = selected {
        ui.separator();
        ui.strong(describe::place(&module, at));
        // Only what the seat at the screen sees: a piece seen by side is named by
        // its side, pieces seen only as present are counted.
        // A formation's members in its box are shown in it, or with it not at all: a
        // count of unseen pieces must not tell what a hidden formation holds.
        let all: Vec<UnitId> = game
            .units_at(at)
            .filter(|&u| {
                session.sight(u) == Sight::Full
                    || crate::overlay::formation_top(&module, &game, u).is_none()
            })
            .collect();
        let units: Vec<UnitId> = all
            .iter()
            .copied()
            .filter(|&u| session.sight(u) == Sight::Full)
            .collect();
        let mut unseen: Vec<String> = Vec::new();
        for side in module.side_ids() {
            let n = all
                .iter()
                .filter(|&&u| session.sight(u) == Sight::Side && game.unit(u).side == side)
                .count();
            if n > 0 {
                unseen.push(format!("{}: {n} unseen", module.side(side).name));
            }
        }
        let present = all
            .iter()
            .filter(|&&u| session.sight(u) == Sight::Presence)
            .count();
        if present > 0 {
            let pieces = if present == 1 { "piece" } else { "pieces" };
            unseen.push(format!("{present} unseen {pieces} of unknown side"));
        }
        if units.is_empty() && unseen.is_empty() {
            ui.label("no units");
        }
        for line in unseen {
            ui.label(line);
        }
        // A box may hold dozens of units, and a port dozens of sea moves: this part
        // scrolls, so the full action list below stays on screen.
        egui::ScrollArea::vertical()
            .id_salt("play-box-units")
            // Half the panel at least: an opened army lists dozens of members.
            .max_height((ui.available_height() * 0.5).max(260.0))
            .show(ui, |ui| {
                // A formation is one row, opened on its members (see `formation`). The
                // side acting at the screen: the seat's, or the side on move's.
                let acting = session
                    .viewer()
                    .and_then(|v| module.seat(v.seat).side)
                    .unwrap_or(side);
                let seen = |u: UnitId| session.sight(u) == Sight::Full;
                let tree = super::formation::Tree {
                    module: &module,
                    game: &game,
                    at,
                    legal: &legal,
                    human,
                    side: acting,
                    shared: module.seats_of(acting).nth(1).is_some(),
                    chosen: unit,
                    seen: &seen,
                };
                for u in units.iter().copied().filter(|&u| tree.on_its_own(u)) {
                    tree.row(ui, u, true, out);
                }
                if human {
                    for a in legal.iter().filter(|a| concerns(session, a, at)) {
                        if ui.button(describe::action(&module, &game, a)).clicked() {
                            out.push(UiCommand::Play(PlayCommand::Act(a.clone())));
                        }
                    }
                }
            });
    }
    ui.separator();
    if !human {
        if session.outcome().is_none()
            && let Some((name, kind)) = &referee
        {
            ui.label(if *kind == PlayerKind::Human {
                format!("The {name} enters the result in the form beside the map.")
            } else {
                "The computer referee decides: by itself under AI auto, or press AI step.".into()
            });
        } else if session.outcome().is_none() {
            ui.label(if player == PlayerKind::ByFile {
                "The opponent by file is to act: their moves come with their turn file."
            } else {
                "A computer is to act: it plays by itself under AI auto, or press AI step."
            });
        }
        return;
    }
    let now = (game.turn.0, game.player);
    if state.set_in != Some(now) {
        // A filter is for the decision at hand, not the next turn's.
        state.filter.clear();
        state.kind = None;
        state.set_in = Some(now);
    }
    ui.horizontal(|ui| {
        let l = ui.label("Filter");
        ui.text_edit_singleline(&mut state.filter).labelled_by(l.id);
    });
    let mut kinds: Vec<(&'static str, usize)> = Vec::new();
    for a in &legal {
        match kinds.iter_mut().find(|k| k.0 == kind(a)) {
            Some(k) => k.1 += 1,
            None => kinds.push((kind(a), 1)),
        }
    }
    if state.kind.is_some_and(|k| !kinds.iter().any(|x| x.0 == k)) {
        state.kind = None;
    }
    ui.horizontal_wrapped(|ui| {
        if ui
            .selectable_label(state.kind.is_none(), format!("All ({})", legal.len()))
            .clicked()
        {
            state.kind = None;
        }
        for (k, n) in &kinds {
            if ui
                .selectable_label(state.kind == Some(k), format!("{k} ({n})"))
                .clicked()
            {
                state.kind = Some(k);
            }
        }
    });
    let needle = state.filter.trim().to_lowercase();
    // A place step's recruits are drawn in fixed slots (see `refusal`), not below.
    let slots = state.recruits.show(ui, session, &needle, state.kind, out);
    let legal: Vec<Action> = if slots.is_some() {
        legal
            .into_iter()
            .filter(|a| !matches!(a, Action::Place { .. }))
            .collect()
    } else {
        legal
    };
    let mut shown: Vec<(&Action, String)> = legal
        .iter()
        .filter(|a| state.kind.is_none_or(|k| kind(a) == k))
        .map(|a| (a, describe::action(&module, &game, a)))
        .filter(|(_, text)| needle.is_empty() || text.to_lowercase().contains(&needle))
        .collect();
    if shown.is_empty() && !legal.is_empty() && slots.is_none_or(|n| n == 0) {
        // Never hide every legal action: the player would be stuck.
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "No action matches the filter; all are shown.",
        );
        shown = legal
            .iter()
            .map(|a| (a, describe::action(&module, &game, a)))
            .collect();
    }
    egui::ScrollArea::vertical()
        .id_salt("play-actions-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (a, text) in shown.iter().take(MAX_SHOWN) {
                if ui.button(text.as_str()).clicked() {
                    out.push(UiCommand::Play(PlayCommand::Act((*a).clone())));
                }
            }
            if shown.len() > MAX_SHOWN {
                ui.label(format!(
                    "{} more: narrow the filter",
                    shown.len() - MAX_SHOWN
                ));
            }
        });
}
