//! A study's parts: `muster balance --shard I/N --part FILE` plays the I-th of N disjoint
//! runs of games and writes them with what makes the study itself; `muster balance merge`
//! checks that the parts are one study, whole and each once, and reports them as one run.
//!
//! Game `i` of a study is seeded `seed + i` whoever plays it, and a game's result depends
//! on its seed alone (not on the thread or machine that plays it), so the parts' games
//! are exactly the one-machine study's.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use muster_ai::Level;
use muster_ai::balance::GameResult;
use serde::{Deserialize, Serialize};

/// What a part file says it is; a file without it is not a part.
const FORMAT: &str = "muster balance part 1";

/// Everything that decides a study's games and its report; parts merge only when their
/// studies are equal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// The module stack, lowest first: id, version and content hash (16 hex digits).
    pub stack: Vec<String>,
    pub scenario: String,
    pub scenario_name: String,
    /// The optional rules as given on the command line (the report prints them).
    pub options: Vec<String>,
    /// The optional rules' ids they resolve to (what decides the games).
    pub option_ids: Vec<String>,
    /// `seat=level` per seat, as the report prints them.
    pub players: Vec<String>,
    /// Each seat's level with its parameters (a strong player's budget).
    pub levels: Vec<Level>,
    pub seed: u64,
    pub games: usize,
    pub end: Option<String>,
    pub max_actions: usize,
    /// The module's side ids in order (the report's rows).
    pub sides: Vec<String>,
}

/// Which of a study's N parts: `index` counts from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub of: usize,
}

impl Shard {
    /// Parses `I/N` (1 ≤ I ≤ N); a one-line reason otherwise.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| format!("'{text}' is not a shard: write I/N, e.g. 1/4"))?;
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{text}' is not a shard: write I/N, e.g. 1/4"))
        };
        let (index, of) = (number(i)?, number(n)?);
        if of == 0 {
            return Err(format!("'{text}': a study has at least one part (N ≥ 1)"));
        }
        if index == 0 || index > of {
            return Err(format!(
                "'{text}': the part's number counts from 1 to {of} (a scheduler's 0-based \
                 index needs +1)"
            ));
        }
        Ok(Shard { index, of })
    }

    /// The games of the study this part plays: game numbers `start..end` (seeds
    /// `seed + start ..`), contiguous and in order, so the parts in order are the study.
    pub fn games(self, games: usize) -> (usize, usize) {
        (
            (self.index - 1) * games / self.of,
            self.index * games / self.of,
        )
    }
}

/// One part as written to its file.
#[derive(Debug, Serialize, Deserialize)]
pub struct Part {
    pub format: String,
    pub study: Study,
    pub shard: Shard,
    pub results: Vec<GameResult>,
}

impl Part {
    pub fn new(study: Study, shard: Shard, results: Vec<GameResult>) -> Part {
        Part {
            format: FORMAT.to_string(),
            study,
            shard,
            results,
        }
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))
    }

    fn read(path: &Path) -> Result<Part> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let part: Part = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}: not a part of a balance study ({e}); parts are written by `muster balance \
                 ... --shard I/N --part FILE`",
                path.display()
            )
        })?;
        if part.format != FORMAT {
            bail!(
                "{}: a part in the format '{}', this muster reads '{FORMAT}'",
                path.display(),
                part.format
            );
        }
        Ok(part)
    }
}

