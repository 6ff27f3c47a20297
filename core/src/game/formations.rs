//! Formations: pieces that hold pieces, to any depth (an army holds corps, a corps
//! divisions, a division brigades and its commander). A piece's holder is its
//! [`Unit::attached_to`](super::state::Unit::attached_to); a unit type that declares
//! `holds` in `units.xml` is a formation, with an optional `capacity` (combatant pieces
//! at any depth) and `weight` (what it counts in its side's army size). What the module
//! cannot say in data (seed 001 §6.22: fewer corps than divisional artillery battalions)
//! the rules say in the `composition` hook, asked after every organisation action.
//!
//! A formation moves as one ([`super::pieces`] carries what it holds); a member left as
//! a garrison ([`Action::Drop`]) stays a member, counted in its formation's size and
//! weight (§6.23), in the box where it was left, and cannot move on its own. Players
//! change formations by [`Action::Organize`]: every change in one box at once, checked
//! as a whole, so a reorganisation (§10) may pass through states the rules refuse.

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError, illegal};
use super::describe::unit as unit_label;
use super::rules::{Rules, View};
use super::state::{GameState, Place};
use crate::ids::{AttributeId, BoxId, MarkerId, SideId, UnitId};
use crate::module::Module;

/// One change of an [`Action::Organize`]: `unit` goes into formation `to` (`None`: it
/// leaves its formation and stands on its own).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Change {
    pub unit: UnitId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<UnitId>,
}

impl GameState {
    /// The piece holding `unit` (its formation, or the piece it is attached to).
    pub fn holder(&self, unit: UnitId) -> Option<UnitId> {
        self.units.get(unit.index()).and_then(|u| u.attached_to)
    }

    /// The pieces `unit` holds directly, in id order.
    pub fn members(&self, unit: UnitId) -> impl Iterator<Item = UnitId> + '_ {
        self.attached(unit)
    }

    /// Whether `formation` holds `unit` at some depth.
    pub fn holds_deep(&self, formation: UnitId, unit: UnitId) -> bool {
        let mut at = self.holder(unit);
        // Bounded, so a cycle (which no check lets in) cannot loop.
        for _ in 0..self.units.len() {
            match at {
                Some(h) if h == formation => return true,
                Some(h) => at = self.holder(h),
                None => return false,
            }
        }
        false
    }

    /// Every piece `formation` holds at any depth, in id order.
    pub fn all_members(&self, formation: UnitId) -> Vec<UnitId> {
        self.unit_ids()
            .filter(|&u| self.holds_deep(formation, u))
            .collect()
    }

    /// Whether `unit` is held by a formation (a type declaring `holds`): it moves only
    /// with it, never on its own.
    pub fn in_formation(&self, module: &Module, unit: UnitId) -> bool {
        self.holder(unit)
            .is_some_and(|h| module.units.get(self.unit(h).kind).is_formation())
    }

    /// Whether `unit` is a garrison: held by a formation standing in another box.
    pub fn is_garrison(&self, unit: UnitId) -> bool {
        self.holder(unit)
            .is_some_and(|h| self.unit(h).place != self.unit(unit).place)
    }

    /// How many combatant pieces `formation` holds at any depth (what its capacity
    /// limits), garrisons included (§6.23).
    pub fn held_count(&self, module: &Module, formation: UnitId) -> u32 {
        let n = self
            .unit_ids()
            .filter(|&u| {
                module.units.get(self.unit(u).kind).combatant && self.holds_deep(formation, u)
            })
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// What `unit` counts in its side's army size with all it holds: its type's
    /// `weight`, else the sum of its members' (a formation without one), else 1 for a
    /// combatant and 0 for others.
    pub fn weight(&self, module: &Module, unit: UnitId) -> u32 {
        let t = module.units.get(self.unit(unit).kind);
        if let Some(w) = t.weight {
            return u32::from(w);
        }
        let own = u32::from(t.combatant);
        if !t.is_formation() {
            return own;
        }
        let members: Vec<UnitId> = self.members(unit).collect();
        own + members
            .into_iter()
            .filter(|&m| m != unit)
            .map(|m| self.weight(module, m))
            .sum::<u32>()
    }

    /// `side`'s army size: the weights of its pieces on the board that no piece holds
    /// (seed 001 §3.2: a corps counts 1, a field corps 2).
    pub fn army_size(&self, module: &Module, side: SideId) -> u32 {
        self.unit_ids()
            .filter(|&u| {
                let x = self.unit(u);
                x.side == side && matches!(x.place, Place::Board(_)) && x.attached_to.is_none()
            })
            .map(|u| self.weight(module, u))
            .sum()
    }

    /// A piece's own name, if it has one.
    pub fn name(&self, unit: UnitId) -> Option<&str> {
        self.names
            .binary_search_by_key(&unit, |(u, _)| *u)
            .ok()
            .map(|i| self.names[i].1.as_str())
    }

    /// Names a piece (`None` or an empty name: it has none); kept sorted by piece.
    pub(crate) fn set_name(&mut self, unit: UnitId, name: Option<String>) {
        let name = name.filter(|n| !n.trim().is_empty());
        match (self.names.binary_search_by_key(&unit, |(u, _)| *u), name) {
            (Ok(i), Some(n)) => self.names[i].1 = n,
            (Ok(i), None) => {
                self.names.remove(i);
            }
            (Err(i), Some(n)) => self.names.insert(i, (unit, n)),
            (Err(_), None) => {}
        }
    }

    /// Sets a piece's attribute (its type has it: the caller checked), sorted.
    pub(crate) fn set_attribute_value(
        &mut self,
        module: &Module,
        unit: UnitId,
        attribute: AttributeId,
        value: i64,
    ) {
        debug_assert!(
            module
                .units
                .get(self.unit(unit).kind)
                .attribute(attribute)
                .is_some()
        );
        match self
            .attributes
            .binary_search_by_key(&(unit, attribute), |&(u, a, _)| (u, a))
        {
            Ok(i) => self.attributes[i].2 = value,
            Err(i) => self.attributes.insert(i, (unit, attribute, value)),
        }
    }

    /// Adds markers to a box at set-up (a count of at most `u16::MAX`), sorted.
    pub(crate) fn add_marker_count(&mut self, at: BoxId, marker: MarkerId, count: i32) {
        let now = (i32::from(self.markers_at(at, marker)) + count).clamp(0, i32::from(u16::MAX));
        let now = u16::try_from(now).unwrap_or(0);
        match self
            .markers
            .binary_search_by_key(&(at, marker), |&(b, m, _)| (b, m))
        {
            Ok(i) if now == 0 => {
                self.markers.remove(i);
            }
            Ok(i) => self.markers[i].2 = now,
            Err(_) if now == 0 => {}
            Err(i) => self.markers.insert(i, (at, marker, now)),
        }
    }
}

