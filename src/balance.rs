//! `muster balance`: many games between computer players, to see who a rule favours.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use muster_ai::Level;
use muster_ai::balance::{GameResult, GameSetup, Summary, run, summarise};
use muster_core::scenario;
use muster_scripting::{Limits, ScriptRules};

use crate::players::{StrongArgs, parse_level, parse_seat_level, parse_side_level};

// `muster balance`.
#[derive(clap::Args)]
pub struct Args {
    /// The module folder, e.g. mods/ahd.
    module: PathBuf,
    /// A mod to lay on the module (a folder whose <extends> names the module or an
    /// earlier mod); repeat for several, lowest first.
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    /// How many games (game i uses seed SEED+i).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// A scenario id of the module or a scenario .xml file (default: the first).
    #[arg(long, value_name = "ID|FILE")]
    scenario: Option<String>,
    /// Optional rules to use, by id or rule number, separated by commas.
    #[arg(long, value_delimiter = ',')]
    options: Vec<String>,
    /// Who plays the side called union: ai (default), strong, greedy or random.
    #[arg(long, value_name = "LEVEL", value_parser = parse_level)]
    union: Option<Level>,
    /// Who plays the side called confederate: ai (default), strong, greedy or random.
    #[arg(long, value_name = "LEVEL", value_parser = parse_level)]
    confederate: Option<Level>,
    /// Who plays a side, for any module: SIDE=ai|strong|greedy|random (every seat of the
    /// side).
    #[arg(long, value_name = "SIDE=LEVEL", value_parser = parse_side_level)]
    player: Vec<(String, Level)>,
    /// Who plays one seat, where a side has several (or a referee's): SEAT=LEVEL, after
    /// the sides' players.
    #[arg(long = "seat", value_name = "SEAT=LEVEL", value_parser = parse_seat_level)]
    seats: Vec<(String, Level)>,
    /// The first game's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads to play on (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// End each game after this turn instead of the scenario's last, e.g. 03/1863.
    #[arg(long, value_name = "MM/YYYY")]
    end: Option<String>,
    /// Also write one line per game to this CSV file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    strong: StrongArgs,
    /// Give up on a game after this many actions (it counts as unfinished).
    #[arg(long, default_value_t = 200_000)]
    max_actions: usize,
}

