//! Marches: the paths a unit may take from its box, found by a search that asks the
//! rules about each path and prunes where they say no.

use serde::{Deserialize, Serialize};

use super::rules::{MoveRules, RuleError, View};
use super::state::Place;
use crate::ids::{BoxId, LineId, UnitId};

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
    rules: &mut dyn MoveRules,
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
    rules: &mut dyn MoveRules,
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
        if rules.may_enter(view, unit, path)? {
            if rules.may_stop(view, unit, path)? {
                let jump = rules.is_jump(view, unit, path)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Dice, GameState};
    use crate::load_module;

    /// A stand-in for a game's rules: moves of up to `max` lines, never through `wall`.
    struct Simple {
        max: usize,
        wall: Option<BoxId>,
        asked: usize,
    }

    impl MoveRules for Simple {
        fn may_enter(&mut self, _: View<'_>, _: UnitId, path: &Path) -> Result<bool, RuleError> {
            self.asked += 1;
            Ok(path.steps.len() <= self.max && path.through().all(|b| Some(b) != self.wall))
        }
        fn may_stop(&mut self, _: View<'_>, _: UnitId, path: &Path) -> Result<bool, RuleError> {
            Ok(Some(path.to()) != self.wall)
        }
        fn is_jump(&mut self, _: View<'_>, _: UnitId, _: &Path) -> Result<bool, RuleError> {
            Ok(false)
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
        let mut one = Simple {
            max: 1,
            wall: None,
            asked: 0,
        };
        let near = destinations(view, &mut one, unit).unwrap();
        let Place::Board(from) = g.unit(unit).place else {
            unreachable!()
        };
        assert_eq!(near.len(), m.board.neighbours(from).len());
        assert!(near.iter().all(|d| d.path.steps.len() == 1));

        let mut two = Simple {
            max: 2,
            wall: None,
            asked: 0,
        };
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
            asked: 0,
        };
        let got = destinations(view, &mut walled, unit).unwrap();
        assert!(
            got.iter()
                .all(|d| d.path.to() != wall && d.path.through().all(|b| b != wall))
        );
    }
}