/// Why `formation` may not hold what it holds now: a member of a type it does not hold,
/// a member held by itself (a cycle), or more combatant pieces than its capacity. The
/// reason names the capacity or the `holds` list, for a refusal.
pub fn refusal(module: &Module, state: &GameState, formation: UnitId) -> Option<String> {
    misfit(module, state, formation).or_else(|| over_capacity(module, state, formation))
}

/// Why `formation` may not hold one of its members: a type it does not hold, another
/// side's piece, or itself (a cycle).
fn misfit(module: &Module, state: &GameState, formation: UnitId) -> Option<String> {
    let f = state.unit(formation);
    let t = module.units.get(f.kind);
    let label = |u: UnitId| unit_label(module, state, u);
    if state.holds_deep(formation, formation) {
        return Some(format!("{} would hold itself", label(formation)));
    }
    for m in state.members(formation) {
        let mt = module.units.get(state.unit(m).kind);
        if !t.holds.contains(&state.unit(m).kind) {
            let holds: Vec<&str> = t
                .holds
                .iter()
                .map(|&h| module.units.get(h).id.as_str())
                .collect();
            let what = if holds.is_empty() {
                "nothing (it declares no holds)".to_string()
            } else {
                holds.join(", ")
            };
            return Some(format!(
                "a {} cannot hold a {} ({} holds {what})",
                t.id, mt.id, t.id
            ));
        }
        if state.unit(m).side != f.side {
            return Some(format!(
                "{} is not of {}'s side",
                label(m),
                label(formation)
            ));
        }
    }
    None
}

/// Whether `formation` holds more combatant pieces than its type's capacity.
fn over_capacity(module: &Module, state: &GameState, formation: UnitId) -> Option<String> {
    let t = module.units.get(state.unit(formation).kind);
    let label = |u: UnitId| unit_label(module, state, u);
    if let Some(cap) = t.capacity {
        let n = state.held_count(module, formation);
        if n > u32::from(cap) {
            let rule = t
                .rule
                .as_ref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            return Some(format!(
                "{} would hold {n} combatant pieces; the capacity of a {} is {cap}{rule}",
                label(formation),
                t.id
            ));
        }
    }
    None
}

