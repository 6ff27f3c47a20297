//! `muster`: the command line of the engine. Only parsing and printing live here; the
//! work is done by the library crates.

/// mimalloc: a search allocates and frees millions of small vectors and Luau values;
/// with glibc's allocator malloc and free were a tenth of a strong player's time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod api;
mod balance;
mod check;
mod entry;
mod modtest;
mod moves;
mod new_mod;
mod odds;
mod pbem;
mod pbem_host;
mod play;
mod players;
mod rules;
mod scenario_cmd;
mod smoke;
mod terminal;
mod typecheck;
mod view;
mod watch;

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "muster",
    version,
    about = "Engine for area-movement strategy board games"
)]
struct Cli {
    #[command(subcommand)]
    subcommand: Subcommand,
}

// What `muster` is asked to do: one variant a subcommand, each with its clap struct (no
// doc comment: clap could take it for help text).
#[derive(clap::Subcommand)]
enum Subcommand {
    /// Validate a module and print a summary (boxes, lines, ports, army maxima).
    Check(check::Args),
    /// Play a game at the terminal: each side a human at the prompt or a computer player
    /// (random, greedy, or ai, the default computer player).
    Play(play::Args),
    /// Replay a save and check it gives the identical final state.
    Replay(play::ReplayArgs),
    /// What one seat sees of a saved game: with hidden information, only what that
    /// player may know.
    View(view::Args),
    /// Play by file (e-mail): each player's turn is a small file for the other, with
    /// dice neither can choose or roll again (`docs/pbem.md`).
    #[command(subcommand)]
    Pbem(pbem::PbemSubcommand),
    /// The legal destinations of each unit in a box for one march, at the start of a
    /// side's Movement segment.
    Moves(moves::Args),
    /// Battle odds: play one battle many times (both sides targeting as the computer
    /// players do) and report wins, retreats, expected survivors and rounds.
    Odds(odds::Args),
    /// Play many games between computer players in parallel and report each side's win
    /// rate with a 95% confidence interval, the victory conditions reached and the
    /// game lengths: to see whether a house rule changes the balance.
    Balance(balance::Args),
    /// Run a module's rule tests: the Luau files in its tests/ folder (or in the last
    /// mod's, played on the whole stack). Each test.case sets up games with fixed dice,
    /// acts, and checks legal moves, battle results and the log; a failure names the
    /// test file and line. Exits non-zero when any test fails.
    Test(modtest::Args),
    /// Write the modder's reference: the hooks, the game view's methods, the commands
    /// and defs, as Markdown (luau-api.md) and as Luau type definitions for luau-lsp
    /// (muster.d.luau).
    Api(api::Args),
    /// Create a mod: an overlay of a module with its manifest, a rules file to start
    /// from, the Luau type definitions and editor settings, and a README. It passes
    /// `muster check` as created.
    NewMod(new_mod::Args),
    /// Make scenarios: `from-save` writes a saved game's position as a scenario file.
    #[command(subcommand)]
    Scenario(scenario_cmd::ScenarioSubcommand),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("MUSTER_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.subcommand {
        Subcommand::Check(a) => check::run(&a),
        Subcommand::Play(a) => play::run(a).map(|()| ExitCode::SUCCESS),
        Subcommand::Replay(a) => play::replay(&a),
        Subcommand::View(a) => view::run(&a).map(|()| ExitCode::SUCCESS),
        Subcommand::Pbem(a) => pbem::run(a),
        Subcommand::Moves(a) => moves::run(&a).map(|()| ExitCode::SUCCESS),
        Subcommand::Odds(a) => odds::run(&a).map(|()| ExitCode::SUCCESS),
        Subcommand::Balance(a) => balance::run_cli(a).map(|()| ExitCode::SUCCESS),
        Subcommand::Test(a) => modtest::run(&a).map(|s| {
            if s.failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }),
        Subcommand::Api(a) => api::run(&a).map(|()| ExitCode::SUCCESS),
        Subcommand::NewMod(a) => new_mod::run(&a).map(|()| ExitCode::SUCCESS),
        Subcommand::Scenario(a) => scenario_cmd::run(&a).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{}", error_text(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, said once each: a cause an error's own message
/// already quotes (`cannot read x: {source}`) is not repeated, and a diagnostic with no
/// place keeps its own `error:` (`error: error: no module at ...` was printed before).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let said = cause.to_string();
        if text.contains(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    // Every error line starts `error: ` once (scripts and tests read it so).
    if text.starts_with("error: ") {
        text
    } else {
        format!("error: {text}")
    }
}
