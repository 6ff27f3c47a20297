//! The engine's [`Rules`] answered by a module's Luau scripts.
//!
//! Scripts see the game through a `game` object (the first argument of every hook):
//! read-only methods over the state, lent for the length of one call. Unit, box and line
//! numbers are 1-based (`lua_index`); sides, unit types, classes and options are their
//! string ids. `math.random` draws from the game's own dice, and only in events: a
//! question is pure, so rolling in one is an error.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use mlua::{
    AnyUserData, FromLuaMulti, Function, IntoLua, IntoLuaMulti, Lua, MultiValue, Table,
    UserDataFields, UserDataMethods, Value, ffi,
};
use muster_core::Module;
use muster_core::game::rules::{Answer as CoreAnswer, EVENTS, Progress, QUESTIONS};
use muster_core::game::{
    Asker, Command as CoreCommand, Dice, Event, GameState, Offer, Path, Place, Question, RuleError,
    Rules, SharedReads, Step, View, Wanted,
};
use muster_core::ids::{BoxId, ClassId, SideId, UnitId, UnitTypeId};
use ref_cast::RefCast;
use rustc_hash::FxHashMap;

use muster_core::suggest::did_you_mean;

use crate::args::Call;
use crate::defs::{box_id, lua_index, rust_index};
use crate::reading::{Ask, Lent, Said, side_index, spoil};
use crate::stdlib::refuse_unknown;
use crate::{
    Answer, HookSpec, Limits, Rng, Sandbox, ScriptCommand, ScriptError, ScriptValue, Session,
};

