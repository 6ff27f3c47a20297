//! Marches: the paths a unit may take from its box, found by a search that asks the
//! rules about each path and prunes where they say no.

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError, illegal};
use super::flow::notify;
use super::rules::{Event, Question, RuleError, Rules, View, ask_bool, ask_int};
use super::state::{GameState, Place};
use crate::ids::{BoxId, LineId, SideId, UnitId};
use crate::module::Module;

/// No march is longer than this many lines, whatever the rules say: a safety bound on
/// the search, not a rule.
pub const MAX_PATH: usize = 6;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    pub line: LineId,
    pub to: BoxId,
}

/// A route from a box along lines; it never visits a box twice.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Path {
    pub from: BoxId,
    pub steps: Vec<Step>,
}

impl Path {
    pub fn to(&self) -> BoxId {
        self.steps.last().map_or(self.from, |s| s.to)
    }

    /// The boxes passed through, not counting the start and the end.
    pub fn through(&self) -> impl Iterator<Item = BoxId> + '_ {
        let n = self.steps.len().saturating_sub(1);
        self.steps[..n].iter().map(|s| s.to)
    }

    pub fn last_line(&self) -> Option<LineId> {
        self.steps.last().map(|s| s.line)
    }
}

/// Where a unit may go in one march, and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Destination {
    pub path: Path,
    pub jump: bool,
}

/// Every destination `unit` may reach in one march from where it is, shortest paths
/// first. Of several paths to one box along the same last line, only the shortest is
/// kept, and a jump only where no plain path does the same.
pub fn destinations(
    view: View<'_>,
    rules: &mut dyn Rules,
    unit: UnitId,
) -> Result<Vec<Destination>, RuleError> {
    let Place::Board(from) = view.state.unit(unit).place else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    let mut path = Path {
        from,
        steps: Vec::new(),
    };
    search(view, rules, unit, &mut path, &mut found)?;
    found.sort_by_key(|d: &Destination| (d.path.steps.len(), d.jump));
    let mut kept: Vec<Destination> = Vec::new();
    for d in found {
        let same = |k: &Destination| {
            k.path.to() == d.path.to() && k.path.last_line() == d.path.last_line()
        };
        if !kept.iter().any(same) {
            kept.push(d);
        }
    }
    Ok(kept)
}

fn search(
    view: View<'_>,
    rules: &mut dyn Rules,
    unit: UnitId,
    path: &mut Path,
    found: &mut Vec<Destination>,
) -> Result<(), RuleError> {
    if path.steps.len() >= MAX_PATH {
        return Ok(());
    }
    for &(next, line) in view.module.board.neighbours(path.to()) {
        if next == path.from || path.steps.iter().any(|s| s.to == next) {
            continue;
        }
        path.steps.push(Step { line, to: next });
        if ask_bool(rules, view, Question::MayEnter { unit, path })? {
            if ask_bool(rules, view, Question::MayStop { unit, path })? {
                let jump = ask_bool(rules, view, Question::IsJump { unit, path })?;
                found.push(Destination {
                    path: path.clone(),
                    jump,
                });
            }
            search(view, rules, unit, path, found)?;
        }
        path.steps.pop();
    }
    Ok(())
}

/// The `move` step under way (what it spends is a resource of the side).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarchSegment {
    /// The box selected, if any, and its pieces that may still move.
    pub active: Option<Activation>,
}

/// A box activated by a march, and its units that have not yet moved or entrenched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activation {
    pub at: BoxId,
    pub ready: Vec<UnitId>,
    /// Whether the extra marches for entrenching here were paid in this march.
    pub entrench_paid: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    pub unit: UnitId,
    /// The route; a move by sea has no steps and ends at `sea_to`.
    pub path: Path,
    pub jump: bool,
    /// Where a move by sea went.
    #[serde(default)]
    pub sea_to: Option<BoxId>,
}

