//! What a human at `muster play`'s prompt can ask besides an action's number: `help`,
//! `board` (where everything stands), and an action by its words.

use std::collections::BTreeMap;

use muster_core::Module;
use muster_core::game::rules::Progress;
use muster_core::game::{Action, GameState, Rules, describe, why_not};
use muster_core::ids::{BoxId, SideId};

/// The prompt's commands, for `help`.
pub const HELP: &str = "\
  N          take action number N of the list
  WORDS      take the action whose words are WORDS, or the only one containing them
             (e.g. \"activate Washington\"); case does not matter
  board      where every piece stands, who holds what, what is threatened, and how
             near each side is to winning
  help       this list
  u, undo    take back the last move (while moving)
  q, quit    stop the game (with --save, it is saved)";

/// How near each side is to its victory conditions, as the rules count them
/// (`victory_progress`); nothing when the rules give no count.
pub fn progress(module: &Module, progress: &[Progress]) -> Vec<String> {
    if progress.is_empty() {
        return Vec::new();
    }
    let mut out = vec!["To win:".to_string()];
    for p in progress {
        out.push(format!(
            "  {}: {}: {} of {}",
            module.side(p.side).name,
            p.goal,
            p.have,
            p.need
        ));
    }
    out
}

/// Every box holding pieces, with its holder and the pieces by side and type (flags
/// and reduced pieces shown); then the boxes held by a side other than their owner,
/// and `side`'s boxes next to enemy pieces.
pub fn board(module: &Module, state: &GameState, side: SideId) -> Vec<String> {
    let mut out = vec!["Pieces on the board:".to_string()];
    for at in module.board.box_ids() {
        let mut stacks: BTreeMap<(SideId, String), u32> = BTreeMap::new();
        for u in state.units_at(at) {
            let unit = state.unit(u);
            let mut name = module.units.get(unit.kind).id.clone();
            if unit.hits > 0 {
                name.push_str(" (reduced)");
            }
            if !unit.flags.is_empty() {
                name.push_str(&format!(" ({})", module.units.flag_names(unit.flags)));
            }
            *stacks.entry((unit.side, name)).or_default() += 1;
        }
        if stacks.is_empty() {
            continue;
        }
        let mut by_side: BTreeMap<SideId, Vec<String>> = BTreeMap::new();
        for ((s, name), n) in stacks {
            by_side.entry(s).or_default().push(format!("{n} {name}"));
        }
        let pieces: Vec<String> = by_side
            .into_iter()
            .map(|(s, list)| format!("{}: {}", module.side(s).name, list.join(", ")))
            .collect();
        out.push(format!(
            "  {} [{}] {}",
            describe::place(module, at),
            holder(module, state, at),
            pieces.join("; ")
        ));
    }
    let taken: Vec<String> = module
        .board
        .box_ids()
        .filter_map(|at| {
            let now = state.controller(at)?;
            (module.board.get(at).owner != Some(now)).then(|| {
                format!(
                    "{} ({})",
                    describe::place(module, at),
                    module.side(now).name
                )
            })
        })
        .collect();
    if !taken.is_empty() {
        out.push(format!(
            "Held by a side not their own: {}",
            taken.join(", ")
        ));
    }
    let threatened: Vec<&str> = module
        .board
        .box_ids()
        .filter(|&at| {
            state.controller(at) == Some(side) && enemy_next_door(module, state, at, side)
        })
        .map(|at| describe::place(module, at))
        .collect();
    if !threatened.is_empty() {
        out.push(format!(
            "{}'s boxes next to enemy pieces: {}",
            module.side(side).name,
            threatened.join(", ")
        ));
    }
    out
}

fn holder(module: &Module, state: &GameState, at: BoxId) -> String {
    state
        .controller(at)
        .map_or("neutral".to_string(), |s| module.side(s).name.clone())
}

fn enemy_next_door(module: &Module, state: &GameState, at: BoxId, side: SideId) -> bool {
    module
        .board
        .neighbours(at)
        .iter()
        .any(|&(n, _)| state.units_at(n).any(|u| state.unit(u).side != side))
}

/// How well typed words name an action's words.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    No,
    /// Each typed word begins one of the action's words (a piece's number, `#1`, is
    /// the whole word), or the text is found in them as typed.
    Part,
    /// The same words.
    Exact,
}

/// How `wanted` (lower case) fits `described` (lower case): the same words; or every
/// typed word found among the action's words, in any order (`#1 manassas` names `move
/// Militia Infantry #1 Washington -rail-> Manassas Junction`); or the text as typed
/// inside them. Three letters at least, so a stray key takes nothing.
fn fit(described: &str, wanted: &str) -> Fit {
    if described == wanted {
        return Fit::Exact;
    }
    if wanted.chars().count() < 3 && !wanted.starts_with('#') {
        return Fit::No;
    }
    if described.contains(wanted) {
        return Fit::Part;
    }
    let words: Vec<&str> = described
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '#'))
        .filter(|w| !w.is_empty())
        .collect();
    let each = wanted
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '#'))
        .filter(|w| !w.is_empty())
        .all(|typed| {
            words.iter().any(|w| {
                if typed.starts_with('#') {
                    *w == typed
                } else {
                    w.starts_with(typed)
                }
            })
        });
    if each { Fit::Part } else { Fit::No }
}

