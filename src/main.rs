//! `muster`: the command line of the engine. Only parsing and printing live here; the
//! work is done by the library crates.

/// mimalloc: a search allocates and frees millions of small vectors and Luau values;
/// with glibc's allocator malloc and free were a tenth of a strong player's time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod api;
mod balance;
mod check;
mod modtest;
mod moves;
mod new_mod;
mod odds;
mod pbem;
mod play;
mod rules;
mod smoke;
mod terminal;
mod view;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "muster",
    version,
    about = "Engine for area-movement strategy board games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a module and print a summary (boxes, lines, ports, army maxima).
    Check {
        /// The module folder (holding module.xml), e.g. mods/ahd.
        module: PathBuf,
        /// A mod to lay on the module (a folder whose <extends> names the module or an
        /// earlier mod); repeat for several, lowest first.
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
        /// Also check these scenarios: an id of the module or a scenario .xml file.
        #[arg(long = "scenario", value_name = "ID|FILE")]
        scenarios: Vec<String>,
        /// Print one JSON object on stdout instead of text.
        #[arg(long)]
        json: bool,
        /// Keep watching the module's files and check again on every save, rules
        /// included.
        #[arg(long, conflicts_with_all = ["json", "scenarios"])]
        watch: bool,
        /// Also play N short random games (every scenario in turn, half of them with
        /// every optional rule) and report each rule error they hit, with a command
        /// that plays the same game.
        #[arg(long, value_name = "N", conflicts_with = "watch")]
        smoke: Option<u32>,
    },
    /// Play a game at the terminal: each side a human at the prompt or a computer player
    /// (random, greedy, or ai, the default computer player).
    Play {
        /// The module folder, e.g. mods/ahd.
        module: PathBuf,
        /// A mod to lay on the module (a folder whose <extends> names the module or an
        /// earlier mod); repeat for several, lowest first.
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
        /// A scenario id of the module or a scenario .xml file (default: the first).
        #[arg(long, value_name = "ID|FILE")]
        scenario: Option<String>,
        /// Who plays the side called union (shorthand for --player union=KIND).
        #[arg(long, value_name = "KIND")]
        union: Option<play::PlayerKind>,
        /// Who plays the side called confederate (shorthand for --player confederate=KIND).
        #[arg(long, value_name = "KIND")]
        confederate: Option<play::PlayerKind>,
        /// Who plays a side, for any module: SIDE=human|random|greedy|ai|strong. Unnamed sides are
        /// human.
        #[arg(long, value_name = "SIDE=KIND", value_parser = parse_player)]
        player: Vec<(String, play::PlayerKind)>,
        /// Seed of the game's dice (and of the random players); default: from the clock.
        #[arg(long)]
        seed: Option<u64>,
        /// Optional rules to use, by id or rule number, separated by commas.
        #[arg(long, value_delimiter = ',')]
        options: Vec<String>,
        /// End the game after this turn instead of the scenario's last, e.g. 03/1863
        /// (AHD 11.3's March ending dates).
        #[arg(long, value_name = "MM/YYYY")]
        end: Option<String>,
        /// Write the game to this file when it ends (or when you quit).
        #[arg(long, value_name = "FILE")]
        save: Option<PathBuf>,
        /// Print only the actions and the result, not every die roll.
        #[arg(long)]
        quiet: bool,
        /// With --quiet, still print the lines the rules log (a house rule acting).
        #[arg(long)]
        rules_log: bool,
        /// Go on with a saved game (a game a rule failure stopped, after the fix): its
        /// scenario, options, seed and actions, on the module as it is now.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["scenario", "seed", "options", "end"])]
        resume: Option<PathBuf>,
        /// Give up after this many actions.
        #[arg(long, default_value_t = 1_000_000)]
        max_actions: usize,
        #[command(flatten)]
        strong: StrongArgs,
        /// Threads a strong player searches on (1-64); its choices do not depend on it.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_search_threads)]
        search_threads: usize,
    },
    /// Replay a save and check it gives the identical final state.
    Replay {
        file: PathBuf,
        /// The module folder (default: mods/<module id of the save>, or with --mod
        /// mods/<the id of the save's base module>).
        #[arg(long)]
        module: Option<PathBuf>,
        /// A mod to lay on the module (a folder whose <extends> names the module or an
        /// earlier mod); repeat for several, lowest first.
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
        #[arg(long)]
        quiet: bool,
        /// Replay it on the module as it is now, even if it changed since the game was
        /// played, until an action no longer applies; report that action (exit 1 unless
        /// the game is the saved one).
        #[arg(long)]
        as_far_as_it_goes: bool,
        /// With --as-far-as-it-goes: save the game up to there to this new file, to go on
        /// with `muster play --resume`.
        #[arg(long, value_name = "FILE", requires = "as_far_as_it_goes")]
        save: Option<PathBuf>,
    },
    /// What one seat sees of a saved game: with hidden information, only what that
    /// player may know.
    View(view::ViewArgs),
    /// Play by file (e-mail): each player's turn is a small file for the other, with
    /// dice neither can choose or roll again (`docs/pbem.md`).
    #[command(subcommand)]
    Pbem(PbemCommand),
    /// The legal destinations of each unit in a box for one march, at the start of a
    /// side's Movement segment.
    Moves {
        module: PathBuf,
        /// A mod to lay on the module (a folder whose <extends> names the module or an
        /// earlier mod); repeat for several, lowest first.
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
        #[arg(long, value_name = "ID|FILE")]
        scenario: String,
        #[arg(long)]
        side: String,
        #[arg(long = "box", value_name = "NAME")]
        at: String,
        #[arg(long)]
        json: bool,
        /// Also list the paths the rules refused and which handler said no.
        #[arg(long)]
        trace: bool,
    },
    /// Battle odds: play one battle many times (both sides targeting as the computer
    /// players do) and report wins, retreats, expected survivors and rounds.
    Odds(odds::Args),
    /// Play many games between computer players in parallel and report each side's win
    /// rate with a 95% confidence interval, the victory conditions reached and the
    /// game lengths: to see whether a house rule changes the balance.
    Balance {
        /// The module folder, e.g. mods/ahd.
        module: PathBuf,
        /// A mod to lay on the module (a folder whose <extends> names the module or an
        /// earlier mod); repeat for several, lowest first.
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
        /// How many games (game i uses seed SEED+i).
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// A scenario id of the module or a scenario .xml file (default: the first).
        #[arg(long, value_name = "ID|FILE")]
        scenario: Option<String>,
        /// Optional rules to use, by id or rule number, separated by commas.
        #[arg(long, value_delimiter = ',')]
        options: Vec<String>,
        /// Who plays the side called union: ai (default), strong, greedy or random.
        #[arg(long, value_name = "LEVEL", value_parser = parse_level)]
        union: Option<muster_ai::Level>,
        /// Who plays the side called confederate: ai (default), strong, greedy or random.
        #[arg(long, value_name = "LEVEL", value_parser = parse_level)]
        confederate: Option<muster_ai::Level>,
        /// Who plays a side, for any module: SIDE=ai|strong|greedy|random.
        #[arg(long, value_name = "SIDE=LEVEL", value_parser = parse_side_level)]
        player: Vec<(String, muster_ai::Level)>,
        /// The first game's seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Threads to play on (0: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// End each game after this turn instead of the scenario's last, e.g. 03/1863.
        #[arg(long, value_name = "MM/YYYY")]
        end: Option<String>,
        /// Also write one line per game to this CSV file.
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        strong: StrongArgs,
        /// Give up on a game after this many actions (it counts as unfinished).
        #[arg(long, default_value_t = 200_000)]
        max_actions: usize,
    },
    /// Run a module's rule tests: the Luau files in its tests/ folder (or in the last
    /// mod's, played on the whole stack). Each test.case sets up games with fixed dice,
    /// acts, and checks legal moves, battle results and the log; a failure names the
    /// test file and line. Exits non-zero when any test fails.
    Test {
        /// The module folder, e.g. mods/ahd, or a mod's (loaded on its base).
        module: PathBuf,
        /// A mod to lay on the module; its tests are the ones run (the last given).
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
        /// Run only the tests whose name or file name contains TEXT (any case).
        #[arg(long, value_name = "TEXT")]
        filter: Option<String>,
    },
    /// Write the modder's reference: the hooks, the game view's methods, the commands
    /// and defs, as Markdown (luau-api.md) and as Luau type definitions for luau-lsp
    /// (muster.d.luau).
    Api {
        /// The folder to write them in.
        #[arg(long, value_name = "DIR", default_value = "docs")]
        out: PathBuf,
    },
    /// Create a mod: an overlay of a module with its manifest, a rules file to start
    /// from, the Luau type definitions and editor settings, and a README. It passes
    /// `muster check` as created.
    NewMod {
        /// The mod's id and folder name, e.g. ahd-house.
        name: String,
        /// The module it extends: a folder name in --dir (ahd) or a module's path.
        #[arg(long, value_name = "BASE")]
        extends: String,
        /// The folder to create it in (and to find the base in).
        #[arg(long, value_name = "DIR", default_value = "mods")]
        dir: PathBuf,
    },
}

