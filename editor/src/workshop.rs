//! The scenario author's workshop, without egui: a new scenario made from scratch, as a
//! copy of one of the module's, or from a game position (the game being played, or a
//! saved game at a turn's start), checked by the engine and written as a mod of its own
//! ([`muster_core::scenario_mod`]); and balance runs of many computer games in the
//! background, with progress and cancel ([`muster_ai::balance`]).
//!
//! The windows that drive these are in `panels/workshop.rs`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use muster_ai::Level;
use muster_ai::balance::{GameResult, GameSetup, Summary, levels_by_seat, run, summarise};
use muster_core::game::GameState;
use muster_core::game::save::Save;
use muster_core::scenario_from::{Naming, position_at, scenario_from};
use muster_core::scenario_mod::{self, ScenarioMod};
use muster_core::{Diagnostic, Module, Scenario};
use muster_scripting::{Limits, ScriptRules};

use crate::scenario_data::{ScenarioData, SideData};
use crate::scenario_xml;

/// Where a new scenario's setup comes from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Source {
    /// An empty board with the module's sides.
    #[default]
    Scratch,
    /// A copy of one of the module's scenarios (as edited), by id.
    Copy(String),
    /// The position of the game being played.
    Game,
    /// A saved game's position at the start of a turn (or where it stopped).
    SaveFile { path: String, turn: String },
}

/// What a new scenario is made of: the form of the New scenario window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewScenario {
    pub source: Source,
    /// The mod's id, which is the scenario's too.
    pub id: String,
    pub name: String,
    pub description: String,
    /// From scratch: the first and last turn, as the calendar labels them.
    pub start: String,
    pub end: String,
}

/// One problem the engine finds in a new scenario, with the box it is about when it
/// names one (so the window can select it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub message: String,
    pub at_box: Option<String>,
}

/// A scenario made, before it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    pub xml: String,
    /// What the scenario format cannot hold of a position.
    pub warnings: Vec<String>,
    /// The engine's errors: writing it takes the author's yes.
    pub problems: Vec<Problem>,
}

/// The position the New scenario window may start from: the game being played.
pub struct Position<'a> {
    pub module: &'a Module,
    pub state: &'a GameState,
}

/// The XML declaration new files start with.
const DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

impl NewScenario {
    /// A form for `module`: its first and last turns, an id not taken yet.
    pub fn for_module(module: &Module) -> Self {
        let cal = &module.calendar;
        let mut n = 1;
        let id = loop {
            let id = format!("{}-scenario-{n}", module.id);
            if module.scenario(&id).is_none() {
                break id;
            }
            n += 1;
        };
        NewScenario {
            source: Source::Scratch,
            id,
            name: "New scenario".into(),
            description: String::new(),
            start: cal
                .turns
                .first()
                .map(|t| t.label.clone())
                .unwrap_or_default(),
            end: cal.turn(cal.end).label.clone(),
        }
    }

    /// The scenario's text from its source, renamed to this form's id and name. `copies`
    /// are the module's scenario files as edited, (id, text).
    pub fn make(
        &self,
        module: &Module,
        copies: &[(String, String)],
        game: Option<&Position<'_>>,
    ) -> Result<Made, String> {
        let description = (!self.description.trim().is_empty()).then(|| self.description.clone());
        let (xml, warnings) = match &self.source {
            Source::Scratch => {
                let data = ScenarioData {
                    id: self.id.clone(),
                    name: self.name.clone(),
                    start: Some(self.start.clone()),
                    end: Some(self.end.clone()),
                    description,
                    sides: module
                        .sides
                        .iter()
                        .map(|s| SideData {
                            id: s.id.clone(),
                            ..SideData::default()
                        })
                        .collect(),
                    ..ScenarioData::default()
                };
                (scenario_xml::write(&data, DECLARATION), Vec::new())
            }
            Source::Copy(of) => {
                let text = match copies.iter().find(|(id, _)| id.eq_ignore_ascii_case(of)) {
                    Some((_, text)) => text.clone(),
                    None => {
                        let s = module
                            .scenario(of)
                            .ok_or_else(|| format!("no scenario '{of}' to copy"))?;
                        std::fs::read_to_string(&s.file)
                            .map_err(|e| format!("cannot read {}: {e}", s.file.display()))?
                    }
                };
                let renamed = scenario_mod::rename_scenario(&text, &self.id, Some(&self.name))
                    .map_err(|e| e.to_string())?;
                (renamed, Vec::new())
            }
            Source::Game => {
                let game =
                    game.ok_or("no game is being played: start one in Play, or pick a saved game")?;
                let made = scenario_from(game.module, game.state, &self.naming())
                    .map_err(|e| e.to_string())?;
                (made.xml, made.warnings)
            }
            Source::SaveFile { path, turn } => {
                let save = Save::read(Path::new(path)).map_err(|e| e.to_string())?;
                let mut rules = ScriptRules::load(module, Limits::default())
                    .map_err(|e| format!("the module's rules do not load: {e}"))?;
                let turn = (!turn.trim().is_empty()).then_some(turn.trim());
                let state = position_at(module, &mut rules, &save, turn)
                    .map_err(|e| format!("{path}: {e}"))?;
                let made = scenario_from(module, &state, &self.naming())
                    .map_err(|e| format!("{path}: {e}"))?;
                (made.xml, made.warnings)
            }
        };
        let problems = check(module, &self.id, &xml);
        Ok(Made {
            xml,
            warnings,
            problems,
        })
    }