/// The action `words` names: the one whose words are exactly these (ignoring case),
/// else the only one they fit (see [`fit`]). `Err` says why none was taken: no match,
/// or the candidates when several match.
pub fn by_words(
    module: &Module,
    state: &GameState,
    legal: &[Action],
    words: &str,
) -> Result<Action, String> {
    let wanted = words.trim().to_lowercase();
    let described: Vec<String> = legal
        .iter()
        .map(|a| describe::action(module, state, a).to_lowercase())
        .collect();
    if let Some(i) = described.iter().position(|d| *d == wanted) {
        return Ok(legal[i].clone());
    }
    let mut matching: Vec<usize> = (0..legal.len())
        .filter(|&i| fit(&described[i], &wanted) != Fit::No)
        .collect();
    // Several words whose last one ends only one of the actions name that one: `#2
    // baltimore` is the move that ends in Baltimore, not one that goes on through it.
    let typed: Vec<&str> = wanted.split_whitespace().collect();
    if matching.len() > 1 && typed.len() > 1 {
        let last = typed[typed.len() - 1];
        let ending: Vec<usize> = matching
            .iter()
            .copied()
            .filter(|&i| {
                let d = &described[i];
                let tail = d.rsplit(' ').next().unwrap_or_default();
                // The last word may be several of the box's ("manassas junction").
                tail.starts_with(last)
                    || d.rsplit_once("> ")
                        .is_some_and(|(_, to)| to.starts_with(last))
                    || d.rsplit_once(" to ")
                        .is_some_and(|(_, to)| to.starts_with(last))
            })
            .collect();
        if ending.len() == 1 {
            matching = ending;
        }
    }
    match matching.as_slice() {
        [i] => Ok(legal[*i].clone()),
        [] => Err(format!(
            "'{words}' is neither a number from 1 to {} nor the words of an action; type help",
            legal.len()
        )),
        several => {
            let shown: Vec<String> = several
                .iter()
                .take(6)
                .map(|&i| format!("{}. {}", i + 1, describe::action(module, state, &legal[i])))
                .collect();
            let more = if several.len() > 6 { ", ..." } else { "" };
            Err(format!(
                "'{words}' matches {} actions: {}{more}; type more of the words or the number",
                several.len(),
                shown.join(", ")
            ))
        }
    }
}

/// The actions words might name that are not legal now, to say why not: a selection of
/// any box, a battle anywhere, a placement of any type anywhere, a promotion, a
/// reinforcement or a target of any piece on the board, and a one-line move of a
/// piece of the selected box. Only listed once the words fit no legal action.
fn conceivable(module: &Module, state: &GameState) -> Vec<Action> {
    let mut out = Vec::new();
    for at in module.board.box_ids() {
        out.push(Action::Select { at });
        out.push(Action::Fight { at });
        out.push(Action::Retreat { to: at });
        for kind in module.units.ids() {
            out.push(Action::Place { kind, at });
        }
    }
    let on_board: Vec<_> = state
        .unit_ids()
        .filter(|&u| matches!(state.unit(u).place, muster_core::game::Place::Board(_)))
        .collect();
    for &unit in &on_board {
        out.push(Action::Upgrade { unit });
        out.push(Action::Reinforce { unit });
    }
    if let Some(b) = state.combat.as_ref().and_then(|c| c.battle.as_ref()) {
        for &shooter in b.attackers.iter().chain(&b.defenders) {
            for &target in b.attackers.iter().chain(&b.defenders) {
                if state.unit(shooter).side != state.unit(target).side {
                    out.push(Action::Target { shooter, target });
                }
            }
        }
    }
    if let Some(a) = state.moving.as_ref().and_then(|m| m.active.as_ref()) {
        for unit in state.units_at(a.at) {
            for &(to, line) in module.board.neighbours(a.at) {
                let path = muster_core::game::Path {
                    from: a.at,
                    steps: vec![muster_core::game::Step { line, to }],
                };
                out.push(Action::Move { unit, path });
            }
        }
    }
    out
}

/// Why the action `words` name cannot be taken, when they fit no legal action but do
/// name one the game knows (`march: activate Richmond` in the Union's turn): the
/// engine's check and the rules' handlers that said no ([`why_not`]). `None` when the
/// words name no action, or several (then the usual hint is better).
pub fn refusal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    legal: &[Action],
    words: &str,
) -> Option<String> {
    let wanted = words.trim().to_lowercase();
    if legal
        .iter()
        .any(|a| fit(&describe::action(module, state, a).to_lowercase(), &wanted) != Fit::No)
    {
        return None;
    }
    let candidates = conceivable(module, state);
    let fits: Vec<(Fit, &Action)> = candidates
        .iter()
        .map(|a| {
            (
                fit(&describe::action(module, state, a).to_lowercase(), &wanted),
                a,
            )
        })
        .filter(|(f, _)| *f != Fit::No)
        .collect();
    let best = fits.iter().map(|(f, _)| *f).max()?;
    let named: Vec<&Action> = fits
        .iter()
        .filter(|(f, _)| *f == best)
        .map(|(_, a)| *a)
        .collect();
    let [action] = named.as_slice() else {
        return None;
    };
    match why_not(module, rules, state, action) {
        Ok(Some(r)) => Some(r.to_string()),
        Ok(None) => None,
        Err(e) => Some(format!("the rules failed saying why: {e}")),
    }
}
