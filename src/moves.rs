//! `muster moves`: the legal destinations of each unit in a box for one march, at the
//! start of a side's Movement segment. A way for anyone to check a position; with
//! `--trace`, also every path the rules refused and the handler that said no.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};
use muster_core::game::{Dice, GameState, View, describe, destinations};
use muster_core::scenario;
use serde::Serialize;

#[derive(Serialize)]
struct Report {
    scenario: String,
    side: String,
    #[serde(rename = "box")]
    at: String,
    units: Vec<UnitMoves>,
}

#[derive(Serialize)]
struct UnitMoves {
    unit: u16,
    #[serde(rename = "type")]
    kind: String,
    destinations: Vec<Dest>,
    /// With `--trace`: each path the rules refused, and which handler said no.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    refused: Vec<Refusal>,
}

#[derive(Serialize)]
struct Refusal {
    /// `may_enter Militia Infantry #3: Cairo -river-> St. Louis`.
    question: String,
    /// Where the handler that said no is defined, e.g. `ahd/rules/movement.luau:129`.
    handler: String,
    /// Its id, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
}

#[derive(Serialize)]
struct Dest {
    to: String,
    path: Vec<String>,
    lines: Vec<String>,
    jump: bool,
}

// `muster moves`.
#[derive(clap::Args)]
pub struct Args {
    module: PathBuf,
    /// A mod to lay on the module (a folder whose <extends> names the module or an
    /// earlier mod); repeat for several, lowest first.
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    #[arg(long, value_name = "ID|FILE")]
    scenario: String,
    #[arg(long)]
    side: String,
    #[arg(long = "box", value_name = "NAME")]
    at: String,
    #[arg(long)]
    json: bool,
    /// Also list the paths the rules refused and which handler said no.
    #[arg(long)]
    trace: bool,
}

pub fn run(a: &Args) -> Result<()> {
    let (dir, mods, scenario_arg) = (a.module.as_path(), &a.mods[..], a.scenario.as_str());
    let (side, box_name, json, trace) = (a.side.as_str(), a.at.as_str(), a.json, a.trace);
    let (module, mut rules) = crate::rules::load(dir, mods)?;
    rules.set_trace(trace);
    let scenario = scenario::resolve(&module, scenario_arg).map_err(|e| anyhow!("{e}"))?;
    let Some(side_id) = module.find_side(side) else {
        let hint = module.side_hint(side).unwrap_or_default();
        bail!("no side '{side}' in module '{}'; {hint}", module.id);
    };
    let Some(at) = module.board.find(box_name) else {
        let hint = module
            .board
            .hint(box_name)
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        bail!("no box '{box_name}'{hint}");
    };
    let mut state = GameState::new(&module, &scenario, Vec::new(), Dice::seeded(0))?;
    let Some(player) = module.calendar.sides.iter().position(|&s| s == side_id) else {
        bail!("side '{side}' never plays");
    };
    state.player = u8::try_from(player)?;
    let mut units = Vec::new();
    for u in state.units_at(at).collect::<Vec<_>>() {
        if state.unit(u).side != side_id {
            continue;
        }
        let found = destinations(
            View {
                module: &module,
                state: &state,
            },
            &mut rules,
            u,
        )?;
        let dests = found
            .iter()
            .map(|d| Dest {
                to: describe::place(&module, d.path.to()).to_string(),
                path: std::iter::once(d.path.from)
                    .chain(d.path.steps.iter().map(|s| s.to))
                    .map(|b| describe::place(&module, b).to_string())
                    .collect(),
                lines: d
                    .path
                    .steps
                    .iter()
                    .map(|s| {
                        module.board.kinds[module.board.line(s.line).kind.index()]
                            .id
                            .clone()
                    })
                    .collect(),
                jump: d.jump,
            })
            .collect();
        // Questions about paths the search asked and a handler answered no.
        let refused = rules
            .take_trace()
            .into_iter()
            .filter(|t| matches!(t.hook, "may_enter" | "may_stop"))
            .filter_map(|t| {
                let no = t.first("no")?;
                Some(Refusal {
                    handler: no.handler.clone(),
                    id: no.id.clone(),
                    question: t.question,
                })
            })
            .collect();
        units.push(UnitMoves {
            unit: u.0,
            kind: module.units.get(state.unit(u).kind).id.clone(),
            destinations: dests,
            refused,
        });
    }
    let report = Report {
        scenario: scenario.id.clone(),
        side: module.side(side_id).id.clone(),
        at: module.board.get(at).name.clone(),
        units,
    };
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
        return Ok(());
    }
    if report.units.is_empty() {
        writeln!(
            out,
            "{} has no units in {}",
            module.side(side_id).name,
            report.at
        )?;
    }
    for u in &report.units {
        let name = describe::unit(&module, &state, muster_core::ids::UnitId(u.unit));
        writeln!(
            out,
            "{name} in {}: {} destinations",
            report.at,
            u.destinations.len()
        )?;
        for d in &u.destinations {
            let mut route = d.path[0].clone();
            for (line, b) in d.lines.iter().zip(&d.path[1..]) {
                route.push_str(&format!(" -{line}-> {b}"));
            }
            let jump = if d.jump { "  (jump)" } else { "" };
            writeln!(out, "  {:<28} {route}{jump}", d.to)?;
        }
        if !u.refused.is_empty() {
            writeln!(out, "  refused by the rules:")?;
        }
        for r in &u.refused {
            let id =
                r.id.as_deref()
                    .map(|i| format!(" ({i})"))
                    .unwrap_or_default();
            writeln!(out, "    {}: no, from {}{id}", r.question, r.handler)?;
        }
    }
    Ok(())
}
