//! The module being edited: its map file's data, undo and redo, the last check, saving.
//!
//! The UI never changes [`MapData`] itself: it asks the document for a change (rename,
//! move, add, delete), which the document turns into primitive [`Edit`]s, applies, records
//! for undo, and checks with the engine's validator.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use muster_core::diag::FileId;
use muster_core::format::Manifest;
use muster_core::load::Overrides;
use muster_core::xml::{self, de};
use muster_core::{Module, Scenario};

use crate::command::Selection;
use crate::edit::{Edit, EditError, apply_all};
use crate::map_data::{BackgroundData, BoxData, LineData, MapData};
use crate::map_xml::{self, MapXmlError};
use crate::mod_changes::MapChanges;
use crate::save::write_atomic;
use crate::scenario_data::ScenarioData;
use crate::scenario_live;
use crate::scenario_xml;
use crate::validate::{self, Validation};

/// Why a module could not be opened or saved.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("module '{0}' includes no <map> file to edit")]
    NoMap(String),
    #[error("{path}:{source}")]
    Map { path: PathBuf, source: MapXmlError },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Edit(#[from] EditError),
    #[error("no scenario file {0} in this module")]
    NoScenario(usize),
}

/// A recorded change: a label for the UI and the edits that undo (or redo) it.
#[derive(Clone, Debug)]
struct Change {
    /// Identifies the state this change leads to, for "unsaved changes".
    id: u64,
    label: String,
    edits: Vec<Edit>,
    /// Scenario files replaced by this change (index, content to put back).
    scenario_edits: Vec<(usize, ScenarioData)>,
}

/// One scenario file of the module, as the editor holds it.
#[derive(Clone, Debug)]
pub struct ScenarioFile {
    /// The path as the loader builds it (`dir` joined with the include).
    pub path: PathBuf,
    pub data: ScenarioData,
    /// The content as last read or saved: the file is overridden and written only
    /// when `data` differs.
    saved: ScenarioData,
    prolog: String,
    inner_comments: usize,
}

impl ScenarioFile {
    /// The file as a save would write it now.
    pub fn text(&self) -> String {
        scenario_xml::write(&self.data, &self.prolog)
    }

    fn is_edited(&self) -> bool {
        self.data != self.saved
    }
}

/// What [`Document::save`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveOutcome {
    Saved,
    /// Nothing written: the file has this many comments inside `<map>` that a save
    /// would drop. Save again with `drop_comments` to confirm.
    WouldDropComments(usize),
    /// Nothing written: an edited scenario has this many errors the engine reports
    /// ([`Document::scenario_errors`]). Save again with `drop_comments` (the author's
    /// yes to the save's question) to write it anyway.
    InvalidScenario(usize),
}

/// An error the engine reports in an edited scenario file, with the map's box its line
/// names, if any (so the question before saving can select it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub message: String,
    pub at_box: Option<usize>,
}

/// An open module with its editable map.
#[derive(Debug)]
pub struct Document {
    dir: PathBuf,
    /// The map file's path as the loader builds it (`dir` joined with the include).
    map_path: PathBuf,
    map: MapData,
    /// The map as last opened or saved: a save leaves the map file alone (and its
    /// comments) when only scenarios changed.
    saved_map: MapData,
    /// The files the last save wrote, with their text (the watcher ignores them).
    written: Vec<(PathBuf, String)>,
    prolog: String,
    inner_comments: usize,
    /// The comments inside `<map>`, written back before the items they stood before.
    map_comments: Vec<map_xml::Comment>,
    undo: Vec<Change>,
    redo: Vec<Change>,
    /// Source of [`Change`] ids.
    next_id: u64,
    /// The state id (see [`Document::state_id`]) last saved or opened.
    saved_state: u64,
    validation: Validation,
    /// Where each box and line sits in the map text `validation` checked; empty when
    /// the validation is of another text (see [`Document::set_validation`]).
    map_spans: Vec<map_xml::Span>,
    scenarios: Vec<ScenarioFile>,
    /// Scenario files that could not be read for editing, with why.
    scenario_problems: Vec<String>,
    /// The last module that loaded, kept while an edit breaks the module.
    last_module: Option<Arc<Module>>,
    /// Each scenario file's edited setup compiled against `last_module` (stated army
    /// maxima left out), for the overlay and the computed army maximum.
    live: Vec<Option<Scenario>>,
    /// For a setup that does not compile, the largest part of it that does (see
    /// [`scenario_live::compile_partial`]): the map still shows every good counter.
    partial: Vec<Option<Scenario>>,
    /// The module's own id.
    id: String,
    /// The base module whose map is shown, when the opened module (a mod) has none of
    /// its own: its id. Its map is never written (see [`Document::base_map`]).
    base: Option<String>,
    /// What the mod's `<remove>` and `<patch>` do to the shown map.
    changes: MapChanges,
}

