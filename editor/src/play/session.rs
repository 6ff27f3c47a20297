//! A game being played in the editor, without any UI: the module and its rules, the
//! [`History`], who plays each side, and the log. Every change goes through the
//! engine's `apply` (all-or-nothing); saves and loads use the engine's [`Save`], and a
//! load replays the save and checks it as `muster replay` does.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use muster_ai::{AiError, Level, Player};
use muster_core::Module;
use muster_core::format::Sight;
use muster_core::game::flow::StartError;
use muster_core::game::rules::{Progress, Rules, Threat};
use muster_core::game::save::{Reseed, SavedScenario};
use muster_core::game::seats::{allowed_by, awaited};
use muster_core::game::sight::{SEES, sights};
use muster_core::game::{
    Action, ActionError, Dice, GameState, History, Offer, Outcome, Save, SaveError, decider,
    describe, legal_actions, legal_actions_for, offer, seat_log, set_end, start,
};
use muster_core::ids::{SeatId, SideId, UnitId};
use muster_scripting::{Limits, ScriptError, ScriptRules};

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    Human,
    Computer(Level),
    /// A player elsewhere, whose decisions come in turn files (play by file): nobody
    /// decides for that side here.
    ByFile,
}

impl PlayerKind {
    /// The choices offered in the new-game dialog, in order.
    pub const ALL: [PlayerKind; 5] = [
        PlayerKind::Human,
        PlayerKind::Computer(Level::Random),
        PlayerKind::Computer(Level::Greedy),
        PlayerKind::Computer(Level::Ai),
        PlayerKind::Computer(Level::strong()),
    ];

    pub fn label(self) -> &'static str {
        match self {
            PlayerKind::Human => "Human",
            PlayerKind::Computer(Level::Random) => "Random",
            PlayerKind::Computer(Level::Greedy) => "Greedy",
            PlayerKind::Computer(Level::Ai) => "AI",
            PlayerKind::Computer(Level::Strong { .. }) => "Strong",
            PlayerKind::ByFile => "By file",
        }
    }
}

