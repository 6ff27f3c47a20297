//! Type-checks a module's rules scripts in Luau's strict mode against the engine's API
//! (`docs/muster.d.luau`, from `muster_scripting::api`), with Luau's own analyzer (the
//! frontend of luau-analyze and luau-lsp, built from source by `luau-analyzer-sys`).
//!
//! Every `.luau` file under a module's `rules/` is checked as its own module, so each
//! file's errors are reported; `require("rules.x")` resolves inside the module's folder
//! as the engine's sandbox resolves it. A file is checked strictly whether or not it
//! starts with `--!strict`.

use std::fmt;
use std::path::{Path, PathBuf};

use luau_analyzer_sys::NativeAnalyzer;

/// Something the analyzer reported, at its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    /// 1-based.
    pub line: u32,
    pub col: u32,
    pub message: String,
    /// An error (a type error, a syntax error); otherwise a lint warning.
    pub error: bool,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.error { "error" } else { "warning" };
        write!(
            f,
            "{}:{}:{}: {what}: {}",
            self.file.display(),
            self.line,
            self.col,
            self.message
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

const STRICT: &str = "--!strict";

/// A file's text as checked: with `--!strict` on a first line of its own if it lacks
/// one, and how many lines that added.
fn strict_source(text: &str) -> (String, u32) {
    if text.trim_start().starts_with(STRICT) {
        (text.to_string(), 0)
    } else {
        (format!("{STRICT}\n{text}"), 1)
    }
}

/// The `.luau` files under `dir`, sorted, recursively.
fn luau_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            luau_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "luau") {
            out.push(path);
        }
    }
    Ok(())
}

/// The module folder a checked file belongs to: the longest root that holds it.
fn root_of<'a>(roots: &'a [PathBuf], file: &str) -> Option<&'a PathBuf> {
    roots
        .iter()
        .filter(|r| Path::new(file).starts_with(r))
        .max_by_key(|r| r.as_os_str().len())
}

/// Checks the rules of each module folder (its `rules/` tree), with `definitions`
/// declaring the engine's API. Sources are read from disk; `extra` adds files that are
/// not (`(path, text)`), for tests.
pub fn check_modules(
    definitions: &str,
    modules: &[&Path],
    extra: &[(PathBuf, String)],
) -> Result<Vec<Problem>, Error> {
    let stack: Vec<(Option<&str>, &Path)> = modules.iter().map(|m| (None, *m)).collect();
    check_stack(definitions, &stack, extra)
}

/// [`check_modules`] on a stack whose modules are named by id, so that a mod's
/// `require("@ahd/rules.movement")` resolves in module `ahd`'s folder, as the engine's
/// sandbox resolves it.
pub fn check_stack(
    definitions: &str,
    stack: &[(Option<&str>, &Path)],
    extra: &[(PathBuf, String)],
) -> Result<Vec<Problem>, Error> {
    let modules: Vec<&Path> = stack.iter().map(|(_, m)| *m).collect();
    let roots: Vec<PathBuf> = modules.iter().map(|m| m.to_path_buf()).collect();
    let mut files = Vec::new();
    for m in modules {
        let rules = m.join("rules");
        if rules.is_dir() {
            luau_files(&rules, &mut files)?;
        }
    }
    let mut sources: std::collections::HashMap<String, (String, u32)> = Default::default();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|source| Error::Read {
            path: f.clone(),
            source,
        })?;
        sources.insert(f.to_string_lossy().into_owned(), strict_source(&text));
    }
    for (path, text) in extra {
        files.push(path.clone());
        sources.insert(path.to_string_lossy().into_owned(), strict_source(text));
    }
    let mut analyzer = NativeAnalyzer::new();
    analyzer.add_definitions(definitions);
    let mut problems = Vec::new();
    for f in &files {
        let name = f.to_string_lossy().into_owned();
        let diagnostics = analyzer.check(
            &name,
            |module| sources.get(module).map(|(text, _)| text.clone()),
            |current, required| {
                // `require("@ahd/rules.x")`: `rules/x.luau` in module ahd's folder.
                if let Some((id, name)) = required.strip_prefix('@').and_then(|r| r.split_once('/'))
                {
                    let (_, root) = stack.iter().find(|(m, _)| *m == Some(id))?;
                    let rel = name.replace('.', "/");
                    return Some(
                        root.join(format!("{rel}.luau"))
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
                // `require("rules.x")`: `rules/x.luau` in the requiring file's module.
                let root = root_of(&roots, current)?;
                let rel = required.replace('.', "/");
                Some(
                    root.join(format!("{rel}.luau"))
                        .to_string_lossy()
                        .into_owned(),
                )
            },
        );
        let shift = sources.get(&name).map_or(0, |(_, s)| *s);
        problems.extend(diagnostics.into_iter().map(|d| Problem {
            file: f.clone(),
            line: (d.line + 1).saturating_sub(shift),
            col: d.col + 1,
            message: d.message,
            error: d.severity == 0,
        }));
    }
    problems.sort_by(|a, b| {
        (&a.file, a.line, a.col, &a.message).cmp(&(&b.file, b.line, b.col, &b.message))
    });
    // A file required by several is reported with each: once is enough.
    problems.dedup();
    Ok(problems)
}
