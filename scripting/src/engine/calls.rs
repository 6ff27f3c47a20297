//! The engine's calls into the scripts: [`ScriptRules`] answers each question, event
//! and list hook of [`Rules`] by calling the hook's handlers with a `game` view and the
//! hook's arguments (path tables kept between calls), lends the dice to events, and
//! keeps what the rules logged and, while tracing, each question and its answers.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use mlua::{AnyUserData, IntoLua, IntoLuaMulti, Lua, MultiValue, Table, Value};
use muster_core::Module;
use muster_core::game::rules::{Answer as CoreAnswer, EVENTS, Loss, Progress, QUESTIONS, Threat};
use muster_core::game::{
    Asker, Command as CoreCommand, Dice, Event, GameState, Offer, Question, RuleError, Rules,
    SharedReads, View, Wanted,
};
use muster_core::ids::{BoxId, SideId, UnitId};
use ref_cast::RefCast;

use super::commands::{command, offer, plain_offer, plain_offers, progress, threat};
use super::offer_table::offer_table;
use super::paths::PathTables;
use super::view::{GameRef, Views, game_type};
use crate::defs::{lua_index, rust_index};
use crate::reading::Lent;
use crate::{Answer, HookSpec, Limits, Rng, Sandbox, ScriptError, Session};

/// A module's rules, loaded from its scripts.
pub struct ScriptRules {
    sandbox: Sandbox,
    dice: Rc<RefCell<DiceSlot>>,
    /// Makes each `game` view (see [`Views`]).
    views: Views,
    /// While `keep_logged` is on, the text of every `log` command the rules gave the
    /// engine since `take_logged`.
    logged: Option<Vec<String>>,
    /// With `log_only_from`, the chunk prefix (`house/`) of the module whose handlers'
    /// lines are kept: a mod's lines without its base's.
    logged_from: Option<String>,
    /// While tracing (`set_trace`), each question asked and its handlers' answers.
    trace: Option<Vec<RuleTrace>>,
    paths: PathTables,
    /// What the game kept while a look ahead runs ([`Rules::look_ahead`]).
    kept: Option<Kept>,
    /// The last listing of the `offers` hook ([`Rules::offers_kept`]).
    listed: Option<Listed>,
}

/// What the `offers` hook answered (`wanted` nil) and the position it was asked of: a
/// player takes an offer from the list it was just given, in the same position, and the
/// same listing asked twice of one position answers the same (offers are pure). One
/// listing is kept, so it costs a copy of the state (a few thousand instructions, where
/// the hook's call costs tens of thousands).
struct Listed {
    /// The module's content hash, with the state: the position.
    module: u64,
    state: GameState,
    step: String,
    offers: Vec<Offer>,
}

impl Listed {
    fn of(&self, view: View<'_>, step: &str) -> bool {
        self.module == view.module.content_hash && self.step == step && self.state == *view.state
    }
}

/// What [`ScriptRules`] had kept for the game when a look ahead began: given back, and
/// whatever the look ahead logged, traced or printed dropped, when it ends.
struct Kept {
    logged: Option<Vec<String>>,
    trace: Option<Vec<RuleTrace>>,
    output: crate::stdlib::Output,
}

/// A question the engine asked while tracing, with what each handler answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleTrace {
    /// The question's hook (`may_enter`).
    pub hook: &'static str,
    /// `may_enter Militia Infantry #3: Cairo -river-> St. Louis`.
    pub question: String,
    pub answers: Vec<crate::sandbox::Traced>,
}

impl RuleTrace {
    /// The first handler that answered `answer` (`"no"` for who forbade a move).
    pub fn first(&self, answer: &str) -> Option<&crate::sandbox::Traced> {
        self.answers.iter().find(|t| t.answer == answer)
    }
}

/// The game's dice, lent to `math.random` during an event.
#[derive(Default)]
struct DiceSlot {
    dice: Option<Dice>,
    /// Why a roll failed (no dice lent: a question rolled; or the fixed dice ran out).
    error: Option<String>,
    /// The rules' Lua, to say where a question rolled (set once the rules loaded).
    lua: Option<mlua::WeakLua>,
}

/// The hooks the engine calls, with their combine rules.
pub fn catalogue() -> Vec<HookSpec> {
    QUESTIONS
        .iter()
        .map(|&(name, c)| HookSpec::question(name, c))
        .chain(EVENTS.iter().map(|&name| HookSpec::event(name)))
        .collect()
}

