//! The battle policy: how computer players name targets and when they retreat.
//!
//! One scoring, used twice: [`choose_target`] decides `Action::Target` in real battles
//! (its rule answers asked of the live state), and the odds simulator
//! ([`crate::odds`]) runs the same arithmetic on cached answers, so a simulated battle
//! and a played one choose identically (tested battle by battle).
//!
//! The score of aiming a shot at a target is its expected damage value: the chance the
//! shot hits (the shooter's combat value plus the rules' `ShotModifier`, on the game's
//! die) times the value of a hit, averaged over what the shots already announced at
//! that target this part will have done before this one is rolled (5.1: shots resolve
//! in announced order, and a shot at an eliminated unit is wasted). A hit's value is the
//! target's worth (its combat value + 1: removing fire matters, and even a unit that
//! cannot fire must go for the battle to be won) divided by the hits it still needs:
//! finishing a reduced unit is worth more than scratching a fresh one, since a reduced
//! unit fires as well as a full one (5.1). Ties go to the first target listed.

use std::fmt;
use std::str::FromStr;

use muster_core::Module;
use muster_core::format::ReturnsTo;
use muster_core::game::battle::{Battle, absorb_pair};
use muster_core::game::flow::react;
use muster_core::game::rules::ask_int;
use muster_core::game::{
    Action, ActionError, Event, GameState, Place, Question, RuleError, Rules, View,
};
use muster_core::ids::{SideId, UnitId};
use serde::{Deserialize, Serialize};

/// The most hits the scoring tracks for one target: a unit needing more is scored as
/// needing this many (no AHD unit has more than two steps).
const TRACKED: usize = 8;

/// Chance that one shot needing `needed` or less on a `dice`-sided die hits.
pub(crate) fn hit_chance(needed: i64, dice: u32) -> f64 {
    let faces = i64::from(dice.max(1));
    needed.clamp(0, faces) as f64 / faces as f64
}

/// What a hit on a unit of this combat value is worth before dividing by the hits it
/// still needs.
pub(crate) fn worth(combat: u8) -> f64 {
    f64::from(combat) + 1.0
}

/// The shots already announced at one target this part: the chance that they will have
/// inflicted exactly `h` hits when the next shot at it is rolled, for `h` below the hits
/// it can take (beyond that it is gone and later shots are wasted).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pressure {
    dist: [f64; TRACKED],
    remaining: usize,
}

impl Pressure {
    /// A target that can take `remaining` more hits (steps less hits), with no shot at
    /// it yet.
    pub(crate) fn new(remaining: u8) -> Self {
        let mut dist = [0.0; TRACKED];
        dist[0] = 1.0;
        Pressure {
            dist,
            remaining: usize::from(remaining).clamp(1, TRACKED),
        }
    }

    /// Adds an announced shot that hits with chance `p`. Shots must be added in their
    /// announced order for the result to be the same everywhere (floating point).
    pub(crate) fn add_shot(&mut self, p: f64) {
        let q = 1.0 - p;
        for h in (0..self.remaining).rev() {
            let below = if h > 0 { self.dist[h - 1] * p } else { 0.0 };
            self.dist[h] = self.dist[h] * q + below;
        }
    }

    /// What one more hit on this target is worth, given the shots already at it: its
    /// `worth` divided by the hits it will still need, averaged over what those shots
    /// do first (nothing, if they will have eliminated it).
    pub(crate) fn value(&self, worth: f64) -> f64 {
        let mut per_hit = 0.0;
        for h in 0..self.remaining {
            per_hit += self.dist[h] / (self.remaining - h) as f64;
        }
        worth * per_hit
    }
}

/// The expected damage value of a shot hitting with chance `p` at a target whose hit is
/// worth `value` ([`Pressure::value`]). One formula for the policy and the simulator,
/// so both compute the same floating-point numbers.
pub(crate) fn score(p: f64, value: f64) -> f64 {
    p * value
}

