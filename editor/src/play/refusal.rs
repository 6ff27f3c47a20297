//! Every refusal says why (issue 46, item 4): a click on a box the selected pieces may
//! not reach, an enemy a shot may not name, a recruit that has gone from the list: the
//! answer is the engine's `why_not` (its own check and the rules' handlers that said
//! no), never a reason made up here. Asked only on a click, and the recruit list's
//! reasons once per position, so playing costs nothing more. Also the recruit list in
//! stable slots, the lone target taken for the player, and who decides a battle.

use std::collections::VecDeque;

use egui::Ui;
use muster_core::game::battle::Battle;
use muster_core::game::why::{absent_placements, placeable_kinds};
use muster_core::game::{Action, Path, Step, describe, why_not};
use muster_core::ids::{BoxId, UnitId};

use super::PlayCommand;
use super::session::{PlayerKind, Session};
use crate::command::UiCommand;

/// Why `action` may not be taken now, in words (empty if it may).
pub fn why(session: &mut Session, action: &Action) -> String {
    let module = session.module().clone();
    let state = session.state().clone();
    match why_not(&module, session.rules_mut(), &state, action) {
        Ok(Some(r)) => r.to_string(),
        Ok(None) => format!(
            "'{}' is possible now",
            describe::action(&module, &state, action)
        ),
        Err(e) => format!("the rules failed saying why: {e}"),
    }
}

/// Why the pieces moving from `from` (only `unit`, if one is chosen) may not go to
/// `to`, the box just clicked, when a box's pieces are moving and `to` is none of their
/// destinations: the engine's refusal of the first such piece's move along the
/// shortest line of boxes there (the max-path check says when it is too long). `None`
/// when no box's pieces are moving.
pub fn map_click(
    session: &mut Session,
    from: Option<BoxId>,
    unit: Option<UnitId>,
    to: BoxId,
) -> Option<String> {
    let from = from?;
    if from == to || session.computer_to_act() {
        return None;
    }
    let active = session.state().moving.as_ref()?.active.as_ref()?;
    if active.at != from {
        return None;
    }
    let piece = match unit {
        Some(u) => u,
        None => *active.ready.first()?,
    };
    let module = session.module().clone();
    let Some(path) = shortest(&module, from, to) else {
        return Some(format!(
            "no line of the map leads from {} to {}",
            describe::place(&module, from),
            describe::place(&module, to)
        ));
    };
    Some(why(session, &Action::Move { unit: piece, path }))
}

/// The shortest path from `from` to `to` along the map's lines (fewest lines, the
/// first line found between two boxes), if any.
fn shortest(module: &muster_core::Module, from: BoxId, to: BoxId) -> Option<Path> {
    let n = module.board.boxes.len();
    let mut came: Vec<Option<(BoxId, Step)>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[from.index()] = true;
    let mut queue = VecDeque::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            break;
        }
        for &(next, line) in module.board.neighbours(at) {
            if !seen[next.index()] {
                seen[next.index()] = true;
                came[next.index()] = Some((at, Step { line, to: next }));
                queue.push_back(next);
            }
        }
    }
    let mut steps = Vec::new();
    let mut at = to;
    while at != from {
        let (prev, step) = came[at.index()]?;
        steps.push(step);
        at = prev;
    }
    steps.reverse();
    Some(Path { from, steps })
}

/// The only action of a human player's decision when it is a battle's single possible
/// target: taken for them (the game records it as any other).
pub fn lone_target(session: &mut Session) -> Option<Action> {
    if session.outcome().is_some()
        || session.referee().is_some()
        || session.players()[session.decider().index()] != PlayerKind::Human
    {
        return None;
    }
    match session.legal().ok()? {
        [only @ Action::Target { .. }] => Some(only.clone()),
        _ => None,
    }
}

/// Where the app keeps whether the player is asked for a lone target (a setting of
/// the app, in egui's memory, not part of the game).
fn ask_lone_target_id() -> egui::Id {
    egui::Id::unique("play-ask-lone-target")
}

/// Whether a battle's only possible target is taken for the player (the default).
pub fn takes_lone_target(ctx: &egui::Context) -> bool {
    !ctx.data(|d| d.get_temp::<bool>(ask_lone_target_id()).unwrap_or(false))
}

/// Sets whether a battle's only possible target is taken for the player (tests that
/// compare every decision with the engine's turn it off).
pub fn set_takes_lone_target(ctx: &egui::Context, take: bool) {
    ctx.data_mut(|d| d.insert_temp(ask_lone_target_id(), !take));
}

/// The setting, as a checkbox (in the battle window).
pub fn lone_target_setting(ui: &mut Ui) {
    let mut take = takes_lone_target(ui.ctx());
    if ui
        .checkbox(&mut take, "Take the only target for me")
        .on_hover_text("a shot that may name one enemy only names it without asking")
        .changed()
    {
        set_takes_lone_target(ui.ctx(), take);
    }
}

