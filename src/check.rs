//! `muster check`: validate a module, print its summary or every error found.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use muster_core::summary::{ScenarioSummary, Summary};
use muster_core::{Diagnostic, load_stack, scenario};
use muster_scripting::spans::{Span, function_spans, unused_first_param};
use serde::Serialize;

/// The JSON form of a check: `ok`, the summary when the module loaded, and diagnostics.
#[derive(Serialize)]
struct Report {
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<Summary>,
    /// Scenarios given with `--scenario` (ids or files).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    extra_scenarios: Vec<ScenarioSummary>,
    diagnostics: Vec<Diagnostic>,
    /// Type errors found, or why the rules were not type-checked (`--no-typecheck`
    /// skips the check).
    #[serde(skip_serializing_if = "Option::is_none")]
    typecheck: Option<TypeCheck>,
    /// Rule errors the smoke games hit (`--smoke N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    smoke: Option<Smoke>,
}

#[derive(Serialize)]
struct TypeCheck {
    /// How many type errors (they are among the diagnostics).
    errors: usize,
    /// Why the rules were not checked: the warning printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    /// How long the check took, in milliseconds.
    ms: u64,
}

#[derive(Serialize)]
struct Smoke {
    games: u32,
    /// Turns each game played at most; null: to the scenario's end.
    turns: Option<u16>,
    errors: Vec<crate::smoke::Finding>,
    /// A `hooks.wrap` that ran in the games and never called `next`: the rule it wraps
    /// is dropped without a word (maybe meant: then `hooks.replace` says so).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

/// The warning for a wrapper that ran and never called its `next`, at its line.
fn never_next(w: &muster_scripting::WrapUse) -> String {
    format!(
        "{}: warning: hooks.wrap('{}'): the wrapper ran in the smoke games and never called next, so the handler it wraps never ran and its rule is dropped; call next(...) with the handler's arguments where its answer counts, or write hooks.replace('{}', ...) if dropping it is meant",
        w.origin, w.id, w.id
    )
}

// `muster check`.
#[derive(clap::Args)]
pub struct Args {
    /// The module folder (holding module.xml), e.g. mods/ahd.
    module: PathBuf,
    /// A mod to lay on the module (a folder whose <extends> names the module or an
    /// earlier mod); repeat for several, lowest first.
    #[arg(long = "mod", value_name = "PATH")]
    mods: Vec<PathBuf>,
    /// Also check these scenarios: an id of the module or a scenario .xml file.
    #[arg(long = "scenario", value_name = "ID|FILE")]
    scenarios: Vec<String>,
    /// Print one JSON object on stdout instead of text.
    #[arg(long)]
    json: bool,
    /// Keep watching the module's files and check again on every save, rules
    /// included.
    #[arg(long, conflicts_with_all = ["json", "scenarios"])]
    watch: bool,
    /// Also play N random games to their end (every scenario in turn, half of them
    /// with every optional rule) and report each rule error they hit, or a game that
    /// never ends, with a command that plays the same game.
    #[arg(long, value_name = "N", conflicts_with = "watch")]
    smoke: Option<u32>,
    /// Stop each smoke game after N turns instead of at the scenario's end (quicker on
    /// a long game).
    #[arg(long, value_name = "N", requires = "smoke", value_parser = clap::value_parser!(u16).range(1..))]
    smoke_turns: Option<u16>,
    /// Do not type-check the rules (Luau's strict mode, against the engine's
    /// definitions), which `check` does by default with the `muster-typecheck` program
    /// built beside muster.
    #[arg(long)]
    no_typecheck: bool,
}

/// The `.luau` files under `dir`, recursively, sorted.
fn scripts_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            scripts_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "luau") {
            out.push(p);
        }
    }
}

/// Every script of the stack's modules (under each one's `rules/`): the module's index
/// in the stack, the file as messages name it (`ahd/rules/turns.luau`), its text.
fn stack_scripts(module: &muster_core::Module) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (i, e) in module.stack.iter().enumerate() {
        let mut files = Vec::new();
        scripts_under(&e.dir.join("rules"), &mut files);
        for f in files {
            if let Ok(text) = std::fs::read_to_string(&f) {
                let rel = f.strip_prefix(&e.dir).unwrap_or(&f);
                let shown = Path::new(&e.id).join(rel).display().to_string();
                out.push((i, shown, text));
            }
        }
    }
    out
}

