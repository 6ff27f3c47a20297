//! `muster play`: a whole game at the terminal. Each seat is a human at the prompt or a
//! computer player; the seats are asked in turn ([`Turns`]), each choosing among its own
//! `legal_actions_for`, each action checked for its seat (`allowed_by`) and applied.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use muster_core::game::save::{self, Save, SaveError, SavedScenario};
use muster_core::game::{
    Action, Dice, GameState, History, Turns, allowed_by, decider, describe, legal_actions_for,
    set_end, start,
};
use muster_core::{Module, scenario};
use muster_scripting::ScriptRules;

use crate::players::{
    PlayerKind, StrongArgs, parse_player, parse_search_threads, parse_seat_player,
};

// `muster play` (no doc comment: clap would take it for the subcommand's about).
#[derive(clap::Args)]
pub struct Args {
    /// The module folder, e.g. mods/ahd.
    module: PathBuf,
    /// A mod to lay on the module (a folder whose <extends> names the module or an
    /// earlier mod); repeat for several, lowest first.
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    /// A scenario id of the module or a scenario .xml file (default: the first).
    #[arg(long, value_name = "ID|FILE")]
    scenario: Option<String>,
    /// Who plays the side called union (shorthand for --player union=KIND).
    #[arg(long, value_name = "KIND")]
    union: Option<PlayerKind>,
    /// Who plays the side called confederate (shorthand for --player confederate=KIND).
    #[arg(long, value_name = "KIND")]
    confederate: Option<PlayerKind>,
    /// Who plays a side, for any module: SIDE=human|random|greedy|ai|strong (every seat of
    /// the side). Unnamed sides are human.
    #[arg(long, value_name = "SIDE=KIND", value_parser = parse_player)]
    player: Vec<(String, PlayerKind)>,
    /// Who plays one seat, where a side has several (or a referee's): SEAT=KIND, after
    /// the sides' players.
    #[arg(long = "seat", value_name = "SEAT=KIND", value_parser = parse_seat_player)]
    seats: Vec<(String, PlayerKind)>,
    /// Seed of the game's dice (and of the random players); default: from the clock.
    #[arg(long)]
    seed: Option<u64>,
    /// Optional rules to use, by id or rule number, separated by commas.
    #[arg(long, value_delimiter = ',')]
    options: Vec<String>,
    /// End the game after this turn instead of the scenario's last, e.g. 03/1863
    /// (AHD 11.3's March ending dates).
    #[arg(long, value_name = "MM/YYYY")]
    end: Option<String>,
    /// Write the game to this file when it ends (or when you quit).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Print only the actions and the result, not every die roll.
    #[arg(long)]
    quiet: bool,
    /// With --quiet, still print the lines the rules log (a house rule acting).
    #[arg(long)]
    rules_log: bool,
    /// Go on with a saved game (a game a rule failure stopped, after the fix): its
    /// scenario, options, seed and actions, on the module as it is now.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["scenario", "seed", "options", "end"])]
    resume: Option<PathBuf>,
    /// Give up after this many actions.
    #[arg(long, default_value_t = 1_000_000)]
    max_actions: usize,
    /// Who enters a referee's decisions (a battle's result) in a module with a seat of
    /// no side: the rules' computer referee, or a person at the prompt.
    #[arg(long, value_enum, default_value_t)]
    referee: crate::entry::Referee,
    /// Ask for a battle's target even when only one enemy may be named (by default
    /// the only target is taken for you; the game records it all the same).
    #[arg(long)]
    ask_lone_target: bool,
    #[command(flatten)]
    strong: StrongArgs,
    /// Threads a strong player searches on (1-64); its choices do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_search_threads)]
    search_threads: usize,
    /// Write where the rules' Luau work went (by handler, function and line, counted in
    /// Luau interrupts: calls and loop iterations, not time) to FILE when the game ends;
    /// a FILE ending in .folded gets folded stacks for a flame graph instead.
    #[arg(long, value_name = "FILE")]
    rules_profile: Option<PathBuf>,
}