/// The formations an organisation touches: each piece named, its old and new holders,
/// and every formation above them (capacity is counted at any depth).
fn touched(state: &GameState, pieces: &[UnitId], out: &mut Vec<UnitId>) {
    for &p in pieces {
        let mut at = Some(p);
        for _ in 0..state.units.len() {
            let Some(u) = at else { break };
            if !out.contains(&u) {
                out.push(u);
            }
            at = state.holder(u);
        }
    }
}

/// Checks the formations `touched` names after a change (data first, then the rules'
/// `composition`), in a stable order; the first refusal.
fn check(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    mut formations: Vec<UnitId>,
) -> Result<(), ActionError> {
    formations.sort_unstable();
    // What each may hold first, then capacities: a piece in the wrong place is the
    // reason, not the count it upsets.
    for test in [misfit, over_capacity] {
        for &f in &formations {
            if module.units.get(state.unit(f).kind).is_formation()
                && let Some(why) = test(module, state, f)
            {
                return Err(illegal(why));
            }
        }
    }
    for &f in &formations {
        if let Some(why) = rules.refuses_composition(View { module, state }, f)? {
            return Err(illegal(format!("{}: {why}", unit_label(module, state, f))));
        }
    }
    Ok(())
}

/// Whether organisation actions may be taken now: in a `move` or `script` step of the
/// side on move, outside a battle.
fn may_organize(module: &Module, state: &GameState) -> Result<SideId, ActionError> {
    use crate::format::Procedure;
    match super::flow::procedure(module, state) {
        Some(Procedure::Move | Procedure::Script) if state.combat.is_none() => {
            Ok(state.active_side(module))
        }
        _ => Err(illegal(
            "formations change only in a move or script step, outside a battle",
        )),
    }
}

/// A piece of `side` on the board, or why an organisation action may not name it.
fn own_piece(
    module: &Module,
    state: &GameState,
    unit: UnitId,
    side: SideId,
) -> Result<BoxId, ActionError> {
    let at = super::pieces::board_box(state, unit, "that formation action")?;
    if state.unit(unit).side != side {
        return Err(illegal(format!(
            "{} is not a piece of {}",
            unit_label(module, state, unit),
            module.side(side).name
        )));
    }
    Ok(at)
}

/// Applies [`Action::Organize`] or [`Action::Drop`] to `state` (a copy the caller drops
/// on error).
pub(crate) fn apply(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    action: &Action,
) -> Result<Vec<String>, ActionError> {
    let side = may_organize(module, state)?;
    let name = &module.side(side).name;
    match action {
        Action::Organize { changes } => {
            let Some(first) = changes.first() else {
                return Err(illegal("an organisation names at least one change"));
            };
            let at = own_piece(module, state, first.unit, side)?;
            let mut pieces = Vec::new();
            for c in changes {
                for u in std::iter::once(c.unit).chain(c.to) {
                    if own_piece(module, state, u, side)? != at {
                        return Err(illegal(format!(
                            "{} is not in {}: a reorganisation happens in one box (§10)",
                            unit_label(module, state, u),
                            module.board.get(at).name
                        )));
                    }
                }
                if pieces.contains(&c.unit) {
                    return Err(illegal(format!(
                        "{} is named twice in one organisation",
                        unit_label(module, state, c.unit)
                    )));
                }
                if let Some(to) = c.to
                    && !module.units.get(state.unit(to).kind).is_formation()
                {
                    return Err(illegal(format!(
                        "{} is not a formation (its type declares no holds)",
                        unit_label(module, state, to)
                    )));
                }
                pieces.push(c.unit);
            }
            let mut formations = Vec::new();
            touched(state, &pieces, &mut formations);
            let mut log = Vec::new();
            for c in changes {
                let before = state.holder(c.unit);
                state.units[c.unit.index()].attached_to = c.to;
                let who = unit_label(module, state, c.unit);
                log.push(match (before, c.to) {
                    (_, Some(to)) => {
                        format!("{name}: {who} joins {}", unit_label(module, state, to))
                    }
                    (Some(from), None) => {
                        format!("{name}: {who} leaves {}", unit_label(module, state, from))
                    }
                    (None, None) => format!("{name}: {who} stays on its own"),
                });
            }
            touched(state, &pieces, &mut formations);
            check(module, rules, state, formations)?;
            // One that joined a formation in the selected box moves only with it now.
            retain_ready(module, state);
            Ok(log)
        }
        Action::Drop { unit, at } => {
            let here = own_piece(module, state, *unit, side)?;
            let Some(holder) = state.holder(*unit) else {
                return Err(illegal(format!(
                    "{} is in no formation; only a member is left as a garrison",
                    unit_label(module, state, *unit)
                )));
            };
            if state.is_garrison(*unit) {
                return Err(illegal(format!(
                    "{} is a garrison already",
                    unit_label(module, state, *unit)
                )));
            }
            if *at != here && !passed(state, *unit, here).contains(at) {
                return Err(illegal(format!(
                    "{} may be left only in {} or a box its formation passed through on its last move (§6.23)",
                    unit_label(module, state, *unit),
                    module.board.get(here).name
                )));
            }
            state.leave_behind(*unit, *at);
            let mut formations = Vec::new();
            touched(state, &[*unit], &mut formations);
            check(module, rules, state, formations)?;
            retain_ready(module, state);
            Ok(vec![format!(
                "{name}: {} leaves {} as a garrison in {}",
                unit_label(module, state, holder),
                unit_label(module, state, *unit),
                module.board.get(*at).name
            )])
        }
        other => Err(illegal(format!("{other:?} is not a formation action"))),
    }
}

