//! The list of legal actions, against the rules.

use super::*;

/// Why the Movement Chart (4.0) and the jump rules (4.2, 4.4, 4.5) forbid this march,
/// or `None` if they allow it. Lines of kinds the chart does not name are not judged.
pub(crate) fn march_forbidden(
    ahd: &Ahd,
    w: &Where<'_>,
    unit: UnitId,
    path: &Path,
) -> Option<&'static str> {
    let state = w.state;
    let side = state.unit(unit).side;
    if w.enemy_in(side, path.from) {
        return Some("4.0: a unit that entered a box with enemy units stops there");
    }
    if state
        .turn_log
        .moves
        .iter()
        .any(|mv| mv.unit == unit && mv.relocated_to.is_some())
    {
        return Some("4.6: a unit that moved by sea makes no other move that segment");
    }
    let kinds: Vec<&str> = path.steps.iter().map(|s| ahd.line_kind(s.line)).collect();
    if kinds.iter().any(|k| !["road", "rail", "river"].contains(k)) {
        return None;
    }
    let has = |k: &str| kinds.contains(&k);
    if side != ahd.union
        && path
            .steps
            .iter()
            .any(|s| ahd.m.board.line(s.line).name.as_deref() == Some("Potomac"))
    {
        return Some("4.2: only the Union may use the Potomac");
    }
    if has("river") && (has("road") || has("rail")) {
        return Some("4.0: no unit combines river movement with other lines");
    }
    let cavalry = ahd.is_cavalry(state, unit);
    if !cavalry && has("road") && has("rail") {
        return Some("4.0: infantry may not move along two types of line in one march");
    }
    let friendly_rail = kinds.iter().all(|&k| k == "rail")
        && state.controller(path.from) == Some(side)
        && path
            .steps
            .iter()
            .all(|s| state.controller(s.to) == Some(side));
    let longest = if cavalry || has("river") || friendly_rail {
        2
    } else {
        1
    };
    if path.steps.len() > longest {
        return Some("4.0: longer than the Movement Chart allows");
    }
    let passed: Vec<BoxId> = path.through().filter(|&b| w.enemy_in(side, b)).collect();
    if passed.is_empty() {
        return None;
    }
    if state
        .turn_log
        .moves
        .iter()
        .any(|mv| mv.unit == unit && mv.jump)
    {
        return Some("4.4: one jump move per Movement segment");
    }
    if w.enemy_in(side, path.to()) {
        return Some("4.4: a jump move may not end among enemy units");
    }
    if has("river") {
        let down = path
            .steps
            .iter()
            .all(|s| ahd.m.board.line(s.line).downstream == Some(s.to));
        if side != ahd.union || !down {
            return Some("4.5: only Union units jump, and only down a river");
        }
        return None;
    }
    if !cavalry {
        return Some("4.0: infantry entering a box with enemy units stops there");
    }
    if passed.iter().any(|&b| {
        w.units(b)
            .iter()
            .any(|&u| state.unit(u).side != side && ahd.is_cavalry(state, u))
    }) {
        return Some("4.4: cavalry may not jump through enemy cavalry");
    }
    None
}

/// Paths of one and two lines of known kinds from `from`, never revisiting a box.
pub(crate) fn short_paths(ahd: &Ahd, from: BoxId) -> Vec<Path> {
    let known = |l: LineId| ["road", "rail", "river"].contains(&ahd.line_kind(l));
    let mut out = Vec::new();
    for &(b, l1) in ahd.m.board.neighbours(from) {
        if !known(l1) {
            continue;
        }
        let first = Step { line: l1, to: b };
        out.push(Path {
            from,
            steps: vec![first],
        });
        for &(c, l2) in ahd.m.board.neighbours(b) {
            if c != from && known(l2) {
                out.push(Path {
                    from,
                    steps: vec![first, Step { line: l2, to: c }],
                });
            }
        }
    }
    out
}

/// Compares a listed set of actions with the set the rules allow.
/// AHD's rules offer entrenching (4.3), moves by sea (4.6) and recovery (5.71) as
/// `Take` actions: the offer of `id` for `unit` (and box), with no label (the oracle
/// compares actions without their labels, see [`unlabelled`]).
pub(crate) fn offer(id: &str, unit: UnitId, at: Option<BoxId>) -> Action {
    Action::Take {
        offer: id.into(),
        unit: Some(unit),
        at,
        label: String::new(),
        seat: None,
        entry: None,
    }
}