// `muster replay`.
#[derive(clap::Args)]
pub struct ReplayArgs {
    file: PathBuf,
    /// The module folder (default: mods/<module id of the save>, or with --mod
    /// mods/<the id of the save's base module>).
    #[arg(long)]
    module: Option<PathBuf>,
    /// A mod to lay on the module (a folder whose <extends> names the module or an
    /// earlier mod); repeat for several, lowest first.
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    #[arg(long)]
    quiet: bool,
    /// Replay it on the module as it is now, even if it changed since the game was
    /// played, until an action no longer applies; report that action (exit 1 unless
    /// the game is the saved one).
    #[arg(long)]
    as_far_as_it_goes: bool,
    /// With --as-far-as-it-goes: save the game up to there to this new file, to go on
    /// with `muster play --resume`.
    #[arg(long, value_name = "FILE", requires = "as_far_as_it_goes")]
    save: Option<PathBuf>,
}

pub fn run(o: Args) -> Result<()> {
    let Some(path) = o.rules_profile.clone() else {
        return run_game(o);
    };
    muster_scripting::profile::start();
    let result = run_game(o);
    let profile = muster_scripting::profile::finish().unwrap_or_default();
    write_profile(&path, &profile)?;
    result
}

/// Writes the rules' profile: folded stacks to a `.folded` file, else the table.
pub(crate) fn write_profile(
    path: &Path,
    profile: &muster_scripting::profile::Profile,
) -> Result<()> {
    let text = if path.extension().is_some_and(|e| e == "folded") {
        profile.folded()
    } else {
        profile.table()
    };
    std::fs::write(path, text)
        .with_context(|| format!("cannot write the rules' profile to {}", path.display()))
}

