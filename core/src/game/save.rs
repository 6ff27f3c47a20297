//! Saves: the module they were played with, the options, the seed, every action, and a
//! snapshot of the final state. Replaying the actions must give the snapshot back, bit
//! for bit; a save for other rules or data is refused with a clear error.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError};
use super::describe;
use super::dice::Dice;
use super::flow::{StartError, apply, decider, set_end, start};
use super::history::History;
use super::rules::Rules;
use super::sight::SEAT_VIEW;
use super::state::GameState;
use crate::diag::LoadError;
use crate::ids::OptionId;
use crate::module::{ENGINE_VERSION, Module, StackEntry};
use crate::scenario::Scenario;

/// Bumped when the save layout changes so that an older muster would misread it; older
/// formats are migrated on reading ([`MIGRATIONS`]).
///
/// - 1: the first.
/// - 2: `reseeds`, the dice given anew during the game (play by file), which a format-1
///   reader would ignore and so replay another game.
/// - 3: pieces' numbers in the snapshot (`Unit::number`); a format-2 snapshot has none
///   (`unnumbered`), so its replay is compared without them.
pub const SAVE_FORMAT: u32 = 3;

/// A migration takes a save's JSON from format `n` to `n + 1`.
type Migration = fn(&mut serde_json::Value) -> Result<(), String>;

/// Index `n - 1` migrates format `n`.
const MIGRATIONS: [Migration; SAVE_FORMAT as usize - 1] = [format_1_to_2, format_2_to_3];

/// Format 1 had no `reseeds`: its dice came from the seed alone.
fn format_1_to_2(save: &mut serde_json::Value) -> Result<(), String> {
    let object = save
        .as_object_mut()
        .ok_or("the save is not a JSON object")?;
    object.insert("reseeds".into(), serde_json::Value::Array(Vec::new()));
    object.insert("format".into(), 2.into());
    Ok(())
}

/// Format 2 had no piece numbers: its snapshot is compared without them.
fn format_2_to_3(save: &mut serde_json::Value) -> Result<(), String> {
    let object = save
        .as_object_mut()
        .ok_or("the save is not a JSON object")?;
    object.insert("unnumbered".into(), true.into());
    object.insert("format".into(), 3.into());
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Save {
    pub format: u32,
    /// The muster version that wrote it.
    pub engine: String,
    pub module: SavedModule,
    pub scenario: SavedScenario,
    /// Optional rules in force, by id.
    pub options: Vec<String>,
    /// An ending turn the players agreed on (e.g. AHD 11.3), if not the scenario's.
    #[serde(default)]
    pub end: Option<String>,
    pub seed: u64,
    /// Dice given anew before an action (a game played by file, where each player's
    /// stretch has dice both players drew), in action order.
    #[serde(default)]
    pub reseeds: Vec<Reseed>,
    pub actions: Vec<Action>,
    /// The state after the last action.
    pub snapshot: GameState,
    /// Written before pieces had numbers (format 2 or older): the snapshot has none, so
    /// a replay is compared with it without them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unnumbered: bool,
}

/// New dice from `before` on: the seeded generator of [`Dice::seeded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reseed {
    /// Index of the first action rolling them (the number of actions, for dice given
    /// after the last).
    pub before: usize,
    pub seed: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedModule {
    pub id: String,
    pub version: String,
    /// [`Module::content_hash`] as 16 hex digits.
    pub content_hash: String,
    /// Every module of the stack played, lowest first ([`Module::stack`]), so a replay
    /// can name the mod that changed. Empty in saves written before stacks.
    #[serde(default)]
    pub stack: Vec<SavedStackEntry>,
}

impl SavedModule {
    /// The record of `module` (and its stack) as loaded.
    pub fn of(module: &Module) -> Self {
        SavedModule {
            id: module.id.clone(),
            version: module.version.clone(),
            content_hash: hex(module.content_hash),
            stack: module
                .stack
                .iter()
                .map(|e| SavedStackEntry {
                    id: e.id.clone(),
                    version: e.version.clone(),
                    content_hash: hex(e.content_hash),
                })
                .collect(),
        }
    }

    /// Refuses another module or another version of its files; for a stack of mods,
    /// names the one that differs.
    pub fn check(&self, module: &Module) -> Result<(), SaveError> {
        if !self.stack.is_empty() {
            compare_stacks(&self.stack, &module.stack)?;
        }
        if self.id != module.id {
            return Err(SaveError::WrongModule {
                saved: self.id.clone(),
                loaded: module.id.clone(),
            });
        }
        if self.version != module.version {
            return Err(SaveError::Changed {
                what: "version",
                saved: self.version.clone(),
                loaded: module.version.clone(),
            });
        }
        if self.content_hash != hex(module.content_hash) {
            return Err(SaveError::Changed {
                what: "files hashing to",
                saved: self.content_hash.clone(),
                loaded: hex(module.content_hash),
            });
        }
        Ok(())
    }
}

/// The scenario a save (or a game played by file) names: one of the module's, or the
/// text of a scenario file.
pub fn saved_scenario(module: &Module, saved: &SavedScenario) -> Result<Scenario, SaveError> {
    match &saved.xml {
        Some(xml) => {
            crate::load::load_scenario_str(module, &format!("<saved scenario {}>", saved.id), xml)
                .map_err(|e| SaveError::Scenario(saved.id.clone(), e))
        }
        None => module.scenario(&saved.id).cloned().ok_or_else(|| {
            SaveError::Scenario(
                saved.id.clone(),
                LoadError {
                    diagnostics: Vec::new(),
                },
            )
        }),
    }
}

/// One module of the stack a game was played with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedStackEntry {
    pub id: String,
    pub version: String,
    /// [`StackEntry::content_hash`] as 16 hex digits.
    pub content_hash: String,
}

