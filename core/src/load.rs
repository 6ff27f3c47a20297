//! Reading a module from disk: the manifest, its included files, and the base module
//! it extends. Produces raw [`Parts`] for [`crate::compile`]; nothing half-loaded escapes.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use crate::compile;
use crate::diag::{FileId, LoadError, Pos, Report, Severity, SourceFiles};
use crate::format::{self, Manifest};
use crate::module::{ENGINE_VERSION, Module, ScriptEntry};
use crate::scenario::Scenario;
use crate::suggest;
use crate::xml::{self, de};

/// How deep `extends` chains may go before we call it a mistake.
const MAX_EXTENDS_DEPTH: usize = 8;

/// The root elements a module file may have, besides the manifest's `<module>`.
const FILE_KINDS: &[&str] = &["sides", "map", "units", "calendar", "options", "scenario"];

/// Everything read from a module's files, still by name.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    /// Rule entry scripts, base first.
    pub scripts: Vec<ScriptEntry>,
    pub sides: Vec<format::Side>,
    pub resources: Vec<format::Resource>,
    pub map_size: Option<(u32, u32)>,
    pub map_neutral_color: Option<String>,
    /// The map's background scan; its file is checked to exist by [`read_module`].
    pub map_background: Option<format::Background>,
    pub kinds: Vec<format::LineKind>,
    pub tags: Vec<format::TagDef>,
    pub boxes: Vec<format::BoxDef>,
    pub lines: Vec<format::Line>,
    pub classes: Vec<format::Named>,
    pub qualities: Vec<format::Named>,
    pub markers: Vec<format::Named>,
    pub flags: Vec<format::Named>,
    pub units: Vec<format::UnitType>,
    pub calendar: Option<format::Calendar>,
    pub options: Vec<format::OptionRule>,
    pub scenarios: Vec<format::Scenario>,
}

/// File texts that stand in for what is on disk, keyed by path as the loader builds it
/// (`dir.join(include)`): an editor checks unsaved edits with the same validator.
pub type Overrides = HashMap<PathBuf, String>;

/// Loads and validates the module in `dir` (the folder holding `module.xml`).
pub fn load_module(dir: impl AsRef<Path>) -> Result<Module, LoadError> {
    load_module_with(dir, &Overrides::new())
}

/// [`load_module`], reading the files named in `overrides` from there instead of disk.
pub fn load_module_with(dir: impl AsRef<Path>, overrides: &Overrides) -> Result<Module, LoadError> {
    let dir = dir.as_ref();
    let mut files = SourceFiles::default();
    let mut report = Report::default();
    let mut seen = Vec::new();
    let read = read_module(dir, overrides, &mut files, &mut report, &mut seen);
    match read {
        Some((manifest, extends, parts)) if !report.has_errors() => {
            // Every module read (this one and its bases), base first.
            let dirs: Vec<PathBuf> = seen
                .iter()
                .rev()
                .filter_map(|m| m.parent().map(Path::to_path_buf))
                .collect();
            let mut module =
                compile::module(manifest, extends, dir.to_path_buf(), parts, files, report)?;
            module.content_hash = crate::hash::module_hash(&dirs);
            Ok(module)
        }
        _ => Err(LoadError {
            diagnostics: report.diagnostics,
        }),
    }
}

/// Loads one scenario file against a loaded module (for `--scenario path.xml`).
pub fn load_scenario_file(module: &Module, path: &Path) -> Result<Scenario, LoadError> {
    let mut files = module.files.clone();
    let mut report = Report::default();
    let parsed = read_xml(path, &Overrides::new(), &mut files, &mut report);
    scenario_from(module, parsed, files, report)
}

/// Loads a scenario from XML text (e.g. one embedded in a save), named `name` in errors.
pub fn load_scenario_str(module: &Module, name: &str, text: &str) -> Result<Scenario, LoadError> {
    let mut files = module.files.clone();
    let mut report = Report::default();
    let id = files.add(PathBuf::from(name));
    let parsed = match xml::parse(id, text) {
        Ok(root) => Some((root, id)),
        Err(e) => {
            report.push(&files, Severity::Error, Some(e.pos), e.message, None);
            None
        }
    };
    scenario_from(module, parsed, files, report)
}

fn scenario_from(
    module: &Module,
    parsed: Option<(xml::Element, FileId)>,
    files: SourceFiles,
    mut report: Report,
) -> Result<Scenario, LoadError> {
    let scenario = parsed.and_then(|(root, _)| {
        if root.name != "scenario" {
            report.push(
                &files,
                Severity::Error,
                Some(root.pos),
                format!("expected a <scenario> file, found <{}>", root.name),
                None,
            );
            return None;
        }
        deserialize::<format::Scenario>(&root, &files, &mut report)
    });
    let compiled = scenario
        .and_then(|raw| compile::scenario(module, &raw, &files, &mut report, &module.scenarios));
    match compiled {
        Some(s) if !report.has_errors() => Ok(s),
        _ => Err(LoadError {
            diagnostics: report.diagnostics,
        }),
    }
}