fn run_game(mut o: Args) -> Result<()> {
    o.player.extend(o.union.map(|k| ("union".to_string(), k)));
    o.player
        .extend(o.confederate.map(|k| ("confederate".to_string(), k)));
    // A game runs the rules thousands of times: compiled to machine code they pay back
    // their compiling within the first turns.
    let (module, mut rules) = crate::rules::load_with(
        &o.module,
        &o.mods,
        muster_scripting::Limits::default().native(),
    )?;
    let rules_log = o.quiet && o.rules_log;
    rules.keep_logged(rules_log);
    if module.stack.len() > 1 {
        // A mod's lines, not its base's.
        rules.log_only_from(&module.id);
    }
    let saved = match &o.resume {
        Some(path) => Some(Save::read(path)?),
        None => None,
    };
    let (scenario, saved_scenario, option_ids, seed, end) = match &saved {
        Some(save) => {
            if save.module.id != module.id {
                bail!(
                    "{} is a game of module '{}', not '{}'",
                    o.resume.as_deref().unwrap_or(Path::new("?")).display(),
                    save.module.id,
                    module.id
                );
            }
            (
                save.scenario(&module)?,
                save.scenario.clone(),
                save.option_ids(&module)?,
                save.seed,
                save.end.clone(),
            )
        }
        None => {
            let (scenario, saved_scenario) = chosen_scenario(&module, o.scenario.as_deref())?;
            let option_ids = crate::rules::options(&module, &o.options)?;
            let seed = o.seed.unwrap_or_else(seed_from_clock);
            (scenario, saved_scenario, option_ids, seed, o.end.clone())
        }
    };
    let kinds = crate::players::seat_kinds(&module, &o.player, &o.seats)?;
    let out = &mut std::io::stdout().lock();
    writeln!(out, "{} - {} (seed {seed})", module.name, scenario.name)?;
    let mut game = match &saved {
        // The save's actions on the rules as they are now, as far as they go (issue 17).
        Some(save) => {
            let partial = save.replay_as_far_as_it_goes(&module, &mut rules)?;
            rules.take_logged();
            rules.take_output();
            let total = save.actions.len();
            for line in partial.report(total) {
                writeln!(out, "{line}")?;
            }
            writeln!(
                out,
                "resumed after {} of {total} saved actions",
                partial.history.actions().len()
            )?;
            partial.history
        }
        None => {
            let (mut first, log) = start(
                &module,
                &mut rules,
                &scenario,
                option_ids,
                Dice::seeded(seed),
            )?;
            if let Some(end) = &end {
                set_end(&module, &mut first, end).map_err(|e| anyhow!("--end: {e}"))?;
            }
            print_log(out, &log, o.quiet)?;
            print_rules_log(out, rules.take_logged())?;
            History::new(first)
        }
    };
    // Each computer player's seed is the one `muster balance` gives the same seat in the
    // game of this seed, so any game of a balance run can be played again and watched.
    let mut computers: Vec<Option<Box<dyn muster_ai::Player>>> = module
        .seat_ids()
        .zip(&kinds)
        .map(|(seat, k)| {
            k.computer(
                o.strong,
                muster_ai::seat_seed(&module, seed, seat),
                o.search_threads,
            )
        })
        .collect();
    let stdin = std::io::stdin();
    let mut input = stdin.lock().lines();
    let mut quit = false;
    let mut turns = Turns::new();
    // A rule that fails stops the game where it stood: the save keeps every action up to
    // there, so nothing is lost (issue 18).
    let mut failure: Option<String> = None;
    while game.state().outcome.is_none() {
        let state = game.state().clone();
        if game.actions().len() >= o.max_actions {
            bail!(
                "stopped after {} actions without a result",
                game.actions().len()
            );
        }
        rules.take_logged(); // whatever an earlier failed action left
        let refereed =
            crate::entry::referee_action(out, &module, &mut rules, &state, o.referee, &mut input);
        let refereed = match refereed {
            Ok(r) => r,
            Err(e) => {
                failure = Some(failed_at(&module, &state, "the referee's decision", &e));
                break;
            }
        };
        if let Some(action) = refereed {
            writeln!(
                out,
                "[referee] {}",
                describe::action(&module, &state, &action)
            )?;
            let doing = format!(
                "the referee's '{}'",
                describe::action(&module, &state, &action)
            );
            match game.apply(&module, &mut rules, action) {
                Ok(log) => {
                    print_log(out, &log, o.quiet)?;
                    print_rules_log(out, rules.take_logged())?;
                }
                Err(e) => {
                    failure = Some(failed_at(&module, &state, &doing, &e));
                    break;
                }
            }
            continue;
        }
        let seat = match turns.next(&module, &mut rules, &state) {
            Ok(Some(seat)) => seat,
            Ok(None) => bail!(
                "no seat may act and no result: {}",
                describe::situation(&module, &state)
            ),
            Err(e) => {
                failure = Some(failed_at(
                    &module,
                    &state,
                    "asking whose decision it is",
                    &e,
                ));
                break;
            }
        };
        let name = module.seat(seat).name.clone();
        if let Some(computer) = computers[seat.index()].as_mut() {
            // Recorded as it is checked: a refused (stale) plan leaves the game as it was.
            let decided = muster_ai::decide_for(
                computer.as_mut(),
                &module,
                &mut rules,
                &state,
                seat,
                |r, a| {
                    if turns.holds(&module, r, &state, seat, a)? {
                        return Ok(None);
                    }
                    allowed_by(&module, r, &state, seat, a)?;
                    game.apply(&module, r, a.clone()).map(Some)
                },
            );
            let d = match decided {
                Ok(d) => d,
                Err(e) => {
                    let doing = format!("the {name} computer player's turn");
                    failure = Some(failed_at(&module, &state, &doing, &e));
                    break;
                }
            };
            let Some(log) = d.applied else {
                writeln!(
                    out,
                    "[{name}] passes the step to the other seats of its side"
                )?;
                // A random action held as a pass was a refused choice all the same.
                if d.fell_back {
                    writeln!(
                        out,
                        "(the {name} computer player) the game refused its choice: it took a random legal action"
                    )?;
                }
                continue;
            };
            writeln!(
                out,
                "[{name}] {}",
                describe::action(&module, &state, &d.action)
            )?;
            print_log(out, &log, o.quiet)?;
            print_rules_log(out, rules.take_logged())?;
            for line in rules.take_output() {
                writeln!(out, "  (script) {line}")?;
            }
            if d.fell_back {
                writeln!(
                    out,
                    "(the {name} computer player) the game refused its choice: it took a random legal action"
                )?;
            }
            for warning in computer.take_warnings() {
                writeln!(out, "(the {name} computer player) {warning}")?;
            }
            continue;
        }
        let legal = match legal_actions_for(&module, &mut rules, &state, seat) {
            Ok(legal) => legal,
            Err(e) => {
                failure = Some(failed_at(&module, &state, "listing the legal actions", &e));
                break;
            }
        };
        if legal.is_empty() {
            bail!(
                "no legal action and no result: {}",
                describe::situation(&module, &state)
            );
        }
        if module.seats.len() > module.sides.len() {
            writeln!(out, "\n({name}'s decision)")?;
        }
        // Every computer player chose above: this seat is a person's.
        let action = match prompt(
            out,
            &module,
            &state,
            &mut rules,
            &legal,
            game.can_undo(),
            !o.ask_lone_target,
            &mut input,
        )? {
            Choice::Act(a) => a,
            Choice::Undo => {
                let undone = game.undo()?;
                writeln!(
                    out,
                    "undone: {}",
                    describe::action(&module, game.state(), &undone)
                )?;
                continue;
            }
            Choice::Quit => {
                quit = true;
                break;
            }
        };
        match turns.holds(&module, &mut rules, &state, seat, &action) {
            Ok(true) => {
                writeln!(
                    out,
                    "[{name}] passes the step to the other seats of its side"
                )?;
                continue;
            }
            Ok(false) => {}
            Err(e) => {
                failure = Some(failed_at(&module, &state, "ending the step", &e));
                break;
            }
        }
        if !o.quiet {
            writeln!(
                out,
                "[{name}] {}",
                describe::action(&module, &state, &action)
            )?;
        }
        let doing = format!("taking '{}'", describe::action(&module, &state, &action));
        let log = match game.apply(&module, &mut rules, action) {
            Ok(log) => log,
            Err(e) => {
                failure = Some(failed_at(&module, &state, &doing, &e));
                break;
            }
        };
        print_log(out, &log, o.quiet)?;
        print_rules_log(out, rules.take_logged())?;
        for line in rules.take_output() {
            writeln!(out, "  (script) {line}")?;
        }
    }
    let state = game.state().clone();
    let actions = game.actions().to_vec();
    match &state.outcome {
        Some(outcome) => {
            let who = outcome
                .winner
                .map_or("nobody".to_string(), |w| module.side(w).name.clone());
            writeln!(
                out,
                "\nResult: {who} wins after {} actions - {}",
                actions.len(),
                outcome.reason
            )?;
            writeln!(out, "{}", describe::situation(&module, &state))?;
        }
        None if quit => writeln!(
            out,
            "\nGame left unfinished after {} actions.",
            actions.len()
        )?,
        None => {}
    }
    // After a failure the game is saved even without --save, next to where it was run.
    let path = o.save.clone().or_else(|| {
        failure
            .as_ref()
            .map(|_| PathBuf::from(save::failure_file_name(&module.id, seed)))
    });
    for line in rules.take_output() {
        writeln!(out, "  (script) {line}")?;
    }
    if let Some(path) = &path {
        let options: Vec<String> = state
            .options
            .iter()
            .map(|&o| module.options[o.index()].id.clone())
            .collect();
        let n = actions.len();
        let mut save = Save::new(&module, saved_scenario, options, seed, actions, state);
        save.end = end.clone();
        if let Some(resumed) = &saved {
            save.reseeds = resumed.reseeds.clone();
            save.reseeds.retain(|r| r.before <= n);
        }
        save.write(path)?;
        match &failure {
            None => writeln!(out, "saved to {}", path.display())?,
            Some(_) => writeln!(
                out,
                "the game up to the failure ({n} actions) is saved in {}",
                path.display()
            )?,
        }
    }
    match failure {
        Some(why) => bail!("{why}"),
        None => Ok(()),
    }
}

