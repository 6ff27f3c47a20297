//! Graph queries over the board for the rules: how far a box is, the nearest of a list
//! of boxes, every box reachable, a shortest path, each through the boxes and along
//! the lines a [`Passage`] allows. Supply lines of any length, the nearest friendly
//! city, distance by line kind: rules ask these often, so they are one breadth-first
//! search in Rust over the board's adjacency lists, not a Luau callback per step.
//! Read-only: nothing here changes the state.

use crate::Module;
use crate::game::GameState;
use crate::ids::{BoxId, LineKindId, SideId};

/// What a path may pass through: the rules' definition of passable, as data. Every
/// condition given must hold of each box a path enters (its last box included, never
/// its first: that is where the path starts).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Passage {
    /// The line kinds a path may follow; empty: every kind.
    pub kinds: Vec<LineKindId>,
    /// The only boxes a path may enter (indexed by box); `None`: any box.
    pub boxes: Option<Vec<bool>>,
    /// Boxes a path may never enter, whatever else allows them.
    pub closed: Vec<BoxId>,
    /// Only boxes this side controls (and, with `uncontrolled`, boxes nobody controls).
    pub controlled_by: Option<SideId>,
    pub uncontrolled: bool,
    /// Never a box holding a piece of a side other than this one.
    pub clear_for: Option<SideId>,
    /// The most boxes a path may enter; `None`: any length.
    pub max: Option<u16>,
}

impl Passage {
    fn line_ok(&self, kind: LineKindId) -> bool {
        self.kinds.is_empty() || self.kinds.contains(&kind)
    }

    fn box_ok(&self, state: &GameState, b: BoxId) -> bool {
        if let Some(allowed) = &self.boxes
            && !allowed.get(b.index()).copied().unwrap_or(false)
        {
            return false;
        }
        if self.closed.contains(&b) {
            return false;
        }
        if let Some(side) = self.controlled_by {
            match state.controller(b) {
                Some(s) if s == side => {}
                None if self.uncontrolled => {}
                _ => return false,
            }
        }
        if let Some(side) = self.clear_for
            && state.units_at(b).any(|u| state.unit(u).side != side)
        {
            return false;
        }
        true
    }
}

/// Breadth-first search from `from`, stopping when `done` says so of a box reached
/// (given its distance). Returns each box's distance (`u16::MAX`: not reached) and the
/// box each was reached from, for [`path`].
fn search(
    module: &Module,
    state: &GameState,
    from: BoxId,
    passage: &Passage,
    mut done: impl FnMut(BoxId, u16) -> bool,
) -> (Vec<u16>, Vec<Option<BoxId>>) {
    let board = &module.board;
    let n = board.boxes.len();
    let mut dist = vec![u16::MAX; n];
    let mut from_box = vec![None; n];
    if from.index() >= n {
        return (dist, from_box);
    }
    // Whether each box passes, asked once per box (the state's questions scan pieces).
    let mut ok: Vec<Option<bool>> = vec![None; n];
    let mut queue = std::collections::VecDeque::with_capacity(n);
    dist[from.index()] = 0;
    queue.push_back(from);
    if done(from, 0) {
        return (dist, from_box);
    }
    while let Some(b) = queue.pop_front() {
        let d = dist[b.index()];
        if passage.max.is_some_and(|m| d >= m) {
            continue;
        }
        for &(next, line) in board.neighbours(b) {
            let i = next.index();
            if dist[i] != u16::MAX || !passage.line_ok(board.line(line).kind) {
                continue;
            }
            let pass = *ok[i].get_or_insert_with(|| passage.box_ok(state, next));
            if !pass {
                continue;
            }
            dist[i] = d + 1;
            from_box[i] = Some(b);
            if done(next, d + 1) {
                return (dist, from_box);
            }
            queue.push_back(next);
        }
    }
    (dist, from_box)
}

/// The number of boxes a shortest path from `from` to `to` enters (0 when they are the
/// same box), or `None` when no path the passage allows joins them.
pub fn distance(
    module: &Module,
    state: &GameState,
    from: BoxId,
    to: BoxId,
    passage: &Passage,
) -> Option<u16> {
    let (dist, _) = search(module, state, from, passage, |b, _| b == to);
    dist.get(to.index()).copied().filter(|&d| d != u16::MAX)
}

