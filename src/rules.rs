//! Loading a module with its rules, for the commands that play.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use muster_core::ids::{OptionId, SideId};
use muster_core::{Module, load_stack};
use muster_scripting::{Limits, ScriptRules};

/// Loads a module with its mods (`--mod`, lowest first) and the rule scripts of them
/// all; errors list every problem, one per line.
pub fn load(dir: &Path, mods: &[PathBuf]) -> Result<(Module, ScriptRules)> {
    load_with(dir, mods, Limits::default())
}

/// [`load`] with these limits ([`Limits::native`] for a command that plays long).
pub fn load_with(dir: &Path, mods: &[PathBuf], limits: Limits) -> Result<(Module, ScriptRules)> {
    let module = load_stack(dir, mods).map_err(|e| anyhow!("{e}"))?;
    let rules = ScriptRules::load(&module, limits)
        .with_context(|| format!("loading the rules of module '{}'", module.id))?;
    Ok((module, rules))
}

/// A side named on the command line.
pub fn side(module: &Module, name: &str) -> Result<SideId> {
    module.find_side(name).ok_or_else(|| {
        let hint = module.side_hint(name).unwrap_or_default();
        anyhow!("no side '{name}' in module '{}'; {hint}", module.id)
    })
}

/// Optional rules named on the command line, by id or rule number.
pub fn options(module: &Module, names: &[String]) -> Result<Vec<OptionId>> {
    let mut ids = Vec::new();
    for name in names {
        let Some(id) = module.find_option(name) else {
            let known: Vec<&str> = module.options.iter().map(|o| o.id.as_str()).collect();
            let hint = muster_core::suggest::did_you_mean(name, known.iter().copied())
                .unwrap_or_else(|| format!("the options are: {}", known.join(", ")));
            bail!(
                "no optional rule '{name}' in module '{}'; {hint}",
                module.id
            );
        };
        ids.push(id);
    }
    Ok(ids)
}