/// The scenario played: a scenario of the module, or the text of a scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedScenario {
    pub id: String,
    pub xml: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: the save is damaged: {message}")]
    Corrupt {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{path} is a save of format {found} (written by muster {engine}); this muster {} reads formats 1 to {SAVE_FORMAT}: open it with a newer muster",
        ENGINE_VERSION
    )]
    Format {
        path: String,
        found: u32,
        engine: String,
    },
    #[error(
        "{path}: the save of format {from} cannot be brought to format {SAVE_FORMAT}: {message}"
    )]
    Migration {
        path: String,
        from: u32,
        message: String,
    },
    #[error(
        "{path} is what one seat sees of a game (`muster view`), not a save: it cannot be replayed or played on; use the save of whoever holds the whole game"
    )]
    SeatView { path: String },
    #[error("{0}; replaying it could give another game")]
    Stack(String),
    #[error("the save was played with module '{saved}', not '{loaded}'")]
    WrongModule { saved: String, loaded: String },
    #[error(
        "the save was played with {what} {saved}, but the module now has {loaded}; replaying it could give another game"
    )]
    Changed {
        what: &'static str,
        saved: String,
        loaded: String,
    },
    #[error("the saved scenario '{0}' does not load")]
    Scenario(String, #[source] LoadError),
    #[error("the save names optional rule '{0}', which the module does not have")]
    UnknownOption(String),
    #[error(transparent)]
    Start(#[from] StartError),
    #[error("action {index} of the save ({action:?}) fails: {error}")]
    Action {
        index: usize,
        /// Boxed: an action is large, and every save function returns this error.
        action: Box<Action>,
        error: ActionError,
    },
    #[error("the save's ending turn: {0}")]
    End(String),
    #[error("replaying the save gives a different game: {0}")]
    Diverged(String),
}

fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

/// The file name a game stopped by a rule failure is saved under when no other is given,
/// by the CLI and the app alike: `muster-MODULE-SEED-failed.json`.
pub fn failure_file_name(module_id: &str, seed: u64) -> String {
    format!("muster-{module_id}-{seed}-failed.json")
}

impl Save {
    pub fn new(
        module: &Module,
        scenario: SavedScenario,
        options: Vec<String>,
        seed: u64,
        actions: Vec<Action>,
        snapshot: GameState,
    ) -> Self {
        Save {
            format: SAVE_FORMAT,
            engine: ENGINE_VERSION.to_string(),
            module: SavedModule::of(module),
            scenario,
            options,
            end: None,
            seed,
            reseeds: Vec::new(),
            actions,
            snapshot,
            unnumbered: false,
        }
    }

    /// `state` as this save would have recorded it: without piece numbers for a save
    /// written before they existed.
    fn as_saved<'a>(&self, state: &'a GameState) -> std::borrow::Cow<'a, GameState> {
        if !self.unnumbered {
            return std::borrow::Cow::Borrowed(state);
        }
        let mut plain = state.clone();
        plain.numbered = 0;
        for u in &mut plain.units {
            u.number = 0;
        }
        std::borrow::Cow::Owned(plain)
    }

    /// Writes the save atomically: to a temporary file beside it, then renamed over it,
    /// so a crash never leaves half a save.
    pub fn write(&self, path: &Path) -> Result<(), SaveError> {
        let io = |source| SaveError::Io {
            path: path.display().to_string(),
            source,
        };
        let json = serde_json::to_vec_pretty(self).map_err(|e| io(std::io::Error::other(e)))?;
        let tmp = path.with_extension("tmp~");
        let mut f = std::fs::File::create(&tmp).map_err(io)?;
        f.write_all(&json).map_err(io)?;
        f.write_all(b"\n").map_err(io)?;
        f.sync_all().map_err(io)?;
        drop(f);
        std::fs::rename(&tmp, path).map_err(io)
    }

    pub fn read(path: &Path) -> Result<Save, SaveError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| SaveError::Io {
            path: name.clone(),
            source,
        })?;
        // Check the format before the rest, so an old save is migrated and a newer one
        // says so instead of failing on some field.
        #[derive(Deserialize)]
        struct Head {
            format: u32,
            #[serde(default)]
            engine: String,
        }
        let corrupt = |e: serde_json::Error| SaveError::Corrupt {
            path: name.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        #[derive(Deserialize)]
        struct ViewHead {
            view: String,
        }
        if serde_json::from_slice::<ViewHead>(&bytes).is_ok_and(|v| v.view == SEAT_VIEW) {
            return Err(SaveError::SeatView { path: name });
        }
        let head: Head = serde_json::from_slice(&bytes).map_err(corrupt)?;
        if head.format == SAVE_FORMAT {
            return serde_json::from_slice(&bytes).map_err(corrupt);
        }
        if head.format == 0 || head.format > SAVE_FORMAT {
            return Err(SaveError::Format {
                path: name,
                found: head.format,
                engine: head.engine,
            });
        }
        let mut value: serde_json::Value = serde_json::from_slice(&bytes).map_err(corrupt)?;
        let migrated = |message: String| SaveError::Migration {
            path: name.clone(),
            from: head.format,
            message,
        };
        for migrate in &MIGRATIONS[head.format as usize - 1..] {
            migrate(&mut value).map_err(migrated)?;
        }
        serde_json::from_value(value).map_err(|e| migrated(e.to_string()))
    }

    /// Refuses a save made with another module or another version of its files; for a
    /// stack of mods, names the one that differs.
    pub fn check_module(&self, module: &Module) -> Result<(), SaveError> {
        self.module.check(module)
    }

    pub fn scenario(&self, module: &Module) -> Result<Scenario, SaveError> {
        saved_scenario(module, &self.scenario)
    }

    pub fn option_ids(&self, module: &Module) -> Result<Vec<OptionId>, SaveError> {
        self.options
            .iter()
            .map(|o| {
                module
                    .find_option(o)
                    .ok_or_else(|| SaveError::UnknownOption(o.clone()))
            })
            .collect()
    }

    /// The dice given anew before action `index`, if any (the last, if several).
    fn dice_before(&self, index: usize) -> Option<Dice> {
        self.reseeds
            .iter()
            .rev()
            .find(|r| r.before == index)
            .map(|r| Dice::seeded(r.seed))
    }

    /// Reseeds are in action order and within the game.
    fn check_reseeds(&self) -> Result<(), SaveError> {
        let ordered = self.reseeds.windows(2).all(|w| w[0].before < w[1].before);
        let within = self.reseeds.iter().all(|r| r.before <= self.actions.len());
        if ordered && within {
            Ok(())
        } else {
            Err(SaveError::Diverged(
                "its reseeds are not in action order within its actions".into(),
            ))
        }
    }

    /// The game's start as the save set it up (scenario, options, seed, end), its
    /// reseeds checked.
    fn started(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
    ) -> Result<(GameState, Vec<String>), SaveError> {
        self.check_reseeds()?;
        let scenario = self.scenario(module)?;
        let (mut state, log) = start(
            module,
            rules,
            &scenario,
            self.option_ids(module)?,
            Dice::seeded(self.seed),
        )?;
        if let Some(end) = &self.end {
            set_end(module, &mut state, end).map_err(SaveError::End)?;
        }
        Ok((state, log))
    }

    /// Plays the saved actions again from the start and checks the result is the
    /// snapshot. Returns the replayed state and its log.
    pub fn replay(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
    ) -> Result<(GameState, Vec<String>), SaveError> {
        let mut log = Vec::new();
        let state = self.replay_each(module, rules, &mut |_, step| match step {
            Replayed::Start { lines } | Replayed::Action { lines, .. } => {
                log.extend_from_slice(lines)
            }
        })?;
        Ok((state, log))
    }

    /// [`Save::replay`], showing `seen` the start, then each action as it is replayed:
    /// a seat's log is built from these ([`super::seen_log::seat_log`]).
    pub fn replay_each(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        seen: &mut dyn FnMut(&mut dyn Rules, Replayed<'_>),
    ) -> Result<GameState, SaveError> {
        self.check_module(module)?;
        let (mut state, lines) = self.started(module, rules)?;
        seen(rules, Replayed::Start { lines: &lines });
        for (index, action) in self.actions.iter().enumerate() {
            if let Some(dice) = self.dice_before(index) {
                state.dice = dice;
            }
            let (next, lines) =
                apply(module, rules, &state, action).map_err(|error| SaveError::Action {
                    index,
                    action: Box::new(action.clone()),
                    error,
                })?;
            seen(
                rules,
                Replayed::Action {
                    before: &state,
                    action,
                    after: &next,
                    lines: &lines,
                },
            );
            state = next;
        }
        if let Some(dice) = self.dice_before(self.actions.len()) {
            state.dice = dice;
        }
        let compared = self.as_saved(&state);
        if *compared != self.snapshot {
            return Err(SaveError::Diverged(first_difference(
                &compared,
                &self.snapshot,
            )));
        }
        Ok(state)
    }
}

