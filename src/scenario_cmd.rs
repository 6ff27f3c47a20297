//! `muster scenario from-save SAVE --turn T`: a game position as a scenario file, with
//! warnings for what the format cannot hold yet (`muster_core::scenario_from`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use muster_core::game::save::Save;
use muster_core::scenario_from::{Naming, position_at, scenario_from, valid_id};

#[derive(clap::Subcommand)]
pub enum ScenarioSubcommand {
    /// Write the position of a saved game (at the start of a turn, or where it stopped)
    /// as a scenario file; what the format cannot hold is named in warnings.
    FromSave(FromSaveArgs),
}

#[derive(clap::Args)]
pub struct FromSaveArgs {
    /// The save (`muster play --save`, the app's saves).
    save: PathBuf,
    /// The turn whose start to take (e.g. 04/1862); default: where the save stopped.
    #[arg(long, value_name = "T")]
    turn: Option<String>,
    /// The file to write (never overwritten); default: print the scenario.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The new scenario's id (default: the save's scenario and the turn, e.g.
    /// 1862-from-06-1863).
    #[arg(long)]
    id: Option<String>,
    /// Its name (default: the id's words).
    #[arg(long)]
    name: Option<String>,
    /// The module folder (default: mods/<module id of the save>, or with --mod
    /// mods/<the id of the save's base module>).
    #[arg(long)]
    module: Option<PathBuf>,
    /// A mod the game was played with; repeat for several, lowest first.
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
}

pub fn run(s: &ScenarioSubcommand) -> Result<()> {
    match s {
        ScenarioSubcommand::FromSave(a) => from_save(a),
    }
}

fn from_save(a: &FromSaveArgs) -> Result<()> {
    if let Some(out) = &a.out
        && out.exists()
    {
        bail!(
            "{} exists already; give --out a new file (nothing was written)",
            out.display()
        );
    }
    let save = Save::read(&a.save)?;
    let base = match save.module.stack.first() {
        Some(base) if !a.mods.is_empty() => &base.id,
        _ => &save.module.id,
    };
    let dir = a
        .module
        .clone()
        .unwrap_or_else(|| PathBuf::from("mods").join(base));
    let (module, mut rules) = crate::rules::load(&dir, &a.mods)?;
    let state = position_at(&module, &mut rules, &save, a.turn.as_deref())
        .with_context(|| format!("taking a position from {}", a.save.display()))?;
    let turn_label = module.calendar.turn(state.turn).label.replace('/', "-");
    let id =
        a.id.clone()
            .unwrap_or_else(|| format!("{}-from-{turn_label}", save.scenario.id));
    if !valid_id(&id) {
        bail!("'{id}' is not a scenario id: use letters, digits, '-' and '_' (give --id)");
    }
    let name = a.name.clone().unwrap_or_else(|| {
        format!(
            "{} from {}",
            save.scenario.id,
            module.calendar.turn(state.turn).label
        )
    });
    let description = format!(
        "The position of a game of scenario '{}' at the start of {}.",
        save.scenario.id,
        module.calendar.turn(state.turn).label
    );
    let made = scenario_from(
        &module,
        &state,
        &Naming {
            id: &id,
            name: &name,
            description: Some(&description),
        },
    )
    .with_context(|| format!("the position of {} is no scenario", a.save.display()))?;
    // What we write must load as any scenario file does.
    muster_core::load_scenario_str(&module, &format!("<scenario {id}>"), &made.xml)
        .map_err(|e| anyhow!("the scenario made does not load (a bug in muster):\n{e}"))?;
    if module.scenario(&id).is_some() {
        eprintln!(
            "warning: module '{}' has a scenario '{id}' already: in a mod of it, this one replaces it (give --id to keep both)",
            module.id
        );
    }
    for w in &made.warnings {
        eprintln!("warning: {w}");
    }
    match &a.out {
        None => print!("{}", made.xml),
        Some(out) => {
            write_new(out, &made.xml)?;
            println!(
                "wrote scenario '{id}' ({}) to {}: play it with `muster play {} --scenario {}`",
                module.calendar.turn(state.turn).label,
                out.display(),
                dir.display(),
                out.display()
            );
        }
    }
    Ok(())
}

/// Writes a file that must not exist yet (never replacing one made meanwhile).
pub fn write_new(path: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create the folder {}", parent.display()))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("cannot create {} (nothing was written)", path.display()))?;
    f.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}
