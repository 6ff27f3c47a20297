//! The bundled rules and every shipped mod, type-checked in Luau's strict mode against
//! the engine's API definitions (`docs/muster.d.luau`).
//!
//! Not every file is clean yet: `known-errors.txt` holds each file's count of errors,
//! and this test fails when a file has more (a new error, listed) or fewer (lower its
//! count, so the list only shrinks). `MUSTER_BLESS_TYPECHECK=1` rewrites the list.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use muster_typecheck::{Problem, check_modules};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const KNOWN: &str = "known-errors.txt";

/// `mods/ahd/rules/victory.luau` for a checked file.
fn relative(file: &Path) -> String {
    let root = repo().canonicalize().expect("repo");
    let file = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    file.strip_prefix(&root)
        .unwrap_or(&file)
        .to_string_lossy()
        .replace('\\', "/")
}

fn known() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN))
        .unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (file, n) = l.rsplit_once(' ')?;
            Some((file.to_string(), n.parse().ok()?))
        })
        .collect()
}

#[test]
fn shipped_rules_type_check_strictly() {
    let mods = repo().join("mods");
    // The shipped modules, and the example mods one folder deeper (mods/examples/*).
    let folders = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|it| it.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    };
    let mut modules: Vec<PathBuf> = folders(&mods)
        .into_iter()
        .flat_map(|p| {
            if p.join("module.xml").is_file() {
                vec![p]
            } else {
                folders(&p)
                    .into_iter()
                    .filter(|q| q.join("module.xml").is_file())
                    .collect()
            }
        })
        .collect();
    modules.sort();
    assert!(modules.len() >= 2, "{modules:?}");
    let definitions =
        std::fs::read_to_string(repo().join("docs/muster.d.luau")).expect("docs/muster.d.luau");
    let refs: Vec<&Path> = modules.iter().map(PathBuf::as_path).collect();
    let problems = check_modules(&definitions, &refs, &[]).expect("check");

    let mut errors: BTreeMap<String, Vec<&Problem>> = BTreeMap::new();
    for p in problems.iter().filter(|p| p.error) {
        errors.entry(relative(&p.file)).or_default().push(p);
    }
    if std::env::var_os("MUSTER_BLESS_TYPECHECK").is_some() {
        let mut text = String::from(
            "# Errors Luau's strict mode still finds in shipped rules, per file\n\
             # (typecheck/tests/it/strict.rs). Only ever lower these.\n",
        );
        for (file, list) in &errors {
            text.push_str(&format!("{file} {}\n", list.len()));
        }
        std::fs::write(Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN), text).expect("write");
        return;
    }
    let known = known();
    let mut failures = Vec::new();
    for (file, list) in &errors {
        let allowed = known.get(file).copied().unwrap_or(0);
        if list.len() > allowed {
            failures.push(format!(
                "{file}: {} type errors, {allowed} known:\n{}",
                list.len(),
                list.iter()
                    .map(|p| format!("  {p}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
    }
    for (file, &allowed) in &known {
        let now = errors.get(file).map_or(0, Vec::len);
        if now < allowed {
            failures.push(format!(
                "{file}: {now} type errors, fewer than the {allowed} in typecheck/{KNOWN}: lower it"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
