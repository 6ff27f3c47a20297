//! Marches: the paths a unit may take from its box, found by a search that asks the
//! rules about each path and prunes where they say no.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError, illegal};
use super::flow::notify;
use super::rules::{Asker, Event, Question, RuleError, Rules, SharedReads, View};
use super::state::{GameState, Place};
use crate::ids::{BoxId, LineId, SideId, UnitId};
use crate::module::Module;
use crate::unit::Flags;

/// No path is longer than this many lines unless the `move` step says otherwise
/// (`max-path`): a bound on the search, which the rules prune further.
pub const MAX_PATH: u8 = 6;

/// The search bound of the `move` step under way, or of the turn's first `move` step
/// (for a look at moves outside it, as computer players and `muster moves` take).
pub fn max_path(module: &Module, state: &GameState) -> usize {
    let step = state
        .current_step(module)
        .filter(|s| s.procedure == crate::format::Procedure::Move)
        .or_else(|| {
            module
                .calendar
                .steps
                .iter()
                .find(|s| s.procedure == crate::format::Procedure::Move)
        });
    usize::from(step.map_or(MAX_PATH, |s| s.max_path))
}

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

/// Where a unit may go in one selection of its box, and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Destination {
    pub path: Path,
    pub jump: bool,
}

/// What the movement questions may see of a unit besides its id, by their contract
/// ([`Question::MayEnter`]): units with equal keys get the same destinations, so a
/// computer player searches one of them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoverKey {
    side: SideId,
    kind: crate::ids::UnitTypeId,
    place: Place,
    hits: u8,
    flags: Flags,
    moves: u8,
    attributes: Vec<(crate::ids::AttributeId, i64)>,
}

/// The [`MoverKey`] of `unit`; `None` when its id may still matter: attached to another
/// piece, carrying one, or moved, fought or upgraded this player turn.
pub fn mover_key(state: &GameState, unit: UnitId) -> Option<MoverKey> {
    let u = state.unit(unit);
    let log = &state.turn_log;
    if u.attached_to.is_some()
        || state.units.iter().any(|o| o.attached_to == Some(unit))
        || log.moves.iter().any(|m| m.unit == unit)
        || log.fought.contains(&unit)
        || log.upgraded.contains(&unit)
    {
        return None;
    }
    Some(MoverKey {
        side: u.side,
        kind: u.kind,
        place: u.place,
        hits: u.hits,
        flags: u.flags,
        moves: u.moves,
        attributes: state
            .attributes
            .iter()
            .filter(|(v, _, _)| *v == unit)
            .map(|&(_, a, x)| (a, x))
            .collect(),
    })
}

/// Every destination `unit` may reach in one move from where it is, shortest paths
/// first. Of several paths to one box along the same last line, only the shortest is
/// kept, and a jump only where no plain path does the same.
pub fn destinations(
    view: View<'_>,
    rules: &mut dyn Rules,
    unit: UnitId,
) -> Result<Vec<Destination>, RuleError> {
    destinations_reading(view, rules, unit).map(|(found, _)| found)
}

/// [`destinations`], and what the rules' questions read to find them
/// ([`Rules::ask_each_reading`]): where each read answers the same, so do they, for a
/// unit in the same box and a `move` step with the same [`max_path`] (what the search
/// itself reads).
pub fn destinations_reading(
    view: View<'_>,
    rules: &mut dyn Rules,
    unit: UnitId,
) -> Result<(Vec<Destination>, Option<SharedReads>), RuleError> {
    let Place::Board(from) = view.state.unit(unit).place else {
        return Ok((Vec::new(), None));
    };
    let mut found = Vec::new();
    let mut path = Path {
        from,
        steps: Vec::new(),
    };
    let bound = max_path(view.module, view.state);
    let reads = rules.ask_each_reading(view, &mut |ask| {
        search(view, ask, unit, bound, &mut path, &mut found)
    })?;
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
    Ok((kept, reads))
}

