//! Diagnostics: what went wrong, where (file:line:column) and how to fix it.
//!
//! Every loader and validator error becomes a [`Diagnostic`] that renders on one line,
//! e.g. `mods/ahd/map.xml:12:31: error: unknown box 'Nashvile'; did you mean 'Nashville'?`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Index of a source file in a [`SourceFiles`] table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct FileId(pub u16);

/// A position in a source file: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Pos {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

/// The files a module was read from, so that positions can be named.
#[derive(Clone, Debug, Default)]
pub struct SourceFiles {
    paths: Vec<PathBuf>,
}

impl SourceFiles {
    pub fn add(&mut self, path: PathBuf) -> FileId {
        self.paths.push(tidy(&path));
        FileId(u16::try_from(self.paths.len() - 1).unwrap_or(u16::MAX))
    }

    pub fn path(&self, id: FileId) -> &Path {
        self.paths
            .get(usize::from(id.0))
            .map_or(Path::new("<unknown>"), PathBuf::as_path)
    }

    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    pub fn locate(&self, pos: Pos) -> Location {
        Location {
            file: self.path(pos.file).to_path_buf(),
            line: pos.line,
            col: pos.col,
        }
    }
}

/// `a/./b/../c` as `a/c`, for messages (lexical: links are not followed).
pub fn tidy(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.is_empty() {
        PathBuf::from(".")
    } else {
        out.iter().collect()
    }
}

/// A resolved position, ready to print.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in a module, with an optional fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub location: Option<Location>,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = &self.location {
            write!(f, "{loc}: ")?;
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}: {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

/// Collects diagnostics while a module is read, resolving positions as they come.
#[derive(Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn push(
        &mut self,
        files: &SourceFiles,
        severity: Severity,
        pos: Option<Pos>,
        message: String,
        hint: Option<String>,
    ) {
        self.diagnostics.push(Diagnostic {
            severity,
            location: pos.map(|p| files.locate(p)),
            message,
            hint,
        });
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Where reading, overlaying and compiling a module report its problems: the report,
/// with the files that name positions (reading a file adds it). One context, so every
/// step says `cx.error(pos, message, hint)`.
pub(crate) struct Ctx<'a> {
    pub files: &'a mut SourceFiles,
    pub report: &'a mut Report,
}

impl Ctx<'_> {
    pub fn error(&mut self, pos: Pos, message: impl Into<String>, hint: Option<String>) {
        self.report
            .push(self.files, Severity::Error, Some(pos), message.into(), hint);
    }

    /// An error no position points to (a folder or file that cannot be read).
    pub fn error_unplaced(&mut self, message: impl Into<String>, hint: Option<String>) {
        self.report
            .push(self.files, Severity::Error, None, message.into(), hint);
    }

    pub fn warn(&mut self, pos: Pos, message: impl Into<String>, hint: Option<String>) {
        self.report.push(
            self.files,
            Severity::Warning,
            Some(pos),
            message.into(),
            hint,
        );
    }

    /// `first defined at file:line:col`, for duplicates.
    pub fn first_at(&self, pos: Pos) -> Option<String> {
        Some(format!("the first is at {}", self.files.locate(pos)))
    }
}

/// A module or scenario that could not be loaded: every error found, not just the first.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}", render(.diagnostics))]
pub struct LoadError {
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }
}

fn render(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
