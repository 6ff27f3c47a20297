//! Play by file with a host: a game with hidden information, whose whole state no
//! player may hold. The host (a program, `muster pbem host`, run by someone who does
//! not play) keeps the master game; each seat's folder receives only that seat's
//! files, and each seat answers with one decision.
//!
//! **The files.** The host writes seat files (`GAME-SEAT-NNN.seat.json`): file 0 sets
//! the game up and carries the host's commitment; each later one holds what the seat
//! sees now ([`crate::game::SeatView`]), its log since its previous file
//! ([`crate::game::seat_log`]) and, unless the game is over, its choices: each legal
//! action in words and as recorded (the seat cannot list them from its view: legality
//! may depend on what it does not see). The seat answers file `NNN` with
//! `GAME-SEAT-NNN.answer.json`: one chosen action (none for file 0, which it joins)
//! and a fresh nonce. **One decision a file**: the simplest honest rule, since after
//! any decision the next menu may depend on what the seat must not see. A decision
//! that is a seat's only choice is taken by the host, which saves a file. Seats asked
//! at once (a sealed choice) each get a file; an answer to a file the game has moved
//! on from stands if the seat's choices are unchanged, else it is overtaken (recorded,
//! not applied) and the seat is asked again.
//!
//! **The dice** (commit–reveal, as the two-player scheme). File 0 carries the
//! SHA-256 of the host's secret. The game starts with dice seeded by the secret and
//! every seat's joining nonce; each later answer's nonce seeds, with the secret, the
//! dice of what follows it. The host chose its secret before any nonce and cannot
//! change it; a seat chose its nonce knowing only the secret's hash. At the end (or on
//! `reveal`) the host publishes the secret with the whole [`Record`], and each seat
//! checks every file it received against the record replayed ([`verify_seat`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::stand_in::StandIns;
use super::{Bytes32, from_hex, sha256, to_hex};
use crate::format::Sight;
use crate::game::dice::Dice;
use crate::game::entry::{Asked, in_words};
use crate::game::flow::{set_end, start};
use crate::game::offer::{check_entry, offers};
use crate::game::rules::{RuleError, Rules};
use crate::game::save::{Reseed, Save, SaveError, SavedModule, SavedScenario, saved_scenario};
use crate::game::seats::{apply_by, awaited, legal_actions_for};
use crate::game::seen_log::{choice_words, seat_log};
use crate::game::sight::{SEAT_VIEW, seat_view_of, sights};
use crate::game::state::GameState;
use crate::game::{Action, ActionError};
use crate::ids::SeatId;
use crate::module::Module;

/// The layout of a hosted game's files; bumped when an older muster would misread them.
pub const HOST_FORMAT: u32 = 1;

/// What file 0 says about the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostSetup {
    pub module: SavedModule,
    pub scenario: SavedScenario,
    pub options: Vec<String>,
    #[serde(default)]
    pub end: Option<String>,
    /// Every seat's id, in the module's order: each has a folder but the hosted ones.
    pub seats: Vec<String>,
    /// Seats the host holds itself, with no folder and no joining nonce: seats of no
    /// side (a referee, seed 001's umpire), whose decisions the host takes with the
    /// rules' computer referee (the first of the seat's choices, as `muster play
    /// --referee computer`). The referee sees the whole game, as the host does, so
    /// nothing is revealed; being forced, its decisions replay in every seat's check.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosted: Vec<String>,
}

/// One choice open to a seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// In words the seat may read (a hidden piece is not named).
    pub words: String,
    /// The action as the seat's answer gives it back; for a choice with a form, with
    /// the values entered (`Take`'s `entry`).
    pub action: Action,
    /// The form the seat fills to take it (a referee's battle result), in words: each
    /// field with the names of the values it takes; empty for most choices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub form: Vec<Asked>,
}

/// A file the host sends one seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatFile {
    /// [`HOST_FORMAT`].
    pub pbem_host: u32,
    pub game: String,
    /// The seat it is for.
    pub seat: String,
    /// 0, 1, 2, ...: this seat's files in order.
    pub index: u32,
    /// SHA-256 of the host's secret: the same in every file of the game.
    pub commit: String,
    /// File 0 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<HostSetup>,
    /// How many actions the game had when it was written.
    pub at: usize,
    /// What the seat sees (a [`crate::game::SeatView`]); none in file 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<serde_json::Value>,
    /// The seat's log since its previous file.
    #[serde(default)]
    pub log: Vec<String>,
    /// What the seat must decide now: answer with one of these.
    #[serde(default)]
    pub decide: Vec<Choice>,
    /// Why the seat's previous answer was refused (an entry the form or the rules
    /// refused, nothing of it applied): the same choices are asked again. A seat that
    /// does not see the whole game is told only that it was refused, since the rules'
    /// reason may name what it does not see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The game is over: this is the seat's last file.
    #[serde(default)]
    pub over: bool,
}

/// A seat's answer to one of its files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// [`HOST_FORMAT`].
    pub pbem_host: u32,
    pub game: String,
    pub seat: String,
    /// The index of the seat file answered.
    pub answers: u32,
    /// SHA-256 of that file's bytes.
    pub file: String,
    /// A fresh random value: with the host's secret, it seeds the dice of what follows.
    pub nonce: String,
    /// The decision, one of the file's choices; none to join the game (file 0).
    #[serde(default)]
    pub action: Option<Action>,
}

