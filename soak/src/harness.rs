//! The fuzz targets' bodies (issue 17, item 4): each takes the fuzzer's bytes and returns
//! `Err` when an invariant breaks; a panic is a crash as it stands. `fuzz/` wraps them
//! for cargo-afl, and `tests/it/fuzz_regressions.rs` runs them on every crash input found,
//! so a crash stays fixed.
//!
//! The modules and their rules are loaded once per thread (the fuzzer runs many inputs
//! in one process); only the fuzzed part is new each time.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use muster_core::Module;
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{Action, Dice, GameState, Path as MovePath, Step, apply, legal_actions};
use muster_core::ids::{BoxId, LineId, UnitId, UnitTypeId};
use muster_core::load::Overrides;

use crate::game::Variant;
use crate::invariants::Checks;

/// The repository's root (where `mods/` is).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("soak/ is in the repository")
        .to_path_buf()
}

// ---------------------------------------------------------------------------------
// Target `module`: one file of a module fuzzed, the rest of the module as shipped.

/// The files the `module` target fuzzes: (module folder, mods laid on it, file
/// relative to the folder fuzzed). The first input byte picks one.
pub const MODULE_FILES: &[(&str, &[&str], &str)] = &[
    ("mods/ahd", &[], "module.xml"),
    ("mods/ahd", &[], "map.xml"),
    ("mods/ahd", &[], "units.xml"),
    ("mods/ahd", &[], "sides.xml"),
    ("mods/ahd", &[], "calendar.xml"),
    ("mods/ahd", &[], "options.xml"),
    ("mods/ahd", &[], "scenarios/1861.xml"),
    ("mods/ahd", &[], "scenarios/1862.xml"),
    ("mods/ahd", &[], "scenarios/1863.xml"),
    ("mods/ahd", &[], "scenarios/1864.xml"),
    ("mods/ahd", &[], "scenarios/1861-short.xml"),
    ("mods/ahd", &["mods/ahd-1981"], "changes.xml"),
    ("mods/ahd", &["mods/ahd-1981"], "module.xml"),
    ("mods/ahd", &["mods/ahd-triplea"], "units.xml"),
    ("mods/ahd", &["mods/ahd-triplea"], "calendar.xml"),
    ("mods/ahd", &["mods/ahd-triplea"], "sides.xml"),
    ("mods/ahd", &["mods/ahd-triplea"], "scenarios/1861.xml"),
    ("mods/ahd", &["mods/examples/no-cairo-rail"], "changes.xml"),
    ("mods/ahd", &["mods/examples/cavalry-screen"], "module.xml"),
    ("mods/ahd", &["mods/examples/rail-raid"], "raid-example.xml"),
];

/// The scenario files loaded on their own against AHD (`--scenario FILE`); picked by a
/// first byte past [`MODULE_FILES`].
pub const SCENARIO_FILES: &[&str] = &[
    "tests/scenarios/rule_4_0_example.xml",
    "tests/scenarios/rule_4_5_example.xml",
    "mods/examples/cavalry-screen/screen-example.xml",
];

thread_local! {
    static AHD: RefCell<Option<Module>> = const { RefCell::new(None) };
}

fn with_ahd<T>(f: impl FnOnce(&Module) -> T) -> T {
    AHD.with(|m| {
        let mut m = m.borrow_mut();
        let module = m.get_or_insert_with(|| {
            muster_core::load_module(root().join("mods/ahd")).expect("mods/ahd loads")
        });
        f(module)
    })
}

/// Loads what the targets keep between inputs (the modules and their rules), so that
/// the fuzzer's fork server starts each child with them loaded.
pub fn warm_up() {
    with_ahd(|_| ());
    for i in 0..VARIANTS.len() {
        with_variant(i, |_| ());
    }
}

