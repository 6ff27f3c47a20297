//! Loading a module with its rules, for the commands that play.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};

/// Loads a module and its rule scripts; errors list every problem, one per line.
pub fn load(dir: &Path) -> Result<(Module, ScriptRules)> {
    let module = load_module(dir).map_err(|e| anyhow!("{e}"))?;
    let rules = ScriptRules::load(&module, Limits::default())
        .with_context(|| format!("loading the rules of module '{}'", module.id))?;
    Ok((module, rules))
}
