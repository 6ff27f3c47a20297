//! A game being played in the editor, without any UI: the module and its rules, the
//! [`History`], who plays each side, and the log. Every change goes through the
//! engine's `apply` (all-or-nothing); saves and loads use the engine's [`Save`], and a
//! load replays the save and checks it as `muster replay` does.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use muster_ai::{AiError, Level, Player};
use muster_core::Module;
use muster_core::game::flow::StartError;
use muster_core::game::rules::{Progress, Rules};
use muster_core::game::save::{Reseed, SavedScenario};
use muster_core::game::{
    Action, ActionError, Dice, GameState, History, Outcome, Save, SaveError, decider, describe,
    legal_actions, set_end, start,
};
use muster_core::ids::SideId;
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
    /// Actions before this many are not taken back (in a game by file: the ones sent).
    floor: usize,
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
        Ok(Session {
            computers: computers(&game.players, game.seed),
            players: game.players.clone(),
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
            progress: None,
            floor: 0,
            module,
        })
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
        Session {
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
            progress: None,
            floor,
            module,
        }
    }

    /// The game so far was sent in a turn file: nobody here decides for any side, and
    /// none of it is taken back, until the next file is read.
    pub fn hand_over(&mut self) {
        for p in &mut self.players {
            *p = PlayerKind::ByFile;
        }
        self.computers = computers(&self.players, self.seed);
        self.floor = self.history.actions().len();
        self.legal = None;
        self.progress = None;
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
            progress: None,
            floor: 0,
            module,
        };
        session.rule_lines = mark_rule_lines(&start_log, session.rules.take_logged(), 1);
        session
            .log
            .extend(start_log.into_iter().map(|l| format!("  {l}")));
        for (i, action) in save.actions.into_iter().enumerate() {
            if let Some(r) = save.reseeds.iter().find(|r| r.before == i) {
                session.history.reseed(Dice::seeded(r.seed));
            }
            session.record(action)?;
        }
        let n = session.history.actions().len();
        if let Some(r) = save.reseeds.iter().find(|r| r.before == n) {
            session.history.reseed(Dice::seeded(r.seed));
        }
        session.reseeds = save.reseeds;
        session.reseeds.retain(|r| r.before <= n);
        session.log.extend(report.iter().cloned());
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
    pub fn rebuild(&self, module: Arc<Module>) -> Result<Session, RebuildError> {
        let save = self.to_save();
        let mut rules =
            ScriptRules::load(&module, Limits::default()).map_err(RebuildError::Rules)?;
        // The engine's replay "as far as it goes", which does not check the hash.
        let partial = save
            .replay_as_far_as_it_goes(&module, &mut rules)
            .map_err(|e| RebuildError::Start(e.into()))?;
        let total = save.actions.len();
        if let Some(stopped) = partial.stopped {
            return Err(RebuildError::Action {
                number: stopped.index + 1,
                total,
                action: stopped.action,
                error: stopped.error,
            });
        }
        let history = partial.history;
        // The replay's script output was printed the first time round.
        rules.take_output();
        rules.keep_logged(true);
        let mut log = self.log.clone();
        log.push(format!("rules reloaded: {total} actions replayed"));
        Ok(Session {
            computers: computers(&self.players, self.seed),
            players: self.players.clone(),
            rules,
            history,
            log,
            rule_lines: self.rule_lines.clone(),
            seed: self.seed,
            reseeds: self.reseeds.clone(),
            scenario: self.scenario.clone(),
            options: self.options.clone(),
            end: self.end.clone(),
            legal: None,
            progress: None,
            floor: self.floor,
            module,
        })
    }

    /// The settings this game was started with, to start it anew (a scenario that a
    /// save carried inside it is looked up by id in the module).
    pub fn settings(&self) -> NewGame {
        NewGame {
            scenario: self.scenario.id.clone(),
            options: self.options.clone(),
            end: self.end.clone(),
            players: self.players.clone(),
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
            } else {
                legal_actions(&self.module, &mut self.rules, self.history.state())
                    .map_err(|e| e.to_string())
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

    fn record(&mut self, action: Action) -> Result<(), SessionError> {
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
        self.log.push(format!(
            "[{}] {}",
            self.module.side(side).name,
            describe::action(&self.module, before, action)
        ));
        let ruled = self.rules.take_logged();
        self.rule_lines
            .extend(mark_rule_lines(&log, ruled, self.log.len()));
        self.log.extend(log.into_iter().map(|l| format!("  {l}")));
        let script = self.rules.take_output();
        self.log
            .extend(script.into_iter().map(|l| format!("  (script) {l}")));
    }

    /// Whether [`Session::undo`] would take an action back.
    pub fn can_undo(&self) -> bool {
        self.history.actions().len() > self.floor && self.history.can_undo()
    }

    /// Takes back the last action, while the engine allows it.
    pub fn undo(&mut self) -> Result<Action, SessionError> {
        if self.history.actions().len() <= self.floor {
            return Err(SessionError::Sent);
        }
        let undone = self.history.undo()?;
        self.legal = None;
        self.progress = None;
        for c in self.computers.iter_mut().flatten() {
            c.forget();
        }
        self.log.push(format!(
            "undone: {}",
            describe::action(&self.module, self.state(), &undone)
        ));
        Ok(undone)
    }

    /// Takes the computer player of the side to act out of its seat, to think on
    /// another thread (see [`super::thinker`]): its side's index and the player.
    pub fn take_computer(&mut self) -> Option<(usize, Box<dyn Player>)> {
        if !self.computer_to_act() {
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
        self.computers
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
