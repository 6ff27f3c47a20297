//! Random games of *A House Divided*, played to the end through the public API only.
//!
//! Hand-written tests cover the positions someone thought of; random play reaches the
//! ones nobody did. After every action this checks what the Living Rules say must hold
//! (the rule numbers are cited at each check), checks every list of legal actions
//! against the rules, probes actions that are not on the list, and at the end replays
//! each game from its save.
//!
//! Units of both sides share a box only from the moment the moving player enters it
//! (4.0: he must stop there) until the battle there is over (5.0). So in a Movement
//! segment every shared box holds a unit that moved into it; in a Combat segment the
//! shared boxes are among those it began with, and a box whose battle is over is not
//! shared; in the Promotion and Recruitment segments no box is shared.
//!
//! Games with an even seed are played with the optional rules 5.41 (naval
//! evacuations) and 5.71 (refitting), and every fourth seed with 11.3's sudden death as
//! well (it ends games early, so not more often); the checks know these rules too.
//!
//! Actions are chosen exactly as `muster play --union random --confederate random
//! --seed N [--options ...]` chooses them (the same chooser stream over the same list),
//! so a game named in a failure can be watched at the terminal. The default run plays 100 games (about
//! a minute in a debug build on two cores); `MUSTER_RANDOM_GAMES=N` plays N instead
//! (thousands take a few minutes with `cargo test --release --test random_games`).

mod ahd_terms;
use ahd_terms::ArmyMaximum;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use muster_core::Module;
use muster_core::format::Procedure;
use muster_core::game::battle::{Battle, Stage};
use muster_core::game::dice::Pcg32;
use muster_core::game::moves::mover_key;
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{
    Action, Dice, GameState, Path, Place, Step, apply, describe, legal_actions, placing, start,
};
use muster_core::ids::{BoxId, LineId, SideId, UnitId, UnitTypeId};
use muster_scripting::{Limits, ScriptRules};

/// Games in a default run: enough to reach rare positions, few enough for a debug
/// `cargo test` on two cores.
const DEFAULT_GAMES: usize = 100;

/// A game still going after this many actions is a bug (9.0: the game has an end).
const MAX_ACTIONS: usize = 200_000;

/// The optional rules of even-seeded games (the last one for every fourth seed only):
/// rules whose effects the checks below know.
const OPTIONS: [&str; 3] = ["naval-evacuations", "refitting", "sudden-death"];

/// The chooser stream of `muster play`'s random players.
const CHOOSER_STREAM: u64 = 2;

/// A stream of its own for the illegal-action probes, so probing never changes which
/// game is played.
const PROBE_STREAM: u64 = 3;

/// The module with the names the checks need, resolved once.
struct Ahd {
    m: Module,
    union: SideId,
    confederate: SideId,
    washington: BoxId,
    /// 10.0: the seven Confederate Recruitment Cities of value 2 or 3.
    key_cities: Vec<BoxId>,
}

impl Ahd {
    fn load() -> Ahd {
        let m = muster_core::load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd"))
            .unwrap_or_else(|e| panic!("{e}"));
        let find = |name: &str| {
            m.board
                .find(name)
                .unwrap_or_else(|| panic!("no box {name}"))
        };
        let key_cities = [
            "New Orleans",
            "Charleston (South Carolina)",
            "Mobile",
            "Wilmington",
            "Atlanta",
            "Richmond",
            "Memphis",
        ]
        .map(find)
        .to_vec();
        Ahd {
            union: m.find_side("union").expect("side union"),
            confederate: m.find_side("confederate").expect("side confederate"),
            washington: find("Washington"),
            key_cities,
            m,
        }
    }

    fn enemy(&self, side: SideId) -> SideId {
        if side == self.union {
            self.confederate
        } else {
            self.union
        }
    }

    fn kind(&self, state: &GameState, u: UnitId) -> UnitTypeId {
        state.unit(u).kind
    }

    fn class(&self, state: &GameState, u: UnitId) -> &str {
        let t = self.m.units.get(self.kind(state, u));
        t.class
            .map_or("", |c| self.m.units.classes[c.index()].id.as_str())
    }

    fn is_cavalry(&self, state: &GameState, u: UnitId) -> bool {
        self.class(state, u) == "cavalry"
    }

