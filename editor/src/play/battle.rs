//! The battle window: the battle under way (or the last one, until closed or the next
//! begins) with both lines of units, the shots announced, the dice as the engine logged
//! them, and the choices the battle waits for. Every choice is a legal action from
//! `Session::legal`; a target is named by clicking the enemy unit, and only units the
//! engine offers as targets are clickable.

use egui::Ui;
use muster_core::Module;
use muster_core::calendar::BattleOptions;
use muster_core::format::{Casualties, Fire, Resolve, Retreaters, Sight};
use muster_core::game::battle::{Battle, Stage};
use muster_core::game::{Action, GameState, Place, describe};
use muster_core::ids::{SideId, UnitId};

use super::PlayCommand;
use super::session::{PlayerKind, Session};
use crate::command::UiCommand;

/// How the engine's log begins a battle (`battle::start_battle`, indented by the session).
const BATTLE_BEGINS: &str = "  battle at ";

/// The window's memory of the last battle, so its result stays on screen after the
/// engine has closed it.
#[derive(Default)]
pub struct BattleView {
    last: Option<Seen>,
}

struct Seen {
    battle: Battle,
    /// The game as it last stood with the battle under way: a battle that is over is
    /// shown with its own units, not with whatever those ids are in the game now
    /// (retreated, or new pieces drawn from the pool).
    state: GameState,
    /// Where this battle's lines begin in the session log.
    start: usize,
    /// Where they end, once the battle is over.
    end: Option<usize>,
    closed: bool,
}

impl BattleView {
    /// Closes the window of a battle that is over.
    pub fn close(&mut self) {
        if let Some(seen) = self.last.as_mut().filter(|s| s.end.is_some()) {
            seen.closed = true;
        }
    }

    /// Whether the window is shown now.
    pub fn is_open(&self) -> bool {
        self.last.as_ref().is_some_and(|s| !s.closed)
    }

    /// Follows the game: a battle under way is remembered, one that ended keeps its lines.
    pub(super) fn update(&mut self, session: &Session) {
        let log = session.shown_log();
        match battle(session.state()) {
            Some(b) => {
                let start = battle_start(log).unwrap_or(log.len());
                let new = self
                    .last
                    .as_ref()
                    .is_none_or(|s| s.end.is_some() || s.start != start);
                if new {
                    self.last = Some(Seen {
                        battle: b.clone(),
                        state: session.state().clone(),
                        start,
                        end: None,
                        closed: false,
                    });
                } else if let Some(s) = self.last.as_mut() {
                    s.state = session.state().clone();
                    s.battle = b.clone();
                }
            }
            None => {
                if let Some(s) = self.last.as_mut().filter(|s| s.end.is_none()) {
                    s.end = Some(log.len());
                }
            }
        }
    }