impl Document {
    /// Opens the module in `dir` and the first map file it includes.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, DocumentError> {
        let dir = dir.as_ref().to_path_buf();
        let manifest_path = dir.join("module.xml");
        let text = read_text(&manifest_path)?;
        let bad = |message: String| DocumentError::Manifest {
            path: manifest_path.clone(),
            message,
        };
        let root = xml::parse(FileId(0), &text)
            .map_err(|e| bad(format!("{}:{}: {}", e.pos.line, e.pos.col, e.message)))?;
        let manifest: Manifest = de::from_element(&root).map_err(|e| bad(e.message))?;
        let mut map = None;
        let mut scenarios = Vec::new();
        let mut scenario_problems = Vec::new();
        for include in &manifest.include {
            let Some(rel) = muster_core::load::inside_module(&include.file.value) else {
                continue;
            };
            let path = dir.join(rel);
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue; // the validator reports missing files
            };
            if scenario_xml::is_scenario(&text) {
                match scenario_xml::read(&text) {
                    Ok(src) => scenarios.push(ScenarioFile {
                        path,
                        saved: src.data.clone(),
                        data: src.data,
                        prolog: src.prolog,
                        inner_comments: src.inner_comments,
                    }),
                    Err(e) => scenario_problems.push(format!("{}:{e}", path.display())),
                }
                continue;
            }
            let is_map = xml::parse(FileId(0), &text).is_ok_and(|r| r.name == "map");
            if !is_map || map.is_some() {
                continue;
            }
            let source = map_xml::read(&text).map_err(|source| DocumentError::Map {
                path: path.clone(),
                source,
            })?;
            map = Some((path, source));
        }
        // An overlay that keeps its base's board (a house-rule mod) shows that board: the
        // first `<map>` up its `extends` chain.
        let mut base = None;
        if map.is_none()
            && let Some((path, source, id)) = base_map(&dir, &manifest, MAX_BASES)?
        {
            map = Some((path, source));
            base = Some(id);
        }
        let Some((map_path, source)) = map else {
            return Err(DocumentError::NoMap(manifest.id));
        };
        let mut doc = Self {
            dir,
            map_path,
            saved_map: source.data.clone(),
            written: Vec::new(),
            map: source.data,
            prolog: source.prolog,
            inner_comments: source.inner_comments,
            map_comments: source.comments,
            undo: Vec::new(),
            redo: Vec::new(),
            next_id: 1,
            saved_state: 0,
            validation: Validation::default(),
            map_spans: Vec::new(),
            scenarios,
            scenario_problems,
            last_module: None,
            live: Vec::new(),
            partial: Vec::new(),
            id: manifest.id,
            base,
            changes: MapChanges::default(),
        };
        doc.revalidate();
        Ok(doc)
    }

    /// The module's scenario files, in include order.
    pub fn scenarios(&self) -> &[ScenarioFile] {
        &self.scenarios
    }

    /// The index of the scenario file whose scenario has id `id`.
    pub fn find_scenario(&self, id: &str) -> Option<usize> {
        self.scenarios
            .iter()
            .position(|s| s.data.id.eq_ignore_ascii_case(id))
    }

    /// Scenario files that could not be read for editing, each with its reason.
    pub fn scenario_problems(&self) -> &[String] {
        &self.scenario_problems
    }

    /// The last module that loaded (the current one, or the one before a breaking edit).
    pub fn last_module(&self) -> Option<&Arc<Module>> {
        self.last_module.as_ref()
    }

    /// Scenario file `index` as edited, compiled by the engine against
    /// [`Document::last_module`], without its stated army maxima; `None` while the
    /// edited setup does not compile (the validation panel says why).
    pub fn live_scenario(&self, index: usize) -> Option<&Scenario> {
        self.live.get(index).and_then(Option::as_ref)
    }

    /// What the map shows of scenario file `index`: the compiled setup, or when it does
    /// not compile, the part of it that does (one bad count hides only its own counter).
    pub fn shown_scenario(&self, index: usize) -> Option<&Scenario> {
        self.live_scenario(index)
            .or_else(|| self.partial.get(index).and_then(Option::as_ref))
    }

    /// Replaces scenario file `index`'s content as one undoable change.
    pub fn set_scenario(
        &mut self,
        index: usize,
        value: ScenarioData,
        label: impl Into<String>,
    ) -> Result<(), DocumentError> {
        let Some(file) = self.scenarios.get_mut(index) else {
            return Err(DocumentError::NoScenario(index));
        };
        if file.data == value {
            return Ok(());
        }
        let old = std::mem::replace(&mut file.data, value);
        self.undo.push(Change {
            id: self.next_id,
            label: label.into(),
            edits: Vec::new(),
            scenario_edits: vec![(index, old)],
        });
        self.next_id += 1;
        self.redo.clear();
        self.changed();
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The base module whose map is shown, when the opened mod has no map of its own.
    pub fn base_map(&self) -> Option<&str> {
        self.base.as_deref()
    }

    /// What the mod's `<remove>` and `<patch>` do to the shown map's boxes and lines.
    pub fn map_changes(&self) -> &MapChanges {
        &self.changes
    }

    /// Why the map may not be edited here: it is a base's, and the editor writes only
    /// the opened mod's own files (a mod changes its base's board with `<remove>` and
    /// `<patch>`, which it would have to write in place of the edit).
    pub fn base_map_refusal(&self) -> Option<String> {
        let base = self.base.as_deref()?;
        Some(format!(
            "the map is {base}'s ({}), shown under the mod '{}' with the mod's changes marked; the editor saves only the mod's own files, never its base's: write the change in the mod as a <patch> or <remove> (docs/module-format.md), or open {base} itself to edit its map",
            self.map_path.display(),
            self.id
        ))
    }

    pub fn map_path(&self) -> &Path {
        &self.map_path
    }

    pub fn map(&self) -> &MapData {
        &self.map
    }

    pub fn validation(&self) -> &Validation {
        &self.validation
    }

    /// Whether there are changes not yet saved.
    pub fn is_dirty(&self) -> bool {
        self.state_id() != self.saved_state
    }

    /// Names the current state: the id of the last change applied, 0 for as opened.
    fn state_id(&self) -> u64 {
        self.undo.last().map_or(0, |c| c.id)
    }

    pub fn undo_label(&self) -> Option<&str> {
        self.undo.last().map(|c| c.label.as_str())
    }

    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|c| c.label.as_str())
    }

    /// The map file as a save would write it now.
    pub fn map_text(&self) -> String {
        map_xml::write_kept(&self.map, &self.prolog, &self.map_comments)
    }

    /// Applies a change made of `edits`, records it for undo and rechecks the module.
    fn change(&mut self, label: impl Into<String>, edits: Vec<Edit>) -> Result<(), EditError> {
        if edits.is_empty() {
            return Ok(());
        }
        if let Some(message) = self.base_map_refusal() {
            return Err(EditError::BaseMap(message));
        }
        let undo = apply_all(&mut self.map, edits)?;
        self.undo.push(Change {
            id: self.next_id,
            label: label.into(),
            edits: undo,
            scenario_edits: Vec::new(),
        });
        self.next_id += 1;
        self.redo.clear();
        self.changed();
        Ok(())
    }

    fn changed(&mut self) {
        self.revalidate();
    }

    /// Reruns the engine's validator on the current (unsaved) map.
    pub fn revalidate(&mut self) {
        let mut overrides = Overrides::new();
        let (text, spans) = map_xml::write_spans_kept(&self.map, &self.prolog, &self.map_comments);
        overrides.insert(self.map_path.clone(), text);
        self.map_spans = spans;
        for s in self.scenarios.iter().filter(|s| s.is_edited()) {
            overrides.insert(s.path.clone(), s.text());
        }
        self.validation = validate::check_with(&self.dir, &overrides);
        tracing::debug!(errors = self.validation.errors().count(), "module checked");
        if let Some(m) = &self.validation.module {
            self.last_module = Some(m.clone());
        }
        self.changes = self
            .last_module
            .as_deref()
            .map(|m| MapChanges::of(m, &self.map))
            .unwrap_or_default();
        self.live = self
            .scenarios
            .iter()
            .map(|s| {
                let module = self.last_module.as_deref()?;
                scenario_live::compile(module, &s.path, &s.data)
            })
            .collect();
        self.partial = self
            .scenarios
            .iter()
            .zip(&self.live)
            .map(|(s, live)| {
                let module = self.last_module.as_deref()?;
                match live {
                    Some(_) => None,
                    None => scenario_live::compile_partial(module, &s.path, &s.data),
                }
            })
            .collect();
    }

    pub fn undo(&mut self) -> Result<bool, EditError> {
        self.step(true)
    }

    pub fn redo(&mut self) -> Result<bool, EditError> {
        self.step(false)
    }

    fn step(&mut self, back: bool) -> Result<bool, EditError> {
        let from = if back { &mut self.undo } else { &mut self.redo };
        let Some(change) = from.pop() else {
            return Ok(false);
        };
        let inverse = apply_all(&mut self.map, change.edits.clone());
        let inverse = match inverse {
            Ok(inv) => inv,
            Err(e) => {
                from.push(change);
                return Err(e);
            }
        };
        let mut scenario_inverse = Vec::with_capacity(change.scenario_edits.len());
        for (index, value) in change.scenario_edits.into_iter().rev() {
            if let Some(file) = self.scenarios.get_mut(index) {
                scenario_inverse.push((index, std::mem::replace(&mut file.data, value)));
            }
        }
        let to = if back { &mut self.redo } else { &mut self.undo };
        to.push(Change {
            id: change.id,
            label: change.label,
            edits: inverse,
            scenario_edits: scenario_inverse,
        });
        self.changed();
        Ok(true)
    }

    /// Replaces box `index` with `value`; a new name is carried to the lines that use
    /// the old one, so renaming keeps the map connected.
    pub fn set_box(&mut self, index: usize, value: BoxData) -> Result<(), EditError> {
        let Some(old) = self.map.boxes.get(index) else {
            return Err(EditError::Stale(Box::new(Edit::SetBox { index, value })));
        };
        if *old == value {
            return Ok(());
        }
        let label = if old.x != value.x || old.y != value.y {
            format!("move {}", old.name)
        } else {
            format!("edit {}", old.name)
        };
        let mut edits = Vec::new();
        if old.name != value.name {
            for (i, line) in self.map.lines.iter().enumerate() {
                let renamed = rename_in_line(line, &old.name, &value.name);
                if renamed != *line {
                    edits.push(Edit::SetLine {
                        index: i,
                        value: renamed,
                    });
                }
            }
        }
        edits.push(Edit::SetBox { index, value });
        self.change(label, edits)
    }

    /// Sets (or with `None` clears) the background scan, as one undoable change.
    pub fn set_background(&mut self, value: Option<BackgroundData>) -> Result<(), EditError> {
        if self.map.background == value {
            return Ok(());
        }
        self.change("edit background", vec![Edit::SetBackground(value)])
    }

    /// Moves box `index` to `(x, y)`.
    pub fn move_box(&mut self, index: usize, x: i32, y: i32) -> Result<(), EditError> {
        let Some(b) = self.map.boxes.get(index) else {
            return Err(EditError::Stale(Box::new(Edit::RemoveBox { index })));
        };
        let value = BoxData { x, y, ..b.clone() };
        self.set_box(index, value)
    }

    /// Moves several boxes as one change: `(index, x, y)` each.
    pub fn move_boxes(&mut self, moves: &[(usize, i32, i32)]) -> Result<(), EditError> {
        let mut edits = Vec::new();
        for &(index, x, y) in moves {
            let Some(b) = self.map.boxes.get(index) else {
                return Err(EditError::Stale(Box::new(Edit::RemoveBox { index })));
            };
            if (b.x, b.y) != (x, y) {
                let value = BoxData { x, y, ..b.clone() };
                edits.push(Edit::SetBox { index, value });
            }
        }
        let label = match moves {
            [(i, ..)] => format!("move {}", self.map.boxes[*i].name),
            _ => format!("move {} boxes", edits.len()),
        };
        self.change(label, edits)
    }

    /// Deletes several boxes and every line ending at one of them, as one change.
    pub fn delete_boxes(&mut self, indices: &[usize]) -> Result<(), EditError> {
        let mut indices = indices.to_vec();
        indices.sort_unstable();
        indices.dedup();
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.map.boxes.len()) {
            return Err(EditError::Stale(Box::new(Edit::RemoveBox { index: bad })));
        }
        let names: Vec<&str> = indices
            .iter()
            .map(|&i| self.map.boxes[i].name.as_str())
            .collect();
        let label = match names.as_slice() {
            [one] => format!("delete {one}"),
            _ => format!("delete {} boxes", names.len()),
        };
        let mut edits: Vec<Edit> = (0..self.map.lines.len())
            .rev()
            .filter(|&i| names.iter().any(|n| self.map.lines[i].touches(n)))
            .map(|index| Edit::RemoveLine { index })
            .collect();
        edits.extend(indices.iter().rev().map(|&index| Edit::RemoveBox { index }));
        self.change(label, edits)
    }

    /// Adds a neutral box with a fresh name at `(x, y)`; returns its index.
    pub fn add_box(&mut self, x: i32, y: i32) -> Result<usize, EditError> {
        let index = self.map.boxes.len();
        let value = BoxData {
            name: self.map.fresh_box_name("New box"),
            x,
            y,
            ..BoxData::default()
        };
        let label = format!("add {}", value.name);
        self.change(label, vec![Edit::InsertBox { index, value }])?;
        Ok(index)
    }

    /// Deletes box `index` and every line that ends at it.
    pub fn delete_box(&mut self, index: usize) -> Result<(), EditError> {
        let Some(b) = self.map.boxes.get(index) else {
            return Err(EditError::Stale(Box::new(Edit::RemoveBox { index })));
        };
        let label = format!("delete {}", b.name);
        let mut edits: Vec<Edit> = (0..self.map.lines.len())
            .rev()
            .filter(|&i| self.map.lines[i].touches(&b.name))
            .map(|index| Edit::RemoveLine { index })
            .collect();
        edits.push(Edit::RemoveBox { index });
        self.change(label, edits)
    }

    /// Adds a line of `kind` from box `a` to box `b`; for a flowing kind, `b` is taken
    /// as the downstream end (the user drew it with the flow).
    pub fn add_line(&mut self, a: usize, b: usize, kind: &str) -> Result<usize, EditError> {
        let (Some(from), Some(to)) = (self.map.boxes.get(a), self.map.boxes.get(b)) else {
            return Err(EditError::Stale(Box::new(Edit::RemoveBox {
                index: a.max(b),
            })));
        };
        let flows = self.map.find_kind(kind).is_some_and(|k| k.flows);
        let value = LineData {
            a: from.name.clone(),
            b: to.name.clone(),
            kind: kind.to_owned(),
            downstream: flows.then(|| to.name.clone()),
            ..LineData::default()
        };
        let label = format!("add {kind} {} - {}", from.name, to.name);
        let index = self.map.lines.len();
        self.change(label, vec![Edit::InsertLine { index, value }])?;
        Ok(index)
    }

    /// Replaces line `index` with `value` (kind, ends, direction, water border).
    pub fn set_line(&mut self, index: usize, value: LineData) -> Result<(), EditError> {
        let Some(old) = self.map.lines.get(index) else {
            return Err(EditError::Stale(Box::new(Edit::SetLine { index, value })));
        };
        if *old == value {
            return Ok(());
        }
        let label = if old.downstream != value.downstream && old.kind == value.kind {
            format!("reverse {} {} - {}", old.kind, old.a, old.b)
        } else {
            format!("edit {} {} - {}", old.kind, old.a, old.b)
        };
        self.change(label, vec![Edit::SetLine { index, value }])
    }

    /// Deletes line `index`.
    pub fn delete_line(&mut self, index: usize) -> Result<(), EditError> {
        let Some(l) = self.map.lines.get(index) else {
            return Err(EditError::Stale(Box::new(Edit::RemoveLine { index })));
        };
        let label = format!("delete {} {} - {}", l.kind, l.a, l.b);
        self.change(label, vec![Edit::RemoveLine { index }])
    }

    /// The errors the engine reports in the edited scenario files.
    pub fn scenario_errors(&self) -> Vec<ScenarioError> {
        let mut out = Vec::new();
        for s in self.scenarios.iter().filter(|s| s.is_edited()) {
            let text = s.text();
            for d in self.validation.errors() {
                let Some(at) = &d.location else { continue };
                let file = self.dir.join(&at.file);
                if file != s.path && !s.path.ends_with(&at.file) {
                    continue;
                }
                let at_box = text
                    .lines()
                    .nth((at.line as usize).saturating_sub(1))
                    .and_then(|line| {
                        let start = line.find("box=\"")? + 5;
                        let len = line[start..].find('"')?;
                        let name = line[start..start + len]
                            .replace("&quot;", "\"")
                            .replace("&lt;", "<")
                            .replace("&gt;", ">")
                            .replace("&amp;", "&");
                        self.map.find_box(&name)
                    });
                out.push(ScenarioError {
                    message: d.to_string(),
                    at_box,
                });
            }
        }
        out
    }

    /// Writes the map file atomically. Refuses (without writing) when an edited
    /// scenario has errors, or when the file has comments that would be lost (inside an
    /// edited scenario's root: those inside `<map>` are kept), unless `drop_comments`
    /// (the author's yes) is set.
    pub fn save(&mut self, drop_comments: bool) -> Result<SaveOutcome, DocumentError> {
        if !drop_comments {
            let errors = self.scenario_errors().len();
            if errors > 0 {
                return Ok(SaveOutcome::InvalidScenario(errors));
            }
        }
        let scenario_comments: usize = self
            .scenarios
            .iter()
            .filter(|s| s.is_edited())
            .map(|s| s.inner_comments)
            .sum();
        // A scenario-only edit leaves map.xml (and its comments) as it is.
        // (A save with nothing edited at all still writes the map, as it always has.)
        let scenario_edited = self.scenarios.iter().any(|s| s.is_edited());
        // A base's map is never written: edits to it are refused (see `change`).
        let map_edited = self.base.is_none()
            && (self.map != self.saved_map || self.saved_state == u64::MAX || !scenario_edited);
        let map_comments = if map_edited { self.inner_comments } else { 0 };
        let comments = map_comments + scenario_comments;
        if comments > 0 && !drop_comments {
            return Ok(SaveOutcome::WouldDropComments(comments));
        }
        self.written.clear();
        if map_edited {
            let text = self.map_text();
            write_atomic(&self.map_path, &text).map_err(|source| DocumentError::Write {
                path: self.map_path.clone(),
                source,
            })?;
            tracing::info!(path = %self.map_path.display(), "map saved");
            self.inner_comments = 0;
            self.saved_map = self.map.clone();
            self.written.push((self.map_path.clone(), text));
        }
        for s in self.scenarios.iter_mut().filter(|s| s.is_edited()) {
            let text = s.text();
            write_atomic(&s.path, &text).map_err(|source| DocumentError::Write {
                path: s.path.clone(),
                source,
            })?;
            self.written.push((s.path.clone(), text));
            tracing::info!(path = %s.path.display(), "scenario saved");
            s.saved = s.data.clone();
            s.inner_comments = 0;
        }
        self.saved_state = self.state_id();
        Ok(SaveOutcome::Saved)
    }
}