/// Loads a fresh copy of a module's rules on each call: for a computer player's
/// search threads (scripted rules cannot cross threads), whose rollouts then log
/// nothing in the game's own rules.
pub type Loader = Arc<dyn Fn(&Module) -> Result<Box<dyn Rules>, String> + Send + Sync>;

/// A [`Loader`] of scripted rules with these limits.
pub fn loader(limits: Limits) -> Loader {
    Arc::new(move |module: &Module| {
        ScriptRules::load(module, limits)
            .map(|r| Box::new(r) as Box<dyn Rules>)
            .map_err(|e| e.to_string())
    })
}

impl ScriptRules {
    /// Loads the rule scripts of `module` (and of the modules it extends).
    pub fn load(module: &Module, limits: Limits) -> Result<Self, ScriptError> {
        let slot = Rc::new(RefCell::new(DiceSlot::default()));
        let lent = Rc::clone(&slot);
        let rng: Rng = Box::new(move |lo, hi| {
            let mut slot = lent.borrow_mut();
            let slot = &mut *slot;
            let Some(dice) = slot.dice.as_mut() else {
                // Where it rolled: a pcall in the script cannot hide the error, so it is
                // kept here and raised when the question returns.
                let at = slot
                    .lua
                    .as_ref()
                    .and_then(mlua::WeakLua::try_upgrade)
                    .map(|lua| crate::stdlib::caller(&lua))
                    .unwrap_or_default();
                slot.error = Some(format!(
                    "{at}math.random is for events: a question must not roll dice (a question \
                     must be pure: asked twice of one game it answers the same, and the engine \
                     asks it as often as it needs); roll in an event handler instead"
                ));
                return lo;
            };
            match dice.roll(hi.saturating_sub(lo).saturating_add(1)) {
                Ok(r) => lo + r - 1,
                Err(e) => {
                    slot.error = Some(e.to_string());
                    lo
                }
            }
        });
        let sandbox = Sandbox::load_module(module, &catalogue(), limits, rng)?;
        let lua = sandbox.lua();
        slot.borrow_mut().lua = Some(lua.weak());
        lua.set_app_data(Lent::new(module));
        let views = game_type(lua, module).map_err(|e| ScriptError::Load {
            file: "(game view)".to_string(),
            message: e.to_string(),
        })?;
        Ok(Self {
            sandbox,
            dice: slot,
            views,
            logged: None,
            logged_from: None,
            trace: None,
            paths: PathTables::default(),
            kept: None,
            listed: None,
        })
    }

    /// Every `hooks.wrap` of the rules and how often it ran and called `next` (`muster
    /// check --smoke` warns of a wrapper that ran and never did).
    pub fn wraps(&self) -> Vec<crate::WrapUse> {
        self.sandbox.wraps()
    }

    /// Where every Lua function the remaining handlers can reach is defined (see
    /// [`crate::Sandbox::reachable_functions`]).
    pub fn reachable_functions(&self) -> std::collections::BTreeSet<(String, usize)> {
        self.sandbox.reachable_functions()
    }

    /// Starts or stops keeping the lines the rules log (`log` commands), so that a
    /// player can tell them from the engine's (`muster play --rules-log`, the app's log
    /// colours).
    pub fn keep_logged(&mut self, on: bool) {
        self.logged = on.then(Vec::new);
    }

    /// Keeps only the lines logged by the handlers of module `id` (its own files, or a
    /// wrap of its own): `muster play --rules-log` on a mod shows the mod's lines, not
    /// its base's.
    pub fn log_only_from(&mut self, id: &str) {
        self.logged_from = Some(format!("{id}/"));
    }