/// The piece an offer of `id` is taken for, if `a` takes one.
pub(crate) fn taken(a: &Action, id: &str) -> Option<UnitId> {
    match a {
        Action::Take { offer, unit, .. } if offer == id => *unit,
        _ => None,
    }
}

/// The piece and port of a move by sea, if `a` is one.
pub(crate) fn sea_move(a: &Action) -> Option<(UnitId, BoxId)> {
    match a {
        Action::Take {
            offer,
            unit: Some(u),
            at: Some(to),
            ..
        } if offer == "sea-move" => Some((*u, *to)),
        _ => None,
    }
}

/// `a` without its label (the rules' wording), for comparing offers.
pub(crate) fn unlabelled(a: &Action) -> Action {
    match a {
        Action::Take {
            offer,
            unit,
            at,
            seat,
            ..
        } => Action::Take {
            offer: offer.clone(),
            unit: *unit,
            at: *at,
            label: String::new(),
            seat: *seat,
            entry: None,
        },
        other => other.clone(),
    }
}

pub(crate) fn same_set(
    g: &mut Game<'_>,
    step: usize,
    rule: &str,
    state: &GameState,
    listed: &[Action],
    expected: &[Action],
) {
    let m = &g.ahd.m;
    let listed_set: HashSet<Action> = listed.iter().map(unlabelled).collect();
    let expected_set: HashSet<Action> = expected.iter().map(unlabelled).collect();
    let extra: Vec<String> = listed
        .iter()
        .filter(|a| !expected_set.contains(&unlabelled(a)))
        .map(|a| describe::action(m, state, a))
        .collect();
    let missing: Vec<String> = expected
        .iter()
        .filter(|a| !listed_set.contains(&unlabelled(a)))
        .map(|a| describe::action(m, state, a))
        .collect();
    if !extra.is_empty() || !missing.is_empty() {
        g.flag(
            step,
            rule,
            format!(
                "{}: listed but not allowed {extra:?}; allowed but not listed {missing:?}",
                describe::situation(m, state).replace('\n', "; ")
            ),
        );
    }
}

/// The placements a computer player finds one by one (the engine's candidates, each
/// asked about alone) are the legal list's, in its order: the `ai` asks only about its
/// best, and must choose what it would choose from the whole list.
pub(crate) fn check_placements(
    g: &mut Game<'_>,
    step: usize,
    rules: &mut ScriptRules,
    state: &GameState,
    legal: &[Action],
) {
    let m = &g.ahd.m;
    if g.ahd.step(state) != Procedure::Place {
        return;
    }
    let mut one_by_one = Vec::new();
    for c in placing::candidates(m, state) {
        match placing::allowed(m, rules, state, c) {
            Ok(true) => one_by_one.push(Action::Place { kind: c.0, at: c.1 }),
            Ok(false) => {}
            Err(e) => return g.flag(step, "7.0: the rules answer may_place", e.to_string()),
        }
    }
    let listed: Vec<Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Place { .. }))
        .cloned()
        .collect();
    if one_by_one != listed {
        g.flag(
            step,
            "7.0: the placements asked about one by one are the legal list's",
            format!("one by one {one_by_one:?}, listed {listed:?}"),
        );
    }
}

