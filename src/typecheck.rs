//! `muster check`'s type check: every script of a stack checked in Luau's strict mode
//! against the engine's definitions, by `muster-typecheck` (the `typecheck` crate's
//! program: Luau's analyzer cannot be linked with mlua, so it runs as its own process).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{Context, Result};
use muster_core::diag::Location;
use muster_core::{Diagnostic, Module, Severity};

/// The checker's file name.
const PROGRAM: &str = "muster-typecheck";

/// What the type check found.
pub enum Outcome {
    /// The stack's errors (none: clean).
    Checked(Vec<Diagnostic>),
    /// No checker program where it was looked for.
    Missing(PathBuf),
}

/// The checker: `MUSTER_TYPECHECK` if set, else `muster-typecheck` beside this program
/// (where `cargo build` puts it).
fn program() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("MUSTER_TYPECHECK") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().context("cannot find muster's own program")?;
    Ok(exe.with_file_name(format!("{PROGRAM}{}", std::env::consts::EXE_SUFFIX)))
}

/// The warning printed when the checker is missing (never a silent pass).
pub fn missing_warning(path: &std::path::Path) -> String {
    format!(
        "warning: the rules were not type-checked: no {PROGRAM} at {}; build it with `cargo build -p muster-typecheck` (`cargo build` builds it too), or skip the check with --no-typecheck",
        path.display()
    )
}

/// Type-checks the rules of every module of the stack that has rules.
pub fn check(module: &Module) -> Result<Outcome> {
    let program = program()?;
    if !program.is_file() {
        return Ok(Outcome::Missing(program));
    }
    // One folder a module (a module's scripts share its folder), named by its id as
    // script errors name files.
    let mut folders: Vec<String> = Vec::new();
    for s in &module.scripts {
        let arg = format!("{}={}", s.module, s.dir.display());
        if !folders.contains(&arg) {
            folders.push(arg);
        }
    }
    if folders.is_empty() {
        return Ok(Outcome::Checked(Vec::new()));
    }
    let mut child = Command::new(&program)
        .arg("-")
        .args(&folders)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(muster_scripting::api::definitions().as_bytes())?;
    }
    let out = child
        .wait_with_output()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if out.status.code() == Some(2) || out.status.code().is_none() {
        anyhow::bail!(
            "{} failed: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let errors = text
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(5, '\t');
            let (file, line, col, what, message) =
                (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
            (what == "error").then(|| Diagnostic {
                severity: Severity::Error,
                location: Some(Location {
                    file: PathBuf::from(file),
                    line: line.parse().unwrap_or(0),
                    col: col.parse().unwrap_or(0),
                }),
                message: message.to_string(),
                hint: None,
            })
        })
        .collect();
    Ok(Outcome::Checked(errors))
}
