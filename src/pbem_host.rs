//! `muster pbem` with a host, for games with hidden information (see
//! `muster_core::pbem::host` for the protocol). The host's folder keeps the master game
//! (`host.json`, with its secret: never to be sent); each seat's folder receives only
//! that seat's files and holds its answers. The host writes into and reads from the
//! seats' folders (shared folders, or ones the host and players sync by mail).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use muster_core::Module;
use muster_core::game::Action;
use muster_core::game::dice::Pcg32;
use muster_core::game::entry::{self, Asked, Entry};
use muster_core::game::save::SavedModule;
use muster_core::pbem::folder::random32;
use muster_core::pbem::host::{
    Answer, HOST_FORMAT, Host, HostSetup, Record, SeatFile, answer_name, parse, record_name,
    seat_file_name, to_bytes, verify_seat,
};
use muster_core::pbem::{sha256, to_hex};
use muster_scripting::ScriptRules;
use serde::{Deserialize, Serialize};

use crate::players::PlayerKind;

/// The host's private file in its folder.
const HOST_FILE: &str = "host.json";

/// The host's folder: the record (secret included) and where things are.
#[derive(Serialize, Deserialize)]
struct HostFolder {
    record: Record,
    /// The module and mods the game is played with, as given to `new`.
    module_dir: PathBuf,
    #[serde(default)]
    mods: Vec<PathBuf>,
    /// Each seat's folder.
    dirs: BTreeMap<String, PathBuf>,
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).with_context(|| format!("cannot resolve {}", p.display()))
}

/// Writes a new file (never over an existing one).
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("cannot write {} (does it exist already?)", path.display()))?;
    f.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

fn read_host(dir: &Path) -> Result<HostFolder> {
    let path = dir.join(HOST_FILE);
    let bytes = std::fs::read(&path).with_context(|| {
        format!(
            "cannot read {} (is {} a host's folder?)",
            path.display(),
            dir.display()
        )
    })?;
    let h: HostFolder = serde_json::from_slice(&bytes).map_err(|e| {
        anyhow!(
            "{}:{}:{}: the host's file is damaged: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    if h.record.pbem_host != HOST_FORMAT {
        bail!(
            "{} is of format {}; this muster reads format {HOST_FORMAT}",
            path.display(),
            h.record.pbem_host
        );
    }
    Ok(h)
}

/// Replaces the host's file atomically.
fn keep_host(dir: &Path, h: &HostFolder) -> Result<()> {
    let path = dir.join(HOST_FILE);
    let tmp = dir.join(".host.json.tmp~");
    std::fs::write(&tmp, to_bytes(h)).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))
}