impl MoveRecord {
    /// Where the move ended.
    pub fn to(&self) -> BoxId {
        self.sea_to.unwrap_or_else(|| self.path.to())
    }
}

/// Sets up a `move` step: clears what units did in the last one.
pub(crate) fn setup(state: &mut GameState) {
    for u in &mut state.units {
        u.marches = 0;
    }
    state.march = Some(MarchSegment::default());
}

/// Begins the current `move` step of the side to play, as the engine does: the setup,
/// then `step_started`, where the rules set the resource it spends.
pub fn begin(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
) -> Result<Vec<String>, ActionError> {
    super::flow::enter_step(module, rules, state)
}

/// `side`'s units in `at` that may still take part in a march this segment (under
/// the rules' march limit): what activating the box would make ready.
pub fn ready_units(
    view: View<'_>,
    rules: &mut dyn Rules,
    at: BoxId,
    side: SideId,
) -> Result<Vec<UnitId>, RuleError> {
    let mut ready = Vec::new();
    for u in view.state.units_at(at) {
        let unit = view.state.unit(u);
        if unit.side != side {
            continue;
        }
        let limit = ask_int(rules, view, Question::MoveLimit { unit: u })?;
        if limit.is_none_or(|l| i64::from(unit.marches) < l) {
            ready.push(u);
        }
    }
    Ok(ready)
}

/// Whether `unit` may entrench now, and at what cost in marches.
fn entrench_cost(
    view: View<'_>,
    rules: &mut dyn Rules,
    a: &Activation,
    left: i64,
    unit: UnitId,
) -> Result<Option<u8>, RuleError> {
    if !ask_bool(rules, view, Question::MayEntrench { unit })? {
        return Ok(None);
    }
    let cost = ask_int(rules, view, Question::EntrenchCost { at: a.at })?
        .unwrap_or(1)
        .clamp(1, i64::from(u8::MAX));
    let cost = u8::try_from(cost).unwrap_or(u8::MAX);
    let within_limit = ask_int(rules, view, Question::MoveLimit { unit })?
        .is_none_or(|l| i64::from(view.state.unit(unit).marches) + i64::from(cost) <= l);
    let affordable = a.entrench_paid || left >= i64::from(cost) - 1;
    Ok((within_limit && affordable).then_some(cost))
}

/// Every action the moving side may take now in its Movement segment.
pub fn legal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Action>, RuleError> {
    let Some(seg) = &state.march else {
        return Ok(Vec::new());
    };
    let view = View { module, state };
    let side = state.active_side(module);
    let left = state.step_left(module);
    let mut out = Vec::new();
    match &seg.active {
        None => {
            if left > 0 {
                for at in module.board.box_ids() {
                    if !ready_units(view, rules, at, side)?.is_empty() {
                        out.push(Action::Select { at });
                    }
                }
                for (unit, to) in sea_moves(view, rules, side, left)? {
                    out.push(Action::SeaMove { unit, to });
                }
                for unit in state.unit_ids() {
                    if may_recover_by_march(view, rules, side, unit)? {
                        out.push(Action::Recover { unit });
                    }
                }
            }
        }
        Some(a) => {
            for &unit in &a.ready {
                for d in destinations(view, rules, unit)? {
                    out.push(Action::Move { unit, path: d.path });
                }
                if entrench_cost(view, rules, a, left, unit)?.is_some() {
                    out.push(Action::Entrench { unit });
                }
            }
            out.push(Action::Release);
        }
    }
    Ok(out)
}

/// Whether `side` may restore `unit` to full strength now (for a march or a recruitment
/// point, which the caller checks): its own reduced unit on the board, as the rules
/// allow.
pub(crate) fn may_recover(
    view: View<'_>,
    rules: &mut dyn Rules,
    side: SideId,
    unit: UnitId,
) -> Result<bool, RuleError> {
    let Some(u) = view.state.units.get(unit.index()) else {
        return Ok(false);
    };
    if u.side != side || u.hits == 0 || !matches!(u.place, Place::Board(_)) {
        return Ok(false);
    }
    ask_bool(rules, view, Question::MayRecover { unit })
}

