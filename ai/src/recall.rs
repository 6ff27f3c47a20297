//! Answers a search remembers. A piece's destinations and each box's worth are pure
//! functions of the position (questions are pure and see no dice), and a search's
//! rollouts reach the same positions again and again: one march played out on other
//! dice goes the same way until the first battle, and the next decision's rollouts
//! replay marches this one's already played. So each is asked of the rules once, keyed
//! by the position's
//! [`GameState::fingerprint`](muster_core::game::GameState::fingerprint).
//!
//! Shared by the rollouts of every thread: an answer is the same whoever found it, so
//! the search stays deterministic. Each table is emptied when it fills, to bound memory.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use muster_core::Module;
use muster_core::game::moves::MoverKey;
use muster_core::game::{Destination, GameState, RuleError, Rules, SharedReads};
use muster_core::ids::{BoxId, SideId, UnitId};
use rustc_hash::FxHashMap;

use crate::knowledge;

/// Entries a table holds before it is emptied: about a search decision's worth of
/// positions (a piece's destinations are about a kilobyte).
const DESTINATIONS: usize = 40_000;
const WORTHS: usize = 4_000;
/// Pieces and boxes with destinations kept by what they read, and how many for each
/// (the latest: a check costs about a read per box the search reached).
const READ: usize = 20_000;
const READ_EACH: usize = 4;
/// Worths kept by what they read: the latest few.
const WORTHS_READ: usize = 8;
/// Entrenchment answers kept by what they read, for each side and box: the latest few.
const DUG_IN_READ: usize = 4;

/// Which piece destinations were found for: alike pieces ([`MoverKey`]) share them.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) enum Mover {
    Alike(MoverKey),
    Unit(UnitId),
}

/// A position's fingerprint and a piece of it.
pub(crate) type Where = (u128, Mover);

/// A piece, the box it searches from and the search's bound ([`max_path`]): what the
/// engine's path search reads of the position itself.
///
/// [`max_path`]: muster_core::game::moves::max_path
pub(crate) type From = (Mover, BoxId, usize);

/// Destinations found, and what the rules read to find them.
type Found = (SharedReads, Arc<[Destination]>);

/// Each box's worth to each side ([`knowledge::worth`]).
type Worths = Arc<Vec<Vec<f64>>>;

#[derive(Default)]
pub(crate) struct Recall {
    destinations: Mutex<FxHashMap<Where, Arc<[Destination]>>>,
    /// Destinations by what their search read ([`Rules::ask_each_reading`]): a piece's
    /// destinations depend on the boxes near it, so most positions a search meets
    /// again only there (a march across the map) give the same, which the position's
    /// fingerprint cannot tell. The latest few for each piece and box.
    read: Mutex<FxHashMap<From, Vec<Found>>>,
    worth: Mutex<FxHashMap<u128, Worths>>,
    /// The latest worths with what the hint read to give them (AHD's: the army maxima
    /// and who holds the recruiting cities, which most marches leave as they were).
    worth_read: Latest<Worths>,
    /// Whether a side is dug in, in a box ([`knowledge::dug_in`]), with what the hint
    /// read to tell (AHD's: who is in the box and their flags): the latest few for each
    /// side and box. Kept box by box, since a march changes the pieces of a box or two
    /// and every other box's answer still holds.
    dug_in_read: Mutex<FxHashMap<(SideId, BoxId), Vec<Dug>>>,
}

/// The latest few answers, each with what it read, the oldest forgotten first.
#[derive(Default)]
struct Latest<T>(Mutex<VecDeque<(SharedReads, T)>>);

impl<T: Clone> Latest<T> {
    /// The latest answer `wanted` accepts whose reads hold in `state`. Checked outside
    /// the lock: a check reads the position, and other threads wait.
    fn find(&self, module: &Module, state: &GameState, wanted: impl Fn(&T) -> bool) -> Option<T> {
        let latest: Vec<_> = lock(&self.0).iter().cloned().collect();
        latest
            .into_iter()
            .rev()
            .find(|(reads, t)| wanted(t) && reads.hold(module, state))
            .map(|(_, t)| t)
    }

    fn keep(&self, reads: SharedReads, t: T, cap: usize) {
        let mut latest = lock(&self.0);
        if latest.len() >= cap {
            latest.pop_front();
        }
        latest.push_back((reads, t));
    }
}

/// Whether each side is dug in, in each box ([`knowledge::dug_in`]).
type DugIn = Arc<Vec<Vec<bool>>>;

/// Whether a side is dug in, in a box, and what the hint read to tell.
type Dug = (SharedReads, bool);