/// Loads a module with one file replaced by `data` (first byte: which file); a module
/// that loads must set up every scenario with its invariants holding, and an error must
/// name a place.
pub fn module(data: &[u8]) -> Result<(), String> {
    let Some((&pick, text)) = data.split_first() else {
        return Ok(());
    };
    // The loader reads files as UTF-8 and says so when one is not; only text gets here.
    let Ok(text) = std::str::from_utf8(text) else {
        return Ok(());
    };
    let pick = usize::from(pick) % (MODULE_FILES.len() + SCENARIO_FILES.len());
    let root = root();
    if let Some(file) = pick.checked_sub(MODULE_FILES.len()) {
        return with_ahd(|ahd| {
            let name = SCENARIO_FILES[file];
            match muster_core::load::load_scenario_str(ahd, name, text) {
                Ok(scenario) => set_up(ahd, std::slice::from_ref(&scenario)),
                Err(e) => named_error(&e.to_string()),
            }
        });
    }
    let (base, mods, file) = MODULE_FILES[pick];
    let mods: Vec<PathBuf> = mods.iter().map(|m| root.join(m)).collect();
    let dir = mods.last().cloned().unwrap_or_else(|| root.join(base));
    let mut overrides = Overrides::new();
    overrides.insert(dir.join(file), text.to_string());
    match muster_core::load::load_stack_with(root.join(base), &mods, &overrides) {
        Ok(module) => set_up(&module, &module.scenarios),
        Err(e) => named_error(&e.to_string()),
    }
}

/// Every scenario that sets up gives a state whose invariants hold.
fn set_up(module: &Module, scenarios: &[muster_core::Scenario]) -> Result<(), String> {
    let checks = Checks::new(module);
    for s in scenarios {
        if let Ok(state) = GameState::new(module, s, Vec::new(), Dice::seeded(1)) {
            checks
                .state(module, &state)
                .map_err(|e| format!("scenario '{}' sets up broken: {e}", s.id))?;
        }
    }
    Ok(())
}