    fn is_infantry(&self, state: &GameState, u: UnitId) -> bool {
        self.class(state, u) == "infantry"
    }

    fn is_militia(&self, kind: UnitTypeId) -> bool {
        self.m
            .units
            .get(kind)
            .quality
            .is_some_and(|q| self.m.units.qualities[q.index()].id == "militia")
    }

    fn line_kind(&self, l: LineId) -> &str {
        let line = self.m.board.line(l);
        self.m.board.kinds[line.kind.index()].id.as_str()
    }

    fn is_recruitment_city(&self, b: BoxId) -> bool {
        ahd_terms::is_recruitment_city(&self.m, self.m.board.get(b))
    }

    fn name(&self, b: BoxId) -> &str {
        &self.m.board.get(b).name
    }

    /// What the mover has left of the resource the current step spends.
    fn left(&self, state: &GameState) -> i64 {
        state.step_left(&self.m)
    }

    /// The procedure of the step the state is in, game over or not.
    fn step(&self, state: &GameState) -> Procedure {
        self.m.calendar.steps[usize::from(state.step)].procedure
    }

    /// Index of the Combat segment in a player turn.
    fn combat_index(&self) -> u8 {
        let i = self
            .m
            .calendar
            .steps
            .iter()
            .position(|s| s.procedure == Procedure::Battles)
            .expect("a combat segment");
        u8::try_from(i).expect("few segments")
    }

    /// Boxes holding units of more than one side.
    fn shared(&self, state: &GameState) -> Vec<BoxId> {
        let mut sides = vec![0u32; self.m.board.boxes.len()];
        for u in &state.units {
            if let Place::Board(b) = u.place {
                sides[b.index()] |= 1 << u.side.index();
            }
        }
        self.m
            .board
            .box_ids()
            .filter(|b| sides[b.index()].count_ones() > 1)
            .collect()
    }

    /// 10.0: a condition that ends play at once, and whom it favours.
    fn sudden_winner(&self, state: &GameState) -> Option<SideId> {
        if self
            .key_cities
            .iter()
            .all(|&b| state.controller(b) == Some(self.union))
        {
            return Some(self.union);
        }
        if state.controller(self.washington) == Some(self.confederate) {
            return Some(self.confederate);
        }
        if state.army_maximum(&self.m, self.confederate) > state.army_maximum(&self.m, self.union) {
            return Some(self.confederate);
        }
        None
    }

    /// 10.0, 11.1: who wins when the last turn is over with no sudden victory.
    fn winner_at_the_end(&self, scenario: &str, state: &GameState) -> SideId {
        let (u, c) = (
            state.army_maximum(&self.m, self.union),
            state.army_maximum(&self.m, self.confederate),
        );
        if scenario == "1861-short" && u >= c + 5 {
            self.union
        } else {
            self.confederate
        }
    }
}

/// The units in each box, gathered once per state: the checks ask about every box, and
/// scanning every piece for each would make a debug run several times slower.
struct Where<'s> {
    state: &'s GameState,
    at: Vec<Vec<UnitId>>,
}

impl<'s> Where<'s> {
    fn new(ahd: &Ahd, state: &'s GameState) -> Self {
        let mut at = vec![Vec::new(); ahd.m.board.boxes.len()];
        for u in state.unit_ids() {
            if let Place::Board(b) = state.unit(u).place {
                at[b.index()].push(u);
            }
        }
        Where { state, at }
    }

    fn units(&self, b: BoxId) -> &[UnitId] {
        &self.at[b.index()]
    }

    fn of(&self, side: SideId, b: BoxId) -> Vec<UnitId> {
        self.units(b)
            .iter()
            .copied()
            .filter(|&u| self.state.unit(u).side == side)
            .collect()
    }

    fn has(&self, side: SideId, b: BoxId) -> bool {
        self.units(b)
            .iter()
            .any(|&u| self.state.unit(u).side == side)
    }

    fn enemy_in(&self, side: SideId, b: BoxId) -> bool {
        self.units(b)
            .iter()
            .any(|&u| self.state.unit(u).side != side)
    }
}

fn battle(state: &GameState) -> Option<&Battle> {
    state.combat.as_ref()?.battle.as_ref()
}

