//! Reading a module from disk: the manifest, its included files, and the base module
//! it extends. Produces raw [`Parts`] for [`crate::compile`]; nothing half-loaded escapes.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use crate::compile;
use crate::diag::{Ctx, FileId, LoadError, Pos, Report, SourceFiles, tidy};
use crate::format::{self, Manifest};
use crate::module::{ENGINE_VERSION, Module, ScriptEntry, StackEntry};
use crate::overlay::{CHANGE_ROOTS, ItemKind, Layer, Value};
use crate::scenario::Scenario;
use crate::suggest;
use crate::xml::{self, de};

/// How deep `extends` chains may go before we call it a mistake.
const MAX_EXTENDS_DEPTH: usize = 8;

/// The root elements a module file may have, besides the manifest's `<module>`.
const FILE_KINDS: &[&str] = &[
    "sides", "map", "units", "calendar", "options", "tables", "scenario", "changes",
];

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
    /// The map's backdrop file, read by [`read_module`] from the module that names it.
    pub map_backdrop: Option<format::Backdrop>,
    pub kinds: Vec<format::LineKind>,
    pub tags: Vec<format::TagDef>,
    pub box_values: Vec<format::Named>,
    pub tallies: Vec<format::Tally>,
    pub seats: Vec<format::Seat>,
    pub boxes: Vec<format::BoxDef>,
    pub lines: Vec<format::Line>,
    pub classes: Vec<format::Named>,
    pub qualities: Vec<format::Named>,
    pub markers: Vec<format::Named>,
    pub flags: Vec<format::Named>,
    pub units: Vec<format::UnitType>,
    pub calendar: Option<format::Calendar>,
    pub options: Vec<format::OptionRule>,
    pub tables: Vec<format::TableDef>,
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
    load_stack_with(dir, &[] as &[PathBuf], overrides)
}

/// Loads the module in `base` with each mod in `mods` laid on it in order (`muster
/// --mod`). A mod's `<extends>` must name the base or a mod before it in the stack (its
/// `path` is not followed); the module returned records the stack in
/// [`Module::stack`], lowest first.
pub fn load_stack<P: AsRef<Path>>(base: impl AsRef<Path>, mods: &[P]) -> Result<Module, LoadError> {
    load_stack_with(base, mods, &Overrides::new())
}

/// [`load_stack`], reading the files named in `overrides` from there instead of disk.
pub fn load_stack_with<P: AsRef<Path>>(
    base: impl AsRef<Path>,
    mods: &[P],
    overrides: &Overrides,
) -> Result<Module, LoadError> {
    let dir = base.as_ref();
    let mut files = SourceFiles::default();
    let mut report = Report::default();
    let mut cx = Ctx {
        files: &mut files,
        report: &mut report,
    };
    let mut seen = Vec::new();
    let mut loaded = read_module(&mut cx, dir, overrides, &mut seen);
    for m in mods {
        let Some(below) = loaded.as_mut() else { break };
        if !stack_mod(&mut cx, below, m.as_ref(), overrides) {
            loaded = None;
        }
    }
    let Some(loaded) = loaded.filter(|_| !cx.report.has_errors()) else {
        return Err(LoadError {
            diagnostics: report.diagnostics,
        });
    };
    let Loaded {
        manifest,
        extends,
        layer,
        stack,
    } = loaded;
    let (entries, dirs): (Vec<StackEntry>, Vec<PathBuf>) = stack.into_iter().unzip();
    let top = dirs.last().cloned().unwrap_or_else(|| dir.to_path_buf());
    let (parts, removals) = layer.into_parts(&mut cx);
    if report.has_errors() {
        // A patched item that does not read is left out: compiling would only add
        // errors about it being missing.
        return Err(LoadError {
            diagnostics: report.diagnostics,
        });
    }
    let compiled = compile::module(manifest, extends, top, parts, files, report);
    match compiled {
        Ok(mut module) => {
            // One module's own hash is its whole hash: its files are read once.
            module.content_hash = match entries.as_slice() {
                [only] => only.content_hash,
                _ => crate::hash::module_hash(&dirs),
            };
            module.stack = entries;
            module.removed = removals.removed();
            module.patched = removals.patched();
            Ok(module)
        }
        Err(mut e) => {
            removals.explain_dangling(&mut e.diagnostics);
            removals.blame_patches(&mut e.diagnostics);
            Err(e)
        }
    }
}

