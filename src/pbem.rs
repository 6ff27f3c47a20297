//! `muster pbem`: a game played by exchanging files (see `muster_core::pbem` for the
//! protocol). Each player keeps a folder: the turn files of the game (their own and the
//! ones received) and a private file of their secrets, which is never sent.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use muster_core::Module;
use muster_core::game::{Action, History, apply, describe};
use muster_core::pbem::Game;
use muster_core::pbem::folder::Folder;
use muster_scripting::ScriptRules;

use crate::play::{Choice, chosen_scenario, prompt};
use crate::players::{PlayerKind, StrongArgs};

// `muster pbem`'s subcommands.
#[derive(clap::Subcommand)]
pub enum PbemSubcommand {
    /// Start a game: writes file 0 into DIR, to send to the other player; with --host,
    /// a game with a host, who keeps the whole game and sends each seat its own files.
    New(NewArgs),
    /// Read the files in DIR (your own and those received), check them, and if the next
    /// file is yours, play your stretch and write it.
    Play(PlayArgs),
    /// Check every file of the game in DIR from the start; name the first bad file or
    /// action.
    Verify(VerifyArgs),
    /// Write the game in DIR (a player's folder, or a host's) as a save (for `muster
    /// replay` and the app).
    Export(ExportArgs),
    /// As the host of a game: take the seats' answers from their folders, apply them,
    /// and write each seat that must decide its next file.
    Host(HostArgs),
    /// As the host: publish the secret and the whole record into every seat's folder
    /// now (the game goes on no further); done by itself at the game's end.
    Reveal(HostArgs),
}

// `muster pbem host` and `reveal`.
#[derive(clap::Args)]
pub struct HostArgs {
    /// The host's folder (`muster pbem new --host`).
    dir: PathBuf,
}

pub fn run(subcommand: PbemSubcommand) -> Result<ExitCode> {
    match subcommand {
        PbemSubcommand::New(a) => new(a),
        PbemSubcommand::Play(a) => match &a.seat {
            Some(seat) => crate::pbem_host::play(
                &a.dir,
                seat,
                a.player,
                a.seed,
                crate::pbem_host::Entering {
                    entry: a.entry.as_deref(),
                    choice: a.choice,
                },
            ),
            None => play(a),
        },
        PbemSubcommand::Verify(a) => match &a.seat {
            Some(seat) => crate::pbem_host::verify(&a.dir, seat, a.module.as_deref(), &a.mods),
            None => verify(&a.dir, a.module.as_deref(), &a.mods),
        },
        PbemSubcommand::Export(a) if crate::pbem_host::is_host_folder(&a.dir) => {
            crate::pbem_host::export(&a.dir, &a.save)
        }
        PbemSubcommand::Export(a) => export(&a.dir, a.module.as_deref(), &a.mods, &a.save),
        PbemSubcommand::Host(a) => crate::pbem_host::host(&a.dir),
        PbemSubcommand::Reveal(a) => crate::pbem_host::reveal(&a.dir),
    }
}

/// The game in `dir`, every file checked, on the module as loaded; with the last
/// file's stretch in words (see [`Game::report`]).
fn read_game(
    dir: &Path,
    module_dir: Option<&Path>,
    mods: &[PathBuf],
) -> Result<(Game, Module, ScriptRules, Vec<String>)> {
    let folder = Folder::new(dir);
    let setup = folder.setup()?;
    let base = match setup.module.stack.first() {
        Some(base) if !mods.is_empty() => base.id.clone(),
        _ => setup.module.id.clone(),
    };
    let module_dir = find_module(dir, &base, module_dir)?;
    let (module, mut rules) = crate::rules::load(&module_dir, mods)?;
    let read = folder.read(&module, &mut rules)?;
    remember_module(dir, &module_dir);
    let last_log = read.game.report(&module, &mut rules, read.before_last)?;
    rules.take_logged();
    rules.take_output();
    Ok((read.game, module, rules, last_log))
}

/// The file in a player's folder that remembers where its game's module was found
/// (the folder is the player's own; the file is never sent).
const MODULE_NOTE: &str = ".muster-module";