    /// Draws the battle in the dock beside the map (a section of its own, never a
    /// window over the board).
    pub fn show(&mut self, ui: &mut Ui, session: &mut Session, out: &mut Vec<UiCommand>) {
        self.update(session);
        let Some(seen) = self.last.as_ref().filter(|s| !s.closed) else {
            return;
        };
        let module = session.module().clone();
        let under_way = seen.end.is_none();
        let state = if under_way {
            session.state().clone()
        } else {
            seen.state.clone()
        };
        let human = session.players()[session.decider().index()] == PlayerKind::Human;
        let legal = if under_way {
            session.legal().map(<[Action]>::to_vec)
        } else {
            Ok(Vec::new())
        };
        // The unit to name a target for, as the engine offers it.
        let shooter = legal.as_ref().ok().and_then(|l| {
            l.iter().find_map(|a| match a {
                Action::Target { shooter, .. } => Some(*shooter),
                _ => None,
            })
        });
        let lines = dice_lines(session.shown_log(), seen.start, seen.end);
        // A piece the seat at the screen does not see fully is named by its side only.
        let name = |u: UnitId, full: String| {
            if session.sight(u) == Sight::Full {
                full
            } else {
                format!("{} piece, unseen", module.side(state.unit(u).side).name)
            }
        };
        let b = &seen.battle;
        let title = format!("Battle at {}", describe::place(&module, b.at));
        egui::CollapsingHeader::new(egui::RichText::new(title).strong())
            .id_salt("play-battle-window")
            .default_open(true)
            .show(ui, |ui| {
                let opts = battle_options(&module, &state);
                if under_way {
                    match together(&opts, by_rules(&module, &state), b) {
                        // Not "X firing": both have fired, the side named takes losses.
                        Some(text) => {
                            ui.strong(format!("Round {}", b.round));
                            ui.label(text);
                        }
                        None => super::refusal::battle_heading(ui, &module, b),
                    }
                    ui.label(waiting_for(&module, &state, b, session.decider(), shooter));
                    if let Some(owed) = losses_owed(&module, b) {
                        ui.label(owed);
                    }
                } else {
                    ui.strong("Battle over");
                    ui.label(result(&lines));
                }
                if let Some(words) = procedure_words(&opts) {
                    ui.weak(words);
                }
                if let Some(here) = markers_here(&module, &state, b) {
                    ui.label(here);
                }
                let chart = rules_losses(&module, &state, b, &lines);
                if !chart.is_empty() {
                    ui.separator();
                    ui.strong("Losses by the rules (no dice)");
                    for line in &chart {
                        ui.label(line.as_str());
                    }
                }
                let targets: Vec<(UnitId, Action)> = match &legal {
                    Ok(l) if human => l
                        .iter()
                        .filter_map(|a| match a {
                            Action::Target { target, .. } => Some((*target, a.clone())),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let losses = match &legal {
                    Ok(l) if human => own_losses(l),
                    _ => Vec::new(),
                };
                ui.separator();
                ui.columns_const(|[left, right]| {
                    for (ui, side, role, units) in [
                        (left, b.attacker, "Attackers", &b.attackers),
                        (right, b.defender, "Defenders", &b.defenders),
                    ] {
                        ui.strong(format!("{role}: {}", module.side(side).name));
                        for &u in units {
                            let text = name(u, counter(&module, &state, b, u));
                            let click = targets
                                .iter()
                                .map(|t| (t, "name this unit as the target"))
                                .chain(losses.iter().map(|t| (t, "this unit takes the loss")))
                                .find(|((t, _), _)| *t == u);
                            match click {
                                Some(((_, action), hover)) => {
                                    if ui.button(text).on_hover_text(hover).clicked() {
                                        out.push(UiCommand::Play(PlayCommand::Act(action.clone())));
                                    }
                                }
                                None => super::refusal::unnamed_target(
                                    ui,
                                    text,
                                    shooter.filter(|_| human && !targets.is_empty()),
                                    u,
                                    side != b.firing,
                                    out,
                                ),
                            }
                        }
                    }
                });
                if !b.shots.is_empty() {
                    ui.separator();
                    ui.strong("Shots announced");
                    for &(shooter, target) in &b.shots {
                        ui.label(format!(
                            "{} -> {}",
                            name(shooter, describe::unit(&module, &state, shooter)),
                            name(target, describe::unit(&module, &state, target))
                        ));
                    }
                }
                if under_way {
                    ui.separator();
                    match &legal {
                        Ok(l) if human => choices(ui, &module, &state, b, l, out),
                        Ok(_) => {}
                        Err(e) => {
                            ui.colored_label(
                                ui.visuals().error_fg_color,
                                format!("rules error: {e}"),
                            );
                        }
                    }
                    if human && !targets.is_empty() {
                        super::refusal::lone_target_setting(ui);
                    }
                    if !human {
                        ui.label(super::refusal::who_decides(session));
                    }
                }
                if let Some((round, [attackers, defenders])) = volleys(&module, b, &lines) {
                    ui.separator();
                    ui.strong(format!("Round {round}: both sides fired at once"));
                    ui.columns_const(|[left, right]| {
                        for (ui, side, shots) in [
                            (left, b.attacker, attackers),
                            (right, b.defender, defenders),
                        ] {
                            ui.label(format!("{} fired", module.side(side).name));
                            for shot in shots {
                                ui.label(shot);
                            }
                        }
                    });
                }
                ui.separator();
                ui.strong(if by_rules(&module, &state) {
                    "Results"
                } else {
                    "Dice and results"
                });
                egui::ScrollArea::vertical()
                    .id_salt("play-battle-dice")
                    .max_height(200.0)
                    .stick_to_bottom(true)
                    .show(ui, |ui| {
                        if lines.is_empty() {
                            ui.weak("no shots fired yet");
                        }
                        for line in &lines {
                            ui.label(line.as_str());
                        }
                    });
                if !under_way && ui.button("Close battle").clicked() {
                    out.push(UiCommand::Play(PlayCommand::CloseBattle));
                }
            });
    }
}

/// The battle procedure of the step under way (AHD's when none is).
pub fn battle_options(module: &Module, state: &GameState) -> BattleOptions {
    state
        .current_step(module)
        .map(|s| s.battle)
        .unwrap_or_default()
}

/// The module's battle procedure in words where it is not AHD's (TripleA's: both sides
/// fire at once, each side chooses its own losses, only the attacker may retreat), so a
/// player knows why no target is named and why the defender is never asked to retreat.
pub fn procedure_words(opts: &BattleOptions) -> Option<String> {
    let mut parts = Vec::new();
    if opts.fire == Fire::Simultaneous {
        parts.push("both sides fire at once each round");
    }
    if opts.casualties == Casualties::Owner {
        parts.push("each side chooses its own losses");
    }
    match opts.retreat {
        Retreaters::Both => {}
        Retreaters::Attacker => parts.push("only the attacker may retreat"),
        Retreaters::Defender => parts.push("only the defender may retreat"),
        Retreaters::None => parts.push("no one may retreat"),
    }
    let text = parts.join("; ");
    let mut c = text.chars();
    let first = c.next()?;
    Some(format!("{}{}.", first.to_uppercase(), c.as_str()))
}

/// While the sides take their losses where no side is "firing" (the engine's `firing`
/// is then the side choosing its losses): with simultaneous fire both volleys are
/// rolled; in a battle the rules resolve no one rolls at all.
pub fn together(opts: &BattleOptions, by_rules: bool, b: &Battle) -> Option<&'static str> {
    if b.stage != Stage::Losses || b.winner.is_some() {
        return None;
    }
    if by_rules {
        Some("No dice: the rules gave both sides' losses")
    } else {
        (opts.fire == Fire::Simultaneous)
            .then_some("Both sides have fired; the losses are taken together")
    }
}

/// Whether the step under way resolves its battles by the rules (`resolve="rules"`).
fn by_rules(module: &Module, state: &GameState) -> bool {
    state
        .current_step(module)
        .is_some_and(|s| s.resolve == Resolve::Rules)
}

/// The losses the deciding side has still to take, while it takes them.
pub fn losses_owed(module: &Module, b: &Battle) -> Option<String> {
    if b.stage != Stage::Losses {
        return None;
    }
    let owed = b.owed(b.firing);
    (owed > 0).then(|| {
        format!(
            "{} has {owed} loss{} to take: click one of its units, or a choice below",
            module.side(b.firing).name,
            if owed == 1 { "" } else { "es" }
        )
    })
}

/// The markers in the battle's box (the TripleA adaptation's water crossings and
/// entrenchment), which change the fight and may take its hits.
pub fn markers_here(module: &Module, state: &GameState, b: &Battle) -> Option<String> {
    let here: Vec<String> = state
        .markers
        .iter()
        .filter(|&&(at, _, n)| at == b.at && n > 0)
        .map(|&(_, id, n)| format!("{} x{n}", module.units.markers[id.index()].name))
        .collect();
    (!here.is_empty()).then(|| format!("In the box: {}", here.join(", ")))
}

/// In a battle the rules resolve (`resolve="rules"`: Divided We Fall's diceless
/// chart), each side's losses as the engine logged the rules' answer, with the rules'
/// reference (the chart line they came from): the app shows them, it never computes
/// them. Empty in a battle by dice.
pub fn rules_losses(
    module: &Module,
    state: &GameState,
    b: &Battle,
    lines: &[String],
) -> Vec<String> {
    if !by_rules(module, state) {
        return Vec::new();
    }
    let heads = [b.defender, b.attacker].map(|s| format!("{} loses ", module.side(s).name));
    lines
        .iter()
        .filter(|l| heads.iter().any(|h| l.starts_with(h.as_str())) && l.contains(" step"))
        .cloned()
        .collect()
}

/// The `Lose` actions open to the side taking its losses, by the unit that would take
/// each: the units it may click in its own column.
pub fn own_losses(legal: &[Action]) -> Vec<(UnitId, Action)> {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Lose { unit } => Some((*unit, a.clone())),
            _ => None,
        })
        .collect()
}