/// Loads one scenario file against a loaded module (for `--scenario path.xml`).
pub fn load_scenario_file(module: &Module, path: &Path) -> Result<Scenario, LoadError> {
    let mut files = module.files.clone();
    let mut report = Report::default();
    let mut cx = Ctx {
        files: &mut files,
        report: &mut report,
    };
    let parsed = read_xml(&mut cx, path, &Overrides::new());
    scenario_from(&mut cx, module, parsed).ok_or(LoadError {
        diagnostics: report.diagnostics,
    })
}

/// Loads a scenario from XML text (e.g. one embedded in a save), named `name` in errors.
pub fn load_scenario_str(module: &Module, name: &str, text: &str) -> Result<Scenario, LoadError> {
    let mut files = module.files.clone();
    let mut report = Report::default();
    let mut cx = Ctx {
        files: &mut files,
        report: &mut report,
    };
    let id = cx.files.add(PathBuf::from(name));
    let parsed = match xml::parse(id, text) {
        Ok(root) => Some((root, id)),
        Err(e) => {
            cx.error(e.pos, e.message, None);
            None
        }
    };
    scenario_from(&mut cx, module, parsed).ok_or(LoadError {
        diagnostics: report.diagnostics,
    })
}

/// The scenario in a parsed file, compiled; `None` if anything was reported.
fn scenario_from(
    cx: &mut Ctx<'_>,
    module: &Module,
    parsed: Option<(xml::Element, FileId)>,
) -> Option<Scenario> {
    let scenario = parsed.and_then(|(root, _)| {
        if root.name != "scenario" {
            cx.error(
                root.pos,
                format!("expected a <scenario> file, found <{}>", root.name),
                None,
            );
            return None;
        }
        deserialize::<format::Scenario>(cx, &root)
    });
    let compiled = scenario.and_then(|raw| compile::scenario(cx, module, &raw, &module.scenarios));
    compiled.filter(|_| !cx.report.has_errors())
}

/// A module read with everything below it: the top's manifest, the ids below it
/// (nearest first), the merged items, and the stack with each module's folder.
struct Loaded {
    manifest: Manifest,
    extends: Vec<String>,
    layer: Layer,
    stack: Vec<(StackEntry, PathBuf)>,
}