impl Recall {
    pub(crate) fn destinations(&self, at: &Where) -> Option<Arc<[Destination]>> {
        lock(&self.destinations).get(at).cloned()
    }

    pub(crate) fn keep_destinations(&self, at: Where, found: Arc<[Destination]>) {
        keep(&mut lock(&self.destinations), at, found, DESTINATIONS);
    }

    /// Destinations found for `from` in another position where everything their search
    /// read gives the same answer in `state`.
    pub(crate) fn destinations_read(
        &self,
        module: &Module,
        state: &GameState,
        from: &From,
    ) -> Option<Arc<[Destination]>> {
        // Checked outside the lock: a check reads the position, and other threads wait.
        let found = lock(&self.read).get(from)?.clone();
        found
            .into_iter()
            .rev()
            .find(|(reads, _)| reads.hold(module, state))
            .map(|(_, d)| d)
    }

    pub(crate) fn keep_destinations_read(
        &self,
        from: From,
        reads: SharedReads,
        found: Arc<[Destination]>,
    ) {
        let mut table = lock(&self.read);
        if table.len() >= READ && !table.contains_key(&from) {
            table.clear();
        }
        let kept = table.entry(from).or_default();
        if kept.len() >= READ_EACH {
            kept.remove(0);
        }
        kept.push((reads, found));
    }

    /// Whether the enemies of `me` are dug in ([`knowledge::dug_in`]): in each box, from
    /// an earlier position where what the hint read of it answers the same, or asked.
    pub(crate) fn dug_in(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
        me: SideId,
        force: &[Vec<knowledge::Force>],
    ) -> Result<DugIn, RuleError> {
        let mut entrenched = vec![vec![false; module.board.boxes.len()]; module.sides.len()];
        if !rules.answers("dug_in") {
            return Ok(Arc::new(entrenched));
        }
        let asked = knowledge::enemies_in(module, me, force);
        // Checked outside the lock: a check reads the position, and other threads wait.
        let kept: Vec<Vec<Dug>> = {
            let table = lock(&self.dug_in_read);
            asked
                .iter()
                .map(|key| table.get(key).cloned().unwrap_or_default())
                .collect()
        };
        for (&(side, at), kept) in asked.iter().zip(kept) {
            let recalled = kept
                .into_iter()
                .rev()
                .find(|(reads, _)| reads.hold(module, state));
            entrenched[side.index()][at.index()] = match recalled {
                Some((_, dug)) => dug,
                None => {
                    let (dug, reads) = knowledge::dug_in_at(module, rules, state, side, at)?;
                    if let Some(reads) = reads {
                        // At most a key per side and box: the table never grows past that.
                        let mut table = lock(&self.dug_in_read);
                        let latest = table.entry((side, at)).or_default();
                        if latest.len() >= DUG_IN_READ {
                            latest.remove(0);
                        }
                        latest.push((reads, dug));
                    }
                    dug
                }
            };
        }
        Ok(Arc::new(entrenched))
    }

    /// Each box's worth to each side in `state` ([`knowledge::worth`]), asked of the
    /// rules once per position.
    pub(crate) fn worth(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Worths, RuleError> {
        let at = state.fingerprint();
        if let Some(w) = lock(&self.worth).get(&at) {
            return Ok(Arc::clone(w));
        }
        let w = match self.worth_read.find(module, state, |_| true) {
            Some(w) => w,
            None => {
                let (w, reads) = knowledge::worth_reading(module, rules, state)?;
                let w = Arc::new(w);
                if let Some(reads) = reads {
                    self.worth_read.keep(reads, Arc::clone(&w), WORTHS_READ);
                }
                w
            }
        };
        keep(&mut lock(&self.worth), at, Arc::clone(&w), WORTHS);
        Ok(w)
    }
}

/// A table's lock; a thread that panicked holding it left only whole entries behind.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn keep<K: std::hash::Hash + Eq, V, S: std::hash::BuildHasher>(
    table: &mut HashMap<K, V, S>,
    key: K,
    value: V,
    cap: usize,
) {
    if table.len() >= cap {
        table.clear();
    }
    table.insert(key, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_is_emptied_before_it_grows() {
        let mut t = HashMap::new();
        for i in 0..5 {
            keep(&mut t, i, i, 3);
        }
        // 0, 1, 2 filled it; 3 emptied it; then 3 and 4.
        assert_eq!(t.len(), 2);
        assert_eq!(t.get(&4), Some(&4));
        assert_eq!(t.get(&0), None);
    }
}