/// With simultaneous fire, the last round's volleys as the engine logged them ("round
/// 2: both sides fire at once", then each side's "... fires" and its dice), the
/// attacker's and the defender's apart, so both sides' shots of a round show together.
pub fn volleys(module: &Module, b: &Battle, lines: &[String]) -> Option<(u8, [Vec<String>; 2])> {
    let start = lines
        .iter()
        .rposition(|l| l.starts_with("round ") && l.ends_with(": both sides fire at once"))?;
    let round: u8 = lines[start]
        .strip_prefix("round ")?
        .split(':')
        .next()?
        .parse()
        .ok()?;
    let heads = [b.attacker, b.defender].map(|s| format!("{} fires", module.side(s).name));
    let mut out: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut side = None;
    for line in &lines[start + 1..] {
        if let Some(i) = heads.iter().position(|h| h == line) {
            side = Some(i);
        } else if line.contains(" must lose ") {
            break;
        } else if let Some(i) = side
            && (line.contains(" fires needing ") || line.ends_with(" cannot hit"))
        {
            out[i].push(line.clone());
        }
    }
    Some((round, out))
}

/// The battle under way, if any.
pub fn battle(state: &GameState) -> Option<&Battle> {
    state.combat.as_ref().and_then(|c| c.battle.as_ref())
}