/// `muster pbem new MODULE --host DIR --seat SEAT=DIR ...`.
pub fn new(
    module_dir: &Path,
    mods: &[PathBuf],
    scenario: SavedModuleScenario,
    host_dir: &Path,
    seats: &[String],
    hosted: &[String],
) -> Result<ExitCode> {
    let (module, _rules) = crate::rules::load(module_dir, mods)?;
    let mut held = Vec::new();
    for seat in hosted {
        let id = crate::view::seat(&module, seat)?;
        let id = module.seat(id).id.clone();
        if held.contains(&id) {
            bail!("--hosted {id} is given twice");
        }
        held.push(id);
    }
    let mut dirs = BTreeMap::new();
    for s in seats {
        let (seat, dir) = s
            .split_once('=')
            .ok_or_else(|| anyhow!("--seat {s}: give SEAT=DIR, e.g. --seat union=union-game"))?;
        let id = crate::view::seat(&module, seat)?;
        let id = module.seat(id).id.clone();
        if held.contains(&id) {
            bail!("--seat {id}: the host holds this seat (--hosted {id}): give it no folder");
        }
        if dirs.insert(id.clone(), absolute(Path::new(dir))?).is_some() {
            bail!("--seat {id} is given twice");
        }
    }
    for seat in &module.seats {
        if !dirs.contains_key(&seat.id) && !held.contains(&seat.id) {
            bail!(
                "seat '{}' has no folder: give --seat {}=DIR (every seat of the game needs one; a referee's seat may be held by the host: --hosted {})",
                seat.id,
                seat.id,
                seat.id
            );
        }
    }
    let host_dir = absolute(host_dir)?;
    // A seat's folder holds only its own files: no two seats, nor the host, share one.
    let mut distinct: Vec<&PathBuf> = dirs.values().chain([&host_dir]).collect();
    distinct.sort();
    if distinct.windows(2).any(|w| w[0] == w[1]) {
        bail!(
            "give every seat a folder of its own, apart from the host's: a seat's folder holds only that seat's files"
        );
    }
    if host_dir.join(HOST_FILE).exists() {
        bail!(
            "{} holds a game already; start a new game in another folder",
            host_dir.display()
        );
    }
    let setup = HostSetup {
        module: SavedModule::of(&module),
        scenario: scenario.scenario,
        options: scenario.options,
        end: scenario.end,
        seats: module.seats.iter().map(|s| s.id.clone()).collect(),
        hosted: held,
    };
    let record = Record::new(setup, &random32()?, &random32()?);
    // Only a referee's seat may be held by the host (it sees the whole game).
    record.hosted_seats(&module)?;
    let mut host = Host {
        module: &module,
        record,
        master: Default::default(),
    };
    let files = host.first_files();
    std::fs::create_dir_all(&host_dir)
        .with_context(|| format!("cannot create {}", host_dir.display()))?;
    for dir in dirs.values() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let folder = HostFolder {
        record: host.record,
        module_dir: absolute(module_dir)?,
        mods: mods.iter().map(|m| absolute(m)).collect::<Result<_>>()?,
        dirs,
    };
    keep_host(&host_dir, &folder)?;
    let out = &mut std::io::stdout().lock();
    writeln!(
        out,
        "new hosted game {} of {}: the host keeps {} (never to be sent)",
        folder.record.game,
        module.name,
        host_dir.join(HOST_FILE).display()
    )?;
    for f in files {
        let path = seat_dir(&folder, &f.seat)?.join(&f.name);
        write_new(&path, &f.bytes)?;
        writeln!(out, "wrote {} for seat {}", path.display(), f.seat)?;
    }
    writeln!(
        out,
        "each seat joins with: muster pbem play DIR --seat SEAT; then run: muster pbem host {}",
        host_dir.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The scenario part of `new`'s arguments.
pub struct SavedModuleScenario {
    pub scenario: muster_core::game::save::SavedScenario,
    pub options: Vec<String>,
    pub end: Option<String>,
}

/// The folder of `seat`, as the host's file names it.
fn seat_dir<'a>(folder: &'a HostFolder, seat: &str) -> Result<&'a PathBuf> {
    folder.dirs.get(seat).ok_or_else(|| {
        anyhow!(
            "the host's file names no folder for seat {seat}: give every seat a folder (muster pbem new --seat {seat}=DIR)"
        )
    })
}

fn load(h: &HostFolder) -> Result<(Module, ScriptRules)> {
    crate::rules::load(&h.module_dir, &h.mods)
}