/// The organisation actions listed among the legal actions while a march is under way
/// (the engine does not list every way to split a box; a player may still name any
/// other): a member of a formation that marched from the selected box left as a
/// garrison in a box of its path ([`Action::Drop`], §6.23), and a member of a formation
/// still to march detached to stay behind ([`Action::Organize`] to no formation, §10).
/// Only formations and combatant pieces are named, at most two levels down, and only
/// what the engine's checks and the rules' `composition` accept. Nothing in a module
/// without formations, so its lists are what they were.
pub(crate) fn legal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Action>, super::rules::RuleError> {
    if !module.units.types.iter().any(|t| t.is_formation()) {
        return Ok(Vec::new());
    }
    let Some(active) = state.moving.as_ref().and_then(|m| m.active.as_ref()) else {
        return Ok(Vec::new());
    };
    if may_organize(module, state).is_err() {
        return Ok(Vec::new());
    }
    // Members worth naming: formations and combatants, one or two levels down.
    let worth = |u: UnitId| {
        let t = module.units.get(state.unit(u).kind);
        t.is_formation() || t.combatant
    };
    let near = |top: UnitId| -> Vec<UnitId> {
        let mut out = Vec::new();
        for m in state.members(top) {
            if state.is_garrison(m) {
                continue;
            }
            if worth(m) {
                out.push(m);
            }
            if module.units.get(state.unit(m).kind).is_formation() {
                out.extend(
                    state
                        .members(m)
                        .filter(|&x| !state.is_garrison(x) && worth(x)),
                );
            }
        }
        out
    };
    let is_formation = |u: UnitId| module.units.get(state.unit(u).kind).is_formation();
    let mut candidates = Vec::new();
    // Drops on the way: the formations that marched from the selected box.
    let mut marched: Vec<UnitId> = Vec::new();
    for m in state
        .turn_log
        .moves
        .iter()
        .filter(|m| m.path.from == active.at)
    {
        if is_formation(m.unit) && !marched.contains(&m.unit) && state.holder(m.unit).is_none() {
            marched.push(m.unit);
        }
    }
    for f in marched {
        let Place::Board(here) = state.unit(f).place else {
            continue;
        };
        // Not where it stands: a garrison is left behind on the way.
        let boxes = passed(state, state.members(f).next().unwrap_or(f), here);
        for u in near(f) {
            for &at in &boxes {
                candidates.push(Action::Drop { unit: u, at });
            }
        }
    }
    // Detachments before the march: the formations still to march.
    for &f in &active.ready {
        if is_formation(f) && state.holder(f).is_none() {
            for u in near(f) {
                candidates.push(Action::Organize {
                    changes: vec![Change { unit: u, to: None }],
                });
            }
        }
    }
    let mut out = Vec::new();
    for a in candidates {
        let mut scratch = state.clone();
        match apply(module, rules, &mut scratch, &a) {
            Ok(_) => out.push(a),
            Err(ActionError::Rule(e)) => return Err(e),
            Err(_) => {}
        }
    }
    Ok(out)
}

