//! Words for actions and positions, for logs, prompts and the editor.

use super::action::Action;
use super::battle::{Battle, Stage};
use super::moves::Path;
use super::state::{GameState, Place};
use crate::ids::{BoxId, UnitId};
use crate::module::Module;

/// `Veteran Infantry #12`.
pub fn unit(module: &Module, state: &GameState, u: UnitId) -> String {
    let unit = state.unit(u);
    let t = module.units.get(unit.kind);
    let reduced = if unit.hits > 0 { " (reduced)" } else { "" };
    // Off the board a piece has no number: it is one of its type's counters.
    match (state.name(u), unit.number) {
        (None, 0) => format!("{}{reduced}", t.name),
        (None, n) => format!("{} #{n}{reduced}", t.name),
        // A named piece: `I Corps (McDowell) (Corps #3)`.
        (Some(name), 0) => format!("{name} ({}){reduced}", t.name),
        (Some(name), n) => format!("{name} ({} #{n}){reduced}", t.name),
    }
}

pub fn place(module: &Module, at: BoxId) -> &str {
    &module.board.get(at).name
}

/// `Shreveport -road-> Monroe -rail-> Vicksburg`.
pub fn path(module: &Module, p: &Path) -> String {
    let mut out = place(module, p.from).to_string();
    for s in &p.steps {
        let kind = &module.board.kinds[module.board.line(s.line).kind.index()].id;
        out.push_str(&format!(" -{kind}-> {}", place(module, s.to)));
    }
    out
}

/// [`action`] for an action from outside (a save, a file from another player): in
/// words when every piece, box and type it names exists, else as recorded.
pub fn action_checked(module: &Module, state: &GameState, a: &Action) -> String {
    let unit_ok = |u: &UnitId| u.index() < state.units.len();
    let box_ok = |b: &BoxId| b.index() < module.board.boxes.len();
    let ok = match a {
        Action::Select { at } | Action::Fight { at } | Action::Retreat { to: at } => box_ok(at),
        Action::Move { unit, path } => {
            unit_ok(unit)
                && box_ok(&path.from)
                && path
                    .steps
                    .iter()
                    .all(|s| box_ok(&s.to) && s.line.index() < module.board.lines.len())
        }
        Action::Reinforce { unit }
        | Action::Upgrade { unit }
        | Action::Lose { unit }
        | Action::Activate { unit }
        | Action::PickUp { unit }
        | Action::DropOff { unit } => unit_ok(unit),
        Action::Target { shooter, target } => unit_ok(shooter) && unit_ok(target),
        Action::Place { kind, at } => kind.index() < module.units.types.len() && box_ok(at),
        Action::Take { unit, at, .. } => {
            unit.as_ref().is_none_or(unit_ok) && at.as_ref().is_none_or(box_ok)
        }
        Action::Organize { changes } => changes
            .iter()
            .all(|c| unit_ok(&c.unit) && c.to.as_ref().is_none_or(unit_ok)),
        Action::Drop { unit, at } => unit_ok(unit) && box_ok(at),
        Action::Release | Action::Pass | Action::Absorb | Action::EndStep => true,
    };
    if ok {
        action(module, state, a)
    } else {
        format!("{a:?}")
    }
}

pub fn action(module: &Module, state: &GameState, a: &Action) -> String {
    let words = &module.calendar.words;
    match a {
        Action::Select { at } => words.say(
            |w| &w.select,
            "select {box}",
            &[("box", place(module, *at))],
        ),
        Action::Move { unit: u, path: p } => {
            format!("move {} {}", unit(module, state, *u), path(module, p))
        }
        Action::Release => words.say(|w| &w.release, "finish moving from the selected box", &[]),
        Action::Fight { at } => format!("fight the battle at {}", place(module, *at)),
        Action::Activate { unit: u } => format!("activate {}", unit(module, state, *u)),
        Action::PickUp { unit: u } => format!("pick up {}", unit(module, state, *u)),
        Action::DropOff { unit: u } => format!("drop off {}", unit(module, state, *u)),
        Action::Retreat { to } => {
            // A box no line joins to the battle's is an evacuation (`evacuations`).
            let adjacent = state
                .combat
                .as_ref()
                .and_then(|c| c.battle.as_ref())
                .is_none_or(|b| module.board.neighbours(b.at).iter().any(|&(n, _)| n == *to));
            let verb = if adjacent { "retreat" } else { "evacuate" };
            format!("{verb} to {}", place(module, *to))
        }
        Action::Pass => "pass".into(),
        Action::Organize { changes } => {
            let each: Vec<String> = changes
                .iter()
                .map(|c| match c.to {
                    Some(to) => format!(
                        "{} into {}",
                        unit(module, state, c.unit),
                        unit(module, state, to)
                    ),
                    None => format!("detach {}", unit(module, state, c.unit)),
                })
                .collect();
            format!("organise: {}", each.join("; "))
        }
        Action::Drop { unit: u, at } => format!(
            "leave {} as a garrison in {}",
            unit(module, state, *u),
            place(module, *at)
        ),
        Action::Reinforce { unit: u } => {
            let from = match state.unit(*u).place {
                Place::Board(b) => place(module, b).to_string(),
                _ => "?".into(),
            };
            format!("reinforce with {} from {from}", unit(module, state, *u))
        }
        Action::Target { shooter, target } => {
            format!(
                "{} fires at {}",
                unit(module, state, *shooter),
                unit(module, state, *target)
            )
        }
        Action::Lose { unit: u } => format!("take a loss off {}", unit(module, state, *u)),
        Action::Absorb => "have a hit absorbed".to_string(),
        Action::Upgrade { unit: u } => words.say(
            |w| &w.upgrade,
            "upgrade {unit}",
            &[("unit", &unit(module, state, *u))],
        ),
        Action::Place { kind, at } => words.say(
            |w| &w.place,
            "place {type} in {box}",
            &[
                ("type", &module.units.get(*kind).name),
                ("box", place(module, *at)),
            ],
        ),
        Action::Take { label, entry, .. } => match entry {
            Some(entry) => format!(
                "{label} ({})",
                super::entry::describe_bare(module, state, entry)
            ),
            None => label.clone(),
        },
        Action::EndStep => words.say(|w| &w.end, "end this step", &[]),
    }
}