    fn naming(&self) -> Naming<'_> {
        Naming {
            id: &self.id,
            name: &self.name,
            description: (!self.description.trim().is_empty()).then_some(self.description.as_str()),
        }
    }

    /// Writes `made` as a mod beside the module in `base_dir` (a new folder named by the
    /// id, never written over); returns its folder.
    pub fn write_mod(
        &self,
        base_dir: &Path,
        module: &Module,
        made: &Made,
    ) -> Result<PathBuf, String> {
        let parent = base_dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let spec = ScenarioMod {
            id: self.id.clone(),
            name: self.name.clone(),
            description: if self.description.trim().is_empty() {
                format!("A scenario of {}.", module.name)
            } else {
                self.description.clone()
            },
            notes: String::new(),
            briefings: Vec::new(),
            scenario_xml: made.xml.clone(),
        };
        let extra = [(
            "types/muster.d.luau".to_string(),
            muster_scripting::api::definitions(),
        )];
        scenario_mod::create(base_dir, module, parent, &spec, &extra).map_err(|e| e.to_string())
    }
}

/// The engine's errors in a scenario's text, each with the box its line names.
pub fn check(module: &Module, id: &str, xml: &str) -> Vec<Problem> {
    match muster_core::load_scenario_str(module, &format!("new scenario {id}"), xml) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .diagnostics
            .iter()
            .filter(|d| d.severity == muster_core::Severity::Error)
            .map(|d| problem(d, xml))
            .collect(),
    }
}

fn problem(d: &Diagnostic, xml: &str) -> Problem {
    let at_box = d.location.as_ref().and_then(|at| {
        let line = xml.lines().nth((at.line as usize).checked_sub(1)?)?;
        let start = line.find("box=\"")? + 5;
        let len = line[start..].find('"')?;
        Some(unescape(&line[start..start + len]))
    });
    let message = match &d.location {
        Some(at) => format!("line {}: {}", at.line, d.message),
        None => d.message.clone(),
    };
    Problem { message, at_box }
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// What the background thread of a balance run hands back: the games played, or why
/// none could be.
type Played = Option<Result<Vec<GameResult>, String>>;

/// A balance run under way in the background, or its result.
pub struct BalanceRun {
    pub games: usize,
    done: Arc<AtomicUsize>,
    cancel: Arc<AtomicBool>,
    result: Arc<Mutex<Played>>,
    module: Arc<Module>,
    summary: Option<Result<Summary, String>>,
}

/// What the Balance… window asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct BalanceSetup {
    pub games: usize,
    /// A level per side, in the module's order.
    pub players: Vec<Level>,
    /// An agreed last turn, instead of the scenario's.
    pub end: Option<String>,
    pub seed: u64,
    /// Threads to play on (0: one per core).
    pub threads: usize,
}

impl BalanceRun {
    /// Starts `setup.games` games of `scenario` on a thread of their own; game `i` has
    /// seed `seed + i`, as `muster balance` plays it.
    pub fn start(module: Arc<Module>, scenario: Scenario, setup: &BalanceSetup) -> Self {
        let done = Arc::new(AtomicUsize::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let result = Arc::new(Mutex::new(None));
        let threads = if setup.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            setup.threads
        };
        let (m, d, c, r) = (module.clone(), done.clone(), cancel.clone(), result.clone());
        let games = setup.games;
        let setup = setup.clone();
        std::thread::spawn(move || {
            let out = play(&m, &scenario, &setup, threads, &d, &c);
            *r.lock().unwrap_or_else(|p| p.into_inner()) = Some(out);
        });
        BalanceRun {
            games,
            done,
            cancel,
            result,
            module,
            summary: None,
        }
    }

    /// Games played so far.
    pub fn done(&self) -> usize {
        self.done.load(Ordering::Relaxed)
    }

    /// Asks the run to stop after the games under way; what they give is kept.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The summary once the run is over (`None` while it runs).
    pub fn summary(&mut self) -> Option<&Result<Summary, String>> {
        if self.summary.is_none() {
            let taken = self.result.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(r) = taken {
                self.summary = Some(r.map(|all| summarise(&self.module, &all)));
            }
        }
        self.summary.as_ref()
    }

    pub fn is_running(&mut self) -> bool {
        self.summary().is_none()
    }
}

/// Plays the games in rounds of one per thread, so a cancel stops at the next round;
/// the seeds are those of one run (`seed + i`), whatever the rounds.
fn play(
    module: &Module,
    scenario: &Scenario,
    setup: &BalanceSetup,
    threads: usize,
    done: &AtomicUsize,
    cancel: &AtomicBool,
) -> Result<Vec<GameResult>, String> {
    let game = GameSetup {
        scenario,
        options: Vec::new(),
        players: levels_by_seat(module, &setup.players, Level::Ai),
        end: setup.end.clone(),
        max_actions: 200_000,
    };
    let mut all = Vec::with_capacity(setup.games);
    let round = threads.max(1);
    let mut first = 0;
    while first < setup.games && !cancel.load(Ordering::Relaxed) {
        let n = round.min(setup.games - first);
        let base = first;
        let results = run(
            module,
            || ScriptRules::load(module, Limits::default()).map_err(|e| e.to_string()),
            &game,
            n,
            setup.seed.wrapping_add(base as u64),
            threads,
            &|d| done.store(base + d, Ordering::Relaxed),
        )
        .map_err(|e| e.to_string())?;
        all.extend(results);
        first += n;
    }
    Ok(all)
}