/// Where a game stopped on a failure: the turn, side and step, what was being done, and
/// the error (a rule's names its hook and script line).
fn failed_at(module: &Module, state: &GameState, doing: &str, e: &dyn std::fmt::Display) -> String {
    let turn = &module.calendar.turn(state.turn).label;
    let side = &module.side(state.active_side(module)).name;
    let step = state.current_step(module).map_or("-", |s| s.name.as_str());
    format!("the game stopped at {turn}, {side}, {step}, {doing}: {e}")
}

/// The scenario `arg` names (an id of the module or a file; the module's first by
/// default), and how a save records it.
pub(crate) fn chosen_scenario(
    module: &Module,
    arg: Option<&str>,
) -> Result<(muster_core::Scenario, SavedScenario)> {
    let arg = arg.map_or_else(
        || {
            module
                .scenarios
                .first()
                .map(|s| s.id.clone())
                .unwrap_or_default()
        },
        str::to_owned,
    );
    let scenario = scenario::resolve(module, &arg).map_err(|e| anyhow!("{e}"))?;
    let saved = if module.scenario(&arg).is_some() {
        SavedScenario {
            id: scenario.id.clone(),
            xml: None,
        }
    } else {
        let xml = std::fs::read_to_string(&arg).with_context(|| format!("reading {arg}"))?;
        SavedScenario {
            id: scenario.id.clone(),
            xml: Some(xml),
        }
    };
    Ok((scenario.into_owned(), saved))
}