pub fn run_cli(mut o: Args) -> Result<()> {
    o.player.extend(o.union.map(|k| ("union".to_string(), k)));
    o.player
        .extend(o.confederate.map(|k| ("confederate".to_string(), k)));
    for (_, level) in o.player.iter_mut().chain(o.seats.iter_mut()) {
        if let Level::Strong { .. } = level {
            *level = o.strong.level();
        }
    }
    let module = muster_core::load_stack(&o.module, &o.mods).map_err(|e| anyhow!("{e}"))?;
    // Fail early, on the main thread, if the rules do not load.
    ScriptRules::load(&module, Limits::default()).map_err(|e| anyhow!("{e}"))?;
    let scenario_arg = o.scenario.clone().unwrap_or_else(|| {
        module
            .scenarios
            .first()
            .map(|s| s.id.clone())
            .unwrap_or_default()
    });
    let scenario = scenario::resolve(&module, &scenario_arg).map_err(|e| anyhow!("{e}"))?;
    let levels = crate::players::seat_choices(&module, Level::Ai, &o.player, &o.seats)?;
    let option_ids = crate::rules::options(&module, &o.options)?;
    if o.games == 0 {
        bail!("--games must be at least 1");
    }
    let setup = GameSetup {
        scenario: &scenario,
        options: option_ids,
        players: levels.clone(),
        end: o.end.clone(),
        max_actions: o.max_actions,
    };
    let threads = if o.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        o.threads
    };
    let started = Instant::now();
    let bar = Progress::new(o.games);
    let results = run(
        &module,
        || ScriptRules::load(&module, Limits::default()).map_err(|e| e.to_string()),
        &setup,
        o.games,
        o.seed,
        threads,
        &|done| bar.update(done),
    )
    .map_err(|e| anyhow!("{e}"))?;
    bar.finish();
    let elapsed = started.elapsed();
    let summary = summarise(&module, &results);
    if let Some(path) = &o.csv {
        write_csv(path, &results).with_context(|| format!("writing {}", path.display()))?;
    }
    let players: Vec<String> = module
        .seat_ids()
        .map(|s| format!("{}={}", module.seat(s).id, levels[s.index()].name()))
        .collect();
    let out = &mut std::io::stdout().lock();
    if o.json {
        let report = serde_json::json!({
            "module": module.id,
            "scenario": scenario.id,
            "options": o.options,
            "players": players,
            "seed": o.seed,
            "threads": threads,
            "seconds": elapsed.as_secs_f64(),
            "summary": summary,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_summary(
            out,
            &scenario.name,
            &players,
            &o.options,
            &summary,
            threads,
            elapsed,
        )?;
    }
    if !summary.failed.is_empty() {
        bail!(
            "{} of {} games failed on a rule error (first: seed {}); the others are reported above",
            summary.failed.len(),
            o.games,
            summary.failed[0].0
        );
    }
    Ok(())
}

fn print_summary(
    out: &mut impl Write,
    scenario: &str,
    players: &[String],
    options: &[String],
    s: &Summary,
    threads: usize,
    elapsed: std::time::Duration,
) -> Result<()> {
    writeln!(
        out,
        "{} games of {scenario} ({}), options: {}; {:.1} s on {threads} thread(s)",
        s.games,
        players.join(", "),
        if options.is_empty() {
            "none".to_string()
        } else {
            options.join(",")
        },
        elapsed.as_secs_f64()
    )?;
    for (side, r) in &s.wins {
        writeln!(
            out,
            "  {side:<14} wins {:>5} ({:5.1}%, 95% CI {:5.1}%-{:5.1}%)",
            r.count,
            r.rate * 100.0,
            r.low * 100.0,
            r.high * 100.0
        )?;
    }
    if s.draws.count > 0 {
        writeln!(out, "  draws {}", s.draws.count)?;
    }
    if s.unfinished > 0 {
        writeln!(out, "  unfinished {}", s.unfinished)?;
    }
    if s.fallbacks > 0 {
        writeln!(
            out,
            "  computer choices the game refused (a random legal action taken instead): {}",
            s.fallbacks
        )?;
    }
    if !s.failed.is_empty() {
        writeln!(
            out,
            "  failed {} (a rule error; left out of the figures):",
            s.failed.len()
        )?;
        for (seed, error) in &s.failed {
            writeln!(out, "    seed {seed}: {error}")?;
        }
    }
    writeln!(out, "victory conditions reached:")?;
    for (reason, n) in &s.reasons {
        writeln!(out, "  {n:>5}  {reason}")?;
    }
    let l = &s.length;
    writeln!(
        out,
        "game length in turns: min {}, quartiles {}/{}/{}, max {}, mean {:.1}",
        l.min, l.q1, l.median, l.q3, l.max, l.mean
    )?;
    Ok(())
}

fn write_csv(path: &std::path::Path, results: &[GameResult]) -> Result<()> {
    let mut text =
        String::from("seed,winner,turns,last_turn,actions,finished,reason,error,fallbacks\n");
    for r in results {
        text.push_str(&format!(
            "{},{},{},{},{},{},\"{}\",\"{}\",{}\n",
            r.seed,
            r.winner.as_deref().unwrap_or(""),
            r.turns,
            r.last_turn,
            r.actions,
            r.finished,
            r.reason.replace('"', "\"\""),
            r.error.as_deref().unwrap_or("").replace('"', "\"\""),
            r.fallbacks
        ));
    }
    std::fs::write(path, text)?;
    Ok(())
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
struct Progress {
    total: usize,
    shown: AtomicU64,
    on: bool,
    started: Instant,
}

impl Progress {
    fn new(total: usize) -> Self {
        Progress {
            total,
            shown: AtomicU64::new(0),
            on: std::io::stderr().is_terminal(),
            started: Instant::now(),
        }
    }

    fn update(&self, done: usize) {
        if !self.on {
            return;
        }
        // Redraw at most every 1% (and always at the end).
        let step = (self.total / 100).max(1) as u64;
        let done64 = done as u64;
        let last = self.shown.load(Ordering::Relaxed);
        if done64 < last + step && done < self.total {
            return;
        }
        self.shown.store(done64, Ordering::Relaxed);
        let width = 30;
        let filled = done * width / self.total.max(1);
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}{}] {done}/{} games, {:.0} s",
            "#".repeat(filled),
            " ".repeat(width - filled),
            self.total,
            self.started.elapsed().as_secs_f64()
        );
        let _ = err.flush();
    }

    fn finish(&self) {
        if self.on {
            let _ = writeln!(std::io::stderr());
        }
    }
}