/// Reads the module in `dir` and, first, the module it extends (by its `path`).
fn read_module(
    cx: &mut Ctx<'_>,
    dir: &Path,
    overrides: &Overrides,
    seen: &mut Vec<PathBuf>,
) -> Option<Loaded> {
    let (manifest, mut own) = read_own(cx, dir, overrides, seen)?;
    let entry = stack_entry(&manifest, dir);
    let Some(ext) = &manifest.extends else {
        own.refuse_changes(cx, &manifest.id);
        check_requires(cx, &manifest, &[]);
        return Some(Loaded {
            manifest,
            extends: Vec::new(),
            layer: own,
            stack: vec![entry],
        });
    };
    let rel = ext
        .path
        .as_ref()
        .map_or_else(|| format!("../{}", ext.module.value), |p| p.value.clone());
    let base_dir = dir.join(&rel);
    let base_manifest = base_dir.join("module.xml");
    let canonical = base_manifest.canonicalize().unwrap_or(base_manifest);
    if seen.contains(&canonical) {
        cx.error(
            ext.pos,
            format!("module '{}' extends itself through '{rel}'", manifest.id),
            Some("remove the <extends> that closes the loop".into()),
        );
        return None;
    }
    if seen.len() > MAX_EXTENDS_DEPTH {
        cx.error(
            ext.pos,
            format!("more than {MAX_EXTENDS_DEPTH} modules extend one another"),
            None,
        );
        return None;
    }
    if !base_dir.join("module.xml").is_file() {
        let at = ext.path.as_ref().map_or(ext.module.pos, |p| p.pos);
        cx.error(
            at,
            format!(
                "<extends> finds no base module at '{rel}' ({} not found)",
                tidy(&base_dir.join("module.xml")).display()
            ),
            Some(missing_base_hint(&base_dir, &rel, ext.path.is_some())),
        );
        return None;
    }
    let errors_before = cx.report.diagnostics.len();
    let Some(mut base) = read_module(cx, &base_dir, overrides, seen) else {
        if cx.report.diagnostics.len() > errors_before {
            return None; // the base's own errors say what is wrong
        }
        cx.error(
            ext.module.pos,
            format!(
                "cannot load base module '{}' from '{}'",
                ext.module.value,
                base_dir.display()
            ),
            Some("set path=\"...\" on <extends> to the base module's folder".into()),
        );
        return None;
    };
    if base.manifest.id != ext.module.value {
        cx.error(
            ext.module.pos,
            format!(
                "folder '{}' holds module '{}', not '{}'",
                base_dir.display(),
                base.manifest.id,
                ext.module.value
            ),
            Some(format!(
                "write module=\"{}\" or point path at the right folder",
                base.manifest.id
            )),
        );
    }
    lay_on(cx, &mut base, manifest, own, entry);
    Some(base)
}

/// For an `<extends>` that finds no module: a module folder beside the one named, if
/// one is spelt alike (`did you mean path="../ahd"?`), or what the path is relative to.
fn missing_base_hint(base_dir: &Path, rel: &str, written: bool) -> String {
    let folders: Vec<String> = base_dir
        .parent()
        .and_then(|p| std::fs::read_dir(p).ok())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("module.xml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    let name = base_dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if let Some(near) = suggest::closest(name, folders.iter().map(String::as_str)) {
        let path = Path::new(rel).with_file_name(near);
        return format!("did you mean path=\"{}\"?", path.display());
    }
    if written {
        "path is relative to this module's folder: give the base module's folder".into()
    } else {
        "without path=\"...\", the base is looked for in a folder of its id beside this module's: set path to the base module's folder".into()
    }
}

