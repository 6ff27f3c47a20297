//! What a mod's `<remove>` and `<patch>` do to the board it shows: a mod that keeps its
//! base's map is opened on that map (see [`crate::Document::open`]), and the boxes and
//! lines its changes touch are marked there, each with the change's file:line, so a
//! modder sees the stack as the engine loads it.

use std::path::{Path, PathBuf};

use muster_core::Module;
use muster_core::diag::FileId;
use muster_core::format::Manifest;
use muster_core::module::Removed;
use muster_core::xml::{self, de};

use crate::map_data::MapData;

/// What a change did to an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Taken out of the game by a `<remove>` (drawn struck through and dimmed).
    Removed,
    /// Changed by a `<patch>` (drawn with a patch ring; the map shows the base's data).
    Patched,
}

/// One change to a box or line of the shown map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapChange {
    pub kind: ChangeKind,
    /// Where the change is written: `house/changes.xml:3:5`.
    pub at: String,
}

impl MapChange {
    /// The words shown on hover: what happened to `what` (`box 'Cairo'`) and where.
    pub fn describe(&self, what: &str) -> String {
        match self.kind {
            ChangeKind::Removed => {
                format!("{what} is removed by the <remove> at {}", self.at)
            }
            ChangeKind::Patched => format!(
                "{what} is patched by the <patch> at {} (the map shows the base's values)",
                self.at
            ),
        }
    }
}

/// The changes per box and per line of the map, by index (`None`: untouched).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapChanges {
    pub boxes: Vec<Option<MapChange>>,
    pub lines: Vec<Option<MapChange>>,
}

impl MapChanges {
    /// The changes `module`'s overlays made to `map`'s boxes and lines, matched as the
    /// loader matches them (a box by its name, a line by its two boxes and kind, case
    /// ignored). Empty for a module with no overlay.
    pub fn of(module: &Module, map: &MapData) -> Self {
        // Named from the folder holding the mod (`house/changes.xml:3:5`), as a modder
        // sees the mods folder; elsewhere in full.
        let root = module
            .stack
            .last()
            .and_then(|e| e.dir.parent())
            .map(std::path::Path::to_path_buf);
        let change = |kind, r: &Removed| MapChange {
            kind,
            at: match root.as_deref().and_then(|d| r.at.file.strip_prefix(d).ok()) {
                Some(rel) => format!("{}:{}:{}", rel.display(), r.at.line, r.at.col),
                None => r.at.to_string(),
            },
        };
        let all = || {
            module
                .removed
                .iter()
                .map(|r| (ChangeKind::Removed, r))
                .chain(module.patched.iter().map(|r| (ChangeKind::Patched, r)))
        };
        let boxes = map
            .boxes
            .iter()
            .map(|b| {
                let key = b.name.to_lowercase();
                // A removal wins over a patch of the same item (it is gone either way).
                all()
                    .filter(|(_, r)| r.element == "box" && r.key == key)
                    .min_by_key(|(k, _)| *k == ChangeKind::Patched)
                    .map(|(k, r)| change(k, r))
            })
            .collect();
        let lines = map
            .lines
            .iter()
            .map(|l| {
                let key = line_key(&l.a, &l.b, &l.kind);
                all()
                    .filter(|(_, r)| r.element == "line" && r.key == key)
                    .min_by_key(|(k, _)| *k == ChangeKind::Patched)
                    .map(|(k, r)| change(k, r))
            })
            .collect();
        Self { boxes, lines }
    }

    pub fn is_empty(&self) -> bool {
        self.boxes.iter().chain(&self.lines).all(Option::is_none)
    }

    pub fn of_box(&self, i: usize) -> Option<&MapChange> {
        self.boxes.get(i).and_then(Option::as_ref)
    }

    pub fn of_line(&self, i: usize) -> Option<&MapChange> {
        self.lines.get(i).and_then(Option::as_ref)
    }
}

/// The folder to open for `muster-editor BASE --mod MOD...`: the top mod, once each
/// mod's `<extends>` is found to lead to the folder below it (the editor follows a
/// mod's `<extends>` path to its base's board, so a stack it did not name is refused
/// rather than shown wrong).
pub fn stack_top(base: &Path, mods: &[PathBuf]) -> Result<PathBuf, String> {
    let mut below = base.to_path_buf();
    for m in mods {
        let manifest = m.join("module.xml");
        let text = std::fs::read_to_string(&manifest)
            .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
        let root = xml::parse(FileId(0), &text).map_err(|e| {
            format!(
                "{}:{}:{}: {}",
                manifest.display(),
                e.pos.line,
                e.pos.col,
                e.message
            )
        })?;
        let parsed: Manifest = de::from_element(&root)
            .map_err(|e| format!("{}: {}", manifest.display(), e.message))?;
        let Some(ext) = parsed.extends else {
            return Err(format!(
                "{} has no <extends>: --mod takes a mod, which names the module it changes",
                manifest.display()
            ));
        };
        let rel = ext
            .path
            .as_ref()
            .map_or_else(|| format!("../{}", ext.module.value), |p| p.value.clone());
        let found = m.join(&rel);
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if !same(&found, &below) {
            return Err(format!(
                "{} extends '{}' at {}, not {}: the editor opens a mod on the base its <extends> names; give that folder, or stack the mods in their order",
                m.display(),
                ext.module.value,
                found.display(),
                below.display()
            ));
        }
        below = m.clone();
    }
    Ok(below)
}

/// A line's key as the loader writes it: both ends lower-cased in order, then the kind.
fn line_key(a: &str, b: &str, kind: &str) -> String {
    let (a, b) = (a.trim().to_lowercase(), b.trim().to_lowercase());
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    format!("{a}\u{0}{b}\u{0}{}", kind.trim().to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_key_ignores_direction_and_case() {
        assert_eq!(
            line_key("Vandalia", "cairo", "Rail"),
            "cairo\u{0}vandalia\u{0}rail"
        );
    }
}
