//! One soak game: a module stack with its rules, a scenario, optional rules, a seed and a
//! player per side, played to the end through `legal_actions`/`apply` with the
//! invariants checked after every action, then replayed from its save.
//!
//! Players choose as `muster play` does (random sides share one chooser on PCG32 stream
//! 2, a computer side is `muster_ai::player(level, muster_ai::side_seed(seed, side))`),
//! so a failing game can be watched with `muster play mods/ahd --player
//! SIDE=random|ai --seed N --options ...` (see [`command`]).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use muster_ai::{AiError, Level, Player};
use muster_core::Module;
use muster_core::game::dice::Pcg32;
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{Action, Dice, GameState, decider, legal_actions, start};
use muster_scripting::{Limits, ScriptRules};

use crate::invariants::Checks;

/// A module stack and its rules, loaded once and played many times.
pub struct Variant {
    /// How the soak names it: the folders, `ahd` or `ahd+ahd-1981`.
    pub name: String,
    pub module: Module,
    pub rules: ScriptRules,
    pub checks: Checks,
}

impl Variant {
    /// Loads `base` with `mods` laid on it (folders under `root`).
    pub fn load(root: &Path, base: &str, mods: &[&str]) -> Result<Variant> {
        let dirs: Vec<_> = mods.iter().map(|m| root.join(m)).collect();
        let module =
            muster_core::load_stack(root.join(base), &dirs).map_err(|e| anyhow!("{base}: {e}"))?;
        let rules = ScriptRules::load(&module, Limits::default().native())
            .with_context(|| format!("loading the rules of {base}"))?;
        let name = std::iter::once(base)
            .chain(mods.iter().copied())
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .collect::<Vec<_>>()
            .join("+");
        Ok(Variant {
            name,
            checks: Checks::new(&module),
            module,
            rules,
        })
    }
}

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Random,
    Ai,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Random => "random",
            Kind::Ai => "ai",
        }
    }
}

/// One game to play.
#[derive(Clone, Debug)]
pub struct Spec {
    pub scenario: String,
    pub options: Vec<String>,
    pub seed: u64,
    /// One per side, in the module's side order.
    pub players: Vec<Kind>,
}

/// What went wrong in a game, with where.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The action (0-based, in play order) after which the check failed; `None` for the
    /// start or the replay.
    pub action: Option<usize>,
    pub message: String,
}

/// How a game went.
#[derive(Clone, Debug, Default)]
pub struct Played {
    pub actions: usize,
    pub finished: bool,
    pub failure: Option<Failure>,
}

/// A game longer than this is stuck (the longest AHD game is 40 turns of ~100 actions).
pub const MAX_ACTIONS: usize = 100_000;

/// Plays `spec` to the end; a panic anywhere is a failure like any other.
pub fn play(variant: &mut Variant, spec: &Spec, replay: bool) -> Played {
    let mut played = Played::default();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        play_inner(variant, spec, replay, &mut played)
    }));
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(f)) => Some(f),
        Err(panic) => Some(Failure {
            action: Some(played.actions),
            message: format!("panic: {}", panic_message(&*panic)),
        }),
    };
    played.failure = failure;
    played
}

/// The text of a caught panic.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