/// One step of a save's replay ([`Save::replay_each`]).
pub enum Replayed<'a> {
    /// The game set up, with the lines its start wrote.
    Start { lines: &'a [String] },
    /// An action replayed: the states around it and the lines it wrote.
    Action {
        before: &'a GameState,
        action: &'a Action,
        after: &'a GameState,
        lines: &'a [String],
    },
}

/// A save replayed "as far as it goes" on a module that may have changed since
/// ([`Save::replay_as_far_as_it_goes`]).
#[derive(Debug)]
pub struct Partial {
    /// The game up to the last action that still applies, ready to go on from.
    pub history: History,
    pub log: Vec<String>,
    /// Why the module is not the one the save was played with, if it is not.
    pub changed: Option<String>,
    /// The first saved action that no longer applies, if one does not.
    pub stopped: Option<Stopped>,
    /// With every action replayed: where the final state differs from the save's, if
    /// it does (rules that changed can give another game without refusing an action).
    pub differs: Option<String>,
}

/// The first saved action the module as it is now refuses.
#[derive(Debug)]
pub struct Stopped {
    /// 0-based index into the save's actions.
    pub index: usize,
    /// The turn's label and the side to act, when it was refused.
    pub turn: String,
    pub side: String,
    /// The action in words (or as recorded, when it names pieces or boxes the module no
    /// longer has).
    pub action: String,
    pub error: ActionError,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "action {} ({}, {}: {}) no longer applies: {}",
            self.index + 1,
            self.turn,
            self.side,
            self.action,
            self.error
        )
    }
}