fn read_module(
    dir: &Path,
    overrides: &Overrides,
    files: &mut SourceFiles,
    report: &mut Report,
    seen: &mut Vec<PathBuf>,
) -> Option<(Manifest, Vec<String>, Parts)> {
    let path = dir.join("module.xml");
    if !path.is_file() {
        let hint = if dir.is_dir() {
            "a module folder holds a module.xml manifest"
        } else {
            "give the folder that holds the module's module.xml"
        };
        report.push(
            files,
            Severity::Error,
            None,
            format!(
                "no module at '{}': {} not found",
                dir.display(),
                path.display()
            ),
            Some(hint.into()),
        );
        return None;
    }
    seen.push(path.canonicalize().unwrap_or_else(|_| path.clone()));
    let (root, _) = read_xml(&path, overrides, files, report)?;
    if root.name != "module" {
        report.push(
            files,
            Severity::Error,
            Some(root.pos),
            format!(
                "module.xml must have <module> as its root, not <{}>",
                root.name
            ),
            None,
        );
        return None;
    }
    let manifest: Manifest = deserialize(&root, files, report)?;
    check_engine(&manifest, files, report);

    let mut extends = Vec::new();
    let mut parts = Parts::default();
    if let Some(ext) = &manifest.extends {
        let rel = ext
            .path
            .as_ref()
            .map_or_else(|| format!("../{}", ext.module.value), |p| p.value.clone());
        let base_dir = dir.join(&rel);
        let base_manifest = base_dir.join("module.xml");
        let canonical = base_manifest.canonicalize().unwrap_or(base_manifest);
        if seen.contains(&canonical) {
            report.push(
                files,
                Severity::Error,
                Some(ext.pos),
                format!("module '{}' extends itself through '{rel}'", manifest.id),
                Some("remove the <extends> that closes the loop".into()),
            );
            return None;
        }
        if seen.len() > MAX_EXTENDS_DEPTH {
            report.push(
                files,
                Severity::Error,
                Some(ext.pos),
                format!("more than {MAX_EXTENDS_DEPTH} modules extend one another"),
                None,
            );
            return None;
        }
        let errors_before = report.diagnostics.len();
        let base = read_module(&base_dir, overrides, files, report, seen);
        let Some((base, base_extends, base_parts)) = base else {
            if report.diagnostics.len() > errors_before {
                return None; // the base's own errors say what is wrong
            }
            report.push(
                files,
                Severity::Error,
                Some(ext.module.pos),
                format!(
                    "cannot load base module '{}' from '{}'",
                    ext.module.value,
                    base_dir.display()
                ),
                Some("set path=\"...\" on <extends> to the base module's folder".into()),
            );
            return None;
        };
        if base.id != ext.module.value {
            report.push(
                files,
                Severity::Error,
                Some(ext.module.pos),
                format!(
                    "folder '{}' holds module '{}', not '{}'",
                    base_dir.display(),
                    base.id,
                    ext.module.value
                ),
                Some(format!(
                    "write module=\"{}\" or point path at the right folder",
                    base.id
                )),
            );
        }
        extends.push(base.id);
        extends.extend(base_extends);
        parts = base_parts;
    }

    let mut own = Parts::default();
    if let Some(rules) = &manifest.rules {
        match inside_module(&rules.entry) {
            Some(rel) if dir.join(&rel).is_file() => own.scripts.push(ScriptEntry {
                module: manifest.id.clone(),
                dir: dir.to_path_buf(),
                entry: rel.to_string_lossy().replace('\\', "/"),
            }),
            Some(rel) => report.push(
                files,
                Severity::Error,
                Some(rules.entry.pos),
                format!("rules entry '{}' does not exist", rules.entry.value),
                sibling_hint(dir, &rel),
            ),
            None => report.push(
                files,
                Severity::Error,
                Some(rules.entry.pos),
                format!(
                    "'{}' is not a path inside the module folder",
                    rules.entry.value
                ),
                Some("use a path relative to the module folder, without ..".into()),
            ),
        }
    }
    let mut included = HashSet::new();
    for inc in &manifest.include {
        let Some(rel) = inside_module(&inc.file.value) else {
            report.push(
                files,
                Severity::Error,
                Some(inc.file.pos),
                format!(
                    "'{}' is not a path inside the module folder",
                    inc.file.value
                ),
                Some("use a path relative to the module folder, without ..".into()),
            );
            continue;
        };
        if !included.insert(rel.clone()) {
            report.push(
                files,
                Severity::Error,
                Some(inc.file.pos),
                format!("'{}' is included twice", inc.file.value),
                Some("remove one <include>".into()),
            );
            continue;
        }
        let file = dir.join(&rel);
        if !file.is_file() && !overrides.contains_key(&file) {
            report.push(
                files,
                Severity::Error,
                Some(inc.file.pos),
                format!("included file '{}' does not exist", inc.file.value),
                sibling_hint(dir, &rel),
            );
            continue;
        }
        if let Some((root, _)) = read_xml(&file, overrides, files, report) {
            add_file(&root, files, report, &mut own);
        }
    }
    if let Some(bg) = &own.map_background {
        check_background(dir, bg, files, report);
    }
    merge(&mut parts, own);
    Some((manifest, extends, parts))
}