/// A load error says something.
fn named_error(message: &str) -> Result<(), String> {
    if message.trim().is_empty() {
        return Err("a load error with no message".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// Targets `save` and `actions`: games on the shipped modules with their rules.

/// The module stacks the game targets play, picked by a byte.
pub const VARIANTS: &[(&str, &[&str])] = &[
    ("mods/ahd", &[]),
    ("mods/ahd", &["mods/ahd-1981"]),
    ("mods/ahd", &["mods/ahd-triplea"]),
];

thread_local! {
    static VARIANT_CACHE: RefCell<Vec<Option<Variant>>> = const { RefCell::new(Vec::new()) };
    static SAVE_FILE: RefCell<Option<tempfile::NamedTempFile>> = const { RefCell::new(None) };
}

fn with_variant<T>(i: usize, f: impl FnOnce(&mut Variant) -> T) -> T {
    VARIANT_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() < VARIANTS.len() {
            c.resize_with(VARIANTS.len(), || None);
        }
        let v = c[i].get_or_insert_with(|| {
            let (base, mods) = VARIANTS[i];
            Variant::load(&root(), base, mods).expect("a shipped module loads")
        });
        f(v)
    })
}

/// Reads `data` as a save file (through [`Save::read`], as `muster replay` does) and
/// replays it on AHD: a save that replays gives a state whose invariants hold, and
/// reads back the same after writing.
pub fn save(data: &[u8]) -> Result<(), String> {
    let read = SAVE_FILE.with(|f| {
        let mut f = f.borrow_mut();
        let file = f.get_or_insert_with(|| {
            tempfile::Builder::new()
                .prefix("muster-fuzz-save")
                .suffix(".json")
                .tempfile()
                .expect("a temporary file")
        });
        std::fs::write(file.path(), data).expect("the temporary file is writable");
        Save::read(file.path())
    });
    let Ok(save) = read else {
        return Ok(());
    };
    with_variant(0, |v| {
        let Ok((state, _)) = save.replay(&v.module, &mut v.rules) else {
            return Ok(());
        };
        v.checks.state(&v.module, &state)?;
        let json = serde_json::to_vec(&save).map_err(|e| e.to_string())?;
        let back: Save = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
        if back != save {
            return Err("a save that replays reads back different after writing".into());
        }
        Ok(())
    })
}

/// Decodes the fuzzer's bytes into a game: variant, scenario, optional rules, seed,
/// then a sequence of choices, each either an index into the legal actions or an
/// arbitrary action. After each: the invariants; an illegal action must change nothing
/// (the legal list after it is the one before); a listed action must apply. At the end
/// the actions taken, replayed from the seed and through a save, give the same state.
pub fn actions(data: &[u8]) -> Result<(), String> {
    let mut bytes = Bytes(data);
    let variant = usize::from(bytes.u8()) % VARIANTS.len();
    with_variant(variant, |v| play(v, &mut bytes))
}

/// At most this many choices per input, so one input stays a few milliseconds.
const MAX_CHOICES: usize = 120;

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn play(v: &mut Variant, bytes: &mut Bytes<'_>) -> Result<(), String> {
    let Variant {
        module,
        rules,
        checks,
        ..
    } = v;
    let scenario_index = usize::from(bytes.u8()) % module.scenarios.len().max(1);
    let Some(scenario) = module.scenarios.get(scenario_index).cloned() else {
        return Ok(());
    };
    let mask = u32::from(bytes.u16()) | (u32::from(bytes.u8()) << 16);
    let options: Vec<String> = module
        .options
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 24 && mask & (1 << i) != 0)
        .map(|(_, o)| o.id.clone())
        .collect();
    let option_ids = options
        .iter()
        .filter_map(|o| module.find_option(o))
        .collect::<Vec<_>>();
    let seed = u64::from(bytes.u16());
    let Ok((first, _)) = muster_core::game::start(
        module,
        rules,
        &scenario,
        option_ids.clone(),
        Dice::seeded(seed),
    ) else {
        return Ok(());
    };
    checks
        .state(module, &first)
        .map_err(|e| format!("at the start: {e}"))?;
    let mut state = first.clone();
    let mut taken: Vec<Action> = Vec::new();
    for choice in 0..MAX_CHOICES {
        if bytes.is_empty() || state.outcome.is_some() {
            break;
        }
        let legal = legal_actions(module, rules, &state)
            .map_err(|e| format!("choice {choice}: legal_actions fails: {e}"))?;
        if legal.is_empty() {
            return Err(format!(
                "choice {choice}: no legal action, and the game is not over"
            ));
        }
        let op = bytes.u8();
        let action = if op >= 0xE0 {
            arbitrary(module, &state, bytes)
        } else {
            let i = (usize::from(op) << 8 | usize::from(bytes.u8())) % legal.len();
            legal[i].clone()
        };
        let listed = legal.contains(&action);
        match apply(module, rules, &state, &action) {
            Ok((next, _)) => {
                checks
                    .step(module, &state, &action, &next)
                    .and_then(|()| checks.state(module, &next))
                    .map_err(|e| format!("choice {choice}, after {action:?}: {e}"))?;
                state = next;
                taken.push(action);
            }
            Err(e) if listed => {
                return Err(format!(
                    "choice {choice}: the listed action {action:?} fails: {e}"
                ));
            }
            Err(_) => {
                // `apply` works on a copy; the rules must not remember the refusal.
                let again = legal_actions(module, rules, &state)
                    .map_err(|e| format!("choice {choice}: legal_actions fails: {e}"))?;
                if again != legal {
                    return Err(format!(
                        "choice {choice}: refusing {action:?} changed the legal actions"
                    ));
                }
            }
        }
    }
    // Determinism of replay: from the seed, the actions taken give this state again.
    let (mut again, _) =
        muster_core::game::start(module, rules, &scenario, option_ids, Dice::seeded(seed))
            .map_err(|e| format!("the game does not start a second time: {e}"))?;
    if again != first {
        return Err("the same start gives another state".into());
    }
    for (i, a) in taken.iter().enumerate() {
        again = apply(module, rules, &again, a)
            .map_err(|e| format!("replaying action {i} ({a:?}) fails: {e}"))?
            .0;
    }
    if again != state {
        return Err(format!(
            "replaying {} actions gives another state",
            taken.len()
        ));
    }
    let save = Save::new(
        module,
        SavedScenario {
            id: scenario.id.clone(),
            xml: None,
        },
        options,
        seed,
        taken,
        state,
    );
    let json = serde_json::to_vec(&save).map_err(|e| e.to_string())?;
    let back: Save = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
    if back.snapshot != save.snapshot {
        return Err(format!(
            "the state reads back different from its save: {}",
            debug_difference(&save.snapshot, &back.snapshot)
        ));
    }
    back.replay(module, rules)
        .map_err(|e| format!("the game's save does not replay: {e}"))?;
    Ok(())
}

