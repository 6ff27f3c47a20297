//! The play client: a game of the edited module, played on the same map view.
//!
//! [`Play`] holds the UI's side of a game (the selected box and unit, the dialogs) and
//! the [`Session`]; the panels only read it and push [`PlayCommand`]s, which the app
//! hands back to [`Play::apply`] at the end of the frame. Every action offered comes
//! from the engine's `legal_actions`; the UI never decides what is legal.

pub mod banner;
pub mod battle;
pub mod by_file;
pub mod changed_save;
pub mod danger;
pub mod dialog;
pub mod entry;
pub mod formation;
pub mod handover;
pub mod hot;
pub mod hover_odds;
pub mod log;
pub mod odds;
pub mod pace;
pub mod panel;
pub mod refusal;
pub mod report;
pub mod session;
pub mod table;
pub mod thinker;
pub mod toolbar;
pub mod victory;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui::Ui;
use muster_core::Module;
use muster_core::game::{Action, Place};
use muster_core::ids::{BoxId, SeatId, UnitId};

use crate::box_index::BoxIndex;
use crate::command::{Selection, Tool, UiCommand};
use crate::map_data::MapData;
use crate::map_view::{MapInput, MapView, SideStyle};
use crate::overlay::Overlay;
pub use dialog::NewGameDialog;
pub use hot::Reloaded;
pub use session::{NewGame, PlayerKind, RebuildError, Session, SessionError};

/// What the play client's widgets ask for.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayCommand {
    /// Open the new-game dialog.
    OpenNewGame,
    /// Open the new-game dialog set for a game against the computer: the first side
    /// human, the others the default computer player.
    OpenNewGameVsComputer,
    CancelNewGame,
    /// Start a game with these settings (from the dialog).
    Start(NewGame),
    /// Take this legal action.
    Act(Action),
    Undo,
    /// One computer action.
    AiStep,
    /// Let the computers play on until a human must decide.
    SetAuto(bool),
    /// A click on the map, by the map's box index.
    ClickBox(usize),
    /// Restrict the highlighted moves to this unit of the selected box.
    SelectUnit(Option<UnitId>),
    /// Drop the list of paths offered for one destination.
    CancelPick,
    ShowOdds(bool),
    CloseVictory,
    /// Start the game under way anew on the module as it loads now (offered when a
    /// reload could not replay it, see [`hot`]).
    RestartWithNewRules,
    /// Seconds "AI auto" waits between computer actions (see [`pace`]).
    SetAiDelay(f64),
    /// Close the window of a battle that is over.
    CloseBattle,
    /// Say why this action is not possible now (see [`refusal`]), on the status line.
    WhyNot(Action),
    /// An organisation the formation panel asked for (see [`formation`]): a member
    /// moved between formations in its box, or left as a garrison. Any may be asked,
    /// listed or not; the engine takes it or says why not.
    Organise(Action),
    /// Say why the seat at the screen may not move this piece of its side (another
    /// commander's, seed 001 §2), on the status line: the engine's refusal.
    WhyNotMoved(UnitId),
    /// Close the summary of the computer's turn (its arrows go with it).
    CloseTurnSummary,
    /// Show the `ai` crate's evaluation after a computer's turn.
    ShowEvaluation(bool),
    /// Move every unit of box `from` that may legally go to `to` there, one legal
    /// move after another.
    MoveAll {
        from: BoxId,
        to: BoxId,
    },
    /// Open the play-by-file dialog.
    OpenByFile,
    CancelByFile,
    /// Start a game by file in `dir`, the player on `side`.
    ByFileNew {
        dir: PathBuf,
        side: String,
        scenario: String,
        options: Vec<String>,
        end: Option<String>,
    },
    /// Open the game by file in `dir` (the player on `side`, or the folder's player).
    ByFileOpen {
        dir: PathBuf,
        side: Option<String>,
    },
    /// Write the player's next turn file.
    ByFileSend,
    /// Read the folder again (the opponent's file arrived).
    ByFileRefresh,
    /// Stop playing by file (the files stay).
    ByFileClose,
    /// Replay a save its module refused (it changed since) as far as it goes.
    LoadAsFarAsItGoes(PathBuf),
    /// Keep the game under way instead of the changed save.
    DismissChangedSave,
    /// Close the report of a save replayed as far as it went.
    CloseReplayReport,
    /// The hand-over screen's button: the player of this seat is at the screen.
    TakeSeat(SeatId),
    /// The referee's form's button: take its offer with the values entered (an
    /// [`Action::Take`] with an entry). A refusal is shown beside the form.
    Enter(Action),
    /// Give the screen to another human seat the game waits for too (two seats of a
    /// side sharing a turn).
    HandTo(SeatId),
}

/// The dock's width when it opens, in points: the battle's two columns of counters fit.
pub const DOCK_WIDTH: f32 = 340.0;

/// The rules' warnings a player at the screen should see: the conditions a side played
/// by someone else (the computer, or another person by file) could meet on its next turn.
/// In a hot-seat game every side's are shown; in a game with hidden information none
/// (the rules read the whole position).
fn shown_threats(session: &mut Session) -> Vec<muster_core::game::rules::Threat> {
    if session.hidden() {
        return Vec::new();
    }
    let players = session.players().to_vec();
    let all_human = players.iter().all(|k| *k == PlayerKind::Human);
    session
        .victory_threats()
        .iter()
        .filter(|t| all_human || players.get(t.side.index()) != Some(&PlayerKind::Human))
        .cloned()
        .collect()
}

