//! `muster odds`: the battle-odds calculator. Plays one battle many times, both sides
//! naming targets with the computer players' policy, and prints who wins, who retreats,
//! the expected survivors and how long battles last (the work is `muster_ai::odds`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Result, anyhow};
use muster_ai::odds::{
    Config, Exact, Report, RetreatPolicy, Role, Setup, SideReport, Spec, resolved, simulate,
};
use muster_core::unit::Flags;
use serde::Serialize;

/// Runs at least this long (in battles) show a progress bar, if stderr is a terminal.
const PROGRESS_FROM: u64 = 100_000;

#[derive(clap::Args)]
pub struct Args {
    /// The module folder, e.g. mods/ahd.
    module: PathBuf,
    /// A mod to lay on the module (a folder whose <extends> names the module or an
    /// earlier mod); repeat for several, lowest first.
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    /// The attacking force: unit types with counts, e.g. "3 Vi, 1 Vc" (AHD's types, as
    /// in 11.4: Mi Mc Vi Vc Ci Cc). Pieces that do not fight stand with the side, with
    /// attribute values in brackets if not the type's: "3 Vi, grant[strength=2]".
    #[arg(long, value_name = "UNITS")]
    attacker: String,
    /// The defending force, e.g. "2 Mi, 1 Ci".
    #[arg(long, value_name = "UNITS")]
    defender: String,
    /// The attacking side (default: the side that does not own the box, or else the
    /// first side to play).
    #[arg(long, value_name = "SIDE")]
    attacker_side: Option<String>,
    /// The battle box: the water borders to cross, the neighbours to retreat to (asked
    /// of the rules, with every box held by its owner), and what the rules give pieces
    /// that begin a player turn there (AHD: a permanent entrenchment). Without it a
    /// retreat is always possible.
    #[arg(long = "box", value_name = "NAME")]
    at: Option<String>,
    /// A flag every defender carries, by id, repeatable: --flag entrenched (AHD's
    /// entrenchment of units, 5.31; a module that entrenches boxes with markers takes
    /// --marker instead).
    #[arg(long = "flag", value_name = "ID")]
    flags: Vec<String>,
    /// Markers in the battle box, ID=N, repeatable: --marker entrenchment=1
    /// --marker water-crossing=2 (the TripleA adaptation's).
    #[arg(long = "marker", value_name = "ID=N")]
    markers: Vec<String>,
    /// The first N attackers crossed a river into the box (5.34); needs a --box with a
    /// water border.
    #[arg(long, value_name = "N", default_value_t = 0)]
    crossing: usize,
    /// Optional rules to use, by id or rule number, separated by commas.
    #[arg(long, value_delimiter = ',')]
    options: Vec<String>,
    /// When the attacker retreats (5.4, from round 2): never, after:N (after round N),
    /// losses:N (more than N steps lost) or losses:P% (of its starting steps).
    #[arg(long, value_name = "POLICY", default_value = "never")]
    attacker_retreat: RetreatPolicy,
    /// When the defender retreats, likewise; after:0 also withdraws cavalry before
    /// combat where 5.6 allows.
    #[arg(long, value_name = "POLICY", default_value = "never")]
    defender_retreat: RetreatPolicy,
    /// Attackers that entered the box from a neighbour, FROM=N, repeatable: the next N
    /// attackers (in the order of --attacker) came by the line from FROM (a module whose
    /// rules read the approach: Divided We Fall's terrain column, L1101). Needs --box.
    #[arg(long = "from", value_name = "BOX=N")]
    from: Vec<String>,
    /// Battles to play.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    runs: u64,
    /// Seed of the dice: the same seed gives the same report.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object on stdout instead of text.
    #[arg(long)]
    json: bool,
}

/// A piece with a side that does not fight, in `--json`.
#[derive(Serialize)]
struct Companion<'a> {
    side: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    /// Attribute values other than the type's.
    attributes: Vec<(&'a str, i64)>,
}

/// What `--json` prints: the question, then the report's fields.
#[derive(Serialize)]
struct Output<'a> {
    module: &'a str,
    #[serde(rename = "box")]
    at: Option<&'a str>,
    /// The flags the defenders carry (by --flag, or from the box), by id.
    flags: Vec<&'a str>,
    crossing: usize,
    options: Vec<&'a str>,
    /// Markers in the box, by id.
    markers: Vec<(&'a str, u16)>,
    /// Pieces with a side that do not fight (generals), by type id.
    companions: Vec<Companion<'a>>,
    #[serde(flatten)]
    report: &'a Report,
}

