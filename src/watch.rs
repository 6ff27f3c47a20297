//! `muster check --watch`: re-checks the module (with the mods stacked on it, if any),
//! data and rules, on every save of an XML or Luau file in any of their folders. A
//! broken save is reported and the last good version stays the one in use (here: the
//! one reported as good), as the editor does.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Result;
use muster_core::load_stack;
use muster_scripting::{Limits, ScriptRules};
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, DebouncedEvent, new_debouncer};

/// Loads data and rules; prints one status line (or the errors). Returns whether it
/// loaded, and the module folders to watch.
fn check(
    dir: &Path,
    mods: &[PathBuf],
    typecheck: bool,
    out: &mut impl Write,
) -> Result<(bool, Vec<PathBuf>)> {
    let started = Instant::now();
    // Every folder given is watched, even while one of them does not load.
    let given = || std::iter::once(dir.to_path_buf()).chain(mods.iter().cloned());
    let module = match load_stack(dir, mods) {
        Ok(m) => m,
        Err(e) => {
            for d in &e.diagnostics {
                writeln!(out, "{d}")?;
            }
            writeln!(
                out,
                "errors: {} found; the last good version stays in use",
                e.errors().count()
            )?;
            return Ok((false, given().collect()));
        }
    };
    let mut dirs: Vec<PathBuf> = module.scripts.iter().map(|s| s.dir.clone()).collect();
    dirs.extend(given());
    dirs.sort();
    dirs.dedup();
    match ScriptRules::load(&module, Limits::default()) {
        Ok(_) => {
            // The rules load; their type errors are printed above the status line.
            if typecheck {
                match crate::typecheck::check(&module)? {
                    crate::typecheck::Outcome::Checked(errors) => {
                        for d in &errors {
                            writeln!(out, "{d}")?;
                        }
                        if !errors.is_empty() {
                            writeln!(out, "type errors: {} found", errors.len())?;
                        }
                    }
                    crate::typecheck::Outcome::Missing(path) => {
                        writeln!(out, "{}", crate::typecheck::missing_warning(&path))?;
                    }
                }
            }
            writeln!(
                out,
                "ok: module '{}' ({} boxes, {} lines, {} scenarios) and its rules, checked in {} ms",
                module.id,
                module.board.boxes.len(),
                module.board.lines.len(),
                module.scenarios.len(),
                started.elapsed().as_millis()
            )?;
            Ok((true, dirs))
        }
        Err(e) => {
            writeln!(out, "error: rules: {e}")?;
            writeln!(out, "errors: 1 found; the last good version stays in use")?;
            Ok((false, dirs))
        }
    }
}

fn relevant(e: &DebouncedEvent) -> bool {
    matches!(
        e.kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
    ) && e
        .paths
        .iter()
        .any(|p| p.extension().is_some_and(|x| x == "xml" || x == "luau"))
}

pub fn run(dir: &Path, mods: &[PathBuf], typecheck: bool) -> Result<()> {
    let out = &mut std::io::stdout();
    let (_, dirs) = check(dir, mods, typecheck, out)?;
    out.flush()?;
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(Duration::from_millis(150), None, tx)?;
    for d in &dirs {
        debouncer.watch(d, RecursiveMode::Recursive)?;
    }
    writeln!(
        out,
        "watching {} for changes to .xml and .luau files (Ctrl-C to stop)",
        dir.display()
    )?;
    out.flush()?;
    for batch in rx {
        match batch {
            Ok(events) if events.iter().any(relevant) => {
                check(dir, mods, typecheck, out)?;
            }
            Ok(_) => {}
            Err(errors) => {
                for e in errors {
                    writeln!(out, "watch error: {e}")?;
                }
            }
        }
        out.flush()?;
    }
    Ok(())
}
