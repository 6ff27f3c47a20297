//! A player's folder of a game played by file: the turn files (their own and the ones
//! received) and a private file of the player's secrets, which is never sent. The CLI
//! (`muster pbem`) and the app share it, so both read and write the same folders.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Bytes32, Game, PbemError, Setup, from_hex, new_game, parse, to_hex};
use crate::game::rules::Rules;
use crate::game::save::SavedScenario;
use crate::module::Module;

#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} holds no turn file (*.pbem.json)", .0.display())]
    Empty(PathBuf),
    #[error("{} holds turn files of several games ({games}); keep one game a folder", dir.display())]
    SeveralGames { dir: PathBuf, games: String },
    #[error(
        "{} and {} are both file {index} of the game: a turn was sent twice; keep the one the game went on from",
        a.display(),
        b.display()
    )]
    Twice { a: PathBuf, b: PathBuf, index: u32 },
    #[error("{}: the first file of the game is not its file 0", .0.display())]
    NoSetup(PathBuf),
    #[error("{} holds a game already; start a new game in another folder", .0.display())]
    HoldsGame(PathBuf),
    #[error("cannot write {} (a file of that name exists already?): {source}", path.display())]
    Exists {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Secrets { path: PathBuf, message: String },
    #[error("no randomness from the system: {0}")]
    Random(String),
    #[error(transparent)]
    Pbem(#[from] PbemError),
}

/// A turn file's name: the game, its place in the game and its author, so files of
/// several games can share a downloads folder.
pub fn file_name(game: &str, index: u32, side: &str) -> String {
    format!("{game}-{index:03}-{side}.pbem.json")
}

/// The private file of a player's secrets, by the index of the file that committed to
/// each: never to be sent.
#[derive(Default, Serialize, Deserialize)]
struct Secrets {
    game: String,
    side: String,
    secrets: BTreeMap<u32, String>,
}

/// 32 random bytes from the operating system (a secret or a nonce).
pub fn random32() -> Result<Bytes32, FolderError> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(|e| FolderError::Random(e.to_string()))?;
    Ok(b)
}

/// What the author of the next file needs to write it: the secret to reveal (committed
/// two files earlier), the next one (already kept in the secrets file) and a nonce.
#[derive(Clone, Debug)]
pub struct TurnKeys {
    pub reveal: Option<Bytes32>,
    pub next: Bytes32,
    pub nonce: Bytes32,
}

/// A game read from a folder: every file checked.
pub struct Read {
    pub game: Game,
    /// How many actions the game had before the last file (its moves follow).
    pub before_last: usize,
}

/// One player's folder.
#[derive(Clone, Debug)]
pub struct Folder {
    pub dir: PathBuf,
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> FolderError + 'a {
    move |source| FolderError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

impl Folder {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Folder { dir: dir.into() }
    }

    fn secrets_path(&self, game: &str, side: &str) -> PathBuf {
        self.dir.join(format!(".{game}-{side}.secrets.json"))
    }