/// Whether `score` beats the best so far: strictly better only, so ties keep the first.
pub(crate) fn better(score: f64, best: Option<f64>) -> bool {
    best.is_none_or(|b| score > b)
}

fn no_choice(message: &str) -> RuleError {
    RuleError {
        hook: "choose_target".into(),
        message: message.into(),
    }
}

/// The battle under way in `state`, if any.
pub(crate) fn battle_of(state: &GameState) -> Option<&Battle> {
    state.combat.as_ref()?.battle.as_ref()
}

/// The roll each of `shots` (shooter, target) needs to hit in the battle under way: the
/// shooter's combat value plus the rules' `ShotModifier`, asked of `state` as it stands
/// (whose part of the round it is included). Asked in one session of the rules
/// ([`Rules::ask_each`]): a planner weighs many shots at once, and a session opens the
/// rules' view of the position once for all of them.
pub(crate) fn shots_need(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    shots: &[(UnitId, UnitId)],
) -> Result<Vec<i64>, RuleError> {
    let mut out = Vec::with_capacity(shots.len());
    rules.ask_each(View { module, state }, &mut |ask| {
        for &(shooter, target) in shots {
            let modifier = ask
                .ask_int(Question::ShotModifier { shooter, target })?
                .unwrap_or(0);
            out.push(i64::from(module.units.get(state.unit(shooter).kind).combat) + modifier);
        }
        Ok(())
    })?;
    Ok(out)
}

/// The target a computer player names for `shooter` in the battle under way: the one of
/// `legal` (the targets `legal_actions` lists for that shooter, in their order) with the
/// highest expected damage value (see the module's doc); ties go to the first listed.
/// Deterministic. Asks the rules' `shot_modifier` for this shooter and for the shots
/// already announced; an error if `legal` is empty or there is no battle.
pub fn choose_target(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    shooter: UnitId,
    legal: &[UnitId],
) -> Result<UnitId, RuleError> {
    let Some(&first) = legal.first() else {
        return Err(no_choice("there is no target to choose from"));
    };
    let Some(b) = battle_of(state) else {
        return Err(no_choice("there is no battle under way"));
    };
    // Every shot the scoring reads, in the order it reads them, asked at once.
    let mut shots = Vec::new();
    for &target in legal {
        shots.extend(b.shots.iter().filter(|&&(_, t)| t == target));
        shots.push((shooter, target));
    }
    let mut needs = shots_need(module, rules, state, &shots)?.into_iter();
    let mut needed = || {
        needs
            .next()
            .ok_or_else(|| no_choice("a shot's roll was not asked"))
    };
    let mut best: Option<(UnitId, f64)> = None;
    for &target in legal {
        let unit = state.unit(target);
        let kind = module.units.get(unit.kind);
        let mut pressure = Pressure::new(kind.steps.saturating_sub(unit.hits));
        for &(_, t) in &b.shots {
            if t == target {
                pressure.add_shot(hit_chance(needed()?, module.dice));
            }
        }
        let p = hit_chance(needed()?, module.dice);
        let value = score(p, pressure.value(worth(kind.combat)));
        if better(value, best.map(|(_, s)| s)) {
            best = Some((target, value));
        }
    }
    Ok(best.map_or(first, |(t, _)| t))
}

/// Which of its own pieces a side gives up for its next lost step where it chooses its
/// casualties (`casualties="owner"`): the one of lowest combat value, the first listed
/// among equals (TripleA's default order: the cheapest first). `combat` lists the
/// candidates' values in the battle's order; `None` if there is none. The odds
/// calculator takes losses by the same rule, so its battles are the engine's.
pub fn loss_choice(combat: impl IntoIterator<Item = i64>) -> Option<usize> {
    let mut best: Option<(usize, i64)> = None;
    for (i, c) in combat.into_iter().enumerate() {
        if best.is_none_or(|(_, b)| c < b) {
            best = Some((i, c));
        }
    }
    best.map(|(i, _)| i)
}