/// Reports a background image path that leaves the module or names no file.
fn check_background(dir: &Path, bg: &format::Background, files: &SourceFiles, report: &mut Report) {
    let path = &bg.image;
    match inside_module(&path.value) {
        Some(rel) if dir.join(&rel).is_file() => {}
        Some(rel) => report.push(
            files,
            Severity::Error,
            Some(path.pos),
            format!("background image '{}' does not exist", path.value),
            sibling_hint(dir, &rel),
        ),
        None => report.push(
            files,
            Severity::Error,
            Some(path.pos),
            format!("'{}' is not a path inside the module folder", path.value),
            Some("use a path relative to the module folder, without ..".into()),
        ),
    }
}

/// A relative path with no `..` (and without `.` parts), or `None`: where an include
/// may point inside its module (the editor resolves includes the same way).
pub fn inside_module(rel: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// `did you mean 'folder/file.xml'?` from the files beside a missing one.
fn sibling_hint(dir: &Path, rel: &Path) -> Option<String> {
    let name = rel.file_name()?.to_str()?;
    let folder = rel.parent().unwrap_or(Path::new(""));
    let entries = std::fs::read_dir(dir.join(folder)).ok()?;
    let names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let near = suggest::closest(name, names.iter().map(String::as_str))?;
    Some(format!("did you mean '{}'?", folder.join(near).display()))
}

/// Reads and parses one XML file, registering it for positions.
fn read_xml(
    path: &Path,
    overrides: &Overrides,
    files: &mut SourceFiles,
    report: &mut Report,
) -> Option<(xml::Element, FileId)> {
    let id = files.add(path.to_path_buf());
    if let Some(text) = overrides.get(path) {
        return match xml::parse(id, text) {
            Ok(root) => Some((root, id)),
            Err(e) => {
                report.push(files, Severity::Error, Some(e.pos), e.message, None);
                None
            }
        };
    }
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let (line, col) = line_col(e.as_bytes(), e.utf8_error().valid_up_to());
                report.push(
                    files,
                    Severity::Error,
                    Some(Pos {
                        file: id,
                        line,
                        col,
                    }),
                    "the file is not valid UTF-8".into(),
                    Some("save it as UTF-8".into()),
                );
                return None;
            }
        },
        Err(e) => {
            report.push(
                files,
                Severity::Error,
                None,
                format!("cannot read {}: {e}", path.display()),
                None,
            );
            return None;
        }
    };
    match xml::parse(id, &text) {
        Ok(root) => Some((root, id)),
        Err(e) => {
            report.push(files, Severity::Error, Some(e.pos), e.message, None);
            None
        }
    }
}

/// The module's `engine="MAJOR.MINOR"` must match this engine's major and minor.
fn check_engine(manifest: &Manifest, files: &SourceFiles, report: &mut Report) {
    let mine: Vec<&str> = ENGINE_VERSION.split('.').take(2).collect();
    let wanted: Vec<&str> = manifest.engine.split('.').map(str::trim).collect();
    let parses = wanted.len() == 2 && wanted.iter().all(|p| p.parse::<u32>().is_ok());
    let (message, hint) = if !parses {
        (
            format!(
                "engine=\"{}\" is not a version like 0.1",
                manifest.engine.value
            ),
            None,
        )
    } else if wanted != mine {
        (
            format!(
                "module '{}' needs engine {}, but this is muster {ENGINE_VERSION}",
                manifest.id, manifest.engine.value
            ),
            Some(format!(
                "use muster {}.x, or port the module",
                wanted.join(".")
            )),
        )
    } else {
        return;
    };
    report.push(
        files,
        Severity::Error,
        Some(manifest.engine.pos),
        message,
        hint,
    );
}

fn line_col(bytes: &[u8], offset: usize) -> (u32, u32) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(col).unwrap_or(u32::MAX),
    )
}

fn deserialize<T: serde::de::DeserializeOwned>(
    root: &xml::Element,
    files: &SourceFiles,
    report: &mut Report,
) -> Option<T> {
    match de::from_element::<T>(root) {
        Ok(v) => Some(v),
        Err(e) => {
            report.push(
                files,
                Severity::Error,
                e.pos.or(Some(root.pos)),
                e.message,
                e.hint,
            );
            None
        }
    }
}

