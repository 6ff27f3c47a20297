//! Play by file (PBEM): two players exchange small turn files, each holding the actions
//! its author took since the opponent's last file, with dice neither of them can choose,
//! foresee beyond their own stretch, or roll again.
//!
//! **The files.** File 0 (the creator's) sets the game up: module stack, scenario,
//! options. File 1 is the opponent's answer. From file 2 on, each file is a *stretch*:
//! its author's decisions from the moment they became the author's to decide until the
//! opponent must decide (or the game ends). Authors alternate: the creator writes the
//! even files. Each file names the SHA-256 of the one before (`previous`), so no earlier
//! file can be changed without breaking the chain, and the hash of the position it
//! ends in (`state`), so both clients know they see the same game.
//!
//! **The dice** (commit–reveal, Blum 1981). Every file carries a `commit`: the hash of
//! a fresh secret of its author, and a `nonce`: a fresh public random value. Its author
//! reveals the secret in their next file (`reveal`). The dice of stretch `k` are seeded
//! by `SHA-256(game, k, reveal_k, nonce_{k-1})`: the author's secret, committed in file
//! `k - 2` before the opponent chose `nonce_{k-1}`, and the opponent's nonce, chosen
//! knowing only that commitment. So neither chose the seed; the opponent cannot know it
//! before file `k` arrives, and its author cannot change it (the reveal must match the
//! commitment) or roll again by reloading (the same secret gives the same dice).
//!
//! **What it cannot do.** The author knows the dice of their own stretch as soon as the
//! opponent's file arrives, and could try moves out before sending; no scheme without a
//! server or a message per die can prevent that (the author's program must compute the
//! dice to go on). What they cannot do is make the dice any different.
//!
//! A decision that is the only legal action (a defender with one possible target) may
//! be taken by the author of the stretch for the opponent, which saves a file.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::game::describe;
use crate::game::dice::Dice;
use crate::game::flow::{StartError, decider, legal_actions, set_end, start};
use crate::game::history::History;
use crate::game::rules::Rules;
use crate::game::save::{Reseed, Save, SaveError, SavedModule, SavedScenario};
use crate::game::state::GameState;
use crate::game::{Action, ActionError};
use crate::ids::{OptionId, SideId};
use crate::module::Module;

pub mod folder;
pub mod host;
pub mod stand_in;

/// The turn file layout; bumped when an older muster would misread a newer file.
///
/// - 1: the first.
/// - 2: positions (`state`) hash the pieces' numbers, so a file of format 1 states
///   positions this muster no longer computes.
pub const PBEM_FORMAT: u32 = 2;

/// A secret, a nonce or a hash: 32 bytes, written as 64 hex digits.
pub type Bytes32 = [u8; 32];

/// One turn file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnFile {
    /// [`PBEM_FORMAT`].
    pub pbem: u32,
    /// The game's id (file 0's nonce), so a file of another game is told apart.
    pub game: String,
    /// 0, 1, 2, ...: the creator writes the even ones.
    pub index: u32,
    /// The author's side id.
    pub side: String,
    /// SHA-256 of the previous file's bytes (none for file 0).
    #[serde(default)]
    pub previous: Option<String>,
    /// The secret the author committed to in their previous file (none in their first).
    #[serde(default)]
    pub reveal: Option<String>,
    /// SHA-256 of the author's next secret.
    pub commit: String,
    /// A fresh random value, seeding the opponent's next stretch with the author's secret.
    pub nonce: String,
    /// File 0 only: the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<Setup>,
    /// The author's stretch (from file 2 on).
    #[serde(default)]
    pub actions: Vec<Action>,
    /// SHA-256 of the position after the actions (from file 2 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// What file 0 says about the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    pub module: SavedModule,
    pub scenario: SavedScenario,
    pub options: Vec<String>,
    #[serde(default)]
    pub end: Option<String>,
    /// The two players' sides: the creator's first.
    pub players: [String; 2],
}