fn search(
    view: View<'_>,
    ask: &mut dyn Asker,
    unit: UnitId,
    bound: usize,
    path: &mut Path,
    found: &mut Vec<Destination>,
) -> Result<(), RuleError> {
    if path.steps.len() >= bound {
        return Ok(());
    }
    for &(next, line) in view.module.board.neighbours(path.to()) {
        if next == path.from || path.steps.iter().any(|s| s.to == next) {
            continue;
        }
        path.steps.push(Step { line, to: next });
        if ask.ask_bool(Question::MayEnter { unit, path })? {
            if ask.ask_bool(Question::MayStop { unit, path })? {
                let jump = ask.ask_bool(Question::IsJump { unit, path })?;
                found.push(Destination {
                    path: path.clone(),
                    jump,
                });
            }
            search(view, ask, unit, bound, path, found)?;
        }
        path.steps.pop();
    }
    Ok(())
}

/// The `move` step under way (what it spends is a resource of the side).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MoveStep {
    /// The box selected, if any, and its pieces that may still move.
    pub active: Option<SelectedBox>,
    /// In a step with `activate="piece"`: the piece activated, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activation: Option<super::activation::Activation>,
    /// The activation that brought on the battle under way (`combat="immediate"`): it
    /// moves on if the defender withdraws before combat (DWF L394), else it is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halted: Option<super::activation::Activation>,
    /// In a step with `activate="piece"`: the boxes the moving side entered (where a
    /// battle waits with `combat="immediate"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entered: Vec<BoxId>,
}

/// The selected box, and its pieces that have not yet moved or done their part (a
/// rule's `use_piece`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SelectedBox {
    pub at: BoxId,
    pub ready: Vec<UnitId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MoveRecord {
    pub unit: UnitId,
    /// The route; a move off the lines (`move_piece`) has no steps and ends at `sea_to`.
    pub path: Path,
    pub jump: bool,
    /// Where a move off the lines (`move_piece`: AHD's moves by sea) went.
    #[serde(default, alias = "sea_to")]
    pub relocated_to: Option<BoxId>,
}

impl MoveRecord {
    /// Where the move ended.
    pub fn to(&self) -> BoxId {
        self.relocated_to.unwrap_or_else(|| self.path.to())
    }
}

