//! `muster view`: what one seat sees of a saved game, in words or as JSON, with its log
//! if asked. The save is
//! the whole game (whoever holds it holds everything); the view is what may be shown
//! to, or sent to, that seat.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, anyhow};
use muster_core::Module;
use muster_core::game::save::Replayed;
use muster_core::game::{Save, SeatView, seat_log, seat_view};
use muster_core::ids::SeatId;

// `muster view SAVE --seat SEAT [--json] [--log]` (no doc comment: clap would take it for the
// subcommand's help).
#[derive(clap::Args)]
pub struct Args {
    /// A saved game (`muster play --save`).
    pub file: PathBuf,
    /// Whose view: a seat id (one per side unless the module declares its seats).
    #[arg(long)]
    pub seat: String,
    /// The module folder (default: mods/<module id of the save>).
    #[arg(long)]
    pub module: Option<PathBuf>,
    /// A mod to lay on the module, as the game was played; repeat for several, lowest
    /// first.
    #[arg(long = "mod", value_name = "PATH")]
    pub mods: Vec<PathBuf>,
    /// Print the view as JSON (a piece whose type is hidden has `"type": null`).
    #[arg(long)]
    pub json: bool,
    /// Add the game's log as the seat may read it (what it does not see is left out or
    /// told without the hidden parts).
    #[arg(long)]
    pub log: bool,
}

/// A view with the seat's log, for `--json --log`.
#[derive(serde::Serialize)]
struct ViewWithLog<'a> {
    #[serde(flatten)]
    view: &'a SeatView,
    log: &'a [String],
}

pub fn run(args: &Args) -> Result<()> {
    let save = Save::read(&args.file)?;
    let base = match save.module.stack.first() {
        Some(base) if !args.mods.is_empty() => &base.id,
        _ => &save.module.id,
    };
    let dir = args
        .module
        .clone()
        .unwrap_or_else(|| PathBuf::from("mods").join(base));
    let (module, mut rules) = crate::rules::load(&dir, &args.mods)?;
    let seat = seat(&module, &args.seat)?;
    let mut log = Vec::new();
    let mut errors = Vec::new();
    let state = save.replay_each(&module, &mut rules, &mut |rules, step| {
        // The start's lines are the set-up, told to whoever sees everything.
        if let (
            true,
            Replayed::Action {
                before,
                action,
                after,
                lines,
            },
        ) = (args.log, step)
        {
            let (shown, e) = seat_log(&module, rules, before, action, after, lines, seat);
            log.extend(shown);
            errors.extend(e);
        }
    })?;
    let (view, e) = seat_view(&module, &mut rules, &state, seat);
    errors.extend(e);
    // The rules' errors go to whoever runs this (the host), never into the view.
    for e in &errors {
        eprintln!("warning: a piece was hidden because a rule failed: {e}");
    }
    let out = &mut std::io::stdout().lock();
    match (args.json, args.log) {
        (true, false) => serde_json::to_writer_pretty(&mut *out, &view)?,
        (true, true) => serde_json::to_writer_pretty(
            &mut *out,
            &ViewWithLog {
                view: &view,
                log: &log,
            },
        )?,
        (false, _) => {
            write_view(out, &view)?;
            if args.log {
                writeln!(out, "log:")?;
            }
            for line in &log {
                writeln!(out, "  {line}")?;
            }
        }
    }
    if args.json {
        writeln!(out)?;
    }
    Ok(())
}

/// A seat named on the command line.
pub fn seat(module: &Module, name: &str) -> Result<SeatId> {
    module.find_seat(name).ok_or_else(|| {
        anyhow!(
            "no seat '{name}' in module '{}'; {}",
            module.id,
            module.seat_hint(name)
        )
    })
}

/// The view in words: the turn, then each box with something in it.
pub fn write_view(out: &mut dyn Write, view: &SeatView) -> std::io::Result<()> {
    writeln!(
        out,
        "{} sees: turn {}{}",
        view.seat,
        view.turn,
        view.player
            .as_ref()
            .map(|p| format!(", {p} to play"))
            .unwrap_or_default()
    )?;
    if let Some(o) = &view.outcome {
        writeln!(
            out,
            "game over: {} ({})",
            o.winner.as_deref().unwrap_or("draw"),
            o.reason
        )?;
    }
    for b in &view.boxes {
        if b.pieces.is_empty() && b.unseen == 0 {
            continue;
        }
        let mut parts: Vec<String> = b
            .pieces
            .iter()
            .map(|p| match (&p.kind, &p.side) {
                (Some(kind), _) => {
                    let n = p.number.unwrap_or_default();
                    // A named piece (a formation): `I Corps (McDowell) (Corps #3)`,
                    // with the numbers of the members the seat sees.
                    let what = match &p.name {
                        Some(name) => format!("{name} ({kind} #{n})"),
                        None => format!("{kind} #{n}"),
                    };
                    let members: Vec<String> = p.members.iter().map(|m| format!("#{m}")).collect();
                    format!(
                        "{what}{}{}",
                        p.side
                            .as_ref()
                            .map(|s| format!(" ({s})"))
                            .unwrap_or_default(),
                        if members.is_empty() {
                            String::new()
                        } else {
                            format!(" holding {}", members.join(" "))
                        }
                    )
                }
                (None, Some(side)) => format!("a {side} piece"),
                (None, None) => "a piece".into(),
            })
            .collect();
        if b.unseen > 0 {
            parts.push(format!("{} unseen piece(s)", b.unseen));
        }
        writeln!(
            out,
            "  {}{}: {}",
            b.name,
            b.controller
                .as_ref()
                .map(|c| format!(" [{c}]"))
                .unwrap_or_default(),
            parts.join(", ")
        )?;
    }
    Ok(())
}