/// A warning at each `hooks.wrap` whose wrapper never names its first parameter
/// (`next`): the handler it wraps never runs, its rule dropped without a word. Found in
/// the text, so without smoke games (which catch a wrapper that names `next` and still
/// never calls it). Returns the warnings and the wrappers' `file:line`s.
fn wraps_without_next(
    module: &muster_core::Module,
    wraps: &[muster_scripting::WrapUse],
) -> (Vec<Diagnostic>, Vec<String>) {
    let scripts = stack_scripts(module);
    let mut out = (Vec::new(), Vec::new());
    for w in wraps {
        let Some((file, line)) = w.origin.rsplit_once(':') else {
            continue;
        };
        let Ok(line) = line.parse::<u32>() else {
            continue;
        };
        let Some((_, shown, text)) = scripts.iter().find(|(_, shown, _)| shown == file) else {
            continue;
        };
        let Some((param, col)) = unused_first_param(text, line) else {
            continue;
        };
        out.0.push(Diagnostic {
            severity: muster_core::Severity::Warning,
            location: Some(muster_core::diag::Location {
                file: PathBuf::from(shown),
                line,
                col,
            }),
            message: format!(
                "hooks.wrap('{}'): the wrapper never uses '{param}', its first parameter (the handler it wraps), so that handler never runs and its rule is dropped",
                w.id
            ),
            hint: Some(format!(
                "call {param}(...) with the handler's arguments where its answer counts, or write hooks.replace('{}', ...) if dropping it is meant",
                w.id
            )),
        });
        out.1.push(w.origin.clone());
    }
    out
}

/// A warning at each `<remove>` whose item a script of a module below still names in a
/// string (`"kentucky-neutrality"`): the base's rule will not find it when it runs, and
/// the error would name the base's line, far from the removal. Lines are named by their
/// boxes, not one string, so they are not looked for.
///
/// `live` (from the loaded rules) says where the functions the remaining handlers can
/// reach begin: a reading inside functions none of which is among them belongs to
/// handlers a mod removed or replaced and never runs, so it is not named. Without it
/// (the rules did not load) every reading is.
fn removed_but_named(
    module: &muster_core::Module,
    live: Option<&std::collections::BTreeSet<(String, usize)>>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // The stack's index of the module a file belongs to: the longest folder holding it.
    let owner = |file: &Path| {
        module
            .stack
            .iter()
            .enumerate()
            .filter(|(_, e)| file.starts_with(&e.dir))
            .max_by_key(|(_, e)| e.dir.as_os_str().len())
            .map(|(i, _)| i)
    };
    let texts: Vec<(usize, String, String, Vec<Span>)> = stack_scripts(module)
        .into_iter()
        .map(|(i, shown, text)| {
            let spans = function_spans(&text);
            (i, shown, text, spans)
        })
        .collect();
    // Whether line `n` of `shown` may run: at top level, or inside a function that a
    // remaining handler can reach (a closure made inside one is made when it runs).
    let runs = |shown: &str, spans: &[Span], n: u32| {
        let Some(live) = live else { return true };
        let mut around = spans.iter().filter(|s| s.holds(n)).peekable();
        around.peek().is_none()
            || around.any(|s| live.contains(&(shown.to_string(), s.start as usize)))
    };
    for r in module.removed.iter().filter(|r| r.element != "line") {
        let by = owner(&r.at.file).unwrap_or(usize::MAX);
        let mut lines = Vec::new();
        for (_, shown, text, spans) in texts.iter().filter(|(i, ..)| *i < by) {
            for (n, line) in (1u32..).zip(text.lines()) {
                let code = line.split("--").next().unwrap_or("").to_lowercase();
                if (reads(&code, &format!("\"{}\"", r.key))
                    || reads(&code, &format!("'{}'", r.key)))
                    && runs(shown, spans, n)
                {
                    lines.push(format!("{shown}:{n}"));
                }
            }
        }
        if lines.is_empty() {
            continue;
        }
        let named = match lines.as_slice() {
            [one] => format!("{one} still names it"),
            [init @ .., last] => format!("{} and {last} still name it", init.join(", ")),
            [] => continue,
        };
        out.push(Diagnostic {
            severity: muster_core::Severity::Warning,
            location: Some(r.at.clone()),
            message: format!("<remove> of {} '{}', but {named}", r.kind, r.key),
            hint: Some(
                "the base's rule will not find it when it runs: wrap or replace the handler that reads it (hooks.wrap, hooks.replace), or keep the item"
                    .into(),
            ),
        });
    }
    out
}

