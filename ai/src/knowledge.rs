//! What a planner knows of the board beyond the legal moves: distances, what each box
//! is worth to each side, and where the armies stand. All of it is read from the
//! module's data and its `box_worth` hint hook; none of it is a rule.

use std::sync::Arc;

use muster_core::Module;
use muster_core::game::{GameState, Place, Question, RuleError, Rules, SharedReads, View};
use muster_core::ids::{BoxId, SideId, TurnId, UnitId};

use crate::recall::Recall;

/// Boxes apart along any lines (unreachable: `u8::MAX`).
pub struct Distances {
    n: usize,
    d: Vec<u8>,
    /// Each box's [`Distances::near`] boxes.
    near: Vec<Vec<BoxId>>,
}

impl Distances {
    pub fn new(module: &Module) -> Self {
        let n = module.board.boxes.len();
        let mut d = vec![u8::MAX; n * n];
        let mut queue = std::collections::VecDeque::new();
        for from in module.board.box_ids() {
            let row = &mut d[from.index() * n..(from.index() + 1) * n];
            row[from.index()] = 0;
            queue.clear();
            queue.push_back(from);
            while let Some(b) = queue.pop_front() {
                let next = row[b.index()].saturating_add(1);
                for &(to, _) in module.board.neighbours(b) {
                    if row[to.index()] == u8::MAX {
                        row[to.index()] = next;
                        queue.push_back(to);
                    }
                }
            }
        }
        let near = (0..n)
            .map(|a| {
                (0..n)
                    .filter(|&b| d[a * n + b] <= 1)
                    .map(|b| BoxId(b as u16))
                    .collect()
            })
            .collect();
        Distances { n, d, near }
    }

    /// The box and those next to it, in id order.
    pub fn near(&self, at: BoxId) -> &[BoxId] {
        &self.near[at.index()]
    }

    pub fn get(&self, a: BoxId, b: BoxId) -> u8 {
        self.d[a.index() * self.n + b.index()]
    }
}

/// A force's fighting power, for quick estimates: hits it deals per round on average,
/// and hits it takes to destroy.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Force {
    pub hits_per_round: f64,
    pub steps: f64,
}

impl Force {
    pub fn plus(self, o: Force) -> Force {
        Force {
            hits_per_round: self.hits_per_round + o.hits_per_round,
            steps: self.steps + o.steps,
        }
    }

    /// What is left of this force once `o` has gone.
    pub fn minus(self, o: Force) -> Force {
        Force {
            hits_per_round: self.hits_per_round - o.hits_per_round,
            steps: self.steps - o.steps,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.steps <= 0.0
    }
}

/// A unit's force from its definition: combat value over the die's sides, and the
/// steps it has left. `penalty` lowers its combat value (firing at entrenched units).
pub fn unit_force(module: &Module, state: &GameState, u: UnitId, penalty: f64) -> Force {
    let unit = state.unit(u);
    let t = module.units.get(unit.kind);
    let sides = f64::from(module.dice.max(1));
    let value = (f64::from(t.combat) - penalty).clamp(0.0, sides);
    Force {
        hits_per_round: value / sides,
        steps: f64::from(t.steps.saturating_sub(unit.hits).max(1)),
    }
}

/// What a piece takes where it moves: its own force, and for a formation (issue 47)
/// that of each combatant member standing with it, which moves only with it (the
/// formation itself adds its own only if it is a combatant). Any other piece: its
/// own ([`unit_force`]), so modules without formations are weighed as before.
pub fn mover_force(module: &Module, state: &GameState, u: UnitId) -> Force {
    let t = module.units.get(state.unit(u).kind);
    if !t.is_formation() {
        return unit_force(module, state, u, 0.0);
    }
    let here = state.unit(u).place;
    let own = if t.combatant {
        unit_force(module, state, u, 0.0)
    } else {
        Force::default()
    };
    state
        .all_members(u)
        .into_iter()
        .filter(|&m| state.unit(m).place == here && module.units.get(state.unit(m).kind).combatant)
        .fold(own, |f, m| f.plus(unit_force(module, state, m, 0.0)))
}

/// The chance that `attacker` destroys `defender` first, from how fast each wears the
/// other down (a Lanchester-style estimate, sharpened: a force twice as fast wins ~80%).
pub fn win_chance(attacker: Force, defender: Force) -> f64 {
    if defender.is_empty() {
        return 1.0;
    }
    if attacker.is_empty() {
        return 0.0;
    }
    let a = attacker.hits_per_round / defender.steps;
    let d = defender.hits_per_round / attacker.steps;
    if a + d <= 0.0 {
        return 0.5;
    }
    let (a2, d2) = (a * a, d * d);
    a2 / (a2 + d2)
}

/// Box worths, kept for the player turn they were asked in.
pub type WorthCache = Option<((TurnId, u8), Vec<Vec<f64>>)>;

/// The position as a planner sees it at one moment.
pub struct Picture {
    pub me: SideId,
    /// Worth of each box to each side: recruitment value plus the rules' `box_worth`.
    pub worth: Vec<Vec<f64>>,
    /// Each side's force in each box.
    pub force: Vec<Vec<Force>>,
    /// All the enemies' force in each box, summed once: a decision reads it for every
    /// box and each box's neighbours (its threat), and summing the sides at each read
    /// was a twentieth of a search.
    enemy: Vec<Force>,
    /// Whether each side's pieces in the box are dug in (the rules' `dug_in` hint), for
    /// the enemies' sides only (mine all false).
    pub entrenched: Arc<Vec<Vec<bool>>>,
}

impl Picture {
    pub(crate) fn new(
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
        worth_cache: &mut WorthCache,
        recall: Option<&Recall>,
    ) -> Result<Picture, RuleError> {
        let key = (state.turn, state.player);
        let worth = match worth_cache {
            Some((k, w)) if *k == key => w.clone(),
            _ => {
                let w = worth(module, rules, state)?;
                *worth_cache = Some((key, w.clone()));
                w
            }
        };
        let n = module.board.boxes.len();
        let sides = module.sides.len();
        let mut force = vec![vec![Force::default(); n]; sides];
        for u in state.unit_ids() {
            let unit = state.unit(u);
            if let Place::Board(b) = unit.place {
                let s = unit.side.index();
                force[s][b.index()] = force[s][b.index()].plus(unit_force(module, state, u, 0.0));
            }
        }
        let entrenched = match recall {
            Some(r) => r.dug_in(module, rules, state, me, &force)?,
            None => Arc::new(dug_in(module, rules, state, me, &force)?),
        };
        // Summed side by side in order, as every read of it once summed it.
        let enemy = (0..n)
            .map(|b| {
                let mut f = Force::default();
                for (s, per_box) in force.iter().enumerate() {
                    if s != me.index() {
                        f = f.plus(per_box[b]);
                    }
                }
                f
            })
            .collect();
        Ok(Picture {
            me,
            worth,
            force,
            enemy,
            entrenched,
        })
    }

