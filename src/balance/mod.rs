//! `muster balance`: many games between computer players, to see who a rule favours;
//! a study cut into parts for several machines, and the parts merged (`part.rs`).

mod part;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use muster_ai::Level;
use muster_ai::balance::{GameResult, GameSetup, Summary, run, summarise_sides};
use muster_core::scenario;
use muster_scripting::{Limits, ScriptRules};

use crate::players::{StrongArgs, parse_level, parse_seat_level, parse_side_level};
use part::{Part, Shard, Study};

// `muster balance`.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// The module folder, e.g. mods/ahd.
    #[arg(required = true)]
    module: Option<PathBuf>,
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
    /// Play only the I-th of N parts of the study (1 ≤ I ≤ N; a scheduler's 0-based
    /// index plus one) and write it to --part; `muster balance merge` reports the parts.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse, requires = "part")]
    shard: Option<Shard>,
    /// Where --shard writes its part (JSON).
    #[arg(long, value_name = "FILE", requires = "shard")]
    part: Option<PathBuf>,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Reports a study's parts (written by --shard I/N --part FILE) as one run of the
    /// whole study would, byte for byte.
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct MergeArgs {
    /// Every part's file, in any order.
    #[arg(required = true, value_name = "PART")]
    parts: Vec<PathBuf>,
    /// Also write one line per game to this CSV file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run_cli(mut o: Args) -> Result<()> {
    if let Some(Command::Merge(m)) = o.command {
        return merge(m);
    }
    let module_dir = o.module.clone().context("a module folder, e.g. mods/ahd")?;
    o.player.extend(o.union.map(|k| ("union".to_string(), k)));
    o.player
        .extend(o.confederate.map(|k| ("confederate".to_string(), k)));
    for (_, level) in o.player.iter_mut().chain(o.seats.iter_mut()) {
        if let Level::Strong { .. } = level {
            *level = o.strong.level();
        }
    }
    let module = muster_core::load_stack(&module_dir, &o.mods).map_err(|e| anyhow!("{e}"))?;
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
    let (first, end) = match o.shard {
        Some(shard) if shard.of > o.games => bail!(
            "--shard {}/{}: a study of {} games has at most {} parts",
            shard.index,
            shard.of,
            o.games,
            o.games
        ),
        Some(shard) => shard.games(o.games),
        None => (0, o.games),
    };
    let study = Study {
        stack: module
            .stack
            .iter()
            .map(|e| format!("{} {} {:016x}", e.id, e.version, e.content_hash))
            .collect(),
        scenario: scenario.id.clone(),
        scenario_name: scenario.name.clone(),
        options: o.options.clone(),
        option_ids: option_ids
            .iter()
            .map(|&id| module.options[id.index()].id.clone())
            .collect(),
        players: module
            .seat_ids()
            .map(|s| format!("{}={}", module.seat(s).id, levels[s.index()].name()))
            .collect(),
        levels: levels.clone(),
        seed: o.seed,
        games: o.games,
        end: o.end.clone(),
        max_actions: o.max_actions,
        sides: module
            .side_ids()
            .map(|s| module.side(s).id.clone())
            .collect(),
    };
    let setup = GameSetup {
        scenario: &scenario,
        options: option_ids,
        players: levels,
        end: o.end.clone(),
        max_actions: o.max_actions,
    };
    let threads = if o.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        o.threads
    };
    let started = Instant::now();
    let bar = progress_bar(end - first);
    let results = run(
        &module,
        // Each thread's rules play many games: compiled to machine code.
        || ScriptRules::load(&module, Limits::default().native()).map_err(|e| e.to_string()),
        &setup,
        end - first,
        o.seed.wrapping_add(first as u64),
        threads,
        &|done| bar.set_position(done as u64),
    )
    .map_err(|e| anyhow!("{e}"))?;
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    // The time is the machine's, not the study's: on stderr, so a report is the same
    // wherever and however its games were played.
    eprintln!(
        "{} games in {elapsed:.1} s on {threads} thread(s): {:.1} games/s",
        end - first,
        (end - first) as f64 / elapsed.max(1e-9)
    );
    if let (Some(shard), Some(path)) = (o.shard, &o.part) {
        Part::new(study, shard, results).write(path)?;
        eprintln!(
            "part {}/{} (games {}-{} of {}) written to {}; `muster balance merge` reports \
             the parts",
            shard.index,
            shard.of,
            first + 1,
            end,
            o.games,
            path.display()
        );
        return Ok(());
    }
    report(&study, &results, o.csv.as_deref(), o.json)
}

/// `muster balance merge`: the parts' games reported as one run.
fn merge(m: MergeArgs) -> Result<()> {
    let (study, results) = part::merge(&m.parts)?;
    report(&study, &results, m.csv.as_deref(), m.json)
}

/// Prints a study's report (and writes its CSV): the same for one run or merged parts.
fn report(
    study: &Study,
    results: &[GameResult],
    csv: Option<&std::path::Path>,
    json: bool,
) -> Result<()> {
    let summary = summarise_sides(&study.sides, results);
    if let Some(path) = csv {
        write_csv(path, results).with_context(|| format!("writing {}", path.display()))?;
    }
    let out = &mut std::io::stdout().lock();
    if json {
        let report = serde_json::json!({
            "module": study.stack.last().and_then(|s| s.split(' ').next()),
            "scenario": study.scenario,
            "options": study.options,
            "players": study.players,
            "seed": study.seed,
            "summary": summary,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_summary(
            out,
            &study.scenario_name,
            &study.players,
            &study.options,
            &summary,
        )?;
    }
    if !summary.failed.is_empty() {
        bail!(
            "{} of {} games failed on a rule error (first: seed {}); the others are reported above",
            summary.failed.len(),
            study.games,
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
) -> Result<()> {
    writeln!(
        out,
        "{} games of {scenario} ({}), options: {}",
        s.games,
        players.join(", "),
        if options.is_empty() {
            "none".to_string()
        } else {
            options.join(",")
        },
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

/// Games done, their rate and the time left, on stderr; hidden when stderr is not a
/// terminal (a log file, a scheduler's job).
fn progress_bar(total: usize) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let style = ProgressStyle::with_template("[{bar:30}] {pos}/{len} games, {rate}, {eta} left")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1} games/s", state.per_sec());
            },
        )
        .progress_chars("#> ");
    ProgressBar::with_draw_target(Some(total as u64), target).with_style(style)
}