fn parse_player(s: &str) -> Result<(String, play::PlayerKind), String> {
    let (side, kind) = s
        .split_once('=')
        .ok_or("write SIDE=KIND, e.g. union=random")?;
    let kind = <play::PlayerKind as clap::ValueEnum>::from_str(kind, true).map_err(|_| {
        format!("'{kind}' is not a kind of player: human, random, greedy, ai or strong")
    })?;
    Ok((side.to_string(), kind))
}

fn parse_level(s: &str) -> Result<muster_ai::Level, String> {
    muster_ai::Level::parse(s)
        .ok_or_else(|| format!("'{s}' is not a computer player: strong, ai, greedy or random"))
}

/// How a strong player searches: `--strong-budget` and `--strong-opening`.
#[derive(clap::Args, Clone, Copy, Debug)]
struct StrongArgs {
    /// Rollouts per march decision of a strong player, shared among the marches it weighs (1-2000).
    #[arg(long = "strong-budget", value_name = "N", default_value_t = muster_ai::search::DEFAULT_BUDGET, value_parser = parse_budget)]
    budget: u32,
    /// Turns from the scenario's start a strong player searches wider and deeper (three
    /// times the rollouts, each a player turn longer): several times slower, and not
    /// measured to play stronger than the default (0-1000; 0, the default, for none).
    #[arg(long = "strong-opening", value_name = "TURNS", default_value_t = 0, value_parser = parse_opening)]
    opening: u32,
}

