//! A game position turned into a scenario: the pieces where they stand (with their
//! flags), the pools, control and the stated tallies, the turn to start from. What the
//! scenario format cannot hold yet (lost steps, attributes, markers, kept resources, the
//! rules' counters, a start after the turn's first step) is named in warnings, never
//! dropped silently; a position that is no start (a battle or a move under way, the rules
//! waiting for a seat) is refused with the step to reach first.
//!
//! Kept apart from `scenario.rs` and `compile/`: the conversion writes the format's XML,
//! so it reads the compiled definitions only and the loader checks what it writes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::format::Expires;
use crate::game::command::Command;
use crate::game::dice::Dice;
use crate::game::entry::Entry;
use crate::game::offer::Offer;
use crate::game::rules::{
    Answer, Asker, Event, Loss, Progress, Question, RuleError, Rules, SharedReads, View, Wanted,
};
use crate::game::save::{Save, SaveError};
use crate::game::state::{GameState, Place};
use crate::ids::{BoxId, SideId, TurnId, UnitTypeId};
use crate::module::Module;
use crate::unit::Flags;

/// A scenario written from a position, with what it could not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FromPosition {
    /// The scenario file's text (`<scenario>` as root), loadable by
    /// [`crate::load_scenario_str`].
    pub xml: String,
    /// One line for each kind of thing the scenario leaves out, naming it.
    pub warnings: Vec<String>,
}

/// Why a position cannot be a scenario.
#[derive(Debug, thiserror::Error)]
pub enum NotAScenario {
    #[error("the game is in a battle in {at}: finish the {step} step's battles first")]
    Battle { at: String, step: String },
    #[error("the {step} step's battles are under way: play them out before taking the position")]
    Battles { step: String },
    #[error("{at} holds pieces of two sides: fight the battle there first")]
    Contested { at: String },
    #[error("a move from {at} is under way: finish it (end the move from that box) first")]
    Moving { at: String },
    #[error("the rules wait for {seats} to choose: answer them first")]
    Waiting { seats: String },
    #[error("the game is over ({reason}): take an earlier turn (--turn)")]
    Over { reason: String },
    #[error("'{0}' is not a turn of the calendar{1}")]
    UnknownTurn(String, String),
    #[error("the save never reaches {turn}: it starts at {first} and stops in {last}")]
    NotReached {
        turn: String,
        first: String,
        last: String,
    },
    #[error("'{0}' is not a scenario id: use letters, digits, '-' and '_' (e.g. west-1862)")]
    BadId(String),
    #[error(transparent)]
    Save(#[from] SaveError),
}

/// The id and name of the scenario to write.
#[derive(Clone, Debug)]
pub struct Naming<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub description: Option<&'a str>,
}

/// The position at the start of `turn` in a saved game: as the turn begins, before the
/// rules hear of it (so a scenario starting there does not get the turn's scheduled
/// arrivals twice), or the save's last position when `turn` is `None`. The save is
/// replayed and checked.
pub fn position_at(
    module: &Module,
    rules: &mut dyn Rules,
    save: &Save,
    turn: Option<&str>,
) -> Result<GameState, NotAScenario> {
    let Some(label) = turn else {
        return Ok(save.replay_each(module, rules, &mut |_, _| {})?);
    };
    let wanted = module.calendar.find(label).ok_or_else(|| {
        let hint = module
            .calendar
            .hint()
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        NotAScenario::UnknownTurn(label.to_string(), hint)
    })?;
    let mut watch = TurnWatch {
        inner: rules,
        turn: wanted,
        seen: None,
    };
    let last = save.replay_each(module, &mut watch, &mut |_, _| {})?;
    watch.seen.ok_or_else(|| {
        let label = |t: TurnId| module.calendar.turn(t).label.clone();
        NotAScenario::NotReached {
            turn: label(wanted),
            first: label(last.first_turn),
            last: label(last.turn),
        }
    })
}

/// The game's rules, unchanged, keeping the position they are shown when `turn` starts.
struct TurnWatch<'r> {
    inner: &'r mut dyn Rules,
    turn: TurnId,
    seen: Option<GameState>,
}