    /// The lines the rules logged since the last call, while `keep_logged` is on. An
    /// action that failed may have left some: take them before applying and read them
    /// after a success.
    pub fn take_logged(&mut self) -> Vec<String> {
        self.logged.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Starts or stops recording each question the engine asks and every handler's
    /// answer (`muster moves --trace`: which rule said no to a path).
    pub fn set_trace(&mut self, on: bool) {
        self.sandbox.set_trace(on);
        self.trace = on.then(Vec::new);
    }

    /// The questions recorded since the last call.
    pub fn take_trace(&mut self) -> Vec<RuleTrace> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The `offers` hook: `offers(game, step, wanted)`, where `wanted` is nil when the
    /// engine lists what may be taken, or `{ id, unit?, box? }` when it checks the one
    /// being taken (handlers may then list only what matches it).
    fn list_offers(
        &mut self,
        view: View<'_>,
        step: &str,
        wanted: Option<&Wanted<'_>>,
    ) -> Result<Vec<Offer>, RuleError> {
        const HOOK: &str = "offers";
        let state = GameRef::ref_cast(view.state);
        let views = &mut self.views;
        let paths = &mut self.paths;
        let (module, game_state) = (view.module, view.state);
        let lua = self.sandbox.lua().clone();
        let offers = self
            .sandbox
            .list_bulk_with(
                HOOK,
                step_of(view),
                |lua, scope| {
                    let game = views.open(scope, state)?;
                    let wanted = match wanted {
                        None => Value::Nil,
                        Some(w) => {
                            let t = lua.create_table_with_capacity(0, 3)?;
                            t.raw_set("id", w.id)?;
                            if let Some(u) = w.unit {
                                t.raw_set("unit", lua_index(u.index()))?;
                            }
                            if let Some(b) = w.at {
                                t.raw_set("box", lua_index(b.index()))?;
                            }
                            Value::Table(t)
                        }
                    };
                    (game, paths.step_id(lua, step)?, wanted).into_lua_multi(lua)
                },
                |list, n, out| plain_offers(&lua, module, game_state, list, n, out),
                |v| match v {
                    Value::Table(t) => match plain_offer(&lua, module, game_state, t) {
                        Some(o) => Ok(o),
                        None => offer(module, game_state, t),
                    },
                    other => Err(format!("{}, not a table", crate::value::describe(other))),
                },
            )
            .map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(offers)
    }

    /// What scripts printed since the last call.
    pub fn take_output(&mut self) -> Vec<String> {
        self.sandbox.take_output()
    }

    fn dice_error(&self, hook: &str) -> Result<(), RuleError> {
        match self.dice.borrow_mut().error.take() {
            Some(message) => Err(RuleError {
                hook: hook.into(),
                message,
            }),
            None => Ok(()),
        }
    }
}

/// The step the game is at, by which handlers declared `during` some steps are
/// called or not: the one under way, or the one the game ended in.
fn step_of(view: View<'_>) -> Option<&str> {
    view.state.step_at(view.module).map(|s| s.id.as_str())
}

fn rule_error(hook: &str, e: ScriptError) -> RuleError {
    RuleError {
        hook: hook.into(),
        message: e.to_string(),
    }
}

impl Rules for ScriptRules {
    fn trace_refusals(&mut self, on: bool) {
        self.set_trace(on);
    }

    fn refusals(&mut self) -> Vec<muster_core::game::RuleSaid> {
        self.take_trace()
            .into_iter()
            .flat_map(|t| {
                let question = t.question;
                t.answers
                    .into_iter()
                    .filter(|a| a.answer == "no")
                    .map(move |a| muster_core::game::RuleSaid {
                        hook: a.hook.to_string(),
                        question: question.clone(),
                        handler: a.handler,
                        id: a.id,
                    })
            })
            .collect()
    }

    fn look_ahead(&mut self, on: bool) {
        if on && self.kept.is_none() {
            let trace = self.trace.take();
            if trace.is_some() {
                self.sandbox.set_trace(false);
            }
            self.kept = Some(Kept {
                logged: self.logged.take(),
                trace,
                output: self.sandbox.set_aside_output(),
            });
        } else if !on && let Some(kept) = self.kept.take() {
            self.logged = kept.logged;
            if kept.trace.is_some() {
                self.sandbox.set_trace(true);
            }
            self.trace = kept.trace;
            self.sandbox.restore_output(kept.output);
        }
    }

    fn answers(&self, hook: &str) -> bool {
        self.sandbox.handler_count(hook) > 0
    }

    fn fixed(&self, hook: &str) -> bool {
        self.sandbox.all_fixed(hook)
    }

    fn offers(&mut self, view: View<'_>, step: &str) -> Result<Vec<Offer>, RuleError> {
        if let Some(kept) = self.offers_kept(view, step) {
            return Ok(kept.to_vec());
        }
        let offers = self.list_offers(view, step, None)?;
        // An empty listing has nothing to take: not kept, and no copy of the state made
        // (AHD lists none outside its Movement and Recruitment segments).
        self.listed = (!offers.is_empty()).then(|| Listed {
            module: view.module.content_hash,
            state: view.state.clone(),
            step: step.to_string(),
            offers: offers.clone(),
        });
        Ok(offers)
    }

    fn offers_kept(&self, view: View<'_>, step: &str) -> Option<&[Offer]> {
        self.listed
            .as_ref()
            .filter(|l| l.of(view, step))
            .map(|l| l.offers.as_slice())
    }