/// A module's rules, loaded from its scripts.
pub struct ScriptRules {
    sandbox: Sandbox,
    dice: Rc<RefCell<DiceSlot>>,
    /// Makes each `game` view (see [`Views`]).
    views: Views,
    /// While `keep_logged` is on, the text of every `log` command the rules gave the
    /// engine since `take_logged`.
    logged: Option<Vec<String>>,
    /// While tracing (`set_trace`), each question asked and its handlers' answers.
    trace: Option<Vec<RuleTrace>>,
    paths: PathTables,
    /// What the game kept while a look ahead runs ([`Rules::look_ahead`]).
    kept: Option<Kept>,
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
                slot.error =
                    Some("math.random is for events: a question must not roll dice".into());
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
            trace: None,
            paths: PathTables::default(),
            kept: None,
        })
    }

    /// Starts or stops keeping the lines the rules log (`log` commands), so that a
    /// player can tell them from the engine's (`muster play --rules-log`, the app's log
    /// colours).
    pub fn keep_logged(&mut self, on: bool) {
        self.logged = on.then(Vec::new);
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
        let (module, game_state) = (view.module, view.state);
        let offers = self
            .sandbox
            .list_with(
                HOOK,
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
                    (game, step, wanted).into_lua_multi(lua)
                },
                |v| match v {
                    Value::Table(t) => offer(module, game_state, t),
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

fn rule_error(hook: &str, e: ScriptError) -> RuleError {
    RuleError {
        hook: hook.into(),
        message: e.to_string(),
    }
}

/// The state as Lua sees it: a read-only view lent for one call.
#[derive(RefCast)]
#[repr(transparent)]
struct GameRef(GameState);

/// The path tables lent to hooks (`{ from = box, steps = { { line, to }, ... } }`),
/// kept between calls: a path search asks up to three questions of each path, the
/// same paths come up again in every search from a box, and paths share their steps,
/// so building them anew was a third of a computer player's time. They are read-only,
/// so no handler changes what the next one sees. And the names of sides and unit types
/// questions are asked about, made Lua strings once (each made from Rust is a protected
/// call: 5% of a computer player's time went to `may_place`'s and `dug_in`'s).
#[derive(Default)]
struct PathTables {
    /// One table per step (a line and the box it leads to), built on first use.
    steps: FxHashMap<Step, Table>,
    /// Paths met so far, up to [`PathTables::KEPT`] (then forgotten all at once).
    paths: FxHashMap<Path, Table>,
    /// The field names, made Lua strings once.
    keys: Option<[mlua::LuaString; 4]>,
    /// Side ids, then unit type ids, by index; made on first use.
    names: Option<Names>,
}

/// Side ids and unit type ids, by index.
type Names = (Vec<mlua::LuaString>, Vec<mlua::LuaString>);

impl PathTables {
    /// The names of `module`'s sides and unit types, as Lua strings.
    fn names(&mut self, lua: &Lua, module: &Module) -> mlua::Result<&Names> {
        if self.names.is_none() {
            let sides = module.sides.iter().map(|s| lua.create_string(&s.id));
            let types = module.units.types.iter().map(|t| lua.create_string(&t.id));
            self.names = Some((
                sides.collect::<mlua::Result<_>>()?,
                types.collect::<mlua::Result<_>>()?,
            ));
        }
        Ok(self.names.get_or_insert_default())
    }

    /// `side`'s id as a Lua string (`"?"` for one the module lacks, as [`side_name`]).
    fn side(&mut self, lua: &Lua, module: &Module, side: SideId) -> mlua::Result<Value> {
        match self.names(lua, module)?.0.get(side.index()) {
            Some(s) => Ok(Value::String(s.clone())),
            None => side_name(module, side).into_lua(lua),
        }
    }

    /// A unit type's id as a Lua string.
    fn unit_type(&mut self, lua: &Lua, module: &Module, kind: UnitTypeId) -> mlua::Result<Value> {
        match self.names(lua, module)?.1.get(kind.index()) {
            Some(s) => Ok(Value::String(s.clone())),
            None => module.units.get(kind).id.as_str().into_lua(lua),
        }
    }

    /// Enough for every path of three lines or fewer from the boxes a player searches
    /// in a turn, at a few hundred bytes of the scripts' heap each.
    const KEPT: usize = 8192;

    fn table(&mut self, lua: &Lua, path: &Path) -> mlua::Result<Value> {
        if let Some(t) = self.paths.get(path) {
            return Ok(Value::Table(t.clone()));
        }
        let [from, steps_key, line, to] = match &self.keys {
            Some(k) => k.clone(),
            None => {
                let k = [
                    lua.create_string("from")?,
                    lua.create_string("steps")?,
                    lua.create_string("line")?,
                    lua.create_string("to")?,
                ];
                self.keys = Some(k.clone());
                k
            }
        };
        let steps = lua.create_table_with_capacity(path.steps.len(), 0)?;
        for (i, s) in path.steps.iter().enumerate() {
            let step = match self.steps.get(s) {
                Some(t) => t.clone(),
                None => {
                    let t = lua.create_table_with_capacity(0, 2)?;
                    t.raw_set(&line, lua_index(s.line.index()))?;
                    t.raw_set(&to, lua_index(s.to.index()))?;
                    t.set_readonly(true);
                    self.steps.insert(*s, t.clone());
                    t
                }
            };
            steps.raw_set(i + 1, step)?;
        }
        steps.set_readonly(true);
        let t = lua.create_table_with_capacity(0, 2)?;
        t.raw_set(&from, lua_index(path.from.index()))?;
        t.raw_set(&steps_key, steps)?;
        t.set_readonly(true);
        if self.paths.len() >= Self::KEPT {
            self.paths.clear();
        }
        self.paths.insert(path.clone(), t.clone());
        Ok(Value::Table(t))
    }
}

impl Rules for ScriptRules {
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
        self.list_offers(view, step, None)
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

    fn ask(&mut self, view: View<'_>, q: Question<'_>) -> Result<CoreAnswer, RuleError> {
        let hook = q.hook();
        let state = GameRef::ref_cast(view.state);
        let module = view.module;
        let views = &mut self.views;
        let paths = &mut self.paths;
        let answer = self
            .sandbox
            .question_with(hook, |lua, scope| {
                let game = views.open(scope, state)?;
                question_args(lua, module, paths, game, &q)
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
            .session(|session, scope| {
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
        let state = GameRef::ref_cast(view.state);
        let module = view.module;
        self.dice.borrow_mut().dice = Some(dice.clone());
        let views = &mut self.views;
        let paths = &mut self.paths;
        let result = self.sandbox.event_with(hook, |lua, scope| {
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
                Event::UnitUpgraded { unit: u }
                | Event::UnitPlaced { unit: u }
                | Event::UnitEliminated { unit: u } => (game, unit(u)).into_lua_multi(lua),
                Event::StepStarted { step } | Event::StepEnded { step } => {
                    (game, step).into_lua_multi(lua)
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
        let commands: Vec<CoreCommand> = commands
            .into_iter()
            .map(|c| command(module, view.state, hook, c))
            .collect::<Result<_, _>>()?;
        if let Some(logged) = self.logged.as_mut() {
            for c in &commands {
                if let CoreCommand::Log { text } = c {
                    logged.push(text.clone());
                }
            }
        }
        Ok(commands)
    }
}

/// The arguments of question `q`'s hook, after the `game` view.
fn question_args(
    lua: &Lua,
    module: &Module,
    paths: &mut PathTables,
    game: AnyUserData,
    q: &Question<'_>,
) -> mlua::Result<MultiValue> {
    let unit = |u: UnitId| lua_index(u.index());
    let boxn = |b: BoxId| lua_index(b.index());
    match *q {
        Question::MayEnter { unit: u, path }
        | Question::MayStop { unit: u, path }
        | Question::IsJump { unit: u, path } => {
            (game, unit(u), paths.table(lua, path)?).into_lua_multi(lua)
        }
        Question::MoveLimit { unit: u }
        | Question::MayReinforce { unit: u }
        | Question::MayUpgrade { unit: u } => (game, unit(u)).into_lua_multi(lua),
        Question::MayWithdraw => game.into_lua_multi(lua),
        Question::RetreatTo {
            side,
            to,
            withdrawal,
        } => (game, paths.side(lua, module, side)?, boxn(to), withdrawal).into_lua_multi(lua),
        Question::MayTarget { shooter, target }
        | Question::ShotModifier { shooter, target }
        | Question::AbsorbsHit { shooter, target } => {
            (game, unit(shooter), unit(target)).into_lua_multi(lua)
        }
        Question::MayPlace { kind, at } => {
            (game, paths.unit_type(lua, module, kind)?, boxn(at)).into_lua_multi(lua)
        }
        Question::OfferWorth { offer } => {
            (game, offer_table(lua, module, offer)?).into_lua_multi(lua)
        }
        Question::BoxWorth { side, at } | Question::DugIn { side, at } => {
            (game, paths.side(lua, module, side)?, boxn(at)).into_lua_multi(lua)
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
            .question(hook, |lua| {
                question_args(lua, module, paths, game.clone(), &q)
            })
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
        | Question::MayReinforce { unit: u }
        | Question::MayUpgrade { unit: u } => unit(*u),
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
    };
    format!("{} {about}", q.hook())
}

/// The table an `offer_taken` handler gets: `{ id, label, unit?, box? }`.
fn offer_table(lua: &Lua, module: &Module, offer: &Offer) -> mlua::Result<Value> {
    let t = lua.create_table_with_capacity(0, 4)?;
    t.raw_set("id", offer.id.as_str())?;
    t.raw_set("label", offer.label.as_str())?;
    if let Some(u) = offer.unit {
        t.raw_set("unit", lua_index(u.index()))?;
    }
    if let Some(b) = offer.at {
        t.raw_set("box", lua_index(b.index()))?;
    }
    let cost = lua.create_table()?;
    for &(r, n) in &offer.cost {
        cost.raw_set(module.resource(r).id.as_str(), n)?;
    }
    t.raw_set("cost", cost)?;
    t.into_lua(lua)
}

/// An offer from a script's table `{ id, label, unit?, box?, cost? }`, checked, read
/// straight from Lua (offers are listed at every decision, so no copy is made first).
/// One item of `victory_progress`: `{ side, goal, have, need }`.
fn progress(module: &Module, t: &Table) -> Result<Progress, String> {
    let text = |key: &str| match t.raw_get::<Value>(key) {
        Ok(Value::String(s)) => s
            .to_str()
            .map(|s| s.to_string())
            .map_err(|_| format!("`{key}` is not UTF-8")),
        _ => Err(format!("`{key}` must be a string")),
    };
    let number = |key: &str| match t.raw_get::<Value>(key) {
        Ok(Value::Integer(n)) => Ok(n as f64),
        Ok(Value::Number(n)) if n.is_finite() => Ok(n),
        _ => Err(format!("`{key}` must be a number")),
    };
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair.map_err(|e| e.to_string())?;
        let known = matches!(&k, Value::String(s) if matches!(s.as_bytes().as_ref(), b"side" | b"goal" | b"have" | b"need"));
        if !known {
            return Err(format!(
                "unknown field {}: an item is {{ side, goal, have, need }}",
                crate::value::describe(&k)
            ));
        }
    }
    let side_id = text("side")?;
    let side = module.find_side(&side_id).ok_or_else(|| {
        format!(
            "no side '{side_id}'{}",
            did_you_mean(&side_id, module.sides.iter().map(|s| s.id.as_str()))
                .map_or_else(String::new, |h| format!("; {h}"))
        )
    })?;
    Ok(Progress {
        side,
        goal: text("goal")?,
        have: number("have")?,
        need: number("need")?,
    })
}

fn offer(module: &Module, state: &GameState, t: &Table) -> Result<Offer, String> {
    let id = match t.raw_get::<Value>("id") {
        Ok(Value::String(s)) if !s.as_bytes().is_empty() => s
            .to_str()
            .map(|s| s.to_string())
            .map_err(|_| "an offer's `id` is not UTF-8".to_string())?,
        _ => return Err("an offer needs an `id` string".into()),
    };
    let bad = |m: String| format!("offer '{id}': {m}");
    let mut label = None;
    let mut unit = None;
    let mut at = None;
    let mut cost = Vec::new();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| bad(e.to_string()))?;
        let Value::String(key) = &k else {
            return Err(bad(
                "fields are named: { id = ..., label = ..., ... }".into()
            ));
        };
        match key.as_bytes().as_ref() {
            b"id" => {}
            b"label" => match v {
                Value::String(s) => {
                    label = Some(
                        s.to_str()
                            .map_err(|_| bad("label is not UTF-8".into()))?
                            .to_string(),
                    )
                }
                Value::Nil => {}
                _ => return Err(bad("`label` must be a string".into())),
            },
            b"unit" => match v {
                Value::Integer(n) => {
                    unit = Some(
                        rust_index(n)
                            .and_then(UnitId::from_index)
                            .filter(|u| u.index() < state.units.len())
                            .ok_or_else(|| bad(format!("no unit {n}")))?,
                    )
                }
                Value::Nil => {}
                _ => return Err(bad("`unit` must be a unit number".into())),
            },
            b"box" => match v {
                Value::Integer(n) => {
                    at = Some(
                        box_id(n)
                            .filter(|b| b.index() < module.board.boxes.len())
                            .ok_or_else(|| bad(format!("no box {n}")))?,
                    )
                }
                Value::Nil => {}
                _ => return Err(bad("`box` must be a box number".into())),
            },
            b"cost" => match v {
                Value::Table(c) => {
                    for pair in c.pairs::<Value, Value>() {
                        let (name, n) = pair.map_err(|e| bad(e.to_string()))?;
                        let name = match &name {
                            Value::String(s) => s.to_string_lossy(),
                            _ => {
                                return Err(bad(
                                    "`cost` must be a table like { marches = 1 }".into()
                                ));
                            }
                        };
                        let r = module.find_resource(&name).ok_or_else(|| {
                            let hint = module
                                .resource_hint(&name)
                                .unwrap_or_else(|| "the module declares no such <resource>".into());
                            bad(format!("no resource '{name}'; {hint}"))
                        })?;
                        match n {
                            Value::Integer(n) if n >= 0 => cost.push((r, n)),
                            other => {
                                return Err(bad(format!(
                                    "the cost in '{name}' must be a whole number 0 or more, not {}",
                                    crate::value::describe(&other)
                                )));
                            }
                        }
                    }
                }
                Value::Nil => {}
                _ => return Err(bad("`cost` must be a table like { marches = 1 }".into())),
            },
            _ => {
                let extra = key.to_string_lossy();
                let hint = muster_core::suggest::did_you_mean(
                    &extra,
                    ["id", "label", "unit", "box", "cost"],
                )
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
                return Err(bad(format!("unknown field '{extra}'{hint}")));
            }
        }
    }
    // Pairs come in no set order: costs are kept in resource order, so an offer is the
    // same whatever the table's layout.
    cost.sort_unstable();
    Ok(Offer {
        label: label.unwrap_or_else(|| id.clone()),
        id,
        unit,
        at,
        cost,
    })
}

fn side_name(module: &Module, side: SideId) -> &str {
    module
        .sides
        .get(side.index())
        .map_or("?", |s| s.id.as_str())
}

/// A command field's value as the script wrote it, for messages.
fn show_field(v: &ScriptValue) -> String {
    match v {
        ScriptValue::Nil => "nil".to_string(),
        ScriptValue::Bool(b) => b.to_string(),
        ScriptValue::Int(i) => i.to_string(),
        ScriptValue::Float(x) => x.to_string(),
        ScriptValue::Str(s) => {
            let short: String = s.chars().take(40).collect();
            let more = if short.len() < s.len() { "..." } else { "" };
            format!("\"{short}{more}\"")
        }
        ScriptValue::List(_) | ScriptValue::Map(_) => "{...}".to_string(),
    }
}

/// `got "Washington"`, or for a missing field `got nothing`, with the field the script
/// may have meant it as (`{ kind = "set_control", bx = 3 }`: is 'bx' a misspelling?).
fn got(c: &ScriptCommand, field: &str) -> String {
    match c.get(field) {
        Some(v) => format!("got {}", show_field(v)),
        None => match muster_core::suggest::closest(field, c.fields.keys().map(String::as_str)) {
            Some(near) => format!("got nothing; is '{near}' a misspelling of '{field}'?"),
            None => "got nothing".to_string(),
        },
    }
}

/// Turns a script's command table into an engine command, checking every field. A
/// refusal names the handler that returned it (`file:line` where it is defined), the
/// command, the field and the value given.
fn command(
    module: &Module,
    state: &GameState,
    hook: &str,
    c: ScriptCommand,
) -> Result<CoreCommand, RuleError> {
    let fail = |message: String| RuleError {
        hook: hook.into(),
        message: format!("handler at {}: {message}", c.handler),
    };
    let bad = |message: String| fail(format!("command '{}': {message}", c.kind));
    let int = |field: &str| {
        c.get(field).and_then(ScriptValue::as_int).ok_or_else(|| {
            bad(format!(
                "needs a whole number '{field}', {}",
                got(&c, field)
            ))
        })
    };
    let text = |field: &str| {
        c.get(field)
            .and_then(ScriptValue::as_str)
            .map(str::to_string)
            .ok_or_else(|| bad(format!("needs a string '{field}', {}", got(&c, field))))
    };
    let side = |field: &str| -> Result<Option<SideId>, RuleError> {
        match c.get(field) {
            None | Some(ScriptValue::Nil) => Ok(None),
            Some(v) => v
                .as_str()
                .and_then(|id| module.find_side(id))
                .map(Some)
                .ok_or_else(|| {
                    let ids: Vec<&str> = module.sides.iter().map(|s| s.id.as_str()).collect();
                    let hint = v
                        .as_str()
                        .and_then(|id| module.side_hint(id))
                        .map(|h| format!("; {h}"))
                        .unwrap_or_default();
                    bad(format!(
                        "'{field}' must be a side id ({}) or nil, {}{hint}",
                        ids.join(", "),
                        got(&c, field)
                    ))
                }),
        }
    };
    let unit = |field: &str| {
        let n = int(field)?;
        let count = state.units.len();
        rust_index(n)
            .and_then(UnitId::from_index)
            .filter(|u| u.index() < count)
            .ok_or_else(|| {
                bad(format!(
                    "'{field}' must be a unit number (1-{count}), got {n}"
                ))
            })
    };
    let boxn = |field: &str| {
        let n = int(field)?;
        let count = module.board.boxes.len();
        box_id(n).filter(|b| b.index() < count).ok_or_else(|| {
            bad(format!(
                "'{field}' must be a box number (1-{count}), got {n}"
            ))
        })
    };
    let unit_type = |field: &str| {
        let id = text(field)?;
        module.units.find(&id).ok_or_else(|| {
            let hint = module
                .units
                .hint(&id)
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            bad(format!("no unit type '{id}'{hint}"))
        })
    };
    let place = |field: &str| match text(field)?.as_str() {
        "pool" => Ok(Place::Pool),
        "stock" => Ok(Place::Stock),
        "set_aside" => Ok(Place::SetAside),
        other => Err(bad(format!(
            "'{field}' must be pool, stock or set_aside, not '{other}'"
        ))),
    };
    let boolean = |field: &str, default: bool| match c.get(field) {
        None | Some(ScriptValue::Nil) => Ok(default),
        Some(v) => v.as_bool().ok_or_else(|| {
            bad(format!(
                "'{field}' must be true or false, {}",
                got(&c, field)
            ))
        }),
    };
    Ok(match c.kind.as_str() {
        "set_resource" | "add_resource" => {
            let id = text("resource")?;
            let resource = module.find_resource(&id).ok_or_else(|| {
                let hint = module
                    .resource_hint(&id)
                    .unwrap_or_else(|| "the module declares no such <resource>".into());
                bad(format!("no resource '{id}'; {hint}"))
            })?;
            // The side defaults to the one whose turn it is.
            let side = side("side")?.unwrap_or_else(|| state.active_side(module));
            if c.kind == "set_resource" {
                CoreCommand::SetResource {
                    side,
                    resource,
                    value: int("value")?,
                }
            } else {
                CoreCommand::AddResource {
                    side,
                    resource,
                    amount: int("amount")?,
                }
            }
        }
        "set_var" => CoreCommand::SetVar {
            name: text("name")?,
            value: int("value")?,
        },
        "set_control" => {
            let at = boxn("box")?;
            CoreCommand::SetControl {
                at,
                side: side("side")?,
                marker: boolean("marker", false)?,
            }
        }
        "transfer" => {
            let kind = unit_type("unit")?;
            let side = side("side")?.ok_or_else(|| bad("needs a side".into()))?;
            let count = int("count")?;
            CoreCommand::Transfer {
                side,
                kind,
                count: u16::try_from(count).map_err(|_| bad(format!("bad count {count}")))?,
                from: place("from")?,
                to: place("to")?,
            }
        }
        "set_flag" => {
            let name = text("flag")?;
            let flag = module.units.find_flag(&name).ok_or_else(|| {
                bad(format!(
                    "no flag '{name}'; {}",
                    module.units.flag_help(&name)
                ))
            })?;
            CoreCommand::SetFlag {
                unit: unit("unit")?,
                flag,
                on: boolean("on", true)?,
            }
        }
        "set_hits" => {
            let hits = int("hits")?;
            CoreCommand::SetHits {
                unit: unit("unit")?,
                hits: u8::try_from(hits).map_err(|_| bad(format!("bad hits {hits}")))?,
            }
        }
        "move_piece" => {
            let to = boxn("box")?;
            CoreCommand::MovePiece {
                unit: unit("unit")?,
                to,
            }
        }
        "use_piece" => {
            let moves = int("moves")?;
            CoreCommand::UsePiece {
                unit: unit("unit")?,
                moves: u8::try_from(moves).map_err(|_| bad(format!("bad moves {moves}")))?,
            }
        }
        "place_piece" => {
            let kind = unit_type("unit")?;
            let at = boxn("box")?;
            CoreCommand::PlacePiece {
                side: side("side")?.unwrap_or_else(|| state.active_side(module)),
                kind,
                at,
                from: match c.get("from") {
                    None | Some(ScriptValue::Nil) => Place::Pool,
                    _ => place("from")?,
                },
            }
        }
        "remove_piece" => {
            let unit = unit("unit")?;
            let to = match c.get("to") {
                None | Some(ScriptValue::Nil) => {
                    match module.units.get(state.units[unit.index()].kind).returns_to {
                        muster_core::format::ReturnsTo::Pool => Place::Pool,
                        muster_core::format::ReturnsTo::Stock => Place::Stock,
                    }
                }
                _ => place("to")?,
            };
            CoreCommand::RemovePiece { unit, to }
        }
        "set_attribute" => {
            let name = text("attribute")?;
            let attribute = module.units.find_attribute(&name).ok_or_else(|| {
                let hint = module
                    .units
                    .attribute_hint(&name)
                    .unwrap_or_else(|| "no unit type declares such an <attribute>".into());
                bad(format!("no attribute '{name}'; {hint}"))
            })?;
            CoreCommand::SetAttribute {
                unit: unit("unit")?,
                attribute,
                value: int("value")?,
            }
        }
        "add_markers" | "remove_markers" => {
            let name = text("marker")?;
            let marker = module.units.find_marker(&name).ok_or_else(|| {
                let hint = module
                    .units
                    .marker_hint(&name)
                    .unwrap_or_else(|| "the module declares no such <marker>".into());
                bad(format!("no marker '{name}'; {hint}"))
            })?;
            let at = boxn("box")?;
            let count = match c.get("count") {
                None | Some(ScriptValue::Nil) => 1,
                _ => int("count")?,
            };
            let count = i32::try_from(count).map_err(|_| bad(format!("bad count {count}")))?;
            CoreCommand::AddMarkers {
                at,
                marker,
                count: if c.kind == "remove_markers" {
                    -count
                } else {
                    count
                },
            }
        }
        "attach" => CoreCommand::Attach {
            unit: unit("unit")?,
            to: match c.get("to") {
                None | Some(ScriptValue::Nil) => None,
                _ => Some(unit("to")?),
            },
        },
        "set_last_turn" => {
            let label = text("turn")?;
            let turn = module
                .calendar
                .find(&label)
                .ok_or_else(|| bad(format!("no turn '{label}' on the track")))?;
            CoreCommand::SetLastTurn { turn }
        }
        "game_over" => CoreCommand::GameOver {
            winner: side("winner")?,
            reason: text("reason")?,
        },
        "log" => CoreCommand::Log {
            text: text("text")?,
        },
        other => {
            const KINDS: &[&str] = &[
                "set_resource",
                "add_resource",
                "set_var",
                "set_control",
                "transfer",
                "set_flag",
                "set_hits",
                "move_piece",
                "use_piece",
                "place_piece",
                "remove_piece",
                "set_attribute",
                "add_markers",
                "remove_markers",
                "attach",
                "set_last_turn",
                "game_over",
                "log",
            ];
            let hint = did_you_mean(other, KINDS.iter().copied())
                .unwrap_or_else(|| format!("commands are {}", KINDS.join(", ")));
            return Err(fail(format!("unknown command '{other}'; {hint}")));
        }
    })
}

fn module_of(lua: &Lua) -> mlua::Result<Rc<Module>> {
    lua.app_data_ref::<Lent>()
        .map(|lent| Rc::clone(&lent.module))
        .ok_or_else(|| mlua::Error::runtime("internal: no module lent to the scripts"))
}

fn on_board(state: &GameState, u: UnitId) -> Option<BoxId> {
    match state.unit(u).place {
        Place::Board(b) => Some(b),
        _ => None,
    }
}

fn ids(units: impl Iterator<Item = UnitId>) -> Vec<i64> {
    units.map(|u| lua_index(u.index())).collect()
}

/// The Luau side of the `game` view. A table or string made from Rust costs one protected
/// Lua call per allocation (the heap has a limit, and a memory error must not unwind
/// through Rust frames), ~2,000 instructions each; made by Luau itself it costs none. So
/// the methods that return tables or ids are wrapped: the Rust method returns plain
/// integers (`true` then the items of a list, or an index into one of the id lists below)
/// and the wrapper, which takes the method's place, builds the value. A long list comes
/// from Rust as a ready table. Errors are the Rust method's own, raised through the wrapper.
const WRAPPERS: &str = r##"
local sides, types, classes, qualities, ids = ...
local function list(first, ...)
	if first == true then
		return { ... }
	end
	return first
end
local function shot_list(first, ...)
	if first ~= true then
		return first
	end
	local flat = { ... }
	local shots = {}
	for i = 1, #flat, 2 do
		shots[(i + 1) // 2] = { shooter = flat[i], target = flat[i + 1] }
	end
	return shots
end
local wrapped = {
	units_at = list,
	units_on_board = list,
	pieces = list,
	ready_units = list,
	attached = list,
	battle_units = list,
	battle_entered_from = list,
	shots = shot_list,
}
-- Methods whose Rust answer is an index into one of the module's lists of ids (or nil).
local named = {
	unit_side = sides,
	controller = sides,
	active_side = sides,
	battle_attacker = sides,
	battle_defender = sides,
	battle_firing = sides,
	unit_type = types,
	unit_class = classes,
	unit_quality = qualities,
}
-- The id a named method's Rust answer stands for.
local function id_of(names, i)
	if i == nil then
		return nil
	end
	return names[i]
end
-- The plain getters: they answer a number, a string, a boolean or nil, and take this
-- many arguments. A view lives for one call or one session of questions, over a state
-- that does not change meanwhile, so each answer is kept for the view that gave it and
-- asked again it is given without crossing into Rust (a path search asks the same few
-- things of the same boxes and unit for every path: each crossing cost more than the
-- script's own work). Only the live view keeps answers: the engine puts each view it
-- makes in `live[1]` before any script sees it, so a view kept past its call is never
-- the live one and still fails. Lists are not kept (a script may change the table), nor
-- `var` (any name is one, so its answers would be unbounded).
local kept = {
	active_side = 0, first_turn = 0, turn_year = 0, turn_month = 0, turn_label = 0,
	last_turn_label = 0, step = 0, repetition = 0, scenario = 0, selected_box = 0,
	battle_box = 0, battle_round = 0, battle_attacker = 0, battle_defender = 0,
	battle_firing = 0, battle_by_relocation = 0,
	unit_side = 1, unit_type = 1, unit_class = 1, unit_quality = 1, unit_box = 1,
	unit_name = 1, unit_hits = 1, unit_place = 1, units_on_board_of = 1, controller = 1,
	marker = 1, option = 1, attached_to = 1, unit_moves = 1, moved = 1, relocated = 1,
	jumps = 1, fought = 1, placed_at = 1, entry_line = 1, entered_by_relocation = 1,
	unit_flag = 2, enemy_in = 2, tally = 2, resource = 2, attribute = 2, markers = 2,
	enemy_class_in = 3,
}
local live = { false }
-- The last live view that read a kept answer, and its number: an answer is kept with
-- the number of the view it is of, so a new view needs no tables cleared.
local owner, view = nil, 0
-- The table under `t[k]`, made on first use (room for every id: an id's answer is
-- then found in the table's array part).
local function under(t, k)
	local u = t[k]
	if u == nil then
		u = table.create(ids)
		t[k] = u
	end
	return u
end
-- A key is any argument but nil and NaN (which no table takes); a call with one of
-- them, or from a view not live, goes to Rust, which answers or fails as before.
-- `call` is the method as the script sees it; `raw` and `names` are its Rust method and
-- the ids its answer indexes (or nil), for the first asking in a live view: named there
-- without another function call (each call of a wrapper costs as much as a look-up).
local function keeping(arity, call, raw, names)
	if arity == 0 then
		local at, kept_answer = 0, nil
		return function(g)
			if g ~= live[1] then
				return call(g)
			end
			if g ~= owner then
				owner, view = g, view + 1
			end
			if at == view then
				return kept_answer
			end
			local v
			if names then
				v = raw(g)
				if v ~= nil then
					v = names[v]
				end
			else
				v = call(g)
			end
			at, kept_answer = view, v
			return v
		end
	elseif arity == 1 then
		local at, answer = table.create(ids), table.create(ids)
		return function(g, a)
			if g ~= live[1] or a == nil or a ~= a then
				return call(g, a)
			end
			if g ~= owner then
				owner, view = g, view + 1
			end
			if at[a] == view then
				return answer[a]
			end
			local v
			if names then
				v = raw(g, a)
				if v ~= nil then
					v = names[v]
				end
			else
				v = call(g, a)
			end
			at[a], answer[a] = view, v
			return v
		end
	elseif arity == 2 then
		local at, answer = {}, {}
		return function(g, a, b)
			if g ~= live[1] or a == nil or a ~= a or b == nil or b ~= b then
				return call(g, a, b)
			end
			if g ~= owner then
				owner, view = g, view + 1
			end
			local at_b = at[b]
			if at_b == nil then
				at_b = table.create(ids)
				at[b], answer[b] = at_b, table.create(ids)
			elseif at_b[a] == view then
				return answer[b][a]
			end
			local v = call(g, a, b)
			at_b[a], answer[b][a] = view, v
			return v
		end
	end
	local at, answer = {}, {}
	return function(g, a, b, c)
		if g ~= live[1] or a == nil or a ~= a or b == nil or b ~= b or c == nil or c ~= c then
			return call(g, a, b, c)
		end
		if g ~= owner then
			owner, view = g, view + 1
		end
		local at_bc, answer_bc = under(under(at, c), b), under(under(answer, c), b)
		if at_bc[a] == view then
			return answer_bc[a]
		end
		local v = call(g, a, b, c)
		at_bc[a], answer_bc[a] = view, v
		return v
	end
end
-- Puts the wrappers in `index`, keeping the Rust methods in `raws`. Running it again
-- (after a run cut short by the memory limit) gives the same result.
local function patch(index, raws)
	for _, names in { wrapped, named, kept } do
		for name in names do
			if raws[name] == nil then
				raws[name] = index[name]
			end
		end
	end
	for name, raw in raws do
		local make, names = wrapped[name], named[name]
		local call = raw
		if make then
			call = function(...)
				return make(raw(...))
			end
		elseif names then
			call = function(...)
				return id_of(names, raw(...))
			end
		end
		local arity = kept[name]
		index[name] = if arity then keeping(arity, call, raw, names) else call
	end
end
return patch, live
"##;

/// The `game` views: registers their type once (see [`game_type`]) and makes each.
struct Views {
    /// The Lua state the views are made in (for [`set_live`]).
    lua: Lua,
    /// Puts the Luau wrappers in place, on the first view made (see [`WRAPPERS`]).
    patch: Option<GamePatch>,
    /// The wrappers' `live` table: `[1]` is the view made last, the only one whose
    /// answers they keep.
    live: Table,
}

impl Views {
    /// A `game` view over `state` for the scope's calls, the one the wrappers keep
    /// answers for from now on.
    fn open<'s, 'env>(
        &mut self,
        scope: &'s mlua::Scope<'s, 'env>,
        state: &'env GameRef,
    ) -> mlua::Result<AnyUserData> {
        let game = scope.create_any_userdata_ref(state)?;
        finish_game_type(&mut self.patch)?;
        set_live(&self.lua, &self.live, &game)?;
        Ok(game)
    }
}

/// `live[1] = game`. `Table::raw_set` makes each store a protected call under a memory
/// limit (in case it allocates), and a view is opened for every question session and
/// event: those calls were 3% of a search's instructions. This store cannot allocate:
/// the wrappers made `live` as `{ false }`, so index 1 is in its array part, which a
/// store to an index already there never resizes.
fn set_live(lua: &Lua, live: &Table, game: &AnyUserData) -> mlua::Result<()> {
    lua.exec_raw_lua(|raw| {
        let state = raw.state();
        // SAFETY: two stack slots are made sure of before the two pushes (as mlua does
        // before its own), and the stack is left as found. `lua_rawseti` stores into the
        // array part without allocating, so no Lua error is raised outside a protected
        // call; the GC barrier it runs allocates nothing.
        unsafe {
            if ffi::lua_checkstack(state, 2) == 0 {
                return Err(mlua::Error::StackError);
            }
            let top = ffi::lua_gettop(state);
            let pushed = raw.push(live).and_then(|()| raw.push(game));
            if pushed.is_ok() {
                ffi::lua_rawseti(state, -2, 1);
            }
            ffi::lua_settop(state, top);
            pushed
        }
    })
}

/// What puts the `game` view's Luau wrappers in place: mlua builds the view's metatable
/// (adding the Rust methods to `index`) when the first view is made, so the patch runs
/// then ([`finish_game_type`]).
struct GamePatch {
    patch: Function,
    /// The view's methods table (its metatable's `__index`).
    index: Table,
    /// The Rust methods the wrappers call.
    raws: Table,
}

/// Words a rule author may reach for instead of the view's: the engine's own code calls a
/// unit's type its `kind`, so `game:unit_kind` is a likely guess that no edit distance
/// would match to `unit_type`.
const GAME_SYNONYMS: &[(&str, &str)] = &[("kind", "type"), ("owner", "controller")];

/// Registers the `game` view's type with the Lua state.
fn game_type(lua: &Lua, module: &Module) -> mlua::Result<Views> {
    let ids = |names: Vec<&str>| lua.create_sequence_from(names);
    let sides = ids(module.sides.iter().map(|s| s.id.as_str()).collect())?;
    // `side_name`'s answer for a side the module does not have.
    sides.raw_set(0, "?")?;
    let types = ids(module.units.types.iter().map(|t| t.id.as_str()).collect())?;
    let classes = ids(module.units.classes.iter().map(|c| c.id.as_str()).collect())?;
    let qualities = ids(module
        .units
        .qualities
        .iter()
        .map(|q| q.id.as_str())
        .collect())?;
    let (patch, live): (Function, Table) = lua.load(WRAPPERS).set_name("=game").call((
        sides,
        types,
        classes,
        qualities,
        2 * module.board.boxes.len(),
    ))?;
    let index = lua.create_table()?;
    // A misspelled method is an error with a suggestion, not a call of nil. (mlua adds the
    // Rust methods to `index` with raw sets, and the wrappers replace existing keys, so
    // neither meets this metamethod.)
    let refuse = lua.create_table()?;
    refuse.raw_set(
        "__index",
        refuse_unknown(lua, "game", "method", GAME_SYNONYMS)?,
    )?;
    index.set_metatable(Some(refuse))?;
    let methods = index.clone();
    lua.register_userdata_type::<GameRef>(move |reg| {
        add_methods(reg);
        reg.add_meta_field("__index", methods);
    })?;
    Ok(Views {
        lua: lua.clone(),
        patch: Some(GamePatch {
            patch,
            index,
            raws: lua.create_table()?,
        }),
        live,
    })
}

/// Puts the Luau wrappers in place once the first `game` view is made (call right after
/// making each): done once, or again on the next call if it failed.
fn finish_game_type(wrap: &mut Option<GamePatch>) -> mlua::Result<()> {
    if let Some(p) = wrap {
        p.patch.call::<()>((&p.index, &p.raws))?;
        *wrap = None;
    }
    Ok(())
}

/// The names of the `game` view's methods as scripts see them (the Rust methods and
/// their Luau wrappers), read off a view made in a fresh Lua state: the modder's
/// reference is checked against them (`scripting/tests/api.rs`).
pub(crate) fn view_methods(module: &Module, state: &GameState) -> mlua::Result<Vec<String>> {
    let lua = Lua::new();
    lua.set_app_data(Lent::new(module));
    let mut views = game_type(&lua, module)?;
    let index = views.patch.as_ref().map(|p| p.index.clone());
    lua.scope(|scope| views.open(scope, GameRef::ref_cast(state)).map(drop))?;
    let mut names = match index {
        Some(t) => t
            .pairs::<String, Value>()
            .map(|kv| kv.map(|(k, _)| k))
            .collect::<mlua::Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    names.sort();
    Ok(names)
}

/// Longest list a Rust method hands its wrapper as separate values (each a Lua stack slot);
/// longer ones are built as a table in Rust.
const MAX_SPREAD: usize = 200;

/// A list of ids for the `list` wrapper: `true` then the ids, or (when long) a table.
fn spread(lua: &Lua, ids: Vec<i64>) -> mlua::Result<MultiValue> {
    if ids.len() > MAX_SPREAD {
        return lua.create_sequence_from(ids)?.into_lua_multi(lua);
    }
    Ok(std::iter::once(Value::Boolean(true))
        .chain(ids.into_iter().map(Value::Integer))
        .collect())
}

/// `spread`, or nil for no list.
fn spread_some(lua: &Lua, ids: Option<Vec<i64>>) -> mlua::Result<MultiValue> {
    match ids {
        Some(ids) => spread(lua, ids),
        None => Value::Nil.into_lua_multi(lua),
    }
}

/// `ask`'s answer in `state`, noted when the session is read ([`crate::reading`]).
fn read(lua: &Lua, state: &GameState, ask: Ask) -> mlua::Result<Said> {
    let lent = lua
        .app_data_ref::<Lent>()
        .ok_or_else(|| mlua::Error::runtime("internal: no module lent to the scripts"))?;
    Ok(lent.read(state, ask))
}

/// Adds a method of the `game` view that is not an [`Ask`]: a read session that calls it
/// tells nothing ([`reading`](crate::reading)).
fn untraced<M, A, R, F>(m: &mut M, name: &str, method: F)
where
    M: UserDataMethods<GameRef>,
    A: FromLuaMulti,
    R: IntoLuaMulti,
    F: Fn(&Lua, &GameRef, A) -> mlua::Result<R> + 'static,
{
    m.add_method(name, move |lua, g, args| {
        spoil(lua);
        method(lua, g, args)
    });
}

/// The `game` view's methods (the Rust side; see [`WRAPPERS`] for those wrapped in Luau).
///
/// The plain getters that are [`Ask`]s answer through [`read`], which notes what a read
/// session reads; every other method goes through [`untraced`], which spoils it.
fn add_methods<M: UserDataMethods<GameRef>>(m: &mut M) {
    // Arguments are taken as plain values and checked by `Call`, whose errors name the
    // call as written and the script line (see `args.rs`).
    // Wrapped: an index into the side, type, class or quality ids.
    m.add_method("unit_side", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_side", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitSide(u))
    });
    m.add_method("unit_type", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_type", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitType(u))
    });
    m.add_method("unit_class", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_class", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitClass(u))
    });
    m.add_method("unit_quality", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_quality", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitQuality(u))
    });
    m.add_method("unit_box", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_box", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitBox(u))
    });
    untraced(m, "unit_name", |lua, g, u: Value| {
        let module = module_of(lua)?;
        let u = Call::new(lua, "unit_name", [u]).unit(0, &g.0)?;
        Ok(muster_core::game::describe::unit(&module, &g.0, u))
    });
    m.add_method("unit_hits", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_hits", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitHits(u))
    });
    m.add_method("unit_flag", |lua, g, (u, name): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "unit_flag", [u, name]);
        let u = call.unit(0, &g.0)?;
        let name = call.text(1)?;
        let flag = module.units.find_flag(&name).ok_or_else(|| {
            call.fail(
                1,
                format!("no flag '{name}'; {}", module.units.flag_help(&name)),
            )
        })?;
        read(lua, &g.0, Ask::UnitFlag(u, flag))
    });
    // Wrapped: a list.
    m.add_method("units_at", |lua, g, b: Value| {
        let module = module_of(lua)?;
        let at = Call::new(lua, "units_at", [b]).boxn(0, &module)?;
        match read(lua, &g.0, Ask::UnitsAt(at))? {
            Said::List(ids) => spread(lua, ids),
            other => other.into_lua_multi(lua),
        }
    });
    untraced(m, "units_on_board", |lua, g, ()| {
        spread(
            lua,
            ids(g.0.unit_ids().filter(|&u| on_board(&g.0, u).is_some())),
        )
    });
    // Wrapped: a list. Every piece of a type, wherever it is (a general waiting in stock).
    untraced(m, "pieces", |lua, g, kind: Value| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "pieces", [kind]);
        let name = call.text(0)?;
        let kind = module.units.find(&name).ok_or_else(|| {
            let hint = did_you_mean(&name, module.units.types.iter().map(|t| t.id.as_str()))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            call.fail(0, format!("no unit type '{name}'{hint}"))
        })?;
        spread(
            lua,
            ids(g.0.unit_ids().filter(|&u| g.0.unit(u).kind == kind)),
        )
    });
    // Where a piece is: "board", "pool", "stock" or "set_aside".
    untraced(m, "unit_place", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_place", [u]).unit(0, &g.0)?;
        Ok(match g.0.unit(u).place {
            Place::Board(_) => "board",
            Place::Pool => "pool",
            Place::Stock => "stock",
            Place::SetAside => "set_aside",
        })
    });
    m.add_method("units_on_board_of", |lua, g, side: Value| {
        let module = module_of(lua)?;
        let side = Call::new(lua, "units_on_board_of", [side]).side(0, &module)?;
        read(lua, &g.0, Ask::UnitsOnBoardOf(side))
    });
    m.add_method("controller", |lua, g, b: Value| {
        let module = module_of(lua)?;
        let at = Call::new(lua, "controller", [b]).boxn(0, &module)?;
        read(lua, &g.0, Ask::Controller(at))
    });
    m.add_method("marker", |lua, g, b: Value| {
        let module = module_of(lua)?;
        let at = Call::new(lua, "marker", [b]).boxn(0, &module)?;
        read(lua, &g.0, Ask::Marker(at))
    });
    m.add_method("enemy_in", |lua, g, (b, side): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "enemy_in", [b, side]);
        let (at, side) = (call.boxn(0, &module)?, call.side(1, &module)?);
        read(lua, &g.0, Ask::EnemyIn(at, side))
    });
    m.add_method(
        "enemy_class_in",
        |lua, g, (b, side, class): (Value, Value, Value)| {
            let module = module_of(lua)?;
            let call = Call::new(lua, "enemy_class_in", [b, side, class]);
            let (at, side) = (call.boxn(0, &module)?, call.side(1, &module)?);
            let classes = &module.units.classes;
            let class = call.name_in(
                2,
                "a unit class id",
                classes.iter().map(|c| c.id.as_str()),
                |id| classes.iter().position(|c| c.id == id),
            )?;
            let class = ClassId::from_index(class)
                .ok_or_else(|| mlua::Error::runtime("internal: a class id out of range"))?;
            read(lua, &g.0, Ask::EnemyClassIn(at, side, class))
        },
    );
    m.add_method("tally", |lua, g, (id, side): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "tally", [id, side]);
        let name = call.text(0)?;
        let tally = module.find_tally(&name).ok_or_else(|| {
            call.fail(
                0,
                format!("no tally '{name}'; {}", module.tally_help(&name)),
            )
        })?;
        // The side defaults to the one whose turn it is.
        let side = match call.opt_text(1)? {
            None => g.0.active_side(&module),
            Some(_) => call.side(1, &module)?,
        };
        read(lua, &g.0, Ask::Tally(tally, side))
    });
    m.add_method("active_side", |lua, g, ()| read(lua, &g.0, Ask::ActiveSide));
    m.add_method("resource", |lua, g, (id, side): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "resource", [id, side]);
        let id = call.text(0)?;
        let r = module.find_resource(&id).ok_or_else(|| {
            let hint = module
                .resource_hint(&id)
                .unwrap_or_else(|| "the module declares no such <resource>".into());
            call.fail(0, format!("no resource '{id}'; {hint}"))
        })?;
        let side = match call.opt_text(1)? {
            Some(_) => call.side(1, &module)?,
            None => g.0.active_side(&module),
        };
        read(lua, &g.0, Ask::Resource(r, side))
    });
    untraced(m, "step", |lua, g, ()| {
        let module = module_of(lua)?;
        Ok(g.0.current_step(&module).map(|s| s.id.clone()))
    });
    // Which repetition of a repeated step this is (`repeat="2"`: 1, then 2).
    m.add_method("repetition", |lua, g, ()| read(lua, &g.0, Ask::Repetition));
    m.add_method("first_turn", |lua, g, ()| read(lua, &g.0, Ask::FirstTurn));
    untraced(m, "turn_label", |lua, g, ()| {
        Ok(module_of(lua)?.calendar.turn(g.0.turn).label.clone())
    });
    untraced(m, "last_turn_label", |lua, g, ()| {
        Ok(module_of(lua)?.calendar.turn(g.0.end).label.clone())
    });
    m.add_method("turn_year", |lua, g, ()| read(lua, &g.0, Ask::TurnYear));
    m.add_method("turn_month", |lua, g, ()| read(lua, &g.0, Ask::TurnMonth));
    m.add_method("option", |lua, g, id: Value| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "option", [id]);
        let id = call.text(0)?;
        let o = module.find_option(&id).ok_or_else(|| {
            let hint = did_you_mean(&id, module.options.iter().map(|o| o.id.as_str()))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            call.fail(0, format!("no optional rule '{id}'{hint}"))
        })?;
        read(lua, &g.0, Ask::Option(o))
    });
    m.add_method("var", |lua, g, name: Value| {
        let name = Call::new(lua, "var", [name]).text(0)?;
        read(lua, &g.0, Ask::Var(name.into()))
    });
    untraced(m, "attribute", |lua, g, (u, name): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "attribute", [u, name]);
        let u = call.unit(0, &g.0)?;
        let name = call.text(1)?;
        let a = module.units.find_attribute(&name).ok_or_else(|| {
            let hint = module
                .units
                .attribute_hint(&name)
                .unwrap_or_else(|| "no unit type declares such an <attribute>".into());
            call.fail(1, format!("no attribute '{name}'; {hint}"))
        })?;
        Ok(g.0.attribute(&module, u, a))
    });
    untraced(m, "markers", |lua, g, (b, name): (Value, Value)| {
        let module = module_of(lua)?;
        let call = Call::new(lua, "markers", [b, name]);
        let at = call.boxn(0, &module)?;
        let name = call.text(1)?;
        let id = module.units.find_marker(&name).ok_or_else(|| {
            let hint = module
                .units
                .marker_hint(&name)
                .unwrap_or_else(|| "the module declares no such <marker>".into());
            call.fail(1, format!("no marker '{name}'; {hint}"))
        })?;
        Ok(g.0.markers_at(at, id))
    });
    m.add_method("attached_to", |lua, g, u: Value| {
        let u = Call::new(lua, "attached_to", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::AttachedTo(u))
    });
    untraced(m, "attached", |lua, g, u: Value| {
        let u = Call::new(lua, "attached", [u]).unit(0, &g.0)?;
        spread(lua, ids(g.0.attached(u)))
    });
    untraced(m, "selected_box", |_, g, ()| {
        Ok(selection(&g.0).map(|a| lua_index(a.at.index())))
    });
    untraced(m, "ready_units", |lua, g, ()| {
        let ready = selection(&g.0).map_or_else(Vec::new, |a| ids(a.ready.iter().copied()));
        spread(lua, ready)
    });
    m.add_method("unit_moves", |lua, g, u: Value| {
        let u = Call::new(lua, "unit_moves", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::UnitMoves(u))
    });
    m.add_method("moved", |lua, g, u: Value| {
        let u = Call::new(lua, "moved", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::Moved(u))
    });
    // Moved off the lines this player turn (`move_piece`: AHD's moves by sea).
    m.add_method("relocated", |lua, g, u: Value| {
        let u = Call::new(lua, "relocated", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::Relocated(u))
    });
    m.add_method("jumps", |lua, g, u: Value| {
        let u = Call::new(lua, "jumps", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::Jumps(u))
    });
    m.add_method("fought", |lua, g, u: Value| {
        let u = Call::new(lua, "fought", [u]).unit(0, &g.0)?;
        read(lua, &g.0, Ask::Fought(u))
    });
    m.add_method("placed_at", |lua, g, b: Value| {
        let module = module_of(lua)?;
        let at = Call::new(lua, "placed_at", [b]).boxn(0, &module)?;
        read(lua, &g.0, Ask::PlacedAt(at))
    });
    // The battle under way (all nil when there is none).
    untraced(m, "battle_box", |_, g, ()| {
        Ok(battle(&g.0).map(|b| lua_index(b.at.index())))
    });
    untraced(m, "battle_round", |_, g, ()| {
        Ok(battle(&g.0).map(|b| b.round))
    });
    for (name, pick) in [
        (
            "battle_attacker",
            (|b| b.attacker) as fn(&muster_core::game::battle::Battle) -> SideId,
        ),
        ("battle_defender", |b| b.defender),
        ("battle_firing", |b| b.firing),
    ] {
        untraced(m, name, move |lua, g, ()| {
            let module = module_of(lua)?;
            Ok(battle(&g.0).map(|b| side_index(&module, pick(b))))
        });
    }
    untraced(m, "battle_units", |lua, g, side: Value| {
        let module = module_of(lua)?;
        let side = Call::new(lua, "battle_units", [side]).side(0, &module)?;
        let list = battle(&g.0).map(|b| {
            let list = if side == b.attacker {
                &b.attackers
            } else {
                &b.defenders
            };
            ids(list.iter().copied())
        });
        spread_some(lua, list)
    });
    untraced(m, "entry_line", |lua, g, u: Value| {
        let u = Call::new(lua, "entry_line", [u]).unit(0, &g.0)?;
        Ok(entry(&g.0, u).flatten().map(|l| lua_index(l.index())))
    });
    untraced(m, "battle_entered_from", |lua, g, ()| {
        let list = battle(&g.0).map(|b| {
            b.entered_from
                .iter()
                .map(|x| lua_index(x.index()))
                .collect::<Vec<_>>()
        });
        spread_some(lua, list)
    });
    // Whether an attacker entered the battle box by sea, eliminated ones included
    // (nil when no battle is under way).
    // Some attacker entered the battle's box by a move off the lines.
    untraced(m, "battle_by_relocation", |_, g, ()| {
        Ok(battle(&g.0).map(|b| b.entries.iter().any(|(_, e)| *e == Some(None))))
    });
    untraced(m, "scenario", |_, g, ()| Ok(g.0.scenario.clone()));
    // Entered the battle's box by a move off the lines.
    untraced(m, "entered_by_relocation", |lua, g, u: Value| {
        let u = Call::new(lua, "entered_by_relocation", [u]).unit(0, &g.0)?;
        Ok(matches!(entry(&g.0, u), Some(None)))
    });
    // Wrapped: `true` then shooter and target of each shot, or (when long) the table.
    untraced(m, "shots", |lua, g, ()| {
        let shots = battle(&g.0).map_or(&[][..], |b| &b.shots[..]);
        if shots.len() * 2 <= MAX_SPREAD {
            return Ok(std::iter::once(Value::Boolean(true))
                .chain(
                    shots
                        .iter()
                        .flat_map(|(s, tg)| [s, tg].map(|u| Value::Integer(lua_index(u.index())))),
                )
                .collect());
        }
        let t = lua.create_table()?;
        for (i, (s, tg)) in shots.iter().enumerate() {
            let shot = lua.create_table()?;
            shot.raw_set("shooter", lua_index(s.index()))?;
            shot.raw_set("target", lua_index(tg.index()))?;
            t.raw_set(i + 1, shot)?;
        }
        t.into_lua_multi(lua)
    });
}