fn own(b: &Battle, side: SideId) -> &[UnitId] {
    if side == b.attacker {
        &b.attackers
    } else {
        &b.defenders
    }
}

/// (game turn, player turn, segment): where in the sequence of play (3.0) a state is.
fn position(state: &GameState) -> (u16, u8, u8) {
    (state.turn.0, state.player, state.step)
}

/// What the checks remember from one action to the next.
#[derive(Default)]
struct Track {
    /// Boxes holding both sides' units when the current Combat segment began.
    combat_boxes: Vec<BoxId>,
    /// Promotions made in the current Promotion segment.
    promotions: u32,
    /// Marches the current Movement segment began with (4.7: six allow an invasion).
    marches: i64,
    /// Boxes the attacker's reinforcements came from in the battle under way (5.4).
    reinforced_from: Vec<BoxId>,
}

/// Broken rules, each with the games and times it broke in, and its first example.
#[derive(Default)]
struct Findings {
    by_rule: BTreeMap<String, Finding>,
}

struct Finding {
    games: usize,
    times: usize,
    example: String,
    /// The game the example comes from, in playing order: the first game is reported
    /// whichever thread finished first, so a report reads the same on every run.
    game: usize,
}

impl Findings {
    fn add(&mut self, rule: String, example: String) {
        let f = self.by_rule.entry(rule).or_insert(Finding {
            games: 1,
            times: 0,
            example,
            game: 0,
        });
        f.times += 1;
    }

    /// Adds the findings of game number `game`.
    fn merge(&mut self, other: Findings, game: usize) {
        for (rule, mut f) in other.by_rule {
            f.game = game;
            match self.by_rule.get_mut(&rule) {
                Some(mine) => {
                    mine.games += f.games;
                    mine.times += f.times;
                    if f.game < mine.game {
                        mine.example = f.example;
                        mine.game = f.game;
                    }
                }
                None => {
                    self.by_rule.insert(rule, f);
                }
            }
        }
    }
}

/// One game's checker: collects what broke, with enough to reproduce it.
struct Game<'a> {
    ahd: &'a Ahd,
    scenario: String,
    seed: u64,
    /// The optional rules in force, by id.
    options: Vec<String>,
    findings: Findings,
}

impl Game<'_> {
    fn flag(&mut self, step: usize, rule: &str, detail: String) {
        let example = format!(
            "scenario {}, seed {}, options [{}], after action {step}: {detail}",
            self.scenario,
            self.seed,
            self.options.join(",")
        );
        self.findings.add(rule.to_string(), example);
    }

    fn option(&self, id: &str) -> bool {
        self.options.iter().any(|o| o == id)
    }

    /// 5.41: where the Union side of the battle under way may evacuate to, if anywhere:
    /// Washington, held by the Union without enemy units in it, from a gray port whose
    /// battle came of a naval invasion (an attacker entered by sea) or of a Confederate
    /// attack on the Union; by retreat, not by withdrawal.
    fn evacuation(&self, w: &Where<'_>, b: &Battle) -> Option<BoxId> {
        let ahd = self.ahd;
        let (state, place) = (w.state, ahd.m.board.get(b.at));
        let invaded = b.attacker == ahd.union && b.entries.iter().any(|(_, e)| *e == Some(None));
        (self.option("naval-evacuations")
            && b.stage == Stage::Retreat
            && b.decider() == ahd.union
            && place.has_tag("port")
            && place.owner == Some(ahd.confederate)
            && (invaded || b.defender == ahd.union)
            && state.controller(ahd.washington) == Some(ahd.union)
            && !w.enemy_in(ahd.union, ahd.washington))
        .then_some(ahd.washington)
    }

    /// 11.3 (sudden death): who has a Decisive victory at the end of this March turn of
    /// 1862-1864, in a game played to the Campaign Game ending.
    fn decisive(&self, state: &GameState) -> Option<SideId> {
        let ahd = self.ahd;
        let m = &ahd.m;
        let turn = m.calendar.turn(state.turn);
        let end = m.calendar.turn(state.end).label.as_str();
        let decisive = match turn.year {
            1862 => 11,
            1863 => 15,
            1864 => 19,
            _ => return None,
        };
        if !self.option("sudden-death")
            || turn.first_month != 3
            || !["06/1865", "11-12/1865"].contains(&end)
        {
            return None;
        }
        let difference = i64::from(state.army_maximum(m, ahd.union))
            - i64::from(state.army_maximum(m, ahd.confederate));
        if difference >= decisive {
            Some(ahd.union)
        } else if difference <= decisive - 6 {
            Some(ahd.confederate)
        } else {
            None
        }
    }
}