    /// The `evacuations` hook: `evacuations(game, side, withdrawal)` returns nil or a
    /// list of box numbers.
    fn evacuations(
        &mut self,
        view: View<'_>,
        side: SideId,
        withdrawal: bool,
    ) -> Result<Vec<BoxId>, RuleError> {
        const HOOK: &str = "evacuations";
        let state = GameRef::ref_cast(view.state);
        let views = &mut self.views;
        let module = view.module;
        let boxes = module.board.boxes.len();
        let out = self
            .sandbox
            .list_with(
                HOOK,
                step_of(view),
                |lua, scope| {
                    let game = views.open(scope, state)?;
                    (game, side_name(module, side), withdrawal).into_lua_multi(lua)
                },
                |v| match v {
                    Value::Integer(n) => rust_index(*n)
                        .and_then(BoxId::from_index)
                        .filter(|b| b.index() < boxes)
                        .ok_or_else(|| format!("{n} is not a box number (1-{boxes})")),
                    other => Err(format!(
                        "{}, not a box number",
                        crate::value::describe(other)
                    )),
                },
            )
            .map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(out)
    }

    /// The `accepts_entry` hook: `accepts_entry(game, offer)` returns nil (accepted) or
    /// a reason (refused); the first reason counts.
    fn refuses_entry(
        &mut self,
        view: View<'_>,
        offer: &Offer,
    ) -> Result<Option<String>, RuleError> {
        const HOOK: &str = "accepts_entry";
        let state = GameRef::ref_cast(view.state);
        let views = &mut self.views;
        let module = view.module;
        let why = self
            .sandbox
            .first_with(
                HOOK,
                step_of(view),
                |lua, scope| {
                    let game = views.open(scope, state)?;
                    (game, offer_table(lua, module, offer)?).into_lua_multi(lua)
                },
                |v| reason(v, "accepted"),
            )
            .map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(why)
    }

    /// The `end_step_refusal` hook: `end_step_refusal(game, step)` returns nil (the
    /// step may end) or a reason (refused); the first reason counts.
    fn end_step_refusal(
        &mut self,
        view: View<'_>,
        step: &str,
    ) -> Result<Option<String>, RuleError> {
        const HOOK: &str = "end_step_refusal";
        let state = GameRef::ref_cast(view.state);
        let views = &mut self.views;
        let paths = &mut self.paths;
        let why = self
            .sandbox
            .first_with(
                HOOK,
                step_of(view),
                |lua, scope| {
                    let game = views.open(scope, state)?;
                    (game, paths.step_id(lua, step)?).into_lua_multi(lua)
                },
                |v| reason(v, "the step may end"),
            )
            .map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(why)
    }

    /// The `composition` hook: `composition(game, unit)` returns nil (accepted) or a
    /// reason (refused); the first reason counts.
    fn refuses_composition(
        &mut self,
        view: View<'_>,
        formation: UnitId,
    ) -> Result<Option<String>, RuleError> {
        const HOOK: &str = "composition";
        let state = GameRef::ref_cast(view.state);
        let views = &mut self.views;
        let why = self
            .sandbox
            .first_with(
                HOOK,
                step_of(view),
                |lua, scope| {
                    let game = views.open(scope, state)?;
                    (game, lua_index(formation.index())).into_lua_multi(lua)
                },
                |v| reason(v, "accepted"),
            )
            .map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(why)
    }

    /// The `referee_entry` hook: `referee_entry(game, offer)` returns nil (not this
    /// handler's) or the values `{ [field id] = value }`; the first entry counts. Dice
    /// may be rolled: the game's own.
    fn referee_entry(
        &mut self,
        view: View<'_>,
        dice: &mut Dice,
        offer: &Offer,
    ) -> Result<Option<muster_core::game::Entry>, RuleError> {
        const HOOK: &str = "referee_entry";
        let state = GameRef::ref_cast(view.state);
        let module = view.module;
        self.dice.borrow_mut().dice = Some(dice.clone());
        let views = &mut self.views;
        let result = self.sandbox.first_with(
            HOOK,
            step_of(view),
            |lua, scope| {
                let game = views.open(scope, state)?;
                (game, offer_table(lua, module, offer)?).into_lua_multi(lua)
            },
            |v| {
                super::entries::entry(module, view.state, &offer.form, v)
                    .map_err(|m| format!("returned a bad entry: {m}"))
            },
        );
        let lent = self.dice.borrow_mut().dice.take();
        if let Some(d) = lent {
            *dice = d;
        }
        let entry = result.map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(entry)
    }