/// The nearest of `targets` from `from` and its distance; of several as near, the one
/// first on the board (lowest box number), so the answer never depends on the order
/// the targets are given in. `None` when no target can be reached.
pub fn nearest(
    module: &Module,
    state: &GameState,
    from: BoxId,
    targets: &[BoxId],
    passage: &Passage,
) -> Option<(BoxId, u16)> {
    let n = module.board.boxes.len();
    let mut wanted = vec![false; n];
    for t in targets {
        if let Some(w) = wanted.get_mut(t.index()) {
            *w = true;
        }
    }
    // Stop at the first layer holding a target: every box of that layer is then known
    // only once the layer is complete, so stop one layer later.
    let mut found: Option<u16> = None;
    let (dist, _) = search(module, state, from, passage, |b, d| {
        if found.is_some_and(|f| d > f) {
            return true;
        }
        if wanted[b.index()] && found.is_none() {
            found = Some(d);
        }
        false
    });
    let best = found?;
    (0..n)
        .filter(|&i| wanted[i] && dist[i] == best)
        .find_map(BoxId::from_index)
        .map(|b| (b, best))
}

/// Every box reachable from `from` with its distance (`from` itself at 0), in board
/// order.
pub fn reach(
    module: &Module,
    state: &GameState,
    from: BoxId,
    passage: &Passage,
) -> Vec<(BoxId, u16)> {
    let (dist, _) = search(module, state, from, passage, |_, _| false);
    dist.iter()
        .enumerate()
        .filter(|(_, d)| **d != u16::MAX)
        .filter_map(|(i, &d)| BoxId::from_index(i).map(|b| (b, d)))
        .collect()
}