/// [`may_recover`] for a march, which counts toward the unit's march limit. The caller
/// checks that a march is left and none is under way.
fn may_recover_by_march(
    view: View<'_>,
    rules: &mut dyn Rules,
    side: SideId,
    unit: UnitId,
) -> Result<bool, RuleError> {
    let Some(u) = view.state.units.get(unit.index()) else {
        return Ok(false);
    };
    if u.side != side || u.hits == 0 {
        return Ok(false);
    }
    let within_limit = ask_int(rules, view, Question::MoveLimit { unit })?
        .is_none_or(|l| i64::from(u.marches) < l);
    Ok(within_limit && may_recover(view, rules, side, unit)?)
}

/// The moves by sea the side may make now: its units in ports, to other ports, as far
/// as the rules allow and the marches left pay for.
fn sea_moves(
    view: View<'_>,
    rules: &mut dyn Rules,
    side: SideId,
    left: i64,
) -> Result<Vec<(UnitId, BoxId)>, RuleError> {
    let board = &view.module.board;
    let ports: Vec<BoxId> = board.box_ids().filter(|&b| board.get(b).port).collect();
    let mut out = Vec::new();
    for &from in &ports {
        for unit in view.state.units_at(from) {
            if view.state.unit(unit).side != side {
                continue;
            }
            for &to in &ports {
                if to != from
                    && sea_cost(view, rules, unit, to)?.is_some_and(|c| i64::from(c) <= left)
                {
                    out.push((unit, to));
                }
            }
        }
    }
    Ok(out)
}

/// Marches a move by sea costs, if the rules allow it and the unit has them to spend.
fn sea_cost(
    view: View<'_>,
    rules: &mut dyn Rules,
    unit: UnitId,
    to: BoxId,
) -> Result<Option<u8>, RuleError> {
    let Some(cost) = ask_int(rules, view, Question::SeaMove { unit, to })?.filter(|&c| c >= 1)
    else {
        return Ok(None);
    };
    // A move by sea is a march of the unit's own (4.6): it counts toward its limit.
    let within_limit = ask_int(rules, view, Question::MoveLimit { unit })?
        .is_none_or(|l| i64::from(view.state.unit(unit).marches) + cost <= l);
    Ok(within_limit.then(|| u8::try_from(cost).unwrap_or(u8::MAX)))
}

/// Checks that `path` is a route along the map's lines from the unit's box.
fn well_formed(module: &Module, from: BoxId, path: &Path) -> bool {
    if path.from != from || path.steps.is_empty() || path.steps.len() > MAX_PATH {
        return false;
    }
    let mut at = from;
    let mut seen = vec![from];
    for s in &path.steps {
        let joins = module
            .board
            .lines
            .get(s.line.index())
            .is_some_and(|l| l.other(at) == Some(s.to));
        if !joins || seen.contains(&s.to) {
            return false;
        }
        seen.push(s.to);
        at = s.to;
    }
    true
}