pub(crate) fn check_legal(
    g: &mut Game<'_>,
    step: usize,
    state: &GameState,
    legal: &[Action],
    track: &Track,
) {
    let ahd = g.ahd;
    let ws = Where::new(ahd, state);
    let m = &ahd.m;
    let side = state.active_side(m);
    let unique: HashSet<&Action> = legal.iter().collect();
    if unique.len() != legal.len() {
        g.flag(
            step,
            "legal actions are listed once each",
            "a duplicate".into(),
        );
    }
    let of = |f: fn(&Action) -> bool| -> Vec<Action> {
        legal.iter().filter(|a| f(a)).cloned().collect()
    };
    match ahd.step(state) {
        Procedure::Move => {
            let Some(seg) = &state.moving else {
                g.flag(step, "4.0: a Movement segment has marches", "none".into());
                return;
            };
            match &seg.active {
                None => {
                    // 4.0: a march activates a box holding friendly units that may
                    // still march.
                    let expected: Vec<Action> = if ahd.left(state) == 0 {
                        Vec::new()
                    } else {
                        m.board
                            .box_ids()
                            .filter(|&b| ws.of(side, b).iter().any(|&u| state.unit(u).moves < 2))
                            .map(|at| Action::Select { at })
                            .collect()
                    };
                    same_set(
                        g,
                        step,
                        "4.0: a march activates any box with friendly units that may still march",
                        state,
                        &of(|a| matches!(a, Action::Select { .. })),
                        &expected,
                    );
                    // 4.6: a Union unit that started the segment in a port, and has not
                    // moved, may move by sea to any other port the Union controls; it
                    // counts as one march, so not for a unit that already took part in
                    // two (4.0). 4.7: on a roll of six, units that started in
                    // Washington may invade a Confederate-controlled port.
                    let invasion = track.marches == 6 && state.turn != state.first_turn;
                    let mut expected = Vec::new();
                    if side == ahd.union && ahd.left(state) >= 1 {
                        let ports: Vec<BoxId> = m
                            .board
                            .box_ids()
                            .filter(|&b| m.board.get(b).has_tag("port"))
                            .collect();
                        for &from in &ports {
                            for unit in ws.of(side, from) {
                                let moved = state.turn_log.moves.iter().any(|mv| mv.unit == unit);
                                if moved || state.unit(unit).moves >= 2 {
                                    continue;
                                }
                                for &to in &ports {
                                    let c = state.controller(to);
                                    let ok = c == Some(ahd.union)
                                        || (invasion
                                            && from == ahd.washington
                                            && c == Some(ahd.confederate));
                                    if to != from && ok {
                                        expected.push(offer("sea-move", unit, Some(to)));
                                    }
                                }
                            }
                        }
                    }
                    same_set(
                        g,
                        step,
                        "4.6, 4.7: who may move by sea, and where",
                        state,
                        &of(|a| taken(a, "sea-move").is_some()),
                        &expected,
                    );
                    // 5.71: a march may recover one reduced unit of the player's, one of
                    // its two marches (4.0).
                    let expected: Vec<Action> = if g.option("refitting") && ahd.left(state) > 0 {
                        state
                            .unit_ids()
                            .filter(|&u| {
                                let unit = state.unit(u);
                                unit.side == side
                                    && unit.hits > 0
                                    && unit.moves < 2
                                    && matches!(unit.place, Place::Board(_))
                            })
                            .map(|unit| offer("recover", unit, None))
                            .collect()
                    } else {
                        Vec::new()
                    };
                    same_set(
                        g,
                        step,
                        "5.71: a march may recover a reduced unit",
                        state,
                        &of(|a| taken(a, "recover").is_some()),
                        &expected,
                    );
                    if !legal.contains(&Action::EndStep) {
                        g.flag(
                            step,
                            "3.0: the player may end his Movement segment",
                            "no EndSegment".into(),
                        );
                    }
                }
                Some(a) => {
                    check_marches(g, step, &ws, legal, a.at, &a.ready);
                    // 4.3: one march entrenches units in a Recruitment City, two
                    // anywhere else, never in a box with enemy units, and no unit takes
                    // part in more than two marches (4.0).
                    let cost = if ahd.is_recruitment_city(a.at) { 1 } else { 2 };
                    let expected: Vec<Action> = a
                        .ready
                        .iter()
                        .filter(|&&u| {
                            !ws.enemy_in(side, a.at)
                                && state.unit(u).moves + cost <= 2
                                && (state.var("entrench-paid") == 1
                                    || ahd.left(state) + 1 >= i64::from(cost))
                        })
                        .map(|&unit| offer("entrench", unit, None))
                        .collect();
                    same_set(
                        g,
                        step,
                        "4.3: who may entrench",
                        state,
                        &of(|a| taken(a, "entrench").is_some()),
                        &expected,
                    );
                    if !legal.contains(&Action::Release) {
                        g.flag(step, "4.0: a march may end", "no EndMarch".into());
                    }
                }
            }
        }
        Procedure::Battles => match battle(state) {
            None => {
                // 5.0: a battle in every box holding both sides' units, in the
                // attacker's order.
                let expected: Vec<Action> = ahd
                    .shared(state)
                    .into_iter()
                    .map(|at| Action::Fight { at })
                    .collect();
                same_set(
                    g,
                    step,
                    "5.0: a battle must be fought in every shared box",
                    state,
                    legal,
                    &expected,
                );
            }
            Some(b) => check_battle(g, step, &ws, legal, b, track),
        },
        Procedure::Upgrade => {
            // 6.0: any one unit, not one promoted this player turn, with a piece of the
            // next quality left in stock (11.6).
            let expected: Vec<Action> = if ahd.left(state) == 0 {
                Vec::new()
            } else {
                state
                    .unit_ids()
                    .filter(|&u| state.unit(u).side == side && may_promote(ahd, state, u))
                    .map(|unit| Action::Upgrade { unit })
                    .collect()
            };
            same_set(
                g,
                step,
                "6.0: who may be promoted in the Promotion segment",
                state,
                &of(|a| matches!(a, Action::Upgrade { .. })),
                &expected,
            );
        }
        Procedure::Place => {
            // 7.0: a Militia unit from the pool, into a friendly-controlled Recruitment
            // City with a shield of the side's colour, one per city per segment, while
            // the side is below its Army Maximum Size (7.1).
            let on_board = state
                .units
                .iter()
                .filter(|u| u.side == side && matches!(u.place, Place::Board(_)))
                .count() as u32;
            let mut expected = Vec::new();
            if ahd.left(state) > 0 && on_board < state.army_maximum(m, side) {
                for kind in m.units.ids() {
                    if !ahd.is_militia(kind) || state.count(side, kind, |p| p == Place::Pool) == 0 {
                        continue;
                    }
                    for at in m.board.box_ids() {
                        if state.controller(at) == Some(side)
                            && ahd_terms::recruit_value(m, m.board.get(at), side) > 0
                            && !ws.enemy_in(side, at)
                            && !state.turn_log.placed.contains(&at)
                        {
                            expected.push(Action::Place { kind, at });
                        }
                    }
                }
            }
            same_set(
                g,
                step,
                "7.0, 7.1: where and what may be recruited",
                state,
                &of(|a| matches!(a, Action::Place { .. })),
                &expected,
            );
            // 5.71: a recruitment point may recover a reduced unit on the map instead.
            let expected: Vec<Action> = if g.option("refitting") && ahd.left(state) > 0 {
                state
                    .unit_ids()
                    .filter(|&u| {
                        let unit = state.unit(u);
                        unit.side == side && unit.hits > 0 && matches!(unit.place, Place::Board(_))
                    })
                    .map(|unit| offer("recover", unit, None))
                    .collect()
            } else {
                Vec::new()
            };
            same_set(
                g,
                step,
                "5.71: a recruitment point may recover a reduced unit",
                state,
                &of(|a| taken(a, "recover").is_some()),
                &expected,
            );
        }
        Procedure::Script => g.flag(step, "3.0: AHD's four segments", "a script step".into()),
    }
}

