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

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use muster_core::Module;
use muster_core::game::moves::MoverKey;
use muster_core::game::{Destination, GameState, RuleError, Rules};
use muster_core::ids::UnitId;

use crate::knowledge;

/// Entries a table holds before it is emptied: about a search decision's worth of
/// positions (a piece's destinations are about a kilobyte).
const DESTINATIONS: usize = 40_000;
const WORTHS: usize = 4_000;

/// Which piece destinations were found for: alike pieces ([`MoverKey`]) share them.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) enum Mover {
    Alike(MoverKey),
    Unit(UnitId),
}

/// A position's fingerprint and a piece of it.
pub(crate) type Where = (u128, Mover);

#[derive(Default)]
pub(crate) struct Recall {
    destinations: Mutex<HashMap<Where, Arc<[Destination]>>>,
    worth: Mutex<HashMap<u128, Arc<Vec<Vec<f64>>>>>,
}

impl Recall {
    pub(crate) fn destinations(&self, at: &Where) -> Option<Arc<[Destination]>> {
        lock(&self.destinations).get(at).cloned()
    }

    pub(crate) fn keep_destinations(&self, at: Where, found: Arc<[Destination]>) {
        keep(&mut lock(&self.destinations), at, found, DESTINATIONS);
    }

    /// Each box's worth to each side in `state` ([`knowledge::worth`]), asked of the
    /// rules once per position.
    pub(crate) fn worth(
        &self,
        module: &Module,
        rules: &mut dyn Rules,
        state: &GameState,
    ) -> Result<Arc<Vec<Vec<f64>>>, RuleError> {
        let at = state.fingerprint();
        if let Some(w) = lock(&self.worth).get(&at) {
            return Ok(Arc::clone(w));
        }
        let w = Arc::new(knowledge::worth(module, rules, state)?);
        keep(&mut lock(&self.worth), at, Arc::clone(&w), WORTHS);
        Ok(w)
    }
}

/// A table's lock; a thread that panicked holding it left only whole entries behind.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn keep<K: std::hash::Hash + Eq, V>(table: &mut HashMap<K, V>, key: K, value: V, cap: usize) {
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
