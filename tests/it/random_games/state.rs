//! What must hold in every state, and what may change from one state to the next.

use super::*;

pub(crate) fn check_state(g: &mut Game<'_>, step: usize, state: &GameState) {
    let ahd = g.ahd;
    let m = &ahd.m;
    if let Err(e) = state.check_invariants(m) {
        g.flag(step, "GameState::check_invariants", e);
    }
    // 11.6: the counter mix is a hard limit; every piece is on the board, in the pool,
    // in stock or set aside, and nowhere else.
    for side in m.side_ids() {
        for kind in m.units.ids() {
            let mut n = [0u32; 4];
            for u in state
                .units
                .iter()
                .filter(|u| u.side == side && u.kind == kind)
            {
                n[match u.place {
                    Place::Board(_) => 0,
                    Place::Pool => 1,
                    Place::Stock => 2,
                    Place::SetAside => 3,
                }] += 1;
            }
            let mix = u32::from(m.units.get(kind).mix_for(side));
            if n.iter().sum::<u32>() != mix {
                g.flag(
                    step,
                    "11.6: board + pool + stock + set-aside = counter mix",
                    format!(
                        "{} {}: board {} + pool {} + stock {} + set aside {} != mix {mix}",
                        m.side(side).id,
                        m.units.get(kind).id,
                        n[0],
                        n[1],
                        n[2],
                        n[3]
                    ),
                );
            }
        }
    }
    // 7.1: the Army Maximum Size is the sum of the side's shields over the Recruitment
    // Cities it controls.
    for side in m.side_ids() {
        let sum: u32 = state
            .boxes
            .iter()
            .enumerate()
            .filter(|(_, b)| b.controller == Some(side))
            .map(|(i, _)| u32::from(ahd_terms::recruit_value(m, &m.board.boxes[i], side)))
            .sum();
        if sum != state.army_maximum(m, side) {
            g.flag(
                step,
                "7.1: army maximum = shields of controlled cities",
                format!(
                    "{}: {} from the state, {sum} from the map",
                    m.side(side).id,
                    state.army_maximum(m, side)
                ),
            );
        }
    }
    let kind = ahd.step(state);
    for (i, u) in state.units.iter().enumerate() {
        let t = m.units.get(u.kind);
        if u.hits >= t.steps {
            g.flag(
                step,
                "1.4: a unit's hits are below its steps",
                format!("unit {i} has {} hits of {} steps", u.hits, t.steps),
            );
        }
        // 4.0: no unit takes part in more than two marches in a Movement segment.
        if u.moves > 2 {
            g.flag(
                step,
                "4.0: no unit takes part in more than two marches",
                format!("unit {i} has {} marches", u.moves),
            );
        }
        let on_board = matches!(u.place, Place::Board(_));
        // 5.71: pieces in stock and in the pool are always on their full-strength side.
        if !on_board && (u.hits > 0 || u.flagged(m, "entrenched")) {
            g.flag(
                step,
                "5.71: pieces off the board are full strength and not entrenched",
                format!("unit {i} in {:?}: {} hits", u.place, u.hits),
            );
        }
        // 5.7: reduced units recover when their side's Combat segment is over, and only
        // battles reduce them (5.71: they stay reduced until recovered).
        if on_board && u.hits > 0 && kind != Procedure::Battles && !g.option("refitting") {
            g.flag(
                step,
                "5.7: no unit is reduced outside a Combat segment",
                format!("unit {i} has {} hits in the {kind:?} segment", u.hits),
            );
        }
    }
    let active = state.active_side(m);
    let shared = ahd.shared(state);
    let ws = Where::new(ahd, state);
    match kind {
        // 5.0: every box holding both sides' units at the end of movement is fought
        // over, so none is left once the Combat segment is over.
        Procedure::Upgrade | Procedure::Place => {
            if let Some(&b) = shared.first() {
                g.flag(
                    step,
                    "5.0: no box holds both sides' units after the Combat segment",
                    format!("{} in the {kind:?} segment", ahd.name(b)),
                );
            }
            // 8.0: a player captures every box where he has a unit at the end of his
            // Combat segment.
            if state.outcome.is_none() {
                for b in m.board.box_ids() {
                    if ws.has(active, b) && state.controller(b) != Some(active) {
                        g.flag(
                            step,
                            "8.0: boxes occupied at the end of combat are captured",
                            format!(
                                "{} holds {} units but is controlled by {:?}",
                                ahd.name(b),
                                m.side(active).id,
                                state.controller(b).map(|s| &m.side(s).id)
                            ),
                        );
                    }
                }
            }
        }
        // 4.0: only the moving player's units move, and a unit entering a box with
        // enemy units stops there; so a shared box holds a unit that moved into it.
        Procedure::Move => {
            for &b in &shared {
                let moved_in = state.turn_log.moves.iter().any(|mv| {
                    mv.to() == b
                        && state.unit(mv.unit).side == active
                        && state.unit(mv.unit).place == Place::Board(b)
                });
                if !moved_in {
                    g.flag(
                        step,
                        "4.0: a box holds both sides only where the mover entered it",
                        format!("{} is shared but no moving unit entered it", ahd.name(b)),
                    );
                }
            }
        }
        // 5.0: a battle goes on until one side is eliminated, retreats or withdraws.
        Procedure::Battles => {
            for b in state.combat.iter().flat_map(|c| &c.fought_at) {
                if shared.contains(b) {
                    g.flag(
                        step,
                        "5.0: a box whose battle is over holds one side only",
                        format!("{} is still shared", ahd.name(*b)),
                    );
                }
            }
        }
        // AHD declares no script steps.
        Procedure::Script => g.flag(step, "3.0: AHD's four segments", "a script step".into()),
    }
    // 8.0: "Any box without a unit or Control marker in it is deemed to belong to its
    // original owner"; tan boxes without markers are uncontrolled.
    for b in m.board.box_ids() {
        let empty = ws.units(b).is_empty();
        let bs = state.boxes[b.index()];
        if empty && !bs.marker && bs.controller != m.board.get(b).owner {
            g.flag(
                step,
                "8.0: an empty box without a marker belongs to its original owner",
                format!(
                    "{} is empty, has no marker and is controlled by {:?}, not its owner {:?}",
                    ahd.name(b),
                    bs.controller.map(|s| &m.side(s).id),
                    m.board.get(b).owner.map(|s| &m.side(s).id)
                ),
            );
        }
    }
    // 10.0: a sudden victory stops play at once; a game only ends by a rule.
    let sudden = ahd.sudden_winner(state);
    match &state.outcome {
        None => {
            if let Some(w) = sudden {
                g.flag(
                    step,
                    "10.0: play stops as soon as a victory condition holds",
                    format!("{} has won but the game goes on", m.side(w).id),
                );
            }
        }
        Some(o) => {
            // 11.3: a sudden death ends the game at the end of the March turn, before
            // the next turn begins.
            let sudden_death = (state.player == 0 && state.step == 0)
                .then(|| g.decisive(state))
                .flatten();
            let expected = sudden.or(sudden_death).or_else(|| {
                (state.turn == state.end).then(|| ahd.winner_at_the_end(&g.scenario, state))
            });
            if o.winner != expected {
                g.flag(
                    step,
                    "10.0, 11.1, 11.3: the winner is the one the victory conditions name",
                    format!(
                        "the game says {:?} ({}), the rules say {:?} (turn {}, army maxima \
                         union {} confederate {})",
                        o.winner.map(|s| &m.side(s).id),
                        o.reason,
                        expected.map(|s| &m.side(s).id),
                        m.calendar.turn(state.turn).label,
                        state.army_maximum(m, ahd.union),
                        state.army_maximum(m, ahd.confederate)
                    ),
                );
            }
            if !has_rule_number(&o.reason) {
                g.flag(
                    step,
                    "an outcome's reason cites its rule",
                    format!("reason '{}'", o.reason),
                );
            }
        }
    }
}