/// The boxes the formation carrying `unit` (standing in `here`) went through on its
/// last move this player turn, its start included and `here` left out.
fn passed(state: &GameState, unit: UnitId, here: BoxId) -> Vec<BoxId> {
    let movers: Vec<UnitId> = {
        let mut v = Vec::new();
        let mut at = state.holder(unit);
        for _ in 0..state.units.len() {
            let Some(h) = at else { break };
            v.push(h);
            at = state.holder(h);
        }
        v
    };
    state
        .turn_log
        .moves
        .iter()
        .rev()
        .find(|m| movers.contains(&m.unit) && m.path.to() == here)
        .map(|m| {
            std::iter::once(m.path.from)
                .chain(m.path.steps.iter().map(|s| s.to))
                .filter(|&b| b != here)
                .collect()
        })
        .unwrap_or_default()
}

/// Keeps the selected box's pieces still to move to those standing there, out of any
/// formation.
fn retain_ready(module: &Module, state: &mut GameState) {
    let Some(ready) = state
        .moving
        .as_ref()
        .and_then(|m| m.active.as_ref())
        .map(|a| (a.at, a.ready.clone()))
    else {
        return;
    };
    let (at, mut ready) = ready;
    ready.retain(|&u| state.unit(u).place == Place::Board(at) && !state.in_formation(module, u));
    if let Some(a) = state.moving.as_mut().and_then(|m| m.active.as_mut()) {
        a.ready = ready;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Dice;
    use crate::load_module;

    /// The formations fixture's set-up (no rules: the engine's own checks).
    fn army() -> (Module, GameState) {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/formations");
        let m = load_module(dir).unwrap_or_else(|e| panic!("{e}"));
        let g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
        (m, g)
    }

    fn named(g: &GameState, name: &str) -> UnitId {
        g.names.iter().find(|(_, n)| n == name).unwrap().0
    }

    #[test]
    fn the_rules_attach_into_a_formation_to_any_depth_within_its_capacity() {
        let (m, mut g) = army();
        let iii = named(&g, "III Corps");
        let div = named(&g, "1st Division, II Corps");
        // A division of three brigades into III Corps (11): 14 > 12, refused whole.
        let before = g.clone();
        let err = g.attach(&m, div, Some(iii)).unwrap_err().to_string();
        assert!(err.contains("capacity of a Corps is 12"), "{err}");
        assert_eq!(g, before);
        // A brigade fits (12), and a division can be nested under a corps.
        let bde = g
            .members(div)
            .find(|&u| m.units.get(g.unit(u).kind).id == "Bde")
            .unwrap();
        g.attach(&m, bde, Some(iii)).unwrap();
        assert_eq!(g.held_count(&m, iii), 12);
        let other = named(&g, "I Corps (Heintzelman)");
        g.attach(&m, div, Some(other)).unwrap();
        assert!(g.holds_deep(named(&g, "Army of the Potomac"), div));
        // What a formation holds is the module's: a corps cannot hold an army.
        let err = g
            .attach(&m, named(&g, "Army of the Potomac"), Some(iii))
            .unwrap_err()
            .to_string();
        assert!(err.contains("a Corps cannot hold a Army"), "{err}");
        // Nor can a piece end up holding itself.
        let err = g.attach(&m, other, Some(div)).unwrap_err().to_string();
        assert!(
            err.contains("cannot hold a Corps") || err.contains("itself"),
            "{err}"
        );
    }

    #[test]
    fn a_field_corps_weighs_two_and_an_army_what_it_holds() {
        // Seed 001 §6.12 / §3.2.
        let (m, mut g) = army();
        let union = m.find_side("union").unwrap();
        let field = g
            .unit_ids()
            .find(|&u| m.units.get(g.unit(u).kind).id == "FieldCorps" && g.unit(u).side == union)
            .unwrap();
        assert_eq!(g.weight(&m, field), 2);
        let iii = named(&g, "III Corps");
        let before = g.army_size(&m, union);
        // III Corps under the army: the army counts it, the side's size is unchanged.
        g.attach(&m, iii, Some(named(&g, "Army of the Potomac")))
            .unwrap();
        assert_eq!(g.army_size(&m, union), before);
        assert_eq!(g.weight(&m, named(&g, "Army of the Potomac")), 3);
    }
}