/// Whether `code` names `quoted` other than in a comparison: `game:scenario() ==
/// "1861-short"` is only false once the scenario is gone, while `game:option("x")` fails.
fn reads(code: &str, quoted: &str) -> bool {
    code.match_indices(quoted).any(|(at, _)| {
        let before = code[..at].trim_end();
        let after = code[at + quoted.len()..].trim_start();
        let compared = |s: &str| s.starts_with("==") || s.starts_with("~=");
        !(before.ends_with("==") || before.ends_with("~=") || compared(after))
    })
}

/// Checks once and reports, or with `--watch` checks on every save.
pub fn run(a: &Args) -> Result<ExitCode> {
    if a.watch {
        return crate::watch::run(&a.module, &a.mods, !a.no_typecheck).map(|()| ExitCode::SUCCESS);
    }
    check(a)
}

fn check(a: &Args) -> Result<ExitCode> {
    let (dir, mods, json, smoke, smoke_turns) =
        (&a.module, &a.mods, a.json, a.smoke, a.smoke_turns);
    let report = match load_stack(dir, mods) {
        Err(e) => Report {
            ok: false,
            summary: None,
            extra_scenarios: Vec::new(),
            diagnostics: e.diagnostics,
            typecheck: None,
            smoke: None,
        },
        Ok(module) => {
            let mut diagnostics = module.warnings.clone();
            let mut extra = Vec::new();
            let mut ok = true;
            // The rules are part of the module: a script that does not load is an error.
            let loaded =
                muster_scripting::ScriptRules::load(&module, muster_scripting::Limits::default());
            let rules_loaded = loaded.is_ok();
            let live = loaded.as_ref().ok().map(|r| r.reachable_functions());
            diagnostics.extend(removed_but_named(&module, live.as_ref()));
            let (unwrapped, unwrapped_at) = match &loaded {
                Ok(r) => wraps_without_next(&module, &r.wraps()),
                Err(_) => Default::default(),
            };
            diagnostics.extend(unwrapped);
            if let Err(e) = loaded {
                ok = false;
                diagnostics.push(Diagnostic {
                    severity: muster_core::Severity::Error,
                    location: None,
                    message: format!("rules: {e}"),
                    hint: None,
                });
            }
            // Rules that do not load are reported as such: their type errors would
            // only repeat a syntax error.
            // Type errors do not stop the smoke games: strict mode may complain of what runs.
            let mut typed_ok = true;
            let typecheck = if a.no_typecheck || !rules_loaded {
                None
            } else {
                let started = std::time::Instant::now();
                let outcome = crate::typecheck::check(&module)?;
                let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                Some(match outcome {
                    crate::typecheck::Outcome::Checked(errors) => {
                        typed_ok = errors.is_empty();
                        let n = errors.len();
                        diagnostics.extend(errors);
                        TypeCheck {
                            errors: n,
                            skipped: None,
                            ms,
                        }
                    }
                    crate::typecheck::Outcome::Missing(path) => TypeCheck {
                        errors: 0,
                        skipped: Some(crate::typecheck::missing_warning(&path)),
                        ms,
                    },
                })
            };
            for arg in &a.scenarios {
                match scenario::resolve(&module, arg) {
                    Ok(s) => extra.push(ScenarioSummary::of(&module, &s)),
                    Err(e) => {
                        ok = false;
                        diagnostics.extend(e.diagnostics);
                    }
                }
            }
            let smoke = match smoke {
                Some(games) if ok => {
                    // The command that plays a smoke game again names the same stack.
                    let mut args = dir.display().to_string();
                    for m in mods {
                        args.push_str(&format!(" --mod {}", m.display()));
                    }
                    let found = crate::smoke::run(&module, &args, games, smoke_turns)
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                    ok = found.errors.is_empty();
                    Some(Smoke {
                        games,
                        turns: smoke_turns,
                        errors: found.errors,
                        warnings: found
                            .wraps
                            .iter()
                            .filter(|w| w.calls > 0 && w.nexts == 0)
                            // Already said without the games.
                            .filter(|w| !unwrapped_at.contains(&w.origin))
                            .map(never_next)
                            .collect(),
                    })
                }
                _ => None,
            };
            Report {
                ok: ok && typed_ok,
                summary: Some(Summary::of(&module)),
                extra_scenarios: extra,
                diagnostics,
                typecheck,
                smoke,
            }
        }
    };
    if json {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        print_text(&report)?;
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_text(report: &Report) -> Result<()> {
    for d in &report.diagnostics {
        eprintln!("{d}");
    }
    if let Some(t) = &report.typecheck {
        if let Some(warning) = &t.skipped {
            eprintln!("{warning}");
        } else if t.errors > 0 {
            eprintln!(
                "{} type error{} (Luau's strict mode, against the engine's definitions that `muster api` writes; --no-typecheck skips the check)",
                t.errors,
                if t.errors == 1 { "" } else { "s" }
            );
        }
    }
    let Some(s) = &report.summary else {
        let n = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == muster_core::Severity::Error)
            .count();
        eprintln!("{n} error{} found", if n == 1 { "" } else { "s" });
        return Ok(());
    };
    let mut out = std::io::stdout().lock();
    let status = if report.ok { "ok" } else { "errors" };
    writeln!(
        out,
        "{} \"{}\" {} (engine {}): {status}",
        s.id, s.name, s.version, s.engine
    )?;
    if !s.extends.is_empty() {
        writeln!(out, "  extends {}", s.extends.join(" < "))?;
    }
    if s.stack.len() > 1 {
        writeln!(out, "  stack, in load order:")?;
        for (i, m) in s.stack.iter().enumerate() {
            writeln!(
                out,
                "    {}. {} {} (files {:016x})",
                i + 1,
                m.id,
                m.version,
                m.content_hash
            )?;
        }
    }
    let kinds: Vec<String> = s
        .lines_by_kind
        .iter()
        .map(|k| format!("{} {}", k.count, k.kind))
        .collect();
    writeln!(out, "  sides: {}", s.sides.join(", "))?;
    writeln!(
        out,
        "  {} boxes, {} lines ({})",
        s.boxes,
        s.lines,
        kinds.join(", ")
    )?;
    if !s.tags.is_empty() {
        let tags: Vec<String> = s
            .tags
            .iter()
            .map(|t| format!("{} {}", t.count, t.tag))
            .collect();
        writeln!(out, "  tagged boxes: {}", tags.join(", "))?;
    }
    for v in &s.box_values {
        let by_side: Vec<String> = v
            .by_side
            .iter()
            .map(|r| format!("{} {} (total {})", r.side, r.boxes, r.total))
            .collect();
        writeln!(
            out,
            "  {} boxes with a {}: {}",
            v.boxes,
            v.name.to_lowercase(),
            by_side.join(", ")
        )?;
    }
    writeln!(
        out,
        "  {} unit types, {} optional rules, {} turns ({} on the track)",
        s.unit_types, s.optional_rules, s.turns, s.track_turns
    )?;
    let tally_names: Vec<&str> = s.tallies.iter().map(String::as_str).collect();
    if tally_names.is_empty() {
        writeln!(out, "  scenarios:")?;
    } else {
        writeln!(
            out,
            "  scenarios ({} computed, stated in brackets):",
            tally_names.join(", ")
        )?;
    }
    let rows: Vec<_> = s.scenarios.iter().chain(&report.extra_scenarios).collect();
    let id_w = rows.iter().map(|r| r.id.chars().count()).max().unwrap_or(0);
    let name_w = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0);
    for sc in rows {
        // One tally is shown by side alone; several are named.
        let named = tally_names.len() > 1;
        let maxima: Vec<String> = sc
            .tallies
            .iter()
            .map(|a| {
                let what = if named {
                    format!("{} {}", a.side, a.tally)
                } else {
                    a.side.clone()
                };
                match a.stated {
                    Some(st) => format!("{what} {} ({st})", a.computed),
                    None => format!("{what} {}", a.computed),
                }
            })
            .collect();
        writeln!(
            out,
            "    {:<id_w$}  {:<name_w$}  {}-{}  {}",
            sc.id,
            sc.name,
            sc.start,
            sc.end,
            maxima.join(", ")
        )?;
    }
    if let Some(smoke) = &report.smoke {
        let length = match smoke.turns {
            Some(t) => format!("of up to {t} turns"),
            None => "played to their end".to_string(),
        };
        writeln!(
            out,
            "  smoke: {} random games {length}: {}",
            smoke.games,
            match smoke.errors.len() {
                0 => "no rule error".to_string(),
                1 => "1 rule error".to_string(),
                n => format!("{n} distinct rule errors"),
            }
        )?;
        for w in &smoke.warnings {
            writeln!(out, "  {w}")?;
        }
        for f in &smoke.errors {
            writeln!(out, "  error: {}", f.error)?;
            writeln!(
                out,
                "    at {} (in {} game{}); to see it: {}",
                f.at,
                f.games,
                if f.games == 1 { "" } else { "s" },
                f.reproduce
            )?;
        }
    }
    Ok(())
}