/// `muster pbem host DIR`: takes the seats' answers, writes each seat its next file.
pub fn host(dir: &Path) -> Result<ExitCode> {
    let mut folder = read_host(dir)?;
    let (module, mut rules) = load(&folder)?;
    let mut host = Host::open(&module, &mut rules, folder.record.clone())?;
    let out = &mut std::io::stdout().lock();
    if host.record.revealed {
        writeln!(
            out,
            "the record of game {} is published: the game goes on no further",
            host.record.game
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    // Every answer in the seats' folders not taken yet, seat by seat, in file order.
    let mut took = 0;
    for (seat, seat_dir) in &folder.dirs {
        for (path, bytes) in files_ending(seat_dir, ".answer.json")? {
            let name = path.display().to_string();
            let before = host.record.answers.len();
            host.take(&mut rules, seat, &name, &bytes)?;
            if let Some(a) = host.record.answers.get(before) {
                took += 1;
                let what = match (&a.action, a.overtaken) {
                    (_, true) => "overtaken: not applied".to_string(),
                    (Some(_), _) if a.refused.is_some() => format!(
                        "its entry is refused, nothing applied ({}): {seat} is asked again",
                        a.refused.as_deref().unwrap_or_default()
                    ),
                    (None, _) => "joins".to_string(),
                    (Some(_), _) => format!("{} action(s) applied", a.actions.len()),
                };
                writeln!(out, "took {name}: {what}")?;
            }
        }
    }
    // A file recorded as sent but missing from its folder (the host stopped between
    // keeping its record and writing the file) is written again: the same bytes.
    for (seat, seat_dir) in &folder.dirs {
        let Some(sent) = host.record.last_sent(seat).cloned() else {
            continue;
        };
        let path = seat_dir.join(seat_file_name(&host.record.game, seat, sent.index));
        if path.exists() || host.taken(seat, sent.index).is_some() {
            continue;
        }
        let id = crate::view::seat(&module, seat)?;
        let (file, _) =
            host.record
                .seat_file(&module, &mut rules, &host.master, id, sent.index, sent.at)?;
        let bytes = to_bytes(&file);
        if to_hex(&sha256(&bytes)) != sent.sha256 {
            bail!(
                "{}: the host's record says it was sent, but the game gives another file now",
                path.display()
            );
        }
        write_new(&path, &bytes)?;
        writeln!(out, "wrote {} again for seat {seat}", path.display())?;
    }
    let (files, errors) = host.outgoing(&mut rules)?;
    for e in &errors {
        eprintln!("warning: a piece was hidden because a rule failed: {e}");
    }
    let over = host.master.over();
    if over {
        host.record.revealed = true;
    }
    folder.record = host.record.clone();
    // The record first: a file written is a file sent.
    keep_host(dir, &folder)?;
    for f in &files {
        let path = seat_dir(&folder, &f.seat)?.join(&f.name);
        write_new(&path, &f.bytes)?;
        writeln!(out, "wrote {} for seat {}", path.display(), f.seat)?;
    }
    if over {
        publish(&folder, out)?;
        writeln!(
            out,
            "the game is over after {} actions",
            host.master.steps.len()
        )?;
    } else if files.is_empty() && took == 0 {
        let waiting: Vec<String> = folder
            .dirs
            .keys()
            .filter(|s| {
                host.record
                    .last_sent(s)
                    .is_some_and(|l| host.taken(s, l.index).is_none())
            })
            .cloned()
            .collect();
        writeln!(
            out,
            "nothing new: waiting for the answer of {}",
            waiting.join(", ")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the record, secret included, into every seat's folder and the host's.
fn publish(folder: &HostFolder, out: &mut dyn Write) -> Result<()> {
    let name = record_name(&folder.record.game);
    let bytes = to_bytes(&folder.record);
    for dir in folder.dirs.values() {
        let path = dir.join(&name);
        std::fs::write(&path, &bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        writeln!(out, "published the record: {}", path.display())?;
    }
    Ok(())
}

/// `muster pbem reveal DIR`: publishes the secret and the record now; the game ends
/// there (with the secret known, its dice could be foreseen).
pub fn reveal(dir: &Path) -> Result<ExitCode> {
    let mut folder = read_host(dir)?;
    folder.record.revealed = true;
    keep_host(dir, &folder)?;
    let out = &mut std::io::stdout().lock();
    publish(&folder, out)?;
    writeln!(
        out,
        "each seat may check its files: muster pbem verify DIR --seat SEAT"
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The files of `dir` whose names end with `suffix`, sorted by name, with their bytes.
fn files_ending(dir: &Path, suffix: &str) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry
            .with_context(|| format!("cannot read {}", dir.display()))?
            .path();
        if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(suffix))
        {
            let bytes =
                std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            found.push((path, bytes));
        }
    }
    found.sort();
    Ok(found)
}

/// The seat's files from the host in `dir`, each checked to be this seat's and of one
/// game, in order.
fn seat_files(dir: &Path, seat: &str) -> Result<Vec<(PathBuf, Vec<u8>, SeatFile)>> {
    let mut files = Vec::new();
    for (path, bytes) in files_ending(dir, ".seat.json")? {
        let name = path.display().to_string();
        let f: SeatFile = parse(&name, &bytes, "a file from the host")?;
        if f.seat != seat {
            bail!(
                "{name}: it is for seat {}, not for seat {seat}: a seat's folder holds only its own files",
                f.seat
            );
        }
        files.push((path, bytes, f));
    }
    if files.is_empty() {
        bail!(
            "{} holds no file from the host (*.seat.json)",
            dir.display()
        );
    }
    files.sort_by_key(|(_, _, f)| f.index);
    let first = &files[0].2;
    if first.index != 0 {
        bail!(
            "{}: the seat's first file (number 0) is missing",
            files[0].0.display()
        );
    }
    for (path, _, f) in &files[1..] {
        if f.game != first.game {
            bail!(
                "{}: it belongs to game {}, not to this folder's game ({}); keep one game a folder",
                path.display(),
                f.game,
                first.game
            );
        }
        if f.commit != first.commit {
            bail!(
                "{}: its commitment differs from file 0's: the host changed its secret during the game",
                path.display()
            );
        }
    }
    Ok(files)
}

/// How a person answers by file beyond picking (`--entry`, `--choice`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Entering<'a> {
    /// A JSON file of field ids and values in words: the entry of the choice's form.
    pub entry: Option<&'a Path>,
    /// The choice, by its number (1 first).
    pub choice: Option<usize>,
}

/// An entry file (`--entry`) read against a form in words: one line naming the file and
/// the field on error.
fn read_entry(path: &Path, form: &[Asked]) -> Result<Entry> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let words: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        anyhow!(
            "{}:{}:{}: the entry file is not JSON: {e} (give an object of field ids and values, e.g. {{\"holder\": \"Union\"}})",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    entry::from_words(form, &words).map_err(|why| {
        anyhow!(
            "{}: {why}; no answer was written (the fields and names are the form's in the host's file)",
            path.display()
        )
    })
}

/// `muster pbem play DIR --seat SEAT`: answers the seat's latest file; a choice with a
/// form (a referee's battle result) is entered at the prompt, field by field, or from
/// `--entry FILE`; the random player leaves it to the host's computer referee.
pub fn play(
    dir: &Path,
    seat: &str,
    player: PlayerKind,
    seed: u64,
    entering: Entering,
) -> Result<ExitCode> {
    if entering.entry.is_some() && player != PlayerKind::Human {
        bail!("--entry is a person's entry: give it without --player (or --player human)");
    }
    if !matches!(player, PlayerKind::Human | PlayerKind::Random) {
        bail!(
            "--player {}: from a seat's view only human and random play yet (the other computer players read the whole game, which a seat does not hold)",
            format!("{player:?}").to_lowercase()
        );
    }
    let files = seat_files(dir, seat)?;
    let (path, bytes, file) = files.last().expect("one file at least");
    let out = &mut std::io::stdout().lock();
    let answer_path = dir.join(answer_name(&file.game, seat, file.index));
    if !file.log.is_empty() {
        writeln!(out, "since your last file:")?;
        for line in &file.log {
            writeln!(out, "  {line}")?;
        }
    }
    if let Some(view) = &file.view {
        write_view(out, view)?;
    }
    if let Some(why) = &file.refused {
        writeln!(
            out,
            "the host refused your last answer, nothing of it applied: {why}; decide again"
        )?;
    }
    if file.over {
        writeln!(out, "the game is over")?;
        return Ok(ExitCode::SUCCESS);
    }
    if dir.join(record_name(&file.game)).exists() {
        writeln!(
            out,
            "the host published its record: the game goes on no further; check your files with muster pbem verify {} --seat {seat}",
            dir.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if answer_path.exists() {
        writeln!(
            out,
            "you answered {} already: waiting for the host's next file",
            path.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let action = if file.index == 0 {
        writeln!(out, "joining game {}", file.game)?;
        None
    } else {
        if file.decide.is_empty() {
            bail!(
                "{}: it offers no choice: the host sent a file with nothing to decide",
                path.display()
            );
        }
        let with_form: Vec<usize> = (0..file.decide.len())
            .filter(|&i| !file.decide[i].form.is_empty())
            .collect();
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        let pick = match (entering.choice, entering.entry, player) {
            (Some(n), _, _) => {
                if !(1..=file.decide.len()).contains(&n) {
                    bail!(
                        "{}: --choice {n}: its choices are numbered 1 to {}; no answer was written",
                        path.display(),
                        file.decide.len()
                    );
                }
                n - 1
            }
            (None, Some(_), _) => match with_form.as_slice() {
                [i] => *i,
                [] => bail!(
                    "{}: none of its choices takes an entry (--entry fills a form, such as a battle's result); no answer was written",
                    path.display()
                ),
                several => bail!(
                    "{}: several of its choices take an entry (numbers {}): give --choice N; no answer was written",
                    path.display(),
                    several
                        .iter()
                        .map(|i| (i + 1).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            (None, None, PlayerKind::Human) => {
                for (i, c) in file.decide.iter().enumerate() {
                    writeln!(out, "  {:>3}. {}", i + 1, c.words)?;
                    if !c.form.is_empty() {
                        let fields: Vec<String> = c
                            .form
                            .iter()
                            .map(|f| format!("{} ({})", f.id, f.label))
                            .collect();
                        writeln!(out, "       with a form: {}", fields.join(", "))?;
                    }
                }
                loop {
                    write!(out, "your choice (1-{}, q to quit): ", file.decide.len())?;
                    out.flush()?;
                    let Some(line) = lines.next() else {
                        writeln!(out, "no answer written")?;
                        return Ok(ExitCode::SUCCESS);
                    };
                    let line = line?;
                    let line = line.trim();
                    if line == "q" {
                        writeln!(out, "you quit: no answer was written")?;
                        return Ok(ExitCode::SUCCESS);
                    }
                    match line.parse::<usize>() {
                        Ok(n) if (1..=file.decide.len()).contains(&n) => break n - 1,
                        _ => writeln!(out, "give a number from 1 to {}", file.decide.len())?,
                    }
                }
            }
            (None, None, PlayerKind::Random) => {
                // Seeded by the player's seed and the file: the same file, the same choice.
                let mut rng = Pcg32::new(
                    seed ^ u64::from(file.index).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    2,
                );
                (rng.between_one_and(file.decide.len() as u32) - 1) as usize
            }
            (None, None, other) => bail!("--player {other:?} does not play from a seat's view"),
        };
        let choice = &file.decide[pick];
        writeln!(out, "you chose: {}", choice.words)?;
        let mut action = choice.action.clone();
        let entered = match (entering.entry, player) {
            (Some(entry_file), _) if choice.form.is_empty() => bail!(
                "{}: choice {} ({}) takes no entry; no answer was written",
                entry_file.display(),
                pick + 1,
                choice.words
            ),
            (Some(entry_file), _) => {
                let e = read_entry(entry_file, &choice.form)?;
                writeln!(out, "entered: {}", entry::describe_words(&choice.form, &e))?;
                Some(e)
            }
            (None, PlayerKind::Human) if !choice.form.is_empty() => {
                writeln!(out, "{} (you enter it)", choice.words)?;
                Some(crate::entry::fill(out, &choice.form, &mut lines)?)
            }
            // The random player leaves a form to the host's computer referee.
            (None, _) => None,
        };
        if let Some(e) = entered
            && let Action::Take { entry, .. } = &mut action
        {
            *entry = Some(Box::new(e));
        }
        Some(action)
    };
    let answer = Answer {
        pbem_host: HOST_FORMAT,
        game: file.game.clone(),
        seat: seat.to_string(),
        answers: file.index,
        file: to_hex(&sha256(bytes)),
        nonce: to_hex(&random32()?),
        action,
    };
    write_new(&answer_path, &to_bytes(&answer))?;
    writeln!(out, "wrote {}: send it to the host", answer_path.display())?;
    Ok(ExitCode::SUCCESS)
}

/// A seat's view in words, from its JSON.
fn write_view(out: &mut dyn Write, view: &serde_json::Value) -> Result<()> {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    writeln!(
        out,
        "{} sees: turn {}{}",
        s(&view["seat"]),
        s(&view["turn"]),
        view["player"]
            .as_str()
            .map(|p| format!(", {p} to play"))
            .unwrap_or_default()
    )?;
    if let Some(o) = view.get("outcome").filter(|o| !o.is_null()) {
        writeln!(
            out,
            "game over: {} ({})",
            o["winner"].as_str().unwrap_or("draw"),
            s(&o["reason"])
        )?;
    }
    for b in view["boxes"].as_array().into_iter().flatten() {
        let mut parts: Vec<String> = b["pieces"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| match (p["type"].as_str(), p["side"].as_str()) {
                (Some(kind), side) => format!(
                    "{kind} #{}{}",
                    p["number"].as_u64().unwrap_or_default(),
                    side.map(|s| format!(" ({s})")).unwrap_or_default()
                ),
                (None, Some(side)) => format!("a {side} piece"),
                (None, None) => "a piece".into(),
            })
            .collect();
        if let Some(n) = b["unseen"].as_u64().filter(|&n| n > 0) {
            parts.push(format!("{n} unseen piece(s)"));
        }
        if !parts.is_empty() {
            writeln!(out, "  {}: {}", s(&b["name"]), parts.join(", "))?;
        }
    }
    Ok(())
}

/// `muster pbem verify DIR --seat SEAT`: checks every file the seat received against
/// the published record.
pub fn verify(
    dir: &Path,
    seat: &str,
    module_dir: Option<&Path>,
    mods: &[PathBuf],
) -> Result<ExitCode> {
    let files = seat_files(dir, seat)?;
    let game = files[0].2.game.clone();
    let setup = files[0]
        .2
        .setup
        .clone()
        .ok_or_else(|| anyhow!("{}: file 0 has no setup", files[0].0.display()))?;
    let record_path = dir.join(record_name(&game));
    let bytes = std::fs::read(&record_path).map_err(|e| {
        anyhow!(
            "cannot read {} ({e}): the host publishes its record at the game's end (or with muster pbem reveal)",
            record_path.display()
        )
    })?;
    let record: Record = parse(
        &record_path.display().to_string(),
        &bytes,
        "a game's record",
    )?;
    if record.game != game {
        bail!(
            "{}: it belongs to game {}, not to this folder's game ({game})",
            record_path.display(),
            record.game
        );
    }
    if record.setup != setup {
        bail!(
            "{}: its setup is not the one the host sent in file 0",
            record_path.display()
        );
    }
    let base = match setup.module.stack.first() {
        Some(base) if !mods.is_empty() => base.id.clone(),
        _ => setup.module.id.clone(),
    };
    let module_dir = crate::pbem::find_module(dir, &base, module_dir)?;
    let (module, mut rules) = crate::rules::load(&module_dir, mods)?;
    let mut all = Vec::new();
    for suffix in [".seat.json", ".answer.json"] {
        for (path, bytes) in files_ending(dir, suffix)? {
            all.push((path.display().to_string(), bytes));
        }
    }
    let v = verify_seat(&module, &mut rules, &record, seat, &all)?;
    writeln!(
        std::io::stdout().lock(),
        "seat {seat}: {} files from the host and {} answers verified against the published record of game {game}: the secret is the one committed, the dice come from it and the seats' nonces, the game's {} actions are legal and each its seat's, and every view, log and choice sent is what the game gives{}",
        v.files,
        v.answers,
        v.actions,
        if v.over {
            "; the game is over"
        } else {
            "; the game ended early (published before its end)"
        }
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `muster pbem export DIR --save FILE` for a host's folder: the master game.
pub fn export(dir: &Path, to: &Path) -> Result<ExitCode> {
    let folder = read_host(dir)?;
    let (module, mut rules) = load(&folder)?;
    let master = folder.record.replay(&module, &mut rules)?;
    let save = folder
        .record
        .to_save(&module, &master)
        .ok_or_else(|| anyhow!("the game has not started: every seat must join first"))?;
    crate::pbem::write_export(&save, to)
}

/// Whether `dir` is a host's folder.
pub fn is_host_folder(dir: &Path) -> bool {
    dir.join(HOST_FILE).exists()
}