/// Where the last battle's lines begin in the session log.
pub fn battle_start(log: &[String]) -> Option<usize> {
    log.iter().rposition(|l| l.starts_with(BATTLE_BEGINS))
}

/// What the engine reported during the battle (the dice of every shot, eliminations,
/// the result), without the indentation the session adds; the choices themselves are
/// left out, they show as the battle's state.
pub fn dice_lines(log: &[String], start: usize, end: Option<usize>) -> Vec<String> {
    let end = end.unwrap_or(log.len()).min(log.len());
    log.get(start.min(end)..end)
        .unwrap_or_default()
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("  (script)"))
        .map(|l| l.trim().to_string())
        .collect()
}

/// The battle's result as the engine logged it: the winner, else the withdrawal.
fn result(lines: &[String]) -> String {
    let find = |needle: &str| lines.iter().rev().find(|l| l.contains(needle)).cloned();
    find(" wins the battle at ")
        .or_else(|| find(" withdraws from "))
        .or_else(|| find(" evacuates from "))
        .unwrap_or_else(|| "No winner".into())
}

/// One unit as a counter: type and number, reduced or not, combat value, and where it
/// went if it is no longer in the battle's box.
pub fn counter(module: &Module, state: &GameState, b: &Battle, u: UnitId) -> String {
    let unit = state.unit(u);
    let combat = module.units.get(unit.kind).combat;
    let mut text = format!("{}, combat {combat}", describe::unit(module, state, u));
    if !unit.flags.is_empty() {
        text.push_str(", ");
        text.push_str(&module.units.flag_names(unit.flags));
    }
    if unit.place != Place::Board(b.at) {
        text.push_str(", gone");
    }
    text
}

/// What the battle waits for, in words.
fn waiting_for(
    module: &Module,
    state: &GameState,
    b: &Battle,
    decider: SideId,
    shooter: Option<UnitId>,
) -> String {
    let side = &module.side(decider).name;
    match b.stage {
        Stage::Withdraw => format!("{side} may withdraw before the battle, or stand"),
        Stage::Retreat => format!("{side} may retreat, or fight on"),
        Stage::Reinforce => format!("{side} may bring in reinforcements"),
        Stage::Target => match shooter {
            Some(u) => format!(
                "{side} names a target for {}",
                describe::unit(module, state, u)
            ),
            None => format!("{side} names targets"),
        },
        Stage::Upgrade => format!("{side} may promote a unit"),
        Stage::Losses => format!("{side} chooses the piece that takes its next loss"),
        Stage::Rout => format!("{side} yields the field and retreats"),
    }
}

/// What `Pass` means at this stage.
pub fn pass_label(stage: Stage) -> &'static str {
    match stage {
        Stage::Withdraw => "Stand",
        Stage::Retreat => "Fight on",
        Stage::Reinforce => "No more reinforcements",
        Stage::Upgrade => "No promotion",
        Stage::Target | Stage::Losses | Stage::Rout => "Pass",
    }
}