/// Whether a side taking its losses has the next absorbed (`Action::Absorb`, where the
/// rules let a hit be absorbed: TripleA's water-crossing tokens) rather than taking it
/// off its cheapest piece: yes unless absorbing lowers its fire below what losing the
/// piece leaves (the last token also raises every defender by 1: a militia goes first
/// while that is worth more). `fire_absorbed` and `fire_lost` are the side's fire after
/// each ([`fire`]); the odds calculator decides by the same rule.
pub fn prefers_absorbing(fire_absorbed: i64, fire_lost: i64) -> bool {
    fire_absorbed >= fire_lost
}

/// A side's fire in the battle under way in `state`: the sum of its pieces' shot values
/// (combat value plus the rules' `shot_modifier` at the enemy's first piece, each
/// between 0 and the die's faces); 0 if the enemy has no piece left.
pub fn fire(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    side: SideId,
) -> Result<i64, RuleError> {
    let Some(b) = state.combat.as_ref().and_then(|c| c.battle.as_ref()) else {
        return Ok(0);
    };
    let (own, enemy) = if side == b.attacker {
        (&b.attackers, &b.defenders)
    } else {
        (&b.defenders, &b.attackers)
    };
    let Some(&target) = enemy.first() else {
        return Ok(0);
    };
    let faces = i64::from(module.dice.max(1));
    let view = View { module, state };
    let mut sum = 0;
    for &shooter in own {
        let modifier =
            ask_int(rules, view, Question::ShotModifier { shooter, target })?.unwrap_or(0);
        let value = i64::from(module.units.get(state.unit(shooter).kind).combat) + modifier;
        sum += value.clamp(0, faces);
    }
    Ok(sum)
}

/// The computer players' decision in a battle by dice whose owner chooses his
/// casualties (`legal` lists the `Lose` and `Absorb` open now): the cheapest piece
/// ([`loss_choice`]), or the hit absorbed where [`prefers_absorbing`] says so, each
/// side's fire reckoned on a scratch copy (`hit_absorbed`'s commands run on one, the
/// piece's step taken on the other). `None` if `legal` offers neither.
pub fn loss_action(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    legal: &[Action],
) -> Result<Option<Action>, ActionError> {
    let units: Vec<UnitId> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Lose { unit } => Some(*unit),
            _ => None,
        })
        .collect();
    let combat = units
        .iter()
        .map(|&u| i64::from(module.units.get(state.unit(u).kind).combat));
    let cheapest = loss_choice(combat).map(|i| units[i]);
    let may_absorb = legal.contains(&Action::Absorb);
    let (Some(unit), true) = (cheapest, may_absorb) else {
        return Ok(cheapest
            .map(|unit| Action::Lose { unit })
            .or(may_absorb.then_some(Action::Absorb)));
    };
    let Some(b) = state.combat.as_ref().and_then(|c| c.battle.as_ref()) else {
        return Ok(Some(Action::Lose { unit }));
    };
    let side = b.firing;
    let Some((shooter, target)) = absorb_pair(b) else {
        return Ok(Some(Action::Lose { unit }));
    };
    let mut absorbed = state.clone();
    react(
        module,
        rules,
        &mut absorbed,
        Event::HitAbsorbed { shooter, target },
    )?;
    let mut lost = state.clone();
    let steps = module.units.get(lost.unit(unit).kind).steps;
    let returns = module.units.get(lost.unit(unit).kind).returns_to;
    let piece = &mut lost.units[unit.index()];
    piece.hits += 1;
    if piece.hits >= steps {
        piece.hits = 0;
        piece.place = match returns {
            ReturnsTo::Pool => Place::Pool,
            ReturnsTo::Stock => Place::Stock,
        };
        if let Some(lb) = lost.combat.as_mut().and_then(|c| c.battle.as_mut()) {
            lb.attackers.retain(|&u| u != unit);
            lb.defenders.retain(|&u| u != unit);
        }
    }
    let with = fire(module, rules, &absorbed, side)?;
    let without = fire(module, rules, &lost, side)?;
    Ok(Some(if prefers_absorbing(with, without) {
        Action::Absorb
    } else {
        Action::Lose { unit }
    }))
}