/// Sets up a `move` step: clears what units did in the last one.
pub(crate) fn setup(state: &mut GameState) {
    for u in &mut state.units {
        u.moves = 0;
    }
    state.moving = Some(MoveStep::default());
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

/// `side`'s units in `at` that may still take part in a selection this step (under
/// the rules' `move_limit`): what selecting the box would make ready.
pub fn ready_units(
    view: View<'_>,
    rules: &mut dyn Rules,
    at: BoxId,
    side: SideId,
) -> Result<Vec<UnitId>, RuleError> {
    let mut ready = Vec::new();
    // One session for the box's pieces: the rules' view is opened once.
    rules.ask_each(view, &mut |ask| ready_in(view, ask, at, side, &mut ready))?;
    Ok(ready)
}

/// [`ready_units`] of `at` asked in a session under way, pushed onto `ready`.
fn ready_in(
    view: View<'_>,
    ask: &mut dyn Asker,
    at: BoxId,
    side: SideId,
    ready: &mut Vec<UnitId>,
) -> Result<(), RuleError> {
    for u in view.state.units_at(at) {
        if view.state.unit(u).side == side && ready_one(view, ask, u)? {
            ready.push(u);
        }
    }
    Ok(())
}

/// Whether `u`, a piece of the side to move, may still take part in a selection (a
/// formation's member moves only with it).
fn ready_one(view: View<'_>, ask: &mut dyn Asker, u: UnitId) -> Result<bool, RuleError> {
    if view.state.in_formation(view.module, u) {
        return Ok(false);
    }
    let limit = ask.ask_int(Question::MoveLimit { unit: u })?;
    Ok(limit.is_none_or(|l| i64::from(view.state.unit(u).moves) < l))
}

/// The boxes whose selection would make a piece of `side` ready ([`ready_units`]), in
/// the board's order: one session of questions for the whole board (a session each
/// opened the rules' view once per box: a fifth of a random game's instructions). A box
/// weighed in an earlier position, with the same pieces as weighed then and the reads
/// of that session holding, is not asked about again ([`Memo`]): a march changes one
/// or two boxes, and every Movement listing without a box selected weighs them all.
fn selectable(
    view: View<'_>,
    rules: &mut dyn Rules,
    side: SideId,
    memo: &mut Memo,
) -> Result<Vec<BoxId>, RuleError> {
    // The side's pieces on the board by box, in the board's order and by id within a
    // box (as `units_at` gives them): one pass over the pieces, where looking into
    // every box scanned them all once per box (5% of a random game's instructions).
    let state = view.state;
    let mut mine: Vec<(BoxId, UnitId)> = state
        .unit_ids()
        .filter_map(|u| match state.unit(u).place {
            Place::Board(at) if state.unit(u).side == side => Some((at, u)),
            _ => None,
        })
        .collect();
    mine.sort_by_key(|&(at, u)| (at.index(), u.index()));
    let groups: Vec<(BoxId, BoxPieces)> = mine
        .chunk_by(|a, b| a.0 == b.0)
        .map(|group| {
            let pieces = group
                .iter()
                .map(|&(_, u)| (u, state.unit(u).moves, state.in_formation(view.module, u)))
                .collect();
            (group[0].0, pieces)
        })
        .collect();
    let mut ready: Vec<Option<bool>> = groups
        .iter()
        .map(|(at, pieces)| memo.weighed(view, *at, pieces))
        .collect();
    if ready.iter().any(Option::is_none) {
        let mut asked = Vec::new();
        let reads = rules.ask_each_reading(view, &mut |ask| {
            for (i, (_, pieces)) in groups.iter().enumerate() {
                if ready[i].is_some() {
                    continue;
                }
                let mut any = false;
                for &(u, _, _) in pieces {
                    if ready_one(view, ask, u)? {
                        any = true;
                        break;
                    }
                }
                ready[i] = Some(any);
                asked.push(i);
            }
            Ok(())
        })?;
        if let Some(reads) = reads {
            for i in asked {
                let (at, pieces) = &groups[i];
                memo.keep_weighed(
                    *at,
                    pieces.clone(),
                    Arc::clone(&reads),
                    ready[i] == Some(true),
                );
            }
        }
    }
    Ok(groups
        .iter()
        .zip(ready)
        .filter_map(|((at, _), r)| (r == Some(true)).then_some(*at))
        .collect())
}

/// A box's pieces of the side to move as [`selectable`] weighs them: each with the
/// marches it has made and whether a formation holds it.
type BoxPieces = Vec<(UnitId, u8, bool)>;

/// Every action the moving side may take now in its Movement segment.
pub fn legal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    memo: &mut Memo,
) -> Result<Vec<Action>, RuleError> {
    let Some(seg) = &state.moving else {
        return Ok(Vec::new());
    };
    let view = View { module, state };
    let side = state.active_side(module);
    let left = state.step_left(module);
    let mut out = Vec::new();
    match &seg.active {
        None => {
            if left > 0 {
                out.extend(
                    selectable(view, rules, side, memo)?
                        .into_iter()
                        .map(|at| Action::Select { at }),
                );
            }
        }
        Some(a) => {
            // Alike pieces ([`MoverKey`]) get the same destinations: searched once.
            let mut alike: Vec<(MoverKey, Arc<[Destination]>)> = Vec::new();
            for &unit in &a.ready {
                let key = mover_key(state, unit);
                let found = match key
                    .as_ref()
                    .and_then(|k| alike.iter().find(|(o, _)| o == k))
                {
                    Some((_, found)) => Arc::clone(found),
                    None => memo.destinations(view, rules, unit)?,
                };
                for d in found.iter() {
                    out.push(Action::Move {
                        unit,
                        path: d.path.clone(),
                    });
                }
                if let Some(k) = key {
                    alike.push((k, found));
                }
            }
            out.push(Action::Release);
        }
    }
    Ok(out)
}

/// Destinations found in earlier positions, each with what its search read
/// ([`destinations_reading`]), and boxes weighed for selection ([`selectable`]) with
/// what their session read, for a caller that lists the legal actions of one game
/// position after another (a random player): the pieces of a selected box are searched
/// again after each move of one of them, and most read nothing the move changed.
/// Reused only where every read gives the same answer, so the list is the same as
/// without it. Bounded: emptied when it holds [`Memo::CAP`] pieces (or boxes).
#[derive(Default)]
pub struct Memo {
    found: FxHashMap<Searched, Vec<Found>>,
    weighed: FxHashMap<BoxId, Vec<Weighed>>,
}