/// Seconds between computer actions in a new session: slow enough to follow.
pub const DEFAULT_DELAY: f64 = 0.3;

/// The play client's state.
#[derive(Default)]
pub struct Play {
    session: Option<Session>,
    dialog: Option<NewGameDialog>,
    /// The box whose units and actions the panel shows.
    selected: Option<BoxId>,
    /// The unit whose moves are highlighted; all of the box's when `None`.
    unit: Option<UnitId>,
    /// Several legal moves lead to the clicked box: the user picks one.
    pick: Vec<Action>,
    auto: bool,
    show_odds: bool,
    victory_closed: bool,
    panel: panel::PanelState,
    odds: odds::OddsView,
    /// The path typed in the toolbar for saving and loading games: a bare name is in
    /// [`Play::games_dir`].
    pub game_path: String,
    /// The folder games are saved in (see [`table::games_dir`]), named on save.
    pub games_dir: PathBuf,
    /// The toolbar's width unfolded, as last drawn: narrower windows fold it.
    toolbar_width: f32,
    status: String,
    /// The module changed but the game could not be replayed on it: it runs on the
    /// old rules.
    stale: bool,
    /// Seconds between computer actions under "AI auto".
    ai_delay: f64,
    /// Frame time (`InputState::time`) of the last computer action "AI auto" asked for.
    last_ai: Option<f64>,
    battle: battle::BattleView,
    /// The computer's worker thread (see [`thinker`]).
    thinker: Option<thinker::Thinker>,
    /// How many actions the game had when the computer was asked to decide.
    asked: Option<usize>,
    /// What the computer did on its last turn.
    turn: report::ComputerTurn,
    /// Show the computer's evaluation after its turn.
    show_eval: bool,
    /// Odds shown while hovering a ringed destination (see [`hover_odds`]).
    hover: hover_odds::HoverOdds,
    /// Where a game a rule failure stopped is saved (the working folder, as the CLI).
    pub failure_dir: PathBuf,
    /// The game played by file, if this is one.
    by_file: Option<by_file::ByFile>,
    by_file_dialog: Option<by_file::ByFileDialog>,
    /// A save refused because its module changed, and why: the app offers to replay it
    /// as far as it goes.
    changed_save: Option<(PathBuf, String)>,
    /// What replaying a changed save found, until closed.
    replayed: Option<Vec<String>>,
    /// The seat whose view was last let on screen (through the hand-over screen in a
    /// hot-seat game with hidden information).
    shown: Option<SeatId>,
    /// The referee's form, while the game waits for a human referee's entry.
    entry: Option<entry::EntryForm>,
}

/// What the play client needs from the app to draw a frame.
pub struct PlayInput<'a> {
    pub map: &'a MapData,
    pub sides: &'a [SideStyle],
}

impl Play {
    pub fn new() -> Self {
        Self {
            show_odds: true,
            ai_delay: DEFAULT_DELAY,
            game_path: "game.json".into(),
            games_dir: table::games_dir(),
            failure_dir: PathBuf::from("."),
            ..Self::default()
        }
    }

    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    pub fn session_mut(&mut self) -> Option<&mut Session> {
        self.session.as_mut()
    }

    pub fn status(&self) -> &str {
        &self.status
    }

    pub fn auto(&self) -> bool {
        self.auto
    }

    pub fn ai_delay(&self) -> f64 {
        self.ai_delay
    }

    /// Whether the battle window is shown.
    pub fn battle_open(&self) -> bool {
        self.battle.is_open()
    }

    /// The side deciding on the computer's thread and for how long, if one is.
    pub fn thinking(&self) -> Option<(usize, std::time::Duration)> {
        self.thinker
            .as_ref()
            .and_then(|t| t.thinking())
            .map(|(side, at)| (side, at.elapsed()))
    }

    /// What the computer did on its last turn.
    pub fn computer_turn(&self) -> &report::ComputerTurn {
        &self.turn
    }

    pub fn show_evaluation(&self) -> bool {
        self.show_eval
    }

    pub fn dialog_open(&self) -> bool {
        self.dialog.is_some()
    }

    /// The game by file, if this is one.
    pub fn by_file(&self) -> Option<&by_file::ByFile> {
        self.by_file.as_ref()
    }

    /// Where the game by file stands for its player.
    pub fn by_file_standing(&mut self) -> Option<by_file::Standing> {
        let b = self.by_file.as_mut()?;
        Some(b.standing(self.session.as_mut()))
    }

    /// The save refused because its module changed, with the reason.
    pub fn changed_save(&self) -> Option<&(PathBuf, String)> {
        self.changed_save.as_ref()
    }

    /// What replaying a changed save found, while its report is open.
    pub fn replay_report(&self) -> Option<&[String]> {
        self.replayed.as_deref()
    }

    pub fn selected(&self) -> Option<BoxId> {
        self.selected
    }

    /// The paths offered for the last clicked destination, if several.
    pub fn pick(&self) -> &[Action] {
        &self.pick
    }

    /// Opens the new-game dialog for `module` (the document's, as compiled now).
    pub fn open_dialog(&mut self, module: Option<&Arc<Module>>, why_not: impl FnOnce() -> String) {
        match module {
            Some(m) => self.dialog = Some(NewGameDialog::new(m)),
            None => self.status = format!("cannot start a game: {}", why_not()),
        }
    }

