//! Battles (rules 5.0-5.7 in AHD's words): in each box holding both sides' units the
//! moving side attacks. Each round the defender's part comes first, then the
//! attacker's; in each part the side may retreat (from round 2), reinforce (from round
//! 2), then names a target for every unit, and the shots are rolled. What may be
//! targeted, the shot modifiers, where a side may retreat to and who may reinforce are
//! the rules' answers; the engine keeps the sequence, the dice and the bookkeeping.
//!
//! A `battles` step with `resolve="rules"` rolls no dice (RESOLVE, issue 44): after any
//! withdrawal the rules give each side's losses in steps (`battle_losses`, a table
//! lookup), the defender then the attacker choose which of their pieces take them
//! (`Lose`, one step at a time, a piece the rules name first where they say so), and
//! the rules say which side yields the field (`yields`); it retreats where
//! `retreat_to` allows, or is eliminated where it cannot.
//!
//! A `battles` step by dice may change the sequence ([`BattleOptions`], declared on the
//! step; the defaults are AHD's): `casualties="owner"` has shots name no target, and the
//! side hit takes its losses off pieces of its choice (`Lose`, as above) once the
//! firing side has rolled; `fire="simultaneous"` has both sides roll with what they
//! had at the round's start, the defender's dice first, then both take their losses;
//! `retreat` says which sides may retreat, `withdraw` and `reinforce` whether
//! `may_withdraw` and `may_reinforce` are asked at all (TripleA's battle: owner,
//! simultaneous, the attacker alone retreats, neither). With owner's casualties a hit
//! the rules may absorb (`absorbs_hit`) is the owner's choice too: each lost step is
//! taken off a piece (`Lose`) or absorbed (`Absorb`), as TripleA lets the owner pick
//! a water-crossing token or a unit as the casualty.

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError, illegal};
use super::flow::notify;
use super::rules::{Event, Loss, Question, RuleError, Rules, View, ask_bool, ask_int};
use super::state::{GameState, Place};
use super::upgrade;
use crate::calendar::BattleOptions;
use crate::format::{Casualties, Fire, Resolve};
use crate::ids::{BoxId, LineId, SideId, UnitId};
use crate::module::Module;

/// The Combat segment under way.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CombatSegment {
    /// Boxes whose battle is over this segment.
    pub fought_at: Vec<BoxId>,
    pub battle: Option<Battle>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Battle {
    pub at: BoxId,
    pub attacker: SideId,
    pub defender: SideId,
    /// 1-based.
    pub round: u8,
    /// Whose part of the round it is.
    pub firing: SideId,
    pub stage: Stage,
    /// Units still fighting, each side in the order they joined.
    pub attackers: Vec<UnitId>,
    pub defenders: Vec<UnitId>,
    /// How each attacker last entered the box: by a line, by sea (`Some(None)`), or
    /// `None` if it did not move in this turn.
    #[serde(with = "entries_form")]
    pub entries: Vec<(UnitId, Option<Option<LineId>>)>,
    /// Boxes attacking units entered the battle from, by march or as reinforcements,
    /// whether or not they are still fighting (5.4, 5.6).
    #[serde(default)]
    pub entered_from: Vec<BoxId>,
    /// Shots announced in the current part: (shooter, target).
    pub shots: Vec<(UnitId, UnitId)>,
    /// Boxes reinforced from in the current part (one unit per box per round, 5.5).
    pub reinforced_from: Vec<BoxId>,
    /// Set when the battle is decided.
    pub winner: Option<SideId>,
    /// Whether a shot announced this round had a chance to hit (the stalemate guard,
    /// [`stalemate`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub could_hit: bool,
    /// A battle the rules resolve: the steps each side has still to take (entries
    /// without a piece), and the steps named pieces must take before the side's others
    /// (entries with one), as `battle_losses` gave them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owed: Vec<Loss>,
}

/// How a save writes [`Battle::entries`]: JSON writes `Some(None)` ("by sea") and `None`
/// ("did not move in") alike as `null`, so "by sea" is written `"sea"`; a line stays its
/// number and `null` stays "did not move in", so earlier saves read as before (found by
/// the fuzzer: a save made during a battle whose attacker came by sea did not replay).
mod entries_form {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::ids::{LineId, UnitId};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Form {
        Line(LineId),
        Sea(Sea),
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Sea {
        Sea,
    }

    type Entries = Vec<(UnitId, Option<Option<LineId>>)>;

    pub fn serialize<S: Serializer>(entries: &Entries, s: S) -> Result<S::Ok, S::Error> {
        let forms: Vec<(UnitId, Option<Form>)> = entries
            .iter()
            .map(|&(u, e)| {
                (
                    u,
                    e.map(|line| line.map_or(Form::Sea(Sea::Sea), Form::Line)),
                )
            })
            .collect();
        forms.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
        let forms: Vec<(UnitId, Option<Form>)> = Vec::deserialize(d)?;
        Ok(forms
            .into_iter()
            .map(|(u, f)| {
                (
                    u,
                    f.map(|f| match f {
                        Form::Line(l) => Some(l),
                        Form::Sea(_) => None,
                    }),
                )
            })
            .collect())
    }
}

/// The decision a battle waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The defender may withdraw before round 1 (`Retreat`) or stand (`Pass`).
    Withdraw,
    /// The firing side may retreat (`Retreat`) or fight on (`Pass`).
    Retreat,
    /// The firing side may bring in units (`Reinforce`), or stop (`Pass`).
    Reinforce,
    /// The firing side names a target for its next unit (`Target`).
    Target,
    /// The winner may upgrade one surviving unit (`Upgrade`), or not (`Pass`).
    Upgrade,
    /// The firing side takes its next lost step off one of its pieces (`Lose`): in a
    /// battle the rules resolve, or where casualties are chosen by their owner.
    Losses,
    /// A battle the rules resolve: the firing side yielded the field and retreats
    /// (`Retreat`); the winner is set.
    Rout,
}

impl Battle {
    fn own(&self, side: SideId) -> &Vec<UnitId> {
        if side == self.attacker {
            &self.attackers
        } else {
            &self.defenders
        }
    }

    fn own_mut(&mut self, side: SideId) -> &mut Vec<UnitId> {
        if side == self.attacker {
            &mut self.attackers
        } else {
            &mut self.defenders
        }
    }

    fn enemy_of(&self, side: SideId) -> SideId {
        if side == self.attacker {
            self.defender
        } else {
            self.attacker
        }
    }

    /// Steps `side` has still to take in a battle the rules resolve.
    pub fn owed(&self, side: SideId) -> u32 {
        self.owed
            .iter()
            .filter(|l| l.side == side && l.unit.is_none())
            .map(|l| l.steps)
            .sum()
    }

