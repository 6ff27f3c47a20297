//! What a seat sees: the game as one player may know it ([`SeatView`]), built from the
//! state and the module's say on each piece ([`Sight`]). Hidden information fails
//! closed: a piece the rules cannot answer for is hidden, and what a view does not
//! name (the rules' counters, the moves of this player turn, another seat's sealed
//! choice) is left out unless every seat sees everything.
//!
//! A piece's sight is the module's data first: its own side's pieces fully, others
//! at the seat's `enemies` level, or `near` within `range` lines of a box holding the
//! seat's side's pieces. Then, for a seat that does not see everything or where the
//! rules answer it, the `sees` question decides (a battle that reveals both sides, a
//! scout, a commander who sees only his own pieces).

use std::collections::BTreeMap;

use serde::Serialize;

use super::rules::{Answer, Question, RuleError, Rules, View};
use super::state::{GameState, Place};
use crate::format::Sight;
use crate::ids::{BoxId, SeatId, UnitId};
use crate::module::Module;

/// What a view file says it is, so that it is never taken for a save.
pub const SEAT_VIEW: &str = "what one seat sees";

/// The hook that may change what a seat sees of a piece.
pub const SEES: &str = "sees";

/// One seat's view of a game: what it may know, by name, for people, programs and
/// files. A piece seen only as present is counted in its box, never listed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatView {
    /// Always [`SEAT_VIEW`]: tells a view from a save.
    pub view: &'static str,
    pub seat: String,
    /// The seat's side; `None` for a referee.
    pub side: Option<String>,
    /// The turn's label (`07/1861`).
    pub turn: String,
    /// The step under way, if the game goes on.
    pub step: Option<String>,
    /// Whose player turn it is (`None` in the turn-end steps).
    pub player: Option<String>,
    /// How the game ended, if it has.
    pub outcome: Option<OutcomeSeen>,
    /// Each side's resources (public: rolled and spent in the open).
    pub resources: BTreeMap<String, BTreeMap<String, i64>>,
    /// Every box, in the map's order.
    pub boxes: Vec<BoxSeen>,
    /// Pieces off the board that the seat sees, counted by side, place and type.
    pub off_board: Vec<OffBoardSeen>,
    /// The rules' named counters: only when every seat sees everything (they may
    /// hold what a seat must not know).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vars: Option<BTreeMap<String, i64>>,
    /// While the rules wait for a sealed choice: who has chosen (and, for this seat,
    /// what).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sealed: Vec<SealedSeen>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutcomeSeen {
    pub winner: Option<String>,
    pub reason: String,
}

/// A box as a seat sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoxSeen {
    pub name: String,
    pub controller: Option<String>,
    /// Markers in the box, by kind (public: they lie on the map).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub markers: BTreeMap<String, u16>,
    /// The pieces seen at least by side.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pieces: Vec<PieceSeen>,
    /// Pieces seen only as present: a count.
    #[serde(skip_serializing_if = "is_zero")]
    pub unseen: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A piece as a seat sees it: its side, and, seen fully, what it is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PieceSeen {
    /// Its number in the log; only when seen fully (a number follows a piece).
    pub number: Option<u32>,
    pub side: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub hits: Option<u8>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, i64>,
    /// The number of the piece it is attached to (its formation), when both are seen
    /// fully.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attached_to: Option<u32>,
    /// Its own name ("I Corps (McDowell)"), when seen fully.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The numbers of the pieces it holds that the seat sees fully, in id order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<u32>,
}

/// Pieces off the board: by side and place, and by type where seen fully.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct OffBoardSeen {
    pub side: String,
    pub place: String,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub count: u32,
}

/// A sealed choice as a seat sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SealedSeen {
    pub seat: String,
    /// The choice's label: only for the seat that made it (and a referee).
    pub choice: Option<String>,
}

/// What `seat` sees of the game, and the rule errors met on the way (each piece a
/// failing rule was asked about is hidden; the errors are for whoever runs the game,
/// not for the seat: their text may name what the seat may not see).
pub fn seat_view(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
) -> (SeatView, Vec<RuleError>) {
    let (sight, errors) = sights(module, rules, state, seat);
    (seat_view_of(module, rules, state, seat, &sight), errors)
}

/// What `seat` sees of the game, given what it sees of each piece (`sights`), for a
/// caller that needs both.
pub fn seat_view_of(
    module: &Module,
    rules: &dyn Rules,
    state: &GameState,
    seat: SeatId,
    sight: &[Sight],
) -> SeatView {
    render(module, state, seat, sight, everything_shown(module, rules))
}