    /// The `battle_losses` hook: `battle_losses(game)` returns nil or a list of
    /// `{ side, steps, unit?, rule? }`.
    fn battle_losses(&mut self, view: View<'_>) -> Result<Vec<Loss>, RuleError> {
        const HOOK: &str = "battle_losses";
        let state = GameRef::ref_cast(view.state);
        let views = &mut self.views;
        let module = view.module;
        let units = view.state.units.len();
        let out = self
            .sandbox
            .list_with(
                HOOK,
                step_of(view),
                |lua, scope| {
                    let game = views.open(scope, state)?;
                    game.into_lua_multi(lua)
                },
                |v| match v {
                    Value::Table(t) => super::commands::loss(module, units, t),
                    other => Err(format!("{}, not a table", crate::value::describe(other))),
                },
            )
            .map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(out)
    }

    fn offers_for(
        &mut self,
        view: View<'_>,
        step: &str,
        wanted: &Wanted<'_>,
    ) -> Result<Vec<Offer>, RuleError> {
        self.list_offers(view, step, Some(wanted))
    }

    /// The `victory_progress` hook: `victory_progress(game)` returns nil or a list of
    /// `{ side, goal, have, need }`.
    fn victory_progress(&mut self, view: View<'_>) -> Result<Vec<Progress>, RuleError> {
        const HOOK: &str = "victory_progress";
        let state = GameRef::ref_cast(view.state);
        let views = &mut self.views;
        let module = view.module;
        let out = self
            .sandbox
            .list_with(
                HOOK,
                step_of(view),
                |lua, scope| {
                    let game = views.open(scope, state)?;
                    game.into_lua_multi(lua)
                },
                |v| match v {
                    Value::Table(t) => progress(module, t),
                    other => Err(format!("{}, not a table", crate::value::describe(other))),
                },
            )
            .map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(out)
    }

    /// The `victory_threats` hook: `victory_threats(game)` returns nil or a list of
    /// `{ side, text, boxes }`.
    fn victory_threats(&mut self, view: View<'_>) -> Result<Vec<Threat>, RuleError> {
        const HOOK: &str = "victory_threats";
        let state = GameRef::ref_cast(view.state);
        let views = &mut self.views;
        let module = view.module;
        let out = self
            .sandbox
            .list_with(
                HOOK,
                step_of(view),
                |lua, scope| {
                    let game = views.open(scope, state)?;
                    game.into_lua_multi(lua)
                },
                |v| match v {
                    Value::Table(t) => threat(module, t),
                    other => Err(format!("{}, not a table", crate::value::describe(other))),
                },
            )
            .map_err(|e| rule_error(HOOK, e))?;
        self.dice_error(HOOK)?;
        Ok(out)
    }

    fn ask(&mut self, view: View<'_>, q: Question<'_>) -> Result<CoreAnswer, RuleError> {
        let hook = q.hook();
        let state = GameRef::ref_cast(view.state);
        let module = view.module;
        let views = &mut self.views;
        let paths = &mut self.paths;
        let answer = self
            .sandbox
            .question_with(hook, step_of(view), |lua, scope| {
                let game = views.open(scope, state)?;
                question_args(lua, module, paths, game, &q)?.into_lua_multi(lua)
            })
            .map_err(|e| rule_error(hook, e))?;
        let sandbox = &mut self.sandbox;
        answered(
            &self.dice,
            self.trace.as_mut(),
            || sandbox.take_trace(),
            view,
            &q,
            answer,
        )
    }

    fn ask_each(
        &mut self,
        view: View<'_>,
        each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
    ) -> Result<(), RuleError> {
        let state = GameRef::ref_cast(view.state);
        let ScriptRules {
            sandbox,
            dice,
            views,
            trace,
            paths,
            ..
        } = self;
        sandbox
            .session(step_of(view), |session, scope| {
                let game = views.open(scope, state)?;
                let mut asker = SessionAsker {
                    session,
                    game,
                    view,
                    dice,
                    paths,
                    trace: trace.as_mut(),
                };
                Ok(each(&mut asker))
            })
            .map_err(|e| rule_error("game view", e))?
    }

    fn ask_each_reading(
        &mut self,
        view: View<'_>,
        each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
    ) -> Result<Option<SharedReads>, RuleError> {
        if let Some(lent) = self.sandbox.lua().app_data_ref::<Lent>() {
            lent.reading.start();
        }
        let asked = self.ask_each(view, each);
        let reads = self
            .sandbox
            .lua()
            .app_data_ref::<Lent>()
            .and_then(|lent| lent.reading.finish());
        asked.map(|()| reads)
    }

