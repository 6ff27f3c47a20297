//! `muster`: the command line of the engine. Only parsing and printing live here; the
//! work is done by the library crates.

mod check;

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
        /// Also check these scenarios: an id of the module or a scenario .xml file.
        #[arg(long = "scenario", value_name = "ID|FILE")]
        scenarios: Vec<String>,
        /// Print one JSON object on stdout instead of text.
        #[arg(long)]
        json: bool,
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
            scenarios,
            json,
        } => check::run(&module, &scenarios, json),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
