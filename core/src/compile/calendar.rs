//! The turn track and the player-turn sequence.

use super::Ctx;
use crate::calendar::{self, Calendar, Step};
use crate::diag::Pos;
use crate::format::{self, Procedure};
use crate::ids::{BoxValueId, ResourceId, SideId, TurnId};
use crate::names::NameIndex;

pub(super) fn calendar(
    cx: &mut Ctx<'_>,
    raw: Option<&format::Calendar>,
    sides: &NameIndex,
    side_count: usize,
    resources: &NameIndex,
    values: &NameIndex,
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
    out.words = c.words.clone().unwrap_or_default();
    let mut step_names = NameIndex::default();
    let mut all: Vec<Pos> = Vec::new();
    for (list, raw) in [
        (&mut out.steps, c.player_turn.step.as_slice()),
        (
            &mut out.turn_end,
            c.turn_end.as_ref().map_or(&[][..], |t| t.step.as_slice()),
        ),
    ] {
        for s in raw {
            if let Err(first) = step_names.insert(&s.id, all.len()) {
                let hint = cx.first_at(all[first]);
                cx.error(s.id.pos, format!("duplicate step '{}'", s.id.value), hint);
                continue;
            }
            all.push(s.pos);
            if let Some(step) = step(cx, s, sides, resources, values) {
                list.push(step);
            }
        }
    }
    if out.steps.is_empty() {
        cx.error(
            c.player_turn.pos,
            "a player turn needs at least one <step>",
            Some("e.g. <step id=\"movement\" name=\"Movement\" procedure=\"move\" spends=\"marches\"/>".into()),
        );
    }
    if let Some(t) = &c.turn_end {
        for s in &t.step {
            if s.procedure.value == Procedure::Battles {
                cx.error(
                    s.procedure.pos,
                    "a turn-end step cannot fight battles",
                    Some("battles belong to a player turn, where one side attacks".into()),
                );
            }
        }
    }
    out
}