    fn notify(
        &mut self,
        view: View<'_>,
        dice: &mut Dice,
        event: Event<'_>,
    ) -> Result<Vec<CoreCommand>, RuleError> {
        let hook = event.hook();
        let step = step_of(view);
        if !self.sandbox.calls(hook, step) {
            // No handler to call at this step: no dice lent, no scope, no view.
            return Ok(Vec::new());
        }
        let state = GameRef::ref_cast(view.state);
        let module = view.module;
        self.dice.borrow_mut().dice = Some(dice.clone());
        let views = &mut self.views;
        let paths = &mut self.paths;
        let result = self.sandbox.event_with(hook, step, |lua, scope| {
            let game = views.open(scope, state)?;
            let unit = |u: UnitId| lua_index(u.index());
            match event {
                Event::UnitMoved { unit: u, path } => {
                    (game, unit(u), paths.table(lua, path)?).into_lua_multi(lua)
                }
                Event::UnitRelocated { unit: u, from, to } => (
                    game,
                    unit(u),
                    lua_index(from.index()),
                    lua_index(to.index()),
                )
                    .into_lua_multi(lua),
                Event::BattleStarted { at } | Event::BoxSelected { at } => {
                    (game, lua_index(at.index())).into_lua_multi(lua)
                }
                Event::OfferTaken { offer } => {
                    (game, offer_table(lua, module, offer)?).into_lua_multi(lua)
                }
                Event::HitAbsorbed { shooter, target } => {
                    (game, unit(shooter), unit(target)).into_lua_multi(lua)
                }
                Event::UnitReinforced { unit: u, from } => {
                    (game, unit(u), lua_index(from.index())).into_lua_multi(lua)
                }
                Event::BattleEnded { at, winner } => (
                    game,
                    lua_index(at.index()),
                    winner.map(|w| side_name(module, w)),
                )
                    .into_lua_multi(lua),
                Event::PieceActivated { unit: u, cost } => {
                    (game, unit(u), cost).into_lua_multi(lua)
                }
                Event::UnitUpgraded { unit: u }
                | Event::UnitPlaced { unit: u }
                | Event::UnitEliminated { unit: u } => (game, unit(u)).into_lua_multi(lua),
                Event::StepStarted { step } | Event::StepEnded { step } => {
                    (game, paths.step_id(lua, step)?).into_lua_multi(lua)
                }
                _ => game.into_lua_multi(lua),
            }
        });
        let lent = self.dice.borrow_mut().dice.take();
        if let Some(d) = lent {
            *dice = d;
        }
        let commands = result.map_err(|e| rule_error(hook, e))?;
        self.dice_error(hook)?;
        let mine: Vec<bool> = match (&self.logged, &self.logged_from) {
            (Some(_), Some(from)) => commands
                .iter()
                .map(|c| c.handler.starts_with(from.as_str()))
                .collect(),
            _ => Vec::new(),
        };
        let commands: Vec<CoreCommand> = commands
            .into_iter()
            .map(|c| command(module, view.state, hook, c))
            .collect::<Result<_, _>>()?;
        if let Some(logged) = self.logged.as_mut() {
            for (i, c) in commands.iter().enumerate() {
                if let CoreCommand::Log { text } = c
                    && mine.get(i).copied().unwrap_or(true)
                {
                    logged.push(text.clone());
                }
            }
        }
        Ok(commands)
    }
}

/// The arguments of question `q`'s hook, after the `game` view `game` (owned, or lent
/// by a session). They are pushed straight onto the stack when the hook has one handler
/// ([`QArgs`]): made a `MultiValue` first, the view and a path table each took a
/// reference of their own, made and dropped again, for every question.
fn question_args<'a, G: IntoLua>(
    lua: &Lua,
    module: &Module,
    paths: &'a mut PathTables,
    game: G,
    q: &Question<'_>,
) -> mlua::Result<QArgs<'a, G>> {
    let unit = |u: UnitId| Arg::Int(lua_index(u.index()));
    let boxn = |b: BoxId| Arg::Int(lua_index(b.index()));
    Ok(match *q {
        Question::MayEnter { unit: u, path }
        | Question::MayStop { unit: u, path }
        | Question::IsJump { unit: u, path }
        | Question::MoveCost { unit: u, path } => {
            QArgs::Two(game, unit(u), Arg::Table(paths.table_ref(lua, path)?))
        }
        Question::MoveLimit { unit: u }
        | Question::ActivationCost { unit: u }
        | Question::MovePoints { unit: u }
        | Question::MayReinforce { unit: u }
        | Question::MayUpgrade { unit: u } => QArgs::One(game, unit(u)),
        Question::PickUpCost {
            unit: u,
            carrier,
            paid,
        } => QArgs::Three(game, unit(u), unit(carrier), Arg::Int(paid)),
        Question::MayWithdraw => QArgs::None(game),
        Question::Yields { side } => QArgs::One(game, Arg::Value(paths.side(lua, module, side)?)),
        Question::RetreatTo {
            side,
            to,
            withdrawal,
        } => QArgs::Three(
            game,
            Arg::Value(paths.side(lua, module, side)?),
            boxn(to),
            Arg::Bool(withdrawal),
        ),
        Question::MayTarget { shooter, target }
        | Question::ShotModifier { shooter, target }
        | Question::AbsorbsHit { shooter, target } => QArgs::Two(game, unit(shooter), unit(target)),
        Question::MayPlace { kind, at } => QArgs::Two(
            game,
            Arg::Value(paths.unit_type(lua, module, kind)?),
            boxn(at),
        ),
        Question::OfferWorth { offer } => {
            QArgs::One(game, Arg::Value(offer_table(lua, module, offer)?))
        }
        Question::BoxWorth { side, at } | Question::DugIn { side, at } => {
            QArgs::Two(game, Arg::Value(paths.side(lua, module, side)?), boxn(at))
        }
        // Strings are made here, as before, so that a memory error is the argument's.
        Question::Commands { seat, unit: u } => QArgs::Two(
            game,
            Arg::Value(module.seat(seat).id.as_str().into_lua(lua)?),
            unit(u),
        ),
        Question::Sees {
            seat,
            unit: u,
            seen,
        } => QArgs::Three(
            game,
            Arg::Value(module.seat(seat).id.as_str().into_lua(lua)?),
            unit(u),
            Arg::Int(seen as i64),
        ),
    })
}

