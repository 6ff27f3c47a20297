//! The boundary between the engine and a game's rules. The engine asks typed
//! [`Question`]s at fixed points and reports [`Event`]s; a game answers (AHD's answers
//! are Luau scripts, run by the `muster-scripting` crate). Questions are pure: they read
//! a [`View`] and never change the game. Events return [`Command`]s that the engine
//! checks and applies.

use std::sync::Arc;

use crate::ids::{BoxId, SeatId, SideId, UnitId, UnitTypeId};
use crate::module::Module;

use super::command::Command;
use super::dice::Dice;
use super::moves::Path;
use super::offer::Offer;
use super::state::GameState;

/// What the rules may look at: the definitions and the current state.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub module: &'a Module,
    pub state: &'a GameState,
}

/// A rule failed to answer (a script error, a budget exceeded, a bad answer). The
/// action being answered fails with this message and the game is left untouched.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rule '{hook}' failed: {message}")]
pub struct RuleError {
    pub hook: String,
    pub message: String,
}

/// How the answers of several handlers of one question combine (a base game and the
/// overlays and options on top of it may each answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Every handler must say yes; no handler means yes.
    All,
    /// One handler saying yes is enough; no handler means no.
    Any,
    /// Integers added; no handler means 0.
    Sum,
    /// The smallest integer; no handler means no answer.
    Min,
    /// Lists joined in handler order; no handler means an empty list (`offers`).
    Concat,
    /// The first answer other than nil, in handler order (the later handlers are not
    /// called); no handler means nil (`accepts_entry`'s reason, `referee_entry`'s values).
    First,
}

/// An answer, already combined over every handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Bool(bool),
    Int(i64),
    None,
}

