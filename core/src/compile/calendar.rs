//! The turn track and the player-turn sequence.

use super::Ctx;
use crate::calendar::{self, Calendar, Segment};
use crate::diag::Pos;
use crate::format;
use crate::ids::{SideId, TurnId};
use crate::names::NameIndex;

pub(super) fn calendar(
    cx: &mut Ctx<'_>,
    raw: Option<&format::Calendar>,
    sides: &NameIndex,
    side_count: usize,
    module_pos: Pos,
) -> Calendar {
    let Some(c) = raw else {
        cx.error(
            module_pos,
            "the module has no calendar",
            Some("include a file with a <calendar> root".into()),
        );
        return Calendar::default();
    };
    let mut out = Calendar::default();
    match calendar::parse_spans(&c.year.turns) {
        Err(e) => cx.error(
            c.year.turns.pos,
            e,
            Some("e.g. turns=\"01-02 03 04 05 06 07 08 09 10 11-12\"".into()),
        ),
        Ok(spans) => {
            let last = c.last.as_ref().unwrap_or(&c.end);
            match calendar::build_turns(&spans, &c.start, last) {
                Err(e) => cx.error(last.pos, e, None),
                Ok(turns) if turns.len() > usize::from(u16::MAX) => {
                    cx.error(last.pos, "the track is too long", None);
                }
                Ok(turns) => {
                    out.turns = turns;
                    match out.find(&c.end) {
                        Some(end) => out.end = end,
                        None => {
                            let hint = out.hint();
                            cx.error(
                                c.end.pos,
                                format!("end '{}' is not on the track", c.end.value),
                                hint,
                            );
                            out.end = TurnId::from_index(out.turns.len().saturating_sub(1))
                                .unwrap_or_default();
                        }
                    }
                }
            }
        }
    }
    let mut plays = vec![false; side_count];
    for (id, pos) in c.player_turn.sides.items(' ') {
        let found = sides.get(id).and_then(SideId::from_index);
        if found.is_none() {
            cx.error(pos, format!("unknown side '{id}'"), sides.hint(id));
        }
        if let Some(side) = found {
            if plays[side.index()] {
                cx.error(pos, format!("side '{id}' plays twice in a game turn"), None);
            }
            plays[side.index()] = true;
            out.sides.push(side);
        }
    }
    for (i, plays) in plays.iter().enumerate() {
        if !plays {
            cx.error(
                c.player_turn.sides.pos,
                format!("side '{}' never plays", side_name(sides, i)),
                Some("list every side in sides=\"...\"".into()),
            );
        }
    }
    let mut seg_names = NameIndex::default();
    for s in &c.player_turn.segment {
        if let Err(first) = seg_names.insert(&s.id, out.segments.len()) {
            let hint = cx.first_at(out.segments[first].pos);
            cx.error(
                s.id.pos,
                format!("duplicate segment '{}'", s.id.value),
                hint,
            );
            continue;
        }
        out.segments.push(Segment {
            id: s.id.value.clone(),
            name: s.name.clone(),
            kind: s.kind,
            pos: s.pos,
        });
    }
    if out.segments.is_empty() {
        cx.error(
            c.player_turn.pos,
            "a player turn needs at least one <segment>",
            None,
        );
    }
    out
}

fn side_name(sides: &NameIndex, index: usize) -> String {
    sides.name_of(index).unwrap_or("?").to_string()
}