    /// Draws the play mode's panels and map.
    pub fn show(
        &mut self,
        ui: &mut Ui,
        input: &PlayInput<'_>,
        view: &mut MapView,
        out: &mut Vec<UiCommand>,
    ) {
        self.drive(ui.ctx());
        self.sync_entry();
        if let Some(seat) = self.pass_to() {
            // Nothing of the last seat's view stays on screen: no panel, no map.
            if let Some(session) = self.session.as_ref() {
                handover::show(ui, session.module(), seat, out);
            }
            return;
        }
        egui::Panel::top("play-toolbar").show(ui, |ui| toolbar::show(ui, self, out));
        if let Some(standing) = self.by_file_standing()
            && let Some(b) = self.by_file.as_ref()
        {
            egui::Panel::top("play-by-file").show(ui, |ui| by_file::strip(ui, b, &standing, out));
        }
        let mut index = None;
        let mut danger_boxes: Vec<BoxId> = Vec::new();
        if let Some(session) = self.session.as_mut() {
            let module = session.module().clone();
            // The rules count victory from the whole position: not shown to one seat.
            let progress = if session.hidden() {
                Vec::new()
            } else {
                session.victory_progress().to_vec()
            };
            egui::Panel::top("play-banner").show(ui, |ui| {
                banner::show(ui, &module, session.state(), &progress)
            });
            // The danger of defeat, under the race to win, across the window.
            let threats = shown_threats(session);
            danger_boxes = threats
                .iter()
                .flat_map(|t| t.boxes.iter().copied())
                .collect();
            if !threats.is_empty() {
                egui::Panel::top("play-danger").show(ui, |ui| {
                    danger::show(ui, &module, &threats);
                });
            }
            index = Some(BoxIndex::new(&module, input.map));
            // Narrower on a small screen, so the map keeps most of the width.
            let actions_width = (ui.available_width() * 0.26).clamp(280.0, 380.0);
            egui::Panel::right("play-actions")
                .default_size(actions_width)
                .resizable(true)
                .show(ui, |ui| {
                    panel::show(
                        ui,
                        session,
                        &mut self.panel,
                        self.selected,
                        self.unit,
                        &self.pick,
                        out,
                    );
                });
            if let (Some(form), Some(offer)) = (self.entry.as_mut(), session.entry_due()) {
                // Docked beside the actions, not over the board: the battle's box
                // stays in sight, ringed.
                let who = session
                    .referee()
                    .map_or("Referee", |r| module.seat(r.seat).name.as_str());
                egui::Panel::right("play-entry")
                    .default_size(340.0)
                    .resizable(true)
                    .show(ui, |ui| {
                        let seen = |u: UnitId| session.sight(u) == muster_core::format::Sight::Full;
                        entry::show(ui, &module, session.state(), &seen, who, offer, form, out);
                    });
            }
            // The dock left of the map, the window's whole height: the battle, its
            // odds and the computer's turn, each a section, so nothing floats over the
            // board.
            self.battle.update(session);
            // Not while the computers play on: each position would be simulated anew.
            let odds = self.show_odds
                && !(self.auto && session.computer_to_act())
                && odds::target(session, self.selected).is_some();
            // The computer's turn in full is for open games only.
            let turn = !session.hidden() && report::visible(&self.turn);
            if self.battle.is_open() || odds || turn {
                egui::Panel::left("play-dock")
                    .default_size(DOCK_WIDTH)
                    .resizable(true)
                    .show(ui, |ui| {
                        egui::ScrollArea::vertical()
                            .id_salt("play-dock-scroll")
                            .show(ui, |ui| {
                                if self.battle.is_open() {
                                    self.battle.show(ui, session, out);
                                }
                                if odds {
                                    self.odds.show(ui, session, self.selected, out);
                                }
                                if turn {
                                    report::show(ui, &module, &self.turn, out);
                                }
                            });
                    });
            }
            egui::Panel::bottom("play-log")
                .default_size(160.0)
                .resizable(true)
                .show(ui, |ui| {
                    log::show(ui, session.shown_log(), session.shown_rule_lines())
                });
            if session.outcome().is_some() && !self.victory_closed {
                victory::show(ui.ctx(), session, out);
            }
        }
        let mut overlay = self.overlay(input.map, index.as_ref());
        if let (Some(o), Some(ix)) = (overlay.as_mut(), index.as_ref()) {
            o.danger = vec![false; input.map.boxes.len()];
            for b in &danger_boxes {
                if let Some(i) = ix.doc(*b) {
                    o.danger[i] = true;
                }
            }
        }
        let selection = index
            .as_ref()
            .zip(self.selected)
            .and_then(|(ix, b)| ix.doc(b))
            .map(Selection::Box);
        egui::CentralPanel::no_frame().show(ui, |ui| {
            let map_input = MapInput {
                map: input.map,
                sides: input.sides,
                overlay: overlay.as_ref(),
                selection,
                extra: &[],
                tool: &Tool::Play,
                background: None,
            };
            view.show(ui, &map_input, out);
        });
        self.show_hover_odds(ui.ctx(), view, index.as_ref());
        if let Some(dialog) = self.dialog.as_mut() {
            dialog.show(ui.ctx(), out);
        }
        if let Some(dialog) = self.by_file_dialog.as_mut() {
            dialog.show(ui.ctx(), out);
        }
        changed_save::show(
            ui.ctx(),
            self.changed_save.as_ref(),
            self.replayed.as_deref(),
            out,
        );
    }