/// An enemy unit in the battle window that the shot may not name: a label that, when
/// clicked, asks why (the answer goes to the status line).
pub fn unnamed_target(
    ui: &mut Ui,
    text: String,
    shooter: Option<UnitId>,
    target: UnitId,
    enemy: bool,
    out: &mut Vec<UiCommand>,
) {
    match shooter {
        Some(shooter) if enemy => {
            let clicked = ui
                .add(egui::Label::new(text).sense(egui::Sense::click()))
                .on_hover_text("not a possible target now: click to see why")
                .clicked();
            if clicked {
                out.push(UiCommand::Play(PlayCommand::WhyNot(Action::Target {
                    shooter,
                    target,
                })));
            }
        }
        _ => {
            ui.label(text);
        }
    }
}

/// Where a battle stands, at the top of its window: the round and who fires while it
/// is fought; once decided, who won and what is left (a decided battle is not
/// "firing" any more).
pub fn battle_heading(ui: &mut Ui, module: &muster_core::Module, b: &Battle) {
    if b.winner.is_none() {
        ui.strong(format!("Round {}", b.round));
        ui.label(format!("{} firing", module.side(b.firing).name));
    } else {
        let status = describe::battle_status(module, b);
        let mut words = status.chars();
        let first = words.next().map(|c| c.to_uppercase().collect::<String>());
        ui.strong(format!("{}{}", first.unwrap_or_default(), words.as_str()));
    }
}

/// Who decides a battle when the player at the screen does not: the opponent by
/// file's choice comes with their file; a computer's with AI step.
pub fn who_decides(session: &Session) -> &'static str {
    match session.players()[session.decider().index()] {
        PlayerKind::ByFile => {
            "The opponent by file decides: their choice comes with their turn file."
        }
        _ => "A computer decides: press AI step, or tick AI auto.",
    }
}

/// The recruit list of a place step, in slots that do not move: every placement
/// offered when the step began keeps its place, and one no longer possible is shown
/// greyed with the engine's reason (so a third click lands where the player aimed);
/// above them, each type of the side that cannot be placed now, and why ("no Militia
/// Cavalry of Union is left in the pool"), before the step ends.
#[derive(Default)]
pub struct RecruitSlots {
    /// The step the slots are for: (turn, player turn, step, repetition).
    step: Option<(u16, u8, u8, u8)>,
    slots: Vec<Action>,
    /// The reasons, for the position after this many actions.
    worked_out: Option<usize>,
    gone: Vec<(Action, String)>,
    absent: Vec<String>,
}

impl RecruitSlots {
    /// Draws the list when the human to act is in a place step; returns how many slots
    /// it drew then (the caller leaves placements out of its own list), `None` in any
    /// other step.
    /// Only the slots whose words contain `needle` are drawn (the panel's filter,
    /// which the player types: it narrows the list, the clicks never reflow it), and
    /// none when the panel shows another kind of action than recruits.
    pub fn show(
        &mut self,
        ui: &mut Ui,
        session: &mut Session,
        needle: &str,
        kind: Option<&str>,
        out: &mut Vec<UiCommand>,
    ) -> Option<usize> {
        let module = session.module().clone();
        let state = session.state().clone();
        let placing = matches!(
            muster_core::game::flow::procedure(&module, &state),
            Some(muster_core::format::Procedure::Place)
        );
        if !placing || session.players()[session.decider().index()] != PlayerKind::Human {
            self.step = None;
            return None;
        }
        let Ok(legal) = session.legal().map(<[Action]>::to_vec) else {
            return None;
        };
        let now = (state.turn.0, state.player, state.step, state.repeat);
        if self.step != Some(now) {
            self.step = Some(now);
            self.slots = legal
                .iter()
                .filter(|a| matches!(a, Action::Place { .. }))
                .cloned()
                .collect();
            self.worked_out = None;
        }
        let actions = session.history().actions().len();
        if self.worked_out != Some(actions) {
            self.worked_out = Some(actions);
            self.gone = self
                .slots
                .iter()
                .filter(|a| !legal.contains(a))
                .map(|a| (a.clone(), why(session, a)))
                .collect();
            let kinds = placeable_kinds(&module, &state);
            self.absent = match absent_placements(&module, session.rules_mut(), &state, &kinds) {
                Ok(list) => list
                    .into_iter()
                    .map(|(k, r)| format!("{}: {}", module.units.get(k).name, r.engine))
                    .collect(),
                Err(e) => vec![format!("the rules failed saying why: {e}")],
            };
        }
        if kind.is_some_and(|k| k != "Recruit") {
            return Some(0);
        }
        for line in &self.absent {
            ui.weak(line);
        }
        egui::ScrollArea::vertical()
            .id_salt("play-recruit-slots")
            .max_height(300.0)
            .show(ui, |ui| {
                let mut drawn = 0;
                for a in &self.slots {
                    let text = describe::action(&module, &state, a);
                    if !needle.is_empty() && !text.to_lowercase().contains(needle) {
                        continue;
                    }
                    drawn += 1;
                    match self.gone.iter().find(|(g, _)| g == a) {
                        Some((_, reason)) => {
                            ui.add_enabled(false, egui::Button::new(text))
                                .on_disabled_hover_text(reason);
                        }
                        None => {
                            if ui.button(text).clicked() {
                                out.push(UiCommand::Play(PlayCommand::Act(a.clone())));
                            }
                        }
                    }
                }
                drawn
            })
            .inner
            .into()
    }
}