/// Reads the parts and puts their games together as the one-machine study played them;
/// refuses (one line, naming the files) parts of different studies, a part missing or
/// given twice, or a part whose games are not its share.
pub fn merge(paths: &[PathBuf]) -> Result<(Study, Vec<GameResult>)> {
    let mut parts: Vec<(PathBuf, Part)> = Vec::new();
    for path in paths {
        parts.push((path.clone(), Part::read(path)?));
    }
    let Some((first_path, first)) = parts.first() else {
        bail!("merge needs the parts' files");
    };
    let study = first.study.clone();
    let of = first.shard.of;
    for (path, part) in &parts[1..] {
        if let Some(field) = difference(&study, &part.study) {
            bail!(
                "{} and {} are parts of different studies: their {field} differ",
                first_path.display(),
                path.display()
            );
        }
        if part.shard.of != of {
            bail!(
                "{} is a part of {of}, {} a part of {}: one study is cut one way",
                first_path.display(),
                path.display(),
                part.shard.of
            );
        }
    }
    let mut by_index: Vec<Option<(&PathBuf, &Part)>> = vec![None; of];
    for (path, part) in &parts {
        let slot = &mut by_index[part.shard.index - 1];
        if let Some((earlier, _)) = slot {
            bail!(
                "part {}/{of} is given twice: {} and {}",
                part.shard.index,
                earlier.display(),
                path.display()
            );
        }
        *slot = Some((path, part));
    }
    let missing: Vec<String> = (1..=of)
        .filter(|i| by_index[i - 1].is_none())
        .map(|i| format!("{i}/{of}"))
        .collect();
    if !missing.is_empty() {
        let (s, are) = if missing.len() == 1 {
            ("", "is")
        } else {
            ("s", "are")
        };
        bail!(
            "part{s} {} {are} missing from the study (given {} of {of})",
            missing.join(", "),
            parts.len()
        );
    }
    let mut results = Vec::with_capacity(study.games);
    for (path, part) in by_index.into_iter().flatten() {
        let (start, end) = part.shard.games(study.games);
        let seeds: Vec<u64> = part.results.iter().map(|r| r.seed).collect();
        let expected: Vec<u64> = (start..end)
            .map(|i| study.seed.wrapping_add(i as u64))
            .collect();
        if seeds != expected {
            bail!(
                "{}: part {}/{of} holds other games than its share (games {}-{} of {})",
                path.display(),
                part.shard.index,
                start + 1,
                end,
                study.games
            );
        }
        results.extend(part.results.iter().cloned());
    }
    Ok((study, results))
}

/// The first field in which two studies differ, in words.
fn difference(a: &Study, b: &Study) -> Option<&'static str> {
    let fields: [(&'static str, bool); 11] = [
        ("module stacks", a.stack != b.stack),
        ("scenarios", a.scenario != b.scenario),
        ("optional rules", a.option_ids != b.option_ids),
        ("players", a.players != b.players || a.levels != b.levels),
        ("seeds", a.seed != b.seed),
        ("numbers of games", a.games != b.games),
        ("ending turns", a.end != b.end),
        ("action limits", a.max_actions != b.max_actions),
        ("sides", a.sides != b.sides),
        ("scenario names", a.scenario_name != b.scenario_name),
        ("options as written", a.options != b.options),
    ];
    fields
        .into_iter()
        .find(|(_, differs)| *differs)
        .map(|(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_parsed_from_1_to_n_and_refused_otherwise() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, of: 4 }));
        assert!(
            Shard::parse("0/4")
                .unwrap_err()
                .contains("counts from 1 to 4")
        );
        assert!(
            Shard::parse("5/4")
                .unwrap_err()
                .contains("counts from 1 to 4")
        );
        assert!(
            Shard::parse("1/0")
                .unwrap_err()
                .contains("at least one part")
        );
        assert!(Shard::parse("1-4").unwrap_err().contains("write I/N"));
    }

    #[test]
    fn the_parts_games_cover_the_study_once_in_order() {
        for games in [1, 7, 10, 200] {
            for of in 1..=games.min(9) {
                let mut next = 0;
                for index in 1..=of {
                    let (start, end) = Shard { index, of }.games(games);
                    assert_eq!(start, next, "{index}/{of} of {games}");
                    assert!(end > start, "{index}/{of} of {games} is empty");
                    next = end;
                }
                assert_eq!(next, games);
            }
        }
    }
}
