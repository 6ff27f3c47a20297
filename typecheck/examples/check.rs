//! `cargo run -p muster-typecheck --example check -- DEFINITIONS MODULE...`: prints every
//! problem Luau's strict mode finds in the modules' rules (errors and lint warnings).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((definitions, modules)) = args.split_first() else {
        eprintln!("usage: check DEFINITIONS.d.luau MODULE...");
        return ExitCode::FAILURE;
    };
    let text = match std::fs::read_to_string(definitions) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {definitions}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let modules: Vec<PathBuf> = modules.iter().map(PathBuf::from).collect();
    let refs: Vec<&Path> = modules.iter().map(PathBuf::as_path).collect();
    match muster_typecheck::check_modules(&text, &refs, &[]) {
        Ok(problems) => {
            for p in &problems {
                println!("{p}");
            }
            if problems.iter().any(|p| p.error) {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
