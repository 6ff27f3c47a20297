//! What the workspace's tests share, written once: copying a module folder, loading
//! *A House Divided* (alone or with a house rule appended to its rules), and random
//! games played to a given step. A dev-dependency only: nothing shipped links it.
//!
//! Everything here panics with the error's own message: a test's set-up that fails is
//! a failed test, and the message is what the reader needs.

use std::path::{Path, PathBuf};

use muster_core::game::dice::Pcg32;
use muster_core::game::{Dice, GameState, apply, legal_actions, start};
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};

/// The chooser stream of `muster play`'s random players (`--union random`): a random
/// game drawn on it can be watched again at the terminal with the same seed.
pub const CHOOSER_STREAM: u64 = 2;

/// The workspace's root folder (where `mods/` is).
pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The folder of the AHD module of the repository.
pub fn ahd_dir() -> PathBuf {
    root().join("mods/ahd")
}

/// The AHD module, compiled.
pub fn ahd_module() -> Module {
    load_module(ahd_dir()).unwrap_or_else(|e| panic!("{e}"))
}

/// The AHD module and its rules.
pub fn ahd() -> (Module, ScriptRules) {
    let m = ahd_module();
    let rules = rules(&m);
    (m, rules)
}

/// The rules of `m`, loaded with the default limits.
pub fn rules(m: &Module) -> ScriptRules {
    ScriptRules::load(m, Limits::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Copies a folder tree: a module, to change a copy of it.
pub fn copy_dir(from: &Path, to: &Path) {
    copy_dir_except(from, to, &[]);
}

/// Copies a folder tree but for the entries of its top folder named in `skip`.
pub fn copy_dir_except(from: &Path, to: &Path, skip: &[&str]) {
    let fail = |what: &str, path: &Path, e: std::io::Error| -> ! {
        panic!("{what} {}: {e}", path.display())
    };
    std::fs::create_dir_all(to).unwrap_or_else(|e| fail("cannot create", to, e));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| fail("cannot read", from, e)) {
        let entry = entry.unwrap_or_else(|e| fail("cannot read", from, e));
        let name = entry.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let (path, target) = (entry.path(), to.join(&name));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap_or_else(|e| fail("cannot copy", &path, e));
        }
    }
}

/// A copy of AHD's module folder in a fresh temporary folder (kept while the guard is).
pub fn ahd_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("temporary folder: {e}"));
    let dir = tmp.path().join("ahd");
    copy_dir(&ahd_dir(), &dir);
    (tmp, dir)
}

/// AHD with a house rule: `house` appended to a copy of its `rules/init.luau`, the rest
/// of the module as it is. The rules are read from the copy while the guard lives.
pub struct HouseRule {
    /// The folder holding the changed rules (removed when this is dropped).
    pub dir: tempfile::TempDir,
    pub module: Module,
}

impl HouseRule {
    pub fn new(house: &str) -> HouseRule {
        let mut module = ahd_module();
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temporary folder: {e}"));
        copy_dir(&ahd_dir().join("rules"), &dir.path().join("rules"));
        let init = dir.path().join("rules/init.luau");
        let mut text = std::fs::read_to_string(&init).unwrap_or_else(|e| panic!("{e}"));
        text.push_str(house);
        std::fs::write(&init, text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(module.scripts.len(), 1, "AHD has one rules folder");
        module.scripts[0].dir = dir.path().to_path_buf();
        HouseRule { dir, module }
    }

    /// The module and its rules (the house rule among them), and the guard.
    pub fn loaded(house: &str) -> (tempfile::TempDir, Module, ScriptRules) {
        let HouseRule { dir, module } = HouseRule::new(house);
        let rules = rules(&module);
        (dir, module, rules)
    }
}

/// A random game: the states from the start of `scenario` (no optional rule, the dice
/// seeded with `seed`), each action drawn from the legal list as `muster play`'s random
/// players draw it (`Pcg32::new(seed, CHOOSER_STREAM)`). It yields the starting state
/// first and ends after a state with an outcome: `.nth(n)` is the game at step `n`.
pub struct RandomGame<'a> {
    m: &'a Module,
    rules: &'a mut ScriptRules,
    next: Option<GameState>,
    chooser: Pcg32,
}

impl<'a> RandomGame<'a> {
    pub fn new(m: &'a Module, rules: &'a mut ScriptRules, scenario: &str, seed: u64) -> Self {
        let sc = m
            .scenario(scenario)
            .unwrap_or_else(|| panic!("no scenario {scenario}"));
        let (first, _) = start(m, rules, sc, Vec::new(), Dice::seeded(seed))
            .unwrap_or_else(|e| panic!("{scenario} does not start: {e}"));
        RandomGame {
            m,
            rules,
            next: Some(first),
            chooser: Pcg32::new(seed, CHOOSER_STREAM),
        }
    }
}

impl Iterator for RandomGame<'_> {
    type Item = GameState;

    fn next(&mut self) -> Option<GameState> {
        let state = self.next.take()?;
        if state.outcome.is_none() {
            let legal = legal_actions(self.m, self.rules, &state)
                .unwrap_or_else(|e| panic!("legal actions: {e}"));
            let k = u32::try_from(legal.len()).expect("a list of legal actions fits a u32");
            let a = &legal[(self.chooser.between_one_and(k) - 1) as usize];
            let (after, _) = apply(self.m, self.rules, &state, a)
                .unwrap_or_else(|e| panic!("a legal action is refused: {e}"));
            self.next = Some(after);
        }
        Some(state)
    }
}

/// Builds `muster-typecheck` beside the `muster` program a test runs (`muster check`
/// type-checks with it), once a test process. `cargo build` and `cargo test --workspace`
/// build it; `cargo test --test it` alone does not, another package's program.
pub fn build_typechecker(muster: &Path) {
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let profile = match muster
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
        {
            Some("debug") | None => "dev".to_string(),
            Some(other) => other.to_string(),
        };
        let status = std::process::Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "muster-typecheck"])
            .args(["--bin", "muster-typecheck", "--profile", &profile])
            .current_dir(root())
            .status()
            .expect("run cargo");
        assert!(status.success(), "cannot build muster-typecheck");
    });
}