/// Compiles one `<step>`, reporting what is wrong with it.
fn step(
    cx: &mut Ctx<'_>,
    s: &format::Step,
    sides: &NameIndex,
    resources: &NameIndex,
    values: &NameIndex,
) -> Option<Step> {
    let procedure = s.procedure.value;
    let spends = match &s.spends {
        Some(r) => {
            let found = resources.get(r).and_then(ResourceId::from_index);
            if found.is_none() {
                let hint = resources.hint(r).or_else(|| {
                    Some("declare it in <sides> as <resource id=... name=.../>".into())
                });
                cx.error(r.pos, format!("unknown resource '{}'", r.value), hint);
                return None;
            }
            found
        }
        None => None,
    };
    let needs = matches!(
        procedure,
        Procedure::Move | Procedure::Upgrade | Procedure::Place
    );
    if needs && spends.is_none() {
        cx.error(
            s.procedure.pos,
            format!(
                "step '{}': procedure '{}' needs spends=\"RESOURCE\", what its decisions cost",
                s.id.value,
                procedure_name(procedure)
            ),
            None,
        );
        return None;
    }
    let months = match &s.months {
        None => None,
        Some(m) => {
            let mut mask = 0u16;
            for (part, pos) in m.items(' ') {
                match part.parse::<u8>() {
                    Ok(n) if (1..=12).contains(&n) => mask |= 1 << n,
                    _ => {
                        cx.error(
                            pos,
                            format!("'{part}' is not a month"),
                            Some("write months as 01 to 12, e.g. months=\"03 06 09 12\"".into()),
                        );
                        return None;
                    }
                }
            }
            Some(mask)
        }
    };
    let repeat = match &s.repeat {
        None => 1,
        Some(r) if r.value == 0 => {
            cx.error(r.pos, "repeat must be at least 1", None);
            return None;
        }
        Some(r) => r.value,
    };
    let max_path = match &s.max_path {
        None => crate::game::moves::MAX_PATH,
        Some(m) if procedure != Procedure::Move => {
            cx.error(m.pos, "max-path is for procedure=\"move\" steps", None);
            return None;
        }
        Some(m) if !(1..=32).contains(&m.value) => {
            cx.error(
                m.pos,
                format!("max-path {} is out of range", m.value),
                Some("a path is 1 to 32 lines long".into()),
            );
            return None;
        }
        Some(m) => m.value,
    };
    let max_rounds = match &s.max_rounds {
        None => None,
        Some(m) if procedure != Procedure::Battles => {
            cx.error(m.pos, "max-rounds is for procedure=\"battles\" steps", None);
            return None;
        }
        Some(m) if m.value == 0 => {
            cx.error(
                m.pos,
                "max-rounds must be at least 1",
                Some("leave it out for battles of any length".into()),
            );
            return None;
        }
        Some(m) => Some(m.value),
    };
    let activate = match &s.activate {
        None => crate::format::Activate::Box,
        Some(a) if procedure != Procedure::Move => {
            cx.error(a.pos, "activate is for procedure=\"move\" steps", None);
            return None;
        }
        Some(a) => a.value,
    };
    let immediate = match &s.combat {
        None => false,
        Some(c) if activate != crate::format::Activate::Piece => {
            cx.error(
                c.pos,
                "combat is for procedure=\"move\" steps with activate=\"piece\"",
                Some("battles fought during movement need pieces activated one at a time".into()),
            );
            return None;
        }
        Some(c) => c.value == crate::format::Combat::Immediate,
    };
    let resolve = match &s.resolve {
        None => crate::format::Resolve::Dice,
        Some(r) if procedure != Procedure::Battles && !immediate => {
            cx.error(
                r.pos,
                "resolve is for procedure=\"battles\" steps and move steps with combat=\"immediate\"",
                None,
            );
            return None;
        }
        Some(r) => r.value,
    };
    let mut battle = crate::calendar::BattleOptions::default();
    for (pos, name) in [
        (s.fire.as_ref().map(|x| x.pos), "fire"),
        (s.casualties.as_ref().map(|x| x.pos), "casualties"),
        (s.retreat.as_ref().map(|x| x.pos), "retreat"),
        (s.withdraw.as_ref().map(|x| x.pos), "withdraw"),
        (s.reinforce.as_ref().map(|x| x.pos), "reinforce"),
    ] {
        if let Some(pos) = pos
            && procedure != Procedure::Battles
        {
            cx.error(
                pos,
                format!("{name} is for procedure=\"battles\" steps"),
                None,
            );
            return None;
        }
    }
    if let Some(f) = &s.fire {
        battle.fire = f.value;
    }
    if let Some(c) = &s.casualties {
        battle.casualties = c.value;
    }
    if let Some(r) = &s.retreat {
        battle.retreat = r.value;
    }
    if let Some(w) = &s.withdraw {
        battle.no_withdrawal = !w.value;
    }
    if let Some(r) = &s.reinforce {
        battle.no_reinforcement = !r.value;
    }
    if let Some(f) = &s.fire
        && f.value == crate::format::Fire::Simultaneous
        && battle.casualties != crate::format::Casualties::Owner
    {
        cx.error(
            f.pos,
            "simultaneous fire needs casualties=\"owner\"",
            Some("add casualties=\"owner\": shots that name targets are fired in turn".into()),
        );
        return None;
    }
    if resolve == crate::format::Resolve::Rules {
        let dice_only = [
            s.fire.as_ref().map(|x| x.pos),
            s.casualties.as_ref().map(|x| x.pos),
            s.retreat.as_ref().map(|x| x.pos),
            s.reinforce.as_ref().map(|x| x.pos),
        ];
        if let Some(pos) = dice_only.into_iter().flatten().next() {
            cx.error(
                pos,
                "fire, casualties, retreat and reinforce are for battles by dice",
                Some("a battle the rules resolve has its own sequence (resolve=\"rules\")".into()),
            );
            return None;
        }
    }
    let place_in = match &s.place_in {
        None => None,
        Some(v) if procedure != Procedure::Place => {
            cx.error(v.pos, "place-in is for procedure=\"place\" steps", None);
            return None;
        }
        Some(v) => {
            let found = values.get(v).and_then(BoxValueId::from_index);
            if found.is_none() {
                let hint = values
                    .hint(v)
                    .or_else(|| Some("declare it in the map as <box-value id=.../>".into()));
                cx.error(v.pos, format!("unknown box value '{}'", v.value), hint);
                return None;
            }
            found
        }
    };
    let place_stock = match &s.place_stock {
        None => false,
        Some(v) if procedure != Procedure::Place => {
            cx.error(v.pos, "place-stock is for procedure=\"place\" steps", None);
            return None;
        }
        Some(v) => v.value,
    };
    let side = match &s.side {
        None => None,
        Some(n) => {
            let found = sides.get(n).and_then(SideId::from_index);
            if found.is_none() {
                cx.error(n.pos, format!("unknown side '{}'", n.value), sides.hint(n));
                return None;
            }
            found
        }
    };
    Some(Step {
        id: s.id.value.clone(),
        name: s.name.clone(),
        procedure,
        spends,
        months,
        repeat,
        max_path,
        max_rounds,
        resolve,
        activate,
        immediate,
        activate_rule: s.activate_rule.clone().unwrap_or_default(),
        points_rule: s.points_rule.clone().unwrap_or_default(),
        battle,
        place_in,
        place_stock,
        side,
        pos: s.pos,
    })
}

/// A procedure's name as written in XML.
pub(crate) fn procedure_name(p: Procedure) -> &'static str {
    match p {
        Procedure::Move => "move",
        Procedure::Battles => "battles",
        Procedure::Upgrade => "upgrade",
        Procedure::Place => "place",
        Procedure::Script => "script",
    }
}

fn side_name(sides: &NameIndex, index: usize) -> String {
    sides.name_of(index).unwrap_or("?").to_string()
}