    /// The pieces of the firing side that must take a step before its others, with
    /// the steps they still must take and the rules' reference.
    fn firsts(&self) -> impl Iterator<Item = &Loss> + '_ {
        self.owed.iter().filter(move |l| {
            l.side == self.firing
                && l.steps > 0
                && l.unit.is_some_and(|u| self.own(self.firing).contains(&u))
        })
    }

    /// The side that must decide now.
    pub fn decider(&self) -> SideId {
        match self.stage {
            Stage::Withdraw => self.defender,
            Stage::Upgrade => self.winner.unwrap_or(self.attacker),
            _ => self.firing,
        }
    }

    /// The firing side's units that have no target yet, in order.
    fn unassigned(&self) -> impl Iterator<Item = UnitId> + '_ {
        self.own(self.firing)
            .iter()
            .copied()
            .filter(|u| !self.shots.iter().any(|(s, _)| s == u))
    }
}

/// The side that must decide in the current battle, if one is under way.
pub fn decider(state: &GameState) -> Option<SideId> {
    state.combat.as_ref()?.battle.as_ref().map(Battle::decider)
}

/// Boxes where the moving side still has a battle to fight.
pub fn pending(module: &Module, state: &GameState) -> Vec<BoxId> {
    let side = state.active_side(module);
    let done = state.combat.as_ref().map_or(&[][..], |c| &c.fought_at[..]);
    // Which boxes hold the side's pieces and which an enemy's, in one pass over the
    // pieces (asked after every action: a pass per box was 3% of a search's time).
    let n = module.board.boxes.len();
    let (mut mine, mut theirs) = (vec![false; n], vec![false; n]);
    for u in state.unit_ids() {
        let unit = state.unit(u);
        // Pieces that do not fight (generals) neither start nor join a battle.
        if let Place::Board(b) = unit.place
            && module.units.get(unit.kind).combatant
        {
            let at = if unit.side == side {
                &mut mine
            } else {
                &mut theirs
            };
            at[b.index()] = true;
        }
    }
    module
        .board
        .box_ids()
        .filter(|b| mine[b.index()] && theirs[b.index()] && !done.contains(b))
        .collect()
}

pub(crate) fn setup(state: &mut GameState) {
    state.combat = Some(CombatSegment::default());
}

/// No battle under way and none left to fight.
pub(crate) fn done(
    module: &Module,
    _rules: &mut dyn Rules,
    state: &GameState,
) -> Result<bool, ActionError> {
    let under_way = state.combat.as_ref().is_some_and(|c| c.battle.is_some());
    Ok(!under_way && pending(module, state).is_empty())
}

pub(crate) fn finish(
    module: &Module,
    _rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    if state.combat.as_ref().is_some_and(|c| c.battle.is_some()) {
        return Err(illegal("finish the battle under way first"));
    }
    if !pending(module, state).is_empty() {
        return Err(illegal(
            "every battle must be fought before the Combat segment ends",
        ));
    }
    state.combat = None;
    Ok(Vec::new())
}

pub fn legal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Action>, RuleError> {
    let Some(combat) = &state.combat else {
        return Ok(Vec::new());
    };
    let view = View { module, state };
    let Some(b) = &combat.battle else {
        // 5.0: battles are fought one at a time, in the order the attacker chooses.
        return Ok(pending(module, state)
            .into_iter()
            .map(|at| Action::Fight { at })
            .collect());
    };
    let mut out = Vec::new();
    match b.stage {
        Stage::Withdraw | Stage::Retreat => {
            let side = b.decider();
            for to in retreat_options(view, rules, b, side)? {
                out.push(Action::Retreat { to });
            }
            out.push(Action::Pass);
        }
        Stage::Reinforce => {
            for unit in reinforcements(view, rules, b)? {
                out.push(Action::Reinforce { unit });
            }
            out.push(Action::Pass);
        }
        Stage::Target => {
            if let Some(shooter) = b.unassigned().next() {
                for target in targets(view, rules, b, shooter)? {
                    out.push(Action::Target { shooter, target });
                }
            }
        }
        Stage::Upgrade => {
            for unit in b.own(b.winner.unwrap_or(b.attacker)).clone() {
                if upgrade::can_upgrade(view, rules, unit)? {
                    out.push(Action::Upgrade { unit });
                }
            }
            out.push(Action::Pass);
        }
        Stage::Losses => {
            let firsts: Vec<UnitId> = b.firsts().filter_map(|l| l.unit).collect();
            for &unit in b.own(b.firing) {
                if firsts.is_empty() || firsts.contains(&unit) {
                    out.push(Action::Lose { unit });
                }
            }
            if firsts.is_empty() && may_absorb(module, rules, state, b)? {
                out.push(Action::Absorb);
            }
        }
        Stage::Rout => {
            for to in retreat_options(view, rules, b, b.firing)? {
                out.push(Action::Retreat { to });
            }
        }
    }
    Ok(out)
}

/// Whether the step under way resolves its battles by the rules (`resolve="rules"`).
fn by_rules(module: &Module, state: &GameState) -> bool {
    state
        .current_step(module)
        .is_some_and(|s| s.resolve == Resolve::Rules)
}

/// The step's battle procedure options (AHD's when no `battles` step is under way).
fn options(module: &Module, state: &GameState) -> BattleOptions {
    state
        .current_step(module)
        .map(|s| s.battle)
        .unwrap_or_default()
}

/// Why `Lose { unit }` is refused now, in the players' words and the rules'
/// reference; `None` if it may be taken.
fn lose_refusal(module: &Module, state: &GameState, b: &Battle, unit: UnitId) -> Option<String> {
    let side = module.side(b.firing).name.as_str();
    if unit.index() >= state.units.len() || !b.own(b.firing).contains(&unit) {
        return Some(format!(
            "that piece is not one of {side}'s pieces in this battle; {side} takes its losses off its own"
        ));
    }
    let first = b.firsts().find(|l| l.unit != Some(unit))?;
    let named = first.unit.map(|u| super::describe::unit(module, state, u));
    let rule = if first.rule.is_empty() {
        "the rules".to_string()
    } else {
        first.rule.clone()
    };
    Some(format!(
        "{rule}: {} must take {} more step{} before {side}'s other pieces",
        named.unwrap_or_default(),
        first.steps,
        if first.steps == 1 { "" } else { "s" }
    ))
}

