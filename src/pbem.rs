//! `muster pbem`: a game played by exchanging files (see `muster_core::pbem` for the
//! protocol). Each player keeps a folder: the turn files of the game (their own and the
//! ones received) and a private file of their secrets, which is never sent.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use muster_core::Module;
use muster_core::game::{Action, History, apply, describe};
use muster_core::pbem::{self, Bytes32, Game};
use muster_scripting::ScriptRules;
use serde::{Deserialize, Serialize};

use crate::play::{Choice, PlayerKind, chosen_scenario, prompt};

/// A turn file's name: the game, its place in the game and its author, so files of
/// several games can share a downloads folder.
fn file_name(game: &str, index: u32, side: &str) -> String {
    format!("{game}-{index:03}-{side}.pbem.json")
}

/// The private file of a player's secrets, by the index of the file that committed to
/// each: never to be sent.
#[derive(Default, Serialize, Deserialize)]
struct Secrets {
    game: String,
    side: String,
    secrets: std::collections::BTreeMap<u32, String>,
}

fn secrets_path(dir: &Path, game: &str, side: &str) -> PathBuf {
    dir.join(format!(".{game}-{side}.secrets.json"))
}

fn random32() -> Result<Bytes32> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(|e| anyhow!("no randomness from the system: {e}"))?;
    Ok(b)
}

/// Writes `bytes` to a new file `path` (never over an existing one), fully or not at all.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    // `hard_link` fails if `path` exists: nothing is overwritten.
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    linked.with_context(|| {
        format!(
            "cannot write {} (a file of that name exists already?)",
            path.display()
        )
    })
}