pub fn run(args: &Args) -> Result<()> {
    let (module, mut rules) = crate::rules::load(&args.module, &args.mods)?;
    let spec = Spec {
        attackers: args.attacker.clone(),
        defenders: args.defender.clone(),
        attacker_side: args.attacker_side.clone(),
        at: args.at.clone(),
        flags: args.flags.clone(),
        crossing: args.crossing,
        options: args.options.clone(),
        markers: args.markers.clone(),
    };
    let mut setup = Setup::from_spec(&module, &spec).map_err(|e| anyhow!("{e}"))?;
    setup
        .settle(&module, &mut rules)
        .map_err(|e| anyhow!("{e}"))?;
    for item in &args.from {
        let (from, n) = item
            .rsplit_once('=')
            .ok_or_else(|| anyhow!("--from {item}: write BOX=N, e.g. --from Fredericksburg=3"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| anyhow!("--from {item}: '{n}' is not a number of attackers"))?;
        setup
            .enter_from(&module, from.trim(), n)
            .map_err(|e| anyhow!("{e}"))?;
    }
    // A module whose rules resolve battles has no dice: one outcome, exactly.
    if let Some(exact) = resolved(&module, &mut rules, &setup).map_err(|e| anyhow!("{e}"))? {
        return print_exact(&module, &setup, &exact, args.json);
    }
    let config = Config {
        runs: args.runs,
        seed: args.seed,
        attacker_retreat: args.attacker_retreat,
        defender_retreat: args.defender_retreat,
    };
    let report = if std::io::stderr().is_terminal() && args.runs >= PROGRESS_FROM {
        let mut bar = Bar::new(args.runs);
        let mut show = |done: u64| bar.show(done);
        let report = simulate(&module, &mut rules, &setup, &config, Some(&mut show));
        bar.clear();
        report
    } else {
        simulate(&module, &mut rules, &setup, &config, None)
    }
    .map_err(|e| anyhow!("{e}"))?;

    let at = setup.at.map(|b| module.board.get(b).name.as_str());
    let flags = setup
        .defenders
        .iter()
        .fold(Flags::NONE, |all, f| Flags(all.0 | f.flags.0));
    let options: Vec<&str> = setup
        .options
        .iter()
        .map(|&o| module.options[o.index()].id.as_str())
        .collect();
    let markers: Vec<(&str, u16)> = setup
        .markers
        .iter()
        .map(|&(id, n)| (module.units.markers[id.index()].id.as_str(), n))
        .collect();
    let companions: Vec<Companion> = setup
        .companions
        .iter()
        .map(|c| Companion {
            side: module.side(setup.side(c.role)).id.as_str(),
            kind: module.units.get(c.kind).id.as_str(),
            attributes: setup
                .attributes
                .iter()
                .filter(|a| a.0 == c.unit)
                .map(|&(_, a, v)| (module.units.attributes[a.index()].as_str(), v))
                .collect(),
        })
        .collect();
    let out = &mut std::io::stdout().lock();
    if args.json {
        let output = Output {
            module: &module.id,
            at,
            flags: flags
                .iter()
                .map(|f| module.units.flags[f.index()].id.as_str())
                .collect(),
            crossing: args.crossing,
            options,
            markers,
            companions,
            report: &report,
        };
        serde_json::to_writer_pretty(&mut *out, &output)?;
        writeln!(out)?;
        return Ok(());
    }
    let (a, d) = (&report.attacker, &report.defender);
    let place = at.map(|b| format!(" at {b}")).unwrap_or_default();
    writeln!(
        out,
        "{}: {} ({}) attacks {} ({}){place}",
        module.name,
        force(a),
        a.side,
        force(d),
        d.side
    )?;
    let mut notes = Vec::new();
    if !flags.is_empty() {
        notes.push(format!("defenders {}", module.units.flag_names(flags)));
    }
    if args.crossing > 0 {
        notes.push(format!(
            "{} attackers crossed a river (5.34)",
            args.crossing
        ));
    }
    if !options.is_empty() {
        notes.push(format!("options: {}", options.join(", ")));
    }
    if !markers.is_empty() {
        let list: Vec<String> = markers.iter().map(|(id, n)| format!("{n} {id}")).collect();
        notes.push(format!("markers: {}", list.join(", ")));
    }
    for c in &companions {
        let values: Vec<String> = c
            .attributes
            .iter()
            .map(|(a, v)| format!("{a} {v}"))
            .collect();
        let values = if values.is_empty() {
            String::new()
        } else {
            format!(" ({})", values.join(", "))
        };
        notes.push(format!("{} with the {}{values}", c.kind, c.side));
    }
    if !notes.is_empty() {
        writeln!(out, "  {}", notes.join("; "))?;
    }
    writeln!(
        out,
        "{} battles, seed {}; retreat: {} {}, {} {}",
        report.runs, report.seed, a.side, a.retreat_policy, d.side, d.retreat_policy
    )?;
    writeln!(out)?;
    let width = a.side.len().max(d.side.len()).max(12);
    writeln!(out, "{:width$}  {:>7}  {:>8}", "", "wins", "retreats")?;
    for s in [a, d] {
        writeln!(
            out,
            "{:width$}  {:>6.1}%  {:>7.1}%",
            s.side, s.win_pct, s.retreat_pct
        )?;
    }
    if report.withdrawals > 0 {
        writeln!(
            out,
            "{:width$}  {:>6.1}%  (the defender's cavalry left before combat, 5.6)",
            "withdrawn", report.withdrawal_pct
        )?;
    }
    if report.undecided > 0 {
        writeln!(
            out,
            "{:width$}  {:>6.1}%  (no winner: both sides gone in one volley, or still fighting after round 255)",
            "undecided", report.undecided_pct
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "expected survivors (of the units at the start; reduced among them):"
    )?;
    for s in [a, d] {
        for t in &s.units {
            writeln!(
                out,
                "  {:width$} {:>4} {:<3} -> {:>5.2} ({:.2} reduced)",
                s.side, t.count, t.kind, t.survivors, t.reduced
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "rounds (mean {:.2}):", report.mean_rounds)?;
    let shown: Vec<String> = report
        .rounds
        .iter()
        .map(|r| format!("{}: {:.1}%", r.round, r.pct))
        .collect();
    for line in shown.chunks(8) {
        writeln!(out, "  {}", line.join("  "))?;
    }
    Ok(())
}

/// "3 Vi, 1 Vc".
fn force(side: &SideReport) -> String {
    side.units
        .iter()
        .map(|t| format!("{} {}", t.count, t.kind))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A one-line progress bar on stderr, redrawn when the percentage changes.
struct Bar {
    total: u64,
    shown: Option<u64>,
}

impl Bar {
    const WIDTH: u64 = 40;

    fn new(total: u64) -> Self {
        Bar { total, shown: None }
    }

    fn show(&mut self, done: u64) {
        let pct = done * 100 / self.total.max(1);
        if self.shown == Some(pct) {
            return;
        }
        self.shown = Some(pct);
        let filled = (pct * Self::WIDTH / 100) as usize;
        let empty = Self::WIDTH as usize - filled;
        eprint!(
            "\r[{}{}] {pct:>3}% of {} battles",
            "#".repeat(filled),
            " ".repeat(empty),
            self.total
        );
        let _ = std::io::stderr().flush();
    }

    /// Erases the bar.
    fn clear(&self) {
        eprint!("\r{}\r", " ".repeat(Self::WIDTH as usize + 40));
        let _ = std::io::stderr().flush();
    }
}

/// What `--json` prints for a battle the rules resolve.
#[derive(Serialize)]
struct ExactOutput<'a> {
    module: &'a str,
    #[serde(rename = "box")]
    at: Option<&'a str>,
    attacker: &'a str,
    defender: &'a str,
    /// Steps each side loses.
    attacker_losses: u32,
    defender_losses: u32,
    /// The side holding the field; null if both stay.
    winner: Option<&'a str>,
    /// Always 1: the battle has one outcome.
    probability: f64,
    log: &'a [String],
}

/// The one outcome of a battle the rules resolve (no dice): each side's losses, the
/// winner, probability 100%, and the battle's log.
fn print_exact(
    module: &muster_core::Module,
    setup: &Setup,
    exact: &Exact,
    json: bool,
) -> Result<()> {
    let side = |r: Role| module.side(setup.side(r)).id.as_str();
    let at = setup.at.map(|b| module.board.get(b).name.as_str());
    let winner = exact.winner.map(|w| module.side(w).id.as_str());
    let out = &mut std::io::stdout().lock();
    if json {
        let output = ExactOutput {
            module: &module.id,
            at,
            attacker: side(Role::Attacker),
            defender: side(Role::Defender),
            attacker_losses: exact.attacker_losses,
            defender_losses: exact.defender_losses,
            winner,
            probability: 1.0,
            log: &exact.log,
        };
        serde_json::to_writer_pretty(&mut *out, &output)?;
        writeln!(out)?;
        return Ok(());
    }
    let place = at.map(|b| format!(" at {b}")).unwrap_or_default();
    writeln!(
        out,
        "{}: {} attacks {}{place}; resolved by the rules, one outcome (100%):",
        module.name,
        side(Role::Attacker),
        side(Role::Defender)
    )?;
    writeln!(
        out,
        "  {} loses {} steps",
        side(Role::Attacker),
        exact.attacker_losses
    )?;
    writeln!(
        out,
        "  {} loses {} steps",
        side(Role::Defender),
        exact.defender_losses
    )?;
    match winner {
        Some(w) => writeln!(out, "  {w} wins")?,
        None => writeln!(out, "  neither side wins: both stay")?,
    }
    for line in &exact.log {
        writeln!(out, "    {line}")?;
    }
    Ok(())
}
