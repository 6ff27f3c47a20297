//! `muster-typecheck`: the program `muster check` runs to type-check a stack's rules
//! (Luau's analyzer defines the VM's symbols, so it cannot be linked into `muster`,
//! which runs scripts with mlua). `cargo build` builds it beside `muster`.
//!
//! `muster-typecheck DEFINITIONS MODULE...`: DEFINITIONS is a `.d.luau` file, or `-` to
//! read it from stdin; each MODULE is `ID=FOLDER` (files are then named `ID/rules/x.luau`,
//! as script errors name them) or a folder. Prints one problem a line, tab-separated:
//! `file line column error|warning message` (`--text`: `file:line:column: error: ...`).
//! Exits 1 when any error was found, 2 when it could not check.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let text_out = args.first().is_some_and(|a| a == "--text");
    if text_out {
        args.remove(0);
    }
    let Some((definitions, modules)) = args.split_first() else {
        eprintln!("usage: muster-typecheck [--text] DEFINITIONS.d.luau|- [ID=]FOLDER...");
        return ExitCode::from(2);
    };
    let text = if definitions == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map(|_| text)
            .map_err(|e| e.to_string())
    } else {
        std::fs::read_to_string(definitions).map_err(|e| format!("cannot read {definitions}: {e}"))
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let modules: Vec<(Option<&str>, PathBuf)> = modules
        .iter()
        .map(|m| match m.split_once('=') {
            Some((id, dir)) => (Some(id), PathBuf::from(dir)),
            None => (None, PathBuf::from(m)),
        })
        .collect();
    let stack: Vec<(Option<&str>, &Path)> =
        modules.iter().map(|(id, d)| (*id, d.as_path())).collect();
    let problems = match muster_typecheck::check_stack(&text, &stack, &[]) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    for mut p in problems.iter().cloned() {
        // `ID/rules/x.luau` for a file of a module given with its id.
        if let Some((Some(id), rel)) = modules
            .iter()
            .filter_map(|(id, dir)| Some((*id, p.file.strip_prefix(dir).ok()?)))
            .max_by_key(|(_, rel)| std::cmp::Reverse(rel.as_os_str().len()))
        {
            p.file = Path::new(id).join(rel);
        }
        if text_out {
            println!("{p}");
        } else {
            let what = if p.error { "error" } else { "warning" };
            let message = p.message.replace(['\t', '\n'], " ");
            println!(
                "{}\t{}\t{}\t{what}\t{message}",
                p.file.display(),
                p.line,
                p.col
            );
        }
    }
    if problems.iter().any(|p| p.error) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