#[derive(Debug, thiserror::Error)]
pub enum PbemError {
    #[error("{file}:{line}:{column}: the turn file is damaged: {message}")]
    Corrupt {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{file} is a turn file of format {found}; this muster reads format {PBEM_FORMAT}: open it with a newer muster"
    )]
    Format { file: String, found: u32 },
    #[error(
        "{file} is a turn file of format {found}, from an older muster; this one reads format {PBEM_FORMAT}: finish that game with the muster it was started with"
    )]
    Older { file: String, found: u32 },
    #[error("{file}: {message}")]
    Bad { file: String, message: String },
    #[error("{file}: action {index} ({action}) {why}")]
    Action {
        file: String,
        /// 1-based within the file.
        index: usize,
        action: String,
        why: String,
    },
    #[error("{file}: {source}")]
    Module {
        file: String,
        #[source]
        source: Box<SaveError>,
    },
    #[error("{file}: the game cannot start: {source}")]
    Start {
        file: String,
        #[source]
        source: StartError,
    },
    #[error("{0}")]
    Rule(String),
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> Bytes32 {
    Sha256::digest(bytes).into()
}

pub fn to_hex(bytes: &Bytes32) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn from_hex(text: &str) -> Option<Bytes32> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// The seed of stretch `index`'s dice.
pub fn stretch_seed(game: &str, index: u32, reveal: &Bytes32, nonce: &Bytes32) -> u64 {
    let mut h = Sha256::new();
    h.update(b"muster pbem dice\0");
    h.update(game.as_bytes());
    h.update(index.to_le_bytes());
    h.update(reveal);
    h.update(nonce);
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

/// SHA-256 of a position, as the `state` of a file.
pub fn state_hash(state: &GameState) -> String {
    // A state always serializes (plain data); an empty hash would only fail the check.
    to_hex(&sha256(&serde_json::to_vec(state).unwrap_or_default()))
}

/// Reads a turn file's bytes; `name` is how errors call it.
pub fn parse(name: &str, bytes: &[u8]) -> Result<TurnFile, PbemError> {
    let corrupt = |e: serde_json::Error| PbemError::Corrupt {
        file: name.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    #[derive(Deserialize)]
    struct Head {
        pbem: u32,
    }
    // Another kind of file, told in one line rather than as a missing field.
    let any: serde_json::Value = serde_json::from_slice(bytes).map_err(corrupt)?;
    let is = |k: &str| any.get(k).is_some();
    let other = if any.get("view").and_then(|v| v.as_str()) == Some(crate::game::sight::SEAT_VIEW) {
        Some("a seat's view")
    } else if is("snapshot") && is("actions") && is("seed") {
        Some("a saved game (open it with muster replay)")
    } else if is("pbem_host") {
        Some("a file of a game with a host (muster pbem play DIR --seat SEAT)")
    } else {
        None
    };
    if let (Some(other), false) = (other, is("pbem")) {
        return Err(PbemError::Bad {
            file: name.to_string(),
            message: format!("it is {other}, not a turn file"),
        });
    }
    let head: Head = serde_json::from_slice(bytes).map_err(corrupt)?;
    if head.pbem < PBEM_FORMAT {
        return Err(PbemError::Older {
            file: name.to_string(),
            found: head.pbem,
        });
    }
    if head.pbem != PBEM_FORMAT {
        return Err(PbemError::Format {
            file: name.to_string(),
            found: head.pbem,
        });
    }
    serde_json::from_slice(bytes).map_err(corrupt)
}

/// Writes a turn file as its bytes (what is sent, and what the next file hashes).
pub fn to_bytes(file: &TurnFile) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(file).unwrap_or_default();
    out.push(b'\n');
    out
}

/// A game played by file, as far as its files go, every file checked.
#[derive(Clone, Debug)]
pub struct Game {
    pub id: String,
    pub setup: Setup,
    /// Each file read, with the hash of its bytes.
    files: Vec<(TurnFile, Bytes32)>,
    /// The game, from file 2 on.
    history: Option<History>,
    /// Each stretch's dice after the first (which seeds the game).
    reseeds: Vec<Reseed>,
    seed: u64,
    options: Vec<OptionId>,
    players: [SideId; 2],
}

fn bad(file: &str, message: impl Into<String>) -> PbemError {
    PbemError::Bad {
        file: file.to_string(),
        message: message.into(),
    }
}

impl Game {
    /// The game file 0 sets up, checked against the module as loaded.
    pub fn open(module: &Module, name: &str, bytes: &[u8]) -> Result<Game, PbemError> {
        let file = parse(name, bytes)?;
        if file.index != 0 {
            return Err(bad(
                name,
                format!(
                    "it is file {} of its game; the game starts with file 0",
                    file.index
                ),
            ));
        }
        let Some(setup) = file.setup.clone() else {
            return Err(bad(name, "file 0 has no setup"));
        };
        setup
            .module
            .check(module)
            .map_err(|source| PbemError::Module {
                file: name.to_string(),
                source: Box::new(source),
            })?;
        let side = |id: &str| {
            module
                .find_side(id)
                .ok_or_else(|| bad(name, format!("the module has no side '{id}'")))
        };
        let players = [side(&setup.players[0])?, side(&setup.players[1])?];
        if !module.all_open() {
            // Each player would hold the whole game, hidden parts and all.
            return Err(bad(
                name,
                format!(
                    "module '{}' hides information from its seats: play it by file with a host (muster pbem new --host)",
                    module.id
                ),
            ));
        }
        if players[0] == players[1] || module.sides.len() != 2 {
            return Err(bad(
                name,
                "play by file is for two players on the module's two sides",
            ));
        }
        let options = setup
            .options
            .iter()
            .map(|o| {
                module
                    .find_option(o)
                    .ok_or_else(|| bad(name, format!("the module has no optional rule '{o}'")))
            })
            .collect::<Result<_, _>>()?;
        let mut game = Game {
            id: file.game.clone(),
            setup,
            files: Vec::new(),
            history: None,
            reseeds: Vec::new(),
            seed: 0,
            options,
            players,
        };
        game.check_header(name, &file)?;
        if file.previous.is_some() || file.reveal.is_some() || !file.actions.is_empty() {
            return Err(bad(
                name,
                "file 0 sets the game up: no previous file, reveal or actions",
            ));
        }
        game.files.push((file, sha256(bytes)));
        Ok(game)
    }

    /// The number of files read.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The side of the player who writes the next file.
    pub fn next_author(&self) -> SideId {
        self.players[self.files.len() % 2]
    }

    /// The players' sides, the creator's first.
    pub fn players(&self) -> [SideId; 2] {
        self.players
    }

    /// The game so far (none before file 2).
    pub fn history(&self) -> Option<&History> {
        self.history.as_ref()
    }

    /// Whether the game is over.
    pub fn over(&self) -> bool {
        self.history
            .as_ref()
            .is_some_and(|h| h.state().outcome.is_some())
    }

    /// The commitment the author of the next file made in their previous one.
    fn commitment_of_next_author(&self) -> Option<&str> {
        let n = self.files.len();
        (n >= 2).then(|| self.files[n - 2].0.commit.as_str())
    }

    fn check_header(&self, name: &str, file: &TurnFile) -> Result<(), PbemError> {
        if file.game != self.id {
            return Err(bad(
                name,
                format!(
                    "it belongs to game {}, not to this game ({})",
                    file.game, self.id
                ),
            ));
        }
        let expected = self.files.len();
        if file.index as usize != expected {
            return Err(bad(
                name,
                format!("it is file {}, but file {expected} comes next", file.index),
            ));
        }
        let author = &self.setup.players[expected % 2];
        if &file.side != author {
            return Err(bad(
                name,
                format!(
                    "file {expected} is {author}'s to write, not {}'s",
                    file.side
                ),
            ));
        }
        if from_hex(&file.commit).is_none() || from_hex(&file.nonce).is_none() {
            return Err(bad(name, "its commit and nonce must be 64 hex digits"));
        }
        if let Some((_, hash)) = self.files.last()
            && file.previous.as_deref() != Some(to_hex(hash).as_str())
        {
            return Err(bad(
                name,
                format!(
                    "it does not follow file {}: that file was changed, or this one answers another",
                    expected - 1
                ),
            ));
        }
        match (self.commitment_of_next_author(), &file.reveal) {
            (None, None) => {}
            (None, Some(_)) => return Err(bad(name, "it reveals a secret no file committed to")),
            (Some(_), None) => {
                return Err(bad(
                    name,
                    format!(
                        "it must reveal the secret committed in file {}",
                        expected - 2
                    ),
                ));
            }
            (Some(commit), Some(reveal)) => {
                let matches = from_hex(reveal).is_some_and(|r| to_hex(&sha256(&r)) == commit);
                if !matches {
                    return Err(bad(
                        name,
                        format!(
                            "its revealed secret is not the one committed in file {}: the dice would not be the agreed ones",
                            expected - 2
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The dice seed of the next file's stretch, given its author's revealed secret.
    fn next_seed(&self, reveal: &Bytes32) -> u64 {
        let nonce = self
            .files
            .last()
            .and_then(|(f, _)| from_hex(&f.nonce))
            .unwrap_or_default();
        stretch_seed(&self.id, self.files.len() as u32, reveal, &nonce)
    }

    /// The game at the start of the next file's stretch: started (file 2) or given the
    /// stretch's dice. Its author knows `reveal`; the opponent learns it with the file.
    pub fn stretch(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        reveal: &Bytes32,
    ) -> Result<History, PbemError> {
        let name = format!("file {}", self.files.len());
        let seed = self.next_seed(reveal);
        match &self.history {
            Some(h) => {
                let mut h = h.clone();
                h.reseed(Dice::seeded(seed));
                Ok(h)
            }
            None => {
                let scenario = self.scenario(module).map_err(|source| PbemError::Module {
                    file: name.clone(),
                    source: Box::new(source),
                })?;
                let (mut state, _log) = start(
                    module,
                    rules,
                    &scenario,
                    self.options.clone(),
                    Dice::seeded(seed),
                )
                .map_err(|source| PbemError::Start {
                    file: name.clone(),
                    source,
                })?;
                if let Some(end) = &self.setup.end {
                    set_end(module, &mut state, end).map_err(|e| bad(&name, e))?;
                }
                Ok(History::new(state))
            }
        }
    }

    fn scenario(&self, module: &Module) -> Result<crate::scenario::Scenario, SaveError> {
        crate::game::save::saved_scenario(module, &self.setup.scenario)
    }

    /// Whether `author`'s stretch goes on in `state`: see [`Stretch::goes_on`].
    pub fn stretch_goes_on(
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        author: SideId,
    ) -> Result<Option<bool>, PbemError> {
        if state.outcome.is_some() {
            return Ok(None);
        }
        if decider(module, state) == author {
            return Ok(Some(true));
        }
        let legal =
            legal_actions(module, rules, state).map_err(|e| PbemError::Rule(e.to_string()))?;
        Ok((legal.len() == 1).then_some(false))
    }

    /// Reads the next file: checks it follows, that its secret is the committed one, and
    /// replays its actions (each legal, taken by its author or forced), and that it ends
    /// where its author's stretch ends, in the position it says.
    pub fn add(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), PbemError> {
        let file = parse(name, bytes)?;
        self.check_header(name, &file)?;
        if file.setup.is_some() {
            return Err(bad(name, "only file 0 sets the game up"));
        }
        if self.over() {
            return Err(bad(name, "the game is over: no file follows its last"));
        }
        let k = self.files.len();
        if k == 1 {
            if !file.actions.is_empty() || file.state.is_some() {
                return Err(bad(name, "file 1 answers the setup: it holds no actions"));
            }
            self.files.push((file, sha256(bytes)));
            return Ok(());
        }
        let reveal = file
            .reveal
            .as_deref()
            .and_then(from_hex)
            .ok_or_else(|| bad(name, "it must reveal its secret"))?;
        let mut history = self.stretch(module, rules, &reveal)?;
        let seed = self.next_seed(&reveal);
        let author = self.players[k % 2];
        for (i, action) in file.actions.iter().enumerate() {
            let state = history.state().clone();
            let words = describe::action_checked(module, &state, action);
            let fail = |why: String| PbemError::Action {
                file: name.to_string(),
                index: i + 1,
                action: words.clone(),
                why,
            };
            match Self::stretch_goes_on(module, rules, &state, author)? {
                None => return Err(fail("comes after the end of the game".into())),
                Some(false) => {
                    let legal = legal_actions(module, rules, &state)
                        .map_err(|e| PbemError::Rule(e.to_string()))?;
                    if legal.first() != Some(action) {
                        return Err(fail(format!(
                            "is the opponent's to decide ({} acts now)",
                            module.side(decider(module, &state)).name
                        )));
                    }
                }
                Some(true) => {}
            }
            history
                .apply(module, rules, action.clone())
                .map_err(|e: ActionError| fail(format!("is refused: {e}")))?;
        }
        if Self::stretch_goes_on(module, rules, history.state(), author)? == Some(true) {
            return Err(bad(
                name,
                format!(
                    "it stops while {} still has to decide: a file holds its author's whole stretch",
                    module.side(author).name
                ),
            ));
        }
        if file.state.as_deref() != Some(state_hash(history.state()).as_str()) {
            return Err(bad(
                name,
                "its actions give another position than the one it states: the files were made with other rules, or changed",
            ));
        }
        if self.history.is_none() {
            self.seed = seed;
        } else {
            self.reseeds.push(Reseed {
                before: history.actions().len() - file.actions.len(),
                seed,
            });
        }
        self.history = Some(history);
        self.files.push((file, sha256(bytes)));
        Ok(())
    }

    /// The next file's stretch, ready to be played by its author: from file 2 on, the
    /// game at its start with the stretch's dice (`reveal` is the secret the author
    /// committed to in their previous file); before, nothing to play.
    pub fn begin(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        reveal: Option<&Bytes32>,
    ) -> Result<Option<Stretch>, PbemError> {
        let k = self.files.len();
        if k < 2 {
            return Ok(None);
        }
        if self.over() {
            return Err(bad(
                &format!("file {k}"),
                "the game is over: no file follows its last",
            ));
        }
        let reveal = reveal
            .ok_or_else(|| bad(&format!("file {k}"), "it must reveal its author's secret"))?;
        let history = self.stretch(module, rules, reveal)?;
        let seed = self.next_seed(reveal);
        let start = history.actions().len();
        let (seed, reseeds) = match self.history {
            None => (seed, Vec::new()),
            Some(_) => {
                let mut reseeds = self.reseeds.clone();
                reseeds.push(Reseed {
                    before: start,
                    seed,
                });
                (self.seed, reseeds)
            }
        };
        Ok(Some(Stretch {
            start,
            history,
            author: self.players[k % 2],
            seed,
            reseeds,
        }))
    }

    /// Writes the next file: the actions of `stretch` (from [`Game::begin`], played to
    /// its end), committing to `next_secret` and with a fresh `nonce`. Returns the
    /// file's bytes. Refused while the author still has to decide, or when the stretch
    /// went back before its start.
    pub fn finish(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        reveal: Option<&Bytes32>,
        next_secret: &Bytes32,
        nonce: &Bytes32,
        stretch: Option<&Stretch>,
    ) -> Result<Vec<u8>, PbemError> {
        let k = self.files.len();
        let name = format!("file {k}");
        let author = self.players[k % 2];
        let mut file = TurnFile {
            pbem: PBEM_FORMAT,
            game: self.id.clone(),
            index: k as u32,
            side: module.side(author).id.clone(),
            previous: self.files.last().map(|(_, h)| to_hex(h)),
            reveal: reveal.map(to_hex),
            commit: to_hex(&sha256(next_secret)),
            nonce: to_hex(nonce),
            setup: None,
            actions: Vec::new(),
            state: None,
        };
        match (k >= 2, stretch) {
            (false, _) => {}
            (true, None) => return Err(bad(&name, "it must hold its author's stretch")),
            (true, Some(s)) => {
                if s.author != author || s.history.actions().len() < s.start {
                    return Err(bad(&name, "the stretch played is not this file's"));
                }
                if s.goes_on(module, rules)? == Some(true) {
                    return Err(bad(
                        &name,
                        format!(
                            "{} still has to decide: a file holds its author's whole stretch",
                            module.side(author).name
                        ),
                    ));
                }
                file.actions = s.history.actions()[s.start..].to_vec();
                file.state = Some(state_hash(s.history.state()));
            }
        }
        Ok(to_bytes(&file))
    }

    /// Plays the next file's stretch with `choose` deciding for its author (forced
    /// decisions of the opponent are taken too) and writes the file ([`Game::begin`],
    /// then [`Game::finish`]): `reveal` is the secret the author committed to in their
    /// previous file, `next_secret` and `nonce` fresh random values.
    pub fn write_next(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        reveal: Option<&Bytes32>,
        next_secret: &Bytes32,
        nonce: &Bytes32,
        mut choose: impl FnMut(&Module, &mut dyn Rules, &History) -> Result<Action, String>,
    ) -> Result<Vec<u8>, PbemError> {
        let mut stretch = self.begin(module, rules, reveal)?;
        if let Some(s) = stretch.as_mut() {
            while let Some(mine) = s.goes_on(module, rules)? {
                let action = if mine {
                    choose(module, rules, &s.history).map_err(PbemError::Rule)?
                } else {
                    match s.forced(module, rules)? {
                        Some(a) => a,
                        None => break,
                    }
                };
                s.history
                    .apply(module, rules, action)
                    .map_err(|e| PbemError::Rule(e.to_string()))?;
            }
        }
        self.finish(module, rules, reveal, next_secret, nonce, stretch.as_ref())
    }

    /// The actions from `from` on, for the player who did not take them: each in
    /// words, after the side that took it (`Union: march: activate Washington`), named
    /// in the position it was taken in (a piece's number, the box a reinforcement came
    /// from, the piece promoted), then indented, every line the game logged for it, the
    /// dice rolled included, as the game's own log has them (each action is applied
    /// again on the state it was taken in: the same dice, the same lines).
    pub fn report(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        from: usize,
    ) -> Result<Vec<String>, PbemError> {
        let Some(h) = &self.history else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (i, action) in h.actions().iter().enumerate().skip(from) {
            let Some(state) = h.state_before(i) else {
                break;
            };
            let side = &module.side(decider(module, state)).name;
            out.push(format!(
                "{side}: {}",
                describe::action_checked(module, state, action)
            ));
            let (_, log) = crate::game::apply(module, rules, state, action)
                .map_err(|e| PbemError::Rule(e.to_string()))?;
            out.extend(log.into_iter().map(|l| format!("  {l}")));
        }
        Ok(out)
    }

    /// The game's dice as a save records them: the first stretch's seed, then each
    /// later stretch's.
    pub fn dice(&self) -> (u64, Vec<Reseed>) {
        (self.seed, self.reseeds.clone())
    }

    /// The game as a save (`muster replay`, the app): its dice are the stretches'.
    pub fn to_save(&self, module: &Module) -> Option<Save> {
        let history = self.history.as_ref()?;
        let (seed, reseeds) = self.dice();
        let mut save = Save::new(
            module,
            self.setup.scenario.clone(),
            self.setup.options.clone(),
            seed,
            history.actions().to_vec(),
            history.state().clone(),
        );
        save.end = self.setup.end.clone();
        save.reseeds = reseeds;
        Some(save)
    }
}

/// The stretch of the next file, being played by its author ([`Game::begin`]).
#[derive(Clone, Debug)]
pub struct Stretch {
    /// The game: up to `start` as the files left it, then the author's actions.
    pub history: History,
    /// The number of actions before the stretch (it may not be undone past them).
    pub start: usize,
    author: SideId,
    /// The game's dice, this stretch's included, as a save records them.
    pub seed: u64,
    pub reseeds: Vec<Reseed>,
}

impl Stretch {
    /// The side whose stretch it is.
    pub fn author(&self) -> SideId {
        self.author
    }

    /// Whether the stretch goes on: `Some(true)` its author decides, `Some(false)` the
    /// opponent has a single choice (taken within the stretch, see [`Stretch::forced`]),
    /// `None` it is over (the opponent decides, or the game ended).
    pub fn goes_on(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
    ) -> Result<Option<bool>, PbemError> {
        Game::stretch_goes_on(module, rules, self.history.state(), self.author)
    }

    /// The opponent's only legal action, when the stretch goes on with it.
    pub fn forced(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
    ) -> Result<Option<Action>, PbemError> {
        if self.goes_on(module, rules)? != Some(false) {
            return Ok(None);
        }
        let legal = legal_actions(module, rules, self.history.state())
            .map_err(|e| PbemError::Rule(e.to_string()))?;
        Ok(legal.into_iter().next())
    }
}

/// File 0 of a new game: `players` the creator's side then the opponent's.
#[allow(clippy::too_many_arguments)]
pub fn new_game(
    module: &Module,
    scenario: SavedScenario,
    options: Vec<String>,
    end: Option<String>,
    players: [String; 2],
    game_nonce: &Bytes32,
    secret: &Bytes32,
) -> Vec<u8> {
    let file = TurnFile {
        pbem: PBEM_FORMAT,
        game: to_hex(game_nonce)[..16].to_string(),
        index: 0,
        side: players[0].clone(),
        previous: None,
        reveal: None,
        commit: to_hex(&sha256(secret)),
        nonce: to_hex(game_nonce),
        setup: Some(Setup {
            module: SavedModule::of(module),
            scenario,
            options,
            end,
            players,
        }),
        actions: Vec::new(),
        state: None,
    };
    to_bytes(&file)
}