/// A box's pieces as weighed, what the session read, and whether one was ready.
type Weighed = (BoxPieces, SharedReads, bool);

/// A piece, the box it searched from and the search's bound ([`max_path`]).
type Searched = (UnitId, BoxId, usize);

/// Destinations found, and what their search read.
type Found = (SharedReads, Arc<[Destination]>);

impl Memo {
    /// Pieces (with their box and search bound) kept before the memo is emptied.
    const CAP: usize = 4096;
    /// Searches kept for each piece, the latest.
    const EACH: usize = 4;

    /// [`destinations`] of `unit`, from an earlier search whose reads hold, or searched.
    pub fn destinations(
        &mut self,
        view: View<'_>,
        rules: &mut dyn Rules,
        unit: UnitId,
    ) -> Result<Arc<[Destination]>, RuleError> {
        let Place::Board(from) = view.state.unit(unit).place else {
            return Ok(Arc::from([]));
        };
        let key = (unit, from, max_path(view.module, view.state));
        if let Some((_, found)) = self.found.get(&key).and_then(|kept| {
            kept.iter()
                .rev()
                .find(|(reads, _)| reads.hold(view.module, view.state))
        }) {
            return Ok(Arc::clone(found));
        }
        let (found, reads) = destinations_reading(view, rules, unit)?;
        let found: Arc<[Destination]> = Arc::from(found);
        if let Some(reads) = reads {
            if self.found.len() >= Self::CAP && !self.found.contains_key(&key) {
                self.found.clear();
            }
            let kept = self.found.entry(key).or_default();
            if kept.len() >= Self::EACH {
                kept.remove(0);
            }
            kept.push((reads, Arc::clone(&found)));
        }
        Ok(found)
    }

    /// Whether a piece in `at` was found ready when the box last held `pieces`, if the
    /// reads of that session hold.
    fn weighed(&self, view: View<'_>, at: BoxId, pieces: &BoxPieces) -> Option<bool> {
        self.weighed
            .get(&at)?
            .iter()
            .rev()
            .find(|(p, reads, _)| p == pieces && reads.hold(view.module, view.state))
            .map(|&(_, _, ready)| ready)
    }

    fn keep_weighed(&mut self, at: BoxId, pieces: BoxPieces, reads: SharedReads, ready: bool) {
        if self.weighed.len() >= Self::CAP && !self.weighed.contains_key(&at) {
            self.weighed.clear();
        }
        let kept = self.weighed.entry(at).or_default();
        if kept.len() >= Self::EACH {
            kept.remove(0);
        }
        kept.push((pieces, reads, ready));
    }
}

