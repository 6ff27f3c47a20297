//! What the computer did on its turn, so a human sees it: its marches (arrows on the
//! map), the battles it fought, the boxes that changed hands, the actions in words, and
//! optionally the `ai` crate's evaluation of the position it left. Built from the
//! actions the engine applied and the states around them; nothing is worked out here
//! that the engine did not decide.

use muster_core::Module;
use muster_core::game::{Action, GameState, Place, describe};
use muster_core::ids::{BoxId, SideId};

/// One computer side's run of actions between two human decisions.
#[derive(Clone, Debug, Default)]
pub struct ComputerTurn {
    /// The side that acted (the first computer of the run).
    pub side: Option<SideId>,
    /// Who controlled each box before the run.
    control_before: Vec<Option<SideId>>,
    /// Marches: (from, to) boxes, one per unit moved, in order.
    pub marches: Vec<(BoxId, BoxId)>,
    /// Boxes where the computer began a battle.
    pub battles: Vec<BoxId>,
    /// The actions, in words.
    pub lines: Vec<String>,
    /// Boxes whose controller changed during the run: (box, before, after).
    pub captures: Vec<(BoxId, Option<SideId>, Option<SideId>)>,
    /// The `ai` crate's evaluation of the position for `side`, when asked for.
    pub evaluation: Option<f64>,
    /// The run is over (a human is to act, or the game ended).
    pub finished: bool,
    /// The summary window was closed.
    pub dismissed: bool,
}

impl ComputerTurn {
    /// Whether there is anything to show.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Records `action`, taken by `side` in `before`; `after` is the state it led to.
    /// A new run starts when the last one is finished or another side acts.
    pub fn record(
        &mut self,
        module: &Module,
        side: SideId,
        before: &GameState,
        action: &Action,
        after: &GameState,
    ) {
        if self.finished || self.side.is_some_and(|s| s != side) || self.side.is_none() {
            *self = ComputerTurn {
                side: Some(side),
                control_before: module
                    .board
                    .box_ids()
                    .map(|b| before.controller(b))
                    .collect(),
                ..ComputerTurn::default()
            };
        }
        match action {
            Action::Move { unit, path } => {
                if let Place::Board(from) = before.unit(*unit).place
                    && from != path.to()
                {
                    self.marches.push((from, path.to()));
                }
            }
            Action::Take {
                unit: Some(unit),
                at: Some(to),
                ..
            } => {
                if let Place::Board(from) = before.unit(*unit).place
                    && from != *to
                {
                    self.marches.push((from, *to));
                }
            }
            Action::Fight { at } if !self.battles.contains(at) => self.battles.push(*at),
            _ => {}
        }
        self.lines.push(describe::action(module, before, action));
        self.captures = module
            .board
            .box_ids()
            .zip(&self.control_before)
            .filter(|(b, was)| after.controller(*b) != **was)
            .map(|(b, was)| (b, *was, after.controller(b)))
            .collect();
    }

    /// The run is over: a human decides now.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// The summary in sentences a player reads at a glance, one line each: what the
    /// side did in all, where it marched (each road once, with how many pieces), where it
    /// fought, and the boxes that changed hands.
    pub fn summary(&self, module: &Module) -> Vec<String> {
        let mut out = Vec::new();
        let who = self.side.map_or("The computer".to_string(), |s| {
            format!("The {}", module.side(s).name)
        });
        let marched = self.marches.len();
        let battles = self.battles.len();
        out.push(format!(
            "{who} took {} action{}: {marched} piece{} marched, {battles} battle{}.",
            self.lines.len(),
            plural(self.lines.len()),
            plural(marched),
            plural(battles),
        ));
        let mut routes: Vec<((BoxId, BoxId), usize)> = Vec::new();
        for &m in &self.marches {
            match routes.iter_mut().find(|(r, _)| *r == m) {
                Some((_, n)) => *n += 1,
                None => routes.push((m, 1)),
            }
        }
        for ((from, to), n) in routes {
            out.push(format!(
                "Marched {n} piece{} from {} to {}.",
                plural(n),
                describe::place(module, from),
                describe::place(module, to)
            ));
        }
        for &at in &self.battles {
            out.push(format!(
                "Fought a battle at {}.",
                describe::place(module, at)
            ));
        }
        for &(at, was, now) in &self.captures {
            let place = describe::place(module, at);
            out.push(match (was, now) {
                (Some(w), Some(n)) => format!(
                    "The {} took {place} from the {}.",
                    module.side(n).name,
                    module.side(w).name
                ),
                (None, Some(n)) => format!("The {} took {place}.", module.side(n).name),
                (Some(w), None) => format!("The {} lost {place}.", module.side(w).name),
                (None, None) => format!("{place} changed hands."),
            });
        }
        out
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The height of the summary's scrolled part, in points (seven or so lines).
const REPORT_HEIGHT: f32 = 130.0;

/// Whether the summary of the computer's last turn is on screen.
pub fn visible(turn: &ComputerTurn) -> bool {
    turn.side.is_some() && turn.finished && !turn.dismissed && !turn.is_empty()
}

/// The dock's section that tells a human what the computer just did.
pub fn show(
    ui: &mut egui::Ui,
    module: &Module,
    turn: &ComputerTurn,
    out: &mut Vec<crate::command::UiCommand>,
) {
    let Some(side) = turn.side else { return };
    if !turn.finished || turn.dismissed || turn.is_empty() {
        return;
    }
    let title = format!("{}'s turn (computer)", module.side(side).name);
    egui::CollapsingHeader::new(egui::RichText::new(title).strong())
        .id_salt("computer-turn")
        .default_open(true)
        .show(ui, |ui| {
            let mut lines = turn.summary(module).into_iter();
            if let Some(first) = lines.next() {
                ui.label(first);
            }
            // The marches, battles and captures scroll within the dock, so the battle and
            // its odds stay in sight beside them.
            egui::ScrollArea::vertical()
                .id_salt("computer-turn-summary")
                .max_height(REPORT_HEIGHT)
                .show(ui, |ui| {
                    for line in lines {
                        ui.label(line);
                    }
                });
            if let Some(v) = turn.evaluation {
                ui.label(format!(
                    "Computer's evaluation for the {}: {v:+.1}",
                    module.side(side).name
                ))
                .on_hover_text(
                    "the ai crate's evaluation: box worth held, tallies and steps on the board, \
                     less the enemy's (positive: the computer thinks it is ahead)",
                );
            }
            egui::CollapsingHeader::new("Actions")
                .id_salt("computer-turn-actions")
                .show(ui, |ui| {
                    egui::ScrollArea::vertical()
                        .max_height(200.0)
                        .show(ui, |ui| {
                            for l in &turn.lines {
                                ui.small(l);
                            }
                        });
                });
            if ui.button("Close summary").clicked() {
                out.push(crate::command::UiCommand::Play(
                    super::PlayCommand::CloseTurnSummary,
                ));
            }
        });
}