impl Document {
    /// The files the last save wrote, with the text written.
    pub fn written(&self) -> &[(PathBuf, String)] {
        &self.written
    }

    /// Reopens the module from disk, dropping undo history. On an error (a broken
    /// file) the document is left as it was.
    pub fn reload(&mut self) -> Result<(), DocumentError> {
        *self = Self::open(&self.dir)?;
        Ok(())
    }

    /// Replaces the map with `text` (an autosave being restored) as unsaved edits;
    /// undo history is dropped, since it led to the old map.
    pub fn restore_map_text(&mut self, text: &str) -> Result<(), DocumentError> {
        let source = map_xml::read(text).map_err(|source| DocumentError::Map {
            path: self.map_path.clone(),
            source,
        })?;
        self.map = source.data;
        self.prolog = source.prolog;
        self.inner_comments = source.inner_comments;
        self.map_comments = source.comments;
        self.undo.clear();
        self.redo.clear();
        // No state reachable from here is the file on disk.
        self.saved_state = u64::MAX;
        self.changed();
        Ok(())
    }

    /// Shows `validation` (the check of what is on disk after a reload failed)
    /// until the next change rechecks the document.
    pub fn set_validation(&mut self, validation: Validation) {
        self.validation = validation;
        self.map_spans.clear();
    }