impl Rules for TurnWatch<'_> {
    fn ask(&mut self, view: View<'_>, question: Question<'_>) -> Result<Answer, RuleError> {
        self.inner.ask(view, question)
    }
    fn ask_each(
        &mut self,
        view: View<'_>,
        each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
    ) -> Result<(), RuleError> {
        self.inner.ask_each(view, each)
    }
    fn ask_each_reading(
        &mut self,
        view: View<'_>,
        each: &mut dyn FnMut(&mut dyn Asker) -> Result<(), RuleError>,
    ) -> Result<Option<SharedReads>, RuleError> {
        self.inner.ask_each_reading(view, each)
    }
    fn notify(
        &mut self,
        view: View<'_>,
        dice: &mut Dice,
        event: Event<'_>,
    ) -> Result<Vec<Command>, RuleError> {
        if matches!(event, Event::TurnStarted)
            && view.state.turn == self.turn
            && self.seen.is_none()
        {
            self.seen = Some(view.state.clone());
        }
        self.inner.notify(view, dice, event)
    }
    fn answers(&self, hook: &str) -> bool {
        self.inner.answers(hook)
    }
    fn fixed(&self, hook: &str) -> bool {
        self.inner.fixed(hook)
    }
    fn offers(&mut self, view: View<'_>, step: &str) -> Result<Vec<Offer>, RuleError> {
        self.inner.offers(view, step)
    }
    fn evacuations(
        &mut self,
        view: View<'_>,
        side: SideId,
        withdrawal: bool,
    ) -> Result<Vec<BoxId>, RuleError> {
        self.inner.evacuations(view, side, withdrawal)
    }
    fn battle_losses(&mut self, view: View<'_>) -> Result<Vec<Loss>, RuleError> {
        self.inner.battle_losses(view)
    }
    fn victory_progress(&mut self, view: View<'_>) -> Result<Vec<Progress>, RuleError> {
        self.inner.victory_progress(view)
    }
    fn look_ahead(&mut self, on: bool) {
        self.inner.look_ahead(on);
    }
    fn refuses_entry(
        &mut self,
        view: View<'_>,
        offer: &Offer,
    ) -> Result<Option<String>, RuleError> {
        self.inner.refuses_entry(view, offer)
    }
    fn referee_entry(
        &mut self,
        view: View<'_>,
        dice: &mut Dice,
        offer: &Offer,
    ) -> Result<Option<Entry>, RuleError> {
        self.inner.referee_entry(view, dice, offer)
    }
    fn offers_for(
        &mut self,
        view: View<'_>,
        step: &str,
        wanted: &Wanted<'_>,
    ) -> Result<Vec<Offer>, RuleError> {
        self.inner.offers_for(view, step, wanted)
    }
}

/// Refuses a position no scenario can start from, naming what to finish first.
pub fn check_position(module: &Module, state: &GameState) -> Result<(), NotAScenario> {
    if let Some(outcome) = &state.outcome {
        return Err(NotAScenario::Over {
            reason: outcome.reason.clone(),
        });
    }
    let step = || {
        state
            .current_step(module)
            .map_or_else(|| "current".to_string(), |s| s.name.clone())
    };
    if let Some(combat) = &state.combat {
        return Err(match &combat.battle {
            Some(b) => NotAScenario::Battle {
                at: box_name(module, b.at),
                step: step(),
            },
            None if !combat.fought_at.is_empty() => NotAScenario::Battles { step: step() },
            None => return check_rest(module, state),
        });
    }
    check_rest(module, state)
}

fn check_rest(module: &Module, state: &GameState) -> Result<(), NotAScenario> {
    let mut side_at: Vec<Option<SideId>> = vec![None; module.board.boxes.len()];
    for u in &state.units {
        if let Place::Board(b) = u.place
            && let Some(slot) = side_at.get_mut(b.index())
        {
            match slot {
                Some(other) if *other != u.side => {
                    return Err(NotAScenario::Contested {
                        at: box_name(module, b),
                    });
                }
                _ => *slot = Some(u.side),
            }
        }
    }
    if let Some(active) = state.moving.as_ref().and_then(|m| m.active.as_ref()) {
        return Err(NotAScenario::Moving {
            at: box_name(module, active.at),
        });
    }
    if !state.waiting.is_empty() {
        let seats: Vec<&str> = state
            .waiting
            .iter()
            .filter_map(|s| module.seats.get(s.index()))
            .map(|s| s.name.as_str())
            .collect();
        return Err(NotAScenario::Waiting {
            seats: seats.join(", "),
        });
    }
    Ok(())
}