impl Partial {
    /// Whether the save replayed exactly as it was played.
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && self.differs.is_none()
    }

    /// What the replay found, in lines for a person (the CLI and the app), of a save
    /// of `total` actions.
    pub fn report(&self, total: usize) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(changed) = &self.changed {
            out.push(format!(
                "the rules or data changed since the save: {changed}"
            ));
        }
        let done = self.history.actions().len();
        out.push(match (&self.stopped, &self.differs) {
            (Some(stopped), _) => format!("replayed {done} of {total} actions; {stopped}"),
            (None, Some(differs)) => format!(
                "replayed all {total} actions, but the game is no longer the saved one: {differs}"
            ),
            (None, None) => {
                format!("replayed all {total} actions: the final state is identical to the save")
            }
        });
        out
    }
}

impl Save {
    /// Replays the saved actions on `module` as it is now, whatever changed, until one
    /// no longer applies: a player whose house rule got a fix goes on from the last
    /// position the new rules accept. Errors only when the game cannot even start (an
    /// unknown scenario or option, a start the rules refuse).
    pub fn replay_as_far_as_it_goes(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
    ) -> Result<Partial, SaveError> {
        let changed = self.check_module(module).err().map(|e| e.to_string());
        let (state, mut log) = self.started(module, rules)?;
        let mut history = History::new(state);
        let mut stopped = None;
        for (index, action) in self.actions.iter().enumerate() {
            if let Some(dice) = self.dice_before(index) {
                history.reseed(dice);
            }
            let before = history.state();
            let (turn, side, words) = (
                module.calendar.turn(before.turn).label.clone(),
                module.side(decider(module, before)).name.clone(),
                describe::action_checked(module, before, action),
            );
            match history.apply(module, rules, action.clone()) {
                Ok(lines) => log.extend(lines),
                Err(error) => {
                    stopped = Some(Stopped {
                        index,
                        turn,
                        side,
                        action: words,
                        error,
                    });
                    break;
                }
            }
        }
        if stopped.is_none()
            && let Some(dice) = self.dice_before(self.actions.len())
        {
            history.reseed(dice);
        }
        let compared = self.as_saved(history.state());
        let differs = (stopped.is_none() && *compared != self.snapshot)
            .then(|| first_difference(&compared, &self.snapshot));
        Ok(Partial {
            history,
            log,
            changed,
            stopped,
            differs,
        })
    }
}