/// Whether [`legal`] lists `action` in the battle `b` under way, asking no more than it
/// must. A target is the common case (every shot of every round names one): the rules'
/// yes to it is enough, and only a no needs the whole list (which holds every enemy
/// when the rules allow none, 5.1). Questions are pure, so this agrees with `legal`
/// (tested over random games).
fn allows(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    b: &Battle,
    action: &Action,
) -> Result<bool, RuleError> {
    let view = View { module, state };
    match (b.stage, action) {
        (Stage::Target, Action::Target { shooter, target }) => {
            if b.unassigned().next() != Some(*shooter)
                || !b.own(b.enemy_of(b.firing)).contains(target)
            {
                return Ok(false);
            }
            if ask_bool(
                rules,
                view,
                Question::MayTarget {
                    shooter: *shooter,
                    target: *target,
                },
            )? {
                return Ok(true);
            }
            Ok(targets(view, rules, b, *shooter)?.contains(target))
        }
        (Stage::Target, _) => Ok(false),
        (Stage::Losses, Action::Lose { unit }) => {
            Ok(lose_refusal(module, state, b, *unit).is_none())
        }
        (Stage::Losses, Action::Absorb) => {
            Ok(b.firsts().next().is_none() && may_absorb(module, rules, state, b)?)
        }
        (Stage::Losses, _) | (Stage::Rout, Action::Pass) => Ok(false),
        // Passing is always open at the other stages (a retreat or a reinforcement is
        // never forced): the most common answer needs no question at all.
        (_, Action::Pass) => Ok(true),
        (Stage::Upgrade, Action::Upgrade { unit }) => {
            Ok(b.own(b.winner.unwrap_or(b.attacker)).contains(unit)
                && upgrade::can_upgrade(view, rules, *unit)?)
        }
        _ => Ok(legal(module, rules, state)?.contains(action)),
    }
}

/// Boxes a side may retreat (or withdraw) to: adjacent along a line, as the rules allow
/// (`RetreatTo`); then any other box the rules name (`evacuations`: AHD's evacuation
/// by sea), in id order.
fn retreat_options(
    view: View<'_>,
    rules: &mut dyn Rules,
    b: &Battle,
    side: SideId,
) -> Result<Vec<BoxId>, RuleError> {
    let withdrawal = b.stage == Stage::Withdraw;
    let mut out = Vec::new();
    // One session for all the neighbours: the rules' view is opened once.
    rules.ask_each(view, &mut |ask| {
        for &(to, _) in view.module.board.neighbours(b.at) {
            if out.contains(&to) {
                continue;
            }
            if ask.ask_bool(Question::RetreatTo {
                side,
                to,
                withdrawal,
            })? {
                out.push(to);
            }
        }
        Ok(())
    })?;
    let board = &view.module.board;
    let mut far = rules.evacuations(view, side, withdrawal)?;
    far.sort_unstable();
    far.dedup();
    far.retain(|&to| {
        to.index() < board.boxes.len()
            && to != b.at
            && !out.contains(&to)
            && !board.neighbours(b.at).iter().any(|&(n, _)| n == to)
    });
    out.extend(far);
    Ok(out)
}