/// Whether `text` cites a rule like "(10.0)" or "(11.1)".
pub(crate) fn has_rule_number(text: &str) -> bool {
    text.split('(').skip(1).any(|s| {
        let inner = s.split(')').next().unwrap_or("");
        let mut parts = inner.split('.');
        let (a, b) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        !a.is_empty()
            && !b.is_empty()
            && a.chars().all(|c| c.is_ascii_digit())
            && b.chars().all(|c| c.is_ascii_digit())
    })
}

// ---------------------------------------------------------------------------------
// What may change from one state to the next.

pub(crate) fn check_step(
    g: &mut Game<'_>,
    step: usize,
    before: &GameState,
    action: &Action,
    after: &GameState,
    track: &mut Track,
) {
    let ahd = g.ahd;
    let m = &ahd.m;
    let active = before.active_side(m);
    let combat = ahd.combat_index();
    let same_player_turn = (before.turn, before.player) == (after.turn, after.player);
    let new_player_turn = !same_player_turn && after.outcome.is_none();
    // The action finished the mover's Combat segment (capture 8.0, recovery 5.7).
    let combat_ended = before.step <= combat
        && (!same_player_turn
            || after.step > combat
            || (after.outcome.is_some() && after.step == combat && after.combat.is_none()));
    let b0 = battle(before);
    let (wb, wa) = (Where::new(ahd, before), Where::new(ahd, after));

    // Where pieces go: each move of a piece has a rule behind it.
    for (i, (u0, u1)) in before.units.iter().zip(&after.units).enumerate() {
        let id = UnitId::from_index(i).expect("unit id");
        if u0.place != u1.place {
            let returns = if ahd.is_militia(u0.kind) {
                Place::Pool
            } else {
                Place::Stock
            };
            let why = match (u0.place, u1.place) {
                (Place::Board(x), Place::Board(y)) => match action {
                    Action::Move { unit, path } => {
                        (*unit == id && path.from == x && path.to() == y).then_some("4.0")
                    }
                    Action::Retreat { to } => b0
                        .filter(|b| b.at == x && *to == y && own(b, b.decider()).contains(&id))
                        .map(|_| "5.4"),
                    Action::Reinforce { unit } => {
                        (*unit == id && b0.is_some_and(|b| b.at == y)).then_some("5.5")
                    }
                    a if sea_move(a) == Some((id, y)) => Some("4.6"),
                    _ => None,
                },
                (Place::Board(x), to) if to == returns => match action {
                    Action::Target { .. } => b0
                        .filter(|b| {
                            b.at == x && (b.attackers.contains(&id) || b.defenders.contains(&id))
                        })
                        .map(|_| "5.1"),
                    Action::Upgrade { unit } => (*unit == id).then_some("6.0"),
                    _ => None,
                },
                (Place::Stock, Place::Board(y)) => match action {
                    Action::Upgrade { unit } => {
                        let old = before.unit(*unit);
                        (old.place == Place::Board(y)
                            && old.side == u0.side
                            && m.units.get(old.kind).promotes_to == Some(u0.kind))
                        .then_some("6.0")
                    }
                    _ => None,
                },
                (Place::Pool, Place::Board(y)) => match action {
                    Action::Place { kind, at } => (*kind == u0.kind && *at == y).then_some("7.0"),
                    _ => None,
                },
                (Place::SetAside, Place::Pool) => {
                    let t = m.calendar.turn(after.turn);
                    (after.turn != before.turn
                        && t.first_month == 4
                        && (1862..=1864).contains(&t.year)
                        && u0.side == ahd.union
                        && m.units.get(u0.kind).id == "Mi")
                        .then_some("7.2")
                }
                _ => None,
            };
            if why.is_none() {
                g.flag(
                    step,
                    "pieces move only as a rule says (4.0, 4.6, 5.1, 5.4, 5.5, 6.0, 7.0, 7.2)",
                    format!(
                        "{} went from {:?} to {:?} on {}",
                        m.units.get(u0.kind).id,
                        u0.place,
                        u1.place,
                        describe::action(m, before, action)
                    ),
                );
            }
            continue;
        }
        // 4.3: units entrench by a march, or by beginning a player turn in a Permanent
        // Entrenchment; a promoted unit keeps its status (6.0).
        if !u0.flagged(m, "entrenched") && u1.flagged(m, "entrenched") {
            let permanent = new_player_turn
                && matches!(u1.place, Place::Board(b) if m.board.get(b).has_tag("permanent-entrenchment"));
            if !(taken(action, "entrench") == Some(id) || permanent) {
                g.flag(
                    step,
                    "4.3: units entrench only by a march or in a permanent entrenchment",
                    format!(
                        "unit {i} entrenched on {}",
                        describe::action(m, before, action)
                    ),
                );
            }
        }
        // 4.3: "If a unit moves, its entrenchment status is lost", and only then.
        if u0.flagged(m, "entrenched") && !u1.flagged(m, "entrenched") {
            g.flag(
                step,
                "4.3: a unit that does not move stays entrenched",
                format!(
                    "unit {i} lost its entrenchment on {}",
                    describe::action(m, before, action)
                ),
            );
        }
        // 5.1: hits come from shots in a battle; 5.7: they go when the Combat segment ends.
        if u1.hits > u0.hits {
            let in_battle =
                b0.is_some_and(|b| b.attackers.contains(&id) || b.defenders.contains(&id));
            if !(matches!(action, Action::Target { .. }) && in_battle) {
                g.flag(
                    step,
                    "5.1: only units in the battle take hits",
                    format!(
                        "unit {i} was hit on {}",
                        describe::action(m, before, action)
                    ),
                );
            }
        }
        let recovered = taken(action, "recover") == Some(id);
        let may_recover = if g.option("refitting") {
            recovered
        } else {
            combat_ended
        };
        if u1.hits < u0.hits && !may_recover {
            g.flag(
                step,
                "5.7, 5.71: reduced units recover after their side's Combat segment, or \
                 (5.71) by a march or a recruitment point",
                format!(
                    "unit {i} recovered on {}",
                    describe::action(m, before, action)
                ),
            );
        }
    }
    if let Action::Move { unit, path } = action
        && after.unit(*unit).flagged(m, "entrenched")
        && after.unit(*unit).place == Place::Board(path.to())
        && same_player_turn
    {
        g.flag(
            step,
            "4.3: a unit that moves loses its entrenchment",
            format!("unit {} is still entrenched", unit.0),
        );
    }

    // 4.3: any unit that begins a player turn in a Permanent Entrenchment is entrenched.
    if new_player_turn {
        for (i, u) in after.units.iter().enumerate() {
            if let Place::Board(b) = u.place
                && m.board.get(b).has_tag("permanent-entrenchment")
                && !u.flagged(m, "entrenched")
            {
                g.flag(
                    step,
                    "4.3: units beginning a player turn in a permanent entrenchment are entrenched",
                    format!("unit {i} in {} is not", ahd.name(b)),
                );
            }
        }
    }

    // 8.0: control changes when a player captures boxes at the end of his Combat
    // segment, or when a side vacates a box it captured: it keeps it with a marker,
    // except that cavalry alone hold a box only while there.
    for b in m.board.box_ids() {
        let (c0, c1) = (before.controller(b), after.controller(b));
        if c0 == c1 {
            continue;
        }
        let captured = combat_ended && c1 == Some(active) && wa.has(active, b);
        let vacated_by = c0.filter(|&s| wb.has(s, b) && !wa.has(s, b));
        let reverted = vacated_by.is_some() && c1 == m.board.get(b).owner;
        if captured {
            continue;
        }
        if reverted {
            let s = vacated_by.expect("checked");
            let infantry = wb.of(s, b).into_iter().any(|u| ahd.is_infantry(before, u));
            if infantry {
                g.flag(
                    step,
                    "8.0: a box vacated by infantry keeps its captor's control marker",
                    format!(
                        "{} reverted to its own colour when {} infantry left it ({})",
                        ahd.name(b),
                        m.side(s).id,
                        describe::action(m, before, action)
                    ),
                );
            }
            continue;
        }
        g.flag(
            step,
            "8.0: control changes only by capture at the end of combat, or on vacating",
            format!(
                "{} went from {:?} to {:?} on {}",
                ahd.name(b),
                c0.map(|s| &m.side(s).id),
                c1.map(|s| &m.side(s).id),
                describe::action(m, before, action)
            ),
        );
    }
    // 5.0: the battles of a Combat segment are in the boxes shared when it began; no
    // new box becomes shared during it (retreats never enter enemy boxes, 5.4).
    if ahd.step(before) == Procedure::Move && ahd.step(after) == Procedure::Battles {
        track.combat_boxes = ahd.shared(after);
    }
    if ahd.step(after) == Procedure::Battles && same_player_turn {
        for b in ahd.shared(after) {
            if !track.combat_boxes.contains(&b) {
                g.flag(
                    step,
                    "5.0, 5.4: no box becomes shared during the Combat segment",
                    format!("{} became shared", ahd.name(b)),
                );
            }
        }
    }

    match action {
        Action::Fight { .. } => track.reinforced_from.clear(),
        Action::Reinforce { unit } => {
            if let (Some(b), Place::Board(from)) = (b0, before.unit(*unit).place)
                && before.unit(*unit).side == b.attacker
            {
                track.reinforced_from.push(from);
            }
        }
        _ => {}
    }

    // 8.0: a side that completely vacates a box it captured keeps it with a Control
    // marker, or (cavalry alone) loses it to the box's own colour, at once, however it
    // left (a march, a move by sea, reinforcing a battle: the 5.5 example's cavalry
    // "leaves no Control marker" behind).
    for b in m.board.box_ids() {
        let Some(s) = before.controller(b) else {
            continue;
        };
        if m.board.get(b).owner == Some(s) || !wb.has(s, b) || !wa.units(b).is_empty() {
            continue;
        }
        let bs = after.boxes[b.index()];
        let kept = bs.controller == Some(s) && bs.marker;
        let reverted = bs.controller == m.board.get(b).owner;
        if !kept && !reverted {
            g.flag(
                step,
                "8.0: a captured box its captor vacates gets a marker or reverts at once",
                format!(
                    "{} left empty by {} ({}): controller {:?}, marker {}",
                    ahd.name(b),
                    m.side(s).id,
                    describe::action(m, before, action),
                    bs.controller.map(|x| &m.side(x).id),
                    bs.marker
                ),
            );
        }
    }

    // 5.4: a retreat goes to a box without enemy units.
    if let (Action::Retreat { to }, Some(b)) = (action, b0) {
        let side = b.decider();
        if wa.enemy_in(side, *to) {
            g.flag(
                step,
                "5.4: a retreat never ends among enemy units",
                format!("retreat into {}", ahd.name(*to)),
            );
        }
    }

    // 5.6: a defender of cavalry alone may withdraw before combat, unless every
    // attacker is cavalry too.
    if let (Action::Fight { .. }, Some(b)) = (action, battle(after))
        && b.round == 1
    {
        let all_cav = |list: &[UnitId]| list.iter().all(|&u| ahd.is_cavalry(after, u));
        let may = all_cav(&b.defenders) && !all_cav(&b.attackers);
        if may != (b.stage == Stage::Withdraw) {
            g.flag(
                step,
                "5.6: cavalry withdrawal before combat is offered exactly when allowed",
                format!(
                    "battle at {}: stage {:?}, defenders all cavalry {}, attackers all cavalry {}",
                    ahd.name(b.at),
                    b.stage,
                    all_cav(&b.defenders),
                    all_cav(&b.attackers)
                ),
            );
        }
    }

    // 6.0: one promotion in the Promotion segment.
    if ahd.step(before) != Procedure::Upgrade || !same_player_turn {
        track.promotions = 0;
    }
    if ahd.step(before) == Procedure::Upgrade && matches!(action, Action::Upgrade { .. }) {
        track.promotions += 1;
        if track.promotions > 1 {
            g.flag(
                step,
                "6.0: one promotion in the Promotion segment",
                format!("promotion number {}", track.promotions),
            );
        }
    }
    // 4.6: each unit moved by sea counts as one march.
    if sea_move(action).is_some() {
        let left = |s: &GameState| ahd.left(s);
        if left(before) != left(after) + 1 {
            g.flag(
                step,
                "4.6: each unit moved by sea counts as one march",
                format!("marches left went from {} to {}", left(before), left(after)),
            );
        }
    }
    // 5.71: recovering a reduced unit of the mover's costs a march, which is one of the
    // unit's marches (4.0), or a recruitment point.
    if let Some(unit) = taken(action, "recover") {
        let (u0, u1) = (before.unit(unit), after.unit(unit));
        let left = |s: &GameState| ahd.left(s);
        let paid = match ahd.step(before) {
            Procedure::Move => left(before) == left(after) + 1 && u1.moves == u0.moves + 1,
            Procedure::Place => ahd.left(before) == ahd.left(after) + 1,
            _ => false,
        };
        if !g.option("refitting")
            || u0.side != active
            || u0.hits == 0
            || u1.hits != 0
            || !matches!(u0.place, Place::Board(_))
            || !paid
        {
            g.flag(
                step,
                "5.71: a march or a recruitment point recovers one reduced unit",
                format!(
                    "{}: marches {} -> {}, points {} -> {}",
                    describe::action(m, before, action),
                    left(before),
                    left(after),
                    ahd.left(before),
                    ahd.left(after)
                ),
            );
        }
    }
    // 11.3: with sudden death, a March turn with a Decisive victory is the last.
    if after.turn != before.turn && after.outcome.is_none() && g.decisive(before).is_some() {
        g.flag(
            step,
            "11.3: sudden death ends the game at a March turn with a Decisive victory",
            format!(
                "{} is over and play goes on",
                m.calendar.turn(before.turn).label
            ),
        );
    }
    // 7.1: recruiting never takes a side beyond its Army Maximum Size.
    if let Action::Place { .. } = action {
        let on_board = after
            .units
            .iter()
            .filter(|u| u.side == active && matches!(u.place, Place::Board(_)))
            .count();
        let max = after.army_maximum(m, active) as usize;
        if on_board > max {
            g.flag(
                step,
                "7.1: recruiting stops at the Army Maximum Size",
                format!("{on_board} units on the board, maximum {max}"),
            );
        }
    }

    // 4.0, 4.1, 11.2: marches rolled (a 1 counts as 2), two on a scenario's first turn;
    // 6.0 one promotion; 7.0 recruitment points rolled (a 1 counts as 2).
    if position(before) != position(after) && after.outcome.is_none() {
        match ahd.step(after) {
            Procedure::Move => {
                let left = ahd.left(after);
                track.marches = left;
                let ok = if after.turn == after.first_turn {
                    left == 2
                } else {
                    (2..=6).contains(&left)
                };
                if !ok {
                    g.flag(
                        step,
                        "4.0, 4.1: 2 to 6 marches, 2 on the first turn",
                        format!("{left} marches in {}", m.calendar.turn(after.turn).label),
                    );
                }
            }
            Procedure::Upgrade if ahd.left(after) != 1 => g.flag(
                step,
                "6.0: the player may promote one unit in his Promotion segment",
                format!("{} promotions", ahd.left(after)),
            ),
            Procedure::Place if !(2..=6).contains(&ahd.left(after)) => g.flag(
                step,
                "7.0: 2 to 6 recruitment points",
                format!("{} points", ahd.left(after)),
            ),
            _ => {}
        }
    }
}