    /// The turn files in the folder, in game order, with their bytes.
    pub fn turn_files(&self) -> Result<Vec<(PathBuf, Vec<u8>)>, FolderError> {
        let dir = &self.dir;
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io("read", dir))? {
            let path = entry.map_err(io("read", dir))?.path();
            if path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".pbem.json"))
            {
                let bytes = std::fs::read(&path).map_err(io("read", &path))?;
                // The index and game come from the file itself (checked again when read).
                let head: Option<(String, u32)> =
                    serde_json::from_slice::<serde_json::Value>(&bytes)
                        .ok()
                        .and_then(|v| {
                            Some((
                                v["game"].as_str()?.to_string(),
                                u32::try_from(v["index"].as_u64()?).ok()?,
                            ))
                        });
                found.push((path, bytes, head));
            }
        }
        if found.is_empty() {
            return Err(FolderError::Empty(dir.clone()));
        }
        let games: BTreeSet<&str> = found
            .iter()
            .filter_map(|(_, _, h)| h.as_ref().map(|h| h.0.as_str()))
            .collect();
        if games.len() > 1 {
            return Err(FolderError::SeveralGames {
                dir: dir.clone(),
                games: games.into_iter().collect::<Vec<_>>().join(", "),
            });
        }
        // A damaged file sorts last and is reported when read.
        found.sort_by_key(|(p, _, h)| (h.as_ref().map_or(u32::MAX, |h| h.1), p.clone()));
        for pair in found.windows(2) {
            if let (Some(a), Some(b)) = (&pair[0].2, &pair[1].2)
                && a.1 == b.1
            {
                return Err(FolderError::Twice {
                    a: pair[0].0.clone(),
                    b: pair[1].0.clone(),
                    index: a.1,
                });
            }
        }
        Ok(found.into_iter().map(|(p, b, _)| (p, b)).collect())
    }

    /// What file 0 says of the game (to know which module to load), unchecked.
    pub fn setup(&self) -> Result<Setup, FolderError> {
        let files = self.turn_files()?;
        let (path, bytes) = &files[0];
        parse(&path.display().to_string(), bytes)?
            .setup
            .ok_or_else(|| FolderError::NoSetup(path.clone()))
    }

    /// The game, every file checked on `module` as loaded.
    pub fn read(&self, module: &Module, rules: &mut dyn Rules) -> Result<Read, FolderError> {
        let files = self.turn_files()?;
        let (first_path, first) = &files[0];
        let mut game = Game::open(module, &first_path.display().to_string(), first)?;
        let mut before_last = 0;
        for (path, bytes) in &files[1..] {
            before_last = game.history().map_or(0, |h| h.actions().len());
            game.add(module, rules, &path.display().to_string(), bytes)?;
        }
        Ok(Read { game, before_last })
    }

    /// Starts a new game in the folder (which must hold none): keeps the creator's
    /// first secret and writes file 0. Returns the file written.
    pub fn create(
        &self,
        module: &Module,
        scenario: SavedScenario,
        options: Vec<String>,
        end: Option<String>,
        players: [String; 2],
    ) -> Result<PathBuf, FolderError> {
        std::fs::create_dir_all(&self.dir).map_err(io("create", &self.dir))?;
        if self.turn_files().is_ok() {
            return Err(FolderError::HoldsGame(self.dir.clone()));
        }
        let (nonce, secret) = (random32()?, random32()?);
        let bytes = new_game(
            module,
            scenario,
            options,
            end,
            players.clone(),
            &nonce,
            &secret,
        );
        let file = parse("new", &bytes)?;
        let mut secrets = Secrets {
            game: file.game.clone(),
            side: players[0].clone(),
            ..Default::default()
        };
        secrets.secrets.insert(0, to_hex(&secret));
        self.keep(&file.game, &players[0], &secrets)?;
        let path = self.dir.join(file_name(&file.game, 0, &players[0]));
        write_new(&path, &bytes)?;
        Ok(path)
    }

    /// The sides whose secrets for `game` this folder keeps: the folder's player.
    pub fn own_sides(&self, game: &Game) -> Vec<String> {
        game.setup
            .players
            .iter()
            .filter(|side| self.secrets_path(&game.id, side).exists())
            .cloned()
            .collect()
    }

    /// The private secrets file of `side` in `game`.
    pub fn secrets_file(&self, game: &Game, side: &str) -> PathBuf {
        self.secrets_path(&game.id, side)
    }

    fn keep(&self, game: &str, side: &str, secrets: &Secrets) -> Result<(), FolderError> {
        let path = self.secrets_path(game, side);
        let bytes = serde_json::to_vec_pretty(secrets).map_err(|e| FolderError::Secrets {
            path: path.clone(),
            message: e.to_string(),
        })?;
        replace(&path, &bytes)
    }

    /// The keys of `side`'s next file: the secret to reveal, read from the secrets file,
    /// and a fresh secret (kept there before any file commits to it) and nonce.
    pub fn keys(&self, game: &Game, side: &str) -> Result<TurnKeys, FolderError> {
        let k = game.len() as u32;
        let path = self.secrets_path(&game.id, side);
        let mut secrets: Secrets = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| FolderError::Secrets {
                path: path.clone(),
                message: format!("damaged: {e}"),
            })?,
            Err(_) if k < 2 => Secrets {
                game: game.id.clone(),
                side: side.to_string(),
                ..Default::default()
            },
            Err(e) => {
                return Err(FolderError::Secrets {
                    path,
                    message: format!(
                        "cannot read your secrets ({e}); only the folder you played from has them"
                    ),
                });
            }
        };
        let reveal = match k.checked_sub(2) {
            Some(i) => Some(
                secrets
                    .secrets
                    .get(&i)
                    .and_then(|s| from_hex(s))
                    .ok_or_else(|| FolderError::Secrets {
                        path: path.clone(),
                        message: format!("no secret for file {i}"),
                    })?,
            ),
            None => None,
        };
        let (next, nonce) = (random32()?, random32()?);
        secrets.secrets.insert(k, to_hex(&next));
        self.keep(&game.id, side, &secrets)?;
        Ok(TurnKeys {
            reveal,
            next,
            nonce,
        })
    }

    /// Writes `side`'s next file of `game` (never over an existing file). Returns it.
    pub fn write_turn(
        &self,
        game: &Game,
        side: &str,
        bytes: &[u8],
    ) -> Result<PathBuf, FolderError> {
        let path = self.dir.join(file_name(&game.id, game.len() as u32, side));
        write_new(&path, bytes)?;
        Ok(path)
    }
}

/// Writes `bytes` to a new file `path` (never over an existing one), fully or not at all.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), FolderError> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, bytes).map_err(io("write", &tmp))?;
    // `hard_link` fails if `path` exists: nothing is overwritten.
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    linked.map_err(|source| FolderError::Exists {
        path: path.to_path_buf(),
        source,
    })
}

/// Replaces `path` atomically (the secrets file).
fn replace(path: &Path, bytes: &[u8]) -> Result<(), FolderError> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, bytes).map_err(io("write", &tmp))?;
    std::fs::rename(&tmp, path).map_err(io("write", path))
}