    /// Opens a fresh form when the game comes to a human referee's entry (selecting the
    /// battle's box), keeps the one being filled while it waits for the same, and drops
    /// it once the decision is taken.
    fn sync_entry(&mut self) {
        let Some(session) = self.session.as_ref() else {
            self.entry = None;
            return;
        };
        let actions = session.history().actions().len();
        match session.entry_due() {
            None => self.entry = None,
            Some(offer)
                if self
                    .entry
                    .as_ref()
                    .is_some_and(|f| f.is_for(offer, actions)) => {}
            Some(offer) => {
                self.entry = Some(entry::EntryForm::new(offer, actions));
                if offer.at.is_some() {
                    self.selected = offer.at;
                    self.unit = None;
                }
            }
        }
    }

    /// The referee's form, while one is open.
    pub fn entry_form(&self) -> Option<&entry::EntryForm> {
        self.entry.as_ref()
    }

    /// The seat the screen must be passed to before anything more is shown, if any:
    /// in a hot-seat game that hides something (hidden information, or a sealed choice
    /// being made), when the seat at the screen changes from one human seat to
    /// another, and at the start of a game with hidden information. Otherwise the
    /// seat's view is shown at once (an open game: today's screen).
    pub fn pass_to(&mut self) -> Option<SeatId> {
        let Some(session) = self.session.as_ref() else {
            self.shown = None;
            return None;
        };
        let Some(seat) = session.viewer().map(|v| v.seat) else {
            self.shown = None;
            return None;
        };
        if self.shown == Some(seat) {
            return None;
        }
        let humans = session
            .seat_players()
            .iter()
            .filter(|k| **k == PlayerKind::Human)
            .count();
        let secret = session.hidden() || (session.sealing() && self.shown.is_some());
        if humans < 2 || !secret {
            self.shown = Some(seat);
            return None;
        }
        Some(seat)
    }

