//! Odds shown while the pointer is over a ringed destination during Movement: the
//! selected units (the chosen one, or every unit of the selected box that may go there)
//! attacking what the enemy has in that box, estimated by the ai crate's battle
//! simulator from a battle described in words (`muster_ai::odds::Spec`, as
//! `muster odds` takes it). It is an estimate of a battle that may follow, not a rule:
//! the engine decides the battle when it is fought.

use std::collections::BTreeMap;

use muster_ai::odds::{Setup, Spec, simulate};
use muster_core::game::{Action, Place};
use muster_core::ids::{BoxId, UnitId};

use super::session::Session;

/// The estimate last made, kept while the question stays the same.
#[derive(Default)]
pub struct HoverOdds {
    key: Option<(usize, Option<BoxId>, Option<UnitId>, BoxId)>,
    text: Option<String>,
}

impl HoverOdds {
    /// The odds text for moving into `to` now, if enemy units stand there and some of
    /// the selected units may legally go there (cached per position and question).
    pub fn text(
        &mut self,
        session: &mut Session,
        selected: Option<BoxId>,
        unit: Option<UnitId>,
        to: BoxId,
    ) -> Option<&str> {
        let key = (session.history().actions().len(), selected, unit, to);
        if self.key != Some(key) {
            self.key = Some(key);
            self.text = if session.all_seen_at(to) {
                estimate(session, selected, unit, to)
            } else {
                // Never from pieces the seat may not know.
                Some(super::odds::HIDDEN_ODDS.to_string())
            };
        }
        self.text.as_deref()
    }
}

/// `"3 Vi, 1 Vc"`: the types of `units` with counts, in the module's type order.
fn force(session: &Session, units: &[UnitId]) -> String {
    let module = session.module();
    let mut counts: BTreeMap<usize, u32> = BTreeMap::new();
    for &u in units {
        *counts
            .entry(session.state().unit(u).kind.index())
            .or_default() += 1;
    }
    counts
        .iter()
        .map(|(k, n)| format!("{n} {}", module.units.types[*k].id))
        .collect::<Vec<_>>()
        .join(", ")
}

fn estimate(
    session: &mut Session,
    selected: Option<BoxId>,
    unit: Option<UnitId>,
    to: BoxId,
) -> Option<String> {
    let movers: Vec<UnitId> = {
        let moves = super::moves(session, selected, unit);
        let mut v: Vec<UnitId> = moves
            .iter()
            .filter_map(|a| match a {
                Action::Move { unit, path } if path.to() == to => Some(*unit),
                _ => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let first = *movers.first()?;
    let state = session.state().clone();
    let me = state.unit(first).side;
    let module = session.module().clone();
    let enemies: Vec<UnitId> = state
        .units_at(to)
        .filter(|&u| state.unit(u).side != me && state.unit(u).place == Place::Board(to))
        .filter(|&u| module.units.get(state.unit(u).kind).combatant)
        .collect();
    if enemies.is_empty() {
        return None;
    }
    // The flags every defender carries (AHD: entrenched, 5.31), as `Spec` takes them.
    let common = enemies
        .iter()
        .map(|&u| state.unit(u).flags.0)
        .fold(u32::MAX, |acc, f| acc & f);
    let flags: Vec<String> = muster_core::unit::Flags(common)
        .iter()
        .filter_map(|id| module.units.flags.get(id.index()))
        .map(|n| n.id.to_string())
        .collect();
    let spec = Spec {
        attackers: force(session, &movers),
        defenders: force(session, &enemies),
        attacker_side: Some(module.side(me).id.to_string()),
        at: Some(module.board.get(to).name.clone()),
        flags,
        ..Spec::default()
    };
    let result = Setup::from_spec(&module, &spec).and_then(|mut setup| {
        setup.settle(&module, session.rules_mut())?;
        simulate(
            &module,
            session.rules_mut(),
            &setup,
            &super::odds::config(),
            None,
        )
    });
    session.rules_mut().take_output();
    Some(match result {
        Ok(r) => format!(
            "{} ({}) into {} ({}): attacker wins {:.0}%, defender {:.0}%",
            spec.attackers,
            module.side(me).name,
            module.board.get(to).name,
            spec.defenders,
            r.attacker.win_pct,
            r.defender.win_pct
        ),
        Err(e) => format!("no odds: {e}"),
    })
}