impl StrongArgs {
    fn level(self) -> muster_ai::Level {
        muster_ai::Level::Strong {
            budget: self.budget,
            opening: self.opening,
        }
    }
}

fn parse_opening(s: &str) -> Result<u32, String> {
    let range = format!("0-{}", muster_ai::search::MAX_OPENING);
    parse_count(s, "turns", &range, muster_ai::search::check_opening)
}

fn parse_budget(s: &str) -> Result<u32, String> {
    let range = format!("1-{}", muster_ai::search::MAX_BUDGET);
    parse_count(s, "rollouts", &range, muster_ai::search::check_budget)
}

/// A count given by a person, `check`ed: "'x' is not a number of `what` (`range`)".
fn parse_count(
    s: &str,
    what: &str,
    range: &str,
    check: fn(u64) -> Result<u32, String>,
) -> Result<u32, String> {
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number of {what} ({range})"))?;
    check(n)
}

fn parse_search_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n @ 1..=64) => Ok(n),
        _ => Err(format!("'{s}' is not a number of search threads (1-64)")),
    }
}

fn parse_side_level(s: &str) -> Result<(String, muster_ai::Level), String> {
    let (side, level) = s
        .split_once('=')
        .ok_or("write SIDE=LEVEL, e.g. union=greedy")?;
    Ok((side.to_string(), parse_level(level)?))
}