/// Replaces `path` atomically (the secrets file).
fn replace(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// The turn files in `dir`, in game order, with their bytes.
fn turn_files(dir: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".pbem.json"))
        {
            let bytes =
                std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            // The index and game come from the file itself (checked again when read).
            let head: Option<(String, u32)> = serde_json::from_slice::<serde_json::Value>(&bytes)
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
        bail!("{} holds no turn file (*.pbem.json)", dir.display());
    }
    let games: std::collections::BTreeSet<&str> = found
        .iter()
        .filter_map(|(_, _, h)| h.as_ref().map(|h| h.0.as_str()))
        .collect();
    if games.len() > 1 {
        bail!(
            "{} holds turn files of several games ({}); keep one game a folder",
            dir.display(),
            games.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    // A damaged file sorts last and is reported when read.
    found.sort_by_key(|(p, _, h)| (h.as_ref().map_or(u32::MAX, |h| h.1), p.clone()));
    for pair in found.windows(2) {
        if let (Some(a), Some(b)) = (&pair[0].2, &pair[1].2)
            && a.1 == b.1
        {
            bail!(
                "{} and {} are both file {} of the game: a turn was sent twice; keep the one the game went on from",
                pair[0].0.display(),
                pair[1].0.display(),
                a.1
            );
        }
    }
    Ok(found.into_iter().map(|(p, b, _)| (p, b)).collect())
}

/// The game in `dir`, every file checked, on the module as loaded.
fn read_game(
    dir: &Path,
    module_dir: Option<&Path>,
    mods: &[PathBuf],
) -> Result<(Game, Module, ScriptRules, Vec<String>)> {
    let files = turn_files(dir)?;
    let (first_path, first) = &files[0];
    let setup = pbem::parse(&first_path.display().to_string(), first)?;
    let Some(s) = &setup.setup else {
        bail!(
            "{}: the first file of the game is not its file 0",
            first_path.display()
        );
    };
    let base = match s.module.stack.first() {
        Some(base) if !mods.is_empty() => base.id.clone(),
        _ => s.module.id.clone(),
    };
    let module_dir = module_dir.map_or_else(|| PathBuf::from("mods").join(base), Path::to_path_buf);
    let (module, mut rules) = crate::rules::load(&module_dir, mods)?;
    let mut game = Game::open(&module, &first_path.display().to_string(), first)?;
    let mut last_log = Vec::new();
    for (path, bytes) in &files[1..] {
        let before = game.history().map_or(0, |h| h.actions().len());
        game.add(&module, &mut rules, &path.display().to_string(), bytes)?;
        last_log = stretch_words(&module, &mut rules, &game, before);
    }
    rules.take_logged();
    rules.take_output();
    Ok((game, module, rules, last_log))
}

/// The last stretch in words: who did what.
fn stretch_words(
    module: &Module,
    _rules: &mut ScriptRules,
    game: &Game,
    from: usize,
) -> Vec<String> {
    let Some(h) = game.history() else {
        return Vec::new();
    };
    // The actions in words, named in the final position (a piece keeps its name).
    h.actions()[from.min(h.actions().len())..]
        .iter()
        .map(|a| describe::action_checked(module, h.state(), a))
        .collect()
}

/// `muster pbem new`.
pub struct New {
    pub module: PathBuf,
    pub mods: Vec<PathBuf>,
    pub scenario: Option<String>,
    pub options: Vec<String>,
    pub end: Option<String>,
    pub side: String,
    pub dir: PathBuf,
}

pub fn new(o: New) -> Result<ExitCode> {
    let (module, _rules) = crate::rules::load(&o.module, &o.mods)?;
    let me = crate::rules::side(&module, &o.side)?;
    if module.sides.len() != 2 {
        bail!(
            "play by file is for two players; module '{}' has {} sides",
            module.id,
            module.sides.len()
        );
    }
    let other = module.side_ids().find(|&s| s != me).expect("two sides");
    let (_, saved_scenario) = chosen_scenario(&module, o.scenario.as_deref())?;
    let option_ids = crate::rules::options(&module, &o.options)?;
    let options = option_ids
        .iter()
        .map(|&i| module.options[i.index()].id.clone())
        .collect();
    if let Some(end) = &o.end {
        // Checked now rather than when the game starts.
        let scenario = chosen_scenario(&module, o.scenario.as_deref())?.0;
        let mut probe = muster_core::game::GameState::new(
            &module,
            &scenario,
            Vec::new(),
            muster_core::game::Dice::seeded(0),
        )
        .map_err(|e| anyhow!("{e}"))?;
        muster_core::game::set_end(&module, &mut probe, end).map_err(|e| anyhow!("--end: {e}"))?;
    }
    std::fs::create_dir_all(&o.dir)
        .with_context(|| format!("cannot create {}", o.dir.display()))?;
    if turn_files(&o.dir).is_ok() {
        bail!(
            "{} holds a game already; start a new game in another folder",
            o.dir.display()
        );
    }
    let (nonce, secret) = (random32()?, random32()?);
    let players = [module.side(me).id.clone(), module.side(other).id.clone()];
    let bytes = pbem::new_game(
        &module,
        saved_scenario,
        options,
        o.end.clone(),
        players.clone(),
        &nonce,
        &secret,
    );
    let file = pbem::parse("new", &bytes)?;
    let mut secrets = Secrets {
        game: file.game.clone(),
        side: players[0].clone(),
        ..Default::default()
    };
    secrets.secrets.insert(0, pbem::to_hex(&secret));
    replace(
        &secrets_path(&o.dir, &file.game, &players[0]),
        &serde_json::to_vec_pretty(&secrets)?,
    )?;
    let path = o.dir.join(file_name(&file.game, 0, &players[0]));
    write_new(&path, &bytes)?;
    let out = &mut std::io::stdout().lock();
    writeln!(
        out,
        "new game {} of {}: you play {}",
        file.game,
        module.name,
        module.side(me).name
    )?;
    writeln!(
        out,
        "wrote {}: send it to the {} player",
        path.display(),
        module.side(other).name
    )?;
    writeln!(
        out,
        "(keep {} to yourself)",
        secrets_path(&o.dir, &file.game, &players[0]).display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `muster pbem play`.
pub struct Play {
    pub dir: PathBuf,
    pub side: String,
    pub player: PlayerKind,
    pub module: Option<PathBuf>,
    pub mods: Vec<PathBuf>,
    pub seed: u64,
    pub strong_budget: u32,
}

pub fn play(o: Play) -> Result<ExitCode> {
    let (game, module, mut rules, last) = read_game(&o.dir, o.module.as_deref(), &o.mods)?;
    let out = &mut std::io::stdout().lock();
    let me = crate::rules::side(&module, &o.side)?;
    if !game.players().contains(&me) {
        bail!("side '{}' plays no part in this game", o.side);
    }
    if !last.is_empty() {
        writeln!(out, "the last file's moves:")?;
        for line in &last {
            writeln!(out, "  {line}")?;
        }
    }
    if let Some(h) = game.history() {
        writeln!(out, "{}", describe::situation(&module, h.state()))?;
    }
    if game.over() {
        writeln!(out, "the game is over")?;
        return Ok(ExitCode::SUCCESS);
    }
    let author = game.next_author();
    let k = game.len() as u32;
    if author != me {
        writeln!(
            out,
            "waiting for the {} player's file {k}",
            module.side(author).name
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let side_id = module.side(me).id.clone();
    let spath = secrets_path(&o.dir, &game.id, &side_id);
    let mut secrets: Secrets = match std::fs::read(&spath) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is damaged", spath.display()))?,
        Err(_) if k < 2 => Secrets {
            game: game.id.clone(),
            side: side_id.clone(),
            ..Default::default()
        },
        Err(e) => bail!(
            "cannot read your secrets {}: {e}; only the folder you played from has them",
            spath.display()
        ),
    };
    let reveal = match k.checked_sub(2) {
        Some(i) => Some(
            secrets
                .secrets
                .get(&i)
                .and_then(|s| pbem::from_hex(s))
                .ok_or_else(|| anyhow!("{} has no secret for file {i}", spath.display()))?,
        ),
        None => None,
    };
    let (next, nonce) = (random32()?, random32()?);
    // The new secret is kept before the file that commits to it is written.
    secrets.secrets.insert(k, pbem::to_hex(&next));
    replace(&spath, &serde_json::to_vec_pretty(&secrets)?)?;
    let mut computer = match o.player {
        PlayerKind::Human => None,
        PlayerKind::Random => Some(muster_ai::player(muster_ai::Level::Random, o.seed)),
        PlayerKind::Greedy => Some(muster_ai::player(muster_ai::Level::Greedy, o.seed)),
        PlayerKind::Ai => Some(muster_ai::player(muster_ai::Level::Ai, o.seed)),
        PlayerKind::Strong => Some(muster_ai::player_with(
            muster_ai::Level::Strong {
                budget: o.strong_budget,
            },
            o.seed,
            1,
            Some(crate::play::search_rules()),
        )),
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock().lines();
    let mut quit = false;
    let bytes = {
        let chooser = |m: &Module,
                       r: &mut dyn muster_core::game::Rules,
                       h: &History|
         -> std::result::Result<Action, String> {
            let state = h.state();
            match computer.as_mut() {
                Some(c) => muster_ai::decide(c.as_mut(), m, r, state, |r, a| apply(m, r, state, a))
                    .map(|(a, _)| a)
                    .map_err(|e| e.to_string()),
                None => {
                    let legal =
                        muster_core::game::legal_actions(m, r, state).map_err(|e| e.to_string())?;
                    let side = muster_core::game::decider(m, state);
                    let mut stdout = std::io::stdout().lock();
                    match prompt(&mut stdout, m, state, side, &legal, false, &mut input)
                        .map_err(|e| e.to_string())?
                    {
                        Choice::Act(a) => Ok(a),
                        Choice::Undo | Choice::Quit => {
                            quit = true;
                            Err(
                                "you quit: no file was written; play again to take your turn"
                                    .into(),
                            )
                        }
                    }
                }
            }
        };
        game.write_next(&module, &mut rules, reveal.as_ref(), &next, &nonce, chooser)
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) if quit => {
            writeln!(out, "{e}")?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(e.into()),
    };
    let file = pbem::parse("written", &bytes)?;
    let path = o.dir.join(file_name(&game.id, k, &side_id));
    write_new(&path, &bytes)?;
    let _ = file;
    // The game with the new file, read back as the opponent will read it.
    let before = game.history().map_or(0, |h| h.actions().len());
    let (after, _, mut after_rules, _) = read_game(&o.dir, o.module.as_deref(), &o.mods)?;
    for line in stretch_words(&module, &mut after_rules, &after, before) {
        writeln!(out, "  {line}")?;
    }
    if let Some(h) = after.history() {
        writeln!(out, "{}", describe::situation(&module, h.state()))?;
    }
    let other = game
        .players()
        .into_iter()
        .find(|&s| s != me)
        .expect("two players");
    if after.over() {
        writeln!(
            out,
            "wrote {}: the game is over; send it to the {} player",
            path.display(),
            module.side(other).name
        )?;
    } else {
        writeln!(
            out,
            "wrote {}: send it to the {} player",
            path.display(),
            module.side(other).name
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `muster pbem verify`.
pub fn verify(dir: &Path, module_dir: Option<&Path>, mods: &[PathBuf]) -> Result<ExitCode> {
    let (game, module, ..) = read_game(dir, module_dir, mods)?;
    let out = &mut std::io::stdout().lock();
    let actions = game.history().map_or(0, |h| h.actions().len());
    writeln!(
        out,
        "{} files of game {} verified: {actions} actions, each legal and taken by the player whose decision it was; every stretch's dice from the committed secrets",
        game.len(),
        game.id
    )?;
    match game.history() {
        Some(h) => writeln!(out, "{}", describe::situation(&module, h.state()))?,
        None => writeln!(out, "the game starts with file 2")?,
    }
    if !game.over() {
        writeln!(
            out,
            "next: the {} player writes file {}",
            module.side(game.next_author()).name,
            game.len()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `muster pbem export`: the game as a save, for `muster replay` and the app.
pub fn export(
    dir: &Path,
    module_dir: Option<&Path>,
    mods: &[PathBuf],
    to: &Path,
) -> Result<ExitCode> {
    let (game, module, ..) = read_game(dir, module_dir, mods)?;
    let save = game
        .to_save(&module)
        .ok_or_else(|| anyhow!("the game starts with file 2: nothing to save yet"))?;
    if to.exists() {
        bail!(
            "{} exists already; give a new file (nothing was written)",
            to.display()
        );
    }
    save.write(to)?;
    writeln!(
        std::io::stdout().lock(),
        "saved {} actions to {}",
        save.actions.len(),
        to.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