    /// Lets the computers play by themselves under "AI auto": collects a decision the
    /// computer's thread has made and applies it, or, when a computer is to act and the
    /// chosen delay has passed, asks it to decide. Never waits on the UI thread.
    fn drive(&mut self, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        if let Some(done) = self.thinker.as_mut().and_then(thinker::Thinker::poll) {
            self.decided(done);
            // The delay runs from when the action is on the map, however long the
            // computer thought.
            self.last_ai = Some(now);
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        // In a game by file, the opponent's forced decisions are taken within the
        // player's stretch, as `muster pbem play` takes them.
        if let Some(b) = self.by_file.as_mut()
            && let Some(action) = b.forced(session)
        {
            if let Err(e) = session.apply(action) {
                self.status = e.to_string();
            }
            ctx.request_repaint();
            return;
        }
        if !session.computer_to_act() && !self.turn.finished && !self.turn.is_empty() {
            self.turn.finish();
            if self.show_eval {
                self.turn.evaluation = evaluation(session, &self.turn);
            }
        }
        if self
            .thinker
            .as_ref()
            .is_some_and(|t| t.thinking().is_some())
        {
            ctx.request_repaint_after(std::time::Duration::from_millis(30));
            return;
        }
        if refusal::takes_lone_target(ctx)
            && self.pass_to().is_none()
            && let Some(session) = self.session.as_mut()
            && let Some(only) = refusal::lone_target(session)
        {
            if let Err(e) = session.apply(only) {
                self.status = e.to_string();
            }
            ctx.request_repaint();
            return;
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        if !(self.auto && session.computer_to_act() && session.computer_seated()) {
            return;
        }
        if let Some(left) = pace::wait(now, self.last_ai, self.ai_delay) {
            ctx.request_repaint_after(std::time::Duration::from_secs_f64(left));
            return;
        }
        if session.referee().is_some() {
            // The computer referee enters its result at once, on this thread (the
            // rules' `referee_entry`, no search).
            if let Err(e) = session.ai_step() {
                self.auto = false;
                self.status = self.failed(e, "the computer referee's decision");
            }
            self.last_ai = Some(now);
            ctx.request_repaint();
            return;
        }
        let module = session.module().clone();
        if !self.thinker.as_ref().is_some_and(|t| t.serves(&module)) {
            self.thinker = Some(thinker::Thinker::new(module));
        }
        let Some((side, player)) = session.take_computer() else {
            return;
        };
        let asked = session.history().actions().len();
        let state = session.state().clone();
        if let Some(t) = self.thinker.as_mut() {
            match t.ask(side, player, state) {
                Ok(()) => self.asked = Some(asked),
                Err(player) => {
                    session.seat_computer(side, player);
                    self.auto = false;
                    self.status = "the computer's thread is not running".into();
                }
            }
        }
        self.last_ai = Some(now);
        ctx.request_repaint_after(std::time::Duration::from_millis(30));
    }

    /// A decision back from the computer's thread: the player goes back to its seat,
    /// and its choice is applied if the game is still where it was asked.
    fn decided(&mut self, done: thinker::Done) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let asked = self.asked.take();
        let mut player = done.player;
        let current = asked == Some(session.history().actions().len())
            && session.computer_to_act()
            && session.decider().index() == done.side;
        if !current {
            // An undo or a load came first: the plan is for another position.
            player.forget();
            session.seat_computer(done.side, player);
            return;
        }
        session.seat_computer(done.side, player);
        match done.choice {
            Ok(action) => {
                let before = session.state().clone();
                let side = session.decider();
                match session.apply_computer(action) {
                    Ok(taken) => {
                        let module = session.module().clone();
                        self.turn
                            .record(&module, side, &before, &taken, session.state());
                        self.pick.clear();
                    }
                    Err(e) => {
                        self.auto = false;
                        self.status = self.failed(e, "the computer player's turn");
                    }
                }
            }
            Err(e) => {
                self.auto = false;
                self.status = format!("computer player: {e}");
            }
        }
    }

    /// Forgets the computer's thread and its decision under way (a new game, a
    /// reload): the old game's players are gone with it.
    fn stop_thinking(&mut self) {
        self.thinker = None;
        self.asked = None;
        self.turn = report::ComputerTurn::default();
    }

    /// Near the pointer, the odds of attacking the ringed box it is over (Movement).
    fn show_hover_odds(&mut self, ctx: &egui::Context, view: &MapView, index: Option<&BoxIndex>) {
        if !self.show_odds {
            return;
        }
        let (Some(i), Some(index)) = (view.hovered(), index) else {
            return;
        };
        let Some(to) = index.engine(i) else { return };
        let (selected, unit) = (self.selected, self.unit);
        let Some(session) = self.session.as_mut() else {
            return;
        };
        if selected == Some(to) || !destinations(session, selected, unit).contains(&to) {
            return;
        }
        let Some(text) = self.hover.text(session, selected, unit, to) else {
            return;
        };
        let Some(at) = ctx.pointer_hover_pos() else {
            return;
        };
        egui::Area::new(egui::Id::unique("hover-odds"))
            .order(egui::Order::Tooltip)
            .fixed_pos(at + egui::vec2(16.0, 16.0))
            .interactable(false)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.label(text);
                });
            });
    }

    /// The game position over the map, with the legal destinations highlighted.
    fn overlay(&mut self, map: &MapData, index: Option<&BoxIndex>) -> Option<Overlay> {
        let index = index?;
        let highlighted = self.highlighted();
        let session = self.session.as_ref()?;
        let mut overlay = Overlay::from_seen(session.module(), session.state(), index, &|u| {
            session.sight(u)
        });
        overlay.highlight = vec![false; map.boxes.len()];
        for to in highlighted {
            if let Some(i) = index.doc(to) {
                overlay.highlight[i] = true;
            }
        }
        // The computer's last turn, until its summary is closed.
        if !self.turn.dismissed
            && !session.hidden()
            && let Some(side) = self.turn.side
        {
            overlay.events = vec![false; map.boxes.len()];
            let mut seen = Vec::new();
            for &(a, b) in &self.turn.marches {
                if let (Some(a), Some(b)) = (index.doc(a), index.doc(b))
                    && !seen.contains(&(a, b))
                {
                    seen.push((a, b));
                    overlay.arrows.push((a, b, side.index()));
                }
            }
            let marked = self
                .turn
                .battles
                .iter()
                .chain(self.turn.captures.iter().map(|c| &c.0));
            for &at in marked {
                if let Some(i) = index.doc(at) {
                    overlay.events[i] = true;
                }
            }
        }
        Some(overlay)
    }

    /// The boxes ringed on the map: where the legal moves of the selected box's units
    /// (or of the chosen unit) end.
    pub fn highlighted(&mut self) -> Vec<BoxId> {
        let (selected, unit) = (self.selected, self.unit);
        match self.session.as_mut() {
            Some(session) => {
                let mut boxes = destinations(session, selected, unit);
                // The box of the battle whose result is being entered.
                if self.entry.is_some()
                    && let Some(at) = session.entry_due().and_then(|o| o.at)
                    && !boxes.contains(&at)
                {
                    boxes.push(at);
                }
                boxes
            }
            None => Vec::new(),
        }
    }

    /// The message for an action that failed. The game is as it was before it; when the
    /// rules failed (not an illegal action) it is also saved, as `muster play` does, so
    /// the modder fixes the script and plays on from there after the hot reload (issue
    /// 18).
    fn failed(&mut self, e: SessionError, doing: &str) -> String {
        let Some(session) = self.session.as_ref() else {
            return e.to_string();
        };
        if !e.is_rule_failure() {
            return e.to_string();
        }
        let at = session.whereabouts();
        let path = session.failure_save_path(&self.failure_dir);
        let saved = match session.save(&path) {
            Ok(()) => format!("the game up to here is saved to {}", path.display()),
            Err(save) => format!("and it could not be saved: {save}"),
        };
        format!("a rule failed at {at}, {doing}: {e}; {saved}")
    }

    /// Applies a command; errors become the status line, the game is left as it was.
    pub fn apply(&mut self, command: PlayCommand, module: Option<&Arc<Module>>, map: &MapData) {
        let result = self.try_apply(command, module, map);
        if let Err(e) = result {
            tracing::warn!("{e}");
            self.status = e;
        }
    }

    fn try_apply(
        &mut self,
        command: PlayCommand,
        module: Option<&Arc<Module>>,
        map: &MapData,
    ) -> Result<(), String> {
        match command {
            PlayCommand::OpenNewGame => {
                self.open_dialog(module, || "the module does not load".into());
            }
            PlayCommand::OpenNewGameVsComputer => {
                self.open_dialog(module, || "the module does not load".into());
                if let Some(d) = self.dialog.as_mut() {
                    d.against_computer();
                }
            }
            PlayCommand::CancelNewGame => self.dialog = None,
            PlayCommand::Start(game) => {
                let Some(module) = module else {
                    return Err("cannot start a game: the module does not load".into());
                };
                match Session::new(module.clone(), &game) {
                    Ok(s) => {
                        self.dialog = None;
                        self.install(s);
                        self.status = format!("new game, seed {}", game.seed);
                    }
                    Err(e) => {
                        // The dialog stays open with the reason.
                        if let Some(d) = self.dialog.as_mut() {
                            d.error = Some(e.to_string());
                        }
                        return Err(e.to_string());
                    }
                }
            }
            PlayCommand::Act(action) => {
                let session = self.session.as_mut().ok_or("no game under way")?;
                let doing = format!(
                    "taking '{}'",
                    muster_core::game::describe::action(session.module(), session.state(), &action)
                );
                if let Err(e) = session.apply(action.clone()) {
                    return Err(self.failed(e, &doing));
                }
                self.pick.clear();
                if let Action::Select { at } = action {
                    self.selected = Some(at);
                    self.unit = None;
                }
                if let Some(u) = self.unit
                    && !has_moves(session, self.selected, Some(u))
                {
                    self.unit = None;
                }
                self.status.clear();
            }
            PlayCommand::Organise(action) => {
                let session = self.session.as_mut().ok_or("no game under way")?;
                session.organise(action)?;
                self.pick.clear();
                self.status.clear();
            }
            PlayCommand::Undo => {
                let session = self.session.as_mut().ok_or("no game under way")?;
                session.undo().map_err(|e| e.to_string())?;
                self.pick.clear();
                self.status = session.shown_log().last().cloned().unwrap_or_default();
            }
            PlayCommand::AiStep => {
                let session = self.session.as_mut().ok_or("no game under way")?;
                let before = session.state().clone();
                let side = session.decider();
                match session.ai_step() {
                    Err(e) => {
                        self.auto = false;
                        return Err(self.failed(e, "the computer player's turn"));
                    }
                    Ok(Some(action)) => {
                        let module = session.module().clone();
                        self.turn
                            .record(&module, side, &before, &action, session.state());
                    }
                    Ok(None) => {}
                }
                self.pick.clear();
            }
            PlayCommand::CloseTurnSummary => self.turn.dismissed = true,
            PlayCommand::ShowEvaluation(on) => {
                self.show_eval = on;
                if on
                    && self.turn.finished
                    && let Some(session) = self.session.as_mut()
                {
                    self.turn.evaluation = evaluation(session, &self.turn);
                }
            }
            PlayCommand::MoveAll { from, to } => self.move_all(from, to, map)?,
            PlayCommand::SetAuto(on) => {
                self.auto = on;
                // Switched on, the computers start at once, whatever the delay.
                self.last_ai = None;
            }
            PlayCommand::ClickBox(i) => self.click_box(i, map),
            PlayCommand::SelectUnit(u) => self.unit = u,
            PlayCommand::CancelPick => self.pick.clear(),
            PlayCommand::ShowOdds(on) => self.show_odds = on,
            PlayCommand::CloseVictory => self.victory_closed = true,
            PlayCommand::RestartWithNewRules => self.restart(module)?,
            PlayCommand::SetAiDelay(s) if s.is_finite() => {
                self.ai_delay = s.clamp(0.0, pace::MAX_DELAY);
            }
            PlayCommand::SetAiDelay(s) => return Err(format!("{s} is not a delay")),
            PlayCommand::CloseBattle => self.battle.close(),
            PlayCommand::WhyNotMoved(unit) => {
                let session = self.session.as_mut().ok_or("no game under way")?;
                self.status = session.why_not_moved(unit);
            }
            PlayCommand::WhyNot(action) => {
                let session = self.session.as_mut().ok_or("no game under way")?;
                self.status = refusal::why(session, &action);
            }
            c @ (PlayCommand::OpenByFile
            | PlayCommand::CancelByFile
            | PlayCommand::ByFileNew { .. }
            | PlayCommand::ByFileOpen { .. }
            | PlayCommand::ByFileSend
            | PlayCommand::ByFileRefresh
            | PlayCommand::ByFileClose) => self.by_file_command(c, module)?,
            PlayCommand::LoadAsFarAsItGoes(path) => {
                self.changed_save = None;
                self.load_as_far_as_it_goes(&path, module)?;
            }
            PlayCommand::DismissChangedSave => self.changed_save = None,
            PlayCommand::CloseReplayReport => self.replayed = None,
            PlayCommand::HandTo(seat) => {
                let session = self.session.as_mut().ok_or("no game under way")?;
                if !session.hand_to(seat) {
                    return Err(format!(
                        "the game does not wait for {} now",
                        session.module().seat(seat).name
                    ));
                }
                self.selected = None;
                self.unit = None;
                self.pick.clear();
            }
            PlayCommand::Enter(action) => {
                let session = self.session.as_mut().ok_or("no game under way")?;
                let doing = format!(
                    "entering '{}'",
                    muster_core::game::describe::action(session.module(), session.state(), &action)
                );
                match session.apply(action) {
                    Ok(()) => {
                        self.entry = None;
                        self.pick.clear();
                        self.status.clear();
                    }
                    Err(e) if e.is_rule_failure() => return Err(self.failed(e, &doing)),
                    Err(e) => {
                        // Beside the form, the values kept; the game is as it was.
                        if let Some(f) = self.entry.as_mut() {
                            f.error = Some(e.to_string());
                        }
                        self.status.clear();
                    }
                }
            }
            PlayCommand::TakeSeat(seat) => {
                // Only the seat the game is passed to: a stale click changes nothing.
                if self.pass_to() == Some(seat) {
                    self.shown = Some(seat);
                    self.selected = None;
                    self.unit = None;
                    self.pick.clear();
                }
            }
        }
        Ok(())
    }

    /// A click on a highlighted box moves there (or offers the paths, if several);
    /// any other click selects the box.
    fn click_box(&mut self, i: usize, map: &MapData) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let Some(at) = BoxIndex::new(session.module(), map).engine(i) else {
            self.status = format!("{} is not a box of the game", map.boxes[i].name);
            return;
        };
        let moves: Vec<Action> = moves(session, self.selected, self.unit)
            .into_iter()
            // The selected box itself only selects: a round trip is for the panel.
            .filter(|a| match a {
                Action::Move { path, .. } => path.to() == at,
                Action::Take { at: Some(to), .. } => *to == at,
                _ => false,
            })
            .filter(|_| self.selected != Some(at))
            .collect();
        match <[Action; 1]>::try_from(moves) {
            Ok([action]) => self.apply(PlayCommand::Act(action), None, map),
            Err(moves) if moves.is_empty() => {
                // Not a destination of the moving pieces: say why, then select it.
                if let Some(why) = refusal::map_click(session, self.selected, self.unit, at) {
                    self.status = why;
                }
                self.selected = Some(at);
                self.unit = None;
                self.pick.clear();
            }
            Err(moves) => self.pick = moves,
        }
    }

    /// Moves every unit in `from` that has a legal move to `to`, one legal action at a
    /// time, each taken from the engine's list after the last was applied: the UI
    /// only chains actions the engine offers, and stops when it offers no more.
    fn move_all(&mut self, from: BoxId, to: BoxId, map: &MapData) -> Result<(), String> {
        let mut moved = 0;
        for _ in 0..1_000 {
            let Some(session) = self.session.as_mut() else {
                break;
            };
            let next = moves(session, Some(from), None)
                .into_iter()
                .find(|a| match a {
                    Action::Move { path, .. } => path.to() == to,
                    Action::Take { at: Some(t), .. } => *t == to,
                    _ => false,
                });
            let Some(action) = next else { break };
            self.apply(PlayCommand::Act(action), None, map);
            if !self.status.is_empty() {
                break;
            }
            moved += 1;
        }
        if moved == 0 {
            return Err("no unit there may move to that box now".into());
        }
        self.status = format!("{moved} unit{} moved", if moved == 1 { "" } else { "s" });
        Ok(())
    }

    /// Replaces the game (a new one or a loaded one).
    fn install(&mut self, session: Session) {
        self.stop_thinking();
        self.session = Some(session);
        self.selected = None;
        self.unit = None;
        self.pick.clear();
        self.auto = false;
        self.victory_closed = false;
        self.odds = odds::OddsView::default();
        self.battle = battle::BattleView::default();
        self.last_ai = None;
        self.stale = false;
        self.by_file = None;
        self.changed_save = None;
        self.shown = None;
    }

    /// No game under way (a game by file before it starts).
    fn install_none(&mut self) {
        self.stop_thinking();
        self.session = None;
        self.selected = None;
        self.unit = None;
        self.pick.clear();
        self.battle = battle::BattleView::default();
        self.by_file = None;
    }

    /// Saves the game under way, a bare name in the games folder, with its table (who
    /// plays which side, "AI auto") beside it; the status names the file.
    pub fn save_game(&mut self, path: &Path) {
        let path = table::resolve(&self.games_dir, path);
        let result = match self.session.as_ref() {
            Some(s) => path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or(Ok(()), |dir| {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot make the folder {}: {e}", dir.display()))
                })
                .and_then(|()| s.save(&path).map_err(|e| e.to_string()))
                .and_then(|()| table::Table::new(s.players(), self.auto).write(&path)),
            None => Err("no game to save".into()),
        };
        self.status = match result {
            Ok(()) => format!("game saved to {}", path.display()),
            Err(e) => {
                tracing::warn!("{e}");
                e
            }
        };
    }

    /// Loads a game with `module` (a bare name from the games folder); on any error the
    /// game under way is kept. Who plays which side and "AI auto" come from the table
    /// saved beside it, else stay as they are at the table now.
    pub fn load_game(&mut self, path: &Path, module: Option<&Arc<Module>>) {
        let path = &table::resolve(&self.games_dir, path);
        let Some(module) = module else {
            self.status = "cannot load a game: the module does not load".into();
            return;
        };
        let saved = table::Table::read(path);
        let players = saved
            .as_ref()
            .and_then(|t| t.players(module.sides.len()))
            .or_else(|| {
                self.session
                    .as_ref()
                    .map(|s| s.players().to_vec())
                    .filter(|p| p.len() == module.sides.len())
            })
            .unwrap_or_else(|| vec![PlayerKind::Human; module.sides.len()]);
        let auto = saved.as_ref().map_or(self.auto, |t| t.auto);
        match Session::load(module.clone(), path, players) {
            Ok(s) => {
                self.install(s);
                self.auto = auto;
                self.status = format!("game loaded from {}", path.display());
            }
            Err(e) if e.module_changed() => {
                tracing::warn!("{e}");
                self.status = format!("cannot load {} as it was: {e}", path.display());
                self.changed_save = Some((path.to_path_buf(), e.to_string()));
            }
            Err(e) => {
                tracing::warn!("{e}");
                self.status = format!("cannot load {}: {e}", path.display());
            }
        }
    }

    /// Loads a save its module refused (it changed since it was played), replaying its
    /// actions until one no longer applies; the game goes on from there.
    fn load_as_far_as_it_goes(
        &mut self,
        path: &Path,
        module: Option<&Arc<Module>>,
    ) -> Result<(), String> {
        let module = module.ok_or("cannot load a game: the module does not load")?;
        let players = self
            .session
            .as_ref()
            .map(|s| s.players().to_vec())
            .filter(|p| p.len() == module.sides.len() && !p.contains(&PlayerKind::ByFile))
            .unwrap_or_else(|| vec![PlayerKind::Human; module.sides.len()]);
        let (session, report) = Session::load_as_far_as_it_goes(module.clone(), path, players)
            .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
        self.install(session);
        self.status = format!("game loaded from {} as far as it goes", path.display());
        self.replayed = Some(report);
        Ok(())
    }

    /// The play-by-file commands.
    fn by_file_command(
        &mut self,
        command: PlayCommand,
        module: Option<&Arc<Module>>,
    ) -> Result<(), String> {
        let module = module.ok_or("cannot play by file: the module does not load")?;
        let opened = match command {
            PlayCommand::OpenByFile => {
                self.by_file_dialog = Some(by_file::ByFileDialog::new(module));
                return Ok(());
            }
            PlayCommand::CancelByFile => {
                self.by_file_dialog = None;
                return Ok(());
            }
            PlayCommand::ByFileClose => {
                self.by_file = None;
                if let Some(s) = self.session.as_mut() {
                    s.hand_over();
                }
                self.status = "stopped playing by file; the files stay in the folder".into();
                return Ok(());
            }
            PlayCommand::ByFileSend => {
                let b = self.by_file.as_mut().ok_or("no game by file")?;
                let path = b.send(module, self.session.as_mut())?;
                self.status = format!("wrote {}: send it to the other player", path.display());
                return Ok(());
            }
            PlayCommand::ByFileNew {
                dir,
                side,
                scenario,
                options,
                end,
            } => by_file::ByFile::create(module, &dir, &side, &scenario, options, end),
            PlayCommand::ByFileOpen { dir, side } => {
                by_file::ByFile::open(module, &dir, side.as_deref())
            }
            PlayCommand::ByFileRefresh => {
                let b = self.by_file.as_ref().ok_or("no game by file")?;
                let side = module.side(b.me()).id.clone();
                let dir = b.folder().to_path_buf();
                by_file::ByFile::open(module, &dir, Some(&side))
            }
            _ => return Ok(()),
        };
        match opened {
            Ok((b, session)) => {
                self.by_file_dialog = None;
                match session {
                    Some(s) => self.install(s),
                    None => {
                        self.install_none();
                    }
                }
                self.status = format!(
                    "game by file, {} files read from {}",
                    b.files(),
                    b.folder().display()
                );
                self.by_file = Some(b);
                Ok(())
            }
            Err(e) => {
                if let Some(d) = self.by_file_dialog.as_mut() {
                    d.error = Some(e.clone());
                }
                Err(e)
            }
        }
    }
}

