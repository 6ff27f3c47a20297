//! Checking the edited module with the engine's own loader, as `muster check` does.
//!
//! The unsaved map text stands in for the file on disk, so every diagnostic is the one
//! the engine would print after a save, with the real file's path. The module's rule
//! scripts are loaded too, as `muster check` does: they look boxes up by name, so a
//! rename can break them.

use std::path::Path;
use std::sync::Arc;

use muster_core::load::Overrides;
use muster_core::{Diagnostic, Module, Severity, load_module_with};
use muster_scripting::{Limits, ScriptRules};

/// The outcome of one check.
#[derive(Clone, Debug, Default)]
pub struct Validation {
    /// The compiled module, when it loaded.
    pub module: Option<Arc<Module>>,
    /// Errors and warnings, each rendered `file:line:col: severity: message`.
    pub diagnostics: Vec<Diagnostic>,
}

impl Validation {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    pub fn is_ok(&self) -> bool {
        self.errors().next().is_none()
    }
}

/// Loads the module in `dir`, reading `map_path` from `map_text` instead of disk.
pub fn check(dir: &Path, map_path: &Path, map_text: &str) -> Validation {
    let mut overrides = Overrides::new();
    overrides.insert(map_path.to_path_buf(), map_text.to_owned());
    check_with(dir, &overrides)
}

/// Loads the module in `dir`, reading every file in `overrides` from there (the map and
/// edited scenarios).
pub fn check_with(dir: &Path, overrides: &Overrides) -> Validation {
    match load_module_with(dir, overrides) {
        Ok(module) => {
            let mut diagnostics = module.warnings.clone();
            if let Err(e) = ScriptRules::load(&module, Limits::default()) {
                diagnostics.push(Diagnostic {
                    severity: Severity::Error,
                    location: None,
                    message: format!("rules: {e}"),
                    hint: None,
                });
            }
            Validation {
                diagnostics,
                module: Some(Arc::new(module)),
            }
        }
        Err(e) => Validation {
            module: None,
            diagnostics: e.diagnostics,
        },
    }
}