/// Any action at all, ids in range or not (one in sixteen names a piece, box or type
/// that does not exist).
fn arbitrary(module: &Module, state: &GameState, bytes: &mut Bytes<'_>) -> Action {
    let wild = bytes.u8().is_multiple_of(16);
    let boxes = module.board.boxes.len().max(1);
    let units = state.units.len().max(1);
    let kinds = module.units.ids().count().max(1);
    let at = |b: &mut Bytes<'_>| {
        let n = b.u16();
        BoxId(if wild { n } else { n % boxes as u16 })
    };
    let unit = |b: &mut Bytes<'_>| {
        let n = b.u16();
        UnitId(if wild { n } else { n % units as u16 })
    };
    match bytes.u8() % 12 {
        0 => Action::Select { at: at(bytes) },
        1 => {
            let u = unit(bytes);
            let from = at(bytes);
            let len = bytes.u8() % 5;
            let steps = (0..len)
                .map(|_| Step {
                    line: LineId(bytes.u16()),
                    to: at(bytes),
                })
                .collect();
            Action::Move {
                unit: u,
                path: MovePath { from, steps },
            }
        }
        2 => Action::Release,
        3 => Action::Fight { at: at(bytes) },
        4 => Action::Retreat { to: at(bytes) },
        5 => Action::Pass,
        6 => Action::Reinforce { unit: unit(bytes) },
        7 => Action::Target {
            shooter: unit(bytes),
            target: unit(bytes),
        },
        8 => Action::Upgrade { unit: unit(bytes) },
        9 => {
            let k = bytes.u8();
            Action::Place {
                kind: UnitTypeId(if wild { k } else { k % kinds as u8 }),
                at: at(bytes),
            }
        }
        10 => {
            let offers = ["entrench", "sea-move", "recover", "", "x"];
            let offer = offers[usize::from(bytes.u8()) % offers.len()].to_string();
            let has_unit = bytes.u8() & 1 == 1;
            let u = has_unit.then(|| unit(bytes));
            let has_at = bytes.u8() & 1 == 1;
            Action::Take {
                offer,
                unit: u,
                at: has_at.then(|| at(bytes)),
                label: String::new(),
                seat: None,
                entry: None,
            }
        }
        _ => Action::EndStep,
    }
}

/// Runs a target on `data`, turning a panic into an `Err` (for the regression tests and
/// the corpus check).
pub fn run_caught(target: fn(&[u8]) -> Result<(), String>, data: &[u8]) -> Result<(), String> {
    match std::panic::catch_unwind(|| target(data)) {
        Ok(r) => r,
        Err(p) => Err(format!("panic: {}", crate::game::panic_message(&*p))),
    }
}

/// Where two values' debug forms first differ (with a little context), for a message.
pub fn debug_difference<T: std::fmt::Debug>(a: &T, b: &T) -> String {
    let (a, b): (Vec<char>, Vec<char>) = (
        format!("{a:?}").chars().collect(),
        format!("{b:?}").chars().collect(),
    );
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let part = |s: &[char]| -> String {
        s[at.saturating_sub(120).min(s.len())..(at + 60).min(s.len())]
            .iter()
            .collect()
    };
    format!("written ...{}... read ...{}...", part(&a), part(&b))
}