/// Everything a new game needs besides the module.
#[derive(Clone, Debug, PartialEq)]
pub struct NewGame {
    pub scenario: String,
    /// Optional rules in force, by id.
    pub options: Vec<String>,
    /// An agreed ending turn (`MM/YYYY`), instead of the scenario's.
    pub end: Option<String>,
    /// One per side of the module, in its order.
    pub players: Vec<PlayerKind>,
    /// Who plays each seat of the module, in its order, when the start screen asked
    /// (a module with hidden information or several seats a side); empty: each seat
    /// is played as its side is in `players`.
    pub seats: Vec<PlayerKind>,
    pub seed: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("the module's rules do not load: {0}")]
    Rules(#[from] ScriptError),
    #[error("no scenario '{0}' in the module")]
    UnknownScenario(String),
    #[error("no optional rule '{0}' in the module")]
    UnknownOption(String),
    #[error("the module has {sides} sides but {players} players were given")]
    Players { sides: usize, players: usize },
    #[error("the module has {seats} seats but {players} players were given for them")]
    Seats { seats: usize, players: usize },
    #[error(
        "the {side}'s seats are played partly by people, partly by the computer: the computer players play a whole side for now"
    )]
    MixedSide { side: String },
    #[error("cannot start the game: {0}")]
    Start(#[from] StartError),
    #[error("ending date: {0}")]
    End(String),
    #[error("{0}")]
    Action(#[from] ActionError),
    #[error("computer player: {0}")]
    Ai(#[from] AiError),
    #[error(transparent)]
    Save(#[from] SaveError),
    #[error("the game is over")]
    Over,
    #[error("the actions before this turn were sent in a turn file: they cannot be taken back")]
    Sent,
    #[error("the last action is another player's: it cannot be taken back at this screen")]
    NotYours,
}

impl SessionError {
    /// Whether a save was refused because the module changed since it was played (the
    /// app then offers to replay it as far as it goes).
    pub fn module_changed(&self) -> bool {
        matches!(
            self,
            SessionError::Save(
                SaveError::Stack(_)
                    | SaveError::Changed { .. }
                    | SaveError::Action { .. }
                    | SaveError::Diverged(_)
            )
        )
    }

    /// Whether the rules failed (a script error, a refused command) while the engine
    /// applied or planned an action, rather than the action being illegal: the game is
    /// as it was before it, and worth saving for the modder to continue after a fix.
    pub fn is_rule_failure(&self) -> bool {
        matches!(
            self,
            SessionError::Action(ActionError::Rule(_))
                | SessionError::Ai(AiError::Rule(_))
                | SessionError::Ai(AiError::Action(ActionError::Rule(_)))
        )
    }
}

/// Why a game could not be played again on reloaded rules ([`Session::rebuild`]).
#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    #[error("the new rules do not load: {0}")]
    Rules(ScriptError),
    #[error("the game cannot start again: {0}")]
    Start(SessionError),
    /// `number` counts from 1, as the log does.
    #[error("action {number} of {total} ({action}) fails with the new rules: {error}")]
    Action {
        number: usize,
        total: usize,
        action: String,
        error: ActionError,
    },
}

/// A game in progress.
pub struct Session {
    module: Arc<Module>,
    rules: ScriptRules,
    history: History,
    players: Vec<PlayerKind>,
    computers: Vec<Option<Box<dyn Player>>>,
    log: Vec<String>,
    /// Which lines of `log` the rules logged (indices, ascending), shown in their own
    /// colour so a modder sees the rules act.
    rule_lines: Vec<usize>,
    seed: u64,
    /// Dice given anew during the game (a game played by file), as its save records them.
    reseeds: Vec<Reseed>,
    scenario: SavedScenario,
    options: Vec<String>,
    end: Option<String>,
    /// The legal actions of the current state, computed once per state.
    legal: Option<Result<Vec<Action>, String>>,
    /// The rules' `victory_progress` for the current state, asked once per state.
    progress: Option<Vec<Progress>>,
    /// The rules' `victory_threats` for the current state, asked once per state.
    threats: Option<Vec<Threat>>,
    /// Actions before this many are not taken back (in a game by file: the ones sent).
    floor: usize,
    /// Who plays each seat, in the module's seat order.
    seats: Vec<PlayerKind>,
    /// Some seat may not see everything (the module's seats or its `sees` rule): the
    /// screen then shows one human seat's view only.
    hidden: bool,
    /// Per seat, the log as that seat may read it (`seat_log`, failing closed).
    seat_logs: Vec<Vec<String>>,
    /// The side that took each action of the history, to refuse taking back another
    /// seat's action behind a hand-over screen.
    takers: Vec<Option<SideId>>,
    /// The human seat whose view the screen shows, and how much it sees of each piece
    /// (by unit index); `None` when everything is shown (an open game, or no human).
    viewer: Option<Viewer>,
    /// The referee's decision the game waits for now, if it waits only for seats of no
    /// side (worked out with the seat at the screen, after every change).
    referee: Option<RefereeWait>,
}

/// A decision the game waits for from a referee (a seat of no side): an umpire's
/// battle result. Found as `muster play --referee` finds it (`src/entry.rs`).
#[derive(Clone, Debug)]
pub struct RefereeWait {
    /// The first referee seat waited for.
    pub seat: SeatId,
    /// Who holds it: a person fills the offer's form; a computer takes the offer as
    /// listed (the rules' computer referee enters the values).
    pub kind: PlayerKind,
    /// The offers addressed to the referee seats waited for, the first taken first.
    pub offers: Vec<Offer>,
}

/// The seat at the screen, and what it sees now.
#[derive(Clone, Debug)]
pub struct Viewer {
    pub seat: SeatId,
    /// The game waits for this seat now (it acts, rather than watches).
    pub acting: bool,
    /// What the seat sees of each piece, by [`UnitId`] index.
    pub sight: Vec<Sight>,
    /// The other human seats the game waits for now, to hand the screen to.
    pub others: Vec<SeatId>,
}

impl Viewer {
    /// How much of `unit` the seat sees.
    pub fn sight(&self, unit: UnitId) -> Sight {
        self.sight.get(unit.index()).copied().unwrap_or(Sight::None)
    }
}

/// Who plays each seat: as given, or each seat as its side is played.
fn seat_players(
    module: &Module,
    players: &[PlayerKind],
    seats: &[PlayerKind],
) -> Result<Vec<PlayerKind>, SessionError> {
    if seats.is_empty() {
        return Ok(module
            .seats
            .iter()
            .map(|s| {
                s.side
                    .and_then(|side| players.get(side.index()).copied())
                    .unwrap_or(PlayerKind::Human)
            })
            .collect());
    }
    if seats.len() != module.seats.len() {
        return Err(SessionError::Seats {
            seats: module.seats.len(),
            players: seats.len(),
        });
    }
    Ok(seats.to_vec())
}

/// Who plays each side, from its seats: a side of computer seats is played by the
/// first one's computer; a side with a human seat is human. A side whose seats mix
/// people and computers is refused (the computer players play whole sides).
fn side_players(module: &Module, seats: &[PlayerKind]) -> Result<Vec<PlayerKind>, SessionError> {
    module
        .side_ids()
        .map(|side| {
            let kinds: Vec<PlayerKind> = module.seats_of(side).map(|s| seats[s.index()]).collect();
            let human = kinds.iter().filter(|k| **k == PlayerKind::Human).count();
            match kinds.first() {
                None => Ok(PlayerKind::Human),
                Some(_) if human == kinds.len() => Ok(PlayerKind::Human),
                Some(&first) if human == 0 => Ok(first),
                Some(_) => Err(SessionError::MixedSide {
                    side: module.side(side).name.clone(),
                }),
            }
        })
        .collect()
}

/// Whether some seat may not see everything: the seats' data, or a `sees` rule.
fn is_hidden(module: &Module, rules: &ScriptRules) -> bool {
    !module.all_open() || rules.answers(SEES)
}

/// Computer players for `players`, seeded as `muster play` seeds them.
fn computers(players: &[PlayerKind], seed: u64) -> Vec<Option<Box<dyn Player>>> {
    players
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            PlayerKind::Human | PlayerKind::ByFile => None,
            // The search runs on every core, each thread on rules of its own; its
            // choices do not depend on how many.
            PlayerKind::Computer(level @ Level::Strong { .. }) => Some(muster_ai::player_with(
                *level,
                muster_ai::side_seed(seed, i),
                std::thread::available_parallelism().map_or(1, |n| n.get()),
                Some(muster_scripting::loader(Limits::default())),
            )),
            PlayerKind::Computer(level) => {
                Some(muster_ai::player(*level, muster_ai::side_seed(seed, i)))
            }
        })
        .collect()
}