/// The first difference between the stack a save was played with and the one loaded.
fn compare_stacks(saved: &[SavedStackEntry], loaded: &[StackEntry]) -> Result<(), SaveError> {
    let what = |i: usize| if i == 0 { "base module" } else { "mod" };
    for i in 0..saved.len().max(loaded.len()) {
        let message = match (saved.get(i), loaded.get(i)) {
            (Some(s), Some(l)) if !s.id.eq_ignore_ascii_case(&l.id) => format!(
                "the save was played with {} '{}' where '{}' is loaded now",
                what(i),
                s.id,
                l.id
            ),
            (Some(s), Some(l)) if s.version != l.version => format!(
                "{} '{}' is version {} now, but the save was played with {}",
                what(i),
                l.id,
                l.version,
                s.version
            ),
            (Some(s), Some(l)) if s.content_hash != hex(l.content_hash) => format!(
                "{} '{}' has changed since the save was played (its files hash to {}, the save's to {})",
                what(i),
                l.id,
                hex(l.content_hash),
                s.content_hash
            ),
            (Some(_), Some(_)) | (None, None) => continue,
            (Some(s), None) => format!(
                "the save was played with {} '{}' {} stacked on top, which is not loaded now",
                what(i),
                s.id,
                s.version
            ),
            (None, Some(l)) => format!(
                "{} '{}' is loaded, but the save was played without it",
                what(i),
                l.id
            ),
        };
        return Err(SaveError::Stack(message));
    }
    Ok(())
}