/// Takes one Movement-segment action. The caller works on a copy of the state and
/// drops it on error, so nothing is ever half-applied.
pub(crate) fn apply(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    action: &Action,
) -> Result<Vec<String>, ActionError> {
    let side = state.active_side(module);
    let Some(seg) = state.march.clone() else {
        return Err(illegal("there is no move step under way"));
    };
    let left = state.step_left(module);
    match action {
        Action::Select { at } => {
            if seg.active.is_some() {
                return Err(illegal("a march is already under way; end it first"));
            }
            if left <= 0 {
                return Err(illegal("nothing left to spend on selecting a box"));
            }
            if at.index() >= module.board.boxes.len() {
                return Err(illegal("no such box"));
            }
            let ready = ready_units(View { module, state }, rules, *at, side)?;
            if ready.is_empty() {
                return Err(illegal(format!(
                    "no unit of yours in {} can march",
                    module.board.get(*at).name
                )));
            }
            state.spend_step(module, 1);
            let m = state.march.as_mut().expect("checked above");
            m.active = Some(Activation {
                at: *at,
                ready,
                entrench_paid: false,
            });
            Ok(Vec::new())
        }
        Action::Move { unit, path } => {
            let Some(a) = &seg.active else {
                return Err(illegal("activate a box first"));
            };
            if !a.ready.contains(unit) {
                return Err(illegal("that unit is not ready to move in this march"));
            }
            if !well_formed(module, a.at, path) {
                return Err(illegal(
                    "that path does not follow the map's lines from the unit's box",
                ));
            }
            let view = View { module, state };
            if !ask_bool(rules, view, Question::MayEnter { unit: *unit, path })?
                || !ask_bool(rules, view, Question::MayStop { unit: *unit, path })?
            {
                return Err(illegal("the rules do not allow that move"));
            }
            let jump = ask_bool(rules, view, Question::IsJump { unit: *unit, path })?;
            let u = &mut state.units[unit.index()];
            u.place = Place::Board(path.to());
            u.entrenched = false;
            u.marches = u.marches.saturating_add(1);
            let m = state.march.as_mut().expect("checked above");
            if let Some(a) = m.active.as_mut() {
                a.ready.retain(|r| r != unit);
            }
            state.turn_log.moves.push(MoveRecord {
                unit: *unit,
                path: path.clone(),
                jump,
                sea_to: None,
            });
            notify(module, rules, state, Event::UnitMoved { unit: *unit, path })
        }
        Action::Entrench { unit } => {
            let Some(a) = &seg.active else {
                return Err(illegal("activate a box first"));
            };
            if !a.ready.contains(unit) {
                return Err(illegal("that unit is not ready in this march"));
            }
            let Some(cost) = entrench_cost(View { module, state }, rules, a, left, *unit)? else {
                return Err(illegal("that unit may not entrench now"));
            };
            let u = &mut state.units[unit.index()];
            u.entrenched = true;
            u.marches = u.marches.saturating_add(cost);
            if !seg.active.as_ref().is_some_and(|a| a.entrench_paid) {
                state.spend_step(module, i64::from(cost) - 1);
            }
            let m = state.march.as_mut().expect("checked above");
            if let Some(a) = m.active.as_mut() {
                a.entrench_paid = true;
                a.ready.retain(|r| r != unit);
            }
            Ok(Vec::new())
        }
        Action::Release => {
            if seg.active.is_none() {
                return Err(illegal("no march is under way"));
            }
            if let Some(m) = state.march.as_mut() {
                m.active = None;
            }
            Ok(Vec::new())
        }
        Action::SeaMove { unit, to } => {
            if seg.active.is_some() {
                return Err(illegal("end the march under way first"));
            }
            let Some(u) = state.units.get(unit.index()) else {
                return Err(illegal("no such unit"));
            };
            let Place::Board(from) = u.place else {
                return Err(illegal("that unit is not on the board"));
            };
            let ports_ok = module.board.boxes.get(to.index()).is_some_and(|b| b.port)
                && module.board.get(from).port;
            if u.side != side || !ports_ok || from == *to {
                return Err(illegal(
                    "a move by sea takes one of your units from a port to another port",
                ));
            }
            let Some(cost) = sea_cost(View { module, state }, rules, *unit, *to)? else {
                return Err(illegal("the rules do not allow that move by sea"));
            };
            if i64::from(cost) > left {
                return Err(illegal("not enough left to spend on that move"));
            }
            let u = &mut state.units[unit.index()];
            u.place = Place::Board(*to);
            u.entrenched = false;
            u.marches = u.marches.saturating_add(cost);
            state.spend_step(module, i64::from(cost));
            state.turn_log.moves.push(MoveRecord {
                unit: *unit,
                path: Path {
                    from,
                    steps: Vec::new(),
                },
                jump: false,
                sea_to: Some(*to),
            });
            notify(
                module,
                rules,
                state,
                Event::UnitSailed {
                    unit: *unit,
                    from,
                    to: *to,
                },
            )
        }
        Action::Recover { unit } => {
            if seg.active.is_some() {
                return Err(illegal("end the march under way first"));
            }
            if left <= 0 {
                return Err(illegal("nothing left to spend on recovering"));
            }
            if !may_recover_by_march(View { module, state }, rules, side, *unit)? {
                return Err(illegal("that unit may not recover now"));
            }
            let u = &mut state.units[unit.index()];
            u.hits = 0;
            u.marches = u.marches.saturating_add(1);
            state.spend_step(module, 1);
            Ok(vec![recovered(module, state, *unit, "a march")])
        }
        other => Err(illegal(format!("{other:?} is not a Movement action"))),
    }
}