/// The folder of module `id` for the game in `dir`: `--module` if given; else the
/// folder the game was last played with (remembered in `dir`); else `mods/<id>` in
/// the game folder or one above it, in the working directory, or above the `muster`
/// program (a build in the repository's `target/`). So `muster pbem play DIR` works
/// from anywhere once the module has been found once.
pub(crate) fn find_module(dir: &Path, id: &str, given: Option<&Path>) -> Result<PathBuf> {
    if let Some(given) = given {
        return Ok(given.to_path_buf());
    }
    let mut tried: Vec<PathBuf> = Vec::new();
    if let Ok(text) = std::fs::read_to_string(dir.join(MODULE_NOTE)) {
        let remembered = PathBuf::from(text.trim());
        if remembered.join("module.xml").is_file() {
            return Ok(remembered);
        }
        tried.push(remembered);
    }
    let wanted = Path::new("mods").join(id);
    let mut places: Vec<PathBuf> = Vec::new();
    if let Ok(abs) = std::path::absolute(dir) {
        places.extend(abs.ancestors().map(Path::to_path_buf));
    }
    places.push(PathBuf::new());
    if let Ok(exe) = std::env::current_exe() {
        places.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    for place in places {
        let candidate = place.join(&wanted);
        if candidate.join("module.xml").is_file() {
            return Ok(candidate);
        }
        if !tried.contains(&candidate) {
            tried.push(candidate);
        }
    }
    let shown: Vec<String> = tried
        .iter()
        .take(4)
        .map(|p| p.display().to_string())
        .collect();
    bail!(
        "no folder of module '{id}' found for the game in {} (looked in {}{}); give it with --module DIR",
        dir.display(),
        shown.join(", "),
        if tried.len() > 4 { ", ..." } else { "" }
    )
}

/// Remembers in the player's folder where the game's module was found, so the next
/// `pbem play` there needs no `--module`. A folder that cannot be written keeps
/// nothing (the module is then looked for again).
fn remember_module(dir: &Path, module_dir: &Path) {
    let Ok(abs) = std::path::absolute(module_dir) else {
        return;
    };
    let note = dir.join(MODULE_NOTE);
    let text = abs.display().to_string();
    if std::fs::read_to_string(&note).ok().as_deref() != Some(text.as_str()) {
        let _ = std::fs::write(note, text);
    }
}

// `muster pbem new`.
#[derive(clap::Args)]
pub struct NewArgs {
    /// The module folder, e.g. mods/ahd.
    module: PathBuf,
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    #[arg(long, value_name = "ID|FILE")]
    scenario: Option<String>,
    #[arg(long, value_delimiter = ',')]
    options: Vec<String>,
    #[arg(long, value_name = "MM/YYYY")]
    end: Option<String>,
    /// The side you play (a two-player game).
    #[arg(long, required_unless_present = "host", conflicts_with = "host")]
    side: Option<String>,
    /// Your folder for this game (its files and your secrets).
    #[arg(long, required_unless_present = "host", conflicts_with = "host")]
    dir: Option<PathBuf>,
    /// A game with a host (needed when seats do not see everything): the host's
    /// folder, where it keeps the whole game.
    #[arg(long, value_name = "DIR", requires = "seat")]
    host: Option<PathBuf>,
    /// With --host: a seat's folder, as SEAT=DIR; one for every seat but the hosted.
    #[arg(long, value_name = "SEAT=DIR")]
    seat: Vec<String>,
    /// With --host: a seat of no side (a referee, an umpire) the host holds itself,
    /// taking its decisions with the rules' computer referee; it has no folder.
    #[arg(long, value_name = "SEAT", requires = "host")]
    hosted: Vec<String>,
}

fn new(o: NewArgs) -> Result<ExitCode> {
    let (module, rules) = crate::rules::load(&o.module, &o.mods)?;
    let hidden = !module.all_open()
        || muster_core::game::Rules::answers(&rules, muster_core::game::sight::SEES);
    let (Some(side), Some(dir)) = (&o.side, &o.dir) else {
        let host = o
            .host
            .as_deref()
            .expect("clap: --side and --dir, or --host");
        let (_, scenario) = chosen_scenario(&module, o.scenario.as_deref())?;
        let option_ids = crate::rules::options(&module, &o.options)?;
        check_end(&module, o.scenario.as_deref(), o.end.as_deref())?;
        let chosen = crate::pbem_host::SavedModuleScenario {
            scenario,
            options: option_ids
                .iter()
                .map(|&i| module.options[i.index()].id.clone())
                .collect(),
            end: o.end.clone(),
        };
        return crate::pbem_host::new(&o.module, &o.mods, chosen, host, &o.seat, &o.hosted);
    };
    if hidden {
        bail!(
            "module '{}' hides information from its seats: two players exchanging files would each hold the whole game; play it with a host: muster pbem new {} --host HOSTDIR --seat SEAT=DIR ...",
            module.id,
            o.module.display()
        );
    }
    let me = crate::rules::side(&module, side)?;
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
    check_end(&module, o.scenario.as_deref(), o.end.as_deref())?;
    let players = [module.side(me).id.clone(), module.side(other).id.clone()];
    let folder = Folder::new(dir);
    let path = folder.create(
        &module,
        saved_scenario,
        options,
        o.end.clone(),
        players.clone(),
    )?;
    remember_module(dir, &o.module);
    let game = Game::open(
        &module,
        &path.display().to_string(),
        &std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?,
    )?;
    let out = &mut std::io::stdout().lock();
    writeln!(
        out,
        "new game {} of {}: you play {}",
        game.id,
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
        folder.secrets_file(&game, &players[0]).display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Checks `--end` now rather than when the game starts.
fn check_end(module: &Module, scenario: Option<&str>, end: Option<&str>) -> Result<()> {
    if let Some(end) = end {
        let scenario = chosen_scenario(module, scenario)?.0;
        let mut probe = muster_core::game::GameState::new(
            module,
            &scenario,
            Vec::new(),
            muster_core::game::Dice::seeded(0),
        )
        .map_err(|e| anyhow!("{e}"))?;
        muster_core::game::set_end(module, &mut probe, end).map_err(|e| anyhow!("--end: {e}"))?;
    }
    Ok(())
}

// `muster pbem play`.
#[derive(clap::Args)]
pub struct PlayArgs {
    dir: PathBuf,
    /// The side you play (a two-player game).
    #[arg(long, required_unless_present = "seat", conflicts_with = "seat")]
    side: Option<String>,
    /// The seat you play, in a game with a host: answers the host's latest file in DIR
    /// (your seat's folder); --player random or human.
    #[arg(long)]
    seat: Option<String>,
    /// Who decides for you: human (at the prompt) or a computer player.
    #[arg(long, value_name = "KIND", default_value = "human")]
    player: PlayerKind,
    /// The module folder (default: mods/<the game's module id>).
    #[arg(long)]
    module: Option<PathBuf>,
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    /// Seed of a random computer player's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// With --seat, a referee's entry from a JSON file of field ids and values in words,
    /// e.g. {"losses": {"I Corps (McDowell) / 1st Division": 2}, "holder": "Union"}
    /// (the fields and names are those of the form in the host's file; docs/pbem.md).
    #[arg(long, value_name = "FILE", requires = "seat")]
    entry: Option<PathBuf>,
    /// With --seat, the choice to take (its number in the file's list, 1 first); with
    /// --entry, needed only when several of the choices take an entry.
    #[arg(long, value_name = "N", requires = "seat")]
    choice: Option<usize>,
    /// Ask for a battle's target even when only one enemy may be named.
    #[arg(long)]
    ask_lone_target: bool,
    #[command(flatten)]
    strong: StrongArgs,
}

// `muster pbem verify`.
#[derive(clap::Args)]
pub struct VerifyArgs {
    dir: PathBuf,
    /// In a game with a host: your seat; checks every file your folder received against
    /// the record the host published.
    #[arg(long)]
    seat: Option<String>,
    #[arg(long)]
    module: Option<PathBuf>,
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
}

// `muster pbem export`.
#[derive(clap::Args)]
pub struct ExportArgs {
    dir: PathBuf,
    #[arg(long)]
    module: Option<PathBuf>,
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    /// The save to write (a new file).
    #[arg(long, value_name = "FILE")]
    save: PathBuf,
}

fn play(o: PlayArgs) -> Result<ExitCode> {
    let (game, module, mut rules, last) = read_game(&o.dir, o.module.as_deref(), &o.mods)?;
    let out = &mut std::io::stdout().lock();
    let me = crate::rules::side(&module, o.side.as_deref().unwrap_or_default())?;
    if !game.players().contains(&me) {
        bail!(
            "side '{}' plays no part in this game",
            o.side.as_deref().unwrap_or_default()
        );
    }
    if !last.is_empty() {
        writeln!(out, "the last file's moves, with every roll:")?;
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
    let folder = Folder::new(&o.dir);
    // The new secret is kept before the file that commits to it is written.
    let keys = folder.keys(&game, &side_id)?;
    let mut computer = o.player.computer(o.strong, o.seed, 1);
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
                    let mut stdout = std::io::stdout().lock();
                    match prompt(
                        &mut stdout,
                        m,
                        state,
                        r,
                        &legal,
                        false,
                        !o.ask_lone_target,
                        &mut input,
                    )
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
        game.write_next(
            &module,
            &mut rules,
            keys.reveal.as_ref(),
            &keys.next,
            &keys.nonce,
            chooser,
        )
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) if quit => {
            writeln!(out, "{e}")?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(e.into()),
    };
    let path = folder.write_turn(&game, &side_id, &bytes)?;
    // The game with the new file, read back as the opponent will read it.
    let (after, _, _, mine) = read_game(&o.dir, o.module.as_deref(), &o.mods)?;
    for line in mine {
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
fn verify(dir: &Path, module_dir: Option<&Path>, mods: &[PathBuf]) -> Result<ExitCode> {
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
fn export(dir: &Path, module_dir: Option<&Path>, mods: &[PathBuf], to: &Path) -> Result<ExitCode> {
    let (game, module, ..) = read_game(dir, module_dir, mods)?;
    let save = game
        .to_save(&module)
        .ok_or_else(|| anyhow!("the game starts with file 2: nothing to save yet"))?;
    write_export(&save, to)
}

/// Writes an exported game as a save at `to`, never over a file that exists.
pub(crate) fn write_export(save: &muster_core::game::Save, to: &Path) -> Result<ExitCode> {
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