    /// The box or line of the map a diagnostic points at, if it points into the map
    /// text the current validation checked.
    pub fn object_at(&self, at: &muster_core::diag::Location) -> Option<Selection> {
        let file = self.dir.join(&at.file);
        if file != self.map_path && !self.map_path.ends_with(&at.file) {
            return None;
        }
        self.map_spans
            .iter()
            .find(|s| (s.first..=s.last).contains(&at.line))
            .map(|s| s.object)
    }
}

/// A line with every mention of box `old` (ends, downstream, water border) renamed.
fn rename_in_line(line: &LineData, old: &str, new: &str) -> LineData {
    let swap = |s: &str| {
        if s.trim().eq_ignore_ascii_case(old) {
            new.to_owned()
        } else {
            s.to_owned()
        }
    };
    LineData {
        a: swap(&line.a),
        b: swap(&line.b),
        downstream: line.downstream.as_deref().map(swap),
        water_border: line
            .water_border
            .as_deref()
            .map(|w| w.split(';').map(swap).collect::<Vec<_>>().join(";")),
        ..line.clone()
    }
}

fn read_text(path: &Path) -> Result<String, DocumentError> {
    std::fs::read_to_string(path).map_err(|source| DocumentError::Read {
        path: path.to_path_buf(),
        source,
    })
}
/// How far up an `extends` chain [`base_map`] looks (the loader refuses deeper chains).
const MAX_BASES: usize = 8;