    /// All the enemies' force in a box.
    pub fn enemy_force(&self, at: BoxId) -> Force {
        self.enemy[at.index()]
    }

    pub fn own_force(&self, at: BoxId) -> Force {
        self.force[self.me.index()][at.index()]
    }

    pub fn enemy_entrenched(&self, at: BoxId) -> bool {
        self.entrenched
            .iter()
            .enumerate()
            .any(|(s, e)| s != self.me.index() && e[at.index()])
    }

    /// What taking `at` from its controller is worth to me: what I gain, plus what the
    /// controller loses.
    pub fn capture_value(&self, state: &GameState, at: BoxId) -> f64 {
        let mine = self.worth[self.me.index()][at.index()];
        match state.controller(at) {
            Some(s) if s == self.me => 0.0,
            Some(s) => mine + self.worth[s.index()][at.index()],
            None => mine,
        }
    }
}

/// Whether the enemies of `me` are dug in, in each box where they have pieces (`force`):
/// the rules' `dug_in` hint, false without one. Only the enemies': the planner weighs
/// entrenchment where it attacks. (A search recalls it box by box instead, with
/// [`dug_in_at`]'s reads: `Recall::dug_in`.)
pub(crate) fn dug_in(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    me: SideId,
    force: &[Vec<Force>],
) -> Result<Vec<Vec<bool>>, RuleError> {
    let n = module.board.boxes.len();
    let mut entrenched = vec![vec![false; n]; module.sides.len()];
    if !rules.answers("dug_in") {
        return Ok(entrenched);
    }
    let asked = enemies_in(module, me, force);
    rules.ask_each(View { module, state }, &mut |ask| {
        for &(side, at) in &asked {
            entrenched[side.index()][at.index()] = ask.ask_bool(Question::DugIn { side, at })?;
        }
        Ok(())
    })?;
    Ok(entrenched)
}

/// The boxes [`dug_in`] asks about: each enemy side's, where it has pieces.
pub(crate) fn enemies_in(
    module: &Module,
    me: SideId,
    force: &[Vec<Force>],
) -> Vec<(SideId, BoxId)> {
    let mut out = Vec::new();
    for side in module.side_ids().filter(|&s| s != me) {
        for at in module.board.box_ids() {
            if !force[side.index()][at.index()].is_empty() {
                out.push((side, at));
            }
        }
    }
    out
}

/// Whether `side` is dug in at `at`, asked alone, and what the hint read to tell.
pub(crate) fn dug_in_at(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    side: SideId,
    at: BoxId,
) -> Result<(bool, Option<SharedReads>), RuleError> {
    let mut dug = false;
    let reads = rules.ask_each_reading(View { module, state }, &mut |ask| {
        dug = ask.ask_bool(Question::DugIn { side, at })?;
        Ok(())
    })?;
    Ok((dug, reads))
}

/// Each box's worth to each side: its box values plus the rules' `box_worth` hint.
pub(crate) fn worth(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Vec<f64>>, RuleError> {
    worth_reading(module, rules, state).map(|(w, _)| w)
}

/// [`worth`], and what the hint read to give it ([`Rules::ask_each_reading`]).
pub(crate) fn worth_reading(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<(Vec<Vec<f64>>, Option<SharedReads>), RuleError> {
    let view = View { module, state };
    let mut out = Vec::new();
    let reads = rules.ask_each_reading(view, &mut |ask| {
        for side in module.side_ids() {
            let mut per_box = Vec::with_capacity(module.board.boxes.len());
            for at in module.board.box_ids() {
                let hint = ask.ask_int(Question::BoxWorth { side, at })?.unwrap_or(0);
                per_box.push(f64::from(module.board.get(at).value_sum(side)) + hint as f64);
            }
            out.push(per_box);
        }
        Ok(())
    })?;
    Ok((out, reads))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_forces_are_even_and_a_double_force_is_favoured() {
        let one = Force {
            hits_per_round: 0.5,
            steps: 2.0,
        };
        assert!((win_chance(one, one) - 0.5).abs() < 1e-9);
        let two = one.plus(one);
        let p = win_chance(two, one);
        assert!(p > 0.75 && p < 0.99, "{p}");
        assert_eq!(win_chance(one, Force::default()), 1.0);
        assert_eq!(win_chance(Force::default(), one), 0.0);
    }
}