/// One argument of a question after the `game` view (see [`question_args`]).
enum Arg<'a> {
    Int(i64),
    Bool(bool),
    /// A kept path table, lent.
    Table(&'a Table),
    Value(Value),
}

impl IntoLua for Arg<'_> {
    fn into_lua(self, lua: &Lua) -> mlua::Result<Value> {
        match self {
            Arg::Int(i) => i.into_lua(lua),
            Arg::Bool(b) => b.into_lua(lua),
            Arg::Table(t) => t.into_lua(lua),
            Arg::Value(v) => Ok(v),
        }
    }

    /// Each value's own `push_into_stack`: a lent table is pushed with no reference of
    /// its own.
    unsafe fn push_into_stack(self, lua: &mlua::state::RawLua) -> mlua::Result<()> {
        // SAFETY: each value's own `push_into_stack`, under this one's contract (the
        // caller made room on the stack).
        unsafe {
            match self {
                Arg::Int(i) => i.push_into_stack(lua),
                Arg::Bool(b) => b.push_into_stack(lua),
                Arg::Table(t) => t.push_into_stack(lua),
                Arg::Value(v) => v.push_into_stack(lua),
            }
        }
    }
}

/// A question's arguments: the `game` view and up to three more, pushed as the tuple
/// of them would be.
enum QArgs<'a, G> {
    None(G),
    One(G, Arg<'a>),
    Two(G, Arg<'a>, Arg<'a>),
    Three(G, Arg<'a>, Arg<'a>, Arg<'a>),
}

impl<G: IntoLua> IntoLuaMulti for QArgs<'_, G> {
    fn into_lua_multi(self, lua: &Lua) -> mlua::Result<MultiValue> {
        match self {
            QArgs::None(g) => g.into_lua_multi(lua),
            QArgs::One(g, a) => (g, a).into_lua_multi(lua),
            QArgs::Two(g, a, b) => (g, a, b).into_lua_multi(lua),
            QArgs::Three(g, a, b, c) => (g, a, b, c).into_lua_multi(lua),
        }
    }

    /// The tuple's own `push_into_stack_multi`, with no `MultiValue` made.
    unsafe fn push_into_stack_multi(
        self,
        lua: &mlua::state::RawLua,
    ) -> mlua::Result<std::ffi::c_int> {
        // SAFETY: the tuple's own `push_into_stack_multi`, which makes room for its
        // values, under this one's contract.
        unsafe {
            match self {
                QArgs::None(g) => (g,).push_into_stack_multi(lua),
                QArgs::One(g, a) => (g, a).push_into_stack_multi(lua),
                QArgs::Two(g, a, b) => (g, a, b).push_into_stack_multi(lua),
                QArgs::Three(g, a, b, c) => (g, a, b, c).push_into_stack_multi(lua),
            }
        }
    }
}

