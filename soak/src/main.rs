//! `muster-soak`: the invariant soak (issue 17, item 5). Plays many games, random and
//! `ai`, across every scenario of each module stack and random sets of its optional
//! rules, checks the invariants after every action and replays each finished game from
//! its save; reports games, actions, failures (with what reproduces them) and time.
//!
//! `cargo run --release -p muster-soak -- --games 10000`; not part of `cargo test`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use clap::Parser;
use muster_core::game::dice::Pcg32;
use muster_soak::game::{self, Kind, Spec, Variant};
use muster_soak::harness::{VARIANTS, root};

#[derive(Parser)]
#[command(about = "Plays many games checking the invariants after every action")]
struct Args {
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Stop starting games after this many seconds (the games under way finish).
    #[arg(long)]
    seconds: Option<u64>,
    /// Seed of the first game; game i has seed FIRST_SEED + i.
    #[arg(long, default_value_t = 1)]
    first_seed: u64,
    /// Every Nth game has an `ai` player (the union, then the confederate, then both, in
    /// turn); the others are random against random. 0: random games only.
    #[arg(long, default_value_t = 10)]
    ai_every: usize,
    /// Module stacks to play, by name: ahd, ahd-1981, ahd-triplea (default: all).
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
    /// Threads (each loads the modules and rules once).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Skip replaying each finished game from its save.
    #[arg(long)]
    no_replay: bool,
    /// Play only this game (its number in the run, 0-based) and show it in full.
    #[arg(long)]
    only: Option<usize>,
}

/// What game `i` of a run is: its stack, scenario, options, seed and players.
fn spec(variant: &Variant, i: usize, per_variant: usize, args: &Args) -> Spec {
    let m = &variant.module;
    let seed = args.first_seed + i as u64;
    let scenario = m.scenarios[(i / per_variant) % m.scenarios.len()]
        .id
        .clone();
    // Optional rules: none, all, or each with even odds, from the seed (a stream of its
    // own, so the choice never changes the dice or the moves).
    let mut pick = Pcg32::new(seed, 7);
    let options = match (i / per_variant) % 8 {
        0 => Vec::new(),
        1 => m.options.iter().map(|o| o.id.clone()).collect(),
        _ => m
            .options
            .iter()
            .filter(|_| pick.between_one_and(2) == 1)
            .map(|o| o.id.clone())
            .collect(),
    };
    let mut players = vec![Kind::Random; m.sides.len()];
    if args.ai_every > 0 && i % args.ai_every == args.ai_every - 1 {
        match (i / args.ai_every) % 3 {
            0 => players[0] = Kind::Ai,
            1 => {
                if let Some(p) = players.last_mut() {
                    *p = Kind::Ai;
                }
            }
            _ => players.iter_mut().for_each(|p| *p = Kind::Ai),
        }
    }
    Spec {
        scenario,
        options,
        seed,
        players,
    }
}

#[derive(Default)]
struct Totals {
    games: usize,
    finished: usize,
    random_games: usize,
    ai_games: usize,
    actions: usize,
    failures: Vec<String>,
    per_variant: Vec<(String, usize, usize)>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let wanted: Vec<usize> = if args.variants.is_empty() {
        (0..VARIANTS.len()).collect()
    } else {
        let mut v = Vec::new();
        for name in &args.variants {
            let Some(i) = VARIANTS.iter().position(|(base, mods)| {
                mods.last().unwrap_or(base).rsplit('/').next() == Some(name.as_str())
            }) else {
                bail!("no module stack '{name}'; the stacks are ahd, ahd-1981, ahd-triplea");
            };
            v.push(i);
        }
        v
    };
    let root = root();
    let next = AtomicUsize::new(args.only.unwrap_or(0));
    let last = args.only.map_or(args.games, |o| o + 1);
    let totals = Mutex::new(Totals::default());
    let started = Instant::now();
    let deadline = args.seconds.map(|s| started + Duration::from_secs(s));
    std::thread::scope(|scope| -> Result<()> {
        let mut handles = Vec::new();
        for _ in 0..args.jobs.max(1) {
            handles.push(scope.spawn(|| -> Result<()> {
                let mut variants = wanted
                    .iter()
                    .map(|&i| Variant::load(&root, VARIANTS[i].0, VARIANTS[i].1))
                    .collect::<Result<Vec<_>>>()?;
                loop {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return Ok(());
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= last {
                        return Ok(());
                    }
                    let n = variants.len();
                    let variant = &mut variants[i % n];
                    let spec = spec(variant, i, n, &args);
                    let played = game::play(variant, &spec, !args.no_replay);
                    let ai = spec.players.contains(&Kind::Ai);
                    let mut t = totals.lock().unwrap_or_else(|e| e.into_inner());
                    t.games += 1;
                    t.finished += usize::from(played.finished);
                    t.actions += played.actions;
                    if ai {
                        t.ai_games += 1;
                    } else {
                        t.random_games += 1;
                    }
                    match t.per_variant.iter_mut().find(|(v, _, _)| *v == variant.name) {
                        Some(entry) => {
                            entry.1 += 1;
                            entry.2 += played.actions;
                        }
                        None => t
                            .per_variant
                            .push((variant.name.clone(), 1, played.actions)),
                    }
                    if let Some(f) = played.failure {
                        let line = format!(
                            "game {i}: {} scenario {} options [{}] seed {} players {}: {} {}\n  reproduce: {}\n  or: cargo run --release -p muster-soak -- --only {i} --first-seed {} --ai-every {}{}",
                            variant.name,
                            spec.scenario,
                            spec.options.join(","),
                            spec.seed,
                            spec.players.iter().map(|p| p.name()).collect::<Vec<_>>().join("/"),
                            f.action.map_or("at the start or replay:".into(), |a| format!("action {a}:")),
                            f.message,
                            game::command(variant, &spec),
                            args.first_seed,
                            args.ai_every,
                            if args.variants.is_empty() { String::new() } else { format!(" --variants {}", args.variants.join(",")) },
                        );
                        eprintln!("FAIL {line}");
                        t.failures.push(line);
                    }
                    if t.games.is_multiple_of(500) {
                        eprintln!(
                            "{} games, {} actions, {} failures, {:.0} s",
                            t.games,
                            t.actions,
                            t.failures.len(),
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
            }));
        }
        for h in handles {
            h.join()
                .map_err(|_| anyhow::anyhow!("a soak thread panicked"))??;
        }
        Ok(())
    })?;
    let t = totals.into_inner().unwrap_or_else(|e| e.into_inner());
    let secs = started.elapsed().as_secs_f64();
    println!(
        "soak: {} games ({} random, {} with an ai player), {} finished, {} actions, {} failures, {:.1} s ({:.0} actions/s)",
        t.games,
        t.random_games,
        t.ai_games,
        t.finished,
        t.actions,
        t.failures.len(),
        secs,
        t.actions as f64 / secs.max(1e-9)
    );
    for (name, games, actions) in &t.per_variant {
        println!("  {name}: {games} games, {actions} actions");
    }
    for f in &t.failures {
        println!("FAIL {f}");
    }
    if !t.failures.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}