/// How a unit entered the battle box: `Some(Some(line))`, by sea `Some(None)`, or `None`.
fn entry(state: &GameState, u: UnitId) -> Option<Option<muster_core::ids::LineId>> {
    battle(state)?
        .entries
        .iter()
        .find(|(x, _)| *x == u)
        .and_then(|(_, e)| *e)
}

/// The box selected in the `move` step under way, with its pieces still to move.
fn selection(state: &GameState) -> Option<&muster_core::game::moves::SelectedBox> {
    state.moving.as_ref().and_then(|m| m.active.as_ref())
}

fn battle(state: &GameState) -> Option<&muster_core::game::battle::Battle> {
    state.combat.as_ref()?.battle.as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method of the `game` view either notes what it read or spoils a read
    /// session: one that did neither would let a computer player reuse answers it cannot
    /// check ([`Rules::ask_each_reading`]).
    #[test]
    fn every_view_method_notes_its_reads_or_spoils_the_session() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd");
        let m = muster_core::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let sc = m.scenario("1861").expect("1861");
        let state = GameState::new(&m, sc, Vec::new(), Dice::seeded(1)).expect("set up");
        let lua = Lua::new();
        lua.set_app_data(Lent::new(&m));
        let mut views = game_type(&lua, &m).expect("the view's type");
        let call: Function = lua
            .load("return function(g, name, ...) return g[name](g, ...) end")
            .eval()
            .expect("a caller");
        // Arguments that fit AHD's methods: units, boxes, sides, classes and its names.
        let tries: Vec<Vec<Value>> = {
            let s = |x: &str| Value::String(lua.create_string(x).expect("a string"));
            let i = Value::Integer;
            vec![
                vec![],
                vec![i(1)],
                vec![i(1), i(1)],
                vec![i(1), s("union")],
                vec![s("union")],
                vec![i(1), s("union"), s("cavalry")],
                vec![s("army-maximum"), s("union")],
                vec![s("marches"), s("union")],
                vec![s("kentucky-violated")],
                vec![i(1), s("entrenched")],
                vec![s("Mi")],
                vec![s("crack-infantry")],
            ]
        };
        let names = view_methods(&m, &state).expect("the methods");
        assert!(names.len() > 40, "{names:?}");
        let mut silent = Vec::new();
        for name in &names {
            let mut told = false;
            for args in &tries {
                let lent = lua.app_data_ref::<Lent>().expect("lent");
                lent.reading.start();
                drop(lent);
                let ok = lua
                    .scope(|scope| {
                        let g = views.open(scope, GameRef::ref_cast(&state))?;
                        let mut all =
                            vec![Value::UserData(g), Value::String(lua.create_string(name)?)];
                        all.extend(args.iter().cloned());
                        call.call::<MultiValue>(MultiValue::from_vec(all))
                    })
                    .is_ok();
                let lent = lua.app_data_ref::<Lent>().expect("lent");
                let (noted, spoiled) = lent.reading.peek();
                lent.reading.finish();
                told |= spoiled || (ok && noted > 0);
            }
            if !told {
                silent.push(name.clone());
            }
        }
        assert!(silent.is_empty(), "neither noted nor spoiled: {silent:?}");
    }
}