/// Lays a module read from `dir` on a stack already loaded (`muster --mod`); its
/// `<extends>` must name a module in the stack. False if it could not be read.
fn stack_mod(cx: &mut Ctx<'_>, below: &mut Loaded, dir: &Path, overrides: &Overrides) -> bool {
    let mut seen = Vec::new();
    let Some((manifest, mut own)) = read_own(cx, dir, overrides, &mut seen) else {
        return false;
    };
    let ids = || {
        below
            .stack
            .iter()
            .map(|(e, _)| e.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some((same, _)) = below
        .stack
        .iter()
        .find(|(e, _)| e.id.eq_ignore_ascii_case(&manifest.id))
    {
        cx.error(
            manifest.pos,
            format!("module '{}' is already in the stack ({})", same.id, ids()),
            Some("give each mod once".into()),
        );
        return false;
    }
    match &manifest.extends {
        None => {
            own.refuse_changes(cx, &manifest.id);
            cx.error(
                manifest.pos,
                format!(
                    "module '{}' extends no module, so it cannot be stacked as a mod",
                    manifest.id
                ),
                Some(format!(
                    "add <extends module=\"{}\"/> to its module.xml",
                    below.manifest.id
                )),
            );
            return false;
        }
        Some(ext)
            if !below
                .stack
                .iter()
                .any(|(e, _)| e.id.eq_ignore_ascii_case(&ext.module.value)) =>
        {
            cx.error(
                ext.module.pos,
                format!(
                    "module '{}' extends '{}', which is not in the stack ({})",
                    manifest.id,
                    ext.module.value,
                    ids()
                ),
                Some(format!(
                    "load '{}' first (as the base or an earlier --mod)",
                    ext.module.value
                )),
            );
            return false;
        }
        Some(_) => {}
    }
    let entry = stack_entry(&manifest, dir);
    lay_on(cx, below, manifest, own, entry);
    true
}

/// Lays one module's own items and changes on everything below it.
fn lay_on(
    cx: &mut Ctx<'_>,
    below: &mut Loaded,
    manifest: Manifest,
    own: Layer,
    entry: (StackEntry, PathBuf),
) {
    let entries: Vec<StackEntry> = below.stack.iter().map(|(e, _)| e.clone()).collect();
    check_requires(cx, &manifest, &entries);
    below.layer.overlay(cx, own);
    let id = std::mem::replace(&mut below.manifest, manifest).id;
    below.extends.insert(0, id);
    below.stack.push(entry);
}

/// A module's place in a stack; its hash covers its own folder's files only.
fn stack_entry(manifest: &Manifest, dir: &Path) -> (StackEntry, PathBuf) {
    let entry = StackEntry {
        id: manifest.id.clone(),
        version: manifest.version.clone(),
        content_hash: crate::hash::module_hash(&[dir.to_path_buf()]),
        dir: crate::diag::tidy(dir),
    };
    (entry, dir.to_path_buf())
}

/// Checks each `<requires>` of a module against the modules loaded below it.
fn check_requires(cx: &mut Ctx<'_>, manifest: &Manifest, below: &[StackEntry]) {
    for r in &manifest.requires {
        let req = match semver::VersionReq::parse(&r.version.value) {
            Ok(req) => req,
            Err(e) => {
                cx.error(
                    r.version.pos,
                    format!("'{}' is not a version requirement: {e}", r.version.value),
                    Some("write e.g. version=\">=0.1, <0.2\"".into()),
                );
                continue;
            }
        };
        let wanted = &r.module.value;
        let Some(found) = below.iter().find(|e| e.id.eq_ignore_ascii_case(wanted)) else {
            let ids: Vec<&str> = below.iter().map(|e| e.id.as_str()).collect();
            let hint = suggest::did_you_mean(wanted, ids.iter().copied()).or_else(|| {
                Some(if ids.is_empty() {
                    format!("extend '{wanted}' or stack this mod on it")
                } else {
                    format!("the modules below it are: {}", ids.join(", "))
                })
            });
            cx.error(
                r.module.pos,
                format!(
                    "module '{}' requires module '{wanted}', which is not loaded below it",
                    manifest.id
                ),
                hint,
            );
            continue;
        };
        match semver::Version::parse(&found.version) {
            Ok(v) if req.matches(&v) => {}
            Ok(_) => cx.error(r.version.pos, format!(
                    "module '{}' requires {} {req}, but the {} loaded is version {}",
                    manifest.id, found.id, found.id, found.version
                ), Some(format!(
                    "use a version of '{}' that matches, or change the requirement",
                    found.id
                ))),
            Err(_) => cx.error(r.version.pos, format!(
                    "module '{}' requires {} {req}, but its version '{}' is not a version like 0.1.0",
                    manifest.id, found.id, found.version
                ), None),
        }
    }
}

/// Reads a module's manifest and its own files, not what it extends.
fn read_own(
    cx: &mut Ctx<'_>,
    dir: &Path,
    overrides: &Overrides,
    seen: &mut Vec<PathBuf>,
) -> Option<(Manifest, Layer)> {
    let path = dir.join("module.xml");
    if !path.is_file() {
        let hint = if dir.is_dir() {
            "a module folder holds a module.xml manifest"
        } else {
            "give the folder that holds the module's module.xml"
        };
        cx.error_unplaced(
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
    let (root, _) = read_xml(cx, &path, overrides)?;
    if root.name != "module" {
        cx.error(
            root.pos,
            format!(
                "module.xml must have <module> as its root, not <{}>",
                root.name
            ),
            None,
        );
        return None;
    }
    let manifest: Manifest = deserialize(cx, &root)?;
    check_engine(cx, &manifest);

    let mut own = Layer::default();
    if let Some(rules) = &manifest.rules {
        match inside_module(&rules.entry) {
            Some(rel) if dir.join(&rel).is_file() => own.scripts.push(ScriptEntry {
                module: manifest.id.clone(),
                dir: dir.to_path_buf(),
                entry: rel.to_string_lossy().replace('\\', "/"),
            }),
            Some(rel) => cx.error(
                rules.entry.pos,
                format!("rules entry '{}' does not exist", rules.entry.value),
                sibling_hint(dir, &rel),
            ),
            None => cx.error(
                rules.entry.pos,
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
            cx.error(
                inc.file.pos,
                format!(
                    "'{}' is not a path inside the module folder",
                    inc.file.value
                ),
                Some("use a path relative to the module folder, without ..".into()),
            );
            continue;
        };
        if !included.insert(rel.clone()) {
            cx.error(
                inc.file.pos,
                format!("'{}' is included twice", inc.file.value),
                Some("remove one <include>".into()),
            );
            continue;
        }
        let file = dir.join(&rel);
        if !file.is_file() && !overrides.contains_key(&file) {
            cx.error(
                inc.file.pos,
                format!("included file '{}' does not exist", inc.file.value),
                sibling_hint(dir, &rel),
            );
            continue;
        }
        if let Some((root, _)) = read_xml(cx, &file, overrides) {
            add_file(cx, root, &mut own);
        }
    }
    if let Some(bg) = &own.map_background {
        check_background(cx, dir, bg);
    }
    if let Some(r) = own.map_backdrop_ref.take() {
        own.map_backdrop = read_backdrop(cx, dir, &r, overrides);
    }
    Some((manifest, own))
}

/// Reports a background image path that leaves the module or names no file.
fn check_background(cx: &mut Ctx<'_>, dir: &Path, bg: &format::Background) {
    let path = &bg.image;
    match inside_module(&path.value) {
        Some(rel) if dir.join(&rel).is_file() => {}
        Some(rel) => cx.error(
            path.pos,
            format!("background image '{}' does not exist", path.value),
            sibling_hint(dir, &rel),
        ),
        None => cx.error(
            path.pos,
            format!("'{}' is not a path inside the module folder", path.value),
            Some("use a path relative to the module folder, without ..".into()),
        ),
    }
}

/// Reads the backdrop file `r` names (relative to the module folder `dir`); its errors
/// are reported where they are, and a missing or broken file gives no backdrop.
fn read_backdrop(
    cx: &mut Ctx<'_>,
    dir: &Path,
    r: &format::BackdropRef,
    overrides: &Overrides,
) -> Option<format::Backdrop> {
    let path = &r.file;
    let Some(rel) = inside_module(&path.value) else {
        cx.error(
            path.pos,
            format!("'{}' is not a path inside the module folder", path.value),
            Some("use a path relative to the module folder, without ..".into()),
        );
        return None;
    };
    let file = dir.join(&rel);
    if !file.is_file() && !overrides.contains_key(&file) {
        cx.error(
            path.pos,
            format!("backdrop file '{}' does not exist", path.value),
            sibling_hint(dir, &rel),
        );
        return None;
    }
    let (root, _) = read_xml(cx, &file, overrides)?;
    if root.name != "backdrop" {
        cx.error(
            root.pos,
            format!("a backdrop file's root is <backdrop>, not <{}>", root.name),
            Some(format!(
                "'{}' is named by <backdrop file> in the map",
                path.value
            )),
        );
        return None;
    }
    deserialize(cx, &root)
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
    cx: &mut Ctx<'_>,
    path: &Path,
    overrides: &Overrides,
) -> Option<(xml::Element, FileId)> {
    let id = cx.files.add(path.to_path_buf());
    if let Some(text) = overrides.get(path) {
        return match xml::parse(id, text) {
            Ok(root) => Some((root, id)),
            Err(e) => {
                cx.error(e.pos, e.message, None);
                None
            }
        };
    }
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let (line, col) = line_col(e.as_bytes(), e.utf8_error().valid_up_to());
                cx.error(
                    Pos {
                        file: id,
                        line,
                        col,
                    },
                    "the file is not valid UTF-8",
                    Some("save it as UTF-8".into()),
                );
                return None;
            }
        },
        Err(e) => {
            cx.error_unplaced(format!("cannot read {}: {e}", path.display()), None);
            return None;
        }
    };
    match xml::parse(id, &text) {
        Ok(root) => Some((root, id)),
        Err(e) => {
            cx.error(e.pos, e.message, None);
            None
        }
    }
}

/// The module's `engine="MAJOR.MINOR"` must match this engine's major and minor.
fn check_engine(cx: &mut Ctx<'_>, manifest: &Manifest) {
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
    cx.error(manifest.engine.pos, message, hint);
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

/// Reads an element as `T`, reporting where it does not read.
pub(crate) fn deserialize<T: serde::de::DeserializeOwned>(
    cx: &mut Ctx<'_>,
    root: &xml::Element,
) -> Option<T> {
    match de::from_element::<T>(root) {
        Ok(v) => Some(v),
        Err(e) => {
            cx.error(e.pos.unwrap_or(root.pos), e.message, e.hint);
            None
        }
    }
}

/// Files the items of one included file by its root element, with its `<remove>` and
/// `<patch>` changes.
fn add_file(cx: &mut Ctx<'_>, root: xml::Element, layer: &mut Layer) {
    let (mut root, changes) = layer.take_changes(cx, root);
    if let Some(pos) = changes.filter(|_| !CHANGE_ROOTS.contains(&root.name.as_str())) {
        cx.error(
            pos,
            format!("a <{}> file cannot hold <remove> or <patch>", root.name),
            Some(format!(
                "write them at the top of a <{}> file",
                CHANGE_ROOTS.join(">, <")
            )),
        );
    }
    match root.name.as_str() {
        "sides" => {
            if let Some(s) = deserialize::<format::Sides>(cx, &root) {
                let items = vec![
                    read(ItemKind::Side, s.side, Value::Side),
                    read(ItemKind::Resource, s.resource, Value::Resource),
                    read(ItemKind::Tally, s.tally, Value::Tally),
                    read(ItemKind::Seat, s.seat, Value::Seat),
                ];
                pair(cx, std::mem::take(&mut root.children), &[], layer, items);
            }
        }
        "map" => {
            if let Some(m) = deserialize::<format::Map>(cx, &root) {
                if let (Some(w), Some(h)) = (m.width, m.height) {
                    layer.map_size = Some((w, h));
                }
                if m.neutral_color.is_some() {
                    layer.map_neutral_color = m.neutral_color;
                }
                if m.background.is_some() {
                    layer.map_background = m.background;
                }
                if m.backdrop.is_some() {
                    layer.map_backdrop_ref = m.backdrop;
                }
                let items = vec![
                    read(ItemKind::LineKind, m.line_kind, Value::LineKind),
                    read(ItemKind::Tag, m.tag, Value::Tag),
                    read(ItemKind::BoxValue, m.box_value, Value::Named),
                    read(ItemKind::Box, m.boxes, Value::Box),
                    read(ItemKind::Line, m.line, Value::Line),
                ];
                pair(
                    cx,
                    std::mem::take(&mut root.children),
                    &["background", "backdrop"],
                    layer,
                    items,
                );
            }
        }
        "units" => {
            if let Some(u) = deserialize::<format::Units>(cx, &root) {
                let items = vec![
                    read(ItemKind::Class, u.class, Value::Named),
                    read(ItemKind::Quality, u.quality, Value::Named),
                    read(ItemKind::Marker, u.marker, Value::Named),
                    read(ItemKind::Flag, u.flag, Value::Named),
                    read(ItemKind::Unit, u.unit, Value::Unit),
                ];
                pair(cx, std::mem::take(&mut root.children), &[], layer, items);
            }
        }
        "calendar" => {
            if let Some(c) = deserialize::<format::Calendar>(cx, &root) {
                if let Some(first) = layer.calendar() {
                    let hint = cx.first_at(first.el.pos);
                    cx.error(c.pos, "a second <calendar>; a module has one", hint);
                } else {
                    layer.push(root, Value::Calendar(c));
                }
            }
        }
        "options" => {
            if let Some(o) = deserialize::<format::Options>(cx, &root) {
                let items = vec![read(ItemKind::Option, o.option, Value::Option)];
                pair(cx, std::mem::take(&mut root.children), &[], layer, items);
            }
        }
        "tables" => {
            if let Some(t) = deserialize::<format::Tables>(cx, &root) {
                let items = vec![read(ItemKind::Table, t.table, Value::Table)];
                pair(cx, std::mem::take(&mut root.children), &[], layer, items);
            }
        }
        "scenario" => {
            if let Some(s) = deserialize::<format::Scenario>(cx, &root) {
                layer.push(root, Value::Scenario(s));
            }
        }
        "changes" => {
            let stray = root
                .attrs
                .first()
                .map(|a| (a.pos, format!("attribute '{}'", a.name)));
            let stray = stray.or_else(|| {
                root.children
                    .first()
                    .map(|c| (c.pos, format!("<{}>", c.name)))
            });
            if let Some((pos, what)) = stray {
                cx.error(
                    pos,
                    format!("a <changes> file holds only <remove> and <patch>, not {what}"),
                    Some("put new items in the file of their kind (<map>, <units>, ...)".into()),
                );
            }
        }
        other => {
            let hint = suggest::did_you_mean(other, FILE_KINDS.iter().copied()).or_else(|| {
                Some(format!(
                    "a module file's root is one of <{}>",
                    FILE_KINDS.join(">, <")
                ))
            });
            cx.error(
                root.pos,
                format!("unknown kind of module file <{other}>"),
                hint,
            );
        }
    }
}

/// The items of one kind read with their file's root, in document order.
type Read = (ItemKind, std::vec::IntoIter<Value>);

/// `items` of `kind`, each made a [`Value`] by `value` (`Value::Side`).
fn read<T>(kind: ItemKind, items: Vec<T>, value: fn(T) -> Value) -> Read {
    (
        kind,
        items.into_iter().map(value).collect::<Vec<_>>().into_iter(),
    )
}

/// Files each child element with the typed value read from it (in document order),
/// matched by its [`ItemKind`]. A child neither filed nor in `settings` (read with its
/// root, like the map's `<background>`) is reported, never dropped: a new element of
/// the format must become an item kind or a setting here.
fn pair(
    cx: &mut Ctx<'_>,
    children: Vec<xml::Element>,
    settings: &[&str],
    layer: &mut Layer,
    mut items: Vec<Read>,
) {
    for el in children {
        let kind = ItemKind::from_element(&el.name);
        let value = items
            .iter_mut()
            .find(|(k, _)| Some(*k) == kind)
            .and_then(|(_, values)| values.next());
        match value {
            Some(v) => layer.push(el, v),
            None if settings.contains(&el.name.as_str()) => {}
            None => cx.error(
                el.pos,
                format!("internal error: the loader does not file <{}>", el.name),
                Some("report it: muster's loader misses this element".into()),
            ),
        }
    }
}