/// An answer the host took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answered {
    pub seat: String,
    pub answers: u32,
    /// SHA-256 of the answer file's bytes.
    pub sha256: String,
    pub nonce: String,
    #[serde(default)]
    pub action: Option<Action>,
    /// The actions it led to: its own, then the decisions that were a seat's only
    /// choice, which the host took.
    #[serde(default)]
    pub actions: Vec<Action>,
    /// It answered a file the game had moved on from (another seat decided first): not
    /// applied; the seat was sent a new file.
    #[serde(default)]
    pub overtaken: bool,
    /// The entry it carried was refused (the form's check or the rules'
    /// `accepts_entry`), with the reason: not applied, no dice drawn, and the seat was
    /// sent a new file with the reason and the same choices. Not a broken game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// A file the host sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    pub seat: String,
    pub index: u32,
    pub at: usize,
    pub sha256: String,
}

/// The whole game as the host holds it, published with the secret at the end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// [`HOST_FORMAT`].
    pub pbem_host: u32,
    pub game: String,
    pub setup: HostSetup,
    pub commit: String,
    /// The host's secret: private until the record is published.
    pub secret: String,
    pub answers: Vec<Answered>,
    pub sent: Vec<Sent>,
    /// Published: the secret is known, so the host plays no further.
    #[serde(default)]
    pub revealed: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("{file}:{line}:{column}: the file is damaged: {message}")]
    Corrupt {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Bad { file: String, message: String },
    #[error("{0}")]
    Game(String),
    #[error("{file}: {source}")]
    Module {
        file: String,
        #[source]
        source: Box<SaveError>,
    },
}

fn bad(file: &str, message: impl Into<String>) -> HostError {
    HostError::Bad {
        file: file.to_string(),
        message: message.into(),
    }
}

fn rule(e: impl std::fmt::Display) -> HostError {
    HostError::Game(e.to_string())
}

/// A seat file's name.
pub fn seat_file_name(game: &str, seat: &str, index: u32) -> String {
    format!("{game}-{seat}-{index:03}.seat.json")
}

/// An answer's name.
pub fn answer_name(game: &str, seat: &str, index: u32) -> String {
    format!("{game}-{seat}-{index:03}.answer.json")
}

/// The published record's name.
pub fn record_name(game: &str) -> String {
    format!("{game}.record.json")
}

/// Pretty JSON with a final newline: the bytes written and hashed.
pub fn to_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(value).unwrap_or_default();
    out.push(b'\n');
    out
}