/// Units that may join the battle on the firing side now: one per adjacent box.
fn reinforcements(
    view: View<'_>,
    rules: &mut dyn Rules,
    b: &Battle,
) -> Result<Vec<UnitId>, RuleError> {
    let mut out = Vec::new();
    let mut boxes: Vec<BoxId> = Vec::new();
    for &(from, _) in view.module.board.neighbours(b.at) {
        if !boxes.contains(&from) && !b.reinforced_from.contains(&from) {
            boxes.push(from);
        }
    }
    rules.ask_each(view, &mut |ask| {
        for &from in &boxes {
            for unit in view.state.units_at(from) {
                if view.state.unit(unit).side == b.firing
                    && view.module.units.get(view.state.unit(unit).kind).combatant
                    && ask.ask_bool(Question::MayReinforce { unit })?
                {
                    out.push(unit);
                }
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// Enemy units `shooter` may name as its target, as the rules allow. If the rules allow
/// none, the shooter may name any enemy (it must fire at someone, 5.1).
fn targets(
    view: View<'_>,
    rules: &mut dyn Rules,
    b: &Battle,
    shooter: UnitId,
) -> Result<Vec<UnitId>, RuleError> {
    let enemies = b.own(b.enemy_of(b.firing)).clone();
    let mut out = Vec::new();
    rules.ask_each(view, &mut |ask| {
        for &target in &enemies {
            if ask.ask_bool(Question::MayTarget { shooter, target })? {
                out.push(target);
            }
        }
        Ok(())
    })?;
    Ok(if out.is_empty() { enemies } else { out })
}

pub(crate) fn apply(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    action: &Action,
) -> Result<Vec<String>, ActionError> {
    let Some(combat) = state.combat.clone() else {
        return Err(illegal("there is no Combat segment under way"));
    };
    let Some(b) = combat.battle else {
        let Action::Fight { at } = action else {
            return Err(illegal("choose the next battle first"));
        };
        if !pending(module, state).contains(at) {
            return Err(illegal("there is no battle to fight there"));
        }
        return start_battle(module, rules, state, *at);
    };
    if let (Stage::Losses, Action::Lose { unit }) = (b.stage, action)
        && let Some(why) = lose_refusal(module, state, &b, *unit)
    {
        return Err(illegal(why));
    }
    if !allows(module, rules, state, &b, action)? {
        return Err(illegal(format!(
            "{action:?} is not possible in this battle now"
        )));
    }
    let mut b = b;
    let mut log = Vec::new();
    match (b.stage, action) {
        (Stage::Losses, Action::Lose { unit }) => {
            return take_loss(module, rules, state, b, *unit);
        }
        (Stage::Losses, Action::Absorb) => {
            return take_absorbed(module, rules, state, b);
        }
        (Stage::Rout, Action::Retreat { to }) => {
            let side = b.firing;
            log.push(format!(
                "{} retreats from {} to {}",
                module.side(side).name,
                module.board.get(b.at).name,
                module.board.get(*to).name
            ));
            let leaving = side_pieces(module, state, &b, side);
            state.move_pieces(&leaving, *to);
            b.own_mut(side).clear();
            let winner = b.winner;
            return end_battle(module, rules, state, b, winner, log);
        }
        (Stage::Withdraw, Action::Retreat { to }) if by_rules(module, state) => {
            let side = b.decider();
            log.push(format!(
                "{} withdraws from {} to {}",
                module.side(side).name,
                module.board.get(b.at).name,
                module.board.get(*to).name
            ));
            let leaving = side_pieces(module, state, &b, side);
            state.move_pieces(&leaving, *to);
            b.own_mut(side).clear();
            let log = end_battle(module, rules, state, b, None, log)?;
            super::activation::resume_after_withdrawal(state);
            return Ok(log);
        }
        (Stage::Withdraw, Action::Pass) if by_rules(module, state) => {
            return resolve(module, rules, state, b);
        }
        (Stage::Withdraw | Stage::Retreat, Action::Retreat { to }) => {
            let side = b.decider();
            let adjacent = module.board.neighbours(b.at).iter().any(|&(n, _)| n == *to);
            let word = match (b.stage == Stage::Withdraw, adjacent) {
                (_, false) => "evacuate",
                (true, true) => "withdraw",
                (false, true) => "retreat",
            };
            log.push(format!(
                "{} {word}s from {} to {}",
                module.side(side).name,
                module.board.get(b.at).name,
                module.board.get(*to).name
            ));
            state.move_pieces(b.own(side), *to);
            if b.stage == Stage::Withdraw {
                // 5.6: withdrawing is not losing; the attackers hold the box unopposed.
                b.own_mut(side).clear();
                return end_battle(module, rules, state, b, None, log);
            }
            b.own_mut(side).clear();
            let winner = b.enemy_of(side);
            return end_battle(module, rules, state, b, Some(winner), log);
        }
        (Stage::Withdraw, Action::Pass) => {
            b.stage = Stage::Target;
            b.firing = b.defender;
            if options(module, state).casualties == Casualties::Owner {
                return ready(module, rules, state, b, log);
            }
        }
        (Stage::Retreat, Action::Pass) => {
            if options(module, state).no_reinforcement {
                return ready(module, rules, state, b, log);
            }
            b.stage = Stage::Reinforce;
        }
        (Stage::Reinforce, Action::Reinforce { unit }) => {
            let Place::Board(from) = state.unit(*unit).place else {
                return Err(illegal("that unit is not on the board"));
            };
            b.reinforced_from.push(from);
            if b.firing == b.attacker && !b.entered_from.contains(&from) {
                b.entered_from.push(from);
            }
            state.move_piece(*unit, b.at);
            let firing = b.firing;
            b.own_mut(firing).push(*unit);
            if !state.turn_log.fought.contains(unit) {
                state.turn_log.fought.push(*unit);
            }
            log.push(format!(
                "{} reinforces from {}",
                module.units.get(state.unit(*unit).kind).name,
                module.board.get(from).name
            ));
            store(state, b.clone());
            log.extend(notify(
                module,
                rules,
                state,
                Event::UnitReinforced { unit: *unit, from },
            )?);
            return Ok(log);
        }
        (Stage::Reinforce, Action::Pass) => return ready(module, rules, state, b, log),
        (Stage::Target, Action::Target { shooter, target }) => {
            b.shots.push((*shooter, *target));
        }
        (Stage::Upgrade, Action::Upgrade { unit }) => {
            log.extend(upgrade::upgrade(module, state, *unit)?);
            return close_battle(module, rules, state, b, log);
        }
        (Stage::Upgrade, Action::Pass) => return close_battle(module, rules, state, b, log),
        _ => {
            return Err(illegal(format!(
                "{action:?} is not possible in this battle now"
            )));
        }
    }
    store(state, b.clone());
    // Once every unit has named its target, the part is fired.
    if b.stage == Stage::Target && b.unassigned().next().is_none() {
        log.extend(fire(module, rules, state, b)?);
    }
    Ok(log)
}

/// `unit` of `side`, named `name`, is eliminated in the battle: off the board and out of
/// its side's list. The rules see the battle as it is now, for this event and the next
/// questions.
fn eliminate(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    b: &mut Battle,
    side: SideId,
    unit: UnitId,
    name: &str,
) -> Result<Vec<String>, ActionError> {
    state.eliminate(module, unit);
    b.own_mut(side).retain(|&x| x != unit);
    store(state, b.clone());
    let mut log = vec![format!("{name} is eliminated")];
    log.extend(notify(
        module,
        rules,
        state,
        Event::UnitEliminated { unit },
    )?);
    Ok(log)
}

fn store(state: &mut GameState, b: Battle) {
    if let Some(c) = state.combat.as_mut() {
        c.battle = Some(b);
    }
}

fn start_battle(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    at: BoxId,
) -> Result<Vec<String>, ActionError> {
    let attacker = state.active_side(module);
    let mut attackers = Vec::new();
    let mut defenders = Vec::new();
    let mut defender = None;
    for u in state.units_at(at) {
        if !module.units.get(state.unit(u).kind).combatant {
            continue;
        }
        let side = state.unit(u).side;
        if side == attacker {
            attackers.push(u);
        } else {
            defenders.push(u);
            defender.get_or_insert(side);
        }
    }
    let Some(defender) = defender else {
        return Err(illegal("there is no enemy there"));
    };
    let entries = attackers
        .iter()
        .map(|&u| {
            let entry = state
                .turn_log
                .moves
                .iter()
                .rev()
                .find(|m| m.unit == u)
                .filter(|m| m.to() == at)
                .map(|m| m.path.last_line());
            (u, entry)
        })
        .collect();
    // 5.4: where the attackers came from, by land (sea invaders came from no box).
    let mut entered_from: Vec<BoxId> = Vec::new();
    for &u in &attackers {
        let last = state
            .turn_log
            .moves
            .iter()
            .rev()
            .find(|m| m.unit == u)
            .filter(|m| m.to() == at);
        if let Some(m) = last.filter(|m| m.relocated_to.is_none()) {
            let n = m.path.steps.len();
            let from = if n >= 2 {
                m.path.steps[n - 2].to
            } else {
                m.path.from
            };
            if !entered_from.contains(&from) {
                entered_from.push(from);
            }
        }
    }
    for &u in attackers.iter().chain(&defenders) {
        if !state.turn_log.fought.contains(&u) {
            state.turn_log.fought.push(u);
        }
    }
    let mut b = Battle {
        at,
        attacker,
        defender,
        round: 1,
        firing: defender,
        stage: Stage::Target,
        attackers,
        defenders,
        entries,
        entered_from,
        shots: Vec::new(),
        reinforced_from: Vec::new(),
        winner: None,
        could_hit: false,
        owed: Vec::new(),
    };
    let mut log = vec![format!(
        "battle at {}: {} attacks {}",
        module.board.get(at).name,
        module.side(attacker).name,
        module.side(defender).name
    )];
    store(state, b.clone());
    log.extend(notify(module, rules, state, Event::BattleStarted { at })?);
    let opts = options(module, state);
    if !opts.no_withdrawal && ask_bool(rules, View { module, state }, Question::MayWithdraw)? {
        b.stage = Stage::Withdraw;
    } else if by_rules(module, state) {
        log.extend(resolve(module, rules, state, b)?);
        return Ok(log);
    } else if opts.casualties == Casualties::Owner {
        return ready(module, rules, state, b, log);
    }
    store(state, b);
    Ok(log)
}

/// Resolves the battle under way in `state` by the rules from its start, whatever
/// stage it is at (the odds calculator's way into a battle it set up itself): the
/// rules' losses, then the first side to take them.
pub fn resolve_under_way(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    let Some(mut b) = state.combat.as_ref().and_then(|c| c.battle.clone()) else {
        return Err(illegal("there is no battle under way"));
    };
    b.owed.clear();
    b.winner = None;
    b.shots.clear();
    resolve(module, rules, state, b)
}

/// Opens a battle by dice set up by hand at the start of round 1 (the odds calculator's
/// positions, stage `Target` with no shot announced) where the module's casualties are
/// chosen by their owner: no one decides before the first volley, so it is rolled now.
/// Nothing to do where shots name their targets.
pub fn open_under_way(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    let Some(b) = state.combat.as_ref().and_then(|c| c.battle.clone()) else {
        return Err(illegal("there is no battle under way"));
    };
    if options(module, state).casualties != Casualties::Owner
        || b.stage != Stage::Target
        || !b.shots.is_empty()
    {
        return Ok(Vec::new());
    }
    ready(module, rules, state, b, Vec::new())
}

/// Every piece of `side` in the battle's box, fighting or not (a leader goes with his
/// army when it withdraws or retreats from a battle the rules resolve).
fn side_pieces(module: &Module, state: &GameState, b: &Battle, side: SideId) -> Vec<UnitId> {
    let mut out = b.own(side).clone();
    for u in state.units_at(b.at) {
        if state.unit(u).side == side && !out.contains(&u) {
            out.push(u);
        }
    }
    let _ = module;
    out
}

/// Steps `side`'s pieces in the battle can still lose.
fn steps_left(module: &Module, state: &GameState, b: &Battle, side: SideId) -> u32 {
    b.own(side)
        .iter()
        .map(|&u| {
            let unit = state.unit(u);
            u32::from(module.units.get(unit.kind).steps.saturating_sub(unit.hits))
        })
        .sum()
}

/// A battle the rules resolve, once no one withdrew: the rules' losses, checked and
/// stored, then the first side to take them (the defender's first).
fn resolve(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
) -> Result<Vec<String>, ActionError> {
    store(state, b.clone());
    let losses = rules.battle_losses(View { module, state })?;
    let mut owed: Vec<Loss> = Vec::new();
    for l in losses {
        if l.side != b.attacker && l.side != b.defender {
            return Err(illegal(format!(
                "battle_losses names {}, which does not fight at {}",
                module.side(l.side).name,
                module.board.get(b.at).name
            )));
        }
        if let Some(u) = l.unit
            && !b.own(l.side).contains(&u)
        {
            return Err(illegal(format!(
                "battle_losses names {}, which is not one of {}'s pieces in the battle",
                super::describe::unit(module, state, u),
                module.side(l.side).name
            )));
        }
        match owed
            .iter_mut()
            .find(|x| x.side == l.side && x.unit == l.unit)
        {
            Some(x) => {
                x.steps = x.steps.saturating_add(l.steps);
                if x.rule.is_empty() {
                    x.rule = l.rule;
                }
            }
            None => owed.push(l),
        }
    }
    let mut log = Vec::new();
    for side in [b.defender, b.attacker] {
        // A piece's forced steps are part of its side's losses: the side loses at
        // least as many as its pieces must.
        let forced: u32 = owed
            .iter()
            .filter(|l| l.side == side && l.unit.is_some())
            .map(|l| l.steps)
            .sum();
        let total = match owed.iter().position(|l| l.side == side && l.unit.is_none()) {
            Some(i) => {
                owed[i].steps = owed[i].steps.max(forced);
                owed[i].steps
            }
            None => {
                owed.push(Loss {
                    side,
                    unit: None,
                    steps: forced,
                    rule: String::new(),
                });
                forced
            }
        };
        let can = steps_left(module, state, &b, side);
        let name = &module.side(side).name;
        let rule = owed
            .iter()
            .find(|l| l.side == side && l.unit.is_none())
            .map(|l| l.rule.as_str())
            .filter(|r| !r.is_empty())
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        log.push(format!(
            "{name} loses {total} step{}{rule}",
            if total == 1 { "" } else { "s" }
        ));
        if total > can {
            log.push(format!(
                "{name} has only {can} step{} to lose: {} cannot be taken",
                if can == 1 { "" } else { "s" },
                total - can
            ));
            if let Some(l) = owed.iter_mut().find(|l| l.side == side && l.unit.is_none()) {
                l.steps = can;
            }
        }
    }
    owed.retain(|l| l.steps > 0);
    b.owed = owed;
    log.extend(next_loser(module, rules, state, b)?);
    Ok(log)
}

/// The next side to take its losses (the defender's first), or the decision once both
/// have.
fn next_loser(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
) -> Result<Vec<String>, ActionError> {
    for side in [b.defender, b.attacker] {
        if b.owed(side) > 0 && steps_left(module, state, &b, side) > 0 {
            b.stage = Stage::Losses;
            b.firing = side;
            store(state, b);
            return Ok(Vec::new());
        }
    }
    b.owed.clear();
    if by_rules(module, state) {
        return decide(module, rules, state, b);
    }
    losses_taken(module, rules, state, b)
}

/// One lost step off `unit` (checked by the caller), and the battle moved on.
fn take_loss(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
    unit: UnitId,
) -> Result<Vec<String>, ActionError> {
    let side = b.firing;
    let name = super::describe::unit(module, state, unit);
    for l in &mut b.owed {
        if l.side == side && (l.unit.is_none() || l.unit == Some(unit)) {
            l.steps = l.steps.saturating_sub(1);
        }
    }
    let left = b.owed(side);
    let mut log = vec![format!(
        "{name} loses a step ({left} more for {} to take)",
        module.side(side).name
    )];
    let steps = module.units.get(state.unit(unit).kind).steps;
    let u = &mut state.units[unit.index()];
    u.hits += 1;
    if u.hits >= steps {
        log.extend(eliminate(module, rules, state, &mut b, side, unit, &name)?);
    }
    b.owed.retain(|l| l.steps > 0);
    log.extend(loss_taken(module, rules, state, b, side)?);
    Ok(log)
}

/// After one of `side`'s lost steps: the side takes its next, or the battle moves on.
fn loss_taken(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
    side: SideId,
) -> Result<Vec<String>, ActionError> {
    if b.owed(side) > 0 && steps_left(module, state, &b, side) > 0 {
        store(state, b);
        return Ok(Vec::new());
    }
    b.owed.retain(|l| l.side != side);
    next_loser(module, rules, state, b)
}

/// The (shooter, target) the rules' `absorbs_hit` and `hit_absorbed` are given when
/// the side taking its losses (`b.firing`) may absorb one: the enemy's first piece
/// still in the battle (the side's own first if the enemy has none left) and the
/// side's first. By the question's contract the answer depends on neither.
pub fn absorb_pair(b: &Battle) -> Option<(UnitId, UnitId)> {
    let target = *b.own(b.firing).first()?;
    let shooter = b
        .own(b.enemy_of(b.firing))
        .first()
        .copied()
        .unwrap_or(target);
    Some((shooter, target))
}

/// Whether the side taking its losses in a battle by dice may have the next absorbed
/// (`Absorb`): the rules' `absorbs_hit`. Not in a battle the rules resolve, whose
/// losses are the rules' table's.
fn may_absorb(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    b: &Battle,
) -> Result<bool, RuleError> {
    if by_rules(module, state) || b.owed(b.firing) == 0 {
        return Ok(false);
    }
    let Some((shooter, target)) = absorb_pair(b) else {
        return Ok(false);
    };
    ask_bool(
        rules,
        View { module, state },
        Question::AbsorbsHit { shooter, target },
    )
}

/// One lost step absorbed (checked by the caller): the rules' `hit_absorbed` pays for
/// it, and the battle moves on.
fn take_absorbed(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
) -> Result<Vec<String>, ActionError> {
    let side = b.firing;
    let Some((shooter, target)) = absorb_pair(&b) else {
        return Err(illegal("there is no piece to absorb a hit for"));
    };
    if let Some(l) = b
        .owed
        .iter_mut()
        .find(|l| l.side == side && l.unit.is_none())
    {
        l.steps = l.steps.saturating_sub(1);
    }
    b.owed.retain(|l| l.steps > 0);
    let mut log = vec![format!(
        "{} has a hit absorbed ({} more to take)",
        module.side(side).name,
        b.owed(side)
    )];
    store(state, b.clone());
    log.extend(notify(
        module,
        rules,
        state,
        Event::HitAbsorbed { shooter, target },
    )?);
    log.extend(loss_taken(module, rules, state, b, side)?);
    Ok(log)
}

/// Both sides' losses taken: a side with nothing left loses; else the rules say who
/// yields the field (`yields`, the attacker asked first). The side that yields
/// retreats, or is eliminated if the rules leave it nowhere to go.
fn decide(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
) -> Result<Vec<String>, ActionError> {
    let mut log = Vec::new();
    let winner = match (b.attackers.is_empty(), b.defenders.is_empty()) {
        (false, true) => Some(b.attacker),
        (true, false) => Some(b.defender),
        (true, true) => None,
        (false, false) => {
            store(state, b.clone());
            let view = View { module, state };
            let loser = if ask_bool(rules, view, Question::Yields { side: b.attacker })? {
                Some(b.attacker)
            } else if ask_bool(rules, view, Question::Yields { side: b.defender })? {
                Some(b.defender)
            } else {
                None
            };
            let Some(loser) = loser else {
                log.push(format!(
                    "neither side yields the field at {}",
                    module.board.get(b.at).name
                ));
                return end_battle(module, rules, state, b, None, log);
            };
            let winner = b.enemy_of(loser);
            b.winner = Some(winner);
            b.firing = loser;
            b.stage = Stage::Rout;
            store(state, b.clone());
            if !retreat_options(View { module, state }, rules, &b, loser)?.is_empty() {
                return Ok(log);
            }
            log.push(format!(
                "{} has nowhere to retreat: its pieces at {} are eliminated",
                module.side(loser).name,
                module.board.get(b.at).name
            ));
            for unit in b.own(loser).clone() {
                let name = super::describe::unit(module, state, unit);
                log.extend(eliminate(module, rules, state, &mut b, loser, unit, &name)?);
            }
            Some(winner)
        }
    };
    end_battle(module, rules, state, b, winner, log)
}

/// Rolls the shots announced in the current part, applies hits, and moves the battle on.
fn fire(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
) -> Result<Vec<String>, ActionError> {
    let mut log = Vec::new();
    let shots = std::mem::take(&mut b.shots);
    for (shooter, target) in shots {
        shoot(module, rules, state, &mut b, shooter, target, &mut log)?;
    }
    log.extend(next_part(module, rules, state, b)?);
    Ok(log)
}

/// One announced shot, resolved: rolled if it can hit, and a hit the rules do not absorb
/// costs the target a step (5.1: the shots of a part are resolved one by one).
fn shoot(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    b: &mut Battle,
    shooter: UnitId,
    target: UnitId,
    log: &mut Vec<String>,
) -> Result<(), ActionError> {
    // Each piece by its number, as the announced shots name them, so a player reading
    // the results knows which of several alike pieces was hit.
    let shooter_name = super::describe::unit(module, state, shooter);
    if !b.own(b.enemy_of(b.firing)).contains(&target) {
        log.push(format!(
            "{shooter_name}'s shot is wasted: its target is gone"
        ));
        return Ok(());
    }
    let view = View { module, state };
    let modifier = ask_int(rules, view, Question::ShotModifier { shooter, target })?.unwrap_or(0);
    let value = i64::from(module.units.get(state.unit(shooter).kind).combat) + modifier;
    let target_name = super::describe::unit(module, state, target);
    if value < 1 {
        log.push(format!(
            "{shooter_name} fires at {target_name}: impossible shot"
        ));
        return Ok(());
    }
    b.could_hit = true;
    let roll = state
        .dice
        .roll(module.dice)
        .map_err(|e| illegal(e.to_string()))?;
    let hit = i64::from(roll) <= value;
    log.push(format!(
        "{shooter_name} fires at {target_name} needing {value} or less: rolls {roll}, {}",
        if hit { "hit" } else { "miss" }
    ));
    if !hit {
        return Ok(());
    }
    if ask_bool(
        rules,
        View { module, state },
        Question::AbsorbsHit { shooter, target },
    )? {
        log.push(format!("the hit on {target_name} is absorbed"));
        log.extend(notify(
            module,
            rules,
            state,
            Event::HitAbsorbed { shooter, target },
        )?);
        return Ok(());
    }
    let steps = module.units.get(state.unit(target).kind).steps;
    let u = &mut state.units[target.index()];
    u.hits += 1;
    if u.hits >= steps {
        let enemy = b.enemy_of(b.firing);
        log.extend(eliminate(
            module,
            rules,
            state,
            b,
            enemy,
            target,
            &target_name,
        )?);
    }
    Ok(())
}

/// After a part's shots: the battle is won if the enemy has no unit left, else the next
/// part begins (the attacker's, or the defender's in the next round unless the round
/// limit or a stalemate ends the battle undecided).
fn next_part(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
) -> Result<Vec<String>, ActionError> {
    let mut log = Vec::new();
    if b.own(b.enemy_of(b.firing)).is_empty() {
        let winner = b.firing;
        return end_battle(module, rules, state, b, Some(winner), log);
    }
    if b.firing == b.defender {
        b.firing = b.attacker;
    } else {
        if let Some(why) = round_limit(module, state, &b).or(stalemate(module, rules, state, &b)?) {
            log.push(format!(
                "the battle at {} ends undecided: {why}",
                module.board.get(b.at).name
            ));
            log.extend(end_battle(module, rules, state, b, None, Vec::new())?);
            return Ok(log);
        }
        b.firing = b.defender;
        b.round = b.round.saturating_add(1);
        b.could_hit = false;
    }
    part_start(module, rules, state, b, log)
}

/// The firing side's part begins: from round 2 it may retreat (if the module lets that
/// side) and reinforce (if the module has reinforcements), then it fires.
fn part_start(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
    log: Vec<String>,
) -> Result<Vec<String>, ActionError> {
    let opts = options(module, state);
    b.reinforced_from.clear();
    b.stage = if b.round < 2 {
        Stage::Target
    } else if opts.may_retreat(b.firing == b.attacker) {
        Stage::Retreat
    } else if !opts.no_reinforcement {
        Stage::Reinforce
    } else {
        Stage::Target
    };
    if b.stage == Stage::Target && opts.casualties == Casualties::Owner {
        return ready(module, rules, state, b, log);
    }
    store(state, b);
    Ok(log)
}

/// The firing side's preliminaries are over: where shots name targets it names them
/// now (`Target`); where the owner chooses his casualties it rolls at once (alternate
/// fire), or, simultaneous, the attacker's preliminaries come next and then both sides
/// roll, the defender's dice first. Then the sides hit take their losses (`Lose`).
fn ready(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
    mut log: Vec<String>,
) -> Result<Vec<String>, ActionError> {
    let opts = options(module, state);
    if opts.casualties == Casualties::Shooter {
        b.stage = Stage::Target;
        store(state, b);
        return Ok(log);
    }
    if opts.fire == Fire::Simultaneous {
        if b.firing == b.defender {
            b.firing = b.attacker;
            if b.round >= 2 {
                return part_start(module, rules, state, b, log);
            }
        }
        log.push(format!("round {}: both sides fire at once", b.round));
        for side in [b.defender, b.attacker] {
            volley(module, rules, state, &mut b, side, &mut log)?;
        }
    } else {
        let side = b.firing;
        volley(module, rules, state, &mut b, side, &mut log)?;
    }
    b.stage = Stage::Target;
    for side in [b.defender, b.attacker] {
        let owed = b.owed(side);
        if owed > 0 {
            let can = steps_left(module, state, &b, side);
            let name = &module.side(side).name;
            log.push(format!(
                "{name} must lose {owed} step{}",
                if owed == 1 { "" } else { "s" }
            ));
            if owed > can {
                log.push(format!(
                    "{name} has only {can} step{} to lose: {} cannot be taken",
                    if can == 1 { "" } else { "s" },
                    owed - can
                ));
            }
        }
    }
    log.extend(next_loser(module, rules, state, b)?);
    Ok(log)
}

/// `side`'s units each roll once, in the order they joined, at no one in particular
/// (the side hit chooses its losses): the rules' `shot_modifier` is asked with the
/// enemy's first piece as the target. Each hit is a step the enemy owes; whether one
/// is absorbed is the enemy's choice when it takes them (`Absorb`).
fn volley(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    b: &mut Battle,
    side: SideId,
    log: &mut Vec<String>,
) -> Result<(), ActionError> {
    let enemy = b.enemy_of(side);
    let Some(&target) = b.own(enemy).first() else {
        return Ok(());
    };
    log.push(format!("{} fires", module.side(side).name));
    let firing = b.firing;
    b.firing = side;
    store(state, b.clone());
    for shooter in b.own(side).clone() {
        let name = super::describe::unit(module, state, shooter);
        let view = View { module, state };
        let modifier =
            ask_int(rules, view, Question::ShotModifier { shooter, target })?.unwrap_or(0);
        let value = i64::from(module.units.get(state.unit(shooter).kind).combat) + modifier;
        if value < 1 {
            log.push(format!("{name} cannot hit"));
            continue;
        }
        b.could_hit = true;
        let roll = state
            .dice
            .roll(module.dice)
            .map_err(|e| illegal(e.to_string()))?;
        let hit = i64::from(roll) <= value;
        log.push(format!(
            "{name} fires needing {value} or less: rolls {roll}, {}",
            if hit { "hit" } else { "miss" }
        ));
        if !hit {
            continue;
        }
        match b
            .owed
            .iter_mut()
            .find(|l| l.side == enemy && l.unit.is_none())
        {
            Some(l) => l.steps += 1,
            None => b.owed.push(Loss {
                side: enemy,
                unit: None,
                steps: 1,
                rule: String::new(),
            }),
        }
        store(state, b.clone());
    }
    b.firing = firing;
    store(state, b.clone());
    Ok(())
}

/// Casualties chosen by their owner are all taken: with simultaneous fire the round is
/// over; otherwise the part of the side that fired is (the side that did not just
/// take losses).
fn losses_taken(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
) -> Result<Vec<String>, ActionError> {
    if options(module, state).fire == Fire::Simultaneous {
        return round_over(module, rules, state, b);
    }
    if b.stage == Stage::Losses {
        b.firing = b.enemy_of(b.firing);
    }
    next_part(module, rules, state, b)
}

/// The end of a round of simultaneous fire: a side with no piece left loses (both
/// gone: no winner), else the round limit or a stalemate ends the battle undecided,
/// else the next round begins with the defender's part.
fn round_over(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
) -> Result<Vec<String>, ActionError> {
    let mut log = Vec::new();
    match (b.attackers.is_empty(), b.defenders.is_empty()) {
        (true, true) => {
            log.push(format!(
                "both sides are eliminated at {}",
                module.board.get(b.at).name
            ));
            return end_battle(module, rules, state, b, None, log);
        }
        (false, true) => {
            let w = b.attacker;
            return end_battle(module, rules, state, b, Some(w), log);
        }
        (true, false) => {
            let w = b.defender;
            return end_battle(module, rules, state, b, Some(w), log);
        }
        (false, false) => {}
    }
    if let Some(why) = round_limit(module, state, &b).or(stalemate(module, rules, state, &b)?) {
        log.push(format!(
            "the battle at {} ends undecided: {why}",
            module.board.get(b.at).name
        ));
        log.extend(end_battle(module, rules, state, b, None, Vec::new())?);
        return Ok(log);
    }
    b.firing = b.defender;
    b.round = b.round.saturating_add(1);
    b.could_hit = false;
    part_start(module, rules, state, b, log)
}

/// The module's round limit (`max-rounds` on the `battles` step), if this round was the
/// last.
fn round_limit(module: &Module, state: &GameState, b: &Battle) -> Option<String> {
    let limit = state.current_step(module)?.max_rounds?;
    (b.round >= limit).then(|| format!("{limit} rounds were fought"))
}

/// Every battle must end (AHD 5.0 assumes a side is eliminated or retreats). If, from
/// round 2 on (when sides may retreat and reinforce), no shot announced in a whole round
/// could hit, and no unit of either side could hit any enemy now whatever its target,
/// the next rounds could change nothing but by a retreat or a reinforcement the players
/// need not choose, so the battle ends with no winner: both sides stay. The rules' own
/// `shot_modifier` decides what can hit, so this is the module's answer, asked only
/// when a round had no possible shot.
fn stalemate(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    b: &Battle,
) -> Result<Option<String>, ActionError> {
    if b.could_hit || b.round < 2 {
        return Ok(None);
    }
    // Asked as of the next round's parts, so round-dependent modifiers count (AHD 5.34).
    let mut next = state.clone();
    let mut nb = b.clone();
    nb.round = nb.round.saturating_add(1);
    for side in [b.defender, b.attacker] {
        nb.firing = side;
        store(&mut next, nb.clone());
        let view = View {
            module,
            state: &next,
        };
        for &shooter in nb.own(side) {
            let combat = i64::from(module.units.get(next.unit(shooter).kind).combat);
            for &target in nb.own(nb.enemy_of(side)) {
                let modifier =
                    ask_int(rules, view, Question::ShotModifier { shooter, target })?.unwrap_or(0);
                if combat + modifier >= 1 {
                    return Ok(None);
                }
            }
        }
    }
    Ok(Some("neither side can hit the other".into()))
}

fn end_battle(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    mut b: Battle,
    winner: Option<SideId>,
    mut log: Vec<String>,
) -> Result<Vec<String>, ActionError> {
    b.winner = winner;
    if let Some(w) = winner {
        log.push(format!(
            "{} wins the battle at {}",
            module.side(w).name,
            module.board.get(b.at).name
        ));
    }
    store(state, b.clone());
    log.extend(notify(
        module,
        rules,
        state,
        Event::BattleEnded { at: b.at, winner },
    )?);
    // 6.0: the winner may promote one surviving unit that took part.
    if let Some(w) = winner {
        let view = View { module, state };
        let mut any = false;
        for &u in b.own(w) {
            if upgrade::can_upgrade(view, rules, u)? {
                any = true;
                break;
            }
        }
        if any {
            b.stage = Stage::Upgrade;
            store(state, b);
            return Ok(log);
        }
    }
    close_battle(module, rules, state, b, log)
}

fn close_battle(
    _module: &Module,
    _rules: &mut dyn Rules,
    state: &mut GameState,
    b: Battle,
    log: Vec<String>,
) -> Result<Vec<String>, ActionError> {
    if let Some(c) = state.combat.as_mut() {
        c.fought_at.push(b.at);
        c.battle = None;
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Answer, Command, Dice};
    use crate::load_module;

    /// Every shot hits; records, whenever the rules are consulted during a part, how
    /// many units the battle still lists that are no longer in the battle box.
    #[derive(Default)]
    struct Recorder {
        stale: Vec<usize>,
    }

    fn stale(view: View<'_>) -> usize {
        let b = view.state.combat.as_ref().and_then(|c| c.battle.as_ref());
        b.map_or(0, |b| {
            b.attackers
                .iter()
                .chain(&b.defenders)
                .filter(|&&u| view.state.unit(u).place != Place::Board(b.at))
                .count()
        })
    }

    impl Rules for Recorder {
        fn ask(&mut self, view: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
            Ok(match q {
                Question::ShotModifier { .. } => {
                    self.stale.push(stale(view));
                    Answer::Int(10)
                }
                Question::MayTarget { .. } => Answer::Bool(true),
                _ => Answer::Bool(false),
            })
        }
        fn notify(
            &mut self,
            view: View<'_>,
            _: &mut Dice,
            e: Event<'_>,
        ) -> Result<Vec<Command>, RuleError> {
            if let Event::UnitEliminated { .. } = e {
                self.stale.push(stale(view));
            }
            Ok(Vec::new())
        }
    }

    /// Within one part, a unit eliminated by one shot is out of the battle's lists before
    /// the rules are asked about the next shot or told of the elimination (5.1: the
    /// shots of a part are resolved one by one).
    #[test]
    fn the_rules_never_see_an_eliminated_unit_still_in_the_battle() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
        let m = load_module(dir).unwrap();
        let mut g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(7)).unwrap();
        let sides: Vec<SideId> = m.side_ids().collect();
        let (north, south) = (sides[0], sides[1]);
        let at = BoxId(0);
        let mut of = |side: SideId, n: usize| -> Vec<UnitId> {
            let units: Vec<UnitId> = g
                .unit_ids()
                .filter(|&u| g.unit(u).side == side)
                .take(n)
                .collect();
            assert_eq!(units.len(), n, "the fixture has the units");
            for &u in &units {
                let steps = m.units.get(g.unit(u).kind).steps;
                let unit = &mut g.units[u.index()];
                unit.place = Place::Board(at);
                // One more hit eliminates each of them.
                unit.hits = steps - 1;
            }
            units
        };
        let attackers = of(north, 2);
        let defenders = of(south, 3);
        g.combat = Some(CombatSegment {
            fought_at: Vec::new(),
            battle: Some(Battle {
                at,
                attacker: north,
                defender: south,
                round: 1,
                firing: north,
                stage: Stage::Target,
                attackers: attackers.clone(),
                defenders: defenders.clone(),
                entries: Vec::new(),
                entered_from: Vec::new(),
                shots: vec![(attackers[0], defenders[0])],
                reinforced_from: Vec::new(),
                winner: None,
                could_hit: false,
                owed: Vec::new(),
            }),
        });
        let mut rules = Recorder::default();
        let last = Action::Target {
            shooter: attackers[1],
            target: defenders[1],
        };
        let log = apply(&m, &mut rules, &mut g, &last).unwrap();
        let eliminated = log.iter().filter(|l| l.ends_with("is eliminated")).count();
        assert_eq!(eliminated, 2, "both shots hit and eliminate: {log:?}");
        // Two shot modifiers and two eliminations were seen, none with a stale list.
        assert_eq!(rules.stale, [0, 0, 0, 0], "{log:?}");
        let b = g.combat.as_ref().and_then(|c| c.battle.as_ref()).unwrap();
        assert_eq!(b.defenders, [defenders[2]]);
    }
}