/// 6.0, 11.6: a unit on the board of a type that promotes, with a piece of the next
/// quality in stock, not already promoted this player turn.
pub(crate) fn may_promote(ahd: &Ahd, state: &GameState, u: UnitId) -> bool {
    let unit = state.unit(u);
    matches!(unit.place, Place::Board(_))
        && !state.turn_log.upgraded.contains(&u)
        && ahd
            .m
            .units
            .get(unit.kind)
            .promotes_to
            .is_some_and(|to| state.count(unit.side, to, |p| p == Place::Stock) > 0)
}

/// Every listed march obeys the Movement Chart, and every march of one or two lines
/// the chart allows is listed (as the shortest path with the same last line).
pub(crate) fn check_marches(
    g: &mut Game<'_>,
    step: usize,
    ws: &Where<'_>,
    legal: &[Action],
    at: BoxId,
    ready: &[UnitId],
) {
    let ahd = g.ahd;
    let m = &ahd.m;
    let state = ws.state;
    let side = state.active_side(m);
    let mut listed: HashSet<(UnitId, BoxId, Option<LineId>)> = HashSet::new();
    for a in legal {
        let Action::Move { unit, path } = a else {
            continue;
        };
        listed.insert((*unit, path.to(), path.last_line()));
        let u = state.unit(*unit);
        if u.side != side || u.place != Place::Board(at) || path.from != at || u.moves >= 2 {
            g.flag(
                step,
                "4.0: only units of the activated box that may still march move",
                describe::action(m, state, a),
            );
        }
        if let Some(why) = march_forbidden(ahd, ws, *unit, path) {
            g.flag(step, why, describe::action(m, state, a));
        }
    }
    // The movement questions' contract (`Question::MayEnter`), on which computer
    // players search one of several alike units: AHD's rules send alike units (4.0:
    // same side, type, box and marches) to the same places.
    let places = |u: UnitId| -> BTreeSet<(BoxId, Option<LineId>)> {
        listed
            .iter()
            .filter(|(x, _, _)| *x == u)
            .map(|&(_, b, l)| (b, l))
            .collect()
    };
    for (i, &a) in ready.iter().enumerate() {
        for &b in &ready[i + 1..] {
            if let Some(k) = mover_key(state, a)
                && mover_key(state, b) == Some(k)
                && places(a) != places(b)
            {
                g.flag(
                    step,
                    "4.0: alike units march alike (the movement questions' contract)",
                    format!(
                        "{} and {} go to different places",
                        describe::unit(m, state, a),
                        describe::unit(m, state, b)
                    ),
                );
            }
        }
    }
    let paths = short_paths(ahd, at);
    for &unit in ready {
        for p in &paths {
            if march_forbidden(ahd, ws, unit, p).is_none()
                && !listed.contains(&(unit, p.to(), p.last_line()))
            {
                g.flag(
                    step,
                    "4.0: every march the Movement Chart allows is offered",
                    format!(
                        "{} may go {} but it is not listed",
                        describe::unit(m, state, unit),
                        describe::path(m, p)
                    ),
                );
            }
        }
    }
}