/// Reads one of a hosted game's files (`what`: "a seat file", ...), telling a save, a
/// seat's view or a two-player turn file apart in one line.
pub fn parse<T: serde::de::DeserializeOwned>(
    name: &str,
    bytes: &[u8],
    what: &str,
) -> Result<T, HostError> {
    let corrupt = |e: serde_json::Error| HostError::Corrupt {
        file: name.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let head: serde_json::Value = serde_json::from_slice(bytes).map_err(corrupt)?;
    let is = |k: &str| head.get(k).is_some();
    if head.get("view").and_then(|v| v.as_str()) == Some(SEAT_VIEW) {
        return Err(bad(name, format!("it is a seat's view, not {what}")));
    }
    if is("snapshot") && is("actions") && is("seed") {
        return Err(bad(
            name,
            format!("it is a saved game, not {what} (open a save with muster replay)"),
        ));
    }
    if is("pbem") {
        return Err(bad(
            name,
            format!("it is a turn file of a two-player game by file, not {what}"),
        ));
    }
    match head.get("pbem_host").and_then(|v| v.as_u64()) {
        None => return Err(bad(name, format!("it is not {what} of a game by file"))),
        Some(f) if f != u64::from(HOST_FORMAT) => {
            return Err(bad(
                name,
                format!(
                    "it is of format {f}; this muster reads format {HOST_FORMAT} of a hosted game"
                ),
            ));
        }
        Some(_) => {}
    }
    serde_json::from_slice(bytes).map_err(corrupt)
}

fn dice_hasher(game: &str) -> Sha256 {
    let mut h = Sha256::new();
    h.update(b"muster pbem host dice\0");
    h.update(game.as_bytes());
    h
}

fn seed_of(h: Sha256) -> u64 {
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

/// The seed of the game's start: the host's secret and every seat's joining nonce,
/// in seat order.
pub fn start_seed(game: &str, secret: &Bytes32, nonces: &[Bytes32]) -> u64 {
    let mut h = dice_hasher(game);
    h.update(b"start\0");
    h.update(secret);
    for n in nonces {
        h.update(n);
    }
    seed_of(h)
}

/// The seed of what follows answer `number` (its place in the record).
pub fn answer_seed(game: &str, number: usize, secret: &Bytes32, nonce: &Bytes32) -> u64 {
    let mut h = dice_hasher(game);
    h.update((number as u64).to_le_bytes());
    h.update(secret);
    h.update(nonce);
    seed_of(h)
}

/// One action of the master game, with what the seats' logs are made of.
#[derive(Clone, Debug)]
pub struct Step {
    pub before: GameState,
    pub action: Action,
    pub after: GameState,
    pub lines: Vec<String>,
}

/// The master game: the record replayed.
#[derive(Clone, Debug, Default)]
pub struct Master {
    /// None until every seat joined.
    pub start: Option<GameState>,
    pub steps: Vec<Step>,
    pub seed: u64,
    pub reseeds: Vec<Reseed>,
    /// Seats joined so far (before the start), with their nonces.
    joined: BTreeMap<SeatId, Bytes32>,
    /// The seats the host holds ([`HostSetup::hosted`]), known from the start.
    hosted: Vec<SeatId>,
}

impl Master {
    /// The game now.
    pub fn state(&self) -> Option<&GameState> {
        self.steps.last().map(|s| &s.after).or(self.start.as_ref())
    }

    /// The game after `at` actions.
    pub fn state_at(&self, at: usize) -> Option<&GameState> {
        match at {
            0 => self.start.as_ref(),
            n => self.steps.get(n - 1).map(|s| &s.after),
        }
    }

    pub fn over(&self) -> bool {
        self.state().is_some_and(|s| s.outcome.is_some())
    }

    fn reseed(&mut self, seed: u64) {
        let before = self.steps.len();
        match self.steps.last_mut() {
            Some(s) => s.after.dice = Dice::seeded(seed),
            None => {
                if let Some(s) = self.start.as_mut() {
                    s.dice = Dice::seeded(seed);
                }
            }
        }
        self.reseeds.push(Reseed { before, seed });
    }

    fn apply(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        seat: SeatId,
        action: &Action,
    ) -> Result<(), crate::game::ActionError> {
        let before = self.state().expect("started").clone();
        let (after, lines) = apply_by(module, rules, &before, seat, action)?;
        self.steps.push(Step {
            before,
            action: action.clone(),
            after,
            lines,
        });
        Ok(())
    }

    /// The seats that must decide now, each with its choices: awaited seats with at
    /// least one. Empty once the game is over.
    pub fn open_seats(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
    ) -> Result<Vec<(SeatId, Vec<Action>)>, HostError> {
        let Some(state) = self.state() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for seat in awaited(module, rules, state).map_err(rule)? {
            let legal = legal_actions_for(module, rules, state, seat).map_err(rule)?;
            if !legal.is_empty() {
                out.push((seat, legal));
            }
        }
        if out.is_empty() && state.outcome.is_none() {
            return Err(HostError::Game(
                "the game waits for seats that have nothing to choose: the rules are stuck".into(),
            ));
        }
        Ok(out)
    }

    /// Whether `seat`'s choices now are those it had after `at` actions.
    fn same_choices(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        seat: SeatId,
        at: usize,
    ) -> Result<bool, HostError> {
        let (Some(then), Some(now)) = (self.state_at(at), self.state()) else {
            return Ok(false);
        };
        let then = legal_actions_for(module, rules, then, seat).map_err(rule)?;
        let now = legal_actions_for(module, rules, now, seat).map_err(rule)?;
        Ok(then == now)
    }

    /// Whether the host holds `seat` ([`HostSetup::hosted`]).
    pub fn hosts(&self, seat: SeatId) -> bool {
        self.hosted.contains(&seat)
    }

    /// Takes every decision that is the only one open (one seat with one choice), and
    /// every decision of a seat the host holds (its first choice: the computer
    /// referee's entry, see [`HostSetup::hosted`]).
    fn advance(&mut self, module: &Module, rules: &mut dyn Rules) -> Result<(), HostError> {
        loop {
            let open = self.open_seats(module, rules)?;
            let hosted = open
                .iter()
                .filter(|(s, _)| self.hosts(*s))
                .find_map(|(s, legal)| legal.first().map(|a| (*s, a.clone())));
            if let Some((seat, first)) = hosted {
                self.apply(module, rules, seat, &first).map_err(|e| {
                    HostError::Game(format!(
                        "the host's decision for seat {} is refused: {e}",
                        module.seat(seat).id
                    ))
                })?;
                continue;
            }
            match open.as_slice() {
                [(seat, legal)] if legal.len() == 1 => {
                    self.apply(module, rules, *seat, &legal[0]).map_err(rule)?
                }
                _ => return Ok(()),
            }
        }
    }
}

/// The game's module and rules at hand, for starting it.
fn started(
    module: &Module,
    rules: &mut dyn Rules,
    setup: &HostSetup,
    seed: u64,
) -> Result<GameState, HostError> {
    let scenario = saved_scenario(module, &setup.scenario).map_err(|source| HostError::Module {
        file: "the game's setup".into(),
        source: Box::new(source),
    })?;
    let options = setup
        .options
        .iter()
        .map(|o| {
            module
                .find_option(o)
                .ok_or_else(|| HostError::Game(format!("the module has no optional rule '{o}'")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (mut state, _) =
        start(module, rules, &scenario, options, Dice::seeded(seed)).map_err(rule)?;
    if let Some(end) = &setup.end {
        set_end(module, &mut state, end).map_err(|e| HostError::Game(format!("--end: {e}")))?;
    }
    Ok(state)
}

impl Record {
    /// A new game: file 0 for every seat is [`Record::seat_file`] `(seat, 0)`.
    pub fn new(setup: HostSetup, game_nonce: &Bytes32, secret: &Bytes32) -> Self {
        Record {
            pbem_host: HOST_FORMAT,
            game: to_hex(game_nonce)[..16].to_string(),
            setup,
            commit: to_hex(&sha256(secret)),
            secret: to_hex(secret),
            answers: Vec::new(),
            sent: Vec::new(),
            revealed: false,
        }
    }

    fn secret(&self) -> Result<Bytes32, HostError> {
        from_hex(&self.secret)
            .ok_or_else(|| HostError::Game("the record's secret is not 64 hex digits".into()))
    }

    fn seat_id(&self, module: &Module, seat: &str) -> Result<SeatId, HostError> {
        module
            .find_seat(seat)
            .ok_or_else(|| HostError::Game(format!("the module has no seat '{seat}'")))
    }

    /// The seats the host holds, each checked to be a seat of no side: a seat of a side
    /// sees only its own view, which the host, holding the whole game, cannot play
    /// without knowing more than the seat.
    pub fn hosted_seats(&self, module: &Module) -> Result<Vec<SeatId>, HostError> {
        self.setup
            .hosted
            .iter()
            .map(|s| {
                let id = self.seat_id(module, s)?;
                match module.seat(id).side {
                    None => Ok(id),
                    Some(side) => Err(HostError::Game(format!(
                        "the host cannot hold seat '{s}': it is a seat of {} (the host holds only seats of no side, a referee's; give {s} a folder)",
                        module.side(side).id
                    ))),
                }
            })
            .collect()
    }

    /// Whether the host holds the seat named `seat`.
    pub fn is_hosted(&self, seat: &str) -> bool {
        self.setup.hosted.iter().any(|s| s == seat)
    }

    /// The last file sent to `seat`.
    pub fn last_sent(&self, seat: &str) -> Option<&Sent> {
        self.sent.iter().rev().find(|s| s.seat == seat)
    }

    /// Replays the record: the start from the joining nonces, each answer with its dice,
    /// checked as the host checked it (each action the seat's to take and among its
    /// choices; the host's own moves the only ones possible), and the actions each
    /// answer led to as recorded.
    pub fn replay(&self, module: &Module, rules: &mut dyn Rules) -> Result<Master, HostError> {
        self.replay_as(module, rules, true)
    }

    /// [`Record::replay`] for the host that wrote the record: its actions applied as
    /// recorded, unchecked (each was checked when taken), so that a host's run costs a
    /// replay, not a search of every position's choices.
    pub fn replay_own(&self, module: &Module, rules: &mut dyn Rules) -> Result<Master, HostError> {
        self.replay_as(module, rules, false)
    }

    fn replay_as(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        check: bool,
    ) -> Result<Master, HostError> {
        self.setup
            .module
            .check(module)
            .map_err(|source| HostError::Module {
                file: "the game's setup".into(),
                source: Box::new(source),
            })?;
        let secret = self.secret()?;
        let mut master = Master::default();
        for (number, a) in self.answers.iter().enumerate() {
            let name = format!("answer {} of {}", a.answers, a.seat);
            let before = master.steps.len();
            if !check && master.start.is_some() {
                if !a.actions.is_empty() {
                    let nonce = from_hex(&a.nonce)
                        .ok_or_else(|| bad(&name, "its nonce must be 64 hex digits"))?;
                    master.reseed(answer_seed(&self.game, number, &secret, &nonce));
                }
                for action in &a.actions {
                    let before = master.state().expect("started").clone();
                    let (after, lines) = crate::game::flow::apply(module, rules, &before, action)
                        .map_err(|e| {
                        bad(&name, format!("the record's action is refused: {e}"))
                    })?;
                    master.steps.push(Step {
                        before,
                        action: action.clone(),
                        after,
                        lines,
                    });
                }
                continue;
            }
            let (leads_to, refused) =
                self.step(module, rules, &mut master, &secret, number, a, &name)?;
            if leads_to != a.actions || master.steps.len() - before != a.actions.len() {
                return Err(bad(
                    &name,
                    "the record says it led to other actions than the rules give",
                ));
            }
            if refused != a.refused {
                return Err(bad(
                    &name,
                    "the record says its entry was refused (or taken) otherwise than the rules say",
                ));
            }
        }
        Ok(master)
    }

    /// Applies answer `number` to `master`; returns the actions it led to, or none and
    /// the reason when the entry it carries is refused (see [`Answered::refused`]).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        master: &mut Master,
        secret: &Bytes32,
        number: usize,
        a: &Answered,
        name: &str,
    ) -> Result<(Vec<Action>, Option<String>), HostError> {
        let seat = self.seat_id(module, &a.seat)?;
        let nonce =
            from_hex(&a.nonce).ok_or_else(|| bad(name, "its nonce must be 64 hex digits"))?;
        if a.overtaken {
            return Ok((Vec::new(), None));
        }
        if master.start.is_none() {
            if a.action.is_some() || a.answers != 0 {
                return Err(bad(name, "the game has not started: an answer joins it"));
            }
            let hosted = self.hosted_seats(module)?;
            if hosted.contains(&seat) {
                return Err(bad(
                    name,
                    format!("the host holds seat {}: it joins no game", a.seat),
                ));
            }
            if master.joined.insert(seat, nonce).is_some() {
                return Err(bad(name, "this seat has joined already"));
            }
            if master.joined.len() + hosted.len() == module.seats.len() {
                master.hosted = hosted;
                let nonces: Vec<Bytes32> = master.joined.values().copied().collect();
                let seed = start_seed(&self.game, secret, &nonces);
                master.seed = seed;
                master.start = Some(started(module, rules, &self.setup, seed)?);
                // The decisions forced at the start (a seat's only choice, a hosted
                // seat's) are the last join's, as the record keeps them.
                master.advance(module, rules)?;
                let actions = master.steps.iter().map(|s| s.action.clone()).collect();
                return Ok((actions, None));
            }
            return Ok((Vec::new(), None));
        }
        let Some(action) = &a.action else {
            return Err(bad(
                name,
                "it decides nothing: answer with one of the file's choices",
            ));
        };
        let before = master.steps.len();
        // An answer to a file the game has moved on from stands only if the seat's
        // choices are still those it was sent (a sealed choice, whose other seats chose
        // first): see [`Host::take`].
        let sent_at = self
            .sent
            .iter()
            .find(|s| s.seat == a.seat && s.index == a.answers)
            .map(|s| s.at)
            .ok_or_else(|| bad(name, "it answers a file the host never sent"))?;
        if sent_at != before && !master.same_choices(module, rules, seat, sent_at)? {
            return Err(bad(
                name,
                format!(
                    "it answers file {} of {}, whose choices the game has changed since",
                    a.answers, a.seat
                ),
            ));
        }
        // The pieces the file named by stand-ins, as the position it was written at
        // gives them (the answer and the record keep what the seat sent).
        let revealed;
        let action = match master.state_at(sent_at) {
            Some(then) if names_stand_in(action, then.units.len()) => {
                let listed = choices(module, rules, then, seat, None)?;
                revealed = listed.stand_ins.reveal(action).ok_or_else(|| {
                    bad(name, "it names a piece by a stand-in its file never gave")
                })?;
                &revealed
            }
            _ => action,
        };
        // An entry the form's check or the rules' `accepts_entry` refuse is not applied
        // and draws no dice: the seat is asked again with the reason. Checked before the
        // reseed, so that nothing of it is half-applied.
        if matches!(action, Action::Take { entry: Some(_), .. }) {
            let state = master.state().expect("started");
            let words = crate::game::describe::action_checked(module, state, action);
            crate::game::seats::allowed_by(module, rules, state, seat, action).map_err(|e| {
                bad(
                    name,
                    format!("its action ({words}) is refused: {e}; nothing was applied"),
                )
            })?;
            match check_entry(module, rules, state, action) {
                Ok(()) => {}
                Err(ActionError::Illegal(why)) => return Ok((Vec::new(), Some(why))),
                Err(e) => {
                    return Err(bad(
                        name,
                        format!("its entry ({words}) could not be checked: {e}"),
                    ));
                }
            }
        }
        master.reseed(answer_seed(&self.game, number, secret, &nonce));
        let words = {
            let state = master.state().expect("started");
            crate::game::describe::action_checked(module, state, action)
        };
        master.apply(module, rules, seat, action).map_err(|e| {
            bad(
                name,
                format!("its action ({words}) is refused: {e}; nothing was applied"),
            )
        })?;
        master.advance(module, rules)?;
        let actions = master.steps[before..]
            .iter()
            .map(|s| s.action.clone())
            .collect();
        Ok((actions, None))
    }

    /// The file `seat` is sent as its file `index`, the game being `master` (at its
    /// end), and the rule errors met (pieces a failing rule was asked about are hidden;
    /// the errors are for the host, never the seat).
    pub fn seat_file(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        master: &Master,
        seat: SeatId,
        index: u32,
        at: usize,
    ) -> Result<(SeatFile, Vec<RuleError>), HostError> {
        let id = module.seat(seat).id.clone();
        let mut file = SeatFile {
            pbem_host: HOST_FORMAT,
            game: self.game.clone(),
            seat: id.clone(),
            index,
            commit: self.commit.clone(),
            setup: None,
            at,
            view: None,
            log: Vec::new(),
            decide: Vec::new(),
            refused: None,
            over: false,
        };
        let mut errors = Vec::new();
        if index == 0 {
            file.setup = Some(self.setup.clone());
            return Ok((file, errors));
        }
        let state = master
            .state_at(at)
            .ok_or_else(|| HostError::Game(format!("the game has no position after {at} actions")))?
            .clone();
        // The log since the seat's previous file (from the start for its first).
        let from = self
            .sent
            .iter()
            .filter(|s| s.seat == id && s.index < index && s.index > 0)
            .map(|s| s.at)
            .next_back()
            .unwrap_or(0);
        for s in master.steps.get(from..at).unwrap_or_default() {
            let (lines, e) = seat_log(
                module, rules, &s.before, &s.action, &s.after, &s.lines, seat,
            );
            file.log.extend(lines);
            errors.extend(e);
        }
        let (seen, e) = sights(module, rules, &state, seat);
        errors.extend(e);
        let view = seat_view_of(module, rules, &state, seat, &seen);
        file.view = Some(serde_json::to_value(&view).map_err(rule)?);
        file.over = state.outcome.is_some();
        if !file.over {
            let sent = choices(module, rules, &state, seat, Some(seen))?;
            if !sent.choices.is_empty() {
                let seen = sent.seen;
                file.decide = sent.choices;
                // Why its previous answer was refused, if it was.
                file.refused = self
                    .answers
                    .iter()
                    .find(|a| a.seat == id && a.answers + 1 == index)
                    .and_then(|a| a.refused.clone())
                    .map(|why| {
                        if seen.iter().all(|s| *s == Sight::Full) {
                            why
                        } else {
                            "your entry was refused (the reason is withheld: it may name what your seat does not see); nothing of it was applied".to_string()
                        }
                    });
            }
        }
        Ok((file, errors))
    }

    /// The record as a save (`muster replay`, the app): the master game, dice and all.
    pub fn to_save(&self, module: &Module, master: &Master) -> Option<Save> {
        let state = master.state()?.clone();
        let mut save = Save::new(
            module,
            self.setup.scenario.clone(),
            self.setup.options.clone(),
            master.seed,
            master.steps.iter().map(|s| s.action.clone()).collect(),
            state,
        );
        save.end = self.setup.end.clone();
        save.reseeds = master.reseeds.clone();
        Some(save)
    }
}

/// The host at work: takes the seats' answers and says which files to send.
pub struct Host<'a> {
    pub module: &'a Module,
    pub record: Record,
    pub master: Master,
}

/// A file to write into a seat's folder.
pub struct Outgoing {
    pub seat: String,
    pub name: String,
    pub bytes: Vec<u8>,
}

impl<'a> Host<'a> {
    /// The host of `record`'s game, replayed.
    pub fn open(
        module: &'a Module,
        rules: &mut dyn Rules,
        record: Record,
    ) -> Result<Self, HostError> {
        let master = record.replay_own(module, rules)?;
        Ok(Host {
            module,
            record,
            master,
        })
    }

    /// Whether `seat` answered its file `index` already.
    pub fn taken(&self, seat: &str, index: u32) -> Option<&Answered> {
        self.record
            .answers
            .iter()
            .find(|a| a.seat == seat && a.answers == index)
    }

    /// Takes an answer found in `seat`'s folder (`name` is how errors call it): checked
    /// to be this game's, this seat's, an answer to a file sent and not yet answered,
    /// and (unless another seat's decision overtook it) a legal decision of the seat.
    /// On error nothing is applied.
    pub fn take(
        &mut self,
        rules: &mut dyn Rules,
        seat: &str,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), HostError> {
        if self.record.revealed {
            return Err(bad(
                name,
                "the host has published its secret: the game goes on no further",
            ));
        }
        let answer: Answer = parse(name, bytes, "a seat's answer")?;
        if answer.game != self.record.game {
            return Err(bad(
                name,
                format!(
                    "it belongs to game {}, not to this game ({})",
                    answer.game, self.record.game
                ),
            ));
        }
        if answer.seat != seat {
            return Err(bad(
                name,
                format!(
                    "it is seat {}'s answer, found in seat {seat}'s folder: each seat answers only its own files",
                    answer.seat
                ),
            ));
        }
        let Some(sent) = self
            .record
            .sent
            .iter()
            .find(|s| s.seat == seat && s.index == answer.answers)
            .cloned()
        else {
            return Err(bad(
                name,
                format!(
                    "it answers file {} of seat {seat}, which the host never sent",
                    answer.answers
                ),
            ));
        };
        if answer.file != sent.sha256 {
            return Err(bad(
                name,
                format!(
                    "it answers another file {} than the one the host sent (changed, or of another game)",
                    answer.answers
                ),
            ));
        }
        let sha = to_hex(&sha256(bytes));
        if let Some(taken) = self.taken(seat, answer.answers) {
            if taken.sha256 == sha {
                return Ok(());
            }
            return Err(bad(
                name,
                format!(
                    "file {} of seat {seat} was answered already, by another answer: an answer cannot be changed",
                    answer.answers
                ),
            ));
        }
        if from_hex(&answer.nonce).is_none() {
            return Err(bad(name, "its nonce must be 64 hex digits"));
        }
        // Overtaken: another seat decided since the file was sent, and this seat's
        // choices changed (a sealed choice's other seats change nothing of its choices:
        // its answer stands).
        let now = self.master.steps.len();
        let overtaken = self.master.start.is_some()
            && (sent.index == 0
                || sent.at != now
                    && !self.master.same_choices(
                        self.module,
                        rules,
                        self.record.seat_id(self.module, seat)?,
                        sent.at,
                    )?);
        if !overtaken && let (Some(action), Some(state)) = (&answer.action, self.master.state()) {
            // One of the file's choices as the file named it (stand-ins and all), read
            // at the position the file was written at.
            let module = self.module;
            let id = self.record.seat_id(module, seat)?;
            let then = self.master.state_at(sent.at).unwrap_or(state);
            let listed = choices(module, rules, then, id, None)?;
            let choice = listed.choices.iter().find(|c| c.action == bare(action));
            if let Some(choice) = choice
                && let Some(field) = unlisted_piece(choice, action)
            {
                return Err(bad(
                    name,
                    format!(
                        "its entry's field '{field}' names a piece its file's form does not list (a piece out of the seat's sight goes by the form's number for it): refused, nothing was applied"
                    ),
                ));
            }
            if choice.is_none() {
                let words = if names_stand_in(action, state.units.len()) {
                    "a piece it names is none the file gave".to_string()
                } else {
                    crate::game::describe::action_checked(module, state, action)
                };
                return Err(bad(
                    name,
                    format!(
                        "its action ({words}) is not among the choices the host sent seat {seat}: refused, nothing was applied"
                    ),
                ));
            }
        }
        let mut answered = Answered {
            seat: seat.to_string(),
            answers: answer.answers,
            sha256: sha,
            nonce: answer.nonce.clone(),
            action: answer.action.clone(),
            actions: Vec::new(),
            overtaken,
            refused: None,
        };
        let secret = self.record.secret()?;
        let number = self.record.answers.len();
        let mut master = self.master.clone();
        (answered.actions, answered.refused) = self.record.step(
            self.module,
            rules,
            &mut master,
            &secret,
            number,
            &answered,
            name,
        )?;
        self.master = master;
        self.record.answers.push(answered);
        Ok(())
    }

    /// The files to send now: to every seat that must decide and holds no file for
    /// this position, and, once the game is over, each seat's last file. Recorded as
    /// sent; the rule errors met come beside (for the host's eyes only).
    pub fn outgoing(
        &mut self,
        rules: &mut dyn Rules,
    ) -> Result<(Vec<Outgoing>, Vec<RuleError>), HostError> {
        let module = self.module;
        let mut errors = Vec::new();
        let now = self.master.steps.len();
        let seats: Vec<SeatId> = if self.master.start.is_none() {
            Vec::new()
        } else if self.master.over() {
            module
                .seat_ids()
                .filter(|s| !self.master.hosts(*s))
                .filter(|s| {
                    let id = &module.seat(*s).id;
                    self.record
                        .last_sent(id)
                        .is_none_or(|l| l.at != now || l.index == 0)
                })
                .collect()
        } else {
            self.master
                .open_seats(module, rules)?
                .into_iter()
                .map(|(s, _)| s)
                .filter(|s| !self.master.hosts(*s))
                .filter(|s| {
                    let id = &module.seat(*s).id;
                    self.record.last_sent(id).is_none_or(|l| {
                        l.at != now || l.index == 0 || self.taken(id, l.index).is_some()
                    })
                })
                .collect()
        };
        let mut out = Vec::new();
        for seat in seats {
            let id = module.seat(seat).id.clone();
            let index = self.record.last_sent(&id).map_or(0, |l| l.index + 1);
            let (file, e) = self
                .record
                .seat_file(module, rules, &self.master, seat, index, now)?;
            errors.extend(e);
            let bytes = to_bytes(&file);
            self.record.sent.push(Sent {
                seat: id.clone(),
                index,
                at: now,
                sha256: to_hex(&sha256(&bytes)),
            });
            out.push(Outgoing {
                name: seat_file_name(&self.record.game, &id, index),
                seat: id,
                bytes,
            });
        }
        Ok((out, errors))
    }

    /// Every seat's file 0 of a new game.
    pub fn first_files(&mut self) -> Vec<Outgoing> {
        let module = self.module;
        let mut out = Vec::new();
        for seat in module.seat_ids() {
            let id = module.seat(seat).id.clone();
            if self.record.is_hosted(&id) {
                continue;
            }
            let file = SeatFile {
                pbem_host: HOST_FORMAT,
                game: self.record.game.clone(),
                seat: id.clone(),
                index: 0,
                commit: self.record.commit.clone(),
                setup: Some(self.record.setup.clone()),
                at: 0,
                view: None,
                log: Vec::new(),
                decide: Vec::new(),
                refused: None,
                over: false,
            };
            let bytes = to_bytes(&file);
            self.record.sent.push(Sent {
                seat: id.clone(),
                index: 0,
                at: 0,
                sha256: to_hex(&sha256(&bytes)),
            });
            out.push(Outgoing {
                name: seat_file_name(&self.record.game, &id, 0),
                seat: id,
                bytes,
            });
        }
        out
    }
}

/// What a seat's check of the published record found.
#[derive(Debug)]
pub struct Verified {
    /// The seat's files checked, and its answers.
    pub files: usize,
    pub answers: usize,
    /// The actions of the whole game.
    pub actions: usize,
    pub over: bool,
}

/// A seat's check of the host, once the record is published: the secret is the one
/// committed in every file the seat received; each of the seat's answers is in the
/// record as it sent it; the record replays (every dice seed from the secret and the
/// seats' nonces, every action legal and its seat's, the host's own moves forced); and
/// every file the seat received is exactly what the replayed game gives it. `files`
/// are the seat's files and answers (name, bytes) from its folder.
pub fn verify_seat(
    module: &Module,
    rules: &mut dyn Rules,
    record: &Record,
    seat: &str,
    files: &[(String, Vec<u8>)],
) -> Result<Verified, HostError> {
    let seat_id = record.seat_id(module, seat)?;
    let secret = record.secret()?;
    if to_hex(&sha256(&secret)) != record.commit {
        return Err(HostError::Game(
            "the record's secret is not the one the host committed to: its dice cannot be trusted"
                .into(),
        ));
    }
    let mut seat_files = BTreeMap::new();
    let mut answers = BTreeMap::new();
    for (name, bytes) in files {
        if name.ends_with(".seat.json") {
            let f: SeatFile = parse(name, bytes, "a file from the host")?;
            check_own(name, &f.game, &f.seat, &record.game, seat)?;
            if f.commit != record.commit {
                return Err(bad(
                    name,
                    "its commitment is not the record's: the host changed its secret during the game",
                ));
            }
            seat_files.insert(f.index, (name.clone(), bytes.clone()));
        } else if name.ends_with(".answer.json") {
            let a: Answer = parse(name, bytes, "a seat's answer")?;
            check_own(name, &a.game, &a.seat, &record.game, seat)?;
            // The record's copy must be the answer itself: its nonce seeds dice.
            let copy = record
                .answers
                .iter()
                .find(|r| r.seat == seat && r.answers == a.answers);
            if copy.is_some_and(|r| r.nonce != a.nonce || r.action != a.action) {
                return Err(bad(
                    name,
                    "the record holds another nonce or action for this answer than the seat sent: the host changed it",
                ));
            }
            answers.insert(a.answers, (name.clone(), to_hex(&sha256(bytes))));
        }
    }
    let recorded: BTreeSet<(u32, &str)> = record
        .answers
        .iter()
        .filter(|a| a.seat == seat)
        .map(|a| (a.answers, a.sha256.as_str()))
        .collect();
    for (index, (name, sha)) in &answers {
        if !recorded.contains(&(*index, sha.as_str())) {
            return Err(bad(
                name,
                "the record does not hold this answer as sent: the host took another, or none",
            ));
        }
    }
    if let Some((index, _)) = recorded.iter().find(|(i, _)| !answers.contains_key(i)) {
        return Err(HostError::Game(format!(
            "the record holds an answer of {seat} to file {index} that is not in this folder: the host made it up, or it was lost"
        )));
    }
    let master = record.replay(module, rules)?;
    let mut checked = 0;
    for sent in record.sent.iter().filter(|s| s.seat == seat) {
        let Some((name, bytes)) = seat_files.get(&sent.index) else {
            return Err(HostError::Game(format!(
                "the record says the host sent {seat} its file {} ({}), which is not in this folder",
                sent.index,
                seat_file_name(&record.game, seat, sent.index)
            )));
        };
        let (expected, _) =
            record.seat_file(module, rules, &master, seat_id, sent.index, sent.at)?;
        let got: SeatFile = parse(name, bytes, "a file from the host")?;
        if to_bytes(&expected) != *bytes || to_hex(&sha256(bytes)) != sent.sha256 {
            let what = if got.view != expected.view {
                "its view of the game"
            } else if got.log != expected.log {
                "its log"
            } else if got.decide != expected.decide {
                "its choices"
            } else {
                "its contents"
            };
            return Err(bad(
                name,
                format!(
                    "{what} is not what the record gives after {} actions: the host sent something else than the game",
                    sent.at
                ),
            ));
        }
        checked += 1;
    }
    if let Some((_, (name, _))) = seat_files
        .iter()
        .find(|(i, _)| !record.sent.iter().any(|s| s.seat == seat && s.index == **i))
    {
        return Err(bad(name, "the record does not say the host sent this file"));
    }
    Ok(Verified {
        files: checked,
        answers: answers.len(),
        actions: master.steps.len(),
        over: master.over(),
    })
}

/// A seat's choices at a position, as its file gives them.
struct Listed {
    /// Each legal action as the file names it, in words and with its form.
    choices: Vec<Choice>,
    /// The pieces the choices name by stand-ins.
    stand_ins: StandIns,
    /// What the seat sees of each piece.
    seen: Vec<Sight>,
}

/// `seat`'s choices at `state` as its file gives them: in words, with their forms, and
/// each piece the seat does not fully see named by a stand-in, never by its id. Built
/// the same way to write a file and to read its answer.
fn choices(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
    seen: Option<Vec<Sight>>,
) -> Result<Listed, HostError> {
    let legal = legal_actions_for(module, rules, state, seat).map_err(rule)?;
    let mut sent = Listed {
        choices: Vec::new(),
        stand_ins: StandIns::new(state.units.len()),
        seen: Vec::new(),
    };
    if legal.is_empty() {
        return Ok(sent);
    }
    // A failing rule's errors were the host's when the file was written.
    let seen = seen.unwrap_or_else(|| sights(module, rules, state, seat).0);
    let hidden = |u: crate::ids::UnitId| seen.get(u.index()) != Some(&Sight::Full);
    // The forms of the offers among the choices, named as the seat sees.
    let listed = if legal.iter().any(|a| matches!(a, Action::Take { .. })) {
        offers(module, rules, state).map_err(rule)?
    } else {
        Vec::new()
    };
    for action in &legal {
        let mut form = listed
            .iter()
            .find(|o| !o.form.is_empty() && o.taken_by(action))
            .map(|o| in_words(module, state, &o.form, hidden))
            .unwrap_or_default();
        let named = sent.stand_ins.disguise_action(action, &seen);
        sent.stand_ins.disguise_form(&mut form, &seen);
        sent.choices.push(Choice {
            words: choice_words(module, state, action, &seen),
            action: named,
            form,
        });
    }
    sent.seen = seen;
    Ok(sent)
}

/// The first pieces field of `action`'s entry naming a piece `choice`'s form (as the
/// file gave it) does not list.
fn unlisted_piece(choice: &Choice, action: &Action) -> Option<String> {
    let Action::Take {
        entry: Some(entry), ..
    } = action
    else {
        return None;
    };
    entry.0.iter().find_map(|(id, value)| {
        let crate::game::entry::Value::Pieces(given) = value else {
            return None;
        };
        let listed = choice
            .form
            .iter()
            .find(|f| &f.id == id)
            .and_then(|f| match &f.takes {
                crate::game::entry::Takes::Pieces(pieces) => Some(pieces),
                _ => None,
            });
        let ok = |u: &crate::ids::UnitId| listed.is_some_and(|p| p.iter().any(|p| p.unit == *u));
        (!given.iter().all(|(u, _)| ok(u))).then(|| id.clone())
    })
}

/// Whether `action` names a piece past the game's `units`: a stand-in.
fn names_stand_in(action: &Action, units: usize) -> bool {
    let mut any = false;
    action.map_units(|u| {
        any |= u.index() >= units;
        u
    });
    any
}

/// `action` without the values entered: the choice it takes, as the host listed it.
fn bare(action: &Action) -> Action {
    let mut bare = action.clone();
    if let Action::Take { entry, .. } = &mut bare {
        *entry = None;
    }
    bare
}

/// A one-line refusal of a file of another game or another seat.
pub fn check_own(
    name: &str,
    game: &str,
    file_seat: &str,
    this_game: &str,
    seat: &str,
) -> Result<(), HostError> {
    if game != this_game {
        return Err(bad(
            name,
            format!("it belongs to game {game}, not to this game ({this_game})"),
        ));
    }
    if file_seat != seat {
        return Err(bad(
            name,
            format!("it is for seat {file_seat}, not for seat {seat}"),
        ));
    }
    Ok(())
}