/// The log line for a unit restored to full strength, and what it cost.
pub(crate) fn recovered(module: &Module, state: &GameState, unit: UnitId, cost: &str) -> String {
    let u = state.unit(unit);
    let at = match u.place {
        Place::Board(b) => module.board.get(b).name.as_str(),
        _ => "?",
    };
    format!(
        "{} in {at} recovers to full strength ({cost})",
        module.units.get(u.kind).name
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::command::Command;
    use crate::game::rules::Answer;
    use crate::game::{Dice, GameState};
    use crate::load_module;

    /// A stand-in for a game's rules: moves of up to `max` lines, never through `wall`;
    /// two marches per unit; entrenching costs two marches.
    struct Simple {
        max: usize,
        wall: Option<BoxId>,
    }

    impl Rules for Simple {
        fn ask(&mut self, _: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
            Ok(match q {
                Question::MayEnter { path, .. } => Answer::Bool(
                    path.steps.len() <= self.max && path.through().all(|b| Some(b) != self.wall),
                ),
                Question::MayStop { path, .. } => Answer::Bool(Some(path.to()) != self.wall),
                Question::IsJump { .. } => Answer::Bool(false),
                Question::MoveLimit { .. } => Answer::Int(2),
                Question::MayEntrench { .. } => Answer::Bool(true),
                Question::EntrenchCost { .. } => Answer::Int(2),
                Question::SeaMove { .. } => Answer::None,
                other => panic!("not asked in these tests: {other:?}"),
            })
        }
        fn notify(
            &mut self,
            _: View<'_>,
            _: &mut crate::game::Dice,
            e: Event<'_>,
        ) -> Result<Vec<Command>, RuleError> {
            Ok(match e {
                Event::StepStarted { .. } => vec![Command::SetResource {
                    side: crate::ids::SideId(0),
                    resource: crate::ids::ResourceId(0),
                    value: 3,
                }],
                Event::UnitMoved { .. } => vec![Command::SetVar {
                    name: "moved".into(),
                    value: 1,
                }],
                _ => Vec::new(),
            })
        }
    }

    #[test]
    fn search_finds_each_box_once_per_last_line_and_prunes() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
        let m = load_module(dir).unwrap();
        let g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
        let unit = g
            .unit_ids()
            .find(|&u| matches!(g.unit(u).place, Place::Board(_)))
            .unwrap();
        let view = View {
            module: &m,
            state: &g,
        };
        let mut one = Simple { max: 1, wall: None };
        let near = destinations(view, &mut one, unit).unwrap();
        let Place::Board(from) = g.unit(unit).place else {
            unreachable!()
        };
        assert_eq!(near.len(), m.board.neighbours(from).len());
        assert!(near.iter().all(|d| d.path.steps.len() == 1));

        let mut two = Simple { max: 2, wall: None };
        let far = destinations(view, &mut two, unit).unwrap();
        assert!(far.len() >= near.len());
        for d in &far {
            assert_ne!(d.path.to(), from, "never back to the start");
            let dup = far
                .iter()
                .filter(|e| e.path.to() == d.path.to() && e.path.last_line() == d.path.last_line());
            assert_eq!(dup.count(), 1, "one path per box and last line");
        }
        // Walling off every neighbour leaves only the neighbours' own lines to try.
        let wall = m.board.neighbours(from)[0].0;
        let mut walled = Simple {
            max: 2,
            wall: Some(wall),
        };
        let got = destinations(view, &mut walled, unit).unwrap();
        assert!(
            got.iter()
                .all(|d| d.path.to() != wall && d.path.through().all(|b| b != wall))
        );
    }

    /// Applies an action to a copy, as the game flow does.
    fn step(
        m: &Module,
        rules: &mut Simple,
        g: &GameState,
        a: &Action,
    ) -> Result<(GameState, Vec<String>), ActionError> {
        let mut next = g.clone();
        let log = apply(m, rules, &mut next, a)?;
        Ok((next, log))
    }

    #[test]
    fn marches_are_counted_per_unit_and_entrenching_pays_once() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
        let m = load_module(dir).unwrap();
        let mut g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
        let mut rules = Simple { max: 1, wall: None };
        begin(&m, &mut rules, &mut g).unwrap();
        assert_eq!(g.step_left(&m), 3);
        let side = g.active_side(&m);
        let unit = g
            .unit_ids()
            .find(|&u| g.unit(u).side == side && matches!(g.unit(u).place, Place::Board(_)))
            .unwrap();
        let Place::Board(home) = g.unit(unit).place else {
            unreachable!()
        };

        // Nothing is active yet: moving is refused and the state does not change.
        let path = Path {
            from: home,
            steps: vec![Step {
                line: m.board.neighbours(home)[0].1,
                to: m.board.neighbours(home)[0].0,
            }],
        };
        let before = g.clone();
        assert!(matches!(
            step(
                &m,
                &mut rules,
                &g,
                &Action::Move {
                    unit,
                    path: path.clone()
                }
            ),
            Err(ActionError::Illegal(_))
        ));
        assert_eq!(g, before);

        let legal_now = legal(&m, &mut rules, &g).unwrap();
        assert!(legal_now.contains(&Action::Select { at: home }));
        let (g2, _) = step(&m, &mut rules, &g, &Action::Select { at: home }).unwrap();
        assert_eq!(g2.step_left(&m), 2);
        let (g3, _) = step(
            &m,
            &mut rules,
            &g2,
            &Action::Move {
                unit,
                path: path.clone(),
            },
        )
        .unwrap();
        assert_eq!(g3.unit(unit).place, Place::Board(path.to()));
        assert_eq!(g3.unit(unit).marches, 1);
        assert_eq!(g3.var("moved"), 1);
        // Moved once: cannot move again in this march.
        assert!(step(&m, &mut rules, &g3, &Action::Move { unit, path }).is_err());
        // A second march there; entrenching would cost 2 and the unit has 1 left: refused.
        let (g4, _) = step(&m, &mut rules, &g3, &Action::Release).unwrap();
        let (g5, _) = step(
            &m,
            &mut rules,
            &g4,
            &Action::Select {
                at: g3_box(&g3, unit),
            },
        )
        .unwrap();
        assert!(
            !legal(&m, &mut rules, &g5)
                .unwrap()
                .contains(&Action::Entrench { unit })
        );
        assert!(step(&m, &mut rules, &g5, &Action::Entrench { unit }).is_err());
    }

    fn g3_box(g: &GameState, unit: UnitId) -> BoxId {
        match g.unit(unit).place {
            Place::Board(b) => b,
            _ => unreachable!(),
        }
    }
}
