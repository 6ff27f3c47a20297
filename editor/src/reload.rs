//! Hot reload: watches the open module's folder for changed XML and Luau files and
//! hands the changes to the app through a channel it polls once per frame.
//!
//! The approach is `muster check --watch`'s (`src/watch.rs`): notify-debouncer-full
//! over the module folder (and any script folder outside it), keeping only `.xml` and
//! `.luau` paths. The editor's own writes are not news: the app tells the
//! [`Reloader`] what it wrote ([`Reloader::note_own_write`]) and a later event whose file
//! still holds exactly that text is dropped. Temporary files of atomic saves
//! (`.tmpXXXX`) and autosave sidecars (`*.autosave`) fail the extension filter.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::Duration;

use notify_debouncer_full::notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{
    DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache, new_debouncer,
};

/// How long the watcher waits for a burst of writes (an editor's save) to settle.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// Why the watcher could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {path}: {source}")]
pub struct ReloadError {
    path: PathBuf,
    source: notify_debouncer_full::notify::Error,
}

/// Module files changed on disk, as the app sees them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReloadEvent {
    /// These XML or Luau files were created, written or removed by someone else.
    Changed(FileChange),
    /// The watcher itself failed (the folder vanished, too many watches...).
    WatchError(String),
}

/// The paths of one debounced batch of changes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileChange {
    pub paths: Vec<PathBuf>,
}

impl FileChange {
    /// Whether a rule script changed (logged; a game under way is replayed after any
    /// change, XML or Luau, see `play::hot`).
    pub fn rules_changed(&self) -> bool {
        self.paths.iter().any(|p| has_ext(p, "luau"))
    }

    /// Whether `path` is one of the changed files.
    pub fn touches(&self, path: &Path) -> bool {
        let want = canonical(path);
        self.paths.iter().any(|p| canonical(p) == want)
    }
}

/// A running watcher on one module. Dropping it stops the watch.
pub struct Reloader {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    rx: Receiver<DebounceEventResult>,
    /// Hash of the text the editor itself last wrote to a path (canonical).
    own_writes: HashMap<PathBuf, u64>,
}

impl Reloader {
    /// Watches `dirs` (the module folder and its script folders) recursively. `wake`
    /// is called from the watcher's thread when a batch arrives, so a window can
    /// repaint (and poll) without waiting for the mouse.
    pub fn watch(dirs: &[PathBuf], wake: impl Fn() + Send + 'static) -> Result<Self, ReloadError> {
        let (tx, rx) = mpsc::channel();
        let mut debouncer = new_debouncer(DEBOUNCE, None, move |batch: DebounceEventResult| {
            if tx.send(batch).is_ok() {
                wake();
            }
        })
        .map_err(|source| ReloadError {
            path: dirs.first().cloned().unwrap_or_default(),
            source,
        })?;
        let mut watched: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            let dir = canonical(dir);
            if watched.iter().any(|w| dir.starts_with(w)) {
                continue;
            }
            debouncer
                .watch(&dir, RecursiveMode::Recursive)
                .map_err(|source| ReloadError {
                    path: dir.clone(),
                    source,
                })?;
            tracing::info!(dir = %dir.display(), "watching for changes");
            watched.push(dir);
        }
        Ok(Self {
            _debouncer: debouncer,
            rx,
            own_writes: HashMap::new(),
        })
    }

    /// Remembers that the editor wrote `text` to `path`, so the event that write
    /// causes is not taken for an outside change.
    pub fn note_own_write(&mut self, path: &Path, text: &str) {
        self.own_writes.insert(canonical(path), hash_text(text));
    }

    /// Takes every change that arrived since the last poll, without blocking.
    pub fn poll(&mut self) -> Vec<ReloadEvent> {
        let mut paths: Vec<PathBuf> = Vec::new();
        let mut out = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(Ok(events)) => {
                    for e in events.iter().filter(|e| relevant(e)) {
                        for p in &e.paths {
                            if has_ext(p, "xml") || has_ext(p, "luau") {
                                paths.push(p.clone());
                            }
                        }
                    }
                }
                Ok(Err(errors)) => {
                    out.extend(
                        errors
                            .into_iter()
                            .map(|e| ReloadEvent::WatchError(e.to_string())),
                    );
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
        }
        paths.sort();
        paths.dedup();
        paths.retain(|p| !self.is_own_write(p));
        if !paths.is_empty() {
            tracing::debug!(?paths, "module files changed on disk");
            out.insert(0, ReloadEvent::Changed(FileChange { paths }));
        }
        out
    }

    /// Whether `path` still holds exactly what the editor last wrote there.
    fn is_own_write(&self, path: &Path) -> bool {
        let Some(&written) = self.own_writes.get(&canonical(path)) else {
            return false;
        };
        std::fs::read_to_string(path).is_ok_and(|now| hash_text(&now) == written)
    }
}

fn relevant(e: &DebouncedEvent) -> bool {
    matches!(
        e.kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
    )
}

fn has_ext(p: &Path, ext: &str) -> bool {
    p.extension().is_some_and(|x| x == ext)
}

/// The path with symlinks and `..` resolved when it exists (watch events carry
/// canonical paths; the document keeps the one it was opened with).
fn canonical(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    // A removed file: canonicalize its folder.
    match (
        p.parent().and_then(|d| d.canonicalize().ok()),
        p.file_name(),
    ) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => p.to_path_buf(),
    }
}

fn hash_text(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_scripts_count_as_rule_changes() {
        let xml = FileChange {
            paths: vec![PathBuf::from("m/map.xml")],
        };
        let luau = FileChange {
            paths: vec![PathBuf::from("m/map.xml"), PathBuf::from("m/rules/a.luau")],
        };
        assert!(!xml.rules_changed());
        assert!(luau.rules_changed());
    }
}