impl Session {
    /// Starts `game` with `module`; nothing is kept if any part fails.
    pub fn new(module: Arc<Module>, game: &NewGame) -> Result<Self, SessionError> {
        if game.players.len() != module.sides.len() {
            return Err(SessionError::Players {
                sides: module.sides.len(),
                players: game.players.len(),
            });
        }
        let seats = seat_players(&module, &game.players, &game.seats)?;
        let players = if game.seats.is_empty() {
            game.players.clone()
        } else {
            side_players(&module, &seats)?
        };
        let mut rules = ScriptRules::load(&module, Limits::default())?;
        rules.keep_logged(true);
        let scenario = module
            .scenario(&game.scenario)
            .cloned()
            .ok_or_else(|| SessionError::UnknownScenario(game.scenario.clone()))?;
        let option_ids = game
            .options
            .iter()
            .map(|o| {
                module
                    .find_option(o)
                    .ok_or_else(|| SessionError::UnknownOption(o.clone()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (mut first, log) = start(
            &module,
            &mut rules,
            &scenario,
            option_ids,
            Dice::seeded(game.seed),
        )?;
        let end = game.end.as_deref().map(str::trim).filter(|e| !e.is_empty());
        if let Some(end) = end {
            set_end(&module, &mut first, end).map_err(SessionError::End)?;
        }
        let mut header = vec![format!(
            "{} - {} (seed {})",
            module.name, scenario.name, game.seed
        )];
        let rule_lines = mark_rule_lines(&log, rules.take_logged(), header.len());
        header.extend(log.into_iter().map(|l| format!("  {l}")));
        let mut session = Session {
            computers: computers(&players, game.seed),
            players,
            rules,
            history: History::new(first),
            log: header,
            rule_lines,
            seed: game.seed,
            scenario: SavedScenario {
                id: scenario.id.clone(),
                xml: None,
            },
            options: game.options.clone(),
            end: end.map(str::to_owned),
            reseeds: Vec::new(),
            legal: None,
            referee: None,
            progress: None,
            threats: None,
            floor: 0,
            hidden: false,
            seats,
            seat_logs: Vec::new(),
            takers: Vec::new(),
            viewer: None,
            module,
        };
        session.seat_up(1);
        Ok(session)
    }

    /// Sets up what each seat sees, once the game is built: whether anything is
    /// hidden, each seat's log (the game's first `public` lines: the title; when nothing
    /// is hidden the setup lines too), and the seat at the screen.
    fn seat_up(&mut self, public: usize) {
        self.hidden = is_hidden(&self.module, &self.rules);
        let shared: Vec<String> = if self.hidden {
            self.log.iter().take(public).cloned().collect()
        } else {
            self.log.clone()
        };
        self.seat_logs = vec![shared; self.module.seats.len()];
        self.refresh_view();
    }

    /// Works out the seat at the screen for the position now: the human seat the game
    /// waits for, else the one there before (a computer acts: the human watches what
    /// his seat sees), else the first human seat. Nothing is hidden in an open game,
    /// or when no human plays.
    fn refresh_view(&mut self) {
        self.referee = self.referee_wait();
        if !self.hidden && !self.sealing() {
            self.viewer = None;
            return;
        }
        let awaited =
            awaited(&self.module, &mut self.rules, self.history.state()).unwrap_or_else(|e| {
                tracing::warn!("who the game waits for: {e}");
                Vec::new()
            });
        let human = |s: &SeatId| self.seats.get(s.index()) == Some(&PlayerKind::Human);
        let before = self.viewer.as_ref().map(|v| v.seat);
        let humans: Vec<SeatId> = awaited.iter().copied().filter(human).collect();
        // A seat keeps the screen while the game still waits for it (two seats of a
        // side sharing a turn: until it hands over).
        let acting = before
            .filter(|s| humans.contains(s))
            .or(humans.first().copied());
        let seat = acting
            .or(before)
            .or_else(|| self.module.seat_ids().find(human));
        let Some(seat) = seat else {
            self.viewer = None;
            return;
        };
        let sight = if self.hidden {
            let (sight, errors) = sights(&self.module, &mut self.rules, self.history.state(), seat);
            for e in errors {
                // For whoever runs the game, not for the screen: it may name what the
                // seat may not see.
                tracing::warn!("what {} sees: {e}", self.module.seat(seat).id);
            }
            sight
        } else {
            vec![Sight::Full; self.state().units.len()]
        };
        self.viewer = Some(Viewer {
            seat,
            acting: acting == Some(seat),
            sight,
            others: humans.into_iter().filter(|&s| s != seat).collect(),
        });
    }

    /// The referee's decision the game waits for, if it waits only for seats of no side
    /// and one of them is offered something.
    fn referee_wait(&mut self) -> Option<RefereeWait> {
        // Most modules have no referee: no rules asked after every action for them.
        if self.module.seats.iter().all(|s| s.side.is_some()) {
            return None;
        }
        let state = self.history.state();
        let seats = awaited(&self.module, &mut self.rules, state).unwrap_or_else(|e| {
            tracing::warn!("who the game waits for: {e}");
            Vec::new()
        });
        if seats.is_empty() || seats.iter().any(|&s| self.module.seat(s).side.is_some()) {
            return None;
        }
        let offers: Vec<Offer> = offer::offers(&self.module, &mut self.rules, state)
            .unwrap_or_else(|e| {
                tracing::warn!("the referee's offers: {e}");
                Vec::new()
            })
            .into_iter()
            .filter(|o| o.seat.is_some_and(|s| seats.contains(&s)))
            .collect();
        let seat = offers.first()?.seat?;
        Some(RefereeWait {
            seat,
            kind: self
                .seats
                .get(seat.index())
                .copied()
                .unwrap_or(PlayerKind::Human),
            offers,
        })
    }

    /// The referee's decision the game waits for now, if any.
    pub fn referee(&self) -> Option<&RefereeWait> {
        self.referee.as_ref()
    }

    /// The offer whose form a person at this screen fills now: the game waits for a
    /// human referee, whose first offer has a form.
    pub fn entry_due(&self) -> Option<&Offer> {
        self.referee
            .as_ref()
            .filter(|r| r.kind == PlayerKind::Human)
            .and_then(|r| r.offers.first())
            .filter(|o| !o.form.is_empty())
    }

    /// Whether the computer referee is to act (the game waits for a referee seat a
    /// computer holds, and is not over).
    fn computer_referee(&self) -> bool {
        self.outcome().is_none()
            && self
                .referee
                .as_ref()
                .is_some_and(|r| matches!(r.kind, PlayerKind::Computer(_)))
    }

    /// Gives the screen to `seat`, another human seat the game waits for too (two seats
    /// of a side sharing a turn); false, and nothing changes, for any other seat.
    pub fn hand_to(&mut self, seat: SeatId) -> bool {
        let Some(v) = self.viewer.as_mut().filter(|v| v.others.contains(&seat)) else {
            return false;
        };
        v.seat = seat;
        self.legal = None;
        self.refresh_view();
        true
    }

    /// Whether a sealed choice is being made: the choices made so far stay hidden from
    /// the other seats, even in an open game.
    pub fn sealing(&self) -> bool {
        self.state().sealed.is_some()
    }

    /// Whether some seat may not see everything: the app shows one seat's view.
    pub fn hidden(&self) -> bool {
        self.hidden
    }

    /// The human seat whose view is on screen, if the screen shows one seat's view.
    pub fn viewer(&self) -> Option<&Viewer> {
        self.viewer.as_ref()
    }

    /// Who plays each seat, in the module's seat order.
    pub fn seat_players(&self) -> &[PlayerKind] {
        &self.seats
    }

    /// How much of `unit` the screen may show: everything unless a seat's view is on.
    pub fn sight(&self, unit: UnitId) -> Sight {
        match &self.viewer {
            Some(v) if self.hidden => v.sight(unit),
            _ => Sight::Full,
        }
    }

    /// Whether the seat at the screen sees every piece in `at` fully: odds are
    /// estimated only then (they would tell a hidden piece's strength).
    pub fn all_seen_at(&self, at: muster_core::ids::BoxId) -> bool {
        self.state()
            .units_at(at)
            .all(|u| self.sight(u) == Sight::Full)
    }

    /// The log as the screen shows it: the seat's own (`seat_log`) while a seat's view
    /// is on, else the whole log.
    pub fn shown_log(&self) -> &[String] {
        match &self.viewer {
            Some(v) => self
                .seat_logs
                .get(v.seat.index())
                .map_or(&[][..], Vec::as_slice),
            None => &self.log,
        }
    }

    /// The rules' own lines among [`Session::shown_log`] (none in a seat's log).
    pub fn shown_rule_lines(&self) -> &[usize] {
        match &self.viewer {
            Some(_) => &[],
            None => &self.rule_lines,
        }
    }

    /// A game played by file, at `history` (the game as its files left it, and perhaps
    /// the stretch its author is playing): actions before `floor` were sent and are not
    /// taken back. `seed` and `reseeds` are the files' dice, so a save replays.
    #[allow(clippy::too_many_arguments)]
    pub fn by_file(
        module: Arc<Module>,
        mut rules: ScriptRules,
        history: History,
        players: Vec<PlayerKind>,
        scenario: SavedScenario,
        options: Vec<String>,
        end: Option<String>,
        (seed, reseeds): (u64, Vec<Reseed>),
        floor: usize,
        log: Vec<String>,
    ) -> Self {
        rules.take_logged();
        rules.take_output();
        rules.keep_logged(true);
        let seats = seat_players(&module, &players, &[]).unwrap_or_default();
        // Who took the files' actions is not known here: any may be taken back, as before.
        let takers = vec![None; history.actions().len()];
        let mut session = Session {
            computers: computers(&players, seed),
            players,
            rules,
            history,
            log,
            rule_lines: Vec::new(),
            seed,
            reseeds,
            scenario,
            options,
            end,
            legal: None,
            referee: None,
            progress: None,
            threats: None,
            floor,
            hidden: false,
            seats,
            seat_logs: Vec::new(),
            takers,
            viewer: None,
            module,
        };
        session.seat_up(1);
        session
    }

    /// The game so far was sent in a turn file: nobody here decides for any side, and
    /// none of it is taken back, until the next file is read.
    pub fn hand_over(&mut self) {
        for p in self.players.iter_mut().chain(&mut self.seats) {
            *p = PlayerKind::ByFile;
        }
        self.computers = computers(&self.players, self.seed);
        self.refresh_view();
        self.floor = self.history.actions().len();
        self.legal = None;
        self.progress = None;
        self.threats = None;
    }

    /// Takes the rules out of the session (to read a game by file with them again).
    pub fn into_rules(self) -> ScriptRules {
        self.rules
    }

    /// Reads a save and replays it with `module`, checking it as `muster replay` does.
    /// `players` says who plays each side from here on (a save does not record it).
    pub fn load(
        module: Arc<Module>,
        path: &Path,
        players: Vec<PlayerKind>,
    ) -> Result<Self, SessionError> {
        Self::load_with(module, path, players, false).map(|(s, _)| s)
    }

    /// [`Session::load`] for a save the module as it is now refuses (it changed since,
    /// [`SessionError::module_changed`]): its actions replayed until one no longer
    /// applies, the game going on from there; with what the replay found, in words.
    pub fn load_as_far_as_it_goes(
        module: Arc<Module>,
        path: &Path,
        players: Vec<PlayerKind>,
    ) -> Result<(Self, Vec<String>), SessionError> {
        Self::load_with(module, path, players, true)
    }

    fn load_with(
        module: Arc<Module>,
        path: &Path,
        players: Vec<PlayerKind>,
        as_far: bool,
    ) -> Result<(Self, Vec<String>), SessionError> {
        if players.len() != module.sides.len() {
            return Err(SessionError::Players {
                sides: module.sides.len(),
                players: players.len(),
            });
        }
        let mut save = Save::read(path)?;
        let mut rules = ScriptRules::load(&module, Limits::default())?;
        // The engine's replay checks the module, the options and the snapshot.
        let mut report = Vec::new();
        if as_far {
            let partial = save.replay_as_far_as_it_goes(&module, &mut rules)?;
            report = partial.report(save.actions.len());
            save.actions.truncate(partial.history.actions().len());
        } else {
            save.replay(&module, &mut rules)?;
        }
        rules.keep_logged(true);
        // Played again into a history, so the log and undo work as in a new game.
        let scenario = save.scenario(&module)?;
        let (mut first, start_log) = start(
            &module,
            &mut rules,
            &scenario,
            save.option_ids(&module)?,
            Dice::seeded(save.seed),
        )?;
        if let Some(end) = &save.end {
            set_end(&module, &mut first, end).map_err(SessionError::End)?;
        }
        let seats = seat_players(&module, &players, &[])?;
        let mut session = Session {
            computers: computers(&players, save.seed),
            players,
            rules,
            history: History::new(first),
            log: vec![format!(
                "{} - {} (seed {}), loaded from {}",
                module.name,
                scenario.name,
                save.seed,
                path.display()
            )],
            rule_lines: Vec::new(),
            seed: save.seed,
            scenario: save.scenario.clone(),
            options: save.options.clone(),
            end: save.end.clone(),
            reseeds: Vec::new(),
            legal: None,
            referee: None,
            progress: None,
            threats: None,
            floor: 0,
            hidden: false,
            seats,
            seat_logs: Vec::new(),
            takers: Vec::new(),
            viewer: None,
            module,
        };
        session.rule_lines = mark_rule_lines(&start_log, session.rules.take_logged(), 1);
        session
            .log
            .extend(start_log.into_iter().map(|l| format!("  {l}")));
        session.seat_up(1);
        session
            .record_saved(&save.actions, &save.reseeds)
            .map_err(|(_, e)| e)?;
        session.log.extend(report.iter().cloned());
        // Once, not after every action replayed: the seat at the screen now.
        session.refresh_view();
        Ok((session, report))
    }

    /// Where the game stood, in words: `08/1861, Union, Movement`, for messages.
    pub fn whereabouts(&self) -> String {
        let state = self.state();
        let turn = &self.module.calendar.turn(state.turn).label;
        let side = &self.module.side(state.active_side(&self.module)).name;
        let step = state
            .current_step(&self.module)
            .map_or("-", |s| s.name.as_str());
        format!("{turn}, {side}, {step}")
    }

    /// The file a game stopped by a rule failure is saved to: the CLI's name for it
    /// (`muster-MODULE-SEED-failed.json`), in `dir`.
    pub fn failure_save_path(&self, dir: &Path) -> PathBuf {
        dir.join(muster_core::game::save::failure_file_name(
            &self.module.id,
            self.seed,
        ))
    }

    /// Writes the game to `path` (atomically, as the engine's saves are).
    pub fn save(&self, path: &Path) -> Result<(), SessionError> {
        self.to_save().write(path)?;
        Ok(())
    }

    /// The game as the engine's save record.
    fn to_save(&self) -> Save {
        let mut save = Save::new(
            &self.module,
            self.scenario.clone(),
            self.options.clone(),
            self.seed,
            self.history.actions().to_vec(),
            self.state().clone(),
        );
        save.end = self.end.clone();
        save.reseeds = self.reseeds.clone();
        save
    }

    /// The same game played again from its start on `module` and its rules as they
    /// are on disk now (hot reload): same scenario, options, end and seed, every action
    /// applied again through the engine. `self` is untouched; on any error nothing is
    /// built. Unlike [`Session::load`] the module's content hash is not checked (it is
    /// expected to differ) and neither is the final state: the new rules may change it.
    /// The log is told again by the new rules (a changed rule's line is the new one),
    /// under the game's title line, and ends with the reload's own line.
    pub fn rebuild(&self, module: Arc<Module>) -> Result<Session, RebuildError> {
        fn start_again(e: impl Into<SessionError>) -> RebuildError {
            RebuildError::Start(e.into())
        }
        let save = self.to_save();
        let mut rules =
            ScriptRules::load(&module, Limits::default()).map_err(RebuildError::Rules)?;
        rules.keep_logged(true);
        // Played again into a history, as a load does, so that every line of the log and
        // of each seat's log is the new rules' own; the first action they refuse is
        // named. The module's hash is not checked: it is expected to differ.
        let total = save.actions.len();
        let scenario = save.scenario(&module).map_err(start_again)?;
        let options = save.option_ids(&module).map_err(start_again)?;
        let (mut first, start_log) = start(
            &module,
            &mut rules,
            &scenario,
            options,
            Dice::seeded(save.seed),
        )
        .map_err(start_again)?;
        if let Some(end) = &save.end {
            set_end(&module, &mut first, end).map_err(|e| start_again(SessionError::End(e)))?;
        }
        let title = self.log.first().cloned().unwrap_or_default();
        let mut session = Session {
            computers: computers(&self.players, self.seed),
            players: self.players.clone(),
            rules,
            history: History::new(first),
            log: vec![title],
            rule_lines: Vec::new(),
            seed: self.seed,
            reseeds: Vec::new(),
            scenario: self.scenario.clone(),
            options: self.options.clone(),
            end: self.end.clone(),
            legal: None,
            referee: None,
            progress: None,
            threats: None,
            floor: 0,
            hidden: false,
            seats: self.seats.clone(),
            seat_logs: Vec::new(),
            takers: Vec::new(),
            viewer: self.viewer.clone(),
            module,
        };
        session.rule_lines = mark_rule_lines(&start_log, session.rules.take_logged(), 1);
        session
            .log
            .extend(start_log.into_iter().map(|l| format!("  {l}")));
        session.seat_up(1);
        if let Err((i, e)) = session.record_saved(&save.actions, &save.reseeds) {
            return Err(match e {
                SessionError::Action(error) => RebuildError::Action {
                    number: i + 1,
                    total,
                    // The position it was refused in: a refused action changes nothing.
                    action: describe::action_checked(
                        &session.module,
                        session.state(),
                        &save.actions[i],
                    ),
                    error,
                },
                other => start_again(other),
            });
        }
        session.floor = self.floor;
        let line = format!("rules reloaded: {total} actions replayed");
        for out in &mut session.seat_logs {
            out.push(line.clone());
        }
        session.log.push(line);
        session.refresh_view();
        Ok(session)
    }

    /// The settings this game was started with, to start it anew (a scenario that a
    /// save carried inside it is looked up by id in the module).
    pub fn settings(&self) -> NewGame {
        NewGame {
            scenario: self.scenario.id.clone(),
            options: self.options.clone(),
            end: self.end.clone(),
            players: self.players.clone(),
            seats: self.seats.clone(),
            seed: self.seed,
        }
    }

    pub fn module(&self) -> &Arc<Module> {
        &self.module
    }

    pub fn state(&self) -> &GameState {
        self.history.state()
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Which lines of [`Session::log`] the rules logged (indices, ascending).
    pub fn rule_lines(&self) -> &[usize] {
        &self.rule_lines
    }

    pub fn log(&self) -> &[String] {
        &self.log
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn players(&self) -> &[PlayerKind] {
        &self.players
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.state().outcome.as_ref()
    }

    /// The side to act now.
    pub fn decider(&self) -> SideId {
        decider(&self.module, self.state())
    }

    /// Whether a computer plays the side to act (and the game is not over).
    pub fn computer_to_act(&self) -> bool {
        if let Some(r) = &self.referee {
            // A referee's decision: the computer referee's, or a person's form.
            return self.outcome().is_none() && matches!(r.kind, PlayerKind::Computer(_));
        }
        self.outcome().is_none()
            && matches!(
                self.players[self.decider().index()],
                PlayerKind::Computer(_)
            )
    }

    /// The rules, for the odds calculator.
    pub fn rules_mut(&mut self) -> &mut ScriptRules {
        &mut self.rules
    }

    /// The legal actions now, as the engine lists them (empty once the game is over).
    pub fn legal(&mut self) -> Result<&[Action], String> {
        if self.legal.is_none() {
            let list = if self.outcome().is_some() {
                Ok(Vec::new())
            } else if let Some(v) = self.viewer.as_ref().filter(|v| v.acting) {
                // The seat at the screen acts: only what it may do (its pieces, the
                // offers addressed to it).
                legal_actions_for(&self.module, &mut self.rules, self.history.state(), v.seat)
                    .map_err(|e| e.to_string())
            } else {
                legal_actions(&self.module, &mut self.rules, self.history.state())
                    .map_err(|e| e.to_string())
            };
            // A human referee's offers with a form are taken through the form (the
            // offer as listed would let the computer referee decide).
            let list = match self
                .referee
                .as_ref()
                .filter(|r| r.kind == PlayerKind::Human)
            {
                Some(r) => list.map(|all| {
                    all.into_iter()
                        .filter(|a| {
                            !r.offers
                                .iter()
                                .any(|o| !o.form.is_empty() && *a == o.action())
                        })
                        .collect()
                }),
                None => list,
            };
            self.legal = Some(list);
        }
        match self.legal.as_ref() {
            Some(Ok(list)) => Ok(list),
            Some(Err(e)) => Err(e.clone()),
            None => Ok(&[]),
        }
    }

    /// How near each side is to its victory conditions, as the rules count it (the
    /// `victory_progress` hint); nothing if the rules give none or fail at it.
    pub fn victory_progress(&mut self) -> &[Progress] {
        if self.progress.is_none() {
            let view = muster_core::game::View {
                module: &self.module,
                state: self.history.state(),
            };
            let list = self.rules.victory_progress(view).unwrap_or_else(|e| {
                tracing::warn!("victory_progress: {e}");
                Vec::new()
            });
            self.progress = Some(list);
        }
        self.progress.as_deref().unwrap_or_default()
    }

    /// The victory conditions a side could meet on its next player turn, as the rules
    /// see them (the `victory_threats` hint); nothing if the rules give none or fail.
    /// Nothing either in a module that hides information: the rules read the whole
    /// state, so a threat could betray an unseen piece (fails closed).
    pub fn victory_threats(&mut self) -> &[Threat] {
        if self.threats.is_none() && !self.module.all_open() {
            self.threats = Some(Vec::new());
        }
        if self.threats.is_none() {
            let view = muster_core::game::View {
                module: &self.module,
                state: self.history.state(),
            };
            let list = self.rules.victory_threats(view).unwrap_or_else(|e| {
                tracing::warn!("victory_threats: {e}");
                Vec::new()
            });
            self.threats = Some(list);
        }
        self.threats.as_deref().unwrap_or_default()
    }

    /// Applies `action` for the side to act; on error nothing changes.
    pub fn apply(&mut self, action: Action) -> Result<(), SessionError> {
        if self.outcome().is_some() {
            return Err(SessionError::Over);
        }
        self.record(action)?;
        // A human move may spoil a computer's plan.
        for c in self.computers.iter_mut().flatten() {
            c.forget();
        }
        Ok(())
    }

    /// Takes an organisation (a formation's member moved or left as a garrison) for the
    /// seat at the screen: refused with the engine's reason when that seat may not (a
    /// commander names another's formation) or the rules say no (`why_not`, which tells
    /// nothing where information is hidden: then the engine's own refusal).
    pub fn organise(&mut self, action: Action) -> Result<(), String> {
        // Fails closed: a piece the screen does not show fully is not named back, even
        // in a refusal (the panel never offers one; this is for any other caller).
        let named: Vec<UnitId> = match &action {
            Action::Organize { changes } => changes
                .iter()
                .flat_map(|c| std::iter::once(c.unit).chain(c.to))
                .collect(),
            Action::Drop { unit, .. } => vec![*unit],
            _ => return Err("that is no organisation of formations".into()),
        };
        if named
            .iter()
            .any(|&u| u.index() >= self.state().units.len() || self.sight(u) != Sight::Full)
        {
            return Err("that names a piece this seat does not see".into());
        }
        if let Some(v) = self.viewer.as_ref().filter(|v| v.acting) {
            let seat = v.seat;
            allowed_by(
                &self.module,
                &mut self.rules,
                self.history.state(),
                seat,
                &action,
            )
            .map_err(|e| e.to_string())?;
        }
        match self.apply(action.clone()) {
            Ok(()) => Ok(()),
            Err(SessionError::Action(e)) => {
                let why = super::refusal::why(self, &action);
                Err(if why.is_empty() || why.contains("is possible now") {
                    e.to_string()
                } else {
                    why
                })
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// Why the seat at the screen may not move `unit`, a piece of its side that its
    /// list offers no move of: the engine's refusal of the side's first move of it
    /// (a commander's seat: "McDowell does not command III Corps", seed 001 §2), else
    /// that no move of it is open. Asked on a click only.
    pub fn why_not_moved(&mut self, unit: UnitId) -> String {
        let module = self.module.clone();
        let state = self.state().clone();
        if unit.index() >= state.units.len() || self.sight(unit) != Sight::Full {
            return String::new();
        }
        let side = legal_actions(&module, &mut self.rules, &state).unwrap_or_default();
        let Some(first) = side
            .into_iter()
            .find(|a| matches!(a, Action::Move { unit: u, .. } if *u == unit))
        else {
            return format!(
                "no move of {} is open now",
                describe::unit(&module, &state, unit)
            );
        };
        let refused = match self.viewer.as_ref().filter(|v| v.acting) {
            Some(v) => allowed_by(&module, &mut self.rules, &state, v.seat, &first).err(),
            None => None,
        };
        match refused {
            Some(e) => e.to_string(),
            None => super::refusal::why(self, &first),
        }
    }

    /// [`Session::record_only`], then the seat at the screen worked out anew.
    fn record(&mut self, action: Action) -> Result<(), SessionError> {
        self.record_only(action)?;
        self.refresh_view();
        Ok(())
    }

    /// Applies and logs `action` (a load replays a save's actions with this).
    /// Records a save's `actions` after the start, as they were played, each saved
    /// reseed in its place (a load, a hot reload). On a refused action: its 0-based
    /// index and why.
    fn record_saved(
        &mut self,
        actions: &[Action],
        reseeds: &[Reseed],
    ) -> Result<(), (usize, SessionError)> {
        let reseed = |s: &mut Self, before: usize| {
            if let Some(r) = reseeds.iter().find(|r| r.before == before) {
                s.history.reseed(Dice::seeded(r.seed));
            }
        };
        for (i, action) in actions.iter().enumerate() {
            reseed(self, i);
            self.record_only(action.clone()).map_err(|e| (i, e))?;
        }
        let n = self.history.actions().len();
        reseed(self, n);
        self.reseeds = reseeds.iter().filter(|r| r.before <= n).copied().collect();
        Ok(())
    }

    fn record_only(&mut self, action: Action) -> Result<(), SessionError> {
        self.rules.take_logged(); // whatever an earlier failed action left
        let before = self.state().clone();
        let side = decider(&self.module, &before);
        let log = self
            .history
            .apply(&self.module, &mut self.rules, action.clone())?;
        self.note(side, &before, &action, log);
        Ok(())
    }

    fn note(&mut self, side: SideId, before: &GameState, action: &Action, log: Vec<String>) {
        self.legal = None;
        self.progress = None;
        self.threats = None;
        self.takers.push(Some(side));
        // A referee's decision is the referee's, not the side on move's.
        let who = match action {
            Action::Take { seat: Some(s), .. } if self.module.seat(*s).side.is_none() => {
                self.module.seat(*s).name.clone()
            }
            _ => self.module.side(side).name.clone(),
        };
        self.log.push(format!(
            "[{who}] {}",
            describe::action(&self.module, before, action)
        ));
        let script = self.rules.take_output();
        // Each seat's log, as that seat may read it; a script's prints only where
        // nothing is hidden (they may name anything).
        for seat in self.module.seat_ids() {
            let (lines, errors) = seat_log(
                &self.module,
                &mut self.rules,
                before,
                action,
                self.history.state(),
                &log,
                seat,
            );
            for e in errors {
                tracing::warn!("what {} reads: {e}", self.module.seat(seat).id);
            }
            let Some(out) = self.seat_logs.get_mut(seat.index()) else {
                continue;
            };
            let mut lines = lines.into_iter();
            if let Some(words) = lines.next() {
                out.push(format!("[{who}] {words}"));
            }
            out.extend(lines.map(|l| format!("  {l}")));
            if !self.hidden {
                out.extend(script.iter().map(|l| format!("  (script) {l}")));
            }
        }
        let ruled = self.rules.take_logged();
        self.rule_lines
            .extend(mark_rule_lines(&log, ruled, self.log.len()));
        self.log.extend(log.into_iter().map(|l| format!("  {l}")));
        self.log
            .extend(script.into_iter().map(|l| format!("  (script) {l}")));
    }

    /// Whether [`Session::undo`] would take an action back.
    pub fn can_undo(&self) -> bool {
        self.history.actions().len() > self.floor && self.history.can_undo() && self.own_last()
    }

    /// Whether the last action may be taken back at this screen: always, unless one
    /// seat's view is on and another side took it (taking it back would show what
    /// that seat did behind the hand-over screen).
    fn own_last(&self) -> bool {
        let Some(v) = &self.viewer else { return true };
        let mine = self.module.seat(v.seat).side;
        self.takers
            .last()
            .is_none_or(|&t| t.is_none_or(|t| Some(t) == mine))
    }

    /// Takes back the last action, while the engine allows it.
    pub fn undo(&mut self) -> Result<Action, SessionError> {
        if self.history.actions().len() <= self.floor {
            return Err(SessionError::Sent);
        }
        if !self.own_last() {
            return Err(SessionError::NotYours);
        }
        let secret = self.hidden || self.sealing();
        let undone = self.history.undo()?;
        self.takers.pop();
        self.legal = None;
        self.progress = None;
        self.threats = None;
        for c in self.computers.iter_mut().flatten() {
            c.forget();
        }
        let line = format!(
            "undone: {}",
            describe::action(&self.module, self.state(), &undone)
        );
        let secret = secret || self.sealing();
        for out in &mut self.seat_logs {
            out.push(if secret {
                "undone: the last action".into()
            } else {
                line.clone()
            });
        }
        self.log.push(line);
        self.refresh_view();
        Ok(undone)
    }

    /// Takes the computer player of the side to act out of its seat, to think on
    /// another thread (see [`super::thinker`]): its side's index and the player.
    pub fn take_computer(&mut self) -> Option<(usize, Box<dyn Player>)> {
        // The computer referee does not think: see [`Session::ai_step`].
        if !self.computer_to_act() || self.referee.is_some() {
            return None;
        }
        let side = self.decider().index();
        self.computers[side].take().map(|p| (side, p))
    }

    /// Puts a player taken by [`Session::take_computer`] back in its seat.
    pub fn seat_computer(&mut self, side: usize, player: Box<dyn Player>) {
        if let Some(seat) = self.computers.get_mut(side)
            && seat.is_none()
            && matches!(self.players[side], PlayerKind::Computer(_))
        {
            *seat = Some(player);
        }
    }

    /// Whether the computer of the side to act is in its seat (not thinking elsewhere).
    pub fn computer_seated(&self) -> bool {
        self.computer_referee()
            || self
                .computers
                .get(self.decider().index())
                .is_some_and(Option::is_some)
    }

    /// Applies the choice a computer made on another thread, as [`Session::ai_step`]
    /// would (the planner keeps its plan). If the engine refuses it, the computer
    /// chooses again here, as [`muster_ai::decide`] does.
    pub fn apply_computer(&mut self, action: Action) -> Result<Action, SessionError> {
        if self.outcome().is_some() {
            return Err(SessionError::Over);
        }
        match self.record(action.clone()) {
            Ok(()) => Ok(action),
            Err(SessionError::Action(ActionError::Illegal(why))) => {
                tracing::debug!("the computer's choice was refused ({why}); choosing again");
                let side = self.decider().index();
                if let Some(Some(c)) = self.computers.get_mut(side) {
                    c.forget();
                }
                self.ai_step()?.ok_or(SessionError::Over)
            }
            Err(e) => Err(e),
        }
    }

    /// One computer decision, if a computer is to act: the action taken, or `None` when
    /// a human must decide or the game is over.
    pub fn ai_step(&mut self) -> Result<Option<Action>, SessionError> {
        if !self.computer_to_act() {
            return Ok(None);
        }
        if self.computer_referee()
            && let Some(action) = self
                .referee
                .as_ref()
                .and_then(|r| r.offers.first())
                .map(Offer::action)
        {
            // The offer as listed: the rules' computer referee enters the values, from
            // the game's dice (`referee_entry`), as `muster play` does.
            self.record(action.clone())?;
            return Ok(Some(action));
        }
        self.rules.take_logged(); // whatever an earlier failed action left
        let before = self.state().clone();
        let side = decider(&self.module, &before);
        let Some(computer) = self.computers[side.index()].as_mut() else {
            return Ok(None);
        };
        let history = &mut self.history;
        let module = &self.module;
        let (action, log) = muster_ai::decide(
            computer.as_mut(),
            module,
            &mut self.rules,
            &before,
            |r, a| history.apply(module, r, a.clone()),
        )?;
        self.note(side, &before, &action, log);
        self.refresh_view();
        Ok(Some(action))
    }
}

/// The indices, counted from `first`, of the lines of `log` that are the rules' own
/// (`ruled`, in the order they were logged): each rule line is matched with the next
/// equal line of the log, which holds them in that order among the engine's.
fn mark_rule_lines(log: &[String], ruled: Vec<String>, first: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut next = ruled.into_iter().peekable();
    for (i, line) in log.iter().enumerate() {
        if next.peek() == Some(line) {
            out.push(first + i);
            next.next();
        }
    }
    out
}