/// When a side leaves a battle (5.4: from round 2, before its part of the round, in
/// lieu of firing; and 5.6: a defender of only cavalry before round 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetreatPolicy {
    /// Fight to the end.
    #[default]
    Never,
    /// Fight this many rounds, then retreat at the first chance (the side's part of
    /// round N + 1, or of round 2 for N < 2). `AfterRound(0)` also withdraws before
    /// combat when 5.6 allows it: a side that wants out at once leaves at once.
    AfterRound(u8),
    /// Retreat at the first chance once the side has lost more than this (counted from
    /// the steps it had when the battle, or the simulation, began).
    LossesOver(Losses),
}

/// A loss threshold for [`RetreatPolicy::LossesOver`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Losses {
    /// Steps (hits taken, a unit eliminated counting all its remaining steps).
    Steps(u32),
    /// A fraction (0 to 1) of the steps the side began with.
    Fraction(f64),
}

impl RetreatPolicy {
    /// Whether the side retreats at its decision in `round`, having lost `lost` of the
    /// `start` steps it began with. The caller checks that the rules allow a retreat
    /// now (5.4: from round 2, somewhere to go).
    pub fn wants_retreat(&self, round: u8, lost: u32, start: u32) -> bool {
        match *self {
            RetreatPolicy::Never => false,
            RetreatPolicy::AfterRound(n) => round > n,
            RetreatPolicy::LossesOver(Losses::Steps(n)) => lost > n,
            RetreatPolicy::LossesOver(Losses::Fraction(f)) => {
                f64::from(lost) > f * f64::from(start)
            }
        }
    }

    /// Whether a defender withdraws before round 1 when 5.6 lets it: only a side that
    /// would leave at once (`AfterRound(0)`). Withdrawal is not a lost battle.
    pub fn wants_withdrawal(&self) -> bool {
        matches!(self, RetreatPolicy::AfterRound(0))
    }
}

impl fmt::Display for RetreatPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetreatPolicy::Never => write!(f, "never"),
            RetreatPolicy::AfterRound(n) => write!(f, "after:{n}"),
            RetreatPolicy::LossesOver(Losses::Steps(n)) => write!(f, "losses:{n}"),
            RetreatPolicy::LossesOver(Losses::Fraction(x)) => {
                // Rounded so that 0.1 prints as 10%, not 10.000000000000002%.
                write!(f, "losses:{}%", (x * 1e8).round() / 1e6)
            }
        }
    }
}

/// A retreat policy that does not parse; the message says what is accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a retreat policy: write never, after:N (retreat after round N), losses:N (after losing more than N steps) or losses:P% (more than P% of the starting steps)"
)]
pub struct BadPolicy(pub String);

impl FromStr for RetreatPolicy {
    type Err = BadPolicy;

