//! Shared helpers: script bundles in temporary folders, a test catalogue, fixed dice.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use muster_core::Module;
use muster_scripting::{Combine, HookSpec, Limits, Rng, Sandbox, ScriptError};
use tempfile::TempDir;

/// Copies a folder tree (a fixture module, to edit a copy of it).
#[allow(unused_imports)]
pub use muster_test_support::copy_dir;

/// The hooks the test scripts may register for.
pub const CATALOGUE: &[HookSpec] = &[
    HookSpec::question("ping", Combine::All),
    HookSpec::question("attack", Combine::All),
    HookSpec::question("may_enter", Combine::All),
    HookSpec::question("is_jump", Combine::Any),
    HookSpec::question("bonus", Combine::Sum),
    HookSpec::question("limit", Combine::Min),
    HookSpec::event("on_turn"),
];

/// Small limits so that hostile scripts fail fast.
pub fn limits() -> Limits {
    Limits {
        memory_bytes: 16 << 20,
        budget: 200_000,
        wall_clock: Duration::from_secs(10),
        native_code: false,
    }
}

/// Dice that always roll 1 (or the low bound).
pub fn dice() -> Rng {
    Box::new(|lo, _| lo)
}

/// Dice returning `seq` in turn (clamped into the range asked), forever.
pub fn fixed_dice(seq: &[u32]) -> Rng {
    let seq = seq.to_vec();
    let mut i = 0;
    Box::new(move |lo, hi| {
        let v = seq[i % seq.len()].clamp(lo, hi);
        i += 1;
        v
    })
}

/// A module folder holding `files` (path, contents).
pub fn bundle(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), files);
    dir
}

pub fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
    }
}

/// Loads `rules/init.luau` with `init` as its text (plus `more` files).
pub fn load_with(
    init: &str,
    more: &[(&str, &str)],
    limits: Limits,
) -> Result<Sandbox, ScriptError> {
    let mut files = vec![("rules/init.luau", init)];
    files.extend_from_slice(more);
    let dir = bundle(&files);
    Sandbox::load(dir.path(), "rules/init.luau", CATALOGUE, limits, dice())
}

pub fn load(init: &str) -> Result<Sandbox, ScriptError> {
    load_with(init, &[], limits())
}

/// A sandbox with a `ping` handler and `body` as the `attack` handler.
pub fn armed(body: &str) -> Sandbox {
    armed_with(body, limits())
}

pub fn armed_with(body: &str, limits: Limits) -> Sandbox {
    let init = format!(
        "hooks.on(\"ping\", function() return true end)\n\
         hooks.on(\"attack\", function(...)\n{body}\nend)\n"
    );
    match load_with(&init, &[], limits) {
        Ok(sb) => sb,
        Err(e) => panic!("bundle did not load: {e}"),
    }
}

/// The sandbox still answers a normal question.
pub fn assert_usable(sb: &mut Sandbox) {
    match sb.question("ping", ()) {
        Ok(a) => assert_eq!(a.as_bool(), Some(true)),
        Err(e) => panic!("sandbox unusable after the error: {e}"),
    }
}

/// core's mini module: its XML stays in step with the module format.
const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/fixtures/mini");
/// The rules this crate's tests add to it.
const RULES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini_rules");

/// A copy of the mini module with `rules/init.luau` as its rules entry (and the folder
/// holding it, to keep while the test runs).
pub fn mini_module() -> (TempDir, Module) {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(std::path::Path::new(MINI), dir.path());
    copy_dir(std::path::Path::new(RULES), dir.path());
    let manifest = dir.path().join("module.xml");
    let xml = std::fs::read_to_string(&manifest).expect("module.xml");
    let kept: Vec<&str> = xml
        .lines()
        .filter(|l| !l.trim_start().starts_with("<rules "))
        .collect();
    let xml = kept.join("\n").replace(
        "</module>",
        "  <rules entry=\"rules/init.luau\"/>\n</module>",
    );
    std::fs::write(&manifest, xml).expect("write module.xml");
    match muster_core::load_module(dir.path()) {
        Ok(m) => (dir, m),
        Err(e) => panic!("fixture did not load: {e}"),
    }
}

/// A sandbox for the mini module's rules.
pub fn mini_sandbox(m: &Module) -> Sandbox {
    match Sandbox::load_module(m, CATALOGUE, limits(), dice()) {
        Ok(sb) => sb,
        Err(e) => panic!("rules did not load: {e}"),
    }
}
