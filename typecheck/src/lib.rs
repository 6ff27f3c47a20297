//! Type-checks a module's rules scripts in Luau's strict mode against the engine's API
//! (`docs/muster.d.luau`, from `muster_scripting::api`), with Luau's own analyzer (the
//! frontend of luau-analyze and luau-lsp, built from source by `luau-analyzer-sys`).
//!
//! Every `.luau` file under a module's `rules/` is checked as its own module, so each
//! file's errors are reported; `require("rules.x")` resolves inside the module's folder
//! as the engine's sandbox resolves it. A file is checked strictly whether or not it
//! starts with `--!strict`.

use std::collections::HashMap;
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

/// What a module's name is followed by when it is checked as required by another file
/// (it is checked as itself under its own name).
const REQUIRED: &str = " (required)";

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
    // Each file's text as written, by its path.
    let mut texts: HashMap<String, String> = HashMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|source| Error::Read {
            path: f.clone(),
            source,
        })?;
        texts.insert(f.to_string_lossy().into_owned(), text);
    }
    for (path, text) in extra {
        files.push(path.clone());
        texts.insert(path.to_string_lossy().into_owned(), text.clone());
    }
    // `require("rules.x")`: `rules/x.luau` in the requiring file's module;
    // `require("@ahd/rules.x")`: `rules/x.luau` in module ahd's folder.
    let resolve = |current: &str, required: &str| -> Option<String> {
        let (root, name) = match required.strip_prefix('@') {
            Some(rest) => {
                let (id, name) = rest.split_once('/')?;
                let (_, root) = stack.iter().find(|(m, _)| *m == Some(id))?;
                (root.to_path_buf(), name)
            }
            None => (root_of(&roots, current)?.clone(), required),
        };
        if name.is_empty()
            || !name
                .split('.')
                .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        {
            return None;
        }
        let rel = name.replace('.', "/");
        Some(
            root.join(format!("{rel}.luau"))
                .to_string_lossy()
                .into_owned(),
        )
    };
    // A module required from outside `rules/` (`require("lib.x")`) is read when it is:
    // its types flow, its own errors are not reported.
    let text_of = |path: &str| -> Option<String> {
        texts.get(path).cloned().or_else(|| {
            let p = Path::new(path);
            (p.extension().is_some_and(|e| e == "luau") && roots.iter().any(|r| p.starts_with(r)))
                .then(|| std::fs::read_to_string(p).ok())
                .flatten()
        })
    };
    let prepare = |path: &str, text: &str| -> (String, u32) {
        let text = typed_requires(text, |required| {
            let target = resolve(path, required)?;
            let target = target.strip_suffix(REQUIRED).unwrap_or(&target);
            let exported = export_name(target);
            module_export(&text_of(target)?, &exported).map(|_| exported)
        });
        let text = module_export(&text, &export_name(path)).unwrap_or(text);
        strict_source(&text)
    };
    // A required module as its requirer sees it: a parameter left unannotated is `any`,
    // not a table shape guessed from its uses in that file (which a `Game` passed in
    // would not match, nor a table of other fields); annotated types flow as written.
    let prepare_required = |path: &str| -> Option<String> {
        Some(untyped_params_any(&prepare(path, &text_of(path)?).0))
    };
    let mut sources: HashMap<String, (String, u32)> = HashMap::new();
    for (path, text) in &texts {
        sources.insert(path.clone(), prepare(path, text));
    }
    let mut analyzer = NativeAnalyzer::new();
    analyzer.add_definitions(definitions);
    let mut problems = Vec::new();
    for f in &files {
        let name = f.to_string_lossy().into_owned();
        let diagnostics = analyzer.check(
            &name,
            |module| match module.strip_suffix(REQUIRED) {
                Some(path) => prepare_required(path),
                None => sources.get(module).map(|(text, _)| text.clone()),
            },
            |current, required| resolve(current, required).map(|p| format!("{p}{REQUIRED}")),
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

// Types through `require`. The analyzer's crate loads Luau's builtin definitions a second
// time after registering its globals, which declares `require` again as `(any) -> any`
// and loses the analyzer's own handling of it: a required module's value would be `any`.
// Exported types still flow (`local m = require(...)` imports `m.T`), so each module's
// value is exported as a type, and each `local m = require("x")` is checked as
// `local __required_m = require("x"); local m: __required_m.T = __required_m :: any`,
// on the same line, so line numbers stay.

/// The type a module's value is exported as: `rules_movement` for `.../rules/movement.luau`.
fn export_name(path: &str) -> String {
    let p = Path::new(path);
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default();
    let dir = p
        .parent()
        .and_then(Path::file_name)
        .map(|s| s.to_string_lossy())
        .unwrap_or_default();
    let name: String = format!("{dir}_{stem}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("required_{name}")
}

/// `text` with its value exported as the type `exported`: its last top-level `return X`
/// (a line beginning with `return`, what follows it a continuation: indented, closing
/// brackets, comments) becomes `local __module = X`, and the export and the return are
/// added after the last line. `None` when no such return is found.
fn module_export(text: &str, exported: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().rposition(|l| {
        l.strip_prefix("return")
            .is_some_and(|rest| rest.starts_with([' ', '{', '(']) && !rest.trim().is_empty())
    })?;
    let continuation = |l: &&str| {
        let t = l.trim_start();
        t.is_empty()
            || t.starts_with("--")
            || l.starts_with([' ', '\t'])
            || t.starts_with(['}', ')', ']'])
    };
    if !lines[at + 1..].iter().all(continuation) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 120);
    for (i, l) in lines.iter().enumerate() {
        if i == at {
            out.push_str("local __module =");
            out.push_str(&l["return".len()..]);
        } else {
            out.push_str(l);
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "export type {exported} = typeof(__module)\nreturn __module\n"
    ));
    Some(out)
}

/// `text` with each function parameter written without a type given `: any`
/// (`function M.f(game, u: number)` is `function M.f(game: any, u: number)`). Strings
/// and comments are not told apart: a parameter list is only looked for right after
/// the word `function` and an optional name.
fn untyped_params_any(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut rest = text;
    while let Some(at) = rest.find("function") {
        let before = &rest[..at];
        let word_start = before
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let after = &rest[at + "function".len()..];
        out.push_str(&rest[..at + "function".len()]);
        rest = after;
        if !word_start || after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        // An optional name (`M.f`, `M:f`, `f`), then `(`.
        let name_len = after
            .find(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | ' ' | '\t'))
            })
            .unwrap_or(after.len());
        if !after[name_len..].starts_with('(') {
            continue;
        }
        // The parameter list, to its `)`, split at commas outside brackets.
        let list = &after[name_len + 1..];
        let mut depth = 0usize;
        let mut end = None;
        let mut cuts = vec![0];
        for (i, c) in list.char_indices() {
            match c {
                '(' | '{' | '[' | '<' => depth += 1,
                ')' if depth == 0 => {
                    end = Some(i);
                    break;
                }
                ')' | '}' | ']' | '>' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => cuts.push(i + 1),
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        cuts.push(end + 1);
        out.push_str(&after[..name_len + 1]);
        for w in cuts.windows(2) {
            let param = &list[w[0]..w[1] - 1];
            let name = param.trim();
            out.push_str(param);
            if !name.is_empty() && name != "..." && !name.contains(':') {
                out.push_str(": any");
            }
            out.push(if w[1] - 1 == end { ')' } else { ',' });
        }
        rest = &list[end + 1..];
    }
    out.push_str(rest);
    out
}

/// `text` with each `local m = require("x")` standing alone on its line typed as the
/// module's value, when `exported("x")` names the type the module exports it as.
fn typed_requires(text: &str, exported: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    for l in text.split_inclusive('\n') {
        let typed = required_local(l).and_then(|r| Some((exported(r.name)?, r)));
        match typed {
            Some((ty, r)) => out.push_str(&format!(
                "{}local __required_{m} = {}; local {m}: __required_{m}.{ty} = __required_{m} :: any{}",
                r.indent,
                r.call,
                r.rest,
                m = r.local
            )),
            None => out.push_str(l),
        }
    }
    out
}

/// `local m = require("x")` on a line of its own, in parts.
struct RequiredLocal<'a> {
    indent: &'a str,
    local: &'a str,
    /// `require("x")`
    call: &'a str,
    /// `x`
    name: &'a str,
    /// What follows the call: a `;`, a comment, the line's end.
    rest: &'a str,
}