    /// `never`, `after:N`, `losses:N` (steps) or `losses:P%` / `losses:0.P` (fraction).
    fn from_str(s: &str) -> Result<Self, BadPolicy> {
        let bad = || BadPolicy(s.to_string());
        let t = s.trim().to_ascii_lowercase();
        if t == "never" {
            return Ok(RetreatPolicy::Never);
        }
        let (name, value) = t.split_once([':', '=']).ok_or_else(bad)?;
        let value = value.trim();
        match name.trim() {
            "after" | "after-round" | "round" => value
                .parse()
                .map(RetreatPolicy::AfterRound)
                .map_err(|_| bad()),
            "losses" | "loss" => {
                let fraction = if let Some(p) = value.strip_suffix('%') {
                    Some(p.trim().parse::<f64>().map_err(|_| bad())? / 100.0)
                } else if value.contains('.') {
                    Some(value.parse::<f64>().map_err(|_| bad())?)
                } else {
                    None
                };
                match fraction {
                    Some(x) if (0.0..=1.0).contains(&x) => {
                        Ok(RetreatPolicy::LossesOver(Losses::Fraction(x)))
                    }
                    Some(_) => Err(bad()),
                    None => value
                        .parse()
                        .map(|n| RetreatPolicy::LossesOver(Losses::Steps(n)))
                        .map_err(|_| bad()),
                }
            }
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pressure_follows_the_announced_shots() {
        // A fresh two-step unit: a hit is worth half its worth.
        let fresh = Pressure::new(2);
        assert!((score(0.5, fresh.value(4.0)) - 1.0).abs() < 1e-12);
        // Reduced: a hit eliminates it, worth all of it.
        let reduced = Pressure::new(1);
        assert!((score(0.5, reduced.value(4.0)) - 2.0).abs() < 1e-12);
        // A sure shot already at a reduced unit: a second shot is wasted.
        let mut doomed = Pressure::new(1);
        doomed.add_shot(1.0);
        assert_eq!(doomed.value(4.0), 0.0);
        // A 50% shot already at a fresh unit: half the time it is reduced (worth 1 per
        // hit), half the time fresh (worth 1/2): 0.75 per hit.
        let mut half = Pressure::new(2);
        half.add_shot(0.5);
        assert!((half.value(1.0) - 0.75).abs() < 1e-12);
    }

    #[test]
    fn hit_chances_are_clamped_to_the_die() {
        assert_eq!(hit_chance(-1, 6), 0.0);
        assert_eq!(hit_chance(0, 6), 0.0);
        assert_eq!(hit_chance(3, 6), 0.5);
        assert_eq!(hit_chance(9, 6), 1.0);
    }

    #[test]
    fn policies_parse_print_and_decide() {
        let cases = [
            ("never", RetreatPolicy::Never),
            ("after:2", RetreatPolicy::AfterRound(2)),
            ("losses:3", RetreatPolicy::LossesOver(Losses::Steps(3))),
            (
                "losses:50%",
                RetreatPolicy::LossesOver(Losses::Fraction(0.5)),
            ),
            (
                "Losses: 0.25",
                RetreatPolicy::LossesOver(Losses::Fraction(0.25)),
            ),
        ];
        for (text, policy) in cases {
            assert_eq!(text.parse::<RetreatPolicy>(), Ok(policy), "{text}");
            assert_eq!(policy.to_string().parse::<RetreatPolicy>(), Ok(policy));
        }
        for bad in ["sometimes", "after:x", "losses:150%", "losses:-1", ""] {
            assert!(bad.parse::<RetreatPolicy>().is_err(), "{bad}");
        }
        assert!(!RetreatPolicy::AfterRound(2).wants_retreat(2, 0, 4));
        assert!(RetreatPolicy::AfterRound(2).wants_retreat(3, 0, 4));
        assert!(RetreatPolicy::LossesOver(Losses::Steps(1)).wants_retreat(2, 2, 4));
        assert!(!RetreatPolicy::LossesOver(Losses::Steps(2)).wants_retreat(2, 2, 4));
        assert!(RetreatPolicy::LossesOver(Losses::Fraction(0.5)).wants_retreat(2, 3, 4));
        assert!(!RetreatPolicy::LossesOver(Losses::Fraction(0.5)).wants_retreat(2, 2, 4));
        assert!(RetreatPolicy::AfterRound(0).wants_withdrawal());
        assert!(!RetreatPolicy::AfterRound(1).wants_withdrawal());
        assert!(!RetreatPolicy::Never.wants_withdrawal());
        let json = serde_json::to_string(&RetreatPolicy::AfterRound(2)).unwrap();
        assert_eq!(json, r#"{"after_round":2}"#);
    }
}