fn seed_from_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
}

pub(crate) fn print_log(out: &mut impl Write, log: &[String], quiet: bool) -> Result<()> {
    if !quiet {
        for line in log {
            writeln!(out, "  {line}")?;
        }
    }
    Ok(())
}

/// The lines the rules logged, under `--quiet --rules-log` (empty otherwise).
fn print_rules_log(out: &mut impl Write, lines: Vec<String>) -> Result<()> {
    for line in lines {
        writeln!(out, "  (rules) {line}")?;
    }
    Ok(())
}

pub(crate) enum Choice {
    Act(Action),
    Undo,
    Quit,
}

/// Shows the position and the numbered actions; reads a choice. With `lone_target`, a
/// shot that may name a single target takes it without asking.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prompt(
    out: &mut impl Write,
    module: &Module,
    state: &GameState,
    rules: &mut dyn muster_core::game::Rules,
    legal: &[Action],
    can_undo: bool,
    lone_target: bool,
    input: &mut impl Iterator<Item = std::io::Result<String>>,
) -> Result<Choice> {
    let side = decider(module, state);
    writeln!(out, "\n{}", describe::situation(module, state))?;
    // A shot with one possible target asks nothing (the action is recorded as any).
    if lone_target && let [only @ Action::Target { .. }] = legal {
        writeln!(
            out,
            "{} to act: the only target, taken for you",
            module.side(side).name
        )?;
        return Ok(Choice::Act(only.clone()));
    }
    writeln!(out, "{} to act:", module.side(side).name)?;
    for (i, a) in legal.iter().enumerate() {
        writeln!(
            out,
            "  {:>3}. {}",
            i + 1,
            describe::action(module, state, a)
        )?;
    }
    let undo = if can_undo { ", u to undo" } else { "" };
    loop {
        write!(
            out,
            "choose 1-{} or type an action's words (board, help, q to quit{undo})> ",
            legal.len()
        )?;
        out.flush()?;
        let Some(line) = input.next() else {
            return Ok(Choice::Quit);
        };
        let line = line?;
        let line = line.trim();
        match line {
            "q" | "quit" => return Ok(Choice::Quit),
            "u" | "undo" if can_undo => return Ok(Choice::Undo),
            "help" | "?" => {
                writeln!(out, "{}", crate::terminal::HELP)?;
                continue;
            }
            "board" | "map" => {
                for l in crate::terminal::board(module, state, side) {
                    writeln!(out, "{l}")?;
                }
                let view = muster_core::game::View { module, state };
                let progress = rules.victory_progress(view).unwrap_or_else(|e| {
                    tracing::warn!("victory_progress: {e}");
                    Vec::new()
                });
                for l in crate::terminal::progress(module, &progress) {
                    writeln!(out, "{l}")?;
                }
                continue;
            }
            "" => continue,
            _ => {}
        }
        match line.parse::<usize>() {
            Ok(n) if (1..=legal.len()).contains(&n) => {
                return Ok(Choice::Act(legal[n - 1].clone()));
            }
            Ok(_) => writeln!(out, "'{line}' is not a number from 1 to {}", legal.len())?,
            Err(_) => match crate::terminal::by_words(module, state, legal, line) {
                Ok(a) => return Ok(Choice::Act(a)),
                // Words that name an action the game refuses get its reason.
                Err(why) => match crate::terminal::refusal(module, rules, state, legal, line) {
                    Some(refused) => writeln!(out, "{refused}")?,
                    None => writeln!(out, "{why}")?,
                },
            },
        }
    }
}