/// The button for a legal battle choice other than a target (those are the units).
pub fn choice_label(module: &Module, state: &GameState, b: &Battle, a: &Action) -> Option<String> {
    let text = match a {
        Action::Pass => pass_label(b.stage).to_string(),
        Action::Retreat { to } => {
            // The engine's words tell a retreat from an evacuation by sea.
            let engine = describe::action(module, state, a);
            let verb = if b.stage == Stage::Withdraw {
                "Withdraw"
            } else if engine.starts_with("evacuate") {
                "Evacuate"
            } else {
                "Retreat"
            };
            format!("{verb} to {}", describe::place(module, *to))
        }
        Action::Reinforce { .. }
        | Action::Upgrade { .. }
        | Action::Lose { .. }
        | Action::Absorb => capitalized(&describe::action(module, state, a)),
        _ => return None,
    };
    Some(text)
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn choices(
    ui: &mut Ui,
    module: &Module,
    state: &GameState,
    b: &Battle,
    legal: &[Action],
    out: &mut Vec<UiCommand>,
) {
    if legal.iter().any(|a| matches!(a, Action::Target { .. })) {
        ui.label("Click an enemy unit to name it as the target.");
    }
    ui.horizontal_wrapped(|ui| {
        for a in legal {
            let Some(text) = choice_label(module, state, b, a) else {
                continue;
            };
            if ui.button(text).clicked() {
                out.push(UiCommand::Play(PlayCommand::Act(a.clone())));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> Vec<String> {
        [
            "[Union] fight the battle at Cairo",
            "  battle at Cairo: Union attacks Confederacy",
            "[Confederacy] Infantry #3 fires at Infantry #1",
            "  Infantry fires at Infantry needing 3 or less: rolls 2, hit",
            "  (script) a script's note",
            "  Union wins the battle at Cairo",
            "[Union] end this segment",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn the_dice_are_the_engines_lines_since_the_battle_began() {
        let log = log();
        assert_eq!(battle_start(&log), Some(1));
        let lines = dice_lines(&log, 1, Some(6));
        assert_eq!(
            lines,
            [
                "battle at Cairo: Union attacks Confederacy",
                "Infantry fires at Infantry needing 3 or less: rolls 2, hit",
                "Union wins the battle at Cairo",
            ]
        );
        assert_eq!(result(&lines), "Union wins the battle at Cairo");
        // An end or start past the log is cut to it, not a panic.
        assert_eq!(dice_lines(&log, 1, Some(99)).len(), 3);
        assert!(dice_lines(&log, 50, None).is_empty());
        assert_eq!(battle_start(&log[..1]), None);
    }

    #[test]
    fn a_withdrawal_is_the_result_when_nobody_won() {
        let lines = ["Confederacy withdraws from Cairo to Paducah".to_string()];
        assert_eq!(result(&lines), lines[0]);
        assert_eq!(result(&[]), "No winner");
    }

    /// AHD's procedure (the defaults) is not worded; TripleA's is, in the order a
    /// round goes (issue 51, 6).
    #[test]
    fn a_procedure_is_worded_only_where_it_is_not_ahds() {
        assert_eq!(procedure_words(&BattleOptions::default()), None);
        let triplea = BattleOptions {
            fire: Fire::Simultaneous,
            casualties: Casualties::Owner,
            retreat: Retreaters::Attacker,
            no_withdrawal: true,
            no_reinforcement: true,
        };
        assert_eq!(
            procedure_words(&triplea).as_deref(),
            Some(
                "Both sides fire at once each round; each side chooses its own losses; \
                 only the attacker may retreat."
            )
        );
        let none = BattleOptions {
            retreat: Retreaters::None,
            ..BattleOptions::default()
        };
        assert_eq!(
            procedure_words(&none).as_deref(),
            Some("No one may retreat.")
        );
    }

    #[test]
    fn pass_is_named_by_what_it_means() {
        assert_eq!(pass_label(Stage::Withdraw), "Stand");
        assert_eq!(pass_label(Stage::Retreat), "Fight on");
        assert_eq!(pass_label(Stage::Reinforce), "No more reinforcements");
        assert_eq!(pass_label(Stage::Upgrade), "No promotion");
    }
}