/// Whether every seat sees the whole game: no seat's data hides anything and no rule
/// may (`sees`). Where not, what is read from the whole state (a refusal's reason, the
/// rules' words) is not told to a seat (fails closed).
pub fn everything_shown(module: &Module, rules: &dyn Rules) -> bool {
    module.all_open() && !rules.answers(SEES)
}

/// How much of each piece `seat` sees, by [`UnitId`] index.
pub fn sights(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    seat: SeatId,
) -> (Vec<Sight>, Vec<RuleError>) {
    let Some(def) = module.seats.get(seat.index()) else {
        return (vec![Sight::None; state.units.len()], Vec::new());
    };
    let near = near_boxes(module, state, seat);
    let mut sight: Vec<Sight> = state
        .units
        .iter()
        .map(|u| {
            if Some(u.side) == def.side {
                Sight::Full
            } else {
                match u.place {
                    Place::Board(at) if near[at.index()] => def.near,
                    _ => def.enemies,
                }
            }
        })
        .collect();
    let mut errors = Vec::new();
    if def.sees_all() && !rules.answers(SEES) {
        within_formations(module, state, &mut sight);
        return (sight, errors);
    }
    let view = View { module, state };
    let asked = rules.ask_each(view, &mut |asker| {
        for (i, seen) in sight.iter_mut().enumerate() {
            let Some(unit) = UnitId::from_index(i) else {
                break;
            };
            let question = Question::Sees {
                seat,
                unit,
                seen: *seen,
            };
            *seen = match asker.ask(question) {
                Ok(Answer::Int(n)) => level(n),
                Ok(Answer::None) => *seen,
                Ok(_) => Sight::None,
                Err(e) => {
                    errors.push(e);
                    Sight::None
                }
            };
        }
        Ok(())
    });
    if let Err(e) = asked {
        // The session itself failed: hide every piece not of the seat's side.
        errors.push(e);
        for (s, u) in sight.iter_mut().zip(&state.units) {
            if Some(u.side) != def.side {
                *s = Sight::None;
            }
        }
    }
    within_formations(module, state, &mut sight);
    (sight, errors)
}

