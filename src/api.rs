//! `muster api`: writes the modder's reference (`luau-api.md`) and the Luau type
//! definitions (`muster.d.luau`), both generated from `muster_scripting::api`.

use std::path::PathBuf;

use anyhow::{Context, Result};

/// The files `muster api` writes, with their text.
pub fn files() -> [(&'static str, String); 2] {
    [
        (REFERENCE, muster_scripting::api::reference()),
        (DEFINITIONS, muster_scripting::api::definitions()),
    ]
}

/// The reference's file name.
pub const REFERENCE: &str = "luau-api.md";
/// The definitions' file name (what a mod's `.luaurc`-side settings point luau-lsp at).
pub const DEFINITIONS: &str = "muster.d.luau";

// `muster api`.
#[derive(clap::Args)]
pub struct Args {
    /// The folder to write them in.
    #[arg(long, value_name = "DIR", default_value = "docs")]
    out: PathBuf,
}

/// Writes both files into `--out` (created if missing) and names them.
pub fn run(a: &Args) -> Result<()> {
    let out = a.out.as_path();
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the folder {}", out.display()))?;
    for (name, text) in files() {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