/// Everything the engine asks.
#[derive(Clone, Copy, Debug)]
pub enum Question<'a> {
    /// May the unit move along the whole path (whether or not it stops at its end)?
    /// Must be monotonic: if a path may not be entered, no longer one starting with it
    /// may be (the engine prunes its search on it).
    /// Contract (computer players search one of several alike units,
    /// [`super::moves::mover_key`]), for this question, `MayStop` and `IsJump`: the
    /// answer may depend on the unit only through its side, type, place, hits, flags,
    /// selections this step and attributes, unless it is attached, carries a piece, or
    /// moved, fought or was upgraded this player turn; not on its id or number.
    MayEnter { unit: UnitId, path: &'a Path },
    /// May the unit end its move at the last box of the path?
    MayStop { unit: UnitId, path: &'a Path },
    /// Is moving along this path a jump move (for display and the rules' own limits)?
    IsJump { unit: UnitId, path: &'a Path },
    /// How many selections (of its box) may this unit take part in during one `move`
    /// step? No answer: no limit.
    MoveLimit { unit: UnitId },
    /// A `move` step with `activate="piece"`: what activating this piece (and what it
    /// carries) costs in the step's resource. No handler: 0.
    ActivationCost { unit: UnitId },
    /// A `move` step with `activate="piece"`: the movement points the activated piece
    /// has for its legs. No answer: no limit but the path search's (`max-path`).
    MovePoints { unit: UnitId },
    /// A `move` step with `activate="piece"`: the movement points the last line of the
    /// path costs the piece, given the lines before it in the same leg (line kind,
    /// weather, the terrain on the side of the box entered). No handler: 1 a line.
    MoveCost { unit: UnitId, path: &'a Path },
    /// A `move` step with `activate="piece"`: what `carrier`, the piece activated, pays
    /// in the step's resource to pick `unit` up in its box (`paid`: what the
    /// activation has cost so far). No answer: it may not.
    PickUpCost {
        unit: UnitId,
        carrier: UnitId,
        paid: i64,
    },
    /// May the defender of the battle under way withdraw before round 1?
    MayWithdraw,
    /// May `side` retreat (or, before round 1, withdraw) from the battle to `to`?
    RetreatTo {
        side: SideId,
        to: BoxId,
        withdrawal: bool,
    },
    /// May this unit join the battle under way on its side, now?
    MayReinforce { unit: UnitId },
    /// May `shooter` name `target` now, given the shots already announced?
    /// Contract (the battle-odds calculator caches answers on it): the answer may depend
    /// on the shooter, the target, the units of each side still in the battle, which
    /// enemy units the shots announced this part aim at and how many shots there are,
    /// and the battle's fixed facts (unit types, flags, entries, the box, the
    /// options, the rest of the position); not on hits, the round, the markers in the
    /// battle's box (absorbed hits may change them), or which friendly unit announced
    /// which shot. Units of one side alike in type, flags and entry
    /// are interchangeable: exchanging two of them changes no answer.
    MayTarget { shooter: UnitId, target: UnitId },
    /// Added to the shooter's combat value for this shot. Asked when targets are named
    /// (by computer players) and again when each shot is rolled, so it sees the units
    /// earlier shots of the part eliminated and the markers absorbed hits removed.
    /// Contract (the battle-odds calculator caches answers on it): the answer may depend
    /// on the shooter, the target, the round, the firing side, the battle's fixed facts
    /// (unit types, flags, entries, the box, the options, pieces that do not
    /// fight, the rest of the position), the units of each side still in the battle in
    /// the order they joined it, and the markers in the battle's box; not on hits, on
    /// the shots announced, or on piece numbers. So a shooter may be told from units
    /// alike to it (in type, flags and entry) by its place in that order (the
    /// TripleA adaptation's crack infantry lower the two weakest enemy units still in
    /// the battle); targets alike are interchangeable.
    ShotModifier { shooter: UnitId, target: UnitId },
    /// `shooter` has just hit `target`: does something else take the hit instead (the
    /// TripleA adaptation's water-crossing tokens)? If so the target is unharmed and
    /// `hit_absorbed` follows, whose commands pay for it (remove the token).
    /// Contract (for the battle-odds calculator): the answer may depend on the battle's
    /// box, its markers and the sides; not on which unit fired or was hit. The commands
    /// of `hit_absorbed` may change the markers in the battle's box and nothing else
    /// the calculator could see (it runs them once per marker state and firing side,
    /// and refuses a battle whose `hit_absorbed` changes anything more).
    AbsorbsHit { shooter: UnitId, target: UnitId },
    /// After a battle the rules resolve (`resolve="rules"`), both sides' losses taken
    /// and both still holding pieces there: does `side` give up the field and retreat?
    /// Asked of the attacker, then (if it stays) of the defender; neither yielding
    /// leaves both in place, with no winner.
    Yields { side: SideId },
    /// May this unit be upgraded (swapped for the type it promotes to) now?
    MayUpgrade { unit: UnitId },
    /// May the moving side place a piece of this type from its pool in this box now?
    MayPlace { kind: UnitTypeId, at: BoxId },
    /// A hint for computer players, never a rule: what controlling `at` is worth to
    /// `side` beyond its box values (victory cities, say), in the same units.
    BoxWorth { side: SideId, at: BoxId },
    /// A hint for computer players, never a rule: whether `side`'s pieces in `at` are
    /// dug in (AHD: entrenched), so harder to beat than their numbers say; the players
    /// count such a force as half as many steps again. No handler means no.
    DugIn { side: SideId, at: BoxId },
    /// A hint for computer players, never a rule: what taking this offer is worth to the
    /// side that may take it, in the units of `BoxWorth`. Without a positive answer the
    /// computer players leave the offer alone.
    OfferWorth { offer: &'a Offer },
    /// Does `seat` command `unit` (a piece of its side): may it move it, fight with it,
    /// take the offers about it? Asked only for a side with several seats, or where the
    /// rules answer it; a piece of another side is never commanded.
    Commands { seat: SeatId, unit: UnitId },
    /// How much of `unit` does `seat` see ([`crate::format::Sight`] as a number: 0
    /// none, 1 presence, 2 side, 3 full)? `seen` is what the module's data says (the
    /// seat's `enemies`, `near` and `range`). Asked only of seats that do not see
    /// everything, or where the rules answer it; the least of the handlers' answers
    /// counts, and a failing handler hides the piece.
    Sees {
        seat: SeatId,
        unit: UnitId,
        seen: crate::format::Sight,
    },
}

impl Question<'_> {
    /// The hook name scripts register for.
    pub fn hook(&self) -> &'static str {
        match self {
            Question::MayEnter { .. } => "may_enter",
            Question::MayStop { .. } => "may_stop",
            Question::IsJump { .. } => "is_jump",
            Question::MoveLimit { .. } => "move_limit",
            Question::ActivationCost { .. } => "activation_cost",
            Question::MovePoints { .. } => "move_points",
            Question::MoveCost { .. } => "move_cost",
            Question::PickUpCost { .. } => "pick_up_cost",
            Question::MayWithdraw => "may_withdraw",
            Question::RetreatTo { .. } => "retreat_to",
            Question::MayReinforce { .. } => "may_reinforce",
            Question::MayTarget { .. } => "may_target",
            Question::ShotModifier { .. } => "shot_modifier",
            Question::AbsorbsHit { .. } => "absorbs_hit",
            Question::Yields { .. } => "yields",
            Question::MayUpgrade { .. } => "may_upgrade",
            Question::MayPlace { .. } => "may_place",
            Question::BoxWorth { .. } => "box_worth",
            Question::OfferWorth { .. } => "offer_worth",
            Question::DugIn { .. } => "dug_in",
            Question::Commands { .. } => "commands",
            Question::Sees { .. } => "sees",
        }
    }

    pub fn combine(&self) -> Combine {
        match self {
            Question::MayEnter { .. }
            | Question::MayStop { .. }
            | Question::RetreatTo { .. }
            | Question::MayReinforce { .. }
            | Question::MayTarget { .. }
            | Question::MayUpgrade { .. }
            | Question::MayPlace { .. }
            | Question::Commands { .. } => Combine::All,
            Question::IsJump { .. }
            | Question::MayWithdraw
            | Question::AbsorbsHit { .. }
            | Question::Yields { .. }
            | Question::DugIn { .. } => Combine::Any,
            Question::MoveLimit { .. }
            | Question::Sees { .. }
            | Question::MovePoints { .. }
            | Question::PickUpCost { .. } => Combine::Min,
            Question::ActivationCost { .. }
            | Question::MoveCost { .. }
            | Question::ShotModifier { .. }
            | Question::BoxWorth { .. }
            | Question::OfferWorth { .. } => Combine::Sum,
        }
    }
}

/// Every question hook with its combine rule, for rules implementations to check
/// registrations against.
pub const QUESTIONS: &[(&str, Combine)] = &[
    ("may_enter", Combine::All),
    ("may_stop", Combine::All),
    ("is_jump", Combine::Any),
    ("move_limit", Combine::Min),
    ("activation_cost", Combine::Sum),
    ("move_points", Combine::Min),
    ("move_cost", Combine::Sum),
    ("pick_up_cost", Combine::Min),
    ("may_withdraw", Combine::Any),
    ("retreat_to", Combine::All),
    ("may_reinforce", Combine::All),
    ("may_target", Combine::All),
    ("shot_modifier", Combine::Sum),
    ("absorbs_hit", Combine::Any),
    ("yields", Combine::Any),
    ("may_upgrade", Combine::All),
    ("may_place", Combine::All),
    ("box_worth", Combine::Sum),
    ("offer_worth", Combine::Sum),
    ("dug_in", Combine::Any),
    ("commands", Combine::All),
    ("sees", Combine::Min),
    ("offers", Combine::Concat),
    ("accepts_entry", Combine::First),
    ("composition", Combine::First),
    ("referee_entry", Combine::First),
    ("evacuations", Combine::Concat),
    ("victory_progress", Combine::Concat),
    ("victory_threats", Combine::Concat),
    ("battle_losses", Combine::Concat),
    ("end_step_refusal", Combine::First),
];

/// What one side must lose in a battle the rules resolve (the `battle_losses` hook):
/// `steps` in all, or (with `unit`) at least `steps` off that piece before the side's
/// other pieces take any (a fort's forced loss). `rule` is the rules' reference, given
/// with a refusal ("L651: the fort takes the first loss").
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Loss {
    pub side: SideId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<UnitId>,
    pub steps: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rule: String,
}

/// How near a side is to one of its victory conditions, as the rules count it: for
/// players to read (the app's banner, the terminal's board), never a rule and never
/// what ends the game (the rules' events do that).
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub side: SideId,
    /// The condition in the rules' words, e.g. "the seven key cities (10.0)".
    pub goal: String,
    /// How far the side is, and what the condition needs (e.g. 3 of 7).
    pub have: f64,
    pub need: f64,
}

/// A victory condition a side could meet on its next player turn, as the rules see it
/// (the `victory_threats` hint): the app warns the other side and rings `boxes` on the
/// map. Never a rule: the game still ends by the rules' events.
#[derive(Clone, Debug, PartialEq)]
pub struct Threat {
    /// The side that could win so.
    pub side: SideId,
    /// What would do it, in the rules' words, e.g. "if Philadelphia and Scranton fall,
    /// the Confederate Army Maximum Size passes the Union's (10.0)".
    pub text: String,
    /// The boxes whose capture (or loss) would do it.
    pub boxes: Vec<BoxId>,
}

/// Everything the engine reports.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A game turn begins (drafts and other scheduled arrivals happen here).
    TurnStarted,
    /// A player turn begins.
    PlayerTurnStarted,
    /// A step begins (rules set the resources it spends here, e.g. roll for marches).
    StepStarted { step: &'a str },
    /// A unit has just moved along a path.
    UnitMoved { unit: UnitId, path: &'a Path },
    /// A piece was moved off the map's lines by a rule's `move_piece` command (AHD: by
    /// sea, from one port to another).
    UnitRelocated {
        unit: UnitId,
        from: BoxId,
        to: BoxId,
    },
    /// The moving side selected a box in a `move` step; its pieces may move now.
    BoxSelected { at: BoxId },
    /// The moving side activated a piece in a `move` step with `activate="piece"`
    /// (its cost, `cost`, is paid already); it may move now.
    PieceActivated { unit: UnitId, cost: i64 },
    /// The deciding side took an offer (its cost is paid already).
    OfferTaken { offer: &'a Offer },
    /// A battle begins in a box.
    BattleStarted { at: BoxId },
    /// A unit was eliminated in battle (it is already in the pool or stock).
    UnitEliminated { unit: UnitId },
    /// A hit on `target` was taken by something else (`absorbs_hit` said so); the
    /// rules' commands pay for it.
    HitAbsorbed { shooter: UnitId, target: UnitId },
    /// A unit left `from` to reinforce the battle under way.
    UnitReinforced { unit: UnitId, from: BoxId },
    /// A battle is decided (`winner` is `None` after a withdrawal before combat).
    BattleEnded { at: BoxId, winner: Option<SideId> },
    /// A unit was upgraded (by `Upgrade`); `unit` is the piece that left.
    UnitUpgraded { unit: UnitId },
    /// A piece was placed onto the board from the pool (by `Place`).
    UnitPlaced { unit: UnitId },
    /// A step is over (before resources that expire with it are cleared).
    StepEnded { step: &'a str },
    /// Commands just changed who controls some box.
    ControlChanged,
    /// A player turn is over.
    PlayerTurnEnded,
    /// A game turn is over.
    TurnEnded,
    /// The last turn of the game is over (the rules name the winner here).
    GameEnded,
}

impl Event<'_> {
    pub fn hook(&self) -> &'static str {
        match self {
            Event::TurnStarted => "turn_started",
            Event::PlayerTurnStarted => "player_turn_started",
            Event::StepStarted { .. } => "step_started",
            Event::UnitMoved { .. } => "unit_moved",
            Event::UnitRelocated { .. } => "unit_relocated",
            Event::BoxSelected { .. } => "box_selected",
            Event::PieceActivated { .. } => "piece_activated",
            Event::OfferTaken { .. } => "offer_taken",
            Event::BattleStarted { .. } => "battle_started",
            Event::UnitReinforced { .. } => "unit_reinforced",
            Event::UnitEliminated { .. } => "unit_eliminated",
            Event::HitAbsorbed { .. } => "hit_absorbed",
            Event::BattleEnded { .. } => "battle_ended",
            Event::UnitUpgraded { .. } => "unit_upgraded",
            Event::UnitPlaced { .. } => "unit_placed",
            Event::StepEnded { .. } => "step_ended",
            Event::ControlChanged => "control_changed",
            Event::PlayerTurnEnded => "player_turn_ended",
            Event::TurnEnded => "turn_ended",
            Event::GameEnded => "game_ended",
        }
    }
}

pub const EVENTS: &[&str] = &[
    "turn_started",
    "player_turn_started",
    "step_started",
    "unit_moved",
    "unit_relocated",
    "box_selected",
    "piece_activated",
    "offer_taken",
    "battle_started",
    "unit_reinforced",
    "unit_eliminated",
    "hit_absorbed",
    "battle_ended",
    "unit_upgraded",
    "unit_placed",
    "step_ended",
    "control_changed",
    "player_turn_ended",
    "turn_ended",
    "game_ended",
];

/// A game's rules, as the engine sees them.
pub trait Rules {
    /// Answers a question. Pure: no dice, no change to anything.
    fn ask(&mut self, view: View<'_>, question: Question<'_>) -> Result<Answer, RuleError>;
    /// Asks many questions of one position: `each` asks them through the [`Asker`] it is
    /// given, and gets the answers [`Rules::ask`] gives. Rules may share the work of a
    /// call between them (scripted rules make the script's `game` view once, not per
    /// question): the engine's path search asks hundreds in a row. One by one by
    /// default.
    fn ask_each(
        &mut self,
        view: View<'_>,
        each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
    ) -> Result<(), RuleError> {
        each(&mut OneByOne { rules: self, view })
    }
    /// Like [`Rules::ask_each`], and also tells what the questions read of the position,
    /// when the rules can: asked again where every read gives the same answer, the same
    /// questions answer the same (they are pure), so a computer player may reuse their
    /// answers in positions the whole state's fingerprint tells apart (a piece's
    /// destinations depend on the boxes near it, not on a march across the map). `None`
    /// by default: the rules cannot tell.
    fn ask_each_reading(
        &mut self,
        view: View<'_>,
        each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
    ) -> Result<Option<SharedReads>, RuleError> {
        self.ask_each(view, each)?;
        Ok(None)
    }
    /// Reacts to an event with commands. Die rolls come from `dice`, the game's own
    /// (taken out of the state for the call, and put back after), so they replay.
    fn notify(
        &mut self,
        view: View<'_>,
        dice: &mut Dice,
        event: Event<'_>,
    ) -> Result<Vec<Command>, RuleError>;
    /// Whether any of the rules answers `hook` (a question or event name). Computer
    /// players skip work whose only purpose is a hint nobody gives. Yes by default.
    fn answers(&self, hook: &str) -> bool {
        let _ = hook;
        true
    }
    /// Whether the rules declare their answers to the question `hook` fixed for a battle:
    /// for `shot_modifier`, depending on the shooter, the target, the round, the firing
    /// side and the battle's fixed facts only, not on who is still in the battle or on
    /// markers (the narrower contract its doc names). The battle-odds calculator then
    /// asks once per round what it must otherwise ask for every situation. No by
    /// default (the wider contract holds).
    fn fixed(&self, hook: &str) -> bool {
        let _ = hook;
        false
    }
    /// The decisions the rules offer the side to act in `step` now, besides the
    /// procedure's own (the `offers` hook). Pure, like a question. None by default.
    fn offers(&mut self, view: View<'_>, step: &str) -> Result<Vec<Offer>, RuleError> {
        let _ = (view, step);
        Ok(Vec::new())
    }
    /// What [`Rules::offers`] answered for `step` when last asked, if that was of this
    /// very position (`view`'s module and a state equal to it) and the rules kept it:
    /// what asking again would answer, since offers are pure. Taking an offer looks for
    /// it here first ([`super::offer`]): a player takes one from the list it was just
    /// given, in the position that list was made of. None by default.
    fn offers_kept(&self, view: View<'_>, step: &str) -> Option<&[Offer]> {
        let _ = (view, step);
        None
    }
    /// Boxes no line joins to the battle's box that `side` may retreat (or, before round
    /// 1, withdraw) to from the battle under way (AHD's naval evacuation, 5.41): the
    /// `evacuations` hook, asked at each chance to retreat. Boxes joined to the battle's
    /// are `RetreatTo`'s; the engine ignores them here, and the battle's own box. None by
    /// default.
    fn evacuations(
        &mut self,
        view: View<'_>,
        side: SideId,
        withdrawal: bool,
    ) -> Result<Vec<BoxId>, RuleError> {
        let _ = (view, side, withdrawal);
        Ok(Vec::new())
    }
    /// The losses of the battle under way, which the rules resolve (`resolve="rules"` on
    /// its step): the `battle_losses` list hook, asked once, after any withdrawal
    /// before combat. Pure, like a question. None by default: nobody loses anything.
    fn battle_losses(&mut self, view: View<'_>) -> Result<Vec<Loss>, RuleError> {
        let _ = view;
        Ok(Vec::new())
    }
    /// How near each side is to its victory conditions (the `victory_progress` list
    /// hook), for players to read. None by default.
    fn victory_progress(&mut self, view: View<'_>) -> Result<Vec<Progress>, RuleError> {
        let _ = view;
        Ok(Vec::new())
    }
    /// The victory conditions a side could meet on its next player turn (the
    /// `victory_threats` list hook), for players to see coming. None by default.
    fn victory_threats(&mut self, view: View<'_>) -> Result<Vec<Threat>, RuleError> {
        let _ = view;
        Ok(Vec::new())
    }
    /// Whether the engine only looks ahead for a while (a computer player's rollouts, on
    /// the game's own rules): what the rules log, print or trace then is not the game's,
    /// and is dropped when it ends. Nothing by default.
    fn look_ahead(&mut self, on: bool) {
        let _ = on;
    }
    /// Why the side to act may not end `step` now (an obligation not met, in the rules'
    /// words with their reference): the first reason a handler of `end_step_refusal`
    /// gives, or none. Asked when the player ends a step, never when a step ends by
    /// itself. Pure, like a question. None by default.
    fn end_step_refusal(
        &mut self,
        view: View<'_>,
        step: &str,
    ) -> Result<Option<String>, RuleError> {
        let _ = (view, step);
        Ok(None)
    }
    /// Whether the rules refuse the values entered for an offer (`offer.entry`, already
    /// checked against its form): the first reason a handler of `accepts_entry` gives,
    /// or none (accepted). Pure, like a question. Accepted by default.
    fn refuses_entry(
        &mut self,
        view: View<'_>,
        offer: &Offer,
    ) -> Result<Option<String>, RuleError> {
        let _ = (view, offer);
        Ok(None)
    }
    /// Whether the rules refuse what `formation` holds after a player's organisation
    /// action (the `composition` hook, seed 001 §6.22: "a corps holds 2-4 divisions"):
    /// the first reason a handler gives, naming the rule's section, or none. Asked of
    /// every piece the action changes and every formation above them, after the
    /// module's `holds` and `capacity`. Pure, like a question. Accepted by default.
    fn refuses_composition(
        &mut self,
        view: View<'_>,
        formation: UnitId,
    ) -> Result<Option<String>, RuleError> {
        let _ = (view, formation);
        Ok(None)
    }
    /// The computer referee: the values the rules enter for an offer with a form when
    /// no person does (`referee_entry`), drawing only on `dice`, the game's own, so the
    /// game replays exactly. None: no handler entered any. None by default.
    fn referee_entry(
        &mut self,
        view: View<'_>,
        dice: &mut Dice,
        offer: &Offer,
    ) -> Result<Option<super::entry::Entry>, RuleError> {
        let _ = (view, dice, offer);
        Ok(None)
    }
    /// Starts (`true`) or stops keeping which handler said no to each question asked,
    /// for [`super::why::why_not`] only: off, it costs nothing. Nothing by default.
    fn trace_refusals(&mut self, on: bool) {
        let _ = on;
    }
    /// The handlers that said no to the questions asked since tracing began (see
    /// [`Rules::trace_refusals`]), in the order asked. None by default: the rules
    /// cannot tell who refused.
    fn refusals(&mut self) -> Vec<super::why::RuleSaid> {
        Vec::new()
    }
    /// The offers when one is being taken, with `wanted` naming it: rules may list only
    /// those that match (the engine still checks id, piece and box), so taking one of
    /// many offers does not cost listing them all. All of them by default.
    fn offers_for(
        &mut self,
        view: View<'_>,
        step: &str,
        wanted: &Wanted<'_>,
    ) -> Result<Vec<Offer>, RuleError> {
        let _ = wanted;
        self.offers(view, step)
    }
}

/// What the questions of one [`Rules::ask_each_reading`] read of a position: each
/// thing read and the answer it gave. Self-contained (it needs no rules to check), so
/// a search shares it between threads.
pub trait Reads: Send + Sync {
    /// Whether every read gives, in `state`, the answer it gave.
    fn hold(&self, module: &Module, state: &GameState) -> bool;
}

/// [`Reads`] as the rules give them, shared.
pub type SharedReads = Arc<dyn Reads>;

/// Questions about one position, asked in a row ([`Rules::ask_each`]).
pub trait Asker {
    fn ask(&mut self, question: Question<'_>) -> Result<Answer, RuleError>;
}

impl dyn Asker + '_ {
    /// Asks a yes/no question.
    pub fn ask_bool(&mut self, q: Question<'_>) -> Result<bool, RuleError> {
        match self.ask(q)? {
            Answer::Bool(b) => Ok(b),
            other => Err(wrong(&q, other)),
        }
    }

    /// Asks for a number; `None` when no handler gave one.
    pub fn ask_int(&mut self, q: Question<'_>) -> Result<Option<i64>, RuleError> {
        match self.ask(q)? {
            Answer::Int(n) => Ok(Some(n)),
            Answer::None => Ok(None),
            other => Err(wrong(&q, other)),
        }
    }
}

/// [`Rules::ask_each`] by default: each question on its own.
struct OneByOne<'a, 'v, R: ?Sized> {
    rules: &'a mut R,
    view: View<'v>,
}

impl<R: Rules + ?Sized> Asker for OneByOne<'_, '_, R> {
    fn ask(&mut self, question: Question<'_>) -> Result<Answer, RuleError> {
        self.rules.ask(self.view, question)
    }
}

/// The offer a `Take` names: its id, piece and box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wanted<'a> {
    pub id: &'a str,
    pub unit: Option<UnitId>,
    pub at: Option<BoxId>,
}

fn wrong(question: &Question<'_>, answer: Answer) -> RuleError {
    RuleError {
        hook: question.hook().into(),
        message: format!("answered {answer:?}, which does not fit the question"),
    }
}

/// Asks a yes/no question.
pub fn ask_bool(rules: &mut dyn Rules, view: View<'_>, q: Question<'_>) -> Result<bool, RuleError> {
    (&mut OneByOne { rules, view } as &mut dyn Asker).ask_bool(q)
}

/// Asks for a number; `None` when no handler gave one (a `Min` with no handler).
pub fn ask_int(
    rules: &mut dyn Rules,
    view: View<'_>,
    q: Question<'_>,
) -> Result<Option<i64>, RuleError> {
    (&mut OneByOne { rules, view } as &mut dyn Asker).ask_int(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_matches_the_questions() {
        let path = Path {
            from: BoxId(0),
            steps: Vec::new(),
        };
        let u = UnitId(0);
        let offer = Offer {
            id: "x".into(),
            label: "x".into(),
            unit: None,
            at: None,
            cost: Vec::new(),
            seat: None,
            form: Vec::new(),
            entry: None,
            fight: false,
            fought: None,
            refused: None,
        };
        let all = [
            Question::MayEnter {
                unit: u,
                path: &path,
            },
            Question::MayStop {
                unit: u,
                path: &path,
            },
            Question::IsJump {
                unit: u,
                path: &path,
            },
            Question::MoveLimit { unit: u },
            Question::ActivationCost { unit: u },
            Question::MovePoints { unit: u },
            Question::MoveCost {
                unit: u,
                path: &path,
            },
            Question::PickUpCost {
                unit: u,
                carrier: u,
                paid: 0,
            },
            Question::MayWithdraw,
            Question::RetreatTo {
                side: SideId(0),
                to: BoxId(0),
                withdrawal: false,
            },
            Question::MayReinforce { unit: u },
            Question::MayTarget {
                shooter: u,
                target: u,
            },
            Question::ShotModifier {
                shooter: u,
                target: u,
            },
            Question::AbsorbsHit {
                shooter: u,
                target: u,
            },
            Question::Yields { side: SideId(0) },
            Question::MayUpgrade { unit: u },
            Question::MayPlace {
                kind: UnitTypeId(0),
                at: BoxId(0),
            },
            Question::BoxWorth {
                side: SideId(0),
                at: BoxId(0),
            },
            Question::OfferWorth { offer: &offer },
            Question::DugIn {
                side: SideId(0),
                at: BoxId(0),
            },
            Question::Commands {
                seat: SeatId(0),
                unit: u,
            },
            Question::Sees {
                seat: SeatId(0),
                unit: u,
                seen: crate::format::Sight::Full,
            },
        ];
        // Every question but the lists `offers`, `evacuations`, `victory_progress`,
        // `victory_threats` and `battle_losses`, the entries' `accepts_entry` and
        // `referee_entry`, `end_step_refusal`, and the formations' `composition`, which
        // have trait methods of their own.
        assert_eq!(all.len() + 9, QUESTIONS.len());
        for q in all {
            assert!(QUESTIONS.contains(&(q.hook(), q.combine())), "{q:?}");
        }
    }
}