/// Files the parts of one included file by its root element.
fn add_file(root: &xml::Element, files: &SourceFiles, report: &mut Report, parts: &mut Parts) {
    match root.name.as_str() {
        "sides" => {
            if let Some(s) = deserialize::<format::Sides>(root, files, report) {
                parts.sides.extend(s.side);
                parts.resources.extend(s.resource);
            }
        }
        "map" => {
            if let Some(m) = deserialize::<format::Map>(root, files, report) {
                if let (Some(w), Some(h)) = (m.width, m.height) {
                    parts.map_size = Some((w, h));
                }
                if m.neutral_color.is_some() {
                    parts.map_neutral_color = m.neutral_color;
                }
                if m.background.is_some() {
                    parts.map_background = m.background;
                }
                parts.kinds.extend(m.line_kind);
                parts.tags.extend(m.tag);
                parts.boxes.extend(m.boxes);
                parts.lines.extend(m.line);
            }
        }
        "units" => {
            if let Some(u) = deserialize::<format::Units>(root, files, report) {
                parts.classes.extend(u.class);
                parts.qualities.extend(u.quality);
                parts.markers.extend(u.marker);
                parts.flags.extend(u.flag);
                parts.units.extend(u.unit);
            }
        }
        "calendar" => {
            if let Some(c) = deserialize::<format::Calendar>(root, files, report) {
                if let Some(first) = &parts.calendar {
                    report.push(
                        files,
                        Severity::Error,
                        Some(c.pos),
                        "a second <calendar>; a module has one".into(),
                        Some(format!("the first is at {}", files.locate(first.pos))),
                    );
                } else {
                    parts.calendar = Some(c);
                }
            }
        }
        "options" => {
            if let Some(o) = deserialize::<format::Options>(root, files, report) {
                parts.options.extend(o.option);
            }
        }
        "scenario" => {
            if let Some(s) = deserialize::<format::Scenario>(root, files, report) {
                parts.scenarios.push(s);
            }
        }
        other => {
            let hint = suggest::did_you_mean(other, FILE_KINDS.iter().copied()).or_else(|| {
                Some(format!(
                    "a module file's root is one of <{}>",
                    FILE_KINDS.join(">, <")
                ))
            });
            report.push(
                files,
                Severity::Error,
                Some(root.pos),
                format!("unknown kind of module file <{other}>"),
                hint,
            );
        }
    }
}

/// Overlays `own` on the base module's parts: an item with the key of a base item
/// replaces it; anything else is added (so a duplicate within one module stays a
/// duplicate and is reported by the compiler).
fn merge(base: &mut Parts, own: Parts) {
    let lower = |s: &str| s.to_lowercase();
    base.scripts.extend(own.scripts);
    merge_by(&mut base.sides, own.sides, |s| lower(&s.id));
    merge_by(&mut base.resources, own.resources, |r| lower(&r.id));
    if own.map_size.is_some() {
        base.map_size = own.map_size;
    }
    if own.map_neutral_color.is_some() {
        base.map_neutral_color = own.map_neutral_color;
    }
    if own.map_background.is_some() {
        base.map_background = own.map_background;
    }
    merge_by(&mut base.kinds, own.kinds, |k| lower(&k.id));
    merge_by(&mut base.tags, own.tags, |t| lower(&t.id));
    merge_by(&mut base.boxes, own.boxes, |b| lower(&b.name));
    merge_by(&mut base.lines, own.lines, |l| {
        let (a, b) = (lower(&l.a), lower(&l.b));
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        format!("{a}\u{0}{b}\u{0}{}", lower(&l.kind))
    });
    merge_by(&mut base.classes, own.classes, |c| lower(&c.id));
    merge_by(&mut base.qualities, own.qualities, |q| lower(&q.id));
    merge_by(&mut base.markers, own.markers, |m| lower(&m.id));
    merge_by(&mut base.flags, own.flags, |f| lower(&f.id));
    merge_by(&mut base.units, own.units, |u| lower(&u.id));
    if let Some(cal) = own.calendar {
        base.calendar = Some(cal);
    }
    merge_by(&mut base.options, own.options, |o| lower(&o.id));
    merge_by(&mut base.scenarios, own.scenarios, |s| lower(&s.id));
}

fn merge_by<T>(base: &mut Vec<T>, own: Vec<T>, key: impl Fn(&T) -> String) {
    let originals = base.len();
    let mut replaced = vec![false; originals];
    for item in own {
        let k = key(&item);
        let slot = (0..originals).find(|&i| !replaced[i] && key(&base[i]) == k);
        match slot {
            Some(i) => {
                base[i] = item;
                replaced[i] = true;
            }
            None => base.push(item),
        }
    }
}