/// The `ai` crate's evaluation, for the side of `turn`, of the position now.
fn evaluation(session: &mut Session, turn: &report::ComputerTurn) -> Option<f64> {
    let side = turn.side?;
    let module = session.module().clone();
    let state = session.state().clone();
    muster_ai::search::evaluate(&module, session.rules_mut(), &state, side).ok()
}

/// The legal moves (by line or by sea) of the units in `at` (only `unit`'s, if given).
pub fn moves(session: &mut Session, at: Option<BoxId>, unit: Option<UnitId>) -> Vec<Action> {
    let Some(at) = at else { return Vec::new() };
    let state = session.state().clone();
    let Ok(legal) = session.legal() else {
        return Vec::new();
    };
    legal
        .iter()
        .filter(|a| match a {
            // A rule's offer for one piece and a box (AHD: a move by sea) is shown as a
            // move of that piece.
            Action::Move { unit: u, .. }
            | Action::Take {
                unit: Some(u),
                at: Some(_),
                ..
            } => unit.is_none_or(|x| x == *u) && state.unit(*u).place == Place::Board(at),
            _ => false,
        })
        .cloned()
        .collect()
}

fn has_moves(session: &mut Session, at: Option<BoxId>, unit: Option<UnitId>) -> bool {
    !moves(session, at, unit).is_empty()
}

/// Where the legal moves of the selected box (or unit) lead.
fn destinations(session: &mut Session, at: Option<BoxId>, unit: Option<UnitId>) -> Vec<BoxId> {
    moves(session, at, unit)
        .iter()
        .filter_map(|a| match a {
            Action::Move { path, .. } if Some(path.to()) != at => Some(path.to()),
            Action::Take { at: Some(to), .. } => Some(*to),
            _ => None,
        })
        .collect()
}

/// The Edit / Play switch above both modes.
pub fn mode_bar(ui: &mut Ui, mode: crate::command::Mode, out: &mut Vec<UiCommand>) {
    use crate::command::Mode;
    ui.horizontal(|ui| {
        for (m, label) in [
            (Mode::Start, "Home"),
            (Mode::Edit, "Edit"),
            (Mode::Play, "Play"),
        ] {
            if ui.selectable_label(mode == m, label).clicked() && mode != m {
                out.push(UiCommand::SetMode(m));
            }
        }
    });
}