#[derive(Subcommand)]
enum PbemCommand {
    /// Start a game: writes file 0 into DIR, to send to the other player.
    New {
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
        /// The side you play.
        #[arg(long)]
        side: String,
        /// Your folder for this game (its files and your secrets).
        #[arg(long)]
        dir: PathBuf,
    },
    /// Read the files in DIR (your own and those received), check them, and if the next
    /// file is yours, play your stretch and write it.
    Play {
        dir: PathBuf,
        /// The side you play.
        #[arg(long)]
        side: String,
        /// Who decides for you: human (at the prompt) or a computer player.
        #[arg(long, value_name = "KIND", default_value = "human")]
        player: play::PlayerKind,
        /// The module folder (default: mods/<the game's module id>).
        #[arg(long)]
        module: Option<PathBuf>,
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
        /// Seed of a random computer player's choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        strong: StrongArgs,
    },
    /// Check every file of the game in DIR from the start; name the first bad file or
    /// action.
    Verify {
        dir: PathBuf,
        #[arg(long)]
        module: Option<PathBuf>,
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
    },
    /// Write the game in DIR as a save (for `muster replay` and the app).
    Export {
        dir: PathBuf,
        #[arg(long)]
        module: Option<PathBuf>,
        #[arg(long = "mod", value_name = "PATH")]
        mods: Vec<PathBuf>,
        /// The save to write (a new file).
        #[arg(long, value_name = "FILE")]
        save: PathBuf,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("MUSTER_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check {
            module,
            mods,
            watch: true,
            ..
        } => watch::run(&module, &mods).map(|()| ExitCode::SUCCESS),
        Command::Check {
            module,
            mods,
            scenarios,
            json,
            watch: false,
            smoke,
        } => check::run(&module, &mods, &scenarios, json, smoke),
        Command::Play {
            module,
            mods,
            scenario,
            union,
            confederate,
            mut player,
            seed,
            options,
            end,
            save,
            quiet,
            rules_log,
            resume,
            max_actions,
            strong,
            search_threads,
        } => {
            player.extend(union.map(|k| ("union".to_string(), k)));
            player.extend(confederate.map(|k| ("confederate".to_string(), k)));
            play::run(play::Options {
                strong: strong.level(),
                search_threads,
                module,
                mods,
                scenario,
                players: player,
                seed,
                save,
                options,
                end,
                max_actions,
                quiet,
                rules_log,
                resume,
            })
            .map(|()| ExitCode::SUCCESS)
        }
        Command::Replay {
            file,
            module,
            mods,
            quiet,
            as_far_as_it_goes,
            save,
        } => play::replay(
            &file,
            module.as_deref(),
            &mods,
            quiet,
            as_far_as_it_goes,
            save.as_deref(),
        ),
        Command::View(args) => view::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Moves {
            module,
            mods,
            scenario,
            side,
            at,
            json,
            trace,
        } => moves::run(&module, &mods, &scenario, &side, &at, json, trace)
            .map(|()| ExitCode::SUCCESS),
        Command::Pbem(PbemCommand::New {
            module,
            mods,
            scenario,
            options,
            end,
            side,
            dir,
        }) => pbem::new(pbem::New {
            module,
            mods,
            scenario,
            options,
            end,
            side,
            dir,
        }),
        Command::Pbem(PbemCommand::Play {
            dir,
            side,
            player,
            module,
            mods,
            seed,
            strong,
        }) => pbem::play(pbem::Play {
            dir,
            side,
            player,
            module,
            mods,
            seed,
            strong: strong.level(),
        }),
        Command::Pbem(PbemCommand::Verify { dir, module, mods }) => {
            pbem::verify(&dir, module.as_deref(), &mods)
        }
        Command::Pbem(PbemCommand::Export {
            dir,
            module,
            mods,
            save,
        }) => pbem::export(&dir, module.as_deref(), &mods, &save),
        Command::Odds(args) => odds::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Balance {
            module,
            mods,
            games,
            scenario,
            options,
            union,
            confederate,
            mut player,
            seed,
            threads,
            end,
            csv,
            json,
            max_actions,
            strong,
        } => {
            player.extend(union.map(|k| ("union".to_string(), k)));
            player.extend(confederate.map(|k| ("confederate".to_string(), k)));
            for (_, level) in &mut player {
                if let muster_ai::Level::Strong { .. } = level {
                    *level = strong.level();
                }
            }
            balance::run_cli(balance::Options {
                module,
                mods,
                scenario,
                games,
                options,
                players: player,
                seed,
                threads,
                end,
                csv,
                json,
                max_actions,
            })
            .map(|()| ExitCode::SUCCESS)
        }
        Command::Test {
            module,
            mods,
            filter,
        } => modtest::run(&modtest::Options {
            module,
            mods,
            filter,
        })
        .map(|s| {
            if s.failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }),
        Command::Api { out } => api::run(&out).map(|()| ExitCode::SUCCESS),
        Command::NewMod { name, extends, dir } => {
            new_mod::run(&name, &extends, &dir).map(|folder| {
                println!(
                    "created {}: check it with `muster check {}`",
                    folder.display(),
                    folder.display()
                );
                ExitCode::SUCCESS
            })
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