/// Checks that `path` is a route along the map's lines from the unit's box.
fn well_formed(module: &Module, state: &GameState, from: BoxId, path: &Path) -> bool {
    if path.from != from || path.steps.is_empty() || path.steps.len() > max_path(module, state) {
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
    let Some(seg) = state.moving.clone() else {
        return Err(illegal("there is no move step under way"));
    };
    let left = state.step_left(module);
    match action {
        Action::Select { at } => {
            if seg.active.is_some() {
                return Err(illegal(
                    "the pieces of a selected box are moving; end that first",
                ));
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
                    "no piece of yours in {} may move now",
                    module.board.get(*at).name
                )));
            }
            state.spend_step(module, 1);
            let m = state.moving.as_mut().expect("checked above");
            m.active = Some(SelectedBox { at: *at, ready });
            notify(module, rules, state, Event::BoxSelected { at: *at })
        }
        Action::Move { unit, path } => {
            let Some(a) = &seg.active else {
                return Err(illegal("activate a box first"));
            };
            if !a.ready.contains(unit) {
                return Err(illegal(
                    "that piece is not among those of the selected box still to move",
                ));
            }
            let longest = max_path(module, state);
            if path.steps.len() > longest {
                return Err(illegal(format!(
                    "that path is {} lines long; this step's paths are at most {longest} (max-path)",
                    path.steps.len()
                )));
            }
            if !well_formed(module, state, a.at, path) {
                return Err(illegal(
                    "that path does not follow the map's lines from the unit's box",
                ));
            }
            let view = View { module, state };
            // The move's questions in one session: the rules' view is opened once.
            let mut jump = None;
            rules.ask_each(view, &mut |ask| {
                if ask.ask_bool(Question::MayEnter { unit: *unit, path })?
                    && ask.ask_bool(Question::MayStop { unit: *unit, path })?
                {
                    jump = Some(ask.ask_bool(Question::IsJump { unit: *unit, path })?);
                }
                Ok(())
            })?;
            let Some(jump) = jump else {
                return Err(illegal("the rules do not allow that move"));
            };
            state.move_piece(*unit, path.to());
            let u = &mut state.units[unit.index()];
            u.moves = u.moves.saturating_add(1);
            // Pieces it carries, at any depth, went with it and have made their move.
            let mut ready = a.ready.clone();
            ready.retain(|r| r != unit && !state.holds_deep(*unit, *r));
            let m = state.moving.as_mut().expect("checked above");
            if let Some(a) = m.active.as_mut() {
                a.ready = ready;
            }
            state.turn_log.moves.push(MoveRecord {
                unit: *unit,
                path: path.clone(),
                jump,
                relocated_to: None,
            });
            notify(module, rules, state, Event::UnitMoved { unit: *unit, path })
        }
        Action::Release => {
            if seg.active.is_none() {
                return Err(illegal("no box is selected"));
            }
            if let Some(m) = state.moving.as_mut() {
                m.active = None;
            }
            Ok(Vec::new())
        }
        other => Err(illegal(format!(
            "{other:?} is not a decision of a move step"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::command::Command;
    use crate::game::rules::{Answer, Reads};
    use crate::game::{Dice, GameState};
    use crate::load_module;

    /// A stand-in for a game's rules: moves of up to `max` lines, never through `wall`;
    /// two marches per unit.
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

    /// [`Simple`] with a march limit of 0 for the pieces in `tired` (never ready).
    struct Tired {
        tired: Vec<UnitId>,
    }

    impl Rules for Tired {
        fn ask(&mut self, view: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
            match q {
                Question::MoveLimit { unit } if self.tired.contains(&unit) => Ok(Answer::Int(0)),
                q => Simple { max: 1, wall: None }.ask(view, q),
            }
        }
        fn notify(
            &mut self,
            view: View<'_>,
            dice: &mut crate::game::Dice,
            e: Event<'_>,
        ) -> Result<Vec<Command>, RuleError> {
            Simple { max: 1, wall: None }.notify(view, dice, e)
        }
    }

    #[test]
    fn the_boxes_listed_for_selection_are_those_whose_selection_makes_a_piece_ready() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
        let m = load_module(dir).unwrap();
        let mut g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
        begin(&m, &mut Simple { max: 1, wall: None }, &mut g).unwrap();
        let side = g.active_side(&m);
        let mine: Vec<UnitId> = g
            .unit_ids()
            .filter(|&u| g.unit(u).side == side && matches!(g.unit(u).place, Place::Board(_)))
            .collect();
        // A box of several pieces and a box of one: every choice of tired pieces, so a
        // box whose first piece is tired and a later one is not is among them.
        assert!(
            mine.len() >= 3,
            "the fixture's moving side has pieces in two boxes"
        );
        for pick in 0..1u32 << mine.len() {
            let tired: Vec<UnitId> = (0..mine.len())
                .filter(|i| pick & (1 << i) != 0)
                .map(|i| mine[i])
                .collect();
            let mut rules = Tired { tired };
            let view = View {
                module: &m,
                state: &g,
            };
            let expected: Vec<Action> = m
                .board
                .box_ids()
                .filter(|&at| !ready_units(view, &mut rules, at, side).unwrap().is_empty())
                .map(|at| Action::Select { at })
                .collect();
            let listed = legal(&m, &mut rules, &g, &mut Memo::default()).unwrap();
            assert_eq!(listed, expected, "tired pieces {:?}", rules.tired);
        }
    }

    /// What [`Walled`]'s search read: the var `wall`, and the answer it gave.
    struct WallRead(i64);

    impl Reads for WallRead {
        fn hold(&self, _: &Module, state: &GameState) -> bool {
            state.var("wall") == self.0
        }
    }

    /// [`Simple`] walled at the box numbered by the var `wall` (none at 0), telling
    /// what its searches read, and counting them.
    struct Walled {
        searches: usize,
    }

    impl Rules for Walled {
        fn ask(&mut self, view: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
            let wall = usize::try_from(view.state.var("wall") - 1)
                .ok()
                .and_then(BoxId::from_index);
            Simple { max: 2, wall }.ask(view, q)
        }
        fn ask_each_reading(
            &mut self,
            view: View<'_>,
            each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
        ) -> Result<Option<SharedReads>, RuleError> {
            self.searches += 1;
            self.ask_each(view, each)?;
            Ok(Some(Arc::new(WallRead(view.state.var("wall")))))
        }
        fn notify(
            &mut self,
            _: View<'_>,
            _: &mut crate::game::Dice,
            _: Event<'_>,
        ) -> Result<Vec<Command>, RuleError> {
            Ok(Vec::new())
        }
    }

    #[test]
    fn the_memo_gives_a_search_again_only_where_what_it_read_is_unchanged() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
        let m = load_module(dir).unwrap();
        let mut g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
        let unit = g
            .unit_ids()
            .find(|&u| matches!(g.unit(u).place, Place::Board(_)))
            .unwrap();
        let Place::Board(from) = g.unit(unit).place else {
            unreachable!()
        };
        let wall = m.board.neighbours(from)[0].0;
        let mut rules = Walled { searches: 0 };
        let mut memo = Memo::default();
        let fresh = |rules: &mut Walled, g: &GameState| {
            destinations(
                View {
                    module: &m,
                    state: g,
                },
                rules,
                unit,
            )
            .unwrap()
        };
        let open = fresh(&mut rules, &g);
        let searched = rules.searches;
        let got = memo
            .destinations(
                View {
                    module: &m,
                    state: &g,
                },
                &mut rules,
                unit,
            )
            .unwrap();
        assert_eq!(&*got, &open[..]);
        assert_eq!(rules.searches, searched + 1);
        // Something the search did not read changes: the same answer, not searched.
        g.vars.insert("other".into(), 1);
        let got = memo
            .destinations(
                View {
                    module: &m,
                    state: &g,
                },
                &mut rules,
                unit,
            )
            .unwrap();
        assert_eq!(&*got, &open[..]);
        assert_eq!(rules.searches, searched + 1);
        // What it read changes: searched again, and the answer is the new position's.
        g.vars.insert("wall".into(), lua_like(wall));
        let walled = fresh(&mut rules, &g);
        assert_ne!(walled, open, "the wall changes the destinations");
        let searched = rules.searches;
        let got = memo
            .destinations(
                View {
                    module: &m,
                    state: &g,
                },
                &mut rules,
                unit,
            )
            .unwrap();
        assert_eq!(&*got, &walled[..]);
        assert_eq!(rules.searches, searched + 1);
        // Back as it was: the first search is still kept.
        g.vars.insert("wall".into(), 0);
        let got = memo
            .destinations(
                View {
                    module: &m,
                    state: &g,
                },
                &mut rules,
                unit,
            )
            .unwrap();
        assert_eq!(&*got, &open[..]);
        assert_eq!(rules.searches, searched + 1);
    }

    /// What [`Counted`]'s sessions read: the var `tired`, and the answer it gave.
    struct TiredRead(i64);

    impl Reads for TiredRead {
        fn hold(&self, _: &Module, state: &GameState) -> bool {
            state.var("tired") == self.0
        }
    }

    /// [`Simple`] with a march limit of 0 for the piece the var `tired` numbers (its index
    /// plus one), telling what its sessions read, and counting its questions.
    struct Counted {
        asked: usize,
    }

    impl Rules for Counted {
        fn ask(&mut self, view: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
            self.asked += 1;
            match q {
                Question::MoveLimit { unit }
                    if view.state.var("tired") == i64::try_from(unit.index()).unwrap() + 1 =>
                {
                    Ok(Answer::Int(0))
                }
                q => Simple { max: 1, wall: None }.ask(view, q),
            }
        }
        fn ask_each_reading(
            &mut self,
            view: View<'_>,
            each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
        ) -> Result<Option<SharedReads>, RuleError> {
            self.ask_each(view, each)?;
            Ok(Some(Arc::new(TiredRead(view.state.var("tired")))))
        }
        fn notify(
            &mut self,
            view: View<'_>,
            dice: &mut crate::game::Dice,
            e: Event<'_>,
        ) -> Result<Vec<Command>, RuleError> {
            Simple { max: 1, wall: None }.notify(view, dice, e)
        }
    }

    #[test]
    fn the_memo_weighs_a_box_again_only_where_its_pieces_or_what_it_read_changed() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
        let m = load_module(dir).unwrap();
        let mut g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
        begin(&m, &mut Simple { max: 1, wall: None }, &mut g).unwrap();
        let side = g.active_side(&m);
        let lone = |g: &GameState| {
            // A piece alone in its box: tired, its box is not listed.
            g.unit_ids()
                .find(|&u| {
                    let Place::Board(at) = g.unit(u).place else {
                        return false;
                    };
                    g.unit(u).side == side
                        && g.units_at(at).filter(|&o| g.unit(o).side == side).count() == 1
                })
                .expect("the fixture's moving side has a piece alone in a box")
        };
        let u = lone(&g);
        let Place::Board(home) = g.unit(u).place else {
            unreachable!()
        };
        let mut rules = Counted { asked: 0 };
        let mut memo = Memo::default();
        let without =
            |rules: &mut Counted, g: &GameState| legal(&m, rules, g, &mut Memo::default()).unwrap();
        let first = legal(&m, &mut rules, &g, &mut memo).unwrap();
        assert_eq!(first, without(&mut rules, &g));
        assert!(first.contains(&Action::Select { at: home }));
        // The same position, or one changed where nothing was read: nothing asked.
        let asked = rules.asked;
        assert_eq!(legal(&m, &mut rules, &g, &mut memo).unwrap(), first);
        g.vars.insert("other".into(), 1);
        assert_eq!(legal(&m, &mut rules, &g, &mut memo).unwrap(), first);
        assert_eq!(rules.asked, asked, "weighed from the memo");
        // What the sessions read changes: weighed again, as without the memo.
        g.vars
            .insert("tired".into(), i64::try_from(u.index()).unwrap() + 1);
        let tired = legal(&m, &mut rules, &g, &mut memo).unwrap();
        assert!(rules.asked > asked, "asked again");
        assert_eq!(tired, without(&mut rules, &g));
        assert!(!tired.contains(&Action::Select { at: home }));
        // A piece's marches change: its box is weighed again, the others are not.
        g.vars.insert("tired".into(), 0);
        assert_eq!(legal(&m, &mut rules, &g, &mut memo).unwrap(), first);
        let asked = rules.asked;
        g.units[u.index()].moves = 2;
        let spent = legal(&m, &mut rules, &g, &mut memo).unwrap();
        assert_eq!(rules.asked, asked + 1, "only the changed box asked about");
        assert_eq!(spent, without(&mut rules, &g));
        assert!(!spent.contains(&Action::Select { at: home }));
    }

    /// A box as the var `wall` names it: its index plus one.
    fn lua_like(b: BoxId) -> i64 {
        i64::try_from(b.index()).unwrap() + 1
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
    fn marches_are_counted_per_unit() {
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

        let legal_now = legal(&m, &mut rules, &g, &mut Memo::default()).unwrap();
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
        assert_eq!(g3.unit(unit).moves, 1);
        assert_eq!(g3.var("moved"), 1);
        // Moved once: cannot move again in this march.
        assert!(step(&m, &mut rules, &g3, &Action::Move { unit, path }).is_err());
        // A second march there: the unit is ready again (one of its two marches used).
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
            g5.moving
                .as_ref()
                .unwrap()
                .active
                .as_ref()
                .unwrap()
                .ready
                .contains(&unit)
        );
        assert_eq!(g5.step_left(&m), 1);
    }

    fn g3_box(g: &GameState, unit: UnitId) -> BoxId {
        match g.unit(unit).place {
            Place::Board(b) => b,
            _ => unreachable!(),
        }
    }
}