/// The map file of the module `manifest` (in `dir`) extends, or of its base in turn.
fn base_map(
    dir: &Path,
    manifest: &Manifest,
    depth: usize,
) -> Result<Option<(PathBuf, map_xml::MapSource, String)>, DocumentError> {
    let Some(ext) = &manifest.extends else {
        return Ok(None);
    };
    if depth == 0 {
        return Ok(None);
    }
    let rel = ext
        .path
        .as_ref()
        .map_or_else(|| format!("../{}", ext.module.value), |p| p.value.clone());
    // Named as the loader names it ("mods/ahd", not "mods/house/../ahd").
    let base = muster_core::diag::tidy(&dir.join(rel));
    let Ok(text) = std::fs::read_to_string(base.join("module.xml")) else {
        return Ok(None); // the validator reports a missing base
    };
    let Ok(root) = xml::parse(FileId(0), &text) else {
        return Ok(None);
    };
    let Ok(base_manifest) = de::from_element::<Manifest>(&root) else {
        return Ok(None);
    };
    for include in &base_manifest.include {
        let Some(rel) = muster_core::load::inside_module(&include.file.value) else {
            continue;
        };
        let path = base.join(rel);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if xml::parse(FileId(0), &text).is_ok_and(|r| r.name == "map") {
            let source = map_xml::read(&text).map_err(|source| DocumentError::Map {
                path: path.clone(),
                source,
            })?;
            return Ok(Some((path, source, base_manifest.id)));
        }
    }
    base_map(&base, &base_manifest, depth - 1)
}