/// A formation's member is seen no better than its formation, at every depth: a seat
/// that does not see a corps does not see its divisions or stands (fails closed).
/// Pieces attached to a piece that is not a formation keep their own sight.
fn within_formations(module: &Module, state: &GameState, sight: &mut [Sight]) {
    if !module.units.types.iter().any(|t| t.is_formation()) {
        return;
    }
    // One pass per level of nesting; bounded, so a cycle cannot loop.
    for _ in 0..state.units.len() {
        let mut changed = false;
        for (i, u) in state.units.iter().enumerate() {
            let Some(h) = u.attached_to else { continue };
            if !module.units.get(state.unit(h).kind).is_formation() {
                continue;
            }
            let cap = sight.get(h.index()).copied().unwrap_or(Sight::None);
            if sight[i] > cap {
                sight[i] = cap;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// A `sees` answer as a level; anything out of range hides.
fn level(n: i64) -> Sight {
    match n {
        1 => Sight::Presence,
        2 => Sight::Side,
        3 => Sight::Full,
        _ => Sight::None,
    }
}

/// Boxes within the seat's `range` lines of a box holding its side's pieces (none for
/// a referee, or a seat whose `near` is no more than its `enemies`).
fn near_boxes(module: &Module, state: &GameState, seat: SeatId) -> Vec<bool> {
    let def = module.seat(seat);
    let mut near = vec![false; module.board.boxes.len()];
    let Some(side) = def.side.filter(|_| def.near > def.enemies) else {
        return near;
    };
    let mut frontier: Vec<BoxId> = Vec::new();
    for u in &state.units {
        if let (true, Place::Board(at)) = (u.side == side, u.place)
            && !near[at.index()]
        {
            near[at.index()] = true;
            frontier.push(at);
        }
    }
    for _ in 0..def.range {
        let mut next = Vec::new();
        for at in frontier {
            for &(n, _) in module.board.neighbours(at) {
                if !near[n.index()] {
                    near[n.index()] = true;
                    next.push(n);
                }
            }
        }
        frontier = next;
    }
    near
}

fn render(
    module: &Module,
    state: &GameState,
    seat: SeatId,
    sight: &[Sight],
    open: bool,
) -> SeatView {
    let def = module.seat(seat);
    let side_name = |s: crate::ids::SideId| module.side(s).id.clone();
    let step = state.current_step(module);
    let mut boxes: Vec<BoxSeen> = module
        .board
        .box_ids()
        .map(|at| BoxSeen {
            name: module.board.get(at).name.clone(),
            controller: state.controller(at).map(side_name),
            markers: module
                .units
                .markers
                .iter()
                .enumerate()
                .filter_map(|(i, m)| {
                    let id = crate::ids::MarkerId::from_index(i)?;
                    let n = state.markers_at(at, id);
                    (n > 0).then(|| (m.id.clone(), n))
                })
                .collect(),
            pieces: Vec::new(),
            unseen: 0,
        })
        .collect();
    let mut off: BTreeMap<(String, String, Option<String>), u32> = BTreeMap::new();
    for (i, u) in state.units.iter().enumerate() {
        let seen = sight.get(i).copied().unwrap_or(Sight::None);
        if seen == Sight::None {
            continue;
        }
        let full = seen == Sight::Full;
        let kind = full.then(|| module.units.get(u.kind).id.clone());
        match u.place {
            Place::Board(at) => {
                let b = &mut boxes[at.index()];
                if seen == Sight::Presence {
                    b.unseen += 1;
                    continue;
                }
                let id = UnitId::from_index(i).unwrap_or_default();
                b.pieces.push(piece(module, state, id, full, sight));
            }
            place => {
                let place = match place {
                    Place::Pool => "pool",
                    Place::Stock => "stock",
                    Place::SetAside => "set-aside",
                    Place::Board(_) => unreachable!("matched above"),
                };
                if seen == Sight::Presence {
                    continue;
                }
                *off.entry((side_name(u.side), place.into(), kind))
                    .or_default() += 1;
            }
        }
    }
    SeatView {
        view: SEAT_VIEW,
        seat: def.id.clone(),
        side: def.side.map(side_name),
        turn: module.calendar.turn(state.turn).label.clone(),
        step: step.map(|s| s.id.clone()),
        player: (!state.at_turn_end(module) && state.outcome.is_none())
            .then(|| side_name(state.active_side(module))),
        outcome: state.outcome.as_ref().map(|o| OutcomeSeen {
            winner: o.winner.map(side_name),
            reason: o.reason.clone(),
        }),
        resources: module
            .side_ids()
            .map(|s| {
                let held = module
                    .resources
                    .iter()
                    .enumerate()
                    .filter_map(|(i, r)| {
                        let id = crate::ids::ResourceId::from_index(i)?;
                        Some((r.id.clone(), state.resource(s, id)))
                    })
                    .collect();
                (side_name(s), held)
            })
            .collect(),
        boxes,
        off_board: off
            .into_iter()
            .map(|((side, place, kind), count)| OffBoardSeen {
                side,
                place,
                kind,
                count,
            })
            .collect(),
        vars: open.then(|| state.vars.iter().map(|(k, v)| (k.to_string(), v)).collect()),
        sealed: state
            .sealed
            .iter()
            .flatten()
            .map(|o| {
                let by = o
                    .seat
                    .map(|s| module.seat(s).id.clone())
                    .unwrap_or_default();
                let mine = o.seat == Some(seat) || def.side.is_none() && def.sees_all();
                SealedSeen {
                    seat: by,
                    choice: mine.then(|| o.label.clone()),
                }
            })
            .collect(),
    }
}

fn piece(module: &Module, state: &GameState, id: UnitId, full: bool, sight: &[Sight]) -> PieceSeen {
    let u = state.unit(id);
    let side = Some(module.side(u.side).id.clone());
    if !full {
        return PieceSeen {
            number: None,
            side,
            kind: None,
            hits: None,
            flags: Vec::new(),
            attributes: BTreeMap::new(),
            attached_to: None,
            name: None,
            members: Vec::new(),
        };
    }
    let unit_type = module.units.get(u.kind);
    let flags = module
        .units
        .flags
        .iter()
        .enumerate()
        .filter(|(i, _)| crate::ids::FlagId::from_index(*i).is_some_and(|f| u.flags.has(f)))
        .map(|(_, f)| f.id.clone())
        .collect();
    let attributes = unit_type
        .attributes
        .iter()
        .filter_map(|&(a, _)| {
            let name = module.units.attributes.get(a.index())?;
            Some((name.clone(), state.attribute(module, id, a)?))
        })
        .collect();
    PieceSeen {
        number: Some(u.number),
        side,
        kind: Some(unit_type.id.clone()),
        hits: Some(u.hits),
        flags,
        attributes,
        attached_to: u
            .attached_to
            .filter(|c| sight.get(c.index()) == Some(&Sight::Full))
            .map(|c| state.unit(c).number),
        name: state.name(id).map(str::to_string),
        members: state
            .members(id)
            .filter(|m| sight.get(m.index()) == Some(&Sight::Full))
            .map(|m| state.unit(m).number)
            .collect(),
    }
}