/// Names the first field where two states differ, for the divergence message.
fn first_difference(a: &GameState, b: &GameState) -> String {
    let (ja, jb) = (serde_json::to_value(a), serde_json::to_value(b));
    let (Ok(serde_json::Value::Object(ma)), Ok(serde_json::Value::Object(mb))) = (ja, jb) else {
        return "the states differ".into();
    };
    for (k, va) in &ma {
        if mb.get(k) != Some(va) {
            return format!("'{k}' differs");
        }
    }
    "the states differ".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(id: &str, version: &str, hash: u64) -> SavedStackEntry {
        SavedStackEntry {
            id: id.into(),
            version: version.into(),
            content_hash: hex(hash),
        }
    }

    fn loaded(id: &str, version: &str, content_hash: u64) -> StackEntry {
        StackEntry {
            id: id.into(),
            version: version.into(),
            content_hash,
            dir: std::path::PathBuf::new(),
        }
    }

    fn message(saved: &[SavedStackEntry], loaded: &[StackEntry]) -> String {
        compare_stacks(saved, loaded)
            .expect_err("the stacks differ")
            .to_string()
    }

    #[test]
    fn a_stack_difference_names_the_module() {
        let s = [saved("ahd", "0.1.0", 1), saved("house", "0.1.0", 2)];
        assert!(
            compare_stacks(
                &s,
                &[loaded("AHD", "0.1.0", 1), loaded("house", "0.1.0", 2)]
            )
            .is_ok()
        );
        assert_eq!(
            message(
                &s,
                &[loaded("ahd", "0.1.0", 1), loaded("house", "0.2.0", 2)]
            ),
            "mod 'house' is version 0.2.0 now, but the save was played with 0.1.0; replaying it could give another game"
        );
        assert_eq!(
            message(
                &s,
                &[loaded("ahd", "0.1.0", 9), loaded("house", "0.1.0", 2)]
            ),
            "base module 'ahd' has changed since the save was played (its files hash to 0000000000000009, the save's to 0000000000000001); replaying it could give another game"
        );
        assert_eq!(
            message(
                &s,
                &[loaded("house", "0.1.0", 2), loaded("ahd", "0.1.0", 1)]
            ),
            "the save was played with base module 'ahd' where 'house' is loaded now; replaying it could give another game"
        );
        assert_eq!(
            message(
                &s[..1],
                &s.iter()
                    .map(|e| loaded(&e.id, &e.version, 0))
                    .collect::<Vec<_>>()
            ),
            "base module 'ahd' has changed since the save was played (its files hash to 0000000000000000, the save's to 0000000000000001); replaying it could give another game"
        );
        assert_eq!(
            message(
                &s[..1],
                &[loaded("ahd", "0.1.0", 1), loaded("extra", "0.1.0", 3)]
            ),
            "mod 'extra' is loaded, but the save was played without it; replaying it could give another game"
        );
    }
}