// ---------------------------------------------------------------------------------
// What must hold in every state.

fn check_state(g: &mut Game<'_>, step: usize, state: &GameState) {
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
fn has_rule_number(text: &str) -> bool {
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

fn check_step(
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

// ---------------------------------------------------------------------------------
// The list of legal actions, against the rules.

/// Why the Movement Chart (4.0) and the jump rules (4.2, 4.4, 4.5) forbid this march,
/// or `None` if they allow it. Lines of kinds the chart does not name are not judged.
fn march_forbidden(ahd: &Ahd, w: &Where<'_>, unit: UnitId, path: &Path) -> Option<&'static str> {
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
fn short_paths(ahd: &Ahd, from: BoxId) -> Vec<Path> {
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
fn offer(id: &str, unit: UnitId, at: Option<BoxId>) -> Action {
    Action::Take {
        offer: id.into(),
        unit: Some(unit),
        at,
        label: String::new(),
        seat: None,
    }
}

/// The piece an offer of `id` is taken for, if `a` takes one.
fn taken(a: &Action, id: &str) -> Option<UnitId> {
    match a {
        Action::Take { offer, unit, .. } if offer == id => *unit,
        _ => None,
    }
}

/// The piece and port of a move by sea, if `a` is one.
fn sea_move(a: &Action) -> Option<(UnitId, BoxId)> {
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
fn unlabelled(a: &Action) -> Action {
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
        },
        other => other.clone(),
    }
}

fn same_set(
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
fn check_placements(
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

fn check_legal(g: &mut Game<'_>, step: usize, state: &GameState, legal: &[Action], track: &Track) {
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
fn may_promote(ahd: &Ahd, state: &GameState, u: UnitId) -> bool {
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
fn check_marches(
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

fn check_battle(
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
    }
    if b.stage != Stage::Target && !passes {
        g.flag(
            step,
            "5.4, 5.5, 5.6, 6.0: a side may decline to retreat, reinforce or promote",
            format!("no Pass at stage {:?}", b.stage),
        );
    }
}

// ---------------------------------------------------------------------------------
// Actions that are not on the list are refused.

/// A few actions the player may not take now: the named cases (a box without his units,
/// an enemy unit's move, ending a segment during a battle) and random ones.
fn illegal_probes(ahd: &Ahd, state: &GameState, legal: &[Action], rng: &mut Pcg32) -> Vec<Action> {
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

// ---------------------------------------------------------------------------------
// Playing.

struct Played {
    actions: usize,
    /// (winner, reason), or why the game did not finish.
    result: Result<(String, String), String>,
}

fn play(ahd: &Ahd, rules: &mut ScriptRules, scenario: usize, seed: u64) -> (Played, Findings) {
    let m = &ahd.m;
    let sc = &m.scenarios[scenario];
    let in_force = match seed % 4 {
        0 => 3,
        2 => 2,
        _ => 0,
    };
    let options: Vec<String> = OPTIONS[..in_force].iter().map(|o| o.to_string()).collect();
    let option_ids = options
        .iter()
        .map(|o| m.find_option(o).unwrap_or_else(|| panic!("no option {o}")))
        .collect();
    let mut g = Game {
        ahd,
        scenario: sc.id.clone(),
        seed,
        options,
        findings: Findings::default(),
    };
    let (mut state, mut log) = match start(m, rules, sc, option_ids, Dice::seeded(seed)) {
        Ok(x) => x,
        Err(e) => {
            g.flag(0, "a scenario starts", e.to_string());
            let played = Played {
                actions: 0,
                result: Err(e.to_string()),
            };
            return (played, g.findings);
        }
    };
    // 11.5-11.7: the army maxima the scenarios state.
    for side in m.side_ids() {
        let army = m.find_tally("army-maximum").expect("AHD declares it");
        let stated = sc
            .side(side)
            .and_then(|s| s.stated.iter().find(|(t, _)| *t == army))
            .map(|&(_, v)| v);
        if let Some(stated) = stated
            && state.army_maximum(m, side) != stated
        {
            g.flag(
                0,
                "11.5-11.7: the scenario's stated army maximum",
                format!(
                    "{}: {} computed, {stated} stated",
                    m.side(side).id,
                    state.army_maximum(m, side)
                ),
            );
        }
    }
    check_state(&mut g, 0, &state);
    let mut chooser = Pcg32::new(seed, CHOOSER_STREAM);
    let mut prober = Pcg32::new(seed, PROBE_STREAM);
    let mut track = Track {
        marches: ahd.left(&state),
        ..Track::default()
    };
    let mut actions: Vec<Action> = Vec::new();
    let result = loop {
        let step = actions.len();
        if state.outcome.is_some() {
            break Ok(());
        }
        if step >= MAX_ACTIONS {
            g.flag(
                step,
                "9.0: every game ends",
                format!("no result after {MAX_ACTIONS} actions"),
            );
            break Err(format!("no result after {MAX_ACTIONS} actions"));
        }
        let legal = match legal_actions(m, rules, &state) {
            Ok(l) => l,
            Err(e) => {
                g.flag(step, "the rules answer every question", e.to_string());
                break Err(e.to_string());
            }
        };
        if legal.is_empty() {
            let why = describe::situation(m, &state).replace('\n', "; ");
            g.flag(
                step,
                "3.0: a player always has an action until the game is over",
                why.clone(),
            );
            break Err(format!("stuck: {why}"));
        }
        check_legal(&mut g, step, &state, &legal, &track);
        check_placements(&mut g, step, rules, &state, &legal);
        let unchanged = state.clone();
        for probe in illegal_probes(ahd, &state, &legal, &mut prober) {
            if apply(m, rules, &state, &probe).is_ok() {
                let kind = format!("{probe:?}");
                let kind = kind.split([' ', '{']).next().unwrap_or_default();
                g.flag(
                    step,
                    &format!("an action not in the legal list is refused: {kind}"),
                    format!(
                        "{} ({probe:?}) was accepted in: {}",
                        describe::action(m, &state, &probe),
                        describe::situation(m, &state).replace('\n', "; ")
                    ),
                );
            }
        }
        if state != unchanged {
            g.flag(
                step,
                "a refused action leaves the state unchanged",
                "the state changed".into(),
            );
        }
        let len = u32::try_from(legal.len()).expect("few actions");
        let action = legal[(chooser.between_one_and(len) - 1) as usize].clone();
        let (next, lines) = match apply(m, rules, &state, &action) {
            Ok(x) => x,
            Err(e) => {
                g.flag(
                    step,
                    "every listed action is accepted",
                    format!("{}: {e}", describe::action(m, &state, &action)),
                );
                break Err(e.to_string());
            }
        };
        check_step(&mut g, step + 1, &state, &action, &next, &mut track);
        check_state(&mut g, step + 1, &next);
        log.extend(lines);
        actions.push(action);
        state = next;
    };
    rules.take_output();
    let n = actions.len();
    let result = match result {
        Err(e) => Err(e),
        Ok(()) => {
            let end = Action::EndStep;
            if legal_actions(m, rules, &state).map_or(true, |l| !l.is_empty())
                || apply(m, rules, &state, &end).is_ok()
            {
                g.flag(
                    n,
                    "nothing can be done once the game is over",
                    "actions offered or accepted".into(),
                );
            }
            check_replay(&mut g, rules, seed, actions, &state, &log);
            let o = state.outcome.as_ref().expect("over");
            let who = o.winner.map_or("nobody".into(), |w| m.side(w).id.clone());
            Ok((who, o.reason.clone()))
        }
    };
    (Played { actions: n, result }, g.findings)
}

/// A save of the game, through JSON and back, replays to the very same state and log.
fn check_replay(
    g: &mut Game<'_>,
    rules: &mut ScriptRules,
    seed: u64,
    actions: Vec<Action>,
    state: &GameState,
    log: &[String],
) {
    let m = &g.ahd.m;
    let n = actions.len();
    let scenario = SavedScenario {
        id: g.scenario.clone(),
        xml: None,
    };
    let save = Save::new(m, scenario, g.options.clone(), seed, actions, state.clone());
    let json = serde_json::to_string(&save).expect("a save serializes");
    let back: Save = match serde_json::from_str(&json) {
        Ok(s) => s,
        Err(e) => {
            g.flag(n, "a save reads back", e.to_string());
            return;
        }
    };
    if back != save {
        g.flag(n, "a save reads back as written", "it differs".into());
    }
    match back.replay(m, rules) {
        Ok((replayed, replay_log)) => {
            if &replayed != state {
                g.flag(n, "a replay gives the final state", "it differs".into());
            }
            if replay_log != log {
                g.flag(n, "a replay gives the same log", "it differs".into());
            }
        }
        Err(e) => g.flag(n, "a save replays", e.to_string()),
    }
}

fn games_to_play() -> usize {
    match std::env::var("MUSTER_RANDOM_GAMES") {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("MUSTER_RANDOM_GAMES must be a number, not '{v}'")),
        Err(_) => DEFAULT_GAMES,
    }
}

/// Plays games on every scenario with several seeds each, spread over the machine's
/// cores, and fails listing every rule that broke with its first example.
#[test]
fn random_games_keep_the_rules() {
    let games = games_to_play();
    let started = Instant::now();
    let scenarios = Ahd::load().m.scenarios.len();
    let next = AtomicUsize::new(0);
    let findings = Mutex::new(Findings::default());
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(games.max(1)) {
            scope.spawn(|| {
                // Rules hold Lua state, so each worker loads its own.
                let ahd = Ahd::load();
                let load = || ScriptRules::load(&ahd.m, Limits::default()).expect("rules load");
                let mut rules = load();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= games {
                        break;
                    }
                    let scenario = i % scenarios;
                    let seed = (i / scenarios) as u64 + 1;
                    let id = ahd.m.scenarios[scenario].id.clone();
                    let t = Instant::now();
                    let outcome =
                        catch_unwind(AssertUnwindSafe(|| play(&ahd, &mut rules, scenario, seed)));
                    let (played, found) = match outcome {
                        Ok(x) => x,
                        Err(panic) => {
                            let msg = panic
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            rules = load();
                            let mut f = Findings::default();
                            f.add(
                                "the engine never panics".into(),
                                format!("scenario {id}, seed {seed}: {msg}"),
                            );
                            let played = Played {
                                actions: 0,
                                result: Err(format!("panicked: {msg}")),
                            };
                            (played, f)
                        }
                    };
                    findings.lock().unwrap().merge(found, i);
                    results
                        .lock()
                        .unwrap()
                        .push((id, seed, played, t.elapsed()));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let findings = findings.into_inner().unwrap();

    let actions: usize = results.iter().map(|r| r.2.actions).sum();
    let mut outcomes: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    let mut per_scenario: BTreeMap<String, (usize, usize, f64)> = BTreeMap::new();
    for (id, _, played, took) in &results {
        let (winner, reason) = match &played.result {
            Ok((w, r)) => (w.clone(), r.clone()),
            Err(e) => ("unfinished".into(), e.clone()),
        };
        *outcomes.entry((id.clone(), winner, reason)).or_default() += 1;
        let e = per_scenario.entry(id.clone()).or_default();
        e.0 += 1;
        e.1 += played.actions;
        e.2 = e.2.max(took.as_secs_f64());
    }
    eprintln!(
        "random games: {} games, {actions} actions in {:.1}s on {workers} threads",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    for (id, (n, a, slowest)) in &per_scenario {
        eprintln!(
            "  {id}: {n} games, {} actions on average, slowest {slowest:.2}s",
            a / n.max(&1)
        );
    }
    for ((id, winner, reason), n) in &outcomes {
        eprintln!("  {id}: {winner} x{n}: {reason}");
    }
    assert_eq!(results.len(), games);
    if !findings.by_rule.is_empty() {
        let mut report = String::from("rules broken in random games:\n");
        for (rule, f) in &findings.by_rule {
            report.push_str(&format!(
                "- {rule} ({} games, {} times); first: {}\n",
                f.games, f.times, f.example
            ));
        }
        panic!("{report}");
    }
}