/// Several lines on the position: turn, whose turn and step, the resources left, the
/// tallies.
pub fn situation(module: &Module, state: &GameState) -> String {
    let turn = &module.calendar.turn(state.turn).label;
    if let Some(o) = &state.outcome {
        let who = o.winner.map_or("a draw".to_string(), |w| {
            format!("{} wins", module.side(w).name)
        });
        let mut out = format!(
            "{turn} (turn {}): the game is over, {who}",
            state.turn.0 + 1
        );
        for line in tallies(module, state) {
            out.push('\n');
            out.push_str(&line);
        }
        return out;
    }
    let words = &module.calendar.words;
    let side = &module.side(state.active_side(module)).name;
    let step = state.current_step(module).map_or("-", |s| s.name.as_str());
    let step_word = words.say(|w| &w.step, "step", &[]);
    let whose = if state.at_turn_end(module) {
        "end of the turn".to_string()
    } else {
        format!("{side} player turn")
    };
    let mut out = format!(
        "{turn} (turn {}), {whose}, {step} {step_word}",
        state.turn.0 + 1
    );
    let me = state.active_side(module);
    for (i, r) in module.resources.iter().enumerate() {
        let v = state
            .resources
            .get(me.index())
            .and_then(|v| v.get(i))
            .copied()
            .unwrap_or(0);
        if v > 0 {
            out.push_str(&format!(", {v} {} left", r.name.to_lowercase()));
        }
    }
    if let Some(a) = state.moving.as_ref().and_then(|m| m.active.as_ref()) {
        let selected = words.say(
            |w| &w.selected,
            "moving from {box}",
            &[("box", place(module, a.at))],
        );
        out.push_str(&format!(", {selected}"));
    }
    for line in tallies(module, state) {
        out.push('\n');
        out.push_str(&line);
    }
    if let Some(b) = state.combat.as_ref().and_then(|c| c.battle.as_ref()) {
        out.push_str(&format!(
            "\nbattle at {}, {}",
            place(module, b.at),
            battle_status(module, b)
        ));
        for (label, list) in [("attackers", &b.attackers), ("defenders", &b.defenders)] {
            let names: Vec<String> = list.iter().map(|&u| unit(module, state, u)).collect();
            out.push_str(&format!("\n  {label}: {}", names.join(", ")));
        }
    }
    out
}

/// Where a battle stands, in words: `round 2: Confederacy firing` while it is fought,
/// `won by the Union: it may promote a piece` once decided (a decided battle is not
/// "firing" any more), `the Union may withdraw before round 1`.
pub fn battle_status(module: &Module, b: &Battle) -> String {
    let side = |s| module.side(s).name.as_str();
    match (b.winner, b.stage) {
        (Some(w), Stage::Upgrade) => {
            let word =
                module
                    .calendar
                    .words
                    .say(|w| &w.upgrade, "upgrade {unit}", &[("unit", "a piece")]);
            format!("won by {} after {} rounds: it may {word}", side(w), b.round)
        }
        (Some(w), Stage::Rout) => format!("won by {}: {} retreats", side(w), side(b.firing)),
        (Some(w), _) => format!("won by {} after {} rounds", side(w), b.round),
        (None, Stage::Withdraw) => format!("{} may withdraw before round 1", side(b.defender)),
        (None, Stage::Losses) => format!("round {}: {} takes its losses", b.round, side(b.firing)),
        (None, _) => format!("round {}: {} firing", b.round, side(b.firing)),
    }
}

/// Each of the module's tallies for every side, a line each: `army maximum: Union 34,
/// Confederacy 29`.
pub fn tallies(module: &Module, state: &GameState) -> Vec<String> {
    module
        .tally_ids()
        .map(|t| {
            let per_side: Vec<String> = module
                .side_ids()
                .map(|s| format!("{} {}", module.side(s).name, state.tally(module, t, s)))
                .collect();
            format!("{}: {}", module.tally(t).name, per_side.join(", "))
        })
        .collect()
}