/// A shortest path from `from` to `to`, both included; `None` when there is none. Of
/// several as short, the one the board's adjacency order finds first (the same every
/// time).
pub fn path(
    module: &Module,
    state: &GameState,
    from: BoxId,
    to: BoxId,
    passage: &Passage,
) -> Option<Vec<BoxId>> {
    let (dist, from_box) = search(module, state, from, passage, |b, _| b == to);
    if dist.get(to.index()).is_none_or(|&d| d == u16::MAX) {
        return None;
    }
    let mut out = vec![to];
    let mut at = to;
    while let Some(prev) = from_box[at.index()] {
        out.push(prev);
        at = prev;
    }
    out.reverse();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Dice;

    fn ahd() -> (std::sync::Arc<Module>, GameState) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd");
        let m = crate::load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
        let sc = m.scenario("1861").expect("1861");
        let state = GameState::new(&m, sc, Vec::new(), Dice::seeded(1)).expect("set up");
        (std::sync::Arc::new(m), state)
    }

    fn b(m: &Module, name: &str) -> BoxId {
        m.board
            .find(name)
            .unwrap_or_else(|| panic!("no box {name}"))
    }

    /// A plain breadth-first search written the obvious way, to check the fast one.
    fn slow_distance(m: &Module, from: BoxId, to: BoxId, kinds: &[LineKindId]) -> Option<u16> {
        let mut seen = vec![from];
        let mut layer = vec![from];
        let mut d = 0;
        while !layer.is_empty() {
            if layer.contains(&to) {
                return Some(d);
            }
            let mut next = Vec::new();
            for &x in &layer {
                for l in &m.board.lines {
                    if !kinds.is_empty() && !kinds.contains(&l.kind) {
                        continue;
                    }
                    if let Some(y) = l.other(x)
                        && !seen.contains(&y)
                    {
                        seen.push(y);
                        next.push(y);
                    }
                }
            }
            layer = next;
            d += 1;
        }
        None
    }

    #[test]
    fn distances_match_a_plain_search_on_ahds_map() {
        let (m, state) = ahd();
        let all = Passage::default();
        let rail = m.board.find_kind("rail").expect("a rail kind");
        let by_rail = Passage {
            kinds: vec![rail],
            ..Passage::default()
        };
        let n = m.board.boxes.len();
        let mut reached = 0;
        for i in (0..n).step_by(7) {
            for j in (0..n).step_by(5) {
                let (x, y) = (BoxId::from_index(i).unwrap(), BoxId::from_index(j).unwrap());
                assert_eq!(distance(&m, &state, x, y, &all), slow_distance(&m, x, y, &[]));
                let d = distance(&m, &state, x, y, &by_rail);
                assert_eq!(d, slow_distance(&m, x, y, &[rail]));
                reached += usize::from(d.is_some());
            }
        }
        // Rail reaches some pairs and not others: the kinds do restrict.
        assert!(reached > 0);
        let x = BoxId::from_index(0).unwrap();
        let everywhere = reach(&m, &state, x, &all).len();
        assert!(reach(&m, &state, x, &by_rail).len() < everywhere);
    }

    #[test]
    fn a_path_is_as_long_as_the_distance_and_joined_by_lines() {
        let (m, state) = ahd();
        let (from, to) = (b(&m, "Washington"), b(&m, "Richmond"));
        let all = Passage::default();
        let p = path(&m, &state, from, to, &all).expect("a path");
        let d = distance(&m, &state, from, to, &all).expect("a distance");
        assert_eq!(p.len(), usize::from(d) + 1);
        assert_eq!((p[0], p[p.len() - 1]), (from, to));
        for w in p.windows(2) {
            assert!(m.board.lines_between(w[0], w[1]).next().is_some());
        }
        assert_eq!(distance(&m, &state, from, from, &all), Some(0));
    }

    #[test]
    fn closed_and_enemy_held_boxes_are_not_passed() {
        let (m, state) = ahd();
        let union = m.find_side("union").expect("union");
        let (from, to) = (b(&m, "Washington"), b(&m, "Richmond"));
        // A box holding a Confederate piece cannot be entered by a path clear for the
        // Union, though a path without conditions reaches it.
        let held = m
            .board
            .box_ids()
            .find(|&x| state.units_at(x).any(|u| state.unit(u).side != union))
            .expect("a Confederate piece on the board");
        let clear = Passage {
            clear_for: Some(union),
            ..Passage::default()
        };
        assert_eq!(distance(&m, &state, from, held, &clear), None);
        assert!(distance(&m, &state, from, held, &Passage::default()).is_some());
        // Every box a clear path reaches holds no Confederate piece.
        for (x, _) in reach(&m, &state, from, &clear).into_iter().skip(1) {
            assert!(state.units_at(x).all(|u| state.unit(u).side == union));
        }
        // Only Union-controlled boxes: nowhere Confederate.
        let own = Passage {
            controlled_by: Some(union),
            ..Passage::default()
        };
        for (x, _) in reach(&m, &state, from, &own).into_iter().skip(1) {
            assert_eq!(state.controller(x), Some(union), "{}", m.board.get(x).name);
        }
        // Closing the middle of the shortest path makes it longer or impossible.
        let all = Passage::default();
        let p = path(&m, &state, from, to, &all).expect("a path");
        let d = p.len() - 1;
        if d >= 2 {
            let shut = Passage {
                closed: p[1..p.len() - 1].to_vec(),
                ..Passage::default()
            };
            assert!(distance(&m, &state, from, to, &shut).is_none_or(|x| usize::from(x) > d));
        }
        // A bound on length.
        let short = Passage {
            max: Some(1),
            ..Passage::default()
        };
        assert!(
            reach(&m, &state, from, &short)
                .iter()
                .all(|&(_, d)| d <= 1)
        );
    }

    #[test]
    fn nearest_is_the_closest_and_the_first_on_the_board_among_equals() {
        let (m, state) = ahd();
        let from = b(&m, "Washington");
        let all = Passage::default();
        let targets: Vec<BoxId> = m.board.box_ids().filter(|&x| x != from).collect();
        let (x, d) = nearest(&m, &state, from, &targets, &all).expect("a neighbour");
        assert_eq!(d, 1);
        let first_neighbour = m
            .board
            .neighbours(from)
            .iter()
            .map(|&(n, _)| n)
            .min()
            .expect("neighbours");
        assert_eq!(x, first_neighbour);
        // Reversing the targets changes nothing.
        let mut rev = targets.clone();
        rev.reverse();
        assert_eq!(nearest(&m, &state, from, &rev, &all), Some((x, d)));
        // A target far away: its distance.
        let far = b(&m, "New Orleans");
        assert_eq!(
            nearest(&m, &state, from, &[far], &all).map(|(_, d)| d),
            distance(&m, &state, from, far, &all)
        );
        assert_eq!(nearest(&m, &state, from, &[], &all), None);
    }
}