fn play_inner(
    variant: &mut Variant,
    spec: &Spec,
    replay: bool,
    played: &mut Played,
) -> Result<(), Failure> {
    let Variant {
        module,
        rules,
        checks,
        ..
    } = variant;
    let at_start = |message: String| Failure {
        action: None,
        message,
    };
    let scenario = module
        .scenario(&spec.scenario)
        .cloned()
        .ok_or_else(|| at_start(format!("no scenario '{}'", spec.scenario)))?;
    let options = spec
        .options
        .iter()
        .map(|o| {
            module
                .find_option(o)
                .ok_or_else(|| at_start(format!("no option '{o}'")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (mut state, _) = start(module, rules, &scenario, options, Dice::seeded(spec.seed))
        .map_err(|e| at_start(format!("the game does not start: {e}")))?;
    checks.state(module, &state).map_err(at_start)?;
    let mut chooser = Pcg32::new(spec.seed, 2);
    let mut computers: Vec<Option<Box<dyn Player>>> = spec
        .players
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            Kind::Ai => Some(muster_ai::player(
                Level::Ai,
                muster_ai::side_seed(spec.seed, i),
            )),
            Kind::Random => None,
        })
        .collect();
    let mut actions: Vec<Action> = Vec::new();
    while state.outcome.is_none() {
        let i = actions.len();
        let fail = |message: String| Failure {
            action: Some(i),
            message,
        };
        if i >= MAX_ACTIONS {
            return Err(fail(format!("still going after {MAX_ACTIONS} actions")));
        }
        let side = decider(module, &state);
        let (action, next) = match computers.get_mut(side.index()).and_then(Option::as_mut) {
            Some(player) => {
                let (action, next, _) = muster_ai::step(player.as_mut(), module, rules, &state)
                    .map_err(|e| match e {
                        AiError::Stuck => fail("no legal action, and the game is not over".into()),
                        e => fail(format!("the ai player fails: {e}")),
                    })?;
                (action, next)
            }
            None => {
                let legal = legal_actions(module, rules, &state)
                    .map_err(|e| fail(format!("legal_actions fails: {e}")))?;
                let n = u32::try_from(legal.len()).unwrap_or(u32::MAX);
                if n == 0 {
                    return Err(fail("no legal action, and the game is not over".into()));
                }
                let action = legal[(chooser.between_one_and(n) - 1) as usize].clone();
                let (next, _) = muster_core::game::apply(module, rules, &state, &action)
                    .map_err(|e| fail(format!("the legal action {action:?} fails: {e}")))?;
                (action, next)
            }
        };
        checks
            .step(module, &state, &action, &next)
            .and_then(|()| checks.state(module, &next))
            .map_err(|m| fail(format!("after {action:?}: {m}")))?;
        // A game may be saved at any point: during a battle too, which the replay of
        // finished games never sees.
        if next.combat.is_some() {
            let back: Result<GameState, _> =
                serde_json::to_vec(&next).and_then(|j| serde_json::from_slice(&j));
            match back {
                Ok(back) if back == next => {}
                Ok(back) => {
                    return Err(fail(format!(
                        "after {action:?}: the state reads back different from its save: {}",
                        crate::harness::debug_difference(&next, &back)
                    )));
                }
                Err(e) => return Err(fail(format!("after {action:?}: the state's JSON: {e}"))),
            }
        }
        actions.push(action);
        played.actions = actions.len();
        state = next;
    }
    played.finished = true;
    if replay {
        replay_save(module, rules, spec, actions, state)?;
    }
    Ok(())
}

/// The game's save, through JSON and back, replays to the very same state
/// (determinism: same stack, options, seed and actions, same game bit for bit).
fn replay_save(
    module: &Module,
    rules: &mut ScriptRules,
    spec: &Spec,
    actions: Vec<Action>,
    state: GameState,
) -> Result<(), Failure> {
    let fail = |message: String| Failure {
        action: None,
        message: format!("replay: {message}"),
    };
    let save = Save::new(
        module,
        SavedScenario {
            id: spec.scenario.clone(),
            xml: None,
        },
        spec.options.clone(),
        spec.seed,
        actions,
        state,
    );
    let json = serde_json::to_vec(&save).map_err(|e| fail(e.to_string()))?;
    let back: Save = serde_json::from_slice(&json).map_err(|e| fail(e.to_string()))?;
    if back != save {
        return Err(fail("the save reads back different".into()));
    }
    let (replayed, _) = back
        .replay(module, rules)
        .map_err(|e| fail(e.to_string()))?;
    if replayed != save.snapshot {
        return Err(fail("the replayed state differs from the game's".into()));
    }
    Ok(())
}

/// The `muster play` command that plays the same game (for a failure report).
pub fn command(variant: &Variant, spec: &Spec) -> String {
    let mut cmd = format!("muster play mods/{}", variant.module_dir());
    for m in variant.mod_dirs() {
        cmd.push_str(&format!(" --mod mods/{m}"));
    }
    cmd.push_str(&format!(
        " --scenario {} --seed {}",
        spec.scenario, spec.seed
    ));
    for (i, k) in spec.players.iter().enumerate() {
        if let Some(side) = variant.module.sides.get(i) {
            cmd.push_str(&format!(" --player {}={}", side.id, k.name()));
        }
    }
    if !spec.options.is_empty() {
        cmd.push_str(&format!(" --options {}", spec.options.join(",")));
    }
    cmd
}

impl Variant {
    fn module_dir(&self) -> &str {
        self.name.split('+').next().unwrap_or(&self.name)
    }

    fn mod_dirs(&self) -> impl Iterator<Item = &str> {
        self.name.split('+').skip(1)
    }
}
