//! The odds window: for the battle under way, or one that may be fought now, the ai
//! crate's battle simulator ([`muster_ai::odds`]) plays it many times from the current
//! state. A battle not yet begun is begun on a copy with the engine's own `apply`, so
//! no battle rule is repeated here.

use muster_ai::odds::{Config, OddsError, Report, Setup, simulate};
use muster_core::Module;
use muster_core::game::{Action, ActionError, GameState, Rules, apply};
use muster_core::ids::BoxId;

use super::session::Session;
use crate::command::UiCommand;

/// Battles played per estimate: enough for a percent or so, quick on the UI thread.
pub const RUNS: u64 = 2_000;
/// The simulator's dice seed: the same battle always shows the same numbers.
pub const SEED: u64 = 1;

#[derive(Debug, thiserror::Error)]
pub enum BattleOddsError {
    #[error(transparent)]
    Odds(#[from] OddsError),
    #[error("cannot begin the battle: {0}")]
    Action(#[from] ActionError),
}

/// The simulator's settings the window uses.
pub fn config() -> Config {
    Config {
        runs: RUNS,
        seed: SEED,
        ..Config::default()
    }
}

/// The odds of the battle at `at`: the one under way there, or else the one a
/// `Fight { at }` would begin now.
pub fn battle_odds(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    at: BoxId,
    config: &Config,
) -> Result<Report, BattleOddsError> {
    let under_way = battle_at(state).is_some_and(|b| b == at);
    let setup = if under_way {
        Setup::from_battle(module, state)?
    } else {
        let (begun, _) = apply(module, rules, state, &Action::Fight { at })?;
        Setup::from_battle(module, &begun)?
    };
    Ok(simulate(module, rules, &setup, config, None)?)
}

/// Where the battle under way is, if any.
pub fn battle_at(state: &GameState) -> Option<BoxId> {
    state
        .combat
        .as_ref()
        .and_then(|c| c.battle.as_ref())
        .map(|b| b.at)
}

/// The battle the window shows: the one under way, else the selected box's if it may
/// be fought, else the first that may be fought.
pub fn target(session: &mut Session, selected: Option<BoxId>) -> Option<BoxId> {
    if let Some(at) = battle_at(session.state()) {
        return Some(at);
    }
    let legal = session.legal().ok()?;
    let fights: Vec<BoxId> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Fight { at } => Some(*at),
            _ => None,
        })
        .collect();
    selected
        .filter(|s| fights.contains(s))
        .or_else(|| fights.first().copied())
}

/// Said instead of odds when some piece of the battle is hidden from the seat.
pub const HIDDEN_ODDS: &str = "odds not shown: some pieces there are unseen";

/// The window and its last estimate, kept until the position changes.
#[derive(Default)]
pub struct OddsView {
    /// (actions taken, last action, battle box) the estimate is for.
    key: Option<(usize, Option<Action>, BoxId)>,
    result: Option<Result<Report, String>>,
    /// The battle's losses are already known (the rules resolved it, or it is over):
    /// there are no odds to take, which is not an error.
    decided: bool,
}

impl OddsView {
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        session: &mut Session,
        selected: Option<BoxId>,
        _out: &mut Vec<UiCommand>,
    ) {
        let Some(at) = target(session, selected) else {
            return;
        };
        if !session.all_seen_at(at) {
            // No estimate from pieces the seat may not know.
            self.key = None;
            self.result = Some(Err(HIDDEN_ODDS.into()));
            let place = &session.module().board.get(at).name;
            egui::CollapsingHeader::new(egui::RichText::new("Battle odds").strong())
                .id_salt("play-odds")
                .default_open(true)
                .show(ui, |ui| {
                    ui.strong(format!("Battle at {place}"));
                    ui.label(HIDDEN_ODDS);
                });
            return;
        }
        let actions = session.history().actions();
        let key = (actions.len(), actions.last().cloned(), at);
        if self.key.as_ref() != Some(&key) {
            let module = session.module().clone();
            let state = session.state().clone();
            let rules = session.rules_mut();
            let result = battle_odds(&module, rules, &state, at, &config());
            // What the scripts printed while simulating is not part of the game.
            rules.take_output();
            self.decided = matches!(result, Err(BattleOddsError::Odds(OddsError::Decided)));
            self.result = Some(result.map_err(|e| e.to_string()));
            self.key = Some(key);
        }
        let module = session.module();
        let place = &module.board.get(at).name;
        egui::CollapsingHeader::new(egui::RichText::new("Battle odds").strong())
            .id_salt("play-odds")
            .default_open(true)
            .show(ui, |ui| {
                ui.strong(format!("Battle at {place}"));
                match &self.result {
                    Some(Ok(report)) => show_report(ui, module, report),
                    Some(Err(_)) if self.decided => {
                        ui.weak("decided: its losses are known, there are no odds to take");
                    }
                    Some(Err(e)) => {
                        ui.colored_label(ui.visuals().error_fg_color, e);
                    }
                    None => {}
                }
            });
    }
}

/// The numbers the window shows, one line each (also used by the tests).
pub fn lines(module: &Module, report: &Report) -> Vec<String> {
    let name = |id: &str| {
        module
            .find_side(id)
            .map_or(id.to_string(), |s| module.side(s).name.clone())
    };
    let (a, d) = (&report.attacker, &report.defender);
    let mut out = vec![
        format!("{} (attacker) wins {:.1}%", name(&a.side), a.win_pct),
        format!("{} (defender) wins {:.1}%", name(&d.side), d.win_pct),
    ];
    if report.withdrawals > 0 {
        out.push(format!(
            "withdrawn before combat {:.1}%",
            report.withdrawal_pct
        ));
    }
    for (role, s) in [("attacker", a), ("defender", d)] {
        for t in &s.units {
            out.push(format!(
                "{role} {} {}: {:.2} survive ({:.2} reduced)",
                t.count, t.kind, t.survivors, t.reduced
            ));
        }
    }
    out.push(format!("mean rounds {:.2}", report.mean_rounds));
    out
}

fn show_report(ui: &mut egui::Ui, module: &Module, report: &Report) {
    ui.label(format!("{} battles, seed {}", report.runs, report.seed));
    for line in lines(module, report) {
        ui.label(line);
    }
    let bars: Vec<egui_plot::Bar> = report
        .rounds
        .iter()
        .map(|r| egui_plot::Bar::new(f64::from(r.round), r.pct).width(0.8))
        .collect();
    egui_plot::Plot::new("odds-rounds")
        .height(100.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .x_axis_label("round the battle ended")
        .y_axis_label("% of battles")
        .show(ui, |plot| {
            plot.bar_chart(egui_plot::BarChart::new("rounds", bars));
        });
}