pub(crate) fn check_battle(
    g: &mut Game<'_>,
    step: usize,
    ws: &Where<'_>,
    legal: &[Action],
    b: &Battle,
    track: &Track,
) {
    let state = ws.state;
    let ahd = g.ahd;
    let m = &ahd.m;
    let decider = b.decider();
    let enemy = ahd.enemy(decider);
    let passes = legal.contains(&Action::Pass);
    let of = |f: fn(&Action) -> bool| -> Vec<Action> {
        legal.iter().filter(|a| f(a)).cloned().collect()
    };
    // 5.4, 5.6: where a side may go: an adjacent box without enemy units, not an
    // enemy-controlled Recruitment City, not (for the defender) a box from which the
    // attacking units entered the battle; when retreating, a friendly box if any.
    // Whether attackers since eliminated still count is arguable, so either reading is
    // accepted; attackers that reinforced entered the battle from their box too.
    let mut neighbours: Vec<BoxId> = m.board.neighbours(b.at).iter().map(|&(n, _)| n).collect();
    neighbours.sort();
    neighbours.dedup();
    let entered_from = |all: bool| -> Vec<BoxId> {
        b.entries
            .iter()
            .filter(|(u, _)| all || b.attackers.contains(u))
            .filter_map(|&(_, entry)| entry.flatten())
            .filter_map(|l| m.board.line(l).other(b.at))
            .chain(track.reinforced_from.iter().copied())
            .collect()
    };
    // 5.41: an evacuation is a retreat to a friendly box.
    let evacuation = g.evacuation(ws, b).filter(|w| !neighbours.contains(w));
    let destinations = |all: bool| -> Vec<Action> {
        let from_attack = entered_from(all);
        let open: Vec<BoxId> = neighbours
            .iter()
            .copied()
            .filter(|&to| {
                let enemy_city = ahd.is_recruitment_city(to) && state.controller(to) == Some(enemy);
                let attack_came = decider == b.defender && from_attack.contains(&to);
                !ws.enemy_in(decider, to) && !enemy_city && !attack_came
            })
            .chain(evacuation)
            .collect();
        let friendly: Vec<BoxId> = open
            .iter()
            .copied()
            .filter(|&to| state.controller(to) == Some(decider))
            .collect();
        let chosen = if b.stage == Stage::Retreat && !friendly.is_empty() {
            friendly
        } else {
            open
        };
        chosen
            .into_iter()
            .map(|to| Action::Retreat { to })
            .collect()
    };
    match b.stage {
        Stage::Withdraw | Stage::Retreat => {
            if b.stage == Stage::Retreat && b.round < 2 {
                g.flag(
                    step,
                    "5.4: retreats begin with the second round",
                    format!("round {}", b.round),
                );
            }
            let rule = if b.stage == Stage::Withdraw {
                "5.6: where cavalry may withdraw"
            } else {
                "5.4, 5.41: where a side may retreat"
            };
            let listed = of(|a| matches!(a, Action::Retreat { .. }));
            let (broad, narrow) = (destinations(true), destinations(false));
            let as_set = |v: &[Action]| v.iter().cloned().collect::<HashSet<Action>>();
            let got = as_set(&listed);
            if got != as_set(&broad) && got != as_set(&narrow) {
                same_set(g, step, rule, state, &listed, &broad);
            }
        }
        Stage::Reinforce => {
            // 5.5: from round 2, one unit from each adjacent box, not one that fought
            // this player turn; the attacker not from a box with enemy units, the
            // defender leaving as many units as there are enemies there.
            if b.round < 2 {
                g.flag(
                    step,
                    "5.5: reinforcements begin with the second round",
                    format!("round {}", b.round),
                );
            }
            let firing = b.firing;
            let mut expected = Vec::new();
            for &from in &neighbours {
                if b.reinforced_from.contains(&from) {
                    continue;
                }
                let mine = ws.of(firing, from);
                let theirs = ws.units(from).len() - mine.len();
                let allowed = if firing == b.attacker {
                    theirs == 0
                } else {
                    mine.len() > theirs
                };
                if !allowed {
                    continue;
                }
                for u in mine {
                    if !state.turn_log.fought.contains(&u) {
                        expected.push(Action::Reinforce { unit: u });
                    }
                }
            }
            same_set(
                g,
                step,
                "5.5: who may reinforce a battle",
                state,
                &of(|a| matches!(a, Action::Reinforce { .. })),
                &expected,
            );
        }
        Stage::Target => {
            // 5.1: each unit fires at an enemy of its player's choice, and each enemy is
            // fired upon by at least one unit if possible.
            if passes {
                g.flag(
                    step,
                    "5.1: each unit in the battle fires",
                    "Pass offered when naming targets".into(),
                );
            }
            let mine = own(b, b.firing);
            let theirs = own(b, ahd.enemy(b.firing));
            let shooter = mine
                .iter()
                .copied()
                .find(|u| !b.shots.iter().any(|(s, _)| s == u));
            let Some(shooter) = shooter else {
                g.flag(
                    step,
                    "5.1: targets are named while a unit has none",
                    "every unit has a target".into(),
                );
                return;
            };
            let untargeted: Vec<UnitId> = theirs
                .iter()
                .copied()
                .filter(|e| !b.shots.iter().any(|(_, t)| t == e))
                .collect();
            let still_to_fire = mine.len() - b.shots.len();
            let must_spread = !untargeted.is_empty() && still_to_fire <= untargeted.len();
            let expected: Vec<Action> = theirs
                .iter()
                .copied()
                .filter(|t| !must_spread || untargeted.contains(t))
                .map(|target| Action::Target { shooter, target })
                .collect();
            same_set(
                g,
                step,
                "5.1: whom a unit may fire at",
                state,
                legal,
                &expected,
            );
        }
        Stage::Upgrade => {
            // 6.0: the winner may promote one surviving unit that took part.
            let w = b.winner.unwrap_or(b.attacker);
            let expected: Vec<Action> = own(b, w)
                .iter()
                .copied()
                .filter(|&u| may_promote(ahd, state, u))
                .map(|unit| Action::Upgrade { unit })
                .collect();
            same_set(
                g,
                step,
                "6.0: the battle's winner may promote a surviving unit",
                state,
                &of(|a| matches!(a, Action::Upgrade { .. })),
                &expected,
            );
        }
        // AHD's battles roll dice: the rules never resolve them.
        Stage::Losses | Stage::Rout => g.flag(
            step,
            "5.0",
            "an AHD battle reached a rules-resolved stage".into(),
        ),
    }
    if b.stage != Stage::Target && !passes {
        g.flag(
            step,
            "5.4, 5.5, 5.6, 6.0: a side may decline to retreat, reinforce or promote",
            format!("no Pass at stage {:?}", b.stage),
        );
    }
}
