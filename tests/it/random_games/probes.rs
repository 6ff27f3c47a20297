//! Actions that are not on the list are refused.

use super::*;

/// A few actions the player may not take now: the named cases (a box without his units,
/// an enemy unit's move, ending a segment during a battle) and random ones.
pub(crate) fn illegal_probes(
    ahd: &Ahd,
    state: &GameState,
    legal: &[Action],
    rng: &mut Pcg32,
) -> Vec<Action> {
    let ws = Where::new(ahd, state);
    let m = &ahd.m;
    let side = state.active_side(m);
    let pick = |rng: &mut Pcg32, n: usize| (rng.between_one_and(n as u32) - 1) as usize;
    let nb = m.board.boxes.len();
    let nu = state.units.len();
    let mut out = Vec::new();
    // Activate a box without the player's units.
    let empty: Vec<BoxId> = m.board.box_ids().filter(|&b| !ws.has(side, b)).collect();
    if !empty.is_empty() {
        out.push(Action::Select {
            at: empty[pick(rng, empty.len())],
        });
    }
    // Move an enemy unit one line.
    let enemies: Vec<UnitId> = state
        .unit_ids()
        .filter(|&u| state.unit(u).side != side && matches!(state.unit(u).place, Place::Board(_)))
        .collect();
    if !enemies.is_empty() {
        let u = enemies[pick(rng, enemies.len())];
        let Place::Board(from) = state.unit(u).place else {
            unreachable!()
        };
        let ns = m.board.neighbours(from);
        if !ns.is_empty() {
            let (to, line) = ns[pick(rng, ns.len())];
            out.push(Action::Move {
                unit: u,
                path: Path {
                    from,
                    steps: vec![Step { line, to }],
                },
            });
        }
    }
    out.push(Action::EndStep);
    // One of every other kind, with random arguments.
    let b = BoxId::from_index(pick(rng, nb)).expect("box");
    let u = UnitId::from_index(pick(rng, nu)).expect("unit");
    let v = UnitId::from_index(pick(rng, nu)).expect("unit");
    let k = UnitTypeId::from_index(pick(rng, m.units.types.len())).expect("type");
    let random = [
        Action::Select { at: b },
        offer("entrench", u, None),
        Action::Release,
        Action::Fight { at: b },
        Action::Retreat { to: b },
        Action::Pass,
        Action::Reinforce { unit: u },
        Action::Target {
            shooter: u,
            target: v,
        },
        Action::Upgrade { unit: u },
        Action::Place { kind: k, at: b },
        offer("sea-move", u, Some(b)),
        offer("recover", u, None),
        offer("no-such-offer", v, Some(b)),
    ];
    out.push(random[pick(rng, random.len())].clone());
    // Only what is surely illegal: a listed action is legal, and a Move not listed may
    // be a longer path to a listed place, so only moves of units not ready are kept.
    let ready: &[UnitId] = state
        .moving
        .as_ref()
        .and_then(|s| s.active.as_ref())
        .map_or(&[], |a| &a.ready);
    out.retain(|a| match a {
        Action::Move { unit, .. } => !ready.contains(unit),
        _ => !legal.iter().any(|l| unlabelled(l) == unlabelled(a)),
    });
    out
}