fn required_local(line: &str) -> Option<RequiredLocal<'_>> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let after = body.strip_prefix("local")?;
    let after_local = after.trim_start();
    if after_local.len() == after.len() {
        return None;
    }
    let len = after_local
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(after_local.len());
    let (local, after) = after_local.split_at(len);
    if local.is_empty() || local.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let call = after.trim_start().strip_prefix('=')?.trim_start();
    let args = call
        .strip_prefix("require")?
        .trim_start()
        .strip_prefix('(')?
        .trim_start();
    let quote = args.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    let inner = &args[1..];
    let close = inner.find(quote)?;
    let name = &inner[..close];
    let tail = inner[close + 1..].trim_start().strip_prefix(')')?;
    let rest_trim = tail.trim_start().trim_start_matches(';').trim_start();
    if !(rest_trim.is_empty() || rest_trim.starts_with("--")) {
        return None;
    }
    let call = &call[..call.len() - tail.len()];
    Some(RequiredLocal {
        indent,
        local,
        call,
        name,
        rest: tail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_required_local_is_typed_by_the_modules_export() {
        let text = "local a = require(\"rules.a\") -- why\n\tlocal b = require('@ahd/rules.b');\nlocal c = require(\"rules.c\").x\nrequire(\"rules.d\")\n";
        let out = typed_requires(text, |n| (n != "rules.c").then(|| format!("T_{}", n.len())));
        assert_eq!(
            out,
            "local __required_a = require(\"rules.a\"); local a: __required_a.T_7 = __required_a :: any -- why\n\
             \tlocal __required_b = require('@ahd/rules.b'); local b: __required_b.T_12 = __required_b :: any;\n\
             local c = require(\"rules.c\").x\nrequire(\"rules.d\")\n"
        );
    }

    #[test]
    fn untyped_parameters_are_any() {
        assert_eq!(
            untyped_params_any(
                "function M.f(game, u: number, f: (a, b) -> c, ...)\nlocal g = function( x )\nlocal functions = 1\nfunction h() end\n"
            ),
            "function M.f(game: any, u: number, f: (a, b) -> c, ...)\nlocal g = function( x : any)\nlocal functions = 1\nfunction h() end\n"
        );
    }

    #[test]
    fn a_modules_value_is_exported_from_its_last_return() {
        let text =
            "local M = {}\nfunction M.f()\n\treturn 1\nend\nreturn {\n\tf = M.f,\n} -- done\n";
        assert_eq!(
            module_export(text, "T").as_deref(),
            Some(
                "local M = {}\nfunction M.f()\n\treturn 1\nend\nlocal __module = {\n\tf = M.f,\n} -- done\nexport type T = typeof(__module)\nreturn __module\n"
            )
        );
        assert_eq!(module_export("hooks.on(\"x\", f)\n", "T"), None);
        assert_eq!(module_export("return M\nlocal x = 1\n", "T"), None);
        assert_eq!(
            export_name("/m/ahd/rules/movement.luau"),
            "required_rules_movement"
        );
    }
}