fn box_name(module: &Module, b: BoxId) -> String {
    module
        .board
        .boxes
        .get(b.index())
        .map_or_else(|| format!("box {}", b.index()), |x| x.name.clone())
}

fn xml_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Whether `id` can be a scenario id (it names a file and is typed on command lines).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// `2 Vi, 3 Mi` from counts by type, in type order.
fn units_text(module: &Module, counts: &BTreeMap<UnitTypeId, u16>) -> String {
    counts
        .iter()
        .map(|(&t, &n)| format!("{n} {}", module.units.get(t).id))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The scenario that starts from `state`: see the module's doc for what it holds.
pub fn scenario_from(
    module: &Module,
    state: &GameState,
    naming: &Naming<'_>,
) -> Result<FromPosition, NotAScenario> {
    if !valid_id(naming.id) {
        return Err(NotAScenario::BadId(naming.id.to_string()));
    }
    check_position(module, state)?;
    let mut warnings = Vec::new();
    let cal = &module.calendar;
    let turn_label = &cal.turn(state.turn).label;
    let end_label = &cal.turn(state.end).label;

    // The start: a scenario starts at the turn's first step.
    let at_first_step = state.player == 0 && state.step == 0 && state.repeat == 0;
    if !at_first_step {
        let whose = if state.at_turn_end(module) {
            "the turn's end".to_string()
        } else {
            module.side(state.active_side(module)).name.clone()
        };
        let step = state.current_step(module).map_or("?", |s| s.name.as_str());
        warnings.push(format!(
            "the position is in {whose}'s {step} step of {turn_label}; a scenario starts at the turn's first step, so it starts at the beginning of {turn_label} (the format has no start step yet)"
        ));
    }

    // Placements by side and box, one `<place>` per set of flags.
    let mut placed: BTreeMap<(usize, usize, u32), BTreeMap<UnitTypeId, u16>> = BTreeMap::new();
    let mut off: BTreeMap<(usize, bool), BTreeMap<UnitTypeId, u16>> = BTreeMap::new();
    let mut hit: Vec<String> = Vec::new();
    let mut attached = 0usize;
    for u in &state.units {
        match u.place {
            Place::Board(b) => {
                *placed
                    .entry((u.side.index(), b.index(), u.flags.0))
                    .or_default()
                    .entry(u.kind)
                    .or_default() += 1;
                if u.hits > 0 {
                    hit.push(format!(
                        "{} {} in {} ({} lost)",
                        module.side(u.side).name,
                        module.units.get(u.kind).id,
                        box_name(module, b),
                        u.hits
                    ));
                }
                if u.attached_to.is_some() {
                    attached += 1;
                }
            }
            Place::Pool => {
                *off.entry((u.side.index(), false))
                    .or_default()
                    .entry(u.kind)
                    .or_default() += 1;
            }
            Place::SetAside => {
                *off.entry((u.side.index(), true))
                    .or_default()
                    .entry(u.kind)
                    .or_default() += 1;
            }
            Place::Stock => {}
        }
    }
    if !hit.is_empty() {
        warnings.push(format!(
            "{} piece(s) have lost steps and start at full strength (the format has no lost steps yet): {}",
            hit.len(),
            hit.join("; ")
        ));
    }
    if attached > 0 {
        warnings.push(format!(
            "{attached} piece(s) attached to another start unattached (the format has no attachments yet)"
        ));
    }
    if !state.attributes.is_empty() {
        let names: Vec<String> = state
            .attributes
            .iter()
            .take(5)
            .map(|&(u, a, v)| {
                let unit = state.unit(u);
                format!(
                    "{} {} {}={v}",
                    module.side(unit.side).name,
                    module.units.get(unit.kind).id,
                    module
                        .units
                        .attributes
                        .get(a.index())
                        .map_or("?", String::as_str)
                )
            })
            .collect();
        warnings.push(format!(
            "{} piece attribute(s) differ from their type's and start at the type's value (the format has no attributes yet): {}{}",
            state.attributes.len(),
            names.join("; "),
            if state.attributes.len() > 5 { "; ..." } else { "" }
        ));
    }
    if !state.markers.is_empty() {
        let names: Vec<String> = state
            .markers
            .iter()
            .map(|&(b, m, n)| {
                format!(
                    "{n} {} in {}",
                    module
                        .units
                        .markers
                        .get(m.index())
                        .map_or("?", |x| x.name.as_str()),
                    box_name(module, b)
                )
            })
            .collect();
        warnings.push(format!(
            "markers are left out (the format has no markers yet): {}",
            names.join("; ")
        ));
    }
    // Resources the step's start sets again need no keeping; kept ones are lost.
    let mut kept = Vec::new();
    for side in module.side_ids() {
        for (i, r) in module.resources.iter().enumerate() {
            let v = state
                .resources
                .get(side.index())
                .and_then(|x| x.get(i))
                .copied()
                .unwrap_or(0);
            if v != 0 && r.expires == Expires::Never {
                kept.push(format!("{} {v} {}", module.side(side).name, r.name));
            }
        }
    }
    if !kept.is_empty() {
        warnings.push(format!(
            "resources start at 0 (the format has no resources yet): {}",
            kept.join("; ")
        ));
    }
    if state.vars.iter().next().is_some() {
        let n = state.vars.iter().count();
        let some: Vec<String> = state
            .vars
            .iter()
            .take(5)
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        warnings.push(format!(
            "the rules' {n} counter(s) start unset (the format has no rules' counters): {}{}",
            some.join(", "),
            if n > 5 { ", ..." } else { "" }
        ));
    }
    if !state.options.is_empty() {
        let names: Vec<&str> = state
            .options
            .iter()
            .filter_map(|o| module.options.get(o.index()))
            .map(|o| o.id.as_str())
            .collect();
        warnings.push(format!(
            "optional rules in force are not part of a scenario; choose them again when playing: {}",
            names.join(", ")
        ));
    }

    // Control: a box with pieces is theirs; else a marker says who holds it; a box
    // whose holder neither says is beyond the format.
    let mut markers: Vec<Vec<BoxId>> = vec![Vec::new(); module.sides.len()];
    let mut uncontrolled = Vec::new();
    let mut marked = Vec::new();
    for (i, (def, now)) in module.board.boxes.iter().zip(&state.boxes).enumerate() {
        let Some(b) = BoxId::from_index(i) else {
            continue;
        };
        let occupant = state
            .units
            .iter()
            .find(|u| u.place == Place::Board(b))
            .map(|u| u.side);
        let implied = occupant.or(def.owner);
        match now.controller {
            Some(side) if occupant.is_some_and(|o| o != side) => {
                uncontrolled.push(format!(
                    "{} (held by {} with the other side's pieces in it)",
                    def.name,
                    module.side(side).name
                ));
            }
            Some(side) if now.marker || implied != Some(side) => {
                markers[side.index()].push(b);
                if !now.marker {
                    marked.push(def.name.clone());
                }
            }
            None if implied.is_some() => {
                uncontrolled.push(format!("{} (held by no side)", def.name));
            }
            _ => {}
        }
    }
    if !uncontrolled.is_empty() {
        warnings.push(format!(
            "control the format cannot state, taken from the pieces or the owner instead: {}",
            uncontrolled.join("; ")
        ));
    }
    if !marked.is_empty() {
        warnings.push(format!(
            "boxes held without a control marker get one (the format states control by markers): {}",
            marked.join("; ")
        ));
    }

    // The control the scenario gives (its loader's rule: pieces, else a marker, else
    // the owner), from which its stated tallies are computed as the loader checks them.
    let mut control: Vec<Option<SideId>> = module.board.boxes.iter().map(|b| b.owner).collect();
    for side in module.side_ids() {
        for &b in &markers[side.index()] {
            control[b.index()] = Some(side);
        }
    }
    for u in &state.units {
        if let Place::Board(b) = u.place {
            control[b.index()] = Some(u.side);
        }
    }

    let mut x = String::new();
    let _ = writeln!(x, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        x,
        "<!-- Made by muster from a game of '{}' (scenario '{}') at {turn_label}. -->",
        xml_comment(&module.id),
        xml_comment(&state.scenario)
    );
    if !warnings.is_empty() {
        let _ = writeln!(x, "<!-- Not held by the scenario:");
        for w in &warnings {
            let _ = writeln!(x, "     - {}", xml_comment(w));
        }
        let _ = writeln!(x, "-->");
    }
    let _ = writeln!(
        x,
        r#"<scenario id="{}" name="{}" start="{}" end="{}">"#,
        xml_attr(naming.id),
        xml_attr(naming.name),
        xml_attr(turn_label),
        xml_attr(end_label)
    );
    if let Some(d) = naming.description {
        let _ = writeln!(x, "  <description>{}</description>", xml_text(d));
    }
    for side in module.side_ids() {
        let s = side.index();
        let _ = writeln!(x, r#"  <side id="{}">"#, xml_attr(&module.side(side).id));
        for t in module.tally_ids() {
            let _ = writeln!(
                x,
                r#"    <tally id="{}" value="{}"/>"#,
                xml_attr(&module.tally(t).id),
                module.board.total(module.tally(t).sums, &control, side)
            );
        }
        for ((ps, b, flags), counts) in placed.range((s, 0, 0)..(s + 1, 0, 0)) {
            debug_assert_eq!(*ps, s);
            let Some(b) = BoxId::from_index(*b) else {
                continue;
            };
            let flags = Flags(*flags);
            let flag_ids: Vec<&str> = flags
                .iter()
                .filter_map(|f| module.units.flags.get(f.index()))
                .map(|f| f.id.as_str())
                .collect();
            let flags_attr = if flag_ids.is_empty() {
                String::new()
            } else {
                format!(r#" flags="{}""#, xml_attr(&flag_ids.join(", ")))
            };
            let _ = writeln!(
                x,
                r#"    <place box="{}" units="{}"{flags_attr}/>"#,
                xml_attr(&box_name(module, b)),
                xml_attr(&units_text(module, counts))
            );
        }
        for &b in &markers[s] {
            let _ = writeln!(
                x,
                r#"    <control box="{}"/>"#,
                xml_attr(&box_name(module, b))
            );
        }
        if let Some(pool) = off.get(&(s, false)) {
            let _ = writeln!(
                x,
                r#"    <pool units="{}"/>"#,
                xml_attr(&units_text(module, pool))
            );
        }
        if let Some(aside) = off.get(&(s, true)) {
            let _ = writeln!(
                x,
                r#"    <set-aside units="{}"/>"#,
                xml_attr(&units_text(module, aside))
            );
        }
        let _ = writeln!(x, "  </side>");
    }
    let _ = writeln!(x, "</scenario>");
    Ok(FromPosition { xml: x, warnings })
}

fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text safe inside a comment (no `--`).
fn xml_comment(s: &str) -> String {
    let mut t = s.replace("--", "- -");
    if t.ends_with('-') {
        t.push(' ');
    }
    t
}

/// What a position holds that a scenario can: every piece's side, type, place and flags
/// (pieces of one side and type are interchangeable, so counted, not named), who holds
/// each box and where control markers lie, and the turn. Two positions with equal
/// summaries start the same game as far as the scenario format goes; used to check a
/// scenario made from a position gives that position back.
pub fn setup_summary(state: &GameState) -> SetupSummary {
    let mut pieces: BTreeMap<(usize, usize, String, u32), u32> = BTreeMap::new();
    for u in &state.units {
        let place = match u.place {
            Place::Board(b) => format!("box {}", b.index()),
            Place::Pool => "pool".into(),
            Place::Stock => "stock".into(),
            Place::SetAside => "set aside".into(),
        };
        *pieces
            .entry((u.side.index(), u.kind.index(), place, u.flags.0))
            .or_default() += 1;
    }
    SetupSummary {
        turn: state.turn,
        pieces,
        boxes: state
            .boxes
            .iter()
            .map(|b| (b.controller.map(SideId::index), b.marker))
            .collect(),
    }
}

/// See [`setup_summary`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupSummary {
    pub turn: TurnId,
    /// (side, type, place, flags) → pieces.
    pub pieces: BTreeMap<(usize, usize, String, u32), u32>,
    /// Per box: its holder's side index and whether a control marker lies there.
    pub boxes: Vec<(Option<usize>, bool)>,
}