/// `muster replay`: plays a save's actions again and checks the result is identical; or,
/// `as_far`, replays them on the module as it is now until one no longer applies, and
/// with `save_to` saves the game up to there to go on from.
pub fn replay(a: &ReplayArgs) -> Result<ExitCode> {
    let (file, module_dir, mods) = (a.file.as_path(), a.module.as_deref(), &a.mods[..]);
    let (quiet, as_far, save_to) = (a.quiet, a.as_far_as_it_goes, a.save.as_deref());
    let save = Save::read(file)?;
    // With mods, the folder to find is the stack's base; without, the module played.
    let base = match save.module.stack.first() {
        Some(base) if !mods.is_empty() => &base.id,
        _ => &save.module.id,
    };
    let dir = module_dir.map_or_else(|| PathBuf::from("mods").join(base), Path::to_path_buf);
    if module_dir.is_none() && !dir.join("module.xml").is_file() {
        bail!(
            "the save was played on module '{base}', looked for at {} without --module, where there is no module.xml; give its folder: muster replay {} --module PATH",
            dir.display(),
            file.display()
        );
    }
    let (module, mut rules): (Module, ScriptRules) = crate::rules::load(&dir, mods)?;
    let out = &mut std::io::stdout().lock();
    if as_far {
        if let Some(to) = save_to
            && to.exists()
        {
            bail!(
                "{} exists already; give --save a new file (nothing was written)",
                to.display()
            );
        }
        let partial = save.replay_as_far_as_it_goes(&module, &mut rules)?;
        print_log(out, &partial.log, quiet)?;
        for line in partial.report(save.actions.len()) {
            writeln!(out, "{line}")?;
        }
        if let Some(to) = save_to {
            let state = partial.history.state().clone();
            let actions = partial.history.actions().to_vec();
            let n = actions.len();
            let mut resaved = Save::new(
                &module,
                save.scenario.clone(),
                save.options.clone(),
                save.seed,
                actions,
                state,
            );
            resaved.end = save.end.clone();
            resaved.reseeds = save.reseeds.clone();
            resaved.reseeds.retain(|r| r.before <= n);
            resaved.write(to)?;
            writeln!(
                out,
                "saved the game up to action {n} to {}: go on with `muster play {} --resume {}`",
                to.display(),
                dir.display(),
                to.display()
            )?;
        }
        return Ok(if partial.complete() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let (state, log) = save.replay(&module, &mut rules).map_err(|e| match e {
        SaveError::Stack(_) | SaveError::Changed { .. } | SaveError::Action { .. } => anyhow!(
            "{e}\nhint: `muster replay {} --as-far-as-it-goes` replays it on the rules as they are now and names the first action they refuse",
            file.display()
        ),
        e => e.into(),
    })?;
    print_log(out, &log, quiet)?;
    let result = match &state.outcome {
        Some(o) => format!(
            "{} wins - {}",
            o.winner
                .map_or("nobody".to_string(), |w| module.side(w).name.clone()),
            o.reason
        ),
        None => "no result yet".into(),
    };
    writeln!(
        out,
        "replayed {} actions: the final state is identical to the save ({result})",
        save.actions.len()
    )?;
    Ok(ExitCode::SUCCESS)
}
