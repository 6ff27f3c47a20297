//! Autosave: while there are unsaved edits, the map is written every so often to a
//! sidecar file next to it (`map.xml.autosave`), atomically, and never over the map
//! file itself. On open, a sidecar newer than the map is offered for restoring.
//! A save or a "discard my edits" removes the sidecar: it then holds nothing to keep.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::document::Document;
use crate::save::write_atomic;

/// How often unsaved edits are written to the sidecar.
pub const EVERY: Duration = Duration::from_secs(30);

/// The sidecar of `map_path`: the same name with `.autosave` appended.
pub fn sidecar(map_path: &Path) -> PathBuf {
    let mut name = map_path.file_name().unwrap_or_default().to_os_string();
    name.push(".autosave");
    map_path.with_file_name(name)
}

/// Writes the document's map, as a save would, to its sidecar.
pub fn write(doc: &Document) -> std::io::Result<PathBuf> {
    let path = sidecar(doc.map_path());
    write_atomic(&path, &doc.map_text())?;
    tracing::info!(path = %path.display(), "autosaved");
    Ok(path)
}

/// The sidecar of `map_path` when it exists and is newer than the map file.
pub fn newer_than_map(map_path: &Path) -> Option<PathBuf> {
    let path = sidecar(map_path);
    let saved = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
    let map = std::fs::metadata(map_path).and_then(|m| m.modified()).ok();
    map.is_none_or(|map| saved > map).then_some(path)
}

/// Deletes the sidecar of `map_path`, if any.
pub fn remove(map_path: &Path) {
    let path = sidecar(map_path);
    match std::fs::remove_file(&path) {
        Ok(()) => tracing::debug!(path = %path.display(), "autosave removed"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!(path = %path.display(), "cannot remove autosave: {e}"),
    }
}

/// Decides when to autosave: `every` after the first unsaved edit, then every
/// `every` while the edits keep changing.
#[derive(Debug)]
pub struct Autosaver {
    every: Duration,
    due: Option<Instant>,
    /// Hash of the text last written, so an idle dirty document is written once.
    written: Option<u64>,
}

impl Default for Autosaver {
    fn default() -> Self {
        Self::new(EVERY)
    }
}

impl Autosaver {
    pub fn new(every: Duration) -> Self {
        Self {
            every,
            due: None,
            written: None,
        }
    }

    /// How long until the next autosave may be due (for a repaint request).
    pub fn every(&self) -> Duration {
        self.every
    }

    /// Called each frame; writes the sidecar when one is due. Returns what it did.
    pub fn tick(&mut self, now: Instant, doc: &Document) -> Option<std::io::Result<PathBuf>> {
        // A base's map shown under a mod is never edited, so never autosaved (its
        // sidecar would be written in the base's folder).
        if !doc.is_dirty() || doc.base_map().is_some() {
            self.due = None;
            self.written = None;
            return None;
        }
        let due = *self.due.get_or_insert(now + self.every);
        if now < due {
            return None;
        }
        self.due = Some(now + self.every);
        let mut h = DefaultHasher::new();
        doc.map_text().hash(&mut h);
        let hash = h.finish();
        if self.written == Some(hash) {
            return None;
        }
        let result = write(doc);
        if result.is_ok() {
            self.written = Some(hash);
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sidecar_sits_next_to_the_map() {
        assert_eq!(
            sidecar(Path::new("mods/ahd/map.xml")),
            PathBuf::from("mods/ahd/map.xml.autosave")
        );
    }

    #[test]
    fn a_missing_sidecar_is_not_offered() {
        let dir = tempfile::tempdir().unwrap();
        let map = dir.path().join("map.xml");
        std::fs::write(&map, "<map/>").unwrap();
        assert_eq!(newer_than_map(&map), None);
        remove(&map); // nothing to remove is fine
    }
}
