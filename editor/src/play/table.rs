//! Where the app keeps games and how a save keeps its table: the games folder (named on
//! screen when a game is saved), and beside each save a small file saying who plays
//! which side and whether "AI auto" was on, so loading a game brings the computer
//! players back as they were instead of handing every side to a person.

use std::path::{Path, PathBuf};

use muster_ai::Level;

use super::PlayerKind;

/// The folder games are saved in unless a full path is typed: `MUSTER_GAMES` if set,
/// else the user's data folder (`$XDG_DATA_HOME/muster/games`,
/// `~/.local/share/muster/games`, `%APPDATA%\muster\games`), else `games` here.
pub fn games_dir() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = env("MUSTER_GAMES") {
        return dir;
    }
    if let Some(data) = env("XDG_DATA_HOME") {
        return data.join("muster").join("games");
    }
    if let Some(app) = env("APPDATA") {
        return app.join("muster").join("games");
    }
    if let Some(home) = env("HOME") {
        return home
            .join(".local")
            .join("share")
            .join("muster")
            .join("games");
    }
    PathBuf::from("games")
}

/// `typed` as the file it names: a bare name or relative path is in the games folder.
pub fn resolve(games: &Path, typed: &Path) -> PathBuf {
    if typed.is_absolute() {
        typed.to_path_buf()
    } else {
        games.join(typed)
    }
}

/// The file beside a save that keeps its table (`game.json` -> `game.table.json`).
pub fn table_path(save: &Path) -> PathBuf {
    save.with_extension("table.json")
}

/// Who plays each side (in the module's order) and whether the computers play on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Table {
    /// Each side's player as the new-game dialog names it ("Human", "Strong", ...).
    pub players: Vec<String>,
    pub auto: bool,
}

impl Table {
    pub fn new(players: &[PlayerKind], auto: bool) -> Self {
        Self {
            players: players.iter().map(|k| k.label().to_string()).collect(),
            auto,
        }
    }

    /// The players again; `None` if a name is not one the app offers or the count is
    /// not `sides` (the save is then loaded with the players at the table now).
    /// "Strong" comes back at the default strength.
    pub fn players(&self, sides: usize) -> Option<Vec<PlayerKind>> {
        if self.players.len() != sides {
            return None;
        }
        self.players
            .iter()
            .map(|name| match name.as_str() {
                "Strong" => Some(PlayerKind::Computer(Level::strong())),
                "By file" => Some(PlayerKind::ByFile),
                other => PlayerKind::ALL.into_iter().find(|k| k.label() == other),
            })
            .collect()
    }

    /// Writes the table beside `save`.
    pub fn write(&self, save: &Path) -> Result<(), String> {
        let path = table_path(save);
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// The table beside `save`, if there is one that reads; a damaged one is ignored
    /// (the save itself is what matters).
    pub fn read(save: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(table_path(save)).ok()?;
        match serde_json::from_str(&text) {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::warn!("{}: {e}", table_path(save).display());
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_name_goes_to_the_games_folder_a_full_path_stays() {
        let games = Path::new("/g");
        assert_eq!(
            resolve(games, Path::new("a.json")),
            PathBuf::from("/g/a.json")
        );
        assert_eq!(
            resolve(games, Path::new("/tmp/a.json")),
            PathBuf::from("/tmp/a.json")
        );
    }

    #[test]
    fn the_table_comes_back_as_it_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let save = dir.path().join("game.json");
        let players = [PlayerKind::Human, PlayerKind::Computer(Level::strong())];
        Table::new(&players, true).write(&save).unwrap();
        assert!(dir.path().join("game.table.json").is_file());
        let back = Table::read(&save).expect("the table reads");
        assert!(back.auto);
        assert_eq!(back.players(2), Some(players.to_vec()));
        assert_eq!(back.players(3), None, "another module's count of sides");
    }
}