/// A question's answer for the engine, once its handlers ran: a die rolled in a
/// question fails it, and a trace keeps the handlers' answers.
fn answered(
    dice: &RefCell<DiceSlot>,
    trace: Option<&mut Vec<RuleTrace>>,
    traced: impl FnOnce() -> Vec<crate::sandbox::Traced>,
    view: View<'_>,
    q: &Question<'_>,
    answer: Answer,
) -> Result<CoreAnswer, RuleError> {
    let hook = q.hook();
    if let Some(message) = dice.borrow_mut().error.take() {
        return Err(RuleError {
            hook: hook.into(),
            message,
        });
    }
    if let Some(trace) = trace {
        trace.push(RuleTrace {
            hook,
            question: question_text(view.module, view.state, q),
            answers: traced(),
        });
    }
    Ok(match answer {
        Answer::Bool(b) => CoreAnswer::Bool(b),
        Answer::Int(i) => CoreAnswer::Int(i),
        Answer::None => CoreAnswer::None,
    })
}

/// Questions asked in one session ([`Rules::ask_each`]), sharing one `game` view.
struct SessionAsker<'a, 's> {
    session: &'a Session<'a>,
    game: AnyUserData,
    view: View<'s>,
    dice: &'a RefCell<DiceSlot>,
    paths: &'a mut PathTables,
    trace: Option<&'a mut Vec<RuleTrace>>,
}

impl Asker for SessionAsker<'_, '_> {
    fn ask(&mut self, q: Question<'_>) -> Result<CoreAnswer, RuleError> {
        let hook = q.hook();
        let session = self.session;
        let (module, paths, game) = (self.view.module, &mut *self.paths, &self.game);
        let answer = session
            .question(hook, |lua| question_args(lua, module, paths, game, &q))
            .map_err(|e| rule_error(hook, e))?;
        answered(
            self.dice,
            self.trace.as_deref_mut(),
            || session.take_trace(),
            self.view,
            &q,
            answer,
        )
    }
}

/// A question in words, for traces: the hook and what it is about.
fn question_text(module: &Module, state: &GameState, q: &Question<'_>) -> String {
    use muster_core::game::describe;
    let unit = |u: UnitId| describe::unit(module, state, u);
    let about = match q {
        Question::MayEnter { unit: u, path }
        | Question::MayStop { unit: u, path }
        | Question::IsJump { unit: u, path } => {
            format!("{}: {}", unit(*u), describe::path(module, path))
        }
        Question::MoveLimit { unit: u }
        | Question::ActivationCost { unit: u }
        | Question::MovePoints { unit: u }
        | Question::MayReinforce { unit: u }
        | Question::MayUpgrade { unit: u } => unit(*u),
        Question::MoveCost { unit: u, path } => {
            format!("{}: {}", unit(*u), describe::path(module, path))
        }
        Question::PickUpCost {
            unit: u, carrier, ..
        } => {
            format!("{} by {}", unit(*u), unit(*carrier))
        }
        Question::MayTarget { shooter, target }
        | Question::ShotModifier { shooter, target }
        | Question::AbsorbsHit { shooter, target } => {
            format!("{} at {}", unit(*shooter), unit(*target))
        }
        Question::RetreatTo { side, to, .. } => {
            format!(
                "{} to {}",
                module.side(*side).name,
                describe::place(module, *to)
            )
        }
        Question::MayPlace { kind, at } => format!(
            "{} in {}",
            module.units.get(*kind).name,
            describe::place(module, *at)
        ),
        Question::BoxWorth { side, at } | Question::DugIn { side, at } => {
            format!(
                "{} for {}",
                describe::place(module, *at),
                module.side(*side).name
            )
        }
        Question::OfferWorth { offer } => offer.label.clone(),
        Question::MayWithdraw => String::new(),
        Question::Yields { side } => module.side(*side).name.clone(),
        Question::Commands { seat, unit: u } | Question::Sees { seat, unit: u, .. } => {
            format!("{} / {}", module.seat(*seat).name, unit(*u))
        }
    };
    format!("{} {about}", q.hook())
}

pub(super) fn side_name(module: &Module, side: SideId) -> &str {
    module
        .sides
        .get(side.index())
        .map_or("?", |s| s.id.as_str())
}

/// A "first reason" hook's answer (`accepts_entry`, `end_step_refusal`, `composition`):
/// a string is the reason it refuses; `nil_means` says what nil would have meant.
fn reason(v: &Value, nil_means: &str) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.to_string_lossy()),
        other => Err(format!(
            "returned {}; this hook returns nil ({nil_means}) or a reason (a string)",
            crate::value::describe(other)
        )),
    }
}
